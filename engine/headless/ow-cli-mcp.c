/* ow-cli-mcp.c: `openworker mcp list|add|remove|tools|login|logout`.
 *
 * The machine's MCP servers live in mcp.json in the config folder, in the
 * original's shape (paste-compatible with Claude Desktop and Cursor). `add`
 * and `remove` edit that file and keep every other entry as it was; `list`
 * reads it as the engine does (an entry that cannot be used says why);
 * `tools` starts one server and lists what the model would be offered.
 * `login` signs in to an OAuth-protected HTTP server (mcp/ow-mcp-auth.h):
 * it prints the authorization URL and takes the browser's redirect on a
 * loopback port of its own (http://127.0.0.1:PORT/callback; only a state
 * it is waiting for is completed); `logout` forgets the server's tokens.
 * Adding a server gives every later session a new program to run, and
 * signing in gives them an account, so `add`, `remove`, `login` and
 * `logout` are a person's acts (ow-cli-main.c refuses them to a session).
 */
#include "headless/ow-cli-mcp.h"

#include <stdio.h>
#include <string.h>

#include <libsoup/soup.h>

#include "core/ow-context.h"
#include "mcp/ow-mcp-auth.h"
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
         "  tool NAME TOOL allow|ask|deny|off      Set one tool of a server (TOOL as the server names it):\n"
         "                                         allow runs it without a card, ask (the default) shows\n"
         "                                         one, deny refuses it, off hides it\n"
         "  login NAME                             Sign in to an HTTP server that asks for it (OAuth)\n"
         "  logout NAME                            Forget the sign-in to an HTTP server\n"
         "\n"
         "Every MCP tool asks before it runs (it acts outside this computer's files) unless a\n"
         "person allows it here; a server gets only the environment its entry names, never\n"
         "OpenWorker's keys.\n", out);
}

static OwContext *open_context (GError **error);

static char *
mcp_json_path (void)
{
  return ow_mcp_edit_default_path ();
}

/* ---- list ------------------------------------------------------------------ */

/* The entry's tool settings, sorted by tool name: "echo=allow", … */
static int
by_text (gconstpointer a, gconstpointer b)
{
  return g_ascii_strcasecmp (*(const char *const *) a, *(const char *const *) b);
}

static GPtrArray *
tool_settings (const OwMcpServerConfig *c)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer k;

  g_hash_table_iter_init (&iter, c->tools);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    g_ptr_array_add (out, g_strdup_printf ("%s=%s", (const char *) k,
                                           ow_mcp_tool_setting_to_string (ow_mcp_server_config_tool_setting (c, k))));
  g_ptr_array_sort (out, by_text);   /* the array holds pointers to the strings */
  return out;
}

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
          json_object_set_boolean_member (o, "requires_approval", c->requires_approval);
          {
            g_autoptr(GPtrArray) settings = tool_settings (c);
            JsonObject *tools = json_object_new ();

            for (guint j = 0; j < settings->len; j++)
              {
                g_auto(GStrv) kv = g_strsplit (g_ptr_array_index (settings, j), "=", 2);
                json_object_set_string_member (tools, kv[0], kv[1]);
              }
            json_object_set_object_member (o, "tools", tools);
          }
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
      {
        g_autoptr(GPtrArray) settings = tool_settings (c);

        if (!c->requires_approval)
          printf ("%-20s   every tool runs without asking (requires_approval false)\n", "");
        if (settings->len > 0)
          {
            g_ptr_array_add (settings, NULL);
            g_autofree char *joined = g_strjoinv (", ", (char **) settings->pdata);
            printf ("%-20s   tools: %s\n", "", joined);
          }
      }
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

/* ---- tool ------------------------------------------------------------------ */

