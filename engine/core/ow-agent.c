/* ow-agent.c: the turn loop (see ow-agent.h for what it does).
 *
 * The loop is a chain of callbacks on the main loop, one GTask per turn
 * carrying a Run. The states are:
 *
 *   iterate ──▶ call_model ──▶ on_model_done ──┬─▶ (no tool calls) finish
 *      ▲                           │            └─▶ next_call ─▶ … ─▶ iterate
 *      │                           └─▶ transient failure: wait_then_retry ─▶ call_model
 *      └─────────────────────────────────────────────────────────────────────┘
 *
 * next_call walks the assistant message's tool calls in order: propose,
 * parse the arguments, decide (policy), ask (attendant) when needed,
 * execute, bound, append the result. Any stop on the way answers the calls
 * not yet run with "interrupted by user", so the history never holds a
 * tool call without its result.
 *
 * The states live in files of their own over ow-agent-private.h: model
 * calls in ow-agent-model.c, compaction in ow-agent-compaction.c, tool
 * calls in ow-agent-tools.c, the policy's verdict and a person's answer in
 * ow-agent-approval.c, site cards in ow-agent-sites.c. This file holds the
 * object, its setters, the helpers they all use and the entry points.
 */
#define G_LOG_DOMAIN "ow-agent"

#include "core/ow-agent-private.h"

static const double default_delays[] = { 2, 5, 10, 30, 60, 120, 240, 300, 300 };

enum {
  SIGNAL_MODEL_CALL,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwAgent, ow_agent, G_TYPE_OBJECT)

static void
run_free (Run *run)
{
  g_clear_pointer (&run->wait_source, g_source_destroy);
  g_clear_pointer (&run->cancel_source, g_source_destroy);
  g_clear_pointer (&run->calls, g_ptr_array_unref);
  g_clear_pointer (&run->cur_args, json_object_unref);
  g_clear_object (&run->cur_tool);
  g_clear_pointer (&run->cur_provenance, g_free);
  g_clear_pointer (&run->cur_record, g_free);
  g_clear_pointer (&run->ahead, g_hash_table_unref);
  ow_decision_clear (&run->decision);
  g_free (run->review_mode);
  g_free (run->site);
  g_clear_pointer (&run->shell_before, ow_file_snapshot_free);
  g_clear_pointer (&run->shell_changed, g_ptr_array_unref);
  g_clear_pointer (&run->compact_history, json_array_unref);
  g_free (run->overflow_error);
  for (guint i = 0; i < G_N_ELEMENTS (run->delta_streams); i++)
    g_clear_pointer (&run->delta_streams[i], ow_redact_stream_free);
  g_clear_object (&run->cancellable);
  if (run->agent != NULL && run->agent->current == run)
    {
      run->agent->running = FALSE;
      run->agent->current = NULL;
      run->agent->parking = FALSE;
    }
  g_clear_object (&run->agent);
  g_free (run);
}

const char *
ow_outcome_to_string (OwOutcome outcome)
{
  switch (outcome)
    {
    case OW_OUTCOME_COMPLETED: return "completed";
    case OW_OUTCOME_MAX_ITERATIONS: return "max_iterations";
    case OW_OUTCOME_CUT_OFF: return "cut_off";
    case OW_OUTCOME_MODEL_ERROR: return "model_error";
    case OW_OUTCOME_INTERRUPTED: return "interrupted";
    case OW_OUTCOME_STORAGE_ERROR: return "storage_error";
    case OW_OUTCOME_PARKED: return "parked";
    default: return "unknown";
    }
}

void
ow_turn_result_free (OwTurnResult *result)
{
  if (result == NULL)
    return;
  g_free (result->error);
  g_free (result->error_type);
  g_free (result);
}

/* ---- GObject ------------------------------------------------------------ */

