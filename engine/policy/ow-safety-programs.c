/* ow-safety-programs.c: programs that run code, and their options.
 *
 * The option reader every program checker uses (args_parse), shells and
 * interpreters given code inline, on stdin or as a script, code fetched
 * by a downloader, and the files a downloader writes. Part of the safety
 * checks (ow-safety.c).
 */
#define G_LOG_DOMAIN "ow-safety"

#include "policy/ow-safety-private.h"

#include <stdlib.h>
#include <string.h>

/* ---- programs ---- */

gboolean
ow_safety_name_in (const char *name, const char *const *list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (strcmp (name, list[i]) == 0)
      return TRUE;
  return FALSE;
}

const char *const ow_safety_downloaders[] = {
  "curl", "wget", "wget2", "fetch", "aria2c", "axel", "http", "https", "xh", "xhs", "httpie",
  "lwp-request", "GET", "lynx", "w3m", "links", "elinks", "nc", "ncat", "netcat", "socat", "tftp",
  "ftp", NULL,
};

gboolean
ow_safety_is_python (const char *prog)
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
const char *const ow_safety_not_readers[] = {
  "ls", "dir", "vdir", "stat", "test", "[", "du", "df", "file", "dirname", "basename", "realpath",
  "readlink", "namei", "wc", "chmod", "chown", "chgrp", "touch", "mkdir", "rm", "rmdir", "unlink",
  "shred", "echo", "printf", "cd", "pushd", "popd", "ssh", "ssh-add", "sftp", "tee", "find",
  "lsattr", "chattr", "getfacl", "setfacl", "true", "false", ":", "type", "which", "whereis",
  "exit", "return", "export", "unset", "local", "declare", "typeset", "readonly", "sleep", "kill",
  "wait", "set", "shopt", "trap", "alias", "mv", "ln", "truncate",
  /* these read what they are given through their own rules below */
  "cp", "install", "scp", "rsync", "tar", "bsdtar", "zip", "docker", "podman", "nerdctl", NULL,
};

void
ow_safety_args_parse (Args *a, const char *const *argv, const gboolean *dyn, guint start,
                      const OptSpec *spec)
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

void
ow_safety_args_clear (Args *a)
{
  g_clear_pointer (&a->opts, g_array_unref);
  g_clear_pointer (&a->ops, g_array_unref);
}

gboolean
ow_safety_opt_is (const Opt *o, char sh, const char *lng)
{
  if (sh != 0 && o->sh == sh)
    return TRUE;
  return lng != NULL && o->lng != NULL && strlen (lng) == o->lng_len
         && strncmp (o->lng, lng, o->lng_len) == 0;
}

gboolean
ow_safety_args_has (const Args *a, char sh, const char *lng)
{
  for (guint i = 0; i < a->opts->len; i++)
    if (ow_safety_opt_is (&g_array_index (a->opts, Opt, i), sh, lng))
      return TRUE;
  return FALSE;
}

/* The last value given to an option, or NULL. */
const Opt *
ow_safety_args_value (const Args *a, char sh, const char *lng)
{
  const Opt *found = NULL;

  for (guint i = 0; i < a->opts->len; i++)
    {
      const Opt *o = &g_array_index (a->opts, Opt, i);

      if (ow_safety_opt_is (o, sh, lng) && o->value != NULL)
        found = o;
    }
  return found;
}

guint
ow_safety_n_ops (const Args *a)
{
  return a->ops->len;
}

const char *
ow_safety_op (const Args *a, guint k)
{
  return a->argv[g_array_index (a->ops, guint, k)];
}

gboolean
ow_safety_op_dyn (const Args *a, guint k)
{
  return a->dyn[g_array_index (a->ops, guint, k)];
}

/* Joins words @from… of @argv with spaces (how eval and sh -c strings
 * made of several words are run). */
char *
ow_safety_join_words (const char *const *argv, guint from)
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
char *
ow_safety_runs_download (const char *text)
{
  g_autoptr(OwShellParse) parse = ow_shell_parse (text);

  for (guint i = 0; i < parse->commands->len; i++)
    {
      const char *prog = ow_shell_command_program (g_ptr_array_index (parse->commands, i), NULL);

      if (prog != NULL && ow_safety_name_in (prog, ow_safety_downloaders))
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

          if (ow_safety_name_in (base, ow_safety_downloaders))
            return g_strdup (base);
        }
    }
  return NULL;
}

