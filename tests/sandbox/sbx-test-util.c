/* sbx-test-util.c: helpers shared by the sandbox tests (see the header). */
#include "sbx-test-util.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ow-json.h"
#include "ow-test-utils.h"

const char *
sbx_runner_path (void)
{
  const char *path = g_getenv ("OW_TEST_RUNNER");

  g_assert_nonnull (path);
  return path;
}

const char *
sbx_escape_path (void)
{
  const char *path = g_getenv ("OW_TEST_ESCAPE");

  g_assert_nonnull (path);
  return path;
}

void
sbx_require_wall (void)
{
  const char *argv[] = { sbx_runner_path (), "--check", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_autofree char *out = NULL;
  g_autoptr(JsonObject) report = NULL;
  g_autoptr(GString) missing = g_string_new (NULL);
  JsonArray *checks;

  if (p == NULL || !g_subprocess_communicate_utf8 (p, NULL, NULL, &out, NULL, &error))
    {
      g_printerr ("SKIP: cannot run the tool runner's check: %s\n", error->message);
      exit (77);
    }
  report = ow_json_object_from_string (out, -1, &error);
  g_assert_no_error (error);
  checks = ow_json_get_array (report, "checks");
  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);

      if (!ow_json_get_bool (c, "ok", FALSE))
        g_string_append_printf (missing, "\n  %s: %s", ow_json_get_string (c, "name"),
                                ow_json_get_string (c, "detail"));
    }
  if (missing->len > 0)
    {
      g_printerr ("SKIP: this machine cannot build the Linux sandbox:%s\n", missing->str);
      exit (77);
    }
}

void
sbx_write (const char *path, const char *content, int mode)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);

  g_mkdir_with_parents (dir, 0700);
  g_file_set_contents_full (path, content, -1, G_FILE_SET_CONTENTS_CONSISTENT, mode, &error);
  g_assert_no_error (error);
}

OwExecutor *
sbx_plain_runner (GSubprocess **process_out)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) sock = NULL;
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GSubprocess) process = NULL;
  int sv[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), ==, 0);
  g_subprocess_launcher_take_fd (launcher, sv[1], 3);
  process = g_subprocess_launcher_spawn (launcher, &error, sbx_runner_path (), NULL);
  g_assert_no_error (error);
  sock = g_socket_new_from_fd (sv[0], &error);
  g_assert_no_error (error);
  conn = g_socket_connection_factory_create_connection (sock);
  if (process_out != NULL)
    *process_out = g_object_ref (process);
  return ow_executor_runner_new (G_IO_STREAM (conn), process, "none (runner)");
}

/* Waits for one async result. */
typedef struct {
  GAsyncResult *result;   /* the result, once it came (owned) */
} Waiter;

static void
on_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Waiter *w = user_data;

  w->result = g_object_ref (result);
  g_main_context_wakeup (NULL);
}

static GAsyncResult *
wait_for (Waiter *w)
{
  OW_TEST_WAIT_UNTIL (w->result != NULL);
  return w->result;
}

OwToolResult *
sbx_call_cancellable (OwExecutor *executor, const char *tool, const char *args, GCancellable *cancellable,
                      GError **error)
{
  Waiter w = { NULL };
  OwToolResult *r;

  ow_executor_execute_async (executor, tool, args, cancellable, on_done_cb, &w);
  r = ow_executor_execute_finish (executor, wait_for (&w), error);
  g_object_unref (w.result);
  return r;
}

OwToolResult *
sbx_call (OwExecutor *executor, const char *tool, const char *args, GError **error)
{
  return sbx_call_cancellable (executor, tool, args, NULL, error);
}

JsonObject *
sbx_result_object (const OwToolResult *result)
{
  g_autoptr(GError) error = NULL;
  JsonObject *o;

  g_assert_nonnull (result);
  o = ow_json_object_from_string (result->text, -1, &error);
  g_assert_no_error (error);
  return o;
}

char *
sbx_shell (OwExecutor *executor, const char *command, int *exit_code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) args = NULL;
  g_autofree char *text = NULL;
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(JsonObject) o = NULL;
  const char *output;
  int code;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "command");
  json_builder_add_string_value (b, command);
  json_builder_set_member_name (b, "timeout_seconds");
  json_builder_add_int_value (b, 30);
  json_builder_end_object (b);
  args = json_builder_get_root (b);
  text = ow_json_to_string (args);
  r = sbx_call (executor, "run_shell", text, &error);
  g_assert_no_error (error);
  o = sbx_result_object (r);
  code = (int) ow_json_get_int (o, "exit_code", -1);
  output = ow_json_get_string (o, "output");
  g_test_message ("$ %s\n%s(exit %d)", command, output != NULL ? output : "", code);
  if (exit_code != NULL)
    *exit_code = code;
  return g_strdup (output != NULL ? output : ow_json_get_string (o, "error"));
}

OwExecutor *
sbx_start (OwSandboxBackend *backend, const OwSandboxSpec *spec, GError **error)
{
  Waiter w = { NULL };
  OwExecutor *executor;

  ow_sandbox_backend_start_async (backend, spec, NULL, on_done_cb, &w);
  executor = ow_sandbox_backend_start_finish (backend, wait_for (&w), error);
  g_object_unref (w.result);
  return executor;
}

/* ---- the HTTP server and the proxy stand-in ----------------------------- */

/* Reads a request head (up to the blank line); NULL when there is none. */
static char *
read_head (GInputStream *in)
{
  GString *head = g_string_new (NULL);
  char c;

  while (head->len < 16384)
    {
      gssize n = g_input_stream_read (in, &c, 1, NULL, NULL);

      if (n <= 0)
        break;
      g_string_append_c (head, c);
      if (g_str_has_suffix (head->str, "\r\n\r\n"))
        return g_string_free (head, FALSE);
    }
  g_string_free (head, TRUE);
  return NULL;
}

