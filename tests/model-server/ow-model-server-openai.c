/* ow-model-server-openai.c: OpenAI Chat Completions and Responses.
 *
 * Chat Completions streams anonymous SSE "data:" chunks of
 * chat.completion.chunk objects: a role chunk, reasoning_content and content
 * deltas, tool calls keyed by index (the first fragment carries id, type and
 * name, later ones only argument pieces), a chunk with finish_reason, the
 * usage chunk with empty choices when the request asked for
 * stream_options.include_usage, and the literal "data: [DONE]".
 *
 * Responses streams named events ("event: <type>" plus the same "type" and a
 * sequence_number in the data): response.created and .in_progress, then per
 * output item .output_item.added, its deltas and .done events, and
 * .output_item.done with the full item; it ends with response.completed, or
 * response.incomplete when the reply was cut by the token limit. There is no
 * [DONE]. Reasoning items carry encrypted_content only when the request
 * included "reasoning.encrypted_content", as the real service does.
 *
 * Both share OpenAI's error body {"error":{message,type,param,code}} and the
 * x-request-id header.
 */
#define G_LOG_DOMAIN "ow-model-server"

#include "ow-model-server-private.h"

/* ---- Errors -------------------------------------------------------------- */

JsonObject *
ow_ms_openai_error_object (OwMsReply  *reply,
                           const char *param,
                           guint      *status_out)
{
  const OwMsError *e = reply->turn->error;
  g_autofree char *usual = NULL;
  const char *type = "invalid_request_error";
  const char *code = NULL;
  guint status = 400;
  JsonObject *inner = json_object_new ();
  JsonObject *outer = json_object_new ();

  switch (e->kind)
    {
    case OW_MS_ERROR_RATE_LIMIT:
      status = 429;
      type = "requests";
      code = "rate_limit_exceeded";
      usual = g_strdup_printf ("Rate limit reached for %s in organization org-scripted on requests "
                               "per min (RPM): Limit 3, Used 3, Requested 1. Please try again in "
                               "20s. Visit https://platform.openai.com/account/rate-limits to "
                               "learn more.", reply->model);
      param = NULL;
      break;
    case OW_MS_ERROR_QUOTA:
      status = 429;
      type = code = "insufficient_quota";
      usual = g_strdup ("You exceeded your current quota, please check your plan and billing "
                        "details. For more information on this error, read the docs: "
                        "https://platform.openai.com/docs/guides/error-codes/api-errors.");
      param = NULL;
      break;
    case OW_MS_ERROR_OVERLOADED:
      status = 503;
      type = "server_error";
      usual = g_strdup ("The server is overloaded or not ready yet.");
      param = NULL;
      break;
    case OW_MS_ERROR_SERVER:
      status = 500;
      type = "server_error";
      usual = g_strdup ("The server had an error while processing your request. Sorry about that!");
      param = NULL;
      break;
    case OW_MS_ERROR_BAD_KEY:
      status = 401;
      code = "invalid_api_key";
      usual = g_strdup ("Incorrect API key provided: sk-scrip*********1234. You can find your "
                        "API key at https://platform.openai.com/account/api-keys.");
      param = NULL;
      break;
    case OW_MS_ERROR_UNKNOWN_MODEL:
      status = 404;
      code = "model_not_found";
      usual = g_strdup_printf ("The model `%s` does not exist or you do not have access to it.",
                               reply->model);
      param = NULL;
      break;
    case OW_MS_ERROR_CONTEXT_OVERFLOW:
      code = "context_length_exceeded";
      usual = g_strdup ("This model's maximum context length is 128000 tokens. However, your "
                        "messages resulted in 131072 tokens. Please reduce the length of the "
                        "messages.");
      break;
    case OW_MS_ERROR_BAD_REQUEST:
      code = "missing_required_parameter";
      usual = g_strdup_printf ("Missing required parameter: '%s'.", param);
      break;
    case OW_MS_ERROR_PERMISSION:
      status = 403;
      type = "request_forbidden";
      code = "unsupported_country_region_territory";
      usual = g_strdup ("Country, region, or territory not supported");
      param = NULL;
      break;
    case OW_MS_N_ERROR_KINDS:
    default:
      g_assert_not_reached ();
    }

  json_object_set_string_member (inner, "message", ow_ms_error_message (e, usual));
  json_object_set_string_member (inner, "type", type);
  ow_ms_set_string (inner, "param", param);
  ow_ms_set_string (inner, "code", code);
  json_object_set_object_member (outer, "error", inner);
  *status_out = ow_ms_error_status (e, status);
  return outer;
}

