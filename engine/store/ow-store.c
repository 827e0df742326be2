/* ow-store.c: sessions, messages and event logs in openworker.db.
 *
 * The schema lives in resources/migrations/state-NNN.sql. Messages are
 * stored whole as JSON text, one row each, so appending never rewrites a
 * conversation; the session row keeps a count and a timestamp updated in
 * the same transaction.
 */
#define G_LOG_DOMAIN "ow-store"

#include "store/ow-store.h"

#include "ow-error.h"

struct _OwStore
{
  OwDb *db;   /* the open database (owned) */
};

void
ow_session_row_free (OwSessionRow *row)
{
  if (row == NULL)
    return;
  g_free (row->session_id);
  g_free (row->workspace);
  g_free (row->model);
  g_free (row->mode);
  g_free (row->coworker);
  g_free (row->title);
  g_free (row->origin);
  g_free (row->roots);
  g_free (row->grants);
  g_free (row->compaction);
  g_free (row->created_at);
  g_free (row->updated_at);
  g_free (row);
}

OwStore *
ow_store_open (const char *path, GError **error)
{
  OwDb *db = ow_db_open (path, "state", error);
  OwStore *store;

  if (db == NULL)
    return NULL;
  store = g_new0 (OwStore, 1);
  store->db = db;
  return store;
}

void
ow_store_free (OwStore *store)
{
  if (store == NULL)
    return;
  ow_db_close (store->db);
  g_free (store);
}

OwDb *
ow_store_get_db (OwStore *store)
{
  return store->db;
}

static void
bind_text (sqlite3_stmt *stmt, int i, const char *value)
{
  if (value == NULL)
    sqlite3_bind_null (stmt, i);
  else
    sqlite3_bind_text (stmt, i, value, -1, SQLITE_TRANSIENT);
}

gboolean
ow_store_session_insert (OwStore *store, const OwSessionRow *row, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "INSERT INTO sessions (session_id, workspace, model, mode, coworker, title, origin, roots, grants, pinned, archived)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)", error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, row->session_id);
  bind_text (stmt, 2, row->workspace);
  bind_text (stmt, 3, row->model);
  bind_text (stmt, 4, row->mode != NULL ? row->mode : "ask");
  bind_text (stmt, 5, row->coworker != NULL ? row->coworker : "cowork");
  bind_text (stmt, 6, row->title);
  bind_text (stmt, 7, row->origin);
  bind_text (stmt, 8, row->roots != NULL ? row->roots : "[]");
  bind_text (stmt, 9, row->grants != NULL ? row->grants : "{}");
  sqlite3_bind_int (stmt, 10, row->pinned);
  sqlite3_bind_int (stmt, 11, row->archived);
  if (!ow_db_step_done (store->db, stmt, error))
    return FALSE;
  if (row->workspace != NULL)
    return ow_store_touch_workspace (store, row->workspace, error);
  return TRUE;
}

gboolean
ow_store_session_update (OwStore    *store,
                         const char *session_id,
                         const char *model,
                         const char *mode,
                         const char *roots,
                         const char *grants,
                         GError    **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "UPDATE sessions SET model = COALESCE(?2, model), mode = COALESCE(?3, mode),"
    " roots = COALESCE(?4, roots), grants = COALESCE(?5, grants),"
    " updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE session_id = ?1", error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, session_id);
  bind_text (stmt, 2, model);
  bind_text (stmt, 3, mode);
  bind_text (stmt, 4, roots);
  bind_text (stmt, 5, grants);
  return ow_db_step_done (store->db, stmt, error);
}

gboolean
ow_store_session_set_compaction (OwStore *store, const char *session_id, const char *compaction, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "UPDATE sessions SET compaction = ?2 WHERE session_id = ?1", error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, session_id);
  bind_text (stmt, 2, compaction);
  return ow_db_step_done (store->db, stmt, error);
}

gboolean
ow_store_session_set_title (OwStore *store, const char *session_id, const char *title, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "UPDATE sessions SET title = ?2 WHERE session_id = ?1", error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, session_id);
  bind_text (stmt, 2, title);
  return ow_db_step_done (store->db, stmt, error);
}

