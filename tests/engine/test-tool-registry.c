/* test-tool-registry.c: the registry as the live aggregate of providers.
 *
 * Real providers (the built-ins, and a test provider whose list changes
 * as an MCP server's does) in a real registry; no doubles of the registry
 * itself.
 */
#include <string.h>

#include "ow-error.h"
#include "ow-test-utils.h"
#include "ow-json.h"
#include "policy/ow-policy.h"
#include "tool-provider-test-util.h"
#include "tools/ow-builtin-tools.h"
#include "tools/ow-tool-registry.h"

/* "source/name …" of the registry's view, in order. */
static char *
view_of (OwToolRegistry *registry, OwTestTools *a, OwTestTools *b)
{
  GString *s = g_string_new (NULL);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (registry));

  g_assert_cmpuint (n, ==, ow_tool_registry_get_n_tools (registry));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(OwTool) tool = g_list_model_get_item (G_LIST_MODEL (registry), i);
      const char *name = ow_tool_get_name (tool);
      g_autoptr(OwTool) in_a = ow_tool_provider_lookup (OW_TOOL_PROVIDER (a), name);
      g_autoptr(OwTool) in_b = ow_tool_provider_lookup (OW_TOOL_PROVIDER (b), name);
      OwTestTools *from = in_a == tool ? a : in_b == tool ? b : NULL;

      g_assert_nonnull (from);
      g_assert_cmpstr (ow_tool_get_source (tool), ==, ow_tool_provider_get_source (OW_TOOL_PROVIDER (from)));
      g_assert_true (ow_tool_registry_get_tool (registry, i) == tool);
      g_string_append_printf (s, "%s%s/%s", s->len > 0 ? " " : "",
                              ow_tool_provider_get_source (OW_TOOL_PROVIDER (from)), name);
    }
  return g_string_free (s, FALSE);
}

typedef struct {
  guint emissions;
  guint removed;
  guint added;
} Changes;

static void
on_items_changed_cb (GListModel *model, guint position, guint removed, guint added, gpointer user_data)
{
  Changes *c = user_data;

  g_assert_cmpuint (position, ==, 0);
  c->emissions++;
  c->removed = removed;
  c->added = added;
}

/* Two providers' tools come in one order, source then name, whatever
 * order the providers were added or their tools listed in. */
static void
test_stable_order (void)
{
  g_autoptr(OwTestTools) mcp = ow_test_tools_new ("mcp:zeta");
  g_autoptr(OwTestTools) connector = ow_test_tools_new ("connector:github");
  g_autoptr(OwToolRegistry) first = ow_tool_registry_new ();
  g_autoptr(OwToolRegistry) second = ow_tool_registry_new ();
  g_autofree char *one = NULL, *two = NULL;

  ow_test_tools_add (mcp, "search_issues");
  ow_test_tools_add (mcp, "add_comment");
  ow_test_tools_add (connector, "list_repos");
  ow_test_tools_add (connector, "create_issue");

  ow_tool_registry_add_provider (first, OW_TOOL_PROVIDER (mcp));
  ow_tool_registry_add_provider (first, OW_TOOL_PROVIDER (connector));
  ow_tool_registry_add_provider (second, OW_TOOL_PROVIDER (connector));
  ow_tool_registry_add_provider (second, OW_TOOL_PROVIDER (mcp));

  one = view_of (first, mcp, connector);
  two = view_of (second, mcp, connector);
  g_assert_cmpstr (one, ==, "connector:github/create_issue connector:github/list_repos "
                            "mcp:zeta/add_comment mcp:zeta/search_issues");
  g_assert_cmpstr (two, ==, one);
  /* The model is offered the schemas in that order. */
  {
    g_autoptr(JsonArray) defs = ow_tool_registry_dup_definitions (first);
    JsonObject *fn = json_object_get_object_member (json_array_get_object_element (defs, 0), "function");

    g_assert_cmpuint (json_array_get_length (defs), ==, 4);
    g_assert_cmpstr (json_object_get_string_member (fn, "name"), ==, "create_issue");
  }
}

