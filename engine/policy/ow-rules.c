/* ow-rules.c: rules, rule sets and standing rules (see ow-rules.h). */
#define G_LOG_DOMAIN "ow-rules"

#include "policy/ow-rules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "policy/ow-shell.h"
#include "store/ow-db.h"

typedef enum {
  MATCH_ANY,      /* no pattern: every call of the tool */
  MATCH_ARGV,     /* run_shell: argv prefix of a plain command */
  MATCH_PATH,     /* file tools: a path glob */
  MATCH_TARGET,   /* a tool's declared target, exactly */
} MatchKind;

struct _OwRule
{
  char     *text;      /* as written */
  char     *tool;
  char     *pattern;   /* NULL for MATCH_ANY */
  MatchKind kind;
  GStrv     argv;      /* MATCH_ARGV: the prefix */
};

static const char *const path_tools[] = {
  "read_file", "write_file", "replace_in_file", "apply_patch", "list_files", "grep", NULL,
};

/* Tools whose calls go to someone, by the argument that names whom. */
static const struct {
  const char *tool;
  const char *arg;
} target_args[] = {
  { "send_message", "target" },
  { "send_file", "target" },
  { "email_send", "to" },
  { "gmail_send_email", "to" },
  { "outlook_send_mail", "to" },
  { "discord_send_message", "channel_id" },
  { "whatsapp_send_message", "to" },
  { "whatsapp_send_template", "to" },
};

/* The tool's own word first (an MCP or connector tool names its target
 * argument), then the table. */
static const char *
target_arg_of (const OwRuleCall *call)
{
  if (call->target_arg != NULL)
    return call->target_arg;
  for (gsize i = 0; i < G_N_ELEMENTS (target_args); i++)
    if (g_str_equal (target_args[i].tool, call->tool))
      return target_args[i].arg;
  return "target";
}

OwRule *
ow_rule_parse (const char *text, GError **error)
{
  g_autoptr(OwRule) rule = g_new0 (OwRule, 1);
  const char *colon;

  rule->text = g_strstrip (g_strdup (text != NULL ? text : ""));
  colon = strchr (rule->text, ':');
  rule->tool = colon != NULL ? g_strndup (rule->text, colon - rule->text) : g_strdup (rule->text);
  g_strstrip (rule->tool);
  if (*rule->tool == '\0' || strspn (rule->tool, "abcdefghijklmnopqrstuvwxyz0123456789_-.") != strlen (rule->tool))
    {
      g_set_error (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED,
                   "The rule \"%s\" must start with a tool name (letters, digits, _ - .), like run_shell:git status.",
                   text);
      return NULL;
    }
  if (colon != NULL)
    rule->pattern = g_strstrip (g_strdup (colon + 1));
  if (rule->pattern == NULL || *rule->pattern == '\0')
    {
      g_clear_pointer (&rule->pattern, g_free);
      rule->kind = MATCH_ANY;
      return g_steal_pointer (&rule);
    }
  if (g_str_equal (rule->tool, "run_shell"))
    {
      rule->kind = MATCH_ARGV;
      rule->argv = ow_shell_split_plain (rule->pattern);
      if (rule->argv == NULL || rule->argv[0] == NULL)
        {
          g_set_error (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED,
                       "The rule \"%s\" names a shell command that is not a single plain command; "
                       "rules match a program and its first arguments, like run_shell:git status.", text);
          return NULL;
        }
    }
  else if (g_strv_contains (path_tools, rule->tool))
    rule->kind = MATCH_PATH;
  else
    rule->kind = MATCH_TARGET;
  return g_steal_pointer (&rule);
}

void
ow_rule_free (OwRule *rule)
{
  if (rule == NULL)
    return;
  g_free (rule->text);
  g_free (rule->tool);
  g_free (rule->pattern);
  g_strfreev (rule->argv);
  g_free (rule);
}

const char *
ow_rule_get_text (const OwRule *rule)
{
  return rule->text;
}

const char *
ow_rule_get_tool (const OwRule *rule)
{
  return rule->tool;
}

/* ---- Paths -------------------------------------------------------------- */

/* @path made absolute against @base, `.` and `..` removed, and symlinks of
 * its longest existing prefix resolved — so a rule about a folder cannot be
 * met by a path that only looks inside it. */
