/* test-openai-chat.c: the OpenAI Chat Completions style, without a socket.
 *
 * Request bodies from the fixed canonical history, the output-limit field
 * per server, OpenRouter routing, recorded streams fed in every split,
 * whole replies, mangled arguments, in-stream errors, cut-off and empty
 * replies, and the parameter-fix retries.
 */
#include "provider-test-util.h"

#include "ow-error.h"

/* ---- Requests ------------------------------------------------------------ */

static void
test_request_body (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(JsonArray) tools = tp_tools ();
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1/",
                                                    "sk-test-key-123456", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
    json_node_set_array (node, history);
    before = tp_to_string (node);
  }

  tp_request_init (&req, "qwen3-coder", history, tools);
  call = tp_build (provider, &req);
  body = ow_provider_call_get_body (call);

  g_assert_cmpstr (ow_provider_call_get_url (call), ==, "http://127.0.0.1:9/v1/chat/completions");
  g_assert_cmpstr (ow_provider_call_get_header (call, "Authorization"), ==,
                   "Bearer sk-test-key-123456");
  tp_assert_path_string (body, "$.model", "qwen3-coder");

  /* The notice is gone; everything else keeps its order. */
  g_assert_cmpuint (tp_path_length (body, "$.messages"), ==, 7);
  tp_assert_path_string (body, "$.messages[0].role", "system");
  tp_assert_path_string (body, "$.messages[1].content", "Read notes.txt and list the folder.");
  g_assert_false (tp_path_exists (body, "$.messages[1].ts"));
  g_assert_false (tp_path_exists (body, "$.messages[1].source"));
  g_assert_false (tp_path_exists (body, "$.messages[1]._display"));
  tp_assert_path_string (body, "$.messages[2].content[1].type", "image_url");
  tp_assert_path_string (body, "$.messages[2].content[2].file.filename", "spec.pdf");

  /* The assistant loses engine keys and every sidecar; arguments are the
   * text as stored, even when it is not JSON. */
  tp_assert_path_string (body, "$.messages[3].content", "Reading both.");
  g_assert_false (tp_path_exists (body, "$.messages[3].reasoning"));
  g_assert_false (tp_path_exists (body, "$.messages[3].usage"));
  g_assert_false (tp_path_exists (body, "$.messages[3]._anthropic"));
  g_assert_false (tp_path_exists (body, "$.messages[3]._gemini"));
  g_assert_false (tp_path_exists (body, "$.messages[3]._openai"));
  tp_assert_path_string (body, "$.messages[3].tool_calls[0].function.arguments",
                         "{\"path\":\"notes.txt\"}");
  tp_assert_path_string (body, "$.messages[3].tool_calls[1].function.arguments",
                         "{\"command\": \"ls\"");
  tp_assert_path_string (body, "$.messages[4].role", "tool");
  tp_assert_path_string (body, "$.messages[4].tool_call_id", "call_a");
  tp_assert_path_string (body, "$.messages[6].content", "Now summarize.");

  g_assert_cmpuint (tp_path_length (body, "$.tools"), ==, 3);
  tp_assert_path_string (body, "$.tools[0].function.name", "read_file");

  /* Compatible servers get max_tokens; streams ask for usage. */
  g_assert_cmpint (tp_path_int (body, "$.max_tokens"), ==, 32000);
  g_assert_false (tp_path_exists (body, "$.max_completion_tokens"));
  g_assert_true (json_node_get_boolean (tp_path (body, "$.stream")));
  g_assert_true (json_node_get_boolean (tp_path (body, "$.stream_options.include_usage")));
  g_assert_false (tp_path_exists (body, "$.reasoning_effort"));
  g_assert_false (tp_path_exists (body, "$.temperature"));
  ow_provider_call_free (call);

  /* The history itself is untouched. */
  {
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
    json_node_set_array (node, history);
    after = tp_to_string (node);
  }
  g_assert_cmpstr (before, ==, after);
}

