/* ow-card-dock.c: the asks of the shown session (see ow-card-dock.h). */
#define G_LOG_DOMAIN "ow-card-dock"

#include "config-ui.h"
#include "ow-card-dock.h"

#include <glib/gi18n-lib.h>

#include "ow-json.h"

struct _OwCardDock
{
  GtkWidget      parent_instance;

  /* Borrowed: the application's host outlives its windows */
  OwSessionHost *host;

  GtkWidget     *box;        /* the cards, oldest first */
  char          *session_id;
  char          *workspace;
  guint          n_cards;
};

enum {
  PROP_0,
  PROP_N_CARDS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (OwCardDock, ow_card_dock, GTK_TYPE_WIDGET)

static void
set_n_cards (OwCardDock *self, guint n)
{
  if (self->n_cards == n)
    return;
  self->n_cards = n;
  gtk_widget_set_visible (GTK_WIDGET (self), n > 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_CARDS]);
}

static OwAskCard *
find_by (OwCardDock *self, const char *call_id, const char *item_id)
{
  for (GtkWidget *child = gtk_widget_get_first_child (self->box); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      OwAskCard *card = OW_ASK_CARD (child);
      if (call_id != NULL && g_strcmp0 (ow_ask_card_get_call_id (card), call_id) == 0)
        return card;
      if (item_id != NULL && g_strcmp0 (ow_ask_card_get_item_id (card), item_id) == 0)
        return card;
      if (call_id == NULL && item_id == NULL)
        return card;
    }
  return NULL;
}

static void
remove_card (OwCardDock *self, OwAskCard *card)
{
  gboolean had_focus = gtk_widget_get_focus_child (self->box) == GTK_WIDGET (card);

  gtk_box_remove (GTK_BOX (self->box), GTK_WIDGET (card));
  set_n_cards (self, self->n_cards - 1);
  /* Keep the keyboard in the dock while asks remain. */
  if (had_focus)
    ow_card_dock_focus_first (self);
}

static void
on_card_answered_cb (OwAskCard *card, JsonObject *answer, gpointer user_data)
{
  OwCardDock *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = g_strdup (ow_ask_card_get_session_id (card));
  g_autofree char *call_id = g_strdup (ow_ask_card_get_call_id (card));

  /* Gone at once: the engine's approval_resolved follows, and someone who
   * answered first elsewhere has already made the card moot. */
  remove_card (self, card);
  if (!ow_session_host_answer (self->host, session_id, call_id, answer, "desktop", &error)
      && !g_error_matches (error, OW_HOST_ERROR, OW_HOST_ERROR_ANSWERED)
      && !g_error_matches (error, OW_HOST_ERROR, OW_HOST_ERROR_NO_ASK))
    g_message ("The answer could not be given: %s", error->message);
}

static void
add_item (OwCardDock *self, const OwInboxItem *item)
{
  GtkWidget *card;

  if (g_strcmp0 (item->state, "pending") != 0 || find_by (self, item->call_id, NULL) != NULL)
    return;
  card = ow_ask_card_new_for_item (item, self->workspace);
  if (card == NULL)
    return;
  g_signal_connect (card, "answered", G_CALLBACK (on_card_answered_cb), self);
  gtk_box_append (GTK_BOX (self->box), card);
  set_n_cards (self, self->n_cards + 1);
}

static void
clear (OwCardDock *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);
  set_n_cards (self, 0);
}

void
ow_card_dock_set_session (OwCardDock *self, const char *session_id, const char *workspace)
{
  g_autoptr(GPtrArray) items = NULL;
  /* Copied first: the dock refreshes itself with its own strings. */
  g_autofree char *new_id = g_strdup (session_id);
  g_autofree char *new_workspace = g_strdup (workspace);

  g_return_if_fail (OW_IS_CARD_DOCK (self));
  clear (self);
  g_free (self->session_id);
  self->session_id = g_steal_pointer (&new_id);
  g_free (self->workspace);
  self->workspace = g_steal_pointer (&new_workspace);
  session_id = self->session_id;
  if (session_id == NULL)
    return;
  items = ow_inbox_list (ow_session_host_get_inbox (self->host), TRUE, NULL);
  /* Newest first from the inbox; the dock shows them in the order asked. */
  for (guint i = items != NULL ? items->len : 0; i > 0; i--)
    {
      OwInboxItem *item = g_ptr_array_index (items, i - 1);
      if (g_strcmp0 (item->session_id, session_id) == 0)
        add_item (self, item);
    }
}

