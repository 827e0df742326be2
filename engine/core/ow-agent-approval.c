/* ow-agent-approval.c: approvals of the turn loop.
 *
 * The policy's verdict on the current call, and what follows it: run it,
 * refuse it, ask the reviewer model, or ask a person through the
 * attendant (an approval card, a question, a folder request), and act on
 * the answer (grants for the session, standing rules).
 */
#define G_LOG_DOMAIN "ow-agent"

#include "core/ow-agent-private.h"

void
_ow_agent_refuse (GTask *task, const char *provenance, const char *reason, OwToolStatus status)
{
  Run *run = _ow_agent_run_of (task);

  g_clear_pointer (&run->cur_provenance, g_free);
  run->cur_provenance = g_strdup (provenance);
  _ow_agent_complete_error (task, status, "tool call not executed", reason);
}

/* Tells every surface the ask is answered, so its card closes everywhere. */
void
_ow_agent_emit_resolved (Run *run, OwToolCall *call, const char *kind, const char *decision, gboolean by_rule)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "kind", kind);
  json_object_set_string_member (data, "decision", decision);
  json_object_set_boolean_member (data, "by_rule", by_rule);
  _ow_agent_emit (run, "approval_resolved", data);
}

static void
on_approval_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwApprovalReply) reply = ow_attendant_request_approval_finish (OW_ATTENDANT (source), result, &error);
  gboolean safety = run->decision.safety_checks != 0;
  const char *approval;
  g_autofree char *provenance = NULL;

  if (_ow_agent_finish_if_parked (task))
    {
      g_object_unref (task);
      return;
    }

  if (reply == NULL || g_cancellable_is_cancelled (run->cancellable))
    {
      gboolean stopped = g_cancellable_is_cancelled (run->cancellable);
      const char *why = stopped ? "interrupted by user" : error != NULL ? error->message : "no answer";
      _ow_agent_emit_resolved (run, call, "approval", stopped ? "interrupted" : "deny", TRUE);
      _ow_agent_audit (run, call, "approval_resolved", "denied", "deny", "denied", why, NULL);
      _ow_agent_refuse (task, "denied", why, stopped ? OW_TOOL_STATUS_INTERRUPTED : OW_TOOL_STATUS_DENIED);
      g_object_unref (task);
      return;
    }

  approval = ow_approval_answer_to_string (reply->answer);
  _ow_agent_emit_resolved (run, call, "approval", approval, reply->by_rule);
  if (reply->answer == OW_APPROVAL_DENY)
    {
      g_autofree char *reason = NULL;
      if (reply->by_rule)
        reason = g_strdup_printf ("refused: %s", reply->note != NULL ? reply->note : "no one could approve it");
      else
        reason = g_strdup_printf ("denied by the person%s%s", reply->note != NULL ? ": " : "",
                                  reply->note != NULL ? reply->note : "");
      provenance = g_strdup (reply->by_rule ? "refused unattended" : "denied by person");
      _ow_agent_audit (run, call, "approval_resolved", "denied", approval, provenance, reason, NULL);
      _ow_agent_refuse (task, provenance, reason, OW_TOOL_STATUS_DENIED);
      g_object_unref (task);
      return;
    }

  /* "Allow read-only commands" lets this command run only if it is one:
   * the card offers it only then, but the inbox and the API take any
   * answer for any card. */
  if (reply->answer == OW_APPROVAL_READONLY_SESSION)
    {
      if (!g_str_equal (call->name, "run_shell") || !ow_readonly_command (ow_json_get_string (run->cur_args, "command")))
        {
          const char *why = "not run: the person allowed read-only commands, and this one is not read-only";
          _ow_agent_audit (run, call, "approval_resolved", "denied", approval, "denied by person", why, NULL);
          _ow_agent_refuse (task, "denied by person", why, OW_TOOL_STATUS_DENIED);
          g_object_unref (task);
          return;
        }
      if (!safety)
        {
          g_autoptr(GError) grant_error = NULL;
          if (!ow_session_add_readonly_grant (agent->session, &grant_error))
            g_message ("Could not save the session grant: %s", grant_error->message);
        }
      provenance = g_strdup (safety ? "user-approved once" : "user-approved read-only commands for session");
      reply->answer = OW_APPROVAL_ONCE;
    }

  /* A safety check is asked every time: the answer covers this call only. */
  if (safety && reply->answer != OW_APPROVAL_ONCE)
    reply->answer = OW_APPROVAL_ONCE;
  if (reply->answer == OW_APPROVAL_ALWAYS && run->decision.suggested_rule != NULL)
    {
      g_autoptr(GError) rule_error = NULL;
      gint64 id = ow_policy_add_standing_rule (agent->policy, run->decision.suggested_rule, "allow", "person",
                                               ow_session_get_id (agent->session), &rule_error);
      if (id > 0)
        {
          JsonObject *data = json_object_new ();
          provenance = g_strdup_printf ("user-approved always (standing rule #%" G_GINT64_FORMAT " \"%s\")", id,
                                        run->decision.suggested_rule);
          json_object_set_int_member (data, "id", id);
          json_object_set_string_member (data, "rule", run->decision.suggested_rule);
          json_object_set_string_member (data, "decision", "allow");
          _ow_agent_emit (run, "standing_rule_created", data);
          _ow_agent_audit (run, call, "standing_rule_minted", "granted", approval, provenance, run->decision.suggested_rule, NULL);
        }
      else
        {
          g_message ("Could not save the standing rule: %s", rule_error->message);
          reply->answer = OW_APPROVAL_SESSION;
        }
    }
  else if (reply->answer == OW_APPROVAL_ALWAYS)
    reply->answer = OW_APPROVAL_SESSION;

  if (reply->answer == OW_APPROVAL_SESSION)
    {
      g_autoptr(GError) grant_error = NULL;
      gboolean ok;
      if (g_str_equal (call->name, "run_shell"))
        {
          approval = "always_command";
          ok = ow_session_add_command_grant (agent->session, ow_json_get_string (run->cur_args, "command"),
                                             &grant_error);
        }
      else
        ok = ow_session_add_tool_grant (agent->session, call->name, &grant_error);
      if (!ok)
        g_message ("Could not save the session grant: %s", grant_error->message);
      provenance = g_strdup ("user-approved for session");
    }
  else if (provenance == NULL)
    provenance = g_strdup ("user-approved once");

  g_clear_pointer (&run->cur_provenance, g_free);
  run->cur_provenance = g_steal_pointer (&provenance);
  _ow_agent_audit (run, call, "approval_resolved", "approved", approval, run->cur_provenance, NULL, NULL);
  _ow_agent_execute_current (task);
  g_object_unref (task);
}

