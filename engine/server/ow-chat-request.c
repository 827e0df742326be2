/* ow-chat-request.c: checks an OpenAI Chat Completions request body (see
 * ow-chat-request.h). Unknown members are ignored, as OpenAI-compatible
 * servers do; known ones must have the right type and range. */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-chat-request.h"

#include <string.h>

#include "ow-json.h"
#include "server/ow-server-guard.h"

#define MAX_DEPTH 48

void
ow_chat_request_free (OwChatRequest *req)
{
  if (req == NULL)
    return;
  g_free (req->model);
  g_clear_pointer (&req->messages, json_array_unref);
  g_clear_pointer (&req->tools, json_array_unref);
  g_free (req->reasoning_effort);
  g_free (req);
}

static gboolean
is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
is_number (JsonNode *node)
{
  GType t;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  t = json_node_get_value_type (node);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

static gboolean
utf8_string (JsonNode *node)
{
  return is_string (node) && g_utf8_validate (json_node_get_string (node), -1, NULL);
}

/* A copy of @obj without members whose name starts with '_'. */
static JsonObject *
copy_public (JsonObject *obj)
{
  JsonObject *out = json_object_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  json_object_iter_init (&iter, obj);
  while (json_object_iter_next (&iter, &name, &value))
    if (name[0] != '_')
      json_object_set_member (out, name, ow_json_deep_copy (value));
  return out;
}

static gboolean
content_ok (JsonNode *content, gboolean may_be_null)
{
  JsonArray *parts;

  if (content == NULL || JSON_NODE_HOLDS_NULL (content))
    return may_be_null;
  if (is_string (content))
    return utf8_string (content);
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return FALSE;
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *p = json_array_get_element (parts, i);
      JsonObject *part = JSON_NODE_HOLDS_OBJECT (p) ? json_node_get_object (p) : NULL;
      if (part == NULL || !utf8_string (json_object_get_member (part, "type")))
        return FALSE;
    }
  return TRUE;
}

static gboolean
tool_calls_ok (JsonNode *node)
{
  JsonArray *calls;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  calls = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (calls); i++)
    {
      JsonNode *c = json_array_get_element (calls, i);
      JsonObject *call = JSON_NODE_HOLDS_OBJECT (c) ? json_node_get_object (c) : NULL;
      JsonObject *fn = call != NULL ? ow_json_get_object (call, "function") : NULL;
      if (fn == NULL || !utf8_string (json_object_get_member (call, "id"))
          || !utf8_string (json_object_get_member (fn, "name"))
          || !utf8_string (json_object_get_member (fn, "arguments")))
        return FALSE;
    }
  return TRUE;
}

static JsonObject *
check_message (JsonObject *msg, guint index, char **error_text)
{
  static const char *const roles[] = { "system", "developer", "user", "assistant", "tool", NULL };
  JsonNode *role_node = json_object_get_member (msg, "role");
  const char *role;
  JsonObject *out;

  if (!utf8_string (role_node) || !g_strv_contains (roles, json_node_get_string (role_node)))
    {
      *error_text = g_strdup_printf ("messages[%u].role must be system, developer, user, assistant or tool.", index);
      return NULL;
    }
  role = json_node_get_string (role_node);
  if (!content_ok (json_object_get_member (msg, "content"), g_str_equal (role, "assistant")))
    {
      *error_text = g_strdup_printf ("messages[%u].content must be text or a list of content parts.", index);
      return NULL;
    }
  if (g_str_equal (role, "assistant") && !tool_calls_ok (json_object_get_member (msg, "tool_calls")))
    {
      *error_text = g_strdup_printf ("messages[%u].tool_calls must be a list of {id, function:{name, arguments}}.",
                                     index);
      return NULL;
    }
  if (g_str_equal (role, "tool") && !utf8_string (json_object_get_member (msg, "tool_call_id")))
    {
      *error_text = g_strdup_printf ("messages[%u] (a tool result) needs tool_call_id.", index);
      return NULL;
    }
  out = copy_public (msg);
  if (g_str_equal (role, "developer"))
    json_object_set_string_member (out, "role", "system");
  if (!json_object_has_member (out, "content"))
    json_object_set_null_member (out, "content");
  return out;
}

static JsonArray *
check_tools (JsonNode *node, char **error_text)
{
  JsonArray *in, *out;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      *error_text = g_strdup ("tools must be a list.");
      return NULL;
    }
  in = json_node_get_array (node);
  if (json_array_get_length (in) > OW_CHAT_MAX_TOOLS)
    {
      *error_text = g_strdup_printf ("At most %d tools can be given.", OW_CHAT_MAX_TOOLS);
      return NULL;
    }
  out = json_array_new ();
  for (guint i = 0; i < json_array_get_length (in); i++)
    {
      JsonNode *t = json_array_get_element (in, i);
      JsonObject *tool = JSON_NODE_HOLDS_OBJECT (t) ? json_node_get_object (t) : NULL;
      JsonObject *fn = tool != NULL ? ow_json_get_object (tool, "function") : NULL;
      JsonNode *params = fn != NULL ? json_object_get_member (fn, "parameters") : NULL;
      JsonNode *desc = fn != NULL ? json_object_get_member (fn, "description") : NULL;
      JsonObject *copy, *fcopy;

      if (fn == NULL || !utf8_string (json_object_get_member (fn, "name"))
          || (params != NULL && !JSON_NODE_HOLDS_OBJECT (params))
          || (desc != NULL && !JSON_NODE_HOLDS_NULL (desc) && !utf8_string (desc)))
        {
          json_array_unref (out);
          *error_text = g_strdup_printf ("tools[%u] must be {type:\"function\", function:{name, description?, "
                                         "parameters?}}.", i);
          return NULL;
        }
      fcopy = json_object_new ();
      json_object_set_string_member (fcopy, "name", json_object_get_string_member (fn, "name"));
      if (desc != NULL && utf8_string (desc))
        json_object_set_string_member (fcopy, "description", json_node_get_string (desc));
      if (params != NULL)
        json_object_set_member (fcopy, "parameters", ow_json_deep_copy (params));
      copy = json_object_new ();
      json_object_set_string_member (copy, "type", "function");
      json_object_set_object_member (copy, "function", fcopy);
      json_array_add_object_element (out, copy);
    }
  return out;
}

