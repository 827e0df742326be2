/* test-guard.c: the command guard in direct mode, against the red-team
 * review's attempts.
 *
 * Two direct executors over the same workspace: one guarded (what every
 * direct session now gets), one without the guard (what the parser alone
 * protected before). Each attempt is a real command that tries to write
 * outside the session's folders, change a protected file, read a hidden
 * one or read the engine's memory, with programs the shell parser cannot
 * see into (python, perl, node, awk, sed w, tar, split, dd, a script, a
 * base64 pipe, hard and symbolic links, a background task). Whether it got
 * through is judged on the host, by the file it aimed at, not by the
 * command's exit code. Every attempt must get through WITHOUT the guard
 * (so the test proves the guard closed it, not that a program is missing)
 * and must fail WITH it; beside each one a positive control makes the
 * same program write inside the workspace under the guard, and that must
 * work. The totals are printed.
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ow-guard.h"
#include "ow-json.h"
#include "ow-sandbox-linux.h"
#include "sbx-test-util.h"

static struct {
  char       *base;     /* under /var/tmp: visible but not writable inside the guard */
  char       *ws;       /* the workspace */
  char       *out;      /* a folder outside the workspace */
  char       *home;     /* a fake home with credentials (hidden) */
  char       *state;    /* a fake state folder (hidden) */
  char       *cache;    /* the tool cache */
  OwExecutor *guarded;
  OwExecutor *open;
  guint       attempts, refused, open_through, controls;
} G;

/* run_shell in @ex; the exit code, and what it printed in *@output. */
static int
run (OwExecutor *ex, const char *command, char **output)
{
  g_autofree char *out = NULL;
  int code;

  g_test_message ("in the %s sandbox:", ex == G.guarded ? "guarded" : "open");
  out = sbx_shell (ex, command, &code);
  if (output != NULL)
    *output = g_steal_pointer (&out);
  return code;
}

