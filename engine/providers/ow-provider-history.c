/* ow-provider-history.c: the canonical history as the wire styles read it.
 *
 * The engine stores one provider-neutral history (OpenAI Chat's message
 * shape plus engine keys and per-wire sidecars). Every style reads it with
 * ow_history_walk(), which reports each outbound message in pieces to the
 * style's visitor: so what is sent at all, what counts as a message's
 * text, the leading system prompt, how a user message splits into text,
 * images and files, and which call a tool result answers are decided here
 * once, and each style only writes its own JSON.
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

/* ---- The walk ----------------------------------------------------------- */

/* Where a tool call was made: borrowed from the history. */
typedef struct {
  JsonObject *message;  /* the message holding the call */
  JsonObject *call;     /* the call entry */
} CallSite;

static OwHistoryKind
kind_of (const char *role)
{
  if (g_str_equal (role, "assistant"))
    return OW_HISTORY_ASSISTANT;
  if (g_str_equal (role, "tool"))
    return OW_HISTORY_TOOL;
  if (g_str_equal (role, "system"))
    return OW_HISTORY_SYSTEM;
  return OW_HISTORY_USER;
}

/* Remembers the calls @message makes, so a later result finds its call.
 * A later message's call wins over an earlier one with the same id, and
 * within one message the first. */
static void
index_calls (GHashTable *sites,
             JsonObject *message)
{
  JsonArray *calls = ow_json_get_array (message, "tool_calls");

  for (guint j = calls != NULL ? json_array_get_length (calls) : 0; j-- > 0;)
    {
      JsonNode *node = json_array_get_element (calls, j);
      const char *id;
      CallSite *site;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      id = ow_json_get_string (json_node_get_object (node), "id");
      if (id == NULL)
        continue;
      site = g_new (CallSite, 1);
      site->message = message;
      site->call = json_node_get_object (node);
      g_hash_table_replace (sites, (gpointer) id, site);
    }
}

static void
visit_user_parts (const OwHistoryMessage *msg,
                  const OwHistoryVisitor *visitor,
                  gpointer                user_data)
{
  JsonNode *content = json_object_get_member (msg->message, "content");
  JsonArray *parts;

  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    {
      g_autofree char *text = ow_history_content_text (msg->message);
      OwHistoryPart part = { .kind = OW_HISTORY_PART_TEXT, .plain = TRUE, .text = text };

      visitor->user_part (msg, &part, user_data);
      return;
    }

  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      g_autofree char *mime = NULL;
      g_autofree char *data = NULL;
      OwHistoryPart part = { 0 };
      JsonObject *item;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      item = json_node_get_object (node);
      type = ow_json_get_string (item, "type");
      if (g_strcmp0 (type, "image_url") == 0)
        {
          JsonObject *image = ow_json_get_object (item, "image_url");

          part.kind = OW_HISTORY_PART_IMAGE;
          part.url = image != NULL ? ow_json_get_string (image, "url")
                                   : ow_json_get_string (item, "image_url");
          if (ow_data_url_parse (part.url, &mime, &data))
            {
              part.mime = mime;
              part.data = data;
            }
        }
      else if (g_strcmp0 (type, "file") == 0)
        {
          JsonObject *file = ow_json_get_object (item, "file");

          part.kind = OW_HISTORY_PART_FILE;
          part.filename = ow_json_get_string (file, "filename");
          part.file_data = ow_json_get_string (file, "file_data");
          if (ow_data_url_parse (part.file_data, &mime, &data))
            {
              part.mime = mime;
              part.data = data;
            }
        }
      else
        {
          part.kind = OW_HISTORY_PART_TEXT;
          part.text = ow_json_get_string (item, "text");
          if (part.text == NULL)
            part.text = "";
        }
      visitor->user_part (msg, &part, user_data);
    }
}

static void
visit_assistant (const OwHistoryMessage *msg,
                 const OwHistoryVisitor *visitor,
                 gpointer                user_data)
{
  JsonArray *calls = ow_json_get_array (msg->message, "tool_calls");

  if (visitor->reasoning != NULL)
    visitor->reasoning (msg, ow_json_get_string (msg->message, "reasoning"), user_data);
  if (visitor->assistant_text != NULL)
    {
      g_autofree char *text = ow_history_content_text (msg->message);

      visitor->assistant_text (msg, text, user_data);
    }
  for (guint i = 0; visitor->tool_call != NULL && calls != NULL
                    && i < json_array_get_length (calls); i++)
    {
      JsonNode *node = json_array_get_element (calls, i);
      OwHistoryToolCall call;
      JsonObject *function;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      call.call = json_node_get_object (node);
      function = ow_json_get_object (call.call, "function");
      call.id = ow_json_get_string (call.call, "id");
      call.name = ow_json_get_string (function, "name");
      if (call.name == NULL)
        call.name = "";
      call.arguments = function != NULL ? json_object_get_member (function, "arguments") : NULL;
      visitor->tool_call (msg, &call, user_data);
    }
}

static void
visit_tool_result (const OwHistoryMessage *msg,
                   GHashTable             *sites,
                   const OwHistoryVisitor *visitor,
                   gpointer                user_data)
{
  g_autofree char *text = ow_history_content_text (msg->message);
  OwHistoryToolResult result = { 0 };
  CallSite *site;

  result.call_id = ow_json_get_string (msg->message, "tool_call_id");
  result.text = text;
  site = result.call_id != NULL ? g_hash_table_lookup (sites, result.call_id) : NULL;
  if (site != NULL)
    {
      result.caller = site->message;
      result.name = ow_json_get_string (ow_json_get_object (site->call, "function"), "name");
    }
  visitor->tool_result (msg, &result, user_data);
}

