/* ow-executor-runner.c: the engine's end of the tool-runner protocol.
 *
 * The connection state lives in a reference-counted Conn apart from the
 * executor, because a read is always outstanding while the runner lives:
 * if that read held the executor, the executor could never be finalized.
 * The executor owns one reference to its Conn; every async operation in
 * flight holds another; the Conn points back at the executor only weakly
 * (cleared in dispose). When the executor goes, it queues "shutdown",
 * closes the stream once the queue is written and gives the process a few
 * seconds before killing it.
 *
 * Reading: a 4-byte header, then the body, then the next header — each
 * with g_input_stream_read_all_async. Writing: frames wait in a queue and
 * go out one g_output_stream_write_all_async at a time (a stream allows
 * one pending write). Calls are numbered; the answer frame with the same
 * id completes the call's GTask. A cancellable's firing is noticed on the
 * main context through a GCancellableSource and becomes a "cancel" frame.
 *
 * Death: end of stream, a read or write error, an unreadable or oversized
 * frame, or the process exiting without closing the stream. Pending calls
 * fail with the reason, including the exit status when the process is
 * ours and has exited by then.
 */
#define G_LOG_DOMAIN "ow-executor-runner"

#include "sandbox/ow-executor-runner.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "sandbox/runner/ow-runner-proto.h"
#include "tools/body/ow-tb.h"

/* How long a runner gets to exit after "shutdown" before it is killed. */
#define SHUTDOWN_GRACE_S    3
/* After the process exits, how long the stream may stay open (other
 * holders of the socket) before the runner counts as gone. */
#define EXIT_TO_EOF_GRACE_MS 2000
/* After end of stream, how long to wait for the exit status to report it. */
#define EOF_TO_EXIT_WAIT_MS  500

typedef struct _Conn Conn;

/* One call or probe waiting for its answer. */
typedef struct {
  gint64   id;            /* the number sent with it */
  GTask   *task;          /* completes with the answer (owned) */
  gboolean is_probe;      /* answered by {"id", "probe"} instead of a result */
  GSource *cancel_source; /* fires on the main context when the call's cancellable does (owned) */
  gboolean cancel_sent;   /* "cancel" went out already */
} Pending;

struct _Conn
{
  gatomicrefcount   ref;          /* the executor and every async operation in flight */
  OwExecutorRunner *owner;        /* weak: NULL once the executor is disposed */
  GMainContext     *context;      /* where everything runs (owned) */
  GIOStream        *stream;       /* to the runner (owned) */
  GInputStream     *in;           /* borrowed from stream */
  GOutputStream    *out;          /* borrowed from stream */
  GSubprocess      *process;      /* the runner, when it is our child (owned) */
  GCancellable     *io_cancel;    /* stops reads and writes when the connection ends (owned) */
  guint8            header[4];    /* the frame header being read */
  guint8           *body;         /* the frame body being read (owned) */
  gsize             body_len;     /* its length */
  GQueue            writes;       /* GBytes* frames waiting to be written */
  GBytes           *writing;      /* the frame being written, or NULL (owned) */
  gboolean          closing;      /* close the stream once the queue is written */
  gint64            next_id;      /* the last call number used */
  GHashTable       *pending;      /* id → Pending* (owned) */
  GTask            *ready_task;   /* waiting for hello (owned) */
  JsonObject       *hello;        /* the hello frame, once it came (owned) */
  char             *fatal;        /* the runner's reason for not starting (owned) */
  gboolean          dead;         /* the runner is gone; @dead_reason says why */
  char             *dead_reason;  /* a sentence for the pending calls (owned) */
  gboolean          eof_waiting;  /* end of stream seen; waiting briefly for the exit status */
  char             *exit_text;    /* "exited with status 3", once the process exited (owned) */
  guint             grace_id;     /* timer started by exit-without-EOF or EOF-without-exit */
};

struct _OwExecutorRunner
{
  GObject    parent_instance;

  Conn      *conn;         /* the connection (one reference, owned) */
  char      *enforcement;  /* what get_enforcement() reports (owned) */
};

