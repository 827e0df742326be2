/* ow-provider-anthropic.c: the Anthropic Messages API.
 *
 * Request: the leading system message becomes a top-level system block;
 * user parts become text / image / document blocks; an assistant message
 * becomes its thinking blocks replayed verbatim first (from the
 * "_anthropic" sidecar, with their signatures, or the API rejects the
 * turn), then its text, then one tool_use per tool call; a tool message
 * becomes a tool_result block in a user message. Consecutive messages of
 * one role are folded into one (parallel tool results become one user
 * message, tool_result blocks first), and the history starts with a user
 * message. max_tokens is required (32000 unless the request says).
 *
 * Thinking is on unless the request turns it off: models before the 4.6
 * generation take {type:"enabled", budget_tokens}, newer ones only
 * {type:"adaptive"} with an optional output_config.effort; with thinking
 * on, temperature and top_p are not sent. Prompt caching marks the system
 * block and the last block of the final message as ephemeral cache
 * breakpoints, so each call reuses the previous call's prefix.
 *
 * Reply: named SSE events. message_start carries the prompt-side usage,
 * message_delta the stop reason and the cumulative output count,
 * message_stop ends the reply; "ping" is ignored and "error" is a
 * classified failure even after a 200. A stop_reason of "refusal" fails
 * with OW_PROVIDER_ERROR_REFUSED.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-error.h"

#define DEFAULT_MAX_TOKENS 32000
#define DEFAULT_THINKING_BUDGET 8192

struct _OwProviderAnthropic
{
  OwProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (OwProviderAnthropic, ow_provider_anthropic, OW_TYPE_PROVIDER)

/* One content block of a streamed reply. */
typedef struct {
  char    *type;       /* "text", "thinking", "redacted_thinking", "tool_use", … */
  GString *text;       /* thinking text, or tool_use argument JSON as it streams */
  GString *signature;  /* a thinking block's signature */
  char    *id;         /* tool_use id */
  char    *name;       /* tool_use name */
  char    *data;       /* redacted_thinking payload */
  gboolean done;       /* content_block_stop seen */
} Block;

/* Scratch state of one streamed reply. */
typedef struct {
  GPtrArray *blocks;       /* Block*, by wire index; NULL holes allowed */
  char      *stop_reason;  /* from message_delta */
} StreamState;

static void
block_free (Block *block)
{
  if (block == NULL)
    return;
  g_free (block->type);
  g_string_free (block->text, TRUE);
  g_string_free (block->signature, TRUE);
  g_free (block->id);
  g_free (block->name);
  g_free (block->data);
  g_free (block);
}

static void
stream_state_free (StreamState *state)
{
  g_ptr_array_unref (state->blocks);
  g_free (state->stop_reason);
  g_free (state);
}

static StreamState *
get_state (OwProvider *self)
{
  StreamState *state = ow_provider_get_call_state (self);

  if (state == NULL)
    {
      state = g_new0 (StreamState, 1);
      state->blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) block_free);
      ow_provider_set_call_state (self, state, (GDestroyNotify) stream_state_free);
    }
  return state;
}

/* ---- Request ------------------------------------------------------------ */

static JsonObject *
text_block (const char *text)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  return block;
}

static JsonObject *
source_block (const char *type,
              const char *source_type,
              const char *media_type,
              const char *key,
              const char *value)
{
  JsonObject *block = json_object_new ();
  JsonObject *source = json_object_new ();

  json_object_set_string_member (source, "type", source_type);
  if (media_type != NULL)
    json_object_set_string_member (source, "media_type", media_type);
  json_object_set_string_member (source, key, value);
  json_object_set_string_member (block, "type", type);
  json_object_set_object_member (block, "source", source);
  return block;
}

static JsonObject *
ephemeral (void)
{
  JsonObject *cache = json_object_new ();

  json_object_set_string_member (cache, "type", "ephemeral");
  return cache;
}

/* What the visitor builds: messages of alternating roles, and the system
 * block. */
