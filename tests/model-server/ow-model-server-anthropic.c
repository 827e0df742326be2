/* ow-model-server-anthropic.c: the Anthropic Messages API.
 *
 * A stream is a sequence of named SSE events: message_start (with the input
 * and cache token counts), a ping, then per content block a
 * content_block_start, its deltas (thinking_delta and a closing
 * signature_delta, text_delta, or input_json_delta pieces that begin with an
 * empty one, as the service sends them) and content_block_stop; then
 * message_delta with the stop_reason and the cumulative output_tokens, and
 * message_stop. A failure mid-stream is an "error" event in place of
 * message_delta. Errors are {"type":"error","error":{type,message},
 * "request_id"}; every answer carries a request-id header.
 *
 * Usage: input_tokens excludes cache reads and writes, which are reported
 * beside it; output_tokens includes thinking.
 */
#define G_LOG_DOMAIN "ow-model-server"

#include "ow-model-server-private.h"

typedef struct {
  OwMsReply *reply;
  guint      index;     /* of the next content block */
} Blocks;

static JsonObject *
error_body (OwMsReply  *reply,
            const char *request_id,
            guint      *status_out)
{
  const OwMsError *e = reply->turn->error;
  g_autofree char *usual = NULL;
  const char *type = "invalid_request_error";
  guint status = 400;
  JsonObject *outer = json_object_new ();
  JsonObject *inner = json_object_new ();

  switch (e->kind)
    {
    case OW_MS_ERROR_RATE_LIMIT:
      status = 429;
      type = "rate_limit_error";
      usual = g_strdup ("This request would exceed the rate limit for your organization of 50 "
                        "requests per minute. For details, refer to: "
                        "https://docs.claude.com/en/api/rate-limits. You can see the response "
                        "headers for current usage. Please try again later.");
      break;
    case OW_MS_ERROR_QUOTA:
      /* The service reports an empty balance as a 400, not a 429. */
      usual = g_strdup ("Your credit balance is too low to access the Anthropic API. Please go "
                        "to Plans & Billing to upgrade or purchase credits.");
      break;
    case OW_MS_ERROR_OVERLOADED:
      status = 529;
      type = "overloaded_error";
      usual = g_strdup ("Overloaded");
      break;
    case OW_MS_ERROR_SERVER:
      status = 500;
      type = "api_error";
      usual = g_strdup ("Internal server error");
      break;
    case OW_MS_ERROR_BAD_KEY:
      status = 401;
      type = "authentication_error";
      usual = g_strdup ("invalid x-api-key");
      break;
    case OW_MS_ERROR_UNKNOWN_MODEL:
      status = 404;
      type = "not_found_error";
      usual = g_strdup_printf ("model: %s", reply->model);
      break;
    case OW_MS_ERROR_CONTEXT_OVERFLOW:
      usual = g_strdup ("prompt is too long: 208163 tokens > 200000 maximum");
      break;
    case OW_MS_ERROR_BAD_REQUEST:
      usual = g_strdup ("messages: roles must alternate between \"user\" and \"assistant\", but "
                        "found multiple \"user\" roles in a row");
      break;
    case OW_MS_ERROR_PERMISSION:
      status = 403;
      type = "permission_error";
      usual = g_strdup ("Your API key does not have permission to use the specified resource.");
      break;
    case OW_MS_N_ERROR_KINDS:
    default:
      g_assert_not_reached ();
    }

  json_object_set_string_member (outer, "type", "error");
  json_object_set_string_member (inner, "type", type);
  json_object_set_string_member (inner, "message", ow_ms_error_message (e, usual));
  json_object_set_object_member (outer, "error", inner);
  if (request_id != NULL)
    json_object_set_string_member (outer, "request_id", request_id);
  *status_out = ow_ms_error_status (e, status);
  return outer;
}

static JsonObject *
usage_object (const OwMsUsage *usage,
              gint64           output)
{
  JsonObject *object = json_object_new ();
  JsonObject *creation = json_object_new ();

  json_object_set_int_member (object, "input_tokens", usage->input);
  json_object_set_int_member (object, "cache_creation_input_tokens", usage->cache_write);
  json_object_set_int_member (object, "cache_read_input_tokens", usage->cache_read);
  json_object_set_int_member (creation, "ephemeral_5m_input_tokens", usage->cache_write);
  json_object_set_int_member (creation, "ephemeral_1h_input_tokens", 0);
  json_object_set_object_member (object, "cache_creation", creation);
  json_object_set_int_member (object, "output_tokens", output);
  json_object_set_string_member (object, "service_tier", "standard");
  return object;
}

