/* ow-safety-paths.c: where a path really lands, and what kind of place it is.
 *
 * A path is made absolute and canonicalized three ways (lexically, by
 * realpath of its longest existing prefix, and by walking it the way the
 * kernel does); the place tables then say whether it is a credential, a
 * protected file (git hooks, CI, agent or shell settings) or a place that
 * grants lasting authority. The command guard's read-only and hidden lists
 * are made from the same tables. Part of the safety checks (ow-safety.c).
 */
#define G_LOG_DOMAIN "ow-safety"

#include "policy/ow-safety-private.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- paths ---- */

/* Whether @path is @dir or below it (both absolute and normalized). */
gboolean
ow_safety_path_within (const char *path, const char *dir)
{
  gsize n = strlen (dir);

  if (n == 1 && dir[0] == '/')
    return path[0] == '/';
  if (strncmp (path, dir, n) != 0)
    return FALSE;
  return path[n] == '\0' || path[n] == '/';
}

gboolean
ow_safety_path_below (const char *path, const char *dir)
{
  return ow_safety_path_within (path, dir) && strcmp (path, dir) != 0;
}

void
ow_safety_add_unique (GPtrArray *list, char *owned)
{
  for (guint i = 0; i < list->len; i++)
    if (strcmp (g_ptr_array_index (list, i), owned) == 0)
      {
        g_free (owned);
        return;
      }
  g_ptr_array_add (list, owned);
}

void
ow_safety_forms_add (Forms *forms, char *owned)
{
  for (guint i = 0; i < forms->len; i++)
    if (strcmp (forms->item[i], owned) == 0)
      {
        g_free (owned);
        return;
      }
  if (forms->len == SAFETY_MAX_FORMS)
    {
      forms->full = TRUE;
      g_free (owned);
      return;
    }
  forms->item[forms->len++] = owned;
}

void
ow_safety_forms_clear (Forms *forms)
{
  for (guint i = 0; i < forms->len; i++)
    g_free (forms->item[i]);
  forms->len = 0;
}

/* Removes "." and ".." as text; @path is absolute. */
char *
ow_safety_normalize (const char *path)
{
  char *out = g_malloc (strlen (path) + 2);
  const char *p = path;
  gsize len = 0;

  for (;;)
    {
      gsize n;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      n = strcspn (p, "/");
      if (n == 2 && p[0] == '.' && p[1] == '.')
        {
          while (len > 0 && out[len - 1] != '/')
            len--;
          if (len > 0)
            len--;
        }
      else if (!(n == 1 && p[0] == '.'))
        {
          out[len++] = '/';
          memcpy (out + len, p, n);
          len += n;
        }
      p += n;
    }
  if (len == 0)
    out[len++] = '/';
  out[len] = '\0';
  return out;
}

char *
ow_safety_path_join (const char *dir, const char *rel)
{
  if (rel[0] == '/')
    return g_strdup (rel);
  if (strcmp (dir, "/") == 0)
    return g_strconcat ("/", rel, NULL);
  return g_strconcat (dir, "/", rel, NULL);
}

/* realpath() of the longest existing prefix of the normalized @path, with
 * the rest appended: where an existing or new path really is. */
char *
ow_safety_realpath_prefix (const char *path)
{
  char head[SAFETY_MAX_PATH + 1];
  gsize n = strlen (path);

  if (n > SAFETY_MAX_PATH)
    return g_strdup (path);
  memcpy (head, path, n + 1);
  for (;;)
    {
      char *real = realpath (head, NULL);
      char *slash;

      if (real != NULL)
        {
          /* head is a prefix of path: the rest is appended as written */
          const char *tail = path + strlen (head);
          char *joined = tail[0] != '\0'
                             ? g_strconcat (strcmp (real, "/") == 0 ? "" : real, tail, NULL)
                             : g_strdup (real);

          free (real);
          return joined;
        }
      slash = strrchr (head, '/');
      if (slash == NULL || slash == head)
        return g_strdup (path[0] == '/' ? path : "/");
      *slash = '\0';
    }
}

/* Walks @path (absolute, not normalized) the way the kernel does: a
 * symlink is followed where it stands, so "link/.." is the parent of the
 * link's target. Parts past the first missing one are appended as text.
 * NULL when the links loop. *@saw_link: a symlink was on the way. */
