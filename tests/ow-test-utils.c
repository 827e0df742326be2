/* ow-test-utils.c: waiting on the main loop and a temporary folder, for
 * every test.
 *
 * See ow-test-utils.h. The tick exists so a blocking iteration returns
 * now and then even when nothing in the context is ready: without it a
 * condition that another thread or process makes true, or a wait that
 * never ends, would block forever instead of being checked or failing.
 */
#define G_LOG_DOMAIN "ow-test"

#include "ow-test-utils.h"

#include <stdlib.h>

/* How often a blocked wait looks again at its condition, in ms. */
#define TICK_MS 10

static guint
limit_seconds (void)
{
  const char *env = g_getenv ("OW_TEST_WAIT_SECONDS");
  guint64 s;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, 3600, &s, NULL))
    return (guint) s;
  return 60;
}

static gboolean
on_tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

void
ow_test_wait_begin (OwTestWait   *wait,
                    GMainContext *context,
                    const char   *what,
                    const char   *where)
{
  wait->context = context;
  wait->deadline = g_get_monotonic_time () + (gint64) limit_seconds () * G_USEC_PER_SEC;
  wait->what = what;
  wait->where = where;
  wait->report = NULL;
  wait->report_data = NULL;
  wait->tick = g_timeout_source_new (TICK_MS);
  g_source_set_callback (wait->tick, on_tick_cb, NULL, NULL);
  g_source_set_static_name (wait->tick, "[ow-test] wait tick");
  g_source_attach (wait->tick, context);
}

void
ow_test_wait_step (OwTestWait *wait)
{
  if (g_get_monotonic_time () > wait->deadline)
    {
      if (wait->report != NULL)
        wait->report (wait->report_data, NULL);
      g_error ("%s: waited %u s for %s, and it never happened", wait->where, limit_seconds (), wait->what);
    }
  g_main_context_iteration (wait->context, TRUE);
}

void
ow_test_wait_end (OwTestWait *wait)
{
  g_source_destroy (wait->tick);
  g_clear_pointer (&wait->tick, g_source_unref);
}

void
ow_test_wait_until_at (OwTestCondition  done,
                       gpointer         data,
                       const char      *what,
                       const char      *where)
{
  OwTestWait wait;

  ow_test_wait_begin (&wait, NULL, what, where);
  while (!done (data))
    ow_test_wait_step (&wait);
  ow_test_wait_end (&wait);
}

void
ow_test_wait_flag_at (const gboolean *flag,
                      const char     *what,
                      const char     *where)
{
  OwTestWait wait;

  ow_test_wait_begin (&wait, NULL, what, where);
  while (!*flag)
    ow_test_wait_step (&wait);
  ow_test_wait_end (&wait);
}

void
ow_test_drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean
on_pause_over_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

void
ow_test_spin_for (guint ms)
{
  gboolean over = FALSE;

  g_timeout_add (ms, on_pause_over_cb, &over);
  ow_test_wait_flag_at (&over, "a pause to end", G_STRLOC);
}

char *
ow_test_make_tmpdir (const char *prefix)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmpl = g_strdup_printf ("%s-XXXXXX", prefix);
  g_autofree char *dir = g_dir_make_tmp (tmpl, &error);
  char *real;
  char *canonical;

  g_assert_no_error (error);
  /* Canonical, as the sandbox and the policy compare paths. */
  real = realpath (dir, NULL);
  g_assert_nonnull (real);
  canonical = g_strdup (real);
  free (real);
  return canonical;
}
