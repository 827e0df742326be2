/* ow-provider-private.h: what the wire styles and the tests share with the
 * OwProvider base, and nothing the rest of the engine should call.
 *
 * Four groups:
 *  - helpers a subclass calls inside its vfuncs while a call runs (the
 *    call's request, per-call scratch state, building the JSON request,
 *    reporting an in-stream error) — ow-provider-subclass.c;
 *  - the walk over the canonical history and the JSON utilities the five
 *    styles all need — ow-provider-history.c;
 *  - OwProviderCall, the per-call driver — ow-provider-call.c.
 *    ow_provider_complete_async() (ow-provider-async.c) runs one over
 *    OwHttpClient; the unit tests run the same object by hand — build a
 *    request and read its body, feed recorded stream text in any split,
 *    parse a recorded body — so the pure parts are tested without a
 *    socket;
 *  - what the base's own files share with each other: the call's fields
 *    and the provider's running call.
 */
#pragma once

#include "net/ow-ndjson-parser.h"
#include "net/ow-sse-parser.h"
#include "ow-json.h"
#include "providers/ow-provider.h"

G_BEGIN_DECLS

/* ---- The wire styles ------------------------------------------------- */

#define OW_TYPE_PROVIDER_OPENAI_CHAT (ow_provider_openai_chat_get_type ())
G_DECLARE_FINAL_TYPE (OwProviderOpenaiChat, ow_provider_openai_chat, OW, PROVIDER_OPENAI_CHAT,
                      OwProvider)
#define OW_TYPE_PROVIDER_OPENAI_RESPONSES (ow_provider_openai_responses_get_type ())
G_DECLARE_FINAL_TYPE (OwProviderOpenaiResponses, ow_provider_openai_responses, OW,
                      PROVIDER_OPENAI_RESPONSES, OwProvider)
#define OW_TYPE_PROVIDER_ANTHROPIC (ow_provider_anthropic_get_type ())
G_DECLARE_FINAL_TYPE (OwProviderAnthropic, ow_provider_anthropic, OW, PROVIDER_ANTHROPIC,
                      OwProvider)
#define OW_TYPE_PROVIDER_GEMINI (ow_provider_gemini_get_type ())
G_DECLARE_FINAL_TYPE (OwProviderGemini, ow_provider_gemini, OW, PROVIDER_GEMINI, OwProvider)
#define OW_TYPE_PROVIDER_OLLAMA (ow_provider_ollama_get_type ())
G_DECLARE_FINAL_TYPE (OwProviderOllama, ow_provider_ollama, OW, PROVIDER_OLLAMA, OwProvider)

/* ---- For subclasses, inside a vfunc of a running call ----------------- */

/* The request of the call being built or read. */
const OwModelRequest *ow_provider_get_request    (OwProvider *self);
/* Scratch state of the running call (stream assembly: open blocks, partial
 * tool calls, …); freed with @destroy when the call ends. */
gpointer              ow_provider_get_call_state (OwProvider *self);
void                  ow_provider_set_call_state (OwProvider     *self,
                                                  gpointer        state,
                                                  GDestroyNotify  destroy);

/* Quirks beyond the public string/bool getters: an integer, or the raw
 * member (arrays, objects) — NULL when absent. */
gint64                ow_provider_get_quirk_int  (OwProvider *self, const char *name,
                                                  gint64 fallback);
JsonNode             *ow_provider_get_quirk      (OwProvider *self, const char *name);

/* Appends streamed text to @turn (text or reasoning) and reports it. */
void                  ow_provider_append_delta   (OwProvider  *self,
                                                  OwTurn      *turn,
                                                  OwDeltaKind  kind,
                                                  const char  *text,
                                                  gssize       len);

/* base_url + @path, without doubling the slash between them. */
char          *ow_provider_build_url        (OwProvider *self, const char *path);
/* A POST of @body (transfer full) as JSON to @url. The base applies the
 * call's parameter fixes to the body's top level and keeps the body, which
 * the parameter fixer and the tests read back. */
