/* test-runner.c: openworker-tool-runner through the protocol, no wall.
 *
 * The real runner binary, started as a child on a socketpair, driven by
 * the real OwExecutorRunner on the main loop:
 *   - every hosted tool gives, byte for byte, what ow_tb_call gives in
 *     this process for the same calls on the same folder;
 *   - calls overlap (a file read answers while a command runs), a cancel
 *     interrupts exactly its call and the call still gets its answer;
 *   - shell state lasts between calls, roots change with "roots";
 *   - a runner that dies fails every pending and later call with a
 *     sentence that says so; a peer that sends an oversized frame, a frame
 *     that is not JSON, the wrong protocol version or "fatal" is handled;
 *   - dropping the executor ends the runner and the shell it started.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ow-error.h"
#include "ow-json.h"
#include "sandbox/runner/ow-runner-proto.h"
#include "sbx-test-util.h"
#include "tools/body/ow-tb.h"

static char *
tb_call (OwTbShell *shell, const char *root, const char *tool, const char *args, OwTbStatus *status)
{
  OwTbRoot roots[1] = { { root, 1 } };
  OwTbEnv env = { roots, 1, shell, -1 };
  OwTbBuf out;
  char *text;

  ow_tb_buf_init (&out);
  *status = ow_tb_call (&env, tool, args, strlen (args), &out);
  text = g_strdup (out.data);
  ow_tb_buf_free (&out);
  return text;
}

static void
run_quiet (const char *cwd, const char *const *argv)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* A workspace with files and a git repository, copied afresh for each
 * phase so both phases start from identical bytes (commit ids included). */
static char *
make_template (void)
{
  char *dir = ow_test_make_tmpdir ("ow-sbx-template");
  const char *git_init[] = { "git", "init", "-q", "-b", "main", ".", NULL };
  const char *git_add[] = { "git", "add", "-A", NULL };
  const char *git_commit[] = { "git", "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m",
                               "first", NULL };
  g_autofree char *a = g_build_filename (dir, "a.txt", NULL);
  g_autofree char *b = g_build_filename (dir, "sub", "b.txt", NULL);
  g_autofree char *c = g_build_filename (dir, "src", "app.py", NULL);

  sbx_write (a, "alpha\nbeta\ngamma\n", 0644);
  sbx_write (b, "inner beta\n", 0644);
  sbx_write (c, "import os\n\ndef main():\n    print('hello')\n    return 0\n", 0644);
  run_quiet (dir, git_init);
  run_quiet (dir, git_add);
  run_quiet (dir, git_commit);
  sbx_write (a, "alpha\nbeta changed\ngamma\n", 0644);
  return dir;
}

static void
copy_tree (const char *from, const char *to)
{
  const char *argv[] = { "cp", "-a", from, to, NULL };

  ow_remove_tree (to, NULL);
  run_quiet ("/", argv);
}

