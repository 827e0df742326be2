/* ow-mcp-config.c: mcp.json, server environments and tool names (see
 * ow-mcp-config.h). */
#define G_LOG_DOMAIN "ow-mcp"

#include "mcp/ow-mcp-config.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"

static const char *const setting_names[] = { "ask", "allow", "deny", "off" };

const char *
ow_mcp_tool_setting_to_string (OwMcpToolSetting setting)
{
  return (guint) setting < G_N_ELEMENTS (setting_names) ? setting_names[setting] : "ask";
}

gboolean
ow_mcp_tool_setting_from_string (const char       *text,
                                 OwMcpToolSetting *out)
{
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (setting_names); i++)
    if (g_str_equal (text, setting_names[i]))
      {
        *out = (OwMcpToolSetting) i;
        return TRUE;
      }
  return FALSE;
}

static GHashTable *
tools_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/* GPOINTER_TO_INT (value) - 1, so that 0 can mean "not set". */
static gboolean
tools_lookup (GHashTable       *tools,
              const char       *tool,
              OwMcpToolSetting *out)
{
  gpointer v = g_hash_table_lookup (tools, tool);

  if (v == NULL)
    return FALSE;
  *out = (OwMcpToolSetting) (GPOINTER_TO_INT (v) - 1);
  return TRUE;
}

static void
tools_set (GHashTable       *tools,
           const char       *tool,
           OwMcpToolSetting  setting)
{
  g_hash_table_insert (tools, g_strdup (tool), GINT_TO_POINTER ((int) setting + 1));
}

OwMcpServerConfig *
ow_mcp_server_config_new (const char *name)
{
  OwMcpServerConfig *c = g_new0 (OwMcpServerConfig, 1);

  c->name = g_strdup (name);
  c->args = g_new0 (char *, 1);
  c->env = g_new0 (char *, 1);
  c->headers = g_new0 (char *, 1);
  c->exclude_tools = g_new0 (char *, 1);
  c->roots = g_new0 (char *, 1);
  c->tools = tools_new ();
  c->enabled = TRUE;
  c->requires_approval = TRUE;
  c->start_timeout_ms = 10 * 1000;
  c->call_timeout_ms = 60 * 1000;
  c->call_max_ms = 600 * 1000;
  c->max_message_bytes = 16u * 1024 * 1024;
  c->max_restarts = 5;
  return c;
}

OwMcpServerConfig *
ow_mcp_server_config_copy (const OwMcpServerConfig *config)
{
  OwMcpServerConfig *c = g_new0 (OwMcpServerConfig, 1);

  *c = *config;
  c->name = g_strdup (config->name);
  c->command = g_strdup (config->command);
  c->args = g_strdupv (config->args);
  c->env = g_strdupv (config->env);
  c->cwd = g_strdup (config->cwd);
  c->url = g_strdup (config->url);
  c->headers = g_strdupv (config->headers);
  c->include_tools = g_strdupv (config->include_tools);
  c->exclude_tools = g_strdupv (config->exclude_tools);
  c->roots = g_strdupv (config->roots);
  c->auth = g_strdup (config->auth);
  c->client_id = g_strdup (config->client_id);
  c->client_secret = g_strdup (config->client_secret);
  c->error = g_strdup (config->error);
  c->tools = tools_new ();
  {
    GHashTableIter iter;
    gpointer k, v;

    g_hash_table_iter_init (&iter, config->tools);
    while (g_hash_table_iter_next (&iter, &k, &v))
      g_hash_table_insert (c->tools, g_strdup (k), v);
  }
  return c;
}

static gboolean
strv_equal0 (char **a, char **b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strv_equal ((const char *const *) a, (const char *const *) b);
}

