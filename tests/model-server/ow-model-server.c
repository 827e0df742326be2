/* ow-model-server.c: a scripted model server that speaks the real wires.
 *
 * The engine and end-to-end tests never reach a real model service. They run
 * this server on 127.0.0.1 instead, and point the production HTTP client and
 * provider code at it unchanged. The server answers each model request with
 * the next turn of a JSON script, in the wire style the request's path names:
 * OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini or
 * Ollama's native API, streaming or not. Because the client under test parses
 * these bytes exactly as it parses a real service's, the shapes here follow
 * the services closely: SSE framing and `data: [DONE]`, named events, Gemini's
 * CRLF-framed alt=sse chunks, Ollama's NDJSON, status codes, error bodies,
 * Retry-After and request-id headers. It also misbehaves on purpose when a
 * script says so: errors of every class, failures mid-stream, delays, and
 * connections cut in the middle of a reply.
 *
 * Everything runs on the thread-default main context of the caller, so a test
 * can run the server and its client on one main loop. Nothing blocks: delays
 * are GLib timeouts, a paced stream pauses the message and appends one event
 * per tick, and a cut-off reply takes the connection over from libsoup,
 * writes part of an HTTP response itself and closes it.
 *
 * Every request except the /_script/ control routes is recorded as
 * {method, path, query, headers, body, turn, n} for the test to inspect.
 *
 * Files: this one routes, records, checks expectations and sends;
 * ow-model-server-script.c validates and compiles the script;
 * ow-model-server-reply.c has the shared reply helpers; and
 * ow-model-server-{openai,anthropic,gemini,ollama}.c build each wire's bytes.
 *
 * ## Script format
 *
 *   { "style": "openai-chat",   optional: every turn must come in this style
 *                               (openai-chat, openai-responses, anthropic,
 *                               gemini, ollama), else 400 expectation failure
 *     "models": ["m1", …],      optional: for GET …/models, /api/tags, /api/show
 *     "keys": ["k1", …],        optional: the API keys accepted; a request
 *                               carrying none of them (Authorization: Bearer,
 *                               x-api-key, x-goog-api-key, ?key=) gets the
 *                               wire's bad_key answer and consumes no turn
 *     "turns": [ TURN, … ] }
 *
 *   TURN (every key optional; unknown keys are an error):
 *     "text": "…"               the answer text
 *     "text_chunks": N          split text (and reasoning) into N stream
 *                               deltas; default pieces of ≤16 bytes, cut on
 *                               UTF-8 character boundaries
 *     "reasoning": "…"          thinking: Anthropic thinking block with a
 *                               signature_delta; OpenAI Chat
 *                               delta.reasoning_content; Responses reasoning
 *                               item (summary, encrypted_content when the
 *                               request includes reasoning.encrypted_content);
 *                               Gemini thought parts (+ thoughtSignature);
 *                               Ollama message.thinking
 *     "tool_calls": [{"id": "call_1", "name": "run_shell",
 *                     "arguments": {…} | "arguments_raw": "{not json"}]
 *                               ids are made up when absent; Gemini sends
 *                               none; Ollama sends arguments as an object and
 *                               arguments_raw as a string (so do Gemini and a
 *                               whole Anthropic message)
 *     "finish": "stop" | "tool_calls" | "length"
 *                               default tool_calls with calls, else stop;
 *                               mapped to end_turn/tool_use/max_tokens,
 *                               STOP/MAX_TOKENS, done_reason stop/length,
 *                               Responses status incomplete with
 *                               incomplete_details.reason max_output_tokens
 *     "usage": {"input", "output", "cache_read", "cache_write", "reasoning"}
 *                               engine terms: input is the uncached prompt,
 *                               reasoning is part of output; missing fields
 *                               are 0; no "usage" means {input 10, output 5}.
 *                               OpenAI prompt_tokens / Responses input_tokens
 *                               = input + cache_read + cache_write
 *                               (cached_tokens = cache_read); Anthropic
 *                               input_tokens = input, cache_* beside it;
 *                               Gemini promptTokenCount = the prompt total,
 *                               cachedContentTokenCount = cache_read,
 *                               candidatesTokenCount = output - reasoning,
 *                               thoughtsTokenCount = reasoning; Ollama
 *                               prompt_eval_count = the prompt total,
 *                               eval_count = output
 *     "stream": true | false    absent: follow the request (body "stream",
 *                               Ollama's default true, Gemini's
 *                               streamGenerateContent)
 *     "delay_ms": n             wait before the response headers
 *     "chunk_delay_ms": n       wait between stream events
 *     "drop_after": n           streaming: send n events (never the terminal
 *                               one) and close the connection mid-body;
 *                               otherwise: declare the full Content-Length,
 *                               send at most n bytes (never all) and close
 *     "error": {"kind": …, "status": n, "message": "…",
 *               "retry_after": seconds, "in_stream": false}
 *                               kinds rate_limit, quota, overloaded, server,
 *                               bad_key, unknown_model, context_overflow,
 *                               bad_request, permission, each with the
 *                               service's usual status, body and words (the
 *                               status and message can be overridden; a status
 *                               alone picks the usual kind). retry_after adds
 *                               a retry-after header, or for Gemini a RetryInfo
 *                               retryDelay. in_stream: status 200, the reply's
 *                               content events, then the wire's error event in
 *                               place of the finish (a request that does not
 *                               stream gets the HTTP error instead)
 *     "raw": {"status": 200, "headers": {…}, "body": "…"}
 *                               sent as given (libsoup frames the body)
 *     "repeat": N               serve this turn N times; "{n}" in any string
 *                               of the turn becomes 1…N
 *     "expect": {"path", "model", "header": {name: value}, "body_contains":
 *                ["…"], "last_message_contains": "…"}
 *                               checked against the request; a mismatch
 *                               answers 400 {"error":"script expectation
 *                               failed: …"} and is recorded (as "expectation")
 *
 * ## Routes
 *
 *   POST …/chat/completions                     OpenAI Chat Completions
 *   POST …/responses                            OpenAI Responses
 *   POST …/messages                             Anthropic Messages
 *   POST …/models/{model}:generateContent       Gemini
 *   POST …/models/{model}:streamGenerateContent Gemini (alt=sse: SSE, else a JSON array)
 *   POST /api/chat                              Ollama
 *   GET  …/models, …/models/{id}                model list: OpenAI shape; Gemini's
 *                                               under v1beta; Anthropic's when the
 *                                               request has anthropic-version
 *   GET  /api/tags, /api/version; POST /api/show   Ollama discovery
 *   GET  /_script/requests                      the recorded requests, a JSON array
 *   GET  /_script/state                         {"served": n, "remaining": m}
 *
 * Each model POST consumes the next turn, even when it then fails an
 * expectation; when the turns run out the answer is 500
 * {"error":{"message":"script exhausted after N turns"}}.
 */
