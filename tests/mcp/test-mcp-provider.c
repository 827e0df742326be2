/* test-mcp-provider.c: OwMcpProvider, one MCP server's tools as a tool
 * provider, against mcp-double.py over stdio.
 *
 * The double runs with DOUBLE_PROVIDER (its extra tools: an annotated
 * read-only one, one that answers every kind of content block, one that
 * answers a JSON-RPC error, two that add or remove a tool and say
 * list_changed, and two whose names collide once sanitized) and DOUBLE_PAGE=100 (one listing page). Everything is
 * checked through the tool seam only (GListModel, OwTool, OwToolResult),
 * as a session sees it. Nothing waits for a duration: every wait is on
 * a condition (ow-test-utils.h).
 */
#include <string.h>

#include <glib/gstdio.h>

#include "mcp/ow-mcp-provider.h"
#include "ow-error.h"
#include "ow-json.h"
#include "ow-test-utils.h"

/* The double's tools under DOUBLE_PROVIDER, as the model sees them, in
 * the order the provider must give them (by name; the server lists them
 * in another order, echo first). */
static const char *const all_names[] = {
  "mcp__double__ask_ping",
  "mcp__double__ask_sampling",
  "mcp__double__bad_structured",
  "mcp__double__crash",
  "mcp__double__dup_name",
  "mcp__double__dup_name_2",
  "mcp__double__echo",
  "mcp__double__fails",
  "mcp__double__garbage",
  "mcp__double__good_structured",
  "mcp__double__grow",
  "mcp__double__hang",
  "mcp__double__huge",
  "mcp__double__odd_name_with_dots",
  "mcp__double__peek",
  "mcp__double__progress_hang",
  "mcp__double__refuse",
  "mcp__double__rich",
  "mcp__double__shrink",
  "mcp__double__slow_progress",
  "mcp__double__stats",
  "mcp__double__storm",
};

/* What rich's image block carries, base64-decoded (see mcp-double.py). */
static const char pixels[] = "\x89PNG\r\n\x1a\n\x00\xff\xfe owtest";

/* ---- Starting the double ---------------------------------------------- */

static void
on_result_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static const char *
double_script (void)
{
  const char *script = g_getenv ("OW_MCP_DOUBLE");

  g_assert_nonnull (script);
  return script;
}

static OwMcpServerConfig *
double_config (const char *name)
{
  OwMcpServerConfig *c = ow_mcp_server_config_new (name);

  c->command = g_strdup ("python3");
  g_strfreev (c->args);
  c->args = g_new0 (char *, 2);
  c->args[0] = g_strdup (double_script ());
  g_strfreev (c->env);
  c->env = g_new0 (char *, 3);
  c->env[0] = g_strdup ("DOUBLE_PROVIDER=1");
  c->env[1] = g_strdup ("DOUBLE_PAGE=100");
  return c;
}

typedef struct
{
  OwMcpClient   *client;
  OwMcpProvider *provider;
  guint          changes;       /* items-changed emissions seen */
  guint          position;      /* of the last one */
  guint          removed;
  guint          added;
} Fixture;

static void
on_items_changed_cb (GListModel *model,
                     guint       position,
                     guint       removed,
                     guint       added,
                     gpointer    user_data)
{
  Fixture *f = user_data;

  f->changes++;
  f->position = position;
  f->removed = removed;
  f->added = added;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(OwMcpServerConfig) config = double_config ("double");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  f->client = ow_mcp_client_new (config);
  ow_mcp_client_start_async (f->client, NULL, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  g_assert_true (ow_mcp_client_start_finish (f->client, result, &error));
  g_assert_no_error (error);
  f->provider = ow_mcp_provider_new (f->client);
  g_assert_true (ow_mcp_provider_get_client (f->provider) == f->client);
  g_signal_connect (f->provider, "items-changed", G_CALLBACK (on_items_changed_cb), f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  if (f->client != NULL)
    ow_mcp_client_stop (f->client);
  if (f->provider != NULL)
    g_assert_finalize_object (f->provider);
  if (f->client != NULL)
    g_assert_finalize_object (f->client);
}

/* ---- Helpers ---------------------------------------------------------- */

/* The items' names, space-separated. */
static char *
item_names (GListModel *model)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(OwTool) tool = g_list_model_get_item (model, i);

      if (s->len > 0)
        g_string_append_c (s, ' ');
      g_string_append (s, ow_tool_get_name (tool));
    }
  return g_string_free (s, FALSE);
}