gboolean
ow_mcp_server_config_equal (const OwMcpServerConfig *a, const OwMcpServerConfig *b)
{
  return g_strcmp0 (a->name, b->name) == 0 && a->transport == b->transport
         && g_strcmp0 (a->command, b->command) == 0 && strv_equal0 (a->args, b->args)
         && strv_equal0 (a->env, b->env) && g_strcmp0 (a->cwd, b->cwd) == 0
         && g_strcmp0 (a->url, b->url) == 0 && strv_equal0 (a->headers, b->headers)
         && strv_equal0 (a->include_tools, b->include_tools) && strv_equal0 (a->exclude_tools, b->exclude_tools)
         && strv_equal0 (a->roots, b->roots) && a->enabled == b->enabled
         && a->requires_approval == b->requires_approval && g_strcmp0 (a->auth, b->auth) == 0
         && g_strcmp0 (a->client_id, b->client_id) == 0 && a->start_timeout_ms == b->start_timeout_ms
         && a->call_timeout_ms == b->call_timeout_ms && a->call_max_ms == b->call_max_ms
         && a->max_message_bytes == b->max_message_bytes && a->max_restarts == b->max_restarts
         && g_strcmp0 (a->error, b->error) == 0;
}

void
ow_mcp_server_config_free (OwMcpServerConfig *c)
{
  if (c == NULL)
    return;
  g_free (c->name);
  g_free (c->command);
  g_strfreev (c->args);
  g_strfreev (c->env);
  g_free (c->cwd);
  g_free (c->url);
  g_strfreev (c->headers);
  g_strfreev (c->include_tools);
  g_strfreev (c->exclude_tools);
  g_strfreev (c->roots);
  g_free (c->auth);
  g_free (c->client_id);
  g_clear_pointer (&c->tools, g_hash_table_unref);
  if (c->client_secret != NULL)
    memset (c->client_secret, 0, strlen (c->client_secret));
  g_free (c->client_secret);
  g_free (c->error);
  g_free (c);
}

static char *
resolve_env (const char *name,
             gpointer    user_data)
{
  return g_strdup (g_getenv (name));
}

typedef struct
{
  OwMcpResolveFunc resolve;
  gpointer         data;
  char            *missing;  /* the first ${NAME} that was not set */
} Resolver;

/* Replaces every ${NAME} (NAME of [A-Za-z0-9_]); anything else is kept as
 * written, a lone "$" included. */
static char *
expand (Resolver   *r,
        const char *text)
{
  GString *out = g_string_new (NULL);
  const char *p = text;

  while (*p != '\0')
    {
      const char *close;

      if (p[0] == '$' && p[1] == '{' && (close = strchr (p + 2, '}')) != NULL)
        {
          g_autofree char *name = g_strndup (p + 2, (gsize) (close - p - 2));
          gboolean ok = name[0] != '\0';

          for (const char *q = name; *q != '\0' && ok; q++)
            ok = g_ascii_isalnum (*q) || *q == '_';
          if (ok)
            {
              g_autofree char *value = r->resolve (name, r->data);

              if (value == NULL && r->missing == NULL)
                r->missing = g_strdup (name);
              g_string_append (out, value != NULL ? value : "");
              p = close + 1;
              continue;
            }
        }
      g_string_append_c (out, *p++);
    }
  return g_string_free (out, FALSE);
}

/* A list of strings; NULL when @name is absent; an error when it is
 * present but not an array of strings. */
static gboolean
read_strv (JsonObject  *entry,
           const char  *name,
           Resolver    *r,
           char      ***out,
           GString     *problems)
{
  JsonNode *node = json_object_get_member (entry, name);
  JsonArray *array;
  GPtrArray *list;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_string_append_printf (problems, "“%s” must be a list of strings. ", name);
      return FALSE;
    }
  array = json_node_get_array (node);
  list = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *e = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
        {
          g_string_append_printf (problems, "“%s” must be a list of strings. ", name);
          g_ptr_array_unref (list);
          return FALSE;
        }
      g_ptr_array_add (list, expand (r, json_node_get_string (e)));
    }
  g_ptr_array_add (list, NULL);
  g_ptr_array_set_free_func (list, NULL);
  g_strfreev (*out);
  *out = (char **) g_ptr_array_free (list, FALSE);
  return TRUE;
}

