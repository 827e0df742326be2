/* ow-safety.c: the safety checks (see ow-safety.h).
 *
 * Every tool call is reduced to what it would touch: files written,
 * deleted (and whether recursively), read, executed, and authority set up
 * to outlive the session. File tools say so in their arguments; a shell
 * command is parsed (ow-shell.c) and each simple command it contains —
 * including those in substitutions, pipelines, subshells, `sh -c` and
 * `eval` strings, here-documents fed to a shell, `find -exec` and `xargs`
 * — is read through its wrappers (sudo, env, nohup, …) and judged by what
 * its program is known to do with its arguments. The same judgement
 * functions serve both routes, so writing .git/hooks/pre-commit with
 * write_file and with `tee` gives the same check and the same reason.
 *
 * Paths are judged where they really land. A path is made absolute
 * against the shell's folder (every folder a `cd` in the same command may
 * have moved to, since the parse is flat), `~`, `$HOME` and `${HOME}` are
 * expanded, and it is then canonicalized three ways: lexically (`..`
 * removed as text), by realpath of its longest existing prefix, and by
 * walking it the way the kernel does (a symlink before a `..` is followed
 * first). It is inside the session's folders only if every real form is;
 * it is protected or a credential if any form is. A word whose value is
 * only known when the command runs (a variable, a substitution, output
 * of xargs) cannot be proved harmless, so as a write or delete target it
 * counts as outside; as a read it counts only when its known beginning
 * already points at a credential.
 *
 * What does not count, on purpose: writes under /tmp, /var/tmp and
 * /dev/shm (every build uses them; only their contents, never those
 * folders themselves, and never a home or a session folder that happens
 * to live there) and to /dev/null-like devices; listing or stat-ing a
 * credential folder (`ls ~/.ssh`, list_files) — names are not secrets;
 * public keys (*.pub); programs that use a key for what it is for (ssh,
 * ssh-add, sftp); running inline interpreter code we cannot see into
 * (`python -c "$x"`), unless it visibly names a credential path or comes
 * from a download. A command that cannot be parsed hits every check,
 * since it could hide any of them.
 *
 * Two approximations lean towards asking. The parse is flat, so "a
 * download piped into an interpreter" means a downloader and an
 * interpreter reading its stdin in the same command line with a pipe
 * somewhere, and a `cd` makes its folder a candidate for every later
 * relative path rather than for its own list only.
 */
#define G_LOG_DOMAIN "ow-safety"

#include "policy/ow-safety.h"

#include <fnmatch.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How many sh -c / eval / here-doc levels are followed (the limit the
 * deny rules and floors share); deeper is treated like a command that
 * cannot be read. */
#define SAFETY_MAX_DEPTH   OW_SHELL_MAX_NESTING
/* Linux gives up after 40 symlinks in one lookup; so do we. */
#define SAFETY_MAX_LINKS   40
/* Longer paths are not resolved (and count as unknown). */
#define SAFETY_MAX_PATH    8192
/* Paths with more components are not resolved (and count as unknown). */
#define SAFETY_MAX_PARTS   256
/* Reasons kept per call; the check bits are always complete. */
#define SAFETY_MAX_REASONS 24
/* Folders a relative path is judged against after cd's; past this the
 * shell's folder counts as unknown. */
#define SAFETY_MAX_CWDS    8
/* Forms one path argument may take (every cd candidate times lexical,
 * realpath and kernel walk, twice for a ".*" glob). */
#define SAFETY_MAX_FORMS   64
/* Simple commands judged per call (find -exec and sh -c multiply them);
 * past this every check applies. */
#define SAFETY_MAX_COMMANDS 20000

#define SAFETY_ALL (OW_SAFETY_DOWNLOADED_EXEC | OW_SAFETY_WRITE_OUTSIDE | OW_SAFETY_PROTECTED_FILE \
                    | OW_SAFETY_PERSISTENT_AUTHORITY | OW_SAFETY_RECURSIVE_DELETE \
                    | OW_SAFETY_CREDENTIAL_READ | OW_SAFETY_OPAQUE_CODE)

/* Everything one call's checks share. */
typedef struct {
  OwSafetyResult *out;         /* where findings go (borrowed) */
  GPtrArray      *roots;       /* char*: the session's folders, as given and canonical */
  GArray         *writable;    /* gboolean, parallel to roots */
  GPtrArray      *homes;       /* char*: the home folder, as given and canonical (may be empty) */
  GPtrArray      *agent_dirs;  /* char*: OpenWorker's folders, as given and canonical */
  const char *const *env;      /* the shell's starting environment (borrowed), or NULL */
  GPtrArray      *temp_dirs;   /* char*: shared scratch folders whose contents do not count */
  GPtrArray      *downloaded;  /* char*: canonical files the session (or this command) downloaded */
  GPtrArray      *cwds;        /* char*: every folder a relative path may resolve against */
  gboolean        cwd_unknown; /* a cd went somewhere that cannot be known */
  gboolean        home_unknown;/* the command assigns HOME, so ~ is not known */
  gboolean        file_tool;   /* judging a file tool: its paths are literal except a leading ~ */
  guint           depth;       /* sh -c / eval nesting */
  gboolean        saw_pipe;    /* some level of the command has a pipe */
  char           *downloader;  /* the first downloading program seen (owned), or NULL */
  char           *stdin_exec;  /* the first interpreter seen running its stdin (owned), or NULL */
  GPtrArray      *code_words;  /* const char*: words of the current command already read as code
                                * (made on first use) */
  guint           budget;      /* simple commands still to judge (SAFETY_MAX_COMMANDS) */
  GHashTable     *vars;        /* char* name → GPtrArray of char* values assigned in the
                                * command (made on first use) */
} Check;

/* A few distinct paths, kept on the stack: every argument of every
 * command is resolved, so this avoids allocating lists for each. */
typedef struct {
  char    *item[SAFETY_MAX_FORMS];  /* the paths (owned) */
  guint    len;                     /* how many */
  gboolean full;                    /* one did not fit (the path then counts as unknown) */
} Forms;

/* One path argument, resolved. */
typedef struct {
  const char *written;   /* the word as the command has it (borrowed) */
  gboolean    unknown;   /* its value is only known when the command runs */
  char       *prefix;    /* unknown: the absolute text its value starts with, or NULL */
  Forms       real;      /* where it really lands (realpath prefix, kernel walk) */
  Forms       names;     /* the real forms plus the lexical one, for name patterns */
  gboolean    glob;      /* real/names are the folder a glob expands in */
  gboolean    broad;     /* that glob matches everything in the folder */
  Forms       patterns;  /* glob: the absolute pattern (lexical) */
} Target;

static void check_shell (Check *c, const char *command, const char *what);

/* ---- names and results ---- */

const char *
ow_safety_check_name (OwSafetyCheck check)
{
  switch (check)
    {
    case OW_SAFETY_DOWNLOADED_EXEC: return "downloaded_exec";
    case OW_SAFETY_WRITE_OUTSIDE: return "write_outside";
    case OW_SAFETY_PROTECTED_FILE: return "protected_file";
    case OW_SAFETY_PERSISTENT_AUTHORITY: return "persistent_authority";
    case OW_SAFETY_RECURSIVE_DELETE: return "recursive_delete";
    case OW_SAFETY_CREDENTIAL_READ: return "credential_read";
    case OW_SAFETY_OPAQUE_CODE: return "opaque_code";
    default: return "unknown";
    }
}

void
ow_safety_result_init (OwSafetyResult *result)
{
  result->checks = 0;
  result->reasons = g_ptr_array_new_with_free_func (g_free);
}

void
ow_safety_result_clear (OwSafetyResult *result)
{
  g_clear_pointer (&result->reasons, g_ptr_array_unref);
  result->checks = 0;
}

/* A reason is shown to a person and stored as JSON, while the words in
 * it come from the model: make it valid UTF-8 and spell out control
 * characters. */
static char *
readable (const char *format, va_list args) G_GNUC_PRINTF (1, 0);

static char *
readable (const char *format, va_list args)
{
  g_autofree char *raw = g_strdup_vprintf (format, args);
  g_autofree char *made = g_utf8_validate (raw, -1, NULL) ? NULL : g_utf8_make_valid (raw, -1);
  const char *valid = made != NULL ? made : raw;
  GString *out = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar ch = (guchar) *p;

      if (ch == '\n')
        g_string_append (out, "\\n");
      else if (ch == '\t')
        g_string_append (out, "\\t");
      else if (ch == '\r')
        g_string_append (out, "\\r");
      else if (ch < 0x20 || ch == 0x7f)
        g_string_append_printf (out, "\\x%02x", ch);
      else
        g_string_append_c (out, (char) ch);
    }
  return g_string_free (out, FALSE);
}

