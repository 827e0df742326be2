/* ow-builtin-tools.c: the tools OpenWorker brings, as one provider.
 *
 * Three kinds of built-in tool live here:
 *  - executor tools (shell, files, search, git): their schemas come from
 *    resources/tools.json and their bodies run in the session's executor
 *    (in-process or behind a sandbox wall);
 *  - todo_write, which keeps the session's plan in the engine;
 *  - ask_user, request_directory and request_network_access, which a
 *    person answers through the session's attendant (the agent takes them
 *    up; they never execute).
 * The web tools (ow-web-tools.c) join them when the session offers them.
 */
#define G_LOG_DOMAIN "ow-tools"

#include "tools/ow-builtin-tools.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "ow-resources.h"
#include "tools/ow-executor.h"
#include "tools/ow-web-tools.h"

static OwTool *find_tool (OwBuiltinTools *self, const char *name);

/* ---- A tool defined by a schema, run by the executor or the engine ---- */

typedef enum {
  IMPL_EXECUTOR,
  IMPL_TODO,
  IMPL_INTERACTIVE,
} Impl;

#define OW_TYPE_BUILTIN_TOOL (ow_builtin_tool_get_type ())
G_DECLARE_FINAL_TYPE (OwBuiltinTool, ow_builtin_tool, OW, BUILTIN_TOOL, GObject)

struct _OwBuiltinTool
{
  GObject     parent_instance;
  char       *name;    /* the tool's name */
  JsonObject *schema;  /* its function schema (owned) */
  OwRisk      risk;    /* policy class */
  OwToolKind  kind;    /* execute, or answered by a person */
  Impl        impl;    /* where execute goes */
};

static void builtin_tool_iface_init (OwToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwBuiltinTool, ow_builtin_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL, builtin_tool_iface_init))

static const char *
builtin_get_name (OwTool *tool)
{
  return OW_BUILTIN_TOOL (tool)->name;
}

static JsonObject *
builtin_get_schema (OwTool *tool)
{
  return OW_BUILTIN_TOOL (tool)->schema;
}

static OwRisk
builtin_get_risk (OwTool *tool)
{
  return OW_BUILTIN_TOOL (tool)->risk;
}

static OwToolKind
builtin_get_kind (OwTool *tool)
{
  return OW_BUILTIN_TOOL (tool)->kind;
}

static void
on_executor_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  OwToolResult *r = ow_executor_execute_finish (OW_EXECUTOR (source), result, &error);

  if (r == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, r, (GDestroyNotify) ow_tool_result_free);
}

/* todo_write: replaces the session's list. Each item {content, status}
 * with status pending | in_progress | done ("completed" → done, anything
 * else → pending); bare strings become pending items. */
static OwToolResult *
run_todo_write (const OwToolContext *context, JsonObject *args)
{
  JsonArray *in = NULL;
  g_autoptr(JsonArray) out = json_array_new ();
  g_autoptr(JsonObject) result = json_object_new ();
  g_autofree char *text = NULL;

  if (json_object_has_member (args, "todos") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (args, "todos")))
    in = json_object_get_array_member (args, "todos");
  else if (json_object_has_member (args, "items") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (args, "items")))
    in = json_object_get_array_member (args, "items");
  if (in == NULL)
    return ow_tool_result_new_error (OW_TOOL_STATUS_ERROR, "todos is required: a list of {content, status} items");

  for (guint i = 0; i < json_array_get_length (in); i++)
    {
      JsonNode *n = json_array_get_element (in, i);
      JsonObject *item = json_object_new ();
      const char *content = NULL, *status = "pending";

      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        content = json_node_get_string (n);
      else if (JSON_NODE_HOLDS_OBJECT (n))
        {
          JsonObject *o = json_node_get_object (n);
          content = json_object_get_string_member_with_default (o, "content", NULL);
          status = json_object_get_string_member_with_default (o, "status", "pending");
        }
      if (content == NULL)
        {
          json_object_unref (item);
          continue;
        }
      if (g_str_equal (status, "completed"))
        status = "done";
      else if (!g_str_equal (status, "in_progress") && !g_str_equal (status, "done"))
        status = "pending";
      json_object_set_string_member (item, "content", content);
      json_object_set_string_member (item, "status", status);
      json_array_add_object_element (out, item);
    }

  if (context->set_todos != NULL)
    context->set_todos (context->session, out);
  json_object_set_int_member (result, "count", json_array_get_length (out));
  json_object_set_array_member (result, "todos", json_array_ref (out));
  {
    g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), result);
    text = json_to_string (node, FALSE);
  }
  return ow_tool_result_new (OW_TOOL_STATUS_OK, text);
}