static void
test_request_settings (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(OwProvider) openai = tp_provider_new (OW_WIRE_OPENAI_CHAT, "https://api.openai.com/v1",
                                                  "sk-test-key-123456", NULL);
  g_autoptr(OwProvider) quirked = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1",
                                                   NULL,
                                                   "{\"max_tokens_field\":\"max_completion_tokens\"}");
  g_autoptr(OwProvider) local = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1", NULL,
                                                 "{\"default_max_tokens\":0}");
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  /* api.openai.com: max_completion_tokens, and the caller's limit wins. */
  tp_request_init (&req, "gpt-5.6-sol", history, NULL);
  req.max_output_tokens = 1000;
  req.stream = FALSE;
  req.reasoning_effort = "high";
  req.temperature = 0.5;
  req.top_p = 0.25;
  call = tp_build (openai, &req);
  body = ow_provider_call_get_body (call);
  g_assert_cmpint (tp_path_int (body, "$.max_completion_tokens"), ==, 1000);
  g_assert_false (tp_path_exists (body, "$.max_tokens"));
  g_assert_false (tp_path_exists (body, "$.stream"));
  g_assert_false (tp_path_exists (body, "$.stream_options"));
  g_assert_false (tp_path_exists (body, "$.tools"));
  tp_assert_path_string (body, "$.reasoning_effort", "high");
  g_assert_cmpfloat (json_node_get_double (tp_path (body, "$.temperature")), ==, 0.5);
  g_assert_cmpfloat (json_node_get_double (tp_path (body, "$.top_p")), ==, 0.25);
  ow_provider_call_free (call);

  /* A quirk names the field; a keyless server gets no Authorization. */
  tp_request_init (&req, "m", history, NULL);
  call = tp_build (quirked, &req);
  body = ow_provider_call_get_body (call);
  g_assert_cmpint (tp_path_int (body, "$.max_completion_tokens"), ==, 32000);
  g_assert_null (ow_provider_call_get_header (call, "Authorization"));
  ow_provider_call_free (call);

  /* Local servers choose their own limit. */
  call = tp_build (local, &req);
  body = ow_provider_call_get_body (call);
  g_assert_false (tp_path_exists (body, "$.max_tokens"));
  g_assert_false (tp_path_exists (body, "$.max_completion_tokens"));
  ow_provider_call_free (call);
}

static void
test_request_openrouter (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(OwProvider) router = tp_provider_new (OW_WIRE_OPENAI_CHAT,
                                                  "https://openrouter.ai/api/v1",
                                                  "sk-or-test-key-123456",
                                                  "{\"provider_routing\":true,\"reasoning_object\":true,"
                                                  "\"extra_headers\":{\"X-Title\":\"OpenWorker\"}}");
  g_autoptr(OwProvider) plain = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1",
                                                 NULL, NULL);
  OwModelRequest req;
  OwProviderCall *call;
  JsonNode *body;

  tp_request_init (&req, "z-ai/glm-5.2", history, NULL);
  req.provider_order = " Anthropic, Google Vertex ,";
  req.reasoning_effort = "high";
  call = tp_build (router, &req);
  body = ow_provider_call_get_body (call);
  g_assert_cmpuint (tp_path_length (body, "$.provider.order"), ==, 2);
  tp_assert_path_string (body, "$.provider.order[0]", "Anthropic");
  tp_assert_path_string (body, "$.provider.order[1]", "Google Vertex");
  g_assert_false (json_node_get_boolean (tp_path (body, "$.provider.allow_fallbacks")));
  tp_assert_path_string (body, "$.reasoning.effort", "high");
  g_assert_false (tp_path_exists (body, "$.reasoning_effort"));
  g_assert_cmpstr (ow_provider_call_get_header (call, "X-Title"), ==, "OpenWorker");
  ow_provider_call_free (call);

  /* Elsewhere the order means nothing and effort is the flat field. */
  call = tp_build (plain, &req);
  body = ow_provider_call_get_body (call);
  g_assert_false (tp_path_exists (body, "$.provider"));
  tp_assert_path_string (body, "$.reasoning_effort", "high");
  ow_provider_call_free (call);
}

