/* ow-directory-card.c: the agent asks for a folder (see ow-ask-card.h). */
#define G_LOG_DOMAIN "ow-directory-card"

#include "config-ui.h"
#include "ow-directory-card.h"
#include "ow-ui-private.h"

#include <glib/gi18n-lib.h>

#include "ow-json.h"

struct _OwDirectoryCard
{
  GtkWidget  parent_instance;

  /* Template widgets */
  GtkLabel  *title_label;
  GtkLabel  *path_label;
  GtkLabel  *reason_label;
  GtkButton *yes_button;
  GtkButton *readonly_button;
  GtkButton *other_button;
  GtkButton *no_button;

  char      *path;       /* the folder asked for, or NULL */
  gboolean   writable;   /* it asked to write there */
  GtkNativeDialog *chooser;
};

static void ask_card_iface_init (OwAskCardInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwDirectoryCard, ow_directory_card, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_ASK_CARD, ask_card_iface_init))

static void
grant (OwDirectoryCard *self, const char *path, gboolean writable)
{
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_boolean_member (obj, "granted", TRUE);
  json_object_set_string_member (obj, "path", path);
  json_object_set_boolean_member (obj, "writable", writable);
  ow_ask_card_answer (OW_ASK_CARD (self), obj);
}

static void
on_yes_clicked_cb (OwDirectoryCard *self)
{
  if (self->path == NULL)
    return;
  grant (self, self->path, self->writable);
}

static void
on_readonly_clicked_cb (OwDirectoryCard *self)
{
  if (self->path == NULL)
    return;
  grant (self, self->path, FALSE);
}

static void
on_no_clicked_cb (OwDirectoryCard *self)
{
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_boolean_member (obj, "granted", FALSE);
  json_object_set_string_member (obj, "reason", "the person declined");
  ow_ask_card_answer (OW_ASK_CARD (self), obj);
}

static void
on_chooser_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  OwDirectoryCard *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      if (path != NULL)
        grant (self, path, self->writable);
    }
  g_clear_object (&self->chooser);
}

static void
on_other_clicked_cb (OwDirectoryCard *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (self->chooser != NULL)
    return;
  self->chooser = GTK_NATIVE_DIALOG (gtk_file_chooser_native_new (_("Choose a folder for the session"),
                                                                  GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                                  GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                                  _("_Grant access"), _("_Cancel")));
  gtk_native_dialog_set_modal (self->chooser, TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_chooser_response_cb), self);
  gtk_native_dialog_show (self->chooser);
}

static gboolean
choose (OwAskCard *card, const char *choice)
{
  OwDirectoryCard *self = OW_DIRECTORY_CARD (card);
  GtkButton *button = g_strcmp0 (choice, "yes") == 0         ? self->yes_button
                      : g_strcmp0 (choice, "read-only") == 0 ? self->readonly_button
                      : g_strcmp0 (choice, "no") == 0        ? self->no_button
                                                             : NULL;

  if (button == NULL || !gtk_widget_get_visible (GTK_WIDGET (button)) || !gtk_widget_is_sensitive (GTK_WIDGET (button)))
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
ow_directory_card_dispose (GObject *object)
{
  OwDirectoryCard *self = OW_DIRECTORY_CARD (object);

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (self->chooser);
  g_clear_object (&self->chooser);
  gtk_widget_dispose_template (GTK_WIDGET (object), OW_TYPE_DIRECTORY_CARD);
  ow_widget_unparent_children (GTK_WIDGET (object));
  G_OBJECT_CLASS (ow_directory_card_parent_class)->dispose (object);
}

static void
ow_directory_card_finalize (GObject *object)
{
  g_free (OW_DIRECTORY_CARD (object)->path);
  G_OBJECT_CLASS (ow_directory_card_parent_class)->finalize (object);
}

static void
ow_directory_card_class_init (OwDirectoryCardClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ow_directory_card_dispose;
  G_OBJECT_CLASS (klass)->finalize = ow_directory_card_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-directory-card.ui");
  gtk_widget_class_bind_template_child (widget_class, OwDirectoryCard, title_label);
  gtk_widget_class_bind_template_child (widget_class, OwDirectoryCard, path_label);
  gtk_widget_class_bind_template_child (widget_class, OwDirectoryCard, reason_label);
  gtk_widget_class_bind_template_child (widget_class, OwDirectoryCard, yes_button);
  gtk_widget_class_bind_template_child (widget_class, OwDirectoryCard, readonly_button);
  gtk_widget_class_bind_template_child (widget_class, OwDirectoryCard, other_button);
  gtk_widget_class_bind_template_child (widget_class, OwDirectoryCard, no_button);
  gtk_widget_class_bind_template_callback (widget_class, on_yes_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_readonly_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_other_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_no_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owaskcard");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
ow_directory_card_init (OwDirectoryCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ow_directory_card_new (const OwInboxItem *item)
{
  OwDirectoryCard *self = g_object_new (OW_TYPE_DIRECTORY_CARD, NULL);
  const char *path = ow_json_get_string (item->data, "path");
  const char *reason = ow_json_get_string (item->data, "reason");

  ow_ask_card_bind_item (OW_ASK_CARD (self), item);
  self->writable = ow_json_get_bool (item->data, "writable", FALSE);
  self->path = path != NULL && *path != '\0' ? g_strdup (path) : NULL;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_label_get_text (self->title_label), -1);
  gtk_label_set_text (self->path_label, self->path != NULL ? self->path : _("No folder named: choose one."));
  gtk_label_set_text (self->reason_label, reason != NULL ? reason : item->body != NULL ? item->body : "");
  gtk_button_set_label (self->yes_button, self->writable ? _("_Yes, read and write") : _("_Yes"));
  /* Without a named folder the only way to say yes is to pick one. */
  gtk_widget_set_visible (GTK_WIDGET (self->yes_button), self->path != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->readonly_button), self->path != NULL && self->writable);
  return GTK_WIDGET (self);
}
