/* ow-application.c: the desktop application (see ow-application.h).
 *
 * Start-up (primary instance only): the GResource, the style sheet, the
 * engine — context, session host — and the loopback server, then the
 * plug-ins (tray, notifier). The saved keys are listed off the main loop
 * (the keyring answers over D-Bus); until they are known the window shows
 * what it can, and when none is there Settings opens on Models & Keys.
 */
#define G_LOG_DOMAIN "ow-application"

#include "config-ui.h"
#include "ow-application.h"

#include <glib/gi18n-lib.h>

#include "core/ow-model-choices.h"
#include "ow-redact.h"
#include "ow-ui-resources.h"
#include "ow-window.h"
#include "ow-web-module.h"
#include "settings/ow-settings-window.h"

#include "settings/ow-appearance.h"
#include "tray/ow-tray.h"
#include "notify/ow-notifier.h"

struct _OwApplication
{
  AdwApplication  parent_instance;

  /* How we were asked to start (copied) */
  OwPaths        *paths;
  OwSecretStore  *secrets;
  gboolean        isolated;
  gboolean        no_server;
  guint           server_port;
  gboolean        any_port;
  gboolean        skip_first_run;

  /* The engine (owned) */
  OwContext      *ctx;
  OwSessionHost  *host;
  OwServer       *server;
  GError         *startup_error;

  /* Model readiness */
  GStrv           stored_keys;     /* provider ids with a saved key */
  GPtrArray      *choices;         /* OwModelChoice* */
  gboolean        keys_known;      /* the store answered at least once */
  gboolean        first_run_done;  /* Settings was opened (or not needed) */
  GCancellable   *cancellable;

  gboolean        shut_down;       /* the engine and GTK's side are closed */
  gboolean        run_in_background;
  guint           inbox_count;
  GObject        *tray;            /* the tray item, when built */
  GObject        *notifier;        /* the notifier, when built */
  GtkWindow      *settings;        /* the one Settings window while open (weak) */
  GtkWindow      *about;           /* the About window while open (weak) */
};

enum {
  PROP_0,
  PROP_MODEL_READY,
  PROP_RUN_IN_BACKGROUND,
  PROP_INBOX_COUNT,
  N_PROPS
};

enum {
  SIGNAL_MODELS_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwApplication, ow_application, ADW_TYPE_APPLICATION)

/* ---- Model readiness ------------------------------------------------------ */

static void
update_choices (OwApplication *self)
{
  gboolean was_ready = ow_application_get_model_ready (self);

  g_clear_pointer (&self->choices, g_ptr_array_unref);
  if (self->ctx != NULL)
    self->choices = ow_model_choices_list (self->ctx, (const char *const *) self->stored_keys);
  else
    self->choices = g_ptr_array_new ();
  if (was_ready != ow_application_get_model_ready (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL_READY]);
  g_signal_emit (self, signals[SIGNAL_MODELS_CHANGED], 0);
}

static void
maybe_open_models (OwApplication *self)
{
  if (self->first_run_done || !self->keys_known || self->skip_first_run)
    return;
  self->first_run_done = TRUE;
  if (!ow_application_get_model_ready (self) && self->ctx != NULL)
    g_action_group_activate_action (G_ACTION_GROUP (self), "settings", g_variant_new_string ("models"));
}

static void
on_keys_listed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OwApplication *self = user_data;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = ow_secret_store_list_finish (OW_SECRET_STORE (source), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_object_unref (self);
      return;
    }
  if (names == NULL && error != NULL)
    g_message ("The saved model keys could not be listed: %s", error->message);
  g_strfreev (self->stored_keys);
  self->stored_keys = g_steal_pointer (&names);
  self->keys_known = TRUE;
  update_choices (self);
  maybe_open_models (self);
  g_object_unref (self);
}

void
ow_application_refresh_models (OwApplication *self)
{
  OwSecretStore *store;

  g_return_if_fail (OW_IS_APPLICATION (self));
  store = self->ctx != NULL ? ow_context_get_secrets (self->ctx) : NULL;
  if (store == NULL)
    {
      self->keys_known = TRUE;
      update_choices (self);
      maybe_open_models (self);
      return;
    }
  ow_secret_store_list_async (store, OW_SECRET_KIND_PROVIDER, self->cancellable, on_keys_listed_cb,
                              g_object_ref (self));
}

