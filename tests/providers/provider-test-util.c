/* provider-test-util.c: shared fixtures of the provider tests (see the header). */
#include "provider-test-util.h"

#include <string.h>

const char *const tp_history_json =
  "["
  "{\"role\":\"system\",\"content\":\"You are OpenWorker.\"},"
  "{\"role\":\"user\",\"content\":\"Read notes.txt and list the folder.\",\"ts\":1760000000.5,"
  " \"source\":{\"kind\":\"slack\",\"channel\":\"C1\"},\"_display\":\"/read\"},"
  "{\"role\":\"user\",\"content\":["
  "  {\"type\":\"text\",\"text\":\"Here is the chart\"},"
  "  {\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBORw0KGgo=\"}},"
  "  {\"type\":\"file\",\"file\":{\"filename\":\"spec.pdf\",\"file_data\":\"data:application/pdf;base64,JVBERi0xLjQ=\"}}]},"
  "{\"role\":\"assistant\",\"content\":\"Reading both.\",\"reasoning\":\"I should read the file.\","
  " \"usage\":{\"model\":\"m\",\"input\":1,\"output\":2},\"ts\":1760000001.0,"
  " \"tool_calls\":["
  "  {\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"notes.txt\\\"}\"}},"
  "  {\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"run_shell\",\"arguments\":\"{\\\"command\\\": \\\"ls\\\"\"}}],"
  " \"_anthropic\":{\"blocks\":[{\"type\":\"thinking\",\"thinking\":\"I should read the file.\",\"signature\":\"SIG-ANTHROPIC\"},"
  "                              {\"type\":\"redacted_thinking\",\"data\":\"REDACTED-DATA\"}]},"
  " \"_gemini\":{\"text_sig\":\"SIG-GEMINI-TEXT\",\"call_sigs\":{\"call_a\":\"SIG-GEMINI-CALL\"}},"
  " \"_openai\":{\"items\":["
  "   {\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"Reading.\"}],\"encrypted_content\":\"ENC-OPENAI\"},"
  "   {\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_a\",\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"notes.txt\\\"}\",\"status\":\"completed\"}]}},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_a\",\"content\":\"hello from notes\",\"ts\":1760000002.0},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_b\",\"content\":\"{\\\"error\\\":\\\"tool call not executed\\\",\\\"reason\\\":\\\"bad args\\\"}\"},"
  "{\"role\":\"notice\",\"kind\":\"error\",\"text\":\"boom\",\"ts\":1760000003.0},"
  "{\"role\":\"user\",\"content\":\"Now summarize.\"}"
  "]";

static const char *const tools_json =
  "["
  "{\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"description\":\"Read a file\","
  " \"parameters\":{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
  "   \"properties\":{\"path\":{\"type\":\"string\",\"format\":\"uri\",\"description\":\"Where\"},"
  "                   \"mode\":{\"type\":[\"string\",\"null\"],\"enum\":[\"text\",\"bytes\"]},"
  "                   \"extra\":{\"type\":\"object\",\"additionalProperties\":true}},"
  "   \"required\":[\"path\",\"ghost\"],\"additionalProperties\":false}}},"
  "{\"type\":\"function\",\"function\":{\"name\":\"run_shell\",\"description\":\"Run a command\","
  " \"parameters\":{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}},\"required\":[\"command\"]}}},"
  "{\"type\":\"function\",\"function\":{\"name\":\"git_status\",\"description\":\"Status\","
  " \"parameters\":{\"type\":\"object\",\"properties\":{}}}}"
  "]";