/* Code given to a shell as text: parsed and checked like a command line,
 * one level deeper. */
void
ow_safety_check_code (Check *c, const char *code, const char *what)
{
  if (c->depth >= SAFETY_MAX_DEPTH)
    {
      ow_safety_finding (c, SAFETY_ALL, "%s nests shells more than %d deep, so every check applies",
                         what, SAFETY_MAX_DEPTH);
      return;
    }
  c->depth++;
  ow_safety_check_shell (c, code, what);
  c->depth--;
}

/* A file about to be run (./x, sh x, source x): downloaded? */
void
ow_safety_check_exec_file (Check *c, const char *word, gboolean dynamic, const char *how)
{
  Target t;

  if (dynamic)
    {
      g_autofree char *dl = ow_safety_runs_download (word);

      if (dl != NULL)
        {
          ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s%sruns code fetched by %s",
                             how != NULL ? how : "", how != NULL ? " " : "", dl);
          return;
        }
    }
  if (strstr (word, "://") != NULL)
    {
      ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s%sruns %s straight from the network",
                         how != NULL ? how : "", how != NULL ? " " : "", word);
      return;
    }
  ow_safety_target_init (c, &t, word, dynamic);
  for (guint i = 0; i < t.real.len && !t.unknown; i++)
    {
      const char *f = t.real.item[i];
      gboolean hit = FALSE;

      for (guint k = 0; k < c->downloaded->len && !hit; k++)
        if (strcmp (f, g_ptr_array_index (c->downloaded, k)) == 0)
          {
            ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC,
                               "%s%sruns %s, a file this session downloaded",
                               how != NULL ? how : "", how != NULL ? " " : "", word);
            hit = TRUE;
          }
      for (guint k = 0; k < c->homes->len && !hit; k++)
        {
          g_autofree char *dir = ow_safety_path_join (g_ptr_array_index (c->homes, k), "Downloads");

          if (ow_safety_path_below (f, dir))
            {
              ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC,
                                 "%s%sruns %s, a downloaded file in ~/Downloads",
                                 how != NULL ? how : "", how != NULL ? " " : "", word);
              hit = TRUE;
            }
        }
      if (hit)
        break;
    }
  ow_safety_target_clear (&t);
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

          ow_safety_check_exec_file (c, r->target, strpbrk (r->target, "$`~*?[") != NULL, how);
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

          ow_safety_check_code (c, code, what);
        }
      else
        {
          g_autofree char *dl = text_substitutes_download (code);

          if (dl != NULL)
            ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s runs code fetched by %s", prog,
                               dl);
          ow_safety_judge_code_text (c, code, prog);
        }
    }
  return fed;
}

void
ow_safety_note_stdin_exec (Check *c, const char *prog)
{
  if (c->stdin_exec == NULL)
    c->stdin_exec = g_strdup (prog);
}

/* sh, bash, …: -c code, a script, or stdin (ow_shell_shell_runs). */
void
ow_safety_check_shell_program (Check *c, const OwShellCommand *cmd, const char *prog, guint start)
{
  const char *const *argv = (const char *const *) cmd->argv;
  guint i, dynamic_at;
  OwShellRuns runs = ow_shell_shell_runs (cmd, start, &i, &dynamic_at);

  if (dynamic_at != G_MAXUINT)
    ow_safety_check_exec_file (c, argv[dynamic_at], TRUE, prog);
  if (runs == OW_SHELL_RUNS_STRING)
    {
      if (argv[i] != NULL && cmd->dynamic[i]
          && (strstr (argv[i], "$(") != NULL || strchr (argv[i], '`') != NULL))
        ow_safety_finding (
            c, OW_SAFETY_OPAQUE_CODE,
            "%s -c runs the output of a command, code that is only known when it runs", prog);
      if (argv[i] != NULL)
        {
          g_autofree char *what = g_strdup_printf ("%s -c", prog);

          ow_safety_note_code_word (c, argv[i]);
          ow_safety_check_code (c, argv[i], what);
        }
      return;
    }
  if (runs == OW_SHELL_RUNS_SCRIPT)
    {
      /* sh script: the script runs, and its stdin is only data */
      ow_safety_check_exec_file (c, argv[i], cmd->dynamic[i], prog);
      return;
    }
  if (!check_stdin_code (c, cmd, TRUE, prog))
    ow_safety_note_stdin_exec (c, prog);
}

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
void
ow_safety_check_python (Check *c, const OwShellCommand *cmd, const char *prog, guint start)
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
            ow_safety_check_exec_file (c, a, cmd->dynamic[i], prog);
          else if (!check_stdin_code (c, cmd, FALSE, prog))
            ow_safety_note_stdin_exec (c, prog);
          return;
        }
      if (a[1] == '-')
        {
          if (strcmp (a, "--") == 0)
            {
              if (argv[i + 1] != NULL)
                ow_safety_check_exec_file (c, argv[i + 1], cmd->dynamic[i + 1], prog);
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
                      g_autofree char *dl = ow_safety_runs_download (value);

                      if (dl != NULL)
                        ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC,
                                           "%s -c runs code fetched by %s", prog, dl);
                    }
                  ow_safety_judge_code_text (c, value, prog);
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
    ow_safety_note_stdin_exec (c, prog);
}

