/* ow-provider.c: the model-provider base class.
 *
 * providers/ turns the engine's provider-neutral history into one model
 * call and the reply back into an OwTurn. Five wire styles derive from
 * OwProvider (OpenAI Chat Completions, OpenAI Responses, Anthropic
 * Messages, Gemini, Ollama's native /api/chat); every service the product
 * lists is one of them plus a base URL, a key variable and quirks, read
 * from the catalog (ow-provider-catalog.c). Errors of every style are
 * classified in ow-provider-errors.c.
 *
 * This file owns what the styles share. One call is an OwProviderCall: it
 * copies the request, asks the subclass for the HTTP request, sends it
 * through OwHttpClient, frames a streamed 2xx body as SSE events or NDJSON
 * lines and hands each to the subclass, which fills the OwTurn and reports
 * deltas. At the end the call decides between the turn and an error: a
 * stream without its terminal event is CUT_OFF (what arrived is kept as
 * the partial turn), a complete reply with nothing in it is EMPTY_REPLY, a
 * non-2xx status is classified, and a 400 naming a parameter the server
 * does not take is retried without it (at most three times). Whatever the
 * outcome, the call's facts go to OwCallInfo with credentials redacted.
 *
 * The same OwProviderCall is driven by hand in the unit tests (see
 * ow-provider-private.h), so request building, stream assembly and error
 * classification are tested from recorded wire text without a socket.
 *
 * The second half of the file holds the JSON and canonical-history helpers
 * the styles share.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider.h"
#include "providers/ow-provider-private.h"

#include <string.h>

#include "net/ow-ndjson-parser.h"
#include "net/ow-sse-parser.h"
#include "ow-error.h"
#include "providers/ow-tool-salvage.h"
#include "ow-redact.h"

/* At most this many parameter-fix resends per call: each fixes one thing
 * the server named, and no real request needs more. */
#define MAX_PARAM_FIXES 3

/* Streamed replies may be long-silent while a model thinks; non-streamed
 * ones are silent until the whole answer is written. */
#define STREAM_IDLE_TIMEOUT_MS (300 * 1000)
#define BLOCKING_IDLE_TIMEOUT_MS (900 * 1000)
#define CONNECT_TIMEOUT_MS (30 * 1000)

/* ---- Wire styles ------------------------------------------------------ */

static const char *const wire_style_names[] = {
  [OW_WIRE_OPENAI_CHAT] = "openai-chat",
  [OW_WIRE_OPENAI_RESPONSES] = "openai-responses",
  [OW_WIRE_ANTHROPIC] = "anthropic",
  [OW_WIRE_GEMINI] = "gemini",
  [OW_WIRE_OLLAMA] = "ollama",
};

const char *
ow_wire_style_to_string (OwWireStyle style)
{
  if ((guint) style >= G_N_ELEMENTS (wire_style_names))
    return NULL;
  return wire_style_names[style];
}

gboolean
ow_wire_style_from_string (const char  *str,
                           OwWireStyle *out)
{
  if (str == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (wire_style_names); i++)
    if (g_ascii_strcasecmp (str, wire_style_names[i]) == 0)
      {
        if (out != NULL)
          *out = (OwWireStyle) i;
        return TRUE;
      }
  return FALSE;
}

/* ---- The per-call driver ---------------------------------------------- */

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

typedef struct
{
  /* configuration (construct-only) */
  char         *id;            /* catalog id */
  char         *title;         /* shown in error messages */
  char         *base_url;      /* no trailing slash */
  char         *api_key;       /* NULL for keyless servers */
  char         *key_env;       /* the variable named in messages, or NULL */
  JsonObject   *quirks;        /* the catalog entry's quirks, or NULL */
  OwWireStyle   wire_style;    /* set by ow_provider_new() */
  OwHttpClient *http;          /* sends the requests; may be NULL in unit tests */

  /* behaviour a subclass registers at init */
  OwParamFixFunc param_fixer;  /* NULL = no parameter-fix retries */

  /* borrowed */
  OwProviderCall *current;     /* the call whose vfunc is running; calls nest, see call_enter() */
} OwProviderPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (OwProvider, ow_provider, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_TITLE,
  PROP_BASE_URL,
  PROP_API_KEY,
  PROP_KEY_ENV,
  PROP_QUIRKS,
  PROP_HTTP_CLIENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
call_enter (OwProviderCall *call)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (call->provider);

  /* Vfuncs run synchronously, so "the current call" is a stack: a second
   * call on the same provider (say, a reviewer running from a delta
   * callback) restores the first one when it leaves. */
  call->outer = priv->current;
  priv->current = call;
}

static void
call_leave (OwProviderCall *call)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (call->provider);

  priv->current = call->outer;
  call->outer = NULL;
}

static OwProviderCall *
current_call (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  return priv->current;
}

static void
call_reset_attempt (OwProviderCall *call)
{
  g_clear_pointer (&call->turn, ow_turn_free);
  call->turn = ow_turn_new ();
  g_clear_pointer (&call->sse, ow_sse_parser_free);
  g_clear_pointer (&call->ndjson, ow_ndjson_parser_free);
  g_clear_error (&call->stream_error);
  if (call->state_destroy != NULL && call->state != NULL)
    call->state_destroy (call->state);
  call->state = NULL;
  call->state_destroy = NULL;
  g_clear_pointer (&call->err_type, g_free);
  g_clear_pointer (&call->err_message, g_free);
  g_clear_pointer (&call->raw_finish, g_free);
  g_clear_pointer (&call->detail, g_free);
  g_clear_pointer (&call->whole_body, g_byte_array_unref);
  call->n_bytes = 0;
}

OwProviderCall *
ow_provider_call_new (OwProvider           *self,
                      const OwModelRequest *req,
                      OwDeltaFunc           on_delta,
                      gpointer              delta_data)
{
  OwProviderCall *call;

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  g_return_val_if_fail (req != NULL, NULL);

  call = g_new0 (OwProviderCall, 1);
  call->provider = g_object_ref (self);
  call->req = *req;
  call->on_delta = on_delta;
  call->delta_data = delta_data;
  call->edits = json_object_new ();
  call->headers = g_ptr_array_new_with_free_func (g_free);
  call->started_us = g_get_monotonic_time ();
  call_reset_attempt (call);
  return call;
}

void
ow_provider_call_free (OwProviderCall *call)
{
  if (call == NULL)
    return;
  call_reset_attempt (call);
  g_clear_pointer (&call->turn, ow_turn_free);
  g_clear_pointer (&call->edits, json_object_unref);
  g_clear_pointer (&call->body, json_node_unref);
  g_clear_pointer (&call->url, g_free);
  g_clear_pointer (&call->headers, g_ptr_array_unref);
  g_clear_object (&call->cancellable);
  g_clear_pointer (&call->info, ow_call_info_free);
  g_clear_pointer (&call->partial, ow_turn_free);
  g_clear_object (&call->provider);
  g_free (call);
}