void
_ow_agent_on_interaction_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  gboolean is_dir = ow_tool_get_kind (run->cur_tool) == OW_TOOL_KIND_REQUEST_DIRECTORY;

  if (is_dir)
    answer = ow_attendant_request_directory_finish (OW_ATTENDANT (source), result, &error);
  else
    answer = ow_attendant_ask_finish (OW_ATTENDANT (source), result, &error);
  if (_ow_agent_finish_if_parked (task))
    {
      g_object_unref (task);
      return;
    }

  _ow_agent_emit_resolved (run, _ow_agent_current_call (run), is_dir ? "directory" : "question",
                 answer == NULL || g_cancellable_is_cancelled (run->cancellable) ? "interrupted" : "answered",
                 answer != NULL && json_object_get_boolean_member_with_default (answer, "answered_by_rule", FALSE));
  if (answer == NULL || g_cancellable_is_cancelled (run->cancellable))
    {
      _ow_agent_complete_error (task, g_cancellable_is_cancelled (run->cancellable) ? OW_TOOL_STATUS_INTERRUPTED : OW_TOOL_STATUS_ERROR,
                      g_cancellable_is_cancelled (run->cancellable) ? "interrupted by user"
                                                                    : error != NULL ? error->message : "no answer",
                      NULL);
      g_object_unref (task);
      return;
    }
  if (is_dir && json_object_get_boolean_member_with_default (answer, "granted", FALSE))
    {
      g_autoptr(GError) root_error = NULL;
      const char *path = json_object_get_string_member_with_default (answer, "path", NULL);
      gboolean writable = json_object_get_boolean_member_with_default (answer, "writable", FALSE);

      if (path == NULL || !ow_session_add_root (run->agent->session, path, writable, "added", &root_error))
        {
          json_object_set_boolean_member (answer, "granted", FALSE);
          json_object_set_string_member (answer, "reason", root_error != NULL ? root_error->message : "no folder was given");
        }
      else
        ow_executor_set_roots (run->agent->executor, ow_session_get_roots (run->agent->session));
    }
  {
    g_autofree char *text = ow_json_object_to_string (answer);
    gboolean declined = is_dir && !json_object_get_boolean_member_with_default (answer, "granted", FALSE);
    g_clear_pointer (&run->cur_provenance, g_free);
    run->cur_provenance = g_strdup (json_object_get_boolean_member_with_default (answer, "answered_by_rule", FALSE)
                                      ? "answered by rule" : "answered by the person");
    _ow_agent_complete_call (task, declined ? OW_TOOL_STATUS_DENIED : OW_TOOL_STATUS_OK, text, NULL);
  }
  g_object_unref (task);
}

