/* fuzz-toml.c: fuzz target for the TOML reader and writer.
 *
 * Any input must either be refused with an OW_TOML_ERROR that names a line
 * and column, or parse into a tree that the writer can express. The written
 * text must parse back into the identical tree (value types and NaNs
 * included), and writing that tree again must give the same text. Any
 * breach aborts, so the fuzzer records the input; so do GLib warnings.
 */
#include "ow-error.h"
#include "store/ow-toml.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The same strict comparison as the unit tests: types must match, doubles
 * compare bit for bit (NaNs by sign), member order is not compared because
 * the writer puts plain values before sub-tables. */
static gboolean
identical (JsonNode *a, JsonNode *b)
{
  if (JSON_NODE_TYPE (a) != JSON_NODE_TYPE (b))
    return FALSE;
  if (JSON_NODE_HOLDS_OBJECT (a))
    {
      JsonObject *oa = json_node_get_object (a), *ob = json_node_get_object (b);
      g_autoptr(GList) members = json_object_get_members (oa);

      if (json_object_get_size (oa) != json_object_get_size (ob))
        return FALSE;
      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *other = json_object_get_member (ob, l->data);

          if (other == NULL || !identical (json_object_get_member (oa, l->data), other))
            return FALSE;
        }
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (a))
    {
      JsonArray *aa = json_node_get_array (a), *ab = json_node_get_array (b);

      if (json_array_get_length (aa) != json_array_get_length (ab))
        return FALSE;
      for (guint i = 0; i < json_array_get_length (aa); i++)
        if (!identical (json_array_get_element (aa, i), json_array_get_element (ab, i)))
          return FALSE;
      return TRUE;
    }
  if (JSON_NODE_HOLDS_NULL (a))
    return TRUE;
  if (json_node_get_value_type (a) != json_node_get_value_type (b))
    return FALSE;
  switch (json_node_get_value_type (a))
    {
    case G_TYPE_INT64:
      return json_node_get_int (a) == json_node_get_int (b);
    case G_TYPE_BOOLEAN:
      return json_node_get_boolean (a) == json_node_get_boolean (b);
    case G_TYPE_STRING:
      return g_strcmp0 (json_node_get_string (a), json_node_get_string (b)) == 0;
    case G_TYPE_DOUBLE:
      {
        double da = json_node_get_double (a), db = json_node_get_double (b);

        if (isnan (da) || isnan (db))
          return isnan (da) && isnan (db) && !signbit (da) == !signbit (db);
        return memcmp (&da, &db, sizeof da) == 0;
      }
    default:
      return FALSE;
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) first = NULL;
  g_autoptr(JsonNode) second = NULL;
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  static gboolean once;

  /* A warning or critical (a GError set twice, a failed precondition) is a
   * bug too; libFuzzer does not run under G_DEBUG=fatal-warnings. */
  if (!once)
    {
      g_log_set_always_fatal (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL);
      once = TRUE;
    }

  first = ow_toml_parse ((const char *) data, (gssize) size, &error);
  if (first == NULL)
    {
      /* A refusal must say where. */
      if (error == NULL || error->domain != OW_TOML_ERROR
          || !g_str_has_prefix (error->message, "line "))
        abort ();
      return 0;
    }
  if (error != NULL || !JSON_NODE_HOLDS_OBJECT (first))
    abort ();

  text = ow_toml_write (json_node_get_object (first), &error);
  if (text == NULL)
    abort ();
  second = ow_toml_parse (text, -1, &error);
  if (second == NULL || !identical (first, second))
    abort ();
  again = ow_toml_write (json_node_get_object (second), &error);
  if (again == NULL || strcmp (again, text) != 0)
    abort ();
  return 0;
}
