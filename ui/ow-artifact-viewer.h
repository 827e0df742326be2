/* ow-artifact-viewer.h: a preview of a file a session produced.
 *
 * Markdown (rendered by the same sanitizing renderer as the transcript)
 * and HTML go into a web view of their own with JavaScript switched off,
 * a Content-Security-Policy that allows no load from anywhere, and no
 * navigation; text shows as text, images as images, PDFs page by page
 * through poppler. "Open" hands the file to the desktop's application for
 * it and "Show in folder" to the file manager.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define OW_TYPE_ARTIFACT_VIEWER (ow_artifact_viewer_get_type ())
G_DECLARE_FINAL_TYPE (OwArtifactViewer, ow_artifact_viewer, OW, ARTIFACT_VIEWER, GtkWindow)

/* @path: an absolute path, already checked to be inside the session's folders. */
GtkWidget  *ow_artifact_viewer_new      (GtkWindow *parent, const char *path);
/* "markdown", "html", "text", "image", "pdf" or "none" (not previewable). */
const char *ow_artifact_viewer_get_kind (OwArtifactViewer *self);

/* Shared with the artifacts panel. */
void        ow_artifact_open            (GtkWidget *widget, const char *path);
void        ow_artifact_show_in_folder  (GtkWidget *widget, const char *path);
/* The preview kind for a file name. */
const char *ow_artifact_preview_kind    (const char *path);

G_END_DECLS
