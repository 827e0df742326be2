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
 */
#include "ow-tb-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIT_TIMEOUT_MS 15000

static const char *const git_env_set[] = {
  "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat", NULL,
};

/* Runs git with @args (NULL-terminated, without "git"). Returns 0 when it
 * ran (whatever its exit code); otherwise writes the error into @out. */
static int
run_git (const OwTbEnv *env, const char *const *args, OwTbProcResult *res, OwTbBuf *out,
         OwTbStatus *status)
{
  const char *argv[32];
  size_t argc = 0;
  char **envp;
  OwTbProcSpec spec;
  char scratch[128];

  ow_tb_proc_result_init (res);
  if (env->n_roots == 0)
    {
      ow_tb_set_error (out, "this session has no folders to work in");
      *status = OW_TB_ERROR;
      return -1;
    }
  argv[argc++] = "git";
  for (size_t i = 0; args[i] != NULL && argc < 31; i++)
    argv[argc++] = args[i];
  argv[argc] = NULL;
  envp = ow_tb_env_build (env->shell != NULL ? ow_tb_shell_envp (env->shell) : NULL, git_env_set,
                          NULL);
  memset (&spec, 0, sizeof spec);
  spec.argv = argv;
  spec.cwd = env->roots[0].path;
  spec.envp = (const char *const *) envp;
  spec.timeout_ms = GIT_TIMEOUT_MS;
  spec.cancel_fd = env->cancel_fd;
  /* Enough bytes for OW_TB_OUTPUT_LIMIT characters of any UTF-8. */
  spec.max_stdout = OW_TB_OUTPUT_LIMIT * 4;
  spec.max_stderr = OW_TB_OUTPUT_LIMIT * 4;
  if (ow_tb_proc_run (&spec, res) != 0)
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
  static const char *const argv[] = { "status", "--short", "--branch", NULL };
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
  const char *argv[8];
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
  const char *argv[12];
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
