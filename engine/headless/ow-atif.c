/* ow-atif.c: building and validating ATIF-v1.7 trajectories (see ow-atif.h). */
#define G_LOG_DOMAIN "ow-atif"

#include "headless/ow-atif.h"

#include <math.h>
#include <string.h>

#include "core/ow-message.h"
#include "ow-json.h"

void
ow_atif_call_facts_free (OwAtifCallFacts *facts)
{
  if (facts == NULL)
    return;
  g_free (facts->host);
  g_free (facts->served_model);
  g_free (facts->finish_reason);
  g_free (facts);
}

char *
ow_iso8601_from_seconds (double seconds)
{
  gint64 ms = (gint64) llround (seconds * 1000.0);
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (ms / 1000);
  g_autofree char *base = g_date_time_format (dt, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", base, (int) (ms % 1000));
}

/* ---- Building ------------------------------------------------------------ */

static void
set_timestamp (JsonObject *step, JsonObject *msg)
{
  if (json_object_has_member (msg, "ts"))
    {
      g_autofree char *ts = ow_iso8601_from_seconds (json_object_get_double_member (msg, "ts"));
      json_object_set_string_member (step, "timestamp", ts);
    }
}

static const OwAtifCallFacts *
facts_for (const OwAtifInput *input, guint index)
{
  for (guint i = 0; input->call_facts != NULL && i < input->call_facts->len; i++)
    {
      const OwAtifCallFacts *f = g_ptr_array_index (input->call_facts, i);
      if (f->message_index == (gint64) index)
        return f;
    }
  return NULL;
}

static JsonObject *
agent_step (JsonObject *msg, const OwAtifInput *input, const OwAtifCallFacts *facts, gint64 *tot)
{
  JsonObject *step = json_object_new ();
  JsonNode *content = json_object_get_member (msg, "content");
  g_autofree char *text = ow_content_to_text (content);
  JsonObject *usage = ow_json_get_object (msg, "usage");
  gboolean partial = json_object_get_boolean_member_with_default (msg, "partial", FALSE);
  JsonObject *extra = json_object_new ();

  json_object_set_string_member (step, "source", "agent");
  set_timestamp (step, msg);
  json_object_set_string_member (step, "model_name", input->model_name);
  if (input->reasoning_effort != NULL)
    json_object_set_string_member (step, "reasoning_effort", input->reasoning_effort);
  json_object_set_string_member (step, "message", text);
  if (json_object_has_member (msg, "reasoning"))
    json_object_set_string_member (step, "reasoning_content", json_object_get_string_member (msg, "reasoning"));

  if (json_object_has_member (msg, "tool_calls"))
    {
      JsonArray *calls = ow_json_get_array (msg, "tool_calls");
      JsonArray *out = json_array_new ();
      for (guint i = 0; i < json_array_get_length (calls); i++)
        {
          JsonObject *tc = json_array_get_object_element (calls, i);
          JsonObject *fn = ow_json_get_object (tc, "function");
          JsonObject *o = json_object_new ();
          const char *args_text = json_object_get_string_member_with_default (fn, "arguments", "{}");
          g_autoptr(JsonNode) root = NULL;

          json_object_set_string_member (o, "tool_call_id", json_object_get_string_member (tc, "id"));
          json_object_set_string_member (o, "function_name", json_object_get_string_member (fn, "name"));
          if (*args_text != '\0')
            root = ow_json_parse (args_text, -1, NULL);
          if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
            json_object_set_member (o, "arguments", ow_json_deep_copy (root));
          else
            json_object_set_object_member (o, "arguments", json_object_new ());
          json_array_add_object_element (out, o);
        }
      json_object_set_array_member (step, "tool_calls", out);
    }

  json_object_set_int_member (step, "llm_call_count", 1);
  if (usage != NULL && !partial)
    {
      JsonObject *m = json_object_new ();
      JsonObject *mx = json_object_new ();
      gint64 input_t = json_object_get_int_member_with_default (usage, "input", 0);
      gint64 read = json_object_get_int_member_with_default (usage, "cache_read", 0);
      gint64 write = json_object_get_int_member_with_default (usage, "cache_write", 0);
      gint64 output = json_object_get_int_member_with_default (usage, "output", 0);

      json_object_set_int_member (m, "prompt_tokens", input_t + read + write);
      json_object_set_int_member (m, "completion_tokens", output);
      json_object_set_int_member (m, "cached_tokens", read);
      if (facts != NULL && facts->has_cost)
        json_object_set_double_member (m, "cost_usd", facts->cost_usd);
      json_object_set_int_member (mx, "cache_creation_input_tokens", write);
      if (json_object_has_member (usage, "reasoning"))
        json_object_set_int_member (mx, "reasoning_tokens", json_object_get_int_member (usage, "reasoning"));
      json_object_set_object_member (m, "extra", mx);
      json_object_set_object_member (step, "metrics", m);
      tot[0] += input_t + read + write;
      tot[1] += output;
      tot[2] += read;
    }
  if (facts != NULL)
    {
      if (facts->host != NULL)
        json_object_set_string_member (extra, "host", facts->host);
      if (facts->served_model != NULL)
        json_object_set_string_member (extra, "served_model", facts->served_model);
      if (facts->has_cost)
        {
          json_object_set_boolean_member (extra, "cost_is_estimate", TRUE);
          tot[3] += 1;
        }
    }
  if (json_object_has_member (msg, "finish_reason"))
    json_object_set_string_member (extra, "finish_reason", json_object_get_string_member (msg, "finish_reason"));
  if (partial)
    json_object_set_boolean_member (extra, "partial", TRUE);
  if (json_object_get_size (extra) > 0)
    json_object_set_object_member (step, "extra", extra);
  else
    json_object_unref (extra);
  return step;
}

/* A compaction, in ATIF 1.7's context-management convention: a system step
 * whose observation is what replaced the older turns. The model saw, from
 * then on, the system prompt, that text, and the steps from kept_from_step. */
static JsonObject *
compaction_step (JsonObject *msg, const gint64 *step_of, guint n, gint64 *tokens)
{
  JsonObject *step = json_object_new ();
  JsonObject *obs = json_object_new ();
  JsonArray *results = json_array_new ();
  JsonObject *r = json_object_new ();
  JsonObject *extra = json_object_new ();
  JsonObject *cm = json_object_new ();
  JsonObject *usage = ow_json_get_object (msg, "usage");
  gint64 boundary = json_object_get_int_member_with_default (msg, "boundary", 0);
  gboolean trimmed = json_object_get_boolean_member_with_default (msg, "trimmed", FALSE);

  json_object_set_string_member (step, "source", "system");
  set_timestamp (step, msg);
  json_object_set_string_member (step, "message", json_object_get_string_member_with_default (msg, "text", ""));
  json_object_set_null_member (r, "source_call_id");
  json_object_set_string_member (r, "content", json_object_get_string_member_with_default (msg, "context", ""));
  json_array_add_object_element (results, r);
  json_object_set_array_member (obs, "results", results);
  json_object_set_object_member (step, "observation", obs);
  json_object_set_string_member (cm, "type", trimmed ? "pruning" : "compaction");
  json_object_set_string_member (cm, "boundary", "replace");
  json_object_set_object_member (extra, "context_management", cm);
  if (boundary > 0 && (guint64) boundary < n && step_of[boundary] > 0)
    json_object_set_int_member (extra, "kept_from_step", step_of[boundary]);
  if (usage != NULL)
    {
      JsonObject *u = json_object_new ();
      gint64 prompt = json_object_get_int_member_with_default (usage, "input", 0)
                      + json_object_get_int_member_with_default (usage, "cache_read", 0)
                      + json_object_get_int_member_with_default (usage, "cache_write", 0);
      gint64 completion = json_object_get_int_member_with_default (usage, "output", 0);

      json_object_set_int_member (u, "prompt_tokens", prompt);
      json_object_set_int_member (u, "completion_tokens", completion);
      json_object_set_object_member (extra, "summarizer_usage", u);
      tokens[0] += prompt;
      tokens[1] += completion;
    }
  json_object_set_object_member (step, "extra", extra);
  return step;
}

JsonObject *
ow_atif_build (OwSession *session, const OwAtifInput *input)
{
  JsonObject *root = json_object_new ();
  JsonObject *agent = json_object_new ();
  JsonArray *steps = json_array_new ();
  JsonObject *fm = json_object_new ();
  guint n = g_list_model_get_n_items (G_LIST_MODEL (session));
  gint64 tot[4] = { 0, 0, 0, 0 };  /* prompt, completion, cached, priced steps */
  gint64 compaction_tokens[2] = { 0, 0 };  /* the summarizer's prompt and completion */
  g_autofree gint64 *step_of = g_new0 (gint64, n + 1);  /* message index → step id (0: none) */
  double cost = 0;
  gboolean all_priced = TRUE;
  JsonObject *last_agent = NULL;

  json_object_set_string_member (root, "schema_version", "ATIF-v1.7");
  json_object_set_string_member (root, "session_id", input->session_id);
  json_object_set_string_member (agent, "name", "openworker");
  json_object_set_string_member (agent, "version", input->agent_version);
  json_object_set_string_member (agent, "model_name", input->model_name);
  if (input->tool_definitions != NULL)
    json_object_set_array_member (agent, "tool_definitions", json_array_ref (input->tool_definitions));
  json_object_set_object_member (root, "agent", agent);

  for (guint i = 0; i < n; i++)
    {
      JsonObject *msg = ow_session_get_message_json (session, i);
      const char *role = json_object_get_string_member_with_default (msg, "role", "");
      JsonObject *step = NULL;

      if (g_str_equal (role, "system") || g_str_equal (role, "user"))
        {
          g_autofree char *text = ow_content_to_text (json_object_get_member (msg, "content"));
          step = json_object_new ();
          json_object_set_string_member (step, "source", role);
          set_timestamp (step, msg);
          json_object_set_string_member (step, "message", text);
          if (json_object_get_boolean_member_with_default (msg, "_nudge", FALSE))
            {
              JsonObject *extra = json_object_new ();
              json_object_set_boolean_member (extra, "engine_nudge", TRUE);
              json_object_set_object_member (step, "extra", extra);
            }
          last_agent = NULL;
        }
      else if (g_str_equal (role, "assistant"))
        {
          const OwAtifCallFacts *facts = facts_for (input, i);
          gint64 priced_before = tot[3];
          step = agent_step (msg, input, facts, tot);
          if (json_object_has_member (step, "metrics"))
            {
              JsonObject *m = json_object_get_object_member (step, "metrics");
              if (json_object_has_member (m, "cost_usd"))
                cost += json_object_get_double_member (m, "cost_usd");
              else
                all_priced = FALSE;
            }
          (void) priced_before;
          last_agent = step;
        }
      else if (g_str_equal (role, "tool") && last_agent != NULL)
        {
          JsonObject *obs;
          JsonArray *results;
          JsonObject *r = json_object_new ();

          if (!json_object_has_member (last_agent, "observation"))
            {
              obs = json_object_new ();
              json_object_set_array_member (obs, "results", json_array_new ());
              json_object_set_object_member (last_agent, "observation", obs);
            }
          obs = json_object_get_object_member (last_agent, "observation");
          results = json_object_get_array_member (obs, "results");
          json_object_set_string_member (r, "source_call_id", json_object_get_string_member (msg, "tool_call_id"));
          json_object_set_string_member (r, "content", json_object_get_string_member_with_default (msg, "content", ""));
          json_array_add_object_element (results, r);
        }
      else if (g_str_equal (role, "notice")
               && g_strcmp0 (json_object_get_string_member_with_default (msg, "kind", NULL), "compacted") == 0)
        step = compaction_step (msg, step_of, n, compaction_tokens);
      /* other notices are display-only; the outcome is in the root's extra */

      if (step != NULL)
        {
          json_object_set_int_member (step, "step_id", json_array_get_length (steps) + 1);
          json_array_add_object_element (steps, step);
        }
      step_of[i] = json_array_get_length (steps);
    }
  json_object_set_array_member (root, "steps", steps);

  json_object_set_int_member (fm, "total_prompt_tokens", tot[0]);
  json_object_set_int_member (fm, "total_completion_tokens", tot[1]);
  json_object_set_int_member (fm, "total_cached_tokens", tot[2]);
  if (tot[3] > 0 && all_priced)
    json_object_set_double_member (fm, "total_cost_usd", cost);
  json_object_set_int_member (fm, "total_steps", json_array_get_length (steps));
  /* The summarizer's calls belong to no agent step: kept apart, so the
   * totals stay the sums of the steps' metrics. */
  if (compaction_tokens[0] > 0 || compaction_tokens[1] > 0)
    {
      JsonObject *fx = json_object_new ();
      json_object_set_int_member (fx, "compaction_prompt_tokens", compaction_tokens[0]);
      json_object_set_int_member (fx, "compaction_completion_tokens", compaction_tokens[1]);
      json_object_set_object_member (fm, "extra", fx);
    }
  json_object_set_object_member (root, "final_metrics", fm);
  if (input->extra != NULL)
    json_object_set_object_member (root, "extra", json_object_ref (input->extra));
  return root;
}

/* ---- Validating ---------------------------------------------------------- */

typedef struct {
  GPtrArray *errors;
} Check;

static void G_GNUC_PRINTF (2, 3)
problem (Check *c, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_ptr_array_add (c->errors, g_strdup_vprintf (fmt, ap));
  va_end (ap);
}

static gboolean
is_string (JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING;
}

static gboolean
is_int (JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64;
}

static gboolean
is_number (JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_VALUE (n)
         && (json_node_get_value_type (n) == G_TYPE_INT64 || json_node_get_value_type (n) == G_TYPE_DOUBLE);
}

static gboolean
is_null_or_absent (JsonObject *o, const char *key)
{
  return !json_object_has_member (o, key) || JSON_NODE_HOLDS_NULL (json_object_get_member (o, key));
}

/* Rule 1: models forbid unknown keys. */
static void
check_keys (Check *c, const char *where, JsonObject *o, const char *const *allowed)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, o);
  while (json_object_iter_next (&iter, &key, &value))
    if (!g_strv_contains (allowed, key))
      problem (c, "%s: unknown field '%s'", where, key);
}

