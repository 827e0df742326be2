/* ow-mcp-schema.c: a basic JSON Schema check (see ow-mcp-schema.h). */
#define G_LOG_DOMAIN "ow-mcp"

#include "mcp/ow-mcp-schema.h"

#include <math.h>

#include "ow-error.h"
#include "ow-json.h"

#define MAX_DEPTH 64

static const char *
type_of (JsonNode *v)
{
  switch (json_node_get_node_type (v))
    {
    case JSON_NODE_OBJECT:
      return "object";
    case JSON_NODE_ARRAY:
      return "array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      break;
    }
  switch (json_node_get_value_type (v))
    {
    case G_TYPE_STRING:
      return "string";
    case G_TYPE_BOOLEAN:
      return "boolean";
    case G_TYPE_INT64:
      return "integer";
    default:
      return "number";
    }
}

static gboolean
is_type (JsonNode   *v,
         const char *want)
{
  const char *have = type_of (v);

  if (g_str_equal (want, have))
    return TRUE;
  if (g_str_equal (want, "number"))
    return g_str_equal (have, "integer");
  if (g_str_equal (want, "integer") && g_str_equal (have, "number"))
    {
      double d = json_node_get_double (v);

      return isfinite (d) && d == floor (d);
    }
  return FALSE;
}

static gboolean
json_equal (JsonNode *a,
            JsonNode *b)
{
  g_autofree char *sa = ow_json_to_string (a);
  g_autofree char *sb = ow_json_to_string (b);

  return g_str_equal (sa, sb);
}

static gboolean
fail (GError    **error,
      const char *path,
      const char *what)
{
  g_set_error (error, OW_MCP_ERROR, OW_MCP_ERROR_INVALID_RESULT,
               "The tool's structured result does not match its output schema at %s: %s.", path, what);
  return FALSE;
}

static gboolean check (JsonObject *schema, JsonNode *value, const char *path, guint depth, GError **error);

static gboolean
check_type (JsonObject *schema,
            JsonNode   *value,
            const char *path,
            GError    **error)
{
  JsonNode *t = json_object_get_member (schema, "type");
  g_autofree char *what = NULL;

  if (t == NULL)
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (t) && json_node_get_value_type (t) == G_TYPE_STRING)
    {
      if (is_type (value, json_node_get_string (t)))
        return TRUE;
      what = g_strdup_printf ("expected %s, got %s", json_node_get_string (t), type_of (value));
      return fail (error, path, what);
    }
  if (JSON_NODE_HOLDS_ARRAY (t))
    {
      JsonArray *names = json_node_get_array (t);

      for (guint i = 0; i < json_array_get_length (names); i++)
        {
          JsonNode *n = json_array_get_element (names, i);

          if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
              && is_type (value, json_node_get_string (n)))
            return TRUE;
        }
      what = g_strdup_printf ("%s is none of the allowed types", type_of (value));
      return fail (error, path, what);
    }
  return TRUE;
}

static gboolean
check_object (JsonObject *schema,
              JsonObject *obj,
              const char *path,
              guint       depth,
              GError    **error)
{
  JsonArray *required = ow_json_get_array (schema, "required");
  JsonObject *props = ow_json_get_object (schema, "properties");
  JsonNode *extra = json_object_get_member (schema, "additionalProperties");
  g_autoptr(GList) members = NULL;

  for (guint i = 0; required != NULL && i < json_array_get_length (required); i++)
    {
      JsonNode *n = json_array_get_element (required, i);

      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
          && !json_object_has_member (obj, json_node_get_string (n)))
        {
          g_autofree char *what = g_strdup_printf ("the required member “%s” is missing", json_node_get_string (n));

          return fail (error, path, what);
        }
    }
  members = json_object_get_members (obj);
  for (GList *l = members; l != NULL; l = l->next)
    {
      g_autofree char *sub = g_strdup_printf ("%s.%s", path, (const char *) l->data);
      JsonObject *ps = props != NULL ? ow_json_get_object (props, l->data) : NULL;
      JsonNode *v = json_object_get_member (obj, l->data);

      if (ps != NULL)
        {
          if (!check (ps, v, sub, depth + 1, error))
            return FALSE;
        }
      else if (props == NULL || !json_object_has_member (props, l->data))
        {
          if (extra != NULL && JSON_NODE_HOLDS_VALUE (extra)
              && json_node_get_value_type (extra) == G_TYPE_BOOLEAN && !json_node_get_boolean (extra))
            return fail (error, sub, "no such member is allowed");
          if (extra != NULL && JSON_NODE_HOLDS_OBJECT (extra)
              && !check (json_node_get_object (extra), v, sub, depth + 1, error))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
check (JsonObject *schema,
       JsonNode   *value,
       const char *path,
       guint       depth,
       GError    **error)
{
  JsonArray *allowed = ow_json_get_array (schema, "enum");
  JsonNode *konst = json_object_get_member (schema, "const");
  JsonObject *items = ow_json_get_object (schema, "items");

  if (depth > MAX_DEPTH)
    return fail (error, path, "the result nests deeper than the check follows");
  if (!check_type (schema, value, path, error))
    return FALSE;
  if (allowed != NULL)
    {
      gboolean found = FALSE;

      for (guint i = 0; i < json_array_get_length (allowed) && !found; i++)
        found = json_equal (json_array_get_element (allowed, i), value);
      if (!found)
        return fail (error, path, "the value is not one of the allowed values");
    }
  if (konst != NULL && !json_equal (konst, value))
    return fail (error, path, "the value differs from the required constant");
  if (JSON_NODE_HOLDS_OBJECT (value)
      && !check_object (schema, json_node_get_object (value), path, depth, error))
    return FALSE;
  if (JSON_NODE_HOLDS_ARRAY (value) && items != NULL)
    {
      JsonArray *array = json_node_get_array (value);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_autofree char *sub = g_strdup_printf ("%s[%u]", path, i);

          if (!check (items, json_array_get_element (array, i), sub, depth + 1, error))
            return FALSE;
        }
    }
  return TRUE;
}

gboolean
ow_mcp_schema_check (JsonObject *schema,
                     JsonNode   *value,
                     GError    **error)
{
  return check (schema, value, "$", 0, error);
}
