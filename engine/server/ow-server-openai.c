/* ow-server-openai.c: POST /v1/chat/completions and GET /v1/models.
 *
 * Any OpenAI client — the official SDKs included, with the API token as
 * their key (Authorization: Bearer) — can talk to any model this machine
 * has a key for, in any wire style: the request is checked
 * (ow-chat-request.c), the provider is built as the agent builds it, and
 * the reply is turned back into Chat Completions, whole or as SSE chunks.
 * There is no agent loop here: no tools run, nothing is stored.
 *
 * A streamed reply sends its headers with the first delta, so an upstream
 * failure before that (a refused key, a rate limit) still comes back with
 * a fitting HTTP status; after it, as a final `data: {"error": …}` event
 * and no [DONE]. A client that goes away cancels the upstream call.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-private.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "providers/ow-provider-catalog.h"
#include "server/ow-chat-request.h"
#include "store/ow-model-config.h"

typedef struct {
  OwServer      *server;        /* a reference */
  OwRequest     *req;
  OwChatRequest *chat;
  OwProvider    *provider;
  char          *model_id;      /* as the client named it (echoed back) */
  char          *bare;          /* as the wire wants it */
  char           id[40];        /* chatcmpl-… */
  gint64         created;
  GCancellable  *cancellable;
  gulong         finished_id;
  gulong         server_cancel_id;  /* on the server's cancellable */
  gboolean       headers_sent;
  gboolean       gone;          /* the client left */
} Call;

static void
call_free (Call *call)
{
  if (call->finished_id != 0)
    g_signal_handler_disconnect (call->req->msg, call->finished_id);
  g_cancellable_disconnect (call->server->cancellable, call->server_cancel_id);
  call->server->completions--;
  ow_request_done (call->req);
  ow_chat_request_free (call->chat);
  g_clear_object (&call->provider);
  g_free (call->model_id);
  g_free (call->bare);
  g_clear_object (&call->cancellable);
  g_object_unref (call->server);
  g_free (call);
}

/* {"ok":false,"error":{"message","type","code"}}: the OpenAI error shape,
 * which the SDKs read, with our ok flag. */
static char *
openai_error_json (const char *message, const char *type, const char *code)
{
  g_autoptr(JsonObject) obj = json_object_new ();
  JsonObject *err = json_object_new ();

  json_object_set_string_member (err, "message", message);
  json_object_set_string_member (err, "type", type);
  if (code != NULL)
    json_object_set_string_member (err, "code", code);
  else
    json_object_set_null_member (err, "code");
  json_object_set_null_member (err, "param");
  json_object_set_boolean_member (obj, "ok", FALSE);
  json_object_set_object_member (obj, "error", err);
  return ow_json_object_to_string (obj);
}

static void
reply_openai_error (OwRequest *req, guint status, const char *message, const char *type, const char *code)
{
  ow_reply_json_text (req, status, openai_error_json (message, type, code));
}

