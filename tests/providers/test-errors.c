/* test-errors.c: error classification, messages and Retry-After.
 *
 * Every class from realistic bodies of every shape the providers use
 * (OpenAI, Anthropic, Gemini, Ollama, vLLM, llama.cpp, OpenRouter,
 * DeepSeek, plain text from a proxy), the actionable messages, credential
 * redaction, which classes are transient, and Retry-After in all its
 * spellings.
 */
#include "provider-test-util.h"

#include <string.h>

#include "ow-error.h"
#include "ow-redact.h"

typedef struct {
  const char *what;       /* names the case in a failure */
  const char *title;      /* the provider's title */
  const char *key_env;    /* its key variable, NULL for keyless servers */
  const char *model;      /* the model the call named */
  guint       status;     /* the HTTP status */
  const char *body;       /* the error body as the server sent it */
  int         code;       /* expected OwProviderError */
  const char *contains;   /* expected in the message, or NULL */
} Case;

static const Case cases[] = {
  /* OpenAI */
  { "openai bad key", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 401,
    "{\"error\":{\"message\":\"Incorrect API key provided: sk-scrip*********1234. You can find your API key at "
    "https://platform.openai.com/account/api-keys.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}",
    OW_PROVIDER_ERROR_AUTH, "Set a valid key in OPENAI_API_KEY." },
  { "openai quota on 429", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 429,
    "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\","
    "\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}",
    OW_PROVIDER_ERROR_QUOTA, "out of quota for gpt-5.6-sol" },
  { "openai rate limit", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 429,
    "{\"error\":{\"message\":\"Rate limit reached for gpt-5.6-sol in organization org-x on requests per min (RPM): "
    "Limit 3, Used 3, Requested 1. Please try again in 20s.\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}",
    OW_PROVIDER_ERROR_RATE_LIMITED, "rate-limiting" },
  { "openai no model", "OpenAI", "OPENAI_API_KEY", "gpt-9", 404,
    "{\"error\":{\"message\":\"The model `gpt-9` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\","
    "\"param\":null,\"code\":\"model_not_found\"}}",
    OW_PROVIDER_ERROR_MODEL_NOT_FOUND, "doesn't have access to gpt-9" },
  { "openai overflow", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 400,
    "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 "
    "tokens. Please reduce the length of the messages.\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
    "\"code\":\"context_length_exceeded\"}}",
    OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, "context window" },
  { "openai bad request", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 400,
    "{\"error\":{\"message\":\"Missing required parameter: 'messages[1].content'.\",\"type\":\"invalid_request_error\","
    "\"param\":\"messages[1].content\",\"code\":\"missing_required_parameter\"}}",
    OW_PROVIDER_ERROR_BAD_REQUEST, "Missing required parameter" },
  { "openai region", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 403,
    "{\"error\":{\"message\":\"Country, region, or territory not supported\",\"type\":\"request_forbidden\","
    "\"param\":null,\"code\":\"unsupported_country_region_territory\"}}",
    OW_PROVIDER_ERROR_REGION, "does not serve requests from this country or region" },
  { "openai server", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 500,
    "{\"error\":{\"message\":\"The server had an error while processing your request. Sorry about that!\",\"type\":\"server_error\"}}",
    OW_PROVIDER_ERROR_SERVER, "Retry" },
  { "openai overloaded", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 503,
    "{\"error\":{\"message\":\"The server is overloaded or not ready yet.\",\"type\":\"server_error\"}}",
    OW_PROVIDER_ERROR_OVERLOADED, "overloaded" },
  { "openai policy", "OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 400,
    "{\"error\":{\"message\":\"Your request was rejected as a result of our safety system.\",\"type\":\"invalid_request_error\","
    "\"code\":\"content_policy_violation\"}}",
    OW_PROVIDER_ERROR_REFUSED, "safety" },
  { "openai timeout 408", "OpenAI", "OPENAI_API_KEY", "m", 408, "", OW_PROVIDER_ERROR_SERVER, NULL },
  { "openai conflict 409", "OpenAI", "OPENAI_API_KEY", "m", 409, "{}", OW_PROVIDER_ERROR_SERVER, NULL },

  /* Anthropic */
  { "anthropic bad key", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 401,
    "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"},\"request_id\":\"req_1\"}",
    OW_PROVIDER_ERROR_AUTH, "Set a valid key in ANTHROPIC_API_KEY." },
  { "anthropic credit", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 400,
    "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"Your credit balance is too low to access "
    "the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.\"}}",
    OW_PROVIDER_ERROR_QUOTA, NULL },
  { "anthropic spend limit on 429", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 429,
    "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"You have reached your specified API usage limits.\","
    "\"details\":{\"error_code\":\"enforced_spend_limit_reached\"}}}",
    OW_PROVIDER_ERROR_QUOTA, NULL },
  { "anthropic rate limit", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 429,
    "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of request tokens has exceeded your "
    "per-minute rate limit\"}}",
    OW_PROVIDER_ERROR_RATE_LIMITED, NULL },
  { "anthropic overloaded", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 529,
    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
    OW_PROVIDER_ERROR_OVERLOADED, "HTTP 529: Overloaded" },
  { "anthropic no model", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-nope", 404,
    "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"model: claude-nope\"}}",
    OW_PROVIDER_ERROR_MODEL_NOT_FOUND, NULL },
  { "anthropic overflow", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 400,
    "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 208163 tokens > 200000 maximum\"}}",
    OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, NULL },
  { "anthropic overflow with max_tokens", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 400,
    "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"input length and `max_tokens` exceed "
    "context limit: 190000 + 32000 > 200000, decrease input length or `max_tokens` and try again\"}}",
    OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, NULL },
  { "anthropic permission", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 403,
    "{\"type\":\"error\",\"error\":{\"type\":\"permission_error\",\"message\":\"Your API key does not have permission to use "
    "the specified resource.\"}}",
    OW_PROVIDER_ERROR_AUTH, NULL },
  { "anthropic model permission", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-opus-4-8", 403,
    "{\"type\":\"error\",\"error\":{\"type\":\"permission_error\",\"message\":\"Your organization does not have access to "
    "model claude-opus-4-8.\"}}",
    OW_PROVIDER_ERROR_MODEL_NOT_FOUND, NULL },
  { "anthropic billing 402", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 402,
    "{\"type\":\"error\",\"error\":{\"type\":\"billing_error\",\"message\":\"Payment failed.\"}}",
    OW_PROVIDER_ERROR_QUOTA, NULL },
  { "anthropic too large", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 413,
    "{\"type\":\"error\",\"error\":{\"type\":\"request_too_large\",\"message\":\"Request exceeds the maximum allowed number of bytes.\"}}",
    OW_PROVIDER_ERROR_BAD_REQUEST, NULL },
  { "anthropic api error", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 500,
    "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}",
    OW_PROVIDER_ERROR_SERVER, NULL },
  { "anthropic gateway timeout", "Claude (Anthropic)", "ANTHROPIC_API_KEY", "claude-sonnet-4-6", 504,
    "{\"type\":\"error\",\"error\":{\"type\":\"timeout_error\",\"message\":\"Request timed out\"}}",
    OW_PROVIDER_ERROR_SERVER, NULL },

  /* Gemini */
  { "gemini bad key on 400", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 400,
    "{\"error\":{\"code\":400,\"message\":\"API key not valid. Please pass a valid API key.\",\"status\":\"INVALID_ARGUMENT\","
    "\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"API_KEY_INVALID\"}]}}",
    OW_PROVIDER_ERROR_AUTH, "GEMINI_API_KEY" },
  { "gemini rate limit", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 429,
    "{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\",\"status\":\"RESOURCE_EXHAUSTED\"}}",
    OW_PROVIDER_ERROR_RATE_LIMITED, NULL },
  { "gemini per-minute quota with RetryInfo", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 429,
    "{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your plan and billing details.\","
    "\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\"},"
    "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"30s\"}]}}",
    OW_PROVIDER_ERROR_RATE_LIMITED, NULL },
  { "gemini quota", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 429,
    "{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your plan and billing details.\","
    "\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\"}]}}",
    OW_PROVIDER_ERROR_QUOTA, NULL },
  { "gemini no model", "Gemini (Google)", "GEMINI_API_KEY", "gemini-9", 404,
    "{\"error\":{\"code\":404,\"message\":\"models/gemini-9 is not found for API version v1beta, or is not supported for "
    "generateContent.\",\"status\":\"NOT_FOUND\"}}",
    OW_PROVIDER_ERROR_MODEL_NOT_FOUND, NULL },
  { "gemini overflow", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 400,
    "{\"error\":{\"code\":400,\"message\":\"The input token count (1196265) exceeds the maximum number of tokens allowed "
    "(1048575).\",\"status\":\"INVALID_ARGUMENT\"}}",
    OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, NULL },
  { "gemini permission", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 403,
    "{\"error\":{\"code\":403,\"message\":\"The caller does not have permission\",\"status\":\"PERMISSION_DENIED\"}}",
    OW_PROVIDER_ERROR_AUTH, NULL },
  { "gemini location", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 400,
    "{\"error\":{\"code\":400,\"message\":\"User location is not supported for the API use.\","
    "\"status\":\"FAILED_PRECONDITION\"}}",
    OW_PROVIDER_ERROR_REGION, "retrying will not help" },
  { "gemini overloaded", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 503,
    "[{\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}]",
    OW_PROVIDER_ERROR_OVERLOADED, "The model is overloaded" },
  { "gemini internal", "Gemini (Google)", "GEMINI_API_KEY", "gemini-3.6-flash", 500,
    "{\"error\":{\"code\":500,\"message\":\"An internal error has occurred.\",\"status\":\"INTERNAL\"}}",
    OW_PROVIDER_ERROR_SERVER, NULL },

  /* Ollama (keyless) */
  { "ollama no model", "Ollama", NULL, "qwen3:8b", 404,
    "{\"error\":\"model \\\"qwen3:8b\\\" not found, try pulling it first\"}",
    OW_PROVIDER_ERROR_MODEL_NOT_FOUND, "try pulling it first" },
  { "ollama unauthorized", "Ollama", NULL, "qwen3:8b", 401, "{\"error\":\"unauthorized\"}",
    OW_PROVIDER_ERROR_AUTH, "access settings" },
  { "ollama runner died", "Ollama", NULL, "qwen3:8b", 500,
    "{\"error\":\"llama runner process has terminated: exit status 2\"}", OW_PROVIDER_ERROR_SERVER, NULL },
  { "ollama overflow", "Ollama", NULL, "qwen3:8b", 400,
    "{\"error\":\"the input length exceeds the context length\"}", OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, NULL },
  { "ollama cloud credits", "Ollama", NULL, "qwen3:8b", 429,
    "{\"error\":\"insufficient credits: you have reached your usage limit\"}", OW_PROVIDER_ERROR_QUOTA, NULL },

  /* vLLM, both error shapes */
  { "vllm overflow", "vLLM", "VLLM_API_KEY", "nvidia/X", 400,
    "{\"object\":\"error\",\"message\":\"This model's maximum context length is 32768 tokens. However, you requested 40000 "
    "tokens (8000 in the messages, 32000 in the completion).\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}",
    OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, NULL },
  { "vllm tool parser", "vLLM", "VLLM_API_KEY", "nvidia/X", 400,
    "{\"error\":{\"message\":\"\\\"auto\\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set\","
    "\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}",
    OW_PROVIDER_ERROR_BAD_REQUEST, "--enable-auto-tool-choice" },
  { "vllm no model", "vLLM", "VLLM_API_KEY", "nvidia/Y", 404,
    "{\"object\":\"error\",\"message\":\"The model `nvidia/Y` does not exist.\",\"type\":\"NotFoundError\",\"param\":null,\"code\":404}",
    OW_PROVIDER_ERROR_MODEL_NOT_FOUND, NULL },
  { "vllm bad key", "vLLM", "VLLM_API_KEY", "nvidia/X", 401, "{\"error\":\"Unauthorized\"}",
    OW_PROVIDER_ERROR_AUTH, "Set a valid key in VLLM_API_KEY." },

  /* llama.cpp */
  { "llama.cpp overflow", "llama.cpp", "LLAMACPP_API_KEY", "my-model", 400,
    "{\"error\":{\"code\":400,\"message\":\"the request exceeds the available context size, try increasing it\","
    "\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":9000,\"n_ctx\":8192}}",
    OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, NULL },
  { "llama.cpp loading", "llama.cpp", "LLAMACPP_API_KEY", "my-model", 503,
    "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}",
    OW_PROVIDER_ERROR_SERVER, NULL },
  { "llama.cpp bad key", "llama.cpp", "LLAMACPP_API_KEY", "my-model", 401,
    "{\"error\":{\"code\":401,\"message\":\"Invalid API Key\",\"type\":\"authentication_error\"}}",
    OW_PROVIDER_ERROR_AUTH, "LLAMACPP_API_KEY" },

  /* Resellers and compatible services */
  { "openrouter credits", "OpenRouter", "OPENROUTER_API_KEY", "z-ai/glm-5.2", 402,
    "{\"error\":{\"code\":402,\"message\":\"This request requires more credits, or fewer max_tokens. You requested up to "
    "32000 tokens, but can only afford 1000.\"}}",
    OW_PROVIDER_ERROR_QUOTA, NULL },
  { "openrouter rate limit", "OpenRouter", "OPENROUTER_API_KEY", "z-ai/glm-5.2", 429,
    "{\"error\":{\"code\":429,\"message\":\"Rate limit exceeded: free-models-per-day\"}}",
    OW_PROVIDER_ERROR_RATE_LIMITED, NULL },
  { "deepseek balance", "DeepSeek", "DEEPSEEK_API_KEY", "deepseek-v4-flash", 402,
    "{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,\"code\":\"invalid_request_error\"}}",
    OW_PROVIDER_ERROR_QUOTA, NULL },
  { "deepseek overflow", "DeepSeek", "DEEPSEEK_API_KEY", "deepseek-v4-flash", 400,
    "{\"error\":{\"message\":\"This model's maximum context length is 131072 tokens. However, you requested 140000 tokens.\","
    "\"type\":\"invalid_request_error\",\"code\":\"invalid_request_error\"}}",
    OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, NULL },

  /* Not JSON */
  { "proxy html", "OpenAI", "OPENAI_API_KEY", "m", 502,
    "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body>\n</html>",
    OW_PROVIDER_ERROR_SERVER, "502 Bad Gateway" },
  { "wrong base url", "vLLM", "VLLM_API_KEY", "m", 404, "404 page not found",
    OW_PROVIDER_ERROR_BAD_REQUEST, "base URL" },
  { "empty 418", "vLLM", "VLLM_API_KEY", "m", 418, "", OW_PROVIDER_ERROR_BAD_REQUEST, "no details" },
};

