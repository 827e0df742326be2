/* ow-model-server-script.c: checking a script and compiling its turns.
 *
 * A script is validated strictly, once, when the server is created: an
 * unknown key or a value of the wrong type is an error naming its place
 * ("turns[2].error.kind: …"), because a typo that silently fell back to a
 * default would make a test pass for the wrong reason. Each turn is then
 * compiled into an OwMsTurn, so that answering a request reads C fields
 * instead of JSON. Only turns with "{n}" in a string keep their JSON source,
 * and are recompiled per request after the substitution.
 */
#define G_LOG_DOMAIN "ow-model-server"

#include "ow-model-server-private.h"

#include <string.h>

/* What a turn's "usage" is when the script gives none. */
#define DEFAULT_INPUT_TOKENS  10
#define DEFAULT_OUTPUT_TOKENS 5

static const char *const style_names[OW_MS_N_STYLES] = {
  [OW_MS_STYLE_OPENAI_CHAT] = "openai-chat",
  [OW_MS_STYLE_OPENAI_RESPONSES] = "openai-responses",
  [OW_MS_STYLE_ANTHROPIC] = "anthropic",
  [OW_MS_STYLE_GEMINI] = "gemini",
  [OW_MS_STYLE_OLLAMA] = "ollama",
};

static const char *const error_kind_names[OW_MS_N_ERROR_KINDS] = {
  [OW_MS_ERROR_RATE_LIMIT] = "rate_limit",
  [OW_MS_ERROR_QUOTA] = "quota",
  [OW_MS_ERROR_OVERLOADED] = "overloaded",
  [OW_MS_ERROR_SERVER] = "server",
  [OW_MS_ERROR_BAD_KEY] = "bad_key",
  [OW_MS_ERROR_UNKNOWN_MODEL] = "unknown_model",
  [OW_MS_ERROR_CONTEXT_OVERFLOW] = "context_overflow",
  [OW_MS_ERROR_BAD_REQUEST] = "bad_request",
  [OW_MS_ERROR_PERMISSION] = "permission",
};

static const char *const finish_names[] = {
  [OW_MS_FINISH_STOP] = "stop",
  [OW_MS_FINISH_TOOL_CALLS] = "tool_calls",
  [OW_MS_FINISH_LENGTH] = "length",
};

const char *
ow_ms_style_name (OwMsStyle style)
{
  g_return_val_if_fail (style < OW_MS_N_STYLES, NULL);
  return style_names[style];
}

gboolean
ow_ms_style_from_name (const char *name,
                       OwMsStyle  *out)
{
  for (guint i = 0; i < OW_MS_N_STYLES; i++)
    if (g_strcmp0 (name, style_names[i]) == 0)
      {
        *out = (OwMsStyle) i;
        return TRUE;
      }
  return FALSE;
}

const char *
ow_ms_error_kind_name (OwMsErrorKind kind)
{
  g_return_val_if_fail (kind < OW_MS_N_ERROR_KINDS, NULL);
  return error_kind_names[kind];
}

const char *
ow_ms_finish_name (OwMsFinish finish)
{
  return finish_names[finish];
}

/* ---- Checking ------------------------------------------------------------ */

/* Every failure names the place in the script ("turns[0].usage.input"). */
G_GNUC_PRINTF (3, 4) static gboolean
fail (GError     **error,
      const char  *where,
      const char  *format,
      ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               "Invalid model-server script: %s: %s", where, what);
  return FALSE;
}

static gboolean
check_keys (JsonObject         *object,
            const char         *where,
            const char *const  *allowed,
            GError            **error)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;

      if (!g_strv_contains (allowed, name))
        {
          g_autofree char *list = g_strjoinv (", ", (char **) allowed);
          return fail (error, where, "unknown key \"%s\" (known: %s)", name, list);
        }
    }
  return TRUE;
}

static gboolean
is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
is_int (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
}

static gboolean
is_bool (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN;
}

