/* test-model-server.c: the scripted model server, checked on the wire.
 *
 * Each case starts a server from a script and talks to it with a libsoup
 * client on the same main loop, then checks the bytes: event names and
 * order, JSON shapes, status codes, headers. The client reads bodies
 * incrementally and keeps whatever arrived before a failure, so cut-off
 * replies can be checked too. The last cases run the standalone program.
 */
#include <signal.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "ow-model-server.h"
#include "ow-test-utils.h"

/* ---- Plumbing ------------------------------------------------------------ */

static OwModelServer *
server_new (const char *script)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (script, &error);
  OwModelServer *server;

  g_assert_no_error (error);
  server = ow_model_server_new (node, &error);
  g_assert_no_error (error);
  g_assert_nonnull (server);
  g_assert_cmpuint (ow_model_server_get_port (server), >, 0);
  return server;
}

static SoupSession *
session_new (void)
{
  return soup_session_new_with_options ("timeout", 20, NULL);
}

typedef struct {
  guint               status;
  SoupMessageHeaders *headers;
  GByteArray         *body;
  GError             *error;        /* transport failure, after body bytes that arrived */
  guint64             connection;   /* libsoup's connection id */
  gboolean            done;
  gssize              stop_after;   /* cancel once this many bytes arrived; -1 = never */
  GCancellable       *cancellable;
  SoupMessage        *msg;
  char                buffer[4096];
} Fetch;

static void
fetch_free (Fetch *f)
{
  g_clear_pointer (&f->headers, soup_message_headers_unref);
  g_byte_array_unref (f->body);
  g_clear_error (&f->error);
  g_clear_object (&f->cancellable);
  g_clear_object (&f->msg);
  g_free (f);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fetch, fetch_free)

static void on_read_cb (GObject *source, GAsyncResult *result, gpointer user_data);

static void
read_more (Fetch        *f,
           GInputStream *in)
{
  g_input_stream_read_async (in, f->buffer, sizeof f->buffer, G_PRIORITY_DEFAULT, f->cancellable,
                             on_read_cb, f);
}

static void
on_read_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fetch *f = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &f->error);

  if (n > 0)
    {
      g_byte_array_append (f->body, (guint8 *) f->buffer, (guint) n);
      if (f->stop_after >= 0 && f->body->len >= (gsize) f->stop_after)
        {
          g_input_stream_close (G_INPUT_STREAM (source), NULL, NULL);
          f->done = TRUE;
          return;
        }
      read_more (f, G_INPUT_STREAM (source));
      return;
    }
  /* Closing the body hands the connection back to the session's pool. */
  g_input_stream_close (G_INPUT_STREAM (source), NULL, NULL);
  f->done = TRUE;
}

static void
on_sent_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fetch *f = user_data;
  g_autoptr(GInputStream) in = soup_session_send_finish (SOUP_SESSION (source), result, &f->error);

  if (in == NULL)
    {
      f->done = TRUE;
      return;
    }
  f->status = soup_message_get_status (f->msg);
  f->headers = soup_message_headers_ref (soup_message_get_response_headers (f->msg));
  f->connection = soup_message_get_connection_id (f->msg);
  read_more (f, in);
}

/* Sends a request and reads the whole answer, or what arrived of it. */
static Fetch *
fetch_full (SoupSession *session,
            guint        port,
            const char  *method,
            const char  *path_and_query,
            const char  *body,
            gssize       stop_after,
            const char  *header_name,
            const char  *header_value)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u%s", port, path_and_query);
  g_autoptr(SoupSession) own = session == NULL ? session_new () : NULL;
  Fetch *f = g_new0 (Fetch, 1);

  f->body = g_byte_array_new ();
  f->stop_after = stop_after;
  f->cancellable = g_cancellable_new ();
  f->msg = soup_message_new (method, url);
  g_assert_nonnull (f->msg);
  /* libsoup sends a POST on a fresh connection unless told it may be
   * repeated; curl, the production client, reuses one either way. */
  soup_message_add_flags (f->msg, SOUP_MESSAGE_IDEMPOTENT);
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));
      soup_message_set_request_body_from_bytes (f->msg, "application/json", bytes);
    }
  if (header_name != NULL)
    soup_message_headers_append (soup_message_get_request_headers (f->msg), header_name, header_value);
  soup_session_send_async (session != NULL ? session : own, f->msg, G_PRIORITY_DEFAULT, NULL,
                           on_sent_cb, f);
  ow_test_wait_flag (&f->done);
  ow_test_drain ();
  g_byte_array_append (f->body, (const guint8 *) "", 1);   /* NUL-terminate */
  g_byte_array_set_size (f->body, f->body->len - 1);
  return f;
}

static Fetch *
post (OwModelServer *server,
      const char    *path,
      const char    *body)
{
  return fetch_full (NULL, ow_model_server_get_port (server), "POST", path, body, -1, NULL, NULL);
}

static Fetch *
get (OwModelServer *server,
     const char    *path)
{
  return fetch_full (NULL, ow_model_server_get_port (server), "GET", path, NULL, -1, NULL, NULL);
}

/* ---- Raw HTTP ------------------------------------------------------------ */

/* What a client reads on a connection until the server closes it: the
 * exact bytes, for replies that are meant to be cut off (libsoup's client
 * reads a chunked body cut between chunks as a clean end). */
typedef struct {
  GSocketConnection *connection;
  GByteArray        *bytes;
  char               buffer[4096];
  gboolean           done;
  char              *request;
} Raw;

static void on_raw_read_cb (GObject *source, GAsyncResult *result, gpointer user_data);

static void
on_raw_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Raw *raw = user_data;
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

  g_assert_no_error (error);
  if (n == 0)
    {
      raw->done = TRUE;
      return;
    }
  g_byte_array_append (raw->bytes, (guint8 *) raw->buffer, (guint) n);
  g_input_stream_read_async (G_INPUT_STREAM (source), raw->buffer, sizeof raw->buffer,
                             G_PRIORITY_DEFAULT, NULL, on_raw_read_cb, raw);
}

static void
on_raw_connected_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Raw *raw = user_data;
  g_autoptr(GError) error = NULL;
  GOutputStream *out;

  raw->connection = g_socket_client_connect_to_host_finish (G_SOCKET_CLIENT (source), result, &error);
  g_assert_no_error (error);
  out = g_io_stream_get_output_stream (G_IO_STREAM (raw->connection));
  /* Small enough for the socket buffer: a blocking write cannot stall. */
  g_assert_true (g_output_stream_write_all (out, raw->request, strlen (raw->request), NULL, NULL, &error));
  g_assert_no_error (error);
  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM (raw->connection)), raw->buffer,
                             sizeof raw->buffer, G_PRIORITY_DEFAULT, NULL, on_raw_read_cb, raw);
}

/* POSTs @body to @path and returns everything read until the server closed
 * the connection. */
static char *
raw_post_until_close (guint       port,
                      const char *path,
                      const char *body)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  Raw raw = { NULL, g_byte_array_new (), { 0 }, FALSE, NULL };

  raw.request = g_strdup_printf ("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                                 "Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n%s",
                                 path, port, strlen (body), body);
  g_socket_client_connect_to_host_async (client, "127.0.0.1", (guint16) port, NULL, on_raw_connected_cb, &raw);
  ow_test_wait_flag (&raw.done);
  g_clear_object (&raw.connection);
  g_free (raw.request);
  g_byte_array_append (raw.bytes, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (raw.bytes, FALSE);
}

static const char *
body_text (Fetch *f)
{
  return (const char *) f->body->data;
}

static JsonNode *
body_json (Fetch *f)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (body_text (f), &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

/* The member at a dotted path ("choices.0.delta.content"), or NULL. */
static JsonNode *
jget (JsonNode   *node,
      const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, ".", -1);

  for (guint i = 0; parts[i] != NULL && node != NULL; i++)
    {
      if (JSON_NODE_HOLDS_OBJECT (node))
        node = json_object_get_member (json_node_get_object (node), parts[i]);
      else if (JSON_NODE_HOLDS_ARRAY (node))
        {
          JsonArray *array = json_node_get_array (node);
          guint64 index = g_ascii_strtoull (parts[i], NULL, 10);

          node = index < json_array_get_length (array) ? json_array_get_element (array, (guint) index) : NULL;
        }
      else
        node = NULL;
    }
  return node;
}

static const char *
jstr (JsonNode   *node,
      const char *path)
{
  JsonNode *member = jget (node, path);

  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (member);
}

static gint64
jint (JsonNode   *node,
      const char *path)
{
  JsonNode *member = jget (node, path);

  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_INT64)
    return G_MININT64;
  return json_node_get_int (member);
}

static guint
jlen (JsonNode   *node,
      const char *path)
{
  JsonNode *member = jget (node, path);

  if (member == NULL || !JSON_NODE_HOLDS_ARRAY (member))
    return G_MAXUINT;
  return json_array_get_length (json_node_get_array (member));
}

static gboolean
jnull (JsonNode   *node,
       const char *path)
{
  JsonNode *member = jget (node, path);

  return member != NULL && JSON_NODE_HOLDS_NULL (member);
}

/* ---- Stream parsing ------------------------------------------------------ */

typedef struct {
  char     *name;   /* "event:" value, or NULL */
  char     *data;
  JsonNode *json;   /* data parsed, or NULL for "[DONE]" and the like */
} Event;

static void
event_free (gpointer data)
{
  Event *event = data;

  g_free (event->name);
  g_free (event->data);
  g_clear_pointer (&event->json, json_node_unref);
  g_free (event);
}

/* The SSE events of a body; a block left unterminated at the end (a cut
 * reply) is not an event. */
static GPtrArray *
parse_sse (const char *text)
{
  GPtrArray *events = g_ptr_array_new_with_free_func (event_free);
  g_auto(GStrv) lf_parts = g_strsplit (text, "\r\n", -1);
  g_autofree char *lf = g_strjoinv ("\n", lf_parts);
  g_auto(GStrv) blocks = g_strsplit (lf, "\n\n", -1);

  for (guint b = 0; blocks[b] != NULL && blocks[b + 1] != NULL; b++)
    {
      g_auto(GStrv) lines = g_strsplit (blocks[b], "\n", -1);
      Event *event = g_new0 (Event, 1);

      for (guint l = 0; lines[l] != NULL; l++)
        {
          if (g_str_has_prefix (lines[l], "event: "))
            event->name = g_strdup (lines[l] + strlen ("event: "));
          else if (g_str_has_prefix (lines[l], "data: "))
            {
              g_assert_null (event->data);   /* one data line per event */
              event->data = g_strdup (lines[l] + strlen ("data: "));
            }
          else
            g_assert_cmpstr (lines[l], ==, "(no other lines)");
        }
      g_assert_nonnull (event->data);
      event->json = json_from_string (event->data, NULL);
      g_ptr_array_add (events, event);
    }
  return events;
}

/* The NDJSON lines of a body, each parsed; an unterminated last line is
 * not a line. */