static void
finding (Check *c, OwSafetyCheck check, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
finding (Check *c, OwSafetyCheck check, const char *format, ...)
{
  va_list args;
  char *reason;

  c->out->checks |= check;
  if (c->out->reasons == NULL || c->out->reasons->len >= SAFETY_MAX_REASONS)
    return;
  va_start (args, format);
  reason = readable (format, args);
  va_end (args);
  for (guint i = 0; i < c->out->reasons->len; i++)
    if (strcmp (g_ptr_array_index (c->out->reasons, i), reason) == 0)
      {
        g_free (reason);
        return;
      }
  g_ptr_array_add (c->out->reasons, reason);
}

/* ---- paths ---- */

/* Whether @path is @dir or below it (both absolute and normalized). */
static gboolean
path_within (const char *path, const char *dir)
{
  gsize n = strlen (dir);

  if (n == 1 && dir[0] == '/')
    return path[0] == '/';
  if (strncmp (path, dir, n) != 0)
    return FALSE;
  return path[n] == '\0' || path[n] == '/';
}

static gboolean
path_below (const char *path, const char *dir)
{
  return path_within (path, dir) && strcmp (path, dir) != 0;
}

static void
add_unique (GPtrArray *list, char *owned)
{
  for (guint i = 0; i < list->len; i++)
    if (strcmp (g_ptr_array_index (list, i), owned) == 0)
      {
        g_free (owned);
        return;
      }
  g_ptr_array_add (list, owned);
}

static void
forms_add (Forms *forms, char *owned)
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

static void
forms_clear (Forms *forms)
{
  for (guint i = 0; i < forms->len; i++)
    g_free (forms->item[i]);
  forms->len = 0;
}

/* Removes "." and ".." as text; @path is absolute. */
static char *
normalize (const char *path)
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

static char *
path_join (const char *dir, const char *rel)
{
  if (rel[0] == '/')
    return g_strdup (rel);
  if (strcmp (dir, "/") == 0)
    return g_strconcat ("/", rel, NULL);
  return g_strconcat (dir, "/", rel, NULL);
}

/* realpath() of the longest existing prefix of the normalized @path, with
 * the rest appended: where an existing or new path really is. */
static char *
realpath_prefix (const char *path)
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
static gboolean
add_forms (const char *abs, Forms *real, Forms *names)
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
  lexical = normalize (abs);
  {
    /* With no symlink on the way, the kernel's walk, the lexical form and
     * realpath() agree: spare realpath's readlink per component. */
    char *canonical = saw_link ? realpath_prefix (lexical) : g_strdup (physical);

    forms_add (names, g_strdup (canonical));
    forms_add (real, canonical);
  }
  forms_add (names, lexical);
  forms_add (real, g_strdup (physical));
  forms_add (names, physical);
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
    return realpath_prefix (lexical);
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

  canonical = realpath_prefix (lexical);
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
static void
add_folder (GPtrArray *list, const char *dir)
{
  char *lexical;

  if (dir == NULL || dir[0] != '/' || strlen (dir) > SAFETY_MAX_PATH)
    return;
  lexical = normalize (dir);
  add_unique (list, canonical_folder (lexical));
  add_unique (list, lexical);
}

/* @path with the home folder written as ~, for reasons. */
static char *
display (const Check *c, const char *path)
{
  for (guint i = 0; i < c->homes->len; i++)
    {
      const char *home = g_ptr_array_index (c->homes, i);

      if (strcmp (home, "/") != 0 && path_within (path, home))
        return g_strconcat ("~", path + strlen (home), NULL);
    }
  return g_strdup (path);
}

/* ---- what kind of place a path is ---- */

static gboolean
in_writable_root (const Check *c, const char *path)
{
  for (guint i = 0; i < c->roots->len; i++)
    if (g_array_index (c->writable, gboolean, i)
        && path_within (path, g_ptr_array_index (c->roots, i)))
      return TRUE;
  return FALSE;
}

/* A path that every build writes and that changes nothing of the
 * person's: a file under a shared temp folder (never the folder itself,
 * never a home, session or agent folder that lives there), or a device
 * that discards or echoes. */
static gboolean
is_device (const char *path)
{
  static const char *const devices[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                         "/dev/urandom", "/dev/tty", "/dev/stdout", "/dev/stderr",
                                         "/dev/stdin", NULL };

  for (guint i = 0; devices[i] != NULL; i++)
    if (strcmp (path, devices[i]) == 0)
      return TRUE;
  return g_str_has_prefix (path, "/dev/fd/") || g_str_has_prefix (path, "/proc/self/fd/");
}

static gboolean
is_scratch (const Check *c, const char *path)
{
  gboolean temp = FALSE;

  if (is_device (path))
    return TRUE;
  for (guint i = 0; i < c->temp_dirs->len; i++)
    if (path_below (path, g_ptr_array_index (c->temp_dirs, i)))
      temp = TRUE;
  if (!temp)
    return FALSE;
  for (guint i = 0; i < c->homes->len; i++)
    if (path_within (path, g_ptr_array_index (c->homes, i))
        || path_within (g_ptr_array_index (c->homes, i), path))
      return FALSE;
  for (guint i = 0; i < c->agent_dirs->len; i++)
    if (path_within (path, g_ptr_array_index (c->agent_dirs, i))
        || path_within (g_ptr_array_index (c->agent_dirs, i), path))
      return FALSE;
  for (guint i = 0; i < c->roots->len; i++)
    if (path_within (g_ptr_array_index (c->roots, i), path)
        || path_within (path, g_ptr_array_index (c->roots, i)))
      return FALSE;
  return TRUE;
}

/* A place is a list of path components matched anywhere in a path: a
 * folder matches itself and everything below; a file only itself. */
typedef struct {
  const char *const parts[4];  /* the components, NULL-terminated */
  gboolean          folder;    /* also matches what is below */
  gboolean          home_only; /* only directly under a home folder */
  const char       *what;      /* how a reason names it */
} Place;

/* The components of a normalized absolute path, as slices of it (these
 * checks run on every word of every command: no allocation). */
typedef struct {
  const char *path;                         /* the path (borrowed) */
  const char *part[SAFETY_MAX_PARTS + 1];   /* where each component starts */
  gsize       len[SAFETY_MAX_PARTS + 1];    /* its length */
  guint       n;                            /* how many (the rest of a longer path is ignored) */
} Parts;

static void
split_parts (const char *path, Parts *out)
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
static char *
credential_kind (const Check *c, const char *path)
{
  Parts ps;
  const char *base;

  split_parts (path, &ps);
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
    if (path_below (path, g_ptr_array_index (c->agent_dirs, i)))
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
static gboolean
location_at (const Check *c, guint index, char *buf, gsize size)
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
static const char *
protected_kind (const Check *c, const char *path)
{
  Parts ps;

  split_parts (path, &ps);
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
    if (path_within (path, g_ptr_array_index (c->agent_dirs, i)))
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
    if (path_within (path, shell_system[i]))
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
static const char *
persistent_kind (const Check *c, const char *path)
{
  Parts ps;

  split_parts (path, &ps);
  for (guint i = 0; i < G_N_ELEMENTS (persistent_system); i++)
    if (path_within (path, persistent_system[i].path))
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

/* ---- resolving words ---- */

static void
target_clear (Target *t)
{
  g_clear_pointer (&t->prefix, g_free);
  forms_clear (&t->real);
  forms_clear (&t->names);
  forms_clear (&t->patterns);
}

/* A plausible user name for ~user (getpwnam is only asked about these). */
static gboolean
is_name_user (const char *user)
{
  if (user[0] == '\0' || strlen (user) > 32 || !(g_ascii_isalpha (user[0]) || user[0] == '_'))
    return FALSE;
  for (const char *u = user; *u != '\0'; u++)
    if (!(g_ascii_isalnum (*u) || *u == '_' || *u == '-' || *u == '.'))
      return FALSE;
  return TRUE;
}

/* Expands what the checks can know of a dynamic word: a leading ~, ~+,
 * ~user, $HOME, ${HOME}, $PWD, ${PWD}. Returns the text with the rest
 * still as written; sets *@unknown when the leading part is unknown. */
static char *
expand_known (const Check *c, const char *word, gboolean *unknown)
{
  const char *home = c->homes->len > 0 && !c->home_unknown ? g_ptr_array_index (c->homes, 0) : NULL;
  const char *cwd = c->cwds->len > 0 && !c->cwd_unknown ? g_ptr_array_index (c->cwds, 0) : NULL;
  static const char *const home_vars[] = { "$HOME", "${HOME}", NULL };
  static const char *const pwd_vars[] = { "$PWD", "${PWD}", "$(pwd)", "`pwd`", NULL };

  *unknown = FALSE;
  if (word[0] == '~')
    {
      gsize n = strcspn (word, "/");
      g_autofree char *user = g_strndup (word + 1, n - 1);

      if (n == 1)
        {
          if (home == NULL)
            {
              *unknown = TRUE;
              return g_strdup (word);
            }
          return g_strconcat (home, word + 1, NULL);
        }
      if (strcmp (user, "+") == 0 && cwd != NULL)
        return g_strconcat (cwd, word + n, NULL);
      if (!c->file_tool && is_name_user (user))
        {
          struct passwd pw, *found = NULL;
          char buf[4096];

          if (getpwnam_r (user, &pw, buf, sizeof buf, &found) == 0 && found != NULL
              && found->pw_dir != NULL && found->pw_dir[0] == '/')
            return g_strconcat (found->pw_dir, word + n, NULL);
        }
      *unknown = TRUE;
      return g_strdup (word);
    }
  if (c->file_tool)
    return g_strdup (word);
  for (guint i = 0; home_vars[i] != NULL; i++)
    {
      gsize n = strlen (home_vars[i]);

      if (strncmp (word, home_vars[i], n) == 0 && (word[n] == '\0' || word[n] == '/'))
        {
          if (home == NULL)
            {
              *unknown = TRUE;
              return g_strdup (word);
            }
          return g_strconcat (home, word + n, NULL);
        }
    }
  for (guint i = 0; pwd_vars[i] != NULL; i++)
    {
      gsize n = strlen (pwd_vars[i]);

      if (strncmp (word, pwd_vars[i], n) == 0 && (word[n] == '\0' || word[n] == '/') && cwd != NULL)
        return g_strconcat (cwd, word + n, NULL);
    }
  return g_strdup (word);
}

/* Where the unknown part of an expanded dynamic word starts: a parameter,
 * a substitution, or a brace expansion. */
static gsize
unknown_at (const char *text)
{
  for (gsize i = 0; text[i] != '\0'; i++)
    {
      if (text[i] == '$' || text[i] == '`')
        return i;
      if ((text[i] == '<' || text[i] == '>') && text[i + 1] == '(')
        return i;
      if (text[i] == '{')
        {
          const char *close = strchr (text + i, '}');

          if (close != NULL)
            {
              g_autofree char *inside = g_strndup (text + i, (gsize) (close - (text + i)));

              if (strchr (inside, ',') != NULL || strstr (inside, "..") != NULL)
                return i;
            }
        }
    }
  return strlen (text);
}

/* Whether a glob component can match everything in its folder. */
static gboolean
is_broad_glob (const char *part)
{
  gboolean wild = FALSE;

  for (const char *p = part; *p != '\0'; p++)
    {
      if (*p == '*' || *p == '?')
        wild = TRUE;
      else if (*p != '.')
        return FALSE;
    }
  return wild;
}

/* Variables assigned somewhere in the command (x=rm; $x -rf ~). The
 * parse is flat, so a use may come before the assignment or sit outside
 * its subshell: a value is never used to clear a word, only to judge it
 * once more, in addition to judging it as unknown. */
static void
note_assignment (Check *c, const char *assignment)
{
  gsize n = strspn (assignment, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
  GPtrArray *values;

  if (n == 0 || assignment[n] != '=' || assignment[n + 1] == '(')
    return;
  if (c->vars == NULL)
    c->vars = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) g_ptr_array_unref);
  {
    g_autofree char *name = g_strndup (assignment, n);

    values = g_hash_table_lookup (c->vars, name);
    if (values == NULL)
      {
        values = g_ptr_array_new_with_free_func (g_free);
        g_hash_table_insert (c->vars, g_steal_pointer (&name), values);
      }
  }
  if (values->len < 4)
    g_ptr_array_add (values, g_strdup (assignment + n + 1));
}

/* @word with each $NAME / ${NAME} of a noted variable replaced by its
 * first value, or else by its value in the shell's starting environment
 * when that is an absolute path; NULL when it uses none. */
static char *
substitute_vars (const Check *c, const char *word)
{
  GString *out;
  gboolean any = FALSE;

  if ((c->vars == NULL && c->env == NULL) || strchr (word, '$') == NULL)
    return NULL;
  out = g_string_new (NULL);
  for (const char *p = word; *p != '\0';)
    {
      const char *name = NULL;
      gsize n = 0, skip = 0;

      if (p[0] == '$' && p[1] == '{')
        {
          n = strspn (p + 2, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
          if (n > 0 && p[2 + n] == '}')
            {
              name = p + 2;
              skip = n + 3;
            }
        }
      else if (p[0] == '$')
        {
          n = strspn (p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
          if (n > 0)
            {
              name = p + 1;
              skip = n + 1;
            }
        }
      if (name != NULL)
        {
          g_autofree char *key = g_strndup (name, n);
          GPtrArray *values = c->vars != NULL ? g_hash_table_lookup (c->vars, key) : NULL;
          const char *from_env = values == NULL && c->env != NULL
                                   ? g_environ_getenv ((char **) c->env, key) : NULL;

          if (values != NULL && values->len > 0)
            {
              g_string_append (out, g_ptr_array_index (values, 0));
              p += skip;
              any = TRUE;
              continue;
            }
          if (from_env != NULL && from_env[0] == '/')
            {
              g_string_append (out, from_env);
              p += skip;
              any = TRUE;
              continue;
            }
        }
      g_string_append_c (out, *p);
      p++;
    }
  if (!any)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

/* Resolves @word (a shell word, or with c->file_tool a tool's path) into
 * @t. @dynamic: the parser could not know its value. */
static void
target_init (Check *c, Target *t, const char *word, gboolean dynamic)
{
  g_autofree char *text = NULL;
  Forms abs = { 0 };
  gboolean unknown = FALSE;
  gsize cut;

  memset (t, 0, sizeof *t);
  t->written = word;
  if (c->file_tool)
    dynamic = word[0] == '~';
  text = dynamic ? expand_known (c, word, &unknown) : g_strdup (word);
  if (unknown)
    {
      t->unknown = TRUE;
      return;
    }
  cut = dynamic && !c->file_tool ? unknown_at (text) : strlen (text);
  if (text[cut] != '\0')
    {
      t->unknown = TRUE;
      if (cut > 0 && text[0] == '/')
        t->prefix = g_strndup (text, cut);
      else if (cut > 0 && c->cwds->len > 0 && !c->cwd_unknown)
        {
          g_autofree char *head = g_strndup (text, cut);

          t->prefix = path_join (g_ptr_array_index (c->cwds, 0), head);
        }
      return;
    }
  if (text[0] == '\0')
    return;
  if (text[0] == '/')
    forms_add (&abs, g_strdup (text));
  else if (c->cwd_unknown || c->cwds->len == 0)
    {
      t->unknown = TRUE;
      return;
    }
  else
    for (guint i = 0; i < c->cwds->len; i++)
      forms_add (&abs, path_join (g_ptr_array_index (c->cwds, i), text));

  if (dynamic && !c->file_tool && strpbrk (text, "*?[") != NULL)
    {
      t->glob = TRUE;
      for (guint i = 0; i < abs.len; i++)
        {
          const char *a = abs.item[i];
          g_auto(GStrv) parts = g_strsplit (a, "/", -1);
          g_autoptr(GString) base = g_string_new (NULL);
          guint g = 0;

          while (parts[g] != NULL && strpbrk (parts[g], "*?[") == NULL)
            {
              if (parts[g][0] != '\0')
                {
                  g_string_append_c (base, '/');
                  g_string_append (base, parts[g]);
                }
              g++;
            }
          if (base->len == 0)
            g_string_append_c (base, '/');
          if (parts[g] != NULL && is_broad_glob (parts[g]))
            t->broad = TRUE;
          if (!add_forms (base->str, &t->real, &t->names))
            t->unknown = TRUE;
          if (parts[g] != NULL && parts[g][0] == '.')
            {
              /* ".*" may match "..": the folder above counts too */
              g_autofree char *up = path_join (base->str, "..");

              if (!add_forms (up, &t->real, &t->names))
                t->unknown = TRUE;
            }
          forms_add (&t->patterns, normalize (a));
        }
      forms_clear (&abs);
      if (t->real.full || t->names.full)
        t->unknown = TRUE;
      return;
    }
  for (guint i = 0; i < abs.len; i++)
    if (!add_forms (abs.item[i], &t->real, &t->names))
      t->unknown = TRUE;
  forms_clear (&abs);
  if (t->real.full || t->names.full)
    t->unknown = TRUE;
}

/* The word as written, and where it lands when that reads differently. */
static char *
shown (const Check *c, const Target *t, const char *real)
{
  g_autofree char *where = display (c, real);
  g_autofree char *plain = NULL;

  if (t->glob || strcmp (where, t->written) == 0)
    return g_strdup (t->written);
  plain
      = g_str_has_suffix (t->written, "/") ? g_strndup (t->written, strlen (t->written) - 1) : NULL;
  if (plain != NULL && strcmp (where, plain) == 0)
    return g_strdup (t->written);
  return g_strdup_printf ("%s (%s)", t->written, where);
}

/* ---- judgements ---- */

/* A file written, edited or removed (@verb says which). */
static void
judge_write_target (Check *c, const Target *t, const char *verb)
{
  if (t->unknown)
    {
      finding (c, OW_SAFETY_WRITE_OUTSIDE, "%s %s, a path only known when the command runs", verb,
               t->written);
      return;
    }
  for (guint i = 0; i < t->names.len; i++)
    {
      const char *kind = protected_kind (c, t->names.item[i]);

      if (kind != NULL)
        {
          finding (c, OW_SAFETY_PROTECTED_FILE, "%s %s, %s", verb, t->written, kind);
          break;
        }
    }
  for (guint i = 0; i < t->names.len; i++)
    {
      const char *kind = persistent_kind (c, t->names.item[i]);

      if (kind != NULL)
        {
          finding (c, OW_SAFETY_PERSISTENT_AUTHORITY, "%s %s, %s, which outlives the session", verb,
                   t->written, kind);
          break;
        }
    }
  /* /dev/stdout and friends are links into /proc: judge them by name */
  for (guint i = 0; i < t->names.len; i++)
    if (is_device (t->names.item[i]))
      return;
  for (guint i = 0; i < t->real.len; i++)
    {
      const char *f = t->real.item[i];

      if (!in_writable_root (c, f) && !is_scratch (c, f))
        {
          g_autofree char *where = shown (c, t, f);

          finding (c, OW_SAFETY_WRITE_OUTSIDE, "%s %s, outside the session's folders", verb, where);
          break;
        }
    }
}

static void
judge_write (Check *c, const char *word, gboolean dynamic, const char *verb)
{
  g_autofree char *filled = dynamic && !c->file_tool ? substitute_vars (c, word) : NULL;
  Target t;

  target_init (c, &t, word, dynamic);
  judge_write_target (c, &t, verb);
  target_clear (&t);
  if (filled != NULL)
    {
      target_init (c, &t, filled, TRUE);
      judge_write_target (c, &t, verb);
      target_clear (&t);
    }
}

/* What a recursive delete of @f would take with it, or NULL when that is
 * only things inside the session's folders. */
static const char *
delete_scope (const Check *c, const char *f, gboolean find_start)
{
  if (strcmp (f, "/") == 0)
    return "the whole file system";
  for (guint i = 0; i < c->homes->len; i++)
    {
      const char *home = g_ptr_array_index (c->homes, i);

      if (strcmp (home, f) == 0)
        return "your home folder";
      if (path_within (home, f))
        return "a folder that holds your home folder";
    }
  for (guint i = 0; i < c->roots->len; i++)
    {
      const char *root = g_ptr_array_index (c->roots, i);

      /* find … -delete starting at a session folder only removes what
       * it matches inside it */
      if (strcmp (root, f) == 0 && !find_start)
        return "a session folder";
      if (path_below (root, f))
        return "a folder that holds a session folder";
    }
  for (guint i = 0; i < c->agent_dirs->len; i++)
    if (path_within (g_ptr_array_index (c->agent_dirs, i), f))
      return "OpenWorker's own folders";
  if (!in_writable_root (c, f) && !is_scratch (c, f))
    return "outside the session's folders";
  return NULL;
}

static void
judge_delete_target (Check *c, const Target *t, gboolean recursive, gboolean find_start)
{
  judge_write_target (c, t, "deletes");
  if (!recursive)
    return;
  if (t->unknown)
    {
      finding (c, OW_SAFETY_RECURSIVE_DELETE,
               "deletes %s recursively, a path only known when the command runs", t->written);
      return;
    }
  for (guint i = 0; i < t->real.len; i++)
    {
      const char *f = t->real.item[i];
      const char *scope;

      if (t->glob)
        {
          gboolean top = strcmp (f, "/") == 0;

          for (guint k = 0; k < c->homes->len && !top; k++)
            top = path_within (g_ptr_array_index (c->homes, k), f);
          for (guint k = 0; k < c->roots->len && !top; k++)
            top = path_within (g_ptr_array_index (c->roots, k), f);
          if (t->broad && top)
            {
              g_autofree char *where = display (c, f);

              finding (c, OW_SAFETY_RECURSIVE_DELETE, "deletes %s recursively: everything in %s",
                       t->written, where);
              return;
            }
          if (!in_writable_root (c, f) && !is_scratch (c, f))
            {
              finding (c, OW_SAFETY_RECURSIVE_DELETE,
                       "deletes %s recursively, outside the session's folders", t->written);
              return;
            }
          continue;
        }
      scope = delete_scope (c, f, find_start);
      if (scope != NULL)
        {
          g_autofree char *where = shown (c, t, f);

          if (strcmp (scope, "outside the session's folders") == 0)
            finding (c, OW_SAFETY_RECURSIVE_DELETE, "deletes %s recursively, %s", where, scope);
          else
            finding (c, OW_SAFETY_RECURSIVE_DELETE, "deletes %s recursively: %s", where, scope);
          return;
        }
    }
}

static void judge_delete_once (Check *c, const char *word, gboolean dynamic, gboolean recursive,
                               gboolean find_start);

static void
judge_delete (Check *c, const char *word, gboolean dynamic, gboolean recursive, gboolean find_start)
{
  g_autofree char *filled = dynamic && !c->file_tool ? substitute_vars (c, word) : NULL;

  judge_delete_once (c, word, dynamic, recursive, find_start);
  if (filled != NULL)
    judge_delete_once (c, filled, TRUE, recursive, find_start);
}

static void
judge_delete_once (Check *c, const char *word, gboolean dynamic, gboolean recursive,
                   gboolean find_start)
{
  Target t;

  target_init (c, &t, word, dynamic);
  if (find_start)
    {
      /* find deletes what it finds below its start, not the start
       * itself unless it matches: judge the start as a recursive delete
       * that may keep a session folder */
      if (t.unknown)
        finding (c, OW_SAFETY_RECURSIVE_DELETE,
                 "deletes what it finds under %s, a path only known when the command runs",
                 t.written);
      for (guint i = 0; i < t.real.len && !t.unknown; i++)
        {
          const char *scope = delete_scope (c, t.real.item[i], TRUE);

          if (scope != NULL)
            {
              g_autofree char *where = shown (c, &t, t.real.item[i]);

              finding (c, OW_SAFETY_RECURSIVE_DELETE, "deletes what it finds under %s: %s", where,
                       scope);
              break;
            }
        }
    }
  else
    judge_delete_target (c, &t, recursive, FALSE);
  target_clear (&t);
}

/* Whether each component of @pattern matches the path @loc as far as
 * both go; *@deeper when the pattern goes at least as deep. */
static gboolean
glob_reaches (const char *pattern, const char *loc, gboolean *deeper)
{
  Parts pp, lp;

  split_parts (pattern, &pp);
  split_parts (loc, &lp);
  for (guint i = 0; i < MIN (pp.n, lp.n); i++)
    {
      char pat[SAFETY_MAX_PATH + 1], name[SAFETY_MAX_PATH + 1];

      /* fnmatch wants whole strings: copy the two components out */
      memcpy (pat, pp.part[i], pp.len[i]);
      pat[pp.len[i]] = '\0';
      memcpy (name, lp.part[i], lp.len[i]);
      name[lp.len[i]] = '\0';
      if (fnmatch (pat, name, FNM_PERIOD) != 0)
        return FALSE;
    }
  *deeper = pp.n >= lp.n;
  return TRUE;
}

static char *
location_kind (const Check *c, const char *loc)
{
  char *kind = credential_kind (c, loc);

  return kind != NULL ? kind : g_strdup ("OpenWorker's own secrets");
}

/* A file or folder read; @recursive: the program reads everything below
 * a folder it is given. */
static void
judge_read_target (Check *c, const Target *t, gboolean recursive)
{
  char loc[SAFETY_MAX_PATH + 1];

  if (t->unknown)
    {
      /* the known end of the word may still name a credential anywhere:
       * $SOMEWHERE/.ssh/id_rsa */
      const char *tail = t->written + strlen (t->written);

      while (tail > t->written && strchr ("$`~*?[{}()", tail[-1]) == NULL)
        tail--;
      tail = strchr (tail, '/');
      if (tail != NULL && strlen (tail) <= SAFETY_MAX_PATH)
        {
          g_autofree char *rest = normalize (tail);
          g_autofree char *kind = credential_kind (c, rest);

          if (kind != NULL)
            {
              finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s, which may be %s", t->written, kind);
              return;
            }
        }
      if (t->prefix == NULL)
        return;
      for (guint i = 0; location_at (c, i, loc, sizeof loc); i++)
        {
          g_autofree char *head = normalize (t->prefix);

          if (g_str_has_prefix (loc, t->prefix) || path_within (head, loc)
              || (recursive && path_within (loc, head)))
            {
              g_autofree char *kind = location_kind (c, loc);
              g_autofree char *where = display (c, loc);

              finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s, which can reach %s %s", t->written,
                       kind, where);
              return;
            }
        }
      return;
    }
  for (guint i = 0; i < t->names.len; i++)
    {
      const char *f = t->names.item[i];
      g_autofree char *kind = credential_kind (c, f);

      if (kind != NULL)
        {
          g_autofree char *where = display (c, f);

          if (t->glob)
            finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s, which reaches %s %s", t->written,
                     kind, where);
          else
            finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s %s", kind, where);
          return;
        }
    }
  for (guint i = 0; i < t->names.len; i++)
    for (guint k = 0; k < c->agent_dirs->len; k++)
      if (path_within (t->names.item[i], g_ptr_array_index (c->agent_dirs, k)))
        {
          /* Its rules, inbox, audit trail and settings: whatever a program
           * does with them, the agent must not reach its own governance. */
          g_autofree char *where = display (c, t->names.item[i]);

          finding (c, OW_SAFETY_PROTECTED_FILE, "uses %s, OpenWorker's own state (its rules, asks and "
                   "settings)", where);
          return;
        }
  for (guint p = 0; p < t->patterns.len; p++)
    for (guint i = 0; location_at (c, i, loc, sizeof loc); i++)
      {
        gboolean deeper = FALSE;

        if (glob_reaches (t->patterns.item[p], loc, &deeper)
            && (deeper || recursive))
          {
            g_autofree char *kind = location_kind (c, loc);
            g_autofree char *where = display (c, loc);

            finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s, which reaches %s %s", t->written,
                     kind, where);
            return;
          }
      }
  if (!recursive)
    return;
  for (guint i = 0; i < t->real.len; i++)
    for (guint k = 0; location_at (c, k, loc, sizeof loc); k++)
      {
        const char *f = t->real.item[i];

        if (path_below (loc, f))
          {
            g_autofree char *kind = location_kind (c, loc);
            g_autofree char *where = display (c, f);
            g_autofree char *what = display (c, loc);

            finding (c, OW_SAFETY_CREDENTIAL_READ, "reads everything under %s, including %s %s",
                     where, kind, what);
            return;
          }
      }
}

static void
judge_read (Check *c, const char *word, gboolean dynamic, gboolean recursive)
{
  g_autofree char *filled = dynamic && !c->file_tool ? substitute_vars (c, word) : NULL;
  Target t;

  target_init (c, &t, word, dynamic);
  judge_read_target (c, &t, recursive);
  target_clear (&t);
  if (filled != NULL)
    {
      target_init (c, &t, filled, TRUE);
      judge_read_target (c, &t, recursive);
      target_clear (&t);
    }
}

/* Remembers that @word of the current command is code, not a path. */
static void
note_code_word (Check *c, const char *word)
{
  if (c->code_words == NULL)
    c->code_words = g_ptr_array_new ();
  g_ptr_array_add (c->code_words, (gpointer) word);
}

/* Inline code (python -c, perl -e, awk programs, …) is not parsed, but
 * naming a credential location in it is plain to see. */
static void
judge_code_text (Check *c, const char *code, const char *language)
{
  /* the word is code, not a path: generic_reads leaves it alone */
  note_code_word (c, code);
  static const char *const markers[] = {
    ".ssh", ".aws", ".gnupg", "keyrings", ".netrc", ".git-credentials", ".docker/config.json",
    ".kube/config", "gh/hosts.yml", ".npmrc", ".pypirc", ".pgpass", ".vault-token", "gcloud",
    ".azure", ".password-store", "/etc/shadow", "/etc/gshadow", "id_rsa", "id_ed25519", "id_ecdsa",
    "id_dsa", NULL,
  };

  for (guint i = 0; markers[i] != NULL; i++)
    {
      gsize n = strlen (markers[i]);

      for (const char *at = strstr (code, markers[i]); at != NULL; at = strstr (at + 1, markers[i]))
        {
          char before = at > code ? at[-1] : ' ';
          char after = at[n];

          if (g_ascii_isalnum (before) || before == '_' || g_ascii_isalnum (after) || after == '_'
              || after == '-')
            continue;
          finding (c, OW_SAFETY_CREDENTIAL_READ,
                   "runs %s code that names %s, where credentials are kept", language, markers[i]);
          return;
        }
    }
  for (guint i = 0; i < c->agent_dirs->len; i++)
    if (strstr (code, g_ptr_array_index (c->agent_dirs, i)) != NULL)
      {
        finding (c, OW_SAFETY_CREDENTIAL_READ,
                 "runs %s code that names %s, OpenWorker's own folder", language,
                 (const char *) g_ptr_array_index (c->agent_dirs, i));
        return;
      }
}

/* ---- programs ---- */

static gboolean
name_in (const char *name, const char *const *list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (strcmp (name, list[i]) == 0)
      return TRUE;
  return FALSE;
}

static const char *const downloaders[] = {
  "curl", "wget", "wget2", "fetch", "aria2c", "axel", "http", "https", "xh", "xhs", "httpie",
  "lwp-request", "GET", "lynx", "w3m", "links", "elinks", "nc", "ncat", "netcat", "socat", "tftp",
  "ftp", NULL,
};

static gboolean
is_python (const char *prog)
{
  const char *rest = NULL;

  if (g_str_has_prefix (prog, "python"))
    rest = prog + strlen ("python");
  else if (g_str_has_prefix (prog, "pypy"))
    rest = prog + strlen ("pypy");
  else
    return FALSE;
  return rest[strspn (rest, "0123456789.")] == '\0';
}

/* Programs that only look at names and metadata, or use keys for what
 * they are for: naming a credential path to them is not reading it. */
static const char *const not_readers[] = {
  "ls", "dir", "vdir", "stat", "test", "[", "du", "df", "file", "dirname", "basename", "realpath",
  "readlink", "namei", "wc", "chmod", "chown", "chgrp", "touch", "mkdir", "rm", "rmdir", "unlink",
  "shred", "echo", "printf", "cd", "pushd", "popd", "ssh", "ssh-add", "sftp", "tee", "find",
  "lsattr", "chattr", "getfacl", "setfacl", "true", "false", ":", "type", "which", "whereis",
  "exit", "return", "export", "unset", "local", "declare", "typeset", "readonly", "sleep", "kill",
  "wait", "set", "shopt", "trap", "alias", "mv", "ln", "truncate",
  /* these read what they are given through their own rules below */
  "cp", "install", "scp", "rsync", "tar", "bsdtar", "zip", "docker", "podman", "nerdctl", NULL,
};

/* How one command's own options are read. */
typedef struct {
  const char        *with_arg;       /* short options that take a value */
  const char        *optional_arg;   /* short options whose value is the rest of their cluster */
  const char *const *long_with_arg;  /* long options that take the next word unless --opt=value */
  gboolean           posix;          /* options end at the first operand */
} OptSpec;

/* One option as written. */
typedef struct {
  char        sh;        /* the short option, or 0 for a long one */
  const char *lng;       /* the long option's name (borrowed, lng_len bytes), or NULL */
  gsize       lng_len;   /* its length */
  const char *value;     /* its value (borrowed), or NULL */
  gboolean    dynamic;   /* the value comes from a dynamic word */
} Opt;

/* A command's words split into options and operands. */
typedef struct {
  const char *const *argv;  /* the words (borrowed) */
  const gboolean    *dyn;   /* which are dynamic (borrowed) */
  GArray            *opts;  /* Opt */
  GArray            *ops;   /* guint: indexes of the operands */
} Args;

static void
args_parse (Args *a, const char *const *argv, const gboolean *dyn, guint start, const OptSpec *spec)
{
  static const char *const none[] = { NULL };
  const char *const *long_with_arg = spec->long_with_arg != NULL ? spec->long_with_arg : none;
  gboolean options = TRUE;

  a->argv = argv;
  a->dyn = dyn;
  a->opts = g_array_new (FALSE, TRUE, sizeof (Opt));
  a->ops = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = start; argv[i] != NULL; i++)
    {
      const char *w = argv[i];

      if (!options || dyn[i] || w[0] != '-' || w[1] == '\0')
        {
          g_array_append_val (a->ops, i);
          if (spec->posix)
            options = FALSE;
          continue;
        }
      if (strcmp (w, "--") == 0)
        {
          options = FALSE;
          continue;
        }
      if (w[1] == '-')
        {
          Opt o = { 0 };
          const char *eq = strchr (w + 2, '=');

          o.lng = w + 2;
          o.lng_len = eq != NULL ? (gsize) (eq - (w + 2)) : strlen (w + 2);
          if (eq != NULL)
            o.value = eq + 1;
          else
            for (guint k = 0; long_with_arg[k] != NULL; k++)
              if (strlen (long_with_arg[k]) == o.lng_len
                  && strncmp (long_with_arg[k], o.lng, o.lng_len) == 0 && argv[i + 1] != NULL)
                {
                  o.value = argv[++i];
                  o.dynamic = dyn[i];
                  break;
                }
          g_array_append_val (a->opts, o);
          continue;
        }
      for (const char *ch = w + 1; *ch != '\0'; ch++)
        {
          Opt o = { 0 };

          o.sh = *ch;
          if (strchr (spec->with_arg, *ch) != NULL)
            {
              if (ch[1] != '\0')
                o.value = ch + 1;
              else if (argv[i + 1] != NULL)
                {
                  o.value = argv[++i];
                  o.dynamic = dyn[i];
                }
              g_array_append_val (a->opts, o);
              break;
            }
          if (spec->optional_arg != NULL && strchr (spec->optional_arg, *ch) != NULL)
            {
              o.value = ch + 1;
              g_array_append_val (a->opts, o);
              break;
            }
          g_array_append_val (a->opts, o);
        }
    }
}

static void
args_clear (Args *a)
{
  g_clear_pointer (&a->opts, g_array_unref);
  g_clear_pointer (&a->ops, g_array_unref);
}

static gboolean
opt_is (const Opt *o, char sh, const char *lng)
{
  if (sh != 0 && o->sh == sh)
    return TRUE;
  return lng != NULL && o->lng != NULL && strlen (lng) == o->lng_len
         && strncmp (o->lng, lng, o->lng_len) == 0;
}

static gboolean
args_has (const Args *a, char sh, const char *lng)
{
  for (guint i = 0; i < a->opts->len; i++)
    if (opt_is (&g_array_index (a->opts, Opt, i), sh, lng))
      return TRUE;
  return FALSE;
}

/* The last value given to an option, or NULL. */
static const Opt *
args_value (const Args *a, char sh, const char *lng)
{
  const Opt *found = NULL;

  for (guint i = 0; i < a->opts->len; i++)
    {
      const Opt *o = &g_array_index (a->opts, Opt, i);

      if (opt_is (o, sh, lng) && o->value != NULL)
        found = o;
    }
  return found;
}

static guint
n_ops (const Args *a)
{
  return a->ops->len;
}

static const char *
op (const Args *a, guint k)
{
  return a->argv[g_array_index (a->ops, guint, k)];
}

static gboolean
op_dyn (const Args *a, guint k)
{
  return a->dyn[g_array_index (a->ops, guint, k)];
}

/* Joins words @from… of @argv with spaces (how eval and sh -c strings
 * made of several words are run). */
static char *
join_words (const char *const *argv, guint from)
{
  GString *out = g_string_new (NULL);

  for (guint i = from; argv[i] != NULL; i++)
    {
      if (i > from)
        g_string_append_c (out, ' ');
      g_string_append (out, argv[i]);
    }
  return g_string_free (out, FALSE);
}

/* The downloading program a command line runs, if any (NULL otherwise).
 * Used on words whose value is a substitution: `$(curl …)`, `<(wget …)`. */
static char *
runs_download (const char *text)
{
  g_autoptr(OwShellParse) parse = ow_shell_parse (text);

  for (guint i = 0; i < parse->commands->len; i++)
    {
      const char *prog = ow_shell_command_program (g_ptr_array_index (parse->commands, i), NULL);

      if (prog != NULL && name_in (prog, downloaders))
        return g_strdup (prog);
    }
  return NULL;
}

/* The same, for text that is not shell code (a here-document fed to
 * python): the first word after each $( ` or <( is looked at. */
static char *
text_substitutes_download (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      const char *word;
      gsize n;

      if (p[0] == '`')
        word = p + 1;
      else if ((p[0] == '$' || p[0] == '<') && p[1] == '(')
        word = p + 2;
      else
        continue;
      while (*word == ' ' || *word == '\t')
        word++;
      n = strspn (word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/");
      if (n > 0)
        {
          g_autofree char *name = g_strndup (word, n);
          const char *base = strrchr (name, '/') != NULL ? strrchr (name, '/') + 1 : name;

          if (name_in (base, downloaders))
            return g_strdup (base);
        }
    }
  return NULL;
}

/* Code given to a shell as text: parsed and checked like a command line,
 * one level deeper. */
static void
check_code (Check *c, const char *code, const char *what)
{
  if (c->depth >= SAFETY_MAX_DEPTH)
    {
      finding (c, SAFETY_ALL, "%s nests shells more than %d deep, so every check applies", what,
               SAFETY_MAX_DEPTH);
      return;
    }
  c->depth++;
  check_shell (c, code, what);
  c->depth--;
}

/* A file about to be run (./x, sh x, source x): downloaded? */
static void
check_exec_file (Check *c, const char *word, gboolean dynamic, const char *how)
{
  Target t;

  if (dynamic)
    {
      g_autofree char *dl = runs_download (word);

      if (dl != NULL)
        {
          finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s%sruns code fetched by %s",
                   how != NULL ? how : "", how != NULL ? " " : "", dl);
          return;
        }
    }
  if (strstr (word, "://") != NULL)
    {
      finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s%sruns %s straight from the network",
               how != NULL ? how : "", how != NULL ? " " : "", word);
      return;
    }
  target_init (c, &t, word, dynamic);
  for (guint i = 0; i < t.real.len && !t.unknown; i++)
    {
      const char *f = t.real.item[i];
      gboolean hit = FALSE;

      for (guint k = 0; k < c->downloaded->len && !hit; k++)
        if (strcmp (f, g_ptr_array_index (c->downloaded, k)) == 0)
          {
            finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s%sruns %s, a file this session downloaded",
                     how != NULL ? how : "", how != NULL ? " " : "", word);
            hit = TRUE;
          }
      for (guint k = 0; k < c->homes->len && !hit; k++)
        {
          g_autofree char *dir = path_join (g_ptr_array_index (c->homes, k), "Downloads");

          if (path_below (f, dir))
            {
              finding (c, OW_SAFETY_DOWNLOADED_EXEC,
                       "%s%sruns %s, a downloaded file in ~/Downloads", how != NULL ? how : "",
                       how != NULL ? " " : "", word);
              hit = TRUE;
            }
        }
      if (hit)
        break;
    }
  target_clear (&t);
}

