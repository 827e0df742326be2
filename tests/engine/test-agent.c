/* test-agent.c: the turn loop against the scripted model server.
 *
 * Real parts throughout: the OpenAI Chat provider over libcurl to a
 * loopback server, the libc tool bodies in a real bash, SQLite files.
 * Stops are tested by ordering (the stop lands before the next scripted
 * chunk, or while the tool still runs), never by timing.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "core/ow-agent.h"
#include "core/ow-context.h"
#include "ow-model-server.h"
#include "ow-test-utils.h"
#include "policy/ow-attendant.h"
#include "tool-provider-test-util.h"
#include "tools/ow-builtin-tools.h"
#include "tools/ow-shell-result.h"

typedef struct {
  char          *dir;       /* temp home */
  char          *ws;        /* workspace */
  OwContext     *ctx;
  OwModelServer *server;
  OwSession     *session;
  OwAgent       *agent;
  OwToolRegistry *tools;    /* the agent's registry */
  gboolean       done;      /* the last run finished */
  OwTurnResult  *result;
  GCancellable  *cancellable;
  GPtrArray     *events;    /* OwEvent* */
  GPtrArray     *calls;     /* char* status of each model call */
  const char    *cancel_on; /* event type that triggers a stop */
  guint          cancel_nth; /* …on its nth occurrence (1-based) */
  guint          seen;
  guint          cancel_delay_ms; /* stop this long after the trigger (0: at once) */
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(OwPaths) paths = NULL;
  g_autoptr(GError) error = NULL;
  OwContextOptions options = { 0 };

  f->dir = ow_test_make_tmpdir ("ow-agent");
  f->ws = g_build_filename (f->dir, "ws", NULL);
  g_mkdir (f->ws, 0700);
  paths = ow_paths_new_under (f->dir);
  options.paths = paths;
  options.isolated = TRUE;
  f->ctx = ow_context_new (&options, &error);
  g_assert_no_error (error);
  f->cancellable = g_cancellable_new ();
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_event_free);
  f->calls = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", f->dir);

  g_clear_object (&f->agent);
  g_clear_object (&f->tools);
  g_clear_object (&f->session);
  g_clear_object (&f->server);
  g_clear_object (&f->ctx);
  g_clear_pointer (&f->result, ow_turn_result_free);
  g_clear_object (&f->cancellable);
  g_ptr_array_unref (f->events);
  g_ptr_array_unref (f->calls);
  g_assert_cmpint (system (cmd), ==, 0);
  g_free (f->dir);
  g_free (f->ws);
}

static gboolean
cancel_later_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
on_event_cb (OwSession *session, OwEvent *event, gpointer user_data)
{
  Fixture *f = user_data;

  g_ptr_array_add (f->events, ow_event_copy (event));
  if (f->cancel_on != NULL && g_str_equal (event->type, f->cancel_on) && ++f->seen == f->cancel_nth)
    {
      if (f->cancel_delay_ms > 0)
        g_timeout_add (f->cancel_delay_ms, cancel_later_cb, f->cancellable);
      else
        g_cancellable_cancel (f->cancellable);
    }
}

static void
on_model_call_cb (OwAgent *agent, const OwModelCall *call, gpointer user_data)
{
  Fixture *f = user_data;
  g_ptr_array_add (f->calls, g_strdup (call->status));
}

/* Builds the agent against a server playing @script (JSON text). */
static void
start (Fixture *f, const char *script, const char *mode, OwAttendant *attendant)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (script, &error);
  g_autofree char *url = NULL;
  g_autofree char *base = NULL;
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(OwToolRegistry) tools = ow_tool_registry_new ();
  g_autoptr(OwExecutor) executor = NULL;
  g_autoptr(OwPolicy) policy = ow_policy_new (NULL, NULL, NULL);
  g_autoptr(OwAttendant) rule = NULL;
  const char *groups[] = { "files", "search", "shell", "todo", "interaction", NULL };
  const char *envp[] = { "OPENAI_API_KEY=sk-test-agent-0123456789", NULL };
  OwProviderOverrides overrides = { 0 };
  OwSessionSpec spec = { .workspace = f->ws, .model = "openai:gpt-4o", .mode = mode };
  const double delays[] = { 0.01, 0.01 };

  g_assert_no_error (error);
  f->server = ow_model_server_new (node, &error);
  g_assert_no_error (error);
  url = ow_model_server_get_url (f->server);
  base = g_strdup_printf ("%s/v1", url);
  overrides.base_url = base;
  provider = ow_provider_catalog_create (ow_provider_catalog_lookup ("openai"), &overrides, envp,
                                         ow_context_get_http (f->ctx), &error);
  g_assert_no_error (error);
  g_autoptr(OwBuiltinTools) builtins = ow_builtin_tools_new ();
  g_assert_true (ow_builtin_tools_add_groups (builtins, groups, &error));
  ow_tool_registry_add_provider (tools, OW_TOOL_PROVIDER (builtins));
  f->session = ow_session_new (ow_context_get_store (f->ctx), &spec, &error);
  g_assert_no_error (error);
  executor = ow_executor_direct_new (f->ws);
  if (attendant == NULL)
    attendant = rule = ow_rule_attendant_new (FALSE);
  f->agent = ow_agent_new (f->session, provider, "gpt-4o", tools, executor, policy, attendant,
                           ow_context_get_audit (f->ctx));
  f->tools = g_object_ref (tools);
  ow_agent_set_instructions (f->agent, "You are a test.");
  ow_agent_set_retry_delays (f->agent, delays, G_N_ELEMENTS (delays));
  g_signal_connect (f->session, "event", G_CALLBACK (on_event_cb), f);
  g_signal_connect (f->agent, "model-call", G_CALLBACK (on_model_call_cb), f);
}

