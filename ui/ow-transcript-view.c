/* ow-transcript-view.c: the window's one web view (see ow-transcript-view.h). */
#define G_LOG_DOMAIN "ow-transcript-view"

#include "config-ui.h"
#include "ow-transcript-view.h"

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>

#include "ow-html-escape.h"
#include "ow-json.h"
#include "ow-transcript-renderer.h"

#define PAGE_URI "owui://app/transcript.html"

/* What the page may do; also sent as a meta tag inside the page. */
#define PAGE_CSP                                                                                  \
  "default-src 'none'; script-src owui:; style-src owui:; img-src owui: data:; font-src owui:; "   \
  "connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; child-src 'none'; " \
  "worker-src 'none'; form-action 'none'; base-uri 'none'"

struct _OwTranscriptView
{
  GtkWidget             parent_instance;

  /* Owned */
  WebKitWebView        *web;
  OwTranscriptRenderer *renderer;
  JsonArray            *queue;      /* operations not yet sent to the page */

  gboolean              ready;      /* the page's script runs */
  gboolean              loading;    /* the page was asked for */
  GdkFrameClock        *paint_clock; /* while waiting for the first frame */
  gulong                paint_id;
  guint                 flush_id;
  guint                 in_flight;  /* owApply() calls not yet returned */
};

enum {
  SIGNAL_ACTION,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwTranscriptView, ow_transcript_view, GTK_TYPE_WIDGET)

/* ---- The shared web context ---------------------------------------------- */

static const char *
content_type_for (const char *path)
{
  if (g_str_has_suffix (path, ".html"))
    return "text/html";
  if (g_str_has_suffix (path, ".js"))
    return "text/javascript";
  if (g_str_has_suffix (path, ".css"))
    return "text/css";
  return "application/octet-stream";
}

/* owui://app/<file>: the page's own files from the GResource, nothing else. */
static void
on_owui_request_cb (WebKitURISchemeRequest *request, gpointer user_data)
{
  const char *path = webkit_uri_scheme_request_get_path (request);
  g_autofree char *resource = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(WebKitURISchemeResponse) response = NULL;
  SoupMessageHeaders *headers;

  if (path == NULL || strstr (path, "..") != NULL || !g_str_has_prefix (path, "/")
      || g_strcmp0 (webkit_uri_scheme_request_get_uri (request), "owui://app") == 0)
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Not found");
      webkit_uri_scheme_request_finish_error (request, error);
      return;
    }
  resource = g_strconcat ("/com/openworker/ui/web", path, NULL);
  bytes = g_resources_lookup_data (resource, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL)
    {
      g_autoptr(GError) error = g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s is not part of the app", path);
      webkit_uri_scheme_request_finish_error (request, error);
      return;
    }
  stream = g_memory_input_stream_new_from_bytes (bytes);
  response = webkit_uri_scheme_response_new (stream, (gint64) g_bytes_get_size (bytes));
  webkit_uri_scheme_response_set_content_type (response, content_type_for (path));
  /* The headers replace the response's own: the type goes in them too, or
   * "nosniff" refuses the script and the style sheet. */
  headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
  soup_message_headers_set_content_type (headers, content_type_for (path), NULL);
  soup_message_headers_append (headers, "Content-Security-Policy", PAGE_CSP);
  soup_message_headers_append (headers, "X-Content-Type-Options", "nosniff");
  soup_message_headers_append (headers, "Referrer-Policy", "no-referrer");
  webkit_uri_scheme_response_set_http_headers (response, headers);
  webkit_uri_scheme_request_finish_with_response (request, response);
}

WebKitWebContext *
ow_web_context_get_default (void)
{
  static WebKitWebContext *context;

  if (context == NULL)
    {
      WebKitSecurityManager *security;

      context = webkit_web_context_new ();
      /* Pages of our own only; the cache would only hold those. */
      webkit_web_context_set_cache_model (context, WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER);
      webkit_web_context_register_uri_scheme (context, "owui", on_owui_request_cb, NULL, NULL);
      security = webkit_web_context_get_security_manager (context);
      webkit_security_manager_register_uri_scheme_as_secure (security, "owui");
    }
  return context;
}

WebKitNetworkSession *
ow_web_network_session_get_default (void)
{
  static WebKitNetworkSession *session;

  /* Ephemeral: no cookies, no cache, no storage on disk. */
  if (session == NULL)
    session = webkit_network_session_new_ephemeral ();
  return session;
}

