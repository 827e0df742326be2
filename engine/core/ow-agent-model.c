/* ow-agent-model.c: model calls of the turn loop.
 *
 * One call of the model per iteration: the request is built from the
 * session's history (compacted, then shaped for the model), the reply
 * streams in as redacted deltas, and what comes back is either a reply
 * (saved, then its tool calls run) or an error: cancelled, a context that
 * overflowed (compacted harder), transient (waited out on the retry
 * schedule) or final (the turn ends with it).
 */
#define G_LOG_DOMAIN "ow-agent"

#include "core/ow-agent-private.h"

static const char *
error_type_of (const GError *error)
{
  if (error->domain == OW_PROVIDER_ERROR)
    switch ((OwProviderError) error->code)
      {
      case OW_PROVIDER_ERROR_AUTH: return "AuthenticationError";
      case OW_PROVIDER_ERROR_MODEL_NOT_FOUND: return "ModelNotFoundError";
      case OW_PROVIDER_ERROR_CONTEXT_OVERFLOW: return "ContextOverflowError";
      case OW_PROVIDER_ERROR_QUOTA: return "QuotaExceededError";
      case OW_PROVIDER_ERROR_BAD_REQUEST: return "BadRequestError";
      case OW_PROVIDER_ERROR_REFUSED: return "RefusalError";
      case OW_PROVIDER_ERROR_RATE_LIMITED: return "RateLimitError";
      case OW_PROVIDER_ERROR_OVERLOADED: return "OverloadedError";
      case OW_PROVIDER_ERROR_SERVER: return "ServerError";
      case OW_PROVIDER_ERROR_CONNECTION: return "APIConnectionError";
      case OW_PROVIDER_ERROR_CUT_OFF: return "CutOffReplyError";
      case OW_PROVIDER_ERROR_EMPTY_REPLY: return "EmptyReplyError";
      case OW_PROVIDER_ERROR_PROTOCOL: return "ProtocolError";
      case OW_PROVIDER_ERROR_NO_KEY: return "MissingKeyError";
      case OW_PROVIDER_ERROR_UNKNOWN_PROVIDER: return "UnknownProviderError";
      case OW_PROVIDER_ERROR_REGION: return "UnsupportedRegionError";
      case OW_PROVIDER_ERROR_FAILED:
      default: return "ProviderError";
      }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return "Cancelled";
  return "Error";
}

/* ---- Model calls -------------------------------------------------------- */

static const char *
delta_event (OwDeltaKind kind)
{
  return kind == OW_DELTA_REASONING ? "reasoning_delta" : "assistant_delta";
}

static void
emit_delta (Run *run, OwDeltaKind kind, const char *text)
{
  JsonObject *data;

  if (*text == '\0')
    return;
  data = json_object_new ();
  json_object_set_string_member (data, "text", text);
  _ow_agent_emit (run, delta_event (kind), data);
}

static void
on_delta_cb (OwDeltaKind kind, const char *text, gsize len, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);
  guint i = kind == OW_DELTA_REASONING ? 1 : 0;
  g_autofree char *ready = NULL;

  if (run->delta_streams[i] == NULL)
    run->delta_streams[i] = ow_redact_stream_new ();
  ready = ow_redact_stream_feed (run->delta_streams[i], text, len);
  emit_delta (run, kind, ready);
}

/* The text each stream held back, as a last delta before whatever follows
 * the reply (its message, an error, a retry). */
static void
flush_deltas (Run *run)
{
  for (guint i = 0; i < G_N_ELEMENTS (run->delta_streams); i++)
    if (run->delta_streams[i] != NULL)
      {
        g_autofree char *rest = ow_redact_stream_flush (run->delta_streams[i]);

        emit_delta (run, i == 1 ? OW_DELTA_REASONING : OW_DELTA_TEXT, rest);
      }
}

