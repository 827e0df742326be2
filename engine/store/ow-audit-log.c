/* ow-audit-log.c: audit rows in audit.db (see ow-audit-log.h).
 *
 * Rows are append-only (triggers refuse UPDATE and DELETE) and chained:
 * each row stores the hash of the row before it and its own hash, SHA-256
 * over the previous hash and the row's canonical JSON (sorted keys, no
 * spaces). The previous hash is read inside the inserting transaction, so
 * two processes appending to one file keep one chain. Editing a row through
 * SQLite directly, or deleting one, shows up in ow_audit_verify().
 *
 * The chain alone cannot show rows cut from the end: what is left is a
 * shorter chain that still links. So the trail keeps a head record in a
 * second file beside it (audit.db.head): the last row's id and hash and
 * how many rows lead up to it, rewritten after every append. Verify
 * compares the table's end with it and names the rows that are gone. The
 * head only ever moves forward from a row that is still there as it was:
 * once the trail has been cut, the next append leaves the head where it
 * was, so the evidence outlives the run that goes on writing.
 */
#define G_LOG_DOMAIN "ow-audit"

#include "store/ow-audit-log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "ow-error.h"

#include "ow-redact.h"
#include "store/ow-db.h"

struct _OwAuditLog
{
  OwDb *db;         /* audit.db (owned) */
  char *head_path;  /* its head record, audit.db.head (owned) */
};

/* ---- the head record ----------------------------------------------------- */

/* One fixed-width line, so a rewrite in place never leaves a longer old
 * tail behind and needs no truncation. */
#define HEAD_FORMAT "openworker-audit-head 1 rows %020" G_GINT64_MODIFIER "d last %020" G_GINT64_MODIFIER "d hash %64s\n"
#define HEAD_LEN (sizeof "openworker-audit-head 1 rows  last  hash \n" - 1 + 20 + 20 + 64)

typedef struct {
  gint64 rows;      /* rows from the first up to and including last_id */
  gint64 last_id;   /* the last row's id */
  char   hash[65];  /* the last row's hash */
} AuditHead;

static char *
head_path_for (const char *db_path)
{
  return g_strconcat (db_path, ".head", NULL);
}

/* 1 when @text is a head record, 0 when it is empty, -1 when it is not
 * one (written over by something else). */
static int
head_parse (const char *text, gsize len, AuditHead *head)
{
  g_autofree char *copy = g_strndup (text, len);

  memset (head, 0, sizeof *head);
  if (len == 0)
    return 0;
  if (sscanf (copy, "openworker-audit-head 1 rows %" G_GINT64_MODIFIER "d last %" G_GINT64_MODIFIER "d hash %64s",
              &head->rows, &head->last_id, head->hash) != 3
      || strlen (head->hash) != 64 || head->rows <= 0 || head->last_id <= 0)
    return -1;
  return 1;
}

/* The hash of row @id, or NULL when there is none. */
static char *
row_hash (OwDb *db, gint64 id)
{
  sqlite3_stmt *stmt = ow_db_prepare (db, "SELECT hash FROM audit_events WHERE id = ?1", NULL);
  char *hash = NULL;

  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, id);
  if (sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_text (stmt, 0) != NULL)
    hash = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  sqlite3_reset (stmt);
  return hash;
}

static gint64
rows_between (OwDb *db, gint64 after, gint64 upto)
{
  sqlite3_stmt *stmt = ow_db_prepare (db, "SELECT count(*) FROM audit_events WHERE id > ?1 AND id <= ?2", NULL);
  gint64 n = -1;

  if (stmt == NULL)
    return -1;
  sqlite3_bind_int64 (stmt, 1, after);
  sqlite3_bind_int64 (stmt, 2, upto);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_reset (stmt);
  return n;
}

/* Moves the head record to row @id (just committed, hash @hash). Runs
 * after the commit, so a head never names a row a reader cannot see yet;
 * the lock orders two appenders, and the later row wins. The head moves
 * only from a row that is still there with the hash it names. A head
 * that cannot be written is logged, not failed: the row is committed,
 * and verify says the head is behind. */