/* Every tool, the same calls, in-process and through the runner. */
static void
test_every_tool (void)
{
  static const char *const calls[][2] = {
    { "list_files", "{\"path\":\".\"}" },
    { "list_files", "{\"path\":\".\",\"recursive\":true}" },
    { "read_file", "{\"path\":\"a.txt\"}" },
    { "read_file", "{\"path\":\"a.txt\",\"start_line\":2,\"max_lines\":1}" },
    { "read_file", "{\"path\":\"missing.txt\"}" },
    { "grep", "{\"pattern\":\"beta\",\"path\":\".\"}" },
    { "grep", "{\"pattern\":\"gam+a\",\"glob\":\"*.txt\"}" },
    { "write_file", "{\"path\":\"new.txt\",\"content\":\"hello\\n\"}" },
    { "write_file", "{\"path\":\"/etc/ow-not-here\",\"content\":\"x\"}" },
    { "replace_in_file", "{\"path\":\"a.txt\",\"old\":\"gamma\",\"new\":\"GAMMA\"}" },
    { "apply_patch", "{\"patch\":\"*** Begin Patch\\n*** Update File: src/app.py\\n@@ def main():\\n-    "
                     "print('hello')\\n+    print('hello, world')\\n     return 0\\n*** End Patch\\n\"}" },
    { "git_status", "{}" },
    { "git_diff", "{}" },
    { "git_log", "{\"max_count\":5}" },
    { "run_shell", "{\"command\":\"echo out; echo err >&2; pwd; exit 3\"}" },
    { "run_shell", "{\"command\":\"cd sub && export OW_X=1\"}" },
    { "run_shell", "{\"command\":\"pwd; echo $OW_X\"}" },
    { "run_shell", "{\"command\":\"printf 'bg\\\\n'; sleep 0.2\",\"run_in_background\":true}" },
    { "run_shell", "{\"command\":\"sleep 0.6\"}" },
    { "shell_task_output", "{\"task_id\":\"bg-1\"}" },
    { "shell_task_kill", "{\"task_id\":\"bg-1\"}" },
    { "shell_task_output", "{\"task_id\":\"bg-99\"}" },
    { "no_such_tool", "{}" },
    { "read_file", "[1,2]" },
    { "read_file", "{\"path\":" },
    { "run_shell", "" },
  };
  g_autofree char *template = make_template ();
  g_autofree char *ws = ow_test_make_tmpdir ("ow-sbx-ws");
  g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) expected_status = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(OwExecutor) ex = NULL;
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  OwTbShell *shell;

  /* Phase 1: in this process. */
  copy_tree (template, ws);
  shell = ow_tb_shell_new (ws, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      OwTbStatus st;

      g_ptr_array_add (expected, tb_call (shell, ws, calls[i][0], calls[i][1], &st));
      g_array_append_val (expected_status, st);
    }
  ow_tb_shell_free (shell);

  /* Phase 2: through the runner, on a fresh copy at the same path. */
  copy_tree (template, ws);
  ex = sbx_plain_runner (NULL);
  g_ptr_array_add (roots, ow_root_new (ws, TRUE, "workspace"));
  ow_executor_set_roots (ex, roots);
  for (gsize i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(OwToolResult) r = sbx_call (ex, calls[i][0], calls[i][1], &error);
      int st = g_array_index (expected_status, int, i);
      OwToolStatus want = st == OW_TB_OK ? OW_TOOL_STATUS_OK
                          : st == OW_TB_INTERRUPTED ? OW_TOOL_STATUS_INTERRUPTED : OW_TOOL_STATUS_ERROR;

      g_assert_no_error (error);
      g_test_message ("%s %s", calls[i][0], calls[i][1]);
      g_assert_cmpstr (r->text, ==, g_ptr_array_index (expected, i));
      g_assert_cmpint (r->status, ==, want);
      g_assert_cmpstr (ow_executor_get_enforcement (ex), ==, "none (runner)");
    }
  g_clear_object (&ex);
  ow_remove_tree (ws, NULL);
  ow_remove_tree (template, NULL);
}

static void
test_handles (void)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(OwExecutor) ex = sbx_plain_runner (&process);

  g_assert_true (ow_executor_runner_is_alive (OW_EXECUTOR_RUNNER (ex)));
  g_assert_true (ow_executor_handles (ex, "run_shell"));
  g_assert_true (ow_executor_handles (ex, "git_log"));
  g_assert_false (ow_executor_handles (ex, "web_fetch"));
  g_assert_false (ow_executor_handles (ex, "ask_user"));
}

/* ---- concurrency and cancel ----------------------------------------------- */

typedef struct {
  OwToolResult *result;   /* the answer (owned) */
  GError       *error;    /* or the failure (owned) */
  gint64        at;       /* when it came (monotonic µs) */
  int           order;    /* the how-manieth answer it was */
} Answer;

static int answers_seen;

static void
on_answer_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Answer *a = user_data;

  a->result = ow_executor_execute_finish (OW_EXECUTOR (source), result, &a->error);
  a->at = g_get_monotonic_time ();
  a->order = ++answers_seen;
}