static gboolean
on_decide_policy_cb (WebKitWebView *view, WebKitPolicyDecision *decision, WebKitPolicyDecisionType type,
                     gpointer user_data)
{
  const char *allowed = user_data;

  if (type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION)
    {
      WebKitNavigationAction *action = webkit_navigation_policy_decision_get_navigation_action (
        WEBKIT_NAVIGATION_POLICY_DECISION (decision));
      const char *uri = webkit_uri_request_get_uri (webkit_navigation_action_get_request (action));

      /* The page itself, loaded by us — nothing a page or a link asks for. */
      if (allowed != NULL && g_str_has_prefix (uri, allowed)
          && webkit_navigation_action_get_navigation_type (action) == WEBKIT_NAVIGATION_TYPE_OTHER)
        {
          webkit_policy_decision_use (decision);
          return TRUE;
        }
      if (allowed == NULL && g_strcmp0 (uri, "about:blank") == 0
          && webkit_navigation_action_get_navigation_type (action) == WEBKIT_NAVIGATION_TYPE_OTHER)
        {
          webkit_policy_decision_use (decision);
          return TRUE;
        }
      webkit_policy_decision_ignore (decision);
      return TRUE;
    }
  if (type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION)
    {
      webkit_policy_decision_ignore (decision);
      return TRUE;
    }
  return FALSE;
}

static gboolean
on_permission_request_cb (WebKitWebView *view, WebKitPermissionRequest *request, gpointer user_data)
{
  webkit_permission_request_deny (request);
  return TRUE;
}

static gboolean
on_context_menu_cb (WebKitWebView *view, WebKitContextMenu *menu, WebKitHitTestResult *hit, gpointer user_data)
{
  /* Keep Copy and Select All; nothing that reloads, navigates or inspects. */
  GList *items = g_list_copy (webkit_context_menu_get_items (menu));

  for (GList *l = items; l != NULL; l = l->next)
    {
      WebKitContextMenuAction a = webkit_context_menu_item_get_stock_action (l->data);
      if (a != WEBKIT_CONTEXT_MENU_ACTION_COPY && a != WEBKIT_CONTEXT_MENU_ACTION_SELECT_ALL)
        webkit_context_menu_remove (menu, l->data);
    }
  g_list_free (items);
  return webkit_context_menu_get_n_items (menu) == 0;
}

static void
free_prefix (gpointer data, GClosure *closure)
{
  g_free (data);
}

void
ow_web_view_lock_down (WebKitWebView *view, const char *allowed_prefix)
{
  g_signal_connect_data (view, "decide-policy", G_CALLBACK (on_decide_policy_cb), g_strdup (allowed_prefix),
                         free_prefix, 0);
  g_signal_connect (view, "permission-request", G_CALLBACK (on_permission_request_cb), NULL);
  g_signal_connect (view, "context-menu", G_CALLBACK (on_context_menu_cb), NULL);
}

static WebKitSettings *
transcript_settings (void)
{
  WebKitSettings *settings = webkit_settings_new ();

  /* Our own script runs; everything a page does not need is off. */
  g_object_set (settings,
                "enable-javascript", TRUE,
                "enable-javascript-markup", TRUE,
                "javascript-can-open-windows-automatically", FALSE,
                "javascript-can-access-clipboard", FALSE,
                "enable-html5-database", FALSE,
                "enable-html5-local-storage", FALSE,
                "enable-page-cache", FALSE,
                "enable-webgl", FALSE,
                "enable-webaudio", FALSE,
                "enable-media", FALSE,
                "enable-developer-extras", g_getenv ("OW_WEB_INSPECTOR") != NULL,
                "allow-file-access-from-file-urls", FALSE,
                "allow-universal-access-from-file-urls", FALSE,
                "hardware-acceleration-policy", WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER,
                NULL);
  return settings;
}

/* ---- Feeding the page ------------------------------------------------------ */

