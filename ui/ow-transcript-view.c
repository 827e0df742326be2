/* ow-transcript-view.c: the window's one web view (see ow-transcript-view.h). */
#define G_LOG_DOMAIN "ow-transcript-view"

#include "config-ui.h"
#include "ow-transcript-view.h"

#include <adwaita.h>
#include <glib/gi18n-lib.h>

#include "ow-html-escape.h"
#include "ow-json.h"
#include "ow-transcript-renderer.h"
#include "ow-web-module.h"

#define PAGE_URI "owui://app/transcript.html"

struct _OwTranscriptView
{
  GtkWidget             parent_instance;

  /* Owned */
  GtkWidget            *web;        /* the module's web view; NULL until it is loaded */
  OwTranscriptRenderer *renderer;
  JsonArray            *queue;      /* operations not yet sent to the page */
  GCancellable         *cancellable; /* loading the module */

  gboolean              ready;      /* the page's script runs */
  gboolean              loading;    /* the page was asked for */
  GdkFrameClock        *paint_clock; /* while waiting for the first frame */
  gulong                paint_id;
  guint                 load_idle_id; /* loads the module after the first frame */
  guint                 flush_id;
  guint                 in_flight;  /* owApply() calls not yet returned */
};

enum {
  SIGNAL_ACTION,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwTranscriptView, ow_transcript_view, GTK_TYPE_WIDGET)

/* ---- Feeding the page ------------------------------------------------------ */

static void
on_apply_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OwTranscriptView *self = user_data;
  g_autoptr(GError) error = NULL;

  /* The page's answer says nothing; only a refusal matters. */
  g_free (ow_web_module_get ()->call_function_finish (GTK_WIDGET (source), result, &error));
  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("The transcript page refused an update: %s", error->message);
  self->in_flight--;
  g_object_unref (self);
}

static void
send_queue (OwTranscriptView *self)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *json = NULL;
  GVariantDict args;

  if (!self->ready || json_array_get_length (self->queue) == 0)
    return;
  node = json_node_init_array (json_node_alloc (), self->queue);
  json = json_to_string (node, FALSE);
  json_array_unref (self->queue);
  self->queue = json_array_new ();
  /* The operations are an argument, never part of the code that runs. */
  g_variant_dict_init (&args, NULL);
  g_variant_dict_insert (&args, "ops", "s", json);
  self->in_flight++;
  ow_web_module_get ()->call_function (self->web, "return owApply(ops);", g_variant_dict_end (&args), PAGE_URI, NULL,
                                       on_apply_done_cb, g_object_ref (self));
}

static void
flush (OwTranscriptView *self)
{
  g_autoptr(JsonArray) ops = ow_transcript_renderer_take_ops (self->renderer);

  g_clear_handle_id (&self->flush_id, g_source_remove);
  for (guint i = 0; ops != NULL && i < json_array_get_length (ops); i++)
    json_array_add_element (self->queue, json_node_copy (json_array_get_element (ops, i)));
  send_queue (self);
}

static gboolean
on_flush_timeout_cb (gpointer user_data)
{
  OwTranscriptView *self = user_data;

  self->flush_id = 0;
  flush (self);
  return G_SOURCE_REMOVE;
}

/* Streamed text arrives in small pieces: one page update per frame is
 * plenty, and markdown is rendered once per update, not once per piece. */
static void
schedule_flush (OwTranscriptView *self)
{
  if (self->flush_id == 0)
    self->flush_id = g_timeout_add (16, on_flush_timeout_cb, self);
}

static void
queue_op (OwTranscriptView *self, JsonObject *op)
{
  json_array_add_object_element (self->queue, op);
}

static void
queue_theme (OwTranscriptView *self)
{
  /* Dark as libadwaita draws the rest of the window (Settings ▸ General). */
  gboolean dark = adw_is_initialized () && adw_style_manager_get_dark (adw_style_manager_get_default ());
  JsonObject *op = json_object_new ();

  json_object_set_string_member (op, "op", "theme");
  json_object_set_boolean_member (op, "dark", dark);
  queue_op (self, op);
}

static void
on_dark_changed_cb (AdwStyleManager *style, GParamSpec *pspec, gpointer user_data)
{
  OwTranscriptView *self = user_data;

  queue_theme (self);
  send_queue (self);
}

void
ow_transcript_view_reset (OwTranscriptView *self)
{
  JsonObject *op = json_object_new ();

  g_return_if_fail (OW_IS_TRANSCRIPT_VIEW (self));
  g_clear_pointer (&self->renderer, ow_transcript_renderer_free);
  self->renderer = ow_transcript_renderer_new ();
  /* Whatever was waiting belonged to the page being replaced. */
  json_array_unref (self->queue);
  self->queue = json_array_new ();
  json_object_set_string_member (op, "op", "reset");
  queue_op (self, op);
  schedule_flush (self);
}