static char *
expand (const char *tmpl, const char *target_dir)
{
  g_autoptr(GString) s = g_string_new (tmpl);

  g_string_replace (s, "@T", target_dir, 0);
  g_string_replace (s, "@W", G.ws, 0);
  g_string_replace (s, "@H", G.home, 0);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* What a write attempt aimed at: "@T/name". */
static gboolean
landed (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *contents = NULL;

  /* A target that existed before is "landed" when it gained "pwned". */
  if (g_file_get_contents (path, &contents, NULL, NULL))
    return strstr (contents, "pwned") != NULL;
  return FALSE;
}

static void
reset_target (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_remove (path);
}

/* One write attempt: @tmpl writes the file @name into @T. Run without the
 * guard against the outside folder (it must land: the hole is real), with
 * the guard against the outside folder (it must not), and with the guard
 * against the workspace (the positive control: it must). */
static void
write_attempt (const char *tmpl, const char *name)
{
  g_autofree char *outside = expand (tmpl, G.out);
  g_autofree char *inside = expand (tmpl, G.ws);

  reset_target (G.out, name);
  run (G.open, outside, NULL);
  g_assert_true (landed (G.out, name));
  G.open_through++;
  reset_target (G.out, name);

  G.attempts++;
  run (G.guarded, outside, NULL);
  if (landed (G.out, name))
    g_error ("BREACH under the guard: %s", outside);
  G.refused++;

  reset_target (G.ws, name);
  run (G.guarded, inside, NULL);
  g_assert_true (landed (G.ws, name));
  G.controls++;
}

static void
test_writes_outside (void)
{
  static const struct { const char *tmpl, *name; } cases[] = {
    { "echo pwned > @T/redir", "redir" },
    { "python3 -c \"open('@T/py','w').write('pwned')\"", "py" },
    { "perl -e 'open(F, \">@T/pl\"); print F \"pwned\"'", "pl" },
    { "node -e \"require('fs').writeFileSync('@T/node', 'pwned')\"", "node" },
    { "awk 'BEGIN { print \"pwned\" > \"@T/awk\" }'", "awk" },
    { "echo pwned | sed -n 'w @T/sed'", "sed" },
    { "cd @W && echo pwned > cpsrc && cp cpsrc @T/cp", "cp" },
    { "cd @W && mkdir -p tx && echo pwned > tx/tar && tar -cf t.tar -C tx tar && tar -xf t.tar -C @T", "tar" },
    { "cd @W && echo pwned > sp.src && split -b 100 sp.src @T/split && mv @T/splitaa @T/split", "split" },
    { "echo pwned | dd of=@T/dd status=none", "dd" },
    { "echo pwned | tee @T/tee >/dev/null", "tee" },
    { "cd @W && printf 'echo pwned > %s\\n' @T/script > s.sh && sh s.sh", "script" },
    { NULL, "b64" },   /* its target travels inside the encoded text: below */
    { "cd @W && echo pwned > mvsrc && mv mvsrc @T/mv", "mv" },
    { "bash -c 'x=python3; $x -c \"import os; os.system(\\\"echo pwned > @T/indirect\\\")\"'", "indirect" },
    { "find @W -maxdepth 0 -exec sh -c 'echo pwned > @T/findexec' \\;", "findexec" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* The base64 case carries its target inside the encoded text. */
      if (g_str_equal (cases[i].name, "b64"))
        {
          g_autofree char *plain_out = g_strdup_printf ("echo pwned > %s/b64", G.out);
          g_autofree char *plain_in = g_strdup_printf ("echo pwned > %s/b64", G.ws);
          g_autofree char *enc_out = g_base64_encode ((const guchar *) plain_out, strlen (plain_out));
          g_autofree char *enc_in = g_base64_encode ((const guchar *) plain_in, strlen (plain_in));
          g_autofree char *t = g_strdup_printf ("echo %s | base64 -d | sh", enc_out);

          reset_target (G.out, "b64");
          run (G.open, t, NULL);
          g_assert_true (landed (G.out, "b64"));
          G.open_through++;
          reset_target (G.out, "b64");
          G.attempts++;
          run (G.guarded, t, NULL);
          g_assert_false (landed (G.out, "b64"));
          G.refused++;
          g_free (t);
          t = g_strdup_printf ("echo %s | base64 -d | sh", enc_in);
          run (G.guarded, t, NULL);
          g_assert_true (landed (G.ws, "b64"));
          G.controls++;
          continue;
        }
      write_attempt (cases[i].tmpl, cases[i].name);
    }
}

/* A hard link is the same file under a second name: writing the name in
 * the workspace writes the file outside. */
static void
test_hard_link (void)
{
  g_autofree char *victim = g_build_filename (G.out, "victim", NULL);
  g_autofree char *cmd = g_strdup_printf ("ln %s %s/hl && echo pwned >> %s/hl", victim, G.ws, G.ws);
  g_autofree char *contents = NULL;
  g_autofree char *link = g_build_filename (G.ws, "hl", NULL);

  sbx_write (victim, "clean\n", 0644);
  run (G.open, cmd, NULL);
  g_assert_true (g_file_get_contents (victim, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "pwned"));
  G.open_through++;
  g_remove (link);
  g_clear_pointer (&contents, g_free);

  sbx_write (victim, "clean\n", 0644);
  G.attempts++;
  run (G.guarded, cmd, NULL);
  g_assert_true (g_file_get_contents (victim, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "clean\n");
  G.refused++;

  /* Control: a hard link inside the workspace works. */
  g_clear_pointer (&cmd, g_free);
  cmd = g_strdup_printf ("cd %s && echo a > hl-src && ln hl-src hl-dst && echo pwned >> hl-dst", G.ws);
  g_assert_cmpint (run (G.guarded, cmd, NULL), ==, 0);
  g_assert_true (landed (G.ws, "hl-src"));
  G.controls++;
}

/* A symbolic link in the workspace pointing outside. */
static void
test_symlink (void)
{
  g_autofree char *cmd = g_strdup_printf ("cd %s && rm -f sl && ln -s %s sl && echo pwned > sl/viasl", G.ws, G.out);
  g_autofree char *ctl = g_strdup_printf ("cd %s && mkdir -p real && rm -f sl2 && ln -s real sl2 && "
                                          "echo pwned > sl2/viasl", G.ws);
  g_autofree char *real = g_build_filename (G.ws, "real", NULL);

  reset_target (G.out, "viasl");
  run (G.open, cmd, NULL);
  g_assert_true (landed (G.out, "viasl"));
  G.open_through++;
  reset_target (G.out, "viasl");
  G.attempts++;
  run (G.guarded, cmd, NULL);
  g_assert_false (landed (G.out, "viasl"));
  G.refused++;
  g_assert_cmpint (run (G.guarded, ctl, NULL), ==, 0);
  g_assert_true (landed (real, "viasl"));
  G.controls++;
}

/* A protected file inside the workspace: @cmd changes it; @check reads it
 * back on the host. */
static void
protected_attempt (const char *cmd_tmpl, const char *path_rel, const char *fresh)
{
  g_autofree char *cmd = expand (cmd_tmpl, G.ws);
  g_autofree char *path = g_build_filename (G.ws, path_rel, NULL);
  g_autofree char *contents = NULL;

  sbx_write (path, fresh, 0755);
  run (G.open, cmd, NULL);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_true (strstr (contents, "pwned") != NULL);
  G.open_through++;
  g_clear_pointer (&contents, g_free);

  sbx_write (path, fresh, 0755);
  G.attempts++;
  run (G.guarded, cmd, NULL);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, fresh);
  G.refused++;
}

static void
test_protected (void)
{
  protected_attempt ("python3 -c \"open('@T/.git/hooks/pre-commit','a').write('pwned')\"",
                     ".git/hooks/pre-commit", "#!/bin/sh\n");
  protected_attempt ("printf '[core]\\n\\thooksPath = /pwned\\n' >> @T/.git/config", ".git/config",
                     "[core]\n\trepositoryformatversion = 0\n");
  protected_attempt ("perl -e 'open(F, \">>@T/.github/workflows/ci.yml\"); print F \"pwned\"'",
                     ".github/workflows/ci.yml", "on: push\n");
  protected_attempt ("echo pwned >> @T/.openworker/config.toml", ".openworker/config.toml",
                     "approval_mode = \"ask\"\n");

  /* Renaming .git away and putting a new one in its place. */
  {
    g_autofree char *cmd = g_strdup_printf ("cd %s && mv .git .git-moved", G.ws);
    g_autofree char *git = g_build_filename (G.ws, ".git", NULL);
    g_autofree char *ctl = g_strdup_printf ("cd %s && mkdir -p d1 && mv d1 d2 && rmdir d2", G.ws);

    G.attempts++;
    run (G.guarded, cmd, NULL);
    g_assert_true (g_file_test (git, G_FILE_TEST_IS_DIR));
    G.refused++;
    g_assert_cmpint (run (G.guarded, ctl, NULL), ==, 0);
    G.controls++;
  }
  /* Undoing the protection. */
  {
    g_autofree char *cmd = g_strdup_printf ("umount %s/.git/hooks && echo pwned > %s/.git/hooks/pre-commit",
                                            G.ws, G.ws);
    g_autofree char *hook = g_build_filename (G.ws, ".git", "hooks", "pre-commit", NULL);
    g_autofree char *contents = NULL;

    sbx_write (hook, "#!/bin/sh\n", 0755);
    G.attempts++;
    run (G.guarded, cmd, NULL);
    g_assert_true (g_file_get_contents (hook, &contents, NULL, NULL));
    g_assert_cmpstr (contents, ==, "#!/bin/sh\n");
    G.refused++;
  }
  /* Control: ordinary files in the same folders stay writable. */
  {
    g_autofree char *ctl = g_strdup_printf ("cd %s && echo pwned > README.md && echo pwned > .github/README.md", G.ws);
    g_assert_cmpint (run (G.guarded, ctl, NULL), ==, 0);
    g_assert_true (landed (G.ws, "README.md"));
    G.controls++;
  }
}

/* A read attempt: without the guard @cmd prints @secret (the hole is
 * real); with it, it must not. */
static void
read_attempt (const char *cmd, const char *secret)
{
  g_autofree char *open_out = NULL, *guarded_out = NULL;

  run (G.open, cmd, &open_out);
  g_assert_nonnull (strstr (open_out, secret));
  G.open_through++;
  G.attempts++;
  run (G.guarded, cmd, &guarded_out);
  g_assert_null (strstr (guarded_out != NULL ? guarded_out : "", secret));
  G.refused++;
}

/* Hidden folders are empty, also for programs that ignore the parser. */
static void
test_hidden (void)
{
  static const char *const cases[] = {
    "cat @H/.ssh/id_ed25519",
    "python3 -c \"print(open('@H/.aws/credentials').read())\"",
    "tar -cf - -C @H .ssh | tar -tvf -; cat @H/.ssh/*",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *cmd = expand (cases[i], G.ws);

      read_attempt (cmd, "SECRET-KEY");
    }
  {
    g_autofree char *db = g_strdup_printf ("cat %s/openworker.db; ls -a %s", G.state, G.state);

    read_attempt (db, "DATABASE-ROWS");
  }
  /* Control: the rest of the home reads as usual. */
  {
    g_autofree char *ctl = g_strdup_printf ("cat %s/notes.txt", G.home);
    g_autofree char *out = NULL;

    g_assert_cmpint (run (G.guarded, ctl, &out), ==, 0);
    g_assert_nonnull (strstr (out, "ordinary notes"));
    G.controls++;
  }
}

/* The engine's memory and environment: the process that hosts the
 * executor (this test) started with OW_TEST_RUNNER in its environment,
 * as an engine starts with its keys. */
static void
test_engine_memory (void)
{
  g_autofree char *cmd = g_strdup_printf ("tr '\\0' '\\n' < /proc/%d/environ; "
                                          "python3 -c \"print(open('/proc/%d/environ','rb').read())\"",
                                          (int) getpid (), (int) getpid ());
  g_autofree char *out = NULL;

  read_attempt (cmd, "OW_TEST_RUNNER=");
  /* Control: a command's own /proc entry reads. */
  g_assert_cmpint (run (G.guarded, "cat /proc/self/environ | tr '\\0' '\\n' | grep -c PATH=", &out), ==, 0);
  G.controls++;
}

/* Background tasks start inside the guard too. */
static void
test_background (void)
{
  g_autofree char *args = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(GString) cmd = g_string_new (NULL);

  g_string_printf (cmd, "python3 -c \\\"open('%s/bg','w').write('pwned')\\\"; "
                   "python3 -c \\\"open('%s/bg','w').write('pwned')\\\"", G.out, G.ws);
  args = g_strdup_printf ("{\"command\": \"%s\", \"run_in_background\": true}", cmd->str);
  reset_target (G.out, "bg");
  reset_target (G.ws, "bg");
  G.attempts++;
  r = sbx_call (G.guarded, "run_shell", args, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 200 && !landed (G.ws, "bg"); i++)
    ow_test_spin_for (25);
  g_assert_true (landed (G.ws, "bg"));   /* the control half ran */
  G.controls++;
  g_assert_false (landed (G.out, "bg"));
  G.refused++;
}

/* The agent is told which path was refused and what to do, the way the
 * sandbox reports blocked hosts; a command that was not refused gets no
 * note. */
static void
test_guard_note (void)
{
  g_autofree char *args = g_strdup_printf ("{\"command\": \"touch %s/noted; python3 -c \\\"open('%s/.git/hooks/x','w')\\\"; "
                                           "node -e \\\"require('fs').writeFileSync('%s/noded', 'x')\\\"\"}",
                                           G.out, G.ws, G.out);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = sbx_call (G.guarded, "run_shell", args, &error);
  g_autoptr(JsonObject) o = NULL;
  const char *note;

  g_assert_no_error (error);
  o = sbx_result_object (r);
  note = ow_json_get_string (o, "guard_note");
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "noted is outside the session's folders"));
  g_assert_nonnull (strstr (note, ".git/hooks/x is protected"));
  g_assert_nonnull (strstr (note, "noded is outside the session's folders"));
  g_assert_nonnull (strstr (note, "request_directory"));
  g_clear_pointer (&o, json_object_unref);
  g_clear_pointer (&r, ow_tool_result_free);

  r = sbx_call (G.guarded, "run_shell", "{\"command\": \"echo fine\"}", &error);
  g_assert_no_error (error);
  o = sbx_result_object (r);
  g_assert_null (ow_json_get_string (o, "guard_note"));
  G.controls++;
}

