/* ow-mcp-edit.c: changing mcp.json (see ow-mcp-edit.h). */
#include "mcp/ow-mcp-edit.h"

#include <string.h>

#include "mcp/ow-mcp-config.h"
#include "ow-json.h"
#include "store/ow-paths.h"

char *
ow_mcp_edit_default_path (void)
{
  g_autoptr(OwPaths) paths = ow_paths_new_default ();

  return g_build_filename (paths->config_dir, "mcp.json", NULL);
}

gboolean
ow_mcp_edit_valid_name (const char *name)
{
  if (name == NULL || *name == '\0' || strlen (name) > 40)
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

static JsonObject *
load (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) local = NULL;
  JsonObject *obj;

  if (!g_file_get_contents (path, &text, &len, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return json_object_new ();
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  obj = ow_json_object_from_string (text, (gssize) len, &local);
  if (obj == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s is not a JSON object (%s); nothing was changed.",
                 path, local != NULL ? local->message : "unreadable");
  return obj;
}

static gboolean
save (const char *path, JsonObject *obj, GError **error)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), obj);
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *text = NULL;
  g_autofree char *dir = g_path_get_dirname (path);

  json_generator_set_root (gen, node);
  json_generator_set_pretty (gen, TRUE);
  text = json_generator_to_data (gen, NULL);
  return ow_paths_ensure_dir (dir, error) && ow_write_file_atomic (path, text, -1, 0600, error);
}

/* The entry as the engine will read it: NULL, or FALSE with its sentence. */
static gboolean
check (const char *name, JsonObject *entry, GError **error)
{
  g_autoptr(JsonObject) probe = json_object_new ();
  JsonObject *servers = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) parsed = NULL;
  const OwMcpServerConfig *c;

  json_object_set_object_member (servers, name, json_object_ref (entry));
  json_object_set_object_member (probe, "mcpServers", servers);
  node = json_node_init_object (json_node_alloc (), probe);
  text = json_to_string (node, FALSE);
  parsed = ow_mcp_config_parse (text, -1, NULL, NULL, error);
  if (parsed == NULL)
    return FALSE;
  c = parsed->len == 1 ? g_ptr_array_index (parsed, 0) : NULL;
  if (c != NULL && c->error != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s Nothing was changed.", c->error);
      return FALSE;
    }
  return TRUE;
}

static JsonObject *
servers_of (JsonObject *file, gboolean create)
{
  JsonObject *servers = ow_json_get_object (file, "mcpServers");

  if (servers == NULL && create)
    {
      servers = json_object_new ();
      json_object_set_object_member (file, "mcpServers", servers);
    }
  return servers;
}

gboolean
ow_mcp_edit_add (const char *path, const char *name, JsonObject *entry, GError **error)
{
  g_autoptr(JsonObject) file = NULL;
  JsonObject *servers;

  if (!ow_mcp_edit_valid_name (name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "A server's name is letters, digits, - and _ (at most 40).");
      return FALSE;
    }
  if (!check (name, entry, error) || (file = load (path, error)) == NULL)
    return FALSE;
  servers = servers_of (file, TRUE);
  if (json_object_has_member (servers, name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "There is already an MCP server named \"%s\".", name);
      return FALSE;
    }
  json_object_set_object_member (servers, name, json_object_ref (entry));
  return save (path, file, error);
}

gboolean
ow_mcp_edit_remove (const char *path, const char *name, GError **error)
{
  g_autoptr(JsonObject) file = load (path, error);
  JsonObject *servers;

  if (file == NULL)
    return FALSE;
  servers = servers_of (file, FALSE);
  if (servers == NULL || name == NULL || !json_object_has_member (servers, name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "There is no MCP server named \"%s\".",
                   name != NULL ? name : "");
      return FALSE;
    }
  json_object_remove_member (servers, name);
  return save (path, file, error);
}

gboolean
ow_mcp_edit_set (const char *path, const char *name, const char *member, JsonNode *value, GError **error)
{
  g_autoptr(JsonObject) file = load (path, error);
  JsonObject *servers, *entry;
  g_autoptr(JsonObject) changed = NULL;

  if (file == NULL)
    return FALSE;
  servers = servers_of (file, FALSE);
  entry = servers != NULL && name != NULL ? ow_json_get_object (servers, name) : NULL;
  if (entry == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "There is no MCP server named \"%s\".",
                   name != NULL ? name : "");
      return FALSE;
    }
  changed = ow_json_object_deep_copy (entry);
  if (value != NULL)
    json_object_set_member (changed, member, json_node_copy (value));
  else
    json_object_remove_member (changed, member);
  if (!check (name, changed, error))
    return FALSE;
  json_object_set_object_member (servers, name, g_steal_pointer (&changed));
  return save (path, file, error);
}

JsonObject *
ow_mcp_edit_get (const char *path, const char *name, GError **error)
{
  g_autoptr(JsonObject) file = load (path, error);
  JsonObject *servers, *entry;

  if (file == NULL)
    return NULL;
  servers = servers_of (file, FALSE);
  entry = servers != NULL && name != NULL ? ow_json_get_object (servers, name) : NULL;
  return entry != NULL ? ow_json_object_deep_copy (entry) : NULL;
}

gboolean
ow_mcp_edit_set_tool (const char *path, const char *name, const char *tool, const char *setting, GError **error)
{
  g_autoptr(JsonObject) entry = NULL;
  g_autoptr(JsonObject) tools = NULL;
  g_autoptr(JsonNode) node = NULL;
  OwMcpToolSetting value;
  JsonObject *old;

  if (!ow_mcp_tool_setting_from_string (setting, &value))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "“%s” is not a tool setting; use allow, ask, deny or off.", setting != NULL ? setting : "");
      return FALSE;
    }
  if (tool == NULL || tool[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "Name the tool as the server does (`openworker mcp tools NAME --json` shows server_name).");
      return FALSE;
    }
  entry = ow_mcp_edit_get (path, name, error);
  if (entry == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "There is no MCP server named \"%s\".",
                     name != NULL ? name : "");
      return FALSE;
    }
  old = ow_json_get_object (entry, "tools");
  tools = old != NULL ? ow_json_object_deep_copy (old) : json_object_new ();
  if (value == OW_MCP_TOOL_ASK && ow_json_get_bool (entry, "requires_approval", TRUE))
    json_object_remove_member (tools, tool);
  else
    json_object_set_string_member (tools, tool, setting);
  if (json_object_get_size (tools) == 0)
    return ow_mcp_edit_set (path, name, "tools", NULL, error);
  node = json_node_init_object (json_node_alloc (), tools);
  return ow_mcp_edit_set (path, name, "tools", node, error);
}