static char *
canonical_path (const char *base, const char *path)
{
  g_autofree char *abs = NULL;
  g_autoptr(GString) rest = g_string_new (NULL);
  g_autofree char *prefix = NULL;

  if (path[0] == '~' && (path[1] == '/' || path[1] == '\0'))
    abs = g_build_filename (g_get_home_dir (), path + 1, NULL);
  else
    abs = g_canonicalize_filename (path, base);
  prefix = g_strdup (abs);
  for (;;)
    {
      char *real = realpath (prefix, NULL);
      if (real != NULL)
        {
          char *out = g_strconcat (real, g_str_equal (real, "/") && rest->len > 0 ? rest->str + 1 : rest->str, NULL);
          free (real);
          return out;
        }
      {
        char *slash = strrchr (prefix, '/');
        if (slash == NULL || slash == prefix)
          return g_steal_pointer (&abs);
        g_string_prepend (rest, slash);
        *slash = '\0';
      }
    }
}

/* Glob over paths: `*` and `?` stay within one folder, `**` crosses them,
 * `[…]` is a set. */
static gboolean
glob_match (const char *p, const char *s)
{
  while (*p != '\0')
    {
      if (p[0] == '*' && p[1] == '*')
        {
          p += 2;
          if (*p == '/')
            p++;
          for (const char *t = s;; t++)
            {
              if (glob_match (p, t))
                return TRUE;
              if (*t == '\0')
                return FALSE;
            }
        }
      if (*p == '*')
        {
          p++;
          for (const char *t = s;; t++)
            {
              if (glob_match (p, t))
                return TRUE;
              if (*t == '\0' || *t == '/')
                return FALSE;
            }
        }
      if (*s == '\0')
        return FALSE;
      if (*p == '?')
        {
          if (*s == '/')
            return FALSE;
        }
      else if (*p == '[')
        {
          const char *q = p + 1;
          gboolean neg = *q == '!' || *q == '^', hit = FALSE;
          if (neg)
            q++;
          for (; *q != '\0' && *q != ']'; q++)
            {
              if (q[1] == '-' && q[2] != '\0' && q[2] != ']')
                {
                  hit = hit || (*s >= q[0] && *s <= q[2]);
                  q += 2;
                }
              else
                hit = hit || *s == *q;
            }
          if (*q != ']' || hit == neg || *s == '/')
            return FALSE;
          p = q;
        }
      else if (*p != *s)
        return FALSE;
      p++;
      s++;
    }
  return *s == '\0';
}

/* Facts about one call, computed once for all the rules checked. */
struct _OwRuleCallCache
{
  gboolean      parsed;     /* parse below is set (run_shell) */
  OwShellParse *parse;      /* the command, or NULL */
  gboolean      plain;      /* one plain command */
  GPtrArray    *programs;   /* char*: basenames of every program the command line may run (deny) */
  gboolean      unreadable; /* with programs: some inner command line cannot be read (deny) */
  GPtrArray    *paths;      /* char*: canonical paths the call touches, or NULL until computed */
};

void
ow_rule_call_clear (OwRuleCall *call)
{
  if (call->cache == NULL)
    return;
  g_clear_pointer (&call->cache->parse, ow_shell_parse_free);
  g_clear_pointer (&call->cache->programs, g_ptr_array_unref);
  g_clear_pointer (&call->cache->paths, g_ptr_array_unref);
  g_clear_pointer (&call->cache, g_free);
}

static OwRuleCallCache *
cache_of (const OwRuleCall *call)
{
  OwRuleCall *c = (OwRuleCall *) call;

  if (c->cache == NULL)
    c->cache = g_new0 (OwRuleCallCache, 1);
  return c->cache;
}

static OwShellParse *
call_parse (const OwRuleCall *call)
{
  OwRuleCallCache *cache = cache_of (call);

  if (!cache->parsed)
    {
      const char *command = ow_json_get_string (call->args, "command");
      cache->parsed = TRUE;
      cache->parse = command != NULL ? ow_shell_parse (command) : NULL;
      cache->plain = cache->parse != NULL && ow_shell_parse_is_plain (cache->parse, FALSE);
    }
  return cache->parse;
}

const OwShellParse *
ow_rule_call_get_parse (const OwRuleCall *call)
{
  return g_strcmp0 (call->tool, "run_shell") == 0 ? call_parse (call) : NULL;
}

/* The canonical paths a file tool call touches. */
static GPtrArray *call_paths_uncached (const OwRuleCall *call);