static gboolean
require_object (Check *c, const char *where, JsonNode *n)
{
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    {
      problem (c, "%s: must be an object", where);
      return FALSE;
    }
  return TRUE;
}

static void
check_extra (Check *c, const char *where, JsonObject *o)
{
  if (!is_null_or_absent (o, "extra") && !JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "extra")))
    problem (c, "%s.extra: must be an object", where);
}

static void
check_content (Check *c, const char *where, JsonNode *n, gboolean nullable)
{
  static const char *const part_keys[] = { "type", "text", "source", NULL };
  static const char *const source_keys[] = { "media_type", "path", NULL };
  static const char *const media[] = { "image/png", "image/jpeg", "image/gif", "image/webp", NULL };
  JsonArray *arr;

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    {
      if (!nullable)
        problem (c, "%s: is required and may not be null", where);
      return;
    }
  if (is_string (n))
    return;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    {
      problem (c, "%s: must be a string or a list of content parts", where);
      return;
    }
  arr = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      g_autofree char *pw = g_strdup_printf ("%s[%u]", where, i);
      JsonNode *pn = json_array_get_element (arr, i);
      JsonObject *p;
      const char *type;

      if (!require_object (c, pw, pn))
        continue;
      p = json_node_get_object (pn);
      check_keys (c, pw, p, part_keys);
      type = json_object_get_string_member_with_default (p, "type", "");
      if (g_str_equal (type, "text"))
        {
          if (!is_string (json_object_get_member (p, "text")))
            problem (c, "%s.text: required for a text part", pw);
          if (!is_null_or_absent (p, "source"))
            problem (c, "%s.source: only allowed on image parts", pw);
        }
      else if (g_str_equal (type, "image"))
        {
          JsonNode *sn = json_object_get_member (p, "source");
          if (!is_null_or_absent (p, "text"))
            problem (c, "%s.text: only allowed on text parts", pw);
          if (require_object (c, pw, sn))
            {
              JsonObject *s = json_node_get_object (sn);
              check_keys (c, pw, s, source_keys);
              if (!is_string (json_object_get_member (s, "media_type"))
                  || !g_strv_contains (media, json_object_get_string_member (s, "media_type")))
                problem (c, "%s.source.media_type: must be image/png, image/jpeg, image/gif or image/webp", pw);
              if (!is_string (json_object_get_member (s, "path")))
                problem (c, "%s.source.path: required", pw);
            }
        }
      else
        problem (c, "%s.type: must be 'text' or 'image'", pw);
    }
}

