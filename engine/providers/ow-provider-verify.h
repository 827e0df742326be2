/* ow-provider-verify.h: "Test" for a provider's key, as Settings ▸ Models &
 * Keys and `openworker keys verify` offer it.
 *
 * One cheap, authenticated call per provider — the model list where the
 * service has one (OpenAI and every compatible service, Anthropic,
 * Gemini, Ollama's tags), a one-token Responses call where it has none
 * (BytePlus Ark) — over the engine's OwHttpClient, with a 10 s limit. It
 * never fails: the result says ok, or why not in a sentence a person can
 * act on, with a class the UI can key on.
 */
#pragma once

#include "providers/ow-provider-catalog.h"

G_BEGIN_DECLS

typedef enum {
  OW_VERIFY_OK,
  OW_VERIFY_NO_KEY,        /* no key given and none in the environment */
  OW_VERIFY_REFUSED,       /* 401/403 (or Gemini's "API key not valid"): the key was refused */
  OW_VERIFY_QUOTA,         /* the key works, the account is out of credits */
  OW_VERIFY_RATE_LIMITED,  /* 429: try again shortly */
  OW_VERIFY_NOT_FOUND,     /* 404: the base URL reaches a server without that API */
  OW_VERIFY_SERVER,        /* 5xx or another unexpected status */
  OW_VERIFY_UNREACHABLE,   /* DNS, connection refused, TLS */
  OW_VERIFY_TIMEOUT,       /* no answer within the limit */
  OW_VERIFY_CANCELLED,
  OW_VERIFY_BAD_CONFIG,    /* the provider cannot be built (a bad wire override, …) */
} OwVerifyStatus;

typedef struct {
  gboolean       ok;
  OwVerifyStatus status;
  char          *error;    /* NULL when ok; otherwise a sentence naming the provider */
  guint          http_status; /* the status the service answered, 0 when none */
} OwProviderVerifyResult;

void ow_provider_verify_result_free (OwProviderVerifyResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwProviderVerifyResult, ow_provider_verify_result_free)

/* "ok", "no_key", "refused", "quota", "rate_limited", "not_found", "server",
 * "unreachable", "timeout", "cancelled", "bad_config" — for JSON. */
const char *ow_verify_status_to_string (OwVerifyStatus status);

/**
 * ow_provider_verify_key_async:
 * @http: the client to use (the engine's)
 * @entry: the provider
 * @api_key: (nullable): the key to test; %NULL falls back to the provider's
 *   key variable in the environment (a saved key is the caller's to pass)
 * @base_url: (nullable): the base URL to test against; %NULL uses the
 *   provider's base-URL variable, else its default
 *
 * Checks the key with the provider's cheapest authenticated call, within
 * 10 seconds. The key is registered with the redaction module and never
 * appears in the result.
 */
void                    ow_provider_verify_key_async  (OwHttpClient          *http,
                                                       const OwProviderEntry *entry,
                                                       const char            *api_key,
                                                       const char            *base_url,
                                                       GCancellable          *cancellable,
                                                       GAsyncReadyCallback    callback,
                                                       gpointer               user_data);
/* Never NULL; never an error (a cancelled check is OW_VERIFY_CANCELLED). */
OwProviderVerifyResult *ow_provider_verify_key_finish (GAsyncResult          *result);

/* The limit, in milliseconds, for tests that need a shorter one; 0 restores 10 s. */
void                    ow_provider_verify_set_timeout_for_testing (guint ms);

G_END_DECLS
