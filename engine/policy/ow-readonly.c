/* ow-readonly.c: is this shell command read-only? (see ow-readonly.h)
 *
 * The command is split the way a POSIX shell splits words (quotes and
 * backslashes), with the operator characters ( ) ; < > | & as tokens of
 * their own when unquoted. Only "|" may separate stages; every other
 * operator makes the command not read-only, as does text this reader does
 * not follow (an unbalanced quote, `…`, $( ), <( ), >( ), a newline).
 */
#include "policy/ow-readonly.h"

#include <string.h>

typedef struct {
  char     *text;
  gboolean  op;   /* unquoted operator characters */
} Token;

static void
token_free (gpointer p)
{
  Token *t = p;

  g_free (t->text);
  g_free (t);
}

static void
push (GPtrArray *out, GString *word, gboolean *have, gboolean op)
{
  Token *t;

  if (!*have)
    return;
  t = g_new0 (Token, 1);
  t->text = g_strdup (word->str);
  t->op = op;
  g_ptr_array_add (out, t);
  g_string_truncate (word, 0);
  *have = FALSE;
}

/* NULL when the text is not split cleanly. */
static GPtrArray *
tokenize (const char *s)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (token_free);
  g_autoptr(GString) word = g_string_new (NULL);
  gboolean have = FALSE;

  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == ' ' || *p == '\t')
        push (out, word, &have, FALSE);
      else if (strchr ("();<>|&", *p) != NULL)   /* *p is not NUL here */
        {
          push (out, word, &have, FALSE);
          while (*p != '\0' && strchr ("();<>|&", *p) != NULL)
            {
              g_string_append_c (word, *p);
              p++;
            }
          p--;
          have = TRUE;
          push (out, word, &have, TRUE);
        }
      else if (*p == '\'')
        {
          const char *end = strchr (p + 1, '\'');
          if (end == NULL)
            return NULL;
          g_string_append_len (word, p + 1, end - p - 1);
          p = end;
          have = TRUE;
        }
      else if (*p == '"')
        {
          p++;
          while (*p != '"')
            {
              if (*p == '\0')
                return NULL;
              if (*p == '\\' && p[1] != '\0' && strchr ("\"\\$`", p[1]) != NULL)
                p++;
              g_string_append_c (word, *p);
              p++;
            }
          have = TRUE;
        }
      else if (*p == '\\')
        {
          if (p[1] == '\0')
            return NULL;
          p++;
          g_string_append_c (word, *p);
          have = TRUE;
        }
      else
        {
          g_string_append_c (word, *p);
          have = TRUE;
        }
    }
  push (out, word, &have, FALSE);
  return g_steal_pointer (&out);
}

static gboolean
in (const char *word, const char *const *list)
{
  return word != NULL && g_strv_contains (list, word);
}

static gboolean
is_assignment (const char *word)
{
  const char *p = word;

  if (!g_ascii_isalpha (*p) && *p != '_')
    return FALSE;
  while (g_ascii_isalnum (*p) || *p == '_')
    p++;
  return *p == '=';
}

/* ---- git ---- */

static gboolean
git_listing (char **argv, guint argc, const char *const *flags, const char *const *with_value,
             const char *const *listing)
{
  gboolean lists = FALSE;

  for (guint i = 0; i < argc; i++)
    if (in (argv[i], listing))
      lists = TRUE;
  for (guint i = 0; i < argc; i++)
    {
      if (in (argv[i], with_value))
        {
          i++;
          continue;
        }
      if (in (argv[i], flags) || g_str_has_prefix (argv[i], "--format=") || g_str_has_prefix (argv[i], "--sort=")
          || (g_str_has_prefix (argv[i], "-n") && argv[i][2] != '\0' && g_ascii_isdigit (argv[i][2])))
        continue;
      /* A name: with a listing flag it is a pattern, else it creates one. */
      if (argv[i][0] != '-' && lists)
        continue;
      return FALSE;
    }
  return TRUE;
}

