/* ow-db.c: SQLite files with migrations (see ow-db.h).
 *
 * Statements are cached per database in a hash table keyed by their SQL
 * text, so the hot paths (appending a message or an event) prepare nothing
 * after the first call.
 */
#define G_LOG_DOMAIN "ow-db"

#include "store/ow-db.h"

#include "ow-error.h"
#include "ow-resources.h"

struct _OwDb
{
  sqlite3    *handle;   /* the connection (owned) */
  char       *path;     /* file path, for messages */
  GHashTable *stmts;    /* SQL text (owned) → sqlite3_stmt* (finalized on close) */
};

void
ow_db_set_error (OwDb *db, int rc, const char *doing, GError **error)
{
  const char *detail = db != NULL && db->handle != NULL ? sqlite3_errmsg (db->handle) : sqlite3_errstr (rc);
  const char *path = db != NULL ? db->path : "the database";

  switch (rc & 0xff)
    {
    case SQLITE_FULL:
      g_set_error (error, OW_STORE_ERROR, OW_STORE_ERROR_FULL,
                   "The disk is full: could not %s in %s. Free some space and try again; nothing already saved was lost.",
                   doing, path);
      break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      g_set_error (error, OW_STORE_ERROR, OW_STORE_ERROR_CORRUPT,
                   "%s is damaged (%s) and could not %s. Move it aside to start a fresh one.",
                   path, detail, doing);
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      g_set_error (error, OW_STORE_ERROR, OW_STORE_ERROR_BUSY,
                   "%s is locked by another OpenWorker process; could not %s (%s).", path, doing, detail);
      break;
    default:
      g_set_error (error, OW_STORE_ERROR, OW_STORE_ERROR_FAILED,
                   "Could not %s in %s: %s", doing, path, detail);
      break;
    }
}

gboolean
ow_db_exec (OwDb *db, const char *sql, GError **error)
{
  char *msg = NULL;
  int rc = sqlite3_exec (db->handle, sql, NULL, NULL, &msg);

  sqlite3_free (msg);
  if (rc != SQLITE_OK)
    {
      ow_db_set_error (db, rc, "update the database", error);
      return FALSE;
    }
  return TRUE;
}

gboolean
ow_db_begin (OwDb *db, GError **error)
{
  return ow_db_exec (db, "BEGIN IMMEDIATE", error);
}

gboolean
ow_db_commit (OwDb *db, GError **error)
{
  return ow_db_exec (db, "COMMIT", error);
}

void
ow_db_rollback (OwDb *db)
{
  sqlite3_exec (db->handle, "ROLLBACK", NULL, NULL, NULL);
}

sqlite3_stmt *
ow_db_prepare (OwDb *db, const char *sql, GError **error)
{
  sqlite3_stmt *stmt = g_hash_table_lookup (db->stmts, sql);
  int rc;

  if (stmt != NULL)
    {
      sqlite3_reset (stmt);
      sqlite3_clear_bindings (stmt);
      return stmt;
    }
  rc = sqlite3_prepare_v3 (db->handle, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
  if (rc != SQLITE_OK)
    {
      ow_db_set_error (db, rc, "prepare a query", error);
      return NULL;
    }
  g_hash_table_insert (db->stmts, g_strdup (sql), stmt);
  return stmt;
}

gboolean
ow_db_step_done (OwDb *db, sqlite3_stmt *stmt, GError **error)
{
  int rc;

  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    ;
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (db, rc, "save a change", error);
      return FALSE;
    }
  return TRUE;
}

/* How long a writer waits for another process's write to end. Writes are
 * short (one event, one inbox answer); a loaded machine stretches them. */
#define BUSY_TIMEOUT_MS 15000

static void finalize_stmt (gpointer stmt);

static int
user_version (OwDb *db)
{
  sqlite3_stmt *stmt = NULL;
  int version = 0;

  if (sqlite3_prepare_v2 (db->handle, "PRAGMA user_version", -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    version = sqlite3_column_int (stmt, 0);
  sqlite3_finalize (stmt);
  return version;
}

/* Applies the schema's migrations past PRAGMA user_version, each in its own
 * write transaction. Several processes may open a new database at once
 * (a run and `openworker inbox list`): the version is read again under the
 * write lock, so a migration another process applied meanwhile is skipped. */
static gboolean
migrate (OwDb *db, const char *schema, GError **error)
{
  for (int n = user_version (db) + 1;; n++)
    {
      g_autofree char *name = g_strdup_printf ("migrations/%s-%03d.sql", schema, n);
      g_autoptr(GBytes) sql = ow_resources_lookup (name, NULL);
      g_autofree char *text = NULL;
      g_autofree char *bump = NULL;

      if (sql == NULL)
        break;
      if (!ow_db_begin (db, error))
        return FALSE;
      if (user_version (db) >= n)
        {
          ow_db_rollback (db);
          continue;
        }
      text = g_strndup (g_bytes_get_data (sql, NULL), g_bytes_get_size (sql));
      bump = g_strdup_printf ("PRAGMA user_version = %d", n);
      if (!ow_db_exec (db, text, error) || !ow_db_exec (db, bump, error) || !ow_db_commit (db, error))
        {
          ow_db_rollback (db);
          g_prefix_error (error, "Migration %s failed: ", name);
          return FALSE;
        }
      g_debug ("%s: applied %s", db->path, name);
    }
  return TRUE;
}

OwDb *
ow_db_open (const char *path, const char *schema, GError **error)
{
  g_autoptr(OwDb) db = g_new0 (OwDb, 1);
  int rc;

  db->path = g_strdup (path);
  db->stmts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, finalize_stmt);
  rc = sqlite3_open_v2 (path, &db->handle,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc != SQLITE_OK)
    {
      ow_db_set_error (db, rc, "open the database", error);
      return NULL;
    }
  sqlite3_busy_timeout (db->handle, BUSY_TIMEOUT_MS);
  /* A brand-new file is switched to WAL and given its schema without
   * syncing: until it holds anything there is nothing to lose, and the
   * syncs would cost a new run milliseconds before its first request. From
   * then on, synchronous=NORMAL. */
  /* Switching a new file to WAL takes the file's exclusive lock, and
   * SQLite answers a second process that opens the file at that moment
   * with SQLITE_BUSY at once, without its busy handler: wait and retry
   * here, up to the busy timeout. */
  for (guint waited_ms = 0;; waited_ms += 20)
    {
      g_autoptr(GError) local = NULL;

      if (ow_db_exec (db, "PRAGMA synchronous = OFF; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -512;", &local)
          && migrate (db, schema, &local))
        break;
      if (!g_error_matches (local, OW_STORE_ERROR, OW_STORE_ERROR_BUSY) || waited_ms >= BUSY_TIMEOUT_MS)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      g_usleep (20 * 1000);
    }
  if (!ow_db_exec (db, "PRAGMA synchronous = NORMAL;", error))
    return NULL;
  return g_steal_pointer (&db);
}

static void
finalize_stmt (gpointer stmt)
{
  sqlite3_finalize (stmt);
}

void
ow_db_close (OwDb *db)
{
  if (db == NULL)
    return;
  g_clear_pointer (&db->stmts, g_hash_table_unref);
  if (db->handle != NULL)
    sqlite3_close (db->handle);
  g_free (db->path);
  g_free (db);
}

sqlite3 *
ow_db_handle (OwDb *db)
{
  return db->handle;
}

const char *
ow_db_path (OwDb *db)
{
  return db->path;
}
