/* bench-server.c: how fast the loopback API answers, and what it costs.
 *
 *   bench-server [PATH-TO-openworker-server]
 *
 * Seeds a temporary home with 1,000 sessions (two messages each, one in
 * ten with a pending inbox item), starts the real openworker-server on it
 * with the scripted model server (in this process) behind it, and prints:
 *
 *   - idle RSS of the server just after start (and after the load);
 *   - requests/s for GET /v1/health and GET /v1/sessions (wrk, one wrk
 *     thread so the server keeps a core of the two), median of 3 runs;
 *     the baseline is a bare libsoup server answering the same health
 *     body from a thread of this process, measured the same way;
 *   - the latency of GET /v1/sessions with 1,000 sessions, requests one
 *     after another on a keep-alive connection (median and p95 of 200);
 *   - event fan-out to 100 WebSocket clients on one session: for every
 *     event of a streamed turn, the spread between the first and the last
 *     client to receive it, and the time from sending the message to the
 *     last client's turn_start.
 *
 * Goals (issue #5): ≥ 20,000 health requests/s on 2 cores, session list
 * under 5 ms, idle RSS under 20 MiB.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "core/ow-context.h"
#include "core/ow-session.h"
#include "ow-model-server.h"
#include "policy/ow-inbox.h"

#define N_SESSIONS 1000
#define N_CLIENTS  100

#ifndef OW_SERVER_PATH
#define OW_SERVER_PATH "openworker-server"
#endif

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
percentile (double *v, guint n, double q)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n == 0 ? 0 : v[MIN (n - 1, (guint) (q * n))];
}

/* ---- Seeding ------------------------------------------------------------------ */

static void
seed (const char *home)
{
  g_autoptr(OwPaths) paths = ow_paths_new_under (home);
  OwContextOptions options = { .paths = paths, .isolated = TRUE };
  g_autoptr(GError) error = NULL;
  g_autoptr(OwContext) ctx = ow_context_new (&options, &error);
  g_autoptr(OwInbox) inbox = NULL;
  OwStore *store;

  if (ctx == NULL)
    g_error ("%s", error->message);
  store = ow_context_get_store (ctx);
  inbox = ow_inbox_new (store);
  ow_db_exec (ow_store_get_db (store), "BEGIN", NULL);
  for (int i = 0; i < N_SESSIONS; i++)
    {
      OwSessionSpec spec = { .model = "openai:gpt-4o", .mode = "ask", .coworker = "cowork", .origin = "bench" };
      g_autoptr(OwSession) s = ow_session_new (store, &spec, &error);
      g_autofree char *q = g_strdup_printf ("Question number %d about the quarterly report", i);
      JsonObject *msg;

      if (s == NULL)
        g_error ("%s", error->message);
      msg = ow_message_json_user (q);
      ow_session_append_message (s, msg, NULL);
      json_object_unref (msg);
      msg = json_object_new ();
      json_object_set_string_member (msg, "role", "assistant");
      json_object_set_string_member (msg, "content", "Here is the answer, with some detail.");
      ow_session_append_message (s, msg, NULL);
      json_object_unref (msg);
      if (i % 10 == 0)
        {
          g_autofree char *call = g_strdup_printf ("call_%d", i);
          OwInboxItem *item = ow_inbox_add (inbox, ow_session_get_id (s), call, "approval", "Run `ls`?",
                                            "command: ls", NULL, NULL);
          ow_inbox_item_free (item);
        }
    }
  ow_db_exec (ow_store_get_db (store), "COMMIT", NULL);
}

/* ---- The server process --------------------------------------------------------- */

typedef struct {
  GPid  pid;
  guint port;
  char *token;
} Server;

static void
start_server (Server *s, const char *exe, const char *home, const char *model_url)
{
  g_autofree char *base = g_strdup_printf ("OPENAI_BASE_URL=%s/v1", model_url);
  const char *argv[] = { exe, "--port", "0", "--cwd", home, NULL };
  char **envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int out_fd = -1;
  char line[256];
  gsize len = 0;

  envp = g_environ_setenv (envp, "OPENWORKER_HOME", home, TRUE);
  envp = g_environ_setenv (envp, "OPENAI_BASE_URL", base + strlen ("OPENAI_BASE_URL="), TRUE);
  envp = g_environ_setenv (envp, "OPENAI_API_KEY", "sk-bench", TRUE);
  envp = g_environ_setenv (envp, "OPENWORKER_MODEL", "openai:gpt-4o", TRUE);
  envp = g_environ_setenv (envp, "OPENWORKER_SECRET_STORE", "file", TRUE);
  envp = g_environ_unsetenv (envp, "G_MESSAGES_DEBUG");
  if (!g_spawn_async_with_pipes (NULL, (char **) argv, envp, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &s->pid, NULL,
                                 &out_fd, NULL, &error))
    g_error ("Could not start %s: %s", exe, error->message);
  g_strfreev (envp);
  while (len < sizeof line - 1)
    {
      ssize_t n = read (out_fd, line + len, 1);
      if (n <= 0 || line[len] == '\n')
        break;
      len++;
    }
  line[len] = '\0';
  close (out_fd);
  if (!g_str_has_prefix (line, "http://127.0.0.1:"))
    g_error ("The server did not start: %s", line);
  s->port = (guint) atoi (line + strlen ("http://127.0.0.1:"));
  s->token = g_strdup (strstr (line, "#token=") + 7);
}