/* Here-documents and here-strings feeding @cmd's stdin, which an
 * interpreter runs as its program. */
static gboolean
check_stdin_code (Check *c, const OwShellCommand *cmd, gboolean shell, const char *prog)
{
  gboolean fed = FALSE;

  for (guint i = 0; i < cmd->redirects->len; i++)
    {
      const OwShellRedirect *r = g_ptr_array_index (cmd->redirects, i);
      const char *code = NULL;

      if (r->fd != 0)
        continue;
      if (r->body != NULL)
        code = r->body;
      else if (strcmp (r->op, "<<<") == 0)
        code = r->target;
      else if (strcmp (r->op, "<") == 0 && r->target != NULL)
        {
          g_autofree char *how = g_strdup_printf ("%s < %s", prog, r->target);

          check_exec_file (c, r->target, strpbrk (r->target, "$`~*?[") != NULL, how);
          fed = TRUE;
          continue;
        }
      if (code == NULL)
        continue;
      fed = TRUE;
      if (shell)
        {
          g_autofree char *what
              = g_strdup_printf ("the script %s reads from a here-document", prog);

          check_code (c, code, what);
        }
      else
        {
          g_autofree char *dl = text_substitutes_download (code);

          if (dl != NULL)
            finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s runs code fetched by %s", prog, dl);
          judge_code_text (c, code, prog);
        }
    }
  return fed;
}

static void
note_stdin_exec (Check *c, const char *prog)
{
  if (c->stdin_exec == NULL)
    c->stdin_exec = g_strdup (prog);
}

/* sh, bash, …: -c code, a script, or stdin (ow_shell_shell_runs). */
static void
check_shell_program (Check *c, const OwShellCommand *cmd, const char *prog, guint start)
{
  const char *const *argv = (const char *const *) cmd->argv;
  guint i, dynamic_at;
  OwShellRuns runs = ow_shell_shell_runs (cmd, start, &i, &dynamic_at);

  if (dynamic_at != G_MAXUINT)
    check_exec_file (c, argv[dynamic_at], TRUE, prog);
  if (runs == OW_SHELL_RUNS_STRING)
    {
      if (argv[i] != NULL && cmd->dynamic[i]
          && (strstr (argv[i], "$(") != NULL || strchr (argv[i], '`') != NULL))
        finding (c, OW_SAFETY_OPAQUE_CODE,
                 "%s -c runs the output of a command, code that is only known when it runs", prog);
      if (argv[i] != NULL)
        {
          g_autofree char *what = g_strdup_printf ("%s -c", prog);

          note_code_word (c, argv[i]);
          check_code (c, argv[i], what);
        }
      return;
    }
  if (runs == OW_SHELL_RUNS_SCRIPT)
    {
      /* sh script: the script runs, and its stdin is only data */
      check_exec_file (c, argv[i], cmd->dynamic[i], prog);
      return;
    }
  if (!check_stdin_code (c, cmd, TRUE, prog))
    note_stdin_exec (c, prog);
}

/* An interpreter of another language: how it is given code. */
typedef struct {
  const char        *name;        /* the program */
  const char        *code_short;  /* short options whose value is code */
  const char *const  code_long[3];/* long options whose value is code */
  const char        *with_arg;    /* other short options that take a value */
  const char        *inplace;     /* short options that edit files in place (perl/ruby -i) */
} Interp;

static const Interp interps[] = {
  { "perl", "eE", { NULL }, "IMmx", "i" },
  { "ruby", "e", { NULL }, "IrCEFx", "i" },
  { "node", "ep", { "eval", "print", NULL }, "rC", "" },
  { "nodejs", "ep", { "eval", "print", NULL }, "rC", "" },
  { "bun", "e", { "eval", "print", NULL }, "r", "" },
  { "php", "rBRE", { NULL }, "cdfzFz", "" },
  { "lua", "e", { NULL }, "l", "" },
  { "luajit", "e", { NULL }, "lbj", "" },
  { "tclsh", "", { NULL }, "", "" },
  { "Rscript", "e", { NULL }, "", "" },
  { "osascript", "e", { NULL }, "lis", "" },
};

/* python: -c code and -m module end its options; the first operand is
 * the script. */
static void
check_python (Check *c, const OwShellCommand *cmd, const char *prog, guint start)
{
  const char *const *argv = (const char *const *) cmd->argv;

  for (guint i = start; argv[i] != NULL; i++)
    {
      const char *a = argv[i];

      if (cmd->dynamic[i] || a[0] != '-' || strcmp (a, "-") == 0)
        {
          /* python - runs its stdin; python script.py runs the script
           * (its stdin is then only data) */
          if (strcmp (a, "-") != 0)
            check_exec_file (c, a, cmd->dynamic[i], prog);
          else if (!check_stdin_code (c, cmd, FALSE, prog))
            note_stdin_exec (c, prog);
          return;
        }
      if (a[1] == '-')
        {
          if (strcmp (a, "--") == 0)
            {
              if (argv[i + 1] != NULL)
                check_exec_file (c, argv[i + 1], cmd->dynamic[i + 1], prog);
              return;
            }
          if (strcmp (a, "--check-hash-based-pycs") == 0 && argv[i + 1] != NULL)
            i++;
          continue;
        }
      for (const char *ch = a + 1; *ch != '\0'; ch++)
        {
          if (*ch == 'c' || *ch == 'm')
            {
              const char *value = ch[1] != '\0' ? ch + 1 : argv[i + 1];
              gboolean dyn
                  = ch[1] != '\0' ? cmd->dynamic[i] : (value != NULL && cmd->dynamic[i + 1]);

              if (*ch == 'c' && value != NULL)
                {
                  if (dyn)
                    {
                      g_autofree char *dl = runs_download (value);

                      if (dl != NULL)
                        finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s -c runs code fetched by %s",
                                 prog, dl);
                    }
                  judge_code_text (c, value, prog);
                }
              return;
            }
          if (*ch == 'W' || *ch == 'X' || *ch == 'Q')
            {
              if (ch[1] == '\0' && argv[i + 1] != NULL)
                i++;
              break;
            }
        }
    }
  if (!check_stdin_code (c, cmd, FALSE, prog))
    note_stdin_exec (c, prog);
}

static void
check_interp (Check *c, const OwShellCommand *cmd, const Interp *in, guint start)
{
  const char *const *argv = (const char *const *) cmd->argv;
  g_autofree char *with_arg = g_strconcat (in->code_short, in->with_arg, NULL);
  static const char *longs[] = { "eval", "print", "require", "import", NULL };
  OptSpec spec = { with_arg, in->inplace, longs, TRUE };
  Args a;
  gboolean code_given = FALSE;
  guint first_file = 0;

  args_parse (&a, argv, cmd->dynamic, start, &spec);
  for (guint i = 0; i < a.opts->len; i++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, i);
      gboolean is_code = (o->sh != 0 && strchr (in->code_short, o->sh) != NULL);

      for (guint k = 0; in->code_long[k] != NULL && !is_code; k++)
        is_code = opt_is (o, 0, in->code_long[k]);
      if (!is_code || o->value == NULL)
        continue;
      code_given = TRUE;
      if (o->dynamic)
        {
          g_autofree char *dl = runs_download (o->value);

          if (dl != NULL)
            finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s runs code fetched by %s", in->name, dl);
        }
      judge_code_text (c, o->value, in->name);
    }
  if (!code_given)
    {
      if (n_ops (&a) > 0 && strcmp (op (&a, 0), "-") != 0)
        {
          check_exec_file (c, op (&a, 0), op_dyn (&a, 0), in->name);
          first_file = 1;
        }
      else if (!check_stdin_code (c, cmd, FALSE, in->name))
        note_stdin_exec (c, in->name);
    }
  if (in->inplace[0] != '\0' && args_has (&a, in->inplace[0], NULL))
    {
      /* perl -i / ruby -i edit the files they are given */
      Args all;
      OptSpec loose = { with_arg, in->inplace, longs, FALSE };

      args_parse (&all, argv, cmd->dynamic, start, &loose);
      for (guint k = code_given ? 0 : first_file; k < n_ops (&all); k++)
        judge_write (c, op (&all, k), op_dyn (&all, k), "edits");
      args_clear (&all);
    }
  args_clear (&a);
}

static const Interp *
find_interp (const char *prog)
{
  for (guint i = 0; i < G_N_ELEMENTS (interps); i++)
    if (strcmp (interps[i].name, prog) == 0)
      return &interps[i];
  return NULL;
}

/* Whether a mode given to chmod or install sets the setuid or setgid bit. */
static gboolean
mode_sets_id (const char *mode)
{
  gsize digits = strspn (mode, "01234567");

  if (digits == strlen (mode) && digits > 0)
    {
      unsigned long value = strtoul (mode, NULL, 8);

      return digits >= 4 && (value & 06000) != 0;
    }
  {
    g_auto(GStrv) clauses = g_strsplit (mode, ",", -1);

    for (guint i = 0; clauses[i] != NULL; i++)
      {
        const char *op_at = strpbrk (clauses[i], "+=");

        if (op_at != NULL && strchr (op_at, 's') != NULL)
          return TRUE;
      }
  }
  return FALSE;
}

static gboolean
is_url (const char *word)
{
  return strstr (word, "://") != NULL;
}