static void
add_request_id (OwMsReply *reply)
{
  g_autofree char *id = ow_ms_reply_make_id (reply, "req_", 32, TRUE);

  ow_ms_reply_add_header (reply, "x-request-id", id);
  ow_ms_reply_add_header (reply, "openai-version", "2020-10-01");
  ow_ms_reply_add_header (reply, "openai-processing-ms", "42");
}

/* An HTTP error answer; TRUE when the turn is one. */
static gboolean
build_http_error (OwMsReply  *reply,
                  const char *param)
{
  g_autoptr(JsonObject) body = NULL;
  guint status;

  /* A reply that does not stream has nowhere to put an in-stream error,
   * so it fails at the HTTP level instead. */
  if (reply->turn->error == NULL || (reply->turn->error->in_stream && reply->stream))
    return FALSE;
  body = ow_ms_openai_error_object (reply, param, &status);
  ow_ms_reply_set_json (reply, status, body);
  ow_ms_reply_add_retry_after (reply);
  return TRUE;
}

/* Whether the request body has @value in the string array @name. */
static gboolean
request_includes (OwMsReply  *reply,
                  const char *name,
                  const char *value)
{
  JsonNode *node = reply->request != NULL ? json_object_get_member (reply->request, name) : NULL;
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING
          && g_strcmp0 (json_node_get_string (element), value) == 0)
        return TRUE;
    }
  return FALSE;
}

/* ---- Chat Completions ---------------------------------------------------- */

typedef struct {
  OwMsReply *reply;
  char      *id;             /* chatcmpl-… */
  gint64     created;
  gboolean   include_usage;  /* stream_options.include_usage */
} ChatStream;

static JsonObject *
chat_usage (const OwMsUsage *usage)
{
  JsonObject *object = json_object_new ();
  JsonObject *prompt_details = json_object_new ();
  JsonObject *completion_details = json_object_new ();
  gint64 prompt = ow_ms_usage_prompt (usage);

  /* OpenAI counts cached tokens inside prompt_tokens, and reasoning tokens
   * inside completion_tokens. */
  json_object_set_int_member (object, "prompt_tokens", prompt);
  json_object_set_int_member (object, "completion_tokens", usage->output);
  json_object_set_int_member (object, "total_tokens", prompt + usage->output);
  json_object_set_int_member (prompt_details, "cached_tokens", usage->cache_read);
  json_object_set_int_member (prompt_details, "audio_tokens", 0);
  json_object_set_object_member (object, "prompt_tokens_details", prompt_details);
  json_object_set_int_member (completion_details, "reasoning_tokens", usage->reasoning);
  json_object_set_int_member (completion_details, "audio_tokens", 0);
  json_object_set_int_member (completion_details, "accepted_prediction_tokens", 0);
  json_object_set_int_member (completion_details, "rejected_prediction_tokens", 0);
  json_object_set_object_member (object, "completion_tokens_details", completion_details);
  return object;
}

static JsonObject *
chat_chunk_base (ChatStream *cs)
{
  JsonObject *chunk = json_object_new ();

  json_object_set_string_member (chunk, "id", cs->id);
  json_object_set_string_member (chunk, "object", "chat.completion.chunk");
  json_object_set_int_member (chunk, "created", cs->created);
  json_object_set_string_member (chunk, "model", cs->reply->model);
  json_object_set_string_member (chunk, "service_tier", "default");
  json_object_set_string_member (chunk, "system_fingerprint", "fp_scripted");
  return chunk;
}

