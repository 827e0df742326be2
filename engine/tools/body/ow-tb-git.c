/* ow-tb-git.c: git_status, git_diff and git_log.
 *
 * Read-only views of the primary folder's repository. git runs with an
 * argv (never through a shell, so a path cannot smuggle in options or
 * commands; paths also go after "--"), in roots[0], with a 15 s timeout.
 * It never prompts (GIT_TERMINAL_PROMPT=0), never pages, and takes no
 * optional locks (GIT_OPTIONAL_LOCKS=0): `git status` would otherwise
 * rewrite the index, which a read-only tool must not do and which could
 * collide with the person's own git commands. Outputs are clipped to
 * 20,000 characters (the head: a diff reads top-down).
 *
 * A repository's own config and attributes can name programs for git to
 * run (core.fsmonitor, a filter's clean command, an external diff, a
 * textconv, gpg for signatures, ssh for a partial clone's lazy fetch).
 * The folder is the agent's to write, so running those would hand the
 * agent a way to run anything outside whatever guard wraps its shell,
 * just by asking for git_status. Every such program is switched off on
 * the command line (see git_safe_args), and the filters, which are keyed
 * by names only the config knows, are listed first and each emptied
 * through git's environment (see add_filter_overrides).
 */
#include "ow-tb-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIT_TIMEOUT_MS 15000

static const char *const git_env_set[] = {
  "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat", NULL,
};

/* Variables that name a program for git (or its helpers) to run, or that
 * move where git finds its own sub-commands; the shell's environment may
 * carry them, and none belongs in a read-only view. */
static const char *const git_env_unset[] = {
  "GIT_EXTERNAL_DIFF", "GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS",
  "SSH_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
  "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", NULL,
};

/* Global options put before every git command here. Each one turns off a
 * program the repository could otherwise make git run (git help config):
 * - core.fsmonitor: a hook that status and diff ask about changed files;
 * - core.hooksPath: no hook at all (none should run, but an index refresh
 *   could fire post-index-change);
 * - --no-pager and core.pager: no pager even if a terminal appears;
 * - protocol.allow=never, core.sshCommand, core.askPass, credential.helper:
 *   a partial clone fetches missing objects on demand during log or diff,
 *   which would run ssh, a remote helper, an askpass or a credential
 *   helper; a read-only view must not reach the network anyway;
 * - log.showSignature: would run gpg.program (log also gets
 *   --no-show-signature);
 * diff itself gets --no-ext-diff and --no-textconv, which cover
 * diff.external, GIT_EXTERNAL_DIFF and every diff.<driver>.command and
 * diff.<driver>.textconv;
 * - status.submoduleSummary, diff.submodule: would run git log in a
 *   submodule, whose own config is not covered by the filter listing.
 * core.alternateRefsCommand and uploadpack.packObjectsHook run only while
 * fetching or serving a fetch, which protocol.allow=never rules out. */
static const char *const git_safe_args[] = {
  "--no-pager",
  "-c", "core.fsmonitor=false",
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.pager=cat",
  "-c", "protocol.allow=never",
  "-c", "core.sshCommand=",
  "-c", "core.askPass=",
  "-c", "credential.helper=",
  "-c", "log.showSignature=false",
  "-c", "status.submoduleSummary=false",
  "-c", "diff.submodule=short",
  NULL,
};

/* What each filter driver gets, so it runs nothing: an empty command is
 * "no filter" to git, and a required filter without a command would make
 * git fail instead of showing the file as it is. */
static const char *const filter_overrides[] = {
  "clean=", "smudge=", "process=", "required=false", NULL,
};

/* A growable argv. */
typedef struct {
  char  **items;  /* owned strings, NULL-terminated */
  size_t  len;
  size_t  cap;
} GitArgv;

static void
git_argv_add (GitArgv *av, const char *arg)
{
  if (av->len + 2 > av->cap)
    {
      av->cap = av->cap == 0 ? 64 : av->cap * 2;
      av->items = ow_tb_xrealloc (av->items, av->cap * sizeof *av->items);
    }
  av->items[av->len++] = ow_tb_xstrdup (arg);
  av->items[av->len] = NULL;
}

static void
git_argv_free (GitArgv *av)
{
  for (size_t i = 0; i < av->len; i++)
    free (av->items[i]);
  free (av->items);
}

static void
git_argv_prefix (GitArgv *av)
{
  git_argv_add (av, "git");
  for (size_t i = 0; git_safe_args[i] != NULL; i++)
    git_argv_add (av, git_safe_args[i]);
}

