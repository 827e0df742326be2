/* ow-safety-command.c: one simple command.
 *
 * A command is seen through its wrappers (sudo, env, time, xargs, …),
 * its redirections judged, and its program looked up in a sorted table
 * of checkers (ow-safety-files.c, ow-safety-code.c); interpreters and
 * shells are found by their own lists. Whatever a program is, its
 * arguments that name credentials are judged as reads. Part of the
 * safety checks (ow-safety.c).
 */
#define G_LOG_DOMAIN "ow-safety"

#include "policy/ow-safety-private.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- one simple command ---- */

/* Whether any option cluster in @r's arguments has @flag, or a word is
 * exactly @long_flag (loosely: option values are not told apart, which
 * can only make a program look more recursive than it is). */
gboolean
ow_safety_run_has_flag (const Run *r, char flag, const char *long_flag)
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

  if (ow_safety_name_in (p, always))
    return TRUE;
  if (strcmp (p, "grep") == 0 || strcmp (p, "egrep") == 0 || strcmp (p, "fgrep") == 0
      || strcmp (p, "ugrep") == 0)
    return ow_safety_run_has_flag (r, 'r', "--recursive")
           || ow_safety_run_has_flag (r, 'R', "--dereference-recursive")
           || ow_safety_run_has_flag (r, 0, "--directories=recurse");
  if (strcmp (p, "cp") == 0 || strcmp (p, "scp") == 0 || strcmp (p, "zip") == 0)
    return ow_safety_run_has_flag (r, 'r', "--recursive") || ow_safety_run_has_flag (r, 'R', NULL)
           || (strcmp (p, "cp") == 0 && ow_safety_run_has_flag (r, 'a', "--archive"));
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
      g_autofree char *kind = ow_safety_credential_kind (c, cwd);
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

  if (ow_safety_name_in (r->prog, ow_safety_not_readers))
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
        ow_safety_judge_read (c, w, r->dyn[i], recursive);
    }
}

void
ow_safety_each_write (Check *c, const Args *a, guint from, const char *verb)
{
  for (guint k = from; k < ow_safety_n_ops (a); k++)
    ow_safety_judge_write (c, ow_safety_op (a, k), ow_safety_op_dyn (a, k), verb);
}

void
ow_safety_more_targets (Check *c, const Run *r, const char *verb, gboolean deletes,
                        gboolean recursive)
{
  if (!r->more)
    return;
  ow_safety_finding (c, OW_SAFETY_WRITE_OUTSIDE,
                     "%s %s paths that xargs passes at run time, only known when the command runs",
                     r->prog, verb);
  if (deletes && recursive)
    ow_safety_finding (
        c, OW_SAFETY_RECURSIVE_DELETE,
        "%s deletes recursively what xargs passes at run time, paths only known when the "
        "command runs",
        r->prog);
}

static void check_command (Check *c, const OwShellCommand *cmd);

/* Checks @n words of @argv as a command of their own (find -exec,
 * flock, watch -x). */
