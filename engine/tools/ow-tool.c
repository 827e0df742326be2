/* ow-tool.c: the OwTool interface, results and content (see ow-tool.h). */
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

/* ---- Content ------------------------------------------------------------ */

OwContentBlock *
ow_content_block_new_text (const char *text)
{
  OwContentBlock *b = g_new0 (OwContentBlock, 1);

  b->kind = OW_CONTENT_TEXT;
  b->text = g_strdup (text != NULL ? text : "");
  return b;
}

OwContentBlock *
ow_content_block_new_image (GBytes *data, const char *mime_type)
{
  OwContentBlock *b = g_new0 (OwContentBlock, 1);

  g_return_val_if_fail (data != NULL, NULL);
  b->kind = OW_CONTENT_IMAGE;
  b->data = g_bytes_ref (data);
  b->mime_type = g_strdup (mime_type != NULL ? mime_type : "application/octet-stream");
  return b;
}

OwContentBlock *
ow_content_block_new_resource_link (const char *uri, const char *name, const char *mime_type)
{
  OwContentBlock *b = g_new0 (OwContentBlock, 1);

  g_return_val_if_fail (uri != NULL, NULL);
  b->kind = OW_CONTENT_RESOURCE_LINK;
  b->uri = g_strdup (uri);
  b->name = g_strdup (name);
  b->mime_type = g_strdup (mime_type);
  return b;
}

void
ow_content_block_free (OwContentBlock *block)
{
  if (block == NULL)
    return;
  g_free (block->text);
  g_clear_pointer (&block->data, g_bytes_unref);
  g_free (block->mime_type);
  g_free (block->uri);
  g_free (block->name);
  g_free (block);
}

/* ---- Results ------------------------------------------------------------ */

OwToolResult *
ow_tool_result_new (OwToolStatus status, const char *text)
{
  OwToolResult *r = g_new0 (OwToolResult, 1);

  r->status = status;
  r->text = g_strdup (text);
  r->is_error = status != OW_TOOL_STATUS_OK;
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

OwToolResult *
ow_tool_result_new_content (GPtrArray *content, JsonObject *structured, gboolean is_error)
{
  OwToolResult *r = g_new0 (OwToolResult, 1);
  GString *text = g_string_new (NULL);

  r->status = is_error ? OW_TOOL_STATUS_ERROR : OW_TOOL_STATUS_OK;
  r->is_error = is_error;
  r->content = content;
  r->structured = structured != NULL ? json_object_ref (structured) : NULL;
  for (guint i = 0; content != NULL && i < content->len; i++)
    {
      OwContentBlock *b = g_ptr_array_index (content, i);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      switch (b->kind)
        {
        case OW_CONTENT_TEXT:
          g_string_append (text, b->text);
          break;
        case OW_CONTENT_IMAGE:
          g_string_append_printf (text, "[image: %s, %" G_GSIZE_FORMAT " bytes]", b->mime_type,
                                  g_bytes_get_size (b->data));
          break;
        case OW_CONTENT_RESOURCE_LINK:
        default:
          g_string_append_printf (text, "[resource: %s%s%s]", b->name != NULL ? b->name : "",
                                  b->name != NULL ? " " : "", b->uri);
          break;
        }
    }
  if ((content == NULL || content->len == 0) && structured != NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), structured);
      g_autofree char *json = json_to_string (node, FALSE);

      g_string_append (text, json);
    }
  r->text = g_string_free (text, FALSE);
  return r;
}

static gpointer
content_block_copy (gconstpointer src, gpointer user_data)
{
  const OwContentBlock *b = src;
  OwContentBlock *c = g_new0 (OwContentBlock, 1);

  c->kind = b->kind;
  c->text = g_strdup (b->text);
  c->data = b->data != NULL ? g_bytes_ref (b->data) : NULL;
  c->mime_type = g_strdup (b->mime_type);
  c->uri = g_strdup (b->uri);
  c->name = g_strdup (b->name);
  return c;
}

OwToolResult *
ow_tool_result_copy (const OwToolResult *result)
{
  OwToolResult *r = g_new0 (OwToolResult, 1);

  r->status = result->status;
  r->text = g_strdup (result->text);
  r->is_error = result->is_error;
  if (result->content != NULL)
    {
      r->content = g_ptr_array_copy (result->content, content_block_copy, NULL);
      g_ptr_array_set_free_func (r->content, (GDestroyNotify) ow_content_block_free);
    }
  r->structured = result->structured != NULL ? json_object_ref (result->structured) : NULL;
  return r;
}

void
ow_tool_result_free (OwToolResult *result)
{
  if (result == NULL)
    return;
  g_free (result->text);
  g_clear_pointer (&result->content, g_ptr_array_unref);
  g_clear_pointer (&result->structured, json_object_unref);
  g_free (result);
}

