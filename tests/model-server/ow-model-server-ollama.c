/* ow-model-server-ollama.c: Ollama's native /api/chat.
 *
 * Ollama streams NDJSON (application/x-ndjson), and does so unless the
 * request says "stream": false. Each line is {"model","created_at",
 * "message":{"role":"assistant","content",…},"done":false}: thinking pieces
 * in message.thinking, text pieces in message.content, and all tool calls
 * whole in one line with arguments as an object. The last line has
 * "done": true, a done_reason ("stop", also after tool calls, or "length")
 * and the counters: prompt_eval_count, eval_count and durations in
 * nanoseconds. A failure mid-stream is a line {"error":"…"}; an HTTP error
 * body is the same object.
 */
#define G_LOG_DOMAIN "ow-model-server"

#include "ow-model-server-private.h"

static JsonObject *
error_body (OwMsReply *reply,
            guint     *status_out)
{
  const OwMsError *e = reply->turn->error;
  g_autofree char *usual = NULL;
  guint status = 400;
  JsonObject *body = json_object_new ();

  switch (e->kind)
    {
    case OW_MS_ERROR_RATE_LIMIT:
      status = 429;
      usual = g_strdup ("too many requests, please slow down and try again later");
      break;
    case OW_MS_ERROR_QUOTA:
      status = 429;
      usual = g_strdup ("insufficient credits: you have reached your usage limit, upgrade your "
                        "plan to continue");
      break;
    case OW_MS_ERROR_OVERLOADED:
      status = 503;
      usual = g_strdup ("server busy, please try again.  maximum pending requests exceeded");
      break;
    case OW_MS_ERROR_SERVER:
      status = 500;
      usual = g_strdup ("llama runner process has terminated: exit status 2");
      break;
    case OW_MS_ERROR_BAD_KEY:
      status = 401;
      usual = g_strdup ("unauthorized");
      break;
    case OW_MS_ERROR_UNKNOWN_MODEL:
      status = 404;
      usual = g_strdup_printf ("model \"%s\" not found, try pulling it first", reply->model);
      break;
    case OW_MS_ERROR_CONTEXT_OVERFLOW:
      usual = g_strdup ("the input length exceeds the context length");
      break;
    case OW_MS_ERROR_BAD_REQUEST:
      usual = g_strdup ("invalid message format: messages must be an array");
      break;
    case OW_MS_ERROR_PERMISSION:
      status = 403;
      usual = g_strdup ("permission denied");
      break;
    case OW_MS_N_ERROR_KINDS:
    default:
      g_assert_not_reached ();
    }

  json_object_set_string_member (body, "error", ow_ms_error_message (e, usual));
  *status_out = ow_ms_error_status (e, status);
  return body;
}

/* A line's common part, message set to a fresh assistant message. */
static JsonObject *
line_new (OwMsReply   *reply,
          const char  *created_at,
          JsonObject **message_out)
{
  JsonObject *line = json_object_new ();
  JsonObject *message = json_object_new ();

  json_object_set_string_member (line, "model", reply->model);
  json_object_set_string_member (line, "created_at", created_at);
  json_object_set_string_member (message, "role", "assistant");
  json_object_set_string_member (message, "content", "");
  json_object_set_object_member (line, "message", message);
  *message_out = message;
  return line;
}

static JsonArray *
tool_calls (const OwMsTurn *turn)
{
  JsonArray *calls = json_array_new ();

  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      const OwMsToolCall *call = turn->tool_calls->pdata[i];
      JsonObject *object = json_object_new ();
      JsonObject *function = json_object_new ();

      /* Newer Ollama versions send an id; older ones none, so only a
       * scripted one goes out. */
      if (call->id != NULL)
        json_object_set_string_member (object, "id", call->id);
      json_object_set_int_member (function, "index", i);
      json_object_set_string_member (function, "name", call->name);
      if (call->args != NULL)
        json_object_set_member (function, "arguments", json_node_copy (call->args));
      else
        json_object_set_string_member (function, "arguments", call->arguments);
      json_object_set_object_member (object, "function", function);
      json_array_add_object_element (calls, object);
    }
  return calls;
}

