/* ow-oauth-token.c: what a sign-in earned, kept and refreshed.
 *
 * A credential is one JSON secret in the OwSecretStore (kind "oauth",
 * named by issuer and resource): the client, the token endpoint, the
 * access and refresh tokens and the expiry, so a rotation is one atomic
 * write. A refresh for one resource runs once at a time: callers that ask
 * while one is in flight wait for its answer, because a rotated refresh
 * token may be used only once and a second refresh with the old one would
 * read as a revocation. Before refreshing, the stored credential is read
 * again, since another process sharing the keyring may have rotated it.
 */
#define G_LOG_DOMAIN "ow-oauth"

#include <string.h>

#include "net/ow-oauth-private.h"
#include "ow-error.h"
#include "ow-json.h"
#include "ow-redact.h"

/* ---- Credentials as JSON ------------------------------------------------ */

char *
ow_oauth_credential_name (const char *issuer, const char *resource)
{
  char *name = g_strconcat (issuer, " ", resource, NULL);

  if (strlen (name) <= 256)
    return name;
  /* Too long for a secret's name: the hash of both stands in. */
  {
    char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, name, -1);
    g_free (name);
    return sum;
  }
}

static char *
credential_to_json (const OwOAuthCredential *c)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
#define PUT(k, v) if ((v) != NULL) { json_builder_set_member_name (b, k); json_builder_add_string_value (b, v); }
  PUT ("issuer", c->issuer);
  PUT ("resource", c->resource);
  PUT ("token_endpoint", c->token_endpoint);
  PUT ("auth_method", c->auth_method);
  PUT ("client_id", c->client.client_id);
  PUT ("client_secret", c->client.client_secret);
  PUT ("access_token", c->access_token);
  PUT ("refresh_token", c->refresh_token);
  PUT ("scope", c->scope);
#undef PUT
  json_builder_set_member_name (b, "expires_at");
  json_builder_add_int_value (b, c->expires_at);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return ow_json_to_string (root);
}

static OwOAuthCredential *
credential_from_json (const char *name, const char *text)
{
  g_autoptr(JsonObject) obj = ow_json_object_from_string (text, -1, NULL);
  OwOAuthCredential *c;

  if (obj == NULL || ow_json_get_string (obj, "access_token") == NULL
      || ow_json_get_string (obj, "token_endpoint") == NULL || ow_json_get_string (obj, "client_id") == NULL)
    return NULL;
  c = g_new0 (OwOAuthCredential, 1);
  c->name = g_strdup (name);
  c->issuer = g_strdup (ow_json_get_string (obj, "issuer"));
  c->resource = g_strdup (ow_json_get_string (obj, "resource"));
  c->token_endpoint = g_strdup (ow_json_get_string (obj, "token_endpoint"));
  c->auth_method = g_strdup (ow_json_get_string (obj, "auth_method"));
  c->client.client_id = g_strdup (ow_json_get_string (obj, "client_id"));
  c->client.client_secret = g_strdup (ow_json_get_string (obj, "client_secret"));
  c->access_token = g_strdup (ow_json_get_string (obj, "access_token"));
  c->refresh_token = g_strdup (ow_json_get_string (obj, "refresh_token"));
  c->scope = g_strdup (ow_json_get_string (obj, "scope"));
  c->expires_at = ow_json_get_int (obj, "expires_at", 0);
  return c;
}

static gboolean
credential_fresh (const OwOAuthCredential *c)
{
  return c->expires_at == 0 || g_get_real_time () / G_USEC_PER_SEC < c->expires_at - EXPIRY_MARGIN_SECONDS;
}

/* Builds the credential a token answer makes. @old supplies what a
 * refresh answer may leave out (the refresh token when not rotated, the
 * scope). */
