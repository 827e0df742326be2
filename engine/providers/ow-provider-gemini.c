/* ow-provider-gemini.c: Google's Gemini API (generateContent).
 *
 * Request: the leading system message becomes systemInstruction; user
 * messages become "user" contents (text, inlineData for attachments),
 * assistant messages "model" contents (text, functionCall with the args as
 * an object), tool results functionResponse parts in a "user" content,
 * matched to their call by name. Consecutive contents of one role are
 * folded. Tool schemas are cut down to the OpenAPI subset Gemini accepts
 * (see sanitize_schema()). thinkingConfig.includeThoughts asks for thought
 * summaries. The key goes in the x-goog-api-key header, never in the URL.
 *
 * Reply: streamGenerateContent?alt=sse sends whole GenerateContentResponse
 * chunks with no terminal marker; a candidate's finishReason is the end.
 * Parts flagged "thought" are reasoning, never answer text. Gemini calls
 * usually have no ids, so we make them ("call_<n>"). Thought signatures
 * (opaque base64 on text or functionCall parts) must come back exactly
 * where they were, or Gemini 3 rejects the history: they are kept in the
 * "_gemini" sidecar ({text_sig, call_sigs: {id: sig}, native_ids}) and
 * re-attached on the next call. usageMetadata is cumulative; the last
 * chunk's counts win. A blocked prompt (promptFeedback.blockReason) is
 * OW_PROVIDER_ERROR_REFUSED.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-provider-private.h"

#include <string.h>

#include "ow-error.h"

struct _OwProviderGemini
{
  OwProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (OwProviderGemini, ow_provider_gemini, OW_TYPE_PROVIDER)

/* Scratch state of one reply. */
typedef struct {
  char       *text_sig;    /* the signature on a non-call part (the last one wins) */
  JsonObject *call_sigs;   /* call id → signature */
  gboolean    native_ids;  /* the wire gave the call ids (so they go back) */
} ReplyState;

static void
reply_state_free (ReplyState *state)
{
  g_free (state->text_sig);
  json_object_unref (state->call_sigs);
  g_free (state);
}

static ReplyState *
get_state (OwProvider *self)
{
  ReplyState *state = ow_provider_get_call_state (self);

  if (state == NULL)
    {
      state = g_new0 (ReplyState, 1);
      state->call_sigs = json_object_new ();
      ow_provider_set_call_state (self, state, (GDestroyNotify) reply_state_free);
    }
  return state;
}

/* ---- Schemas ------------------------------------------------------------ */

static JsonNode *sanitize_schema (JsonNode *schema);

static gboolean
string_format_ok (const char *type,
                  const char *format)
{
  static const char *const string_formats[] = { "enum", "date-time" };
  static const char *const number_formats[] = { "int32", "int64", "float", "double" };

  if (g_strcmp0 (type, "string") == 0)
    {
      for (gsize i = 0; i < G_N_ELEMENTS (string_formats); i++)
        if (g_str_equal (format, string_formats[i]))
          return TRUE;
      return FALSE;
    }
  if (g_strcmp0 (type, "number") == 0 || g_strcmp0 (type, "integer") == 0)
    {
      for (gsize i = 0; i < G_N_ELEMENTS (number_formats); i++)
        if (g_str_equal (format, number_formats[i]))
          return TRUE;
    }
  return FALSE;
}

/* Gemini takes a subset of OpenAPI 3 schemas and rejects the rest
 * (additionalProperties, $schema, type arrays, const, unknown formats,
 * required names that are not properties). */