static GPtrArray *
call_paths (const OwRuleCall *call)
{
  OwRuleCallCache *cache = cache_of (call);

  if (cache->paths == NULL)
    cache->paths = call_paths_uncached (call);
  return cache->paths;
}

static GPtrArray *
call_paths_uncached (const OwRuleCall *call)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *base = call->workspace != NULL ? call->workspace : "/";

  if (g_str_equal (call->tool, "apply_patch"))
    {
      const char *patch = ow_json_get_string (call->args, "patch");
      g_auto(GStrv) lines = patch != NULL ? g_strsplit (patch, "\n", -1) : NULL;
      static const char *const markers[] = {
        "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ",
      };
      for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
        for (gsize m = 0; m < G_N_ELEMENTS (markers); m++)
          if (g_str_has_prefix (lines[i], markers[m]))
            {
              g_autofree char *p = g_strstrip (g_strdup (lines[i] + strlen (markers[m])));
              g_ptr_array_add (paths, canonical_path (base, p));
            }
      return paths;
    }
  {
    const char *p = ow_json_get_string (call->args, "path");
    if (p == NULL && (g_str_equal (call->tool, "list_files") || g_str_equal (call->tool, "grep")))
      p = ".";
    if (p != NULL)
      g_ptr_array_add (paths, canonical_path (base, p));
  }
  return paths;
}

gboolean
ow_rule_matches (const OwRule *rule, const OwRuleCall *call)
{
  if (!g_str_equal (rule->tool, call->tool))
    return FALSE;
  switch (rule->kind)
    {
    case MATCH_ANY:
      return TRUE;
    case MATCH_ARGV:
      {
        OwShellParse *parse = call_parse (call);
        OwShellCommand *cmd;
        /* Chaining, pipes, redirection, substitution, newlines: never matched. */
        if (parse == NULL || !call->cache->plain)
          return FALSE;
        cmd = g_ptr_array_index (parse->commands, 0);
        return ow_shell_argv_has_prefix ((const char *const *) cmd->argv, (const char *const *) rule->argv);
      }
    case MATCH_PATH:
      {
        GPtrArray *paths = call_paths (call);
        g_autofree char *pattern = NULL;
        if (paths->len == 0)
          return FALSE;
        pattern = rule->pattern[0] == '/' || rule->pattern[0] == '~'
                    ? canonical_path ("/", rule->pattern)
                    : g_build_filename (call->workspace != NULL ? call->workspace : "/", rule->pattern, NULL);
        /* Every path the call touches must be covered. */
        for (guint i = 0; i < paths->len; i++)
          if (!glob_match (pattern, g_ptr_array_index (paths, i)))
            return FALSE;
        return TRUE;
      }
    case MATCH_TARGET:
    default:
      {
        const char *target = ow_json_get_string (call->args, target_arg_of (call));
        return target != NULL && g_str_equal (target, rule->pattern);
      }
    }
}

/* Deny rules match a shell command if ANY program it would run matches:
 * inside chains, pipes, substitutions and subshells, behind wrappers like
 * sudo or env, by basename (/bin/rm is rm), and inside sh -c / bash -c /
 * eval strings. A command the parser cannot read matches when any of its
 * words is the rule's program — an unreadable command gets no benefit of
 * the doubt. */
static gboolean argv_deny_match (const OwRule *rule, const char *command, int depth);

static gboolean
words_match_from (const OwRule *rule, char **argv, guint start)
{
  g_autofree char *base = NULL;
  guint n = g_strv_length (argv);

  if (start >= n)
    return FALSE;
  base = g_path_get_basename (argv[start]);
  if (!g_str_equal (base, rule->argv[0]))
    return FALSE;
  for (guint i = 1; rule->argv[i] != NULL; i++)
    if (start + i >= n || !g_str_equal (argv[start + i], rule->argv[i]))
      return FALSE;
  return TRUE;
}

static gboolean
command_deny_match (const OwRule *rule, OwShellCommand *cmd, int depth)
{
  guint start = 0;
  const char *program;

  if (cmd->argv == NULL || cmd->argv[0] == NULL)
    return FALSE;
  if (words_match_from (rule, cmd->argv, 0))
    return TRUE;
  program = ow_shell_command_program (cmd, &start);
  if (program != NULL && start > 0 && words_match_from (rule, cmd->argv, start - 1))
    return TRUE;
  {
    /* sh -c 'STRING', bash -c …, eval STRING…: read the string too; one
     * nested too deep to read is refused, not waved through. */
    g_autofree char *inner = ow_shell_inner_command (cmd, NULL);

    if (inner == NULL)
      return FALSE;
    if (depth >= OW_SHELL_MAX_NESTING)
      return TRUE;
    return argv_deny_match (rule, inner, depth + 1);
  }
}