/* An object of strings, as "NAME<sep>value" lines. */
static void
read_map (JsonObject *entry,
          const char *name,
          const char *sep,
          Resolver   *r,
          char     ***out,
          GString    *problems)
{
  JsonObject *map;
  GPtrArray *list;
  g_autoptr(GList) members = NULL;

  if (json_object_get_member (entry, name) == NULL)
    return;
  map = ow_json_get_object (entry, name);
  if (map == NULL)
    {
      g_string_append_printf (problems, "“%s” must be an object of strings. ", name);
      return;
    }
  list = g_ptr_array_new ();
  members = json_object_get_members (map);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *value = ow_json_get_string (map, l->data);
      g_autofree char *expanded = NULL;

      if (value == NULL)
        {
          g_string_append_printf (problems, "“%s.%s” must be a string. ", name, (const char *) l->data);
          continue;
        }
      if (((const char *) l->data)[0] == '\0' || strpbrk (l->data, "=:\r\n") != NULL)
        {
          g_string_append_printf (problems, "“%s” has a name that cannot be used (empty, or with = : or a line break). ",
                                  name);
          continue;
        }
      expanded = expand (r, value);
      if (strpbrk (expanded, "\r\n") != NULL && g_str_equal (sep, ": "))
        {
          g_string_append_printf (problems, "“%s.%s” holds a line break, which a header cannot. ", name,
                                  (const char *) l->data);
          continue;
        }
      g_ptr_array_add (list, g_strconcat (l->data, sep, expanded, NULL));
    }
  g_ptr_array_add (list, NULL);
  g_strfreev (*out);
  *out = (char **) g_ptr_array_free (list, FALSE);
}

static guint
read_seconds (JsonObject *entry,
              const char *name,
              guint       fallback_ms,
              GString    *problems)
{
  JsonNode *node = json_object_get_member (entry, name);
  double s;

  if (node == NULL)
    return fallback_ms;
  if (!JSON_NODE_HOLDS_VALUE (node)
      || (json_node_get_value_type (node) != G_TYPE_INT64 && json_node_get_value_type (node) != G_TYPE_DOUBLE))
    {
      g_string_append_printf (problems, "“%s” must be a number of seconds. ", name);
      return fallback_ms;
    }
  s = json_node_get_double (node);
  if (!(s > 0 && s <= 24 * 3600))
    {
      g_string_append_printf (problems, "“%s” must be between 0 and 86400 seconds. ", name);
      return fallback_ms;
    }
  return (guint) (s * 1000);
}

/* "tools": {"<tool>": "allow"|"ask"|"deny"|"off"}. A workspace's file
 * (@workspace) may only narrow. */
static void
read_tools (JsonObject        *entry,
            gboolean           workspace,
            OwMcpServerConfig *c,
            GString           *problems)
{
  g_autoptr(GList) members = NULL;
  JsonObject *map;

  if (json_object_get_member (entry, "tools") == NULL)
    return;
  map = ow_json_get_object (entry, "tools");
  if (map == NULL)
    {
      g_string_append (problems, "“tools” must be an object of tool names to \"allow\", \"ask\", \"deny\" or \"off\". ");
      return;
    }
  members = json_object_get_members (map);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *value = ow_json_get_string (map, l->data);
      OwMcpToolSetting setting;

      if (!ow_mcp_tool_setting_from_string (value, &setting))
        {
          g_string_append_printf (problems, "“tools.%s” must be \"allow\", \"ask\", \"deny\" or \"off\". ",
                                  (const char *) l->data);
          continue;
        }
      if (workspace && setting == OW_MCP_TOOL_ALLOW)
        {
          g_string_append_printf (problems, "“tools.%s” is \"allow\", but a workspace's mcp.json may only narrow "
                                  "(ask, deny, off); allow it in the machine's mcp.json "
                                  "(`openworker mcp tool %s %s allow`). ",
                                  (const char *) l->data, c->name, (const char *) l->data);
          continue;
        }
      tools_set (c->tools, l->data, setting);
    }
}

