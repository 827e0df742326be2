/* ow-tb.c: the tool bodies' front door — dispatch and arguments.
 *
 * This folder is the one implementation of the shell and file tools
 * (run_shell and its background tasks, read_file, write_file,
 * replace_in_file, apply_patch, list_files, grep, git_status, git_diff,
 * git_log). It is plain C over libc and POSIX so that the engine can run
 * it in-process and openworker-tool-runner can host the same code inside
 * a sandbox. Reading order:
 *
 *   ow-tb.c        dispatch by tool name; argument extraction with errors
 *                  that name the parameter
 *   ow-tb-json.c   the strict JSON reader the arguments go through
 *   ow-tb-buf.c    buffers, UTF-8 helpers and the result writer
 *   ow-tb-paths.c  roots, "~", symlinks and the confinement rules
 *   ow-tb-files.c  read_file, write_file, replace_in_file, list_files
 *   ow-tb-patch.c  apply_patch (the Codex patch envelope)
 *   ow-tb-grep.c   grep: ripgrep when present, else a built-in walk
 *   ow-tb-git.c    git_status, git_diff, git_log
 *   ow-tb-proc.c   spawning programs with a timeout and captured output
 *   ow-tb-shell.c  the persistent shell and background tasks
 *
 * Every tool takes a parsed argument object and writes one JSON object
 * into the output buffer; a failure is {"error": "…"} with a sentence the
 * model can act on.
 */
#include "ow-tb-private.h"

#include <stdlib.h>
#include <string.h>

/* One hosted tool. */
typedef struct {
  const char  *name;  /* the original's tool name */
  OwTbToolFunc func;  /* its body */
} ToolEntry;

static const ToolEntry tools[] = {
  { "run_shell", ow_tb_tool_run_shell },
  { "shell_task_output", ow_tb_tool_shell_task_output },
  { "shell_task_kill", ow_tb_tool_shell_task_kill },
  { "read_file", ow_tb_tool_read_file },
  { "write_file", ow_tb_tool_write_file },
  { "replace_in_file", ow_tb_tool_replace_in_file },
  { "apply_patch", ow_tb_tool_apply_patch },
  { "list_files", ow_tb_tool_list_files },
  { "grep", ow_tb_tool_grep },
  { "git_status", ow_tb_tool_git_status },
  { "git_diff", ow_tb_tool_git_diff },
  { "git_log", ow_tb_tool_git_log },
};

static const char *const tool_names[] = {
  "run_shell", "shell_task_output", "shell_task_kill", "read_file", "write_file",
  "replace_in_file", "apply_patch", "list_files", "grep", "git_status", "git_diff",
  "git_log", NULL,
};