/* Reads an optional string member into *out (a copy; untouched if absent). */
static gboolean
get_string (JsonObject  *object,
            const char  *name,
            const char  *where,
            char       **out,
            GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL)
    return TRUE;
  if (!is_string (node))
    return fail (error, where, "\"%s\" must be a string", name);
  g_free (*out);
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* Reads an optional integer member in [min, max] into *out. */
static gboolean
get_int (JsonObject  *object,
         const char  *name,
         const char  *where,
         gint64       min,
         gint64       max,
         gint64      *out,
         GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);
  gint64 value;

  if (node == NULL)
    return TRUE;
  if (!is_int (node))
    return fail (error, where, "\"%s\" must be an integer", name);
  value = json_node_get_int (node);
  if (value < min || value > max)
    return fail (error, where, "\"%s\" must be between %" G_GINT64_FORMAT " and %"
                 G_GINT64_FORMAT ", not %" G_GINT64_FORMAT, name, min, max, value);
  *out = value;
  return TRUE;
}

static gboolean
get_bool (JsonObject  *object,
          const char  *name,
          const char  *where,
          int         *out,
          GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL)
    return TRUE;
  if (!is_bool (node))
    return fail (error, where, "\"%s\" must be true or false", name);
  *out = json_node_get_boolean (node) ? 1 : 0;
  return TRUE;
}

static JsonObject *
get_object (JsonObject  *object,
            const char  *name,
            const char  *where,
            gboolean    *ok,
            GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  *ok = TRUE;
  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      *ok = fail (error, where, "\"%s\" must be an object", name);
      return NULL;
    }
  return json_node_get_object (node);
}

/* A {"name": "value", …} object into a name, value, … array. Header names
 * are compared case-insensitively, so @lower_names folds them. */
static gboolean
get_string_map (JsonObject  *object,
                const char  *where,
                gboolean     lower_names,
                GPtrArray   *out,
                GError     **error)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (object, name);

      if (!is_string (value))
        return fail (error, where, "the value of \"%s\" must be a string", name);
      g_ptr_array_add (out, lower_names ? g_ascii_strdown (name, -1) : g_strdup (name));
      g_ptr_array_add (out, g_strdup (json_node_get_string (value)));
    }
  return TRUE;
}

static gboolean
contains_n (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        if (contains_n (json_object_get_member (object, l->data)))
          return TRUE;
      return FALSE;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (contains_n (json_array_get_element (array, i)))
          return TRUE;
      return FALSE;
    }
  return is_string (node) && strstr (json_node_get_string (node), "{n}") != NULL;
}

/* ---- Compiling a turn ---------------------------------------------------- */

static void
tool_call_free (gpointer data)
{
  OwMsToolCall *call = data;

  g_free (call->id);
  g_free (call->name);
  g_free (call->arguments);
  g_clear_pointer (&call->args, json_node_unref);
  g_free (call);
}

void
ow_ms_turn_free (OwMsTurn *turn)
{
  if (turn == NULL)
    return;
  g_free (turn->text);
  g_free (turn->reasoning);
  g_ptr_array_unref (turn->tool_calls);
  if (turn->error != NULL)
    {
      g_free (turn->error->message);
      g_free (turn->error);
    }
  g_clear_pointer (&turn->raw_headers, g_ptr_array_unref);
  g_free (turn->raw_body);
  g_free (turn->expect_path);
  g_free (turn->expect_model);
  g_clear_pointer (&turn->expect_headers, g_ptr_array_unref);
  g_strfreev (turn->expect_body_contains);
  g_free (turn->expect_last_message_contains);
  g_clear_pointer (&turn->source, json_node_unref);
  g_free (turn);
}

