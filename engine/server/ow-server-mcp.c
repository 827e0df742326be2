/* ow-server-mcp.c: the machine's MCP servers over the loopback API.
 *
 *   GET /v1/mcp               {servers: [{name, enabled, transport, requires_approval, status,
 *                                         last_error, tool_count, protocol_version, needs_sign_in}]}
 *   GET /v1/mcp/{name}/tools  {tools: [{name, server_name, title, description, risk, annotations}]}
 *   POST /v1/mcp/{name}/sign-in  {authorization_url, resource}: begins the sign-in of
 *                             an HTTP server that asked for one (status needs_auth); the
 *                             browser comes back to /v1/oauth/callback, and the server
 *                             connects at once, for every session (mcp/ow-mcp-auth.h)
 *
 * Read from the servers the session host started with the app (the ones
 * every session is offered), so what a surface shows is what the model
 * gets. Entries of mcp.json that cannot be used are listed with their
 * reason and status "error". Adding and removing servers is the CLI's
 * `openworker mcp add|remove` (a person's act) and the desktop's Settings.
 */
#include "server/ow-server-private.h"

#include "mcp/ow-mcp-auth.h"
#include "mcp/ow-mcp-provider.h"
#include "ow-json.h"

static const char *
status_name (OwMcpStatus status)
{
  switch (status)
    {
    case OW_MCP_STATUS_READY: return "connected";
    case OW_MCP_STATUS_STARTING: return "connecting";
    case OW_MCP_STATUS_RESTARTING: return "restarting";
    case OW_MCP_STATUS_FAILED: return "error";
    case OW_MCP_STATUS_AUTH_REQUIRED: return "needs_auth";
    case OW_MCP_STATUS_STOPPED:
    default: return "stopped";
    }
}

static OwMcpProvider *
find_provider (OwServer *self, const char *name)
{
  GPtrArray *providers = ow_session_host_get_mcp_providers (self->host);

  for (guint i = 0; providers != NULL && i < providers->len; i++)
    {
      OwMcpProvider *p = g_ptr_array_index (providers, i);

      if (g_str_equal (ow_mcp_client_get_name (ow_mcp_provider_get_client (p)), name))
        return p;
    }
  return NULL;
}

static void
mcp_list (OwServer *self, OwRequest *req)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) configs = NULL;
  JsonArray *arr = json_array_new ();
  JsonObject *out = json_object_new ();

  if (!ow_context_is_isolated (self->ctx))
    configs = ow_mcp_configs_for_session (ow_context_get_paths (self->ctx), NULL, NULL, NULL, &error);
  for (guint i = 0; configs != NULL && i < configs->len; i++)
    {
      const OwMcpServerConfig *c = g_ptr_array_index (configs, i);
      OwMcpProvider *p = find_provider (self, c->name);
      OwMcpClient *client = p != NULL ? ow_mcp_provider_get_client (p) : NULL;
      JsonObject *o = json_object_new ();
      const char *last_error = client != NULL ? ow_mcp_client_get_last_error (client) : c->error;

      json_object_set_string_member (o, "name", c->name);
      json_object_set_boolean_member (o, "enabled", c->enabled);
      json_object_set_string_member (o, "transport", c->transport == OW_MCP_TRANSPORT_HTTP ? "http" : "stdio");
      json_object_set_boolean_member (o, "requires_approval", c->requires_approval);
      json_object_set_string_member (o, "status", c->error != NULL ? "error"
                                                  : !c->enabled ? "disabled"
                                                  : client != NULL ? status_name (ow_mcp_client_get_status (client))
                                                  : "configured");
      if (last_error != NULL)
        json_object_set_string_member (o, "last_error", last_error);
      else
        json_object_set_null_member (o, "last_error");
      json_object_set_int_member (o, "tool_count", p != NULL ? g_list_model_get_n_items (G_LIST_MODEL (p)) : 0);
      if (client != NULL && ow_mcp_client_get_protocol_version (client) != NULL)
        json_object_set_string_member (o, "protocol_version", ow_mcp_client_get_protocol_version (client));
      json_object_set_boolean_member (o, "needs_sign_in",
                                      client != NULL && ow_mcp_auth_get (client) != NULL
                                      && ow_mcp_auth_get_needs_sign_in (ow_mcp_auth_get (client)));
      json_array_add_object_element (arr, o);
    }
  json_object_set_array_member (out, "servers", arr);
  if (configs == NULL && error != NULL)
    json_object_set_string_member (out, "error", error->message);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