/* A URL left unquoted is "dynamic" only for its ? and *, which almost
 * never match a file: its text is still what is fetched. */
static gboolean
url_literal (const char *word, gboolean dynamic)
{
  return !dynamic || (strpbrk (word, "$`") == NULL && word[0] != '~');
}

/* The file name a download of @url gets by default (curl -O, wget). */
static char *
url_basename (const char *url, const char *fallback)
{
  const char *start = strstr (url, "://");
  g_autofree char *path = NULL;
  const char *slash;
  gsize n;

  start = start != NULL ? start + 3 : url;
  n = strcspn (start, "?#");
  path = g_strndup (start, n);
  slash = strrchr (path, '/');
  if (slash == NULL || slash[1] == '\0' || strcmp (slash + 1, "..") == 0
      || strcmp (slash + 1, ".") == 0)
    return fallback != NULL ? g_strdup (fallback) : NULL;
  return g_strdup (slash + 1);
}

static const char *const curl_long[] = {
  "output", "output-dir", "dump-header", "cookie-jar", "trace", "trace-ascii", "stderr", "libcurl",
  "upload-file", "data", "data-binary", "data-raw", "data-urlencode", "data-ascii", "form",
  "config", "header", "user", "request", "user-agent", "referer", "cookie", "cert", "key",
  "proxy", "max-time", "connect-timeout", "retry", "url", "cacert", "range", "write-out", "json",
  NULL,
};
static const OptSpec curl_spec = { "AbcCdDeEFHKmoPQrtTuUwxXyYz", NULL, curl_long, FALSE };

static const char *const wget_long[] = {
  "output-document", "output-file", "append-output", "directory-prefix", "post-file", "body-file",
  "input-file", "execute", "user", "password", "header", "tries", "timeout", "user-agent", NULL,
};
static const OptSpec wget_spec = { "OoaPeiBtTwYUQlARDIX", NULL, wget_long, FALSE };

static const char *const aria_long[] = { "dir", "out", "input-file", NULL };
static const OptSpec aria_spec = { "dois", NULL, aria_long, FALSE };

/* Adds to @out the files @cmd (a downloader) would write, as written
 * (relative ones resolve in the shell's folder). */
static void
download_targets (const OwShellCommand *cmd, const char *prog, guint start, GPtrArray *out)
{
  const char *const *argv = (const char *const *) cmd->argv;
  Args a;

  if (strcmp (prog, "curl") == 0)
    {
      const Opt *dir = NULL;

      args_parse (&a, argv, cmd->dynamic, start, &curl_spec);
      dir = args_value (&a, 0, "output-dir");
      for (guint i = 0; i < a.opts->len; i++)
        {
          const Opt *o = &g_array_index (a.opts, Opt, i);

          if (opt_is (o, 'o', "output") && o->value != NULL && strcmp (o->value, "-") != 0
              && !o->dynamic)
            g_ptr_array_add (out,
                             dir != NULL ? path_join (dir->value, o->value) : g_strdup (o->value));
        }
      if (args_has (&a, 'O', "remote-name") || args_has (&a, 0, "remote-name-all"))
        for (guint k = 0; k < n_ops (&a); k++)
          {
            g_autofree char *name = url_basename (op (&a, k), NULL);

            if (name != NULL && url_literal (op (&a, k), op_dyn (&a, k)))
              g_ptr_array_add (out, dir != NULL ? path_join (dir->value, name) : g_strdup (name));
          }
      args_clear (&a);
      return;
    }
  if (strcmp (prog, "wget") == 0 || strcmp (prog, "wget2") == 0)
    {
      const Opt *doc, *dir;

      args_parse (&a, argv, cmd->dynamic, start, &wget_spec);
      doc = args_value (&a, 'O', "output-document");
      dir = args_value (&a, 'P', "directory-prefix");
      if (doc != NULL)
        {
          if (strcmp (doc->value, "-") != 0 && !doc->dynamic)
            g_ptr_array_add (out, g_strdup (doc->value));
        }
      else
        for (guint k = 0; k < n_ops (&a); k++)
          if (url_literal (op (&a, k), op_dyn (&a, k)) && is_url (op (&a, k)))
            {
              g_autofree char *name = url_basename (op (&a, k), "index.html");

              g_ptr_array_add (out, dir != NULL ? path_join (dir->value, name) : g_strdup (name));
            }
      args_clear (&a);
      return;
    }
  if (strcmp (prog, "aria2c") == 0 || strcmp (prog, "axel") == 0 || strcmp (prog, "fetch") == 0)
    {
      const Opt *dir, *name;

      args_parse (&a, argv, cmd->dynamic, start, &aria_spec);
      dir = strcmp (prog, "aria2c") == 0 ? args_value (&a, 'd', "dir") : NULL;
      name = args_value (&a, 'o', "out");
      if (name == NULL)
        name = args_value (&a, 'o', "output");
      if (name != NULL && !name->dynamic)
        g_ptr_array_add (out, dir != NULL ? path_join (dir->value, name->value)
                                          : g_strdup (name->value));
      else
        for (guint k = 0; k < n_ops (&a); k++)
          {
            g_autofree char *file = url_basename (op (&a, k), NULL);

            if (file != NULL && url_literal (op (&a, k), op_dyn (&a, k)))
              g_ptr_array_add (out, dir != NULL ? path_join (dir->value, file) : g_strdup (file));
          }
      args_clear (&a);
    }
}

/* ---- one simple command ---- */

/* One simple command seen through its wrappers. */
typedef struct {
  const OwShellCommand *cmd;    /* the command (borrowed) */
  const char *const    *argv;   /* its words */
  const gboolean       *dyn;    /* which are dynamic */
  const char           *prog;   /* the program it runs (basename) */
  guint                 at;     /* index of the program's word */
  guint                 start;  /* index of the program's first argument */
  gboolean              more;   /* xargs passes it more arguments at run time */
} Run;

/* Whether any option cluster in @r's arguments has @flag, or a word is
 * exactly @long_flag (loosely: option values are not told apart, which
 * can only make a program look more recursive than it is). */
static gboolean
run_has_flag (const Run *r, char flag, const char *long_flag)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if (strcmp (w, "--") == 0)
        break;
      if (long_flag != NULL && g_str_has_prefix (w, long_flag)
          && (w[strlen (long_flag)] == '\0' || w[strlen (long_flag)] == '='))
        return TRUE;
      if (flag != 0 && w[0] == '-' && w[1] != '-' && strchr (w + 1, flag) != NULL)
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_recursive_reader (const Run *r)
{
  static const char *const always[] = { "rg", "ag", "ack", "rsync", "rclone", "restic", "borg",
                                        "duplicity", "7z", "7za", "tar", "bsdtar", NULL };
  const char *p = r->prog;

  if (name_in (p, always))
    return TRUE;
  if (strcmp (p, "grep") == 0 || strcmp (p, "egrep") == 0 || strcmp (p, "fgrep") == 0
      || strcmp (p, "ugrep") == 0)
    return run_has_flag (r, 'r', "--recursive") || run_has_flag (r, 'R', "--dereference-recursive")
           || run_has_flag (r, 0, "--directories=recurse");
  if (strcmp (p, "cp") == 0 || strcmp (p, "scp") == 0 || strcmp (p, "zip") == 0)
    return run_has_flag (r, 'r', "--recursive") || run_has_flag (r, 'R', NULL)
           || (strcmp (p, "cp") == 0 && run_has_flag (r, 'a', "--archive"));
  return FALSE;
}

/* Whether a plain word given to a reading program needs resolving at
 * all. Most arguments (status, -m, a message, a file name) cannot be a
 * credential: no slash, no ~, not a dotfile, none of the names
 * credentials have, not a symlink, in a folder that is not itself a
 * credential folder. Skipping those keeps every call cheap. */
static gboolean
may_name_credential (Check *c, const char *word)
{
  static const char *const names[] = { "shadow", "environ", "id_", "token", "secret", "key",
                                       "credential", "sealed", "config", "keyrings", "hosts.yml",
                                       NULL };

  if (strchr (word, '/') != NULL || word[0] == '~' || word[0] == '.' || c->cwd_unknown)
    return TRUE;
  for (guint i = 0; names[i] != NULL; i++)
    if (strstr (word, names[i]) != NULL)
      return TRUE;
  for (guint i = 0; i < c->cwds->len; i++)
    {
      const char *cwd = g_ptr_array_index (c->cwds, i);
      g_autofree char *kind = credential_kind (c, cwd);
      char path[SAFETY_MAX_PATH + 1];
      struct stat st;

      if (kind != NULL || strlen (cwd) + 1 + strlen (word) > SAFETY_MAX_PATH)
        return TRUE;
      g_snprintf (path, sizeof path, "%s/%s", cwd, word);
      if (lstat (path, &st) == 0 && S_ISLNK (st.st_mode))
        return TRUE;
    }
  return FALSE;
}

/* Every argument naming a credential, for programs not known to leave
 * the files they are given unread. */
static void
generic_reads (Check *c, const Run *r)
{
  gboolean recursive;

  if (name_in (r->prog, not_readers))
    return;
  recursive = is_recursive_reader (r);
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if (w[0] == '-' && !r->dyn[i])
        {
          const char *eq = strchr (w, '=');

          if (eq == NULL)
            continue;
          w = eq + 1;
        }
      if (w[0] == '@')
        w++;
      if (w[0] != '\0'
          && (c->code_words == NULL || !g_ptr_array_find (c->code_words, r->argv[i], NULL))
          && (recursive || r->dyn[i] || may_name_credential (c, w)))
        judge_read (c, w, r->dyn[i], recursive);
    }
}

static void
each_write (Check *c, const Args *a, guint from, const char *verb)
{
  for (guint k = from; k < n_ops (a); k++)
    judge_write (c, op (a, k), op_dyn (a, k), verb);
}

static void
more_targets (Check *c, const Run *r, const char *verb, gboolean deletes, gboolean recursive)
{
  if (!r->more)
    return;
  finding (c, OW_SAFETY_WRITE_OUTSIDE,
           "%s %s paths that xargs passes at run time, only known when the command runs", r->prog,
           verb);
  if (deletes && recursive)
    finding (c, OW_SAFETY_RECURSIVE_DELETE,
             "%s deletes recursively what xargs passes at run time, paths only known when the "
             "command runs",
             r->prog);
}

static void
check_rm (Check *c, const Run *r)
{
  static const char *const longs[] = { NULL };
  OptSpec spec = { "", NULL, longs, FALSE };
  Args a;
  gboolean recursive;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  recursive = args_has (&a, 'r', "recursive") || args_has (&a, 'R', NULL);
  if (strcmp (r->prog, "rmdir") == 0)
    {
      gboolean parents = args_has (&a, 'p', "parents");

      for (guint k = 0; k < n_ops (&a); k++)
        {
          judge_delete (c, op (&a, k), op_dyn (&a, k), FALSE, FALSE);
          if (parents)
            {
              /* rmdir -p a/b/c also removes a/b and a, as written */
              g_autofree char *path = g_strdup (op (&a, k));
              char *slash;

              while ((slash = strrchr (path, '/')) != NULL && slash != path)
                {
                  *slash = '\0';
                  if (path[0] != '\0')
                    judge_delete (c, path, op_dyn (&a, k), TRUE, FALSE);
                }
            }
        }
      more_targets (c, r, "deletes", TRUE, parents);
    }
  else
    {
      for (guint k = 0; k < n_ops (&a); k++)
        judge_delete (c, op (&a, k), op_dyn (&a, k), recursive, FALSE);
      more_targets (c, r, "deletes", TRUE, recursive);
    }
  args_clear (&a);
}

static void check_command (Check *c, const OwShellCommand *cmd);

/* Checks @n words of @argv as a command of their own (find -exec,
 * flock, watch -x). */
static void
check_words (Check *c, char **argv, const gboolean *dyn, guint n)
{
  OwShellCommand sub = { 0 };
  g_autoptr(GPtrArray) words = g_ptr_array_new ();
  g_autofree gboolean *flags = g_new0 (gboolean, n + 1);
  char *none[] = { NULL };

  if (n == 0)
    return;
  if (c->depth >= SAFETY_MAX_DEPTH)
    {
      finding (c, SAFETY_ALL,
               "the command nests programs more than %d deep, so every check applies",
               SAFETY_MAX_DEPTH);
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      g_ptr_array_add (words, argv[i]);
      flags[i] = dyn[i];
    }
  g_ptr_array_add (words, NULL);
  sub.argv = (GStrv) words->pdata;
  sub.assignments = none;
  sub.redirects = g_ptr_array_new ();
  sub.dynamic = flags;
  c->depth++;
  check_command (c, &sub);
  c->depth--;
  g_ptr_array_unref (sub.redirects);
}

static void
check_find (Check *c, const Run *r)
{
  g_autoptr(GPtrArray) starts = g_ptr_array_new ();
  g_autoptr(GArray) start_dyn = g_array_new (FALSE, FALSE, sizeof (gboolean));
  guint i = r->start;
  gboolean deletes = FALSE;

  /* leading options: -H -L -P -Olevel -D debug */
  while (r->argv[i] != NULL && !r->dyn[i]
         && (strcmp (r->argv[i], "-H") == 0 || strcmp (r->argv[i], "-L") == 0
             || strcmp (r->argv[i], "-P") == 0 || g_str_has_prefix (r->argv[i], "-O")
             || strcmp (r->argv[i], "-D") == 0))
    {
      if (strcmp (r->argv[i], "-D") == 0 && r->argv[i + 1] != NULL)
        i++;
      i++;
    }
  while (r->argv[i] != NULL && (r->dyn[i] || (r->argv[i][0] != '-' && strcmp (r->argv[i], "(") != 0
                                              && strcmp (r->argv[i], "!") != 0)))
    {
      g_ptr_array_add (starts, (gpointer) r->argv[i]);
      g_array_append_val (start_dyn, r->dyn[i]);
      i++;
    }
  if (starts->len == 0)
    {
      gboolean no = FALSE;

      g_ptr_array_add (starts, (gpointer) ".");
      g_array_append_val (start_dyn, no);
    }
  for (; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if (strcmp (w, "-delete") == 0)
        deletes = TRUE;
      else if ((strcmp (w, "-fprint") == 0 || strcmp (w, "-fprint0") == 0 || strcmp (w, "-fls") == 0
                || strcmp (w, "-fprintf") == 0) && r->argv[i + 1] != NULL)
        {
          judge_write (c, r->argv[i + 1], r->dyn[i + 1], "writes");
          i++;
        }
      else if (strcmp (w, "-exec") == 0 || strcmp (w, "-execdir") == 0 || strcmp (w, "-ok") == 0
               || strcmp (w, "-okdir") == 0)
        {
          guint from = i + 1, end = from;
          const char *prog;

          while (r->argv[end] != NULL && strcmp (r->argv[end], ";") != 0
                 && strcmp (r->argv[end], "+") != 0)
            end++;
          if (end == from)
            {
              if (r->argv[end] == NULL)
                break;
              i = end;
              continue;
            }
          prog = strrchr (r->argv[from], '/') != NULL ? strrchr (r->argv[from], '/') + 1
                                                      : r->argv[from];
          if (strcmp (prog, "rm") == 0 || strcmp (prog, "rmdir") == 0
              || strcmp (prog, "unlink") == 0 || strcmp (prog, "shred") == 0)
            deletes = TRUE;
          else
            for (guint s = 0; s < starts->len; s++)
              {
                /* {} stands for what find finds below each start */
                g_autoptr(GPtrArray) words = g_ptr_array_new_with_free_func (g_free);
                g_autoptr(GArray) flags = g_array_new (FALSE, TRUE, sizeof (gboolean));
                g_autofree char *below = path_join (g_ptr_array_index (starts, s), "*");

                for (guint k = from; k < end; k++)
                  {
                    gboolean is_found = strstr (r->argv[k], "{}") != NULL;
                    gboolean flag = r->dyn[k] || (is_found && k > from);

                    g_ptr_array_add (words, is_found && k > from ? g_strdup (below)
                                                                 : g_strdup (r->argv[k]));
                    g_array_append_val (flags, flag);
                  }
                check_words (c, (char **) words->pdata, (const gboolean *) (void *) flags->data,
                             words->len);
              }
          i = r->argv[end] != NULL ? end : end - 1;
        }
    }
  if (deletes)
    for (guint s = 0; s < starts->len; s++)
      judge_delete (c, g_ptr_array_index (starts, s), g_array_index (start_dyn, gboolean, s), TRUE,
                    TRUE);
}

/* The destination of cp, mv, install or ln: a folder (given with -t,
 * written with a trailing slash, or already one) receives each source
 * under its own name; anything else is the file written. */
static void
judge_destination (Check *c, const char *dest, gboolean dynamic, const Args *a, guint n_sources,
                   gboolean may_be_folder)
{
  gboolean folder = FALSE;
  Target t;

  target_init (c, &t, dest, dynamic);
  if (may_be_folder && !t.unknown)
    {
      struct stat st;

      folder = g_str_has_suffix (dest, "/") || n_sources > 1
               || (t.real.len > 0 && stat (t.real.item[0], &st) == 0
                   && S_ISDIR (st.st_mode));
    }
  if (!folder || n_sources == 0)
    {
      judge_write_target (c, &t, "writes");
      target_clear (&t);
      return;
    }
  target_clear (&t);
  for (guint k = 0; k < n_sources; k++)
    {
      const char *src = op (a, k);
      g_autofree char *trimmed = g_strdup (src);
      g_autofree char *into = NULL;
      const char *name;

      while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, "/"))
        trimmed[strlen (trimmed) - 1] = '\0';
      name = strrchr (trimmed, '/') != NULL ? strrchr (trimmed, '/') + 1 : trimmed;
      /* a name only known at run time is still a name inside the folder */
      if (op_dyn (a, k) || name[0] == '\0' || strcmp (name, ".") == 0)
        name = "…";
      else if (strcmp (name, "..") == 0)
        name = "";
      into = g_strconcat (dest, g_str_has_suffix (dest, "/") ? "" : "/", name, NULL);
      judge_write (c, into, dynamic, "writes");
    }
}

/* cp, mv, install, ln: the destination is written; sources are read
 * (and removed by mv). */
