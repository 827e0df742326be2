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
#include "mcp/ow-mcp-provider.h"
#include "net/ow-http-client.h"
#include "net/ow-oauth.h"
#include "ow-error.h"
#include "ow-json.h"
#include "ow-test-utils.h"
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
  OW_TEST_WAIT_UNTIL (*slot != NULL);
  return *slot;
}

/* Iterates until @client has @status. */
static void
wait_status (OwMcpClient *client, OwMcpStatus status)
{
  OW_TEST_WAIT_UNTIL (ow_mcp_client_get_status (client) == status);
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
  OW_TEST_WAIT_UNTIL (ow_mcp_auth_get_needs_sign_in (auth));
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

/* Through the tool seam: a call the server refuses because it stopped
 * taking the token (the token expired or was revoked) is not lost: the
 * token is refreshed, the client reconnects, and the call is sent once
 * more; the model sees the answer. When the grant is gone too, the model
 * sees an error that says a sign-in is needed (the refusal). */
static void
test_tool_retry (void)
{
  g_autoptr(OwSecretStore) secrets = ow_secret_store_memory_new ();
  g_autoptr(OwOAuth) oauth = new_oauth (secrets);
  g_autoptr(OwMcpClient) client = new_client ("dcr", oauth);
  g_autoptr(OwMcpProvider) provider = ow_mcp_provider_new (client);
  g_autoptr(OwTool) tool = NULL;
  OwToolContext ctx = { 0 };
  gint64 refreshes;

  g_assert_false (start (client));
  sign_in (client, oauth);
  wait_status (client, OW_MCP_STATUS_READY);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (provider)), ==, 1);
  tool = g_list_model_get_item (G_LIST_MODEL (provider), 0);

  for (int round = 0; round < 2; round++)
    {
      g_autoptr(GAsyncResult) res = NULL;
      g_autoptr(OwToolResult) r = NULL;
      g_autoptr(GError) error = NULL;

      refreshes = double_count ("refresh:dcr");
      if (round == 1)
        post ("/_control/dcr", "{\"revoke\": true}");
      post ("/_revoke/dcr", "{}");
      ow_tool_call_async (tool, &ctx, NULL, NULL, NULL, NULL, on_result_cb, &res);
      r = ow_tool_call_finish (tool, wait_for (&res), &error);
      g_assert_no_error (error);
      seen (r->text);
      g_assert_cmpint (double_count ("refresh:dcr"), ==, refreshes + 1);
      if (round == 0)
        {
          /* The positive control: the same call, answered. */
          g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_OK);
          g_assert_cmpstr (r->text, ==, "scope: read");
        }
      else
        {
          g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_ERROR);
          g_assert_nonnull (strstr (r->text, "openworker mcp login dcr"));
          g_assert_true (ow_mcp_auth_get_needs_sign_in (ow_mcp_auth_get (client)));
        }
    }
  post ("/_control/dcr", "{\"revoke\": false}");
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
  OW_TEST_WAIT_UNTIL (ow_mcp_client_get_status (client) == OW_MCP_STATUS_AUTH_REQUIRED
                      && ow_mcp_client_get_auth_challenge (client) != NULL
                      && strstr (ow_mcp_client_get_auth_challenge (client), "insufficient_scope") != NULL);
  g_assert_true (ow_mcp_auth_get_needs_sign_in (auth));
  sign_in (client, oauth);
  wait_status (client, OW_MCP_STATUS_READY);
  text = call_whoami (client);
  g_assert_cmpstr (text, ==, "scope: read write");
  ow_mcp_client_stop (client);
}

/* ---- openworker mcp login / logout -------------------------------------- */

static gboolean as_session;  /* the next cli() carries a session's mark */

static GSubprocess *
cli (const char *home, GSubprocessFlags flags, const char *verb, const char *name)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);
  g_autoptr(GError) error = NULL;
  GSubprocess *proc;

  if (as_session)
    g_subprocess_launcher_setenv (launcher, "OPENWORKER_SESSION_COMMAND", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "OPENWORKER_HOME", home, TRUE);
  g_subprocess_launcher_setenv (launcher, "OPENWORKER_SECRET_STORE", "file", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "G_MESSAGES_DEBUG");
  proc = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("OW_CLI"), "mcp", verb, name, NULL);
  g_assert_no_error (error);
  return proc;
}

static int
cli_run (const char *home, const char *verb, const char *name, char **out, char **err)
{
  g_autoptr(GSubprocess) proc = cli (home, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                     verb, name);
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8 (proc, NULL, NULL, out, err, &error);
  g_assert_no_error (error);
  seen (*out);
  seen (*err);
  return g_subprocess_get_exit_status (proc);
}

