/* ow-paths.c: the machine's OpenWorker folders (see ow-paths.h). */
#define G_LOG_DOMAIN "ow-paths"

#include "store/ow-paths.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "ow-json.h"

OwPaths *
ow_paths_new_under (const char *root)
{
  OwPaths *p = g_new0 (OwPaths, 1);

  p->config_dir = g_build_filename (root, "config", NULL);
  p->state_dir = g_build_filename (root, "data", NULL);
  p->runtime_dir = g_build_filename (root, "runtime", NULL);
  p->scratch_dir = g_build_filename (root, "scratch", NULL);
  return p;
}

OwPaths *
ow_paths_new_default (void)
{
  const char *home = g_getenv ("OPENWORKER_HOME");
  const char *scratch = g_getenv ("OPENWORKER_SCRATCH_BASE");
  const char *runtime;
  OwPaths *p;

  if (home != NULL && *home != '\0')
    {
      p = ow_paths_new_under (home);
      if (scratch != NULL && g_path_is_absolute (scratch))
        {
          g_free (p->scratch_dir);
          p->scratch_dir = g_strdup (scratch);
        }
      return p;
    }

  p = g_new0 (OwPaths, 1);
  p->config_dir = g_build_filename (g_get_user_config_dir (), "openworker", NULL);
  p->state_dir = g_build_filename (g_get_user_data_dir (), "openworker", NULL);
  /* g_get_user_runtime_dir() falls back to the cache folder when
   * XDG_RUNTIME_DIR is unset; tokens must stay private, so prefer the state
   * folder (0700) in that case. */
  runtime = g_getenv ("XDG_RUNTIME_DIR");
  if (runtime != NULL && *runtime != '\0')
    p->runtime_dir = g_build_filename (runtime, "openworker", NULL);
  else
    p->runtime_dir = g_build_filename (p->state_dir, "runtime", NULL);
  if (scratch != NULL && g_path_is_absolute (scratch))
    p->scratch_dir = g_strdup (scratch);
  else
    p->scratch_dir = g_build_filename (g_get_home_dir (), "OpenWorker", NULL);
  return p;
}

OwPaths *
ow_paths_copy (const OwPaths *paths)
{
  OwPaths *p = g_new0 (OwPaths, 1);

  p->config_dir = g_strdup (paths->config_dir);
  p->state_dir = g_strdup (paths->state_dir);
  p->runtime_dir = g_strdup (paths->runtime_dir);
  p->scratch_dir = g_strdup (paths->scratch_dir);
  return p;
}

void
ow_paths_free (OwPaths *paths)
{
  if (paths == NULL)
    return;
  g_free (paths->config_dir);
  g_free (paths->state_dir);
  g_free (paths->runtime_dir);
  g_free (paths->scratch_dir);
  g_free (paths);
}

gboolean
ow_paths_ensure_dir (const char *path, GError **error)
{
  if (g_mkdir_with_parents (path, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not create the folder %s: %s", path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
ow_write_file_atomic (const char *path, const char *contents, gssize len, int mode, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmpl = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  gsize remaining = len < 0 ? strlen (contents) : (gsize) len;
  const char *p = contents;
  int fd;

  fd = g_mkstemp_full (tmpl, O_WRONLY | O_CLOEXEC, mode);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not write %s: %s", path, g_strerror (saved));
      return FALSE;
    }
  while (remaining > 0)
    {
      ssize_t n = write (fd, p, remaining);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          close (fd);
          g_unlink (tmpl);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Could not write %s: %s", path, g_strerror (saved));
          return FALSE;
        }
      p += n;
      remaining -= (gsize) n;
    }
  if (fsync (fd) != 0 || close (fd) != 0 || g_rename (tmpl, path) != 0)
    {
      int saved = errno;
      g_unlink (tmpl);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not write %s: %s", path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

GPtrArray *
ow_paths_load_trusted_workspaces (const OwPaths *paths)
{
  g_autofree char *path = g_build_filename (paths->state_dir, "workspace_trust.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) obj = NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  JsonArray *arr;
  gsize len = 0;

  if (!g_file_get_contents (path, &text, &len, NULL) || len > 1024 * 1024)
    return out;
  obj = ow_json_object_from_string (text, (gssize) len, NULL);
  arr = obj != NULL ? ow_json_get_array (obj, "trusted_workspaces") : NULL;
  for (guint i = 0; arr != NULL && i < json_array_get_length (arr); i++)
    {
      JsonNode *n = json_array_get_element (arr, i);
      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        g_ptr_array_add (out, g_strdup (json_node_get_string (n)));
    }
  return out;
}

gboolean
ow_paths_workspace_trusted (const OwPaths *paths, const char *workspace)
{
  g_autoptr(GPtrArray) trusted = NULL;

  if (paths == NULL || workspace == NULL)
    return FALSE;
  trusted = ow_paths_load_trusted_workspaces (paths);
  for (guint i = 0; i < trusted->len; i++)
    if (g_str_equal (g_ptr_array_index (trusted, i), workspace))
      return TRUE;
  return FALSE;
}
