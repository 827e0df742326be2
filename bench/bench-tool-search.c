/* bench-tool-search: what 200 MCP tools cost the prompt, sent in full and
 * deferred behind tool_search (issue #11).
 *
 *   build/bench/bench-tool-search [N_TOOLS] [RUNS]
 *
 * A provider of N tools shaped like real MCP tools (a two-sentence
 * description, four typed parameters, two required) beside the built-ins
 * of a cowork session, in a real OwToolRegistry. It prints the bytes of
 * the definitions a model call carries with no budget and with the
 * recipe's budget (5% of a 128k window), and the median time to build
 * them, against the built-ins alone as the baseline, in the same process.
 */
#include <stdio.h>
#include <string.h>

#include "ow-json.h"
#include "tools/ow-builtin-tools.h"
#include "tools/ow-tool-registry.h"

#define OW_TYPE_BENCH_TOOL (bench_tool_get_type ())
G_DECLARE_FINAL_TYPE (BenchTool, bench_tool, BENCH, TOOL, GObject)
struct _BenchTool { GObject parent; char *name; JsonObject *schema; };
static const char *bt_name (OwTool *t) { return BENCH_TOOL (t)->name; }
static OwRisk bt_risk (OwTool *t) { return OW_RISK_EXTERNAL; }
static const char *bt_source (OwTool *t) { return "mcp:bench"; }
static const char *bt_description (OwTool *t)
{
  return json_object_get_string_member (json_object_get_object_member (BENCH_TOOL (t)->schema, "function"),
                                        "description");
}
static JsonObject *bt_schema (OwTool *t) { return BENCH_TOOL (t)->schema; }
static void bt_call (OwTool *t, const OwToolContext *c, JsonObject *a, GCancellable *k, OwToolProgressFunc p,
                     gpointer pd, GAsyncReadyCallback cb, gpointer ud) { g_assert_not_reached (); }
static OwToolResult *bt_finish (OwTool *t, GAsyncResult *r, GError **e) { return NULL; }
static void bt_iface (OwToolInterface *i)
{
  i->get_name = bt_name; i->get_risk = bt_risk; i->get_source = bt_source; i->get_schema = bt_schema;
  i->get_description = bt_description; i->call_async = bt_call; i->call_finish = bt_finish;
}
G_DEFINE_FINAL_TYPE_WITH_CODE (BenchTool, bench_tool, G_TYPE_OBJECT, G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL, bt_iface))
static void bench_tool_finalize (GObject *o)
{
  g_free (BENCH_TOOL (o)->name);
  json_object_unref (BENCH_TOOL (o)->schema);
  G_OBJECT_CLASS (bench_tool_parent_class)->finalize (o);
}
static void bench_tool_class_init (BenchToolClass *k) { G_OBJECT_CLASS (k)->finalize = bench_tool_finalize; }
static void bench_tool_init (BenchTool *s) { }

#define OW_TYPE_BENCH_TOOLS (bench_tools_get_type ())
G_DECLARE_FINAL_TYPE (BenchTools, bench_tools, BENCH, TOOLS, GObject)
struct _BenchTools { GObject parent; GPtrArray *tools; };
static GType bp_type (GListModel *m) { return OW_TYPE_TOOL; }
static guint bp_n (GListModel *m) { return BENCH_TOOLS (m)->tools->len; }
static gpointer bp_item (GListModel *m, guint i)
{
  return i < BENCH_TOOLS (m)->tools->len ? g_object_ref (g_ptr_array_index (BENCH_TOOLS (m)->tools, i)) : NULL;
}
static void bp_list (GListModelInterface *i) { i->get_item_type = bp_type; i->get_n_items = bp_n; i->get_item = bp_item; }
static const char *bp_source (OwToolProvider *p) { return "mcp:bench"; }
static void bp_provider (OwToolProviderInterface *i) { i->get_source = bp_source; }
G_DEFINE_FINAL_TYPE_WITH_CODE (BenchTools, bench_tools, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, bp_list)
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL_PROVIDER, bp_provider))
static void bench_tools_finalize (GObject *o)
{
  g_ptr_array_unref (BENCH_TOOLS (o)->tools);
  G_OBJECT_CLASS (bench_tools_parent_class)->finalize (o);
}
static void bench_tools_class_init (BenchToolsClass *k) { G_OBJECT_CLASS (k)->finalize = bench_tools_finalize; }
static void bench_tools_init (BenchTools *s) { s->tools = g_ptr_array_new_with_free_func (g_object_unref); }

