/* ow-tool-args.c: tool-call arguments (see ow-tool-args.h). */
#define G_LOG_DOMAIN "ow-tool-args"

#include "core/ow-tool-args.h"

#include <string.h>

#include "core/ow-event.h"
#include "ow-json.h"

JsonObject *
ow_tool_args_parse (const char *text, gssize len, char **problem)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  gsize i;

  if (problem != NULL)
    *problem = NULL;
  for (i = 0; i < n && g_ascii_isspace (text[i]); i++)
    ;
  if (i == n)
    return json_object_new ();
  if (!g_utf8_validate (text, (gssize) n, NULL))
    {
      if (problem != NULL)
        *problem = g_strdup ("the arguments are not valid UTF-8");
      return NULL;
    }
  root = ow_json_parse (text, (gssize) n, &error);
  if (root == NULL)
    {
      if (problem != NULL)
        *problem = g_strdup_printf ("the arguments are not valid JSON (%s)", error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      if (problem != NULL)
        *problem = g_strdup ("the arguments are JSON but not an object");
      return NULL;
    }
  /* The parse is immutable; callers fill in defaults. */
  return ow_json_object_deep_copy (json_node_get_object (root));
}

char *
ow_tool_args_history_raw (const char *text)
{
  g_autoptr(JsonObject) obj = json_object_new ();
  glong chars = g_utf8_validate (text, -1, NULL) ? g_utf8_strlen (text, -1) : (glong) strlen (text);
  g_autofree char *valid = g_utf8_make_valid (text, -1);

  if (chars > 200)
    {
      g_autofree char *head = g_utf8_substring (valid, 0, 200);
      g_autofree char *shrunk = g_strdup_printf ("%s… [unparsed tool-call text, %ld characters, shortened in history]",
                                                 head, chars);
      json_object_set_string_member (obj, "_raw", shrunk);
    }
  else
    json_object_set_string_member (obj, "_raw", valid);
  return ow_json_object_to_string (obj);
}

char *
ow_tool_args_mangled_result (gboolean cut_off, const char *problem)
{
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_string_member (obj, "error", "tool call not executed");
  if (cut_off)
    json_object_set_string_member (obj, "reason",
      "Your tool-call arguments were cut off by the output-token limit before they were complete, so the "
      "tool received nothing. Produce the same content in smaller pieces (for example write a file in "
      "parts, or use replace_in_file for each change). Do not repeat the same oversized call.");
  else
    {
      g_autofree char *reason = g_strdup_printf (
        "Your tool-call arguments could not be read: %s. The tool received nothing. \"_raw\" in the "
        "history is not a parameter: it is the text that failed to parse. Call the tool again with a JSON "
        "object of its declared parameters.", problem != NULL ? problem : "they are not a JSON object");
      json_object_set_string_member (obj, "reason", reason);
    }
  return ow_json_object_to_string (obj);
}