static char *
resolve_physical (const char *path, gboolean *saw_link)
{
  char cur[2 * SAFETY_MAX_PATH + 2];   /* what has been walked */
  const char *rest = path;             /* what is still to walk */
  char *owned = NULL;                  /* rest, once a link has rewritten it */
  gboolean exists = TRUE;
  guint links = 0;
  gsize len = 0;

  cur[0] = '\0';
  for (;;)
    {
      const char *part;
      gsize n, before;
      struct stat st;

      while (*rest == '/')
        rest++;
      if (*rest == '\0')
        break;
      part = rest;
      n = strcspn (part, "/");
      rest += n;
      if (n == 1 && part[0] == '.')
        continue;
      if (n == 2 && part[0] == '.' && part[1] == '.')
        {
          char *slash = strrchr (cur, '/');

          if (slash != NULL)
            {
              *slash = '\0';
              len = (gsize) (slash - cur);
            }
          continue;
        }
      if (len + 1 + n > 2 * SAFETY_MAX_PATH)
        goto unknown;
      before = len;
      cur[len++] = '/';
      memcpy (cur + len, part, n);
      len += n;
      cur[len] = '\0';
      if (!exists || len > SAFETY_MAX_PATH)
        continue;
      if (lstat (cur, &st) != 0)
        {
          exists = FALSE;
          continue;
        }
      if (S_ISLNK (st.st_mode))
        {
          char target[PATH_MAX + 1];
          ssize_t size = readlink (cur, target, PATH_MAX);
          char *next;

          *saw_link = TRUE;
          if (++links > SAFETY_MAX_LINKS)
            goto unknown;
          if (size <= 0)
            {
              exists = FALSE;
              continue;
            }
          target[size] = '\0';
          len = target[0] == '/' ? 0 : before;
          cur[len] = '\0';
          /* the link's text replaces its name in what is left to walk */
          next = g_strconcat (target, "/", rest, NULL);
          g_free (owned);
          owned = next;
          rest = next;
        }
    }
  g_free (owned);
  return g_strdup (len == 0 ? "/" : cur);

unknown:
  g_free (owned);
  return NULL;
}

/* Adds the real forms of @abs to @real and every form to @names; FALSE
 * when the path cannot be resolved (too long, or links loop). */
gboolean
ow_safety_add_forms (const char *abs, Forms *real, Forms *names)
{
  char *lexical, *physical;
  gboolean saw_link = FALSE;
  guint parts = 0;

  if (strlen (abs) > SAFETY_MAX_PATH)
    return FALSE;
  for (const char *p = abs; *p != '\0'; p++)
    if (*p == '/' && ++parts > SAFETY_MAX_PARTS)
      return FALSE;
  physical = resolve_physical (abs, &saw_link);
  if (physical == NULL)
    return FALSE;
  lexical = ow_safety_normalize (abs);
  {
    /* With no symlink on the way, the kernel's walk, the lexical form and
     * realpath() agree: spare realpath's readlink per component. */
    char *canonical = saw_link ? ow_safety_realpath_prefix (lexical) : g_strdup (physical);

    ow_safety_forms_add (names, g_strdup (canonical));
    ow_safety_forms_add (real, canonical);
  }
  ow_safety_forms_add (names, lexical);
  ow_safety_forms_add (real, g_strdup (physical));
  ow_safety_forms_add (names, physical);
  return TRUE;
}

/* The session's folders, the home and OpenWorker's folders are resolved
 * for every decision, and realpath() costs a readlink per component. Their
 * canonical forms are remembered per process and trusted while one stat()
 * still finds the same directory (device and inode) at the path; a
 * replaced folder or symlink is resolved afresh. A stale answer can only
 * make a path look outside (the new location's real path no longer
 * matches), never inside. */
typedef struct {
  char  *canonical;
  dev_t  dev;
  ino_t  ino;
} FolderMemo;

static void
folder_memo_free (FolderMemo *m)
{
  g_free (m->canonical);
  g_free (m);
}

