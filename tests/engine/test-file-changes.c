/* test-file-changes.c: the walks that find what a shell command changed
 * (core/ow-file-changes.h), in the calling thread and in a worker thread.
 *
 *   sync          new and changed files found, the skipped folders skipped,
 *                 what was only read not reported
 *   async-big     a big folder walked in a worker thread gives the same
 *                 snapshot and the same changes, in the same order, while
 *                 the main loop goes on dispatching
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "core/ow-file-changes.h"
#include "ow-files.h"
#include "ow-test-utils.h"

static void
write_file (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  FILE *f;

  /* Plain writes: thousands of them, and nothing here needs them durable. */
  g_mkdir_with_parents (parent, 0700);
  f = fopen (path, "w");
  g_assert_nonnull (f);
  g_assert_cmpint (fputs (text, f), >=, 0);
  g_assert_cmpint (fclose (f), ==, 0);
}

static char *
fresh_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ow-changes-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static GStrv
changes_as_names (GPtrArray *changes, const char *root)
{
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();

  for (guint i = 0; i < changes->len; i++)
    {
      const char *path = g_ptr_array_index (changes, i);

      g_assert_true (g_str_has_prefix (path, root));
      g_strv_builder_add (names, path + strlen (root) + 1);
    }
  return g_strv_builder_end (names);
}

static void
test_sync (void)
{
  g_autofree char *dir = fresh_dir ();
  const char *roots[] = { dir, NULL };
  g_autoptr(OwFileSnapshot) before = NULL;
  g_autoptr(OwFileSnapshot) after = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  g_auto(GStrv) names = NULL;
  const char *expected[] = { "edited.txt", "made.txt", "out/deep/t.csv", NULL };

  write_file (dir, "old.txt", "untouched");
  write_file (dir, "edited.txt", "before");
  before = ow_file_snapshot_take (roots);
  write_file (dir, "made.txt", "one");
  write_file (dir, "out/deep/t.csv", "a,b");
  write_file (dir, "edited.txt", "after, longer");
  write_file (dir, ".git/HEAD", "x");
  write_file (dir, "node_modules/m.js", "y");
  after = ow_file_snapshot_take (roots);
  changes = ow_file_snapshot_changes (before, after);
  names = changes_as_names (changes, dir);
  g_assert_cmpstrv (names, expected);
  ow_remove_tree (dir, NULL);
}

/* ---- In a worker thread ---------------------------------------------------------- */

typedef struct {
  gboolean        done;
  OwFileSnapshot *snapshot;
  GPtrArray      *changes;
  guint           ticks_before;  /* idle dispatches seen when the result came */
} Walked;

static void
on_taken_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Walked *w = user_data;
  g_autoptr(GError) error = NULL;

  w->snapshot = ow_file_snapshot_take_finish (result, &error);
  g_assert_no_error (error);
  w->done = TRUE;
}

static void
on_changes_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Walked *w = user_data;
  g_autoptr(GError) error = NULL;

  w->changes = ow_file_snapshot_changes_finish (result, &error);
  g_assert_no_error (error);
  w->done = TRUE;
}

typedef struct {
  guint     ticks;
  gboolean *stop;
} Ticker;

/* Runs at every main loop iteration until told to stop. */
static gboolean
tick_cb (gpointer data)
{
  Ticker *t = data;

  t->ticks++;
  return *t->stop ? G_SOURCE_REMOVE : G_SOURCE_CONTINUE;
}

/* Iterates the main loop, with a ticking idle source, until @w is done. */
static void
spin_ticking (Walked *w)
{
  Ticker ticker = { 0, &w->done };

  g_idle_add (tick_cb, &ticker);
  ow_test_wait_flag (&w->done);
  w->ticks_before = ticker.ticks;
  /* Let the ticker see the stop, so it is gone before @ticker is. */
  ow_test_drain ();
}

static void
test_async_big (void)
{
  g_autofree char *dir = fresh_dir ();
  const char *roots[] = { dir, NULL };
  g_autoptr(OwFileSnapshot) sync_before = NULL;
  g_autoptr(OwFileSnapshot) sync_after = NULL;
  g_autoptr(GPtrArray) sync_changes = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_auto(GStrv) names = NULL;
  Walked taken = { 0 };
  Walked changed = { 0 };

  /* Big: 6,000 files in 60 folders, plus skipped ones. */
  for (guint d = 0; d < 60; d++)
    for (guint i = 0; i < 100; i++)
      {
        g_autofree char *name = g_strdup_printf ("d%02u/f%03u.txt", d, i);
        write_file (dir, name, "x");
      }
  write_file (dir, "node_modules/big/m.js", "y");

  sync_before = ow_file_snapshot_take (roots);
  ow_file_snapshot_take_async (roots, NULL, on_taken_cb, &taken);
  spin_ticking (&taken);
  g_assert_nonnull (taken.snapshot);
  g_assert_cmpuint (taken.ticks_before, >, 0);
  /* The same snapshot: nothing differs between the two walks. */
  none = ow_file_snapshot_changes (sync_before, taken.snapshot);
  g_assert_cmpuint (none->len, ==, 0);
  g_clear_pointer (&none, g_ptr_array_unref);
  none = ow_file_snapshot_changes (taken.snapshot, sync_before);
  g_assert_cmpuint (none->len, ==, 0);

  /* A command's work: new files, a changed one, one in a skipped folder. */
  write_file (dir, "d59/new.csv", "a,b");
  write_file (dir, "a-first.txt", "1");
  write_file (dir, "d07/f042.txt", "changed, longer");
  write_file (dir, "node_modules/big/new.js", "z");
  sync_after = ow_file_snapshot_take (roots);
  sync_changes = ow_file_snapshot_changes (sync_before, sync_after);

  /* The worker thread owns the snapshot it compares with. */
  ow_file_snapshot_changes_async (g_steal_pointer (&taken.snapshot), roots, NULL, on_changes_cb, &changed);
  spin_ticking (&changed);
  g_assert_cmpuint (changed.ticks_before, >, 0);
  g_assert_cmpuint (changed.changes->len, ==, sync_changes->len);
  for (guint i = 0; i < sync_changes->len; i++)
    g_assert_cmpstr (g_ptr_array_index (changed.changes, i), ==, g_ptr_array_index (sync_changes, i));
  names = changes_as_names (changed.changes, dir);
  {
    const char *expected[] = { "a-first.txt", "d07/f042.txt", "d59/new.csv", NULL };
    g_assert_cmpstrv (names, expected);
  }
  g_ptr_array_unref (changed.changes);
  ow_remove_tree (dir, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/engine/file-changes/sync", test_sync);
  g_test_add_func ("/ow/engine/file-changes/async-big", test_async_big);
  return g_test_run ();
}