static GPtrArray *
parse_ndjson (const char *text)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_auto(GStrv) parts = g_strsplit (text, "\n", -1);

  for (guint i = 0; parts[i] != NULL && parts[i + 1] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      JsonNode *node = json_from_string (parts[i], &error);

      g_assert_no_error (error);
      g_ptr_array_add (lines, node);
    }
  return lines;
}

static char *
event_names (GPtrArray *events)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      Event *event = events->pdata[i];

      if (i > 0)
        g_string_append_c (names, ',');
      g_string_append (names, event->name != NULL ? event->name : "-");
    }
  return g_string_free (names, FALSE);
}

static JsonNode *
ev (GPtrArray *events,
    guint      i)
{
  g_assert_cmpuint (i, <, events->len);
  return ((Event *) events->pdata[i])->json;
}

/* ---- OpenAI Chat Completions --------------------------------------------- */

static void
test_openai_chat_stream_text (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"style\":\"openai-chat\",\"turns\":[{\"text\":\"Hello, wörld!\",\"text_chunks\":3,"
    "\"usage\":{\"input\":100,\"output\":20,\"cache_read\":50,\"cache_write\":5,\"reasoning\":7}}]}");
  g_autoptr(Fetch) f = post (server, "/v1/chat/completions",
                             "{\"model\":\"gpt-test\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
  g_autoptr(GPtrArray) events = parse_sse (body_text (f));
  g_autoptr(GString) text = g_string_new (NULL);
  const char *id;
  JsonNode *usage;

  g_assert_no_error (f->error);
  g_assert_cmpuint (f->status, ==, 200);
  g_assert_true (g_str_has_prefix (soup_message_headers_get_content_type (f->headers, NULL), "text/event-stream"));
  g_assert_true (g_str_has_prefix (soup_message_headers_get_one (f->headers, "x-request-id"), "req_"));
  g_assert_cmpstr (soup_message_headers_get_one (f->headers, "Transfer-Encoding"), ==, "chunked");

  /* role, 3 deltas, finish, usage, [DONE] */
  g_assert_cmpuint (events->len, ==, 7);
  id = jstr (ev (events, 0), "id");
  g_assert_true (g_str_has_prefix (id, "chatcmpl-"));
  for (guint i = 0; i < 6; i++)
    {
      g_assert_cmpstr (jstr (ev (events, i), "id"), ==, id);
      g_assert_cmpstr (jstr (ev (events, i), "object"), ==, "chat.completion.chunk");
      g_assert_cmpstr (jstr (ev (events, i), "model"), ==, "gpt-test");
    }
  g_assert_cmpstr (jstr (ev (events, 0), "choices.0.delta.role"), ==, "assistant");
  for (guint i = 1; i <= 3; i++)
    {
      g_assert_true (jnull (ev (events, i), "choices.0.finish_reason"));
      g_assert_true (jnull (ev (events, i), "usage"));
      g_string_append (text, jstr (ev (events, i), "choices.0.delta.content"));
    }
  g_assert_cmpstr (text->str, ==, "Hello, wörld!");
  g_assert_cmpstr (jstr (ev (events, 4), "choices.0.finish_reason"), ==, "stop");

  /* The usage chunk: no choices; prompt_tokens includes the cache. */
  g_assert_cmpuint (jlen (ev (events, 5), "choices"), ==, 0);
  usage = jget (ev (events, 5), "usage");
  g_assert_cmpint (jint (usage, "prompt_tokens"), ==, 155);
  g_assert_cmpint (jint (usage, "prompt_tokens_details.cached_tokens"), ==, 50);
  g_assert_cmpint (jint (usage, "completion_tokens"), ==, 20);
  g_assert_cmpint (jint (usage, "completion_tokens_details.reasoning_tokens"), ==, 7);
  g_assert_cmpint (jint (usage, "total_tokens"), ==, 175);

  g_assert_cmpstr (((Event *) events->pdata[6])->data, ==, "[DONE]");
  g_assert_true (g_str_has_suffix (body_text (f), "data: [DONE]\n\n"));
}

static void
test_openai_chat_stream_tools (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"tool_calls\":["
    "{\"id\":\"call_1\",\"name\":\"run_shell\",\"arguments\":{\"command\":\"ls -la /tmp/some/long/path\"}},"
    "{\"name\":\"broken\",\"arguments_raw\":\"{not json\"}]}]}");
  g_autoptr(Fetch) f = post (server, "/v1/chat/completions", "{\"model\":\"m\",\"stream\":true}");
  g_autoptr(GPtrArray) events = parse_sse (body_text (f));
  g_autoptr(GString) args0 = g_string_new (NULL);
  g_autoptr(GString) args1 = g_string_new (NULL);
  guint n_first_fragments = 0;
  JsonNode *last;

  g_assert_cmpuint (f->status, ==, 200);
  /* Only calls: the role rides on the first call's chunk. */
  g_assert_cmpstr (jstr (ev (events, 0), "choices.0.delta.role"), ==, "assistant");
  g_assert_true (jnull (ev (events, 0), "choices.0.delta.content"));
  g_assert_cmpstr (jstr (ev (events, 0), "choices.0.delta.tool_calls.0.id"), ==, "call_1");

  for (guint i = 0; i + 2 < events->len; i++)
    {
      JsonNode *call = jget (ev (events, i), "choices.0.delta.tool_calls.0");
      gint64 index = jint (call, "index");

      g_assert_nonnull (call);
      g_assert_null (jget (ev (events, i), "usage"));   /* include_usage was not asked */
      if (jstr (call, "id") != NULL)
        {
          n_first_fragments++;
          g_assert_cmpstr (jstr (call, "type"), ==, "function");
          g_assert_cmpstr (jstr (call, "function.arguments"), ==, "");
          g_assert_cmpstr (jstr (call, "function.name"), ==, index == 0 ? "run_shell" : "broken");
        }
      else
        g_string_append (index == 0 ? args0 : args1, jstr (call, "function.arguments"));
    }
  g_assert_cmpuint (n_first_fragments, ==, 2);
  g_assert_cmpstr (args0->str, ==, "{\"command\":\"ls -la /tmp/some/long/path\"}");
  g_assert_cmpstr (args1->str, ==, "{not json");

  last = ev (events, events->len - 2);
  g_assert_cmpstr (jstr (last, "choices.0.finish_reason"), ==, "tool_calls");
  g_assert_cmpstr (((Event *) events->pdata[events->len - 1])->data, ==, "[DONE]");
}

static void
test_openai_chat_stream_reasoning (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"reasoning\":\"Let me think.\",\"text\":\"Done\",\"finish\":\"length\"}]}");
  g_autoptr(Fetch) f = post (server, "/v1/chat/completions", "{\"model\":\"m\",\"stream\":true}");
  g_autoptr(GPtrArray) events = parse_sse (body_text (f));

  /* role, reasoning, text, finish, [DONE] */
  g_assert_cmpuint (events->len, ==, 5);
  g_assert_cmpstr (jstr (ev (events, 1), "choices.0.delta.reasoning_content"), ==, "Let me think.");
  g_assert_cmpstr (jstr (ev (events, 2), "choices.0.delta.content"), ==, "Done");
  g_assert_cmpstr (jstr (ev (events, 3), "choices.0.finish_reason"), ==, "length");
}

static void
test_openai_chat_whole (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"tool_calls\":[{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}],"
    "\"usage\":{\"input\":10,\"output\":4,\"cache_read\":30}},"
    "{\"text\":\"plain\"}]}");
  g_autoptr(Fetch) f = post (server, "/v1/chat/completions", "{\"model\":\"m\"}");
  g_autoptr(Fetch) f2 = post (server, "/v1/chat/completions", "{\"model\":\"m\",\"stream\":false}");
  g_autoptr(JsonNode) body = body_json (f);
  g_autoptr(JsonNode) body2 = body_json (f2);

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_true (g_str_has_prefix (soup_message_headers_get_content_type (f->headers, NULL), "application/json"));
  g_assert_cmpstr (jstr (body, "object"), ==, "chat.completion");
  g_assert_true (g_str_has_prefix (jstr (body, "id"), "chatcmpl-"));
  g_assert_true (jnull (body, "choices.0.message.content"));
  g_assert_true (g_str_has_prefix (jstr (body, "choices.0.message.tool_calls.0.id"), "call_"));
  g_assert_null (jget (body, "choices.0.message.tool_calls.0.index"));
  g_assert_cmpstr (jstr (body, "choices.0.message.tool_calls.0.function.arguments"), ==, "{\"path\":\"a.txt\"}");
  g_assert_cmpstr (jstr (body, "choices.0.finish_reason"), ==, "tool_calls");
  g_assert_cmpint (jint (body, "usage.prompt_tokens"), ==, 40);
  g_assert_cmpint (jint (body, "usage.prompt_tokens_details.cached_tokens"), ==, 30);
  g_assert_cmpint (jint (body, "usage.completion_tokens"), ==, 4);

  g_assert_cmpstr (jstr (body2, "choices.0.message.content"), ==, "plain");
  g_assert_null (jget (body2, "choices.0.message.tool_calls"));
  g_assert_cmpstr (jstr (body2, "choices.0.finish_reason"), ==, "stop");
}

/* ---- OpenAI Responses ---------------------------------------------------- */

