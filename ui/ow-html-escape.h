/* ow-html-escape.h: the output-encoding module.
 *
 * Every string that did not come from this program's own source — model
 * text, tool arguments and results, file names, error messages, session
 * titles — reaches HTML only through these functions. They are GTK-free
 * and pure, so the tests can state exactly what each one produces.
 *
 * ow_html_append() is the way fragments are built: a small printf where %s
 * is always escaped and only %H, reserved for HTML this program produced
 * (another fragment, the sanitized markdown renderer's output), goes in
 * as it is. A forgotten escape is then a visible %H in a review, not a
 * silent hole.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Text escaped for element content and for single- or double-quoted
 * attribute values: & < > " ' and ` become character references. Invalid
 * UTF-8 becomes U+FFFD; C0 controls other than tab, newline and carriage
 * return, and DEL, are dropped (they have no business in a page and some
 * confuse parsers). NULL is treated as "". */
char       *ow_html_escape        (const char *text);
/* The same, appended to @out; @len -1 for a NUL-terminated @text. */
void        ow_html_escape_append (GString *out, const char *text, gssize len);

/* Appends @format to @out. Conversions:
 *   %s  a string, escaped (NULL → "")
 *   %H  a string of trusted HTML, as it is (NULL → "")
 *   %d  an int          %u  an unsigned int
 *   %l  a gint64        %%  a percent sign
 * Anything else is a programming error (g_critical) and is dropped. */
void        ow_html_append        (GString *out, const char *format, ...);
void        ow_html_append_valist (GString *out, const char *format, va_list args);

/* A link target that may go into an href: http, https and mailto URLs, and
 * "artifact:" references to a session's files; NULL for anything else
 * (javascript:, data:, file:, relative paths, URLs with whitespace or
 * control characters). The result is not escaped: pass it to %s. */
char       *ow_html_safe_link     (const char *url);

/* An identifier made of [A-Za-z0-9_-] only (others become '_'), for id and
 * data- attributes built from outside values such as tool call ids. */
char       *ow_html_token         (const char *text);

G_END_DECLS
