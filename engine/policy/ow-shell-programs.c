/* ow-shell-programs.c: which program a simple command runs (see ow-shell.h).
 *
 * Looks through the wrappers that run their arguments as a command (sudo,
 * env, nice, timeout, xargs, busybox, …) to the program itself, and finds
 * the command lines that shells and eval run (sh -c STRING, eval WORDS):
 * the one descent that deny rules, hard floors and the safety checks
 * share.
 */
#define G_LOG_DOMAIN "ow-shell"

#include "policy/ow-shell-private.h"

#include <string.h>

/* ---- programs behind wrappers ---- */

/* A program that runs its arguments as a command, and how to step over
 * its own options to find that command. */
typedef struct {
  const char        *name;         /* its basename */
  const char        *short_args;   /* short options that take the next word (or the rest
                                    * of the cluster) */
  const char *const *long_args;    /* long options that take the next word unless written
                                    * --opt=value */
  guint              positional;   /* words before the command that are not options
                                    * (timeout's duration) */
  gboolean           assignments;  /* NAME=value words before the command are the
                                    * wrapper's (env, sudo) */
  const char        *stop_flags;   /* short options after which nothing is run (command -v) */
} Wrapper;

static const char *const sudo_long[] = { "close-from", "chdir", "group", "host", "prompt", "chroot",
                                         "role", "type", "command-timeout", "other-user", "user",
                                         NULL };
static const char *const env_long[] = { "unset", "chdir", "split-string", NULL };
static const char *const nice_long[] = { "adjustment", NULL };
static const char *const time_long[] = { "format", "output", NULL };
static const char *const timeout_long[] = { "kill-after", "signal", NULL };
static const char *const stdbuf_long[] = { "input", "output", "error", NULL };
static const char *const xargs_long[] = { "arg-file", "delimiter", "max-args", "max-procs",
                                          "max-chars", "process-slot-var", NULL };
static const char *const ionice_long[] = { "class", "classdata", "pid", "pgid", "uid", NULL };
static const char *const strace_long[] = { "output", "expr", "attach", "user", "env", "trace-path",
                                           NULL };
static const char *const none_long[] = { NULL };

static const Wrapper wrappers[] = {
  { "sudo", "CDgpRrtTUu", sudo_long, 0, TRUE, NULL },
  { "doas", "uC", none_long, 0, FALSE, NULL },
  { "env", "uC", env_long, 0, TRUE, "S" },
  { "nice", "n", nice_long, 0, FALSE, NULL },
  { "nohup", "", none_long, 0, FALSE, NULL },
  { "time", "fo", time_long, 0, FALSE, NULL },
  { "timeout", "ks", timeout_long, 1, FALSE, NULL },
  { "stdbuf", "ioe", stdbuf_long, 0, FALSE, NULL },
  { "xargs", "aEIdLnPs", xargs_long, 0, FALSE, NULL },
  { "command", "", none_long, 0, FALSE, "vV" },
  { "exec", "a", none_long, 0, FALSE, NULL },
  { "builtin", "", none_long, 0, FALSE, NULL },
  { "busybox", "", none_long, 0, FALSE, NULL },
  { "toybox", "", none_long, 0, FALSE, NULL },
  { "ionice", "cnpPu", ionice_long, 0, FALSE, NULL },
  { "setsid", "", none_long, 0, FALSE, NULL },
  { "pkexec", "", none_long, 0, FALSE, NULL },
  { "unbuffer", "", none_long, 0, FALSE, NULL },
  { "chronic", "", none_long, 0, FALSE, NULL },
  { "nocache", "", none_long, 0, FALSE, NULL },
  { "strace", "abeEIoOpPsSuUX", strace_long, 0, FALSE, NULL },
};

static const char *
base_name (const char *word)
{
  const char *slash = strrchr (word, '/');

  return slash != NULL ? slash + 1 : word;
}

static const Wrapper *
find_wrapper (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (wrappers); i++)
    if (strcmp (wrappers[i].name, name) == 0)
      return &wrappers[i];
  return NULL;
}

static gboolean
in_list (const char *const *list, const char *word, gsize len)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (strlen (list[i]) == len && strncmp (list[i], word, len) == 0)
      return TRUE;
  return FALSE;
}

/* Steps over @w's options from @i; sets *@stop when the wrapper runs
 * nothing (command -v, env -S whose command is in a string). */
