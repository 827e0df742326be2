/* ow-context.c: the engine's injected services (see ow-context.h). */
#define G_LOG_DOMAIN "ow-context"

#include "core/ow-context.h"

#include "store/ow-model-config.h"

#include <string.h>

#include "ow-error.h"
#include "ow-secret-env.h"
#include "tools/ow-web-tools.h"

struct _OwContext
{
  GObject       parent_instance;

  OwPaths      *paths;     /* owned */
  gboolean      isolated;
  OwConfig     *config;    /* owned reference */
  OwStore      *store;     /* openworker.db (owned) */
  OwAuditLog   *audit;     /* audit.db (owned) */
  OwHttpClient *http;      /* owned */
  OwSecretStore *secrets;  /* saved keys (owned reference); NULL = none */
  OwOAuth      *oauth;     /* made on first use (owned); NULL until then */
  char         *project_config;  /* the project's .openworker/config.toml, or NULL (owned) */
  GMutex        keys_lock;       /* guards keys: lookups may finish on worker threads' behalf */
  GHashTable   *keys;            /* provider id → CachedKey*: keys read from the secret store */
};

/* A key read from the store, trusted while no secret was stored or deleted
 * since the lookup began (ow_secret_store_get_changes()). Only keys found
 * are kept: a key missing now may be saved by another process (`openworker
 * keys set`) and is looked for again at the next turn. */
typedef struct {
  guint  changes;  /* the store's change count when the lookup began */
  char  *value;    /* wiped when freed */
} CachedKey;

static void
cached_key_free (CachedKey *k)
{
  ow_secret_free (k->value);
  g_free (k);
}

G_DEFINE_FINAL_TYPE (OwContext, ow_context, G_TYPE_OBJECT)

enum { SIGNAL_CONFIG_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
ow_context_finalize (GObject *object)
{
  OwContext *self = OW_CONTEXT (object);

  g_clear_object (&self->oauth);
  g_clear_object (&self->http);
  g_clear_object (&self->secrets);
  g_clear_pointer (&self->audit, ow_audit_log_free);
  g_clear_pointer (&self->store, ow_store_free);
  g_clear_pointer (&self->config, ow_config_unref);
  g_clear_pointer (&self->paths, ow_paths_free);
  g_clear_pointer (&self->project_config, g_free);
  g_clear_pointer (&self->keys, g_hash_table_unref);
  g_mutex_clear (&self->keys_lock);
  G_OBJECT_CLASS (ow_context_parent_class)->finalize (object);
}

static void
ow_context_class_init (OwContextClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_context_finalize;

  /**
   * OwContext::config-changed:
   *
   * The settings were read again (ow_context_reload_config()).
   */
  signals[SIGNAL_CONFIG_CHANGED] =
    g_signal_new ("config-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
ow_context_init (OwContext *self)
{
  g_mutex_init (&self->keys_lock);
  self->keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) cached_key_free);
}

/* The machine config's extra names for commands' environment. Only the
 * machine's file counts: a project's config cannot widen what commands
 * see (ow_config_load() ignores the key there). */
static void
apply_shell_environment (OwContext *self)
{
  g_auto(GStrv) names = ow_config_get_strv (self->config, "shell_environment_allow");

  ow_secret_env_set_allowed ((const char *const *) names);
}

void
ow_context_take_environment_secrets (void)
{
  const GPtrArray *catalog = ow_provider_catalog_get ();
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < catalog->len; i++)
    {
      const OwProviderEntry *e = g_ptr_array_index (catalog, i);

      for (guint j = 0; e->key_vars[j] != NULL; j++)
        g_ptr_array_add (names, e->key_vars[j]);
    }
  for (const char *const *n = ow_web_search_key_names (); *n != NULL; n++)
    g_ptr_array_add (names, (gpointer) *n);
  g_ptr_array_add (names, NULL);
  ow_secret_env_capture ((const char *const *) names->pdata);
}