enum { SIGNAL_STOPPED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void executor_iface_init (OwExecutorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwExecutorRunner, ow_executor_runner, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_EXECUTOR, executor_iface_init))

/* ---- Conn lifetime -------------------------------------------------------- */

static Conn *
conn_ref (Conn *conn)
{
  g_atomic_ref_count_inc (&conn->ref);
  return conn;
}

static void
pending_free (Pending *p)
{
  if (p->cancel_source != NULL)
    {
      g_source_destroy (p->cancel_source);
      g_source_unref (p->cancel_source);
    }
  g_clear_object (&p->task);
  g_free (p);
}

static void
conn_unref (Conn *conn)
{
  if (!g_atomic_ref_count_dec (&conn->ref))
    return;
  g_clear_handle_id (&conn->grace_id, g_source_remove);
  g_hash_table_unref (conn->pending);
  g_queue_clear_full (&conn->writes, (GDestroyNotify) g_bytes_unref);
  g_clear_pointer (&conn->writing, g_bytes_unref);
  g_clear_object (&conn->ready_task);
  g_clear_pointer (&conn->hello, json_object_unref);
  g_free (conn->body);
  g_free (conn->fatal);
  g_free (conn->dead_reason);
  g_free (conn->exit_text);
  g_clear_object (&conn->io_cancel);
  g_clear_object (&conn->process);
  g_clear_object (&conn->stream);
  g_main_context_unref (conn->context);
  g_free (conn);
}

/* ---- death ---------------------------------------------------------------- */

static void
conn_die (Conn *conn, const char *reason)
{
  g_autoptr(GList) waiting = NULL;
  g_autofree char *message = NULL;

  if (conn->dead)
    return;
  conn->dead = TRUE;
  conn->eof_waiting = FALSE;
  g_clear_handle_id (&conn->grace_id, g_source_remove);
  if (conn->exit_text != NULL)
    message = g_strdup_printf ("The sandbox's tool runner stopped (%s; it %s). Start the session's "
                               "sandbox again to run more tools.", reason, conn->exit_text);
  else
    message = g_strdup_printf ("The sandbox's tool runner stopped (%s). Start the session's sandbox "
                               "again to run more tools.", reason);
  conn->dead_reason = g_strdup (message);
  g_debug ("%s", message);
  g_cancellable_cancel (conn->io_cancel);

  if (conn->ready_task != NULL)
    {
      GTask *task = g_steal_pointer (&conn->ready_task);

      if (conn->fatal != NULL)
        g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                 "The sandbox could not be built: %s.", conn->fatal);
      else
        g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, "%s", message);
      g_object_unref (task);
    }

  /* Complete outside the table: a completion may start another call. */
  waiting = g_hash_table_get_values (conn->pending);
  g_hash_table_steal_all (conn->pending);
  for (GList *l = waiting; l != NULL; l = l->next)
    {
      Pending *p = l->data;

      g_task_return_new_error (p->task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, "%s", message);
      pending_free (p);
    }
  if (conn->owner != NULL)
    g_signal_emit (conn->owner, signals[SIGNAL_STOPPED], 0, message);
}

static gboolean
on_eof_grace_cb (gpointer user_data)
{
  Conn *conn = user_data;

  conn->grace_id = 0;
  conn_die (conn, "it closed its connection");
  return G_SOURCE_REMOVE;
}

static gboolean
on_exit_grace_cb (gpointer user_data)
{
  Conn *conn = user_data;

  conn->grace_id = 0;
  conn_die (conn, "its process ended");
  return G_SOURCE_REMOVE;
}

/* End of stream. When the process is ours, wait a moment for its exit
 * status so the message can say how it ended. */
