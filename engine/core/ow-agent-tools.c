/* ow-agent-tools.c: tool calls of the turn loop.
 *
 * next_call walks the assistant message's tool calls in order: propose,
 * parse the arguments, decide (ow-agent-approval.c), execute, bound and
 * append the result. Low-risk reads that follow each other run at once;
 * calls past the per-reply cap are answered without running.
 */
#define G_LOG_DOMAIN "ow-agent"

#include "core/ow-agent-private.h"

/* ---- Tool calls --------------------------------------------------------- */

static Ahead *
ahead_ref (Ahead *ahead)
{
  ahead->refs++;
  return ahead;
}

void
_ow_agent_ahead_unref (Ahead *ahead)
{
  if (--ahead->refs > 0)
    return;
  g_clear_pointer (&ahead->result, ow_tool_result_free);
  g_clear_error (&ahead->error);
  g_clear_object (&ahead->waiting);
  g_free (ahead);
}

/* A one-line preview of a result for events and the audit trail. */
static char *
preview_of (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_autofree char *flat = g_strdelimit (g_strdup (valid), "\n\r\t", ' ');

  if (g_utf8_strlen (flat, -1) <= 300)
    return g_steal_pointer (&flat);
  {
    g_autofree char *head = g_utf8_substring (flat, 0, 300);
    return g_strconcat (head, "…", NULL);
  }
}

/* What a person is shown of a command's result, on tool_finished, read
 * from run_shell's record whatever else it carries (the model got the
 * lean text):
 *   exit_code            the code, or null when the command had none
 *   output               the end of the output, at most DISPLAY_OUTPUT_MAX
 *                        characters: the desktop's and the browser's
 *                        terminal block
 *   output_tail          its last SHELL_TAIL_LINES lines, each cut at
 *                        SHELL_TAIL_LINE_CHARS: the CLI's lines under the step
 *   output_lines_hidden  how many lines came before the tail
 * The output is redacted once here, for every surface. Nothing is added
 * when the result is not that object. */
#define DISPLAY_OUTPUT_MAX 4000
#define SHELL_TAIL_LINES 6
#define SHELL_TAIL_LINE_CHARS 160

static void
add_command_display (JsonObject *data, const char *result_text)
{
  g_autoptr(JsonObject) result = ow_json_object_from_string (result_text, -1, NULL);
  JsonNode *code;
  const char *output;
  g_autofree char *safe = NULL;
  g_autofree char *valid = NULL;
  const char *shown;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) tail = NULL;
  guint n, first;

  if (result == NULL || (code = json_object_get_member (result, "exit_code")) == NULL)
    return;
  if (JSON_NODE_HOLDS_VALUE (code) && json_node_get_value_type (code) == G_TYPE_INT64)
    json_object_set_int_member (data, "exit_code", json_node_get_int (code));
  else
    json_object_set_null_member (data, "exit_code");
  output = ow_json_get_string (result, "output");
  if (output == NULL)
    return;

  safe = ow_redact (output);
  valid = g_utf8_make_valid (safe, -1);
  shown = valid;
  if (g_utf8_strlen (shown, -1) > DISPLAY_OUTPUT_MAX)
    shown = g_utf8_offset_to_pointer (shown, g_utf8_strlen (shown, -1) - DISPLAY_OUTPUT_MAX);
  json_object_set_string_member (data, "output", shown);
  if (*valid == '\0')
    return;

  lines = g_strsplit (g_strchomp (valid), "\n", -1);
  n = g_strv_length (lines);
  first = n > SHELL_TAIL_LINES ? n - SHELL_TAIL_LINES : 0;
  tail = g_string_new (NULL);
  for (guint i = first; i < n; i++)
    {
      g_strdelimit (lines[i], "\r\t", ' ');
      if (tail->len > 0)
        g_string_append_c (tail, '\n');
      if (g_utf8_strlen (lines[i], -1) > SHELL_TAIL_LINE_CHARS)
        {
          g_autofree char *head = g_utf8_substring (lines[i], 0, SHELL_TAIL_LINE_CHARS);
          g_string_append_printf (tail, "%s…", head);
        }
      else
        g_string_append (tail, lines[i]);
    }
  json_object_set_string_member (data, "output_tail", tail->str);
  json_object_set_int_member (data, "output_lines_hidden", first);
}

