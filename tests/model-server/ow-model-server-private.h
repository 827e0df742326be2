/* ow-model-server-private.h: what the scripted model server's files share.
 *
 * The server is split by concern: ow-model-server.c routes, records and
 * sends; ow-model-server-script.c validates a script and compiles each turn
 * into an OwMsTurn once, so answering a request costs no parsing;
 * ow-model-server-reply.c holds the helpers every wire style uses; and one
 * file per wire style (ow-model-server-<style>.c) turns a compiled turn into
 * that service's exact bytes, filling an OwMsReply.
 */
#pragma once

#include <libsoup/soup.h>

#include "ow-model-server.h"

G_BEGIN_DECLS

/* ---- Wire styles --------------------------------------------------------- */

typedef enum {
  OW_MS_STYLE_OPENAI_CHAT,
  OW_MS_STYLE_OPENAI_RESPONSES,
  OW_MS_STYLE_ANTHROPIC,
  OW_MS_STYLE_GEMINI,
  OW_MS_STYLE_OLLAMA,
  OW_MS_N_STYLES
} OwMsStyle;

const char *ow_ms_style_name       (OwMsStyle   style);
gboolean    ow_ms_style_from_name  (const char *name,
                                    OwMsStyle  *out);

/* ---- Compiled script ----------------------------------------------------- */

typedef enum {
  OW_MS_FINISH_STOP,
  OW_MS_FINISH_TOOL_CALLS,
  OW_MS_FINISH_LENGTH
} OwMsFinish;

typedef enum {
  OW_MS_ERROR_RATE_LIMIT,
  OW_MS_ERROR_QUOTA,
  OW_MS_ERROR_OVERLOADED,
  OW_MS_ERROR_SERVER,
  OW_MS_ERROR_BAD_KEY,
  OW_MS_ERROR_UNKNOWN_MODEL,
  OW_MS_ERROR_CONTEXT_OVERFLOW,
  OW_MS_ERROR_BAD_REQUEST,
  OW_MS_ERROR_PERMISSION,
  OW_MS_N_ERROR_KINDS
} OwMsErrorKind;

typedef struct {
  char     *id;         /* as scripted; NULL lets the style make one (Gemini never sends one) */
  char     *name;
  char     *arguments;  /* the argument text for wires that send a string */
  JsonNode *args;       /* the arguments object; NULL when "arguments_raw" was scripted */
} OwMsToolCall;

/* Token counts in the engine's terms: input is the uncached prompt (the
 * prompt total adds cache_read and cache_write) and reasoning is part of
 * output. Each style converts them to its wire's accounting. */
typedef struct {
  gint64 input;
  gint64 output;
  gint64 cache_read;
  gint64 cache_write;
  gint64 reasoning;
} OwMsUsage;

typedef struct {
  guint          status;       /* 0 = the kind's usual status for the style */
  OwMsErrorKind  kind;
  char          *message;      /* NULL = the service's usual words for the kind */
  int            retry_after;  /* seconds, -1 = none */
  gboolean       in_stream;    /* 200, then the error as a stream event */
} OwMsError;

typedef struct {
  /* What to answer */
  char         *text;             /* visible answer, NULL = none */
  guint         text_chunks;      /* deltas to split text into; 0 = pieces of ≤16 bytes */
  char         *reasoning;        /* thinking text, NULL = none */
  GPtrArray    *tool_calls;       /* OwMsToolCall*, never NULL */
  OwMsFinish    finish;
  OwMsUsage     usage;
  OwMsError    *error;            /* NULL = success */

  /* A verbatim answer instead (has_raw) */
  gboolean      has_raw;
  guint         raw_status;
  GPtrArray    *raw_headers;      /* name, value, name, value, … */
  char         *raw_body;

  /* How to send it */
  int           stream;           /* 1, 0, or -1 to follow the request */
  guint         delay_ms;         /* before the response headers */
  guint         chunk_delay_ms;   /* between stream events */
  int           drop_after;       /* events (or body bytes) before cutting the connection; -1 = never */
  guint         repeat;           /* times this turn is served */

  /* What the request must look like (NULL / empty = not checked) */
  char         *expect_path;
  char         *expect_model;
  GPtrArray    *expect_headers;   /* name, value, … */
  GStrv         expect_body_contains;
  char         *expect_last_message_contains;

  /* For "{n}": the turn as scripted, recompiled per request when has_n */
  gboolean      has_n;
  JsonNode     *source;
} OwMsTurn;

