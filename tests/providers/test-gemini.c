/* test-gemini.c: the Gemini style, without a socket.
 *
 * The request from the canonical history (systemInstruction, user/model
 * roles, functionCall / functionResponse by name, signatures re-attached,
 * schemas cut to Gemini's subset, the key in a header), recorded streams in
 * every split, thought parts as reasoning, synthesized ids, the sidecar's
 * round trip, blocked prompts and finish reasons, whole replies.
 */
#include "provider-test-util.h"

#include <string.h>

#include "ow-error.h"

#define BASE "https://generativelanguage.googleapis.com/v1beta"

static void
test_request_body (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(JsonArray) tools = tp_tools ();
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_GEMINI, BASE,
                                                    "AIzaSyTestKey0123456789012345", NULL);
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  tp_request_init (&req, "models/gemini-3.6-flash", history, tools);
  req.reasoning_effort = "medium";
  req.max_output_tokens = 8000;
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);

  /* The key travels in a header, never in the URL. */
  g_assert_cmpstr (ow_provider_call_get_url (call), ==,
                   BASE "/models/gemini-3.6-flash:streamGenerateContent?alt=sse");
  g_assert_cmpstr (ow_provider_call_get_header (call, "x-goog-api-key"), ==,
                   "AIzaSyTestKey0123456789012345");

  tp_assert_path_string (body, "$.systemInstruction.parts[0].text", "You are OpenWorker.");
  g_assert_cmpuint (tp_path_length (body, "$.contents"), ==, 3);

  tp_assert_path_string (body, "$.contents[0].role", "user");
  g_assert_cmpuint (tp_path_length (body, "$.contents[0].parts"), ==, 4);
  tp_assert_path_string (body, "$.contents[0].parts[2].inlineData.mimeType", "image/png");
  tp_assert_path_string (body, "$.contents[0].parts[2].inlineData.data", "iVBORw0KGgo=");
  tp_assert_path_string (body, "$.contents[0].parts[3].inlineData.mimeType", "application/pdf");

  /* Signatures go back where they came from; no ids were native. */
  tp_assert_path_string (body, "$.contents[1].role", "model");
  g_assert_cmpuint (tp_path_length (body, "$.contents[1].parts"), ==, 3);
  tp_assert_path_string (body, "$.contents[1].parts[0].text", "Reading both.");
  tp_assert_path_string (body, "$.contents[1].parts[0].thoughtSignature", "SIG-GEMINI-TEXT");
  tp_assert_path_string (body, "$.contents[1].parts[1].functionCall.name", "read_file");
  tp_assert_path_string (body, "$.contents[1].parts[1].functionCall.args.path", "notes.txt");
  tp_assert_path_string (body, "$.contents[1].parts[1].thoughtSignature", "SIG-GEMINI-CALL");
  g_assert_false (tp_path_exists (body, "$.contents[1].parts[1].functionCall.id"));
  tp_assert_path_string (body, "$.contents[1].parts[2].functionCall.args._raw",
                         "{\"command\": \"ls\"");
  g_assert_false (tp_path_exists (body, "$.contents[1].parts[2].thoughtSignature"));

  /* Tool results by name; text wrapped, JSON objects as they are. */
  tp_assert_path_string (body, "$.contents[2].role", "user");
  g_assert_cmpuint (tp_path_length (body, "$.contents[2].parts"), ==, 3);
  tp_assert_path_string (body, "$.contents[2].parts[0].functionResponse.name", "read_file");
  tp_assert_path_string (body, "$.contents[2].parts[0].functionResponse.response.result",
                         "hello from notes");
  tp_assert_path_string (body, "$.contents[2].parts[1].functionResponse.name", "run_shell");
  tp_assert_path_string (body, "$.contents[2].parts[1].functionResponse.response.error",
                         "tool call not executed");
  tp_assert_path_string (body, "$.contents[2].parts[2].text", "Now summarize.");

  /* Schemas cut to the subset. */
  {
    JsonNode *params = tp_path (body, "$.tools[0].functionDeclarations[0].parameters");
    g_autofree char *text = tp_to_string (params);

    g_assert_null (strstr (text, "$schema"));
    g_assert_null (strstr (text, "additionalProperties"));
    g_assert_null (strstr (text, "uri"));
    g_assert_null (strstr (text, "ghost"));
    tp_assert_path_string (params, "$.type", "object");
    tp_assert_path_string (params, "$.properties.path.type", "string");
    tp_assert_path_string (params, "$.properties.path.description", "Where");
    tp_assert_path_string (params, "$.properties.mode.type", "string");
    g_assert_true (json_node_get_boolean (tp_path (params, "$.properties.mode.nullable")));
    tp_assert_path_string (params, "$.properties.mode.enum[1]", "bytes");
    tp_assert_path_string (params, "$.properties.extra.type", "object");
    g_assert_cmpuint (tp_path_length (params, "$.required"), ==, 1);
    tp_assert_path_string (params, "$.required[0]", "path");
  }
  tp_assert_path_string (body, "$.tools[0].functionDeclarations[2].name", "git_status");
  g_assert_false (tp_path_exists (body, "$.tools[0].functionDeclarations[2].parameters"));

  g_assert_true (json_node_get_boolean (tp_path (body,
                                                 "$.generationConfig.thinkingConfig.includeThoughts")));
  tp_assert_path_string (body, "$.generationConfig.thinkingConfig.thinkingLevel", "high");
  g_assert_cmpint (tp_path_int (body, "$.generationConfig.maxOutputTokens"), ==, 8000);
  ow_provider_call_free (call);

  /* Not streaming: generateContent; thinking off: no thinkingConfig. */
  tp_request_init (&req, "gemini-2.5-pro", history, NULL);
  req.stream = FALSE;
  req.thinking = 0;
  call = tp_build (provider, &req);
  g_assert_cmpstr (ow_provider_call_get_url (call), ==,
                   BASE "/models/gemini-2.5-pro:generateContent");
  g_assert_false (tp_path_exists (ow_provider_call_get_body (call), "$.generationConfig"));
  ow_provider_call_free (call);
}