OwHttpRequest *ow_provider_new_json_request (OwProvider *self, const char *url, JsonNode *body);
/* Adds a header and records it for the tests (values are never logged). */
void           ow_provider_add_header       (OwProvider    *self,
                                             OwHttpRequest *http,
                                             const char    *name,
                                             const char    *value);

/* "Param-fix" retries: a 400 that names a parameter the server does not
 * take is answered by resending without it (≤ 3 times per call). The fixer
 * reads the body that was sent and the server's message and writes the
 * changes to @edits: a member set to null removes that top-level member,
 * any other value replaces it. Returns FALSE when it has nothing to fix. */
typedef gboolean (*OwParamFixFunc) (OwProvider *self,
                                    JsonObject *sent_body,
                                    const char *message,
                                    JsonObject *edits);
void     ow_provider_set_param_fixer         (OwProvider *self, OwParamFixFunc func);
/* The rule both OpenAI styles share: "Unsupported parameter: 'x'" /
 * "unsupported value: 'x'" drops top-level member x. */
gboolean ow_provider_fix_unsupported_param   (JsonObject *sent_body,
                                              const char *message,
                                              JsonObject *edits);

/* A classified error for an error event inside a 2xx stream (Anthropic
 * "event: error", a top-level "error" chunk, Responses "response.failed",
 * an Ollama {"error":…} line). @type and @message are the wire's; both are
 * kept for OwCallInfo.cause. */
GError  *ow_provider_stream_error            (OwProvider *self,
                                              const char *type,
                                              const char *message);

/* Raw finish reason of the wire ("MALFORMED_FUNCTION_CALL", "load", …),
 * quoted in the empty-reply message. */
void     ow_provider_set_raw_finish_reason   (OwProvider *self, const char *raw);

/* The request's tools are OpenAI function schemas ({type:"function",
 * function:{name, description, parameters}}). The function of tools[@i],
 * or NULL when that entry is no function with a name (such an entry is
 * not sent on any wire). */
JsonObject *ow_provider_tool_function    (JsonArray  *tools,
                                          guint       i);
/* A new declaration of @function for a wire that lists tools its own way:
 * {type (when not NULL), name, description (when it has one)}, for the
 * style to add its schema member to. */
JsonObject *ow_provider_tool_declaration (JsonObject *function,
                                          const char *type);

/* Synthesizes "call_<n>" ids for wires without call ids, unique within the
 * process so two turns of one history never share an id. */
char    *ow_provider_synthesize_call_id      (void);

/* ---- The canonical history (ow-provider-history.c) ------------------- */

/* Every wire style builds its messages from one walk over the history, so
 * what is sent at all, what a message's text is, which leading system
 * messages form the prompt, how a user message splits into text, images
 * and files, and which call a tool result answers are decided once; the
 * style's visitor only writes its own JSON.
 *
 * The walk skips entries that are not objects and messages that never go
 * to a model (notices). Each outbound message is reported by kind: a
 * system message, a user message (and any role the wires do not know),
 * an assistant turn, a tool result. An assistant turn comes as reasoning,
 * then its text, then its tool calls, in the stored order. */

typedef enum {
  OW_HISTORY_SYSTEM,     /* a system message not taken into the prompt */
  OW_HISTORY_USER,       /* "user", and any role the wires do not know */
  OW_HISTORY_ASSISTANT,
  OW_HISTORY_TOOL,
} OwHistoryKind;

/* The message being visited. */
typedef struct {
  JsonObject    *message;  /* the stored entry, for its sidecars */
  const char    *role;     /* its role as stored */
  OwHistoryKind  kind;
} OwHistoryMessage;

typedef enum {
  OW_HISTORY_PART_TEXT,
  OW_HISTORY_PART_IMAGE,
  OW_HISTORY_PART_FILE,
} OwHistoryPartKind;

/* One piece of a user message. Content that is not a list of parts (a
 * string, null, absent) comes as one TEXT piece with @plain set. Any part
 * that is neither an image nor a file is TEXT ("" when it has none). */