static JsonNode *
sanitize_schema (JsonNode *schema)
{
  static const char *const copied[] = {
    "description", "nullable", "minItems", "maxItems", "minimum", "maximum", "minLength",
    "maxLength", "pattern", "title", "minProperties", "maxProperties", "propertyOrdering",
  };
  JsonObject *in;
  JsonObject *out;
  JsonNode *type_node;
  const char *type = NULL;
  JsonObject *props;
  JsonArray *required;
  JsonNode *enum_node;
  JsonNode *result;

  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return NULL;
  in = json_node_get_object (schema);
  out = json_object_new ();

  type_node = json_object_get_member (in, "type");
  if (type_node != NULL && JSON_NODE_HOLDS_ARRAY (type_node))
    {
      /* ["string", "null"] is a nullable string. */
      JsonArray *types = json_node_get_array (type_node);
      for (guint i = 0; i < json_array_get_length (types); i++)
        {
          const char *t = json_array_get_string_element (types, i);
          if (g_strcmp0 (t, "null") == 0)
            json_object_set_boolean_member (out, "nullable", TRUE);
          else if (type == NULL)
            type = t;
        }
    }
  else
    type = ow_json_get_string (in, "type");

  for (gsize i = 0; i < G_N_ELEMENTS (copied); i++)
    if (json_object_has_member (in, copied[i]))
      json_object_set_member (out, copied[i],
                              ow_json_deep_copy (json_object_get_member (in, copied[i])));

  enum_node = json_object_get_member (in, "enum");
  if (enum_node == NULL && ow_json_get_string (in, "const") != NULL)
    {
      JsonArray *values = json_array_new ();
      json_array_add_string_element (values, ow_json_get_string (in, "const"));
      json_object_set_array_member (out, "enum", values);
      if (type == NULL)
        type = "string";
    }
  else if (enum_node != NULL && JSON_NODE_HOLDS_ARRAY (enum_node))
    {
      JsonArray *values = json_node_get_array (enum_node);
      gboolean all_strings = json_array_get_length (values) > 0;

      for (guint i = 0; i < json_array_get_length (values); i++)
        {
          JsonNode *v = json_array_get_element (values, i);
          if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_STRING)
            all_strings = FALSE;
        }
      /* Only string enums exist in Gemini's subset. */
      if (all_strings)
        {
          json_object_set_member (out, "enum", ow_json_deep_copy (enum_node));
          if (type == NULL)
            type = "string";
        }
    }

  if (type != NULL)
    json_object_set_string_member (out, "type", type);
  if (ow_json_get_string (in, "format") != NULL
      && string_format_ok (type, ow_json_get_string (in, "format")))
    json_object_set_string_member (out, "format", ow_json_get_string (in, "format"));

  props = ow_json_get_object (in, "properties");
  if (props != NULL)
    {
      JsonObject *clean = json_object_new ();
      g_autoptr(GList) names = json_object_get_members (props);

      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonNode *sub = sanitize_schema (json_object_get_member (props, l->data));
          if (sub != NULL)
            json_object_set_member (clean, l->data, sub);
        }
      if (json_object_get_size (clean) > 0)
        json_object_set_object_member (out, "properties", clean);
      else
        json_object_unref (clean);
    }

  required = ow_json_get_array (in, "required");
  if (required != NULL && json_object_has_member (out, "properties"))
    {
      JsonObject *kept_props = ow_json_get_object (out, "properties");
      JsonArray *clean = json_array_new ();

      for (guint i = 0; i < json_array_get_length (required); i++)
        {
          const char *name = json_array_get_string_element (required, i);
          if (name != NULL && json_object_has_member (kept_props, name))
            json_array_add_string_element (clean, name);
        }
      if (json_array_get_length (clean) > 0)
        json_object_set_array_member (out, "required", clean);
      else
        json_array_unref (clean);
    }

  if (json_object_has_member (in, "items"))
    {
      JsonNode *items = sanitize_schema (json_object_get_member (in, "items"));
      if (items != NULL)
        json_object_set_member (out, "items", items);
    }

  if (ow_json_get_array (in, "anyOf") != NULL)
    {
      JsonArray *any = ow_json_get_array (in, "anyOf");
      JsonArray *clean = json_array_new ();

      for (guint i = 0; i < json_array_get_length (any); i++)
        {
          JsonNode *sub = sanitize_schema (json_array_get_element (any, i));
          if (sub != NULL)
            json_array_add_element (clean, sub);
        }
      if (json_array_get_length (clean) > 0)
        json_object_set_array_member (out, "anyOf", clean);
      else
        json_array_unref (clean);
    }

  result = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (result, out);
  return result;
}

