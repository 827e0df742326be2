/* proxy-test-util.c: the scripted resolver, the echo server and the raw
 * client shared by the tests in tests/proxy (see proxy-test-util.h). */
#include "proxy-test-util.h"

#include <string.h>

/* ---- Scripted resolver ------------------------------------------------ */

struct _TestResolver
{
  GResolver   parent_instance;
  GMutex      lock;      /* lookups may come from GIO's worker threads */
  GHashTable *answers;   /* host → GPtrArray of GStrv, one per lookup */
  GHashTable *counts;    /* host → lookups so far (GUINT_TO_POINTER) */
};

G_DEFINE_FINAL_TYPE (TestResolver, test_resolver, G_TYPE_RESOLVER)

static GList *
scripted_lookup (TestResolver *self,
                 const char   *host,
                 GError      **error)
{
  GPtrArray *sets;
  GList *out = NULL;
  guint n;

  g_mutex_lock (&self->lock);
  n = GPOINTER_TO_UINT (g_hash_table_lookup (self->counts, host));
  g_hash_table_insert (self->counts, g_strdup (host), GUINT_TO_POINTER (n + 1));
  sets = g_hash_table_lookup (self->answers, host);
  if (sets != NULL)
    {
      GStrv set = g_ptr_array_index (sets, MIN (n, sets->len - 1));

      for (guint i = 0; set[i] != NULL; i++)
        out = g_list_append (out, g_inet_address_new_from_string (set[i]));
    }
  g_mutex_unlock (&self->lock);

  if (out == NULL)
    g_set_error (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND,
                 "Error resolving “%s”: Name or service not known", host);
  return out;
}

static GList *
test_lookup_by_name (GResolver     *resolver,
                     const char    *host,
                     GCancellable  *cancellable,
                     GError       **error)
{
  return scripted_lookup (TEST_RESOLVER (resolver), host, error);
}

static void
free_address_list (gpointer data)
{
  g_resolver_free_addresses (data);
}

static void
test_lookup_by_name_async (GResolver           *resolver,
                           const char          *host,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (resolver, cancellable, callback, user_data);
  GError *error = NULL;
  GList *list = scripted_lookup (TEST_RESOLVER (resolver), host, &error);

  if (list == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, list, free_address_list);
}

static GList *
test_lookup_by_name_finish (GResolver     *resolver,
                            GAsyncResult  *result,
                            GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_lookup_by_name_with_flags_async (GResolver               *resolver,
                                      const char              *host,
                                      GResolverNameLookupFlags flags,
                                      GCancellable            *cancellable,
                                      GAsyncReadyCallback      callback,
                                      gpointer                 user_data)
{
  test_lookup_by_name_async (resolver, host, cancellable, callback, user_data);
}

static GList *
test_lookup_by_name_with_flags (GResolver               *resolver,
                                const char              *host,
                                GResolverNameLookupFlags flags,
                                GCancellable            *cancellable,
                                GError                 **error)
{
  return scripted_lookup (TEST_RESOLVER (resolver), host, error);
}

static void
test_resolver_finalize (GObject *object)
{
  TestResolver *self = TEST_RESOLVER (object);

  g_hash_table_unref (self->answers);
  g_hash_table_unref (self->counts);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (test_resolver_parent_class)->finalize (object);
}

static void
test_resolver_class_init (TestResolverClass *klass)
{
  GResolverClass *resolver_class = G_RESOLVER_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = test_resolver_finalize;
  resolver_class->lookup_by_name = test_lookup_by_name;
  resolver_class->lookup_by_name_async = test_lookup_by_name_async;
  resolver_class->lookup_by_name_finish = test_lookup_by_name_finish;
  resolver_class->lookup_by_name_with_flags = test_lookup_by_name_with_flags;
  resolver_class->lookup_by_name_with_flags_async = test_lookup_by_name_with_flags_async;
  resolver_class->lookup_by_name_with_flags_finish = test_lookup_by_name_finish;
}

static void
test_resolver_init (TestResolver *self)
{
  g_mutex_init (&self->lock);
  self->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  self->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

TestResolver *
test_resolver_new (void)
{
  return g_object_new (TEST_TYPE_RESOLVER, NULL);
}

void
test_resolver_add (TestResolver *self,
                   const char   *host,
                   const char   *addresses)
{
  GPtrArray *sets;

  g_mutex_lock (&self->lock);
  sets = g_hash_table_lookup (self->answers, host);
  if (sets == NULL)
    {
      sets = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
      g_hash_table_insert (self->answers, g_strdup (host), sets);
    }
  g_ptr_array_add (sets, g_strsplit (addresses, ",", -1));
  g_mutex_unlock (&self->lock);
}

guint
test_resolver_count (TestResolver *self,
                     const char   *host)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = GPOINTER_TO_UINT (g_hash_table_lookup (self->counts, host));
  g_mutex_unlock (&self->lock);
  return n;
}

/* ---- Echo server ------------------------------------------------------ */

struct _EchoServer
{
  GSocketService *service;     /* accepts on 127.0.0.1:@port */
  guint16         port;        /* where it listens */
  guint           n_accepted;  /* connections so far */
};

typedef struct
{
  GSocketConnection *conn;       /* one accepted connection */
  char               buf[4096];  /* what is being echoed */
} EchoConn;

static void echo_read (EchoConn *ec);

static void
echo_conn_free (EchoConn *ec)
{
  g_io_stream_close (G_IO_STREAM (ec->conn), NULL, NULL);
  g_object_unref (ec->conn);
  g_free (ec);
}

static void
on_echo_written_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  EchoConn *ec = user_data;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL))
    echo_conn_free (ec);
  else
    echo_read (ec);
}