static void check_trajectory (Check *c, const char *where, JsonNode *node, gboolean embedded);

static void
check_ref (Check *c, const char *where, JsonNode *n, GPtrArray *sub_ids)
{
  static const char *const ref_keys[] = { "trajectory_id", "trajectory_path", "session_id", "extra", NULL };
  JsonObject *r;

  if (!require_object (c, where, n))
    return;
  r = json_node_get_object (n);
  check_keys (c, where, r, ref_keys);
  check_extra (c, where, r);
  if (is_null_or_absent (r, "trajectory_id") && is_null_or_absent (r, "trajectory_path"))
    problem (c, "%s: needs trajectory_id or trajectory_path", where);
  if (is_null_or_absent (r, "trajectory_path") && !is_null_or_absent (r, "trajectory_id"))
    {
      const char *id = json_object_get_string_member (r, "trajectory_id");
      gboolean found = FALSE;
      for (guint i = 0; sub_ids != NULL && i < sub_ids->len; i++)
        found = found || g_strcmp0 (g_ptr_array_index (sub_ids, i), id) == 0;
      if (!found)
        problem (c, "%s.trajectory_id: '%s' is not one of subagent_trajectories", where, id != NULL ? id : "");
    }
}

static void
check_step (Check *c, JsonObject *step, guint i, GPtrArray *sub_ids)
{
  static const char *const step_keys[] = {
    "step_id", "timestamp", "source", "model_name", "reasoning_effort", "message", "reasoning_content",
    "tool_calls", "observation", "metrics", "is_copied_context", "llm_call_count", "extra", NULL,
  };
  static const char *const agent_only[] = { "model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics", NULL };
  static const char *const call_keys[] = { "tool_call_id", "function_name", "arguments", "extra", NULL };
  static const char *const obs_keys[] = { "results", NULL };
  static const char *const result_keys[] = { "source_call_id", "content", "subagent_trajectory_ref", "extra", NULL };
  static const char *const metric_keys[] = {
    "prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd", "prompt_token_ids",
    "completion_token_ids", "logprobs", "extra", NULL,
  };
  g_autofree char *where = g_strdup_printf ("steps[%u]", i);
  const char *source;
  g_autoptr(GPtrArray) call_ids = g_ptr_array_new ();
  JsonNode *n;

  check_keys (c, where, step, step_keys);
  check_extra (c, where, step);
  n = json_object_get_member (step, "step_id");
  if (!is_int (n))
    problem (c, "%s.step_id: must be an integer", where);
  else if (json_node_get_int (n) != (gint64) i + 1)
    problem (c, "%s.step_id: expected %u (sequential from 1), got %" G_GINT64_FORMAT, where, i + 1, json_node_get_int (n));

  n = json_object_get_member (step, "source");
  source = is_string (n) ? json_node_get_string (n) : "";
  if (!g_str_equal (source, "system") && !g_str_equal (source, "user") && !g_str_equal (source, "agent"))
    problem (c, "%s.source: must be system, user or agent", where);

  if (!json_object_has_member (step, "message"))
    problem (c, "%s.message: is required", where);
  else
    check_content (c, where, json_object_get_member (step, "message"), FALSE);

  if (!is_null_or_absent (step, "timestamp"))
    {
      n = json_object_get_member (step, "timestamp");
      g_autoptr(GDateTime) dt = NULL;
      if (is_string (n))
        {
          g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
          dt = g_date_time_new_from_iso8601 (json_node_get_string (n), utc);
        }
      if (dt == NULL)
        problem (c, "%s.timestamp: not an ISO 8601 date-time", where);
    }

  if (!g_str_equal (source, "agent"))
    for (guint k = 0; agent_only[k] != NULL; k++)
      if (!is_null_or_absent (step, agent_only[k]))
        problem (c, "%s.%s: only applicable when source is 'agent'", where, agent_only[k]);

  if (!is_null_or_absent (step, "model_name") && !is_string (json_object_get_member (step, "model_name")))
    problem (c, "%s.model_name: must be a string", where);
  if (!is_null_or_absent (step, "reasoning_effort") && !is_string (json_object_get_member (step, "reasoning_effort"))
      && !is_number (json_object_get_member (step, "reasoning_effort")))
    problem (c, "%s.reasoning_effort: must be a string or a number", where);
  if (!is_null_or_absent (step, "reasoning_content") && !is_string (json_object_get_member (step, "reasoning_content")))
    problem (c, "%s.reasoning_content: must be a string", where);
  if (!is_null_or_absent (step, "is_copied_context")
      && !(JSON_NODE_HOLDS_VALUE (json_object_get_member (step, "is_copied_context"))
           && json_node_get_value_type (json_object_get_member (step, "is_copied_context")) == G_TYPE_BOOLEAN))
    problem (c, "%s.is_copied_context: must be true or false", where);

  if (!is_null_or_absent (step, "llm_call_count"))
    {
      n = json_object_get_member (step, "llm_call_count");
      if (!is_int (n) || json_node_get_int (n) < 0)
        problem (c, "%s.llm_call_count: must be an integer >= 0", where);
      else if (json_node_get_int (n) == 0 && g_str_equal (source, "agent")
               && (!is_null_or_absent (step, "metrics") || !is_null_or_absent (step, "reasoning_content")))
        problem (c, "%s: llm_call_count 0 forbids metrics and reasoning_content", where);
    }

  if (!is_null_or_absent (step, "tool_calls"))
    {
      n = json_object_get_member (step, "tool_calls");
      if (!JSON_NODE_HOLDS_ARRAY (n))
        problem (c, "%s.tool_calls: must be a list", where);
      else
        for (guint k = 0; k < json_array_get_length (json_node_get_array (n)); k++)
          {
            g_autofree char *cw = g_strdup_printf ("%s.tool_calls[%u]", where, k);
            JsonNode *cn = json_array_get_element (json_node_get_array (n), k);
            JsonObject *call;
            if (!require_object (c, cw, cn))
              continue;
            call = json_node_get_object (cn);
            check_keys (c, cw, call, call_keys);
            check_extra (c, cw, call);
            if (!is_string (json_object_get_member (call, "tool_call_id")))
              problem (c, "%s.tool_call_id: required string", cw);
            else
              {
                const char *id = json_object_get_string_member (call, "tool_call_id");
                for (guint j = 0; j < call_ids->len; j++)
                  if (g_str_equal (g_ptr_array_index (call_ids, j), id))
                    problem (c, "%s.tool_call_id: '%s' is used twice in this step", cw, id);
                g_ptr_array_add (call_ids, (gpointer) id);
              }
            if (!is_string (json_object_get_member (call, "function_name")))
              problem (c, "%s.function_name: required string", cw);
            if (json_object_get_member (call, "arguments") == NULL
                || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (call, "arguments")))
              problem (c, "%s.arguments: must be a JSON object", cw);
          }
    }

  if (!is_null_or_absent (step, "observation"))
    {
      g_autofree char *ow = g_strdup_printf ("%s.observation", where);
      n = json_object_get_member (step, "observation");
      if (require_object (c, ow, n))
        {
          JsonObject *obs = json_node_get_object (n);
          JsonNode *rn = json_object_get_member (obs, "results");
          check_keys (c, ow, obs, obs_keys);
          if (rn == NULL || !JSON_NODE_HOLDS_ARRAY (rn))
            problem (c, "%s.results: required list", ow);
          else
            for (guint k = 0; k < json_array_get_length (json_node_get_array (rn)); k++)
              {
                g_autofree char *rw = g_strdup_printf ("%s.results[%u]", ow, k);
                JsonNode *en = json_array_get_element (json_node_get_array (rn), k);
                JsonObject *r;
                if (!require_object (c, rw, en))
                  continue;
                r = json_node_get_object (en);
                check_keys (c, rw, r, result_keys);
                check_extra (c, rw, r);
                if (!is_null_or_absent (r, "source_call_id"))
                  {
                    JsonNode *sid = json_object_get_member (r, "source_call_id");
                    gboolean found = FALSE;
                    if (!is_string (sid))
                      problem (c, "%s.source_call_id: must be a string or null", rw);
                    else
                      for (guint j = 0; j < call_ids->len; j++)
                        found = found || g_str_equal (g_ptr_array_index (call_ids, j), json_node_get_string (sid));
                    if (is_string (sid) && !found)
                      problem (c, "%s.source_call_id: '%s' matches no tool call of the same step", rw,
                               json_node_get_string (sid));
                  }
                {
                  g_autofree char *cw = g_strdup_printf ("%s.content", rw);
                  check_content (c, cw, json_object_get_member (r, "content"), TRUE);
                }
                if (!is_null_or_absent (r, "subagent_trajectory_ref"))
                  {
                    JsonNode *refs = json_object_get_member (r, "subagent_trajectory_ref");
                    if (!JSON_NODE_HOLDS_ARRAY (refs))
                      problem (c, "%s.subagent_trajectory_ref: must be a list", rw);
                    else
                      for (guint j = 0; j < json_array_get_length (json_node_get_array (refs)); j++)
                        check_ref (c, rw, json_array_get_element (json_node_get_array (refs), j), sub_ids);
                  }
              }
        }
    }

  if (!is_null_or_absent (step, "metrics"))
    {
      g_autofree char *mw = g_strdup_printf ("%s.metrics", where);
      n = json_object_get_member (step, "metrics");
      if (require_object (c, mw, n))
        {
          JsonObject *m = json_node_get_object (n);
          check_keys (c, mw, m, metric_keys);
          check_extra (c, mw, m);
          for (const char *const *k = (const char *const[]) { "prompt_tokens", "completion_tokens", "cached_tokens", NULL }; *k != NULL; k++)
            if (!is_null_or_absent (m, *k) && !is_int (json_object_get_member (m, *k)))
              problem (c, "%s.%s: must be an integer", mw, *k);
          if (!is_null_or_absent (m, "cost_usd") && !is_number (json_object_get_member (m, "cost_usd")))
            problem (c, "%s.cost_usd: must be a number", mw);
          for (const char *const *k = (const char *const[]) { "prompt_token_ids", "completion_token_ids", "logprobs", NULL }; *k != NULL; k++)
            if (!is_null_or_absent (m, *k))
              {
                JsonNode *an = json_object_get_member (m, *k);
                gboolean ok = JSON_NODE_HOLDS_ARRAY (an);
                for (guint j = 0; ok && j < json_array_get_length (json_node_get_array (an)); j++)
                  {
                    JsonNode *e = json_array_get_element (json_node_get_array (an), j);
                    ok = g_str_equal (*k, "logprobs") ? is_number (e) : is_int (e);
                  }
                if (!ok)
                  problem (c, "%s.%s: must be a list of %s", mw, *k, g_str_equal (*k, "logprobs") ? "numbers" : "integers");
              }
        }
    }
}

