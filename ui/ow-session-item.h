/* ow-session-item.h: one row of the sessions sidebar.
 *
 * Either a session (its id, title, subtitle, badges) or a group header
 * ("Pinned", "Recent", "Archived"): GTK 4.8 has no list sections, so the
 * headers are items of the model and the row template shows one or the
 * other. Properties only; the list model keeps them up to date.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define OW_TYPE_SESSION_ITEM (ow_session_item_get_type ())
G_DECLARE_FINAL_TYPE (OwSessionItem, ow_session_item, OW, SESSION_ITEM, GObject)

OwSessionItem *ow_session_item_new_header (const char *title);
OwSessionItem *ow_session_item_new        (const char *session_id);

gboolean    ow_session_item_get_is_header (OwSessionItem *self);
const char *ow_session_item_get_id        (OwSessionItem *self);
const char *ow_session_item_get_title     (OwSessionItem *self);
const char *ow_session_item_get_coworker  (OwSessionItem *self);
const char *ow_session_item_get_workspace (OwSessionItem *self);
gboolean    ow_session_item_get_pinned    (OwSessionItem *self);
gboolean    ow_session_item_get_archived  (OwSessionItem *self);
guint       ow_session_item_get_attention (OwSessionItem *self);

/* Sets a property, notifying only on change. */
void ow_session_item_set_title     (OwSessionItem *self, const char *title);
void ow_session_item_set_subtitle  (OwSessionItem *self, const char *subtitle);
void ow_session_item_set_updated   (OwSessionItem *self, const char *updated);
void ow_session_item_set_coworker  (OwSessionItem *self, const char *coworker);
void ow_session_item_set_workspace (OwSessionItem *self, const char *workspace);
void ow_session_item_set_pinned    (OwSessionItem *self, gboolean pinned);
void ow_session_item_set_archived  (OwSessionItem *self, gboolean archived);
void ow_session_item_set_attention (OwSessionItem *self, guint attention);
void ow_session_item_set_running   (OwSessionItem *self, gboolean running);

G_END_DECLS