#define G_LOG_DOMAIN "ow-model-server"

#include "ow-model-server-private.h"

#include <string.h>

/* The model a request names when its body names none. */
#define DEFAULT_MODEL "scripted-model"

/* A reply in flight: a delayed answer, a paced stream, or a connection
 * being cut. Lives until libsoup finishes the message or the taken-over
 * connection is closed. */
typedef struct {
  OwModelServer     *self;          /* borrowed: the server frees its exchanges first */
  SoupServerMessage *msg;           /* owned reference */
  OwMsTurn          *owned_turn;    /* the "{n}" instance the reply uses, or NULL */
  OwMsReply          reply;
  gboolean           paused;        /* the message is paused (a delay before headers) */
  guint              next_event;    /* index of the next stream event to send */
  guint              n_to_send;     /* events (or body bytes) to send before cutting */
  GSource           *timer;         /* pending delay or pacing tick */
  gulong             finished_id;
  GIOStream         *stream;        /* the taken-over connection when cutting it */
  struct _CutOp     *pending;       /* the write or close in flight on it, or NULL */
} Exchange;

/* One write or close in flight on a taken-over connection. It owns its
 * bytes, so it reads nothing freed if the exchange goes first (the server
 * being disposed), and its ex is then NULL. */
typedef struct _CutOp {
  Exchange *ex;
  GBytes   *bytes;
} CutOp;

struct _OwModelServer
{
  GObject       parent_instance;

  /* Owned references */
  SoupServer   *soup;
  GMainContext *context;      /* where timers run: the creator's thread-default */
  OwMsScript   *script;
  JsonArray    *requests;     /* recorded requests, oldest first */
  GRand        *rand;         /* for ids */
  GPtrArray    *exchanges;    /* Exchange* still in flight */

  /* State */
  guint         port;
  guint         n_requests;   /* recorded so far */
  guint         served;       /* model requests that consumed a turn */
  guint         turn_index;   /* the turn that answers next */
  guint         turn_served;  /* times turn_index has been served */
};

G_DEFINE_FINAL_TYPE (OwModelServer, ow_model_server, G_TYPE_OBJECT)

enum {
  SIGNAL_REQUEST,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void exchange_free (Exchange *ex);

/* ---- GObject ------------------------------------------------------------- */

static void
ow_model_server_dispose (GObject *object)
{
  OwModelServer *self = OW_MODEL_SERVER (object);

  /* Exchanges hold messages and timers of the soup server: end them first. */
  while (self->exchanges != NULL && self->exchanges->len > 0)
    exchange_free (self->exchanges->pdata[self->exchanges->len - 1]);
  if (self->soup != NULL)
    soup_server_disconnect (self->soup);
  g_clear_object (&self->soup);

  G_OBJECT_CLASS (ow_model_server_parent_class)->dispose (object);
}

static void
ow_model_server_finalize (GObject *object)
{
  OwModelServer *self = OW_MODEL_SERVER (object);

  g_clear_pointer (&self->exchanges, g_ptr_array_unref);
  g_clear_pointer (&self->script, ow_ms_script_free);
  g_clear_pointer (&self->requests, json_array_unref);
  g_clear_pointer (&self->rand, g_rand_free);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (ow_model_server_parent_class)->finalize (object);
}

static void
ow_model_server_class_init (OwModelServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_model_server_dispose;
  object_class->finalize = ow_model_server_finalize;

  /**
   * OwModelServer::request:
   * @self: the server
   * @record: (transfer none): the recorded request, as ow_model_server_get_requests() holds it
   *
   * Emitted after each request (except the control routes) is recorded and
   * its answer decided. The standalone program logs these.
   */
  signals[SIGNAL_REQUEST] =
    g_signal_new ("request", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT);
}

static void
ow_model_server_init (OwModelServer *self)
{
  self->requests = json_array_new ();
  self->rand = g_rand_new ();
  self->exchanges = g_ptr_array_new ();
}

/* ---- Small helpers ------------------------------------------------------- */

static void
respond_json (SoupServerMessage *msg,
              guint              status,
              JsonObject        *body)
{
  g_autofree char *text = ow_ms_json_to_string (body);

  soup_server_message_set_status (msg, status, ow_ms_status_phrase (status));
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, text, strlen (text));
}

static void
respond_error_text (SoupServerMessage *msg,
                    guint              status,
                    const char        *message)
{
  g_autoptr(JsonObject) body = json_object_new ();

  json_object_set_string_member (body, "error", message);
  respond_json (msg, status, body);
}

