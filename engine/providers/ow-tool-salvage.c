/* ow-tool-salvage.c: tool calls a model wrote as text, made real.
 *
 * Local models served without a tool-call parser (llama.cpp without
 * --jinja, vLLM without --tool-call-parser, an Ollama template that does
 * not know the model) answer a tool request with the call written into
 * the reply text, in the shape the model was trained on. Nothing runs and
 * the turn ends as if the model had answered. This file reads the shapes
 * seen in the wild back into calls:
 *
 *  - Hermes / Qwen: <tool_call>{"name": …, "arguments": {…}}</tool_call>,
 *    one or several (a missing closing tag at the very end is tolerated:
 *    the stream stopped at the stop token);
 *  - Qwen3-Coder XML: <function=NAME><parameter=KEY>VALUE</parameter>…
 *    </function>, bare or inside <tool_call>; each VALUE is text, read as
 *    JSON only where the tool's schema says the parameter is not a string;
 *  - a bare JSON object {"name": …, "arguments": …} as the whole reply
 *    (Llama 3's JSON tool format), also with "parameters" for "arguments";
 *  - the shorthand `tool {…}` / `tool: {…}` (the same object after the
 *    word) and `NAME {…}` (an offered tool's name, then its arguments), as
 *    the whole reply.
 *
 * Two rules keep this from running what the model did not mean to run:
 *
 *  - Only tools offered in that very request. A name that is not offered
 *    stays text: salvaging it would only turn prose into an "unknown tool"
 *    error, and a model quoting some other system's format is not calling.
 *  - Never inside code. A fenced block (``` or ~~~) or an inline `code`
 *    span is where a model shows an example ("to call it, write
 *    <tool_call>…"), so a candidate that starts inside one is left alone,
 *    and a whole reply that is one fenced JSON block is not a bare-object
 *    call either. A model that really calls writes the markup as prose; the
 *    trained formats never fence it.
 *
 * What was salvaged is cut out of the text; whatever prose remains stays
 * the reply's text. Arguments are handed on as JSON text for the engine's
 * usual checks, like a wire's own call.
 */
#define G_LOG_DOMAIN "ow-provider"

#include "providers/ow-tool-salvage.h"

#include <string.h>

#include "ow-json.h"

typedef struct {
  gsize start;
  gsize end;   /* one past the last byte */
} Span;

/* ---- Code regions ------------------------------------------------------- */

/* The length of a fence (3+ backticks or tildes after at most 3 spaces)
 * opening the line at @p, or 0. */
static gsize
fence_at (const char *p,
          char       *fence_char)
{
  gsize indent = 0, n = 0;

  while (p[indent] == ' ' && indent < 3)
    indent++;
  if (p[indent] != '`' && p[indent] != '~')
    return 0;
  while (p[indent + n] == p[indent])
    n++;
  if (n < 3)
    return 0;
  *fence_char = p[indent];
  return n;
}

/* Fenced blocks and inline code spans of @text, in order. */
static GArray *
code_spans (const char *text)
{
  GArray *spans = g_array_new (FALSE, FALSE, sizeof (Span));
  gsize len = strlen (text);
  gsize i = 0;
  gboolean line_start = TRUE;

  while (i < len)
    {
      char fence_char = 0;
      gsize fence = line_start ? fence_at (text + i, &fence_char) : 0;

      if (fence > 0)
        {
          /* To the closing fence of at least the same length, or the end. */
          Span span = { i, len };
          const char *nl = strchr (text + i, '\n');

          while (nl != NULL)
            {
              char c = 0;
              gsize close = fence_at (nl + 1, &c);

              if (close >= fence && c == fence_char)
                {
                  const char *end = strchr (nl + 1, '\n');
                  span.end = end != NULL ? (gsize) (end - text) : len;
                  break;
                }
              nl = strchr (nl + 1, '\n');
            }
          g_array_append_val (spans, span);
          i = span.end;
          line_start = FALSE;
          continue;
        }
      if (text[i] == '`')
        {
          gsize run = 0, j;

          while (text[i + run] == '`')
            run++;
          /* The closing run of the same length; unclosed is no span. */
          for (j = i + run; j < len; j++)
            {
              gsize r = 0;

              if (text[j] != '`')
                continue;
              while (text[j + r] == '`')
                r++;
              if (r == run)
                break;
              j += r - 1;
            }
          if (j < len)
            {
              Span span = { i, j + run };
              g_array_append_val (spans, span);
              i = j + run;
            }
          else
            i += run;
          line_start = FALSE;
          continue;
        }
      line_start = text[i] == '\n';
      i++;
    }
  return spans;
}

static gboolean
in_spans (GArray *spans,
          gsize   pos)
{
  for (guint i = 0; i < spans->len; i++)
    {
      Span *s = &g_array_index (spans, Span, i);
      if (pos >= s->start && pos < s->end)
        return TRUE;
    }
  return FALSE;
}

