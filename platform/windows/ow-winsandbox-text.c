/* ow-winsandbox-text.c: the portable half of the Windows sandbox core.
 *
 * Everything here is text and plain data, with libc only, so it builds and
 * is tested natively on Linux as well as under Wine: Windows path rules,
 * the SDDL strings of the access entries, the plan of entries a session
 * needs, command lines and environment blocks in the form CreateProcess
 * takes them, the plaintext sealed in account.cred, setup.json (written
 * by the setup script's ConvertTo-Json or by ow_ws_setup_to_json(), read
 * by a small JSON reader here) and the two elevated PowerShell scripts.
 *
 * Setup and removal are scripts rather than C because the accounts, the
 * firewall rule and the registry are what PowerShell does in one line
 * each; the two steps it cannot do (WFP filters and logon rights) call
 * back into this core through openworker-winsandbox.exe. Every value put
 * into a script is a single-quoted literal, never interpolated.
 */
#include "ow-winsandbox.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define OW_WS_PRINTF(f, a) __attribute__ ((format (printf, f, a)))
#else
#define OW_WS_PRINTF(f, a)
#endif

/* --- small helpers ------------------------------------------------------- */

/* A growing string. */
typedef struct {
  char   *s;    /* NUL-terminated text */
  size_t  len;  /* bytes used, without the NUL */
  size_t  cap;  /* bytes allocated */
} Sb;

static void
sb_reserve (Sb *b, size_t more)
{
  if (b->len + more + 1 <= b->cap)
    return;
  while (b->len + more + 1 > b->cap)
    b->cap = b->cap != 0 ? b->cap * 2 : 256;
  b->s = realloc (b->s, b->cap);
  if (b->s == NULL)
    abort ();
}

static void
sb_addn (Sb *b, const char *s, size_t n)
{
  sb_reserve (b, n);
  memcpy (b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

static void
sb_add (Sb *b, const char *s)
{
  sb_addn (b, s, strlen (s));
}

static void
sb_addc (Sb *b, char c)
{
  sb_addn (b, &c, 1);
}

static void OW_WS_PRINTF (2, 3)
sb_printf (Sb *b, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    abort ();
  sb_reserve (b, (size_t) n);
  va_start (ap, fmt);
  vsnprintf (b->s + b->len, (size_t) n + 1, fmt, ap);
  va_end (ap);
  b->len += (size_t) n;
}

static char *
sb_end (Sb *b)
{
  if (b->s == NULL)
    sb_reserve (b, 0), b->s[0] = '\0';
  return b->s;
}

static char *
xstrdup (const char *s)
{
  size_t n = strlen (s) + 1;
  char *d = malloc (n);

  if (d == NULL)
    abort ();
  memcpy (d, s, n);
  return d;
}

static void OW_WS_PRINTF (2, 3)
set_error (char **error, const char *fmt, ...)
{
  va_list ap;
  Sb b = { 0 };
  int n;

  if (error == NULL)
    return;
  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    abort ();
  sb_reserve (&b, (size_t) n);
  va_start (ap, fmt);
  vsnprintf (b.s, (size_t) n + 1, fmt, ap);
  va_end (ap);
  free (*error);
  *error = b.s;
}

void
ow_ws_strv_free (char **strv)
{
  if (strv == NULL)
    return;
  for (size_t i = 0; strv[i] != NULL; i++)
    free (strv[i]);
  free (strv);
}

static size_t
strv_len (const char *const *v)
{
  size_t n = 0;

  while (v != NULL && v[n] != NULL)
    n++;
  return n;
}

static int
has_control (const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p != '\0'; p++)
    if (*p < 0x20 || *p == 0x7f)
      return 1;
  return 0;
}

static int
ascii_casecmp_n (const char *a, const char *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      int ca = tolower ((unsigned char) a[i]);
      int cb = tolower ((unsigned char) b[i]);

      if (ca != cb)
        return ca - cb;
      if (ca == 0)
        return 0;
    }
  return 0;
}

/* --- paths --------------------------------------------------------------- */

char *
ow_ws_join (const char *dir, const char *leaf)
{
  Sb b = { 0 };
  size_t n = strlen (dir);

  sb_add (&b, dir);
  if (n == 0 || dir[n - 1] != '\\')
    sb_addc (&b, '\\');
  sb_add (&b, leaf);
  return sb_end (&b);
}

char *
ow_ws_root_dir (const char *program_data)
{
  char *a = ow_ws_join (program_data, "OpenWorker");
  char *b = ow_ws_join (a, "sandbox");

  free (a);
  return b;
}

char *
ow_ws_normalize_path (const char *path, char **error)
{
  Sb b = { 0 };
  const char *p;

  if (path == NULL || !isalpha ((unsigned char) path[0]) || path[1] != ':' || (path[2] != '\\' && path[2] != '/'))
    {
      set_error (error, "The folder “%s” is not a full path with a drive letter (such as C:\\work); "
                        "the Windows sandbox can only give a session such folders.",
                 path != NULL ? path : "(none)");
      return NULL;
    }
  if (has_control (path))
    {
      set_error (error, "The folder “%s” holds a control character; rename it to use it in a sandboxed session.",
                 path);
      return NULL;
    }
  sb_addc (&b, (char) toupper ((unsigned char) path[0]));
  sb_add (&b, ":");
  p = path + 2;
  for (;;)
    {
      const char *start;
      size_t n;

      while (*p == '\\' || *p == '/')
        p++;
      if (*p == '\0')
        break;
      start = p;
      while (*p != '\0' && *p != '\\' && *p != '/')
        p++;
      n = (size_t) (p - start);
      if ((n == 1 && start[0] == '.') || (n == 2 && start[0] == '.' && start[1] == '.'))
        {
          set_error (error, "The folder “%s” has a “.” or “..” in it; give the resolved path.", path);
          free (b.s);
          return NULL;
        }
      /* Windows drops trailing dots and spaces from a name, so "code." and
       * "code" are one folder: refuse the spelling that hides that. */
      if (start[n - 1] == '.' || start[n - 1] == ' ')
        {
          set_error (error, "The folder “%s” has a name ending in a dot or a space, which Windows ignores; "
                            "give the folder's real name.", path);
          free (b.s);
          return NULL;
        }
      for (size_t i = 0; i < n; i++)
        if (strchr ("<>:\"|?*", start[i]) != NULL)
          {
            set_error (error, "The folder “%s” holds a character Windows does not allow in names.", path);
            free (b.s);
            return NULL;
          }
      sb_addc (&b, '\\');
      sb_addn (&b, start, n);
    }
  if (b.len == 2)
    sb_addc (&b, '\\');
  return sb_end (&b);
}