/* A provider's items-changed is the registry's: a tool added at runtime is
 * in the view at once, and a removed one is gone. */
static void
test_follows_provider (void)
{
  g_autoptr(OwTestTools) mcp = ow_test_tools_new ("mcp:notes");
  g_autoptr(OwTestTools) other = ow_test_tools_new ("mcp:other");
  g_autoptr(OwToolRegistry) registry = ow_tool_registry_new ();
  Changes c = { 0 };
  g_autofree char *before = NULL, *during = NULL, *after = NULL;

  ow_test_tools_add (mcp, "read_note");
  ow_tool_registry_add_provider (registry, OW_TOOL_PROVIDER (mcp));
  ow_tool_registry_add_provider (registry, OW_TOOL_PROVIDER (other));
  g_signal_connect (registry, "items-changed", G_CALLBACK (on_items_changed_cb), &c);
  before = view_of (registry, mcp, other);
  g_assert_cmpstr (before, ==, "mcp:notes/read_note");
  g_assert_null (ow_tool_registry_lookup (registry, "write_note"));

  ow_test_tools_add (mcp, "write_note");
  during = view_of (registry, mcp, other);
  g_assert_cmpstr (during, ==, "mcp:notes/read_note mcp:notes/write_note");
  g_assert_cmpuint (c.emissions, ==, 1);
  g_assert_cmpuint (c.removed, ==, 1);
  g_assert_cmpuint (c.added, ==, 2);
  g_assert_nonnull (ow_tool_registry_lookup (registry, "write_note"));

  ow_test_tools_remove (mcp, "read_note");
  after = view_of (registry, mcp, other);
  g_assert_cmpstr (after, ==, "mcp:notes/write_note");
  g_assert_cmpuint (c.emissions, ==, 2);
  g_assert_null (ow_tool_registry_lookup (registry, "read_note"));

  /* A removed provider takes its tools with it, and no longer moves the
   * registry. */
  ow_tool_registry_remove_provider (registry, OW_TOOL_PROVIDER (mcp));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (registry)), ==, 0);
  g_assert_cmpuint (c.emissions, ==, 3);
  ow_test_tools_add (mcp, "late_note");
  g_assert_cmpuint (c.emissions, ==, 3);
  g_assert_null (ow_tool_registry_lookup (registry, "late_note"));
}

/* The built-ins come first ("builtin" sorts before every other source), and
 * a tool another provider names the same as a built-in is hidden, never
 * offered in its place. */
static void
test_builtins_first (void)
{
  static const char *const groups[] = { "search", "interaction", NULL };
  g_autoptr(GError) error = NULL;
  OwBuiltinToolsOptions bo = { .groups = groups };
  g_autoptr(OwBuiltinTools) builtins = ow_builtin_tools_new_for_session (&bo, &error);
  g_autoptr(OwTestTools) mcp = ow_test_tools_new ("mcp:files");
  g_autoptr(OwToolRegistry) registry = ow_tool_registry_new ();
  g_autoptr(JsonArray) defs = NULL;
  OwTool *grep;
  GString *names = g_string_new (NULL);

  g_assert_no_error (error);
  ow_test_tools_add (mcp, "grep");
  ow_test_tools_add (mcp, "another");
  ow_tool_registry_add_provider (registry, OW_TOOL_PROVIDER (mcp));
  ow_tool_registry_add_provider (registry, OW_TOOL_PROVIDER (builtins));

  defs = ow_tool_registry_dup_definitions (registry);
  for (guint i = 0; i < json_array_get_length (defs); i++)
    g_string_append_printf (names, "%s%s", i > 0 ? " " : "",
                            json_object_get_string_member (json_object_get_object_member (
                              json_array_get_object_element (defs, i), "function"), "name"));
  g_assert_cmpstr (names->str, ==, "ask_user grep request_directory another");
  g_string_free (names, TRUE);

  /* Positive control: the provider's grep is a real item of its own. */
  {
    g_autoptr(OwTool) theirs = ow_tool_provider_lookup (OW_TOOL_PROVIDER (mcp), "grep");
    g_autoptr(OwTool) ours = ow_tool_provider_lookup (OW_TOOL_PROVIDER (builtins), "grep");

    grep = ow_tool_registry_lookup (registry, "grep");
    g_assert_nonnull (theirs);
    g_assert_true (grep == ours);
    g_assert_true (grep != theirs);
  }

  /* Unknown groups still fail, as before. */
  {
    static const char *const bad[] = { "files", "telepathy", NULL };
    OwBuiltinToolsOptions worse = { .groups = bad };
    g_autoptr(GError) bad_error = NULL;
    g_autoptr(OwBuiltinTools) none = ow_builtin_tools_new_for_session (&worse, &bad_error);

    g_assert_null (none);
    g_assert_error (bad_error, OW_TOOL_ERROR, OW_TOOL_ERROR_UNKNOWN_TOOL);
  }
}

