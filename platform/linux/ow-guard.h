/* ow-guard.h: the guard around every shell command, also in direct mode.
 *
 * With `sandbox_provider = "direct"` commands run on the person's machine
 * with the person's tools, network and files, but each session's shell
 * (and every background task) starts inside a guard built from the same
 * kernel parts as the Linux wall:
 *
 *   - a private mount namespace (a user namespace too when not root), in
 *     which OpenWorker's own folders, the keyring and the credential
 *     folders are empty read-only mounts, the protected files inside the
 *     session's folders (.git/hooks, .git/config, CI files, the agent's
 *     and the shell's settings) are read-only binds, `.git` itself is a
 *     mount point (so it cannot be renamed away), and /tmp is a private
 *     folder of the session's;
 *   - Landlock: everything may be read and run, only the session's
 *     writable folders, the private /tmp, the tool cache and a few
 *     devices may be written, and nothing may change the mount tree;
 *   - no_new_privs and a small seccomp filter (no setns, no mounts, no
 *     file handles, no typing into the terminal).
 *
 * What the safety checks' parser promises is then true in the kernel: a
 * write outside the session's folders fails with EACCES inside the
 * command whichever program makes it (python, sed w, tar, a hard link).
 *
 * The parent side (ow_guard_new) resolves every path and prepares the
 * seccomp program; the child side (ow_guard_child_enter) runs between
 * fork and exec and makes system calls only, so it is safe in a child of
 * a threaded engine. Plain C over libc and libseccomp, like the wall.
 */
#pragma once

#include <stddef.h>

#include "tools/body/ow-tb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OwGuard OwGuard;

/* What the guard is built from (ow-tb.h); missing paths are skipped. */
typedef OwTbGuardSpec OwGuardSpec;

/* Resolves @spec into a guard. NULL with a sentence in @err. */
OwGuard *ow_guard_new         (const OwGuardSpec *spec, char *err, size_t err_size);
void     ow_guard_free        (OwGuard *guard);

/* 1 when a protected path is no longer the file or folder the guard was
 * built on (something outside replaced it): build a new guard. */
int      ow_guard_stale       (const OwGuard *guard);

/* In the child, between fork and exec: enters the guard. 0, or -1 with a
 * sentence in @err (the caller reports it and exits). Only system calls. */
int      ow_guard_child_enter (void *guard, char *err, size_t err_size);

/* Whether this machine can build the guard (user or mount namespace,
 * Landlock, seccomp): 1, or 0 with the reason in @why. Tries it in a
 * throwaway child once; the answer is kept. */
int      ow_guard_available   (char *why, size_t why_size);

/* A short description of the enforcement, e.g. "guard (mount namespace,
 * Landlock ABI 7, seccomp)". Static storage. */
const char *ow_guard_describe (void);

/* The guard as the engine's direct executor uses it (OwTbGuardImpl). */
const OwTbGuardImpl *ow_guard_impl (void);

#ifdef __cplusplus
}
#endif
