/* ow-transcript-view.h: the window's one web view.
 *
 * The transcript is the only place WebKit runs in the main window. It
 * loads one page of our own (owui://app/transcript.html, served from the
 * GResource with a strict Content-Security-Policy) in an ephemeral
 * network session, refuses every navigation, new window and permission
 * request, and is fed through script messages: the C renderer turns
 * session events into page operations, this widget hands them to the
 * page's owApply() as a JSON argument (never as code), and the page posts
 * the person's clicks back.
 *
 * WebKit itself is in the ow-webkit module (see ow-web-module.h), loaded
 * after the window's first frame: until then the view is empty and the
 * operations it is given wait, then go to the page in order.
 *
 * Signals:
 *   ::action (const char *action, const char *argument)
 *       "retry", "settings", "open-link" (argument: the href, checked by
 *       ow_html_safe_link()); copying a code block is handled here.
 */
#pragma once

#include <gtk/gtk.h>

#include "core/ow-event.h"
#include "store/ow-store.h"

G_BEGIN_DECLS

#define OW_TYPE_TRANSCRIPT_VIEW (ow_transcript_view_get_type ())
G_DECLARE_FINAL_TYPE (OwTranscriptView, ow_transcript_view, OW, TRANSCRIPT_VIEW, GtkWidget)

GtkWidget     *ow_transcript_view_new          (void);

/* Empties the page (a new session, a draft). */
void           ow_transcript_view_reset        (OwTranscriptView *self);
/* Replays @session_id's whole event log from @store, then follows live
 * events given to ow_transcript_view_feed(). */
void           ow_transcript_view_replay       (OwTranscriptView *self, OwStore *store, const char *session_id);
/* A live event of the shown session. */
void           ow_transcript_view_feed         (OwTranscriptView *self, const OwEvent *event);
/* Whether a turn is running, as the events tell. */
gboolean       ow_transcript_view_is_working   (OwTranscriptView *self);

/* For tests and the benchmark: the page has loaded and every operation
 * so far has been applied. */
gboolean       ow_transcript_view_is_settled   (OwTranscriptView *self);
/* The web view, or NULL until WebKit is loaded. */
GtkWidget     *ow_transcript_view_get_web_view (OwTranscriptView *self);
/* For tests: runs a function with @body in the page (loading WebKit now
 * if it is not yet) and returns its value as a string (NULL for null or
 * undefined). */
void           ow_transcript_view_run_script_async  (OwTranscriptView    *self,
                                                     const char          *body,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
char          *ow_transcript_view_run_script_finish (OwTranscriptView  *self,
                                                     GAsyncResult      *result,
                                                     GError           **error);

G_END_DECLS
