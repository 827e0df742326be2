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
 */
#include "ow-tb-private.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