static const char *
body_string (JsonObject *body,
             const char *name)
{
  JsonNode *node = body != NULL ? json_object_get_member (body, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static int
body_bool (JsonObject *body,
           const char *name)
{
  JsonNode *node = body != NULL ? json_object_get_member (body, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return -1;
  return json_node_get_boolean (node);
}

static guint
remaining_turns (OwModelServer *self)
{
  guint remaining = 0;

  for (guint i = self->turn_index; i < self->script->turns->len; i++)
    {
      OwMsTurn *turn = self->script->turns->pdata[i];

      remaining += turn->repeat;
    }
  return remaining - self->turn_served;
}

/* ---- Recording ----------------------------------------------------------- */

static void
add_header_cb (const char *name,
               const char *value,
               gpointer    user_data)
{
  JsonObject *headers = user_data;
  g_autofree char *lower = g_ascii_strdown (name, -1);
  const char *previous = json_object_has_member (headers, lower)
                         ? json_object_get_string_member (headers, lower) : NULL;

  /* Repeated headers fold into one, as HTTP allows. */
  if (previous != NULL)
    {
      g_autofree char *joined = g_strconcat (previous, ", ", value, NULL);
      json_object_set_string_member (headers, lower, joined);
    }
  else
    json_object_set_string_member (headers, lower, value);
}

/* Records the request; returns the record (owned by the requests array)
 * and the parsed body object, if the body is one. */
static JsonObject *
record_request (OwModelServer      *self,
                SoupServerMessage  *msg,
                const char         *path,
                JsonObject        **body_out)
{
  GUri *uri = soup_server_message_get_uri (msg);
  SoupMessageBody *request_body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (request_body);
  JsonObject *record = json_object_new ();
  JsonObject *headers = json_object_new ();
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  *body_out = NULL;
  json_object_set_string_member (record, "method", soup_server_message_get_method (msg));
  json_object_set_string_member (record, "path", path);
  ow_ms_set_string (record, "query", g_uri_get_query (uri));
  soup_message_headers_foreach (soup_server_message_get_request_headers (msg), add_header_cb, headers);
  json_object_set_object_member (record, "headers", headers);

  if (len == 0)
    json_object_set_null_member (record, "body");
  else
    {
      g_autoptr(JsonParser) parser = json_parser_new_immutable ();

      if (json_parser_load_from_data (parser, data, (gssize) len, NULL))
        {
          JsonNode *root = json_parser_steal_root (parser);

          json_object_set_member (record, "body", root);
          if (JSON_NODE_HOLDS_OBJECT (root))
            *body_out = json_node_get_object (root);
        }
      else
        {
          g_autofree char *text = g_utf8_make_valid (data, (gssize) len);
          json_object_set_string_member (record, "body", text);
        }
    }
  json_object_set_null_member (record, "turn");
  json_object_set_int_member (record, "n", ++self->n_requests);
  /* Wall-clock arrival, so a benchmark can time a client's start-up to its
   * first request. */
  json_object_set_int_member (record, "received_at_us", g_get_real_time ());
  json_array_add_object_element (self->requests, record);
  return record;
}

/* ---- Expectations -------------------------------------------------------- */

static void
collect_strings (JsonNode *node,
                 GString  *out)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        collect_strings (json_object_get_member (object, l->data), out);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        collect_strings (json_array_get_element (array, i), out);
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_string_append (out, json_node_get_string (node));
      g_string_append_c (out, '\n');
    }
}

/* All the strings in the request's last message, whatever its wire shape
 * (messages, Responses input, Gemini contents), one per line. */
static char *
last_message_text (OwMsStyle   style,
                   JsonObject *body)
{
  const char *member = style == OW_MS_STYLE_GEMINI ? "contents"
                       : style == OW_MS_STYLE_OPENAI_RESPONSES ? "input" : "messages";
  JsonNode *node = body != NULL ? json_object_get_member (body, member) : NULL;
  GString *out = g_string_new (NULL);

  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint len = json_array_get_length (array);

      if (len > 0)
        collect_strings (json_array_get_element (array, len - 1), out);
    }
  else if (node != NULL)
    collect_strings (node, out);
  return g_string_free (out, FALSE);
}

/* NULL when the request meets the turn's expectations, else what failed. */
static char *
check_expectations (const OwMsTurn    *turn,
                    OwMsStyle          style,
                    SoupServerMessage *msg,
                    const char        *path,
                    const char        *model,
                    JsonObject        *body)
{
  if (turn->expect_path != NULL && !g_str_equal (turn->expect_path, path))
    return g_strdup_printf ("expected path \"%s\", got \"%s\"", turn->expect_path, path);

  if (turn->expect_model != NULL && g_strcmp0 (turn->expect_model, model) != 0)
    return g_strdup_printf ("expected model \"%s\", got \"%s\"", turn->expect_model, model);

  for (guint i = 0; turn->expect_headers != NULL && i < turn->expect_headers->len; i += 2)
    {
      const char *name = turn->expect_headers->pdata[i];
      const char *want = turn->expect_headers->pdata[i + 1];
      const char *got = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), name);

      if (g_strcmp0 (want, got) != 0)
        return g_strdup_printf ("expected header %s: \"%s\", got %s%s%s", name, want,
                                got != NULL ? "\"" : "", got != NULL ? got : "none",
                                got != NULL ? "\"" : "");
    }

  if (turn->expect_body_contains != NULL)
    {
      g_autoptr(GBytes) bytes = soup_message_body_flatten (soup_server_message_get_request_body (msg));
      gsize len;
      const char *data = g_bytes_get_data (bytes, &len);

      for (guint i = 0; turn->expect_body_contains[i] != NULL; i++)
        {
          const char *needle = turn->expect_body_contains[i];

          if (g_strstr_len (data, (gssize) len, needle) == NULL)
            return g_strdup_printf ("expected the body to contain \"%s\"", needle);
        }
    }

  if (turn->expect_last_message_contains != NULL)
    {
      g_autofree char *text = last_message_text (style, body);

      if (strstr (text, turn->expect_last_message_contains) == NULL)
        return g_strdup_printf ("expected the last message to contain \"%s\"",
                                turn->expect_last_message_contains);
    }
  return NULL;
}

/* ---- Sending ------------------------------------------------------------- */

static GSource *
schedule (OwModelServer *self,
          guint          delay_ms,
          GSourceFunc    func,
          gpointer       data)
{
  GSource *source = g_timeout_source_new (delay_ms);

  g_source_set_callback (source, func, data, NULL);
  g_source_set_static_name (source, "[ow-model-server] scripted delay");
  g_source_attach (source, self->context);
  return source;
}

