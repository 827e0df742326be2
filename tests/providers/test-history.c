/* test-history.c: the one walk over the canonical history.
 *
 * A recording visitor writes one line per callback, so each test states
 * the whole sequence a history yields: what is skipped, where the prompt
 * ends, how user content splits, the order of an assistant turn's pieces,
 * which call a result answers (the latest earlier one; none for an
 * orphan), later system messages as user text, and the fold that the
 * strict-alternation wires build on.
 */
#include "provider-test-util.h"

/* printf's %s of NULL is not portable. */
#define S(s) ((s) != NULL ? (s) : "(null)")

static const char *const kind_names[] = {
  [OW_HISTORY_SYSTEM] = "system",
  [OW_HISTORY_USER] = "user",
  [OW_HISTORY_ASSISTANT] = "assistant",
  [OW_HISTORY_TOOL] = "tool",
};

static void
rec_prompt (const char *text,
            gpointer    user_data)
{
  g_string_append_printf (user_data, "prompt [%s]\n", text);
}

static void
rec_message (const OwHistoryMessage *msg,
             gpointer                user_data)
{
  g_string_append_printf (user_data, "%s (%s) {\n", kind_names[msg->kind], msg->role);
}

static void
rec_message_end (const OwHistoryMessage *msg,
                 gpointer                user_data)
{
  g_string_append (user_data, "}\n");
}

static void
rec_system_text (const OwHistoryMessage *msg,
                 const char             *text,
                 gpointer                user_data)
{
  g_string_append_printf (user_data, "  text [%s]\n", text);
}