static gboolean
compile_tool_calls (OwMsTurn    *turn,
                    JsonNode    *node,
                    const char  *where,
                    GError     **error)
{
  static const char *const keys[] = { "id", "name", "arguments", "arguments_raw", NULL };
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return fail (error, where, "\"tool_calls\" must be an array");
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *here = g_strdup_printf ("%s.tool_calls[%u]", where, i);
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *object;
      JsonNode *args;
      OwMsToolCall *call;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return fail (error, here, "a tool call must be an object");
      object = json_node_get_object (element);
      if (!check_keys (object, here, keys, error))
        return FALSE;

      call = g_new0 (OwMsToolCall, 1);
      g_ptr_array_add (turn->tool_calls, call);
      if (!get_string (object, "id", here, &call->id, error)
          || !get_string (object, "name", here, &call->name, error)
          || !get_string (object, "arguments_raw", here, &call->arguments, error))
        return FALSE;
      if (call->name == NULL)
        return fail (error, here, "\"name\" is required");

      args = json_object_get_member (object, "arguments");
      if (args != NULL && call->arguments != NULL)
        return fail (error, here, "give \"arguments\" or \"arguments_raw\", not both");
      if (args != NULL && !JSON_NODE_HOLDS_OBJECT (args))
        return fail (error, here, "\"arguments\" must be an object");
      if (call->arguments == NULL)
        {
          /* No arguments at all means an empty object, as the wires send it. */
          call->args = args != NULL ? json_node_copy (args) : json_node_init_object (json_node_alloc (), json_object_new ());
          call->arguments = json_to_string (call->args, FALSE);
        }
    }
  return TRUE;
}

static gboolean
compile_usage (OwMsTurn    *turn,
               JsonObject  *usage,
               const char  *where,
               GError     **error)
{
  static const char *const keys[] = { "input", "output", "cache_read", "cache_write", "reasoning", NULL };
  g_autofree char *here = g_strdup_printf ("%s.usage", where);

  memset (&turn->usage, 0, sizeof turn->usage);
  if (!check_keys (usage, here, keys, error)
      || !get_int (usage, "input", here, 0, G_MAXINT32, &turn->usage.input, error)
      || !get_int (usage, "output", here, 0, G_MAXINT32, &turn->usage.output, error)
      || !get_int (usage, "cache_read", here, 0, G_MAXINT32, &turn->usage.cache_read, error)
      || !get_int (usage, "cache_write", here, 0, G_MAXINT32, &turn->usage.cache_write, error)
      || !get_int (usage, "reasoning", here, 0, G_MAXINT32, &turn->usage.reasoning, error))
    return FALSE;
  if (turn->usage.reasoning > turn->usage.output)
    return fail (error, here, "\"reasoning\" is part of \"output\", so it cannot exceed it");
  return TRUE;
}

static gboolean
compile_error (OwMsTurn    *turn,
               JsonObject  *object,
               const char  *where,
               GError     **error)
{
  static const char *const keys[] = { "status", "kind", "message", "retry_after", "in_stream", NULL };
  g_autofree char *here = g_strdup_printf ("%s.error", where);
  g_autofree char *kind = NULL;
  gint64 status = 0;
  gint64 retry_after = -1;
  int in_stream = 0;
  OwMsError *e;

  e = turn->error = g_new0 (OwMsError, 1);
  if (!check_keys (object, here, keys, error)
      || !get_string (object, "kind", here, &kind, error)
      || !get_string (object, "message", here, &e->message, error)
      || !get_int (object, "status", here, 100, 599, &status, error)
      || !get_int (object, "retry_after", here, 0, 86400, &retry_after, error)
      || !get_bool (object, "in_stream", here, &in_stream, error))
    return FALSE;
  e->status = (guint) status;
  e->retry_after = (int) retry_after;
  e->in_stream = in_stream;

  if (kind == NULL)
    {
      /* A status alone picks the kind that status usually means. */
      switch (status)
        {
        case 0:
          return fail (error, here, "give a \"kind\" or a \"status\"");
        case 401:
          e->kind = OW_MS_ERROR_BAD_KEY;
          break;
        case 403:
          e->kind = OW_MS_ERROR_PERMISSION;
          break;
        case 404:
          e->kind = OW_MS_ERROR_UNKNOWN_MODEL;
          break;
        case 429:
          e->kind = OW_MS_ERROR_RATE_LIMIT;
          break;
        case 503:
        case 529:
          e->kind = OW_MS_ERROR_OVERLOADED;
          break;
        default:
          e->kind = status >= 500 ? OW_MS_ERROR_SERVER : OW_MS_ERROR_BAD_REQUEST;
          break;
        }
      return TRUE;
    }
  for (guint i = 0; i < OW_MS_N_ERROR_KINDS; i++)
    if (g_str_equal (kind, error_kind_names[i]))
      {
        e->kind = (OwMsErrorKind) i;
        return TRUE;
      }
  {
    g_autofree char *list = g_strjoinv (", ", (char **) error_kind_names);
    return fail (error, here, "unknown kind \"%s\" (known: %s)", kind, list);
  }
}