OwToolCall *
_ow_agent_current_call (Run *run)
{
  return g_ptr_array_index (run->calls, run->call_index);
}

/* After an ask came back: when the turn was stopped by ow_agent_park, it
 * ends here with the ask still waiting and the call without a result, so
 * the next turn takes it up with the person's answer. TRUE when it ended. */
gboolean
_ow_agent_finish_if_parked (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwToolCall *call = _ow_agent_current_call (run);
  JsonObject *data;

  if (!run->agent->parking || !g_cancellable_is_cancelled (run->cancellable))
    return FALSE;
  data = json_object_new ();
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "name", call->name);
  json_object_set_int_member (data, "iterations", run->iterations);
  _ow_agent_emit (run, "turn_parked", data);
  _ow_agent_finish (task, OW_OUTCOME_PARKED, NULL, NULL);
  return TRUE;
}

/* Appends the tool message, emits tool_finished, audits, and moves on. */
void
_ow_agent_complete_call (GTask *task, OwToolStatus status, const char *result_text, const char *reason)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  g_autofree char *bounded = NULL;
  g_autofree char *spilled = NULL;
  g_autofree char *preview = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *msg, *data;

  /* A key OpenWorker holds (a saved model key, a connector token) never
   * reaches the model, the session's messages or a spill file, even when a
   * tool prints it. Only registered values go: a person's file that merely
   * looks like a token must reach the model intact. */
  g_autofree char *safe_text = ow_redact_registered (result_text);
  result_text = safe_text;
  bounded = ow_tool_result_bound (result_text, agent->result_max, agent->spill_dir, call->id, &spilled, &error);
  if (bounded == NULL)
    {
      /* Could not spill (disk full?): send the head anyway and say so. */
      bounded = g_strdup_printf ("%.*s\n[… result truncated at %" G_GSIZE_FORMAT " bytes; the full text could "
                                 "not be saved: %s]", (int) agent->result_max, result_text, agent->result_max,
                                 error->message);
    }
  msg = ow_message_json_tool (call->id, bounded);
  if (!_ow_agent_append (task, msg))
    {
      json_object_unref (msg);
      return;
    }
  json_object_unref (msg);
  /* Its result is in the history now: an ask about it is settled, and a
   * resumed turn will not look for it again. */
  ow_attendant_end_run (agent->attendant, ow_session_get_id (agent->session), call->id);

  /* The event log keeps the full record; the model got the lean text. */
  preview = preview_of (run->cur_record != NULL ? run->cur_record : result_text);
  data = json_object_new ();
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "status", ow_tool_status_to_string (status));
  json_object_set_string_member (data, "result_preview", preview);
  if (run->cur_record != NULL)
    {
      g_autofree char *safe_record = ow_redact_registered (run->cur_record);
      JsonObject *record = ow_json_object_from_string (safe_record, -1, NULL);

      if (record != NULL)
        json_object_set_object_member (data, "result", record);
    }
  if (reason != NULL)
    json_object_set_string_member (data, "reason", reason);
  if (run->cur_provenance != NULL)
    json_object_set_string_member (data, "provenance", run->cur_provenance);
  json_object_set_string_member (data, "enforcement", ow_executor_get_enforcement (agent->executor));
  if (spilled != NULL)
    json_object_set_string_member (data, "spilled_to", spilled);
  /* The terminal block and the CLI's lines: one display for every surface. */
  if (g_str_equal (call->name, "run_shell"))
    add_command_display (data, run->cur_record != NULL ? run->cur_record : result_text);
  if (run->shell_changed != NULL && run->shell_changed->len > 0)
    {
      JsonArray *files = json_array_new ();
      for (guint i = 0; i < run->shell_changed->len; i++)
        json_array_add_string_element (files, g_ptr_array_index (run->shell_changed, i));
      json_object_set_array_member (data, "files_changed", files);
    }
  g_clear_pointer (&run->shell_before, ow_file_snapshot_free);
  g_clear_pointer (&run->shell_changed, g_ptr_array_unref);
  _ow_agent_emit (run, "tool_finished", data);
  _ow_agent_audit (run, call, "finished", ow_tool_status_to_string (status), NULL, run->cur_provenance, reason, preview);

  if (status == OW_TOOL_STATUS_INTERRUPTED)
    run->interrupted = TRUE;
  g_clear_pointer (&run->cur_args, json_object_unref);
  g_clear_pointer (&run->cur_provenance, g_free);
  g_clear_pointer (&run->cur_record, g_free);
  g_clear_object (&run->cur_tool);
  run->call_index++;
  _ow_agent_next_call (task);
}

