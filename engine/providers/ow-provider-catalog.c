/* ow-provider-catalog.c: every provider the product lists, read from data.
 *
 * resources/providers.json (compiled into the engine's GResource) is an
 * array with one object per provider service: id, title, wire, base_url,
 * key_env, base_url_env (always "<ID>_BASE_URL", upper-case, '-' → '_'),
 * needs_key, recommended_model, group ("cloud" | "reseller" | "local"),
 * aliases and quirks. Adding an OpenAI-compatible service is a new entry,
 * no code. The file is read once and never changes afterwards, so lookups
 * need no lock.
 *
 * "vision" says which models read images and PDFs: true, false, or a list
 * of model-name patterns; absent = all. For the others the agent sends a
 * placeholder for each image and the text of each PDF (core/ow-outbound.c).
 *
 * Quirks the providers read (absent = the default behaviour):
 *  - custom_base_url_wire (openai): the wire spoken at any base URL other
 *    than the default — OpenAI's own API gets Responses, Azure and other
 *    compatible servers get Chat Completions;
 *  - max_tokens_field (chat): "max_tokens" or "max_completion_tokens";
 *    by default api.openai.com gets max_completion_tokens and compatible
 *    servers max_tokens;
 *  - default_max_tokens (chat): the output limit sent when the request sets
 *    none (32000; 0 sends none, for local servers whose context is small);
 *  - prompt_cache_key (openai): send the session's stable cache key (Chat
 *    and Responses); only OpenAI defines the member, so only its entry
 *    says so (Gemini caches implicitly, Anthropic by cache_control);
 *  - ensure_v1 (llamacpp, vllm): a base URL given without "/v1" gets it;
 *  - provider_routing, reasoning_object, extra_headers (openrouter);
 *  - reasoning_summary (ark): false where the Responses-compatible server
 *    takes no reasoning summary;
 *  - anthropic_version, thinking_budget, server_side_fallback (anthropic);
 *  - key_env_alt (gemini): more variables the key may be in;
 *  - host_env, host_default_port (ollama): OLLAMA_HOST, which may be a bare
 *    "host:port" or even a bare host;
 *  - cn_base_url (zai, kimi, qwen): the mainland-China endpoint, for
 *    Settings to offer.
 *
 * Inkling (Thinking Machines) is served through Together AI; it is its own
 * entry ("inkling", Together's endpoint and TOGETHER_API_KEY, model
 * "thinkingmachines/Inkling") so Settings can list it beside the model
 * makers, as the product does.
 *
 * Model ids: "provider:model" splits at the first ':' ("vllm:nvidia/X" →
 * vllm + "nvidia/X"; "ollama:qwen3-coder:30b" → ollama + "qwen3-coder:30b"),
 * else "provider/model" at the first '/' ("openrouter/z-ai/glm-5.2"), else
 * the id is a bare OpenAI model. When the ':' prefix is no provider but the
 * '/' prefix is ("openrouter/meta-llama/x:free"), the '/' split is used.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-catalog.h"
#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-error.h"
#include "ow-redact.h"
#include "ow-resources.h"
#include "ow-secret-env.h"

typedef struct {
  GPtrArray  *entries;   /* OwProviderEntry*, in the file's order */
  GHashTable *by_name;   /* lower-case id or alias → OwProviderEntry* (borrowed) */
} Catalog;

/* "vision": true (every model), false (none), or a list of model-name
 * patterns (g_pattern_match_simple); absent means every model, so an entry
 * nobody has checked keeps sending images and lets its service decide. */
static GStrv
read_vision (JsonNode *node)
{
  g_autoptr(GStrvBuilder) patterns = g_strv_builder_new ();

  if (node == NULL || (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN
                       && json_node_get_boolean (node)))
    g_strv_builder_add (patterns, "*");
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);
          if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
            g_strv_builder_add (patterns, json_node_get_string (element));
        }
    }
  return g_strv_builder_end (patterns);
}

/**
 * ow_provider_entry_model_has_vision:
 * @entry: a catalog entry
 * @model: the bare model id
 *
 * Returns: whether @model reads image and PDF parts, per the entry's
 *   "vision" field.
 */
gboolean
ow_provider_entry_model_has_vision (const OwProviderEntry *entry,
                                    const char            *model)
{
  for (guint i = 0; entry != NULL && entry->vision != NULL && entry->vision[i] != NULL; i++)
    if (g_pattern_match_simple (entry->vision[i], model != NULL ? model : ""))
      return TRUE;
  return entry == NULL;
}