/* Asks the attendant about the current call (the policy said ask, or the
 * reviewer was unsure). */
static void
ask_person (GTask *task, const char *reviewer_reasoning)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  gboolean safety = run->decision.safety_checks != 0;
  OwApprovalRequest req = {
    .session_id = ow_session_get_id (agent->session),
    .call_id = call->id,
    .tool = call->name,
    .arguments = run->cur_args,
    .reason = run->decision.reason,
    .risk = ow_risk_to_string (ow_tool_get_risk (run->cur_tool)),
    .safety_check = safety,
    .readonly_ok = !safety && g_str_equal (call->name, "run_shell")
                   && ow_readonly_command (ow_json_get_string (run->cur_args, "command")),
    .suggested_rule = safety ? NULL : run->decision.suggested_rule,
    .reviewer_reasoning = reviewer_reasoning,
  };
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_object_member (data, "arguments", json_object_ref (run->cur_args));
  json_object_set_string_member (data, "reason", run->decision.reason);
  json_object_set_string_member (data, "category", req.risk);
  json_object_set_boolean_member (data, "safety_check", safety);
  if (req.suggested_rule != NULL)
    json_object_set_string_member (data, "standing_target", req.suggested_rule);
  else
    json_object_set_null_member (data, "standing_target");
  if (reviewer_reasoning != NULL)
    json_object_set_string_member (data, "reviewer_reasoning", reviewer_reasoning);
  /* The card offers "Allow read-only commands" only for a command the
   * grant would cover, and never on a safety check (asked every time). */
  json_object_set_boolean_member (data, "readonly_ok", req.readonly_ok);
  _ow_agent_audit (run, call, "approval_requested", NULL, NULL, NULL, run->decision.reason, NULL);
  /* The ask is parked (an inbox item is on disk) before any surface hears
   * of it: a card a client sees is always one it can find and answer. */
  ow_attendant_request_approval_async (agent->attendant, &req, run->cancellable, on_approval_cb, g_object_ref (task));
  _ow_agent_emit (run, "permission_required", data);
}

static void
on_review_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  g_autoptr(OwReview) review = ow_reviewer_review_finish (OW_REVIEWER (source), result);
  JsonObject *data = json_object_new ();

  /* A verdict about a context that no longer holds is void. */
  if (review->verdict != OW_REVIEW_UNCERTAIN
      && (ow_policy_get_generation (agent->policy) != run->review_generation
          || g_strcmp0 (ow_session_get_mode (agent->session), run->review_mode) != 0
          || ow_session_get_roots (agent->session)->len != run->review_roots))
    {
      review->verdict = OW_REVIEW_UNCERTAIN;
      g_free (review->reasoning);
      review->reasoning = g_strdup ("the context changed while the reviewer was deciding; a person decides");
    }

  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "verdict", ow_review_verdict_to_string (review->verdict));
  json_object_set_string_member (data, "reasoning", review->reasoning);
  _ow_agent_emit (run, "review_finished", data);
  _ow_agent_audit (run, call, "reviewed", ow_review_verdict_to_string (review->verdict), NULL, "reviewer", review->reasoning, NULL);

  if (ow_reviewer_is_paused (OW_REVIEWER (source)) && review->verdict == OW_REVIEW_DENY)
    {
      JsonObject *p = json_object_new ();
      json_object_set_int_member (p, "denials", ow_reviewer_get_denials (OW_REVIEWER (source)));
      _ow_agent_emit (run, "reviewer_paused", p);
    }

  if (g_cancellable_is_cancelled (run->cancellable))
    _ow_agent_refuse (task, "denied", "interrupted by user", OW_TOOL_STATUS_INTERRUPTED);
  else if (review->verdict == OW_REVIEW_ALLOW)
    {
      g_clear_pointer (&run->cur_provenance, g_free);
      run->cur_provenance = g_strdup_printf ("auto-approved by reviewer: %s", review->reasoning);
      _ow_agent_audit (run, call, "auto_allowed", "allowed", NULL, run->cur_provenance, review->reasoning, NULL);
      _ow_agent_execute_current (task);
    }
  else if (review->verdict == OW_REVIEW_DENY)
    {
      g_autofree char *reason = g_strdup_printf ("denied by the reviewer: %s", review->reasoning);
      g_autofree char *prov = g_strdup_printf ("denied by reviewer: %s", review->reasoning);
      _ow_agent_audit (run, call, "finished", "denied", NULL, prov, reason, NULL);
      _ow_agent_refuse (task, prov, reason, OW_TOOL_STATUS_DENIED);
    }
  else
    ask_person (task, review->reasoning);
  g_object_unref (task);
}

