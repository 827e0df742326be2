/* bench-mcp.c: how long connecting MCP servers takes.
 *
 * Starts N stdio servers at once (server-everything under node, N = 10 by
 * default) through OwMcpClient — login-shell PATH, spawn, server/discover,
 * initialize, tools/list — and reports the wall time until every one is
 * READY, median of several runs. Baselines, in the same run: one server
 * alone, and N bare node processes of the same server started together
 * that each answer one initialize written straight into their stdin (no
 * client at all), so the ratio says what the client adds to node's own
 * start-up on this machine.
 * Also the median round trip of an echo tool call on a running server.
 *
 * Goal (integrations §1.5): 10 stdio servers in parallel in ≤ 1.5 s.
 *
 *   build/bench/bench-mcp tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js [N] [runs]
 */
#include <stdio.h>
#include <stdlib.h>

#include "mcp/ow-mcp-client.h"

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, compare_double);
  return v[n / 2];
}

typedef struct
{
  int n_done;
  int n_failed;
} Tally;

static void
on_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Tally *t = user_data;
  g_autoptr(GError) error = NULL;

  if (!ow_mcp_client_start_finish (OW_MCP_CLIENT (source), result, &error))
    {
      fprintf (stderr, "start failed: %s\n", error->message);
      t->n_failed++;
    }
  t->n_done++;
}

/* Wall seconds for @n servers to become READY together. */
static double
start_many (const char *entry, int n, OwMcpClient **keep)
{
  g_autoptr(OwMcpServerConfig) config = ow_mcp_server_config_new ("everything");
  OwMcpClient **clients = g_new0 (OwMcpClient *, n);
  Tally t = { 0, 0 };
  gint64 t0;
  double wall;

  config->command = g_strdup (g_getenv ("OW_MCP_NODE") != NULL ? g_getenv ("OW_MCP_NODE") : "node");
  g_strfreev (config->args);
  config->args = g_new0 (char *, 3);
  config->args[0] = g_strdup (entry);
  config->args[1] = g_strdup ("stdio");
  t0 = g_get_monotonic_time ();
  for (int i = 0; i < n; i++)
    {
      clients[i] = ow_mcp_client_new (config);
      ow_mcp_client_start_async (clients[i], NULL, on_started_cb, &t);
    }
  while (t.n_done < n)
    g_main_context_iteration (NULL, TRUE);
  wall = (g_get_monotonic_time () - t0) / 1e6;
  if (t.n_failed > 0)
    exit (1);
  for (int i = 0; i < n; i++)
    {
      if (keep != NULL && i == 0)
        {
          *keep = clients[0];
          continue;
        }
      ow_mcp_client_stop (clients[i]);
      g_object_unref (clients[i]);
    }
  g_free (clients);
  return wall;
}

typedef struct
{
  int n_done;
} Bare;

static void
on_bare_line_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Bare *b = user_data;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, NULL, NULL);

  if (line == NULL)
    exit (1);
  b->n_done++;
}

/* Wall seconds for @n bare servers to answer initialize, all at once. */
static double
bare_many (const char *entry, int n)
{
  static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                             "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"0\"}}}\n";
  GSubprocess **procs = g_new0 (GSubprocess *, n);
  GDataInputStream **outs = g_new0 (GDataInputStream *, n);
  Bare b = { 0 };
  gint64 t0 = g_get_monotonic_time ();
  double wall;

  for (int i = 0; i < n; i++)
    {
      procs[i] = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                   | G_SUBPROCESS_FLAGS_STDERR_SILENCE, NULL, g_getenv ("OW_MCP_NODE") != NULL ? g_getenv ("OW_MCP_NODE") : "node", entry, "stdio", NULL);
      if (procs[i] == NULL)
        exit (1);
      g_output_stream_write_all (g_subprocess_get_stdin_pipe (procs[i]), init, sizeof init - 1, NULL, NULL, NULL);
      outs[i] = g_data_input_stream_new (g_subprocess_get_stdout_pipe (procs[i]));
      g_data_input_stream_read_line_async (outs[i], G_PRIORITY_DEFAULT, NULL, on_bare_line_cb, &b);
    }
  while (b.n_done < n)
    g_main_context_iteration (NULL, TRUE);
  wall = (g_get_monotonic_time () - t0) / 1e6;
  for (int i = 0; i < n; i++)
    {
      g_subprocess_force_exit (procs[i]);
      g_subprocess_wait (procs[i], NULL, NULL);
      g_object_unref (outs[i]);
      g_object_unref (procs[i]);
    }
  g_free (procs);
  g_free (outs);
  return wall;
}

static void
on_called_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(OwMcpCallResult) r = ow_mcp_client_call_tool_finish (OW_MCP_CLIENT (source), result, NULL);

  if (r == NULL)
    exit (1);
  *(gboolean *) user_data = TRUE;
}

int
main (int argc, char **argv)
{
  const char *entry;
  int n = argc > 2 ? atoi (argv[2]) : 10;
  int runs = argc > 3 ? atoi (argv[3]) : 5;
  double *together = g_new0 (double, runs);
  double *alone = g_new0 (double, runs);
  double *bare = g_new0 (double, runs);
  double calls[200];
  OwMcpClient *one = NULL;
  g_autoptr(JsonObject) args = json_object_new ();

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s SERVER-EVERYTHING-INDEX.JS [N] [RUNS]\n", argv[0]);
      return 2;
    }
  entry = argv[1];
  /* The login-shell PATH is computed once per process: pay it before
   * measuring, as a running app has. */
  start_many (entry, 1, NULL);
  for (int r = 0; r < runs; r++)
    {
      alone[r] = start_many (entry, 1, NULL);
      together[r] = start_many (entry, n, NULL);
      bare[r] = bare_many (entry, n);
    }

  start_many (entry, 1, &one);
  json_object_set_string_member (args, "message", "ping");
  for (int i = 0; i < 200; i++)
    {
      gboolean done = FALSE;
      gint64 t0 = g_get_monotonic_time ();

      ow_mcp_client_call_tool_async (one, "echo", args, NULL, NULL, NULL, NULL, on_called_cb, &done);
      while (!done)
        g_main_context_iteration (NULL, TRUE);
      calls[i] = (g_get_monotonic_time () - t0) / 1e3;
    }
  ow_mcp_client_stop (one);
  g_object_unref (one);

  {
    double m_alone = median (alone, runs);
    double m_together = median (together, runs);
    double m_bare = median (bare, runs);

    printf ("MCP stdio start, server-everything under node, median of %d runs\n", runs);
    printf ("  one server alone          %7.0f ms\n", m_alone * 1e3);
    printf ("  %2d servers together       %7.0f ms   %.1f× one alone   goal ≤ 1500 ms: %s\n", n,
            m_together * 1e3, m_together / m_alone, m_together <= 1.5 ? "met" : "MISSED");
    printf ("  %2d bare node servers      %7.0f ms   (the client adds %+.0f ms)\n", n, m_bare * 1e3,
            (m_together - m_bare) * 1e3);
    printf ("  echo tool call round trip %7.2f ms (median of 200)\n", median (calls, 200));
  }
  g_free (together);
  g_free (alone);
  g_free (bare);
  return 0;
}