static void
head_advance (OwAuditLog *log, gint64 id, const char *hash)
{
  int fd = open (log->head_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  char text[HEAD_LEN + 1];
  ssize_t n;
  AuditHead head;
  int state;
  gint64 rows;

  if (fd < 0 || flock (fd, LOCK_EX) != 0)
    {
      g_message ("cannot update the audit trail's head record %s: %s", log->head_path, g_strerror (errno));
      if (fd >= 0)
        close (fd);
      return;
    }
  n = pread (fd, text, HEAD_LEN, 0);
  state = head_parse (text, n > 0 ? (gsize) n : 0, &head);
  if (state < 0 || head.last_id >= id)
    goto out;   /* not ours to overwrite, or a later row's already */
  if (state > 0)
    {
      g_autofree char *there = row_hash (log->db, head.last_id);

      if (there == NULL || !g_str_equal (there, head.hash))
        {
          g_message ("the audit trail no longer holds row #%" G_GINT64_FORMAT " as its head record names it; "
                     "the head stays there as evidence", head.last_id);
          goto out;
        }
      rows = rows_between (log->db, head.last_id, id);
      rows = rows < 0 ? -1 : head.rows + rows;
    }
  else
    rows = rows_between (log->db, 0, id);
  if (rows <= 0)
    goto out;
  g_snprintf (text, sizeof text, HEAD_FORMAT, rows, id, hash);
  if (pwrite (fd, text, HEAD_LEN, 0) != (ssize_t) HEAD_LEN)
    g_message ("cannot update the audit trail's head record %s: %s", log->head_path, g_strerror (errno));

out:
  close (fd);
}

OwAuditLog *
ow_audit_log_open (const char *path, GError **error)
{
  OwDb *db = ow_db_open (path, "audit", error);
  OwAuditLog *log;

  if (db == NULL)
    return NULL;
  log = g_new0 (OwAuditLog, 1);
  log->db = db;
  log->head_path = head_path_for (path);
  return log;
}

void
ow_audit_log_free (OwAuditLog *log)
{
  if (log == NULL)
    return;
  ow_db_close (log->db);
  g_free (log->head_path);
  g_free (log);
}

static gboolean
key_is_secret (const char *key)
{
  static const char *const markers[] = {
    "token", "secret", "password", "api_key", "apikey", "access_token", "bot_token", "app_token", "raw",
  };
  g_autofree char *lower = g_ascii_strdown (key, -1);

  for (gsize i = 0; i < G_N_ELEMENTS (markers); i++)
    if (strstr (lower, markers[i]) != NULL)
      return TRUE;
  return FALSE;
}

static gboolean
key_is_body (const char *key)
{
  return g_str_equal (key, "body") || g_str_equal (key, "content") || g_str_equal (key, "html")
         || g_str_has_suffix (key, "_body") || g_str_has_suffix (key, "_content") || g_str_has_suffix (key, "_html");
}

static JsonNode *sanitize_node (JsonNode *node);

static JsonNode *
sanitize_string (const char *text)
{
  g_autofree char *redacted = ow_redact (text);
  g_autoptr(GString) s = g_string_new (NULL);
  const char *p;
  glong n = 0;

  /* Newlines escaped so a row reads on one line; 500 characters at most. */
  for (p = redacted; *p != '\0' && n < 500; p = g_utf8_next_char (p), n++)
    {
      if (*p == '\n')
        g_string_append (s, "\\n");
      else
        g_string_append_len (s, p, g_utf8_next_char (p) - p);
    }
  if (*p != '\0')
    g_string_append (s, "...");
  return json_node_init_string (json_node_alloc (), s->str);
}

static JsonNode *
sanitize_object (JsonObject *obj)
{
  JsonObject *out = json_object_new ();
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;
  guint n = 0;

  json_object_iter_init (&iter, obj);
  while (json_object_iter_next (&iter, &key, &value) && n++ < 20)
    {
      if (key_is_secret (key))
        json_object_set_string_member (out, key, "[redacted]");
      else if (key_is_body (key))
        json_object_set_string_member (out, key, "[redacted body]");
      else
        json_object_set_member (out, key, sanitize_node (value));
    }
  return json_node_init_object (json_node_alloc (), out);
}

static JsonNode *
sanitize_node (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonNode *n = sanitize_object (json_node_get_object (node));
        return n;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *in = json_node_get_array (node);
        JsonArray *out = json_array_new ();
        guint len = MIN (json_array_get_length (in), 10);
        for (guint i = 0; i < len; i++)
          json_array_add_element (out, sanitize_node (json_array_get_element (in, i)));
        return json_node_init_array (json_node_alloc (), out);
      }
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        return sanitize_string (json_node_get_string (node));
      return json_node_copy (node);
    case JSON_NODE_NULL:
    default:
      return json_node_new (JSON_NODE_NULL);
    }
}

