/* ow-oauth.c: finding the authorization server and signing in.
 *
 * The flows are chains of HTTP exchanges on the GLib main loop, each a
 * GTask whose state struct walks a list of steps:
 *
 *   Discover   PRM candidates → AS metadata candidates → OwOAuthDiscovery
 *   Begin      Discover → client (set / CIMD / stored DCR / new DCR) →
 *              OwOAuthPending + authorization URL
 *   Complete   OwOAuthPending → state and iss checks → token request →
 *              store → "signed-in"
 *
 * What a sign-in earns is kept and refreshed by ow-oauth-token.c. Every
 * token, secret, code and verifier is registered with the redaction
 * module as soon as we hold it.
 */
#define G_LOG_DOMAIN "ow-oauth"

#include "net/ow-oauth-private.h"

#include <sodium.h>
#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "ow-redact.h"

guint ow_oauth_signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwOAuth, ow_oauth, G_TYPE_OBJECT)

void
ow_oauth_client_clear (OwOAuthClient *c)
{
  g_clear_pointer (&c->client_id, g_free);
  g_clear_pointer (&c->client_secret, ow_secret_free);
}

static void
client_free (OwOAuthClient *c)
{
  ow_oauth_client_clear (c);
  g_free (c);
}

static void
discovery_free (OwOAuthDiscovery *d)
{
  g_free (d->resource);
  g_free (d->issuer);
  ow_oauth_server_metadata_free (d->as);
  g_free (d->scope);
  g_free (d);
}

static void
pending_free (OwOAuthPending *p)
{
  g_free (p->state);
  g_clear_pointer (&p->verifier, ow_secret_free);
  g_free (p->resource);
  g_free (p->issuer);
  g_free (p->token_endpoint);
  g_free (p->redirect_uri);
  g_free (p->scope);
  g_strfreev (p->auth_methods);
  ow_oauth_client_clear (&p->client);
  g_free (p);
}

void
ow_oauth_credential_free (OwOAuthCredential *c)
{
  if (c == NULL)
    return;
  g_free (c->name);
  g_free (c->issuer);
  g_free (c->resource);
  g_free (c->token_endpoint);
  g_free (c->auth_method);
  ow_oauth_client_clear (&c->client);
  g_clear_pointer (&c->access_token, ow_secret_free);
  g_clear_pointer (&c->refresh_token, ow_secret_free);
  g_free (c->scope);
  g_free (c);
}

static void
ow_oauth_finalize (GObject *object)
{
  OwOAuth *self = OW_OAUTH (object);

  g_clear_object (&self->http);
  g_clear_object (&self->secrets);
  g_free (self->redirect_uri);
  g_free (self->client_metadata_url);
  g_hash_table_unref (self->clients);
  g_hash_table_unref (self->discoveries);
  g_hash_table_unref (self->pending);
  g_hash_table_unref (self->creds);
  g_hash_table_unref (self->refreshing);
  g_hash_table_unref (self->step_ups);
  G_OBJECT_CLASS (ow_oauth_parent_class)->finalize (object);
}

static void
ow_oauth_class_init (OwOAuthClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_oauth_finalize;

  /**
   * OwOAuth::signed-in:
   * @resource: the canonical resource URL now signed in
   *
   * A sign-in completed; sessions using @resource pick up the new token.
   */
  ow_oauth_signals[SIGNAL_SIGNED_IN] =
    g_signal_new ("signed-in", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * OwOAuth::sign-in-required:
   * @resource: the canonical resource URL
   *
   * The server revoked the credential of @resource (invalid_grant on
   * refresh); it was deleted. Emitted once per revocation.
   */
  ow_oauth_signals[SIGNAL_SIGN_IN_REQUIRED] =
    g_signal_new ("sign-in-required", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
ow_oauth_init (OwOAuth *self)
{
  self->clients = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) client_free);
  self->discoveries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) discovery_free);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) pending_free);
  self->creds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) ow_oauth_credential_free);
  self->refreshing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  self->step_ups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

OwOAuth *
ow_oauth_new (OwHttpClient *http, OwSecretStore *secrets)
{
  OwOAuth *self;

  g_return_val_if_fail (OW_IS_HTTP_CLIENT (http), NULL);
  g_return_val_if_fail (OW_IS_SECRET_STORE (secrets), NULL);
  self = g_object_new (OW_TYPE_OAUTH, NULL);
  self->http = g_object_ref (http);
  self->secrets = g_object_ref (secrets);
  return self;
}

void
ow_oauth_set_redirect_uri (OwOAuth *self, const char *redirect_uri)
{
  g_return_if_fail (OW_IS_OAUTH (self));
  g_free (self->redirect_uri);
  self->redirect_uri = g_strdup (redirect_uri);
}

const char *
ow_oauth_get_redirect_uri (OwOAuth *self)
{
  g_return_val_if_fail (OW_IS_OAUTH (self), NULL);
  return self->redirect_uri;
}

void
ow_oauth_set_client_metadata_url (OwOAuth *self, const char *url)
{
  g_return_if_fail (OW_IS_OAUTH (self));
  g_free (self->client_metadata_url);
  self->client_metadata_url = g_strdup (url);
}

