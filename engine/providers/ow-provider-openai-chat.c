/* ow-provider-openai-chat.c: OpenAI Chat Completions, the compatible workhorse.
 *
 * Most services the product lists speak this wire (DeepSeek, Kimi, Qwen,
 * GLM, Mistral, Grok, Together, Fireworks, OpenRouter, llama.cpp, vLLM,
 * and OpenAI itself at a custom base URL). The canonical history is already
 * this wire's shape, so the request is the history minus the engine's own
 * keys, plus the tools and settings.
 *
 * What differs between servers is handled here or by quirks: the output
 * limit is max_completion_tokens on api.openai.com and max_tokens on
 * compatible servers; OpenRouter takes a provider-routing object and a
 * unified "reasoning" object; reasoning arrives as reasoning_content
 * (DeepSeek, vLLM, llama.cpp) or reasoning (OpenRouter, Ollama, newer
 * vLLM); tool calls stream in fragments keyed by index (some servers omit
 * the index, some send the arguments whole as an object); a failure can
 * arrive mid-stream as a chunk with a top-level "error". A 400 naming a
 * parameter the server does not take is retried without it (see
 * fix_params()).
 *
 * The stream's terminal marker is "data: [DONE]"; usage arrives in the
 * last chunk before it because we ask for stream_options.include_usage.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-error.h"

/* The output limit sent when the request sets none: agent replies
 * (whole files in one tool call) need room. */
#define DEFAULT_MAX_TOKENS 32000

struct _OwProviderOpenaiChat
{
  OwProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (OwProviderOpenaiChat, ow_provider_openai_chat, OW_TYPE_PROVIDER)

/* One tool call being assembled from stream fragments. */
typedef struct {
  char    *id;         /* the call id, from its first fragment */
  char    *name;       /* the function name */
  GString *arguments;  /* argument text, concatenated in arrival order */
} PartialCall;

/* Scratch state of one streamed reply. */
typedef struct {
  GPtrArray *calls;    /* PartialCall*, by wire index; NULL holes for skipped indices */
  gint       last;     /* index of the call the last fragment went to, -1 = none */
  GString   *refusal;  /* a refusal message, shown only when nothing else came */
} StreamState;

static void
partial_call_free (PartialCall *call)
{
  if (call == NULL)
    return;
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

static void
stream_state_free (StreamState *state)
{
  g_ptr_array_unref (state->calls);
  g_string_free (state->refusal, TRUE);
  g_free (state);
}

static StreamState *
get_state (OwProvider *self)
{
  StreamState *state = ow_provider_get_call_state (self);

  if (state == NULL)
    {
      state = g_new0 (StreamState, 1);
      state->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) partial_call_free);
      state->last = -1;
      state->refusal = g_string_new (NULL);
      ow_provider_set_call_state (self, state, (GDestroyNotify) stream_state_free);
    }
  return state;
}

/* ---- Request ------------------------------------------------------------ */

/* The history is this wire's shape already: each outbound message goes
 * whole, without the engine's keys. */
static void
on_message (const OwHistoryMessage *msg,
            gpointer                user_data)
{
  JsonArray *out = user_data;
  JsonObject *copy = ow_history_strip_message (msg->message);
  JsonNode *content = json_object_get_member (copy, "content");
  JsonArray *calls;

  if (content == NULL)
    json_object_set_string_member (copy, "content", "");
  else if (msg->kind == OW_HISTORY_TOOL && !JSON_NODE_HOLDS_VALUE (content))
    {
      /* Tool results are text on this wire. */
      g_autofree char *text = ow_json_to_string (content);
      json_object_set_string_member (copy, "content", text);
    }

  /* Arguments are JSON text on this wire; a history written by hand
   * may hold an object. */
  calls = ow_json_get_array (copy, "tool_calls");
  for (guint j = 0; calls != NULL && j < json_array_get_length (calls); j++)
    {
      JsonNode *call = json_array_get_element (calls, j);
      JsonObject *function;
      JsonNode *args;

      if (!JSON_NODE_HOLDS_OBJECT (call))
        continue;
      function = ow_json_get_object (json_node_get_object (call), "function");
      args = function != NULL ? json_object_get_member (function, "arguments") : NULL;
      if (args != NULL && !JSON_NODE_HOLDS_VALUE (args))
        {
          g_autofree char *text = ow_json_to_string (args);
          json_object_set_string_member (function, "arguments", text);
        }
    }
  json_array_add_object_element (out, copy);
}

static const OwHistoryVisitor chat_visitor = {
  .message = on_message,
};

