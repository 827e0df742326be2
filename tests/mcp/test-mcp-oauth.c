/* test-mcp-oauth.c: an OAuth-protected HTTP MCP server, signed in to
 * through the engine's own code (mcp/ow-mcp-auth.c over net/ow-oauth.c).
 *
 * The other side is mcp-oauth-double.py: tests/oauth/oauth-double.py as
 * the authorization server (it checks PKCE, resource, redirect URI and
 * refresh rotation for real) plus an MCP server at each scenario's
 * resource that answers only a bearer token issued for it. The "browser"
 * is a GET of the authorization URL whose 302 Location is the redirect;
 * its parameters go to ow_oauth_complete_async(), as the loopback
 * callback route does. Every token the double issues carries a marker;
 * no log line, error or last-error may contain it.
 */
#include <string.h>

#include "mcp/ow-mcp-auth.h"
#include "mcp/ow-mcp-client.h"
#include "net/ow-http-client.h"
#include "net/ow-oauth.h"
#include "ow-error.h"
#include "ow-json.h"
#include "store/ow-secret-store.h"

#define MARKER "owtest-secret-Zq8"
#define REDIRECT "http://127.0.0.1:9/callback"

typedef struct {
  GSubprocess   *double_proc;
  char          *base;      /* http://127.0.0.1:PORT */
  OwHttpClient  *http;
  GString       *log;       /* every log line */
  GPtrArray     *errors;    /* every error message and last-error seen */
} World;

static World w;

static GLogWriterOutput
log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (strcmp (fields[i].key, "MESSAGE") == 0)
      g_string_append_len (w.log, fields[i].value,
                           fields[i].length < 0 ? (gssize) strlen (fields[i].value) : fields[i].length);
  g_string_append_c (w.log, '\n');
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    return g_log_writer_default (level, fields, n_fields, user_data);
  return G_LOG_WRITER_HANDLED;
}

static void
seen (const char *text)
{
  if (text != NULL)
    g_ptr_array_add (w.errors, g_strdup (text));
}

static void
on_result_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_for (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

static gboolean
on_timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Spins until @client has @status (at most 20 s). */
static void
wait_status (OwMcpClient *client, OwMcpStatus status)
{
  gboolean late = FALSE;
  guint id = g_timeout_add (20000, on_timeout_cb, &late);

  while (ow_mcp_client_get_status (client) != status && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, status);
}

/* ---- The double --------------------------------------------------------- */

static char *
http_do (const char *method, const char *path_or_url, guint *status, char **location)
{
  g_autofree char *url = g_str_has_prefix (path_or_url, "http") ? g_strdup (path_or_url)
                                                                 : g_strconcat (w.base, path_or_url, NULL);
  g_autoptr(OwHttpRequest) req = ow_http_request_new (method, url);
  g_autoptr(GAsyncResult) res = NULL;
  g_autoptr(OwHttpResponse) resp = NULL;
  g_autoptr(GError) error = NULL;
  GBytes *body;

  if (g_str_equal (method, "POST"))
    {
      g_autoptr(GBytes) b = g_bytes_new_static ("{}", 2);
      ow_http_request_set_body (req, b, "application/json");
    }
  ow_http_client_send_async (w.http, req, NULL, NULL, NULL, NULL, on_result_cb, &res);
  resp = ow_http_client_send_finish (w.http, wait_for (&res), &error);
  g_assert_no_error (error);
  if (status != NULL)
    *status = ow_http_response_get_status (resp);
  if (location != NULL)
    *location = g_strdup (ow_http_response_get_header (resp, "Location"));
  body = ow_http_response_get_body (resp);
  return g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));
}

static gint64
double_count (const char *name)
{
  g_autofree char *text = http_do ("GET", "/_state", NULL, NULL);
  g_autoptr(JsonObject) st = ow_json_object_from_string (text, -1, NULL);

  return ow_json_get_int (ow_json_get_object (st, "counts"), name, 0);
}

static gint64
mcp_seen (const char *what)
{
  g_autofree char *text = http_do ("GET", "/_mcp_state", NULL, NULL);
  g_autoptr(JsonObject) st = ow_json_object_from_string (text, -1, NULL);

  return ow_json_get_int (st, what, -1);
}