static char *
column_dup (sqlite3_stmt *stmt, int i)
{
  const unsigned char *t = sqlite3_column_text (stmt, i);
  return t != NULL ? g_strdup ((const char *) t) : NULL;
}

OwSessionRow *
ow_store_session_get (OwStore *store, const char *session_id, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "SELECT session_id, workspace, model, mode, coworker, title, origin, roots, grants,"
    " pinned, archived, n_msgs, created_at, updated_at, compaction FROM sessions WHERE session_id = ?1", error);
  OwSessionRow *row;
  int rc;

  if (stmt == NULL)
    return NULL;
  bind_text (stmt, 1, session_id);
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      sqlite3_reset (stmt);
      if (rc == SQLITE_DONE)
        g_set_error (error, OW_STORE_ERROR, OW_STORE_ERROR_NOT_FOUND, "There is no session %s.", session_id);
      else
        ow_db_set_error (store->db, rc, "read a session", error);
      return NULL;
    }
  row = g_new0 (OwSessionRow, 1);
  row->session_id = column_dup (stmt, 0);
  row->workspace = column_dup (stmt, 1);
  row->model = column_dup (stmt, 2);
  row->mode = column_dup (stmt, 3);
  row->coworker = column_dup (stmt, 4);
  row->title = column_dup (stmt, 5);
  row->origin = column_dup (stmt, 6);
  row->roots = column_dup (stmt, 7);
  row->grants = column_dup (stmt, 8);
  row->pinned = sqlite3_column_int (stmt, 9);
  row->archived = sqlite3_column_int (stmt, 10);
  row->n_msgs = sqlite3_column_int64 (stmt, 11);
  row->created_at = column_dup (stmt, 12);
  row->updated_at = column_dup (stmt, 13);
  row->compaction = column_dup (stmt, 14);
  sqlite3_reset (stmt);
  return row;
}

gboolean
ow_store_message_append (OwStore    *store,
                         const char *session_id,
                         gint64      idx,
                         const char *body,
                         GError    **error)
{
  sqlite3_stmt *ins, *upd;

  if (!ow_db_begin (store->db, error))
    return FALSE;
  ins = ow_db_prepare (store->db, "INSERT INTO messages (session_id, idx, body) VALUES (?1, ?2, ?3)", error);
  if (ins == NULL)
    goto fail;
  bind_text (ins, 1, session_id);
  sqlite3_bind_int64 (ins, 2, idx);
  bind_text (ins, 3, body);
  if (!ow_db_step_done (store->db, ins, error))
    goto fail;
  upd = ow_db_prepare (store->db,
    "UPDATE sessions SET n_msgs = ?2 + 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE session_id = ?1",
    error);
  if (upd == NULL)
    goto fail;
  bind_text (upd, 1, session_id);
  sqlite3_bind_int64 (upd, 2, idx);
  if (!ow_db_step_done (store->db, upd, error))
    goto fail;
  return ow_db_commit (store->db, error);

fail:
  ow_db_rollback (store->db);
  return FALSE;
}

gboolean
ow_store_message_replace (OwStore *store, const char *session_id, gint64 idx, const char *body, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "UPDATE messages SET body = ?3 WHERE session_id = ?1 AND idx = ?2", error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, session_id);
  sqlite3_bind_int64 (stmt, 2, idx);
  bind_text (stmt, 3, body);
  return ow_db_step_done (store->db, stmt, error);
}

GPtrArray *
ow_store_message_load (OwStore *store, const char *session_id, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "SELECT body FROM messages WHERE session_id = ?1 ORDER BY idx", error);
  g_autoptr(GPtrArray) bodies = g_ptr_array_new_with_free_func (g_free);
  int rc;

  if (stmt == NULL)
    return NULL;
  bind_text (stmt, 1, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (bodies, column_dup (stmt, 0));
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (store->db, rc, "read messages", error);
      return NULL;
    }
  return g_steal_pointer (&bodies);
}

gboolean
ow_store_event_append (OwStore    *store,
                       const char *session_id,
                       gint64      seq,
                       gint64      ts_ms,
                       const char *type,
                       const char *data,
                       GError    **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "INSERT INTO events (session_id, seq, ts, type, data) VALUES (?1, ?2, ?3, ?4, ?5)", error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, session_id);
  sqlite3_bind_int64 (stmt, 2, seq);
  sqlite3_bind_int64 (stmt, 3, ts_ms);
  bind_text (stmt, 4, type);
  bind_text (stmt, 5, data);
  return ow_db_step_done (store->db, stmt, error);
}

