/* test-body-grep.c: grep with the built-in engine (PATH without rg) and,
 * where it is installed, with ripgrep.
 */
#include "body-test-util.h"

#include <string.h>
#include <unistd.h>

/* Runs @fn with PATH pointing at an empty folder, so rg is not found. */
static char *saved_path;
static char *empty_bin;

static void
hide_rg (void)
{
  saved_path = g_strdup (g_getenv ("PATH"));
  empty_bin = ow_test_make_tmpdir ("ow-body");
  g_setenv ("PATH", empty_bin, TRUE);
}

static void
restore_path (void)
{
  g_setenv ("PATH", saved_path, TRUE);
  g_clear_pointer (&saved_path, g_free);
  body_rm_rf (empty_bin);
  g_clear_pointer (&empty_bin, free);
}

static void
make_tree (const char *ws)
{
  body_write (ws, "src/main.c", "int\nmain (void)\n{\n  int count = 42;\n  return count;\n}\n");
  body_write (ws, "src/util.py", "def count_items(xs):\n    return len(xs)  # count\n");
  body_write (ws, "README.md", "Count the things.\nversion 1.2.3\n");
  body_write (ws, "node_modules/lib/index.js", "var count = 1;\n");
  body_write (ws, "build/gen.c", "int count;\n");
  body_write (ws, "zz.log", "count {braces} and (parens)\n");
}

static const OwTbJson *
match_at (const OwTbJson *r, size_t i)
{
  const OwTbJson *matches = body_array (r, "matches");

  g_assert_cmpuint (i, <, matches->n_items);
  return matches->items[i];
}