static char *
canonical_folder (const char *lexical)
{
  static GMutex lock;
  static GHashTable *memo;
  struct stat st;
  FolderMemo *m;
  char *canonical;

  if (stat (lexical, &st) != 0 || !S_ISDIR (st.st_mode))
    return ow_safety_realpath_prefix (lexical);
  g_mutex_lock (&lock);
  if (memo == NULL)
    memo = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) folder_memo_free);
  m = g_hash_table_lookup (memo, lexical);
  if (m != NULL && m->dev == st.st_dev && m->ino == st.st_ino)
    {
      canonical = g_strdup (m->canonical);
      g_mutex_unlock (&lock);
      return canonical;
    }
  g_mutex_unlock (&lock);

  canonical = ow_safety_realpath_prefix (lexical);
  if (canonical == NULL)
    return NULL;
  m = g_new0 (FolderMemo, 1);
  m->canonical = g_strdup (canonical);
  m->dev = st.st_dev;
  m->ino = st.st_ino;
  g_mutex_lock (&lock);
  if (g_hash_table_size (memo) > 256)
    g_hash_table_remove_all (memo);
  g_hash_table_replace (memo, g_strdup (lexical), m);
  g_mutex_unlock (&lock);
  return canonical;
}

/* The folder as given and its canonical form. */
void
ow_safety_add_folder (GPtrArray *list, const char *dir)
{
  char *lexical;

  if (dir == NULL || dir[0] != '/' || strlen (dir) > SAFETY_MAX_PATH)
    return;
  lexical = ow_safety_normalize (dir);
  ow_safety_add_unique (list, canonical_folder (lexical));
  ow_safety_add_unique (list, lexical);
}

/* @path with the home folder written as ~, for reasons. */
char *
ow_safety_display (const Check *c, const char *path)
{
  for (guint i = 0; i < c->homes->len; i++)
    {
      const char *home = g_ptr_array_index (c->homes, i);

      if (strcmp (home, "/") != 0 && ow_safety_path_within (path, home))
        return g_strconcat ("~", path + strlen (home), NULL);
    }
  return g_strdup (path);
}

/* ---- what kind of place a path is ---- */

gboolean
ow_safety_in_writable_root (const Check *c, const char *path)
{
  for (guint i = 0; i < c->roots->len; i++)
    if (g_array_index (c->writable, gboolean, i)
        && ow_safety_path_within (path, g_ptr_array_index (c->roots, i)))
      return TRUE;
  return FALSE;
}

/* A path that every build writes and that changes nothing of the
 * person's: a file under a shared temp folder (never the folder itself,
 * never a home, session or agent folder that lives there), or a device
 * that discards or echoes. */
gboolean
ow_safety_is_device (const char *path)
{
  static const char *const devices[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                         "/dev/urandom", "/dev/tty", "/dev/stdout", "/dev/stderr",
                                         "/dev/stdin", NULL };

  for (guint i = 0; devices[i] != NULL; i++)
    if (strcmp (path, devices[i]) == 0)
      return TRUE;
  return g_str_has_prefix (path, "/dev/fd/") || g_str_has_prefix (path, "/proc/self/fd/");
}

gboolean
ow_safety_is_scratch (const Check *c, const char *path)
{
  gboolean temp = FALSE;

  if (ow_safety_is_device (path))
    return TRUE;
  for (guint i = 0; i < c->temp_dirs->len; i++)
    if (ow_safety_path_below (path, g_ptr_array_index (c->temp_dirs, i)))
      temp = TRUE;
  if (!temp)
    return FALSE;
  for (guint i = 0; i < c->homes->len; i++)
    if (ow_safety_path_within (path, g_ptr_array_index (c->homes, i))
        || ow_safety_path_within (g_ptr_array_index (c->homes, i), path))
      return FALSE;
  for (guint i = 0; i < c->agent_dirs->len; i++)
    if (ow_safety_path_within (path, g_ptr_array_index (c->agent_dirs, i))
        || ow_safety_path_within (g_ptr_array_index (c->agent_dirs, i), path))
      return FALSE;
  for (guint i = 0; i < c->roots->len; i++)
    if (ow_safety_path_within (g_ptr_array_index (c->roots, i), path)
        || ow_safety_path_within (path, g_ptr_array_index (c->roots, i)))
      return FALSE;
  return TRUE;
}

void
ow_safety_split_parts (const char *path, Parts *out)
{
  const char *p = path;

  out->path = path;
  out->n = 0;
  while (out->n <= SAFETY_MAX_PARTS)
    {
      gsize n;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      n = strcspn (p, "/");
      out->part[out->n] = p;
      out->len[out->n] = n;
      out->n++;
      p += n;
    }
}