/* Adds one chunk with a single choice; takes @delta. */
static void
chat_add_chunk (ChatStream *cs,
                JsonObject *delta,
                const char *finish_reason)
{
  g_autoptr(JsonObject) chunk = chat_chunk_base (cs);
  JsonArray *choices = json_array_new ();
  JsonObject *choice = json_object_new ();

  json_object_set_int_member (choice, "index", 0);
  json_object_set_object_member (choice, "delta", delta);
  json_object_set_null_member (choice, "logprobs");
  ow_ms_set_string (choice, "finish_reason", finish_reason);
  json_array_add_object_element (choices, choice);
  json_object_set_array_member (chunk, "choices", choices);
  if (cs->include_usage)
    json_object_set_null_member (chunk, "usage");
  ow_ms_reply_add_sse (cs->reply, NULL, chunk);
}

static JsonObject *
chat_tool_call (const OwMsToolCall *call,
                guint               index,
                const char         *id,
                const char         *arguments)
{
  JsonObject *object = json_object_new ();
  JsonObject *function = json_object_new ();

  json_object_set_int_member (object, "index", index);
  if (id != NULL)
    {
      json_object_set_string_member (object, "id", id);
      json_object_set_string_member (object, "type", "function");
      json_object_set_string_member (function, "name", call->name);
    }
  json_object_set_string_member (function, "arguments", arguments);
  json_object_set_object_member (object, "function", function);
  return object;
}

static char *
chat_call_id (OwMsReply          *reply,
              const OwMsToolCall *call)
{
  return call->id != NULL ? g_strdup (call->id) : ow_ms_reply_make_id (reply, "call_", 24, FALSE);
}

static void
chat_stream (ChatStream *cs)
{
  OwMsReply *reply = cs->reply;
  const OwMsTurn *turn = reply->turn;
  g_autoptr(GPtrArray) reasoning = ow_ms_split_text (turn->reasoning, turn->text_chunks);
  g_autoptr(GPtrArray) text = ow_ms_split_text (turn->text, turn->text_chunks);
  gboolean role_sent = FALSE;
  guint body_end;

  /* A reply that starts with words opens with a bare role chunk; one that
   * is only tool calls carries the role on the first call's chunk. */
  if (turn->text != NULL || turn->reasoning != NULL || turn->tool_calls->len == 0)
    {
      JsonObject *delta = json_object_new ();

      json_object_set_string_member (delta, "role", "assistant");
      json_object_set_string_member (delta, "content", "");
      json_object_set_null_member (delta, "refusal");
      chat_add_chunk (cs, delta, NULL);
      role_sent = TRUE;
    }
  for (guint i = 0; i < reasoning->len; i++)
    {
      JsonObject *delta = json_object_new ();

      json_object_set_string_member (delta, "reasoning_content", reasoning->pdata[i]);
      chat_add_chunk (cs, delta, NULL);
    }
  for (guint i = 0; i < text->len; i++)
    {
      JsonObject *delta = json_object_new ();

      json_object_set_string_member (delta, "content", text->pdata[i]);
      chat_add_chunk (cs, delta, NULL);
    }
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      const OwMsToolCall *call = turn->tool_calls->pdata[i];
      g_autoptr(GPtrArray) pieces = ow_ms_split_text (call->arguments, 0);
      g_autofree char *id = chat_call_id (reply, call);
      JsonObject *delta = json_object_new ();
      JsonArray *calls = json_array_new ();

      if (!role_sent)
        {
          json_object_set_string_member (delta, "role", "assistant");
          json_object_set_null_member (delta, "content");
          json_object_set_null_member (delta, "refusal");
          role_sent = TRUE;
        }
      json_array_add_object_element (calls, chat_tool_call (call, i, id, ""));
      json_object_set_array_member (delta, "tool_calls", calls);
      chat_add_chunk (cs, delta, NULL);

      for (guint p = 0; p < pieces->len; p++)
        {
          delta = json_object_new ();
          calls = json_array_new ();
          json_array_add_object_element (calls, chat_tool_call (call, i, NULL, pieces->pdata[p]));
          json_object_set_array_member (delta, "tool_calls", calls);
          chat_add_chunk (cs, delta, NULL);
        }
    }

  body_end = reply->events->len;
  chat_add_chunk (cs, json_object_new (), ow_ms_finish_name (turn->finish));
  if (cs->include_usage)
    {
      g_autoptr(JsonObject) chunk = chat_chunk_base (cs);

      json_object_set_array_member (chunk, "choices", json_array_new ());
      json_object_set_object_member (chunk, "usage", chat_usage (&turn->usage));
      ow_ms_reply_add_sse (reply, NULL, chunk);
    }
  ow_ms_reply_add_bytes (reply, g_strdup ("data: [DONE]\n\n"));

  if (turn->error != NULL)
    {
      /* Mid-stream failure: a data line whose JSON is a top-level error,
       * where the finish would have come, and no [DONE]. */
      g_autoptr(JsonObject) error = NULL;
      guint status;

      ow_ms_reply_truncate (reply, body_end);
      error = ow_ms_openai_error_object (reply, "messages", &status);
      ow_ms_reply_add_sse (reply, NULL, error);
    }
}