typedef struct {
  OwHistoryFold  fold;  /* first: the fold callbacks get the builder */
  JsonObject    *body;  /* the request body, for the system block */
} Builder;

static void
on_system_prompt (const char *text,
                  gpointer    user_data)
{
  Builder *b = user_data;
  JsonArray *blocks = json_array_new ();
  JsonObject *block = text_block (text);

  json_object_set_object_member (block, "cache_control", ephemeral ());
  json_array_add_object_element (blocks, block);
  json_object_set_array_member (b->body, "system", blocks);
}

static void
add_file (JsonArray           *blocks,
          const OwHistoryPart *part)
{
  if (part->data == NULL)
    return;
  if (g_str_equal (part->mime, "application/pdf"))
    json_array_add_object_element (blocks, source_block ("document", "base64", part->mime, "data",
                                                         part->data));
  else if (g_str_has_prefix (part->mime, "text/"))
    {
      gsize len = 0;
      g_autofree guchar *raw = g_base64_decode (part->data, &len);
      g_autofree char *text = g_utf8_make_valid ((const char *) raw, (gssize) len);
      json_array_add_object_element (blocks, source_block ("document", "text", "text/plain",
                                                           "data", text));
    }
  else
    {
      g_autofree char *note = g_strdup_printf ("[attached file %s (%s) cannot be shown to "
                                               "this model]",
                                               part->filename != NULL ? part->filename : "",
                                               part->mime);
      json_array_add_object_element (blocks, text_block (note));
    }
}

static void
on_user_part (const OwHistoryMessage *msg,
              const OwHistoryPart    *part,
              gpointer                user_data)
{
  Builder *b = user_data;

  switch (part->kind)
    {
    case OW_HISTORY_PART_TEXT:
      /* Empty text blocks are rejected. */
      if (part->text[0] != '\0')
        json_array_add_object_element (b->fold.items, text_block (part->text));
      break;
    case OW_HISTORY_PART_IMAGE:
      if (part->data != NULL)
        json_array_add_object_element (b->fold.items, source_block ("image", "base64", part->mime,
                                                                "data", part->data));
      else if (part->url != NULL)
        json_array_add_object_element (b->fold.items, source_block ("image", "url", NULL, "url",
                                                                part->url));
      break;
    case OW_HISTORY_PART_FILE:
      add_file (b->fold.items, part);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
on_reasoning (const OwHistoryMessage *msg,
              const char             *reasoning,
              gpointer                user_data)
{
  static const char *const thinking[] = { "thinking", "redacted_thinking", NULL };
  Builder *b = user_data;

  /* Thinking first and untouched: the signature covers it exactly. */
  ow_history_replay_sidecar (b->fold.items, msg->message, "_anthropic", "blocks", thinking);
}

static void
on_assistant_text (const OwHistoryMessage *msg,
                   const char             *text,
                   gpointer                user_data)
{
  Builder *b = user_data;

  if (text[0] != '\0')
    json_array_add_object_element (b->fold.items, text_block (text));
}

static void
on_tool_call (const OwHistoryMessage  *msg,
              const OwHistoryToolCall *call,
              gpointer                 user_data)
{
  Builder *b = user_data;
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "tool_use");
  json_object_set_string_member (block, "id", call->id != NULL ? call->id : "");
  json_object_set_string_member (block, "name", call->name);
  json_object_set_member (block, "input", ow_history_call_arguments (call));
  json_array_add_object_element (b->fold.items, block);
}

static void
on_tool_result (const OwHistoryMessage    *msg,
                const OwHistoryToolResult *result,
                gpointer                   user_data)
{
  Builder *b = user_data;
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "tool_result");
  json_object_set_string_member (block, "tool_use_id",
                                 result->call_id != NULL ? result->call_id : "");
  json_object_set_string_member (block, "content", result->text);
  json_array_add_object_element (b->fold.items, block);
}

