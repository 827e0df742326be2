/* fuzz-shell.c: fuzz target for the shell reader and the safety checks.
 *
 * Any input (up to its first NUL, since commands are C strings) must be
 * read into a parse that keeps the header's promises, and the safety
 * checks must judge it — as a command, as a file tool's path and as a
 * patch — within their bounds, in a fixed world that does not exist on
 * disk (so nothing real is resolved but what the input names itself).
 * Invariants checked on every input:
 *   - PARSE_ERROR is set exactly when there is an error text;
 *   - a plain parse has exactly one command, with a non-empty argv, no
 *     redirections, and ow_shell_split_plain gives back that argv;
 *   - every command has argv, assignments, redirects and dynamic; every
 *     writing redirection has a target; the program's arguments start
 *     inside argv; the command line a program runs (sh -c, eval, su -c, …)
 *     comes from its arguments, and a shell has one exactly when it was
 *     given -c STRING;
 *   - reading the same text twice gives the same features and commands;
 *   - a command that cannot be read hits every safety check; a result
 *     has reasons exactly when it has checks, and no unknown bits;
 *   - reasons are valid UTF-8 without control characters (they are shown
 *     to people and go into JSON), whatever bytes the command held;
 *   - downloads are absolute paths.
 * Any breach aborts, so the fuzzer records the input.
 */
#include "policy/ow-safety.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define ALL_CHECKS (OW_SAFETY_DOWNLOADED_EXEC | OW_SAFETY_WRITE_OUTSIDE | OW_SAFETY_PROTECTED_FILE \
                    | OW_SAFETY_PERSISTENT_AUTHORITY | OW_SAFETY_RECURSIVE_DELETE \
                    | OW_SAFETY_CREDENTIAL_READ | OW_SAFETY_OPAQUE_CODE)

static const char *const roots[] = { "/nonexistent-ow-fuzz/ws", "/nonexistent-ow-fuzz/ro", NULL };
static const gboolean writable[] = { TRUE, FALSE };
static const char *const agent_dirs[] = { "/nonexistent-ow-fuzz/home/.config/openworker", NULL };
static const char *const downloaded[] = { "/nonexistent-ow-fuzz/ws/fetched.sh", NULL };

static const OwSafetyContext context = {
  roots,      writable,   2, "/nonexistent-ow-fuzz/ws", "/nonexistent-ow-fuzz/home",
  agent_dirs, downloaded,
};

static void
check (gboolean ok, const char *what)
{
  if (!ok)
    {
      fprintf (stderr, "fuzz-shell: invariant broken: %s\n", what);
      abort ();
    }
}

static void
check_parse (const OwShellParse *parse)
{
  check (parse != NULL && parse->commands != NULL, "a parse");
  check (((parse->features & OW_SHELL_PARSE_ERROR) != 0) == (parse->error != NULL),
         "error iff PARSE_ERROR");
  if (parse->error != NULL)
    {
      check (g_utf8_validate (parse->error, -1, NULL), "errors are valid UTF-8");
      for (const char *p = parse->error; *p != '\0'; p++)
        check ((guchar) *p >= 0x20 && *p != 0x7f, "errors hold no control characters");
    }
  check ((parse->features & ~0x1fffu) == 0, "only known feature bits");
  for (guint i = 0; i < parse->commands->len; i++)
    {
      const OwShellCommand *cmd = g_ptr_array_index (parse->commands, i);
      guint argc, start = 0;
      const char *program;

      check (cmd != NULL && cmd->argv != NULL && cmd->assignments != NULL && cmd->redirects != NULL
             && cmd->dynamic != NULL, "a complete command");
      argc = g_strv_length (cmd->argv);
      program = ow_shell_command_program (cmd, &start);
      check ((program == NULL) == (argc == 0), "a program exactly when there are words");
      check (start <= argc, "arguments start inside argv");
      {
        guint at = 0;
        g_autofree char *inner = ow_shell_inner_command (cmd, &at);

        if (inner != NULL)
          {
            check (at >= start && at < argc, "an inner command line is one of the arguments");
            if (strcmp (program, "eval") == 0)
              {
                g_autofree char *joined = g_strjoinv (" ", cmd->argv + at);

                check (strcmp (inner, joined) == 0, "eval runs its words joined");
              }
            else if (ow_shell_is_shell (program))
              check (strcmp (inner, cmd->argv[at]) == 0, "a shell runs the word after its -c");
          }
        if (program != NULL && ow_shell_is_shell (program))
          {
            guint dynamic_at;
            OwShellRuns runs = ow_shell_shell_runs (cmd, start, &at, &dynamic_at);

            check (at <= argc, "what a shell runs is inside argv");
            check (dynamic_at == G_MAXUINT || (dynamic_at >= start && dynamic_at < at),
                   "an unknown word before -c comes before it");
            check ((inner != NULL) == (runs == OW_SHELL_RUNS_STRING && cmd->argv[at] != NULL),
                   "a shell has an inner command line exactly when it runs -c STRING");
          }
      }
      for (guint k = 0; k < cmd->redirects->len; k++)
        {
          const OwShellRedirect *r = g_ptr_array_index (cmd->redirects, k);

          check (r->op != NULL, "a redirection operator");
          check (!r->writes || r->target != NULL, "a write has a target");
          check (r->body == NULL || strstr (r->op, "<<") != NULL, "bodies only on here-documents");
        }
    }
  if (ow_shell_parse_is_plain (parse, FALSE))
    {
      const OwShellCommand *cmd;

      check (parse->commands->len == 1, "a plain parse has one command");
      cmd = g_ptr_array_index (parse->commands, 0);
      check (cmd->argv[0] != NULL, "a plain command has words");
      check (cmd->redirects->len == 0 && cmd->assignments[0] == NULL,
             "a plain command is only words");
    }
  check (!ow_shell_parse_is_plain (parse, FALSE) || ow_shell_parse_is_plain (parse, TRUE),
         "allowing assignments never makes a parse less plain");
}