static const char *
stop_reason (OwMsFinish finish)
{
  switch (finish)
    {
    case OW_MS_FINISH_TOOL_CALLS:
      return "tool_use";
    case OW_MS_FINISH_LENGTH:
      return "max_tokens";
    case OW_MS_FINISH_STOP:
    default:
      return "end_turn";
    }
}

/* The tool input as a value: the scripted object, or for "arguments_raw"
 * the text as a string (there is no argument text in a whole message). */
static JsonNode *
tool_input (const OwMsToolCall *call)
{
  if (call->args != NULL)
    return json_node_copy (call->args);
  return json_node_init_string (json_node_alloc (), call->arguments);
}

static char *
tool_id (OwMsReply          *reply,
         const OwMsToolCall *call)
{
  return call->id != NULL ? g_strdup (call->id) : ow_ms_reply_make_id (reply, "toolu_01", 22, FALSE);
}

/* Content blocks, whole in a message or as the placeholders that
 * content_block_start carries (empty strings, input {}). */
static JsonObject *
thinking_block (const char *thinking,
                const char *signature)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "thinking");
  json_object_set_string_member (block, "thinking", thinking);
  json_object_set_string_member (block, "signature", signature);
  return block;
}

static JsonObject *
text_block (const char *text)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  return block;
}

static JsonObject *
tool_use_block (const char *id,
                const char *name,
                JsonNode   *input)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "tool_use");
  json_object_set_string_member (block, "id", id);
  json_object_set_string_member (block, "name", name);
  json_object_set_member (block, "input", input);
  return block;
}

/* An event's data object, "type" first as the service writes it. */
static JsonObject *
event_new (const char *type)
{
  JsonObject *event = json_object_new ();

  json_object_set_string_member (event, "type", type);
  return event;
}

/* Sends and takes @event. */
static void
add_event (OwMsReply  *reply,
           JsonObject *event)
{
  ow_ms_reply_add_sse (reply, json_object_get_string_member (event, "type"), event);
  json_object_unref (event);
}

static void
start_block (Blocks     *blocks,
             JsonObject *placeholder)
{
  JsonObject *event = event_new ("content_block_start");

  json_object_set_int_member (event, "index", blocks->index);
  json_object_set_object_member (event, "content_block", placeholder);
  add_event (blocks->reply, event);
}

/* A content_block_delta whose delta is {type: @type, @field: @value}. */
static void
add_delta (Blocks     *blocks,
           const char *type,
           const char *field,
           const char *value)
{
  JsonObject *event = event_new ("content_block_delta");
  JsonObject *delta = json_object_new ();

  json_object_set_int_member (event, "index", blocks->index);
  json_object_set_string_member (delta, "type", type);
  json_object_set_string_member (delta, field, value);
  json_object_set_object_member (event, "delta", delta);
  add_event (blocks->reply, event);
}

static void
stop_block (Blocks *blocks)
{
  JsonObject *event = event_new ("content_block_stop");

  json_object_set_int_member (event, "index", blocks->index++);
  add_event (blocks->reply, event);
}