static void
conn_eof (Conn *conn)
{
  if (conn->dead || conn->eof_waiting)
    return;
  if (conn->process == NULL || conn->exit_text != NULL)
    {
      conn_die (conn, "it closed its connection");
      return;
    }
  conn->eof_waiting = TRUE;
  g_clear_handle_id (&conn->grace_id, g_source_remove);
  conn->grace_id = g_timeout_add_full (G_PRIORITY_DEFAULT, EOF_TO_EXIT_WAIT_MS, on_eof_grace_cb,
                                       conn_ref (conn), (GDestroyNotify) conn_unref);
}

static void
on_process_exited_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Conn *conn = user_data;
  GSubprocess *process = G_SUBPROCESS (source);

  if (g_subprocess_wait_finish (process, result, NULL))
    {
      if (g_subprocess_get_if_exited (process))
        conn->exit_text = g_strdup_printf ("exited with status %d", g_subprocess_get_exit_status (process));
      else if (g_subprocess_get_if_signaled (process))
        conn->exit_text = g_strdup_printf ("was killed by signal %d (%s)", g_subprocess_get_term_sig (process),
                                           g_strsignal (g_subprocess_get_term_sig (process)));
      if (conn->eof_waiting)
        {
          g_clear_handle_id (&conn->grace_id, g_source_remove);
          conn_die (conn, "it closed its connection");
        }
      else if (!conn->dead)
        {
          /* Frames may still be in the socket: read them first. */
          g_clear_handle_id (&conn->grace_id, g_source_remove);
          conn->grace_id = g_timeout_add_full (G_PRIORITY_DEFAULT, EXIT_TO_EOF_GRACE_MS, on_exit_grace_cb,
                                               conn_ref (conn), (GDestroyNotify) conn_unref);
        }
    }
  conn_unref (conn);
}

/* ---- writing ------------------------------------------------------------- */

static void write_next (Conn *conn);

static void
on_closed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_io_stream_close_finish (G_IO_STREAM (source), result, NULL);
  conn_unref (user_data);
}

static void
on_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Conn *conn = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&conn->writing, g_bytes_unref);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      if (!conn->closing && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *why = g_strdup_printf ("it could not be sent a request: %s", error->message);

          conn_die (conn, why);
        }
    }
  else
    write_next (conn);
  conn_unref (conn);
}

static void
write_next (Conn *conn)
{
  if (conn->writing != NULL)
    return;
  if (g_queue_is_empty (&conn->writes))
    {
      if (conn->closing)
        {
          /* Everything said: closing the stream is the runner's end of
           * stream, and its reads of our side end too. */
          conn->closing = FALSE;
          g_cancellable_cancel (conn->io_cancel);
          g_io_stream_close_async (conn->stream, G_PRIORITY_DEFAULT, NULL, on_closed_cb, conn_ref (conn));
        }
      return;
    }
  if (conn->dead && !conn->closing)
    return;
  conn->writing = g_queue_pop_head (&conn->writes);
  g_output_stream_write_all_async (conn->out, g_bytes_get_data (conn->writing, NULL),
                                   g_bytes_get_size (conn->writing), G_PRIORITY_DEFAULT,
                                   conn->closing ? NULL : conn->io_cancel, on_written_cb, conn_ref (conn));
}

/* Queues @frame. FALSE (and nothing queued) when it exceeds the protocol's
 * frame limit. */
static gboolean
conn_send (Conn *conn, JsonObject *frame)
{
  g_autofree char *text = ow_json_object_to_string (frame);
  gsize len = strlen (text);
  guint8 *data;

  if (len > OW_RUNNER_MAX_FRAME)
    return FALSE;
  data = g_malloc (len + 4);
  ow_runner_frame_header_encode ((guint32) len, data);
  memcpy (data + 4, text, len);
  g_queue_push_tail (&conn->writes, g_bytes_new_take (data, len + 4));
  write_next (conn);
  return TRUE;
}

/* ---- reading ------------------------------------------------------------- */

static void read_header (Conn *conn);

static OwToolStatus
status_from_body (gint64 status)
{
  switch (status)
    {
    case OW_TB_OK: return OW_TOOL_STATUS_OK;
    case OW_TB_INTERRUPTED: return OW_TOOL_STATUS_INTERRUPTED;
    default: return OW_TOOL_STATUS_ERROR;
    }
}