static guint
skip_wrapper_options (const Wrapper *w, const char *const *argv, guint i, gboolean *stop)
{
  guint positional = w->positional;

  *stop = FALSE;
  while (argv[i] != NULL)
    {
      const char *a = argv[i];

      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (a[0] == '-' && a[1] == '-' && a[2] != '\0')
        {
          const char *eq = strchr (a + 2, '=');
          gsize n = eq != NULL ? (gsize) (eq - (a + 2)) : strlen (a + 2);

          if (strcmp (w->name, "env") == 0 && n == strlen ("split-string")
              && strncmp (a + 2, "split-string", n) == 0)
            {
              *stop = TRUE;
              return i;
            }
          i++;
          if (eq == NULL && in_list (w->long_args, a + 2, n) && argv[i] != NULL)
            i++;
          continue;
        }
      if (a[0] == '-' && a[1] != '\0')
        {
          gboolean takes_next = FALSE;

          /* nice -10, nice -n 10 */
          if (strcmp (w->name, "nice") == 0 && (ow_shell_is_digit ((guchar) a[1]) || a[1] == '+'))
            {
              i++;
              continue;
            }
          for (const char *c = a + 1; *c != '\0'; c++)
            {
              if (w->stop_flags != NULL && strchr (w->stop_flags, *c) != NULL)
                {
                  *stop = TRUE;
                  return i;
                }
              if (strchr (w->short_args, *c) != NULL)
                {
                  takes_next = c[1] == '\0';
                  break;
                }
            }
          i++;
          if (takes_next && argv[i] != NULL)
            i++;
          continue;
        }
      if (w->assignments && ow_shell_is_assignment (a, strlen (a)))
        {
          i++;
          continue;
        }
      if (strcmp (w->name, "env") == 0 && strcmp (a, "-") == 0)
        {
          i++;
          continue;
        }
      if (positional > 0)
        {
          positional--;
          i++;
          continue;
        }
      break;
    }
  return i;
}

const char *
ow_shell_command_program (const OwShellCommand *cmd, guint *args_start)
{
  const char *last = NULL;
  guint i = 0, dummy;

  if (args_start == NULL)
    args_start = &dummy;
  *args_start = 0;
  if (cmd == NULL || cmd->argv == NULL)
    return NULL;
  while (cmd->argv[i] != NULL)
    {
      const char *name = base_name (cmd->argv[i]);
      const Wrapper *w = find_wrapper (name);
      gboolean stop;

      if (w == NULL)
        {
          *args_start = i + 1;
          return name;
        }
      last = name;
      i = skip_wrapper_options (w, (const char *const *) cmd->argv, i + 1, &stop);
      if (stop)
        {
          *args_start = i;
          return name;
        }
    }
  *args_start = i;
  return last;
}

/* ---- command lines inside command lines ---- */

static const char *const shells[] = {
  "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh", "rbash",
  NULL,
};

gboolean
ow_shell_is_shell (const char *program)
{
  return program != NULL && g_strv_contains (shells, program);
}

/* Reads a shell's options from argv[*i] on: sets *command (-c) and
 * *from_stdin (-s, -), and leaves *i at the first operand. Stops at a
 * word whose value is not known unless @past_dynamic, and then records
 * the first such word in *dynamic_at. */
static void
scan_shell_options (const OwShellCommand *cmd, guint *i, gboolean past_dynamic, gboolean *command,
                    gboolean *from_stdin, guint *dynamic_at)
{
  const char *const *argv = (const char *const *) cmd->argv;

  while (argv[*i] != NULL)
    {
      const char *a = argv[*i];

      if (cmd->dynamic[*i])
        {
          if (!past_dynamic)
            break;
          if (*dynamic_at == G_MAXUINT)
            *dynamic_at = *i;
          (*i)++;
          continue;
        }
      if (strcmp (a, "--") == 0 || strcmp (a, "-") == 0)
        {
          (*i)++;
          if (strcmp (a, "-") == 0)
            *from_stdin = TRUE;
          break;
        }
      if (a[0] == '-' && a[1] == '-')
        {
          (*i)++;
          if ((strcmp (a, "--rcfile") == 0 || strcmp (a, "--init-file") == 0) && argv[*i] != NULL)
            (*i)++;
          continue;
        }
      if ((a[0] == '-' || a[0] == '+') && a[1] != '\0')
        {
          gboolean takes = FALSE;

          for (const char *ch = a + 1; *ch != '\0'; ch++)
            {
              if (*ch == 'c')
                *command = TRUE;
              else if (*ch == 's')
                *from_stdin = TRUE;
              else if (*ch == 'o' || *ch == 'O')
                takes = TRUE;
            }
          (*i)++;
          if (takes && argv[*i] != NULL)
            (*i)++;
          continue;
        }
      break;
    }
}