static void
build_stream (OwMsReply  *reply,
              const char *id,
              const char *signature)
{
  const OwMsTurn *turn = reply->turn;
  Blocks blocks = { reply, 0 };
  JsonObject *event;
  JsonObject *message;
  JsonObject *delta;
  JsonObject *usage;

  reply->content_type = "text/event-stream; charset=utf-8";

  message = json_object_new ();
  json_object_set_string_member (message, "id", id);
  json_object_set_string_member (message, "type", "message");
  json_object_set_string_member (message, "role", "assistant");
  json_object_set_string_member (message, "model", reply->model);
  json_object_set_array_member (message, "content", json_array_new ());
  json_object_set_null_member (message, "stop_reason");
  json_object_set_null_member (message, "stop_sequence");
  json_object_set_object_member (message, "usage", usage_object (&turn->usage, 1));
  event = event_new ("message_start");
  json_object_set_object_member (event, "message", message);
  add_event (reply, event);
  add_event (reply, event_new ("ping"));

  if (turn->reasoning != NULL)
    {
      g_autoptr(GPtrArray) pieces = ow_ms_split_text (turn->reasoning, turn->text_chunks);

      start_block (&blocks, thinking_block ("", ""));
      for (guint i = 0; i < pieces->len; i++)
        add_delta (&blocks, "thinking_delta", "thinking", pieces->pdata[i]);
      add_delta (&blocks, "signature_delta", "signature", signature);
      stop_block (&blocks);
    }
  if (turn->text != NULL || turn->tool_calls->len == 0)
    {
      g_autoptr(GPtrArray) pieces = ow_ms_split_text (turn->text, turn->text_chunks);

      start_block (&blocks, text_block (""));
      for (guint i = 0; i < pieces->len; i++)
        add_delta (&blocks, "text_delta", "text", pieces->pdata[i]);
      stop_block (&blocks);
    }
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      const OwMsToolCall *call = turn->tool_calls->pdata[i];
      g_autoptr(GPtrArray) pieces = ow_ms_split_text (call->arguments, 0);
      g_autofree char *tid = tool_id (reply, call);

      start_block (&blocks, tool_use_block (tid, call->name,
                                            json_node_init_object (json_node_alloc (),
                                                                   json_object_new ())));
      add_delta (&blocks, "input_json_delta", "partial_json", "");
      for (guint p = 0; p < pieces->len; p++)
        add_delta (&blocks, "input_json_delta", "partial_json", pieces->pdata[p]);
      stop_block (&blocks);
    }

  if (turn->error != NULL)
    {
      guint status;

      /* The stream error shape has no request_id. */
      event = error_body (reply, NULL, &status);
      ow_ms_reply_add_sse (reply, "error", event);
      json_object_unref (event);
      return;
    }

  event = event_new ("message_delta");
  delta = json_object_new ();
  json_object_set_string_member (delta, "stop_reason", stop_reason (turn->finish));
  json_object_set_null_member (delta, "stop_sequence");
  json_object_set_object_member (event, "delta", delta);
  usage = json_object_new ();
  json_object_set_int_member (usage, "output_tokens", turn->usage.output);
  json_object_set_object_member (event, "usage", usage);
  add_event (reply, event);
  add_event (reply, event_new ("message_stop"));
}

static void
build_whole (OwMsReply  *reply,
             const char *id,
             const char *signature)
{
  const OwMsTurn *turn = reply->turn;
  g_autoptr(JsonObject) body = json_object_new ();
  JsonArray *content = json_array_new ();

  json_object_set_string_member (body, "id", id);
  json_object_set_string_member (body, "type", "message");
  json_object_set_string_member (body, "role", "assistant");
  json_object_set_string_member (body, "model", reply->model);
  if (turn->reasoning != NULL)
    json_array_add_object_element (content, thinking_block (turn->reasoning, signature));
  if (turn->text != NULL || turn->tool_calls->len == 0)
    json_array_add_object_element (content, text_block (turn->text != NULL ? turn->text : ""));
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      const OwMsToolCall *call = turn->tool_calls->pdata[i];
      g_autofree char *tid = tool_id (reply, call);

      json_array_add_object_element (content, tool_use_block (tid, call->name, tool_input (call)));
    }
  json_object_set_array_member (body, "content", content);
  json_object_set_string_member (body, "stop_reason", stop_reason (turn->finish));
  json_object_set_null_member (body, "stop_sequence");
  json_object_set_object_member (body, "usage", usage_object (&turn->usage, turn->usage.output));
  ow_ms_reply_set_json (reply, SOUP_STATUS_OK, body);
}

void
ow_ms_build_anthropic (OwMsReply *reply)
{
  const OwMsTurn *turn = reply->turn;
  g_autofree char *request_id = ow_ms_reply_make_id (reply, "req_011C", 20, FALSE);
  g_autofree char *id = NULL;
  g_autofree char *signature = NULL;

  ow_ms_reply_add_header (reply, "request-id", request_id);
  if (turn->error != NULL && !(turn->error->in_stream && reply->stream))
    {
      g_autoptr(JsonObject) body = NULL;
      guint status;

      body = error_body (reply, request_id, &status);
      ow_ms_reply_set_json (reply, status, body);
      ow_ms_reply_add_retry_after (reply);
      if (status == 529 || status >= 500 || status == 429)
        ow_ms_reply_add_header (reply, "x-should-retry", "true");
      return;
    }

  id = ow_ms_reply_make_id (reply, "msg_01", 22, FALSE);
  signature = ow_ms_reply_make_id (reply, "EqQBCkgIBxABGAIqQ", 64, FALSE);
  if (reply->stream)
    build_stream (reply, id, signature);
  else
    build_whole (reply, id, signature);
}