static void
builtin_call_async (OwTool              *tool,
                    const OwToolContext *context,
                    JsonObject          *args,
                    GCancellable        *cancellable,
                    OwToolProgressFunc   progress,
                    gpointer             progress_data,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  OwBuiltinTool *self = OW_BUILTIN_TOOL (tool);
  g_autoptr(GTask) task = g_task_new (tool, cancellable, callback, user_data);
  g_autofree char *args_text = NULL;

  g_task_set_source_tag (task, builtin_call_async);
  /* A stop is reported by the body itself, as an "interrupted" result. */
  g_task_set_check_cancellable (task, FALSE);
  switch (self->impl)
    {
    case IMPL_EXECUTOR:
      /* The bodies read the arguments as JSON text. */
      args_text = ow_json_object_to_string (args);
      ow_executor_execute_async (OW_EXECUTOR (context->executor), self->name, args_text, cancellable,
                                 on_executor_done_cb, g_steal_pointer (&task));
      break;
    case IMPL_TODO:
      g_task_return_pointer (task, run_todo_write (context, args), (GDestroyNotify) ow_tool_result_free);
      break;
    case IMPL_INTERACTIVE:
    default:
      g_task_return_new_error (task, OW_TOOL_ERROR, OW_TOOL_ERROR_FAILED,
                               "%s is answered by a person, not executed", self->name);
      break;
    }
}

static OwToolResult *
builtin_call_finish (OwTool *tool, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
builtin_tool_iface_init (OwToolInterface *iface)
{
  iface->get_name = builtin_get_name;
  iface->get_schema = builtin_get_schema;
  iface->get_risk = builtin_get_risk;
  iface->get_kind = builtin_get_kind;
  iface->call_async = builtin_call_async;
  iface->call_finish = builtin_call_finish;
}

static void
ow_builtin_tool_finalize (GObject *object)
{
  OwBuiltinTool *self = OW_BUILTIN_TOOL (object);

  g_free (self->name);
  g_clear_pointer (&self->schema, json_object_unref);
  G_OBJECT_CLASS (ow_builtin_tool_parent_class)->finalize (object);
}

static void
ow_builtin_tool_class_init (OwBuiltinToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_builtin_tool_finalize;
}

static void
ow_builtin_tool_init (OwBuiltinTool *self)
{
}

static OwTool *
builtin_tool_new (JsonObject *schema, OwRisk risk, OwToolKind kind, Impl impl)
{
  OwBuiltinTool *self = g_object_new (OW_TYPE_BUILTIN_TOOL, NULL);
  JsonObject *fn = json_object_get_object_member (schema, "function");

  self->schema = json_object_ref (schema);
  self->name = g_strdup (json_object_get_string_member (fn, "name"));
  self->risk = risk;
  self->kind = kind;
  self->impl = impl;
  return OW_TOOL (self);
}

/* ---- Schemas of the engine-side tools (written here; the executor tools'
 * schemas are in resources/tools.json beside their bodies) ---------------- */

static const char engine_tools_json[] =
  "["
  "{\"type\":\"function\",\"function\":{\"name\":\"todo_write\","
  "\"description\":\"Replace your visible task list. Use it for work with several steps: list the steps, mark one in_progress while you work on it and done when finished. The person sees this list.\","
  "\"parameters\":{\"type\":\"object\",\"properties\":{\"todos\":{\"type\":\"array\",\"description\":\"The whole list, in order.\","
  "\"items\":{\"type\":\"object\",\"properties\":{\"content\":{\"type\":\"string\",\"description\":\"What the step is.\"},"
  "\"status\":{\"type\":\"string\",\"enum\":[\"pending\",\"in_progress\",\"done\"]}},\"required\":[\"content\",\"status\"]}}},"
  "\"required\":[\"todos\"]}}},"
  "{\"type\":\"function\",\"function\":{\"name\":\"ask_user\","
  "\"description\":\"Ask the person a question when you cannot continue well without their answer (a choice only they can make, missing information). Offer options when the answer is one of a few. Do not ask for permission to use tools: that is handled for you.\","
  "\"parameters\":{\"type\":\"object\",\"properties\":{"
  "\"question\":{\"type\":\"string\",\"description\":\"The question, complete and self-contained.\"},"
  "\"options\":{\"type\":\"array\",\"description\":\"Suggested answers.\",\"items\":{\"type\":\"string\"}},"
  "\"allow_text\":{\"type\":\"boolean\",\"description\":\"Whether a free-text answer is accepted (default true).\"},"
  "\"multi\":{\"type\":\"boolean\",\"description\":\"Whether several options may be chosen (default false).\"},"
  "\"header\":{\"type\":\"string\",\"description\":\"A label of at most 12 characters.\"}},"
  "\"required\":[\"question\"]}}},"
  "{\"type\":\"function\",\"function\":{\"name\":\"request_directory\","
  "\"description\":\"Ask the person for access to a folder outside the session's folders. Say why you need it. Read-only unless you must write there.\","
  "\"parameters\":{\"type\":\"object\",\"properties\":{"
  "\"reason\":{\"type\":\"string\",\"description\":\"Why the folder is needed.\"},"
  "\"path\":{\"type\":\"string\",\"description\":\"The folder you want, if you know it.\"},"
  "\"writable\":{\"type\":\"boolean\",\"description\":\"Whether you need to write there (default false).\"}},"
  "\"required\":[\"reason\"]}}},"
  "{\"type\":\"function\",\"function\":{\"name\":\"request_network_access\","
  "\"description\":\"Ask the person to let the session reach a site that the sandbox's allow list blocks (a command's result names the blocked hosts). Say why the task needs it. Never try to get around the list.\","
  "\"parameters\":{\"type\":\"object\",\"properties\":{"
  "\"host\":{\"type\":\"string\",\"description\":\"The site as host or host:port, e.g. pypi.org:443.\"},"
  "\"reason\":{\"type\":\"string\",\"description\":\"Why the task needs it.\"}},"
  "\"required\":[\"host\",\"reason\"]}}}"
  "]";

static JsonArray *
parse_array (const char *text, gssize len, GError **error)
{
  g_autoptr(JsonNode) root = ow_json_parse (text, len, error);
  g_autoptr(JsonNode) copy = NULL;

  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error_literal (error, OW_TOOL_ERROR, OW_TOOL_ERROR_FAILED, "tool schemas must be a JSON array");
      return NULL;
    }
  /* The parse is immutable, and the schemas become the tools' own. */
  copy = ow_json_deep_copy (root);
  return json_array_ref (json_node_get_array (copy));
}

