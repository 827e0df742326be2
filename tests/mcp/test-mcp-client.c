/* test-mcp-client.c: OwMcpClient against real servers over stdio.
 *
 * /ow/mcp/everything/… runs the reference server
 * @modelcontextprotocol/server-everything (pinned in package.json, run by
 * node); /ow/mcp/double/… runs mcp-double.py, a hostile server that sends
 * garbage, huge results, hangs, storms of list_changed and crashes on
 * request. Nothing here waits for a duration: every wait spins the main
 * loop until a condition holds (ow-test-utils.h), which turns a hang into
 * a failure naming what it waited for.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/ow-mcp-client.h"
#include "mcp/ow-mcp-stdio.h"
#include "ow-error.h"
#include "net/ow-http-client.h"
#include "ow-json.h"
#include "ow-test-utils.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>

/* ---- Waiting ---------------------------------------------------------- */

static void
on_result_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

typedef struct
{
  OwMcpClient *client;
  OwMcpStatus  status;
} StatusWait;

static gboolean
status_is (gpointer data)
{
  StatusWait *w = data;

  return ow_mcp_client_get_status (w->client) == w->status;
}

static void
wait_status (OwMcpClient *client,
             OwMcpStatus  status)
{
  StatusWait w = { client, status };

  ow_test_wait_until (status_is, &w, "the client's status");
}

/* ---- Servers ---------------------------------------------------------- */

static OwMcpServerConfig *
everything_config (void)
{
  OwMcpServerConfig *c = ow_mcp_server_config_new ("everything");
  const char *entry = g_getenv ("OW_MCP_EVERYTHING");

  g_assert_nonnull (entry);
  if (!g_file_test (entry, G_FILE_TEST_EXISTS))
    g_error ("%s is missing: run `npm ci --prefix tests/mcp` (./dev does)", entry);
  c->command = g_strdup (g_getenv ("OW_MCP_NODE") != NULL ? g_getenv ("OW_MCP_NODE") : "node");
  g_strfreev (c->args);
  c->args = g_new0 (char *, 3);
  c->args[0] = g_strdup (entry);
  c->args[1] = g_strdup ("stdio");
  return c;
}

static OwMcpServerConfig *
double_config (const char *const *env)
{
  OwMcpServerConfig *c = ow_mcp_server_config_new ("double");
  const char *script = g_getenv ("OW_MCP_DOUBLE");

  g_assert_nonnull (script);
  c->command = g_strdup ("python3");
  g_strfreev (c->args);
  c->args = g_new0 (char *, 2);
  c->args[0] = g_strdup (script);
  if (env != NULL)
    {
      g_strfreev (c->env);
      c->env = g_strdupv ((char **) env);
    }
  return c;
}

static OwMcpClient *
start_client (const OwMcpServerConfig *config)
{
  OwMcpClient *client = ow_mcp_client_new (config);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  ow_mcp_client_start_async (client, NULL, on_result_cb, &result);
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_STARTING);
  OW_TEST_WAIT_UNTIL (result != NULL);
  ow_mcp_client_start_finish (client, result, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_READY);
  return client;
}

static void
stop_client (OwMcpClient *client)
{
  int pid = ow_mcp_client_get_pid (client);

  ow_mcp_client_stop (client);
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_STOPPED);
  g_assert_cmpint (ow_mcp_client_get_pid (client), ==, 0);
  /* The whole group goes: wait until the kernel has no such group. */
  OW_TEST_WAIT_UNTIL (pid <= 0 || kill (-pid, 0) != 0);
  g_assert_finalize_object (client);
}

typedef struct
{
  guint  n;
  double last;
  double total;
  GCancellable *cancel_on_first;  /* cancelled at the first notification */
  int    kill_on_first;           /* kill -9 this pid at the first notification */
} Progress;

static void
on_progress (double      progress,
             double      total,
             const char *message,
             gpointer    user_data)
{
  Progress *p = user_data;

  g_assert_cmpfloat (progress, >, p->last);
  p->n++;
  p->last = progress;
  p->total = total;
  if (p->n == 1 && p->cancel_on_first != NULL)
    g_cancellable_cancel (p->cancel_on_first);
  if (p->n == 1 && p->kill_on_first > 0)
    g_assert_cmpint (kill (p->kill_on_first, SIGKILL), ==, 0);
}