char *
ow_audit_sanitize_args (JsonObject *args)
{
  g_autoptr(JsonNode) node = NULL;

  if (args == NULL)
    return NULL;
  node = sanitize_object (args);
  return json_to_string (node, FALSE);
}

static void
bind_text (sqlite3_stmt *stmt, int i, const char *value)
{
  if (value == NULL)
    sqlite3_bind_null (stmt, i);
  else
    sqlite3_bind_text (stmt, i, value, -1, SQLITE_TRANSIENT);
}

static const char *const hashed_columns[] = {
  "agent", "approval", "args", "call_id", "connector", "decision", "enforcement", "provenance", "reason",
  "resource", "result_preview", "risk", "session_id", "stage", "status", "timestamp", "tool", "workspace",
};

/* The row's canonical text: a JSON object of the hashed columns, keys in
 * the order above (sorted), nulls kept. */
static char *
canonical_row (const char *const *values)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  for (gsize i = 0; i < G_N_ELEMENTS (hashed_columns); i++)
    {
      json_builder_set_member_name (b, hashed_columns[i]);
      if (values[i] != NULL)
        json_builder_add_string_value (b, values[i]);
      else
        json_builder_add_null_value (b);
    }
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}

static char *
chain_hash (const char *prev, const char *canonical)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);

  g_checksum_update (sum, (const guchar *) prev, -1);
  g_checksum_update (sum, (const guchar *) "\n", 1);
  g_checksum_update (sum, (const guchar *) canonical, -1);
  return g_strdup (g_checksum_get_string (sum));
}

