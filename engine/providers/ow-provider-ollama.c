/* ow-provider-ollama.c: Ollama's native /api/chat.
 *
 * The native API (rather than Ollama's OpenAI-compatible /v1) because only
 * it takes the context size per request (options.num_ctx): Ollama's
 * default context is far too small for agent work, and the model-settings
 * page sets it per model. It also returns thinking separately when asked
 * with "think".
 *
 * Request: OpenAI-like messages, but tool-call arguments are objects,
 * images are bare base64 strings in "images", and tool results name their
 * tool ("tool_name") rather than a call id. Options carry num_ctx,
 * num_predict and sampling.
 *
 * Reply: NDJSON, one object per line; message.content is text,
 * message.thinking reasoning, message.tool_calls arrive whole (arguments
 * as objects, usually no ids: we make "call_<n>"). The line with
 * "done": true ends the reply and carries done_reason, prompt_eval_count
 * and eval_count. A line {"error": "…"} is a failure, even mid-stream.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-error.h"

struct _OwProviderOllama
{
  OwProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (OwProviderOllama, ow_provider_ollama, OW_TYPE_PROVIDER)

/* ---- Request ------------------------------------------------------------ */

/* What the visitor builds: one wire message per history message. */
typedef struct {
  JsonArray  *out;     /* the wire messages */
  JsonObject *wire;    /* the message being built */
  JsonArray  *images;  /* its images (a user message's), or NULL */
  JsonArray  *calls;   /* its tool calls (an assistant turn's), or NULL */
} Builder;

static void
on_message (const OwHistoryMessage *msg,
            gpointer                user_data)
{
  Builder *b = user_data;
  JsonArray *calls = ow_json_get_array (msg->message, "tool_calls");

  b->wire = json_object_new ();
  json_object_set_string_member (b->wire, "role", msg->role);
  if (msg->kind == OW_HISTORY_USER && g_str_equal (msg->role, "user"))
    b->images = json_array_new ();
  if (msg->kind == OW_HISTORY_ASSISTANT && calls != NULL && json_array_get_length (calls) > 0)
    b->calls = json_array_new ();
}

static void
on_message_end (const OwHistoryMessage *msg,
                gpointer                user_data)
{
  Builder *b = user_data;

  if (msg->kind == OW_HISTORY_USER)
    {
      /* Text and images travel apart on this wire. */
      g_autofree char *text = ow_history_content_text (msg->message);
      json_object_set_string_member (b->wire, "content", text);
    }
  if (b->images != NULL && json_array_get_length (b->images) > 0)
    json_object_set_array_member (b->wire, "images", g_steal_pointer (&b->images));
  g_clear_pointer (&b->images, json_array_unref);
  if (b->calls != NULL)
    json_object_set_array_member (b->wire, "tool_calls", g_steal_pointer (&b->calls));
  json_array_add_object_element (b->out, g_steal_pointer (&b->wire));
}

static void
on_user_part (const OwHistoryMessage *msg,
              const OwHistoryPart    *part,
              gpointer                user_data)
{
  Builder *b = user_data;

  /* Images are bare base64; a remote image or a file has no place here. */
  if (b->images != NULL && part->kind == OW_HISTORY_PART_IMAGE && part->data != NULL)
    json_array_add_string_element (b->images, part->data);
}

/* A system message's or an assistant turn's text, even when empty. */
static void
on_text (const OwHistoryMessage *msg,
         const char             *text,
         gpointer                user_data)
{
  Builder *b = user_data;

  json_object_set_string_member (b->wire, "content", text);
}

static void
on_tool_call (const OwHistoryMessage  *msg,
              const OwHistoryToolCall *call,
              gpointer                 user_data)
{
  Builder *b = user_data;
  JsonObject *fn = json_object_new ();
  JsonObject *wire_call = json_object_new ();

  /* Arguments are objects; there are no call ids. */
  json_object_set_string_member (fn, "name", call->name);
  json_object_set_member (fn, "arguments", ow_history_call_arguments (call));
  json_object_set_object_member (wire_call, "function", fn);
  json_array_add_object_element (b->calls, wire_call);
}