static gboolean
number_in (JsonObject *obj, const char *name, double lo, double hi, double *out, char **error_text)
{
  JsonNode *node = json_object_get_member (obj, name);
  double v;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!is_number (node))
    {
      *error_text = g_strdup_printf ("%s must be a number.", name);
      return FALSE;
    }
  v = json_node_get_double (node);
  if (!(v >= lo && v <= hi))
    {
      *error_text = g_strdup_printf ("%s must be between %g and %g.", name, lo, hi);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

OwChatRequest *
ow_chat_request_parse (const char *body, gsize len, char **error_text)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(OwChatRequest) req = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *obj;
  JsonNode *node;
  JsonArray *messages;
  double tokens = 0;

  *error_text = NULL;
  if (!ow_json_depth_ok (body, len, MAX_DEPTH))
    {
      *error_text = g_strdup ("The request nests too deeply.");
      return NULL;
    }
  root = ow_json_parse (body, (gssize) len, &error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      *error_text = g_strdup ("The body must be a JSON object.");
      return NULL;
    }
  obj = json_node_get_object (root);
  req = g_new0 (OwChatRequest, 1);
  req->temperature = -1;
  req->top_p = -1;

  node = json_object_get_member (obj, "model");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!utf8_string (node) || strlen (json_node_get_string (node)) > 256)
        {
          *error_text = g_strdup ("model must be a model id.");
          return NULL;
        }
      if (*json_node_get_string (node) != '\0')
        req->model = g_strdup (json_node_get_string (node));
    }

  node = json_object_get_member (obj, "messages");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) == 0)
    {
      *error_text = g_strdup ("messages must be a non-empty list.");
      return NULL;
    }
  messages = json_node_get_array (node);
  if (json_array_get_length (messages) > OW_CHAT_MAX_MESSAGES)
    {
      *error_text = g_strdup_printf ("At most %d messages can be sent.", OW_CHAT_MAX_MESSAGES);
      return NULL;
    }
  req->messages = json_array_new ();
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *m = json_array_get_element (messages, i);
      JsonObject *checked;
      if (!JSON_NODE_HOLDS_OBJECT (m))
        {
          *error_text = g_strdup_printf ("messages[%u] must be an object.", i);
          return NULL;
        }
      checked = check_message (json_node_get_object (m), i, error_text);
      if (checked == NULL)
        return NULL;
      json_array_add_object_element (req->messages, checked);
    }

  node = json_object_get_member (obj, "tools");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      req->tools = check_tools (node, error_text);
      if (req->tools == NULL)
        return NULL;
      if (json_array_get_length (req->tools) == 0)
        g_clear_pointer (&req->tools, json_array_unref);
    }

  node = json_object_get_member (obj, "stream");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          *error_text = g_strdup ("stream must be true or false.");
          return NULL;
        }
      req->stream = json_node_get_boolean (node);
    }
  {
    JsonObject *so = ow_json_get_object (obj, "stream_options");
    if (so != NULL)
      req->include_usage = ow_json_get_bool (so, "include_usage", FALSE);
  }

  node = json_object_get_member (obj, "n");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node) && (!is_number (node) || json_node_get_double (node) != 1))
    {
      *error_text = g_strdup ("Only n = 1 is supported.");
      return NULL;
    }
  if (!number_in (obj, "max_tokens", 1, 10000000, &tokens, error_text)
      || !number_in (obj, "max_completion_tokens", 1, 10000000, &tokens, error_text)
      || !number_in (obj, "temperature", 0, 2, &req->temperature, error_text)
      || !number_in (obj, "top_p", 0, 1, &req->top_p, error_text))
    return NULL;
  req->max_tokens = (gint64) tokens;

  node = json_object_get_member (obj, "reasoning_effort");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      static const char *const efforts[] = { "none", "minimal", "low", "medium", "high", "xhigh", "max", NULL };
      if (!utf8_string (node) || !g_strv_contains (efforts, json_node_get_string (node)))
        {
          *error_text = g_strdup ("reasoning_effort must be none, minimal, low, medium, high, xhigh or max.");
          return NULL;
        }
      req->reasoning_effort = g_strdup (json_node_get_string (node));
    }
  return g_steal_pointer (&req);
}