static gboolean
argv_deny_match (const OwRule *rule, const char *command, int depth)
{
  g_autoptr(OwShellParse) parse = ow_shell_parse (command);

  if (parse->features & OW_SHELL_PARSE_ERROR)
    {
      g_auto(GStrv) words = g_regex_split_simple ("[\\s;&|()<>`$\"'{}]+", command, 0, 0);
      for (guint i = 0; words[i] != NULL; i++)
        {
          g_autofree char *base = g_path_get_basename (words[i]);
          if (*words[i] != '\0' && g_str_equal (base, rule->argv[0]))
            return TRUE;
        }
      return FALSE;
    }
  for (guint i = 0; i < parse->commands->len; i++)
    if (command_deny_match (rule, g_ptr_array_index (parse->commands, i), depth))
      return TRUE;
  return FALSE;
}

gboolean
ow_rule_matches_deny (const OwRule *rule, const OwRuleCall *call)
{
  OwShellParse *parse;
  const char *command;

  if (rule->kind != MATCH_ARGV)
    return ow_rule_matches (rule, call);
  if (!g_str_equal (rule->tool, call->tool))
    return FALSE;
  command = ow_json_get_string (call->args, "command");
  parse = call_parse (call);
  if (command == NULL || parse == NULL)
    return FALSE;
  if (parse->features & OW_SHELL_PARSE_ERROR)
    return argv_deny_match (rule, command, 0);
  for (guint i = 0; i < parse->commands->len; i++)
    if (command_deny_match (rule, g_ptr_array_index (parse->commands, i), 0))
      return TRUE;
  return FALSE;
}

/* Basenames of every program @parse may run (behind wrappers, inside sh -c
 * strings), for looking up deny rules by program. Sets *@unreadable when
 * an inner command line cannot be read or is nested too deep: then every
 * shell deny rule is a candidate. */
static void
collect_programs (OwShellParse *parse, GPtrArray *out, int depth, gboolean *unreadable)
{
  if (parse->features & OW_SHELL_PARSE_ERROR)
    {
      *unreadable = TRUE;
      return;
    }
  for (guint i = 0; i < parse->commands->len; i++)
    {
      OwShellCommand *cmd = g_ptr_array_index (parse->commands, i);
      g_autofree char *inner = NULL;
      const char *program;

      if (cmd->argv == NULL || cmd->argv[0] == NULL)
        continue;
      g_ptr_array_add (out, g_path_get_basename (cmd->argv[0]));
      program = ow_shell_command_program (cmd, NULL);
      if (program == NULL)
        continue;
      g_ptr_array_add (out, g_path_get_basename (program));
      inner = ow_shell_inner_command (cmd, NULL);
      if (inner == NULL)
        continue;
      if (depth >= OW_SHELL_MAX_NESTING)
        *unreadable = TRUE;
      else
        {
          g_autoptr(OwShellParse) nested = ow_shell_parse (inner);

          collect_programs (nested, out, depth + 1, unreadable);
        }
    }
}

char *
ow_rule_suggest (const OwRuleCall *call)
{
  if (g_str_equal (call->tool, "run_shell"))
    {
      const char *command = ow_json_get_string (call->args, "command");
      g_autofree char *trimmed = NULL;
      if (call_parse (call) == NULL || !call->cache->plain)
        return NULL;
      trimmed = g_strstrip (g_strdup (command));
      return g_strdup_printf ("run_shell:%s", trimmed);
    }
  if (g_strv_contains (path_tools, call->tool))
    {
      GPtrArray *paths = call_paths (call);
      if (paths->len != 1)
        return NULL;
      return g_strdup_printf ("%s:%s", call->tool, (char *) g_ptr_array_index (paths, 0));
    }
  {
    const char *target = ow_json_get_string (call->args, target_arg_of (call));
    if (target != NULL)
      return g_strdup_printf ("%s:%s", call->tool, target);
  }
  return g_strdup (call->tool);
}

