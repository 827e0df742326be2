/* ow-shell-result.c: what the model is told about a finished shell command.
 *
 * The shell body returns the full record of a command as JSON: the command
 * itself, the folder it ended in, the exit code, the output, whether it
 * timed out or was cut, notes. The record is what the event log and the
 * audit keep. The model needs much less, and it reads it again on every
 * later step of the session: it wrote the command itself, the folder rarely
 * changes, and "timed_out": false says nothing. So the model gets plain
 * text: the output as the command printed it, then one bracketed line per
 * fact that is not the usual — the exit code when it is not 0, the folder
 * when the command moved the shell, the note when output was cut or the
 * shell was reset, the error when it timed out or was stopped. A command
 * that printed nothing and succeeded says "(no output)", so an empty
 * result is never mistaken for a lost one.
 *
 * Plain text rather than lean JSON: the output is most of every result,
 * and JSON would escape each newline and quote in it, which costs bytes
 * and makes the model read the output through a layer of escapes.
 */
#define G_LOG_DOMAIN "ow-tools"

#include "tools/ow-shell-result.h"

#include <string.h>

#include "ow-json.h"

/**
 * ow_shell_result_for_model:
 * @record_text: the shell body's JSON record of one foreground command
 * @previous_cwd: (nullable): the shell's folder before the command
 *
 * Returns: (transfer full): the text the model gets, or a copy of
 *   @record_text when it is not a foreground command's record (a background
 *   task's start, an argument error): those are short and already lean.
 */
char *
ow_shell_result_for_model (const char *record_text,
                           const char *previous_cwd)
{
  g_autoptr(JsonObject) record = ow_json_object_from_string (record_text, -1, NULL);
  JsonNode *code;
  const char *output, *cwd, *note, *error;
  GString *text;

  if (record == NULL || !json_object_has_member (record, "exit_code")
      || ow_json_get_string (record, "output") == NULL)
    return g_strdup (record_text);

  output = ow_json_get_string (record, "output");
  cwd = ow_json_get_string (record, "cwd");
  note = ow_json_get_string (record, "note");
  error = ow_json_get_string (record, "error");
  code = json_object_get_member (record, "exit_code");

  text = g_string_new (output);
  if (text->len > 0 && text->str[text->len - 1] != '\n')
    g_string_append_c (text, '\n');
  if (code != NULL && JSON_NODE_HOLDS_VALUE (code) && json_node_get_int (code) != 0)
    g_string_append_printf (text, "[exit code %" G_GINT64_FORMAT "]\n", json_node_get_int (code));
  if (cwd != NULL && previous_cwd != NULL && g_strcmp0 (cwd, previous_cwd) != 0)
    g_string_append_printf (text, "[now in %s]\n", cwd);
  if (error != NULL)
    g_string_append_printf (text, "[error: %s]\n", error);
  if (note != NULL)
    g_string_append_printf (text, "[note: %s]\n", note);
  /* What the layers around the shell add (the guard's refused paths, the
   * sandbox's blocked hosts and restarts) is for the model every time:
   * "guard_note" becomes "[guard: …]". */
  {
    g_autoptr(GList) members = json_object_get_members (record);

    for (GList *m = members; m != NULL; m = m->next)
      {
        const char *name = m->data;
        const char *value;

        if (!g_str_has_suffix (name, "_note") || (value = ow_json_get_string (record, name)) == NULL)
          continue;
        g_string_append_printf (text, "[%.*s: %s]\n", (int) (strlen (name) - 5), name, value);
      }
  }
  if (text->len == 0)
    g_string_append (text, "(no output)");
  else if (text->str[text->len - 1] == '\n')
    g_string_truncate (text, text->len - 1);
  return g_string_free (text, FALSE);
}