static void
test_classify_table (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      g_autoptr(GError) error = ow_provider_classify_http_error (c->title, c->key_env, c->model,
                                                                 c->status, c->body);

      g_test_message ("case: %s", c->what);
      g_assert_nonnull (error);
      if (error->domain != OW_PROVIDER_ERROR || error->code != c->code)
        g_error ("case \"%s\": expected code %d, got %d: %s", c->what, c->code, error->code,
                 error->message);
      if (c->contains != NULL && strstr (error->message, c->contains) == NULL)
        g_error ("case \"%s\": \"%s\" not in \"%s\"", c->what, c->contains, error->message);
      /* Messages are single sentences a person can act on, never JSON. */
      g_assert_null (strchr (error->message, '\n'));
      g_assert_null (strstr (error->message, "{\""));
    }
}

static void
test_messages (void)
{
  g_autoptr(GError) error = NULL;

  /* The exact wording of the key message. */
  error = ow_provider_classify_http_error ("OpenAI", "OPENAI_API_KEY", "gpt-5.6-sol", 401,
                                           "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":"
                                           "\"invalid_request_error\",\"code\":\"invalid_api_key\"}}");
  g_assert_cmpstr (error->message, ==,
                   "The OpenAI API key was rejected (HTTP 401: Incorrect API key provided). "
                   "Set a valid key in OPENAI_API_KEY.");
  g_clear_error (&error);

  /* A key the server echoes never reaches the message. */
  ow_redact_register_secret ("sk-live-abcdef0123456789");
  error = ow_provider_classify_http_error ("OpenAI", "OPENAI_API_KEY", "m", 401,
                                           "{\"error\":{\"message\":\"Incorrect API key provided: sk-live-abcdef0123456789\"}}");
  g_assert_null (strstr (error->message, "abcdef0123456789"));
  g_assert_nonnull (strstr (error->message, "[redacted]"));
  g_clear_error (&error);

  /* Long server text is cut. */
  {
    g_autoptr(GString) big = g_string_new ("{\"error\":{\"message\":\"");
    for (int i = 0; i < 200; i++)
      g_string_append (big, "word ");
    g_string_append (big, "\"}}");
    error = ow_provider_classify_http_error ("X", "X_API_KEY", "m", 400, big->str);
    g_assert_cmpuint (strlen (error->message), <, 500);
    g_assert_nonnull (strstr (error->message, "…"));
    g_clear_error (&error);
  }

  /* A body that is not UTF-8 (a proxy's, say) still classifies. */
  error = ow_provider_classify_http_error ("X", "X_API_KEY", "m", 502,
                                           "\xff\xfe Bad \xf0 gateway \xc3");
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_SERVER);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_clear_error (&error);

  /* In-stream errors (status 0) quote no HTTP status. */
  error = ow_provider_classify ("Claude (Anthropic)", "ANTHROPIC_API_KEY", "m", 0,
                                "overloaded_error", "Overloaded", NULL);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_OVERLOADED);
  g_assert_null (strstr (error->message, "HTTP"));
  g_clear_error (&error);
  error = ow_provider_classify ("X", NULL, "m", 0, "something_odd", "Unexpected failure", NULL);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_SERVER);
  g_clear_error (&error);

  /* The region refusal inside a stream is no server failure (which would
   * be retried), and its message never sends the person to their key. */
  error = ow_provider_classify ("OpenAI", "OPENAI_API_KEY", "m", 0,
                                "unsupported_country_region_territory",
                                "Country, region, or territory not supported", NULL);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REGION);
  g_assert_false (ow_provider_error_is_transient (error));
  g_assert_null (strstr (error->message, "OPENAI_API_KEY"));
  g_assert_null (strstr (error->message, "HTTP"));
}

