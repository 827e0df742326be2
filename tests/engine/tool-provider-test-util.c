/* tool-provider-test-util.c: see tool-provider-test-util.h. */
#include "tool-provider-test-util.h"

#include "ow-json.h"

/* ---- A tool that says what it was called with ---- */

#define OW_TYPE_TEST_TOOL (ow_test_tool_get_type ())
G_DECLARE_FINAL_TYPE (OwTestTool, ow_test_tool, OW, TEST_TOOL, GObject)

struct _OwTestTool
{
  GObject     parent_instance;
  char       *name;
  char       *source;  /* its provider's */
  JsonObject *schema;
};

static void test_tool_iface_init (OwToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwTestTool, ow_test_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL, test_tool_iface_init))

static const char *
test_tool_get_name (OwTool *tool)
{
  return OW_TEST_TOOL (tool)->name;
}

static JsonObject *
test_tool_get_schema (OwTool *tool)
{
  return OW_TEST_TOOL (tool)->schema;
}

static const char *
test_tool_get_source (OwTool *tool)
{
  return OW_TEST_TOOL (tool)->source;
}

static OwRisk
test_tool_get_risk (OwTool *tool)
{
  return OW_RISK_READ;
}

static OwToolKind
test_tool_get_kind (OwTool *tool)
{
  return OW_TOOL_KIND_EXECUTE;
}

static void
test_tool_call_async (OwTool *tool, const OwToolContext *context, JsonObject *args, GCancellable *cancellable,
                      OwToolProgressFunc progress, gpointer progress_data, GAsyncReadyCallback callback,
                      gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (tool, cancellable, callback, user_data);
  g_autoptr(JsonObject) result = json_object_new ();
  g_autofree char *text = NULL;

  /* Reports progress as a long MCP call does. */
  if (progress != NULL)
    progress (1, 2, "halfway", progress_data);
  json_object_set_string_member (result, "tool", OW_TEST_TOOL (tool)->name);
  json_object_set_object_member (result, "args", json_object_ref (args));
  text = ow_json_object_to_string (result);
  g_task_return_pointer (task, ow_tool_result_new (OW_TOOL_STATUS_OK, text), (GDestroyNotify) ow_tool_result_free);
}

static OwToolResult *
test_tool_call_finish (OwTool *tool, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_tool_iface_init (OwToolInterface *iface)
{
  iface->get_name = test_tool_get_name;
  iface->get_schema = test_tool_get_schema;
  iface->get_risk = test_tool_get_risk;
  iface->get_source = test_tool_get_source;
  iface->get_kind = test_tool_get_kind;
  iface->call_async = test_tool_call_async;
  iface->call_finish = test_tool_call_finish;
}

static void
ow_test_tool_finalize (GObject *object)
{
  OwTestTool *self = OW_TEST_TOOL (object);

  g_free (self->name);
  g_free (self->source);
  json_object_unref (self->schema);
  G_OBJECT_CLASS (ow_test_tool_parent_class)->finalize (object);
}

static void
ow_test_tool_class_init (OwTestToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_test_tool_finalize;
}

static void
ow_test_tool_init (OwTestTool *self)
{
}

static OwTool *
test_tool_new (const char *name, const char *source)
{
  OwTestTool *self = g_object_new (OW_TYPE_TEST_TOOL, NULL);
  g_autofree char *schema = g_strdup_printf (
    "{\"type\":\"function\",\"function\":{\"name\":\"%s\",\"description\":\"A test tool.\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"say\":{\"type\":\"string\"}}}}}", name);

  self->name = g_strdup (name);
  self->source = g_strdup (source);
  self->schema = ow_json_object_from_string (schema, -1, NULL);
  g_assert_nonnull (self->schema);
  return OW_TOOL (self);
}

/* ---- The provider ---- */

struct _OwTestTools
{
  GObject    parent_instance;
  char      *source;
  GPtrArray *tools;  /* OwTool* */
};

static void test_tools_list_iface_init (GListModelInterface *iface);
static void test_tools_provider_iface_init (OwToolProviderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwTestTools, ow_test_tools, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, test_tools_list_iface_init)
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL_PROVIDER, test_tools_provider_iface_init))

static GType
test_tools_get_item_type (GListModel *model)
{
  return OW_TYPE_TOOL;
}

static guint
test_tools_get_n_items (GListModel *model)
{
  return OW_TEST_TOOLS (model)->tools->len;
}

static gpointer
test_tools_get_item (GListModel *model, guint position)
{
  OwTestTools *self = OW_TEST_TOOLS (model);

  return position < self->tools->len ? g_object_ref (g_ptr_array_index (self->tools, position)) : NULL;
}

static void
test_tools_list_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = test_tools_get_item_type;
  iface->get_n_items = test_tools_get_n_items;
  iface->get_item = test_tools_get_item;
}

static const char *
test_tools_get_source (OwToolProvider *provider)
{
  return OW_TEST_TOOLS (provider)->source;
}

static void
test_tools_provider_iface_init (OwToolProviderInterface *iface)
{
  iface->get_source = test_tools_get_source;
}

static void
ow_test_tools_finalize (GObject *object)
{
  OwTestTools *self = OW_TEST_TOOLS (object);

  g_free (self->source);
  g_ptr_array_unref (self->tools);
  G_OBJECT_CLASS (ow_test_tools_parent_class)->finalize (object);
}

static void
ow_test_tools_class_init (OwTestToolsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_test_tools_finalize;
}

static void
ow_test_tools_init (OwTestTools *self)
{
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
}

OwTestTools *
ow_test_tools_new (const char *source)
{
  OwTestTools *self = g_object_new (OW_TYPE_TEST_TOOLS, NULL);

  self->source = g_strdup (source);
  return self;
}

OwTool *
ow_test_tools_add (OwTestTools *self, const char *name)
{
  OwTool *tool = test_tool_new (name, self->source);

  g_ptr_array_add (self->tools, tool);
  g_list_model_items_changed (G_LIST_MODEL (self), self->tools->len - 1, 0, 1);
  return tool;
}

void
ow_test_tools_remove (OwTestTools *self, const char *name)
{
  for (guint i = 0; i < self->tools->len; i++)
    if (g_str_equal (ow_tool_get_name (g_ptr_array_index (self->tools, i)), name))
      {
        g_ptr_array_remove_index (self->tools, i);
        g_list_model_items_changed (G_LIST_MODEL (self), i, 1, 0);
        return;
      }
  g_assert_not_reached ();
}
