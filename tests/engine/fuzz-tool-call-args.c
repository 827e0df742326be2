/* fuzz-tool-call-args.c: the engine's reading of tool-call arguments. */
#include <stdint.h>

#include "core/ow-tool-args.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autofree char *problem = NULL;
  g_autoptr(JsonObject) obj = ow_tool_args_parse (text, -1, &problem);

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