void
_ow_agent_complete_error (GTask *task, OwToolStatus status, const char *message, const char *reason)
{
  g_autoptr(OwToolResult) r = ow_tool_result_new_error (status, message);

  if (reason != NULL)
    {
      g_autoptr(JsonObject) obj = ow_json_object_from_string (r->text, -1, NULL);
      g_autofree char *text = NULL;
      json_object_set_string_member (obj, "reason", reason);
      text = ow_json_object_to_string (obj);
      _ow_agent_complete_call (task, status, text, reason);
      return;
    }
  _ow_agent_complete_call (task, status, r->text, message);
}

/* After a shell command: where the shell is now, and what it downloaded
 * (so running that file later is a safety check). */
static void
note_shell_effects (Run *run, const char *result_text)
{
  OwAgent *agent = run->agent;
  g_autoptr(JsonObject) result = ow_json_object_from_string (result_text, -1, NULL);
  const char *cwd = result != NULL ? ow_json_get_string (result, "cwd") : NULL;
  const char *command = ow_json_get_string (run->cur_args, "command");

  if (command != NULL)
    {
      OwSafetyContext ctx;
      g_autoptr(GPtrArray) holder = NULL;
      g_auto(GStrv) downloads = NULL;

      holder = g_ptr_array_new_with_free_func (g_free);
      ctx = (OwSafetyContext) { .cwd = agent->shell_cwd != NULL ? agent->shell_cwd : ow_session_get_workspace (agent->session),
                                .home = g_get_home_dir () };
      downloads = ow_safety_downloads_of (&ctx, command);
      for (guint i = 0; downloads != NULL && downloads[i] != NULL; i++)
        g_ptr_array_add (agent->downloaded, g_strdup (downloads[i]));
    }
  if (cwd != NULL && g_path_is_absolute (cwd))
    {
      g_free (agent->shell_cwd);
      agent->shell_cwd = g_strdup (cwd);
    }
}

/* The folders a command may write in: where the files it makes land. */
static GStrv
writable_folders (OwAgent *agent)
{
  GPtrArray *roots = ow_session_get_roots (agent->session);
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      if (r->writable)
        g_ptr_array_add (out, g_strdup (r->path));
    }
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

static void
set_todos_cb (GObject *session, JsonArray *todos)
{
  ow_session_set_todos (OW_SESSION (session), todos);
}

static void tool_finish (GTask *task, OwToolResult *r, const GError *error);

/* A finished command's result, waiting for the folders' second walk. */
typedef struct {
  GTask        *task;    /* owned reference */
  OwToolResult *result;  /* owned, or NULL */
  GError       *error;   /* owned, or NULL */
} ShellAfter;

static void
on_shell_changes_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ShellAfter *after = user_data;
  Run *run = _ow_agent_run_of (after->task);

  run->shell_changed = ow_file_snapshot_changes_finish (result, NULL);
  tool_finish (after->task, after->result, after->error);
  g_clear_pointer (&after->result, ow_tool_result_free);
  g_clear_error (&after->error);
  g_object_unref (after->task);
  g_free (after);
}

/* The current call finished with @r (or @error): its result goes to the
 * history and the run moves on — after a command, once the folders are
 * walked again (in a worker thread) to see what it changed. */