static void
call_set_detail (OwProviderCall *call,
                 const char     *format,
                 ...) G_GNUC_PRINTF (2, 3);

static void
call_set_detail (OwProviderCall *call,
                 const char     *format,
                 ...)
{
  va_list args;

  g_free (call->detail);
  va_start (args, format);
  call->detail = g_strdup_vprintf (format, args);
  va_end (args);
}

OwHttpRequest *
ow_provider_call_build (OwProviderCall  *call,
                        GError         **error)
{
  OwProviderClass *klass = OW_PROVIDER_GET_CLASS (call->provider);
  OwHttpRequest *http = NULL;
  gboolean ok;

  g_clear_pointer (&call->body, json_node_unref);
  g_clear_pointer (&call->url, g_free);
  g_ptr_array_set_size (call->headers, 0);

  if (klass->build_request == NULL)
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_FAILED,
                   "The %s provider cannot build requests.",
                   ow_provider_get_title (call->provider));
      return NULL;
    }

  call_enter (call);
  ok = klass->build_request (call->provider, &call->req, &http, error);
  call_leave (call);

  if (!ok)
    {
      g_clear_pointer (&http, ow_http_request_unref);
      return NULL;
    }
  if (http != NULL && call->url == NULL)
    call->url = g_strdup (ow_http_request_get_url (http));
  return http;
}

JsonNode *
ow_provider_call_get_body (OwProviderCall *call)
{
  return call->body;
}

const char *
ow_provider_call_get_url (OwProviderCall *call)
{
  return call->url;
}

const char *
ow_provider_call_get_header (OwProviderCall *call,
                             const char     *name)
{
  gsize name_len = strlen (name);
  const char *found = NULL;

  for (guint i = 0; i < call->headers->len; i++)
    {
      const char *line = g_ptr_array_index (call->headers, i);
      if (g_ascii_strncasecmp (line, name, name_len) == 0 && line[name_len] == ':')
        found = line + name_len + 2;
    }
  return found;
}

GPtrArray *
ow_provider_call_get_headers (OwProviderCall *call)
{
  return call->headers;
}

/* Whether applying @edits to @sent changes anything, so a resend can get a
 * different answer. */
static gboolean
edits_change (JsonObject *sent,
              JsonObject *edits)
{
  g_autoptr(GList) names = json_object_get_members (edits);

  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (edits, l->data);
      JsonNode *old = sent != NULL ? json_object_get_member (sent, l->data) : NULL;

      if (JSON_NODE_HOLDS_NULL (value))
        {
          if (old != NULL)
            return TRUE;
        }
      else if (old == NULL || !json_node_equal (old, value))
        return TRUE;
    }
  return FALSE;
}

gboolean
ow_provider_call_fix_params (OwProviderCall *call,
                             guint           status,
                             const char     *body)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (call->provider);
  g_autoptr(JsonObject) edits = NULL;
  OwErrorBody err = { NULL, NULL, -1 };
  JsonObject *sent;
  gboolean fixed = FALSE;

  /* Only a rejected request names a parameter; 422 is how some compatible
   * servers spell 400. */
  if ((status != 400 && status != 422) || priv->param_fixer == NULL)
    return FALSE;
  if (call->n_fixes >= MAX_PARAM_FIXES || call->body == NULL
      || !JSON_NODE_HOLDS_OBJECT (call->body))
    return FALSE;

  ow_error_body_parse (body, &err);
  sent = json_node_get_object (call->body);
  edits = json_object_new ();
  if (err.message != NULL && priv->param_fixer (call->provider, sent, err.message, edits)
      && edits_change (sent, edits))
    {
      g_autoptr(GList) names = json_object_get_members (edits);

      for (GList *l = names; l != NULL; l = l->next)
        json_object_set_member (call->edits, l->data,
                                ow_json_deep_copy (json_object_get_member (edits, l->data)));
      call->n_fixes++;
      fixed = TRUE;
      g_debug ("%s: resending without what the server rejected (%s)",
               ow_provider_get_id (call->provider), err.message);
    }
  ow_error_body_clear (&err);
  return fixed;
}

static gboolean
call_dispatch (OwProviderCall *call,
               const char     *event,
               const char     *data,
               gsize           len)
{
  OwProviderClass *klass = OW_PROVIDER_GET_CLASS (call->provider);
  GError *error = NULL;
  gboolean ok;

  /* Events after the terminal one are still read (Gemini may send usage in
   * a chunk of its own after the finish reason); after an error, nothing. */
  if (call->stream_error != NULL)
    return FALSE;
  if (klass->handle_event == NULL)
    return TRUE;

  call_enter (call);
  ok = klass->handle_event (call->provider, call->turn, event, data, len, &error);
  call_leave (call);

  if (!ok)
    {
      if (error == NULL)
        error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                             "%s sent a stream event that could not be read.",
                             ow_provider_get_title (call->provider));
      if (call->detail == NULL)
        call_set_detail (call, "then the reply failed: %s", error->message);
      call->stream_error = error;
      return FALSE;
    }
  return TRUE;
}

static gboolean
on_sse_event_cb (const char *event,
                 const char *data,
                 gsize       data_len,
                 gpointer    user_data)
{
  return call_dispatch (user_data, event, data, data_len);
}

static gboolean
on_ndjson_line_cb (const char *line,
                   gsize       len,
                   gpointer    user_data)
{
  return call_dispatch (user_data, NULL, line, len);
}

static gboolean
call_parse_status (OwProviderCall  *call,
                   OwParseStatus    status,
                   GError         **error)
{
  if (call->stream_error != NULL)
    {
      g_propagate_error (error, g_error_copy (call->stream_error));
      return FALSE;
    }
  if (status == OW_PARSE_TOO_LARGE)
    {
      call->stream_error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                                        "%s sent a stream event larger than the limit.",
                                        ow_provider_get_title (call->provider));
      call_set_detail (call, "then a stream event over the size limit");
      g_propagate_error (error, g_error_copy (call->stream_error));
      return FALSE;
    }
  return TRUE;
}