/* The status and OpenAI error type for a model-call failure. */
static guint
status_for_provider_error (const GError *error, const char **type, const char **code)
{
  *type = "api_error";
  *code = NULL;
  if (error->domain != OW_PROVIDER_ERROR)
    return SOUP_STATUS_BAD_GATEWAY;
  switch ((OwProviderError) error->code)
    {
    case OW_PROVIDER_ERROR_RATE_LIMITED:
      *type = "rate_limit_error";
      *code = "rate_limit_exceeded";
      return OW_STATUS_TOO_MANY_REQUESTS;
    case OW_PROVIDER_ERROR_QUOTA:
      *type = "insufficient_quota";
      *code = "insufficient_quota";
      return OW_STATUS_TOO_MANY_REQUESTS;
    case OW_PROVIDER_ERROR_MODEL_NOT_FOUND:
    case OW_PROVIDER_ERROR_UNKNOWN_PROVIDER:
      *type = "invalid_request_error";
      *code = "model_not_found";
      return SOUP_STATUS_NOT_FOUND;
    case OW_PROVIDER_ERROR_CONTEXT_OVERFLOW:
      *type = "invalid_request_error";
      *code = "context_length_exceeded";
      return SOUP_STATUS_BAD_REQUEST;
    case OW_PROVIDER_ERROR_BAD_REQUEST:
    case OW_PROVIDER_ERROR_REFUSED:
      *type = "invalid_request_error";
      return SOUP_STATUS_BAD_REQUEST;
    case OW_PROVIDER_ERROR_NO_KEY:
      *type = "invalid_request_error";
      *code = "provider_key_missing";
      return SOUP_STATUS_BAD_REQUEST;
    case OW_PROVIDER_ERROR_REGION:
      *type = "invalid_request_error";
      *code = "unsupported_country_region_territory";
      return SOUP_STATUS_FORBIDDEN;
    case OW_PROVIDER_ERROR_AUTH:
      /* The client's token was fine; the provider refused ours. */
      *code = "provider_auth";
      return SOUP_STATUS_BAD_GATEWAY;
    case OW_PROVIDER_ERROR_OVERLOADED:
      *code = "overloaded";
      return SOUP_STATUS_SERVICE_UNAVAILABLE;
    default:
      return SOUP_STATUS_BAD_GATEWAY;
    }
}

static JsonObject *
chunk_object (Call *call, JsonObject *delta, const char *finish)
{
  JsonObject *o = json_object_new ();
  JsonArray *choices = json_array_new ();
  JsonObject *choice = json_object_new ();

  json_object_set_string_member (o, "id", call->id);
  json_object_set_string_member (o, "object", "chat.completion.chunk");
  json_object_set_int_member (o, "created", call->created);
  json_object_set_string_member (o, "model", call->model_id);
  json_object_set_int_member (choice, "index", 0);
  json_object_set_object_member (choice, "delta", delta);
  if (finish != NULL)
    json_object_set_string_member (choice, "finish_reason", finish);
  else
    json_object_set_null_member (choice, "finish_reason");
  json_array_add_object_element (choices, choice);
  json_object_set_array_member (o, "choices", choices);
  return o;
}

static void
send_event (Call *call, JsonObject *obj)
{
  g_autofree char *json = ow_json_object_to_string (obj);
  g_autofree char *text = g_strconcat ("data: ", json, "\n\n", NULL);
  SoupMessageBody *body = soup_server_message_get_response_body (call->req->msg);

  json_object_unref (obj);
  soup_message_body_append (body, SOUP_MEMORY_COPY, text, strlen (text));
  soup_server_message_unpause (call->req->msg);
}

static void
start_stream (Call *call)
{
  SoupServerMessage *msg = call->req->msg;
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);
  JsonObject *delta = json_object_new ();

  call->headers_sent = TRUE;
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_encoding (h, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (h, "Content-Type", "text/event-stream");
  soup_message_headers_replace (h, "Cache-Control", "no-cache");
  soup_message_headers_replace (h, "X-Content-Type-Options", "nosniff");
  json_object_set_string_member (delta, "role", "assistant");
  json_object_set_string_member (delta, "content", "");
  send_event (call, chunk_object (call, delta, NULL));
}

static void
on_delta_cb (OwDeltaKind kind, const char *text, gsize len, gpointer user_data)
{
  Call *call = user_data;
  JsonObject *delta;
  g_autofree char *piece = NULL;

  if (!call->chat->stream || call->gone || len == 0)
    return;
  if (!call->headers_sent)
    start_stream (call);
  piece = g_strndup (text, len);
  delta = json_object_new ();
  json_object_set_string_member (delta, kind == OW_DELTA_REASONING ? "reasoning_content" : "content", piece);
  send_event (call, chunk_object (call, delta, NULL));
}