static void
test_openai_responses_stream (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"reasoning\":\"hmm\",\"text\":\"Hi\","
    "\"tool_calls\":[{\"id\":\"call_A\",\"name\":\"list_dir\",\"arguments\":{\"path\":\".\"}}],"
    "\"usage\":{\"input\":7,\"output\":9,\"cache_read\":3,\"reasoning\":2}},"
    "{\"reasoning\":\"again\"}]}");
  g_autoptr(Fetch) f = post (server, "/v1/responses",
                             "{\"model\":\"gpt-r\",\"stream\":true,\"include\":[\"reasoning.encrypted_content\"]}");
  g_autoptr(Fetch) f2 = post (server, "/v1/responses", "{\"model\":\"gpt-r\",\"stream\":true}");
  g_autoptr(GPtrArray) events = parse_sse (body_text (f));
  g_autoptr(GPtrArray) events2 = parse_sse (body_text (f2));
  g_autofree char *names = event_names (events);
  JsonNode *done_call = NULL;
  JsonNode *completed;

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_true (g_str_has_prefix (soup_message_headers_get_one (f->headers, "x-request-id"), "req_"));
  g_assert_cmpstr (names, ==,
                   "response.created,response.in_progress,"
                   "response.output_item.added,response.reasoning_summary_part.added,"
                   "response.reasoning_summary_text.delta,response.reasoning_summary_text.done,"
                   "response.reasoning_summary_part.done,response.output_item.done,"
                   "response.output_item.added,response.content_part.added,"
                   "response.output_text.delta,response.output_text.done,"
                   "response.content_part.done,response.output_item.done,"
                   "response.output_item.added,response.function_call_arguments.delta,"
                   "response.function_call_arguments.done,response.output_item.done,"
                   "response.completed");
  for (guint i = 0; i < events->len; i++)
    {
      Event *event = events->pdata[i];

      g_assert_cmpstr (jstr (event->json, "type"), ==, event->name);
      g_assert_cmpint (jint (event->json, "sequence_number"), ==, i);
      if (g_str_equal (event->name, "response.output_item.done")
          && g_strcmp0 (jstr (event->json, "item.type"), "function_call") == 0)
        done_call = event->json;
    }
  g_assert_true (g_str_has_prefix (jstr (ev (events, 0), "response.id"), "resp_"));
  g_assert_cmpstr (jstr (ev (events, 0), "response.status"), ==, "in_progress");
  g_assert_true (g_str_has_prefix (jstr (ev (events, 7), "item.encrypted_content"), "gAAAA"));
  g_assert_cmpstr (jstr (ev (events, 7), "item.summary.0.text"), ==, "hmm");
  g_assert_cmpstr (jstr (ev (events, 10), "delta"), ==, "Hi");

  g_assert_nonnull (done_call);
  g_assert_cmpstr (jstr (done_call, "item.call_id"), ==, "call_A");
  g_assert_true (g_str_has_prefix (jstr (done_call, "item.id"), "fc_"));
  g_assert_cmpstr (jstr (done_call, "item.name"), ==, "list_dir");
  g_assert_cmpstr (jstr (done_call, "item.arguments"), ==, "{\"path\":\".\"}");
  g_assert_cmpstr (jstr (done_call, "item.status"), ==, "completed");

  completed = ev (events, events->len - 1);
  g_assert_cmpstr (jstr (completed, "response.status"), ==, "completed");
  g_assert_cmpstr (jstr (completed, "response.model"), ==, "gpt-r");
  g_assert_cmpuint (jlen (completed, "response.output"), ==, 3);
  g_assert_cmpint (jint (completed, "response.usage.input_tokens"), ==, 10);
  g_assert_cmpint (jint (completed, "response.usage.input_tokens_details.cached_tokens"), ==, 3);
  g_assert_cmpint (jint (completed, "response.usage.output_tokens"), ==, 9);
  g_assert_cmpint (jint (completed, "response.usage.output_tokens_details.reasoning_tokens"), ==, 2);
  g_assert_false (strstr (body_text (f), "[DONE]") != NULL);

  /* encrypted_content only when the request includes it */
  g_assert_null (jget (ev (events2, 7), "item.encrypted_content"));
  g_assert_cmpstr (jstr (ev (events2, 7), "item.type"), ==, "reasoning");
}

static void
test_openai_responses_whole (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"text\":\"partial answ\",\"finish\":\"length\"},"
    "{\"tool_calls\":[{\"name\":\"x\",\"arguments_raw\":\"{oops\"}],\"finish\":\"length\"}]}");
  g_autoptr(Fetch) f = post (server, "/v1/responses", "{\"model\":\"m\"}");
  g_autoptr(Fetch) f2 = post (server, "/v1/responses", "{\"model\":\"m\",\"stream\":true}");
  g_autoptr(JsonNode) body = body_json (f);
  g_autoptr(GPtrArray) events = parse_sse (body_text (f2));
  JsonNode *last = ev (events, events->len - 1);

  g_assert_cmpstr (jstr (body, "object"), ==, "response");
  g_assert_cmpstr (jstr (body, "status"), ==, "incomplete");
  g_assert_cmpstr (jstr (body, "incomplete_details.reason"), ==, "max_output_tokens");
  g_assert_cmpstr (jstr (body, "output.0.type"), ==, "message");
  g_assert_cmpstr (jstr (body, "output.0.content.0.type"), ==, "output_text");
  g_assert_cmpstr (jstr (body, "output.0.content.0.text"), ==, "partial answ");

  g_assert_cmpstr (((Event *) events->pdata[events->len - 1])->name, ==, "response.incomplete");
  g_assert_cmpstr (jstr (last, "response.status"), ==, "incomplete");
  g_assert_cmpstr (jstr (last, "response.output.0.arguments"), ==, "{oops");
}

/* ---- Anthropic ----------------------------------------------------------- */

static void
test_anthropic_stream (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"style\":\"anthropic\",\"turns\":[{\"reasoning\":\"Need the file.\",\"text\":\"Reading\","
    "\"tool_calls\":[{\"id\":\"toolu_01A\",\"name\":\"read_file\",\"arguments\":{\"path\":\"notes/with/a/long/name.txt\"}}],"
    "\"usage\":{\"input\":20,\"output\":61,\"cache_read\":3000,\"cache_write\":100}}]}");
  g_autoptr(Fetch) f = post (server, "/v1/messages", "{\"model\":\"claude-x\",\"max_tokens\":100,\"stream\":true}");
  g_autoptr(GPtrArray) events = parse_sse (body_text (f));
  g_autoptr(GString) json = g_string_new (NULL);
  g_autofree char *names = event_names (events);
  JsonNode *start;
  guint i;

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_true (g_str_has_prefix (soup_message_headers_get_one (f->headers, "request-id"), "req_"));
  g_assert_true (g_str_has_prefix (names, "message_start,ping,content_block_start,content_block_delta,"));
  g_assert_true (g_str_has_suffix (names, ",content_block_stop,message_delta,message_stop"));
  for (i = 0; i < events->len; i++)
    g_assert_cmpstr (jstr (ev (events, i), "type"), ==, ((Event *) events->pdata[i])->name);

  start = ev (events, 0);
  g_assert_true (g_str_has_prefix (jstr (start, "message.id"), "msg_"));
  g_assert_cmpstr (jstr (start, "message.model"), ==, "claude-x");
  g_assert_cmpuint (jlen (start, "message.content"), ==, 0);
  g_assert_cmpint (jint (start, "message.usage.input_tokens"), ==, 20);
  g_assert_cmpint (jint (start, "message.usage.cache_read_input_tokens"), ==, 3000);
  g_assert_cmpint (jint (start, "message.usage.cache_creation_input_tokens"), ==, 100);

  /* Block 0: thinking, closed by a signature_delta. */
  g_assert_cmpstr (jstr (ev (events, 2), "content_block.type"), ==, "thinking");
  g_assert_cmpstr (jstr (ev (events, 3), "delta.type"), ==, "thinking_delta");
  g_assert_cmpstr (jstr (ev (events, 3), "delta.thinking"), ==, "Need the file.");
  g_assert_cmpstr (jstr (ev (events, 4), "delta.type"), ==, "signature_delta");
  g_assert_true (strlen (jstr (ev (events, 4), "delta.signature")) > 20);
  g_assert_cmpint (jint (ev (events, 5), "index"), ==, 0);
  /* Block 1: text. */
  g_assert_cmpstr (jstr (ev (events, 6), "content_block.type"), ==, "text");
  g_assert_cmpstr (jstr (ev (events, 7), "delta.text"), ==, "Reading");
  /* Block 2: tool_use with input {} and input_json_delta pieces. */
  g_assert_cmpstr (jstr (ev (events, 9), "content_block.type"), ==, "tool_use");
  g_assert_cmpstr (jstr (ev (events, 9), "content_block.id"), ==, "toolu_01A");
  g_assert_cmpstr (jstr (ev (events, 9), "content_block.name"), ==, "read_file");
  g_assert_nonnull (jget (ev (events, 9), "content_block.input"));
  g_assert_cmpint (jint (ev (events, 9), "index"), ==, 2);
  g_assert_cmpstr (jstr (ev (events, 10), "delta.partial_json"), ==, "");
  for (i = 10; g_strcmp0 (jstr (ev (events, i), "type"), "content_block_delta") == 0; i++)
    {
      g_assert_cmpstr (jstr (ev (events, i), "delta.type"), ==, "input_json_delta");
      g_string_append (json, jstr (ev (events, i), "delta.partial_json"));
    }
  g_assert_cmpuint (i, >, 12);   /* really in pieces */
  g_assert_cmpstr (json->str, ==, "{\"path\":\"notes/with/a/long/name.txt\"}");

  g_assert_cmpstr (jstr (ev (events, events->len - 2), "delta.stop_reason"), ==, "tool_use");
  g_assert_cmpint (jint (ev (events, events->len - 2), "usage.output_tokens"), ==, 61);
}

static void
test_anthropic_whole (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"reasoning\":\"r\",\"text\":\"cut sho\",\"finish\":\"length\","
    "\"tool_calls\":[{\"name\":\"a\",\"arguments\":{\"k\":1}},{\"name\":\"b\",\"arguments_raw\":\"{bad\"}]}]}");
  g_autoptr(Fetch) f = post (server, "/v1/messages", "{\"model\":\"claude-y\",\"max_tokens\":10}");
  g_autoptr(JsonNode) body = body_json (f);

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_cmpstr (jstr (body, "type"), ==, "message");
  g_assert_cmpstr (jstr (body, "role"), ==, "assistant");
  g_assert_cmpstr (jstr (body, "model"), ==, "claude-y");
  g_assert_cmpuint (jlen (body, "content"), ==, 4);
  g_assert_cmpstr (jstr (body, "content.0.type"), ==, "thinking");
  g_assert_nonnull (jstr (body, "content.0.signature"));
  g_assert_cmpstr (jstr (body, "content.1.text"), ==, "cut sho");
  g_assert_cmpstr (jstr (body, "content.2.type"), ==, "tool_use");
  g_assert_true (g_str_has_prefix (jstr (body, "content.2.id"), "toolu_"));
  g_assert_cmpint (jint (body, "content.2.input.k"), ==, 1);
  g_assert_cmpstr (jstr (body, "content.3.input"), ==, "{bad");
  g_assert_cmpstr (jstr (body, "stop_reason"), ==, "max_tokens");
  g_assert_cmpint (jint (body, "usage.input_tokens"), ==, 10);
  g_assert_cmpint (jint (body, "usage.output_tokens"), ==, 5);
}

/* ---- Gemini -------------------------------------------------------------- */