typedef struct {
  OwHistoryPartKind  kind;
  gboolean           plain;      /* TEXT: the whole content, which was not a list of parts */
  const char        *text;       /* TEXT: never NULL */
  const char        *url;        /* IMAGE: image_url.url (or image_url itself, a string), or NULL */
  const char        *filename;   /* FILE: or NULL */
  const char        *file_data;  /* FILE: the data URL as stored, or NULL */
  const char        *mime;       /* IMAGE, FILE: of a base64 data URL; NULL for any other URL */
  const char        *data;       /* IMAGE, FILE: the base64 payload of that data URL, or NULL */
} OwHistoryPart;

/* One tool call of an assistant turn (entries that are not objects are
 * skipped). */
typedef struct {
  JsonObject *call;       /* the stored entry */
  const char *id;         /* or NULL */
  const char *name;       /* the function name; "" when the entry has none */
  JsonNode   *arguments;  /* as stored: JSON text, an object, or NULL */
} OwHistoryToolCall;

/* One tool result. */
typedef struct {
  const char *call_id;    /* tool_call_id, or NULL */
  const char *text;       /* the content as text */
  JsonObject *caller;     /* the latest earlier message that made the call; NULL for an orphan
                           * (a result whose call was compacted or trimmed away) */
  const char *name;       /* that call's function name; NULL for an orphan (or a nameless call) */
} OwHistoryToolResult;

/* Every callback may be NULL; what it would report is then not computed.
 * Strings and structs are valid during the callback only. */
typedef struct {
  /* The leading system messages joined with "\n\n", once, before any
   * message. When set, those messages are the prompt and are not visited;
   * when NULL, they are visited as OW_HISTORY_SYSTEM messages. */
  void (*system_prompt)  (const char *text, gpointer user_data);
  /* Before and after the pieces of each outbound message. */
  void (*message)        (const OwHistoryMessage *msg, gpointer user_data);
  void (*message_end)    (const OwHistoryMessage *msg, gpointer user_data);
  /* A system message's text. */
  void (*system_text)    (const OwHistoryMessage *msg, const char *text, gpointer user_data);
  void (*user_part)      (const OwHistoryMessage *msg, const OwHistoryPart *part,
                          gpointer user_data);
  /* Before the text of every assistant turn: the stored reasoning (or
   * NULL); a style replays its own sidecar here. */
  void (*reasoning)      (const OwHistoryMessage *msg, const char *reasoning, gpointer user_data);
  /* The turn's text, "" when it has none. */
  void (*assistant_text) (const OwHistoryMessage *msg, const char *text, gpointer user_data);
  void (*tool_call)      (const OwHistoryMessage *msg, const OwHistoryToolCall *call,
                          gpointer user_data);
  void (*tool_result)    (const OwHistoryMessage *msg, const OwHistoryToolResult *result,
                          gpointer user_data);
  /* For wires with no place for a system message past the prompt: such a
   * message is reported as a user message whose one piece is its text
   * wrapped in <system>…</system>, so it still reads as an instruction. */
  gboolean system_as_user;
} OwHistoryVisitor;

void        ow_history_walk          (JsonArray              *messages,
                                      const OwHistoryVisitor *visitor,
                                      gpointer                user_data);

/* For wires that want strict alternation of user and assistant (Anthropic,
 * Gemini). A visitor's user data starts with an OwHistoryFold and uses
 * ow_history_fold_begin() and ow_history_fold_end() as its message
 * callbacks; its piece callbacks add to @items. At each message's end its
 * items are appended to @out as one message, or folded into the last one
 * when that has the same role; a message with nothing in it is dropped. */
typedef struct {
  JsonArray  *out;             /* the wire messages */
  const char *member;          /* where a message's items go: "content", "parts" */
  const char *assistant_role;  /* the assistant's role on the wire; every other message is "user" */
  JsonArray  *items;           /* the items of the message being visited */
} OwHistoryFold;

void        ow_history_fold_begin    (const OwHistoryMessage *msg, gpointer fold);
void        ow_history_fold_end      (const OwHistoryMessage *msg, gpointer fold);
/* Replays an assistant turn's reasoning as its wire sent it: appends to
 * @out, verbatim and in order, the entries of the array @member of the
 * turn's sidecar @key whose "type" is one of @types (NULL-terminated).
 * Signatures and encrypted state only hold on an exact copy. */
