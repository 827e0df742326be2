/* ow-provider-openai-responses.c: the OpenAI Responses API.
 *
 * OpenAI's own endpoint, and the Responses-compatible Ark services. The
 * conversation is resent whole with store:false, so nothing lives on the
 * server; reasoning survives between calls because we ask for
 * reasoning.encrypted_content and replay the reasoning items verbatim.
 *
 * Request: the leading system message becomes "instructions"; user
 * messages become input messages (input_text / input_image / input_file
 * parts); an assistant message becomes its reasoning items (from the
 * "_openai" sidecar), its text, and one function_call item per tool call
 * (the sidecar's own item when it has one, so ids and status round-trip);
 * a tool message becomes a function_call_output. Tools are flat
 * ({type, name, description, parameters}).
 *
 * Reply: named SSE events. Text and reasoning-summary deltas are reported
 * as they come; the terminal response.completed / response.incomplete
 * carries the whole response, which is authoritative for text, tool calls,
 * the sidecar and usage. response.failed and "error" events are
 * classified errors. There is no [DONE].
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-error.h"

struct _OwProviderOpenaiResponses
{
  OwProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (OwProviderOpenaiResponses, ow_provider_openai_responses, OW_TYPE_PROVIDER)

/* Scratch state of one streamed reply. */
typedef struct {
  JsonArray *items;   /* output items seen in response.output_item.done, in order */
} StreamState;

static void
stream_state_free (StreamState *state)
{
  json_array_unref (state->items);
  g_free (state);
}

static StreamState *
get_state (OwProvider *self)
{
  StreamState *state = ow_provider_get_call_state (self);

  if (state == NULL)
    {
      state = g_new0 (StreamState, 1);
      state->items = json_array_new ();
      ow_provider_set_call_state (self, state, (GDestroyNotify) stream_state_free);
    }
  return state;
}

/* ---- Request ------------------------------------------------------------ */

static JsonObject *
role_message (const char *role,
              JsonNode   *content)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "role", role);
  json_object_set_member (item, "content", content);
  return item;
}

static JsonNode *
string_node (const char *text)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, text);
  return node;
}

/* The sidecar's function_call item for @call_id, if it kept one. */
static JsonObject *
sidecar_call_item (JsonArray  *items,
                   const char *call_id)
{
  for (guint i = 0; items != NULL && i < json_array_get_length (items); i++)
    {
      JsonNode *node = json_array_get_element (items, i);
      JsonObject *item;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      item = json_node_get_object (node);
      if (g_strcmp0 (ow_json_get_string (item, "type"), "function_call") == 0
          && g_strcmp0 (ow_json_get_string (item, "call_id"), call_id) == 0)
        return item;
    }
  return NULL;
}

/* What the visitor builds: the input items, and the instructions. */
typedef struct {
  JsonObject *body;   /* the request body, for "instructions" */
  JsonArray  *input;  /* the input items */
  JsonNode   *plain;  /* a user message's content when it is a string, or NULL */
  JsonArray  *parts;  /* a user message's content parts */
} Builder;

static void
on_system_prompt (const char *text,
                  gpointer    user_data)
{
  Builder *b = user_data;

  json_object_set_string_member (b->body, "instructions", text);
}

static void
on_message (const OwHistoryMessage *msg,
            gpointer                user_data)
{
  Builder *b = user_data;

  if (msg->kind == OW_HISTORY_USER)
    b->parts = json_array_new ();
}

static void
on_message_end (const OwHistoryMessage *msg,
                gpointer                user_data)
{
  Builder *b = user_data;
  JsonNode *content;

  if (msg->kind != OW_HISTORY_USER)
    return;
  if (b->plain != NULL)
    {
      content = g_steal_pointer (&b->plain);
      g_clear_pointer (&b->parts, json_array_unref);
    }
  else
    {
      content = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (content, g_steal_pointer (&b->parts));
    }
  json_array_add_object_element (b->input, role_message ("user", content));
}

static void
on_system_text (const OwHistoryMessage *msg,
                const char             *text,
                gpointer                user_data)
{
  Builder *b = user_data;

  /* A system message past the start (the engine puts one only at index
   * 0) is still an instruction. */
  json_array_add_object_element (b->input, role_message ("developer", string_node (text)));
}