static void
test_gemini_stream_sse (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"reasoning\":\"thinking about it\",\"text\":\"It is 18C in Paris today.\","
    "\"tool_calls\":[{\"id\":\"ignored\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}],"
    "\"usage\":{\"input\":100,\"output\":40,\"cache_read\":20,\"reasoning\":10}}]}");
  g_autoptr(Fetch) f = post (server, "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", "{\"contents\":[]}");
  g_autoptr(GPtrArray) events = parse_sse (body_text (f));
  g_autoptr(GString) thought = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 previous = 0;
  JsonNode *call = NULL;
  JsonNode *last;

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_true (g_str_has_prefix (soup_message_headers_get_content_type (f->headers, NULL), "text/event-stream"));
  g_assert_nonnull (strstr (body_text (f), "}\r\n\r\ndata: "));
  g_assert_null (strstr (body_text (f), "[DONE]"));
  g_assert_cmpuint (events->len, >, 3);
  for (guint i = 0; i < events->len; i++)
    {
      JsonNode *chunk = ev (events, i);
      JsonNode *part = jget (chunk, "candidates.0.content.parts.0");
      gint64 candidates = jint (chunk, "usageMetadata.candidatesTokenCount");

      g_assert_null (((Event *) events->pdata[i])->name);
      g_assert_cmpstr (jstr (chunk, "candidates.0.content.role"), ==, "model");
      g_assert_cmpstr (jstr (chunk, "modelVersion"), ==, "gemini-x");
      g_assert_cmpstr (jstr (chunk, "responseId"), ==, jstr (ev (events, 0), "responseId"));
      g_assert_cmpint (jint (chunk, "usageMetadata.promptTokenCount"), ==, 120);
      g_assert_cmpint (candidates, >=, previous);   /* cumulative */
      previous = candidates;
      if (i + 1 < events->len)
        g_assert_null (jget (chunk, "candidates.0.finishReason"));
      if (jget (part, "functionCall") != NULL)
        call = part;
      else if (jget (part, "thought") != NULL)
        g_string_append (thought, jstr (part, "text"));
      else
        g_string_append (text, jstr (part, "text"));
    }
  g_assert_cmpstr (thought->str, ==, "thinking about it");
  g_assert_cmpstr (text->str, ==, "It is 18C in Paris today.");
  g_assert_nonnull (call);
  g_assert_cmpstr (jstr (call, "functionCall.name"), ==, "get_weather");
  g_assert_cmpstr (jstr (call, "functionCall.args.city"), ==, "Paris");
  g_assert_null (jget (call, "functionCall.id"));
  g_assert_nonnull (jstr (call, "thoughtSignature"));

  last = ev (events, events->len - 1);
  g_assert_cmpstr (jstr (last, "candidates.0.finishReason"), ==, "STOP");
  g_assert_cmpint (jint (last, "usageMetadata.candidatesTokenCount"), ==, 30);
  g_assert_cmpint (jint (last, "usageMetadata.thoughtsTokenCount"), ==, 10);
  g_assert_cmpint (jint (last, "usageMetadata.cachedContentTokenCount"), ==, 20);
  g_assert_cmpint (jint (last, "usageMetadata.totalTokenCount"), ==, 160);
}

static void
test_gemini_stream_array (void)
{
  g_autoptr(OwModelServer) server = server_new ("{\"turns\":[{\"text\":\"one two three four five six\"}]}");
  g_autoptr(Fetch) f = post (server, "/v1beta/models/g:streamGenerateContent", "{}");
  g_autoptr(JsonNode) body = body_json (f);
  JsonArray *chunks;
  guint n;

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (body));
  chunks = json_node_get_array (body);
  n = json_array_get_length (chunks);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (jstr (body, "0.candidates.0.content.parts.0.text"), ==, "one two three fo");
  g_assert_cmpstr (jstr (body, "1.candidates.0.finishReason"), ==, "STOP");
}

static void
test_gemini_whole (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"text\":\"It is\",\"finish\":\"length\",\"reasoning\":\"t\"},"
    "{\"tool_calls\":[{\"name\":\"f\",\"arguments\":{}},{\"name\":\"g\",\"arguments\":{\"x\":[1,2]}}]}]}");
  g_autoptr(Fetch) f = post (server, "/v1beta/models/gemini-y:generateContent", "{}");
  g_autoptr(Fetch) f2 = post (server, "/v1beta/models/gemini-y:generateContent", "{}");
  g_autoptr(JsonNode) body = body_json (f);
  g_autoptr(JsonNode) body2 = body_json (f2);

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_cmpuint (jlen (body, "candidates.0.content.parts"), ==, 2);
  g_assert_nonnull (jget (body, "candidates.0.content.parts.0.thought"));
  g_assert_cmpstr (jstr (body, "candidates.0.content.parts.1.text"), ==, "It is");
  g_assert_nonnull (jstr (body, "candidates.0.content.parts.1.thoughtSignature"));
  g_assert_cmpstr (jstr (body, "candidates.0.finishReason"), ==, "MAX_TOKENS");
  g_assert_cmpstr (jstr (body, "modelVersion"), ==, "gemini-y");
  g_assert_cmpint (jint (body, "usageMetadata.promptTokenCount"), ==, 10);
  g_assert_null (jget (body, "usageMetadata.cachedContentTokenCount"));

  g_assert_cmpuint (jlen (body2, "candidates.0.content.parts"), ==, 2);
  g_assert_cmpstr (jstr (body2, "candidates.0.content.parts.1.functionCall.name"), ==, "g");
  g_assert_cmpint (jint (body2, "candidates.0.content.parts.1.functionCall.args.x.1"), ==, 2);
  g_assert_cmpstr (jstr (body2, "candidates.0.finishReason"), ==, "STOP");
}

/* ---- Ollama -------------------------------------------------------------- */

static void
test_ollama_stream (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"reasoning\":\"hm\",\"text\":\"Reading the file now\","
    "\"tool_calls\":[{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}},"
    "{\"name\":\"raw\",\"arguments_raw\":\"{x\"}],\"usage\":{\"input\":30,\"output\":12,\"cache_read\":5}}]}");
  /* No "stream" member: Ollama streams by default. */
  g_autoptr(Fetch) f = post (server, "/api/chat", "{\"model\":\"qwen3:8b\",\"messages\":[]}");
  g_autoptr(GPtrArray) lines = parse_ndjson (body_text (f));
  g_autoptr(GString) text = g_string_new (NULL);
  JsonNode *calls = NULL;
  JsonNode *last;

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (f->headers, NULL), ==, "application/x-ndjson");
  g_assert_true (g_str_has_suffix (body_text (f), "}\n"));
  g_assert_cmpstr (jstr (lines->pdata[0], "message.thinking"), ==, "hm");
  for (guint i = 0; i + 1 < lines->len; i++)
    {
      JsonNode *line = lines->pdata[i];

      g_assert_cmpstr (jstr (line, "model"), ==, "qwen3:8b");
      g_assert_nonnull (jstr (line, "created_at"));
      g_assert_cmpstr (jstr (line, "message.role"), ==, "assistant");
      g_assert_false (json_node_get_boolean (jget (line, "done")));
      g_string_append (text, jstr (line, "message.content"));
      if (jget (line, "message.tool_calls") != NULL)
        calls = jget (line, "message.tool_calls");
    }
  g_assert_cmpstr (text->str, ==, "Reading the file now");
  g_assert_nonnull (calls);
  g_assert_cmpstr (jstr (calls, "0.function.name"), ==, "read_file");
  g_assert_cmpstr (jstr (calls, "0.function.arguments.path"), ==, "a.txt");
  g_assert_cmpstr (jstr (calls, "1.function.arguments"), ==, "{x");

  last = lines->pdata[lines->len - 1];
  g_assert_true (json_node_get_boolean (jget (last, "done")));
  g_assert_cmpstr (jstr (last, "done_reason"), ==, "stop");
  g_assert_cmpint (jint (last, "prompt_eval_count"), ==, 35);
  g_assert_cmpint (jint (last, "eval_count"), ==, 12);
  g_assert_cmpint (jint (last, "total_duration"), >, 0);
  g_assert_cmpint (jint (last, "eval_duration"), >, 0);
}

static void
test_ollama_whole (void)
{
  g_autoptr(OwModelServer) server = server_new ("{\"turns\":[{\"text\":\"hello\",\"reasoning\":\"t\",\"finish\":\"length\"}]}");
  g_autoptr(Fetch) f = post (server, "/api/chat", "{\"model\":\"llama\",\"stream\":false}");
  g_autoptr(JsonNode) body = body_json (f);

  g_assert_cmpuint (f->status, ==, 200);
  g_assert_cmpstr (jstr (body, "message.content"), ==, "hello");
  g_assert_cmpstr (jstr (body, "message.thinking"), ==, "t");
  g_assert_true (json_node_get_boolean (jget (body, "done")));
  g_assert_cmpstr (jstr (body, "done_reason"), ==, "length");
  g_assert_cmpint (jint (body, "prompt_eval_count"), ==, 10);
  g_assert_cmpint (jint (body, "eval_count"), ==, 5);
}

/* ---- Errors -------------------------------------------------------------- */

typedef enum { CHAT, RESPONSES, ANTHROPIC, GEMINI, OLLAMA, N_STYLES } Style;

static const char *const style_paths[N_STYLES] = {
  "/v1/chat/completions", "/v1/responses", "/v1/messages",
  "/v1beta/models/gm:streamGenerateContent?alt=sse", "/api/chat",
};

static const struct {
  const char *kind;
  guint       status[N_STYLES];
  /* What names the error: OpenAI's code (or type), Anthropic's type,
   * Gemini's status, a piece of Ollama's text. */
  const char *tag[N_STYLES];
} error_table[] = {
  { "rate_limit", { 429, 429, 429, 429, 429 },
    { "rate_limit_exceeded", "rate_limit_exceeded", "rate_limit_error", "RESOURCE_EXHAUSTED", "too many requests" } },
  { "quota", { 429, 429, 400, 429, 429 },
    { "insufficient_quota", "insufficient_quota", "invalid_request_error", "RESOURCE_EXHAUSTED", "credits" } },
  { "overloaded", { 503, 503, 529, 503, 503 },
    { "server_error", "server_error", "overloaded_error", "UNAVAILABLE", "server busy" } },
  { "server", { 500, 500, 500, 500, 500 },
    { "server_error", "server_error", "api_error", "INTERNAL", "terminated" } },
  { "bad_key", { 401, 401, 401, 400, 401 },
    { "invalid_api_key", "invalid_api_key", "authentication_error", "INVALID_ARGUMENT", "unauthorized" } },
  { "unknown_model", { 404, 404, 404, 404, 404 },
    { "model_not_found", "model_not_found", "not_found_error", "NOT_FOUND", "not found, try pulling it" } },
  { "context_overflow", { 400, 400, 400, 400, 400 },
    { "context_length_exceeded", "context_length_exceeded", "invalid_request_error", "INVALID_ARGUMENT", "context length" } },
  { "bad_request", { 400, 400, 400, 400, 400 },
    { "missing_required_parameter", "missing_required_parameter", "invalid_request_error", "INVALID_ARGUMENT", "invalid" } },
  { "permission", { 403, 403, 403, 403, 403 },
    { "unsupported_country_region_territory", "unsupported_country_region_territory", "permission_error",
      "PERMISSION_DENIED", "permission denied" } },
};

/* The wire's name for the error in @body, as error_table spells it. */
static const char *
error_tag (Style     style,
           JsonNode *body)
{
  switch (style)
    {
    case CHAT:
    case RESPONSES:
      return jstr (body, "error.code") != NULL ? jstr (body, "error.code") : jstr (body, "error.type");
    case ANTHROPIC:
      g_assert_cmpstr (jstr (body, "type"), ==, "error");
      return jstr (body, "error.type");
    case GEMINI:
      return jstr (body, "error.status");
    case OLLAMA:
    case N_STYLES:
    default:
      return jstr (body, "error");
    }
}