/* Adds to @sets the environment that empties every filter driver the
 * config of @spec's folder defines: GIT_CONFIG_COUNT with a
 * GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pair per key. Not "-c": git splits
 * "-c" at the first '=', and a driver may be named "x=y". Listing the
 * config runs no program. Returns 0, or -1 when git could not be asked
 * (the caller then refuses to run: a filter it does not know of could
 * run). */
static int
add_filter_overrides (GitArgv *sets, OwTbProcSpec spec, OwTbProcResult *res)
{
  GitArgv list = { 0 };
  size_t at = 0, n = 0;
  char *count;

  git_argv_prefix (&list);
  git_argv_add (&list, "config");
  git_argv_add (&list, "--null");
  git_argv_add (&list, "--name-only");
  git_argv_add (&list, "--get-regexp");
  git_argv_add (&list, "^filter\\.");
  spec.argv = (const char *const *) list.items;
  if (ow_tb_proc_run (&spec, res) != 0 || res->cancelled || res->timed_out)
    {
      git_argv_free (&list);
      return -1;
    }
  git_argv_free (&list);
  /* 1 means no key matched; 128 is git failing to read its config, which
   * the command itself will report. */
  if (res->exit_code != 0)
    return res->exit_code == 1 || res->exit_code == 128 ? 0 : -1;
  while (at < res->out.len)
    {
      const char *name = res->out.data + at;
      size_t len = strnlen (name, res->out.len - at);
      const char *dot = len > 0 ? memrchr (name, '.', len) : NULL;

      /* "filter.<driver>.<key>": the driver is all between the first and
       * the last dot, and may itself hold dots. */
      if (dot != NULL && (size_t) (dot - name) > strlen ("filter."))
        for (size_t k = 0; filter_overrides[k] != NULL; k++, n++)
          {
            const char *eq = strchr (filter_overrides[k], '=');
            char *key = ow_tb_strdup_printf ("GIT_CONFIG_KEY_%zu=%.*s.%.*s", n, (int) (dot - name),
                                             name, (int) (eq - filter_overrides[k]),
                                             filter_overrides[k]);
            char *value = ow_tb_strdup_printf ("GIT_CONFIG_VALUE_%zu=%s", n, eq + 1);

            git_argv_add (sets, key);
            git_argv_add (sets, value);
            free (key);
            free (value);
          }
      at += len + 1;
    }
  count = ow_tb_strdup_printf ("GIT_CONFIG_COUNT=%zu", n);
  git_argv_add (sets, count);
  free (count);
  return 0;
}

/* Runs git with @args (NULL-terminated, without "git"). Returns 0 when it
 * ran (whatever its exit code); otherwise writes the error into @out. */
static int
run_git (const OwTbEnv *env, const char *const *args, OwTbProcResult *res, OwTbBuf *out,
         OwTbStatus *status)
{
  GitArgv argv = { 0 }, sets = { 0 };
  char **envp;
  OwTbProcSpec spec;
  char scratch[128];
  int ran;

  ow_tb_proc_result_init (res);
  if (env->n_roots == 0)
    {
      ow_tb_set_error (out, "this session has no folders to work in");
      *status = OW_TB_ERROR;
      return -1;
    }
  envp = ow_tb_env_build (env->shell != NULL ? ow_tb_shell_envp (env->shell) : NULL, git_env_set,
                          git_env_unset);
  memset (&spec, 0, sizeof spec);
  spec.cwd = env->roots[0].path;
  spec.envp = (const char *const *) envp;
  spec.timeout_ms = GIT_TIMEOUT_MS;
  spec.cancel_fd = env->cancel_fd;
  /* Enough bytes for OW_TB_OUTPUT_LIMIT characters of any UTF-8. */
  spec.max_stdout = OW_TB_OUTPUT_LIMIT * 4;
  spec.max_stderr = OW_TB_OUTPUT_LIMIT * 4;
  for (size_t i = 0; git_env_set[i] != NULL; i++)
    git_argv_add (&sets, git_env_set[i]);
  /* Whatever kept git from listing the filters, the command does not run
   * without their overrides. */
  if (add_filter_overrides (&sets, spec, res) != 0)
    {
      git_argv_free (&sets);
      ow_tb_env_free (envp);
      *status = OW_TB_ERROR;
      if (res->not_found)
        ow_tb_set_error (out, "git is not installed (no git on PATH)");
      else if (res->spawn_errno != 0)
        ow_tb_set_error (out, "cannot run git: %s",
                         ow_tb_strerror (res->spawn_errno, scratch, sizeof scratch));
      else if (res->cancelled)
        {
          ow_tb_set_error (out, "interrupted by user");
          *status = OW_TB_INTERRUPTED;
        }
      else if (res->timed_out)
        ow_tb_set_error (out, "git did not finish within %d seconds", GIT_TIMEOUT_MS / 1000);
      else
        ow_tb_set_error (out, "cannot read the repository's git config to switch off its filters "
                              "(git config exited with %d); git was not run", res->exit_code);
      return -1;
    }
  ow_tb_proc_result_clear (res);
  ow_tb_proc_result_init (res);
  ow_tb_env_free (envp);
  envp = ow_tb_env_build (env->shell != NULL ? ow_tb_shell_envp (env->shell) : NULL,
                          (const char *const *) sets.items, git_env_unset);
  git_argv_free (&sets);
  spec.envp = (const char *const *) envp;
  git_argv_prefix (&argv);
  for (size_t i = 0; args[i] != NULL; i++)
    git_argv_add (&argv, args[i]);
  spec.argv = (const char *const *) argv.items;
  ran = ow_tb_proc_run (&spec, res);
  git_argv_free (&argv);
  if (ran != 0)
    {
      if (res->not_found)
        ow_tb_set_error (out, "git is not installed (no git on PATH)");
      else
        ow_tb_set_error (out, "cannot run git: %s",
                         ow_tb_strerror (res->spawn_errno, scratch, sizeof scratch));
      ow_tb_env_free (envp);
      *status = OW_TB_ERROR;
      return -1;
    }
  ow_tb_env_free (envp);
  if (res->cancelled)
    {
      ow_tb_set_error (out, "interrupted by user");
      *status = OW_TB_INTERRUPTED;
      return -1;
    }
  if (res->timed_out)
    {
      ow_tb_set_error (out, "git did not finish within %d seconds", GIT_TIMEOUT_MS / 1000);
      *status = OW_TB_ERROR;
      return -1;
    }
  return 0;
}

