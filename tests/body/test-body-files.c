/* test-body-files.c: confinement, read_file, write_file, replace_in_file,
 * list_files.
 */
#include "body-test-util.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <glib/gstdio.h>

/* ---- confinement ---- */

static void
test_paths_escape (void)
{
  BodyFixture fx = { 0 };
  const char *ws, *outside;
  g_autofree char *link = NULL, *abs_outside = NULL;
  OwTbStatus status;
  OwTbJson *r;

  ws = body_add_root (&fx, TRUE);
  outside = ow_test_make_tmpdir ("ow-body");
  body_write (outside, "secret.txt", "top secret\n");
  abs_outside = g_build_filename (outside, "secret.txt", NULL);

  /* "..": resolved before the check. */
  r = body_callf (&fx.env, "read_file", &status, "{\"path\": %s}",
                  body_qf ("../%s/secret.txt", strrchr (outside, '/') + 1));
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path escapes the session's directories");
  ow_tb_json_free (r);

  /* An absolute path outside every root. */
  r = body_callf (&fx.env, "read_file", &status, "{\"path\": %s}", body_q (abs_outside));
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path escapes the session's directories");
  ow_tb_json_free (r);

  /* A symlink inside the root that points outside it. */
  link = g_build_filename (ws, "innocent", NULL);
  g_assert_cmpint (symlink (outside, link), ==, 0);
  r = body_call (&fx.env, "read_file", "{\"path\": \"innocent/secret.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path escapes the session's directories");
  ow_tb_json_free (r);

  /* …and writing a new file through it. */
  r = body_call (&fx.env, "write_file", "{\"path\": \"innocent/new.txt\", \"content\": \"x\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path is not in a writable directory: innocent/new.txt");
  ow_tb_json_free (r);
  g_assert_false (body_exists (outside, "new.txt"));

  /* A new file whose path climbs out after a folder that does not exist. */
  r = body_callf (&fx.env, "write_file", &status, "{\"path\": %s, \"content\": \"x\"}",
                  body_qf ("nothere/../../%s/evil.txt", strrchr (outside, '/') + 1));
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "path is not in a writable directory: "));
  ow_tb_json_free (r);
  g_assert_false (body_exists (outside, "evil.txt"));

  /* A symlink that stays inside is fine. */
  body_write (ws, "real.txt", "inside\n");
  g_assert_cmpint (symlink ("real.txt", body_path (ws, "alias.txt")), ==, 0);
  r = body_call (&fx.env, "read_file", "{\"path\": \"alias.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "path"), ==, "real.txt");
  g_assert_cmpstr (body_str (r, "content"), ==, "     1\tinside");
  ow_tb_json_free (r);

  body_rm_rf (outside);
  free ((char *) outside);
  body_fixture_clear (&fx);
}

static void
test_paths_roots (void)
{
  BodyFixture fx = { 0 };
  const char *ws, *ro;
  g_autofree char *nested = NULL;
  OwTbStatus status;
  OwTbJson *r;

  ws = body_add_root (&fx, TRUE);
  ro = body_add_root (&fx, FALSE);
  body_write (ro, "doc.txt", "reference\n");

  /* Reading an absolute path inside a secondary root works… */
  r = body_callf (&fx.env, "read_file", &status, "{\"path\": %s}",
                  body_q (body_path (ro, "doc.txt")));
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "content"), ==, "     1\treference");
  ow_tb_json_free (r);

  /* …writing there does not, with any file tool. */
  r = body_callf (&fx.env, "write_file", &status, "{\"path\": %s, \"content\": \"changed\"}",
                  body_q (body_path (ro, "doc.txt")));
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "path is not in a writable directory: /"));
  ow_tb_json_free (r);
  r = body_callf (&fx.env, "replace_in_file", &status,
                  "{\"path\": %s, \"old\": \"reference\", \"new\": \"x\"}",
                  body_q (body_path (ro, "doc.txt")));
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "path is not in a writable directory"));
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ro, "doc.txt"), ==, "reference\n");

  /* A read-only root nested in a writable one stays read-only. */
  nested = g_build_filename (ws, "vendor", NULL);
  g_mkdir (nested, 0755);
  fx.roots[fx.n_roots].path = nested;
  fx.roots[fx.n_roots].writable = 0;
  fx.env.n_roots = fx.n_roots + 1;
  r = body_call (&fx.env, "write_file", "{\"path\": \"vendor/x.txt\", \"content\": \"x\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path is not in a writable directory: vendor/x.txt");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "write_file", "{\"path\": \"top.txt\", \"content\": \"x\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  ow_tb_json_free (r);
  fx.env.n_roots = fx.n_roots;

  body_fixture_clear (&fx);
}