void
ow_safety_check_interp (Check *c, const OwShellCommand *cmd, const Interp *in, guint start)
{
  const char *const *argv = (const char *const *) cmd->argv;
  g_autofree char *with_arg = g_strconcat (in->code_short, in->with_arg, NULL);
  static const char *longs[] = { "eval", "print", "require", "import", NULL };
  OptSpec spec = { with_arg, in->inplace, longs, TRUE };
  Args a;
  gboolean code_given = FALSE;
  guint first_file = 0;

  ow_safety_args_parse (&a, argv, cmd->dynamic, start, &spec);
  for (guint i = 0; i < a.opts->len; i++)
    {
      const Opt *o = &g_array_index (a.opts, Opt, i);
      gboolean is_code = (o->sh != 0 && strchr (in->code_short, o->sh) != NULL);

      for (guint k = 0; in->code_long[k] != NULL && !is_code; k++)
        is_code = ow_safety_opt_is (o, 0, in->code_long[k]);
      if (!is_code || o->value == NULL)
        continue;
      code_given = TRUE;
      if (o->dynamic)
        {
          g_autofree char *dl = ow_safety_runs_download (o->value);

          if (dl != NULL)
            ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC, "%s runs code fetched by %s", in->name,
                               dl);
        }
      ow_safety_judge_code_text (c, o->value, in->name);
    }
  if (!code_given)
    {
      if (ow_safety_n_ops (&a) > 0 && strcmp (ow_safety_op (&a, 0), "-") != 0)
        {
          ow_safety_check_exec_file (c, ow_safety_op (&a, 0), ow_safety_op_dyn (&a, 0), in->name);
          first_file = 1;
        }
      else if (!check_stdin_code (c, cmd, FALSE, in->name))
        ow_safety_note_stdin_exec (c, in->name);
    }
  if (in->inplace[0] != '\0' && ow_safety_args_has (&a, in->inplace[0], NULL))
    {
      /* perl -i / ruby -i edit the files they are given */
      Args all;
      OptSpec loose = { with_arg, in->inplace, longs, FALSE };

      ow_safety_args_parse (&all, argv, cmd->dynamic, start, &loose);
      for (guint k = code_given ? 0 : first_file; k < ow_safety_n_ops (&all); k++)
        ow_safety_judge_write (c, ow_safety_op (&all, k), ow_safety_op_dyn (&all, k), "edits");
      ow_safety_args_clear (&all);
    }
  ow_safety_args_clear (&a);
}

const Interp *
ow_safety_find_interp (const char *prog)
{
  for (guint i = 0; i < G_N_ELEMENTS (interps); i++)
    if (strcmp (interps[i].name, prog) == 0)
      return &interps[i];
  return NULL;
}

/* Whether a mode given to chmod or install sets the setuid or setgid bit. */
gboolean
ow_safety_mode_sets_id (const char *mode)
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

gboolean
ow_safety_is_url (const char *word)
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
char *
ow_safety_url_basename (const char *url, const char *fallback)
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
const OptSpec ow_safety_curl_spec = { "AbcCdDeEFHKmoPQrtTuUwxXyYz", NULL, curl_long, FALSE };

static const char *const wget_long[] = {
  "output-document", "output-file", "append-output", "directory-prefix", "post-file", "body-file",
  "input-file", "execute", "user", "password", "header", "tries", "timeout", "user-agent", NULL,
};
const OptSpec ow_safety_wget_spec = { "OoaPeiBtTwYUQlARDIX", NULL, wget_long, FALSE };

