/* bench-desktop.c: how fast the desktop app starts, what it weighs, and
 * how fast it opens a long session.
 *
 *   bench-desktop [PATH-TO-openworker-desktop]
 *
 * Run it under a display with its own session bus, e.g.
 *
 *   xvfb-run -a -s "-screen 0 1280x1024x24" dbus-run-session -- build/bench/bench-desktop
 *
 * Seeds a temporary home (OPENWORKER_HOME and the XDG folders under one
 * temporary folder) with a 500-message session — 250 real turns run
 * through the engine against the scripted model server in this process —
 * then starts the real openworker-desktop there OW_BENCH_RUNS times (5 by
 * default) and prints medians of:
 *
 *   - cold start to the first drawn frame: from just before the spawn to
 *     the main window's first frame-clock "after-paint", which the app
 *     prints (CLOCK_MONOTONIC) when OW_BENCH_FIRST_FRAME is set (see
 *     ui/ow-window-bench.c);
 *   - memory 3 s after start: the PSS of the app and of every process it
 *     started (WebKitWebProcess, WebKitNetworkProcess, their sandbox
 *     helpers), from /proc/PID/smaps_rollup;
 *   - when the app is up: WebKit (a module loaded after the first frame)
 *     and the empty transcript page ready;
 *   - the time to open the 500-message session once the app is up
 *     (OW_BENCH_OPEN_SESSION: from the open call until the page has
 *     applied the whole replay and the next frame is painted), and the
 *     memory 3 s after it opened.
 *
 * The baseline, measured the same way in the same run and interleaved
 * with the app's runs: this program started again as a bare GTK window
 * with one label (--baseline).
 *
 * Goals (issue #6): first frame under 300 ms, under 150 MB with WebKit,
 * the 500-message session open under 200 ms.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "core/ow-context.h"
#include "core/ow-session.h"
#include "core/ow-session-host.h"
#include "ow-model-server.h"

#ifndef OW_DESKTOP_PATH
#define OW_DESKTOP_PATH "openworker-desktop"
#endif

#define N_TURNS      250
#define SETTLE_MS    3000
#define LINE_TIMEOUT 60000

/* ---- The baseline: a bare GTK window ---------------------------------------- */

static void
on_baseline_paint_cb (GdkFrameClock *clock, gpointer user_data)
{
  gulong *id = user_data;

  printf ("OW_BENCH first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  fflush (stdout);
  g_clear_signal_handler (id, clock);
}

static void
on_baseline_map_cb (GtkWidget *widget, gpointer user_data)
{
  gulong *id = user_data;

  *id = g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint", G_CALLBACK (on_baseline_paint_cb), id);
}

static int
run_baseline (void)
{
  static gulong paint_id;
  GtkWidget *window;

  gtk_init ();
  window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (window), "Baseline");
  gtk_window_set_default_size (GTK_WINDOW (window), 1180, 780);
  gtk_window_set_child (GTK_WINDOW (window), gtk_label_new ("What should we work on?"));
  g_signal_connect (window, "map", G_CALLBACK (on_baseline_map_cb), &paint_id);
  gtk_window_present (GTK_WINDOW (window));
  for (;;)
    g_main_context_iteration (NULL, TRUE);
  return 0;
}

/* ---- Figures ------------------------------------------------------------------- */

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (GArray *v)
{
  g_autoptr(GArray) copy = g_array_copy (v);

  if (copy->len == 0)
    return -1;
  g_array_sort (copy, cmp_double);
  return copy->len % 2 ? g_array_index (copy, double, copy->len / 2)
                       : (g_array_index (copy, double, copy->len / 2 - 1) + g_array_index (copy, double, copy->len / 2)) / 2;
}

/* ---- Processes ------------------------------------------------------------------ */