int
ow_ws_path_within (const char *a, const char *b)
{
  size_t n = strlen (b);

  if (strlen (a) < n || ascii_casecmp_n (a, b, n) != 0)
    return 0;
  if (a[n] == '\0')
    return 1;
  /* "C:\" is the only normalized path that ends in a separator. */
  return b[n - 1] == '\\' || a[n] == '\\';
}

static char *
parent_dir (const char *path)
{
  const char *slash = strrchr (path, '\\');
  char *d;

  if (slash == NULL || slash - path <= 2)
    {
      if (strlen (path) <= 3)
        return NULL;
      d = malloc (4);
      if (d == NULL)
        abort ();
      memcpy (d, path, 3);
      d[3] = '\0';
      return d;
    }
  d = malloc ((size_t) (slash - path) + 1);
  if (d == NULL)
    abort ();
  memcpy (d, path, (size_t) (slash - path));
  d[slash - path] = '\0';
  return d;
}

/* --- security descriptors ------------------------------------------------ */

int
ow_ws_sid_is_valid (const char *sid)
{
  const char *p;
  int parts = 0;

  if (sid == NULL || strncmp (sid, "S-1-", 4) != 0)
    return 0;
  p = sid + 4;
  for (;;)
    {
      if (!isdigit ((unsigned char) *p))
        return 0;
      while (isdigit ((unsigned char) *p))
        p++;
      parts++;
      if (*p == '\0')
        break;
      if (*p != '-')
        return 0;
      p++;
    }
  return parts >= 1 && parts <= 16;
}

unsigned int
ow_ws_grant_mask (OwWsGrantKind kind)
{
  switch (kind)
    {
    case OW_WS_GRANT_WRITE: return OW_WS_MASK_WRITE;
    case OW_WS_GRANT_READ: return OW_WS_MASK_READ;
    case OW_WS_GRANT_TRAVERSE: return OW_WS_MASK_TRAVERSE;
    case OW_WS_GRANT_DENY_WRITE: return OW_WS_MASK_DENY_WRITE;
    }
  return 0;
}

unsigned int
ow_ws_grant_inheritance (OwWsGrantKind kind)
{
  return kind == OW_WS_GRANT_TRAVERSE ? 0u : 3u;
}

const char *
ow_ws_grant_kind_name (OwWsGrantKind kind)
{
  switch (kind)
    {
    case OW_WS_GRANT_WRITE: return "write";
    case OW_WS_GRANT_READ: return "read";
    case OW_WS_GRANT_TRAVERSE: return "traverse";
    case OW_WS_GRANT_DENY_WRITE: return "deny-write";
    }
  return "?";
}

char *
ow_ws_sddl_ace (OwWsGrantKind kind, const char *sid)
{
  Sb b = { 0 };

  sb_printf (&b, "(%s;%s;0x%x;;;%s)", kind == OW_WS_GRANT_DENY_WRITE ? "D" : "A",
             ow_ws_grant_inheritance (kind) != 0 ? "OICI" : "", ow_ws_grant_mask (kind), sid);
  return sb_end (&b);
}

char *
ow_ws_sddl_match_user (const char *sid)
{
  Sb b = { 0 };

  sb_printf (&b, "D:(A;;CC;;;%s)", sid);
  return sb_end (&b);
}

char *
ow_ws_sddl_root_dir (const char *user_sid, const char *open_sid, const char *closed_sid)
{
  Sb b = { 0 };

  sb_printf (&b, "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x%x;;;%s)(A;;0x%x;;;%s)(A;;0x%x;;;%s)",
             OW_WS_MASK_READ, user_sid, OW_WS_MASK_TRAVERSE, open_sid, OW_WS_MASK_TRAVERSE, closed_sid);
  return sb_end (&b);
}

char *
ow_ws_sddl_sandboxes_dir (const char *user_sid, const char *open_sid, const char *closed_sid)
{
  Sb b = { 0 };

  sb_printf (&b, "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x%x;;;%s)(A;;0x%x;;;%s)(A;;0x%x;;;%s)",
             OW_WS_MASK_WRITE, user_sid, OW_WS_MASK_TRAVERSE, open_sid, OW_WS_MASK_TRAVERSE, closed_sid);
  return sb_end (&b);
}

char *
ow_ws_sddl_cred_file (const char *user_sid)
{
  Sb b = { 0 };

  sb_printf (&b, "D:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;%s)", user_sid);
  return sb_end (&b);
}

/* --- the grant plan ------------------------------------------------------ */

static void
grants_add (OwWsGrants *g, const char *path, OwWsGrantKind kind)
{
  g->items = realloc (g->items, (g->len + 1) * sizeof *g->items);
  if (g->items == NULL)
    abort ();
  g->items[g->len].path = xstrdup (path);
  g->items[g->len].kind = kind;
  g->len++;
}

/* Index of the entry for @path that gives access (not traverse, not a
 * deny), or -1. */
static long
grants_find (const OwWsGrants *g, const char *path)
{
  for (size_t i = 0; i < g->len; i++)
    if ((g->items[i].kind == OW_WS_GRANT_WRITE || g->items[i].kind == OW_WS_GRANT_READ) &&
        ow_ws_path_within (path, g->items[i].path) && ow_ws_path_within (g->items[i].path, path))
      return (long) i;
  return -1;
}

static int
grants_has (const OwWsGrants *g, const char *path, OwWsGrantKind kind)
{
  for (size_t i = 0; i < g->len; i++)
    if (g->items[i].kind == kind && ow_ws_path_within (path, g->items[i].path) &&
        ow_ws_path_within (g->items[i].path, path))
      return 1;
  return 0;
}

void
ow_ws_grants_clear (OwWsGrants *grants)
{
  for (size_t i = 0; i < grants->len; i++)
    free (grants->items[i].path);
  free (grants->items);
  grants->items = NULL;
  grants->len = 0;
}