static OwMcpServerConfig *
parse_entry (const char *name,
             JsonNode   *node,
             Resolver   *r,
             gboolean    workspace)
{
  g_autoptr(OwMcpServerConfig) c = ow_mcp_server_config_new (name);
  g_autoptr(GString) problems = g_string_new (NULL);
  JsonObject *entry;
  const char *type;
  const char *s;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      c->error = g_strdup_printf ("The MCP server “%s” in mcp.json is not an object; give it a command or a url.", name);
      c->enabled = FALSE;
      return g_steal_pointer (&c);
    }
  entry = json_node_get_object (node);
  g_clear_pointer (&r->missing, g_free);

  if ((s = ow_json_get_string (entry, "command")) != NULL)
    c->command = expand (r, s);
  if ((s = ow_json_get_string (entry, "url")) != NULL)
    {
      c->url = expand (r, s);
      if (g_ascii_strncasecmp (c->url, "http://", 7) != 0 && g_ascii_strncasecmp (c->url, "https://", 8) != 0)
        g_string_append (problems, "“url” must be an http:// or https:// address. ");
    }
  if ((s = ow_json_get_string (entry, "cwd")) != NULL)
    c->cwd = expand (r, s);
  if ((s = ow_json_get_string (entry, "client_id")) != NULL)
    c->client_id = expand (r, s);
  if ((s = ow_json_get_string (entry, "client_secret")) != NULL)
    c->client_secret = expand (r, s);
  if ((s = ow_json_get_string (entry, "auth")) != NULL)
    c->auth = g_strdup (s);
  read_strv (entry, "args", r, &c->args, problems);
  read_map (entry, "env", "=", r, &c->env, problems);
  read_map (entry, "headers", ": ", r, &c->headers, problems);
  read_strv (entry, json_object_has_member (entry, "include_tools") ? "include_tools" : "include", r,
             &c->include_tools, problems);
  read_strv (entry, json_object_has_member (entry, "exclude_tools") ? "exclude_tools" : "exclude", r,
             &c->exclude_tools, problems);
  c->enabled = ow_json_get_bool (entry, "enabled", TRUE);
  c->requires_approval = ow_json_get_bool (entry, "requires_approval", TRUE);
  if (workspace && !c->requires_approval)
    {
      g_string_append (problems, "“requires_approval” is false, but a workspace's mcp.json may only narrow; "
                       "set it in the machine's mcp.json. ");
      c->requires_approval = TRUE;
    }
  read_tools (entry, workspace, c, problems);
  c->start_timeout_ms = read_seconds (entry, "startup_timeout_sec", c->start_timeout_ms, problems);
  c->call_timeout_ms = read_seconds (entry, "tool_timeout_sec", c->call_timeout_ms, problems);
  c->call_max_ms = read_seconds (entry, "tool_timeout_max_sec", MAX (c->call_max_ms, c->call_timeout_ms), problems);
  if (ow_json_has_int (entry, "max_message_bytes"))
    {
      gint64 m = ow_json_get_int (entry, "max_message_bytes", 0);

      if (m >= 1024 && m <= G_GINT64_CONSTANT (1) << 30)
        c->max_message_bytes = (gsize) m;
      else
        g_string_append (problems, "“max_message_bytes” must be between 1 KiB and 1 GiB. ");
    }

  type = ow_json_get_string (entry, "type");
  if (type == NULL)
    c->transport = c->url != NULL && c->command == NULL ? OW_MCP_TRANSPORT_HTTP : OW_MCP_TRANSPORT_STDIO;
  else if (g_str_equal (type, "stdio"))
    c->transport = OW_MCP_TRANSPORT_STDIO;
  else if (g_str_equal (type, "http") || g_str_equal (type, "https") || g_str_equal (type, "sse")
           || g_str_equal (type, "streamable-http") || g_str_equal (type, "streamable_http"))
    c->transport = OW_MCP_TRANSPORT_HTTP;
  else
    g_string_append_printf (problems, "“type” “%s” is not stdio or http. ", type);

  if (c->transport == OW_MCP_TRANSPORT_STDIO && (c->command == NULL || c->command[0] == '\0'))
    g_string_append (problems, "It needs a “command” (or a “url” for an HTTP server). ");
  if (c->transport == OW_MCP_TRANSPORT_HTTP && (c->url == NULL || c->url[0] == '\0'))
    g_string_append (problems, "It needs a “url”. ");
  if (r->missing != NULL)
    g_string_append_printf (problems, "It uses ${%s}, which is not set; set it or add it to the secret store. ",
                            r->missing);

  if (problems->len > 0)
    {
      g_strchomp (problems->str);
      c->error = g_strdup_printf ("The MCP server “%s” in mcp.json cannot be used: %s", name, problems->str);
    }
  return g_steal_pointer (&c);
}