static char *
definition_names (OwToolRegistry *registry, gsize *bytes)
{
  g_autoptr(JsonArray) defs = ow_tool_registry_dup_definitions (registry);
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), json_array_ref (defs));
  g_autofree char *text = json_to_string (node, FALSE);
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (defs); i++)
    g_string_append_printf (names, "%s%s", i > 0 ? " " : "",
                            json_object_get_string_member (json_object_get_object_member (
                              json_array_get_object_element (defs, i), "function"), "name"));
  if (bytes != NULL)
    *bytes = strlen (text);
  return g_string_free (names, FALSE);
}

static void
on_search_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OwToolResult **out = user_data;

  *out = ow_tool_call_finish (OW_TOOL (source), result, NULL);
  g_assert_nonnull (*out);
}

static OwToolResult *
search (OwToolRegistry *registry, const char *args_json)
{
  OwTool *tool = ow_tool_registry_lookup (registry, "tool_search");
  g_autoptr(JsonObject) args = ow_json_object_from_string (args_json, -1, NULL);
  OwToolContext ctx = { NULL, NULL, NULL };
  OwToolResult *result = NULL;

  g_assert_nonnull (tool);
  ow_tool_call_async (tool, &ctx, args, NULL, NULL, NULL, on_search_done_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  return result;
}

/* Past the budget, tools of other sources wait behind tool_search (the
 * built-ins never do); a search loads the matching ones for every later
 * call; under the budget nothing changes. */
static void
test_deferred_definitions (void)
{
  static const char *const groups[] = { "interaction", NULL };
  g_autoptr(GError) error = NULL;
  OwBuiltinToolsOptions bo = { .groups = groups };
  g_autoptr(OwBuiltinTools) builtins = ow_builtin_tools_new_for_session (&bo, &error);
  g_autoptr(OwTestTools) mcp = ow_test_tools_new ("mcp:many");
  g_autoptr(OwToolRegistry) registry = ow_tool_registry_new ();
  g_autofree char *full = NULL, *deferred = NULL, *after = NULL;
  gsize full_bytes = 0, deferred_bytes = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *name = g_strdup_printf ("mcp__many__tool_%03u", i);
      ow_test_tools_add (mcp, name);
    }
  ow_tool_registry_add_provider (registry, OW_TOOL_PROVIDER (builtins));
  ow_tool_registry_add_provider (registry, OW_TOOL_PROVIDER (mcp));

  /* No budget: everything in full, and no tool_search. */
  full = definition_names (registry, &full_bytes);
  g_assert_nonnull (strstr (full, "mcp__many__tool_199"));
  g_assert_null (strstr (full, "tool_search"));
  g_assert_null (ow_tool_registry_lookup (registry, "tool_search"));

  /* A budget the 200 definitions outgrow: the built-ins and tool_search. */
  ow_tool_registry_set_definition_budget (registry, 4000);
  deferred = definition_names (registry, &deferred_bytes);
  g_assert_cmpstr (deferred, ==, "ask_user request_directory tool_search");
  g_assert_cmpuint (deferred_bytes, <, full_bytes / 2);
  {
    g_autoptr(JsonArray) defs = ow_tool_registry_dup_definitions (registry);
    JsonObject *fn = json_object_get_object_member (json_array_get_object_element (defs, 2), "function");
    const char *description = json_object_get_string_member (fn, "description");

    /* Every deferred tool is named, with its one line. */
    g_assert_nonnull (strstr (description, "- mcp__many__tool_000: A test tool."));
    g_assert_nonnull (strstr (description, "- mcp__many__tool_199: A test tool."));
  }
  /* A deferred tool still runs when called by name. */
  g_assert_nonnull (ow_tool_registry_lookup (registry, "mcp__many__tool_007"));

  /* Searching loads what matches, for every later call. */
  {
    g_autoptr(OwToolResult) r = search (registry, "{\"names\": [\"mcp__many__tool_007\", \"nosuch\"]}");
    g_autoptr(JsonObject) obj = ow_json_object_from_string (r->text, -1, NULL);
    JsonArray *tools = json_object_get_array_member (obj, "tools");

    g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_OK);
    g_assert_cmpuint (json_array_get_length (tools), ==, 1);
    g_assert_nonnull (strstr (r->text, "\"parameters\""));
  }
  after = definition_names (registry, NULL);
  g_assert_cmpstr (after, ==, "ask_user request_directory mcp__many__tool_007 tool_search");
  /* Words match names and descriptions; the answer is bounded. */
  {
    g_autoptr(OwToolResult) r = search (registry, "{\"query\": \"test tool\"}");
    g_autoptr(JsonObject) obj = ow_json_object_from_string (r->text, -1, NULL);

    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (obj, "tools")), ==, 8);
    g_assert_nonnull (strstr (r->text, "narrow the query"));
  }
  {
    g_autoptr(OwToolResult) r = search (registry, "{\"query\": \"telepathy\"}");
    g_assert_nonnull (strstr (r->text, "no tool matched"));
  }
  {
    g_autoptr(OwToolResult) r = search (registry, "{}");
    g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_ERROR);
  }

  /* A budget they fit in: everything in full again. */
  ow_tool_registry_set_definition_budget (registry, full_bytes * 2);
  {
    g_autofree char *again = definition_names (registry, NULL);
    g_assert_cmpstr (again, ==, full);
  }
}

