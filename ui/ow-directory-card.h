/* ow-directory-card.h: see ow-ask-card.h. */
#pragma once

#include "ow-ask-card.h"

G_BEGIN_DECLS

#define OW_TYPE_DIRECTORY_CARD (ow_directory_card_get_type ())
G_DECLARE_FINAL_TYPE (OwDirectoryCard, ow_directory_card, OW, DIRECTORY_CARD, GtkWidget)

GtkWidget *ow_directory_card_new (const OwInboxItem *item);

G_END_DECLS