OwContext *
ow_context_new (const OwContextOptions *options, GError **error)
{
  g_autoptr(OwContext) self = g_object_new (OW_TYPE_CONTEXT, NULL);
  g_autofree char *db_path = NULL;
  g_autofree char *audit_path = NULL;

  self->paths = ow_paths_copy (options->paths);
  self->isolated = options->isolated;
  /* An isolated run reads nothing from the machine, its keyring included. */
  if (options->secrets != NULL && !options->isolated)
    self->secrets = g_object_ref (options->secrets);

  if (options->isolated)
    self->config = ow_config_new_empty ();
  else
    {
      g_autofree char *machine = g_build_filename (self->paths->config_dir, "config.toml", NULL);

      if (options->project_dir != NULL)
        self->project_config = g_build_filename (options->project_dir, ".openworker", "config.toml", NULL);
      self->config = ow_config_load (machine, self->project_config, error);
      if (self->config == NULL)
        return NULL;
    }
  apply_shell_environment (self);

  if (!ow_paths_ensure_dir (self->paths->state_dir, error))
    return NULL;
  db_path = g_build_filename (self->paths->state_dir, "openworker.db", NULL);
  self->store = ow_store_open (db_path, error);
  if (self->store == NULL)
    return NULL;
  audit_path = g_build_filename (self->paths->state_dir, "audit.db", NULL);
  self->audit = ow_audit_log_open (audit_path, error);
  if (self->audit == NULL)
    return NULL;
  self->http = ow_http_client_new ();
  return g_steal_pointer (&self);
}

const OwPaths *
ow_context_get_paths (OwContext *self)
{
  return self->paths;
}

OwConfig *
ow_context_get_config (OwContext *self)
{
  return self->config;
}

OwStore *
ow_context_get_store (OwContext *self)
{
  return self->store;
}

OwAuditLog *
ow_context_get_audit (OwContext *self)
{
  return self->audit;
}

OwHttpClient *
ow_context_get_http (OwContext *self)
{
  return self->http;
}

gboolean
ow_context_is_isolated (OwContext *self)
{
  return self->isolated;
}

OwSecretStore *
ow_context_get_secrets (OwContext *self)
{
  return self->secrets;
}

OwOAuth *
ow_context_get_oauth (OwContext *self)
{
  g_return_val_if_fail (OW_IS_CONTEXT (self), NULL);
  if (self->oauth == NULL && self->secrets != NULL)
    self->oauth = ow_oauth_new (self->http, self->secrets);
  return self->oauth;
}

char *
ow_context_dup_config_path (OwContext *self)
{
  return g_build_filename (self->paths->config_dir, "config.toml", NULL);
}

gboolean
ow_context_reload_config (OwContext *self, GError **error)
{
  g_autofree char *machine = NULL;
  OwConfig *fresh;

  g_return_val_if_fail (OW_IS_CONTEXT (self), FALSE);

  if (self->isolated)
    return TRUE;
  machine = ow_context_dup_config_path (self);
  fresh = ow_config_load (machine, self->project_config, error);
  if (fresh == NULL)
    return FALSE;
  g_clear_pointer (&self->config, ow_config_unref);
  self->config = fresh;
  apply_shell_environment (self);
  g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  return TRUE;
}

char *
ow_context_dup_session_scratch (OwContext *self, const char *session_id)
{
  g_autofree char *base = ow_context_dup_scratch_dir (self);

  return g_build_filename (base, session_id, NULL);
}

gboolean
ow_context_is_scratch (OwContext *self, const char *path)
{
  g_autofree char *base = ow_context_dup_scratch_dir (self);
  gsize n = strlen (base);

  return path != NULL && strncmp (path, base, n) == 0 && (path[n] == '\0' || path[n] == G_DIR_SEPARATOR);
}

char *
ow_context_dup_scratch_dir (OwContext *self)
{
  const char *configured = ow_config_get_string (self->config, "scratch_dir");

  if (configured != NULL && *configured != '\0')
    {
      if (g_str_equal (configured, "~"))
        return g_strdup (g_get_home_dir ());
      if (g_str_has_prefix (configured, "~/"))
        return g_build_filename (g_get_home_dir (), configured + 2, NULL);
      if (g_path_is_absolute (configured))
        return g_strdup (configured);
    }
  return g_strdup (self->paths->scratch_dir);
}

