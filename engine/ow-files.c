/* ow-files.c: file-system helpers the engine's modules share.
 *
 * ow_remove_tree() works on descriptors: each folder is opened with
 * O_NOFOLLOW relative to its parent's descriptor and its entries are
 * removed with unlinkat(), so a link swapped in while the walk runs cannot
 * lead it out of the tree.
 */
#include "ow-files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REMOVE_MAX_DEPTH 256

static void
keep_first_error (GError **first, int errsv, const char *what, const char *name)
{
  if (first != NULL && *first == NULL)
    g_set_error (first, G_IO_ERROR, g_io_error_from_errno (errsv), "Could not %s \"%s\": %s",
                 what, name, g_strerror (errsv));
}

/* Empties the folder open as @fd (owned), which is on @dev. */
static void
empty_folder (int fd, dev_t dev, const char *shown, int depth, GError **first)
{
  DIR *dir;
  struct dirent *e;

  if (depth > REMOVE_MAX_DEPTH)
    {
      if (first != NULL && *first == NULL)
        g_set_error (first, G_IO_ERROR, G_IO_ERROR_FAILED,
                     "Could not remove \"%s\": folders are nested more than %d deep there",
                     shown, REMOVE_MAX_DEPTH);
      close (fd);
      return;
    }
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      keep_first_error (first, errno, "read", shown);
      close (fd);
      return;
    }
  while ((e = readdir (dir)) != NULL)
    {
      struct stat st;

      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      if (fstatat (dirfd (dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          if (errno != ENOENT)
            keep_first_error (first, errno, "look at", e->d_name);
          continue;
        }
      if (S_ISDIR (st.st_mode))
        {
          int child;

          if (st.st_dev != dev)
            {
              keep_first_error (first, EXDEV, "remove (another file system is mounted there)",
                                e->d_name);
              continue;
            }
          if ((st.st_mode & 0700) != 0700)
            (void) fchmodat (dirfd (dir), e->d_name, st.st_mode | 0700, 0);
          child = openat (dirfd (dir), e->d_name,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (child < 0)
            {
              keep_first_error (first, errno, "open", e->d_name);
              continue;
            }
          empty_folder (child, dev, e->d_name, depth + 1, first);
          if (unlinkat (dirfd (dir), e->d_name, AT_REMOVEDIR) != 0 && errno != ENOENT)
            keep_first_error (first, errno, "remove", e->d_name);
        }
      else if (unlinkat (dirfd (dir), e->d_name, 0) != 0 && errno != ENOENT)
        keep_first_error (first, errno, "remove", e->d_name);
    }
  closedir (dir);
}

gboolean
ow_remove_tree (const char *path, GError **error)
{
  GError *first = NULL;
  struct stat st;
  int fd;

  g_return_val_if_fail (path != NULL && *path != '\0', FALSE);

  if (lstat (path, &st) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      keep_first_error (&first, errno, "look at", path);
      g_propagate_error (error, first);
      return FALSE;
    }
  if (!S_ISDIR (st.st_mode))
    {
      if (unlink (path) != 0 && errno != ENOENT)
        {
          keep_first_error (&first, errno, "remove", path);
          g_propagate_error (error, first);
          return FALSE;
        }
      return TRUE;
    }
  if ((st.st_mode & 0700) != 0700)
    (void) chmod (path, st.st_mode | 0700);
  fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    keep_first_error (&first, errno, "open", path);
  else
    empty_folder (fd, st.st_dev, path, 0, &first);
  if (rmdir (path) != 0 && errno != ENOENT)
    keep_first_error (&first, errno, "remove", path);
  if (first != NULL)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}