static void
ow_agent_finalize (GObject *object)
{
  OwAgent *self = OW_AGENT (object);

  g_clear_object (&self->session);
  g_clear_object (&self->provider);
  g_clear_object (&self->tools);
  g_clear_object (&self->executor);
  g_clear_object (&self->policy);
  g_clear_object (&self->attendant);
  g_free (self->bare_model);
  g_free (self->cache_key);
  g_free (self->instructions);
  g_free (self->effort);
  g_free (self->provider_order);
  g_free (self->spill_dir);
  g_array_unref (self->retry_delays);
  g_clear_object (&self->reviewer);
  g_free (self->role_title);
  g_free (self->role_prompt);
  g_free (self->guidance);
  g_clear_object (&self->sites);
  g_strfreev (self->tool_env);
  g_clear_object (&self->guard);
  g_strfreev (self->agent_dirs);
  g_ptr_array_unref (self->downloaded);
  g_free (self->shell_cwd);
  g_free (self->request);
  G_OBJECT_CLASS (ow_agent_parent_class)->finalize (object);
}

static void
ow_agent_class_init (OwAgentClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_agent_finalize;

  /**
   * OwAgent::model-call:
   * @call: (type gpointer): an OwModelCall, valid during emission
   *
   * Emitted after every model call, successful or not.
   */
  signals[SIGNAL_MODEL_CALL] =
    g_signal_new ("model-call", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
ow_agent_init (OwAgent *self)
{
  self->max_iterations = 150;
  self->temperature = -1;
  self->top_p = -1;
  self->thinking = -1;
  self->compact_threshold = OW_COMPACTION_DEFAULT_THRESHOLD;
  self->last_context = -1;
  self->result_max = 10000;
  self->retry_delays = g_array_new (FALSE, FALSE, sizeof (double));
  g_array_append_vals (self->retry_delays, default_delays, G_N_ELEMENTS (default_delays));
  self->downloaded = g_ptr_array_new_with_free_func (g_free);
  self->tool_env = ow_tool_environment (NULL);
}

OwAgent *
ow_agent_new (OwSession      *session,
              OwProvider     *provider,
              const char     *bare_model,
              OwToolRegistry *tools,
              OwExecutor     *executor,
              OwPolicy       *policy,
              OwAttendant    *attendant,
              OwAuditLog     *audit)
{
  OwAgent *self = g_object_new (OW_TYPE_AGENT, NULL);

  self->session = g_object_ref (session);
  self->provider = g_object_ref (provider);
  self->bare_model = g_strdup (bare_model);
  /* One key for the whole session, so every call of it lands on the same
   * cache shard (OpenAI routes by key plus prefix). A digest of the id:
   * the service needs a stable name, not our session's. */
  {
    g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, ow_session_get_id (session), -1);
    self->cache_key = g_strdup_printf ("ow-%.32s", digest);
  }
  self->vision = ow_provider_entry_model_has_vision (ow_provider_catalog_lookup (ow_provider_get_id (provider)),
                                                     bare_model);
  self->tools = g_object_ref (tools);
  self->executor = g_object_ref (executor);
  self->policy = g_object_ref (policy);
  self->attendant = g_object_ref (attendant);
  self->audit = audit;
  ow_executor_set_roots (executor, ow_session_get_roots (session));
  return self;
}

OwSession *
ow_agent_get_session (OwAgent *self)
{
  return self->session;
}

const char *
ow_agent_get_instructions (OwAgent *self)
{
  return self->instructions;
}

OwToolRegistry *
ow_agent_get_tools (OwAgent *self)
{
  return self->tools;
}

void
ow_agent_set_instructions (OwAgent *self, const char *instructions)
{
  g_free (self->instructions);
  self->instructions = g_strdup (instructions);
}

void
ow_agent_set_max_iterations (OwAgent *self, guint max_iterations)
{
  self->max_iterations = MAX (max_iterations, 1);
}

void
ow_agent_set_max_output_tokens (OwAgent *self, gint64 max_output_tokens)
{
  self->max_output_tokens = MAX (max_output_tokens, 0);
}

void
ow_agent_set_reasoning_effort (OwAgent *self, const char *effort)
{
  g_free (self->effort);
  self->effort = g_strdup (effort);
}

void
ow_agent_set_provider_order (OwAgent *self, const char *order)
{
  g_free (self->provider_order);
  self->provider_order = g_strdup (order);
}

void
ow_agent_set_sampling (OwAgent *self, double temperature, double top_p, gint64 context_size, int thinking)
{
  self->temperature = temperature;
  self->top_p = top_p;
  self->context_size = context_size;
  self->thinking = thinking;
}

void
ow_agent_set_compaction (OwAgent *self, gint64 window, double threshold, gint64 cap)
{
  self->compact_window = window;
  self->compact_threshold = threshold;
  self->compact_cap = cap;
}

gint64
ow_agent_get_compaction_trigger (OwAgent *self)
{
  return ow_compaction_trigger (self->compact_window, self->compact_threshold, self->compact_cap);
}

gboolean
ow_agent_set_tool_result_limit (OwAgent *self, gsize max_bytes, const char *spill_dir, GError **error)
{
  self->result_max = max_bytes;
  g_free (self->spill_dir);
  self->spill_dir = g_strdup (spill_dir);
  if (max_bytes == 0 || spill_dir == NULL)
    return TRUE;
  /* The spilled files must be readable by read_file, so the folder joins
   * the session read-only. */
  if (!ow_paths_ensure_dir (spill_dir, error)
      || !ow_session_add_root (self->session, spill_dir, FALSE, "tool-output", error))
    return FALSE;
  ow_executor_set_roots (self->executor, ow_session_get_roots (self->session));
  return TRUE;
}

void
ow_agent_set_retry_delays (OwAgent *self, const double *delays, guint n_delays)
{
  g_array_set_size (self->retry_delays, 0);
  g_array_append_vals (self->retry_delays, delays, n_delays);
}

void
ow_agent_load_retry_delays (OwAgent *self)
{
  /* Harnesses and tests may shorten the waits; the schedule's length is the
   * number of retries. Every surface reads it here, so the variable the
   * README documents means the same thing in the CLI, the server and the
   * desktop. */
  const char *env = g_getenv ("OPENWORKER_RETRY_DELAYS");
  g_auto(GStrv) parts = NULL;
  g_autoptr(GArray) delays = NULL;

  g_return_if_fail (OW_IS_AGENT (self));

  if (env == NULL || *env == '\0')
    return;
  parts = g_strsplit (env, ",", -1);
  delays = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; parts[i] != NULL; i++)
    {
      double d = g_ascii_strtod (parts[i], NULL);
      g_array_append_val (delays, d);
    }
  ow_agent_set_retry_delays (self, (const double *) delays->data, delays->len);
}