static void
on_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Fixture *f = user_data;
  g_autoptr(GError) error = NULL;

  f->result = ow_agent_run_finish (OW_AGENT (source), result, &error);
  g_assert_no_error (error);
  f->done = TRUE;
}

static void
run (Fixture *f, const char *input)
{
  f->done = FALSE;
  ow_agent_run_async (f->agent, input, f->cancellable, on_done_cb, f);
  ow_test_wait_flag (&f->done);
  g_assert_nonnull (f->result);
}

/* The event types in order, space-separated, without deltas. */
static char *
event_types (Fixture *f)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < f->events->len; i++)
    {
      OwEvent *e = g_ptr_array_index (f->events, i);
      if (g_str_has_suffix (e->type, "_delta"))
        continue;
      if (s->len > 0)
        g_string_append_c (s, ' ');
      g_string_append (s, e->type);
    }
  return g_string_free (s, FALSE);
}

static guint
count_events (Fixture *f, const char *type)
{
  guint n = 0;
  for (guint i = 0; i < f->events->len; i++)
    n += g_str_equal (((OwEvent *) g_ptr_array_index (f->events, i))->type, type);
  return n;
}

static OwEvent *
find_event (Fixture *f, const char *type, guint nth)
{
  guint wanted = nth;

  for (guint i = 0; i < f->events->len; i++)
    {
      OwEvent *e = g_ptr_array_index (f->events, i);
      if (g_str_equal (e->type, type) && nth-- == 0)
        return e;
    }
  g_error ("there is no %s event number %u", type, wanted);
}

static JsonObject *
message (Fixture *f, guint i)
{
  return ow_session_get_message_json (f->session, i);
}

/* Every tool call in the history has exactly one result. */
static void
assert_every_call_answered (Fixture *f)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (f->session));
  g_autoptr(GHashTable) pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *m = message (f, i);
      const char *role = json_object_get_string_member (m, "role");
      if (g_str_equal (role, "assistant") && json_object_has_member (m, "tool_calls"))
        {
          JsonArray *calls = json_object_get_array_member (m, "tool_calls");
          g_assert_cmpuint (g_hash_table_size (pending), ==, 0);
          for (guint c = 0; c < json_array_get_length (calls); c++)
            g_hash_table_add (pending, g_strdup (json_object_get_string_member (json_array_get_object_element (calls, c), "id")));
        }
      else if (g_str_equal (role, "tool"))
        g_assert_true (g_hash_table_remove (pending, json_object_get_string_member (m, "tool_call_id")));
    }
  g_assert_cmpuint (g_hash_table_size (pending), ==, 0);
}

static void
test_tool_round_trip (Fixture *f, gconstpointer data)
{
  g_autofree char *types = NULL;
  g_autofree char *out = g_build_filename (f->ws, "out.txt", NULL);
  g_autofree char *contents = NULL;
  JsonObject *tool_msg;

  start (f,
         "{\"turns\":["
         " {\"text\":\"Writing the file.\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"run_shell\","
         "   \"arguments\":{\"command\":\"echo hello > out.txt && echo written\"}}],"
         "  \"usage\":{\"input\":100,\"output\":20}},"
         " {\"text\":\"Done: out.txt says hello.\",\"usage\":{\"input\":150,\"output\":10,\"cache_read\":100}}"
         "]}", "bypass-approvals", NULL);
  run (f, "write hello to out.txt");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_COMPLETED);
  g_assert_cmpuint (f->result->iterations, ==, 2);
  g_assert_true (g_file_get_contents (out, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "hello\n");

  types = event_types (f);
  g_assert_cmpstr (types, ==,
                   "turn_start assistant_message tool_proposed tool_started tool_finished iteration_end "
                   "assistant_message turn_end");
  g_assert_cmpuint (count_events (f, "assistant_delta"), >=, 2);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 0)->data, "status"), ==, "ok");
  /* What the transcripts show of the command: its output and exit code. */
  g_assert_cmpint (json_object_get_int_member (find_event (f, "tool_finished", 0)->data, "exit_code"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 0)->data, "output"), ==, "written\n");

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->session)), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (message (f, 0), "role"), ==, "system");
  tool_msg = message (f, 3);
  g_assert_cmpstr (json_object_get_string_member (tool_msg, "tool_call_id"), ==, "call_1");
  g_assert_nonnull (strstr (json_object_get_string_member (tool_msg, "content"), "written"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (message (f, 4), "usage"), "cache_read"), ==, 100);
  assert_every_call_answered (f);
  g_assert_cmpuint (f->calls->len, ==, 2);
}