typedef struct {
  Answer *answers;
  gsize   n;
} Answers;

static gboolean
all_answered (gpointer data)
{
  Answers *all = data;

  for (gsize i = 0; i < all->n; i++)
    if (all->answers[i].at == 0)
      return FALSE;
  return TRUE;
}

static void
wait_answers (Answer *answers, gsize n)
{
  Answers all = { answers, n };

  ow_test_wait_until (all_answered, &all, "every call to answer");
}

static void
answer_clear (Answer *a)
{
  g_clear_pointer (&a->result, ow_tool_result_free);
  g_clear_error (&a->error);
}

static void
test_concurrent (void)
{
  g_autofree char *ws = ow_test_make_tmpdir ("ow-sbx-ws");
  g_autofree char *file = g_build_filename (ws, "f.txt", NULL);
  g_autoptr(OwExecutor) ex = sbx_plain_runner (NULL);
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  Answer answers[5] = { 0 };

  sbx_write (file, "content\n", 0644);
  g_ptr_array_add (roots, ow_root_new (ws, TRUE, "workspace"));
  ow_executor_set_roots (ex, roots);
  answers_seen = 0;
  ow_executor_execute_async (ex, "run_shell", "{\"command\":\"sleep 1; echo slow\"}", NULL, on_answer_cb, &answers[0]);
  for (int i = 1; i < 5; i++)
    ow_executor_execute_async (ex, "read_file", "{\"path\":\"f.txt\"}", NULL, on_answer_cb, &answers[i]);
  wait_answers (answers, 5);
  /* The reads did not wait for the command. */
  g_assert_cmpint (answers[0].order, ==, 5);
  for (int i = 0; i < 5; i++)
    {
      g_assert_no_error (answers[i].error);
      g_assert_cmpint (answers[i].result->status, ==, OW_TOOL_STATUS_OK);
    }
  g_assert_nonnull (strstr (answers[0].result->text, "slow"));
  g_assert_nonnull (strstr (answers[1].result->text, "content"));
  for (int i = 0; i < 5; i++)
    answer_clear (&answers[i]);
  g_clear_object (&ex);
  ow_remove_tree (ws, NULL);
}

