/* ow-session-marker.h: telling a person's command from a session's.
 *
 * Every command an OpenWorker session starts carries OW_SESSION_COMMAND_ENV
 * in its environment. The commands that grant authority (standing rules,
 * inbox answers, model keys, the machine sandbox) look for it in their own
 * environment and in every ancestor's, and for an OpenWorker engine among
 * their ancestors, and refuse when they find either: an agent must not
 * approve itself by running `openworker rules add`.
 */
#pragma once

/* No GLib here: the tool bodies (libc only) that start a session's
 * commands take the name from this header too. */
#ifdef __cplusplus
extern "C" {
#endif

/* Set (to "1") in the environment of every command a session runs. Any
 * value, even an empty one, counts as the mark. */
#define OW_SESSION_COMMAND_ENV "OPENWORKER_SESSION_COMMAND"

/* 1 when this process was started by a session: it or one of its
 * ancestors carries the mark, or one of its ancestors is an OpenWorker
 * engine program (openworker, openworker-server, openworker-desktop,
 * openworker-tool-runner). A child can drop the variable (`env -u`), but
 * the shell that started it still shows it in /proc/PID/environ; and a
 * shell that `exec`s the command away leaves the engine as its parent.
 * Ancestors that cannot be read (another user's) are passed over.
 * *@why, when given, names the process that gave it away (free with
 * g_free); otherwise 0. */
int ow_session_marker_find (char **why);

#ifdef __cplusplus
}
#endif
