/* ow-session-view.c: one session on screen (see ow-session-view.h). */
#define G_LOG_DOMAIN "ow-session-view"

#include "config-ui.h"
#include "ow-session-view.h"
#include "ow-ui-private.h"

#include <glib/gi18n-lib.h>

#include "ow-format.h"
#include "ow-json.h"

struct _OwSessionView
{
  GtkWidget         parent_instance;

  /* Template widgets */
  GtkRevealer      *key_banner;
  OwTranscriptView *transcript;
  GtkWidget        *bottom;
  OwComposer       *composer;

  /* Borrowed: the application outlives its windows */
  OwApplication    *app;
  OwSessionHost    *host;

  OwCardDock       *dock;
  char             *session_id;   /* NULL for a draft */
  char             *title;
  char             *subtitle;
  gboolean          syncing;      /* reflecting the session into the composer */
};

enum {
  PROP_0,
  PROP_SESSION_ID,
  PROP_TITLE,
  PROP_SUBTITLE,
  N_PROPS
};

enum {
  SIGNAL_SESSION_CREATED,
  SIGNAL_OPEN_ARTIFACT,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwSessionView, ow_session_view, GTK_TYPE_WIDGET)

static void
set_heading (OwSessionView *self, const char *title, const char *subtitle)
{
  if (g_strcmp0 (self->title, title) != 0)
    {
      g_free (self->title);
      self->title = g_strdup (title);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
    }
  if (g_strcmp0 (self->subtitle, subtitle) != 0)
    {
      g_free (self->subtitle);
      self->subtitle = g_strdup (subtitle);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SUBTITLE]);
    }
}

static void
set_session_id (OwSessionView *self, const char *id)
{
  if (g_strcmp0 (self->session_id, id) == 0)
    return;
  g_free (self->session_id);
  self->session_id = g_strdup (id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);
}

/* The title and subtitle of the shown session, as the sidebar shows them. */
static void
refresh_heading (OwSessionView *self)
{
  g_autoptr(GPtrArray) rows = NULL;
  OwSessionListRow *l;
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;

  if (self->session_id == NULL)
    {
      set_heading (self, _("New session"), NULL);
      return;
    }
  rows = ow_store_session_list (ow_context_get_store (ow_session_host_get_context (self->host)), NULL,
                                self->session_id, NULL);
  if (rows == NULL || rows->len == 0)
    return;
  l = g_ptr_array_index (rows, 0);
  title = ow_format_session_title (l->row->title, l->auto_title, l->renamed, l->first_text);
  subtitle = ow_format_session_subtitle (l->row->coworker, l->row->workspace,
                                         l->row->workspace == NULL
                                           || ow_context_is_scratch (ow_session_host_get_context (self->host),
                                                                     l->row->workspace));
  set_heading (self, title, subtitle);
}

static void
update_enabled (OwSessionView *self)
{
  gboolean ready = ow_application_get_model_ready (self->app);

  ow_composer_set_enabled (self->composer, ready);
  gtk_revealer_set_reveal_child (self->key_banner, !ready);
}

static void
on_models_changed_cb (OwApplication *app, gpointer user_data)
{
  OwSessionView *self = user_data;

  ow_composer_set_models (self->composer, ow_application_get_model_choices (app));
  update_enabled (self);
}

/* ---- Showing ---------------------------------------------------------------- */