static void
entry_free (OwProviderEntry *entry)
{
  g_free (entry->id);
  g_free (entry->title);
  g_free (entry->base_url);
  g_free (entry->key_env);
  g_strfreev (entry->key_vars);
  g_free (entry->base_url_env);
  g_free (entry->recommended_model);
  g_clear_pointer (&entry->quirks, json_object_unref);
  g_free (entry->group);
  g_strfreev (entry->vision);
  g_free (entry);
}

static char *
dup_nonempty (const char *s)
{
  return s != NULL && s[0] != '\0' ? g_strdup (s) : NULL;
}

/* key_env, then quirks.key_env_alt, without empties or repeats. */
static GStrv
read_key_vars (const OwProviderEntry *entry)
{
  g_autoptr(GStrvBuilder) out = g_strv_builder_new ();
  JsonArray *alt = ow_json_get_array (entry->quirks, "key_env_alt");

  if (entry->key_env != NULL)
    g_strv_builder_add (out, entry->key_env);
  for (guint i = 0; alt != NULL && i < json_array_get_length (alt); i++)
    {
      const char *name = json_array_get_string_element (alt, i);

      if (name != NULL && *name != '\0' && g_strcmp0 (name, entry->key_env) != 0)
        g_strv_builder_add (out, name);
    }
  return g_strv_builder_end (out);
}

static Catalog *
catalog_load (void)
{
  Catalog *catalog = g_new0 (Catalog, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *array;
  gsize size = 0;
  const char *data;

  catalog->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  catalog->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  bytes = ow_resources_lookup ("providers.json", &error);
  if (bytes == NULL)
    {
      g_critical ("The provider catalog is missing from the resources: %s", error->message);
      return catalog;
    }
  data = g_bytes_get_data (bytes, &size);
  root = ow_json_parse (data, (gssize) size, &error);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    {
      g_critical ("The provider catalog is not a JSON array: %s",
                  error != NULL ? error->message : "wrong type");
      return catalog;
    }

  array = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *obj;
      OwProviderEntry *entry;
      JsonArray *aliases;
      JsonObject *quirks;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      obj = json_node_get_object (node);
      entry = g_new0 (OwProviderEntry, 1);
      entry->id = dup_nonempty (ow_json_get_string (obj, "id"));
      entry->title = dup_nonempty (ow_json_get_string (obj, "title"));
      entry->base_url = dup_nonempty (ow_json_get_string (obj, "base_url"));
      entry->key_env = dup_nonempty (ow_json_get_string (obj, "key_env"));
      entry->base_url_env = dup_nonempty (ow_json_get_string (obj, "base_url_env"));
      entry->needs_key = ow_json_get_bool (obj, "needs_key", entry->key_env != NULL);
      entry->recommended_model = dup_nonempty (ow_json_get_string (obj, "recommended_model"));
      entry->group = g_strdup (ow_json_get_string (obj, "group") != NULL
                               ? ow_json_get_string (obj, "group") : "cloud");
      entry->vision = read_vision (json_object_get_member (obj, "vision"));
      quirks = ow_json_get_object (obj, "quirks");
      entry->quirks = quirks != NULL ? ow_json_object_deep_copy (quirks) : NULL;
      if (entry->quirks != NULL)
        json_object_seal (entry->quirks);
      entry->key_vars = read_key_vars (entry);

      if (entry->id == NULL || entry->base_url == NULL
          || !ow_wire_style_from_string (ow_json_get_string (obj, "wire"), &entry->wire)
          || g_hash_table_contains (catalog->by_name, entry->id))
        {
          g_critical ("Provider catalog entry %u (%s) is invalid or a duplicate", i,
                      entry->id != NULL ? entry->id : "no id");
          entry_free (entry);
          continue;
        }

      g_ptr_array_add (catalog->entries, entry);
      g_hash_table_insert (catalog->by_name, g_ascii_strdown (entry->id, -1), entry);
      aliases = ow_json_get_array (obj, "aliases");
      for (guint j = 0; aliases != NULL && j < json_array_get_length (aliases); j++)
        {
          JsonNode *alias = json_array_get_element (aliases, j);
          if (JSON_NODE_HOLDS_VALUE (alias) && json_node_get_string (alias) != NULL)
            {
              char *key = g_ascii_strdown (json_node_get_string (alias), -1);
              /* An id always wins over another entry's alias. */
              if (!g_hash_table_contains (catalog->by_name, key))
                g_hash_table_insert (catalog->by_name, key, entry);
              else
                g_free (key);
            }
        }
    }
  return catalog;
}