static void
exchange_free (Exchange *ex)
{
  g_ptr_array_remove_fast (ex->self->exchanges, ex);
  if (ex->timer != NULL)
    {
      g_source_destroy (ex->timer);
      g_clear_pointer (&ex->timer, g_source_unref);
    }
  /* An operation still in flight on a taken-over connection finds its
   * exchange gone and only cleans up after itself; it holds its own
   * reference to the stream, whose last unref closes the socket. */
  if (ex->pending != NULL)
    ex->pending->ex = NULL;
  g_clear_signal_handler (&ex->finished_id, ex->msg);
  g_clear_object (&ex->stream);
  g_clear_object (&ex->msg);
  ow_ms_reply_clear (&ex->reply);
  g_clear_pointer (&ex->owned_turn, ow_ms_turn_free);
  g_free (ex);
}

static void
on_message_finished_cb (SoupServerMessage *msg,
                        gpointer           user_data)
{
  exchange_free (user_data);
}

static void
set_headers (Exchange *ex)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (ex->msg);
  OwMsReply *reply = &ex->reply;

  soup_server_message_set_status (ex->msg, reply->status, ow_ms_status_phrase (reply->status));
  for (guint i = 0; i < reply->headers->len; i += 2)
    soup_message_headers_append (headers, reply->headers->pdata[i], reply->headers->pdata[i + 1]);
}

static void
send_raw (Exchange *ex)
{
  const OwMsTurn *turn = ex->reply.turn;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (ex->msg);
  const char *content_type = NULL;
  gsize len = strlen (turn->raw_body);

  soup_server_message_set_status (ex->msg, turn->raw_status, ow_ms_status_phrase (turn->raw_status));
  for (guint i = 0; i < turn->raw_headers->len; i += 2)
    {
      const char *name = turn->raw_headers->pdata[i];

      /* libsoup frames the body; a scripted framing header would fight it. */
      if (g_ascii_strcasecmp (name, "content-length") == 0
          || g_ascii_strcasecmp (name, "transfer-encoding") == 0)
        continue;
      if (g_ascii_strcasecmp (name, "content-type") == 0)
        content_type = turn->raw_headers->pdata[i + 1];
      else
        soup_message_headers_append (headers, name, turn->raw_headers->pdata[i + 1]);
    }
  if (content_type != NULL)
    soup_message_headers_set_content_type (headers, content_type, NULL);
  soup_message_headers_set_content_length (headers, len);
  soup_message_body_append (soup_server_message_get_response_body (ex->msg), SOUP_MEMORY_COPY,
                            turn->raw_body, len);
  soup_message_body_complete (soup_server_message_get_response_body (ex->msg));
}

static gboolean
on_stream_tick_cb (gpointer user_data)
{
  Exchange *ex = user_data;
  SoupMessageBody *body = soup_server_message_get_response_body (ex->msg);

  g_clear_pointer (&ex->timer, g_source_unref);
  soup_message_body_append_bytes (body, ex->reply.events->pdata[ex->next_event++]);
  if (ex->next_event == ex->reply.events->len)
    soup_message_body_complete (body);
  else
    ex->timer = schedule (ex->self, ex->reply.turn->chunk_delay_ms, on_stream_tick_cb, ex);
  soup_server_message_unpause (ex->msg);
  return G_SOURCE_REMOVE;
}

/* Puts the reply on the message: headers, and the body or the first stream
 * event (the rest follow on ticks when paced). */
static void
send_reply (Exchange *ex)
{
  OwMsReply *reply = &ex->reply;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (ex->msg);
  SoupMessageBody *body = soup_server_message_get_response_body (ex->msg);

  if (reply->turn->has_raw)
    {
      send_raw (ex);
      return;
    }

  set_headers (ex);
  if (!reply->stream || reply->status != SOUP_STATUS_OK || reply->events->len == 0)
    {
      soup_server_message_set_response (ex->msg, reply->content_type, SOUP_MEMORY_COPY,
                                        reply->body->str, reply->body->len);
      return;
    }

  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_set_content_type (headers, reply->content_type, NULL);
  if (reply->turn->chunk_delay_ms == 0)
    {
      /* Unpaced, the events go out in one write: libsoup sends each
       * appended chunk with its own syscall and TCP segment, which
       * dominated the cost of a request, and a client cannot tell the
       * difference from a fast server. Paced streams go event by event. */
      GString *all = g_string_new (NULL);

      for (guint i = 0; i < reply->events->len; i++)
        {
          gsize len;
          const char *data = g_bytes_get_data (reply->events->pdata[i], &len);

          g_string_append_len (all, data, (gssize) len);
        }
      soup_message_body_append_take (body, (guchar *) all->str, all->len);
      g_string_free (all, FALSE);
      soup_message_body_complete (body);
      return;
    }

  /* Paced: the first event goes with the headers; each tick appends the
   * next and unpauses the message, which libsoup pauses again whenever it
   * runs out of body. */
  ex->next_event = 0;
  on_stream_tick_cb (ex);
}

static gboolean
on_delay_done_cb (gpointer user_data)
{
  Exchange *ex = user_data;

  g_clear_pointer (&ex->timer, g_source_unref);
  send_reply (ex);
  if (ex->paused)
    {
      ex->paused = FALSE;
      soup_server_message_unpause (ex->msg);
    }
  return G_SOURCE_REMOVE;
}

/* ---- Cutting a connection ------------------------------------------------ */

static void cut_write_next (Exchange *ex);

static CutOp *
cut_op_new (Exchange *ex,
            GBytes   *bytes)
{
  CutOp *op = g_new0 (CutOp, 1);

  op->ex = ex;
  op->bytes = bytes;
  ex->pending = op;
  return op;
}

/* Frees @op; returns its exchange if that is still alive. */
static Exchange *
cut_op_finish (CutOp *op)
{
  Exchange *ex = op->ex;

  if (ex != NULL)
    ex->pending = NULL;
  g_clear_pointer (&op->bytes, g_bytes_unref);
  g_free (op);
  return ex;
}