static void
test_mangled_arguments_not_executed (Fixture *f, gconstpointer data)
{
  g_autofree char *out = g_build_filename (f->ws, "never.txt", NULL);
  OwEvent *finished;

  start (f,
         "{\"turns\":["
         " {\"tool_calls\":[{\"id\":\"c1\",\"name\":\"run_shell\",\"arguments_raw\":\"{\\\"command\\\": \\\"touch never.txt\"}]},"
         " {\"tool_calls\":[{\"id\":\"c2\",\"name\":\"no_such_tool\",\"arguments\":{}}]},"
         " {\"text\":\"gave up\"}"
         "]}", "bypass-approvals", NULL);
  run (f, "go");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_COMPLETED);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  finished = find_event (f, "tool_finished", 0);
  g_assert_cmpstr (json_object_get_string_member (finished->data, "status"), ==, "error");
  g_assert_nonnull (strstr (json_object_get_string_member (message (f, 3), "content"), "tool call not executed"));
  /* History keeps a parseable stand-in for the broken arguments. */
  g_assert_nonnull (strstr (json_object_get_string_member (
    json_object_get_object_member (json_array_get_object_element (json_object_get_array_member (message (f, 2), "tool_calls"), 0), "function"),
    "arguments"), "\"_raw\""));
  g_assert_nonnull (strstr (json_object_get_string_member (message (f, 5), "content"), "unknown tool: no_such_tool"));
  assert_every_call_answered (f);
}

static void
test_ask_without_person_refuses (Fixture *f, gconstpointer data)
{
  g_autofree char *out = g_build_filename (f->ws, "x.txt", NULL);

  start (f,
         "{\"turns\":["
         " {\"tool_calls\":[{\"id\":\"c1\",\"name\":\"write_file\",\"arguments\":{\"path\":\"x.txt\",\"content\":\"x\"}},"
         "                  {\"id\":\"c2\",\"name\":\"read_file\",\"arguments\":{\"path\":\"x.txt\"}}]},"
         " {\"text\":\"could not\"}"
         "]}", "ask", NULL);
  run (f, "go");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_COMPLETED);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_events (f, "permission_required"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 0)->data, "status"), ==, "denied");
  /* read_file is low risk: it runs (and finds nothing). */
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 1)->data, "status"), ==, "error");
  assert_every_call_answered (f);
}

static void
test_plan_mode_blocks_writes (Fixture *f, gconstpointer data)
{
  start (f,
         "{\"turns\":["
         " {\"tool_calls\":[{\"id\":\"c1\",\"name\":\"run_shell\",\"arguments\":{\"command\":\"touch y\"}}]},"
         " {\"text\":\"ok\"}"
         "]}", "plan", NULL);
  run (f, "go");
  g_assert_cmpuint (count_events (f, "permission_required"), ==, 0);
  g_assert_nonnull (strstr (json_object_get_string_member (find_event (f, "tool_finished", 0)->data, "reason"),
                            "plan mode is read-only"));
}

static void
test_iteration_ceiling (Fixture *f, gconstpointer data)
{
  start (f,
         "{\"turns\":["
         " {\"repeat\":5,\"tool_calls\":[{\"id\":\"c{n}\",\"name\":\"run_shell\",\"arguments\":{\"command\":\"echo {n}\"}}]}"
         "]}", "bypass-approvals", NULL);
  ow_agent_set_max_iterations (f->agent, 3);
  run (f, "loop");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_MAX_ITERATIONS);
  g_assert_cmpuint (f->result->iterations, ==, 3);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "turn_end", 0)->data, "status"), ==,
                   "max_iterations_exceeded");
  assert_every_call_answered (f);
}

static void
test_cancel_mid_stream (Fixture *f, gconstpointer data)
{
  g_autofree char *text = g_strnfill (200, 'a');
  g_autofree char *script = g_strdup_printf (
    "{\"turns\":[{\"text\":\"%s\",\"text_chunks\":20,\"chunk_delay_ms\":50}]}", text);
  guint deltas;
  JsonObject *last;

  start (f, script, "bypass-approvals", NULL);
  f->cancel_on = "assistant_delta";
  f->cancel_nth = 2;
  run (f, "stream");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_INTERRUPTED);
  deltas = count_events (f, "assistant_delta");
  /* The stop landed before the next scripted chunk. */
  g_assert_cmpuint (deltas, ==, 2);
  g_assert_cmpuint (count_events (f, "interrupted"), ==, 1);
  /* What the person saw is kept: a partial assistant message, then a notice. */
  last = message (f, g_list_model_get_n_items (G_LIST_MODEL (f->session)) - 1);
  g_assert_cmpstr (json_object_get_string_member (last, "role"), ==, "notice");
  g_assert_cmpstr (json_object_get_string_member (message (f, 2), "role"), ==, "assistant");
  g_assert_true (json_object_get_boolean_member (message (f, 2), "partial"));
  g_assert_cmpuint (strlen (json_object_get_string_member (message (f, 2), "content")), <, 200);
}

