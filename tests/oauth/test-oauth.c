/* test-oauth.c: signing in to OAuth-protected resources, end to end.
 *
 * Runs inside tests/secrets/keyring-session.py: tokens go to a real
 * gnome-keyring through libsecret, and afterwards every file under HOME
 * and the XDG folders is searched for the marker every token, code and
 * secret of the double carries. The other side is oauth-double.py, a
 * loopback authorization server and resource that checks the wire for
 * real (PKCE verifier against challenge, resource, redirect URI, client
 * authentication, refresh rotation). Every request goes through
 * OwHttpClient; the authorization "browser" is a GET of the authorization
 * URL whose 302 Location is the redirect.
 */
#include <string.h>

#include "core/ow-context.h"
#include "core/ow-session-host.h"
#include "net/ow-http-client.h"
#include "net/ow-oauth.h"
#include "net/ow-oauth-parse.h"
#include "ow-error.h"
#include "ow-json.h"
#include "ow-secret-libsecret.h"
#include "ow-test-utils.h"
#include "server/ow-server.h"
#include "store/ow-paths.h"

#define MARKER "owtest-secret-Zq8"
#define REDIRECT "http://127.0.0.1:9/v1/oauth/callback"

typedef struct {
  GSubprocess   *double_proc;
  char          *base;          /* http://127.0.0.1:PORT */
  OwHttpClient  *http;
  OwSecretStore *secrets;
  GString       *log;           /* every log line of the run */
  GPtrArray     *errors;        /* every error message the tests saw */
} World;

static World w;

/* ---- Waiting and logs --------------------------------------------------- */

static void
on_result_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_for (GAsyncResult **slot)
{
  OW_TEST_WAIT_UNTIL (*slot != NULL);
  return *slot;
}

static GLogWriterOutput
log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (strcmp (fields[i].key, "MESSAGE") == 0 || strcmp (fields[i].key, "GLIB_DOMAIN") == 0)
      {
        g_string_append_len (w.log, fields[i].value, fields[i].length < 0 ? (gssize) strlen (fields[i].value)
                                                                          : fields[i].length);
        g_string_append_c (w.log, ' ');
      }
  g_string_append_c (w.log, '\n');
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    return g_log_writer_default (level, fields, n_fields, user_data);
  return G_LOG_WRITER_HANDLED;
}

/* Keeps @error's message for the final secrets check. */
static void
seen (const GError *error)
{
  if (error != NULL)
    g_ptr_array_add (w.errors, g_strdup (error->message));
}

/* ---- HTTP through OwHttpClient ------------------------------------------ */

typedef struct {
  guint  status;
  char  *www_authenticate;
  char  *location;
  char  *body;
} Reply;

static void
reply_clear (Reply *r)
{
  g_free (r->www_authenticate);
  g_free (r->location);
  g_free (r->body);
  memset (r, 0, sizeof *r);
}

static void
http (const char *method, const char *url, const char *bearer, const char *json, Reply *out)
{
  g_autoptr(OwHttpRequest) req = ow_http_request_new (method, url);
  g_autoptr(GAsyncResult) res = NULL;
  g_autoptr(OwHttpResponse) resp = NULL;
  g_autoptr(GError) error = NULL;
  GBytes *body;

  if (bearer != NULL)
    {
      g_autofree char *h = g_strconcat ("Bearer ", bearer, NULL);
      ow_http_request_add_header (req, "Authorization", h);
    }
  if (json != NULL)
    {
      g_autoptr(GBytes) b = g_bytes_new (json, strlen (json));
      ow_http_request_set_body (req, b, "application/json");
    }
  ow_http_client_send_async (w.http, req, NULL, NULL, NULL, NULL, on_result_cb, &res);
  resp = ow_http_client_send_finish (w.http, wait_for (&res), &error);
  g_assert_no_error (error);
  out->status = ow_http_response_get_status (resp);
  out->www_authenticate = g_strdup (ow_http_response_get_header (resp, "WWW-Authenticate"));
  out->location = g_strdup (ow_http_response_get_header (resp, "Location"));
  body = ow_http_response_get_body (resp);
  out->body = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));
}

static char *
url_of (const char *path)
{
  return g_strconcat (w.base, path, NULL);
}

static JsonObject *
double_state (void)
{
  g_autofree char *url = url_of ("/_state");
  Reply r = { 0 };
  JsonObject *obj;

  http ("GET", url, NULL, NULL, &r);
  g_assert_cmpuint (r.status, ==, 200);
  obj = ow_json_object_from_string (r.body, -1, NULL);
  g_assert_nonnull (obj);
  reply_clear (&r);
  return obj;
}

static gint64
double_count (const char *name)
{
  g_autoptr(JsonObject) st = double_state ();

  return ow_json_get_int (ow_json_get_object (st, "counts"), name, 0);
}

