/* ow-webkit-module.c: the app's web views, in a module of their own.
 *
 * Everything that calls webkit_* is here, built as ow-webkit.so and
 * opened by ui/ow-web-module.c once the main window is on screen, so the
 * program itself does not link libwebkitgtk-6.0 and its ~150 libraries.
 * The module exports one function, ow_web_module_entry(), which returns
 * a table of what the transcript and the artifact preview need: web
 * views made in one shared, locked-down web context (pages of our own
 * from the owui:// scheme with a strict Content-Security-Policy, an
 * ephemeral network session, no navigation, new windows, permissions or
 * context menu beyond Copy), loading a page or a document, and calling
 * the page's script. It links GTK and WebKit only: the GTypes of the app
 * stay in the program.
 */
#define G_LOG_DOMAIN "ow-webkit"

#include <string.h>

#include <gtk/gtk.h>
#include <libsoup/soup.h>
#include <webkit/webkit.h>

#include "ow-web-module.h"

/* What the transcript page may do; also sent as a meta tag inside the page. */
#define PAGE_CSP                                                                                  \
  "default-src 'none'; script-src owui:; style-src owui:; img-src owui: data:; font-src owui:; "   \
  "connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; child-src 'none'; " \
  "worker-src 'none'; form-action 'none'; base-uri 'none'"

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

/* owui://app/<file>: the page's own files from the program's GResource,
 * nothing else. */
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

static WebKitWebContext *
web_context_get_default (void)
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

static WebKitNetworkSession *
network_session_get_default (void)
{
  static WebKitNetworkSession *session;

  /* Ephemeral: no cookies, no cache, no storage on disk. */
  if (session == NULL)
    session = webkit_network_session_new_ephemeral ();
  return session;
}

/* ---- Locking a view down ------------------------------------------------- */

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

/* No navigation away, no new windows, no permissions, no context menu.
 * @allowed_prefix: the one URI prefix @view may load, or NULL for loads
 * made with webkit_web_view_load_html() only. */
static void
lock_down (WebKitWebView *view, const char *allowed_prefix)
{
  g_signal_connect_data (view, "decide-policy", G_CALLBACK (on_decide_policy_cb), g_strdup (allowed_prefix),
                         free_prefix, 0);
  g_signal_connect (view, "permission-request", G_CALLBACK (on_permission_request_cb), NULL);
  g_signal_connect (view, "context-menu", G_CALLBACK (on_context_menu_cb), NULL);
}

/* Set while WebKit's side of the app starts without EGL (see the entry). */
static gboolean egl_hidden;

static WebKitWebView *
web_view_new (WebKitSettings *settings, WebKitUserContentManager *content)
{
  /* Pages of text and previews: GPU compositing buys nothing here, and
   * without a GPU it would go through llvmpipe (more memory, more time). */
  g_object_set (settings, "hardware-acceleration-policy", WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER, NULL);
  /* The app's side has settled on no EGL by now (WebKit asks when the first
   * settings are made); the web process, started with the first view,
   * needs EGL and must not inherit the hiding. */
  if (egl_hidden)
    {
      g_unsetenv ("__EGL_VENDOR_LIBRARY_DIRS");
      egl_hidden = FALSE;
    }
  return g_object_new (WEBKIT_TYPE_WEB_VIEW,
                       "web-context", web_context_get_default (),
                       "network-session", network_session_get_default (),
                       "settings", settings,
                       content != NULL ? "user-content-manager" : NULL, content,
                       NULL);
}

/* ---- The transcript ------------------------------------------------------ */

/* What a transcript view calls back; owned by the view. */
typedef struct {
  char                *page_uri;
  OwWebMessageFunc     on_message;
  OwWebTerminatedFunc  on_terminated;
  GObject             *owner;      /* unowned: the closures stop with it */
} Page;

static void
page_free (gpointer data)
{
  Page *page = data;

  g_free (page->page_uri);
  g_free (page);
}

static void
on_script_message_cb (WebKitUserContentManager *manager, JSCValue *value, gpointer user_data)
{
  Page *page = user_data;
  g_autofree char *json = jsc_value_to_json (value, 0);

  if (json != NULL)
    page->on_message (json, page->owner);
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
  Page *page = user_data;

  /* Reload the page and let it ask for everything again on "ready". */
  g_message ("The transcript's web process ended (%d); reloading it.", reason);
  page->on_terminated (page->owner);
  webkit_web_view_load_uri (web, page->page_uri);
}

