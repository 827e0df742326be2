/* fuzz-mcp-config.c: libFuzzer target for mcp.json and the structured
 * result check, both fed outside data (a pasted config; a server's schema
 * and result).
 *
 * The whole input is read as mcp.json: every entry must come out either
 * usable (a command for stdio, a url for HTTP, sane timeouts) or with an
 * error that names it, and tool names built from its entries stay within
 * [A-Za-z0-9_-] and 64 characters and unique. Then the input is split at
 * its first newline into a schema and a value for ow_mcp_schema_check,
 * whose answer must be a boolean with an error exactly when it is FALSE.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/ow-mcp-config.h"
#include "mcp/ow-mcp-schema.h"
#include "ow-error.h"
#include "ow-json.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *
resolve (const char *name,
         gpointer    user_data)
{
  return name[0] == 'A' ? g_strdup ("value") : NULL;
}

static void
check_name (const char *name,
            GHashTable *seen)
{
  if (strlen (name) > OW_MCP_TOOL_NAME_MAX || strlen (name) == 0)
    abort ();
  for (const char *c = name; *c != '\0'; c++)
    if (!g_ascii_isalnum (*c) && *c != '_' && *c != '-')
      abort ();
  if (g_hash_table_contains (seen, name))
    abort ();
  g_hash_table_add (seen, g_strdup (name));
}

static void
fuzz_config (const char *text,
             gsize       len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) servers = ow_mcp_config_parse (text, (gssize) len, resolve, NULL, &error);
  g_autoptr(GHashTable) taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if ((servers == NULL) == (error == NULL))
    abort ();
  if (servers == NULL)
    {
      if (error->domain != OW_MCP_ERROR || error->code != OW_MCP_ERROR_CONFIG)
        abort ();
      return;
    }
  for (guint i = 0; i < servers->len; i++)
    {
      OwMcpServerConfig *c = servers->pdata[i];
      g_autoptr(OwMcpServerConfig) copy = ow_mcp_server_config_copy (c);
      g_auto(GStrv) envp = ow_mcp_server_config_build_env (c, "/usr/bin");

      if (c->name == NULL || c->args == NULL || c->env == NULL || c->headers == NULL || c->exclude_tools == NULL)
        abort ();
      if (c->error == NULL)
        {
          if (c->transport == OW_MCP_TRANSPORT_STDIO && (c->command == NULL || c->command[0] == '\0'))
            abort ();
          if (c->transport == OW_MCP_TRANSPORT_HTTP && (c->url == NULL || c->url[0] == '\0'))
            abort ();
          if (c->start_timeout_ms == 0 || c->call_timeout_ms == 0 || c->call_max_ms == 0)
            abort ();
        }
      else if (strstr (c->error, c->name) == NULL)
        abort ();
      {
        /* An entry may set its own PATH; otherwise ours is what it gets. */
        gboolean own = FALSE;

        for (char **e = c->env; *e != NULL; e++)
          own |= g_str_has_prefix (*e, "PATH=");
        if (!own && g_strcmp0 (g_environ_getenv (envp, "PATH"), "/usr/bin") != 0)
          abort ();
      }
      for (char **a = c->args; *a != NULL; a++)
        {
          g_autofree char *name = ow_mcp_tool_full_name (c->name, *a, taken);

          check_name (name, seen);
        }
      {
        g_autofree char *name = ow_mcp_tool_full_name (c->name, c->name, taken);

        check_name (name, seen);
      }
      (void) ow_mcp_server_config_allows_tool (c, c->name);
      if (copy->transport != c->transport)
        abort ();
    }
}

static void
fuzz_schema (const char *text,
             gsize       len)
{
  const char *nl = memchr (text, '\n', len);
  g_autoptr(JsonObject) schema = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (nl == NULL)
    return;
  schema = ow_json_object_from_string (text, nl - text, NULL);
  value = ow_json_parse (nl + 1, (gssize) (len - (gsize) (nl + 1 - text)), NULL);
  if (schema == NULL || value == NULL)
    return;
  ok = ow_mcp_schema_check (schema, value, &error);
  if (ok != (error == NULL))
    abort ();
  if (!ok && (error->domain != OW_MCP_ERROR || error->code != OW_MCP_ERROR_INVALID_RESULT))
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  fuzz_config ((const char *) data, size);
  fuzz_schema ((const char *) data, size);
  return 0;
}
