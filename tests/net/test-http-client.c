/* test-http-client.c: OwHttpClient against real servers on 127.0.0.1.
 *
 * A SoupServer on the test's own main context plays the well-behaved
 * server: plain replies, error statuses, big bodies, and chunked streams the
 * test drives piece by piece (paused messages, unpaused per chunk). A raw
 * GSocketService plays what SoupServer will not: a response cut off before
 * its end, and a stand-in HTTP proxy.
 *
 * Nothing here asserts on time. Streaming, cancellation and concurrency are
 * proved by ordering: the server sends a piece only after the client saw the
 * previous one; a request cancelled mid-stream is followed by more data, the
 * end of the server's message and a whole other request, and still no
 * further chunk arrived; concurrent requests are answered only once all of
 * them reached the server. Every call checks that its callback ran exactly
 * once, after draining whatever else the main context had ready.
 */
#include <string.h>

#include <libsoup/soup.h>

#include "net/ow-http-client.h"
#include "ow-error.h"
#include "ow-test-utils.h"

/* ---- Raw server ------------------------------------------------------- */

typedef struct
{
  GSocketService *service;       /* accepts on 127.0.0.1:@port */
  guint16         port;          /* where it listens */
  char           *response;      /* written after each request head; then close */
  guint           n_connections; /* connections accepted */
} RawServer;

typedef struct
{
  GSocketConnection *conn;       /* the accepted connection */
  char              *response;   /* copy of the server's canned response */
  GString           *head;       /* request bytes read so far */
  char               buf[4096];  /* read buffer */
} RawConn;

static void raw_conn_read (RawConn *rc);

static void
raw_conn_free (RawConn *rc)
{
  g_io_stream_close (G_IO_STREAM (rc->conn), NULL, NULL);
  g_object_unref (rc->conn);
  g_free (rc->response);
  g_string_free (rc->head, TRUE);
  g_free (rc);
}

static void
on_raw_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  RawConn *rc = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);
  GOutputStream *out;

  if (n <= 0)
    {
      raw_conn_free (rc);
      return;
    }
  g_string_append_len (rc->head, rc->buf, n);
  if (strstr (rc->head->str, "\r\n\r\n") == NULL)
    {
      raw_conn_read (rc);
      return;
    }

  /* A few hundred bytes into an empty socket buffer: a blocking write is
   * instant, and closing right after is the point. */
  out = g_io_stream_get_output_stream (G_IO_STREAM (rc->conn));
  g_output_stream_write_all (out, rc->response, strlen (rc->response), NULL, NULL, NULL);
  raw_conn_free (rc);
}

static void
raw_conn_read (RawConn *rc)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (rc->conn));

  g_input_stream_read_async (in, rc->buf, sizeof rc->buf, G_PRIORITY_DEFAULT, NULL,
                             on_raw_read_cb, rc);
}

static gboolean
on_raw_incoming_cb (GSocketService    *service,
                    GSocketConnection *conn,
                    GObject           *source,
                    gpointer           user_data)
{
  RawServer *srv = user_data;
  RawConn *rc = g_new0 (RawConn, 1);

  srv->n_connections++;
  rc->conn = g_object_ref (conn);
  rc->response = g_strdup (srv->response);
  rc->head = g_string_new (NULL);
  raw_conn_read (rc);
  return TRUE;
}