static void
tool_done (GTask *task, OwToolResult *r, const GError *error)
{
  Run *run = _ow_agent_run_of (task);

  /* An interrupted command may have written files too. */
  if (run->shell_before != NULL)
    {
      g_auto(GStrv) folders = writable_folders (run->agent);
      ShellAfter *after = g_new0 (ShellAfter, 1);

      after->task = g_object_ref (task);
      after->result = r != NULL ? ow_tool_result_copy (r) : NULL;
      after->error = error != NULL ? g_error_copy (error) : NULL;
      ow_file_snapshot_changes_async (g_steal_pointer (&run->shell_before), (const char *const *) folders, NULL,
                                      on_shell_changes_cb, after);
      return;
    }
  tool_finish (task, r, error);
}

static void
tool_finish (GTask *task, OwToolResult *r, const GError *error)
{
  Run *run = _ow_agent_run_of (task);

  if (r == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _ow_agent_complete_error (task, OW_TOOL_STATUS_INTERRUPTED, "interrupted by user", NULL);
  else if (r == NULL)
    _ow_agent_complete_error (task, OW_TOOL_STATUS_ERROR, error->message, NULL);
  else if (g_str_equal (_ow_agent_current_call (run)->name, "run_shell"))
    {
      OwAgent *agent = run->agent;
      g_autofree char *before = g_strdup (agent->shell_cwd != NULL ? agent->shell_cwd
                                          : ow_session_get_workspace (agent->session));
      g_autofree char *lean = NULL;

      note_shell_effects (run, r->text);
      lean = ow_shell_result_for_model (r->text, before);
      g_free (run->cur_record);
      run->cur_record = g_strdup (r->text);
      _ow_agent_complete_call (task, r->status, lean, NULL);
    }
  else
    _ow_agent_complete_call (task, r->status, r->text, NULL);
}

static void
on_tool_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = ow_tool_call_finish (OW_TOOL (source), result, &error);

  tool_done (task, r, error);
  g_object_unref (task);
}

/* ---- Reads at once ---------------------------------------------------------
 *
 * Several low-risk reads in one reply (a model looking at five files before
 * it answers) need not wait for each other: when the first of them runs,
 * the reads that follow it directly, up to the first call that is anything
 * else, start too, each once the policy allows it as things stand (a read
 * that would ask a person waits for its turn, and so does everything after
 * it). Everything else about a call happens in order, as before: its
 * tool_proposed, policy decision, tool_started, result and audit rows, so
 * the model gets the results in the order it asked and every surface sees
 * the same sequence; only the work overlaps. Medium-risk calls (writes,
 * commands, the web) never start ahead: a read after a write must see it.
 * Only with the in-process executor, which runs each call on a thread of
 * its own; a sandbox's runner takes one request at a time.
 *
 * A call's own turn still decides: should the policy refuse it by then (a
 * person added a deny rule mid-reply), its early result is dropped unseen;
 * only a low-risk read the policy allowed a moment before ever starts
 * early, so nothing is done that the session was not already allowed to
 * do. web_fetch is left out: it can ask for a site mid-call. */


static const char *const read_tools[] = {
  "read_file", "list_files", "grep", "git_status", "git_diff", "git_log",
};

/* Whether the executor runs each call on a thread of its own. */
static gboolean
executor_in_process (OwExecutor *executor)
{
  if (OW_IS_SESSION_SANDBOX (executor))
    return g_strcmp0 (ow_session_sandbox_get_provider (OW_SESSION_SANDBOX (executor)), "direct") == 0;
  return OW_IS_EXECUTOR_DIRECT (executor);
}

static gboolean
runs_at_once (Run *run, OwTool *tool, const char *name)
{
  if (tool == NULL || !executor_in_process (run->agent->executor)
      || ow_tool_get_kind (tool) != OW_TOOL_KIND_EXECUTE || ow_tool_get_risk (tool) != OW_RISK_READ)
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (read_tools); i++)
    if (g_str_equal (name, read_tools[i]))
      return TRUE;
  return FALSE;
}

typedef struct {
  GTask *task;   /* owned */
  Ahead *ahead;  /* owned */
} AheadCall;

static void
on_ahead_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AheadCall *ac = user_data;
  Ahead *ahead = ac->ahead;

  ahead->result = ow_tool_call_finish (OW_TOOL (source), result, &ahead->error);
  ahead->done = TRUE;
  if (ahead->waiting != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&ahead->waiting);
      tool_done (task, ahead->result, ahead->error);
    }
  _ow_agent_ahead_unref (ahead);
  g_object_unref (ac->task);
  g_free (ac);
}