static void
mcp_tools (OwServer *self, OwRequest *req)
{
  OwMcpProvider *p = find_provider (self, req->params[0]);
  JsonArray *arr;
  JsonObject *out;

  if (p == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no running MCP server named \"%s\".", req->params[0]);
      return;
    }
  arr = json_array_new ();
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (p)); i++)
    {
      g_autoptr(OwTool) tool = g_list_model_get_item (G_LIST_MODEL (p), i);
      JsonObject *o = json_object_new ();
      JsonObject *annotations = ow_tool_get_annotations (tool);

      json_object_set_string_member (o, "name", ow_tool_get_name (tool));
      json_object_set_string_member (o, "server_name", ow_mcp_provider_server_tool_name (p, ow_tool_get_name (tool)));
      if (ow_tool_get_title (tool) != NULL)
        json_object_set_string_member (o, "title", ow_tool_get_title (tool));
      if (ow_tool_get_description (tool) != NULL)
        json_object_set_string_member (o, "description", ow_tool_get_description (tool));
      json_object_set_string_member (o, "risk", ow_risk_to_string (ow_tool_get_risk (tool)));
      if (annotations != NULL)
        json_object_set_object_member (o, "annotations", ow_json_object_deep_copy (annotations));
      json_array_add_object_element (arr, o);
    }
  out = json_object_new ();
  json_object_set_array_member (out, "tools", arr);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

static void
on_sign_in_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OwRequest *req = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = ow_mcp_auth_sign_in_finish (OW_MCP_AUTH (source), result, &error);

  if (ow_request_alive (req))
    {
      if (url != NULL)
        {
          JsonObject *out = json_object_new ();

          json_object_set_string_member (out, "authorization_url", url);
          json_object_set_string_member (out, "resource", ow_mcp_auth_get_resource (OW_MCP_AUTH (source)));
          ow_reply_object (req, SOUP_STATUS_OK, out);
        }
      else
        ow_reply_error (req, SOUP_STATUS_BAD_GATEWAY, "%s", error->message);
    }
  ow_request_done (req);
}

static void
mcp_sign_in (OwServer *self, OwRequest *req)
{
  OwMcpProvider *p = find_provider (self, req->params[0]);
  OwMcpAuth *auth = p != NULL ? ow_mcp_auth_get (ow_mcp_provider_get_client (p)) : NULL;

  if (p == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no running MCP server named \"%s\".", req->params[0]);
      return;
    }
  if (auth == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "The MCP server \"%s\" is not an HTTP server OAuth can sign in to.",
                      req->params[0]);
      return;
    }
  if (!ow_mcp_auth_get_needs_sign_in (auth))
    {
      ow_reply_error (req, SOUP_STATUS_CONFLICT, "The MCP server \"%s\" is not waiting for a sign-in.", req->params[0]);
      return;
    }
  ow_request_pause (req);
  ow_mcp_auth_sign_in_async (auth, self->cancellable, on_sign_in_cb, req);
}

static const OwRoute routes[] = {
  { "GET", "/v1/mcp", mcp_list, 0 },
  { "GET", "/v1/mcp/*/tools", mcp_tools, 0 },
  { "POST", "/v1/mcp/*/sign-in", mcp_sign_in, 0 },
};

const OwRoute *
ow_server_mcp_routes (guint *n)
{
  *n = G_N_ELEMENTS (routes);
  return routes;
}