static const OwHistoryVisitor anthropic_visitor = {
  .system_prompt = on_system_prompt,
  .message = ow_history_fold_begin,
  .message_end = ow_history_fold_end,
  .user_part = on_user_part,
  .reasoning = on_reasoning,
  .assistant_text = on_assistant_text,
  .tool_call = on_tool_call,
  .tool_result = on_tool_result,
  .system_as_user = TRUE,
};

/* In a user message, tool results must come before any text. */
static void
tool_results_first (JsonObject *message)
{
  JsonArray *content = ow_json_get_array (message, "content");
  JsonArray *sorted;
  guint n = content != NULL ? json_array_get_length (content) : 0;

  if (n < 2)
    return;
  sorted = json_array_sized_new (n);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n; i++)
      {
        JsonNode *node = json_array_get_element (content, i);
        gboolean is_result = JSON_NODE_HOLDS_OBJECT (node)
                             && g_strcmp0 (ow_json_get_string (json_node_get_object (node), "type"),
                                           "tool_result") == 0;
        if (is_result == (pass == 0))
          json_array_add_element (sorted, json_node_ref (node));
      }
  json_object_set_array_member (message, "content", sorted);
}

/* The wire messages, and the system block on @body. */
static JsonArray *
convert_messages (JsonObject *body,
                  JsonArray  *messages)
{
  Builder b = { .fold = { json_array_new (), "content", "assistant", NULL }, .body = body };
  JsonArray *out;
  guint n;

  ow_history_walk (messages, &anthropic_visitor, &b);
  out = b.fold.out;

  n = json_array_get_length (out);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *message = json_array_get_object_element (out, i);
      if (g_strcmp0 (ow_json_get_string (message, "role"), "user") == 0)
        tool_results_first (message);
    }

  /* The conversation must open with the user (a compacted or trimmed
   * history may not). */
  if (n == 0 || g_strcmp0 (ow_json_get_string (json_array_get_object_element (out, 0), "role"),
                           "user") != 0)
    {
      JsonArray *fixed = json_array_new ();
      JsonArray *blocks = json_array_new ();
      JsonObject *opener = json_object_new ();

      json_array_add_object_element (blocks, text_block ("(continued)"));
      json_object_set_string_member (opener, "role", "user");
      json_object_set_array_member (opener, "content", blocks);
      json_array_add_object_element (fixed, opener);
      for (guint i = 0; i < n; i++)
        json_array_add_element (fixed, json_node_ref (json_array_get_element (out, i)));
      json_array_unref (out);
      out = fixed;
    }
  return out;
}

/* Puts a breakpoint on the last block of messages[@index], unless that
 * block cannot carry one. */
static void
mark_message (JsonArray *messages,
              guint      index)
{
  JsonArray *content;
  JsonObject *block;
  const char *type;

  content = ow_json_get_array (json_array_get_object_element (messages, index), "content");
  if (content == NULL || json_array_get_length (content) == 0)
    return;
  block = json_array_get_object_element (content, json_array_get_length (content) - 1);
  type = ow_json_get_string (block, "type");
  /* Thinking blocks cannot carry a breakpoint. */
  if (g_strcmp0 (type, "thinking") == 0 || g_strcmp0 (type, "redacted_thinking") == 0)
    return;
  json_object_set_object_member (block, "cache_control", ephemeral ());
}

/* The rolling breakpoints: the end of this request, where the next one
 * reads from, and the end of the previous request (the last user message
 * before the newest assistant turn), where this one reads from. The
 * service looks back only about 20 blocks from a breakpoint for a cached
 * prefix; a reply with many parallel tool calls adds more than that, and
 * then without the second point every step would write the cache anew.
 * With the tools' and the system prompt's, that is four: the most the
 * service takes. */
static void
mark_rolling (JsonArray *messages)
{
  guint n = json_array_get_length (messages);

  if (n == 0)
    return;
  mark_message (messages, n - 1);
  for (guint i = n - 1; i-- > 0;)
    {
      const char *role = ow_json_get_string (json_array_get_object_element (messages, i), "role");

      if (g_strcmp0 (role, "user") == 0)
        {
          mark_message (messages, i);
          break;
        }
    }
}

