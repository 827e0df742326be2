/* test-catalog.c: the provider catalog (resources/providers.json).
 *
 * Every provider the product lists is present with a sane entry, ids and
 * aliases are unique, model ids split by the documented rules, and
 * providers are built with the key and base URL an explicit environment
 * gives — including the NO_KEY message naming the variable to set.
 */
#include "provider-test-util.h"

#include <string.h>

#include "ow-error.h"
#include "ow-redact.h"
#include "providers/ow-provider-catalog.h"

/* The product's list (README "Bring your own model", inventory §4.3 and
 * §13.7), with each one's wire. */
static const struct {
  const char *id;      /* catalog id */
  OwWireStyle wire;    /* its default wire */
  const char *group;   /* its Settings group */
} listed[] = {
  { "openai", OW_WIRE_OPENAI_RESPONSES, "cloud" },
  { "anthropic", OW_WIRE_ANTHROPIC, "cloud" },
  { "gemini", OW_WIRE_GEMINI, "cloud" },
  { "ark", OW_WIRE_OPENAI_RESPONSES, "cloud" },
  { "ark-agent-plan-cn", OW_WIRE_OPENAI_RESPONSES, "cloud" },
  { "inkling", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "zai", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "deepseek", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "kimi", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "qwen", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "minimax", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "mistral", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "xai", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "meta", OW_WIRE_OPENAI_CHAT, "cloud" },
  { "together", OW_WIRE_OPENAI_CHAT, "reseller" },
  { "fireworks", OW_WIRE_OPENAI_CHAT, "reseller" },
  { "openrouter", OW_WIRE_OPENAI_CHAT, "reseller" },
  { "ollama", OW_WIRE_OLLAMA, "local" },
  { "llamacpp", OW_WIRE_OPENAI_CHAT, "local" },
  { "vllm", OW_WIRE_OPENAI_CHAT, "local" },
};