const char *
ow_context_provider_key_env (OwContext *self, const OwProviderEntry *entry)
{
  g_return_val_if_fail (entry != NULL, NULL);

  return ow_provider_entry_find_key_env (entry, NULL);
}

const char *
ow_context_default_model (OwContext *self)
{
  const char *env = g_getenv ("OPENWORKER_MODEL");

  if (env != NULL && *env != '\0')
    return env;
  return ow_config_get_string (self->config, "model");
}

char *
ow_context_dup_default_model (OwContext *self)
{
  g_autoptr(OwModelConfig) model_config = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (OW_IS_CONTEXT (self), NULL);

  if (ow_context_default_model (self) != NULL)
    return g_strdup (ow_context_default_model (self));
  if (self->isolated)
    return NULL;
  path = g_build_filename (self->paths->config_dir, "model_config.json", NULL);
  model_config = ow_model_config_load (path, NULL);
  return model_config != NULL ? g_strdup (ow_model_config_default_model (model_config)) : NULL;
}

/* ---- Providers and their keys -------------------------------------------------- */

/* The cached key of provider @id, if it is still good (a copy, or NULL). */
static char *
cached_key_dup (OwContext *self, const char *id)
{
  CachedKey *k;
  char *value = NULL;

  g_mutex_lock (&self->keys_lock);
  k = g_hash_table_lookup (self->keys, id);
  if (k != NULL && k->changes == ow_secret_store_get_changes ())
    value = g_strdup (k->value);
  else if (k != NULL)
    g_hash_table_remove (self->keys, id);
  g_mutex_unlock (&self->keys_lock);
  return value;
}

static void
cached_key_set (OwContext *self, const char *id, const char *value, guint changes)
{
  CachedKey *k;

  if (value == NULL)
    return;
  k = g_new0 (CachedKey, 1);
  k->changes = changes;
  k->value = g_strdup (value);
  g_mutex_lock (&self->keys_lock);
  g_hash_table_replace (self->keys, g_strdup (id), k);
  g_mutex_unlock (&self->keys_lock);
}

/* Whether @entry's key must come from the store: it takes one, the
 * environment has none and there is a store to read. */
static gboolean
key_from_store (OwContext *self, const OwProviderEntry *entry)
{
  /* The environment wins over the store: a key exported for one run (or by
   * CI) must not be shadowed by an older saved one. Keyless local providers
   * have no key variable and are never looked up. */
  return self->secrets != NULL && entry->key_env != NULL && ow_context_provider_key_env (self, entry) == NULL;
}

static void
set_store_error (GError **error, const OwProviderEntry *entry, const GError *store_error)
{
  g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY,
               "The %s key could not be read from the secret store: %s", entry->title, store_error->message);
}

/* The provider for @entry with @stored_key (NULL: the environment's, or none). */
static OwProvider *
build_provider (OwContext *self, const OwProviderEntry *entry, const char *stored_key, GError **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *base_key = g_strdup_printf ("providers.%s.base_url", entry->id);
  g_autofree char *wire_key = g_strdup_printf ("providers.%s.wire", entry->id);
  OwProviderOverrides overrides = { 0 };
  OwProvider *provider;

  overrides.base_url = ow_config_get_string (self->config, base_key);
  overrides.wire = ow_config_get_string (self->config, wire_key);
  overrides.api_key = stored_key;
  provider = ow_provider_catalog_create (entry, &overrides, NULL, self->http, &local_error);
  if (provider == NULL)
    {
      /* Say how to save a key, now that there is somewhere to save it. */
      if (self->secrets != NULL && g_error_matches (local_error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY))
        g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY,
                     "No %s API key is configured. Set %s, save one with `openworker keys set %s`, or add it under "
                     "Models & Keys (in the browser UI's sidebar, or the desktop's Settings).", entry->title,
                     entry->key_env != NULL ? entry->key_env : "its key variable", entry->id);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
    }
  return provider;
}