GPtrArray *
ow_application_get_model_choices (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), NULL);
  if (self->choices == NULL)
    update_choices (self);
  return self->choices;
}

gboolean
ow_application_get_model_ready (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), FALSE);
  return self->choices != NULL && self->choices->len > 0;
}

/* ---- The inbox count -------------------------------------------------------- */

static void
update_inbox_count (OwApplication *self)
{
  g_autoptr(GPtrArray) pending = NULL;
  guint n;

  if (self->host == NULL)
    return;
  pending = ow_inbox_list (ow_session_host_get_inbox (self->host), TRUE, NULL);
  n = pending != NULL ? pending->len : 0;
  if (n == self->inbox_count)
    return;
  self->inbox_count = n;
  if (self->tray != NULL)
    ow_tray_set_inbox_count (OW_TRAY (self->tray), n);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INBOX_COUNT]);
}

static void
on_inbox_changed_cb (OwInbox *inbox, const char *id, gpointer user_data)
{
  update_inbox_count (user_data);
}

static void
on_host_session_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  /* An ask answered from another process is noticed when its turn goes on. */
  if (g_str_equal (event->type, "approval_resolved") || g_str_equal (event->type, "turn_done"))
    update_inbox_count (user_data);
}

/* ---- Actions ------------------------------------------------------------------ */

static OwWindow *
main_window (OwApplication *self)
{
  return OW_WINDOW (ow_application_get_main_window (self));
}

GtkWindow *
ow_application_get_main_window (OwApplication *self)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (self));

  for (GList *l = windows; l != NULL; l = l->next)
    if (OW_IS_WINDOW (l->data))
      return l->data;
  return GTK_WINDOW (ow_window_new (self));
}

static void
present (OwApplication *self)
{
  GtkWindow *window = GTK_WINDOW (main_window (self));

  gtk_window_present (window);
}

static void
action_present (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  present (user_data);
}

static void
action_new_session (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  OwApplication *self = user_data;

  present (self);
  ow_window_new_session (main_window (self), NULL);
}

static void
action_inbox (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  OwApplication *self = user_data;

  present (self);
  ow_window_show_inbox (main_window (self));
}

static void
action_open_session (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  OwApplication *self = user_data;

  present (self);
  ow_window_open_session (main_window (self), g_variant_get_string (param, NULL));
}

/* One Settings window: asking again brings it forward on the page asked for. */
static void
action_settings (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  OwApplication *self = user_data;
  const char *page = param != NULL ? g_variant_get_string (param, NULL) : "";
  GtkWindow *parent = GTK_WINDOW (main_window (self));

  if (self->settings == NULL)
    {
      self->settings = ow_settings_window_new (self, *page != '\0' ? page : NULL);
      if (self->settings == NULL)
        return;
      g_object_add_weak_pointer (G_OBJECT (self->settings), (gpointer *) &self->settings);
    }
  else if (*page != '\0')
    ow_settings_window_set_page (OW_SETTINGS_WINDOW (self->settings), page);
  if (gtk_widget_get_visible (GTK_WIDGET (parent)))
    gtk_window_set_transient_for (self->settings, parent);
  gtk_window_present (self->settings);
}

/* GTK 4.8's About window leaves the text views of its License and System
 * pages without a name; each gets the title of the page it is on. */
static void
name_text_views (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_TEXT_VIEW (child))
        {
          for (GtkWidget *up = child; up != NULL; up = gtk_widget_get_parent (up))
            {
              GtkWidget *parent = gtk_widget_get_parent (up);
              const char *title;

              if (!GTK_IS_STACK (parent))
                continue;
              title = gtk_stack_page_get_title (gtk_stack_get_page (GTK_STACK (parent), up));
              if (title != NULL)
                gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
              break;
            }
        }
      name_text_views (child);
    }
}