static void
chat_whole (ChatStream *cs)
{
  OwMsReply *reply = cs->reply;
  const OwMsTurn *turn = reply->turn;
  g_autoptr(JsonObject) body = json_object_new ();
  JsonArray *choices = json_array_new ();
  JsonObject *choice = json_object_new ();
  JsonObject *message = json_object_new ();

  json_object_set_string_member (body, "id", cs->id);
  json_object_set_string_member (body, "object", "chat.completion");
  json_object_set_int_member (body, "created", cs->created);
  json_object_set_string_member (body, "model", reply->model);

  json_object_set_string_member (message, "role", "assistant");
  ow_ms_set_string (message, "content", turn->text);
  if (turn->reasoning != NULL)
    json_object_set_string_member (message, "reasoning_content", turn->reasoning);
  json_object_set_null_member (message, "refusal");
  json_object_set_array_member (message, "annotations", json_array_new ());
  if (turn->tool_calls->len > 0)
    {
      JsonArray *calls = json_array_new ();

      for (guint i = 0; i < turn->tool_calls->len; i++)
        {
          const OwMsToolCall *call = turn->tool_calls->pdata[i];
          g_autofree char *id = chat_call_id (reply, call);
          JsonObject *object = chat_tool_call (call, i, id, call->arguments);

          /* Whole messages carry no index. */
          json_object_remove_member (object, "index");
          json_array_add_object_element (calls, object);
        }
      json_object_set_array_member (message, "tool_calls", calls);
    }

  json_object_set_int_member (choice, "index", 0);
  json_object_set_object_member (choice, "message", message);
  json_object_set_null_member (choice, "logprobs");
  json_object_set_string_member (choice, "finish_reason", ow_ms_finish_name (turn->finish));
  json_array_add_object_element (choices, choice);
  json_object_set_array_member (body, "choices", choices);
  json_object_set_object_member (body, "usage", chat_usage (&turn->usage));
  json_object_set_string_member (body, "service_tier", "default");
  json_object_set_string_member (body, "system_fingerprint", "fp_scripted");
  ow_ms_reply_set_json (reply, SOUP_STATUS_OK, body);
}

void
ow_ms_build_openai_chat (OwMsReply *reply)
{
  ChatStream cs = { reply, NULL, g_get_real_time () / G_USEC_PER_SEC, FALSE };
  JsonObject *options;

  add_request_id (reply);
  if (build_http_error (reply, "messages"))
    return;

  cs.id = ow_ms_reply_make_id (reply, "chatcmpl-", 29, FALSE);
  options = reply->request != NULL && json_object_has_member (reply->request, "stream_options")
            && JSON_NODE_HOLDS_OBJECT (json_object_get_member (reply->request, "stream_options"))
            ? json_object_get_object_member (reply->request, "stream_options") : NULL;
  cs.include_usage = options != NULL && json_object_has_member (options, "include_usage")
                     && json_object_get_boolean_member (options, "include_usage");

  if (reply->stream)
    {
      reply->content_type = "text/event-stream; charset=utf-8";
      chat_stream (&cs);
    }
  else
    chat_whole (&cs);
  g_free (cs.id);
}