OwOAuthCredential *
ow_oauth_credential_from_answer (const OwOAuthTokenResponse *tr,
                        const char                 *issuer,
                        const char                 *resource,
                        const char                 *token_endpoint,
                        const char                 *auth_method,
                        const OwOAuthClient               *client,
                        const char                 *asked_scope,
                        const OwOAuthCredential           *old)
{
  OwOAuthCredential *c = g_new0 (OwOAuthCredential, 1);

  c->issuer = g_strdup (issuer);
  c->resource = g_strdup (resource);
  c->name = ow_oauth_credential_name (issuer, resource);
  c->token_endpoint = g_strdup (token_endpoint);
  c->auth_method = g_strdup (auth_method);
  c->client.client_id = g_strdup (client->client_id);
  c->client.client_secret = g_strdup (client->client_secret);
  c->access_token = g_strdup (tr->access_token);
  if (tr->refresh_token != NULL)
    c->refresh_token = g_strdup (tr->refresh_token);
  else if (old != NULL)
    c->refresh_token = g_strdup (old->refresh_token);
  c->scope = g_strdup (tr->scope != NULL ? tr->scope : asked_scope != NULL ? asked_scope
                       : old != NULL ? old->scope : NULL);
  c->expires_at = tr->expires_in > 0 ? g_get_real_time () / G_USEC_PER_SEC + tr->expires_in : 0;
  return c;
}

static char *
credential_label (const OwOAuthCredential *c)
{
  g_autoptr(GUri) uri = g_uri_parse (c->resource, G_URI_FLAGS_NONE, NULL);

  return g_strdup_printf ("OpenWorker: sign-in to %s", uri != NULL ? g_uri_get_host (uri) : c->resource);
}

/* ---- Storing a credential ----------------------------------------------- */

void
ow_oauth_store_credential_async (OwOAuth *self, OwOAuthCredential *cred, GCancellable *cancellable, GAsyncReadyCallback cb,
                        gpointer user_data)
{
  g_autoptr(OwSecretText) json = credential_to_json (cred);
  g_autofree char *label = credential_label (cred);

  ow_secret_store_store_async (self->secrets, OW_SECRET_KIND_OAUTH, cred->name, label, json, cancellable, cb,
                               user_data);
}

/* ---- Access tokens and refresh ------------------------------------------ */

typedef struct {
  char *resource;
  char *name;       /* the stored credential's name, once found */
} TokenData;

static void
token_data_free (TokenData *t)
{
  g_free (t->resource);
  g_free (t->name);
  g_free (t);
}

static void token_step (GTask *task);

static void
return_sign_in_required (GTask *task, const char *resource)
{
  g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_SIGN_IN_REQUIRED,
                           "OpenWorker is not signed in to %s; sign in again.", resource);
  g_object_unref (task);
}

/* Finishes every caller waiting on @resource's refresh. */
static void
finish_waiters (OwOAuth *self, const char *resource, const GError *error)
{
  GPtrArray *waiting = NULL;
  g_autofree char *key = NULL;

  if (!g_hash_table_steal_extended (self->refreshing, resource, (gpointer *) &key, (gpointer *) &waiting))
    return;
  for (guint i = 0; i < waiting->len; i++)
    {
      GTask *t = g_ptr_array_index (waiting, i);
      OwOAuthCredential *cred = g_hash_table_lookup (self->creds, resource);

      if (error != NULL)
        g_task_return_error (t, g_error_copy (error));
      else if (cred != NULL)
        g_task_return_pointer (t, g_strdup (cred->access_token), (GDestroyNotify) ow_secret_free);
      else
        {
          return_sign_in_required (t, resource);
          continue;
        }
      g_object_unref (t);
    }
  g_ptr_array_unref (waiting);
}

typedef struct {
  char       *resource;
  OwOAuthCredential *cred;      /* the new one */
} RefreshData;

static void
refresh_data_free (RefreshData *r)
{
  g_free (r->resource);
  ow_oauth_credential_free (r->cred);
  g_free (r);
}

static void
on_revoked_deleted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = g_task_get_source_object (task);
  RefreshData *r = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) e = NULL;

  if (!ow_secret_store_delete_finish (OW_SECRET_STORE (source), result, &error))
    g_debug ("the revoked credential could not be deleted: %s", error->message);
  /* The waiters hear of it once the keyring no longer holds it, so a
   * caller asking again cannot load the revoked credential back. */
  e = g_error_new (OW_OAUTH_ERROR, OW_OAUTH_ERROR_SIGN_IN_REQUIRED,
                   "The sign-in to %s has expired or was revoked; sign in again.", r->resource);
  finish_waiters (self, r->resource, e);
  g_task_return_boolean (task, FALSE);
  g_object_unref (task);
}

