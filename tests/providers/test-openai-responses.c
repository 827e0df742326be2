/* test-openai-responses.c: the OpenAI Responses style, without a socket.
 *
 * The request from the canonical history (instructions, input items,
 * reasoning replayed from the sidecar, flat tools, store:false), named
 * stream events in every split, terminal statuses, in-stream failures, the
 * sidecar's round trip and whole replies.
 */
#include "provider-test-util.h"

#include <string.h>

#include "ow-error.h"

static void
test_request_body (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(JsonArray) tools = tp_tools ();
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_RESPONSES,
                                                    "https://api.openai.com/v1",
                                                    "sk-test-key-123456", NULL);
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
    json_node_set_array (node, history);
    before = tp_to_string (node);
  }
  tp_request_init (&req, "gpt-5.6-sol", history, tools);
  req.reasoning_effort = "low";
  req.max_output_tokens = 4096;
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);

  g_assert_cmpstr (ow_provider_call_get_url (call), ==, "https://api.openai.com/v1/responses");
  g_assert_cmpstr (ow_provider_call_get_header (call, "Authorization"), ==,
                   "Bearer sk-test-key-123456");
  tp_assert_path_string (body, "$.instructions", "You are OpenWorker.");
  g_assert_false (json_node_get_boolean (tp_path (body, "$.store")));
  tp_assert_path_string (body, "$.include[0]", "reasoning.encrypted_content");
  tp_assert_path_string (body, "$.reasoning.summary", "auto");
  tp_assert_path_string (body, "$.reasoning.effort", "low");
  g_assert_cmpint (tp_path_int (body, "$.max_output_tokens"), ==, 4096);
  g_assert_true (json_node_get_boolean (tp_path (body, "$.stream")));

  g_assert_cmpuint (tp_path_length (body, "$.input"), ==, 9);
  tp_assert_path_string (body, "$.input[0].role", "user");
  tp_assert_path_string (body, "$.input[0].content", "Read notes.txt and list the folder.");
  g_assert_false (tp_path_exists (body, "$.input[0].ts"));
  tp_assert_path_string (body, "$.input[1].content[0].type", "input_text");
  tp_assert_path_string (body, "$.input[1].content[1].type", "input_image");
  tp_assert_path_string (body, "$.input[1].content[1].image_url",
                         "data:image/png;base64,iVBORw0KGgo=");
  tp_assert_path_string (body, "$.input[1].content[2].type", "input_file");
  tp_assert_path_string (body, "$.input[1].content[2].filename", "spec.pdf");
  /* Reasoning replayed verbatim, first; then the text; then the calls —
   * call_a from the sidecar with its item id, call_b made from history. */
  tp_assert_path_string (body, "$.input[2].type", "reasoning");
  tp_assert_path_string (body, "$.input[2].encrypted_content", "ENC-OPENAI");
  tp_assert_path_string (body, "$.input[2].id", "rs_1");
  tp_assert_path_string (body, "$.input[3].role", "assistant");
  tp_assert_path_string (body, "$.input[3].content", "Reading both.");
  tp_assert_path_string (body, "$.input[4].type", "function_call");
  tp_assert_path_string (body, "$.input[4].id", "fc_1");
  tp_assert_path_string (body, "$.input[4].call_id", "call_a");
  tp_assert_path_string (body, "$.input[5].type", "function_call");
  tp_assert_path_string (body, "$.input[5].call_id", "call_b");
  tp_assert_path_string (body, "$.input[5].arguments", "{\"command\": \"ls\"");
  g_assert_false (tp_path_exists (body, "$.input[5].id"));
  tp_assert_path_string (body, "$.input[6].type", "function_call_output");
  tp_assert_path_string (body, "$.input[6].call_id", "call_a");
  tp_assert_path_string (body, "$.input[6].output", "hello from notes");
  tp_assert_path_string (body, "$.input[7].call_id", "call_b");
  tp_assert_path_string (body, "$.input[8].content", "Now summarize.");

  /* Flat tools. */
  g_assert_cmpuint (tp_path_length (body, "$.tools"), ==, 3);
  tp_assert_path_string (body, "$.tools[0].type", "function");
  tp_assert_path_string (body, "$.tools[0].name", "read_file");
  tp_assert_path_string (body, "$.tools[0].parameters.type", "object");
  g_assert_false (tp_path_exists (body, "$.tools[0].function"));
  ow_provider_call_free (call);

  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
    json_node_set_array (node, history);
    after = tp_to_string (node);
  }
  g_assert_cmpstr (before, ==, after);
}

