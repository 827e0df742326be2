/* test-body-shell.c: run_shell, its background tasks and interruption.
 *
 * Nothing here asserts on time. Where a test needs "the command has
 * started", the command itself says so by writing to a FIFO the test is
 * waiting on (or that serves as the cancel fd), so every check follows
 * from the order of events, not from how long anything took.
 */
#include "body-test-util.h"
#include "ow-test-utils.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
setup (BodyFixture *fx)
{
  const char *ws = body_add_root (fx, TRUE);

  fx->env.shell = ow_tb_shell_new (ws, NULL);
}

static OwTbJson *
run (BodyFixture *fx, const char *command, OwTbStatus *status)
{
  return body_callf (&fx->env, "run_shell", status, "{\"command\": %s}", body_q (command));
}

/* A FIFO in a fresh folder outside the workspace; owned path. */
static char *
make_fifo (char **dir)
{
  char *path;

  *dir = ow_test_make_tmpdir ("ow-body");
  path = g_build_filename (*dir, "fifo", NULL);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  return path;
}

static void
test_persistence (void)
{
  BodyFixture fx = { 0 };
  g_autofree char *sub = NULL;
  OwTbStatus status;
  OwTbJson *r;

  setup (&fx);
  sub = g_build_filename (fx.paths[0], "sub", NULL);
  r = run (&fx, "mkdir -p sub && cd sub && export OW_FOO=bar; echo started", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "command"), ==, "mkdir -p sub && cd sub && export OW_FOO=bar; echo started");
  g_assert_cmpstr (body_str (r, "output"), ==, "started\n");
  g_assert_cmpstr (body_str (r, "cwd"), ==, sub);
  g_assert_cmpint (body_int (r, "exit_code"), ==, 0);
  g_assert_false (body_bool (r, "timed_out"));
  g_assert_false (body_bool (r, "truncated"));
  g_assert_null (ow_tb_json_get (r, "error"));
  ow_tb_json_free (r);

  r = run (&fx, "echo $OW_FOO; pwd", &status);
  g_assert_cmpstr (body_str (r, "output"), ==, body_sf ("bar\n%s\n", sub));
  ow_tb_json_free (r);

  /* Shell functions persist too, and the non-interactive variables are set. */
  r = run (&fx, "greet () { echo \"hi $1\"; }", &status);
  ow_tb_json_free (r);
  r = run (&fx, "greet you; echo $GIT_TERMINAL_PROMPT $DEBIAN_FRONTEND $PYTHONUNBUFFERED $PIP_NO_INPUT",
           &status);
  g_assert_cmpstr (body_str (r, "output"), ==, "hi you\n0 noninteractive 1 1\n");
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

