/* ow-chat-request.h: the body of POST /v1/chat/completions.
 *
 * The OpenAI-compatible route lets any OpenAI client talk to any model
 * this machine has a key for; there is no agent loop behind it, only the
 * provider. The body is hostile input: this parser checks every member it
 * uses and turns the messages into the engine's canonical history (which
 * is OpenAI-chat shaped already): "developer" becomes "system", members
 * starting with "_" (the engine's provider sidecars) are dropped, roles,
 * contents, tool calls and tools are checked. Pure; fuzzed.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define OW_CHAT_MAX_MESSAGES 4096
#define OW_CHAT_MAX_TOOLS    256

typedef struct {
  char      *model;             /* as given; NULL = the default model */
  JsonArray *messages;          /* canonical, checked */
  JsonArray *tools;             /* {type:function, function:{name, description?, parameters?}}, or NULL */
  gboolean   stream;
  gboolean   include_usage;     /* stream_options.include_usage */
  gint64     max_tokens;        /* 0 = unset */
  double     temperature;       /* < 0 = unset */
  double     top_p;             /* < 0 = unset */
  char      *reasoning_effort;  /* NULL = unset */
} OwChatRequest;

void           ow_chat_request_free  (OwChatRequest *req);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwChatRequest, ow_chat_request_free)

/* NULL with @error_text (a sentence for the error body) when refused. */
OwChatRequest *ow_chat_request_parse (const char *body, gsize len, char **error_text);

G_END_DECLS
