/* ow-inbox-page.h: every ask that waits for a person, across sessions.
 *
 * Approvals, questions, folder and site requests from every session —
 * attended or parked while nobody watched — newest first, filterable by
 * kind and by coworker, each answerable in place with the same cards the
 * session shows, and a way to the session it came from. Answered items
 * leave the page wherever they were answered.
 */
#pragma once

#include <gtk/gtk.h>

#include "ow-application.h"
#include "ow-ask-card.h"

G_BEGIN_DECLS

#define OW_TYPE_INBOX_PAGE (ow_inbox_page_get_type ())
G_DECLARE_FINAL_TYPE (OwInboxPage, ow_inbox_page, OW, INBOX_PAGE, GtkWidget)

GtkWidget *ow_inbox_page_new       (OwApplication *app);
/* Reads the inbox again (it also follows the engine by itself). */
void       ow_inbox_page_refresh   (OwInboxPage *self);
/* Items shown with the current filter / pending in all. */
guint      ow_inbox_page_get_n_shown (OwInboxPage *self);
/* The card of @call_id on the page, or NULL. */
OwAskCard *ow_inbox_page_find_card (OwInboxPage *self, const char *session_id, const char *call_id);
/* "all", "approval", "question", "directory"; "" or NULL = all. */
void       ow_inbox_page_set_kind_filter (OwInboxPage *self, const char *kind);

G_END_DECLS