static void
start_ahead (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolContext ctx = {
    .session = G_OBJECT (agent->session),
    .executor = G_OBJECT (agent->executor),
    .set_todos = set_todos_cb,
  };

  for (guint j = run->call_index + 1; j < run->calls->len && j < OW_AGENT_MAX_CALLS_PER_REPLY; j++)
    {
      OwToolCall *call = g_ptr_array_index (run->calls, j);
      g_autoptr(JsonObject) args = NULL;
      OwDecision decision = { 0 };
      OwTool *tool;
      AheadCall *ac;
      gboolean allowed;

      if (g_hash_table_contains (run->ahead, call->id))
        continue;
      tool = ow_tool_registry_lookup (agent->tools, call->name);
      args = ow_tool_args_parse (call->arguments, -1, NULL);
      if (args == NULL || !runs_at_once (run, tool, call->name))
        break;
      _ow_agent_policy_decide (run, call, tool, args, &decision);
      allowed = decision.verdict == OW_VERDICT_ALLOW && decision.safety_checks == 0;
      ow_decision_clear (&decision);
      if (!allowed)
        break;

      ac = g_new0 (AheadCall, 1);
      ac->task = g_object_ref (task);
      ac->ahead = g_new0 (Ahead, 1);
      ac->ahead->refs = 1;
      g_hash_table_insert (run->ahead, g_strdup (call->id), ahead_ref (ac->ahead));
      ow_tool_call_async (tool, &ctx, args, run->cancellable, NULL, NULL, on_ahead_done_cb, ac);
    }
}


/* A tool that reports progress (an MCP server's long call): every surface
 * sees it under the call's step. Only the call in its turn reports; reads
 * started ahead of it are quick. */
static void
on_tool_progress_cb (double progress, double total, const char *message, gpointer user_data)
{
  Run *run = _ow_agent_run_of (user_data);
  OwToolCall *call = _ow_agent_current_call (run);
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_double_member (data, "progress", progress);
  if (total >= 0)
    json_object_set_double_member (data, "total", total);
  if (message != NULL)
    {
      g_autofree char *safe = ow_redact (message);
      json_object_set_string_member (data, "message", safe);
    }
  _ow_agent_emit (run, "tool_progress", data);
}

static void start_current (GTask *task);
static void on_shell_before_cb (GObject *source, GAsyncResult *result, gpointer user_data);

void
_ow_agent_execute_current (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  g_autoptr(GError) error = NULL;

  /* An approval answered in the inbox may be acted on by a turn resumed
   * after a restart: the attendant's record makes sure the call runs once. */
  if (!ow_attendant_begin_run (agent->attendant, ow_session_get_id (agent->session), call->id, &error))
    {
      _ow_agent_complete_error (task, OW_TOOL_STATUS_ERROR, error != NULL ? error->message : "tool call not executed", NULL);
      return;
    }
  /* The command guard makes the safety checks true in the kernel, so a
   * check a person approved (or the dangerous mode cleared) must lift it
   * for this call; the next call is guarded again. The audit row's
   * enforcement level says which it was. */
  ow_executor_set_guard_off (agent->executor,
                             run->decision.safety_checks != 0
                             || g_str_equal (ow_session_get_mode (agent->session), "dangerously-bypass-approvals"));
  /* What the command is about to change, seen from before it runs (the
   * deliverables list every file the session changed, however made). The
   * walk runs in a worker thread; the call starts once it is done. */
  g_clear_pointer (&run->shell_before, ow_file_snapshot_free);
  g_clear_pointer (&run->shell_changed, g_ptr_array_unref);
  if (g_str_equal (call->name, "run_shell"))
    {
      g_auto(GStrv) folders = writable_folders (agent);

      ow_file_snapshot_take_async ((const char *const *) folders, NULL, on_shell_before_cb, g_object_ref (task));
      return;
    }
  start_current (task);
}