static char *
render (const OwShellParse *parse)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%x:", parse->features);
  for (guint i = 0; i < parse->commands->len; i++)
    {
      const OwShellCommand *cmd = g_ptr_array_index (parse->commands, i);

      for (guint k = 0; cmd->argv[k] != NULL; k++)
        g_string_append_printf (out, "%s%c\x1f", cmd->argv[k], cmd->dynamic[k] ? '*' : ' ');
      g_string_append_c (out, '\x1e');
    }
  return g_string_free (out, FALSE);
}

static void
check_result (const OwSafetyResult *result)
{
  check ((result->checks & ~ALL_CHECKS) == 0, "only known checks");
  check ((result->checks == 0) == (result->reasons->len == 0), "reasons exactly with checks");
  for (guint i = 0; i < result->reasons->len; i++)
    {
      const char *reason = g_ptr_array_index (result->reasons, i);

      check (g_utf8_validate (reason, -1, NULL), "reasons are valid UTF-8");
      for (const char *p = reason; *p != '\0'; p++)
        check ((guchar) *p >= 0x20 && *p != 0x7f, "reasons hold no control characters");
    }
}

static void
judge (const char *tool, const char *member, const char *text, guint *checks)
{
  g_autoptr(JsonObject) args = json_object_new ();
  OwSafetyResult result;

  json_object_set_string_member (args, member, text);
  ow_safety_result_init (&result);
  ow_safety_check_tool (&context, tool, args, &result);
  check_result (&result);
  if (checks != NULL)
    *checks = result.checks;
  ow_safety_result_clear (&result);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const struct {
    const char *tool;    /* a file tool */
    const char *member;  /* the argument the input goes into */
  } tools[] = {
    { "write_file", "path" }, { "read_file", "path" }, { "grep", "path" },
    { "apply_patch", "patch" }, { "apply_unified_diff", "diff" }, { "some_tool", "destination" },
  };
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr(OwShellParse) parse = ow_shell_parse (text);
  guint checks = 0;

  check_parse (parse);
  /* Runs are kept cheap, since the fuzz suite runs this under slow
   * sanitizer settings: the second read, the file tools and the
   * downloads are checked on a share of the inputs, picked by the input
   * itself so that any of them can be reached. */
  if (size < 512 && (size == 0 || (data[0] & 3) == 0))
    {
      g_autoptr(OwShellParse) again = ow_shell_parse (text);
      g_autofree char *first = render (parse);
      g_autofree char *second = render (again);

      check (strcmp (first, second) == 0, "reading is deterministic");
    }
  if (ow_shell_parse_is_plain (parse, FALSE))
    {
      g_auto(GStrv) argv = ow_shell_split_plain (text);
      const OwShellCommand *cmd = g_ptr_array_index (parse->commands, 0);

      check (argv != NULL
             && g_strv_equal ((const char *const *) argv, (const char *const *) cmd->argv),
             "split_plain gives the plain argv");
      check (ow_shell_argv_has_prefix ((const char *const *) cmd->argv, (const char *const *) argv),
             "an argv has itself as a prefix");
    }

  judge ("run_shell", "command", text, &checks);
  if (parse->features & OW_SHELL_PARSE_ERROR)
    check (checks == ALL_CHECKS, "an unreadable command hits every check");
  if (size > 0 && (data[size - 1] & 1) == 0)
    {
      guint pick = data[0] % G_N_ELEMENTS (tools);

      judge (tools[pick].tool, tools[pick].member, text, NULL);
    }
  if (size > 0 && (data[size - 1] & 2) == 0)
    {
      g_auto(GStrv) files = ow_safety_downloads_of (&context, text);

      check (files != NULL, "downloads is a list");
      for (guint i = 0; files[i] != NULL; i++)
        check (files[i][0] == '/', "downloads are absolute");
    }
  return 0;
}