void
_ow_agent_report_call (Run *run, const char *status, OwTurn *turn, OwCallInfo *info, const GError *error,
             double retry_in, gint64 message_index)
{
  OwAgent *agent = run->agent;
  OwModelCall call = {
    .iteration = run->iterations + (turn != NULL ? 0 : 1),
    .attempt = run->attempt,
    .status = status,
    .finish_reason = turn != NULL ? turn->finish_reason : NULL,
    .has_usage = turn != NULL && turn->has_usage,
    .ceiling = agent->max_output_tokens,
    .effort = agent->effort,
    .model = ow_session_get_model (agent->session),
    .served_model = turn != NULL ? turn->served_model : NULL,
    .info = info,
    .error = error != NULL ? error->message : NULL,
    .error_type = error != NULL ? error_type_of (error) : NULL,
    .retry_in = retry_in,
    .message_index = message_index,
    .started_ms = run->call_started_ms,
  };

  if (turn != NULL && turn->has_usage)
    {
      call.usage = turn->usage;
      call.has_cost = ow_prices_estimate (agent->bare_model, &turn->usage, &call.cost_usd);
    }
  _ow_agent_emit_model_call (agent, &call);
}

JsonObject *
_ow_agent_usage_json (OwAgent *agent, const OwUsage *u)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "model", ow_session_get_model (agent->session));
  json_object_set_int_member (o, "input", u->input);
  json_object_set_int_member (o, "output", u->output);
  json_object_set_int_member (o, "cache_read", u->cache_read);
  json_object_set_int_member (o, "cache_write", u->cache_write);
  if (u->reasoning > 0)
    json_object_set_int_member (o, "reasoning", u->reasoning);
  return o;
}

static gboolean
on_retry_cancelled_cb (GCancellable *cancellable, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);

  g_clear_pointer (&run->wait_source, g_source_destroy);
  g_clear_pointer (&run->cancel_source, g_source_destroy);
  _ow_agent_finish_interrupted (task);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

static gboolean
on_retry_timeout_cb (gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);

  g_clear_pointer (&run->wait_source, g_source_destroy);
  g_clear_pointer (&run->cancel_source, g_source_destroy);
  run->attempt++;
  _ow_agent_call_model (task);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Waits @delay seconds (or until cancelled) and calls the model again.
 * Owns one reference to @task. */
static void
wait_then_retry (GTask *task, double delay)
{
  Run *run = _ow_agent_run_of (task);

  run->wait_source = g_timeout_source_new ((guint) (delay * 1000));
  g_source_set_callback (run->wait_source, on_retry_timeout_cb, task, NULL);
  g_source_attach (run->wait_source, NULL);
  g_source_unref (run->wait_source);

  run->cancel_source = g_cancellable_source_new (run->cancellable);
  g_source_set_callback (run->cancel_source, G_SOURCE_FUNC (on_retry_cancelled_cb), task, NULL);
  g_source_attach (run->cancel_source, NULL);
  g_source_unref (run->cancel_source);
}

static gboolean
append_nudge (GTask *task, const char *text)
{
  JsonObject *msg = ow_message_json_user (text);
  gboolean ok;

  json_object_set_boolean_member (msg, "_nudge", TRUE);
  ok = _ow_agent_append (task, msg);
  json_object_unref (msg);
  return ok;
}