static void
post (const char *path, const char *json)
{
  g_autofree char *url = g_strconcat (w.base, path, NULL);
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("POST", url);
  g_autoptr(GBytes) b = g_bytes_new (json, strlen (json));
  g_autoptr(GAsyncResult) res = NULL;
  g_autoptr(OwHttpResponse) resp = NULL;
  g_autoptr(GError) error = NULL;

  ow_http_request_set_body (req, b, "application/json");
  ow_http_client_send_async (w.http, req, NULL, NULL, NULL, NULL, on_result_cb, &res);
  resp = ow_http_client_send_finish (w.http, wait_for (&res), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ow_http_response_get_status (resp), ==, 200);
}

/* ---- The pieces --------------------------------------------------------- */

static OwMcpClient *
new_client (const char *scenario, OwOAuth *oauth)
{
  g_autoptr(OwMcpServerConfig) config = ow_mcp_server_config_new (scenario);
  OwMcpClient *client;

  config->transport = OW_MCP_TRANSPORT_HTTP;
  config->url = g_strdup_printf ("%s/mcp/%s", w.base, scenario);
  client = ow_mcp_client_new (config);
  g_assert_nonnull (ow_mcp_auth_attach (client, oauth));
  return client;
}

static OwOAuth *
new_oauth (OwSecretStore *secrets)
{
  OwOAuth *oauth = ow_oauth_new (w.http, secrets);

  ow_oauth_set_redirect_uri (oauth, REDIRECT);
  return oauth;
}

static gboolean
start (OwMcpClient *client)
{
  g_autoptr(GAsyncResult) res = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  ow_mcp_start_async (client, NULL, on_result_cb, &res);
  ok = ow_mcp_start_finish (client, wait_for (&res), &error);
  if (!ok)
    seen (error->message);
  seen (ow_mcp_client_get_last_error (client));
  return ok;
}

/* A person approves in the browser; the redirect is completed. */
static void
sign_in (OwMcpClient *client, OwOAuth *oauth)
{
  OwMcpAuth *auth = ow_mcp_auth_get (client);
  g_autoptr(GAsyncResult) res = NULL;
  g_autoptr(GAsyncResult) done = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *location = NULL;
  g_autofree char *body = NULL;
  g_autofree char *resource = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GHashTable) q = NULL;
  guint status = 0;

  g_assert_true (ow_mcp_auth_get_needs_sign_in (auth));
  ow_mcp_auth_sign_in_async (auth, NULL, on_result_cb, &res);
  url = ow_mcp_auth_sign_in_finish (auth, wait_for (&res), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ow_mcp_auth_get_authorization_url (auth), ==, url);
  body = http_do ("GET", url, &status, &location);
  g_assert_cmpuint (status, ==, 302);
  uri = g_uri_parse (location, G_URI_FLAGS_ENCODED_QUERY, NULL);
  g_assert_nonnull (uri);
  q = g_uri_parse_params (g_uri_get_query (uri), -1, "&", G_URI_PARAMS_NONE, NULL);
  g_assert_true (ow_oauth_is_pending (oauth, g_hash_table_lookup (q, "state")));
  ow_oauth_complete_async (oauth, g_hash_table_lookup (q, "state"), g_hash_table_lookup (q, "code"),
                           g_hash_table_lookup (q, "iss"), NULL, NULL, on_result_cb, &done);
  resource = ow_oauth_complete_finish (oauth, wait_for (&done), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resource, ==, ow_mcp_auth_get_resource (auth));
  g_assert_null (ow_mcp_auth_get_authorization_url (auth));
}

static char *
call_whoami (OwMcpClient *client)
{
  g_autoptr(GAsyncResult) res = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwMcpCallResult) r = NULL;

  ow_mcp_client_call_tool_async (client, "whoami", NULL, NULL, NULL, NULL, NULL, on_result_cb, &res);
  r = ow_mcp_client_call_tool_finish (client, wait_for (&res), &error);
  if (r == NULL)
    {
      seen (error->message);
      return NULL;
    }
  g_assert_cmpuint (r->content->len, ==, 1);
  return g_strdup (((OwMcpContent *) g_ptr_array_index (r->content, 0))->text);
}