static OwMcpCallResult *
call_full (OwMcpClient  *client,
           const char   *name,
           const char   *args_json,
           Progress     *progress,
           GCancellable *cancellable,
           GError      **error)
{
  g_autoptr(JsonObject) args = args_json != NULL ? ow_json_object_from_string (args_json, -1, NULL) : NULL;
  g_autoptr(GAsyncResult) result = NULL;

  ow_mcp_client_call_tool_async (client, name, args, progress != NULL ? on_progress : NULL, progress, NULL,
                                 cancellable, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  return ow_mcp_client_call_tool_finish (client, result, error);
}

static OwMcpCallResult *
call_ok (OwMcpClient *client,
         const char  *name,
         const char  *args_json)
{
  g_autoptr(GError) error = NULL;
  OwMcpCallResult *r = call_full (client, name, args_json, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (r);
  return r;
}

static const char *
first_text (OwMcpCallResult *r)
{
  for (guint i = 0; i < r->content->len; i++)
    {
      OwMcpContent *c = g_ptr_array_index (r->content, i);

      if (c->type == OW_MCP_CONTENT_TEXT)
        return c->text;
    }
  return NULL;
}

static gboolean
has_tool (gpointer data)
{
  OwMcpClient *client = ((gpointer *) data)[0];

  return ow_mcp_client_lookup_tool (client, ((gpointer *) data)[1]) != NULL;
}

/* ---- server-everything ------------------------------------------------ */

static void
test_everything_basics (void)
{
  g_autoptr(OwMcpServerConfig) config = everything_config ();
  g_autoptr(OwMcpCallResult) echo = NULL;
  g_autoptr(OwMcpCallResult) sum = NULL;
  g_autoptr(OwMcpCallResult) missing = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  OwMcpClient *client;
  OwMcpTool *tool;

  client = start_client (config);
  g_assert_cmpstr (ow_mcp_client_get_protocol_version (client), ==, "2025-11-25");
  g_assert_cmpstr (ow_json_get_string (ow_mcp_client_get_server_info (client), "name"), ==,
                   "mcp-servers/everything");
  g_assert_nonnull (ow_mcp_client_get_instructions (client));
  tools = ow_mcp_client_get_tools (client);
  g_assert_cmpuint (tools->len, >=, 10);
  tool = ow_mcp_client_lookup_tool (client, "echo");
  g_assert_nonnull (tool);
  g_assert_nonnull (tool->description);
  g_assert_cmpstr (ow_json_get_string (tool->input_schema, "type"), ==, "object");
  tool = ow_mcp_client_lookup_tool (client, "trigger-long-running-operation");
  g_assert_nonnull (tool);
  g_assert_nonnull (tool->annotations);
  g_assert_true (ow_json_get_bool (tool->annotations, "readOnlyHint", FALSE));

  echo = call_ok (client, "echo", "{\"message\":\"hello, world\"}");
  g_assert_false (echo->is_error);
  g_assert_cmpstr (first_text (echo), ==, "Echo: hello, world");
  sum = call_ok (client, "get-sum", "{\"a\":2,\"b\":40}");
  g_assert_nonnull (strstr (first_text (sum), "42"));

  /* This server reports an unknown tool as a failed tool run. */
  missing = call_ok (client, "no-such-tool", NULL);
  g_assert_true (missing->is_error);
  stop_client (client);
}

static void
test_everything_content_kinds (void)
{
  g_autoptr(OwMcpServerConfig) config = everything_config ();
  g_autoptr(OwMcpCallResult) image = NULL;
  g_autoptr(OwMcpCallResult) links = NULL;
  g_autoptr(OwMcpCallResult) embedded = NULL;
  g_autoptr(OwMcpCallResult) structured = NULL;
  OwMcpClient *client = start_client (config);
  gboolean saw_image = FALSE;
  gboolean saw_link = FALSE;
  gboolean saw_resource = FALSE;

  image = call_ok (client, "get-tiny-image", NULL);
  for (guint i = 0; i < image->content->len; i++)
    {
      OwMcpContent *c = g_ptr_array_index (image->content, i);

      if (c->type == OW_MCP_CONTENT_IMAGE)
        {
          saw_image = TRUE;
          g_assert_cmpstr (c->mime_type, ==, "image/png");
          g_assert_cmpuint (strlen (c->data), >, 16);
        }
    }
  g_assert_true (saw_image);

  links = call_ok (client, "get-resource-links", "{\"count\":2}");
  for (guint i = 0; i < links->content->len; i++)
    {
      OwMcpContent *c = g_ptr_array_index (links->content, i);

      if (c->type == OW_MCP_CONTENT_RESOURCE_LINK)
        {
          saw_link = TRUE;
          g_assert_nonnull (c->uri);
          g_assert_nonnull (c->name);
        }
    }
  g_assert_true (saw_link);

  embedded = call_ok (client, "get-resource-reference", "{\"resourceType\":\"Text\",\"resourceId\":1}");
  for (guint i = 0; i < embedded->content->len; i++)
    {
      OwMcpContent *c = g_ptr_array_index (embedded->content, i);

      if (c->type == OW_MCP_CONTENT_RESOURCE)
        {
          saw_resource = TRUE;
          g_assert_nonnull (c->uri);
          g_assert_nonnull (c->text);
        }
    }
  g_assert_true (saw_resource);

  /* The tool declares an outputSchema; the result passed the check. */
  g_assert_nonnull (ow_mcp_client_lookup_tool (client, "get-structured-content")->output_schema);
  structured = call_ok (client, "get-structured-content", "{\"location\":\"New York\"}");
  g_assert_nonnull (structured->structured_content);
  g_assert_true (json_object_has_member (structured->structured_content, "temperature"));
  stop_client (client);
}

static void
test_everything_progress_and_cancel (void)
{
  g_autoptr(OwMcpServerConfig) config = everything_config ();
  g_autoptr(OwMcpCallResult) done = NULL;
  g_autoptr(OwMcpCallResult) after = NULL;
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  OwMcpClient *client = start_client (config);
  Progress p = { 0, 0, 0, NULL, 0 };
  Progress q = { 0, 0, 0, NULL, 0 };
  g_autoptr(OwMcpCallResult) cancelled = NULL;

  done = call_full (client, "trigger-long-running-operation", "{\"duration\":0.3,\"steps\":3}", &p, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (p.n, ==, 3);
  g_assert_cmpfloat (p.total, ==, 3);
  g_assert_nonnull (strstr (first_text (done), "Steps: 3"));

  /* Cancelled at its first progress step, it ends at once ... */
  q.cancel_on_first = cancel;
  cancelled = call_full (client, "trigger-long-running-operation", "{\"duration\":600,\"steps\":6000}", &q,
                         cancel, &error);
  g_assert_null (cancelled);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (q.n, ==, 1);
  /* ... and the server goes on serving. */
  after = call_ok (client, "echo", "{\"message\":\"still here\"}");
  g_assert_cmpstr (first_text (after), ==, "Echo: still here");
  stop_client (client);
}

static void
test_everything_roots (void)
{
  g_autoptr(OwMcpServerConfig) config = everything_config ();
  g_autoptr(OwMcpCallResult) roots = NULL;
  g_autofree char *folder = g_dir_make_tmp ("ow-mcp-root-XXXXXX", NULL);
  g_autofree char *uri = g_filename_to_uri (folder, NULL, NULL);
  gpointer args[2];
  OwMcpClient *client;

  g_strfreev (config->roots);
  config->roots = g_new0 (char *, 2);
  config->roots[0] = g_strdup (folder);
  client = start_client (config);
  /* The server asks roots/list after initialized, then announces a new
   * tool with list_changed: the client re-lists. */
  args[0] = client;
  args[1] = (gpointer) "get-roots-list";
  ow_test_wait_until (has_tool, args, "the tool get-roots-list");
  roots = call_ok (client, "get-roots-list", NULL);
  g_assert_nonnull (strstr (first_text (roots), uri));
  stop_client (client);
  g_rmdir (folder);
}

static void
test_everything_env (void)
{
  g_autoptr(OwMcpServerConfig) config = everything_config ();
  g_autoptr(OwMcpCallResult) env = NULL;
  OwMcpClient *client;
  const char *text;

  /* A provider key in our environment must not reach the server; what
   * its entry names must (the positive control). */
  g_setenv ("OPENAI_API_KEY", "sk-test-must-not-leak", TRUE);
  g_setenv ("ANTHROPIC_API_KEY", "sk-ant-must-not-leak", TRUE);
  g_strfreev (config->env);
  config->env = g_strsplit ("OW_MCP_ENTRY_VAR=given-by-the-entry", "|", -1);
  client = start_client (config);
  env = call_ok (client, "get-env", NULL);
  text = first_text (env);
  g_assert_nonnull (strstr (text, "given-by-the-entry"));
  g_assert_null (strstr (text, "must-not-leak"));
  g_assert_null (strstr (text, "OPENAI_API_KEY"));
  g_assert_nonnull (strstr (text, "\"PATH\""));
  stop_client (client);
  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("ANTHROPIC_API_KEY");
}

static void
test_everything_kill_mid_call (void)
{
  g_autoptr(OwMcpServerConfig) config = everything_config ();
  g_autoptr(OwMcpCallResult) after = NULL;
  g_autoptr(OwMcpCallResult) lost = NULL;
  g_autoptr(GError) error = NULL;
  OwMcpClient *client = start_client (config);
  int first_pid = ow_mcp_client_get_pid (client);
  Progress p = { 0, 0, 0, NULL, first_pid };

  lost = call_full (client, "trigger-long-running-operation", "{\"duration\":600,\"steps\":6000}", &p, NULL, &error);
  g_assert_null (lost);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_EXITED);
  g_assert_nonnull (strstr (error->message, "“everything”"));
  g_assert_nonnull (strstr (error->message, "signal 9"));
  g_assert_nonnull (strstr (ow_mcp_client_get_last_error (client), "signal 9"));
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_RESTARTING);

  /* A call during the restart is refused clearly, not queued forever. */
  {
    g_autoptr(GError) early = NULL;
    g_autoptr(OwMcpCallResult) none = call_full (client, "echo", NULL, NULL, NULL, &early);

    g_assert_null (none);
    g_assert_error (early, OW_MCP_ERROR, OW_MCP_ERROR_NOT_READY);
  }
  wait_status (client, OW_MCP_STATUS_READY);
  g_assert_cmpint (ow_mcp_client_get_pid (client), !=, first_pid);
  after = call_ok (client, "echo", "{\"message\":\"restarted\"}");
  g_assert_cmpstr (first_text (after), ==, "Echo: restarted");
  stop_client (client);
}

/* ---- The hostile double ----------------------------------------------- */

static void
test_double_old_version_pages (void)
{
  const char *env[] = { "DOUBLE_EARLY_LIST_CHANGED=1", NULL };
  g_autoptr(OwMcpServerConfig) config = double_config (env);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(OwMcpCallResult) stats = NULL;
  g_autoptr(OwMcpCallResult) failed = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwMcpCallResult) unknown = NULL;
  OwMcpClient *client;

  g_strfreev (config->exclude_tools);
  config->exclude_tools = g_strsplit ("crash", ",", -1);
  client = start_client (config);
  g_assert_cmpstr (ow_mcp_client_get_protocol_version (client), ==, "2025-06-18");
  g_assert_cmpstr (ow_mcp_client_get_instructions (client), ==, "A hostile double.");
  /* 15 tools, 2 per page: all of them, in order, but the excluded one. */
  tools = ow_mcp_client_get_tools (client);
  g_assert_cmpuint (tools->len, ==, 14);
  g_assert_cmpstr (((OwMcpTool *) tools->pdata[0])->name, ==, "echo");
  g_assert_cmpstr (((OwMcpTool *) tools->pdata[13])->name, ==, "odd name/with.dots");
  g_assert_null (ow_mcp_client_lookup_tool (client, "crash"));
  /* The list_changed sent before the initialize reply cost no extra listing. */
  stats = call_ok (client, "stats", NULL);
  g_assert_cmpint (ow_json_get_int (stats->structured_content, "listings", -1), ==, 8);

  failed = call_ok (client, "fails", NULL);
  g_assert_true (failed->is_error);
  g_assert_cmpstr (first_text (failed), ==, "the tool failed on purpose");
  unknown = call_full (client, "nope", NULL, NULL, NULL, &error);
  g_assert_null (unknown);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_REMOTE);
  g_assert_nonnull (strstr (error->message, "Unknown tool: nope"));
  stop_client (client);
}