static double
rss_mib (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", pid);
  g_autofree char *text = NULL;
  const char *p;

  if (!g_file_get_contents (path, &text, NULL, NULL) || (p = strstr (text, "VmRSS:")) == NULL)
    return -1;
  return g_ascii_strtod (p + 6, NULL) / 1024.0;
}

/* ---- wrk ------------------------------------------------------------------------ */

static double
wrk_rps (const char *url, const char *header, int connections)
{
  g_autofree char *out = NULL;
  g_autofree char *conn = g_strdup_printf ("%d", connections);
  const char *argv[] = { "wrk", "-t1", "-c", conn, "-d4s", url, header != NULL ? "-H" : NULL, header, NULL };
  g_autoptr(GError) error = NULL;
  const char *p;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
                     NULL, NULL, &error))
    return -1;
  p = out != NULL ? strstr (out, "Requests/sec:") : NULL;
  return p != NULL ? g_ascii_strtod (p + 13, NULL) : -1;
}

static double
wrk_median (const char *url, const char *header, int connections)
{
  double runs[3];

  for (int i = 0; i < 3; i++)
    runs[i] = wrk_rps (url, header, connections);
  return percentile (runs, 3, 0.5);
}

/* ---- A bare libsoup baseline, in a thread ------------------------------------------ */

static void
on_bare_cb (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query, gpointer user_data)
{
  static const char body[] = "{\"status\":\"ok\"}";

  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, sizeof body - 1);
}

static guint bare_port;

static gpointer
bare_thread (gpointer data)
{
  g_autoptr(GMainContext) ctx = g_main_context_new ();
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, 0);
  GSList *uris;

  g_main_context_push_thread_default (ctx);
  server = soup_server_new ("server-header", NULL, NULL);
  soup_server_add_handler (server, NULL, on_bare_cb, NULL, NULL);
  if (!soup_server_listen (server, addr, 0, NULL))
    g_error ("baseline server");
  uris = soup_server_get_uris (server);
  g_atomic_int_set (&bare_port, g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  loop = g_main_loop_new (ctx, FALSE);
  g_main_loop_run (loop);
  return NULL;
}

/* ---- Sequential latency on one keep-alive connection --------------------------------- */

static int
connect_loopback (guint port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons (port) };
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  int one = 1;

  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (connect (fd, (struct sockaddr *) &sa, sizeof sa) != 0)
    g_error ("connect: %s", g_strerror (errno));
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

/* One GET; returns the body size. */
static gsize
get_once (int fd, const char *request, GByteArray *buf)
{
  gsize header_end = 0, need = 0;

  if (write (fd, request, strlen (request)) < 0)
    g_error ("write: %s", g_strerror (errno));
  g_byte_array_set_size (buf, 0);
  for (;;)
    {
      guint8 chunk[65536];
      ssize_t n = read (fd, chunk, sizeof chunk);
      if (n <= 0)
        g_error ("read: %s", n == 0 ? "closed" : g_strerror (errno));
      g_byte_array_append (buf, chunk, (guint) n);
      if (header_end == 0)
        {
          const char *end = g_strstr_len ((const char *) buf->data, buf->len, "\r\n\r\n");
          const char *cl;
          if (end == NULL)
            continue;
          header_end = (gsize) (end - (const char *) buf->data) + 4;
          cl = g_strstr_len ((const char *) buf->data, header_end, "Content-Length: ");
          need = cl != NULL ? (gsize) atol (cl + 16) : 0;
        }
      if (buf->len >= header_end + need)
        return need;
    }
}