static void
start_review (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = _ow_agent_current_call (run);
  GPtrArray *roots = ow_session_get_roots (agent->session);
  g_autoptr(GPtrArray) folders = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) rules = ow_policy_dup_rules_text (agent->policy);
  OwReviewRequest req;

  if (agent->reviewer == NULL)
    {
      g_free (run->decision.reason);
      run->decision.reason = g_strdup ("no reviewer model is configured (reviewer_model), so a person decides");
      ask_person (task, NULL);
      return;
    }
  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      g_ptr_array_add (folders, g_strdup_printf ("%s (%s)", r->path, r->writable ? "read-write" : "read-only"));
    }
  g_ptr_array_add (folders, NULL);
  req = (OwReviewRequest) {
    .coworker = agent->role_title,
    .role = agent->role_prompt,
    .approval_guidance = agent->guidance,
    .folders = (const char *const *) folders->pdata,
    .mode = ow_session_get_mode (agent->session),
    .user_rules = (const char *const *) rules,
    .request = agent->request,
    .tool = call->name,
    .arguments = run->cur_args,
    .risk = ow_risk_to_string (ow_tool_get_risk (run->cur_tool)),
  };
  run->review_generation = ow_policy_get_generation (agent->policy);
  g_free (run->review_mode);
  run->review_mode = g_strdup (ow_session_get_mode (agent->session));
  run->review_roots = roots->len;
  {
    JsonObject *data = json_object_new ();
    json_object_set_string_member (data, "call_id", call->id);
    json_object_set_string_member (data, "name", call->name);
    _ow_agent_emit (run, "review_started", data);
  }
  ow_reviewer_review_async (agent->reviewer, &req, run->cancellable, on_review_cb, g_object_ref (task));
}

/* The policy's verdict on @call to @tool with @args, as things stand. */
void
_ow_agent_policy_decide (Run *run, OwToolCall *call, OwTool *tool, JsonObject *args, OwDecision *out)
{
  OwAgent *agent = run->agent;
  GPtrArray *roots = ow_session_get_roots (agent->session);
  g_autofree const char **root_paths = g_new0 (const char *, roots->len + 1);
  g_autofree gboolean *root_writable = g_new0 (gboolean, roots->len + 1);
  OwSafetyContext safety;
  OwPolicyCall pc;

  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      root_paths[i] = r->path;
      root_writable[i] = r->writable;
    }
  g_ptr_array_add (agent->downloaded, NULL);
  safety = (OwSafetyContext) {
    .roots = root_paths,
    .roots_writable = root_writable,
    .n_roots = roots->len,
    .cwd = agent->shell_cwd != NULL ? agent->shell_cwd : ow_session_get_workspace (agent->session),
    .home = g_get_home_dir (),
    .agent_dirs = (const char *const *) agent->agent_dirs,
    .downloaded = (const char *const *) agent->downloaded->pdata,
    .env = (const char *const *) agent->tool_env,
  };
  pc = (OwPolicyCall) {
    .mode = ow_session_get_mode (agent->session),
    .tool = call->name,
    .risk = ow_tool_get_risk (tool),
    .args = args,
    .target_arg = ow_tool_get_target_argument (tool),
    .workspace = ow_session_get_workspace (agent->session),
    .tool_granted = ow_session_has_tool_grant (agent->session, call->name),
    .readonly_granted = ow_session_has_readonly_grant (agent->session),
    .command_granted = g_str_equal (call->name, "run_shell")
                       && ow_session_has_command_grant (agent->session, ow_json_get_string (args, "command") != NULL
                                                                        ? ow_json_get_string (args, "command") : ""),
    .safety = &safety,
    .allowed_by = ow_tool_get_allowed_by (tool),
  };
  ow_decision_clear (out);
  ow_policy_decide (agent->policy, &pc, out);
  g_ptr_array_set_size (agent->downloaded, agent->downloaded->len - 1);
}

