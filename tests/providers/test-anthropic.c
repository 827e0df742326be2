/* test-anthropic.c: the Anthropic Messages style, without a socket.
 *
 * The request from the canonical history (system block, folding, thinking
 * replayed first, tool_use / tool_result, cache marks, max_tokens,
 * thinking modes per model), recorded streams in every split, in-stream
 * errors, refusals and whole replies.
 */
#include "provider-test-util.h"

#include <string.h>

#include "ow-error.h"

static char *
history_text (JsonArray *history)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

  json_node_set_array (node, history);
  return tp_to_string (node);
}

static void
test_request_body (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(JsonArray) tools = tp_tools ();
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_ANTHROPIC, "https://api.anthropic.com",
                                                    "sk-ant-test-key-123456",
                                                    "{\"anthropic_version\":\"2023-06-01\"}");
  g_autofree char *before = history_text (history);
  g_autofree char *after = NULL;
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  tp_request_init (&req, "claude-sonnet-4-6", history, tools);
  req.temperature = 0.7;
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);

  g_assert_cmpstr (ow_provider_call_get_url (call), ==, "https://api.anthropic.com/v1/messages");
  g_assert_cmpstr (ow_provider_call_get_header (call, "x-api-key"), ==, "sk-ant-test-key-123456");
  g_assert_cmpstr (ow_provider_call_get_header (call, "anthropic-version"), ==, "2023-06-01");
  g_assert_null (ow_provider_call_get_header (call, "Authorization"));
  g_assert_null (ow_provider_call_get_header (call, "anthropic-beta"));

  /* The system prompt is a cached block. */
  tp_assert_path_string (body, "$.system[0].type", "text");
  tp_assert_path_string (body, "$.system[0].text", "You are OpenWorker.");
  tp_assert_path_string (body, "$.system[0].cache_control.type", "ephemeral");

  /* user+user, assistant, tool+tool+user: three messages. */
  g_assert_cmpuint (tp_path_length (body, "$.messages"), ==, 3);
  tp_assert_path_string (body, "$.messages[0].role", "user");
  g_assert_cmpuint (tp_path_length (body, "$.messages[0].content"), ==, 4);
  tp_assert_path_string (body, "$.messages[0].content[0].text",
                         "Read notes.txt and list the folder.");
  tp_assert_path_string (body, "$.messages[0].content[1].text", "Here is the chart");
  tp_assert_path_string (body, "$.messages[0].content[2].type", "image");
  tp_assert_path_string (body, "$.messages[0].content[2].source.type", "base64");
  tp_assert_path_string (body, "$.messages[0].content[2].source.media_type", "image/png");
  tp_assert_path_string (body, "$.messages[0].content[2].source.data", "iVBORw0KGgo=");
  tp_assert_path_string (body, "$.messages[0].content[3].type", "document");
  tp_assert_path_string (body, "$.messages[0].content[3].source.media_type", "application/pdf");
  g_assert_false (tp_path_exists (body, "$.messages[0].content[0].cache_control"));

  /* Thinking replayed first and verbatim, then text, then the calls; the
   * mangled call's arguments go back as {"_raw": …}. */
  tp_assert_path_string (body, "$.messages[1].role", "assistant");
  g_assert_cmpuint (tp_path_length (body, "$.messages[1].content"), ==, 5);
  tp_assert_path_string (body, "$.messages[1].content[0].type", "thinking");
  tp_assert_path_string (body, "$.messages[1].content[0].signature", "SIG-ANTHROPIC");
  tp_assert_path_string (body, "$.messages[1].content[0].thinking", "I should read the file.");
  tp_assert_path_string (body, "$.messages[1].content[1].type", "redacted_thinking");
  tp_assert_path_string (body, "$.messages[1].content[1].data", "REDACTED-DATA");
  tp_assert_path_string (body, "$.messages[1].content[2].text", "Reading both.");
  tp_assert_path_string (body, "$.messages[1].content[3].type", "tool_use");
  tp_assert_path_string (body, "$.messages[1].content[3].id", "call_a");
  tp_assert_path_string (body, "$.messages[1].content[3].input.path", "notes.txt");
  tp_assert_path_string (body, "$.messages[1].content[4].input._raw", "{\"command\": \"ls\"");

  /* Both tool results and the next user text in one message, results
   * first; the final block is the cache breakpoint. */
  tp_assert_path_string (body, "$.messages[2].role", "user");
  g_assert_cmpuint (tp_path_length (body, "$.messages[2].content"), ==, 3);
  tp_assert_path_string (body, "$.messages[2].content[0].type", "tool_result");
  tp_assert_path_string (body, "$.messages[2].content[0].tool_use_id", "call_a");
  tp_assert_path_string (body, "$.messages[2].content[0].content", "hello from notes");
  tp_assert_path_string (body, "$.messages[2].content[1].tool_use_id", "call_b");
  tp_assert_path_string (body, "$.messages[2].content[2].text", "Now summarize.");
  tp_assert_path_string (body, "$.messages[2].content[2].cache_control.type", "ephemeral");
  g_assert_false (tp_path_exists (body, "$.messages[2].content[1].cache_control"));

  /* Tools; one with no schema properties keeps an object schema. */
  tp_assert_path_string (body, "$.tools[0].name", "read_file");
  tp_assert_path_string (body, "$.tools[0].input_schema.type", "object");
  tp_assert_path_string (body, "$.tools[2].input_schema.type", "object");

  /* The four breakpoints, the most the service takes: the last tool, the
   * system prompt, the previous request's end (the user message before
   * the newest assistant turn, where this call reads the cache from) and
   * this request's end (where the next call will). */
  tp_assert_path_string (body, "$.tools[2].cache_control.type", "ephemeral");
  g_assert_false (tp_path_exists (body, "$.tools[0].cache_control"));
  g_assert_false (tp_path_exists (body, "$.tools[1].cache_control"));
  tp_assert_path_string (body, "$.messages[0].content[3].cache_control.type", "ephemeral");
  g_assert_false (tp_path_exists (body, "$.messages[1].content[4].cache_control"));
  {
    g_autofree char *text = json_to_string (body, FALSE);
    guint marks = 0;

    for (const char *p = strstr (text, "\"cache_control\""); p != NULL; p = strstr (p + 1, "\"cache_control\""))
      marks++;
    g_assert_cmpuint (marks, ==, 4);
  }

  /* 4.6: adaptive thinking, so no temperature; max_tokens is required. */
  tp_assert_path_string (body, "$.thinking.type", "adaptive");
  g_assert_cmpint (tp_path_int (body, "$.max_tokens"), ==, 32000);
  g_assert_false (tp_path_exists (body, "$.temperature"));
  g_assert_true (json_node_get_boolean (tp_path (body, "$.stream")));
  ow_provider_call_free (call);

  /* Nothing above touched the history (no cache_control leaked into it). */
  after = history_text (history);
  g_assert_cmpstr (before, ==, after);
}

