/* ow-settings-general-page.c: Settings ▸ General (see ow-settings-general-page.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-general-page.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ow-appearance.h"
#include "ow-settings-io.h"

struct _OwSettingsGeneralPage
{
  AdwPreferencesPage parent_instance;

  /* template widgets */
  AdwActionRow *scratch_row;
  GtkSwitch    *background_switch;
  GtkSwitch    *login_switch;
  AdwActionRow *login_row;
  GtkDropDown  *appearance_dropdown;
  GtkLabel     *message_label;

  /* owned references */
  OwContext    *ctx;
  OwAutostart  *autostart;    /* may be NULL */
  GCancellable *cancellable;

  /* state */
  gboolean      updating;
  gulong        config_handler;
};

G_DEFINE_FINAL_TYPE (OwSettingsGeneralPage, ow_settings_general_page, ADW_TYPE_PREFERENCES_PAGE)

gboolean
ow_settings_get_run_in_background (OwContext *ctx)
{
  gboolean on = FALSE;

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), FALSE);
  ow_config_get_bool (ow_context_get_config (ctx), "desktop.run_in_background", &on);
  return on;
}

char *
ow_settings_display_path (const char *path)
{
  const char *home = g_get_home_dir ();
  gsize n = strlen (home);

  if (n > 1 && g_str_has_prefix (path, home) && (path[n] == '/' || path[n] == '\0'))
    return g_strconcat ("~", path + n, NULL);
  return g_strdup (path);
}

static void
say (OwSettingsGeneralPage *self, const char *message)
{
  gtk_label_set_label (self->message_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->message_label), message != NULL);
}

static void
refresh_from_config (OwSettingsGeneralPage *self)
{
  g_autofree char *scratch = ow_context_dup_scratch_dir (self->ctx);
  g_autofree char *shown = ow_settings_display_path (scratch);
  gboolean custom = ow_config_get_string (ow_context_get_config (self->ctx), "scratch_dir") != NULL;

  self->updating = TRUE;
  adw_action_row_set_subtitle (self->scratch_row, shown);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "general.default-scratch", custom);
  gtk_switch_set_active (self->background_switch, ow_settings_get_run_in_background (self->ctx));
  gtk_drop_down_set_selected (self->appearance_dropdown, ow_appearance_get (self->ctx));
  self->updating = FALSE;
}

static void
on_config_changed_cb (OwContext *ctx, gpointer user_data)
{
  refresh_from_config (OW_SETTINGS_GENERAL_PAGE (user_data));
}

static void
on_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;

  if (ow_settings_config_set_finish (OW_CONTEXT (source), result, &error)
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  say (OW_SETTINGS_GENERAL_PAGE (user_data), error->message);
}

/* ---- Scratch folder ------------------------------------------------------------ */