static void
on_model_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwCallInfo) info = NULL;
  g_autoptr(OwTurn) partial = NULL;
  g_autoptr(OwTurn) turn = NULL;
  JsonObject *msg, *data;
  JsonArray *names;
  gint64 msg_index;

  turn = ow_provider_complete_finish (OW_PROVIDER (source), result, &info, &partial, &error);
  flush_deltas (run);

  if (turn == NULL)
    {
      guint n_delays = agent->retry_delays->len;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || g_cancellable_is_cancelled (run->cancellable))
        {
          _ow_agent_report_call (run, "cancelled", NULL, info, error, -1, -1);
          if (_ow_agent_persist_partial (task, partial))
            _ow_agent_finish_interrupted (task);
          g_object_unref (task);
          return;
        }
      /* A context that overflowed is compacted harder and the call made
       * again, as long as each compaction moves the boundary. */
      if (g_error_matches (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CONTEXT_OVERFLOW) && run->overflows < 4)
        {
          _ow_agent_report_call (run, "error", NULL, info, error, -1, -1);
          run->overflows++;
          g_free (run->overflow_error);
          run->overflow_error = g_strdup (error->message);
          _ow_agent_start_compaction (task, TRUE);
          g_object_unref (task);
          return;
        }
      if (ow_provider_error_is_transient (error) && run->attempt < n_delays)
        {
          double delay = g_array_index (agent->retry_delays, double, run->attempt);
          g_autofree char *cause = NULL;

          if (info != NULL && info->retry_after_ms >= 0 && info->retry_after_ms / 1000.0 > delay
              && error->code == OW_PROVIDER_ERROR_RATE_LIMITED)
            delay = info->retry_after_ms / 1000.0;
          _ow_agent_report_call (run, "error", NULL, info, error, delay, -1);

          data = json_object_new ();
          json_object_set_int_member (data, "attempt", run->attempt + 1);
          json_object_set_int_member (data, "max_attempts", n_delays);
          json_object_set_double_member (data, "delay_seconds", delay);
          json_object_set_string_member (data, "error", error->message);
          json_object_set_string_member (data, "error_type", error_type_of (error));
          cause = ow_redact (info != NULL && info->cause != NULL ? info->cause : error->message);
          json_object_set_string_member (data, "cause", cause);
          _ow_agent_emit (run, "provider_retry", data);

          /* The model should know when its reply was lost half-way or came
           * back empty; a connection that never produced anything needs no
           * explanation. */
          if (partial != NULL && (partial->text->len > 0 || partial->reasoning->len > 0))
            {
              if (!_ow_agent_persist_partial (task, partial)
                  || !append_nudge (task, "(Your previous reply was cut off by a connection problem before it "
                                          "finished. Continue from where it stopped.)"))
                {
                  g_object_unref (task);
                  return;
                }
            }
          else if (error->code == OW_PROVIDER_ERROR_EMPTY_REPLY
                   && !append_nudge (task, "(Your previous reply was empty. Continue with the task: call a "
                                           "tool or give your final answer.)"))
            {
              g_object_unref (task);
              return;
            }
          wait_then_retry (task, delay);
          return;
        }

      _ow_agent_report_call (run, "error", NULL, info, error, -1, -1);
      if (_ow_agent_persist_partial (task, partial))
        {
          g_autofree char *raw = info != NULL && info->cause != NULL ? ow_redact (info->cause) : NULL;
          g_autofree char *message = NULL;
          if (ow_provider_error_is_transient (error))
            message = g_strdup_printf ("%s (gave up after %u retries)", error->message, n_delays);
          else
            message = g_strdup (error->message);
          _ow_agent_finish_error (task, OW_OUTCOME_MODEL_ERROR, message, error_type_of (error), raw);
        }
      g_object_unref (task);
      return;
    }

  /* A reply. */
  run->iterations++;
  run->attempt = 0;
  run->overflows = 0;
  if (turn->has_usage)
    agent->last_context = turn->usage.input + turn->usage.cache_read + turn->usage.cache_write;

  msg = json_object_new ();
  json_object_set_string_member (msg, "role", "assistant");
  _ow_agent_set_content (msg, turn->text->str);
  json_object_set_double_member (msg, "ts", (double) g_get_real_time () / G_USEC_PER_SEC);
  names = json_array_new ();
  if (turn->tool_calls->len > 0)
    {
      JsonArray *calls = json_array_new ();
      for (guint i = 0; i < turn->tool_calls->len; i++)
        {
          OwToolCall *c = g_ptr_array_index (turn->tool_calls, i);
          JsonObject *tc = json_object_new ();
          JsonObject *fn = json_object_new ();
          g_autoptr(JsonObject) parsed = ow_tool_args_parse (c->arguments, -1, NULL);
          g_autofree char *args = parsed != NULL ? g_strdup (c->arguments) : ow_tool_args_history_raw (c->arguments);

          /* A call without a name (a mangled reply) is answered as an
           * unknown tool, but history must stay sendable: every wire
           * refuses a tool_use / function_call with an empty name, which
           * would break the session at its next request. */
          if (c->name == NULL || c->name[0] == '\0')
            {
              g_free (c->name);
              c->name = g_strdup ("unnamed_tool");
            }

          json_object_set_string_member (fn, "name", c->name);
          json_object_set_string_member (fn, "arguments", args);
          json_object_set_string_member (tc, "id", c->id);
          json_object_set_string_member (tc, "type", "function");
          json_object_set_object_member (tc, "function", fn);
          json_array_add_object_element (calls, tc);
          json_array_add_string_element (names, c->name);
        }
      json_object_set_array_member (msg, "tool_calls", calls);
    }
  if (turn->reasoning->len > 0)
    json_object_set_string_member (msg, "reasoning", turn->reasoning->str);
  if (turn->has_usage)
    json_object_set_object_member (msg, "usage", _ow_agent_usage_json (agent, &turn->usage));
  if (turn->sidecar_key != NULL && turn->sidecar != NULL)
    json_object_set_member (msg, turn->sidecar_key, json_node_copy (turn->sidecar));
  if (turn->finish_reason != NULL)
    json_object_set_string_member (msg, "finish_reason", turn->finish_reason);

  msg_index = g_list_model_get_n_items (G_LIST_MODEL (agent->session));
  if (!_ow_agent_append (task, msg))
    {
      json_object_unref (msg);
      json_array_unref (names);
      g_object_unref (task);
      return;
    }
  _ow_agent_report_call (run, "ok", turn, info, NULL, -1, msg_index);

  data = json_object_new ();
  json_object_set_string_member (data, "text", turn->text->str);
  json_object_set_array_member (data, "tool_calls", names);
  if (turn->reasoning->len > 0)
    json_object_set_string_member (data, "reasoning", turn->reasoning->str);
  if (turn->has_usage)
    json_object_set_object_member (data, "usage", _ow_agent_usage_json (agent, &turn->usage));
  _ow_agent_emit (run, "assistant_message", data);
  json_object_unref (msg);

  run->reply_cut = g_strcmp0 (turn->finish_reason, "length") == 0;
  if (turn->tool_calls->len == 0)
    {
      if (run->reply_cut)
        {
          run->length_strikes++;
          if (run->length_strikes >= MAX_LENGTH_STRIKES)
            _ow_agent_finish_turn_end (task, OW_OUTCOME_CUT_OFF, "cut_off");
          else if (append_nudge (task, "(Your reply stopped at the output-token limit. Continue exactly where "
                                       "it stopped; keep the rest shorter, or put long content into files "
                                       "with tools.)"))
            _ow_agent_iterate (task);
          else
            return;
          g_object_unref (task);
          return;
        }
      _ow_agent_finish_turn_end (task, OW_OUTCOME_COMPLETED, "completed");
      g_object_unref (task);
      return;
    }

  run->length_strikes = 0;
  g_hash_table_remove_all (run->ahead);
  g_clear_pointer (&run->calls, g_ptr_array_unref);
  run->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_tool_call_free);
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      OwToolCall *c = g_ptr_array_index (turn->tool_calls, i);
      g_ptr_array_add (run->calls, ow_tool_call_new (c->id, c->name, c->arguments));
    }
  run->call_index = 0;
  _ow_agent_next_call (task);
  g_object_unref (task);
}