static void
dispatch (Conn *conn, JsonObject *frame)
{
  const char *op = ow_json_get_string (frame, "op");
  Pending *p;
  gint64 id;

  if (op != NULL && g_str_equal (op, "hello"))
    {
      if (ow_json_get_int (frame, "version", 0) != OW_RUNNER_PROTOCOL_VERSION)
        {
          g_autofree char *why = g_strdup_printf ("it speaks protocol version %" G_GINT64_FORMAT
                                                  ", this OpenWorker speaks %d; install matching versions",
                                                  ow_json_get_int (frame, "version", 0),
                                                  OW_RUNNER_PROTOCOL_VERSION);

          conn_die (conn, why);
          return;
        }
      g_clear_pointer (&conn->hello, json_object_unref);
      conn->hello = json_object_ref (frame);
      if (conn->ready_task != NULL)
        {
          GTask *task = g_steal_pointer (&conn->ready_task);

          g_task_return_pointer (task, ow_json_object_deep_copy (frame), (GDestroyNotify) json_object_unref);
          g_object_unref (task);
        }
      return;
    }
  if (op != NULL && g_str_equal (op, "fatal"))
    {
      g_free (conn->fatal);
      conn->fatal = g_strdup (ow_json_get_string (frame, "message"));
      if (conn->fatal == NULL)
        conn->fatal = g_strdup ("no reason given");
      return;
    }
  if (!ow_json_has_int (frame, "id"))
    return;
  id = ow_json_get_int (frame, "id", 0);
  p = g_hash_table_lookup (conn->pending, &id);
  if (p == NULL)
    return;
  g_hash_table_steal (conn->pending, &id);
  if (p->is_probe)
    {
      JsonArray *checks = ow_json_get_array (frame, "probe");

      if (checks != NULL)
        g_task_return_pointer (p->task, json_array_ref (checks), (GDestroyNotify) json_array_unref);
      else
        g_task_return_new_error (p->task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                 "The tool runner answered the wall check without results.");
    }
  else
    {
      const char *text = ow_json_get_string (frame, "result");

      if (text == NULL)
        text = "{\"error\":\"the tool runner sent no result\"}";
      g_task_return_pointer (p->task, ow_tool_result_new (status_from_body (ow_json_get_int (frame, "status", 1)),
                                                          text),
                             (GDestroyNotify) ow_tool_result_free);
    }
  pending_free (p);
}

static void
on_body_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Conn *conn = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) frame = NULL;
  gsize got = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (source), result, &got, &error) || got < conn->body_len)
    {
      if (error == NULL || !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        conn_die (conn, error != NULL ? error->message : "its connection ended inside a message");
      g_clear_pointer (&conn->body, g_free);
      conn_unref (conn);
      return;
    }
  frame = ow_json_object_from_string ((const char *) conn->body, (gssize) conn->body_len, NULL);
  g_clear_pointer (&conn->body, g_free);
  if (frame == NULL)
    {
      conn_die (conn, "it sent a message that is not a JSON object");
      conn_unref (conn);
      return;
    }
  dispatch (conn, frame);
  if (!conn->dead)
    read_header (conn);
  conn_unref (conn);
}

static void
on_header_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Conn *conn = user_data;
  g_autoptr(GError) error = NULL;
  gsize got = 0;
  guint32 len;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (source), result, &got, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *why = g_strdup_printf ("its connection failed: %s", error->message);

          conn_die (conn, why);
        }
      conn_unref (conn);
      return;
    }
  if (got == 0)
    {
      conn_eof (conn);
      conn_unref (conn);
      return;
    }
  if (got < sizeof conn->header)
    {
      conn_die (conn, "its connection ended inside a message");
      conn_unref (conn);
      return;
    }
  len = ow_runner_frame_header_decode (conn->header);
  if (len > OW_RUNNER_MAX_FRAME)
    {
      conn_die (conn, "it sent a message larger than the protocol allows");
      conn_unref (conn);
      return;
    }
  conn->body_len = len;
  conn->body = g_malloc (len + 1);
  conn->body[len] = '\0';
  g_input_stream_read_all_async (conn->in, conn->body, len, G_PRIORITY_DEFAULT, conn->io_cancel,
                                 on_body_cb, conn);   /* the reference passes on */
}