static JsonArray *
convert_tools (JsonArray *tools)
{
  JsonArray *out = json_array_new ();
  JsonArray *declarations = json_array_new ();
  JsonObject *wrapper = json_object_new ();

  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    {
      JsonObject *function = ow_provider_tool_function (tools, i);
      JsonObject *decl;
      JsonNode *params;

      if (function == NULL)
        continue;
      decl = ow_provider_tool_declaration (function, NULL);
      params = sanitize_schema (json_object_get_member (function, "parameters"));
      /* A function without parameters has no "parameters" at all: an
       * object schema with no properties is rejected. */
      if (params != NULL
          && ow_json_get_object (json_node_get_object (params), "properties") != NULL)
        json_object_set_member (decl, "parameters", params);
      else if (params != NULL)
        json_node_unref (params);
      json_array_add_object_element (declarations, decl);
    }
  json_object_set_array_member (wrapper, "functionDeclarations", declarations);
  json_array_add_object_element (out, wrapper);
  return out;
}

/* ---- Request ------------------------------------------------------------ */

static JsonObject *
text_part (const char *text)
{
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "text", text);
  return part;
}

static JsonObject *
inline_part (const char *mime,
             const char *data)
{
  JsonObject *part = json_object_new ();
  JsonObject *inline_data = json_object_new ();

  json_object_set_string_member (inline_data, "mimeType", mime);
  json_object_set_string_member (inline_data, "data", data);
  json_object_set_object_member (part, "inlineData", inline_data);
  return part;
}

/* What the visitor builds: contents of alternating roles, and the system
 * instruction. */
typedef struct {
  OwHistoryFold  fold;  /* first: the fold callbacks get the builder */
  JsonObject    *body;  /* the request body, for systemInstruction */
} Builder;