static void
test_cancel_during_tool (Fixture *f, gconstpointer data)
{
  start (f,
         "{\"turns\":["
         " {\"tool_calls\":[{\"id\":\"c1\",\"name\":\"run_shell\",\"arguments\":{\"command\":\"sleep 60\"}},"
         "                  {\"id\":\"c2\",\"name\":\"run_shell\",\"arguments\":{\"command\":\"echo after\"}}]},"
         " {\"text\":\"never\"}"
         "]}", "bypass-approvals", NULL);
  /* Stop while `sleep 60` is running (the shell is up by then: the stop
   * must interrupt a live process, not a call that has not started). */
  f->cancel_on = "tool_started";
  f->cancel_nth = 1;
  f->cancel_delay_ms = 300;
  run (f, "sleep");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_INTERRUPTED);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 0)->data, "status"), ==, "interrupted");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 1)->data, "status"), ==, "interrupted");
  g_assert_cmpuint (count_events (f, "tool_started"), ==, 1);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);
  assert_every_call_answered (f);
}

static void
test_cancel_during_retry_wait (Fixture *f, gconstpointer data)
{
  const double long_wait[] = { 3600 };

  start (f,
         "{\"turns\":[{\"error\":{\"status\":500,\"kind\":\"server\",\"message\":\"boom\"}},{\"text\":\"never\"}]}",
         "bypass-approvals", NULL);
  ow_agent_set_retry_delays (f->agent, long_wait, 1);
  f->cancel_on = "provider_retry";
  f->cancel_nth = 1;
  run (f, "retry");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_INTERRUPTED);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);
  g_assert_cmpint (json_object_get_double_member (find_event (f, "provider_retry", 0)->data, "delay_seconds"), ==, 3600);
}

static void
test_transient_errors_retry (Fixture *f, gconstpointer data)
{
  start (f,
         "{\"turns\":["
         " {\"error\":{\"status\":429,\"kind\":\"rate_limit\",\"message\":\"slow down\",\"retry_after\":0}},"
         " {\"text\":\"partial answ\",\"drop_after\":2},"
         " {\"text\":\"complete answer\"}"
         "]}", "bypass-approvals", NULL);
  run (f, "go");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_COMPLETED);
  g_assert_cmpuint (count_events (f, "provider_retry"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "provider_retry", 0)->data, "error_type"), ==,
                   "RateLimitError");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "provider_retry", 1)->data, "error_type"), ==,
                   "CutOffReplyError");
  g_assert_cmpuint (f->calls->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (f->calls, 2), ==, "ok");
  /* The cut-off reply was kept and the model was told. */
  {
    guint n = g_list_model_get_n_items (G_LIST_MODEL (f->session));
    g_assert_cmpstr (json_object_get_string_member (message (f, n - 1), "content"), ==, "complete answer");
    g_assert_true (json_object_get_boolean_member_with_default (message (f, n - 2), "_nudge", FALSE));
    g_assert_true (json_object_get_boolean_member_with_default (message (f, n - 3), "partial", FALSE));
  }
}

static void
test_retries_run_out (Fixture *f, gconstpointer data)
{
  start (f,
         "{\"turns\":[{\"repeat\":3,\"error\":{\"status\":503,\"kind\":\"server\",\"message\":\"down\"}}]}",
         "bypass-approvals", NULL);
  run (f, "go");
  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_MODEL_ERROR);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 3);
  g_assert_nonnull (strstr (f->result->error, "gave up after 2 retries"));
}

static void
test_permanent_error_not_retried (Fixture *f, gconstpointer data)
{
  start (f,
         "{\"turns\":[{\"error\":{\"status\":401,\"kind\":\"bad_key\",\"message\":\"Incorrect API key provided\"}},"
         " {\"text\":\"unreachable\"}]}",
         "bypass-approvals", NULL);
  run (f, "go");
  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_MODEL_ERROR);
  g_assert_cmpstr (f->result->error_type, ==, "AuthenticationError");
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);
  g_assert_cmpuint (count_events (f, "provider_retry"), ==, 0);
  g_assert_nonnull (strstr (f->result->error, "OPENAI_API_KEY"));
  g_assert_null (strstr (f->result->error, "sk-test-agent"));
}

