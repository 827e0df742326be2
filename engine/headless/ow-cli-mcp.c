/* ow-cli-mcp.c: `openworker mcp list|add|remove|tools`.
 *
 * The machine's MCP servers live in mcp.json in the config folder, in the
 * original's shape (paste-compatible with Claude Desktop and Cursor). `add`
 * and `remove` edit that file and keep every other entry as it was; `list`
 * reads it as the engine does (an entry that cannot be used says why);
 * `tools` starts one server and lists what the model would be offered.
 * Adding a server gives every later session a new program to run, so `add`
 * and `remove` are a person's acts (ow-cli-main.c refuses them to a
 * session).
 */
#include "headless/ow-cli-mcp.h"

#include <stdio.h>
#include <string.h>

#include "mcp/ow-mcp-config.h"
#include "mcp/ow-mcp-edit.h"
#include "mcp/ow-mcp-provider.h"
#include "ow-json.h"
#include "store/ow-paths.h"

static int G_GNUC_PRINTF (2, 3)
fail (int code, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "openworker: %s\n", message);
  return code;
}

static void
print_usage (FILE *out)
{
  fputs ("Usage: openworker mcp COMMAND\n"
         "\n"
         "  list [--json]                          The machine's MCP servers (mcp.json in the config folder)\n"
         "  add NAME [--env K=V]… -- COMMAND [ARG…] Add a server started as a command (stdio)\n"
         "  add NAME --url URL [--header 'K: V']…  Add a server reached over streamable HTTP\n"
         "  remove NAME                            Remove a server\n"
         "  tools NAME [--json]                    Start a server and list the tools it offers\n"
         "\n"
         "Every MCP tool asks before it runs (it acts outside this computer's files); a server\n"
         "gets only the environment its entry names, never OpenWorker's keys.\n", out);
}

static char *
mcp_json_path (void)
{
  return ow_mcp_edit_default_path ();
}

/* ---- list ------------------------------------------------------------------ */

static int
mcp_list (gboolean json)
{
  g_autofree char *path = mcp_json_path ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) configs = ow_mcp_config_load (path, NULL, NULL, NULL, &error);

  if (configs == NULL)
    return fail (1, "%s", error->message);
  if (json)
    {
      g_autoptr(JsonArray) arr = json_array_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *text = NULL;

      for (guint i = 0; i < configs->len; i++)
        {
          const OwMcpServerConfig *c = g_ptr_array_index (configs, i);
          JsonObject *o = json_object_new ();

          json_object_set_string_member (o, "name", c->name);
          json_object_set_string_member (o, "transport", c->transport == OW_MCP_TRANSPORT_HTTP ? "http" : "stdio");
          if (c->command != NULL)
            json_object_set_string_member (o, "command", c->command);
          if (c->url != NULL)
            json_object_set_string_member (o, "url", c->url);
          json_object_set_boolean_member (o, "enabled", c->enabled);
          if (c->error != NULL)
            json_object_set_string_member (o, "error", c->error);
          json_array_add_object_element (arr, o);
        }
      node = json_node_init_array (json_node_alloc (), arr);
      text = json_to_string (node, TRUE);
      printf ("%s\n", text);
      return 0;
    }
  if (configs->len == 0)
    {
      printf ("No MCP servers. Add one with `openworker mcp add NAME -- COMMAND [ARG…]` (%s).\n", path);
      return 0;
    }
  for (guint i = 0; i < configs->len; i++)
    {
      const OwMcpServerConfig *c = g_ptr_array_index (configs, i);
      g_autofree char *args = c->args != NULL ? g_strjoinv (" ", c->args) : g_strdup ("");

      printf ("%-20s %s %s%s%s%s%s\n", c->name, c->transport == OW_MCP_TRANSPORT_HTTP ? "http " : "stdio",
              c->url != NULL ? c->url : (c->command != NULL ? c->command : ""), *args ? " " : "", args,
              c->enabled ? "" : "  (disabled)", "");
      if (c->error != NULL)
        printf ("%-20s   cannot be used: %s\n", "", c->error);
    }
  return 0;
}

/* ---- add / remove ---------------------------------------------------------- */

static int
mcp_add (int argc, char **argv)
{
  const char *name = argc > 2 ? argv[2] : NULL;
  g_autofree char *path = mcp_json_path ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) entry = json_object_new ();
  JsonObject *env = NULL, *headers = NULL;
  const char *url = NULL;
  int i;

  if (!ow_mcp_edit_valid_name (name))
    return fail (2, "`mcp add` needs a server name of letters, digits, - and _ (at most 40), "
                    "for example `openworker mcp add files -- npx @modelcontextprotocol/server-filesystem ~/notes`.");
  for (i = 3; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--"))
        {
          i++;
          break;
        }
      if (g_str_equal (argv[i], "--url") && i + 1 < argc)
        url = argv[++i];
      else if (g_str_equal (argv[i], "--env") && i + 1 < argc && strchr (argv[i + 1], '=') != NULL)
        {
          g_auto(GStrv) kv = g_strsplit (argv[++i], "=", 2);
          if (env == NULL)
            env = json_object_new ();
          json_object_set_string_member (env, kv[0], kv[1]);
        }
      else if (g_str_equal (argv[i], "--header") && i + 1 < argc && strchr (argv[i + 1], ':') != NULL)
        {
          g_auto(GStrv) kv = g_strsplit (argv[++i], ":", 2);
          if (headers == NULL)
            headers = json_object_new ();
          json_object_set_string_member (headers, g_strstrip (kv[0]), g_strstrip (kv[1]));
        }
      else
        {
          g_clear_pointer (&env, json_object_unref);
          g_clear_pointer (&headers, json_object_unref);
          return fail (2, "unknown or incomplete option \"%s\" for `mcp add`; see `openworker mcp --help`.", argv[i]);
        }
    }
  if ((url == NULL) == (i >= argc))
    {
      g_clear_pointer (&env, json_object_unref);
      g_clear_pointer (&headers, json_object_unref);
      return fail (2, "`mcp add %s` needs either `-- COMMAND [ARG…]` or `--url URL`, not both.", name);
    }
  if (url != NULL)
    json_object_set_string_member (entry, "url", url);
  else
    {
      JsonArray *args = json_array_new ();

      json_object_set_string_member (entry, "command", argv[i]);
      for (int j = i + 1; j < argc; j++)
        json_array_add_string_element (args, argv[j]);
      json_object_set_array_member (entry, "args", args);
    }
  if (env != NULL)
    json_object_set_object_member (entry, "env", env);
  if (headers != NULL)
    json_object_set_object_member (entry, "headers", headers);

  if (!ow_mcp_edit_add (path, name, entry, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        return fail (2, "%s Remove it first (`openworker mcp remove %s`).", error->message, name);
      return fail (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT) ? 2 : 1, "%s", error->message);
    }
  printf ("Added the MCP server \"%s\". Its tools are offered to new sessions as mcp__%s__…; "
          "each asks before it runs.\n", name, name);
  return 0;
}

