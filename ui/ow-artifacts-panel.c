/* ow-artifacts-panel.c: the deliverables of the shown session (see
 * ow-artifacts-panel.h).
 *
 * What the session wrote (its file tools and, through files_changed, its
 * shell commands) comes from the session's event log (cheap, on the main
 * thread, where the store lives); the folder walk and the stat calls run
 * in a worker thread, since a folder can be large or slow.
 */
#define G_LOG_DOMAIN "ow-artifacts-panel"

#include "config-ui.h"
#include "ow-artifacts-panel.h"
#include "ow-ui-private.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "ow-artifact-viewer.h"
#include "ow-format.h"
#include "ow-json.h"
#include "server/ow-server-files.h"

typedef struct {
  char   *path;
  char   *name;
  gint64  size;
  gint64  mtime;
} Artifact;

struct _OwArtifactsPanel
{
  GtkWidget      parent_instance;

  /* Template widgets */
  GtkStack      *stack;
  GtkListBox    *list;

  /* Borrowed */
  OwSessionHost *host;

  char          *session_id;
  GPtrArray     *roots;       /* char*: the session's folders, resolved, and its scratch folder */
  GPtrArray     *paths;       /* char*: what is listed */
  GCancellable  *cancellable;
  guint          refresh_id;
};

G_DEFINE_FINAL_TYPE (OwArtifactsPanel, ow_artifacts_panel, GTK_TYPE_WIDGET)

static void
artifact_free (Artifact *a)
{
  g_free (a->path);
  g_free (a->name);
  g_free (a);
}

/* ---- The worker ------------------------------------------------------------------- */

typedef struct {
  GPtrArray *roots;     /* char*, resolved; [0] the primary folder */
  char      *scratch;   /* resolved, or NULL */
  GPtrArray *written;   /* char*, as the tools named them */
} Work;

static void
work_free (Work *w)
{
  g_ptr_array_unref (w->roots);
  g_free (w->scratch);
  g_ptr_array_unref (w->written);
  g_free (w);
}

static void
list_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Work *w = task_data;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) artifact_free);
  g_autoptr(GPtrArray) roots = g_ptr_array_sized_new (w->roots->len + 1);   /* borrowed strings */
  g_autoptr(JsonArray) listed = NULL;

  for (guint i = 0; i < w->roots->len; i++)
    g_ptr_array_add (roots, g_ptr_array_index (w->roots, i));
  g_ptr_array_add (roots, NULL);
  listed = ow_artifacts_list_session ((const char *const *) roots->pdata, w->scratch, w->written, OW_ARTIFACTS_MAX);
  for (guint i = 0; i < json_array_get_length (listed); i++)
    {
      JsonObject *o = json_array_get_object_element (listed, i);
      g_autoptr(GDateTime) when = g_date_time_new_from_iso8601 (ow_json_get_string (o, "modified_at"), NULL);
      Artifact *a = g_new0 (Artifact, 1);

      a->path = g_strdup (ow_json_get_string (o, "abs_path"));
      a->name = g_strdup (ow_json_get_string (o, "name"));
      a->size = json_object_get_int_member_with_default (o, "size", 0);
      a->mtime = when != NULL ? g_date_time_to_unix (when) : 0;
      g_ptr_array_add (out, a);
    }
  g_task_return_pointer (task, out, (GDestroyNotify) g_ptr_array_unref);
}

/* ---- Rows -------------------------------------------------------------------------- */

static void
on_open_clicked_cb (GtkButton *button, gpointer user_data)
{
  ow_artifact_open (GTK_WIDGET (button), g_object_get_data (G_OBJECT (button), "ow-path"));
}

static void
on_folder_clicked_cb (GtkButton *button, gpointer user_data)
{
  ow_artifact_show_in_folder (GTK_WIDGET (button), g_object_get_data (G_OBJECT (button), "ow-path"));
}