OwProvider *
ow_context_create_provider (OwContext              *self,
                            const char             *model_id,
                            char                  **bare_model,
                            const OwProviderEntry **entry_out,
                            GError                **error)
{
  const OwProviderEntry *entry = NULL;
  g_autofree char *bare = NULL;
  g_autoptr(OwSecretText) stored_key = NULL;
  OwProvider *provider;

  if (!ow_model_id_split (model_id, &entry, &bare, error))
    return NULL;
  if (key_from_store (self, entry) && (stored_key = cached_key_dup (self, entry->id)) == NULL)
    {
      g_autoptr(GError) local_error = NULL;
      guint changes = ow_secret_store_get_changes ();

      stored_key = ow_secret_store_lookup (self->secrets, OW_SECRET_KIND_PROVIDER, entry->id, NULL, &local_error);
      if (local_error != NULL)
        {
          set_store_error (error, entry, local_error);
          return NULL;
        }
      cached_key_set (self, entry->id, stored_key, changes);
    }
  provider = build_provider (self, entry, stored_key, error);
  if (provider == NULL)
    return NULL;
  if (bare_model != NULL)
    *bare_model = g_steal_pointer (&bare);
  if (entry_out != NULL)
    *entry_out = entry;
  return provider;
}

/* An asynchronous creation: the entry, and the model as the wire wants it. */
typedef struct {
  const OwProviderEntry *entry;
  char                  *bare;
  guint                  changes;  /* the store's change count when the lookup began */
} CreateCall;

static void
create_call_free (CreateCall *c)
{
  g_free (c->bare);
  g_free (c);
}

static void
return_built (GTask *task, const char *stored_key)
{
  OwContext *self = g_task_get_source_object (task);
  CreateCall *c = g_task_get_task_data (task);
  GError *error = NULL;
  OwProvider *provider = build_provider (self, c->entry, stored_key, &error);

  if (provider == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, provider, g_object_unref);
}

static void
on_key_looked_up_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  OwContext *self = g_task_get_source_object (task);
  CreateCall *c = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) key = ow_secret_store_lookup_finish (OW_SECRET_STORE (source), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (error != NULL)
    {
      GError *reported = NULL;

      set_store_error (&reported, c->entry, error);
      g_task_return_error (task, reported);
      return;
    }
  cached_key_set (self, c->entry->id, key, c->changes);
  return_built (task, key);
}

void
ow_context_create_provider_async (OwContext           *self,
                                  const char          *model_id,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(OwSecretText) stored_key = NULL;
  GError *error = NULL;
  CreateCall *c;

  g_return_if_fail (OW_IS_CONTEXT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_context_create_provider_async);
  c = g_new0 (CreateCall, 1);
  g_task_set_task_data (task, c, (GDestroyNotify) create_call_free);
  if (!ow_model_id_split (model_id, &c->entry, &c->bare, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!key_from_store (self, c->entry) || (stored_key = cached_key_dup (self, c->entry->id)) != NULL)
    {
      return_built (task, stored_key);
      return;
    }
  /* The store may block on D-Bus (a locked keyring can wait on a person):
   * the lookup runs in a worker thread and the main loop goes on. */
  c->changes = ow_secret_store_get_changes ();
  ow_secret_store_lookup_async (self->secrets, OW_SECRET_KIND_PROVIDER, c->entry->id, cancellable,
                                on_key_looked_up_cb, g_steal_pointer (&task));
}

OwProvider *
ow_context_create_provider_finish (OwContext              *self,
                                   GAsyncResult           *result,
                                   char                  **bare_model,
                                   const OwProviderEntry **entry,
                                   GError                **error)
{
  OwProvider *provider;
  CreateCall *c;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  provider = g_task_propagate_pointer (G_TASK (result), error);
  c = g_task_get_task_data (G_TASK (result));
  if (provider != NULL && bare_model != NULL)
    *bare_model = g_steal_pointer (&c->bare);
  if (provider != NULL && entry != NULL)
    *entry = c->entry;
  return provider;
}