/* Writes @key with the first OW_TB_OUTPUT_LIMIT characters of @buf;
 * returns 1 when something was cut. */
static int
write_clipped (OwTbObj *obj, const char *key, const OwTbBuf *buf, int was_truncated)
{
  size_t keep = ow_tb_utf8_head (buf->data, buf->len, OW_TB_OUTPUT_LIMIT);

  ow_tb_obj_strn (obj, key, buf->data, keep);
  return was_truncated || keep < buf->len;
}

/* {command, exit_code, stdout, stderr, truncated} (+ error when git failed). */
static OwTbStatus
command_result (const char *command, OwTbProcResult *res, OwTbBuf *out)
{
  OwTbObj obj;
  int truncated;

  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  if (res->exit_code != 0)
    {
      size_t len = res->err.len;
      size_t keep;
      char *msg;

      while (len > 0 && (res->err.data[len - 1] == '\n' || res->err.data[len - 1] == ' '))
        len--;
      keep = ow_tb_utf8_head (res->err.data, len, 500);
      msg = ow_tb_strdup_printf ("%s failed (exit %d)%s%.*s", command, res->exit_code,
                                 keep > 0 ? ": " : "", (int) keep, res->err.data);
      ow_tb_obj_str (&obj, "error", msg);
      free (msg);
    }
  ow_tb_obj_str (&obj, "command", command);
  ow_tb_obj_int (&obj, "exit_code", res->exit_code);
  truncated = write_clipped (&obj, "stdout", &res->out, res->out_truncated);
  truncated = write_clipped (&obj, "stderr", &res->err, res->err_truncated) || truncated;
  ow_tb_obj_bool (&obj, "truncated", truncated);
  ow_tb_obj_end (&obj);
  return res->exit_code == 0 ? OW_TB_OK : OW_TB_ERROR;
}

/* Resolves the optional "path" argument to a pathspec; 0, or -1 with @out set. */
static int
pathspec (const OwTbEnv *env, const OwTbJson *args, char **spec, OwTbBuf *out, OwTbStatus *status)
{
  const char *raw;
  OwTbPath path;

  *spec = NULL;
  if (ow_tb_arg_string (args, "path", 0, &raw, NULL, out) != 0)
    {
      *status = OW_TB_BAD_ARGS;
      return -1;
    }
  if (raw == NULL || raw[0] == '\0')
    return 0;
  if (ow_tb_path_resolve (env, raw, OW_TB_ACCESS_READ, &path, out) != 0)
    {
      *status = OW_TB_ERROR;
      return -1;
    }
  *spec = path.display;
  path.display = NULL;
  ow_tb_path_clear (&path);
  return 0;
}

OwTbStatus
ow_tb_tool_git_status (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  /* "dirty" still shows a submodule's new commits but never runs git
   * inside it, where its own config could name programs. */
  static const char *const argv[] = { "status", "--short", "--branch", "--ignore-submodules=dirty",
                                      NULL };
  OwTbProcResult res;
  OwTbStatus status;

  if (run_git (env, argv, &res, out, &status) != 0)
    {
      ow_tb_proc_result_clear (&res);
      return status;
    }
  status = command_result ("git status --short --branch", &res, out);
  ow_tb_proc_result_clear (&res);
  return status;
}