static gboolean
git_ok (char **argv, guint argc)
{
  static const char *const reading[] = {
    "status", "log", "show", "diff", "blame", "shortlog", "describe", "rev-parse", "rev-list", "ls-files",
    "ls-tree", "grep", "cat-file", "name-rev", "merge-base", "count-objects", "var", "check-ignore", NULL,
  };
  static const char *const branch_flags[] = { "--show-current", "--list", "-l", "-a", "-r", "-v", "-vv",
                                              "--all", NULL };
  static const char *const tag_flags[] = { "-l", "--list", "-n", NULL };
  static const char *const value_flags[] = { "--contains", "--merged", "--no-merged", NULL };
  static const char *const branch_listing[] = { "--list", "-l", "--contains", "--merged", "--no-merged", NULL };
  static const char *const tag_listing[] = { "--list", "-l", "--contains", "--merged", NULL };
  static const char *const config_reads[] = { "--get", "--get-all", "--get-regexp", "--list", "-l", NULL };
  guint i = 1;
  const char *sub;
  char **rest;
  guint n_rest;

  while (i < argc && argv[i][0] == '-')
    {
      if (g_str_equal (argv[i], "-C") && i + 1 < argc)
        i += 2;
      else if (g_str_equal (argv[i], "--no-pager"))
        i++;
      else
        return FALSE;   /* -c sets any config, including programs to run */
    }
  if (i >= argc)
    return FALSE;
  for (guint j = i; j < argc; j++)
    if (g_str_has_prefix (argv[j], "--output"))
      return FALSE;
  sub = argv[i];
  rest = argv + i + 1;
  n_rest = argc - i - 1;
  if (in (sub, reading))
    return TRUE;
  if (g_str_equal (sub, "branch"))
    return git_listing (rest, n_rest, branch_flags, value_flags, branch_listing);
  if (g_str_equal (sub, "tag"))
    return n_rest > 0 && git_listing (rest, n_rest, tag_flags, value_flags, tag_listing);
  if (g_str_equal (sub, "stash"))
    return n_rest > 0 && (g_str_equal (rest[0], "list") || g_str_equal (rest[0], "show"));
  if (g_str_equal (sub, "remote"))
    return n_rest == 0 || g_str_equal (rest[0], "-v") || g_str_equal (rest[0], "show")
           || g_str_equal (rest[0], "get-url");
  if (g_str_equal (sub, "config"))
    {
      for (guint j = 0; j < n_rest; j++)
        if (in (rest[j], config_reads))
          return TRUE;
      return FALSE;
    }
  if (g_str_equal (sub, "reflog"))
    return n_rest == 0 || g_str_equal (rest[0], "show");
  return FALSE;
}

/* ---- sed ---- */

/* Skips a delimited part (the pattern or replacement of s, a /re/
 * address) starting just after its delimiter; NULL when unterminated. */
static const char *
skip_part (const char *p, char delim)
{
  while (*p != '\0' && *p != delim)
    {
      if (*p == '\\' && p[1] != '\0')
        p++;
      p++;
    }
  return *p == delim ? p + 1 : NULL;
}

/* Only commands that print or move through the input: no w/W (write a
 * file), no r/R (read one), no e (run a command), no s///w or s///e. */
static gboolean
sed_script_ok (const char *p)
{
  static const char printing[] = "pdDqQ=nNgGhHxlPz";

  while (*p != '\0')
    {
      /* addresses */
      for (;;)
        {
          if (g_ascii_isdigit (*p) || *p == '$' || *p == ',' || *p == '~' || *p == '+' || *p == '!'
              || *p == ' ' || *p == '\t' || *p == ';' || *p == '{' || *p == '}')
            p++;
          else if (*p == '/')
            {
              if ((p = skip_part (p + 1, '/')) == NULL)
                return FALSE;
              while (*p == 'I' || *p == 'M')
                p++;
            }
          else if (*p == '\\' && p[1] != '\0')
            {
              if ((p = skip_part (p + 2, p[1])) == NULL)
                return FALSE;
            }
          else
            break;
        }
      if (*p == '\0')
        return TRUE;
      if (*p == 's' || *p == 'y')
        {
          char cmd = *p;
          char delim = p[1];

          if (delim == '\0' || delim == '\\' || delim == '\n')
            return FALSE;
          if ((p = skip_part (p + 2, delim)) == NULL || (p = skip_part (p, delim)) == NULL)
            return FALSE;
          if (cmd == 's')
            while (*p != '\0' && strchr ("gpiImM0123456789", *p) != NULL)
              p++;
          continue;
        }
      if (strchr (printing, *p) == NULL)
        return FALSE;
      p++;
      while (g_ascii_isdigit (*p))   /* q5 */
        p++;
    }
  return TRUE;
}