void
ow_agent_set_reviewer (OwAgent *self, OwReviewer *reviewer, const char *role_title, const char *role_prompt,
                       const char *guidance)
{
  g_set_object (&self->reviewer, reviewer);
  g_free (self->role_title);
  self->role_title = g_strdup (role_title);
  g_free (self->role_prompt);
  self->role_prompt = g_strdup (role_prompt);
  g_free (self->guidance);
  self->guidance = g_strdup (guidance);
}

OwReviewer *
ow_agent_get_reviewer (OwAgent *self)
{
  return self->reviewer;
}

void
ow_agent_set_agent_dirs (OwAgent *self, const char *const *dirs)
{
  g_strfreev (self->agent_dirs);
  self->agent_dirs = g_strdupv ((char **) dirs);
}

void
ow_agent_set_sites (OwAgent *self, OwSiteList *sites, OwAddressGuard *guard)
{
  g_return_if_fail (OW_IS_AGENT (self));
  g_set_object (&self->sites, sites);
  g_set_object (&self->guard, guard);
}

void
_ow_agent_emit_model_call (OwAgent *self, OwModelCall *call)
{
  g_signal_emit (self, signals[SIGNAL_MODEL_CALL], 0, call);
}

const double *
ow_agent_default_retry_delays (guint *n_delays)
{
  *n_delays = G_N_ELEMENTS (default_delays);
  return default_delays;
}

/* ---- Helpers ------------------------------------------------------------ */

Run *
_ow_agent_run_of (GTask *task)
{
  return g_task_get_task_data (task);
}

void
_ow_agent_emit (Run *run, const char *type, JsonObject *data)
{
  /* An event that cannot be saved is still delivered; the messages that
   * matter are saved separately and fail the turn when they cannot be. */
  g_autoptr(GError) error = NULL;

  if (!ow_session_emit (run->agent->session, type, data, &error))
    g_message ("Could not save the %s event: %s", type, error->message);
}

void
_ow_agent_finish (GTask *task, OwOutcome outcome, const char *error, const char *error_type)
{
  Run *run = _ow_agent_run_of (task);
  OwTurnResult *result = g_new0 (OwTurnResult, 1);

  result->outcome = outcome;
  result->iterations = run->iterations;
  result->error = g_strdup (error);
  result->error_type = g_strdup (error_type);
  g_task_return_pointer (task, result, (GDestroyNotify) ow_turn_result_free);
}