/* What the double issued last in @scenario (a token, "scope", …). */
static char *
double_last (const char *scenario, const char *what)
{
  g_autoptr(JsonObject) st = double_state ();
  JsonObject *last = ow_json_get_object (ow_json_get_object (st, "last"), scenario);

  return last != NULL ? g_strdup (ow_json_get_string (last, what)) : NULL;
}

static void
control (const char *scenario, const char *json)
{
  g_autofree char *path = g_strconcat ("/_control/", scenario, NULL);
  g_autofree char *url = url_of (path);
  Reply r = { 0 };

  http ("POST", url, NULL, json, &r);
  g_assert_cmpuint (r.status, ==, 200);
  reply_clear (&r);
}

static char *
resource_of (const char *scenario)
{
  g_autofree char *path = g_strconcat ("/mcp/", scenario, NULL);
  return url_of (path);
}

static char *
issuer_of (const char *scenario)
{
  g_autofree char *path = g_strconcat ("/as/", scenario, NULL);
  return url_of (path);
}

/* ---- The flow ----------------------------------------------------------- */

static OwOAuth *
new_oauth (void)
{
  OwOAuth *oauth = ow_oauth_new (w.http, w.secrets);

  ow_oauth_set_redirect_uri (oauth, REDIRECT);
  return oauth;
}

static char *
begin (OwOAuth *oauth, const char *resource, const char *www_authenticate, GError **error)
{
  g_autoptr(GAsyncResult) res = NULL;
  char *url;

  ow_oauth_begin_sign_in_async (oauth, resource, www_authenticate, NULL, on_result_cb, &res);
  url = ow_oauth_begin_sign_in_finish (oauth, wait_for (&res), error);
  if (error != NULL)
    seen (*error);
  return url;
}

typedef struct {
  char *state;
  char *code;
  char *iss;
  char *error;
} Redirect;

static void
redirect_clear (Redirect *r)
{
  g_free (r->state);
  g_free (r->code);
  g_free (r->iss);
  g_free (r->error);
}

/* Plays the browser: GET the authorization URL, read the redirect (and
 * keep it whole in @location when asked). */
static void
authorize_to (const char *auth_url, const char *redirect, Redirect *out, char **location)
{
  Reply r = { 0 };
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GHashTable) q = NULL;
  g_autofree char *prefix = g_strconcat (redirect, "?", NULL);

  http ("GET", auth_url, NULL, NULL, &r);
  if (r.status != 302)
    g_error ("the authorization server refused (%u): %s", r.status, r.body);
  g_assert_true (g_str_has_prefix (r.location, prefix));
  if (location != NULL)
    *location = g_strdup (r.location);
  uri = g_uri_parse (r.location, G_URI_FLAGS_NONE, NULL);
  q = g_uri_parse_params (g_uri_get_query (uri), -1, "&", G_URI_PARAMS_NONE, NULL);
  out->state = g_strdup (g_hash_table_lookup (q, "state"));
  out->code = g_strdup (g_hash_table_lookup (q, "code"));
  out->iss = g_strdup (g_hash_table_lookup (q, "iss"));
  out->error = g_strdup (g_hash_table_lookup (q, "error"));
  reply_clear (&r);
}

static void
authorize (const char *auth_url, Redirect *out)
{
  authorize_to (auth_url, REDIRECT, out, NULL);
}

static char *
complete (OwOAuth *oauth, const char *state, const char *code, const char *iss, GError **error)
{
  g_autoptr(GAsyncResult) res = NULL;
  char *resource;

  ow_oauth_complete_async (oauth, state, code, iss, NULL, NULL, on_result_cb, &res);
  resource = ow_oauth_complete_finish (oauth, wait_for (&res), error);
  if (error != NULL)
    seen (*error);
  return resource;
}

/* The whole sign-in as a person's browser would do it. */
static char *
sign_in (OwOAuth *oauth, const char *resource, const char *www_authenticate, GError **error)
{
  g_autofree char *auth_url = begin (oauth, resource, www_authenticate, error);
  Redirect rd = { 0 };
  char *done;

  if (auth_url == NULL)
    return NULL;
  authorize (auth_url, &rd);
  done = complete (oauth, rd.state, rd.code, rd.iss, error);
  redirect_clear (&rd);
  return done;
}

static char *
token (OwOAuth *oauth, const char *resource, GError **error)
{
  g_autoptr(GAsyncResult) res = NULL;
  char *t;

  ow_oauth_get_access_token_async (oauth, resource, NULL, on_result_cb, &res);
  t = ow_oauth_get_access_token_finish (oauth, wait_for (&res), error);
  if (error != NULL)
    seen (*error);
  return t;
}