static JsonArray *
parse_array (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = ow_json_parse (text, -1, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_array_ref (json_node_get_array (node));
}

JsonArray *
tp_history (void)
{
  return parse_array (tp_history_json);
}

JsonArray *
tp_tools (void)
{
  return parse_array (tools_json);
}

OwProvider *
tp_provider_new (OwWireStyle style,
                 const char *base_url,
                 const char *key,
                 const char *quirks_json)
{
  g_autoptr(JsonNode) quirks = NULL;
  OwProviderConfig config = { 0 };

  if (quirks_json != NULL)
    {
      quirks = ow_json_parse (quirks_json, -1, NULL);
      g_assert_nonnull (quirks);
    }
  config.id = "test";
  config.title = "Test Provider";
  config.base_url = base_url;
  config.api_key = key;
  config.key_env = "TEST_API_KEY";
  config.quirks = quirks != NULL ? json_node_get_object (quirks) : NULL;
  return ow_provider_new (style, &config, NULL);
}

void
tp_request_init (OwModelRequest *req,
                 const char     *model,
                 JsonArray      *messages,
                 JsonArray      *tools)
{
  ow_model_request_init (req);
  req->model = model;
  req->messages = messages;
  req->tools = tools;
}

OwProviderCall *
tp_build (OwProvider           *provider,
          const OwModelRequest *req)
{
  g_autoptr(GError) error = NULL;
  OwProviderCall *call = ow_provider_call_new (provider, req, NULL, NULL);
  g_autoptr(OwHttpRequest) http = ow_provider_call_build (call, &error);

  g_assert_no_error (error);
  g_assert_nonnull (http);
  g_assert_nonnull (ow_provider_call_get_body (call));
  return call;
}

JsonNode *
tp_path (JsonNode   *root,
         const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) matches = NULL;
  JsonArray *array;
  static GHashTable *keep;

  matches = json_path_query (path, root, &error);
  g_assert_no_error (error);
  array = json_node_get_array (matches);
  if (json_array_get_length (array) == 0)
    return NULL;
  /* The match stays valid while the test runs. */
  if (keep == NULL)
    keep = g_hash_table_new_full (g_direct_hash, g_direct_equal, (GDestroyNotify) json_node_unref,
                                  NULL);
  {
    JsonNode *first = json_node_copy (json_array_get_element (array, 0));
    g_hash_table_add (keep, first);
    return first;
  }
}

char *
tp_path_string (JsonNode   *root,
                const char *path)
{
  JsonNode *node = tp_path (root, path);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return g_strdup (json_node_get_string (node));
}

gint64
tp_path_int (JsonNode   *root,
             const char *path)
{
  JsonNode *node = tp_path (root, path);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  return json_node_get_int (node);
}

guint
tp_path_length (JsonNode   *root,
                const char *path)
{
  JsonNode *node = tp_path (root, path);

  if (node == NULL)
    return 0;
  if (JSON_NODE_HOLDS_ARRAY (node))
    return json_array_get_length (json_node_get_array (node));
  if (JSON_NODE_HOLDS_OBJECT (node))
    return json_object_get_size (json_node_get_object (node));
  return 0;
}

gboolean
tp_path_exists (JsonNode   *root,
                const char *path)
{
  return tp_path (root, path) != NULL;
}

char *
tp_to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

void
tp_deltas_init (TpDeltas *deltas)
{
  deltas->text = g_string_new (NULL);
  deltas->reasoning = g_string_new (NULL);
  deltas->order = g_string_new (NULL);
  deltas->n = 0;
}

void
tp_deltas_clear (TpDeltas *deltas)
{
  g_string_free (deltas->text, TRUE);
  g_string_free (deltas->reasoning, TRUE);
  g_string_free (deltas->order, TRUE);
}

void
tp_on_delta (OwDeltaKind  kind,
             const char  *text,
             gsize        len,
             gpointer     user_data)
{
  TpDeltas *deltas = user_data;
  char letter = kind == OW_DELTA_TEXT ? 'T' : 'R';

  g_assert_cmpuint (len, >, 0);
  g_string_append_len (kind == OW_DELTA_TEXT ? deltas->text : deltas->reasoning, text,
                       (gssize) len);
  if (deltas->order->len == 0 || deltas->order->str[deltas->order->len - 1] != letter)
    g_string_append_c (deltas->order, letter);
  deltas->n++;
}

OwTurn *
tp_stream (OwProvider           *provider,
           const OwModelRequest *req,
           const char           *wire,
           gsize                 split,
           guint32               seed,
           TpDeltas             *deltas,
           OwTurn              **partial,
           GError              **error)
{
  OwProviderCall *call = ow_provider_call_new (provider, req, deltas != NULL ? tp_on_delta : NULL,
                                               deltas);
  gsize len = strlen (wire);
  gsize pos = 0;
  GRand *rand = g_rand_new_with_seed (seed);
  OwTurn *turn;

  while (pos < len)
    {
      gsize n;

      if (split == 0)
        n = len;
      else if (split == G_MAXSIZE)
        n = (gsize) g_rand_int_range (rand, 1, 40);
      else
        n = split;
      n = MIN (n, len - pos);
      if (!ow_provider_call_feed (call, wire + pos, n, NULL))
        break;
      pos += n;
    }
  turn = ow_provider_call_finish_stream (call, partial, error);
  g_rand_free (rand);
  ow_provider_call_free (call);
  return turn;
}