static RawServer *
raw_server_new (const char *response)
{
  RawServer *srv = g_new0 (RawServer, 1);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  srv->response = g_strdup (response);
  srv->service = g_socket_service_new ();
  g_socket_listener_add_address (G_SOCKET_LISTENER (srv->service), addr, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  srv->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  g_signal_connect (srv->service, "incoming", G_CALLBACK (on_raw_incoming_cb), srv);
  g_socket_service_start (srv->service);
  return srv;
}

static void
raw_server_free (RawServer *srv)
{
  g_socket_service_stop (srv->service);
  g_socket_listener_close (G_SOCKET_LISTENER (srv->service));
  g_object_unref (srv->service);
  g_free (srv->response);
  g_free (srv);
}

/* A port nothing listens on: bound, then closed again. */
static guint16
closed_port (void)
{
  g_autoptr(GSocket) sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                          G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) local = NULL;
  guint16 port;

  g_assert_true (g_socket_bind (sock, addr, FALSE, NULL));
  local = g_socket_get_local_address (sock, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  g_socket_close (sock, NULL);
  return port;
}

/* ---- Soup server fixture ---------------------------------------------- */

typedef struct
{
  SoupServerMessage *msg;        /* the streamed response (owned) */
  guint              trickle_id; /* ticking source for /trickle, or 0 */
  guint              n_sent;     /* pieces appended so far */
  gboolean           finished;   /* soup finished the message (sent, or client gone) */
} Stream;

typedef struct
{
  SoupServer   *server;     /* on 127.0.0.1, this thread's default context */
  guint16       port;       /* its port */
  char         *base;       /* "http://127.0.0.1:PORT" */
  OwHttpClient *client;     /* the client under test */
  GPtrArray    *streams;    /* Stream *, in arrival order */
  GPtrArray    *waiting;    /* SoupServerMessage * held back by /wait-all */
  guint         wait_for;   /* /wait-all answers once this many arrived */
  guint         n_requests; /* every request the server saw */
  guint         n_hello;    /* requests to /hello */
} Fixture;

static void
stream_send (Stream     *s,
             const char *text)
{
  g_assert_false (s->finished);
  soup_message_body_append (soup_server_message_get_response_body (s->msg), SOUP_MEMORY_COPY,
                            text, strlen (text));
  soup_server_message_unpause (s->msg);
  s->n_sent++;
}

static void
stream_end (Stream *s)
{
  g_assert_false (s->finished);
  soup_message_body_complete (soup_server_message_get_response_body (s->msg));
  soup_server_message_unpause (s->msg);
}

static gboolean
on_trickle_cb (gpointer user_data)
{
  Stream *s = user_data;

  stream_send (s, "data: tick\n\n");
  return G_SOURCE_CONTINUE;
}

static void
on_stream_finished_cb (SoupServerMessage *msg,
                       gpointer           user_data)
{
  Stream *s = user_data;

  s->finished = TRUE;
  g_clear_handle_id (&s->trickle_id, g_source_remove);
}

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Fixture *fx = user_data;
  SoupMessageHeaders *rh = soup_server_message_get_response_headers (msg);
  const char *q_code = query != NULL ? g_hash_table_lookup (query, "code") : NULL;
  const char *q_n = query != NULL ? g_hash_table_lookup (query, "n") : NULL;
  const char *q_i = query != NULL ? g_hash_table_lookup (query, "i") : NULL;

  fx->n_requests++;

  if (g_str_equal (path, "/hello"))
    {
      fx->n_hello++;
      soup_message_headers_append (rh, "X-Test", "one");
      soup_message_headers_append (rh, "x-test", "two");
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "hello world", 11);
    }
  else if (g_str_equal (path, "/echo"))
    {
      SoupMessageHeaders *qh = soup_server_message_get_request_headers (msg);
      SoupMessageBody *request_body = soup_server_message_get_request_body (msg);
      g_autoptr(GBytes) body = soup_message_body_flatten (request_body);
      const char *ct = soup_message_headers_get_content_type (qh, NULL);
      const char *echo = soup_message_headers_get_one (qh, "X-Echo");
      gsize len = 0;
      const char *data = g_bytes_get_data (body, &len);
      char *reply = g_strdup_printf ("%s|%s|%s|%.*s", soup_server_message_get_method (msg),
                                     ct != NULL ? ct : "", echo != NULL ? echo : "",
                                     (int) len, data != NULL ? data : "");

      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_TAKE, reply, strlen (reply));
    }
  else if (g_str_equal (path, "/status"))
    {
      static const char error_body[] =
        "{\"error\":{\"type\":\"rate_limit_error\",\"message\":\"nope\"}}";

      soup_message_headers_append (rh, "Retry-After", "7");
      soup_server_message_set_status (msg, q_code != NULL ? (guint) atoi (q_code) : 500, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        error_body, strlen (error_body));
    }
  else if (g_str_equal (path, "/big"))
    {
      gsize n = q_n != NULL ? (gsize) atol (q_n) : 0;
      char *body = g_malloc (n + 1);

      memset (body, 'x', n);
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_TAKE, body, n);
    }
  else if (g_str_equal (path, "/port"))
    {
      GSocketAddress *remote = soup_server_message_get_remote_address (msg);
      guint16 port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (remote));
      char *body = g_strdup_printf ("%u", port);

      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_TAKE, body, strlen (body));
    }
  else if (g_str_equal (path, "/stream") || g_str_equal (path, "/stall")
           || g_str_equal (path, "/trickle"))
    {
      Stream *s = g_new0 (Stream, 1);

      s->msg = g_object_ref (msg);
      g_ptr_array_add (fx->streams, s);
      g_signal_connect (msg, "finished", G_CALLBACK (on_stream_finished_cb), s);
      soup_server_message_set_status (msg, 200, NULL);
      soup_message_headers_set_content_type (rh, "text/event-stream", NULL);
      soup_message_headers_set_encoding (rh, SOUP_ENCODING_CHUNKED);
      soup_server_message_pause (msg);
      if (g_str_equal (path, "/stall"))
        stream_send (s, "first");
      else if (g_str_equal (path, "/trickle"))
        s->trickle_id = g_timeout_add (20, on_trickle_cb, s);
    }
  else if (g_str_equal (path, "/wait-all"))
    {
      g_object_set_data_full (G_OBJECT (msg), "i", g_strdup (q_i), g_free);
      g_ptr_array_add (fx->waiting, g_object_ref (msg));
      soup_server_message_pause (msg);
      if (fx->waiting->len == fx->wait_for)
        {
          for (guint k = 0; k < fx->waiting->len; k++)
            {
              SoupServerMessage *m = g_ptr_array_index (fx->waiting, k);
              const char *i = g_object_get_data (G_OBJECT (m), "i");

              soup_server_message_set_status (m, 200, NULL);
              soup_server_message_set_response (m, "text/plain", SOUP_MEMORY_COPY, i, strlen (i));
              soup_server_message_unpause (m);
            }
        }
    }
  else
    soup_server_message_set_status (msg, 404, NULL);
}

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  fx->server = soup_server_new ("server-header", "ow-test ", NULL);
  soup_server_add_handler (fx->server, NULL, server_cb, fx, NULL);
  soup_server_listen_local (fx->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (fx->server);
  fx->port = (guint16) g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  fx->base = g_strdup_printf ("http://127.0.0.1:%u", fx->port);
  fx->client = ow_http_client_new ();
  fx->streams = g_ptr_array_new ();
  fx->waiting = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  if (fx->client != NULL)
    g_assert_cmpuint (ow_http_client_get_n_active (fx->client), ==, 0);
  g_clear_object (&fx->client);

  for (guint i = 0; i < fx->streams->len; i++)
    {
      Stream *s = g_ptr_array_index (fx->streams, i);

      g_clear_handle_id (&s->trickle_id, g_source_remove);
      g_signal_handlers_disconnect_by_data (s->msg, s);
      g_object_unref (s->msg);
      g_free (s);
    }
  g_ptr_array_unref (fx->streams);
  g_ptr_array_unref (fx->waiting);

  soup_server_disconnect (fx->server);
  g_object_unref (fx->server);
  g_free (fx->base);
  ow_test_drain ();
}

