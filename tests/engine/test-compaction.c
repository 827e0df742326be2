/* test-compaction.c: the pure part of compaction, on histories built here.
 *
 * The agent's use of it (when it runs, the summarizer call, the overflow
 * retry, trimming) is tested against the scripted model server in
 * test-agent.c.
 */
#include <string.h>

#include "core/ow-compaction.h"
#include "core/ow-message.h"
#include "ow-json.h"

static void
add (JsonArray *history, const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonObject *msg = ow_json_object_from_string (json, -1, &error);

  g_assert_no_error (error);
  json_array_add_object_element (history, msg);
}

static void
add_text (JsonArray *history, const char *role, const char *text)
{
  JsonObject *msg = json_object_new ();

  json_object_set_string_member (msg, "role", role);
  json_object_set_string_member (msg, "content", text);
  json_array_add_object_element (history, msg);
}

/* system, then @turns of: user, assistant with a run_shell call, its
 * result, assistant answer of @answer_len characters. */
static JsonArray *
history_of (guint turns, gsize answer_len)
{
  JsonArray *h = json_array_new ();
  g_autofree char *answer = g_strnfill (answer_len, 'a');

  add_text (h, "system", "You are a test.");
  for (guint t = 0; t < turns; t++)
    {
      g_autofree char *question = g_strdup_printf ("question %u", t);
      g_autofree char *call = g_strdup_printf (
        "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"c%u\",\"type\":\"function\","
        "\"function\":{\"name\":\"run_shell\",\"arguments\":\"{\\\"command\\\":\\\"make step%u\\\"}\"}}]}", t, t);
      g_autofree char *result = g_strdup_printf (
        "{\"role\":\"tool\",\"tool_call_id\":\"c%u\",\"content\":\"{\\\"exit_code\\\":%u,\\\"output\\\":\\\"\\\"}\"}",
        t, t % 2);

      add_text (h, "user", question);
      add (h, call);
      add (h, result);
      add_text (h, "assistant", answer);
    }
  return h;
}

static void
test_trigger (void)
{
  g_assert_cmpint (ow_compaction_trigger (0, -1, 0), ==, 102400);          /* 0.8 × 128,000 */
  g_assert_cmpint (ow_compaction_trigger (1000000, 0.8, 0), ==, 250000);   /* the cap */
  g_assert_cmpint (ow_compaction_trigger (65536, 0.5, 0), ==, 32768);
  g_assert_cmpint (ow_compaction_trigger (65536, 2.0, 0), ==, 52428);      /* out of range: 0.8 */
  g_assert_cmpint (ow_compaction_trigger (65536, 0.05, 0), ==, 52428);
  g_assert_cmpint (ow_compaction_trigger (1000000, 0.9, 5), ==, 10000);    /* cap clamped up */
  g_assert_cmpint (ow_compaction_trigger (100000000, 0.95, 9000000), ==, 2000000);
}

static void
test_boundary (void)
{
  g_autoptr(JsonArray) h = history_of (4, 4000);   /* ~1,000 tokens per answer */
  guint b;

  /* Room for the last turn only: the last user message. */
  b = ow_compaction_pick_boundary (h, 0, 1200);
  g_assert_cmpuint (b, ==, 13);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (h, b), "role"), ==, "user");
  /* Room for two turns: the earlier of the two. */
  g_assert_cmpuint (ow_compaction_pick_boundary (h, 0, 2400), ==, 9);
  /* Room for everything: the first user message would be the boundary,
   * which compacts nothing. */
  g_assert_cmpuint (ow_compaction_pick_boundary (h, 0, 1000000), ==, 5);
  /* Room for less than the last turn: inside it, at an assistant message,
   * never at the tool result. */
  b = ow_compaction_pick_boundary (h, 0, 100);
  g_assert_cmpuint (b, ==, 16);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (h, b), "role"), ==, "assistant");
  /* The boundary only moves forward: past the last user message, to the
   * assistant message that made the call (its result stays with it). */
  g_assert_cmpuint (ow_compaction_pick_boundary (h, 13, 2400), ==, 14);
  g_assert_cmpuint (ow_compaction_pick_boundary (h, 14, 100), ==, 16);
  g_assert_cmpuint (ow_compaction_pick_boundary (h, 16, 100), ==, 0);
}

static void
test_boundary_nothing (void)
{
  g_autoptr(JsonArray) empty = json_array_new ();
  g_autoptr(JsonArray) one = json_array_new ();

  g_assert_cmpuint (ow_compaction_pick_boundary (empty, 0, 10), ==, 0);
  add_text (one, "system", "s");
  add_text (one, "user", "only one question");
  g_assert_cmpuint (ow_compaction_pick_boundary (one, 0, 1), ==, 0);
}