static void
rec_user_part (const OwHistoryMessage *msg,
               const OwHistoryPart    *part,
               gpointer                user_data)
{
  GString *out = user_data;

  switch (part->kind)
    {
    case OW_HISTORY_PART_TEXT:
      g_string_append_printf (out, "  %s [%s]\n", part->plain ? "plain" : "text", part->text);
      break;
    case OW_HISTORY_PART_IMAGE:
      g_string_append_printf (out, "  image %s mime=%s data=%s\n", S (part->url), S (part->mime),
                              S (part->data));
      break;
    case OW_HISTORY_PART_FILE:
      g_string_append_printf (out, "  file %s mime=%s data=%s\n", S (part->filename),
                              S (part->mime), S (part->data));
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
rec_reasoning (const OwHistoryMessage *msg,
               const char             *reasoning,
               gpointer                user_data)
{
  g_string_append_printf (user_data, "  reasoning [%s]\n", reasoning != NULL ? reasoning : "-");
}

static void
rec_assistant_text (const OwHistoryMessage *msg,
                    const char             *text,
                    gpointer                user_data)
{
  g_string_append_printf (user_data, "  text [%s]\n", text);
}

static void
rec_tool_call (const OwHistoryMessage  *msg,
               const OwHistoryToolCall *call,
               gpointer                 user_data)
{
  g_autofree char *args = call->arguments != NULL ? tp_to_string (call->arguments)
                                                  : g_strdup ("-");
  g_autoptr(JsonNode) object = ow_history_call_arguments (call);
  g_autofree char *as_object = tp_to_string (object);

  g_string_append_printf (user_data, "  call %s %s %s -> %s\n", call->id != NULL ? call->id : "-",
                          call->name, args, as_object);
}

static void
rec_tool_result (const OwHistoryMessage    *msg,
                 const OwHistoryToolResult *result,
                 gpointer                   user_data)
{
  const char *caller_text = result->caller != NULL
                            ? ow_json_get_string (result->caller, "content") : NULL;

  g_string_append_printf (user_data, "  result %s [%s] name=%s caller=%s\n",
                          result->call_id != NULL ? result->call_id : "-", result->text,
                          result->name != NULL ? result->name : "-",
                          caller_text != NULL ? caller_text : "-");
}

static OwHistoryVisitor
recorder (void)
{
  return (OwHistoryVisitor) {
    .message = rec_message,
    .message_end = rec_message_end,
    .system_text = rec_system_text,
    .user_part = rec_user_part,
    .reasoning = rec_reasoning,
    .assistant_text = rec_assistant_text,
    .tool_call = rec_tool_call,
    .tool_result = rec_tool_result,
  };
}

static JsonArray *
parse_history (const char *text)
{
  g_autoptr(JsonNode) node = ow_json_parse (text, -1, NULL);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_array_ref (json_node_get_array (node));
}

static char *
walk (const char             *history_json,
      const OwHistoryVisitor *visitor)
{
  g_autoptr(JsonArray) history = parse_history (history_json);
  GString *out = g_string_new (NULL);

  ow_history_walk (history, visitor, out);
  return g_string_free (out, FALSE);
}

static const char *const mixed_json =
  "["
  "{\"role\":\"system\",\"content\":\"One.\"},"
  "{\"role\":\"system\",\"content\":\"\"},"
  "{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"Two.\"}]},"
  "42,"
  "{\"role\":\"user\",\"content\":\"Hi\",\"ts\":1.0},"
  "{\"role\":\"notice\",\"kind\":\"error\",\"text\":\"boom\"},"
  "{\"content\":\"no role\"},"
  "{\"role\":\"developer\",\"content\":null},"
  "{\"role\":\"system\",\"content\":\"Later.\"},"
  "{\"role\":\"assistant\",\"content\":\"\"},"
  "{\"role\":\"user\",\"content\":\"Bye\"}"
  "]";

/* What goes out at all, the prompt, and unknown roles as users. */
static void
test_messages (void)
{
  OwHistoryVisitor visitor = recorder ();
  g_autofree char *visited = walk (mixed_json, &visitor);
  g_autofree char *prompted = NULL;

  /* Without a prompt callback every system message is a message. */
  g_assert_cmpstr (visited, ==,
                   "system (system) {\n  text [One.]\n}\n"
                   "system (system) {\n  text []\n}\n"
                   "system (system) {\n  text [Two.]\n}\n"
                   "user (user) {\n  plain [Hi]\n}\n"
                   "user (developer) {\n  plain []\n}\n"
                   "system (system) {\n  text [Later.]\n}\n"
                   "assistant (assistant) {\n  reasoning [-]\n  text []\n}\n"
                   "user (user) {\n  plain [Bye]\n}\n");

  /* With one, the leading system messages (empty ones too) are the prompt,
   * once and first; a later one is still a message. */
  visitor.system_prompt = rec_prompt;
  prompted = walk (mixed_json, &visitor);
  g_assert_cmpstr (prompted, ==,
                   "prompt [One.\n\nTwo.]\n"
                   "user (user) {\n  plain [Hi]\n}\n"
                   "user (developer) {\n  plain []\n}\n"
                   "system (system) {\n  text [Later.]\n}\n"
                   "assistant (assistant) {\n  reasoning [-]\n  text []\n}\n"
                   "user (user) {\n  plain [Bye]\n}\n");
}

/* A later system message on a wire with no place for one. */
static void
test_system_as_user (void)
{
  OwHistoryVisitor visitor = recorder ();
  g_autofree char *out = NULL;

  visitor.system_prompt = rec_prompt;
  visitor.system_as_user = TRUE;
  out = walk ("[{\"role\":\"system\",\"content\":\"P\"},{\"role\":\"user\",\"content\":\"u\"},"
              "{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"Later.\"}]}]",
              &visitor);
  g_assert_cmpstr (out, ==,
                   "prompt [P]\n"
                   "user (user) {\n  plain [u]\n}\n"
                   "user (system) {\n  plain [<system>\nLater.\n</system>]\n}\n");
}

/* User content split into pieces, data URLs parsed once. */
static void
test_user_parts (void)
{
  OwHistoryVisitor visitor = recorder ();
  g_autofree char *out = walk (
    "[{\"role\":\"user\",\"content\":["
    " {\"type\":\"text\",\"text\":\"look\"},"
    " \"not an object\","
    " {\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AAAA\"}},"
    " {\"type\":\"image_url\",\"image_url\":\"https://example.com/a.png\"},"
    " {\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png,raw\"}},"
    " {\"type\":\"file\",\"file\":{\"filename\":\"a.pdf\",\"file_data\":\"data:application/pdf;base64,JVBE\"}},"
    " {\"type\":\"file\",\"file\":{\"filename\":\"b.bin\"}},"
    " {\"type\":\"input_audio\",\"input_audio\":{}},"
    " {\"type\":\"text\"}]}]",
    &visitor);

  /* A non-base64 data URL is a URL, not data; a part of another type is
   * text, "" when it has none. */
  g_assert_cmpstr (out, ==,
                   "user (user) {\n"
                   "  text [look]\n"
                   "  image data:image/png;base64,AAAA mime=image/png data=AAAA\n"
                   "  image https://example.com/a.png mime=(null) data=(null)\n"
                   "  image data:image/png,raw mime=(null) data=(null)\n"
                   "  file a.pdf mime=application/pdf data=JVBE\n"
                   "  file b.bin mime=(null) data=(null)\n"
                   "  text []\n"
                   "  text []\n"
                   "}\n");
}

/* An assistant turn: reasoning, text, then its calls in order. */
static void
test_assistant (void)
{
  OwHistoryVisitor visitor = recorder ();
  g_autofree char *out = walk (
    "[{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}],"
    " \"reasoning\":\"think\",\"tool_calls\":["
    "  {\"id\":\"c1\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"x\\\"}\"}},"
    "  7,"
    "  {\"id\":\"c2\",\"function\":{\"name\":\"run_shell\",\"arguments\":\"{\\\"command\\\":\"}},"
    "  {\"id\":\"c3\",\"function\":{\"name\":\"git_status\",\"arguments\":{\"short\":true}}},"
    "  {\"function\":{\"arguments\":\"\"}}]}]",
    &visitor);

  /* Mangled arguments keep their text; a call without a name has "". */
  g_assert_cmpstr (out, ==,
                   "assistant (assistant) {\n"
                   "  reasoning [think]\n"
                   "  text [a\nb]\n"
                   "  call c1 read_file \"{\\\"path\\\":\\\"x\\\"}\" -> {\"path\":\"x\"}\n"
                   "  call c2 run_shell \"{\\\"command\\\":\" -> {\"_raw\":\"{\\\"command\\\":\"}\n"
                   "  call c3 git_status {\"short\":true} -> {\"short\":true}\n"
                   "  call -  \"\" -> {}\n"
                   "}\n");
}

/* A result answers the latest earlier call with its id; none is found for
 * an orphan, a later call, or a result without an id. */
static void
test_tool_results (void)
{
  OwHistoryVisitor visitor = { .tool_result = rec_tool_result };
  g_autofree char *out = walk (
    "["
    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"before any call\"},"
    "{\"role\":\"assistant\",\"content\":\"first\",\"tool_calls\":["
    "  {\"id\":\"c1\",\"function\":{\"name\":\"read_file\"}},"
    "  {\"id\":\"c1\",\"function\":{\"name\":\"shadowed\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":[{\"type\":\"text\",\"text\":\"one\"}]},"
    "{\"role\":\"assistant\",\"content\":\"second\",\"tool_calls\":["
    "  {\"id\":\"c1\",\"function\":{\"name\":\"run_shell\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"two\"},"
    "{\"role\":\"tool\",\"tool_call_id\":\"gone\",\"content\":\"orphan\"},"
    "{\"role\":\"tool\",\"content\":\"no id\"}"
    "]",
    &visitor);

  g_assert_cmpstr (out, ==,
                   "  result c1 [before any call] name=- caller=-\n"
                   "  result c1 [one] name=read_file caller=first\n"
                   "  result c1 [two] name=run_shell caller=second\n"
                   "  result gone [orphan] name=- caller=-\n"
                   "  result - [no id] name=- caller=-\n");
}

/* The fold: one wire message per run of one role, empty ones dropped. */
typedef struct {
  OwHistoryFold fold;
} FoldBuilder;

static void
fold_part (const OwHistoryMessage *msg,
           const OwHistoryPart    *part,
           gpointer                user_data)
{
  FoldBuilder *b = user_data;

  if (part->text[0] != '\0')
    json_array_add_string_element (b->fold.items, part->text);
}

static void
fold_text (const OwHistoryMessage *msg,
           const char             *text,
           gpointer                user_data)
{
  FoldBuilder *b = user_data;

  if (text[0] != '\0')
    json_array_add_string_element (b->fold.items, text);
}

static void
fold_result (const OwHistoryMessage    *msg,
             const OwHistoryToolResult *result,
             gpointer                   user_data)
{
  FoldBuilder *b = user_data;

  json_array_add_string_element (b->fold.items, result->text);
}

static void
test_fold (void)
{
  const OwHistoryVisitor visitor = {
    .message = ow_history_fold_begin,
    .message_end = ow_history_fold_end,
    .user_part = fold_part,
    .assistant_text = fold_text,
    .tool_result = fold_result,
    .system_as_user = TRUE,
  };
  g_autoptr(JsonArray) history = parse_history (
    "["
    "{\"role\":\"user\",\"content\":\"a\"},"
    "{\"role\":\"user\",\"content\":\"\"},"
    "{\"role\":\"user\",\"content\":\"b\"},"
    "{\"role\":\"assistant\",\"content\":\"c\"},"
    "{\"role\":\"assistant\",\"content\":\"\"},"
    "{\"role\":\"tool\",\"tool_call_id\":\"x\",\"content\":\"r\"},"
    "{\"role\":\"system\",\"content\":\"s\"},"
    "{\"role\":\"assistant\",\"content\":\"\"},"
    "{\"role\":\"assistant\",\"content\":\"d\"}"
    "]");
  FoldBuilder b = { { json_array_new (), "parts", "model", NULL } };
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  g_autofree char *out = NULL;

  ow_history_walk (history, &visitor, &b);
  g_assert_null (b.fold.items);
  json_node_take_array (node, b.fold.out);
  out = tp_to_string (node);
  g_assert_cmpstr (out, ==,
                   "[{\"role\":\"user\",\"parts\":[\"a\",\"b\"]},"
                   "{\"role\":\"model\",\"parts\":[\"c\"]},"
                   "{\"role\":\"user\",\"parts\":[\"r\",\"<system>\\ns\\n</system>\"]},"
                   "{\"role\":\"model\",\"parts\":[\"d\"]}]");
}

/* Nothing to walk, nothing reported; no callback is needed. */
static void
test_empty (void)
{
  OwHistoryVisitor visitor = recorder ();
  const OwHistoryVisitor nothing = { 0 };
  GString *out = g_string_new (NULL);
  g_autoptr(JsonArray) history = parse_history (mixed_json);

  visitor.system_prompt = rec_prompt;
  ow_history_walk (NULL, &visitor, out);
  ow_history_walk (history, &nothing, out);
  g_assert_cmpuint (out->len, ==, 0);
  g_string_free (out, TRUE);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/providers/history/messages", test_messages);
  g_test_add_func ("/ow/providers/history/system-as-user", test_system_as_user);
  g_test_add_func ("/ow/providers/history/user-parts", test_user_parts);
  g_test_add_func ("/ow/providers/history/assistant", test_assistant);
  g_test_add_func ("/ow/providers/history/tool-results", test_tool_results);
  g_test_add_func ("/ow/providers/history/fold", test_fold);
  g_test_add_func ("/ow/providers/history/empty", test_empty);
  return g_test_run ();
}