static char *
url (Fixture    *fx,
     const char *path)
{
  return g_strconcat (fx->base, path, NULL);
}

/* ---- Calls ------------------------------------------------------------ */

typedef struct _Call Call;

/* Per-test behaviour on each chunk; its result is the chunk function's. */
typedef gboolean (*ChunkHook) (Call *call, OwHttpResponse *resp);

struct _Call
{
  Fixture        *fx;              /* the test's fixture */
  guint           n_calls;         /* completions seen: must end at exactly 1 */
  OwHttpResponse *resp;            /* on success */
  GError         *error;           /* on failure */
  GString        *chunks;          /* every streamed byte, in order */
  guint           n_chunks;        /* chunk function calls */
  gboolean        chunk_destroyed; /* the chunk data's destroy notify ran */
  GCancellable   *cancellable;     /* passed to send, when set */
  ChunkHook       hook;            /* per-test chunk behaviour, or NULL */
  gpointer        hook_data;       /* for @hook */
};

static void
call_init (Call    *call,
           Fixture *fx)
{
  memset (call, 0, sizeof *call);
  call->fx = fx;
  call->chunks = g_string_new (NULL);
}

static void
call_clear (Call *call)
{
  g_clear_pointer (&call->resp, ow_http_response_unref);
  g_clear_error (&call->error);
  g_string_free (call->chunks, TRUE);
  g_clear_object (&call->cancellable);
}

static void
on_send_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Call *call = user_data;

  call->n_calls++;
  g_assert_cmpuint (call->n_calls, ==, 1);
  call->resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &call->error);
  g_assert_true ((call->resp == NULL) != (call->error == NULL));
}

static gboolean
on_chunk (OwHttpResponse *resp,
          const char     *data,
          gsize           len,
          gpointer        user_data)
{
  Call *call = user_data;

  /* Never after completion, and only for 2xx with status and headers known. */
  g_assert_cmpuint (call->n_calls, ==, 0);
  g_assert_cmpuint (ow_http_response_get_status (resp), >=, 200);
  g_assert_cmpuint (ow_http_response_get_status (resp), <, 300);
  g_assert_cmpuint (len, >, 0);
  g_string_append_len (call->chunks, data, (gssize) len);
  call->n_chunks++;
  return call->hook != NULL ? call->hook (call, resp) : TRUE;
}

static void
on_chunk_data_destroy (gpointer user_data)
{
  Call *call = user_data;

  g_assert_false (call->chunk_destroyed);
  call->chunk_destroyed = TRUE;
}

static void
call_send (Call          *call,
           OwHttpRequest *req,
           gboolean       stream)
{
  ow_http_client_send_async (call->fx->client, req,
                             stream ? on_chunk : NULL,
                             stream ? call : NULL,
                             stream ? on_chunk_data_destroy : NULL,
                             call->cancellable, on_send_cb, call);
}

/* Runs the loop until @call completed, then drains whatever else is ready,
 * where a second completion or a late chunk would show. */
static void
call_wait (Call *call)
{
  OW_TEST_WAIT_UNTIL (call->n_calls > 0);
  ow_test_drain ();
  g_assert_cmpuint (call->n_calls, ==, 1);
  if (call->error != NULL)
    g_test_message ("error: %s", call->error->message);
}

static Stream *
wait_stream (Fixture *fx,
             guint    index)
{
  OW_TEST_WAIT_UNTIL (fx->streams->len > index);
  return g_ptr_array_index (fx->streams, index);
}

/* A whole other request, start to end: proof the loop kept running. */
static void
sentinel (Fixture *fx)
{
  g_autofree char *u = url (fx, "/hello");
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("GET", u);
  Call call;

  call_init (&call, fx);
  call_send (&call, req, FALSE);
  call_wait (&call);
  g_assert_no_error (call.error);
  call_clear (&call);
}

static OwHttpRequest *
get (Fixture    *fx,
     const char *path)
{
  g_autofree char *u = url (fx, path);

  return ow_http_request_new ("GET", u);
}