static const char *const aria_long[] = { "dir", "out", "input-file", NULL };
const OptSpec ow_safety_aria_spec = { "dois", NULL, aria_long, FALSE };

/* Adds to @out the files @cmd (a downloader) would write, as written
 * (relative ones resolve in the shell's folder). */
void
ow_safety_download_targets (const OwShellCommand *cmd, const char *prog, guint start,
                            GPtrArray *out)
{
  const char *const *argv = (const char *const *) cmd->argv;
  Args a;

  if (strcmp (prog, "curl") == 0)
    {
      const Opt *dir = NULL;

      ow_safety_args_parse (&a, argv, cmd->dynamic, start, &ow_safety_curl_spec);
      dir = ow_safety_args_value (&a, 0, "output-dir");
      for (guint i = 0; i < a.opts->len; i++)
        {
          const Opt *o = &g_array_index (a.opts, Opt, i);

          if (ow_safety_opt_is (o, 'o', "output") && o->value != NULL && strcmp (o->value, "-") != 0
              && !o->dynamic)
            g_ptr_array_add (out, dir != NULL ? ow_safety_path_join (dir->value, o->value)
                                              : g_strdup (o->value));
        }
      if (ow_safety_args_has (&a, 'O', "remote-name")
          || ow_safety_args_has (&a, 0, "remote-name-all"))
        for (guint k = 0; k < ow_safety_n_ops (&a); k++)
          {
            g_autofree char *name = ow_safety_url_basename (ow_safety_op (&a, k), NULL);

            if (name != NULL && url_literal (ow_safety_op (&a, k), ow_safety_op_dyn (&a, k)))
              g_ptr_array_add (out, dir != NULL ? ow_safety_path_join (dir->value, name)
                                                : g_strdup (name));
          }
      ow_safety_args_clear (&a);
      return;
    }
  if (strcmp (prog, "wget") == 0 || strcmp (prog, "wget2") == 0)
    {
      const Opt *doc, *dir;

      ow_safety_args_parse (&a, argv, cmd->dynamic, start, &ow_safety_wget_spec);
      doc = ow_safety_args_value (&a, 'O', "output-document");
      dir = ow_safety_args_value (&a, 'P', "directory-prefix");
      if (doc != NULL)
        {
          if (strcmp (doc->value, "-") != 0 && !doc->dynamic)
            g_ptr_array_add (out, g_strdup (doc->value));
        }
      else
        for (guint k = 0; k < ow_safety_n_ops (&a); k++)
          if (url_literal (ow_safety_op (&a, k), ow_safety_op_dyn (&a, k))
              && ow_safety_is_url (ow_safety_op (&a, k)))
            {
              g_autofree char *name = ow_safety_url_basename (ow_safety_op (&a, k), "index.html");

              g_ptr_array_add (out, dir != NULL ? ow_safety_path_join (dir->value, name)
                                                : g_strdup (name));
            }
      ow_safety_args_clear (&a);
      return;
    }
  if (strcmp (prog, "aria2c") == 0 || strcmp (prog, "axel") == 0 || strcmp (prog, "fetch") == 0)
    {
      const Opt *dir, *name;

      ow_safety_args_parse (&a, argv, cmd->dynamic, start, &ow_safety_aria_spec);
      dir = strcmp (prog, "aria2c") == 0 ? ow_safety_args_value (&a, 'd', "dir") : NULL;
      name = ow_safety_args_value (&a, 'o', "out");
      if (name == NULL)
        name = ow_safety_args_value (&a, 'o', "output");
      if (name != NULL && !name->dynamic)
        g_ptr_array_add (out, dir != NULL ? ow_safety_path_join (dir->value, name->value)
                                          : g_strdup (name->value));
      else
        for (guint k = 0; k < ow_safety_n_ops (&a); k++)
          {
            g_autofree char *file = ow_safety_url_basename (ow_safety_op (&a, k), NULL);

            if (file != NULL && url_literal (ow_safety_op (&a, k), ow_safety_op_dyn (&a, k)))
              g_ptr_array_add (out, dir != NULL ? ow_safety_path_join (dir->value, file)
                                                : g_strdup (file));
          }
      ow_safety_args_clear (&a);
    }
}