gboolean
ow_provider_call_feed (OwProviderCall  *call,
                       const char      *bytes,
                       gsize            len,
                       GError         **error)
{
  OwProviderClass *klass = OW_PROVIDER_GET_CLASS (call->provider);
  OwParseStatus status;

  if (call->stream_error != NULL)
    return call_parse_status (call, OW_PARSE_OK, error);

  call->n_bytes += len;
  if (klass->stream_is_ndjson != NULL && klass->stream_is_ndjson (call->provider))
    {
      if (call->ndjson == NULL)
        call->ndjson = ow_ndjson_parser_new (on_ndjson_line_cb, call, 0);
      status = ow_ndjson_parser_feed (call->ndjson, bytes, len);
    }
  else
    {
      if (call->sse == NULL)
        call->sse = ow_sse_parser_new (on_sse_event_cb, call, 0);
      status = ow_sse_parser_feed (call->sse, bytes, len);
    }
  return call_parse_status (call, status, error);
}

/* The first tool-call id used twice in @turn, or NULL. */
static const char *
duplicate_call_id (OwTurn *turn)
{
  g_autoptr(GHashTable) seen = NULL;

  if (turn->tool_calls->len < 2)
    return NULL;
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      OwToolCall *c = g_ptr_array_index (turn->tool_calls, i);

      /* Never NULL: ow_tool_call_new() makes one up. */
      if (!g_hash_table_add (seen, c->id))
        return c->id;
    }
  return NULL;
}

/* A local model served without a tool-call parser writes its calls into
 * the text (see ow-tool-salvage.c). Only on the wires local models are
 * served on (Chat Completions: llama.cpp, vLLM, LM Studio; Ollama's own):
 * the cloud wires have structured calls, and there a model quoting the
 * markup is only quoting it. A reply cut at the length limit is not
 * salvaged either: its last call may be half written. */
static void
salvage_text_calls (OwProviderCall *call,
                    OwTurn         *turn)
{
  OwWireStyle wire = ow_provider_get_wire_style (call->provider);
  g_autoptr(GPtrArray) found = NULL;
  g_autofree char *rest = NULL;

  if (turn->tool_calls->len > 0 || turn->text->len == 0 || call->req.tools == NULL
      || (wire != OW_WIRE_OPENAI_CHAT && wire != OW_WIRE_OLLAMA)
      || g_strcmp0 (turn->finish_reason, "length") == 0)
    return;
  found = ow_tool_salvage (turn->text->str, call->req.tools, &rest);
  if (found == NULL)
    return;
  g_debug ("salvaged %u tool call(s) written as text", found->len);
  for (guint i = 0; i < found->len; i++)
    g_ptr_array_add (turn->tool_calls, g_steal_pointer (&g_ptr_array_index (found, i)));
  g_ptr_array_set_free_func (found, NULL);
  g_string_assign (turn->text, rest);
}

/* Final checks shared by streamed and whole replies: a finish reason is
 * always set, and a reply with nothing in it is an error. */
static OwTurn *
call_conclude (OwProviderCall  *call,
               OwTurn         **partial,
               GError         **error)
{
  OwTurn *turn = call->turn;
  const char *title = ow_provider_get_title (call->provider);
  const char *duplicate = duplicate_call_id (turn);
  gboolean empty;

  salvage_text_calls (call, turn);
  if (turn->tool_calls->len > 0
      && (turn->finish_reason == NULL || g_str_equal (turn->finish_reason, "stop")))
    {
      g_free (turn->finish_reason);
      turn->finish_reason = g_strdup ("tool_calls");
    }
  if (turn->finish_reason == NULL)
    turn->finish_reason = g_strdup ("stop");

  empty = turn->text->len == 0 && turn->tool_calls->len == 0;
  if (duplicate != NULL)
    {
      /* Each result goes back under its call's id, so two calls with one
       * id cannot both be answered, and no API accepts the history. */
      call_set_detail (call, "two tool calls share the id '%s'", duplicate);
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply with two tool calls under the same id '%s', so neither can be "
                   "answered. Retry; if it keeps happening, the service (or a proxy in front of it) "
                   "is mangling tool calls.", title, duplicate);
    }
  else if (empty && g_str_equal (turn->finish_reason, "content_filter"))
    {
      call_set_detail (call, "the reply was withheld by the content filter (finish reason %s)",
                       call->raw_finish != NULL ? call->raw_finish : "content_filter");
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REFUSED,
                   "%s withheld the reply to %s on safety grounds (%s). Rephrase the request, "
                   "or pick a different model.",
                   title, call->req.model != NULL ? call->req.model : "this request",
                   call->raw_finish != NULL ? call->raw_finish : "content filter");
    }
  else if (empty && !g_str_equal (turn->finish_reason, "length"))
    {
      const char *why = call->raw_finish != NULL ? call->raw_finish : turn->finish_reason;

      call_set_detail (call, "the reply had no text and no tool calls (finish reason %s)", why);
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_EMPTY_REPLY,
                   "%s returned an empty reply from %s (no text and no tool calls; finish "
                   "reason %s). Retry, or pick a different model.",
                   title, call->req.model != NULL ? call->req.model : "the model", why);
    }
  else
    return g_steal_pointer (&call->turn);

  if (partial != NULL)
    *partial = g_steal_pointer (&call->turn);
  return NULL;
}

static void
call_give_partial (OwProviderCall  *call,
                   OwTurn         **partial)
{
  if (partial != NULL && call->turn != NULL)
    *partial = g_steal_pointer (&call->turn);
}

static GError *
call_cut_off_error (OwProviderCall *call)
{
  call_set_detail (call, "then the stream ended before its terminal event (%" G_GSIZE_FORMAT
                   " bytes received)", call->n_bytes);
  return g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CUT_OFF,
                      "The reply from %s was cut off before it finished (the stream ended "
                      "early). Retry the request.",
                      ow_provider_get_title (call->provider));
}

OwTurn *
ow_provider_call_finish_stream (OwProviderCall  *call,
                                OwTurn         **partial,
                                GError         **error)
{
  OwParseStatus status = OW_PARSE_OK;

  /* Servers commonly close right after the last data line; the parsers
   * dispatch that last unterminated event here. */
  if (call->stream_error == NULL)
    {
      if (call->sse != NULL)
        status = ow_sse_parser_finish (call->sse);
      else if (call->ndjson != NULL)
        status = ow_ndjson_parser_finish (call->ndjson);
    }
  if (!call_parse_status (call, status, error))
    {
      call_give_partial (call, partial);
      return NULL;
    }
  if (!call->turn->complete)
    {
      g_propagate_error (error, call_cut_off_error (call));
      call_give_partial (call, partial);
      return NULL;
    }
  return call_conclude (call, partial, error);
}