static char *
body_string (OwHttpResponse *resp)
{
  gsize len = 0;
  const char *data = g_bytes_get_data (ow_http_response_get_body (resp), &len);

  return g_strndup (data, len);
}

/* ---- Tests ------------------------------------------------------------ */

static void
test_basic (Fixture       *fx,
            gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/hello");
  g_autoptr(OwHttpRequest) head = NULL;
  g_autofree char *peer = g_strdup_printf ("127.0.0.1:%u", fx->port);
  g_autofree char *body = NULL;
  Call call;

  call_init (&call, fx);
  call_send (&call, req, FALSE);
  g_assert_cmpuint (ow_http_client_get_n_active (fx->client), ==, 1);
  call_wait (&call);

  g_assert_no_error (call.error);
  g_assert_cmpuint (ow_http_response_get_status (call.resp), ==, 200);
  /* Case-insensitive, last value wins. */
  g_assert_cmpstr (ow_http_response_get_header (call.resp, "x-test"), ==, "two");
  g_assert_cmpstr (ow_http_response_get_header (call.resp, "X-TEST"), ==, "two");
  g_assert_cmpstr (ow_http_response_get_header (call.resp, "Content-Type"), ==, "text/plain");
  g_assert_null (ow_http_response_get_header (call.resp, "X-Absent"));
  body = body_string (call.resp);
  g_assert_cmpstr (body, ==, "hello world");
  g_assert_cmpstr (ow_http_response_get_peer (call.resp), ==, peer);
  g_assert_cmpfloat (ow_http_response_get_ttfb (call.resp), >, 0);
  g_assert_cmpfloat (ow_http_response_get_ttfb (call.resp), <=,
                     ow_http_response_get_total_time (call.resp));
  g_assert_cmpuint (ow_http_client_get_n_active (fx->client), ==, 0);
  call_clear (&call);

  /* HEAD: the headers, no body. */
  head = ow_http_request_new ("HEAD", ow_http_request_get_url (req));
  g_assert_cmpstr (ow_http_request_get_method (head), ==, "HEAD");
  call_init (&call, fx);
  call_send (&call, head, FALSE);
  call_wait (&call);
  g_assert_no_error (call.error);
  g_assert_cmpuint (ow_http_response_get_status (call.resp), ==, 200);
  g_assert_cmpuint (g_bytes_get_size (ow_http_response_get_body (call.resp)), ==, 0);
  call_clear (&call);
}