static gboolean
on_cancel_now_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  g_autofree char *ws = ow_test_make_tmpdir ("ow-sbx-ws");
  g_autoptr(OwExecutor) ex = sbx_plain_runner (NULL);
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(GCancellable) other = g_cancellable_new ();
  Answer answers[2] = { 0 };
  gint64 cancelled_at;

  g_ptr_array_add (roots, ow_root_new (ws, TRUE, "workspace"));
  ow_executor_set_roots (ex, roots);
  answers_seen = 0;
  ow_executor_execute_async (ex, "run_shell", "{\"command\":\"sleep 30\"}", cancel, on_answer_cb, &answers[0]);
  ow_executor_execute_async (ex, "read_file", "{\"path\":\"nothing-here\"}", other, on_answer_cb, &answers[1]);
  g_timeout_add (300, on_cancel_now_cb, cancel);
  wait_answers (answers, 2);
  cancelled_at = answers[0].at;
  g_assert_no_error (answers[0].error);
  g_assert_cmpint (answers[0].result->status, ==, OW_TOOL_STATUS_INTERRUPTED);
  g_assert_nonnull (strstr (answers[0].result->text, "interrupted by user"));
  /* Only that call was cancelled. */
  g_assert_false (g_cancellable_is_cancelled (other));
  g_assert_cmpint (answers[1].result->status, ==, OW_TOOL_STATUS_ERROR);
  g_assert_cmpint (cancelled_at, >, 0);
  answer_clear (&answers[0]);
  answer_clear (&answers[1]);

  /* Cancelled before it was even sent: still answered, "interrupted". */
  {
    g_autoptr(GCancellable) early = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(OwToolResult) r = NULL;

    g_cancellable_cancel (early);
    r = sbx_call_cancellable (ex, "run_shell", "{\"command\":\"echo never\"}", early, &error);
    g_assert_no_error (error);
    g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_INTERRUPTED);
    g_assert_null (strstr (r->text, "never\\n"));
  }
  /* The shell is still there for the next command. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(OwToolResult) r = sbx_call (ex, "run_shell", "{\"command\":\"echo after\"}", &error);

    g_assert_no_error (error);
    g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_OK);
    g_assert_nonnull (strstr (r->text, "after"));
  }
  g_clear_object (&ex);
  ow_remove_tree (ws, NULL);
}

static void
test_roots (void)
{
  g_autofree char *rw = ow_test_make_tmpdir ("ow-sbx-rw");
  g_autofree char *ro = ow_test_make_tmpdir ("ow-sbx-ro");
  g_autoptr(OwExecutor) ex = sbx_plain_runner (NULL);
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autofree char *args = g_strdup_printf ("{\"path\":\"%s/x.txt\",\"content\":\"x\"}", ro);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r1 = NULL;
  g_autoptr(OwToolResult) r2 = NULL;

  g_ptr_array_add (roots, ow_root_new (rw, TRUE, "workspace"));
  g_ptr_array_add (roots, ow_root_new (ro, FALSE, "added"));
  ow_executor_set_roots (ex, roots);
  r1 = sbx_call (ex, "write_file", args, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r1->status, ==, OW_TOOL_STATUS_ERROR);

  g_ptr_array_set_size (roots, 0);
  g_ptr_array_add (roots, ow_root_new (rw, TRUE, "workspace"));
  g_ptr_array_add (roots, ow_root_new (ro, TRUE, "added"));
  ow_executor_set_roots (ex, roots);
  r2 = sbx_call (ex, "write_file", args, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r2->status, ==, OW_TOOL_STATUS_OK);
  g_clear_object (&ex);
  ow_remove_tree (rw, NULL);
  ow_remove_tree (ro, NULL);
}

/* ---- death ------------------------------------------------------------------ */

static void
on_stopped_cb (OwExecutorRunner *ex, const char *reason, gpointer user_data)
{
  g_free (*(char **) user_data);
  *(char **) user_data = g_strdup (reason);
}

