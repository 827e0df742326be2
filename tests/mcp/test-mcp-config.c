/* test-mcp-config.c: mcp.json, tool names, server environments and the
 * structuredContent schema check. */
#include <string.h>

#include "mcp/ow-mcp-config.h"
#include "mcp/ow-mcp-schema.h"
#include "ow-error.h"
#include "ow-json.h"

#include <glib/gstdio.h>

static char *
resolve_fixed (const char *name,
               gpointer    user_data)
{
  if (g_str_equal (name, "GITHUB_TOKEN"))
    return g_strdup ("ghp-from-hook");
  return NULL;
}

static void
test_parse_shapes (void)
{
  const char *text =
    "{\"mcpServers\":{"
    "\"files\":{\"command\":\"npx\",\"args\":[\"-y\",\"@modelcontextprotocol/server-filesystem\",\"${HOME}\"],"
    "  \"env\":{\"TOKEN\":\"${GITHUB_TOKEN}\",\"PLAIN\":\"a$b ${not valid}\"},\"include\":[\"read_file\"],"
    "  \"requires_approval\":false,\"startup_timeout_sec\":2.5,\"tool_timeout_sec\":30},"
    "\"remote\":{\"url\":\"https://mcp.example.com/mcp\",\"headers\":{\"Authorization\":\"Bearer ${GITHUB_TOKEN}\"},"
    "  \"client_id\":\"ow-123\",\"exclude_tools\":[\"delete\"]},"
    "\"typed\":{\"type\":\"streamable-http\",\"url\":\"http://127.0.0.1:9/mcp\",\"enabled\":false}"
    "}}";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) servers = NULL;
  OwMcpServerConfig *files;
  OwMcpServerConfig *remote;
  OwMcpServerConfig *typed;
  g_autofree char *home_arg = NULL;

  g_setenv ("HOME", "/home/someone", TRUE);
  servers = ow_mcp_config_parse (text, -1, resolve_fixed, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (servers->len, ==, 3);
  files = servers->pdata[0];
  remote = servers->pdata[1];
  typed = servers->pdata[2];

  /* HOME is not known to the hook: the hook decides, and says it is unset. */
  g_assert_cmpstr (files->name, ==, "files");
  g_assert_cmpint (files->transport, ==, OW_MCP_TRANSPORT_STDIO);
  g_assert_nonnull (files->error);
  g_assert_nonnull (strstr (files->error, "${HOME}"));
  g_assert_cmpstr (files->env[0], ==, "TOKEN=ghp-from-hook");
  g_assert_cmpstr (files->env[1], ==, "PLAIN=a$b ${not valid}");
  g_assert_cmpstr (files->include_tools[0], ==, "read_file");
  g_assert_false (files->requires_approval);
  g_assert_cmpuint (files->start_timeout_ms, ==, 2500);
  g_assert_cmpuint (files->call_timeout_ms, ==, 30000);

  g_assert_cmpint (remote->transport, ==, OW_MCP_TRANSPORT_HTTP);
  g_assert_null (remote->error);
  g_assert_cmpstr (remote->headers[0], ==, "Authorization: Bearer ghp-from-hook");
  g_assert_cmpstr (remote->client_id, ==, "ow-123");
  g_assert_true (remote->requires_approval);
  g_assert_true (ow_mcp_server_config_allows_tool (remote, "read"));
  g_assert_false (ow_mcp_server_config_allows_tool (remote, "delete"));
  g_assert_true (ow_mcp_server_config_allows_tool (files, "read_file"));
  g_assert_false (ow_mcp_server_config_allows_tool (files, "write_file"));

  g_assert_cmpint (typed->transport, ==, OW_MCP_TRANSPORT_HTTP);
  g_assert_false (typed->enabled);

  /* Without a hook, the environment answers: the same entry is usable. */
  g_clear_pointer (&servers, g_ptr_array_unref);
  g_setenv ("GITHUB_TOKEN", "ghp-from-env", TRUE);
  servers = ow_mcp_config_parse (text, -1, NULL, NULL, &error);
  g_assert_no_error (error);
  files = servers->pdata[0];
  g_assert_null (files->error);
  home_arg = g_strdup (files->args[2]);
  g_assert_cmpstr (home_arg, ==, "/home/someone");
  g_assert_cmpstr (files->env[0], ==, "TOKEN=ghp-from-env");
  g_unsetenv ("GITHUB_TOKEN");
}