static JsonArray *
convert_tools (JsonArray *tools)
{
  JsonArray *out = json_array_new ();

  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    {
      JsonObject *function = ow_provider_tool_function (tools, i);
      JsonObject *tool;
      JsonNode *schema;

      if (function == NULL)
        continue;
      tool = ow_provider_tool_declaration (function, NULL);
      schema = json_object_get_member (function, "parameters");
      if (schema != NULL && JSON_NODE_HOLDS_OBJECT (schema))
        json_object_set_member (tool, "input_schema", ow_json_deep_copy (schema));
      else
        {
          JsonObject *empty = json_object_new ();
          json_object_set_string_member (empty, "type", "object");
          json_object_set_object_member (empty, "properties", json_object_new ());
          json_object_set_object_member (tool, "input_schema", empty);
        }
      json_array_add_object_element (out, tool);
    }
  /* Tools render first: a breakpoint on the last one keeps them cached
   * even when the system prompt changes (a new folder, a new skill). */
  if (json_array_get_length (out) > 0)
    json_object_set_object_member (json_array_get_object_element (out, json_array_get_length (out) - 1),
                                   "cache_control", ephemeral ());
  return out;
}

typedef enum {
  THINKING_NONE,      /* the model has no extended thinking */
  THINKING_MANUAL,    /* {type:"enabled", budget_tokens} */
  THINKING_ADAPTIVE,  /* {type:"adaptive"}: 4.6 and later */
} ThinkingKind;

static ThinkingKind
thinking_kind (const char *model)
{
  static const char *const manual[] = {
    "claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5", "claude-opus-4-1",
    "claude-opus-4-0", "claude-sonnet-4-0", "claude-opus-4-20", "claude-sonnet-4-20",
    "claude-3-7",
  };

  if (model == NULL)
    return THINKING_ADAPTIVE;
  for (gsize i = 0; i < G_N_ELEMENTS (manual); i++)
    if (g_str_has_prefix (model, manual[i]))
      return THINKING_MANUAL;
  /* Older generations never had extended thinking; asking is a 400. */
  if (g_str_has_prefix (model, "claude-3") || g_str_has_prefix (model, "claude-2")
      || g_str_has_prefix (model, "claude-instant"))
    return THINKING_NONE;
  return THINKING_ADAPTIVE;
}