static void
on_user_part (const OwHistoryMessage *msg,
              const OwHistoryPart    *part,
              gpointer                user_data)
{
  Builder *b = user_data;

  switch (part->kind)
    {
    case OW_HISTORY_PART_TEXT:
      if (part->text[0] != '\0')
        json_array_add_object_element (b->fold.items, text_part (part->text));
      break;
    case OW_HISTORY_PART_IMAGE:
      if (part->data != NULL)
        json_array_add_object_element (b->fold.items, inline_part (part->mime, part->data));
      else if (part->url != NULL)
        {
          JsonObject *wire = json_object_new ();
          JsonObject *file_data = json_object_new ();
          json_object_set_string_member (file_data, "fileUri", part->url);
          json_object_set_object_member (wire, "fileData", file_data);
          json_array_add_object_element (b->fold.items, wire);
        }
      break;
    case OW_HISTORY_PART_FILE:
      if (part->data != NULL)
        json_array_add_object_element (b->fold.items, inline_part (part->mime, part->data));
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
on_assistant_text (const OwHistoryMessage *msg,
                   const char             *text,
                   gpointer                user_data)
{
  Builder *b = user_data;
  const char *text_sig = ow_json_get_string (ow_history_sidecar (msg->message, "_gemini"),
                                             "text_sig");

  /* The signature goes back on the part it came on: the text, or an empty
   * text part when the model signed nothing else. */
  if (text[0] != '\0' || text_sig != NULL)
    {
      JsonObject *part = text_part (text);
      if (text_sig != NULL)
        json_object_set_string_member (part, "thoughtSignature", text_sig);
      json_array_add_object_element (b->fold.items, part);
    }
}

static void
on_tool_call (const OwHistoryMessage  *msg,
              const OwHistoryToolCall *call,
              gpointer                 user_data)
{
  Builder *b = user_data;
  JsonObject *sidecar = ow_history_sidecar (msg->message, "_gemini");
  JsonObject *call_sigs = ow_json_get_object (sidecar, "call_sigs");
  JsonObject *fc = json_object_new ();
  JsonObject *part = json_object_new ();

  json_object_set_string_member (fc, "name", call->name);
  json_object_set_member (fc, "args", ow_history_call_arguments (call));
  if (ow_json_get_bool (sidecar, "native_ids", FALSE) && call->id != NULL)
    json_object_set_string_member (fc, "id", call->id);
  json_object_set_object_member (part, "functionCall", fc);
  if (call->id != NULL && ow_json_get_string (call_sigs, call->id) != NULL)
    json_object_set_string_member (part, "thoughtSignature",
                                   ow_json_get_string (call_sigs, call->id));
  json_array_add_object_element (b->fold.items, part);
}

static void
on_tool_result (const OwHistoryMessage    *msg,
                const OwHistoryToolResult *result,
                gpointer                   user_data)
{
  Builder *b = user_data;
  g_autoptr(JsonNode) parsed = ow_json_parse (result->text, -1, NULL);
  JsonObject *fr = json_object_new ();
  JsonObject *part = json_object_new ();

  /* Matched to its call by name (and by id where Gemini gave ids). */
  json_object_set_string_member (fr, "name", result->name != NULL ? result->name : "tool");
  /* The response must be an object; plain text is wrapped. */
  if (parsed != NULL && JSON_NODE_HOLDS_OBJECT (parsed))
    json_object_set_member (fr, "response", ow_json_deep_copy (parsed));
  else
    {
      JsonObject *wrapped = json_object_new ();
      json_object_set_string_member (wrapped, "result", result->text);
      json_object_set_object_member (fr, "response", wrapped);
    }
  if (result->caller != NULL
      && ow_json_get_bool (ow_history_sidecar (result->caller, "_gemini"), "native_ids", FALSE))
    json_object_set_string_member (fr, "id", result->call_id);
  json_object_set_object_member (part, "functionResponse", fr);
  json_array_add_object_element (b->fold.items, part);
}

static void
on_system_prompt (const char *text,
                  gpointer    user_data)
{
  JsonObject *body = ((Builder *) user_data)->body;
  JsonObject *instruction = json_object_new ();
  JsonArray *parts = json_array_new ();

  json_array_add_object_element (parts, text_part (text));
  json_object_set_array_member (instruction, "parts", parts);
  json_object_set_object_member (body, "systemInstruction", instruction);
}

static const OwHistoryVisitor gemini_visitor = {
  .system_prompt = on_system_prompt,
  .message = ow_history_fold_begin,
  .message_end = ow_history_fold_end,
  .user_part = on_user_part,
  .assistant_text = on_assistant_text,
  .tool_call = on_tool_call,
  .tool_result = on_tool_result,
  .system_as_user = TRUE,
};

static const char *
thinking_level (const char *effort)
{
  if (effort == NULL)
    return NULL;
  if (g_str_equal (effort, "none") || g_str_equal (effort, "minimal")
      || g_str_equal (effort, "low"))
    return "low";
  return "high";
}

static gboolean
gemini_build_request (OwProvider            *self,
                      const OwModelRequest  *req,
                      OwHttpRequest        **http,
                      GError               **error)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *body = json_object_new ();
  JsonObject *generation = json_object_new ();
  Builder builder;
  g_autofree char *path = NULL;
  g_autofree char *url = NULL;
  const char *model = req->model != NULL ? req->model : "";
  const char *key = ow_provider_get_api_key (self);

  json_node_take_object (root, body);
  if (g_str_has_prefix (model, "models/"))
    model += strlen ("models/");

  /* The leading system text becomes systemInstruction, before the contents. */
  builder.fold = (OwHistoryFold) { json_array_new (), "parts", "model", NULL };
  builder.body = body;
  ow_history_walk (req->messages, &gemini_visitor, &builder);
  json_object_set_array_member (body, "contents", builder.fold.out);
  if (req->tools != NULL && json_array_get_length (req->tools) > 0)
    json_object_set_array_member (body, "tools", convert_tools (req->tools));

  if (req->max_output_tokens > 0)
    json_object_set_int_member (generation, "maxOutputTokens", req->max_output_tokens);
  if (req->temperature >= 0)
    json_object_set_double_member (generation, "temperature", req->temperature);
  if (req->top_p >= 0)
    json_object_set_double_member (generation, "topP", req->top_p);
  if (req->thinking != 0)
    {
      JsonObject *thinking = json_object_new ();
      json_object_set_boolean_member (thinking, "includeThoughts", TRUE);
      /* Gemini 3 takes a level; 2.5 models choose their own budget. */
      if (g_str_has_prefix (model, "gemini-3") && thinking_level (req->reasoning_effort) != NULL)
        json_object_set_string_member (thinking, "thinkingLevel",
                                       thinking_level (req->reasoning_effort));
      json_object_set_object_member (generation, "thinkingConfig", thinking);
    }
  if (json_object_get_size (generation) > 0)
    json_object_set_object_member (body, "generationConfig", generation);
  else
    json_object_unref (generation);

  path = req->stream ? g_strdup_printf ("models/%s:streamGenerateContent?alt=sse", model)
                     : g_strdup_printf ("models/%s:generateContent", model);
  url = ow_provider_build_url (self, path);
  *http = ow_provider_new_json_request (self, url, g_steal_pointer (&root));
  if (key != NULL)
    ow_provider_add_header (self, *http, "x-goog-api-key", key);
  return TRUE;
}

/* ---- Reply -------------------------------------------------------------- */

static void
read_usage (OwTurn     *turn,
            JsonObject *usage)
{
  gint64 prompt = ow_json_get_int (usage, "promptTokenCount", 0);
  gint64 cached = ow_json_get_int (usage, "cachedContentTokenCount", 0);
  gint64 thoughts = ow_json_get_int (usage, "thoughtsTokenCount", 0);

  turn->has_usage = TRUE;
  turn->usage.cache_read = cached;
  turn->usage.input = MAX (prompt - cached, 0);
  turn->usage.output = ow_json_get_int (usage, "candidatesTokenCount", 0) + thoughts;
  turn->usage.reasoning = thoughts;
}

static const char *
map_finish (const char *reason)
{
  static const char *const filtered[] = {
    "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
  };

  if (g_str_equal (reason, "MAX_TOKENS"))
    return "length";
  for (gsize i = 0; i < G_N_ELEMENTS (filtered); i++)
    if (g_str_equal (reason, filtered[i]))
      return "content_filter";
  /* STOP, and MALFORMED_FUNCTION_CALL / OTHER, which leave nothing usable:
   * the empty-reply check then names the raw reason. */
  return "stop";
}

static void
update_sidecar (OwTurn     *turn,
                ReplyState *state)
{
  JsonObject *sidecar;

  if (state->text_sig == NULL && json_object_get_size (state->call_sigs) == 0 && !state->native_ids)
    return;
  sidecar = json_object_new ();
  if (state->text_sig != NULL)
    json_object_set_string_member (sidecar, "text_sig", state->text_sig);
  json_object_set_object_member (sidecar, "call_sigs", ow_json_object_deep_copy (state->call_sigs));
  if (state->native_ids)
    json_object_set_boolean_member (sidecar, "native_ids", TRUE);
  g_free (turn->sidecar_key);
  turn->sidecar_key = g_strdup ("_gemini");
  g_clear_pointer (&turn->sidecar, json_node_unref);
  turn->sidecar = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (turn->sidecar, sidecar);
}

/* Reads one GenerateContentResponse (a stream chunk or the whole reply). */
static gboolean
read_chunk (OwProvider  *self,
            OwTurn      *turn,
            JsonObject  *chunk,
            GError     **error)
{
  ReplyState *state = get_state (self);
  JsonObject *err = ow_json_get_object (chunk, "error");
  JsonObject *feedback = ow_json_get_object (chunk, "promptFeedback");
  JsonArray *candidates = ow_json_get_array (chunk, "candidates");
  JsonObject *candidate = NULL;
  JsonArray *parts;

  if (err != NULL)
    {
      g_propagate_error (error, ow_provider_stream_error (self, ow_json_get_string (err, "status"),
                                                          ow_json_get_string (err, "message")));
      return FALSE;
    }
  if (ow_json_get_string (feedback, "blockReason") != NULL)
    {
      const char *reason = ow_json_get_string (feedback, "blockReason");
      ow_provider_set_raw_finish_reason (self, reason);
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_REFUSED,
                   "%s blocked the prompt (%s). Rephrase the request, or pick a different model.",
                   ow_provider_get_title (self), reason);
      return FALSE;
    }

  if (ow_json_get_string (chunk, "responseId") != NULL && turn->response_id == NULL)
    turn->response_id = g_strdup (ow_json_get_string (chunk, "responseId"));
  if (ow_json_get_string (chunk, "modelVersion") != NULL && turn->served_model == NULL)
    turn->served_model = g_strdup (ow_json_get_string (chunk, "modelVersion"));
  if (ow_json_get_object (chunk, "usageMetadata") != NULL)
    read_usage (turn, ow_json_get_object (chunk, "usageMetadata"));

  if (candidates != NULL && json_array_get_length (candidates) > 0
      && JSON_NODE_HOLDS_OBJECT (json_array_get_element (candidates, 0)))
    candidate = json_array_get_object_element (candidates, 0);
  parts = ow_json_get_array (ow_json_get_object (candidate, "content"), "parts");

  for (guint i = 0; parts != NULL && i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *part;
      JsonObject *fc;
      const char *signature;
      const char *text;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      part = json_node_get_object (node);
      signature = ow_json_get_string (part, "thoughtSignature");
      text = ow_json_get_string (part, "text");
      fc = ow_json_get_object (part, "functionCall");

      if (fc != NULL)
        {
          JsonNode *args = json_object_get_member (fc, "args");
          const char *wire_id = ow_json_get_string (fc, "id");
          g_autofree char *id = wire_id != NULL ? g_strdup (wire_id)
                                                : ow_provider_synthesize_call_id ();
          g_autofree char *args_text = NULL;

          /* Arguments are an object on this wire; a string is kept as the
           * text it is, so a mangled call reaches the engine as sent. */
          if (args != NULL && JSON_NODE_HOLDS_VALUE (args)
              && json_node_get_value_type (args) == G_TYPE_STRING)
            args_text = g_strdup (json_node_get_string (args));
          else if (args != NULL && !JSON_NODE_HOLDS_NULL (args))
            args_text = ow_json_to_string (args);
          if (wire_id != NULL)
            state->native_ids = TRUE;
          g_ptr_array_add (turn->tool_calls,
                           ow_tool_call_new (id, ow_json_get_string (fc, "name"), args_text));
          if (signature != NULL)
            json_object_set_string_member (state->call_sigs, id, signature);
          continue;
        }

      if (ow_json_get_bool (part, "thought", FALSE))
        ow_provider_append_delta (self, turn, OW_DELTA_REASONING, text, -1);
      else
        ow_provider_append_delta (self, turn, OW_DELTA_TEXT, text, -1);
      if (signature != NULL)
        {
          g_free (state->text_sig);
          state->text_sig = g_strdup (signature);
        }
    }

  if (ow_json_get_string (candidate, "finishReason") != NULL)
    {
      const char *reason = ow_json_get_string (candidate, "finishReason");
      ow_provider_set_raw_finish_reason (self, reason);
      g_free (turn->finish_reason);
      turn->finish_reason = g_strdup (map_finish (reason));
      turn->complete = TRUE;
    }
  update_sidecar (turn, state);
  return TRUE;
}