static void
test_death (void)
{
  g_autofree char *ws = ow_test_make_tmpdir ("ow-sbx-ws");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(OwExecutor) ex = sbx_plain_runner (&process);
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autofree char *stopped = NULL;
  Answer answers[3] = { 0 };

  g_ptr_array_add (roots, ow_root_new (ws, TRUE, "workspace"));
  ow_executor_set_roots (ex, roots);
  g_signal_connect (ex, "stopped", G_CALLBACK (on_stopped_cb), &stopped);
  answers_seen = 0;
  ow_executor_execute_async (ex, "run_shell", "{\"command\":\"sleep 30\"}", NULL, on_answer_cb, &answers[0]);
  ow_executor_execute_async (ex, "run_shell", "{\"command\":\"sleep 30\"}", NULL, on_answer_cb, &answers[1]);
  ow_test_spin_for (300);
  g_subprocess_send_signal (process, SIGKILL);
  wait_answers (answers, 2);
  for (int i = 0; i < 2; i++)
    {
      g_assert_null (answers[i].result);
      g_assert_error (answers[i].error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (answers[i].error->message, "tool runner stopped"));
      g_assert_nonnull (strstr (answers[i].error->message, "killed by signal 9"));
    }
  g_assert_nonnull (stopped);
  g_assert_false (ow_executor_runner_is_alive (OW_EXECUTOR_RUNNER (ex)));
  /* Later calls fail at once, with the same reason. */
  ow_executor_execute_async (ex, "read_file", "{\"path\":\"x\"}", NULL, on_answer_cb, &answers[2]);
  wait_answers (&answers[2], 1);
  g_assert_error (answers[2].error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  for (int i = 0; i < 3; i++)
    answer_clear (&answers[i]);
  g_clear_object (&ex);
  ow_remove_tree (ws, NULL);
}

static gboolean
pid_gone (pid_t pid)
{
  return kill (pid, 0) != 0 && errno == ESRCH;
}

static void
test_shutdown_ends_everything (void)
{
  g_autofree char *ws = ow_test_make_tmpdir ("ow-sbx-ws");
  g_autoptr(GSubprocess) process = NULL;
  OwExecutor *ex = sbx_plain_runner (&process);
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(JsonObject) o = NULL;
  g_auto(GStrv) pids = NULL;

  g_ptr_array_add (roots, ow_root_new (ws, TRUE, "workspace"));
  ow_executor_set_roots (ex, roots);
  r = sbx_call (ex, "run_shell", "{\"command\":\"sleep 300 & echo $$ $!\"}", &error);
  g_assert_no_error (error);
  o = sbx_result_object (r);
  pids = g_strsplit (g_strstrip ((char *) ow_json_get_string (o, "output")), " ", 2);
  g_assert_cmpuint (g_strv_length (pids), ==, 2);
  g_object_unref (ex);
  OW_TEST_WAIT_UNTIL (g_subprocess_get_identifier (process) == NULL);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  OW_TEST_WAIT_UNTIL (pid_gone ((pid_t) atoi (pids[0])));
  OW_TEST_WAIT_UNTIL (pid_gone ((pid_t) atoi (pids[1])));
  ow_remove_tree (ws, NULL);
}

/* ---- a misbehaving peer ------------------------------------------------------ */

static OwExecutor *
fake_peer (int *peer_fd)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) sock = NULL;
  g_autoptr(GSocketConnection) conn = NULL;
  int sv[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), ==, 0);
  sock = g_socket_new_from_fd (sv[0], &error);
  g_assert_no_error (error);
  conn = g_socket_connection_factory_create_connection (sock);
  *peer_fd = sv[1];
  return ow_executor_runner_new (G_IO_STREAM (conn), NULL, "fake");
}

static void
peer_send (int fd, const char *json)
{
  g_assert_cmpint (ow_runner_write_frame (fd, json, strlen (json)), ==, 0);
}

static void
test_peer_oversized (void)
{
  int fd;
  g_autoptr(OwExecutor) ex = fake_peer (&fd);
  unsigned char header[4];
  Answer a = { 0 };

  peer_send (fd, "{\"op\":\"hello\",\"version\":1,\"pid\":1}");
  ow_executor_execute_async (ex, "read_file", "{\"path\":\"x\"}", NULL, on_answer_cb, &a);
  ow_runner_frame_header_encode (0xffffffffu, header);
  g_assert_cmpint (write (fd, header, 4), ==, 4);
  wait_answers (&a, 1);
  g_assert_error (a.error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (a.error->message, "larger than the protocol allows"));
  answer_clear (&a);
  close (fd);
}

static void
test_peer_garbage (void)
{
  int fd;
  g_autoptr(OwExecutor) ex = fake_peer (&fd);
  Answer a = { 0 };

  peer_send (fd, "{\"op\":\"hello\",\"version\":1,\"pid\":1}");
  ow_executor_execute_async (ex, "read_file", "{\"path\":\"x\"}", NULL, on_answer_cb, &a);
  peer_send (fd, "this is not json");
  wait_answers (&a, 1);
  g_assert_error (a.error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (a.error->message, "not a JSON object"));
  answer_clear (&a);
  close (fd);
}