gint64
ow_store_event_last_seq (OwStore *store, const char *session_id)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?1", NULL);
  gint64 seq = 0;

  if (stmt == NULL)
    return 0;
  bind_text (stmt, 1, session_id);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    seq = sqlite3_column_int64 (stmt, 0);
  sqlite3_reset (stmt);
  return seq;
}

gboolean
ow_store_event_foreach_since (OwStore         *store,
                              const char      *session_id,
                              gint64           since,
                              OwStoreEventFunc func,
                              gpointer         user_data,
                              GError         **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "SELECT seq, ts, type, data FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq", error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, session_id);
  sqlite3_bind_int64 (stmt, 2, since);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    func (sqlite3_column_int64 (stmt, 0), sqlite3_column_int64 (stmt, 1),
          (const char *) sqlite3_column_text (stmt, 2), (const char *) sqlite3_column_text (stmt, 3),
          user_data);
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (store->db, rc, "read events", error);
      return FALSE;
    }
  return TRUE;
}

gboolean
ow_store_touch_workspace (OwStore *store, const char *path, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "INSERT INTO workspaces (path) VALUES (?1) ON CONFLICT (path) DO UPDATE"
    " SET last_used = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, path);
  return ow_db_step_done (store->db, stmt, error);
}

gboolean
ow_store_session_delete (OwStore *store, const char *session_id, GError **error)
{
  static const char *const sql[] = {
    "DELETE FROM messages WHERE session_id = ?1",
    "DELETE FROM events WHERE session_id = ?1",
    "DELETE FROM sessions WHERE session_id = ?1",
  };

  if (!ow_db_begin (store->db, error))
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (sql); i++)
    {
      sqlite3_stmt *stmt = ow_db_prepare (store->db, sql[i], error);
      if (stmt == NULL)
        goto fail;
      bind_text (stmt, 1, session_id);
      if (!ow_db_step_done (store->db, stmt, error))
        goto fail;
    }
  return ow_db_commit (store->db, error);

fail:
  ow_db_rollback (store->db);
  return FALSE;
}

/* ---- Queries for the loopback API (engine/server) ----------------------- */

void
ow_session_list_row_free (OwSessionListRow *row)
{
  if (row == NULL)
    return;
  ow_session_row_free (row->row);
  g_free (row->auto_title);
  g_free (row->origin_label);
  g_free (row->first_text);
  g_free (row);
}

GPtrArray *
ow_store_session_list (OwStore *store, const char *workspace, const char *session_id, GError **error)
{
  /* One statement for the whole list: the pending-ask count uses the
   * inbox's (session_id, call_id) index ("+" keeps the planner off the
   * state index, which would scan every pending item per session) and the
   * first user message is looked up only for sessions with no title. */
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "SELECT s.session_id, s.workspace, s.model, s.mode, s.coworker, s.title, s.origin, NULL, NULL,"
    " s.pinned, s.archived, s.n_msgs, s.created_at, s.updated_at, s.auto_title, s.renamed, s.origin_label,"
    " (SELECT COUNT(*) FROM inbox_items i WHERE i.session_id = s.session_id AND +i.state = 'pending'),"
    " CASE WHEN s.title IS NULL AND s.auto_title IS NULL THEN"
    "  (SELECT json_extract (m.body, '$.content') FROM messages m WHERE m.session_id = s.session_id"
    "   AND json_extract (m.body, '$.role') = 'user' ORDER BY m.idx LIMIT 1) END"
    " FROM sessions s"
    " WHERE (?1 IS NULL OR s.workspace = ?1) AND (?2 IS NULL OR s.session_id = ?2)"
    " AND substr (s.session_id, 1, 2) <> '__'"
    " ORDER BY s.pinned DESC, s.updated_at DESC", error);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_session_list_row_free);
  int rc;

  if (stmt == NULL)
    return NULL;
  bind_text (stmt, 1, workspace);
  bind_text (stmt, 2, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      OwSessionListRow *l = g_new0 (OwSessionListRow, 1);
      OwSessionRow *row = g_new0 (OwSessionRow, 1);

      row->session_id = column_dup (stmt, 0);
      row->workspace = column_dup (stmt, 1);
      row->model = column_dup (stmt, 2);
      row->mode = column_dup (stmt, 3);
      row->coworker = column_dup (stmt, 4);
      row->title = column_dup (stmt, 5);
      row->origin = column_dup (stmt, 6);
      row->roots = column_dup (stmt, 7);
      row->grants = column_dup (stmt, 8);
      row->pinned = sqlite3_column_int (stmt, 9);
      row->archived = sqlite3_column_int (stmt, 10);
      row->n_msgs = sqlite3_column_int64 (stmt, 11);
      row->created_at = column_dup (stmt, 12);
      row->updated_at = column_dup (stmt, 13);
      l->row = row;
      l->auto_title = column_dup (stmt, 14);
      l->renamed = sqlite3_column_int (stmt, 15);
      l->origin_label = column_dup (stmt, 16);
      l->attention = sqlite3_column_int64 (stmt, 17);
      l->first_text = column_dup (stmt, 18);
      g_ptr_array_add (rows, l);
    }
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (store->db, rc, "list sessions", error);
      return NULL;
    }
  return g_steal_pointer (&rows);
}