static void
session_list_latency (const Server *s, double *median, double *p95, gsize *bytes)
{
  g_autofree char *req = g_strdup_printf ("GET /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                          "X-OpenWorker-Token: %s\r\n\r\n", s->port, s->token);
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  double times[200];
  int fd = connect_loopback (s->port);

  for (int i = 0; i < 10; i++)
    get_once (fd, req, buf);
  for (int i = 0; i < 200; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      *bytes = get_once (fd, req, buf);
      times[i] = (g_get_monotonic_time () - t0) / 1000.0;
    }
  close (fd);
  *median = percentile (times, 200, 0.5);
  *p95 = percentile (times, 200, 0.95);
}

/* ---- Fan-out to 100 WebSocket clients -------------------------------------------------- */

typedef struct {
  GHashTable *seen;     /* seq → GArray of gint64 receive times */
  guint       open;
  guint       done;
  gint64      sent_at;
  gint64      last_start;
  GMainLoop  *loop;
  GPtrArray  *conns;
} Fan;

static void
on_ws_message_cb (SoupWebsocketConnection *conn, gint type, GBytes *message, gpointer user_data)
{
  Fan *fan = user_data;
  gint64 now = g_get_monotonic_time ();
  g_autoptr(JsonNode) node = json_from_string (g_bytes_get_data (message, NULL), NULL);
  JsonObject *f = node != NULL ? json_node_get_object (node) : NULL;
  const char *t = f != NULL ? json_object_get_string_member_with_default (f, "type", "") : "";
  gint64 seq = f != NULL ? json_object_get_int_member_with_default (f, "seq", -1) : -1;

  if (g_str_equal (t, "ready"))
    {
      if (++fan->open == N_CLIENTS)
        g_main_loop_quit (fan->loop);
      return;
    }
  if (seq >= 0)
    {
      GArray *times = g_hash_table_lookup (fan->seen, GINT_TO_POINTER (seq));
      if (times == NULL)
        {
          times = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_hash_table_insert (fan->seen, GINT_TO_POINTER (seq), times);
        }
      g_array_append_val (times, now);
    }
  if (g_str_equal (t, "turn_start"))
    fan->last_start = MAX (fan->last_start, now);
  if (g_str_equal (t, "turn_done") && ++fan->done == N_CLIENTS)
    g_main_loop_quit (fan->loop);
}

static void
on_ws_connected_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Fan *fan = user_data;
  g_autoptr(GError) error = NULL;
  SoupWebsocketConnection *conn = soup_session_websocket_connect_finish (SOUP_SESSION (source), result, &error);

  if (conn == NULL)
    g_error ("WebSocket: %s", error->message);
  soup_websocket_connection_set_max_incoming_payload_size (conn, 16 * 1024 * 1024);
  g_signal_connect (conn, "message", G_CALLBACK (on_ws_message_cb), fan);
  g_ptr_array_add (fan->conns, conn);
}

static gboolean
on_timeout_cb (gpointer user_data)
{
  g_error ("The fan-out run did not finish in 60 s.");
  return G_SOURCE_REMOVE;
}

static void
fan_out (const Server *s, double *spread_median, double *spread_p95, double *spread_max, double *start_ms,
         guint *events)
{
  g_autoptr(SoupSession) session = soup_session_new_with_options ("max-conns", 1000, "max-conns-per-host", 1000,
                                                                  NULL);
  g_autofree char *url = g_strdup_printf ("ws://127.0.0.1:%u/ws/session/bench-fanout", s->port);
  char *protocols[] = { "openworker", s->token, NULL };
  Fan fan = { 0 };
  GHashTableIter iter;
  gpointer value;
  GArray *spreads = g_array_new (FALSE, FALSE, sizeof (double));
  guint timeout;

  fan.seen = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  fan.loop = g_main_loop_new (NULL, FALSE);
  fan.conns = g_ptr_array_new_with_free_func (g_object_unref);
  timeout = g_timeout_add_seconds (60, on_timeout_cb, NULL);
  for (int i = 0; i < N_CLIENTS; i++)
    {
      g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
      soup_session_websocket_connect_async (session, msg, NULL, protocols, G_PRIORITY_DEFAULT, NULL,
                                            on_ws_connected_cb, &fan);
    }
  g_main_loop_run (fan.loop);
  fan.sent_at = g_get_monotonic_time ();
  soup_websocket_connection_send_text (g_ptr_array_index (fan.conns, 0),
                                       "{\"type\":\"user_message\",\"text\":\"fan out, please\"}");
  g_main_loop_run (fan.loop);
  g_source_remove (timeout);

  g_hash_table_iter_init (&iter, fan.seen);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GArray *times = value;
      gint64 lo = G_MAXINT64, hi = 0;
      double d;
      if (times->len != N_CLIENTS)
        g_error ("An event reached %u clients of %d.", times->len, N_CLIENTS);
      for (guint i = 0; i < times->len; i++)
        {
          lo = MIN (lo, g_array_index (times, gint64, i));
          hi = MAX (hi, g_array_index (times, gint64, i));
        }
      d = (hi - lo) / 1000.0;
      g_array_append_val (spreads, d);
    }
  *events = spreads->len;
  *spread_median = percentile ((double *) spreads->data, spreads->len, 0.5);
  *spread_p95 = percentile ((double *) spreads->data, spreads->len, 0.95);
  *spread_max = percentile ((double *) spreads->data, spreads->len, 1.0);
  *start_ms = (fan.last_start - fan.sent_at) / 1000.0;
  for (guint i = 0; i < fan.conns->len; i++)
    soup_websocket_connection_close (g_ptr_array_index (fan.conns, i), SOUP_WEBSOCKET_CLOSE_NORMAL, NULL);
  g_ptr_array_unref (fan.conns);
  g_hash_table_unref (fan.seen);
  g_main_loop_unref (fan.loop);
  g_array_unref (spreads);
}