/* ---- Offered tools ------------------------------------------------------ */

static JsonObject *
offered_function (JsonArray  *tools,
                  const char *name,
                  gsize       name_len)
{
  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    {
      JsonNode *node = json_array_get_element (tools, i);
      JsonObject *function;
      const char *offered;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      function = ow_json_get_object (json_node_get_object (node), "function");
      offered = function != NULL ? ow_json_get_string (function, "name") : NULL;
      if (offered != NULL && strlen (offered) == name_len && strncmp (offered, name, name_len) == 0)
        return function;
    }
  return NULL;
}

/* The JSON Schema type of parameter @key of @function, or NULL. */
static const char *
parameter_type (JsonObject *function,
                const char *key)
{
  JsonObject *params = ow_json_get_object (function, "parameters");
  JsonObject *props = params != NULL ? ow_json_get_object (params, "properties") : NULL;
  JsonObject *prop = props != NULL ? ow_json_get_object (props, key) : NULL;

  return prop != NULL ? ow_json_get_string (prop, "type") : NULL;
}

/* ---- The call shapes ---------------------------------------------------- */

/* {"name": …, "arguments"|"parameters": {…} or "…"} → a call of an offered
 * tool, or NULL. With @strict (a bare object as the whole reply), nothing
 * else may be in the object but an id and a type, so a JSON answer that
 * happens to have a "name" is not taken for a call. */
static OwToolCall *
call_from_object (const char *json,
                  gsize       len,
                  JsonArray  *tools,
                  gboolean    strict)
{
  g_autoptr(JsonNode) root = ow_json_parse (json, (gssize) len, NULL);
  JsonObject *obj, *inner;
  const char *name;
  JsonNode *args;
  g_autofree char *args_text = NULL;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  obj = json_node_get_object (root);
  /* {"function": {"name", "arguments"}} as some templates nest it. */
  inner = ow_json_get_object (obj, "function");
  if (inner != NULL && ow_json_get_string (obj, "name") == NULL)
    obj = inner;
  name = ow_json_get_string (obj, "name");
  if (name == NULL || offered_function (tools, name, strlen (name)) == NULL)
    return NULL;
  args = json_object_get_member (obj, "arguments");
  if (args == NULL)
    args = json_object_get_member (obj, "parameters");
  if (strict)
    {
      g_autoptr(GList) members = json_object_get_members (obj);

      if (args == NULL)
        return NULL;
      for (GList *l = members; l != NULL; l = l->next)
        if (!g_str_equal (l->data, "name") && !g_str_equal (l->data, "arguments")
            && !g_str_equal (l->data, "parameters") && !g_str_equal (l->data, "id")
            && !g_str_equal (l->data, "type"))
          return NULL;
    }
  if (args == NULL || JSON_NODE_HOLDS_NULL (args))
    args_text = g_strdup ("{}");
  else if (JSON_NODE_HOLDS_OBJECT (args))
    args_text = ow_json_to_string (args);
  else if (JSON_NODE_HOLDS_VALUE (args) && json_node_get_value_type (args) == G_TYPE_STRING)
    {
      /* Arguments as JSON text, as the Chat wire spells them. */
      g_autoptr(JsonNode) parsed = ow_json_parse (json_node_get_string (args), -1, NULL);
      if (parsed == NULL || !JSON_NODE_HOLDS_OBJECT (parsed))
        return NULL;
      args_text = g_strdup (json_node_get_string (args));
    }
  else
    return NULL;
  return ow_tool_call_new (NULL, name, args_text);
}

/* <function=NAME><parameter=KEY>VALUE</parameter>…</function> starting at
 * @p (which points at "<function="); *@end receives one past its end. */
static OwToolCall *
call_from_xml (const char  *p,
               const char  *limit,
               JsonArray   *tools,
               const char **end)
{
  const char *name = p + strlen ("<function=");
  const char *gt = memchr (name, '>', limit - name);
  const char *close;
  const char *q;
  JsonObject *function;
  g_autoptr(JsonObject) args = NULL;
  g_autofree char *args_text = NULL;

  if (gt == NULL || gt == name)
    return NULL;
  function = offered_function (tools, name, gt - name);
  if (function == NULL)
    return NULL;
  close = g_strstr_len (gt, limit - gt, "</function>");
  if (close == NULL)
    return NULL;

  args = json_object_new ();
  q = gt + 1;
  for (;;)
    {
      const char *open = g_strstr_len (q, close - q, "<parameter=");
      const char *key, *key_end, *value, *value_end, *value_close;
      g_autofree char *key_text = NULL;
      g_autofree char *value_text = NULL;
      const char *type;

      if (open == NULL)
        break;
      key = open + strlen ("<parameter=");
      key_end = memchr (key, '>', close - key);
      if (key_end == NULL || key_end == key)
        return NULL;
      value = key_end + 1;
      value_close = g_strstr_len (value, close - value, "</parameter>");
      if (value_close == NULL)
        return NULL;
      q = value_close + strlen ("</parameter>");
      /* The trained format puts the value on its own lines. */
      value_end = value_close;
      if (value < value_end && *value == '\n')
        value++;
      if (value_end > value && value_end[-1] == '\n')
        value_end--;
      key_text = g_strndup (key, key_end - key);
      value_text = g_strndup (value, value_end - value);
      type = parameter_type (function, key_text);
      if (type != NULL && !g_str_equal (type, "string"))
        {
          g_autofree char *stripped = g_strstrip (g_strdup (value_text));
          JsonNode *parsed = ow_json_parse (stripped, -1, NULL);

          if (parsed != NULL)
            {
              json_object_set_member (args, key_text, parsed);
              continue;
            }
        }
      json_object_set_string_member (args, key_text, value_text);
    }
  *end = close + strlen ("</function>");
  args_text = ow_json_object_to_string (args);
  return ow_tool_call_new (NULL, ow_json_get_string (function, "name"), args_text);
}