static void
on_cut_closed_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Exchange *ex = cut_op_finish (user_data);

  g_io_stream_close_finish (G_IO_STREAM (source), result, NULL);
  if (ex != NULL)
    exchange_free (ex);
}

static void
cut_close (Exchange *ex)
{
  g_io_stream_close_async (ex->stream, G_PRIORITY_DEFAULT, NULL, on_cut_closed_cb,
                           cut_op_new (ex, NULL));
}

static gboolean
on_cut_tick_cb (gpointer user_data)
{
  Exchange *ex = user_data;

  g_clear_pointer (&ex->timer, g_source_unref);
  cut_write_next (ex);
  return G_SOURCE_REMOVE;
}

static void
on_cut_written_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Exchange *ex = cut_op_finish (user_data);
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      if (ex != NULL)
        {
          g_debug ("cut-off reply: the client left early: %s", error->message);
          cut_close (ex);
        }
    }
  else if (ex == NULL)
    return;
  else if (ex->next_event >= ex->n_to_send)
    cut_close (ex);
  else if (ex->reply.turn->chunk_delay_ms > 0)
    ex->timer = schedule (ex->self, ex->reply.turn->chunk_delay_ms, on_cut_tick_cb, ex);
  else
    cut_write_next (ex);
}

/* Takes @bytes. */
static void
cut_write (Exchange *ex,
           GBytes   *bytes)
{
  GOutputStream *out = g_io_stream_get_output_stream (ex->stream);
  gsize len;
  const void *data = g_bytes_get_data (bytes, &len);

  g_output_stream_write_all_async (out, data, len, G_PRIORITY_DEFAULT, NULL, on_cut_written_cb,
                                   cut_op_new (ex, bytes));
}

/* Writes the next stream event as an HTTP chunk. */
static void
cut_write_next (Exchange *ex)
{
  GBytes *event = ex->reply.events->pdata[ex->next_event++];
  gsize len = g_bytes_get_size (event);
  GString *framed = g_string_new (NULL);

  g_string_append_printf (framed, "%" G_GSIZE_MODIFIER "x\r\n", len);
  g_string_append_len (framed, g_bytes_get_data (event, NULL), (gssize) len);
  g_string_append (framed, "\r\n");
  cut_write (ex, g_string_free_to_bytes (framed));
}

/* Writes the status line and headers, then part of the body: the first
 * n_to_send events as chunks, or the first n_to_send bytes of a body whose
 * Content-Length promises all of it; then closes. */
static gboolean
on_cut_start_cb (gpointer user_data)
{
  Exchange *ex = user_data;
  OwMsReply *reply = &ex->reply;
  gboolean chunked = reply->stream && reply->status == SOUP_STATUS_OK && reply->events->len > 0;
  GString *head = g_string_new (NULL);

  g_clear_pointer (&ex->timer, g_source_unref);
  g_string_append_printf (head, "HTTP/1.1 %u %s\r\n", reply->status,
                          ow_ms_status_phrase (reply->status));
  g_string_append_printf (head, "Content-Type: %s\r\n", reply->content_type);
  for (guint i = 0; i < reply->headers->len; i += 2)
    g_string_append_printf (head, "%s: %s\r\n", (char *) reply->headers->pdata[i],
                            (char *) reply->headers->pdata[i + 1]);
  if (chunked)
    {
      /* Never the terminal event: the point is a reply without its end. */
      ex->n_to_send = MIN ((guint) reply->turn->drop_after, reply->events->len - 1);
      g_string_append (head, "Transfer-Encoding: chunked\r\n\r\n");
    }
  else
    {
      gsize n = MIN ((gsize) reply->turn->drop_after, reply->body->len > 0 ? reply->body->len - 1 : 0);

      g_string_append_printf (head, "Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n", reply->body->len);
      g_string_append_len (head, reply->body->str, (gssize) n);
      ex->n_to_send = 0;
    }
  ex->next_event = 0;
  cut_write (ex, g_string_free_to_bytes (head));
  return G_SOURCE_REMOVE;
}

/* ---- Model requests ------------------------------------------------------ */

static gboolean
style_for_path (const char *path,
                OwMsStyle  *style,
                char      **gemini_model,
                gboolean   *gemini_stream)
{
  const char *models;
  const char *colon;

  if (g_str_has_suffix (path, "/chat/completions"))
    *style = OW_MS_STYLE_OPENAI_CHAT;
  else if (g_str_has_suffix (path, "/responses"))
    *style = OW_MS_STYLE_OPENAI_RESPONSES;
  else if (g_str_has_suffix (path, "/messages"))
    *style = OW_MS_STYLE_ANTHROPIC;
  else if (g_str_equal (path, "/api/chat"))
    *style = OW_MS_STYLE_OLLAMA;
  else if ((models = strstr (path, "/models/")) != NULL
           && (colon = strchr (models + strlen ("/models/"), ':')) != NULL
           && (g_str_equal (colon, ":generateContent")
               || g_str_equal (colon, ":streamGenerateContent")))
    {
      const char *start = models + strlen ("/models/");

      *style = OW_MS_STYLE_GEMINI;
      *gemini_model = g_strndup (start, (gsize) (colon - start));
      *gemini_stream = g_str_equal (colon, ":streamGenerateContent");
    }
  else
    return FALSE;
  return TRUE;
}

typedef void (*BuildFunc) (OwMsReply *reply);

static const BuildFunc builders[OW_MS_N_STYLES] = {
  [OW_MS_STYLE_OPENAI_CHAT] = ow_ms_build_openai_chat,
  [OW_MS_STYLE_OPENAI_RESPONSES] = ow_ms_build_openai_responses,
  [OW_MS_STYLE_ANTHROPIC] = ow_ms_build_anthropic,
  [OW_MS_STYLE_GEMINI] = ow_ms_build_gemini,
  [OW_MS_STYLE_OLLAMA] = ow_ms_build_ollama,
};