gboolean
_ow_agent_append (GTask *task, JsonObject *msg)
{
  Run *run = _ow_agent_run_of (task);
  g_autoptr(GError) error = NULL;

  if (ow_session_append_message (run->agent->session, msg, &error))
    return TRUE;
  {
    JsonObject *data = json_object_new ();
    json_object_set_string_member (data, "error", error->message);
    json_object_set_string_member (data, "error_type", "StorageError");
    _ow_agent_emit (run, "error", data);
  }
  _ow_agent_finish (task, OW_OUTCOME_STORAGE_ERROR, error->message, "StorageError");
  return FALSE;
}

void
_ow_agent_audit (Run *run, OwToolCall *call, const char *stage, const char *status, const char *approval,
       const char *provenance, const char *reason, const char *preview)
{
  OwAgent *agent = run->agent;
  g_autoptr(GError) error = NULL;
  OwAuditEntry e = {
    .session_id = ow_session_get_id (agent->session),
    .agent = ow_session_get_coworker (agent->session),
    .workspace = ow_session_get_workspace (agent->session),
    .tool = call->name,
    .call_id = call->id,
    .stage = stage,
    .status = status,
    .approval = approval,
    .provenance = provenance,
    .args = run->cur_args,
    .result_preview = preview,
    .reason = reason,
    .enforcement = ow_executor_get_enforcement (agent->executor),
    .risk = run->cur_tool != NULL ? ow_risk_to_string (ow_tool_get_risk (run->cur_tool)) : NULL,
    .decision = run->cur_tool != NULL && run->decision.reason != NULL ? ow_verdict_to_string (run->decision.verdict) : NULL,
  };

  if (agent->audit != NULL && !ow_audit_log_append (agent->audit, &e, &error))
    g_message ("Could not write the audit row: %s", error->message);
}

/* ---- Ending the turn ---------------------------------------------------- */

/* Sets an assistant message's text without any value the engine holds: the
 * message is saved in the session's database and sent back to the model,
 * and a model that repeats a key it came across must not make either
 * keep it. (Reasoning is kept as it came: a provider's signature covers
 * it. Events are redacted where they are emitted, ow_session_emit().) */
void
_ow_agent_set_content (JsonObject *msg, const char *text)
{
  g_autofree char *safe = ow_redact_registered (text);

  json_object_set_string_member (msg, "content", safe);
}

/* Persists what streamed before a failure, so nothing the person saw is
 * lost: an assistant message with the partial text and no tool calls. */
gboolean
_ow_agent_persist_partial (GTask *task, OwTurn *partial)
{
  JsonObject *msg;

  if (partial == NULL || (partial->text->len == 0 && partial->reasoning->len == 0))
    return TRUE;
  msg = json_object_new ();
  json_object_set_string_member (msg, "role", "assistant");
  _ow_agent_set_content (msg, partial->text->str);
  if (partial->reasoning->len > 0)
    json_object_set_string_member (msg, "reasoning", partial->reasoning->str);
  json_object_set_double_member (msg, "ts", (double) g_get_real_time () / G_USEC_PER_SEC);
  json_object_set_boolean_member (msg, "partial", TRUE);
  {
    gboolean ok = _ow_agent_append (task, msg);
    json_object_unref (msg);
    return ok;
  }
}

void
_ow_agent_finish_interrupted (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  JsonObject *notice = ow_message_json_notice ("interrupted", "Stopped by the person.");
  JsonObject *data;

  if (!_ow_agent_append (task, notice))
    {
      json_object_unref (notice);
      return;
    }
  json_object_unref (notice);
  data = json_object_new ();
  json_object_set_int_member (data, "iterations", run->iterations);
  _ow_agent_emit (run, "interrupted", data);
  _ow_agent_finish (task, OW_OUTCOME_INTERRUPTED, NULL, NULL);
}