static gboolean
proc_stat (int pid, int *ppid, char **comm)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *text = NULL;
  char *open_paren, *close_paren;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  open_paren = strchr (text, '(');
  close_paren = strrchr (text, ')');
  if (open_paren == NULL || close_paren == NULL || close_paren[1] == '\0')
    return FALSE;
  if (comm != NULL)
    *comm = g_strndup (open_paren + 1, close_paren - open_paren - 1);
  /* ") S PPID ..." */
  *ppid = atoi (close_paren + 4);
  return TRUE;
}

/* @root and every process under it (pids as ints). */
static GArray *
descendants (int root)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GArray) parents = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      int pid = atoi (name), ppid;
      if (pid > 0 && proc_stat (pid, &ppid, NULL))
        {
          g_array_append_val (pids, pid);
          g_array_append_val (parents, ppid);
        }
    }
  g_array_append_val (all, root);
  for (guint i = 0; i < all->len; i++)
    for (guint k = 0; k < pids->len; k++)
      if (g_array_index (parents, int, k) == g_array_index (all, int, i))
        g_array_append_val (all, g_array_index (pids, int, k));
  return all;
}

static double
pss_mib (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/smaps_rollup", pid);
  g_autofree char *text = NULL;
  const char *p;

  if (!g_file_get_contents (path, &text, NULL, NULL) || (p = strstr (text, "\nPss:")) == NULL)
    return 0;
  return g_ascii_strtod (p + 5, NULL) / 1024.0;
}

typedef struct {
  double total;
  double app;
  double web;       /* WebKitWebProcess */
  double network;   /* WebKitNetworkProcess */
  double other;     /* sandbox helpers, the D-Bus proxy */
} Memory;

static Memory
memory_of (int root)
{
  g_autoptr(GArray) all = descendants (root);
  Memory m = { 0 };

  for (guint i = 0; i < all->len; i++)
    {
      int pid = g_array_index (all, int, i), ppid;
      g_autofree char *comm = NULL;
      double pss = pss_mib (pid);

      if (!proc_stat (pid, &ppid, &comm))
        continue;
      m.total += pss;
      if (pid == root)
        m.app += pss;
      else if (g_str_has_prefix (comm, "WebKitWebProces"))
        m.web += pss;
      else if (g_str_has_prefix (comm, "WebKitNetworkPr"))
        m.network += pss;
      else
        m.other += pss;
    }
  return m;
}

typedef struct {
  GPid pid;
  int  out_fd;
  gint64 spawned;   /* µs, CLOCK_MONOTONIC, just before the spawn */
} Child;

static void
spawn_child (Child *c, const char *const *argv, char **envp)
{
  g_autoptr(GError) error = NULL;

  c->spawned = g_get_monotonic_time ();
  if (!g_spawn_async_with_pipes (NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &c->pid, NULL,
                                 &c->out_fd, NULL, &error))
    g_error ("Could not start %s: %s", argv[0], error->message);
}

/* The next "OW_BENCH <what> <value>" line of @c's output, as a number. */
static gint64
read_figure (Child *c, const char *what)
{
  char line[256];
  gsize len = 0;
  gint64 deadline = g_get_monotonic_time () + (gint64) LINE_TIMEOUT * 1000;
  g_autofree char *prefix = g_strdup_printf ("OW_BENCH %s ", what);

  for (;;)
    {
      struct pollfd pfd = { c->out_fd, POLLIN, 0 };
      int left = (int) ((deadline - g_get_monotonic_time ()) / 1000);
      ssize_t n;

      if (left <= 0 || poll (&pfd, 1, left) <= 0)
        g_error ("timed out waiting for \"%s\" from the child", prefix);
      n = read (c->out_fd, line + len, 1);
      if (n <= 0)
        g_error ("the child ended before saying \"%s\"", prefix);
      if (line[len] != '\n' && len < sizeof line - 2)
        {
          len++;
          continue;
        }
      line[len] = '\0';
      len = 0;
      if (g_str_has_prefix (line, prefix))
        return g_ascii_strtoll (line + strlen (prefix), NULL, 10);
    }
}

