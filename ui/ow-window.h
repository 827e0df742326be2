/* ow-window.h: the main window.
 *
 * An AdwApplicationWindow. The sessions sidebar, an AdwFlap that folds
 * over the page on a narrow window (an OwSessionList in a GtkListView:
 * pinned, recent, archived; a search; filters; rename, pin, archive,
 * delete with undo in a toast; a badge per session waiting for a person),
 * the Inbox entry with its count, the page stack (the session view, the
 * Inbox page) and the deliverables panel (a second flap, at the end).
 * Behaviour is window actions:
 *   win.new-session, win.show-inbox, win.open-session (s),
 *   win.rename-session (s), win.toggle-pin (s), win.toggle-archive (s),
 *   win.delete-session (s), win.undo-delete, win.toggle-sidebar,
 *   win.toggle-artifacts, win.focus-cards, win.focus-composer,
 *   win.show-help-overlay (the keyboard shortcuts).
 */
#pragma once

#include <adwaita.h>

#include "ow-application.h"
#include "ow-artifacts-panel.h"
#include "ow-inbox-page.h"
#include "ow-session-list.h"
#include "ow-session-view.h"

G_BEGIN_DECLS

#define OW_TYPE_WINDOW (ow_window_get_type ())
G_DECLARE_FINAL_TYPE (OwWindow, ow_window, OW, WINDOW, AdwApplicationWindow)

OwWindow         *ow_window_new                  (OwApplication *app);

/* A draft session (@workspace NULL = a temporary folder). */
void              ow_window_new_session          (OwWindow *self, const char *workspace);
/* Creates a session in @folder at once and shows it (a folder given on
 * the command line). */
void              ow_window_new_session_in       (OwWindow *self, const char *folder);
void              ow_window_open_session         (OwWindow *self, const char *session_id);
void              ow_window_show_inbox           (OwWindow *self);
void              ow_window_show_message         (OwWindow *self, const char *title, const char *detail);
/* Carries out deletions still waiting for their undo period. */
void              ow_window_finish_pending       (OwWindow *self);

/* "session" or "inbox". */
const char       *ow_window_get_page             (OwWindow *self);
OwSessionView    *ow_window_get_session_view     (OwWindow *self);
OwInboxPage      *ow_window_get_inbox_page       (OwWindow *self);
OwArtifactsPanel *ow_window_get_artifacts_panel  (OwWindow *self);
OwSessionList    *ow_window_get_session_list     (OwWindow *self);
GtkListView      *ow_window_get_session_list_view (OwWindow *self);

G_END_DECLS