static void
test_double_unknown_version (void)
{
  const char *env[] = { "DOUBLE_VERSION=1999-01-01", NULL };
  g_autoptr(OwMcpServerConfig) config = double_config (env);
  OwMcpClient *client = ow_mcp_client_new (config);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  ow_mcp_client_start_async (client, NULL, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  g_assert_false (ow_mcp_client_start_finish (client, result, &error));
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_VERSION);
  g_assert_nonnull (strstr (error->message, "1999-01-01"));
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_FAILED);
  g_assert_cmpint (ow_mcp_client_get_pid (client), ==, 0);
  g_clear_object (&result);
  g_assert_finalize_object (client);
}

static void
test_double_dies_on_start (void)
{
  const char *env[] = { "DOUBLE_DIE_ON_INIT=1", NULL };
  g_autoptr(OwMcpServerConfig) config = double_config (env);
  g_autoptr(OwMcpServerConfig) missing = ow_mcp_server_config_new ("missing");
  OwMcpClient *client = ow_mcp_client_new (config);
  OwMcpClient *nowhere = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  ow_mcp_client_start_async (client, NULL, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  g_assert_false (ow_mcp_client_start_finish (client, result, &error));
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_EXITED);
  g_assert_nonnull (strstr (error->message, "exited with status 2"));
  /* What the server said on stderr is what a person needs. */
  g_assert_nonnull (strstr (error->message, "missing API token for the double"));
  g_assert_cmpstr (ow_mcp_client_get_last_error (client), ==, error->message);
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_FAILED);
  g_clear_object (&result);
  g_clear_error (&error);
  g_assert_finalize_object (client);

  /* A command that is nowhere on the login PATH. */
  missing->command = g_strdup ("ow-no-such-mcp-server");
  nowhere = ow_mcp_client_new (missing);
  ow_mcp_client_start_async (nowhere, NULL, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  g_assert_false (ow_mcp_client_start_finish (nowhere, result, &error));
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_SPAWN);
  g_assert_nonnull (strstr (error->message, "ow-no-such-mcp-server"));
  g_clear_object (&result);
  g_assert_finalize_object (nowhere);
}