/* ---- Rule sets ---------------------------------------------------------- */

/* Rules are indexed so a decision looks only at rules that could match:
 * shell rules by program, path rules by the literal folder before their
 * first wildcard, target rules by the exact target. Hundreds of standing
 * rules then cost a few hash lookups per call. */

typedef struct {
  OwRule *rule;
  char   *tag;
} Entry;

static void
entry_free (Entry *e)
{
  ow_rule_free (e->rule);
  g_free (e->tag);
  g_free (e);
}

struct _OwRuleSet
{
  gboolean    deny;     /* match deny-style: any part of a shell command */
  GHashTable *index;    /* key (see index_key) → GPtrArray of Entry* */
  GString    *key;      /* scratch for building lookup keys (sets are used on one thread) */
  GPtrArray  *all;      /* every Entry* (owns them) */
};

OwRuleSet *
ow_rule_set_new (void)
{
  OwRuleSet *set = g_new0 (OwRuleSet, 1);

  set->index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  set->all = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  set->key = g_string_sized_new (256);
  return set;
}

OwRuleSet *
ow_rule_set_new_deny (void)
{
  OwRuleSet *set = ow_rule_set_new ();

  set->deny = TRUE;
  return set;
}

void
ow_rule_set_free (OwRuleSet *set)
{
  if (set == NULL)
    return;
  g_hash_table_unref (set->index);
  g_string_free (set->key, TRUE);
  g_ptr_array_unref (set->all);
  g_free (set);
}

static void
bucket_add (GHashTable *table, char *key, Entry *e)
{
  GPtrArray *list = g_hash_table_lookup (table, key);

  if (list == NULL)
    {
      list = g_ptr_array_new ();
      g_hash_table_insert (table, key, list);
    }
  else
    g_free (key);
  g_ptr_array_add (list, e);
}

/* The folder part of a path pattern before its first wildcard, ending in '/'. */
static char *
literal_dir (const char *pattern)
{
  const char *wild = strpbrk (pattern, "*?[");
  const char *end = wild != NULL ? wild : pattern + strlen (pattern);
  const char *slash = NULL;

  for (const char *p = pattern; p < end; p++)
    if (*p == '/')
      slash = p;
  return slash != NULL ? g_strndup (pattern, slash - pattern + 1) : g_strdup ("");
}

static char *
rule_key (const OwRuleSet *set, const OwRule *rule)
{
  switch (rule->kind)
    {
    case MATCH_ARGV:
      {
        g_autofree char *prog = set->deny ? g_path_get_basename (rule->argv[0]) : g_strdup (rule->argv[0]);
        return g_strdup_printf ("argv\x1f%s\x1f%s", rule->tool, prog);
      }
    case MATCH_PATH:
      {
        if (rule->pattern[0] == '/' || rule->pattern[0] == '~')
          {
            g_autofree char *abs = canonical_path ("/", rule->pattern);
            g_autofree char *dir = literal_dir (abs);
            return g_strdup_printf ("abs\x1f%s\x1f%s", rule->tool, dir);
          }
        {
          g_autofree char *dir = literal_dir (rule->pattern);
          return g_strdup_printf ("rel\x1f%s\x1f%s", rule->tool, dir);
        }
      }
    case MATCH_TARGET:
      return g_strdup_printf ("target\x1f%s\x1f%s", rule->tool, rule->pattern);
    case MATCH_ANY:
    default:
      return g_strdup_printf ("any\x1f%s", rule->tool);
    }
}

void
ow_rule_set_add (OwRuleSet *set, OwRule *rule, const char *tag)
{
  Entry *e = g_new0 (Entry, 1);

  e->rule = rule;
  e->tag = g_strdup (tag);
  g_ptr_array_add (set->all, e);
  bucket_add (set->index, rule_key (set, rule), e);
}

guint
ow_rule_set_size (OwRuleSet *set)
{
  return set->all->len;
}

static const char *
check_bucket (OwRuleSet *set, const char *key, const OwRuleCall *call, const char **rule_text)
{
  GPtrArray *list = g_hash_table_lookup (set->index, key);

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      Entry *e = g_ptr_array_index (list, i);
      if (set->deny ? ow_rule_matches_deny (e->rule, call) : ow_rule_matches (e->rule, call))
        {
          if (rule_text != NULL)
            *rule_text = e->rule->text;
          return e->tag;
        }
    }
  return NULL;
}

