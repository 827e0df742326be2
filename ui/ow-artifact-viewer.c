/* ow-artifact-viewer.c: a preview of a file a session produced (see
 * ow-artifact-viewer.h). */
#define G_LOG_DOMAIN "ow-artifact-viewer"

#include "config-ui.h"
#include "ow-artifact-viewer.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <poppler.h>

#include "ow-html-escape.h"
#include "ow-markdown.h"
#include "ow-web-module.h"

/* Previews read at most this much; larger files are offered to "Open". */
#define PREVIEW_MAX_BYTES (20 * 1024 * 1024)
#define PREVIEW_MAX_PAGES 30

/* No script, nothing loaded from anywhere; the document's own inline
 * styles may apply. */
#define PREVIEW_CSP "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'"

struct _OwArtifactViewer
{
  GtkWindow   parent_instance;

  /* Template widgets */
  GtkStack   *stack;
  GtkTextView *text_view;
  GtkPicture *picture;
  GtkWidget  *pages;
  GtkWidget  *web_slot;

  char       *path;
  const char *kind;
  char       *pending_html; /* the document, while WebKit loads */
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (OwArtifactViewer, ow_artifact_viewer, GTK_TYPE_WINDOW)

const char *
ow_artifact_preview_kind (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path != NULL ? path : "", -1);
  static const char *const text_ext[] = { ".txt", ".json", ".csv", ".tsv", ".log", ".py", ".c", ".h", ".js", ".ts",
                                          ".css", ".sh", ".toml", ".yaml", ".yml", ".xml", ".rs", ".go", ".java",
                                          ".rb", ".sql", ".ini", ".cfg", NULL };

  if (g_str_has_suffix (lower, ".md") || g_str_has_suffix (lower, ".markdown"))
    return "markdown";
  if (g_str_has_suffix (lower, ".html") || g_str_has_suffix (lower, ".htm"))
    return "html";
  if (g_str_has_suffix (lower, ".pdf"))
    return "pdf";
  if (g_str_has_suffix (lower, ".png") || g_str_has_suffix (lower, ".jpg") || g_str_has_suffix (lower, ".jpeg")
      || g_str_has_suffix (lower, ".gif") || g_str_has_suffix (lower, ".webp") || g_str_has_suffix (lower, ".svg"))
    return "image";
  for (guint i = 0; text_ext[i] != NULL; i++)
    if (g_str_has_suffix (lower, text_ext[i]))
      return "text";
  return "none";
}

/* ---- Open and Show in folder ------------------------------------------------ */

void
ow_artifact_open (GtkWidget *widget, const char *path)
{
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  GtkRoot *root = widget != NULL ? gtk_widget_get_root (widget) : NULL;

  if (uri != NULL)
    gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME);
}

static void
on_show_items_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autofree char *path = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);

  /* No file manager answers the FileManager1 interface: open the folder. */
  if (reply == NULL)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      ow_artifact_open (NULL, dir);
    }
}

void
ow_artifact_show_in_folder (GtkWidget *widget, const char *path)
{
  GDBusConnection *bus = g_application_get_dbus_connection (g_application_get_default ());
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  const char *uris[] = { uri, NULL };

  if (bus == NULL || uri == NULL)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      ow_artifact_open (widget, dir);
      return;
    }
  g_dbus_connection_call (bus, "org.freedesktop.FileManager1", "/org/freedesktop/FileManager1",
                          "org.freedesktop.FileManager1", "ShowItems", g_variant_new ("(^ass)", uris, ""), NULL,
                          G_DBUS_CALL_FLAGS_NONE, 5000, NULL, on_show_items_cb, g_strdup (path));
}

static void
action_open (GtkWidget *widget, const char *name, GVariant *param)
{
  ow_artifact_open (widget, OW_ARTIFACT_VIEWER (widget)->path);
}

static void
action_show_in_folder (GtkWidget *widget, const char *name, GVariant *param)
{
  ow_artifact_show_in_folder (widget, OW_ARTIFACT_VIEWER (widget)->path);
}