/* ---- Tests -------------------------------------------------------------- */

/* 401 → discovery → the authorization URL → complete → "signed-in"
 * connects the waiting client, live, and it lists the tools. */
static void
test_sign_in (void)
{
  g_autoptr(OwSecretStore) secrets = ow_secret_store_memory_new ();
  g_autoptr(OwOAuth) oauth = new_oauth (secrets);
  g_autoptr(OwMcpClient) client = new_client ("dcr", oauth);
  g_autoptr(GPtrArray) tools = NULL;
  g_autofree char *text = NULL;
  gint64 no_token = mcp_seen ("no_token");

  g_assert_false (start (client));
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_AUTH_REQUIRED);
  g_assert_true (ow_mcp_auth_get_needs_sign_in (ow_mcp_auth_get (client)));
  g_assert_cmpint (mcp_seen ("no_token"), ==, no_token + 1);
  g_assert_nonnull (strstr (ow_mcp_client_get_auth_challenge (client), "resource_metadata="));

  sign_in (client, oauth);
  /* Nobody calls start again: the signed-in signal does it. */
  wait_status (client, OW_MCP_STATUS_READY);
  g_assert_false (ow_mcp_auth_get_needs_sign_in (ow_mcp_auth_get (client)));
  tools = ow_mcp_client_get_tools (client);
  g_assert_cmpuint (tools->len, ==, 1);
  g_assert_cmpstr (((OwMcpTool *) g_ptr_array_index (tools, 0))->name, ==, "whoami");
  text = call_whoami (client);
  g_assert_cmpstr (text, ==, "scope: read");
  ow_mcp_client_stop (client);
}

/* An expired token is refreshed before connecting (rotation checked by
 * the double); the client never sends the expired one. */
static void
test_refresh (void)
{
  g_autoptr(OwSecretStore) secrets = ow_secret_store_memory_new ();
  g_autoptr(OwOAuth) oauth = new_oauth (secrets);
  g_autoptr(OwMcpClient) client = new_client ("dcr", oauth);
  gint64 refreshes, bad;

  post ("/_control/dcr", "{\"expires_in\": 1}");
  g_assert_false (start (client));
  sign_in (client, oauth);
  wait_status (client, OW_MCP_STATUS_READY);
  ow_mcp_client_stop (client);
  post ("/_control/dcr", "{\"expires_in\": 3600}");

  /* The token the sign-in gave is now past its lifetime. */
  g_usleep (1500 * 1000);
  refreshes = double_count ("refresh:dcr");
  bad = mcp_seen ("bad_token");
  g_assert_true (start (client));
  g_assert_cmpint (double_count ("refresh:dcr"), ==, refreshes + 1);
  g_assert_cmpint (mcp_seen ("bad_token"), ==, bad);
  ow_mcp_client_stop (client);
}

/* The resource stops accepting the token in the middle of a session: the
 * 401 to a token invalidates it, one refresh, one reconnection, and the
 * next call works (the positive control). When the grant itself was
 * revoked the refresh gets invalid_grant: the client is AUTH_REQUIRED and
 * waits for a person, and a new sign-in brings it back live. */