static const char *const stream_tools =
  "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Planning the \",\"thought\":true}]},\"index\":0}],"
  "\"usageMetadata\":{\"promptTokenCount\":120,\"totalTokenCount\":121},\"modelVersion\":\"gemini-3.6-flash\",\"responseId\":\"r-1\"}\r\n\r\n"
  "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"lookup.\",\"thought\":true}]},\"index\":0}]}\r\n\r\n"
  "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"It is \"}]},\"index\":0}]}\r\n\r\n"
  "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"18°C.\"},{\"text\":\"\",\"thoughtSignature\":\"CiQB-text\"}]},\"index\":0}]}\r\n\r\n"
  "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}},\"thoughtSignature\":\"CiQB-call\"},"
  "{\"functionCall\":{\"name\":\"get_time\",\"args\":{}}}]},\"finishReason\":\"STOP\",\"index\":0}],"
  "\"usageMetadata\":{\"promptTokenCount\":120,\"cachedContentTokenCount\":100,\"candidatesTokenCount\":8,\"thoughtsTokenCount\":32,\"totalTokenCount\":160}}\r\n\r\n";

static void
test_stream (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_GEMINI, BASE, NULL, NULL);
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;
  OwToolCall *call0;
  OwToolCall *call1;
  TpDeltas deltas;
  g_autofree char *sig_path = NULL;

  tp_deltas_init (&deltas);
  tp_request_init (&req, "gemini-3.6-flash", NULL, NULL);
  turn = tp_stream_all_splits (provider, &req, stream_tools, &deltas);

  g_assert_true (turn->complete);
  /* Thoughts are reasoning, never answer text. */
  g_assert_cmpstr (turn->reasoning->str, ==, "Planning the lookup.");
  g_assert_cmpstr (turn->text->str, ==, "It is 18°C.");
  g_assert_cmpstr (deltas.order->str, ==, "RT");
  g_assert_cmpstr (turn->finish_reason, ==, "tool_calls");
  g_assert_cmpstr (turn->response_id, ==, "r-1");
  g_assert_cmpstr (turn->served_model, ==, "gemini-3.6-flash");

  g_assert_cmpuint (turn->tool_calls->len, ==, 2);
  call0 = g_ptr_array_index (turn->tool_calls, 0);
  call1 = g_ptr_array_index (turn->tool_calls, 1);
  g_assert_true (g_str_has_prefix (call0->id, "call_"));
  g_assert_true (g_str_has_prefix (call1->id, "call_"));
  g_assert_cmpstr (call0->id, !=, call1->id);
  g_assert_cmpstr (call0->arguments, ==, "{\"city\":\"Paris\"}");
  g_assert_cmpstr (call1->arguments, ==, "{}");

  /* Cumulative usage: the last chunk's. */
  g_assert_cmpint (turn->usage.input, ==, 20);
  g_assert_cmpint (turn->usage.cache_read, ==, 100);
  g_assert_cmpint (turn->usage.output, ==, 40);
  g_assert_cmpint (turn->usage.reasoning, ==, 32);

  g_assert_cmpstr (turn->sidecar_key, ==, "_gemini");
  tp_assert_path_string (turn->sidecar, "$.text_sig", "CiQB-text");
  sig_path = g_strdup_printf ("$.call_sigs.%s", call0->id);
  tp_assert_path_string (turn->sidecar, sig_path, "CiQB-call");
  g_assert_cmpuint (tp_path_length (turn->sidecar, "$.call_sigs"), ==, 1);
  tp_deltas_clear (&deltas);
}

