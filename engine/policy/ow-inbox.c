/* ow-inbox.c: the durable inbox and the attendant that uses it (see ow-inbox.h). */
#define G_LOG_DOMAIN "ow-inbox"

#include "policy/ow-inbox.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "store/ow-db.h"

#define POLL_MS 250

struct _OwInbox
{
  GObject  parent_instance;
  OwStore *store;    /* borrowed; NULL once closed (ow_inbox_close) */
};

enum {
  SIGNAL_ITEM_ADDED,
  SIGNAL_ITEM_RESOLVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwInbox, ow_inbox, G_TYPE_OBJECT)

void
ow_inbox_item_free (OwInboxItem *item)
{
  if (item == NULL)
    return;
  g_free (item->id);
  g_free (item->session_id);
  g_free (item->call_id);
  g_free (item->kind);
  g_free (item->title);
  g_free (item->body);
  g_clear_pointer (&item->data, json_object_unref);
  g_free (item->state);
  g_free (item->resolution);
  g_free (item->resolved_by);
  g_free (item->created_at);
  g_free (item->resolved_at);
  g_free (item->execution);
  g_free (item);
}

static void
ow_inbox_class_init (OwInboxClass *klass)
{
  /**
   * OwInbox::item-added:
   * @id: the new item's id
   */
  signals[SIGNAL_ITEM_ADDED] =
    g_signal_new ("item-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * OwInbox::item-resolved:
   * @id: the item answered (in this process)
   */
  signals[SIGNAL_ITEM_RESOLVED] =
    g_signal_new ("item-resolved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
ow_inbox_init (OwInbox *self)
{
}

/* The database, or NULL with an error once the inbox is closed. */
static OwDb *
inbox_db (OwInbox *self, GError **error)
{
  if (self->store == NULL)
    {
      g_set_error_literal (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED, "The inbox is closed.");
      return NULL;
    }
  return ow_store_get_db (self->store);
}

void
ow_inbox_close (OwInbox *self)
{
  g_return_if_fail (OW_IS_INBOX (self));
  self->store = NULL;
}

OwInbox *
ow_inbox_new (OwStore *store)
{
  OwInbox *self = g_object_new (OW_TYPE_INBOX, NULL);

  self->store = store;
  return self;
}

static void
bind_text (sqlite3_stmt *stmt, int i, const char *value)
{
  if (value == NULL)
    sqlite3_bind_null (stmt, i);
  else
    sqlite3_bind_text (stmt, i, value, -1, SQLITE_TRANSIENT);
}

static char *
dup_col (sqlite3_stmt *stmt, int i)
{
  const unsigned char *t = sqlite3_column_text (stmt, i);
  return t != NULL ? g_strdup ((const char *) t) : NULL;
}

#define ITEM_COLUMNS "id, session_id, call_id, kind, title, body, data, state, resolution, resolved_by, created_at, " \
                     "resolved_at, execution"

static OwInboxItem *
item_from_row (sqlite3_stmt *stmt)
{
  OwInboxItem *item = g_new0 (OwInboxItem, 1);
  g_autofree char *data = NULL;

  item->id = dup_col (stmt, 0);
  item->session_id = dup_col (stmt, 1);
  item->call_id = dup_col (stmt, 2);
  item->kind = dup_col (stmt, 3);
  item->title = dup_col (stmt, 4);
  item->body = dup_col (stmt, 5);
  data = dup_col (stmt, 6);
  item->data = data != NULL ? ow_json_object_from_string (data, -1, NULL) : NULL;
  if (item->data == NULL)
    item->data = json_object_new ();
  item->state = dup_col (stmt, 7);
  item->resolution = dup_col (stmt, 8);
  item->resolved_by = dup_col (stmt, 9);
  item->created_at = dup_col (stmt, 10);
  item->resolved_at = dup_col (stmt, 11);
  item->execution = dup_col (stmt, 12);
  return item;
}

static OwInboxItem *
select_one (OwInbox *self, const char *sql, const char *a, const char *b, GError **error)
{
  OwDb *db = inbox_db (self, error);
  sqlite3_stmt *stmt = db != NULL ? ow_db_prepare (db, sql, error) : NULL;
  OwInboxItem *item = NULL;
  int rc;

  if (stmt == NULL)
    return NULL;
  bind_text (stmt, 1, a);
  if (b != NULL)
    bind_text (stmt, 2, b);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    item = item_from_row (stmt);
  sqlite3_reset (stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    ow_db_set_error (db, rc, "read the inbox", error);
  return item;
}

OwInboxItem *
ow_inbox_get (OwInbox *self, const char *id, GError **error)
{
  g_autoptr(GError) local = NULL;
  OwInboxItem *item = select_one (self, "SELECT " ITEM_COLUMNS " FROM inbox_items WHERE id = ?1", id, NULL, &local);

  if (item == NULL && local == NULL)
    g_set_error (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED, "There is no inbox item %s.", id);
  else if (local != NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  return item;
}

OwInboxItem *
ow_inbox_find (OwInbox *self, const char *session_id, const char *call_id, GError **error)
{
  return select_one (self, "SELECT " ITEM_COLUMNS " FROM inbox_items WHERE session_id = ?1 AND call_id = ?2",
                     session_id, call_id, error);
}

GStrv
ow_inbox_dup_unsettled_sessions (OwInbox *self, GError **error)
{
  OwDb *db = inbox_db (self, error);
  sqlite3_stmt *stmt = db == NULL ? NULL : ow_db_prepare (db,
    "SELECT DISTINCT session_id FROM inbox_items WHERE execution IS NULL ORDER BY session_id", error);
  g_autoptr(GStrvBuilder) out = g_strv_builder_new ();
  int rc;

  if (stmt == NULL)
    return NULL;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_strv_builder_add (out, (const char *) sqlite3_column_text (stmt, 0));
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (db, rc, "read the inbox", error);
      return NULL;
    }
  return g_strv_builder_end (out);
}

OwInboxItem *
ow_inbox_add (OwInbox *self, const char *session_id, const char *call_id, const char *kind, const char *title,
              const char *body, JsonObject *data, GError **error)
{
  OwDb *db = inbox_db (self, error);
  g_autoptr(GError) local = NULL;
  OwInboxItem *existing;
  g_autofree char *uuid = g_uuid_string_random ();
  g_autofree char *id = NULL;
  g_autofree char *data_text = data != NULL ? ow_json_object_to_string (data) : g_strdup ("{}");
  sqlite3_stmt *stmt;

  if (db == NULL)
    return NULL;
  existing = ow_inbox_find (self, session_id, call_id, &local);
  if (existing != NULL)
    return existing;
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  id = g_strdelimit (g_strdup (uuid), "-", 'x');
  {
    /* Short enough to type: the first 12 hex characters of a UUID. */
    GString *s = g_string_new (NULL);
    for (const char *p = uuid; *p != '\0' && s->len < 12; p++)
      if (*p != '-')
        g_string_append_c (s, *p);
    g_free (id);
    id = g_string_free (s, FALSE);
  }
  stmt = ow_db_prepare (db,
    "INSERT INTO inbox_items (id, session_id, call_id, kind, title, body, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    error);
  if (stmt == NULL)
    return NULL;
  bind_text (stmt, 1, id);
  bind_text (stmt, 2, session_id);
  bind_text (stmt, 3, call_id);
  bind_text (stmt, 4, kind);
  bind_text (stmt, 5, title);
  bind_text (stmt, 6, body);
  bind_text (stmt, 7, data_text);
  if (!ow_db_step_done (db, stmt, error))
    return NULL;
  g_signal_emit (self, signals[SIGNAL_ITEM_ADDED], 0, id);
  return ow_inbox_get (self, id, error);
}

/* Runs an UPDATE of three text parameters: the rows it changed, or -1
 * with @error. */
static int
update (OwInbox *self, const char *sql, const char *p1, const char *p2, const char *p3, GError **error)
{
  OwDb *db = inbox_db (self, error);
  sqlite3_stmt *stmt = db == NULL ? NULL : ow_db_prepare (db, sql, error);

  if (stmt == NULL)
    return -1;
  bind_text (stmt, 1, p1);
  bind_text (stmt, 2, p2);
  bind_text (stmt, 3, p3);
  if (!ow_db_step_done (db, stmt, error))
    return -1;
  return sqlite3_changes (ow_db_handle (db));
}

gboolean
ow_inbox_resolve (OwInbox *self, const char *id, const char *resolution, const char *resolved_by, GError **error)
{
  int changed = update (self, "UPDATE inbox_items SET state = 'resolved', resolution = ?2, resolved_by = ?3,"
                        " resolved_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1 AND state = 'pending'",
                        id, resolution, resolved_by, error);

  if (changed < 0)
    return FALSE;
  if (changed == 0)
    {
      g_autoptr(OwInboxItem) item = ow_inbox_get (self, id, NULL);
      if (item == NULL)
        g_set_error (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED, "There is no inbox item %s.", id);
      else
        g_set_error (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED,
                     "Inbox item %s was already answered (\"%s\" by %s); the first answer stands.", id,
                     item->resolution != NULL ? item->resolution : "", item->resolved_by != NULL ? item->resolved_by : "someone");
      return FALSE;
    }
  g_signal_emit (self, signals[SIGNAL_ITEM_RESOLVED], 0, id);
  return TRUE;
}

/* Answers a pending item that nobody will act on any more, as @why. */
static gboolean
close_unanswered (OwInbox *self, OwInboxItem *item, const char *why, const char *by)
{
  g_autoptr(JsonObject) r = json_object_new ();
  g_autofree char *text = NULL;

  if (g_str_equal (item->kind, "approval"))
    {
      json_object_set_string_member (r, "decision", "deny");
      json_object_set_string_member (r, "reason", why);
    }
  else
    json_object_set_string_member (r, "error", why);
  text = ow_json_object_to_string (r);
  return ow_inbox_resolve (self, item->id, text, by, NULL);
}

void
ow_inbox_withdraw (OwInbox *self, const char *session_id, const char *why)
{
  g_autoptr(GPtrArray) items = ow_inbox_list (self, TRUE, NULL);

  for (guint i = 0; items != NULL && i < items->len; i++)
    {
      OwInboxItem *item = g_ptr_array_index (items, i);

      /* Withdrawn, it will never be acted on: settled as well. */
      if (g_strcmp0 (item->session_id, session_id) == 0 && close_unanswered (self, item, why, why))
        ow_inbox_end_run (self, item->session_id, item->call_id);
    }
}

/* Moves (session, call)'s execution mark to @to from NULL (@from_started
 * FALSE) or from NULL or "started" (TRUE); TRUE when it did, else @exists
 * says whether there is such an item at all. */
static gboolean
set_execution (OwInbox *self, const char *session_id, const char *call_id, gboolean from_started, const char *to,
               gboolean *exists, GError **error)
{
  int changed = update (self, !from_started
    ? "UPDATE inbox_items SET execution = ?3 WHERE session_id = ?1 AND call_id = ?2 AND execution IS NULL"
    : "UPDATE inbox_items SET execution = ?3 WHERE session_id = ?1 AND call_id = ?2"
      " AND (execution IS NULL OR execution = 'started')", session_id, call_id, to, error);
  g_autoptr(OwInboxItem) item = NULL;
  g_autoptr(GError) local = NULL;

  *exists = changed > 0;
  if (changed != 0)
    return changed > 0;
  item = ow_inbox_find (self, session_id, call_id, &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  *exists = item != NULL;
  return FALSE;
}

gboolean
ow_inbox_begin_run (OwInbox *self, const char *session_id, const char *call_id, GError **error)
{
  gboolean exists;
  g_autoptr(GError) local = NULL;

  if (set_execution (self, session_id, call_id, FALSE, "started", &exists, &local))
    return TRUE;
  if (local != NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local),
                                  "Could not record that the approved call starts, so it was not run: ");
      return FALSE;
    }
  if (exists)
    g_set_error_literal (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED,
                         "This approved call was started before (OpenWorker stopped while it ran, or it ran "
                         "already), so it was not run again; it may or may not have finished. Check before "
                         "repeating it.");
  /* Not an inbox item at all: nothing records it, nothing to guard. */
  return !exists;
}

void
ow_inbox_end_run (OwInbox *self, const char *session_id, const char *call_id)
{
  gboolean exists;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwInboxItem) item = NULL;

  if (!set_execution (self, session_id, call_id, TRUE, "finished", &exists, &error) && error != NULL)
    g_message ("Could not record that call %s finished: %s", call_id, error->message);
  if (!exists)
    return;
  /* A resumed turn may settle a call without its answer (the session was
   * made read-only meanwhile, a rule allows it now): the card must not
   * wait on every surface for an answer nobody reads. */
  item = ow_inbox_find (self, session_id, call_id, NULL);
  if (item != NULL && g_str_equal (item->state, "pending"))
    close_unanswered (self, item, "decided without this answer when the turn went on", "openworker");
}

GPtrArray *
ow_inbox_list (OwInbox *self, gboolean pending_only, GError **error)
{
  OwDb *db = inbox_db (self, error);
  sqlite3_stmt *stmt = db == NULL ? NULL : ow_db_prepare (db, pending_only
    ? "SELECT " ITEM_COLUMNS " FROM inbox_items WHERE state = 'pending' ORDER BY created_at DESC, rowid DESC"
    : "SELECT " ITEM_COLUMNS " FROM inbox_items ORDER BY created_at DESC, rowid DESC", error);
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_inbox_item_free);
  int rc;

  if (stmt == NULL)
    return NULL;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (out, item_from_row (stmt));
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (db, rc, "read the inbox", error);
      return NULL;
    }
  return g_steal_pointer (&out);
}

/* ---- Waiting ------------------------------------------------------------ */

typedef struct {
  OwInbox *inbox;      /* owned */
  char    *id;
  guint    poll_id;
  gulong   resolved_id;
  gulong   cancel_id;
  gboolean finished;   /* the task returned and the watchers are gone */
} Wait;

static void
wait_free (Wait *w)
{
  g_clear_handle_id (&w->poll_id, g_source_remove);
  g_clear_signal_handler (&w->resolved_id, w->inbox);
  g_clear_object (&w->inbox);
  g_free (w->id);
  g_free (w);
}

/* Returns TRUE once the task is done. */
static gboolean
check (GTask *task)
{
  Wait *w = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwInboxItem) item = NULL;

  if (w->finished)
    return TRUE;
  if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Stopped while waiting for an answer.");
      return TRUE;
    }
  item = ow_inbox_get (w->inbox, w->id, &error);
  if (item == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return TRUE;
    }
  if (g_str_equal (item->state, "resolved"))
    {
      g_task_return_pointer (task, g_strdup (item->resolution != NULL ? item->resolution : ""), g_free);
      return TRUE;
    }
  return FALSE;
}