OwShellRuns
ow_shell_shell_runs (const OwShellCommand *cmd, guint start, guint *at, guint *dynamic_at)
{
  gboolean command = FALSE, from_stdin = FALSE;
  guint i = start;

  *dynamic_at = G_MAXUINT;
  scan_shell_options (cmd, &i, FALSE, &command, &from_stdin, dynamic_at);
  if (!command && cmd->argv[i] != NULL && cmd->dynamic[i])
    {
      /* sh $opts -c …: look past the unknown words for a -c */
      guint j = i;
      gboolean later_command = FALSE, later_stdin = from_stdin;

      scan_shell_options (cmd, &j, TRUE, &later_command, &later_stdin, dynamic_at);
      if (later_command)
        {
          *at = j;
          return OW_SHELL_RUNS_STRING;
        }
      *dynamic_at = G_MAXUINT;
    }
  *at = i;
  if (command)
    return OW_SHELL_RUNS_STRING;
  if (!from_stdin && cmd->argv[i] != NULL)
    return OW_SHELL_RUNS_SCRIPT;
  return OW_SHELL_RUNS_STDIN;
}

/* @words words of @argv from @from, each quoted, as one command line
 * (a program run with its words: find -exec, watch -x, flock FILE CMD). */
static char *
quoted_line (char **argv, guint from, guint words)
{
  GString *out = g_string_new (NULL);

  for (guint i = from; i < from + words; i++)
    {
      g_autofree char *quoted = g_shell_quote (argv[i]);

      if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append (out, quoted);
    }
  return g_string_free (out, FALSE);
}

/* The value of a command option of su, runuser, flock, script or env:
 * the short option @letter anywhere in a cluster (its value the rest of
 * the cluster or the next word) or one of @longs (--name=value or
 * --name value), wherever it stands among the words from @start. */
static char *
option_command (char **argv, guint start, char letter, const char *const *longs, guint *at)
{
  for (guint i = start; argv[i] != NULL; i++)
    {
      const char *a = argv[i];

      if (strcmp (a, "--") == 0)
        break;
      if (a[0] == '-' && a[1] == '-')
        {
          for (guint k = 0; longs[k] != NULL; k++)
            {
              gsize n = strlen (longs[k]);

              if (strncmp (a + 2, longs[k], n) != 0)
                continue;
              if (a[2 + n] == '=')
                {
                  *at = i;
                  return g_strdup (a + 3 + n);
                }
              if (a[2 + n] == '\0' && argv[i + 1] != NULL)
                {
                  *at = i + 1;
                  return g_strdup (argv[i + 1]);
                }
            }
          continue;
        }
      if (a[0] == '-' && a[1] != '\0')
        {
          const char *c = strchr (a + 1, letter);

          if (c == NULL)
            continue;
          if (c[1] != '\0')
            {
              *at = i;
              return g_strdup (c + 1);
            }
          if (argv[i + 1] != NULL)
            {
              *at = i + 1;
              return g_strdup (argv[i + 1]);
            }
        }
    }
  return NULL;
}

/* find -exec CMD … ; (and -execdir, -ok, -okdir, ending in ; or +): each
 * clause's words, quoted, the clauses joined by ;. */
static char *
find_commands (char **argv, guint start, guint *at)
{
  GString *out = NULL;

  for (guint i = start; argv[i] != NULL; i++)
    {
      guint from, end;
      g_autofree char *line = NULL;

      if (strcmp (argv[i], "-exec") != 0 && strcmp (argv[i], "-execdir") != 0
          && strcmp (argv[i], "-ok") != 0 && strcmp (argv[i], "-okdir") != 0)
        continue;
      from = end = i + 1;
      while (argv[end] != NULL && strcmp (argv[end], ";") != 0 && strcmp (argv[end], "+") != 0)
        end++;
      if (end > from)
        {
          line = quoted_line (argv, from, end - from);
          if (out == NULL)
            {
              out = g_string_new (line);
              *at = from;
            }
          else
            g_string_append_printf (out, " ; %s", line);
        }
      i = argv[end] != NULL ? end : end - 1;
    }
  return out != NULL ? g_string_free (out, FALSE) : NULL;
}