/* "kind\x1ftool\x1frest" in the set's scratch buffer (@rest_len < 0: all). */
static const char *
lookup_key (OwRuleSet *set, const char *kind, const char *tool, const char *rest, gssize rest_len)
{
  g_string_assign (set->key, kind);
  g_string_append_c (set->key, '\x1f');
  g_string_append (set->key, tool);
  if (rest != NULL)
    {
      g_string_append_c (set->key, '\x1f');
      g_string_append_len (set->key, rest, rest_len);
    }
  return set->key->str;
}

/* Looks up every folder prefix of @path ("", "a/", "a/b/", … or "/", "/a/", …). */
static const char *
check_dirs (OwRuleSet *set, const char *kind, const char *tool, const char *path, const OwRuleCall *call,
            const char **rule_text)
{
  const char *tag;

  for (const char *p = path;; p++)
    {
      if (p == path || p[-1] == '/')
        {
          const char *key = lookup_key (set, kind, tool, path, p - path);
          if ((tag = check_bucket (set, key, call, rule_text)) != NULL)
            return tag;
        }
      if (*p == '\0')
        return NULL;
    }
}

const char *
ow_rule_set_match (OwRuleSet *set, const OwRuleCall *call, const char **rule_text)
{
  const char *tag;

  if (set->all->len == 0)
    return NULL;
  if ((tag = check_bucket (set, lookup_key (set, "any", call->tool, NULL, 0), call, rule_text)) != NULL)
    return tag;

  if (g_str_equal (call->tool, "run_shell"))
    {
      OwShellParse *parse = call_parse (call);
      OwRuleCallCache *cache = call->cache;

      if (parse == NULL)
        return NULL;
      if (!set->deny)
        {
          if (!cache->plain)
            return NULL;
          return check_bucket (set, lookup_key (set, "argv", call->tool,
                                                ((OwShellCommand *) g_ptr_array_index (parse->commands, 0))->argv[0], -1),
                               call, rule_text);
        }
      if (cache->programs == NULL)
        {
          cache->programs = g_ptr_array_new_with_free_func (g_free);
          collect_programs (parse, cache->programs, 0, &cache->unreadable);
        }
      if (cache->unreadable)
        {
          /* Unreadable: every shell deny rule is a candidate. */
          GHashTableIter iter;
          gpointer k, v;
          g_hash_table_iter_init (&iter, set->index);
          while (g_hash_table_iter_next (&iter, &k, &v))
            if (g_str_has_prefix (k, "argv\x1f") && (tag = check_bucket (set, k, call, rule_text)) != NULL)
              return tag;
          return NULL;
        }
      for (guint i = 0; i < cache->programs->len; i++)
        {
          const char *k = lookup_key (set, "argv", call->tool, g_ptr_array_index (cache->programs, i), -1);
          if ((tag = check_bucket (set, k, call, rule_text)) != NULL)
            return tag;
        }
      return NULL;
    }

  if (g_strv_contains (path_tools, call->tool))
    {
      GPtrArray *paths = call_paths (call);
      const char *p0;

      if (paths->len == 0)
        return NULL;
      p0 = g_ptr_array_index (paths, 0);
      if ((tag = check_dirs (set, "abs", call->tool, p0, call, rule_text)) != NULL)
        return tag;
      if (call->workspace != NULL)
        {
          gsize n = strlen (call->workspace);
          if (strncmp (p0, call->workspace, n) == 0 && p0[n] == '/')
            return check_dirs (set, "rel", call->tool, p0 + n + 1, call, rule_text);
        }
      return NULL;
    }

  {
    const char *target = ow_json_get_string (call->args, target_arg_of (call));
    if (target == NULL)
      return NULL;
    return check_bucket (set, lookup_key (set, "target", call->tool, target, -1), call, rule_text);
  }
}

/* ---- Standing rules ----------------------------------------------------- */

void
ow_standing_rule_free (OwStandingRule *r)
{
  if (r == NULL)
    return;
  g_free (r->rule);
  g_free (r->decision);
  g_free (r->created_at);
  g_free (r->created_by);
  g_free (r->session_id);
  g_free (r->reason);
  g_free (r->expires_at);
  g_free (r->revoked_at);
  g_free (r);
}

static gint64 local_writes;