static void
test_entries (void)
{
  const GPtrArray *entries = ow_provider_catalog_get ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  g_assert_cmpuint (entries->len, ==, G_N_ELEMENTS (listed));
  for (guint i = 0; i < entries->len; i++)
    {
      const OwProviderEntry *entry = g_ptr_array_index (entries, i);
      g_autofree char *expected_env = NULL;

      g_test_message ("entry %s", entry->id);
      g_assert_true (g_hash_table_add (seen, entry->id));
      g_assert_nonnull (entry->title);
      g_assert_true (g_str_has_prefix (entry->base_url, "https://")
                     || g_str_has_prefix (entry->base_url, "http://localhost:"));
      g_assert_false (g_str_has_suffix (entry->base_url, "/"));
      g_assert_true (g_str_equal (entry->group, "cloud") || g_str_equal (entry->group, "reseller")
                     || g_str_equal (entry->group, "local"));

      /* <ID>_BASE_URL, upper-case, '-' → '_'. */
      expected_env = g_ascii_strup (entry->id, -1);
      g_strdelimit (expected_env, "-", '_');
      {
        g_autofree char *full = g_strconcat (expected_env, "_BASE_URL", NULL);
        g_assert_cmpstr (entry->base_url_env, ==, full);
      }
      if (entry->needs_key)
        {
          g_assert_nonnull (entry->key_env);
          g_assert_true (g_str_has_suffix (entry->key_env, "_API_KEY"));
          g_assert_nonnull (entry->recommended_model);
        }
    }

  for (gsize i = 0; i < G_N_ELEMENTS (listed); i++)
    {
      const OwProviderEntry *entry = ow_provider_catalog_lookup (listed[i].id);

      g_test_message ("listed %s", listed[i].id);
      g_assert_nonnull (entry);
      g_assert_cmpstr (entry->id, ==, listed[i].id);
      g_assert_cmpint (entry->wire, ==, listed[i].wire);
      g_assert_cmpstr (entry->group, ==, listed[i].group);
    }

  /* Local servers: keyless or an optional key, fixed default addresses. */
  g_assert_false (ow_provider_catalog_lookup ("ollama")->needs_key);
  g_assert_null (ow_provider_catalog_lookup ("ollama")->key_env);
  g_assert_cmpstr (ow_provider_catalog_lookup ("ollama")->base_url, ==, "http://localhost:11434");
  g_assert_false (ow_provider_catalog_lookup ("llamacpp")->needs_key);
  g_assert_cmpstr (ow_provider_catalog_lookup ("llamacpp")->key_env, ==, "LLAMACPP_API_KEY");
  g_assert_cmpstr (ow_provider_catalog_lookup ("llamacpp")->base_url, ==,
                   "http://localhost:8080/v1");
  g_assert_false (ow_provider_catalog_lookup ("vllm")->needs_key);
  g_assert_cmpstr (ow_provider_catalog_lookup ("vllm")->key_env, ==, "VLLM_API_KEY");
  g_assert_cmpstr (ow_provider_catalog_lookup ("vllm")->base_url, ==, "http://localhost:8000/v1");
  g_assert_cmpstr (ow_provider_catalog_lookup ("kimi")->key_env, ==, "MOONSHOT_API_KEY");
  g_assert_cmpstr (ow_provider_catalog_lookup ("qwen")->key_env, ==, "DASHSCOPE_API_KEY");
  g_assert_cmpstr (ow_provider_catalog_lookup ("openai")->recommended_model, ==, "gpt-5.6-sol");
  g_assert_true (ow_json_get_bool (ow_provider_catalog_lookup ("openrouter")->quirks,
                                   "provider_routing", FALSE));

  /* Aliases, case-insensitive. */
  g_assert_cmpstr (ow_provider_catalog_lookup ("google")->id, ==, "gemini");
  g_assert_cmpstr (ow_provider_catalog_lookup ("grok")->id, ==, "xai");
  g_assert_cmpstr (ow_provider_catalog_lookup ("z.ai")->id, ==, "zai");
  g_assert_cmpstr (ow_provider_catalog_lookup ("GLM")->id, ==, "zai");
  g_assert_cmpstr (ow_provider_catalog_lookup ("moonshot")->id, ==, "kimi");
  g_assert_cmpstr (ow_provider_catalog_lookup ("llama.cpp")->id, ==, "llamacpp");
  g_assert_cmpstr (ow_provider_catalog_lookup ("Anthropic")->id, ==, "anthropic");
  g_assert_null (ow_provider_catalog_lookup ("nope"));
  g_assert_null (ow_provider_catalog_lookup (NULL));

  /* Loaded once: the same array every time. */
  g_assert_true (ow_provider_catalog_get () == entries);
}