/* ---- Responses ----------------------------------------------------------- */

typedef struct {
  OwMsReply  *reply;
  char       *id;              /* resp_… */
  gint64      created;
  guint       sequence;        /* sequence_number of the next event */
  gboolean    encrypted;       /* include reasoning.encrypted_content */
  JsonArray  *output;          /* the finished output items */
} RespStream;

/* An event's data object, "type" first as the service writes it. */
static JsonObject *
resp_event_new (const char *type)
{
  JsonObject *event = json_object_new ();

  json_object_set_string_member (event, "type", type);
  return event;
}

/* Numbers, sends and takes @event. */
static void
resp_add_event (RespStream *rs,
                JsonObject *event)
{
  json_object_set_int_member (event, "sequence_number", rs->sequence++);
  ow_ms_reply_add_sse (rs->reply, json_object_get_string_member (event, "type"), event);
  json_object_unref (event);
}

static JsonObject *
resp_usage (const OwMsUsage *usage)
{
  JsonObject *object = json_object_new ();
  JsonObject *input_details = json_object_new ();
  JsonObject *output_details = json_object_new ();
  gint64 prompt = ow_ms_usage_prompt (usage);

  json_object_set_int_member (object, "input_tokens", prompt);
  json_object_set_int_member (input_details, "cached_tokens", usage->cache_read);
  json_object_set_object_member (object, "input_tokens_details", input_details);
  json_object_set_int_member (object, "output_tokens", usage->output);
  json_object_set_int_member (output_details, "reasoning_tokens", usage->reasoning);
  json_object_set_object_member (object, "output_tokens_details", output_details);
  json_object_set_int_member (object, "total_tokens", prompt + usage->output);
  return object;
}

/* The response object in @status ("in_progress", "completed",
 * "incomplete", "failed"); the finished output and usage only once done. */
static JsonObject *
resp_object (RespStream *rs,
             const char *status,
             JsonObject *error)
{
  OwMsReply *reply = rs->reply;
  JsonObject *response = json_object_new ();
  JsonObject *reasoning = json_object_new ();
  JsonObject *text = json_object_new ();
  JsonObject *format = json_object_new ();
  gboolean done = g_str_equal (status, "completed") || g_str_equal (status, "incomplete");
  JsonNode *store = reply->request != NULL ? json_object_get_member (reply->request, "store") : NULL;

  json_object_set_string_member (response, "id", rs->id);
  json_object_set_string_member (response, "object", "response");
  json_object_set_int_member (response, "created_at", rs->created);
  json_object_set_string_member (response, "status", status);
  json_object_set_boolean_member (response, "background", FALSE);
  if (error != NULL)
    json_object_set_object_member (response, "error", error);
  else
    json_object_set_null_member (response, "error");
  if (g_str_equal (status, "incomplete"))
    {
      JsonObject *details = json_object_new ();

      json_object_set_string_member (details, "reason", "max_output_tokens");
      json_object_set_object_member (response, "incomplete_details", details);
    }
  else
    json_object_set_null_member (response, "incomplete_details");
  json_object_set_null_member (response, "instructions");
  json_object_set_null_member (response, "max_output_tokens");
  json_object_set_string_member (response, "model", reply->model);
  if (done)
    json_object_set_array_member (response, "output", json_array_ref (rs->output));
  else
    json_object_set_array_member (response, "output", json_array_new ());
  json_object_set_boolean_member (response, "parallel_tool_calls", TRUE);
  json_object_set_null_member (response, "previous_response_id");
  json_object_set_null_member (reasoning, "effort");
  json_object_set_null_member (reasoning, "summary");
  json_object_set_object_member (response, "reasoning", reasoning);
  json_object_set_boolean_member (response, "store",
                                  store == NULL || !JSON_NODE_HOLDS_VALUE (store)
                                  || json_node_get_boolean (store));
  json_object_set_string_member (format, "type", "text");
  json_object_set_object_member (text, "format", format);
  json_object_set_object_member (response, "text", text);
  json_object_set_string_member (response, "tool_choice", "auto");
  json_object_set_array_member (response, "tools", json_array_new ());
  json_object_set_string_member (response, "truncation", "disabled");
  if (done)
    json_object_set_object_member (response, "usage", resp_usage (&reply->turn->usage));
  else
    json_object_set_null_member (response, "usage");
  json_object_set_object_member (response, "metadata", json_object_new ());
  return response;
}

