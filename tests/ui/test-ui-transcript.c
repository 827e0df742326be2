/* test-ui-transcript.c: session events to transcript page operations. */
#include <string.h>

#include "ow-json.h"
#include "ow-transcript-renderer.h"

static gint64 seq;

static void
feed (OwTranscriptRenderer *r, const char *type, const char *data)
{
  g_autoptr(JsonObject) obj = data != NULL ? ow_json_object_from_string (data, -1, NULL) : NULL;

  if (data != NULL)
    g_assert_nonnull (obj);
  seq++;
  ow_transcript_renderer_feed (r, seq, 1700000000000 + seq, type, obj);
}

/* All the HTML in @ops, concatenated, and the ops as text. */
static char *
ops_html (JsonArray *ops)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; ops != NULL && i < json_array_get_length (ops); i++)
    {
      JsonObject *op = json_array_get_object_element (ops, i);
      g_string_append_printf (out, "[%s]%s\n", ow_json_get_string (op, "op"),
                              ow_json_get_string (op, "html") != NULL ? ow_json_get_string (op, "html") : "");
    }
  return g_string_free (out, FALSE);
}

/* The HTML of the operations made since the last take. */
static char *
take_html (OwTranscriptRenderer *r)
{
  g_autoptr(JsonArray) ops = ow_transcript_renderer_take_ops (r);

  return ops_html (ops);
}

static guint
count_ops (JsonArray *ops, const char *kind)
{
  guint n = 0;

  for (guint i = 0; ops != NULL && i < json_array_get_length (ops); i++)
    n += g_strcmp0 (ow_json_get_string (json_array_get_object_element (ops, i), "op"), kind) == 0;
  return n;
}

static void
test_streaming_is_coalesced (void)
{
  g_autoptr(OwTranscriptRenderer) r = ow_transcript_renderer_new ();
  g_autoptr(JsonArray) first = NULL;
  g_autoptr(JsonArray) second = NULL;
  g_autofree char *html = NULL;

  seq = 0;
  feed (r, "turn_start", "{\"input\":\"Say hello\"}");
  feed (r, "assistant_delta", "{\"text\":\"Hello \"}");
  feed (r, "assistant_delta", "{\"text\":\"**wor\"}");
  feed (r, "assistant_delta", "{\"text\":\"ld**\"}");
  g_assert_true (ow_transcript_renderer_is_working (r));
  first = ow_transcript_renderer_take_ops (r);
  html = ops_html (first);
  /* One render of the block for three pieces. */
  g_assert_cmpuint (count_ops (first, "set"), ==, 1);
  g_assert_nonnull (strstr (html, "<div class=\"bubble\">Say hello</div>"));
  g_assert_nonnull (strstr (html, "<p>Hello <strong>world</strong></p>"));
  g_assert_false (ow_transcript_renderer_has_ops (r));
  g_assert_null (ow_transcript_renderer_take_ops (r));

  feed (r, "assistant_message", "{\"text\":\"Hello **world**!\",\"tool_calls\":[]}");
  feed (r, "turn_end", "{\"status\":\"completed\",\"iterations\":1}");
  feed (r, "turn_done", "{}");
  second = ow_transcript_renderer_take_ops (r);
  g_clear_pointer (&html, g_free);
  html = ops_html (second);
  g_assert_nonnull (strstr (html, "<strong>world</strong>!"));
  g_assert_cmpuint (count_ops (second, "class"), ==, 1);  /* the turn stops "working" */
  g_assert_false (ow_transcript_renderer_is_working (r));
}

