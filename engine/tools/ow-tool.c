/* ow-tool.c: the OwTool interface (see ow-tool.h). */
#define G_LOG_DOMAIN "ow-tool"

#include "tools/ow-tool.h"

G_DEFINE_INTERFACE (OwTool, ow_tool, G_TYPE_OBJECT)

static void
ow_tool_default_init (OwToolInterface *iface)
{
}

const char *
ow_risk_to_string (OwRisk risk)
{
  switch (risk)
    {
    case OW_RISK_READ: return "read";
    case OW_RISK_WRITE_LOCAL: return "write_local";
    case OW_RISK_EXEC: return "exec";
    case OW_RISK_EXTERNAL: return "external";
    default: return "unknown";
    }
}

const char *
ow_tool_status_to_string (OwToolStatus status)
{
  switch (status)
    {
    case OW_TOOL_STATUS_OK: return "ok";
    case OW_TOOL_STATUS_ERROR: return "error";
    case OW_TOOL_STATUS_DENIED: return "denied";
    case OW_TOOL_STATUS_INTERRUPTED: return "interrupted";
    default: return "error";
    }
}

OwToolResult *
ow_tool_result_new (OwToolStatus status, const char *text)
{
  OwToolResult *r = g_new0 (OwToolResult, 1);

  r->status = status;
  r->text = g_strdup (text);
  return r;
}

OwToolResult *
ow_tool_result_new_error (OwToolStatus status, const char *message)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, message);
  json_builder_end_object (b);
  node = json_builder_get_root (b);
  text = json_to_string (node, FALSE);
  return ow_tool_result_new (status, text);
}

void
ow_tool_result_free (OwToolResult *result)
{
  if (result == NULL)
    return;
  g_free (result->text);
  g_free (result);
}

const char *
ow_tool_get_name (OwTool *self)
{
  return OW_TOOL_GET_IFACE (self)->get_name (self);
}

JsonObject *
ow_tool_get_schema (OwTool *self)
{
  return OW_TOOL_GET_IFACE (self)->get_schema (self);
}

OwRisk
ow_tool_get_risk (OwTool *self)
{
  return OW_TOOL_GET_IFACE (self)->get_risk (self);
}

OwToolKind
ow_tool_get_kind (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  return iface->get_kind != NULL ? iface->get_kind (self) : OW_TOOL_KIND_EXECUTE;
}

void
ow_tool_execute_async (OwTool              *self,
                       const OwToolContext *context,
                       JsonObject          *args,
                       const char          *args_text,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  OW_TOOL_GET_IFACE (self)->execute_async (self, context, args, args_text, cancellable, callback, user_data);
}

OwToolResult *
ow_tool_execute_finish (OwTool *self, GAsyncResult *result, GError **error)
{
  return OW_TOOL_GET_IFACE (self)->execute_finish (self, result, error);
}
