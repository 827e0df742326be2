/* test-live.c: every wire style through the real HTTP client against the
 * scripted model server on 127.0.0.1.
 *
 * For each of the five styles, streaming and not: text and reasoning
 * deltas in order, tool calls (one with mangled arguments), usage, every
 * error class with its retry delay and cause line, in-stream errors, a
 * connection cut mid-stream, an empty reply, and cancellation. Plus the
 * parameter-fix resend, a refused connection and redaction of the key.
 *
 * Nothing asserts on time. Cancellation is proved by ordering: the call is
 * cancelled from the first text delta of a paced stream; it must then
 * complete with G_IO_ERROR_CANCELLED, report no further delta, and leave no
 * transfer running.
 */
#include "provider-test-util.h"

#include <string.h>

#include "ow-error.h"
#include "ow-model-server.h"
#include "ow-redact.h"
#include "ow-test-utils.h"

#define TEST_KEY "test-key-abcdefgh123"

typedef struct {
  OwWireStyle style;   /* the wire under test */
  const char *name;    /* its test-path component */
  const char *model;   /* the model the requests name */
} Style;

static const Style styles[] = {
  { OW_WIRE_OPENAI_CHAT, "openai-chat", "gpt-test" },
  { OW_WIRE_OPENAI_RESPONSES, "openai-responses", "gpt-test" },
  { OW_WIRE_ANTHROPIC, "anthropic", "claude-sonnet-4-6" },
  { OW_WIRE_GEMINI, "gemini", "gemini-3.6-flash" },
  { OW_WIRE_OLLAMA, "ollama", "qwen3:8b" },
};

typedef struct {
  const Style   *style;             /* the wire under test */
  OwModelServer *server;            /* the scripted server on 127.0.0.1 */
  OwHttpClient  *http;              /* the production client */
  OwProvider    *provider;          /* pointed at @server */
  TpDeltas       deltas;            /* what the call reported as it streamed */

  /* the outcome of run() */
  gboolean       done;              /* the completion callback ran */
  OwTurn        *turn;              /* the reply, or NULL */
  OwTurn        *partial;           /* what arrived before a failure */
  OwCallInfo    *info;              /* the call's facts */
  GError        *error;             /* the failure, or NULL */

  /* cancellation */
  GCancellable  *cancellable;       /* passed to the call, or NULL */
  gboolean       cancel_on_text;    /* cancel from the first text delta */
  guint          deltas_at_cancel;  /* how many deltas had come when it was cancelled */
  guint          active_at_finish;  /* transfers still running when the call completed */
} Live;

static void
live_init (Live        *live,
           const Style *style,
           const char  *script_json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) script = ow_json_parse (script_json, -1, &error);
  g_autofree char *url = NULL;
  g_autofree char *base = NULL;
  OwProviderConfig config = { 0 };

  g_assert_no_error (error);
  memset (live, 0, sizeof *live);
  live->style = style;
  live->server = ow_model_server_new (script, &error);
  g_assert_no_error (error);
  url = ow_model_server_get_url (live->server);
  switch (style->style)
    {
    case OW_WIRE_OPENAI_CHAT:
    case OW_WIRE_OPENAI_RESPONSES:
      base = g_strconcat (url, "/v1", NULL);
      break;
    case OW_WIRE_GEMINI:
      base = g_strconcat (url, "/v1beta", NULL);
      break;
    case OW_WIRE_ANTHROPIC:
    case OW_WIRE_OLLAMA:
    default:
      base = g_strdup (url);
      break;
    }
  live->http = ow_http_client_new ();
  config.id = "live";
  config.title = "Live Test";
  config.base_url = base;
  config.api_key = TEST_KEY;
  config.key_env = "LIVE_API_KEY";
  live->provider = ow_provider_new (style->style, &config, live->http);
  tp_deltas_init (&live->deltas);
}

static void
live_clear (Live *live)
{
  g_clear_pointer (&live->turn, ow_turn_free);
  g_clear_pointer (&live->partial, ow_turn_free);
  g_clear_pointer (&live->info, ow_call_info_free);
  g_clear_error (&live->error);
  g_clear_object (&live->cancellable);
  g_clear_object (&live->provider);
  g_clear_object (&live->http);
  g_clear_object (&live->server);
  tp_deltas_clear (&live->deltas);
}