/* For g_ptr_array_sort () of strings: it passes pointers to the elements. */
static int
by_string (gconstpointer a,
           gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* @names without @skip, plus @extra, sorted, space-separated. */
static char *
expected_names (const char *skip,
                const char *extra)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (all_names); i++)
    if (g_strcmp0 (all_names[i], skip) != 0)
      g_ptr_array_add (names, (gpointer) all_names[i]);
  if (extra != NULL)
    g_ptr_array_add (names, (gpointer) extra);
  g_ptr_array_sort (names, by_string);
  for (guint i = 0; i < names->len; i++)
    {
      if (s->len > 0)
        g_string_append_c (s, ' ');
      g_string_append (s, g_ptr_array_index (names, i));
    }
  return g_strdup (s->str);
}

static OwTool *
tool_named (Fixture    *f,
            const char *name)
{
  OwTool *tool = ow_tool_provider_lookup (OW_TOOL_PROVIDER (f->provider), name);

  g_assert_nonnull (tool);
  return tool;
}

static OwToolResult *
call (OwTool             *tool,
      const char         *args_json,
      GCancellable       *cancellable,
      OwToolProgressFunc  progress,
      gpointer            progress_data,
      GError            **error)
{
  g_autoptr(JsonObject) args = ow_json_object_from_string (args_json != NULL ? args_json : "{}", -1, NULL);
  g_autoptr(GAsyncResult) result = NULL;

  g_assert_nonnull (args);
  ow_tool_call_async (tool, NULL, args, cancellable, progress, progress_data, on_result_cb, &result);
  OW_TEST_WAIT_UNTIL (result != NULL);
  return ow_tool_call_finish (tool, result, error);
}

static OwToolResult *
call_ok (Fixture    *f,
         const char *name,
         const char *args_json)
{
  g_autoptr(OwTool) tool = tool_named (f, name);
  g_autoptr(GError) error = NULL;
  OwToolResult *r = call (tool, args_json, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (r);
  return r;
}

/* The message of an error result ({"error": "…"}, as the model reads it). */
static char *
error_message (const OwToolResult *r)
{
  g_autoptr(JsonObject) obj = ow_json_object_from_string (r->text, -1, NULL);

  g_assert_nonnull (obj);
  return g_strdup (ow_json_get_string (obj, "error"));
}

/* ---- The items -------------------------------------------------------- */

static void
test_items (Fixture       *f,
            gconstpointer  data)
{
  GListModel *model = G_LIST_MODEL (f->provider);
  g_autoptr(GPtrArray) listed = ow_mcp_client_get_tools (f->client);
  g_autofree char *names = item_names (model);
  g_autofree char *expected = expected_names (NULL, NULL);
  g_autoptr(OwTool) first = NULL;

  g_assert_cmpstr (ow_tool_provider_get_source (OW_TOOL_PROVIDER (f->provider)), ==, "mcp:double");
  g_assert_true (g_list_model_get_item_type (model) == OW_TYPE_TOOL);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, G_N_ELEMENTS (all_names));
  g_assert_null (g_list_model_get_item (model, G_N_ELEMENTS (all_names)));
  /* Sorted by name, though the server lists them in its own order. */
  g_assert_cmpstr (names, ==, expected);
  g_assert_cmpuint (listed->len, ==, G_N_ELEMENTS (all_names));
  g_assert_cmpstr (((OwMcpTool *) g_ptr_array_index (listed, 0))->name, ==, "echo");
  first = g_list_model_get_item (model, 0);
  g_assert_cmpstr (ow_tool_get_name (first), ==, "mcp__double__ask_ping");

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(OwTool) tool = g_list_model_get_item (model, i);

      g_assert_cmpstr (ow_tool_get_source (tool), ==, "mcp:double");
      g_assert_cmpint (ow_tool_get_risk (tool), ==, OW_RISK_EXTERNAL);
      g_assert_cmpint (ow_tool_get_kind (tool), ==, OW_TOOL_KIND_EXECUTE);
    }

  /* The server's names behind the model's. */
  g_assert_cmpstr (ow_mcp_provider_server_tool_name (f->provider, "mcp__double__odd_name_with_dots"), ==,
                   "odd name/with.dots");
  g_assert_cmpstr (ow_mcp_provider_server_tool_name (f->provider, "mcp__double__echo"), ==, "echo");
  g_assert_null (ow_mcp_provider_server_tool_name (f->provider, "mcp__double__nothing"));
  /* Two names that sanitize alike: the first the server lists keeps the
   * plain name, the second gets a suffix, and each calls its own. */
  g_assert_cmpstr (ow_mcp_provider_server_tool_name (f->provider, "mcp__double__dup_name"), ==, "dup.name");
  g_assert_cmpstr (ow_mcp_provider_server_tool_name (f->provider, "mcp__double__dup_name_2"), ==, "dup_name");
  {
    g_autoptr(OwToolResult) plain = call_ok (f, "mcp__double__dup_name", NULL);
    g_autoptr(OwToolResult) second = call_ok (f, "mcp__double__dup_name_2", NULL);

    g_assert_cmpstr (plain->text, ==, "I am dup.name");
    g_assert_cmpstr (second->text, ==, "I am dup_name");
  }
  g_assert_null (ow_mcp_provider_server_tool_name (f->provider, "echo"));
}