/* Whether any file under @dir holds @needle in the clear. */
static gboolean
tree_contains (const char *dir, const char *needle)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *data = NULL;
      gsize len = 0;

      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        {
          if (tree_contains (path, needle))
            return TRUE;
        }
      else if (g_file_get_contents (path, &data, &len, NULL)
               && g_strstr_len (data, (gssize) len, needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* `openworker mcp login` prints the URL, takes the redirect on its own
 * loopback port (refusing a state it did not begin, and going on waiting),
 * and says what is signed in; `mcp tools` then connects with the saved
 * token; `logout` forgets it, and `mcp tools` is refused again. */
static void
test_cli_login (void)
{
  /* Under the isolated XDG folders g_test_init() made: removed afterwards. */
  g_autofree char *home = g_build_filename (g_get_user_data_dir (), "login-home", NULL);
  g_autofree char *config_dir = g_build_filename (home, "config", NULL);
  g_autofree char *mcp_json = g_build_filename (config_dir, "mcp.json", NULL);
  g_autofree char *json = g_strdup_printf ("{\"mcpServers\": {\"dcr\": {\"url\": \"%s/mcp/dcr\"}}}", w.base);
  g_autoptr(GSubprocess) login = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *location = NULL;
  g_autofree char *forged = NULL;
  g_autofree char *page = NULL;
  g_autofree char *bad_page = NULL;
  g_autofree char *rest = NULL;
  g_autofree char *tools_out = NULL, *tools_err = NULL, *out2 = NULL, *err2 = NULL;
  g_autofree char *after_out = NULL, *after_err = NULL;
  const char *q;
  guint status = 0;
  char *line;

  g_assert_cmpint (g_mkdir_with_parents (config_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (mcp_json, json, -1, NULL));

  /* A server that is not signed in has no tools to show. */
  g_assert_cmpint (cli_run (home, "tools", "dcr", &tools_out, &tools_err), ==, 1);
  g_assert_nonnull (strstr (tools_err, "openworker mcp login dcr"));
  g_clear_pointer (&tools_out, g_free);
  g_clear_pointer (&tools_err, g_free);

  /* Signing in or out is a person's act: a session's command is refused. */
  as_session = TRUE;
  g_assert_cmpint (cli_run (home, "login", "dcr", &tools_out, &tools_err), ==, 2);
  g_assert_nonnull (strstr (tools_err, "only a person can sign in to MCP servers"));
  g_clear_pointer (&tools_out, g_free);
  g_clear_pointer (&tools_err, g_free);
  g_assert_cmpint (cli_run (home, "logout", "dcr", &tools_out, &tools_err), ==, 2);
  g_clear_pointer (&tools_out, g_free);
  g_clear_pointer (&tools_err, g_free);
  as_session = FALSE;

  login = cli (home, G_SUBPROCESS_FLAGS_STDOUT_PIPE, "login", "dcr");
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (login));
  while ((line = g_data_input_stream_read_line (out, NULL, NULL, &error)) != NULL)
    {
      g_strstrip (line);
      if (g_str_has_prefix (line, "http://"))
        {
          url = line;
          break;
        }
      g_free (line);
    }
  g_assert_nonnull (url);
  g_assert_nonnull (strstr (url, "/as/dcr/authorize?"));
  g_assert_null (strstr (url, MARKER));
  g_free (http_do ("GET", url, &status, &location));
  g_assert_cmpuint (status, ==, 302);
  g_assert_true (g_str_has_prefix (location, "http://127.0.0.1:"));
  g_assert_nonnull (strstr (location, "/callback?"));

  /* A redirect with another state is refused; the command keeps waiting. */
  q = strchr (location, '?');
  forged = g_strdup_printf ("%.*s?code=x&state=not-ours", (int) (q - location), location);
  bad_page = http_do ("GET", forged, &status, NULL);
  g_assert_cmpuint (status, ==, 400);
  g_assert_nonnull (strstr (bad_page, "not waiting for this sign-in"));

  page = http_do ("GET", location, &status, NULL);
  g_assert_cmpuint (status, ==, 200);
  g_assert_nonnull (strstr (page, "Signed in"));
  rest = g_data_input_stream_read_upto (out, "", 0, NULL, NULL, &error);
  g_subprocess_wait (login, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (login), ==, 0);
  g_assert_nonnull (rest);
  seen (rest);
  g_assert_nonnull (strstr (rest, "Signed in to \"dcr\""));
  g_assert_nonnull (strstr (rest, "1 tool."));

  /* Another process uses the saved sign-in. */
  g_assert_cmpint (cli_run (home, "tools", "dcr", &tools_out, &tools_err), ==, 0);
  g_assert_nonnull (strstr (tools_out, "whoami"));
  /* Saved, but sealed: no token or secret in any file of the home. */
  g_assert_true (tree_contains (home, "dcr"));
  g_assert_false (tree_contains (home, MARKER));

  g_clear_pointer (&tools_out, g_free);
  g_clear_pointer (&tools_err, g_free);
  g_assert_cmpint (cli_run (home, "login", "dcr", &tools_out, &tools_err), ==, 0);
  g_assert_nonnull (strstr (tools_out, "Already signed in. Signed in to \"dcr\""));

  g_assert_cmpint (cli_run (home, "logout", "dcr", &out2, &err2), ==, 0);
  g_assert_nonnull (strstr (out2, "Signed out of \"dcr\""));
  g_assert_cmpint (cli_run (home, "tools", "dcr", &after_out, &after_err), ==, 1);
  g_assert_nonnull (strstr (after_err, "sign in"));
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
  g_test_add_func ("/ow/mcp/oauth/tool-retry", test_tool_retry);
  g_test_add_func ("/ow/mcp/oauth/step-up", test_step_up);
  g_test_add_func ("/ow/mcp/oauth/cli-login", test_cli_login);
  g_test_add_func ("/ow/mcp/oauth/no-secrets", test_no_secrets);
  rc = g_test_run ();

  g_output_stream_close (g_subprocess_get_stdin_pipe (w.double_proc), NULL, NULL);
  g_subprocess_wait (w.double_proc, NULL, NULL);
  g_clear_object (&w.double_proc);
  g_clear_object (&w.http);
  return rc;
}