static JsonArray *
tool_calls_json (OwTurn *turn, gboolean with_index)
{
  JsonArray *arr = json_array_new ();

  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      OwToolCall *tc = g_ptr_array_index (turn->tool_calls, i);
      JsonObject *o = json_object_new ();
      JsonObject *fn = json_object_new ();
      if (with_index)
        json_object_set_int_member (o, "index", i);
      json_object_set_string_member (o, "id", tc->id != NULL ? tc->id : "");
      json_object_set_string_member (o, "type", "function");
      json_object_set_string_member (fn, "name", tc->name != NULL ? tc->name : "");
      json_object_set_string_member (fn, "arguments", tc->arguments != NULL ? tc->arguments : "");
      json_object_set_object_member (o, "function", fn);
      json_array_add_object_element (arr, o);
    }
  return arr;
}

static JsonObject *
usage_json (OwTurn *turn)
{
  JsonObject *u = json_object_new ();
  gint64 prompt = ow_usage_prompt_total (&turn->usage);

  json_object_set_int_member (u, "prompt_tokens", prompt);
  json_object_set_int_member (u, "completion_tokens", turn->usage.output);
  json_object_set_int_member (u, "total_tokens", prompt + turn->usage.output);
  return u;
}

static const char *
finish_reason (OwTurn *turn)
{
  if (turn->finish_reason != NULL)
    return turn->finish_reason;
  return turn->tool_calls->len > 0 ? "tool_calls" : "stop";
}

static void
finish_stream (Call *call, OwTurn *turn)
{
  SoupMessageBody *body = soup_server_message_get_response_body (call->req->msg);
  static const char done[] = "data: [DONE]\n\n";

  if (!call->headers_sent)
    start_stream (call);
  if (turn->tool_calls->len > 0)
    {
      JsonObject *delta = json_object_new ();
      json_object_set_array_member (delta, "tool_calls", tool_calls_json (turn, TRUE));
      send_event (call, chunk_object (call, delta, NULL));
    }
  send_event (call, chunk_object (call, json_object_new (), finish_reason (turn)));
  if (call->chat->include_usage)
    {
      JsonObject *o = json_object_new ();
      json_object_set_string_member (o, "id", call->id);
      json_object_set_string_member (o, "object", "chat.completion.chunk");
      json_object_set_int_member (o, "created", call->created);
      json_object_set_string_member (o, "model", call->model_id);
      json_object_set_array_member (o, "choices", json_array_new ());
      json_object_set_object_member (o, "usage", usage_json (turn));
      send_event (call, o);
    }
  soup_message_body_append (body, SOUP_MEMORY_STATIC, done, sizeof done - 1);
  soup_message_body_complete (body);
}

static void
reply_whole (Call *call, OwTurn *turn)
{
  JsonObject *o = json_object_new ();
  JsonArray *choices = json_array_new ();
  JsonObject *choice = json_object_new ();
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", "assistant");
  if (turn->text->len > 0 || turn->tool_calls->len == 0)
    json_object_set_string_member (message, "content", turn->text->str);
  else
    json_object_set_null_member (message, "content");
  if (turn->reasoning != NULL && turn->reasoning->len > 0)
    json_object_set_string_member (message, "reasoning_content", turn->reasoning->str);
  if (turn->tool_calls->len > 0)
    json_object_set_array_member (message, "tool_calls", tool_calls_json (turn, FALSE));
  json_object_set_int_member (choice, "index", 0);
  json_object_set_object_member (choice, "message", message);
  json_object_set_string_member (choice, "finish_reason", finish_reason (turn));
  json_array_add_object_element (choices, choice);

  json_object_set_string_member (o, "id", call->id);
  json_object_set_string_member (o, "object", "chat.completion");
  json_object_set_int_member (o, "created", call->created);
  json_object_set_string_member (o, "model", call->model_id);
  json_object_set_array_member (o, "choices", choices);
  json_object_set_object_member (o, "usage", usage_json (turn));
  ow_reply_object (call->req, SOUP_STATUS_OK, o);
}

