/* ow-provider-row.c: one provider's row (see ow-provider-row.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-provider-row.h"
#include "ow-settings-io.h"

#include <glib/gi18n-lib.h>

struct _OwProviderRow
{
  AdwPreferencesRow parent_instance;

  /* template widgets */
  GtkLabel       *title_label;
  GtkLabel       *state_label;
  GtkToggleButton *expand_button;
  GtkWidget      *address_box;
  GtkEntry       *address_entry;
  GtkWidget      *key_entry;
  GtkWidget      *save_button;
  GtkWidget      *remove_button;
  GtkSpinner     *spinner;
  GtkLabel       *message_label;

  /* owned references */
  OwProviderList *list;
  OwProviderItem *item;
};

G_DEFINE_FINAL_TYPE (OwProviderRow, ow_provider_row, ADW_TYPE_PREFERENCES_ROW)

static void
update_actions (OwProviderRow *self)
{
  gboolean busy = ow_provider_item_get_busy (self->item);
  const char *typed = gtk_editable_get_text (GTK_EDITABLE (self->key_entry));

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "row.save-key", !busy && typed != NULL && *typed != '\0');
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "row.remove-key", !busy && ow_provider_item_get_saved (self->item));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "row.test", !busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "row.save-address", !busy);
  gtk_spinner_set_spinning (self->spinner, busy);
}

static void
update_message (OwProviderRow *self)
{
  const char *message = ow_provider_item_get_message (self->item);
  OwMessageKind kind = ow_provider_item_get_message_kind (self->item);

  gtk_label_set_label (self->message_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->message_label), message != NULL && *message != '\0');
  if (kind == OW_MESSAGE_ERROR)
    gtk_widget_add_css_class (GTK_WIDGET (self->message_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->message_label), "error");
  if (kind == OW_MESSAGE_OK)
    gtk_widget_add_css_class (GTK_WIDGET (self->message_label), "ow-ok");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->message_label), "ow-ok");
}

static void
on_item_notify_cb (OwProviderItem *item, GParamSpec *pspec, gpointer user_data)
{
  OwProviderRow *self = user_data;
  const char *name = g_param_spec_get_name (pspec);

  if (g_str_equal (name, "message") || g_str_equal (name, "message-kind"))
    update_message (self);
  else if (g_str_equal (name, "busy") || g_str_equal (name, "saved"))
    update_actions (self);
  else if (g_str_equal (name, "base-url"))
    gtk_editable_set_text (GTK_EDITABLE (self->address_entry),
                           ow_provider_item_get_base_url (item) != NULL ? ow_provider_item_get_base_url (item) : "");
}

static void
on_key_changed_cb (GtkEditable *editable, gpointer user_data)
{
  update_actions (OW_PROVIDER_ROW (user_data));
}

static void
save_key_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwProviderRow *self = OW_PROVIDER_ROW (widget);

  ow_provider_list_save_key (self->list, self->item, gtk_editable_get_text (GTK_EDITABLE (self->key_entry)));
  /* The key now lives in the store only; the field lets go of it. */
  gtk_editable_set_text (GTK_EDITABLE (self->key_entry), "");
}

static void
test_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwProviderRow *self = OW_PROVIDER_ROW (widget);
  const char *address = gtk_editable_get_text (GTK_EDITABLE (self->address_entry));

  ow_provider_list_verify (self->list, self->item, gtk_editable_get_text (GTK_EDITABLE (self->key_entry)),
                           ow_provider_item_get_is_local (self->item) ? address : NULL);
}

static void
remove_key_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwProviderRow *self = OW_PROVIDER_ROW (widget);

  ow_provider_list_remove_key (self->list, self->item);
}

static void
save_address_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwProviderRow *self = OW_PROVIDER_ROW (widget);

  ow_provider_list_set_base_url (self->list, self->item, gtk_editable_get_text (GTK_EDITABLE (self->address_entry)));
}

static void
ow_provider_row_dispose (GObject *object)
{
  OwProviderRow *self = OW_PROVIDER_ROW (object);

  if (self->item != NULL)
    g_signal_handlers_disconnect_by_data (self->item, self);
  g_clear_object (&self->item);
  g_clear_object (&self->list);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_PROVIDER_ROW);
  G_OBJECT_CLASS (ow_provider_row_parent_class)->dispose (object);
}

static void
ow_provider_row_class_init (OwProviderRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_provider_row_dispose;

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/settings/ow-provider-row.ui");
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, state_label);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, expand_button);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, address_box);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, address_entry);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, key_entry);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, save_button);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, remove_button);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, spinner);
  gtk_widget_class_bind_template_child (widget_class, OwProviderRow, message_label);

  gtk_widget_class_install_action (widget_class, "row.save-key", NULL, save_key_activated);
  gtk_widget_class_install_action (widget_class, "row.test", NULL, test_activated);
  gtk_widget_class_install_action (widget_class, "row.remove-key", NULL, remove_key_activated);
  gtk_widget_class_install_action (widget_class, "row.save-address", NULL, save_address_activated);
}

static void
ow_provider_row_init (OwProviderRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ow_provider_row_new (OwProviderList *list, OwProviderItem *item)
{
  OwProviderRow *self = g_object_new (OW_TYPE_PROVIDER_ROW, NULL);
  const OwProviderEntry *entry = ow_provider_item_get_entry (item);
  gboolean takes_key = entry->key_env != NULL;
  gboolean local = ow_provider_item_get_is_local (item);
  g_autofree char *manage = NULL;

  self->list = g_object_ref (list);
  self->item = g_object_ref (item);
  gtk_widget_set_name (GTK_WIDGET (self), entry->id);
  g_object_bind_property (item, "title", self->title_label, "label", G_BINDING_SYNC_CREATE);
  g_object_bind_property (item, "title", self, "title", G_BINDING_SYNC_CREATE);
  g_object_bind_property (item, "state-label", self->state_label, "label", G_BINDING_SYNC_CREATE);
  /* TRANSLATORS: the accessible name of a provider's Manage button; %s is the provider */
  manage = g_strdup_printf (_("Manage %s"), entry->title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->expand_button), GTK_ACCESSIBLE_PROPERTY_LABEL, manage, -1);

  gtk_widget_set_visible (self->address_box, local);
  gtk_entry_set_placeholder_text (self->address_entry, entry->base_url);
  gtk_editable_set_text (GTK_EDITABLE (self->address_entry),
                         ow_provider_item_get_base_url (item) != NULL ? ow_provider_item_get_base_url (item) : "");
  gtk_widget_set_visible (self->key_entry, takes_key);
  gtk_widget_set_visible (self->save_button, takes_key);
  gtk_widget_set_visible (self->remove_button, takes_key);

  g_signal_connect (item, "notify", G_CALLBACK (on_item_notify_cb), self);
  g_signal_connect (self->key_entry, "changed", G_CALLBACK (on_key_changed_cb), self);
  update_actions (self);
  update_message (self);
  return GTK_WIDGET (self);
}

OwProviderItem *
ow_provider_row_get_item (OwProviderRow *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ROW (self), NULL);
  return self->item;
}

void
ow_provider_row_set_expanded (OwProviderRow *self, gboolean expanded)
{
  g_return_if_fail (OW_IS_PROVIDER_ROW (self));
  gtk_toggle_button_set_active (self->expand_button, expanded);
}