void
ow_oauth_set_client (OwOAuth    *self,
                     const char *resource_url,
                     const char *client_id,
                     const char *client_secret)
{
  g_autofree char *resource = ow_oauth_canonical_resource (resource_url);
  OwOAuthClient *c;

  g_return_if_fail (OW_IS_OAUTH (self));
  g_return_if_fail (resource != NULL && client_id != NULL);
  c = g_new0 (OwOAuthClient, 1);
  c->client_id = g_strdup (client_id);
  if (client_secret != NULL && *client_secret != '\0')
    {
      ow_redact_register_secret (client_secret);
      c->client_secret = g_strdup (client_secret);
    }
  g_hash_table_replace (self->clients, g_steal_pointer (&resource), c);
}

/* ---- Small helpers ------------------------------------------------------ */

char *
ow_oauth_canonical_resource (const char *url)
{
  g_autoptr(GUri) uri = NULL;
  g_autofree char *scheme = NULL, *host = NULL;
  const char *path;
  int port;

  if (!ow_oauth_url_ok (url))
    return NULL;
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  scheme = g_ascii_strdown (g_uri_get_scheme (uri), -1);
  host = g_ascii_strdown (g_uri_get_host (uri), -1);
  port = g_uri_get_port (uri);
  if ((port == 443 && strcmp (scheme, "https") == 0) || (port == 80 && strcmp (scheme, "http") == 0))
    port = -1;
  path = g_uri_get_path (uri);
  /* The bare origin is written without its "/" (MCP's canonical URI). */
  if (strcmp (path, "/") == 0)
    path = "";
  {
    g_autoptr(GUri) out = g_uri_build (G_URI_FLAGS_ENCODED, scheme, NULL, host, port, path,
                                       g_uri_get_query (uri), NULL);
    return g_uri_to_string (out);
  }
}

/* @len bytes as base64url without padding (RFC 4648 §5). */
static char *
base64url (const guint8 *bytes, gsize len)
{
  g_autofree char *b64 = g_base64_encode (bytes, len);
  GString *s = g_string_new (NULL);

  for (const char *p = b64; *p != '\0'; p++)
    {
      if (*p == '+')
        g_string_append_c (s, '-');
      else if (*p == '/')
        g_string_append_c (s, '_');
      else if (*p != '=')
        g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}

/* 32 bytes from libsodium's CSPRNG, base64url (43 characters: a PKCE
 * verifier needs 43 to 128, RFC 7636 §4.1; a state needs to be unguessable). */
static char *
random_token (void)
{
  guint8 bytes[32];
  char *token;

  if (sodium_init () < 0)
    g_error ("libsodium could not start: no random numbers for a sign-in");
  randombytes_buf (bytes, sizeof bytes);
  token = base64url (bytes, sizeof bytes);
  sodium_memzero (bytes, sizeof bytes);
  return token;
}

/* BASE64URL(SHA256(ASCII(verifier))), RFC 7636 §4.2. */
static char *
s256_challenge (const char *verifier)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 digest[32];
  gsize len = sizeof digest;

  g_checksum_update (sum, (const guchar *) verifier, (gssize) strlen (verifier));
  g_checksum_get_digest (sum, digest, &len);
  return base64url (digest, len);
}

void
ow_oauth_form_add (GString *form, const char *name, const char *value)
{
  g_autofree char *v = NULL;

  if (value == NULL)
    return;
  v = g_uri_escape_string (value, NULL, FALSE);
  if (form->len > 0)
    g_string_append_c (form, '&');
  g_string_append (form, name);
  g_string_append_c (form, '=');
  g_string_append (form, v);
}

gboolean
ow_oauth_strv_has (char **v, const char *s)
{
  return v != NULL && g_strv_contains ((const char *const *) v, s);
}

/* "scheme://host[:port]" of @url. */
static char *
origin_of (GUri *uri)
{
  g_autoptr(GUri) o = g_uri_build (G_URI_FLAGS_ENCODED, g_uri_get_scheme (uri), NULL, g_uri_get_host (uri),
                                   g_uri_get_port (uri), "", NULL, NULL);
  return g_uri_to_string (o);
}

/* The path of @uri without a trailing "/" ("" for the root). */
static char *
trimmed_path (GUri *uri)
{
  const char *path = g_uri_get_path (uri);
  gsize len = strlen (path);

  while (len > 0 && path[len - 1] == '/')
    len--;
  return g_strndup (path, len);
}

/* A text from a server, fit to go into an error message: short, one line,
 * printable, redacted. */
char *
ow_oauth_outside_text (const char *text)
{
  g_autofree char *valid = NULL;
  GString *s;

  if (text == NULL)
    return g_strdup ("");
  valid = g_utf8_make_valid (text, MIN (strlen (text), 200));
  s = g_string_new (NULL);
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (g_unichar_iscntrl (c))
        g_string_append_c (s, ' ');
      else
        g_string_append_unichar (s, c);
    }
  {
    g_autofree char *raw = g_string_free (s, FALSE);
    return ow_redact (raw);
  }
}

OwHttpRequest *
ow_oauth_new_request (const char *method, const char *url)
{
  OwHttpRequest *req = ow_http_request_new (method, url);

  ow_http_request_set_timeouts (req, 30000, 60000, 120000);
  ow_http_request_set_max_body (req, MAX_ANSWER);
  ow_http_request_add_header (req, "Accept", "application/json");
  return req;
}

