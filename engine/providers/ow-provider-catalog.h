/* ow-provider-catalog.h: every provider the product lists, as data.
 *
 * resources/providers.json holds one entry per provider service: its id,
 * title, wire style, default base URL, key variable, base-URL variable,
 * whether it needs a key, its recommended model and its quirks. The catalog
 * resolves a model id ("anthropic:claude-sonnet-4-6", "vllm:nvidia/X",
 * "gpt-5.6-sol") to an entry and the bare model, and builds OwProviders with
 * the right key and base URL (overrides from the environment or config).
 */
#pragma once

#include "providers/ow-provider.h"

G_BEGIN_DECLS

typedef struct {
  char       *id;              /* "openai" */
  char       *title;           /* "OpenAI" */
  OwWireStyle wire;            /* default wire style */
  char       *base_url;        /* default base URL */
  char       *key_env;         /* "OPENAI_API_KEY", NULL for keyless: the variable messages name */
  GStrv       key_vars;        /* every variable the key may be in, in reading order: key_env, then
                                * quirks.key_env_alt ("GOOGLE_API_KEY"); empty for keyless */
  char       *base_url_env;    /* "OPENAI_BASE_URL" */
  gboolean    needs_key;
  char       *recommended_model;
  JsonObject *quirks;          /* may be NULL */
  char       *group;           /* "cloud" | "reseller" | "local" — how Settings groups it */
  GStrv       vision;          /* model patterns that read images and PDFs ("*" = all, empty = none) */
} OwProviderEntry;

/* Loads the catalog from the GResource (once; immutable, thread-safe afterwards). */
const GPtrArray       *ow_provider_catalog_get     (void);        /* of OwProviderEntry* */
const OwProviderEntry *ow_provider_catalog_lookup  (const char *id);
gboolean               ow_provider_entry_model_has_vision (const OwProviderEntry *entry, const char *model);

/* Which environment variable holds @entry's key in @envp (NULL = this
 * process's, whose key variables were moved into memory at start): the
 * first of @entry->key_vars that is set and not empty, or NULL when none
 * is. This is the one answer to "where is this provider's key" — the
 * provider built, the configured state the server, the CLI and the desktop
 * show and the secrets taken from the environment all come from it. */
const char            *ow_provider_entry_find_key_env (const OwProviderEntry *entry,
                                                       const char *const     *envp);

/* Splits a model id: "provider:model" at the first ':', else
 * "provider/model" at the first '/', else the default provider "openai".
 * Fails with OW_PROVIDER_ERROR_UNKNOWN_PROVIDER (listing the known ids)
 * when the prefix names no catalog entry. */
gboolean ow_model_id_split (const char             *model_id,
                            const OwProviderEntry **entry,
                            char                  **bare_model,
                            GError                **error);

/* Overrides for one provider, from config.toml [providers.<id>]; any may be NULL. */
typedef struct {
  const char *base_url;
  const char *api_key;
  const char *wire;        /* "openai-chat", … to force a wire style */
} OwProviderOverrides;

/* The base URL calls to @entry go to: @configured (config.toml
 * [providers.<id>] base_url) → the entry's base-URL variable in @envp (NULL
 * = the process environment) → its host variable → the default. @source,
 * if not NULL, gets "config", "env" or "default". NULL when there is none. */
char       *ow_provider_catalog_dup_base_url (const OwProviderEntry *entry,
                                              const char            *configured,
                                              const char *const     *envp,
                                              const char           **source);

/* Builds a provider for @entry. Key: @overrides->api_key → the entry's key
 * variable in @envp (NULL = the process environment). Base URL:
 * @overrides->base_url → the entry's base-URL variable → the default.
 * OpenAI speaks Responses at its own URL and Chat Completions at any other
 * base URL, unless a wire is forced. A provider that needs a key and has
 * none fails with OW_PROVIDER_ERROR_NO_KEY naming the variable to set. */
OwProvider *ow_provider_catalog_create (const OwProviderEntry     *entry,
                                        const OwProviderOverrides *overrides,
                                        const char *const         *envp,
                                        OwHttpClient              *http,
                                        GError                   **error);

G_END_DECLS
