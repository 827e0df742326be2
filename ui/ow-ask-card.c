/* ow-ask-card.c: the ask card interface and the factory (see ow-ask-card.h). */
#define G_LOG_DOMAIN "ow-ask-card"

#include "ow-ask-card.h"

#include "ow-approval-card.h"
#include "ow-directory-card.h"
#include "ow-json.h"
#include "ow-question-card.h"
#include "ow-site-card.h"

G_DEFINE_INTERFACE (OwAskCard, ow_ask_card, GTK_TYPE_WIDGET)

enum {
  SIGNAL_ANSWERED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
ow_ask_card_default_init (OwAskCardInterface *iface)
{
  /**
   * OwAskCard::answered:
   * @answer: (transfer none): what the person chose, as
   *   ow_session_host_answer() takes it
   */
  signals[SIGNAL_ANSWERED] =
    g_signal_new ("answered", G_TYPE_FROM_INTERFACE (iface), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                  1, JSON_TYPE_OBJECT);
}

void
ow_ask_card_bind_item (OwAskCard *card, const OwInboxItem *item)
{
  g_object_set_data_full (G_OBJECT (card), "ow-session-id", g_strdup (item->session_id), g_free);
  g_object_set_data_full (G_OBJECT (card), "ow-call-id", g_strdup (item->call_id), g_free);
  g_object_set_data_full (G_OBJECT (card), "ow-item-id", g_strdup (item->id), g_free);
}

const char *
ow_ask_card_get_session_id (OwAskCard *card)
{
  return g_object_get_data (G_OBJECT (card), "ow-session-id");
}

const char *
ow_ask_card_get_call_id (OwAskCard *card)
{
  return g_object_get_data (G_OBJECT (card), "ow-call-id");
}

const char *
ow_ask_card_get_item_id (OwAskCard *card)
{
  return g_object_get_data (G_OBJECT (card), "ow-item-id");
}

void
ow_ask_card_answer (OwAskCard *card, JsonObject *answer)
{
  g_return_if_fail (OW_IS_ASK_CARD (card));

  /* One answer per card: a double click must not send two. */
  if (!gtk_widget_get_sensitive (GTK_WIDGET (card)))
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (card), FALSE);
  g_signal_emit (card, signals[SIGNAL_ANSWERED], 0, answer);
}

gboolean
ow_ask_card_choose (OwAskCard *card, const char *choice)
{
  OwAskCardInterface *iface;

  g_return_val_if_fail (OW_IS_ASK_CARD (card), FALSE);
  iface = OW_ASK_CARD_GET_IFACE (card);
  return iface->choose != NULL && iface->choose (card, choice);
}

GtkWidget *
ow_ask_card_new_for_item (const OwInboxItem *item, const char *workspace)
{
  g_return_val_if_fail (item != NULL, NULL);

  if (g_strcmp0 (item->kind, "approval") == 0)
    {
      if (item->data != NULL && ow_json_get_string (item->data, "site") != NULL)
        return ow_site_card_new (item);
      return ow_approval_card_new (item, workspace);
    }
  if (g_strcmp0 (item->kind, "question") == 0)
    return ow_question_card_new (item);
  if (g_strcmp0 (item->kind, "directory") == 0)
    return ow_directory_card_new (item);
  return NULL;
}