/* Adds the client's authentication to a token request: HTTP Basic
 * (RFC 6749 §2.3.1, form-encoded id and secret) or the body. */
static void
add_client_auth (OwHttpRequest *req, GString *form, const char *method, const OwOAuthClient *client)
{
  if (g_strcmp0 (method, "client_secret_basic") == 0 && client->client_secret != NULL)
    {
      g_autofree char *id = g_uri_escape_string (client->client_id, NULL, FALSE);
      g_autofree char *secret = g_uri_escape_string (client->client_secret, NULL, FALSE);
      g_autofree char *pair = g_strconcat (id, ":", secret, NULL);
      g_autofree char *b64 = g_base64_encode ((const guchar *) pair, strlen (pair));
      g_autofree char *value = g_strconcat ("Basic ", b64, NULL);

      ow_redact_register_secret (b64);
      ow_http_request_add_header (req, "Authorization", value);
      memset (pair, 0, strlen (pair));
      return;
    }
  ow_oauth_form_add (form, "client_id", client->client_id);
  if (g_strcmp0 (method, "client_secret_post") == 0)
    ow_oauth_form_add (form, "client_secret", client->client_secret);
}

/* How the client authenticates at the token endpoint (RFC 8414 §2: the
 * default list is client_secret_basic alone). */
static char *
choose_auth_method (const OwOAuthClient *client, char **supported)
{
  if (client->client_secret == NULL)
    return g_strdup ("none");
  if (supported == NULL || ow_oauth_strv_has (supported, "client_secret_basic"))
    return g_strdup ("client_secret_basic");
  if (ow_oauth_strv_has (supported, "client_secret_post"))
    return g_strdup ("client_secret_post");
  return g_strdup ("client_secret_basic");
}

OwHttpRequest *
ow_oauth_token_request (const char *endpoint, GString *form, const char *auth_method, const OwOAuthClient *client)
{
  OwHttpRequest *req = ow_oauth_new_request ("POST", endpoint);
  g_autoptr(GBytes) body = NULL;

  add_client_auth (req, form, auth_method, client);
  body = g_bytes_new (form->str, form->len);
  ow_http_request_set_body (req, body, "application/x-www-form-urlencoded");
  return req;
}

/* ---- Fetching the first of several URLs --------------------------------- */

typedef void (*FetchDone) (GTask *task, const char *url, GBytes *body, GError *error);

typedef struct {
  GTask     *task;     /* the flow it serves (borrowed: the flow's own) */
  GPtrArray *urls;     /* char*, tried in order */
  guint      next;
  FetchDone  done;
  GError    *first_error;
} Fetch;

static void fetch_next (OwOAuth *self, Fetch *f);

static void
on_fetch_sent_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Fetch *f = user_data;
  OwOAuth *self = g_task_get_source_object (f->task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwHttpResponse) resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &error);
  const char *url = g_ptr_array_index (f->urls, f->next - 1);

  if (resp == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      f->done (f->task, NULL, NULL, error);
      goto out;
    }
  if (resp != NULL && ow_http_response_get_status (resp) == 200)
    {
      f->done (f->task, url, ow_http_response_get_body (resp), NULL);
      goto out;
    }
  if (resp != NULL)
    g_debug ("no metadata at %s (HTTP %u)", url, ow_http_response_get_status (resp));
  else
    g_debug ("no metadata at %s (%s)", url, error->message);
  if (f->next < f->urls->len)
    {
      fetch_next (self, f);
      return;
    }
  f->done (f->task, NULL, NULL, NULL);
out:
  g_ptr_array_unref (f->urls);
  g_free (f);
}

static void
fetch_next (OwOAuth *self, Fetch *f)
{
  g_autoptr(OwHttpRequest) req = ow_oauth_new_request ("GET", g_ptr_array_index (f->urls, f->next));

  f->next++;
  ow_http_client_send_async (self->http, req, NULL, NULL, NULL, g_task_get_cancellable (f->task),
                             on_fetch_sent_cb, f);
}

/* Fetches @urls in order; @done gets the first 200 answer, or NULL body
 * (and NULL error) when none answered, or the cancellation. */
static void
fetch_first (OwOAuth *self, GTask *task, GPtrArray *urls, FetchDone done)
{
  Fetch *f = g_new0 (Fetch, 1);

  f->task = task;
  f->urls = urls;
  f->done = done;
  fetch_next (self, f);
}

/* ---- OwOAuthDiscovery ---------------------------------------------------------- */

typedef struct {
  char                    *resource;     /* canonical */
  OwOAuthChallenge        *challenge;
  OwOAuthResourceMetadata *prm;
  char                    *issuer;
} DiscoverData;

static void
discover_data_free (DiscoverData *d)
{
  g_free (d->resource);
  ow_oauth_challenge_free (d->challenge);
  ow_oauth_resource_metadata_free (d->prm);
  g_free (d->issuer);
  g_free (d);
}

