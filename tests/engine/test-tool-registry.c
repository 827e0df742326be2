/* test-tool-registry.c: the registry as the live aggregate of providers.
 *
 * Real providers (the built-ins, and a test provider whose list changes
 * as an MCP server's does) in a real registry; no doubles of the registry
 * itself.
 */
#include "ow-error.h"
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/tools/registry/stable-order", test_stable_order);
  g_test_add_func ("/ow/tools/registry/follows-provider", test_follows_provider);
  g_test_add_func ("/ow/tools/registry/builtins-first", test_builtins_first);
  return g_test_run ();
}