static gboolean
compile_raw (OwMsTurn    *turn,
             JsonObject  *object,
             const char  *where,
             GError     **error)
{
  static const char *const keys[] = { "status", "headers", "body", NULL };
  g_autofree char *here = g_strdup_printf ("%s.raw", where);
  gint64 status = 200;
  JsonObject *headers;
  gboolean ok;

  turn->has_raw = TRUE;
  turn->raw_headers = g_ptr_array_new_with_free_func (g_free);
  if (!check_keys (object, here, keys, error)
      || !get_int (object, "status", here, 100, 599, &status, error)
      || !get_string (object, "body", here, &turn->raw_body, error))
    return FALSE;
  turn->raw_status = (guint) status;
  if (turn->raw_body == NULL)
    turn->raw_body = g_strdup ("");
  headers = get_object (object, "headers", here, &ok, error);
  if (!ok)
    return FALSE;
  return headers == NULL || get_string_map (headers, here, FALSE, turn->raw_headers, error);
}

static gboolean
compile_expect (OwMsTurn    *turn,
                JsonObject  *object,
                const char  *where,
                GError     **error)
{
  static const char *const keys[] = {
    "path", "model", "header", "body_contains", "last_message_contains", NULL
  };
  g_autofree char *here = g_strdup_printf ("%s.expect", where);
  JsonObject *headers;
  JsonNode *contains;
  gboolean ok;

  if (!check_keys (object, here, keys, error)
      || !get_string (object, "path", here, &turn->expect_path, error)
      || !get_string (object, "model", here, &turn->expect_model, error)
      || !get_string (object, "last_message_contains", here,
                      &turn->expect_last_message_contains, error))
    return FALSE;

  headers = get_object (object, "header", here, &ok, error);
  if (!ok)
    return FALSE;
  if (headers != NULL)
    {
      turn->expect_headers = g_ptr_array_new_with_free_func (g_free);
      if (!get_string_map (headers, here, TRUE, turn->expect_headers, error))
        return FALSE;
    }

  contains = json_object_get_member (object, "body_contains");
  if (contains != NULL)
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      JsonArray *array;

      /* One string is accepted as a list of one. */
      if (is_string (contains))
        g_strv_builder_add (builder, json_node_get_string (contains));
      else if (!JSON_NODE_HOLDS_ARRAY (contains))
        return fail (error, here, "\"body_contains\" must be an array of strings");
      else
        {
          array = json_node_get_array (contains);
          for (guint i = 0; i < json_array_get_length (array); i++)
            {
              JsonNode *element = json_array_get_element (array, i);

              if (!is_string (element))
                return fail (error, here, "\"body_contains\" must be an array of strings");
              g_strv_builder_add (builder, json_node_get_string (element));
            }
        }
      turn->expect_body_contains = g_strv_builder_end (builder);
    }
  return TRUE;
}

