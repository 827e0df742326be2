/* test-files.c: ow_remove_tree() on real folders in a temp dir.
 *
 * The tree holds what a session's scratch folder or a sandbox's home can
 * hold: nested folders, a folder its owner made read-only, and links that
 * point out of the tree, to a file and to a folder. Everything inside goes;
 * what the links point at stays.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ow-files.h"
#include "ow-test-utils.h"

static void
put (const char *dir, const char *rel, const char *text)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
}

static void
test_removes_inside_only (void)
{
  g_autofree char *base = ow_test_make_tmpdir ("ow-files");
  g_autofree char *tree = g_build_filename (base, "tree", NULL);
  g_autofree char *outside = g_build_filename (base, "outside", NULL);
  g_autofree char *outside_file = g_build_filename (outside, "keep.txt", NULL);
  g_autofree char *locked = g_build_filename (tree, "a/locked", NULL);
  g_autofree char *link_dir = g_build_filename (tree, "a/to-outside", NULL);
  g_autofree char *link_file = g_build_filename (tree, "to-keep.txt", NULL);
  g_autoptr(GError) error = NULL;

  put (tree, "top.txt", "top");
  put (tree, "a/b/c/deep.txt", "deep");
  put (tree, "a/locked/inner.txt", "inner");
  put (outside, "keep.txt", "keep");
  put (outside, "sub/also.txt", "also");
  g_assert_cmpint (symlink (outside, link_dir), ==, 0);
  g_assert_cmpint (symlink (outside_file, link_file), ==, 0);
  /* Its owner can neither write nor enter it. */
  g_assert_cmpint (g_chmod (locked, 0), ==, 0);

  g_assert_true (ow_remove_tree (tree, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (tree, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (outside_file, G_FILE_TEST_IS_REGULAR));
  {
    g_autofree char *also = g_build_filename (outside, "sub/also.txt", NULL);

    g_assert_true (g_file_test (also, G_FILE_TEST_IS_REGULAR));
  }

  /* Gone already is fine; a link given as the path goes, its target stays. */
  g_assert_true (ow_remove_tree (tree, &error));
  g_assert_cmpint (symlink (outside, tree), ==, 0);
  g_assert_true (ow_remove_tree (tree, &error));
  g_assert_false (g_file_test (tree, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (outside_file, G_FILE_TEST_IS_REGULAR));
  /* A plain file. */
  g_assert_true (ow_remove_tree (outside_file, &error));
  g_assert_false (g_file_test (outside_file, G_FILE_TEST_EXISTS));

  g_assert_true (ow_remove_tree (base, &error));
  g_assert_false (g_file_test (base, G_FILE_TEST_EXISTS));
}

/* Folders nested deeper than the walk goes are left with an error that
 * says so; everything else is removed. (Root ignores file modes, so depth
 * is the failure every user can stage.) */
static void
test_reports_failure (void)
{
  g_autofree char *base = ow_test_make_tmpdir ("ow-files");
  g_autofree char *tree = g_build_filename (base, "tree", NULL);
  g_autofree char *sibling = g_build_filename (tree, "sibling.txt", NULL);
  GString *deep = g_string_new (tree);
  g_autoptr(GError) error = NULL;

  for (int i = 0; i < 300; i++)
    g_string_append (deep, "/d");
  g_assert_cmpint (g_mkdir_with_parents (deep->str, 0700), ==, 0);
  put (tree, "sibling.txt", "x");
  put (tree, "z/more.txt", "x");

  g_assert_false (ow_remove_tree (tree, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "nested more than 256 deep"));
  g_assert_false (g_file_test (sibling, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (tree, G_FILE_TEST_IS_DIR));
  g_string_free (deep, TRUE);
  g_clear_error (&error);
  /* What is left is removed by a shell's rm; the test's own folder too. */
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", base);

    g_assert_cmpint (system (cmd), ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/files/remove-tree/inside-only", test_removes_inside_only);
  g_test_add_func ("/ow/files/remove-tree/failure", test_reports_failure);
  return g_test_run ();
}