static JsonArray *
convert_messages (JsonArray *messages)
{
  JsonArray *out = json_array_new ();

  ow_history_walk (messages, &chat_visitor, out);
  return out;
}

static const char *
max_tokens_field (OwProvider *self)
{
  const char *field = ow_provider_get_quirk_string (self, "max_tokens_field");
  const char *base = ow_provider_get_base_url (self);

  if (field != NULL)
    return field;
  /* OpenAI's reasoning models reject max_tokens; compatible servers mostly
   * know only max_tokens. */
  if (strstr (base, "://api.openai.com") != NULL)
    return "max_completion_tokens";
  return "max_tokens";
}

static gboolean
openai_chat_build_request (OwProvider            *self,
                           const OwModelRequest  *req,
                           OwHttpRequest        **http,
                           GError               **error)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *body = json_object_new ();
  g_autofree char *url = NULL;
  const char *key = ow_provider_get_api_key (self);
  JsonNode *extra;
  gint64 limit;

  json_node_take_object (root, body);
  json_object_set_string_member (body, "model", req->model != NULL ? req->model : "");
  json_object_set_array_member (body, "messages", convert_messages (req->messages));
  /* The request's own tool list, shared: the body is only written out,
   * and a retry's edits replace members of the body, never change them. */
  if (req->tools != NULL && json_array_get_length (req->tools) > 0)
    json_object_set_array_member (body, "tools", json_array_ref (req->tools));

  limit = req->max_output_tokens > 0
          ? req->max_output_tokens
          : ow_provider_get_quirk_int (self, "default_max_tokens", DEFAULT_MAX_TOKENS);
  if (limit > 0)
    json_object_set_int_member (body, max_tokens_field (self), limit);

  if (req->reasoning_effort != NULL)
    {
      if (ow_provider_get_quirk_bool (self, "reasoning_object", FALSE))
        {
          JsonObject *reasoning = json_object_new ();
          json_object_set_string_member (reasoning, "effort", req->reasoning_effort);
          json_object_set_object_member (body, "reasoning", reasoning);
        }
      else
        json_object_set_string_member (body, "reasoning_effort", req->reasoning_effort);
    }
  if (req->temperature >= 0)
    json_object_set_double_member (body, "temperature", req->temperature);
  if (req->top_p >= 0)
    json_object_set_double_member (body, "top_p", req->top_p);

  if (req->provider_order != NULL && req->provider_order[0] != '\0'
      && ow_provider_get_quirk_bool (self, "provider_routing", FALSE))
    {
      g_auto(GStrv) hosts = g_strsplit (req->provider_order, ",", -1);
      JsonObject *provider = json_object_new ();
      JsonArray *order = json_array_new ();

      for (guint i = 0; hosts[i] != NULL; i++)
        {
          g_strstrip (hosts[i]);
          if (hosts[i][0] != '\0')
            json_array_add_string_element (order, hosts[i]);
        }
      json_object_set_array_member (provider, "order", order);
      /* Pinning means pinning: no silent fallback to another host. */
      json_object_set_boolean_member (provider, "allow_fallbacks", FALSE);
      json_object_set_object_member (body, "provider", provider);
    }

  /* OpenAI caches prompt prefixes on its own; a stable per-session key
   * keeps one session's calls on one cache shard. Only where the catalog
   * says the service takes it: a strict compatible server refuses an
   * unknown member. */
  if (req->cache_key != NULL && ow_provider_get_quirk_bool (self, "prompt_cache_key", FALSE))
    json_object_set_string_member (body, "prompt_cache_key", req->cache_key);

  if (req->stream)
    {
      JsonObject *options = json_object_new ();
      json_object_set_boolean_member (body, "stream", TRUE);
      json_object_set_boolean_member (options, "include_usage", TRUE);
      json_object_set_object_member (body, "stream_options", options);
    }

  url = ow_provider_build_url (self, "chat/completions");
  *http = ow_provider_new_json_request (self, url, g_steal_pointer (&root));
  if (key != NULL)
    {
      g_autofree char *bearer = g_strconcat ("Bearer ", key, NULL);
      ow_provider_add_header (self, *http, "Authorization", bearer);
    }
  extra = ow_provider_get_quirk (self, "extra_headers");
  if (extra != NULL && JSON_NODE_HOLDS_OBJECT (extra))
    {
      JsonObject *headers = json_node_get_object (extra);
      g_autoptr(GList) names = json_object_get_members (headers);

      for (GList *l = names; l != NULL; l = l->next)
        if (ow_json_get_string (headers, l->data) != NULL)
          ow_provider_add_header (self, *http, l->data, ow_json_get_string (headers, l->data));
    }
  return TRUE;
}