static void
test_double_garbage (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(OwMcpCallResult) r = NULL;
  g_autoptr(OwMcpCallResult) echo = NULL;
  OwMcpClient *client = start_client (config);

  g_assert_null (ow_mcp_client_get_last_error (client));
  r = call_ok (client, "garbage", NULL);
  g_assert_cmpstr (first_text (r), ==, "survived");
  g_assert_nonnull (strstr (ow_mcp_client_get_last_error (client), "not MCP"));
  echo = call_ok (client, "echo", "{\"message\":\"after garbage\"}");
  g_assert_cmpstr (first_text (echo), ==, "echo: after garbage");
  stop_client (client);
}

static void
test_double_huge (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(OwMcpCallResult) fits = NULL;
  g_autoptr(OwMcpCallResult) huge = NULL;
  g_autoptr(OwMcpCallResult) echo = NULL;
  g_autoptr(GError) error = NULL;
  OwMcpClient *client;

  config->max_message_bytes = 1024 * 1024;
  client = start_client (config);
  /* Positive control: under the limit it arrives whole. */
  fits = call_ok (client, "huge", "{\"bytes\":500000}");
  g_assert_cmpuint (strlen (first_text (fits)), ==, 500000);
  /* 64 MiB against a 1 MiB limit: refused, without holding it. */
  huge = call_full (client, "huge", "{\"bytes\":67108864}", NULL, NULL, &error);
  g_assert_null (huge);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "max_message_bytes"));
  echo = call_ok (client, "echo", "{\"message\":\"after huge\"}");
  g_assert_cmpstr (first_text (echo), ==, "echo: after huge");
  stop_client (client);
}

static void
test_double_hang_times_out (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(OwMcpCallResult) hung = NULL;
  g_autoptr(OwMcpCallResult) stats = NULL;
  g_autoptr(GError) error = NULL;
  OwMcpClient *client;
  JsonArray *cancelled;

  config->call_timeout_ms = 300;
  client = start_client (config);
  hung = call_full (client, "hang", NULL, NULL, NULL, &error);
  g_assert_null (hung);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (error->message, "tool_timeout_sec"));
  /* The server was told (notifications/cancelled with the request's id),
   * and answers the next call. */
  stats = call_ok (client, "stats", NULL);
  cancelled = ow_json_get_array (stats->structured_content, "cancelled");
  g_assert_cmpuint (json_array_get_length (cancelled), ==, 1);
  g_assert_cmpint (json_array_get_int_element (cancelled, 0), >, 0);
  stop_client (client);
}

static void
test_double_progress_extends_to_hard_limit (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(OwMcpCallResult) done = NULL;
  g_autoptr(OwMcpCallResult) capped = NULL;
  g_autoptr(GError) error = NULL;
  Progress p = { 0, 0, 0, NULL, 0 };
  Progress q = { 0, 0, 0, NULL, 0 };
  OwMcpClient *client;

  /* 12 steps 0.25 s apart outlast a 2 s timeout, but each step resets it. */
  config->call_timeout_ms = 2000;
  config->call_max_ms = 600000;
  client = start_client (config);
  done = call_full (client, "slow_progress", "{\"count\":12,\"gap\":0.25}", &p, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (p.n, ==, 12);
  g_assert_cmpstr (first_text (done), ==, "done after 12 steps");
  stop_client (client);

  /* Progress forever cannot pass the hard limit. */
  config->call_max_ms = 2500;
  client = start_client (config);
  capped = call_full (client, "slow_progress", "{\"count\":100000,\"gap\":0.05,\"answer\":false}", &q, NULL, &error);
  g_assert_null (capped);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (error->message, "hard limit"));
  g_assert_cmpuint (q.n, >, 0);
  stop_client (client);
}

static void
test_double_cancel_notifies (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(OwMcpCallResult) none = NULL;
  g_autoptr(OwMcpCallResult) stats = NULL;
  g_autoptr(GError) error = NULL;
  Progress p = { 0, 0, 0, cancel, 0 };
  OwMcpClient *client = start_client (config);
  JsonArray *cancelled;

  none = call_full (client, "progress_hang", NULL, &p, cancel, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  stats = call_ok (client, "stats", NULL);
  cancelled = ow_json_get_array (stats->structured_content, "cancelled");
  g_assert_cmpuint (json_array_get_length (cancelled), ==, 1);

  /* Already cancelled: refused before anything is sent. */
  g_clear_error (&error);
  g_clear_pointer (&none, ow_mcp_call_result_free);
  none = call_full (client, "echo", NULL, NULL, cancel, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  stop_client (client);
}

static void
on_tools_changed_cb (OwMcpClient *client,
                     gpointer     user_data)
{
  (*(guint *) user_data)++;
}

static void
test_double_list_changed_storm (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(OwMcpCallResult) storm = NULL;
  g_autoptr(OwMcpCallResult) stats = NULL;
  OwMcpClient *client = start_client (config);
  guint changed = 0;
  guint before = ow_mcp_client_get_n_listings (client);
  gint64 listings;

  g_assert_cmpuint (before, ==, 8);
  g_signal_connect (client, "tools-changed", G_CALLBACK (on_tools_changed_cb), &changed);
  storm = call_ok (client, "storm", "{\"count\":500}");
  g_assert_cmpstr (first_text (storm), ==, "stormed");
  /* stats is answered after every listing request sent before it. */
  stats = call_ok (client, "stats", NULL);
  listings = ow_json_get_int (stats->structured_content, "listings", -1);
  g_assert_cmpint (listings, >, 8);
  /* All 500 notifications reach the client before the reply to its first
   * re-listing page (the double answers in order), so the storm costs one
   * listing in flight plus one queued, and one tools-changed at the end. */
  OW_TEST_WAIT_UNTIL (changed > 0);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_cmpuint (ow_mcp_client_get_n_listings (client), ==, 8 + 2 * 8);
  g_assert_cmpuint (ow_mcp_client_get_tools (client)->len, ==, 15);
  g_ptr_array_unref (ow_mcp_client_get_tools (client));
  stop_client (client);
}

static void
test_double_server_requests (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(OwMcpCallResult) sampling = NULL;
  g_autoptr(OwMcpCallResult) ping = NULL;
  OwMcpClient *client = start_client (config);

  sampling = call_ok (client, "ask_sampling", NULL);
  g_assert_true (g_str_has_prefix (first_text (sampling), "client error -32601: "));
  /* Positive control: the client does answer requests it supports. */
  ping = call_ok (client, "ask_ping", NULL);
  g_assert_cmpstr (first_text (ping), ==, "client result {}");
  stop_client (client);
}

static void
test_double_structured (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(OwMcpCallResult) good = NULL;
  g_autoptr(OwMcpCallResult) bad = NULL;
  g_autoptr(GError) error = NULL;
  OwMcpClient *client = start_client (config);

  good = call_ok (client, "good_structured", NULL);
  g_assert_cmpfloat (json_object_get_double_member (good->structured_content, "temperature"), ==, 21.5);
  bad = call_full (client, "bad_structured", NULL, NULL, NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_INVALID_RESULT);
  g_assert_nonnull (strstr (error->message, "$.temperature"));
  stop_client (client);
}

static void
test_double_crash_restarts (void)
{
  g_autoptr(OwMcpServerConfig) config = double_config (NULL);
  g_autoptr(OwMcpCallResult) crashed = NULL;
  g_autoptr(OwMcpCallResult) echo = NULL;
  g_autoptr(GError) error = NULL;
  OwMcpClient *client = start_client (config);

  crashed = call_full (client, "crash", NULL, NULL, NULL, &error);
  g_assert_null (crashed);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_EXITED);
  g_assert_nonnull (strstr (error->message, "exited with status 3"));
  g_assert_nonnull (strstr (error->message, "boom: the double crashed on purpose"));
  wait_status (client, OW_MCP_STATUS_READY);
  echo = call_ok (client, "echo", "{\"message\":\"back\"}");
  g_assert_cmpstr (first_text (echo), ==, "echo: back");
  stop_client (client);
}


/* ---- Streamable HTTP -------------------------------------------------- */

static guint
free_port (void)
{
  g_autoptr(GSocket) sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (sock, any, TRUE, NULL));
  bound = g_socket_get_local_address (sock, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static gboolean
port_accepts (gpointer data)
{
  /* A bare socket: GSocketClient would consult the proxy settings. */
  g_autoptr(GSocket) sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, (guint16) GPOINTER_TO_UINT (data));

  return g_socket_connect (sock, addr, NULL, NULL);
}

static GSubprocess *
spawn_everything_http (guint port)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                                                       | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autofree char *port_text = g_strdup_printf ("%u", port);
  g_autoptr(GError) error = NULL;
  OwTestWait wait;
  GSubprocess *proc;

  g_subprocess_launcher_setenv (launcher, "PORT", port_text, TRUE);
  proc = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("OW_MCP_NODE") != NULL ? g_getenv ("OW_MCP_NODE") : "node", g_getenv ("OW_MCP_EVERYTHING"),
                                      "streamableHttp", NULL);
  g_assert_no_error (error);
  /* Ready when it accepts connections. */
  ow_test_wait_begin (&wait, NULL, "server-everything to accept connections", G_STRLOC);
  while (!port_accepts (GUINT_TO_POINTER (port)))
    {
      g_assert_null (g_subprocess_get_identifier (proc) == NULL ? "server-everything exited" : NULL);
      ow_test_wait_step (&wait);
    }
  ow_test_wait_end (&wait);
  return proc;
}