static void
test_errors_http (void)
{
  for (guint k = 0; k < G_N_ELEMENTS (error_table); k++)
    for (Style s = 0; s < N_STYLES; s++)
      {
        g_autofree char *script = g_strdup_printf (
          "{\"turns\":[{\"error\":{\"kind\":\"%s\",\"retry_after\":%u}}]}", error_table[k].kind, k + 1);
        g_autoptr(OwModelServer) server = server_new (script);
        g_autoptr(Fetch) f = post (server, style_paths[s], "{\"model\":\"the-model\",\"stream\":true}");
        g_autoptr(JsonNode) body = body_json (f);
        g_autofree char *seconds = g_strdup_printf ("%u", k + 1);
        const char *tag = error_tag (s, body);

        g_test_message ("%s in style %d", error_table[k].kind, s);
        g_assert_cmpuint (f->status, ==, error_table[k].status[s]);
        g_assert_true (g_str_has_prefix (soup_message_headers_get_content_type (f->headers, NULL), "application/json"));
        g_assert_nonnull (tag);
        if (s == OLLAMA)
          g_assert_nonnull (strstr (tag, error_table[k].tag[s]));
        else
          g_assert_cmpstr (tag, ==, error_table[k].tag[s]);

        switch (s)
          {
          case CHAT:
          case RESPONSES:
            g_assert_nonnull (jstr (body, "error.message"));
            g_assert_nonnull (jget (body, "error.param"));
            g_assert_cmpstr (soup_message_headers_get_one (f->headers, "retry-after"), ==, seconds);
            g_assert_nonnull (soup_message_headers_get_one (f->headers, "x-request-id"));
            break;
          case ANTHROPIC:
            g_assert_nonnull (jstr (body, "error.message"));
            g_assert_cmpstr (jstr (body, "request_id"), ==, soup_message_headers_get_one (f->headers, "request-id"));
            g_assert_cmpstr (soup_message_headers_get_one (f->headers, "retry-after"), ==, seconds);
            break;
          case GEMINI:
            {
              g_autofree char *delay = g_strdup_printf ("%us", k + 1);
              JsonNode *details = jget (body, "error.details");
              gboolean found = FALSE;

              g_assert_cmpint (jint (body, "error.code"), ==, error_table[k].status[s]);
              for (guint d = 0; details != NULL && d < json_array_get_length (json_node_get_array (details)); d++)
                {
                  JsonNode *detail = json_array_get_element (json_node_get_array (details), d);

                  if (g_str_has_suffix (jstr (detail, "@type"), "google.rpc.RetryInfo"))
                    {
                      g_assert_cmpstr (jstr (detail, "retryDelay"), ==, delay);
                      found = TRUE;
                    }
                }
              g_assert_true (found);
              g_assert_null (soup_message_headers_get_one (f->headers, "retry-after"));
            }
            break;
          case OLLAMA:
          case N_STYLES:
          default:
            g_assert_cmpstr (soup_message_headers_get_one (f->headers, "retry-after"), ==, seconds);
            break;
          }
      }
}

static void
test_errors_words (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":["
    "{\"error\":{\"kind\":\"context_overflow\"}},"
    "{\"error\":{\"kind\":\"quota\"}},"
    "{\"error\":{\"kind\":\"unknown_model\"}},"
    "{\"error\":{\"kind\":\"quota\"}},"
    "{\"error\":{\"status\":418,\"message\":\"I am a teapot\"}},"
    "{\"error\":{\"status\":529}},"
    "{\"error\":{\"kind\":\"server\",\"status\":502}}]}");
  g_autoptr(Fetch) f1 = post (server, "/v1/messages", "{\"model\":\"c\"}");
  g_autoptr(Fetch) f2 = post (server, "/v1/messages", "{\"model\":\"c\"}");
  g_autoptr(Fetch) f3 = post (server, "/api/chat", "{\"model\":\"qwen9\"}");
  g_autoptr(Fetch) f4 = post (server, "/v1beta/models/g:generateContent", "{}");
  g_autoptr(Fetch) f5 = post (server, "/v1/chat/completions", "{}");
  g_autoptr(Fetch) f6 = post (server, "/v1/messages", "{}");
  g_autoptr(Fetch) f7 = post (server, "/v1beta/models/g:generateContent", "{}");
  g_autoptr(JsonNode) b1 = body_json (f1);
  g_autoptr(JsonNode) b2 = body_json (f2);
  g_autoptr(JsonNode) b3 = body_json (f3);
  g_autoptr(JsonNode) b4 = body_json (f4);
  g_autoptr(JsonNode) b5 = body_json (f5);
  g_autoptr(JsonNode) b6 = body_json (f6);
  g_autoptr(JsonNode) b7 = body_json (f7);

  g_assert_nonnull (strstr (jstr (b1, "error.message"), "prompt is too long"));
  g_assert_nonnull (strstr (jstr (b2, "error.message"), "credit balance is too low"));
  g_assert_cmpstr (jstr (b3, "error"), ==, "model \"qwen9\" not found, try pulling it first");
  /* A Gemini quota error names the quota and carries no RetryInfo. */
  g_assert_nonnull (strstr (jstr (b4, "error.message"), "exceeded your current quota"));
  g_assert_cmpstr (jstr (b4, "error.details.0.@type"), ==, "type.googleapis.com/google.rpc.QuotaFailure");
  g_assert_cmpuint (jlen (b4, "error.details"), ==, 1);
  /* A status alone, and a scripted message. */
  g_assert_cmpuint (f5->status, ==, 418);
  g_assert_cmpstr (jstr (b5, "error.message"), ==, "I am a teapot");
  g_assert_cmpuint (f6->status, ==, 529);
  g_assert_cmpstr (jstr (b6, "error.type"), ==, "overloaded_error");
  g_assert_cmpuint (f7->status, ==, 502);
  g_assert_cmpint (jint (b7, "error.code"), ==, 502);
  g_assert_cmpstr (jstr (b7, "error.status"), ==, "UNKNOWN");
}

static void
test_errors_in_stream (void)
{
  for (Style s = 0; s < N_STYLES; s++)
    {
      g_autoptr(OwModelServer) server = server_new (
        "{\"turns\":[{\"text\":\"Partial answer that goes on\",\"error\":{\"kind\":\"overloaded\",\"in_stream\":true}},"
        "{\"text\":\"x\",\"error\":{\"kind\":\"overloaded\",\"in_stream\":true}}]}");
      g_autoptr(Fetch) f = post (server, style_paths[s], "{\"model\":\"m\",\"stream\":true}");
      g_autoptr(Fetch) whole = post (server, s == GEMINI ? "/v1beta/models/gm:generateContent" : style_paths[s],
                                     "{\"model\":\"m\",\"stream\":false}");

      g_test_message ("style %d", s);
      g_assert_cmpuint (f->status, ==, 200);
      g_assert_no_error (f->error);
      /* Without a stream the error can only be an HTTP one. */
      g_assert_cmpuint (whole->status, ==, s == ANTHROPIC ? 529 : 503);

      if (s == OLLAMA)
        {
          g_autoptr(GPtrArray) lines = parse_ndjson (body_text (f));
          JsonNode *last = lines->pdata[lines->len - 1];

          g_assert_cmpuint (lines->len, >, 1);
          g_assert_nonnull (strstr (jstr (last, "error"), "server busy"));
          for (guint i = 0; i < lines->len; i++)
            g_assert_null (jget (lines->pdata[i], "done_reason"));
          continue;
        }
      {
        g_autoptr(GPtrArray) events = parse_sse (body_text (f));
        g_autofree char *names = event_names (events);
        JsonNode *last = ev (events, events->len - 1);

        g_assert_cmpuint (events->len, >, 1);
        g_test_message ("%s", names);
        switch (s)
          {
          case CHAT:
            g_assert_cmpstr (jstr (last, "error.type"), ==, "server_error");
            g_assert_null (strstr (body_text (f), "[DONE]"));
            g_assert_null (strstr (body_text (f), "finish_reason\":\"stop"));
            g_assert_nonnull (strstr (body_text (f), "Partial"));
            break;
          case RESPONSES:
            g_assert_true (g_str_has_suffix (names, ",error,response.failed"));
            g_assert_cmpstr (jstr (ev (events, events->len - 2), "code"), ==, "server_error");
            g_assert_cmpstr (jstr (last, "response.status"), ==, "failed");
            g_assert_cmpstr (jstr (last, "response.error.code"), ==, "server_error");
            g_assert_null (strstr (names, "response.completed"));
            break;
          case ANTHROPIC:
            g_assert_true (g_str_has_prefix (names, "message_start,"));
            g_assert_true (g_str_has_suffix (names, ",error"));
            g_assert_null (strstr (names, "message_stop"));
            g_assert_cmpstr (jstr (last, "type"), ==, "error");
            g_assert_cmpstr (jstr (last, "error.type"), ==, "overloaded_error");
            g_assert_cmpstr (jstr (last, "error.message"), ==, "Overloaded");
            break;
          case GEMINI:
            g_assert_cmpstr (jstr (last, "error.status"), ==, "UNAVAILABLE");
            g_assert_null (strstr (body_text (f), "finishReason"));
            break;
          case OLLAMA:
          case N_STYLES:
          default:
            g_assert_not_reached ();
          }
      }
    }
}

/* ---- Cut-off replies ----------------------------------------------------- */

/* Splits a raw HTTP response into its head and its de-chunked body;
 * *complete tells whether the last chunk (size 0) arrived. */
static char *
dechunk (const char  *raw,
         char       **head_out,
         gboolean    *complete)
{
  const char *end_of_head = strstr (raw, "\r\n\r\n");
  const char *p;
  GString *body = g_string_new (NULL);

  g_assert_nonnull (end_of_head);
  *head_out = g_strndup (raw, (gsize) (end_of_head - raw));
  *complete = FALSE;
  p = end_of_head + 4;
  while (*p != '\0')
    {
      char *line_end = NULL;
      guint64 size = g_ascii_strtoull (p, &line_end, 16);

      g_assert_true (g_str_has_prefix (line_end, "\r\n"));
      p = line_end + 2;
      if (size == 0)
        {
          *complete = g_str_equal (p, "\r\n");
          break;
        }
      g_assert_cmpuint (strlen (p), >=, size + 2);
      g_string_append_len (body, p, (gssize) size);
      p += size;
      g_assert_true (g_str_has_prefix (p, "\r\n"));
      p += 2;
    }
  return g_string_free (body, FALSE);
}

static guint
count_events (Style       style,
              const char *body)
{
  if (style == OLLAMA)
    {
      g_autoptr(GPtrArray) lines = parse_ndjson (body);

      g_assert_true (body[0] == '\0' || g_str_has_suffix (body, "\n"));
      return lines->len;
    }
  else
    {
      g_autoptr(GPtrArray) events = parse_sse (body);

      g_assert_true (body[0] == '\0' || g_str_has_suffix (body, "\n\n") || g_str_has_suffix (body, "\r\n\r\n"));
      return events->len;
    }
}