/* GETs @resource without a token: the 401's WWW-Authenticate. */
static char *
challenge_of (const char *resource)
{
  Reply r = { 0 };
  char *h;

  http ("GET", resource, NULL, NULL, &r);
  g_assert_cmpuint (r.status, ==, 401);
  g_assert_nonnull (r.www_authenticate);
  h = g_steal_pointer (&r.www_authenticate);
  reply_clear (&r);
  return h;
}

static char *
stored (const char *scenario)
{
  g_autofree char *resource = resource_of (scenario);
  g_autofree char *issuer = issuer_of (scenario);
  g_autofree char *name = g_strconcat (issuer, " ", resource, NULL);
  g_autoptr(GError) error = NULL;
  char *v = ow_secret_store_lookup (w.secrets, OW_SECRET_KIND_OAUTH, name, NULL, &error);

  g_assert_no_error (error);
  return v;
}

static void
on_signal_count_cb (OwOAuth *oauth, const char *resource, gpointer user_data)
{
  GPtrArray *seen_resources = user_data;
  g_ptr_array_add (seen_resources, g_strdup (resource));
}

/* ---- Tests -------------------------------------------------------------- */

/* Discovery from the header, dynamic registration, the code flow, the
 * token on the resource; a second sign-in reuses the registration. */
static void
test_dcr (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("dcr");
  g_autofree char *hdr = challenge_of (resource);
  g_autoptr(GPtrArray) signed_in = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *done = NULL, *tok = NULL, *again = NULL, *asked = NULL, *kept = NULL;
  Reply r = { 0 };

  g_signal_connect (oauth, "signed-in", G_CALLBACK (on_signal_count_cb), signed_in);
  done = sign_in (oauth, resource, hdr, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (done, ==, resource);
  g_assert_cmpuint (signed_in->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (signed_in, 0), ==, resource);
  g_assert_cmpint (double_count ("register:dcr"), ==, 1);
  /* The header's scope, not the resource's whole list. */
  asked = double_last ("dcr", "asked_scope");
  g_assert_cmpstr (asked, ==, "read");

  tok = token (oauth, resource, &error);
  g_assert_no_error (error);
  http ("GET", resource, tok, NULL, &r);
  g_assert_cmpuint (r.status, ==, 200);
  reply_clear (&r);

  /* In the keyring, keyed by issuer and resource. */
  kept = stored ("dcr");
  g_assert_nonnull (kept);
  g_assert_nonnull (strstr (kept, tok));

  /* The registration is kept too: signing in again registers nothing. */
  again = sign_in (oauth, resource, hdr, &error);
  g_assert_no_error (error);
  g_assert_cmpint (double_count ("register:dcr"), ==, 1);
  g_assert_cmpint (double_count ("code:dcr"), ==, 2);
}

/* A client registered by hand (client_secret_basic). Without it the
 * server, which offers no registration, is refused with a sentence. */
static void
test_prereg (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("prereg");
  g_autofree char *hdr = challenge_of (resource);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL, *done = NULL, *tok = NULL;
  Reply r = { 0 };

  /* No resource_metadata in this header: the well-known URL is used. */
  g_assert_null (strstr (hdr, "resource_metadata"));
  url = begin (oauth, resource, hdr, &error);
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "client id"));
  g_clear_error (&error);

  ow_oauth_set_client (oauth, resource, "ow-pre-client", MARKER "-client-secret");
  done = sign_in (oauth, resource, hdr, &error);
  g_assert_no_error (error);
  /* No scope in the header: everything the resource's metadata lists. */
  {
    g_autofree char *asked = double_last ("prereg", "asked_scope");
    g_assert_cmpstr (asked, ==, "read write");
  }
  tok = token (oauth, resource, &error);
  g_assert_no_error (error);
  http ("GET", resource, tok, NULL, &r);
  g_assert_cmpuint (r.status, ==, 200);
  reply_clear (&r);
  g_assert_cmpint (double_count ("register:prereg"), ==, 0);
}

/* A client ID metadata document, fetched by the server itself. */
static void
test_cimd (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("cimd");
  g_autofree char *hdr = challenge_of (resource);
  g_autofree char *doc = url_of ("/clients/openworker.json");
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL, *done = NULL, *tok = NULL;
  Reply r = { 0 };

  url = begin (oauth, resource, hdr, &error);
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  control ("cimd", "{\"cimd_redirect\": \"" REDIRECT "\"}");
  ow_oauth_set_client_metadata_url (oauth, doc);
  done = sign_in (oauth, resource, hdr, &error);
  g_assert_no_error (error);
  tok = token (oauth, resource, &error);
  g_assert_no_error (error);
  http ("GET", resource, tok, NULL, &r);
  g_assert_cmpuint (r.status, ==, 200);
  reply_clear (&r);
}