/* What the model is sent of a result made of content blocks. */
static void
test_result_content (void)
{
  static const guint8 png[] = { 0x89, 'P', 'N', 'G', 0, 1, 2, 3 };
  g_autoptr(GBytes) data = g_bytes_new_static (png, sizeof png);
  g_autoptr(JsonObject) structured = ow_json_object_from_string ("{\"temp\":21}", -1, NULL);
  GPtrArray *blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_content_block_free);
  g_autoptr(OwToolResult) mixed = NULL;
  g_autoptr(OwToolResult) only_structured = NULL;
  g_autoptr(OwToolResult) failed = NULL;
  g_autoptr(OwToolResult) plain = ow_tool_result_new (OW_TOOL_STATUS_OK, "{\"ok\":true}");

  g_ptr_array_add (blocks, ow_content_block_new_text ("It is 21 degrees."));
  g_ptr_array_add (blocks, ow_content_block_new_image (data, "image/png"));
  g_ptr_array_add (blocks, ow_content_block_new_resource_link ("file:///tmp/w.csv", "w.csv", "text/csv"));
  mixed = ow_tool_result_new_content (blocks, structured, FALSE);
  g_assert_cmpstr (mixed->text, ==, "It is 21 degrees.\n[image: image/png, 8 bytes]\n[resource: w.csv file:///tmp/w.csv]");
  g_assert_cmpint (mixed->status, ==, OW_TOOL_STATUS_OK);
  g_assert_false (mixed->is_error);
  g_assert_cmpuint (mixed->content->len, ==, 3);
  g_assert_true (mixed->structured == structured);

  only_structured = ow_tool_result_new_content (NULL, structured, FALSE);
  g_assert_cmpstr (only_structured->text, ==, "{\"temp\":21}");

  blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_content_block_free);
  g_ptr_array_add (blocks, ow_content_block_new_text ("no such city"));
  failed = ow_tool_result_new_content (blocks, NULL, TRUE);
  g_assert_cmpint (failed->status, ==, OW_TOOL_STATUS_ERROR);
  g_assert_true (failed->is_error);
  g_assert_cmpstr (failed->text, ==, "no such city");

  /* The built-ins' path: the text alone, as before. */
  g_assert_cmpstr (plain->text, ==, "{\"ok\":true}");
  g_assert_null (plain->content);
  g_assert_false (plain->is_error);
}