OwTurn *
ow_provider_call_parse_body (OwProviderCall  *call,
                             const char      *body,
                             gsize            len,
                             OwTurn         **partial,
                             GError         **error)
{
  OwProviderClass *klass = OW_PROVIDER_GET_CLASS (call->provider);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = NULL;
  gboolean ok;

  root = ow_json_parse (body, (gssize) len, &local_error);
  if (root == NULL || klass->parse_response == NULL)
    {
      call_set_detail (call, "an unreadable reply body (%s)",
                       local_error != NULL ? local_error->message : "no parser");
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply that could not be read (%s). Retry; if it keeps happening, "
                   "check that the base URL points at the right API.",
                   ow_provider_get_title (call->provider),
                   local_error != NULL ? local_error->message : "no parser");
      return NULL;
    }

  call_enter (call);
  ok = klass->parse_response (call->provider, call->turn, root, &local_error);
  call_leave (call);
  if (!ok)
    {
      if (local_error == NULL)
        local_error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                                   "%s sent a reply that could not be read.",
                                   ow_provider_get_title (call->provider));
      if (call->detail == NULL)
        call_set_detail (call, "the reply failed: %s", local_error->message);
      g_propagate_error (error, g_steal_pointer (&local_error));
      call_give_partial (call, partial);
      return NULL;
    }
  return call_conclude (call, partial, error);
}

/* ---- For subclasses ----------------------------------------------------- */

const OwModelRequest *
ow_provider_get_request (OwProvider *self)
{
  OwProviderCall *call = current_call (self);

  return call != NULL ? &call->req : NULL;
}

gpointer
ow_provider_get_call_state (OwProvider *self)
{
  OwProviderCall *call = current_call (self);

  return call != NULL ? call->state : NULL;
}

void
ow_provider_set_call_state (OwProvider     *self,
                            gpointer        state,
                            GDestroyNotify  destroy)
{
  OwProviderCall *call = current_call (self);

  g_return_if_fail (call != NULL);

  if (call->state_destroy != NULL && call->state != NULL)
    call->state_destroy (call->state);
  call->state = state;
  call->state_destroy = destroy;
}

char *
ow_provider_build_url (OwProvider *self,
                       const char *path)
{
  const char *base = ow_provider_get_base_url (self);
  gsize len = strlen (base);

  while (len > 0 && base[len - 1] == '/')
    len--;
  while (*path == '/')
    path++;
  return g_strdup_printf ("%.*s/%s", (int) len, base, path);
}

OwHttpRequest *
ow_provider_new_json_request (OwProvider *self,
                              const char *url,
                              JsonNode   *body)
{
  OwProviderCall *call = current_call (self);
  OwHttpRequest *http;
  g_autofree char *text = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize text_len;
  const OwModelRequest *req;

  g_return_val_if_fail (body != NULL && JSON_NODE_HOLDS_OBJECT (body), NULL);

  if (call != NULL)
    {
      JsonObject *obj = json_node_get_object (body);
      g_autoptr(GList) names = json_object_get_members (call->edits);

      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonNode *value = json_object_get_member (call->edits, l->data);
          if (JSON_NODE_HOLDS_NULL (value))
            json_object_remove_member (obj, l->data);
          else
            json_object_set_member (obj, l->data, ow_json_deep_copy (value));
        }
    }

  text = ow_json_to_string (body);
  text_len = strlen (text);
  bytes = g_bytes_new_take (g_steal_pointer (&text), text_len);
  http = ow_http_request_new ("POST", url);
  ow_http_request_set_body (http, bytes, "application/json");
  req = call != NULL ? &call->req : NULL;
  ow_http_request_set_timeouts (http, CONNECT_TIMEOUT_MS,
                                req == NULL || req->stream ? STREAM_IDLE_TIMEOUT_MS
                                                           : BLOCKING_IDLE_TIMEOUT_MS,
                                0);
  if (call != NULL)
    {
      g_clear_pointer (&call->body, json_node_unref);
      call->body = body;
      g_free (call->url);
      call->url = g_strdup (url);
    }
  else
    json_node_unref (body);
  return http;
}

void
ow_provider_add_header (OwProvider    *self,
                        OwHttpRequest *http,
                        const char    *name,
                        const char    *value)
{
  OwProviderCall *call = current_call (self);

  ow_http_request_add_header (http, name, value);
  if (call != NULL)
    g_ptr_array_add (call->headers, g_strdup_printf ("%s: %s", name, value));
}

void
ow_provider_set_param_fixer (OwProvider     *self,
                             OwParamFixFunc  func)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  priv->param_fixer = func;
}

gboolean
ow_provider_fix_unsupported_param (JsonObject *sent_body,
                                   const char *message,
                                   JsonObject *edits)
{
  static GRegex *regex;
  g_autoptr(GMatchInfo) match = NULL;
  g_autofree char *name = NULL;

  if (g_once_init_enter (&regex))
    {
      GRegex *r = g_regex_new ("unsupported (?:parameter|value)s?:? *['\"`]([A-Za-z0-9_.]+)['\"`]",
                               G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL);
      g_once_init_leave (&regex, r);
    }

  if (!g_regex_match (regex, message, 0, &match))
    return FALSE;
  name = g_match_info_fetch (match, 1);
  /* "reasoning.effort" names a member inside a top-level object; dropping
   * the whole object is the fix the server asks for. */
  if (strchr (name, '.') != NULL)
    *strchr (name, '.') = '\0';
  /* The model and the conversation are never optional. */
  if (g_str_equal (name, "model") || g_str_equal (name, "messages") || g_str_equal (name, "input"))
    return FALSE;
  if (!json_object_has_member (sent_body, name))
    return FALSE;
  json_object_set_null_member (edits, name);
  return TRUE;
}

GError *
ow_provider_stream_error (OwProvider *self,
                          const char *type,
                          const char *message)
{
  OwProviderCall *call = current_call (self);
  const OwModelRequest *req = ow_provider_get_request (self);

  if (call != NULL)
    {
      g_free (call->err_type);
      call->err_type = g_strdup (type);
      g_free (call->err_message);
      call->err_message = g_strdup (message);
      if (type != NULL)
        call_set_detail (call, "then a stream error (%s): %s", type,
                         message != NULL ? message : "no message");
      else
        call_set_detail (call, "then a stream error: %s", message != NULL ? message : "no message");
    }
  return ow_provider_classify (ow_provider_get_title (self), ow_provider_get_key_env (self),
                               req != NULL ? req->model : NULL, 0, type, message, NULL);
}

void
ow_provider_set_raw_finish_reason (OwProvider *self,
                                   const char *raw)
{
  OwProviderCall *call = current_call (self);

  if (call != NULL)
    {
      g_free (call->raw_finish);
      call->raw_finish = g_strdup (raw);
    }
}

char *
ow_provider_synthesize_call_id (void)
{
  static gint counter;
  static gsize seeded;

  /* A random start keeps ids of this run apart from ids an earlier run
   * left in a saved history. */
  if (g_once_init_enter (&seeded))
    {
      g_atomic_int_set (&counter, g_random_int_range (1, 1 << 30));
      g_once_init_leave (&seeded, 1);
    }
  return g_strdup_printf ("call_%d", g_atomic_int_add (&counter, 1));
}

