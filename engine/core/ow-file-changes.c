/* ow-file-changes.c: which files a shell command made or changed (see
 * ow-file-changes.h). */
#define G_LOG_DOMAIN "ow-file-changes"

#include "core/ow-file-changes.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/body/ow-tb.h"

typedef struct {
  gint64  size;
  gint64  mtime_ns;
  guint64 ino;
} Stamp;

struct _OwFileSnapshot {
  GHashTable *files;     /* absolute path → Stamp* */
  gboolean    complete;  /* no bound was hit */
};

typedef struct {
  OwFileSnapshot *snap;
  guint           budget;
  gint64          deadline_us;
} Walk;

static gboolean
over (Walk *w)
{
  if (w->budget == 0 || g_get_monotonic_time () > w->deadline_us)
    {
      w->snap->complete = FALSE;
      return TRUE;
    }
  return FALSE;
}

/* Walks @dir_fd (owned) without following links. */
static void
walk (Walk *w, int dir_fd, const char *path, guint depth)
{
  DIR *dir = fdopendir (dir_fd);
  struct dirent *de;

  if (dir == NULL)
    {
      close (dir_fd);
      return;
    }
  while (!over (w) && (de = readdir (dir)) != NULL)
    {
      struct stat st;
      g_autofree char *child = NULL;

      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      w->budget--;
      if (fstatat (dirfd (dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      child = g_build_filename (path, de->d_name, NULL);
      if (S_ISDIR (st.st_mode))
        {
          int fd;

          if (depth >= 32 || ow_tb_name_in_list (de->d_name, ow_tb_list_ignored_dirs))
            continue;
          fd = openat (dirfd (dir), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (fd >= 0)
            walk (w, fd, child, depth + 1);
        }
      else if (S_ISREG (st.st_mode))
        {
          Stamp *s = g_new (Stamp, 1);

          s->size = st.st_size;
          s->mtime_ns = (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
          s->ino = st.st_ino;
          g_hash_table_replace (w->snap->files, g_steal_pointer (&child), s);
        }
    }
  closedir (dir);
}

static guint time_limit_ms = OW_FILE_CHANGES_MAX_MS;   /* read by the walking threads */

void
ow_file_changes_set_time_limit (guint ms)
{
  g_atomic_int_set (&time_limit_ms, ms != 0 ? ms : OW_FILE_CHANGES_MAX_MS);
}

OwFileSnapshot *
ow_file_snapshot_take (const char *const *roots)
{
  OwFileSnapshot *snap = g_new0 (OwFileSnapshot, 1);
  Walk w = { snap, OW_FILE_CHANGES_MAX_ENTRIES,
             g_get_monotonic_time () + (gint64) g_atomic_int_get (&time_limit_ms) * 1000 };

  snap->files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  snap->complete = TRUE;
  for (guint i = 0; roots != NULL && roots[i] != NULL && !over (&w); i++)
    {
      int fd = open (roots[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

      if (fd >= 0)
        walk (&w, fd, roots[i], 0);
    }
  return snap;
}

void
ow_file_snapshot_free (OwFileSnapshot *snapshot)
{
  if (snapshot == NULL)
    return;
  g_hash_table_unref (snapshot->files);
  g_free (snapshot);
}

/* g_ptr_array_sort passes pointers to the elements. */
static int
by_path (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
ow_file_snapshot_changes (OwFileSnapshot *before, OwFileSnapshot *after)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (before != NULL && after != NULL, out);
  g_hash_table_iter_init (&iter, after->files);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const Stamp *now = value;
      const Stamp *was = g_hash_table_lookup (before->files, key);

      if (was == NULL ? before->complete
                      : was->size != now->size || was->mtime_ns != now->mtime_ns || was->ino != now->ino)
        g_ptr_array_add (out, g_strdup (key));
    }
  g_ptr_array_sort (out, by_path);
  if (out->len > OW_FILE_CHANGES_MAX_LISTED)
    g_ptr_array_set_size (out, OW_FILE_CHANGES_MAX_LISTED);
  return out;
}

/* ---- In a worker thread ------------------------------------------------------ */

typedef struct {
  GStrv           roots;
  OwFileSnapshot *before;  /* changes: the snapshot to compare with (owned), else NULL */
} ScanData;

static void
scan_data_free (ScanData *d)
{
  g_strfreev (d->roots);
  ow_file_snapshot_free (d->before);
  g_free (d);
}

static GTask *
scan_task_new (gpointer tag, const char *const *roots, OwFileSnapshot *before, GCancellable *cancellable,
               GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  ScanData *d = g_new0 (ScanData, 1);

  g_task_set_source_tag (task, tag);
  /* Bounded, and its result is wanted even when the run stops. */
  g_task_set_check_cancellable (task, FALSE);
  d->roots = g_strdupv ((char **) roots);
  d->before = before;
  g_task_set_task_data (task, d, (GDestroyNotify) scan_data_free);
  return task;
}

static void
take_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ScanData *d = task_data;

  g_task_return_pointer (task, ow_file_snapshot_take ((const char *const *) d->roots),
                         (GDestroyNotify) ow_file_snapshot_free);
}

void
ow_file_snapshot_take_async (const char *const  *roots,
                             GCancellable       *cancellable,
                             GAsyncReadyCallback callback,
                             gpointer            user_data)
{
  g_autoptr(GTask) task = scan_task_new (ow_file_snapshot_take_async, roots, NULL, cancellable, callback,
                                         user_data);

  g_task_run_in_thread (task, take_thread);
}

OwFileSnapshot *
ow_file_snapshot_take_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
changes_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ScanData *d = task_data;
  g_autoptr(OwFileSnapshot) after = ow_file_snapshot_take ((const char *const *) d->roots);

  g_task_return_pointer (task, ow_file_snapshot_changes (d->before, after), (GDestroyNotify) g_ptr_array_unref);
}

void
ow_file_snapshot_changes_async (OwFileSnapshot     *before,
                                const char *const  *roots,
                                GCancellable       *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (before != NULL);
  task = scan_task_new (ow_file_snapshot_changes_async, roots, before, cancellable, callback, user_data);
  g_task_run_in_thread (task, changes_thread);
}

GPtrArray *
ow_file_snapshot_changes_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
