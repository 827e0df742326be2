/* ow-tb-paths.c: where a path really points, and whether it may be used.
 *
 * A session works in a few folders ("roots"); roots[0] is primary and
 * relative paths resolve there. Reads may touch any root; writes only a
 * writable one — the deepest root that contains a path decides, so a
 * read-only folder granted inside a writable workspace stays read-only.
 * This rule holds in every approval mode: it is the file tools' own floor.
 *
 * Checks are made on the canonical path, never on the text: ".." is
 * applied after symlinks in the prefix are resolved, and a symlink inside
 * a root that points outside it is caught. Only the longest existing
 * prefix can be resolved, so the tail of a new file's path is appended
 * as written (minus "." and ".."). This is the same answer realpath gives
 * for existing paths, extended to paths that do not exist yet.
 *
 * A check on a path name is only good until the name changes: swap a
 * folder for a symlink to somewhere else between the check and the open,
 * and the open lands outside. So the file tools never open the name they
 * checked: they open a descriptor of the root and walk the canonical
 * path below it with openat2 (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS), in which the kernel itself refuses to leave the
 * root or follow any link. The canonical path already went through every
 * symlink that was there when it was checked (an in-root link works as
 * it always did), so a link met now was put there since and is refused.
 * Where the kernel has no openat2 (before Linux 5.6) the same walk is made
 * one component at a time with O_NOFOLLOW, which gives the same answer.
 */
#include "ow-tb-private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2_H 1
#endif
#endif

/* Linux gives up after 40 links in one lookup; so do we. */
#define MAX_SYMLINKS 40

const char *const ow_tb_list_ignored_dirs[] = {
  ".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
  "node_modules", "dist", "build", NULL,
};

const char *const ow_tb_grep_ignored_dirs[] = {
  ".git", "node_modules", "target", "dist", "build", ".venv", "venv", "__pycache__", ".next",
  ".mypy_cache", ".pytest_cache", ".ruff_cache", ".idea", "Library", "AppData",
  "Application Data", NULL,
};

int
ow_tb_name_in_list (const char *name, const char *const *list)
{
  for (size_t i = 0; list[i] != NULL; i++)
    if (strcmp (name, list[i]) == 0)
      return 1;
  return 0;
}

/* Drops the last component of @cur ("" stands for "/"). */
static void
pop_component (OwTbBuf *cur)
{
  char *slash = strrchr (cur->data, '/');

  if (slash == NULL)
    return;
  cur->len = (size_t) (slash - cur->data);
  cur->data[cur->len] = '\0';
}

char *
ow_tb_path_canonical (const char *abs)
{
  OwTbBuf cur, rest, next;
  size_t at = 0;
  int links = 0;

  ow_tb_buf_init (&cur);  /* the resolved prefix, without a trailing '/' */
  ow_tb_buf_init (&rest); /* what is still to be walked */
  ow_tb_buf_init (&next);
  ow_tb_buf_puts (&rest, abs);

  while (at < rest.len)
    {
      size_t start, clen;
      struct stat st;

      while (at < rest.len && rest.data[at] == '/')
        at++;
      if (at >= rest.len)
        break;
      start = at;
      while (at < rest.len && rest.data[at] != '/')
        at++;
      clen = at - start;
      if (clen == 1 && rest.data[start] == '.')
        continue;
      if (clen == 2 && rest.data[start] == '.' && rest.data[start + 1] == '.')
        {
          pop_component (&cur);
          continue;
        }
      ow_tb_buf_append (&cur, "/", 1);
      ow_tb_buf_append (&cur, rest.data + start, clen);
      if (lstat (cur.data, &st) == 0 && S_ISLNK (st.st_mode))
        {
          char target[PATH_MAX];
          ssize_t n;

          if (++links > MAX_SYMLINKS)
            {
              ow_tb_buf_free (&cur);
              ow_tb_buf_free (&rest);
              ow_tb_buf_free (&next);
              errno = ELOOP;
              return NULL;
            }
          n = readlink (cur.data, target, sizeof target - 1);
          if (n < 0)
            continue; /* vanished meanwhile: keep the name as written */
          target[n] = '\0';
          /* The link stands for its target: walk the target, then the
           * rest of the original path. */
          pop_component (&cur);
          if (target[0] == '/')
            ow_tb_buf_reset (&cur);
          ow_tb_buf_reset (&next);
          ow_tb_buf_append (&next, target, (size_t) n);
          ow_tb_buf_append (&next, "/", 1);
          ow_tb_buf_append (&next, rest.data + at, rest.len - at);
          ow_tb_buf_reset (&rest);
          ow_tb_buf_append (&rest, next.data, next.len);
          at = 0;
        }
    }
  ow_tb_buf_free (&rest);
  ow_tb_buf_free (&next);
  if (cur.len == 0)
    ow_tb_buf_puts (&cur, "/");
  return ow_tb_buf_steal (&cur);
}