void        ow_history_replay_sidecar (JsonArray         *out,
                                       JsonObject        *message,
                                       const char        *key,
                                       const char        *member,
                                       const char *const *types);
/* A tool call's arguments as an object, for wires that want one (see
 * ow_arguments_to_object()). */
JsonNode   *ow_history_call_arguments (const OwHistoryToolCall *call);

/* A message's content as plain text: the string itself, or the "text"
 * parts joined with "\n". */
char       *ow_history_content_text  (JsonObject *message);
/* The leading system message(s) joined with "\n\n", or NULL. *n_leading
 * receives how many history entries they were. */
char       *ow_history_system_text   (JsonArray *messages, guint *n_leading);
/* Whether a message goes to the model at all (notices do not). */
gboolean    ow_history_is_outbound   (JsonObject *message);
/* An outbound copy of an OpenAI-chat message with only the members the
 * Chat Completions wire defines for its role (role, content, name,
 * tool_calls, refusal, tool_call_id): never the engine's own keys. */
JsonObject *ow_history_strip_message (JsonObject *message);
/* The assistant's sidecar under @key ("_anthropic", …), or NULL. */
JsonObject *ow_history_sidecar       (JsonObject *message, const char *key);

/* Splits "data:<mime>;base64,<data>". */
gboolean    ow_data_url_parse        (const char *url, char **mime, char **data);
/* Tool-call arguments as an object for wires that want one: the parsed
 * JSON when it is an object, else {"_raw": text} so nothing is lost. */
JsonNode   *ow_arguments_to_object   (const char *arguments);

/* ---- Error bodies (ow-provider-errors.c) ------------------------------ */

/* What an error body says, whatever its shape (OpenAI, Anthropic, Gemini,
 * Ollama, vLLM, llama.cpp, OpenRouter, plain text). */
typedef struct {
  char   *type;            /* error.type, else error.code / error.status, else NULL */
  char   *message;         /* the human text, else a single-line excerpt of the body */
  gint64  retry_delay_ms;  /* Gemini RetryInfo.retryDelay; -1 = none */
} OwErrorBody;

void    ow_error_body_parse  (const char *body, OwErrorBody *out);
void    ow_error_body_clear  (OwErrorBody *err);

/* Classifies an error from what the server said. @status is 0 for an error
 * event inside a 2xx stream. */
GError *ow_provider_classify (const char *provider_title,
                              const char *key_env,
                              const char *model,
                              guint       status,
                              const char *type,
                              const char *message,
                              const char *body);

/* Milliseconds to wait, from retry-after-ms, Retry-After (seconds or an
 * HTTP-date, relative to @now_unix_us) or a Gemini RetryInfo in @body;
 * -1 when none says. */
gint64  ow_provider_parse_retry_after (const char *retry_after_ms,
                                       const char *retry_after,
                                       const char *body,
                                       gint64      now_unix_us);
/* An HTTP-date (IMF-fixdate, RFC 850 or asctime) as Unix seconds, or -1. */
gint64  ow_http_date_parse            (const char *text);
/* A protobuf Duration ("30s", "1.5s") in milliseconds, or -1. */
gint64  ow_duration_parse_ms          (const char *text);

/* ---- The per-call driver ---------------------------------------------- */

typedef struct _OwProviderCall OwProviderCall;

/* @req is copied (its strings and JSON stay borrowed). */
OwProviderCall *ow_provider_call_new           (OwProvider           *self,
                                                const OwModelRequest *req,
                                                OwDeltaFunc           on_delta,
                                                gpointer              delta_data);
void            ow_provider_call_free          (OwProviderCall *call);
/* Runs build_request (with the fixes collected so far). */
OwHttpRequest  *ow_provider_call_build         (OwProviderCall *call, GError **error);
/* What the last build produced. */
JsonNode       *ow_provider_call_get_body      (OwProviderCall *call);
const char     *ow_provider_call_get_url       (OwProviderCall *call);
const char     *ow_provider_call_get_header    (OwProviderCall *call, const char *name);
/* Every header of the last build, as "Name: value" lines in the order set. */
GPtrArray      *ow_provider_call_get_headers   (OwProviderCall *call);
/* Offers an error reply to the parameter fixer; TRUE when the next build
 * differs and a retry is worth it (at most 3 per call). */