static OwMsTurn *
compile_turn (JsonNode    *node,
              const char  *where,
              GError     **error)
{
  static const char *const keys[] = {
    "text", "text_chunks", "reasoning", "tool_calls", "finish", "usage", "stream",
    "delay_ms", "chunk_delay_ms", "drop_after", "error", "raw", "repeat", "expect",
    "comment", NULL
  };
  g_autoptr(OwMsTurn) turn = g_new0 (OwMsTurn, 1);
  g_autofree char *finish = NULL;
  JsonObject *object;
  JsonObject *member;
  JsonNode *calls;
  gint64 text_chunks = 0, delay_ms = 0, chunk_delay_ms = 0, drop_after = -1, repeat = 1;
  gboolean ok;

  turn->tool_calls = g_ptr_array_new_with_free_func (tool_call_free);
  turn->stream = -1;
  turn->usage.input = DEFAULT_INPUT_TOKENS;
  turn->usage.output = DEFAULT_OUTPUT_TOKENS;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (error, where, "a turn must be an object");
      return NULL;
    }
  object = json_node_get_object (node);
  if (!check_keys (object, where, keys, error)
      || !get_string (object, "text", where, &turn->text, error)
      || !get_string (object, "reasoning", where, &turn->reasoning, error)
      || !get_string (object, "finish", where, &finish, error)
      || !get_int (object, "text_chunks", where, 1, 100000, &text_chunks, error)
      || !get_int (object, "delay_ms", where, 0, 600000, &delay_ms, error)
      || !get_int (object, "chunk_delay_ms", where, 0, 600000, &chunk_delay_ms, error)
      || !get_int (object, "drop_after", where, 0, G_MAXINT32, &drop_after, error)
      || !get_int (object, "repeat", where, 1, 1000000, &repeat, error)
      || !get_bool (object, "stream", where, &turn->stream, error))
    return NULL;
  turn->text_chunks = (guint) text_chunks;
  turn->delay_ms = (guint) delay_ms;
  turn->chunk_delay_ms = (guint) chunk_delay_ms;
  turn->drop_after = (int) drop_after;
  turn->repeat = (guint) repeat;

  calls = json_object_get_member (object, "tool_calls");
  if (calls != NULL && !compile_tool_calls (turn, calls, where, error))
    return NULL;

  if (finish == NULL)
    turn->finish = turn->tool_calls->len > 0 ? OW_MS_FINISH_TOOL_CALLS : OW_MS_FINISH_STOP;
  else
    {
      guint i;

      for (i = 0; i < G_N_ELEMENTS (finish_names); i++)
        if (g_str_equal (finish, finish_names[i]))
          break;
      if (i == G_N_ELEMENTS (finish_names))
        {
          fail (error, where, "\"finish\" must be one of stop, tool_calls, length");
          return NULL;
        }
      turn->finish = (OwMsFinish) i;
    }

  if ((member = get_object (object, "usage", where, &ok, error)) != NULL)
    ok = compile_usage (turn, member, where, error);
  if (ok && (member = get_object (object, "error", where, &ok, error)) != NULL)
    ok = compile_error (turn, member, where, error);
  if (ok && (member = get_object (object, "raw", where, &ok, error)) != NULL)
    ok = compile_raw (turn, member, where, error);
  if (ok && (member = get_object (object, "expect", where, &ok, error)) != NULL)
    ok = compile_expect (turn, member, where, error);
  if (!ok)
    return NULL;

  if (turn->has_raw && turn->error != NULL)
    {
      fail (error, where, "give \"raw\" or \"error\", not both");
      return NULL;
    }

  turn->has_n = contains_n (node);
  if (turn->has_n)
    turn->source = json_node_copy (node);
  return g_steal_pointer (&turn);
}

/* ---- "{n}" --------------------------------------------------------------- */