static OwMcpServerConfig *
http_config (const char *url)
{
  OwMcpServerConfig *c = ow_mcp_server_config_new ("remote");

  c->transport = OW_MCP_TRANSPORT_HTTP;
  c->url = g_strdup (url);
  g_strfreev (c->headers);
  c->headers = g_strsplit ("X-Custom: yes", "|", -1);
  return c;
}

/* A POST of ping with @session: the status the server answers. */
static guint
post_ping (const char *url,
           const char *session)
{
  g_autoptr(OwHttpClient) http = ow_http_client_new ();
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("POST", url);
  static const char ping[] = "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}";
  g_autoptr(GBytes) body = g_bytes_new_static (ping, strlen (ping));
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(OwHttpResponse) resp = NULL;

  ow_http_request_add_header (req, "Accept", "application/json, text/event-stream");
  ow_http_request_add_header (req, "Mcp-Session-Id", session);
  ow_http_request_add_header (req, "MCP-Protocol-Version", "2025-11-25");
  ow_http_request_set_body (req, body, "application/json");
  ow_http_client_send_async (http, req, NULL, NULL, NULL, NULL, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  resp = ow_http_client_send_finish (http, result, NULL);
  g_assert_nonnull (resp);
  return ow_http_response_get_status (resp);
}

static void
test_http_everything (void)
{
  guint port = free_port ();
  g_autoptr(GSubprocess) server = spawn_everything_http (port);
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/mcp", port);
  g_autoptr(OwMcpServerConfig) config = http_config (url);
  g_autoptr(OwMcpCallResult) echo = NULL;
  g_autoptr(OwMcpCallResult) done = NULL;
  g_autoptr(OwMcpCallResult) cancelled = NULL;
  g_autoptr(OwMcpCallResult) after = NULL;
  g_autoptr(OwMcpCallResult) structured = NULL;
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *session = NULL;
  Progress p = { 0, 0, 0, NULL, 0 };
  Progress q = { 0, 0, 0, cancel, 0 };
  OwMcpClient *client = start_client (config);

  g_assert_cmpstr (ow_mcp_client_get_protocol_version (client), ==, "2025-11-25");
  session = g_strdup (ow_mcp_client_get_session_id (client));
  g_assert_nonnull (session);
  g_assert_nonnull (ow_mcp_client_lookup_tool (client, "echo"));

  echo = call_ok (client, "echo", "{\"message\":\"over http\"}");
  g_assert_cmpstr (first_text (echo), ==, "Echo: over http");
  /* Progress arrives on the call's SSE stream. */
  done = call_full (client, "trigger-long-running-operation", "{\"duration\":0.3,\"steps\":3}", &p, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (p.n, ==, 3);
  cancelled = call_full (client, "trigger-long-running-operation", "{\"duration\":600,\"steps\":6000}", &q,
                         cancel, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  after = call_ok (client, "echo", "{\"message\":\"after cancel\"}");
  g_assert_cmpstr (first_text (after), ==, "Echo: after cancel");
  structured = call_ok (client, "get-structured-content", "{\"location\":\"Chicago\"}");
  g_assert_nonnull (structured->structured_content);

  /* The session is live (positive control), and gone once stop() sent
   * DELETE: this server then answers 400 for its id. */
  g_assert_cmpuint (post_ping (url, session), ==, 200);
  ow_mcp_client_stop (client);
  OW_TEST_WAIT_UNTIL (post_ping (url, session) != 200);
  g_assert_cmpuint (post_ping (url, session), ==, 400);
  g_assert_finalize_object (client);
  g_subprocess_force_exit (server);
  g_subprocess_wait (server, NULL, NULL);
}

typedef struct
{
  GPtrArray *seen;        /* "METHOD rpc-method session protocol custom" lines */
  gboolean   deleted;
  guint      sessions;    /* initialize requests answered */
} Scripted;

static void
on_scripted_cb (SoupServer        *server,
                SoupServerMessage *msg,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  Scripted *s = user_data;
  SoupMessageHeaders *in = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *out = soup_server_message_get_response_headers (msg);
  const char *method = soup_server_message_get_method (msg);
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) flat = soup_message_body_flatten (body);
  g_autoptr(JsonObject) rpc = NULL;
  const char *rpc_method = NULL;
  g_autofree char *reply = NULL;

  if (g_str_equal (path, "/locked")
      && g_strcmp0 (soup_message_headers_get_one (in, "Authorization"), "Bearer good-token") != 0)
    {
      soup_message_headers_append (out, "WWW-Authenticate",
                                   "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\", "
                                   "scope=\"tools:read\"");
      soup_server_message_set_status (msg, 401, NULL);
      return;
    }
  if (g_bytes_get_size (flat) > 0)
    rpc = ow_json_object_from_string (g_bytes_get_data (flat, NULL), (gssize) g_bytes_get_size (flat), NULL);
  if (rpc != NULL)
    rpc_method = ow_json_get_string (rpc, "method");
  if (g_str_equal (path, "/modern"))
    {
      const char *version = soup_message_headers_get_one (in, "MCP-Protocol-Version");
      const char *routed = soup_message_headers_get_one (in, "Mcp-Method");
      gint64 id = rpc != NULL ? ow_json_get_int (rpc, "id", 0) : 0;

      g_ptr_array_add (s->seen, g_strdup_printf ("%s %s %s %s", method, routed ?: "-",
                                                 soup_message_headers_get_one (in, "Mcp-Name") ?: "-",
                                                 version ?: "-"));
      if (!g_str_equal (method, "POST"))
        {
          soup_server_message_set_status (msg, 405, NULL);
          return;
        }
      if (rpc_method == NULL || g_strcmp0 (version, "2026-07-28") != 0 || g_strcmp0 (routed, rpc_method) != 0)
        {
          reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"error\":{\"code\":-32020,"
                                   "\"message\":\"HeaderMismatch\"}}", id);
          soup_server_message_set_status (msg, 400, NULL);
        }
      else if (!json_object_has_member (rpc, "id"))
        {
          soup_server_message_set_status (msg, 202, NULL);
          return;
        }
      else if (g_str_equal (rpc_method, "server/discover"))
        reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"resultType\":"
                                 "\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
                                 "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"modern-http\","
                                 "\"version\":\"1\"}},\"ttlMs\":1000,\"cacheScope\":\"public\"}}", id);
      else if (g_str_equal (rpc_method, "tools/list"))
        reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"resultType\":"
                                 "\"complete\",\"tools\":[{\"name\":\"lookup\",\"inputSchema\":{\"type\":"
                                 "\"object\"}}],\"ttlMs\":1000,\"cacheScope\":\"public\"}}", id);
      else
        reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"resultType\":"
                                 "\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"found\"}]}}", id);
      if (soup_server_message_get_status (msg) == 0)
        soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, reply, strlen (reply));
      return;
    }
  g_ptr_array_add (s->seen, g_strdup_printf ("%s %s %s %s %s", method, rpc_method != NULL ? rpc_method : "-",
                                             soup_message_headers_get_one (in, "Mcp-Session-Id") ?: "-",
                                             soup_message_headers_get_one (in, "MCP-Protocol-Version") ?: "-",
                                             soup_message_headers_get_one (in, "X-Custom") ?: "-"));
  if (g_str_equal (method, "DELETE"))
    {
      s->deleted = TRUE;
      soup_server_message_set_status (msg, 200, NULL);
      return;
    }
  if (g_str_equal (method, "GET"))
    {
      soup_server_message_set_status (msg, 405, NULL);
      return;
    }
  if (rpc == NULL || ow_json_get_string (rpc, "method") == NULL || !json_object_has_member (rpc, "id"))
    {
      soup_server_message_set_status (msg, 202, NULL);
      return;
    }
  if (g_str_equal (path, "/expiring") && g_str_equal (rpc_method, "tools/call"))
    {
      /* The first session expires under the first call; later ones work. */
      if (g_strcmp0 (soup_message_headers_get_one (in, "Mcp-Session-Id"), "sess-1") == 0)
        {
          soup_server_message_set_status (msg, 404, NULL);
          return;
        }
      reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"content\":"
                               "[{\"type\":\"text\",\"text\":\"fresh session\"}]}}", ow_json_get_int (rpc, "id", 0));
    }
  else if (g_str_equal (rpc_method, "initialize"))
    {
      g_autofree char *sid = g_strdup_printf ("sess-%u", ++s->sessions);

      soup_message_headers_append (out, "Mcp-Session-Id", sid);
      reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"protocolVersion\":"
                               "\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"scripted\","
                               "\"version\":\"1\"}}}", ow_json_get_int (rpc, "id", 0));
    }
  else if (g_str_equal (rpc_method, "tools/list"))
    reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"tools\":[{\"name\":"
                             "\"lookup\",\"inputSchema\":{\"type\":\"object\"}}]}}", ow_json_get_int (rpc, "id", 0));
  else
    {
      /* Any other request: an HTTP error with a JSON-RPC error body. */
      reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"error\":{\"code\":-32601,"
                               "\"message\":\"nothing here\"}}", ow_json_get_int (rpc, "id", 0));
      soup_server_message_set_status (msg, 400, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, reply, strlen (reply));
      return;
    }
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, reply, strlen (reply));
}

