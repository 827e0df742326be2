/* test-ollama.c: Ollama's native /api/chat, without a socket.
 *
 * The request from the canonical history (object arguments, images,
 * tool_name on results, think, num_ctx), NDJSON streams in every split,
 * error lines, endings and whole replies.
 */
#include "provider-test-util.h"

#include <string.h>

#include "ow-error.h"

static void
test_request_body (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(JsonArray) tools = tp_tools ();
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OLLAMA, "http://localhost:11434/v1/",
                                                    NULL, NULL);
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  tp_request_init (&req, "qwen3-coder:30b", history, tools);
  req.context_size = 32768;
  req.max_output_tokens = 2000;
  req.temperature = 0.6;
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);

  /* The native API lives beside /v1. No key, no Authorization. */
  g_assert_cmpstr (ow_provider_call_get_url (call), ==, "http://localhost:11434/api/chat");
  g_assert_null (ow_provider_call_get_header (call, "Authorization"));
  tp_assert_path_string (body, "$.model", "qwen3-coder:30b");
  g_assert_true (json_node_get_boolean (tp_path (body, "$.stream")));
  g_assert_false (tp_path_exists (body, "$.think"));
  g_assert_cmpint (tp_path_int (body, "$.options.num_ctx"), ==, 32768);
  g_assert_cmpint (tp_path_int (body, "$.options.num_predict"), ==, 2000);
  g_assert_cmpfloat (json_node_get_double (tp_path (body, "$.options.temperature")), ==, 0.6);

  g_assert_cmpuint (tp_path_length (body, "$.messages"), ==, 7);
  tp_assert_path_string (body, "$.messages[0].role", "system");
  g_assert_false (tp_path_exists (body, "$.messages[1].ts"));
  tp_assert_path_string (body, "$.messages[2].content", "Here is the chart");
  tp_assert_path_string (body, "$.messages[2].images[0]", "iVBORw0KGgo=");
  /* Arguments are objects; mangled ones keep their text under _raw. */
  tp_assert_path_string (body, "$.messages[3].tool_calls[0].function.name", "read_file");
  tp_assert_path_string (body, "$.messages[3].tool_calls[0].function.arguments.path", "notes.txt");
  tp_assert_path_string (body, "$.messages[3].tool_calls[1].function.arguments._raw",
                         "{\"command\": \"ls\"");
  g_assert_false (tp_path_exists (body, "$.messages[3].reasoning"));
  g_assert_false (tp_path_exists (body, "$.messages[3]._gemini"));
  tp_assert_path_string (body, "$.messages[4].role", "tool");
  tp_assert_path_string (body, "$.messages[4].tool_name", "read_file");
  tp_assert_path_string (body, "$.messages[5].tool_name", "run_shell");
  tp_assert_path_string (body, "$.messages[6].content", "Now summarize.");
  tp_assert_path_string (body, "$.tools[1].function.name", "run_shell");
  ow_provider_call_free (call);

  /* Thinking on; not streaming is said out loud (the default is true). */
  tp_request_init (&req, "qwen3:8b", history, NULL);
  req.thinking = 1;
  req.stream = FALSE;
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);
  g_assert_true (json_node_get_boolean (tp_path (body, "$.think")));
  g_assert_false (json_node_get_boolean (tp_path (body, "$.stream")));
  g_assert_false (tp_path_exists (body, "$.options"));
  ow_provider_call_free (call);

  /* gpt-oss takes a level. */
  req.model = "gpt-oss:20b";
  req.reasoning_effort = "high";
  call = tp_build (provider, &req);
  tp_assert_path_string (ow_provider_call_get_body (call), "$.think", "high");
  ow_provider_call_free (call);
}

static const char *const stream_tools =
  "{\"model\":\"qwen3:8b\",\"created_at\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Read \"},\"done\":false}\n"
  "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"it.\"},\"done\":false}\r\n"
  "\n"
  "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"Reading \"},\"done\":false}\n"
  "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"a.txt ✓\"},\"done\":false}\n"
  "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}},"
  "{\"function\":{\"index\":1,\"name\":\"git_status\",\"arguments\":{}}}]},\"done\":false}\n"
  "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\","
  "\"total_duration\":123,\"prompt_eval_count\":812,\"prompt_eval_duration\":5,\"eval_count\":40,\"eval_duration\":6}\n";