static void
on_refresh_stored_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;   /* owns a ref on self; data RefreshData */
  OwOAuth *self = g_task_get_source_object (task);
  RefreshData *r = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  /* The rotated refresh token is kept before anyone gets the access token:
   * a crash now must not leave only the used-up one in the store. */
  if (!ow_secret_store_store_finish (OW_SECRET_STORE (source), result, &error))
    {
      g_autoptr(GError) e = g_error_new (OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED,
                                         "The refreshed token for %s could not be saved: %s", r->resource,
                                         error->message);
      /* The old refresh token is used up; keep the new pair in memory so
       * this process goes on working, and say that it could not be kept. */
      g_hash_table_replace (self->creds, g_strdup (r->resource), g_steal_pointer (&r->cred));
      finish_waiters (self, r->resource, e);
    }
  else
    {
      g_hash_table_replace (self->creds, g_strdup (r->resource), g_steal_pointer (&r->cred));
      finish_waiters (self, r->resource, NULL);
    }
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
on_refreshed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = g_task_get_source_object (task);
  RefreshData *r = g_task_get_task_data (task);
  OwOAuthCredential *old = g_hash_table_lookup (self->creds, r->resource);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwHttpResponse) resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &error);
  g_autoptr(OwOAuthTokenResponse) tr = NULL;
  const char *data;
  gsize len;
  guint status;

  if (resp == NULL)
    {
      finish_waiters (self, r->resource, error);
      g_task_return_boolean (task, FALSE);
      g_object_unref (task);
      return;
    }
  status = ow_http_response_get_status (resp);
  data = g_bytes_get_data (ow_http_response_get_body (resp), &len);
  tr = ow_oauth_token_response_parse (data, (gssize) len, NULL);
  if (tr != NULL && tr->access_token != NULL)
    {
      ow_redact_register_secret (tr->access_token);
      if (tr->refresh_token != NULL)
        ow_redact_register_secret (tr->refresh_token);
    }
  if (status == 200 && tr != NULL && tr->access_token != NULL && old != NULL)
    {
      r->cred = ow_oauth_credential_from_answer (tr, old->issuer, old->resource, old->token_endpoint, old->auth_method,
                                        &old->client, NULL, old);
      ow_oauth_store_credential_async (self, r->cred, NULL, on_refresh_stored_cb, task);
      return;
    }
  if (tr != NULL && g_strcmp0 (tr->error, "invalid_grant") == 0 && old != NULL)
    {
      /* Revoked or expired for good: forget it, and say so once. */
      g_autofree char *name = g_strdup (old->name);

      g_hash_table_remove (self->creds, r->resource);
      g_signal_emit (self, ow_oauth_signals[SIGNAL_SIGN_IN_REQUIRED], 0, r->resource);
      ow_secret_store_delete_async (self->secrets, OW_SECRET_KIND_OAUTH, name, NULL, on_revoked_deleted_cb, task);
      return;
    }
  else
    {
      g_autofree char *why = ow_oauth_token_refusal (tr, status);
      g_autoptr(GError) e = g_error_new (OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED,
                                         "Refreshing the sign-in to %s failed (%s); try again later.",
                                         r->resource, why);
      finish_waiters (self, r->resource, e);
    }
  g_task_return_boolean (task, FALSE);
  g_object_unref (task);
}

static void
send_refresh (OwOAuth *self, GTask *task, OwOAuthCredential *cred)
{
  GString *form = g_string_new (NULL);
  g_autoptr(OwHttpRequest) req = NULL;

  ow_oauth_form_add (form, "grant_type", "refresh_token");
  ow_oauth_form_add (form, "refresh_token", cred->refresh_token);
  ow_oauth_form_add (form, "resource", cred->resource);
  req = ow_oauth_token_request (cred->token_endpoint, form, cred->auth_method, &cred->client);
  memset (form->str, 0, form->len);
  g_string_free (form, TRUE);
  /* A refresh finishes for every waiter: one caller's cancel must not
   * lose the rotated token the others need. */
  ow_http_client_send_async (self->http, req, NULL, NULL, NULL, NULL, on_refreshed_cb, task);
}

/* Before refreshing, the stored credential is read again: another process
 * (the desktop app and `openworker run` share the keyring) may have
 * rotated the refresh token since this one cached it, and using the old
 * one would read as a revocation. */