typedef struct {
  OwTranscriptRenderer *renderer;
} Replay;

static void
replay_event_cb (gint64 seq, gint64 ts_ms, const char *type, const char *data, gpointer user_data)
{
  Replay *r = user_data;
  g_autoptr(JsonObject) obj = data != NULL ? ow_json_object_from_string (data, -1, NULL) : NULL;

  ow_transcript_renderer_feed (r->renderer, seq, ts_ms, type, obj);
}

void
ow_transcript_view_replay (OwTranscriptView *self, OwStore *store, const char *session_id)
{
  g_autoptr(GError) error = NULL;
  Replay r;

  g_return_if_fail (OW_IS_TRANSCRIPT_VIEW (self));
  ow_transcript_view_reset (self);
  r.renderer = self->renderer;
  if (!ow_store_event_foreach_since (store, session_id, 0, replay_event_cb, &r, &error))
    g_message ("The history of session %s could not be read: %s", session_id, error->message);
  flush (self);
}

void
ow_transcript_view_feed (OwTranscriptView *self, const OwEvent *event)
{
  g_return_if_fail (OW_IS_TRANSCRIPT_VIEW (self));
  ow_transcript_renderer_feed (self->renderer, event->seq, event->ts, event->type, event->data);
  if (ow_transcript_renderer_has_ops (self->renderer))
    schedule_flush (self);
}

gboolean
ow_transcript_view_is_working (OwTranscriptView *self)
{
  return ow_transcript_renderer_is_working (self->renderer);
}

gboolean
ow_transcript_view_is_settled (OwTranscriptView *self)
{
  return self->ready && self->flush_id == 0 && self->in_flight == 0 && json_array_get_length (self->queue) == 0
         && !ow_transcript_renderer_has_ops (self->renderer);
}

GtkWidget *
ow_transcript_view_get_web_view (OwTranscriptView *self)
{
  return self->web;
}

/* ---- Messages from the page --------------------------------------------------- */

static void
on_page_message (const char *json, gpointer user_data)
{
  OwTranscriptView *self = user_data;
  g_autoptr(JsonObject) msg = ow_json_object_from_string (json, -1, NULL);
  const char *action = msg != NULL ? ow_json_get_string (msg, "action") : NULL;

  if (action == NULL)
    return;
  if (g_str_equal (action, "ready"))
    {
      JsonObject *init = json_object_new ();
      JsonObject *strings = json_object_new ();
      g_autoptr(JsonArray) pending = self->queue;

      /* Words the page shows, translated here; then whatever waited. */
      json_object_set_string_member (init, "op", "init");
      json_object_set_string_member (strings, "copy", _("Copy"));
      json_object_set_string_member (strings, "copied", _("Copied"));
      json_object_set_string_member (strings, "empty", _("What should we work on?"));
      json_object_set_string_member (strings, "latest", _("Jump to latest"));
      json_object_set_object_member (init, "strings", strings);
      self->queue = json_array_new ();
      queue_op (self, init);
      queue_theme (self);
      for (guint i = 0; i < json_array_get_length (pending); i++)
        json_array_add_element (self->queue, json_node_copy (json_array_get_element (pending, i)));
      self->ready = TRUE;
      flush (self);
      return;
    }
  if (g_str_equal (action, "copy"))
    {
      const char *text = ow_json_get_string (msg, "text");
      if (text != NULL)
        gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
      return;
    }
  if (g_str_equal (action, "open-link"))
    {
      g_autofree char *href = ow_html_safe_link (ow_json_get_string (msg, "href"));
      if (href != NULL)
        g_signal_emit (self, signals[SIGNAL_ACTION], 0, action, href);
      return;
    }
  if (g_str_equal (action, "retry") || g_str_equal (action, "settings"))
    g_signal_emit (self, signals[SIGNAL_ACTION], 0, action, NULL);
}

static void
on_page_terminated (gpointer user_data)
{
  OW_TRANSCRIPT_VIEW (user_data)->ready = FALSE;
}

/* ---- Loading the page ------------------------------------------------------------ */

/* The web view goes in once the module is loaded; until then the view
 * is empty and operations wait in the queue. */
static void
create_web (OwTranscriptView *self, const OwWebModule *module)
{
  if (self->web != NULL)
    return;
  self->web = module->transcript_new (PAGE_URI, G_OBJECT (self), on_page_message, on_page_terminated);
  gtk_widget_set_hexpand (self->web, TRUE);
  gtk_widget_set_vexpand (self->web, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->web), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Transcript"), -1);
  gtk_widget_set_parent (self->web, GTK_WIDGET (self));
}

static void
load_page (OwTranscriptView *self, const OwWebModule *module)
{
  create_web (self, module);
  if (!self->loading)
    {
      self->loading = TRUE;
      module->load_uri (self->web, PAGE_URI);
    }
}