struct _SbxHttp
{
  GSocketService *service;  /* the threaded service (owned) */
  int             port;     /* its loopback port */
  guint           hits;     /* requests answered (atomic) */
};

static gboolean
on_http_run_cb (GThreadedSocketService *service, GSocketConnection *conn, GObject *source, gpointer user_data)
{
  SbxHttp *http = user_data;
  g_autofree char *head = read_head (g_io_stream_get_input_stream (G_IO_STREAM (conn)));
  static const char reply[] = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 18\r\n"
                              "Connection: close\r\n\r\nhello from allowed";

  if (head != NULL)
    {
      g_atomic_int_inc (&http->hits);
      g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)), reply, strlen (reply), NULL,
                                 NULL, NULL);
    }
  g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
  return TRUE;
}

SbxHttp *
sbx_http_start (void)
{
  SbxHttp *http = g_new0 (SbxHttp, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) effective = NULL;

  http->service = g_threaded_socket_service_new (8);
  g_socket_listener_add_address (G_SOCKET_LISTENER (http->service), addr, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  http->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  g_signal_connect (http->service, "run", G_CALLBACK (on_http_run_cb), http);
  g_socket_service_start (http->service);
  return http;
}

int
sbx_http_port (SbxHttp *http)
{
  return http->port;
}

guint
sbx_http_hits (SbxHttp *http)
{
  return (guint) g_atomic_int_get (&http->hits);
}

void
sbx_http_stop (SbxHttp *http)
{
  g_socket_service_stop (http->service);
  g_socket_listener_close (G_SOCKET_LISTENER (http->service));
  g_object_unref (http->service);
  g_free (http);
}

struct _SbxProxy
{
  GSocketService *service;    /* the threaded service (owned) */
  char           *path;       /* its socket (owned) */
  char           *allowed;    /* the one host:port it forwards to (owned) */
  guint           refused;    /* requests answered 403 (atomic) */
  guint           forwarded;  /* requests forwarded (atomic) */
};

static gboolean
on_proxy_run_cb (GThreadedSocketService *service, GSocketConnection *conn, GObject *source, gpointer user_data)
{
  SbxProxy *proxy = user_data;
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn));
  g_autofree char *head = read_head (g_io_stream_get_input_stream (G_IO_STREAM (conn)));
  g_autofree char *prefix = g_strdup_printf ("GET http://%s/", proxy->allowed);
  g_auto(GStrv) line = NULL;

  if (head == NULL)
    {
      g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
      return TRUE;
    }
  line = g_strsplit (head, " ", 3);
  if (g_str_has_prefix (head, prefix))
    {
      g_autoptr(GSocketClient) client = g_socket_client_new ();
      g_autoptr(GSocketConnectable) target = NULL;
      g_autoptr(GSocketConnection) up = NULL;

      /* No proxy resolver (it would want GSettings, absent in isolated tests). */
      g_socket_client_set_enable_proxy (client, FALSE);
      target = g_network_address_parse (proxy->allowed, 80, NULL);
      up = target != NULL ? g_socket_client_connect (client, target, NULL, NULL) : NULL;
      g_autofree char *req = g_strdup_printf ("GET %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n",
                                              line[1] + strlen ("http://") + strlen (proxy->allowed), proxy->allowed);

      g_atomic_int_inc (&proxy->forwarded);
      if (up != NULL)
        {
          char buf[4096];
          gssize n;

          g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (up)), req, strlen (req), NULL,
                                     NULL, NULL);
          while ((n = g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (up)), buf, sizeof buf, NULL,
                                           NULL)) > 0)
            g_output_stream_write_all (out, buf, (gsize) n, NULL, NULL, NULL);
        }
    }
  else
    {
      g_autofree char *body = g_strdup_printf ("blocked by the allow list: %s", line[1] != NULL ? line[1] : "?");
      g_autofree char *reply = g_strdup_printf ("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
                                                "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                                                strlen (body), body);

      g_atomic_int_inc (&proxy->refused);
      g_output_stream_write_all (out, reply, strlen (reply), NULL, NULL, NULL);
    }
  g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
  return TRUE;
}

SbxProxy *
sbx_proxy_start (const char *socket_path, const char *allowed)
{
  SbxProxy *proxy = g_new0 (SbxProxy, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) addr = g_unix_socket_address_new (socket_path);

  proxy->path = g_strdup (socket_path);
  proxy->allowed = g_strdup (allowed);
  proxy->service = g_threaded_socket_service_new (8);
  g_socket_listener_add_address (G_SOCKET_LISTENER (proxy->service), addr, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (proxy->service, "run", G_CALLBACK (on_proxy_run_cb), proxy);
  g_socket_service_start (proxy->service);
  return proxy;
}

guint
sbx_proxy_refused (SbxProxy *proxy)
{
  return (guint) g_atomic_int_get (&proxy->refused);
}

guint
sbx_proxy_forwarded (SbxProxy *proxy)
{
  return (guint) g_atomic_int_get (&proxy->forwarded);
}

void
sbx_proxy_stop (SbxProxy *proxy)
{
  g_socket_service_stop (proxy->service);
  g_socket_listener_close (G_SOCKET_LISTENER (proxy->service));
  g_object_unref (proxy->service);
  g_unlink (proxy->path);
  g_free (proxy->path);
  g_free (proxy->allowed);
  g_free (proxy);
}