static void
on_scratch_chosen_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  OwSettingsGeneralPage *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;

      if (path != NULL)
        {
          /* Kept as "~/…" under home, so the file reads well and moves with the home. */
          g_autofree char *kept = ow_settings_display_path (path);
          g_autoptr(JsonNode) value = ow_settings_node_string (kept);

          ow_settings_config_set_async (self->ctx, "scratch_dir", value, self->cancellable, on_written_cb, self);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
choose_scratch_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsGeneralPage *self = OW_SETTINGS_GENERAL_PAGE (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkFileChooserNative *chooser =
    gtk_file_chooser_native_new (_("Choose the Scratch Folder"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                 GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Choose"), _("_Cancel"));

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (on_scratch_chosen_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
default_scratch_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsGeneralPage *self = OW_SETTINGS_GENERAL_PAGE (widget);

  ow_settings_config_set_async (self->ctx, "scratch_dir", NULL, self->cancellable, on_written_cb, self);
}

/* ---- Background and login ------------------------------------------------------- */

static void
on_background_cb (GtkSwitch *sw, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsGeneralPage *self = user_data;
  g_autoptr(JsonNode) value = NULL;

  if (self->updating)
    return;
  value = ow_settings_node_bool (gtk_switch_get_active (sw));
  ow_settings_config_set_async (self->ctx, "desktop.run_in_background", value, self->cancellable, on_written_cb, self);
}

static gboolean
set_autostart (gpointer data, GCancellable *cancellable, GError **error)
{
  OwAutostart *autostart = g_object_get_data (G_OBJECT (data), "ow-autostart");
  gboolean on = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (data), "ow-on"));

  return ow_autostart_set_enabled (autostart, on, error);
}

static void
on_autostart_set_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  OwSettingsGeneralPage *self;

  if (!ow_settings_io_run_finish (result, &error) && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_SETTINGS_GENERAL_PAGE (user_data);
  say (self, error != NULL ? error->message : NULL);
  self->updating = TRUE;
  gtk_switch_set_active (self->login_switch, ow_autostart_is_enabled (self->autostart));
  self->updating = FALSE;
}

static void
on_login_cb (GtkSwitch *sw, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsGeneralPage *self = user_data;
  GObject *job;

  if (self->updating || self->autostart == NULL)
    return;
  /* The job carries what to do into the worker thread. */
  job = g_object_new (G_TYPE_OBJECT, NULL);
  g_object_set_data_full (job, "ow-autostart", g_object_ref (self->autostart), g_object_unref);
  g_object_set_data (job, "ow-on", GINT_TO_POINTER (gtk_switch_get_active (sw)));
  ow_settings_io_run_async (NULL, set_autostart, job, g_object_unref, self->cancellable, on_autostart_set_cb, self);
}

/* The choice shows at once; the config keeps it for the next start. */
static void
on_appearance_cb (GtkDropDown *dropdown, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsGeneralPage *self = user_data;
  OwAppearance appearance = gtk_drop_down_get_selected (dropdown);
  g_autoptr(JsonNode) value = NULL;

  if (self->updating || appearance > OW_APPEARANCE_DARK)
    return;
  ow_appearance_apply (appearance);
  value = ow_settings_node_string (ow_appearance_to_string (appearance));
  ow_settings_config_set_async (self->ctx, OW_APPEARANCE_KEY, value, self->cancellable, on_written_cb, self);
}

/* ---- GObject ----------------------------------------------------------------------- */

static void
ow_settings_general_page_dispose (GObject *object)
{
  OwSettingsGeneralPage *self = OW_SETTINGS_GENERAL_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_signal_handler (&self->config_handler, self->ctx);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SETTINGS_GENERAL_PAGE);
  g_clear_object (&self->ctx);
  g_clear_object (&self->autostart);
  G_OBJECT_CLASS (ow_settings_general_page_parent_class)->dispose (object);
}

static void
ow_settings_general_page_finalize (GObject *object)
{
  g_clear_object (&OW_SETTINGS_GENERAL_PAGE (object)->cancellable);
  G_OBJECT_CLASS (ow_settings_general_page_parent_class)->finalize (object);
}

static void
ow_settings_general_page_class_init (OwSettingsGeneralPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_settings_general_page_dispose;
  object_class->finalize = ow_settings_general_page_finalize;

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/com/openworker/ui/settings/ow-settings-general-page.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSettingsGeneralPage, scratch_row);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsGeneralPage, background_switch);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsGeneralPage, login_switch);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsGeneralPage, login_row);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsGeneralPage, appearance_dropdown);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsGeneralPage, message_label);

  gtk_widget_class_install_action (widget_class, "general.choose-scratch", NULL, choose_scratch_activated);
  gtk_widget_class_install_action (widget_class, "general.default-scratch", NULL, default_scratch_activated);
}

static void
ow_settings_general_page_init (OwSettingsGeneralPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
}

GtkWidget *
ow_settings_general_page_new (OwContext *ctx, OwAutostart *autostart)
{
  OwSettingsGeneralPage *self;

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_SETTINGS_GENERAL_PAGE, NULL);
  self->ctx = g_object_ref (ctx);
  self->autostart = autostart != NULL ? g_object_ref (autostart) : NULL;
  refresh_from_config (self);
  if (autostart != NULL)
    {
      g_autofree char *where = ow_autostart_describe (autostart);
      /* TRANSLATORS: %s is the autostart entry's path */
      g_autofree char *detail = g_strdup_printf (_("OpenWorker starts in the background when you log in (%s)."),
                                                 where);

      adw_action_row_set_subtitle (self->login_row, detail);
      gtk_switch_set_active (self->login_switch, ow_autostart_is_enabled (autostart));
    }
  else
    {
      adw_action_row_set_subtitle (self->login_row, _("Not available on this system."));
      gtk_widget_set_sensitive (GTK_WIDGET (self->login_switch), FALSE);
    }
  g_signal_connect (self->background_switch, "notify::active", G_CALLBACK (on_background_cb), self);
  g_signal_connect (self->login_switch, "notify::active", G_CALLBACK (on_login_cb), self);
  g_signal_connect (self->appearance_dropdown, "notify::selected", G_CALLBACK (on_appearance_cb), self);
  self->config_handler = g_signal_connect (ctx, "config-changed", G_CALLBACK (on_config_changed_cb), self);
  return GTK_WIDGET (self);
}
