/* ow-runner.c: openworker-tool-runner's serving loop.
 *
 * The main thread reads frames and dispatches them; it never runs a tool.
 * Each "call" and "probe" gets a detached thread of its own with a pipe
 * whose read end is the call's cancel descriptor: "cancel" writes a byte
 * there and the tool body, which polls it next to its child's output,
 * returns "interrupted" within its 100 ms promise. Results are written by
 * the thread that produced them, one whole frame at a time under a lock.
 *
 * There is one OwTbShell for the whole runner (the session's shell: cwd
 * and variables survive between calls), created with the first call in
 * the primary folder. The body serializes calls on it; file tools run
 * side by side with a command.
 *
 * The end is the same for "shutdown" and for end of stream (the engine
 * closed the connection or died): cancel every call, give them a few
 * seconds to answer, then free the shell, which kills bash, its process
 * groups and every background task. Behind the wall this process is the
 * last one its init waits for, so once it returns the pid namespace, and
 * everything left in it, is gone too.
 */
#include "sandbox/runner/ow-runner.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/runner/ow-runner-private.h"
#include "sandbox/runner/ow-runner-proto.h"

/* More calls at once than any session makes; past it a call is refused
 * instead of starting yet another thread. */
#define MAX_CALLS          256
/* How long running calls get to answer a cancel at shutdown. */
#define SHUTDOWN_GRACE_MS  3000

typedef struct Runner Runner;

/* One call or probe in flight. */
typedef struct Call Call;
struct Call {
  Call      *next;       /* the next call in flight */
  Runner    *runner;     /* the runner it belongs to (borrowed) */
  long long  id;         /* the engine's number for it */
  int        cancel_rd;  /* read end of the cancel pipe: the tool body polls it */
  int        cancel_wr;  /* write end: one byte here interrupts the call */
  char      *tool;       /* tool name, NULL for a probe (owned) */
  char      *args;       /* the arguments' JSON text (owned) */
  size_t     args_len;   /* its length in bytes */
  OwTbJson  *probe;      /* a probe's whole frame; its "checks" are run (owned) */
};

struct Runner {
  const OwRunnerOptions *options;  /* how to serve (borrowed) */
  pthread_mutex_t lock;            /* guards every field below */
  pthread_cond_t  changed;         /* signalled when a call ends */
  pthread_mutex_t write_lock;      /* one frame at a time on options->out_fd */
  Call           *calls;           /* calls in flight (owned) */
  size_t          n_calls;         /* how many */
  char          **root_paths;      /* the session's folders, primary first (owned) */
  int            *root_writable;   /* parallel to root_paths */
  size_t          n_roots;         /* how many */
  OwTbShell      *shell;           /* the session's shell, or NULL before the first call (owned) */
};

/* ---- small helpers ---------------------------------------------------- */

/* A close-on-exec, non-blocking pipe (pipe2 where there is one: the runner
 * is also built for Seatbelt on macOS). */
static int
make_cancel_pipe (int fds[2])
{
#ifdef __linux__
  return pipe2 (fds, O_CLOEXEC | O_NONBLOCK);
#else
  if (pipe (fds) != 0)
    return -1;
  for (int i = 0; i < 2; i++)
    {
      fcntl (fds[i], F_SETFD, FD_CLOEXEC);
      fcntl (fds[i], F_SETFL, fcntl (fds[i], F_GETFL) | O_NONBLOCK);
    }
  return 0;
#endif
}

static void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n != 0 ? n : 1, size != 0 ? size : 1);

  if (p == NULL)
    {
      fputs ("openworker-tool-runner: out of memory\n", stderr);
      abort ();
    }
  return p;
}

static char *
xstrdup (const char *s)
{
  char *copy = strdup (s);

  if (copy == NULL)
    {
      fputs ("openworker-tool-runner: out of memory\n", stderr);
      abort ();
    }
  return copy;
}