static void
on_user_part (const OwHistoryMessage *msg,
              const OwHistoryPart    *part,
              gpointer                user_data)
{
  Builder *b = user_data;
  JsonObject *item;

  if (part->plain)
    {
      b->plain = string_node (part->text);
      return;
    }
  item = json_object_new ();
  switch (part->kind)
    {
    case OW_HISTORY_PART_IMAGE:
      json_object_set_string_member (item, "type", "input_image");
      json_object_set_string_member (item, "image_url", part->url != NULL ? part->url : "");
      break;
    case OW_HISTORY_PART_FILE:
      json_object_set_string_member (item, "type", "input_file");
      if (part->filename != NULL)
        json_object_set_string_member (item, "filename", part->filename);
      if (part->file_data != NULL)
        json_object_set_string_member (item, "file_data", part->file_data);
      break;
    case OW_HISTORY_PART_TEXT:
      json_object_set_string_member (item, "type", "input_text");
      json_object_set_string_member (item, "text", part->text);
      break;
    default:
      g_assert_not_reached ();
    }
  json_array_add_object_element (b->parts, item);
}

static void
on_reasoning (const OwHistoryMessage *msg,
              const char             *reasoning,
              gpointer                user_data)
{
  static const char *const items[] = { "reasoning", NULL };
  Builder *b = user_data;

  /* Reasoning first, verbatim: it carries the encrypted state the model
   * needs to continue its own line of thought. */
  ow_history_replay_sidecar (b->input, msg->message, "_openai", "items", items);
}

static void
on_assistant_text (const OwHistoryMessage *msg,
                   const char             *text,
                   gpointer                user_data)
{
  Builder *b = user_data;

  if (text[0] != '\0')
    json_array_add_object_element (b->input, role_message ("assistant", string_node (text)));
}

static void
on_tool_call (const OwHistoryMessage  *msg,
              const OwHistoryToolCall *call,
              gpointer                 user_data)
{
  Builder *b = user_data;
  JsonArray *items = ow_json_get_array (ow_history_sidecar (msg->message, "_openai"), "items");
  JsonObject *kept = sidecar_call_item (items, call->id);
  JsonObject *item;

  /* The history's tool calls decide which calls exist; the sidecar only
   * supplies their original items, so ids and status round-trip. */
  if (kept != NULL)
    {
      json_array_add_object_element (b->input, ow_json_object_deep_copy (kept));
      return;
    }
  item = json_object_new ();
  json_object_set_string_member (item, "type", "function_call");
  json_object_set_string_member (item, "call_id", call->id != NULL ? call->id : "");
  json_object_set_string_member (item, "name", call->name);
  /* Arguments are JSON text on this wire. */
  if (call->arguments != NULL && JSON_NODE_HOLDS_VALUE (call->arguments))
    json_object_set_string_member (item, "arguments", json_node_get_string (call->arguments));
  else if (call->arguments != NULL)
    {
      g_autofree char *serialized = ow_json_to_string (call->arguments);
      json_object_set_string_member (item, "arguments", serialized);
    }
  else
    json_object_set_string_member (item, "arguments", "{}");
  json_array_add_object_element (b->input, item);
}

static void
on_tool_result (const OwHistoryMessage    *msg,
                const OwHistoryToolResult *result,
                gpointer                   user_data)
{
  Builder *b = user_data;
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "type", "function_call_output");
  json_object_set_string_member (item, "call_id", result->call_id != NULL ? result->call_id : "");
  json_object_set_string_member (item, "output", result->text);
  json_array_add_object_element (b->input, item);
}

static const OwHistoryVisitor responses_visitor = {
  .system_prompt = on_system_prompt,
  .message = on_message,
  .message_end = on_message_end,
  .system_text = on_system_text,
  .user_part = on_user_part,
  .reasoning = on_reasoning,
  .assistant_text = on_assistant_text,
  .tool_call = on_tool_call,
  .tool_result = on_tool_result,
};

static JsonArray *
convert_tools (JsonArray *tools)
{
  JsonArray *out = json_array_new ();

  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    {
      JsonObject *function = ow_provider_tool_function (tools, i);
      JsonObject *tool;

      if (function == NULL)
        continue;
      /* Flat: {type, name, description, parameters, strict}. */
      tool = ow_provider_tool_declaration (function, "function");
      if (json_object_has_member (function, "parameters"))
        {
          JsonNode *params = json_object_get_member (function, "parameters");
          json_object_set_member (tool, "parameters", ow_json_deep_copy (params));
        }
      if (json_object_has_member (function, "strict"))
        json_object_set_member (tool, "strict",
                                ow_json_deep_copy (json_object_get_member (function, "strict")));
      json_array_add_object_element (out, tool);
    }
  return out;
}