static gboolean
part_is (const Parts *ps, guint i, const char *word)
{
  return i < ps->n && strlen (word) == ps->len[i] && memcmp (ps->part[i], word, ps->len[i]) == 0;
}

/* The last component (NUL-terminated: it ends the path). */
static const char *
last_part (const Parts *ps)
{
  return ps->n > 0 ? ps->part[ps->n - 1] : "";
}

/* Where a match of @place starts in @ps, or -1; *@exact when the path is
 * the place itself rather than something below it. */
static int
place_match (const Place *place, const Parts *ps, gboolean *exact)
{
  guint len = 0;

  while (len < G_N_ELEMENTS (place->parts) && place->parts[len] != NULL)
    len++;
  for (guint i = 0; i + len <= ps->n; i++)
    {
      guint k;

      for (k = 0; k < len; k++)
        if (!part_is (ps, i + k, place->parts[k]))
          break;
      if (k < len)
        continue;
      if (i + len == ps->n || place->folder)
        {
          *exact = i + len == ps->n;
          return (int) i;
        }
    }
  return -1;
}

/* Whether the match of a home-only place at component @at of @ps sits
 * right under one of the home folders. */
static gboolean
at_home (const Check *c, const Parts *ps, int at)
{
  gsize n = at > 0 ? (gsize) (ps->part[at] - ps->path) - 1 : 1;

  for (guint i = 0; i < c->homes->len; i++)
    {
      const char *home = g_ptr_array_index (c->homes, i);

      if (strlen (home) == n && strncmp (home, ps->path, n) == 0)
        return TRUE;
    }
  return FALSE;
}

static const Place credential_places[] = {
  { { ".ssh", NULL }, TRUE, FALSE, "SSH" },
  { { ".aws", NULL }, TRUE, FALSE, "AWS credentials" },
  { { ".gnupg", NULL }, TRUE, FALSE, "the GnuPG keyring" },
  { { ".local", "share", "keyrings", NULL }, TRUE, FALSE, "the login keyring" },
  { { ".netrc", NULL }, FALSE, FALSE, "the .netrc password file" },
  { { ".git-credentials", NULL }, FALSE, FALSE, "saved git credentials" },
  { { ".docker", "config.json", NULL }, FALSE, FALSE, "Docker registry credentials" },
  { { ".kube", "config", NULL }, FALSE, FALSE, "Kubernetes credentials" },
  { { ".config", "gh", "hosts.yml", NULL }, FALSE, FALSE, "the GitHub CLI token" },
  { { ".npmrc", NULL }, FALSE, FALSE, "the npm token file" },
  { { ".pypirc", NULL }, FALSE, FALSE, "the PyPI token file" },
  { { ".pgpass", NULL }, FALSE, FALSE, "saved PostgreSQL passwords" },
  { { ".vault-token", NULL }, FALSE, FALSE, "a Vault token" },
  { { ".config", "gcloud", NULL }, TRUE, FALSE, "Google Cloud credentials" },
  { { ".azure", NULL }, TRUE, FALSE, "Azure credentials" },
  { { ".password-store", NULL }, TRUE, FALSE, "the password store" },
  { { ".cargo", "credentials.toml", NULL }, FALSE, FALSE, "the Cargo registry token" },
  { { ".cargo", "credentials", NULL }, FALSE, FALSE, "the Cargo registry token" },
};

/* What credential @path (normalized, absolute) is, or NULL. Returns a
 * newly allocated description ("the SSH key"). */