static void
test_length_ceiling (Fixture *f, gconstpointer data)
{
  start (f, "{\"turns\":[{\"repeat\":3,\"text\":\"part {n}\",\"finish\":\"length\"}]}", "bypass-approvals", NULL);
  ow_agent_set_max_output_tokens (f->agent, 5);
  run (f, "long");
  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_CUT_OFF);
  g_assert_cmpuint (f->result->iterations, ==, 3);
  /* Each request carried the ceiling. */
  {
    JsonArray *reqs = ow_model_server_get_requests (f->server);
    JsonObject *body = json_object_get_object_member (json_array_get_object_element (reqs, 0), "body");
    g_assert_true (json_object_has_member (body, "max_tokens") || json_object_has_member (body, "max_completion_tokens"));
  }
}

static void
test_result_bounded_and_spilled (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *spill = g_build_filename (f->dir, "spill", NULL);
  g_autofree char *spilled_file = g_build_filename (spill, "c1.txt", NULL);
  g_autofree char *full = NULL;
  const char *content;

  start (f,
         "{\"turns\":["
         " {\"tool_calls\":[{\"id\":\"c1\",\"name\":\"run_shell\",\"arguments\":{\"command\":\"seq 1 3000\"}}]},"
         " {\"text\":\"ok\"}"
         "]}", "bypass-approvals", NULL);
  g_assert_true (ow_agent_set_tool_result_limit (f->agent, 1000, spill, &error));
  run (f, "big");

  content = json_object_get_string_member (message (f, 3), "content");
  g_assert_cmpuint (strlen (content), <, 1400);
  g_assert_nonnull (strstr (content, spilled_file));
  g_assert_true (g_file_get_contents (spilled_file, &full, NULL, NULL));
  /* The spill holds what the model would have read: the output as text. */
  g_assert_nonnull (strstr (full, "2999\n3000"));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 0)->data, "spilled_to"), ==, spilled_file);
}

static void
test_questions_answered_by_rule (Fixture *f, gconstpointer data)
{
  start (f,
         "{\"turns\":["
         " {\"tool_calls\":[{\"id\":\"q1\",\"name\":\"ask_user\",\"arguments\":{\"question\":\"Which format?\",\"options\":[\"md\",\"pdf\"]}},"
         "                  {\"id\":\"d1\",\"name\":\"request_directory\",\"arguments\":{\"reason\":\"need docs\",\"path\":\"/etc\"}}]},"
         " {\"text\":\"fine\"}"
         "]}", "ask", NULL);
  run (f, "go");
  g_assert_nonnull (strstr (json_object_get_string_member (message (f, 3), "content"), "No one is available"));
  g_assert_nonnull (strstr (json_object_get_string_member (message (f, 4), "content"), "\"granted\":false"));
  g_assert_cmpuint (count_events (f, "question_requested"), ==, 1);
  g_assert_cmpuint (count_events (f, "directory_requested"), ==, 1);
  g_assert_cmpuint (ow_session_get_roots (f->session)->len, ==, 1);
}

/* ---- Compaction ------------------------------------------------------------ */

/* A script's turns for two long answers (3,000 estimated tokens each). */
static char *
long_answers_script (const char *second_usage, const char *rest)
{
  g_autofree char *big = g_strnfill (12000, 'x');

  return g_strdup_printf ("{\"turns\":["
                          " {\"text\":\"first answer %s\",\"usage\":{\"input\":500,\"output\":10}},"
                          " {\"text\":\"second answer %s\",\"usage\":%s},"
                          " %s]}", big, big, second_usage, rest);
}

static JsonObject *
request_body (Fixture *f, guint i)
{
  JsonArray *reqs = ow_model_server_get_requests (f->server);

  g_assert_cmpuint (i, <, json_array_get_length (reqs));
  return json_object_get_object_member (json_array_get_object_element (reqs, i), "body");
}

static const char *
request_content (Fixture *f, guint req, guint msg)
{
  JsonArray *messages = json_object_get_array_member (request_body (f, req), "messages");

  g_assert_cmpuint (msg, <, json_array_get_length (messages));
  return json_object_get_string_member (json_array_get_object_element (messages, msg), "content");
}

static guint
request_length (Fixture *f, guint req)
{
  return json_array_get_length (json_object_get_array_member (request_body (f, req), "messages"));
}