static void
on_module_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(OwTranscriptView) self = user_data;
  g_autoptr(GError) error = NULL;
  const OwWebModule *module = ow_web_module_load_finish (result, &error);

  if (module == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_warning ("%s", error->message);
      return;
    }
  load_page (self, module);
}

static gboolean
on_load_idle_cb (gpointer user_data)
{
  OwTranscriptView *self = user_data;

  self->load_idle_id = 0;
  if (ow_web_module_get () != NULL)
    load_page (self, ow_web_module_get ());
  else
    ow_web_module_load_async (self->cancellable, on_module_loaded_cb, g_object_ref (self));
  return G_SOURCE_REMOVE;
}

static void
stop_waiting_for_paint (OwTranscriptView *self)
{
  if (self->paint_clock != NULL)
    g_clear_signal_handler (&self->paint_id, self->paint_clock);
  g_clear_object (&self->paint_clock);
}

static void
on_first_paint_cb (GdkFrameClock *clock, gpointer user_data)
{
  OwTranscriptView *self = user_data;

  stop_waiting_for_paint (self);
  if (!self->loading && self->load_idle_id == 0)
    self->load_idle_id = g_idle_add (on_load_idle_cb, self);
}

/* Loading WebKit costs some 200 ms, and loading the page starts WebKit's
 * processes while WebKit waits for its sandboxed D-Bus proxy on this
 * thread: both happen once the window has drawn its first frame, not
 * before (operations queue until then). */
static void
ow_transcript_view_map (GtkWidget *widget)
{
  OwTranscriptView *self = OW_TRANSCRIPT_VIEW (widget);

  GTK_WIDGET_CLASS (ow_transcript_view_parent_class)->map (widget);
  if (self->loading || self->paint_clock != NULL || gtk_widget_get_frame_clock (widget) == NULL)
    return;
  self->paint_clock = g_object_ref (gtk_widget_get_frame_clock (widget));
  self->paint_id = g_signal_connect (self->paint_clock, "after-paint", G_CALLBACK (on_first_paint_cb), self);
  gtk_widget_queue_draw (widget);
}

static void
ow_transcript_view_unmap (GtkWidget *widget)
{
  stop_waiting_for_paint (OW_TRANSCRIPT_VIEW (widget));
  GTK_WIDGET_CLASS (ow_transcript_view_parent_class)->unmap (widget);
}

/* ---- Running script, for tests ---------------------------------------------------- */

static void
on_script_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *value = ow_web_module_get ()->call_function_finish (GTK_WIDGET (source), result, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, value, g_free);
}

void
ow_transcript_view_run_script_async (OwTranscriptView    *self,
                                     const char          *body,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  const OwWebModule *module;

  g_return_if_fail (OW_IS_TRANSCRIPT_VIEW (self));
  g_task_set_source_tag (task, ow_transcript_view_run_script_async);
  /* Needed now: load the module on this thread if it is not there yet. */
  module = ow_web_module_load (&error);
  if (module == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  load_page (self, module);
  module->call_function (self->web, body, NULL, PAGE_URI, cancellable, on_script_done_cb, g_steal_pointer (&task));
}

char *
ow_transcript_view_run_script_finish (OwTranscriptView *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Object ------------------------------------------------------------------- */

static void
ow_transcript_view_dispose (GObject *object)
{
  OwTranscriptView *self = OW_TRANSCRIPT_VIEW (object);

  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_handle_id (&self->load_idle_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  stop_waiting_for_paint (self);
  if (self->web != NULL)
    {
      gtk_widget_unparent (self->web);
      self->web = NULL;
    }
  G_OBJECT_CLASS (ow_transcript_view_parent_class)->dispose (object);
}

static void
ow_transcript_view_finalize (GObject *object)
{
  OwTranscriptView *self = OW_TRANSCRIPT_VIEW (object);

  g_clear_pointer (&self->renderer, ow_transcript_renderer_free);
  g_clear_pointer (&self->queue, json_array_unref);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (ow_transcript_view_parent_class)->finalize (object);
}

static void
ow_transcript_view_class_init (OwTranscriptViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_transcript_view_dispose;
  object_class->finalize = ow_transcript_view_finalize;
  widget_class->map = ow_transcript_view_map;
  widget_class->unmap = ow_transcript_view_unmap;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owtranscript");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);

  signals[SIGNAL_ACTION] =
    g_signal_new ("action", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                  G_TYPE_STRING, G_TYPE_STRING);
}

static void
ow_transcript_view_init (OwTranscriptView *self)
{
  self->renderer = ow_transcript_renderer_new ();
  self->queue = json_array_new ();
  self->cancellable = g_cancellable_new ();
  if (adw_is_initialized ())
    g_signal_connect_object (adw_style_manager_get_default (), "notify::dark", G_CALLBACK (on_dark_changed_cb), self, 0);
}

GtkWidget *
ow_transcript_view_new (void)
{
  return g_object_new (OW_TYPE_TRANSCRIPT_VIEW, NULL);
}