static void
test_parse_errors (void)
{
  const char *broken[] = { "not json", "[]", "{\"servers\":{}}", "{\"mcpServers\":[]}" };
  const char *entries =
    "{\"mcpServers\":{\"a\":5,\"b\":{\"args\":[\"x\"]},\"c\":{\"command\":\"x\",\"args\":\"flat\"},\"g\":{\"command\":\"x\",\"args\":[\"${HOME}\",1]},"
    "\"d\":{\"command\":\"x\",\"tool_timeout_sec\":-1},\"e\":{\"type\":\"carrier-pigeon\",\"command\":\"x\"},"
    "\"f\":{\"command\":\"x\",\"env\":{\"A=B\":\"c\"}},"
    "\"ok\":{\"command\":\"x\"}}}";
  g_autoptr(GPtrArray) servers = NULL;
  g_autoptr(GError) error = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr(GError) e = NULL;
      g_autoptr(GPtrArray) none = ow_mcp_config_parse (broken[i], -1, NULL, NULL, &e);

      g_assert_null (none);
      g_assert_error (e, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG);
    }
  servers = ow_mcp_config_parse (entries, -1, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (servers->len, ==, 8);
  for (guint i = 0; i < 7; i++)
    {
      OwMcpServerConfig *c = servers->pdata[i];

      g_assert_nonnull (c->error);
      g_assert_nonnull (strstr (c->error, c->name));
    }
  /* Positive control: the good entry beside them is usable. */
  g_assert_null (((OwMcpServerConfig *) servers->pdata[7])->error);
}

static void
test_tool_names (void)
{
  g_autoptr(GHashTable) taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *plain = ow_mcp_tool_full_name ("github", "create_issue", taken);
  g_autofree char *odd = ow_mcp_tool_full_name ("my server", "odd name/with.dots", taken);
  g_autofree char *clash1 = ow_mcp_tool_full_name ("a.b", "t", taken);
  g_autofree char *clash2 = ow_mcp_tool_full_name ("a_b", "t", taken);
  g_autofree char *clash3 = ow_mcp_tool_full_name ("a b", "t", taken);
  g_autofree char *longer = g_strnfill (100, 'x');
  g_autofree char *long1 = ow_mcp_tool_full_name ("s", longer, taken);
  g_autofree char *long2 = ow_mcp_tool_full_name ("s", longer, taken);

  g_assert_cmpstr (plain, ==, "mcp__github__create_issue");
  g_assert_cmpstr (odd, ==, "mcp__my_server__odd_name_with_dots");
  g_assert_cmpstr (clash1, ==, "mcp__a_b__t");
  g_assert_cmpstr (clash2, ==, "mcp__a_b__t_2");
  g_assert_cmpstr (clash3, ==, "mcp__a_b__t_3");
  g_assert_cmpuint (strlen (long1), ==, OW_MCP_TOOL_NAME_MAX);
  g_assert_cmpuint (strlen (long2), ==, OW_MCP_TOOL_NAME_MAX);
  g_assert_true (g_str_has_suffix (long2, "_2"));
  g_assert_cmpstr (long1, !=, long2);
}

static void
test_env_minimal (void)
{
  g_autoptr(OwMcpServerConfig) c = ow_mcp_server_config_new ("t");
  g_auto(GStrv) envp = NULL;

  g_setenv ("OPENAI_API_KEY", "sk-must-not-leak", TRUE);
  g_setenv ("GITHUB_TOKEN", "ghp-must-not-leak", TRUE);
  g_setenv ("LANG", "C.UTF-8", TRUE);
  g_strfreev (c->env);
  c->env = g_strsplit ("MINE=visible|GITHUB_TOKEN=given-on-purpose", "|", -1);
  envp = ow_mcp_server_config_build_env (c, "/login/bin:/usr/bin");
  g_assert_null (g_environ_getenv (envp, "OPENAI_API_KEY"));
  g_assert_cmpstr (g_environ_getenv (envp, "PATH"), ==, "/login/bin:/usr/bin");
  g_assert_cmpstr (g_environ_getenv (envp, "LANG"), ==, "C.UTF-8");
  g_assert_nonnull (g_environ_getenv (envp, "HOME"));
  /* What the entry names does reach the server, its own token included. */
  g_assert_cmpstr (g_environ_getenv (envp, "MINE"), ==, "visible");
  g_assert_cmpstr (g_environ_getenv (envp, "GITHUB_TOKEN"), ==, "given-on-purpose");
  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("GITHUB_TOKEN");
}