gboolean
ow_audit_log_append (OwAuditLog *log, const OwAuditEntry *e, GError **error)
{
  g_autofree char *args = ow_audit_sanitize_args (e->args);
  g_autofree char *preview = ow_redact (e->result_preview);
  g_autofree char *reason = ow_redact (e->reason);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *ts = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S.%fZ");
  g_autofree char *prev = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *hash = NULL;
  sqlite3_stmt *last, *stmt;
  gint64 id;
  /* In the order of hashed_columns. */
  const char *values[G_N_ELEMENTS (hashed_columns)] = {
    e->agent, e->approval, args, e->call_id, e->connector, e->decision, e->enforcement, e->provenance, reason,
    e->resource, preview, e->risk, e->session_id, e->stage, e->status, ts, e->tool, e->workspace,
  };

  if (!ow_db_begin (log->db, error))
    return FALSE;
  last = ow_db_prepare (log->db, "SELECT hash FROM audit_events ORDER BY id DESC LIMIT 1", error);
  if (last == NULL)
    goto fail;
  if (sqlite3_step (last) == SQLITE_ROW && sqlite3_column_text (last, 0) != NULL)
    prev = g_strdup ((const char *) sqlite3_column_text (last, 0));
  sqlite3_reset (last);
  if (prev == NULL)
    prev = g_strdup ("genesis");
  canonical = canonical_row (values);
  hash = chain_hash (prev, canonical);

  stmt = ow_db_prepare (log->db,
    "INSERT INTO audit_events (timestamp, session_id, agent, workspace, connector, tool, call_id, stage, status,"
    " approval, provenance, args, result_preview, reason, resource, enforcement, risk, decision, prev_hash, hash)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)", error);
  if (stmt == NULL)
    goto fail;
  bind_text (stmt, 1, ts);
  bind_text (stmt, 2, e->session_id);
  bind_text (stmt, 3, e->agent);
  bind_text (stmt, 4, e->workspace);
  bind_text (stmt, 5, e->connector);
  bind_text (stmt, 6, e->tool);
  bind_text (stmt, 7, e->call_id);
  bind_text (stmt, 8, e->stage);
  bind_text (stmt, 9, e->status);
  bind_text (stmt, 10, e->approval);
  bind_text (stmt, 11, e->provenance);
  bind_text (stmt, 12, args);
  bind_text (stmt, 13, preview);
  bind_text (stmt, 14, reason);
  bind_text (stmt, 15, e->resource);
  bind_text (stmt, 16, e->enforcement);
  bind_text (stmt, 17, e->risk);
  bind_text (stmt, 18, e->decision);
  bind_text (stmt, 19, prev);
  bind_text (stmt, 20, hash);
  if (!ow_db_step_done (log->db, stmt, error))
    goto fail;
  id = sqlite3_last_insert_rowid (ow_db_handle (log->db));
  if (!ow_db_commit (log->db, error))
    goto fail;
  head_advance (log, id, hash);
  return TRUE;

fail:
  ow_db_rollback (log->db);
  return FALSE;
}

/* Notes the missing rows @from..@to (ids) in @out. */
static void
note_missing (OwAuditVerify *out, gint64 from, gint64 to)
{
  if (to < from)
    return;
  out->missing += to - from + 1;
  if (out->first_missing_id == 0)
    {
      out->first_missing_id = from;
      out->first_missing_end = to;
    }
}

/* Reads the head record beside @path into @out (has_head, head_*).
 * FALSE when it is there but is not a head record. */
static gboolean
read_head (const char *path, OwAuditVerify *out, AuditHead *head)
{
  g_autofree char *head_path = head_path_for (path);
  g_autofree char *text = NULL;
  gsize len = 0;
  int state;

  memset (head, 0, sizeof *head);
  if (!g_file_get_contents (head_path, &text, &len, NULL))
    return TRUE;
  state = head_parse (text, len, head);
  out->has_head = state != 0;
  out->head_unreadable = state < 0;
  out->head_last_id = head->last_id;
  return state >= 0;
}

