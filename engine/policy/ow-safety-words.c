/* ow-safety-words.c: resolving a command's words, and judging them.
 *
 * A word becomes a Target: ~ and known variables filled in, its forms
 * resolved against every folder the shell may be in, unknown parts kept
 * as unknown. The judge_* functions decide what a write, a delete or a
 * read of it means; file tools and shell commands both end up here.
 * Part of the safety checks (ow-safety.c).
 */
#define G_LOG_DOMAIN "ow-safety"

#include "policy/ow-safety-private.h"

#include <fnmatch.h>
#include <pwd.h>
#include <string.h>

/* ---- resolving words ---- */

void
ow_safety_target_clear (Target *t)
{
  g_clear_pointer (&t->prefix, g_free);
  ow_safety_forms_clear (&t->real);
  ow_safety_forms_clear (&t->names);
  ow_safety_forms_clear (&t->patterns);
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
void
ow_safety_note_assignment (Check *c, const char *assignment)
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
char *
ow_safety_substitute_vars (const Check *c, const char *word)
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
void
ow_safety_target_init (Check *c, Target *t, const char *word, gboolean dynamic)
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

          t->prefix = ow_safety_path_join (g_ptr_array_index (c->cwds, 0), head);
        }
      return;
    }
  if (text[0] == '\0')
    return;
  if (text[0] == '/')
    ow_safety_forms_add (&abs, g_strdup (text));
  else if (c->cwd_unknown || c->cwds->len == 0)
    {
      t->unknown = TRUE;
      return;
    }
  else
    for (guint i = 0; i < c->cwds->len; i++)
      ow_safety_forms_add (&abs, ow_safety_path_join (g_ptr_array_index (c->cwds, i), text));

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
          if (!ow_safety_add_forms (base->str, &t->real, &t->names))
            t->unknown = TRUE;
          if (parts[g] != NULL && parts[g][0] == '.')
            {
              /* ".*" may match "..": the folder above counts too */
              g_autofree char *up = ow_safety_path_join (base->str, "..");

              if (!ow_safety_add_forms (up, &t->real, &t->names))
                t->unknown = TRUE;
            }
          ow_safety_forms_add (&t->patterns, ow_safety_normalize (a));
        }
      ow_safety_forms_clear (&abs);
      if (t->real.full || t->names.full)
        t->unknown = TRUE;
      return;
    }
  for (guint i = 0; i < abs.len; i++)
    if (!ow_safety_add_forms (abs.item[i], &t->real, &t->names))
      t->unknown = TRUE;
  ow_safety_forms_clear (&abs);
  if (t->real.full || t->names.full)
    t->unknown = TRUE;
}

