/* bench-guard.c: what the command guard costs (issue #9).
 *
 *   bench-guard
 *
 * Two figures, each a median with its unguarded baseline measured in the
 * same run:
 *
 *   spawn    starting one process through ow_tb_spawn_setup with the guard
 *            (fork, namespaces, mounts, Landlock, seccomp, exec of `true`,
 *            wait) against the same spawn without it (posix_spawn of
 *            `true`, wait): 200 each, interleaved so drift hits both. This
 *            is what every background task and every shell (re)start pays.
 *   command  run_shell of `true` through a guarded direct executor against
 *            an unguarded one: 200 calls each after warm-up. The shell is
 *            persistent, so a command in a warm guarded shell pays nothing
 *            beyond the shell's own work; the figure shows it.
 *
 * Goal: the guard adds at most 2 ms per command.
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ow-files.h"
#include "ow-guard.h"
#include "ow-sandbox-linux.h"
#include "tools/body/ow-tb-private.h"
#include "tools/ow-executor.h"

#define N       200
#define WARM_UP 5

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
spawn_once (OwGuard *guard)
{
  const char *argv[] = { "true", NULL };
  char err[512];
  gint64 t0 = g_get_monotonic_time ();
  pid_t pid;
  int rc = ow_tb_spawn_setup ("/bin/true", argv, NULL, "/", -1, -1, -1, -1, &pid,
                              guard != NULL ? ow_guard_child_enter : NULL, guard, err, sizeof err);

  if (rc != 0)
    {
      fprintf (stderr, "bench-guard: spawn failed: %s\n", err);
      exit (1);
    }
  waitpid (pid, NULL, 0);
  return (g_get_monotonic_time () - t0) / 1000.0;
}

typedef struct {
  GAsyncResult *result;
} Wait;

static void
on_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ((Wait *) user_data)->result = g_object_ref (result);
}

static double
command_once (OwExecutor *ex)
{
  Wait w = { 0 };
  gint64 t0 = g_get_monotonic_time ();
  OwToolResult *r;

  ow_executor_execute_async (ex, "run_shell", "{\"command\":\"true\"}", NULL, on_done_cb, &w);
  while (w.result == NULL)
    g_main_context_iteration (NULL, TRUE);
  r = ow_executor_execute_finish (ex, w.result, NULL);
  ow_tool_result_free (r);
  g_object_unref (w.result);
  return (g_get_monotonic_time () - t0) / 1000.0;
}

int
main (void)
{
  char why[512], err[512];
  g_autofree char *base = g_dir_make_tmp ("ow-bench-guard-XXXXXX", NULL);
  g_autofree char *ws = g_build_filename (base, "ws", NULL);
  g_autofree char *tmp = g_build_filename (base, "tmp", NULL);
  g_autofree char *cache = g_build_filename (base, "cache", NULL);
  const char *writable[] = { ws, NULL };
  const char *hidden[] = { g_get_home_dir (), NULL };
  OwGuardSpec spec = { .writable = writable, .tmp_dir = tmp, .cache_dir = cache };
  OwGuardOptions options = { .hidden = hidden, .cache_dir = cache };
  double guarded[N], plain[N];
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  OwExecutor *open_ex, *guard_ex;
  OwGuard *guard;
  double g, p;

  ow_sandbox_linux_register ();
  if (!ow_guard_available (why, sizeof why))
    {
      fprintf (stderr, "bench-guard: the guard is unavailable here: %s\n", why);
      return 1;
    }
  g_mkdir_with_parents (ws, 0700);
  g_mkdir_with_parents (tmp, 0700);
  guard = ow_guard_new (&spec, err, sizeof err);
  if (guard == NULL)
    {
      fprintf (stderr, "bench-guard: %s\n", err);
      return 1;
    }

  for (int i = 0; i < WARM_UP; i++)
    {
      spawn_once (guard);
      spawn_once (NULL);
    }
  for (int i = 0; i < N; i++)
    {
      guarded[i] = spawn_once (guard);
      plain[i] = spawn_once (NULL);
    }
  g = median (guarded, N);
  p = median (plain, N);
  printf ("spawn of `true`, median of %d: guarded %.3f ms, unguarded %.3f ms, guard adds %.3f ms (%.2fx)\n",
          N, g, p, g - p, g / p);

  g_ptr_array_add (roots, ow_root_new (ws, TRUE, "workspace"));
  open_ex = ow_executor_direct_new (ws);
  ow_executor_set_roots (open_ex, roots);
  guard_ex = ow_executor_direct_new (ws);
  ow_executor_set_roots (guard_ex, roots);
  ow_executor_direct_set_guard (OW_EXECUTOR_DIRECT (guard_ex), &options);
  for (int i = 0; i < WARM_UP; i++)
    {
      command_once (guard_ex);
      command_once (open_ex);
    }
  for (int i = 0; i < N; i++)
    {
      guarded[i] = command_once (guard_ex);
      plain[i] = command_once (open_ex);
    }
  g = median (guarded, N);
  p = median (plain, N);
  printf ("run_shell `true` in a warm shell, median of %d: guarded %.3f ms, unguarded %.3f ms, guard adds %.3f ms\n",
          N, g, p, g - p);
  printf ("enforcement: %s\n", ow_executor_get_enforcement (guard_ex));

  g_object_unref (guard_ex);
  g_object_unref (open_ex);
  ow_guard_free (guard);
  ow_remove_tree (base, NULL);
  return 0;
}