static void
on_row_activated_cb (GtkListBox *list, GtkListBoxRow *row, gpointer user_data)
{
  const char *path = g_object_get_data (G_OBJECT (row), "ow-path");
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (list));
  GtkWidget *viewer;

  if (path == NULL)
    return;
  viewer = ow_artifact_viewer_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, path);
  gtk_window_present (GTK_WINDOW (viewer));
}

static GtkWidget *
icon_button (const char *icon, const char *label, const char *path, GCallback callback)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  g_object_set_data_full (G_OBJECT (button), "ow-path", g_strdup (path), g_free);
  g_signal_connect (button, "clicked", callback, NULL);
  return button;
}

static void
show (OwArtifactsPanel *self, GPtrArray *artifacts)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  g_ptr_array_set_size (self->paths, 0);
  for (guint i = 0; i < artifacts->len; i++)
    {
      Artifact *a = g_ptr_array_index (artifacts, i);
      GtkWidget *row = gtk_list_box_row_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      GtkWidget *name = gtk_label_new (a->name);
      g_autofree char *size = ow_format_size (a->size);
      GtkWidget *meta = gtk_label_new (size);
      g_autofree char *open_label = g_strdup_printf (_("Open %s"), a->name);
      g_autofree char *folder_label = g_strdup_printf (_("Show %s in its folder"), a->name);

      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_MIDDLE);
      gtk_label_set_xalign (GTK_LABEL (meta), 0);
      gtk_widget_add_css_class (meta, "dim-label");
      gtk_widget_add_css_class (meta, "caption");
      gtk_box_append (GTK_BOX (text), name);
      gtk_box_append (GTK_BOX (text), meta);
      gtk_widget_set_hexpand (text, TRUE);
      gtk_box_append (GTK_BOX (box), gtk_image_new_from_icon_name ("text-x-generic-symbolic"));
      gtk_box_append (GTK_BOX (box), text);
      gtk_box_append (GTK_BOX (box), icon_button ("document-open-symbolic", open_label, a->path,
                                                  G_CALLBACK (on_open_clicked_cb)));
      gtk_box_append (GTK_BOX (box), icon_button ("find-location-symbolic", folder_label, a->path,
                                                  G_CALLBACK (on_folder_clicked_cb)));
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      gtk_widget_set_tooltip_text (row, a->path);
      gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, a->name, -1);
      g_object_set_data_full (G_OBJECT (row), "ow-path", g_strdup (a->path), g_free);
      gtk_list_box_append (self->list, row);
      g_ptr_array_add (self->paths, g_strdup (a->path));
    }
  gtk_stack_set_visible_child_name (self->stack, artifacts->len > 0 ? "list" : "empty");
}

static void
on_listed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GPtrArray) artifacts = g_task_propagate_pointer (G_TASK (result), NULL);

  if (artifacts == NULL)
    return;  /* cancelled: another session is shown */
  show (OW_ARTIFACTS_PANEL (source), artifacts);
}

static char *
resolve_dir (const char *path)
{
  char *real = path != NULL ? realpath (path, NULL) : NULL;
  char *out = g_strdup (real);

  free (real);
  return out;
}

void
ow_artifacts_panel_refresh (OwArtifactsPanel *self)
{
  g_autoptr(OwSession) session = NULL;
  g_autoptr(GTask) task = NULL;
  OwContext *ctx = ow_session_host_get_context (self->host);
  Work *w;

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_ptr_array_set_size (self->roots, 0);
  if (self->session_id == NULL || (session = ow_session_host_get (self->host, self->session_id, NULL)) == NULL)
    {
      g_autoptr(GPtrArray) none = g_ptr_array_new ();
      show (self, none);
      return;
    }
  w = g_new0 (Work, 1);
  w->roots = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < ow_session_get_roots (session)->len; i++)
    {
      char *real = resolve_dir (((OwRoot *) g_ptr_array_index (ow_session_get_roots (session), i))->path);
      if (real != NULL)
        g_ptr_array_add (w->roots, real);
    }
  {
    g_autofree char *dir = ow_context_dup_session_scratch (ctx, self->session_id);
    w->scratch = resolve_dir (dir);
    if (w->scratch != NULL)
      g_ptr_array_add (w->roots, g_strdup (w->scratch));
  }
  for (guint i = 0; i < w->roots->len; i++)
    g_ptr_array_add (self->roots, g_strdup (g_ptr_array_index (w->roots, i)));

  w->written = ow_artifacts_written (ow_context_get_store (ctx), self->session_id);

  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, on_listed_cb, NULL);
  g_task_set_task_data (task, w, (GDestroyNotify) work_free);
  g_task_run_in_thread (task, list_thread);
}