/* The word as written, and where it lands when that reads differently. */
static char *
shown (const Check *c, const Target *t, const char *real)
{
  g_autofree char *where = ow_safety_display (c, real);
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
void
ow_safety_judge_write_target (Check *c, const Target *t, const char *verb)
{
  if (t->unknown)
    {
      ow_safety_finding (c, OW_SAFETY_WRITE_OUTSIDE,
                         "%s %s, a path only known when the command runs", verb, t->written);
      return;
    }
  for (guint i = 0; i < t->names.len; i++)
    {
      const char *kind = ow_safety_protected_kind (c, t->names.item[i]);

      if (kind != NULL)
        {
          ow_safety_finding (c, OW_SAFETY_PROTECTED_FILE, "%s %s, %s", verb, t->written, kind);
          break;
        }
    }
  for (guint i = 0; i < t->names.len; i++)
    {
      const char *kind = ow_safety_persistent_kind (c, t->names.item[i]);

      if (kind != NULL)
        {
          ow_safety_finding (c, OW_SAFETY_PERSISTENT_AUTHORITY,
                             "%s %s, %s, which outlives the session", verb, t->written, kind);
          break;
        }
    }
  /* /dev/stdout and friends are links into /proc: judge them by name */
  for (guint i = 0; i < t->names.len; i++)
    if (ow_safety_is_device (t->names.item[i]))
      return;
  for (guint i = 0; i < t->real.len; i++)
    {
      const char *f = t->real.item[i];

      if (!ow_safety_in_writable_root (c, f) && !ow_safety_is_scratch (c, f))
        {
          g_autofree char *where = shown (c, t, f);

          ow_safety_finding (c, OW_SAFETY_WRITE_OUTSIDE, "%s %s, outside the session's folders",
                             verb, where);
          break;
        }
    }
}

void
ow_safety_judge_write (Check *c, const char *word, gboolean dynamic, const char *verb)
{
  g_autofree char *filled = dynamic && !c->file_tool ? ow_safety_substitute_vars (c, word) : NULL;
  Target t;

  ow_safety_target_init (c, &t, word, dynamic);
  ow_safety_judge_write_target (c, &t, verb);
  ow_safety_target_clear (&t);
  if (filled != NULL)
    {
      ow_safety_target_init (c, &t, filled, TRUE);
      ow_safety_judge_write_target (c, &t, verb);
      ow_safety_target_clear (&t);
    }
}

/* What a recursive delete of @f would take with it, or NULL when that is
 * only things inside the session's folders. */
const char *
ow_safety_delete_scope (const Check *c, const char *f, gboolean find_start)
{
  if (strcmp (f, "/") == 0)
    return "the whole file system";
  for (guint i = 0; i < c->homes->len; i++)
    {
      const char *home = g_ptr_array_index (c->homes, i);

      if (strcmp (home, f) == 0)
        return "your home folder";
      if (ow_safety_path_within (home, f))
        return "a folder that holds your home folder";
    }
  for (guint i = 0; i < c->roots->len; i++)
    {
      const char *root = g_ptr_array_index (c->roots, i);

      /* find … -delete starting at a session folder only removes what
       * it matches inside it */
      if (strcmp (root, f) == 0 && !find_start)
        return "a session folder";
      if (ow_safety_path_below (root, f))
        return "a folder that holds a session folder";
    }
  for (guint i = 0; i < c->agent_dirs->len; i++)
    if (ow_safety_path_within (g_ptr_array_index (c->agent_dirs, i), f))
      return "OpenWorker's own folders";
  if (!ow_safety_in_writable_root (c, f) && !ow_safety_is_scratch (c, f))
    return "outside the session's folders";
  return NULL;
}

static void
judge_delete_target (Check *c, const Target *t, gboolean recursive, gboolean find_start)
{
  ow_safety_judge_write_target (c, t, "deletes");
  if (!recursive)
    return;
  if (t->unknown)
    {
      ow_safety_finding (c, OW_SAFETY_RECURSIVE_DELETE,
                         "deletes %s recursively, a path only known when the command runs",
                         t->written);
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
            top = ow_safety_path_within (g_ptr_array_index (c->homes, k), f);
          for (guint k = 0; k < c->roots->len && !top; k++)
            top = ow_safety_path_within (g_ptr_array_index (c->roots, k), f);
          if (t->broad && top)
            {
              g_autofree char *where = ow_safety_display (c, f);

              ow_safety_finding (c, OW_SAFETY_RECURSIVE_DELETE,
                                 "deletes %s recursively: everything in %s", t->written, where);
              return;
            }
          if (!ow_safety_in_writable_root (c, f) && !ow_safety_is_scratch (c, f))
            {
              ow_safety_finding (c, OW_SAFETY_RECURSIVE_DELETE,
                                 "deletes %s recursively, outside the session's folders",
                                 t->written);
              return;
            }
          continue;
        }
      scope = ow_safety_delete_scope (c, f, find_start);
      if (scope != NULL)
        {
          g_autofree char *where = shown (c, t, f);

          if (strcmp (scope, "outside the session's folders") == 0)
            ow_safety_finding (c, OW_SAFETY_RECURSIVE_DELETE, "deletes %s recursively, %s", where,
                               scope);
          else
            ow_safety_finding (c, OW_SAFETY_RECURSIVE_DELETE, "deletes %s recursively: %s", where,
                               scope);
          return;
        }
    }
}

static void judge_delete_once (Check *c, const char *word, gboolean dynamic, gboolean recursive,
                               gboolean find_start);

void
ow_safety_judge_delete (Check *c, const char *word, gboolean dynamic, gboolean recursive,
                        gboolean find_start)
{
  g_autofree char *filled = dynamic && !c->file_tool ? ow_safety_substitute_vars (c, word) : NULL;

  judge_delete_once (c, word, dynamic, recursive, find_start);
  if (filled != NULL)
    judge_delete_once (c, filled, TRUE, recursive, find_start);
}

static void
judge_delete_once (Check *c, const char *word, gboolean dynamic, gboolean recursive,
                   gboolean find_start)
{
  Target t;

  ow_safety_target_init (c, &t, word, dynamic);
  if (find_start)
    {
      /* find deletes what it finds below its start, not the start
       * itself unless it matches: judge the start as a recursive delete
       * that may keep a session folder */
      if (t.unknown)
        ow_safety_finding (
            c, OW_SAFETY_RECURSIVE_DELETE,
            "deletes what it finds under %s, a path only known when the command runs", t.written);
      for (guint i = 0; i < t.real.len && !t.unknown; i++)
        {
          const char *scope = ow_safety_delete_scope (c, t.real.item[i], TRUE);

          if (scope != NULL)
            {
              g_autofree char *where = shown (c, &t, t.real.item[i]);

              ow_safety_finding (c, OW_SAFETY_RECURSIVE_DELETE,
                                 "deletes what it finds under %s: %s", where, scope);
              break;
            }
        }
    }
  else
    judge_delete_target (c, &t, recursive, FALSE);
  ow_safety_target_clear (&t);
}

/* Whether each component of @pattern matches the path @loc as far as
 * both go; *@deeper when the pattern goes at least as deep. */
