/* ow-json.c: json-glib helpers (see ow-json.h). */
#include "ow-json.h"

#include <string.h>


static JsonNode *
member (JsonObject *obj,
        const char *name)
{
  if (obj == NULL || name == NULL)
    return NULL;
  return json_object_get_member (obj, name);
}

const char *
ow_json_get_string (JsonObject *obj,
                    const char *name)
{
  JsonNode *node = member (obj, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

JsonObject *
ow_json_get_object (JsonObject *obj,
                    const char *name)
{
  JsonNode *node = member (obj, name);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

JsonArray *
ow_json_get_array (JsonObject *obj,
                   const char *name)
{
  JsonNode *node = member (obj, name);

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

gboolean
ow_json_has_int (JsonObject *obj,
                 const char *name)
{
  JsonNode *node = member (obj, name);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

gint64
ow_json_get_int (JsonObject *obj,
                 const char *name,
                 gint64      fallback)
{
  JsonNode *node = member (obj, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (node);
  return fallback;
}

gboolean
ow_json_get_bool (JsonObject *obj,
                  const char *name,
                  gboolean    fallback)
{
  JsonNode *node = member (obj, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fallback;
  return json_node_get_boolean (node);
}

JsonObject *
ow_json_object_deep_copy (JsonObject *obj)
{
  JsonObject *copy = json_object_new ();
  g_autoptr(GList) names = json_object_get_members (obj);

  for (GList *l = names; l != NULL; l = l->next)
    json_object_set_member (copy, l->data,
                            ow_json_deep_copy (json_object_get_member (obj, l->data)));
  return copy;
}

JsonNode *
ow_json_deep_copy (JsonNode *node)
{
  JsonNode *copy;

  if (node == NULL)
    return json_node_new (JSON_NODE_NULL);

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      copy = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (copy, ow_json_object_deep_copy (json_node_get_object (node)));
      return copy;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        JsonArray *out = json_array_sized_new (json_array_get_length (array));

        for (guint i = 0; i < json_array_get_length (array); i++)
          json_array_add_element (out, ow_json_deep_copy (json_array_get_element (array, i)));
        copy = json_node_new (JSON_NODE_ARRAY);
        json_node_take_array (copy, out);
        return copy;
      }
    case JSON_NODE_VALUE:
    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

gboolean
ow_json_depth_ok (const char *text,
                  gsize       len,
                  guint       max_depth)
{
  guint depth = 0;
  gboolean in_string = FALSE;

  /* One pass, no allocation: this runs on every SSE line of a reply. */
  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (in_string)
        {
          /* The escaped byte cannot end the string. */
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '[':
        case '{':
          if (++depth > max_depth)
            return FALSE;
          break;
        case ']':
        case '}':
          /* Unbalanced closers are the parser's to report. */
          if (depth > 0)
            depth--;
          break;
        default:
          break;
        }
    }
  return TRUE;
}

/* The one place outside text reaches json-glib. */
static JsonNode *
parse (JsonParser  *parser,
       const char  *text,
       gssize       len,
       GError     **error)
{
  gsize n = len < 0 ? strlen (text) : (gsize) len;

  if (!ow_json_depth_ok (text, n, OW_JSON_MAX_DEPTH))
    {
      g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA,
                   "JSON nested deeper than %u levels, which is refused", OW_JSON_MAX_DEPTH);
      return NULL;
    }
  if (!json_parser_load_from_data (parser, text, len, error))
    return NULL;
  if (json_parser_get_root (parser) == NULL)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE, "empty document");
      return NULL;
    }
  return json_parser_steal_root (parser);
}

JsonNode *
ow_json_parse (const char  *text,
               gssize       len,
               GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();

  return parse (parser, text, len, error);
}

char *
ow_json_to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

char *
ow_json_object_to_string (JsonObject *obj)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, obj);
  return json_to_string (node, FALSE);
}

JsonObject *
ow_json_object_from_string (const char *text, gssize len, GError **error)
{
  /* Mutable: callers add to what they read. */
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonNode) root = parse (parser, text, len, error);

  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA, "not a JSON object");
      return NULL;
    }
  return json_object_ref (json_node_get_object (root));
}