static const ToolEntry *
find_tool (const char *name)
{
  if (name == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
    if (strcmp (tools[i].name, name) == 0)
      return &tools[i];
  return NULL;
}

int
ow_tb_is_known (const char *name)
{
  return find_tool (name) != NULL;
}

const char *const *
ow_tb_tool_names (void)
{
  return tool_names;
}

/* Models send "", "null" or nothing for tools without parameters. */
static int
is_empty_arguments (const char *text, size_t len)
{
  size_t i = 0, end = len;

  if (text == NULL)
    return 1;
  while (i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    i++;
  while (end > i && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n'
                     || text[end - 1] == '\r'))
    end--;
  return end == i || (end - i == 4 && memcmp (text + i, "null", 4) == 0);
}

OwTbStatus
ow_tb_call (const OwTbEnv *env,
            const char    *name,
            const char    *args_json,
            size_t         args_len,
            OwTbBuf       *out)
{
  const ToolEntry *tool = find_tool (name);
  OwTbJson *args;
  OwTbStatus status;
  char err[160];

  if (out->data == NULL)
    ow_tb_buf_init (out);
  ow_tb_buf_reset (out);
  if (tool == NULL)
    {
      ow_tb_set_error (out, "unknown tool: %s", name != NULL ? name : "(null)");
      return OW_TB_UNKNOWN_TOOL;
    }
  if (is_empty_arguments (args_json, args_len))
    args = ow_tb_json_parse ("{}", 2, NULL, 0);
  else
    args = ow_tb_json_parse (args_json, args_len, err, sizeof err);
  if (args == NULL)
    {
      ow_tb_set_error (out, "the arguments of %s are not valid JSON (%s); send one JSON object",
                       name, err);
      return OW_TB_BAD_ARGS;
    }
  if (args->type != OW_TB_JSON_OBJECT)
    {
      ow_tb_json_free (args);
      ow_tb_set_error (out, "the arguments of %s must be a JSON object", name);
      return OW_TB_BAD_ARGS;
    }
  status = tool->func (env, args, out);
  ow_tb_json_free (args);
  return status;
}

/* ---- argument extraction ---- */

static const char *
type_name (const OwTbJson *node)
{
  switch (node->type)
    {
    case OW_TB_JSON_NULL: return "null";
    case OW_TB_JSON_BOOL: return "a boolean";
    case OW_TB_JSON_NUMBER: return "a number";
    case OW_TB_JSON_STRING: return "a string";
    case OW_TB_JSON_ARRAY: return "an array";
    case OW_TB_JSON_OBJECT: return "an object";
    default: return "unknown";
    }
}

int
ow_tb_arg_string (const OwTbJson *args, const char *name, int required,
                  const char **value, size_t *len, OwTbBuf *out)
{
  const OwTbJson *node = ow_tb_json_get (args, name);

  if (node == NULL || node->type == OW_TB_JSON_NULL)
    {
      if (required)
        {
          ow_tb_set_error (out, "missing required parameter \"%s\" (a string)", name);
          return -1;
        }
      *value = NULL;
      if (len != NULL)
        *len = 0;
      return 0;
    }
  if (node->type != OW_TB_JSON_STRING)
    {
      ow_tb_set_error (out, "parameter \"%s\" must be a string, not %s", name, type_name (node));
      return -1;
    }
  *value = node->string;
  if (len != NULL)
    *len = node->string_len;
  return 0;
}

/* Parses a number spelled as a string ("20"); 1 on success. The JSON
 * reader does it, since strtod would follow the desktop's locale. */
static int
number_from_string (const char *s, double *v)
{
  OwTbJson *node = ow_tb_json_parse (s, strlen (s), NULL, 0);
  int ok = node != NULL && node->type == OW_TB_JSON_NUMBER;

  if (ok)
    *v = node->number;
  ow_tb_json_free (node);
  return ok;
}

int
ow_tb_arg_number (const OwTbJson *args, const char *name, double def,
                  double *value, OwTbBuf *out)
{
  const OwTbJson *node = ow_tb_json_get (args, name);

  if (node == NULL || node->type == OW_TB_JSON_NULL)
    {
      *value = def;
      return 0;
    }
  if (node->type == OW_TB_JSON_NUMBER)
    {
      *value = node->number;
      return 0;
    }
  if (node->type == OW_TB_JSON_STRING && number_from_string (node->string, value))
    return 0;
  ow_tb_set_error (out, "parameter \"%s\" must be a number, not %s", name, type_name (node));
  return -1;
}

int
ow_tb_arg_int (const OwTbJson *args, const char *name, long long def,
               long long *value, OwTbBuf *out)
{
  const OwTbJson *node = ow_tb_json_get (args, name);
  double v;

  if (node == NULL || node->type == OW_TB_JSON_NULL)
    {
      *value = def;
      return 0;
    }
  if (node->type == OW_TB_JSON_NUMBER)
    v = node->number;
  else if (node->type != OW_TB_JSON_STRING || !number_from_string (node->string, &v))
    {
      ow_tb_set_error (out, "parameter \"%s\" must be an integer, not %s", name, type_name (node));
      return -1;
    }
  /* Range first, so the cast is defined; no libm needed. */
  if (!(v >= -9e15 && v <= 9e15) || (double) (long long) v != v)
    {
      ow_tb_set_error (out, "parameter \"%s\" must be an integer, not %g", name, v);
      return -1;
    }
  *value = (long long) v;
  return 0;
}

int
ow_tb_arg_bool (const OwTbJson *args, const char *name, int def,
                int *value, OwTbBuf *out)
{
  const OwTbJson *node = ow_tb_json_get (args, name);

  if (node == NULL || node->type == OW_TB_JSON_NULL)
    {
      *value = def;
      return 0;
    }
  if (node->type == OW_TB_JSON_BOOL)
    {
      *value = node->boolean;
      return 0;
    }
  if (node->type == OW_TB_JSON_STRING)
    {
      if (strcmp (node->string, "true") == 0)
        {
          *value = 1;
          return 0;
        }
      if (strcmp (node->string, "false") == 0)
        {
          *value = 0;
          return 0;
        }
    }
  if (node->type == OW_TB_JSON_NUMBER && (node->number == 0 || node->number == 1))
    {
      *value = node->number == 1;
      return 0;
    }
  ow_tb_set_error (out, "parameter \"%s\" must be true or false, not %s", name, type_name (node));
  return -1;
}
