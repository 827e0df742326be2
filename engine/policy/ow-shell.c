/* ow-shell.c: reading a bash command line without running it (see ow-shell.h).
 *
 * The command text comes from the model, which may have been talked into
 * anything, so this reader assumes hostile input and reads it the way bash
 * would: a recursive-descent parser over the grammar of bash's lists,
 * pipelines, compound commands and simple commands, with a lexer that is
 * driven by the parser (reserved words only count where a command starts,
 * `[[ … ]]` and case patterns are lexed differently). Quotes are removed
 * exactly as bash removes them; anything whose value is only known when
 * the command runs (parameters, substitutions, globs, brace expansion, a
 * leading tilde) is kept as written and marked dynamic, so the safety
 * checks never mistake a guess for a fact.
 *
 * Substitutions are not opaque: `$( … )`, backquotes, `<( … )`, `>( … )`
 * and the `$( … )` hidden in `${x:-…}`, `$(( … ))` and unquoted here-doc
 * bodies are parsed too, and every simple command they contain is added
 * to the same flat list, in order of appearance, next to those of
 * pipelines, subshells, brace groups and compound commands.
 *
 * Whatever cannot be read with confidence — unbalanced quotes or brackets,
 * a here-document that never ends, a NUL in `$'…'`, bash syntax errors,
 * nesting past SHELL_MAX_DEPTH, more than 1 MiB of text — sets
 * OW_SHELL_PARSE_ERROR with a reason, and the policy then treats the
 * command as hostile. Work and memory are bounded for any input: every
 * byte is looked at a bounded number of times (backquote and here-doc
 * bodies are copied once per nesting level, and nesting is capped), and
 * word and command counts are capped.
 *
 * The reader is split over ow-shell-private.h: this file (the public
 * entry points), ow-shell-lexer.c (tokens, quotes, expansions and
 * here-documents), ow-shell-parser.c (the grammar) and
 * ow-shell-programs.c (wrappers, and the command lines shells and eval
 * run).
 */
#define G_LOG_DOMAIN "ow-shell"

#include "policy/ow-shell.h"
#include "policy/ow-shell-private.h"

#include <string.h>

/* ---- public ---- */

/* Errors quote the command, which may hold any bytes; they are shown to
 * people and stored as JSON, so they are made valid UTF-8 with control
 * characters spelled out. */
static char *
readable (const char *text)
{
  g_autofree char *made = g_utf8_validate (text, -1, NULL) ? NULL : g_utf8_make_valid (text, -1);
  const char *valid = made != NULL ? made : text;
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

OwShellParse *
ow_shell_parse (const char *command)
{
  OwShellParse *parse = g_new0 (OwShellParse, 1);
  Shared shared = { 0 };
  Parser p;
  gsize len;

  parse->commands = g_ptr_array_new_with_free_func (ow_shell_command_free);
  if (command == NULL)
    {
      parse->features = OW_SHELL_PARSE_ERROR;
      parse->error = g_strdup ("there is no command");
      return parse;
    }
  len = strlen (command);
  if (len > SHELL_MAX_INPUT)
    {
      parse->features = OW_SHELL_PARSE_ERROR;
      parse->error = g_strdup_printf ("the command is longer than %d bytes", SHELL_MAX_INPUT);
      return parse;
    }
  shared.commands = parse->commands;
  ow_shell_parser_init (&p, &shared, command, len);
  ow_shell_parse_program (&p);
  ow_shell_parser_clear (&p);

  /* drop the slots of commands that were never finished */
  for (guint i = parse->commands->len; i > 0; i--)
    if (g_ptr_array_index (parse->commands, i - 1) == NULL)
      g_ptr_array_remove_index (parse->commands, i - 1);
  parse->features = shared.features;
  if (shared.error != NULL)
    {
      parse->features |= OW_SHELL_PARSE_ERROR;
      parse->error = readable (shared.error);
      g_free (shared.error);
    }
  return parse;
}

void
ow_shell_parse_free (OwShellParse *parse)
{
  if (parse == NULL)
    return;
  g_clear_pointer (&parse->commands, g_ptr_array_unref);
  g_free (parse->error);
  g_free (parse);
}

gboolean
ow_shell_parse_is_plain (const OwShellParse *parse, gboolean allow_assignments)
{
  guint allowed = allow_assignments ? OW_SHELL_ASSIGNMENT : 0;
  const OwShellCommand *cmd;

  if (parse == NULL || parse->commands->len != 1 || (parse->features & ~allowed) != 0)
    return FALSE;
  cmd = g_ptr_array_index (parse->commands, 0);
  return cmd->argv != NULL && cmd->argv[0] != NULL && cmd->redirects->len == 0
         && (allow_assignments || cmd->assignments[0] == NULL);
}

gboolean
ow_shell_argv_has_prefix (const char *const *argv, const char *const *prefix)
{
  guint i;

  /* an empty prefix would match every command: never a match */
  if (argv == NULL || prefix == NULL || prefix[0] == NULL)
    return FALSE;
  for (i = 0; prefix[i] != NULL; i++)
    if (argv[i] == NULL || strcmp (argv[i], prefix[i]) != 0)
      return FALSE;
  return TRUE;
}

GStrv
ow_shell_split_plain (const char *text)
{
  g_autoptr(OwShellParse) parse = ow_shell_parse (text);
  const OwShellCommand *cmd;

  if (!ow_shell_parse_is_plain (parse, FALSE))
    return NULL;
  cmd = g_ptr_array_index (parse->commands, 0);
  return g_strdupv (cmd->argv);
}