gboolean        ow_provider_call_fix_params    (OwProviderCall *call, guint status,
                                                const char *body);
/* Streamed 2xx body bytes, split anywhere. FALSE with a classified error
 * when the stream carried an error event or could not be read. */
gboolean        ow_provider_call_feed          (OwProviderCall *call,
                                                const char     *bytes,
                                                gsize           len,
                                                GError        **error);
/* The stream ended cleanly: the turn, or CUT_OFF / EMPTY_REPLY / REFUSED
 * with what arrived in @partial. */
OwTurn         *ow_provider_call_finish_stream (OwProviderCall *call,
                                                OwTurn        **partial,
                                                GError        **error);
/* A whole non-streamed 2xx body. */
OwTurn         *ow_provider_call_parse_body    (OwProviderCall *call,
                                                const char     *body,
                                                gsize           len,
                                                OwTurn        **partial,
                                                GError        **error);

/* ---- Shared by the base's own files ------------------------------------ */

/* The wire styles never touch these: they are how ow-provider.c,
 * ow-provider-call.c, ow-provider-subclass.c and ow-provider-async.c share
 * one call. */

struct _OwProviderCall
{
  /* owned references */
  OwProvider      *provider;        /* the provider making the call */
  OwTurn          *turn;            /* the reply being assembled in this attempt */
  OwSseParser     *sse;             /* SSE framing of a streamed reply, made on the first bytes */
  OwNdjsonParser  *ndjson;          /* NDJSON framing (Ollama), likewise */
  GError          *stream_error;    /* the first error raised while reading the reply */
  gpointer         state;           /* the subclass's scratch state for this attempt */
  GDestroyNotify   state_destroy;   /* frees @state */
  JsonObject      *edits;           /* parameter fixes for every build (a null member: removed) */
  JsonNode        *body;            /* the body of the last build */
  char            *url;             /* the URL of the last build */
  GPtrArray       *headers;         /* "Name: value" lines of the last build */
  char            *err_type;        /* an in-stream error's type, as the wire said it */
  char            *err_message;     /* an in-stream error's message, as the wire said it */
  char            *raw_finish;      /* the wire's own finish reason, for the empty-reply message */
  char            *detail;          /* what went wrong, for OwCallInfo.cause */
  GByteArray      *whole_body;      /* a streamed request answered with one JSON document */

  /* the request */
  OwModelRequest   req;             /* a copy; its strings and JSON are borrowed from the caller */
  OwDeltaFunc      on_delta;        /* reports streamed text, or NULL */
  gpointer         delta_data;      /* for @on_delta */

  /* progress */
  guint            n_fixes;         /* parameter-fix resends so far */
  gsize            n_bytes;         /* reply bytes received in this attempt */
  OwProviderCall  *outer;           /* the call that was current before this one entered */

  /* the asynchronous run (unused when the tests drive the call) */
  GCancellable    *cancellable;     /* the caller's, or NULL */
  OwCallInfo      *info;            /* the facts handed to complete_finish() */
  OwTurn          *partial;         /* what arrived before a failure */
  gint64           started_us;      /* monotonic start of the call, for the duration */
};

/* Vfuncs run with their call as the provider's current one; calls nest. */
void            ow_provider_call_enter          (OwProviderCall *call);
void            ow_provider_call_leave          (OwProviderCall *call);
OwProviderCall *ow_provider_get_current_call    (OwProvider *self);
OwParamFixFunc  ow_provider_get_param_fixer     (OwProvider *self);
OwHttpClient   *ow_provider_get_http_client     (OwProvider *self);

/* Starts the next attempt: a fresh turn, framing and scratch state. */
void            ow_provider_call_reset_attempt  (OwProviderCall *call);
/* What went wrong, for OwCallInfo.cause. */
void            ow_provider_call_set_detail     (OwProviderCall *call,
                                                 const char     *format,
                                                 ...) G_GNUC_PRINTF (2, 3);
/* The CUT_OFF error for a stream that ended before its terminal event. */
GError         *ow_provider_call_cut_off_error  (OwProviderCall *call);

G_END_DECLS