/* A tool as an MCP adapter would write it: no function schema of its own,
 * only a name, a description, an input schema and a source. */
#define TEST_TYPE_BARE_TOOL (test_bare_tool_get_type ())
G_DECLARE_FINAL_TYPE (TestBareTool, test_bare_tool, TEST, BARE_TOOL, GObject)

struct _TestBareTool
{
  GObject     parent_instance;
  JsonObject *input;
};

static void bare_tool_iface_init (OwToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestBareTool, test_bare_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL, bare_tool_iface_init))

static const char *bare_get_name (OwTool *tool) { return "get_weather"; }
static OwRisk bare_get_risk (OwTool *tool) { return OW_RISK_EXTERNAL; }
static const char *bare_get_description (OwTool *tool) { return "The weather in a city."; }
static JsonObject *bare_get_input_schema (OwTool *tool) { return TEST_BARE_TOOL (tool)->input; }
static const char *bare_get_source (OwTool *tool) { return "mcp:weather"; }

static void
bare_call_async (OwTool *tool, const OwToolContext *context, JsonObject *args, GCancellable *cancellable,
                 OwToolProgressFunc progress, gpointer progress_data, GAsyncReadyCallback callback,
                 gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (tool, cancellable, callback, user_data);

  g_task_return_pointer (task, ow_tool_result_new (OW_TOOL_STATUS_OK, "sunny"), (GDestroyNotify) ow_tool_result_free);
}