/* Only OpenID Connect discovery, at the issuer's path. */
static void
test_oidc (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("oidc");
  g_autofree char *hdr = challenge_of (resource);
  g_autoptr(GError) error = NULL;
  g_autofree char *done = NULL, *tok = NULL, *issuer = NULL;
  g_autoptr(GAsyncResult) res = NULL;

  ow_oauth_discover_async (oauth, resource, hdr, NULL, on_result_cb, &res);
  issuer = ow_oauth_discover_finish (oauth, wait_for (&res), &error);
  g_assert_no_error (error);
  {
    g_autofree char *want = issuer_of ("oidc");
    g_assert_cmpstr (issuer, ==, want);
  }
  done = sign_in (oauth, resource, hdr, &error);
  g_assert_no_error (error);
  tok = token (oauth, resource, &error);
  g_assert_no_error (error);
  g_assert_nonnull (tok);
}

/* Metadata about another resource (RFC 9728 §3.3) or naming another
 * issuer (RFC 8414 §3.3) stops the sign-in before any registration; the
 * same steps succeed for a server whose metadata agrees (test_dcr). */
static void
test_metadata_mismatch (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  const struct { const char *scenario; int code; } cases[] = {
    { "resmismatch", OW_OAUTH_ERROR_DISCOVERY },
    { "issmismatch", OW_OAUTH_ERROR_ISSUER },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *resource = resource_of (cases[i].scenario);
      g_autofree char *hdr = challenge_of (resource);
      g_autoptr(GError) error = NULL;
      g_autofree char *url = begin (oauth, resource, hdr, &error);
      g_autofree char *counter = g_strconcat ("register:", cases[i].scenario, NULL);

      g_assert_null (url);
      g_assert_error (error, OW_OAUTH_ERROR, cases[i].code);
      g_assert_cmpint (double_count (counter), ==, 0);
    }
  {
    g_autofree char *resource = resource_of ("dcr");
    g_autofree char *hdr = challenge_of (resource);
    g_autoptr(GError) error = NULL;
    g_autofree char *url = begin (oauth, resource, hdr, &error);

    g_assert_no_error (error);
    g_assert_nonnull (url);
  }
}

/* A server listing PKCE methods without S256, or not mentioning PKCE at
 * all (the MCP spec reads that as no PKCE), is refused before any
 * browser opens; the same code signs in where S256 is listed. */
static void
test_no_s256 (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *good = resource_of ("dcr");
  g_autofree char *good_hdr = challenge_of (good);
  g_autoptr(GError) error = NULL;
  g_autofree char *good_url = NULL;
  const char *refused[] = { "nos256", "nopkce" };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *resource = resource_of (refused[i]);
      g_autofree char *hdr = challenge_of (resource);
      g_autofree char *url = begin (oauth, resource, hdr, &error);
      g_autofree char *counter = g_strconcat ("authorize:", refused[i], NULL);

      g_assert_null (url);
      g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_UNSUPPORTED);
      g_assert_nonnull (strstr (error->message, "S256"));
      g_assert_cmpint (double_count (counter), ==, 0);
      g_clear_error (&error);
    }

  good_url = begin (oauth, good, good_hdr, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (good_url, "code_challenge_method=S256"));
  g_assert_nonnull (strstr (good_url, "code_challenge="));
}

/* A redirect whose state OpenWorker did not make is refused; the real one
 * works, once. */
static void
test_state (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("dcr");
  g_autofree char *hdr = challenge_of (resource);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL, *bad = NULL, *good = NULL, *twice = NULL;
  Redirect rd = { 0 };

  url = begin (oauth, resource, hdr, &error);
  g_assert_no_error (error);
  authorize (url, &rd);
  g_assert_true (ow_oauth_is_pending (oauth, rd.state));
  g_assert_false (ow_oauth_is_pending (oauth, "forged-state"));

  bad = complete (oauth, "forged-state", rd.code, rd.iss, &error);
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_STATE);
  g_clear_error (&error);

  good = complete (oauth, rd.state, rd.code, rd.iss, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (good, ==, resource);

  twice = complete (oauth, rd.state, rd.code, rd.iss, &error);
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_STATE);
  redirect_clear (&rd);
}

/* RFC 9207: a wrong or missing iss where the server sends one is refused,
 * and so is a server whose redirect names another issuer; the right one
 * is accepted. */