static void
test_sidecar_round_trip (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_GEMINI, BASE, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTurn) turn = NULL;
  g_autoptr(JsonArray) history = json_array_new ();
  JsonObject *assistant;
  JsonArray *calls;
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  tp_request_init (&req, "gemini-3.6-flash", NULL, NULL);
  turn = tp_stream (provider, &req, stream_tools, 0, 0, NULL, NULL, &error);
  g_assert_no_error (error);

  {
    JsonObject *user = json_object_new ();
    json_object_set_string_member (user, "role", "user");
    json_object_set_string_member (user, "content", "Weather and time?");
    json_array_add_object_element (history, user);
  }
  assistant = json_object_new ();
  json_object_set_string_member (assistant, "role", "assistant");
  json_object_set_string_member (assistant, "content", turn->text->str);
  json_object_set_string_member (assistant, "reasoning", turn->reasoning->str);
  calls = json_array_new ();
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      OwToolCall *tc = g_ptr_array_index (turn->tool_calls, i);
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
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      OwToolCall *tc = g_ptr_array_index (turn->tool_calls, i);
      JsonObject *tool = json_object_new ();
      json_object_set_string_member (tool, "role", "tool");
      json_object_set_string_member (tool, "tool_call_id", tc->id);
      json_object_set_string_member (tool, "content", i == 0 ? "18C" : "{\"time\":\"12:00\"}");
      json_array_add_object_element (history, tool);
    }

  tp_request_init (&req, "gemini-3.6-flash", history, NULL);
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);
  g_assert_cmpuint (tp_path_length (body, "$.contents"), ==, 3);
  tp_assert_path_string (body, "$.contents[1].parts[0].text", "It is 18°C.");
  tp_assert_path_string (body, "$.contents[1].parts[0].thoughtSignature", "CiQB-text");
  tp_assert_path_string (body, "$.contents[1].parts[1].thoughtSignature", "CiQB-call");
  g_assert_false (tp_path_exists (body, "$.contents[1].parts[2].thoughtSignature"));
  tp_assert_path_string (body, "$.contents[2].parts[0].functionResponse.name", "get_weather");
  tp_assert_path_string (body, "$.contents[2].parts[1].functionResponse.name", "get_time");
  tp_assert_path_string (body, "$.contents[2].parts[1].functionResponse.response.time", "12:00");
  /* Reasoning is never sent back as text. */
  {
    g_autofree char *model_turn = tp_to_string (tp_path (body, "$.contents[1]"));
    g_assert_null (strstr (model_turn, "Planning"));
  }
  ow_provider_call_free (call);
}

