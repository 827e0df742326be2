/* ow-server-providers.c: Models & Keys — /v1/providers.
 *
 * List the provider catalog with whether each is configured (a key in the
 * OS secret store, or in the environment, or none needed), save a key
 * (into the secret store, never a plain-text file), test a key against the
 * provider, forget one. A key goes in and never comes out: no response
 * carries a key, not even masked. The secret store may block on D-Bus, so
 * every call to it is the _async form and the request waits paused.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-private.h"

#include <string.h>

#include "ow-json.h"
#include "core/ow-model-choices.h"
#include "providers/ow-provider-catalog.h"
#include "providers/ow-provider-verify.h"

/* A request waiting on the secret store or the network. */
typedef struct {
  OwServer              *server;   /* a reference */
  OwRequest             *req;
  const OwProviderEntry *entry;
  char                  *base_url; /* verify: a base URL to test against, or NULL */
} Pending;

static Pending *
pending_new (OwServer *self, OwRequest *req, const OwProviderEntry *entry)
{
  Pending *p = g_new0 (Pending, 1);

  p->server = g_object_ref (self);
  p->req = req;
  p->entry = entry;
  ow_request_pause (req);
  return p;
}

static void
pending_finish (Pending *p)
{
  ow_request_done (p->req);
  g_object_unref (p->server);
  g_free (p->base_url);
  g_free (p);
}

static const char *
wire_name (OwWireStyle wire)
{
  return ow_wire_style_to_string (wire);
}

static JsonObject *
provider_json (OwServer *self, const OwProviderEntry *e, gboolean stored)
{
  JsonObject *o = json_object_new ();
  JsonObject *values = json_object_new ();
  JsonArray *suggested = json_array_new ();
  const char *env_var = ow_context_provider_key_env (self->ctx, e);
  gboolean env = env_var != NULL;
  const char *base_override;
  g_autofree char *key = g_strdup_printf ("providers.%s.base_url", e->id);
  const char *source = stored ? "store" : env ? "env" : NULL;

  json_object_set_string_member (o, "name", e->id);
  json_object_set_string_member (o, "id", e->id);
  json_object_set_string_member (o, "title", e->title);
  json_object_set_string_member (o, "group", e->group != NULL ? e->group : "cloud");
  json_object_set_string_member (o, "wire", wire_name (e->wire));
  if (e->base_url != NULL)
    json_object_set_string_member (o, "default_base_url", e->base_url);
  if (e->key_env != NULL)
    json_object_set_string_member (o, "key_env", e->key_env);
  {
    JsonArray *vars = json_array_new ();

    for (guint i = 0; e->key_vars[i] != NULL; i++)
      json_array_add_string_element (vars, e->key_vars[i]);
    json_object_set_array_member (o, "key_vars", vars);
  }
  /* Which variable the key came from, when it did (GOOGLE_API_KEY for Gemini). */
  if (env_var != NULL)
    json_object_set_string_member (o, "key_env_set", env_var);
  json_object_set_boolean_member (o, "needs_key", e->needs_key);
  json_object_set_boolean_member (o, "configured", stored || env || !e->needs_key);
  json_object_set_boolean_member (o, "has_key", stored || env);
  if (source != NULL)
    json_object_set_string_member (o, "key_source", source);
  else
    json_object_set_null_member (o, "key_source");
  /* Only what is not secret: where the calls go. */
  base_override = ow_config_get_string (ow_context_get_config (self->ctx), key);
  if (base_override != NULL)
    json_object_set_string_member (values, "base_url", base_override);
  {
    /* The endpoint the sessions will call, by the same rule they use, so
     * the page never shows api.openai.com while OPENAI_BASE_URL points
     * elsewhere. */
    const char *from = NULL;
    g_autofree char *effective = ow_provider_catalog_dup_base_url (e, base_override, NULL, &from);

    if (effective != NULL)
      json_object_set_string_member (o, "base_url", effective);
    else
      json_object_set_null_member (o, "base_url");
    json_object_set_string_member (o, "base_url_source", from);
    if (e->base_url_env != NULL)
      json_object_set_string_member (o, "base_url_env", e->base_url_env);
  }
  json_object_set_object_member (o, "values", values);
  if (e->recommended_model != NULL)
    {
      g_autofree char *full = g_strdup_printf ("%s:%s", e->id, e->recommended_model);
      json_array_add_string_element (suggested, full);
      json_object_set_string_member (o, "recommended_model", full);
    }
  json_object_set_array_member (o, "suggested_models", suggested);
  json_object_set_null_member (o, "key_set_at");
  json_object_set_null_member (o, "last_used_at");
  return o;
}