static void
read_header (Conn *conn)
{
  g_input_stream_read_all_async (conn->in, conn->header, sizeof conn->header, G_PRIORITY_DEFAULT,
                                 conn->io_cancel, on_header_cb, conn_ref (conn));
}

/* ---- cancellation --------------------------------------------------------- */

/* Carried by a call's GCancellableSource: which call, on which connection. */
typedef struct {
  Conn  *conn;   /* a reference */
  gint64 id;     /* the call */
} CancelTarget;

static void
cancel_target_free (gpointer data)
{
  CancelTarget *t = data;

  conn_unref (t->conn);
  g_free (t);
}

static void
send_cancel (Conn *conn, Pending *p)
{
  g_autoptr(JsonObject) frame = json_object_new ();

  if (p->cancel_sent || conn->dead)
    return;
  p->cancel_sent = TRUE;
  json_object_set_string_member (frame, "op", "cancel");
  json_object_set_int_member (frame, "id", p->id);
  conn_send (conn, frame);
}

static gboolean
on_call_cancelled_cb (GCancellable *cancellable, gpointer user_data)
{
  CancelTarget *t = user_data;
  Pending *p = g_hash_table_lookup (t->conn->pending, &t->id);

  if (p != NULL)
    send_cancel (t->conn, p);
  return G_SOURCE_REMOVE;
}

/* ---- calls ---------------------------------------------------------------- */

static GTask *
start_pending (OwExecutorRunner *self, JsonObject *frame, gboolean is_probe, GCancellable *cancellable,
               GAsyncReadyCallback callback, gpointer user_data, gpointer source_tag)
{
  Conn *conn = self->conn;
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Pending *p;

  g_task_set_source_tag (task, source_tag);
  /* The runner answers even a cancelled call ("interrupted"); that answer,
   * not the cancellable, completes it. */
  g_task_set_check_cancellable (task, FALSE);
  if (conn->dead)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, "%s", conn->dead_reason);
      return task;
    }
  p = g_new0 (Pending, 1);
  p->id = ++conn->next_id;
  p->task = g_object_ref (task);
  p->is_probe = is_probe;
  json_object_set_int_member (frame, "id", p->id);
  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
    {
      /* Cancelled before it was sent: the runner makes its cancel fd
       * readable before the tool starts, as the direct executor would. */
      json_object_set_boolean_member (frame, "cancelled", TRUE);
      p->cancel_sent = TRUE;
    }
  if (!conn_send (conn, frame))
    {
      g_task_return_new_error (task, OW_TOOL_ERROR, OW_TOOL_ERROR_BAD_ARGUMENTS,
                               "The call is larger than the tool runner accepts (%u MiB); send smaller "
                               "arguments.", OW_RUNNER_MAX_FRAME / (1024u * 1024u));
      pending_free (p);
      return task;
    }
  g_hash_table_insert (conn->pending, &p->id, p);
  if (cancellable != NULL && !p->cancel_sent)
    {
      CancelTarget *t = g_new0 (CancelTarget, 1);

      t->conn = conn_ref (conn);
      t->id = p->id;
      p->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (p->cancel_source, G_SOURCE_FUNC (on_call_cancelled_cb), t, cancel_target_free);
      g_source_attach (p->cancel_source, conn->context);
    }
  return task;
}

static void
runner_execute_async (OwExecutor         *executor,
                      const char         *tool,
                      const char         *args_text,
                      GCancellable       *cancellable,
                      GAsyncReadyCallback callback,
                      gpointer            user_data)
{
  OwExecutorRunner *self = OW_EXECUTOR_RUNNER (executor);
  g_autoptr(JsonObject) frame = json_object_new ();
  g_autoptr(GTask) task = NULL;

  json_object_set_string_member (frame, "op", "call");
  json_object_set_string_member (frame, "tool", tool);
  json_object_set_string_member (frame, "args", args_text != NULL ? args_text : "");
  task = start_pending (self, frame, FALSE, cancellable, callback, user_data, runner_execute_async);
}