char *
ow_safety_credential_kind (const Check *c, const char *path)
{
  Parts ps;
  const char *base;

  ow_safety_split_parts (path, &ps);
  base = last_part (&ps);
  if (strcmp (path, "/etc/shadow") == 0 || strcmp (path, "/etc/gshadow") == 0
      || strcmp (path, "/etc/shadow-") == 0 || strcmp (path, "/etc/gshadow-") == 0)
    return g_strdup ("the system's password hashes");
  if (ps.n == 3 && part_is (&ps, 0, "etc") && part_is (&ps, 1, "ssh")
      && g_str_has_prefix (base, "ssh_host_") && g_str_has_suffix (base, "_key"))
    return g_strdup ("the machine's SSH host key");
  if (ps.n == 3 && part_is (&ps, 0, "proc") && strcmp (base, "environ") == 0)
    return g_strdup ("a process's environment");
  for (guint i = 0; i < c->agent_dirs->len; i++)
    if (ow_safety_path_below (path, g_ptr_array_index (c->agent_dirs, i)))
      {
        g_autofree char *lower = g_ascii_strdown (base, -1);

        if (strstr (lower, "token") != NULL || strstr (lower, "secret") != NULL
            || strstr (lower, "credential") != NULL || strstr (lower, "key") != NULL
            || strstr (lower, "sealed") != NULL)
          return g_strdup ("OpenWorker's own secrets");
      }
  for (guint i = 0; i < G_N_ELEMENTS (credential_places); i++)
    {
      const Place *place = &credential_places[i];
      gboolean exact = FALSE;
      int at = place_match (place, &ps, &exact);

      if (at < 0)
        continue;
      if (strcmp (place->parts[0], ".ssh") == 0)
        {
          /* public keys are meant to be shared */
          if (g_str_has_suffix (base, ".pub"))
            continue;
          if (exact)
            return g_strdup ("the SSH folder");
          if (g_str_has_prefix (base, "id_"))
            return g_strdup ("the SSH key");
          return g_strdup ("the SSH file");
        }
      return g_strdup (place->what);
    }
  return NULL;
}

/* The @index-th concrete credential location (every home's credential
 * places, the system's, OpenWorker's folders), written into @buf; FALSE
 * past the last. Used for folders that contain them and globs that may
 * reach them; made on the fly, since most calls need none. */
gboolean
ow_safety_location_at (const Check *c, guint index, char *buf, gsize size)
{
  static const char *const system[] = { "/etc/shadow", "/etc/gshadow" };
  guint per_home = G_N_ELEMENTS (credential_places);

  if (index < c->homes->len * per_home)
    {
      const Place *place = &credential_places[index % per_home];

      g_strlcpy (buf, g_ptr_array_index (c->homes, index / per_home), size);
      for (guint k = 0; k < G_N_ELEMENTS (place->parts) && place->parts[k] != NULL; k++)
        {
          if (strcmp (buf, "/") != 0)
            g_strlcat (buf, "/", size);
          g_strlcat (buf, place->parts[k], size);
        }
      return TRUE;
    }
  index -= c->homes->len * per_home;
  if (index < G_N_ELEMENTS (system))
    {
      g_strlcpy (buf, system[index], size);
      return TRUE;
    }
  index -= G_N_ELEMENTS (system);
  if (index < c->agent_dirs->len)
    {
      g_strlcpy (buf, g_ptr_array_index (c->agent_dirs, index), size);
      return TRUE;
    }
  return FALSE;
}

static const Place hook_places[] = {
  { { ".husky", NULL }, TRUE, FALSE, "a git hook" },
  { { ".pre-commit-config.yaml", NULL }, FALSE, FALSE, "the pre-commit hook settings" },
};

static const Place ci_places[] = {
  { { ".github", "workflows", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".github", "actions", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".gitea", "workflows", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".forgejo", "workflows", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".gitlab", "ci", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".circleci", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".buildkite", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".woodpecker", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".azure-pipelines", NULL }, TRUE, FALSE, "CI configuration" },
  { { ".gitlab-ci.yml", NULL }, FALSE, FALSE, "CI configuration" },
  { { "Jenkinsfile", NULL }, FALSE, FALSE, "CI configuration" },
  { { ".travis.yml", NULL }, FALSE, FALSE, "CI configuration" },
  { { "azure-pipelines.yml", NULL }, FALSE, FALSE, "CI configuration" },
  { { "azure-pipelines.yaml", NULL }, FALSE, FALSE, "CI configuration" },
  { { ".drone.yml", NULL }, FALSE, FALSE, "CI configuration" },
  { { "bitbucket-pipelines.yml", NULL }, FALSE, FALSE, "CI configuration" },
  { { ".woodpecker.yml", NULL }, FALSE, FALSE, "CI configuration" },
  { { ".appveyor.yml", NULL }, FALSE, FALSE, "CI configuration" },
  { { "appveyor.yml", NULL }, FALSE, FALSE, "CI configuration" },
  { { ".cirrus.yml", NULL }, FALSE, FALSE, "CI configuration" },
};