static void
test_drop_stream (void)
{
  for (Style s = 0; s < N_STYLES; s++)
    {
      g_autoptr(OwModelServer) server = server_new (
        "{\"turns\":[{\"text\":\"This reply never finishes, it is cut off.\",\"drop_after\":2},"
        "{\"text\":\"short\",\"drop_after\":1000},"
        "{\"text\":\"short\"},"
        "{\"text\":\"paced and cut\",\"text_chunks\":5,\"drop_after\":3,\"chunk_delay_ms\":10},"
        "{\"text\":\"fine\"}]}");
      guint port = ow_model_server_get_port (server);
      const char *request = "{\"model\":\"m\",\"stream\":true}";
      g_autofree char *raw1 = raw_post_until_close (port, style_paths[s], request);
      g_autofree char *raw2 = raw_post_until_close (port, style_paths[s], request);
      g_autoptr(Fetch) whole = post (server, style_paths[s], request);
      g_autofree char *raw4 = raw_post_until_close (port, style_paths[s], request);
      g_autoptr(Fetch) after = post (server, style_paths[s], request);
      g_autofree char *head1 = NULL, *head2 = NULL, *head4 = NULL;
      g_autofree char *body1 = NULL, *body2 = NULL, *body4 = NULL;
      gboolean complete1, complete2, complete4;
      guint n_whole;

      g_test_message ("style %d", s);
      body1 = dechunk (raw1, &head1, &complete1);
      body2 = dechunk (raw2, &head2, &complete2);
      body4 = dechunk (raw4, &head4, &complete4);
      g_assert_true (g_str_has_prefix (head1, "HTTP/1.1 200 OK\r\n"));
      g_assert_nonnull (strstr (head1, "\r\nTransfer-Encoding: chunked"));
      g_assert_false (complete1);
      g_assert_false (complete2);
      g_assert_false (complete4);
      g_assert_cmpuint (count_events (s, body1), ==, 2);
      g_assert_cmpuint (count_events (s, body4), ==, 3);

      /* drop_after beyond the end still holds the terminal event back. */
      n_whole = count_events (s, body_text (whole));
      g_assert_cmpuint (count_events (s, body2), ==, n_whole - 1);
      g_assert_null (strstr (body2, "[DONE]"));
      g_assert_null (strstr (body2, "message_stop"));
      g_assert_null (strstr (body2, "response.completed"));
      g_assert_null (strstr (body2, "finishReason"));
      g_assert_null (strstr (body2, "done_reason"));

      /* The server goes on serving after a cut. */
      g_assert_no_error (after->error);
      g_assert_cmpuint (after->status, ==, 200);
      g_assert_nonnull (strstr (body_text (after), "fine"));
    }
}

static void
test_drop_whole (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"text\":\"cut\",\"drop_after\":10},{\"text\":\"cut\",\"drop_after\":0,\"delay_ms\":20}]}");
  guint port = ow_model_server_get_port (server);
  g_autofree char *raw1 = raw_post_until_close (port, "/v1/chat/completions", "{\"model\":\"m\"}");
  g_autofree char *raw2 = raw_post_until_close (port, "/v1/messages", "{\"model\":\"m\"}");
  const char *body1 = strstr (raw1, "\r\n\r\n") + 4;
  const char *length = strstr (raw1, "\r\nContent-Length: ");

  g_assert_true (g_str_has_prefix (raw1, "HTTP/1.1 200 OK\r\n"));
  g_assert_nonnull (length);
  g_assert_cmpuint (g_ascii_strtoull (length + strlen ("\r\nContent-Length: "), NULL, 10), >, 10);
  g_assert_cmpstr (body1, ==, "{\"id\":\"cha");
  g_assert_nonnull (strstr (raw2, "\r\nrequest-id: req_"));
  g_assert_true (g_str_has_suffix (raw2, "\r\n\r\n"));
}

/* ---- Script mechanics ---------------------------------------------------- */

static void
test_repeat (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"text\":\"reply {n} of 3\",\"repeat\":3,"
    "\"tool_calls\":[{\"id\":\"call_{n}\",\"name\":\"t\",\"arguments\":{\"i\":\"{n}\"}}]},{\"text\":\"last\"}]}");
  g_autoptr(SoupSession) session = session_new ();
  guint port = ow_model_server_get_port (server);

  g_assert_cmpuint (ow_model_server_get_remaining (server), ==, 4);
  for (guint i = 1; i <= 3; i++)
    {
      g_autoptr(Fetch) f = fetch_full (session, port, "POST", "/v1/chat/completions", "{\"model\":\"m\"}", -1, NULL, NULL);
      g_autoptr(JsonNode) body = body_json (f);
      g_autofree char *text = g_strdup_printf ("reply %u of 3", i);
      g_autofree char *id = g_strdup_printf ("call_%u", i);
      g_autofree char *args = g_strdup_printf ("{\"i\":\"%u\"}", i);

      g_assert_cmpstr (jstr (body, "choices.0.message.content"), ==, text);
      g_assert_cmpstr (jstr (body, "choices.0.message.tool_calls.0.id"), ==, id);
      g_assert_cmpstr (jstr (body, "choices.0.message.tool_calls.0.function.arguments"), ==, args);
      g_assert_cmpuint (ow_model_server_get_served (server), ==, i);
      g_assert_cmpuint (ow_model_server_get_remaining (server), ==, 4 - i);
    }
  {
    g_autoptr(Fetch) state = fetch_full (session, port, "GET", "/_script/state", NULL, -1, NULL, NULL);
    g_autoptr(JsonNode) body = body_json (state);

    g_assert_cmpint (jint (body, "served"), ==, 3);
    g_assert_cmpint (jint (body, "remaining"), ==, 1);
  }
  {
    g_autoptr(Fetch) f = fetch_full (session, port, "POST", "/v1/chat/completions", "{}", -1, NULL, NULL);
    g_autoptr(JsonNode) body = body_json (f);

    g_assert_cmpstr (jstr (body, "choices.0.message.content"), ==, "last");
    g_assert_cmpstr (jstr (body, "model"), ==, "scripted-model");
  }
}

static void
test_exhausted (void)
{
  g_autoptr(OwModelServer) server = server_new ("{\"turns\":[{\"text\":\"only\",\"repeat\":2}]}");
  g_autoptr(Fetch) f1 = post (server, "/api/chat", "{\"stream\":false}");
  g_autoptr(Fetch) f2 = post (server, "/api/chat", "{\"stream\":false}");
  g_autoptr(Fetch) f3 = post (server, "/api/chat", "{\"stream\":false}");
  g_autoptr(JsonNode) body = body_json (f3);
  JsonArray *requests = ow_model_server_get_requests (server);

  g_assert_cmpuint (f1->status, ==, 200);
  g_assert_cmpuint (f2->status, ==, 200);
  g_assert_cmpuint (f3->status, ==, 500);
  g_assert_cmpstr (jstr (body, "error.message"), ==, "script exhausted after 2 turns");
  g_assert_cmpuint (json_array_get_length (requests), ==, 3);
  g_assert_true (json_node_is_null (json_object_get_member (json_array_get_object_element (requests, 2), "turn")));
  g_assert_cmpuint (ow_model_server_get_remaining (server), ==, 0);
}

static void
test_expectations (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"style\":\"openai-chat\",\"turns\":["
    "{\"text\":\"ok\",\"expect\":{\"path\":\"/v1/chat/completions\",\"model\":\"gpt-a\","
    "  \"header\":{\"Authorization\":\"Bearer sk-test\"},\"body_contains\":[\"\\\"tools\\\"\",\"read_file\"],"
    "  \"last_message_contains\":\"the tool said hi\"}},"
    "{\"text\":\"no\",\"expect\":{\"model\":\"gpt-b\"}},"
    "{\"text\":\"no\",\"expect\":{\"header\":{\"x-api-key\":\"k\"}}},"
    "{\"text\":\"no\",\"expect\":{\"body_contains\":\"missing words\"}},"
    "{\"text\":\"no\",\"expect\":{\"last_message_contains\":\"first\"}},"
    "{\"text\":\"wrong style\"},"
    "{\"text\":\"after\"}]}");
  guint port = ow_model_server_get_port (server);
  const char *body = "{\"model\":\"gpt-a\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"read_file\"}}],"
                     "\"messages\":[{\"role\":\"user\",\"content\":\"first\"},"
                     "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":[{\"type\":\"text\",\"text\":\"the tool said hi\"}]}]}";
  g_autoptr(Fetch) ok = fetch_full (NULL, port, "POST", "/v1/chat/completions", body, -1, "Authorization", "Bearer sk-test");
  g_autoptr(Fetch) model = post (server, "/v1/chat/completions", body);
  g_autoptr(Fetch) header = post (server, "/v1/chat/completions", body);
  g_autoptr(Fetch) contains = post (server, "/v1/chat/completions", body);
  g_autoptr(Fetch) last = post (server, "/v1/chat/completions", body);
  g_autoptr(Fetch) style = post (server, "/v1/messages", body);
  g_autoptr(Fetch) after = post (server, "/v1/chat/completions", body);
  g_autoptr(JsonNode) model_body = body_json (model);
  g_autoptr(JsonNode) style_body = body_json (style);
  JsonArray *requests = ow_model_server_get_requests (server);
  JsonObject *record;

  g_assert_cmpuint (ok->status, ==, 200);
  g_assert_cmpuint (model->status, ==, 400);
  g_assert_cmpstr (jstr (model_body, "error"), ==,
                   "script expectation failed: turn 1: expected model \"gpt-b\", got \"gpt-a\"");
  g_assert_cmpuint (header->status, ==, 400);
  g_assert_nonnull (strstr (body_text (header), "expected header x-api-key"));
  g_assert_cmpuint (contains->status, ==, 400);
  g_assert_nonnull (strstr (body_text (contains), "missing words"));
  g_assert_cmpuint (last->status, ==, 400);
  g_assert_nonnull (strstr (body_text (last), "last message"));
  g_assert_cmpuint (style->status, ==, 400);
  g_assert_true (g_str_has_prefix (jstr (style_body, "error"), "script expectation failed: turn 5: the script is for openai-chat"));
  /* A failed turn is consumed: the script stays in step. */
  g_assert_cmpuint (after->status, ==, 200);
  g_assert_nonnull (strstr (body_text (after), "after"));

  record = json_array_get_object_element (requests, 1);
  g_assert_cmpint (json_object_get_int_member (record, "turn"), ==, 1);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (record, "expectation"), "script expectation failed"));
  g_assert_false (json_object_has_member (json_array_get_object_element (requests, 0), "expectation"));
}

