/* test-server-files.c: artifacts are read only inside the session's
 * folders, whatever the path or the links say. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ow-json.h"
#include "ow-test-utils.h"
#include "server/ow-server-files.h"

typedef struct {
  char *root;     /* the session's folder, resolved */
  char *outside;  /* a folder next to it holding a secret */
} Fixture;

static void
write_file (const char *dir, const char *name, const char *text, gssize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, len, &error);
  g_assert_no_error (error);
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autofree char *base = ow_test_make_tmpdir ("ow-files");
  g_autofree char *real = realpath (base, NULL);
  g_autofree char *sub = NULL;
  g_autofree char *link = NULL;

  f->root = g_build_filename (real, "ws", NULL);
  f->outside = g_build_filename (real, "outside", NULL);
  g_mkdir (f->root, 0700);
  g_mkdir (f->outside, 0700);
  write_file (f->outside, "secret.txt", "TOP-SECRET", -1);
  write_file (f->root, "notes.md", "# Notes\nhello", -1);
  write_file (f->root, ".hidden.md", "hidden", -1);
  sub = g_build_filename (f->root, "sub", NULL);
  g_mkdir (sub, 0700);
  write_file (sub, "data.csv", "a,b\n1,2\n", -1);
  write_file (f->root, "blob.txt", "ab\0cd", 5);
  write_file (f->root, "tiny.png", "\x89PNG\r\n\x1a\n", 8);
  write_file (f->root, "report.docx", "PK", 2);
  /* Links that point out of the folder, to a file and to a folder. */
  link = g_build_filename (f->root, "escape.txt", NULL);
  {
    g_autofree char *target = g_build_filename (f->outside, "secret.txt", NULL);
    g_assert_cmpint (symlink (target, link), ==, 0);
  }
  g_free (link);
  link = g_build_filename (f->root, "escape-dir", NULL);
  g_assert_cmpint (symlink (f->outside, link), ==, 0);
  g_free (link);
  /* A link that stays inside is fine. */
  link = g_build_filename (f->root, "inside-link.md", NULL);
  g_assert_cmpint (symlink ("notes.md", link), ==, 0);
  {
    g_autofree char *nm = g_build_filename (f->root, "node_modules", NULL);
    g_mkdir (nm, 0700);
    write_file (nm, "pkg.js", "x", -1);
  }
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_autofree char *base = g_path_get_dirname (f->root);
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", base);

  g_assert_cmpint (system (cmd), ==, 0);
  g_free (f->root);
  g_free (f->outside);
}

static JsonObject *
read_in (Fixture *f, const char *path)
{
  const char *roots[] = { f->root, NULL };
  return ow_artifact_read (roots, path);
}

static void
assert_refused (Fixture *f, const char *path, const char *error)
{
  g_autoptr(JsonObject) o = read_in (f, path);
  g_autofree char *text = ow_json_object_to_string (o);

  g_assert_false (ow_json_get_bool (o, "ok", TRUE));
  g_assert_null (strstr (text, "TOP-SECRET"));
  if (error != NULL && g_strcmp0 (ow_json_get_string (o, "error"), error) != 0)
    g_error ("%s: expected \"%s\", got %s", path, error, text);
}

static void
test_escapes (Fixture *f, gconstpointer data)
{
  g_autofree char *abs_secret = g_build_filename (f->outside, "secret.txt", NULL);
  g_autofree char *dotdot = g_strdup ("../outside/secret.txt");
  g_autofree char *sneaky = g_strdup ("sub/../../outside/secret.txt");

  assert_refused (f, "escape.txt", "path escapes workspace");
  assert_refused (f, "escape-dir/secret.txt", "path escapes workspace");
  assert_refused (f, "escape-dir", "path escapes workspace");
  assert_refused (f, dotdot, "path escapes workspace");
  assert_refused (f, sneaky, "path escapes workspace");
  assert_refused (f, abs_secret, "path escapes workspace");
  assert_refused (f, "/etc/passwd", "path escapes workspace");
  assert_refused (f, "/proc/self/environ", "path escapes workspace");
  assert_refused (f, "missing.md", NULL);
  assert_refused (f, "", NULL);
  {
    const char *none[] = { NULL };
    g_autoptr(JsonObject) o = ow_artifact_read (none, "notes.md");
    g_assert_false (ow_json_get_bool (o, "ok", TRUE));
  }
}