static void
on_list_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *p = user_data;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = ow_secret_store_list_finish (OW_SECRET_STORE (source), result, &error);
  const GPtrArray *catalog = ow_provider_catalog_get ();
  JsonArray *arr;

  if (names == NULL && error != NULL)
    g_debug ("The secret store could not list provider keys: %s", error->message);
  arr = json_array_new ();
  for (guint i = 0; i < catalog->len; i++)
    {
      const OwProviderEntry *e = g_ptr_array_index (catalog, i);
      json_array_add_object_element (arr, provider_json (p->server, e, names != NULL
                                                         && g_strv_contains ((const char *const *) names, e->id)));
    }
  /* The original answers a bare list here, not an object. */
  ow_reply_array (p->req, SOUP_STATUS_OK, arr);
  pending_finish (p);
}

static void
providers_list (OwServer *self, OwRequest *req)
{
  Pending *p = pending_new (self, req, NULL);

  ow_secret_store_list_async (self->secrets, OW_SECRET_KIND_PROVIDER, self->cancellable, on_list_cb, p);
}

/* The provider a body names; replies 400/404 otherwise. */
static const OwProviderEntry *
body_provider (OwRequest *req, JsonObject *body)
{
  const char *name = ow_json_get_string (body, "name");
  const OwProviderEntry *e;

  if (name == NULL || *name == '\0' || strlen (name) > 64)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Say which provider: {name}.");
      return NULL;
    }
  e = ow_provider_catalog_lookup (name);
  if (e == NULL)
    ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no provider \"%s\".", name);
  return e;
}

/* The key in {fields: {api_key}} (or {api_key}); NULL when none. */
static const char *
body_key (JsonObject *body, gboolean *bad)
{
  JsonObject *fields = ow_json_get_object (body, "fields");
  JsonNode *n = fields != NULL ? json_object_get_member (fields, "api_key") : json_object_get_member (body, "api_key");

  *bad = FALSE;
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    {
      *bad = TRUE;
      return NULL;
    }
  return json_node_get_string (n);
}

/* The answer to a save: the provider as listed now, its recommended model
 * and the model made the machine's default by this save, if any. */
static void
reply_saved (Pending *p, gboolean stored, const char *adopted)
{
  JsonObject *extra = json_object_new ();

  json_object_set_object_member (extra, "provider", provider_json (p->server, p->entry, stored));
  if (adopted != NULL)
    json_object_set_string_member (extra, "default_model", adopted);
  else
    json_object_set_null_member (extra, "default_model");
  if (p->entry->recommended_model != NULL)
    {
      g_autofree char *full = g_strdup_printf ("%s:%s", p->entry->id, p->entry->recommended_model);
      json_object_set_string_member (extra, "recommended_model", full);
    }
  else
    json_object_set_null_member (extra, "recommended_model");
  ow_reply_ok (p->req, extra);
}

static void
on_stored_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *p = user_data;
  g_autoptr(GError) error = NULL;

  if (!ow_secret_store_store_finish (OW_SECRET_STORE (source), result, &error))
    ow_reply_error (p->req, SOUP_STATUS_INTERNAL_SERVER_ERROR, "The key could not be saved: %s", error->message);
  else
    {
      /* The first key makes its provider's recommended model the default
       * everywhere: a new person has a model to talk to at once. */
      g_autoptr(GError) adopt_error = NULL;
      g_autofree char *adopted = ow_model_choices_adopt_default (p->server->ctx, p->entry->id, &adopt_error);

      if (adopt_error != NULL)
        g_warning ("Could not make %s's model the default: %s", p->entry->title, adopt_error->message);
      reply_saved (p, TRUE, adopted);
      pending_finish (p);
      return;
    }
  pending_finish (p);
}

static void
on_base_saved_list_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *p = user_data;
  g_auto(GStrv) names = ow_secret_store_list_finish (OW_SECRET_STORE (source), result, NULL);

  reply_saved (p, names != NULL && g_strv_contains ((const char *const *) names, p->entry->id), NULL);
  pending_finish (p);
}

/* {fields: {base_url}}: a URL, or "" / null to go back to the default.
 * Written to config.toml [providers.<id>] base_url, where every surface
 * reads it. Replies and returns FALSE when the value is unusable. */