/* readOnlyHint is the server's word: it is passed on, and the risk stays
 * external. */
static void
test_annotations_never_lower_risk (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(OwTool) peek = tool_named (f, "mcp__double__peek");
  g_autoptr(OwTool) echo = tool_named (f, "mcp__double__echo");
  g_autoptr(OwTool) rich = tool_named (f, "mcp__double__rich");
  JsonObject *annotations = ow_tool_get_annotations (peek);

  /* The control: the annotations did arrive, saying read-only. */
  g_assert_nonnull (annotations);
  g_assert_true (json_object_get_boolean_member (annotations, "readOnlyHint"));
  g_assert_false (json_object_get_boolean_member (annotations, "destructiveHint"));
  g_assert_cmpstr (ow_tool_get_title (peek), ==, "Peek at things");
  g_assert_cmpint (ow_tool_get_risk (peek), ==, OW_RISK_EXTERNAL);

  /* The rest of the listing is passed on too. */
  g_assert_null (ow_tool_get_annotations (echo));
  g_assert_cmpstr (ow_tool_get_description (echo), ==, "Echoes its message.");
  g_assert_nonnull (ow_tool_get_input_schema (echo));
  g_assert_nonnull (ow_json_get_object (ow_tool_get_input_schema (echo), "properties"));
  g_assert_null (ow_tool_get_output_schema (echo));
  g_assert_nonnull (ow_tool_get_output_schema (rich));

  /* What the model is offered: the full name, the server's description
   * and input schema. */
  {
    JsonObject *fn = ow_json_get_object (ow_tool_get_schema (echo), "function");

    g_assert_nonnull (fn);
    g_assert_cmpstr (ow_json_get_string (fn, "name"), ==, "mcp__double__echo");
    g_assert_cmpstr (ow_json_get_string (fn, "description"), ==, "Echoes its message.");
    g_assert_true (ow_json_get_object (fn, "parameters") == ow_tool_get_input_schema (echo));
  }
}

/* ---- list_changed ----------------------------------------------------- */