/* ---- The interface ------------------------------------------------------ */

/* The function schema built for a tool that gives none, kept with it. */
static GQuark
built_schema_quark (void)
{
  return g_quark_from_static_string ("ow-tool-built-schema");
}

/* The "function" member of the tool's own schema, or NULL. */
static JsonObject *
own_function (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  JsonObject *schema = iface->get_schema != NULL ? iface->get_schema (self) : NULL;
  JsonNode *fn = schema != NULL ? json_object_get_member (schema, "function") : NULL;

  return fn != NULL && JSON_NODE_HOLDS_OBJECT (fn) ? json_node_get_object (fn) : NULL;
}

const char *
ow_tool_get_name (OwTool *self)
{
  return OW_TOOL_GET_IFACE (self)->get_name (self);
}

JsonObject *
ow_tool_get_schema (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  JsonObject *built, *fn;
  const char *description;
  JsonObject *input;

  if (iface->get_schema != NULL)
    return iface->get_schema (self);
  built = g_object_get_qdata (G_OBJECT (self), built_schema_quark ());
  if (built != NULL)
    return built;

  fn = json_object_new ();
  json_object_set_string_member (fn, "name", ow_tool_get_name (self));
  description = ow_tool_get_description (self);
  if (description != NULL)
    json_object_set_string_member (fn, "description", description);
  input = ow_tool_get_input_schema (self);
  if (input != NULL)
    json_object_set_object_member (fn, "parameters", json_object_ref (input));
  else
    {
      JsonObject *empty = json_object_new ();
      json_object_set_string_member (empty, "type", "object");
      json_object_set_object_member (empty, "properties", json_object_new ());
      json_object_set_object_member (fn, "parameters", empty);
    }
  built = json_object_new ();
  json_object_set_string_member (built, "type", "function");
  json_object_set_object_member (built, "function", fn);
  g_object_set_qdata_full (G_OBJECT (self), built_schema_quark (), built, (GDestroyNotify) json_object_unref);
  return built;
}

const char *
ow_tool_get_title (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  const char *title = iface->get_title != NULL ? iface->get_title (self) : NULL;

  return title != NULL ? title : ow_tool_get_name (self);
}

const char *
ow_tool_get_description (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  JsonObject *fn;

  if (iface->get_description != NULL)
    return iface->get_description (self);
  fn = own_function (self);
  return fn != NULL ? json_object_get_string_member_with_default (fn, "description", NULL) : NULL;
}

JsonObject *
ow_tool_get_input_schema (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  JsonObject *fn;
  JsonNode *params;

  if (iface->get_input_schema != NULL)
    return iface->get_input_schema (self);
  fn = own_function (self);
  params = fn != NULL ? json_object_get_member (fn, "parameters") : NULL;
  return params != NULL && JSON_NODE_HOLDS_OBJECT (params) ? json_node_get_object (params) : NULL;
}

JsonObject *
ow_tool_get_output_schema (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);

  return iface->get_output_schema != NULL ? iface->get_output_schema (self) : NULL;
}

OwRisk
ow_tool_get_risk (OwTool *self)
{
  return OW_TOOL_GET_IFACE (self)->get_risk (self);
}

const char *
ow_tool_get_target_argument (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);

  return iface->get_target_argument != NULL ? iface->get_target_argument (self) : NULL;
}

JsonObject *
ow_tool_get_annotations (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);

  return iface->get_annotations != NULL ? iface->get_annotations (self) : NULL;
}

const char *
ow_tool_get_source (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  const char *source = iface->get_source != NULL ? iface->get_source (self) : NULL;

  return source != NULL ? source : "builtin";
}

OwToolKind
ow_tool_get_kind (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  return iface->get_kind != NULL ? iface->get_kind (self) : OW_TOOL_KIND_EXECUTE;
}

const char *
ow_tool_get_allowed_by (OwTool *self)
{
  OwToolInterface *iface = OW_TOOL_GET_IFACE (self);
  return iface->get_allowed_by != NULL ? iface->get_allowed_by (self) : NULL;
}

void
ow_tool_call_async (OwTool              *self,
                    const OwToolContext *context,
                    JsonObject          *args,
                    GCancellable        *cancellable,
                    OwToolProgressFunc   progress,
                    gpointer             progress_data,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  OW_TOOL_GET_IFACE (self)->call_async (self, context, args, cancellable, progress, progress_data, callback,
                                        user_data);
}

OwToolResult *
ow_tool_call_finish (OwTool *self, GAsyncResult *result, GError **error)
{
  return OW_TOOL_GET_IFACE (self)->call_finish (self, result, error);
}