static void
action_about (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  OwApplication *self = user_data;
  const char *authors[] = { "OpenWorker contributors", NULL };

  if (self->about == NULL)
    {
      self->about = g_object_new (GTK_TYPE_ABOUT_DIALOG,
                                  "transient-for", main_window (self),
                                  "hide-on-close", FALSE,
                                  "program-name", "OpenWorker",
                                  "logo-icon-name", OW_APPLICATION_ID,
                                  "version", OW_VERSION,
                                  "comments", _("A local-first AI coworker"),
                                  "license-type", GTK_LICENSE_MIT_X11,
                                  "authors", authors,
                                  NULL);
      g_object_add_weak_pointer (G_OBJECT (self->about), (gpointer *) &self->about);
      name_text_views (GTK_WIDGET (self->about));
    }
  gtk_window_present (self->about);
}

static gpointer
ref_window (gconstpointer window, gpointer unused)
{
  return g_object_ref ((gpointer) window);
}

static void
action_quit (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  OwApplication *self = user_data;
  /* Held: destroying one window can take others with it (the dialogs
   * that are transient for it). */
  GList *windows = g_list_copy_deep (gtk_application_get_windows (GTK_APPLICATION (self)), ref_window, NULL);

  /* Closing for real: the run-in-background choice is about the window's
   * close button, not about Quit. */
  for (GList *l = windows; l != NULL; l = l->next)
    {
      if (OW_IS_WINDOW (l->data))
        ow_window_finish_pending (l->data);
      gtk_window_destroy (l->data);
    }
  g_list_free_full (windows, g_object_unref);
  g_application_quit (G_APPLICATION (self));
}

static const GActionEntry app_actions[] = {
  { "present", action_present, NULL, NULL, NULL },
  { "new-session", action_new_session, NULL, NULL, NULL },
  { "inbox", action_inbox, NULL, NULL, NULL },
  { "open-session", action_open_session, "s", NULL, NULL },
  { "settings", action_settings, "s", NULL, NULL },
  { "about", action_about, NULL, NULL, NULL },
  { "quit", action_quit, NULL, NULL, NULL },
};

/* ---- Life cycle -------------------------------------------------------------- */

/* [desktop] run_in_background in config.toml, which the General page
 * writes; read again whenever the settings are. */
static void
read_desktop_config (OwApplication *self)
{
  gboolean run = FALSE;

  if (self->ctx != NULL && ow_config_get_bool (ow_context_get_config (self->ctx), "desktop.run_in_background", &run))
    ow_application_set_run_in_background (self, run);
  /* Light, Dark or the system's (Settings ▸ General). */
  if (self->ctx != NULL)
    ow_appearance_apply (ow_appearance_get (self->ctx));
}

static void
on_config_changed_cb (OwContext *ctx, gpointer user_data)
{
  OwApplication *self = user_data;

  read_desktop_config (self);
  update_choices (self);
}

static void
start_engine (OwApplication *self)
{
  OwContextOptions ctx_options = { 0 };
  g_autoptr(GError) error = NULL;

  if (self->paths == NULL)
    self->paths = ow_paths_new_default ();
  if (self->secrets == NULL && !self->isolated)
    self->secrets = ow_secret_store_new_default (self->paths);
  ctx_options.paths = self->paths;
  ctx_options.isolated = self->isolated;
  ctx_options.secrets = self->secrets;
  self->ctx = ow_context_new (&ctx_options, &error);
  if (self->ctx == NULL)
    {
      g_prefix_error (&error, _("OpenWorker could not open its state folder: "));
      self->startup_error = g_steal_pointer (&error);
      return;
    }
  self->host = ow_session_host_new (self->ctx, "desktop", &error);
  if (self->host == NULL)
    {
      g_prefix_error (&error, _("OpenWorker could not read its settings: "));
      self->startup_error = g_steal_pointer (&error);
      g_clear_object (&self->ctx);
      return;
    }
  g_signal_connect_object (ow_session_host_get_inbox (self->host), "item-added", G_CALLBACK (on_inbox_changed_cb),
                           self, 0);
  g_signal_connect_object (ow_session_host_get_inbox (self->host), "item-resolved",
                           G_CALLBACK (on_inbox_changed_cb), self, 0);
  g_signal_connect_object (self->host, "session-event", G_CALLBACK (on_host_session_event_cb), self, 0);
  g_signal_connect_object (self->ctx, "config-changed", G_CALLBACK (on_config_changed_cb), self, 0);
  read_desktop_config (self);

  if (!self->no_server)
    {
      /* The token lives in memory only: the desktop never writes it to a
       * file, and it is redacted from every log line. */
      OwServerOptions server_options = { .secrets = self->secrets };
      guint port = self->any_port ? 0 : self->server_port != 0 ? self->server_port : OW_SERVER_DEFAULT_PORT;

      self->server = ow_server_new (self->host, &server_options);
      ow_redact_register_secret (ow_server_get_token (self->server));
      if (!ow_server_listen (self->server, port, port == 0 ? 1 : 20, &error))
        {
          /* The app works without the browser API; say why it is missing. */
          g_message ("The loopback API is not available: %s", error->message);
          g_clear_object (&self->server);
        }
    }
}

