/* ow-web-module.c: opening the ow-webkit module (see ow-web-module.h). */
#define G_LOG_DOMAIN "ow-web-module"

#include "config-ui.h"
#include "ow-web-module.h"

#include <gmodule.h>

#define MODULE_NAME "ow-webkit." G_MODULE_SUFFIX

/* Main thread only. */
static const OwWebModule *loaded;
static GError            *load_error;  /* a failed load is not retried */
static gboolean           loading;     /* a worker thread is opening it */
static GPtrArray         *waiters;     /* GTasks of ow_web_module_load_async() */

gboolean
ow_web_have_render_node (void)
{
  static int have = -1;

  if (have < 0)
    {
      g_autoptr(GDir) dir = g_dir_open ("/dev/dri", 0, NULL);
      const char *name;

      have = 0;
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        if (g_str_has_prefix (name, "renderD"))
          have = 1;
    }
  return have == 1;
}

static gboolean set_gdk_debug;

void
ow_web_prefer_software (void)
{
  if (ow_web_have_render_node ())
    return;
  if (g_getenv ("GSK_RENDERER") == NULL)
    g_setenv ("GSK_RENDERER", "cairo", TRUE);
  if (g_getenv ("GDK_DEBUG") == NULL)
    {
      g_setenv ("GDK_DEBUG", "gl-disable", TRUE);
      set_gdk_debug = TRUE;
    }
}

void
ow_web_software_settled (void)
{
  /* GDK read it when the display opened. GSK_RENDERER stays: GTK reads it
   * again for every window. */
  if (set_gdk_debug)
    g_unsetenv ("GDK_DEBUG");
  set_gdk_debug = FALSE;
}

/* $OW_WEB_MODULE_DIR; else the build tree for a program that runs from
 * it (tests, benchmarks, a developer's build); else the installed one. */
static char *
module_path (void)
{
  const char *dir = g_getenv ("OW_WEB_MODULE_DIR");
  g_autofree char *exe = NULL;

  if (dir != NULL && dir[0] != '\0')
    return g_build_filename (dir, MODULE_NAME, NULL);
  exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe != NULL && g_str_has_prefix (exe, OW_BUILD_ROOT G_DIR_SEPARATOR_S))
    return g_build_filename (OW_WEB_MODULE_BUILD_DIR, MODULE_NAME, NULL);
  return g_build_filename (OW_WEB_MODULE_DIR, MODULE_NAME, NULL);
}

/* Any thread: the dynamic loader's share of the work. */
static GModule *
open_module (GError **error)
{
  g_autofree char *path = module_path ();
  GModule *module = g_module_open (path, G_MODULE_BIND_LOCAL);

  if (module == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 "The web view module could not be loaded (%s); reinstall OpenWorker, or point "
                 "OW_WEB_MODULE_DIR at the folder holding %s.",
                 g_module_error (), MODULE_NAME);
  return module;
}

/* Main thread: asks the opened module for its table. */
static void
adopt (GModule *module)
{
  OwWebModuleEntryFunc entry = NULL;
  const OwWebModule *table = NULL;

  if (loaded != NULL || load_error != NULL)
    {
      g_module_close (module);
      return;
    }
  if (g_module_symbol (module, OW_WEB_MODULE_ENTRY, (gpointer *) &entry) && entry != NULL)
    table = entry (OW_WEB_MODULE_ABI, !ow_web_have_render_node ());
  if (table == NULL)
    {
      g_set_error (&load_error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "The web view module %s belongs to another version of OpenWorker; reinstall OpenWorker.",
                   g_module_name (module));
      g_module_close (module);
      return;
    }
  /* WebKit cannot be unloaded. */
  g_module_make_resident (module);
  loaded = table;
  g_debug ("Loaded %s", g_module_name (module));
}

static void
complete_waiters (void)
{
  g_autoptr(GPtrArray) tasks = g_steal_pointer (&waiters);

  for (guint i = 0; tasks != NULL && i < tasks->len; i++)
    {
      GTask *task = g_ptr_array_index (tasks, i);

      if (loaded != NULL)
        g_task_return_pointer (task, (gpointer) loaded, NULL);
      else
        g_task_return_error (task, g_error_copy (load_error));
    }
}

const OwWebModule *
ow_web_module_get (void)
{
  return loaded;
}

const OwWebModule *
ow_web_module_load (GError **error)
{
  if (loaded == NULL && load_error == NULL)
    {
      GModule *module = open_module (&load_error);

      if (module != NULL)
        adopt (module);
      /* A load still running on a thread finds the module adopted. */
      if (!loading)
        complete_waiters ();
    }
  if (loaded == NULL && error != NULL)
    *error = g_error_copy (load_error);
  return loaded;
}

static void
open_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  GModule *module = open_module (&error);

  if (module != NULL)
    g_task_return_pointer (task, module, NULL);
  else
    g_task_return_error (task, error);
}

static void
on_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  GModule *module = g_task_propagate_pointer (G_TASK (result), &error);

  loading = FALSE;
  if (module != NULL)
    adopt (module);
  else if (loaded == NULL && load_error == NULL)
    load_error = g_steal_pointer (&error);
  complete_waiters ();
}

void
ow_web_module_load_async (GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, ow_web_module_load_async);
  if (loaded != NULL)
    {
      g_task_return_pointer (task, (gpointer) loaded, NULL);
      g_object_unref (task);
      return;
    }
  if (load_error != NULL)
    {
      g_task_return_error (task, g_error_copy (load_error));
      g_object_unref (task);
      return;
    }
  if (waiters == NULL)
    waiters = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (waiters, task);
  if (!loading)
    {
      g_autoptr(GTask) opener = g_task_new (NULL, NULL, on_opened_cb, NULL);

      loading = TRUE;
      g_task_run_in_thread (opener, open_in_thread);
    }
}

const OwWebModule *
ow_web_module_load_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