/* Answers: ids that do not exist are ignored; the real one completes. */
static void
test_peer_answers (void)
{
  int fd;
  g_autoptr(OwExecutor) ex = fake_peer (&fd);
  Answer a = { 0 };
  char *frame = NULL;
  g_autoptr(JsonObject) call = NULL;

  peer_send (fd, "{\"op\":\"hello\",\"version\":1,\"pid\":1}");
  ow_executor_execute_async (ex, "read_file", "{\"path\":\"x\"}", NULL, on_answer_cb, &a);
  ow_test_spin_for (50);
  g_assert_cmpint (ow_runner_read_frame (fd, &frame), >, 0);
  call = ow_json_object_from_string (frame, -1, NULL);
  free (frame);
  g_assert_cmpstr (ow_json_get_string (call, "op"), ==, "call");
  g_assert_cmpstr (ow_json_get_string (call, "tool"), ==, "read_file");
  g_assert_cmpstr (ow_json_get_string (call, "args"), ==, "{\"path\":\"x\"}");
  peer_send (fd, "{\"id\":9999,\"status\":0,\"result\":\"{}\"}");
  peer_send (fd, "{\"op\":\"something-new\"}");
  {
    g_autofree char *answer = g_strdup_printf ("{\"id\":%" G_GINT64_FORMAT ",\"status\":2,\"result\":"
                                               "\"{\\\"error\\\":\\\"interrupted by user\\\"}\"}",
                                               ow_json_get_int (call, "id", 0));

    peer_send (fd, answer);
  }
  wait_answers (&a, 1);
  g_assert_no_error (a.error);
  g_assert_cmpint (a.result->status, ==, OW_TOOL_STATUS_INTERRUPTED);
  g_assert_cmpstr (a.result->text, ==, "{\"error\":\"interrupted by user\"}");
  answer_clear (&a);
  close (fd);
}

typedef struct {
  JsonObject *hello;   /* (owned) */
  GError     *error;   /* (owned) */
  gboolean    done;    /* the wait has answered */
} Ready;

static void
on_ready_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Ready *r = user_data;

  r->hello = ow_executor_runner_wait_ready_finish (OW_EXECUTOR_RUNNER (source), result, &r->error);
  r->done = TRUE;
}

static void
wait_ready (OwExecutor *ex, Ready *r)
{
  ow_executor_runner_wait_ready_async (OW_EXECUTOR_RUNNER (ex), NULL, on_ready_cb, r);
  ow_test_wait_flag (&r->done);
}

static void
test_peer_version (void)
{
  int fd;
  g_autoptr(OwExecutor) ex = fake_peer (&fd);
  Ready r = { 0 };

  peer_send (fd, "{\"op\":\"hello\",\"version\":99,\"pid\":1}");
  wait_ready (ex, &r);
  g_assert_error (r.error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (r.error->message, "protocol version 99"));
  g_clear_error (&r.error);
  close (fd);
}

static void
test_peer_fatal (void)
{
  int fd;
  g_autoptr(OwExecutor) ex = fake_peer (&fd);
  Ready r = { 0 };

  peer_send (fd, "{\"op\":\"fatal\",\"message\":\"Landlock is not available in this kernel\"}");
  close (fd);
  wait_ready (ex, &r);
  g_assert_error (r.error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED);
  g_assert_nonnull (strstr (r.error->message, "Landlock is not available"));
  g_clear_error (&r.error);
}

static void
test_real_hello (void)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(OwExecutor) ex = sbx_plain_runner (&process);
  g_autofree char *pid = NULL;
  Ready r = { 0 };

  wait_ready (ex, &r);
  g_assert_no_error (r.error);
  g_assert_cmpint (ow_json_get_int (r.hello, "version", 0), ==, OW_RUNNER_PROTOCOL_VERSION);
  pid = g_strdup_printf ("%" G_GINT64_FORMAT, ow_json_get_int (r.hello, "pid", 0));
  g_assert_cmpstr (g_subprocess_get_identifier (process), ==, pid);
  json_object_unref (r.hello);
}

/* Without a wall the probe says so honestly: the folder is there, but
 * there is no Landlock, no seccomp, and an unknown check fails. */
typedef struct {
  JsonArray *answers;   /* (owned) */
  GError    *error;     /* (owned) */
  gboolean   done;      /* the probe has answered */
} ProbeWait;

static void
on_probe_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ProbeWait *p = user_data;

  p->answers = ow_executor_runner_probe_finish (OW_EXECUTOR_RUNNER (source), result, &p->error);
  p->done = TRUE;
}