static void
ow_application_startup (GApplication *app)
{
  OwApplication *self = OW_APPLICATION (app);
  g_autoptr(GtkCssProvider) css = NULL;
  const char *accels_new[] = { "<Primary>n", NULL };
  const char *accels_quit[] = { "<Primary>q", NULL };
  const char *accels_inbox[] = { "<Primary>i", NULL };
  const char *accels_settings[] = { "<Primary>comma", NULL };

  /* Before GTK's start-up, which looks under the base path for
   * gtk/help-overlay.ui (win.show-help-overlay) and gtk/menus.ui. */
  g_resources_register (ow_ui_get_resource ());
  g_application_set_resource_base_path (app, "/com/openworker/ui");
  G_APPLICATION_CLASS (ow_application_parent_class)->startup (app);
  ow_web_software_settled ();

  gtk_window_set_default_icon_name (OW_APPLICATION_ID);

  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/com/openworker/ui/ow-style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.new-session", accels_new);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", accels_quit);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.inbox", accels_inbox);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.settings('')", accels_settings);

  self->cancellable = g_cancellable_new ();
  start_engine (self);
  update_inbox_count (self);

  if (self->host != NULL)
    {
      self->notifier = G_OBJECT (ow_notifier_new (GTK_APPLICATION (self), self->host));
      self->tray = G_OBJECT (ow_tray_new (app, OW_APPLICATION_ID));
      ow_tray_set_inbox_count (OW_TRAY (self->tray), self->inbox_count);
    }
}

static void
ow_application_activate (GApplication *app)
{
  OwApplication *self = OW_APPLICATION (app);

  present (self);
  if (!self->keys_known)
    ow_application_refresh_models (self);
}

/* A folder given on the command line (or by a second launch) opens a new
 * session there. */
static void
ow_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  OwApplication *self = OW_APPLICATION (app);

  present (self);
  for (int i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);

      if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          ow_window_show_message (main_window (self), _("OpenWorker opens folders, not files"),
                                  path != NULL ? path : g_file_peek_path (files[i]));
          continue;
        }
      ow_window_new_session_in (main_window (self), path);
    }
  if (!self->keys_known)
    ow_application_refresh_models (self);
}

static void
close_engine (OwApplication *self)
{
  g_cancellable_cancel (self->cancellable);
  /* The plug-ins hold the application, and D-Bus calls in flight may hold
   * them: dispose them now so every reference goes. */
  if (self->tray != NULL)
    g_object_run_dispose (self->tray);
  if (self->notifier != NULL)
    g_object_run_dispose (self->notifier);
  g_clear_object (&self->tray);
  g_clear_object (&self->notifier);
  if (self->server != NULL)
    ow_server_close (self->server);
  g_clear_object (&self->server);
  g_clear_object (&self->host);
}

void
ow_application_close (OwApplication *self)
{
  g_return_if_fail (OW_IS_APPLICATION (self));

  /* Without g_application_run() nothing emits ::shutdown, and GTK's own
   * start-up (the "app" action group in its muxer) holds a reference to
   * the application until it does: run the same shutdown as a quit. */
  if (!self->shut_down && g_application_get_is_registered (G_APPLICATION (self))
      && !g_application_get_is_remote (G_APPLICATION (self)))
    g_signal_emit_by_name (self, "shutdown");
  else
    close_engine (self);
}

