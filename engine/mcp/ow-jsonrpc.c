/* ow-jsonrpc.c: JSON-RPC 2.0 decoding and encoding (see ow-jsonrpc.h). */
#define G_LOG_DOMAIN "ow-mcp"

#include "mcp/ow-jsonrpc.h"

#include "ow-error.h"
#include "ow-json.h"

static gboolean
valid_id (JsonNode *node)
{
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  return json_node_get_value_type (node) == G_TYPE_INT64
         || json_node_get_value_type (node) == G_TYPE_STRING;
}

OwJsonRpcMessage *
ow_jsonrpc_message_parse (const char *text,
                          gsize       len,
                          GError    **error)
{
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(OwJsonRpcMessage) msg = NULL;
  JsonObject *obj;
  JsonNode *id;
  JsonNode *method;
  JsonNode *result;
  JsonNode *err;

  root = ow_json_parse (text, (gssize) len, &parse_error);
  if (root == NULL)
    {
      g_set_error (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                   "The server sent a line that is not JSON (%s).", parse_error->message);
      return NULL;
    }
  if (JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                           "The server sent a JSON-RPC batch, which MCP does not allow since 2025-06-18.");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                           "The server sent JSON that is not a JSON-RPC message (not an object).");
      return NULL;
    }
  obj = json_node_get_object (root);
  if (g_strcmp0 (ow_json_get_string (obj, "jsonrpc"), "2.0") != 0)
    {
      g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                           "The server sent a message without \"jsonrpc\": \"2.0\".");
      return NULL;
    }

  msg = g_new0 (OwJsonRpcMessage, 1);
  id = json_object_get_member (obj, "id");
  method = json_object_get_member (obj, "method");
  result = json_object_get_member (obj, "result");
  err = json_object_get_member (obj, "error");

  if (id != NULL && !JSON_NODE_HOLDS_NULL (id) && !valid_id (id))
    {
      g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                           "The server sent a message whose id is neither a string nor an integer.");
      return NULL;
    }

  if (method != NULL)
    {
      JsonNode *params = json_object_get_member (obj, "params");

      if (!JSON_NODE_HOLDS_VALUE (method) || json_node_get_value_type (method) != G_TYPE_STRING)
        {
          g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                               "The server sent a message whose method is not a string.");
          return NULL;
        }
      if (result != NULL || err != NULL)
        {
          g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                               "The server sent a message that is both a request and a response.");
          return NULL;
        }
      if (params != NULL && !JSON_NODE_HOLDS_OBJECT (params) && !JSON_NODE_HOLDS_ARRAY (params))
        {
          g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                               "The server sent a request whose params are neither an object nor an array.");
          return NULL;
        }
      if (id != NULL && JSON_NODE_HOLDS_NULL (id))
        {
          g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                               "The server sent a request with a null id, which MCP does not allow.");
          return NULL;
        }
      msg->kind = id != NULL ? OW_JSONRPC_REQUEST : OW_JSONRPC_NOTIFICATION;
      msg->method = g_strdup (json_node_get_string (method));
      msg->params = params != NULL ? json_node_copy (params) : NULL;
      msg->id = id != NULL ? json_node_copy (id) : NULL;
      return g_steal_pointer (&msg);
    }

  if ((result != NULL) == (err != NULL))
    {
      g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                           result != NULL
                           ? "The server sent a response with both a result and an error."
                           : "The server sent a message with neither a method, a result nor an error.");
      return NULL;
    }
  if (id == NULL || (JSON_NODE_HOLDS_NULL (id) && result != NULL))
    {
      g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                           "The server sent a response without an id.");
      return NULL;
    }
  msg->id = JSON_NODE_HOLDS_NULL (id) ? NULL : json_node_copy (id);
  if (result != NULL)
    {
      msg->kind = OW_JSONRPC_RESULT;
      msg->result = json_node_copy (result);
      return g_steal_pointer (&msg);
    }

  if (!JSON_NODE_HOLDS_OBJECT (err))
    {
      g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                           "The server sent an error that is not an object.");
      return NULL;
    }
  {
    JsonObject *eo = json_node_get_object (err);
    const char *message = ow_json_get_string (eo, "message");
    JsonNode *data = json_object_get_member (eo, "data");

    if (!ow_json_has_int (eo, "code"))
      {
        g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                             "The server sent an error without an integer code.");
        return NULL;
      }
    msg->kind = OW_JSONRPC_ERROR;
    msg->error_code = ow_json_get_int (eo, "code", 0);
    msg->error_message = g_strdup (message != NULL ? message : "(no message)");
    msg->error_data = data != NULL ? json_node_copy (data) : NULL;
  }
  return g_steal_pointer (&msg);
}