static gboolean
anthropic_build_request (OwProvider            *self,
                         const OwModelRequest  *req,
                         OwHttpRequest        **http,
                         GError               **error)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *body = json_object_new ();
  g_autofree char *url = NULL;
  const char *version = ow_provider_get_quirk_string (self, "anthropic_version");
  const char *key = ow_provider_get_api_key (self);
  const char *beta = NULL;
  JsonNode *fallback = ow_provider_get_quirk (self, "server_side_fallback");
  gint64 budget = ow_provider_get_quirk_int (self, "thinking_budget", DEFAULT_THINKING_BUDGET);
  gint64 max_tokens = req->max_output_tokens > 0 ? req->max_output_tokens : DEFAULT_MAX_TOKENS;
  ThinkingKind kind = thinking_kind (req->model);
  gboolean thinking;
  JsonArray *messages;

  json_node_take_object (root, body);
  json_object_set_string_member (body, "model", req->model != NULL ? req->model : "");

  /* The leading system text becomes the system block, before the messages. */
  messages = convert_messages (body, req->messages);
  mark_rolling (messages);
  json_object_set_array_member (body, "messages", messages);
  if (req->tools != NULL && json_array_get_length (req->tools) > 0)
    json_object_set_array_member (body, "tools", convert_tools (req->tools));

  if (req->thinking == 1)
    thinking = kind != THINKING_NONE;
  else if (req->thinking == 0)
    thinking = FALSE;
  else
    thinking = kind != THINKING_NONE && budget > 0
               && g_strcmp0 (req->reasoning_effort, "none") != 0;

  if (thinking && kind == THINKING_MANUAL)
    {
      JsonObject *config = json_object_new ();

      budget = MAX (budget, 1024);
      json_object_set_string_member (config, "type", "enabled");
      json_object_set_int_member (config, "budget_tokens", budget);
      json_object_set_object_member (body, "thinking", config);
      /* The budget is part of max_tokens and must be below it. */
      max_tokens = MAX (max_tokens, MAX (DEFAULT_MAX_TOKENS, budget + 4096));
    }
  else if (thinking)
    {
      JsonObject *config = json_object_new ();

      json_object_set_string_member (config, "type", "adaptive");
      json_object_set_string_member (config, "display", "summarized");
      json_object_set_object_member (body, "thinking", config);
      if (req->reasoning_effort != NULL && g_strcmp0 (req->reasoning_effort, "none") != 0
          && g_strcmp0 (req->reasoning_effort, "minimal") != 0)
        {
          JsonObject *output = json_object_new ();
          json_object_set_string_member (output, "effort", req->reasoning_effort);
          json_object_set_object_member (body, "output_config", output);
        }
    }
  json_object_set_int_member (body, "max_tokens", max_tokens);

  /* Sampling settings are not accepted alongside thinking. */
  if (!thinking && req->temperature >= 0)
    json_object_set_double_member (body, "temperature", req->temperature);
  if (!thinking && req->top_p >= 0)
    json_object_set_double_member (body, "top_p", req->top_p);

  if (fallback != NULL && JSON_NODE_HOLDS_OBJECT (fallback) && req->model != NULL)
    {
      JsonObject *fb = json_node_get_object (fallback);
      JsonArray *prefixes = ow_json_get_array (fb, "prefixes");

      for (guint i = 0; prefixes != NULL && i < json_array_get_length (prefixes); i++)
        {
          const char *prefix = json_array_get_string_element (prefixes, i);
          if (prefix != NULL && g_str_has_prefix (req->model, prefix)
              && ow_json_get_string (fb, "model") != NULL)
            {
              JsonArray *models = json_array_new ();
              JsonObject *model = json_object_new ();

              json_object_set_string_member (model, "model", ow_json_get_string (fb, "model"));
              json_array_add_object_element (models, model);
              json_object_set_array_member (body, "fallbacks", models);
              beta = ow_json_get_string (fb, "beta");
              break;
            }
        }
    }

  if (req->stream)
    json_object_set_boolean_member (body, "stream", TRUE);

  /* The default base URL is the bare host; one given with /v1 works too. */
  if (g_str_has_suffix (ow_provider_get_base_url (self), "/v1"))
    url = ow_provider_build_url (self, "messages");
  else
    url = ow_provider_build_url (self, "v1/messages");
  *http = ow_provider_new_json_request (self, url, g_steal_pointer (&root));
  if (key != NULL)
    ow_provider_add_header (self, *http, "x-api-key", key);
  ow_provider_add_header (self, *http, "anthropic-version",
                          version != NULL ? version : "2023-06-01");
  if (beta != NULL)
    ow_provider_add_header (self, *http, "anthropic-beta", beta);
  return TRUE;
}

/* ---- Reply -------------------------------------------------------------- */

static void
read_usage (OwTurn     *turn,
            JsonObject *usage)
{
  /* input_tokens already excludes cache reads and writes. Later events
   * repeat the counts cumulatively; the last one wins. */
  turn->has_usage = TRUE;
  if (ow_json_has_int (usage, "input_tokens"))
    turn->usage.input = ow_json_get_int (usage, "input_tokens", 0);
  if (ow_json_has_int (usage, "cache_read_input_tokens"))
    turn->usage.cache_read = ow_json_get_int (usage, "cache_read_input_tokens", 0);
  if (ow_json_has_int (usage, "cache_creation_input_tokens"))
    turn->usage.cache_write = ow_json_get_int (usage, "cache_creation_input_tokens", 0);
  if (ow_json_has_int (usage, "output_tokens"))
    turn->usage.output = ow_json_get_int (usage, "output_tokens", 0);
}

