/* test-body-patch.c: apply_patch — the envelope, hunk location, and the
 * all-or-nothing rule.
 */
#include "body-test-util.h"

#include <string.h>
#include <sys/stat.h>

static OwTbJson *
patch (BodyFixture *fx, const char *text, OwTbStatus *status)
{
  return body_callf (&fx->env, "apply_patch", status, "{\"patch\": %s}", body_q (text));
}

static void
test_add_update_delete (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  OwTbStatus status;
  OwTbJson *r;

  body_write (ws, "src/app.py", "import os\n\ndef main():\n    print('hello')\n    return 0\n");
  body_write (ws, "old.txt", "bye\n");
  r = patch (&fx,
             "*** Begin Patch\n"
             "*** Add File: docs/new.md\n"
             "+# Title\n"
             "+\n"
             "+body\n"
             "*** Update File: src/app.py\n"
             "@@ def main():\n"
             "-    print('hello')\n"
             "+    print('hello, world')\n"
             "     return 0\n"
             "*** Delete File: old.txt\n"
             "*** End Patch\n",
             &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_true (body_array_has (body_array (r, "changed_files"), "src/app.py"));
  g_assert_true (body_array_has (body_array (r, "added_files"), "docs/new.md"));
  g_assert_true (body_array_has (body_array (r, "deleted_files"), "old.txt"));
  g_assert_cmpint (body_int (r, "file_count"), ==, 3);
  g_assert_cmpint (body_int (r, "hunk_count"), ==, 2);
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "docs/new.md"), ==, "# Title\n\nbody\n");
  g_assert_cmpstr (body_read (ws, "src/app.py"), ==,
                   "import os\n\ndef main():\n    print('hello, world')\n    return 0\n");
  g_assert_false (body_exists (ws, "old.txt"));
  body_fixture_clear (&fx);
}

static void
test_hunks (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  OwTbStatus status;
  OwTbJson *r;

  /* Two identical lines: the "@@" context picks the second one; the first
   * hunk has no "@@" line at all. */
  body_write (ws, "cfg.ini", "[a]\nenabled = false\n[b]\nenabled = false\nlast\n");
  r = patch (&fx,
             "*** Begin Patch\n"
             "*** Update File: cfg.ini\n"
             " [a]\n"
             "-enabled = false\n"
             "+enabled = maybe\n"
             "@@ [b]\n"
             "-enabled = false\n"
             "+enabled = true\n"
             "@@\n"
             " last\n"
             "+appended\n"
             "*** End of File\n"
             "*** End Patch",
             &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "hunk_count"), ==, 3);
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "cfg.ini"), ==,
                   "[a]\nenabled = maybe\n[b]\nenabled = true\nlast\nappended\n");

  /* Context copied with different indentation/trailing blanks still
   * matches; the file keeps its own indentation for context lines. */
  body_write (ws, "f.c", "int\nmain (void)\n{\n\treturn 0;   \n}\n");
  r = patch (&fx,
             "*** Begin Patch\n"
             "*** Update File: f.c\n"
             "@@\n"
             "     {\n"
             "-  return 0;\n"
             "+\treturn 1;\n"
             "*** End Patch\n",
             &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "f.c"), ==, "int\nmain (void)\n{\n\treturn 1;\n}\n");

  /* Move with an edit; CRLF files keep CRLF. */
  body_write (ws, "win.txt", "one\r\ntwo\r\n");
  r = patch (&fx,
             "*** Begin Patch\n"
             "*** Update File: win.txt\n"
             "*** Move to: moved/win.txt\n"
             "@@\n"
             " one\n"
             "-two\n"
             "+zwei\n"
             "*** End Patch\n",
             &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_true (body_array_has (body_array (r, "changed_files"), "moved/win.txt"));
  ow_tb_json_free (r);
  g_assert_false (body_exists (ws, "win.txt"));
  g_assert_cmpstr (body_read (ws, "moved/win.txt"), ==, "one\r\nzwei\r\n");
  body_fixture_clear (&fx);
}