static BenchTools *
make_tools (guint n)
{
  BenchTools *p = g_object_new (OW_TYPE_BENCH_TOOLS, NULL);

  for (guint i = 0; i < n; i++)
    {
      BenchTool *t = g_object_new (OW_TYPE_BENCH_TOOL, NULL);
      g_autofree char *json = g_strdup_printf (
        "{\"type\":\"function\",\"function\":{\"name\":\"mcp__bench__records_%03u\","
        "\"description\":\"Lists the records of kind %u that match a filter, newest first. Use it to find an "
        "item before you change it; results are paged.\",\"parameters\":{\"type\":\"object\",\"properties\":{"
        "\"filter\":{\"type\":\"string\",\"description\":\"A filter expression such as status:open\"},"
        "\"limit\":{\"type\":\"integer\",\"description\":\"At most this many (1-100)\"},"
        "\"cursor\":{\"type\":\"string\",\"description\":\"The cursor of the previous page\"},"
        "\"fields\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"Fields to return\"}},"
        "\"required\":[\"filter\",\"limit\"]}}}", i, i);

      t->name = g_strdup_printf ("mcp__bench__records_%03u", i);
      t->schema = ow_json_object_from_string (json, -1, NULL);
      g_ptr_array_add (p->tools, t);
    }
  return p;
}

static gsize
definition_bytes (OwToolRegistry *registry)
{
  g_autoptr(JsonArray) defs = ow_tool_registry_dup_definitions (registry);
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), json_array_ref (defs));
  g_autofree char *text = json_to_string (node, FALSE);

  return strlen (text);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median_us (OwToolRegistry *registry, guint runs)
{
  g_autofree double *t = g_new (double, runs);

  for (guint i = 0; i < runs; i++)
    {
      gint64 start = g_get_monotonic_time ();
      JsonArray *defs = ow_tool_registry_dup_definitions (registry);

      t[i] = (double) (g_get_monotonic_time () - start);
      json_array_unref (defs);
    }
  qsort (t, runs, sizeof *t, cmp_double);
  return t[runs / 2];
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 200;
  guint runs = argc > 2 ? (guint) atoi (argv[2]) : 201;
  static const char *const groups[] = { "files", "search", "shell", "git", "interaction", "todo", NULL };
  OwBuiltinToolsOptions bo = { .groups = groups };
  g_autoptr(GError) error = NULL;
  g_autoptr(OwBuiltinTools) builtins = ow_builtin_tools_new_for_session (&bo, &error);
  g_autoptr(BenchTools) mcp = make_tools (n);
  g_autoptr(OwToolRegistry) alone = ow_tool_registry_new ();
  g_autoptr(OwToolRegistry) registry = ow_tool_registry_new ();
  gsize base, full, deferred, budget = 128000 * 4 / 20;
  double t_base, t_full, t_deferred;

  if (builtins == NULL)
    {
      fprintf (stderr, "bench-tool-search: %s\n", error->message);
      return 1;
    }
  ow_tool_registry_add_provider (alone, OW_TOOL_PROVIDER (builtins));
  ow_tool_registry_add_provider (registry, OW_TOOL_PROVIDER (builtins));
  ow_tool_registry_add_provider (registry, OW_TOOL_PROVIDER (mcp));
  base = definition_bytes (alone);
  t_base = median_us (alone, runs);
  full = definition_bytes (registry);
  t_full = median_us (registry, runs);
  ow_tool_registry_set_definition_budget (registry, budget);
  deferred = definition_bytes (registry);
  t_deferred = median_us (registry, runs);

  printf ("Tool definitions per model call: %u MCP tools beside %u built-ins (budget %zu bytes = 5%% of 128k tokens)\n",
          n, ow_tool_registry_get_n_tools (alone), budget);
  printf ("  baseline: built-ins alone            %7zu bytes   build median %7.1f µs\n", base, t_base);
  printf ("  all %u in full                       %7zu bytes   build median %7.1f µs   %.1f× the baseline's bytes\n",
          n, full, t_full, (double) full / (double) base);
  printf ("  deferred behind tool_search          %7zu bytes   build median %7.1f µs   %.1f× the baseline's bytes, "
          "%.0f%% of in full\n", deferred, t_deferred, (double) deferred / (double) base,
          100.0 * (double) deferred / (double) full);
  return 0;
}
