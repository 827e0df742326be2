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
 *
 * The checks are split by concern over ow-safety-private.h, in reading
 * order: this file (results, the context of one call, downloads, tool
 * calls); ow-safety-paths.c (resolving paths, the kinds of place, the
 * command guard's lists); ow-safety-words.c (a command's words as targets,
 * and the judgements of writes, deletes and reads); ow-safety-programs.c
 * (the option reader, shells and interpreters, downloaders);
 * ow-safety-command.c (one simple command: wrappers, redirections and the
 * table of program checkers); ow-safety-files.c and ow-safety-code.c (the
 * checkers).
 */
#define G_LOG_DOMAIN "ow-safety"

#include "policy/ow-safety.h"
#include "policy/ow-safety-private.h"

#include <stdarg.h>
#include <string.h>

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

void
ow_safety_finding (Check *c, OwSafetyCheck check, const char *format, ...)
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

/* ---- the context ---- */

/* The shared temp folders, canonical: the same for the whole process. */
static gpointer
make_temp_dirs (gpointer data)
{
  static const char *const temps[] = { "/tmp", "/var/tmp", "/dev/shm", NULL };
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; temps[i] != NULL; i++)
    ow_safety_add_folder (dirs, temps[i]);
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
  ow_safety_add_folder (c->homes, ctx->home);
  if (ctx->cwd != NULL && ctx->cwd[0] == '/')
    ow_safety_add_folder (c->cwds, ctx->cwd);
  if (paths_only)
    {
      if (c->cwds->len == 0 && ctx->n_roots > 0 && ctx->roots != NULL && ctx->roots[0] != NULL
          && ctx->roots[0][0] == '/')
        g_ptr_array_add (c->cwds, ow_safety_normalize (ctx->roots[0]));
      c->cwd_unknown = c->cwds->len == 0;
      return;
    }
  for (guint i = 0; i < ctx->n_roots && ctx->roots != NULL; i++)
    {
      g_autoptr(GPtrArray) forms = g_ptr_array_new_with_free_func (g_free);
      gboolean writable = ctx->roots_writable != NULL && ctx->roots_writable[i];

      ow_safety_add_folder (forms, ctx->roots[i]);
      for (guint k = 0; k < forms->len; k++)
        {
          g_ptr_array_add (c->roots, g_strdup (g_ptr_array_index (forms, k)));
          g_array_append_val (c->writable, writable);
        }
    }
  for (guint i = 0; ctx->agent_dirs != NULL && ctx->agent_dirs[i] != NULL; i++)
    ow_safety_add_folder (c->agent_dirs, ctx->agent_dirs[i]);
  c->env = ctx->env;
  for (guint i = 0; ctx->downloaded != NULL && ctx->downloaded[i] != NULL; i++)
    if (ctx->downloaded[i][0] == '/')
      {
        g_autofree char *lexical = ow_safety_normalize (ctx->downloaded[i]);

        ow_safety_add_unique (c->downloaded, ow_safety_realpath_prefix (lexical));
        ow_safety_add_unique (c->downloaded, g_strdup (lexical));
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
    g_ptr_array_add (c->cwds, ow_safety_normalize (ctx->roots[0]));
  else if (ctx->cwd != NULL && ctx->cwd[0] == '/')
    g_ptr_array_add (c->cwds, ow_safety_normalize (ctx->cwd));
  else
    c->cwd_unknown = TRUE;
}

/* ---- downloads ---- */

/* Adds to @out the files @parse downloads to, and those of the command
 * lines it runs with sh -c or eval, @depth levels down so far (to the
 * depth the checks read). */
static void
collect_downloads (Check *c, const OwShellParse *parse, GPtrArray *out, guint depth)
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
      g_autofree char *inner = NULL;

      if (p == NULL)
        continue;
      inner = ow_shell_inner_command (cmd, NULL);
      if (inner != NULL && depth < OW_SHELL_MAX_NESTING)
        {
          g_autoptr(OwShellParse) nested = ow_shell_parse (inner);

          collect_downloads (c, nested, out, depth + 1);
          continue;
        }
      if (strcmp (p, "cd") == 0 || strcmp (p, "pushd") == 0)
        {
          Run r = { cmd, (const char *const *) cmd->argv, cmd->dynamic, p, start - 1, start,
                    FALSE };

          ow_safety_check_cd (c, &r);
          continue;
        }
      if (!ow_safety_name_in (p, ow_safety_downloaders) && !(strcmp (p, "tee") == 0 && downloader))
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
          ow_safety_download_targets (cmd, p, start, files);
        }
      /* curl … > file */
      for (guint k = 0; k < cmd->redirects->len; k++)
        {
          const OwShellRedirect *rd = g_ptr_array_index (cmd->redirects, k);

          if (rd->writes && rd->target != NULL && (rd->fd == 1 || g_str_has_prefix (rd->op, "&"))
              && !ow_safety_looks_dynamic (rd->target))
            g_ptr_array_add (files, g_strdup (rd->target));
        }
      for (guint k = 0; k < files->len; k++)
        {
          const char *f = g_ptr_array_index (files, k);

          /* every folder a cd may have moved to is a candidate */
          for (guint d = 0; d < (f[0] == '/' ? 1 : c->cwds->len); d++)
            {
              g_autofree char *abs = f[0] == '/'
                                         ? g_strdup (f)
                                         : ow_safety_path_join (g_ptr_array_index (c->cwds, d), f);
              g_autofree char *lexical = NULL;

              if (strlen (abs) > SAFETY_MAX_PATH || (f[0] != '/' && c->cwd_unknown))
                continue;
              lexical = ow_safety_normalize (abs);
              ow_safety_add_unique (out, ow_safety_realpath_prefix (lexical));
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

      collect_downloads (&c, parse, out, 0);
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
            ow_safety_judge_delete (c, path, FALSE, FALSE, FALSE);
          else
            ow_safety_judge_write (c, path, FALSE, headers[k].verb);
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
          collect_downloads (&c, parse, files, 0);
          /* collecting walks the cd's: the checks start from the shell's folder again */
          g_ptr_array_unref (c.cwds);
          c.cwds = cwds;
          c.cwd_unknown = cwd_unknown;
          for (guint i = 0; i < files->len; i++)
            ow_safety_add_unique (c.downloaded, g_strdup (g_ptr_array_index (files, i)));
          ow_safety_check_parsed (&c, parse, "the command");
          if (c.downloader != NULL && c.stdin_exec != NULL && c.saw_pipe)
            ow_safety_finding (&c, OW_SAFETY_DOWNLOADED_EXEC,
                               "pipes what %s downloads into %s, which runs it", c.downloader,
                               c.stdin_exec);
        }
      check_clear (&c);
      return;
    }
  file_tool_mode (&c, ctx);
  if (strcmp (tool, "write_file") == 0 || strcmp (tool, "replace_in_file") == 0
      || strcmp (tool, "edit_file") == 0)
    {
      const char *path = string_member (args, "path");

      ow_safety_judge_write (&c, path != NULL && path[0] != '\0' ? path : ".", FALSE,
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

      ow_safety_judge_read (&c, path != NULL && path[0] != '\0' ? path : ".", FALSE,
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
          ow_safety_judge_read (&c, value, FALSE, FALSE);
          if (ow_safety_name_in (path_keys[i], write_keys))
            ow_safety_judge_write (&c, value, FALSE, "writes");
        }
    }
  check_clear (&c);
}