/* 1 when canonical @abs is @root or below it. */
static int
path_within (const char *abs, const char *root)
{
  size_t n = strlen (root);

  if (n == 1 && root[0] == '/')
    return 1;
  return strncmp (abs, root, n) == 0 && (abs[n] == '\0' || abs[n] == '/');
}

/* Roots are documented as canonical, but a root under a symlinked folder
 * (/tmp on some systems) would make every check fail, so they get the
 * same treatment as the paths checked against them. */
static char *
root_canonical (const OwTbRoot *root)
{
  char *c = ow_tb_path_canonical (root->path);

  return c != NULL ? c : ow_tb_xstrdup (root->path);
}

const OwTbRoot *
ow_tb_path_root (const OwTbEnv *env, const char *abs)
{
  const OwTbRoot *best = NULL;
  size_t best_len = 0;

  for (size_t i = 0; i < env->n_roots; i++)
    {
      char *root = root_canonical (&env->roots[i]);
      size_t len = strlen (root);

      if (path_within (abs, root) && (best == NULL || len > best_len))
        {
          best = &env->roots[i];
          best_len = len;
        }
      free (root);
    }
  return best;
}

char *
ow_tb_path_display (const OwTbEnv *env, const char *abs)
{
  char *root;
  char *display;
  size_t n;

  if (env->n_roots == 0)
    return ow_tb_xstrdup (abs);
  root = root_canonical (&env->roots[0]);
  n = strlen (root);
  if (!path_within (abs, root))
    display = ow_tb_xstrdup (abs);
  else if (n == 1)
    display = ow_tb_xstrdup (abs[1] != '\0' ? abs + 1 : ".");
  else if (abs[n] == '\0')
    display = ow_tb_xstrdup (".");
  else
    display = ow_tb_xstrdup (abs + n + 1);
  free (root);
  return display;
}

void
ow_tb_path_clear (OwTbPath *path)
{
  free (path->abs);
  free (path->display);
  path->abs = NULL;
  path->display = NULL;
  path->root = NULL;
}

int
ow_tb_path_resolve (const OwTbEnv *env, const char *raw, OwTbAccess access,
                    OwTbPath *path, OwTbBuf *out)
{
  OwTbBuf joined;
  const char *home = getenv ("HOME");
  char scratch[128];

  path->abs = NULL;
  path->display = NULL;
  path->root = NULL;
  if (env->n_roots == 0)
    {
      ow_tb_set_error (out, "this session has no folders to work in");
      return -1;
    }
  if (raw == NULL || raw[0] == '\0')
    raw = ".";

  ow_tb_buf_init (&joined);
  if ((raw[0] == '~' && (raw[1] == '\0' || raw[1] == '/')) && home != NULL && home[0] == '/')
    {
      ow_tb_buf_puts (&joined, home);
      ow_tb_buf_puts (&joined, "/");
      ow_tb_buf_puts (&joined, raw + 1);
    }
  else if (raw[0] == '/')
    ow_tb_buf_puts (&joined, raw);
  else
    {
      ow_tb_buf_puts (&joined, env->roots[0].path);
      ow_tb_buf_puts (&joined, "/");
      ow_tb_buf_puts (&joined, raw);
    }
  path->abs = ow_tb_path_canonical (joined.data);
  ow_tb_buf_free (&joined);
  if (path->abs == NULL)
    {
      ow_tb_set_error (out, "cannot resolve %s: %s", raw,
                       ow_tb_strerror (errno, scratch, sizeof scratch));
      return -1;
    }
  path->root = ow_tb_path_root (env, path->abs);
  if (access == OW_TB_ACCESS_WRITE && (path->root == NULL || !path->root->writable))
    {
      ow_tb_set_error (out, "path is not in a writable directory: %s", raw);
      ow_tb_path_clear (path);
      return -1;
    }
  if (path->root == NULL)
    {
      ow_tb_set_error (out, "path escapes the session's directories");
      ow_tb_path_clear (path);
      return -1;
    }
  path->display = ow_tb_path_display (env, path->abs);
  return 0;
}