static void
on_shell_before_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;

  _ow_agent_run_of (task)->shell_before = ow_file_snapshot_take_finish (result, NULL);
  start_current (task);
  g_object_unref (task);
}

/* The current call, allowed and begun: tool_started, then its result (a
 * read started ahead may have it already) or its execution. */
static void
start_current (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  OwToolContext ctx = {
    .session = G_OBJECT (agent->session),
    .executor = G_OBJECT (agent->executor),
    .set_todos = set_todos_cb,
    .ask_async = _ow_agent_tool_ask_async,
    .ask_finish = _ow_agent_tool_ask_finish,
    .ask_data = G_OBJECT (task),
  };
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  _ow_agent_emit (run, "tool_started", data);
  _ow_agent_audit (run, call, "started", NULL, NULL, run->cur_provenance, NULL, NULL);

  /* Started ahead of its turn (see start_ahead()): its result, now or
   * when it comes. */
  {
    gpointer key = NULL, value = NULL;

    if (g_hash_table_steal_extended (run->ahead, call->id, &key, &value))
      {
        Ahead *ahead = value;

        g_free (key);
        if (ahead->done)
          tool_done (task, ahead->result, ahead->error);
        else
          ahead->waiting = g_object_ref (task);
        _ow_agent_ahead_unref (ahead);
        return;
      }
  }
  ow_tool_call_async (run->cur_tool, &ctx, run->cur_args, run->cancellable, on_tool_progress_cb, task,
                      on_tool_done_cb, g_object_ref (task));
  if (runs_at_once (run, run->cur_tool, call->name))
    start_ahead (task);
}

/* Answers every call of the reply from the cap on without running it, in
 * one loop (not one call at a time: thousands of them would recurse
 * through complete_call), and says so once. FALSE: the store failed and
 * the task is finished. */
static gboolean
answer_calls_over_cap (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  guint asked = run->calls->len;
  guint skipped = asked - run->call_index;
  g_autoptr(JsonObject) result = json_object_new ();
  g_autofree char *reason = g_strdup_printf (
    "Your reply asked for %u tool calls; only the first %u of a reply are run, so this one was not. "
    "If it is still needed, call it again in your next reply (at most %u calls per reply).",
    asked, OW_AGENT_MAX_CALLS_PER_REPLY, OW_AGENT_MAX_CALLS_PER_REPLY);
  g_autofree char *text = NULL;
  JsonObject *data;

  json_object_set_string_member (result, "error", "tool call not executed");
  json_object_set_string_member (result, "reason", reason);
  text = ow_json_object_to_string (result);
  for (; run->call_index < asked; run->call_index++)
    {
      OwToolCall *call = _ow_agent_current_call (run);
      JsonObject *msg = ow_message_json_tool (call->id, text);
      gboolean ok = _ow_agent_append (task, msg);

      json_object_unref (msg);
      if (!ok)
        return FALSE;
    }
  data = json_object_new ();
  json_object_set_int_member (data, "requested", asked);
  json_object_set_int_member (data, "run", asked - skipped);
  json_object_set_int_member (data, "not_run", skipped);
  json_object_set_int_member (data, "limit", OW_AGENT_MAX_CALLS_PER_REPLY);
  _ow_agent_emit (run, "tool_calls_capped", data);
  return TRUE;
}