static void
test_compaction_by_threshold (Fixture *f, gconstpointer data)
{
  g_autofree char *script = long_answers_script ("{\"input\":12000,\"output\":10}",
    "{\"text\":\"## Primary request and intent\\nSUMMARY-OK\"}, {\"text\":\"third answer\"}");
  g_autoptr(OwSession) again = NULL;
  g_autoptr(GError) error = NULL;
  const OwCompactionState *state;
  const char *block;
  guint n;

  start (f, script, "bypass-approvals", NULL);
  /* 0.5 × 20,000: the trigger is 10,000 tokens; 2,500 are kept. */
  ow_agent_set_compaction (f->agent, 20000, 0.5, 0);
  g_assert_cmpint (ow_agent_get_compaction_trigger (f->agent), ==, 10000);
  run (f, "first question");
  g_clear_pointer (&f->result, ow_turn_result_free);
  run (f, "second question");
  g_clear_pointer (&f->result, ow_turn_result_free);
  g_assert_cmpuint (count_events (f, "compacting"), ==, 0);
  /* The second reply said 12,000 tokens: the third turn compacts first. */
  run (f, "third question");
  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_COMPLETED);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 4);
  g_assert_cmpuint (count_events (f, "compacting"), ==, 1);
  g_assert_cmpuint (count_events (f, "compacted"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "compacted", 0)->data, "text"), ==,
                   "Context compacted — earlier turns were summarized");

  /* The summarizer got its prompt and the span, and no tools. */
  g_assert_true (g_str_has_prefix (request_content (f, 2, 0), "You condense"));
  g_assert_nonnull (strstr (request_content (f, 2, 1), "[user] first question"));
  g_assert_nonnull (strstr (request_content (f, 2, 1), "[assistant] second answer xxx"));
  g_assert_null (strstr (request_content (f, 2, 1), "third question"));
  g_assert_false (json_object_has_member (request_body (f, 2), "tools"));

  /* The model then saw: the system message, the block, the kept turn. */
  g_assert_cmpuint (request_length (f, 3), ==, 3);
  g_assert_cmpstr (request_content (f, 3, 0), ==, "You are a test.");
  block = request_content (f, 3, 1);
  g_assert_true (g_str_has_prefix (block, "<compacted-history>"));
  g_assert_nonnull (strstr (block, "SUMMARY-OK"));
  g_assert_nonnull (strstr (block, "- first question\n- second question\n"));
  g_assert_null (strstr (block, "xxxxxxxx"));
  g_assert_true (g_str_has_prefix (request_content (f, 3, 2), "third question"));

  /* The history is whole, with the notice; the state is in the row. */
  n = g_list_model_get_n_items (G_LIST_MODEL (f->session));
  g_assert_cmpuint (n, ==, 8);
  g_assert_cmpstr (json_object_get_string_member (message (f, 6), "role"), ==, "notice");
  g_assert_cmpstr (json_object_get_string_member (message (f, 6), "kind"), ==, "compacted");
  again = ow_session_load (ow_context_get_store (f->ctx), ow_session_get_id (f->session), &error);
  g_assert_no_error (error);
  state = ow_session_get_compaction (again);
  g_assert_nonnull (state);
  g_assert_cmpuint (state->boundary, ==, 5);
  g_assert_nonnull (strstr (state->summary, "SUMMARY-OK"));
  g_assert_cmpuint (state->user_messages->len, ==, 2);
  g_assert_false (state->trimmed);
}

static void
test_compaction_on_overflow (Fixture *f, gconstpointer data)
{
  g_autofree char *big = g_strnfill (12000, 'y');
  g_autofree char *script = g_strdup_printf (
    "{\"turns\":["
    " {\"text\":\"first answer %s\",\"usage\":{\"input\":500,\"output\":10}},"
    " {\"error\":{\"kind\":\"context_overflow\",\"status\":400,"
    "   \"message\":\"This model's maximum context length is 4096 tokens.\"}},"
    " {\"text\":\"SUMMARY-AFTER-OVERFLOW\"},"
    " {\"text\":\"second answer\"}]}", big);

  start (f, script, "bypass-approvals", NULL);
  run (f, "first question");
  g_clear_pointer (&f->result, ow_turn_result_free);
  /* The default trigger (0.8 × 128,000) is far away: only the refusal
   * compacts, and the call is made again. */
  run (f, "second question");
  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_COMPLETED);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 4);
  g_assert_cmpuint (count_events (f, "compacted"), ==, 1);
  g_assert_cmpuint (count_events (f, "error"), ==, 0);
  g_assert_cmpuint (request_length (f, 3), ==, 3);
  g_assert_nonnull (strstr (request_content (f, 3, 1), "SUMMARY-AFTER-OVERFLOW"));
  g_assert_true (g_str_has_prefix (request_content (f, 3, 2), "second question"));
  g_assert_cmpstr (g_ptr_array_index (f->calls, 1), ==, "error");
}

static void
test_overflow_with_nothing_to_compact (Fixture *f, gconstpointer data)
{
  start (f,
         "{\"turns\":[{\"error\":{\"kind\":\"context_overflow\",\"status\":400,"
         "  \"message\":\"prompt is too long: 300000 tokens > 200000 maximum\"}}]}",
         "bypass-approvals", NULL);
  run (f, "one enormous question");
  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_MODEL_ERROR);
  g_assert_cmpstr (f->result->error_type, ==, "ContextOverflowError");
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);
  g_assert_cmpuint (count_events (f, "compacted"), ==, 0);
  g_assert_cmpuint (count_events (f, "error"), ==, 1);
}