static void
test_all_or_nothing (void)
{
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  const char *error;
  OwTbStatus status;
  OwTbJson *r;

  body_write (ws, "a.txt", "alpha\nbeta\n");
  body_write (ws, "b.txt", "gamma\ndelta\n");
  /* The first section is fine; the second hunk of b.txt does not match. */
  r = patch (&fx,
             "*** Begin Patch\n"
             "*** Update File: a.txt\n"
             "-alpha\n"
             "+ALPHA\n"
             "*** Add File: c.txt\n"
             "+new\n"
             "*** Delete File: a.txt\n"
             "*** Add File: a.txt\n"
             "+recreated\n"
             "*** Update File: b.txt\n"
             "@@\n"
             "-gamma\n"
             "+GAMMA\n"
             "@@\n"
             "-epsilon\n"
             "+EPSILON\n"
             "*** End Patch\n",
             &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  error = body_str (r, "error");
  g_assert_true (g_str_has_prefix (error, "apply_patch failed, nothing was changed: b.txt: hunk 2"));
  g_assert_nonnull (strstr (error, "  epsilon"));
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "a.txt"), ==, "alpha\nbeta\n");
  g_assert_cmpstr (body_read (ws, "b.txt"), ==, "gamma\ndelta\n");
  g_assert_false (body_exists (ws, "c.txt"));

  /* A context line that is not in the file. */
  r = patch (&fx,
             "*** Begin Patch\n*** Update File: a.txt\n@@ class Missing:\n-alpha\n+x\n*** End Patch\n",
             &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "a.txt: hunk 1 (patch line 3) has a context line"));
  ow_tb_json_free (r);

  /* One path outside the writable roots refuses the whole patch. */
  r = patch (&fx,
             "*** Begin Patch\n*** Add File: fine.txt\n+x\n*** Add File: ../escape.txt\n+x\n*** End Patch\n",
             &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path is not in a writable directory: ../escape.txt");
  ow_tb_json_free (r);
  g_assert_false (body_exists (ws, "fine.txt"));

  /* Adding over an existing file, updating or deleting a missing one. */
  r = patch (&fx, "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "cannot add a.txt: it already exists"));
  ow_tb_json_free (r);
  r = patch (&fx, "*** Begin Patch\n*** Delete File: zzz.txt\n*** End Patch\n", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "cannot delete zzz.txt: no such file"));
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "a.txt"), ==, "alpha\nbeta\n");
  body_fixture_clear (&fx);
}

static void
test_envelope (void)
{
  static const struct {
    const char *patch;
    const char *error;
  } cases[] = {
    { "*** Update File: a.txt\n-a\n+b\n*** End Patch\n", "must start with the line '*** Begin Patch'" },
    { "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n", "must end with the line '*** End Patch'" },
    { "*** Begin Patch\n*** End Patch\n", "contains no file operations" },
    { "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch\n", "line 2: expected '*** Add File:'" },
    { "*** Begin Patch\n*** Update File: a.txt\n*** End Patch\n", "has no hunks" },
    { "*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n?what\n*** End Patch\n",
      "line 5: unexpected line in the update of a.txt" },
  };
  BodyFixture fx = { 0 };
  const char *ws = body_add_root (&fx, TRUE);
  OwTbStatus status;
  OwTbJson *r;

  body_write (ws, "a.txt", "alpha\n");
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      r = patch (&fx, cases[i].patch, &status);
      g_assert_cmpint (status, ==, OW_TB_ERROR);
      if (strstr (body_str (r, "error"), cases[i].error) == NULL)
        g_error ("case %zu: %s", i, body_str (r, "error"));
      ow_tb_json_free (r);
    }
  g_assert_cmpstr (body_read (ws, "a.txt"), ==, "alpha\n");

  /* Trailing newlines after the end marker are fine. */
  r = patch (&fx, "*** Begin Patch\n*** Update File: a.txt\n-alpha\n+omega\n*** End Patch\n\n\n",
             &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ws, "a.txt"), ==, "omega\n");
  body_fixture_clear (&fx);
}

static void
test_read_only_root (void)
{
  BodyFixture fx = { 0 };
  const char *ro;
  OwTbStatus status;
  OwTbJson *r;

  body_add_root (&fx, TRUE);
  ro = body_add_root (&fx, FALSE);
  body_write (ro, "ref.txt", "keep\n");
  r = body_callf (&fx.env, "apply_patch", &status, "{\"patch\": %s}",
                  body_qf ("*** Begin Patch\n*** Delete File: %s/ref.txt\n*** End Patch\n", ro));
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (g_str_has_prefix (body_str (r, "error"), "path is not in a writable directory: "));
  ow_tb_json_free (r);
  g_assert_cmpstr (body_read (ro, "ref.txt"), ==, "keep\n");
  body_fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/body/apply-patch/add-update-delete", test_add_update_delete);
  g_test_add_func ("/ow/body/apply-patch/hunks", test_hunks);
  g_test_add_func ("/ow/body/apply-patch/all-or-nothing", test_all_or_nothing);
  g_test_add_func ("/ow/body/apply-patch/envelope", test_envelope);
  g_test_add_func ("/ow/body/apply-patch/read-only-root", test_read_only_root);
  return g_test_run ();
}