/* ---- Streams ------------------------------------------------------------- */

static const char *const stream_tools =
  ": OPENROUTER PROCESSING\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"served-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"Need the \"},\"finish_reason\":null}],\"usage\":null}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"file. é\"},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me \"},\"finish_reason\":null}]}\r\n\r\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"look — ✓.\"},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\"}}]},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"run_shell\",\"arguments\":{\"command\":\"ls\"}}}]},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\" \\\"a.txt\\\"}\"}}]},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":2,\"id\":\"call_3\",\"type\":\"function\",\"function\":{\"name\":\"git_status\"}}]},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
  "data: {\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":812,\"completion_tokens\":40,\"total_tokens\":852,"
  "\"prompt_tokens_details\":{\"cached_tokens\":512},\"completion_tokens_details\":{\"reasoning_tokens\":12}}}\n\n"
  "data: [DONE]\n\n";

static void
test_stream_tools (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1",
                                                    NULL, NULL);
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;
  OwToolCall *call;
  TpDeltas deltas;

  tp_deltas_init (&deltas);
  tp_request_init (&req, "m", NULL, NULL);
  turn = tp_stream_all_splits (provider, &req, stream_tools, &deltas);

  g_assert_cmpstr (turn->text->str, ==, "Let me look — ✓.");
  g_assert_cmpstr (turn->reasoning->str, ==, "Need the file. é");
  g_assert_cmpstr (deltas.text->str, ==, turn->text->str);
  g_assert_cmpstr (deltas.reasoning->str, ==, turn->reasoning->str);
  g_assert_cmpstr (deltas.order->str, ==, "RT");
  g_assert_true (turn->complete);
  g_assert_cmpstr (turn->finish_reason, ==, "tool_calls");
  g_assert_cmpstr (turn->response_id, ==, "chatcmpl-1");
  g_assert_cmpstr (turn->served_model, ==, "served-1");

  g_assert_cmpuint (turn->tool_calls->len, ==, 3);
  call = g_ptr_array_index (turn->tool_calls, 0);
  g_assert_cmpstr (call->id, ==, "call_1");
  g_assert_cmpstr (call->name, ==, "read_file");
  g_assert_cmpstr (call->arguments, ==, "{\"path\": \"a.txt\"}");
  call = g_ptr_array_index (turn->tool_calls, 1);
  g_assert_cmpstr (call->id, ==, "call_2");
  g_assert_cmpstr (call->arguments, ==, "{\"command\":\"ls\"}");   /* an object, re-serialized */
  call = g_ptr_array_index (turn->tool_calls, 2);
  g_assert_cmpstr (call->name, ==, "git_status");
  g_assert_cmpstr (call->arguments, ==, "{}");                     /* none at all */

  g_assert_true (turn->has_usage);
  g_assert_cmpint (turn->usage.input, ==, 300);
  g_assert_cmpint (turn->usage.cache_read, ==, 512);
  g_assert_cmpint (turn->usage.cache_write, ==, 0);
  g_assert_cmpint (turn->usage.output, ==, 40);
  g_assert_cmpint (turn->usage.reasoning, ==, 12);
  g_assert_cmpint (ow_usage_prompt_total (&turn->usage), ==, 812);
  g_assert_null (turn->sidecar);
  tp_deltas_clear (&deltas);
}