static void
test_http_headers_and_auth (void)
{
  Scripted s = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwMcpServerConfig) open_config = NULL;
  g_autoptr(OwMcpServerConfig) locked_config = NULL;
  g_autoptr(OwMcpCallResult) refused = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *base = NULL;
  g_autofree char *url = NULL;
  g_autofree char *locked = NULL;
  GSList *uris;
  OwMcpClient *client;
  gboolean saw_listing = FALSE;

  soup_server_add_handler (server, NULL, on_scripted_cb, &s, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  uris = soup_server_get_uris (server);
  base = g_uri_to_string (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  url = g_strconcat (base, "mcp", NULL);
  locked = g_strconcat (base, "locked", NULL);

  /* Positive control: the open endpoint, answering in plain JSON. */
  open_config = http_config (url);
  client = start_client (open_config);
  g_assert_cmpstr (ow_mcp_client_get_protocol_version (client), ==, "2025-06-18");
  g_assert_cmpstr (ow_mcp_client_get_session_id (client), ==, "sess-1");
  g_assert_nonnull (ow_mcp_client_lookup_tool (client, "lookup"));
  refused = call_full (client, "lookup", NULL, NULL, NULL, &error);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_REMOTE);
  g_assert_nonnull (strstr (error->message, "nothing here"));
  g_clear_error (&error);
  ow_mcp_client_stop (client);
  ow_test_wait_flag (&s.deleted);
  g_assert_finalize_object (client);

  /* What went over the wire: the session and the agreed version on every
   * request after initialize, the configured header on all. */
  g_assert_cmpstr (s.seen->pdata[0], ==, "POST initialize - - yes");
  for (guint i = 1; i < s.seen->len; i++)
    {
      const char *line = s.seen->pdata[i];

      g_assert_true (g_str_has_suffix (line, " sess-1 2025-06-18 yes"));
      saw_listing |= g_str_has_prefix (line, "POST tools/list ");
    }
  g_assert_true (saw_listing);
  g_assert_cmpstr (s.seen->pdata[s.seen->len - 1], ==, "DELETE - sess-1 2025-06-18 yes");

  /* 401: the status says sign-in is needed and the challenge is kept. */
  locked_config = http_config (locked);
  client = ow_mcp_client_new (locked_config);
  ow_mcp_client_start_async (client, NULL, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  g_assert_false (ow_mcp_client_start_finish (client, result, &error));
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_AUTH_REQUIRED);
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_AUTH_REQUIRED);
  g_assert_nonnull (strstr (ow_mcp_client_get_auth_challenge (client), "resource_metadata="));
  g_assert_nonnull (strstr (ow_mcp_client_get_auth_challenge (client), "scope=\"tools:read\""));
  g_clear_object (&result);

  /* Positive control: with the token the server wants, the same client
   * connects (the endpoint then answers like the open one). */
  g_clear_error (&error);
  ow_mcp_client_set_access_token (client, "wrong-token");
  ow_mcp_client_start_async (client, NULL, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  g_assert_false (ow_mcp_client_start_finish (client, result, &error));
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_AUTH_REQUIRED);
  g_clear_error (&error);
  g_clear_object (&result);
  ow_mcp_client_set_access_token (client, "good-token");
  ow_mcp_client_start_async (client, NULL, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  g_assert_true (ow_mcp_client_start_finish (client, result, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_READY);
  g_clear_object (&result);
  s.deleted = FALSE;
  ow_mcp_client_stop (client);
  ow_test_wait_flag (&s.deleted);
  g_assert_finalize_object (client);

  /* A session that expires (404) fails the call in flight and starts a
   * new one: initialize again, without the old id. */
  {
    g_autofree char *expiring = g_strconcat (base, "expiring", NULL);
    g_autoptr(OwMcpServerConfig) expiring_config = http_config (expiring);
    g_autoptr(OwMcpCallResult) lost = NULL;
    g_autoptr(OwMcpCallResult) fresh = NULL;

    s.sessions = 0;
    g_clear_error (&error);
    client = start_client (expiring_config);
    g_assert_cmpstr (ow_mcp_client_get_session_id (client), ==, "sess-1");
    lost = call_full (client, "lookup", NULL, NULL, NULL, &error);
    g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_EXITED);
    g_assert_nonnull (strstr (error->message, "ended its session (HTTP 404)"));
    g_clear_error (&error);
    wait_status (client, OW_MCP_STATUS_READY);
    g_assert_cmpstr (ow_mcp_client_get_session_id (client), ==, "sess-2");
    fresh = call_ok (client, "lookup", NULL);
    g_assert_cmpstr (first_text (fresh), ==, "fresh session");
    s.deleted = FALSE;
    ow_mcp_client_stop (client);
    ow_test_wait_flag (&s.deleted);
    g_assert_cmpstr (s.seen->pdata[s.seen->len - 1], ==, "DELETE - sess-2 2025-06-18 yes");
    g_assert_finalize_object (client);
  }

  /* The 2026-07-28 generation over HTTP: every POST is routed by its
   * headers (the double answers HeaderMismatch otherwise); no GET stream,
   * no session, no DELETE. */
  {
    g_autofree char *modern = g_strconcat (base, "modern", NULL);
    g_autoptr(OwMcpServerConfig) modern_config = http_config (modern);
    g_autoptr(OwMcpCallResult) found = NULL;

    g_ptr_array_set_size (s.seen, 0);
    client = start_client (modern_config);
    g_assert_cmpstr (ow_mcp_client_get_protocol_version (client), ==, "2026-07-28");
    g_assert_cmpstr (ow_json_get_string (ow_mcp_client_get_server_info (client), "name"), ==, "modern-http");
    found = call_ok (client, "lookup", NULL);
    g_assert_cmpstr (first_text (found), ==, "found");
    ow_mcp_client_stop (client);
    g_assert_finalize_object (client);
    /* initialize is refused (HeaderMismatch), then server/discover. */
    g_assert_cmpuint (s.seen->len, ==, 4);
    g_assert_cmpstr (s.seen->pdata[0], ==, "POST - - -");
    g_assert_cmpstr (s.seen->pdata[1], ==, "POST server/discover - 2026-07-28");
    g_assert_cmpstr (s.seen->pdata[2], ==, "POST tools/list - 2026-07-28");
    g_assert_cmpstr (s.seen->pdata[3], ==, "POST tools/call lookup 2026-07-28");
  }
  g_ptr_array_unref (s.seen);
}

