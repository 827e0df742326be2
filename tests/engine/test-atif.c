/* test-atif.c: the ATIF-v1.7 validator accepts good trajectories and names
 * what is wrong with bad ones. */
#include <string.h>

#include "core/ow-tool-args.h"
#include "headless/ow-atif.h"

static const char valid[] =
  "{\"schema_version\":\"ATIF-v1.7\",\"session_id\":\"s-1\","
  " \"agent\":{\"name\":\"openworker\",\"version\":\"0.1.0\",\"model_name\":\"m\","
  "   \"tool_definitions\":[{\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"parameters\":{}}}]},"
  " \"steps\":["
  "  {\"step_id\":1,\"timestamp\":\"2026-11-29T10:00:00.000Z\",\"source\":\"system\",\"message\":\"be useful\"},"
  "  {\"step_id\":2,\"source\":\"user\",\"message\":[{\"type\":\"text\",\"text\":\"read a.txt\"},"
  "     {\"type\":\"image\",\"source\":{\"media_type\":\"image/png\",\"path\":\"images/a.png\"}}]},"
  "  {\"step_id\":3,\"source\":\"agent\",\"model_name\":\"m\",\"message\":\"\",\"reasoning_content\":\"think\","
  "   \"tool_calls\":[{\"tool_call_id\":\"c1\",\"function_name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}],"
  "   \"observation\":{\"results\":[{\"source_call_id\":\"c1\",\"content\":\"hello\"},{\"source_call_id\":null,\"content\":null}]},"
  "   \"metrics\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"cached_tokens\":0,\"cost_usd\":0.001,\"extra\":{\"x\":1}},"
  "   \"llm_call_count\":1,\"extra\":{\"host\":\"127.0.0.1:1\"}},"
  "  {\"step_id\":4,\"source\":\"agent\",\"message\":\"done\",\"llm_call_count\":0}"
  " ],"
  " \"final_metrics\":{\"total_prompt_tokens\":10,\"total_completion_tokens\":2,\"total_cached_tokens\":0,\"total_cost_usd\":0.001,\"total_steps\":4},"
  " \"extra\":{\"outcome\":\"completed\"}}";