static int
plan_add (OwWsGrants *g, const char *profile, const char *raw, OwWsGrantKind kind, char **error)
{
  char *path = ow_ws_normalize_path (raw, error);
  long at;

  if (path == NULL)
    return 0;
  if (ow_ws_path_within (profile, path) && !ow_ws_path_within (path, profile))
    {
      set_error (error, "The folder “%s” holds every profile on this PC, including yours; "
                        "give the session a folder inside it instead.", raw);
      free (path);
      return 0;
    }
  at = grants_find (g, path);
  if (at >= 0)
    {
      /* One folder asked for twice: read-write wins over read-only. */
      if (kind == OW_WS_GRANT_WRITE)
        g->items[at].kind = OW_WS_GRANT_WRITE;
    }
  else
    grants_add (g, path, kind);
  free (path);
  return 1;
}

int
ow_ws_plan_grants (const OwWsPlanInput *in, OwWsGrants *out, char **error)
{
  OwWsGrants g = { 0 };
  char *profile = NULL;
  size_t granted;

  out->items = NULL;
  out->len = 0;
  profile = ow_ws_normalize_path (in->profile_root, error);
  if (profile == NULL)
    return 0;
  for (size_t i = 0; in->writable != NULL && in->writable[i] != NULL; i++)
    if (!plan_add (&g, profile, in->writable[i], OW_WS_GRANT_WRITE, error))
      goto fail;
  if (in->private_dir == NULL || !plan_add (&g, profile, in->private_dir, OW_WS_GRANT_WRITE, error))
    {
      if (in->private_dir == NULL)
        set_error (error, "The session has no private folder.");
      goto fail;
    }
  for (size_t i = 0; in->readonly != NULL && in->readonly[i] != NULL; i++)
    if (!plan_add (&g, profile, in->readonly[i], OW_WS_GRANT_READ, error))
      goto fail;
  for (size_t i = 0; in->toolchains != NULL && in->toolchains[i] != NULL; i++)
    if (!plan_add (&g, profile, in->toolchains[i], OW_WS_GRANT_READ, error))
      goto fail;

  /* A read-only folder inside a writable one inherits Modify from it; an
   * explicit deny of writing (which Windows checks before any allow) keeps
   * it read-only. */
  granted = g.len;
  for (size_t i = 0; i < granted; i++)
    {
      if (g.items[i].kind != OW_WS_GRANT_READ)
        continue;
      for (size_t j = 0; j < granted; j++)
        if (g.items[j].kind == OW_WS_GRANT_WRITE && ow_ws_path_within (g.items[i].path, g.items[j].path) &&
            !grants_has (&g, g.items[i].path, OW_WS_GRANT_DENY_WRITE))
          {
            char *p = xstrdup (g.items[i].path);

            grants_add (&g, p, OW_WS_GRANT_DENY_WRITE);
            free (p);
          }
    }

  /* Traverse entries from the profile root down to each granted folder
   * inside the profile, so a shell can step in without being able to list
   * anything on the way. */
  granted = g.len;
  for (size_t i = 0; i < granted; i++)
    {
      char *dir;

      if (g.items[i].kind != OW_WS_GRANT_WRITE && g.items[i].kind != OW_WS_GRANT_READ)
        continue;
      if (!ow_ws_path_within (g.items[i].path, profile) || ow_ws_path_within (profile, g.items[i].path))
        continue;
      dir = parent_dir (g.items[i].path);
      while (dir != NULL && ow_ws_path_within (dir, profile))
        {
          char *up;

          if (grants_find (&g, dir) < 0 && !grants_has (&g, dir, OW_WS_GRANT_TRAVERSE))
            grants_add (&g, dir, OW_WS_GRANT_TRAVERSE);
          if (ow_ws_path_within (profile, dir))
            break;
          up = parent_dir (dir);
          free (dir);
          dir = up;
        }
      free (dir);
    }

  free (profile);
  *out = g;
  return 1;

fail:
  free (profile);
  ow_ws_grants_clear (&g);
  return 0;
}

/* --- command lines and environments ------------------------------------- */

char *
ow_ws_quote_arg (const char *arg)
{
  Sb b = { 0 };

  if (arg[0] != '\0' && strpbrk (arg, " \t\n\v\"") == NULL)
    {
      sb_add (&b, arg);
      return sb_end (&b);
    }
  sb_addc (&b, '"');
  for (const char *p = arg;; p++)
    {
      size_t slashes = 0;

      while (*p == '\\')
        slashes++, p++;
      if (*p == '\0')
        {
          /* Backslashes before the closing quote are doubled. */
          for (size_t i = 0; i < slashes * 2; i++)
            sb_addc (&b, '\\');
          break;
        }
      if (*p == '"')
        {
          for (size_t i = 0; i < slashes * 2 + 1; i++)
            sb_addc (&b, '\\');
          sb_addc (&b, '"');
        }
      else
        {
          for (size_t i = 0; i < slashes; i++)
            sb_addc (&b, '\\');
          sb_addc (&b, *p);
        }
    }
  sb_addc (&b, '"');
  return sb_end (&b);
}

char *
ow_ws_command_line (const char *const *argv)
{
  Sb b = { 0 };

  for (size_t i = 0; argv[i] != NULL; i++)
    {
      char *q = ow_ws_quote_arg (argv[i]);

      if (i > 0)
        sb_addc (&b, ' ');
      sb_add (&b, q);
      free (q);
    }
  return sb_end (&b);
}

/* Length of the name in "NAME=value" (a leading '=' belongs to the name,
 * as in the hidden "=C:=C:\dir" entries). */
static size_t
env_name_len (const char *entry)
{
  const char *eq = strchr (entry + (entry[0] == '=' ? 1 : 0), '=');

  return eq != NULL ? (size_t) (eq - entry) : strlen (entry);
}

static int
env_compare (const void *a, const void *b)
{
  const char *x = *(const char *const *) a;
  const char *y = *(const char *const *) b;
  size_t nx = env_name_len (x), ny = env_name_len (y);
  size_t n = nx < ny ? nx : ny;
  int c = ascii_casecmp_n (x, y, n);

  if (c != 0)
    return c;
  return nx < ny ? -1 : nx > ny ? 1 : 0;
}