static GPtrArray *
prm_candidates (const char *resource, const OwOAuthChallenge *challenge)
{
  GPtrArray *urls = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GUri) uri = g_uri_parse (resource, G_URI_FLAGS_NONE, NULL);
  g_autofree char *origin = origin_of (uri);
  g_autofree char *path = trimmed_path (uri);

  if (challenge != NULL && challenge->resource_metadata != NULL && ow_oauth_url_ok (challenge->resource_metadata))
    g_ptr_array_add (urls, g_strdup (challenge->resource_metadata));
  if (*path != '\0')
    g_ptr_array_add (urls, g_strconcat (origin, "/.well-known/oauth-protected-resource", path, NULL));
  g_ptr_array_add (urls, g_strconcat (origin, "/.well-known/oauth-protected-resource", NULL));
  return urls;
}

/* The MCP 2025-11-25 order: RFC 8414 with path insertion, OIDC with path
 * insertion, OIDC with the path appended; for an issuer without a path,
 * RFC 8414 then OIDC. */
static GPtrArray *
as_candidates (const char *issuer)
{
  GPtrArray *urls = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GUri) uri = g_uri_parse (issuer, G_URI_FLAGS_NONE, NULL);
  g_autofree char *origin = origin_of (uri);
  g_autofree char *path = trimmed_path (uri);

  if (*path != '\0')
    {
      g_ptr_array_add (urls, g_strconcat (origin, "/.well-known/oauth-authorization-server", path, NULL));
      g_ptr_array_add (urls, g_strconcat (origin, "/.well-known/openid-configuration", path, NULL));
      g_ptr_array_add (urls, g_strconcat (origin, path, "/.well-known/openid-configuration", NULL));
    }
  else
    {
      g_ptr_array_add (urls, g_strconcat (origin, "/.well-known/oauth-authorization-server", NULL));
      g_ptr_array_add (urls, g_strconcat (origin, "/.well-known/openid-configuration", NULL));
    }
  return urls;
}

/* Issuers compare as strings (RFC 8414 §3.3), but "https://as" and
 * "https://as/" name the same thing. */
static gboolean
same_issuer (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);

  while (la > 0 && a[la - 1] == '/')
    la--;
  while (lb > 0 && b[lb - 1] == '/')
    lb--;
  return la == lb && strncmp (a, b, la) == 0;
}

static void
on_as_fetched (GTask *task, const char *url, GBytes *body, GError *error)
{
  OwOAuth *self = g_task_get_source_object (task);
  DiscoverData *d = g_task_get_task_data (task);
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(OwOAuthServerMetadata) as = NULL;
  OwOAuthDiscovery *disc;
  const char *data;
  gsize len;

  if (error != NULL)
    {
      g_task_return_error (task, g_error_copy (error));
      g_object_unref (task);
      return;
    }
  if (body == NULL)
    {
      g_autofree char *iss = ow_oauth_outside_text (d->issuer);
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                               "The authorization server %s publishes no metadata (RFC 8414 or OpenID "
                               "Connect discovery); OpenWorker cannot sign in to it.", iss);
      g_object_unref (task);
      return;
    }
  data = g_bytes_get_data (body, &len);
  as = ow_oauth_server_metadata_parse (data, (gssize) len, &parse_error);
  if (as == NULL)
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                               "The authorization server's metadata at %s cannot be used: %s", url,
                               parse_error->message);
      g_object_unref (task);
      return;
    }
  if (!same_issuer (as->issuer, d->issuer))
    {
      g_autofree char *named = ow_oauth_outside_text (as->issuer);
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_ISSUER,
                               "The authorization server's metadata names issuer %s, not %s as the "
                               "resource said; the sign-in was stopped.", named, d->issuer);
      g_object_unref (task);
      return;
    }

  disc = g_new0 (OwOAuthDiscovery, 1);
  disc->resource = g_strdup (d->resource);
  /* The metadata's own spelling: it is what iss on the redirect carries
   * (RFC 9207 §2) and what credentials are keyed by. */
  disc->issuer = g_strdup (as->issuer);
  disc->as = g_steal_pointer (&as);
  /* Scope: the challenge's, else everything the resource lists, else none. */
  if (d->challenge != NULL && d->challenge->scope != NULL && *d->challenge->scope != '\0')
    disc->scope = g_strdup (d->challenge->scope);
  else if (d->prm->scopes_supported != NULL && d->prm->scopes_supported[0] != NULL)
    disc->scope = g_strjoinv (" ", d->prm->scopes_supported);
  g_hash_table_replace (self->discoveries, g_strdup (d->resource), disc);
  g_task_return_pointer (task, g_strdup (disc->issuer), g_free);
  g_object_unref (task);
}