static void
check_copy (Check *c, const Run *r)
{
  static const char *const longs[]
      = { "target-directory", "suffix", "mode", "owner", "group", NULL };
  OptSpec spec = { strcmp (r->prog, "install") == 0 ? "gmoSt" : "St", NULL, longs, FALSE };
  const Opt *target;
  gboolean recursive;
  Args a;
  guint n_sources;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  target = args_value (&a, 't', "target-directory");
  recursive = args_has (&a, 'r', "recursive") || args_has (&a, 'R', NULL)
              || args_has (&a, 'a', "archive");
  if (strcmp (r->prog, "install") == 0)
    {
      const Opt *mode = args_value (&a, 'm', "mode");

      if (mode != NULL && mode_sets_id (mode->value))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "install -m %s sets the setuid or setgid bit, which outlives the session",
                 mode->value);
      if (args_has (&a, 'd', "directory"))
        {
          each_write (c, &a, 0, "writes");
          args_clear (&a);
          return;
        }
    }
  if (target != NULL)
    {
      n_sources = n_ops (&a);
      judge_destination (c, target->value, target->dynamic, &a, n_sources, TRUE);
    }
  else if (n_ops (&a) >= 2 || (r->more && n_ops (&a) >= 1))
    {
      n_sources = n_ops (&a) - 1;
      judge_destination (c, op (&a, n_sources), op_dyn (&a, n_sources), &a, n_sources,
                         n_sources > 1 || r->more
                             || args_has (&a, 'T', "no-target-directory") == FALSE);
    }
  else if (strcmp (r->prog, "ln") == 0 && n_ops (&a) == 1)
    {
      /* ln SOURCE makes a link named like it in the current folder */
      const char *name
          = strrchr (op (&a, 0), '/') != NULL ? strrchr (op (&a, 0), '/') + 1 : op (&a, 0);

      judge_write (c, name[0] != '\0' ? name : ".", op_dyn (&a, 0), "writes");
      n_sources = 1;
    }
  else
    n_sources = n_ops (&a);
  more_targets (c, r, "writes", FALSE, FALSE);
  for (guint k = 0; k < n_sources; k++)
    {
      const char *src = op (&a, k);
      gboolean dyn = op_dyn (&a, k);

      if (strcmp (r->prog, "mv") == 0)
        judge_delete (c, src, dyn, FALSE, FALSE);
      judge_read (c, src, dyn, recursive);
      if (strcmp (r->prog, "ln") == 0 && args_has (&a, 's', "symbolic"))
        {
          /* a link to /, a home or a folder holding a session folder
           * lets later writes through it land anywhere there */
          Target t;

          target_init (c, &t, src, dyn);
          for (guint i = 0; i < t.real.len && !t.unknown; i++)
            {
              const char *f = t.real.item[i];
              const char *scope = delete_scope (c, f, TRUE);

              if (scope != NULL && strcmp (scope, "outside the session's folders") != 0)
                {
                  g_autofree char *where = display (c, f);

                  finding (c, OW_SAFETY_WRITE_OUTSIDE,
                           "links to %s (%s), so writes through the link land outside the "
                           "session's folders",
                           where, scope);
                  break;
                }
            }
          for (guint i = 0; i < t.names.len && !t.unknown; i++)
            {
              const char *kind = protected_kind (c, t.names.item[i]);

              if (kind != NULL)
                {
                  finding (c, OW_SAFETY_PROTECTED_FILE,
                           "links to %s, %s, so writes through the link change it", src, kind);
                  break;
                }
            }
          target_clear (&t);
        }
    }
  args_clear (&a);
}

static void
check_chmod (Check *c, const Run *r)
{
  gboolean reference = FALSE;
  const char *mode = NULL;
  guint first = 0;
  g_autoptr(GArray) ops = g_array_new (FALSE, FALSE, sizeof (guint));

  /* chmod -x file: a mode that looks like an option */
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if (!r->dyn[i] && w[0] == '-' && w[1] != '\0' && strspn (w + 1, "cfvR") == strlen (w + 1))
        continue;
      if (!r->dyn[i] && g_str_has_prefix (w, "--"))
        {
          if (g_str_has_prefix (w, "--reference"))
            reference = TRUE;
          continue;
        }
      g_array_append_val (ops, i);
    }
  if (strcmp (r->prog, "chmod") == 0 && !reference && ops->len > 0)
    {
      mode = r->argv[g_array_index (ops, guint, 0)];
      first = 1;
    }
  else if (strcmp (r->prog, "chmod") != 0 && !reference && ops->len > 0)
    first = 1;
  for (guint k = first; k < ops->len; k++)
    {
      guint i = g_array_index (ops, guint, k);

      judge_write (c, r->argv[i], r->dyn[i],
                   strcmp (r->prog, "chmod") == 0 ? "changes the permissions of"
                                                  : "changes the owner of");
      if (mode != NULL && mode_sets_id (mode))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "chmod %s sets the setuid or setgid bit on %s, which outlives the session", mode,
                 r->argv[i]);
    }
  if (r->more)
    {
      if (mode != NULL && mode_sets_id (mode))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "chmod %s sets the setuid or setgid bit, which outlives the session", mode);
      more_targets (c, r, "changes", FALSE, FALSE);
    }
}

static void
check_sed (Check *c, const Run *r)
{
  static const char *const longs[] = { "expression", "file", "line-length", NULL };
  OptSpec spec = { "efl", "i", longs, FALSE };
  gboolean script_given, in_place;
  Args a;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  script_given = args_has (&a, 'e', "expression") || args_has (&a, 'f', "file");
  in_place = args_has (&a, 'i', "in-place");
  if (in_place)
    {
      each_write (c, &a, script_given ? 0 : 1, "edits");
      more_targets (c, r, "edits", FALSE, FALSE);
    }
  else
    for (guint k = script_given ? 0 : 1; k < n_ops (&a); k++)
      judge_read (c, op (&a, k), op_dyn (&a, k), FALSE);
  args_clear (&a);
}

static void
check_awk (Check *c, const Run *r)
{
  static const char *const longs[]
      = { "file", "assign", "field-separator", "include", "load", "source", NULL };
  OptSpec spec = { "fvFilEe", NULL, longs, FALSE };
  const Opt *include;
  gboolean program_file;
  Args a;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  program_file = args_has (&a, 'f', "file");
  include = args_value (&a, 'i', "include");
  if (!program_file && n_ops (&a) > 0)
    judge_code_text (c, op (&a, 0), r->prog);
  for (guint i = 0; i < a.opts->len; i++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, i);

      if ((opt_is (o, 'e', "source")) && o->value != NULL)
        judge_code_text (c, o->value, r->prog);
    }
  for (guint k = program_file ? 0 : 1; k < n_ops (&a); k++)
    {
      if (strchr (op (&a, k), '=') != NULL && !op_dyn (&a, k))
        continue;
      if (include != NULL && strcmp (include->value, "inplace") == 0)
        judge_write (c, op (&a, k), op_dyn (&a, k), "edits");
      judge_read (c, op (&a, k), op_dyn (&a, k), FALSE);
    }
  args_clear (&a);
}

static void
check_tar (Check *c, const Run *r)
{
  static const char *const longs[] = { "file",
                                       "directory",
                                       "files-from",
                                       "exclude-from",
                                       "listed-incremental",
                                       "label",
                                       "use-compress-program",
                                       "to-command",
                                       "info-script",
                                       "new-volume-script",
                                       NULL };
  OptSpec spec = { "fCbTXgKLNVHIF", NULL, longs, FALSE };
  gboolean create, extract;
  const Opt *file, *dir;
  g_autofree char *old_archive = NULL;
  gboolean old_dynamic = FALSE;
  GPtrArray *saved = NULL;
  Args a;
  guint i = r->start;
  char mode[64] = "";

  /* old style: tar czf archive.tgz dir */
  if (r->argv[i] != NULL && !r->dyn[i] && r->argv[i][0] != '-'
      && strspn (r->argv[i], "AcdrtuxzjJvfpPkmOSWhlLBGgioV") == strlen (r->argv[i]))
    {
      g_strlcpy (mode, r->argv[i], sizeof mode);
      if (strchr (r->argv[i], 'f') != NULL && r->argv[i + 1] != NULL)
        {
          old_archive = g_strdup (r->argv[i + 1]);
          old_dynamic = r->dyn[i + 1];
          i++;
        }
      i++;
    }
  args_parse (&a, r->argv, r->dyn, i, &spec);
  create = strpbrk (mode, "cruA") != NULL || args_has (&a, 'c', "create")
           || args_has (&a, 'r', "append") || args_has (&a, 'u', "update")
           || args_has (&a, 'A', "concatenate");
  extract = strchr (mode, 'x') != NULL || args_has (&a, 'x', "extract") || args_has (&a, 0, "get");
  file = args_value (&a, 'f', "file");
  dir = args_value (&a, 'C', "directory");
  for (guint k = 0; k < a.opts->len; k++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, k);

      if ((opt_is (o, 'I', "use-compress-program") || opt_is (o, 0, "to-command")
           || opt_is (o, 'F', "info-script") || opt_is (o, 0, "new-volume-script")
           || opt_is (o, 0, "checkpoint-action"))
          && o->value != NULL)
        {
          const char *code = g_str_has_prefix (o->value, "exec=") ? o->value + 5 : o->value;

          check_code (c, code, "a command tar runs");
        }
    }
  if (dir != NULL)
    {
      Target t;

      target_init (c, &t, dir->value, dir->dynamic);
      saved = c->cwds;
      c->cwds = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; k < t.real.len; k++)
        g_ptr_array_add (c->cwds, g_strdup (t.real.item[k]));
      if (t.unknown)
        c->cwd_unknown = TRUE;
      target_clear (&t);
    }
  if (create)
    {
      const char *archive = file != NULL ? file->value : old_archive;

      if (archive != NULL && strcmp (archive, "-") != 0)
        {
          GPtrArray *inner = c->cwds;

          /* the archive itself is named from where tar starts */
          if (saved != NULL)
            c->cwds = saved;
          judge_write (c, archive, file != NULL ? file->dynamic : old_dynamic, "writes");
          c->cwds = inner;
        }
      for (guint k = 0; k < n_ops (&a); k++)
        judge_read (c, op (&a, k), op_dyn (&a, k), TRUE);
    }
  if (extract)
    {
      if (args_has (&a, 'P', "absolute-names") || strchr (mode, 'P') != NULL)
        finding (c, OW_SAFETY_WRITE_OUTSIDE,
                 "tar extracts with absolute names, which can write anywhere");
      judge_write (c, ".", FALSE, "extracts an archive into");
    }
  if (saved != NULL)
    {
      g_ptr_array_unref (c->cwds);
      c->cwds = saved;
    }
  args_clear (&a);
}

/* git keys whose value is a program git runs, or that pull in such keys. */
static gboolean
git_key_runs_code (const char *key)
{
  static const char *const exact[] = {
    "core.hookspath", "core.fsmonitor", "core.sshcommand", "core.pager", "core.editor",
    "core.askpass", "core.gitproxy", "sequence.editor", "credential.helper", "gpg.program",
    "diff.external", "include.path", "uploadpack.packobjectshook", "merge.tool", "diff.tool",
    "difftool.cmd", "mergetool.cmd", "web.browser", NULL,
  };
  g_autofree char *lower = g_ascii_strdown (key, -1);

  if (name_in (lower, exact))
    return TRUE;
  if (g_str_has_prefix (lower, "alias.") || g_str_has_prefix (lower, "filter.")
      || g_str_has_prefix (lower, "includeif.") || g_str_has_prefix (lower, "pager.")
      || g_str_has_prefix (lower, "credential."))
    return TRUE;
  if ((g_str_has_prefix (lower, "diff.")
       && (g_str_has_suffix (lower, ".textconv") || g_str_has_suffix (lower, ".command")))
      || (g_str_has_prefix (lower, "merge.") && g_str_has_suffix (lower, ".driver"))
      || (g_str_has_prefix (lower, "gpg.") && g_str_has_suffix (lower, ".program"))
      || (g_str_has_prefix (lower, "difftool.") && g_str_has_suffix (lower, ".cmd"))
      || (g_str_has_prefix (lower, "mergetool.") && g_str_has_suffix (lower, ".cmd")))
    return TRUE;
  return FALSE;
}

static void
check_git_config (Check *c, const Args *a)
{
  static const char *const verbs[] = { "get", "set", "unset", "list", "edit", "rename-section",
                                       "remove-section", NULL };
  static const char *const reads[]
      = { "get",       "get-all",       "get-regexp",  "get-urlmatch", "list",
          "get-color", "get-colorbool", "show-origin", "show-scope",   NULL };
  static const char *const writes[] = { "unset",          "unset-all",      "add",  "replace-all",
                                        "rename-section", "remove-section", "edit", NULL };
  gboolean global = args_has (a, 0, "global") || args_has (a, 0, "system");
  const Opt *file = args_value (a, 'f', "file");
  const char *verb = n_ops (a) > 1 && name_in (op (a, 1), verbs) ? op (a, 1) : NULL;
  guint key_at = verb != NULL ? 2 : 1;
  const char *key = n_ops (a) > key_at ? op (a, key_at) : NULL;
  gboolean reading = FALSE, writing = FALSE, editing;

  for (guint i = 0; i < a->opts->len; i++)
    {
      const Opt *o = &g_array_index (a->opts, Opt, i);

      for (guint k = 0; reads[k] != NULL; k++)
        if (opt_is (o, 0, reads[k]))
          reading = TRUE;
      for (guint k = 0; writes[k] != NULL; k++)
        if (opt_is (o, 0, writes[k]))
          writing = TRUE;
      if (o->sh == 'l' || o->sh == 'e')
        {
          reading = reading || o->sh == 'l';
          writing = writing || o->sh == 'e';
        }
    }
  if (verb != NULL)
    {
      reading = strcmp (verb, "get") == 0 || strcmp (verb, "list") == 0;
      writing = !reading;
    }
  else if (!reading && !writing)
    writing = n_ops (a) > key_at + 1;
  if (!writing)
    return;
  editing = (verb != NULL && strcmp (verb, "edit") == 0) || args_has (a, 'e', "edit");
  if (global)
    finding (
        c, OW_SAFETY_PERSISTENT_AUTHORITY,
        "git config %s%s%s changes git's settings for every repository, which outlives the session",
        args_has (a, 0, "system") ? "--system" : "--global", key != NULL && !editing ? " " : "",
        key != NULL && !editing ? key : "");
  if (key != NULL && !editing && git_key_runs_code (key))
    finding (c, OW_SAFETY_PROTECTED_FILE, "git config %s changes which programs git runs", key);
  if (editing && !global && file == NULL)
    finding (c, OW_SAFETY_PROTECTED_FILE, "git config --edit edits the repository's git settings");
  if (file != NULL)
    judge_write (c, file->value, file->dynamic, "writes");
}

/* Makes @dir the only folder relative paths resolve against, for one
 * command (env -C, git -C, sudo -D); returns what to restore. */
static GPtrArray *
push_cwd (Check *c, const char *dir, gboolean dynamic, gboolean *saved_unknown)
{
  GPtrArray *saved = c->cwds;
  Target t;

  target_init (c, &t, dir, dynamic);
  *saved_unknown = c->cwd_unknown;
  c->cwds = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < t.names.len; i++)
    add_unique (c->cwds, g_strdup (t.names.item[i]));
  if (t.unknown || c->cwds->len == 0)
    c->cwd_unknown = TRUE;
  target_clear (&t);
  return saved;
}

static void
pop_cwd (Check *c, GPtrArray *saved, gboolean saved_unknown)
{
  g_ptr_array_unref (c->cwds);
  c->cwds = saved;
  c->cwd_unknown = saved_unknown;
}

/* cd and pushd: later relative paths may resolve there too (the parse is
 * flat, so every folder seen stays a candidate). */
static void
check_cd (Check *c, const Run *r)
{
  const char *dir = NULL;
  gboolean dyn = FALSE;
  Target t;

  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      if (!r->dyn[i] && r->argv[i][0] == '-' && r->argv[i][1] != '\0'
          && strcmp (r->argv[i], "--") != 0)
        continue;
      if (strcmp (r->argv[i], "--") == 0)
        continue;
      dir = r->argv[i];
      dyn = r->dyn[i];
      break;
    }
  if (dir == NULL)
    {
      dir = "~";
      dyn = TRUE;
    }
  if (strcmp (dir, "-") == 0
      || (strcmp (r->prog, "pushd") == 0 && (dir[0] == '+' || dir[0] == '-')))
    {
      c->cwd_unknown = TRUE;
      return;
    }
  target_init (c, &t, dir, dyn);
  for (guint i = 0; i < t.names.len; i++)
    add_unique (c->cwds, g_strdup (t.names.item[i]));
  if (t.unknown || c->cwds->len > SAFETY_MAX_CWDS)
    c->cwd_unknown = TRUE;
  target_clear (&t);
}

static const char *const git_readonly[] = {
  "status", "log", "show", "diff", "blame", "shortlog", "describe", "rev-parse", "rev-list",
  "ls-files", "ls-tree", "grep", "cat-file", "name-rev", "merge-base", "count-objects", "var",
  "check-ignore", "reflog", "help", "version", NULL,
};

static void
check_git (Check *c, const Run *r)
{
  static const char *const global_long[] = { "git-dir", "work-tree", "namespace", "config-env",
                                             "super-prefix", NULL };
  static const char *const clone_long[]
      = { "origin",           "branch",        "upload-pack", "template",
          "config",           "depth",         "reference",   "reference-if-able",
          "separate-git-dir", "jobs",          "filter",      "shallow-since",
          "shallow-exclude",  "server-option", "bundle-uri",  NULL };
  static const char *const config_long[] = { "file", "blob", "type", "default", "comment", NULL };
  OptSpec gspec = { "Cc", NULL, global_long, TRUE };
  GPtrArray *saved = NULL;
  gboolean saved_unknown = FALSE, elsewhere = FALSE;
  const char *sub;
  guint sub_at;
  Args g, a;

  args_parse (&g, r->argv, r->dyn, r->start, &gspec);
  for (guint i = 0; i < g.opts->len; i++)
    {
      const Opt *o = &g_array_index (g.opts, Opt, i);

      if (opt_is (o, 'C', NULL) && o->value != NULL)
        {
          if (saved != NULL)
            {
              /* -C a -C b means a/b: keep the latest folder set */
              GPtrArray *inner = push_cwd (c, o->value, o->dynamic, &saved_unknown);

              g_ptr_array_unref (inner);
            }
          else
            saved = push_cwd (c, o->value, o->dynamic, &saved_unknown);
          elsewhere = TRUE;
        }
      if (opt_is (o, 'c', NULL) && o->value != NULL && strchr (o->value, '=') != NULL)
        {
          /* git -c core.sshCommand='…' runs that text as a command */
          g_autofree char *key = g_strndup (o->value, strcspn (o->value, "="));
          g_autofree char *lower = g_ascii_strdown (key, -1);

          if (g_str_has_suffix (lower, "command") || g_str_has_suffix (lower, ".editor")
              || strcmp (lower, "core.pager") == 0 || g_str_has_prefix (lower, "alias.")
              || g_str_has_suffix (lower, ".helper") || g_str_has_suffix (lower, "proxy"))
            {
              const char *code = strchr (o->value, '=') + 1;

              check_code (c, code[0] == '!' ? code + 1 : code, "a command git -c runs");
            }
        }
      if (opt_is (o, 0, "git-dir") || opt_is (o, 0, "work-tree"))
        {
          elsewhere = TRUE;
          if (o->value != NULL)
            judge_write (c, o->value, o->dynamic, "changes the repository in");
        }
    }
  if (n_ops (&g) == 0)
    goto out;
  sub = op (&g, 0);
  sub_at = g_array_index (g.ops, guint, 0);
  if (strcmp (sub, "config") == 0)
    {
      OptSpec spec = { "f", NULL, config_long, FALSE };

      args_parse (&a, r->argv, r->dyn, sub_at, &spec);
      check_git_config (c, &a);
      args_clear (&a);
    }
  else if (strcmp (sub, "clone") == 0 || strcmp (sub, "init") == 0)
    {
      OptSpec spec = { "obcju", NULL, clone_long, FALSE };
      const Opt *tmpl;

      args_parse (&a, r->argv, r->dyn, sub_at + 1, &spec);
      tmpl = args_value (&a, 0, "template");
      if (tmpl != NULL)
        finding (c, OW_SAFETY_PROTECTED_FILE, "git %s --template copies the git hooks in %s", sub,
                 tmpl->value);
      for (guint i = 0; i < a.opts->len; i++)
        {
          const Opt *o = &g_array_index (a.opts, Opt, i);

          if (opt_is (o, 'c', "config") && o->value != NULL)
            {
              g_autofree char *key = g_strndup (o->value, strcspn (o->value, "="));

              if (git_key_runs_code (key))
                finding (c, OW_SAFETY_PROTECTED_FILE,
                         "git %s -c %s changes which programs git runs", sub, key);
            }
          if (opt_is (o, 'u', "upload-pack") && o->value != NULL)
            check_code (c, o->value, "git clone --upload-pack");
          if (opt_is (o, 0, "separate-git-dir") && o->value != NULL)
            judge_write (c, o->value, o->dynamic, "writes");
        }
      if (strcmp (sub, "init") == 0)
        judge_write (c, n_ops (&a) > 0 ? op (&a, 0) : ".", n_ops (&a) > 0 && op_dyn (&a, 0),
                     "writes");
      else if (n_ops (&a) > 1)
        judge_write (c, op (&a, 1), op_dyn (&a, 1), "clones into");
      else if (n_ops (&a) == 1 && !op_dyn (&a, 0))
        {
          g_autofree char *trimmed = g_strdup (op (&a, 0));
          g_autofree char *name = NULL;

          while (g_str_has_suffix (trimmed, "/"))
            trimmed[strlen (trimmed) - 1] = '\0';
          name = url_basename (strchr (trimmed, '/') != NULL ? trimmed : "", NULL);
          if (name == NULL && strrchr (trimmed, ':') != NULL)
            name = g_strdup (strrchr (trimmed, ':') + 1);
          if (name != NULL && g_str_has_suffix (name, ".git"))
            name[strlen (name) - 4] = '\0';
          if (name != NULL && name[0] != '\0')
            judge_write (c, name, FALSE, "clones into");
        }
      args_clear (&a);
    }
  else if (strcmp (sub, "worktree") == 0 && r->argv[sub_at + 1] != NULL
           && strcmp (r->argv[sub_at + 1], "add") == 0)
    {
      OptSpec spec = { "bB", NULL, NULL, FALSE };

      args_parse (&a, r->argv, r->dyn, sub_at + 2, &spec);
      if (n_ops (&a) > 0)
        judge_write (c, op (&a, 0), op_dyn (&a, 0), "writes");
      args_clear (&a);
    }
  else if (elsewhere && !name_in (sub, git_readonly))
    judge_write (c, ".", FALSE, "changes the repository in");
out:
  if (saved != NULL)
    pop_cwd (c, saved, saved_unknown);
  args_clear (&g);
}