char **
ow_ws_environment (const char *const *base, const char *const *set)
{
  size_t nb = strv_len (base), ns = strv_len (set), n = 0;
  char **out = calloc (nb + ns + 1, sizeof *out);

  if (out == NULL)
    abort ();
  for (size_t i = 0; i < nb; i++)
    {
      int replaced = 0;

      if (strchr (base[i] + (base[i][0] == '=' ? 1 : 0), '=') == NULL)
        continue;
      for (size_t j = 0; j < ns; j++)
        if (env_name_len (base[i]) == env_name_len (set[j]) &&
            ascii_casecmp_n (base[i], set[j], env_name_len (set[j])) == 0)
          replaced = 1;
      if (!replaced)
        out[n++] = xstrdup (base[i]);
    }
  for (size_t j = 0; j < ns; j++)
    {
      size_t name = env_name_len (set[j]);
      int seen = 0;

      /* "NAME=" removes; a later duplicate in @set is dropped. */
      if (set[j][name] != '=' || set[j][name + 1] == '\0')
        continue;
      for (size_t k = 0; k < j; k++)
        if (env_name_len (set[k]) == name && ascii_casecmp_n (set[k], set[j], name) == 0)
          seen = 1;
      if (!seen)
        out[n++] = xstrdup (set[j]);
    }
  qsort (out, n, sizeof *out, env_compare);
  return out;
}

/* --- account.cred -------------------------------------------------------- */

char *
ow_ws_cred_plaintext (const char *open_password, const char *closed_password)
{
  Sb b = { 0 };

  if (strpbrk (open_password, "\t\r\n") != NULL || strpbrk (closed_password, "\t\r\n") != NULL)
    return NULL;
  sb_printf (&b, "%s\t%s\n%s\t%s\n", OW_WS_OPEN_ACCOUNT, open_password, OW_WS_CLOSED_ACCOUNT, closed_password);
  return sb_end (&b);
}

int
ow_ws_cred_parse_plaintext (const char *text, size_t len, char **open_password, char **closed_password,
                            char **error)
{
  const char *p = text, *end = text + len;

  *open_password = NULL;
  *closed_password = NULL;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      const char *line_end = nl != NULL ? nl : end;
      const char *tab = memchr (p, '\t', (size_t) (line_end - p));
      char **slot = NULL;

      if (line_end > p && line_end[-1] == '\r')
        line_end--;
      if (tab != NULL)
        {
          size_t name = (size_t) (tab - p);

          if (name == strlen (OW_WS_OPEN_ACCOUNT) && memcmp (p, OW_WS_OPEN_ACCOUNT, name) == 0)
            slot = open_password;
          else if (name == strlen (OW_WS_CLOSED_ACCOUNT) && memcmp (p, OW_WS_CLOSED_ACCOUNT, name) == 0)
            slot = closed_password;
        }
      if (slot != NULL && *slot == NULL && line_end > tab + 1)
        {
          size_t n = (size_t) (line_end - tab - 1);

          *slot = malloc (n + 1);
          if (*slot == NULL)
            abort ();
          memcpy (*slot, tab + 1, n);
          (*slot)[n] = '\0';
        }
      p = nl != NULL ? nl + 1 : end;
    }
  if (*open_password == NULL || *closed_password == NULL)
    {
      set_error (error, "The sandbox accounts' credential file does not hold both passwords; run "
                        "`openworker machine sandbox setup` again.");
      free (*open_password);
      free (*closed_password);
      *open_password = *closed_password = NULL;
      return 0;
    }
  return 1;
}

/* --- JSON: a writer and a small reader ----------------------------------- */

static void
json_string (Sb *b, const char *s)
{
  sb_addc (b, '"');
  for (const unsigned char *p = (const unsigned char *) (s != NULL ? s : ""); *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        {
          sb_addc (b, '\\');
          sb_addc (b, (char) *p);
        }
      else if (*p < 0x20)
        sb_printf (b, "\\u%04x", (unsigned int) *p);
      else
        sb_addc (b, (char) *p);
    }
  sb_addc (b, '"');
}

static void
json_strv (Sb *b, char *const *v)
{
  sb_addc (b, '[');
  for (size_t i = 0; v != NULL && v[i] != NULL; i++)
    {
      if (i > 0)
        sb_add (b, ", ");
      json_string (b, v[i]);
    }
  sb_addc (b, ']');
}

char *
ow_ws_setup_to_json (const OwWsSetup *s)
{
  Sb b = { 0 };

  sb_printf (&b, "{\n  \"version\": %d,\n  \"user_sid\": ", s->version);
  json_string (&b, s->user_sid);
  sb_add (&b, ",\n  \"set_up_at\": ");
  json_string (&b, s->set_up_at);
  sb_add (&b, ",\n  \"accounts\": {\n    \"open\": {\"name\": ");
  json_string (&b, s->open_name);
  sb_add (&b, ", \"sid\": ");
  json_string (&b, s->open_sid);
  sb_add (&b, "},\n    \"closed\": {\"name\": ");
  json_string (&b, s->closed_name);
  sb_add (&b, ", \"sid\": ");
  json_string (&b, s->closed_sid);
  sb_add (&b, "}\n  },\n  \"firewall_rule\": ");
  json_string (&b, s->firewall_rule);
  sb_printf (&b, ",\n  \"wfp\": {\"ports\": [%d, %d], \"filters\": ", s->port_low, s->port_high);
  json_strv (&b, s->filters);
  sb_add (&b, "},\n  \"changed\": ");
  json_strv (&b, s->changed);
  sb_add (&b, "\n}\n");
  return sb_end (&b);
}

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JType;

/* One parsed JSON value. */
typedef struct _JVal JVal;
struct _JVal {
  JType   type;
  double  num;    /* J_NUM, and J_BOOL as 0/1 */
  char   *str;    /* J_STR: the unescaped text */
  char  **keys;   /* J_OBJ: member names, parallel to items */
  JVal  **items;  /* J_ARR / J_OBJ: the elements */
  size_t  n;      /* number of elements */
};

static void
jval_free (JVal *v)
{
  if (v == NULL)
    return;
  for (size_t i = 0; i < v->n; i++)
    {
      if (v->keys != NULL)
        free (v->keys[i]);
      jval_free (v->items[i]);
    }
  free (v->keys);
  free (v->items);
  free (v->str);
  free (v);
}

/* Parser state. */
typedef struct {
  const char *p;      /* next byte */
  const char *error;  /* what went wrong, or NULL */
  int         depth;  /* nesting, bounded so a hostile file cannot exhaust the stack */
} JParser;