const char *
ow_runner_err_text (int errnum, char *scratch, size_t size)
{
  /* The GNU strerror_r returns its own pointer; copy so callers may keep it. */
  const char *s = strerror_r (errnum, scratch, size);

  if (s != scratch)
    snprintf (scratch, size, "%s", s);
  return scratch;
}

static long long
monotonic_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *
ow_runner_json_str (const OwTbJson *obj, const char *key)
{
  const OwTbJson *node = obj != NULL ? ow_tb_json_get (obj, key) : NULL;

  return node != NULL && node->type == OW_TB_JSON_STRING ? node->string : NULL;
}

int
ow_runner_json_int (const OwTbJson *obj, const char *key, long long *value)
{
  const OwTbJson *node = obj != NULL ? ow_tb_json_get (obj, key) : NULL;

  if (node == NULL || node->type != OW_TB_JSON_NUMBER)
    return 0;
  if (!(node->number >= -9007199254740992.0 && node->number <= 9007199254740992.0)
      || (double) (long long) node->number != node->number)
    return 0;
  *value = (long long) node->number;
  return 1;
}

int
ow_runner_json_bool (const OwTbJson *obj, const char *key)
{
  const OwTbJson *node = obj != NULL ? ow_tb_json_get (obj, key) : NULL;

  return node != NULL && node->type == OW_TB_JSON_BOOL && node->boolean;
}

/* Writes one frame; a failure means the engine is gone, which the main
 * loop notices as end of stream, so it is only reported once. */
static void
send_frame (Runner *r, const OwTbBuf *frame)
{
  static int reported;

  pthread_mutex_lock (&r->write_lock);
  if (ow_runner_write_frame (r->options->out_fd, frame->data, frame->len) != 0 && !reported)
    {
      char scratch[128];

      reported = 1;
      fprintf (stderr, "openworker-tool-runner: cannot send to the engine: %s\n",
               ow_runner_err_text (errno, scratch, sizeof scratch));
    }
  pthread_mutex_unlock (&r->write_lock);
}

/* ---- roots ------------------------------------------------------------ */

static void
roots_clear (Runner *r)
{
  for (size_t i = 0; i < r->n_roots; i++)
    free (r->root_paths[i]);
  free (r->root_paths);
  free (r->root_writable);
  r->root_paths = NULL;
  r->root_writable = NULL;
  r->n_roots = 0;
}

/* Replaces the roots from a "roots" frame's array; entries without an
 * absolute path are skipped. Called with the lock held. */
static void
roots_set_from_json (Runner *r, const OwTbJson *array)
{
  roots_clear (r);
  if (array == NULL || array->type != OW_TB_JSON_ARRAY)
    return;
  r->root_paths = xcalloc (array->n_items, sizeof (char *));
  r->root_writable = xcalloc (array->n_items, sizeof (int));
  for (size_t i = 0; i < array->n_items; i++)
    {
      const char *path = ow_runner_json_str (array->items[i], "path");

      if (path == NULL || path[0] != '/')
        continue;
      r->root_paths[r->n_roots] = xstrdup (path);
      r->root_writable[r->n_roots] = ow_runner_json_bool (array->items[i], "writable");
      r->n_roots++;
    }
}

/* ---- calls ------------------------------------------------------------ */

static void
call_free (Call *call)
{
  if (call->cancel_rd >= 0)
    close (call->cancel_rd);
  if (call->cancel_wr >= 0)
    close (call->cancel_wr);
  free (call->tool);
  free (call->args);
  ow_tb_json_free (call->probe);
  free (call);
}

static void
call_cancel (Call *call)
{
  ssize_t n;

  /* The pipe is non-blocking: a second cancel on a full pipe is a no-op. */
  do
    n = write (call->cancel_wr, "x", 1);
  while (n < 0 && errno == EINTR);
}