/* done, done_reason and the counters of a finished reply. */
static void
set_done (JsonObject     *line,
          const OwMsTurn *turn)
{
  gint64 prompt = ow_ms_usage_prompt (&turn->usage);
  gint64 prompt_ns = 1000000 + prompt * 200000;
  gint64 eval_ns = turn->usage.output * 20000000;
  gint64 load_ns = 25000000;

  json_object_set_boolean_member (line, "done", TRUE);
  json_object_set_string_member (line, "done_reason",
                                 turn->finish == OW_MS_FINISH_LENGTH ? "length" : "stop");
  json_object_set_int_member (line, "total_duration", load_ns + prompt_ns + eval_ns + 1000000);
  json_object_set_int_member (line, "load_duration", load_ns);
  json_object_set_int_member (line, "prompt_eval_count", prompt);
  json_object_set_int_member (line, "prompt_eval_duration", prompt_ns);
  json_object_set_int_member (line, "eval_count", turn->usage.output);
  json_object_set_int_member (line, "eval_duration", eval_ns);
}

static void
add_line (OwMsReply  *reply,
          JsonObject *line)
{
  g_autofree char *json = ow_ms_json_to_string (line);

  ow_ms_reply_add_bytes (reply, g_strconcat (json, "\n", NULL));
  json_object_unref (line);
}

void
ow_ms_build_ollama (OwMsReply *reply)
{
  const OwMsTurn *turn = reply->turn;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *created_at = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S.%fZ");
  JsonObject *message;
  JsonObject *line;

  if (turn->error != NULL && !(turn->error->in_stream && reply->stream))
    {
      g_autoptr(JsonObject) body = NULL;
      guint status;

      body = error_body (reply, &status);
      ow_ms_reply_set_json (reply, status, body);
      reply->content_type = "application/json; charset=utf-8";
      ow_ms_reply_add_retry_after (reply);
      return;
    }

  if (!reply->stream)
    {
      g_autoptr(JsonObject) body = line_new (reply, created_at, &message);

      json_object_set_string_member (message, "content", turn->text != NULL ? turn->text : "");
      if (turn->reasoning != NULL)
        json_object_set_string_member (message, "thinking", turn->reasoning);
      if (turn->tool_calls->len > 0)
        json_object_set_array_member (message, "tool_calls", tool_calls (turn));
      set_done (body, turn);
      ow_ms_reply_set_json (reply, SOUP_STATUS_OK, body);
      reply->content_type = "application/json; charset=utf-8";
      return;
    }

  reply->content_type = "application/x-ndjson";
  {
    g_autoptr(GPtrArray) thinking = ow_ms_split_text (turn->reasoning, turn->text_chunks);
    g_autoptr(GPtrArray) text = ow_ms_split_text (turn->text, turn->text_chunks);

    for (guint i = 0; i < thinking->len; i++)
      {
        line = line_new (reply, created_at, &message);
        json_object_set_string_member (message, "thinking", thinking->pdata[i]);
        json_object_set_boolean_member (line, "done", FALSE);
        add_line (reply, line);
      }
    for (guint i = 0; i < text->len; i++)
      {
        line = line_new (reply, created_at, &message);
        json_object_set_string_member (message, "content", text->pdata[i]);
        json_object_set_boolean_member (line, "done", FALSE);
        add_line (reply, line);
      }
  }
  if (turn->tool_calls->len > 0)
    {
      line = line_new (reply, created_at, &message);
      json_object_set_array_member (message, "tool_calls", tool_calls (turn));
      json_object_set_boolean_member (line, "done", FALSE);
      add_line (reply, line);
    }

  if (turn->error != NULL)
    {
      guint status;

      add_line (reply, error_body (reply, &status));
      return;
    }
  line = line_new (reply, created_at, &message);
  set_done (line, turn);
  add_line (reply, line);
}