static void
test_iss (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("dcr");
  g_autofree char *hdr = challenge_of (resource);
  g_autofree char *bad_res = resource_of ("badiss");
  g_autofree char *bad_hdr = challenge_of (bad_res);
  g_autofree char *issuer = issuer_of ("dcr");
  g_autoptr(GError) error = NULL;
  gint64 codes = double_count ("code:dcr");

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *url = begin (oauth, resource, hdr, &error);
      g_autofree char *done = NULL;
      Redirect rd = { 0 };

      g_assert_no_error (error);
      authorize (url, &rd);
      g_assert_cmpstr (rd.iss, ==, issuer);
      if (i == 0)
        done = complete (oauth, rd.state, rd.code, "http://127.0.0.1:1/as/evil", &error);
      else if (i == 1)
        done = complete (oauth, rd.state, rd.code, NULL, &error);
      else
        done = complete (oauth, rd.state, rd.code, rd.iss, &error);
      if (i < 2)
        {
          g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_ISSUER);
          g_clear_error (&error);
          /* Refused before the code was spent. */
          g_assert_cmpint (double_count ("code:dcr"), ==, codes);
        }
      else
        {
          g_assert_no_error (error);
          g_assert_cmpint (double_count ("code:dcr"), ==, codes + 1);
        }
      redirect_clear (&rd);
    }

  {
    g_autofree char *done = sign_in (oauth, bad_res, bad_hdr, &error);
    g_assert_null (done);
    g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_ISSUER);
    g_assert_cmpint (double_count ("code:badiss"), ==, 0);
  }
}

/* An expired access token is refreshed; the rotated refresh token is in
 * the keyring when the new access token is handed out, so a second
 * process (a restart) refreshes with it — the double refuses the first
 * one, used. Two callers at once share one refresh. */
static void
test_refresh_rotation (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("dcr");
  g_autofree char *hdr = challenge_of (resource);
  g_autoptr(GError) error = NULL;
  g_autofree char *done = NULL, *at1 = NULL, *rt1 = NULL, *at2 = NULL, *rt2 = NULL, *kept = NULL;
  gint64 refreshes;

  /* Tokens that expire inside the safety margin count as expired at once. */
  control ("dcr", "{\"expires_in\": 1}");
  done = sign_in (oauth, resource, hdr, &error);
  g_assert_no_error (error);
  at1 = double_last ("dcr", "access_token");
  rt1 = double_last ("dcr", "refresh_token");
  refreshes = double_count ("refresh:dcr");

  at2 = token (oauth, resource, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (at2, !=, at1);
  g_assert_cmpint (double_count ("refresh:dcr"), ==, refreshes + 1);
  rt2 = double_last ("dcr", "refresh_token");
  g_assert_cmpstr (rt2, !=, rt1);
  {
    g_autofree char *last_at = double_last ("dcr", "access_token");
    g_assert_cmpstr (at2, ==, last_at);
  }
  kept = stored ("dcr");
  g_assert_nonnull (strstr (kept, rt2));
  g_assert_null (strstr (kept, rt1));

  /* A restart: a new OwOAuth reads the keyring and refreshes with rt2. */
  {
    g_autoptr(OwOAuth) later = new_oauth ();
    g_autofree char *at3 = token (later, resource, &error);
    g_autoptr(JsonObject) st = NULL;
    JsonArray *errors;

    g_assert_no_error (error);
    g_assert_nonnull (at3);
    g_assert_cmpint (double_count ("refresh:dcr"), ==, refreshes + 2);
    st = double_state ();
    errors = ow_json_get_array (st, "errors");
    for (guint i = 0; i < json_array_get_length (errors); i++)
      g_assert_null (strstr (json_array_get_string_element (errors, i), "already used"));
  }

  /* The first instance's cache still holds rt2, which the restart used
   * up: it reads the keyring again before refreshing and takes the newer
   * credential instead of spending a used token. */
  {
    g_autofree char *t = NULL;
    gint64 before = double_count ("refresh:dcr");

    t = token (oauth, resource, &error);
    g_assert_no_error (error);
    g_assert_cmpint (double_count ("refresh:dcr"), ==, before + 1);
  }

  /* Two at once: one refresh, both get the same new token. */
  {
    g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL;
    g_autofree char *a = NULL, *b = NULL;
    gint64 before;

    ow_oauth_invalidate (oauth, resource);
    before = double_count ("refresh:dcr");
    ow_oauth_get_access_token_async (oauth, resource, NULL, on_result_cb, &r1);
    ow_oauth_get_access_token_async (oauth, resource, NULL, on_result_cb, &r2);
    a = ow_oauth_get_access_token_finish (oauth, wait_for (&r1), &error);
    g_assert_no_error (error);
    b = ow_oauth_get_access_token_finish (oauth, wait_for (&r2), &error);
    g_assert_no_error (error);
    g_assert_cmpstr (a, ==, b);
    g_assert_cmpint (double_count ("refresh:dcr"), ==, before + 1);
  }

  /* A fresh token is not refreshed (positive control for "expired"). */
  control ("dcr", "{\"expires_in\": 3600}");
  {
    g_autofree char *d2 = sign_in (oauth, resource, hdr, &error);
    g_autofree char *t1 = NULL, *t2 = NULL;
    gint64 before = double_count ("refresh:dcr");

    g_assert_no_error (error);
    g_assert_nonnull (d2);
    t1 = token (oauth, resource, &error);
    g_assert_no_error (error);
    t2 = token (oauth, resource, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (t1, ==, t2);
    g_assert_cmpint (double_count ("refresh:dcr"), ==, before);
  }
}

/* invalid_grant on refresh deletes the credential and says "sign in
 * again" once; before the revocation the same refresh works. */
static void
test_invalid_grant (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("prereg");
  g_autofree char *hdr = challenge_of (resource);
  g_autoptr(GPtrArray) required = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *done = NULL, *t1 = NULL, *t2 = NULL, *t3 = NULL, *kept = NULL;
  gint64 refreshes;

  g_signal_connect (oauth, "sign-in-required", G_CALLBACK (on_signal_count_cb), required);
  ow_oauth_set_client (oauth, resource, "ow-pre-client", MARKER "-client-secret");
  done = sign_in (oauth, resource, hdr, &error);
  g_assert_no_error (error);

  /* Positive control: a refresh before the revocation works. */
  ow_oauth_invalidate (oauth, resource);
  t1 = token (oauth, resource, &error);
  g_assert_no_error (error);
  refreshes = double_count ("refresh:prereg");

  control ("prereg", "{\"revoke\": true}");
  ow_oauth_invalidate (oauth, resource);
  t2 = token (oauth, resource, &error);
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_SIGN_IN_REQUIRED);
  g_assert_nonnull (strstr (error->message, "sign in again"));
  g_clear_error (&error);
  g_assert_cmpuint (required->len, ==, 1);
  g_assert_cmpint (double_count ("refresh:prereg"), ==, refreshes + 1);

  /* Deleted from the keyring (the delete runs in a worker: wait for it
   * through the store's own queue by asking again). */
  t3 = token (oauth, resource, &error);
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_SIGN_IN_REQUIRED);
  g_clear_error (&error);
  g_assert_cmpuint (required->len, ==, 1);
  g_assert_cmpint (double_count ("refresh:prereg"), ==, refreshes + 1);
  kept = stored ("prereg");
  g_assert_null (kept);
  control ("prereg", "{\"revoke\": false}");
}