/* Takes @call off the list (it has answered) and wakes shutdown. */
static void
call_finish (Call *call)
{
  Runner *r = call->runner;

  pthread_mutex_lock (&r->lock);
  for (Call **link = &r->calls; *link != NULL; link = &(*link)->next)
    if (*link == call)
      {
        *link = call->next;
        r->n_calls--;
        break;
      }
  pthread_cond_broadcast (&r->changed);
  pthread_mutex_unlock (&r->lock);
  call_free (call);
}

static void
run_tool (Call *call, OwTbBuf *frame)
{
  Runner *r = call->runner;
  OwTbRoot *roots;
  char **paths;
  size_t n_roots;
  OwTbEnv env;
  OwTbBuf out;
  OwTbStatus status;

  /* A snapshot of the roots, so a "roots" frame arriving meanwhile cannot
   * free them under the call. */
  pthread_mutex_lock (&r->lock);
  n_roots = r->n_roots;
  roots = xcalloc (n_roots, sizeof *roots);
  paths = xcalloc (n_roots, sizeof *paths);
  for (size_t i = 0; i < n_roots; i++)
    {
      paths[i] = xstrdup (r->root_paths[i]);
      roots[i].path = paths[i];
      roots[i].writable = r->root_writable[i];
    }
  if (r->shell == NULL)
    r->shell = ow_tb_shell_new (n_roots > 0 ? paths[0] : "/", r->options->envp);
  env.shell = r->shell;
  pthread_mutex_unlock (&r->lock);

  env.roots = roots;
  env.n_roots = n_roots;
  env.cancel_fd = call->cancel_rd;
  ow_tb_buf_init (&out);
  status = ow_tb_call (&env, call->tool, call->args, call->args_len, &out);

  ow_tb_buf_printf (frame, "{\"id\":%lld,\"status\":%d,\"result\":", call->id, (int) status);
  ow_tb_buf_json_string (frame, out.data, out.len);
  ow_tb_buf_puts (frame, "}");
  if (frame->len > OW_RUNNER_MAX_FRAME)
    {
      /* Results are bounded by the bodies; this only guards the frame limit. */
      ow_tb_buf_reset (frame);
      ow_tb_buf_printf (frame, "{\"id\":%lld,\"status\":%d,\"result\":"
                               "\"{\\\"error\\\":\\\"the result was too large to return\\\"}\"}",
                        call->id, (int) OW_TB_ERROR);
    }
  ow_tb_buf_free (&out);
  for (size_t i = 0; i < n_roots; i++)
    free (paths[i]);
  free (paths);
  free (roots);
}

static void *
call_thread (void *data)
{
  Call *call = data;
  OwTbBuf frame;

  ow_tb_buf_init (&frame);
  if (call->tool != NULL)
    run_tool (call, &frame);
  else
    {
      OwTbBuf checks;

      ow_tb_buf_init (&checks);
      ow_runner_probe (call->runner->options, ow_tb_json_get (call->probe, "checks"), &checks);
      ow_tb_buf_printf (&frame, "{\"id\":%lld,\"probe\":%s}", call->id, checks.data);
      ow_tb_buf_free (&checks);
    }
  send_frame (call->runner, &frame);
  ow_tb_buf_free (&frame);
  call_finish (call);
  return NULL;
}

