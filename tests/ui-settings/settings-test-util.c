/* settings-test-util.c: see settings-test-util.h. */
#include "settings-test-util.h"

#include <glib/gstdio.h>
#include <string.h>

#include "ow-settings-io.h"

void
settings_home_init (SettingsHome *home, const char *config_toml)
{
  g_autofree char *tmpl = g_build_filename (g_get_home_dir (), "ow-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  OwContextOptions options = { 0 };

  home->dir = g_mkdtemp_full (g_steal_pointer (&tmpl), 0700);
  g_assert_nonnull (home->dir);
  home->paths = ow_paths_new_under (home->dir);
  g_assert_true (ow_paths_ensure_dir (home->paths->config_dir, &error));
  if (config_toml != NULL)
    {
      g_autofree char *path = g_build_filename (home->paths->config_dir, "config.toml", NULL);
      g_assert_true (g_file_set_contents (path, config_toml, -1, &error));
    }
  home->secrets = ow_secret_store_new_default (home->paths);
  options.paths = home->paths;
  options.secrets = home->secrets;
  home->ctx = ow_context_new (&options, &error);
  g_assert_no_error (error);
}

static gboolean
only_home_holds (gpointer data)
{
  return G_OBJECT (data)->ref_count == 1;
}

void
settings_home_clear (SettingsHome *home)
{
  /* The windows are gone by now. A read a page started in a worker
   * thread (the home scan, the machines, the model list) may hold the
   * context a moment longer; once those are done, the home's reference
   * is the last, and the context and the secret store go with it. */
  ow_test_wait_until (only_home_holds, home->ctx, "the settings pages' reads to let the context go");
  g_assert_finalize_object (g_steal_pointer (&home->ctx));
  g_assert_finalize_object (g_steal_pointer (&home->secrets));
  g_clear_pointer (&home->paths, ow_paths_free);
  g_clear_pointer (&home->dir, g_free);
}

char *
settings_home_config (SettingsHome *home)
{
  g_autofree char *path = ow_context_dup_config_path (home->ctx);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  return text;
}

typedef struct {
  SettingsHome *home;
  const char   *needle;
} Holds;

static gboolean
config_holds (gpointer data)
{
  Holds *h = data;
  g_autofree char *text = settings_home_config (h->home);

  /* The file, and then the write reported back: the context has read the
   * file again by then, so what the engine sees can be checked next. */
  return strstr (text, h->needle) != NULL && ow_settings_io_get_in_flight () == 0;
}

void
wait_config_holds (SettingsHome *home, const char *needle)
{
  Holds h = { home, needle };
  g_autofree char *what = g_strdup_printf ("config.toml to hold %s", needle);

  ow_test_wait_until (config_holds, &h, what);
}

void
close_window (gpointer window)
{
  g_object_ref (window);
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
}

GtkWidget *
find_named (GtkWidget *root, const char *name, GType type)
{
  /* The widget's name, or the id a template gave it. */
  if ((g_strcmp0 (gtk_widget_get_name (root), name) == 0
       || g_strcmp0 (gtk_buildable_get_buildable_id (GTK_BUILDABLE (root)), name) == 0)
      && (type == G_TYPE_INVALID || G_TYPE_CHECK_INSTANCE_TYPE (root, type)))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_named (c, name, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

GtkWidget *
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

GtkLabel *
find_label (GtkWidget *root, const char *text)
{
  if (GTK_IS_LABEL (root) && strstr (gtk_label_get_label (GTK_LABEL (root)), text) != NULL)
    return GTK_LABEL (root);
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkLabel *found = find_label (c, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

GtkWidget *
find_toplevel (GType type, GtkWidget *not)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);
      if (w != not && G_TYPE_CHECK_INSTANCE_TYPE (w, type))
        return w;
    }
  return NULL;
}

static gboolean
has_size (gpointer data)
{
  return gtk_widget_get_width (data) > 0 && gtk_widget_get_mapped (data);
}

void
screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("OW_SCREENSHOT_DIR");
  GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (widget));
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  int width, height;

  if (dir == NULL)
    return;
  ow_test_wait_until (has_size, window, "the window to be drawn");
  ow_test_spin_for (300);   /* let transitions and async fills settle */
  width = gtk_widget_get_width (window);
  height = gtk_widget_get_height (window);
  paintable = gtk_widget_paintable_new (window);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_mkdir_with_parents (dir, 0755);
  path = g_strdup_printf ("%s/%s.png", dir, name);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}