static int
mcp_tool (int argc, char **argv)
{
  g_autofree char *path = mcp_json_path ();
  g_autoptr(GError) error = NULL;
  const char *name = argc > 2 ? argv[2] : NULL;
  const char *tool = argc > 3 ? argv[3] : NULL;
  const char *setting = argc > 4 ? argv[4] : NULL;

  if (name == NULL || tool == NULL || setting == NULL || argc > 5)
    return fail (2, "usage: openworker mcp tool NAME TOOL allow|ask|deny|off");
  if (!ow_mcp_edit_set_tool (path, name, tool, setting, &error))
    return fail (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
                 || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT) ? 2 : 1, "%s", error->message);
  printf ("The tool \"%s\" of the MCP server \"%s\" is now %s.\n", tool, name, setting);
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
  g_autoptr(OwContext) ctx = NULL;
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
  ctx = open_context (&error);
  providers = ow_mcp_start_servers (chosen, ctx != NULL ? ow_context_get_oauth (ctx) : NULL, problems);
  /* A server waiting for a sign-in is a provider too (sessions keep it),
   * but here it has nothing to show. */
  if (providers->len == 0
      || ow_mcp_client_get_status (ow_mcp_provider_get_client (g_ptr_array_index (providers, 0))) != OW_MCP_STATUS_READY)
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
          json_object_set_string_member (o, "setting", ow_tool_get_allowed_by (tool) != NULL ? "allow" : "ask");
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

/* ---- login / logout -------------------------------------------------------- */

static OwContext *
open_context (GError **error)
{
  g_autoptr(OwPaths) paths = ow_paths_new_default ();
  g_autoptr(OwSecretStore) secrets = ow_secret_store_new_default (paths);
  OwContextOptions options = { .paths = paths, .secrets = secrets };

  return ow_context_new (&options, error);
}

/* The HTTP entry named @name, or NULL after saying why. (transfer full) */
static OwMcpServerConfig *
find_http_entry (const char *verb, const char *name, int *code)
{
  g_autofree char *path = mcp_json_path ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) configs = NULL;

  *code = 2;
  if (name == NULL)
    {
      fail (2, "`mcp %s` needs the server's name; `openworker mcp list` shows them.", verb);
      return NULL;
    }
  if ((configs = ow_mcp_config_load (path, NULL, NULL, NULL, &error)) == NULL)
    {
      *code = fail (1, "%s", error->message);
      return NULL;
    }
  for (guint i = 0; i < configs->len; i++)
    {
      OwMcpServerConfig *c = g_ptr_array_index (configs, i);

      if (!g_str_equal (c->name, name))
        continue;
      if (c->error != NULL)
        *code = fail (1, "MCP server \"%s\" cannot be used: %s", name, c->error);
      else if (c->transport != OW_MCP_TRANSPORT_HTTP)
        *code = fail (2, "MCP server \"%s\" is a command on this computer (stdio); only HTTP servers sign in.", name);
      else
        return ow_mcp_server_config_copy (c);
      return NULL;
    }
  fail (2, "there is no MCP server named \"%s\"; `openworker mcp list` shows them.", name);
  return NULL;
}

typedef struct {
  OwOAuth           *oauth;
  SoupServerMessage *msg;        /* the paused redirect, or NULL */
  char              *resource;   /* signed in to this, once done */
  GError            *error;      /* or why the sign-in failed */
  gboolean           done;
} Login;

static const char LOGIN_PAGE[] =
  "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>OpenWorker</title></head>"
  "<body style=\"font-family: sans-serif; margin: 3em\"><h1>%s</h1><p>%s</p></body></html>\n";

static void
login_page (SoupServerMessage *msg, guint status, const char *title, const char *text)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);
  g_autofree char *t = g_markup_escape_text (title, -1);
  g_autofree char *x = g_markup_escape_text (text, -1);
  char *body = g_strdup_printf (LOGIN_PAGE, t, x);

  soup_message_headers_replace (h, "Cache-Control", "no-store");
  soup_message_headers_replace (h, "Content-Security-Policy", "default-src 'none'");
  soup_message_headers_replace (h, "Referrer-Policy", "no-referrer");
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "text/html; charset=utf-8", SOUP_MEMORY_TAKE, body, strlen (body));
}