static void
test_list_changed (Fixture       *f,
                   gconstpointer  data)
{
  GListModel *model = G_LIST_MODEL (f->provider);
  guint before = g_list_model_get_n_items (model);
  g_autoptr(OwToolResult) grew = NULL;
  g_autoptr(OwToolResult) shrank = NULL;
  g_autoptr(OwToolResult) peeked = NULL;
  g_autoptr(OwToolResult) again = NULL;
  g_autofree char *grown = expected_names (NULL, "mcp__double__grown");
  g_autofree char *shrunk = expected_names ("mcp__double__echo", "mcp__double__grown");
  g_autofree char *names = NULL;
  g_autoptr(OwTool) added = NULL;

  g_assert_cmpuint (f->changes, ==, 0);

  /* A tool added: the whole set replaced in one change. */
  grew = call_ok (f, "mcp__double__grow", NULL);
  g_assert_cmpstr (grew->text, ==, "grew");
  OW_TEST_WAIT_UNTIL (f->changes > 0);
  /* A later round trip and whatever is ready bring no second change. */
  peeked = call_ok (f, "mcp__double__peek", NULL);
  ow_test_drain ();
  g_assert_cmpuint (f->changes, ==, 1);
  g_assert_cmpuint (f->position, ==, 0);
  g_assert_cmpuint (f->removed, ==, before);
  g_assert_cmpuint (f->added, ==, before + 1);
  names = item_names (model);
  g_assert_cmpstr (names, ==, grown);
  added = tool_named (f, "mcp__double__grown");
  g_assert_cmpstr (ow_tool_get_source (added), ==, "mcp:double");
  g_assert_cmpint (ow_tool_get_risk (added), ==, OW_RISK_EXTERNAL);
  /* A collision's suffix stays on the same tool from listing to listing. */
  g_assert_cmpstr (ow_mcp_provider_server_tool_name (f->provider, "mcp__double__dup_name"), ==, "dup.name");
  g_assert_cmpstr (ow_mcp_provider_server_tool_name (f->provider, "mcp__double__dup_name_2"), ==, "dup_name");

  /* A tool removed. */
  shrank = call_ok (f, "mcp__double__shrink", NULL);
  g_assert_cmpstr (shrank->text, ==, "shrank");
  OW_TEST_WAIT_UNTIL (f->changes > 1);
  again = call_ok (f, "mcp__double__peek", NULL);
  ow_test_drain ();
  g_assert_cmpuint (f->changes, ==, 2);
  g_assert_cmpuint (f->position, ==, 0);
  g_assert_cmpuint (f->removed, ==, before + 1);
  g_assert_cmpuint (f->added, ==, before);
  g_clear_pointer (&names, g_free);
  names = item_names (model);
  g_assert_cmpstr (names, ==, shrunk);
  g_assert_null (ow_tool_provider_lookup (OW_TOOL_PROVIDER (f->provider), "mcp__double__echo"));
  g_assert_null (ow_mcp_provider_server_tool_name (f->provider, "mcp__double__echo"));
}

/* ---- Calls ------------------------------------------------------------ */

static void
test_call_content (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(OwToolResult) rich = call_ok (f, "mcp__double__rich", NULL);
  g_autoptr(OwToolResult) echo = call_ok (f, "mcp__double__echo", "{\"message\": \"through the seam\"}");
  g_autoptr(OwToolResult) fails = call_ok (f, "mcp__double__fails", NULL);
  g_autoptr(OwToolResult) odd = call_ok (f, "mcp__double__odd_name_with_dots", NULL);
  OwContentBlock *text;
  OwContentBlock *image;
  OwContentBlock *link;

  g_assert_cmpint (rich->status, ==, OW_TOOL_STATUS_OK);
  g_assert_false (rich->is_error);
  g_assert_nonnull (rich->content);
  g_assert_cmpuint (rich->content->len, ==, 3);
  text = g_ptr_array_index (rich->content, 0);
  image = g_ptr_array_index (rich->content, 1);
  link = g_ptr_array_index (rich->content, 2);
  g_assert_cmpint (text->kind, ==, OW_CONTENT_TEXT);
  g_assert_cmpstr (text->text, ==, "a picture and a report");
  /* The image arrives as its bytes, not as base64 text. */
  g_assert_cmpint (image->kind, ==, OW_CONTENT_IMAGE);
  g_assert_cmpstr (image->mime_type, ==, "image/png");
  g_assert_nonnull (image->data);
  g_assert_cmpmem (g_bytes_get_data (image->data, NULL), g_bytes_get_size (image->data),
                   pixels, sizeof pixels - 1);
  g_assert_cmpint (link->kind, ==, OW_CONTENT_RESOURCE_LINK);
  g_assert_cmpstr (link->uri, ==, "file:///srv/report.txt");
  g_assert_cmpstr (link->name, ==, "report.txt");
  g_assert_cmpstr (link->mime_type, ==, "text/plain");
  g_assert_nonnull (rich->structured);
  g_assert_cmpfloat (json_object_get_double_member (rich->structured, "temperature"), ==, 3.5);
  g_assert_cmpstr (ow_json_get_string (rich->structured, "conditions"), ==, "snow");
  g_assert_true (g_str_has_prefix (rich->text, "a picture and a report\n"));

  /* The arguments go as they are. */
  g_assert_cmpint (echo->status, ==, OW_TOOL_STATUS_OK);
  g_assert_cmpstr (echo->text, ==, "echo: through the seam");
  g_assert_null (echo->structured);

  /* isError: the tool ran and says it failed. */
  g_assert_true (fails->is_error);
  g_assert_cmpint (fails->status, ==, OW_TOOL_STATUS_ERROR);
  g_assert_cmpstr (fails->text, ==, "the tool failed on purpose");

  /* The server's own name is the one called. The double answers a name it
   * does not know with a JSON-RPC error, so an OK result is the proof. */
  g_assert_cmpint (odd->status, ==, OW_TOOL_STATUS_OK);
  g_assert_cmpstr (odd->text, ==, "called by its own name");
}