/* ---- Reply -------------------------------------------------------------- */

static void
read_usage (OwTurn     *turn,
            JsonObject *usage)
{
  JsonObject *prompt_details = ow_json_get_object (usage, "prompt_tokens_details");
  JsonObject *completion_details = ow_json_get_object (usage, "completion_tokens_details");
  gint64 prompt = ow_json_get_int (usage, "prompt_tokens", 0);
  gint64 cached = ow_json_get_int (prompt_details, "cached_tokens", -1);
  gint64 written = ow_json_get_int (prompt_details, "cache_write_tokens", 0);

  /* DeepSeek reports its cache on the top level. */
  if (cached < 0)
    cached = ow_json_get_int (usage, "prompt_cache_hit_tokens", 0);

  turn->has_usage = TRUE;
  turn->usage.cache_read = cached;
  turn->usage.cache_write = written;
  turn->usage.input = MAX (prompt - cached - written, 0);
  turn->usage.output = ow_json_get_int (usage, "completion_tokens", 0);
  turn->usage.reasoning = ow_json_get_int (completion_details, "reasoning_tokens", 0);
}

static void
set_finish (OwProvider *self,
            OwTurn     *turn,
            const char *reason)
{
  g_free (turn->finish_reason);
  ow_provider_set_raw_finish_reason (self, reason);
  if (g_str_equal (reason, "function_call"))
    turn->finish_reason = g_strdup ("tool_calls");
  else
    turn->finish_reason = g_strdup (reason);
}

/* The text of an error member: an object's message, or the member itself. */
static GError *
error_from_member (OwProvider *self,
                   JsonNode   *error)
{
  if (JSON_NODE_HOLDS_OBJECT (error))
    {
      JsonObject *e = json_node_get_object (error);
      const char *type = ow_json_get_string (e, "code");

      if (type == NULL)
        type = ow_json_get_string (e, "type");
      return ow_provider_stream_error (self, type, ow_json_get_string (e, "message"));
    }
  if (JSON_NODE_HOLDS_VALUE (error) && json_node_get_value_type (error) == G_TYPE_STRING)
    return ow_provider_stream_error (self, NULL, json_node_get_string (error));
  return ow_provider_stream_error (self, NULL, "unknown error");
}

static char *
arguments_text (JsonNode *args)
{
  if (args == NULL || JSON_NODE_HOLDS_NULL (args))
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (args) && json_node_get_value_type (args) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (args));
  /* Some servers send the arguments as an object: serialize it. */
  return ow_json_to_string (args);
}

static void
add_fragment (StreamState *state,
              JsonObject  *fragment)
{
  JsonObject *function = ow_json_get_object (fragment, "function");
  const char *id = ow_json_get_string (fragment, "id");
  JsonNode *args = function != NULL ? json_object_get_member (function, "arguments") : NULL;
  PartialCall *last = state->last >= 0 ? g_ptr_array_index (state->calls, state->last) : NULL;
  PartialCall *call;
  gint index;

  if (ow_json_has_int (fragment, "index"))
    index = (gint) ow_json_get_int (fragment, "index", 0);
  else if (id != NULL && (last == NULL || g_strcmp0 (last->id, id) != 0))
    /* No index: a new id starts a new call. */
    index = (gint) state->calls->len;
  else
    index = MAX (state->last, 0);

  if (index < 0 || index > 1024)
    return;
  if ((guint) index >= state->calls->len)
    g_ptr_array_set_size (state->calls, index + 1);
  call = g_ptr_array_index (state->calls, index);
  if (call == NULL)
    {
      call = g_new0 (PartialCall, 1);
      call->arguments = g_string_new (NULL);
      g_ptr_array_index (state->calls, index) = call;
    }
  state->last = index;

  if (id != NULL && call->id == NULL)
    call->id = g_strdup (id);
  if (ow_json_get_string (function, "name") != NULL && call->name == NULL)
    call->name = g_strdup (ow_json_get_string (function, "name"));
  if (args != NULL && !JSON_NODE_HOLDS_NULL (args))
    {
      g_autofree char *text = arguments_text (args);
      if (!JSON_NODE_HOLDS_VALUE (args))
        g_string_assign (call->arguments, text);   /* whole, not a fragment */
      else
        g_string_append (call->arguments, text);
    }
}