static void
test_records (void)
{
  g_autoptr(OwModelServer) server = server_new ("{\"turns\":[{\"text\":\"a\"},{\"text\":\"b\"}]}");
  guint port = ow_model_server_get_port (server);
  g_autoptr(Fetch) f1 = fetch_full (NULL, port, "POST", "/v1beta/models/g:generateContent?key=abc", "{\"contents\":[1]}",
                                    -1, "X-Goog-Api-Key", "secret");
  g_autoptr(Fetch) f2 = fetch_full (NULL, port, "POST", "/v1/chat/completions", "not json {", -1, NULL, NULL);
  g_autoptr(Fetch) control = get (server, "/_script/requests");
  g_autoptr(Fetch) unknown = get (server, "/nowhere");
  g_autoptr(JsonNode) listed = body_json (control);
  JsonArray *requests = ow_model_server_get_requests (server);
  JsonObject *r1 = json_array_get_object_element (requests, 0);
  JsonObject *r2 = json_array_get_object_element (requests, 1);
  JsonObject *r3 = json_array_get_object_element (requests, 2);

  g_assert_cmpuint (f1->status, ==, 200);
  g_assert_cmpuint (f2->status, ==, 200);
  g_assert_cmpuint (unknown->status, ==, 404);
  /* Control routes are not recorded; everything else is. */
  g_assert_cmpuint (json_array_get_length (requests), ==, 3);
  g_assert_cmpuint (jlen (listed, ""), ==, 2);   /* as it was when listed */

  g_assert_cmpstr (json_object_get_string_member (r1, "method"), ==, "POST");
  g_assert_cmpstr (json_object_get_string_member (r1, "path"), ==, "/v1beta/models/g:generateContent");
  g_assert_cmpstr (json_object_get_string_member (r1, "query"), ==, "key=abc");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (r1, "headers"), "x-goog-api-key"), ==, "secret");
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (json_object_get_object_member (r1, "body"), "contents"), 0), ==, 1);
  g_assert_cmpint (json_object_get_int_member (r1, "turn"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (r1, "n"), ==, 1);

  g_assert_cmpstr (json_object_get_string_member (r2, "body"), ==, "not json {");
  g_assert_cmpint (json_object_get_int_member (r2, "turn"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (r2, "n"), ==, 2);
  g_assert_true (json_node_is_null (json_object_get_member (r2, "query")));

  g_assert_cmpstr (json_object_get_string_member (r3, "method"), ==, "GET");
  g_assert_true (json_node_is_null (json_object_get_member (r3, "body")));
  g_assert_true (json_node_is_null (json_object_get_member (r3, "turn")));
  g_assert_cmpint (json_object_get_int_member (r3, "n"), ==, 3);

  g_assert_cmpstr (jstr (listed, "0.headers.x-goog-api-key"), ==, "secret");
  g_assert_cmpint (jint (listed, "1.n"), ==, 2);
}

static void
test_models (void)
{
  g_autoptr(OwModelServer) server = server_new ("{\"models\":[\"m1\",\"m2\"],\"turns\":[]}");
  guint port = ow_model_server_get_port (server);
  g_autoptr(Fetch) openai = get (server, "/v1/models");
  g_autoptr(Fetch) gemini = get (server, "/v1beta/models");
  g_autoptr(Fetch) anthropic = fetch_full (NULL, port, "GET", "/v1/models", NULL, -1, "anthropic-version", "2023-06-01");
  g_autoptr(Fetch) tags = get (server, "/api/tags");
  g_autoptr(Fetch) show = post (server, "/api/show", "{\"model\":\"m2\"}");
  g_autoptr(Fetch) show_missing = post (server, "/api/show", "{\"model\":\"m3\"}");
  g_autoptr(Fetch) one = get (server, "/v1/models/m1");
  g_autoptr(Fetch) missing = get (server, "/v1/models/zz");
  g_autoptr(JsonNode) b_openai = body_json (openai);
  g_autoptr(JsonNode) b_gemini = body_json (gemini);
  g_autoptr(JsonNode) b_anthropic = body_json (anthropic);
  g_autoptr(JsonNode) b_tags = body_json (tags);
  g_autoptr(JsonNode) b_show = body_json (show);
  g_autoptr(JsonNode) b_one = body_json (one);

  g_assert_cmpstr (jstr (b_openai, "object"), ==, "list");
  g_assert_cmpstr (jstr (b_openai, "data.1.id"), ==, "m2");
  g_assert_cmpstr (jstr (b_openai, "data.0.object"), ==, "model");
  g_assert_cmpstr (jstr (b_gemini, "models.0.name"), ==, "models/m1");
  g_assert_cmpint (jint (b_gemini, "models.0.inputTokenLimit"), >, 0);
  g_assert_cmpstr (jstr (b_anthropic, "data.0.type"), ==, "model");
  g_assert_cmpstr (jstr (b_anthropic, "last_id"), ==, "m2");
  g_assert_cmpstr (jstr (b_tags, "models.1.name"), ==, "m2");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (b_show), "model_info"),
                                               "qwen3.context_length"), >, 0);
  g_assert_cmpstr (jstr (b_show, "capabilities.1"), ==, "tools");
  g_assert_cmpuint (show_missing->status, ==, 404);
  g_assert_cmpstr (jstr (b_one, "id"), ==, "m1");
  g_assert_cmpuint (missing->status, ==, 404);
  g_assert_cmpuint (ow_model_server_get_served (server), ==, 0);
}

static void
test_raw (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"raw\":{\"status\":502,\"headers\":{\"Content-Type\":\"text/html\",\"X-Thing\":\"1\"},"
    "\"body\":\"<html>Bad gateway</html>\"}}]}");
  g_autoptr(Fetch) f = post (server, "/v1/messages", "{}");

  g_assert_cmpuint (f->status, ==, 502);
  g_assert_cmpstr (soup_message_headers_get_content_type (f->headers, NULL), ==, "text/html");
  g_assert_cmpstr (soup_message_headers_get_one (f->headers, "x-thing"), ==, "1");
  g_assert_cmpstr (body_text (f), ==, "<html>Bad gateway</html>");
}

static void
test_text_chunks (void)
{
  /* Default pieces are at most 16 bytes and never split a character. */
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"text\":\"ααααααααααααααααααα😀😀😀😀😀 end\"},{\"text\":\"abcdef\",\"text_chunks\":100}]}");
  g_autoptr(Fetch) f = post (server, "/api/chat", "{}");
  g_autoptr(Fetch) f2 = post (server, "/api/chat", "{}");
  g_autoptr(GPtrArray) lines = parse_ndjson (body_text (f));
  g_autoptr(GPtrArray) lines2 = parse_ndjson (body_text (f2));
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i + 1 < lines->len; i++)
    {
      const char *piece = jstr (lines->pdata[i], "message.content");

      g_assert_true (g_utf8_validate (piece, -1, NULL));
      g_assert_cmpuint (strlen (piece), <=, 16);
      g_assert_cmpuint (strlen (piece), >, 0);
      g_string_append (text, piece);
    }
  g_assert_cmpstr (text->str, ==, "ααααααααααααααααααα😀😀😀😀😀 end");
  /* More chunks than characters: one per character. */
  g_assert_cmpuint (lines2->len, ==, 7);
}

/* ---- Timing -------------------------------------------------------------- */

static void
test_delays (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"text\":\"slow\",\"delay_ms\":60},{\"text\":\"a b c d\",\"text_chunks\":4,\"chunk_delay_ms\":30},"
    "{\"text\":\"a b c d e f g h\",\"chunk_delay_ms\":40,\"text_chunks\":8},{\"text\":\"after\",\"delay_ms\":30}]}");
  guint port = ow_model_server_get_port (server);
  gint64 start = g_get_monotonic_time ();
  g_autoptr(Fetch) delayed = post (server, "/v1/chat/completions", "{}");
  gint64 after_delay = g_get_monotonic_time ();
  g_autoptr(Fetch) paced = post (server, "/v1/chat/completions", "{\"stream\":true}");
  gint64 after_paced = g_get_monotonic_time ();
  g_autoptr(GPtrArray) events = parse_sse (body_text (paced));
  g_autoptr(Fetch) left = NULL;
  g_autoptr(Fetch) after = NULL;

  /* Lower bounds only: a slow machine is never a failure. */
  g_assert_cmpuint (delayed->status, ==, 200);
  g_assert_cmpint (after_delay - start, >=, 60 * 1000);
  g_assert_cmpuint (events->len, ==, 7);
  g_assert_cmpint (after_paced - after_delay, >=, 6 * 30 * 1000);

  /* A client that leaves in the middle of a paced stream stops it cleanly. */
  left = fetch_full (NULL, port, "POST", "/v1/chat/completions", "{\"stream\":true}", 100, NULL, NULL);
  g_assert_cmpuint (left->status, ==, 200);
  g_assert_cmpuint (left->body->len, >=, 100);
  after = post (server, "/v1/chat/completions", "{}");
  g_assert_cmpuint (after->status, ==, 200);
  g_assert_nonnull (strstr (body_text (after), "after"));
}

static void
test_keep_alive (void)
{
  g_autoptr(OwModelServer) server = server_new (
    "{\"turns\":[{\"text\":\"streamed answer {n}\",\"repeat\":40},{\"text\":\"plain {n}\",\"repeat\":40}]}");
  g_autoptr(SoupSession) session = session_new ();
  guint port = ow_model_server_get_port (server);
  guint64 connection = 0;

  for (guint i = 0; i < 80; i++)
    {
      g_autoptr(Fetch) f = fetch_full (session, port, "POST", "/v1/chat/completions",
                                       "{\"model\":\"m\",\"stream\":true}", -1, NULL, NULL);

      g_assert_no_error (f->error);
      g_assert_cmpuint (f->status, ==, 200);
      if (i == 0)
        connection = f->connection;
      g_assert_cmpuint (f->connection, ==, connection);
    }
  g_assert_cmpuint (ow_model_server_get_remaining (server), ==, 0);
}

static void
on_timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
}

static void
test_dispose_in_flight (void)
{
  /* The server goes away with a delayed reply, a paced stream and a cut
   * pending: nothing may crash, leak or warn. */
  OwModelServer *server = server_new (
    "{\"turns\":[{\"text\":\"x\",\"delay_ms\":5000},{\"text\":\"a b c\",\"text_chunks\":3,\"chunk_delay_ms\":5000},"
    "{\"text\":\"a b c\",\"text_chunks\":3,\"chunk_delay_ms\":5000,\"drop_after\":2}]}");
  g_autoptr(SoupSession) session = session_new ();
  g_autofree char *url = ow_model_server_get_url (server);
  gboolean waited = FALSE;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *full = g_strconcat (url, "/v1/chat/completions", NULL);
      SoupMessage *msg = soup_message_new ("POST", full);
      g_autoptr(GBytes) bytes = g_bytes_new_static ("{\"stream\":true}", 15);

      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
      soup_session_send_async (session, msg, G_PRIORITY_DEFAULT, NULL, NULL, NULL);
      g_object_unref (msg);
    }
  g_timeout_add_once (300, on_timeout_cb, &waited);
  ow_test_wait_flag (&waited);
  g_assert_cmpuint (ow_model_server_get_served (server), ==, 3);
  g_object_add_weak_pointer (G_OBJECT (server), (gpointer *) &server);
  g_object_unref (server);
  g_assert_null (server);
  soup_session_abort (session);
}