gboolean
ow_audit_verify (const char *path, OwAuditVerify *out, GError **error)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  g_autofree char *expected_prev = NULL;
  gint64 last_id = 0;
  gint64 rows_to_head = 0;
  gboolean head_row_seen = FALSE;
  AuditHead head;
  int rc;

  memset (out, 0, sizeof *out);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "There is no audit database at %s.", path);
      return FALSE;
    }
  /* The head first: it is written after each commit, so every row it
   * names is already visible to the read that follows. */
  read_head (path, out, &head);
  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK
      || sqlite3_prepare_v2 (db,
           "SELECT id, agent, approval, args, call_id, connector, decision, enforcement, provenance, reason,"
           " resource, result_preview, risk, session_id, stage, status, timestamp, tool, workspace, prev_hash, hash"
           " FROM audit_events ORDER BY id", -1, &stmt, NULL) != SQLITE_OK)
    {
      g_set_error (error, OW_STORE_ERROR, OW_STORE_ERROR_CORRUPT, "%s is not an OpenWorker audit database: %s",
                   path, db != NULL ? sqlite3_errmsg (db) : "cannot open");
      sqlite3_close (db);
      return FALSE;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *values[G_N_ELEMENTS (hashed_columns)];
      gint64 id = sqlite3_column_int64 (stmt, 0);
      const char *prev = (const char *) sqlite3_column_text (stmt, 19);
      const char *hash = (const char *) sqlite3_column_text (stmt, 20);
      g_autofree char *canonical = NULL;
      g_autofree char *computed = NULL;
      gboolean bad = FALSE;

      for (gsize i = 0; i < G_N_ELEMENTS (hashed_columns); i++)
        values[i] = (const char *) sqlite3_column_text (stmt, (int) i + 1);
      canonical = canonical_row (values);
      computed = chain_hash (prev != NULL ? prev : "", canonical);
      out->rows++;
      if (prev == NULL || hash == NULL || !g_str_equal (computed, hash))
        {
          out->bad_hashes++;
          bad = TRUE;
        }
      /* A whole trail (one with a head record) has every id from 1 on;
       * an exported subset has gaps where other sessions' rows were. */
      if (out->has_head && id != last_id + 1)
        note_missing (out, last_id + 1, id - 1);
      if (expected_prev != NULL)
        {
          if (id != last_id + 1 && !out->has_head)
            out->gaps++;
          else if (prev == NULL || !g_str_equal (prev, expected_prev))
            {
              out->broken_links++;
              bad = TRUE;
            }
        }
      else if ((id == 1 || out->has_head) && (prev == NULL || !g_str_equal (prev, "genesis")))
        {
          out->broken_links++;
          bad = TRUE;
        }
      if (head.last_id > 0 && id <= head.last_id)
        rows_to_head++;
      if (head.last_id > 0 && id == head.last_id)
        {
          head_row_seen = TRUE;
          out->head_mismatch = hash == NULL || !g_str_equal (hash, head.hash);
        }
      if (bad && out->first_bad_id == 0)
        out->first_bad_id = id;
      g_free (expected_prev);
      expected_prev = g_strdup (hash != NULL ? hash : "");
      last_id = id;
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  if (rc != SQLITE_DONE)
    {
      g_set_error (error, OW_STORE_ERROR, OW_STORE_ERROR_CORRUPT, "Could not read all of %s.", path);
      return FALSE;
    }
  if (head.last_id > 0)
    {
      /* Rows cut from the end: the head names a row past the last one. */
      if (!head_row_seen && last_id < head.last_id)
        {
          out->tail_cut = TRUE;
          note_missing (out, last_id + 1, head.last_id);
        }
      else if (!head_row_seen)
        out->head_mismatch = TRUE;
      out->head_rows = head.rows;
      out->rows_to_head = rows_to_head;
    }
  return TRUE;
}

/* TRUE when @v found nothing wrong. */
gboolean
ow_audit_verify_intact (const OwAuditVerify *v)
{
  return v->bad_hashes == 0 && v->broken_links == 0 && v->missing == 0 && !v->head_mismatch
         && !v->head_unreadable;
}

gboolean
ow_audit_log_export_session (OwAuditLog *log, const char *session_id, const char *dest, GError **error)
{
  g_autoptr(OwDb) out = ow_db_open (dest, "audit", error);
  sqlite3_stmt *stmt;
  gboolean ok = FALSE;
  char *attach;

  if (out == NULL)
    return FALSE;
  g_clear_pointer (&out, ow_db_close);

  /* Copy through ATTACH so the rows keep their ids and timestamps. */
  attach = sqlite3_mprintf ("ATTACH DATABASE %Q AS export", dest);
  ok = ow_db_exec (log->db, attach, error);
  sqlite3_free (attach);
  if (!ok)
    return FALSE;
  stmt = ow_db_prepare (log->db,
    "INSERT INTO export.audit_events SELECT * FROM main.audit_events WHERE session_id = ?1 ORDER BY id", error);
  ok = stmt != NULL;
  if (ok)
    {
      bind_text (stmt, 1, session_id);
      ok = ow_db_step_done (log->db, stmt, error);
    }
  ow_db_exec (log->db, "DETACH DATABASE export", NULL);
  return ok;
}