static JsonNode *
substitute (JsonNode   *node,
            const char *n)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *in = json_node_get_object (node);
      JsonObject *out = json_object_new ();
      g_autoptr(GList) members = json_object_get_members (in);

      for (GList *l = members; l != NULL; l = l->next)
        json_object_set_member (out, l->data, substitute (json_object_get_member (in, l->data), n));
      return json_node_init_object (json_node_alloc (), out);
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *in = json_node_get_array (node);
      JsonArray *out = json_array_sized_new (json_array_get_length (in));

      for (guint i = 0; i < json_array_get_length (in); i++)
        json_array_add_element (out, substitute (json_array_get_element (in, i), n));
      return json_node_init_array (json_node_alloc (), out);
    }
  if (is_string (node) && strstr (json_node_get_string (node), "{n}") != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (json_node_get_string (node), "{n}", -1);
      g_autofree char *joined = g_strjoinv (n, parts);

      return json_node_init_string (json_node_alloc (), joined);
    }
  return json_node_copy (node);
}

/* The turn for its @n-th serving (1-based), "{n}" replaced. The source was
 * valid and substitution only changes strings, so compiling cannot fail. */
OwMsTurn *
ow_ms_turn_instantiate (OwMsTurn *turn,
                        guint     n)
{
  g_autofree char *number = g_strdup_printf ("%u", n);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  OwMsTurn *copy;

  g_return_val_if_fail (turn->has_n, NULL);
  node = substitute (turn->source, number);
  copy = compile_turn (node, "turn", &error);
  g_assert_no_error (error);
  return copy;
}

/* ---- Scripts ------------------------------------------------------------- */

void
ow_ms_script_free (OwMsScript *script)
{
  if (script == NULL)
    return;
  g_strfreev (script->models);
  g_strfreev (script->keys);
  g_ptr_array_unref (script->turns);
  g_free (script);
}

OwMsScript *
ow_ms_script_compile (JsonNode  *root,
                      GError   **error)
{
  static const char *const keys[] = { "style", "models", "keys", "turns", "comment", NULL };
  g_autoptr(OwMsScript) script = g_new0 (OwMsScript, 1);
  g_autoptr(GStrvBuilder) models = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) api_keys = g_strv_builder_new ();
  g_autofree char *style = NULL;
  JsonObject *object;
  JsonNode *node;

  script->turns = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_ms_turn_free);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      fail (error, "top level", "the script must be a JSON object");
      return NULL;
    }
  object = json_node_get_object (root);
  if (!check_keys (object, "top level", keys, error)
      || !get_string (object, "style", "top level", &style, error))
    return NULL;

  if (style != NULL)
    {
      if (!ow_ms_style_from_name (style, &script->style))
        {
          g_autofree char *list = g_strjoinv (", ", (char **) style_names);
          fail (error, "style", "unknown style \"%s\" (known: %s)", style, list);
          return NULL;
        }
      script->has_style = TRUE;
    }

  node = json_object_get_member (object, "models");
  if (node != NULL)
    {
      JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

      for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
        {
          if (!is_string (json_array_get_element (array, i)))
            {
              array = NULL;
              break;
            }
          g_strv_builder_add (models, json_array_get_string_element (array, i));
        }
      if (array == NULL)
        {
          fail (error, "models", "must be an array of model names");
          return NULL;
        }
    }
  script->models = g_strv_builder_end (models);

  node = json_object_get_member (object, "keys");
  if (node != NULL)
    {
      JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

      for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
        {
          if (!is_string (json_array_get_element (array, i)))
            {
              array = NULL;
              break;
            }
          g_strv_builder_add (api_keys, json_array_get_string_element (array, i));
        }
      if (array == NULL)
        {
          fail (error, "keys", "must be an array of API keys");
          return NULL;
        }
    }
  script->keys = g_strv_builder_end (api_keys);

  node = json_object_get_member (object, "turns");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      fail (error, "turns", "an array of turns is required");
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
    {
      g_autofree char *where = g_strdup_printf ("turns[%u]", i);
      OwMsTurn *turn = compile_turn (json_array_get_element (json_node_get_array (node), i),
                                     where, error);

      if (turn == NULL)
        return NULL;
      g_ptr_array_add (script->turns, turn);
    }
  return g_steal_pointer (&script);
}