static void
finish_calls (OwProvider  *self,
              OwTurn      *turn,
              StreamState *state)
{
  for (guint i = 0; i < state->calls->len; i++)
    {
      PartialCall *call = g_ptr_array_index (state->calls, i);
      g_autofree char *id = NULL;

      if (call == NULL || call->name == NULL)
        continue;
      id = call->id != NULL ? g_strdup (call->id) : ow_provider_synthesize_call_id ();
      g_ptr_array_add (turn->tool_calls,
                       ow_tool_call_new (id, call->name,
                                         call->arguments->len > 0 ? call->arguments->str : NULL));
    }
  g_ptr_array_set_size (state->calls, 0);

  if (turn->text->len == 0 && turn->tool_calls->len == 0 && state->refusal->len > 0)
    {
      /* A refusal is the model declining: say so rather than "empty". */
      g_free (turn->finish_reason);
      turn->finish_reason = g_strdup ("content_filter");
      ow_provider_set_raw_finish_reason (self, state->refusal->str);
    }
}

static void
read_ids (OwTurn     *turn,
          JsonObject *obj)
{
  if (turn->response_id == NULL && ow_json_get_string (obj, "id") != NULL)
    turn->response_id = g_strdup (ow_json_get_string (obj, "id"));
  if (turn->served_model == NULL && ow_json_get_string (obj, "model") != NULL)
    turn->served_model = g_strdup (ow_json_get_string (obj, "model"));
}

static gboolean
openai_chat_handle_event (OwProvider  *self,
                          OwTurn      *turn,
                          const char  *event,
                          const char  *data,
                          gsize        len,
                          GError     **error)
{
  StreamState *state = get_state (self);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) parse_error = NULL;
  JsonObject *chunk;
  JsonArray *choices;
  JsonNode *err;

  if (len == 6 && memcmp (data, "[DONE]", 6) == 0)
    {
      finish_calls (self, turn, state);
      turn->complete = TRUE;
      return TRUE;
    }

  root = ow_json_parse (data, (gssize) len, &parse_error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a stream chunk that is not a JSON object (%s).",
                   ow_provider_get_title (self),
                   parse_error != NULL ? parse_error->message : "wrong type");
      return FALSE;
    }
  chunk = json_node_get_object (root);

  err = json_object_get_member (chunk, "error");
  if (err != NULL && !JSON_NODE_HOLDS_NULL (err))
    {
      g_propagate_error (error, error_from_member (self, err));
      return FALSE;
    }

  read_ids (turn, chunk);
  if (ow_json_get_object (chunk, "usage") != NULL)
    read_usage (turn, ow_json_get_object (chunk, "usage"));

  choices = ow_json_get_array (chunk, "choices");
  if (choices != NULL && json_array_get_length (choices) > 0
      && JSON_NODE_HOLDS_OBJECT (json_array_get_element (choices, 0)))
    {
      JsonObject *choice = json_array_get_object_element (choices, 0);
      JsonObject *delta = ow_json_get_object (choice, "delta");
      JsonArray *calls = ow_json_get_array (delta, "tool_calls");
      const char *piece;

      piece = ow_json_get_string (delta, "reasoning_content");
      if (piece == NULL)
        piece = ow_json_get_string (delta, "reasoning");
      ow_provider_append_delta (self, turn, OW_DELTA_REASONING, piece, -1);
      ow_provider_append_delta (self, turn, OW_DELTA_TEXT,
                                ow_json_get_string (delta, "content"), -1);
      if (ow_json_get_string (delta, "refusal") != NULL)
        g_string_append (state->refusal, ow_json_get_string (delta, "refusal"));

      for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
        if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (calls, i)))
          add_fragment (state, json_array_get_object_element (calls, i));

      if (ow_json_get_string (choice, "finish_reason") != NULL)
        set_finish (self, turn, ow_json_get_string (choice, "finish_reason"));
    }
  return TRUE;
}