/* The shell says it is guarded, and the private /tmp is its own. */
static void
test_enforcement_and_tmp (void)
{
  g_autofree char *out = NULL;

  g_assert_nonnull (strstr (ow_executor_get_enforcement (G.guarded), "guard ("));
  g_assert_nonnull (strstr (ow_executor_get_enforcement (G.guarded), "Landlock"));
  g_assert_cmpint (run (G.guarded, "echo hi > /tmp/guard-tmp && cat /tmp/guard-tmp && echo $TMPDIR", &out), ==, 0);
  g_assert_nonnull (strstr (out, "hi"));
  g_assert_false (g_file_test ("/tmp/guard-tmp", G_FILE_TEST_EXISTS));
  G.controls++;
}

static void
test_totals (void)
{
  g_printerr ("guard: %u attempts, %u refused, %u let through; without the guard %u of them got "
              "through; %u positive controls\n",
              G.attempts, G.refused, G.attempts - G.refused, G.open_through, G.controls);
  g_assert_cmpuint (G.refused, ==, G.attempts);
  g_assert_cmpuint (G.attempts, >, 20);
}

static char *
mkpath (const char *a, const char *b)
{
  char *p = g_build_filename (a, b, NULL);

  g_mkdir_with_parents (p, 0755);
  return p;
}