static void
test_reads (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) md = read_in (f, "notes.md");
  g_autoptr(JsonObject) link = read_in (f, "inside-link.md");
  g_autoptr(JsonObject) blob = read_in (f, "blob.txt");
  g_autoptr(JsonObject) png = read_in (f, "tiny.png");
  g_autoptr(JsonObject) docx = read_in (f, "report.docx");
  g_autoptr(JsonObject) dir = read_in (f, "sub");
  g_autofree char *abs = g_build_filename (f->root, "notes.md", NULL);
  g_autoptr(JsonObject) by_abs = read_in (f, abs);

  g_assert_true (ow_json_get_bool (md, "ok", FALSE));
  g_assert_cmpstr (ow_json_get_string (md, "kind"), ==, "markdown");
  g_assert_cmpstr (ow_json_get_string (md, "content"), ==, "# Notes\nhello");
  g_assert_false (ow_json_get_bool (md, "truncated", TRUE));
  g_assert_true (ow_json_get_bool (link, "ok", FALSE));
  g_assert_true (ow_json_get_bool (by_abs, "ok", FALSE));
  g_assert_cmpstr (ow_json_get_string (blob, "error"), ==, "binary file cannot be previewed");
  g_assert_cmpstr (ow_json_get_string (png, "kind"), ==, "image");
  g_assert_true (g_str_has_prefix (ow_json_get_string (png, "data_url"), "data:image/png;base64,"));
  g_assert_cmpstr (ow_json_get_string (docx, "kind"), ==, "office");
  g_assert_null (ow_json_get_string (docx, "content"));
  g_assert_cmpstr (ow_json_get_string (dir, "kind"), ==, "folder");
  g_assert_cmpuint (json_array_get_length (ow_json_get_array (dir, "entries")), ==, 1);
}

/* A folder lists its folders first, then everything else by name, whatever
 * order the file system keeps them in. */
static void
test_folder_order (Fixture *f, gconstpointer data)
{
  static const char *const expected[] = {
    "node_modules", "sub", ".hidden.md", "blob.txt", "escape-dir", "escape.txt",
    "inside-link.md", "notes.md", "report.docx", "tiny.png",
  };
  g_autoptr(JsonObject) top = read_in (f, ".");
  JsonArray *entries = ow_json_get_array (top, "entries");

  g_assert_cmpstr (ow_json_get_string (top, "kind"), ==, "folder");
  g_assert_cmpuint (json_array_get_length (entries), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      JsonObject *e = json_array_get_object_element (entries, i);

      g_assert_cmpstr (ow_json_get_string (e, "name"), ==, expected[i]);
      g_assert_cmpint (ow_json_get_bool (e, "dir", FALSE), ==, i < 2);
    }
}

static void
test_truncation (Fixture *f, gconstpointer data)
{
  /* 500,001 bytes of two-byte characters: cut at the limit, on a
   * character boundary, and said so. */
  GString *big = g_string_new (NULL);
  g_autoptr(JsonObject) o = NULL;
  const char *content;

  while (big->len <= OW_ARTIFACT_MAX_TEXT)
    g_string_append (big, "é");
  write_file (f->root, "big.txt", big->str, (gssize) big->len);
  o = read_in (f, "big.txt");
  content = ow_json_get_string (o, "content");
  g_assert_true (ow_json_get_bool (o, "truncated", FALSE));
  g_assert_true (g_utf8_validate (content, -1, NULL));
  g_assert_cmpuint (strlen (content), <=, OW_ARTIFACT_MAX_TEXT);
  g_assert_cmpuint (strlen (content), >=, OW_ARTIFACT_MAX_TEXT - 1);
  g_string_free (big, TRUE);
}

static void
test_list (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonArray) arr = ow_artifacts_list (f->root, 80);
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(JsonArray) few = ow_artifacts_list (f->root, 2);

  for (guint i = 0; i < json_array_get_length (arr); i++)
    g_hash_table_add (names, (gpointer) json_object_get_string_member (json_array_get_object_element (arr, i), "path"));
  g_assert_true (g_hash_table_contains (names, "notes.md"));
  g_assert_true (g_hash_table_contains (names, "sub/data.csv"));
  g_assert_true (g_hash_table_contains (names, "report.docx"));
  g_assert_false (g_hash_table_contains (names, ".hidden.md"));
  g_assert_false (g_hash_table_contains (names, "escape.txt"));
  g_assert_false (g_hash_table_contains (names, "inside-link.md"));
  g_assert_false (g_hash_table_contains (names, "escape-dir/secret.txt"));
  g_assert_false (g_hash_table_contains (names, "node_modules/pkg.js"));
  g_assert_cmpuint (json_array_get_length (few), ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add ("/ow/server/files/escapes", Fixture, NULL, fixture_setup, test_escapes, fixture_teardown);
  g_test_add ("/ow/server/files/reads", Fixture, NULL, fixture_setup, test_reads, fixture_teardown);
  g_test_add ("/ow/server/files/folder-order", Fixture, NULL, fixture_setup, test_folder_order, fixture_teardown);
  g_test_add ("/ow/server/files/truncation", Fixture, NULL, fixture_setup, test_truncation, fixture_teardown);
  g_test_add ("/ow/server/files/list", Fixture, NULL, fixture_setup, test_list, fixture_teardown);
  return g_test_run ();
}
