/* ow-settings-window.c: the Settings window (see ow-settings-window.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-window-private.h"
#include "ow-settings-io.h"

#include <adwaita.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "ow-settings-approvals-page.h"
#include "ow-settings-connectors-page.h"
#include "ow-settings-general-page.h"
#include "ow-settings-machines-page.h"
#include "ow-settings-models-page.h"
#include "ow-settings-sandbox-page.h"

struct _OwSettingsWindow
{
  AdwPreferencesWindow parent_instance;

  /* borrowed references: the window holds its pages */
  GtkWidget *pages[6];

  /* owned: each page's title as the view switcher shows it */
  char      *titles[6];

  /* owned references */
  OwContext *ctx;
};

G_DEFINE_FINAL_TYPE (OwSettingsWindow, ow_settings_window, ADW_TYPE_PREFERENCES_WINDOW)

enum { PROP_0, PROP_PAGE, N_PROPS };
static GParamSpec *props[N_PROPS];

enum { SIGNAL_PROVIDERS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const page_names[] = { "models", "sandbox", "approvals", "connectors", "machines", "general", NULL };

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
  return adw_preferences_window_get_visible_page_name (ADW_PREFERENCES_WINDOW (self));
}

void
ow_settings_window_set_page (OwSettingsWindow *self, const char *page)
{
  g_return_if_fail (OW_IS_SETTINGS_WINDOW (self));

  if (page == NULL || !g_strv_contains (page_names, page))
    page = page_names[0];
  if (g_strcmp0 (ow_settings_window_get_page (self), page) == 0)
    return;
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (self), page);
}

GtkWidget *
ow_settings_window_get_page_widget (OwSettingsWindow *self, const char *page)
{
  g_return_val_if_fail (OW_IS_SETTINGS_WINDOW (self), NULL);
  for (guint i = 0; i < G_N_ELEMENTS (self->pages); i++)
    if (self->pages[i] != NULL && g_strcmp0 (adw_preferences_page_get_name (ADW_PREFERENCES_PAGE (self->pages[i])), page) == 0)
      return self->pages[i];
  return NULL;
}

static void
on_providers_changed_cb (GtkWidget *page, gpointer user_data)
{
  g_signal_emit (user_data, signals[SIGNAL_PROVIDERS_CHANGED], 0);
}

static void
on_visible_page_cb (GObject *window, GParamSpec *pspec, gpointer user_data)
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

/* libadwaita 1.2 puts a page's title, unescaped, into the markup of each
 * search result's subtitle ("Models & Keys → …" is not valid markup, and
 * the subtitle is lost with a warning); later versions escape it. While
 * the search shows (the view switcher, which takes the title as plain
 * text, is hidden then), the pages carry their titles escaped: set on
 * "toggled", which comes before the window's own handler of "active"
 * shows the results. The header's crossfade from the view switcher to
 * the search entry is turned off, so the escaped titles never show. */
static void
on_search_toggled_cb (GtkToggleButton *button, gpointer user_data)
{
  OwSettingsWindow *self = user_data;
  gboolean searching = gtk_toggle_button_get_active (button);

  for (guint i = 0; i < G_N_ELEMENTS (self->pages) && self->pages[i] != NULL; i++)
    {
      g_autofree char *escaped = g_markup_escape_text (self->titles[i], -1);

      adw_preferences_page_set_title (ADW_PREFERENCES_PAGE (self->pages[i]), searching ? escaped : self->titles[i]);
    }
}

/* The header bar's search toggle, found by its icon (1.2 has no API for
 * the search mode), and its search entry. */
static GtkWidget *
find_search_button (GtkWidget *root)
{
  if (GTK_IS_TOGGLE_BUTTON (root) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (root)), "edit-find-symbolic") == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_search_button (c);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_type (GtkWidget *root, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_type (c, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
ow_settings_window_dispose (GObject *object)
{
  OwSettingsWindow *self = OW_SETTINGS_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SETTINGS_WINDOW);
  memset (self->pages, 0, sizeof self->pages);
  for (guint i = 0; i < G_N_ELEMENTS (self->titles); i++)
    g_clear_pointer (&self->titles[i], g_free);
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

  gtk_widget_class_install_property_action (widget_class, "settings.page", "page");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
ow_settings_window_init (OwSettingsWindow *self)
{
  load_css_once ();
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self, "notify::visible-page-name", G_CALLBACK (on_visible_page_cb), self);
  {
    GtkWidget *search = find_search_button (GTK_WIDGET (self));
    GtkWidget *entry = find_type (GTK_WIDGET (self), GTK_TYPE_SEARCH_ENTRY);
    GtkWidget *header_stack = entry != NULL ? gtk_widget_get_ancestor (entry, GTK_TYPE_STACK) : NULL;

    /* 1.2 leaves both without a name a screen reader can say. */
    if (search != NULL)
      gtk_accessible_update_property (GTK_ACCESSIBLE (search), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Search"), -1);
    if (entry != NULL)
      gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Search settings"), -1);
    if (adw_get_major_version () == 1 && adw_get_minor_version () < 3 && search != NULL && header_stack != NULL)
      {
        g_signal_connect (search, "toggled", G_CALLBACK (on_search_toggled_cb), self);
        gtk_stack_set_transition_type (GTK_STACK (header_stack), GTK_STACK_TRANSITION_TYPE_NONE);
      }
  }
}

static void
add_page (OwSettingsWindow *self, GtkWidget *page)
{
  guint i = 0;

  while (self->pages[i] != NULL)
    i++;
  g_assert (i < G_N_ELEMENTS (self->pages));
  self->pages[i] = page;
  self->titles[i] = g_strdup (adw_preferences_page_get_title (ADW_PREFERENCES_PAGE (page)));
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), ADW_PREFERENCES_PAGE (page));
}

GtkWindow *
ow_settings_window_new_for (GtkApplication *application, OwContext *ctx, OwSecretStore *secrets,
                            OwAutostart *autostart, OwSessionHost *host, const char *page)
{
  OwSettingsWindow *self;
  GtkWidget *models;

  g_return_val_if_fail (application == NULL || GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_SETTINGS_WINDOW, "application", application, NULL);
  self->ctx = g_object_ref (ctx);
  models = ow_settings_models_page_new (ctx, secrets);
  g_signal_connect_object (models, "providers-changed", G_CALLBACK (on_providers_changed_cb), self, 0);
  /* Each page names itself, its title and its icon in its template. */
  add_page (self, models);
  add_page (self, ow_settings_sandbox_page_new (ctx));
  add_page (self, ow_settings_approvals_page_new (ctx));
  if (host != NULL)
    add_page (self, ow_settings_connectors_page_new (host));
  add_page (self, ow_settings_machines_page_new (ctx, secrets));
  add_page (self, ow_settings_general_page_new (ctx, autostart));
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