void
ow_safety_check_words (Check *c, char **argv, const gboolean *dyn, guint n)
{
  OwShellCommand sub = { 0 };
  g_autoptr(GPtrArray) words = g_ptr_array_new ();
  g_autofree gboolean *flags = g_new0 (gboolean, n + 1);
  char *none[] = { NULL };

  if (n == 0)
    return;
  if (c->depth >= SAFETY_MAX_DEPTH)
    {
      ow_safety_finding (c, SAFETY_ALL,
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
        ow_safety_judge_read (c, r->argv[i + 1], r->dyn[i + 1], FALSE);
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
        ow_safety_judge_write (c, value, dyn, "writes");
      if (strcmp (wrapper, "env") == 0 && (w[1] == 'S' || g_str_has_prefix (w, "--split-string")))
        ow_safety_check_code (c, value, "env -S");
      if (((strcmp (wrapper, "env") == 0 && (w[1] == 'C' || g_str_has_prefix (w, "--chdir")))
           || (strcmp (wrapper, "sudo") == 0 && (w[1] == 'D' || g_str_has_prefix (w, "--chdir"))))
          && *saved == NULL)
        *saved = ow_safety_push_cwd (c, value, dyn, saved_unknown);
    }
}

/* Whether a redirection target may expand to something else (the parser
 * keeps expansions as written in it). */
gboolean
ow_safety_looks_dynamic (const char *word)
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

/* What programs are known to do with their arguments, by name, sorted
 * in strcmp order for bsearch (test-safety checks it with
 * ow_safety_programs_sorted()). Shells and interpreters are found by
 * their own lists (ow_shell_is_shell, is_python, find_interp), and
 * Windows names, which ignore case, by check_command. */
typedef struct {
  const char *name;
  void      (*check) (Check *c, const Run *r);
  gboolean    after_authority;  /* ow_safety_check_authority() reads the command first */
  gboolean    own_reads;        /* the checker judges every read itself (no generic_reads) */
} Program;

static const Program programs[] = {
  { ".",         ow_safety_check_source,    FALSE, FALSE },
  { "alias",     ow_safety_check_alias,     FALSE, FALSE },
  { "aria2c",    ow_safety_check_download,  TRUE,  TRUE },
  { "as",        ow_safety_check_compiler,  TRUE,  FALSE },
  { "awk",       ow_safety_check_awk,       FALSE, FALSE },
  { "axel",      ow_safety_check_download,  TRUE,  TRUE },
  { "bsdtar",    ow_safety_check_tar,       FALSE, FALSE },
  { "c++",       ow_safety_check_compiler,  TRUE,  FALSE },
  { "cc",        ow_safety_check_compiler,  TRUE,  FALSE },
  { "cd",        ow_safety_check_cd,        FALSE, FALSE },
  { "chgrp",     ow_safety_check_chmod,     FALSE, FALSE },
  { "chmod",     ow_safety_check_chmod,     FALSE, FALSE },
  { "chown",     ow_safety_check_chmod,     FALSE, FALSE },
  { "clang",     ow_safety_check_compiler,  TRUE,  FALSE },
  { "clang++",   ow_safety_check_compiler,  TRUE,  FALSE },
  { "cp",        ow_safety_check_copy,      FALSE, FALSE },
  { "curl",      ow_safety_check_download,  TRUE,  TRUE },
  { "dd",        ow_safety_check_dd,        FALSE, FALSE },
  { "deno",      ow_safety_check_deno,      FALSE, FALSE },
  { "docker",    ow_safety_check_container, TRUE,  FALSE },
  { "echo",      ow_safety_check_echo,      TRUE,  FALSE },
  { "ed",        ow_safety_check_editor,    TRUE,  FALSE },
  { "emacs",     ow_safety_check_editor,    TRUE,  FALSE },
  { "env",       ow_safety_check_env,       FALSE, FALSE },
  { "eval",      ow_safety_check_eval,      FALSE, FALSE },
  { "ex",        ow_safety_check_editor,    TRUE,  FALSE },
  { "fetch",     ow_safety_check_download,  TRUE,  TRUE },
  { "find",      ow_safety_check_find,      FALSE, FALSE },
  { "flock",     ow_safety_check_su,        FALSE, FALSE },
  { "g++",       ow_safety_check_compiler,  TRUE,  FALSE },
  { "gawk",      ow_safety_check_awk,       FALSE, FALSE },
  { "gcc",       ow_safety_check_compiler,  TRUE,  FALSE },
  { "git",       ow_safety_check_git,       FALSE, FALSE },
  { "go",        ow_safety_check_compiler,  TRUE,  FALSE },
  { "gsed",      ow_safety_check_sed,       FALSE, FALSE },
  { "hx",        ow_safety_check_editor,    TRUE,  FALSE },
  { "install",   ow_safety_check_copy,      FALSE, FALSE },
  { "joe",       ow_safety_check_editor,    TRUE,  FALSE },
  { "kak",       ow_safety_check_editor,    TRUE,  FALSE },
  { "ld",        ow_safety_check_compiler,  TRUE,  FALSE },
  { "ln",        ow_safety_check_copy,      FALSE, FALSE },
  { "mawk",      ow_safety_check_awk,       FALSE, FALSE },
  { "micro",     ow_safety_check_editor,    TRUE,  FALSE },
  { "mkdir",     ow_safety_check_create,    FALSE, FALSE },
  { "mkfifo",    ow_safety_check_create,    FALSE, FALSE },
  { "mknod",     ow_safety_check_create,    FALSE, FALSE },
  { "mv",        ow_safety_check_copy,      FALSE, FALSE },
  { "nano",      ow_safety_check_editor,    TRUE,  FALSE },
  { "nawk",      ow_safety_check_awk,       FALSE, FALSE },
  { "nerdctl",   ow_safety_check_container, TRUE,  FALSE },
  { "nvim",      ow_safety_check_editor,    TRUE,  FALSE },
  { "openssl",   ow_safety_check_openssl,   TRUE,  FALSE },
  { "pico",      ow_safety_check_editor,    TRUE,  FALSE },
  { "podman",    ow_safety_check_container, TRUE,  FALSE },
  { "printf",    ow_safety_check_echo,      TRUE,  FALSE },
  { "pushd",     ow_safety_check_cd,        FALSE, FALSE },
  { "rm",        ow_safety_check_rm,        FALSE, FALSE },
  { "rmdir",     ow_safety_check_rm,        FALSE, FALSE },
  { "rsync",     ow_safety_check_transfer,  TRUE,  FALSE },
  { "runuser",   ow_safety_check_su,        FALSE, FALSE },
  { "rustc",     ow_safety_check_compiler,  TRUE,  FALSE },
  { "scp",       ow_safety_check_transfer,  TRUE,  FALSE },
  { "script",    ow_safety_check_su,        FALSE, FALSE },
  { "sed",       ow_safety_check_sed,       FALSE, FALSE },
  { "sftp",      ow_safety_check_ssh,       TRUE,  FALSE },
  { "shred",     ow_safety_check_unlink,    FALSE, FALSE },
  { "sort",      ow_safety_check_sort,      TRUE,  FALSE },
  { "source",    ow_safety_check_source,    FALSE, FALSE },
  { "ssh",       ow_safety_check_ssh,       TRUE,  FALSE },
  { "su",        ow_safety_check_su,        FALSE, FALSE },
  { "tar",       ow_safety_check_tar,       FALSE, FALSE },
  { "tcc",       ow_safety_check_compiler,  TRUE,  FALSE },
  { "tee",       ow_safety_check_create,    FALSE, FALSE },
  { "touch",     ow_safety_check_create,    FALSE, FALSE },
  { "trap",      ow_safety_check_trap,      FALSE, FALSE },
  { "truncate",  ow_safety_check_create,    FALSE, FALSE },
  { "uniq",      ow_safety_check_uniq,      TRUE,  FALSE },
  { "unlink",    ow_safety_check_unlink,    FALSE, FALSE },
  { "unzip",     ow_safety_check_unzip,     FALSE, FALSE },
  { "vi",        ow_safety_check_editor,    TRUE,  FALSE },
  { "view",      ow_safety_check_editor,    TRUE,  FALSE },
  { "vim",       ow_safety_check_editor,    TRUE,  FALSE },
  { "watch",     ow_safety_check_watch,     FALSE, FALSE },
  { "wget",      ow_safety_check_download,  TRUE,  TRUE },
  { "wget2",     ow_safety_check_download,  TRUE,  TRUE },
  { "zip",       ow_safety_check_zip,       FALSE, FALSE },
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

gboolean
ow_safety_names_sorted (const void *first, gsize n, gsize stride, const char **bad)
{
  const char *prev = NULL;

  for (gsize i = 0; i < n; i++)
    {
      const char *name = *(const char *const *) ((const char *) first + i * stride);

      if (prev != NULL && strcmp (prev, name) >= 0)
        {
          if (bad != NULL)
            *bad = name;
          return FALSE;
        }
      prev = name;
    }
  return TRUE;
}

gboolean
ow_safety_programs_sorted (const char **bad)
{
  return ow_safety_names_sorted (&programs[0].name, G_N_ELEMENTS (programs), sizeof programs[0],
                                 bad);
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
      ow_safety_finding (c, SAFETY_ALL,
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
        ow_safety_judge_write (c, rd->target, ow_safety_looks_dynamic (rd->target), "writes");
      if (strcmp (bare, "<") == 0 || strcmp (bare, "<>") == 0)
        ow_safety_judge_read (c, rd->target, ow_safety_looks_dynamic (rd->target), FALSE);
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
      g_autofree char *dl = ow_safety_runs_download (r.argv[r.at]);
      g_autofree char *filled = ow_safety_substitute_vars (c, r.argv[r.at]);

      if (dl != NULL)
        ow_safety_finding (c, OW_SAFETY_DOWNLOADED_EXEC, "runs the output of %s as a command", dl);
      else if (strchr (r.argv[r.at], '/') != NULL)
        ow_safety_check_exec_file (c, r.argv[r.at], TRUE, NULL);
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
          ow_safety_check_code (c, line->str, "the command its variables name");
          g_string_free (line, TRUE);
        }
      generic_reads (c, &r);
      goto out;
    }
  if (strchr (r.argv[r.at], '/') != NULL)
    ow_safety_check_exec_file (c, r.argv[r.at], FALSE, NULL);
  if (ow_safety_name_in (p, ow_safety_downloaders) && c->downloader == NULL)
    c->downloader = g_strdup (p);

  program = find_program (p);
  if (program != NULL && !program->after_authority)
    program->check (c, &r);
  else if (ow_shell_is_shell (p))
    ow_safety_check_shell_program (c, cmd, p, r.start);
  else if (ow_safety_is_python (p))
    ow_safety_check_python (c, cmd, p, r.start);
  else if ((interp = ow_safety_find_interp (p)) != NULL)
    ow_safety_check_interp (c, cmd, interp, r.start);
  else if (ow_safety_check_authority (c, &r))
    ;
  else if (program != NULL)
    program->check (c, &r);
  else if (g_ascii_strcasecmp (p, "cmd") == 0 || g_ascii_strcasecmp (p, "cmd.exe") == 0)
    ow_safety_check_cmd_exe (c, &r);
  else if (g_ascii_strncasecmp (p, "powershell", 10) == 0
           || g_ascii_strncasecmp (p, "pwsh", 4) == 0)
    ow_safety_check_powershell (c, &r);

  if (program != NULL && program->own_reads)
    goto out;
  generic_reads (c, &r);
out:
  if (saved != NULL)
    ow_safety_pop_cwd (c, saved, saved_unknown);
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

void
ow_safety_check_parsed (Check *c, const OwShellParse *parse, const char *what)
{
  if (parse->features & OW_SHELL_PARSE_ERROR)
    {
      ow_safety_finding (c, SAFETY_ALL, "%s could not be read (%s), so every check applies", what,
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
          ow_safety_note_assignment (c, cmd->assignments[k]);
        }
      if (cmd->argv[0] != NULL && ow_safety_name_in (cmd->argv[0], declarers))
        for (guint k = 1; cmd->argv[k] != NULL; k++)
          ow_safety_note_assignment (c, cmd->argv[k]);
    }
  for (guint i = 0; i < parse->commands->len; i++)
    check_command (c, g_ptr_array_index (parse->commands, i));
}

void
ow_safety_check_shell (Check *c, const char *command, const char *what)
{
  g_autoptr(OwShellParse) parse = ow_shell_parse (command);

  ow_safety_check_parsed (c, parse, what);
}