/* ---- Previews -------------------------------------------------------------- */

static void
add_web (OwArtifactViewer *self, const OwWebModule *module, const char *html)
{
  /* A web view of its own for files a model wrote: no script at all. */
  GtkWidget *web = module->preview_new ();

  gtk_widget_set_vexpand (web, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (web), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Preview"), -1);
  gtk_box_append (GTK_BOX (self->web_slot), web);
  module->load_html (web, html);
}

static void
on_module_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(OwArtifactViewer) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *html = g_steal_pointer (&self->pending_html);
  const OwWebModule *module = ow_web_module_load_finish (result, &error);

  if (module == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_message ("%s", error->message);
          gtk_stack_set_visible_child_name (self->stack, "none");
        }
      return;
    }
  add_web (self, module, html);
}

/* Until WebKit is loaded (it usually is by now) the page stays empty. */
static void
show_web (OwArtifactViewer *self, const char *html)
{
  gtk_stack_set_visible_child_name (self->stack, "web");
  if (ow_web_module_get () != NULL)
    {
      add_web (self, ow_web_module_get (), html);
      return;
    }
  g_free (self->pending_html);
  self->pending_html = g_strdup (html);
  ow_web_module_load_async (self->cancellable, on_module_loaded_cb, g_object_ref (self));
}

static char *
wrap_document (const char *body_html)
{
  GString *doc = g_string_new (NULL);

  ow_html_append (doc,
                  "<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">"
                  "<style>body{font:15px/1.55 system-ui,sans-serif;max-width:820px;margin:24px auto;padding:0 24px}"
                  "pre{background:#f0f0f0;padding:8px;overflow:auto}code{font-family:monospace}"
                  "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}"
                  "@media (prefers-color-scheme:dark){body{background:#1e1e1e;color:#e6e6e6}pre{background:#2a2a2a}}"
                  "</style></head><body>%H</body></html>",
                  PREVIEW_CSP, body_html);
  return g_string_free (doc, FALSE);
}

static void
show_pdf (OwArtifactViewer *self, GBytes *bytes)
{
  g_autoptr(GError) error = NULL;
  /* poppler-glib 22 has no autoptr support: references are dropped by hand. */
  PopplerDocument *doc = poppler_document_new_from_bytes (bytes, NULL, &error);
  int n;

  if (doc == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "none");
      return;
    }
  n = MIN (poppler_document_get_n_pages (doc), PREVIEW_MAX_PAGES);
  for (int i = 0; i < n; i++)
    {
      PopplerPage *page = poppler_document_get_page (doc, i);
      double w = 0, h = 0, scale = 1.4;
      cairo_surface_t *surface;
      cairo_t *cr;
      g_autoptr(GBytes) pixels = NULL;
      g_autoptr(GdkTexture) texture = NULL;
      GtkWidget *picture;
      int pw, ph, stride;

      poppler_page_get_size (page, &w, &h);
      pw = (int) (w * scale);
      ph = (int) (h * scale);
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, pw, ph);
      cr = cairo_create (surface);
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      cairo_scale (cr, scale, scale);
      poppler_page_render (page, cr);
      g_object_unref (page);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      stride = cairo_image_surface_get_stride (surface);
      pixels = g_bytes_new (cairo_image_surface_get_data (surface), (gsize) stride * ph);
      cairo_surface_destroy (surface);
      texture = gdk_memory_texture_new (pw, ph, GDK_MEMORY_DEFAULT, pixels, stride);
      picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
      gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
      {
        g_autofree char *label = g_strdup_printf (_("Page %d"), i + 1);
        gtk_accessible_update_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      }
      gtk_box_append (GTK_BOX (self->pages), picture);
    }
  g_object_unref (doc);
  gtk_stack_set_visible_child_name (self->stack, "pdf");
}