static void
test_paths_home (void)
{
  BodyFixture fx = { 0 };
  const char *ws;
  OwTbStatus status;
  OwTbJson *r;
  const char *old_home = g_getenv ("HOME");
  g_autofree char *saved = g_strdup (old_home);

  ws = body_add_root (&fx, TRUE);
  body_write (ws, "notes.txt", "from home\n");
  g_setenv ("HOME", ws, TRUE);
  r = body_call (&fx.env, "read_file", "{\"path\": \"~/notes.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "content"), ==, "     1\tfrom home");
  ow_tb_json_free (r);
  /* "~" in the middle is a plain character. */
  r = body_call (&fx.env, "write_file", "{\"path\": \"a~b.txt\", \"content\": \"t\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "path"), ==, "a~b.txt");
  ow_tb_json_free (r);
  g_setenv ("HOME", saved, TRUE);
  body_fixture_clear (&fx);
}

/* ---- read_file ---- */

static void
test_read_paging (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  GString *text = g_string_new (NULL);
  OwTbStatus status;
  OwTbJson *r;

  for (int i = 1; i <= 2500; i++)
    g_string_append_printf (text, "line %d\n", i);
  body_write (ws, "big.txt", text->str);

  r = body_call (&fx.env, "read_file", "{\"path\": \"big.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "start_line"), ==, 1);
  g_assert_cmpint (body_int (r, "end_line"), ==, 2000);
  g_assert_cmpint (body_int (r, "total_lines"), ==, 2500);
  g_assert_true (g_str_has_prefix (body_str (r, "content"), "     1\tline 1\n     2\tline 2\n"));
  g_assert_true (g_str_has_suffix (body_str (r, "content"), "  2000\tline 2000"));
  g_assert_cmpstr (body_str (r, "note"), ==,
                   "showing lines 1-2000 of 2500; call again with start_line=2001 to continue");
  ow_tb_json_free (r);

  r = body_call (&fx.env, "read_file", "{\"path\": \"big.txt\", \"start_line\": 2001, \"max_lines\": 5000}",
                 &status);
  g_assert_cmpint (body_int (r, "end_line"), ==, 2500);
  g_assert_null (ow_tb_json_get (r, "note"));
  g_assert_true (g_str_has_prefix (body_str (r, "content"), "  2001\tline 2001\n"));
  ow_tb_json_free (r);

  r = body_call (&fx.env, "read_file", "{\"path\": \"big.txt\", \"start_line\": 10, \"max_lines\": 2}",
                 &status);
  g_assert_cmpstr (body_str (r, "content"), ==, "    10\tline 10\n    11\tline 11");
  g_assert_cmpstr (body_str (r, "note"), ==,
                   "showing lines 10-11 of 2500; call again with start_line=12 to continue");
  ow_tb_json_free (r);

  r = body_call (&fx.env, "read_file", "{\"path\": \"big.txt\", \"start_line\": 3000}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "content"), ==, "");
  g_assert_nonnull (strstr (body_str (r, "note"), "past the end"));
  ow_tb_json_free (r);
  g_string_free (text, TRUE);
  body_fixture_clear (&fx);
}

static void
test_read_lines (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  GString *longline = g_string_new (NULL);
  g_autofree char *expected = NULL;
  OwTbStatus status;
  OwTbJson *r;

  /* 600 two-byte characters: cut at 500 characters, not bytes. */
  for (int i = 0; i < 600; i++)
    g_string_append (longline, "\xc3\xa9");
  g_string_prepend (longline, "short\n");
  g_string_append (longline, "\nend");
  body_write (ws, "long.txt", longline->str);
  g_string_erase (longline, 0, 6);
  r = body_call (&fx.env, "read_file", "{\"path\": \"long.txt\"}", &status);
  g_string_truncate (longline, 1000);
  expected = g_strdup_printf ("     1\tshort\n     2\t%s\xe2\x80\xa6 (line truncated)\n     3\tend",
                              longline->str);
  g_assert_cmpstr (body_str (r, "content"), ==, expected);
  g_assert_cmpint (body_int (r, "total_lines"), ==, 3);
  ow_tb_json_free (r);

  /* CRLF line ends are shown without the CR; an empty file has no lines. */
  body_write (ws, "dos.txt", "a\r\nb\r\n");
  r = body_call (&fx.env, "read_file", "{\"path\": \"dos.txt\"}", &status);
  g_assert_cmpstr (body_str (r, "content"), ==, "     1\ta\n     2\tb");
  ow_tb_json_free (r);
  body_write (ws, "empty.txt", "");
  r = body_call (&fx.env, "read_file", "{\"path\": \"empty.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "total_lines"), ==, 0);
  g_assert_cmpint (body_int (r, "end_line"), ==, 0);
  g_assert_cmpstr (body_str (r, "content"), ==, "");
  ow_tb_json_free (r);
  g_string_free (longline, TRUE);
  body_fixture_clear (&fx);
}

static void
test_read_refusals (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  g_autofree char *bin = g_build_filename (ws, "image.bin", NULL);
  static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
  GString *late = g_string_new (NULL);
  OwTbStatus status;
  OwTbJson *r;

  g_assert_true (g_file_set_contents (bin, png, sizeof png - 1, NULL));
  r = body_call (&fx.env, "read_file", "{\"path\": \"image.bin\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (body_bool (r, "binary"));
  g_assert_cmpint (body_int (r, "size"), ==, 16);
  g_assert_nonnull (strstr (body_str (r, "error"), "binary file (16 bytes)"));
  g_assert_nonnull (strstr (body_str (r, "error"), "run_shell"));
  g_assert_nonnull (strstr (body_str (r, "error"), "xxd image.bin | head"));
  g_assert_null (ow_tb_json_get (r, "content"));
  ow_tb_json_free (r);

  /* Invalid UTF-8 far past the first 8 KiB is caught too. */
  for (int i = 0; i < 5000; i++)
    g_string_append (late, "text line\n");
  g_string_append (late, "latin-1: caf\xe9\n");
  body_write (ws, "latin1.txt", late->str);
  r = body_call (&fx.env, "read_file", "{\"path\": \"latin1.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (body_bool (r, "binary"));
  ow_tb_json_free (r);

  r = body_call (&fx.env, "read_file", "{\"path\": \".\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "not a file: .");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "read_file", "{\"path\": \"missing.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "not a file: missing.txt");
  ow_tb_json_free (r);
  g_string_free (late, TRUE);
  body_fixture_clear (&fx);
}

/* ---- write_file ---- */

static void
test_write (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  g_autofree char *script = g_build_filename (ws, "run.sh", NULL);
  GDir *dir;
  const char *name;
  struct stat st;
  OwTbStatus status;
  OwTbJson *r;

  r = body_call (&fx.env, "write_file", "{\"path\": \"deep/er/new.txt\", \"content\": \"h\\u00e9llo\\n\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "path"), ==, "deep/er/new.txt");
  g_assert_cmpint (body_int (r, "bytes"), ==, 7);
  g_assert_true (body_bool (r, "created"));
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "deep/er/new.txt"), ==, "h\xc3\xa9llo\n");

  /* overwrite=false refuses an existing file and leaves it alone. */
  r = body_call (&fx.env, "write_file", "{\"path\": \"deep/er/new.txt\", \"content\": \"x\", \"overwrite\": false}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (g_str_has_prefix (body_str (r, "error"), "file already exists: deep/er/new.txt"));
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "deep/er/new.txt"), ==, "h\xc3\xa9llo\n");

  r = body_call (&fx.env, "write_file", "{\"path\": \"deep\", \"content\": \"x\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path is a directory: deep");
  ow_tb_json_free (r);

  /* Overwriting keeps the file's mode (an executable stays executable). */
  body_write (ws, "run.sh", "#!/bin/sh\n");
  g_assert_cmpint (chmod (script, 0751), ==, 0);
  r = body_call (&fx.env, "write_file", "{\"path\": \"run.sh\", \"content\": \"#!/bin/sh\\necho hi\\n\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_false (body_bool (r, "created"));
  ow_tb_json_free (r);
  g_assert_cmpint (stat (script, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0751);
  g_assert_cmpstr (body_read (ws, "run.sh"), ==, "#!/bin/sh\necho hi\n");

  /* The temporary files of the atomic writes are all gone. */
  dir = g_dir_open (ws, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_null (strstr (name, "ow-tmp"));
  g_dir_close (dir);
  body_fixture_clear (&fx);
}

/* ---- replace_in_file ---- */

static void
test_replace (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  OwTbStatus status;
  OwTbJson *r;

  body_write (ws, "a.py", "def f():\n    return 1\n\nx = f()\ny = f()\n");
  r = body_call (&fx.env, "replace_in_file",
                 "{\"path\": \"a.py\", \"old\": \"return 1\", \"new\": \"return 2\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "path"), ==, "a.py");
  g_assert_cmpint (body_int (r, "replacements"), ==, 1);
  g_assert_cmpint (body_int (r, "chars_before"), ==, 39);
  g_assert_cmpint (body_int (r, "chars_after"), ==, 39);
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "a.py"), ==, "def f():\n    return 2\n\nx = f()\ny = f()\n");

  /* Two matches where one was expected: nothing changes. */
  r = body_call (&fx.env, "replace_in_file", "{\"path\": \"a.py\", \"old\": \"f()\", \"new\": \"g()\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (g_str_has_prefix (body_str (r, "error"), "Expected 1 replacement(s), found 3"));
  g_assert_nonnull (strstr (body_str (r, "error"), "expected_replacements to 3"));
  g_assert_cmpint (body_int (r, "found"), ==, 3);
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "a.py"), ==, "def f():\n    return 2\n\nx = f()\ny = f()\n");

  r = body_call (&fx.env, "replace_in_file",
                 "{\"path\": \"a.py\", \"old\": \"f()\", \"new\": \"g()\", \"expected_replacements\": 3}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "replacements"), ==, 3);
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "a.py"), ==, "def g():\n    return 2\n\nx = g()\ny = g()\n");

  /* Not found, but present with other whitespace: the hint says so. */
  r = body_call (&fx.env, "replace_in_file",
                 "{\"path\": \"a.py\", \"old\": \"def g():\\n  return 2\", \"new\": \"x\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (g_str_has_prefix (body_str (r, "error"), "Expected 1 replacement(s), found 0"));
  g_assert_nonnull (strstr (body_str (r, "error"), "near line 1 if whitespace is ignored"));
  ow_tb_json_free (r);

  /* Not found at all: the closest line is offered. */
  r = body_call (&fx.env, "replace_in_file",
                 "{\"path\": \"a.py\", \"old\": \"y = g(1)\", \"new\": \"x\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "The closest line in the file is line 5: y = g()"));
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "a.py"), ==, "def g():\n    return 2\n\nx = g()\ny = g()\n");

  r = body_call (&fx.env, "replace_in_file", "{\"path\": \"a.py\", \"old\": \"\", \"new\": \"x\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  g_assert_nonnull (strstr (body_str (r, "error"), "\"old\" must not be empty"));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "replace_in_file",
                 "{\"path\": \"a.py\", \"old\": \"g\", \"new\": \"x\", \"expected_replacements\": 0}", &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "replace_in_file", "{\"path\": \"nope.py\", \"old\": \"a\", \"new\": \"b\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "not a file: nope.py");
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

/* ---- list_files ---- */

static void
test_list (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  const OwTbJson *files;
  OwTbStatus status;
  OwTbJson *r;

  body_write (ws, "b.py", "");
  body_write (ws, "a.txt", "");
  body_write (ws, ".hidden.py", "");
  body_write (ws, "src/main.py", "");
  body_write (ws, "src/util/helpers.py", "");
  body_write (ws, "node_modules/pkg/index.js", "");
  body_write (ws, ".git/config", "");
  body_write (ws, "__pycache__/b.cpython.pyc", "");
  body_write (ws, "build/out.py", "");

  r = body_call (&fx.env, "list_files", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  files = body_array (r, "files");
  g_assert_cmpint (body_int (r, "count"), ==, 5);
  g_assert_cmpuint (files->n_items, ==, 5);
  g_assert_cmpstr (files->items[0]->string, ==, ".hidden.py");
  g_assert_cmpstr (files->items[1]->string, ==, "a.txt");
  g_assert_cmpstr (files->items[2]->string, ==, "b.py");
  g_assert_cmpstr (files->items[3]->string, ==, "src/main.py");
  g_assert_cmpstr (files->items[4]->string, ==, "src/util/helpers.py");
  g_assert_false (body_bool (r, "truncated"));
  ow_tb_json_free (r);

  r = body_call (&fx.env, "list_files", "{\"path\": \"src\", \"pattern\": \"*.py\", \"recursive\": false}",
                 &status);
  files = body_array (r, "files");
  g_assert_cmpstr (body_str (r, "path"), ==, "src");
  g_assert_cmpuint (files->n_items, ==, 1);
  g_assert_cmpstr (files->items[0]->string, ==, "src/main.py");
  ow_tb_json_free (r);

  r = body_call (&fx.env, "list_files", "{\"pattern\": \"*.py\", \"max_results\": 2}", &status);
  files = body_array (r, "files");
  g_assert_cmpuint (files->n_items, ==, 2);
  g_assert_cmpint (body_int (r, "count"), ==, 2);
  g_assert_true (body_bool (r, "truncated"));
  g_assert_true (body_array_has (files, ".hidden.py"));
  g_assert_true (body_array_has (files, "b.py"));
  ow_tb_json_free (r);

  r = body_call (&fx.env, "list_files", "{\"path\": \"a.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (g_str_has_prefix (body_str (r, "error"), "not a directory: a.txt"));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "list_files", "{\"path\": \"..\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path escapes the session's directories");
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

/* ---- races and hard links ---- */

/* Swaps two names back and forth until told to stop: "flip" is a real
 * folder one moment and a symlink to a folder outside the root the next. */
typedef struct {
  const char *a;       /* ws/flip: starts as the real folder */
  const char *b;       /* ws/other: starts as the symlink to outside */
  gint        stop;
  guint       swaps;
  GThread    *thread;
} Flipper;

static gpointer
flip_thread (gpointer data)
{
  Flipper *f = data;

  while (!g_atomic_int_get (&f->stop))
    if (renameat2 (AT_FDCWD, f->a, AT_FDCWD, f->b, RENAME_EXCHANGE) == 0)
      f->swaps++;
  return NULL;
}

/* Makes ws/flip (a folder, unless it exists) and ws/other (a link to
 * @outside) and starts swapping them. */
static void
flipper_start (Flipper *f, const char *ws, const char *outside)
{
  if (!body_exists (ws, "flip"))
    g_assert_cmpint (g_mkdir (body_path (ws, "flip"), 0755), ==, 0);
  g_assert_cmpint (symlink (outside, body_path (ws, "other")), ==, 0);
  f->a = body_path (ws, "flip");
  f->b = body_path (ws, "other");
  f->thread = g_thread_new ("flipper", flip_thread, f);
}

/* Stops swapping and leaves ws/flip the real folder again. */
static void
flipper_stop (Flipper *f)
{
  struct stat st;

  g_atomic_int_set (&f->stop, 1);
  g_thread_join (f->thread);
  if (lstat (f->a, &st) != 0 || !S_ISDIR (st.st_mode))
    g_assert_cmpint (renameat2 (AT_FDCWD, f->a, AT_FDCWD, f->b, RENAME_EXCHANGE), ==, 0);
}

/* How many names in @dir start with @prefix. */
static guint
count_files (const char *dir, const char *prefix)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix))
      n++;
  g_dir_close (d);
  return n;
}

/* write_file 200 times into a folder that keeps turning into a symlink
 * to outside: not one file may land outside, and the writes that found
 * the real folder must have worked. The check of the same race against
 * opening by name (what the tools did) shows it does land outside, so
 * this test can fail. */
static void
test_write_race (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  g_autofree char *outside = ow_test_make_tmpdir ("ow-body");
  Flipper flipper = { 0 };
  guint ok = 0, outside_by_name = 0;

  flipper_start (&flipper, ws, outside);

  for (int i = 0; i < 200; i++)
    {
      OwTbStatus status;
      OwTbJson *r = body_callf (&fx.env, "write_file", &status,
                                "{\"path\": %s, \"content\": \"x\", \"overwrite\": true}",
                                body_qf ("flip/f%d.txt", i));

      if (status == OW_TB_OK)
        ok++;
      ow_tb_json_free (r);
    }
  g_assert_cmpuint (count_files (outside, ""), ==, 0);

  /* The control: the old way, check the canonical name, then open it.
   * The window is short, so it is tried (yielding inside it) for up to
   * 30 s; it usually lands within a few hundred tries. */
  for (gint64 until = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
       outside_by_name == 0 && g_get_monotonic_time () < until;)
    {
      char *canonical = realpath (body_path (ws, "flip"), NULL);
      gboolean inside = canonical != NULL && g_str_has_prefix (canonical, ws);
      int fd;

      free (canonical);
      if (!inside)
        continue;
      g_thread_yield ();
      fd = open (body_path (ws, "flip/by-name.txt"), O_WRONLY | O_CREAT, 0644);
      if (fd >= 0)
        close (fd);
      outside_by_name = body_exists (outside, "by-name.txt");
    }
  flipper_stop (&flipper);

  g_test_message ("%u of 200 writes went through, %u swaps; opening by name landed outside: %u",
                  ok, flipper.swaps, outside_by_name);
  g_assert_cmpuint (outside_by_name, >, 0);
  /* Every write that reported success is in the real folder. */
  g_assert_cmpuint (count_files (body_path (ws, "flip"), "f"), ==, ok);
  /* The control: with the folder left alone, every write goes through. */
  for (int i = 0; i < 10; i++)
    {
      OwTbStatus status;
      OwTbJson *r = body_callf (&fx.env, "write_file", &status, "{\"path\": %s, \"content\": \"x\"}",
                                body_qf ("flip/after-%d.txt", i));

      g_assert_cmpint (status, ==, OW_TB_OK);
      ow_tb_json_free (r);
    }
  g_assert_cmpuint (count_files (body_path (ws, "flip"), "after-"), ==, 10);
  g_assert_cmpuint (count_files (outside, ""), ==, 1);  /* the one the control put there */
  body_rm_rf (outside);
  body_fixture_clear (&fx);
}

/* TRUE when @dir, opened by name, lists @name. */
static gboolean
dir_lists (const char *dir, const char *name)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *entry;
  gboolean found = FALSE;

  while (d != NULL && !found && (entry = g_dir_read_name (d)) != NULL)
    found = g_str_equal (entry, name);
  if (d != NULL)
    g_dir_close (d);
  return found;
}

/* list_files walking a folder that keeps turning into a symlink to
 * outside never lists what is outside; opening the folder by name does. */
static void
test_list_race (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  g_autofree char *outside = ow_test_make_tmpdir ("ow-body");
  Flipper flipper = { 0 };
  gboolean by_name = FALSE;
  OwTbStatus status;
  OwTbJson *r;

  body_write (outside, "secret-name.txt", "x");
  body_write (ws, "flip/inside.txt", "x");
  flipper_start (&flipper, ws, outside);
  for (int i = 0; i < 200; i++)
    {
      r = body_call (&fx.env, "list_files", "{\"path\": \".\", \"recursive\": true}", &status);
      if (status == OW_TB_OK)
        g_assert_false (body_array_has (body_array (r, "files"), "flip/secret-name.txt")
                        || body_array_has (body_array (r, "files"), "other/secret-name.txt"));
      ow_tb_json_free (r);
    }
  /* The control: by name, the same folder does show what is outside. */
  for (gint64 until = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
       !by_name && g_get_monotonic_time () < until;)
    by_name = dir_lists (body_path (ws, "flip"), "secret-name.txt");
  flipper_stop (&flipper);
  g_assert_true (by_name);

  /* And with the folder left alone, its files are listed. */
  r = body_call (&fx.env, "list_files", "{\"path\": \".\", \"recursive\": true}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_true (body_array_has (body_array (r, "files"), "flip/inside.txt"));
  ow_tb_json_free (r);
  body_rm_rf (outside);
  body_fixture_clear (&fx);
}

/* The same race on a kernel without openat2: a seccomp filter makes the
 * call fail with ENOSYS, as Linux before 5.6 does, in a child process. */
static void
test_write_race_without_openat2 (void)
{
  if (g_test_subprocess ())
    {
      scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);

      g_assert_nonnull (ctx);
      g_assert_cmpint (seccomp_rule_add (ctx, SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (openat2), 0), ==, 0);
      g_assert_cmpint (seccomp_load (ctx), ==, 0);
      seccomp_release (ctx);
      /* The filter is in place: openat2 is gone for this process. */
      g_assert_cmpint (syscall (SCMP_SYS (openat2), AT_FDCWD, ".", NULL, 0), ==, -1);
      g_assert_cmpint (errno, ==, ENOSYS);
      test_write_race ();
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* A hard link inside the root to a file outside it: writing it is refused
 * and the outside file keeps its content; a file of its own is written. */
static void
test_write_hard_link (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  g_autofree char *outside = ow_test_make_tmpdir ("ow-body");
  OwTbStatus status;
  OwTbJson *r;

  body_write (outside, "secret.txt", "original\n");
  g_assert_cmpint (link (body_path (outside, "secret.txt"), body_path (ws, "linked.txt")), ==, 0);

  r = body_call (&fx.env, "write_file",
                 "{\"path\": \"linked.txt\", \"content\": \"changed\\n\", \"overwrite\": true}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "it has 2 hard links"));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "replace_in_file",
                 "{\"path\": \"linked.txt\", \"old\": \"original\", \"new\": \"changed\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "hard links"));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "apply_patch",
                 "{\"patch\": \"*** Begin Patch\\n*** Update File: linked.txt\\n@@\\n-original\\n+changed\\n"
                 "*** End Patch\\n\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "hard links"));
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (outside, "secret.txt"), ==, "original\n");
  g_assert_cmpstr (body_read (ws, "linked.txt"), ==, "original\n");

  /* The control: the same writes to a file with one name go through. */
  body_write (ws, "own.txt", "original\n");
  r = body_call (&fx.env, "write_file",
                 "{\"path\": \"own.txt\", \"content\": \"changed\\n\", \"overwrite\": true}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "replace_in_file",
                 "{\"path\": \"own.txt\", \"old\": \"changed\", \"new\": \"again\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "own.txt"), ==, "again\n");

  /* And a symlink that stays inside the root still leads where it says. */
  g_assert_cmpint (g_mkdir (body_path (ws, "real"), 0755), ==, 0);
  g_assert_cmpint (symlink ("real", body_path (ws, "alias")), ==, 0);
  r = body_call (&fx.env, "write_file", "{\"path\": \"alias/new/x.txt\", \"content\": \"in\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "path"), ==, "real/new/x.txt");
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "real/new/x.txt"), ==, "in");

  body_rm_rf (outside);
  body_fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/body/paths/escape", test_paths_escape);
  g_test_add_func ("/ow/body/paths/roots", test_paths_roots);
  g_test_add_func ("/ow/body/paths/home", test_paths_home);
  g_test_add_func ("/ow/body/read-file/paging", test_read_paging);
  g_test_add_func ("/ow/body/read-file/lines", test_read_lines);
  g_test_add_func ("/ow/body/read-file/refusals", test_read_refusals);
  g_test_add_func ("/ow/body/write-file/write", test_write);
  g_test_add_func ("/ow/body/write-file/race", test_write_race);
  g_test_add_func ("/ow/body/write-file/race-without-openat2", test_write_race_without_openat2);
  g_test_add_func ("/ow/body/write-file/hard-link", test_write_hard_link);
  g_test_add_func ("/ow/body/list-files/race", test_list_race);
  g_test_add_func ("/ow/body/replace-in-file/replace", test_replace);
  g_test_add_func ("/ow/body/list-files/list", test_list);
  return g_test_run ();
}
