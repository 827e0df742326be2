/* ow-audit-log.c: audit rows in audit.db (see ow-audit-log.h). */
#define G_LOG_DOMAIN "ow-audit"

#include "store/ow-audit-log.h"

#include <string.h>

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

gboolean
ow_audit_log_append (OwAuditLog *log, const OwAuditEntry *e, GError **error)
{
  sqlite3_stmt *stmt = ow_db_prepare (log->db,
    "INSERT INTO audit_events (session_id, agent, workspace, connector, tool, call_id, stage, status,"
    " approval, provenance, args, result_preview, reason, resource, enforcement)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)", error);
  g_autofree char *args = NULL;
  g_autofree char *preview = NULL;
  g_autofree char *reason = NULL;

  if (stmt == NULL)
    return FALSE;
  args = ow_audit_sanitize_args (e->args);
  preview = ow_redact (e->result_preview);
  reason = ow_redact (e->reason);
  bind_text (stmt, 1, e->session_id);
  bind_text (stmt, 2, e->agent);
  bind_text (stmt, 3, e->workspace);
  bind_text (stmt, 4, e->connector);
  bind_text (stmt, 5, e->tool);
  bind_text (stmt, 6, e->call_id);
  bind_text (stmt, 7, e->stage);
  bind_text (stmt, 8, e->status);
  bind_text (stmt, 9, e->approval);
  bind_text (stmt, 10, e->provenance);
  bind_text (stmt, 11, args);
  bind_text (stmt, 12, preview);
  bind_text (stmt, 13, reason);
  bind_text (stmt, 14, e->resource);
  bind_text (stmt, 15, e->enforcement);
  return ow_db_step_done (log->db, stmt, error);
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
