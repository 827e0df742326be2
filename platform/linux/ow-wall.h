/* ow-wall.h: the native Linux wall around openworker-tool-runner, in libc.
 *
 * `openworker-tool-runner --wall` reads the sandbox's description (one
 * {"op":"wall",…} frame from the engine) and builds the wall around
 * itself before it serves a single call:
 *
 *   1. new user, mount, pid, IPC, UTS and cgroup namespaces, and a network
 *      namespace unless the network is open (ow-wall.c);
 *   2. a mount tree built from nothing: a tmpfs root with the system bound
 *      read-only, the session's folders at their own paths, a private
 *      /tmp and a private home on tmpfs, /proc of the new pid namespace,
 *      a minimal /dev. Everything else — the person's home, OpenWorker's
 *      own folders — is absent, not denied;
 *   3. Landlock on top of the tree (ow-wall-landlock.c), no capabilities,
 *      no_new_privs and a seccomp filter (ow-wall-seccomp.c);
 *   4. when the sandbox may use the allow-list proxy, a bridge from
 *      127.0.0.1:PORT inside the namespace to the proxy's Unix socket
 *      (ow-wall-bridge.c).
 *
 * Three processes result: the runner as started (outside, it only waits,
 * so the engine's handle on it stays meaningful), an init that is pid 1
 * of the new namespace and reaps orphans, and the runner proper, pid 2,
 * which serves. When the runner proper exits, init exits and the kernel
 * kills whatever is left in the namespace.
 *
 * Everything here is plain C over libc plus libseccomp: it runs in the
 * runner, which links no GLib.
 */
#pragma once

#include <stddef.h>

#include "tools/body/ow-tb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sandbox's network. */
typedef enum {
  OW_WALL_NET_NONE,    /* a namespace with only lo: no network at all */
  OW_WALL_NET_PROXY,   /* the same, plus the bridge to the allow-list proxy */
  OW_WALL_NET_OPEN,    /* the host's network (files are still confined) */
} OwWallNet;

/* A credential shared on purpose: copied owner-only into the private home. */
typedef struct {
  char *source;    /* file or folder on the host (absolute) */
  char *dest;      /* where in the private home (relative, no "..") */
  char *env_name;  /* variable set to the copy's path inside, or NULL */
} OwWallCredential;

/* What the engine asks for, parsed from the "wall" frame. */
typedef struct {
  char             *mount_point;    /* an empty host folder the new root is built on */
  char             *home;           /* the private home's path inside (the person's home path) */
  OwTbRoot         *roots;          /* the session's folders; paths owned */
  size_t            n_roots;        /* how many */
  char            **env;            /* the tools' environment, NULL-terminated (owned) */
  char            **hidden;         /* host paths that must not be visible, NULL-terminated (owned) */
  char            **toolchains;     /* home-relative folders bound read-only, NULL-terminated (owned) */
  OwWallCredential *credentials;    /* copied into the private home (owned) */
  size_t            n_credentials;  /* how many */
  char             *proxy_socket;   /* the proxy's Unix socket on the host, or NULL */
  OwWallNet         network;        /* see OwWallNet */
} OwWallConfig;

/* What the runner proper needs once the wall stands. */
typedef struct {
  int    landlock_abi;        /* the ABI Landlock was applied with */
  int    seccomp;             /* 1 once the filter is loaded */
  int    bridge_fd;           /* the bridge's listening socket, or -1 */
  int    bridge_port;         /* its port on 127.0.0.1 inside, or 0 */
  char  *proxy_socket;        /* the proxy's socket as seen inside, or NULL (owned) */
  char  *canary;              /* a folder only Landlock keeps tools from writing to (owned) */
  char **tools_env;           /* the tools' final environment, NULL-terminated (owned) */
} OwWallState;

/* Where the proxy's socket and the Landlock canary appear inside. */
#define OW_WALL_RUN_DIR        "/run/openworker-sandbox"
#define OW_WALL_PROXY_SOCKET   OW_WALL_RUN_DIR "/proxy.sock"
#define OW_WALL_CANARY         OW_WALL_RUN_DIR "/landlock-canary"

/* Parses a {"op":"wall",…} frame. 0, or -1 with a sentence in @err. */
int   ow_wall_config_parse (const char *json, size_t len, OwWallConfig *config, char *err, size_t err_size);
void  ow_wall_config_clear (OwWallConfig *config);
void  ow_wall_state_clear  (OwWallState *state);

/* Builds steps 1, 2 and the bridge's socket. Must be called while the
 * process has one thread. Returns 0 in the runner proper, inside the wall
 * (lockdown still to do); the process as started and the init never
 * return from it (they wait, then _exit). On failure returns -1 with a
 * sentence a person can act on in @err, in whichever process failed: the
 * caller reports it and _exits. @conn_fd is closed in the processes that
 * do not serve. */
int   ow_wall_enter        (const OwWallConfig *config, int conn_fd, OwWallState *state,
                            char *err, size_t err_size);

/* Step 3: drops every capability, sets no_new_privs, applies Landlock and
 * loads the seccomp filter. Call on the only thread, after ow_wall_enter. */
int   ow_wall_lockdown     (const OwWallConfig *config, OwWallState *state, char *err, size_t err_size);

/* Starts the proxy bridge's thread (after lockdown: the thread inherits
 * the wall). 0, or -1 with @err. */
int   ow_wall_bridge_start (OwWallState *state, char *err, size_t err_size);

/* The Landlock ABI of this kernel (1…), or 0 when Landlock is unavailable,
 * with the reason in @why (may be NULL). */
int   ow_wall_landlock_abi (char *why, size_t why_size);

/* Applies Landlock for @config inside the finished tree (ow-wall-landlock.c). */
int   ow_wall_landlock_apply (const OwWallConfig *config, int abi, char *err, size_t err_size);

/* Loads the seccomp filter (ow-wall-seccomp.c). */
int   ow_wall_seccomp_apply (char *err, size_t err_size);

/* Listens on 127.0.0.1:0 inside; returns the socket and its port. */
int   ow_wall_bridge_listen (int *port, char *err, size_t err_size);

/* What this machine offers, for `openworker-tool-runner --check` (and so
 * for `openworker machine sandbox status`): writes a JSON object
 * {"kernel", "landlock_abi", "checks": [{"name", "ok", "detail"}…]} into
 * @out. Tries a throwaway set of namespaces in a child process. */
void  ow_wall_check        (OwTbBuf *out);

#ifdef __cplusplus
}
#endif