static void
ow_application_shutdown (GApplication *app)
{
  OwApplication *self = OW_APPLICATION (app);

  self->shut_down = TRUE;
  close_engine (self);
  G_APPLICATION_CLASS (ow_application_parent_class)->shutdown (app);
}

static void
ow_application_finalize (GObject *object)
{
  OwApplication *self = OW_APPLICATION (object);

  if (self->settings != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->settings), (gpointer *) &self->settings);
  if (self->about != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->about), (gpointer *) &self->about);
  g_clear_object (&self->tray);
  g_clear_object (&self->notifier);
  g_clear_object (&self->server);
  g_clear_object (&self->host);
  g_clear_object (&self->ctx);
  g_clear_object (&self->secrets);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->paths, ow_paths_free);
  g_clear_pointer (&self->choices, g_ptr_array_unref);
  g_clear_pointer (&self->stored_keys, g_strfreev);
  g_clear_error (&self->startup_error);
  G_OBJECT_CLASS (ow_application_parent_class)->finalize (object);
}

static void
ow_application_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwApplication *self = OW_APPLICATION (object);

  switch (prop_id)
    {
    case PROP_MODEL_READY:
      g_value_set_boolean (value, ow_application_get_model_ready (self));
      break;
    case PROP_RUN_IN_BACKGROUND:
      g_value_set_boolean (value, self->run_in_background);
      break;
    case PROP_INBOX_COUNT:
      g_value_set_uint (value, self->inbox_count);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_application_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  OwApplication *self = OW_APPLICATION (object);

  switch (prop_id)
    {
    case PROP_RUN_IN_BACKGROUND:
      ow_application_set_run_in_background (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_application_class_init (OwApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = ow_application_finalize;
  object_class->get_property = ow_application_get_property;
  object_class->set_property = ow_application_set_property;
  app_class->startup = ow_application_startup;
  app_class->activate = ow_application_activate;
  app_class->open = ow_application_open;
  app_class->shutdown = ow_application_shutdown;

  properties[PROP_MODEL_READY] =
    g_param_spec_boolean ("model-ready", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_RUN_IN_BACKGROUND] =
    g_param_spec_boolean ("run-in-background", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_INBOX_COUNT] =
    g_param_spec_uint ("inbox-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * OwApplication::models-changed:
   *
   * The models that can run here were listed again.
   */
  signals[SIGNAL_MODELS_CHANGED] =
    g_signal_new ("models-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
ow_application_init (OwApplication *self)
{
}

OwApplication *
ow_application_new (const OwApplicationOptions *options)
{
  OwApplicationOptions defaults = { 0 };
  OwApplication *self;

  if (options == NULL)
    options = &defaults;
  self = g_object_new (OW_TYPE_APPLICATION,
                       "application-id", options->application_id != NULL ? options->application_id : OW_APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | options->flags,
                       NULL);
  self->paths = options->paths != NULL ? ow_paths_copy (options->paths) : NULL;
  self->secrets = options->secrets != NULL ? g_object_ref (options->secrets) : NULL;
  self->isolated = options->isolated;
  self->no_server = options->no_server;
  self->server_port = options->server_port;
  self->any_port = options->any_port;
  self->skip_first_run = options->skip_first_run;
  return self;
}

OwContext *
ow_application_get_context (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), NULL);
  return self->ctx;
}

OwSessionHost *
ow_application_get_host (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), NULL);
  return self->host;
}

OwServer *
ow_application_get_server (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), NULL);
  return self->server;
}

OwSecretStore *
ow_application_get_secrets (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), NULL);
  return self->ctx != NULL ? ow_context_get_secrets (self->ctx) : NULL;
}

const GError *
ow_application_get_startup_error (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), NULL);
  return self->startup_error;
}

gboolean
ow_application_get_run_in_background (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), FALSE);
  return self->run_in_background;
}

void
ow_application_set_run_in_background (OwApplication *self, gboolean run)
{
  g_return_if_fail (OW_IS_APPLICATION (self));
  run = !!run;
  if (self->run_in_background == run)
    return;
  self->run_in_background = run;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUN_IN_BACKGROUND]);
}

guint
ow_application_get_inbox_count (OwApplication *self)
{
  g_return_val_if_fail (OW_IS_APPLICATION (self), 0);
  return self->inbox_count;
}