static void
test_load_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ow-mcp-config-XXXXXX", NULL);
  g_autofree char *global = g_build_filename (dir, "mcp.json", NULL);
  g_autofree char *local = g_build_filename (dir, "workspace-mcp.json", NULL);
  g_autofree char *missing = g_build_filename (dir, "absent.json", NULL);
  g_autoptr(GPtrArray) trusted = NULL;
  g_autoptr(GPtrArray) untrusted = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_autoptr(GPtrArray) broken = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (global, "{\"mcpServers\":{\"shared\":{\"command\":\"global-cmd\"},"
                                              "\"memory\":{\"command\":\"npx\"}}}", -1, NULL));
  g_assert_true (g_file_set_contents (local, "{\"mcpServers\":{\"shared\":{\"command\":\"workspace-cmd\"},"
                                             "\"project\":{\"command\":\"uvx\"}}}", -1, NULL));

  trusted = ow_mcp_config_load (global, local, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trusted->len, ==, 3);
  /* The global entry wins a clash; the workspace adds what is new. */
  g_assert_cmpstr (((OwMcpServerConfig *) trusted->pdata[0])->command, ==, "global-cmd");
  g_assert_cmpstr (((OwMcpServerConfig *) trusted->pdata[2])->name, ==, "project");

  /* An untrusted workspace's file is not read at all. */
  untrusted = ow_mcp_config_load (global, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (untrusted->len, ==, 2);

  none = ow_mcp_config_load (missing, missing, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (none->len, ==, 0);

  g_assert_true (g_file_set_contents (local, "{\"mcpServers\": [", -1, NULL));
  broken = ow_mcp_config_load (global, local, NULL, NULL, &error);
  g_assert_null (broken);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "workspace-mcp.json"));
  g_unlink (global);
  g_unlink (local);
  g_rmdir (dir);
}

/* "tools" settings: the four words, defaults, requires_approval false,
 * bad values an entry error. */
static void
test_tool_settings (void)
{
  const char *text =
    "{\"mcpServers\":{"
    "\"a\":{\"command\":\"x\",\"tools\":{\"echo\":\"allow\",\"add\":\"ask\",\"zap\":\"deny\",\"env\":\"off\"},"
    "     \"exclude_tools\":[\"gone\"]},"
    "\"b\":{\"command\":\"x\",\"requires_approval\":false,\"tools\":{\"zap\":\"ask\"}},"
    "\"c\":{\"command\":\"x\",\"tools\":{\"echo\":\"yes\"}},"
    "\"d\":{\"command\":\"x\",\"tools\":[\"echo\"]}"
    "}}";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) servers = ow_mcp_config_parse (text, -1, NULL, NULL, &error);
  OwMcpServerConfig *a, *b, *c, *d;
  OwMcpToolSetting s;

  g_assert_no_error (error);
  a = servers->pdata[0];
  b = servers->pdata[1];
  c = servers->pdata[2];
  d = servers->pdata[3];
  g_assert_null (a->error);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (a, "echo"), ==, OW_MCP_TOOL_ALLOW);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (a, "add"), ==, OW_MCP_TOOL_ASK);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (a, "zap"), ==, OW_MCP_TOOL_DENY);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (a, "env"), ==, OW_MCP_TOOL_OFF);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (a, "other"), ==, OW_MCP_TOOL_ASK);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (a, "gone"), ==, OW_MCP_TOOL_OFF);
  g_assert_true (ow_mcp_server_config_allows_tool (a, "echo"));
  g_assert_true (ow_mcp_server_config_allows_tool (a, "add"));
  g_assert_false (ow_mcp_server_config_allows_tool (a, "zap"));
  g_assert_false (ow_mcp_server_config_allows_tool (a, "env"));
  /* requires_approval false: every tool allowed, unless set otherwise. */
  g_assert_null (b->error);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (b, "anything"), ==, OW_MCP_TOOL_ALLOW);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (b, "zap"), ==, OW_MCP_TOOL_ASK);
  g_assert_nonnull (c->error);
  g_assert_nonnull (strstr (c->error, "tools.echo"));
  g_assert_nonnull (d->error);
  g_assert_nonnull (strstr (d->error, "“tools”"));
  /* A copy keeps them. */
  {
    g_autoptr(OwMcpServerConfig) copy = ow_mcp_server_config_copy (a);
    g_assert_cmpint (ow_mcp_server_config_tool_setting (copy, "zap"), ==, OW_MCP_TOOL_DENY);
  }
  g_assert_true (ow_mcp_tool_setting_from_string ("off", &s));
  g_assert_cmpint (s, ==, OW_MCP_TOOL_OFF);
  g_assert_false (ow_mcp_tool_setting_from_string ("Allow", &s));
  g_assert_cmpstr (ow_mcp_tool_setting_to_string (OW_MCP_TOOL_DENY), ==, "deny");
}

