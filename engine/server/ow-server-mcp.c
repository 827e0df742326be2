/* ow-server-mcp.c: the machine's MCP servers over the loopback API.
 *
 *   GET /v1/mcp               {servers: [{name, enabled, transport, requires_approval, status,
 *                                         last_error, tool_count, protocol_version, needs_sign_in}]}
 *   GET /v1/mcp/{name}/tools  {tools: [{name, server_name, title, description, risk, annotations}]}
 *   POST /v1/mcp/{name}/sign-in  {authorization_url, resource}: begins the sign-in of
 *                             an HTTP server that asked for one (status needs_auth); the
 *                             browser comes back to /v1/oauth/callback, and the server
 *                             connects at once, for every session (mcp/ow-mcp-auth.h)
 *   POST /v1/mcp              {name, config}: adds an mcpServers entry (409 when the name is taken)
 *   PATCH /v1/mcp/{name}      merges enabled, requires_approval, include_tools, exclude_tools,
 *                             startup_timeout_sec, tool_timeout_sec, tool_timeout_max_sec (null removes)
 *   DELETE /v1/mcp/{name}     removes the entry
 *   POST /v1/mcp/{name}/connect  stops the server and starts it again
 *   POST /v1/mcp/reload       applies mcp.json as it reads now (after a change by hand)
 *
 * Read from the servers the session host started with the app (the ones
 * every session is offered), so what a surface shows is what the model
 * gets. Entries of mcp.json that cannot be used are listed with their
 * reason and status "error". Changes go through ow-mcp-edit (checked as
 * the engine reads the file, kept atomic) and apply at once through the
 * host (ow_session_host_reload_mcp): unchanged servers keep running, and
 * every loaded session's tools follow. Like every token route, these are
 * refused to a session's own commands (ow-server-peer.c), so a model can
 * never add a server that runs a command of its choosing.
 */
#include "server/ow-server-private.h"

#include "mcp/ow-mcp-auth.h"
#include "mcp/ow-mcp-edit.h"
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

/* ---- Changes ------------------------------------------------------------- */

static char *
mcp_path (OwServer *self)
{
  return g_build_filename (ow_context_get_paths (self->ctx)->config_dir, "mcp.json", NULL);
}

static void
reply_edit_error (OwRequest *req, const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    ow_reply_error (req, SOUP_STATUS_CONFLICT, "%s", error->message);
  else if (error->domain == G_IO_ERROR
           && (error->code == G_IO_ERROR_NOT_FOUND || error->code == G_IO_ERROR_INVALID_ARGUMENT))
    ow_reply_gerror (req, error);
  else
    ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "%s", error->message);
}

/* The file changed: the host applies it. A reload that fails (the file
 * became unreadable by hand meanwhile) is said in the reply; the change is
 * saved either way. */
static void
apply_and_reply (OwServer *self, OwRequest *req, const char *name)
{
  g_autoptr(GError) error = NULL;
  JsonObject *extra = json_object_new ();

  if (name != NULL)
    json_object_set_string_member (extra, "name", name);
  if (!ow_session_host_reload_mcp (self->host, &error))
    json_object_set_string_member (extra, "reload_error", error->message);
  ow_reply_ok (req, extra);
}

static void
mcp_add (OwServer *self, OwRequest *req)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = mcp_path (self);
  JsonObject *body = ow_request_object (req);
  const char *name;
  JsonObject *config;

  if (body == NULL)
    return;
  name = ow_json_get_string (body, "name");
  config = ow_json_get_object (body, "config");
  if (name == NULL || config == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST,
                      "Give the server a \"name\" and its \"config\" (an mcpServers entry: command/args or url).");
      return;
    }
  if (!ow_mcp_edit_add (path, name, config, &error))
    {
      reply_edit_error (req, error);
      return;
    }
  apply_and_reply (self, req, name);
}

static gboolean
is_string_array (JsonNode *node)
{
  JsonArray *arr;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  arr = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *e = json_array_get_element (arr, i);

      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
        return FALSE;
    }
  return TRUE;
}

/* The members PATCH may change, and what each holds. */
typedef enum { KIND_BOOL, KIND_STRINGS, KIND_SECONDS } MemberKind;