/* Connects @callback on @instance until @page's owner is finalized. */
static void
connect_for_owner (gpointer instance, const char *signal, GCallback callback, Page *page)
{
  GClosure *closure = g_cclosure_new (callback, page, NULL);

  g_object_watch_closure (page->owner, closure);
  g_signal_connect_closure (instance, signal, closure, FALSE);
}

static GtkWidget *
transcript_new (const char *page_uri, GObject *owner, OwWebMessageFunc on_message, OwWebTerminatedFunc on_terminated)
{
  g_autoptr(WebKitUserContentManager) content = webkit_user_content_manager_new ();
  g_autoptr(WebKitSettings) settings = webkit_settings_new ();
  WebKitWebView *web;
  Page *page = g_new0 (Page, 1);

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
                NULL);
  webkit_user_content_manager_register_script_message_handler (content, "ow", NULL);
  web = web_view_new (settings, content);
  lock_down (web, page_uri);

  page->page_uri = g_strdup (page_uri);
  page->on_message = on_message;
  page->on_terminated = on_terminated;
  page->owner = owner;
  g_object_set_data_full (G_OBJECT (web), "ow-page", page, page_free);
  connect_for_owner (content, "script-message-received::ow", G_CALLBACK (on_script_message_cb), page);
  connect_for_owner (web, "web-process-terminated", G_CALLBACK (on_web_process_terminated_cb), page);
  g_signal_connect (web, "load-failed", G_CALLBACK (on_load_failed_cb), NULL);
  return GTK_WIDGET (web);
}

/* ---- The preview ---------------------------------------------------------- */

static GtkWidget *
preview_new (void)
{
  g_autoptr(WebKitSettings) settings = webkit_settings_new ();
  WebKitWebView *web;

  /* A web view of its own for files a model wrote: no script at all. */
  g_object_set (settings,
                "enable-javascript", FALSE,
                "enable-javascript-markup", FALSE,
                "enable-html5-database", FALSE,
                "enable-html5-local-storage", FALSE,
                "enable-webgl", FALSE,
                "enable-webaudio", FALSE,
                "enable-media", FALSE,
                "auto-load-images", TRUE,
                NULL);
  web = web_view_new (settings, NULL);
  lock_down (web, NULL);
  return GTK_WIDGET (web);
}

/* ---- Loading and script ---------------------------------------------------- */

static void
load_uri (GtkWidget *web, const char *uri)
{
  webkit_web_view_load_uri (WEBKIT_WEB_VIEW (web), uri);
}

static void
load_html (GtkWidget *web, const char *html)
{
  webkit_web_view_load_html (WEBKIT_WEB_VIEW (web), html, NULL);
}

static void
call_function (GtkWidget *web, const char *body, GVariant *args, const char *source_uri, GCancellable *cancellable,
               GAsyncReadyCallback callback, gpointer user_data)
{
  webkit_web_view_call_async_javascript_function (WEBKIT_WEB_VIEW (web), body, -1, args, NULL, source_uri,
                                                  cancellable, callback, user_data);
}

static char *
call_function_finish (GtkWidget *web, GAsyncResult *result, GError **error)
{
  g_autoptr(JSCValue) value = webkit_web_view_call_async_javascript_function_finish (WEBKIT_WEB_VIEW (web), result,
                                                                                    error);

  if (value == NULL || jsc_value_is_null (value) || jsc_value_is_undefined (value))
    return NULL;
  return jsc_value_to_string (value);
}

/* ---- Entry ------------------------------------------------------------------ */

static const OwWebModule module = {
  .abi = OW_WEB_MODULE_ABI,
  .transcript_new = transcript_new,
  .preview_new = preview_new,
  .load_uri = load_uri,
  .load_html = load_html,
  .call_function = call_function,
  .call_function_finish = call_function_finish,
};

G_MODULE_EXPORT const OwWebModule *ow_web_module_entry (guint abi, gboolean software);

G_MODULE_EXPORT const OwWebModule *
ow_web_module_entry (guint abi, gboolean software)
{
  if (abi != OW_WEB_MODULE_ABI)
    return NULL;
  /* Without a GPU render node, EGL means Mesa and LLVM (~25 MiB) in this
   * process for nothing: the views never composite on a GPU. Until the
   * first view is made, libglvnd finds no EGL vendor here; WebKit's side of
   * the app works without one. A person's own setting is left alone. */
  if (software && g_getenv ("__EGL_VENDOR_LIBRARY_DIRS") == NULL
      && g_getenv ("__EGL_VENDOR_LIBRARY_FILENAMES") == NULL)
    {
      g_setenv ("__EGL_VENDOR_LIBRARY_DIRS", "/nonexistent/openworker-no-egl", TRUE);
      egl_hidden = TRUE;
    }
  return &module;
}