static void
serve_model_request (OwModelServer     *self,
                     SoupServerMessage *msg,
                     const char        *path,
                     GHashTable        *query,
                     OwMsStyle          style,
                     const char        *gemini_model,
                     gboolean           gemini_stream,
                     JsonObject        *record,
                     JsonObject        *body)
{
  OwMsTurn *turn;
  guint turn_index = self->turn_index;
  g_autofree char *failure = NULL;
  const char *model;
  Exchange *ex;
  int stream;

  if (self->turn_index >= self->script->turns->len)
    {
      g_autoptr(JsonObject) error = json_object_new ();
      JsonObject *inner = json_object_new ();
      g_autofree char *message = g_strdup_printf ("script exhausted after %u turns", self->served);

      json_object_set_string_member (inner, "message", message);
      json_object_set_object_member (error, "error", inner);
      respond_json (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, error);
      return;
    }

  /* Consume the turn before anything can fail, so that the script stays in
   * step with the requests whatever happens. */
  turn = self->script->turns->pdata[turn_index];
  ex = g_new0 (Exchange, 1);
  ex->self = self;
  ex->msg = g_object_ref (msg);
  g_ptr_array_add (self->exchanges, ex);
  self->served++;
  self->turn_served++;
  if (turn->has_n)
    turn = ex->owned_turn = ow_ms_turn_instantiate (turn, self->turn_served);
  if (self->turn_served >= turn->repeat)
    {
      self->turn_index++;
      self->turn_served = 0;
    }
  json_object_set_int_member (record, "turn", turn_index);

  model = gemini_model != NULL ? gemini_model : body_string (body, "model");
  if (model == NULL)
    model = DEFAULT_MODEL;

  if (self->script->has_style && self->script->style != style)
    failure = g_strdup_printf ("the script is for %s, but the request came to %s (%s)",
                               ow_ms_style_name (self->script->style), path,
                               ow_ms_style_name (style));
  else
    failure = check_expectations (turn, style, msg, path, model, body);
  if (failure != NULL)
    {
      g_autofree char *message = g_strdup_printf ("script expectation failed: turn %u: %s",
                                                  turn_index, failure);

      g_debug ("%s", message);
      json_object_set_string_member (record, "expectation", message);
      respond_error_text (msg, SOUP_STATUS_BAD_REQUEST, message);
      exchange_free (ex);
      return;
    }

  stream = turn->stream;
  if (stream < 0)
    {
      if (style == OW_MS_STYLE_GEMINI)
        stream = gemini_stream;
      else if (style == OW_MS_STYLE_OLLAMA)
        stream = body_bool (body, "stream") != 0;
      else
        stream = body_bool (body, "stream") == 1;
    }

  ow_ms_reply_init (&ex->reply);
  ex->reply.turn = turn;
  ex->reply.request = body;
  ex->reply.model = model;
  ex->reply.stream = stream;
  ex->reply.gemini_sse = query != NULL && g_strcmp0 (g_hash_table_lookup (query, "alt"), "sse") == 0;
  ex->reply.rand = self->rand;
  if (!turn->has_raw)
    builders[style] (&ex->reply);
  /* The reply keeps no pointer into the request once built. */
  ex->reply.request = NULL;
  ex->reply.model = NULL;

  if (turn->drop_after >= 0 && !turn->has_raw)
    {
      ex->stream = soup_server_message_steal_connection (msg);
      if (turn->delay_ms > 0)
        ex->timer = schedule (self, turn->delay_ms, on_cut_start_cb, ex);
      else
        on_cut_start_cb (ex);
      return;
    }

  ex->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_message_finished_cb), ex);
  if (turn->delay_ms > 0)
    {
      soup_server_message_pause (msg);
      ex->paused = TRUE;
      ex->timer = schedule (self, turn->delay_ms, on_delay_done_cb, ex);
    }
  else
    send_reply (ex);
}

/* ---- API keys ------------------------------------------------------------ */

/* Whether the request carries one of the script's keys (any, when the
 * script lists none). */
static gboolean
request_has_key (OwModelServer     *self,
                 SoupServerMessage *msg,
                 GHashTable        *query)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *authorization = soup_message_headers_get_one (headers, "authorization");
  const char *candidates[4] = { NULL };

  if (self->script->keys[0] == NULL)
    return TRUE;
  if (authorization != NULL && g_ascii_strncasecmp (authorization, "Bearer ", 7) == 0)
    candidates[0] = authorization + 7;
  candidates[1] = soup_message_headers_get_one (headers, "x-api-key");
  candidates[2] = soup_message_headers_get_one (headers, "x-goog-api-key");
  candidates[3] = query != NULL ? g_hash_table_lookup (query, "key") : NULL;
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    if (candidates[i] != NULL && g_strv_contains ((const char *const *) self->script->keys, candidates[i]))
      return TRUE;
  return FALSE;
}

/* The wire's answer to a bad key, as the service words it. */
static void
respond_bad_key (OwModelServer     *self,
                 SoupServerMessage *msg,
                 OwMsStyle          style)
{
  OwMsError error = { .kind = OW_MS_ERROR_BAD_KEY, .retry_after = -1 };
  g_autoptr(GPtrArray) no_calls = g_ptr_array_new ();
  OwMsTurn turn = { .tool_calls = no_calls, .error = &error, .stream = 0, .drop_after = -1, .repeat = 1 };
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  OwMsReply reply;

  ow_ms_reply_init (&reply);
  reply.turn = &turn;
  reply.model = DEFAULT_MODEL;
  reply.rand = self->rand;
  builders[style] (&reply);
  soup_server_message_set_status (msg, reply.status, ow_ms_status_phrase (reply.status));
  for (guint i = 0; i < reply.headers->len; i += 2)
    soup_message_headers_append (headers, reply.headers->pdata[i], reply.headers->pdata[i + 1]);
  soup_server_message_set_response (msg, reply.content_type, SOUP_MEMORY_COPY, reply.body->str, reply.body->len);
  ow_ms_reply_clear (&reply);
}

