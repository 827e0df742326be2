/* ow-credential-dialog.c: a file or folder to share (see ow-credential-dialog.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-credential-dialog.h"
#include "ow-settings-io.h"

#include <glib/gi18n-lib.h>

#include "sandbox/ow-credentials.h"

struct _OwCredentialDialog
{
  GtkWindow     parent_instance;

  /* template widgets */
  GtkEntry     *name_entry;
  GtkLabel     *path_label;
  GtkDropDown  *kind_drop;
  GtkEntry     *hosts_entry;
  GtkEntry     *env_entry;
  GtkLabel     *error_label;

  /* owned */
  char         *path;          /* "~/…" */
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (OwCredentialDialog, ow_credential_dialog, GTK_TYPE_WINDOW)

enum { SIGNAL_ADDED, N_SIGNALS };
static guint signals[N_SIGNALS];

JsonObject *
ow_credential_table_build (const char *name, const char *path, gboolean secret, const char *hosts_text,
                           const char *env, GError **error)
{
  g_autoptr(JsonObject) table = json_object_new ();
  g_autoptr(JsonArray) hosts = json_array_new ();
  g_auto(GStrv) parts = g_strsplit_set (hosts_text != NULL ? hosts_text : "", ", ", -1);

  if (name == NULL || *name == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Give the entry a name."));
      return NULL;
    }
  if (path == NULL || *path == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Choose the file or folder to share."));
      return NULL;
    }
  for (guint i = 0; parts[i] != NULL; i++)
    if (*parts[i] != '\0')
      json_array_add_string_element (hosts, parts[i]);
  json_object_set_string_member (table, "name", name);
  json_object_set_string_member (table, "path", path);
  json_object_set_string_member (table, "kind", secret ? "credential" : "configuration");
  json_object_set_array_member (table, "hosts", g_steal_pointer (&hosts));
  if (env != NULL && *env != '\0')
    json_object_set_string_member (table, "env", env);
  json_object_set_boolean_member (table, "enabled", TRUE);
  return g_steal_pointer (&table);
}

static void
show_error (OwCredentialDialog *self, const char *message)
{
  gtk_label_set_label (self->error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

void
ow_credential_dialog_set_path (OwCredentialDialog *self, const char *path)
{
  const char *home = g_get_home_dir ();
  gsize n = strlen (home);

  g_return_if_fail (OW_IS_CREDENTIAL_DIALOG (self));

  g_free (self->path);
  if (g_str_has_prefix (path, home) && path[n] == '/')
    self->path = g_strconcat ("~", path + n, NULL);
  else
    self->path = g_strdup (path);
  gtk_label_set_label (self->path_label, self->path);
}

static void
on_chosen_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  OwCredentialDialog *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        ow_credential_dialog_set_path (self, path);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
choose_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwCredentialDialog *self = OW_CREDENTIAL_DIALOG (widget);
  gboolean folder = g_variant_get_boolean (parameter);
  GtkFileChooserNative *chooser =
    gtk_file_chooser_native_new (folder ? _("Choose a Folder to Share") : _("Choose a File to Share"),
                                 GTK_WINDOW (self),
                                 folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN,
                                 _("_Choose"), _("_Cancel"));
  g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), home, NULL);
  g_signal_connect (chooser, "response", G_CALLBACK (on_chosen_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* The engine checks the entry as it will read it from config.toml. */
static void
check_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  JsonObject *table = task_data;
  g_autoptr(JsonArray) one = json_array_new ();
  GError *error = NULL;
  g_autoptr(GPtrArray) copies = NULL;

  json_array_add_object_element (one, json_object_ref (table));
  copies = ow_credentials_from_config (one, g_get_home_dir (), NULL, NULL, &error);
  if (copies == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_checked_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  OwCredentialDialog *self;
  JsonObject *table = g_task_get_task_data (G_TASK (result));

  if (!g_task_propagate_boolean (G_TASK (result), &error) && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_CREDENTIAL_DIALOG (user_data);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "credential.add", TRUE);
  if (error != NULL)
    {
      show_error (self, error->message);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_ADDED], 0, table);
  gtk_window_close (GTK_WINDOW (self));
}

static void
add_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwCredentialDialog *self = OW_CREDENTIAL_DIALOG (widget);
  g_autofree char *name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_entry))));
  g_autofree char *env = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->env_entry))));
  g_autoptr(GError) error = NULL;
  JsonObject *table;
  g_autoptr(GTask) task = NULL;

  table = ow_credential_table_build (name, self->path, gtk_drop_down_get_selected (self->kind_drop) == 0,
                                     gtk_editable_get_text (GTK_EDITABLE (self->hosts_entry)), env, &error);
  if (table == NULL)
    {
      show_error (self, error->message);
      return;
    }
  show_error (self, NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "credential.add", FALSE);
  task = g_task_new (NULL, self->cancellable, on_checked_cb, self);
  g_task_set_task_data (task, table, (GDestroyNotify) json_object_unref);
  g_task_run_in_thread (task, check_in_thread);
}

static void
ow_credential_dialog_dispose (GObject *object)
{
  OwCredentialDialog *self = OW_CREDENTIAL_DIALOG (object);

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (object), OW_TYPE_CREDENTIAL_DIALOG);
  G_OBJECT_CLASS (ow_credential_dialog_parent_class)->dispose (object);
}

static void
ow_credential_dialog_finalize (GObject *object)
{
  OwCredentialDialog *self = OW_CREDENTIAL_DIALOG (object);

  g_clear_object (&self->cancellable);
  g_free (self->path);
  G_OBJECT_CLASS (ow_credential_dialog_parent_class)->finalize (object);
}

static void
ow_credential_dialog_class_init (OwCredentialDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_credential_dialog_dispose;
  object_class->finalize = ow_credential_dialog_finalize;

  /**
   * OwCredentialDialog::added:
   * @table: the [[sandbox_credentials]] table, checked
   */
  signals[SIGNAL_ADDED] = g_signal_new ("added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, JSON_TYPE_OBJECT);

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/com/openworker/ui/settings/ow-credential-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, OwCredentialDialog, name_entry);
  gtk_widget_class_bind_template_child (widget_class, OwCredentialDialog, path_label);
  gtk_widget_class_bind_template_child (widget_class, OwCredentialDialog, kind_drop);
  gtk_widget_class_bind_template_child (widget_class, OwCredentialDialog, hosts_entry);
  gtk_widget_class_bind_template_child (widget_class, OwCredentialDialog, env_entry);
  gtk_widget_class_bind_template_child (widget_class, OwCredentialDialog, error_label);

  gtk_widget_class_install_action (widget_class, "credential.choose", "b", choose_activated);
  gtk_widget_class_install_action (widget_class, "credential.add", NULL, add_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ow_credential_dialog_init (OwCredentialDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
}

OwCredentialDialog *
ow_credential_dialog_new (GtkWindow *parent)
{
  return g_object_new (OW_TYPE_CREDENTIAL_DIALOG, "transient-for", parent, NULL);
}