static void
test_request_thinking (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_ANTHROPIC,
                                                    "https://api.anthropic.com/v1",
                                                    "sk-ant-test-key-123456",
                                                    "{\"thinking_budget\":8192,\"server_side_fallback\":{"
                                                    "\"prefixes\":[\"claude-fable\",\"claude-mythos\"],"
                                                    "\"beta\":\"server-side-fallback-2026-06-01\","
                                                    "\"model\":\"claude-opus-4-8\"}}");
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  /* Before 4.6: a budget, and max_tokens above it. */
  tp_request_init (&req, "claude-sonnet-4-5-20250929", history, NULL);
  req.max_output_tokens = 4000;
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);
  g_assert_cmpstr (ow_provider_call_get_url (call), ==, "https://api.anthropic.com/v1/messages");
  tp_assert_path_string (body, "$.thinking.type", "enabled");
  g_assert_cmpint (tp_path_int (body, "$.thinking.budget_tokens"), ==, 8192);
  g_assert_cmpint (tp_path_int (body, "$.max_tokens"), ==, 32000);
  ow_provider_call_free (call);

  /* Thinking off: sampling goes through, the caller's max_tokens stands. */
  tp_request_init (&req, "claude-opus-4-8", history, NULL);
  req.thinking = 0;
  req.temperature = 0.25;
  req.max_output_tokens = 2048;
  req.stream = FALSE;
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);
  g_assert_false (tp_path_exists (body, "$.thinking"));
  g_assert_cmpfloat (json_node_get_double (tp_path (body, "$.temperature")), ==, 0.25);
  g_assert_cmpint (tp_path_int (body, "$.max_tokens"), ==, 2048);
  g_assert_false (tp_path_exists (body, "$.stream"));
  ow_provider_call_free (call);

  /* Old models never get a thinking block. */
  tp_request_init (&req, "claude-3-5-haiku-latest", history, NULL);
  call = tp_build (provider, &req);
  g_assert_false (tp_path_exists (ow_provider_call_get_body (call), "$.thinking"));
  ow_provider_call_free (call);

  /* Adaptive with an effort; the fable family asks for a server-side
   * fallback. */
  tp_request_init (&req, "claude-fable-5", history, NULL);
  req.reasoning_effort = "high";
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);
  tp_assert_path_string (body, "$.thinking.type", "adaptive");
  tp_assert_path_string (body, "$.output_config.effort", "high");
  tp_assert_path_string (body, "$.fallbacks[0].model", "claude-opus-4-8");
  g_assert_cmpstr (ow_provider_call_get_header (call, "anthropic-beta"), ==,
                   "server-side-fallback-2026-06-01");
  ow_provider_call_free (call);
}