static void
test_compaction_falls_back_to_trimming (Fixture *f, gconstpointer data)
{
  g_autofree char *script = long_answers_script ("{\"input\":12000,\"output\":10}",
    "{\"error\":{\"status\":500,\"message\":\"summarizer down\"}},"
    " {\"error\":{\"status\":500,\"message\":\"summarizer still down\"}},"
    " {\"text\":\"third answer\"}");
  const OwCompactionState *state;

  start (f, script, "bypass-approvals", NULL);
  ow_agent_set_compaction (f->agent, 20000, 0.5, 0);
  run (f, "first question");
  g_clear_pointer (&f->result, ow_turn_result_free);
  run (f, "second question");
  g_clear_pointer (&f->result, ow_turn_result_free);
  run (f, "third question");
  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_COMPLETED);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 5);
  g_assert_cmpuint (count_events (f, "compacting"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "compacted", 0)->data, "text"), ==,
                   "Context trimmed — oldest turns dropped (summary unavailable)");
  state = ow_session_get_compaction (f->session);
  g_assert_nonnull (state);
  g_assert_true (state->trimmed);
  /* A tenth of the five messages after the system prompt, rounded up to
   * one: the first question goes, the first answer is kept. */
  g_assert_cmpuint (state->boundary, ==, 2);
  g_assert_nonnull (strstr (request_content (f, 4, 1), "no summary is available"));
  g_assert_true (g_str_has_prefix (request_content (f, 4, 2), "first answer"));
}

/* What the model reads of a shell record: only what is not the usual. */
/* The names of the tools request @i offered, space-separated. */
static char *
offered_tools (Fixture *f, guint i)
{
  JsonArray *reqs = ow_model_server_get_requests (f->server);
  JsonObject *body = json_object_get_object_member (json_array_get_object_element (reqs, i), "body");
  JsonArray *tools = json_object_get_array_member (body, "tools");
  GString *s = g_string_new (NULL);

  for (guint t = 0; t < json_array_get_length (tools); t++)
    {
      JsonObject *fn = json_object_get_object_member (json_array_get_object_element (tools, t), "function");
      g_string_append_printf (s, "%s%s", t > 0 ? " " : "", json_object_get_string_member (fn, "name"));
    }
  return g_string_free (s, FALSE);
}

typedef struct {
  OwTestTools *mcp;
  gboolean     added;
  gboolean     removed;
} ChangeTools;

/* Adds read_note while the first reply's call runs, and takes it away
 * once it has been called. */
static void
on_event_change_tools_cb (OwSession *session, OwEvent *event, gpointer user_data)
{
  ChangeTools *ct = user_data;
  const char *name = event->data != NULL ? json_object_get_string_member_with_default (event->data, "name", "") : "";

  if (g_str_equal (event->type, "tool_started") && g_str_equal (name, "todo_write") && !ct->added)
    {
      ow_test_tools_add (ct->mcp, "read_note");
      ct->added = TRUE;
    }
  else if (g_str_equal (event->type, "tool_finished") && g_str_equal (name, "read_note") && !ct->removed)
    {
      ow_test_tools_remove (ct->mcp, "read_note");
      ct->removed = TRUE;
    }
}

/* A provider that gains a tool mid-turn has it offered at the next model
 * call, and the loop runs it like any other; once the provider drops it,
 * the next call no longer offers it, and a call of it is an unknown tool. */
