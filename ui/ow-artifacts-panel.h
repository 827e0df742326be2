/* ow-artifacts-panel.h: the deliverables of the shown session.
 *
 * The files the session produced: everything in its scratch folder (where
 * a session without a folder of its own writes, and where deliverables go)
 * and every file its tools wrote or edited elsewhere, newest first. A row
 * opens the preview; Open and Show in folder hand the file to the desktop.
 */
#pragma once

#include <gtk/gtk.h>

#include "core/ow-session-host.h"

G_BEGIN_DECLS

#define OW_TYPE_ARTIFACTS_PANEL (ow_artifacts_panel_get_type ())
G_DECLARE_FINAL_TYPE (OwArtifactsPanel, ow_artifacts_panel, OW, ARTIFACTS_PANEL, GtkWidget)

GtkWidget *ow_artifacts_panel_new         (OwSessionHost *host);
void       ow_artifacts_panel_set_session (OwArtifactsPanel *self, const char *session_id);
void       ow_artifacts_panel_refresh     (OwArtifactsPanel *self);
/* Paths listed (char*, borrowed), newest first. */
GPtrArray *ow_artifacts_panel_get_paths   (OwArtifactsPanel *self);
/* Resolves @relative (an "artifact:" link) inside the session's folders;
 * NULL when it is not there or escapes them. */
char      *ow_artifacts_panel_resolve     (OwArtifactsPanel *self, const char *relative);

G_END_DECLS