static gboolean
gemini_handle_event (OwProvider  *self,
                     OwTurn      *turn,
                     const char  *event,
                     const char  *data,
                     gsize        len,
                     GError     **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) parse_error = NULL;

  root = ow_json_parse (data, (gssize) len, &parse_error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a stream chunk that is not a JSON object (%s).",
                   ow_provider_get_title (self),
                   parse_error != NULL ? parse_error->message : "wrong type");
      return FALSE;
    }
  return read_chunk (self, turn, json_node_get_object (root), error);
}

static gboolean
gemini_parse_response (OwProvider  *self,
                       OwTurn      *turn,
                       JsonNode    *body,
                       GError     **error)
{
  JsonNode *node = body;

  /* Without alt=sse some servers answer with an array of chunks. */
  if (JSON_NODE_HOLDS_ARRAY (body))
    {
      JsonArray *chunks = json_node_get_array (body);
      for (guint i = 0; i < json_array_get_length (chunks); i++)
        {
          JsonNode *chunk = json_array_get_element (chunks, i);
          if (JSON_NODE_HOLDS_OBJECT (chunk)
              && !read_chunk (self, turn, json_node_get_object (chunk), error))
            return FALSE;
        }
      turn->complete = TRUE;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_PROTOCOL,
                   "%s sent a reply that is not a JSON object.", ow_provider_get_title (self));
      return FALSE;
    }
  if (!read_chunk (self, turn, json_node_get_object (node), error))
    return FALSE;
  turn->complete = TRUE;
  return TRUE;
}

/* ---- GObject ------------------------------------------------------------ */

static void
ow_provider_gemini_class_init (OwProviderGeminiClass *klass)
{
  OwProviderClass *provider_class = OW_PROVIDER_CLASS (klass);

  provider_class->build_request = gemini_build_request;
  provider_class->handle_event = gemini_handle_event;
  provider_class->parse_response = gemini_parse_response;
}

static void
ow_provider_gemini_init (OwProviderGemini *self)
{
}