static void
check_split (const char *model_id,
             const char *provider,
             const char *bare)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *model = NULL;
  const OwProviderEntry *entry = NULL;

  g_test_message ("split %s", model_id);
  g_assert_true (ow_model_id_split (model_id, &entry, &model, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (entry->id, ==, provider);
  g_assert_cmpstr (model, ==, bare);
}

static void
test_split (void)
{
  check_split ("anthropic:claude-sonnet-4-6", "anthropic", "claude-sonnet-4-6");
  check_split ("vllm:nvidia/NVIDIA-Nemotron-3", "vllm", "nvidia/NVIDIA-Nemotron-3");
  check_split ("ollama:qwen3-coder:30b", "ollama", "qwen3-coder:30b");
  check_split ("gpt-5.6-sol", "openai", "gpt-5.6-sol");
  check_split ("openrouter/z-ai/glm-5.2", "openrouter", "z-ai/glm-5.2");
  check_split ("together:zai-org/GLM-5.2", "together", "zai-org/GLM-5.2");
  check_split ("fireworks:accounts/fireworks/models/glm-5p2", "fireworks",
               "accounts/fireworks/models/glm-5p2");
  check_split ("ark-agent-plan-cn:doubao-seed-evolving", "ark-agent-plan-cn",
               "doubao-seed-evolving");
  check_split ("llamacpp:/models/q.gguf", "llamacpp", "/models/q.gguf");
  /* The ':' prefix is no provider but the '/' one is. */
  check_split ("openrouter/meta-llama/llama-4-maverick:free", "openrouter",
               "meta-llama/llama-4-maverick:free");
  /* Aliases and case. */
  check_split ("google:gemini-2.5-pro", "gemini", "gemini-2.5-pro");
  check_split ("grok:grok-4.3", "xai", "grok-4.3");
  check_split ("z.ai:glm-5.2", "zai", "glm-5.2");
  check_split ("llama.cpp:my-model", "llamacpp", "my-model");
  check_split ("Moonshot/kimi-k2.6", "kimi", "kimi-k2.6");
  /* A provider alone means its recommended model. */
  check_split ("anthropic:", "anthropic", "claude-fable-5");

  {
    g_autoptr(GError) error = NULL;
    const OwProviderEntry *entry = NULL;
    g_autofree char *model = NULL;

    g_assert_false (ow_model_id_split ("foo:bar", &entry, &model, &error));
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_UNKNOWN_PROVIDER);
    g_assert_nonnull (strstr (error->message, "\"foo\""));
    g_assert_nonnull (strstr (error->message, "openai"));
    g_assert_nonnull (strstr (error->message, "vllm"));
    g_assert_false (ow_provider_error_is_transient (error));
    g_assert_null (entry);
    g_assert_null (model);
    g_clear_error (&error);

    g_assert_false (ow_model_id_split ("qwen2.5-coder:32b", NULL, NULL, &error));
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_UNKNOWN_PROVIDER);
    g_clear_error (&error);

    g_assert_false (ow_model_id_split ("acme/model-x", NULL, NULL, &error));
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_UNKNOWN_PROVIDER);
    g_assert_nonnull (strstr (error->message, "\"acme\""));
    g_clear_error (&error);

    /* A local server has no model to recommend. */
    g_assert_false (ow_model_id_split ("vllm:", NULL, NULL, &error));
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_MODEL_NOT_FOUND);
  }
}

static OwProvider *
create (const char  *id,
        const char  *const *envp,
        const OwProviderOverrides *overrides,
        GError     **error)
{
  const OwProviderEntry *entry = ow_provider_catalog_lookup (id);

  g_assert_nonnull (entry);
  return ow_provider_catalog_create (entry, overrides, envp, NULL, error);
}

