/* ow-provider-call.c: OwProviderCall, the per-call driver.
 *
 * A call holds a copy of the request and, per attempt, the turn being
 * assembled, the stream framing (SSE, or NDJSON for Ollama) and the
 * subclass's scratch state. It runs the subclass's vfuncs as "the current
 * call" (ow_provider_call_enter()), applies the parameter fixes collected
 * so far to every build, and decides at the end between the turn and an
 * error (cut off, empty, refused, duplicate call ids). Tool calls a local
 * model wrote as text are salvaged here. ow-provider-async.c runs a call
 * over OwHttpClient; the unit tests run the same functions by hand.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

#include "net/ow-ndjson-parser.h"
#include "net/ow-sse-parser.h"
#include "ow-error.h"
#include "providers/ow-tool-salvage.h"

/* At most this many parameter-fix resends per call: each fixes one thing
 * the server named, and no real request needs more. */
#define MAX_PARAM_FIXES 3

void
ow_provider_call_reset_attempt (OwProviderCall *call)
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
  ow_provider_call_reset_attempt (call);
  return call;
}

void
ow_provider_call_free (OwProviderCall *call)
{
  if (call == NULL)
    return;
  ow_provider_call_reset_attempt (call);
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

void
ow_provider_call_set_detail (OwProviderCall *call,
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

  ow_provider_call_enter (call);
  ok = klass->build_request (call->provider, &call->req, &http, error);
  ow_provider_call_leave (call);

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
  OwParamFixFunc fixer = ow_provider_get_param_fixer (call->provider);
  g_autoptr(JsonObject) edits = NULL;
  OwErrorBody err = { NULL, NULL, -1 };
  JsonObject *sent;
  gboolean fixed = FALSE;

  /* Only a rejected request names a parameter; 422 is how some compatible
   * servers spell 400. */
  if ((status != 400 && status != 422) || fixer == NULL)
    return FALSE;
  if (call->n_fixes >= MAX_PARAM_FIXES || call->body == NULL
      || !JSON_NODE_HOLDS_OBJECT (call->body))
    return FALSE;

  ow_error_body_parse (body, &err);
  sent = json_node_get_object (call->body);
  edits = json_object_new ();
  if (err.message != NULL && fixer (call->provider, sent, err.message, edits)
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

  ow_provider_call_enter (call);
  ok = klass->handle_event (call->provider, call->turn, event, data, len, &error);
  ow_provider_call_leave (call);

  if (!ok)
    {
      if (error == NULL)
        error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                             "%s sent a stream event that could not be read.",
                             ow_provider_get_title (call->provider));
      if (call->detail == NULL)
        ow_provider_call_set_detail (call, "then the reply failed: %s", error->message);
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
      ow_provider_call_set_detail (call, "then a stream event over the size limit");
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
      ow_provider_call_set_detail (call, "two tool calls share the id '%s'", duplicate);
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply with two tool calls under the same id '%s', so neither can be "
                   "answered. Retry; if it keeps happening, the service (or a proxy in front of it) "
                   "is mangling tool calls.", title, duplicate);
    }
  else if (empty && g_str_equal (turn->finish_reason, "content_filter"))
    {
      ow_provider_call_set_detail (call, "the reply was withheld by the content filter "
                                   "(finish reason %s)",
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

      ow_provider_call_set_detail (call, "the reply had no text and no tool calls "
                                   "(finish reason %s)", why);
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

GError *
ow_provider_call_cut_off_error (OwProviderCall *call)
{
  ow_provider_call_set_detail (call, "then the stream ended before its terminal event (%"
                               G_GSIZE_FORMAT " bytes received)", call->n_bytes);
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
      g_propagate_error (error, ow_provider_call_cut_off_error (call));
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
      ow_provider_call_set_detail (call, "an unreadable reply body (%s)",
                                   local_error != NULL ? local_error->message : "no parser");
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply that could not be read (%s). Retry; if it keeps happening, "
                   "check that the base URL points at the right API.",
                   ow_provider_get_title (call->provider),
                   local_error != NULL ? local_error->message : "no parser");
      return NULL;
    }

  ow_provider_call_enter (call);
  ok = klass->parse_response (call->provider, call->turn, root, &local_error);
  ow_provider_call_leave (call);
  if (!ok)
    {
      if (local_error == NULL)
        local_error = g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                                   "%s sent a reply that could not be read.",
                                   ow_provider_get_title (call->provider));
      if (call->detail == NULL)
        ow_provider_call_set_detail (call, "the reply failed: %s", local_error->message);
      g_propagate_error (error, g_steal_pointer (&local_error));
      call_give_partial (call, partial);
      return NULL;
    }
  return call_conclude (call, partial, error);
}