int
main (int argc, char **argv)
{
  const char *exe = argc > 1 ? argv[1] : OW_SERVER_PATH;
  g_autofree char *home = g_dir_make_tmp ("ow-bench-server-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) script = json_from_string (
    "{\"turns\":[{\"text\":\"A streamed reply of some length, in twenty pieces, to watch it fan out.\","
    "\"text_chunks\":20,\"chunk_delay_ms\":5,\"repeat\":10}]}", NULL);
  g_autoptr(OwModelServer) model = ow_model_server_new (script, &error);
  g_autofree char *model_url = NULL;
  g_autofree char *health_url = NULL;
  g_autofree char *sessions_url = NULL;
  g_autofree char *token_header = NULL;
  g_autofree char *bare_url = NULL;
  Server s = { 0 };
  double rss_idle, rss_after, health, health_sessions, bare, list_med, list_p95;
  double fan_med, fan_p95, fan_max, fan_start;
  gsize list_bytes = 0;
  guint events = 0;
  gboolean have_wrk = g_find_program_in_path ("wrk") != NULL;

  if (model == NULL)
    g_error ("%s", error->message);
  model_url = ow_model_server_get_url (model);
  printf ("Seeding %d sessions…\n", N_SESSIONS);
  fflush (stdout);
  seed (home);
  start_server (&s, exe, home, model_url);
  g_usleep (1000 * 1000);
  rss_idle = rss_mib (s.pid);

  health_url = g_strdup_printf ("http://127.0.0.1:%u/v1/health", s.port);
  sessions_url = g_strdup_printf ("http://127.0.0.1:%u/v1/sessions", s.port);
  token_header = g_strdup_printf ("X-OpenWorker-Token: %s", s.token);
  g_thread_unref (g_thread_new ("baseline", bare_thread, NULL));
  while (g_atomic_int_get (&bare_port) == 0)
    g_usleep (1000);
  bare_url = g_strdup_printf ("http://127.0.0.1:%u/v1/health", bare_port);

  session_list_latency (&s, &list_med, &list_p95, &list_bytes);
  if (have_wrk)
    {
      health = wrk_median (health_url, NULL, 32);
      bare = wrk_median (bare_url, NULL, 32);
      health_sessions = wrk_median (sessions_url, token_header, 8);
    }
  else
    health = bare = health_sessions = -1;

  fan_out (&s, &fan_med, &fan_p95, &fan_max, &fan_start, &events);
  g_usleep (500 * 1000);
  rss_after = rss_mib (s.pid);

  kill (s.pid, SIGTERM);
  waitpid (s.pid, NULL, 0);
  if (g_getenv ("OW_BENCH_KEEP") != NULL)
    printf ("kept the seeded home: %s\n", home);
  else
    {
      g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", home);
      if (system (cmd) != 0)
        g_warning ("Could not remove %s", home);
    }

  printf ("\nopenworker-server, %d sessions stored (%u cores online)\n", N_SESSIONS, g_get_num_processors ());
  printf ("  idle RSS after start             %8.2f MiB   (goal < 20)\n", rss_idle);
  printf ("  RSS after the load below         %8.2f MiB\n", rss_after);
  if (have_wrk)
    {
      printf ("  GET /v1/health                   %8.0f req/s (goal >= 20000; median of 3 wrk runs, 1 thread, 32 conns)\n",
              health);
      printf ("    baseline: bare libsoup server  %8.0f req/s (same body, same wrk; ratio %.2f)\n", bare,
              bare > 0 ? health / bare : 0);
      printf ("  GET /v1/sessions (1,000)         %8.0f req/s (median of 3 wrk runs, 8 conns)\n", health_sessions);
    }
  else
    printf ("  wrk not found: install it (apt-get install wrk) for the request rates\n");
  printf ("  GET /v1/sessions latency         %8.2f ms median, %.2f ms p95 (goal < 5; %zu bytes; 200 in a row)\n",
          list_med, list_p95, list_bytes);
  printf ("  fan-out to %d WebSocket clients: %u events; spread first→last client %.2f ms median, %.2f ms p95, "
          "%.2f ms max\n", N_CLIENTS, events, fan_med, fan_p95, fan_max);
  printf ("    message sent → turn_start at the last client: %.2f ms\n", fan_start);
  return 0;
}