void
ow_provider_emit_delta (OwProvider  *self,
                        OwDeltaKind  kind,
                        const char  *text,
                        gsize        len)
{
  OwProviderCall *call = current_call (self);

  /* A whole reply is not reported piecewise: the caller gets the turn. */
  if (call == NULL || call->on_delta == NULL || len == 0 || !call->req.stream)
    return;
  /* Nothing is reported once the caller has asked to stop. */
  if (call->cancellable != NULL && g_cancellable_is_cancelled (call->cancellable))
    return;
  call->on_delta (kind, text, len, call->delta_data);
}

void
ow_provider_append_delta (OwProvider  *self,
                          OwTurn      *turn,
                          OwDeltaKind  kind,
                          const char  *text,
                          gssize       len)
{
  gsize n;

  if (text == NULL)
    return;
  n = len < 0 ? strlen (text) : (gsize) len;
  if (n == 0)
    return;
  g_string_append_len (kind == OW_DELTA_TEXT ? turn->text : turn->reasoning, text, (gssize) n);
  ow_provider_emit_delta (self, kind, text, n);
}

/* ---- GObject ------------------------------------------------------------ */

static GError *
ow_provider_real_classify_error (OwProvider     *self,
                                 guint           status,
                                 OwHttpResponse *resp,
                                 const char     *body)
{
  const OwModelRequest *req = ow_provider_get_request (self);

  return ow_provider_classify_http_error (ow_provider_get_title (self),
                                          ow_provider_get_key_env (self),
                                          req != NULL ? req->model : NULL,
                                          status, body);
}

static gboolean
ow_provider_real_stream_is_ndjson (OwProvider *self)
{
  return FALSE;
}

static void
ow_provider_finalize (GObject *object)
{
  OwProvider *self = OW_PROVIDER (object);
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_free (priv->id);
  g_free (priv->title);
  g_free (priv->base_url);
  g_free (priv->api_key);
  g_free (priv->key_env);
  g_clear_pointer (&priv->quirks, json_object_unref);
  g_clear_object (&priv->http);

  G_OBJECT_CLASS (ow_provider_parent_class)->finalize (object);
}

static void
ow_provider_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  OwProvider *self = OW_PROVIDER (object);
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, priv->id);
      break;
    case PROP_TITLE:
      g_value_set_string (value, priv->title);
      break;
    case PROP_BASE_URL:
      g_value_set_string (value, priv->base_url);
      break;
    case PROP_API_KEY:
      g_value_set_string (value, priv->api_key);
      break;
    case PROP_KEY_ENV:
      g_value_set_string (value, priv->key_env);
      break;
    case PROP_QUIRKS:
      g_value_set_boxed (value, priv->quirks);
      break;
    case PROP_HTTP_CLIENT:
      g_value_set_object (value, priv->http);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_provider_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  OwProvider *self = OW_PROVIDER (object);
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_ID:
      priv->id = g_value_dup_string (value);
      break;
    case PROP_TITLE:
      priv->title = g_value_dup_string (value);
      break;
    case PROP_BASE_URL:
      {
        const char *url = g_value_get_string (value);
        gsize len = url != NULL ? strlen (url) : 0;

        while (len > 0 && url[len - 1] == '/')
          len--;
        priv->base_url = g_strndup (url != NULL ? url : "", len);
      }
      break;
    case PROP_API_KEY:
      priv->api_key = g_value_dup_string (value);
      if (priv->api_key != NULL && priv->api_key[0] == '\0')
        g_clear_pointer (&priv->api_key, g_free);
      /* The key must never reach a log or a record file. */
      ow_redact_register_secret (priv->api_key);
      break;
    case PROP_KEY_ENV:
      priv->key_env = g_value_dup_string (value);
      break;
    case PROP_QUIRKS:
      priv->quirks = g_value_dup_boxed (value);
      break;
    case PROP_HTTP_CLIENT:
      priv->http = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_provider_class_init (OwProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = ow_provider_finalize;
  object_class->get_property = ow_provider_get_property;
  object_class->set_property = ow_provider_set_property;

  klass->classify_error = ow_provider_real_classify_error;
  klass->stream_is_ndjson = ow_provider_real_stream_is_ndjson;

  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  properties[PROP_BASE_URL] = g_param_spec_string ("base-url", NULL, NULL, NULL, flags);
  properties[PROP_API_KEY] = g_param_spec_string ("api-key", NULL, NULL, NULL, flags);
  properties[PROP_KEY_ENV] = g_param_spec_string ("key-env", NULL, NULL, NULL, flags);
  properties[PROP_QUIRKS] = g_param_spec_boxed ("quirks", NULL, NULL, JSON_TYPE_OBJECT, flags);
  properties[PROP_HTTP_CLIENT] = g_param_spec_object ("http-client", NULL, NULL,
                                                      OW_TYPE_HTTP_CLIENT, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ow_provider_init (OwProvider *self)
{
}

OwProvider *
ow_provider_new (OwWireStyle             style,
                 const OwProviderConfig *config,
                 OwHttpClient           *http)
{
  OwProvider *self;
  OwProviderPrivate *priv;
  GType type;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (http == NULL || OW_IS_HTTP_CLIENT (http), NULL);

  switch (style)
    {
    case OW_WIRE_OPENAI_CHAT:
      type = OW_TYPE_PROVIDER_OPENAI_CHAT;
      break;
    case OW_WIRE_OPENAI_RESPONSES:
      type = OW_TYPE_PROVIDER_OPENAI_RESPONSES;
      break;
    case OW_WIRE_ANTHROPIC:
      type = OW_TYPE_PROVIDER_ANTHROPIC;
      break;
    case OW_WIRE_GEMINI:
      type = OW_TYPE_PROVIDER_GEMINI;
      break;
    case OW_WIRE_OLLAMA:
      type = OW_TYPE_PROVIDER_OLLAMA;
      break;
    default:
      g_return_val_if_reached (NULL);
    }

  self = g_object_new (type,
                       "id", config->id,
                       "title", config->title != NULL ? config->title : config->id,
                       "base-url", config->base_url,
                       "api-key", config->api_key,
                       "key-env", config->key_env,
                       "quirks", config->quirks,
                       "http-client", http,
                       NULL);
  priv = ow_provider_get_instance_private (self);
  priv->wire_style = style;
  return self;
}

const char *
ow_provider_get_id (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return priv->id;
}

const char *
ow_provider_get_title (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  if (priv->title != NULL)
    return priv->title;
  return priv->id != NULL ? priv->id : "The model provider";
}

const char *
ow_provider_get_base_url (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return priv->base_url;
}

const char *
ow_provider_get_api_key (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return priv->api_key;
}

const char *
ow_provider_get_key_env (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return priv->key_env;
}

OwWireStyle
ow_provider_get_wire_style (OwProvider *self)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), OW_WIRE_OPENAI_CHAT);
  return priv->wire_style;
}

