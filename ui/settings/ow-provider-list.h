/* ow-provider-list.h: the model providers as Settings ▸ Models & Keys shows them.
 *
 * A GListModel of OwProviderItem, one per provider of the catalog, in the
 * catalog's order (cloud, then resellers, then local servers), each with
 * where its key comes from: the environment, the secret store, nowhere,
 * or no key needed. The list also does what the page's buttons ask —
 * save a key, test it, remove it, set a local server's address — always
 * through the engine: keys go only to the OwSecretStore (the OS keyring
 * here), never to a file of ours; a test is ow_provider_verify_key_async();
 * an address is [providers.<id>] base_url in config.toml. Every call is
 * asynchronous; each item's "busy" and "message" properties say how it
 * went.
 */
#pragma once

#include <gio/gio.h>

#include "core/ow-context.h"

G_BEGIN_DECLS

/* Where a provider's key comes from. */
typedef enum {
  OW_KEY_STATE_NONE,        /* no key anywhere */
  OW_KEY_STATE_SAVED,       /* in the secret store */
  OW_KEY_STATE_ENV,         /* in the environment (wins over a saved one) */
  OW_KEY_STATE_NOT_NEEDED,  /* a keyless provider (Ollama) */
} OwKeyState;

/* What the last action said. */
typedef enum {
  OW_MESSAGE_NONE,
  OW_MESSAGE_OK,
  OW_MESSAGE_ERROR,
} OwMessageKind;

#define OW_TYPE_PROVIDER_ITEM (ow_provider_item_get_type ())
G_DECLARE_FINAL_TYPE (OwProviderItem, ow_provider_item, OW, PROVIDER_ITEM, GObject)

const OwProviderEntry *ow_provider_item_get_entry        (OwProviderItem *self);
const char            *ow_provider_item_get_id           (OwProviderItem *self);
OwKeyState             ow_provider_item_get_key_state    (OwProviderItem *self);
gboolean               ow_provider_item_get_saved        (OwProviderItem *self);
gboolean               ow_provider_item_get_busy         (OwProviderItem *self);
const char            *ow_provider_item_get_message      (OwProviderItem *self);
OwMessageKind          ow_provider_item_get_message_kind (OwProviderItem *self);
/* The address set in config.toml, or NULL for the provider's default. */
const char            *ow_provider_item_get_base_url     (OwProviderItem *self);
/* Whether the provider is a server of one's own (Ollama, llama.cpp, vLLM). */
gboolean               ow_provider_item_get_is_local     (OwProviderItem *self);
/* Whether a model of this provider can be used now (a key, or none needed). */
gboolean               ow_provider_item_get_configured   (OwProviderItem *self);

#define OW_TYPE_PROVIDER_LIST (ow_provider_list_get_type ())
G_DECLARE_FINAL_TYPE (OwProviderList, ow_provider_list, OW, PROVIDER_LIST, GObject)

/* @secrets: where keys are saved (NULL: none can be saved). */
OwProviderList *ow_provider_list_new          (OwContext      *ctx,
                                               OwSecretStore  *secrets);
OwProviderItem *ow_provider_list_lookup       (OwProviderList *self,
                                               const char     *id);
/* Reads which keys are saved again. */
void            ow_provider_list_refresh      (OwProviderList *self);
/* Whether the last refresh has finished (the "loaded" property). */
gboolean        ow_provider_list_get_loaded   (OwProviderList *self);

/* Saves @key (trimmed) for @item in the secret store. */
void            ow_provider_list_save_key     (OwProviderList *self,
                                               OwProviderItem *item,
                                               const char     *key);
/* Tests @key, or (NULL) the key this machine would use: the environment's,
 * else the saved one. @base_url NULL: the configured address or default. */
void            ow_provider_list_verify       (OwProviderList *self,
                                               OwProviderItem *item,
                                               const char     *key,
                                               const char     *base_url);
void            ow_provider_list_remove_key   (OwProviderList *self,
                                               OwProviderItem *item);
/* Sets (or with NULL/"" clears) [providers.<id>] base_url in config.toml. */
void            ow_provider_list_set_base_url (OwProviderList *self,
                                               OwProviderItem *item,
                                               const char     *base_url);

/* ---- Pure formatting, tested on its own --------------------------------- */

/* "From the environment (ANTHROPIC_API_KEY)", "Saved in the keyring",
 * "No key", … translated. @variable: the variable that holds the key
 * (ENV); @backend: the store's backend word (SAVED); @saved_too: a saved
 * key exists besides the environment's; @needs_key: FALSE for optional
 * keys. */
char       *ow_key_state_label     (OwKeyState  state,
                                    const char *variable,
                                    const char *backend,
                                    gboolean    saved_too,
                                    gboolean    needs_key);
/* The section title of a catalog group ("cloud", "reseller", "local"). */
const char *ow_provider_group_title (const char *group);

G_END_DECLS