static void
test_exit_codes (void)
{
  BodyFixture fx = { 0 };
  OwTbStatus status;
  OwTbJson *r;

  setup (&fx);
  r = run (&fx, "false", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "exit_code"), ==, 1);
  ow_tb_json_free (r);
  r = run (&fx, "(exit 42)", &status);
  g_assert_cmpint (body_int (r, "exit_code"), ==, 42);
  ow_tb_json_free (r);

  /* stderr is merged, in order. */
  r = run (&fx, "echo out; echo err >&2; echo out2", &status);
  g_assert_cmpstr (body_str (r, "output"), ==, "out\nerr\nout2\n");
  ow_tb_json_free (r);

  /* stdin is /dev/null: reading gets end-of-file instead of hanging or
   * eating the shell's own command stream. */
  r = run (&fx, "cat; read x; echo rc=$?", &status);
  g_assert_cmpstr (body_str (r, "output"), ==, "rc=1\n");
  ow_tb_json_free (r);

  /* A syntax error is reported and leaves the shell usable. */
  r = run (&fx, "echo \"unbalanced", &status);
  g_assert_cmpint (body_int (r, "exit_code"), ==, 2);
  g_assert_nonnull (strstr (body_str (r, "output"), "unexpected EOF"));
  ow_tb_json_free (r);
  r = run (&fx, "echo 'it'\\''s fine' \\\n  continued", &status);
  g_assert_cmpstr (body_str (r, "output"), ==, "it's fine continued\n");
  ow_tb_json_free (r);

  /* Output that is not UTF-8 still makes valid JSON. */
  r = run (&fx, "printf 'caf\\303\\251 \\377\\n'", &status);
  g_assert_cmpstr (body_str (r, "output"), ==, "caf\xc3\xa9 \xef\xbf\xbd\n");
  ow_tb_json_free (r);

  /* description is shown to people, never executed. */
  r = body_call (&fx.env, "run_shell", "{\"command\": \"true\", \"description\": \"$(touch pwned)\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  ow_tb_json_free (r);
  g_assert_false (body_exists (fx.paths[0], "pwned"));

  r = body_call (&fx.env, "run_shell", "{\"command\": \"  \"}", &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

static void
test_exit_respawns (void)
{
  BodyFixture fx = { 0 };
  OwTbStatus status;
  OwTbJson *r;

  setup (&fx);
  r = run (&fx, "mkdir -p d && cd d && export OW_GONE=1 && exit 3", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "exit_code"), ==, 3);
  g_assert_true (body_bool (r, "shell_reset"));
  g_assert_nonnull (strstr (body_str (r, "note"), "the shell exited (status 3)"));
  ow_tb_json_free (r);

  /* The trailer never came, so the folder is the last one known. */
  r = run (&fx, "pwd; echo \"[$OW_GONE]\"", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "output"), ==, body_sf ("%s\n[]\n", fx.paths[0]));
  g_assert_nonnull (strstr (body_str (r, "note"), "the previous shell exited"));
  ow_tb_json_free (r);
  r = run (&fx, "echo again", &status);
  g_assert_null (ow_tb_json_get (r, "note"));
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

static void
test_environment (void)
{
  BodyFixture fx = { 0 };
  const char *envp[] = { "PATH=/usr/bin:/bin", "OW_ONLY=yes", "GIT_TERMINAL_PROMPT=1", NULL };
  OwTbStatus status;
  OwTbJson *r;

  body_add_root (&fx, TRUE);
  g_setenv ("OW_SECRET", "leaked", TRUE);
  fx.env.shell = ow_tb_shell_new (fx.paths[0], envp);
  r = run (&fx, "echo \"${OW_ONLY}-${OW_SECRET}-${GIT_TERMINAL_PROMPT}\"", &status);
  g_assert_cmpstr (body_str (r, "output"), ==, "yes--0\n");
  ow_tb_json_free (r);
  g_unsetenv ("OW_SECRET");
  body_fixture_clear (&fx);
}

static void
test_timeout (void)
{
  BodyFixture fx = { 0 };
  OwTbStatus status;
  OwTbJson *r;

  setup (&fx);
  r = body_call (&fx.env, "run_shell", "{\"command\": \"echo before; sleep 30\", \"timeout_seconds\": 1}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_true (body_bool (r, "timed_out"));
  g_assert_nonnull (strstr (body_str (r, "error"), "timed out after 1 s"));
  g_assert_cmpstr (body_str (r, "output"), ==, "before\n");
  ow_tb_json_free (r);
  r = run (&fx, "echo alive; pwd", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "output"), ==, body_sf ("alive\n%s\n", fx.paths[0]));
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

static void
test_truncation (void)
{
  BodyFixture fx = { 0 };
  const char *output;
  OwTbStatus status;
  OwTbJson *r;

  setup (&fx);
  r = run (&fx, "echo FIRST; head -c 100000 /dev/zero | tr '\\0' a; echo; echo END", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  output = body_str (r, "output");
  /* The tail is kept: the end is what tells how a command finished. */
  g_assert_cmpuint (strlen (output), ==, 20000);
  g_assert_true (g_str_has_suffix (output, "aaaa\nEND\n"));
  g_assert_null (strstr (output, "FIRST"));
  g_assert_true (body_bool (r, "truncated"));
  g_assert_nonnull (strstr (body_str (r, "note"), "only its end is shown"));
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

/* Cancel while a foreground child runs. The child dies of SIGINT and
 * bash reports within its 50 ms grace, so folder and variables survive.
 * (On a machine too loaded for bash to answer in 50 ms the shell is
 * restarted instead; the test then checks that outcome, so it never
 * depends on timing, only on which of the two documented paths ran.) */
static void
test_cancel_interrupts (void)
{
  BodyFixture fx = { 0 };
  g_autofree char *dir = NULL, *fifo = NULL, *sub = NULL;
  OwTbStatus status;
  OwTbJson *r;
  int cancel_fd, reset;

  setup (&fx);
  sub = g_build_filename (fx.paths[0], "sub", NULL);
  r = run (&fx, "mkdir sub && cd sub && export OW_KEEP=1", &status);
  ow_tb_json_free (r);

  fifo = make_fifo (&dir);
  cancel_fd = open (fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  g_assert_cmpint (cancel_fd, >=, 0);
  fx.env.cancel_fd = cancel_fd;
  /* The child itself fires the cancel: by then it is running, so it is a
   * descendant the interrupt reaches. */
  r = body_callf (&fx.env, "run_shell", &status, "{\"command\": %s}",
                  body_qf ("echo partial; sh -c 'echo x > %s; exec sleep 30'", fifo));
  g_assert_cmpint (status, ==, OW_TB_INTERRUPTED);
  g_assert_cmpstr (body_str (r, "error"), ==, "interrupted by user");
  g_assert_cmpstr (body_str (r, "output"), ==, "partial\n");
  g_assert_cmpstr (body_str (r, "cwd"), ==, sub);
  reset = ow_tb_json_get (r, "shell_reset") != NULL;
  if (!reset)
    g_assert_cmpint (body_int (r, "exit_code"), ==, 130);
  else
    g_test_message ("the shell was too slow to answer the interrupt and was restarted");
  ow_tb_json_free (r);
  fx.env.cancel_fd = -1;
  close (cancel_fd);

  r = run (&fx, "pwd; echo \"[$OW_KEEP]\"", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "output"), ==, body_sf ("%s\n[%s]\n", sub, reset ? "" : "1"));
  ow_tb_json_free (r);
  body_rm_rf (dir);
  body_fixture_clear (&fx);
}

/* Cancel a `sleep 30` that ignores SIGINT: the shell has to be killed,
 * the call still returns INTERRUPTED, and the next command runs in a new
 * shell in the same folder. */
static void
test_cancel_kills (void)
{
  BodyFixture fx = { 0 };
  g_autofree char *dir = NULL, *fifo = NULL, *sub = NULL;
  OwTbStatus status;
  OwTbJson *r;
  int cancel_fd;

  setup (&fx);
  sub = g_build_filename (fx.paths[0], "sub", NULL);
  r = run (&fx, "mkdir sub && cd sub && export OW_KEEP=1", &status);
  ow_tb_json_free (r);

  fifo = make_fifo (&dir);
  cancel_fd = open (fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  fx.env.cancel_fd = cancel_fd;
  r = body_callf (&fx.env, "run_shell", &status, "{\"command\": %s}",
                  body_qf ("trap '' INT; echo x > %s; sleep 30", fifo));
  g_assert_cmpint (status, ==, OW_TB_INTERRUPTED);
  g_assert_cmpstr (body_str (r, "error"), ==, "interrupted by user");
  g_assert_true (body_is_null (r, "exit_code"));
  g_assert_true (body_bool (r, "shell_reset"));
  g_assert_cmpstr (body_str (r, "cwd"), ==, sub);
  ow_tb_json_free (r);
  fx.env.cancel_fd = -1;
  close (cancel_fd);

  r = run (&fx, "pwd; echo \"[$OW_KEEP]\"", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "output"), ==, body_sf ("%s\n[]\n", sub));
  g_assert_nonnull (strstr (body_str (r, "note"), "reset"));
  ow_tb_json_free (r);
  body_rm_rf (dir);
  body_fixture_clear (&fx);
}

static void
test_cancel_before_start (void)
{
  BodyFixture fx = { 0 };
  OwTbStatus status;
  OwTbJson *r;
  int p[2];

  setup (&fx);
  g_assert_cmpint (pipe (p), ==, 0);
  g_assert_cmpint (write (p[1], "x", 1), ==, 1);
  fx.env.cancel_fd = p[0];
  r = run (&fx, "touch should-not-exist", &status);
  g_assert_cmpint (status, ==, OW_TB_INTERRUPTED);
  g_assert_cmpstr (body_str (r, "error"), ==, "interrupted by user");
  ow_tb_json_free (r);
  g_assert_false (body_exists (fx.paths[0], "should-not-exist"));
  fx.env.cancel_fd = -1;
  close (p[0]);
  close (p[1]);
  body_fixture_clear (&fx);
}

/* Polls shell_task_output until the task has exited; returns all output
 * collected meanwhile (owned) and the last result. */
static char *
wait_task (BodyFixture *fx, const char *id, OwTbJson **last)
{
  GString *all = g_string_new (NULL);
  g_autofree char *what = g_strdup_printf ("task %s to finish", id);
  OwTestWait wait;

  /* The body is polled: each step is the wait's short tick. */
  ow_test_wait_begin (&wait, NULL, what, G_STRLOC);
  for (;;)
    {
      OwTbStatus status;
      OwTbJson *r = body_callf (&fx->env, "shell_task_output", &status, "{\"task_id\": %s}", body_q (id));

      g_assert_cmpint (status, ==, OW_TB_OK);
      g_string_append (all, body_str (r, "output"));
      if (strcmp (body_str (r, "status"), "running") != 0)
        {
          ow_test_wait_end (&wait);
          *last = r;
          return g_string_free (all, FALSE);
        }
      ow_tb_json_free (r);
      ow_test_wait_step (&wait);
    }
}

static void
test_background (void)
{
  BodyFixture fx = { 0 };
  g_autofree char *dir1 = NULL, *ready = NULL, *dir2 = NULL, *gate = NULL, *rest = NULL, *where = NULL;
  char buf[64];
  OwTbStatus status;
  OwTbJson *r, *last;
  int fd;

  setup (&fx);
  ready = make_fifo (&dir1);
  gate = make_fifo (&dir2);
  r = body_callf (&fx.env, "run_shell", &status, "{\"command\": %s, \"run_in_background\": true}",
                  body_qf ("echo one; echo r > %s; read line < %s; echo \"two $line\"; exit 7", ready, gate));
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "task_id"), ==, "bg-1");
  g_assert_cmpstr (body_str (r, "status"), ==, "running");
  g_assert_nonnull (strstr (body_str (r, "note"), "shell_task_output"));
  ow_tb_json_free (r);

  /* Wait until the task has printed "one". */
  fd = open (ready, O_RDONLY | O_CLOEXEC);
  while (read (fd, buf, sizeof buf) > 0)
    ;
  close (fd);
  r = body_call (&fx.env, "shell_task_output", "{\"task_id\": \"bg-1\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "status"), ==, "running");
  g_assert_true (body_is_null (r, "exit_code"));
  g_assert_cmpstr (body_str (r, "output"), ==, "one\n");
  g_assert_false (body_bool (r, "truncated"));
  ow_tb_json_free (r);

  /* Let it finish; only the new output is returned. */
  fd = open (gate, O_WRONLY | O_CLOEXEC);
  g_assert_cmpint (write (fd, "go\n", 3), ==, 3);
  close (fd);
  rest = wait_task (&fx, "bg-1", &last);
  g_assert_cmpstr (rest, ==, "two go\n");
  g_assert_cmpstr (body_str (last, "status"), ==, "exited");
  g_assert_cmpint (body_int (last, "exit_code"), ==, 7);
  ow_tb_json_free (last);
  r = body_call (&fx.env, "shell_task_output", "{\"task_id\": \"bg-1\"}", &status);
  g_assert_cmpstr (body_str (r, "output"), ==, "");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "shell_task_kill", "{\"task_id\": \"bg-1\"}", &status);
  g_assert_cmpstr (body_str (r, "status"), ==, "exited");
  g_assert_cmpint (body_int (r, "exit_code"), ==, 7);
  ow_tb_json_free (r);

  /* A task starts in the shell's current folder. */
  r = run (&fx, "mkdir -p d && cd d", &status);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "run_shell", "{\"command\": \"pwd\", \"run_in_background\": true}",
                 &status);
  g_assert_cmpstr (body_str (r, "task_id"), ==, "bg-2");
  ow_tb_json_free (r);
  where = wait_task (&fx, "bg-2", &last);
  g_assert_cmpstr (where, ==, body_sf ("%s/d\n", fx.paths[0]));
  ow_tb_json_free (last);

  /* Kill: SIGTERM to the group. */
  r = body_call (&fx.env, "run_shell", "{\"command\": \"sleep 100\", \"run_in_background\": true}",
                 &status);
  g_assert_cmpstr (body_str (r, "task_id"), ==, "bg-3");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "shell_task_kill", "{\"task_id\": \"bg-3\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "task_id"), ==, "bg-3");
  g_assert_cmpstr (body_str (r, "status"), ==, "killed");
  g_assert_cmpint (body_int (r, "exit_code"), ==, 128 + SIGTERM);
  ow_tb_json_free (r);

  r = body_call (&fx.env, "shell_task_output", "{\"task_id\": \"bg-99\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "unknown task: bg-99");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "shell_task_kill", "{\"task_id\": \"nonsense\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "unknown task: nonsense");
  ow_tb_json_free (r);
  r = body_call (&fx.env, "shell_task_kill", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  ow_tb_json_free (r);

  body_rm_rf (dir1);
  body_rm_rf (dir2);
  body_fixture_clear (&fx);
}

static gboolean
process_gone (pid_t pid)
{
  g_autofree char *stat_path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  const char *paren;

  if (!g_file_get_contents (stat_path, &text, NULL, NULL))
    return TRUE;
  paren = strrchr (text, ')');
  return paren != NULL && paren[2] == 'Z'; /* a zombie is dead, only unreaped */
}

static void
test_free_kills_everything (void)
{
  BodyFixture fx = { 0 };
  g_autofree char *dir = NULL, *fifo = NULL;
  char buf[64] = "";
  OwTbStatus status;
  OwTbJson *r;
  pid_t task_pid, job_pid;
  int fd;
  ssize_t n;

  setup (&fx);
  fifo = make_fifo (&dir);
  r = body_callf (&fx.env, "run_shell", &status, "{\"command\": %s, \"run_in_background\": true}",
                  body_qf ("echo $$ > %s; exec sleep 100", fifo));
  ow_tb_json_free (r);
  fd = open (fifo, O_RDONLY | O_CLOEXEC);
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  g_assert_cmpint (n, >, 0);
  task_pid = (pid_t) atoi (buf);
  g_assert_cmpint (task_pid, >, 0);

  r = run (&fx, "sleep 100 & echo $!", &status);
  job_pid = (pid_t) atoi (body_str (r, "output"));
  ow_tb_json_free (r);
  g_assert_cmpint (job_pid, >, 0);
  g_assert_false (process_gone (job_pid));

  ow_tb_shell_free (fx.env.shell);
  fx.env.shell = NULL;
  /* The task was our child and has been reaped. */
  g_assert_cmpint (kill (task_pid, 0), ==, -1);
  g_assert_cmpint (errno, ==, ESRCH);
  /* The shell's own job was SIGKILLed with the shell's process group;
   * its death is asynchronous, so wait for it (bounded). */
  OW_TEST_WAIT_UNTIL (process_gone (job_pid));
  body_rm_rf (dir);
  body_fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/body/shell/persistence", test_persistence);
  g_test_add_func ("/ow/body/shell/exit-codes", test_exit_codes);
  g_test_add_func ("/ow/body/shell/exit-respawns", test_exit_respawns);
  g_test_add_func ("/ow/body/shell/environment", test_environment);
  g_test_add_func ("/ow/body/shell/timeout", test_timeout);
  g_test_add_func ("/ow/body/shell/truncation", test_truncation);
  g_test_add_func ("/ow/body/shell/cancel-interrupts", test_cancel_interrupts);
  g_test_add_func ("/ow/body/shell/cancel-kills", test_cancel_kills);
  g_test_add_func ("/ow/body/shell/cancel-before-start", test_cancel_before_start);
  g_test_add_func ("/ow/body/shell/background", test_background);
  g_test_add_func ("/ow/body/shell/free-kills-everything", test_free_kills_everything);
  return g_test_run ();
}