const char *
ow_provider_get_quirk_string (OwProvider *self,
                              const char *name)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  return ow_json_get_string (priv->quirks, name);
}

gboolean
ow_provider_get_quirk_bool (OwProvider *self,
                            const char *name,
                            gboolean    fallback)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), fallback);
  return ow_json_get_bool (priv->quirks, name, fallback);
}

gint64
ow_provider_get_quirk_int (OwProvider *self,
                           const char *name,
                           gint64      fallback)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), fallback);
  return ow_json_get_int (priv->quirks, name, fallback);
}

JsonNode *
ow_provider_get_quirk (OwProvider *self,
                       const char *name)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  if (priv->quirks == NULL || !json_object_has_member (priv->quirks, name))
    return NULL;
  return json_object_get_member (priv->quirks, name);
}

/* ---- The asynchronous call ---------------------------------------------- */

static void call_start_attempt (GTask *task);

static char *
url_host (const char *url)
{
  const char *start = url != NULL ? strstr (url, "://") : NULL;
  const char *end;

  if (start == NULL)
    return g_strdup (url != NULL ? url : "the server");
  start += 3;
  end = start + strcspn (start, "/?#");
  return g_strndup (start, end - start);
}

/* Writes the cause line: where the answer came from, then what went wrong,
 * on one line with credentials removed. */
static void
call_set_cause (OwProviderCall *call,
                const char     *peer,
                const char     *fallback_detail)
{
  const char *detail = call->detail != NULL ? call->detail : fallback_detail;
  g_autofree char *line = NULL;
  g_autofree char *host = NULL;

  if (call->info->status > 0)
    {
      host = peer != NULL && peer[0] != '\0' ? g_strdup (peer) : url_host (call->url);
      if (g_str_has_prefix (detail, "then "))
        line = g_strdup_printf ("HTTP %u from %s, %s", call->info->status, host, detail);
      else if (detail[0] == '(' || detail[0] == ':')
        line = g_strdup_printf ("HTTP %u from %s %s", call->info->status, host, detail);
      else
        line = g_strdup_printf ("HTTP %u from %s: %s", call->info->status, host, detail);
    }
  else
    line = g_strdup_printf ("POST %s: %s", call->url != NULL ? call->url : "(no URL)", detail);

  g_strdelimit (line, "\r\n\t", ' ');
  g_free (call->info->cause);
  call->info->cause = ow_redact (line);
}

static void
call_record_response (OwProviderCall *call,
                      OwHttpResponse *resp)
{
  const char *request_id;
  const char *peer;

  if (resp == NULL)
    return;
  call->info->status = ow_http_response_get_status (resp);
  peer = ow_http_response_get_peer (resp);
  if (peer != NULL && peer[0] != '\0')
    {
      g_free (call->info->host);
      call->info->host = g_strdup (peer);
    }
  request_id = ow_http_response_get_header (resp, "x-request-id");
  if (request_id == NULL)
    request_id = ow_http_response_get_header (resp, "request-id");
  if (request_id != NULL)
    {
      g_free (call->info->request_id);
      call->info->request_id = g_strdup (request_id);
    }
  call->info->ttfb = ow_http_response_get_ttfb (resp);
}