static void
load (OwArtifactViewer *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMappedFile) map = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize len;
  const char *data;

  self->kind = ow_artifact_preview_kind (self->path);
  if (g_str_equal (self->kind, "none"))
    return;
  map = g_mapped_file_new (self->path, FALSE, &error);
  if (map == NULL || g_mapped_file_get_length (map) > PREVIEW_MAX_BYTES)
    {
      self->kind = "none";
      return;
    }
  bytes = g_mapped_file_get_bytes (map);
  data = g_bytes_get_data (bytes, &len);

  if (g_str_equal (self->kind, "image"))
    {
      g_autoptr(GdkTexture) texture = gdk_texture_new_from_bytes (bytes, NULL);
      if (texture == NULL)
        {
          self->kind = "none";
          return;
        }
      gtk_picture_set_paintable (self->picture, GDK_PAINTABLE (texture));
      gtk_stack_set_visible_child_name (self->stack, "image");
    }
  else if (g_str_equal (self->kind, "pdf"))
    show_pdf (self, bytes);
  else
    {
      g_autofree char *text = g_utf8_make_valid (data, (gssize) len);

      if (g_str_equal (self->kind, "markdown"))
        {
          g_autofree char *body = ow_markdown_to_html (text);
          g_autofree char *doc = wrap_document (body);
          show_web (self, doc);
        }
      else if (g_str_equal (self->kind, "html"))
        {
          /* The policy goes first, so it is in force before anything the
           * file says; script is off in the view's settings anyway. */
          g_autoptr(GString) doc = g_string_new (NULL);
          ow_html_append (doc, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">", PREVIEW_CSP);
          g_string_append (doc, text);
          show_web (self, doc->str);
        }
      else
        {
          gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_view), text, -1);
          gtk_stack_set_visible_child_name (self->stack, "text");
        }
    }
}

const char *
ow_artifact_viewer_get_kind (OwArtifactViewer *self)
{
  return self->kind;
}

static void
ow_artifact_viewer_finalize (GObject *object)
{
  OwArtifactViewer *self = OW_ARTIFACT_VIEWER (object);

  g_free (self->path);
  g_free (self->pending_html);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (ow_artifact_viewer_parent_class)->finalize (object);
}

static void
ow_artifact_viewer_dispose (GObject *object)
{
  /* The stack is both a template child and the window's child: take it
   * from the window first, or GtkWindow's own dispose would unparent it
   * again after the template has dropped it. */
  g_cancellable_cancel (OW_ARTIFACT_VIEWER (object)->cancellable);
  gtk_window_set_child (GTK_WINDOW (object), NULL);
  gtk_widget_dispose_template (GTK_WIDGET (object), OW_TYPE_ARTIFACT_VIEWER);
  G_OBJECT_CLASS (ow_artifact_viewer_parent_class)->dispose (object);
}

static void
ow_artifact_viewer_class_init (OwArtifactViewerClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = ow_artifact_viewer_finalize;
  G_OBJECT_CLASS (klass)->dispose = ow_artifact_viewer_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-artifact-viewer.ui");
  gtk_widget_class_bind_template_child (widget_class, OwArtifactViewer, stack);
  gtk_widget_class_bind_template_child (widget_class, OwArtifactViewer, text_view);
  gtk_widget_class_bind_template_child (widget_class, OwArtifactViewer, picture);
  gtk_widget_class_bind_template_child (widget_class, OwArtifactViewer, pages);
  gtk_widget_class_bind_template_child (widget_class, OwArtifactViewer, web_slot);
  gtk_widget_class_install_action (widget_class, "artifact.open", NULL, action_open);
  gtk_widget_class_install_action (widget_class, "artifact.show-in-folder", NULL, action_show_in_folder);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ow_artifact_viewer_init (OwArtifactViewer *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->kind = "none";
  self->cancellable = g_cancellable_new ();
}

GtkWidget *
ow_artifact_viewer_new (GtkWindow *parent, const char *path)
{
  OwArtifactViewer *self = g_object_new (OW_TYPE_ARTIFACT_VIEWER, "transient-for", parent, NULL);
  g_autofree char *name = g_path_get_basename (path);

  self->path = g_strdup (path);
  gtk_window_set_title (GTK_WINDOW (self), name);
  load (self);
  return GTK_WIDGET (self);
}