/* A workspace's .openworker/mcp.json narrows, never widens: its "allow" and
 * requires_approval false are errors and are not applied, its off/deny/ask
 * tighten the machine's entry; the machine's own allow is the control. */
static void
test_workspace_narrows (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ow-mcp-config-XXXXXX", NULL);
  g_autofree char *global = g_build_filename (dir, "mcp.json", NULL);
  g_autofree char *local = g_build_filename (dir, "workspace-mcp.json", NULL);
  g_autoptr(GPtrArray) servers = NULL;
  g_autoptr(GError) error = NULL;
  OwMcpServerConfig *shared, *own, *lax;

  g_assert_true (g_file_set_contents (global,
    "{\"mcpServers\":{\"shared\":{\"command\":\"g\",\"tools\":{\"echo\":\"allow\",\"add\":\"allow\","
    "\"zap\":\"allow\"}}}}", -1, NULL));
  g_assert_true (g_file_set_contents (local,
    "{\"mcpServers\":{"
    "\"shared\":{\"command\":\"w\",\"tools\":{\"add\":\"ask\",\"zap\":\"off\",\"env\":\"allow\"}},"
    "\"own\":{\"command\":\"w\",\"tools\":{\"echo\":\"allow\",\"add\":\"deny\"}},"
    "\"lax\":{\"command\":\"w\",\"requires_approval\":false}}}", -1, NULL));
  servers = ow_mcp_config_load (global, local, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (servers->len, ==, 3);
  shared = servers->pdata[0];
  own = servers->pdata[1];
  lax = servers->pdata[2];
  /* The machine's allow holds where the workspace says nothing (control)… */
  g_assert_cmpstr (shared->command, ==, "g");
  g_assert_null (shared->error);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (shared, "echo"), ==, OW_MCP_TOOL_ALLOW);
  /* …and the workspace narrows it, but cannot allow what the machine does not. */
  g_assert_cmpint (ow_mcp_server_config_tool_setting (shared, "add"), ==, OW_MCP_TOOL_ASK);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (shared, "zap"), ==, OW_MCP_TOOL_OFF);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (shared, "env"), ==, OW_MCP_TOOL_ASK);
  /* A workspace-only server: "allow" is an error, never applied. */
  g_assert_nonnull (own->error);
  g_assert_nonnull (strstr (own->error, "may only narrow"));
  g_assert_cmpint (ow_mcp_server_config_tool_setting (own, "echo"), ==, OW_MCP_TOOL_ASK);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (own, "add"), ==, OW_MCP_TOOL_DENY);
  g_assert_nonnull (lax->error);
  g_assert_true (lax->requires_approval);
  g_assert_cmpint (ow_mcp_server_config_tool_setting (lax, "echo"), ==, OW_MCP_TOOL_ASK);
  /* The same text in the machine's file is fine (positive control). */
  {
    g_autoptr(GPtrArray) machine = ow_mcp_config_load (local, NULL, NULL, NULL, &error);

    g_assert_no_error (error);
    g_assert_null (((OwMcpServerConfig *) machine->pdata[1])->error);
    g_assert_cmpint (ow_mcp_server_config_tool_setting (machine->pdata[1], "echo"), ==, OW_MCP_TOOL_ALLOW);
    g_assert_cmpint (ow_mcp_server_config_tool_setting (machine->pdata[2], "echo"), ==, OW_MCP_TOOL_ALLOW);
  }
  g_unlink (global);
  g_unlink (local);
  g_rmdir (dir);
}

static gboolean
check (const char *schema,
       const char *value,
       GError    **error)
{
  g_autoptr(JsonObject) s = ow_json_object_from_string (schema, -1, NULL);
  g_autoptr(JsonNode) v = ow_json_parse (value, -1, NULL);

  return ow_mcp_schema_check (s, v, error);
}