static void
test_methods_and_body (Fixture       *fx,
                       gconstpointer  data)
{
  static const struct
  {
    const char *method;    /* request method */
    const char *body;      /* request body, or NULL */
    const char *expected;  /* what /echo replies */
  } cases[] = {
    { "POST", "{\"a\":1}", "POST|application/json|secret-value|{\"a\":1}" },
    { "PUT", "x=1", "PUT|application/json|secret-value|x=1" },
    { "POST", NULL, "POST||secret-value|" },
    { "DELETE", NULL, "DELETE||secret-value|" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *u = url (fx, "/echo");
      g_autoptr(OwHttpRequest) req = ow_http_request_new (cases[i].method, u);
      g_autofree char *body = NULL;
      Call call;

      /* The stray newline a key file often ends with is trimmed. */
      ow_http_request_add_header (req, "X-Echo", "  secret-value\n");
      if (cases[i].body != NULL)
        {
          g_autoptr(GBytes) bytes = g_bytes_new (cases[i].body, strlen (cases[i].body));

          ow_http_request_set_body (req, bytes, "application/json");
        }
      call_init (&call, fx);
      call_send (&call, req, FALSE);
      call_wait (&call);
      g_assert_no_error (call.error);
      body = body_string (call.resp);
      g_assert_cmpstr (body, ==, cases[i].expected);
      call_clear (&call);
    }
}

static const char *const order_pieces[] = {
  "event: a\ndata: 0\n\n", "data: 1\n\n", "data: 2\n\n", "data: 3\n\n", "data: 4\n\n",
};

static gboolean
order_hook (Call           *call,
            OwHttpResponse *resp)
{
  Stream *s = g_ptr_array_index (call->fx->streams, 0);
  g_autoptr(GString) sent = g_string_new (NULL);

  g_assert_cmpstr (ow_http_response_get_header (resp, "content-type"), ==, "text/event-stream");
  g_assert_cmpuint (g_bytes_get_size (ow_http_response_get_body (resp)), ==, 0);

  /* Send the next piece once all sent so far arrived: each piece reaches
   * the client before the server even produced the next. */
  for (guint i = 0; i < s->n_sent; i++)
    g_string_append (sent, order_pieces[i]);
  if (g_str_equal (sent->str, call->chunks->str))
    {
      if (s->n_sent < G_N_ELEMENTS (order_pieces))
        stream_send (s, order_pieces[s->n_sent]);
      else
        stream_end (s);
    }
  return TRUE;
}

static void
test_stream_order (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/stream");
  g_autoptr(GString) all = g_string_new (NULL);
  Call call;

  for (gsize i = 0; i < G_N_ELEMENTS (order_pieces); i++)
    g_string_append (all, order_pieces[i]);

  call_init (&call, fx);
  call.hook = order_hook;
  call_send (&call, req, TRUE);
  stream_send (wait_stream (fx, 0), order_pieces[0]);
  call_wait (&call);

  g_assert_no_error (call.error);
  g_assert_cmpuint (ow_http_response_get_status (call.resp), ==, 200);
  g_assert_cmpstr (call.chunks->str, ==, all->str);
  g_assert_cmpuint (call.n_chunks, >=, G_N_ELEMENTS (order_pieces));
  /* Streamed bodies are not accumulated. */
  g_assert_cmpuint (g_bytes_get_size (ow_http_response_get_body (call.resp)), ==, 0);
  g_assert_true (call.chunk_destroyed);
  call_clear (&call);
}

#define N_CONCURRENT 20

static gboolean
all_completed (gpointer data)
{
  Call *calls = data;

  for (guint i = 0; i < N_CONCURRENT; i++)
    if (calls[i].n_calls == 0)
      return FALSE;
  return TRUE;
}

static void
test_concurrent (Fixture       *fx,
                 gconstpointer  data)
{
  Call calls[N_CONCURRENT];

  /* The server answers none until all have arrived: they can only all
   * complete if they were all in flight at once on this one loop. */
  fx->wait_for = N_CONCURRENT;
  for (guint i = 0; i < N_CONCURRENT; i++)
    {
      g_autofree char *path = g_strdup_printf ("/wait-all?i=%u", i);
      g_autoptr(OwHttpRequest) req = get (fx, path);

      call_init (&calls[i], fx);
      call_send (&calls[i], req, FALSE);
    }
  g_assert_cmpuint (ow_http_client_get_n_active (fx->client), ==, N_CONCURRENT);

  ow_test_wait_until (all_completed, calls, "every request to complete");
  ow_test_drain ();

  for (guint i = 0; i < N_CONCURRENT; i++)
    {
      g_autofree char *want = g_strdup_printf ("%u", i);
      g_autofree char *body = NULL;

      g_assert_cmpuint (calls[i].n_calls, ==, 1);
      g_assert_no_error (calls[i].error);
      body = body_string (calls[i].resp);
      g_assert_cmpstr (body, ==, want);
      call_clear (&calls[i]);
    }
}

static void
test_connect_refused (Fixture       *fx,
                      gconstpointer  data)
{
  guint16 port = closed_port ();
  g_autofree char *u = g_strdup_printf ("http://127.0.0.1:%u/x?key=SECRET", port);
  g_autofree char *where = g_strdup_printf ("127.0.0.1:%u", port);
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("GET", u);
  Call call;

  call_init (&call, fx);
  call_send (&call, req, TRUE);
  call_wait (&call);

  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_CONNECT);
  g_assert_nonnull (strstr (call.error->message, where));
  g_assert_nonnull (strstr (call.error->message, "Connection refused"));
  g_assert_nonnull (strstr (call.error->message, "Is the server running?"));
  g_assert_null (strstr (call.error->message, "SECRET"));
  g_assert_cmpuint (call.n_chunks, ==, 0);
  g_assert_true (call.chunk_destroyed);
  call_clear (&call);
}

static void
test_connect_timeout (Fixture       *fx,
                      gconstpointer  data)
{
  g_autoptr(GSocket) listener = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                              G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GPtrArray) fillers = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(OwHttpRequest) req = NULL;
  g_autofree char *u = NULL;
  Call call;

  /* A listener that never accepts, its queue filled: Linux drops further
   * SYNs, so the connection can only time out. */
  g_assert_true (g_socket_bind (listener, addr, FALSE, NULL));
  g_socket_set_listen_backlog (listener, 0);
  g_assert_true (g_socket_listen (listener, NULL));
  local = g_socket_get_local_address (listener, NULL);
  for (int i = 0; i < 3; i++)
    {
      GSocket *filler = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, NULL);

      g_socket_set_blocking (filler, FALSE);
      g_socket_connect (filler, local, NULL, NULL);
      g_ptr_array_add (fillers, filler);
    }

  u = g_strdup_printf ("http://127.0.0.1:%u/",
                       g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)));
  req = ow_http_request_new ("GET", u);
  /* The total limit is only a guard: the connect limit must fire first. */
  ow_http_request_set_timeouts (req, 200, 0, 10000);
  call_init (&call, fx);
  call_send (&call, req, FALSE);
  call_wait (&call);
  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (call.error->message, "Could not connect"));
  call_clear (&call);
}

static void
test_cut_off_length (Fixture       *fx,
                     gconstpointer  data)
{
  RawServer *raw = raw_server_new ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                                   "Content-Length: 100\r\n\r\nshort");
  g_autofree char *u = g_strdup_printf ("http://127.0.0.1:%u/", raw->port);
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("GET", u);
  Call call;

  call_init (&call, fx);
  call_send (&call, req, FALSE);
  call_wait (&call);
  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_CUT_OFF);
  g_assert_cmpuint (raw->n_connections, ==, 1);
  call_clear (&call);
  raw_server_free (raw);
}