static void
test_request_quirks (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(OwProvider) ark = tp_provider_new (OW_WIRE_OPENAI_RESPONSES,
                                               "https://ark.ap-southeast.bytepluses.com/api/v3",
                                               "ark-test-key-123456", "{\"reasoning_summary\":false}");
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  tp_request_init (&req, "dola-seed", history, NULL);
  req.stream = FALSE;
  call = tp_build (ark, &req);
  body = ow_provider_call_get_body (call);
  g_assert_cmpstr (ow_provider_call_get_url (call), ==,
                   "https://ark.ap-southeast.bytepluses.com/api/v3/responses");
  g_assert_false (tp_path_exists (body, "$.reasoning"));
  g_assert_false (tp_path_exists (body, "$.stream"));
  g_assert_false (tp_path_exists (body, "$.tools"));
  ow_provider_call_free (call);

  /* The session's cache key goes only where the catalog says the service
   * takes it (OpenAI's entry); ark's server would refuse the member. */
  req.cache_key = "ow-0123456789abcdef";
  call = tp_build (ark, &req);
  g_assert_false (tp_path_exists (ow_provider_call_get_body (call), "$.prompt_cache_key"));
  ow_provider_call_free (call);
  {
    g_autoptr(OwProvider) openai = tp_provider_new (OW_WIRE_OPENAI_RESPONSES, "https://api.openai.com/v1",
                                                    "sk-test-key-123456", "{\"prompt_cache_key\":true}");
    call = tp_build (openai, &req);
    tp_assert_path_string (ow_provider_call_get_body (call), "$.prompt_cache_key", "ow-0123456789abcdef");
    ow_provider_call_free (call);
  }
}

static const char *const stream_tools =
  "event: response.created\n"
  "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"output\":[]}}\n\n"
  "event: response.output_item.added\n"
  "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"reasoning\",\"id\":\"rs_9\",\"summary\":[]}}\n\n"
  "event: response.reasoning_summary_part.added\n"
  "data: {\"type\":\"response.reasoning_summary_part.added\",\"item_id\":\"rs_9\",\"summary_index\":0}\n\n"
  "event: response.reasoning_summary_text.delta\n"
  "data: {\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs_9\",\"delta\":\"Looking at \"}\n\n"
  "event: response.reasoning_summary_text.delta\n"
  "data: {\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs_9\",\"delta\":\"the folder.\"}\n\n"
  "event: response.output_item.done\n"
  "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"reasoning\",\"id\":\"rs_9\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"Looking at the folder.\"}],\"encrypted_content\":\"gAAAA-enc\"}}\n\n"
  "event: response.output_text.delta\n"
  "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"delta\":\"Listing \"}\n\n"
  ": keep-alive\n\n"
  "event: response.output_text.delta\n"
  "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":1,\"content_index\":0,\"delta\":\"it now.\"}\n\n"
  "event: response.function_call_arguments.delta\n"
  "data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_7\",\"output_index\":2,\"delta\":\"{\\\"path\\\":\"}\n\n"
  "event: response.completed\n"
  "data: {\"type\":\"response.completed\",\"sequence_number\":9,\"response\":{\"id\":\"resp_1\",\"model\":\"gpt-5.6-sol-2026\",\"status\":\"completed\","
  "\"output\":[{\"type\":\"reasoning\",\"id\":\"rs_9\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"Looking at the folder.\"}],\"encrypted_content\":\"gAAAA-enc\"},"
  "{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"Listing it now.\",\"annotations\":[]}]},"
  "{\"type\":\"function_call\",\"id\":\"fc_7\",\"call_id\":\"call_7\",\"name\":\"list_files\",\"arguments\":\"{\\\"path\\\":\\\".\\\"}\",\"status\":\"completed\"}],"
  "\"usage\":{\"input_tokens\":900,\"input_tokens_details\":{\"cached_tokens\":600},\"output_tokens\":55,\"output_tokens_details\":{\"reasoning_tokens\":30},\"total_tokens\":955}}}\n\n";

