/* test-goldens.c: every wire style's whole request, against golden files.
 *
 * The other provider tests check single members by JSON path; these pin
 * the whole request each style builds from two histories — the URL, the
 * headers and the complete body — so a change to how a history is walked
 * shows as a difference anywhere in the request, not only where a test
 * happened to look.
 *
 * The rich history holds what the engine stores and sends: two leading
 * system messages, a compaction summary followed by a second user message,
 * a user message with text, images (data and remote) and attachments (PDF,
 * text, an unsupported kind), an assistant turn with text, reasoning, three
 * tool calls (string, mangled and object arguments) and all three
 * sidecars, their results (text, an error object, content parts), a result
 * whose call is no longer in the history, a notice, a system message past
 * the start, a tool-only assistant turn with an error result, an assistant
 * turn whose content is parts, and the person's last word. The trimmed
 * history starts, after the system prompt, with the assistant (what
 * trimming leaves).
 *
 * A golden file is "POST <url>", one "Name: value" line per header, a blank
 * line, and the body as it was built, pretty-printed with members in the
 * order they are sent. Run with OW_UPDATE_GOLDEN=1 to rewrite the files.
 */
#include "provider-test-util.h"

#include <string.h>

static const char *golden_dir;

static const char *const rich_history_json =
  "["
  "{\"role\":\"system\",\"content\":\"You are OpenWorker.\"},"
  "{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"Work in /home/ana/project.\"}]},"
  "{\"role\":\"user\",\"content\":\"<compacted-history>\\nEarlier turns were compacted.\\n\\n"
  "We read the README.\\n</compacted-history>\",\"ts\":1760000000.0},"
  "{\"role\":\"user\",\"content\":\"Read notes.txt, check git and look at the chart.\",\"ts\":1760000000.5,"
  " \"source\":{\"kind\":\"slack\",\"channel\":\"C1\"},\"_display\":\"/read\"},"
  "{\"role\":\"user\",\"content\":["
  "  {\"type\":\"text\",\"text\":\"Here is the chart\"},"
  "  {\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBORw0KGgo=\"}},"
  "  {\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.com/plot.png\"}},"
  "  {\"type\":\"file\",\"file\":{\"filename\":\"spec.pdf\",\"file_data\":\"data:application/pdf;base64,JVBERi0xLjQ=\"}},"
  "  {\"type\":\"file\",\"file\":{\"filename\":\"notes.txt\",\"file_data\":\"data:text/plain;base64,aGVsbG8K\"}},"
  "  {\"type\":\"file\",\"file\":{\"filename\":\"data.zip\",\"file_data\":\"data:application/zip;base64,UEsDBA==\"}},"
  "  {\"type\":\"text\",\"text\":\"\"},"
  "  {\"type\":\"text\",\"text\":\"and the notes\"}]},"
  "{\"role\":\"assistant\",\"content\":\"Reading all three.\",\"reasoning\":\"I should read the file.\","
  " \"usage\":{\"model\":\"m\",\"input\":1,\"output\":2},\"finish_reason\":\"tool_calls\",\"ts\":1760000001.0,"
  " \"tool_calls\":["
  "  {\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"notes.txt\\\"}\"}},"
  "  {\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"run_shell\",\"arguments\":\"{\\\"command\\\": \\\"ls\\\"\"}},"
  "  {\"id\":\"call_c\",\"type\":\"function\",\"function\":{\"name\":\"git_status\",\"arguments\":{}}}],"
  " \"_anthropic\":{\"blocks\":[{\"type\":\"thinking\",\"thinking\":\"I should read the file.\",\"signature\":\"SIG-ANTHROPIC\"},"
  "                              {\"type\":\"redacted_thinking\",\"data\":\"REDACTED-DATA\"},"
  "                              {\"type\":\"text\",\"text\":\"Reading all three.\"}]},"
  " \"_gemini\":{\"text_sig\":\"SIG-GEMINI-TEXT\",\"call_sigs\":{\"call_a\":\"SIG-GEMINI-A\",\"call_c\":\"SIG-GEMINI-C\"}},"
  " \"_openai\":{\"items\":["
  "   {\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"Reading.\"}],\"encrypted_content\":\"ENC-OPENAI\"},"
  "   {\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_a\",\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"notes.txt\\\"}\",\"status\":\"completed\"}]}},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_a\",\"content\":\"hello from notes\",\"ts\":1760000002.0},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_b\",\"content\":\"{\\\"error\\\":\\\"tool call not executed\\\",\\\"reason\\\":\\\"bad args\\\"}\"},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_c\",\"content\":[{\"type\":\"text\",\"text\":\"On branch main\"},"
  "                                                  {\"type\":\"text\",\"text\":\"nothing to commit\"}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_gone\",\"content\":\"a result whose call was compacted away\"},"
  "{\"role\":\"notice\",\"kind\":\"model_switch\",\"text\":\"Switched to another model.\",\"ts\":1760000003.0},"
  "{\"role\":\"system\",\"content\":\"The folder list changed.\"},"
  "{\"role\":\"user\",\"content\":\"Now fix the failing test.\"},"
  "{\"role\":\"assistant\",\"content\":null,"
  " \"tool_calls\":["
  "  {\"id\":\"call_d\",\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":\"{\\\"path\\\":\\\"t.c\\\",\\\"text\\\":\\\"int x;\\\"}\"}}],"
  " \"_gemini\":{\"native_ids\":true,\"call_sigs\":{\"call_d\":\"SIG-GEMINI-D\"}}},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_d\",\"content\":\"Error: permission denied (t.c is read-only)\"},"
  "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"I could not write t.c.\"},"
  "                                     {\"type\":\"text\",\"text\":\"It is read-only.\"}],"
  " \"reasoning\":\"The file is read-only.\","
  " \"_openai\":{\"items\":[{\"type\":\"reasoning\",\"id\":\"rs_2\",\"summary\":[],\"encrypted_content\":\"ENC-2\"}]}},"
  "{\"role\":\"user\",\"content\":\"Try again in /tmp.\"}"
  "]";

