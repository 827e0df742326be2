/* ow-ask-card.h: native cards for what the agent asks a person.
 *
 * Approvals, site grants, questions and folder requests are GTK widgets —
 * never content of the web view — docked above the composer and repeated
 * on the Inbox page. Every card is made from the ask's inbox item (the
 * one record every surface shares), implements OwAskCard and emits
 * ::answered with the answer in the shape ow_session_host_answer() takes;
 * whoever shows the card sends it and removes the card.
 *
 *   OwApprovalCard   tool, readable summary (command, coloured diff), the
 *                    reason, the reviewer's reasoning, and the ladder:
 *                    Allow once · Allow for this session · Always allow
 *                    (only with a standing target) · Deny with a reason
 *   OwSiteCard       a site for the sandbox: once · this session · always · deny
 *   OwQuestionCard   options (one or several) and free text
 *   OwDirectoryCard  yes · read-only · no · another folder
 */
#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

#include "policy/ow-inbox.h"

G_BEGIN_DECLS

#define OW_TYPE_ASK_CARD (ow_ask_card_get_type ())
G_DECLARE_INTERFACE (OwAskCard, ow_ask_card, OW, ASK_CARD, GtkWidget)

struct _OwAskCardInterface
{
  GTypeInterface parent_iface;

  /* See ow_ask_card_choose(). */
  gboolean (*choose) (OwAskCard *card, const char *choice);
};

/* The card for @item (an approval — or a site grant when its data names a
 * site —, a question or a folder request), or NULL for a kind this
 * version does not know. @workspace resolves relative paths in diffs. */
GtkWidget  *ow_ask_card_new_for_item   (const OwInboxItem *item, const char *workspace);

const char *ow_ask_card_get_session_id (OwAskCard *card);
const char *ow_ask_card_get_call_id    (OwAskCard *card);
const char *ow_ask_card_get_item_id    (OwAskCard *card);
/* For implementations: remembers which ask @card answers. */
void        ow_ask_card_bind_item      (OwAskCard *card, const OwInboxItem *item);
/* Emits ::answered (JsonObject *answer) and makes the card inactive. */
void        ow_ask_card_answer         (OwAskCard *card, JsonObject *answer);
/* Clicks the card's button for @choice — "once", "session", "always",
 * "deny" on approvals and site cards, "yes", "read-only", "no" on folder
 * cards, an option's text on question cards — as a person would (tests
 * and notification actions use it). FALSE when the card has none. */
gboolean    ow_ask_card_choose         (OwAskCard *card, const char *choice);

G_END_DECLS