static void
test_create (void)
{
  static const char *const empty_env[] = { NULL };
  g_autoptr(GError) error = NULL;
  OwProvider *provider;

  /* OpenAI: the key from the environment, Responses at its own URL. */
  {
    const char *const env[] = { "OPENAI_API_KEY=sk-env-key-0123456789", "DEEPSEEK_API_KEY=", NULL };
    g_autofree char *redacted = NULL;

    provider = create ("openai", env, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (OW_IS_PROVIDER_OPENAI_RESPONSES (provider));
    g_assert_cmpint (ow_provider_get_wire_style (provider), ==, OW_WIRE_OPENAI_RESPONSES);
    g_assert_cmpstr (ow_provider_get_id (provider), ==, "openai");
    g_assert_cmpstr (ow_provider_get_title (provider), ==, "OpenAI");
    g_assert_cmpstr (ow_provider_get_api_key (provider), ==, "sk-env-key-0123456789");
    g_assert_cmpstr (ow_provider_get_key_env (provider), ==, "OPENAI_API_KEY");
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "https://api.openai.com/v1");
    g_clear_object (&provider);

    /* The key is registered for redaction. */
    redacted = ow_redact ("key=sk-env-key-0123456789 here");
    g_assert_null (strstr (redacted, "0123456789"));

    /* A key never comes from another provider's variable; an empty
     * variable is no key. */
    provider = create ("deepseek", env, NULL, &error);
    g_assert_null (provider);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY);
    g_assert_nonnull (strstr (error->message, "DEEPSEEK_API_KEY"));
    g_assert_false (ow_provider_error_is_transient (error));
    g_clear_error (&error);
  }

  /* …and Chat Completions anywhere else. */
  {
    const char *const env[] = { "OPENAI_API_KEY=sk-env-key-0123456789",
                                "OPENAI_BASE_URL=http://127.0.0.1:8000/v1/", NULL };

    provider = create ("openai", env, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpint (ow_provider_get_wire_style (provider), ==, OW_WIRE_OPENAI_CHAT);
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "http://127.0.0.1:8000/v1");
    g_clear_object (&provider);
  }

  /* No key: NO_KEY, naming the variable. */
  provider = create ("openai", empty_env, NULL, &error);
  g_assert_null (provider);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY);
  g_assert_cmpstr (error->message, ==,
                   "No OpenAI API key is configured. Set OPENAI_API_KEY, or add the key under Models & Keys "
                   "(in the browser UI's sidebar, or the desktop's Settings).");
  g_clear_error (&error);

  /* Overrides beat the environment; a forced wire is kept. */
  {
    const char *const env[] = { "ANTHROPIC_API_KEY=sk-ant-env-0123456789",
                                "ANTHROPIC_BASE_URL=https://env.example/anthropic", NULL };
    OwProviderOverrides overrides = { .base_url = "https://saved.example", .api_key = "sk-ant-saved-0123456789",
                                      .wire = "openai-chat" };

    provider = create ("anthropic", env, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (OW_IS_PROVIDER_ANTHROPIC (provider));
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "https://env.example/anthropic");
    g_assert_cmpstr (ow_provider_get_api_key (provider), ==, "sk-ant-env-0123456789");
    g_assert_cmpstr (ow_provider_get_quirk_string (provider, "anthropic_version"), ==,
                     "2023-06-01");
    g_clear_object (&provider);

    provider = create ("anthropic", env, &overrides, &error);
    g_assert_no_error (error);
    g_assert_cmpint (ow_provider_get_wire_style (provider), ==, OW_WIRE_OPENAI_CHAT);
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "https://saved.example");
    g_assert_cmpstr (ow_provider_get_api_key (provider), ==, "sk-ant-saved-0123456789");
    g_clear_object (&provider);

    overrides.wire = "carrier-pigeon";
    provider = create ("anthropic", env, &overrides, &error);
    g_assert_null (provider);
    g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_FAILED);
    g_clear_error (&error);
  }

  /* Gemini also reads GOOGLE_API_KEY. */
  {
    const char *const env[] = { "GOOGLE_API_KEY=AIzaGoogleKey0123456789", NULL };

    provider = create ("gemini", env, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (ow_provider_get_api_key (provider), ==, "AIzaGoogleKey0123456789");
    g_assert_true (OW_IS_PROVIDER_GEMINI (provider));
    g_clear_object (&provider);
  }

  /* Ollama: keyless; OLLAMA_HOST in its forms; OLLAMA_BASE_URL first. */
  {
    const char *const none[] = { NULL };
    const char *const host_port[] = { "OLLAMA_HOST=127.0.0.1:9999", NULL };
    const char *const host_only[] = { "OLLAMA_HOST=gpu-box", NULL };
    const char *const host_url[] = { "OLLAMA_HOST=https://ollama.example:443/", NULL };
    const char *const both[] = { "OLLAMA_HOST=gpu-box", "OLLAMA_BASE_URL=http://10.0.0.2:11434", NULL };

    provider = create ("ollama", none, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (OW_IS_PROVIDER_OLLAMA (provider));
    g_assert_null (ow_provider_get_api_key (provider));
    g_assert_null (ow_provider_get_key_env (provider));
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "http://localhost:11434");
    g_clear_object (&provider);

    provider = create ("ollama", host_port, NULL, &error);
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "http://127.0.0.1:9999");
    g_clear_object (&provider);
    provider = create ("ollama", host_only, NULL, &error);
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "http://gpu-box:11434");
    g_clear_object (&provider);
    provider = create ("ollama", host_url, NULL, &error);
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "https://ollama.example:443");
    g_clear_object (&provider);
    provider = create ("ollama", both, NULL, &error);
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "http://10.0.0.2:11434");
    g_clear_object (&provider);
  }

  /* llama.cpp and vLLM: optional keys, "/v1" added when missing. */
  {
    const char *const env[] = { "LLAMACPP_BASE_URL=http://gpu-box:8080", "VLLM_API_KEY=vllm-secret-0123456789", NULL };

    provider = create ("llamacpp", env, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (OW_IS_PROVIDER_OPENAI_CHAT (provider));
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "http://gpu-box:8080/v1");
    g_assert_null (ow_provider_get_api_key (provider));
    g_assert_cmpstr (ow_provider_get_key_env (provider), ==, "LLAMACPP_API_KEY");
    g_clear_object (&provider);

    provider = create ("vllm", env, NULL, &error);
    g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "http://localhost:8000/v1");
    g_assert_cmpstr (ow_provider_get_api_key (provider), ==, "vllm-secret-0123456789");
    g_clear_object (&provider);
  }

  /* NULL envp: the process environment. */
  g_setenv ("MISTRAL_API_KEY", "mistral-process-0123456789", TRUE);
  provider = create ("mistral", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ow_provider_get_api_key (provider), ==, "mistral-process-0123456789");
  g_assert_cmpstr (ow_provider_get_base_url (provider), ==, "https://api.mistral.ai/v1");
  g_clear_object (&provider);
  g_unsetenv ("MISTRAL_API_KEY");

  /* Wire styles by name. */
  {
    OwWireStyle style;

    for (int s = OW_WIRE_OPENAI_CHAT; s <= OW_WIRE_OLLAMA; s++)
      {
        g_assert_true (ow_wire_style_from_string (ow_wire_style_to_string (s), &style));
        g_assert_cmpint (style, ==, s);
      }
    g_assert_false (ow_wire_style_from_string ("soap", &style));
    g_assert_false (ow_wire_style_from_string (NULL, &style));
  }
}