/* The style a model-list or discovery route answers in. */
static OwMsStyle
style_for_info (SoupServerMessage *msg,
                const char        *path)
{
  if (strstr (path, "/v1beta/") != NULL)
    return OW_MS_STYLE_GEMINI;
  if (soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "anthropic-version") != NULL)
    return OW_MS_STYLE_ANTHROPIC;
  if (g_str_has_prefix (path, "/api/"))
    return OW_MS_STYLE_OLLAMA;
  return OW_MS_STYLE_OPENAI_CHAT;
}

/* ---- Other routes -------------------------------------------------------- */

static gboolean
known_model (OwModelServer *self,
             const char    *model)
{
  return self->script->models[0] == NULL || g_strv_contains ((const char *const *) self->script->models, model);
}

static JsonObject *
openai_model (const char *id)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "id", id);
  json_object_set_string_member (object, "object", "model");
  json_object_set_int_member (object, "created", 1700000000);
  json_object_set_string_member (object, "owned_by", "scripted");
  return object;
}

static JsonObject *
gemini_model (const char *id)
{
  JsonObject *object = json_object_new ();
  JsonArray *methods = json_array_new ();
  g_autofree char *name = g_strconcat ("models/", id, NULL);

  json_object_set_string_member (object, "name", name);
  json_object_set_string_member (object, "version", "001");
  json_object_set_string_member (object, "displayName", id);
  json_object_set_int_member (object, "inputTokenLimit", 1048576);
  json_object_set_int_member (object, "outputTokenLimit", 65536);
  json_array_add_string_element (methods, "generateContent");
  json_array_add_string_element (methods, "countTokens");
  json_object_set_array_member (object, "supportedGenerationMethods", methods);
  json_object_set_boolean_member (object, "thinking", TRUE);
  return object;
}

static JsonObject *
anthropic_model (const char *id)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", "model");
  json_object_set_string_member (object, "id", id);
  json_object_set_string_member (object, "display_name", id);
  json_object_set_string_member (object, "created_at", "2025-01-01T00:00:00Z");
  return object;
}

static JsonObject *
ollama_model (const char *id)
{
  JsonObject *object = json_object_new ();
  JsonObject *details = json_object_new ();

  json_object_set_string_member (object, "name", id);
  json_object_set_string_member (object, "model", id);
  json_object_set_string_member (object, "modified_at", "2025-01-01T00:00:00.000000000Z");
  json_object_set_int_member (object, "size", 5225388164);
  json_object_set_string_member (object, "digest",
                                 "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41");
  json_object_set_string_member (details, "format", "gguf");
  json_object_set_string_member (details, "family", "qwen3");
  json_object_set_string_member (details, "parameter_size", "8.2B");
  json_object_set_string_member (details, "quantization_level", "Q4_K_M");
  json_object_set_object_member (object, "details", details);
  return object;
}

static gboolean
serve_info (OwModelServer     *self,
            SoupServerMessage *msg,
            const char        *method,
            const char        *path,
            JsonObject        *body)
{
  SoupMessageHeaders *request_headers = soup_server_message_get_request_headers (msg);
  gboolean get = g_str_equal (method, "GET");
  gboolean gemini = strstr (path, "/v1beta/") != NULL;
  gboolean anthropic = soup_message_headers_get_one (request_headers, "anthropic-version") != NULL;
  GStrv models = self->script->models;
  g_autoptr(JsonObject) answer = json_object_new ();
  const char *single;

  if (get && g_str_has_suffix (path, "/models"))
    {
      JsonArray *list = json_array_new ();

      for (guint i = 0; models[i] != NULL; i++)
        json_array_add_object_element (list, gemini ? gemini_model (models[i])
                                             : anthropic ? anthropic_model (models[i])
                                             : openai_model (models[i]));
      if (gemini)
        json_object_set_array_member (answer, "models", list);
      else if (anthropic)
        {
          json_object_set_array_member (answer, "data", list);
          json_object_set_boolean_member (answer, "has_more", FALSE);
          ow_ms_set_string (answer, "first_id", models[0]);
          ow_ms_set_string (answer, "last_id", models[0] != NULL ? models[g_strv_length (models) - 1] : NULL);
        }
      else
        {
          json_object_set_string_member (answer, "object", "list");
          json_object_set_array_member (answer, "data", list);
        }
      respond_json (msg, SOUP_STATUS_OK, answer);
      return TRUE;
    }

  if (get && (single = strstr (path, "/models/")) != NULL && strchr (single + strlen ("/models/"), '/') == NULL)
    {
      const char *id = single + strlen ("/models/");

      if (!known_model (self, id))
        {
          JsonObject *error = json_object_new ();
          g_autofree char *message = g_strdup_printf ("The model `%s` does not exist.", id);

          json_object_set_string_member (error, "message", message);
          json_object_set_string_member (error, "type", "invalid_request_error");
          json_object_set_string_member (error, "code", "model_not_found");
          json_object_set_object_member (answer, "error", error);
          respond_json (msg, SOUP_STATUS_NOT_FOUND, answer);
          return TRUE;
        }
      json_object_unref (answer);
      answer = gemini ? gemini_model (id) : anthropic ? anthropic_model (id) : openai_model (id);
      respond_json (msg, SOUP_STATUS_OK, answer);
      return TRUE;
    }

  if (get && g_str_equal (path, "/api/tags"))
    {
      JsonArray *list = json_array_new ();

      for (guint i = 0; models[i] != NULL; i++)
        json_array_add_object_element (list, ollama_model (models[i]));
      json_object_set_array_member (answer, "models", list);
      respond_json (msg, SOUP_STATUS_OK, answer);
      return TRUE;
    }

  if (get && g_str_equal (path, "/api/version"))
    {
      json_object_set_string_member (answer, "version", "0.12.6");
      respond_json (msg, SOUP_STATUS_OK, answer);
      return TRUE;
    }

  if (g_str_equal (method, "POST") && g_str_equal (path, "/api/show"))
    {
      const char *model = body_string (body, "model");
      JsonObject *info;
      JsonArray *capabilities;

      if (model == NULL || !known_model (self, model))
        {
          g_autofree char *message = g_strdup_printf ("model '%s' not found", model != NULL ? model : "");

          respond_error_text (msg, SOUP_STATUS_NOT_FOUND, message);
          return TRUE;
        }
      info = json_object_new ();
      json_object_set_string_member (info, "general.architecture", "qwen3");
      json_object_set_int_member (info, "qwen3.context_length", 40960);
      json_object_set_object_member (answer, "model_info", info);
      capabilities = json_array_new ();
      json_array_add_string_element (capabilities, "completion");
      json_array_add_string_element (capabilities, "tools");
      json_array_add_string_element (capabilities, "thinking");
      json_object_set_array_member (answer, "capabilities", capabilities);
      {
        g_autoptr(JsonObject) tag = ollama_model (model);

        json_object_set_member (answer, "details", json_object_dup_member (tag, "details"));
      }
      respond_json (msg, SOUP_STATUS_OK, answer);
      return TRUE;
    }
  return FALSE;
}