OwTbStatus
ow_tb_tool_git_diff (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *argv[10];
  size_t argc = 0;
  int staged;
  char *spec;
  OwTbProcResult res;
  OwTbStatus status = OW_TB_OK;
  OwTbBuf command;

  if (ow_tb_arg_bool (args, "staged", 0, &staged, out) != 0)
    return OW_TB_BAD_ARGS;
  if (pathspec (env, args, &spec, out, &status) != 0)
    return status;
  ow_tb_buf_init (&command);
  ow_tb_buf_puts (&command, "git diff");
  argv[argc++] = "diff";
  argv[argc++] = "--no-ext-diff";
  argv[argc++] = "--no-textconv";
  argv[argc++] = "--ignore-submodules=dirty";
  if (staged)
    {
      argv[argc++] = "--staged";
      ow_tb_buf_puts (&command, " --staged");
    }
  if (spec != NULL)
    {
      argv[argc++] = "--";
      argv[argc++] = spec;
      ow_tb_buf_printf (&command, " -- %s", spec);
    }
  argv[argc] = NULL;
  if (run_git (env, argv, &res, out, &status) == 0)
    status = command_result (command.data, &res, out);
  ow_tb_proc_result_clear (&res);
  ow_tb_buf_free (&command);
  free (spec);
  return status;
}

OwTbStatus
ow_tb_tool_git_log (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *argv[13];
  size_t argc = 0;
  long long max;
  char count_arg[32];
  char *spec;
  OwTbProcResult res;
  OwTbStatus status = OW_TB_OK;
  OwTbObj obj, arr;
  size_t at = 0, count = 0;

  if (ow_tb_arg_int (args, "max_count", 20, &max, out) != 0)
    return OW_TB_BAD_ARGS;
  if (env->n_roots == 0)
    {
      ow_tb_set_error (out, "this session has no folders to work in");
      return OW_TB_ERROR;
    }
  max = max < 1 ? 1 : max > 200 ? 200 : max;
  if (pathspec (env, args, &spec, out, &status) != 0)
    return status;
  snprintf (count_arg, sizeof count_arg, "-n%lld", max);
  argv[argc++] = "-C";
  argv[argc++] = env->roots[0].path;
  argv[argc++] = "log";
  argv[argc++] = count_arg;
  argv[argc++] = "--no-show-signature";
  /* Fields are separated by U+001F, which no name or subject contains. */
  argv[argc++] = "--pretty=format:%h%x1f%an%x1f%ad%x1f%s";
  argv[argc++] = "--date=short";
  if (spec != NULL)
    {
      argv[argc++] = "--";
      argv[argc++] = spec;
    }
  argv[argc] = NULL;
  if (run_git (env, argv, &res, out, &status) != 0)
    goto done;
  if (res.exit_code != 0)
    {
      status = command_result ("git log", &res, out);
      goto done;
    }

  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_key (&obj, "commits");
  ow_tb_arr_begin (&arr, out);
  while (at < res.out.len)
    {
      char *nl = memchr (res.out.data + at, '\n', res.out.len - at);
      size_t end = nl != NULL ? (size_t) (nl - res.out.data) : res.out.len;
      const char *field[4] = { NULL, NULL, NULL, NULL };
      size_t flen[4] = { 0, 0, 0, 0 };
      size_t f = 0, start = at;

      for (size_t k = at; k <= end && f < 4; k++)
        if (k == end || res.out.data[k] == '\x1f')
          {
            field[f] = res.out.data + start;
            flen[f] = k - start;
            f++;
            start = k + 1;
          }
      if (f == 4)
        {
          OwTbObj item;

          ow_tb_obj_key (&arr, NULL);
          ow_tb_obj_begin (&item, out);
          ow_tb_obj_strn (&item, "hash", field[0], flen[0]);
          ow_tb_obj_strn (&item, "author", field[1], flen[1]);
          ow_tb_obj_strn (&item, "date", field[2], flen[2]);
          ow_tb_obj_strn (&item, "subject", field[3], end - (size_t) (field[3] - res.out.data));
          ow_tb_obj_end (&item);
          count++;
        }
      at = end + 1;
    }
  ow_tb_obj_end (&arr);
  ow_tb_obj_int (&obj, "count", (long long) count);
  ow_tb_obj_end (&obj);
  status = OW_TB_OK;

done:
  ow_tb_proc_result_clear (&res);
  free (spec);
  return status;
}