static void
test_tools_change_between_calls (Fixture *f, gconstpointer data)
{
  g_autoptr(OwTestTools) mcp = ow_test_tools_new ("mcp:notes");
  ChangeTools ct = { mcp, FALSE, FALSE };
  g_autofree char *first = NULL, *second = NULL, *third = NULL, *fourth = NULL;
  JsonObject *result;

  start (f,
         "{\"turns\":["
         " {\"tool_calls\":[{\"id\":\"c1\",\"name\":\"todo_write\",\"arguments\":{\"todos\":[]}}]},"
         " {\"tool_calls\":[{\"id\":\"c2\",\"name\":\"read_note\",\"arguments\":{\"say\":\"hi\"}}]},"
         " {\"tool_calls\":[{\"id\":\"c3\",\"name\":\"read_note\",\"arguments\":{\"say\":\"again\"}}]},"
         " {\"text\":\"done\"}"
         "]}", "bypass-approvals", NULL);
  ow_tool_registry_add_provider (f->tools, OW_TOOL_PROVIDER (mcp));
  g_signal_connect (f->session, "event", G_CALLBACK (on_event_change_tools_cb), &ct);
  run (f, "go");

  g_assert_cmpint (f->result->outcome, ==, OW_OUTCOME_COMPLETED);
  g_assert_true (ct.added);
  g_assert_true (ct.removed);
  first = offered_tools (f, 0);
  second = offered_tools (f, 1);
  third = offered_tools (f, 2);
  fourth = offered_tools (f, 3);
  /* The built-ins by name, then the provider's. */
  g_assert_cmpstr (first, ==, "apply_patch ask_user grep list_files read_file replace_in_file request_directory "
                              "run_shell shell_task_kill shell_task_output todo_write write_file");
  g_assert_cmpstr (second, ==, "apply_patch ask_user grep list_files read_file replace_in_file request_directory "
                               "run_shell shell_task_kill shell_task_output todo_write write_file read_note");
  g_assert_cmpstr (third, ==, first);
  g_assert_cmpstr (fourth, ==, first);

  /* It ran, with its arguments, while it was offered… */
  result = ow_json_object_from_string (json_object_get_string_member (message (f, 5), "content"), -1, NULL);
  g_assert_nonnull (result);
  g_assert_cmpstr (json_object_get_string_member (result, "tool"), ==, "read_note");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "args"), "say"), ==, "hi");
  json_object_unref (result);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 1)->data, "status"), ==, "ok");
  /* Its progress reached the event stream, under its call. */
  g_assert_cmpuint (count_events (f, "tool_progress"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_progress", 0)->data, "call_id"), ==, "c2");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_progress", 0)->data, "message"), ==, "halfway");
  /* …and not after it was gone. */
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_finished", 2)->data, "status"), ==, "error");
  g_assert_nonnull (strstr (json_object_get_string_member (message (f, 7), "content"), "unknown tool: read_note"));
  assert_every_call_answered (f);
}

static void
test_shell_result_lean (void)
{
  static const struct {
    const char *record;
    const char *previous_cwd;
    const char *expected;
  } cases[] = {
    { "{\"command\":\"echo hi\",\"cwd\":\"/w\",\"exit_code\":0,\"output\":\"hi\\n\",\"timed_out\":false,"
      "\"truncated\":false}", "/w", "hi" },
    { "{\"command\":\"true\",\"cwd\":\"/w\",\"exit_code\":0,\"output\":\"\",\"timed_out\":false,"
      "\"truncated\":false}", "/w", "(no output)" },
    { "{\"command\":\"cd a; false\",\"cwd\":\"/w/a\",\"exit_code\":1,\"output\":\"x\",\"timed_out\":false,"
      "\"truncated\":false}", "/w", "x\n[exit code 1]\n[now in /w/a]" },
    { "{\"error\":\"the command timed out after 1 s and was interrupted\",\"command\":\"sleep 9\",\"cwd\":\"/w\","
      "\"exit_code\":null,\"output\":\"\",\"timed_out\":true,\"truncated\":false}", "/w",
      "[error: the command timed out after 1 s and was interrupted]" },
    { "{\"command\":\"seq 9\",\"cwd\":\"/w\",\"exit_code\":0,\"output\":\"9\",\"timed_out\":false,"
      "\"truncated\":true,\"note\":\"only its end is shown\"}", "/w", "9\n[note: only its end is shown]" },
    /* Not a foreground record: passed through as it is. */
    { "{\"task_id\":\"bg-1\",\"command\":\"srv\",\"status\":\"running\"}", "/w",
      "{\"task_id\":\"bg-1\",\"command\":\"srv\",\"status\":\"running\"}" },
    { "not json", "/w", "not json" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = ow_shell_result_for_model (cases[i].record, cases[i].previous_cwd);
      g_assert_cmpstr (text, ==, cases[i].expected);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/engine/agent/shell-result-lean", test_shell_result_lean);
#define ADD(path, fn) g_test_add ("/ow/engine/agent/" path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("tool-round-trip", test_tool_round_trip);
  ADD ("mangled-arguments", test_mangled_arguments_not_executed);
  ADD ("ask-without-person", test_ask_without_person_refuses);
  ADD ("plan-mode", test_plan_mode_blocks_writes);
  ADD ("iteration-ceiling", test_iteration_ceiling);
  ADD ("cancel-mid-stream", test_cancel_mid_stream);
  ADD ("cancel-during-tool", test_cancel_during_tool);
  ADD ("cancel-during-retry-wait", test_cancel_during_retry_wait);
  ADD ("transient-errors-retry", test_transient_errors_retry);
  ADD ("retries-run-out", test_retries_run_out);
  ADD ("permanent-error", test_permanent_error_not_retried);
  ADD ("length-ceiling", test_length_ceiling);
  ADD ("result-bounded", test_result_bounded_and_spilled);
  ADD ("questions-by-rule", test_questions_answered_by_rule);
  ADD ("compaction-threshold", test_compaction_by_threshold);
  ADD ("compaction-overflow", test_compaction_on_overflow);
  ADD ("compaction-overflow-nothing", test_overflow_with_nothing_to_compact);
  ADD ("compaction-trimming", test_compaction_falls_back_to_trimming);
  ADD ("tools-change-between-calls", test_tools_change_between_calls);
#undef ADD
  return g_test_run ();
}
