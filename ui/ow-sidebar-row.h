/* ow-sidebar-row.h: a row of the sessions sidebar.
 *
 * Shows an OwSessionItem — a group header, or a session with its title,
 * subtitle, pin, running spinner and a badge counting the asks that wait
 * for a person — and offers the session's actions (rename, pin, archive,
 * delete) from a menu button and a right click. The actions are
 * "session.*" on the row and run the window's "win.*-session" actions
 * with the row's session id.
 */
#pragma once

#include <gtk/gtk.h>

#include "ow-session-item.h"

G_BEGIN_DECLS

#define OW_TYPE_SIDEBAR_ROW (ow_sidebar_row_get_type ())
G_DECLARE_FINAL_TYPE (OwSidebarRow, ow_sidebar_row, OW, SIDEBAR_ROW, GtkWidget)

OwSessionItem *ow_sidebar_row_get_item (OwSidebarRow *self);
void           ow_sidebar_row_set_item (OwSidebarRow *self, OwSessionItem *item);

G_END_DECLS
