/* bench-cancel.c: how fast a stop lands.
 *
 * Runs the real turn loop against the scripted model server in this process
 * and stops it at three points: while a reply is streaming, while a shell
 * command runs, and while waiting to retry a failed call. For each it
 * measures the time from g_cancellable_cancel() to the turn's completion
 * callback (the moment the engine has answered every call, saved the
 * partial reply and emitted "interrupted"), over many runs, and prints the
 * median and worst case. The baseline, measured the same way in the same
 * process, is one main-loop round trip (an idle callback).
 *
 * Goal (issue #2): every median under 100 ms.
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/ow-agent.h"
#include "core/ow-context.h"
#include "ow-model-server.h"
#include "tools/ow-builtin-tools.h"

typedef struct {
  GMainLoop    *loop;
  GCancellable *cancellable;
  const char   *trigger;     /* event type that triggers the stop */
  gint64        cancelled_at;
  gint64        done_at;
  OwOutcome     outcome;
} Probe;

static void
on_event_cb (OwSession *session, OwEvent *event, gpointer user_data)
{
  Probe *p = user_data;

  if (p->cancelled_at == 0 && g_str_equal (event->type, p->trigger))
    {
      /* Let the trigger's work settle (a tool starts its process, a retry
       * arms its timer) before stopping. */
      g_usleep (20000);
      p->cancelled_at = g_get_monotonic_time ();
      g_cancellable_cancel (p->cancellable);
    }
}

static void
on_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Probe *p = user_data;
  g_autoptr(OwTurnResult) r = ow_agent_run_finish (OW_AGENT (source), result, NULL);

  p->done_at = g_get_monotonic_time ();
  p->outcome = r != NULL ? r->outcome : OW_OUTCOME_MODEL_ERROR;
  g_main_loop_quit (p->loop);
}

static double
measure (const char *dir, const char *script, const char *trigger)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (script, &error);
  g_autoptr(OwPaths) paths = ow_paths_new_under (dir);
  OwContextOptions options = { .paths = paths, .isolated = TRUE };
  g_autoptr(OwContext) ctx = ow_context_new (&options, &error);
  g_autoptr(OwModelServer) server = ow_model_server_new (node, &error);
  g_autofree char *url = g_strdup_printf ("%s/v1", ow_model_server_get_url (server));
  const char *envp[] = { "OPENAI_API_KEY=sk-bench-0000000000", NULL };
  OwProviderOverrides overrides = { .base_url = url };
  g_autoptr(OwProvider) provider = ow_provider_catalog_create (ow_provider_catalog_lookup ("openai"), &overrides,
                                                               envp, ow_context_get_http (ctx), &error);
  g_autoptr(OwToolRegistry) tools = ow_tool_registry_new ();
  const char *groups[] = { "shell", NULL };
  OwSessionSpec spec = { .workspace = dir, .model = "openai:gpt-4o", .mode = "bypass-approvals" };
  g_autoptr(OwSession) session = NULL;
  g_autoptr(OwExecutor) executor = ow_executor_direct_new (dir);
  g_autoptr(OwPolicy) policy = ow_policy_new (NULL, NULL, NULL);
  g_autoptr(OwAttendant) attendant = ow_rule_attendant_new (FALSE);
  g_autoptr(OwAgent) agent = NULL;
  const double delays[] = { 3600 };
  Probe p = { 0 };

  g_autoptr(OwBuiltinTools) builtins = ow_builtin_tools_new ();

  if (provider == NULL || !ow_builtin_tools_add_groups (builtins, groups, &error))
    g_error ("setup failed: %s", error->message);
  ow_tool_registry_add_provider (tools, OW_TOOL_PROVIDER (builtins));
  session = ow_session_new (ow_context_get_store (ctx), &spec, &error);
  agent = ow_agent_new (session, provider, "gpt-4o", tools, executor, policy, attendant, NULL);
  ow_agent_set_retry_delays (agent, delays, 1);
  p.loop = g_main_loop_new (NULL, FALSE);
  p.cancellable = g_cancellable_new ();
  p.trigger = trigger;
  g_signal_connect (session, "event", G_CALLBACK (on_event_cb), &p);
  ow_agent_run_async (agent, "go", p.cancellable, on_done_cb, &p);
  g_main_loop_run (p.loop);
  g_main_loop_unref (p.loop);
  g_object_unref (p.cancellable);
  if (p.outcome != OW_OUTCOME_INTERRUPTED || p.cancelled_at == 0)
    g_error ("the %s run was not interrupted (outcome %s)", trigger, ow_outcome_to_string (p.outcome));
  return (p.done_at - p.cancelled_at) / 1000.0;
}

static gboolean
on_idle_cb (gpointer user_data)
{
  *(gint64 *) user_data = g_get_monotonic_time ();
  return G_SOURCE_REMOVE;
}

static double
measure_idle (void)
{
  gint64 start = g_get_monotonic_time (), done = 0;

  g_idle_add (on_idle_cb, &done);
  while (done == 0)
    g_main_context_iteration (NULL, TRUE);
  return (done - start) / 1000.0;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
report (const char *name, double *v, int n, double baseline)
{
  qsort (v, n, sizeof *v, compare_double);
  printf ("  %-22s median %8.3f ms   worst %8.3f ms   %8.1f× the main-loop round trip   goal < 100 ms: %s\n",
          name, v[n / 2], v[n - 1], v[n / 2] / baseline, v[n / 2] < 100 ? "met" : "MISSED");
}

int
main (int argc, char **argv)
{
  int runs = argc > 1 ? atoi (argv[1]) : 15;
  g_autofree double *stream = g_new (double, runs);
  g_autofree double *tool = g_new (double, runs);
  g_autofree double *retry = g_new (double, runs);
  g_autofree double *idle = g_new (double, runs * 10);
  double baseline;

  for (int i = 0; i < runs * 10; i++)
    idle[i] = measure_idle ();
  qsort (idle, runs * 10, sizeof *idle, compare_double);
  baseline = idle[runs * 5];

  for (int i = 0; i < runs; i++)
    {
      g_autofree char *dir = g_dir_make_tmp ("ow-bench-cancel-XXXXXX", NULL);
      g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
      stream[i] = measure (dir, "{\"turns\":[{\"text\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\","
                                "\"text_chunks\":30,\"chunk_delay_ms\":500}]}", "assistant_delta");
      tool[i] = measure (dir, "{\"turns\":[{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"run_shell\","
                              "\"arguments\":{\"command\":\"sleep 30\"}}]},{\"text\":\"x\"}]}", "tool_started");
      retry[i] = measure (dir, "{\"turns\":[{\"error\":{\"status\":503,\"kind\":\"server\",\"message\":\"down\"}},"
                               "{\"text\":\"x\"}]}", "provider_retry");
      if (system (cmd) != 0)
        return 1;
    }
  printf ("Cancellation latency (%d runs each; from g_cancellable_cancel to the turn's completion callback)\n", runs);
  printf ("  baseline: one main-loop round trip, median %.4f ms\n", baseline);
  report ("while streaming", stream, runs, baseline);
  report ("during a shell command", tool, runs, baseline);
  report ("during a retry wait", retry, runs, baseline);
  return 0;
}
