/* ow-provider.h: one model provider, speaking one wire style.
 *
 * OwProvider is the derivable base of the wire styles: OpenAI Chat
 * Completions, OpenAI Responses, Anthropic Messages, Google Gemini and
 * Ollama's native /api/chat. The base class owns the HTTP exchange (through
 * OwHttpClient), SSE / NDJSON framing, error classification and the call
 * facts (OwCallInfo); a subclass only builds its request, reads its stream
 * events or its whole response, and reads its error bodies.
 *
 * Every provider service the product lists (see resources/providers.json
 * and ow-provider-catalog.h) is one of these styles with a base URL, a key
 * variable and quirks.
 */
#pragma once

#include <gio/gio.h>

#include "net/ow-http-client.h"
#include "providers/ow-turn.h"

G_BEGIN_DECLS

typedef enum {
  OW_WIRE_OPENAI_CHAT,
  OW_WIRE_OPENAI_RESPONSES,
  OW_WIRE_ANTHROPIC,
  OW_WIRE_GEMINI,
  OW_WIRE_OLLAMA,
} OwWireStyle;

const char *ow_wire_style_to_string   (OwWireStyle style);   /* "openai-chat", "openai-responses", "anthropic", "gemini", "ollama" */
gboolean    ow_wire_style_from_string (const char *str, OwWireStyle *out);

typedef enum {
  OW_DELTA_TEXT,
  OW_DELTA_REASONING,
} OwDeltaKind;

/* Streamed pieces, reported on the main context as they arrive. */
typedef void (*OwDeltaFunc) (OwDeltaKind kind, const char *text, gsize len, gpointer user_data);

#define OW_TYPE_PROVIDER (ow_provider_get_type ())
G_DECLARE_DERIVABLE_TYPE (OwProvider, ow_provider, OW, PROVIDER, GObject)

struct _OwProviderClass
{
  GObjectClass parent_class;

  /* Fills @http (URL, headers, JSON body) for @req. */
  gboolean (*build_request)   (OwProvider            *self,
                               const OwModelRequest  *req,
                               OwHttpRequest        **http,
                               GError               **error);
  /* One SSE event (event name, data) or one NDJSON line (@event NULL) of a
   * streamed 2xx reply. Updates @turn, reports deltas through
   * ow_provider_emit_delta(); sets turn->complete at the terminal event. An
   * in-stream error event fails with a classified OW_PROVIDER_ERROR. */
  gboolean (*handle_event)    (OwProvider  *self,
                               OwTurn      *turn,
                               const char  *event,
                               const char  *data,
                               gsize        len,
                               GError     **error);
  /* The whole body of a non-streamed 2xx reply. Sets turn->complete. */
  gboolean (*parse_response)  (OwProvider  *self,
                               OwTurn      *turn,
                               JsonNode    *body,
                               GError     **error);
  /* Reads a non-2xx reply into a classified OW_PROVIDER_ERROR (the base
   * class has a default that understands every style's error shape). */
  GError  *(*classify_error)  (OwProvider     *self,
                               guint           status,
                               OwHttpResponse *resp,
                               const char     *body);
  /* TRUE when streamed replies are NDJSON lines instead of SSE. */
  gboolean (*stream_is_ndjson) (OwProvider *self);

  gpointer padding[8];
};

/* Configuration every provider is constructed with. */
typedef struct {
  const char *id;        /* catalog id: "openai", "anthropic", "vllm", … */
  const char *title;     /* "OpenAI" — used in error messages */
  const char *base_url;  /* e.g. "https://api.openai.com/v1" (no trailing slash) */
  const char *api_key;   /* may be NULL for keyless local servers */
  const char *key_env;   /* the variable a person sets, for messages ("OPENAI_API_KEY") */
  JsonObject *quirks;    /* the catalog entry's "quirks" object, or NULL */
} OwProviderConfig;

/* Builds the provider for @config with wire style @style. */
OwProvider  *ow_provider_new              (OwWireStyle             style,
                                           const OwProviderConfig *config,
                                           OwHttpClient           *http);

const char  *ow_provider_get_id           (OwProvider *self);
const char  *ow_provider_get_title        (OwProvider *self);
const char  *ow_provider_get_base_url     (OwProvider *self);
const char  *ow_provider_get_api_key      (OwProvider *self);
const char  *ow_provider_get_key_env      (OwProvider *self);
OwWireStyle  ow_provider_get_wire_style   (OwProvider *self);
/* A quirk from the catalog entry (NULL / default when absent). */
const char  *ow_provider_get_quirk_string (OwProvider *self, const char *name);
gboolean     ow_provider_get_quirk_bool   (OwProvider *self, const char *name, gboolean fallback);

/* For subclasses, inside handle_event: report a delta to the caller. */
void         ow_provider_emit_delta       (OwProvider *self, OwDeltaKind kind, const char *text, gsize len);

/* Makes one model call. Deltas are reported through @on_delta while a
 * streamed reply arrives. Cancelling stops the call at once. */
void         ow_provider_complete_async   (OwProvider            *self,
                                           const OwModelRequest  *req,
                                           OwDeltaFunc            on_delta,
                                           gpointer               delta_data,
                                           GCancellable          *cancellable,
                                           GAsyncReadyCallback    callback,
                                           gpointer               user_data);
/* Returns the turn, or NULL with an OW_PROVIDER_ERROR (or
 * G_IO_ERROR_CANCELLED). @info (optional) receives the call's facts in both
 * cases. A stream that ends without its terminal event fails with
 * OW_PROVIDER_ERROR_CUT_OFF; the text received so far is kept in
 * @partial (optional) so the engine can persist it. */
OwTurn      *ow_provider_complete_finish  (OwProvider    *self,
                                           GAsyncResult  *result,
                                           OwCallInfo   **info,
                                           OwTurn       **partial,
                                           GError       **error);

/* Whether an OW_PROVIDER_ERROR is worth retrying (rate limits, overload,
 * 5xx, connection trouble, cut-off or empty replies) — quota exhaustion,
 * bad keys, unknown models and context overflow are not. */
gboolean     ow_provider_error_is_transient (const GError *error);

/* Error-body classification shared by every style; exposed for tests.
 * @body is the raw body text (any provider's error shape, or not JSON at all). */
GError      *ow_provider_classify_http_error (const char *provider_title,
                                              const char *key_env,
                                              const char *model,
                                              guint       status,
                                              const char *body);

G_END_DECLS