static gboolean
save_base_url (OwServer *self, OwRequest *req, const OwProviderEntry *e, JsonNode *node)
{
  g_autofree char *key = g_strdup_printf ("providers.%s.base_url", e->id);
  g_autofree char *path = ow_context_dup_config_path (self->ctx);
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  const char *url = NULL;

  if (!JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "base_url must be text.");
          return FALSE;
        }
      url = json_node_get_string (node);
    }
  if (url != NULL && *url != '\0')
    {
      g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
      const char *scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;

      if (strlen (url) > 2048 || uri == NULL || g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0'
          || (g_strcmp0 (scheme, "http") != 0 && g_strcmp0 (scheme, "https") != 0))
        {
          ow_reply_error (req, SOUP_STATUS_BAD_REQUEST,
                          "The base URL must be an http:// or https:// address, such as https://api.example.com/v1.");
          return FALSE;
        }
      value = json_node_init_string (json_node_alloc (), url);
    }
  if (!ow_config_file_set (path, key, value, &error) || !ow_context_reload_config (self->ctx, &error))
    {
      ow_reply_error (req, SOUP_STATUS_INTERNAL_SERVER_ERROR, "The base URL could not be saved in %s: %s", path,
                      error->message);
      return FALSE;
    }
  return TRUE;
}

static void
providers_save (OwServer *self, OwRequest *req)
{
  JsonObject *body = ow_request_object (req);
  const OwProviderEntry *e;
  const char *key;
  gboolean bad;
  g_autofree char *trimmed = NULL;
  g_autofree char *label = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *fields;
  JsonNode *base_url;

  if (body == NULL || (e = body_provider (req, body)) == NULL)
    return;
  key = body_key (body, &bad);
  fields = ow_json_get_object (body, "fields");
  base_url = fields != NULL ? json_object_get_member (fields, "base_url") : NULL;
  if (bad || (key == NULL && base_url == NULL))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Enter an API key to save.");
      return;
    }
  if (key != NULL)
    {
      /* The key is checked before anything is written: a refused save
       * changes nothing. */
      trimmed = g_strstrip (g_strdup (key));
      if (!ow_secret_check (OW_SECRET_KIND_PROVIDER, e->id, trimmed, &error))
        {
          ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "%s", error->message);
          return;
        }
    }
  if (base_url != NULL && !save_base_url (self, req, e, base_url))
    {
      if (trimmed != NULL)
        memset (trimmed, 0, strlen (trimmed));
      return;
    }
  if (key == NULL)
    {
      ow_secret_store_list_async (self->secrets, OW_SECRET_KIND_PROVIDER, self->cancellable, on_base_saved_list_cb,
                                  pending_new (self, req, e));
      return;
    }
  label = g_strdup_printf ("OpenWorker: %s API key", e->title);
  ow_secret_store_store_async (self->secrets, OW_SECRET_KIND_PROVIDER, e->id, label, trimmed, self->cancellable,
                               on_stored_cb, pending_new (self, req, e));
  memset (trimmed, 0, strlen (trimmed));
}

static void
on_deleted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *p = user_data;
  g_autoptr(GError) error = NULL;
  gboolean removed = ow_secret_store_delete_finish (OW_SECRET_STORE (source), result, &error);

  if (error != NULL)
    ow_reply_error (p->req, SOUP_STATUS_INTERNAL_SERVER_ERROR, "The key could not be removed: %s", error->message);
  else
    {
      JsonObject *extra = json_object_new ();
      json_object_set_boolean_member (extra, "removed", removed);
      json_object_set_object_member (extra, "provider", provider_json (p->server, p->entry, FALSE));
      ow_reply_ok (p->req, extra);
    }
  pending_finish (p);
}

static void
providers_delete (OwServer *self, OwRequest *req)
{
  const OwProviderEntry *e = ow_provider_catalog_lookup (req->params[0]);

  if (e == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no such provider.");
      return;
    }
  ow_secret_store_delete_async (self->secrets, OW_SECRET_KIND_PROVIDER, e->id, self->cancellable, on_deleted_cb,
                                pending_new (self, req, e));
}

static void
on_verified_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *p = user_data;
  g_autoptr(OwProviderVerifyResult) r = ow_provider_verify_key_finish (result);
  JsonObject *out = json_object_new ();

  json_object_set_boolean_member (out, "ok", r->ok);
  json_object_set_string_member (out, "status", ow_verify_status_to_string (r->status));
  if (r->error != NULL)
    json_object_set_string_member (out, "error", r->error);
  ow_reply_object (p->req, SOUP_STATUS_OK, out);
  pending_finish (p);
}