static void
test_builtin (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  g_autofree char *bin = NULL;
  OwTbStatus status;
  OwTbJson *r;

  make_tree (ws);
  bin = g_build_filename (ws, "blob.bin", NULL);
  g_assert_true (g_file_set_contents (bin, "count\0\0\0binary", 14, NULL));
  hide_rg ();

  r = body_call (&fx.env, "grep", "{\"pattern\": \"count\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "engine"), ==, "builtin");
  /* Sorted walk; node_modules, build and binary files are skipped. */
  g_assert_cmpint (body_int (r, "count"), ==, 5);
  g_assert_cmpstr (body_str (match_at (r, 0), "file"), ==, "src/main.c");
  g_assert_cmpint (body_int (match_at (r, 0), "line"), ==, 4);
  g_assert_cmpstr (body_str (match_at (r, 0), "text"), ==, "  int count = 42;");
  g_assert_cmpstr (body_str (match_at (r, 1), "file"), ==, "src/main.c");
  g_assert_cmpint (body_int (match_at (r, 1), "line"), ==, 5);
  g_assert_cmpstr (body_str (match_at (r, 2), "file"), ==, "src/util.py");
  g_assert_cmpstr (body_str (match_at (r, 4), "file"), ==, "zz.log");
  g_assert_false (body_bool (r, "truncated"));
  ow_tb_json_free (r);

  /* Perl-style escapes, (?i), glob, path. */
  r = body_call (&fx.env, "grep", "{\"pattern\": \"\\\\d+\\\\.\\\\d+\\\\.\\\\d\"}", &status);
  g_assert_cmpint (body_int (r, "count"), ==, 1);
  g_assert_cmpstr (body_str (match_at (r, 0), "text"), ==, "version 1.2.3");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "grep", "{\"pattern\": \"(?i)^count\\\\s\\\\S+\"}", &status);
  g_assert_cmpint (body_int (r, "count"), ==, 2);
  g_assert_cmpstr (body_str (match_at (r, 0), "file"), ==, "README.md");
  g_assert_cmpstr (body_str (match_at (r, 1), "file"), ==, "zz.log");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "grep", "{\"pattern\": \"count\", \"glob\": \"*.py\"}", &status);
  g_assert_cmpint (body_int (r, "count"), ==, 2);
  g_assert_cmpstr (body_str (match_at (r, 0), "file"), ==, "src/util.py");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "grep", "{\"pattern\": \"\\\\{braces\\\\} and \\\\(p[a-z]+?\\\\)\"}",
                 &status);
  g_assert_cmpint (body_int (r, "count"), ==, 1);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "grep", "{\"pattern\": \"{braces}\", \"path\": \"zz.log\"}", &status);
  g_assert_cmpint (body_int (r, "count"), ==, 1);
  g_assert_cmpstr (body_str (match_at (r, 0), "file"), ==, "zz.log");
  ow_tb_json_free (r);

  /* max_results and context lines. */
  r = body_call (&fx.env, "grep", "{\"pattern\": \"count\", \"max_results\": 2, \"context_lines\": 1}",
                 &status);
  g_assert_cmpint (body_int (r, "count"), ==, 2);
  g_assert_true (body_bool (r, "truncated"));
  {
    const OwTbJson *m = match_at (r, 0), *before = body_array (m, "before"), *after = body_array (m, "after");

    g_assert_cmpuint (before->n_items, ==, 1);
    g_assert_cmpstr (before->items[0]->string, ==, "{");
    g_assert_cmpuint (after->n_items, ==, 1);
    g_assert_cmpstr (after->items[0]->string, ==, "  return count;");
  }
  ow_tb_json_free (r);

  /* Unsupported and invalid patterns, and a path outside the roots. */
  r = body_call (&fx.env, "grep", "{\"pattern\": \"count(?=s)\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "look-arounds"));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "grep", "{\"pattern\": \"a[b\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (g_str_has_prefix (body_str (r, "error"), "invalid pattern: "));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "grep", "{\"pattern\": \"x\", \"path\": \"/\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path escapes the session's directories");
  ow_tb_json_free (r);

  restore_path ();
  body_fixture_clear (&fx);
}

static void
test_ripgrep (void)
{
  BodyFixture fx = { 0 };
  const char *ws;
  g_autofree char *rg = g_find_program_in_path ("rg");
  OwTbStatus status;
  OwTbJson *r;

  if (rg == NULL)
    {
      g_test_skip ("ripgrep (rg) is not installed");
      return;
    }
  ws = body_add_root (&fx, TRUE);
  make_tree (ws);

  r = body_call (&fx.env, "grep", "{\"pattern\": \"count\\\\s*=\\\\s*\\\\d+\", \"context_lines\": 1}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "engine"), ==, "ripgrep");
  /* node_modules is excluded by the --glob list. */
  g_assert_cmpint (body_int (r, "count"), ==, 1);
  g_assert_cmpstr (body_str (match_at (r, 0), "file"), ==, "src/main.c");
  g_assert_cmpint (body_int (match_at (r, 0), "line"), ==, 4);
  g_assert_cmpstr (body_str (match_at (r, 0), "text"), ==, "  int count = 42;");
  g_assert_cmpstr (body_array (match_at (r, 0), "after")->items[0]->string, ==, "  return count;");
  ow_tb_json_free (r);

  /* A single file as the target. */
  r = body_call (&fx.env, "grep", "{\"pattern\": \"len\", \"path\": \"src/util.py\"}", &status);
  g_assert_cmpint (body_int (r, "count"), ==, 1);
  g_assert_cmpstr (body_str (match_at (r, 0), "file"), ==, "src/util.py");
  g_assert_cmpint (body_int (match_at (r, 0), "line"), ==, 2);
  ow_tb_json_free (r);

  r = body_call (&fx.env, "grep", "{\"pattern\": \"nothing-matches-this\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "count"), ==, 0);
  ow_tb_json_free (r);

  r = body_call (&fx.env, "grep", "{\"pattern\": \"a(b\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (g_str_has_prefix (body_str (r, "error"), "grep failed: "));
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

/* Both engines answer in the same, stable order — folder by folder, names
 * in byte order — also when max_results cuts the list short. ripgrep
 * searches files on several threads, so without sorting its order changes
 * from run to run; a tree of many files makes that show. */
static void
make_wide_tree (const char *ws)
{
  for (int d = 0; d < 6; d++)
    for (int f = 0; f < 8; f++)
      {
        g_autofree char *rel = g_strdup_printf ("d%d/sub%d/f%02d.txt", d, f % 2, f);
        g_autofree char *text = g_strdup_printf ("pad\nneedle %d %d\n", d, f);

        body_write (ws, rel, text);
      }
  body_write (ws, "a-top.txt", "needle top\n");
  body_write (ws, "Z-upper.txt", "needle upper\n");
}

static char *
grep_order (BodyFixture *fx, const char *args, const char *engine)
{
  GString *order = g_string_new (NULL);
  const OwTbJson *matches;
  OwTbStatus status;
  OwTbJson *r = body_call (&fx->env, "grep", args, &status);

  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "engine"), ==, engine);
  matches = body_array (r, "matches");
  for (size_t i = 0; i < matches->n_items; i++)
    g_string_append_printf (order, "%s:%d\n", body_str (matches->items[i], "file"),
                            (int) body_int (matches->items[i], "line"));
  ow_tb_json_free (r);
  return g_string_free (order, FALSE);
}

static void
test_same_order (void)
{
  BodyFixture fx = { 0 };
  const char *ws;
  g_autofree char *rg = g_find_program_in_path ("rg");
  g_autofree char *builtin_all = NULL, *builtin_cut = NULL;
  static const char all[] = "{\"pattern\": \"needle\", \"max_results\": 500}";
  static const char cut[] = "{\"pattern\": \"needle\", \"max_results\": 7}";

  if (rg == NULL)
    {
      g_test_skip ("ripgrep (rg) is not installed");
      return;
    }
  ws = body_add_root (&fx, TRUE);
  make_wide_tree (ws);

  hide_rg ();
  builtin_all = grep_order (&fx, all, "builtin");
  builtin_cut = grep_order (&fx, cut, "builtin");
  restore_path ();
  g_assert_true (g_str_has_prefix (builtin_all, "Z-upper.txt:1\na-top.txt:1\nd0/sub0/f00.txt:2\n"));
  g_assert_cmpuint (strlen (builtin_cut), <, strlen (builtin_all));

  for (int round = 0; round < 10; round++)
    {
      g_autofree char *rg_all = grep_order (&fx, all, "ripgrep");
      g_autofree char *rg_cut = grep_order (&fx, cut, "ripgrep");

      g_assert_cmpstr (rg_all, ==, builtin_all);
      g_assert_cmpstr (rg_cut, ==, builtin_cut);
    }
  body_fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/body/grep/builtin", test_builtin);
  g_test_add_func ("/ow/body/grep/ripgrep", test_ripgrep);
  g_test_add_func ("/ow/body/grep/same-order", test_same_order);
  return g_test_run ();
}