/* Which models read images and PDFs (the "vision" field), and which entry
 * takes the session's prompt-cache key. */
static void
test_vision_and_cache_key (void)
{
  const OwProviderEntry *openai = ow_provider_catalog_lookup ("openai");
  const OwProviderEntry *deepseek = ow_provider_catalog_lookup ("deepseek");
  const OwProviderEntry *anthropic = ow_provider_catalog_lookup ("anthropic");
  const OwProviderEntry *together = ow_provider_catalog_lookup ("together");

  g_assert_true (ow_provider_entry_model_has_vision (openai, "gpt-5.6-sol"));
  g_assert_true (ow_provider_entry_model_has_vision (openai, "gpt-4o"));
  g_assert_false (ow_provider_entry_model_has_vision (openai, "o3-mini"));
  g_assert_false (ow_provider_entry_model_has_vision (deepseek, "deepseek-chat"));
  g_assert_true (ow_provider_entry_model_has_vision (anthropic, "claude-sonnet-4-6"));
  /* An entry nobody has checked keeps sending images. */
  g_assert_true (ow_provider_entry_model_has_vision (together, "meta-llama/Llama-4-Maverick"));

  g_assert_true (json_object_get_boolean_member_with_default (openai->quirks, "prompt_cache_key", FALSE));
  for (guint i = 0; i < ow_provider_catalog_get ()->len; i++)
    {
      const OwProviderEntry *e = g_ptr_array_index (ow_provider_catalog_get (), i);
      if (e != openai && e->quirks != NULL)
        g_assert_false (json_object_has_member (e->quirks, "prompt_cache_key"));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/providers/catalog/entries", test_entries);
  g_test_add_func ("/ow/providers/catalog/vision-and-cache-key", test_vision_and_cache_key);
  g_test_add_func ("/ow/providers/catalog/split", test_split);
  g_test_add_func ("/ow/providers/catalog/create", test_create);

  return g_test_run ();
}