static void
on_complete_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTurn) turn = ow_provider_complete_finish (OW_PROVIDER (source), result, NULL, NULL, &error);

  if (call->gone)
    {
      call_free (call);
      return;
    }
  if (turn == NULL)
    {
      const char *type, *code;
      guint status = status_for_provider_error (error, &type, &code);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        status = SOUP_STATUS_SERVICE_UNAVAILABLE;
      if (call->headers_sent)
        {
          /* Mid-stream: the error as the last event, no [DONE]. */
          g_autofree char *json = openai_error_json (error->message, type, code);
          g_autofree char *text = g_strconcat ("data: ", json, "\n\n", NULL);
          SoupMessageBody *body = soup_server_message_get_response_body (call->req->msg);
          soup_message_body_append (body, SOUP_MEMORY_COPY, text, strlen (text));
          soup_message_body_complete (body);
        }
      else
        reply_openai_error (call->req, status, error->message, type, code);
      call_free (call);
      return;
    }
  if (call->chat->stream)
    finish_stream (call, turn);
  else
    reply_whole (call, turn);
  call_free (call);
}

static void
on_msg_finished_cb (SoupServerMessage *msg, gpointer user_data)
{
  Call *call = user_data;

  call->gone = TRUE;
  g_cancellable_cancel (call->cancellable);
}

static void
on_server_cancelled_cb (GCancellable *server_cancellable, gpointer user_data)
{
  /* Runs when the server closes: the call's own cancellable follows. */
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static void
start_call (Call *call)
{
  OwModelRequest mreq;
  g_autoptr(OwModelConfig) config = NULL;
  g_auto(OwModelSettings) settings = { 0 };
  OwChatRequest *c = call->chat;

  ow_model_request_init (&mreq);
  mreq.model = call->bare;
  mreq.messages = c->messages;
  mreq.tools = c->tools;
  mreq.stream = c->stream;
  /* Saved per-model settings apply, as in a session; the request wins. */
  if (!ow_context_is_isolated (call->server->ctx))
    {
      g_autofree char *path = g_build_filename (ow_context_get_paths (call->server->ctx)->config_dir,
                                                "model_config.json", NULL);
      config = ow_model_config_load (path, NULL);
    }
  if (config != NULL && ow_model_config_lookup (config, call->model_id, &settings))
    {
      mreq.max_output_tokens = settings.max_output_tokens;
      mreq.reasoning_effort = settings.reasoning_effort;
      mreq.thinking = settings.thinking;
      mreq.temperature = settings.temperature;
      mreq.top_p = settings.top_p;
      mreq.context_size = settings.context_size;
    }
  if (c->max_tokens > 0)
    mreq.max_output_tokens = c->max_tokens;
  if (c->reasoning_effort != NULL)
    mreq.reasoning_effort = c->reasoning_effort;
  if (c->temperature >= 0)
    mreq.temperature = c->temperature;
  if (c->top_p >= 0)
    mreq.top_p = c->top_p;
  ow_provider_complete_async (call->provider, &mreq, on_delta_cb, call, call->cancellable, on_complete_cb, call);
}

static void
on_key_lookup_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  g_autoptr(OwSecretText) key = ow_secret_store_lookup_finish (OW_SECRET_STORE (source), result, NULL);
  g_autoptr(GError) error = NULL;
  const OwProviderEntry *entry = NULL;
  OwConfig *config = ow_context_get_config (call->server->ctx);
  OwProviderOverrides overrides = { 0 };

  if (call->gone)
    {
      call_free (call);
      return;
    }
  if (key == NULL || !ow_model_id_split (call->model_id, &entry, NULL, NULL))
    {
      g_autofree char *msg = g_strdup_printf ("There is no key for this model's provider; add one in Models & Keys "
                                              "or set its key variable.");
      reply_openai_error (call->req, SOUP_STATUS_BAD_REQUEST, msg, "invalid_request_error", "provider_key_missing");
      call_free (call);
      return;
    }
  {
    g_autofree char *base_key = g_strdup_printf ("providers.%s.base_url", entry->id);
    g_autofree char *wire_key = g_strdup_printf ("providers.%s.wire", entry->id);
    overrides.base_url = ow_config_get_string (config, base_key);
    overrides.wire = ow_config_get_string (config, wire_key);
    overrides.api_key = key;
    call->provider = ow_provider_catalog_create (entry, &overrides, NULL, ow_context_get_http (call->server->ctx),
                                                 &error);
  }
  if (call->provider == NULL)
    {
      const char *type, *code;
      guint status = status_for_provider_error (error, &type, &code);
      reply_openai_error (call->req, status, error->message, type, code);
      call_free (call);
      return;
    }
  start_call (call);
}