static void
test_cut_off_chunked (Fixture       *fx,
                      gconstpointer  data)
{
  RawServer *raw = raw_server_new ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                   "Transfer-Encoding: chunked\r\n\r\n9\r\ndata: x\n\n\r\n");
  g_autofree char *u = g_strdup_printf ("http://127.0.0.1:%u/", raw->port);
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("POST", u);
  Call call;

  call_init (&call, fx);
  call_send (&call, req, TRUE);
  call_wait (&call);
  /* What arrived was handed over; then the stream's end was missing. */
  g_assert_cmpstr (call.chunks->str, ==, "data: x\n\n");
  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_CUT_OFF);
  call_clear (&call);
  raw_server_free (raw);
}

static void
test_idle_timeout (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/stall");
  Call call;

  ow_http_request_set_timeouts (req, 5000, 150, 0);
  call_init (&call, fx);
  call_send (&call, req, TRUE);
  call_wait (&call);

  g_assert_cmpstr (call.chunks->str, ==, "first");
  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (call.error->message, "idle"));
  call_clear (&call);
}

static void
test_total_timeout (Fixture       *fx,
                    gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/trickle");
  Call call;

  /* The server never goes quiet, so only the total limit can end this. */
  ow_http_request_set_timeouts (req, 5000, 0, 300);
  call_init (&call, fx);
  call_send (&call, req, TRUE);
  call_wait (&call);

  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (call.error->message, "300 ms"));
  call_clear (&call);
}

static void
test_max_body (Fixture       *fx,
               gconstpointer  data)
{
  g_autoptr(OwHttpRequest) big = get (fx, "/big?n=100000");
  g_autoptr(OwHttpRequest) exact = get (fx, "/big?n=1000");
  g_autoptr(OwHttpRequest) error_body = get (fx, "/status?code=500");
  Call call;

  ow_http_request_set_max_body (big, 1000);
  call_init (&call, fx);
  call_send (&call, big, FALSE);
  call_wait (&call);
  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_TOO_LARGE);
  call_clear (&call);

  ow_http_request_set_max_body (exact, 1000);
  call_init (&call, fx);
  call_send (&call, exact, FALSE);
  call_wait (&call);
  g_assert_no_error (call.error);
  g_assert_cmpuint (g_bytes_get_size (ow_http_response_get_body (call.resp)), ==, 1000);
  call_clear (&call);

  /* The limit also guards error bodies accumulated for a stream. */
  ow_http_request_set_max_body (error_body, 5);
  call_init (&call, fx);
  call_send (&call, error_body, TRUE);
  call_wait (&call);
  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_TOO_LARGE);
  g_assert_cmpuint (call.n_chunks, ==, 0);
  call_clear (&call);
}

static void
test_non_2xx_accumulated (Fixture       *fx,
                          gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/status?code=429");
  g_autofree char *body = NULL;
  Call call;

  call_init (&call, fx);
  call_send (&call, req, TRUE);
  call_wait (&call);

  /* A status is not a transport error: the caller reads it and the body. */
  g_assert_no_error (call.error);
  g_assert_cmpuint (call.n_chunks, ==, 0);
  g_assert_cmpuint (ow_http_response_get_status (call.resp), ==, 429);
  g_assert_cmpstr (ow_http_response_get_header (call.resp, "retry-after"), ==, "7");
  body = body_string (call.resp);
  g_assert_cmpstr (body, ==, "{\"error\":{\"type\":\"rate_limit_error\",\"message\":\"nope\"}}");
  g_assert_true (call.chunk_destroyed);
  call_clear (&call);
}

static gboolean
stop_hook (Call           *call,
           OwHttpResponse *resp)
{
  Stream *s = g_ptr_array_index (call->fx->streams, 0);

  /* More is on its way, but the reader has had enough. */
  stream_send (s, "data: second\n\n");
  return FALSE;
}

static void
test_chunk_func_aborts (Fixture       *fx,
                        gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/stream");
  Stream *s;
  Call call;

  call_init (&call, fx);
  call.hook = stop_hook;
  call_send (&call, req, TRUE);
  s = wait_stream (fx, 0);
  stream_send (s, "data: first\n\n");
  call_wait (&call);

  g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_ABORTED);
  g_assert_cmpuint (call.n_chunks, ==, 1);
  g_assert_cmpstr (call.chunks->str, ==, "data: first\n\n");
  g_assert_true (call.chunk_destroyed);
  call_clear (&call);
}

static void
test_cancel_before_send (Fixture       *fx,
                         gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/hello");
  Call call;

  call_init (&call, fx);
  call.cancellable = g_cancellable_new ();
  g_cancellable_cancel (call.cancellable);
  call_send (&call, req, TRUE);
  call_wait (&call);
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (call.chunk_destroyed);
  call_clear (&call);

  sentinel (fx);
  g_assert_cmpuint (fx->n_hello, ==, 1);
}

static void
test_cancel_before_connect (Fixture       *fx,
                            gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/hello");
  Call call;

  call_init (&call, fx);
  call.cancellable = g_cancellable_new ();
  call_send (&call, req, FALSE);
  g_cancellable_cancel (call.cancellable);
  call_wait (&call);
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (ow_http_client_get_n_active (fx->client), ==, 0);
  call_clear (&call);

  /* The cancelled request never reached the server; the next one does. */
  sentinel (fx);
  g_assert_cmpuint (fx->n_hello, ==, 1);
}

