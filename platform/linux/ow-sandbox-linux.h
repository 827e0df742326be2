/* ow-sandbox-linux.h: sandbox_provider = "linux" — the native wall.
 *
 * Starts openworker-tool-runner behind user, mount, pid, network, IPC and
 * UTS namespaces, Landlock and seccomp (the runner builds the wall around
 * itself: ow-wall.h), proves the wall from inside with the runner's probe
 * and hands back an OwExecutorRunner whose enforcement reads
 * "linux: namespaces+landlock(abi N)+seccomp" (", network open" added
 * when sandbox_network_profile = "open"). No Docker, no daemon, nothing
 * installed system-wide.
 *
 * The folders are fixed when the sandbox starts: the executor's set_roots
 * can narrow them, but a folder added to a running session needs a new
 * sandbox (and the agent is told that shell state was lost). The private
 * home sits at the path of the home named by the spec's HOME (so
 * toolchains keep their absolute paths); /tmp and the home are tmpfs and
 * vanish with the sandbox, credential copies included.
 */
#pragma once

#include "sandbox/ow-sandbox.h"

G_BEGIN_DECLS

#define OW_TYPE_SANDBOX_LINUX (ow_sandbox_linux_get_type ())
G_DECLARE_FINAL_TYPE (OwSandboxLinux, ow_sandbox_linux, OW, SANDBOX_LINUX, GObject)

/* @runner_path: the openworker-tool-runner to use when a spec names none;
 * NULL finds it (ow_sandbox_linux_find_runner). */
OwSandboxBackend *ow_sandbox_linux_new         (const char *runner_path);

/* Registers "linux" with ow_sandbox_backend_for (). */
void              ow_sandbox_linux_register    (void);

/* Where openworker-tool-runner is: $OPENWORKER_TOOL_RUNNER, next to this
 * program, ../libexec next to it, the installed libexecdir, then PATH.
 * NULL when it is nowhere. */
char             *ow_sandbox_linux_find_runner (void);

G_END_DECLS
