/* mcp-conformance-client.c: OwMcpClient as the client program the official
 * MCP conformance suite drives (@modelcontextprotocol/conformance, pinned
 * in package.json).
 *
 * The suite starts a scenario's server, then runs this program with the
 * server's URL as the last argument and the scenario's name in
 * MCP_CONFORMANCE_SCENARIO. It connects over streamable HTTP, and in
 * tools_call calls the add_numbers tool the scenario offers. Exit status 0
 * when everything it did succeeded; the suite checks the wire itself.
 *
 * The auth scenarios protect the server with OAuth. The client signs in
 * through the engine's own code: mcp/ow-mcp-auth.c binds the client to an
 * OwOAuth (net/ow-oauth.c) exactly as the session host does; the
 * scenario's MCP_CONFORMANCE_CONTEXT (client_id, client_secret) is the
 * entry's pre-registered client. This program plays only the person and
 * the browser: it opens the authorization URL (a GET; the scenario's
 * authorization server approves at once and answers 302), checks the
 * state of the redirect as the loopback callback route does, and hands
 * code, state and iss to ow_oauth_complete_async(). OwOAuth's "signed-in"
 * then reconnects the client, with no restart. In the auth scenarios the
 * first tool the server lists is called too (a step-up is asked there).
 */
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "mcp/ow-mcp-auth.h"
#include "mcp/ow-mcp-client.h"
#include "net/ow-http-client.h"
#include "net/ow-oauth.h"
#include "ow-error.h"
#include "ow-json.h"
#include "ow-test-utils.h"
#include "store/ow-secret-store.h"

/* Where the authorization server sends the browser back; nothing listens
 * there: the browser below reads the redirect instead of following it. */
#define REDIRECT "http://127.0.0.1:9/callback"
/* The client ID metadata document this client would publish. */
#define CIMD_URL "https://conformance-test.local/client-metadata.json"

static gboolean ok;

static GAsyncResult *async_result;

static void
on_async_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  async_result = g_object_ref (result);
}

static GAsyncResult *
wait_async (void)
{
  g_clear_object (&async_result);
  OW_TEST_WAIT_UNTIL (async_result != NULL);
  return async_result;
}

/* The person approves in the browser: GET the URL, read the 302. */
static gboolean
browse_and_complete (OwOAuth *oauth, OwHttpClient *http, const char *url)
{
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("GET", url);
  g_autoptr(OwHttpResponse) resp = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) location = NULL;
  g_autoptr(GHashTable) q = NULL;
  g_autofree char *resource = NULL;
  const char *loc, *query;

  ow_http_client_send_async (http, req, NULL, NULL, NULL, NULL, on_async_cb, NULL);
  resp = ow_http_client_send_finish (http, wait_async (), &error);
  if (resp == NULL)
    {
      fprintf (stderr, "browser: %s\n", error->message);
      return FALSE;
    }
  loc = ow_http_response_get_header (resp, "Location");
  if (ow_http_response_get_status (resp) / 100 != 3 || loc == NULL
      || (location = g_uri_parse (loc, G_URI_FLAGS_ENCODED_QUERY, NULL)) == NULL)
    {
      fprintf (stderr, "browser: the authorization server answered %u without a redirect\n",
               ow_http_response_get_status (resp));
      return FALSE;
    }
  query = g_uri_get_query (location);
  q = query != NULL ? g_uri_parse_params (query, -1, "&", G_URI_PARAMS_NONE, NULL) : NULL;
  if (q == NULL || !ow_oauth_is_pending (oauth, g_hash_table_lookup (q, "state")))
    {
      fprintf (stderr, "callback: the redirect names no sign-in this client began\n");
      return FALSE;
    }
  ow_oauth_complete_async (oauth, g_hash_table_lookup (q, "state"), g_hash_table_lookup (q, "code"),
                           g_hash_table_lookup (q, "iss"), g_hash_table_lookup (q, "error"), NULL,
                           on_async_cb, NULL);
  resource = ow_oauth_complete_finish (oauth, wait_async (), &error);
  if (resource == NULL)
    {
      fprintf (stderr, "complete: %s\n", error->message);
      return FALSE;
    }
  fprintf (stderr, "signed in to %s\n", resource);
  return TRUE;
}