/* ---- Bad scripts --------------------------------------------------------- */

static void
test_invalid_scripts (void)
{
  static const struct {
    const char *script;
    const char *message;
  } cases[] = {
    { "[]", "must be a JSON object" },
    { "{}", "turns: an array of turns is required" },
    { "{\"turns\":[],\"extra\":1}", "unknown key \"extra\"" },
    { "{\"style\":\"openai\",\"turns\":[]}", "unknown style \"openai\"" },
    { "{\"models\":[1],\"turns\":[]}", "models" },
    { "{\"turns\":[{\"txt\":\"typo\"}]}", "turns[0]: unknown key \"txt\"" },
    { "{\"turns\":[{},{\"text\":1}]}", "turns[1]: \"text\" must be a string" },
    { "{\"turns\":[{\"finish\":\"done\"}]}", "\"finish\" must be one of" },
    { "{\"turns\":[{\"error\":{\"kind\":\"nope\"}}]}", "turns[0].error: unknown kind \"nope\"" },
    { "{\"turns\":[{\"error\":{}}]}", "give a \"kind\" or a \"status\"" },
    { "{\"turns\":[{\"error\":{\"status\":99}}]}", "between 100 and 599" },
    { "{\"turns\":[{\"tool_calls\":[{\"arguments\":{}}]}]}", "turns[0].tool_calls[0]: \"name\" is required" },
    { "{\"turns\":[{\"tool_calls\":[{\"name\":\"a\",\"arguments\":{},\"arguments_raw\":\"x\"}]}]}", "not both" },
    { "{\"turns\":[{\"tool_calls\":[{\"name\":\"a\",\"arguments\":[1]}]}]}", "\"arguments\" must be an object" },
    { "{\"turns\":[{\"usage\":{\"output\":1,\"reasoning\":2}}]}", "cannot exceed" },
    { "{\"turns\":[{\"usage\":{\"inputs\":1}}]}", "turns[0].usage: unknown key \"inputs\"" },
    { "{\"turns\":[{\"repeat\":0}]}", "\"repeat\" must be between 1" },
    { "{\"turns\":[{\"expect\":{\"body_contains\":[1]}}]}", "body_contains" },
    { "{\"turns\":[{\"raw\":{\"headers\":{\"a\":1}}}]}", "turns[0].raw" },
    { "{\"turns\":[{\"raw\":{},\"error\":{\"kind\":\"server\"}}]}", "not both" },
    { "{\"turns\":[{\"stream\":\"yes\"}]}", "true or false" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = json_from_string (cases[i].script, &error);
      g_autoptr(OwModelServer) server = NULL;

      g_assert_no_error (error);
      server = ow_model_server_new (node, &error);
      g_assert_null (server);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_test_message ("%s → %s", cases[i].script, error->message);
      g_assert_nonnull (strstr (error->message, cases[i].message));
      g_assert_true (g_str_has_prefix (error->message, "Invalid model-server script: "));
    }
}

/* ---- The program --------------------------------------------------------- */

static guint
read_port_line (GSubprocess *process,
                GDataInputStream **out)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  *out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  line = g_data_input_stream_read_line (*out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "PORT="));
  return (guint) g_ascii_strtoull (line + 5, NULL, 10);
}

static void
finish_program (GSubprocess      *process,
                GDataInputStream *out)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *rest = NULL;

  g_subprocess_send_signal (process, SIGTERM);
  g_assert_true (g_subprocess_wait (process, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  /* Exactly one line: nothing after PORT=. */
  rest = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (rest);
}

static void
test_program (void)
{
  g_autofree char *program = g_test_build_filename (G_TEST_BUILT, "model-server", "ow-model-server", NULL);
  g_autofree char *dir = ow_test_make_tmpdir ("ow-model-server");
  g_autofree char *script = g_build_filename (dir, "script.json", NULL);
  g_autofree char *log = g_build_filename (dir, "requests.jsonl", NULL);
  g_autofree char *logged = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(JsonNode) first = NULL;
  guint port;

  g_assert_true (g_file_set_contents (script, "{\"turns\":[{\"text\":\"from a file\"}]}", -1, NULL));
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, program, "--script", script,
                              "--log", log, NULL);
  g_assert_no_error (error);
  port = read_port_line (process, &out);
  {
    g_autoptr(Fetch) f = fetch_full (NULL, port, "POST", "/v1/chat/completions", "{\"model\":\"p\"}", -1, NULL, NULL);
    g_autoptr(Fetch) f2 = fetch_full (NULL, port, "GET", "/api/tags", NULL, -1, NULL, NULL);

    g_assert_cmpuint (f->status, ==, 200);
    g_assert_nonnull (strstr (body_text (f), "from a file"));
    g_assert_cmpuint (f2->status, ==, 200);
  }
  finish_program (process, out);

  g_assert_true (g_file_get_contents (log, &logged, NULL, NULL));
  lines = g_strsplit (logged, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);   /* two lines and the empty rest */
  first = json_from_string (lines[0], &error);
  g_assert_no_error (error);
  g_assert_cmpstr (jstr (first, "path"), ==, "/v1/chat/completions");
  g_assert_cmpstr (jstr (first, "body.model"), ==, "p");
  g_assert_cmpint (jint (first, "turn"), ==, 0);
  g_assert_cmpstr (lines[2], ==, "");

  g_unlink (log);
  g_unlink (script);
  g_rmdir (dir);
}

static void
test_program_stdin (void)
{
  g_autofree char *program = g_test_build_filename (G_TEST_BUILT, "model-server", "ow-model-server", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GSubprocess) bad = NULL;
  g_autofree char *bad_err = NULL;
  const char *script = "{\"turns\":[{\"text\":\"from stdin\"}]}";
  GOutputStream *in;
  guint port;

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDIN_PIPE, &error,
                              program, "--script", "-", NULL);
  g_assert_no_error (error);
  in = g_subprocess_get_stdin_pipe (process);
  g_assert_true (g_output_stream_write_all (in, script, strlen (script), NULL, NULL, &error));
  g_assert_true (g_output_stream_close (in, NULL, &error));
  port = read_port_line (process, &out);
  {
    g_autoptr(Fetch) f = fetch_full (NULL, port, "POST", "/api/chat", "{\"stream\":false}", -1, NULL, NULL);
    g_autoptr(Fetch) state = fetch_full (NULL, port, "GET", "/_script/state", NULL, -1, NULL, NULL);

    g_assert_nonnull (strstr (body_text (f), "from stdin"));
    g_assert_nonnull (strstr (body_text (state), "\"served\":1"));
  }
  finish_program (process, out);

  /* A bad script: a message on stderr and a failing exit, no PORT line. */
  bad = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE
                          | G_SUBPROCESS_FLAGS_STDIN_PIPE, &error, program, "--script", "-", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (bad, "{\"turns\":[{\"bogus\":1}]}", NULL, NULL, &bad_err, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (bad), ==, 1);
  g_assert_nonnull (strstr (bad_err, "unknown key \"bogus\""));
}

/* GLib keeps the directory strings of G_TEST_OPTION_ISOLATE_DIRS for the
 * life of the process, which LeakSanitizer reports after every case. The
 * suppression needs whole allocation stacks, and the fast unwinder stops
 * inside GLib (built without frame pointers). Only sanitizer builds read
 * these two. */
const char *__asan_default_options (void);
const char *__lsan_default_suppressions (void);

const char *
__asan_default_options (void)
{
  return "fast_unwind_on_malloc=0";
}

const char *
__lsan_default_suppressions (void)
{
  return "leak:g_set_user_dirs\n";
}

int
main (int   argc,
      char *argv[])
{
  /* libproxy's resolver thread is not needed on loopback, and trips
   * the sanitizers. */
  g_setenv ("GIO_USE_PROXY_RESOLVER", "dummy", TRUE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/tests/model-server/openai-chat/stream-text", test_openai_chat_stream_text);
  g_test_add_func ("/ow/tests/model-server/openai-chat/stream-tools", test_openai_chat_stream_tools);
  g_test_add_func ("/ow/tests/model-server/openai-chat/stream-reasoning", test_openai_chat_stream_reasoning);
  g_test_add_func ("/ow/tests/model-server/openai-chat/whole", test_openai_chat_whole);
  g_test_add_func ("/ow/tests/model-server/openai-responses/stream", test_openai_responses_stream);
  g_test_add_func ("/ow/tests/model-server/openai-responses/whole", test_openai_responses_whole);
  g_test_add_func ("/ow/tests/model-server/anthropic/stream", test_anthropic_stream);
  g_test_add_func ("/ow/tests/model-server/anthropic/whole", test_anthropic_whole);
  g_test_add_func ("/ow/tests/model-server/gemini/stream-sse", test_gemini_stream_sse);
  g_test_add_func ("/ow/tests/model-server/gemini/stream-array", test_gemini_stream_array);
  g_test_add_func ("/ow/tests/model-server/gemini/whole", test_gemini_whole);
  g_test_add_func ("/ow/tests/model-server/ollama/stream", test_ollama_stream);
  g_test_add_func ("/ow/tests/model-server/ollama/whole", test_ollama_whole);
  g_test_add_func ("/ow/tests/model-server/errors/http", test_errors_http);
  g_test_add_func ("/ow/tests/model-server/errors/words", test_errors_words);
  g_test_add_func ("/ow/tests/model-server/errors/in-stream", test_errors_in_stream);
  g_test_add_func ("/ow/tests/model-server/drop/stream", test_drop_stream);
  g_test_add_func ("/ow/tests/model-server/drop/whole", test_drop_whole);
  g_test_add_func ("/ow/tests/model-server/script/repeat", test_repeat);
  g_test_add_func ("/ow/tests/model-server/script/exhausted", test_exhausted);
  g_test_add_func ("/ow/tests/model-server/script/expectations", test_expectations);
  g_test_add_func ("/ow/tests/model-server/script/records", test_records);
  g_test_add_func ("/ow/tests/model-server/script/models", test_models);
  g_test_add_func ("/ow/tests/model-server/script/raw", test_raw);
  g_test_add_func ("/ow/tests/model-server/script/text-chunks", test_text_chunks);
  g_test_add_func ("/ow/tests/model-server/script/invalid", test_invalid_scripts);
  g_test_add_func ("/ow/tests/model-server/timing/delays", test_delays);
  g_test_add_func ("/ow/tests/model-server/timing/keep-alive", test_keep_alive);
  g_test_add_func ("/ow/tests/model-server/timing/dispose-in-flight", test_dispose_in_flight);
  g_test_add_func ("/ow/tests/model-server/program/file-and-log", test_program);
  g_test_add_func ("/ow/tests/model-server/program/stdin", test_program_stdin);

  return g_test_run ();
}
