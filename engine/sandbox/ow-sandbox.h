/* ow-sandbox.h: running a session's tools behind a wall.
 *
 * With sandbox_provider = "direct" (the default) tools run in-process
 * (OwExecutorDirect). Otherwise an OwSandboxBackend starts
 * openworker-tool-runner behind the machine's chosen wall — Linux
 * namespaces + Landlock + seccomp, OpenShell, Seatbelt or a Windows
 * account — proves the wall from inside, and hands back an OwExecutor that
 * sends each shell and file tool call to the runner. If the wall cannot be
 * proved the session is refused with the reason; it never runs open.
 *
 * The runner holds no keys and decides nothing: the engine's policy has
 * already decided, and everything the runner returns is data.
 */
#pragma once

#include <gio/gio.h>

#include "tools/ow-executor.h"

G_BEGIN_DECLS

/* A credential shared on purpose: copied owner-only into the sandbox's
 * private home when it starts, deleted with it. */
typedef struct {
  char  *name;        /* "ssh", "gh", "aws-config", "aws-credentials", "kube", "npm", "docker",
                       * "gcloud", "terraform", or "custom" */
  char  *source;      /* absolute path on the machine (file or folder) */
  char  *dest;        /* path relative to the sandbox home (".ssh", ".config/gh", …) */
  char  *env_name;    /* variable pointing at it inside ("GH_CONFIG_DIR"), or NULL */
  char **hosts;       /* host:port entries this credential needs on the allow list */
} OwCredentialCopy;

void ow_credential_copy_free (OwCredentialCopy *copy);

/* What a sandbox is started with. Everything is copied by start_async. */
typedef struct {
  const char        *session_id;
  GPtrArray         *roots;          /* OwRoot*: the session's folders, at their own paths */
  const char *const *env;            /* the tools' environment (secrets already removed) */
  const char        *runner_path;    /* the openworker-tool-runner binary */
  const char        *proxy_socket;   /* Unix socket of the allow-list proxy; NULL = no network at all */
  gboolean           network_open;   /* sandbox_network_profile = "open" (files still confined) */
  const char *const *toolchains;     /* home-relative folders made visible read-only (".cargo", ".nvm", …) */
  GPtrArray         *credentials;    /* OwCredentialCopy*, may be NULL */
  const char *const *hidden;         /* folders that must be invisible: home, OpenWorker's config/state/runtime */
  const char        *scratch_dir;    /* where the backend may keep the sandbox's private home and temp */
} OwSandboxSpec;

#define OW_TYPE_SANDBOX_BACKEND (ow_sandbox_backend_get_type ())
G_DECLARE_INTERFACE (OwSandboxBackend, ow_sandbox_backend, OW, SANDBOX_BACKEND, GObject)

struct _OwSandboxBackendInterface
{
  GTypeInterface parent_iface;

  /* "linux", "openshell", "seatbelt", "windows". */
  const char *(*get_name)     (OwSandboxBackend *self);
  /* What is there and what is missing on this machine, for
   * `openworker machine sandbox status`: {"ready": bool, "checks": [{"name", "ok", "detail"}], "missing": […]} */
  JsonObject *(*status)       (OwSandboxBackend *self);
  /* Starts a runner behind the wall for @spec and proves the wall. The
   * result is an OwExecutor whose get_enforcement() names the wall. */
  void        (*start_async)  (OwSandboxBackend    *self,
                               const OwSandboxSpec *spec,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data);
  OwExecutor *(*start_finish) (OwSandboxBackend *self, GAsyncResult *result, GError **error);
};

const char *ow_sandbox_backend_get_name     (OwSandboxBackend *self);
JsonObject *ow_sandbox_backend_status       (OwSandboxBackend *self);
void        ow_sandbox_backend_start_async  (OwSandboxBackend    *self,
                                             const OwSandboxSpec *spec,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
OwExecutor *ow_sandbox_backend_start_finish (OwSandboxBackend *self, GAsyncResult *result, GError **error);

/* Backends live in platform/, above the engine, so each registers itself
 * (ow_sandbox_linux_register () on Linux) before the engine asks for one. */
typedef OwSandboxBackend *(*OwSandboxBackendFactory) (GError **error);

void              ow_sandbox_backend_register (const char *provider, OwSandboxBackendFactory factory);

/* The backend for a sandbox_provider value ("linux", "openshell",
 * "seatbelt", "windows"). A provider no backend has registered for fails
 * with OW_SANDBOX_ERROR_UNAVAILABLE and a sentence saying it is not
 * available on this system; "direct" has no backend (tools run in-process)
 * and fails the same way. Transfer full. */
OwSandboxBackend *ow_sandbox_backend_for      (const char *provider, GError **error);

/* The providers with a registered backend, natively walled ones first
 * ("linux", then "openshell" on Linux). Transfer full. */
char            **ow_sandbox_backend_list_registered (void);

G_END_DECLS