static void
visit_message (const OwHistoryMessage *msg,
               GHashTable             *sites,
               const OwHistoryVisitor *visitor,
               gpointer                user_data)
{
  if (msg->kind == OW_HISTORY_SYSTEM && visitor->system_as_user)
    {
      OwHistoryMessage as_user = *msg;
      g_autofree char *text = ow_history_content_text (msg->message);
      g_autofree char *wrapped = g_strdup_printf ("<system>\n%s\n</system>", text);
      OwHistoryPart part = { .kind = OW_HISTORY_PART_TEXT, .plain = TRUE, .text = wrapped };

      as_user.kind = OW_HISTORY_USER;
      if (visitor->message != NULL)
        visitor->message (&as_user, user_data);
      if (visitor->user_part != NULL)
        visitor->user_part (&as_user, &part, user_data);
      if (visitor->message_end != NULL)
        visitor->message_end (&as_user, user_data);
      return;
    }

  if (visitor->message != NULL)
    visitor->message (msg, user_data);
  switch (msg->kind)
    {
    case OW_HISTORY_SYSTEM:
      if (visitor->system_text != NULL)
        {
          g_autofree char *text = ow_history_content_text (msg->message);

          visitor->system_text (msg, text, user_data);
        }
      break;
    case OW_HISTORY_USER:
      if (visitor->user_part != NULL)
        visit_user_parts (msg, visitor, user_data);
      break;
    case OW_HISTORY_ASSISTANT:
      visit_assistant (msg, visitor, user_data);
      break;
    case OW_HISTORY_TOOL:
      if (visitor->tool_result != NULL)
        visit_tool_result (msg, sites, visitor, user_data);
      break;
    default:
      g_assert_not_reached ();
    }
  if (visitor->message_end != NULL)
    visitor->message_end (msg, user_data);
}

void
ow_history_walk (JsonArray              *messages,
                 const OwHistoryVisitor *visitor,
                 gpointer                user_data)
{
  g_autoptr(GHashTable) sites = NULL;
  guint n = messages != NULL ? json_array_get_length (messages) : 0;
  guint first = 0;

  g_return_if_fail (visitor != NULL);

  if (visitor->system_prompt != NULL)
    {
      g_autofree char *prompt = ow_history_system_text (messages, &first);

      if (prompt != NULL)
        visitor->system_prompt (prompt, user_data);
    }

  sites = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonObject *message;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      message = json_node_get_object (node);
      if (i >= first && ow_history_is_outbound (message))
        {
          OwHistoryMessage msg;

          msg.message = message;
          msg.role = ow_json_get_string (message, "role");
          msg.kind = kind_of (msg.role);
          visit_message (&msg, sites, visitor, user_data);
        }
      /* Every entry's calls count, outbound or not, as a result's call is
       * looked for among all the messages before it. */
      if (visitor->tool_result != NULL)
        index_calls (sites, message);
    }
}

void
ow_history_fold_begin (const OwHistoryMessage *msg,
                       gpointer                fold)
{
  OwHistoryFold *f = fold;

  g_clear_pointer (&f->items, json_array_unref);
  f->items = json_array_new ();
}

void
ow_history_fold_end (const OwHistoryMessage *msg,
                     gpointer                fold)
{
  OwHistoryFold *f = fold;
  const char *role = msg->kind == OW_HISTORY_ASSISTANT ? f->assistant_role : "user";
  guint n = json_array_get_length (f->out);
  g_autoptr(JsonArray) items = g_steal_pointer (&f->items);
  JsonObject *message;

  if (json_array_get_length (items) == 0)
    return;
  if (n > 0)
    {
      JsonObject *last = json_array_get_object_element (f->out, n - 1);

      if (g_strcmp0 (ow_json_get_string (last, "role"), role) == 0)
        {
          JsonArray *existing = ow_json_get_array (last, f->member);

          for (guint i = 0; i < json_array_get_length (items); i++)
            json_array_add_element (existing,
                                    ow_json_deep_copy (json_array_get_element (items, i)));
          return;
        }
    }
  message = json_object_new ();
  json_object_set_string_member (message, "role", role);
  json_object_set_array_member (message, f->member, g_steal_pointer (&items));
  json_array_add_object_element (f->out, message);
}

void
ow_history_replay_sidecar (JsonArray         *out,
                           JsonObject        *message,
                           const char        *key,
                           const char        *member,
                           const char *const *types)
{
  JsonArray *kept = ow_json_get_array (ow_history_sidecar (message, key), member);

  for (guint i = 0; kept != NULL && i < json_array_get_length (kept); i++)
    {
      JsonNode *node = json_array_get_element (kept, i);
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      type = ow_json_get_string (json_node_get_object (node), "type");
      if (type != NULL && g_strv_contains (types, type))
        json_array_add_element (out, ow_json_deep_copy (node));
    }
}

JsonNode *
ow_history_call_arguments (const OwHistoryToolCall *call)
{
  JsonNode *args = call->arguments;

  if (args != NULL && JSON_NODE_HOLDS_OBJECT (args))
    return ow_json_deep_copy (args);
  return ow_arguments_to_object (args != NULL && JSON_NODE_HOLDS_VALUE (args)
                                 ? json_node_get_string (args) : NULL);
}

/* ---- Pieces of a message ------------------------------------------------ */

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