static void
test_probe_plain (void)
{
  g_autofree char *ws = ow_test_make_tmpdir ("ow-sbx-ws");
  g_autoptr(OwExecutor) ex = sbx_plain_runner (NULL);
  g_autofree char *text = g_strdup_printf ("[{\"kind\":\"root\",\"path\":\"%s\",\"writable\":true},"
                                           "{\"kind\":\"root\",\"path\":\"/nonexistent-ow\",\"writable\":false},"
                                           "{\"kind\":\"landlock\"},{\"kind\":\"seccomp\"},{\"kind\":\"teleport\"},"
                                           "{\"kind\":\"hidden\",\"path\":\"/nonexistent-ow\",\"must_not_exist\":true},"
                                           "{\"kind\":\"env_absent\",\"names\":[\"OW_PROBE_PLAIN_TOKEN\"]}]", ws);
  g_autoptr(JsonNode) node = ow_json_parse (text, -1, NULL);
  ProbeWait p = { 0 };
  static const gboolean want[] = { TRUE, FALSE, FALSE, FALSE, FALSE, TRUE, TRUE };

  ow_executor_runner_probe_async (OW_EXECUTOR_RUNNER (ex), json_node_get_array (node), NULL, on_probe_cb, &p);
  ow_test_wait_flag (&p.done);
  g_assert_no_error (p.error);
  g_assert_cmpuint (json_array_get_length (p.answers), ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      JsonObject *a = json_array_get_object_element (p.answers, i);

      g_test_message ("%s: %s", ow_json_get_string (a, "name"), ow_json_get_string (a, "detail"));
      g_assert_cmpint (ow_json_get_bool (a, "ok", !want[i]), ==, want[i]);
    }
  json_array_unref (p.answers);
  g_clear_object (&ex);
  ow_remove_tree (ws, NULL);
}

static void
test_call_too_large (void)
{
  g_autoptr(OwExecutor) ex = sbx_plain_runner (NULL);
  gsize len = OW_RUNNER_MAX_FRAME + 16;
  g_autofree char *args = g_malloc (len + 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(OwToolResult) after = NULL;

  memset (args, 'a', len);
  args[len] = '\0';
  r = sbx_call (ex, "read_file", args, &error);
  g_assert_null (r);
  g_assert_error (error, OW_TOOL_ERROR, OW_TOOL_ERROR_BAD_ARGUMENTS);
  g_clear_error (&error);
  /* The connection is fine afterwards. */
  after = sbx_call (ex, "read_file", "{\"path\":\"/nonexistent-ow\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (after->status, ==, OW_TOOL_STATUS_ERROR);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/sandbox/runner/hello", test_real_hello);
  g_test_add_func ("/ow/sandbox/runner/handles", test_handles);
  g_test_add_func ("/ow/sandbox/runner/every-tool", test_every_tool);
  g_test_add_func ("/ow/sandbox/runner/concurrent", test_concurrent);
  g_test_add_func ("/ow/sandbox/runner/cancel", test_cancel);
  g_test_add_func ("/ow/sandbox/runner/roots", test_roots);
  g_test_add_func ("/ow/sandbox/runner/death", test_death);
  g_test_add_func ("/ow/sandbox/runner/shutdown-ends-everything", test_shutdown_ends_everything);
  g_test_add_func ("/ow/sandbox/runner/peer-oversized", test_peer_oversized);
  g_test_add_func ("/ow/sandbox/runner/peer-garbage", test_peer_garbage);
  g_test_add_func ("/ow/sandbox/runner/peer-answers", test_peer_answers);
  g_test_add_func ("/ow/sandbox/runner/peer-version", test_peer_version);
  g_test_add_func ("/ow/sandbox/runner/peer-fatal", test_peer_fatal);
  g_test_add_func ("/ow/sandbox/runner/probe-plain", test_probe_plain);
  g_test_add_func ("/ow/sandbox/runner/call-too-large", test_call_too_large);
  return g_test_run ();
}
