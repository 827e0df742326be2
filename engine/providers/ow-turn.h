/* ow-turn.h: what goes into one model call and what comes out of it.
 *
 * The engine's history is provider-neutral and OpenAI-chat shaped (a JSON
 * array of message objects; see core/ow-message.h). A provider converts it
 * to its wire format at send time, never mutating it, and turns the reply
 * back into an OwTurn. Provider-private data needed to replay a turn
 * faithfully (Anthropic thinking blocks with signatures, Gemini thought
 * signatures, OpenAI Responses reasoning items) travels in the turn's
 * sidecar, which the engine stores on the assistant message under
 * sidecar_key ("_anthropic", "_gemini", "_openai") and hands back on the
 * next call; other providers strip foreign "_*" keys.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Token counts of one call. input is the uncached prompt; prompt total =
 * input + cache_read + cache_write. reasoning is a subset of output. */
typedef struct {
  gint64 input;
  gint64 output;
  gint64 cache_read;
  gint64 cache_write;
  gint64 reasoning;
} OwUsage;

static inline gint64
ow_usage_prompt_total (const OwUsage *u)
{
  return u->input + u->cache_read + u->cache_write;
}

/* One tool call as the model produced it. */
typedef struct {
  char *id;          /* the wire's call id; providers synthesize one ("call_<n>") when the wire has none */
  char *name;
  char *arguments;   /* the JSON text as received; when the wire sends an object it is serialized.
                      * May be anything, including invalid JSON: the engine checks it. */
} OwToolCall;

OwToolCall *ow_tool_call_new  (const char *id, const char *name, const char *arguments);
void        ow_tool_call_free (OwToolCall *call);

/* The reply to one model call. */
typedef struct {
  GString   *text;           /* visible answer text (never thinking) */
  GString   *reasoning;      /* thinking / reasoning summary text, if the wire shows it */
  GPtrArray *tool_calls;     /* OwToolCall*, in order */
  char      *finish_reason;  /* "stop" | "tool_calls" | "length" | "content_filter"; NULL until known */
  gboolean   complete;       /* the wire's terminal marker was seen ([DONE], message_stop, done:true, …) */
  gboolean   has_usage;
  OwUsage    usage;
  char      *sidecar_key;    /* "_anthropic" / "_gemini" / "_openai" or NULL */
  JsonNode  *sidecar;        /* replay data, or NULL */
  char      *response_id;    /* the wire's id for the reply, if any */
  char      *served_model;   /* the model name the server reported, if any */
} OwTurn;

OwTurn *ow_turn_new  (void);
void    ow_turn_free (OwTurn *turn);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwTurn, ow_turn_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwToolCall, ow_tool_call_free)

/* Everything one call sends. Strings and JSON are borrowed for the duration
 * of the call. */
typedef struct {
  const char *model;             /* the bare model id, as the wire wants it */
  JsonArray  *messages;          /* canonical history; [0] may be the system message */
  JsonArray  *tools;             /* OpenAI function schemas {type:function, function:{name, description, parameters}}, or NULL */
  gboolean    stream;            /* stream the reply (deltas reported as they arrive) */
  gint64      max_output_tokens; /* 0 = the provider's default (we send one anyway where the wire requires it) */
  const char *reasoning_effort;  /* "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max"; NULL = unset */
  int         thinking;          /* -1 unset, 0 off, 1 on (Ollama think, Anthropic thinking, Gemini includeThoughts) */
  double      temperature;       /* < 0 = unset */
  double      top_p;             /* < 0 = unset */
  gint64      context_size;      /* Ollama num_ctx; 0 = unset */
  const char *provider_order;    /* OpenRouter: comma-separated upstream hosts to pin, no fallback; NULL = unset */
  const char *cache_key;         /* stable per session: OpenAI's prompt_cache_key, where the catalog says the
                                  * service takes it; NULL = unset */
} OwModelRequest;

void ow_model_request_init (OwModelRequest *req);

/* Facts about one call, returned on success and on failure alike: they go
 * to model_calls.jsonl, provider_errors.log and the trajectory. */
typedef struct {
  char   *url;             /* the URL called (secrets redacted) */
  guint   status;          /* HTTP status; 0 when no response arrived */
  char   *host;            /* "ip:port" of the peer that served it */
  char   *request_id;      /* x-request-id / request-id header, if any */
  double  ttfb;            /* seconds to the first byte */
  double  duration;        /* seconds in total */
  gint64  retry_after_ms;  /* the server's Retry-After / retry-after-ms / RetryInfo; -1 = none */
  char   *cause;           /* on failure: the full cause chain, one line, credentials redacted */
} OwCallInfo;

OwCallInfo *ow_call_info_new  (void);
void        ow_call_info_free (OwCallInfo *info);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwCallInfo, ow_call_info_free)

G_END_DECLS
