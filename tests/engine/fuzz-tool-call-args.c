/* fuzz-tool-call-args.c: the engine's reading of tool-call arguments.
 *
 * Beyond memory errors (json-glib's recursion overflowing the stack on deep
 * nesting among them): text nested deeper than OW_JSON_MAX_DEPTH is refused
 * with a reason that says so, and what history keeps for any unparsed call
 * parses.
 */
#include <stdint.h>
#include <string.h>

#include "core/ow-tool-args.h"
#include "ow-json.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autofree char *problem = NULL;
  g_autoptr(JsonObject) obj = ow_tool_args_parse (text, -1, &problem);

  if (g_utf8_validate (text, -1, NULL) && !ow_json_depth_ok (text, strlen (text), OW_JSON_MAX_DEPTH)
      && (obj != NULL || strstr (problem, "nested deeper than") == NULL))
    __builtin_trap ();
  if (obj == NULL)
    {
      g_autofree char *raw = ow_tool_args_history_raw (text);
      g_autoptr(JsonObject) again = ow_tool_args_parse (raw, -1, NULL);
      /* What history keeps for an unparsed call must itself parse. */
      if (again == NULL || !json_object_has_member (again, "_raw"))
        __builtin_trap ();
    }
  return 0;
}