static gboolean
cancel_hook (Call           *call,
             OwHttpResponse *resp)
{
  Stream *s = g_ptr_array_index (call->fx->streams, 0);

  /* Cancel, then have the server send more and finish: none of it may
   * reach this function again. */
  g_cancellable_cancel (call->cancellable);
  stream_send (s, "data: second\n\n");
  stream_end (s);
  return TRUE;
}

static void
test_cancel_mid_stream (Fixture       *fx,
                        gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/stream");
  Stream *s;
  Call call;

  call_init (&call, fx);
  call.cancellable = g_cancellable_new ();
  call.hook = cancel_hook;
  call_send (&call, req, TRUE);
  s = wait_stream (fx, 0);
  stream_send (s, "data: first\n\n");
  call_wait (&call);
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  /* The server is done with its message, and another request ran start
   * to end: still the one chunk, and still one completion. */
  OW_TEST_WAIT_UNTIL (s->finished);
  sentinel (fx);
  g_assert_cmpuint (call.n_chunks, ==, 1);
  g_assert_cmpstr (call.chunks->str, ==, "data: first\n\n");
  g_assert_cmpuint (call.n_calls, ==, 1);
  g_assert_true (call.chunk_destroyed);
  call_clear (&call);
}

static gpointer
cancel_thread (gpointer data)
{
  g_cancellable_cancel (data);
  return NULL;
}

static gboolean
thread_cancel_hook (Call           *call,
                    OwHttpResponse *resp)
{
  call->hook_data = g_thread_new ("canceller", cancel_thread, call->cancellable);
  return TRUE;
}

static void
test_cancel_from_thread (Fixture       *fx,
                         gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/stream");
  Stream *s;
  Call call;

  call_init (&call, fx);
  call.cancellable = g_cancellable_new ();
  call.hook = thread_cancel_hook;
  call_send (&call, req, TRUE);
  s = wait_stream (fx, 0);
  stream_send (s, "data: first\n\n");
  call_wait (&call);
  g_thread_join (call.hook_data);
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  /* Whatever the server sends now goes nowhere. */
  if (!s->finished)
    {
      stream_send (s, "data: late\n\n");
      stream_end (s);
    }
  OW_TEST_WAIT_UNTIL (s->finished);
  sentinel (fx);
  g_assert_cmpuint (call.n_chunks, ==, 1);
  g_assert_cmpuint (call.n_calls, ==, 1);
  call_clear (&call);
}

static void
test_cancel_after_done (Fixture       *fx,
                        gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/hello");
  Call call;

  call_init (&call, fx);
  call.cancellable = g_cancellable_new ();
  call_send (&call, req, TRUE);
  call_wait (&call);
  g_assert_no_error (call.error);

  /* A late cancel reaches nothing: the handler is gone with the transfer. */
  g_cancellable_cancel (call.cancellable);
  sentinel (fx);
  g_assert_cmpuint (call.n_calls, ==, 1);
  g_assert_cmpstr (call.chunks->str, ==, "hello world");
  call_clear (&call);
}

static void
test_connection_reuse (Fixture       *fx,
                       gconstpointer  data)
{
  g_autofree char *first = NULL;

  for (int i = 0; i < 5; i++)
    {
      g_autoptr(OwHttpRequest) req = get (fx, "/port");
      g_autofree char *port = NULL;
      Call call;

      call_init (&call, fx);
      call_send (&call, req, FALSE);
      call_wait (&call);
      g_assert_no_error (call.error);
      port = body_string (call.resp);
      /* The server sees one client port: one kept-alive connection. */
      if (first == NULL)
        first = g_strdup (port);
      g_assert_cmpstr (port, ==, first);
      call_clear (&call);
    }
}

static void
test_proxy (Fixture       *fx,
            gconstpointer  data)
{
  RawServer *proxy = raw_server_new ("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 5\r\n"
                                     "Connection: close\r\n\r\nproxy");
  g_autofree char *proxy_url = g_strdup_printf ("http://127.0.0.1:%u", proxy->port);
  g_autofree char *body = NULL;
  Call call;

  g_setenv ("http_proxy", proxy_url, TRUE);

  /* Positive control: without a choice, the environment's proxy is used. */
  {
    g_autoptr(OwHttpRequest) req = get (fx, "/hello");

    call_init (&call, fx);
    call_send (&call, req, FALSE);
    call_wait (&call);
    g_assert_no_error (call.error);
    g_assert_cmpuint (ow_http_response_get_status (call.resp), ==, 502);
    g_assert_cmpuint (proxy->n_connections, ==, 1);
    call_clear (&call);
  }

  /* "" means no proxy at all, whatever the environment says. */
  {
    g_autoptr(OwHttpRequest) req = get (fx, "/hello");

    ow_http_request_set_proxy (req, "");
    call_init (&call, fx);
    call_send (&call, req, FALSE);
    call_wait (&call);
    g_assert_no_error (call.error);
    g_assert_cmpuint (ow_http_response_get_status (call.resp), ==, 200);
    body = body_string (call.resp);
    g_assert_cmpstr (body, ==, "hello world");
    g_assert_cmpuint (proxy->n_connections, ==, 1);
    g_assert_cmpuint (fx->n_hello, ==, 1);
    call_clear (&call);
  }

  /* An explicit proxy wins over the environment's NO_PROXY. */
  g_unsetenv ("http_proxy");
  g_setenv ("no_proxy", "127.0.0.1", TRUE);
  {
    g_autoptr(OwHttpRequest) req = get (fx, "/hello");

    ow_http_request_set_proxy (req, proxy_url);
    call_init (&call, fx);
    call_send (&call, req, FALSE);
    call_wait (&call);
    g_assert_no_error (call.error);
    g_assert_cmpuint (ow_http_response_get_status (call.resp), ==, 502);
    g_assert_cmpuint (proxy->n_connections, ==, 2);
    call_clear (&call);
  }
  g_unsetenv ("no_proxy");

  raw_server_free (proxy);
}