static void
on_login_complete_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Login *l = user_data;

  l->resource = ow_oauth_complete_finish (OW_OAUTH (source), result, &l->error);
  if (l->msg != NULL)
    {
      if (l->resource != NULL)
        login_page (l->msg, SOUP_STATUS_OK, "Signed in", "OpenWorker is signed in. You can close this tab.");
      else
        login_page (l->msg, SOUP_STATUS_BAD_REQUEST, "Sign-in failed", l->error->message);
      soup_server_message_unpause (l->msg);
      g_clear_object (&l->msg);
    }
  l->done = TRUE;
}

static void
on_callback_cb (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
                gpointer user_data)
{
  Login *l = user_data;
  const char *state = query != NULL ? g_hash_table_lookup (query, "state") : NULL;

  /* Only the redirect of the sign-in this command began: any other page,
   * or another state, is refused and the command keeps waiting. */
  if (!g_str_equal (path, "/callback") || l->msg != NULL || l->done || !ow_oauth_is_pending (l->oauth, state))
    {
      login_page (msg, SOUP_STATUS_BAD_REQUEST, "Sign-in failed",
                  "OpenWorker is not waiting for this sign-in. Start it again with `openworker mcp login`.");
      return;
    }
  l->msg = g_object_ref (msg);
  soup_server_message_pause (msg);
  ow_oauth_complete_async (l->oauth, state, g_hash_table_lookup (query, "code"), g_hash_table_lookup (query, "iss"),
                           g_hash_table_lookup (query, "error"), NULL, on_login_complete_cb, l);
}

static void
on_start_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

static void
say_signed_in (OwMcpClient *client, const char *resource)
{
  JsonObject *info = ow_mcp_client_get_server_info (client);
  g_autoptr(GPtrArray) tools = ow_mcp_client_get_tools (client);
  const char *server = info != NULL ? ow_json_get_string (info, "name") : NULL;

  printf ("Signed in to \"%s\" (%s)%s%s%s: %u tool%s.\n", ow_mcp_client_get_name (client), resource,
          server != NULL ? ", the server \"" : "", server != NULL ? server : "", server != NULL ? "\"" : "",
          tools->len, tools->len == 1 ? "" : "s");
}

