/* ow-store.h: the state database (openworker.db).
 *
 * Sessions, each session's messages (one row per message, appended as they
 * are acknowledged) and each session's durable event log. Every write is
 * its own transaction, so a crash at any point loses nothing already
 * acknowledged. Runs on the calling thread: with WAL and synchronous=NORMAL
 * an append costs tens of microseconds and needs no fsync.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "store/ow-db.h"

G_BEGIN_DECLS

typedef struct _OwStore OwStore;

/* A session's row. Strings owned. JSON columns are kept as text. */
typedef struct {
  char    *session_id;
  char    *workspace;     /* primary folder, or NULL */
  char    *model;         /* full model id ("anthropic:claude-…") */
  char    *mode;          /* approval mode */
  char    *coworker;      /* "cowork", "code", … */
  char    *title;
  char    *origin;        /* "cli", "desktop", "server", … */
  char    *roots;         /* JSON array [{path, writable, label}] */
  char    *grants;        /* JSON object {tools:[…], commands:[…]} */
  char    *compaction;    /* JSON object (see core/ow-compaction.h), or NULL; read, not inserted */
  gboolean pinned;
  gboolean archived;
  gint64   n_msgs;
  char    *created_at;    /* ISO 8601 UTC */
  char    *updated_at;
} OwSessionRow;

void     ow_session_row_free (OwSessionRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwSessionRow, ow_session_row_free)

OwStore      *ow_store_open                (const char *path, GError **error);
void          ow_store_free                (OwStore *store);
OwDb         *ow_store_get_db              (OwStore *store);

gboolean      ow_store_session_insert      (OwStore *store, const OwSessionRow *row, GError **error);
/* Updates the mutable per-turn state of a session (NULL leaves a column). */
gboolean      ow_store_session_update      (OwStore    *store,
                                            const char *session_id,
                                            const char *model,
                                            const char *mode,
                                            const char *roots,
                                            const char *grants,
                                            GError    **error);
/* Deletes a session with its messages and events, in one transaction. */
gboolean      ow_store_session_delete      (OwStore *store, const char *session_id, GError **error);
gboolean      ow_store_session_set_title   (OwStore *store, const char *session_id, const char *title, GError **error);
/* The title a model gave the session (shown unless a person renamed it). */
gboolean      ow_store_session_set_auto_title (OwStore *store, const char *session_id, const char *title,
                                               GError **error);
/* Saves the session's compaction state (JSON text; NULL clears it). */
gboolean      ow_store_session_set_compaction (OwStore *store, const char *session_id, const char *compaction,
                                               GError **error);
OwSessionRow *ow_store_session_get         (OwStore *store, const char *session_id, GError **error);

/* Appends message @idx (0-based) of @session_id; fails if it exists. */
gboolean      ow_store_message_append      (OwStore    *store,
                                            const char *session_id,
                                            gint64      idx,
                                            const char *body,
                                            GError    **error);
/* Replaces message @idx (a message being finished in place, e.g. a
 * streamed assistant reply). */
gboolean      ow_store_message_replace     (OwStore *store, const char *session_id, gint64 idx, const char *body, GError **error);
/* The session's message bodies, in order (char*). */
GPtrArray    *ow_store_message_load        (OwStore *store, const char *session_id, GError **error);

gboolean      ow_store_event_append        (OwStore    *store,
                                            const char *session_id,
                                            gint64      seq,
                                            gint64      ts_ms,
                                            const char *type,
                                            const char *data,
                                            GError    **error);
/* The highest seq recorded for @session_id, 0 when none. */
gint64        ow_store_event_last_seq      (OwStore *store, const char *session_id);

/* Calls @func for each event with seq > @since, in order. */
typedef void (*OwStoreEventFunc) (gint64 seq, gint64 ts_ms, const char *type, const char *data, gpointer user_data);
gboolean      ow_store_event_foreach_since (OwStore         *store,
                                            const char      *session_id,
                                            gint64           since,
                                            OwStoreEventFunc func,
                                            gpointer         user_data,
                                            GError         **error);

gboolean      ow_store_touch_workspace     (OwStore *store, const char *path, GError **error);

/* ---- Queries for the loopback API (engine/server) ----------------------- */

/* A session as the session list shows it: the row, plus what the list
 * needs beside it. */
typedef struct {
  OwSessionRow *row;
  char         *auto_title;    /* a title made by a model, or NULL */
  gboolean      renamed;       /* a person set the title */
  char         *origin_label;
  gint64        attention;     /* pending inbox items */
  char         *first_text;    /* the first user message's content (JSON text when not a string), when
                                * there is no title at all; else NULL */
} OwSessionListRow;

void          ow_session_list_row_free     (OwSessionListRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwSessionListRow, ow_session_list_row_free)

/* Sessions (OwSessionListRow*), pinned first, then most recently updated;
 * internal ids (starting "__") left out. @workspace and @session_id
 * filter when not NULL. The rows' roots and grants are not read (NULL). */
GPtrArray    *ow_store_session_list        (OwStore *store, const char *workspace, const char *session_id,
                                            GError **error);
/* Sets pinned / archived (-1 leaves one as it is) without touching
 * updated_at, so pinning does not reorder. NOT_FOUND when absent. */
gboolean      ow_store_session_set_flags   (OwStore *store, const char *session_id, int pinned, int archived,
                                            GError **error);
/* A title a person chose: sets it and marks the session renamed. */
gboolean      ow_store_session_rename      (OwStore *store, const char *session_id, const char *title,
                                            GError **error);
/* Sessions whose event log does not end with "turn_done" (char*): a turn
 * was running when the process stopped. One index seek per session. */
GPtrArray    *ow_store_session_list_unfinished (OwStore *store, GError **error);
/* The most recently used workspace folders (char*), newest first. */
GPtrArray    *ow_store_workspace_recent    (OwStore *store, guint limit, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwStore, ow_store_free)

G_END_DECLS
