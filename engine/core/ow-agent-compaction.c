/* ow-agent-compaction.c: compaction of the turn loop.
 *
 * When the next call would pass the session's compaction trigger, or the
 * model refused the context, the turns before a boundary are summarized by
 * the model (twice at most) or, failing that, dropped; the state is saved
 * with a notice in the transcript, and the call goes ahead.
 */
#define G_LOG_DOMAIN "ow-agent"

#include "core/ow-agent-private.h"

/* ---- Compaction ----------------------------------------------------------- */

static void request_summary (GTask *task);

/* The size of what the next call would send: the last reply's prompt total
 * when known (it is the provider's own count), else an estimate. */
static gint64
context_signal (OwAgent *agent)
{
  g_autoptr(JsonArray) history = NULL;
  g_autoptr(JsonArray) outbound = NULL;

  if (agent->last_context >= 0)
    return agent->last_context;
  history = ow_session_dup_history (agent->session);
  outbound = ow_compaction_outbound (history, ow_session_get_compaction (agent->session));
  return ow_compaction_estimate_tokens (outbound);
}

gboolean
_ow_agent_compaction_due (OwAgent *agent)
{
  return context_signal (agent) >= ow_agent_get_compaction_trigger (agent);
}

/* Saves @state, adds the notice to the transcript and says so. The notice
 * keeps what was sent in place of the older turns, and the summarizer's
 * token counts (@usage, or NULL), for the record. */
static gboolean
record_compaction (GTask *task, OwCompactionState *state, const char *text, const OwUsage *usage)
{
  Run *run = _ow_agent_run_of (task);
  g_autoptr(GError) error = NULL;
  JsonObject *notice, *data;
  gboolean ok;

  if (!ow_session_set_compaction (run->agent->session, state, &error))
    {
      JsonObject *failed = json_object_new ();

      json_object_set_string_member (failed, "error", error->message);
      json_object_set_string_member (failed, "error_type", "StorageError");
      _ow_agent_emit (run, "error", failed);
      _ow_agent_finish (task, OW_OUTCOME_STORAGE_ERROR, error->message, "StorageError");
      return FALSE;
    }
  notice = ow_message_json_notice ("compacted", text);
  json_object_set_int_member (notice, "boundary", state->boundary);
  json_object_set_boolean_member (notice, "trimmed", state->trimmed);
  {
    g_autofree char *block = ow_compaction_block (state);
    json_object_set_string_member (notice, "context", block);
  }
  if (usage != NULL)
    json_object_set_object_member (notice, "usage", _ow_agent_usage_json (run->agent, usage));
  ok = _ow_agent_append (task, notice);
  json_object_unref (notice);
  if (!ok)
    return FALSE;
  data = json_object_new ();
  json_object_set_string_member (data, "text", text);
  json_object_set_int_member (data, "boundary", state->boundary);
  json_object_set_boolean_member (data, "trimmed", state->trimmed);
  _ow_agent_emit (run, "compacted", data);
  run->agent->last_context = -1;
  return TRUE;
}

/* No summary to be had: drop the oldest turns instead, or — when even that
 * cannot move and the model refused the context — end with its error. */
static void
compact_by_trimming (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  const OwCompactionState *prior = ow_session_get_compaction (agent->session);
  g_autoptr(OwCompactionState) state = prior != NULL ? ow_compaction_state_copy (prior) : ow_compaction_state_new ();
  g_autoptr(JsonArray) history = ow_session_dup_history (agent->session);

  if (ow_compaction_trim (state, history))
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

      g_free (state->created_at);
      state->created_at = g_date_time_format_iso8601 (now);
      if (!record_compaction (task, state, "Context trimmed — oldest turns dropped (summary unavailable)", NULL))
        return;
      _ow_agent_call_model (task);
      return;
    }
  if (run->compact_forced)
    {
      _ow_agent_finish_error (task, OW_OUTCOME_MODEL_ERROR, run->overflow_error, "ContextOverflowError", NULL);
      return;
    }
  _ow_agent_call_model (task);
}

