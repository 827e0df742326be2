/* test-test-utils.c: the helpers every test waits with.
 *
 * A wait returns once its condition holds, whether the main loop made it
 * true or another thread did without waking the loop; a wait whose
 * condition never holds fails the test, naming what it waited for and
 * where, instead of hanging. Draining dispatches what is ready and
 * returns; a temporary folder exists, by its canonical path.
 */
#include <glib/gstdio.h>
#include <stdlib.h>

#include "ow-test-utils.h"

static gboolean
on_idle_set_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
test_flag_from_loop (void)
{
  gboolean done = FALSE;

  g_idle_add (on_idle_set_cb, &done);
  ow_test_wait_flag (&done);
  g_assert_true (done);
}

static gpointer
set_later_thread (gpointer data)
{
  /* Not through the main context: nothing wakes it but the wait's tick. */
  g_usleep (50000);
  g_atomic_int_set ((int *) data, 1);
  return NULL;
}

static gboolean
is_set (gpointer data)
{
  return g_atomic_int_get ((int *) data) != 0;
}

static void
test_condition_from_thread (void)
{
  int flag = 0;
  GThread *thread = g_thread_new ("setter", set_later_thread, &flag);

  ow_test_wait_until (is_set, &flag, "the thread to set the flag");
  g_assert_cmpint (g_atomic_int_get (&flag), ==, 1);
  g_thread_join (thread);
}

static gboolean
on_idle_count_cb (gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_REMOVE;
}

static void
test_expression (void)
{
  guint n = 0;

  for (guint i = 0; i < 3; i++)
    g_idle_add (on_idle_count_cb, &n);
  OW_TEST_WAIT_UNTIL (n == 3);
  g_assert_cmpuint (n, ==, 3);
}

static void
test_drain (void)
{
  gboolean a = FALSE, b = FALSE;

  g_idle_add (on_idle_set_cb, &a);
  g_idle_add (on_idle_set_cb, &b);
  ow_test_drain ();
  g_assert_true (a);
  g_assert_true (b);
  g_assert_false (g_main_context_pending (NULL));
}

static gboolean
never (gpointer data)
{
  return FALSE;
}

static void
test_bound (void)
{
  if (g_test_subprocess ())
    {
      ow_test_wait_until (never, NULL, "something that never happens");
      return;
    }
  /* With the bound at one second, the wait fails and says what and where. */
  g_setenv ("OW_TEST_WAIT_SECONDS", "1", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDIN);
  g_unsetenv ("OW_TEST_WAIT_SECONDS");
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*test-test-utils.c:*waited 1 s for something that never happens*");
}

static void
test_tmpdir (void)
{
  g_autofree char *dir = ow_test_make_tmpdir ("ow-utils");
  g_autofree char *base = g_path_get_basename (dir);
  char *real = realpath (dir, NULL);

  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  g_assert_true (g_str_has_prefix (base, "ow-utils-"));
  g_assert_cmpstr (real, ==, dir);
  free (real);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/tests/utils/flag-from-loop", test_flag_from_loop);
  g_test_add_func ("/ow/tests/utils/condition-from-thread", test_condition_from_thread);
  g_test_add_func ("/ow/tests/utils/expression", test_expression);
  g_test_add_func ("/ow/tests/utils/drain", test_drain);
  g_test_add_func ("/ow/tests/utils/bound", test_bound);
  g_test_add_func ("/ow/tests/utils/tmpdir", test_tmpdir);
  return g_test_run ();
}