static GError *
refusal_error (OwProvider *self)
{
  ow_provider_set_raw_finish_reason (self, "refusal");
  return g_error_new (OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REFUSED,
                      "%s's safety filter declined this request (stop reason: refusal). Try "
                      "rephrasing it, or switch model and retry.",
                      ow_provider_get_title (self));
}

/* Maps the stop reason; FALSE with an error for a refusal. */
static gboolean
set_stop_reason (OwProvider  *self,
                 OwTurn      *turn,
                 const char  *reason,
                 GError     **error)
{
  const char *finish = "stop";

  if (reason == NULL)
    return TRUE;
  if (g_str_equal (reason, "refusal"))
    {
      g_propagate_error (error, refusal_error (self));
      return FALSE;
    }
  ow_provider_set_raw_finish_reason (self, reason);
  if (g_str_equal (reason, "tool_use"))
    finish = "tool_calls";
  else if (g_str_equal (reason, "max_tokens")
           || g_str_equal (reason, "model_context_window_exceeded"))
    finish = "length";
  g_free (turn->finish_reason);
  turn->finish_reason = g_strdup (finish);
  return TRUE;
}

static void
set_sidecar (OwTurn    *turn,
             JsonArray *kept)
{
  JsonObject *sidecar;

  if (json_array_get_length (kept) == 0)
    {
      json_array_unref (kept);
      return;
    }
  sidecar = json_object_new ();
  json_object_set_array_member (sidecar, "blocks", kept);
  g_free (turn->sidecar_key);
  turn->sidecar_key = g_strdup ("_anthropic");
  g_clear_pointer (&turn->sidecar, json_node_unref);
  turn->sidecar = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (turn->sidecar, sidecar);
}

static void
finish_stream (OwTurn      *turn,
               StreamState *state)
{
  JsonArray *kept = json_array_new ();

  for (guint i = 0; i < state->blocks->len; i++)
    {
      Block *block = g_ptr_array_index (state->blocks, i);
      JsonObject *saved;

      if (block == NULL)
        continue;
      if (g_str_equal (block->type, "thinking"))
        {
          saved = json_object_new ();
          json_object_set_string_member (saved, "type", "thinking");
          json_object_set_string_member (saved, "thinking", block->text->str);
          json_object_set_string_member (saved, "signature", block->signature->str);
          json_array_add_object_element (kept, saved);
        }
      else if (g_str_equal (block->type, "redacted_thinking"))
        {
          saved = json_object_new ();
          json_object_set_string_member (saved, "type", "redacted_thinking");
          json_object_set_string_member (saved, "data", block->data != NULL ? block->data : "");
          json_array_add_object_element (kept, saved);
        }
    }
  set_sidecar (turn, kept);
}

