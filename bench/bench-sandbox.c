/* bench-sandbox.c: what the Linux sandbox costs.
 *
 *   bench-sandbox [RUNNER]
 *
 * Per command: `run_shell` of `true` through the sandboxed executor (the
 * tool runner behind namespaces + Landlock + seccomp, over the framed
 * protocol) against the direct executor (the same tool body in this
 * process), 200 calls each in the same run after a few warm-up calls, one
 * at a time from the main loop exactly as the agent makes them. The
 * overhead is the difference of the medians.
 *
 * Start-up: from start_async() to the executor in hand (runner spawned,
 * wall built, hello, the whole proof from inside), median of 20, each
 * sandbox closed before the next starts.
 *
 * Goals (issue #4): under 5 ms per command, under 150 ms to start.
 * RUNNER defaults to $OPENWORKER_TOOL_RUNNER, then ../app next to this
 * program, then the usual places.
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>

#include "ow-sandbox-linux.h"
#include "tools/ow-executor.h"

#define CALLS   200
#define WARM_UP 5
#define STARTS  20

typedef struct {
  GAsyncResult *result;   /* set by the callback (owned) */
} Wait;

static void
on_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ((Wait *) user_data)->result = g_object_ref (result);
}

static GAsyncResult *
wait_for (Wait *w)
{
  while (w->result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return w->result;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median milliseconds of CALLS `true` commands. */
static double
per_command (OwExecutor *ex, double *p90)
{
  double *ms = g_new (double, CALLS);
  double m;

  for (int i = -WARM_UP; i < CALLS; i++)
    {
      Wait w = { NULL };
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(OwToolResult) r = NULL;
      g_autoptr(GError) error = NULL;

      ow_executor_execute_async (ex, "run_shell", "{\"command\":\"true\"}", NULL, on_done_cb, &w);
      r = ow_executor_execute_finish (ex, wait_for (&w), &error);
      g_object_unref (w.result);
      if (r == NULL || r->status != OW_TOOL_STATUS_OK)
        {
          g_printerr ("bench-sandbox: run_shell failed: %s\n", error != NULL ? error->message : r->text);
          exit (1);
        }
      if (i >= 0)
        ms[i] = (double) (g_get_monotonic_time () - t0) / 1000.0;
    }
  m = median (ms, CALLS);
  *p90 = ms[CALLS * 9 / 10];
  g_free (ms);
  return m;
}

static char *
find_runner (const char *arg)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  char *beside;

  if (arg != NULL)
    return g_strdup (arg);
  if (g_getenv ("OPENWORKER_TOOL_RUNNER") != NULL)
    return g_strdup (g_getenv ("OPENWORKER_TOOL_RUNNER"));
  beside = dir != NULL ? g_build_filename (dir, "..", "app", "openworker-tool-runner", NULL) : NULL;
  if (beside != NULL && g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE))
    return beside;
  g_free (beside);
  return ow_sandbox_linux_find_runner ();
}

int
main (int argc, char **argv)
{
  g_autofree char *runner = find_runner (argc > 1 ? argv[1] : NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *base = g_dir_make_tmp ("ow-bench-sandbox-XXXXXX", &error);
  g_autofree char *ws = NULL, *scratch = NULL;
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autoptr(OwSandboxBackend) backend = NULL;
  g_autoptr(OwExecutor) direct = NULL;
  g_autoptr(OwExecutor) walled = NULL;
  OwSandboxSpec spec = { 0 };
  double starts[STARTS], direct_ms, walled_ms, direct_p90, walled_p90, start_ms;
  const char *enforcement;

  if (runner == NULL || base == NULL)
    {
      g_printerr ("bench-sandbox: no openworker-tool-runner found (pass its path)\n");
      return 1;
    }
  ws = g_build_filename (base, "ws", NULL);
  scratch = g_build_filename (base, "scratch", NULL);
  g_mkdir (ws, 0700);
  g_ptr_array_add (roots, ow_root_new (ws, TRUE, "workspace"));
  spec.session_id = "bench";
  spec.roots = roots;
  spec.runner_path = runner;
  spec.scratch_dir = scratch;
  backend = ow_sandbox_linux_new (runner);

  /* Start-up, each sandbox closed before the next. */
  for (int i = 0; i < STARTS; i++)
    {
      Wait w = { NULL };
      gint64 t0 = g_get_monotonic_time ();
      OwExecutor *ex;

      ow_sandbox_backend_start_async (backend, &spec, NULL, on_done_cb, &w);
      ex = ow_sandbox_backend_start_finish (backend, wait_for (&w), &error);
      g_object_unref (w.result);
      starts[i] = (double) (g_get_monotonic_time () - t0) / 1000.0;
      if (ex == NULL)
        {
          g_printerr ("bench-sandbox: the sandbox did not start: %s\n", error->message);
          return 1;
        }
      g_object_unref (ex);
      /* Let the runner's shutdown run before the next start. */
      for (int k = 0; k < 20; k++)
        g_main_context_iteration (NULL, FALSE);
    }
  start_ms = median (starts, STARTS);

  /* Per command, both executors in the same run. */
  {
    Wait w = { NULL };

    ow_sandbox_backend_start_async (backend, &spec, NULL, on_done_cb, &w);
    walled = ow_sandbox_backend_start_finish (backend, wait_for (&w), &error);
    g_object_unref (w.result);
    if (walled == NULL)
      {
        g_printerr ("bench-sandbox: the sandbox did not start: %s\n", error->message);
        return 1;
      }
  }
  direct = ow_executor_direct_new (ws);
  ow_executor_set_roots (direct, roots);
  direct_ms = per_command (direct, &direct_p90);
  walled_ms = per_command (walled, &walled_p90);
  enforcement = ow_executor_get_enforcement (walled);

  printf ("bench-sandbox (%s)\n", enforcement);
  printf ("  run_shell `true`, median of %d  direct %.3f ms (p90 %.3f)   sandboxed %.3f ms (p90 %.3f)\n",
          CALLS, direct_ms, direct_p90, walled_ms, walled_p90);
  printf ("  per-command overhead            %.3f ms   (goal < 5 ms: %s)\n", walled_ms - direct_ms,
          walled_ms - direct_ms < 5.0 ? "met" : "MISSED");
  printf ("  sandbox start-up, median of %d  %.1f ms   (min %.1f, max %.1f; goal < 150 ms: %s)\n", STARTS,
          start_ms, starts[0], starts[STARTS - 1], start_ms < 150.0 ? "met" : "MISSED");

  g_clear_object (&walled);
  g_clear_object (&direct);
  for (int k = 0; k < 50; k++)
    g_main_context_iteration (NULL, FALSE);
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", base);

    if (system (cmd) != 0)
      g_printerr ("bench-sandbox: could not remove %s\n", base);
  }
  return 0;
}
