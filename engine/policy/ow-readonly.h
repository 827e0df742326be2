/* ow-readonly.h: is this shell command read-only?
 *
 * For the session grant "Allow read-only commands" (an approval card's
 * readonly_session answer): once given, the commands this accepts run
 * without a card for the rest of the session. It fails closed: anything it
 * cannot read, and every program not on its lists, is not read-only.
 *
 * Accepted: one command or a pipeline of them (no other operator, no
 * redirection, no command or process substitution, no newline), each
 * stage a program from a fixed list, called by name (not by path), after
 * optional VAR=value words:
 *   - always: ls cat head tail wc nl sort uniq cut tr grep egrep fgrep rg
 *     ugrep file stat du df pwd echo printf which whoami id date uname
 *     basename dirname realpath readlink jq column diff comm strings
 *     md5sum shasum sha1sum sha256sum hexdump xxd od true false yamllint
 *     actionlint;
 *   - env with no arguments, command -v / -V NAME;
 *   - git with only -C DIR and --no-pager before a reading subcommand
 *     (status log show diff blame … ; branch, tag, stash, remote, config
 *     and reflog only in their listing forms), never --output;
 *   - sed without -i or -f and with a script of printing commands only;
 *     awk without ">", "|" or "system"; find without -delete, -exec, -ok
 *     or -fprint.
 * The safety checks still run before the grant is looked at, so a read of
 * a credential file is asked about even when it is "read-only".
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean ow_readonly_command (const char *command);

G_END_DECLS