static gboolean
nested_send_hook (Call           *call,
                  OwHttpResponse *resp)
{
  Call *nested = call->hook_data;
  g_autoptr(OwHttpRequest) req = get (call->fx, "/hello");

  /* Sending from inside curl's write callback must work. */
  call_send (nested, req, FALSE);
  stream_end (g_ptr_array_index (call->fx->streams, 0));
  return TRUE;
}

static void
test_send_from_chunk_func (Fixture       *fx,
                           gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/stream");
  g_autofree char *body = NULL;
  Call call;
  Call nested;

  call_init (&call, fx);
  call_init (&nested, fx);
  call.hook = nested_send_hook;
  call.hook_data = &nested;
  call_send (&call, req, TRUE);
  stream_send (wait_stream (fx, 0), "data: x\n\n");
  call_wait (&call);
  call_wait (&nested);

  g_assert_no_error (call.error);
  g_assert_no_error (nested.error);
  body = body_string (nested.resp);
  g_assert_cmpstr (body, ==, "hello world");
  call_clear (&call);
  call_clear (&nested);
}

static void
test_client_outlives_caller (Fixture       *fx,
                             gconstpointer  data)
{
  g_autoptr(OwHttpRequest) req = get (fx, "/hello");
  GWeakRef weak;
  Call call;

  call_init (&call, fx);
  call_send (&call, req, FALSE);
  /* The transfer keeps the client alive until its callback has run. */
  g_weak_ref_init (&weak, fx->client);
  g_clear_object (&fx->client);
  call_wait (&call);
  g_assert_no_error (call.error);
  call_clear (&call);
  ow_test_drain ();
  g_assert_null (g_weak_ref_get (&weak));
  g_weak_ref_clear (&weak);
}

static void
test_bad_url (Fixture       *fx,
              gconstpointer  data)
{
  static const char *const urls[] = { "ftp://127.0.0.1/file", "file:///etc/passwd", "not a url" };

  for (gsize i = 0; i < G_N_ELEMENTS (urls); i++)
    {
      g_autoptr(OwHttpRequest) req = ow_http_request_new ("GET", urls[i]);
      Call call;

      call_init (&call, fx);
      call_send (&call, req, FALSE);
      call_wait (&call);
      g_assert_error (call.error, OW_NET_ERROR, OW_NET_ERROR_FAILED);
      call_clear (&call);
    }
}

int
main (int    argc,
      char **argv)
{
  static const char *const proxy_vars[] = {
    "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
    "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
  };

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  /* Loopback only: a proxy from the caller's environment must not apply. */
  for (gsize i = 0; i < G_N_ELEMENTS (proxy_vars); i++)
    g_unsetenv (proxy_vars[i]);

#define ADD(path, func) \
  g_test_add ("/ow/net/http-client/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("basic", test_basic);
  ADD ("methods-and-body", test_methods_and_body);
  ADD ("stream-order", test_stream_order);
  ADD ("concurrent", test_concurrent);
  ADD ("connect-refused", test_connect_refused);
  ADD ("connect-timeout", test_connect_timeout);
  ADD ("cut-off-length", test_cut_off_length);
  ADD ("cut-off-chunked", test_cut_off_chunked);
  ADD ("idle-timeout", test_idle_timeout);
  ADD ("total-timeout", test_total_timeout);
  ADD ("max-body", test_max_body);
  ADD ("non-2xx-accumulated", test_non_2xx_accumulated);
  ADD ("chunk-func-aborts", test_chunk_func_aborts);
  ADD ("cancel-before-send", test_cancel_before_send);
  ADD ("cancel-before-connect", test_cancel_before_connect);
  ADD ("cancel-mid-stream", test_cancel_mid_stream);
  ADD ("cancel-from-thread", test_cancel_from_thread);
  ADD ("cancel-after-done", test_cancel_after_done);
  ADD ("connection-reuse", test_connection_reuse);
  ADD ("proxy", test_proxy);
  ADD ("send-from-chunk-func", test_send_from_chunk_func);
  ADD ("client-outlives-caller", test_client_outlives_caller);
  ADD ("bad-url", test_bad_url);

#undef ADD

  return g_test_run ();
}