/* The non-option words after the program (for tools whose commands are
 * words: gh auth login, systemctl enable, launchctl load). */
static GPtrArray *
plain_words (const Run *r)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (r->dyn[i] || r->argv[i][0] != '-')
      g_ptr_array_add (out, (gpointer) r->argv[i]);
  return out;
}

static gboolean
has_word_ci (const Run *r, const char *word)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (g_ascii_strcasecmp (r->argv[i], word) == 0)
      return TRUE;
  return FALSE;
}

/* Programs whose job is to set up authority that outlives the session.
 * TRUE when @r was one of them. */
static gboolean
check_authority (Check *c, const Run *r)
{
  static const char *const accounts[]
      = { "useradd", "usermod", "adduser", "passwd", "chpasswd", "gpasswd",
          "visudo",  "chsh",    "vipw",    "vigr",   "newusers", NULL };
  static const char *const boot[] = { "update-rc.d", "chkconfig", "rc-update", NULL };
  const char *p = r->prog;
  g_autoptr(GPtrArray) words = plain_words (r);
  const char *w0 = words->len > 0 ? g_ptr_array_index (words, 0) : "";
  const char *w1 = words->len > 1 ? g_ptr_array_index (words, 1) : "";

  if (strcmp (p, "openworker") == 0 || strcmp (p, "openworker-desktop") == 0)
    {
      static const char *const governing[] = { "rules", "inbox", "keys", "machine", NULL };

      if (name_in (w0, governing))
        {
          finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                   "runs `openworker %s`, which changes OpenWorker's own rules, asks, keys or machine settings",
                   w0);
          return TRUE;
        }
      return FALSE;
    }
  if (strcmp (p, "crontab") == 0)
    {
      if (!run_has_flag (r, 'l', NULL))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "crontab changes scheduled jobs, which outlive the session");
      return TRUE;
    }
  if (strcmp (p, "at") == 0 || strcmp (p, "batch") == 0)
    {
      if (strcmp (p, "batch") == 0
          || !(run_has_flag (r, 'l', NULL) || run_has_flag (r, 'c', NULL)
               || run_has_flag (r, 'r', NULL) || run_has_flag (r, 'd', NULL)))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "%s schedules a job that runs after the session", p);
      return TRUE;
    }
  if (strcmp (p, "systemctl") == 0)
    {
      static const char *const start_verbs[]
          = { "enable",    "reenable",     "link",        "preset", "preset-all",
              "add-wants", "add-requires", "set-default", NULL };
      static const char *const change_verbs[] = { "edit", "set-property", NULL };
      static const char *const sys_long[]
          = { "type",   "property",  "host",  "machine",  "root",        "lines",
              "output", "signal",    "state", "job-mode", "preset-mode", "kill-whom",
              "what",   "timestamp", "image", "message",  NULL };
      OptSpec spec = { "tpHMnos", NULL, sys_long, FALSE };
      Args a;

      args_parse (&a, r->argv, r->dyn, r->start, &spec);
      if (n_ops (&a) > 0 && name_in (op (&a, 0), start_verbs))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "systemctl %s makes a service start on its own, beyond the session", op (&a, 0));
      else if (n_ops (&a) > 0 && name_in (op (&a, 0), change_verbs) && !args_has (&a, 0, "runtime"))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY, "systemctl %s changes a unit for good",
                 op (&a, 0));
      args_clear (&a);
      return TRUE;
    }
  if (strcmp (p, "systemd-run") == 0)
    {
      for (guint i = r->start; r->argv[i] != NULL; i++)
        if (g_str_has_prefix (r->argv[i], "--on-"))
          {
            finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                     "systemd-run sets a timer that fires after the session");
            break;
          }
      return FALSE;
    }
  if (strcmp (p, "loginctl") == 0)
    {
      if (strcmp (w0, "enable-linger") == 0)
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "loginctl enable-linger keeps your services running after you log out");
      return TRUE;
    }
  if (strcmp (p, "launchctl") == 0)
    {
      if (strcmp (w0, "load") == 0 || strcmp (w0, "bootstrap") == 0 || strcmp (w0, "enable") == 0
          || strcmp (w0, "submit") == 0)
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "launchctl %s installs a job that outlives the session", w0);
      return TRUE;
    }
  if (g_ascii_strcasecmp (p, "schtasks") == 0 || g_ascii_strcasecmp (p, "schtasks.exe") == 0)
    {
      if (has_word_ci (r, "/create") || has_word_ci (r, "-create"))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "schtasks /create schedules a task that outlives the session");
      return TRUE;
    }
  if (g_ascii_strcasecmp (p, "reg") == 0 || g_ascii_strcasecmp (p, "reg.exe") == 0)
    {
      gboolean run_key = FALSE;

      for (guint i = r->start; r->argv[i] != NULL; i++)
        {
          g_autofree char *lower = g_ascii_strdown (r->argv[i], -1);

          if (strstr (lower, "currentversion\\run") != NULL)
            run_key = TRUE;
        }
      if (g_ascii_strcasecmp (w0, "add") == 0 && run_key)
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "reg add …\\Run makes a program start at every login");
      return TRUE;
    }
  if (strcmp (p, "setcap") == 0)
    {
      if (!run_has_flag (r, 'v', NULL))
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "setcap gives %s capabilities that outlive the session",
                 words->len > 0 ? (const char *) g_ptr_array_index (words, words->len - 1)
                                : "a program");
      return TRUE;
    }
  if (strcmp (p, "ssh-copy-id") == 0)
    {
      finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
               "ssh-copy-id adds a key to a server's authorized keys, which outlives the session");
      return FALSE;
    }
  if (name_in (p, accounts))
    {
      finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
               "%s changes the system's accounts, which outlives the session", p);
      return TRUE;
    }
  if (name_in (p, boot))
    {
      finding (c, OW_SAFETY_PERSISTENT_AUTHORITY, "%s makes a service start at boot", p);
      return TRUE;
    }
  if (strcmp (p, "gh") == 0)
    {
      if (strcmp (w0, "auth") == 0)
        {
          if (strcmp (w1, "token") == 0)
            finding (c, OW_SAFETY_CREDENTIAL_READ, "gh auth token prints the GitHub CLI token");
          else if (strcmp (w1, "status") != 0 && w1[0] != '\0')
            finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                     "gh auth %s changes the GitHub CLI's login, which outlives the session", w1);
        }
      else if ((strcmp (w0, "ssh-key") == 0 || strcmp (w0, "gpg-key") == 0)
               && strcmp (w1, "add") == 0)
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "gh %s add registers a key with GitHub, which outlives the session", w0);
      else if (strcmp (w0, "repo") == 0 && strcmp (w1, "deploy-key") == 0 && words->len > 2
               && strcmp (g_ptr_array_index (words, 2), "add") == 0)
        finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                 "gh repo deploy-key add grants a key access to a repository, which outlives the "
                 "session");
      return FALSE;
    }
  return FALSE;
}

/* Text in another shell's language (cmd /c, powershell -Command):
 * only the plainest signs are looked for. */
static void
judge_foreign_text (Check *c, const char *text, const char *shell)
{
  g_autofree char *lower = g_ascii_strdown (text, -1);

  if (((strstr (lower, "rd ") != NULL || strstr (lower, "rmdir") != NULL
        || strstr (lower, "del ") != NULL || strstr (lower, "erase ") != NULL)
       && strstr (lower, "/s") != NULL)
      || ((strstr (lower, "remove-item") != NULL || strstr (lower, "rm ") != NULL
           || strstr (lower, "ri ") != NULL)
          && strstr (lower, "-r") != NULL))
    finding (c, OW_SAFETY_RECURSIVE_DELETE,
             "%s deletes a folder tree, which cannot be located before it runs", shell);
  if ((strstr (lower, "iex") != NULL || strstr (lower, "invoke-expression") != NULL)
      && (strstr (lower, "iwr") != NULL || strstr (lower, "irm") != NULL
          || strstr (lower, "invoke-webrequest") != NULL
          || strstr (lower, "invoke-restmethod") != NULL || strstr (lower, "downloadstring") != NULL
          || strstr (lower, "webclient") != NULL || strstr (lower, "curl") != NULL
          || strstr (lower, "wget") != NULL))
    finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s runs code it downloads", shell);
  if (strstr (lower, "register-scheduledtask") != NULL
      || strstr (lower, "new-scheduledtask") != NULL
      || (strstr (lower, "schtasks") != NULL && strstr (lower, "create") != NULL)
      || strstr (lower, "currentversion\\run") != NULL)
    finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
             "%s sets up a task or start-up entry that outlives the session", shell);
  judge_code_text (c, text, shell);
}

static void
check_powershell (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      g_autofree char *lower = g_ascii_strdown (r->argv[i], -1);

      if ((strcmp (lower, "-command") == 0 || strcmp (lower, "-c") == 0
           || strcmp (lower, "/c") == 0)
          && r->argv[i + 1] != NULL)
        {
          g_autofree char *text = join_words (r->argv, i + 1);

          if (strcmp (text, "-") == 0)
            note_stdin_exec (c, r->prog);
          else
            judge_foreign_text (c, text, r->prog);
          return;
        }
      if ((strcmp (lower, "-encodedcommand") == 0 || strcmp (lower, "-enc") == 0
           || strcmp (lower, "-e") == 0 || strcmp (lower, "-ec") == 0)
          && r->argv[i + 1] != NULL)
        {
          gsize len = 0;
          g_autofree guchar *raw = g_base64_decode (r->argv[i + 1], &len);
          g_autofree char *text = len >= 2 ? g_utf16_to_utf8 ((const gunichar2 *) (void *) raw,
                                                              (glong) (len / 2), NULL, NULL, NULL)
                                           : NULL;

          if (text == NULL)
            finding (c, SAFETY_ALL,
                     "%s runs encoded code that cannot be read, so every check applies", r->prog);
          else
            judge_foreign_text (c, text, r->prog);
          return;
        }
      if ((strcmp (lower, "-file") == 0 || strcmp (lower, "-f") == 0) && r->argv[i + 1] != NULL)
        {
          check_exec_file (c, r->argv[i + 1], r->dyn[i + 1], r->prog);
          return;
        }
      if (lower[0] != '-')
        {
          /* powershell "text" runs the words as a command */
          g_autofree char *text = join_words (r->argv, i);

          judge_foreign_text (c, text, r->prog);
          return;
        }
    }
  note_stdin_exec (c, r->prog);
}

/* scp and rsync: local sources are read (and may leave the machine), a
 * local destination is written. */
static void
check_transfer (Check *c, const Run *r)
{
  static const char *const rsync_long[]
      = { "rsh",           "rsync-path",   "filter",     "exclude",       "include",
          "exclude-from",  "include-from", "files-from", "backup-dir",    "suffix",
          "chmod",         "chown",        "log-file",   "password-file", "partial-dir",
          "compare-dest",  "copy-dest",    "link-dest",  "temp-dir",      "block-size",
          "remote-option", "timeout",      "port",       "out-format",    "max-size",
          "min-size",      "bwlimit",      NULL };
  gboolean rsync = strcmp (r->prog, "rsync") == 0;
  OptSpec spec = { rsync ? "efBTM" : "cFiJloPSD", NULL, rsync ? rsync_long : NULL, FALSE };
  gboolean deletes = FALSE;
  Args a;
  guint n;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  for (guint i = 0; i < a.opts->len; i++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, i);

      if (o->lng != NULL && o->lng_len >= 6 && strncmp (o->lng, "delete", 6) == 0)
        deletes = TRUE;
      if (rsync && opt_is (o, 0, "log-file") && o->value != NULL)
        judge_write (c, o->value, o->dynamic, "writes");
    }
  n = n_ops (&a);
  for (guint k = 0; k < n; k++)
    {
      const char *w = op (&a, k);
      const char *colon = strchr (w, ':');
      const char *slash = strchr (w, '/');
      gboolean remote = colon != NULL && (slash == NULL || colon < slash);

      if (remote)
        continue;
      if (k + 1 == n && n > 1)
        {
          if (deletes)
            judge_delete (c, w, op_dyn (&a, k), TRUE, FALSE);
          else
            judge_write (c, w, op_dyn (&a, k), "writes");
        }
      else
        judge_read (c, w, op_dyn (&a, k), TRUE);
    }
  args_clear (&a);
}

/* docker/podman -v HOST:CONTAINER: the host folder is read and, unless
 * mounted read-only, written by the container. */
static void
check_container (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];
      const char *value = NULL;
      gboolean dyn = r->dyn[i];
      g_autofree char *host = NULL;

      if ((strcmp (w, "-v") == 0 || strcmp (w, "--volume") == 0 || strcmp (w, "--mount") == 0)
          && r->argv[i + 1] != NULL)
        {
          value = r->argv[i + 1];
          dyn = r->dyn[i + 1];
          if (strcmp (w, "--mount") == 0)
            w = "--mount=";
        }
      else if (g_str_has_prefix (w, "--volume="))
        value = w + strlen ("--volume=");
      else if (g_str_has_prefix (w, "--mount="))
        value = w + strlen ("--mount=");
      else if (g_str_has_prefix (w, "-v") && w[2] != '\0')
        value = w + 2;
      if (value == NULL)
        continue;
      if (g_str_has_prefix (w, "--mount"))
        {
          const char *src = strstr (value, "source=");

          if (src == NULL)
            src = strstr (value, "src=");
          if (src == NULL)
            continue;
          src = strchr (src, '=') + 1;
          host = g_strndup (src, strcspn (src, ","));
        }
      else
        host = g_strndup (value, strcspn (value, ":"));
      if (host[0] != '/' && host[0] != '~' && host[0] != '.' && host[0] != '$')
        continue;   /* a named volume */
      judge_read (c, host, dyn, TRUE);
      if (strstr (value, ":ro") == NULL && strstr (value, "readonly") == NULL)
        judge_write (c, host, dyn, "lets a container write");
    }
}

/* -o FILE of compilers and similar tools. */
static void
check_output_flag (Check *c, const Run *r, const char *flag)
{
  gsize n = strlen (flag);

  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if (strcmp (w, flag) == 0 && r->argv[i + 1] != NULL)
        judge_write (c, r->argv[i + 1], r->dyn[i + 1], "writes");
      else if (n == 2 && strncmp (w, flag, n) == 0 && w[n] != '\0' && flag[1] == 'o')
        judge_write (c, w + n, r->dyn[i], "writes");
    }
}


/* The program of @cmd and where its arguments start, with wrapper
 * options that matter here (time -o, env -C/-S, sudo -D, xargs). */
static void
run_init (Check *c, Run *r, const OwShellCommand *cmd, GPtrArray **saved, gboolean *saved_unknown)
{
  const char *wrapper = "";

  memset (r, 0, sizeof *r);
  r->cmd = cmd;
  r->argv = (const char *const *) cmd->argv;
  r->dyn = cmd->dynamic;
  r->prog = ow_shell_command_program (cmd, &r->start);
  *saved = NULL;
  if (r->prog == NULL)
    return;
  r->at = 0;
  for (guint i = r->start; i > 0; i--)
    {
      const char *w = r->argv[i - 1];
      const char *base = strrchr (w, '/') != NULL ? strrchr (w, '/') + 1 : w;

      if (strcmp (base, r->prog) == 0)
        {
          r->at = i - 1;
          break;
        }
    }
  for (guint i = 0; i < r->at; i++)
    {
      const char *w = r->argv[i];
      const char *base = strrchr (w, '/') != NULL ? strrchr (w, '/') + 1 : w;
      const char *value = NULL;
      gboolean dyn = FALSE;

      if (strcmp (base, "xargs") == 0)
        r->more = TRUE;
      if (strcmp (wrapper, "xargs") == 0 && (strcmp (w, "-a") == 0 || strcmp (w, "--arg-file") == 0)
          && r->argv[i + 1] != NULL)
        judge_read (c, r->argv[i + 1], r->dyn[i + 1], FALSE);
      if (strcmp (base, "time") == 0 || strcmp (base, "strace") == 0 || strcmp (base, "env") == 0
          || strcmp (base, "sudo") == 0 || strcmp (base, "xargs") == 0 || strcmp (base, "nice") == 0
          || strcmp (base, "timeout") == 0 || strcmp (base, "nohup") == 0)
        {
          wrapper = base;
          continue;
        }
      if ((strcmp (w, "-o") == 0 || strcmp (w, "--output") == 0 || strcmp (w, "-C") == 0
           || strcmp (w, "--chdir") == 0 || strcmp (w, "-D") == 0 || strcmp (w, "-S") == 0
           || strcmp (w, "--split-string") == 0)
          && i + 1 < r->at)
        {
          value = r->argv[i + 1];
          dyn = r->dyn[i + 1];
        }
      else if (g_str_has_prefix (w, "--") && strchr (w, '=') != NULL)
        {
          value = strchr (w, '=') + 1;
          dyn = r->dyn[i];
        }
      else if (w[0] == '-' && w[1] != '\0' && w[1] != '-' && w[2] != '\0')
        {
          value = w + 2;
          dyn = r->dyn[i];
        }
      if (value == NULL)
        continue;
      if ((strcmp (wrapper, "time") == 0 || strcmp (wrapper, "strace") == 0)
          && (w[1] == 'o' || g_str_has_prefix (w, "--output")))
        judge_write (c, value, dyn, "writes");
      if (strcmp (wrapper, "env") == 0 && (w[1] == 'S' || g_str_has_prefix (w, "--split-string")))
        check_code (c, value, "env -S");
      if (((strcmp (wrapper, "env") == 0 && (w[1] == 'C' || g_str_has_prefix (w, "--chdir")))
           || (strcmp (wrapper, "sudo") == 0 && (w[1] == 'D' || g_str_has_prefix (w, "--chdir"))))
          && *saved == NULL)
        *saved = push_cwd (c, value, dyn, saved_unknown);
    }
}