static void
on_summary_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwCallInfo) info = NULL;
  g_autoptr(OwTurn) turn = ow_provider_complete_finish (OW_PROVIDER (source), result, &info, NULL, &error);
  g_autoptr(JsonArray) history = g_steal_pointer (&run->compact_history);

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      _ow_agent_report_call (run, "cancelled", NULL, info, error, -1, -1);
      _ow_agent_finish_interrupted (task);
      g_object_unref (task);
      return;
    }
  if (turn != NULL)
    g_strstrip (turn->text->str);
  /* A summary is recorded with the notice that follows it. */
  _ow_agent_report_call (run, turn != NULL ? "ok" : "error", turn, info, error, -1,
               turn != NULL && *turn->text->str != '\0'
               ? (gint64) g_list_model_get_n_items (G_LIST_MODEL (agent->session)) : -1);
  if (turn != NULL && *turn->text->str != '\0')
    {
      const OwCompactionState *prior = ow_session_get_compaction (agent->session);
      g_autoptr(OwCompactionState) state = prior != NULL ? ow_compaction_state_copy (prior)
                                                         : ow_compaction_state_new ();
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      guint from = ow_compaction_span_start (history, prior);

      ow_compaction_add_user_messages (state, history, from, run->compact_boundary);
      state->boundary = run->compact_boundary;
      g_free (state->summary);
      state->summary = g_strdup (turn->text->str);
      g_free (state->working_state);
      state->working_state = ow_compaction_working_state (history, ow_compaction_span_start (history, NULL),
                                                          state->boundary);
      g_free (state->created_at);
      state->created_at = g_date_time_format_iso8601 (now);
      g_free (state->model_used);
      state->model_used = g_strdup (ow_session_get_model (agent->session));
      state->trimmed = FALSE;
      if (record_compaction (task, state, "Context compacted — earlier turns were summarized",
                             turn->has_usage ? &turn->usage : NULL))
        _ow_agent_call_model (task);
      g_object_unref (task);
      return;
    }
  /* One more try, then trimming. */
  if (++run->compact_failures < 2)
    request_summary (task);
  else
    compact_by_trimming (task);
  g_object_unref (task);
}

/* Asks the model for a summary of the turns before the boundary this
 * compaction needs (run->compact_forced: the model refused the context). */
static void
request_summary (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  const OwCompactionState *prior = ow_session_get_compaction (agent->session);
  g_autoptr(JsonArray) history = ow_session_dup_history (agent->session);
  g_autoptr(JsonArray) outbound = ow_compaction_outbound (history, prior);
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autofree char *span = NULL;
  gint64 keep = ow_agent_get_compaction_trigger (agent) / 4;
  JsonObject *msg;
  OwModelRequest req;
  guint boundary;

  /* The model refused what was sent: keep a quarter of that at most. */
  if (run->compact_forced)
    keep = MIN (keep, ow_compaction_estimate_tokens (outbound) / 4);
  boundary = ow_compaction_pick_boundary (history, prior != NULL ? prior->boundary : 0, keep);
  if (boundary == 0)
    {
      compact_by_trimming (task);
      return;
    }
  if (run->compact_failures == 0)
    _ow_agent_emit (run, "compacting", json_object_new ());

  span = ow_compaction_render_span (history, ow_compaction_span_start (history, prior), boundary,
                                    prior != NULL ? prior->summary : NULL);
  msg = json_object_new ();
  json_object_set_string_member (msg, "role", "system");
  json_object_set_string_member (msg, "content", ow_compaction_summary_prompt);
  json_array_add_object_element (messages, msg);
  json_array_add_object_element (messages, ow_message_json_user (span));

  g_clear_pointer (&run->compact_history, json_array_unref);
  run->compact_history = g_steal_pointer (&history);
  run->compact_boundary = boundary;

  ow_model_request_init (&req);
  req.model = agent->bare_model;
  req.messages = messages;
  req.stream = FALSE;
  req.max_output_tokens = OW_COMPACTION_SUMMARY_MAX_TOKENS;
  req.temperature = agent->temperature;
  req.top_p = agent->top_p;
  req.context_size = agent->context_size;
  req.provider_order = agent->provider_order;
  run->call_started_ms = g_get_real_time () / 1000;
  ow_provider_complete_async (agent->provider, &req, NULL, NULL, run->cancellable, on_summary_cb,
                              g_object_ref (task));
}

void
_ow_agent_start_compaction (GTask *task, gboolean forced)
{
  Run *run = _ow_agent_run_of (task);

  run->compact_forced = forced;
  run->compact_failures = 0;
  request_summary (task);
}
