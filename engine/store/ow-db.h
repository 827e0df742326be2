/* ow-db.h: a SQLite database file with our migrations applied.
 *
 * Both of our databases (openworker.db and audit.db) are opened here: WAL
 * journal, synchronous=NORMAL (a process crash loses nothing committed; a
 * power cut may lose the last transactions but never corrupts), a busy
 * timeout so two runs can share one file, and the migrations compiled into
 * the engine as resources (migrations/<name>-NNN.sql), applied in order and
 * recorded in PRAGMA user_version.
 */
#pragma once

#include <glib.h>
#include <sqlite3.h>

G_BEGIN_DECLS

typedef struct _OwDb OwDb;

/* Opens (creating) @path and migrates it with the "<@schema>-NNN.sql"
 * resources. */
OwDb         *ow_db_open     (const char *path, const char *schema, GError **error);
void          ow_db_close    (OwDb *db);
sqlite3      *ow_db_handle   (OwDb *db);
const char   *ow_db_path     (OwDb *db);

/* Returns a reset statement for @sql, prepared once and cached for the
 * life of the database (keyed by the SQL text). Do not finalize it. */
sqlite3_stmt *ow_db_prepare  (OwDb *db, const char *sql, GError **error);
/* Runs @stmt to completion (after binding) and resets it. */
gboolean      ow_db_step_done (OwDb *db, sqlite3_stmt *stmt, GError **error);
gboolean      ow_db_exec     (OwDb *db, const char *sql, GError **error);
gboolean      ow_db_begin    (OwDb *db, GError **error);
gboolean      ow_db_commit   (OwDb *db, GError **error);
void          ow_db_rollback (OwDb *db);

/* Turns a SQLite result code into an OW_STORE_ERROR with a sentence a
 * person can act on (a full disk says so). */
void          ow_db_set_error (OwDb *db, int rc, const char *doing, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwDb, ow_db_close)

G_END_DECLS