static void
on_echo_read_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  EchoConn *ec = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n <= 0)
    {
      echo_conn_free (ec);
      return;
    }
  g_output_stream_write_all_async (g_io_stream_get_output_stream (G_IO_STREAM (ec->conn)), ec->buf,
                                   (gsize) n, G_PRIORITY_DEFAULT, NULL, on_echo_written_cb, ec);
}

static void
echo_read (EchoConn *ec)
{
  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM (ec->conn)), ec->buf,
                             sizeof ec->buf, G_PRIORITY_DEFAULT, NULL, on_echo_read_cb, ec);
}

static gboolean
on_echo_incoming_cb (GSocketService    *service,
                     GSocketConnection *conn,
                     GObject           *source,
                     gpointer           user_data)
{
  EchoServer *srv = user_data;
  EchoConn *ec = g_new0 (EchoConn, 1);

  srv->n_accepted++;
  ec->conn = g_object_ref (conn);
  echo_read (ec);
  return TRUE;
}

EchoServer *
echo_server_new (void)
{
  EchoServer *srv = g_new0 (EchoServer, 1);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  srv->service = g_socket_service_new ();
  g_socket_listener_add_address (G_SOCKET_LISTENER (srv->service), addr, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  srv->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  g_signal_connect (srv->service, "incoming", G_CALLBACK (on_echo_incoming_cb), srv);
  g_socket_service_start (srv->service);
  return srv;
}

guint16
echo_server_get_port (EchoServer *srv)
{
  return srv->port;
}

guint
echo_server_get_n_accepted (EchoServer *srv)
{
  return srv->n_accepted;
}

void
echo_server_free (EchoServer *srv)
{
  g_signal_handlers_disconnect_by_data (srv->service, srv);
  g_socket_service_stop (srv->service);
  g_socket_listener_close (G_SOCKET_LISTENER (srv->service));
  g_object_unref (srv->service);
  g_free (srv);
}

/* ---- Raw client ------------------------------------------------------- */

typedef enum {
  STEP_SEND,
  STEP_READ_UNTIL,
  STEP_SHUTDOWN,
  STEP_READ_TO_EOF,
} StepKind;

typedef struct
{
  StepKind  kind;   /* what to do */
  GBytes   *data;   /* bytes to send, or text to wait for */
} Step;

struct _RawClient
{
  GSocketAddress *address;   /* where to connect */
  GArray         *steps;     /* Step */
  GByteArray     *received;  /* everything read, NUL-terminated copy in @text */
  char           *text;      /* @received as a string, once done */
  GError         *error;     /* the first failed step's error */
  GThread        *thread;    /* runs the steps */
  gint            done;      /* set (atomically) by the thread at the end */
};

static void
step_clear (gpointer data)
{
  Step *s = data;

  g_clear_pointer (&s->data, g_bytes_unref);
}

RawClient *
raw_client_new (GSocketAddress *address)
{
  RawClient *c = g_new0 (RawClient, 1);

  c->address = g_object_ref (address);
  c->steps = g_array_new (FALSE, TRUE, sizeof (Step));
  g_array_set_clear_func (c->steps, step_clear);
  c->received = g_byte_array_new ();
  return c;
}

static void
add_step (RawClient  *c,
          StepKind    kind,
          const char *data,
          gssize      len)
{
  Step s = { kind, NULL };

  if (data != NULL)
    s.data = g_bytes_new (data, len < 0 ? strlen (data) : (gsize) len);
  g_array_append_val (c->steps, s);
}

void
raw_client_send (RawClient  *c,
                 const char *data,
                 gssize      len)
{
  add_step (c, STEP_SEND, data, len);
}

void
raw_client_read_until (RawClient  *c,
                       const char *text)
{
  add_step (c, STEP_READ_UNTIL, text, -1);
}

void
raw_client_shutdown (RawClient *c)
{
  add_step (c, STEP_SHUTDOWN, NULL, 0);
}

void
raw_client_read_to_eof (RawClient *c)
{
  add_step (c, STEP_READ_TO_EOF, NULL, 0);
}

static gboolean
received_contains (RawClient *c,
                   GBytes    *text)
{
  gsize n = 0;
  const char *t = g_bytes_get_data (text, &n);

  return n == 0 || (c->received->len > 0 && memmem (c->received->data, c->received->len, t, n) != NULL);
}

static gpointer
raw_client_thread (gpointer data)
{
  RawClient *c = data;
  g_autoptr(GSocket) sock = NULL;
  GError *error = NULL;
  char buf[4096];

  sock = g_socket_new (g_socket_address_get_family (c->address), G_SOCKET_TYPE_STREAM,
                       G_SOCKET_PROTOCOL_DEFAULT, &error);
  if (sock != NULL)
    {
      /* A broken test fails instead of hanging. */
      g_socket_set_timeout (sock, 15);
      g_socket_connect (sock, c->address, NULL, &error);
    }

  for (guint i = 0; error == NULL && i < c->steps->len; i++)
    {
      Step *s = &g_array_index (c->steps, Step, i);

      switch (s->kind)
        {
        case STEP_SEND:
          {
            gsize len = 0;
            const char *p = g_bytes_get_data (s->data, &len);

            while (error == NULL && len > 0)
              {
                gssize n = g_socket_send (sock, p, len, NULL, &error);

                if (n > 0)
                  {
                    p += n;
                    len -= (gsize) n;
                  }
              }
          }
          break;
        case STEP_READ_UNTIL:
          while (error == NULL && !received_contains (c, s->data))
            {
              gssize n = g_socket_receive (sock, buf, sizeof buf, NULL, &error);

              if (n == 0)
                g_set_error (&error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "closed before “%s”",
                             (const char *) g_bytes_get_data (s->data, NULL));
              else if (n > 0)
                g_byte_array_append (c->received, (const guint8 *) buf, (guint) n);
            }
          break;
        case STEP_SHUTDOWN:
          g_socket_shutdown (sock, FALSE, TRUE, &error);
          break;
        case STEP_READ_TO_EOF:
        default:
          for (;;)
            {
              gssize n = g_socket_receive (sock, buf, sizeof buf, NULL, &error);

              if (n <= 0)
                break;
              g_byte_array_append (c->received, (const guint8 *) buf, (guint) n);
            }
          break;
        }
    }

  c->error = error;
  g_atomic_int_set (&c->done, 1);
  g_main_context_wakeup (NULL);
  return NULL;
}

void
raw_client_start (RawClient *c)
{
  c->thread = g_thread_new ("raw-client", raw_client_thread, c);
}

static gboolean
raw_client_is_done (gpointer data)
{
  RawClient *c = data;

  return g_atomic_int_get (&c->done) != 0;
}

const char *
raw_client_wait (RawClient *c,
                 GError   **error_out)
{
  ow_test_wait_until (raw_client_is_done, c, "the raw client to finish");
  g_thread_join (c->thread);
  c->thread = NULL;
  g_free (c->text);
  c->text = c->received->len > 0 ? g_strndup ((const char *) c->received->data, c->received->len) : g_strdup ("");
  if (error_out != NULL && c->error != NULL)
    *error_out = g_error_copy (c->error);
  return c->text;
}

const char *
raw_client_run (RawClient *c,
                GError   **error_out)
{
  raw_client_start (c);
  return raw_client_wait (c, error_out);
}

gsize
raw_client_get_received_len (RawClient *c)
{
  return c->received->len;
}

void
raw_client_free (RawClient *c)
{
  g_assert (c->thread == NULL);
  g_object_unref (c->address);
  g_array_unref (c->steps);
  g_byte_array_unref (c->received);
  g_free (c->text);
  g_clear_error (&c->error);
  g_free (c);
}
