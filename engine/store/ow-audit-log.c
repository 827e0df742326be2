/* ow-audit-log.c: audit rows in audit.db (see ow-audit-log.h).
 *
 * Rows are append-only (triggers refuse UPDATE and DELETE) and chained:
 * each row stores the hash of the row before it and its own hash, SHA-256
 * over the previous hash and the row's canonical JSON (sorted keys, no
 * spaces). The previous hash is read inside the inserting transaction, so
 * two processes appending to one file keep one chain. Editing a row through
 * SQLite directly, or deleting one, shows up in ow_audit_verify().
 */
#define G_LOG_DOMAIN "ow-audit"

#include "store/ow-audit-log.h"

#include <string.h>

#include "ow-error.h"

#include "ow-redact.h"
#include "store/ow-db.h"

struct _OwAuditLog
{
  OwDb *db;   /* audit.db (owned) */
};

OwAuditLog *
ow_audit_log_open (const char *path, GError **error)
{
  OwDb *db = ow_db_open (path, "audit", error);
  OwAuditLog *log;

  if (db == NULL)
    return NULL;
  log = g_new0 (OwAuditLog, 1);
  log->db = db;
  return log;
}

void
ow_audit_log_free (OwAuditLog *log)
{
  if (log == NULL)
    return;
  ow_db_close (log->db);
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
  return ow_db_commit (log->db, error);

fail:
  ow_db_rollback (log->db);
  return FALSE;
}

gboolean
ow_audit_verify (const char *path, OwAuditVerify *out, GError **error)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  g_autofree char *expected_prev = NULL;
  gint64 last_id = 0;
  int rc;

  memset (out, 0, sizeof *out);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "There is no audit database at %s.", path);
      return FALSE;
    }
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
      if (expected_prev != NULL)
        {
          if (id != last_id + 1)
            out->gaps++;
          else if (prev == NULL || !g_str_equal (prev, expected_prev))
            {
              out->broken_links++;
              bad = TRUE;
            }
        }
      else if (id == 1 && (prev == NULL || !g_str_equal (prev, "genesis")))
        {
          out->broken_links++;
          bad = TRUE;
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
  return TRUE;
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