static void
finish_wait (GTask *task)
{
  Wait *w = g_task_get_task_data (task);

  if (w->finished)
    return;
  w->finished = TRUE;
  g_clear_handle_id (&w->poll_id, g_source_remove);
  g_clear_signal_handler (&w->resolved_id, w->inbox);
  if (w->cancel_id != 0)
    {
      g_cancellable_disconnect (g_task_get_cancellable (task), w->cancel_id);
      w->cancel_id = 0;
    }
  g_object_unref (task);
}

static gboolean
on_poll_cb (gpointer user_data)
{
  GTask *task = user_data;

  if (check (task))
    {
      Wait *w = g_task_get_task_data (task);
      w->poll_id = 0;
      finish_wait (task);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
on_resolved_cb (OwInbox *inbox, const char *id, gpointer user_data)
{
  GTask *task = user_data;
  Wait *w = g_task_get_task_data (task);

  if (g_str_equal (id, w->id) && check (task))
    finish_wait (task);
}

static gboolean
on_cancelled_idle_cb (gpointer user_data)
{
  GTask *task = user_data;

  if (check (task))
    finish_wait (task);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

static void
on_cancelled_cb (GCancellable *cancellable, gpointer user_data)
{
  /* May run on any thread: finish on the main context. */
  g_idle_add (on_cancelled_idle_cb, g_object_ref (user_data));
}

void
ow_inbox_wait_async (OwInbox *self, const char *id, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Wait *w = g_new0 (Wait, 1);

  g_task_set_source_tag (task, ow_inbox_wait_async);
  g_task_set_check_cancellable (task, FALSE);
  w->inbox = g_object_ref (self);
  w->id = g_strdup (id);
  g_task_set_task_data (task, w, (GDestroyNotify) wait_free);
  if (check (task))
    {
      w->finished = TRUE;
      g_object_unref (task);
      return;
    }
  w->resolved_id = g_signal_connect (self, "item-resolved", G_CALLBACK (on_resolved_cb), task);
  /* Another process (the CLI, a second app) answers through the database. */
  w->poll_id = g_timeout_add (POLL_MS, on_poll_cb, task);
  if (cancellable != NULL)
    w->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled_cb), task, NULL);
}

char *
ow_inbox_wait_finish (OwInbox *self, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- The inbox attendant ------------------------------------------------ */

#define OW_TYPE_INBOX_ATTENDANT (ow_inbox_attendant_get_type ())
G_DECLARE_FINAL_TYPE (OwInboxAttendant, ow_inbox_attendant, OW, INBOX_ATTENDANT, GObject)

struct _OwInboxAttendant
{
  GObject  parent_instance;
  OwInbox *inbox;   /* owned */
};

static void attendant_iface_init (OwAttendantInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwInboxAttendant, ow_inbox_attendant, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_ATTENDANT, attendant_iface_init))

typedef enum { ASK_APPROVAL, ASK_QUESTION, ASK_DIRECTORY } AskKind;

typedef struct {
  AskKind kind;
  char   *item_id;
} Parked;

static void
parked_free (Parked *p)
{
  g_free (p->item_id);
  g_free (p);
}

static void
on_answer_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Parked *parked = g_task_get_task_data (task);
  AskKind kind = parked->kind;
  g_autoptr(GError) error = NULL;
  g_autofree char *answer = ow_inbox_wait_finish (OW_INBOX (source), result, &error);

  if (answer == NULL)
    {
      /* A stop leaves the item pending: the person may still answer it,
       * and the turn resumes with that answer (ow_inbox_withdraw is for a
       * person's stop). */
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (kind == ASK_APPROVAL)
    {
      OwApprovalReply *reply = g_new0 (OwApprovalReply, 1);
      g_autoptr(JsonObject) obj = ow_json_object_from_string (answer, -1, NULL);
      const char *decision = obj != NULL ? ow_json_get_string (obj, "decision") : answer;
      if (decision == NULL)
        decision = "deny";
      if (g_str_equal (decision, "once") || g_str_equal (decision, "allow"))
        reply->answer = OW_APPROVAL_ONCE;
      else if (g_str_equal (decision, "session") || g_str_equal (decision, "always_tool")
               || g_str_equal (decision, "always_command"))
        reply->answer = OW_APPROVAL_SESSION;
      else if (g_str_equal (decision, "always") || g_str_equal (decision, "always_task"))
        reply->answer = OW_APPROVAL_ALWAYS;
      else if (g_str_equal (decision, "readonly_session"))
        reply->answer = OW_APPROVAL_READONLY_SESSION;
      else
        reply->answer = OW_APPROVAL_DENY;
      if (obj != NULL && ow_json_get_string (obj, "reason") != NULL)
        reply->note = g_strdup (ow_json_get_string (obj, "reason"));
      g_task_return_pointer (task, reply, (GDestroyNotify) ow_approval_reply_free);
      return;
    }
  if (kind == ASK_QUESTION)
    {
      JsonObject *r = ow_json_object_from_string (answer, -1, NULL);
      if (r == NULL || !json_object_has_member (r, "answer"))
        {
          g_clear_pointer (&r, json_object_unref);
          r = json_object_new ();
          json_object_set_string_member (r, "answer", answer);
        }
      g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
      return;
    }
  {
    JsonObject *r = ow_json_object_from_string (answer, -1, NULL);
    if (r == NULL)
      {
        r = json_object_new ();
        json_object_set_boolean_member (r, "granted", FALSE);
        json_object_set_string_member (r, "reason", "the answer was not understood");
      }
    g_task_return_pointer (task, r, (GDestroyNotify) json_object_unref);
  }
}

static void
park (OwInboxAttendant *self, AskKind kind, const char *session_id, const char *call_id, const char *title,
      const char *body, JsonObject *data, GCancellable *cancellable, GAsyncReadyCallback callback,
      gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwInboxItem) item = NULL;
  static const char *const kinds[] = { "approval", "question", "directory" };

  item = ow_inbox_add (self->inbox, session_id, call_id, kinds[kind], title, body, data, &error);
  if (item == NULL)
    {
      g_task_set_task_data (task, g_new0 (Parked, 1), (GDestroyNotify) parked_free);
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  {
    Parked *parked = g_new0 (Parked, 1);
    parked->kind = kind;
    parked->item_id = g_strdup (item->id);
    g_task_set_task_data (task, parked, (GDestroyNotify) parked_free);
  }
  ow_inbox_wait_async (self->inbox, item->id, cancellable, on_answer_cb, task);
}

static void
approval_async (OwAttendant *attendant, const OwApprovalRequest *req, GCancellable *cancellable,
                GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(JsonObject) data = json_object_new ();
  g_autofree char *title = req->site != NULL ? g_strdup_printf ("Allow %s to reach %s?", req->tool, req->site)
                                               : g_strdup_printf ("Run %s?", req->tool);

  json_object_set_string_member (data, "tool", req->tool);
  json_object_set_object_member (data, "arguments", json_object_ref (req->arguments));
  json_object_set_string_member (data, "risk", req->risk);
  json_object_set_boolean_member (data, "safety_check", req->safety_check);
  json_object_set_boolean_member (data, "readonly_ok", req->readonly_ok);
  if (req->suggested_rule != NULL)
    json_object_set_string_member (data, "suggested_rule", req->suggested_rule);
  if (req->reviewer_reasoning != NULL)
    json_object_set_string_member (data, "reviewer_reasoning", req->reviewer_reasoning);
  if (req->site != NULL)
    json_object_set_string_member (data, "site", req->site);
  park (OW_INBOX_ATTENDANT (attendant), ASK_APPROVAL, req->session_id, req->call_id, title, req->reason, data,
        cancellable, callback, user_data);
}

static OwApprovalReply *
approval_finish (OwAttendant *attendant, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
ask_async (OwAttendant *attendant, const char *session_id, const char *call_id, JsonObject *args,
           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  park (OW_INBOX_ATTENDANT (attendant), ASK_QUESTION, session_id, call_id,
        ow_json_get_string (args, "question") != NULL ? ow_json_get_string (args, "question") : "A question",
        NULL, args, cancellable, callback, user_data);
}

static JsonObject *
finish_object (OwAttendant *attendant, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
directory_async (OwAttendant *attendant, const char *session_id, const char *call_id, JsonObject *args,
                 GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  park (OW_INBOX_ATTENDANT (attendant), ASK_DIRECTORY, session_id, call_id,
        "Grant access to a folder?", ow_json_get_string (args, "reason"), args, cancellable, callback, user_data);
}

static gboolean
begin_run (OwAttendant *attendant, const char *session_id, const char *call_id, GError **error)
{
  return ow_inbox_begin_run (OW_INBOX_ATTENDANT (attendant)->inbox, session_id, call_id, error);
}

static void
end_run (OwAttendant *attendant, const char *session_id, const char *call_id)
{
  ow_inbox_end_run (OW_INBOX_ATTENDANT (attendant)->inbox, session_id, call_id);
}

static void
attendant_iface_init (OwAttendantInterface *iface)
{
  iface->request_approval_async = approval_async;
  iface->request_approval_finish = approval_finish;
  iface->ask_async = ask_async;
  iface->ask_finish = finish_object;
  iface->request_directory_async = directory_async;
  iface->request_directory_finish = finish_object;
  iface->begin_run = begin_run;
  iface->end_run = end_run;
}

static void
ow_inbox_attendant_finalize (GObject *object)
{
  g_clear_object (&OW_INBOX_ATTENDANT (object)->inbox);
  G_OBJECT_CLASS (ow_inbox_attendant_parent_class)->finalize (object);
}

static void
ow_inbox_attendant_class_init (OwInboxAttendantClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_inbox_attendant_finalize;
}

static void
ow_inbox_attendant_init (OwInboxAttendant *self)
{
}

OwAttendant *
ow_inbox_attendant_new (OwInbox *inbox)
{
  OwInboxAttendant *self = g_object_new (OW_TYPE_INBOX_ATTENDANT, NULL);

  self->inbox = g_object_ref (inbox);
  return OW_ATTENDANT (self);
}