static gboolean
changed_one (OwStore *store, const char *session_id, GError **error)
{
  if (sqlite3_changes (ow_db_handle (store->db)) == 0)
    {
      g_set_error (error, OW_STORE_ERROR, OW_STORE_ERROR_NOT_FOUND, "There is no session %s.", session_id);
      return FALSE;
    }
  return TRUE;
}

gboolean
ow_store_session_set_flags (OwStore *store, const char *session_id, int pinned, int archived, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "UPDATE sessions SET pinned = CASE WHEN ?2 < 0 THEN pinned ELSE ?2 END,"
    " archived = CASE WHEN ?3 < 0 THEN archived ELSE ?3 END WHERE session_id = ?1", error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, session_id);
  sqlite3_bind_int (stmt, 2, pinned < 0 ? -1 : pinned != 0);
  sqlite3_bind_int (stmt, 3, archived < 0 ? -1 : archived != 0);
  if (!ow_db_step_done (store->db, stmt, error))
    return FALSE;
  return changed_one (store, session_id, error);
}

/* One UPDATE of a session's title columns (@sql binds ?1 id, ?2 title). */
static gboolean
update_title (OwStore *store, const char *sql, const char *session_id, const char *title, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db, sql, error);

  if (stmt == NULL)
    return FALSE;
  bind_text (stmt, 1, session_id);
  bind_text (stmt, 2, title);
  if (!ow_db_step_done (store->db, stmt, error))
    return FALSE;
  return changed_one (store, session_id, error);
}

gboolean
ow_store_session_set_auto_title (OwStore *store, const char *session_id, const char *title, GError **error)
{
  return update_title (store, "UPDATE sessions SET auto_title = ?2 WHERE session_id = ?1", session_id, title, error);
}

gboolean
ow_store_session_rename (OwStore *store, const char *session_id, const char *title, GError **error)
{
  return update_title (store, "UPDATE sessions SET title = ?2, renamed = 1 WHERE session_id = ?1", session_id, title,
                       error);
}

GPtrArray *
ow_store_workspace_recent (OwStore *store, guint limit, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "SELECT path FROM workspaces ORDER BY last_used DESC LIMIT ?1", error);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  int rc;

  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int (stmt, 1, (int) limit);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (paths, column_dup (stmt, 0));
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (store->db, rc, "list workspaces", error);
      return NULL;
    }
  return g_steal_pointer (&paths);
}

GPtrArray *
ow_store_session_list_unfinished (OwStore *store, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (store->db,
    "SELECT s.session_id FROM sessions s WHERE (SELECT e.type FROM events e WHERE e.session_id = s.session_id"
    " ORDER BY e.seq DESC LIMIT 1) <> 'turn_done'", error);
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  int rc;

  if (stmt == NULL)
    return NULL;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (ids, column_dup (stmt, 0));
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (store->db, rc, "find unfinished turns", error);
      return NULL;
    }
  return g_steal_pointer (&ids);
}
