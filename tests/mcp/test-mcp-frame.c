/* test-mcp-frame.c: the stdio framing and the JSON-RPC decoder, rule by rule. */
#include <string.h>

#include "mcp/ow-jsonrpc.h"
#include "mcp/ow-mcp-frame.h"
#include "ow-error.h"

typedef struct
{
  GPtrArray *lines;     /* char * */
  GPtrArray *oversize;  /* char * prefixes */
} Collected;

static void
on_line (const char *line, gsize len, gpointer user_data)
{
  Collected *c = user_data;

  g_assert_cmpuint (strlen (line), ==, len);
  g_ptr_array_add (c->lines, g_strndup (line, len));
}

static void
on_oversize (const char *prefix, gsize len, gpointer user_data)
{
  Collected *c = user_data;

  g_ptr_array_add (c->oversize, g_strndup (prefix, len));
}

static void
collected_init (Collected *c)
{
  c->lines = g_ptr_array_new_with_free_func (g_free);
  c->oversize = g_ptr_array_new_with_free_func (g_free);
}

static void
collected_clear (Collected *c)
{
  g_ptr_array_unref (c->lines);
  g_ptr_array_unref (c->oversize);
}

static void
test_frame_split_anywhere (void)
{
  const char *stream = "{\"a\":1}\r\n\n   \n{\"b\":2}\n{\"c\":3}";
  gsize n = strlen (stream);

  for (gsize cut = 0; cut <= n; cut++)
    {
      Collected c;
      g_autoptr(OwMcpFrameReader) r = NULL;

      collected_init (&c);
      r = ow_mcp_frame_reader_new (0, on_line, on_oversize, &c);
      ow_mcp_frame_reader_feed (r, stream, cut);
      ow_mcp_frame_reader_feed (r, stream + cut, n - cut);
      ow_mcp_frame_reader_finish (r);
      g_assert_cmpuint (c.lines->len, ==, 3);
      g_assert_cmpstr (c.lines->pdata[0], ==, "{\"a\":1}");
      g_assert_cmpstr (c.lines->pdata[1], ==, "{\"b\":2}");
      g_assert_cmpstr (c.lines->pdata[2], ==, "{\"c\":3}");
      g_assert_cmpuint (c.oversize->len, ==, 0);
      collected_clear (&c);
    }
}

static void
test_frame_oversize_skipped (void)
{
  Collected c;
  g_autoptr(OwMcpFrameReader) r = NULL;
  g_autofree char *big = g_strnfill (5000, 'x');

  collected_init (&c);
  r = ow_mcp_frame_reader_new (1000, on_line, on_oversize, &c);
  ow_mcp_frame_reader_feed (r, "{\"id\":9,", 8);
  for (int i = 0; i < 10; i++)
    {
      ow_mcp_frame_reader_feed (r, big, strlen (big));
      g_assert_cmpuint (ow_mcp_frame_reader_get_buffered (r), <=, 1000);
    }
  ow_mcp_frame_reader_feed (r, "\n{\"ok\":1}\n", 10);
  ow_mcp_frame_reader_finish (r);
  g_assert_cmpuint (c.oversize->len, ==, 1);
  g_assert_true (g_str_has_prefix (c.oversize->pdata[0], "{\"id\":9,xxx"));
  g_assert_cmpuint (strlen (c.oversize->pdata[0]), ==, OW_MCP_FRAME_PREFIX_BYTES);
  /* Positive control: the reader goes on after the oversized line. */
  g_assert_cmpuint (c.lines->len, ==, 1);
  g_assert_cmpstr (c.lines->pdata[0], ==, "{\"ok\":1}");
  collected_clear (&c);
}

static void
test_frame_exact_limit (void)
{
  Collected c;
  g_autoptr(OwMcpFrameReader) r = NULL;

  collected_init (&c);
  r = ow_mcp_frame_reader_new (4, on_line, on_oversize, &c);
  ow_mcp_frame_reader_feed (r, "abcd\nabcde\nab\n", 14);
  g_assert_cmpuint (c.lines->len, ==, 2);
  g_assert_cmpstr (c.lines->pdata[0], ==, "abcd");
  g_assert_cmpstr (c.lines->pdata[1], ==, "ab");
  g_assert_cmpuint (c.oversize->len, ==, 1);
  collected_clear (&c);
}

static OwJsonRpcMessage *
parse (const char *text, GError **error)
{
  return ow_jsonrpc_message_parse (text, strlen (text), error);
}