static gboolean
sed_ok (char **argv, guint argc)
{
  gboolean script_given = FALSE;

  for (guint i = 1; i < argc; i++)
    {
      const char *a = argv[i];

      if (g_str_has_prefix (a, "--in-place") || g_str_has_prefix (a, "--file"))
        return FALSE;
      if (g_str_equal (a, "-e") || g_str_equal (a, "--expression"))
        {
          if (i + 1 >= argc || !sed_script_ok (argv[i + 1]))
            return FALSE;
          script_given = TRUE;
          i++;
        }
      else if (g_str_has_prefix (a, "--expression="))
        {
          if (!sed_script_ok (a + strlen ("--expression=")))
            return FALSE;
          script_given = TRUE;
        }
      else if (g_str_has_prefix (a, "--"))
        continue;
      else if (a[0] == '-' && a[1] != '\0')
        {
          /* a cluster such as -nE; -i and -f anywhere in it write or read
           * files, -e takes the script (fail closed: not followed here) */
          if (strpbrk (a + 1, "ife") != NULL)
            return FALSE;
        }
      else if (!script_given)
        {
          if (!sed_script_ok (a))
            return FALSE;
          script_given = TRUE;
        }
    }
  return script_given;
}

/* ---- one stage ---- */

static gboolean
stage_ok (char **argv, guint argc)
{
  static const char *const always[] = {
    "ls", "cat", "head", "tail", "wc", "nl", "sort", "uniq", "cut", "tr", "grep", "egrep", "fgrep", "rg", "ugrep",
    "file", "stat", "du", "df", "pwd", "echo", "printf", "which", "whoami", "id", "date", "uname", "basename",
    "dirname", "realpath", "readlink", "jq", "column", "diff", "comm", "strings", "md5sum", "shasum", "sha1sum",
    "sha256sum", "hexdump", "xxd", "od", "true", "false", "yamllint", "actionlint", NULL,
  };
  static const char *const awks[] = { "awk", "gawk", "mawk", "nawk", NULL };
  static const char *const find_writes[] = { "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint",
                                             "-fprint0", "-fls", "-fprintf", NULL };
  guint i = 0;
  const char *head;

  while (i < argc && is_assignment (argv[i]))
    i++;
  if (i >= argc)
    return FALSE;
  argv += i;
  argc -= i;
  head = argv[0];
  if (strchr (head, '/') != NULL)
    return FALSE;
  if (in (head, always))
    {
      guint operands = 0;

      for (guint j = 1; j < argc; j++)
        {
          /* sort -o writes its output to a file; rg --pre runs a program
           * on every file it searches */
          if (g_str_equal (head, "sort") && (g_str_has_prefix (argv[j], "-o") || g_str_has_prefix (argv[j], "--output")))
            return FALSE;
          if (g_str_equal (head, "rg") && g_str_has_prefix (argv[j], "--pre"))
            return FALSE;
          if (argv[j][0] != '-')
            operands++;
        }
      /* xxd IN OUT writes OUT */
      return !(g_str_equal (head, "xxd") && operands > 1);
    }
  if (g_str_equal (head, "env"))
    return argc == 1;
  if (g_str_equal (head, "command"))
    return argc >= 3 && (g_str_equal (argv[1], "-v") || g_str_equal (argv[1], "-V"));
  if (g_str_equal (head, "git"))
    return git_ok (argv, argc);
  if (g_str_equal (head, "sed"))
    return sed_ok (argv, argc);
  if (in (head, awks))
    {
      /* print > file, "cmd" | getline and system() reach outside */
      for (guint j = 1; j < argc; j++)
        if (strchr (argv[j], '>') != NULL || strchr (argv[j], '|') != NULL || strstr (argv[j], "system") != NULL)
          return FALSE;
      return TRUE;
    }
  if (g_str_equal (head, "find"))
    {
      for (guint j = 1; j < argc; j++)
        if (in (argv[j], find_writes))
          return FALSE;
      return TRUE;
    }
  return FALSE;
}

gboolean
ow_readonly_command (const char *command)
{
  g_autoptr(GPtrArray) tokens = NULL;
  g_autoptr(GPtrArray) stage = g_ptr_array_new ();

  if (command == NULL || strstr (command, "`") != NULL || strstr (command, "$(") != NULL
      || strstr (command, "<(") != NULL || strstr (command, ">(") != NULL || strpbrk (command, "\n\r") != NULL)
    return FALSE;
  tokens = tokenize (command);
  if (tokens == NULL || tokens->len == 0)
    return FALSE;
  for (guint i = 0; i <= tokens->len; i++)
    {
      Token *t = i < tokens->len ? g_ptr_array_index (tokens, i) : NULL;

      if (t != NULL && !t->op)
        {
          g_ptr_array_add (stage, t->text);
          continue;
        }
      if (t != NULL && !g_str_equal (t->text, "|"))
        return FALSE;
      if (stage->len == 0)
        return FALSE;
      g_ptr_array_add (stage, NULL);
      if (!stage_ok ((char **) stage->pdata, stage->len - 1))
        return FALSE;
      g_ptr_array_set_size (stage, 0);
    }
  return TRUE;
}