/* Signing out forgets the credential in memory and in the keyring; the
 * token worked just before. */
static void
test_sign_out (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autofree char *resource = resource_of ("oidc");
  g_autofree char *hdr = challenge_of (resource);
  g_autoptr(GError) error = NULL;
  g_autofree char *done = sign_in (oauth, resource, hdr, &error);
  g_autofree char *tok = NULL, *after = NULL, *kept = NULL;
  g_autoptr(GAsyncResult) res = NULL;
  int n;

  g_assert_no_error (error);
  g_assert_nonnull (done);
  tok = token (oauth, resource, &error);
  g_assert_no_error (error);
  g_assert_nonnull (tok);

  ow_oauth_sign_out_async (oauth, resource, NULL, on_result_cb, &res);
  n = ow_oauth_sign_out_finish (oauth, wait_for (&res), &error);
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, 1);
  kept = stored ("oidc");
  g_assert_null (kept);
  after = token (oauth, resource, &error);
  g_assert_null (after);
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_SIGN_IN_REQUIRED);
}

/* 403 insufficient_scope: one step-up that the server grants reaches the
 * resource; a resource that keeps asking is refused after
 * OW_OAUTH_MAX_STEP_UPS. */
static void
test_step_up (void)
{
  g_autoptr(OwOAuth) oauth = new_oauth ();
  g_autoptr(GError) error = NULL;

  {
    g_autofree char *resource = resource_of ("stepup");
    g_autofree char *hdr = challenge_of (resource);
    g_autofree char *done = sign_in (oauth, resource, hdr, &error);
    g_autofree char *tok = NULL, *tok2 = NULL, *asked = NULL;
    Reply r = { 0 };

    g_assert_no_error (error);
    g_assert_nonnull (done);
    tok = token (oauth, resource, &error);
    g_assert_no_error (error);
    http ("GET", resource, tok, NULL, &r);
    g_assert_cmpuint (r.status, ==, 403);
    g_assert_nonnull (strstr (r.www_authenticate, "insufficient_scope"));
    {
      g_autofree char *again = sign_in (oauth, resource, r.www_authenticate, &error);
      g_assert_no_error (error);
      g_assert_nonnull (again);
    }
    reply_clear (&r);
    asked = double_last ("stepup", "asked_scope");
    g_assert_cmpstr (asked, ==, "read write");
    tok2 = token (oauth, resource, &error);
    g_assert_no_error (error);
    http ("GET", resource, tok2, NULL, &r);
    g_assert_cmpuint (r.status, ==, 200);
    reply_clear (&r);
  }

  {
    g_autofree char *resource = resource_of ("greedy");
    g_autofree char *hdr = challenge_of (resource);
    g_autofree char *done = sign_in (oauth, resource, hdr, &error);
    guint step_ups = 0;

    g_assert_no_error (error);
    g_assert_nonnull (done);
    for (;;)
      {
        g_autofree char *tok = token (oauth, resource, &error);
        g_autofree char *again = NULL;
        Reply r = { 0 };

        g_assert_no_error (error);
        http ("GET", resource, tok, NULL, &r);
        g_assert_cmpuint (r.status, ==, 403);
        again = sign_in (oauth, resource, r.www_authenticate, &error);
        reply_clear (&r);
        if (again == NULL)
          break;
        step_ups++;
        g_assert_cmpuint (step_ups, <=, OW_OAUTH_MAX_STEP_UPS);
      }
    g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_STEP_UP_LIMIT);
    g_assert_cmpuint (step_ups, ==, OW_OAUTH_MAX_STEP_UPS);
    g_assert_cmpint (double_count ("authorize:greedy"), ==, 1 + OW_OAUTH_MAX_STEP_UPS);
  }
}