static void
test_stream_mangled_and_unindexed (void)
{
  /* Arguments that are not JSON arrive as sent; calls without an index
   * (some compatible servers) are told apart by their ids. */
  static const char *const wire =
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"write_file\",\"arguments\":\"{\\\"path\\\": \\\"a\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\".txt\\\", \\\"content\\\": \\\"unterminated\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c2\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
    "data: [DONE]\n\n";
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1",
                                                    NULL, NULL);
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;

  tp_request_init (&req, "m", NULL, NULL);
  turn = tp_stream_all_splits (provider, &req, wire, NULL);
  g_assert_cmpuint (turn->tool_calls->len, ==, 2);
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->id, ==, "c1");
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->arguments, ==,
                   "{\"path\": \"a.txt\", \"content\": \"unterminated");
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[1])->id, ==, "c2");
  /* A truncated call keeps "length": the engine explains it to the model. */
  g_assert_cmpstr (turn->finish_reason, ==, "length");
  g_assert_false (turn->has_usage);
}

static void
test_stream_failures (void)
{
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1",
                                                    NULL, NULL);
  OwModelRequest req;

  tp_request_init (&req, "m", NULL, NULL);

  /* A mid-stream error object: classified, with what came before kept. */
  {
    static const char *const wire =
      "data: {\"choices\":[{\"delta\":{\"content\":\"Partial an\"}}]}\n\n"
      "data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\",\"code\":null}}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"never read\"}}]}\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = NULL;
    TpDeltas deltas;

    tp_deltas_init (&deltas);
    turn = tp_stream (provider, &req, wire, 5, 0, &deltas, &partial, &error);
    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_SERVER);
    g_assert_true (ow_provider_error_is_transient (error));
    g_assert_nonnull (partial);
    g_assert_cmpstr (partial->text->str, ==, "Partial an");
    g_assert_cmpstr (deltas.text->str, ==, "Partial an");
    tp_deltas_clear (&deltas);
  }

  /* Overloaded, OpenRouter style (an error inside a chunk with choices). */
  {
    static const char *const wire =
      "data: {\"error\":{\"code\":502,\"message\":\"Upstream provider overloaded\"}}\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_OVERLOADED);
  }

  /* No [DONE]: cut off, and the text so far is the partial turn. */
  {
    static const char *const wire =
      "data: {\"choices\":[{\"delta\":{\"content\":\"Half of the \"}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"answer\"}}]}\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 3, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CUT_OFF);
    g_assert_true (ow_provider_error_is_transient (error));
    g_assert_nonnull (partial);
    g_assert_false (partial->complete);
    g_assert_cmpstr (partial->text->str, ==, "Half of the answer");
  }

  /* A complete reply with nothing in it. */
  {
    static const char *const wire =
      "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) partial = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, &partial, &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_EMPTY_REPLY);
    g_assert_true (ow_provider_error_is_transient (error));
    g_assert_nonnull (partial);
  }

  /* …unless the output limit ended it: the engine decides. */
  {
    static const char *const wire =
      "data: {\"choices\":[{\"delta\":{\"reasoning\":\"thinking hard\"},\"finish_reason\":\"length\"}]}\n\n"
      "data: [DONE]\n\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, wire, 0, 0, NULL, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (turn->finish_reason, ==, "length");
    g_assert_cmpstr (turn->reasoning->str, ==, "thinking hard");
  }

  /* Garbage where JSON belongs. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(OwTurn) turn = tp_stream (provider, &req, "data: {not json\n\n", 0, 0, NULL, NULL,
                                        &error);

    g_assert_null (turn);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL);
  }
}

/* ---- Whole replies -------------------------------------------------------- */

