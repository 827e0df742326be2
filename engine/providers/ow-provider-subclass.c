/* ow-provider-subclass.c: what a wire style calls inside its vfuncs.
 *
 * Every function here acts on the provider's current call (see
 * ow_provider_call_enter()): the request being built, the call's scratch
 * state, the JSON body with the parameter fixes applied, the headers the
 * tests read back, in-stream errors and deltas. Outside a call they do
 * the harmless part (a body is still built, a delta is dropped).
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-error.h"

/* Streamed replies may be long-silent while a model thinks; non-streamed
 * ones are silent until the whole answer is written. */
#define STREAM_IDLE_TIMEOUT_MS (300 * 1000)
#define BLOCKING_IDLE_TIMEOUT_MS (900 * 1000)
#define CONNECT_TIMEOUT_MS (30 * 1000)

const OwModelRequest *
ow_provider_get_request (OwProvider *self)
{
  OwProviderCall *call = ow_provider_get_current_call (self);

  return call != NULL ? &call->req : NULL;
}

gpointer
ow_provider_get_call_state (OwProvider *self)
{
  OwProviderCall *call = ow_provider_get_current_call (self);

  return call != NULL ? call->state : NULL;
}

void
ow_provider_set_call_state (OwProvider     *self,
                            gpointer        state,
                            GDestroyNotify  destroy)
{
  OwProviderCall *call = ow_provider_get_current_call (self);

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
  OwProviderCall *call = ow_provider_get_current_call (self);
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
  OwProviderCall *call = ow_provider_get_current_call (self);

  ow_http_request_add_header (http, name, value);
  if (call != NULL)
    g_ptr_array_add (call->headers, g_strdup_printf ("%s: %s", name, value));
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
  OwProviderCall *call = ow_provider_get_current_call (self);
  const OwModelRequest *req = ow_provider_get_request (self);

  if (call != NULL)
    {
      g_free (call->err_type);
      call->err_type = g_strdup (type);
      g_free (call->err_message);
      call->err_message = g_strdup (message);
      if (type != NULL)
        ow_provider_call_set_detail (call, "then a stream error (%s): %s", type,
                                     message != NULL ? message : "no message");
      else
        ow_provider_call_set_detail (call, "then a stream error: %s",
                                     message != NULL ? message : "no message");
    }
  return ow_provider_classify (ow_provider_get_title (self), ow_provider_get_key_env (self),
                               req != NULL ? req->model : NULL, 0, type, message, NULL);
}

void
ow_provider_set_raw_finish_reason (OwProvider *self,
                                   const char *raw)
{
  OwProviderCall *call = ow_provider_get_current_call (self);

  if (call != NULL)
    {
      g_free (call->raw_finish);
      call->raw_finish = g_strdup (raw);
    }
}

JsonObject *
ow_provider_tool_function (JsonArray *tools,
                           guint      i)
{
  JsonNode *node = json_array_get_element (tools, i);
  JsonObject *function;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  function = ow_json_get_object (json_node_get_object (node), "function");
  if (function == NULL || ow_json_get_string (function, "name") == NULL)
    return NULL;
  return function;
}

JsonObject *
ow_provider_tool_declaration (JsonObject *function,
                              const char *type)
{
  JsonObject *tool = json_object_new ();
  const char *description = ow_json_get_string (function, "description");

  if (type != NULL)
    json_object_set_string_member (tool, "type", type);
  json_object_set_string_member (tool, "name", ow_json_get_string (function, "name"));
  if (description != NULL)
    json_object_set_string_member (tool, "description", description);
  return tool;
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
  OwProviderCall *call = ow_provider_get_current_call (self);

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
