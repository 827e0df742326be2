/* ow-session-list.h: the sessions sidebar as a list model.
 *
 * A GListModel of OwSessionItem built from the store's session list:
 * pinned sessions first, then the others by last activity, then — when
 * asked for — the archived ones, each group under a header item. Filters
 * narrow it to a coworker, a folder or the sessions that wait for a person.
 * It follows the engine: sessions created or deleted, turns starting and
 * ending, asks parked and answered; the refresh is coalesced, and rows
 * whose order did not change are updated in place so the view keeps its
 * selection and scroll position.
 */
#pragma once

#include <gio/gio.h>

#include "core/ow-session-host.h"
#include "ow-session-item.h"

G_BEGIN_DECLS

#define OW_TYPE_SESSION_LIST (ow_session_list_get_type ())
G_DECLARE_FINAL_TYPE (OwSessionList, ow_session_list, OW, SESSION_LIST, GObject)

OwSessionList *ow_session_list_new           (OwSessionHost *host);
/* Reads the list now / on the next idle. */
void           ow_session_list_refresh       (OwSessionList *self);
void           ow_session_list_queue_refresh (OwSessionList *self);
/* The position of @session_id's row, or -1. */
int            ow_session_list_find          (OwSessionList *self, const char *session_id);
OwSessionItem *ow_session_list_lookup        (OwSessionList *self, const char *session_id);
/* Leaves a session out (a deletion that can still be undone). */
void           ow_session_list_set_hidden    (OwSessionList *self, const char *session_id, gboolean hidden);
/* How many sessions (not headers) the list shows. */
guint          ow_session_list_get_n_sessions (OwSessionList *self);
/* The folders of all sessions, most recent first (char*), for the folder filter. */
GPtrArray     *ow_session_list_dup_workspaces (OwSessionList *self);

/* Filters (properties "filter-coworker", "filter-workspace",
 * "attention-only", "show-archived"). NULL or "" = any. */
void ow_session_list_set_filter_coworker  (OwSessionList *self, const char *coworker);
void ow_session_list_set_filter_workspace (OwSessionList *self, const char *workspace);
/* The sidebar's search: sessions whose title or folder name holds every
 * word of @text, ignoring case (NULL or blank: all). */
void ow_session_list_set_filter_text      (OwSessionList *self, const char *text);
void ow_session_list_set_attention_only   (OwSessionList *self, gboolean only);
void ow_session_list_set_show_archived    (OwSessionList *self, gboolean show);

G_END_DECLS