static void
stop_child (Child *c)
{
  g_autoptr(GArray) all = descendants (c->pid);
  gint64 deadline;

  kill (c->pid, SIGTERM);
  waitpid (c->pid, NULL, 0);
  g_spawn_close_pid (c->pid);
  close (c->out_fd);
  /* WebKit's processes leave with their parent; make sure before the next
   * run is measured. */
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  for (guint i = 1; i < all->len; i++)
    while (kill (g_array_index (all, int, i), 0) == 0)
      {
        if (g_get_monotonic_time () > deadline)
          {
            kill (g_array_index (all, int, i), SIGKILL);
            break;
          }
        g_usleep (20000);
      }
}

static void
settle (void)
{
  g_usleep (SETTLE_MS * 1000);
}

/* ---- Seeding --------------------------------------------------------------------- */

typedef struct {
  guint done;
} Turns;

static void
on_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  Turns *t = user_data;

  if (g_str_equal (event->type, "turn_done"))
    t->done++;
}

/* A session of N_TURNS real turns (2 × N_TURNS messages) under @home;
 * returns its id. */
static char *
seed (const char *home)
{
  g_autoptr(GString) script = g_string_new ("{\"turns\":[");
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(OwModelServer) server = NULL;
  g_autoptr(OwPaths) paths = ow_paths_new_under (home);
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwSessionHost) host = NULL;
  g_autoptr(OwSession) session = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL, *base = NULL;
  g_autofree char *project = g_build_filename (home, "project", NULL);
  OwContextOptions options = { .paths = paths, .isolated = TRUE };
  OwSessionSpec spec = { .workspace = project, .coworker = "cowork" };
  Turns turns = { 0 };
  char *id;

  for (int i = 0; i < N_TURNS; i++)
    g_string_append_printf (script,
                            "%s{\"text\":\"Here is what I found for part %d.\\n\\n"
                            "- The **first** point, with `inline code` and a [link](https://example.org/%d).\\n"
                            "- The second point, a little longer so that it wraps on a narrow window.\\n\\n"
                            "```c\\nint total = %d;\\nprintf (\\\"%%d\\\\n\\\", total);\\n```\\n\\n"
                            "| Quarter | Revenue |\\n|---|---|\\n| Q1 | %d |\\n| Q2 | %d |\\n\\n"
                            "That is the summary.\"}",
                            i == 0 ? "" : ",", i, i, i, i * 100, i * 120);
  g_string_append (script, "]}");
  node = json_from_string (script->str, &error);
  g_assert_no_error (error);
  server = ow_model_server_new (node, &error);
  g_assert_no_error (error);
  url = ow_model_server_get_url (server);
  base = g_strdup_printf ("%s/v1", url);
  g_setenv ("OPENAI_BASE_URL", base, TRUE);
  g_mkdir_with_parents (project, 0700);

  ctx = ow_context_new (&options, &error);
  g_assert_no_error (error);
  host = ow_session_host_new (ctx, "desktop", &error);
  g_assert_no_error (error);
  g_signal_connect (host, "session-event", G_CALLBACK (on_event_cb), &turns);
  session = ow_session_host_create (host, &spec, &error);
  g_assert_no_error (error);
  id = g_strdup (ow_session_get_id (session));
  for (guint i = 0; i < N_TURNS; i++)
    {
      g_autofree char *text = g_strdup_printf ("Question %u: what changed in the quarterly numbers for region %u?", i,
                                               i % 7);
      if (!ow_session_host_send (host, id, text, NULL, &error))
        g_error ("Could not send turn %u: %s", i, error->message);
      while (turns.done <= i)
        g_main_context_iteration (NULL, TRUE);
    }
  messages = ow_store_message_load (ow_context_get_store (ctx), id, &error);
  g_assert_no_error (error);
  {
    /* The person's and the model's messages (the log also keeps notices). */
    guint n = 0;
    for (guint i = 0; i < messages->len; i++)
      n += strstr (g_ptr_array_index (messages, i), "\"role\":\"user\"") != NULL
           || strstr (g_ptr_array_index (messages, i), "\"role\":\"assistant\"") != NULL;
    if (n != 2 * N_TURNS)
      g_error ("The seeded session has %u messages, not %d: the turns did not run", n, 2 * N_TURNS);
  }
  g_signal_handlers_disconnect_by_data (host, &turns);
  return id;
}