static void
test_request_shapes (void)
{
  static const char *const json =
    "[{\"role\":\"system\",\"content\":\"sys\"},"
    " {\"role\":\"assistant\",\"content\":\"I was saying\"},"
    " {\"role\":\"system\",\"content\":\"Late instruction\"},"
    " {\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.com/a.png\"}},"
    "                               {\"type\":\"file\",\"file\":{\"filename\":\"n.txt\",\"file_data\":\"data:text/plain;base64,aGVsbG8=\"}}]}]";
  g_autoptr(JsonNode) parsed = ow_json_parse (json, -1, NULL);
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_ANTHROPIC,
                                                    "https://api.anthropic.com", "k", NULL);
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  tp_request_init (&req, "claude-haiku-4-5", json_node_get_array (parsed), NULL);
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);
  /* It must open with the user. */
  tp_assert_path_string (body, "$.messages[0].role", "user");
  tp_assert_path_string (body, "$.messages[0].content[0].text", "(continued)");
  tp_assert_path_string (body, "$.messages[1].role", "assistant");
  /* A late system message is user text; URLs and text files have their
   * own source types. */
  tp_assert_path_string (body, "$.messages[2].content[0].text",
                         "<system>\nLate instruction\n</system>");
  tp_assert_path_string (body, "$.messages[2].content[1].source.type", "url");
  tp_assert_path_string (body, "$.messages[2].content[2].source.type", "text");
  tp_assert_path_string (body, "$.messages[2].content[2].source.data", "hello");
  ow_provider_call_free (call);
}

static const char *const stream_tools =
  "event: message_start\n"
  "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01X\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-6\","
  "\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":20,\"output_tokens\":1,\"cache_read_input_tokens\":3000,\"cache_creation_input_tokens\":100}}}\n\n"
  "event: content_block_start\n"
  "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n"
  "event: ping\n"
  "data: {\"type\":\"ping\"}\n\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Need the \"}}\n\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"file.\"}}\n\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQB-sig\"}}\n\n"
  "event: content_block_stop\n"
  "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
  "event: content_block_start\n"
  "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"I'll read \"}}\n\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"it — ünïcode.\"}}\n\n"
  "event: content_block_stop\n"
  "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
  "event: content_block_start\n"
  "data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01A\",\"name\":\"read_file\",\"input\":{}}}\n\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"no\"}}\n\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"tes.txt\\\"}\"}}\n\n"
  "event: content_block_stop\n"
  "data: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
  "event: content_block_start\n"
  "data: {\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01B\",\"name\":\"git_status\",\"input\":{}}}\n\n"
  "event: content_block_stop\n"
  "data: {\"type\":\"content_block_stop\",\"index\":3}\n\n"
  "event: message_delta\n"
  "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":30}}\n\n"
  "event: message_delta\n"
  "data: {\"type\":\"message_delta\",\"delta\":{},\"usage\":{\"output_tokens\":61}}\n\n"
  "event: message_stop\n"
  "data: {\"type\":\"message_stop\"}\n\n";

static void
test_stream (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_ANTHROPIC,
                                                    "https://api.anthropic.com", NULL, NULL);
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;
  TpDeltas deltas;

  tp_deltas_init (&deltas);
  tp_request_init (&req, "claude-sonnet-4-6", NULL, NULL);
  turn = tp_stream_all_splits (provider, &req, stream_tools, &deltas);

  g_assert_true (turn->complete);
  g_assert_cmpstr (turn->text->str, ==, "I'll read it — ünïcode.");
  g_assert_cmpstr (turn->reasoning->str, ==, "Need the file.");
  g_assert_cmpstr (deltas.order->str, ==, "RT");
  g_assert_cmpstr (turn->finish_reason, ==, "tool_calls");
  g_assert_cmpstr (turn->response_id, ==, "msg_01X");
  g_assert_cmpstr (turn->served_model, ==, "claude-sonnet-4-6");

  g_assert_cmpuint (turn->tool_calls->len, ==, 2);
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->id, ==, "toolu_01A");
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->arguments, ==,
                   "{\"path\": \"notes.txt\"}");
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[1])->arguments, ==, "{}");

  /* input excludes the cache; output is the last cumulative count. */
  g_assert_cmpint (turn->usage.input, ==, 20);
  g_assert_cmpint (turn->usage.cache_read, ==, 3000);
  g_assert_cmpint (turn->usage.cache_write, ==, 100);
  g_assert_cmpint (turn->usage.output, ==, 61);
  g_assert_cmpint (ow_usage_prompt_total (&turn->usage), ==, 3120);

  /* The thinking block with its signature, ready to replay. */
  g_assert_cmpstr (turn->sidecar_key, ==, "_anthropic");
  g_assert_cmpuint (tp_path_length (turn->sidecar, "$.blocks"), ==, 1);
  tp_assert_path_string (turn->sidecar, "$.blocks[0].type", "thinking");
  tp_assert_path_string (turn->sidecar, "$.blocks[0].thinking", "Need the file.");
  tp_assert_path_string (turn->sidecar, "$.blocks[0].signature", "EqQB-sig");
  tp_deltas_clear (&deltas);
}