static const char *const trimmed_history_json =
  "["
  "{\"role\":\"system\",\"content\":\"You are OpenWorker.\"},"
  "{\"role\":\"assistant\",\"content\":\"Listing.\","
  " \"tool_calls\":[{\"id\":\"call_x\",\"type\":\"function\",\"function\":{\"name\":\"list_files\",\"arguments\":\"{}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_x\",\"content\":\"a.c\\nb.c\"},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_y\",\"content\":\"an orphan\"},"
  "{\"role\":\"user\",\"content\":\"Go on.\"}"
  "]";

static JsonArray *
parse_history (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = ow_json_parse (text, -1, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_array_ref (json_node_get_array (node));
}

/* The request as the golden files hold it. */
static char *
render_request (OwProviderCall *call)
{
  GPtrArray *headers = ow_provider_call_get_headers (call);
  g_autofree char *body = json_to_string (ow_provider_call_get_body (call), TRUE);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "POST %s\n", ow_provider_call_get_url (call));
  for (guint i = 0; i < headers->len; i++)
    g_string_append_printf (out, "%s\n", (const char *) g_ptr_array_index (headers, i));
  g_string_append_printf (out, "\n%s\n", body);
  return g_string_free (out, FALSE);
}

static void
check_golden (const char     *name,
              OwProviderCall *call)
{
  g_autofree char *path = g_strdup_printf ("%s/%s.http", golden_dir, name);
  g_autofree char *text = render_request (call);
  g_autofree char *want = NULL;
  g_autoptr(GError) error = NULL;

  if (g_getenv ("OW_UPDATE_GOLDEN") != NULL)
    {
      g_file_set_contents (path, text, -1, &error);
      g_assert_no_error (error);
      return;
    }
  g_file_get_contents (path, &want, NULL, &error);
  g_assert_no_error (error);
  if (strcmp (want, text) != 0)
    {
      g_printerr ("---- built %s ----\n%s---- end ----\n", name, text);
      g_error ("the %s request differs from %s (OW_UPDATE_GOLDEN=1 rewrites it)", name, path);
    }
}

typedef struct {
  const char  *name;         /* the golden files' prefix */
  OwWireStyle  style;
  const char  *base_url;
  const char  *quirks;       /* JSON text, or NULL */
  const char  *model;
} Style;

static const Style styles[] = {
  { "openai-chat", OW_WIRE_OPENAI_CHAT, "https://api.deepseek.com/v1",
    "{\"prompt_cache_key\":true}", "deepseek-chat" },
  { "openai-responses", OW_WIRE_OPENAI_RESPONSES, "https://api.openai.com/v1",
    "{\"prompt_cache_key\":true}", "gpt-5" },
  { "anthropic", OW_WIRE_ANTHROPIC, "https://api.anthropic.com", NULL, "claude-sonnet-4-5" },
  { "gemini", OW_WIRE_GEMINI, "https://generativelanguage.googleapis.com/v1beta", NULL,
    "gemini-3-pro-preview" },
  { "ollama", OW_WIRE_OLLAMA, "http://localhost:11434", NULL, "qwen3:8b" },
};

/* The rich history with every setting a style reads. */
static void
test_rich (gconstpointer data)
{
  const Style *style = data;
  g_autoptr(JsonArray) history = parse_history (rich_history_json);
  g_autoptr(JsonArray) tools = tp_tools ();
  g_autoptr(OwProvider) provider = tp_provider_new (style->style, style->base_url, "sk-golden",
                                                    style->quirks);
  g_autofree char *name = g_strdup_printf ("%s-rich", style->name);
  OwModelRequest req;
  OwProviderCall *call;

  tp_request_init (&req, style->model, history, tools);
  req.max_output_tokens = 4000;
  req.reasoning_effort = "high";
  req.temperature = 0.5;
  req.top_p = 0.25;
  req.context_size = 65536;
  req.cache_key = "session-1";
  call = tp_build (provider, &req);
  check_golden (name, call);
  ow_provider_call_free (call);
}

/* The trimmed history, no tools, not streamed, nothing else set. */
static void
test_trimmed (gconstpointer data)
{
  const Style *style = data;
  g_autoptr(JsonArray) history = parse_history (trimmed_history_json);
  g_autoptr(OwProvider) provider = tp_provider_new (style->style, style->base_url, NULL,
                                                    style->quirks);
  g_autofree char *name = g_strdup_printf ("%s-trimmed", style->name);
  OwModelRequest req;
  OwProviderCall *call;

  tp_request_init (&req, style->model, history, NULL);
  req.stream = FALSE;
  call = tp_build (provider, &req);
  check_golden (name, call);
  ow_provider_call_free (call);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  if (argc < 2)
    {
      g_printerr ("usage: %s GOLDEN_DIR\n", argv[0]);
      return 2;
    }
  golden_dir = argv[1];

  for (gsize i = 0; i < G_N_ELEMENTS (styles); i++)
    {
      g_autofree char *rich = g_strdup_printf ("/ow/providers/goldens/%s/rich", styles[i].name);
      g_autofree char *trimmed = g_strdup_printf ("/ow/providers/goldens/%s/trimmed",
                                                  styles[i].name);

      g_test_add_data_func (rich, &styles[i], test_rich);
      g_test_add_data_func (trimmed, &styles[i], test_trimmed);
    }
  return g_test_run ();
}
