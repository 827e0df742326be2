/* fuzz-tool-salvage.c: reading tool calls out of a reply's text.
 *
 * Beyond memory errors: every call salvaged names an offered tool and has
 * arguments that parse as a JSON object, and what is left of the text is
 * never longer than the text (as valid UTF-8).
 */
#include <stdint.h>
#include <string.h>

#include "ow-json.h"
#include "providers/ow-tool-salvage.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static JsonArray *tools;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  /* Salvage reads the text made valid UTF-8 first (a stray byte becomes
   * U+FFFD, three bytes), so that is what the rest is measured against. */
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_autofree char *rest = NULL;
  g_autoptr(GPtrArray) calls = NULL;

  if (tools == NULL)
    tools = json_node_dup_array (json_from_string (
      "[{\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"parameters\":{\"type\":\"object\","
      "\"properties\":{\"path\":{\"type\":\"string\"},\"max_lines\":{\"type\":\"integer\"}}}}},"
      " {\"type\":\"function\",\"function\":{\"name\":\"run_shell\",\"parameters\":{\"type\":\"object\","
      "\"properties\":{\"command\":{\"type\":\"string\"}}}}}]", NULL));
  calls = ow_tool_salvage (text, tools, &rest);
  if (calls == NULL)
    return 0;
  if (calls->len == 0 || rest == NULL || strlen (rest) > strlen (valid))
    __builtin_trap ();
  for (guint i = 0; i < calls->len; i++)
    {
      OwToolCall *c = g_ptr_array_index (calls, i);
      g_autoptr(JsonNode) args = ow_json_parse (c->arguments, -1, NULL);

      if (!g_str_equal (c->name, "read_file") && !g_str_equal (c->name, "run_shell"))
        __builtin_trap ();
      if (args == NULL || !JSON_NODE_HOLDS_OBJECT (args))
        __builtin_trap ();
    }
  return 0;
}