static void
test_span_and_working_state (void)
{
  g_autoptr(JsonArray) h = history_of (3, 50);
  g_autofree char *span = ow_compaction_render_span (h, 1, 9, NULL);
  g_autofree char *folded = ow_compaction_render_span (h, 9, 13, "OLD SUMMARY");
  g_autofree char *state = ow_compaction_working_state (h, 1, 9);

  g_assert_true (g_str_has_prefix (span, "[user] question 0\n[assistant → tool] run_shell {\"command\":\"make step0\"}\n"
                                         "[tool result] {\"exit_code\":0"));
  g_assert_nonnull (strstr (span, "[user] question 1\n"));
  g_assert_null (strstr (span, "question 2"));
  g_assert_null (strstr (span, "You are a test."));
  g_assert_true (g_str_has_prefix (folded, "[previous compaction summary — fold its still-relevant content into "
                                           "the new summary]\nOLD SUMMARY\n\n[conversation since]\n[user] question 2"));
  g_assert_nonnull (strstr (state, "Recent shell commands:\n- `make step0` [ok]\n- `make step1` [exit 1]\n"));
  g_assert_nonnull (strstr (state, "Tools used in the summarized span: run_shell\n"));
}

static void
test_span_budget (void)
{
  g_autoptr(JsonArray) h = json_array_new ();
  g_autofree char *span = NULL;
  g_autofree char *big = g_strnfill (100000, 'b');

  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *text = g_strdup_printf ("%u %s", i, big);
      add_text (h, i % 2 == 0 ? "user" : "assistant", text);
    }
  span = ow_compaction_render_span (h, 0, 6, NULL);
  /* 400,000 characters at most; the newest lines stay. */
  g_assert_cmpuint (strlen (span), <=, 400000 + 64);
  g_assert_true (g_str_has_prefix (span, "(…oldest turns elided…)\n"));
  g_assert_nonnull (strstr (span, "[assistant] 5 bbb"));
  g_assert_null (strstr (span, "[user] 0 bbb"));
}

static void
test_files_in_working_state (void)
{
  g_autoptr(JsonArray) h = json_array_new ();
  g_autofree char *state = NULL;

  add_text (h, "system", "s");
  add_text (h, "user", "write things");
  add (h, "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":["
          "{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":\"{\\\"path\\\":\\\"notes.md\\\"}\"}},"
          "{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"replace_in_file\",\"arguments\":\"{\\\"path\\\":\\\"src/app.c\\\"}\"}},"
          "{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"README\\\"}\"}},"
          "{\"id\":\"d\",\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":\"{\\\"path\\\":\\\"notes.md\\\"}\"}}]}");
  state = ow_compaction_working_state (h, 1, 3);
  g_assert_nonnull (strstr (state, "Files written or edited (most recent first):\n- notes.md\n- src/app.c\n"));
  g_assert_null (strstr (state, "README"));
  g_assert_nonnull (strstr (state, "read_file"));
}

static void
test_outbound_and_block (void)
{
  g_autoptr(JsonArray) h = history_of (3, 10);
  g_autoptr(OwCompactionState) state = ow_compaction_state_new ();
  g_autoptr(JsonArray) same = ow_compaction_outbound (h, NULL);
  g_autoptr(JsonArray) out = NULL;
  g_autofree char *block = NULL;
  JsonObject *first;

  g_assert_cmpuint (json_array_get_length (same), ==, json_array_get_length (h));
  state->boundary = 9;
  state->summary = g_strdup ("THE SUMMARY");
  state->working_state = ow_compaction_working_state (h, 1, 9);
  ow_compaction_add_user_messages (state, h, 1, 9);
  out = ow_compaction_outbound (h, state);
  g_assert_cmpuint (json_array_get_length (out), ==, 2 + 4);
  first = json_array_get_object_element (out, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "role"), ==, "system");
  block = ow_compaction_block (state);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (out, 1), "content"), ==, block);
  g_assert_true (g_str_has_prefix (block, "<compacted-history>\n"));
  g_assert_true (g_str_has_suffix (block, "</compacted-history>"));
  g_assert_nonnull (strstr (block, "THE SUMMARY\n\n## Working state"));
  g_assert_nonnull (strstr (block, "## User messages in the compacted span (verbatim, chronological)\n"
                                   "- question 0\n- question 1\n"));
  g_assert_true (json_array_get_object_element (out, 2) == json_array_get_object_element (h, 9));
  /* A state past the end of the history is ignored. */
  state->boundary = 99;
  {
    g_autoptr(JsonArray) whole = ow_compaction_outbound (h, state);
    g_assert_cmpuint (json_array_get_length (whole), ==, json_array_get_length (h));
  }
}