static int
mcp_login (const char *name)
{
  g_autoptr(OwMcpServerConfig) config = NULL;
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwMcpClient) client = NULL;
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) started = NULL;
  g_autoptr(GAsyncResult) begun = NULL;
  g_autoptr(GSList) uris = NULL;
  g_autofree char *redirect = NULL;
  g_autofree char *url = NULL;
  Login l = { 0 };
  OwMcpAuth *auth;
  int code;

  if ((config = find_http_entry ("login", name, &code)) == NULL)
    return code;
  if ((ctx = open_context (&error)) == NULL)
    return fail (1, "%s", error->message);
  if ((l.oauth = ow_context_get_oauth (ctx)) == NULL)
    return fail (1, "there is no secret store to keep the sign-in in.");
  server = soup_server_new (NULL, NULL);
  if (!soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    return fail (1, "could not listen on 127.0.0.1 for the browser's redirect: %s", error->message);
  uris = soup_server_get_uris (server);
  redirect = g_strdup_printf ("http://127.0.0.1:%d/callback", g_uri_get_port (uris->data));
  g_slist_free_full (g_steal_pointer (&uris), (GDestroyNotify) g_uri_unref);
  soup_server_add_handler (server, NULL, on_callback_cb, &l, NULL);
  ow_oauth_set_redirect_uri (l.oauth, redirect);

  client = ow_mcp_client_new (config);
  if ((auth = ow_mcp_auth_attach (client, l.oauth)) == NULL)
    return fail (2, "MCP server \"%s\" has a URL OAuth does not accept (https, or http on this computer).", name);
  /* Each refusal for want of a sign-in is one sign-in (a step-up may ask
   * for a second; OwOAuth bounds them); after a sign-in, "signed-in" is
   * already reconnecting the client, and the next start waits for that. */
  for (guint round = 0;; round++)
    {
      g_clear_object (&started);
      g_clear_object (&begun);
      g_clear_error (&error);
      ow_mcp_start_async (client, NULL, on_start_cb, &started);
      if (ow_mcp_start_finish (client, wait_result (&started), &error))
        {
          if (round == 0 && !ow_mcp_auth_has_token (auth))
            {
              printf ("\"%s\" needs no sign-in: it connected without one.\n", name);
              break;
            }
          if (round == 0)
            printf ("Already signed in. ");
          say_signed_in (client, ow_mcp_auth_get_resource (auth));
          break;
        }
      if (!ow_mcp_auth_get_needs_sign_in (auth) || round >= OW_OAUTH_MAX_STEP_UPS + 1)
        {
          ow_mcp_client_stop (client);
          return fail (1, "%s", error->message);
        }
      g_clear_error (&error);
      ow_mcp_auth_sign_in_async (auth, NULL, on_start_cb, &begun);
      g_free (url);
      url = ow_mcp_auth_sign_in_finish (auth, wait_result (&begun), &error);
      if (url == NULL)
        return fail (1, "%s", error->message);
      printf ("To sign in to \"%s\", open this address in a browser:\n\n  %s\n\nWaiting for the browser to come "
              "back to %s (Ctrl+C to give up)…\n", name, url, redirect);
      fflush (stdout);
      l.done = FALSE;
      while (!l.done)
        g_main_context_iteration (NULL, TRUE);
      if (l.resource == NULL)
        return fail (1, "%s", l.error->message);
      g_clear_pointer (&l.resource, g_free);
    }
  ow_mcp_client_stop (client);
  g_free (l.resource);
  /* Let the client's last messages go before the server goes. */
  for (int i = 0; i < 50 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
  return 0;
}

static int
mcp_logout (const char *name)
{
  g_autoptr(OwMcpServerConfig) config = NULL;
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) res = NULL;
  OwOAuth *oauth;
  int code, n;

  if ((config = find_http_entry ("logout", name, &code)) == NULL)
    return code;
  if ((ctx = open_context (&error)) == NULL)
    return fail (1, "%s", error->message);
  if ((oauth = ow_context_get_oauth (ctx)) == NULL)
    return fail (1, "there is no secret store to keep sign-ins in.");
  ow_oauth_sign_out_async (oauth, config->url, NULL, on_start_cb, &res);
  n = ow_oauth_sign_out_finish (oauth, wait_result (&res), &error);
  if (n < 0)
    return fail (1, "%s", error->message);
  if (n == 0)
    printf ("\"%s\" was not signed in; nothing to forget.\n", name);
  else
    printf ("Signed out of \"%s\": %d saved sign-in%s forgotten.\n", name, n, n == 1 ? "" : "s");
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
  if (g_str_equal (verb, "tool"))
    return mcp_tool (argc, argv);
  for (int i = 2; i < argc; i++)
    if (g_str_equal (argv[i], "--json"))
      json = TRUE;
  if (g_str_equal (verb, "list"))
    return mcp_list (json);
  if (g_str_equal (verb, "remove"))
    return mcp_remove (argc > 2 ? argv[2] : NULL);
  if (g_str_equal (verb, "login"))
    return mcp_login (argc > 2 ? argv[2] : NULL);
  if (g_str_equal (verb, "logout"))
    return mcp_logout (argc > 2 ? argv[2] : NULL);
  if (g_str_equal (verb, "tools"))
    return mcp_tools (argc > 2 && argv[2][0] != '-' ? argv[2] : NULL, json);
  fprintf (stderr, "openworker: unknown command \"mcp %s\".\n\n", verb);
  print_usage (stderr);
  return 2;
}