/* The whole reply as one call: a bare object, `tool {…}`, or `NAME {…}`. */
static OwToolCall *
whole_reply_call (const char *text,
                  JsonArray  *tools)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  const char *p = trimmed;
  const char *brace;

  if (*p == '{')
    return call_from_object (p, strlen (p), tools, TRUE);
  brace = strchr (p, '{');
  if (brace == NULL || p[strlen (p) - 1] != '}')
    return NULL;
  {
    g_autofree char *word = g_strstrip (g_strndup (p, brace - p));
    gsize n = strlen (word);

    if (n > 0 && word[n - 1] == ':')
      word[--n] = '\0';
    g_strchomp (word);
    n = strlen (word);
    if (g_str_equal (word, "tool") || g_str_equal (word, "tool_call") || g_str_equal (word, "function"))
      return call_from_object (brace, strlen (brace), tools, TRUE);
    if (n > 0 && strpbrk (word, " \t\n") == NULL && offered_function (tools, word, n) != NULL)
      {
        g_autoptr(JsonNode) root = ow_json_parse (brace, -1, NULL);
        if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
          return ow_tool_call_new (NULL, word, brace);
      }
  }
  return NULL;
}

/**
 * ow_tool_salvage:
 * @text: a reply's text, in which the model wrote no real tool call
 * @tools: (nullable): the request's tools (OpenAI function schemas)
 * @rest: (out) (optional): the text with the salvaged calls cut out
 *
 * Returns: (transfer full) (nullable): the #OwToolCall s found, in order,
 *   or %NULL when there are none (then @rest is not set).
 */
GPtrArray *
ow_tool_salvage (const char  *text,
                 JsonArray   *tools,
                 char       **rest)
{
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GArray) code = NULL;
  g_autoptr(GString) left = NULL;
  g_autofree char *valid = NULL;
  const char *limit, *p, *copied;
  OwToolCall *whole;

  if (text == NULL || tools == NULL || json_array_get_length (tools) == 0)
    return NULL;
  /* Arguments built from the text must be JSON, which is UTF-8 (the fuzz
   * target found a stray byte inside a parameter value). */
  if (!g_utf8_validate (text, -1, NULL))
    text = valid = g_utf8_make_valid (text, -1);

  calls = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_tool_call_free);
  code = code_spans (text);
  left = g_string_new (NULL);
  limit = text + strlen (text);
  copied = text;

  for (p = text; p < limit; p++)
    {
      const char *end = NULL;
      OwToolCall *call = NULL;

      if (*p != '<' || in_spans (code, p - text))
        continue;
      if (g_str_has_prefix (p, "<tool_call>"))
        {
          const char *body = p + strlen ("<tool_call>");
          const char *close = strstr (body, "</tool_call>");
          const char *body_end = close != NULL ? close : limit;
          const char *b = body;

          while (b < body_end && g_ascii_isspace (*b))
            b++;
          if (b < body_end && *b == '{')
            call = call_from_object (b, body_end - b, tools, FALSE);
          else if (g_str_has_prefix (b, "<function="))
            {
              const char *xml_end = NULL;
              call = call_from_xml (b, body_end, tools, &xml_end);
            }
          end = close != NULL ? close + strlen ("</tool_call>") : limit;
        }
      else if (g_str_has_prefix (p, "<function="))
        call = call_from_xml (p, limit, tools, &end);

      if (call == NULL)
        continue;
      g_string_append_len (left, copied, p - copied);
      g_ptr_array_add (calls, call);
      copied = end;
      p = end - 1;
    }

  if (calls->len == 0 && (whole = whole_reply_call (text, tools)) != NULL)
    {
      g_ptr_array_add (calls, whole);
      copied = limit;
    }
  if (calls->len == 0)
    return NULL;
  g_string_append (left, copied);
  if (rest != NULL)
    *rest = g_strstrip (g_string_free (g_steal_pointer (&left), FALSE));
  return g_steal_pointer (&calls);
}