static void
call_complete_error (GTask          *task,
                     OwProviderCall *call,
                     GError         *error,
                     const char     *fallback_detail)
{
  call->info->duration = (g_get_monotonic_time () - call->started_us) / (double) G_USEC_PER_SEC;
  call_set_cause (call, call->info->host, fallback_detail);
  if (call->partial == NULL && call->turn != NULL
      && (call->turn->text->len > 0 || call->turn->reasoning->len > 0
          || call->turn->tool_calls->len > 0))
    call->partial = g_steal_pointer (&call->turn);
  g_debug ("%s: call failed: %s", ow_provider_get_id (call->provider), call->info->cause);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static gboolean
on_chunk_cb (OwHttpResponse *resp,
             const char     *data,
             gsize           len,
             gpointer        user_data)
{
  OwProviderCall *call = user_data;

  if (call->cancellable != NULL && g_cancellable_is_cancelled (call->cancellable))
    return FALSE;
  if (call->info->status == 0)
    {
      OwProviderClass *klass = OW_PROVIDER_GET_CLASS (call->provider);
      const char *type = ow_http_response_get_header (resp, "content-type");

      call_record_response (call, resp);
      /* Some compatible servers ignore "stream" and answer with the whole
       * reply as one JSON document; it is read as such at the end. */
      if (type != NULL && g_ascii_strncasecmp (type, "application/json", 16) == 0
          && (klass->stream_is_ndjson == NULL || !klass->stream_is_ndjson (call->provider)))
        call->whole_body = g_byte_array_new ();
    }
  if (call->whole_body != NULL)
    {
      g_byte_array_append (call->whole_body, (const guint8 *) data, (guint) len);
      call->n_bytes += len;
      return TRUE;
    }
  return ow_provider_call_feed (call, data, len, NULL);
}

static void
on_sent_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  OwProviderCall *call = g_task_get_task_data (task);
  OwProvider *self = call->provider;
  OwProviderClass *klass = OW_PROVIDER_GET_CLASS (self);
  g_autoptr(OwHttpResponse) resp = NULL;
  g_autoptr(GError) error = NULL;
  GError *result_error = NULL;
  OwTurn *turn;
  guint status;

  resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &error);
  call_record_response (call, resp);
  call->info->duration = (g_get_monotonic_time () - call->started_us) / (double) G_USEC_PER_SEC;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
      || (call->cancellable != NULL && g_cancellable_is_cancelled (call->cancellable)))
    {
      call_set_detail (call, "cancelled by the caller");
      call_complete_error (task, call,
                           g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                "The model call was cancelled."),
                           "cancelled");
      return;
    }

  /* A connection dropped after the terminal event lost nothing. */
  if (error != NULL && call->stream_error == NULL && call->req.stream && call->turn->complete)
    g_clear_error (&error);

  if (error != NULL)
    {
      /* Our own chunk function stopped the transfer: the reason is the
       * stream error it recorded, not the transport. */
      if (call->stream_error != NULL)
        {
          call_complete_error (task, call, g_error_copy (call->stream_error), "stream error");
          return;
        }
      if (g_error_matches (error, OW_NET_ERROR, OW_NET_ERROR_CUT_OFF))
        {
          call_complete_error (task, call, call_cut_off_error (call), "cut off");
          return;
        }
      if (call->info->status > 0)
        call_set_detail (call, "then the transfer failed: %s", error->message);
      else
        call_set_detail (call, "%s", error->message);
      if (g_error_matches (error, OW_NET_ERROR, OW_NET_ERROR_TOO_LARGE))
        {
          /* Not the network's fault: the reply is not something a model
           * sends. */
          call_complete_error (task, call,
                               g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                                            "%s sent a reply too large to read (%s).",
                                            ow_provider_get_title (self), error->message),
                               error->message);
          return;
        }
      {
        /* Shown without a password the base URL may carry. */
        g_autofree char *shown = ow_redact (ow_provider_get_base_url (self));

        result_error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CONNECTION,
                                    "Couldn't reach %s at %s (%s). Check the network connection, "
                                    "and that the server is running at that address.",
                                    ow_provider_get_title (self), shown, error->message);
      }
      call_complete_error (task, call, result_error, error->message);
      return;
    }

  status = resp != NULL ? ow_http_response_get_status (resp) : call->info->status;
  if (status < 200 || status >= 300)
    {
      GBytes *bytes = ow_http_response_get_body (resp);
      gsize size = 0;
      const char *data = g_bytes_get_data (bytes, &size);
      /* Error bodies come from proxies too: never trust their encoding. */
      g_autofree char *body = g_utf8_make_valid (data != NULL ? data : "", (gssize) size);
      OwErrorBody err = { NULL, NULL, -1 };

      if (ow_provider_call_fix_params (call, status, body))
        {
          call_start_attempt (task);
          return;
        }

      call_enter (call);
      result_error = klass->classify_error (self, status, resp, body);
      call_leave (call);
      if (result_error == NULL)
        result_error = ow_provider_classify_http_error (ow_provider_get_title (self),
                                                        ow_provider_get_key_env (self),
                                                        call->req.model, status, body);
      call->info->retry_after_ms =
        ow_provider_parse_retry_after (ow_http_response_get_header (resp, "retry-after-ms"),
                                       ow_http_response_get_header (resp, "retry-after"),
                                       body, g_get_real_time ());

      ow_error_body_parse (body, &err);
      if (err.type != NULL)
        call_set_detail (call, "(%s): %s", err.type, err.message != NULL ? err.message : "");
      else
        call_set_detail (call, "%s", err.message != NULL ? err.message : "(empty body)");
      ow_error_body_clear (&err);
      call_complete_error (task, call, result_error, "error status");
      return;
    }

  if (call->req.stream && call->whole_body != NULL)
    turn = ow_provider_call_parse_body (call, (const char *) call->whole_body->data,
                                        call->whole_body->len, &call->partial, &result_error);
  else if (call->req.stream)
    turn = ow_provider_call_finish_stream (call, &call->partial, &result_error);
  else
    {
      GBytes *bytes = ow_http_response_get_body (resp);
      gsize size = 0;
      const char *data = g_bytes_get_data (bytes, &size);

      turn = ow_provider_call_parse_body (call, data != NULL ? data : "", size,
                                          &call->partial, &result_error);
    }

  if (turn == NULL)
    {
      call_complete_error (task, call, result_error, "unreadable reply");
      return;
    }
  g_task_return_pointer (task, turn, (GDestroyNotify) ow_turn_free);
  g_object_unref (task);
}

static void
call_start_attempt (GTask *task)
{
  OwProviderCall *call = g_task_get_task_data (task);
  OwProviderPrivate *priv = ow_provider_get_instance_private (call->provider);
  g_autoptr(OwHttpRequest) http = NULL;
  GError *error = NULL;

  call_reset_attempt (call);
  call->info->status = 0;
  http = ow_provider_call_build (call, &error);
  if (http == NULL)
    {
      if (error == NULL)
        error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_FAILED,
                             "The request to %s could not be built.",
                             ow_provider_get_title (call->provider));
      call_set_detail (call, "the request could not be built: %s", error->message);
      call_complete_error (task, call, error, "build failed");
      return;
    }
  g_free (call->info->url);
  call->info->url = ow_redact (ow_http_request_get_url (http));

  ow_http_client_send_async (priv->http, http,
                             call->req.stream ? on_chunk_cb : NULL, call, NULL,
                             call->cancellable, on_sent_cb, task);
}

void
ow_provider_complete_async (OwProvider           *self,
                            const OwModelRequest *req,
                            OwDeltaFunc           on_delta,
                            gpointer              delta_data,
                            GCancellable         *cancellable,
                            GAsyncReadyCallback   callback,
                            gpointer              user_data)
{
  OwProviderPrivate *priv = ow_provider_get_instance_private (self);
  OwProviderCall *call;
  GTask *task;

  g_return_if_fail (OW_IS_PROVIDER (self));
  g_return_if_fail (req != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  call = ow_provider_call_new (self, req, on_delta, delta_data);
  call->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  call->info = ow_call_info_new ();

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_provider_complete_async);
  g_task_set_task_data (task, call, (GDestroyNotify) ow_provider_call_free);

  if (priv->http == NULL)
    {
      call_set_detail (call, "no HTTP client");
      call_complete_error (task, call,
                           g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_FAILED,
                                        "%s has no HTTP client to send with.",
                                        ow_provider_get_title (self)),
                           "no HTTP client");
      return;
    }
  call_start_attempt (task);
}