typedef struct
{
  guint         n;
  double        last;
  double        total;
  char         *message;
  GCancellable *cancel_on_first;
} Progress;

static void
on_progress (double      progress,
             double      total,
             const char *message,
             gpointer    user_data)
{
  Progress *p = user_data;

  p->n++;
  p->last = progress;
  p->total = total;
  g_free (p->message);
  p->message = g_strdup (message);
  if (p->cancel_on_first != NULL)
    g_cancellable_cancel (p->cancel_on_first);
}

static void
test_call_progress (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(OwTool) tool = tool_named (f, "mcp__double__slow_progress");
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(GError) error = NULL;
  Progress p = { 0 };

  r = call (tool, "{\"count\": 3, \"gap\": 0.01}", NULL, on_progress, &p, &error);
  g_assert_no_error (error);
  g_assert_nonnull (r);
  g_assert_cmpstr (r->text, ==, "done after 3 steps");
  g_assert_cmpuint (p.n, ==, 3);
  g_assert_cmpfloat (p.last, ==, 3);
  g_assert_cmpfloat (p.total, ==, 3);
  g_assert_cmpstr (p.message, ==, "step");
  g_free (p.message);
}

/* A tool taken from the provider (a turn holds its tools) keeps working
 * after the provider is dropped (the session ended, the server was
 * removed), even when nothing else holds the client; the client goes with
 * the last tool. */
static void
test_tool_outlives_provider (Fixture       *f,
                             gconstpointer  data)
{
  OwTool *tool = tool_named (f, "mcp__double__slow_progress");
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(GError) error = NULL;
  Progress p = { 0 };
  OwMcpClient *client = g_steal_pointer (&f->client);

  g_object_add_weak_pointer (G_OBJECT (client), (gpointer *) &client);
  g_object_unref (client);
  g_signal_handlers_disconnect_by_data (f->provider, f);
  g_assert_finalize_object (g_steal_pointer (&f->provider));
  g_assert_nonnull (client);

  r = call (tool, "{\"count\": 3, \"gap\": 0.01}", NULL, on_progress, &p, &error);
  g_assert_no_error (error);
  g_assert_nonnull (r);
  g_assert_cmpstr (r->text, ==, "done after 3 steps");
  g_assert_cmpuint (p.n, ==, 3);
  g_free (p.message);
  g_assert_finalize_object (tool);
  g_assert_null (client);
}

/* A JSON-RPC error is a result the model reads, naming the server. */
static void
test_call_remote_error (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(OwTool) tool = tool_named (f, "mcp__double__refuse");
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  r = call (tool, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (r);
  g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_ERROR);
  message = error_message (r);
  g_assert_nonnull (message);
  g_assert_true (g_str_has_prefix (message, "MCP server \"double\" could not run refuse: "));
  g_assert_nonnull (strstr (message, "the double refuses on purpose"));
}

/* A server that dies in a call: an error result naming the server; the
 * client starts it again and the next call works. */
static void
test_call_crash (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(OwTool) tool = tool_named (f, "mcp__double__crash");
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(OwToolResult) after = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  r = call (tool, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (r);
  g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_ERROR);
  message = error_message (r);
  g_assert_nonnull (message);
  g_assert_true (g_str_has_prefix (message, "MCP server \"double\" could not run crash: "));
  g_assert_nonnull (strstr (message, "boom: the double crashed on purpose"));

  OW_TEST_WAIT_UNTIL (ow_mcp_client_get_status (f->client) == OW_MCP_STATUS_READY);
  after = call_ok (f, "mcp__double__echo", "{\"message\": \"back\"}");
  g_assert_cmpstr (after->text, ==, "echo: back");
}