void
_ow_agent_call_model (GTask *task)
{
  Run *run = _ow_agent_run_of (task);
  OwAgent *agent = run->agent;
  g_autoptr(JsonArray) history = ow_session_dup_history (agent->session);
  g_autoptr(JsonArray) compacted = ow_compaction_outbound (history, ow_session_get_compaction (agent->session));
  g_autoptr(JsonArray) outbound = ow_outbound_for_model (compacted, agent->vision);
  /* The session's providers may have changed their tools since the last
   * call (an MCP server's list, a connector reconnected): this call offers
   * what they hold now. */
  g_autoptr(JsonArray) tool_defs = ow_tool_registry_dup_definitions (agent->tools);
  OwModelRequest req;

  ow_model_request_init (&req);
  req.model = agent->bare_model;
  req.messages = outbound;
  req.tools = json_array_get_length (tool_defs) > 0 ? tool_defs : NULL;
  req.stream = TRUE;
  req.max_output_tokens = agent->max_output_tokens;
  req.reasoning_effort = agent->effort;
  req.thinking = agent->thinking;
  req.temperature = agent->temperature;
  req.top_p = agent->top_p;
  req.context_size = agent->context_size;
  req.provider_order = agent->provider_order;
  req.cache_key = agent->cache_key;

  run->call_started_ms = g_get_real_time () / 1000;
  ow_provider_complete_async (agent->provider, &req, on_delta_cb, task, run->cancellable,
                              on_model_done_cb, g_object_ref (task));
}