static void
test_stream (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_RESPONSES,
                                                    "https://api.openai.com/v1", NULL, NULL);
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;
  OwToolCall *call;
  TpDeltas deltas;

  tp_deltas_init (&deltas);
  tp_request_init (&req, "gpt-5.6-sol", NULL, NULL);
  turn = tp_stream_all_splits (provider, &req, stream_tools, &deltas);

  g_assert_true (turn->complete);
  g_assert_cmpstr (turn->text->str, ==, "Listing it now.");
  g_assert_cmpstr (turn->reasoning->str, ==, "Looking at the folder.");
  g_assert_cmpstr (deltas.text->str, ==, "Listing it now.");
  g_assert_cmpstr (deltas.reasoning->str, ==, "Looking at the folder.");
  g_assert_cmpstr (deltas.order->str, ==, "RT");
  g_assert_cmpstr (turn->finish_reason, ==, "tool_calls");
  g_assert_cmpstr (turn->response_id, ==, "resp_1");
  g_assert_cmpstr (turn->served_model, ==, "gpt-5.6-sol-2026");

  g_assert_cmpuint (turn->tool_calls->len, ==, 1);
  call = g_ptr_array_index (turn->tool_calls, 0);
  g_assert_cmpstr (call->id, ==, "call_7");
  g_assert_cmpstr (call->name, ==, "list_files");
  g_assert_cmpstr (call->arguments, ==, "{\"path\":\".\"}");

  g_assert_true (turn->has_usage);
  g_assert_cmpint (turn->usage.input, ==, 300);
  g_assert_cmpint (turn->usage.cache_read, ==, 600);
  g_assert_cmpint (turn->usage.output, ==, 55);
  g_assert_cmpint (turn->usage.reasoning, ==, 30);

  /* The sidecar keeps the reasoning (with its encrypted state) and the
   * call items, never the message. */
  g_assert_cmpstr (turn->sidecar_key, ==, "_openai");
  g_assert_cmpuint (tp_path_length (turn->sidecar, "$.items"), ==, 2);
  tp_assert_path_string (turn->sidecar, "$.items[0].encrypted_content", "gAAAA-enc");
  tp_assert_path_string (turn->sidecar, "$.items[1].id", "fc_7");
  tp_deltas_clear (&deltas);
}

static void
test_sidecar_round_trip (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_RESPONSES,
                                                    "https://api.openai.com/v1", NULL, NULL);
  g_autoptr(OwTurn) turn = NULL;
  g_autoptr(JsonArray) history = json_array_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *assistant;
  JsonArray *calls;
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  tp_request_init (&req, "gpt-5.6-sol", NULL, NULL);
  turn = tp_stream (provider, &req, stream_tools, 0, 0, NULL, NULL, &error);
  g_assert_no_error (error);

  /* What the engine stores for this turn, then sends back. */
  {
    JsonObject *user = json_object_new ();
    json_object_set_string_member (user, "role", "user");
    json_object_set_string_member (user, "content", "List the folder");
    json_array_add_object_element (history, user);
  }
  assistant = json_object_new ();
  json_object_set_string_member (assistant, "role", "assistant");
  json_object_set_string_member (assistant, "content", turn->text->str);
  calls = json_array_new ();
  {
    OwToolCall *tc = g_ptr_array_index (turn->tool_calls, 0);
    JsonObject *c = json_object_new ();
    JsonObject *f = json_object_new ();
    json_object_set_string_member (c, "id", tc->id);
    json_object_set_string_member (c, "type", "function");
    json_object_set_string_member (f, "name", tc->name);
    json_object_set_string_member (f, "arguments", tc->arguments);
    json_object_set_object_member (c, "function", f);
    json_array_add_object_element (calls, c);
  }
  json_object_set_array_member (assistant, "tool_calls", calls);
  json_object_set_member (assistant, turn->sidecar_key, json_node_copy (turn->sidecar));
  json_array_add_object_element (history, assistant);

  tp_request_init (&req, "gpt-5.6-sol", history, NULL);
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);
  g_assert_cmpuint (tp_path_length (body, "$.input"), ==, 4);
  tp_assert_path_string (body, "$.input[1].type", "reasoning");
  tp_assert_path_string (body, "$.input[1].encrypted_content", "gAAAA-enc");
  tp_assert_path_string (body, "$.input[2].content", "Listing it now.");
  tp_assert_path_string (body, "$.input[3].id", "fc_7");
  tp_assert_path_string (body, "$.input[3].status", "completed");
  ow_provider_call_free (call);
}