static void
test_user_messages_kept (void)
{
  g_autoptr(JsonArray) h = json_array_new ();
  g_autoptr(OwCompactionState) state = ow_compaction_state_new ();
  g_autofree char *long_text = g_strnfill (1000, 'q');

  for (guint i = 0; i < 45; i++)
    {
      g_autofree char *text = g_strdup_printf ("message %u", i);
      add_text (h, "user", i == 44 ? long_text : text);
      add_text (h, "assistant", "ok");
    }
  ow_compaction_add_user_messages (state, h, 0, json_array_get_length (h));
  g_assert_cmpuint (state->user_messages->len, ==, 40);
  g_assert_cmpuint (state->user_messages_dropped, ==, 5);
  g_assert_cmpstr (g_ptr_array_index (state->user_messages, 0), ==, "message 5");
  /* 600 characters and an ellipsis. */
  g_assert_cmpint (g_utf8_strlen (g_ptr_array_index (state->user_messages, 39), -1), ==, 601);
}

static void
test_trim (void)
{
  g_autoptr(JsonArray) h = history_of (5, 10);   /* 21 messages */
  g_autoptr(OwCompactionState) state = ow_compaction_state_new ();
  guint before;

  g_assert_true (ow_compaction_trim (state, h));
  /* A tenth of the 20 after the system prompt is 2: index 3 is a tool
   * result, so the next assistant message, 4. */
  g_assert_cmpuint (state->boundary, ==, 4);
  g_assert_true (state->trimmed);
  g_assert_nonnull (strstr (state->summary, "no summary is available"));
  g_assert_cmpuint (state->user_messages->len, ==, 1);
  before = state->boundary;
  g_assert_true (ow_compaction_trim (state, h));
  g_assert_cmpuint (state->boundary, >, before);
  /* It stops before the last message. */
  while (ow_compaction_trim (state, h))
    ;
  g_assert_cmpuint (state->boundary, <, json_array_get_length (h) - 1);
}

static void
test_state_json (void)
{
  g_autoptr(OwCompactionState) state = ow_compaction_state_new ();
  g_autoptr(OwCompactionState) back = NULL;
  g_autoptr(JsonObject) json = NULL;
  g_autoptr(JsonObject) bad = json_object_new ();

  state->boundary = 7;
  state->summary = g_strdup ("s");
  state->working_state = g_strdup ("w");
  g_ptr_array_add (state->user_messages, g_strdup ("u1"));
  state->user_messages_dropped = 3;
  state->created_at = g_strdup ("2026-11-29T12:00:00Z");
  state->model_used = g_strdup ("openai:gpt-4o");
  state->trimmed = TRUE;
  json = ow_compaction_state_to_json (state);
  back = ow_compaction_state_from_json (json);
  g_assert_nonnull (back);
  g_assert_cmpuint (back->boundary, ==, 7);
  g_assert_cmpstr (back->summary, ==, "s");
  g_assert_cmpstr (back->working_state, ==, "w");
  g_assert_cmpuint (back->user_messages->len, ==, 1);
  g_assert_cmpuint (back->user_messages_dropped, ==, 3);
  g_assert_cmpstr (back->model_used, ==, "openai:gpt-4o");
  g_assert_true (back->trimmed);
  /* No boundary, no state. */
  g_assert_null (ow_compaction_state_from_json (bad));
  json_object_set_int_member (bad, "boundary_index", -4);
  g_assert_null (ow_compaction_state_from_json (bad));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/compaction/trigger", test_trigger);
  g_test_add_func ("/ow/compaction/boundary", test_boundary);
  g_test_add_func ("/ow/compaction/boundary-nothing", test_boundary_nothing);
  g_test_add_func ("/ow/compaction/span-and-working-state", test_span_and_working_state);
  g_test_add_func ("/ow/compaction/span-budget", test_span_budget);
  g_test_add_func ("/ow/compaction/files", test_files_in_working_state);
  g_test_add_func ("/ow/compaction/outbound-and-block", test_outbound_and_block);
  g_test_add_func ("/ow/compaction/user-messages", test_user_messages_kept);
  g_test_add_func ("/ow/compaction/trim", test_trim);
  g_test_add_func ("/ow/compaction/state-json", test_state_json);
  return g_test_run ();
}
