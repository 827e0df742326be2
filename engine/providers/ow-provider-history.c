/* ow-provider-history.c: the canonical history as the wire styles read it.
 *
 * The engine stores one provider-neutral history (OpenAI Chat's message
 * shape plus engine keys and per-wire sidecars). Every style reads it
 * through the helpers here, so what counts as a message's text, the
 * leading system prompt, an outbound message or a tool call's name is
 * decided once.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

char *
ow_history_content_text (JsonObject *message)
{
  JsonNode *content = (message != NULL ? json_object_get_member (message, "content") : NULL);
  GString *text;
  JsonArray *parts;

  if (content == NULL || JSON_NODE_HOLDS_NULL (content))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (content))
    return g_strdup (json_node_get_string (content) != NULL ? json_node_get_string (content) : "");
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return g_strdup ("");

  text = g_string_new (NULL);
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *part = json_array_get_element (parts, i);
      const char *piece;

      if (!JSON_NODE_HOLDS_OBJECT (part))
        continue;
      piece = ow_json_get_string (json_node_get_object (part), "text");
      if (piece == NULL)
        continue;
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, piece);
    }
  return g_string_free (text, FALSE);
}

char *
ow_history_system_text (JsonArray *messages,
                        guint     *n_leading)
{
  GString *text = NULL;
  guint i;

  for (i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonObject *message;
      g_autofree char *piece = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        break;
      message = json_node_get_object (node);
      if (g_strcmp0 (ow_json_get_string (message, "role"), "system") != 0)
        break;
      piece = ow_history_content_text (message);
      if (piece[0] == '\0')
        continue;
      if (text == NULL)
        text = g_string_new (NULL);
      else
        g_string_append (text, "\n\n");
      g_string_append (text, piece);
    }
  if (n_leading != NULL)
    *n_leading = i;
  return text != NULL ? g_string_free (text, FALSE) : NULL;
}

gboolean
ow_history_is_outbound (JsonObject *message)
{
  const char *role = ow_json_get_string (message, "role");

  return role != NULL && !g_str_equal (role, "notice");
}

/* What the Chat Completions wire defines for each role's message (OpenAI's
 * published request schema). Anything else the engine keeps on a message
 * (ts, usage, finish_reason, reasoning, sidecars, whatever a later change
 * adds) stays home: strict servers (the Responses API, Mistral, older
 * vLLM) refuse a request with an unknown member. An allowlist, so a new
 * engine key can never leak out by being forgotten in a deny list. */
static const struct {
  const char        *role;
  const char *const  keys[5];
} chat_message_keys[] = {
  { "system",    { "role", "content", "name", NULL } },
  { "developer", { "role", "content", "name", NULL } },
  { "user",      { "role", "content", "name", NULL } },
  { "assistant", { "role", "content", "name", "tool_calls", "refusal" } },
  { "tool",      { "role", "content", "tool_call_id", NULL } },
};

JsonObject *
ow_history_strip_message (JsonObject *message)
{
  const char *role = ow_json_get_string (message, "role");
  JsonObject *copy = json_object_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (chat_message_keys); i++)
    {
      if (g_strcmp0 (role, chat_message_keys[i].role) != 0)
        continue;
      for (gsize k = 0; k < G_N_ELEMENTS (chat_message_keys[i].keys); k++)
        {
          const char *name = chat_message_keys[i].keys[k];
          JsonNode *value;

          if (name == NULL)
            break;
          value = json_object_get_member (message, name);
          if (value != NULL)
            json_object_set_member (copy, name, ow_json_deep_copy (value));
        }
      return copy;
    }
  /* A role the wire does not know: its name and content, as text. */
  json_object_set_string_member (copy, "role", role != NULL ? role : "user");
  if (json_object_has_member (message, "content"))
    json_object_set_member (copy, "content", ow_json_deep_copy (json_object_get_member (message, "content")));
  return copy;
}

const char *
ow_history_tool_name (JsonArray  *messages,
                      guint       before,
                      const char *tool_call_id)
{
  if (tool_call_id == NULL)
    return NULL;

  for (guint i = MIN (before, json_array_get_length (messages)); i-- > 0;)
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonArray *calls;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      calls = ow_json_get_array (json_node_get_object (node), "tool_calls");
      for (guint j = 0; calls != NULL && j < json_array_get_length (calls); j++)
        {
          JsonNode *call = json_array_get_element (calls, j);
          JsonObject *obj;

          if (!JSON_NODE_HOLDS_OBJECT (call))
            continue;
          obj = json_node_get_object (call);
          if (g_strcmp0 (ow_json_get_string (obj, "id"), tool_call_id) == 0)
            return ow_json_get_string (ow_json_get_object (obj, "function"), "name");
        }
    }
  return NULL;
}

JsonObject *
ow_history_sidecar (JsonObject *message,
                    const char *key)
{
  return ow_json_get_object (message, key);
}

gboolean
ow_data_url_parse (const char  *url,
                   char       **mime,
                   char       **data)
{
  const char *comma;
  const char *header;
  g_autofree char *meta = NULL;
  char *semi;

  if (url == NULL || !g_str_has_prefix (url, "data:"))
    return FALSE;
  header = url + 5;
  comma = strchr (header, ',');
  if (comma == NULL)
    return FALSE;
  meta = g_strndup (header, comma - header);
  /* Only base64 payloads: every wire wants base64, and attachments are
   * always stored that way. */
  if (!g_str_has_suffix (meta, ";base64"))
    return FALSE;
  semi = strchr (meta, ';');
  *semi = '\0';
  if (mime != NULL)
    *mime = g_strdup (meta[0] != '\0' ? meta : "application/octet-stream");
  if (data != NULL)
    *data = g_strdup (comma + 1);
  return TRUE;
}

JsonNode *
ow_arguments_to_object (const char *arguments)
{
  g_autoptr(JsonNode) parsed = NULL;
  JsonObject *wrapper;
  JsonNode *node;

  if (arguments == NULL || arguments[0] == '\0')
    {
      node = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (node, json_object_new ());
      return node;
    }
  parsed = ow_json_parse (arguments, -1, NULL);
  if (parsed != NULL && JSON_NODE_HOLDS_OBJECT (parsed))
    return ow_json_deep_copy (parsed);

  /* The engine never runs such a call; it goes back in the shape the
   * engine records mangled calls in, so the model sees what it wrote. */
  wrapper = json_object_new ();
  json_object_set_string_member (wrapper, "_raw", arguments);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, wrapper);
  return node;
}
