/* ow-question-card.h: see ow-ask-card.h. */
#pragma once

#include "ow-ask-card.h"

G_BEGIN_DECLS

#define OW_TYPE_QUESTION_CARD (ow_question_card_get_type ())
G_DECLARE_FINAL_TYPE (OwQuestionCard, ow_question_card, OW, QUESTION_CARD, GtkWidget)

GtkWidget *ow_question_card_new (const OwInboxItem *item);

G_END_DECLS
