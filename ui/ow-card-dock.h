/* ow-card-dock.h: the asks of the shown session, docked above the composer.
 *
 * Shows one card per pending ask of one session, built from the inbox (so
 * a session reopened later shows what still waits), adds cards as asks
 * are parked and removes a card the moment its ask is answered — here,
 * from the Inbox page, the browser or another process ("approval_resolved"
 * on the session, or the inbox's "item-resolved").
 */
#pragma once

#include <gtk/gtk.h>

#include "core/ow-session-host.h"
#include "ow-ask-card.h"

G_BEGIN_DECLS

#define OW_TYPE_CARD_DOCK (ow_card_dock_get_type ())
G_DECLARE_FINAL_TYPE (OwCardDock, ow_card_dock, OW, CARD_DOCK, GtkWidget)

GtkWidget *ow_card_dock_new          (OwSessionHost *host);
/* Shows @session_id's asks (NULL: none). @workspace resolves relative
 * paths in diffs. */
void       ow_card_dock_set_session  (OwCardDock *self, const char *session_id, const char *workspace);
guint      ow_card_dock_get_n_cards  (OwCardDock *self);
/* The card for @call_id, or NULL; with NULL, the first card. */
OwAskCard *ow_card_dock_find         (OwCardDock *self, const char *call_id);
/* Moves the keyboard focus to the first card. */
gboolean   ow_card_dock_focus_first  (OwCardDock *self);

G_END_DECLS