void
_ow_agent_finish_error (GTask *task, OwOutcome outcome, const char *message, const char *error_type, const char *raw)
{
  Run *run = _ow_agent_run_of (task);
  JsonObject *notice = ow_message_json_notice ("error", message);
  JsonObject *data;

  if (!_ow_agent_append (task, notice))
    {
      json_object_unref (notice);
      return;
    }
  json_object_unref (notice);
  data = json_object_new ();
  json_object_set_string_member (data, "error", message);
  json_object_set_string_member (data, "error_type", error_type);
  if (raw != NULL)
    json_object_set_string_member (data, "raw", raw);
  _ow_agent_emit (run, "error", data);
  _ow_agent_finish (task, outcome, message, error_type);
}

void
_ow_agent_finish_turn_end (GTask *task, OwOutcome outcome, const char *status)
{
  Run *run = _ow_agent_run_of (task);
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "status", status);
  json_object_set_int_member (data, "iterations", run->iterations);
  _ow_agent_emit (run, "turn_end", data);
  _ow_agent_finish (task, outcome, NULL, NULL);
}

/* ---- The loop ----------------------------------------------------------- */

void
_ow_agent_iterate (GTask *task)
{
  Run *run = _ow_agent_run_of (task);

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      _ow_agent_finish_interrupted (task);
      return;
    }
  if (run->iterations >= run->agent->max_iterations)
    {
      _ow_agent_finish_turn_end (task, OW_OUTCOME_MAX_ITERATIONS, "max_iterations_exceeded");
      return;
    }
  if (_ow_agent_compaction_due (run->agent))
    _ow_agent_start_compaction (task, FALSE);
  else
    _ow_agent_call_model (task);
}

/* ---- Entry -------------------------------------------------------------- */

void
ow_agent_run_async (OwAgent            *self,
                    const char         *input,
                    GCancellable       *cancellable,
                    GAsyncReadyCallback callback,
                    gpointer            user_data)
{
  g_autoptr(JsonObject) user = ow_message_json_user (input);

  ow_agent_run_message_async (self, user, input, cancellable, callback, user_data);
}

void
ow_agent_run_message_async (OwAgent            *self,
                            JsonObject         *user,
                            const char         *request,
                            GCancellable       *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Run *run = g_new0 (Run, 1);
  JsonObject *data;

  g_task_set_source_tag (task, ow_agent_run_async);
  /* The loop reports cancellation itself (as an "interrupted" outcome with
   * the record intact), so the task must not short-circuit it. */
  g_task_set_check_cancellable (task, FALSE);
  run->agent = g_object_ref (self);
  run->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  run->ahead = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) _ow_agent_ahead_unref);
  g_task_set_task_data (task, run, (GDestroyNotify) run_free);

  if (self->running)
    {
      g_task_return_new_error (task, OW_TOOL_ERROR, OW_TOOL_ERROR_FAILED,
                               "A turn is already running in this session; wait for it or stop it first.");
      g_object_unref (task);
      return;
    }
  self->running = TRUE;
  self->current = run;

  if (g_list_model_get_n_items (G_LIST_MODEL (self->session)) == 0 && self->instructions != NULL)
    {
      JsonObject *sys = json_object_new ();
      gboolean ok;
      json_object_set_string_member (sys, "role", "system");
      json_object_set_string_member (sys, "content", self->instructions);
      ok = _ow_agent_append (task, sys);
      json_object_unref (sys);
      if (!ok)
        {
          g_object_unref (task);
          return;
        }
    }
  if (user != NULL && !_ow_agent_append (task, user))
    {
      g_object_unref (task);
      return;
    }
  if (request != NULL)
    {
      g_free (self->request);
      self->request = g_strdup (request);
    }
  data = json_object_new ();
  json_object_set_string_member (data, "input", user != NULL && request != NULL ? request : "");
  _ow_agent_emit (run, "turn_start", data);
  if (user == NULL)
    {
      /* A parked turn goes on where it stopped: its calls first. */
      g_autoptr(GPtrArray) left = ow_session_dup_unanswered_calls (self->session);
      if (left->len > 0)
        {
          run->calls = g_steal_pointer (&left);
          run->call_index = 0;
          _ow_agent_next_call (task);
          g_object_unref (task);
          return;
        }
    }
  _ow_agent_iterate (task);
  g_object_unref (task);
}

void
ow_agent_park (OwAgent *self)
{
  g_return_if_fail (OW_IS_AGENT (self));

  if (self->current == NULL)
    return;
  self->parking = TRUE;
  g_cancellable_cancel (self->current->cancellable);
}

OwTurnResult *
ow_agent_run_finish (OwAgent *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