/* After a refusal for want of a sign-in: sign in (or step up). */
static gboolean
sign_in (OwMcpAuth *auth, OwOAuth *oauth, OwHttpClient *http)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;

  if (auth == NULL || !ow_mcp_auth_get_needs_sign_in (auth))
    return FALSE;
  ow_mcp_auth_sign_in_async (auth, NULL, on_async_cb, NULL);
  url = ow_mcp_auth_sign_in_finish (auth, wait_async (), &error);
  if (url == NULL)
    {
      fprintf (stderr, "sign-in: %s\n", error->message);
      return FALSE;
    }
  return browse_and_complete (oauth, http, url);
}

static void
apply_context (OwMcpServerConfig *config)
{
  const char *text = g_getenv ("MCP_CONFORMANCE_CONTEXT");
  g_autoptr(JsonObject) ctx = text != NULL ? ow_json_object_from_string (text, -1, NULL) : NULL;

  if (ctx == NULL)
    return;
  config->client_id = g_strdup (ow_json_get_string (ctx, "client_id"));
  config->client_secret = g_strdup (ow_json_get_string (ctx, "client_secret"));
}

int
main (int argc, char **argv)
{
  const char *scenario = g_getenv ("MCP_CONFORMANCE_SCENARIO");
  gboolean is_auth = scenario != NULL && g_str_has_prefix (scenario, "auth/");
  g_autoptr(OwMcpServerConfig) config = ow_mcp_server_config_new ("conformance");
  g_autoptr(OwMcpClient) client = NULL;
  g_autoptr(OwHttpClient) http = ow_http_client_new ();
  g_autoptr(OwSecretStore) secrets = ow_secret_store_memory_new ();
  g_autoptr(OwOAuth) oauth = ow_oauth_new (http, secrets);
  OwMcpAuth *auth;
  g_autoptr(GError) error = NULL;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s SERVER-URL\n", argv[0]);
      return 2;
    }
  config->transport = OW_MCP_TRANSPORT_HTTP;
  config->url = g_strdup (argv[argc - 1]);
  apply_context (config);
  ow_oauth_set_redirect_uri (oauth, REDIRECT);
  ow_oauth_set_client_metadata_url (oauth, CIMD_URL);
  client = ow_mcp_client_new (config);
  auth = ow_mcp_auth_attach (client, oauth);

  /* Start; each refusal for want of a sign-in is one sign-in (OwOAuth
   * bounds the step-ups), after which "signed-in" reconnects. */
  for (int attempt = 0;; attempt++)
    {
      g_clear_error (&error);
      ow_mcp_start_async (client, NULL, on_async_cb, NULL);
      ok = ow_mcp_start_finish (client, wait_async (), &error);
      if (ok || attempt >= 4 || !sign_in (auth, oauth, http))
        break;
    }
  if (!ok)
    fprintf (stderr, "start: %s\n", error->message);
  if (ok && (g_strcmp0 (scenario, "tools_call") == 0 || is_auth))
    {
      g_autoptr(GPtrArray) tools = ow_mcp_client_get_tools (client);
      g_autoptr(JsonObject) args = json_object_new ();
      const char *tool = "add_numbers";

      if (g_strcmp0 (scenario, "tools_call") == 0)
        {
          json_object_set_int_member (args, "a", 2);
          json_object_set_int_member (args, "b", 40);
        }
      else if (tools->len > 0)
        tool = ((OwMcpTool *) g_ptr_array_index (tools, 0))->name;
      for (int attempt = 0;; attempt++)
        {
          g_autoptr(OwMcpCallResult) r = NULL;

          g_clear_error (&error);
          ow_mcp_client_call_tool_async (client, tool, args, NULL, NULL, NULL, NULL, on_async_cb, NULL);
          r = ow_mcp_client_call_tool_finish (client, wait_async (), &error);
          ok = r != NULL && !r->is_error;
          if (r != NULL || attempt >= 4)
            break;
          /* A 403 insufficient_scope: step up, wait for the reconnection. */
          fprintf (stderr, "call: %s\n", error->message);
          OW_TEST_WAIT_UNTIL (ow_mcp_auth_get_needs_sign_in (auth)
                              || (ow_mcp_client_get_status (client) != OW_MCP_STATUS_AUTH_REQUIRED
                                  && ow_mcp_client_get_status (client) != OW_MCP_STATUS_STARTING));
          if (!sign_in (auth, oauth, http))
            break;
          g_clear_error (&error);
          ow_mcp_start_async (client, NULL, on_async_cb, NULL);
          if (!ow_mcp_start_finish (client, wait_async (), &error))
            break;
        }
      if (!ok && error != NULL)
        fprintf (stderr, "call: %s\n", error->message);
    }
  ow_mcp_client_stop (client);
  /* Let the session's DELETE go out before leaving. */
  ow_test_drain ();
  return ok ? 0 : 1;
}