static void
test_transient (void)
{
  static const struct { int code; gboolean transient; } table[] = {
    { OW_PROVIDER_ERROR_FAILED, FALSE },
    { OW_PROVIDER_ERROR_AUTH, FALSE },
    { OW_PROVIDER_ERROR_MODEL_NOT_FOUND, FALSE },
    { OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, FALSE },
    { OW_PROVIDER_ERROR_QUOTA, FALSE },
    { OW_PROVIDER_ERROR_BAD_REQUEST, FALSE },
    { OW_PROVIDER_ERROR_REFUSED, FALSE },
    { OW_PROVIDER_ERROR_RATE_LIMITED, TRUE },
    { OW_PROVIDER_ERROR_OVERLOADED, TRUE },
    { OW_PROVIDER_ERROR_SERVER, TRUE },
    { OW_PROVIDER_ERROR_CONNECTION, TRUE },
    { OW_PROVIDER_ERROR_CUT_OFF, TRUE },
    { OW_PROVIDER_ERROR_EMPTY_REPLY, TRUE },
    { OW_PROVIDER_ERROR_PROTOCOL, TRUE },
    { OW_PROVIDER_ERROR_NO_KEY, FALSE },
    { OW_PROVIDER_ERROR_UNKNOWN_PROVIDER, FALSE },
    { OW_PROVIDER_ERROR_REGION, FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_autoptr(GError) error = g_error_new_literal (OW_PROVIDER_ERROR, table[i].code, "x");
      g_assert_cmpint (ow_provider_error_is_transient (error), ==, table[i].transient);
    }
  {
    g_autoptr(GError) cancelled = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "x");
    g_autoptr(GError) net = g_error_new_literal (OW_NET_ERROR, OW_NET_ERROR_CONNECT, "x");
    g_assert_false (ow_provider_error_is_transient (cancelled));
    g_assert_false (ow_provider_error_is_transient (net));
    g_assert_false (ow_provider_error_is_transient (NULL));
  }
}