static gboolean
openai_responses_build_request (OwProvider            *self,
                                const OwModelRequest  *req,
                                OwHttpRequest        **http,
                                GError               **error)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *body = json_object_new ();
  Builder builder = { NULL };
  g_autofree char *url = NULL;
  const char *key = ow_provider_get_api_key (self);
  JsonArray *include;
  gboolean summary;

  json_node_take_object (root, body);
  json_object_set_string_member (body, "model", req->model != NULL ? req->model : "");
  /* The leading system text becomes "instructions", before the input. */
  builder.body = body;
  builder.input = json_array_new ();
  ow_history_walk (req->messages, &responses_visitor, &builder);
  json_object_set_array_member (body, "input", builder.input);
  if (req->tools != NULL && json_array_get_length (req->tools) > 0)
    json_object_set_array_member (body, "tools", convert_tools (req->tools));

  /* Nothing is kept on the server; reasoning comes back encrypted so the
   * next call can carry it. */
  json_object_set_boolean_member (body, "store", FALSE);
  include = json_array_new ();
  json_array_add_string_element (include, "reasoning.encrypted_content");
  json_object_set_array_member (body, "include", include);

  summary = ow_provider_get_quirk_bool (self, "reasoning_summary", TRUE) && req->thinking != 0;
  if (summary || req->reasoning_effort != NULL)
    {
      JsonObject *reasoning = json_object_new ();
      if (req->reasoning_effort != NULL)
        json_object_set_string_member (reasoning, "effort", req->reasoning_effort);
      if (summary)
        json_object_set_string_member (reasoning, "summary", "auto");
      json_object_set_object_member (body, "reasoning", reasoning);
    }
  if (req->max_output_tokens > 0)
    json_object_set_int_member (body, "max_output_tokens", req->max_output_tokens);
  if (req->temperature >= 0)
    json_object_set_double_member (body, "temperature", req->temperature);
  if (req->top_p >= 0)
    json_object_set_double_member (body, "top_p", req->top_p);
  /* As on Chat: a stable per-session key, where the catalog says so. */
  if (req->cache_key != NULL && ow_provider_get_quirk_bool (self, "prompt_cache_key", FALSE))
    json_object_set_string_member (body, "prompt_cache_key", req->cache_key);
  if (req->stream)
    json_object_set_boolean_member (body, "stream", TRUE);

  url = ow_provider_build_url (self, "responses");
  *http = ow_provider_new_json_request (self, url, g_steal_pointer (&root));
  if (key != NULL)
    {
      g_autofree char *bearer = g_strconcat ("Bearer ", key, NULL);
      ow_provider_add_header (self, *http, "Authorization", bearer);
    }
  return TRUE;
}

/* ---- Reply -------------------------------------------------------------- */

static void
read_usage (OwTurn     *turn,
            JsonObject *usage)
{
  gint64 input = ow_json_get_int (usage, "input_tokens", 0);
  gint64 cached = ow_json_get_int (ow_json_get_object (usage, "input_tokens_details"),
                                   "cached_tokens", 0);

  turn->has_usage = TRUE;
  turn->usage.cache_read = cached;
  turn->usage.input = MAX (input - cached, 0);
  turn->usage.output = ow_json_get_int (usage, "output_tokens", 0);
  turn->usage.reasoning = ow_json_get_int (ow_json_get_object (usage, "output_tokens_details"),
                                           "reasoning_tokens", 0);
}

static void
append_summaries (GString    *out,
                  JsonObject *item)
{
  JsonArray *summary = ow_json_get_array (item, "summary");
  JsonArray *content = ow_json_get_array (item, "content");

  for (guint i = 0; summary != NULL && i < json_array_get_length (summary); i++)
    {
      JsonNode *node = json_array_get_element (summary, i);
      const char *text;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      text = ow_json_get_string (json_node_get_object (node), "text");
      if (text == NULL)
        continue;
      if (out->len > 0)
        g_string_append (out, "\n\n");
      g_string_append (out, text);
    }
  /* Open-weight models served on this wire show raw reasoning text. */
  for (guint i = 0; summary == NULL && content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      const char *text;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      text = ow_json_get_string (json_node_get_object (node), "text");
      if (text != NULL)
        g_string_append (out, text);
    }
}

/* Reads a whole response object: the terminal event's or a non-streamed
 * body. It is authoritative: text and reasoning replace what streamed. */