static void
test_stream_endings (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_RESPONSES,
                                                    "https://api.openai.com/v1", NULL, NULL);
  OwModelRequest req;

  tp_request_init (&req, "gpt-5.6-sol", NULL, NULL);

  /* Incomplete at the output limit: a turn, finish "length". */
  {
    static const char *const wire =
      "event: response.output_text.delta\n"
      "data: {\"type\":\"response.output_text.delta\",\"delta\":\"Long ans\"}\n\n"
      "event: response.incomplete\n"
      "data: {\"type\":\"response.incomplete\",\"response\":{\"id\":\"resp_2\",\"status\":\"incomplete\","
      "\"incomplete_details\":{\"reason\":\"max_output_tokens\"},"
      "\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"Long ans\"}]}],"
      "\"usage\":{\"input_tokens\":10,\"output_tokens\":4096}}}\n\n";
    g_autoptr(OwTurn) turn = tp_stream_all_splits (provider, &req, wire, NULL);

    g_assert_cmpstr (turn->finish_reason, ==, "length");
    g_assert_cmpstr (turn->text->str, ==, "Long ans");
    g_assert_cmpint (turn->usage.output, ==, 4096);
  }

  /* Failed: the response's error, classified. */
  {
    static const char *const wire =
      "event: response.output_text.delta\n"
      "data: {\"type\":\"response.output_text.delta\",\"delta\":\"Star\"}\n\n"
      "event: response.failed\n"
      "data: {\"type\":\"response.failed\",\"response\":{\"id\":\"resp_3\",\"status\":\"failed\","
      "\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached for gpt-5.6-sol.\"},\"output\":[]}}\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 4, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_RATE_LIMITED);
    g_assert_cmpstr (partial->text->str, ==, "Star");
  }

  /* An "error" event. */
  {
    static const char *const wire =
      "event: error\n"
      "data: {\"type\":\"error\",\"code\":\"context_length_exceeded\",\"message\":\"Your input exceeds the context window of this model.\",\"param\":\"input\"}\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CONTEXT_OVERFLOW);
    g_assert_false (ow_provider_error_is_transient (error));
  }

  /* No terminal event: cut off. */
  {
    static const char *const wire =
      "event: response.output_text.delta\n"
      "data: {\"type\":\"response.output_text.delta\",\"delta\":\"Almost\"}\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CUT_OFF);
    g_assert_cmpstr (partial->text->str, ==, "Almost");
  }

  /* Completed with nothing: empty. */
  {
    static const char *const wire =
      "event: response.completed\n"
      "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_EMPTY_REPLY);
  }

  /* A compatible server whose terminal response leaves out the output:
   * the streamed items stand in. */
  {
    static const char *const wire =
      "event: response.output_item.done\n"
      "data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"From items\"}]}}\n\n"
      "event: response.completed\n"
      "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n";
    g_autoptr(OwTurn) turn = tp_stream_all_splits (provider, &req, wire, NULL);

    g_assert_cmpstr (turn->text->str, ==, "From items");
  }
}

static void
test_parse (void)
{
  static const char *const body =
    "{\"id\":\"resp_5\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"gpt-x\",\"error\":null,"
    "\"output\":[{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"write_file\","
    "\"arguments\":\"{\\\"path\\\": \\\"x\",\"status\":\"completed\"}],"
    "\"usage\":{\"input_tokens\":50,\"output_tokens\":20}}";
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_RESPONSES,
                                                    "https://api.openai.com/v1", NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;

  tp_request_init (&req, "gpt-x", NULL, NULL);
  req.stream = FALSE;
  turn = tp_parse (provider, &req, body, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (turn->tool_calls->len, ==, 1);
  /* Mangled arguments pass through untouched. */
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->arguments, ==, "{\"path\": \"x");
  g_assert_cmpstr (turn->finish_reason, ==, "tool_calls");
  g_assert_cmpint (turn->usage.input, ==, 50);
  g_assert_cmpint (turn->usage.output, ==, 20);
}

static void
test_param_fix (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_RESPONSES,
                                                    "https://api.openai.com/v1", NULL, NULL);
  g_autoptr(OwHttpRequest) http = NULL;
  g_autoptr(GError) error = NULL;
  OwProviderCall *call;
  OwModelRequest req;

  tp_request_init (&req, "o4-mini", history, NULL);
  req.temperature = 0.3;
  call = tp_build (provider, &req);
  g_assert_true (ow_provider_call_fix_params (call, 400,
                                              "{\"error\":{\"message\":\"Unsupported parameter: 'temperature' is not supported with "
                                              "this model.\",\"type\":\"invalid_request_error\",\"param\":\"temperature\","
                                              "\"code\":\"unsupported_parameter\"}}"));
  g_assert_true (ow_provider_call_fix_params (call, 400,
                                              "{\"error\":{\"message\":\"Unsupported parameter: 'reasoning.summary' is not supported "
                                              "with this model.\"}}"));
  http = ow_provider_call_build (call, &error);
  g_assert_no_error (error);
  g_assert_false (tp_path_exists (ow_provider_call_get_body (call), "$.temperature"));
  g_assert_false (tp_path_exists (ow_provider_call_get_body (call), "$.reasoning"));
  g_assert_true (tp_path_exists (ow_provider_call_get_body (call), "$.input"));
  /* The input is never the thing to drop. */
  g_assert_false (ow_provider_call_fix_params (call, 400,
                                               "{\"error\":{\"message\":\"Unsupported parameter: 'input'\"}}"));
  ow_provider_call_free (call);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/providers/openai-responses/request-body", test_request_body);
  g_test_add_func ("/ow/providers/openai-responses/request-quirks", test_request_quirks);
  g_test_add_func ("/ow/providers/openai-responses/stream", test_stream);
  g_test_add_func ("/ow/providers/openai-responses/sidecar-round-trip", test_sidecar_round_trip);
  g_test_add_func ("/ow/providers/openai-responses/stream-endings", test_stream_endings);
  g_test_add_func ("/ow/providers/openai-responses/parse", test_parse);
  g_test_add_func ("/ow/providers/openai-responses/param-fix", test_param_fix);

  return g_test_run ();
}