void
_ow_agent_decide_current (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwToolCall *call = _ow_agent_current_call (run);

  _ow_agent_policy_decide (run, call, run->cur_tool, run->cur_args, &run->decision);

  switch (run->decision.verdict)
    {
    case OW_VERDICT_ALLOW:
      g_clear_pointer (&run->cur_provenance, g_free);
      run->cur_provenance = g_strdup (run->decision.provenance);
      if (run->decision.cleared_by_mode)
        {
          JsonObject *data = json_object_new ();
          JsonArray *reasons = json_array_new ();
          for (guint i = 0; i < run->decision.safety_reasons->len; i++)
            json_array_add_string_element (reasons, g_ptr_array_index (run->decision.safety_reasons, i));
          json_object_set_string_member (data, "name", call->name);
          json_object_set_string_member (data, "call_id", call->id);
          json_object_set_object_member (data, "arguments", json_object_ref (run->cur_args));
          json_object_set_array_member (data, "checks", reasons);
          _ow_agent_emit (run, "safety_check_cleared", data);
        }
      _ow_agent_audit (run, call, "auto_allowed", "allowed", NULL, run->decision.provenance, run->decision.reason, NULL);
      _ow_agent_execute_current (task);
      break;
    case OW_VERDICT_DENY:
      _ow_agent_audit (run, call, "finished", "denied", NULL, run->decision.provenance, run->decision.reason, NULL);
      _ow_agent_refuse (task, run->decision.provenance, run->decision.reason, OW_TOOL_STATUS_DENIED);
      break;
    case OW_VERDICT_REVIEW:
      start_review (task);
      break;
    case OW_VERDICT_ASK:
    default:
      ask_person (task, NULL);
      break;
    }
}

/* ---- A tool's own question (MCP elicitation) ------------------------------ */

typedef struct {
  GTask *turn;     /* owned: the turn whose call asks */
  char  *call_id;  /* the call's id */
  char  *ask_id;   /* the question's own id: <call>:ask-<n>, so the inbox keeps each apart */
} ToolAsk;

static void
tool_ask_free (ToolAsk *a)
{
  g_object_unref (a->turn);
  g_free (a->call_id);
  g_free (a->ask_id);
  g_free (a);
}

static void
on_tool_ask_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *inner = user_data;
  ToolAsk *a = g_task_get_task_data (inner);
  Run *run = _ow_agent_run_of (a->turn);
  OwToolCall *call = run->calls != NULL && run->call_index < run->calls->len ? _ow_agent_current_call (run) : NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *answer = ow_attendant_ask_finish (OW_ATTENDANT (source), result, &error);

  if (call != NULL && g_strcmp0 (call->id, a->call_id) == 0)
    _ow_agent_emit_resolved (run, call, "question", answer != NULL ? "answered" : "interrupted",
                             answer != NULL && json_object_get_boolean_member_with_default (answer, "answered_by_rule",
                                                                                             FALSE));
  if (answer != NULL)
    g_task_return_pointer (inner, answer, (GDestroyNotify) json_object_unref);
  else
    g_task_return_error (inner, g_steal_pointer (&error));
  g_object_unref (inner);
}

void
_ow_agent_tool_ask_async (GObject *ask_data, JsonObject *question, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *turn = G_TASK (ask_data);
  Run *run = _ow_agent_run_of (turn);
  OwAgent *agent = run->agent;
  OwToolCall *call = run->calls != NULL && run->call_index < run->calls->len ? _ow_agent_current_call (run) : NULL;
  GTask *inner = g_task_new (NULL, cancellable, callback, user_data);
  ToolAsk *a;
  static guint n_asks;
  JsonObject *data = json_object_new ();
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (call == NULL)
    {
      /* The call that asked is over: nobody is asked on its behalf. */
      g_task_return_new_error (inner, G_IO_ERROR, G_IO_ERROR_CANCELLED, "the call that asked has ended");
      g_object_unref (inner);
      json_object_unref (data);
      return;
    }
  a = g_new0 (ToolAsk, 1);
  a->turn = g_object_ref (turn);
  a->call_id = g_strdup (call->id);
  a->ask_id = g_strdup_printf ("%s:ask-%u", call->id, ++n_asks);
  g_task_set_task_data (inner, a, (GDestroyNotify) tool_ask_free);
  json_object_iter_init (&iter, question);
  while (json_object_iter_next (&iter, &key, &value))
    json_object_set_member (data, key, json_node_copy (value));
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "asked_by", "tool");
  _ow_agent_audit (run, call, "question_requested", NULL, NULL, NULL, NULL, NULL);
  ow_attendant_ask_async (agent->attendant, ow_session_get_id (agent->session), a->ask_id, question,
                          cancellable, on_tool_ask_cb, inner);
  _ow_agent_emit (run, "question_requested", data);
}

JsonObject *
_ow_agent_tool_ask_finish (GObject *ask_data, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
