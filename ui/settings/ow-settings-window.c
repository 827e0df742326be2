/* ow-settings-window.c: the Settings window (see ow-settings-window.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-window-private.h"
#include "ow-settings-io.h"

#include <glib/gi18n-lib.h>

#include "ow-settings-approvals-page.h"
#include "ow-settings-general-page.h"
#include "ow-settings-machines-page.h"
#include "ow-settings-models-page.h"
#include "ow-settings-sandbox-page.h"

struct _OwSettingsWindow
{
  GtkWindow  parent_instance;

  /* template widgets */
  GtkStack  *stack;

  /* owned references */
  OwContext *ctx;
};

G_DEFINE_FINAL_TYPE (OwSettingsWindow, ow_settings_window, GTK_TYPE_WINDOW)

enum { PROP_0, PROP_PAGE, N_PROPS };
static GParamSpec *props[N_PROPS];

enum { SIGNAL_PROVIDERS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const page_names[] = { "models", "sandbox", "approvals", "machines", "general", NULL };

static void
load_css_once (void)
{
  static gsize loaded;

  if (g_once_init_enter (&loaded))
    {
      g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

      gtk_css_provider_load_from_resource (css, "/com/openworker/ui/settings/ow-settings.css");
      gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      g_once_init_leave (&loaded, 1);
    }
}

const char *
ow_settings_window_get_page (OwSettingsWindow *self)
{
  g_return_val_if_fail (OW_IS_SETTINGS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

void
ow_settings_window_set_page (OwSettingsWindow *self, const char *page)
{
  g_return_if_fail (OW_IS_SETTINGS_WINDOW (self));

  if (page == NULL || !g_strv_contains (page_names, page))
    page = page_names[0];
  if (g_strcmp0 (ow_settings_window_get_page (self), page) == 0)
    return;
  gtk_stack_set_visible_child_name (self->stack, page);
}

GtkWidget *
ow_settings_window_get_page_widget (OwSettingsWindow *self, const char *page)
{
  g_return_val_if_fail (OW_IS_SETTINGS_WINDOW (self), NULL);
  return gtk_stack_get_child_by_name (self->stack, page);
}

static void
on_providers_changed_cb (GtkWidget *page, gpointer user_data)
{
  g_signal_emit (user_data, signals[SIGNAL_PROVIDERS_CHANGED], 0);
}

static void
on_visible_child_cb (GtkStack *stack, GParamSpec *pspec, gpointer user_data)
{
  g_object_notify_by_pspec (G_OBJECT (user_data), props[PROP_PAGE]);
}

static void
ow_settings_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_PAGE:
      g_value_set_string (value, ow_settings_window_get_page (OW_SETTINGS_WINDOW (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_settings_window_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_PAGE:
      ow_settings_window_set_page (OW_SETTINGS_WINDOW (object), g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_settings_window_dispose (GObject *object)
{
  OwSettingsWindow *self = OW_SETTINGS_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SETTINGS_WINDOW);
  g_clear_object (&self->ctx);
  G_OBJECT_CLASS (ow_settings_window_parent_class)->dispose (object);
}

static void
ow_settings_window_class_init (OwSettingsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_settings_window_dispose;
  object_class->get_property = ow_settings_window_get_property;
  object_class->set_property = ow_settings_window_set_property;

  props[PROP_PAGE] = g_param_spec_string ("page", NULL, NULL, NULL,
                                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);

  /**
   * OwSettingsWindow::providers-changed:
   *
   * Models & Keys saved or removed a key, or set a local server's
   * address: the models that can run may have changed.
   */
  signals[SIGNAL_PROVIDERS_CHANGED] = g_signal_new ("providers-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 0);

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/settings/ow-settings-window.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSettingsWindow, stack);

  gtk_widget_class_install_property_action (widget_class, "settings.page", "page");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
ow_settings_window_init (OwSettingsWindow *self)
{
  load_css_once ();
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self->stack, "notify::visible-child", G_CALLBACK (on_visible_child_cb), self);
}

GtkWindow *
ow_settings_window_new_for (GtkApplication *application, OwContext *ctx, OwSecretStore *secrets,
                            OwAutostart *autostart, const char *page)
{
  OwSettingsWindow *self;
  GtkWidget *models;

  g_return_val_if_fail (application == NULL || GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_SETTINGS_WINDOW, "application", application, NULL);
  self->ctx = g_object_ref (ctx);
  models = ow_settings_models_page_new (ctx, secrets);
  g_signal_connect_object (models, "providers-changed", G_CALLBACK (on_providers_changed_cb), self, 0);
  gtk_stack_add_titled (self->stack, models, "models", _("Models & Keys"));
  gtk_stack_add_titled (self->stack, ow_settings_sandbox_page_new (ctx), "sandbox", _("Sandbox"));
  gtk_stack_add_titled (self->stack, ow_settings_approvals_page_new (ctx), "approvals", _("Approvals"));
  gtk_stack_add_titled (self->stack, ow_settings_machines_page_new (ctx, secrets), "machines", _("Machines"));
  gtk_stack_add_titled (self->stack, ow_settings_general_page_new (ctx, autostart), "general", _("General"));
  ow_settings_window_set_page (self, page);
  return GTK_WINDOW (self);
}

OwAutostart *
ow_settings_default_autostart (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  const char *argv[] = { exe != NULL ? exe : "openworker-desktop", "--background", NULL };
  OwAutostartSpec spec = {
    .app_id = OW_APPLICATION_ID,
    .name = "OpenWorker",
    .argv = argv,
    .icon = OW_APPLICATION_ID,
  };

  return ow_autostart_new_default (&spec);
}