static void
on_provider_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *call = user_data;
  OwServer *self = call->server;
  g_autoptr(GError) error = NULL;

  call->provider = ow_context_create_provider_finish (OW_CONTEXT (source), result, &call->bare, NULL, &error);
  if (call->gone)
    {
      call_free (call);
      return;
    }
  if (call->provider == NULL)
    {
      /* A context that reads no store (--isolated) may still serve a key
       * saved in Models & Keys through the server's store. */
      const OwProviderEntry *entry = NULL;

      if (g_error_matches (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY)
          && ow_context_get_secrets (self->ctx) == NULL
          && ow_model_id_split (call->model_id, &entry, &call->bare, NULL))
        {
          ow_secret_store_lookup_async (self->secrets, OW_SECRET_KIND_PROVIDER, entry->id, call->cancellable,
                                        on_key_lookup_cb, call);
          return;
        }
      {
        const char *type, *code;
        guint status = status_for_provider_error (error, &type, &code);
        reply_openai_error (call->req, status, error->message, type, code);
      }
      call_free (call);
      return;
    }
  start_call (call);
}

static void
chat_completions (OwServer *self, OwRequest *req)
{
  g_autoptr(GBytes) bytes = soup_message_body_flatten (soup_server_message_get_request_body (req->msg));
  g_autofree char *why = NULL;
  g_autoptr(OwChatRequest) chat = NULL;
  const char *model;
  g_autofree char *default_model = NULL;
  Call *call;
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  chat = ow_chat_request_parse (data != NULL ? data : "", len, &why);
  if (chat == NULL)
    {
      reply_openai_error (req, SOUP_STATUS_BAD_REQUEST, why, "invalid_request_error", NULL);
      return;
    }
  if (self->completions >= OW_SERVER_MAX_COMPLETIONS)
    {
      reply_openai_error (req, OW_STATUS_TOO_MANY_REQUESTS, "Too many completions at once; try again shortly.",
                          "rate_limit_error", "rate_limit_exceeded");
      return;
    }
  /* The machine's default, the one the first saved key sets included. */
  if (chat->model == NULL)
    model = default_model = ow_context_dup_default_model (self->ctx);
  else
    model = chat->model;
  if (model == NULL)
    {
      reply_openai_error (req, SOUP_STATUS_BAD_REQUEST, "Name a model (\"provider:model\"); there is no default model.",
                          "invalid_request_error", "model_not_found");
      return;
    }

  call = g_new0 (Call, 1);
  call->server = g_object_ref (self);
  call->req = req;
  call->model_id = g_strdup (model);
  call->chat = g_steal_pointer (&chat);
  call->created = g_get_real_time () / G_USEC_PER_SEC;
  call->cancellable = g_cancellable_new ();
  g_snprintf (call->id, sizeof call->id, "chatcmpl-%08x%04x", g_random_int (), g_random_int () & 0xffff);
  self->completions++;
  ow_request_pause (req);
  call->finished_id = g_signal_connect (req->msg, "finished", G_CALLBACK (on_msg_finished_cb), call);
  call->server_cancel_id = g_cancellable_connect (self->cancellable, G_CALLBACK (on_server_cancelled_cb), g_object_ref (call->cancellable),
                         g_object_unref);

  /* The key may be in the keyring: read off the main loop. */
  ow_context_create_provider_async (self->ctx, model, call->cancellable, on_provider_cb, call);
}