static void
on_prm_fetched (GTask *task, const char *url, GBytes *body, GError *error)
{
  OwOAuth *self = g_task_get_source_object (task);
  DiscoverData *d = g_task_get_task_data (task);
  g_autoptr(GError) parse_error = NULL;
  g_autofree char *named = NULL;
  const char *data;
  gsize len;

  if (error != NULL)
    {
      g_task_return_error (task, g_error_copy (error));
      g_object_unref (task);
      return;
    }
  if (body == NULL)
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                               "%s asks for a sign-in but publishes no protected resource metadata "
                               "(RFC 9728); OpenWorker cannot find its authorization server.", d->resource);
      g_object_unref (task);
      return;
    }
  data = g_bytes_get_data (body, &len);
  d->prm = ow_oauth_resource_metadata_parse (data, (gssize) len, &parse_error);
  if (d->prm == NULL)
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                               "The resource metadata at %s cannot be used: %s", url, parse_error->message);
      g_object_unref (task);
      return;
    }
  /* RFC 9728 §3.3: the metadata must be about this resource, or a server
   * could send our sign-in to another's authorization server. */
  named = ow_oauth_canonical_resource (d->prm->resource);
  if (g_strcmp0 (named, d->resource) != 0)
    {
      g_autofree char *shown = ow_oauth_outside_text (d->prm->resource);
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                               "The resource metadata is for %s, not %s; the sign-in was stopped.", shown,
                               d->resource);
      g_object_unref (task);
      return;
    }
  d->issuer = g_strdup (d->prm->authorization_servers[0]);
  fetch_first (self, task, as_candidates (d->issuer), on_as_fetched);
}

void
ow_oauth_discover_async (OwOAuth             *self,
                         const char          *resource_url,
                         const char          *www_authenticate,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  GTask *task;
  DiscoverData *d;

  g_return_if_fail (OW_IS_OAUTH (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_oauth_discover_async);
  d = g_new0 (DiscoverData, 1);
  d->resource = ow_oauth_canonical_resource (resource_url);
  d->challenge = ow_oauth_challenge_parse (www_authenticate);
  g_task_set_task_data (task, d, (GDestroyNotify) discover_data_free);
  if (d->resource == NULL)
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                               "The resource URL is not an https address (or http on this computer); "
                               "OpenWorker signs in only over those.");
      g_object_unref (task);
      return;
    }
  fetch_first (self, task, prm_candidates (d->resource, d->challenge), on_prm_fetched);
}

char *
ow_oauth_discover_finish (OwOAuth *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Beginning a sign-in ------------------------------------------------ */

typedef struct {
  char   *resource;
  char   *www_authenticate;
  char   *extra_scope;     /* a step-up's scope, joined with the first */
  OwOAuthClient  client;
  char   *client_name;     /* the stored registration's secret name */
} BeginData;

static void
begin_data_free (BeginData *b)
{
  g_free (b->resource);
  g_free (b->www_authenticate);
  g_free (b->extra_scope);
  ow_oauth_client_clear (&b->client);
  g_free (b->client_name);
  g_free (b);
}

/* The union of two space-separated scope lists, order kept. */
static char *
scope_union (const char *a, const char *b)
{
  g_auto(GStrv) av = g_strsplit (a != NULL ? a : "", " ", -1);
  g_auto(GStrv) bv = g_strsplit (b != NULL ? b : "", " ", -1);
  GPtrArray *out = g_ptr_array_new ();
  char *joined;

  for (char **v = av; *v != NULL; v++)
    if (**v != '\0' && !g_ptr_array_find_with_equal_func (out, *v, g_str_equal, NULL))
      g_ptr_array_add (out, *v);
  for (char **v = bv; *v != NULL; v++)
    if (**v != '\0' && !g_ptr_array_find_with_equal_func (out, *v, g_str_equal, NULL))
      g_ptr_array_add (out, *v);
  g_ptr_array_add (out, NULL);
  joined = out->len > 1 ? g_strjoinv (" ", (char **) out->pdata) : NULL;
  g_ptr_array_free (out, TRUE);
  return joined;
}

static void
drop_oldest_pending (OwOAuth *self)
{
  GHashTableIter it;
  OwOAuthPending *p, *oldest = NULL;

  g_hash_table_iter_init (&it, self->pending);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &p))
    if (oldest == NULL || p->created < oldest->created)
      oldest = p;
  if (oldest != NULL)
    g_hash_table_remove (self->pending, oldest->state);
}

/* The client is known: make the pending sign-in and its URL. */
static void
begin_finish_url (GTask *task)
{
  OwOAuth *self = g_task_get_source_object (task);
  BeginData *b = g_task_get_task_data (task);
  OwOAuthDiscovery *disc = g_hash_table_lookup (self->discoveries, b->resource);
  OwOAuthPending *p = g_new0 (OwOAuthPending, 1);
  g_autofree char *challenge = NULL;
  GString *url;

  p->state = random_token ();
  p->verifier = random_token ();
  ow_redact_register_secret (p->verifier);
  p->resource = g_strdup (b->resource);
  p->issuer = g_strdup (disc->issuer);
  p->token_endpoint = g_strdup (disc->as->token_endpoint);
  p->redirect_uri = g_strdup (self->redirect_uri);
  p->scope = scope_union (disc->scope, b->extra_scope);
  p->auth_methods = g_strdupv (disc->as->token_endpoint_auth_methods_supported);
  p->client.client_id = g_strdup (b->client.client_id);
  p->client.client_secret = g_strdup (b->client.client_secret);
  p->iss_required = disc->as->authorization_response_iss_parameter_supported;
  p->created = g_get_monotonic_time ();
  challenge = s256_challenge (p->verifier);

  url = g_string_new (disc->as->authorization_endpoint);
  g_string_append_c (url, strchr (url->str, '?') != NULL ? '&' : '?');
  {
    GString *q = g_string_new (NULL);
    ow_oauth_form_add (q, "response_type", "code");
    ow_oauth_form_add (q, "client_id", p->client.client_id);
    ow_oauth_form_add (q, "redirect_uri", p->redirect_uri);
    ow_oauth_form_add (q, "code_challenge", challenge);
    ow_oauth_form_add (q, "code_challenge_method", "S256");
    ow_oauth_form_add (q, "state", p->state);
    ow_oauth_form_add (q, "resource", p->resource);
    ow_oauth_form_add (q, "scope", p->scope);
    g_string_append (url, q->str);
    g_string_free (q, TRUE);
  }

  if (g_hash_table_size (self->pending) >= MAX_PENDING)
    drop_oldest_pending (self);
  g_hash_table_insert (self->pending, p->state, p);
  g_task_return_pointer (task, g_string_free (url, FALSE), g_free);
  g_object_unref (task);
}