static JsonObject *
find_schema (JsonArray *schemas, const char *name)
{
  for (guint i = 0; i < json_array_get_length (schemas); i++)
    {
      JsonObject *s = json_array_get_object_element (schemas, i);
      JsonObject *fn = s != NULL ? json_object_get_object_member (s, "function") : NULL;
      if (fn != NULL && g_strcmp0 (json_object_get_string_member_with_default (fn, "name", NULL), name) == 0)
        return s;
    }
  return NULL;
}

typedef struct {
  const char *group;
  const char *tools[8];
} Group;

/* The original's capability catalog. */
static const Group groups_table[] = {
  { "files", { "list_files", "read_file", "write_file", "replace_in_file", "apply_patch", NULL } },
  { "code_files", { "list_files", "read_file", "write_file", "replace_in_file", "apply_patch", NULL } },
  { "git", { "git_status", "git_diff", "git_log", NULL } },
  { "search", { "grep", NULL } },
  { "shell", { "run_shell", "shell_task_output", "shell_task_kill", NULL } },
  { "todo", { "todo_write", NULL } },
  { "interaction", { "ask_user", "request_directory", NULL } },
  { "network", { "request_network_access", NULL } },
};

static OwRisk
risk_for (const char *name)
{
  if (g_str_equal (name, "write_file") || g_str_equal (name, "replace_in_file") || g_str_equal (name, "apply_patch"))
    return OW_RISK_WRITE_LOCAL;
  if (g_str_equal (name, "run_shell"))
    return OW_RISK_EXEC;
  return OW_RISK_READ;
}

gboolean
ow_builtin_tools_add_groups (OwBuiltinTools *self, const char *const *groups, GError **error)
{
  g_autoptr(GBytes) bytes = ow_resources_lookup ("tools.json", error);
  g_autoptr(JsonArray) exec_schemas = NULL;
  g_autoptr(JsonArray) engine_schemas = NULL;

  if (bytes == NULL)
    return FALSE;
  exec_schemas = parse_array (g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes), error);
  engine_schemas = parse_array (engine_tools_json, -1, error);
  if (exec_schemas == NULL || engine_schemas == NULL)
    return FALSE;

  for (guint g = 0; groups[g] != NULL; g++)
    {
      const Group *group = NULL;

      for (gsize i = 0; i < G_N_ELEMENTS (groups_table); i++)
        if (g_str_equal (groups_table[i].group, groups[g]))
          group = &groups_table[i];
      if (group == NULL)
        {
          g_set_error (error, OW_TOOL_ERROR, OW_TOOL_ERROR_UNKNOWN_TOOL,
                       "Unknown tool group \"%s\".", groups[g]);
          return FALSE;
        }
      for (guint t = 0; group->tools[t] != NULL; t++)
        {
          const char *name = group->tools[t];
          g_autoptr(OwTool) tool = NULL;
          JsonObject *schema;

          if (find_tool (self, name) != NULL)
            continue;
          if ((schema = find_schema (exec_schemas, name)) != NULL)
            tool = builtin_tool_new (schema, risk_for (name), OW_TOOL_KIND_EXECUTE, IMPL_EXECUTOR);
          else if ((schema = find_schema (engine_schemas, name)) != NULL)
            {
              if (g_str_equal (name, "todo_write"))
                tool = builtin_tool_new (schema, OW_RISK_READ, OW_TOOL_KIND_EXECUTE, IMPL_TODO);
              else if (g_str_equal (name, "ask_user"))
                tool = builtin_tool_new (schema, OW_RISK_READ, OW_TOOL_KIND_ASK_USER, IMPL_INTERACTIVE);
              else if (g_str_equal (name, "request_network_access"))
                tool = builtin_tool_new (schema, OW_RISK_READ, OW_TOOL_KIND_REQUEST_SITE, IMPL_INTERACTIVE);
              else
                tool = builtin_tool_new (schema, OW_RISK_READ, OW_TOOL_KIND_REQUEST_DIRECTORY, IMPL_INTERACTIVE);
            }
          else
            {
              g_set_error (error, OW_TOOL_ERROR, OW_TOOL_ERROR_UNKNOWN_TOOL,
                           "No schema for the built-in tool %s.", name);
              return FALSE;
            }
          ow_builtin_tools_add (self, tool);
        }
    }
  return TRUE;
}