static void
test_retry_after (void)
{
  /* 2026-01-01T00:00:00Z */
  const gint64 now_s = 1767225600;
  const gint64 now_us = now_s * G_USEC_PER_SEC;
  static const char *const gemini =
    "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"message\":\"x\",\"details\":["
    "{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\"},"
    "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"30s\"}]}}";

  g_assert_cmpint (ow_provider_parse_retry_after ("1500", NULL, NULL, now_us), ==, 1500);
  g_assert_cmpint (ow_provider_parse_retry_after ("250.4", "9", NULL, now_us), ==, 250);
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, "20", NULL, now_us), ==, 20000);
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, " 1.5 ", NULL, now_us), ==, 1500);
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, "Thu, 01 Jan 2026 00:00:30 GMT", NULL,
                                                  now_us), ==, 30000);
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, "Thursday, 01-Jan-26 00:01:00 GMT", NULL,
                                                  now_us), ==, 60000);
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, "Thu Jan  1 00:00:05 2026", NULL, now_us),
                   ==, 5000);
  /* A date in the past means now. */
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, "Wed, 31 Dec 2025 23:59:00 GMT", NULL,
                                                  now_us), ==, 0);
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, NULL, gemini, now_us), ==, 30000);
  /* Headers first. */
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, "2", gemini, now_us), ==, 2000);
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, NULL,
                                                  "{\"error\":{\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\","
                                                  "\"retryDelay\":{\"seconds\":2,\"nanos\":500000000}}]}}", now_us), ==, 2500);
  /* Nothing usable. */
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, NULL, NULL, now_us), ==, -1);
  g_assert_cmpint (ow_provider_parse_retry_after ("soon", "later", "{\"error\":{}}", now_us), ==,
                   -1);
  g_assert_cmpint (ow_provider_parse_retry_after (NULL, "-5", NULL, now_us), ==, -1);

  g_assert_cmpint (ow_duration_parse_ms ("0.5s"), ==, 500);
  g_assert_cmpint (ow_duration_parse_ms ("12s"), ==, 12000);
  g_assert_cmpint (ow_duration_parse_ms ("12"), ==, -1);
  g_assert_cmpint (ow_http_date_parse ("Sun, 06 Nov 1994 08:49:37 GMT"), ==, 784111777);
  g_assert_cmpint (ow_http_date_parse ("Sunday, 06-Nov-94 08:49:37 GMT"), ==, 784111777);
  g_assert_cmpint (ow_http_date_parse ("Sun Nov  6 08:49:37 1994"), ==, 784111777);
  g_assert_cmpint (ow_http_date_parse ("06 Nov 1994"), ==, -1);
  g_assert_cmpint (ow_http_date_parse ("Sun, 06 Foo 1994 08:49:37 GMT"), ==, -1);
}