static void
serve_control (OwModelServer     *self,
               SoupServerMessage *msg,
               const char        *method,
               const char        *path)
{
  if (g_str_equal (method, "GET") && g_str_equal (path, "/_script/requests"))
    {
      g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), self->requests);
      g_autofree char *text = json_to_string (node, FALSE);

      soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, text, strlen (text));
    }
  else if (g_str_equal (method, "GET") && g_str_equal (path, "/_script/state"))
    {
      g_autoptr(JsonObject) state = json_object_new ();

      json_object_set_int_member (state, "served", self->served);
      json_object_set_int_member (state, "remaining", remaining_turns (self));
      respond_json (msg, SOUP_STATUS_OK, state);
    }
  else
    respond_error_text (msg, SOUP_STATUS_NOT_FOUND, "no such control route");
}

static void
on_server_request_cb (SoupServer        *server,
                      SoupServerMessage *msg,
                      const char        *path,
                      GHashTable        *query,
                      gpointer           user_data)
{
  OwModelServer *self = user_data;
  const char *method = soup_server_message_get_method (msg);
  g_autoptr(JsonObject) record = NULL;
  g_autofree char *gemini_model = NULL;
  gboolean gemini_stream = FALSE;
  JsonObject *body;
  OwMsStyle style;

  if (g_str_has_prefix (path, "/_script/"))
    {
      serve_control (self, msg, method, path);
      return;
    }

  record = json_object_ref (record_request (self, msg, path, &body));
  if (g_str_equal (method, "POST") && style_for_path (path, &style, &gemini_model, &gemini_stream))
    {
      if (request_has_key (self, msg, query))
        serve_model_request (self, msg, path, query, style, gemini_model, gemini_stream, record, body);
      else
        respond_bad_key (self, msg, style);
    }
  else if (!request_has_key (self, msg, query))
    respond_bad_key (self, msg, style_for_info (msg, path));
  else if (!serve_info (self, msg, method, path, body))
    {
      g_autoptr(JsonObject) answer = json_object_new ();
      JsonObject *error = json_object_new ();
      g_autofree char *message = g_strdup_printf ("the scripted model server has no route for %s %s",
                                                  method, path);

      json_object_set_string_member (error, "message", message);
      json_object_set_string_member (error, "type", "invalid_request_error");
      json_object_set_object_member (answer, "error", error);
      respond_json (msg, SOUP_STATUS_NOT_FOUND, answer);
    }
  g_signal_emit (self, signals[SIGNAL_REQUEST], 0, record);
}

/* ---- Public API ---------------------------------------------------------- */

OwModelServer *
ow_model_server_new_on_port (JsonNode  *script,
                             guint      port,
                             GError   **error)
{
  g_autoptr(OwModelServer) self = NULL;
  g_autoptr(OwMsScript) compiled = NULL;
  g_autoptr(GSList) uris = NULL;

  g_return_val_if_fail (port <= G_MAXUINT16, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  compiled = ow_ms_script_compile (script, error);
  if (compiled == NULL)
    return NULL;

  self = g_object_new (OW_TYPE_MODEL_SERVER, NULL);
  self->script = g_steal_pointer (&compiled);
  self->context = g_main_context_ref_thread_default ();
  self->soup = soup_server_new ("server-header", "ow-model-server ", NULL);
  soup_server_add_handler (self->soup, NULL, on_server_request_cb, self, NULL);
  if (!soup_server_listen_local (self->soup, port, SOUP_SERVER_LISTEN_IPV4_ONLY, error))
    {
      g_prefix_error (error, "The scripted model server cannot listen on 127.0.0.1:%u: ", port);
      return NULL;
    }

  uris = soup_server_get_uris (self->soup);
  g_assert (uris != NULL);
  self->port = (guint) g_uri_get_port (uris->data);
  for (GSList *l = uris; l != NULL; l = l->next)
    g_uri_unref (l->data);
  g_debug ("serving %u turns on 127.0.0.1:%u", self->script->turns->len, self->port);
  return g_steal_pointer (&self);
}

OwModelServer *
ow_model_server_new (JsonNode  *script,
                     GError   **error)
{
  return ow_model_server_new_on_port (script, 0, error);
}

guint
ow_model_server_get_port (OwModelServer *self)
{
  g_return_val_if_fail (OW_IS_MODEL_SERVER (self), 0);
  return self->port;
}

char *
ow_model_server_get_url (OwModelServer *self)
{
  g_return_val_if_fail (OW_IS_MODEL_SERVER (self), NULL);
  return g_strdup_printf ("http://127.0.0.1:%u", self->port);
}

JsonArray *
ow_model_server_get_requests (OwModelServer *self)
{
  g_return_val_if_fail (OW_IS_MODEL_SERVER (self), NULL);
  return self->requests;
}

guint
ow_model_server_get_served (OwModelServer *self)
{
  g_return_val_if_fail (OW_IS_MODEL_SERVER (self), 0);
  return self->served;
}

guint
ow_model_server_get_remaining (OwModelServer *self)
{
  g_return_val_if_fail (OW_IS_MODEL_SERVER (self), 0);
  return remaining_turns (self);
}