static void
on_refresh_reread_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = g_task_get_source_object (task);
  RefreshData *r = g_task_get_task_data (task);
  OwOAuthCredential *cached = g_hash_table_lookup (self->creds, r->resource);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) json = ow_secret_store_lookup_finish (OW_SECRET_STORE (source), result, &error);
  OwOAuthCredential *now = json != NULL && cached != NULL ? credential_from_json (cached->name, json) : NULL;

  if (cached == NULL)
    {
      finish_waiters (self, r->resource, NULL);
      g_task_return_boolean (task, FALSE);
      g_object_unref (task);
      return;
    }
  if (now != NULL && g_strcmp0 (now->refresh_token, cached->refresh_token) != 0)
    {
      g_hash_table_replace (self->creds, g_strdup (r->resource), now);
      cached = now;
      if (credential_fresh (now))
        {
          finish_waiters (self, r->resource, NULL);
          g_task_return_boolean (task, TRUE);
          g_object_unref (task);
          return;
        }
    }
  else
    ow_oauth_credential_free (now);
  send_refresh (self, task, cached);
}

static void
start_refresh (OwOAuth *self, const char *resource, OwOAuthCredential *cred)
{
  GTask *task = g_task_new (self, NULL, NULL, NULL);
  RefreshData *r = g_new0 (RefreshData, 1);

  r->resource = g_strdup (resource);
  g_task_set_task_data (task, r, (GDestroyNotify) refresh_data_free);
  ow_secret_store_lookup_async (self->secrets, OW_SECRET_KIND_OAUTH, cred->name, NULL, on_refresh_reread_cb, task);
}

static void
on_cred_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = g_task_get_source_object (task);
  TokenData *t = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) json = ow_secret_store_lookup_finish (OW_SECRET_STORE (source), result, &error);
  OwOAuthCredential *cred;

  if (error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  cred = json != NULL ? credential_from_json (t->name, json) : NULL;
  if (cred == NULL)
    {
      return_sign_in_required (task, t->resource);
      return;
    }
  /* Another call may have filled the cache meanwhile; the newer wins. */
  if (!g_hash_table_contains (self->creds, t->resource))
    g_hash_table_insert (self->creds, g_strdup (t->resource), cred);
  else
    ow_oauth_credential_free (cred);
  token_step (task);
}

static void
on_creds_listed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = g_task_get_source_object (task);
  TokenData *t = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = ow_secret_store_list_finish (OW_SECRET_STORE (source), result, &error);
  OwOAuthDiscovery *disc = g_hash_table_lookup (self->discoveries, t->resource);
  g_autofree char *suffix = g_strconcat (" ", t->resource, NULL);

  if (names == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  /* Where discovery has run, only the credential of the issuer it found:
   * one authorization server's tokens are never used for another's. In a
   * fresh process (no discovery yet) the resource's stored credential. */
  if (disc != NULL)
    {
      g_autofree char *want = ow_oauth_credential_name (disc->issuer, t->resource);
      if (g_strv_contains ((const char *const *) names, want))
        t->name = g_steal_pointer (&want);
    }
  else
    for (char **n = names; t->name == NULL && *n != NULL; n++)
      if (g_str_has_suffix (*n, suffix))
        t->name = g_strdup (*n);
  if (t->name == NULL)
    {
      return_sign_in_required (task, t->resource);
      return;
    }
  ow_secret_store_lookup_async (self->secrets, OW_SECRET_KIND_OAUTH, t->name, g_task_get_cancellable (task),
                                on_cred_loaded_cb, task);
}