static void
test_parse (void)
{
  static const char *const body =
    "{\"id\":\"chatcmpl-abc\",\"object\":\"chat.completion\",\"model\":\"gpt-x\","
    " \"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"Think.\","
    "   \"tool_calls\":[{\"id\":\"call_9\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}},"
    "                   {\"id\":\"call_10\",\"type\":\"function\",\"function\":{\"name\":\"run_shell\",\"arguments\":{\"command\":\"pwd\"}}}]},"
    "   \"finish_reason\":\"tool_calls\"}],"
    " \"usage\":{\"prompt_tokens\":100,\"completion_tokens\":7,\"prompt_cache_hit_tokens\":60,\"prompt_cache_miss_tokens\":40}}";
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1",
                                                    NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTurn) turn = NULL;
  OwModelRequest req;

  tp_request_init (&req, "m", NULL, NULL);
  req.stream = FALSE;
  turn = tp_parse (provider, &req, body, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (turn->complete);
  g_assert_cmpstr (turn->text->str, ==, "");
  g_assert_cmpstr (turn->reasoning->str, ==, "Think.");
  g_assert_cmpuint (turn->tool_calls->len, ==, 2);
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[0])->arguments, ==,
                   "{\"path\":\"a.txt\"}");
  g_assert_cmpstr (((OwToolCall *) turn->tool_calls->pdata[1])->arguments, ==,
                   "{\"command\":\"pwd\"}");
  g_assert_cmpstr (turn->finish_reason, ==, "tool_calls");
  /* DeepSeek's cache fields. */
  g_assert_cmpint (turn->usage.input, ==, 40);
  g_assert_cmpint (turn->usage.cache_read, ==, 60);
  g_assert_cmpint (turn->usage.output, ==, 7);

  /* A refusal is not an empty reply. */
  {
    static const char *const refused =
      "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null,\"refusal\":\"I can't help with that.\"},\"finish_reason\":\"stop\"}]}";
    g_autoptr(GError) refusal_error = NULL;
    g_autoptr(OwTurn) none = tp_parse (provider, &req, refused, NULL, &refusal_error);

    g_assert_null (none);
    g_assert_error (refusal_error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REFUSED);
    g_assert_nonnull (strstr (refusal_error->message, "I can't help with that."));
  }

  /* An error object in a 200 body (OpenRouter does this). */
  {
    g_autoptr(GError) body_error = NULL;
    g_autoptr(OwTurn) none = tp_parse (provider, &req,
                                       "{\"error\":{\"code\":429,\"message\":\"Rate limit exceeded: free-models-per-min\"}}",
                                       NULL, &body_error);
    g_assert_null (none);
    g_assert_error (body_error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_RATE_LIMITED);
  }

  /* Not JSON at all. */
  {
    g_autoptr(GError) body_error = NULL;
    g_autoptr(OwTurn) none = tp_parse (provider, &req, "<html>502 Bad Gateway</html>", NULL,
                                       &body_error);
    g_assert_null (none);
    g_assert_error (body_error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL);
  }
}

/* ---- Parameter fixes ------------------------------------------------------ */

