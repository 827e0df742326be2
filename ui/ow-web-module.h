/* ow-web-module.h: WebKit, loaded after the window is on screen.
 *
 * libwebkitgtk-6.0 and the ~150 libraries it pulls in cost about 200 ms
 * of dynamic loading before main() runs. The app therefore does not link
 * it: everything that calls webkit_* lives in the ow-webkit module
 * (ui/webkit/), which this loader opens with GModule — on a worker thread
 * once the main window has drawn its first frame, or at once when
 * something needs a web view sooner. The module hands back one table of
 * functions; the web views it makes are plain GtkWidgets here.
 *
 * The module is looked for in $OW_WEB_MODULE_DIR, then in the build tree
 * when the running program was built there, then in
 * $libdir/openworker.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Bumped whenever OwWebModule changes shape. */
#define OW_WEB_MODULE_ABI 1
/* The one symbol the module exports. */
#define OW_WEB_MODULE_ENTRY "ow_web_module_entry"

/* A script message the page posted to the "ow" handler, as JSON. */
typedef void (*OwWebMessageFunc)    (const char *json, gpointer user_data);
/* The page's web process ended; the module reloads the page. */
typedef void (*OwWebTerminatedFunc) (gpointer user_data);

typedef struct {
  guint       abi;

  /* A locked-down web view for the transcript: our script on, the strict
   * CSP on every owui:// response, navigation only to @page_uri, the
   * "ow" script message handler calling @on_message. The callbacks stop
   * when @owner is finalized. Nothing loads until load_uri(). */
  GtkWidget *(*transcript_new)       (const char          *page_uri,
                                      GObject             *owner,
                                      OwWebMessageFunc     on_message,
                                      OwWebTerminatedFunc  on_terminated);
  /* A locked-down web view for untrusted documents: no script at all, no
   * navigation; content comes only from load_html(). */
  GtkWidget *(*preview_new)          (void);
  void       (*load_uri)             (GtkWidget  *web,
                                      const char *uri);
  void       (*load_html)            (GtkWidget  *web,
                                      const char *html);
  /* Calls the function with @body in the page, @args (a floating
   * a{sv} or NULL) as its named arguments. The source object of the
   * result is @web; finish returns the value as a string (NULL for null,
   * undefined, or an error). */
  void       (*call_function)        (GtkWidget           *web,
                                      const char          *body,
                                      GVariant            *args,
                                      const char          *source_uri,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
  char      *(*call_function_finish) (GtkWidget     *web,
                                      GAsyncResult  *result,
                                      GError       **error);
} OwWebModule;

typedef const OwWebModule *(*OwWebModuleEntryFunc) (guint abi, gboolean software_only);

/* The module if it is loaded, else NULL. */
const OwWebModule *ow_web_module_get         (void);
/* Loads the module on this thread if it is not loaded yet. */
const OwWebModule *ow_web_module_load        (GError             **error);
/* Loads the module on a worker thread; @callback runs on this thread. */
void               ow_web_module_load_async  (GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
const OwWebModule *ow_web_module_load_finish (GAsyncResult        *result,
                                              GError             **error);

/* Whether this machine has a GPU render node (/dev/dri/renderD*). */
gboolean           ow_web_have_render_node   (void);

/* Without a render node, GL would only mean llvmpipe: Mesa and LLVM mapped
 * into the app for nothing cairo cannot draw (some 25 MiB). Call first
 * thing in main(): it makes GTK draw with cairo and keeps GDK off GL; the
 * web module keeps WebKit's side of the app off EGL (its web process,
 * which needs EGL, is not affected). Does nothing on a machine with a GPU
 * or where the person set these variables. */
void               ow_web_prefer_software    (void);
/* After GTK has started: takes back what ow_web_prefer_software() put in
 * the environment and no longer needs, so programs the agent runs do not
 * inherit it. */
void               ow_web_software_settled   (void);

G_END_DECLS