void
ow_session_view_show_draft (OwSessionView *self, const char *workspace, const char *coworker)
{
  g_return_if_fail (OW_IS_SESSION_VIEW (self));

  set_session_id (self, NULL);
  ow_transcript_view_reset (self->transcript);
  ow_card_dock_set_session (self->dock, NULL, NULL);
  self->syncing = TRUE;
  ow_composer_set_draft (self->composer, TRUE);
  ow_composer_set_running (self->composer, FALSE);
  ow_composer_set_workspace (self->composer, workspace);
  ow_composer_set_coworker (self->composer, coworker != NULL ? coworker : "cowork");
  {
    const char *mode = ow_config_get_string (ow_context_get_config (ow_session_host_get_context (self->host)),
                                             "approval_mode");
    mode = mode != NULL ? ow_approval_mode_canonical (mode) : NULL;
    /* The dangerous mode is never offered here, even as a default. */
    ow_composer_set_mode (self->composer,
                          mode != NULL && g_strv_contains (ow_format_modes (), mode) ? mode : "ask");
  }
  ow_composer_set_model (self->composer, NULL);
  ow_composer_set_models (self->composer, ow_application_get_model_choices (self->app));
  self->syncing = FALSE;
  ow_composer_set_notice (self->composer, NULL);
  refresh_heading (self);
  update_enabled (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

gboolean
ow_session_view_show_session (OwSessionView *self, const char *session_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) session = NULL;

  g_return_val_if_fail (OW_IS_SESSION_VIEW (self), FALSE);

  session = ow_session_host_get (self->host, session_id, &error);
  if (session == NULL)
    {
      ow_session_view_show_draft (self, NULL, NULL);
      ow_composer_set_notice (self->composer, error->message);
      return FALSE;
    }
  set_session_id (self, session_id);
  ow_transcript_view_replay (self->transcript, ow_context_get_store (ow_session_host_get_context (self->host)),
                             session_id);
  ow_card_dock_set_session (self->dock, session_id, ow_session_get_workspace (session));
  self->syncing = TRUE;
  ow_composer_set_draft (self->composer, FALSE);
  ow_composer_set_running (self->composer, ow_session_host_is_running (self->host, session_id));
  ow_composer_set_mode (self->composer, ow_session_get_mode (session));
  ow_composer_set_model (self->composer, ow_session_get_model (session));
  ow_composer_set_models (self->composer, ow_application_get_model_choices (self->app));
  self->syncing = FALSE;
  ow_composer_set_notice (self->composer, NULL);
  refresh_heading (self);
  update_enabled (self);
  return TRUE;
}

const char *
ow_session_view_get_session_id (OwSessionView *self)
{
  return self->session_id;
}

const char *
ow_session_view_get_title (OwSessionView *self)
{
  return self->title;
}

void
ow_session_view_refresh_heading (OwSessionView *self)
{
  refresh_heading (self);
}

OwTranscriptView *
ow_session_view_get_transcript (OwSessionView *self)
{
  return self->transcript;
}

OwCardDock *
ow_session_view_get_dock (OwSessionView *self)
{
  return self->dock;
}

OwComposer *
ow_session_view_get_composer (OwSessionView *self)
{
  return self->composer;
}

/* ---- The composer's requests ------------------------------------------------- */

/* A draft becomes a session when its first message goes out. */
static gboolean
create_from_draft (OwSessionView *self, GError **error)
{
  const char *model = ow_composer_get_model (self->composer);
  OwSessionSpec spec = {
    .workspace = ow_composer_get_workspace (self->composer),
    .model = model,
    .mode = ow_composer_get_mode (self->composer),
    .coworker = ow_composer_get_coworker (self->composer),
    .origin = "desktop",
  };
  g_autoptr(OwSession) session = ow_session_host_create (self->host, &spec, error);
  g_autofree char *id = NULL;

  if (session == NULL)
    return FALSE;
  id = g_strdup (ow_session_get_id (session));
  ow_session_view_show_session (self, id);
  g_signal_emit (self, signals[SIGNAL_SESSION_CREATED], 0, id);
  return TRUE;
}

void
ow_session_view_send (OwSessionView *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = ow_composer_dup_text (self->composer);
  g_autoptr(JsonArray) attachments = ow_composer_dup_attachments (self->composer);

  if (text == NULL || *g_strstrip (text) == '\0' || ow_composer_get_busy (self->composer))
    return;
  if (self->session_id == NULL && !create_from_draft (self, &error))
    {
      ow_composer_set_notice (self->composer, error->message);
      return;
    }
  if (!ow_session_host_send (self->host, self->session_id, text, attachments, &error))
    {
      ow_composer_set_notice (self->composer, error->message);
      return;
    }
  ow_composer_clear (self->composer);
  ow_composer_set_running (self->composer, TRUE);
}

static void
on_composer_send_cb (OwSessionView *self)
{
  ow_session_view_send (self);
}

static void
on_composer_stop_cb (OwSessionView *self)
{
  if (self->session_id != NULL)
    ow_session_host_interrupt (self->host, self->session_id);
}

static void
on_composer_mode_cb (OwSessionView *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) session = NULL;

  if (self->syncing || self->session_id == NULL)
    return;
  session = ow_session_host_get (self->host, self->session_id, NULL);
  if (session == NULL || g_strcmp0 (ow_session_get_mode (session), ow_composer_get_mode (self->composer)) == 0)
    return;
  /* The desktop never allows the dangerous mode (FALSE). */
  if (!ow_session_host_set_mode (self->host, self->session_id, ow_composer_get_mode (self->composer), FALSE, &error))
    {
      ow_composer_set_notice (self->composer, error->message);
      self->syncing = TRUE;
      ow_composer_set_mode (self->composer, ow_session_get_mode (session));
      self->syncing = FALSE;
    }
}

static void
on_composer_model_cb (OwSessionView *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) session = NULL;
  const char *model = ow_composer_get_model (self->composer);

  if (self->syncing || self->session_id == NULL || model == NULL)
    return;
  session = ow_session_host_get (self->host, self->session_id, NULL);
  if (session == NULL || g_strcmp0 (ow_session_get_model (session), model) == 0)
    return;
  if (!ow_session_host_set_model (self->host, self->session_id, model, &error))
    {
      ow_composer_set_notice (self->composer, error->message);
      self->syncing = TRUE;
      ow_composer_set_model (self->composer, ow_session_get_model (session));
      self->syncing = FALSE;
    }
}

/* ---- The transcript's requests ----------------------------------------------- */

