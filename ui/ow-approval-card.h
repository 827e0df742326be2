/* ow-approval-card.h: see ow-ask-card.h. */
#pragma once

#include "ow-ask-card.h"

G_BEGIN_DECLS

#define OW_TYPE_APPROVAL_CARD (ow_approval_card_get_type ())
G_DECLARE_FINAL_TYPE (OwApprovalCard, ow_approval_card, OW, APPROVAL_CARD, GtkWidget)

GtkWidget *ow_approval_card_new (const OwInboxItem *item, const char *workspace);

G_END_DECLS