/* Starts a thread for a "call" or "probe" frame (@frame is taken). */
static void
start_call (Runner *r, long long id, OwTbJson *frame, int is_probe)
{
  Call *call = xcalloc (1, sizeof *call);
  int cancelled = ow_runner_json_bool (frame, "cancelled");
  int fds[2];
  pthread_attr_t attr;
  pthread_t thread;
  int err;

  call->runner = r;
  call->id = id;
  call->cancel_rd = call->cancel_wr = -1;
  if (is_probe)
    call->probe = frame;
  else
    {
      const OwTbJson *args = ow_tb_json_get (frame, "args");
      const char *tool = ow_runner_json_str (frame, "tool");

      call->tool = xstrdup (tool != NULL ? tool : "");
      if (args != NULL && args->type == OW_TB_JSON_STRING)
        {
          call->args = xcalloc (args->string_len + 1, 1);
          memcpy (call->args, args->string, args->string_len);
          call->args_len = args->string_len;
        }
      else
        call->args = xstrdup ("");
      ow_tb_json_free (frame);
    }

  pthread_mutex_lock (&r->lock);
  if (r->n_calls >= MAX_CALLS || make_cancel_pipe (fds) != 0)
    {
      OwTbBuf answer;

      pthread_mutex_unlock (&r->lock);
      ow_tb_buf_init (&answer);
      ow_tb_buf_printf (&answer, "{\"id\":%lld,\"status\":%d,\"result\":"
                                 "\"{\\\"error\\\":\\\"the tool runner has too many calls "
                                 "running; try again when some have finished\\\"}\"}",
                        id, (int) OW_TB_ERROR);
      send_frame (r, &answer);
      ow_tb_buf_free (&answer);
      call_free (call);
      return;
    }
  call->cancel_rd = fds[0];
  call->cancel_wr = fds[1];
  if (cancelled)
    call_cancel (call);
  call->next = r->calls;
  r->calls = call;
  r->n_calls++;
  pthread_mutex_unlock (&r->lock);

  pthread_attr_init (&attr);
  pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
  err = pthread_create (&thread, &attr, call_thread, call);
  pthread_attr_destroy (&attr);
  if (err != 0)
    {
      /* Answer inline rather than leave the engine waiting. */
      call_thread (call);
    }
}

static void
cancel_call (Runner *r, long long id)
{
  pthread_mutex_lock (&r->lock);
  for (Call *call = r->calls; call != NULL; call = call->next)
    if (call->id == id)
      call_cancel (call);
  pthread_mutex_unlock (&r->lock);
}

/* Cancels everything, waits for the calls to answer and frees the shell.
 * Returns 0 when every call ended in time. */
static int
stop_everything (Runner *r)
{
  long long deadline = monotonic_ms () + SHUTDOWN_GRACE_MS;
  size_t left;

  pthread_mutex_lock (&r->lock);
  for (Call *call = r->calls; call != NULL; call = call->next)
    call_cancel (call);
  while (r->n_calls > 0)
    {
      long long now = monotonic_ms ();
      struct timespec until;

      if (now >= deadline)
        break;
      clock_gettime (CLOCK_MONOTONIC, &until);
      until.tv_nsec += 50 * 1000000L;
      if (until.tv_nsec >= 1000000000L)
        {
          until.tv_sec++;
          until.tv_nsec -= 1000000000L;
        }
      pthread_cond_timedwait (&r->changed, &r->lock, &until);
    }
  left = r->n_calls;
  pthread_mutex_unlock (&r->lock);
  if (left > 0)
    {
      /* A thread is still inside a tool body and may hold the shell:
       * freeing it now would pull it out from under that thread. The
       * process is about to exit; behind the wall the pid namespace takes
       * every process with it. */
      fprintf (stderr, "openworker-tool-runner: %zu call(s) did not stop in time\n", left);
      return -1;
    }
  ow_tb_shell_free (r->shell);
  r->shell = NULL;
  roots_clear (r);
  return 0;
}

/* ---- the loop ---------------------------------------------------------- */

static void
send_hello (Runner *r)
{
  OwTbBuf hello;

  ow_tb_buf_init (&hello);
  ow_tb_buf_printf (&hello, "{\"op\":\"hello\",\"version\":%d,\"pid\":%ld",
                    OW_RUNNER_PROTOCOL_VERSION, (long) getpid ());
  if (r->options->hello_extra != NULL && r->options->hello_extra[0] != '\0')
    ow_tb_buf_printf (&hello, ",%s", r->options->hello_extra);
  ow_tb_buf_puts (&hello, "}");
  send_frame (r, &hello);
  ow_tb_buf_free (&hello);
}