static void
on_tool_result (const OwHistoryMessage    *msg,
                const OwHistoryToolResult *result,
                gpointer                   user_data)
{
  Builder *b = user_data;

  /* A result names its tool, not its call. */
  json_object_set_string_member (b->wire, "content", result->text);
  if (result->name != NULL)
    json_object_set_string_member (b->wire, "tool_name", result->name);
}

static const OwHistoryVisitor ollama_visitor = {
  .message = on_message,
  .message_end = on_message_end,
  .system_text = on_text,
  .user_part = on_user_part,
  .assistant_text = on_text,
  .tool_call = on_tool_call,
  .tool_result = on_tool_result,
};

static JsonArray *
convert_messages (JsonArray *messages)
{
  Builder b = { .out = json_array_new () };

  ow_history_walk (messages, &ollama_visitor, &b);
  return b.out;
}

static gboolean
ollama_build_request (OwProvider            *self,
                      const OwModelRequest  *req,
                      OwHttpRequest        **http,
                      GError               **error)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *body = json_object_new ();
  JsonObject *options = json_object_new ();
  g_autofree char *url = NULL;
  g_autofree char *base = g_strdup (ow_provider_get_base_url (self));
  const char *key = ow_provider_get_api_key (self);

  json_node_take_object (root, body);
  json_object_set_string_member (body, "model", req->model != NULL ? req->model : "");
  json_object_set_array_member (body, "messages", convert_messages (req->messages));
  /* The request's own tool list, shared: the body is only written out,
   * and a retry's edits replace members of the body, never change them. */
  if (req->tools != NULL && json_array_get_length (req->tools) > 0)
    json_object_set_array_member (body, "tools", json_array_ref (req->tools));
  /* "stream" defaults to true on this API, so it is always said. */
  json_object_set_boolean_member (body, "stream", req->stream);

  if (req->thinking == 1 && req->reasoning_effort != NULL && req->model != NULL
      && g_str_has_prefix (req->model, "gpt-oss")
      && (g_str_equal (req->reasoning_effort, "low")
          || g_str_equal (req->reasoning_effort, "medium")
          || g_str_equal (req->reasoning_effort, "high")))
    /* gpt-oss takes an effort level instead of a switch. */
    json_object_set_string_member (body, "think", req->reasoning_effort);
  else if (req->thinking >= 0)
    json_object_set_boolean_member (body, "think", req->thinking == 1);

  if (req->context_size > 0)
    json_object_set_int_member (options, "num_ctx", req->context_size);
  if (req->max_output_tokens > 0)
    json_object_set_int_member (options, "num_predict", req->max_output_tokens);
  if (req->temperature >= 0)
    json_object_set_double_member (options, "temperature", req->temperature);
  if (req->top_p >= 0)
    json_object_set_double_member (options, "top_p", req->top_p);
  if (json_object_get_size (options) > 0)
    json_object_set_object_member (body, "options", options);
  else
    json_object_unref (options);

  /* A base URL copied from the OpenAI-compatible setup ends in /v1; the
   * native API lives beside it. */
  if (g_str_has_suffix (base, "/v1"))
    base[strlen (base) - 3] = '\0';
  url = g_strconcat (base, "/api/chat", NULL);
  *http = ow_provider_new_json_request (self, url, g_steal_pointer (&root));
  if (key != NULL)
    {
      g_autofree char *bearer = g_strconcat ("Bearer ", key, NULL);
      ow_provider_add_header (self, *http, "Authorization", bearer);
    }
  return TRUE;
}

/* ---- Reply -------------------------------------------------------------- */