static void
verify_with (Pending *p, const char *key)
{
  if (key == NULL && p->entry->needs_key && ow_context_provider_key_env (p->server->ctx, p->entry) == NULL)
    {
      JsonObject *out = json_object_new ();
      json_object_set_boolean_member (out, "ok", FALSE);
      json_object_set_string_member (out, "status", "no_key");
      json_object_set_string_member (out, "error", "Enter an API key to test.");
      ow_reply_object (p->req, SOUP_STATUS_OK, out);
      pending_finish (p);
      return;
    }
  ow_provider_verify_key_async (ow_context_get_http (p->server->ctx), p->entry, key, p->base_url,
                                p->server->cancellable, on_verified_cb, p);
}

static void
on_verify_lookup_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *p = user_data;
  g_autoptr(OwSecretText) key = ow_secret_store_lookup_finish (OW_SECRET_STORE (source), result, NULL);

  verify_with (p, key);
}

static void
providers_verify (OwServer *self, OwRequest *req)
{
  JsonObject *body = ow_request_object (req);
  const OwProviderEntry *e;
  const char *key;
  gboolean bad;
  Pending *p;
  JsonObject *fields;

  if (body == NULL || (e = body_provider (req, body)) == NULL)
    return;
  key = body_key (body, &bad);
  if (bad)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "api_key must be text.");
      return;
    }
  p = pending_new (self, req, e);
  fields = ow_json_get_object (body, "fields");
  if (fields != NULL && ow_json_get_string (fields, "base_url") != NULL)
    {
      const char *url = ow_json_get_string (fields, "base_url");
      if (g_str_has_prefix (url, "http://") || g_str_has_prefix (url, "https://"))
        p->base_url = g_strdup (url);
    }
  /* Form values win over the stored key; the stored key over the
   * environment. */
  if (key != NULL && *key != '\0')
    {
      g_autofree char *trimmed = g_strstrip (g_strdup (key));
      verify_with (p, trimmed);
      memset (trimmed, 0, strlen (trimmed));
      return;
    }
  ow_secret_store_lookup_async (self->secrets, OW_SECRET_KIND_PROVIDER, e->id, self->cancellable,
                                on_verify_lookup_cb, p);
}

/* ---- The model picker ------------------------------------------------------ */

static void
on_choices_list_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *p = user_data;
  OwContext *ctx = p->server->ctx;
  g_auto(GStrv) names = ow_secret_store_list_finish (OW_SECRET_STORE (source), result, NULL);
  g_autoptr(GPtrArray) choices = ow_model_choices_list (ctx, (const char *const *) names);
  g_autofree char *def = ow_context_dup_default_model (ctx);
  const char *env = g_getenv ("OPENWORKER_MODEL");
  JsonObject *out = json_object_new ();
  JsonArray *arr = json_array_new ();

  if (def != NULL)
    json_object_set_string_member (out, "default", def);
  else
    json_object_set_null_member (out, "default");
  /* Where the default comes from: the picker can change only the last one. */
  if (env != NULL && *env != '\0')
    json_object_set_string_member (out, "default_source", "env");
  else if (ow_config_get_string (ow_context_get_config (ctx), "model") != NULL)
    json_object_set_string_member (out, "default_source", "config");
  else if (def != NULL)
    json_object_set_string_member (out, "default_source", "model_config");
  else
    json_object_set_null_member (out, "default_source");
  for (guint i = 0; i < choices->len; i++)
    {
      const OwModelChoice *c = g_ptr_array_index (choices, i);
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "id", c->id);
      json_object_set_string_member (o, "provider", c->provider);
      json_object_set_string_member (o, "label", c->label);
      json_object_set_boolean_member (o, "default", c->is_default);
      json_array_add_object_element (arr, o);
    }
  json_object_set_array_member (out, "choices", arr);
  ow_reply_object (p->req, SOUP_STATUS_OK, out);
  pending_finish (p);
}

/* GET /v1/settings/models → {default, default_source, choices: [{id,
 * provider, label, default}]}: the models that can run here (see
 * ow-model-choices.h), the same list the desktop's pickers show. */
static void
models_choices (OwServer *self, OwRequest *req)
{
  ow_secret_store_list_async (self->secrets, OW_SECRET_KIND_PROVIDER, self->cancellable, on_choices_list_cb,
                              pending_new (self, req, NULL));
}

static const OwRoute routes[] = {
  { "GET", "/v1/settings/models", models_choices, 0 },
  { "GET", "/v1/providers", providers_list, 0 },
  { "POST", "/v1/providers", providers_save, 0 },
  { "POST", "/v1/providers/verify", providers_verify, 0 },
  { "DELETE", "/v1/providers/*", providers_delete, 0 },
};

const OwRoute *
ow_server_provider_routes (guint *n)
{
  *n = G_N_ELEMENTS (routes);
  return routes;
}