static void
test_stream_endings (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_GEMINI, BASE, NULL, NULL);
  OwModelRequest req;

  tp_request_init (&req, "gemini-3.6-flash", NULL, NULL);

  /* A blocked prompt. */
  {
    static const char *const wire =
      "data: {\"promptFeedback\":{\"blockReason\":\"PROHIBITED_CONTENT\"},\"usageMetadata\":{\"promptTokenCount\":9}}\r\n\r\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REFUSED);
    g_assert_nonnull (strstr (error->message, "PROHIBITED_CONTENT"));
  }

  /* A safety stop with nothing said. */
  {
    static const char *const wire =
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[]},\"finishReason\":\"SAFETY\"}]}\r\n\r\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REFUSED);
  }

  /* A malformed function call leaves nothing usable: a transient empty
   * reply that says why. */
  {
    static const char *const wire =
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\"},\"finishReason\":\"MALFORMED_FUNCTION_CALL\"}]}\r\n\r\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_EMPTY_REPLY);
    g_assert_nonnull (strstr (error->message, "MALFORMED_FUNCTION_CALL"));
    g_assert_true (ow_provider_error_is_transient (error));
  }

  /* MAX_TOKENS is "length"; usage arriving after the finish still counts. */
  {
    static const char *const wire =
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Long\"}]},\"finishReason\":\"MAX_TOKENS\"}]}\r\n\r\n"
      "data: {\"usageMetadata\":{\"promptTokenCount\":50,\"candidatesTokenCount\":4096}}\r\n\r\n";
    g_autoptr(OwTurn) turn = tp_stream_all_splits (provider, &req, wire, NULL);

    g_assert_cmpstr (turn->finish_reason, ==, "length");
    g_assert_cmpint (turn->usage.output, ==, 4096);
  }

  /* An error chunk mid-stream. */
  {
    static const char *const wire =
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]}}]}\r\n\r\n"
      "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 2, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_OVERLOADED);
    g_assert_cmpstr (partial->text->str, ==, "Hel");
  }

  /* No finish reason before the end: cut off. */
  {
    static const char *const wire =
      "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Half\"}]}}]}\r\n\r\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CUT_OFF);
    g_assert_cmpstr (partial->text->str, ==, "Half");
  }
}

static void
test_parse (void)
{
  static const char *const body =
    "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hmm\",\"thought\":true},"
    "{\"functionCall\":{\"id\":\"fc-native-1\",\"name\":\"read_file\",\"args\":{\"path\":\"a\"}},\"thoughtSignature\":\"S\"}]},"
    "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":10,\"candidatesTokenCount\":3}}";
  static const char *const array_body =
    "[{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"A\"}]}}]},"
    " {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"B\"}]},\"finishReason\":\"STOP\"}]}]";
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_GEMINI, BASE, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTurn) turn = NULL;
  g_autoptr(OwTurn) turn2 = NULL;
  OwModelRequest req;

  tp_request_init (&req, "gemini-2.5-pro", NULL, NULL);
  req.stream = FALSE;
  turn = tp_parse (provider, &req, body, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (turn->reasoning->str, ==, "Hmm");
  g_assert_cmpstr (turn->text->str, ==, "");
  /* An id the wire gave is kept, and said to be native. */
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->id, ==, "fc-native-1");
  g_assert_true (json_node_get_boolean (tp_path (turn->sidecar, "$.native_ids")));
  tp_assert_path_string (turn->sidecar, "$.call_sigs['fc-native-1']", "S");

  turn2 = tp_parse (provider, &req, array_body, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (turn2->text->str, ==, "AB");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/providers/gemini/request-body", test_request_body);
  g_test_add_func ("/ow/providers/gemini/stream", test_stream);
  g_test_add_func ("/ow/providers/gemini/sidecar-round-trip", test_sidecar_round_trip);
  g_test_add_func ("/ow/providers/gemini/stream-endings", test_stream_endings);
  g_test_add_func ("/ow/providers/gemini/parse", test_parse);

  return g_test_run ();
}