void
ow_jsonrpc_message_free (OwJsonRpcMessage *msg)
{
  if (msg == NULL)
    return;
  g_clear_pointer (&msg->id, json_node_unref);
  g_clear_pointer (&msg->params, json_node_unref);
  g_clear_pointer (&msg->result, json_node_unref);
  g_clear_pointer (&msg->error_data, json_node_unref);
  g_free (msg->method);
  g_free (msg->error_message);
  g_free (msg);
}

JsonObject *
ow_jsonrpc_message_get_params_object (OwJsonRpcMessage *msg)
{
  if (msg->params == NULL || !JSON_NODE_HOLDS_OBJECT (msg->params))
    return NULL;
  return json_node_get_object (msg->params);
}

char *
ow_jsonrpc_id_key (JsonNode *id)
{
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id))
    return NULL;
  if (json_node_get_value_type (id) == G_TYPE_INT64)
    return g_strdup_printf ("i:%" G_GINT64_FORMAT, json_node_get_int (id));
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strdup_printf ("s:%s", json_node_get_string (id));
  return NULL;
}

static JsonObject *
envelope (void)
{
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "jsonrpc", "2.0");
  return obj;
}

static char *
finish (JsonObject *obj)
{
  char *text = ow_json_object_to_string (obj);

  json_object_unref (obj);
  return text;
}

char *
ow_jsonrpc_encode_request (gint64      id,
                           const char *method,
                           JsonObject *params)
{
  JsonObject *obj = envelope ();

  json_object_set_int_member (obj, "id", id);
  json_object_set_string_member (obj, "method", method);
  if (params != NULL)
    json_object_set_object_member (obj, "params", json_object_ref (params));
  return finish (obj);
}

char *
ow_jsonrpc_encode_notification (const char *method,
                                JsonObject *params)
{
  JsonObject *obj = envelope ();

  json_object_set_string_member (obj, "method", method);
  if (params != NULL)
    json_object_set_object_member (obj, "params", json_object_ref (params));
  return finish (obj);
}

char *
ow_jsonrpc_encode_result (JsonNode *id,
                          JsonNode *result)
{
  JsonObject *obj = envelope ();

  json_object_set_member (obj, "id", id != NULL ? json_node_copy (id) : json_node_new (JSON_NODE_NULL));
  if (result != NULL)
    json_object_set_member (obj, "result", json_node_copy (result));
  else
    json_object_set_object_member (obj, "result", json_object_new ());
  return finish (obj);
}

char *
ow_jsonrpc_encode_error (JsonNode   *id,
                         gint64      code,
                         const char *message,
                         JsonNode   *data)
{
  JsonObject *obj = envelope ();
  JsonObject *err = json_object_new ();

  json_object_set_member (obj, "id", id != NULL ? json_node_copy (id) : json_node_new (JSON_NODE_NULL));
  json_object_set_int_member (err, "code", code);
  json_object_set_string_member (err, "message", message);
  if (data != NULL)
    json_object_set_member (err, "data", json_node_copy (data));
  json_object_set_object_member (obj, "error", err);
  return finish (obj);
}