static gboolean
on_refresh_cb (gpointer user_data)
{
  OwArtifactsPanel *self = user_data;

  self->refresh_id = 0;
  ow_artifacts_panel_refresh (self);
  return G_SOURCE_REMOVE;
}

static void
on_session_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  OwArtifactsPanel *self = user_data;

  if (g_strcmp0 (session_id, self->session_id) != 0)
    return;
  if ((g_str_equal (event->type, "tool_finished") || g_str_equal (event->type, "turn_done")) && self->refresh_id == 0)
    self->refresh_id = g_timeout_add (200, on_refresh_cb, self);
}

void
ow_artifacts_panel_set_session (OwArtifactsPanel *self, const char *session_id)
{
  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
  ow_artifacts_panel_refresh (self);
}

GPtrArray *
ow_artifacts_panel_get_paths (OwArtifactsPanel *self)
{
  return self->paths;
}

char *
ow_artifacts_panel_resolve (OwArtifactsPanel *self, const char *relative)
{
  if (relative == NULL || *relative == '\0' || g_path_is_absolute (relative))
    return NULL;
  for (guint i = 0; i < self->roots->len; i++)
    {
      g_autofree char *full = g_build_filename (g_ptr_array_index (self->roots, i), relative, NULL);
      char *real = realpath (full, NULL);
      char *out = NULL;

      if (real != NULL && ow_path_is_under (real, g_ptr_array_index (self->roots, i))
          && g_file_test (real, G_FILE_TEST_IS_REGULAR))
        out = g_strdup (real);
      free (real);
      if (out != NULL)
        return out;
    }
  return NULL;
}

static void
ow_artifacts_panel_dispose (GObject *object)
{
  OwArtifactsPanel *self = OW_ARTIFACTS_PANEL (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_ARTIFACTS_PANEL);
  ow_widget_unparent_children (GTK_WIDGET (self));
  G_OBJECT_CLASS (ow_artifacts_panel_parent_class)->dispose (object);
}

static void
ow_artifacts_panel_finalize (GObject *object)
{
  OwArtifactsPanel *self = OW_ARTIFACTS_PANEL (object);

  g_free (self->session_id);
  g_ptr_array_unref (self->roots);
  g_ptr_array_unref (self->paths);
  G_OBJECT_CLASS (ow_artifacts_panel_parent_class)->finalize (object);
}

static void
ow_artifacts_panel_class_init (OwArtifactsPanelClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ow_artifacts_panel_dispose;
  G_OBJECT_CLASS (klass)->finalize = ow_artifacts_panel_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-artifacts-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, OwArtifactsPanel, stack);
  gtk_widget_class_bind_template_child (widget_class, OwArtifactsPanel, list);
  gtk_widget_class_bind_template_callback (widget_class, on_row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, ow_artifacts_panel_refresh);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owartifacts");
}

static void
ow_artifacts_panel_init (OwArtifactsPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->roots = g_ptr_array_new_with_free_func (g_free);
  self->paths = g_ptr_array_new_with_free_func (g_free);
}

GtkWidget *
ow_artifacts_panel_new (OwSessionHost *host)
{
  OwArtifactsPanel *self = g_object_new (OW_TYPE_ARTIFACTS_PANEL, NULL);

  self->host = host;
  g_signal_connect_object (host, "session-event", G_CALLBACK (on_session_event_cb), self, 0);
  return GTK_WIDGET (self);
}