static OwToolResult *
runner_execute_finish (OwExecutor *executor, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, executor), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
runner_set_roots (OwExecutor *executor, GPtrArray *roots)
{
  OwExecutorRunner *self = OW_EXECUTOR_RUNNER (executor);
  g_autoptr(JsonObject) frame = json_object_new ();
  JsonArray *list = json_array_new ();

  for (guint i = 0; roots != NULL && i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "path", r->path);
      json_object_set_boolean_member (o, "writable", r->writable);
      json_array_add_object_element (list, o);
    }
  json_object_set_string_member (frame, "op", "roots");
  json_object_set_array_member (frame, "roots", list);
  if (!self->conn->dead)
    conn_send (self->conn, frame);
}

static gboolean
runner_handles (OwExecutor *executor, const char *tool)
{
  return ow_tb_is_known (tool);
}

static const char *
runner_get_enforcement (OwExecutor *executor)
{
  return OW_EXECUTOR_RUNNER (executor)->enforcement;
}

static void
executor_iface_init (OwExecutorInterface *iface)
{
  iface->set_roots = runner_set_roots;
  iface->handles = runner_handles;
  iface->execute_async = runner_execute_async;
  iface->execute_finish = runner_execute_finish;
  iface->get_enforcement = runner_get_enforcement;
}

/* ---- public extras -------------------------------------------------------- */

void
ow_executor_runner_set_enforcement (OwExecutorRunner *self, const char *enforcement)
{
  g_return_if_fail (OW_IS_EXECUTOR_RUNNER (self));
  g_free (self->enforcement);
  self->enforcement = g_strdup (enforcement != NULL ? enforcement : "unknown");
}

void
ow_executor_runner_send (OwExecutorRunner *self, JsonObject *frame)
{
  g_return_if_fail (OW_IS_EXECUTOR_RUNNER (self));
  if (!self->conn->dead)
    conn_send (self->conn, frame);
}

gboolean
ow_executor_runner_is_alive (OwExecutorRunner *self)
{
  g_return_val_if_fail (OW_IS_EXECUTOR_RUNNER (self), FALSE);
  return !self->conn->dead;
}

void
ow_executor_runner_wait_ready_async (OwExecutorRunner    *self,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Conn *conn = self->conn;

  g_task_set_source_tag (task, ow_executor_runner_wait_ready_async);
  if (conn->hello != NULL)
    g_task_return_pointer (task, ow_json_object_deep_copy (conn->hello), (GDestroyNotify) json_object_unref);
  else if (conn->dead)
    {
      if (conn->fatal != NULL)
        g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                 "The sandbox could not be built: %s.", conn->fatal);
      else
        g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, "%s", conn->dead_reason);
    }
  else if (conn->ready_task != NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING, "Someone is already waiting for the runner.");
  else
    conn->ready_task = g_steal_pointer (&task);
}

JsonObject *
ow_executor_runner_wait_ready_finish (OwExecutorRunner *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
ow_executor_runner_probe_async (OwExecutorRunner    *self,
                                JsonArray           *checks,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(JsonObject) frame = json_object_new ();
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonNode) copy = json_node_new (JSON_NODE_ARRAY);

  json_node_set_array (copy, checks);
  json_object_set_string_member (frame, "op", "probe");
  json_object_set_member (frame, "checks", ow_json_deep_copy (copy));
  task = start_pending (self, frame, TRUE, cancellable, callback, user_data, ow_executor_runner_probe_async);
}