static void
on_live_delta_cb (OwDeltaKind  kind,
                  const char  *text,
                  gsize        len,
                  gpointer     user_data)
{
  Live *live = user_data;

  /* Nothing may be reported after the caller cancelled. */
  g_assert_false (live->cancellable != NULL && g_cancellable_is_cancelled (live->cancellable));
  tp_on_delta (kind, text, len, &live->deltas);
  if (live->cancel_on_text && kind == OW_DELTA_TEXT)
    {
      live->deltas_at_cancel = live->deltas.n;
      g_cancellable_cancel (live->cancellable);
    }
}

static void
on_complete_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Live *live = user_data;

  g_assert_false (live->done);
  live->turn = ow_provider_complete_finish (OW_PROVIDER (source), result, &live->info,
                                            &live->partial, &live->error);
  live->active_at_finish = ow_http_client_get_n_active (live->http);
  live->done = TRUE;
}

static void
run (Live           *live,
     OwModelRequest *req)
{
  g_clear_pointer (&live->turn, ow_turn_free);
  g_clear_pointer (&live->partial, ow_turn_free);
  g_clear_pointer (&live->info, ow_call_info_free);
  g_clear_error (&live->error);
  live->done = FALSE;

  ow_provider_complete_async (live->provider, req, on_live_delta_cb, live, live->cancellable,
                              on_complete_cb, live);
  ow_test_wait_flag (&live->done);
  /* Drain what else is ready: a second completion would be a bug. */
  ow_test_drain ();
  g_assert_nonnull (live->info);
}

static JsonObject *
last_request (Live *live)
{
  JsonArray *requests = ow_model_server_get_requests (live->server);

  g_assert_cmpuint (json_array_get_length (requests), >, 0);
  return json_array_get_object_element (requests, json_array_get_length (requests) - 1);
}