static void
on_registration_stored_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr(GError) error = NULL;

  /* A registration that could not be kept still works for this sign-in;
   * the next one registers again. */
  if (!ow_secret_store_store_finish (OW_SECRET_STORE (source), result, &error))
    g_debug ("the registered client was not kept: %s", error->message);
  begin_finish_url (task);
}

static void
on_registered_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = g_task_get_source_object (task);
  BeginData *b = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwHttpResponse) resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &error);
  const char *data;
  gsize len;
  guint status;

  if (resp == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  status = ow_http_response_get_status (resp);
  data = g_bytes_get_data (ow_http_response_get_body (resp), &len);
  if ((status != 201 && status != 200)
      || !ow_oauth_registration_parse (data, (gssize) len, &b->client.client_id, &b->client.client_secret, &error))
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED,
                               "The authorization server refused to register OpenWorker (HTTP %u). Register "
                               "a client by hand and enter its client id in the server's settings.", status);
      g_object_unref (task);
      return;
    }
  if (b->client.client_secret != NULL)
    ow_redact_register_secret (b->client.client_secret);
  {
    g_autoptr(JsonBuilder) jb = json_builder_new ();
    g_autoptr(JsonNode) root = NULL;
    g_autofree char *json = NULL;

    json_builder_begin_object (jb);
    json_builder_set_member_name (jb, "client_id");
    json_builder_add_string_value (jb, b->client.client_id);
    if (b->client.client_secret != NULL)
      {
        json_builder_set_member_name (jb, "client_secret");
        json_builder_add_string_value (jb, b->client.client_secret);
      }
    json_builder_end_object (jb);
    root = json_builder_get_root (jb);
    json = ow_json_to_string (root);
    ow_secret_store_store_async (self->secrets, OW_SECRET_KIND_OAUTH_CLIENT, b->client_name,
                                 "OpenWorker: registered OAuth client", json, g_task_get_cancellable (task),
                                 on_registration_stored_cb, task);
  }
}

static void
register_client (GTask *task)
{
  OwOAuth *self = g_task_get_source_object (task);
  BeginData *b = g_task_get_task_data (task);
  OwOAuthDiscovery *disc = g_hash_table_lookup (self->discoveries, b->resource);
  g_autoptr(JsonBuilder) jb = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  g_autoptr(OwHttpRequest) req = NULL;
  g_autoptr(GBytes) body = NULL;

  /* RFC 7591 §2, as the MCP spec asks of a native app on loopback. */
  json_builder_begin_object (jb);
  json_builder_set_member_name (jb, "client_name");
  json_builder_add_string_value (jb, "OpenWorker");
  json_builder_set_member_name (jb, "redirect_uris");
  json_builder_begin_array (jb);
  json_builder_add_string_value (jb, self->redirect_uri);
  json_builder_end_array (jb);
  json_builder_set_member_name (jb, "grant_types");
  json_builder_begin_array (jb);
  json_builder_add_string_value (jb, "authorization_code");
  json_builder_add_string_value (jb, "refresh_token");
  json_builder_end_array (jb);
  json_builder_set_member_name (jb, "response_types");
  json_builder_begin_array (jb);
  json_builder_add_string_value (jb, "code");
  json_builder_end_array (jb);
  json_builder_set_member_name (jb, "token_endpoint_auth_method");
  json_builder_add_string_value (jb, "none");
  json_builder_set_member_name (jb, "application_type");
  json_builder_add_string_value (jb, "native");
  json_builder_end_object (jb);
  root = json_builder_get_root (jb);
  json = ow_json_to_string (root);

  req = ow_oauth_new_request ("POST", disc->as->registration_endpoint);
  body = g_bytes_new (json, strlen (json));
  ow_http_request_set_body (req, body, "application/json");
  ow_http_client_send_async (self->http, req, NULL, NULL, NULL, g_task_get_cancellable (task),
                             on_registered_cb, task);
}

static void
on_stored_client_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  BeginData *b = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) json = ow_secret_store_lookup_finish (OW_SECRET_STORE (source), result, &error);

  if (json != NULL)
    {
      g_autoptr(JsonObject) obj = ow_json_object_from_string (json, -1, NULL);
      const char *id = obj != NULL ? ow_json_get_string (obj, "client_id") : NULL;

      if (id != NULL)
        {
          b->client.client_id = g_strdup (id);
          b->client.client_secret = g_strdup (ow_json_get_string (obj, "client_secret"));
          begin_finish_url (task);
          return;
        }
    }
  else if (error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  register_client (task);
}