typedef struct {
  gboolean     has_style;
  OwMsStyle    style;        /* every turn's expected style when has_style */
  GStrv        models;       /* for the model lists; never NULL */
  GStrv        keys;         /* accepted API keys; empty = any request is accepted; never NULL */
  GPtrArray   *turns;        /* OwMsTurn* */
} OwMsScript;

OwMsScript *ow_ms_script_compile     (JsonNode    *root,
                                      GError     **error);
void        ow_ms_script_free        (OwMsScript  *script);
OwMsTurn   *ow_ms_turn_instantiate   (OwMsTurn    *turn,
                                      guint        n);
void        ow_ms_turn_free          (OwMsTurn    *turn);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwMsScript, ow_ms_script_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwMsTurn, ow_ms_turn_free)

/* ---- One answer, as a style builds it ------------------------------------ */

typedef struct {
  /* Inputs: set by the router before the style's build function runs */
  const OwMsTurn *turn;
  JsonObject     *request;       /* the parsed body object, or NULL */
  const char     *model;         /* from the body, or Gemini's path; never NULL */
  gboolean        stream;        /* answer as a stream */
  gboolean        gemini_sse;    /* Gemini streaming with alt=sse (otherwise a JSON array) */
  GRand          *rand;          /* for ids */

  /* Outputs */
  guint           status;
  const char     *content_type;
  GPtrArray      *headers;       /* name, value, … (owned strings) */
  GString        *body;          /* the whole body when not streaming */
  GPtrArray      *events;        /* GBytes*, each one framed stream event */
} OwMsReply;

void        ow_ms_reply_init          (OwMsReply   *reply);
void        ow_ms_reply_clear         (OwMsReply   *reply);
void        ow_ms_reply_add_header    (OwMsReply   *reply,
                                       const char  *name,
                                       const char  *value);
void        ow_ms_reply_set_json      (OwMsReply   *reply,
                                       guint        status,
                                       JsonObject  *body);
void        ow_ms_reply_add_sse       (OwMsReply   *reply,
                                       const char  *event,
                                       JsonObject  *data);
void        ow_ms_reply_add_bytes     (OwMsReply   *reply,
                                       char        *framed);
void        ow_ms_reply_truncate      (OwMsReply   *reply,
                                       guint        n_events);
char       *ow_ms_reply_make_id       (OwMsReply   *reply,
                                       const char  *prefix,
                                       guint        length,
                                       gboolean     hex);
void        ow_ms_reply_add_retry_after (OwMsReply *reply);

/* One builder per wire style; each handles success, HTTP errors and
 * in-stream errors for its wire. */
void        ow_ms_build_openai_chat      (OwMsReply *reply);
void        ow_ms_build_openai_responses (OwMsReply *reply);
void        ow_ms_build_anthropic        (OwMsReply *reply);
void        ow_ms_build_gemini           (OwMsReply *reply);
void        ow_ms_build_ollama           (OwMsReply *reply);

/* OpenAI's error object, shared by Chat Completions and Responses. */
JsonObject *ow_ms_openai_error_object    (OwMsReply   *reply,
                                          const char  *param,
                                          guint       *status_out);

/* ---- Shared helpers ------------------------------------------------------ */

GPtrArray  *ow_ms_split_text        (const char  *text,
                                     guint        n_chunks);
char       *ow_ms_json_to_string    (JsonObject  *object);
void        ow_ms_set_string        (JsonObject  *object,
                                     const char  *name,
                                     const char  *value);
JsonNode   *ow_ms_object_node       (JsonObject  *object);
JsonNode   *ow_ms_array_node        (JsonArray   *array);
guint       ow_ms_error_status      (const OwMsError *error,
                                     guint             usual);
const char *ow_ms_error_message     (const OwMsError *error,
                                     const char       *usual);
const char *ow_ms_finish_name       (OwMsFinish   finish);
const char *ow_ms_error_kind_name   (OwMsErrorKind kind);
gint64      ow_ms_usage_prompt      (const OwMsUsage *usage);
const char *ow_ms_status_phrase     (guint        status);

G_END_DECLS