/* ---- Main ------------------------------------------------------------------------- */

int
main (int argc, char **argv)
{
  const char *desktop = argc > 1 ? argv[1] : OW_DESKTOP_PATH;
  const char *runs_env = g_getenv ("OW_BENCH_RUNS");
  int runs = runs_env != NULL ? MAX (atoi (runs_env), 1) : 5;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL, *home = NULL, *self_path = NULL, *id = NULL;
  g_autoptr(GArray) base_ms = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) base_mib = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) start_ms = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) built_ms = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) start_mib = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) open_ms = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) ready_ms = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) open_sync_ms = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) open_mib = g_array_new (FALSE, FALSE, sizeof (double));
  Memory last_start = { 0 }, last_open = { 0 };
  char **envp;

  if (argc > 1 && g_str_equal (argv[1], "--baseline"))
    return run_baseline ();
  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("bench-desktop needs a display: run it under xvfb-run (see the top of bench-desktop.c).\n");
      return 1;
    }
  if (!g_file_test (desktop, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_printerr ("%s is not an executable openworker-desktop.\n", desktop);
      return 1;
    }
  self_path = g_file_read_link ("/proc/self/exe", NULL);

  root = g_dir_make_tmp ("ow-bench-desktop-XXXXXX", &error);
  g_assert_no_error (error);
  home = g_build_filename (root, "home", NULL);
  envp = g_get_environ ();
  {
    const char *xdg[][2] = { { "XDG_CONFIG_HOME", "config" }, { "XDG_DATA_HOME", "data" },
                             { "XDG_CACHE_HOME", "cache" }, { "XDG_STATE_HOME", "state" },
                             { "XDG_RUNTIME_DIR", "run" } };
    for (guint i = 0; i < G_N_ELEMENTS (xdg); i++)
      {
        g_autofree char *dir = g_build_filename (root, xdg[i][1], NULL);
        g_mkdir_with_parents (dir, 0700);
        envp = g_environ_setenv (envp, xdg[i][0], dir, TRUE);
        g_setenv (xdg[i][0], dir, TRUE);
      }
  }
  g_setenv ("OPENAI_API_KEY", "sk-bench-desktop", TRUE);
  g_setenv ("OPENWORKER_MODEL", "openai:gpt-4o", TRUE);
  envp = g_environ_setenv (envp, "OPENWORKER_HOME", home, TRUE);
  envp = g_environ_setenv (envp, "OPENAI_API_KEY", "sk-bench-desktop", TRUE);
  envp = g_environ_setenv (envp, "OPENWORKER_MODEL", "openai:gpt-4o", TRUE);
  envp = g_environ_setenv (envp, "OPENWORKER_SECRET_STORE", "file", TRUE);
  envp = g_environ_setenv (envp, "OW_BENCH_FIRST_FRAME", "1", TRUE);
  envp = g_environ_unsetenv (envp, "G_MESSAGES_DEBUG");

  {
    gint64 t0 = g_get_monotonic_time ();
    id = seed (home);
    printf ("seeded a %d-message session in %.1f s\n", 2 * N_TURNS, (g_get_monotonic_time () - t0) / 1e6);
  }

  for (int r = 0; r < runs; r++)
    {
      Child c;
      double ms, sync, built;

      /* The baseline: this program as a bare window with one label. */
      {
        const char *argv_base[] = { self_path, "--baseline", NULL };
        spawn_child (&c, argv_base, envp);
        ms = (read_figure (&c, "first-frame") - c.spawned) / 1000.0;
        g_array_append_val (base_ms, ms);
        settle ();
        {
          double mib = memory_of (c.pid).total;
          g_array_append_val (base_mib, mib);
        }
        stop_child (&c);
      }
      /* The app, started on the seeded home, a new session on screen. */
      {
        const char *argv_app[] = { desktop, NULL };
        spawn_child (&c, argv_app, envp);
        built = (read_figure (&c, "window-built") - c.spawned) / 1000.0;
        g_array_append_val (built_ms, built);
        ms = (read_figure (&c, "first-frame") - c.spawned) / 1000.0;
        g_array_append_val (start_ms, ms);
        settle ();
        last_start = memory_of (c.pid);
        g_array_append_val (start_mib, last_start.total);
        stop_child (&c);
      }
      /* The app again, opening the 500-message session once it is up. */
      {
        const char *argv_app[] = { desktop, NULL };
        char **env_open = g_environ_setenv (g_strdupv (envp), "OW_BENCH_OPEN_SESSION", id, TRUE);
        spawn_child (&c, argv_app, env_open);
        g_strfreev (env_open);
        read_figure (&c, "first-frame");
        ms = (read_figure (&c, "ready") - c.spawned) / 1000.0;
        g_array_append_val (ready_ms, ms);
        sync = read_figure (&c, "session-open-sync") / 1000.0;
        g_array_append_val (open_sync_ms, sync);
        ms = read_figure (&c, "session-open") / 1000.0;
        g_array_append_val (open_ms, ms);
        settle ();
        last_open = memory_of (c.pid);
        g_array_append_val (open_mib, last_open.total);
        stop_child (&c);
      }
      printf ("run %d: first frame %.0f ms (baseline %.0f ms), open %.0f ms, %.1f / %.1f MiB\n", r + 1,
              g_array_index (start_ms, double, r), g_array_index (base_ms, double, r),
              g_array_index (open_ms, double, r), g_array_index (start_mib, double, r),
              g_array_index (open_mib, double, r));
      fflush (stdout);
    }

  printf ("\nopenworker-desktop, median of %d runs (baseline: a bare GTK 4 window with one label)\n", runs);
  printf ("  first frame after spawn      %7.1f ms   baseline %6.1f ms   ratio %.2f   goal < 300 ms\n",
          median (start_ms), median (base_ms), median (start_ms) / median (base_ms));
  printf ("    of which spawn to the window built (engine, API, widgets): %.1f ms\n", median (built_ms));
  printf ("    WebKit loaded and the transcript page ready after: %.1f ms\n", median (ready_ms));
  printf ("  PSS 3 s after start          %7.1f MiB  baseline %6.1f MiB  ratio %.2f   goal < 150 MB\n",
          median (start_mib), median (base_mib), median (start_mib) / median (base_mib));
  printf ("    last run: app %.1f + WebKitWebProcess %.1f + WebKitNetworkProcess %.1f + other %.1f MiB\n",
          last_start.app, last_start.web, last_start.network, last_start.other);
  printf ("  open a %d-message session    %7.1f ms                                   goal < 200 ms\n",
          2 * N_TURNS, median (open_ms));
  printf ("    of which reading the log and rendering it in the app: %.1f ms\n", median (open_sync_ms));
  printf ("  PSS with that session open   %7.1f MiB  ratio to baseline %.2f               goal < 150 MB\n",
          median (open_mib), median (open_mib) / median (base_mib));
  printf ("    last run: app %.1f + WebKitWebProcess %.1f + WebKitNetworkProcess %.1f + other %.1f MiB\n",
          last_open.app, last_open.web, last_open.network, last_open.other);

  g_strfreev (envp);
  if (g_getenv ("OW_BENCH_KEEP") != NULL)
    {
      printf ("kept %s (session %s)\n", root, id);
      return 0;
    }
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    if (system (cmd) != 0)
      g_printerr ("Could not remove %s\n", root);
  }
  return 0;
}