static gboolean
openai_chat_parse_response (OwProvider  *self,
                            OwTurn      *turn,
                            JsonNode    *body,
                            GError     **error)
{
  StreamState *state = get_state (self);
  JsonObject *root;
  JsonArray *choices;
  JsonNode *err;

  if (!JSON_NODE_HOLDS_OBJECT (body))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply that is not a JSON object.", ow_provider_get_title (self));
      return FALSE;
    }
  root = json_node_get_object (body);
  err = json_object_get_member (root, "error");
  if (err != NULL && !JSON_NODE_HOLDS_NULL (err))
    {
      g_propagate_error (error, error_from_member (self, err));
      return FALSE;
    }

  choices = ow_json_get_array (root, "choices");
  if (choices == NULL || json_array_get_length (choices) == 0
      || !JSON_NODE_HOLDS_OBJECT (json_array_get_element (choices, 0)))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply without choices.", ow_provider_get_title (self));
      return FALSE;
    }

  read_ids (turn, root);
  if (ow_json_get_object (root, "usage") != NULL)
    read_usage (turn, ow_json_get_object (root, "usage"));

  {
    JsonObject *choice = json_array_get_object_element (choices, 0);
    JsonObject *message = ow_json_get_object (choice, "message");
    JsonArray *calls = ow_json_get_array (message, "tool_calls");
    g_autofree char *text = ow_history_content_text (message);
    const char *reasoning = ow_json_get_string (message, "reasoning_content");

    if (reasoning == NULL)
      reasoning = ow_json_get_string (message, "reasoning");
    if (reasoning != NULL)
      g_string_append (turn->reasoning, reasoning);
    g_string_append (turn->text, text);
    if (ow_json_get_string (message, "refusal") != NULL)
      g_string_append (state->refusal, ow_json_get_string (message, "refusal"));

    for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
      {
        JsonObject *call;
        JsonObject *function;
        g_autofree char *args = NULL;
        g_autofree char *id = NULL;

        if (!JSON_NODE_HOLDS_OBJECT (json_array_get_element (calls, i)))
          continue;
        call = json_array_get_object_element (calls, i);
        function = ow_json_get_object (call, "function");
        if (ow_json_get_string (function, "name") == NULL)
          continue;
        args = arguments_text (json_object_get_member (function, "arguments"));
        id = ow_json_get_string (call, "id") != NULL ? g_strdup (ow_json_get_string (call, "id"))
                                                     : ow_provider_synthesize_call_id ();
        g_ptr_array_add (turn->tool_calls,
                         ow_tool_call_new (id, ow_json_get_string (function, "name"),
                                           args != NULL && args[0] != '\0' ? args : NULL));
      }

    if (ow_json_get_string (choice, "finish_reason") != NULL)
      set_finish (self, turn, ow_json_get_string (choice, "finish_reason"));
  }

  finish_calls (self, turn, state);
  turn->complete = TRUE;
  return TRUE;
}

/* ---- Parameter fixes ---------------------------------------------------- */

static gboolean
fix_params (OwProvider *self,
            JsonObject *sent,
            const char *message,
            JsonObject *edits)
{
  g_autofree char *lower = g_ascii_strdown (message, -1);
  gboolean mentions_limit = strstr (lower, "max_tokens") != NULL
                            || strstr (lower, "max_new_tokens") != NULL
                            || strstr (lower, "max_completion_tokens") != NULL;

  /* Some models take no reasoning effort beside function tools. */
  if (strstr (lower, "function tools with reasoning_effort") != NULL
      && g_strcmp0 (ow_json_get_string (sent, "reasoning_effort"), "none") != 0)
    {
      json_object_set_string_member (edits, "reasoning_effort", "none");
      return TRUE;
    }
  /* OpenAI's reasoning models: "'max_tokens' is not supported … use
   * 'max_completion_tokens' instead". */
  if (json_object_has_member (sent, "max_tokens") && strstr (lower, "max_tokens") != NULL
      && (strstr (lower, "not supported") != NULL || strstr (lower, "unsupported") != NULL)
      && strstr (lower, "max_completion_tokens") != NULL)
    {
      json_object_set_null_member (edits, "max_tokens");
      json_object_set_member (edits, "max_completion_tokens",
                              ow_json_deep_copy (json_object_get_member (sent, "max_tokens")));
      return TRUE;
    }
  if (strstr (lower, "stream_options") != NULL && json_object_has_member (sent, "stream_options"))
    {
      json_object_set_null_member (edits, "stream_options");
      return TRUE;
    }
  /* An output limit over what the server allows: let it choose. */
  if (mentions_limit
      && (json_object_has_member (sent, "max_tokens")
          || json_object_has_member (sent, "max_completion_tokens")))
    {
      if (json_object_has_member (sent, "max_tokens"))
        json_object_set_null_member (edits, "max_tokens");
      if (json_object_has_member (sent, "max_completion_tokens"))
        json_object_set_null_member (edits, "max_completion_tokens");
      return TRUE;
    }
  return ow_provider_fix_unsupported_param (sent, message, edits);
}

/* ---- GObject ------------------------------------------------------------ */

static void
ow_provider_openai_chat_class_init (OwProviderOpenaiChatClass *klass)
{
  OwProviderClass *provider_class = OW_PROVIDER_CLASS (klass);

  provider_class->build_request = openai_chat_build_request;
  provider_class->handle_event = openai_chat_handle_event;
  provider_class->parse_response = openai_chat_parse_response;
}

static void
ow_provider_openai_chat_init (OwProviderOpenaiChat *self)
{
  ow_provider_set_param_fixer (OW_PROVIDER (self), fix_params);
}
