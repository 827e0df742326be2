/* ow-session-view.h: one session on screen — or a new one being set up.
 *
 * The transcript (the window's one web view), the cards of the session's
 * pending asks and the composer. A draft is a session not created yet:
 * the composer offers its coworker, folder and model, and the first
 * message creates it in the engine and sends. Live events of the shown
 * session go to the transcript; retries, stops, mode and model changes go
 * to the session host.
 *
 * Properties: "session-id" (NULL for a draft), "title", "subtitle".
 * Signals: ::session-created (const char *id), ::open-artifact (const char *path).
 */
#pragma once

#include <gtk/gtk.h>

#include "ow-application.h"
#include "ow-card-dock.h"
#include "ow-composer.h"
#include "ow-transcript-view.h"

G_BEGIN_DECLS

#define OW_TYPE_SESSION_VIEW (ow_session_view_get_type ())
G_DECLARE_FINAL_TYPE (OwSessionView, ow_session_view, OW, SESSION_VIEW, GtkWidget)

GtkWidget        *ow_session_view_new            (OwApplication *app);

/* A new session to set up; @workspace NULL = a temporary folder. */
void              ow_session_view_show_draft     (OwSessionView *self, const char *workspace, const char *coworker);
/* Shows a stored session, replaying its history. FALSE (and a notice)
 * when it cannot be loaded. */
gboolean          ow_session_view_show_session   (OwSessionView *self, const char *session_id);
const char       *ow_session_view_get_session_id (OwSessionView *self);
const char       *ow_session_view_get_title      (OwSessionView *self);
/* Reads the title and subtitle again (after a rename). */
void              ow_session_view_refresh_heading (OwSessionView *self);
/* Sends what the composer holds (what Ctrl+Enter does). */
void              ow_session_view_send           (OwSessionView *self);

OwTranscriptView *ow_session_view_get_transcript (OwSessionView *self);
OwCardDock       *ow_session_view_get_dock       (OwSessionView *self);
OwComposer       *ow_session_view_get_composer   (OwSessionView *self);

G_END_DECLS