/* --as-nobody: the same battery as an unprivileged user, where the guard
 * takes the user-namespace path. A copy of this program in a folder
 * anyone can read runs under setpriv, wherever the build folder is. */
static int
rerun_as_nobody (void)
{
  g_autofree char *dir = g_strdup ("/var/tmp/ow-guard-user-XXXXXX");
  g_autofree char *copy = NULL, *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;
  int status = 0;

  if (getuid () != 0)
    return -1;
  g_assert_nonnull (g_mkdtemp (dir));
  g_chmod (dir, 0755);
  copy = g_build_filename (dir, "test-sandbox-guard", NULL);
  g_assert_true (g_file_get_contents ("/proc/self/exe", &contents, &len, &error));
  g_assert_true (g_file_set_contents_full (copy, contents, len, G_FILE_SET_CONTENTS_NONE, 0755, &error));
  {
    const char *argv[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", copy, NULL };
    g_auto(GStrv) envp = g_get_environ ();
    const char *lsan = g_environ_getenv (envp, "LSAN_OPTIONS");
    const char *supp = lsan != NULL ? strstr (lsan, "suppressions=") : NULL;

    /* The sanitizer's suppressions file is in the source tree, which may be
     * under a home nobody cannot read (/root in a clean root): a copy
     * beside the program, so the leak check reads it as that user. */
    if (supp != NULL)
      {
        const char *start = supp + strlen ("suppressions=");
        g_autofree char *path = g_strndup (start, strcspn (start, ":"));
        g_autofree char *text = NULL;
        g_autofree char *supp_copy = g_build_filename (dir, "lsan.supp", NULL);
        g_autofree char *prefix = g_strndup (lsan, start - lsan);

        if (g_file_get_contents (path, &text, NULL, NULL)
            && g_file_set_contents_full (supp_copy, text, -1, G_FILE_SET_CONTENTS_NONE, 0644, NULL))
          {
            g_autofree char *options = g_strconcat (prefix, supp_copy, start + strlen (path), NULL);
            envp = g_environ_setenv (envp, "LSAN_OPTIONS", options, TRUE);
          }
      }
    g_spawn_sync ("/", (char **) argv, envp, G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL,
                  NULL, NULL, &status, &error);
    g_assert_no_error (error);
  }
  ow_remove_tree (dir, NULL);
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  return 1;
}

int
main (int argc, char **argv)
{
  char why[512];
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autofree char *hidden_ssh = NULL, *hidden_aws = NULL;
  int rc;

  if (argc > 1 && g_str_equal (argv[1], "--as-nobody"))
    {
      rc = rerun_as_nobody ();
      if (rc >= 0)
        return rc;
      argc = 1;   /* already unprivileged: run it here */
    }
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  ow_sandbox_linux_register ();
  if (!ow_guard_available (why, sizeof why))
    {
      g_printerr ("SKIP: this machine cannot build the command guard: %s\n", why);
      return 77;
    }

  G.base = g_dir_make_tmp (NULL, NULL);
  {
    /* Under /var/tmp, so the folders stay visible (not under the private /tmp). */
    g_autofree char *vt = g_strdup ("/var/tmp/ow-guard-XXXXXX");
    g_remove (G.base);
    g_free (G.base);
    G.base = g_strdup (g_mkdtemp (vt));
  }
  G.ws = mkpath (G.base, "ws");
  G.out = mkpath (G.base, "outside");
  G.home = mkpath (G.base, "home");
  G.state = mkpath (G.base, "state");
  G.cache = g_build_filename (G.base, "cache", NULL);
  {
    g_autofree char *p = NULL;

    g_free (mkpath (G.ws, ".git/hooks"));
    g_free (mkpath (G.ws, ".github/workflows"));
    g_free (mkpath (G.ws, ".openworker"));
    p = g_build_filename (G.ws, ".git", "config", NULL);
    sbx_write (p, "[core]\n", 0644);
    g_free (p);
    p = g_build_filename (G.ws, ".git", "HEAD", NULL);
    sbx_write (p, "ref: refs/heads/main\n", 0644);
    g_free (p);
    p = g_build_filename (G.ws, ".git", "hooks", "pre-commit", NULL);
    sbx_write (p, "#!/bin/sh\n", 0755);
    g_free (p);
    p = g_build_filename (G.ws, ".github", "workflows", "ci.yml", NULL);
    sbx_write (p, "on: push\n", 0644);
    g_free (p);
    p = g_build_filename (G.ws, ".openworker", "config.toml", NULL);
    sbx_write (p, "approval_mode = \"ask\"\n", 0644);
    g_free (p);
    hidden_ssh = mkpath (G.home, ".ssh");
    hidden_aws = mkpath (G.home, ".aws");
    p = g_build_filename (hidden_ssh, "id_ed25519", NULL);
    sbx_write (p, "SECRET-KEY ssh\n", 0600);
    g_free (p);
    p = g_build_filename (hidden_aws, "credentials", NULL);
    sbx_write (p, "SECRET-KEY aws\n", 0600);
    g_free (p);
    p = g_build_filename (G.home, "notes.txt", NULL);
    sbx_write (p, "ordinary notes\n", 0644);
    g_free (p);
    p = g_build_filename (G.state, "openworker.db", NULL);
    sbx_write (p, "DATABASE-ROWS\n", 0600);
  }

  g_ptr_array_add (roots, ow_root_new (G.ws, TRUE, "workspace"));
  G.open = ow_executor_direct_new (G.ws);
  ow_executor_set_roots (G.open, roots);
  G.guarded = ow_executor_direct_new (G.ws);
  ow_executor_set_roots (G.guarded, roots);
  {
    const char *hidden[] = { G.state, hidden_ssh, hidden_aws, NULL };
    const char *protected_names[] = { ".github/workflows", ".openworker", NULL };
    OwGuardOptions options = { .hidden = hidden, .protected_names = protected_names, .cache_dir = G.cache };

    ow_executor_direct_set_guard (OW_EXECUTOR_DIRECT (G.guarded), &options);
  }

  g_test_add_func ("/ow/sandbox/guard/enforcement-and-tmp", test_enforcement_and_tmp);
  g_test_add_func ("/ow/sandbox/guard/writes-outside", test_writes_outside);
  g_test_add_func ("/ow/sandbox/guard/hard-link", test_hard_link);
  g_test_add_func ("/ow/sandbox/guard/symlink", test_symlink);
  g_test_add_func ("/ow/sandbox/guard/protected", test_protected);
  g_test_add_func ("/ow/sandbox/guard/hidden", test_hidden);
  g_test_add_func ("/ow/sandbox/guard/engine-memory", test_engine_memory);
  g_test_add_func ("/ow/sandbox/guard/background", test_background);
  g_test_add_func ("/ow/sandbox/guard/note", test_guard_note);
  g_test_add_func ("/ow/sandbox/guard/totals", test_totals);
  rc = g_test_run ();

  g_clear_object (&G.guarded);
  g_clear_object (&G.open);
  ow_remove_tree (G.base, NULL);
  return rc;
}