static void
on_apply_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OwTranscriptView *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JSCValue) value = webkit_web_view_call_async_javascript_function_finish (WEBKIT_WEB_VIEW (source),
                                                                                    result, &error);

  if (value == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
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
  webkit_web_view_call_async_javascript_function (self->web, "return owApply(ops);", -1, g_variant_dict_end (&args),
                                                  NULL, PAGE_URI, NULL, on_apply_done_cb, g_object_ref (self));
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
  gboolean dark = FALSE;
  JsonObject *op = json_object_new ();

  g_object_get (gtk_widget_get_settings (GTK_WIDGET (self)), "gtk-application-prefer-dark-theme", &dark, NULL);
  json_object_set_string_member (op, "op", "theme");
  json_object_set_boolean_member (op, "dark", dark);
  queue_op (self, op);
}

static void
on_dark_changed_cb (GtkSettings *settings, GParamSpec *pspec, gpointer user_data)
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

WebKitWebView *
ow_transcript_view_get_web_view (OwTranscriptView *self)
{
  return self->web;
}

/* ---- Messages from the page --------------------------------------------------- */

static void
on_script_message_cb (WebKitUserContentManager *manager, JSCValue *value, gpointer user_data)
{
  OwTranscriptView *self = user_data;
  g_autofree char *json = jsc_value_to_json (value, 0);
  g_autoptr(JsonObject) msg = json != NULL ? ow_json_object_from_string (json, -1, NULL) : NULL;
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

static gboolean
on_load_failed_cb (WebKitWebView *web, WebKitLoadEvent event, const char *uri, GError *error, gpointer user_data)
{
  g_message ("The transcript page %s did not load: %s", uri, error->message);
  return FALSE;
}

static void
on_web_process_terminated_cb (WebKitWebView *web, WebKitWebProcessTerminationReason reason, gpointer user_data)
{
  OwTranscriptView *self = user_data;

  /* Reload the page and let it ask for everything again on "ready". */
  g_message ("The transcript's web process ended (%d); reloading it.", reason);
  self->ready = FALSE;
  g_signal_connect (self->web, "load-failed", G_CALLBACK (on_load_failed_cb), self);
  g_signal_connect (self->web, "web-process-terminated", G_CALLBACK (on_web_process_terminated_cb), self);
  webkit_web_view_load_uri (self->web, PAGE_URI);
}

/* ---- Loading the page ------------------------------------------------------------ */

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
  if (!self->loading && self->web != NULL)
    {
      self->loading = TRUE;
      webkit_web_view_load_uri (self->web, PAGE_URI);
    }
}

/* Loading the page starts WebKit's processes, and WebKit waits for its
 * sandboxed D-Bus proxy on this thread: ask for the page once the window
 * has drawn its first frame, not before (operations queue until then). */
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

/* ---- Object ------------------------------------------------------------------- */

static void
ow_transcript_view_dispose (GObject *object)
{
  OwTranscriptView *self = OW_TRANSCRIPT_VIEW (object);

  g_clear_handle_id (&self->flush_id, g_source_remove);
  stop_waiting_for_paint (self);
  if (self->web != NULL)
    {
      gtk_widget_unparent (GTK_WIDGET (self->web));
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
  g_autoptr(WebKitUserContentManager) content = webkit_user_content_manager_new ();
  g_autoptr(WebKitSettings) settings = transcript_settings ();

  self->renderer = ow_transcript_renderer_new ();
  self->queue = json_array_new ();
  g_signal_connect_object (content, "script-message-received::ow", G_CALLBACK (on_script_message_cb), self, 0);
  webkit_user_content_manager_register_script_message_handler (content, "ow", NULL);
  self->web = g_object_new (WEBKIT_TYPE_WEB_VIEW,
                            "web-context", ow_web_context_get_default (),
                            "network-session", ow_web_network_session_get_default (),
                            "user-content-manager", content,
                            "settings", settings,
                            NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self->web), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->web), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->web), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Transcript"), -1);
  gtk_widget_set_parent (GTK_WIDGET (self->web), GTK_WIDGET (self));
  ow_web_view_lock_down (self->web, PAGE_URI);
  g_signal_connect_object (gtk_settings_get_default (), "notify::gtk-application-prefer-dark-theme",
                           G_CALLBACK (on_dark_changed_cb), self, 0);
  g_signal_connect (self->web, "load-failed", G_CALLBACK (on_load_failed_cb), self);
  g_signal_connect (self->web, "web-process-terminated", G_CALLBACK (on_web_process_terminated_cb), self);
}

GtkWidget *
ow_transcript_view_new (void)
{
  return g_object_new (OW_TYPE_TRANSCRIPT_VIEW, NULL);
}