static void
test_error_body (void)
{
  static const struct { const char *body; const char *type; const char *message; } table[] = {
    { "{\"error\":{\"message\":\"m1\",\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\"}}",
      "context_length_exceeded", "m1" },
    { "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", "overloaded_error", "Overloaded" },
    { "{\"error\":{\"code\":429,\"message\":\"m3\",\"status\":\"RESOURCE_EXHAUSTED\"}}", "RESOURCE_EXHAUSTED", "m3" },
    { "{\"error\":\"model not found\"}", NULL, "model not found" },
    { "{\"object\":\"error\",\"message\":\"m5\",\"type\":\"BadRequestError\",\"code\":400}", "BadRequestError", "m5" },
    { "{\"detail\":\"Not authenticated\"}", NULL, "Not authenticated" },
    { "plain\n  text   body", NULL, "plain text body" },
    { "", NULL, NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    {
      OwErrorBody err;

      ow_error_body_parse (table[i].body, &err);
      g_assert_cmpstr (err.type, ==, table[i].type);
      g_assert_cmpstr (err.message, ==, table[i].message);
      ow_error_body_clear (&err);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/providers/errors/classify-table", test_classify_table);
  g_test_add_func ("/ow/providers/errors/messages", test_messages);
  g_test_add_func ("/ow/providers/errors/transient", test_transient);
  g_test_add_func ("/ow/providers/errors/retry-after", test_retry_after);
  g_test_add_func ("/ow/providers/errors/error-body", test_error_body);

  return g_test_run ();
}