static void
resp_add_response_event (RespStream *rs,
                         const char *type,
                         const char *status)
{
  JsonObject *event = resp_event_new (type);

  json_object_set_object_member (event, "response", resp_object (rs, status, NULL));
  resp_add_event (rs, event);
}

/* The start of an item event: output_index and either the item or its id. */
static JsonObject *
resp_item_event (const char *type,
                 guint       output_index,
                 const char *item_id)
{
  JsonObject *event = resp_event_new (type);

  if (item_id != NULL)
    json_object_set_string_member (event, "item_id", item_id);
  json_object_set_int_member (event, "output_index", output_index);
  return event;
}

static void
resp_add_item_event (RespStream *rs,
                     const char *type,
                     guint       output_index,
                     JsonObject *item)
{
  JsonObject *event = resp_item_event (type, output_index, NULL);

  json_object_set_object_member (event, "item", item);
  resp_add_event (rs, event);
}

static JsonObject *
summary_part (const char *text)
{
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "type", "summary_text");
  json_object_set_string_member (part, "text", text);
  return part;
}

static JsonObject *
output_text_part (const char *text)
{
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "type", "output_text");
  json_object_set_array_member (part, "annotations", json_array_new ());
  json_object_set_array_member (part, "logprobs", json_array_new ());
  json_object_set_string_member (part, "text", text);
  return part;
}

static JsonObject *
reasoning_item (RespStream *rs,
                const char *id,
                gboolean    done)
{
  const OwMsTurn *turn = rs->reply->turn;
  JsonObject *item = json_object_new ();
  JsonArray *summary = json_array_new ();

  json_object_set_string_member (item, "id", id);
  json_object_set_string_member (item, "type", "reasoning");
  if (done)
    json_array_add_object_element (summary, summary_part (turn->reasoning));
  json_object_set_array_member (item, "summary", summary);
  if (done && rs->encrypted)
    {
      g_autofree char *blob = ow_ms_reply_make_id (rs->reply, "gAAAAAB", 96, FALSE);
      json_object_set_string_member (item, "encrypted_content", blob);
    }
  return item;
}

static JsonObject *
message_item (const char *id,
              const char *text,
              gboolean    done)
{
  JsonObject *item = json_object_new ();
  JsonArray *content = json_array_new ();

  json_object_set_string_member (item, "id", id);
  json_object_set_string_member (item, "type", "message");
  json_object_set_string_member (item, "status", done ? "completed" : "in_progress");
  if (done)
    json_array_add_object_element (content, output_text_part (text));
  json_object_set_array_member (item, "content", content);
  json_object_set_string_member (item, "role", "assistant");
  return item;
}

static JsonObject *
function_call_item (const char         *id,
                    const char         *call_id,
                    const OwMsToolCall *call,
                    gboolean            done)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "id", id);
  json_object_set_string_member (item, "type", "function_call");
  json_object_set_string_member (item, "status", done ? "completed" : "in_progress");
  json_object_set_string_member (item, "arguments", done ? call->arguments : "");
  json_object_set_string_member (item, "call_id", call_id);
  json_object_set_string_member (item, "name", call->name);
  return item;
}

