/* ow-context.c: the engine's injected services (see ow-context.h). */
#define G_LOG_DOMAIN "ow-context"

#include "core/ow-context.h"

#include "store/ow-model-config.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
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
};

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
      JsonArray *alt = ow_json_get_array (e->quirks, "key_env_alt");

      if (e->key_env != NULL)
        g_ptr_array_add (names, e->key_env);
      for (guint j = 0; alt != NULL && j < json_array_get_length (alt); j++)
        g_ptr_array_add (names, (gpointer) json_array_get_string_element (alt, j));
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

static gboolean
env_set (const char *name)
{
  return ow_secret_env_get (name) != NULL;
}

const char *
ow_context_provider_key_env (OwContext *self, const OwProviderEntry *entry)
{
  JsonArray *alt;

  if (env_set (entry->key_env))
    return entry->key_env;
  alt = ow_json_get_array (entry->quirks, "key_env_alt");
  for (guint i = 0; alt != NULL && i < json_array_get_length (alt); i++)
    if (env_set (json_array_get_string_element (alt, i)))
      return json_array_get_string_element (alt, i);
  return NULL;
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
  g_autoptr(GError) local_error = NULL;
  OwProviderOverrides overrides = { 0 };
  OwProvider *provider;

  if (!ow_model_id_split (model_id, &entry, &bare, error))
    return NULL;
  {
    g_autofree char *base_key = g_strdup_printf ("providers.%s.base_url", entry->id);
    g_autofree char *wire_key = g_strdup_printf ("providers.%s.wire", entry->id);
    overrides.base_url = ow_config_get_string (self->config, base_key);
    overrides.wire = ow_config_get_string (self->config, wire_key);
  }
  /* The environment wins over the store: a key exported for one run (or by
   * CI) must not be shadowed by an older saved one. Keyless local providers
   * have no key variable and are never looked up. */
  if (self->secrets != NULL && entry->key_env != NULL && ow_context_provider_key_env (self, entry) == NULL)
    {
      stored_key = ow_secret_store_lookup (self->secrets, OW_SECRET_KIND_PROVIDER, entry->id, NULL, &local_error);
      if (local_error != NULL)
        {
          g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY,
                       "The %s key could not be read from the secret store: %s", entry->title,
                       local_error->message);
          return NULL;
        }
      overrides.api_key = stored_key;
    }
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
      return NULL;
    }
  if (bare_model != NULL)
    *bare_model = g_steal_pointer (&bare);
  if (entry_out != NULL)
    *entry_out = entry;
  return provider;
}