static void
jskip (JParser *jp)
{
  while (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r')
    jp->p++;
}

static void
utf8_put (Sb *b, unsigned long cp)
{
  if (cp < 0x80)
    sb_addc (b, (char) cp);
  else if (cp < 0x800)
    {
      sb_addc (b, (char) (0xc0 | (cp >> 6)));
      sb_addc (b, (char) (0x80 | (cp & 0x3f)));
    }
  else if (cp < 0x10000)
    {
      sb_addc (b, (char) (0xe0 | (cp >> 12)));
      sb_addc (b, (char) (0x80 | ((cp >> 6) & 0x3f)));
      sb_addc (b, (char) (0x80 | (cp & 0x3f)));
    }
  else
    {
      sb_addc (b, (char) (0xf0 | (cp >> 18)));
      sb_addc (b, (char) (0x80 | ((cp >> 12) & 0x3f)));
      sb_addc (b, (char) (0x80 | ((cp >> 6) & 0x3f)));
      sb_addc (b, (char) (0x80 | (cp & 0x3f)));
    }
}

static int
hex4 (const char *p, unsigned long *out)
{
  unsigned long v = 0;

  for (int i = 0; i < 4; i++)
    {
      int c = (unsigned char) p[i];

      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= (unsigned long) (c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= (unsigned long) (c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= (unsigned long) (c - 'A' + 10);
      else
        return 0;
    }
  *out = v;
  return 1;
}

static char *
jstring (JParser *jp)
{
  Sb b = { 0 };

  jp->p++;  /* the opening quote */
  for (;;)
    {
      unsigned char c = (unsigned char) *jp->p;

      if (c == '\0' || c < 0x20)
        {
          jp->error = "an unterminated string";
          free (b.s);
          return NULL;
        }
      jp->p++;
      if (c == '"')
        break;
      if (c != '\\')
        {
          sb_addc (&b, (char) c);
          continue;
        }
      c = (unsigned char) *jp->p++;
      switch (c)
        {
        case '"': case '\\': case '/': sb_addc (&b, (char) c); break;
        case 'b': sb_addc (&b, '\b'); break;
        case 'f': sb_addc (&b, '\f'); break;
        case 'n': sb_addc (&b, '\n'); break;
        case 'r': sb_addc (&b, '\r'); break;
        case 't': sb_addc (&b, '\t'); break;
        case 'u':
          {
            unsigned long cp, lo;

            if (!hex4 (jp->p, &cp))
              {
                jp->error = "a bad \\u escape";
                free (b.s);
                return NULL;
              }
            jp->p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && jp->p[0] == '\\' && jp->p[1] == 'u' && hex4 (jp->p + 2, &lo) &&
                lo >= 0xdc00 && lo < 0xe000)
              {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                jp->p += 6;
              }
            else if (cp >= 0xd800 && cp < 0xe000)
              cp = 0xfffd;
            if (cp == 0)
              {
                jp->error = "a NUL character in a string";
                free (b.s);
                return NULL;
              }
            utf8_put (&b, cp);
            break;
          }
        default:
          jp->error = "an unknown escape";
          free (b.s);
          return NULL;
        }
    }
  return sb_end (&b);
}

static JVal *jvalue (JParser *jp);

static JVal *
jnew (JType type)
{
  JVal *v = calloc (1, sizeof *v);

  if (v == NULL)
    abort ();
  v->type = type;
  return v;
}

static void
jpush (JVal *v, char *key, JVal *item)
{
  v->items = realloc (v->items, (v->n + 1) * sizeof *v->items);
  if (v->items == NULL)
    abort ();
  if (v->type == J_OBJ)
    {
      v->keys = realloc (v->keys, (v->n + 1) * sizeof *v->keys);
      if (v->keys == NULL)
        abort ();
      v->keys[v->n] = key;
    }
  v->items[v->n++] = item;
}

static JVal *
jcontainer (JParser *jp, int object)
{
  JVal *v = jnew (object ? J_OBJ : J_ARR);
  char close = object ? '}' : ']';

  if (++jp->depth > 32)
    {
      jp->error = "nesting that is too deep";
      jval_free (v);
      return NULL;
    }
  jp->p++;
  jskip (jp);
  if (*jp->p == close)
    {
      jp->p++;
      jp->depth--;
      return v;
    }
  for (;;)
    {
      char *key = NULL;
      JVal *item;

      jskip (jp);
      if (object)
        {
          if (*jp->p != '"')
            {
              jp->error = "a member without a quoted name";
              jval_free (v);
              return NULL;
            }
          key = jstring (jp);
          if (key == NULL)
            {
              jval_free (v);
              return NULL;
            }
          jskip (jp);
          if (*jp->p != ':')
            {
              jp->error = "a member without ':'";
              free (key);
              jval_free (v);
              return NULL;
            }
          jp->p++;
        }
      item = jvalue (jp);
      if (item == NULL)
        {
          free (key);
          jval_free (v);
          return NULL;
        }
      jpush (v, key, item);
      jskip (jp);
      if (*jp->p == ',')
        {
          jp->p++;
          continue;
        }
      if (*jp->p == close)
        {
          jp->p++;
          jp->depth--;
          return v;
        }
      jp->error = object ? "an object that is not closed" : "an array that is not closed";
      jval_free (v);
      return NULL;
    }
}

static JVal *
jvalue (JParser *jp)
{
  jskip (jp);
  switch (*jp->p)
    {
    case '{': return jcontainer (jp, 1);
    case '[': return jcontainer (jp, 0);
    case '"':
      {
        char *s = jstring (jp);
        JVal *v;

        if (s == NULL)
          return NULL;
        v = jnew (J_STR);
        v->str = s;
        return v;
      }
    default:
      break;
    }
  if (strncmp (jp->p, "true", 4) == 0 || strncmp (jp->p, "false", 5) == 0)
    {
      JVal *v = jnew (J_BOOL);

      v->num = jp->p[0] == 't';
      jp->p += jp->p[0] == 't' ? 4 : 5;
      return v;
    }
  if (strncmp (jp->p, "null", 4) == 0)
    {
      jp->p += 4;
      return jnew (J_NULL);
    }
  if (*jp->p == '-' || isdigit ((unsigned char) *jp->p))
    {
      char *end;
      JVal *v = jnew (J_NUM);

      v->num = strtod (jp->p, &end);
      if (end == jp->p)
        {
          jp->error = "a bad number";
          jval_free (v);
          return NULL;
        }
      jp->p = end;
      return v;
    }
  jp->error = "an unexpected character";
  return NULL;
}

static JVal *
jget (const JVal *obj, const char *key)
{
  if (obj == NULL || obj->type != J_OBJ)
    return NULL;
  for (size_t i = 0; i < obj->n; i++)
    if (strcmp (obj->keys[i], key) == 0)
      return obj->items[i];
  return NULL;
}

static char *
jdup_str (const JVal *v)
{
  return v != NULL && v->type == J_STR ? xstrdup (v->str) : NULL;
}

/* A list of strings; ConvertTo-Json writes a one-element list as a list,
 * but a lone string is accepted too. */
static char **
jdup_strv (const JVal *v)
{
  char **out;
  size_t n = 0;

  if (v == NULL || (v->type != J_ARR && v->type != J_STR))
    return calloc (1, sizeof (char *));
  out = calloc ((v->type == J_ARR ? v->n : 1) + 1, sizeof *out);
  if (out == NULL)
    abort ();
  if (v->type == J_STR)
    out[n++] = xstrdup (v->str);
  else
    for (size_t i = 0; i < v->n; i++)
      if (v->items[i]->type == J_STR)
        out[n++] = xstrdup (v->items[i]->str);
  return out;
}

void
ow_ws_setup_clear (OwWsSetup *s)
{
  free (s->user_sid);
  free (s->set_up_at);
  free (s->open_name);
  free (s->open_sid);
  free (s->closed_name);
  free (s->closed_sid);
  free (s->firewall_rule);
  ow_ws_strv_free (s->filters);
  ow_ws_strv_free (s->changed);
  memset (s, 0, sizeof *s);
}

int
ow_ws_setup_from_json (const char *text, OwWsSetup *out, char **error)
{
  JParser jp = { text, NULL, 0 };
  JVal *root, *accounts, *wfp, *ports, *version;

  memset (out, 0, sizeof *out);
  if ((unsigned char) jp.p[0] == 0xef && (unsigned char) jp.p[1] == 0xbb && (unsigned char) jp.p[2] == 0xbf)
    jp.p += 3;
  root = jvalue (&jp);
  if (root != NULL)
    {
      jskip (&jp);
      if (*jp.p != '\0')
        {
          jp.error = "text after the end";
          jval_free (root);
          root = NULL;
        }
    }
  if (root == NULL || root->type != J_OBJ)
    {
      set_error (error, "The sandbox setup record (setup.json) cannot be read (%s); run "
                        "`openworker machine sandbox setup` again.",
                 jp.error != NULL ? jp.error : "it is not an object");
      jval_free (root);
      return 0;
    }
  version = jget (root, "version");
  out->version = version != NULL && version->type == J_NUM ? (int) version->num : 0;
  out->user_sid = jdup_str (jget (root, "user_sid"));
  out->set_up_at = jdup_str (jget (root, "set_up_at"));
  accounts = jget (root, "accounts");
  out->open_name = jdup_str (jget (jget (accounts, "open"), "name"));
  out->open_sid = jdup_str (jget (jget (accounts, "open"), "sid"));
  out->closed_name = jdup_str (jget (jget (accounts, "closed"), "name"));
  out->closed_sid = jdup_str (jget (jget (accounts, "closed"), "sid"));
  out->firewall_rule = jdup_str (jget (root, "firewall_rule"));
  wfp = jget (root, "wfp");
  ports = jget (wfp, "ports");
  if (ports != NULL && ports->type == J_ARR && ports->n == 2 && ports->items[0]->type == J_NUM &&
      ports->items[1]->type == J_NUM)
    {
      out->port_low = (int) ports->items[0]->num;
      out->port_high = (int) ports->items[1]->num;
    }
  out->filters = jdup_strv (jget (wfp, "filters"));
  out->changed = jdup_strv (jget (root, "changed"));
  jval_free (root);

  if (out->version < 1 || out->user_sid == NULL || out->open_name == NULL || out->open_sid == NULL ||
      out->closed_name == NULL || out->closed_sid == NULL || !ow_ws_sid_is_valid (out->open_sid) ||
      !ow_ws_sid_is_valid (out->closed_sid))
    {
      set_error (error, "The sandbox setup record (setup.json) is incomplete; run "
                        "`openworker machine sandbox setup` again.");
      ow_ws_setup_clear (out);
      return 0;
    }
  return 1;
}

int
ow_ws_setup_changed (const OwWsSetup *setup, const char *item)
{
  for (size_t i = 0; setup->changed != NULL && setup->changed[i] != NULL; i++)
    if (strcmp (setup->changed[i], item) == 0)
      return 1;
  return 0;
}

/* --- the scripts --------------------------------------------------------- */

char *
ow_ws_ps_quote (const char *s)
{
  Sb b = { 0 };

  sb_addc (&b, '\'');
  for (const char *p = s; *p != '\0'; p++)
    {
      /* PowerShell treats U+2018, U+2019, U+201A and U+201B as single
       * quotes too; each is doubled like the ASCII one. */
      if ((unsigned char) p[0] == 0xe2 && (unsigned char) p[1] == 0x80 && (unsigned char) p[2] >= 0x98 &&
          (unsigned char) p[2] <= 0x9b)
        {
          sb_addn (&b, p, 3);
          sb_addn (&b, p, 3);
          p += 2;
          continue;
        }
      if (*p == '\'')
        sb_addc (&b, '\'');
      sb_addc (&b, *p);
    }
  sb_addc (&b, '\'');
  return sb_end (&b);
}

/* Checks the values every script starts from. */
static int
script_input_ok (const OwWsScriptInput *in, char **error)
{
  const char *values[] = { in->program_data, in->user_sid, in->helper_exe, in->log_path };

  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    if (values[i] == NULL || values[i][0] == '\0' || has_control (values[i]))
      {
        set_error (error, "The sandbox setup cannot be written: a path or name is missing or holds a "
                          "control character.");
        return 0;
      }
  if (!ow_ws_sid_is_valid (in->user_sid))
    {
      set_error (error, "“%s” is not a Windows security identifier.", in->user_sid);
      return 0;
    }
  return 1;
}

/* "$Name = 'value'" on a line of its own. */
static void
ps_set (Sb *b, const char *name, const char *value)
{
  char *q = ow_ws_ps_quote (value);

  sb_printf (b, "$%s = %s\n", name, q);
  free (q);
}

char *
ow_ws_setup_script (const OwWsScriptInput *in, char **error)
{
  Sb b = { 0 };
  char *root;

  if (!script_input_ok (in, error))
    return NULL;
  root = ow_ws_root_dir (in->program_data);
  sb_add (&b,
          "# OpenWorker: set up the Windows sandbox. Rendered by OpenWorker; runs once, elevated.\n"
          "# It makes two hidden local accounts, one firewall rule, four WFP filters, the credential\n"
          "# file and the sandboxes folder, and records what it changed in setup.json.\n"
          "$ErrorActionPreference = 'Stop'\n"
          "Set-StrictMode -Version 2\n");
  ps_set (&b, "Log", in->log_path);
  ps_set (&b, "Root", root);
  ps_set (&b, "UserSid", in->user_sid);
  ps_set (&b, "Helper", in->helper_exe);
  ps_set (&b, "Rule", OW_WS_FIREWALL_RULE);
  ps_set (&b, "RuleName", OW_WS_FIREWALL_NAME);
  ps_set (&b, "OpenAccount", OW_WS_OPEN_ACCOUNT);
  ps_set (&b, "ClosedAccount", OW_WS_CLOSED_ACCOUNT);
  ps_set (&b, "Entropy", OW_WS_CRED_ENTROPY);
  sb_printf (&b, "$PortLow = %d\n$PortHigh = %d\n$Version = %d\n", OW_WS_PORT_LOW, OW_WS_PORT_HIGH,
             OW_WS_SETUP_VERSION);
  sb_add (&b,
          "$changed = New-Object System.Collections.Generic.List[string]\n"
          "$userlist = 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\\SpecialAccounts\\UserList'\n"
          "Start-Transcript -Path $Log -Force | Out-Null\n"
          "try {\n"
          "\n"
          "# The sandbox folder. Its entries are set once both accounts exist.\n"
          "if (-not (Test-Path -LiteralPath $Root)) {\n"
          "  New-Item -ItemType Directory -Path $Root -Force | Out-Null\n"
          "  $changed.Add(\"folder:$Root\")\n"
          "}\n"
          "# (New-Item -Force on an existing registry key would empty it: other hidden accounts live there.)\n"
          "if (-not (Test-Path -LiteralPath $userlist)) { New-Item -Path $userlist | Out-Null }\n"
          "\n"
          "# 1. Two accounts with random passwords that exist only here and in the credential file;\n"
          "#    members of Users (for the interactive logon the runner needs), hidden from sign-in.\n"
          "function New-OwPassword {\n"
          "  $bytes = New-Object byte[] 32\n"
          "  [Security.Cryptography.RandomNumberGenerator]::Create().GetBytes($bytes)\n"
          "  return [Convert]::ToBase64String($bytes) + 'aA1!'\n"
          "}\n"
          "function Set-OwAccount([string]$Name, [string]$Description) {\n"
          "  $password = New-OwPassword\n"
          "  $secure = ConvertTo-SecureString $password -AsPlainText -Force\n"
          "  if (Get-LocalUser -Name $Name -ErrorAction SilentlyContinue) {\n"
          "    Set-LocalUser -Name $Name -Password $secure -PasswordNeverExpires $true -UserMayChangePassword $false\n"
          "  } else {\n"
          "    New-LocalUser -Name $Name -Password $secure -Description $Description -PasswordNeverExpires "
          "-UserMayNotChangePassword -AccountNeverExpires | Out-Null\n"
          "    $changed.Add(\"account:$Name\")\n"
          "  }\n"
          "  $users = Get-LocalGroup -SID 'S-1-5-32-545'\n"
          "  if (-not (Get-LocalGroupMember -Group $users -Member $Name -ErrorAction SilentlyContinue)) {\n"
          "    Add-LocalGroupMember -Group $users -Member $Name\n"
          "  }\n"
          "  New-ItemProperty -Path $userlist -Name $Name -Value 0 -PropertyType DWord -Force | Out-Null\n"
          "  $changed.Add(\"userlist:$Name\")\n"
          "  return @{ name = $Name; sid = (Get-LocalUser -Name $Name).SID.Value; password = $password }\n"
          "}\n"
          "$open = Set-OwAccount $OpenAccount 'OpenWorker sandbox account (network open)'\n"
          "$closed = Set-OwAccount $ClosedAccount 'OpenWorker sandbox account (allow list only)'\n"
          "\n"
          "# 2. No remote desktop, network or service logon for either account.\n"
          "foreach ($sid in @($open.sid, $closed.sid)) {\n"
          "  & $Helper deny-logon-rights --sid $sid\n"
          "  if ($LASTEXITCODE -ne 0) { throw \"the logon rights of $sid could not be set\" }\n"
          "}\n"
          "$changed.Add('logon-rights')\n"
          "\n"
          "# 3. The closed account: every outbound connection blocked by the firewall, and on loopback\n"
          "#    (which the firewall does not look at) only the proxy's ports, by WFP filters.\n"
          "Remove-NetFirewallRule -Name $RuleName -ErrorAction SilentlyContinue\n"
          "New-NetFirewallRule -Name $RuleName -DisplayName $Rule -Direction Outbound -Action Block -Profile Any "
          "-Enabled True -LocalUser \"D:(A;;CC;;;$($closed.sid))\" "
          "-Description 'OpenWorker: the closed sandbox account reaches the network only through the allow-list proxy.' "
          "| Out-Null\n"
          "$changed.Add('firewall')\n"
          "$wfp = & $Helper wfp-add --sid $closed.sid --port-low $PortLow --port-high $PortHigh | Out-String\n"
          "if ($LASTEXITCODE -ne 0) { throw \"the loopback filters could not be written: $wfp\" }\n"
          "$filters = @(($wfp | ConvertFrom-Json).filters)\n"
          "$changed.Add('wfp')\n"
          "\n"
          "# 4. The folders' entries: the sandbox folder readable by the person, passed through by the\n"
          "#    accounts; sandboxes\\ writable by the person, who makes one folder per session in it.\n"
          "$rootSddl = \"D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;$UserSid)(A;;0x1000a0;;;$($open.sid))"
          "(A;;0x1000a0;;;$($closed.sid))\"\n"
          "$acl = Get-Acl -LiteralPath $Root\n"
          "$acl.SetSecurityDescriptorSddlForm($rootSddl)\n"
          "Set-Acl -LiteralPath $Root -AclObject $acl\n"
          "$boxes = Join-Path $Root 'sandboxes'\n"
          "if (-not (Test-Path -LiteralPath $boxes)) {\n"
          "  New-Item -ItemType Directory -Path $boxes -Force | Out-Null\n"
          "  $changed.Add(\"folder:$boxes\")\n"
          "}\n"
          "$boxesSddl = \"D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1301bf;;;$UserSid)(A;;0x1000a0;;;$($open.sid))"
          "(A;;0x1000a0;;;$($closed.sid))\"\n"
          "$acl = Get-Acl -LiteralPath $boxes\n"
          "$acl.SetSecurityDescriptorSddlForm($boxesSddl)\n"
          "Set-Acl -LiteralPath $boxes -AclObject $acl\n"
          "\n"
          "# 5. The passwords, sealed with DPAPI (machine scope) in a file only the person, the\n"
          "#    administrators and the system may read. The file's entries are set before it holds anything.\n"
          "Add-Type -AssemblyName System.Security\n"
          "$cred = Join-Path $Root 'account.cred'\n"
          "Set-Content -LiteralPath $cred -Value $null\n"
          "$acl = Get-Acl -LiteralPath $cred\n"
          "$acl.SetSecurityDescriptorSddlForm(\"D:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;$UserSid)\")\n"
          "Set-Acl -LiteralPath $cred -AclObject $acl\n"
          "$plain = [Text.Encoding]::UTF8.GetBytes(\"$OpenAccount`t$($open.password)`n$ClosedAccount`t$($closed.password)`n\")\n"
          "$sealed = [Security.Cryptography.ProtectedData]::Protect($plain, [Text.Encoding]::UTF8.GetBytes($Entropy), "
          "[Security.Cryptography.DataProtectionScope]::LocalMachine)\n"
          "[IO.File]::WriteAllBytes($cred, [Text.Encoding]::ASCII.GetBytes(\"OWCRED1`n\") + $sealed)\n"
          "[Array]::Clear($plain, 0, $plain.Length)\n"
          "$open.password = $null; $closed.password = $null\n"
          "$changed.Add('credential')\n"
          "\n"
          "# 6. The record, so that removal undoes exactly this.\n"
          "@{ version = $Version; user_sid = $UserSid; firewall_rule = $Rule;\n"
          "   set_up_at = (Get-Date).ToUniversalTime().ToString('yyyy-MM-ddTHH:mm:ssZ');\n"
          "   accounts = @{ open = @{ name = $OpenAccount; sid = $open.sid }; closed = @{ name = $ClosedAccount; sid = $closed.sid } };\n"
          "   wfp = @{ ports = @($PortLow, $PortHigh); filters = $filters };\n"
          "   changed = @($changed) } | ConvertTo-Json -Depth 5 | Set-Content -LiteralPath (Join-Path $Root 'setup.json') -Encoding UTF8\n"
          "Write-Output \"ok $($open.sid) $($closed.sid)\"\n"
          "} finally {\n"
          "  Stop-Transcript | Out-Null\n"
          "}\n");
  free (root);
  return sb_end (&b);
}

char *
ow_ws_remove_script (const OwWsScriptInput *in, const OwWsSetup *recorded, char **error)
{
  Sb b = { 0 };
  char *root;
  const char *names[] = { recorded->open_name, recorded->closed_name };

  if (!script_input_ok (in, error))
    return NULL;
  root = ow_ws_root_dir (in->program_data);
  sb_add (&b,
          "# OpenWorker: remove the Windows sandbox setup. Rendered by OpenWorker from setup.json;\n"
          "# it undoes what that record lists and nothing else.\n"
          "$ErrorActionPreference = 'Continue'\n");
  ps_set (&b, "Log", in->log_path);
  ps_set (&b, "Root", root);
  ps_set (&b, "Helper", in->helper_exe);
  sb_add (&b,
          "$userlist = 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\\SpecialAccounts\\UserList'\n"
          "Start-Transcript -Path $Log -Force | Out-Null\n");
  if (ow_ws_setup_changed (recorded, "firewall") && recorded->firewall_rule != NULL)
    {
      char *q = ow_ws_ps_quote (recorded->firewall_rule);

      sb_printf (&b, "Remove-NetFirewallRule -DisplayName %s -ErrorAction SilentlyContinue\n", q);
      free (q);
    }
  if (ow_ws_setup_changed (recorded, "wfp"))
    sb_add (&b, "& $Helper wfp-remove\n");
  for (size_t i = 0; i < 2; i++)
    {
      char *item, *q;

      if (names[i] == NULL)
        continue;
      q = ow_ws_ps_quote (names[i]);
      item = malloc (strlen (names[i]) + 16);
      if (item == NULL)
        abort ();
      sprintf (item, "userlist:%s", names[i]);
      if (ow_ws_setup_changed (recorded, item))
        sb_printf (&b, "Remove-ItemProperty -Path $userlist -Name %s -ErrorAction SilentlyContinue\n", q);
      sprintf (item, "account:%s", names[i]);
      if (ow_ws_setup_changed (recorded, item))
        sb_printf (&b,
                   "if (Get-LocalUser -Name %s -ErrorAction SilentlyContinue) { Remove-LocalUser -Name %s }\n"
                   "Get-CimInstance Win32_UserProfile | Where-Object { $_.LocalPath -like ('*\\' + %s) } | "
                   "Remove-CimInstance\n",
                   q, q, q);
      free (item);
      free (q);
    }
  /* The folders setup made, deepest first; a folder that existed before
   * setup is left where it was, only setup's files in it removed. */
  for (size_t i = strv_len ((const char *const *) recorded->changed); i > 0; i--)
    {
      const char *c = recorded->changed[i - 1];

      if (strncmp (c, "folder:", 7) == 0 && ow_ws_path_within (c + 7, root))
        {
          char *q = ow_ws_ps_quote (c + 7);

          sb_printf (&b, "Remove-Item -LiteralPath %s -Recurse -Force -ErrorAction SilentlyContinue\n", q);
          free (q);
        }
    }
  sb_add (&b,
          "foreach ($leaf in @('account.cred', 'setup.json')) {\n"
          "  Remove-Item -LiteralPath (Join-Path $Root $leaf) -Force -ErrorAction SilentlyContinue\n"
          "}\n"
          "Write-Output 'removed'\n"
          "Stop-Transcript | Out-Null\n");
  free (root);
  return sb_end (&b);
}