static void
test_revoked (void)
{
  g_autoptr(OwSecretStore) secrets = ow_secret_store_memory_new ();
  g_autoptr(OwOAuth) oauth = new_oauth (secrets);
  g_autoptr(OwMcpClient) client = new_client ("dcr", oauth);
  OwMcpAuth *auth;
  g_autofree char *first = NULL;
  g_autofree char *again = NULL;
  g_autofree char *after = NULL;
  char *refused;
  gint64 refreshes;

  g_assert_false (start (client));
  auth = ow_mcp_auth_get (client);
  sign_in (client, oauth);
  wait_status (client, OW_MCP_STATUS_READY);
  first = call_whoami (client);
  g_assert_cmpstr (first, ==, "scope: read");

  /* Positive control: the access token is revoked, the grant is not. */
  refreshes = double_count ("refresh:dcr");
  post ("/_revoke/dcr", "{}");
  g_assert_null (call_whoami (client));
  wait_status (client, OW_MCP_STATUS_AUTH_REQUIRED);
  wait_status (client, OW_MCP_STATUS_READY);
  g_assert_false (ow_mcp_auth_get_needs_sign_in (auth));
  g_assert_cmpint (double_count ("refresh:dcr"), ==, refreshes + 1);
  again = call_whoami (client);
  g_assert_cmpstr (again, ==, "scope: read");

  /* Now the grant too: the refresh is refused. */
  post ("/_control/dcr", "{\"revoke\": true}");
  post ("/_revoke/dcr", "{}");
  refused = call_whoami (client);
  g_assert_null (refused);
  wait_status (client, OW_MCP_STATUS_AUTH_REQUIRED);
  while (!ow_mcp_auth_get_needs_sign_in (auth))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (double_count ("refresh:dcr"), ==, refreshes + 2);
  seen (ow_mcp_client_get_last_error (client));
  post ("/_control/dcr", "{\"revoke\": false}");

  /* A new sign-in reconnects it without a restart. */
  sign_in (client, oauth);
  wait_status (client, OW_MCP_STATUS_READY);
  after = call_whoami (client);
  g_assert_cmpstr (after, ==, "scope: read");
  ow_mcp_client_stop (client);
}

/* 403 insufficient_scope after the first sign-in: a step-up, whose
 * sign-in asks for the scope the 403 named. */
static void
test_step_up (void)
{
  g_autoptr(OwSecretStore) secrets = ow_secret_store_memory_new ();
  g_autoptr(OwOAuth) oauth = new_oauth (secrets);
  g_autoptr(OwMcpClient) client = new_client ("stepup", oauth);
  OwMcpAuth *auth;
  g_autofree char *text = NULL;

  g_assert_false (start (client));
  auth = ow_mcp_auth_get (client);
  sign_in (client, oauth);
  /* The reconnection meets a 403: a person has to grant more. */
  while (!(ow_mcp_client_get_status (client) == OW_MCP_STATUS_AUTH_REQUIRED
           && ow_mcp_client_get_auth_challenge (client) != NULL
           && strstr (ow_mcp_client_get_auth_challenge (client), "insufficient_scope") != NULL))
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (ow_mcp_auth_get_needs_sign_in (auth));
  sign_in (client, oauth);
  wait_status (client, OW_MCP_STATUS_READY);
  text = call_whoami (client);
  g_assert_cmpstr (text, ==, "scope: read write");
  ow_mcp_client_stop (client);
}

/* Runs last: no token, code or secret of the double in any log line or
 * error message of the whole run (and the run did log: a positive control). */
static void
test_no_secrets (void)
{
  g_assert_nonnull (strstr (w.log->str, "needs a sign-in"));
  g_assert_null (strstr (w.log->str, MARKER));
  g_assert_cmpuint (w.errors->len, >, 0);
  for (guint i = 0; i < w.errors->len; i++)
    g_assert_null (strstr (g_ptr_array_index (w.errors, i), MARKER));
}

static void
start_double (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  w.double_proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                    "python3", g_getenv ("OW_MCP_OAUTH_DOUBLE"), NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (w.double_proc));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  w.base = g_strdup_printf ("http://127.0.0.1:%s", g_strstrip (line));
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  w.log = g_string_new (NULL);
  w.errors = g_ptr_array_new_with_free_func (g_free);
  g_setenv ("G_MESSAGES_DEBUG", "all", TRUE);
  g_log_set_writer_func (log_writer, NULL, NULL);
  start_double ();
  w.http = ow_http_client_new ();

  g_test_add_func ("/ow/mcp/oauth/sign-in", test_sign_in);
  g_test_add_func ("/ow/mcp/oauth/refresh", test_refresh);
  g_test_add_func ("/ow/mcp/oauth/revoked", test_revoked);
  g_test_add_func ("/ow/mcp/oauth/step-up", test_step_up);
  g_test_add_func ("/ow/mcp/oauth/no-secrets", test_no_secrets);
  rc = g_test_run ();

  g_output_stream_close (g_subprocess_get_stdin_pipe (w.double_proc), NULL, NULL);
  g_subprocess_wait (w.double_proc, NULL, NULL);
  g_clear_object (&w.double_proc);
  g_clear_object (&w.http);
  return rc;
}