static void
test_everything_outside_is_escaped (void)
{
  g_autoptr(OwTranscriptRenderer) r = ow_transcript_renderer_new ();
  g_autoptr(JsonArray) ops = NULL;
  g_autofree char *html = NULL;
  g_autofree char *lower = NULL;

  seq = 0;
  feed (r, "turn_start", "{\"input\":\"<script>alert(1)</script>\"}");
  feed (r, "reasoning_delta", "{\"text\":\"<img src=x onerror=alert(2)>\"}");
  feed (r, "assistant_delta", "{\"text\":\"<iframe src=//evil></iframe> [x](javascript:alert(3))\"}");
  feed (r, "tool_proposed", "{\"name\":\"run_shell<b>\",\"call_id\":\"c\\\"><script>1\","
                            "\"arguments\":{\"command\":\"echo '<svg onload=x>'\"}}");
  feed (r, "tool_finished", "{\"name\":\"run_shell\",\"call_id\":\"c\\\"><script>1\",\"status\":\"ok\","
                            "\"result_preview\":\"</pre><script>alert(4)</script>\",\"provenance\":\"<b>p</b>\","
                            "\"enforcement\":\"<i>e</i>\"}");
  feed (r, "error", "{\"error\":\"<script>alert(5)</script>\",\"error_type\":\"ProviderError\"}");
  feed (r, "standing_rule_created", "{\"id\":1,\"rule\":\"<script>\"}");
  feed (r, "mode_changed", "{\"mode\":\"<script>\"}");
  feed (r, "model_changed", "{\"model\":\"<script>:x\"}");
  feed (r, "safety_check_cleared", "{\"checks\":[\"<script>\"]}");
  feed (r, "provider_retry", "{\"attempt\":1,\"max_attempts\":3,\"delay_seconds\":2,\"error\":\"<script>\"}");
  feed (r, "interrupted", "{\"reason\":\"<script>\",\"retryable\":true}");
  ops = ow_transcript_renderer_take_ops (r);
  html = ops_html (ops);
  lower = g_ascii_strdown (html, -1);
  if (strstr (lower, "<script") != NULL || strstr (lower, "<img") != NULL || strstr (lower, "<iframe") != NULL
      || strstr (lower, "<svg") != NULL || strstr (lower, "javascript:") != NULL || strstr (lower, "<b>") != NULL
      || strstr (lower, "<i>") != NULL)
    g_error ("outside text became markup:\n%s", html);
  /* …and is still there, as text. */
  g_assert_nonnull (strstr (html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  g_assert_nonnull (strstr (html, "&lt;/pre&gt;&lt;script&gt;alert(4)"));
  /* Element ids are ours, never the call id. */
  g_assert_null (strstr (html, "c&quot;&gt;"));
}

static void
test_tool_step_lifecycle (void)
{
  g_autoptr(OwTranscriptRenderer) r = ow_transcript_renderer_new ();
  g_autoptr(JsonArray) ops = NULL;
  g_autofree char *html = NULL;
  JsonObject *last;

  seq = 0;
  feed (r, "turn_start", "{\"input\":\"write it\"}");
  feed (r, "assistant_message", "{\"text\":\"I will write a.txt.\",\"tool_calls\":[\"write_file\"]}");
  feed (r, "tool_proposed", "{\"name\":\"write_file\",\"call_id\":\"w1\",\"arguments\":{\"path\":\"a.txt\"}}");
  feed (r, "permission_required", "{\"name\":\"write_file\",\"call_id\":\"w1\",\"reason\":\"requires approval\"}");
  ops = ow_transcript_renderer_take_ops (r);
  html = ops_html (ops);
  g_assert_nonnull (strstr (html, "status-waiting"));
  g_assert_nonnull (strstr (html, "<details class=\"steps\""));
  g_clear_pointer (&ops, json_array_unref);
  g_clear_pointer (&html, g_free);

  feed (r, "approval_resolved", "{\"call_id\":\"w1\",\"kind\":\"approval\",\"decision\":\"once\"}");
  feed (r, "tool_started", "{\"name\":\"write_file\",\"call_id\":\"w1\"}");
  feed (r, "tool_finished", "{\"name\":\"write_file\",\"call_id\":\"w1\",\"status\":\"ok\",\"result_preview\":\"wrote 5 bytes\","
                            "\"provenance\":\"user-approved once\",\"enforcement\":\"direct\"}");
  ops = ow_transcript_renderer_take_ops (r);
  /* The step's row is replaced; the group's summary, set after it, names
   * the step's new verb too. */
  last = json_array_get_object_element (ops, json_array_get_length (ops) - 1);
  g_assert_cmpstr (ow_json_get_string (last, "op"), ==, "set");
  g_assert_nonnull (strstr (ow_json_get_string (last, "html"), "Wrote"));
  last = json_array_get_object_element (ops, json_array_get_length (ops) - 2);
  g_assert_cmpstr (ow_json_get_string (last, "op"), ==, "replace");
  html = g_strdup (ow_json_get_string (last, "html"));
  g_assert_nonnull (strstr (html, "status-ok"));
  g_assert_nonnull (strstr (html, "Wrote"));
  /* The answer said once, by the provenance, not also by the card's note. */
  g_assert_null (strstr (html, ">allowed once<"));
  g_assert_nonnull (strstr (html, "You allowed it once"));
  /* A file tool in direct mode: no word on the command guard. */
  g_assert_null (strstr (html, "direct"));
  g_assert_null (strstr (html, "step-sandbox"));
  g_assert_nonnull (strstr (html, "wrote 5 bytes"));
}

/* A file step shows the change it makes (the content, a diff, a patch),
 * open while it waits and folded once done; what guarded a step is said
 * in plain words, never the engine's ("parser only", "landlock(abi 7)"). */
static void
test_file_step_change_and_guard (void)
{
  g_autoptr(OwTranscriptRenderer) r = ow_transcript_renderer_new ();
  g_autoptr(JsonArray) ops = NULL;
  g_autofree char *html = NULL;

  seq = 0;
  feed (r, "turn_start", "{\"input\":\"fix it\"}");
  feed (r, "tool_proposed", "{\"name\":\"replace_in_file\",\"call_id\":\"e1\","
                            "\"arguments\":{\"path\":\"a.txt\",\"old\":\"one\\ntwo\\n\",\"new\":\"one\\n<2>\\n\"}}");
  feed (r, "permission_required", "{\"name\":\"replace_in_file\",\"call_id\":\"e1\"}");
  ops = ow_transcript_renderer_take_ops (r);
  html = ops_html (ops);
  g_assert_nonnull (strstr (html, "<details class=\"step-change\" open><summary>Changes</summary>"));
  g_assert_nonnull (strstr (html, "<span class=\"line header\">a.txt</span>"));
  g_assert_nonnull (strstr (html, "<span class=\"line removed\">two</span>"));
  g_assert_nonnull (strstr (html, "<span class=\"line added\">&lt;2&gt;</span>"));
  g_clear_pointer (&ops, json_array_unref);
  g_clear_pointer (&html, g_free);

  feed (r, "tool_finished", "{\"name\":\"replace_in_file\",\"call_id\":\"e1\",\"status\":\"ok\","
                            "\"enforcement\":\"linux: namespaces+landlock(abi 7)+seccomp\"}");
  feed (r, "tool_proposed", "{\"name\":\"write_file\",\"call_id\":\"w1\","
                            "\"arguments\":{\"path\":\"/etc/hostname\",\"content\":\"x\\ny\\n\"}}");
  feed (r, "tool_finished", "{\"name\":\"write_file\",\"call_id\":\"w1\",\"status\":\"ok\"}");
  feed (r, "tool_proposed", "{\"name\":\"run_shell\",\"call_id\":\"s1\",\"arguments\":{\"command\":\"ls\"}}");
  feed (r, "tool_finished", "{\"name\":\"run_shell\",\"call_id\":\"s1\",\"status\":\"ok\",\"exit_code\":0,"
                            "\"output\":\"a\\n\",\"enforcement\":\"parser only (direct; the command guard is "
                            "unavailable: no landlock)\"}");
  ops = ow_transcript_renderer_take_ops (r);
  html = ops_html (ops);
  /* Done: folded. The kernel sandbox walls file tools too. */
  g_assert_nonnull (strstr (html, "<details class=\"step-change\"><summary>Changes</summary>"));
  g_assert_nonnull (strstr (html, "Enforced by the kernel sandbox"));
  /* write_file after the write: its content, not a diff against the
   * file it has already become (nor any other file on this disk). */
  g_assert_nonnull (strstr (html, "<summary>Content</summary>"));
  g_assert_nonnull (strstr (html, "<span class=\"line added\">x</span><span class=\"line added\">y</span>"));
  g_assert_null (strstr (html, "<summary>Content</summary><pre class=\"diff\"><code><span class=\"line header\">/etc/hostname"
                             "</span><span class=\"line removed"));
  g_assert_nonnull (strstr (html, "Checked by the command parser"));
  g_assert_null (strstr (html, "parser only"));
  g_assert_null (strstr (html, "landlock"));
  g_assert_null (strstr (html, "sandbox:"));
}

/* The step's verb and the group's summary follow the call: waiting while
 * the card is open, denied after Deny (never "Ran"); a command that ran
 * shows its output as a terminal block with its exit code. */
static void
test_command_step_states (void)
{
  g_autoptr(OwTranscriptRenderer) r = ow_transcript_renderer_new ();
  g_autofree char *html = NULL;

  seq = 0;
  feed (r, "turn_start", "{\"input\":\"clean up\"}");
  feed (r, "tool_proposed", "{\"name\":\"run_shell\",\"call_id\":\"s1\",\"arguments\":{\"command\":\"rm -r build\"}}");
  feed (r, "permission_required", "{\"name\":\"run_shell\",\"call_id\":\"s1\"}");
  html = take_html (r);
  g_assert_nonnull (strstr (html, "Waiting to run"));
  g_assert_null (strstr (html, "Ran"));
  g_clear_pointer (&html, g_free);

  feed (r, "approval_resolved", "{\"call_id\":\"s1\",\"kind\":\"approval\",\"decision\":\"deny\"}");
  feed (r, "tool_finished", "{\"name\":\"run_shell\",\"call_id\":\"s1\",\"status\":\"denied\","
                            "\"result_preview\":\"denied\",\"reason\":\"denied by person\"}");
  html = take_html (r);
  g_assert_nonnull (strstr (html, "Denied"));
  g_assert_null (strstr (html, "Ran"));
  g_clear_pointer (&html, g_free);

  /* A denial is said once, with the person's reason. */
  feed (r, "tool_proposed", "{\"name\":\"run_shell\",\"call_id\":\"s3\",\"arguments\":{\"command\":\"rm -r dist\"}}");
  feed (r, "approval_resolved", "{\"call_id\":\"s3\",\"kind\":\"approval\",\"decision\":\"deny\"}");
  feed (r, "tool_finished", "{\"name\":\"run_shell\",\"call_id\":\"s3\",\"status\":\"denied\","
                            "\"provenance\":\"denied by person\",\"reason\":\"denied by the person: not now\"}");
  html = take_html (r);
  g_assert_nonnull (strstr (html, "<div class=\"step-meta\"><span class=\"step-provenance\">You denied it</span> · "
                                  "<span class=\"step-reason\">not now</span></div>"));
  g_assert_null (strstr (html, "denied by the person"));
  g_clear_pointer (&html, g_free);

  /* Allowed: running, then ran, with a terminal block. */
  feed (r, "tool_proposed", "{\"name\":\"run_shell\",\"call_id\":\"s2\",\"arguments\":{\"command\":\"make\"}}");
  feed (r, "permission_required", "{\"name\":\"run_shell\",\"call_id\":\"s2\"}");
  feed (r, "approval_resolved", "{\"call_id\":\"s2\",\"kind\":\"approval\",\"decision\":\"once\"}");
  html = take_html (r);
  g_assert_nonnull (strstr (html, "Running"));
  g_clear_pointer (&html, g_free);
  feed (r, "tool_finished", "{\"name\":\"run_shell\",\"call_id\":\"s2\",\"status\":\"error\","
                            "\"result_preview\":\"{\\\"command\\\":\\\"make\\\"}\",\"exit_code\":2,"
                            "\"output\":\"cc -c a.c\\na.c:1: error: <oops>\\n\"}");
  html = take_html (r);
  g_assert_nonnull (strstr (html, "Failed to run"));
  g_assert_nonnull (strstr (html, "<div class=\"terminal\">"));
  g_assert_nonnull (strstr (html, "Exit code 2"));
  g_assert_nonnull (strstr (html, "exit-fail"));
  /* Real lines, escaped: no literal \\n, no raw JSON, nothing cut. */
  g_assert_nonnull (strstr (html, "cc -c a.c\na.c:1: error: &lt;oops&gt;"));
  g_assert_null (strstr (html, "\\n"));
  g_assert_null (strstr (html, "step-result"));
}

static void
test_steps_group_per_round (void)
{
  g_autoptr(OwTranscriptRenderer) r = ow_transcript_renderer_new ();
  g_autoptr(JsonArray) ops = NULL;
  g_autofree char *html = NULL;
  const char *p;
  guint groups = 0;

  seq = 0;
  feed (r, "turn_start", "{\"input\":\"go\"}");
  feed (r, "tool_proposed", "{\"name\":\"read_file\",\"call_id\":\"a\",\"arguments\":{\"path\":\"x\"}}");
  feed (r, "iteration_end", "{\"iteration\":1}");
  feed (r, "tool_proposed", "{\"name\":\"read_file\",\"call_id\":\"b\",\"arguments\":{\"path\":\"y\"}}");
  feed (r, "iteration_end", "{\"iteration\":2}");
  feed (r, "assistant_message", "{\"text\":\"Now the summary.\"}");
  feed (r, "tool_proposed", "{\"name\":\"write_file\",\"call_id\":\"c\",\"arguments\":{\"path\":\"z\"}}");
  ops = ow_transcript_renderer_take_ops (r);
  html = ops_html (ops);
  /* Consecutive rounds without narration share a group; text starts a new one. */
  for (p = html; (p = strstr (p, "<details class=\"steps\"")) != NULL; p++)
    groups++;
  g_assert_cmpuint (groups, ==, 2);
  g_assert_nonnull (strstr (html, "2 steps"));
}

static void
test_notices (void)
{
  g_autoptr(OwTranscriptRenderer) r = ow_transcript_renderer_new ();
  g_autoptr(JsonArray) ops = NULL;
  g_autofree char *html = NULL;

  seq = 0;
  feed (r, "turn_start", "{\"input\":\"hi\"}");
  feed (r, "provider_retry", "{\"attempt\":1,\"max_attempts\":9,\"delay_seconds\":2.5,\"error\":\"overloaded\"}");
  feed (r, "error", "{\"error\":\"The model service refused the key.\",\"error_type\":\"AuthError\"}");
  feed (r, "turn_done", "{}");
  feed (r, "turn_start", "{\"input\":\"\"}");
  feed (r, "turn_end", "{\"status\":\"max_iterations_exceeded\",\"iterations\":150}");
  feed (r, "interrupted", "{\"iterations\":1}");
  feed (r, "mode_changed", "{\"mode\":\"bypass-approvals\"}");
  feed (r, "standing_rule_created", "{\"id\":7,\"rule\":\"write_file:a.txt\",\"decision\":\"allow\"}");
  ops = ow_transcript_renderer_take_ops (r);
  html = ops_html (ops);
  g_assert_nonnull (strstr (html, "data-until=\""));
  g_assert_nonnull (strstr (html, "data-action=\"retry\""));
  g_assert_nonnull (strstr (html, "data-action=\"settings\""));
  g_assert_nonnull (strstr (html, "Continuing the last turn"));
  g_assert_nonnull (strstr (html, "Stopped: max iterations reached."));
  g_assert_nonnull (strstr (html, "Interrupted."));
  g_assert_nonnull (strstr (html, "Approval mode: Bypass approvals"));
  g_assert_nonnull (strstr (html, "standing rule #7"));
}

static void
test_replay_is_deterministic (void)
{
  const char *events[][2] = {
    { "turn_start", "{\"input\":\"go\"}" },
    { "reasoning_delta", "{\"text\":\"thinking\"}" },
    { "assistant_delta", "{\"text\":\"Part \"}" },
    { "assistant_delta", "{\"text\":\"one\"}" },
    { "assistant_message", "{\"text\":\"Part one\",\"reasoning\":\"thinking\"}" },
    { "tool_proposed", "{\"name\":\"run_shell\",\"call_id\":\"s\",\"arguments\":{\"command\":\"ls\"}}" },
    { "tool_finished", "{\"name\":\"run_shell\",\"call_id\":\"s\",\"status\":\"ok\",\"result_preview\":\"a\"}" },
    { "turn_done", "{}" },
  };
  g_autoptr(OwTranscriptRenderer) a = ow_transcript_renderer_new ();
  g_autoptr(OwTranscriptRenderer) b = ow_transcript_renderer_new ();
  g_autoptr(JsonArray) ops_a = NULL, ops_b = NULL;
  g_autofree char *ha = NULL, *hb = NULL;

  seq = 0;
  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    feed (a, events[i][0], events[i][1]);
  seq = 0;
  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    feed (b, events[i][0], events[i][1]);
  /* The same events again (a live event the replay already covered). */
  ow_transcript_renderer_feed (b, 3, 0, "assistant_delta", NULL);
  ops_a = ow_transcript_renderer_take_ops (a);
  ops_b = ow_transcript_renderer_take_ops (b);
  ha = ops_html (ops_a);
  hb = ops_html (ops_b);
  g_assert_cmpstr (ha, ==, hb);
  g_assert_cmpint (ow_transcript_renderer_get_last_seq (b), ==, G_N_ELEMENTS (events));
}

/* Compaction shows as a notice: summarized, or trimmed with a warning. */
static void
test_compaction_notices (void)
{
  g_autoptr(OwTranscriptRenderer) r = ow_transcript_renderer_new ();
  g_autoptr(JsonArray) ops = NULL;
  g_autofree char *html = NULL;

  seq = 0;
  feed (r, "turn_start", "{\"input\":\"go on\"}");
  feed (r, "compacting", "{}");
  feed (r, "compacted", "{\"text\":\"Context compacted\",\"boundary\":5,\"trimmed\":false}");
  feed (r, "compacting", "{}");
  feed (r, "compacted", "{\"text\":\"Context trimmed\",\"boundary\":7,\"trimmed\":true}");
  ops = ow_transcript_renderer_take_ops (r);
  html = ops_html (ops);
  g_assert_nonnull (strstr (html, "Compacting the conversation…"));
  g_assert_nonnull (strstr (html, "The conversation was compacted to fit the model&#39;s context."));
  g_assert_nonnull (strstr (html, "The oldest turns were dropped to fit the model&#39;s context"));
}

/* A tool that reports progress shows a bar while it runs (a count when
 * it gives no total), its message escaped; the bar goes when it ends. */
static void
test_tool_progress (void)
{
  OwTranscriptRenderer *r = ow_transcript_renderer_new ();
  g_autofree char *running = NULL, *counted = NULL, *done = NULL;

  feed (r, "turn_start", "{\"input\":\"copy it\"}");
  feed (r, "tool_proposed", "{\"name\":\"mcp__files__copy\",\"call_id\":\"p1\",\"arguments\":{}}");
  feed (r, "tool_started", "{\"name\":\"mcp__files__copy\",\"call_id\":\"p1\"}");
  g_free (take_html (r));
  feed (r, "tool_progress", "{\"name\":\"mcp__files__copy\",\"call_id\":\"p1\",\"progress\":3,\"total\":10,"
                            "\"message\":\"<b>copying</b>\"}");
  running = take_html (r);
  g_assert_nonnull (strstr (running, "<progress max=\"10\" value=\"3\"></progress>"));
  g_assert_nonnull (strstr (running, "&lt;b&gt;copying&lt;/b&gt;"));
  g_assert_null (strstr (running, "<b>copying"));
  feed (r, "tool_progress", "{\"name\":\"mcp__files__copy\",\"call_id\":\"p1\",\"progress\":7}");
  counted = take_html (r);
  g_assert_null (strstr (counted, "<progress"));
  g_assert_nonnull (strstr (counted, "<span class=\"progress-count\">7</span>"));
  feed (r, "tool_finished", "{\"name\":\"mcp__files__copy\",\"call_id\":\"p1\",\"status\":\"ok\","
                            "\"result_preview\":\"copied\"}");
  done = take_html (r);
  g_assert_nonnull (strstr (done, "copied"));   /* control: the step was redrawn */
  g_assert_null (strstr (done, "step-progress"));
  ow_transcript_renderer_free (r);
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/ui/transcript/streaming-is-coalesced", test_streaming_is_coalesced);
  g_test_add_func ("/ow/ui/transcript/everything-outside-is-escaped", test_everything_outside_is_escaped);
  g_test_add_func ("/ow/ui/transcript/tool-step-lifecycle", test_tool_step_lifecycle);
  g_test_add_func ("/ow/ui/transcript/file-step-change-and-guard", test_file_step_change_and_guard);
  g_test_add_func ("/ow/ui/transcript/steps-group-per-round", test_steps_group_per_round);
  g_test_add_func ("/ow/ui/transcript/command-step-states", test_command_step_states);
  g_test_add_func ("/ow/ui/transcript/notices", test_notices);
  g_test_add_func ("/ow/ui/transcript/replay-is-deterministic", test_replay_is_deterministic);
  g_test_add_func ("/ow/ui/transcript/compaction-notices", test_compaction_notices);
  g_test_add_func ("/ow/ui/transcript/tool-progress", test_tool_progress);
  return g_test_run ();
}
