/* mcp-conformance-client.c: OwMcpClient as the client program the official
 * MCP conformance suite drives (@modelcontextprotocol/conformance, pinned
 * in package.json).
 *
 * The suite starts a scenario's server, then runs this program with the
 * server's URL as the last argument and the scenario's name in
 * MCP_CONFORMANCE_SCENARIO. It connects over streamable HTTP, and in
 * tools_call calls the add_numbers tool the scenario offers. Exit status 0
 * when everything it did succeeded; the suite checks the wire itself.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mcp/ow-mcp-client.h"
#include "ow-test-utils.h"

static gboolean done;
static gboolean ok;

static void
on_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;

  ok = ow_mcp_client_start_finish (OW_MCP_CLIENT (source), result, &error);
  if (!ok)
    fprintf (stderr, "start: %s\n", error->message);
  done = TRUE;
}

static void
on_called_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwMcpCallResult) r = ow_mcp_client_call_tool_finish (OW_MCP_CLIENT (source), result, &error);

  ok = r != NULL && !r->is_error;
  if (r == NULL)
    fprintf (stderr, "call: %s\n", error->message);
  done = TRUE;
}

static void
wait_done (void)
{
  done = FALSE;
  ow_test_wait_flag (&done);
}

int
main (int argc, char **argv)
{
  const char *scenario = g_getenv ("MCP_CONFORMANCE_SCENARIO");
  g_autoptr(OwMcpServerConfig) config = ow_mcp_server_config_new ("conformance");
  g_autoptr(OwMcpClient) client = NULL;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s SERVER-URL\n", argv[0]);
      return 2;
    }
  config->transport = OW_MCP_TRANSPORT_HTTP;
  config->url = g_strdup (argv[argc - 1]);
  client = ow_mcp_client_new (config);
  ow_mcp_client_start_async (client, NULL, on_started_cb, NULL);
  wait_done ();
  if (ok && g_strcmp0 (scenario, "tools_call") == 0)
    {
      g_autoptr(JsonObject) args = json_object_new ();

      json_object_set_int_member (args, "a", 2);
      json_object_set_int_member (args, "b", 40);
      ow_mcp_client_call_tool_async (client, "add_numbers", args, NULL, NULL, NULL, NULL, on_called_cb, NULL);
      wait_done ();
    }
  ow_mcp_client_stop (client);
  /* Let the session's DELETE go out before leaving. */
  ow_test_drain ();
  return ok ? 0 : 1;
}