static gboolean
glob_reaches (const char *pattern, const char *loc, gboolean *deeper)
{
  Parts pp, lp;

  ow_safety_split_parts (pattern, &pp);
  ow_safety_split_parts (loc, &lp);
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
  char *kind = ow_safety_credential_kind (c, loc);

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
          g_autofree char *rest = ow_safety_normalize (tail);
          g_autofree char *kind = ow_safety_credential_kind (c, rest);

          if (kind != NULL)
            {
              ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s, which may be %s",
                                 t->written, kind);
              return;
            }
        }
      if (t->prefix == NULL)
        return;
      for (guint i = 0; ow_safety_location_at (c, i, loc, sizeof loc); i++)
        {
          g_autofree char *head = ow_safety_normalize (t->prefix);

          if (g_str_has_prefix (loc, t->prefix) || ow_safety_path_within (head, loc)
              || (recursive && ow_safety_path_within (loc, head)))
            {
              g_autofree char *kind = location_kind (c, loc);
              g_autofree char *where = ow_safety_display (c, loc);

              ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s, which can reach %s %s",
                                 t->written, kind, where);
              return;
            }
        }
      return;
    }
  for (guint i = 0; i < t->names.len; i++)
    {
      const char *f = t->names.item[i];
      g_autofree char *kind = ow_safety_credential_kind (c, f);

      if (kind != NULL)
        {
          g_autofree char *where = ow_safety_display (c, f);

          if (t->glob)
            ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s, which reaches %s %s",
                               t->written, kind, where);
          else
            ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s %s", kind, where);
          return;
        }
    }
  for (guint i = 0; i < t->names.len; i++)
    for (guint k = 0; k < c->agent_dirs->len; k++)
      if (ow_safety_path_within (t->names.item[i], g_ptr_array_index (c->agent_dirs, k)))
        {
          /* Its rules, inbox, audit trail and settings: whatever a program
           * does with them, the agent must not reach its own governance. */
          g_autofree char *where = ow_safety_display (c, t->names.item[i]);

          ow_safety_finding (c, OW_SAFETY_PROTECTED_FILE,
                             "uses %s, OpenWorker's own state (its rules, asks and "
                             "settings)",
                             where);
          return;
        }
  for (guint p = 0; p < t->patterns.len; p++)
    for (guint i = 0; ow_safety_location_at (c, i, loc, sizeof loc); i++)
      {
        gboolean deeper = FALSE;

        if (glob_reaches (t->patterns.item[p], loc, &deeper)
            && (deeper || recursive))
          {
            g_autofree char *kind = location_kind (c, loc);
            g_autofree char *where = ow_safety_display (c, loc);

            ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ, "reads %s, which reaches %s %s",
                               t->written, kind, where);
            return;
          }
      }
  if (!recursive)
    return;
  for (guint i = 0; i < t->real.len; i++)
    for (guint k = 0; ow_safety_location_at (c, k, loc, sizeof loc); k++)
      {
        const char *f = t->real.item[i];

        if (ow_safety_path_below (loc, f))
          {
            g_autofree char *kind = location_kind (c, loc);
            g_autofree char *where = ow_safety_display (c, f);
            g_autofree char *what = ow_safety_display (c, loc);

            ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ,
                               "reads everything under %s, including %s %s", where, kind, what);
            return;
          }
      }
}

void
ow_safety_judge_read (Check *c, const char *word, gboolean dynamic, gboolean recursive)
{
  g_autofree char *filled = dynamic && !c->file_tool ? ow_safety_substitute_vars (c, word) : NULL;
  Target t;

  ow_safety_target_init (c, &t, word, dynamic);
  judge_read_target (c, &t, recursive);
  ow_safety_target_clear (&t);
  if (filled != NULL)
    {
      ow_safety_target_init (c, &t, filled, TRUE);
      judge_read_target (c, &t, recursive);
      ow_safety_target_clear (&t);
    }
}

/* Remembers that @word of the current command is code, not a path. */
void
ow_safety_note_code_word (Check *c, const char *word)
{
  if (c->code_words == NULL)
    c->code_words = g_ptr_array_new ();
  g_ptr_array_add (c->code_words, (gpointer) word);
}

/* Inline code (python -c, perl -e, awk programs, …) is not parsed, but
 * naming a credential location in it is plain to see. */
void
ow_safety_judge_code_text (Check *c, const char *code, const char *language)
{
  /* the word is code, not a path: generic_reads leaves it alone */
  ow_safety_note_code_word (c, code);
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
          ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ,
                             "runs %s code that names %s, where credentials are kept", language,
                             markers[i]);
          return;
        }
    }
  for (guint i = 0; i < c->agent_dirs->len; i++)
    if (strstr (code, g_ptr_array_index (c->agent_dirs, i)) != NULL)
      {
        ow_safety_finding (c, OW_SAFETY_CREDENTIAL_READ,
                           "runs %s code that names %s, OpenWorker's own folder", language,
                           (const char *) g_ptr_array_index (c->agent_dirs, i));
        return;
      }
}