static gboolean
anthropic_handle_event (OwProvider  *self,
                        OwTurn      *turn,
                        const char  *event,
                        const char  *data,
                        gsize        len,
                        GError     **error)
{
  StreamState *state = get_state (self);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) parse_error = NULL;
  JsonObject *obj;
  const char *type;
  gint64 index;
  Block *block = NULL;

  root = ow_json_parse (data, (gssize) len, &parse_error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a stream event that is not a JSON object (%s).",
                   ow_provider_get_title (self),
                   parse_error != NULL ? parse_error->message : "wrong type");
      return FALSE;
    }
  obj = json_node_get_object (root);
  type = ow_json_get_string (obj, "type");
  if (type == NULL)
    type = event;
  if (type == NULL || g_str_equal (type, "ping"))
    return TRUE;

  index = ow_json_get_int (obj, "index", -1);
  if (index >= 0 && index < (gint64) state->blocks->len)
    block = g_ptr_array_index (state->blocks, index);

  if (g_str_equal (type, "message_start"))
    {
      JsonObject *message = ow_json_get_object (obj, "message");

      if (ow_json_get_string (message, "id") != NULL)
        turn->response_id = g_strdup (ow_json_get_string (message, "id"));
      if (ow_json_get_string (message, "model") != NULL)
        turn->served_model = g_strdup (ow_json_get_string (message, "model"));
      if (ow_json_get_object (message, "usage") != NULL)
        read_usage (turn, ow_json_get_object (message, "usage"));
    }
  else if (g_str_equal (type, "content_block_start"))
    {
      JsonObject *content = ow_json_get_object (obj, "content_block");
      const char *block_type = ow_json_get_string (content, "type");

      if (index < 0 || index > 4096 || block_type == NULL)
        return TRUE;
      if ((guint) index >= state->blocks->len)
        g_ptr_array_set_size (state->blocks, (guint) index + 1);
      block = g_new0 (Block, 1);
      block->type = g_strdup (block_type);
      block->text = g_string_new (NULL);
      block->signature = g_string_new (ow_json_get_string (content, "signature"));
      block->id = g_strdup (ow_json_get_string (content, "id"));
      block->name = g_strdup (ow_json_get_string (content, "name"));
      block->data = g_strdup (ow_json_get_string (content, "data"));
      if (g_ptr_array_index (state->blocks, index) != NULL)
        block_free (g_ptr_array_index (state->blocks, index));
      g_ptr_array_index (state->blocks, index) = block;

      if (g_str_equal (block_type, "text"))
        ow_provider_append_delta (self, turn, OW_DELTA_TEXT,
                                  ow_json_get_string (content, "text"), -1);
      else if (g_str_equal (block_type, "thinking")
               && ow_json_get_string (content, "thinking") != NULL)
        {
          g_string_append (block->text, ow_json_get_string (content, "thinking"));
          ow_provider_append_delta (self, turn, OW_DELTA_REASONING,
                                    ow_json_get_string (content, "thinking"), -1);
        }
    }
  else if (g_str_equal (type, "content_block_delta"))
    {
      JsonObject *delta = ow_json_get_object (obj, "delta");
      const char *delta_type = ow_json_get_string (delta, "type");

      if (g_strcmp0 (delta_type, "text_delta") == 0)
        ow_provider_append_delta (self, turn, OW_DELTA_TEXT,
                                  ow_json_get_string (delta, "text"), -1);
      else if (g_strcmp0 (delta_type, "thinking_delta") == 0)
        {
          const char *piece = ow_json_get_string (delta, "thinking");
          if (block != NULL && piece != NULL)
            g_string_append (block->text, piece);
          ow_provider_append_delta (self, turn, OW_DELTA_REASONING, piece, -1);
        }
      else if (g_strcmp0 (delta_type, "signature_delta") == 0 && block != NULL
               && ow_json_get_string (delta, "signature") != NULL)
        g_string_append (block->signature, ow_json_get_string (delta, "signature"));
      else if (g_strcmp0 (delta_type, "input_json_delta") == 0 && block != NULL
               && ow_json_get_string (delta, "partial_json") != NULL)
        g_string_append (block->text, ow_json_get_string (delta, "partial_json"));
    }
  else if (g_str_equal (type, "content_block_stop"))
    {
      if (block != NULL && !block->done && g_str_equal (block->type, "tool_use"))
        {
          g_autofree char *id = block->id != NULL ? g_strdup (block->id)
                                                  : ow_provider_synthesize_call_id ();
          /* An empty concatenation means no arguments. */
          g_ptr_array_add (turn->tool_calls,
                           ow_tool_call_new (id, block->name != NULL ? block->name : "",
                                             block->text->len > 0 ? block->text->str : NULL));
        }
      if (block != NULL)
        block->done = TRUE;
    }
  else if (g_str_equal (type, "message_delta"))
    {
      JsonObject *delta = ow_json_get_object (obj, "delta");

      if (ow_json_get_object (obj, "usage") != NULL)
        read_usage (turn, ow_json_get_object (obj, "usage"));
      if (ow_json_get_string (delta, "stop_reason") != NULL)
        {
          g_free (state->stop_reason);
          state->stop_reason = g_strdup (ow_json_get_string (delta, "stop_reason"));
          if (!set_stop_reason (self, turn, state->stop_reason, error))
            return FALSE;
        }
    }
  else if (g_str_equal (type, "message_stop"))
    {
      finish_stream (turn, state);
      turn->complete = TRUE;
    }
  else if (g_str_equal (type, "error"))
    {
      JsonObject *err = ow_json_get_object (obj, "error");
      g_propagate_error (error, ow_provider_stream_error (self, ow_json_get_string (err, "type"),
                                                          ow_json_get_string (err, "message")));
      return FALSE;
    }
  return TRUE;
}