/* A stopped turn cancels the call: G_IO_ERROR_CANCELLED, not a result,
 * and the server is told. */
static void
test_call_cancelled (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(OwTool) tool = tool_named (f, "mcp__double__progress_hang");
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(OwToolResult) stats = NULL;
  g_autoptr(GError) error = NULL;
  Progress p = { 0, 0, 0, NULL, cancel };
  JsonArray *cancelled;

  /* Cancelled once the server shows it has the call (its first progress). */
  r = call (tool, NULL, cancel, on_progress, &p, &error);
  g_assert_null (r);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (p.n, ==, 1);
  g_free (p.message);

  stats = call_ok (f, "mcp__double__stats", NULL);
  g_assert_nonnull (stats->structured);
  cancelled = ow_json_get_array (stats->structured, "cancelled");
  g_assert_nonnull (cancelled);
  g_assert_cmpuint (json_array_get_length (cancelled), ==, 1);
}

/* ---- Starting the configured servers ---------------------------------- */

static void
test_start_servers (void)
{
  g_autofree char *script = g_strescape (double_script (), NULL);
  g_autofree char *text = g_strdup_printf (
    "{\"mcpServers\": {"
    "  \"alpha\": {\"command\": \"python3\", \"args\": [\"%s\"]},"
    "  \"broken\": {\"args\": [\"no command\"]},"
    "  \"dead\": {\"command\": \"python3\", \"args\": [\"%s\"], \"env\": {\"DOUBLE_DIE_ON_INIT\": \"1\"}},"
    "  \"off\": {\"command\": \"python3\", \"args\": [\"%s\"], \"enabled\": false},"
    "  \"beta\": {\"command\": \"python3\", \"args\": [\"%s\"], \"exclude_tools\": [\"crash\"]}"
    "}}", script, script, script, script);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) configs = ow_mcp_config_parse (text, -1, NULL, NULL, &error);
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) providers = NULL;
  const char *servers[] = { "alpha", "beta" };
  /* The double's 15 tools without DOUBLE_PROVIDER; beta's entry leaves
   * out crash. */
  const guint counts[] = { 15, 14 };

  g_assert_no_error (error);
  g_assert_cmpuint (configs->len, ==, 5);
  providers = ow_mcp_start_servers (configs, NULL, problems);

  g_assert_cmpuint (providers->len, ==, 2);
  for (guint i = 0; i < providers->len; i++)
    {
      OwMcpProvider *p = g_ptr_array_index (providers, i);
      g_autofree char *source = g_strconcat ("mcp:", servers[i], NULL);
      g_autofree char *echo_name = g_strdup_printf ("mcp__%s__echo", servers[i]);
      g_autofree char *crash_name = g_strdup_printf ("mcp__%s__crash", servers[i]);
      g_autoptr(OwTool) echo = NULL;

      g_assert_cmpstr (ow_tool_provider_get_source (OW_TOOL_PROVIDER (p)), ==, source);
      g_assert_cmpint (ow_mcp_client_get_status (ow_mcp_provider_get_client (p)), ==, OW_MCP_STATUS_READY);
      g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (p)), ==, counts[i]);
      if (i == 0)
        g_assert_cmpstr (ow_mcp_provider_server_tool_name (p, crash_name), ==, "crash");
      else
        g_assert_null (ow_mcp_provider_server_tool_name (p, crash_name));
      echo = ow_tool_provider_lookup (OW_TOOL_PROVIDER (p), echo_name);
      g_assert_nonnull (echo);
      g_assert_cmpstr (ow_tool_get_source (echo), ==, source);
    }

  /* One line for the entry that cannot be used, one for the server that
   * did not start; nothing for the disabled one. */
  for (guint i = 0; i < problems->len; i++)
    g_test_message ("problem: %s", (char *) g_ptr_array_index (problems, i));
  g_assert_cmpuint (problems->len, ==, 2);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (problems, 0), "MCP server \"broken\" is not used: "));
  g_assert_nonnull (strstr (g_ptr_array_index (problems, 0), "command"));
  g_assert_true (g_str_has_prefix (g_ptr_array_index (problems, 1), "MCP server \"dead\" did not start: "));
  g_assert_nonnull (strstr (g_ptr_array_index (problems, 1), "missing API token for the double"));

  while (providers->len > 0)
    {
      OwMcpProvider *p = g_ptr_array_steal_index (providers, 0);
      OwMcpClient *client = g_object_ref (ow_mcp_provider_get_client (p));

      ow_mcp_client_stop (client);
      g_assert_finalize_object (p);
      g_assert_finalize_object (client);
    }
}