static Catalog *
catalog_get (void)
{
  static Catalog *catalog;

  if (g_once_init_enter (&catalog))
    g_once_init_leave (&catalog, catalog_load ());
  return catalog;
}

const GPtrArray *
ow_provider_catalog_get (void)
{
  return catalog_get ()->entries;
}

static const OwProviderEntry *
lookup_len (const char *name,
            gssize      len)
{
  g_autofree char *key = NULL;

  if (name == NULL)
    return NULL;
  key = g_ascii_strdown (name, len);
  return g_hash_table_lookup (catalog_get ()->by_name, key);
}

const OwProviderEntry *
ow_provider_catalog_lookup (const char *id)
{
  return lookup_len (id, -1);
}

static char *
known_ids (void)
{
  const GPtrArray *entries = ow_provider_catalog_get ();
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < entries->len; i++)
    {
      const OwProviderEntry *entry = g_ptr_array_index (entries, i);
      if (i > 0)
        g_string_append (out, ", ");
      g_string_append (out, entry->id);
    }
  return g_string_free (out, FALSE);
}

gboolean
ow_model_id_split (const char             *model_id,
                   const OwProviderEntry **entry,
                   char                  **bare_model,
                   GError                **error)
{
  const char *colon;
  const char *slash;
  const char *rest = NULL;
  const OwProviderEntry *found = NULL;

  g_return_val_if_fail (model_id != NULL, FALSE);

  colon = strchr (model_id, ':');
  slash = strchr (model_id, '/');

  if (colon != NULL)
    {
      found = lookup_len (model_id, colon - model_id);
      rest = colon + 1;
    }
  if (found == NULL && slash != NULL)
    {
      const OwProviderEntry *by_slash = lookup_len (model_id, slash - model_id);
      if (by_slash != NULL || colon == NULL)
        {
          found = by_slash;
          rest = slash + 1;
        }
    }
  if (colon == NULL && slash == NULL)
    {
      found = ow_provider_catalog_lookup ("openai");
      rest = model_id;
    }

  if (found == NULL)
    {
      const char *end = colon != NULL ? colon : slash;
      g_autofree char *ids = known_ids ();

      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_UNKNOWN_PROVIDER,
                   "\"%.*s\" in the model id \"%s\" is not a known model provider. Use one of "
                   "%s as \"provider:model\", or a bare OpenAI model name.",
                   (int) (end - model_id), model_id, model_id, ids);
      return FALSE;
    }

  if (rest[0] == '\0')
    {
      if (found->recommended_model == NULL)
        {
          g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_MODEL_NOT_FOUND,
                       "The model id \"%s\" names %s but no model. Add the model after the "
                       "colon, as in \"%s:<model>\".", model_id, found->title, found->id);
          return FALSE;
        }
      rest = found->recommended_model;
    }

  if (entry != NULL)
    *entry = found;
  if (bare_model != NULL)
    *bare_model = g_strdup (rest);
  return TRUE;
}

/* ---- Building providers -------------------------------------------------- */

static const char *
env_get (const char *const *envp,
         const char        *name)
{
  const char *value;

  if (name == NULL)
    return NULL;
  /* The process's key variables were moved into memory at start. */
  value = envp != NULL ? g_environ_getenv ((char **) envp, name) : ow_secret_env_get (name);
  return value != NULL && value[0] != '\0' ? value : NULL;
}

const char *
ow_provider_entry_find_key_env (const OwProviderEntry *entry,
                                const char *const     *envp)
{
  g_return_val_if_fail (entry != NULL, NULL);

  for (guint i = 0; entry->key_vars != NULL && entry->key_vars[i] != NULL; i++)
    if (env_get (envp, entry->key_vars[i]) != NULL)
      return entry->key_vars[i];
  return NULL;
}

/* OLLAMA_HOST is what the ollama CLI reads: "host", "host:port" or a URL. */
static char *
normalize_host (const char *value,
                gint64      default_port)
{
  g_autofree char *url = NULL;
  g_autofree char *authority = NULL;
  const char *host;
  gboolean has_port;
  gsize len;

  if (strstr (value, "://") != NULL)
    url = g_strdup (value);
  else
    url = g_strconcat ("http://", value, NULL);

  host = strstr (url, "://") + 3;
  len = strcspn (host, "/");
  authority = g_strndup (host, len);
  /* An IPv6 literal has colons of its own; its port follows the ']'. */
  if (authority[0] == '[')
    has_port = strstr (authority, "]:") != NULL;
  else
    has_port = strchr (authority, ':') != NULL;

  if (has_port || default_port <= 0)
    return g_steal_pointer (&url);
  return g_strdup_printf ("%.*s%s:%" G_GINT64_FORMAT "%s", (int) (host - url), url, authority,
                          default_port, host + len);
}