static void
resp_stream_reasoning (RespStream *rs,
                       guint       index,
                       const char *id)
{
  const OwMsTurn *turn = rs->reply->turn;
  g_autoptr(GPtrArray) pieces = ow_ms_split_text (turn->reasoning, turn->text_chunks);
  JsonObject *event;

  resp_add_item_event (rs, "response.output_item.added", index, reasoning_item (rs, id, FALSE));
  event = resp_item_event ("response.reasoning_summary_part.added", index, id);
  json_object_set_int_member (event, "summary_index", 0);
  json_object_set_object_member (event, "part", summary_part (""));
  resp_add_event (rs, event);
  for (guint i = 0; i < pieces->len; i++)
    {
      event = resp_item_event ("response.reasoning_summary_text.delta", index, id);
      json_object_set_int_member (event, "summary_index", 0);
      json_object_set_string_member (event, "delta", pieces->pdata[i]);
      resp_add_event (rs, event);
    }
  event = resp_item_event ("response.reasoning_summary_text.done", index, id);
  json_object_set_int_member (event, "summary_index", 0);
  json_object_set_string_member (event, "text", turn->reasoning);
  resp_add_event (rs, event);
  event = resp_item_event ("response.reasoning_summary_part.done", index, id);
  json_object_set_int_member (event, "summary_index", 0);
  json_object_set_object_member (event, "part", summary_part (turn->reasoning));
  resp_add_event (rs, event);
}

static void
resp_stream_message (RespStream *rs,
                     guint       index,
                     const char *id,
                     const char *text)
{
  const OwMsTurn *turn = rs->reply->turn;
  g_autoptr(GPtrArray) pieces = ow_ms_split_text (text, turn->text_chunks);
  JsonObject *event;

  resp_add_item_event (rs, "response.output_item.added", index, message_item (id, text, FALSE));
  event = resp_item_event ("response.content_part.added", index, id);
  json_object_set_int_member (event, "content_index", 0);
  json_object_set_object_member (event, "part", output_text_part (""));
  resp_add_event (rs, event);
  for (guint i = 0; i < pieces->len; i++)
    {
      event = resp_item_event ("response.output_text.delta", index, id);
      json_object_set_int_member (event, "content_index", 0);
      json_object_set_string_member (event, "delta", pieces->pdata[i]);
      json_object_set_array_member (event, "logprobs", json_array_new ());
      resp_add_event (rs, event);
    }
  event = resp_item_event ("response.output_text.done", index, id);
  json_object_set_int_member (event, "content_index", 0);
  json_object_set_string_member (event, "text", text);
  json_object_set_array_member (event, "logprobs", json_array_new ());
  resp_add_event (rs, event);
  event = resp_item_event ("response.content_part.done", index, id);
  json_object_set_int_member (event, "content_index", 0);
  json_object_set_object_member (event, "part", output_text_part (text));
  resp_add_event (rs, event);
}

static void
resp_stream_call (RespStream         *rs,
                  guint               index,
                  const char         *id,
                  const char         *call_id,
                  const OwMsToolCall *call)
{
  g_autoptr(GPtrArray) pieces = ow_ms_split_text (call->arguments, 0);
  JsonObject *event;

  resp_add_item_event (rs, "response.output_item.added", index,
                       function_call_item (id, call_id, call, FALSE));
  for (guint i = 0; i < pieces->len; i++)
    {
      event = resp_item_event ("response.function_call_arguments.delta", index, id);
      json_object_set_string_member (event, "delta", pieces->pdata[i]);
      resp_add_event (rs, event);
    }
  event = resp_item_event ("response.function_call_arguments.done", index, id);
  json_object_set_string_member (event, "arguments", call->arguments);
  resp_add_event (rs, event);
}