static JsonNode *
parse (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static JsonObject *
step (JsonNode *root, guint i)
{
  return json_array_get_object_element (json_object_get_array_member (json_node_get_object (root), "steps"), i);
}

static void
test_valid (void)
{
  g_autoptr(JsonNode) root = parse (valid);
  g_autoptr(GPtrArray) errors = NULL;

  if (!ow_atif_validate (root, &errors))
    g_error ("valid trajectory rejected: %s", (char *) g_ptr_array_index (errors, 0));
}

typedef void (*Mutate) (JsonNode *root);

static void m_unknown_root (JsonNode *r) { json_object_set_int_member (json_node_get_object (r), "bogus", 1); }
static void m_version (JsonNode *r) { json_object_set_string_member (json_node_get_object (r), "schema_version", "ATIF-v2.0"); }
static void m_agent_name (JsonNode *r) { json_object_remove_member (json_object_get_object_member (json_node_get_object (r), "agent"), "name"); }
static void m_step_id (JsonNode *r) { json_object_set_int_member (step (r, 2), "step_id", 7); }
static void m_no_steps (JsonNode *r) { json_object_set_array_member (json_node_get_object (r), "steps", json_array_new ()); }
static void m_source (JsonNode *r) { json_object_set_string_member (step (r, 1), "source", "tool"); }
static void m_message_null (JsonNode *r) { json_object_set_null_member (step (r, 1), "message"); }
static void m_message_missing (JsonNode *r) { json_object_remove_member (step (r, 0), "message"); }
static void m_timestamp (JsonNode *r) { json_object_set_string_member (step (r, 0), "timestamp", "yesterday"); }
static void m_agent_only (JsonNode *r) { json_object_set_string_member (step (r, 1), "model_name", "m"); }
static void m_metrics_on_user (JsonNode *r) { json_object_set_object_member (step (r, 0), "metrics", json_object_new ()); }
static void m_llm_zero (JsonNode *r) { json_object_set_int_member (step (r, 2), "llm_call_count", 0); }
static void m_llm_negative (JsonNode *r) { json_object_set_int_member (step (r, 3), "llm_call_count", -1); }
static void
m_observation_other_step (JsonNode *r)
{
  JsonArray *res = json_object_get_array_member (json_object_get_object_member (step (r, 2), "observation"), "results");
  json_object_set_string_member (json_array_get_object_element (res, 0), "source_call_id", "c9");
}
static void
m_duplicate_call (JsonNode *r)
{
  JsonArray *calls = json_object_get_array_member (step (r, 2), "tool_calls");
  json_array_add_element (calls, json_node_copy (json_array_get_element (calls, 0)));
}
static void
m_arguments_string (JsonNode *r)
{
  JsonArray *calls = json_object_get_array_member (step (r, 2), "tool_calls");
  json_object_set_string_member (json_array_get_object_element (calls, 0), "arguments", "{\"path\":\"a\"}");
}
static void m_tokens_float (JsonNode *r) { json_object_set_double_member (json_object_get_object_member (step (r, 2), "metrics"), "prompt_tokens", 1.5); }
static void m_unknown_metric (JsonNode *r) { json_object_set_int_member (json_object_get_object_member (step (r, 2), "metrics"), "tokens", 1); }
static void
m_image_without_source (JsonNode *r)
{
  JsonArray *parts = json_object_get_array_member (step (r, 1), "message");
  json_object_remove_member (json_array_get_object_element (parts, 1), "source");
}
static void
m_text_part_with_source (JsonNode *r)
{
  JsonArray *parts = json_object_get_array_member (step (r, 1), "message");
  json_object_set_object_member (json_array_get_object_element (parts, 0), "source", json_object_new ());
}
static void m_extra_not_object (JsonNode *r) { json_object_set_string_member (step (r, 2), "extra", "x"); }
static void m_final_metrics_type (JsonNode *r) { json_object_set_string_member (json_object_get_object_member (json_node_get_object (r), "final_metrics"), "total_steps", "4"); }
static void
m_subagent_ref_unresolved (JsonNode *r)
{
  JsonArray *res = json_object_get_array_member (json_object_get_object_member (step (r, 2), "observation"), "results");
  JsonArray *refs = json_array_new ();
  JsonObject *ref = json_object_new ();
  json_object_set_string_member (ref, "trajectory_id", "nowhere");
  json_array_add_object_element (refs, ref);
  json_object_set_array_member (json_array_get_object_element (res, 0), "subagent_trajectory_ref", refs);
}

static void
test_invalid (void)
{
  const struct {
    Mutate      mutate;
    const char *expect;
  } cases[] = {
    { m_unknown_root, "unknown field 'bogus'" },
    { m_version, "schema_version" },
    { m_agent_name, "agent.name" },
    { m_step_id, "expected 3 (sequential from 1), got 7" },
    { m_no_steps, "non-empty" },
    { m_source, "steps[1].source" },
    { m_message_null, "steps[1]" },
    { m_message_missing, "steps[0].message" },
    { m_timestamp, "ISO 8601" },
    { m_agent_only, "only applicable when source is 'agent'" },
    { m_metrics_on_user, "metrics: only applicable" },
    { m_llm_zero, "llm_call_count 0 forbids" },
    { m_llm_negative, "llm_call_count" },
    { m_observation_other_step, "matches no tool call of the same step" },
    { m_duplicate_call, "used twice" },
    { m_arguments_string, "must be a JSON object" },
    { m_tokens_float, "prompt_tokens: must be an integer" },
    { m_unknown_metric, "unknown field 'tokens'" },
    { m_image_without_source, "must be an object" },
    { m_text_part_with_source, "only allowed on image parts" },
    { m_extra_not_object, "extra: must be an object" },
    { m_final_metrics_type, "total_steps" },
    { m_subagent_ref_unresolved, "is not one of subagent_trajectories" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) root = parse (valid);
      g_autoptr(GPtrArray) errors = NULL;
      gboolean found = FALSE;

      cases[i].mutate (root);
      g_assert_false (ow_atif_validate (root, &errors));
      for (guint e = 0; e < errors->len; e++)
        found = found || strstr (g_ptr_array_index (errors, e), cases[i].expect) != NULL;
      if (!found)
        g_error ("case %zu: no error mentions \"%s\" (first: %s)", i, cases[i].expect,
                 (char *) g_ptr_array_index (errors, 0));
    }
}

static void
test_iso8601 (void)
{
  g_autofree char *a = ow_iso8601_from_seconds (1764413283.123);
  g_autofree char *b = ow_iso8601_from_seconds (0.0);

  g_assert_cmpstr (a, ==, "2025-11-29T10:48:03.123Z");
  g_assert_cmpstr (b, ==, "1970-01-01T00:00:00.000Z");
}

static void
test_tool_args (void)
{
  g_autofree char *problem = NULL;
  g_autoptr(JsonObject) ok = ow_tool_args_parse ("{\"path\":\"a\"}", -1, &problem);
  g_autoptr(JsonObject) empty = ow_tool_args_parse ("  ", -1, NULL);
  g_autoptr(JsonObject) cut = NULL;
  g_autoptr(JsonObject) arr = NULL;
  g_autofree char *raw = NULL;
  g_autofree char *long_text = g_strnfill (500, 'q');
  g_autofree char *shrunk = NULL;
  g_autofree char *mangled = NULL;

  g_assert_nonnull (ok);
  g_assert_cmpstr (json_object_get_string_member (ok, "path"), ==, "a");
  g_assert_nonnull (empty);
  g_assert_cmpuint (json_object_get_size (empty), ==, 0);

  cut = ow_tool_args_parse ("{\"path\": \"a", -1, &problem);
  g_assert_null (cut);
  g_assert_nonnull (strstr (problem, "not valid JSON"));
  g_clear_pointer (&problem, g_free);
  arr = ow_tool_args_parse ("[1,2]", -1, &problem);
  g_assert_null (arr);
  g_assert_nonnull (strstr (problem, "not an object"));

  raw = ow_tool_args_history_raw ("{\"path\": \"a");
  g_assert_cmpstr (raw, ==, "{\"_raw\":\"{\\\"path\\\": \\\"a\"}");
  shrunk = ow_tool_args_history_raw (long_text);
  g_assert_nonnull (strstr (shrunk, "500 characters"));
  g_assert_cmpuint (strlen (shrunk), <, 320);

  mangled = ow_tool_args_mangled_result (TRUE, NULL);
  g_assert_nonnull (strstr (mangled, "output-token limit"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/engine/atif/valid", test_valid);
  g_test_add_func ("/ow/engine/atif/invalid", test_invalid);
  g_test_add_func ("/ow/engine/atif/iso8601", test_iso8601);
  g_test_add_func ("/ow/engine/tool-args/parse", test_tool_args);
  return g_test_run ();
}