static int
mcp_remove (const char *name)
{
  g_autofree char *path = mcp_json_path ();
  g_autoptr(GError) error = NULL;

  if (name == NULL)
    return fail (2, "`mcp remove` needs the server's name; `openworker mcp list` shows them.");
  if (!ow_mcp_edit_remove (path, name, &error))
    return fail (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ? 2 : 1, "%s `openworker mcp list` shows them.",
                 error->message);
  printf ("Removed the MCP server \"%s\".\n", name);
  return 0;
}

/* ---- tools ----------------------------------------------------------------- */

static int
mcp_tools (const char *name, gboolean json)
{
  g_autofree char *path = mcp_json_path ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) configs = ow_mcp_config_load (path, NULL, NULL, NULL, &error);
  g_autoptr(GPtrArray) chosen = g_ptr_array_new ();
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(JsonArray) arr = json_array_new ();
  OwToolProvider *provider;

  if (name == NULL)
    return fail (2, "`mcp tools` needs the server's name; `openworker mcp list` shows them.");
  if (configs == NULL)
    return fail (1, "%s", error->message);
  for (guint i = 0; i < configs->len; i++)
    if (g_str_equal (((OwMcpServerConfig *) g_ptr_array_index (configs, i))->name, name))
      {
        OwMcpServerConfig *c = g_ptr_array_index (configs, i);
        c->enabled = TRUE;   /* asked for by name: a disabled entry is shown too */
        g_ptr_array_add (chosen, c);
      }
  if (chosen->len == 0)
    return fail (2, "there is no MCP server named \"%s\"; `openworker mcp list` shows them.", name);
  providers = ow_mcp_start_servers (chosen, NULL, problems);
  if (providers->len == 0)
    return fail (1, "%s", problems->len > 0 ? (const char *) g_ptr_array_index (problems, 0) : "it did not start");
  provider = g_ptr_array_index (providers, 0);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (provider)); i++)
    {
      g_autoptr(OwTool) tool = g_list_model_get_item (G_LIST_MODEL (provider), i);
      const char *description = ow_tool_get_description (tool);
      g_autofree char *line = NULL;

      if (json)
        {
          JsonObject *o = json_object_new ();
          json_object_set_string_member (o, "name", ow_tool_get_name (tool));
          json_object_set_string_member (o, "server_name",
                                         ow_mcp_provider_server_tool_name (OW_MCP_PROVIDER (provider),
                                                                           ow_tool_get_name (tool)));
          json_object_set_string_member (o, "risk", ow_risk_to_string (ow_tool_get_risk (tool)));
          if (description != NULL)
            json_object_set_string_member (o, "description", description);
          json_array_add_object_element (arr, o);
          continue;
        }
      if (description != NULL)
        {
          const char *nl = strchr (description, '\n');
          line = nl != NULL ? g_strndup (description, nl - description) : g_strdup (description);
          if (g_utf8_strlen (line, -1) > 90)
            {
              char *cut = g_utf8_substring (line, 0, 89);
              g_free (line);
              line = g_strconcat (cut, "…", NULL);
              g_free (cut);
            }
        }
      printf ("%-40s %s\n", ow_tool_get_name (tool), line != NULL ? line : "");
    }
  if (json)
    {
      g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), json_array_ref (arr));
      g_autofree char *text = json_to_string (node, TRUE);
      printf ("%s\n", text);
    }
  ow_mcp_client_stop (ow_mcp_provider_get_client (OW_MCP_PROVIDER (provider)));
  return 0;
}

int
ow_mcp_main (int argc, char **argv)
{
  const char *verb = argc > 1 ? argv[1] : "list";
  gboolean json = FALSE;

  if (g_str_equal (verb, "--help") || g_str_equal (verb, "-h") || g_str_equal (verb, "help"))
    {
      print_usage (stdout);
      return 0;
    }
  if (g_str_equal (verb, "add"))
    return mcp_add (argc, argv);
  for (int i = 2; i < argc; i++)
    if (g_str_equal (argv[i], "--json"))
      json = TRUE;
  if (g_str_equal (verb, "list"))
    return mcp_list (json);
  if (g_str_equal (verb, "remove"))
    return mcp_remove (argc > 2 ? argv[2] : NULL);
  if (g_str_equal (verb, "tools"))
    return mcp_tools (argc > 2 && argv[2][0] != '-' ? argv[2] : NULL, json);
  fprintf (stderr, "openworker: unknown command \"mcp %s\".\n\n", verb);
  print_usage (stderr);
  return 2;
}