static GPtrArray *
parse_text (const char       *text,
            gssize            len,
            OwMcpResolveFunc  resolve,
            gpointer          resolve_data,
            gboolean          workspace,
            GError          **error)
{
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(JsonObject) root = NULL;
  g_autoptr(GPtrArray) servers = NULL;
  g_autoptr(GList) names = NULL;
  Resolver r = { resolve != NULL ? resolve : resolve_env, resolve_data, NULL };
  JsonObject *map;

  root = ow_json_object_from_string (text, len, &parse_error);
  if (root == NULL)
    {
      g_set_error (error, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG,
                   "mcp.json is not a JSON object (%s); fix the file or remove it.", parse_error->message);
      return NULL;
    }
  map = ow_json_get_object (root, "mcpServers");
  if (map == NULL)
    {
      g_set_error_literal (error, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG,
                           "mcp.json has no “mcpServers” object; write {\"mcpServers\": {…}}.");
      return NULL;
    }
  servers = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_mcp_server_config_free);
  names = json_object_get_members (map);
  for (GList *l = names; l != NULL; l = l->next)
    g_ptr_array_add (servers, parse_entry (l->data, json_object_get_member (map, l->data), &r, workspace));
  g_free (r.missing);
  return g_steal_pointer (&servers);
}

GPtrArray *
ow_mcp_config_parse (const char       *text,
                     gssize            len,
                     OwMcpResolveFunc  resolve,
                     gpointer          resolve_data,
                     GError          **error)
{
  return parse_text (text, len, resolve, resolve_data, FALSE, error);
}