static JsonArray *
one_user_message (void)
{
  g_autoptr(JsonNode) node = ow_json_parse ("[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                                            "{\"role\":\"user\",\"content\":\"Say hello\"}]", -1, NULL);
  return json_array_ref (json_node_get_array (node));
}

/* ---- Text, reasoning and usage ------------------------------------------ */

static void
check_text_reply (const Style *style,
                  gboolean     stream)
{
  static const char *const script =
    "{\"turns\":[{\"text\":\"Hello there, wörld — this is a longer answer ✓\","
    "\"reasoning\":\"Thinking it over carefully\","
    "\"usage\":{\"input\":100,\"output\":20,\"cache_read\":50,\"reasoning\":5}}]}";
  g_autoptr(JsonArray) messages = one_user_message ();
  g_autofree char *peer_prefix = NULL;
  OwModelRequest req;
  JsonObject *recorded;
  Live live;

  live_init (&live, style, script);
  tp_request_init (&req, style->model, messages, NULL);
  req.stream = stream;
  req.thinking = 1;
  run (&live, &req);

  g_assert_no_error (live.error);
  g_assert_nonnull (live.turn);
  g_assert_true (live.turn->complete);
  g_assert_cmpstr (live.turn->text->str, ==, "Hello there, wörld — this is a longer answer ✓");
  g_assert_cmpstr (live.turn->reasoning->str, ==, "Thinking it over carefully");
  g_assert_cmpstr (live.turn->finish_reason, ==, "stop");
  if (stream)
    {
      /* Several deltas, reasoning before text, adding up to the turn. */
      g_assert_cmpuint (live.deltas.n, >, 2);
      g_assert_cmpstr (live.deltas.order->str, ==, "RT");
      g_assert_cmpstr (live.deltas.text->str, ==, live.turn->text->str);
      g_assert_cmpstr (live.deltas.reasoning->str, ==, live.turn->reasoning->str);
    }
  else
    g_assert_cmpuint (live.deltas.n, ==, 0);

  g_assert_true (live.turn->has_usage);
  g_assert_cmpint (live.turn->usage.output, ==, 20);
  if (style->style == OW_WIRE_OLLAMA)
    {
      /* Ollama reports no cache split. */
      g_assert_cmpint (live.turn->usage.input, ==, 150);
      g_assert_cmpint (live.turn->usage.cache_read, ==, 0);
    }
  else
    {
      g_assert_cmpint (live.turn->usage.input, ==, 100);
      g_assert_cmpint (live.turn->usage.cache_read, ==, 50);
    }
  if (style->style != OW_WIRE_ANTHROPIC && style->style != OW_WIRE_OLLAMA)
    g_assert_cmpint (live.turn->usage.reasoning, ==, 5);

  /* The call's facts. */
  g_assert_cmpuint (live.info->status, ==, 200);
  peer_prefix = g_strdup_printf ("127.0.0.1:%u", ow_model_server_get_port (live.server));
  g_assert_cmpstr (live.info->host, ==, peer_prefix);
  g_assert_nonnull (live.info->url);
  g_assert_true (g_str_has_prefix (live.info->url, "http://127.0.0.1:"));
  g_assert_cmpint (live.info->retry_after_ms, ==, -1);
  g_assert_null (live.info->cause);
  g_assert_cmpfloat (live.info->duration, >=, live.info->ttfb);
  if (style->style == OW_WIRE_OPENAI_CHAT || style->style == OW_WIRE_OPENAI_RESPONSES
      || style->style == OW_WIRE_ANTHROPIC)
    g_assert_nonnull (live.info->request_id);

  /* What the server saw: the key in the style's header, the model. */
  recorded = last_request (&live);
  {
    JsonObject *headers = ow_json_get_object (recorded, "headers");
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
    g_autofree char *body = NULL;

    json_node_set_object (node, recorded);
    body = tp_to_string (tp_path (node, "$.body"));
    switch (style->style)
      {
      case OW_WIRE_ANTHROPIC:
        g_assert_cmpstr (ow_json_get_string (headers, "x-api-key"), ==, TEST_KEY);
        break;
      case OW_WIRE_GEMINI:
        g_assert_cmpstr (ow_json_get_string (headers, "x-goog-api-key"), ==, TEST_KEY);
        g_assert_null (strstr (ow_json_get_string (recorded, "query") != NULL
                               ? ow_json_get_string (recorded, "query") : "", TEST_KEY));
        break;
      case OW_WIRE_OPENAI_CHAT:
      case OW_WIRE_OPENAI_RESPONSES:
      case OW_WIRE_OLLAMA:
      default:
        g_assert_cmpstr (ow_json_get_string (headers, "authorization"), ==, "Bearer " TEST_KEY);
        break;
      }
    if (style->style != OW_WIRE_GEMINI)
      g_assert_nonnull (strstr (body, style->model));
    g_assert_nonnull (strstr (body, "Say hello"));
  }
  g_assert_cmpuint (ow_model_server_get_remaining (live.server), ==, 0);
  live_clear (&live);
}

static void
test_text_stream (gconstpointer data)
{
  check_text_reply (data, TRUE);
}

static void
test_text_whole (gconstpointer data)
{
  check_text_reply (data, FALSE);
}

/* ---- Tool calls -------------------------------------------------------- */

static void
check_tool_calls (const Style *style,
                  gboolean     stream)
{
  static const char *const script =
    "{\"turns\":[{\"text\":\"Checking.\",\"tool_calls\":["
    "{\"id\":\"call_1\",\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}},"
    "{\"id\":\"call_2\",\"name\":\"run_shell\",\"arguments_raw\":\"{\\\"command\\\": \\\"ls\"}]}]}";
  g_autoptr(JsonArray) messages = one_user_message ();
  g_autoptr(JsonArray) tools = tp_tools ();
  OwModelRequest req;
  OwToolCall *first;
  OwToolCall *second;
  Live live;

  live_init (&live, style, script);
  tp_request_init (&req, style->model, messages, tools);
  req.stream = stream;
  run (&live, &req);

  g_assert_no_error (live.error);
  g_assert_cmpstr (live.turn->text->str, ==, "Checking.");
  g_assert_cmpstr (live.turn->finish_reason, ==, "tool_calls");
  g_assert_cmpuint (live.turn->tool_calls->len, ==, 2);
  first = g_ptr_array_index (live.turn->tool_calls, 0);
  second = g_ptr_array_index (live.turn->tool_calls, 1);
  g_assert_cmpstr (first->name, ==, "read_file");
  g_assert_cmpstr (second->name, ==, "run_shell");
  g_assert_nonnull (first->id);
  g_assert_cmpstr (first->id, !=, second->id);
  {
    /* Parsed, since servers re-serialize the object their own way. */
    g_autoptr(JsonNode) args = ow_json_parse (first->arguments, -1, NULL);
    g_assert_nonnull (args);
    tp_assert_path_string (args, "$.path", "a.txt");
  }
  /* Mangled arguments reach the engine as the text that was sent. */
  g_assert_cmpstr (second->arguments, ==, "{\"command\": \"ls");
  live_clear (&live);
}

static void
test_tools_stream (gconstpointer data)
{
  check_tool_calls (data, TRUE);
}

static void
test_tools_whole (gconstpointer data)
{
  check_tool_calls (data, FALSE);
}

/* ---- Errors ------------------------------------------------------------ */

static void
test_error_classes (gconstpointer data)
{
  const Style *style = data;
  static const struct {
    const char *kind;
    int         code;
  } kinds[] = {
    { "rate_limit", OW_PROVIDER_ERROR_RATE_LIMITED },
    { "quota", OW_PROVIDER_ERROR_QUOTA },
    { "overloaded", OW_PROVIDER_ERROR_OVERLOADED },
    { "server", OW_PROVIDER_ERROR_SERVER },
    { "bad_key", OW_PROVIDER_ERROR_AUTH },
    { "unknown_model", OW_PROVIDER_ERROR_MODEL_NOT_FOUND },
    { "context_overflow", OW_PROVIDER_ERROR_CONTEXT_OVERFLOW },
    { "bad_request", OW_PROVIDER_ERROR_BAD_REQUEST },
    /* OpenAI's 403 is its country/region refusal, fixed up below. */
    { "permission", OW_PROVIDER_ERROR_AUTH },
  };
  gboolean openai = style->style == OW_WIRE_OPENAI_CHAT || style->style == OW_WIRE_OPENAI_RESPONSES;
  g_autoptr(JsonArray) messages = one_user_message ();
  g_autoptr(GString) script = g_string_new ("{\"turns\":[");
  OwModelRequest req;
  Live live;

  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    g_string_append_printf (script, "%s{\"error\":{\"kind\":\"%s\"}}", i > 0 ? "," : "",
                            kinds[i].kind);
  /* A rate limit that says when to come back. */
  g_string_append (script, ",{\"error\":{\"kind\":\"rate_limit\",\"retry_after\":7}}]}");

  live_init (&live, style, script->str);
  tp_request_init (&req, style->model, messages, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      int expected = kinds[i].code;

      if (openai && g_str_equal (kinds[i].kind, "permission"))
        expected = OW_PROVIDER_ERROR_REGION;
      g_test_message ("%s: %s", style->name, kinds[i].kind);
      req.stream = (i % 2) == 0;
      run (&live, &req);
      g_assert_null (live.turn);
      if (live.error->domain != OW_PROVIDER_ERROR || live.error->code != expected)
        g_error ("%s %s: expected %d, got %s %d: %s", style->name, kinds[i].kind, expected,
                 g_quark_to_string (live.error->domain), live.error->code, live.error->message);
      g_assert_cmpuint (live.info->status, >=, 400);
      g_assert_nonnull (live.info->cause);
      {
        g_autofree char *prefix = g_strdup_printf ("HTTP %u from 127.0.0.1:%u", live.info->status,
                                                   ow_model_server_get_port (live.server));
        g_assert_true (g_str_has_prefix (live.info->cause, prefix));
      }
      g_assert_null (strchr (live.info->cause, '\n'));
      if (expected == OW_PROVIDER_ERROR_AUTH)
        g_assert_nonnull (strstr (live.error->message, "LIVE_API_KEY"));
      if (expected == OW_PROVIDER_ERROR_REGION)
        g_assert_null (strstr (live.error->message, "LIVE_API_KEY"));
      g_assert_cmpuint (live.deltas.n, ==, 0);
    }

  run (&live, &req);
  g_assert_error (live.error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_RATE_LIMITED);
  g_assert_true (ow_provider_error_is_transient (live.error));
  g_assert_cmpint (live.info->retry_after_ms, ==, 7000);
  g_assert_cmpuint (ow_model_server_get_remaining (live.server), ==, 0);
  live_clear (&live);
}

static void
test_in_stream_error (gconstpointer data)
{
  const Style *style = data;
  static const char *const script =
    "{\"turns\":[{\"text\":\"Partial answer before the failure\",\"text_chunks\":3,"
    "\"error\":{\"kind\":\"overloaded\",\"in_stream\":true}}]}";
  g_autoptr(JsonArray) messages = one_user_message ();
  OwModelRequest req;
  Live live;

  live_init (&live, style, script);
  tp_request_init (&req, style->model, messages, NULL);
  run (&live, &req);

  g_assert_null (live.turn);
  g_assert_error (live.error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_OVERLOADED);
  g_assert_cmpuint (live.info->status, ==, 200);
  g_assert_nonnull (strstr (live.info->cause, "then a stream error"));
  g_assert_nonnull (live.partial);
  /* Gemini's error takes the place of the last chunk, text and all. */
  g_assert_cmpuint (live.partial->text->len, >, 0);
  g_assert_true (g_str_has_prefix ("Partial answer before the failure", live.partial->text->str));
  if (style->style != OW_WIRE_GEMINI)
    g_assert_cmpstr (live.partial->text->str, ==, "Partial answer before the failure");
  g_assert_cmpstr (live.deltas.text->str, ==, live.partial->text->str);
  live_clear (&live);
}

static void
test_cut_off (gconstpointer data)
{
  const Style *style = data;
  static const char *const script =
    "{\"turns\":[{\"text\":\"One two three four five six seven eight nine ten\",\"text_chunks\":10,"
    "\"drop_after\":8}]}";
  g_autoptr(JsonArray) messages = one_user_message ();
  OwModelRequest req;
  Live live;

  live_init (&live, style, script);
  tp_request_init (&req, style->model, messages, NULL);
  run (&live, &req);

  g_assert_null (live.turn);
  g_assert_error (live.error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CUT_OFF);
  g_assert_true (ow_provider_error_is_transient (live.error));
  g_assert_cmpuint (live.info->status, ==, 200);
  g_assert_nonnull (live.partial);
  g_assert_false (live.partial->complete);
  /* Some of the answer, never all of it; what was reported is what is kept. */
  g_assert_cmpuint (live.partial->text->len, >, 0);
  g_assert_true (g_str_has_prefix ("One two three four five six seven eight nine ten",
                                   live.partial->text->str));
  g_assert_cmpstr (live.partial->text->str, !=, "One two three four five six seven eight nine ten");
  g_assert_cmpstr (live.deltas.text->str, ==, live.partial->text->str);
  g_assert_nonnull (strstr (live.info->cause, "ended before its terminal event"));
  live_clear (&live);
}

static void
test_empty_reply (gconstpointer data)
{
  const Style *style = data;
  g_autoptr(JsonArray) messages = one_user_message ();
  OwModelRequest req;
  Live live;

  live_init (&live, style, "{\"turns\":[{\"text\":\"\"},{\"text\":\"\"}]}");
  tp_request_init (&req, style->model, messages, NULL);
  run (&live, &req);
  g_assert_error (live.error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_EMPTY_REPLY);
  g_assert_true (ow_provider_error_is_transient (live.error));
  g_assert_nonnull (live.info->cause);

  req.stream = FALSE;
  run (&live, &req);
  g_assert_error (live.error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_EMPTY_REPLY);
  live_clear (&live);
}

static void
test_cancel (gconstpointer data)
{
  const Style *style = data;
  static const char *const script =
    "{\"turns\":[{\"text\":\"alpha beta gamma delta epsilon zeta eta theta iota kappa\",\"text_chunks\":10,"
    "\"chunk_delay_ms\":30}]}";
  g_autoptr(JsonArray) messages = one_user_message ();
  OwModelRequest req;
  Live live;

  live_init (&live, style, script);
  live.cancellable = g_cancellable_new ();
  live.cancel_on_text = TRUE;
  tp_request_init (&req, style->model, messages, NULL);
  run (&live, &req);

  g_assert_null (live.turn);
  g_assert_error (live.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (ow_provider_error_is_transient (live.error));
  /* It stopped at the delta that cancelled it: nothing after, and the
   * transfer is gone, not drained. */
  g_assert_cmpuint (live.deltas.n, ==, live.deltas_at_cancel);
  g_assert_cmpuint (live.active_at_finish, ==, 0);
  g_assert_nonnull (live.partial);
  g_assert_cmpstr (live.partial->text->str, ==, live.deltas.text->str);
  g_assert_cmpstr (live.partial->text->str, !=,
                   "alpha beta gamma delta epsilon zeta eta theta iota kappa");
  live_clear (&live);
}

static void
test_stream_ignored (gconstpointer data)
{
  const Style *style = data;
  g_autoptr(JsonArray) messages = one_user_message ();
  OwModelRequest req;
  Live live;

  /* A server that ignores "stream" and sends the whole reply at once. */
  live_init (&live, style, "{\"turns\":[{\"text\":\"Whole anyway\",\"stream\":false}]}");
  tp_request_init (&req, style->model, messages, NULL);
  run (&live, &req);
  g_assert_no_error (live.error);
  g_assert_cmpstr (live.turn->text->str, ==, "Whole anyway");
  g_assert_true (live.turn->has_usage);
  live_clear (&live);
}

/* ---- Style-independent -------------------------------------------------- */

static void
test_param_fix_resend (void)
{
  static const char *const script =
    "{\"turns\":[{\"error\":{\"status\":400,\"message\":\"Unsupported parameter: 'max_tokens' is not supported with this "
    "model. Use 'max_completion_tokens' instead.\"}},{\"text\":\"Fixed.\"}]}";
  g_autoptr(JsonArray) messages = one_user_message ();
  OwModelRequest req;
  JsonArray *requests;
  Live live;

  live_init (&live, &styles[0], script);
  tp_request_init (&req, "gpt-test", messages, NULL);
  run (&live, &req);

  g_assert_no_error (live.error);
  g_assert_cmpstr (live.turn->text->str, ==, "Fixed.");
  requests = ow_model_server_get_requests (live.server);
  g_assert_cmpuint (json_array_get_length (requests), ==, 2);
  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
    json_node_set_array (node, requests);
    g_assert_cmpint (tp_path_int (node, "$[0].body.max_tokens"), ==, 32000);
    g_assert_false (tp_path_exists (node, "$[1].body.max_tokens"));
    g_assert_cmpint (tp_path_int (node, "$[1].body.max_completion_tokens"), ==, 32000);
  }
  live_clear (&live);
}

static void
test_connection_refused (void)
{
  g_autoptr(OwHttpClient) http = ow_http_client_new ();
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(JsonArray) messages = one_user_message ();
  OwProviderConfig config = { .id = "dead", .title = "Dead Server", .base_url = "http://127.0.0.1:1/v1" };
  OwModelRequest req;
  Live live = { 0 };

  /* Port 1 on loopback: nothing listens there. */
  provider = ow_provider_new (OW_WIRE_OPENAI_CHAT, &config, http);
  live.provider = g_object_ref (provider);
  live.http = g_object_ref (http);
  tp_deltas_init (&live.deltas);
  tp_request_init (&req, "m", messages, NULL);
  run (&live, &req);

  g_assert_error (live.error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CONNECTION);
  g_assert_true (ow_provider_error_is_transient (live.error));
  g_assert_nonnull (strstr (live.error->message, "Dead Server"));
  g_assert_cmpuint (live.info->status, ==, 0);
  g_assert_true (g_str_has_prefix (live.info->cause,
                                   "POST http://127.0.0.1:1/v1/chat/completions: "));
  g_assert_null (live.partial);
  live_clear (&live);
}

static void
test_cause_redacted (void)
{
  static const char *const script =
    "{\"turns\":[{\"error\":{\"kind\":\"bad_key\",\"message\":\"Incorrect API key provided: " TEST_KEY "\"}}]}";
  g_autoptr(JsonArray) messages = one_user_message ();
  OwModelRequest req;
  Live live;

  live_init (&live, &styles[0], script);
  tp_request_init (&req, "gpt-test", messages, NULL);
  run (&live, &req);

  g_assert_error (live.error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_AUTH);
  g_assert_null (strstr (live.error->message, TEST_KEY));
  g_assert_null (strstr (live.info->cause, TEST_KEY));
  g_assert_nonnull (strstr (live.info->cause,
                            "(invalid_api_key): Incorrect API key provided: [redacted]"));
  live_clear (&live);
}

int
main (int argc, char **argv)
{
  static const struct {
    const char *name;
    GTestDataFunc func;
  } per_style[] = {
    { "text-stream", test_text_stream },
    { "text-whole", test_text_whole },
    { "tools-stream", test_tools_stream },
    { "tools-whole", test_tools_whole },
    { "error-classes", test_error_classes },
    { "in-stream-error", test_in_stream_error },
    { "cut-off", test_cut_off },
    { "empty-reply", test_empty_reply },
    { "cancel", test_cancel },
    { "stream-ignored", test_stream_ignored },
  };

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  for (gsize s = 0; s < G_N_ELEMENTS (styles); s++)
    for (gsize t = 0; t < G_N_ELEMENTS (per_style); t++)
      {
        g_autofree char *path = g_strdup_printf ("/ow/providers/live/%s/%s", styles[s].name,
                                                 per_style[t].name);
        g_test_add_data_func (path, &styles[s], per_style[t].func);
      }
  g_test_add_func ("/ow/providers/live/param-fix-resend", test_param_fix_resend);
  g_test_add_func ("/ow/providers/live/connection-refused", test_connection_refused);
  g_test_add_func ("/ow/providers/live/cause-redacted", test_cause_redacted);

  return g_test_run ();
}
