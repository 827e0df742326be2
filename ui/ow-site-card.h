/* ow-site-card.h: see ow-ask-card.h. */
#pragma once

#include "ow-ask-card.h"

G_BEGIN_DECLS

#define OW_TYPE_SITE_CARD (ow_site_card_get_type ())
G_DECLARE_FINAL_TYPE (OwSiteCard, ow_site_card, OW, SITE_CARD, GtkWidget)

GtkWidget *ow_site_card_new (const OwInboxItem *item);

G_END_DECLS