static void
bind_text (sqlite3_stmt *stmt, int i, const char *value)
{
  if (value == NULL)
    sqlite3_bind_null (stmt, i);
  else
    sqlite3_bind_text (stmt, i, value, -1, SQLITE_TRANSIENT);
}

gint64
ow_standing_rules_add (OwStore *store, const char *rule, const char *decision, const char *created_by,
                       const char *session_id, const char *reason, const char *expires_at, GError **error)
{
  OwDb *db = ow_store_get_db (store);
  g_autoptr(OwRule) parsed = ow_rule_parse (rule, error);
  sqlite3_stmt *stmt;

  if (parsed == NULL)
    return 0;
  if (!g_str_equal (decision, "allow") && !g_str_equal (decision, "deny"))
    {
      g_set_error (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED, "A standing rule is allow or deny, not \"%s\".",
                   decision);
      return 0;
    }
  if (expires_at != NULL)
    {
      g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
      g_autoptr(GDateTime) dt = g_date_time_new_from_iso8601 (expires_at, utc);
      if (dt == NULL)
        {
          g_set_error (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED,
                       "The expiry \"%s\" is not an ISO 8601 date and time.", expires_at);
          return 0;
        }
    }
  stmt = ow_db_prepare (db,
    "INSERT INTO standing_rules (rule, decision, created_by, session_id, reason, expires_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", error);
  if (stmt == NULL)
    return 0;
  bind_text (stmt, 1, ow_rule_get_text (parsed));
  bind_text (stmt, 2, decision);
  bind_text (stmt, 3, created_by);
  bind_text (stmt, 4, session_id);
  bind_text (stmt, 5, reason);
  bind_text (stmt, 6, expires_at);
  if (!ow_db_step_done (db, stmt, error))
    return 0;
  local_writes++;
  return sqlite3_last_insert_rowid (ow_db_handle (db));
}

gboolean
ow_standing_rules_revoke (OwStore *store, gint64 id, GError **error)
{
  OwDb *db = ow_store_get_db (store);
  sqlite3_stmt *stmt = ow_db_prepare (db,
    "UPDATE standing_rules SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    " WHERE id = ?1 AND revoked_at IS NULL", error);

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, id);
  if (!ow_db_step_done (db, stmt, error))
    return FALSE;
  if (sqlite3_changes (ow_db_handle (db)) == 0)
    {
      g_set_error (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED,
                   "There is no standing rule #%" G_GINT64_FORMAT " in force.", id);
      return FALSE;
    }
  local_writes++;
  return TRUE;
}

static char *
dup_col (sqlite3_stmt *stmt, int i)
{
  const unsigned char *t = sqlite3_column_text (stmt, i);
  return t != NULL ? g_strdup ((const char *) t) : NULL;
}

GPtrArray *
ow_standing_rules_list (OwStore *store, GError **error)
{
  OwDb *db = ow_store_get_db (store);
  sqlite3_stmt *stmt = ow_db_prepare (db,
    "SELECT id, rule, decision, created_at, created_by, session_id, reason, expires_at, revoked_at"
    " FROM standing_rules ORDER BY id DESC", error);
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_standing_rule_free);
  int rc;

  if (stmt == NULL)
    return NULL;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      OwStandingRule *r = g_new0 (OwStandingRule, 1);
      r->id = sqlite3_column_int64 (stmt, 0);
      r->rule = dup_col (stmt, 1);
      r->decision = dup_col (stmt, 2);
      r->created_at = dup_col (stmt, 3);
      r->created_by = dup_col (stmt, 4);
      r->session_id = dup_col (stmt, 5);
      r->reason = dup_col (stmt, 6);
      r->expires_at = dup_col (stmt, 7);
      r->revoked_at = dup_col (stmt, 8);
      g_ptr_array_add (out, r);
    }
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    {
      ow_db_set_error (db, rc, "read standing rules", error);
      return NULL;
    }
  return g_steal_pointer (&out);
}

gint64
ow_standing_rules_version (OwStore *store)
{
  sqlite3_stmt *stmt = ow_db_prepare (ow_store_get_db (store), "PRAGMA data_version", NULL);
  gint64 v = 0;

  if (stmt != NULL && sqlite3_step (stmt) == SQLITE_ROW)
    v = sqlite3_column_int64 (stmt, 0);
  if (stmt != NULL)
    sqlite3_reset (stmt);
  /* data_version moves with other connections' commits; our own writes are
   * counted here. */
  return v * 1000003 + local_writes;
}
