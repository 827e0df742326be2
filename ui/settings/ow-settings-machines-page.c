/* ow-settings-machines-page.c: Settings ▸ Machines (see ow-settings-machines-page.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-machines-page.h"
#include "ow-settings-io.h"

#include <glib/gi18n-lib.h>

#include "ow-settings-sandbox-page.h"

struct _OwSettingsMachinesPage
{
  AdwPreferencesPage parent_instance;

  /* template widgets */
  AdwPreferencesGroup *facts_group;

  /* borrowed references: the rows of facts_group, in order */
  GPtrArray  *fact_rows;

  /* owned references */
  OwContext  *ctx;
  OwSecretStore *secrets;
  GCancellable *cancellable;
  char       *store_notice;   /* where keys are kept, once known */
  gulong      config_handler;
};

G_DEFINE_FINAL_TYPE (OwSettingsMachinesPage, ow_settings_machines_page, ADW_TYPE_PREFERENCES_PAGE)

/* Sets the fact named @name, making its row the first time: the rows are
 * the group's own, so the window's search finds them. */
static void
set_fact (OwSettingsMachinesPage *self, guint index, const char *name, const char *title, const char *value)
{
  AdwActionRow *row;

  if (index >= self->fact_rows->len)
    {
      GtkWidget *made = adw_action_row_new ();

      gtk_widget_set_name (made, name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (made), FALSE);
      adw_preferences_group_add (self->facts_group, made);
      g_ptr_array_add (self->fact_rows, made);
    }
  row = g_ptr_array_index (self->fact_rows, index);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (row, value);
}

static void
refresh (OwSettingsMachinesPage *self)
{
  const OwPaths *paths = ow_context_get_paths (self->ctx);
  const char *provider = ow_config_get_string (ow_context_get_config (self->ctx), "sandbox_provider");
  g_autofree char *system = g_get_os_info (G_OS_INFO_KEY_PRETTY_NAME);
  const char *store = self->secrets == NULL ? _("No secret store: keys come from the environment only.")
                      : self->store_notice != NULL ? self->store_notice : _("Checking…");
  g_autofree char *folders = g_strdup_printf (_("Settings in %s\nState in %s"), paths->config_dir, paths->state_dir);

  set_fact (self, 0, "name", _("Name"), g_get_host_name ());
  set_fact (self, 1, "system", _("System"), system != NULL ? system : _("Unknown"));
  set_fact (self, 2, "version", _("OpenWorker"), OW_VERSION);
  set_fact (self, 3, "folders", _("Folders"), folders);
  set_fact (self, 4, "keys", _("Keys"), store);
  set_fact (self, 5, "sandbox", _("Sandbox"),
            provider == NULL || g_str_equal (provider, "direct") ? _("None: tools run in OpenWorker’s own process")
                                                                 : ow_sandbox_type_title (provider));
  set_fact (self, 6, "identity", _("Identity"), _("Not made yet"));
}

/* Naming the store may ask D-Bus which keyring answers: not on the main loop. */
static void
describe_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  g_task_return_pointer (task, ow_secret_store_describe (OW_SECRET_STORE (task_data)), g_free);
}

static void
on_described_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autofree char *notice = g_task_propagate_pointer (G_TASK (result), NULL);
  OwSettingsMachinesPage *self;

  if (notice == NULL)
    return;   /* cancelled */
  self = OW_SETTINGS_MACHINES_PAGE (user_data);
  self->store_notice = g_steal_pointer (&notice);
  refresh (self);
}

static void
on_config_changed_cb (OwContext *ctx, gpointer user_data)
{
  refresh (OW_SETTINGS_MACHINES_PAGE (user_data));
}

static void
ow_settings_machines_page_dispose (GObject *object)
{
  OwSettingsMachinesPage *self = OW_SETTINGS_MACHINES_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_signal_handler (&self->config_handler, self->ctx);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SETTINGS_MACHINES_PAGE);
  g_clear_object (&self->ctx);
  g_clear_object (&self->secrets);
  G_OBJECT_CLASS (ow_settings_machines_page_parent_class)->dispose (object);
}

static void
ow_settings_machines_page_finalize (GObject *object)
{
  OwSettingsMachinesPage *self = OW_SETTINGS_MACHINES_PAGE (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->fact_rows, g_ptr_array_unref);
  g_free (self->store_notice);
  G_OBJECT_CLASS (ow_settings_machines_page_parent_class)->finalize (object);
}

static void
ow_settings_machines_page_class_init (OwSettingsMachinesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_settings_machines_page_dispose;
  object_class->finalize = ow_settings_machines_page_finalize;

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/com/openworker/ui/settings/ow-settings-machines-page.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSettingsMachinesPage, facts_group);
}

static void
ow_settings_machines_page_init (OwSettingsMachinesPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->fact_rows = g_ptr_array_new ();
}

GtkWidget *
ow_settings_machines_page_new (OwContext *ctx, OwSecretStore *secrets)
{
  OwSettingsMachinesPage *self;

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_SETTINGS_MACHINES_PAGE, NULL);
  self->ctx = g_object_ref (ctx);
  self->secrets = secrets != NULL ? g_object_ref (secrets) : NULL;
  refresh (self);
  self->config_handler = g_signal_connect (ctx, "config-changed", G_CALLBACK (on_config_changed_cb), self);
  if (secrets != NULL)
    {
      g_autoptr(GTask) task = g_task_new (NULL, self->cancellable, on_described_cb, self);

      g_task_set_task_data (task, g_object_ref (secrets), g_object_unref);
      g_task_run_in_thread (task, describe_in_thread);
    }
  return GTK_WIDGET (self);
}