static void
on_transcript_action_cb (OwTranscriptView *transcript, const char *action, const char *argument, gpointer user_data)
{
  OwSessionView *self = user_data;
  g_autoptr(GError) error = NULL;

  if (g_str_equal (action, "retry") && self->session_id != NULL)
    {
      if (ow_session_host_retry (self->host, self->session_id, &error))
        ow_composer_set_running (self->composer, TRUE);
      else
        ow_composer_set_notice (self->composer, error->message);
    }
  else if (g_str_equal (action, "settings"))
    gtk_widget_activate_action (GTK_WIDGET (self), "app.settings", "s", "models");
  else if (g_str_equal (action, "open-link") && argument != NULL)
    {
      if (g_str_has_prefix (argument, "artifact:"))
        g_signal_emit (self, signals[SIGNAL_OPEN_ARTIFACT], 0, argument + strlen ("artifact:"));
      else
        {
          GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
          gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, argument, GDK_CURRENT_TIME);
        }
    }
}

/* ---- Live events ------------------------------------------------------------ */

static void
on_session_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  OwSessionView *self = user_data;

  if (g_strcmp0 (session_id, self->session_id) != 0)
    return;
  ow_transcript_view_feed (self->transcript, event);
  if (g_str_equal (event->type, "turn_start"))
    ow_composer_set_running (self->composer, TRUE);
  else if (g_str_equal (event->type, "turn_done"))
    {
      ow_composer_set_running (self->composer, ow_session_host_is_running (host, session_id));
      refresh_heading (self);
    }
  else if (g_str_equal (event->type, "mode_changed"))
    {
      self->syncing = TRUE;
      ow_composer_set_mode (self->composer, ow_json_get_string (event->data, "mode"));
      self->syncing = FALSE;
    }
  else if (g_str_equal (event->type, "model_changed"))
    {
      self->syncing = TRUE;
      ow_composer_set_model (self->composer, ow_json_get_string (event->data, "model"));
      self->syncing = FALSE;
    }
  else if (g_str_equal (event->type, "session_title"))
    refresh_heading (self);
}

static void
on_sessions_changed_cb (OwSessionHost *host, gpointer user_data)
{
  refresh_heading (user_data);
}

/* ---- Object ------------------------------------------------------------------ */

static void
ow_session_view_dispose (GObject *object)
{
  OwSessionView *self = OW_SESSION_VIEW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SESSION_VIEW);
  ow_widget_unparent_children (GTK_WIDGET (self));
  G_OBJECT_CLASS (ow_session_view_parent_class)->dispose (object);
}

static void
ow_session_view_finalize (GObject *object)
{
  OwSessionView *self = OW_SESSION_VIEW (object);

  g_free (self->session_id);
  g_free (self->title);
  g_free (self->subtitle);
  G_OBJECT_CLASS (ow_session_view_parent_class)->finalize (object);
}

static void
ow_session_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwSessionView *self = OW_SESSION_VIEW (object);

  switch (prop_id)
    {
    case PROP_SESSION_ID: g_value_set_string (value, self->session_id); break;
    case PROP_TITLE: g_value_set_string (value, self->title); break;
    case PROP_SUBTITLE: g_value_set_string (value, self->subtitle); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_session_view_class_init (OwSessionViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = ow_session_view_dispose;
  object_class->finalize = ow_session_view_finalize;
  object_class->get_property = ow_session_view_get_property;

  properties[PROP_SESSION_ID] = g_param_spec_string ("session-id", NULL, NULL, NULL, ro);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, ro);
  properties[PROP_SUBTITLE] = g_param_spec_string ("subtitle", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_SESSION_CREATED] =
    g_signal_new ("session-created", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                  1, G_TYPE_STRING);
  signals[SIGNAL_OPEN_ARTIFACT] =
    g_signal_new ("open-artifact", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                  1, G_TYPE_STRING);

  g_type_ensure (OW_TYPE_TRANSCRIPT_VIEW);
  g_type_ensure (OW_TYPE_COMPOSER);
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-session-view.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSessionView, key_banner);
  gtk_widget_class_bind_template_child (widget_class, OwSessionView, transcript);
  gtk_widget_class_bind_template_child (widget_class, OwSessionView, bottom);
  gtk_widget_class_bind_template_child (widget_class, OwSessionView, composer);
  gtk_widget_class_bind_template_callback (widget_class, on_composer_send_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_composer_stop_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_composer_mode_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_composer_model_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owsessionview");
}

static void
ow_session_view_init (OwSessionView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ow_session_view_new (OwApplication *app)
{
  OwSessionView *self = g_object_new (OW_TYPE_SESSION_VIEW, NULL);

  self->app = app;
  self->host = ow_application_get_host (app);
  self->dock = OW_CARD_DOCK (ow_card_dock_new (self->host));
  gtk_box_prepend (GTK_BOX (self->bottom), GTK_WIDGET (self->dock));
  g_signal_connect_object (self->host, "session-event", G_CALLBACK (on_session_event_cb), self, 0);
  g_signal_connect_object (self->host, "sessions-changed", G_CALLBACK (on_sessions_changed_cb), self, 0);
  g_signal_connect_object (app, "models-changed", G_CALLBACK (on_models_changed_cb), self, 0);
  g_signal_connect_object (self->transcript, "action", G_CALLBACK (on_transcript_action_cb), self, 0);
  ow_session_view_show_draft (self, NULL, NULL);
  return GTK_WIDGET (self);
}
