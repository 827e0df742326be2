/* ow-site-card.c: a site the sandbox's allow list blocks (see ow-ask-card.h). */
#define G_LOG_DOMAIN "ow-site-card"

#include "config-ui.h"
#include "ow-site-card.h"
#include "ow-ui-private.h"

#include <glib/gi18n-lib.h>

#include "ow-json.h"

struct _OwSiteCard
{
  GtkWidget  parent_instance;

  /* Template widgets */
  GtkLabel  *title_label;
  GtkLabel  *site_label;
  GtkLabel  *reason_label;
  GtkButton *once_button;
  GtkButton *session_button;
  GtkButton *always_button;
  GtkButton *deny_button;
};

static void ask_card_iface_init (OwAskCardInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSiteCard, ow_site_card, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_ASK_CARD, ask_card_iface_init))

static void
answer (OwSiteCard *self, const char *decision)
{
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_string_member (obj, "decision", decision);
  ow_ask_card_answer (OW_ASK_CARD (self), obj);
}

static void on_once_clicked_cb (OwSiteCard *self) { answer (self, "once"); }
static void on_session_clicked_cb (OwSiteCard *self) { answer (self, "session"); }
static void on_always_clicked_cb (OwSiteCard *self) { answer (self, "always"); }
static void on_deny_clicked_cb (OwSiteCard *self) { answer (self, "deny"); }

static gboolean
choose (OwAskCard *card, const char *choice)
{
  OwSiteCard *self = OW_SITE_CARD (card);
  GtkButton *button = g_strcmp0 (choice, "once") == 0      ? self->once_button
                      : g_strcmp0 (choice, "session") == 0 ? self->session_button
                      : g_strcmp0 (choice, "always") == 0  ? self->always_button
                      : g_strcmp0 (choice, "deny") == 0    ? self->deny_button
                                                           : NULL;

  if (button == NULL || !gtk_widget_is_sensitive (GTK_WIDGET (button)))
    return FALSE;
  g_signal_emit_by_name (button, "clicked");
  return TRUE;
}

static void
ask_card_iface_init (OwAskCardInterface *iface)
{
  iface->choose = choose;
}

static void
ow_site_card_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), OW_TYPE_SITE_CARD);
  ow_widget_unparent_children (GTK_WIDGET (object));
  G_OBJECT_CLASS (ow_site_card_parent_class)->dispose (object);
}

static void
ow_site_card_class_init (OwSiteCardClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ow_site_card_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-site-card.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSiteCard, title_label);
  gtk_widget_class_bind_template_child (widget_class, OwSiteCard, site_label);
  gtk_widget_class_bind_template_child (widget_class, OwSiteCard, reason_label);
  gtk_widget_class_bind_template_child (widget_class, OwSiteCard, once_button);
  gtk_widget_class_bind_template_child (widget_class, OwSiteCard, session_button);
  gtk_widget_class_bind_template_child (widget_class, OwSiteCard, always_button);
  gtk_widget_class_bind_template_child (widget_class, OwSiteCard, deny_button);
  gtk_widget_class_bind_template_callback (widget_class, on_once_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_session_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_always_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_deny_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owaskcard");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
ow_site_card_init (OwSiteCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ow_site_card_new (const OwInboxItem *item)
{
  OwSiteCard *self = g_object_new (OW_TYPE_SITE_CARD, NULL);
  const char *site = ow_json_get_string (item->data, "site");
  const char *tool = ow_json_get_string (item->data, "tool");
  g_autofree char *title = g_strdup (_("Let this session reach a site?"));

  ow_ask_card_bind_item (OW_ASK_CARD (self), item);
  gtk_label_set_text (self->title_label, title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  gtk_label_set_text (self->site_label, site != NULL ? site : "");
  {
    g_autofree char *reason = g_strdup_printf ("%s%s%s", tool != NULL ? tool : "", item->body != NULL ? " — " : "",
                                               item->body != NULL ? item->body : "");
    gtk_label_set_text (self->reason_label, reason);
  }
  return GTK_WIDGET (self);
}