/* ---- The 2026-07-28 generation ---------------------------------------- */

static void
test_modern_stdio (void)
{
  const char *env[] = { "DOUBLE_MODERN=1", NULL };
  g_autoptr(OwMcpServerConfig) config = double_config (env);
  g_autoptr(OwMcpCallResult) echo = NULL;
  g_autoptr(OwMcpCallResult) meta = NULL;
  g_autoptr(OwMcpCallResult) input = NULL;
  g_autoptr(GError) error = NULL;
  OwMcpClient *client = start_client (config);

  g_assert_cmpstr (ow_mcp_client_get_protocol_version (client), ==, "2026-07-28");
  g_assert_cmpstr (ow_json_get_string (ow_mcp_client_get_server_info (client), "name"), ==, "mcp-double-modern");
  g_assert_cmpstr (ow_mcp_client_get_instructions (client), ==, "A modern double.");
  g_assert_nonnull (ow_mcp_client_lookup_tool (client, "needs_input"));
  /* The double refuses any request without the _meta keys: this passing
   * is the proof they are sent. */
  echo = call_ok (client, "echo", "{\"message\":\"stateless\"}");
  g_assert_cmpstr (first_text (echo), ==, "echo: stateless");
  meta = call_ok (client, "meta", NULL);
  g_assert_nonnull (strstr (first_text (meta), "\"io.modelcontextprotocol/clientInfo\": {\"name\": \"openworker\""));
  input = call_full (client, "needs_input", NULL, NULL, NULL, &error);
  g_assert_null (input);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "more input"));
  stop_client (client);
}

