/* test-body-git.c: git_status, git_diff and git_log on a real repository. */
#include "body-test-util.h"

#include <string.h>

static void
git (const char *cwd, const char *a, const char *b, const char *c, const char *d)
{
  const char *argv[] = { "git", "-c", "user.name=Test Person", "-c", "user.email=test@example.com",
                         "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
                         a, b, c, d, NULL };
  body_run (cwd, argv);
}

static gboolean
have_git (void)
{
  g_autofree char *path = g_find_program_in_path ("git");

  if (path == NULL)
    g_test_skip ("git is not installed");
  return path != NULL;
}

static void
make_repo (const char *ws)
{
  git (ws, "init", "-q", NULL, NULL);
  body_write (ws, "a.txt", "one\n");
  git (ws, "add", "a.txt", NULL, NULL);
  git (ws, "commit", "-q", "-m", "first commit");
  body_write (ws, "b.txt", "two\n");
  git (ws, "add", "b.txt", NULL, NULL);
  git (ws, "commit", "-q", "-m", "add b");
}

static void
test_status_and_diff (void)
{
  BodyFixture fx = { 0 };
  const char *ws;
  OwTbStatus status;
  OwTbJson *r;

  if (!have_git ())
    return;
  ws = body_add_root (&fx, TRUE);
  make_repo (ws);
  body_write (ws, "a.txt", "one\nmore\n");
  body_write (ws, "new.txt", "untracked\n");

  r = body_call (&fx.env, "git_status", NULL, &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "command"), ==, "git status --short --branch");
  g_assert_cmpint (body_int (r, "exit_code"), ==, 0);
  g_assert_cmpstr (body_str (r, "stdout"), ==, "## main\n M a.txt\n?? new.txt\n");
  g_assert_cmpstr (body_str (r, "stderr"), ==, "");
  g_assert_false (body_bool (r, "truncated"));
  ow_tb_json_free (r);

  r = body_call (&fx.env, "git_diff", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "command"), ==, "git diff");
  g_assert_nonnull (strstr (body_str (r, "stdout"), "--- a/a.txt\n+++ b/a.txt\n"));
  g_assert_nonnull (strstr (body_str (r, "stdout"), "\n one\n+more\n"));
  ow_tb_json_free (r);

  /* Staged: empty until the change is added. */
  r = body_call (&fx.env, "git_diff", "{\"staged\": true}", &status);
  g_assert_cmpstr (body_str (r, "command"), ==, "git diff --staged");
  g_assert_cmpstr (body_str (r, "stdout"), ==, "");
  ow_tb_json_free (r);
  git (ws, "add", "a.txt", NULL, NULL);
  r = body_call (&fx.env, "git_diff", "{\"staged\": true, \"path\": \"a.txt\"}", &status);
  g_assert_cmpstr (body_str (r, "command"), ==, "git diff --staged -- a.txt");
  g_assert_nonnull (strstr (body_str (r, "stdout"), "+more"));
  ow_tb_json_free (r);

  /* A path outside the roots is refused before git runs. */
  r = body_call (&fx.env, "git_diff", "{\"path\": \"../x\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "path escapes the session's directories");
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

static void
test_log (void)
{
  BodyFixture fx = { 0 };
  const char *ws;
  const OwTbJson *commits;
  OwTbStatus status;
  OwTbJson *r;

  if (!have_git ())
    return;
  ws = body_add_root (&fx, TRUE);
  make_repo (ws);

  r = body_call (&fx.env, "git_log", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "count"), ==, 2);
  commits = body_array (r, "commits");
  g_assert_cmpstr (body_str (commits->items[0], "subject"), ==, "add b");
  g_assert_cmpstr (body_str (commits->items[0], "author"), ==, "Test Person");
  g_assert_cmpuint (strlen (body_str (commits->items[0], "date")), ==, 10);
  g_assert_cmpuint (strlen (body_str (commits->items[0], "hash")), >=, 7);
  g_assert_cmpstr (body_str (commits->items[1], "subject"), ==, "first commit");
  ow_tb_json_free (r);

  r = body_call (&fx.env, "git_log", "{\"max_count\": 1}", &status);
  g_assert_cmpint (body_int (r, "count"), ==, 1);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "git_log", "{\"path\": \"a.txt\"}", &status);
  g_assert_cmpint (body_int (r, "count"), ==, 1);
  g_assert_cmpstr (body_str (body_array (r, "commits")->items[0], "subject"), ==, "first commit");
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

static void
test_not_a_repository (void)
{
  BodyFixture fx = { 0 };
  OwTbStatus status;
  OwTbJson *r;

  if (!have_git ())
    return;
  body_add_root (&fx, TRUE);
  /* Keep git from finding a repository above the temporary folder. */
  g_setenv ("GIT_CEILING_DIRECTORIES", g_get_tmp_dir (), TRUE);
  r = body_call (&fx.env, "git_status", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpint (body_int (r, "exit_code"), ==, 128);
  g_assert_nonnull (strstr (body_str (r, "stderr"), "not a git repository"));
  g_assert_true (g_str_has_prefix (body_str (r, "error"), "git status --short --branch failed (exit 128)"));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "git_log", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "not a git repository"));
  ow_tb_json_free (r);
  g_unsetenv ("GIT_CEILING_DIRECTORIES");
  body_fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/body/git/status-and-diff", test_status_and_diff);
  g_test_add_func ("/ow/body/git/log", test_log);
  g_test_add_func ("/ow/body/git/not-a-repository", test_not_a_repository);
  return g_test_run ();
}