static void
check_trajectory (Check *c, const char *where, JsonNode *node, gboolean embedded)
{
  static const char *const root_keys[] = {
    "schema_version", "session_id", "trajectory_id", "agent", "steps", "notes", "final_metrics",
    "continued_trajectory_ref", "extra", "subagent_trajectories", NULL,
  };
  static const char *const agent_keys[] = { "name", "version", "model_name", "tool_definitions", "extra", NULL };
  static const char *const fm_keys[] = {
    "total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_cost_usd", "total_steps", "extra", NULL,
  };
  static const char *const versions[] = {
    "ATIF-v1.0", "ATIF-v1.1", "ATIF-v1.2", "ATIF-v1.3", "ATIF-v1.4", "ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7", NULL,
  };
  g_autoptr(GPtrArray) sub_ids = g_ptr_array_new ();
  JsonObject *root;
  JsonNode *n;

  if (!require_object (c, where, node))
    return;
  root = json_node_get_object (node);
  check_keys (c, where, root, root_keys);
  check_extra (c, where, root);

  n = json_object_get_member (root, "schema_version");
  if (!is_string (n) || !g_strv_contains (versions, json_node_get_string (n)))
    problem (c, "%s.schema_version: must be one of ATIF-v1.0 … ATIF-v1.7", where);
  for (const char *const *k = (const char *const[]) { "session_id", "trajectory_id", "notes", "continued_trajectory_ref", NULL }; *k != NULL; k++)
    if (!is_null_or_absent (root, *k) && !is_string (json_object_get_member (root, *k)))
      problem (c, "%s.%s: must be a string", where, *k);
  if (embedded && is_null_or_absent (root, "trajectory_id"))
    problem (c, "%s.trajectory_id: required on an embedded subagent trajectory", where);

  n = json_object_get_member (root, "agent");
  if (require_object (c, "agent", n))
    {
      JsonObject *a = json_node_get_object (n);
      check_keys (c, "agent", a, agent_keys);
      check_extra (c, "agent", a);
      if (!is_string (json_object_get_member (a, "name")))
        problem (c, "agent.name: required string");
      if (!is_string (json_object_get_member (a, "version")))
        problem (c, "agent.version: required string");
      if (!is_null_or_absent (a, "tool_definitions") && !JSON_NODE_HOLDS_ARRAY (json_object_get_member (a, "tool_definitions")))
        problem (c, "agent.tool_definitions: must be a list");
    }

  if (!is_null_or_absent (root, "subagent_trajectories"))
    {
      n = json_object_get_member (root, "subagent_trajectories");
      if (!JSON_NODE_HOLDS_ARRAY (n))
        problem (c, "%s.subagent_trajectories: must be a list", where);
      else
        for (guint i = 0; i < json_array_get_length (json_node_get_array (n)); i++)
          {
            JsonNode *sn = json_array_get_element (json_node_get_array (n), i);
            g_autofree char *sw = g_strdup_printf ("%s.subagent_trajectories[%u]", where, i);
            check_trajectory (c, sw, sn, TRUE);
            if (JSON_NODE_HOLDS_OBJECT (sn) && is_string (json_object_get_member (json_node_get_object (sn), "trajectory_id")))
              {
                const char *id = json_object_get_string_member (json_node_get_object (sn), "trajectory_id");
                for (guint j = 0; j < sub_ids->len; j++)
                  if (g_str_equal (g_ptr_array_index (sub_ids, j), id))
                    problem (c, "%s.trajectory_id: '%s' is not unique", sw, id);
                g_ptr_array_add (sub_ids, (gpointer) id);
              }
          }
    }

  n = json_object_get_member (root, "steps");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n) || json_array_get_length (json_node_get_array (n)) == 0)
    problem (c, "%s.steps: must be a non-empty list", where);
  else
    for (guint i = 0; i < json_array_get_length (json_node_get_array (n)); i++)
      {
        JsonNode *sn = json_array_get_element (json_node_get_array (n), i);
        g_autofree char *sw = g_strdup_printf ("steps[%u]", i);
        if (require_object (c, sw, sn))
          check_step (c, json_node_get_object (sn), i, sub_ids);
      }

  if (!is_null_or_absent (root, "final_metrics"))
    {
      n = json_object_get_member (root, "final_metrics");
      if (require_object (c, "final_metrics", n))
        {
          JsonObject *fm = json_node_get_object (n);
          check_keys (c, "final_metrics", fm, fm_keys);
          check_extra (c, "final_metrics", fm);
          for (const char *const *k = (const char *const[]) { "total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_steps", NULL }; *k != NULL; k++)
            if (!is_null_or_absent (fm, *k) && !is_int (json_object_get_member (fm, *k)))
              problem (c, "final_metrics.%s: must be an integer", *k);
          if (!is_null_or_absent (fm, "total_cost_usd") && !is_number (json_object_get_member (fm, "total_cost_usd")))
            problem (c, "final_metrics.total_cost_usd: must be a number");
        }
    }
}

gboolean
ow_atif_validate (JsonNode *trajectory, GPtrArray **errors)
{
  Check c = { g_ptr_array_new_with_free_func (g_free) };
  gboolean ok;

  check_trajectory (&c, "trajectory", trajectory, FALSE);
  ok = c.errors->len == 0;
  if (errors != NULL)
    *errors = c.errors;
  else
    g_ptr_array_unref (c.errors);
  return ok;
}