void
tp_assert_turns_equal (OwTurn *a,
                       OwTurn *b)
{
  g_assert_cmpstr (a->text->str, ==, b->text->str);
  g_assert_cmpstr (a->reasoning->str, ==, b->reasoning->str);
  g_assert_cmpstr (a->finish_reason, ==, b->finish_reason);
  g_assert_cmpint (a->complete, ==, b->complete);
  g_assert_cmpint (a->has_usage, ==, b->has_usage);
  g_assert_cmpint (a->usage.input, ==, b->usage.input);
  g_assert_cmpint (a->usage.output, ==, b->usage.output);
  g_assert_cmpint (a->usage.cache_read, ==, b->usage.cache_read);
  g_assert_cmpint (a->usage.cache_write, ==, b->usage.cache_write);
  g_assert_cmpint (a->usage.reasoning, ==, b->usage.reasoning);
  g_assert_cmpstr (a->sidecar_key, ==, b->sidecar_key);
  g_assert_cmpstr (a->response_id, ==, b->response_id);
  g_assert_cmpstr (a->served_model, ==, b->served_model);
  g_assert_cmpuint (a->tool_calls->len, ==, b->tool_calls->len);
  for (guint i = 0; i < a->tool_calls->len; i++)
    {
      OwToolCall *ca = g_ptr_array_index (a->tool_calls, i);
      OwToolCall *cb = g_ptr_array_index (b->tool_calls, i);

      /* Synthesized ids differ between runs by design; real ones do not. */
      if (!g_str_has_prefix (ca->id, "call_") || !g_str_has_prefix (cb->id, "call_"))
        g_assert_cmpstr (ca->id, ==, cb->id);
      g_assert_cmpstr (ca->name, ==, cb->name);
      g_assert_cmpstr (ca->arguments, ==, cb->arguments);
    }
  if (a->sidecar != NULL || b->sidecar != NULL)
    {
      g_autofree char *sa = NULL;
      g_autofree char *sb = NULL;

      g_assert_nonnull (a->sidecar);
      g_assert_nonnull (b->sidecar);
      sa = tp_to_string (a->sidecar);
      sb = tp_to_string (b->sidecar);
      /* Gemini's sidecar keys calls by their (synthesized) id. */
      if (g_strcmp0 (a->sidecar_key, "_gemini") != 0)
        g_assert_cmpstr (sa, ==, sb);
    }
}

OwTurn *
tp_stream_all_splits (OwProvider           *provider,
                      const OwModelRequest *req,
                      const char           *wire,
                      TpDeltas             *deltas)
{
  static const gsize splits[] = { 1, 2, 3, 7, 64, G_MAXSIZE, G_MAXSIZE, G_MAXSIZE };
  g_autoptr(GError) error = NULL;
  OwTurn *whole;

  whole = tp_stream (provider, req, wire, 0, 0, deltas, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (whole);

  for (gsize i = 0; i < G_N_ELEMENTS (splits); i++)
    {
      TpDeltas again;
      g_autoptr(OwTurn) turn = NULL;

      tp_deltas_init (&again);
      turn = tp_stream (provider, req, wire, splits[i], (guint32) i + 1, &again, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (turn);
      tp_assert_turns_equal (whole, turn);
      if (deltas != NULL)
        {
          g_assert_cmpstr (again.text->str, ==, deltas->text->str);
          g_assert_cmpstr (again.reasoning->str, ==, deltas->reasoning->str);
          g_assert_cmpstr (again.order->str, ==, deltas->order->str);
        }
      tp_deltas_clear (&again);
    }
  return whole;
}

OwTurn *
tp_parse (OwProvider           *provider,
          const OwModelRequest *req,
          const char           *body,
          OwTurn              **partial,
          GError              **error)
{
  OwProviderCall *call = ow_provider_call_new (provider, req, NULL, NULL);
  OwTurn *turn = ow_provider_call_parse_body (call, body, strlen (body), partial, error);

  ow_provider_call_free (call);
  return turn;
}

/* Under AddressSanitizer: GLib 2.74's G_TEST_OPTION_ISOLATE_DIRS leaks the
 * strings it sets up for every test case (g_set_user_dirs), which would fail
 * every leak check for reasons outside this code. Those GLib allocations,
 * and only those, are suppressed; finding them needs the slow unwinder,
 * since Debian's GLib is built without frame pointers. */
const char *__asan_default_options (void);
const char *__lsan_default_suppressions (void);

const char *
__asan_default_options (void)
{
  return "fast_unwind_on_malloc=0";
}

const char *
__lsan_default_suppressions (void)
{
  return "leak:g_set_user_dirs\n";
}