static const struct {
  const char *member;
  MemberKind  kind;
} patchable[] = {
  { "enabled", KIND_BOOL },
  { "exclude_tools", KIND_STRINGS },
  { "include_tools", KIND_STRINGS },
  { "requires_approval", KIND_BOOL },
  { "startup_timeout_sec", KIND_SECONDS },
  { "tool_timeout_max_sec", KIND_SECONDS },
  { "tool_timeout_sec", KIND_SECONDS },
};

static gboolean
value_fits (MemberKind kind, JsonNode *node)
{
  if (JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  switch (kind)
    {
    case KIND_BOOL:
      return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN;
    case KIND_STRINGS:
      return is_string_array (node);
    case KIND_SECONDS:
      return JSON_NODE_HOLDS_VALUE (node)
             && (json_node_get_value_type (node) == G_TYPE_INT64 || json_node_get_value_type (node) == G_TYPE_DOUBLE)
             && json_node_get_double (node) > 0 && json_node_get_double (node) <= 86400;
    }
  return FALSE;
}

static void
mcp_patch (OwServer *self, OwRequest *req)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = mcp_path (self);
  g_autoptr(JsonObject) entry = NULL;
  JsonObject *body = ow_request_object (req);
  const char *name = req->params[0];
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;

  if (body == NULL)
    return;
  entry = ow_mcp_edit_get (path, name, &error);
  if (entry == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no MCP server named \"%s\".", name);
      return;
    }
  /* Every member is checked before any is saved, so a bad one changes nothing. */
  json_object_iter_init (&iter, body);
  while (json_object_iter_next (&iter, &member, &value))
    {
      gboolean known = FALSE;

      for (guint i = 0; i < G_N_ELEMENTS (patchable) && !known; i++)
        if (g_str_equal (patchable[i].member, member))
          {
            known = TRUE;
            if (!value_fits (patchable[i].kind, value))
              {
                ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "\"%s\" must be %s (or null to remove it).", member,
                                patchable[i].kind == KIND_BOOL      ? "true or false"
                                : patchable[i].kind == KIND_STRINGS ? "a list of tool names"
                                                                    : "a number of seconds (at most 86400)");
                return;
              }
          }
      if (!known)
        {
          ow_reply_error (req, SOUP_STATUS_BAD_REQUEST,
                          "\"%s\" cannot be changed here: only enabled, requires_approval, include_tools, "
                          "exclude_tools and the timeouts can. Remove the server and add it again to change "
                          "how it starts.", member);
          return;
        }
    }
  json_object_iter_init (&iter, body);
  while (json_object_iter_next (&iter, &member, &value))
    if (!ow_mcp_edit_set (path, name, member, JSON_NODE_HOLDS_NULL (value) ? NULL : value, &error))
      {
        reply_edit_error (req, error);
        return;
      }
  apply_and_reply (self, req, name);
}

static void
mcp_delete (OwServer *self, OwRequest *req)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = mcp_path (self);

  if (!ow_mcp_edit_remove (path, req->params[0], &error))
    {
      reply_edit_error (req, error);
      return;
    }
  apply_and_reply (self, req, req->params[0]);
}

static void
mcp_connect (OwServer *self, OwRequest *req)
{
  g_autoptr(GError) error = NULL;

  /* Pick up a change made by hand first, so "connect" starts what the file says. */
  ow_session_host_reload_mcp (self->host, NULL);
  if (!ow_session_host_restart_mcp (self->host, req->params[0], &error))
    {
      ow_reply_gerror (req, error);
      return;
    }
  ow_reply_ok (req, NULL);
}

static void
mcp_reload (OwServer *self, OwRequest *req)
{
  g_autoptr(GError) error = NULL;

  if (!ow_session_host_reload_mcp (self->host, &error))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "%s", error->message);
      return;
    }
  ow_reply_ok (req, NULL);
}

static const OwRoute routes[] = {
  { "GET", "/v1/mcp", mcp_list, 0 },
  { "POST", "/v1/mcp", mcp_add, 0 },
  { "POST", "/v1/mcp/reload", mcp_reload, 0 },
  { "PATCH", "/v1/mcp/*", mcp_patch, 0 },
  { "DELETE", "/v1/mcp/*", mcp_delete, 0 },
  { "POST", "/v1/mcp/*/connect", mcp_connect, 0 },
  { "GET", "/v1/mcp/*/tools", mcp_tools, 0 },
  { "POST", "/v1/mcp/*/sign-in", mcp_sign_in, 0 },
};

const OwRoute *
ow_server_mcp_routes (guint *n)
{
  *n = G_N_ELEMENTS (routes);
  return routes;
}