static const Place shell_places[] = {
  { { ".bashrc", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".bash_profile", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".bash_login", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".bash_logout", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".profile", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".zshrc", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".zshenv", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".zprofile", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".zlogin", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".zlogout", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".kshrc", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".mkshrc", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".cshrc", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".tcshrc", NULL }, FALSE, FALSE, "a shell start-up file" },
  { { ".inputrc", NULL }, FALSE, FALSE, "the shell's key bindings" },
  { { ".xprofile", NULL }, FALSE, FALSE, "a session start-up file" },
  { { ".xinitrc", NULL }, FALSE, FALSE, "a session start-up file" },
  { { ".xsessionrc", NULL }, FALSE, FALSE, "a session start-up file" },
  { { ".pam_environment", NULL }, FALSE, FALSE, "the login environment" },
  { { ".config", "fish", NULL }, TRUE, FALSE, "the fish shell's settings" },
  { { ".config", "environment.d", NULL }, TRUE, FALSE, "the login environment" },
};

/* System paths that are shell settings: exact files, or folders. */
static const char *const shell_system[] = {
  "/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc", "/etc/zsh", "/etc/zshrc",
  "/etc/zshenv", "/etc/zprofile", "/etc/environment", NULL,
};

/* What protected file @path is ("a git hook"), or NULL. */
const char *
ow_safety_protected_kind (const Check *c, const char *path)
{
  Parts ps;

  ow_safety_split_parts (path, &ps);
  for (guint i = 0; i < ps.n; i++)
    {
      if (!part_is (&ps, i, ".git"))
        continue;
      for (guint j = i + 1; j < ps.n; j++)
        if (part_is (&ps, j, "hooks"))
          return j + 1 == ps.n ? "the git hooks folder" : "a git hook";
      if (ps.n > i + 1 && part_is (&ps, ps.n - 1, "config"))
        return "the repository's git settings";
    }
  for (guint k = 0; k < G_N_ELEMENTS (hook_places); k++)
    {
      gboolean exact;

      if (place_match (&hook_places[k], &ps, &exact) >= 0)
        return hook_places[k].what;
    }
  for (guint k = 0; k < G_N_ELEMENTS (ci_places); k++)
    {
      gboolean exact;

      if (place_match (&ci_places[k], &ps, &exact) >= 0)
        return ci_places[k].what;
    }
  for (guint i = 0; i < c->agent_dirs->len; i++)
    if (ow_safety_path_within (path, g_ptr_array_index (c->agent_dirs, i)))
      return "OpenWorker's own settings";
  for (guint i = 0; i < ps.n; i++)
    if (part_is (&ps, i, ".openworker"))
      return "the project's OpenWorker settings";
  for (guint k = 0; k < G_N_ELEMENTS (shell_places); k++)
    {
      gboolean exact;

      if (place_match (&shell_places[k], &ps, &exact) >= 0)
        return shell_places[k].what;
    }
  for (guint i = 0; shell_system[i] != NULL; i++)
    if (ow_safety_path_within (path, shell_system[i]))
      return "the shell's settings";
  return NULL;
}

static const Place persistent_places[] = {
  { { ".config", "systemd", NULL }, TRUE, FALSE, "a systemd user unit" },
  { { ".local", "share", "systemd", NULL }, TRUE, FALSE, "a systemd user unit" },
  { { ".config", "autostart", NULL }, TRUE, FALSE, "an autostart entry" },
  { { ".ssh", "authorized_keys", NULL }, FALSE, FALSE, "the SSH authorized keys" },
  { { ".ssh", "authorized_keys2", NULL }, FALSE, FALSE, "the SSH authorized keys" },
  { { ".ssh", "rc", NULL }, FALSE, FALSE, "the SSH login script" },
  { { ".ssh", "config", NULL }, FALSE, FALSE, "the SSH client settings" },
  { { ".gitconfig", NULL }, FALSE, TRUE, "the global git settings" },
  { { ".config", "git", "config", NULL }, FALSE, TRUE, "the global git settings" },
  { { "Library", "LaunchAgents", NULL }, TRUE, FALSE, "a launchd job" },
  { { "Library", "LaunchDaemons", NULL }, TRUE, FALSE, "a launchd job" },
};