/* The redirect through the loopback API: GET /v1/oauth/callback, with no
 * OpenWorker token, completes the pending sign-in; a state nobody is
 * waiting for (a forged one, or the same redirect again) is refused
 * before any token request. */
static void
test_callback_route (void)
{
  g_autofree char *tmpl = g_build_filename (g_getenv ("HOME"), "srv-XXXXXX", NULL);
  g_autofree char *dir = g_mkdtemp_full (g_steal_pointer (&tmpl), 0700);
  OwPaths *paths = ow_paths_new_under (dir);
  OwContextOptions copts = { .paths = paths, .isolated = TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(OwContext) ctx = ow_context_new (&copts, &error);
  g_autoptr(OwSessionHost) host = NULL;
  OwServerOptions sopts = { .secrets = w.secrets };
  g_autoptr(OwServer) server = NULL;
  g_autoptr(OwOAuth) oauth = ow_oauth_new (w.http, w.secrets);
  g_autoptr(GPtrArray) signed_in = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *resource = resource_of ("dcr");
  g_autofree char *hdr = challenge_of (resource);
  g_autofree char *auth_url = NULL, *location = NULL, *forged = NULL, *tok = NULL, *callback = NULL;
  Redirect rd = { 0 };
  Reply r = { 0 };
  gint64 codes;

  g_assert_no_error (error);
  host = ow_session_host_new (ctx, "test", &error);
  g_assert_no_error (error);
  server = ow_server_new (host, &sopts);
  ow_server_set_oauth (server, oauth);
  g_assert_true (ow_server_listen (server, 0, 1, &error));
  g_assert_no_error (error);
  callback = g_strdup_printf ("http://127.0.0.1:%u/v1/oauth/callback", ow_server_get_port (server));
  g_assert_cmpstr (ow_oauth_get_redirect_uri (oauth), ==, callback);
  g_signal_connect (oauth, "signed-in", G_CALLBACK (on_signal_count_cb), signed_in);

  auth_url = begin (oauth, resource, hdr, &error);
  g_assert_no_error (error);
  authorize_to (auth_url, callback, &rd, &location);
  codes = double_count ("code:dcr");

  /* A state OwOAuth did not make. */
  forged = g_strdup_printf ("%s?code=%s&state=forged-state", callback, rd.code);
  http ("GET", forged, NULL, NULL, &r);
  g_assert_cmpuint (r.status, ==, 400);
  g_assert_nonnull (strstr (r.body, "not waiting for this sign-in"));
  g_assert_null (strstr (r.body, MARKER));
  reply_clear (&r);
  g_assert_cmpint (double_count ("code:dcr"), ==, codes);
  g_assert_cmpuint (signed_in->len, ==, 0);

  /* The real redirect, as the browser follows it. */
  http ("GET", location, NULL, NULL, &r);
  g_assert_cmpuint (r.status, ==, 200);
  g_assert_nonnull (strstr (r.body, "Signed in"));
  g_assert_cmpstr (r.www_authenticate, ==, NULL);
  reply_clear (&r);
  g_assert_cmpuint (signed_in->len, ==, 1);
  g_assert_cmpint (double_count ("code:dcr"), ==, codes + 1);
  tok = token (oauth, resource, &error);
  g_assert_no_error (error);
  http ("GET", resource, tok, NULL, &r);
  g_assert_cmpuint (r.status, ==, 200);
  reply_clear (&r);

  /* The same redirect again: the state is used up. */
  http ("GET", location, NULL, NULL, &r);
  g_assert_cmpuint (r.status, ==, 400);
  reply_clear (&r);
  g_assert_cmpint (double_count ("code:dcr"), ==, codes + 1);

  redirect_clear (&rd);
  ow_server_close (server);
  ow_paths_free (paths);
}

/* One OwOAuth per context, the one its server's callback completes; an
 * isolated context has none (it keeps no tokens). */
static void
test_context (void)
{
  g_autofree char *tmpl = g_build_filename (g_getenv ("HOME"), "ctx-XXXXXX", NULL);
  g_autofree char *dir = g_mkdtemp_full (g_steal_pointer (&tmpl), 0700);
  OwPaths *paths = ow_paths_new_under (dir);
  g_autoptr(GError) error = NULL;
  OwContextOptions iso = { .paths = paths, .isolated = TRUE, .secrets = w.secrets };
  OwContextOptions real = { .paths = paths, .secrets = w.secrets };
  g_autoptr(OwContext) isolated = ow_context_new (&iso, &error);
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwSessionHost) host = NULL;
  g_autoptr(OwServer) server = NULL;
  g_autofree char *callback = NULL;
  OwOAuth *oauth;

  g_assert_no_error (error);
  g_assert_null (ow_context_get_oauth (isolated));

  ctx = ow_context_new (&real, &error);
  g_assert_no_error (error);
  oauth = ow_context_get_oauth (ctx);
  g_assert_nonnull (oauth);
  g_assert_true (ow_context_get_oauth (ctx) == oauth);
  host = ow_session_host_new (ctx, "test", &error);
  g_assert_no_error (error);
  server = ow_server_new (host, NULL);
  g_assert_true (ow_server_listen (server, 0, 1, &error));
  callback = g_strdup_printf ("http://127.0.0.1:%u/v1/oauth/callback", ow_server_get_port (server));
  g_assert_cmpstr (ow_oauth_get_redirect_uri (oauth), ==, callback);
  ow_server_close (server);
  ow_paths_free (paths);
}