JsonArray *
ow_executor_runner_probe_finish (OwExecutorRunner *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- the object ----------------------------------------------------------- */

/* Kills a runner that has not left a few seconds after "shutdown". */
typedef struct {
  GSubprocess *process;     /* a reference */
  guint        timeout_id;  /* the deadline, 0 once passed */
} Reaper;

static gboolean
on_reaper_timeout_cb (gpointer user_data)
{
  Reaper *r = user_data;

  r->timeout_id = 0;
  g_debug ("the tool runner did not exit after shutdown; killing it");
  g_subprocess_force_exit (r->process);
  return G_SOURCE_REMOVE;
}

static void
on_reaper_exited_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Reaper *r = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  g_clear_handle_id (&r->timeout_id, g_source_remove);
  g_object_unref (r->process);
  g_free (r);
}

static void
ow_executor_runner_dispose (GObject *object)
{
  OwExecutorRunner *self = OW_EXECUTOR_RUNNER (object);
  Conn *conn = g_steal_pointer (&self->conn);

  if (conn != NULL)
    {
      conn->owner = NULL;
      if (!conn->dead)
        {
          g_autoptr(JsonObject) frame = json_object_new ();

          json_object_set_string_member (frame, "op", "shutdown");
          conn_send (conn, frame);
          conn->dead = TRUE;
          conn->dead_reason = g_strdup ("The sandbox was closed.");
        }
      conn->closing = TRUE;
      write_next (conn);
      if (conn->process != NULL && g_subprocess_get_identifier (conn->process) != NULL)
        {
          Reaper *r = g_new0 (Reaper, 1);

          r->process = g_object_ref (conn->process);
          r->timeout_id = g_timeout_add_seconds (SHUTDOWN_GRACE_S, on_reaper_timeout_cb, r);
          g_subprocess_wait_async (r->process, NULL, on_reaper_exited_cb, r);
        }
      conn_unref (conn);
    }
  G_OBJECT_CLASS (ow_executor_runner_parent_class)->dispose (object);
}

static void
ow_executor_runner_finalize (GObject *object)
{
  OwExecutorRunner *self = OW_EXECUTOR_RUNNER (object);

  g_free (self->enforcement);
  G_OBJECT_CLASS (ow_executor_runner_parent_class)->finalize (object);
}

static void
ow_executor_runner_class_init (OwExecutorRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_executor_runner_dispose;
  object_class->finalize = ow_executor_runner_finalize;

  /**
   * OwExecutorRunner::stopped:
   * @reason: a sentence saying why
   *
   * The runner went away while the executor was in use: every pending
   * call has failed and later ones will.
   */
  signals[SIGNAL_STOPPED] = g_signal_new ("stopped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                          NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
ow_executor_runner_init (OwExecutorRunner *self)
{
}

static guint
id_hash (gconstpointer key)
{
  return g_int64_hash (key);
}

OwExecutor *
ow_executor_runner_new (GIOStream *stream, GSubprocess *process, const char *enforcement)
{
  OwExecutorRunner *self;
  Conn *conn;

  g_return_val_if_fail (G_IS_IO_STREAM (stream), NULL);
  g_return_val_if_fail (process == NULL || G_IS_SUBPROCESS (process), NULL);

  self = g_object_new (OW_TYPE_EXECUTOR_RUNNER, NULL);
  self->enforcement = g_strdup (enforcement != NULL ? enforcement : "unknown");
  conn = g_new0 (Conn, 1);
  g_atomic_ref_count_init (&conn->ref);
  conn->owner = self;
  conn->context = g_main_context_ref_thread_default ();
  conn->stream = g_object_ref (stream);
  conn->in = g_io_stream_get_input_stream (stream);
  conn->out = g_io_stream_get_output_stream (stream);
  conn->process = process != NULL ? g_object_ref (process) : NULL;
  conn->io_cancel = g_cancellable_new ();
  conn->pending = g_hash_table_new (id_hash, g_int64_equal);
  g_queue_init (&conn->writes);
  self->conn = conn;

  if (conn->process != NULL)
    g_subprocess_wait_async (conn->process, NULL, on_process_exited_cb, conn_ref (conn));
  read_header (conn);
  return OW_EXECUTOR (self);
}