void
ow_ms_build_openai_responses (OwMsReply *reply)
{
  const OwMsTurn *turn = reply->turn;
  RespStream rs = { reply, NULL, g_get_real_time () / G_USEC_PER_SEC, 0, FALSE, NULL };
  gboolean incomplete = turn->finish == OW_MS_FINISH_LENGTH;
  guint index = 0;

  add_request_id (reply);
  if (build_http_error (reply, "input"))
    return;

  rs.id = ow_ms_reply_make_id (reply, "resp_", 48, TRUE);
  rs.encrypted = request_includes (reply, "include", "reasoning.encrypted_content");
  rs.output = json_array_new ();
  if (reply->stream)
    {
      reply->content_type = "text/event-stream; charset=utf-8";
      resp_add_response_event (&rs, "response.created", "in_progress");
      resp_add_response_event (&rs, "response.in_progress", "in_progress");
    }

  /* Output items in the order the service produces them: reasoning, the
   * message, then the calls. Each is streamed, then recorded whole. */
  if (turn->reasoning != NULL)
    {
      g_autofree char *id = ow_ms_reply_make_id (reply, "rs_", 48, TRUE);
      JsonObject *item = reasoning_item (&rs, id, TRUE);

      if (reply->stream)
        {
          resp_stream_reasoning (&rs, index, id);
          resp_add_item_event (&rs, "response.output_item.done", index, json_object_ref (item));
        }
      json_array_add_object_element (rs.output, item);
      index++;
    }
  if (turn->text != NULL || turn->tool_calls->len == 0)
    {
      g_autofree char *id = ow_ms_reply_make_id (reply, "msg_", 48, TRUE);
      const char *text = turn->text != NULL ? turn->text : "";
      JsonObject *item = message_item (id, text, TRUE);

      if (reply->stream)
        {
          resp_stream_message (&rs, index, id, text);
          resp_add_item_event (&rs, "response.output_item.done", index, json_object_ref (item));
        }
      json_array_add_object_element (rs.output, item);
      index++;
    }
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      const OwMsToolCall *call = turn->tool_calls->pdata[i];
      g_autofree char *id = ow_ms_reply_make_id (reply, "fc_", 48, TRUE);
      g_autofree char *call_id = call->id != NULL ? g_strdup (call->id)
                                 : ow_ms_reply_make_id (reply, "call_", 24, FALSE);
      JsonObject *item = function_call_item (id, call_id, call, TRUE);

      if (reply->stream)
        {
          resp_stream_call (&rs, index, id, call_id, call);
          resp_add_item_event (&rs, "response.output_item.done", index, json_object_ref (item));
        }
      json_array_add_object_element (rs.output, item);
      index++;
    }

  if (!reply->stream)
    {
      g_autoptr(JsonObject) body = resp_object (&rs, incomplete ? "incomplete" : "completed", NULL);
      ow_ms_reply_set_json (reply, SOUP_STATUS_OK, body);
    }
  else if (turn->error != NULL)
    {
      /* Mid-stream failure: an error event, then response.failed in place
       * of the terminal event. */
      g_autoptr(JsonObject) wrapper = NULL;
      JsonObject *event = resp_event_new ("error");
      JsonObject *inner;
      JsonObject *failure = json_object_new ();
      guint status;

      wrapper = ow_ms_openai_error_object (reply, "input", &status);
      inner = json_object_get_object_member (wrapper, "error");
      json_object_set_member (event, "code", json_object_dup_member (inner, "code"));
      if (json_object_get_null_member (inner, "code"))
        json_object_set_string_member (event, "code", json_object_get_string_member (inner, "type"));
      json_object_set_string_member (event, "message", json_object_get_string_member (inner, "message"));
      json_object_set_null_member (event, "param");
      json_object_set_member (failure, "code", json_object_dup_member (event, "code"));
      json_object_set_string_member (failure, "message", json_object_get_string_member (inner, "message"));
      resp_add_event (&rs, event);

      event = resp_event_new ("response.failed");
      json_object_set_object_member (event, "response", resp_object (&rs, "failed", failure));
      resp_add_event (&rs, event);
    }
  else
    resp_add_response_event (&rs, incomplete ? "response.incomplete" : "response.completed",
                             incomplete ? "incomplete" : "completed");

  json_array_unref (rs.output);
  g_free (rs.id);
}