static void
test_modern_legacy_first (void)
{
  const char *env[] = { "DOUBLE_SILENT_DISCOVER=1", NULL };
  g_autoptr(OwMcpServerConfig) config = double_config (env);
  g_autoptr(OwMcpCallResult) echo = NULL;
  OwMcpClient *client;

  /* A 2025 server is never asked server/discover (this one would never
   * answer it): initialize goes first and succeeds. */
  client = start_client (config);
  g_assert_cmpstr (ow_mcp_client_get_protocol_version (client), ==, "2025-06-18");
  g_assert_null (ow_mcp_client_get_last_error (client));
  echo = call_ok (client, "echo", "{\"message\":\"legacy\"}");
  g_assert_cmpstr (first_text (echo), ==, "echo: legacy");
  stop_client (client);
}

/* What kill (@pid, 0) says: 0 while @pid exists, else its errno. */
static int
probe_errno (int pid)
{
  return kill (pid, 0) == 0 ? 0 : errno;
}

/* The server goes with us even when we die without stop(): the child
 * started it with PR_SET_PDEATHSIG. */
static void
test_double_dies_with_us (void)
{
  if (g_test_subprocess ())
    {
      /* It ignores the end of its stdin: only the death signal ends it. */
      const char *env[] = { "DOUBLE_IGNORE_EOF=1", NULL };
      g_autoptr(OwMcpServerConfig) config = double_config (env);
      OwMcpClient *client = start_client (config);
      g_autofree char *path = g_strdup_printf ("%s/ow-mcp-pid-%d", g_get_tmp_dir (), (int) getppid ());
      g_autofree char *text = g_strdup_printf ("%d", ow_mcp_client_get_pid (client));

      g_assert_true (g_file_set_contents (path, text, -1, NULL));
      _exit (0);
    }
  else
    {
      g_autofree char *path = g_strdup_printf ("%s/ow-mcp-pid-%d", g_get_tmp_dir (), (int) getpid ());
      g_autofree char *text = NULL;
      int pid;
      int err;

      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      g_unlink (path);
      pid = atoi (text);
      g_assert_cmpint (pid, >, 0);
      /* Orphaned, it is reaped by init (or the nearest subreaper) once the
       * signal ends it. */
      OW_TEST_WAIT_UNTIL ((err = probe_errno (pid)) != 0);
      g_assert_cmpint (err, ==, ESRCH);
    }
}

static void
on_path_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(char **) user_data = ow_mcp_login_path_finish (result, NULL);
}

static void
test_login_path (void)
{
  g_autofree char *path = NULL;
  g_autofree char *again = NULL;
  g_autofree char *fixed = NULL;

  ow_mcp_login_path_set_for_testing (NULL);
  ow_mcp_login_path_async (NULL, on_path_cb, &path);
  OW_TEST_WAIT_UNTIL (path != NULL);
  /* A login shell's PATH holds the system folders; our own entries follow. */
  g_assert_nonnull (strstr (path, "/usr/bin"));
  ow_mcp_login_path_async (NULL, on_path_cb, &again);
  OW_TEST_WAIT_UNTIL (again != NULL);
  g_assert_cmpstr (again, ==, path);
  ow_mcp_login_path_set_for_testing ("/fixed/bin");
  ow_mcp_login_path_async (NULL, on_path_cb, &fixed);
  OW_TEST_WAIT_UNTIL (fixed != NULL);
  g_assert_cmpstr (fixed, ==, "/fixed/bin");
  ow_mcp_login_path_set_for_testing (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/mcp/client/login-path", test_login_path);
  g_test_add_func ("/ow/mcp/everything/basics", test_everything_basics);
  g_test_add_func ("/ow/mcp/everything/content-kinds", test_everything_content_kinds);
  g_test_add_func ("/ow/mcp/everything/progress-and-cancel", test_everything_progress_and_cancel);
  g_test_add_func ("/ow/mcp/everything/roots", test_everything_roots);
  g_test_add_func ("/ow/mcp/everything/env", test_everything_env);
  g_test_add_func ("/ow/mcp/everything/kill-mid-call", test_everything_kill_mid_call);
  g_test_add_func ("/ow/mcp/double/old-version-pages", test_double_old_version_pages);
  g_test_add_func ("/ow/mcp/double/unknown-version", test_double_unknown_version);
  g_test_add_func ("/ow/mcp/double/dies-on-start", test_double_dies_on_start);
  g_test_add_func ("/ow/mcp/double/garbage", test_double_garbage);
  g_test_add_func ("/ow/mcp/double/huge", test_double_huge);
  g_test_add_func ("/ow/mcp/double/hang-times-out", test_double_hang_times_out);
  g_test_add_func ("/ow/mcp/double/progress-extends-to-hard-limit", test_double_progress_extends_to_hard_limit);
  g_test_add_func ("/ow/mcp/double/cancel-notifies", test_double_cancel_notifies);
  g_test_add_func ("/ow/mcp/double/list-changed-storm", test_double_list_changed_storm);
  g_test_add_func ("/ow/mcp/double/server-requests", test_double_server_requests);
  g_test_add_func ("/ow/mcp/double/structured", test_double_structured);
  g_test_add_func ("/ow/mcp/double/crash-restarts", test_double_crash_restarts);
  g_test_add_func ("/ow/mcp/double/dies-with-us", test_double_dies_with_us);
  g_test_add_func ("/ow/mcp/modern/stdio", test_modern_stdio);
  g_test_add_func ("/ow/mcp/modern/legacy-first", test_modern_legacy_first);
  g_test_add_func ("/ow/mcp/http/everything", test_http_everything);
  g_test_add_func ("/ow/mcp/http/headers-and-auth", test_http_headers_and_auth);
  return g_test_run ();
}