/* ---- GET /v1/models ------------------------------------------------------------ */

typedef struct {
  OwServer  *server;
  OwRequest *req;
} ModelsCall;

static void
add_model (JsonArray *data, GHashTable *seen, const char *id)
{
  JsonObject *o;
  g_autofree char *owner = NULL;
  const char *colon;

  if (id == NULL || *id == '\0' || g_hash_table_contains (seen, id))
    return;
  g_hash_table_add (seen, g_strdup (id));
  colon = strchr (id, ':');
  owner = colon != NULL ? g_strndup (id, (gsize) (colon - id)) : g_strdup ("openworker");
  o = json_object_new ();
  json_object_set_string_member (o, "id", id);
  json_object_set_string_member (o, "object", "model");
  json_object_set_int_member (o, "created", 0);
  json_object_set_string_member (o, "owned_by", owner);
  json_array_add_object_element (data, o);
}

static void
on_models_keys_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ModelsCall *mc = user_data;
  OwServer *self = mc->server;
  g_auto(GStrv) stored = ow_secret_store_list_finish (OW_SECRET_STORE (source), result, NULL);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(OwModelConfig) config = NULL;
  const GPtrArray *catalog = ow_provider_catalog_get ();
  JsonArray *data = json_array_new ();
  JsonObject *out = json_object_new ();

  /* The default first, then models with saved settings, then each
   * provider that has a key (or needs none) with its recommended model. */
  {
    g_autofree char *def = ow_context_dup_default_model (self->ctx);
    add_model (data, seen, def);
  }
  if (!ow_context_is_isolated (self->ctx))
    {
      g_autofree char *path = g_build_filename (ow_context_get_paths (self->ctx)->config_dir, "model_config.json",
                                                NULL);
      config = ow_model_config_load (path, NULL);
    }
  if (config != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;
      json_object_iter_init (&iter, ow_model_config_get_root (config));
      while (json_object_iter_next (&iter, &name, &value))
        add_model (data, seen, name);
    }
  for (guint i = 0; i < catalog->len; i++)
    {
      const OwProviderEntry *e = g_ptr_array_index (catalog, i);
      gboolean has = ow_context_provider_key_env (self->ctx, e) != NULL
                     || (stored != NULL && g_strv_contains ((const char *const *) stored, e->id));
      if (has && e->recommended_model != NULL)
        {
          g_autofree char *full = g_strdup_printf ("%s:%s", e->id, e->recommended_model);
          add_model (data, seen, full);
        }
    }
  json_object_set_string_member (out, "object", "list");
  json_object_set_array_member (out, "data", data);
  ow_reply_object (mc->req, SOUP_STATUS_OK, out);
  ow_request_done (mc->req);
  g_object_unref (mc->server);
  g_free (mc);
}

static void
models_list (OwServer *self, OwRequest *req)
{
  ModelsCall *mc = g_new0 (ModelsCall, 1);

  mc->server = g_object_ref (self);
  mc->req = req;
  ow_request_pause (req);
  ow_secret_store_list_async (self->secrets, OW_SECRET_KIND_PROVIDER, self->cancellable, on_models_keys_cb, mc);
}

static const OwRoute routes[] = {
  { "POST", "/v1/chat/completions", chat_completions, OW_ROUTE_BEARER | OW_ROUTE_BIG_BODY },
  { "GET", "/v1/models", models_list, OW_ROUTE_BEARER },
};

const OwRoute *
ow_server_openai_routes (guint *n)
{
  *n = G_N_ELEMENTS (routes);
  return routes;
}
