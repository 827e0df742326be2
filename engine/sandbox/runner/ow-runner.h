/* ow-runner.h: the tool runner's serving loop, in plain C over libc.
 *
 * openworker-tool-runner is a thin main around this: it finds its
 * connection (fd 3, --socket or --stdio), optionally builds the Linux wall
 * around itself (platform/linux/ow-wall.h), and then calls ow_runner_serve,
 * which speaks the framed protocol of ow-runner-proto.h until the engine
 * says shutdown or goes away. Every call runs on a thread of its own, so a
 * long command does not hold up a file read; cancel makes that call's
 * cancel descriptor readable and the tool body returns "interrupted".
 *
 * The runner holds no keys and decides nothing. It also answers "probe":
 * the engine's checks of the wall, run from inside with exactly the
 * restrictions the tools have (see ow_runner_probe for the check kinds).
 */
#pragma once

#include <stddef.h>

#include "tools/body/ow-tb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the runner serves. Everything is borrowed for the call. */
typedef struct {
  int                in_fd;          /* frames from the engine */
  int                out_fd;         /* frames to the engine (may equal in_fd) */
  const char *const *envp;           /* the tools' environment; NULL = this process's */
  const OwTbRoot    *roots;          /* folders known before the first "roots" frame */
  size_t             n_roots;        /* how many */
  const char        *hello_extra;    /* JSON members appended to hello ("\"wall\":{…}"), or NULL */
  int                bridge_port;    /* the proxy bridge's loopback port inside, 0 = none */
  const char        *proxy_socket;   /* the proxy's Unix socket as seen inside, or NULL */
  const char        *landlock_canary;/* a folder the wall must not let anyone write in, or NULL */
} OwRunnerOptions;

/* Serves until "shutdown" or end of stream, then cancels what still runs,
 * kills the shell and every process it started, and returns the exit code
 * for main (0, or 1 after a protocol error). */
int  ow_runner_serve (const OwRunnerOptions *options);

/* Runs the checks of a "probe" frame (@checks: an array of objects with a
 * "kind") and writes the answer's array [{"name", "ok", "detail"}, …] into
 * @out. Check kinds:
 *   {"kind":"root","path":P,"writable":B}   P is a readable folder, and
 *                                             writable exactly when B
 *   {"kind":"hidden","path":P,"absent":[N…],"must_not_exist":B}
 *                                             P is absent, or each P/N is
 *                                             (and P itself when B)
 *   {"kind":"port_closed","host":H,"port":N}  a TCP connect to H:N fails
 *   {"kind":"proxy"}                          the proxy bridge and socket answer
 *   {"kind":"landlock"}                       writing in the canary folder is refused
 *   {"kind":"seccomp"}                        a filter is loaded and unshare(CLONE_NEWUSER) fails
 *   {"kind":"no_new_privs"}                   PR_SET_NO_NEW_PRIVS is set
 *   {"kind":"capabilities"}                   no capability is effective, permitted or bounding
 *   {"kind":"pid_hidden","pid":N}             process N (the engine) cannot be signalled
 *   {"kind":"net_isolated"}                   the only network interface is lo
 *   {"kind":"env_absent","names":[N…]}        none of these variables reaches the tools
 * An unknown kind is a failed check (the engine asked for proof the runner
 * cannot give). */
void ow_runner_probe (const OwRunnerOptions *options, const OwTbJson *checks, OwTbBuf *out);

#ifdef __cplusplus
}
#endif