OwTurn *
ow_provider_complete_finish (OwProvider    *self,
                             GAsyncResult  *result,
                             OwCallInfo   **info,
                             OwTurn       **partial,
                             GError       **error)
{
  OwProviderCall *call;

  g_return_val_if_fail (OW_IS_PROVIDER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  call = g_task_get_task_data (G_TASK (result));
  if (info != NULL)
    *info = g_steal_pointer (&call->info);
  if (partial != NULL)
    *partial = g_steal_pointer (&call->partial);
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
ow_provider_error_is_transient (const GError *error)
{
  if (error == NULL || error->domain != OW_PROVIDER_ERROR)
    return FALSE;

  switch ((OwProviderError) error->code)
    {
    case OW_PROVIDER_ERROR_RATE_LIMITED:
    case OW_PROVIDER_ERROR_OVERLOADED:
    case OW_PROVIDER_ERROR_SERVER:
    case OW_PROVIDER_ERROR_CONNECTION:
    case OW_PROVIDER_ERROR_CUT_OFF:
    case OW_PROVIDER_ERROR_EMPTY_REPLY:
    case OW_PROVIDER_ERROR_PROTOCOL:
      return TRUE;
    case OW_PROVIDER_ERROR_FAILED:
    case OW_PROVIDER_ERROR_AUTH:
    case OW_PROVIDER_ERROR_MODEL_NOT_FOUND:
    case OW_PROVIDER_ERROR_CONTEXT_OVERFLOW:
    case OW_PROVIDER_ERROR_QUOTA:
    case OW_PROVIDER_ERROR_BAD_REQUEST:
    case OW_PROVIDER_ERROR_REFUSED:
    case OW_PROVIDER_ERROR_NO_KEY:
    case OW_PROVIDER_ERROR_UNKNOWN_PROVIDER:
    case OW_PROVIDER_ERROR_REGION:
    default:
      return FALSE;
    }
}

/* ---- Canonical history -------------------------------------------------- */

char *
ow_history_content_text (JsonObject *message)
{
  JsonNode *content = (message != NULL ? json_object_get_member (message, "content") : NULL);
  GString *text;
  JsonArray *parts;

  if (content == NULL || JSON_NODE_HOLDS_NULL (content))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (content))
    return g_strdup (json_node_get_string (content) != NULL ? json_node_get_string (content) : "");
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return g_strdup ("");

  text = g_string_new (NULL);
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *part = json_array_get_element (parts, i);
      const char *piece;

      if (!JSON_NODE_HOLDS_OBJECT (part))
        continue;
      piece = ow_json_get_string (json_node_get_object (part), "text");
      if (piece == NULL)
        continue;
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, piece);
    }
  return g_string_free (text, FALSE);
}

char *
ow_history_system_text (JsonArray *messages,
                        guint     *n_leading)
{
  GString *text = NULL;
  guint i;

  for (i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonObject *message;
      g_autofree char *piece = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        break;
      message = json_node_get_object (node);
      if (g_strcmp0 (ow_json_get_string (message, "role"), "system") != 0)
        break;
      piece = ow_history_content_text (message);
      if (piece[0] == '\0')
        continue;
      if (text == NULL)
        text = g_string_new (NULL);
      else
        g_string_append (text, "\n\n");
      g_string_append (text, piece);
    }
  if (n_leading != NULL)
    *n_leading = i;
  return text != NULL ? g_string_free (text, FALSE) : NULL;
}

gboolean
ow_history_is_outbound (JsonObject *message)
{
  const char *role = ow_json_get_string (message, "role");

  return role != NULL && !g_str_equal (role, "notice");
}

/* What the Chat Completions wire defines for each role's message (OpenAI's
 * published request schema). Anything else the engine keeps on a message
 * (ts, usage, finish_reason, reasoning, sidecars, whatever a later change
 * adds) stays home: strict servers (the Responses API, Mistral, older
 * vLLM) refuse a request with an unknown member. An allowlist, so a new
 * engine key can never leak out by being forgotten in a deny list. */
static const struct {
  const char        *role;
  const char *const  keys[5];
} chat_message_keys[] = {
  { "system",    { "role", "content", "name", NULL } },
  { "developer", { "role", "content", "name", NULL } },
  { "user",      { "role", "content", "name", NULL } },
  { "assistant", { "role", "content", "name", "tool_calls", "refusal" } },
  { "tool",      { "role", "content", "tool_call_id", NULL } },
};

JsonObject *
ow_history_strip_message (JsonObject *message)
{
  const char *role = ow_json_get_string (message, "role");
  JsonObject *copy = json_object_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (chat_message_keys); i++)
    {
      if (g_strcmp0 (role, chat_message_keys[i].role) != 0)
        continue;
      for (gsize k = 0; k < G_N_ELEMENTS (chat_message_keys[i].keys); k++)
        {
          const char *name = chat_message_keys[i].keys[k];
          JsonNode *value;

          if (name == NULL)
            break;
          value = json_object_get_member (message, name);
          if (value != NULL)
            json_object_set_member (copy, name, ow_json_deep_copy (value));
        }
      return copy;
    }
  /* A role the wire does not know: its name and content, as text. */
  json_object_set_string_member (copy, "role", role != NULL ? role : "user");
  if (json_object_has_member (message, "content"))
    json_object_set_member (copy, "content", ow_json_deep_copy (json_object_get_member (message, "content")));
  return copy;
}

const char *
ow_history_tool_name (JsonArray  *messages,
                      guint       before,
                      const char *tool_call_id)
{
  if (tool_call_id == NULL)
    return NULL;

  for (guint i = MIN (before, json_array_get_length (messages)); i-- > 0;)
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonArray *calls;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      calls = ow_json_get_array (json_node_get_object (node), "tool_calls");
      for (guint j = 0; calls != NULL && j < json_array_get_length (calls); j++)
        {
          JsonNode *call = json_array_get_element (calls, j);
          JsonObject *obj;

          if (!JSON_NODE_HOLDS_OBJECT (call))
            continue;
          obj = json_node_get_object (call);
          if (g_strcmp0 (ow_json_get_string (obj, "id"), tool_call_id) == 0)
            return ow_json_get_string (ow_json_get_object (obj, "function"), "name");
        }
    }
  return NULL;
}

JsonObject *
ow_history_sidecar (JsonObject *message,
                    const char *key)
{
  return ow_json_get_object (message, key);
}

gboolean
ow_data_url_parse (const char  *url,
                   char       **mime,
                   char       **data)
{
  const char *comma;
  const char *header;
  g_autofree char *meta = NULL;
  char *semi;

  if (url == NULL || !g_str_has_prefix (url, "data:"))
    return FALSE;
  header = url + 5;
  comma = strchr (header, ',');
  if (comma == NULL)
    return FALSE;
  meta = g_strndup (header, comma - header);
  /* Only base64 payloads: every wire wants base64, and attachments are
   * always stored that way. */
  if (!g_str_has_suffix (meta, ";base64"))
    return FALSE;
  semi = strchr (meta, ';');
  *semi = '\0';
  if (mime != NULL)
    *mime = g_strdup (meta[0] != '\0' ? meta : "application/octet-stream");
  if (data != NULL)
    *data = g_strdup (comma + 1);
  return TRUE;
}

JsonNode *
ow_arguments_to_object (const char *arguments)
{
  g_autoptr(JsonNode) parsed = NULL;
  JsonObject *wrapper;
  JsonNode *node;

  if (arguments == NULL || arguments[0] == '\0')
    {
      node = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (node, json_object_new ());
      return node;
    }
  parsed = ow_json_parse (arguments, -1, NULL);
  if (parsed != NULL && JSON_NODE_HOLDS_OBJECT (parsed))
    return ow_json_deep_copy (parsed);

  /* The engine never runs such a call; it goes back in the shape the
   * engine records mangled calls in, so the model sees what it wrote. */
  wrapper = json_object_new ();
  json_object_set_string_member (wrapper, "_raw", arguments);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, wrapper);
  return node;
}