guint
ow_card_dock_get_n_cards (OwCardDock *self)
{
  return self->n_cards;
}

OwAskCard *
ow_card_dock_find (OwCardDock *self, const char *call_id)
{
  return find_by (self, call_id, NULL);
}

gboolean
ow_card_dock_focus_first (OwCardDock *self)
{
  GtkWidget *first = gtk_widget_get_first_child (self->box);

  return first != NULL && gtk_widget_child_focus (first, GTK_DIR_TAB_FORWARD);
}

static void
on_item_added_cb (OwInbox *inbox, const char *id, gpointer user_data)
{
  OwCardDock *self = user_data;
  g_autoptr(OwInboxItem) item = NULL;

  if (self->session_id == NULL)
    return;
  item = ow_inbox_get (inbox, id, NULL);
  if (item != NULL && g_strcmp0 (item->session_id, self->session_id) == 0)
    add_item (self, item);
}

static void
on_item_resolved_cb (OwInbox *inbox, const char *id, gpointer user_data)
{
  OwCardDock *self = user_data;
  OwAskCard *card = find_by (self, NULL, id);

  if (card != NULL)
    remove_card (self, card);
}

static void
on_session_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  OwCardDock *self = user_data;
  OwAskCard *card;

  if (g_strcmp0 (session_id, self->session_id) != 0)
    return;
  /* Answered anywhere — another process included — or the turn stopped. */
  if (g_str_equal (event->type, "approval_resolved"))
    {
      card = find_by (self, ow_json_get_string (event->data, "call_id"), NULL);
      if (card != NULL)
        remove_card (self, card);
    }
  else if (g_str_equal (event->type, "turn_done"))
    ow_card_dock_set_session (self, self->session_id, self->workspace);
}

static void
ow_card_dock_dispose (GObject *object)
{
  OwCardDock *self = OW_CARD_DOCK (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (ow_card_dock_parent_class)->dispose (object);
}

static void
ow_card_dock_finalize (GObject *object)
{
  OwCardDock *self = OW_CARD_DOCK (object);

  g_free (self->session_id);
  g_free (self->workspace);
  G_OBJECT_CLASS (ow_card_dock_parent_class)->finalize (object);
}

static void
ow_card_dock_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_N_CARDS:
      g_value_set_uint (value, OW_CARD_DOCK (object)->n_cards);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_card_dock_class_init (OwCardDockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_card_dock_dispose;
  object_class->finalize = ow_card_dock_finalize;
  object_class->get_property = ow_card_dock_get_property;
  properties[PROP_N_CARDS] = g_param_spec_uint ("n-cards", NULL, NULL, 0, G_MAXUINT, 0,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owcarddock");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
ow_card_dock_init (OwCardDock *self)
{
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Waiting for you"), -1);
}

GtkWidget *
ow_card_dock_new (OwSessionHost *host)
{
  OwCardDock *self = g_object_new (OW_TYPE_CARD_DOCK, NULL);

  self->host = host;
  g_signal_connect_object (ow_session_host_get_inbox (host), "item-added", G_CALLBACK (on_item_added_cb), self, 0);
  g_signal_connect_object (ow_session_host_get_inbox (host), "item-resolved", G_CALLBACK (on_item_resolved_cb), self, 0);
  g_signal_connect_object (host, "session-event", G_CALLBACK (on_session_event_cb), self, 0);
  return GTK_WIDGET (self);
}