/* The first operand of @argv from @start, stepping over options (those in
 * @with_arg and @longs_with_arg take the next word). */
static guint
first_operand (char **argv, guint start, const char *with_arg, const char *const *longs_with_arg)
{
  guint i = start;

  while (argv[i] != NULL && argv[i][0] == '-' && argv[i][1] != '\0')
    {
      const char *a = argv[i++];

      if (strcmp (a, "--") == 0)
        break;
      if (a[1] == '-')
        {
          if (strchr (a, '=') == NULL && g_strv_contains (longs_with_arg, a + 2) && argv[i] != NULL)
            i++;
        }
      else if (strchr (with_arg, a[strlen (a) - 1]) != NULL && argv[i] != NULL)
        i++;
    }
  return i;
}

/* watch CMD…: run by sh -c as the words joined, or with -x as words. */
static char *
watch_command (const OwShellCommand *cmd, guint start, guint *at)
{
  static const char *const longs[] = { "interval", "differences", NULL };
  guint from = first_operand (cmd->argv, start, "nq", longs);
  gboolean exec = FALSE;

  for (guint i = start; i < from; i++)
    if (strcmp (cmd->argv[i], "--exec") == 0
        || (cmd->argv[i][0] == '-' && cmd->argv[i][1] != '-' && strchr (cmd->argv[i], 'x') != NULL))
      exec = TRUE;
  if (cmd->argv[from] == NULL)
    return NULL;
  *at = from;
  return exec ? quoted_line (cmd->argv, from, g_strv_length (cmd->argv + from))
              : g_strjoinv (" ", cmd->argv + from);
}

/* flock [options] FILE CMD…, or flock FILE -c STRING. */
static char *
flock_command (const OwShellCommand *cmd, guint start, guint *at)
{
  static const char *const longs[] = { "command", NULL };
  static const char *const with_value[] = { "timeout", "wait", "conflict-exit-code", NULL };
  char *line = option_command (cmd->argv, start, 'c', longs, at);
  guint file;

  if (line != NULL)
    return line;
  file = first_operand (cmd->argv, start, "wE", with_value);
  if (cmd->argv[file] == NULL || cmd->argv[file + 1] == NULL)
    return NULL;
  *at = file + 1;
  return quoted_line (cmd->argv, file + 1, g_strv_length (cmd->argv + file + 1));
}

char *
ow_shell_inner_command (const OwShellCommand *cmd, guint *at)
{
  static const char *const su_longs[] = { "command", "session-command", NULL };
  static const char *const env_longs[] = { "split-string", NULL };
  guint start = 0, i = 0, dynamic_at, dummy;
  const char *program = ow_shell_command_program (cmd, &start);

  if (at == NULL)
    at = &dummy;
  *at = 0;
  if (program == NULL)
    return NULL;
  if (strcmp (program, "eval") == 0)
    {
      if (cmd->argv[start] == NULL)
        return NULL;
      *at = start;
      return g_strjoinv (" ", cmd->argv + start);
    }
  if (strcmp (program, "su") == 0 || strcmp (program, "runuser") == 0 || strcmp (program, "script") == 0)
    return option_command (cmd->argv, start, 'c', su_longs, at);
  if (strcmp (program, "env") == 0)
    return option_command (cmd->argv, start, 'S', env_longs, at);
  if (strcmp (program, "flock") == 0)
    return flock_command (cmd, start, at);
  if (strcmp (program, "watch") == 0)
    return watch_command (cmd, start, at);
  if (strcmp (program, "find") == 0)
    return find_commands (cmd->argv, start, at);
  if (!ow_shell_is_shell (program)
      || ow_shell_shell_runs (cmd, start, &i, &dynamic_at) != OW_SHELL_RUNS_STRING
      || cmd->argv[i] == NULL)
    return NULL;
  *at = i;
  return g_strdup (cmd->argv[i]);
}
