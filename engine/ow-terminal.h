/* ow-terminal.h: text made safe to show on a terminal.
 *
 * What a model or a repository wrote (a command to approve, a reason, a
 * question) reaches the person's terminal in prompts. Written raw, a
 * carriage return, an escape sequence or a bidi override can make the
 * terminal show something other than what will run: `curl … @report.txt`
 * followed by "\r\x1b[2Kls -la" displays as `ls -la`. Every such character
 * is shown as an escape instead, so what the person reads is what the
 * text holds.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Returns a copy of @text in which every C0 and C1 control, DEL, every
 * Unicode format character (the bidi embeddings, overrides and isolates
 * U+202A–U+202E and U+2066–U+2069, the marks U+200E/U+200F/U+061C, the
 * zero-width characters), U+2028/U+2029 and every byte that is not UTF-8
 * is written as an escape: \r, \t, \b, \n, \xNN for other bytes below
 * 0x80, \uNNNN or \UNNNNNNNN above. With @newline_indent given, a newline
 * stays a newline followed by @newline_indent (multi-line commands keep
 * their shape, indented so no line can pass for the prompt's own).
 * *@escaped, when given, says whether anything was escaped. */
char *ow_terminal_escape (const char *text, const char *newline_indent, gboolean *escaped);

G_END_DECLS