static void
test_param_fix (void)
{
  g_autoptr(JsonArray) history = tp_history ();
  g_autoptr(JsonArray) tools = tp_tools ();
  g_autoptr(OwProvider) provider = tp_provider_new (OW_WIRE_OPENAI_CHAT, "http://127.0.0.1:9/v1",
                                                    NULL, NULL);
  g_autoptr(OwHttpRequest) http = NULL;
  g_autoptr(GError) error = NULL;
  OwProviderCall *call;
  OwModelRequest req;
  JsonNode *body;

  tp_request_init (&req, "gpt-5.6-sol", history, tools);
  req.reasoning_effort = "medium";
  call = tp_build (provider, &req);

  /* Not a parameter complaint, or not a 400: nothing to fix. */
  g_assert_false (ow_provider_call_fix_params (call, 400,
                                               "{\"error\":{\"message\":\"Missing required parameter: 'messages[0].content'.\"}}"));
  g_assert_false (ow_provider_call_fix_params (call, 500,
                                               "{\"error\":{\"message\":\"Unsupported parameter: 'temperature'\"}}"));

  /* 1: max_tokens → max_completion_tokens. */
  g_assert_true (ow_provider_call_fix_params (call, 400,
                                              "{\"error\":{\"message\":\"Unsupported parameter: 'max_tokens' is not supported with "
                                              "this model. Use 'max_completion_tokens' instead.\",\"type\":\"invalid_request_error\","
                                              "\"param\":\"max_tokens\",\"code\":\"unsupported_parameter\"}}"));
  g_clear_pointer (&http, ow_http_request_unref);
  http = ow_provider_call_build (call, &error);
  g_assert_no_error (error);
  body = ow_provider_call_get_body (call);
  g_assert_false (tp_path_exists (body, "$.max_tokens"));
  g_assert_cmpint (tp_path_int (body, "$.max_completion_tokens"), ==, 32000);

  /* 2: a server that knows no stream_options. */
  g_assert_true (ow_provider_call_fix_params (call, 400,
                                              "{\"object\":\"error\",\"message\":\"stream_options: Extra inputs are not permitted\","
                                              "\"type\":\"BadRequestError\",\"code\":400}"));
  g_clear_pointer (&http, ow_http_request_unref);
  http = ow_provider_call_build (call, &error);
  body = ow_provider_call_get_body (call);
  g_assert_false (tp_path_exists (body, "$.stream_options"));
  g_assert_true (tp_path_exists (body, "$.max_completion_tokens"));

  /* 3: effort with function tools. */
  g_assert_true (ow_provider_call_fix_params (call, 400,
                                              "{\"error\":{\"message\":\"Function tools with reasoning_effort are not supported for "
                                              "gpt-5.6-sol in /v1/chat/completions.\"}}"));
  g_clear_pointer (&http, ow_http_request_unref);
  http = ow_provider_call_build (call, &error);
  body = ow_provider_call_get_body (call);
  tp_assert_path_string (body, "$.reasoning_effort", "none");
  g_assert_false (tp_path_exists (body, "$.stream_options"));

  /* Three is the limit per call. */
  g_assert_false (ow_provider_call_fix_params (call, 400,
                                               "{\"error\":{\"message\":\"Unsupported value: 'temperature' does not support 0.2\"}}"));
  ow_provider_call_free (call);

  /* A limit over what the server allows is dropped; an unsupported value
   * drops that member. */
  tp_request_init (&req, "m", history, NULL);
  req.temperature = 0.2;
  call = tp_build (provider, &req);
  g_assert_true (ow_provider_call_fix_params (call, 400,
                                              "{\"object\":\"error\",\"message\":\"'max_tokens' or 'max_completion_tokens' is too large: "
                                              "32000. This model's maximum context length is 32768 tokens\",\"code\":400}"));
  g_assert_true (ow_provider_call_fix_params (call, 422,
                                              "{\"error\":{\"message\":\"Unsupported value: 'temperature' does not support 0.2 with this "
                                              "model. Only the default (1) value is supported.\"}}"));
  g_clear_pointer (&http, ow_http_request_unref);
  http = ow_provider_call_build (call, &error);
  body = ow_provider_call_get_body (call);
  g_assert_false (tp_path_exists (body, "$.max_tokens"));
  g_assert_false (tp_path_exists (body, "$.temperature"));
  tp_assert_path_string (body, "$.model", "m");
  /* Once dropped, the same complaint changes nothing. */
  g_assert_false (ow_provider_call_fix_params (call, 400,
                                               "{\"error\":{\"message\":\"Unsupported value: 'temperature' does not support 0.2\"}}"));
  ow_provider_call_free (call);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/providers/openai-chat/request-body", test_request_body);
  g_test_add_func ("/ow/providers/openai-chat/request-settings", test_request_settings);
  g_test_add_func ("/ow/providers/openai-chat/request-openrouter", test_request_openrouter);
  g_test_add_func ("/ow/providers/openai-chat/stream-tools", test_stream_tools);
  g_test_add_func ("/ow/providers/openai-chat/stream-mangled-unindexed",
                   test_stream_mangled_and_unindexed);
  g_test_add_func ("/ow/providers/openai-chat/stream-failures", test_stream_failures);
  g_test_add_func ("/ow/providers/openai-chat/parse", test_parse);
  g_test_add_func ("/ow/providers/openai-chat/param-fix", test_param_fix);

  return g_test_run ();
}