static void
test_jsonrpc_kinds (void)
{
  g_autoptr(OwJsonRpcMessage) req = parse ("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\"}", NULL);
  g_autoptr(OwJsonRpcMessage) note = parse ("{\"method\":\"notifications/tools/list_changed\",\"jsonrpc\":\"2.0\"}", NULL);
  g_autoptr(OwJsonRpcMessage) res = parse ("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"a\":1}}", NULL);
  g_autoptr(OwJsonRpcMessage) err = parse ("{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32602,\"message\":\"Unknown tool: q\"}}", NULL);
  g_autofree char *k1 = NULL;
  g_autofree char *k2 = NULL;

  g_assert_nonnull (req);
  g_assert_cmpint (req->kind, ==, OW_JSONRPC_REQUEST);
  g_assert_cmpstr (req->method, ==, "ping");
  k1 = ow_jsonrpc_id_key (req->id);
  g_assert_cmpstr (k1, ==, "s:x");
  g_assert_cmpint (note->kind, ==, OW_JSONRPC_NOTIFICATION);
  g_assert_null (note->id);
  g_assert_cmpint (res->kind, ==, OW_JSONRPC_RESULT);
  k2 = ow_jsonrpc_id_key (res->id);
  g_assert_cmpstr (k2, ==, "i:4");
  g_assert_cmpint (err->kind, ==, OW_JSONRPC_ERROR);
  g_assert_cmpint (err->error_code, ==, -32602);
  g_assert_cmpstr (err->error_message, ==, "Unknown tool: q");
}

static void
test_jsonrpc_garbage (void)
{
  const char *bad[] = {
    "not json",
    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}]",
    "42",
    "{\"id\":1,\"result\":{}}",
    "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}",
    "{\"jsonrpc\":\"2.0\",\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}",
    "{\"jsonrpc\":\"2.0\",\"method\":5}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":3}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"no code\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"flat\"}",
  };
  g_autofree char *deep = NULL;
  GString *s = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":");

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(OwJsonRpcMessage) msg = parse (bad[i], &error);

      g_assert_null (msg);
      g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL);
      g_assert_true (g_str_has_prefix (error->message, "The server sent"));
    }
  for (int i = 0; i < 100000; i++)
    g_string_append_c (s, '[');
  deep = g_string_free (s, FALSE);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(OwJsonRpcMessage) msg = parse (deep, &error);

    g_assert_null (msg);
    g_assert_error (error, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL);
  }
}

static void
test_jsonrpc_encode_one_line (void)
{
  g_autoptr(JsonObject) params = json_object_new ();
  g_autofree char *req = NULL;
  g_autofree char *errtext = NULL;
  g_autoptr(OwJsonRpcMessage) back = NULL;
  g_autoptr(OwJsonRpcMessage) eback = NULL;

  json_object_set_string_member (params, "text", "two\nlines\r\u2028");
  req = ow_jsonrpc_encode_request (12, "tools/call", params);
  g_assert_null (strchr (req, '\n'));
  g_assert_null (strchr (req, '\r'));
  back = parse (req, NULL);
  g_assert_cmpint (back->kind, ==, OW_JSONRPC_REQUEST);
  g_assert_cmpstr (json_object_get_string_member (ow_jsonrpc_message_get_params_object (back), "text"), ==,
                   "two\nlines\r\u2028");
  errtext = ow_jsonrpc_encode_error (back->id, OW_JSONRPC_METHOD_NOT_FOUND, "no", NULL);
  eback = parse (errtext, NULL);
  g_assert_cmpint (eback->kind, ==, OW_JSONRPC_ERROR);
  g_assert_cmpint (json_node_get_int (eback->id), ==, 12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/mcp/frame/split-anywhere", test_frame_split_anywhere);
  g_test_add_func ("/ow/mcp/frame/oversize-skipped", test_frame_oversize_skipped);
  g_test_add_func ("/ow/mcp/frame/exact-limit", test_frame_exact_limit);
  g_test_add_func ("/ow/mcp/jsonrpc/kinds", test_jsonrpc_kinds);
  g_test_add_func ("/ow/mcp/jsonrpc/garbage", test_jsonrpc_garbage);
  g_test_add_func ("/ow/mcp/jsonrpc/encode-one-line", test_jsonrpc_encode_one_line);
  return g_test_run ();
}