static void
test_start_servers_none (void)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) none = ow_mcp_start_servers (NULL, NULL, problems);
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();
  g_autoptr(GPtrArray) also_none = ow_mcp_start_servers (empty, NULL, NULL);

  g_assert_cmpuint (none->len, ==, 0);
  g_assert_cmpuint (also_none->len, ==, 0);
  g_assert_cmpuint (problems->len, ==, 0);
}

/* ---- Which servers a session uses ------------------------------------- */

static void
write_file (const char *path,
            const char *text)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* The configs' names, sorted, space-separated; each one's roots checked
 * against @roots (NULL: none). */
static char *
config_names (GPtrArray          *configs,
              const char *const  *roots)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GString) s = g_string_new (NULL);

  g_assert_nonnull (configs);
  for (guint i = 0; i < configs->len; i++)
    {
      OwMcpServerConfig *c = g_ptr_array_index (configs, i);

      g_assert_null (c->error);
      g_assert_nonnull (c->roots);
      if (roots != NULL)
        g_assert_true (g_strv_equal ((const char *const *) c->roots, roots));
      else
        g_assert_null (c->roots[0]);
      g_ptr_array_add (names, c->name);
    }
  g_ptr_array_sort (names, by_string);
  for (guint i = 0; i < names->len; i++)
    {
      if (s->len > 0)
        g_string_append_c (s, ' ');
      g_string_append (s, g_ptr_array_index (names, i));
    }
  return g_strdup (s->str);
}

static const OwMcpServerConfig *
config_named (GPtrArray  *configs,
              const char *name)
{
  for (guint i = 0; i < configs->len; i++)
    if (g_str_equal (((OwMcpServerConfig *) g_ptr_array_index (configs, i))->name, name))
      return g_ptr_array_index (configs, i);
  g_error ("no config named %s", name);
  return NULL;
}