/* ---- The provider ------------------------------------------------------ */

struct _OwBuiltinTools
{
  GObject    parent_instance;
  GPtrArray *tools;  /* OwTool*, in the order they were added */
};

static void builtin_tools_list_iface_init (GListModelInterface *iface);
static void builtin_tools_provider_iface_init (OwToolProviderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwBuiltinTools, ow_builtin_tools, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, builtin_tools_list_iface_init)
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL_PROVIDER, builtin_tools_provider_iface_init))

static GType
builtin_tools_get_item_type (GListModel *model)
{
  return OW_TYPE_TOOL;
}

static guint
builtin_tools_get_n_items (GListModel *model)
{
  return OW_BUILTIN_TOOLS (model)->tools->len;
}

static gpointer
builtin_tools_get_item (GListModel *model, guint position)
{
  OwBuiltinTools *self = OW_BUILTIN_TOOLS (model);

  if (position >= self->tools->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->tools, position));
}

static void
builtin_tools_list_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = builtin_tools_get_item_type;
  iface->get_n_items = builtin_tools_get_n_items;
  iface->get_item = builtin_tools_get_item;
}

static const char *
builtin_tools_get_source (OwToolProvider *provider)
{
  return "builtin";
}

static void
builtin_tools_provider_iface_init (OwToolProviderInterface *iface)
{
  iface->get_source = builtin_tools_get_source;
}

static void
ow_builtin_tools_finalize (GObject *object)
{
  OwBuiltinTools *self = OW_BUILTIN_TOOLS (object);

  g_ptr_array_unref (self->tools);
  G_OBJECT_CLASS (ow_builtin_tools_parent_class)->finalize (object);
}

static void
ow_builtin_tools_class_init (OwBuiltinToolsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_builtin_tools_finalize;
}

static void
ow_builtin_tools_init (OwBuiltinTools *self)
{
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
}

OwBuiltinTools *
ow_builtin_tools_new (void)
{
  return g_object_new (OW_TYPE_BUILTIN_TOOLS, NULL);
}

static OwTool *
find_tool (OwBuiltinTools *self, const char *name)
{
  for (guint i = 0; i < self->tools->len; i++)
    if (g_str_equal (ow_tool_get_name (g_ptr_array_index (self->tools, i)), name))
      return g_ptr_array_index (self->tools, i);
  return NULL;
}

void
ow_builtin_tools_add (OwBuiltinTools *self, OwTool *tool)
{
  g_return_if_fail (OW_IS_BUILTIN_TOOLS (self));
  g_return_if_fail (OW_IS_TOOL (tool));
  g_return_if_fail (find_tool (self, ow_tool_get_name (tool)) == NULL);

  g_ptr_array_add (self->tools, g_object_ref (tool));
  g_list_model_items_changed (G_LIST_MODEL (self), self->tools->len - 1, 0, 1);
}

OwBuiltinTools *
ow_builtin_tools_new_for_session (const OwBuiltinToolsOptions *options, GError **error)
{
  static const char *const network_group[] = { "network", NULL };
  g_autoptr(OwBuiltinTools) self = ow_builtin_tools_new ();

  g_return_val_if_fail (options != NULL, NULL);

  if (options->groups != NULL && !ow_builtin_tools_add_groups (self, options->groups, error))
    return NULL;
  if (options->web != NULL)
    ow_web_tools_add (self, options->web);
  if (options->network && !ow_builtin_tools_add_groups (self, network_group, error))
    return NULL;
  return g_steal_pointer (&self);
}