static gboolean
read_response (OwProvider  *self,
               OwTurn      *turn,
               JsonObject  *response,
               JsonArray   *streamed_items,
               GError     **error)
{
  JsonArray *output = ow_json_get_array (response, "output");
  const char *status = ow_json_get_string (response, "status");
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) reasoning = g_string_new (NULL);
  JsonArray *kept = json_array_new ();
  JsonObject *incomplete;

  if (g_strcmp0 (status, "failed") == 0)
    {
      JsonObject *err = ow_json_get_object (response, "error");
      json_array_unref (kept);
      g_propagate_error (error, ow_provider_stream_error (self, ow_json_get_string (err, "code"),
                                                          ow_json_get_string (err, "message")));
      return FALSE;
    }

  /* Some compatible servers leave the terminal response's output empty
   * and only stream the items. */
  if ((output == NULL || json_array_get_length (output) == 0) && streamed_items != NULL)
    output = streamed_items;

  for (guint i = 0; output != NULL && i < json_array_get_length (output); i++)
    {
      JsonNode *node = json_array_get_element (output, i);
      JsonObject *item;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      item = json_node_get_object (node);
      type = ow_json_get_string (item, "type");

      if (g_strcmp0 (type, "message") == 0)
        {
          JsonArray *content = ow_json_get_array (item, "content");
          for (guint j = 0; content != NULL && j < json_array_get_length (content); j++)
            {
              JsonNode *part = json_array_get_element (content, j);
              JsonObject *p;

              if (!JSON_NODE_HOLDS_OBJECT (part))
                continue;
              p = json_node_get_object (part);
              if (g_strcmp0 (ow_json_get_string (p, "type"), "output_text") == 0
                  && ow_json_get_string (p, "text") != NULL)
                g_string_append (text, ow_json_get_string (p, "text"));
              else if (g_strcmp0 (ow_json_get_string (p, "type"), "refusal") == 0)
                ow_provider_set_raw_finish_reason (self, ow_json_get_string (p, "refusal"));
            }
        }
      else if (g_strcmp0 (type, "reasoning") == 0)
        {
          append_summaries (reasoning, item);
          json_array_add_element (kept, ow_json_deep_copy (node));
        }
      else if (g_strcmp0 (type, "function_call") == 0)
        {
          const char *call_id = ow_json_get_string (item, "call_id");
          g_autofree char *id = call_id != NULL ? g_strdup (call_id)
                                                : ow_provider_synthesize_call_id ();
          const char *args = ow_json_get_string (item, "arguments");

          g_ptr_array_add (turn->tool_calls,
                           ow_tool_call_new (id, ow_json_get_string (item, "name"),
                                             args != NULL && args[0] != '\0' ? args : NULL));
          json_array_add_element (kept, ow_json_deep_copy (node));
        }
    }

  g_string_assign (turn->text, text->str);
  if (reasoning->len > 0 || turn->reasoning->len == 0)
    g_string_assign (turn->reasoning, reasoning->str);

  if (json_array_get_length (kept) > 0)
    {
      JsonObject *sidecar = json_object_new ();
      json_object_set_array_member (sidecar, "items", kept);
      g_free (turn->sidecar_key);
      turn->sidecar_key = g_strdup ("_openai");
      g_clear_pointer (&turn->sidecar, json_node_unref);
      turn->sidecar = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (turn->sidecar, sidecar);
    }
  else
    json_array_unref (kept);

  if (ow_json_get_string (response, "id") != NULL)
    {
      g_free (turn->response_id);
      turn->response_id = g_strdup (ow_json_get_string (response, "id"));
    }
  if (ow_json_get_string (response, "model") != NULL)
    {
      g_free (turn->served_model);
      turn->served_model = g_strdup (ow_json_get_string (response, "model"));
    }
  if (ow_json_get_object (response, "usage") != NULL)
    read_usage (turn, ow_json_get_object (response, "usage"));

  g_free (turn->finish_reason);
  incomplete = ow_json_get_object (response, "incomplete_details");
  if (g_strcmp0 (status, "incomplete") == 0)
    {
      const char *reason = ow_json_get_string (incomplete, "reason");
      ow_provider_set_raw_finish_reason (self, reason);
      if (g_strcmp0 (reason, "content_filter") == 0)
        turn->finish_reason = g_strdup ("content_filter");
      else
        turn->finish_reason = g_strdup ("length");
    }
  else if (turn->tool_calls->len > 0)
    turn->finish_reason = g_strdup ("tool_calls");
  else
    turn->finish_reason = g_strdup ("stop");

  turn->complete = TRUE;
  return TRUE;
}