static void
test_stream (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OLLAMA, "http://localhost:11434",
                                                    NULL, NULL);
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;
  TpDeltas deltas;

  tp_deltas_init (&deltas);
  tp_request_init (&req, "qwen3:8b", NULL, NULL);
  turn = tp_stream_all_splits (provider, &req, stream_tools, &deltas);

  g_assert_true (turn->complete);
  g_assert_cmpstr (turn->reasoning->str, ==, "Read it.");
  g_assert_cmpstr (turn->text->str, ==, "Reading a.txt ✓");
  g_assert_cmpstr (deltas.order->str, ==, "RT");
  g_assert_cmpstr (turn->finish_reason, ==, "tool_calls");
  g_assert_cmpstr (turn->served_model, ==, "qwen3:8b");
  g_assert_cmpuint (turn->tool_calls->len, ==, 2);
  g_assert_true (g_str_has_prefix (((OwToolCall *) turn->tool_calls->pdata[0])->id, "call_"));
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->arguments, ==,
                   "{\"path\":\"a.txt\"}");
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[1])->arguments, ==, "{}");
  g_assert_true (turn->has_usage);
  g_assert_cmpint (turn->usage.input, ==, 812);
  g_assert_cmpint (turn->usage.output, ==, 40);
  g_assert_cmpint (turn->usage.cache_read, ==, 0);
  g_assert_null (turn->sidecar);
  tp_deltas_clear (&deltas);
}

static void
test_stream_endings (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OLLAMA, "http://localhost:11434",
                                                    NULL, NULL);
  OwModelRequest req;

  tp_request_init (&req, "qwen3:8b", NULL, NULL);

  /* An error line mid-stream. */
  {
    static const char *const wire =
      "{\"message\":{\"role\":\"assistant\",\"content\":\"Par\"},\"done\":false}\n"
      "{\"error\":\"an error was encountered while running the model: unexpected EOF\"}\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 3, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_SERVER);
    g_assert_cmpstr (partial->text->str, ==, "Par");
  }

  /* …one that says the context is too small. */
  {
    static const char *const wire = "{\"error\":\"the input length exceeds the context length\"}\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CONTEXT_OVERFLOW);
  }

  /* No done line: cut off; a last line without its newline still counts. */
  {
    static const char *const wire =
      "{\"message\":{\"role\":\"assistant\",\"content\":\"Half\"},\"done\":false}\n"
      "{\"message\":{\"role\":\"assistant\",\"content\":\" more\"},\"done\":false}";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CUT_OFF);
    g_assert_cmpstr (partial->text->str, ==, "Half more");
  }

  /* done_reason "load": the model loaded and said nothing. */
  {
    static const char *const wire =
      "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"load\"}\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_EMPTY_REPLY);
    g_assert_nonnull (strstr (error->message, "load"));
  }

  /* "length". */
  {
    static const char *const wire =
      "{\"message\":{\"role\":\"assistant\",\"content\":\"Cut\"},\"done\":true,\"done_reason\":\"length\",\"eval_count\":100}\n";
    g_autoptr(OwTurn) turn = tp_stream_all_splits (provider, &req, wire, NULL);

    g_assert_cmpstr (turn->finish_reason, ==, "length");
  }
}

static void
test_parse (void)
{
  static const char *const body =
    "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"Hello\",\"thinking\":\"hm\","
    "\"tool_calls\":[{\"id\":\"call_x1\",\"function\":{\"name\":\"run_shell\",\"arguments\":\"{\\\"command\\\": \\\"ls\"}}]},"
    "\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":5,\"eval_count\":2}";
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OLLAMA, "http://localhost:11434",
                                                    NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;

  tp_request_init (&req, "qwen3:8b", NULL, NULL);
  req.stream = FALSE;
  turn = tp_parse (provider, &req, body, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (turn->text->str, ==, "Hello");
  g_assert_cmpstr (turn->reasoning->str, ==, "hm");
  /* A string where an object belongs: kept as the text it was. */
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->id, ==, "call_x1");
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->arguments, ==,
                   "{\"command\": \"ls");
  g_assert_cmpint (turn->usage.input, ==, 5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/providers/ollama/request-body", test_request_body);
  g_test_add_func ("/ow/providers/ollama/stream", test_stream);
  g_test_add_func ("/ow/providers/ollama/stream-endings", test_stream_endings);
  g_test_add_func ("/ow/providers/ollama/parse", test_parse);

  return g_test_run ();
}