static void
remove_tree (const char *dir)
{
  const char *argv[] = { "rm", "-rf", dir, NULL };
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static void
test_configs_for_session (void)
{
  g_autofree char *root = ow_test_make_tmpdir ("ow-mcp-provider");
  OwPaths *paths = ow_paths_new_under (root);
  g_autofree char *ws = g_build_filename (root, "ws", NULL);
  g_autofree char *other = g_build_filename (root, "other", NULL);
  g_autofree char *machine = g_build_filename (paths->config_dir, "mcp.json", NULL);
  g_autofree char *local = g_build_filename (ws, ".openworker", "mcp.json", NULL);
  g_autofree char *given = g_build_filename (root, "given.json", NULL);
  g_autofree char *trust = g_build_filename (paths->state_dir, "workspace_trust.json", NULL);
  g_autofree char *trust_other = g_strdup_printf ("{\"trusted_workspaces\": [\"%s\"]}", other);
  g_autofree char *trust_ws = g_strdup_printf ("{\"trusted_workspaces\": [\"%s\", \"%s\"]}", other, ws);
  const char *roots[] = { ws, "/srv/shared", NULL };
  static const char workspace_servers[] =
    "{\"mcpServers\": {\"local\": {\"command\": \"true\"}, \"shared\": {\"command\": \"from-workspace\"}}}";
  g_autoptr(GError) error = NULL;
  GPtrArray *configs;
  char *names;

  write_file (machine,
              "{\"mcpServers\": {\"machine\": {\"command\": \"true\"}, \"shared\": {\"command\": \"from-machine\"}}}");
  write_file (local, workspace_servers);
  write_file (given, "{\"mcpServers\": {\"given\": {\"command\": \"true\"}}}");
  g_assert_cmpint (g_mkdir_with_parents (other, 0700), ==, 0);

  /* No trust file at all: the machine's servers only. */
  configs = ow_mcp_configs_for_session (paths, ws, NULL, roots, &error);
  g_assert_no_error (error);
  names = config_names (configs, roots);
  g_assert_cmpstr (names, ==, "machine shared");
  g_assert_cmpstr (config_named (configs, "shared")->command, ==, "from-machine");
  g_free (names);
  g_ptr_array_unref (configs);

  /* Trust for another folder is not trust for this one. */
  write_file (trust, trust_other);
  configs = ow_mcp_configs_for_session (paths, ws, NULL, roots, &error);
  g_assert_no_error (error);
  names = config_names (configs, roots);
  g_assert_cmpstr (names, ==, "machine shared");
  g_free (names);
  g_ptr_array_unref (configs);

  /* Untrusted, the workspace's file is never read: even one that is not
   * mcp.json at all is no error. */
  write_file (local, "this is not JSON {");
  configs = ow_mcp_configs_for_session (paths, ws, NULL, roots, &error);
  g_assert_no_error (error);
  names = config_names (configs, roots);
  g_assert_cmpstr (names, ==, "machine shared");
  g_free (names);
  g_ptr_array_unref (configs);

  /* Trusted, it is read (the control: the same broken file now fails the
   * load, with a sentence naming it) … */
  write_file (trust, trust_ws);
  configs = ow_mcp_configs_for_session (paths, ws, NULL, roots, &error);
  g_assert_null (configs);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, local));
  g_clear_error (&error);

  /* … and its servers join the machine's, whose entries win on a name in
   * both. */
  write_file (local, workspace_servers);
  configs = ow_mcp_configs_for_session (paths, ws, NULL, roots, &error);
  g_assert_no_error (error);
  names = config_names (configs, roots);
  g_assert_cmpstr (names, ==, "local machine shared");
  g_assert_cmpstr (config_named (configs, "shared")->command, ==, "from-machine");
  g_free (names);
  g_ptr_array_unref (configs);

  /* Without roots, none are offered. */
  configs = ow_mcp_configs_for_session (paths, ws, NULL, NULL, &error);
  g_assert_no_error (error);
  names = config_names (configs, NULL);
  g_assert_cmpstr (names, ==, "local machine shared");
  g_free (names);
  g_ptr_array_unref (configs);

  /* --mcp-config: that file's servers only, even with both others there. */
  configs = ow_mcp_configs_for_session (paths, ws, given, roots, &error);
  g_assert_no_error (error);
  names = config_names (configs, roots);
  g_assert_cmpstr (names, ==, "given");
  g_free (names);
  g_ptr_array_unref (configs);
  configs = ow_mcp_configs_for_session (NULL, NULL, given, roots, &error);
  g_assert_no_error (error);
  names = config_names (configs, roots);
  g_assert_cmpstr (names, ==, "given");
  g_free (names);
  g_ptr_array_unref (configs);

  /* A --mcp-config file that is missing or broken is an error naming it. */
  write_file (given, "[1, 2]");
  configs = ow_mcp_configs_for_session (paths, ws, given, roots, &error);
  g_assert_null (configs);
  g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, given));
  g_clear_error (&error);

  /* An isolated run (no paths, no file): none. */
  configs = ow_mcp_configs_for_session (NULL, ws, NULL, roots, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (configs->len, ==, 0);
  g_ptr_array_unref (configs);

  ow_paths_free (paths);
  remove_tree (root);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, fn) g_test_add ((path), Fixture, NULL, fixture_set_up, (fn), fixture_tear_down)
  ADD ("/ow/mcp/provider/items", test_items);
  ADD ("/ow/mcp/provider/annotations-never-lower-risk", test_annotations_never_lower_risk);
  ADD ("/ow/mcp/provider/list-changed", test_list_changed);
  ADD ("/ow/mcp/provider/call-content", test_call_content);
  ADD ("/ow/mcp/provider/call-progress", test_call_progress);
  ADD ("/ow/mcp/provider/tool-outlives-provider", test_tool_outlives_provider);
  ADD ("/ow/mcp/provider/call-remote-error", test_call_remote_error);
  ADD ("/ow/mcp/provider/call-crash", test_call_crash);
  ADD ("/ow/mcp/provider/call-cancelled", test_call_cancelled);
#undef ADD
  g_test_add_func ("/ow/mcp/provider/start-servers", test_start_servers);
  g_test_add_func ("/ow/mcp/provider/start-servers-none", test_start_servers_none);
  g_test_add_func ("/ow/mcp/provider/configs-for-session", test_configs_for_session);
  return g_test_run ();
}