/* System paths whose change outlives the session: folders or files. */
static const struct {
  const char *path;  /* the file or folder */
  const char *what;  /* how a reason names it */
} persistent_system[] = {
  { "/etc/systemd", "a systemd unit" },
  { "/lib/systemd", "a systemd unit" },
  { "/usr/lib/systemd", "a systemd unit" },
  { "/etc/init.d", "a boot script" },
  { "/etc/rc.local", "a boot script" },
  { "/etc/xdg/autostart", "an autostart entry" },
  { "/var/spool/cron", "a cron table" },
  { "/etc/sudoers", "the sudo rules" },
  { "/etc/sudoers.d", "the sudo rules" },
  { "/etc/ld.so.preload", "the system's preload list" },
  { "/etc/passwd", "the user accounts" },
  { "/etc/shadow", "the user accounts" },
  { "/etc/group", "the user groups" },
  { "/etc/gshadow", "the user groups" },
  { "/etc/pam.d", "the login rules" },
  { "/etc/security", "the login rules" },
  { "/etc/ssh", "the SSH server settings" },
  { "/etc/gitconfig", "the system git settings" },
  { "/etc/polkit-1", "the polkit rules" },
  { "/Library/LaunchAgents", "a launchd job" },
  { "/Library/LaunchDaemons", "a launchd job" },
};

/* What lasting authority a write to @path sets up, or NULL. */
const char *
ow_safety_persistent_kind (const Check *c, const char *path)
{
  Parts ps;

  ow_safety_split_parts (path, &ps);
  for (guint i = 0; i < G_N_ELEMENTS (persistent_system); i++)
    if (ow_safety_path_within (path, persistent_system[i].path))
      return persistent_system[i].what;
  /* /etc/crontab, /etc/cron.d, /etc/cron.daily, …, /etc/anacrontab */
  if (ps.n >= 2 && part_is (&ps, 0, "etc")
      && ((ps.len[1] >= 4 && strncmp (ps.part[1], "cron", 4) == 0)
          || part_is (&ps, 1, "anacrontab")))
    return "a cron table";
  /* /etc/sudoers, /etc/sudoers.d, and copies sudo may be pointed at */
  if (ps.n >= 2 && part_is (&ps, 0, "etc") && ps.len[1] >= 7
      && strncmp (ps.part[1], "sudoers", 7) == 0)
    return "the sudo rules";
  for (guint k = 0; k < G_N_ELEMENTS (persistent_places); k++)
    {
      gboolean exact;
      int at = place_match (&persistent_places[k], &ps, &exact);

      if (at >= 0 && (!persistent_places[k].home_only || at_home (c, &ps, at)))
        return persistent_places[k].what;
    }
  return NULL;
}

/* ---- what the command guard enforces (ow-executor.h) ---- */

static char *
place_path (const Place *place)
{
  g_autoptr(GString) path = g_string_new (NULL);

  for (guint i = 0; place->parts[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append_c (path, '/');
      g_string_append (path, place->parts[i]);
    }
  return g_string_free (g_steal_pointer (&path), FALSE);
}

static void
add_places (GPtrArray *out, const Place *places, gsize n)
{
  for (gsize i = 0; i < n; i++)
    g_ptr_array_add (out, place_path (&places[i]));
}

GStrv
ow_safety_protected_names (void)
{
  GPtrArray *out = g_ptr_array_new ();

  /* .git is the guard's own business (it follows .git files and
   * worktrees); these are the rest of the protected files, relative to
   * any folder the session may write. The shell's and the login's files
   * matter when that folder is a home. */
  add_places (out, hook_places, G_N_ELEMENTS (hook_places));
  add_places (out, ci_places, G_N_ELEMENTS (ci_places));
  add_places (out, shell_places, G_N_ELEMENTS (shell_places));
  add_places (out, persistent_places, G_N_ELEMENTS (persistent_places));
  g_ptr_array_add (out, g_strdup (".openworker"));
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

GStrv
ow_safety_credential_paths (const char *home)
{
  GPtrArray *out = g_ptr_array_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (credential_places); i++)
    {
      g_autofree char *rel = place_path (&credential_places[i]);
      g_ptr_array_add (out, g_build_filename (home, rel, NULL));
    }
  /* Whole folders where the files above live beside other secrets. */
  g_ptr_array_add (out, g_build_filename (home, ".docker", NULL));
  g_ptr_array_add (out, g_build_filename (home, ".kube", NULL));
  g_ptr_array_add (out, g_build_filename (home, ".config", "gh", NULL));
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}
