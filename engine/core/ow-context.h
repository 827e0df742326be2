/* ow-context.h: the services every part of the engine is given.
 *
 * One OwContext per process (or per test): the folders, the settings, the
 * state database, the audit log, the HTTP client and the secret store,
 * plus the environment keys are read from. Everything that touches the machine is injected
 * here, which is what lets tests run the real code against a temporary
 * home and loopback servers.
 */
#pragma once

#include <gio/gio.h>

#include "net/ow-http-client.h"
#include "net/ow-oauth.h"
#include "providers/ow-provider-catalog.h"
#include "store/ow-audit-log.h"
#include "store/ow-config.h"
#include "store/ow-paths.h"
#include "store/ow-secret-store.h"
#include "store/ow-store.h"

G_BEGIN_DECLS

#define OW_TYPE_CONTEXT (ow_context_get_type ())
G_DECLARE_FINAL_TYPE (OwContext, ow_context, OW, CONTEXT, GObject)

typedef struct {
  const OwPaths *paths;        /* where things live (copied) */
  gboolean       isolated;     /* read nothing from the machine: no config.toml, no stored keys */
  const char    *project_dir;  /* a workspace whose .openworker/config.toml narrows the settings, or NULL */
  OwSecretStore *secrets;      /* where saved keys are (a reference is taken); NULL = none. Never read when isolated */
} OwContextOptions;

/* Creates the folders, opens the databases and reads the settings. */
OwContext    *ow_context_new            (const OwContextOptions *options, GError **error);

const OwPaths *ow_context_get_paths     (OwContext *self);
OwConfig     *ow_context_get_config     (OwContext *self);
OwStore      *ow_context_get_store      (OwContext *self);
OwAuditLog   *ow_context_get_audit      (OwContext *self);
OwHttpClient *ow_context_get_http       (OwContext *self);
gboolean      ow_context_is_isolated    (OwContext *self);
/* The secret store, or NULL when there is none (always NULL when isolated). */
OwSecretStore *ow_context_get_secrets   (OwContext *self);
/* The process's one OwOAuth (sign-ins to MCP servers and connectors),
 * made on first use over the context's HTTP client and secret store, so a
 * sign-in completed anywhere reaches every session through its
 * "signed-in" signal. NULL when there is no secret store (always NULL when
 * isolated): tokens are never kept anywhere else. Transfer none. */
OwOAuth       *ow_context_get_oauth     (OwContext *self);

/* The machine's config.toml (it need not exist yet). Transfer full. */
char         *ow_context_dup_config_path (OwContext *self);
/* Reads config.toml (and the project's, if any) again, after a settings
 * screen wrote it, and emits ::config-changed. On failure the settings in
 * use are kept. Call it from the main thread: ow_context_get_config()
 * hands out borrowed pointers. */
gboolean      ow_context_reload_config  (OwContext *self, GError **error);
/* Where sessions without a folder of their own get one: config
 * `scratch_dir` (an absolute path or one under "~/"), else the scratch
 * base of OwPaths (~/OpenWorker). Transfer full. */
char         *ow_context_dup_scratch_dir (OwContext *self);
/* The scratch folder of session @session_id: the scratch base's
 * <session_id> (not created here). Transfer full. */
char         *ow_context_dup_session_scratch (OwContext *self, const char *session_id);
/* Whether @path is a scratch folder: the scratch base or inside it. */
gboolean      ow_context_is_scratch      (OwContext *self, const char *path);

/* The model to use when none is named: OPENWORKER_MODEL, else config
 * `model`; NULL when neither is set. */
const char   *ow_context_default_model  (OwContext *self);
/* The model a session or a run uses when none is named: the above, else
 * the model model_config.json marks default (the first saved key sets
 * one). Reads that small file each call; NULL when there is none. */
char         *ow_context_dup_default_model (OwContext *self);

/* Moves every key variable the engine reads (each catalog entry's key
 * variable and its alternatives, the web search keys) out of the process
 * environment into memory, registered for redaction; the key still works
 * for the whole run. The programs call this first thing in main(), before
 * any thread starts: it unsets variables. */
void          ow_context_take_environment_secrets (void);

/* Which environment variable holds @entry's key in this process — its key
 * variable, or an alternative the catalog lists (GOOGLE_API_KEY) — or NULL
 * when none is set: ow_provider_entry_find_key_env() on this process's
 * environment. Every surface that says whether a provider is configured
 * (the server's routes, the CLI, the desktop) asks this. */
const char   *ow_context_provider_key_env (OwContext *self, const OwProviderEntry *entry);

/* Builds the provider for a full model id, with the key and base URL this
 * machine has for it. The key: the provider's variable in the environment
 * wins; otherwise the one saved in the secret store as
 * (OW_SECRET_KIND_PROVIDER, entry id), unless the context is isolated.
 * A key read from the store is kept in memory until a secret is stored or
 * deleted through any OwSecretStore of this process.
 * Reading the store blocks (D-Bus or disk) unless the key is kept already:
 * call this before the main loop runs, or from a worker thread; on the main
 * loop use the _async form. A store that fails (a locked keyring) fails
 * the call with its reason. @bare_model receives the model as the wire
 * wants it. */
OwProvider   *ow_context_create_provider (OwContext              *self,
                                          const char             *model_id,
                                          char                  **bare_model,
                                          const OwProviderEntry **entry,
                                          GError                **error);

/* The same without blocking: the store is read in a worker thread (a kept
 * key or one in the environment needs no read); the callback comes on the
 * caller's thread-default main context. Cancelling @cancellable fails it
 * with G_IO_ERROR_CANCELLED. The errors are ow_context_create_provider()'s. */
void          ow_context_create_provider_async  (OwContext           *self,
                                                 const char          *model_id,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
/* Transfer full; @bare_model (transfer full) and @entry as above. */
OwProvider   *ow_context_create_provider_finish (OwContext              *self,
                                                 GAsyncResult           *result,
                                                 char                  **bare_model,
                                                 const OwProviderEntry **entry,
                                                 GError                **error);

G_END_DECLS