static void
test_stream_failures (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_ANTHROPIC,
                                                    "https://api.anthropic.com", NULL, NULL);
  OwModelRequest req;
  static const char *const start =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hal\"}}\n\n";

  tp_request_init (&req, "claude-sonnet-4-6", NULL, NULL);

  /* An error event after the 200. */
  {
    g_autofree char *wire = g_strconcat (start, "event: error\n"
                                         "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
                                         NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 9, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_OVERLOADED);
    g_assert_cmpstr (partial->text->str, ==, "Hal");
  }

  /* A refusal. */
  {
    g_autofree char *wire = g_strconcat (start, "event: message_delta\n"
                                         "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"},\"usage\":{\"output_tokens\":3}}\n\n"
                                         "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REFUSED);
    g_assert_false (ow_provider_error_is_transient (error));
  }

  /* No message_stop: cut off. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, start, 1, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CUT_OFF);
    g_assert_cmpstr (partial->text->str, ==, "Hal");
    g_assert_true (partial->has_usage);
  }

  /* The output limit ended a reply: "length", still a turn. */
  {
    g_autofree char *wire = g_strconcat (start, "event: message_delta\n"
                                         "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":3}}\n\n"
                                         "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", NULL);
    g_autoptr(OwTurn) turn = tp_stream_all_splits (provider, &req, wire, NULL);

    g_assert_cmpstr (turn->finish_reason, ==, "length");
  }

  /* Nothing but a stop. */
  {
    static const char *const wire =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":5}}}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_EMPTY_REPLY);
  }
}

static void
test_parse (void)
{
  static const char *const body =
    "{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-opus-4-8\","
    " \"content\":[{\"type\":\"thinking\",\"thinking\":\"Hmm.\",\"signature\":\"S1\"},"
    "              {\"type\":\"redacted_thinking\",\"data\":\"R1\"},"
    "              {\"type\":\"text\",\"text\":\"Done.\"},"
    "              {\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"run_shell\",\"input\":{\"command\":\"ls -la\"}}],"
    " \"stop_reason\":\"tool_use\","
    " \"usage\":{\"input_tokens\":20,\"output_tokens\":5,\"cache_creation_input_tokens\":7,\"cache_read_input_tokens\":3000}}";
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_ANTHROPIC,
                                                    "https://api.anthropic.com", NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;

  tp_request_init (&req, "claude-opus-4-8", NULL, NULL);
  req.stream = FALSE;
  turn = tp_parse (provider, &req, body, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (turn->text->str, ==, "Done.");
  g_assert_cmpstr (turn->reasoning->str, ==, "Hmm.");
  g_assert_cmpstr (turn->finish_reason, ==, "tool_calls");
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->arguments, ==,
                   "{\"command\":\"ls -la\"}");
  g_assert_cmpint (turn->usage.input, ==, 20);
  g_assert_cmpint (turn->usage.cache_write, ==, 7);
  g_assert_cmpint (turn->usage.cache_read, ==, 3000);
  g_assert_cmpuint (tp_path_length (turn->sidecar, "$.blocks"), ==, 2);
  tp_assert_path_string (turn->sidecar, "$.blocks[1].data", "R1");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/providers/anthropic/request-body", test_request_body);
  g_test_add_func ("/ow/providers/anthropic/request-thinking", test_request_thinking);
  g_test_add_func ("/ow/providers/anthropic/request-shapes", test_request_shapes);
  g_test_add_func ("/ow/providers/anthropic/stream", test_stream);
  g_test_add_func ("/ow/providers/anthropic/stream-failures", test_stream_failures);
  g_test_add_func ("/ow/providers/anthropic/parse", test_parse);

  return g_test_run ();
}