/* ---- opening below a root ---- */

/* Set once the kernel said it has no openat2, so later opens go straight
 * to the component walk. */
static int no_openat2;

/* openat2 (@dirfd, @rel) confined below @dirfd; -1 with errno ENOSYS where
 * the kernel (or these headers) have none. */
static int
openat2_beneath (int dirfd, const char *rel, int flags, mode_t mode)
{
#if defined(HAVE_OPENAT2_H) && defined(SYS_openat2)
  struct open_how how;

  memset (&how, 0, sizeof how);
  how.flags = (unsigned long long) (flags | O_CLOEXEC);
  /* openat2 refuses a mode without O_CREAT. */
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return (int) syscall (SYS_openat2, dirfd, rel, &how, sizeof how);
#else
  (void) dirfd;
  (void) rel;
  (void) flags;
  (void) mode;
  errno = ENOSYS;
  return -1;
#endif
}

/* The fallback: one component at a time, never following a link and
 * never going up. */
static int
walk_beneath (int dirfd, const char *rel, int flags, mode_t mode)
{
  char *copy = ow_tb_xstrdup (rel);
  char *name = copy, *slash;
  int cur = dirfd, fd;

  while ((slash = strchr (name, '/')) != NULL)
    {
      int next;

      *slash = '\0';
      if (strcmp (name, "..") == 0)
        {
          errno = EXDEV;
          next = -1;
        }
      else if (name[0] == '\0' || strcmp (name, ".") == 0)
        {
          name = slash + 1;
          continue;
        }
      else
        next = openat (cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (cur != dirfd)
        {
          int saved = errno;
          close (cur);
          errno = saved;
        }
      if (next < 0)
        {
          free (copy);
          return -1;
        }
      cur = next;
      name = slash + 1;
    }
  if (strcmp (name, "..") == 0)
    {
      errno = EXDEV;
      fd = -1;
    }
  else
    fd = openat (cur, name[0] != '\0' ? name : ".", flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (cur != dirfd)
    {
      int saved = errno;
      close (cur);
      errno = saved;
    }
  free (copy);
  return fd;
}

static int
open_beneath (int dirfd, const char *rel, int flags, mode_t mode)
{
  if (!__atomic_load_n (&no_openat2, __ATOMIC_RELAXED))
    {
      int fd = openat2_beneath (dirfd, rel, flags, mode);

      if (fd >= 0 || (errno != ENOSYS && errno != E2BIG))
        return fd;
      __atomic_store_n (&no_openat2, 1, __ATOMIC_RELAXED);
    }
  return walk_beneath (dirfd, rel, flags, mode);
}

/* A descriptor of the root holding canonical @abs, and in *rel the rest
 * of @abs below it ("" for the root itself). -1 with errno EXDEV when no
 * root holds it. */
static int
open_root_of (const OwTbEnv *env, const char *abs, const char **rel)
{
  const OwTbRoot *root = ow_tb_path_root (env, abs);
  char *canonical;
  size_t n;
  int fd;

  if (root == NULL)
    {
      errno = EXDEV;
      return -1;
    }
  canonical = root_canonical (root);
  n = strlen (canonical);
  *rel = abs + (n == 1 ? 1 : n);
  while (**rel == '/')
    (*rel)++;
  fd = open (canonical, O_PATH | O_DIRECTORY | O_CLOEXEC);
  free (canonical);
  return fd;
}

int
ow_tb_open_in_root (const OwTbEnv *env, const char *abs, int flags, mode_t mode)
{
  const char *rel;
  int root = open_root_of (env, abs, &rel);
  int fd, saved;

  if (root < 0)
    return -1;
  fd = open_beneath (root, rel[0] != '\0' ? rel : ".", flags, mode);
  saved = errno;
  close (root);
  errno = saved;
  return fd;
}

char *
ow_tb_confinement_error (const char *what, const char *name, int errnum)
{
  char scratch[128];

  if (errnum == EXDEV || errnum == ELOOP)
    return ow_tb_strdup_printf ("cannot %s %s: the path changed after it was checked (a folder on the "
                                "way is now a symbolic link, or leads outside the session's folders); "
                                "nothing was done. Use the real path instead of the link.",
                                what, name);
  return ow_tb_strdup_printf ("cannot %s %s: %s", what, name,
                              ow_tb_strerror (errnum, scratch, sizeof scratch));
}

int
ow_tb_open_parent_in_root (const OwTbEnv *env, const char *abs, int create, const char **base,
                           char **error)
{
  const char *rel;
  const char *last = strrchr (abs, '/');
  int cur = open_root_of (env, abs, &rel);
  size_t at = 0, end;

  *base = last != NULL ? last + 1 : abs;
  if (cur < 0)
    {
      *error = ow_tb_confinement_error ("write", abs, errno);
      return -1;
    }
  if (rel[0] == '\0')
    {
      *error = ow_tb_strdup_printf ("cannot write %s: it is a folder", abs);
      close (cur);
      return -1;
    }
  /* Only the folders above the last component are walked. */
  end = (size_t) (*base - rel);
  while (at < end)
    {
      size_t len = 0;
      char *name;
      int next;

      while (at + len < end && rel[at + len] != '/')
        len++;
      name = ow_tb_xstrndup (rel + at, len);
      next = open_beneath (cur, name, O_PATH | O_DIRECTORY, 0);
      if (next < 0 && errno == ENOENT && create)
        {
          if (mkdirat (cur, name, 0777) != 0 && errno != EEXIST)
            {
              *error = ow_tb_strdup_printf ("cannot create folder %.*s: %s",
                                            (int) (rel + at + len - abs), abs, strerror (errno));
              free (name);
              close (cur);
              return -1;
            }
          next = open_beneath (cur, name, O_PATH | O_DIRECTORY, 0);
        }
      if (next < 0)
        {
          struct stat st;

          /* Without openat2 a link met on the way reads as "not a folder". */
          if (errno == ENOTDIR && fstatat (cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
            errno = ELOOP;
          if (errno == ENOTDIR)
            *error = ow_tb_strdup_printf ("cannot create folder %.*s: a file of that name exists",
                                          (int) (rel + at + len - abs), abs);
          else
            *error = ow_tb_confinement_error ("write", abs, errno);
          free (name);
          close (cur);
          return -1;
        }
      free (name);
      close (cur);
      cur = next;
      at += len + 1;
    }
  return cur;
}

int
ow_tb_path_writable (const OwTbRoot *roots, size_t n_roots, const char *raw)
{
  OwTbEnv env = { .roots = roots, .n_roots = n_roots, .cancel_fd = -1 };
  OwTbPath path;
  OwTbBuf out;
  int ok;

  ow_tb_buf_init (&out);
  ok = ow_tb_path_resolve (&env, raw, OW_TB_ACCESS_WRITE, &path, &out) == 0;
  if (ok)
    ow_tb_path_clear (&path);
  ow_tb_buf_free (&out);
  return ok;
}