int
ow_runner_serve (const OwRunnerOptions *options)
{
  Runner *r = xcalloc (1, sizeof *r);
  pthread_condattr_t cattr;
  int code = 0;

  r->options = options;
  pthread_mutex_init (&r->lock, NULL);
  pthread_mutex_init (&r->write_lock, NULL);
  pthread_condattr_init (&cattr);
  pthread_condattr_setclock (&cattr, CLOCK_MONOTONIC);
  pthread_cond_init (&r->changed, &cattr);
  pthread_condattr_destroy (&cattr);

  /* A dead engine must show up as EPIPE on the next write, not kill us
   * before we have cleaned up. */
  signal (SIGPIPE, SIG_IGN);
  fcntl (options->in_fd, F_SETFD, FD_CLOEXEC);
  fcntl (options->out_fd, F_SETFD, FD_CLOEXEC);

  if (options->n_roots > 0)
    {
      r->root_paths = xcalloc (options->n_roots, sizeof (char *));
      r->root_writable = xcalloc (options->n_roots, sizeof (int));
      for (size_t i = 0; i < options->n_roots; i++)
        {
          r->root_paths[i] = xstrdup (options->roots[i].path);
          r->root_writable[i] = options->roots[i].writable;
        }
      r->n_roots = options->n_roots;
    }

  send_hello (r);
  for (;;)
    {
      char *text = NULL;
      long len = ow_runner_read_frame (options->in_fd, &text);
      char err[160];
      OwTbJson *frame;
      const char *op;
      long long id = 0;

      if (len < 0)
        {
          if (errno != 0)
            {
              char scratch[128];

              fprintf (stderr, "openworker-tool-runner: the connection to the engine failed: %s\n",
                       errno == EMSGSIZE ? "a frame was larger than the protocol allows"
                       : errno == EPROTO ? "it ended inside a frame"
                       : ow_runner_err_text (errno, scratch, sizeof scratch));
              code = 1;
            }
          break;
        }
      frame = ow_tb_json_parse (text, (size_t) len, err, sizeof err);
      free (text);
      if (frame == NULL || frame->type != OW_TB_JSON_OBJECT)
        {
          fprintf (stderr, "openworker-tool-runner: ignoring a frame that is not a JSON object (%s)\n",
                   frame == NULL ? err : "not an object");
          ow_tb_json_free (frame);
          continue;
        }
      op = ow_runner_json_str (frame, "op");
      if (op == NULL)
        {
          ow_tb_json_free (frame);
          continue;
        }
      if (strcmp (op, "call") == 0 || strcmp (op, "probe") == 0)
        {
          if (!ow_runner_json_int (frame, "id", &id))
            {
              fprintf (stderr, "openworker-tool-runner: ignoring a %s without an integer id\n", op);
              ow_tb_json_free (frame);
              continue;
            }
          start_call (r, id, frame, op[0] == 'p');
          continue;
        }
      if (strcmp (op, "cancel") == 0)
        {
          if (ow_runner_json_int (frame, "id", &id))
            cancel_call (r, id);
        }
      else if (strcmp (op, "roots") == 0)
        {
          pthread_mutex_lock (&r->lock);
          roots_set_from_json (r, ow_tb_json_get (frame, "roots"));
          pthread_mutex_unlock (&r->lock);
        }
      else if (strcmp (op, "shutdown") == 0)
        {
          ow_tb_json_free (frame);
          break;
        }
      /* Unknown operations are skipped, so a newer engine can add some. */
      ow_tb_json_free (frame);
    }

  if (stop_everything (r) == 0)
    {
      pthread_cond_destroy (&r->changed);
      pthread_mutex_destroy (&r->lock);
      pthread_mutex_destroy (&r->write_lock);
      free (r);
    }
  return code;
}