static void
token_step (GTask *task)
{
  OwOAuth *self = g_task_get_source_object (task);
  TokenData *t = g_task_get_task_data (task);
  OwOAuthCredential *cred = g_hash_table_lookup (self->creds, t->resource);
  GPtrArray *waiting = g_hash_table_lookup (self->refreshing, t->resource);

  /* A refresh (or a revocation's delete) in flight answers this call too. */
  if (waiting != NULL)
    {
      g_ptr_array_add (waiting, task);
      return;
    }
  if (cred == NULL)
    {
      if (t->name != NULL)
        {
          /* Loaded, then dropped (revoked meanwhile). */
          return_sign_in_required (task, t->resource);
          return;
        }
      ow_secret_store_list_async (self->secrets, OW_SECRET_KIND_OAUTH, g_task_get_cancellable (task),
                                  on_creds_listed_cb, task);
      return;
    }
  if (credential_fresh (cred))
    {
      g_task_return_pointer (task, g_strdup (cred->access_token), (GDestroyNotify) ow_secret_free);
      g_object_unref (task);
      return;
    }
  if (cred->refresh_token == NULL)
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_SIGN_IN_REQUIRED,
                               "The sign-in to %s has expired; sign in again.", t->resource);
      g_object_unref (task);
      return;
    }
  waiting = g_ptr_array_new ();
  g_ptr_array_add (waiting, task);
  g_hash_table_insert (self->refreshing, g_strdup (t->resource), waiting);
  start_refresh (self, t->resource, cred);
}

void
ow_oauth_get_access_token_async (OwOAuth             *self,
                                 const char          *resource_url,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task;
  TokenData *t;

  g_return_if_fail (OW_IS_OAUTH (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_oauth_get_access_token_async);
  t = g_new0 (TokenData, 1);
  t->resource = ow_oauth_canonical_resource (resource_url);
  g_task_set_task_data (task, t, (GDestroyNotify) token_data_free);
  if (t->resource == NULL)
    {
      return_sign_in_required (task, resource_url != NULL ? resource_url : "");
      return;
    }
  token_step (task);
}

char *
ow_oauth_get_access_token_finish (OwOAuth *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
ow_oauth_invalidate (OwOAuth *self, const char *resource_url)
{
  g_autofree char *resource = ow_oauth_canonical_resource (resource_url);
  OwOAuthCredential *cred;

  g_return_if_fail (OW_IS_OAUTH (self));
  if (resource != NULL && (cred = g_hash_table_lookup (self->creds, resource)) != NULL)
    cred->expires_at = 1;
}

/* ---- Signing out -------------------------------------------------------- */

typedef struct {
  char  *resource;
  char **names;     /* still to delete */
  guint  next;
  int    deleted;
} SignOutData;

static void
sign_out_data_free (SignOutData *d)
{
  g_free (d->resource);
  g_strfreev (d->names);
  g_free (d);
}

static void sign_out_next (GTask *task);

static void
on_signed_out_one_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  SignOutData *d = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (ow_secret_store_delete_finish (OW_SECRET_STORE (source), result, &error))
    d->deleted++;
  else if (error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  sign_out_next (task);
}

static void
sign_out_next (GTask *task)
{
  OwOAuth *self = g_task_get_source_object (task);
  SignOutData *d = g_task_get_task_data (task);
  g_autofree char *suffix = g_strconcat (" ", d->resource, NULL);

  while (d->names[d->next] != NULL && !g_str_has_suffix (d->names[d->next], suffix))
    d->next++;
  if (d->names[d->next] == NULL)
    {
      g_task_return_int (task, d->deleted);
      g_object_unref (task);
      return;
    }
  ow_secret_store_delete_async (self->secrets, OW_SECRET_KIND_OAUTH, d->names[d->next++],
                                g_task_get_cancellable (task), on_signed_out_one_cb, task);
}

static void
on_sign_out_listed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  SignOutData *d = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  d->names = ow_secret_store_list_finish (OW_SECRET_STORE (source), result, &error);
  if (d->names == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  sign_out_next (task);
}

void
ow_oauth_sign_out_async (OwOAuth             *self,
                         const char          *resource_url,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  GTask *task;
  SignOutData *d;

  g_return_if_fail (OW_IS_OAUTH (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_oauth_sign_out_async);
  d = g_new0 (SignOutData, 1);
  d->resource = ow_oauth_canonical_resource (resource_url);
  g_task_set_task_data (task, d, (GDestroyNotify) sign_out_data_free);
  if (d->resource == NULL)
    {
      g_task_return_int (task, 0);
      g_object_unref (task);
      return;
    }
  /* Memory first: from now on nothing hands out the old token. */
  g_hash_table_remove (self->creds, d->resource);
  ow_secret_store_list_async (self->secrets, OW_SECRET_KIND_OAUTH, cancellable, on_sign_out_listed_cb, task);
}

int
ow_oauth_sign_out_finish (OwOAuth *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  return (int) g_task_propagate_int (G_TASK (result), error);
}