static gboolean
same_url (const char *a,
          const char *b)
{
  gsize la = strlen (a), lb = strlen (b);

  while (la > 0 && a[la - 1] == '/')
    la--;
  while (lb > 0 && b[lb - 1] == '/')
    lb--;
  return la == lb && g_ascii_strncasecmp (a, b, la) == 0;
}

char *
ow_provider_catalog_dup_base_url (const OwProviderEntry *entry,
                                  const char            *configured,
                                  const char *const     *envp,
                                  const char           **source)
{
  JsonObject *quirks;
  const char *base = NULL;
  const char *from = "default";
  g_autofree char *base_owned = NULL;

  g_return_val_if_fail (entry != NULL, NULL);

  quirks = entry->quirks;
  /* The saved one, the entry's variable, the host variable some local
   * servers have, the default. */
  if (configured != NULL && configured[0] != '\0')
    {
      base = configured;
      from = "config";
    }
  if (base == NULL && (base = env_get (envp, entry->base_url_env)) != NULL)
    from = "env";
  if (base == NULL && env_get (envp, ow_json_get_string (quirks, "host_env")) != NULL)
    {
      base = base_owned = normalize_host (env_get (envp, ow_json_get_string (quirks, "host_env")),
                                          ow_json_get_int (quirks, "host_default_port", 0));
      from = "env";
    }
  if (base == NULL)
    base = entry->base_url;
  if (source != NULL)
    *source = from;
  if (base == NULL)
    return NULL;
  if (ow_json_get_bool (quirks, "ensure_v1", FALSE))
    {
      g_autofree char *trimmed = g_strdup (base);
      gsize len = strlen (trimmed);

      while (len > 0 && trimmed[len - 1] == '/')
        trimmed[--len] = '\0';
      if (!g_str_has_suffix (trimmed, "/v1"))
        return g_strconcat (trimmed, "/v1", NULL);
    }
  return base_owned != NULL ? g_steal_pointer (&base_owned) : g_strdup (base);
}

OwProvider *
ow_provider_catalog_create (const OwProviderEntry     *entry,
                            const OwProviderOverrides *overrides,
                            const char *const         *envp,
                            OwHttpClient              *http,
                            GError                   **error)
{
  JsonObject *quirks;
  const char *key = NULL;
  const char *base;
  g_autofree char *base_owned = NULL;
  OwWireStyle wire;
  OwProviderConfig config = { 0 };

  g_return_val_if_fail (entry != NULL, NULL);

  quirks = entry->quirks;

  /* The key: what the person saved, else the entry's variables. A
   * provider's key never falls back to another provider's. */
  if (overrides != NULL && overrides->api_key != NULL && overrides->api_key[0] != '\0')
    key = overrides->api_key;
  if (key == NULL)
    key = env_get (envp, ow_provider_entry_find_key_env (entry, envp));
  if (key == NULL && entry->needs_key)
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY,
                   "No %s API key is configured. Set %s, or add the key under Models & Keys "
                   "(in the browser UI's sidebar, or the desktop's Settings).", entry->title,
                   entry->key_env != NULL ? entry->key_env : "its key");
      return NULL;
    }

  base = base_owned = ow_provider_catalog_dup_base_url (entry, overrides != NULL ? overrides->base_url : NULL,
                                                         envp, NULL);

  /* The wire: forced, else the entry's, except where a provider speaks
   * another one away from its own URL. */
  wire = entry->wire;
  if (overrides != NULL && overrides->wire != NULL && overrides->wire[0] != '\0')
    {
      if (!ow_wire_style_from_string (overrides->wire, &wire))
        {
          g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_FAILED,
                       "\"%s\" is not a wire style. Use openai-chat, openai-responses, anthropic, "
                       "gemini or ollama.", overrides->wire);
          return NULL;
        }
    }
  else if (ow_json_get_string (quirks, "custom_base_url_wire") != NULL
           && !same_url (base, entry->base_url))
    ow_wire_style_from_string (ow_json_get_string (quirks, "custom_base_url_wire"), &wire);

  ow_redact_register_secret (key);
  /* A base URL from the config may carry a password too. */
  ow_secret_env_register_url (base);
  config.id = entry->id;
  config.title = entry->title;
  config.base_url = base;
  config.api_key = key;
  config.key_env = entry->key_env;
  config.quirks = quirks;
  return ow_provider_new (wire, &config, http);
}