static OwToolResult *
bare_call_finish (OwTool *tool, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
bare_tool_iface_init (OwToolInterface *iface)
{
  iface->get_name = bare_get_name;
  iface->get_risk = bare_get_risk;
  iface->get_description = bare_get_description;
  iface->get_input_schema = bare_get_input_schema;
  iface->get_source = bare_get_source;
  iface->call_async = bare_call_async;
  iface->call_finish = bare_call_finish;
}

static void
test_bare_tool_finalize (GObject *object)
{
  json_object_unref (TEST_BARE_TOOL (object)->input);
  G_OBJECT_CLASS (test_bare_tool_parent_class)->finalize (object);
}

static void
test_bare_tool_class_init (TestBareToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_bare_tool_finalize;
}

static void
test_bare_tool_init (TestBareTool *self)
{
  self->input = ow_json_object_from_string ("{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
                                            "\"required\":[\"city\"]}", -1, NULL);
}

/* A tool that only names itself, describes itself and gives its input
 * schema gets the function schema the wire wants; a built-in's own
 * schema is read back through the same accessors. */
static void
test_tool_defaults (void)
{
  static const char *const groups[] = { "files", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(OwBuiltinTools) builtins = ow_builtin_tools_new ();
  g_autoptr(OwTestTools) mcp = ow_test_tools_new ("mcp:notes");
  g_autoptr(OwTool) read_file = NULL;
  OwTool *note = ow_test_tools_add (mcp, "read_note");
  JsonObject *input;

  g_assert_true (ow_builtin_tools_add_groups (builtins, groups, &error));
  read_file = ow_tool_provider_lookup (OW_TOOL_PROVIDER (builtins), "read_file");
  g_assert_nonnull (read_file);
  g_assert_cmpstr (ow_tool_get_source (read_file), ==, "builtin");
  g_assert_cmpstr (ow_tool_get_title (read_file), ==, "read_file");
  g_assert_nonnull (ow_tool_get_description (read_file));
  input = ow_tool_get_input_schema (read_file);
  g_assert_nonnull (input);
  g_assert_true (json_object_has_member (json_object_get_object_member (input, "properties"), "path"));
  g_assert_null (ow_tool_get_output_schema (read_file));
  g_assert_null (ow_tool_get_target_argument (read_file));
  g_assert_null (ow_tool_get_annotations (read_file));

  /* The test tool gives its own schema; its description and input
   * schema are read from it. */
  g_assert_cmpstr (ow_tool_get_description (note), ==, "A test tool.");
  g_assert_true (json_object_has_member (json_object_get_object_member (ow_tool_get_input_schema (note), "properties"),
                                         "say"));

  /* Built from the parts, once, and kept with the tool. */
  {
    g_autoptr(OwTool) bare = g_object_new (TEST_TYPE_BARE_TOOL, NULL);
    JsonObject *schema = ow_tool_get_schema (bare);
    g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), schema);
    g_autofree char *text = json_to_string (node, FALSE);

    g_assert_cmpstr (text, ==, "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                               "\"description\":\"The weather in a city.\",\"parameters\":{\"type\":\"object\","
                               "\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}}");
    g_assert_true (ow_tool_get_schema (bare) == schema);
    g_assert_cmpstr (ow_tool_get_source (bare), ==, "mcp:weather");
    g_assert_cmpstr (ow_tool_get_title (bare), ==, "get_weather");
    g_assert_cmpint (ow_tool_get_kind (bare), ==, OW_TOOL_KIND_EXECUTE);
  }
}

/* The argument a tool names as its target is what "always allow" offers
 * and what a standing rule matches; without it the policy's table says
 * "target", which this tool's arguments do not have. */
static void
test_target_argument_feeds_rules (void)
{
  g_autoptr(OwPolicy) policy = ow_policy_new (NULL, NULL, NULL);
  g_autoptr(JsonObject) args = ow_json_object_from_string ("{\"channel\":\"#general\",\"text\":\"hi\"}", -1, NULL);
  OwPolicyCall call = {
    .mode = "ask",
    .tool = "post_message",
    .risk = OW_RISK_EXTERNAL,
    .args = args,
    .workspace = "/nonexistent",
  };
  OwDecision with = { 0 }, without = { 0 };

  call.target_arg = "channel";
  ow_policy_decide (policy, &call, &with);
  g_assert_cmpint (with.verdict, ==, OW_VERDICT_ASK);
  g_assert_cmpstr (with.suggested_rule, ==, "post_message:#general");

  call.target_arg = NULL;
  ow_policy_decide (policy, &call, &without);
  g_assert_cmpint (without.verdict, ==, OW_VERDICT_ASK);
  g_assert_cmpstr (without.suggested_rule, ==, "post_message");
  ow_decision_clear (&with);
  ow_decision_clear (&without);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/tools/registry/stable-order", test_stable_order);
  g_test_add_func ("/ow/tools/registry/follows-provider", test_follows_provider);
  g_test_add_func ("/ow/tools/registry/builtins-first", test_builtins_first);
  g_test_add_func ("/ow/tools/registry/deferred-definitions", test_deferred_definitions);
  g_test_add_func ("/ow/tools/tool/result-content", test_result_content);
  g_test_add_func ("/ow/tools/tool/defaults", test_tool_defaults);
  g_test_add_func ("/ow/tools/tool/target-argument", test_target_argument_feeds_rules);
  return g_test_run ();
}