static void
on_begin_discovered_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = OW_OAUTH (source);
  BeginData *b = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *issuer = ow_oauth_discover_finish (self, result, &error);
  OwOAuthDiscovery *disc;
  OwOAuthClient *set;

  if (issuer == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  disc = g_hash_table_lookup (self->discoveries, b->resource);
  /* PKCE S256 or nothing: the MCP spec has clients refuse a server that
   * does not say it supports it (absent metadata means no PKCE). */
  if (!ow_oauth_strv_has (disc->as->code_challenge_methods_supported, "S256"))
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_UNSUPPORTED,
                               "The authorization server %s does not support PKCE with S256, which a safe "
                               "sign-in needs; OpenWorker will not sign in to it.", disc->issuer);
      g_object_unref (task);
      return;
    }
  if (self->redirect_uri == NULL)
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED,
                               "Signing in needs the local API to receive the redirect, and it is not "
                               "running.");
      g_object_unref (task);
      return;
    }

  if ((set = g_hash_table_lookup (self->clients, b->resource)) != NULL)
    {
      b->client.client_id = g_strdup (set->client_id);
      b->client.client_secret = g_strdup (set->client_secret);
      begin_finish_url (task);
      return;
    }
  if (disc->as->client_id_metadata_document_supported && self->client_metadata_url != NULL)
    {
      b->client.client_id = g_strdup (self->client_metadata_url);
      begin_finish_url (task);
      return;
    }
  if (disc->as->registration_endpoint != NULL)
    {
      b->client_name = ow_oauth_credential_name (disc->issuer, self->redirect_uri);
      ow_secret_store_lookup_async (self->secrets, OW_SECRET_KIND_OAUTH_CLIENT, b->client_name,
                                    g_task_get_cancellable (task), on_stored_client_cb, task);
      return;
    }
  g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_UNSUPPORTED,
                           "The authorization server %s does not let applications register themselves. "
                           "Register a client with it and enter the client id (and secret) in this "
                           "server's settings.", disc->issuer);
  g_object_unref (task);
}

void
ow_oauth_begin_sign_in_async (OwOAuth             *self,
                              const char          *resource_url,
                              const char          *www_authenticate,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task;
  BeginData *b;
  g_autoptr(OwOAuthChallenge) challenge = NULL;

  g_return_if_fail (OW_IS_OAUTH (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_oauth_begin_sign_in_async);
  b = g_new0 (BeginData, 1);
  b->resource = ow_oauth_canonical_resource (resource_url);
  b->www_authenticate = g_strdup (www_authenticate);
  g_task_set_task_data (task, b, (GDestroyNotify) begin_data_free);
  if (b->resource == NULL)
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                               "The resource URL is not an https address (or http on this computer); "
                               "OpenWorker signs in only over those.");
      g_object_unref (task);
      return;
    }

  challenge = ow_oauth_challenge_parse (www_authenticate);
  if (challenge != NULL && g_strcmp0 (challenge->error, "insufficient_scope") == 0)
    {
      /* Counted per resource and scope asked for (the MCP spec's
       * "resource and operation"): a resource asking again for what a
       * sign-in just could not get would otherwise loop for ever. */
      g_autofree char *key = g_strconcat (b->resource, " ", challenge->scope != NULL ? challenge->scope : "", NULL);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (self->step_ups, key));
      OwOAuthDiscovery *disc = g_hash_table_lookup (self->discoveries, b->resource);

      if (n >= OW_OAUTH_MAX_STEP_UPS)
        {
          g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_STEP_UP_LIMIT,
                                   "%s keeps asking for more permissions after %u sign-ins; OpenWorker "
                                   "stopped asking. Check the account's access with the service.",
                                   b->resource, n);
          g_object_unref (task);
          return;
        }
      g_hash_table_replace (self->step_ups, g_steal_pointer (&key), GUINT_TO_POINTER (n + 1));
      /* What was asked before stays asked: a step-up adds scope. */
      if (disc != NULL)
        b->extra_scope = g_strdup (disc->scope);
    }
  ow_oauth_discover_async (self, resource_url, www_authenticate, cancellable, on_begin_discovered_cb, task);
}

char *
ow_oauth_begin_sign_in_finish (OwOAuth *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
ow_oauth_is_pending (OwOAuth *self, const char *state)
{
  g_return_val_if_fail (OW_IS_OAUTH (self), FALSE);
  return state != NULL && g_hash_table_contains (self->pending, state);
}

/* ---- Completing a sign-in ----------------------------------------------- */

typedef struct {
  OwOAuthPending    *pending;
  char       *auth_method;
  OwOAuthCredential *cred;
} CompleteData;

static void
complete_data_free (CompleteData *c)
{
  g_clear_pointer (&c->pending, pending_free);
  g_free (c->auth_method);
  ow_oauth_credential_free (c->cred);
  g_free (c);
}

static void
on_complete_stored_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = g_task_get_source_object (task);
  CompleteData *c = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  char *resource;

  if (!ow_secret_store_store_finish (OW_SECRET_STORE (source), result, &error))
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED,
                               "Signed in, but the token could not be saved: %s", error->message);
      g_object_unref (task);
      return;
    }
  resource = g_strdup (c->cred->resource);
  g_hash_table_replace (self->creds, g_strdup (resource), g_steal_pointer (&c->cred));
  g_signal_emit (self, ow_oauth_signals[SIGNAL_SIGNED_IN], 0, resource);
  g_task_return_pointer (task, resource, g_free);
  g_object_unref (task);
}

