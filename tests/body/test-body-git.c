/* test-body-git.c: git_status, git_diff and git_log on a real repository. */
#include "body-test-util.h"

#include <string.h>
#include <glib/gstdio.h>

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

/* Writes an executable script into @dir that leaves a file named @name in
 * @dir when it runs, then does @tail. */
static void
write_tripwire (const char *dir, const char *name, const char *tail)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  body_write (dir, name,
              body_sf ("#!/bin/sh\ntouch '%s/ran-%s'\n%s\n", dir, name, tail));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
}

/* Runs @argv in @cwd, whatever its exit status; returns its stdout. */
static char *
git_output (const char *cwd, const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  char *out = NULL;

  g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                NULL, &out, NULL, NULL, &error);
  g_assert_no_error (error);
  return out;
}

/* Runs git in @cwd with the extra arguments and nothing switched off, as
 * the person's own git would. */
static void
plain_git (const char *cwd, const char *a, const char *b)
{
  const char *argv[] = { "git", a, b, NULL };

  g_free (git_output (cwd, argv));
}

static gboolean
ran (const char *dir, const char *name)
{
  return body_exists (dir, body_sf ("ran-%s", name));
}

/* Every tripwire the test plants. */
static const char *const tripwires[] = { "fsmonitor", "clean", "external", "textconv", "gpg" };

static void
forget_runs (const char *dir)
{
  for (size_t i = 0; i < G_N_ELEMENTS (tripwires); i++)
    g_unlink (body_path (dir, body_sf ("ran-%s", tripwires[i])));
}

static void
assert_none_ran (const char *dir)
{
  for (size_t i = 0; i < G_N_ELEMENTS (tripwires); i++)
    if (ran (dir, tripwires[i]))
      g_error ("the repository's %s program ran", tripwires[i]);
}

/* A repository whose config and attributes name a program for every way
 * status, diff and log could run one. None of them may run through the
 * tools; each does run under plain git, so the test would see it. */
static void
test_repository_programs_stay_off (void)
{
  BodyFixture fx = { 0 };
  g_autofree char *traps = NULL;
  g_autofree char *tree = NULL, *head = NULL;
  const char *ws;
  OwTbStatus status;
  OwTbJson *r;

  if (!have_git ())
    return;
  ws = body_add_root (&fx, TRUE);
  traps = ow_test_make_tmpdir ("ow-body");
  make_repo (ws);
  write_tripwire (traps, "fsmonitor", "exit 1");
  write_tripwire (traps, "clean", "cat");
  write_tripwire (traps, "external", "exit 0");
  write_tripwire (traps, "textconv", "cat \"$1\"");
  write_tripwire (traps, "gpg", "exit 1");

  /* A commit with a signature header, so log.showSignature has work. */
  {
    const char *rev[] = { "git", "rev-parse", "HEAD^{tree}", "HEAD", NULL };
    g_autofree char *out = git_output (ws, rev);
    g_auto (GStrv) lines = g_strsplit (out, "\n", -1);

    tree = g_strdup (lines[0]);
    head = g_strdup (lines[1]);
  }
  body_write (traps, "commit.txt",
              body_sf ("tree %s\nparent %s\n"
                       "author Test Person <test@example.com> 1700000000 +0000\n"
                       "committer Test Person <test@example.com> 1700000000 +0000\n"
                       "gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n"
                       "\nsigned\n", tree, head));
  {
    const char *hash[] = { "git", "hash-object", "-t", "commit", "-w", "--literally",
                           body_path (traps, "commit.txt"), NULL };
    g_autofree char *out = git_output (ws, hash);

    g_strstrip (out);
    git (ws, "update-ref", "HEAD", out, NULL);
  }

  git (ws, "config", "core.fsmonitor", body_path (traps, "fsmonitor"), NULL);
  /* A driver named with '=' and '.', which "-c" could not address. */
  git (ws, "config", "filter.x=y.z.clean", body_path (traps, "clean"), NULL);
  git (ws, "config", "filter.x=y.z.smudge", "cat", NULL);
  git (ws, "config", "filter.x=y.z.required", "true", NULL);
  git (ws, "config", "diff.external", body_path (traps, "external"), NULL);
  git (ws, "config", "diff.t.textconv", body_path (traps, "textconv"), NULL);
  git (ws, "config", "log.showSignature", "true", NULL);
  git (ws, "config", "gpg.program", body_path (traps, "gpg"), NULL);
  body_write (ws, ".gitattributes", "*.txt filter=x=y.z diff=t\n");
  body_write (ws, "a.txt", "one\nchanged\n");

  r = body_call (&fx.env, "git_status", NULL, &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_nonnull (strstr (body_str (r, "stdout"), " M a.txt\n"));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "git_diff", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_nonnull (strstr (body_str (r, "stdout"), "+changed\n"));
  ow_tb_json_free (r);
  r = body_call (&fx.env, "git_diff", "{\"path\": \"a.txt\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "git_log", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "count"), ==, 3);
  g_assert_cmpstr (body_str (body_array (r, "commits")->items[0], "subject"), ==, "signed");
  ow_tb_json_free (r);

  assert_none_ran (traps);

  /* The control: the person's own git runs every one of them. */
  plain_git (ws, "status", NULL);
  g_assert_true (ran (traps, "fsmonitor"));
  g_assert_true (ran (traps, "clean"));
  plain_git (ws, "diff", NULL);
  g_assert_true (ran (traps, "external"));
  plain_git (ws, "diff", "--no-ext-diff");
  g_assert_true (ran (traps, "textconv"));
  plain_git (ws, "log", "-1");
  g_assert_true (ran (traps, "gpg"));

  /* And the tools still switch them off after the index was refreshed. */
  forget_runs (traps);
  body_write (ws, "a.txt", "one\nchanged again\n");
  r = body_call (&fx.env, "git_status", NULL, &status);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "git_diff", "{}", &status);
  ow_tb_json_free (r);
  assert_none_ran (traps);

  body_rm_rf (traps);
  body_fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/body/git/status-and-diff", test_status_and_diff);
  g_test_add_func ("/ow/body/git/log", test_log);
  g_test_add_func ("/ow/body/git/not-a-repository", test_not_a_repository);
  g_test_add_func ("/ow/body/git/repository-programs-stay-off", test_repository_programs_stay_off);
  return g_test_run ();
}
