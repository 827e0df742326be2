/* fuzz-tool-args.c: the tool-argument parser on hostile input.
 *
 * ow_tb_json_parse reads what a model sent as a tool's arguments (and,
 * in the sandbox, is the tool runner's only input), so it must neither
 * crash, leak nor read out of bounds on any byte string. When the input
 * parses, every node is walked, so a malformed tree would be noticed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/body/ow-tb.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static size_t
walk (const OwTbJson *node)
{
  size_t n = 1;

  switch (node->type)
    {
    case OW_TB_JSON_STRING:
      /* Strings are NUL-terminated and hold no NUL before the end. */
      if (strlen (node->string) != node->string_len)
        abort ();
      break;
    case OW_TB_JSON_OBJECT:
      for (size_t i = 0; i < node->n_items; i++)
        {
          if (ow_tb_json_get (node, node->keys[i]) != node->items[i])
            abort (); /* duplicate keys must have been refused */
          n += walk (node->items[i]);
        }
      break;
    case OW_TB_JSON_ARRAY:
      for (size_t i = 0; i < node->n_items; i++)
        n += walk (node->items[i]);
      break;
    default:
      break;
    }
  return n;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char err[160];
  OwTbJson *node = ow_tb_json_parse ((const char *) data, size, err, sizeof err);

  if (node != NULL)
    {
      OwTbBuf buf;

      walk (node);
      /* The result writer must keep any parsed string valid JSON. */
      if (node->type == OW_TB_JSON_STRING)
        {
          OwTbJson *again;

          ow_tb_buf_init (&buf);
          ow_tb_buf_json_string (&buf, node->string, node->string_len);
          again = ow_tb_json_parse (buf.data, buf.len, NULL, 0);
          if (again == NULL || strcmp (again->string, node->string) != 0)
            abort ();
          ow_tb_json_free (again);
          ow_tb_buf_free (&buf);
        }
      ow_tb_json_free (node);
    }
  else if (strstr (err, " at byte ") == NULL)
    abort (); /* every refusal says where */
  return 0;
}