static void
test_schema (void)
{
  const char *weather = "{\"type\":\"object\",\"required\":[\"t\"],\"properties\":{\"t\":{\"type\":\"number\"},"
                        "\"c\":{\"type\":\"string\",\"enum\":[\"sun\",\"rain\"]},\"n\":{\"type\":\"integer\"},"
                        "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                        "\"o\":{\"type\":[\"object\",\"null\"],\"additionalProperties\":false,"
                        "\"properties\":{\"k\":{\"type\":\"boolean\"}}}}}";
  struct { const char *value; const char *where; } bad[] = {
    { "{\"c\":\"sun\"}", "$: the required member “t”" },
    { "{\"t\":\"hot\"}", "$.t: expected number, got string" },
    { "{\"t\":1,\"c\":\"snow\"}", "$.c:" },
    { "{\"t\":1,\"n\":1.5}", "$.n:" },
    { "{\"t\":1,\"tags\":[\"a\",2]}", "$.tags[1]:" },
    { "{\"t\":1,\"o\":{\"x\":1}}", "$.o.x:" },
    { "{\"t\":1,\"o\":{\"k\":\"yes\"}}", "$.o.k:" },
    { "[1]", "$: expected object" },
  };
  const char *good[] = {
    "{\"t\":1}", "{\"t\":1.5,\"c\":\"rain\",\"n\":3,\"tags\":[],\"o\":null}", "{\"t\":2,\"n\":4.0,\"o\":{\"k\":true}}",
    "{\"t\":1,\"extra\":\"fine at the top\"}",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (check (weather, bad[i].value, &error));
      g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_INVALID_RESULT);
      if (strstr (error->message, bad[i].where) == NULL)
        g_error ("%s: %s lacks %s", bad[i].value, error->message, bad[i].where);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (check (weather, good[i], &error));
      g_assert_no_error (error);
    }
}

/* A reload keeps a server whose entry reads the same and restarts one
 * whose entry changed in any member. */
static void
test_equal (void)
{
  const char *a = "{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\"1\"], \"exclude_tools\": [\"t\"]}}}";
  const char *same = "{\"mcpServers\": {\"s\": {\"args\": [\"1\"], \"command\": \"x\", \"exclude\": [\"t\"]}}}";
  const char *changes[] = {
    "{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\"2\"], \"exclude_tools\": [\"t\"]}}}",
    "{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\"1\"]}}}",
    "{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\"1\"], \"exclude_tools\": [\"t\"], \"tool_timeout_sec\": 5}}}",
    "{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\"1\"], \"exclude_tools\": [\"t\"], \"enabled\": false}}}",
    "{\"mcpServers\": {\"s\": {\"command\": \"x\", \"args\": [\"1\"], \"exclude_tools\": [\"t\"], \"env\": {\"A\": \"b\"}}}}",
  };
  g_autoptr(GPtrArray) one = ow_mcp_config_parse (a, -1, NULL, NULL, NULL);
  g_autoptr(GPtrArray) two = ow_mcp_config_parse (same, -1, NULL, NULL, NULL);
  g_autoptr(OwMcpServerConfig) copy = ow_mcp_server_config_copy (g_ptr_array_index (one, 0));

  g_assert_true (ow_mcp_server_config_equal (g_ptr_array_index (one, 0), g_ptr_array_index (two, 0)));
  g_assert_true (ow_mcp_server_config_equal (g_ptr_array_index (one, 0), copy));
  for (guint i = 0; i < G_N_ELEMENTS (changes); i++)
    {
      g_autoptr(GPtrArray) other = ow_mcp_config_parse (changes[i], -1, NULL, NULL, NULL);

      g_assert_false (ow_mcp_server_config_equal (g_ptr_array_index (one, 0), g_ptr_array_index (other, 0)));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/mcp/config/parse-shapes", test_parse_shapes);
  g_test_add_func ("/ow/mcp/config/equal", test_equal);
  g_test_add_func ("/ow/mcp/config/parse-errors", test_parse_errors);
  g_test_add_func ("/ow/mcp/config/tool-names", test_tool_names);
  g_test_add_func ("/ow/mcp/config/load-files", test_load_files);
  g_test_add_func ("/ow/mcp/config/tool-settings", test_tool_settings);
  g_test_add_func ("/ow/mcp/config/workspace-narrows", test_workspace_narrows);
  g_test_add_func ("/ow/mcp/config/env-minimal", test_env_minimal);
  g_test_add_func ("/ow/mcp/schema/basic", test_schema);
  return g_test_run ();
}