/* Whether a redirection target may expand to something else (the parser
 * keeps expansions as written in it). */
static gboolean
looks_dynamic (const char *word)
{
  return strpbrk (word, "$`*?[") != NULL || word[0] == '~';
}

/* The operator without its fd ("2>>" → ">>"). */
static const char *
bare_op (const char *op_text)
{
  if (op_text[0] == '{')
    {
      const char *close = strchr (op_text, '}');

      return close != NULL ? close + 1 : op_text;
    }
  return op_text + strspn (op_text, "0123456789");
}

/* unlink, shred: each operand is deleted. */
static void
check_unlink (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (r->dyn[i] || r->argv[i][0] != '-')
      judge_delete (c, r->argv[i], r->dyn[i], FALSE, FALSE);
  more_targets (c, r, "deletes", TRUE, FALSE);
}

/* tee, touch, mkdir, truncate, mkfifo, mknod: each operand is written. */
static void
check_create (Check *c, const Run *r)
{
  const char *p = r->prog;
  OptSpec spec = { strcmp (p, "touch") == 0      ? "dtr"
                   : strcmp (p, "truncate") == 0 ? "sro"
                                                 : "mZ",
                   NULL, NULL, FALSE };
  Args a;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  for (guint k = 0; k < n_ops (&a); k++)
    if (strcmp (op (&a, k), "-") != 0)
      judge_write (c, op (&a, k), op_dyn (&a, k), "writes");
  more_targets (c, r, "writes", FALSE, FALSE);
  args_clear (&a);
}

/* dd: of= is written, if= is read. */
static void
check_dd (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      if (g_str_has_prefix (r->argv[i], "of="))
        judge_write (c, r->argv[i] + 3, r->dyn[i], "writes");
      else if (g_str_has_prefix (r->argv[i], "if="))
        judge_read (c, r->argv[i] + 3, r->dyn[i], FALSE);
    }
}

/* deno: a script given by URL runs straight from the network. */
static void
check_deno (Check *c, const Run *r)
{
  g_autoptr(GPtrArray) words = plain_words (r);

  for (guint k = 1; k < words->len; k++)
    if (is_url (g_ptr_array_index (words, k)))
      finding (c, OW_SAFETY_DOWNLOADED_EXEC, "deno runs %s straight from the network",
               (const char *) g_ptr_array_index (words, k));
}

/* eval: its words are a command line (ow_shell_inner_command). */
static void
check_eval (Check *c, const Run *r)
{
  g_autofree char *code = ow_shell_inner_command (r->cmd, NULL);

  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (r->dyn[i] && (strstr (r->argv[i], "$(") != NULL || strchr (r->argv[i], '`') != NULL))
      {
        finding (c, OW_SAFETY_OPAQUE_CODE,
                 "eval runs the output of a command, code that is only known when it runs");
        break;
      }
  check_code (c, code != NULL ? code : "", "eval");
}

/* source, .: the file runs here. */
static void
check_source (Check *c, const Run *r)
{
  const char *p = r->prog;

  if (r->argv[r->start] != NULL)
    check_exec_file (c, r->argv[r->start], r->dyn[r->start], p);
}

/* su, runuser, flock, script: -c code, a command to run, script's log file. */
static void
check_su (Check *c, const Run *r)
{
  const char *p = r->prog;
  static const char *const longs[] = { "command", "session-command", "group", "shell", NULL };
  OptSpec spec = { strcmp (p, "flock") == 0    ? "wEc"
                   : strcmp (p, "script") == 0 ? "cEIOTBt"
                                               : "cgGswu",
                   NULL, longs, strcmp (p, "flock") == 0 };
  const Opt *code;
  Args a;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  code = args_value (&a, 'c', "command");
  if (code == NULL)
    code = args_value (&a, 0, "session-command");
  if (code != NULL)
    {
      g_autofree char *what = g_strdup_printf ("%s -c", p);

      check_code (c, code->value, what);
    }
  else if (strcmp (p, "flock") == 0 && n_ops (&a) > 1)
    {
      guint from = g_array_index (a.ops, guint, 1);

      check_words (c, (char **) r->argv + from, r->dyn + from,
                   g_strv_length ((char **) r->argv + from));
    }
  if (strcmp (p, "script") == 0 && n_ops (&a) > 0)
    judge_write (c, op (&a, 0), op_dyn (&a, 0), "writes");
  args_clear (&a);
}

/* watch: its command runs, as words (-x) or as a command line. */
static void
check_watch (Check *c, const Run *r)
{
  static const char *const longs[] = { "interval", NULL };
  OptSpec spec = { "nq", NULL, longs, TRUE };
  Args a;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  if (n_ops (&a) > 0)
    {
      guint from = g_array_index (a.ops, guint, 0);

      if (args_has (&a, 'x', "exec"))
        check_words (c, (char **) r->argv + from, r->dyn + from,
                     g_strv_length ((char **) r->argv + from));
      else
        {
          g_autofree char *code = join_words (r->argv, from);

          check_code (c, code, "watch");
        }
    }
  args_clear (&a);
}

/* trap: the handler is code. */
static void
check_trap (Check *c, const Run *r)
{
  g_autoptr(GPtrArray) words = plain_words (r);

  if (words->len >= 2)
    check_code (c, g_ptr_array_index (words, 0), "trap");
}

/* alias: the value is code. */
static void
check_alias (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *eq = strchr (r->argv[i], '=');

      if (eq != NULL)
        check_code (c, eq + 1, "alias");
    }
}

/* env -S: the split string is a command line. */
static void
check_env (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];

      if ((strcmp (w, "-S") == 0 || strcmp (w, "--split-string") == 0) && r->argv[i + 1] != NULL)
        {
          check_code (c, r->argv[i + 1], "env -S");
          break;
        }
      if (g_str_has_prefix (w, "--split-string="))
        {
          check_code (c, w + strlen ("--split-string="), "env -S");
          break;
        }
      if (g_str_has_prefix (w, "-S") && w[2] != '\0')
        {
          check_code (c, w + 2, "env -S");
          break;
        }
    }
}

/* zip: the archive is written, the files are read. */
static void
check_zip (Check *c, const Run *r)
{
  OptSpec spec = { "bntxiIOPZs", NULL, NULL, FALSE };
  Args a;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  if (n_ops (&a) > 0)
    judge_write (c, op (&a, 0), op_dyn (&a, 0), "writes");
  for (guint k = 1; k < n_ops (&a); k++)
    judge_read (c, op (&a, k), op_dyn (&a, k),
                args_has (&a, 'r', "recurse-paths") || args_has (&a, 'R', NULL));
  args_clear (&a);
}

/* unzip -d: the folder is written. */
static void
check_unzip (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (strcmp (r->argv[i], "-d") == 0 && r->argv[i + 1] != NULL)
      judge_write (c, r->argv[i + 1], r->dyn[i + 1], "extracts an archive into");
}

/* cmd /c, /k: the rest is a cmd.exe command line. */
static void
check_cmd_exe (Check *c, const Run *r)
{
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (g_ascii_strcasecmp (r->argv[i], "/c") == 0 || g_ascii_strcasecmp (r->argv[i], "/k") == 0)
      {
        g_autofree char *text = join_words (r->argv, i + 1);

        judge_foreign_text (c, text, "cmd");
        break;
      }
}

/* ssh, sftp: -o ProxyCommand=… and LocalCommand run here, not on the server. */
static void
check_ssh (Check *c, const Run *r)
{
  /* -o ProxyCommand=… and LocalCommand run here, not on the server */
  for (guint i = r->start; r->argv[i] != NULL; i++)
    {
      const char *w = r->argv[i];
      const char *opt = NULL;

      if (strcmp (w, "-o") == 0 && r->argv[i + 1] != NULL)
        opt = r->argv[++i];
      else if (g_str_has_prefix (w, "-o"))
        opt = w + 2;
      if (opt != NULL && (g_ascii_strncasecmp (opt, "ProxyCommand", 12) == 0
                          || g_ascii_strncasecmp (opt, "LocalCommand", 12) == 0)
          && strpbrk (opt, "= ") != NULL)
        {
          const char *code = strpbrk (opt, "= ") + 1;

          check_code (c, code, "an ssh ProxyCommand");
        }
    }
}

/* curl, wget, aria2c, …: the files downloaded to, written logs and uploads. */
static void
check_download (Check *c, const Run *r)
{
  const char *p = r->prog;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  Args a;

  download_targets (r->cmd, p, r->start, files);
  for (guint k = 0; k < files->len; k++)
    judge_write (c, g_ptr_array_index (files, k), FALSE, "downloads to");
  args_parse (&a, r->argv, r->dyn, r->start,
              strcmp (p, "curl") == 0        ? &curl_spec
              : g_str_has_prefix (p, "wget") ? &wget_spec
                                             : &aria_spec);
  for (guint i = 0; i < a.opts->len; i++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, i);

      if (o->value == NULL)
        continue;
      if (strcmp (p, "curl") == 0
          && (opt_is (o, 'D', "dump-header") || opt_is (o, 'c', "cookie-jar")
              || opt_is (o, 0, "trace") || opt_is (o, 0, "trace-ascii")
              || opt_is (o, 0, "stderr") || opt_is (o, 0, "libcurl")
              || (opt_is (o, 'o', "output") && o->dynamic))
          && strcmp (o->value, "-") != 0)
        judge_write (c, o->value, o->dynamic, "writes");
      if (g_str_has_prefix (p, "wget")
          && (opt_is (o, 'o', "output-file") || opt_is (o, 'a', "append-output")
              || (opt_is (o, 'O', "output-document") && o->dynamic)))
        judge_write (c, o->value, o->dynamic, "writes");
      if (g_str_has_prefix (p, "wget") && opt_is (o, 'e', "execute"))
        judge_write (c, ".", FALSE, "writes");
      if (strcmp (p, "curl") == 0
          && (opt_is (o, 'T', "upload-file") || opt_is (o, 'K', "config")))
        judge_read (c, o->value, o->dynamic, FALSE);
      if (strcmp (p, "curl") == 0 && o->value[0] != '\0'
          && (opt_is (o, 'd', "data") || opt_is (o, 0, "data-binary")
              || opt_is (o, 0, "data-urlencode") || opt_is (o, 0, "data-ascii")
              || opt_is (o, 0, "json") || opt_is (o, 'F', "form")))
        {
          const char *at = strchr (o->value, '@');
          const char *lt = opt_is (o, 'F', "form") ? strchr (o->value, '<') : NULL;
          const char *from = at != NULL ? at : lt;

          if (from != NULL)
            {
              g_autofree char *file = g_strndup (from + 1, strcspn (from + 1, ";"));

              judge_read (c, file, o->dynamic, FALSE);
            }
        }
      if (g_str_has_prefix (p, "wget")
          && (opt_is (o, 0, "post-file") || opt_is (o, 0, "body-file")))
        judge_read (c, o->value, o->dynamic, FALSE);
    }
  args_clear (&a);
}

/* Compilers and linkers: -o FILE is written. */
static void
check_compiler (Check *c, const Run *r)
{
  check_output_flag (c, r, "-o");
}

/* sort -o / --output=: the file is written. */
static void
check_sort (Check *c, const Run *r)
{
  check_output_flag (c, r, "-o");
  for (guint i = r->start; r->argv[i] != NULL; i++)
    if (g_str_has_prefix (r->argv[i], "--output="))
      judge_write (c, r->argv[i] + strlen ("--output="), r->dyn[i], "writes");
}

/* uniq: the second operand is written. */
static void
check_uniq (Check *c, const Run *r)
{
  OptSpec spec = { "fsw", NULL, NULL, FALSE };
  Args a;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  if (n_ops (&a) > 1)
    judge_write (c, op (&a, 1), op_dyn (&a, 1), "writes");
  args_clear (&a);
}

/* openssl -out: the file is written. */
static void
check_openssl (Check *c, const Run *r)
{
  check_output_flag (c, r, "-out");
}

/* Editors: each file operand is edited. */
static void
check_editor (Check *c, const Run *r)
{
  OptSpec spec = { "cSuUTiwWsq", NULL, NULL, FALSE };
  Args a;

  args_parse (&a, r->argv, r->dyn, r->start, &spec);
  for (guint k = 0; k < n_ops (&a); k++)
    if (op (&a, k)[0] != '+')
      judge_write (c, op (&a, k), op_dyn (&a, k), "edits");
  args_clear (&a);
}

/* echo, printf: what is echoed into a shell (echo "…" | sh) is run. */
static void
check_echo (Check *c, const Run *r)
{
  g_autofree char *code = NULL;

  if (!c->saw_pipe || c->stdin_exec == NULL || !ow_shell_is_shell (c->stdin_exec))
    return;
  code = join_words (r->argv, r->start);
  check_code (c, code, "the text piped into a shell");
}

/* What programs are known to do with their arguments, by name: sorted
 * for bsearch (strcmp order; test-safety checks it). Interpreters and
 * shells are found by their own lists (ow_shell_is_shell, is_python,
 * find_interp), case-insensitive Windows names by check_command. */
typedef struct {
  const char *name;
  void      (*check) (Check *c, const Run *r);
  gboolean    after_authority;  /* check_authority() reads the command first */
  gboolean    own_reads;        /* the checker judges every read itself (no generic_reads) */
} Program;

static const Program programs[] = {
  { ".",         check_source,    FALSE, FALSE },
  { "alias",     check_alias,     FALSE, FALSE },
  { "aria2c",    check_download,  TRUE, TRUE },
  { "as",        check_compiler,  TRUE, FALSE },
  { "awk",       check_awk,       FALSE, FALSE },
  { "axel",      check_download,  TRUE, TRUE },
  { "bsdtar",    check_tar,       FALSE, FALSE },
  { "c++",       check_compiler,  TRUE, FALSE },
  { "cc",        check_compiler,  TRUE, FALSE },
  { "cd",        check_cd,        FALSE, FALSE },
  { "chgrp",     check_chmod,     FALSE, FALSE },
  { "chmod",     check_chmod,     FALSE, FALSE },
  { "chown",     check_chmod,     FALSE, FALSE },
  { "clang",     check_compiler,  TRUE, FALSE },
  { "clang++",   check_compiler,  TRUE, FALSE },
  { "cp",        check_copy,      FALSE, FALSE },
  { "curl",      check_download,  TRUE, TRUE },
  { "dd",        check_dd,        FALSE, FALSE },
  { "deno",      check_deno,      FALSE, FALSE },
  { "docker",    check_container, TRUE, FALSE },
  { "echo",      check_echo,      TRUE, FALSE },
  { "ed",        check_editor,    TRUE, FALSE },
  { "emacs",     check_editor,    TRUE, FALSE },
  { "env",       check_env,       FALSE, FALSE },
  { "eval",      check_eval,      FALSE, FALSE },
  { "ex",        check_editor,    TRUE, FALSE },
  { "fetch",     check_download,  TRUE, TRUE },
  { "find",      check_find,      FALSE, FALSE },
  { "flock",     check_su,        FALSE, FALSE },
  { "g++",       check_compiler,  TRUE, FALSE },
  { "gawk",      check_awk,       FALSE, FALSE },
  { "gcc",       check_compiler,  TRUE, FALSE },
  { "git",       check_git,       FALSE, FALSE },
  { "go",        check_compiler,  TRUE, FALSE },
  { "gsed",      check_sed,       FALSE, FALSE },
  { "hx",        check_editor,    TRUE, FALSE },
  { "install",   check_copy,      FALSE, FALSE },
  { "joe",       check_editor,    TRUE, FALSE },
  { "kak",       check_editor,    TRUE, FALSE },
  { "ld",        check_compiler,  TRUE, FALSE },
  { "ln",        check_copy,      FALSE, FALSE },
  { "mawk",      check_awk,       FALSE, FALSE },
  { "micro",     check_editor,    TRUE, FALSE },
  { "mkdir",     check_create,    FALSE, FALSE },
  { "mkfifo",    check_create,    FALSE, FALSE },
  { "mknod",     check_create,    FALSE, FALSE },
  { "mv",        check_copy,      FALSE, FALSE },
  { "nano",      check_editor,    TRUE, FALSE },
  { "nawk",      check_awk,       FALSE, FALSE },
  { "nerdctl",   check_container, TRUE, FALSE },
  { "nvim",      check_editor,    TRUE, FALSE },
  { "openssl",   check_openssl,   TRUE, FALSE },
  { "pico",      check_editor,    TRUE, FALSE },
  { "podman",    check_container, TRUE, FALSE },
  { "printf",    check_echo,      TRUE, FALSE },
  { "pushd",     check_cd,        FALSE, FALSE },
  { "rm",        check_rm,        FALSE, FALSE },
  { "rmdir",     check_rm,        FALSE, FALSE },
  { "rsync",     check_transfer,  TRUE, FALSE },
  { "runuser",   check_su,        FALSE, FALSE },
  { "rustc",     check_compiler,  TRUE, FALSE },
  { "scp",       check_transfer,  TRUE, FALSE },
  { "script",    check_su,        FALSE, FALSE },
  { "sed",       check_sed,       FALSE, FALSE },
  { "sftp",      check_ssh,       TRUE, FALSE },
  { "shred",     check_unlink,    FALSE, FALSE },
  { "sort",      check_sort,      TRUE, FALSE },
  { "source",    check_source,    FALSE, FALSE },
  { "ssh",       check_ssh,       TRUE, FALSE },
  { "su",        check_su,        FALSE, FALSE },
  { "tar",       check_tar,       FALSE, FALSE },
  { "tcc",       check_compiler,  TRUE, FALSE },
  { "tee",       check_create,    FALSE, FALSE },
  { "touch",     check_create,    FALSE, FALSE },
  { "trap",      check_trap,      FALSE, FALSE },
  { "truncate",  check_create,    FALSE, FALSE },
  { "uniq",      check_uniq,      TRUE, FALSE },
  { "unlink",    check_unlink,    FALSE, FALSE },
  { "unzip",     check_unzip,     FALSE, FALSE },
  { "vi",        check_editor,    TRUE, FALSE },
  { "view",      check_editor,    TRUE, FALSE },
  { "vim",       check_editor,    TRUE, FALSE },
  { "watch",     check_watch,     FALSE, FALSE },
  { "wget",      check_download,  TRUE, TRUE },
  { "wget2",     check_download,  TRUE, TRUE },
  { "zip",       check_zip,       FALSE, FALSE },
};

static int
program_compare (const void *key, const void *entry)
{
  return strcmp (key, ((const Program *) entry)->name);
}

static const Program *
find_program (const char *name)
{
  return bsearch (name, programs, G_N_ELEMENTS (programs), sizeof programs[0], program_compare);
}