static gboolean
openai_responses_handle_event (OwProvider  *self,
                               OwTurn      *turn,
                               const char  *event,
                               const char  *data,
                               gsize        len,
                               GError     **error)
{
  StreamState *state = get_state (self);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) parse_error = NULL;
  JsonObject *obj;
  const char *type;

  root = ow_json_parse (data, (gssize) len, &parse_error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a stream event that is not a JSON object (%s).",
                   ow_provider_get_title (self),
                   parse_error != NULL ? parse_error->message : "wrong type");
      return FALSE;
    }
  obj = json_node_get_object (root);
  /* The data's own type names the event; the SSE event line says the same. */
  type = ow_json_get_string (obj, "type");
  if (type == NULL)
    type = event;
  if (type == NULL)
    return TRUE;

  if (g_str_equal (type, "response.output_text.delta"))
    ow_provider_append_delta (self, turn, OW_DELTA_TEXT, ow_json_get_string (obj, "delta"), -1);
  else if (g_str_equal (type, "response.reasoning_summary_text.delta")
           || g_str_equal (type, "response.reasoning_text.delta"))
    ow_provider_append_delta (self, turn, OW_DELTA_REASONING,
                              ow_json_get_string (obj, "delta"), -1);
  else if (g_str_equal (type, "response.reasoning_summary_part.added") && turn->reasoning->len > 0)
    /* Summary parts are paragraphs. */
    ow_provider_append_delta (self, turn, OW_DELTA_REASONING, "\n\n", 2);
  else if (g_str_equal (type, "response.output_item.done"))
    {
      JsonNode *item = json_object_get_member (obj, "item");
      if (item != NULL && JSON_NODE_HOLDS_OBJECT (item))
        json_array_add_element (state->items, ow_json_deep_copy (item));
    }
  else if (g_str_equal (type, "response.completed") || g_str_equal (type, "response.incomplete")
           || g_str_equal (type, "response.failed"))
    {
      JsonObject *response = ow_json_get_object (obj, "response");

      if (response == NULL)
        {
          g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                       "%s ended the stream without the response.", ow_provider_get_title (self));
          return FALSE;
        }
      if (g_str_equal (type, "response.failed") && ow_json_get_string (response, "status") == NULL)
        {
          JsonObject *err = ow_json_get_object (response, "error");
          g_propagate_error (error,
                             ow_provider_stream_error (self, ow_json_get_string (err, "code"),
                                                              ow_json_get_string (err, "message")));
          return FALSE;
        }
      return read_response (self, turn, response, state->items, error);
    }
  else if (g_str_equal (type, "error"))
    {
      JsonObject *err = ow_json_get_object (obj, "error");
      /* The error sits in an "error" member, or on the event itself. */
      JsonObject *holder = err != NULL ? err : obj;
      const char *code = ow_json_get_string (holder, "code");
      const char *message = ow_json_get_string (holder, "message");

      if (code == NULL)
        code = err != NULL ? ow_json_get_string (err, "type") : NULL;
      g_propagate_error (error, ow_provider_stream_error (self, code, message));
      return FALSE;
    }
  return TRUE;
}

static gboolean
openai_responses_parse_response (OwProvider  *self,
                                 OwTurn      *turn,
                                 JsonNode    *body,
                                 GError     **error)
{
  JsonObject *root;
  JsonObject *err;

  if (!JSON_NODE_HOLDS_OBJECT (body))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply that is not a JSON object.", ow_provider_get_title (self));
      return FALSE;
    }
  root = json_node_get_object (body);
  err = ow_json_get_object (root, "error");
  if (err != NULL && ow_json_get_string (root, "status") == NULL)
    {
      g_propagate_error (error, ow_provider_stream_error (self, ow_json_get_string (err, "code"),
                                                          ow_json_get_string (err, "message")));
      return FALSE;
    }
  return read_response (self, turn, root, NULL, error);
}

/* ---- Parameter fixes ---------------------------------------------------- */

static gboolean
fix_params (OwProvider *self,
            JsonObject *sent,
            const char *message,
            JsonObject *edits)
{
  return ow_provider_fix_unsupported_param (sent, message, edits);
}

/* ---- GObject ------------------------------------------------------------ */

static void
ow_provider_openai_responses_class_init (OwProviderOpenaiResponsesClass *klass)
{
  OwProviderClass *provider_class = OW_PROVIDER_CLASS (klass);

  provider_class->build_request = openai_responses_build_request;
  provider_class->handle_event = openai_responses_handle_event;
  provider_class->parse_response = openai_responses_parse_response;
}

static void
ow_provider_openai_responses_init (OwProviderOpenaiResponses *self)
{
  ow_provider_set_param_fixer (OW_PROVIDER (self), fix_params);
}