static gboolean
anthropic_parse_response (OwProvider  *self,
                          OwTurn      *turn,
                          JsonNode    *body,
                          GError     **error)
{
  JsonObject *root;
  JsonArray *content;
  JsonArray *kept;

  if (!JSON_NODE_HOLDS_OBJECT (body))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply that is not a JSON object.", ow_provider_get_title (self));
      return FALSE;
    }
  root = json_node_get_object (body);
  if (g_strcmp0 (ow_json_get_string (root, "type"), "error") == 0)
    {
      JsonObject *err = ow_json_get_object (root, "error");
      g_propagate_error (error, ow_provider_stream_error (self, ow_json_get_string (err, "type"),
                                                          ow_json_get_string (err, "message")));
      return FALSE;
    }

  content = ow_json_get_array (root, "content");
  if (content == NULL)
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply without content.", ow_provider_get_title (self));
      return FALSE;
    }

  kept = json_array_new ();
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *block;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      block = json_node_get_object (node);
      type = ow_json_get_string (block, "type");
      if (g_strcmp0 (type, "text") == 0 && ow_json_get_string (block, "text") != NULL)
        g_string_append (turn->text, ow_json_get_string (block, "text"));
      else if (g_strcmp0 (type, "thinking") == 0)
        {
          if (ow_json_get_string (block, "thinking") != NULL)
            g_string_append (turn->reasoning, ow_json_get_string (block, "thinking"));
          json_array_add_element (kept, ow_json_deep_copy (node));
        }
      else if (g_strcmp0 (type, "redacted_thinking") == 0)
        json_array_add_element (kept, ow_json_deep_copy (node));
      else if (g_strcmp0 (type, "tool_use") == 0)
        {
          JsonNode *input = json_object_get_member (block, "input");
          g_autofree char *args = NULL;
          g_autofree char *id = ow_json_get_string (block, "id") != NULL
                                ? g_strdup (ow_json_get_string (block, "id"))
                                : ow_provider_synthesize_call_id ();

          /* An object, serialized; a string is kept as the text it is. */
          if (input != NULL && JSON_NODE_HOLDS_VALUE (input)
              && json_node_get_value_type (input) == G_TYPE_STRING)
            args = g_strdup (json_node_get_string (input));
          else if (input != NULL && !JSON_NODE_HOLDS_NULL (input))
            args = ow_json_to_string (input);
          g_ptr_array_add (turn->tool_calls,
                           ow_tool_call_new (id, ow_json_get_string (block, "name"), args));
        }
    }
  set_sidecar (turn, kept);

  if (ow_json_get_string (root, "id") != NULL)
    turn->response_id = g_strdup (ow_json_get_string (root, "id"));
  if (ow_json_get_string (root, "model") != NULL)
    turn->served_model = g_strdup (ow_json_get_string (root, "model"));
  if (ow_json_get_object (root, "usage") != NULL)
    read_usage (turn, ow_json_get_object (root, "usage"));
  if (!set_stop_reason (self, turn, ow_json_get_string (root, "stop_reason"), error))
    return FALSE;
  turn->complete = TRUE;
  return TRUE;
}

/* ---- GObject ------------------------------------------------------------ */

static void
ow_provider_anthropic_class_init (OwProviderAnthropicClass *klass)
{
  OwProviderClass *provider_class = OW_PROVIDER_CLASS (klass);

  provider_class->build_request = anthropic_build_request;
  provider_class->handle_event = anthropic_handle_event;
  provider_class->parse_response = anthropic_parse_response;
}

static void
ow_provider_anthropic_init (OwProviderAnthropic *self)
{
}