static void
check_command (Check *c, const OwShellCommand *cmd)
{
  GPtrArray *saved = NULL, *saved_words;
  gboolean saved_unknown = FALSE;
  const Program *program;
  const Interp *interp;
  const char *p;
  Run r;

  if (c->budget == 0)
    return;
  if (--c->budget == 0)
    {
      finding (c, SAFETY_ALL,
               "the command holds more than %d commands to check, so every check applies",
               SAFETY_MAX_COMMANDS);
      return;
    }

  for (guint i = 0; i < cmd->redirects->len; i++)
    {
      const OwShellRedirect *rd = g_ptr_array_index (cmd->redirects, i);
      const char *bare = bare_op (rd->op);

      if (rd->target == NULL)
        continue;
      if (rd->writes)
        judge_write (c, rd->target, looks_dynamic (rd->target), "writes");
      if (strcmp (bare, "<") == 0 || strcmp (bare, "<>") == 0)
        judge_read (c, rd->target, looks_dynamic (rd->target), FALSE);
    }
  if (cmd->argv == NULL || cmd->argv[0] == NULL)
    return;
  for (guint i = 0; cmd->assignments != NULL && cmd->assignments[i] != NULL; i++)
    if (g_str_has_prefix (cmd->assignments[i], "HOME="))
      c->home_unknown = TRUE;

  /* code words belong to this command; nested ones (sh -c) keep theirs */
  saved_words = c->code_words;
  c->code_words = NULL;
  run_init (c, &r, cmd, &saved, &saved_unknown);
  p = r.prog;
  if (p == NULL)
    goto out;
  if (r.dyn[r.at])
    {
      g_autofree char *dl = runs_download (r.argv[r.at]);
      g_autofree char *filled = substitute_vars (c, r.argv[r.at]);

      if (dl != NULL)
        finding (c, OW_SAFETY_DOWNLOADED_EXEC, "runs the output of %s as a command", dl);
      else if (strchr (r.argv[r.at], '/') != NULL)
        check_exec_file (c, r.argv[r.at], TRUE, NULL);
      if (filled != NULL)
        {
          /* x=rm; $x -rf ~: judge the command the variable names */
          GString *line = g_string_new (filled);

          for (guint i = r.at + 1; r.argv[i] != NULL; i++)
            {
              g_autofree char *quoted = r.dyn[i] ? g_strdup (r.argv[i]) : g_shell_quote (r.argv[i]);

              g_string_append_c (line, ' ');
              g_string_append (line, quoted);
            }
          check_code (c, line->str, "the command its variables name");
          g_string_free (line, TRUE);
        }
      generic_reads (c, &r);
      goto out;
    }
  if (strchr (r.argv[r.at], '/') != NULL)
    check_exec_file (c, r.argv[r.at], FALSE, NULL);
  if (name_in (p, downloaders) && c->downloader == NULL)
    c->downloader = g_strdup (p);

  program = find_program (p);
  if (program != NULL && !program->after_authority)
    program->check (c, &r);
  else if (ow_shell_is_shell (p))
    check_shell_program (c, cmd, p, r.start);
  else if (is_python (p))
    check_python (c, cmd, p, r.start);
  else if ((interp = find_interp (p)) != NULL)
    check_interp (c, cmd, interp, r.start);
  else if (check_authority (c, &r))
    ;
  else if (program != NULL)
    program->check (c, &r);
  else if (g_ascii_strcasecmp (p, "cmd") == 0 || g_ascii_strcasecmp (p, "cmd.exe") == 0)
    check_cmd_exe (c, &r);
  else if (g_ascii_strncasecmp (p, "powershell", 10) == 0
           || g_ascii_strncasecmp (p, "pwsh", 4) == 0)
    check_powershell (c, &r);

  if (program != NULL && program->own_reads)
    goto out;
  generic_reads (c, &r);
out:
  if (saved != NULL)
    pop_cwd (c, saved, saved_unknown);
  g_clear_pointer (&c->code_words, g_ptr_array_unref);
  c->code_words = saved_words;
}

/* Whether @cmd is an interpreter that runs its stdin (no script, no
 * inline code): for the echo … | sh pre-pass. */
static gboolean
reads_stdin_script (const OwShellCommand *cmd)
{
  guint start;
  const char *p = ow_shell_command_program (cmd, &start);

  if (p == NULL || !ow_shell_is_shell (p))
    return FALSE;
  for (guint i = start; cmd->argv[i] != NULL; i++)
    {
      const char *w = cmd->argv[i];

      if (strcmp (w, "-s") == 0 || strcmp (w, "-") == 0)
        return TRUE;
      if (w[0] != '-' || cmd->dynamic[i] || strchr (w, 'c') != NULL)
        return FALSE;
    }
  return TRUE;
}

static void
check_parsed (Check *c, const OwShellParse *parse, const char *what)
{
  if (parse->features & OW_SHELL_PARSE_ERROR)
    {
      finding (c, SAFETY_ALL, "%s could not be read (%s), so every check applies", what,
               parse->error != NULL ? parse->error : "unknown reason");
      return;
    }
  if (parse->features & OW_SHELL_PIPE)
    {
      c->saw_pipe = TRUE;
      for (guint i = 0; i < parse->commands->len; i++)
        {
          const OwShellCommand *cmd = g_ptr_array_index (parse->commands, i);

          if (reads_stdin_script (cmd) && c->stdin_exec == NULL)
            c->stdin_exec = g_strdup (ow_shell_command_program (cmd, NULL));
        }
    }
  for (guint i = 0; i < parse->commands->len; i++)
    {
      const OwShellCommand *cmd = g_ptr_array_index (parse->commands, i);
      static const char *const declarers[] = { "export", "declare", "typeset", "local", "readonly",
                                               NULL };

      for (guint k = 0; cmd->argv[k] != NULL; k++)
        if (strncmp (cmd->argv[k], "HOME=", 5) == 0 || strcmp (cmd->argv[k], "HOME") == 0)
          c->home_unknown = TRUE;
      for (guint k = 0; cmd->assignments[k] != NULL; k++)
        {
          if (strncmp (cmd->assignments[k], "HOME=", 5) == 0)
            c->home_unknown = TRUE;
          note_assignment (c, cmd->assignments[k]);
        }
      if (cmd->argv[0] != NULL && name_in (cmd->argv[0], declarers))
        for (guint k = 1; cmd->argv[k] != NULL; k++)
          note_assignment (c, cmd->argv[k]);
    }
  for (guint i = 0; i < parse->commands->len; i++)
    check_command (c, g_ptr_array_index (parse->commands, i));
}

static void
check_shell (Check *c, const char *command, const char *what)
{
  g_autoptr(OwShellParse) parse = ow_shell_parse (command);

  check_parsed (c, parse, what);
}

/* ---- the context ---- */

/* The shared temp folders, canonical: the same for the whole process. */
static gpointer
make_temp_dirs (gpointer data)
{
  static const char *const temps[] = { "/tmp", "/var/tmp", "/dev/shm", NULL };
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; temps[i] != NULL; i++)
    add_folder (dirs, temps[i]);
  return dirs;
}

/* Sets @c up to judge in @ctx. @paths_only (ow_safety_downloads_of):
 * only the home and the shell's folder are needed. */
static void
check_init (Check *c, const OwSafetyContext *ctx, OwSafetyResult *out, gboolean paths_only)
{
  static GOnce temp_once = G_ONCE_INIT;

  memset (c, 0, sizeof *c);
  c->out = out;
  c->roots = g_ptr_array_new_with_free_func (g_free);
  c->writable = g_array_new (FALSE, TRUE, sizeof (gboolean));
  c->homes = g_ptr_array_new_with_free_func (g_free);
  c->agent_dirs = g_ptr_array_new_with_free_func (g_free);
  /* shared by every call, never freed */
  c->temp_dirs = g_once (&temp_once, make_temp_dirs, NULL);
  c->downloaded = g_ptr_array_new_with_free_func (g_free);
  c->cwds = g_ptr_array_new_with_free_func (g_free);
  c->budget = SAFETY_MAX_COMMANDS;
  add_folder (c->homes, ctx->home);
  if (ctx->cwd != NULL && ctx->cwd[0] == '/')
    add_folder (c->cwds, ctx->cwd);
  if (paths_only)
    {
      if (c->cwds->len == 0 && ctx->n_roots > 0 && ctx->roots != NULL && ctx->roots[0] != NULL
          && ctx->roots[0][0] == '/')
        g_ptr_array_add (c->cwds, normalize (ctx->roots[0]));
      c->cwd_unknown = c->cwds->len == 0;
      return;
    }
  for (guint i = 0; i < ctx->n_roots && ctx->roots != NULL; i++)
    {
      g_autoptr(GPtrArray) forms = g_ptr_array_new_with_free_func (g_free);
      gboolean writable = ctx->roots_writable != NULL && ctx->roots_writable[i];

      add_folder (forms, ctx->roots[i]);
      for (guint k = 0; k < forms->len; k++)
        {
          g_ptr_array_add (c->roots, g_strdup (g_ptr_array_index (forms, k)));
          g_array_append_val (c->writable, writable);
        }
    }
  for (guint i = 0; ctx->agent_dirs != NULL && ctx->agent_dirs[i] != NULL; i++)
    add_folder (c->agent_dirs, ctx->agent_dirs[i]);
  c->env = ctx->env;
  for (guint i = 0; ctx->downloaded != NULL && ctx->downloaded[i] != NULL; i++)
    if (ctx->downloaded[i][0] == '/')
      {
        g_autofree char *lexical = normalize (ctx->downloaded[i]);

        add_unique (c->downloaded, realpath_prefix (lexical));
        add_unique (c->downloaded, g_strdup (lexical));
      }
  if (c->cwds->len == 0 && c->roots->len > 0)
    g_ptr_array_add (c->cwds, g_strdup (g_ptr_array_index (c->roots, 0)));
  else if (c->cwds->len == 0)
    c->cwd_unknown = TRUE;
}

static void
check_clear (Check *c)
{
  g_clear_pointer (&c->roots, g_ptr_array_unref);
  g_clear_pointer (&c->writable, g_array_unref);
  g_clear_pointer (&c->homes, g_ptr_array_unref);
  g_clear_pointer (&c->agent_dirs, g_ptr_array_unref);
  c->temp_dirs = NULL;
  g_clear_pointer (&c->downloaded, g_ptr_array_unref);
  g_clear_pointer (&c->cwds, g_ptr_array_unref);
  g_clear_pointer (&c->code_words, g_ptr_array_unref);
  g_clear_pointer (&c->vars, g_hash_table_unref);
  g_clear_pointer (&c->downloader, g_free);
  g_clear_pointer (&c->stdin_exec, g_free);
}

/* Relative paths of file tools resolve in the primary folder. */
static void
file_tool_mode (Check *c, const OwSafetyContext *ctx)
{
  c->file_tool = TRUE;
  g_ptr_array_set_size (c->cwds, 0);
  c->cwd_unknown = FALSE;
  if (ctx->n_roots > 0 && ctx->roots != NULL && ctx->roots[0] != NULL && ctx->roots[0][0] == '/')
    g_ptr_array_add (c->cwds, normalize (ctx->roots[0]));
  else if (ctx->cwd != NULL && ctx->cwd[0] == '/')
    g_ptr_array_add (c->cwds, normalize (ctx->cwd));
  else
    c->cwd_unknown = TRUE;
}

/* ---- downloads ---- */

static void
collect_downloads (Check *c, const OwShellParse *parse, GPtrArray *out)
{
  gboolean downloader = FALSE;

  if (parse->features & OW_SHELL_PARSE_ERROR)
    return;
  for (guint i = 0; i < parse->commands->len; i++)
    {
      const OwShellCommand *cmd = g_ptr_array_index (parse->commands, i);
      guint start;
      const char *p = ow_shell_command_program (cmd, &start);
      g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

      if (p == NULL)
        continue;
      if (strcmp (p, "cd") == 0 || strcmp (p, "pushd") == 0)
        {
          Run r = { cmd, (const char *const *) cmd->argv, cmd->dynamic, p, start - 1, start,
                    FALSE };

          check_cd (c, &r);
          continue;
        }
      if (!name_in (p, downloaders) && !(strcmp (p, "tee") == 0 && downloader))
        continue;
      if (strcmp (p, "tee") == 0)
        {
          for (guint k = start; cmd->argv[k] != NULL; k++)
            if (cmd->argv[k][0] != '-' && !cmd->dynamic[k])
              g_ptr_array_add (files, g_strdup (cmd->argv[k]));
        }
      else
        {
          downloader = TRUE;
          download_targets (cmd, p, start, files);
        }
      /* curl … > file */
      for (guint k = 0; k < cmd->redirects->len; k++)
        {
          const OwShellRedirect *rd = g_ptr_array_index (cmd->redirects, k);

          if (rd->writes && rd->target != NULL && (rd->fd == 1 || g_str_has_prefix (rd->op, "&"))
              && !looks_dynamic (rd->target))
            g_ptr_array_add (files, g_strdup (rd->target));
        }
      for (guint k = 0; k < files->len; k++)
        {
          const char *f = g_ptr_array_index (files, k);

          /* every folder a cd may have moved to is a candidate */
          for (guint d = 0; d < (f[0] == '/' ? 1 : c->cwds->len); d++)
            {
              g_autofree char *abs
                  = f[0] == '/' ? g_strdup (f) : path_join (g_ptr_array_index (c->cwds, d), f);
              g_autofree char *lexical = NULL;

              if (strlen (abs) > SAFETY_MAX_PATH || (f[0] != '/' && c->cwd_unknown))
                continue;
              lexical = normalize (abs);
              add_unique (out, realpath_prefix (lexical));
            }
        }
    }
}

GStrv
ow_safety_downloads_of (const OwSafetyContext *ctx, const char *command)
{
  OwSafetyResult scratch;
  Check c;
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (ctx != NULL, NULL);
  ow_safety_result_init (&scratch);
  check_init (&c, ctx, &scratch, TRUE);
  if (command != NULL)
    {
      g_autoptr(OwShellParse) parse = ow_shell_parse (command);

      collect_downloads (&c, parse, out);
    }
  check_clear (&c);
  ow_safety_result_clear (&scratch);
  g_ptr_array_set_free_func (out, NULL);
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

/* ---- tool calls ---- */

static const char *
string_member (JsonObject *args, const char *name)
{
  JsonNode *node;

  if (args == NULL || !json_object_has_member (args, name))
    return NULL;
  node = json_object_get_member (args, name);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* The paths named by a patch in the apply_patch envelope or a unified
 * diff, with what happens to each. */
static void
check_patch_text (Check *c, const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  static const struct {
    const char *prefix;   /* the header line */
    const char *verb;     /* what it does to the path */
  } headers[] = {
    { "*** Add File: ", "writes" },
    { "*** Update File: ", "edits" },
    { "*** Delete File: ", "deletes" },
    { "*** Move to: ", "writes" },
    { "+++ ", "edits" },
    { "--- ", "edits" },
    { "rename from ", "deletes" },
    { "rename to ", "writes" },
  };

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      gsize n = strlen (line);

      if (n > 0 && line[n - 1] == '\r')
        line[--n] = '\0';
      for (guint k = 0; k < G_N_ELEMENTS (headers); k++)
        {
          g_autofree char *path = NULL;
          gsize len;

          if (!g_str_has_prefix (line, headers[k].prefix))
            continue;
          path = g_strdup (line + strlen (headers[k].prefix));
          if (headers[k].prefix[0] == '+' || headers[k].prefix[0] == '-')
            {
              /* unified diff: "--- a/path<TAB>date" */
              path[strcspn (path, "\t")] = '\0';
              if (strcmp (path, "/dev/null") == 0)
                break;
              if ((path[0] == 'a' || path[0] == 'b') && path[1] == '/')
                memmove (path, path + 2, strlen (path + 2) + 1);
            }
          len = strlen (path);
          while (len > 0 && (path[len - 1] == ' ' || path[len - 1] == '\t'))
            path[--len] = '\0';
          if (len == 0)
            break;
          if (strcmp (headers[k].verb, "deletes") == 0)
            judge_delete (c, path, FALSE, FALSE, FALSE);
          else
            judge_write (c, path, FALSE, headers[k].verb);
          break;
        }
    }
}

void
ow_safety_check_tool (const OwSafetyContext *ctx,
                      const char            *tool,
                      JsonObject            *args,
                      OwSafetyResult        *out)
{
  ow_safety_check_tool_parsed (ctx, tool, args, NULL, out);
}

void
ow_safety_check_tool_parsed (const OwSafetyContext *ctx,
                             const char            *tool,
                             JsonObject            *args,
                             const OwShellParse    *given,
                             OwSafetyResult        *out)
{
  static const char *const path_keys[]
      = { "path",   "file",   "file_path", "filepath", "filename",    "dir",         "directory",
          "folder", "cwd",    "workdir",   "source",   "src",         "destination", "dest",
          "dst",    "target", "output",    "out",      "output_path", NULL };
  static const char *const write_keys[] = { "destination", "dest", "dst", "target", "output", "out",
                                             "output_path", NULL };
  Check c;

  g_return_if_fail (ctx != NULL && out != NULL);
  if (tool == NULL)
    return;
  if (out->reasons == NULL)
    ow_safety_result_init (out);
  check_init (&c, ctx, out, FALSE);
  if (strcmp (tool, "run_shell") == 0)
    {
      const char *command = string_member (args, "command");

      if (command != NULL)
        {
          g_autoptr(OwShellParse) own = given == NULL ? ow_shell_parse (command) : NULL;
          OwShellParse *parse = given != NULL ? (OwShellParse *) given : own;
          g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
          GPtrArray *cwds = g_ptr_array_new_with_free_func (g_free);
          gboolean cwd_unknown = c.cwd_unknown;

          for (guint i = 0; i < c.cwds->len; i++)
            g_ptr_array_add (cwds, g_strdup (g_ptr_array_index (c.cwds, i)));
          collect_downloads (&c, parse, files);
          /* collecting walks the cd's: the checks start from the shell's folder again */
          g_ptr_array_unref (c.cwds);
          c.cwds = cwds;
          c.cwd_unknown = cwd_unknown;
          for (guint i = 0; i < files->len; i++)
            add_unique (c.downloaded, g_strdup (g_ptr_array_index (files, i)));
          check_parsed (&c, parse, "the command");
          if (c.downloader != NULL && c.stdin_exec != NULL && c.saw_pipe)
            finding (&c, OW_SAFETY_DOWNLOADED_EXEC,
                     "pipes what %s downloads into %s, which runs it", c.downloader, c.stdin_exec);
        }
      check_clear (&c);
      return;
    }
  file_tool_mode (&c, ctx);
  if (strcmp (tool, "write_file") == 0 || strcmp (tool, "replace_in_file") == 0
      || strcmp (tool, "edit_file") == 0)
    {
      const char *path = string_member (args, "path");

      judge_write (&c, path != NULL && path[0] != '\0' ? path : ".", FALSE,
                   strcmp (tool, "write_file") == 0 ? "writes" : "edits");
    }
  else if (strcmp (tool, "apply_patch") == 0 || strcmp (tool, "apply_unified_diff") == 0)
    {
      const char *text = string_member (args, "patch");

      if (text == NULL)
        text = string_member (args, "diff");
      if (text != NULL)
        check_patch_text (&c, text);
    }
  else if (strcmp (tool, "read_file") == 0 || strcmp (tool, "grep") == 0)
    {
      const char *path = string_member (args, "path");

      judge_read (&c, path != NULL && path[0] != '\0' ? path : ".", FALSE,
                  strcmp (tool, "grep") == 0);
    }
  else if (strcmp (tool, "list_files") == 0)
    {
      /* a listing shows names, which are not secrets (like ls) */
    }
  else
    {
      for (guint i = 0; path_keys[i] != NULL; i++)
        {
          const char *value = string_member (args, path_keys[i]);

          if (value == NULL
              || !(value[0] == '/' || value[0] == '~' || value[0] == '.'
                   || strchr (value, '/') != NULL))
            continue;
          judge_read (&c, value, FALSE, FALSE);
          if (name_in (path_keys[i], write_keys))
            judge_write (&c, value, FALSE, "writes");
        }
    }
  check_clear (&c);
}

/* ---- What the command guard enforces (ow-executor.h) ------------------- */

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