static GPtrArray *
load_file (const char       *path,
           OwMcpResolveFunc  resolve,
           gpointer          resolve_data,
           gboolean          workspace,
           GError          **error)
{
  g_autoptr(GError) read_error = NULL;
  g_autoptr(GError) parse_error = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;
  GPtrArray *servers;

  if (!g_file_get_contents (path, &text, &len, &read_error))
    {
      if (g_error_matches (read_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_ptr_array_new_with_free_func ((GDestroyNotify) ow_mcp_server_config_free);
      g_set_error (error, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG, "%s cannot be read: %s", path, read_error->message);
      return NULL;
    }
  servers = parse_text (text, (gssize) len, resolve, resolve_data, workspace, &parse_error);
  if (servers == NULL)
    g_set_error (error, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG, "%s: %s", path, parse_error->message);
  return servers;
}

/* off > deny > ask > allow. */
static int
strictness (OwMcpToolSetting setting)
{
  switch (setting)
    {
    case OW_MCP_TOOL_ALLOW: return 0;
    case OW_MCP_TOOL_ASK: return 1;
    case OW_MCP_TOOL_DENY: return 2;
    case OW_MCP_TOOL_OFF:
    default: return 3;
    }
}

GPtrArray *
ow_mcp_config_load (const char       *global_path,
                    const char       *workspace_path,
                    OwMcpResolveFunc  resolve,
                    gpointer          resolve_data,
                    GError          **error)
{
  g_autoptr(GPtrArray) servers = NULL;
  g_autoptr(GPtrArray) local = NULL;

  servers = global_path != NULL ? load_file (global_path, resolve, resolve_data, FALSE, error)
                                : g_ptr_array_new_with_free_func ((GDestroyNotify) ow_mcp_server_config_free);
  if (servers == NULL)
    return NULL;
  if (workspace_path == NULL)
    return g_steal_pointer (&servers);
  local = load_file (workspace_path, resolve, resolve_data, TRUE, error);
  if (local == NULL)
    return NULL;
  for (guint i = 0; i < local->len; i++)
    {
      OwMcpServerConfig *c = local->pdata[i];
      OwMcpServerConfig *global = NULL;

      for (guint j = 0; j < servers->len && global == NULL; j++)
        if (g_str_equal (((OwMcpServerConfig *) servers->pdata[j])->name, c->name))
          global = servers->pdata[j];
      if (global == NULL)
        {
          g_ptr_array_add (servers, ow_mcp_server_config_copy (c));
          continue;
        }
      /* The machine's entry holds; the workspace may only make a tool
       * stricter (its "allow"s never got into c->tools). */
      {
        GHashTableIter iter;
        gpointer k, v;

        g_hash_table_iter_init (&iter, c->tools);
        while (g_hash_table_iter_next (&iter, &k, &v))
          {
            OwMcpToolSetting narrow = (OwMcpToolSetting) (GPOINTER_TO_INT (v) - 1);

            if (strictness (narrow) > strictness (ow_mcp_server_config_tool_setting (global, k)))
              tools_set (global->tools, k, narrow);
          }
      }
    }
  return g_steal_pointer (&servers);
}

OwMcpToolSetting
ow_mcp_server_config_tool_setting (const OwMcpServerConfig *config,
                                   const char              *tool)
{
  OwMcpToolSetting setting;

  if (config->include_tools != NULL && !g_strv_contains ((const char *const *) config->include_tools, tool))
    return OW_MCP_TOOL_OFF;
  if (g_strv_contains ((const char *const *) config->exclude_tools, tool))
    return OW_MCP_TOOL_OFF;
  if (tools_lookup (config->tools, tool, &setting))
    return setting;
  return config->requires_approval ? OW_MCP_TOOL_ASK : OW_MCP_TOOL_ALLOW;
}

gboolean
ow_mcp_server_config_allows_tool (const OwMcpServerConfig *config,
                                  const char              *tool)
{
  OwMcpToolSetting setting = ow_mcp_server_config_tool_setting (config, tool);

  return setting == OW_MCP_TOOL_ASK || setting == OW_MCP_TOOL_ALLOW;
}

char *
ow_mcp_tool_full_name (const char *server,
                       const char *tool,
                       GHashTable *taken)
{
  g_autofree char *raw = g_strconcat ("mcp__", server, "__", tool, NULL);
  GString *name = g_string_new (NULL);

  for (const char *p = raw; *p != '\0' && name->len < OW_MCP_TOOL_NAME_MAX; p++)
    g_string_append_c (name, g_ascii_isalnum (*p) || *p == '_' || *p == '-' ? *p : '_');

  if (taken != NULL && g_hash_table_contains (taken, name->str))
    {
      g_autofree char *base = g_strdup (name->str);

      for (guint n = 2;; n++)
        {
          char suffix[16];
          gsize keep;

          g_snprintf (suffix, sizeof suffix, "_%u", n);
          keep = MIN (strlen (base), OW_MCP_TOOL_NAME_MAX - strlen (suffix));
          g_string_truncate (name, 0);
          g_string_append_len (name, base, (gssize) keep);
          g_string_append (name, suffix);
          if (!g_hash_table_contains (taken, name->str))
            break;
        }
    }
  if (taken != NULL)
    g_hash_table_add (taken, g_strdup (name->str));
  return g_string_free (name, FALSE);
}

static const char *const base_names[] = {
  "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ", "TMPDIR", NULL,
};

char **
ow_mcp_server_config_build_env (const OwMcpServerConfig *config,
                                const char              *path)
{
  g_auto(GStrv) own = g_get_environ ();
  char **envp = g_new0 (char *, 1);

  for (char **e = own; *e != NULL; e++)
    {
      g_autofree char *name = g_strndup (*e, strcspn (*e, "="));

      if (g_strv_contains (base_names, name) || g_str_has_prefix (name, "LC_"))
        envp = g_environ_setenv (envp, name, *e + strlen (name) + (strchr (*e, '=') != NULL ? 1 : 0), TRUE);
    }
  if (path != NULL)
    envp = g_environ_setenv (envp, "PATH", path, TRUE);
  for (char **e = config->env; *e != NULL; e++)
    {
      const char *eq = strchr (*e, '=');
      g_autofree char *name = g_strndup (*e, eq != NULL ? (gsize) (eq - *e) : strlen (*e));

      if (name[0] != '\0')
        envp = g_environ_setenv (envp, name, eq != NULL ? eq + 1 : "", TRUE);
    }
  return envp;
}