static gboolean
read_line (OwProvider  *self,
           OwTurn      *turn,
           JsonObject  *line,
           GError     **error)
{
  JsonNode *err = json_object_get_member (line, "error");
  JsonObject *message = ow_json_get_object (line, "message");
  JsonArray *calls = ow_json_get_array (message, "tool_calls");

  if (err != NULL && !JSON_NODE_HOLDS_NULL (err))
    {
      const char *text = JSON_NODE_HOLDS_VALUE (err) ? json_node_get_string (err) : NULL;
      if (text == NULL && JSON_NODE_HOLDS_OBJECT (err))
        text = ow_json_get_string (json_node_get_object (err), "message");
      g_propagate_error (error,
                         ow_provider_stream_error (self, NULL,
                                                   text != NULL ? text : "unknown error"));
      return FALSE;
    }

  if (turn->served_model == NULL && ow_json_get_string (line, "model") != NULL)
    turn->served_model = g_strdup (ow_json_get_string (line, "model"));

  ow_provider_append_delta (self, turn, OW_DELTA_REASONING,
                            ow_json_get_string (message, "thinking"), -1);
  ow_provider_append_delta (self, turn, OW_DELTA_TEXT, ow_json_get_string (message, "content"), -1);

  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonNode *node = json_array_get_element (calls, i);
      JsonObject *call;
      JsonObject *function;
      JsonNode *args;
      g_autofree char *args_text = NULL;
      g_autofree char *id = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      call = json_node_get_object (node);
      function = ow_json_get_object (call, "function");
      if (ow_json_get_string (function, "name") == NULL)
        continue;
      args = json_object_get_member (function, "arguments");
      if (args != NULL && JSON_NODE_HOLDS_VALUE (args)
          && json_node_get_value_type (args) == G_TYPE_STRING)
        args_text = g_strdup (json_node_get_string (args));
      else if (args != NULL && !JSON_NODE_HOLDS_NULL (args))
        args_text = ow_json_to_string (args);
      id = ow_json_get_string (call, "id") != NULL ? g_strdup (ow_json_get_string (call, "id"))
                                                   : ow_provider_synthesize_call_id ();
      g_ptr_array_add (turn->tool_calls,
                       ow_tool_call_new (id, ow_json_get_string (function, "name"), args_text));
    }

  if (ow_json_get_bool (line, "done", FALSE))
    {
      const char *reason = ow_json_get_string (line, "done_reason");

      ow_provider_set_raw_finish_reason (self, reason);
      g_free (turn->finish_reason);
      turn->finish_reason = g_strdup (g_strcmp0 (reason, "length") == 0 ? "length" : "stop");
      if (ow_json_has_int (line, "prompt_eval_count") || ow_json_has_int (line, "eval_count"))
        {
          /* Ollama reports no cache split; prompt_eval_count may count only
           * the tokens it had to evaluate. */
          turn->has_usage = TRUE;
          turn->usage.input = ow_json_get_int (line, "prompt_eval_count", 0);
          turn->usage.output = ow_json_get_int (line, "eval_count", 0);
        }
      turn->complete = TRUE;
    }
  return TRUE;
}

static gboolean
ollama_handle_event (OwProvider  *self,
                     OwTurn      *turn,
                     const char  *event,
                     const char  *data,
                     gsize        len,
                     GError     **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) parse_error = NULL;

  root = ow_json_parse (data, (gssize) len, &parse_error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a line that is not a JSON object (%s).", ow_provider_get_title (self),
                   parse_error != NULL ? parse_error->message : "wrong type");
      return FALSE;
    }
  return read_line (self, turn, json_node_get_object (root), error);
}

static gboolean
ollama_parse_response (OwProvider  *self,
                       OwTurn      *turn,
                       JsonNode    *body,
                       GError     **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (body))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply that is not a JSON object.", ow_provider_get_title (self));
      return FALSE;
    }
  if (!read_line (self, turn, json_node_get_object (body), error))
    return FALSE;
  turn->complete = TRUE;
  return TRUE;
}

static gboolean
ollama_stream_is_ndjson (OwProvider *self)
{
  return TRUE;
}

/* ---- GObject ------------------------------------------------------------ */

static void
ow_provider_ollama_class_init (OwProviderOllamaClass *klass)
{
  OwProviderClass *provider_class = OW_PROVIDER_CLASS (klass);

  provider_class->build_request = ollama_build_request;
  provider_class->handle_event = ollama_handle_event;
  provider_class->parse_response = ollama_parse_response;
  provider_class->stream_is_ndjson = ollama_stream_is_ndjson;
}

static void
ow_provider_ollama_init (OwProviderOllama *self)
{
}