void
_ow_agent_next_call (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call;
  JsonObject *data;
  g_autofree char *problem = NULL;

  if (run->call_index >= OW_AGENT_MAX_CALLS_PER_REPLY && run->call_index < run->calls->len
      && !answer_calls_over_cap (task))
    return;
  if (run->call_index >= run->calls->len)
    {
      data = json_object_new ();
      json_object_set_int_member (data, "iteration", run->iterations);
      _ow_agent_emit (run, "iteration_end", data);
      if (run->interrupted || g_cancellable_is_cancelled (run->cancellable))
        _ow_agent_finish_interrupted (task);
      else
        _ow_agent_iterate (task);
      return;
    }

  call = _ow_agent_current_call (run);
  ow_decision_clear (&run->decision);
  run->cur_args = ow_tool_args_parse (call->arguments, -1, &problem);

  data = json_object_new ();
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  if (run->cur_args != NULL)
    json_object_set_object_member (data, "arguments", json_object_ref (run->cur_args));
  else
    {
      g_autofree char *raw = ow_tool_args_history_raw (call->arguments);
      json_object_set_object_member (data, "arguments", ow_json_object_from_string (raw, -1, NULL));
    }
  _ow_agent_emit (run, "tool_proposed", data);

  if (run->interrupted || g_cancellable_is_cancelled (run->cancellable))
    {
      _ow_agent_audit (run, call, "finished", "interrupted", NULL, NULL, "interrupted by user", NULL);
      _ow_agent_complete_error (task, OW_TOOL_STATUS_INTERRUPTED, "interrupted by user", NULL);
      return;
    }
  _ow_agent_audit (run, call, "proposed", NULL, NULL, NULL, NULL, NULL);

  if (run->cur_args == NULL)
    {
      g_autofree char *text = ow_tool_args_mangled_result (run->reply_cut, problem);
      _ow_agent_complete_call (task, OW_TOOL_STATUS_ERROR, text, "arguments could not be parsed");
      return;
    }

  g_set_object (&run->cur_tool, ow_tool_registry_lookup (agent->tools, call->name));
  if (run->cur_tool == NULL)
    {
      g_autofree char *refused = ow_tool_registry_refused_reason (agent->tools, call->name);
      g_autofree char *msg = NULL;

      if (refused != NULL)
        {
          /* Not offered because a person denied it: say so, and record it. */
          _ow_agent_refuse (task, "denied by configuration", refused, OW_TOOL_STATUS_DENIED);
          return;
        }
      msg = g_strdup_printf ("unknown tool: %s", call->name);
      _ow_agent_complete_error (task, OW_TOOL_STATUS_ERROR, msg, NULL);
      return;
    }

  if (ow_tool_get_kind (run->cur_tool) == OW_TOOL_KIND_REQUEST_SITE)
    {
      if (agent->sites == NULL)
        _ow_agent_complete_error (task, OW_TOOL_STATUS_ERROR, "this session has no sandbox allow list, so there is nothing to ask for",
                        NULL);
      else
        _ow_agent_request_site (task);
      return;
    }
  if (agent->sites != NULL && g_str_equal (call->name, "web_fetch")
      && !g_str_equal (ow_session_get_mode (agent->session), "dangerously-bypass-approvals"))
    {
      g_autofree char *site = _ow_agent_site_of_url (ow_json_get_string (run->cur_args, "url"));
      if (site != NULL && !_ow_agent_site_allowed (agent, site))
        {
          g_autofree char *reason = g_strdup_printf ("web_fetch of %s", ow_json_get_string (run->cur_args, "url"));
          _ow_agent_ask_site (task, site, reason);
          return;
        }
    }

  if (ow_tool_get_kind (run->cur_tool) != OW_TOOL_KIND_EXECUTE)
    {
      gboolean is_dir = ow_tool_get_kind (run->cur_tool) == OW_TOOL_KIND_REQUEST_DIRECTORY;
      data = json_object_new ();
      {
        JsonObjectIter iter;
        const char *key;
        JsonNode *value;
        json_object_iter_init (&iter, run->cur_args);
        while (json_object_iter_next (&iter, &key, &value))
          json_object_set_member (data, key, json_node_copy (value));
      }
      json_object_set_string_member (data, "call_id", call->id);
      _ow_agent_audit (run, call, is_dir ? "directory_requested" : "question_requested", NULL, NULL, NULL, NULL, NULL);
      /* Parked first, then announced (see ask_person). */
      if (is_dir)
        ow_attendant_request_directory_async (agent->attendant, ow_session_get_id (agent->session), call->id,
                                              run->cur_args, run->cancellable, _ow_agent_on_interaction_cb, g_object_ref (task));
      else
        ow_attendant_ask_async (agent->attendant, ow_session_get_id (agent->session), call->id, run->cur_args,
                                run->cancellable, _ow_agent_on_interaction_cb, g_object_ref (task));
      _ow_agent_emit (run, is_dir ? "directory_requested" : "question_requested", data);
      return;
    }

  _ow_agent_decide_current (task);
}