/* A token endpoint's refusal as a sentence (error codes are RFC 6749 §5.2
 * tokens; the description is the server's and is shortened). */
char *
ow_oauth_token_refusal (const OwOAuthTokenResponse *tr, guint status)
{
  g_autofree char *code = ow_oauth_outside_text (tr != NULL ? tr->error : NULL);
  g_autofree char *desc = ow_oauth_outside_text (tr != NULL ? tr->error_description : NULL);

  if (*code == '\0')
    return g_strdup_printf ("HTTP %u", status);
  if (*desc == '\0')
    return g_strdup_printf ("%s (HTTP %u)", code, status);
  return g_strdup_printf ("%s: %s (HTTP %u)", code, desc, status);
}

static void
on_code_redeemed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  OwOAuth *self = g_task_get_source_object (task);
  CompleteData *c = g_task_get_task_data (task);
  OwOAuthPending *p = c->pending;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwHttpResponse) resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &error);
  g_autoptr(OwOAuthTokenResponse) tr = NULL;
  const char *data;
  gsize len;
  guint status;

  if (resp == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  status = ow_http_response_get_status (resp);
  data = g_bytes_get_data (ow_http_response_get_body (resp), &len);
  tr = ow_oauth_token_response_parse (data, (gssize) len, &error);
  if (tr != NULL && tr->access_token != NULL)
    {
      ow_redact_register_secret (tr->access_token);
      if (tr->refresh_token != NULL)
        ow_redact_register_secret (tr->refresh_token);
    }
  if (status != 200 || tr == NULL || tr->access_token == NULL)
    {
      g_autofree char *why = ow_oauth_token_refusal (tr, status);
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DENIED,
                               "The authorization server did not accept the sign-in (%s). Try signing in "
                               "again.", why);
      g_object_unref (task);
      return;
    }
  c->cred = ow_oauth_credential_from_answer (tr, p->issuer, p->resource, p->token_endpoint, c->auth_method, &p->client,
                                    p->scope, NULL);
  ow_oauth_store_credential_async (self, c->cred, g_task_get_cancellable (task), on_complete_stored_cb, task);
}

void
ow_oauth_complete_async (OwOAuth             *self,
                         const char          *state,
                         const char          *code,
                         const char          *iss,
                         const char          *error_code,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  GTask *task;
  CompleteData *c;
  OwOAuthPending *p;
  GString *form;
  g_autoptr(OwHttpRequest) req = NULL;

  g_return_if_fail (OW_IS_OAUTH (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_oauth_complete_async);
  c = g_new0 (CompleteData, 1);
  g_task_set_task_data (task, c, (GDestroyNotify) complete_data_free);

  if (code != NULL)
    ow_redact_register_secret (code);
  /* Used up whatever happens next: a state works once. */
  if (state == NULL || !g_hash_table_steal_extended (self->pending, state, NULL, (gpointer *) &p))
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_STATE,
                               "This sign-in link was not started by OpenWorker or was already used; start "
                               "the sign-in again.");
      g_object_unref (task);
      return;
    }
  c->pending = p;

  /* RFC 9207: where the server says it sends iss, it must be there and be
   * the issuer we started with; an iss we did not expect is checked too. */
  if ((p->iss_required && iss == NULL) || (iss != NULL && strcmp (iss, p->issuer) != 0))
    {
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_ISSUER,
                               "The sign-in came back from another authorization server than %s (a mix-up "
                               "attack, or a misconfigured server); it was refused.", p->issuer);
      g_object_unref (task);
      return;
    }
  if (error_code != NULL || code == NULL || *code == '\0')
    {
      g_autofree char *shown = ow_oauth_outside_text (error_code != NULL ? error_code : "no code");
      g_task_return_new_error (task, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DENIED,
                               "The sign-in to %s was not completed (%s).", p->resource, shown);
      g_object_unref (task);
      return;
    }

  c->auth_method = choose_auth_method (&p->client, p->auth_methods);
  form = g_string_new (NULL);
  ow_oauth_form_add (form, "grant_type", "authorization_code");
  ow_oauth_form_add (form, "code", code);
  ow_oauth_form_add (form, "redirect_uri", p->redirect_uri);
  ow_oauth_form_add (form, "code_verifier", p->verifier);
  ow_oauth_form_add (form, "resource", p->resource);
  req = ow_oauth_token_request (p->token_endpoint, form, c->auth_method, &p->client);
  memset (form->str, 0, form->len);
  g_string_free (form, TRUE);
  ow_http_client_send_async (self->http, req, NULL, NULL, NULL, cancellable, on_code_redeemed_cb, task);
}

char *
ow_oauth_complete_finish (OwOAuth *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