/* The refusals of the double come back as sentences without its secrets;
 * every log line and error message of the run is free of them. The
 * positive control: the log did capture this module's lines, and the
 * double did issue marked tokens. */
static void
test_no_secrets_in_logs (void)
{
  g_autofree char *issued = double_last ("dcr", "access_token");

  g_assert_nonnull (issued);
  g_assert_nonnull (strstr (issued, MARKER));
  g_assert_nonnull (strstr (w.log->str, "ow-oauth"));
  g_assert_cmpuint (w.errors->len, >, 5);
  g_assert_null (strstr (w.log->str, MARKER));
  for (guint i = 0; i < w.errors->len; i++)
    {
      const char *m = g_ptr_array_index (w.errors, i);
      if (strstr (m, MARKER) != NULL)
        g_error ("an error message carries a secret: %s", m);
    }
}

/* ---- Set-up ------------------------------------------------------------- */

static void
start_double (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "oauth", "oauth-double.py", NULL);
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  w.double_proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                    "python3", script, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (w.double_proc));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  w.base = g_strconcat ("http://127.0.0.1:", line, NULL);
}

static void
stop_double (void)
{
  g_autoptr(GError) error = NULL;

  /* Closing its stdin ends it. */
  g_output_stream_close (g_subprocess_get_stdin_pipe (w.double_proc), NULL, NULL);
  g_subprocess_wait (w.double_proc, NULL, &error);
  g_assert_no_error (error);
  g_clear_object (&w.double_proc);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("OW_KEYRING_SESSION") == NULL)
    {
      g_printerr ("test-oauth runs inside tests/secrets/keyring-session.py\n");
      return 1;
    }
  w.log = g_string_new (NULL);
  w.errors = g_ptr_array_new_with_free_func (g_free);
  g_setenv ("G_MESSAGES_DEBUG", "all", TRUE);
  g_log_set_writer_func (log_writer, NULL, NULL);

  start_double ();
  w.http = ow_http_client_new ();
  w.secrets = ow_secret_libsecret_new ();

  g_test_add_func ("/ow/oauth/dcr", test_dcr);
  g_test_add_func ("/ow/oauth/prereg", test_prereg);
  g_test_add_func ("/ow/oauth/cimd", test_cimd);
  g_test_add_func ("/ow/oauth/oidc", test_oidc);
  g_test_add_func ("/ow/oauth/metadata-mismatch", test_metadata_mismatch);
  g_test_add_func ("/ow/oauth/no-s256", test_no_s256);
  g_test_add_func ("/ow/oauth/state", test_state);
  g_test_add_func ("/ow/oauth/iss", test_iss);
  g_test_add_func ("/ow/oauth/refresh-rotation", test_refresh_rotation);
  g_test_add_func ("/ow/oauth/invalid-grant", test_invalid_grant);
  g_test_add_func ("/ow/oauth/step-up", test_step_up);
  g_test_add_func ("/ow/oauth/sign-out", test_sign_out);
  g_test_add_func ("/ow/oauth/callback-route", test_callback_route);
  g_test_add_func ("/ow/oauth/context", test_context);
  g_test_add_func ("/ow/oauth/no-secrets-in-logs", test_no_secrets_in_logs);
  rc = g_test_run ();

  g_clear_object (&w.secrets);
  g_clear_object (&w.http);
  stop_double ();
  g_free (w.base);
  g_string_free (w.log, TRUE);
  g_ptr_array_unref (w.errors);
  return rc;
}
