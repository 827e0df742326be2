/* test-proxy.c: OwProxy against real loopback servers.
 *
 * Two libsoup servers play web sites (one allowed, one not) and two echo
 * servers play CONNECT targets. Clients are OwHttpClient (libcurl, plain
 * HTTP through the proxy's TCP port) and a raw socket client on a thread
 * (CONNECT, malformed heads, slow clients, the Unix socket). The allowed
 * loopback servers are made reachable exactly as the design says: listed
 * in the site list and, being loopback, given an exact host:port exception
 * (ow_address_guard_add_exceptions_from_hosts). Every refusal is paired
 * with a positive control through the same proxy, and the refused server
 * is checked to have seen nothing.
 */
#include <string.h>
#include <sys/stat.h>

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "net/ow-http-client.h"
#include "proxy-test-util.h"
#include "sandbox/ow-proxy.h"

/* ---- Fixture ---------------------------------------------------------- */

typedef struct {
  guint  hits;          /* requests served */
  char  *host;          /* Host of the last request */
  char  *path;          /* path and query of the last request */
  char  *connection;    /* its Connection header */
  char  *x_keep;        /* its X-Keep header */
  char  *x_drop;        /* its X-Drop header */
  gboolean proxy_auth;  /* it carried Proxy-Authorization */
} Seen;

typedef struct {
  TestResolver   *resolver;   /* answers names for the guard */
  OwAddressGuard *guard;      /* with the loopback exceptions */
  OwSiteList     *sites;      /* the machine's list and the grants */
  OwProxy        *proxy;      /* under test */
  OwHttpClient   *client;     /* libcurl as the proxy's client */
  SoupServer     *site;       /* listed and excepted */
  SoupServer     *other;      /* neither */
  Seen            site_seen;  /* what @site received */
  Seen            other_seen; /* what @other received */
  guint16         site_port;  /* @site's port */
  guint16         other_port; /* @other's port */
  EchoServer     *echo;       /* listed and excepted */
  EchoServer     *echo2;      /* listed, not excepted */
  char           *dir;        /* private folder for the socket */
  char           *sock_path;  /* session s1's Unix socket */
  guint16         s1_port;    /* session s1's TCP port */
  guint16         s2_port;    /* session s2's TCP port */
  GPtrArray      *persisted;  /* entries written by "always" */
  GPtrArray      *signalled;  /* "session host:port" from ::blocked */
} Fixture;

static void
seen_clear (Seen *s)
{
  g_free (s->host);
  g_free (s->path);
  g_free (s->connection);
  g_free (s->x_keep);
  g_free (s->x_drop);
  memset (s, 0, sizeof *s);
}

static void
on_site_request_cb (SoupServer        *server,
                    SoupServerMessage *msg,
                    const char        *path,
                    GHashTable        *query,
                    gpointer           user_data)
{
  Seen *seen = user_data;
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  g_autofree char *body = NULL;

  guint hits = seen->hits;

  seen_clear (seen);
  seen->hits = hits + 1;
  seen->host = g_strdup (soup_message_headers_get_one (h, "Host"));
  seen->path = g_uri_get_query (uri) != NULL ? g_strdup_printf ("%s?%s", path, g_uri_get_query (uri))
                                             : g_strdup (path);
  seen->connection = g_strdup (soup_message_headers_get_one (h, "Connection"));
  seen->x_keep = g_strdup (soup_message_headers_get_one (h, "X-Keep"));
  seen->x_drop = g_strdup (soup_message_headers_get_one (h, "X-Drop"));
  seen->proxy_auth = soup_message_headers_get_one (h, "Proxy-Authorization") != NULL;
  body = g_strdup_printf ("hello %s", seen->path);
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY, body, strlen (body));
}

static guint16
start_server (SoupServer **server,
              Seen        *seen)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;
  guint16 port;

  *server = soup_server_new (NULL, NULL);
  soup_server_add_handler (*server, NULL, on_site_request_cb, seen, NULL);
  g_assert_true (soup_server_listen_local (*server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (*server);
  port = (guint16) g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return port;
}

static gboolean
persist_cb (const char *entry,
            gpointer    user_data,
            GError    **error)
{
  g_ptr_array_add (user_data, g_strdup (entry));
  return TRUE;
}

static void
on_blocked_cb (OwProxy    *proxy,
               const char *session_id,
               const char *host_port,
               const char *reason,
               gpointer    user_data)
{
  Fixture *f = user_data;

  g_ptr_array_add (f->signalled, g_strdup_printf ("%s %s", session_id, host_port));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func (g_free);

  f->resolver = test_resolver_new ();
  f->guard = ow_address_guard_new (G_RESOLVER (f->resolver));
  f->sites = ow_site_list_new ();
  f->client = ow_http_client_new ();
  f->persisted = g_ptr_array_new_with_free_func (g_free);
  f->signalled = g_ptr_array_new_with_free_func (g_free);
  ow_site_list_set_persist_func (f->sites, persist_cb, f->persisted, NULL);

  f->site_port = start_server (&f->site, &f->site_seen);
  f->other_port = start_server (&f->other, &f->other_seen);
  f->echo = echo_server_new ();
  f->echo2 = echo_server_new ();

  /* The machine's sandbox_network_hosts, as a person would write it. */
  g_ptr_array_add (hosts, g_strdup_printf ("127.0.0.1:%u", f->site_port));
  g_ptr_array_add (hosts, g_strdup_printf ("127.0.0.1:%u", echo_server_get_port (f->echo)));
  g_ptr_array_add (hosts, NULL);
  for (guint i = 0; i + 1 < hosts->len; i++)
    g_assert_true (ow_site_list_add (f->sites, g_ptr_array_index (hosts, i), NULL));
  ow_address_guard_add_exceptions_from_hosts (f->guard, (const char *const *) hosts->pdata);
  {
    /* echo2 is listed, but nothing lifts the guard for it. */
    g_autofree char *e2 = g_strdup_printf ("127.0.0.1:%u", echo_server_get_port (f->echo2));

    g_assert_true (ow_site_list_add (f->sites, e2, NULL));
  }

  f->proxy = ow_proxy_new (f->sites, f->guard);
  g_signal_connect (f->proxy, "blocked", G_CALLBACK (on_blocked_cb), f);
  f->dir = ow_test_make_tmpdir ("ow-proxy");
  f->sock_path = g_build_filename (f->dir, "proxy.sock", NULL);
  g_assert_true (ow_proxy_listen_unix (f->proxy, "s1", f->sock_path, &error));
  g_assert_no_error (error);
  f->s1_port = ow_proxy_listen_tcp (f->proxy, "s1", 0, &error);
  g_assert_no_error (error);
  f->s2_port = ow_proxy_listen_tcp (f->proxy, "s2", 0, &error);
  g_assert_no_error (error);
}

static gboolean
no_connections (gpointer data)
{
  return ow_proxy_get_n_connections (data) == 0;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  ow_proxy_close (f->proxy);
  ow_test_wait_until (no_connections, f->proxy, "the proxy to have no connections");
  g_object_add_weak_pointer (G_OBJECT (f->proxy), (gpointer *) &f->proxy);
  g_object_unref (f->proxy);
  g_assert_null (f->proxy);
  /* The socket file goes with its listener. */
  g_assert_false (g_file_test (f->sock_path, G_FILE_TEST_EXISTS));

  g_object_unref (f->client);
  g_object_unref (f->site);
  g_object_unref (f->other);
  echo_server_free (f->echo);
  echo_server_free (f->echo2);
  seen_clear (&f->site_seen);
  seen_clear (&f->other_seen);
  g_object_unref (f->sites);
  g_object_unref (f->guard);
  g_object_unref (f->resolver);
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->sock_path);
  g_ptr_array_unref (f->persisted);
  g_ptr_array_unref (f->signalled);
}

/* ---- Helpers ---------------------------------------------------------- */

typedef struct {
  OwHttpResponse *resp;   /* the response, or NULL */
  GError         *error;  /* the transport error, or NULL */
  gboolean        done;   /* the callback ran */
} SendWait;

static void
on_sent_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  SendWait *w = user_data;

  w->resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &w->error);
  w->done = TRUE;
}

/* GET @url through the proxy port @proxy_port with libcurl. */
static OwHttpResponse *
get_via (Fixture    *f,
         guint16     proxy_port,
         const char *url)
{
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("GET", url);
  g_autofree char *proxy = g_strdup_printf ("http://127.0.0.1:%u", proxy_port);
  SendWait w = { 0 };

  ow_http_request_set_proxy (req, proxy);
  ow_http_request_set_timeouts (req, 10000, 10000, 20000);
  ow_http_request_add_header (req, "Proxy-Authorization", "Basic c2VjcmV0OnNlY3JldA==");
  ow_http_request_add_header (req, "X-Keep", "kept");
  ow_http_client_send_async (f->client, req, NULL, NULL, NULL, NULL, on_sent_cb, &w);
  ow_test_wait_flag (&w.done);
  g_assert_no_error (w.error);
  return w.resp;
}

static char *
body_text (OwHttpResponse *resp)
{
  gsize len = 0;
  const char *data = g_bytes_get_data (ow_http_response_get_body (resp), &len);

  return g_strndup (data != NULL ? data : "", len);
}

static char *
site_url (guint16     port,
          const char *path)
{
  return g_strdup_printf ("http://127.0.0.1:%u%s", port, path);
}

static GSocketAddress *
unix_address (Fixture *f)
{
  return g_unix_socket_address_new (f->sock_path);
}

static GSocketAddress *
tcp_address (guint16 port)
{
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);

  return g_inet_socket_address_new (lo, port);
}

/* Sends @head over a fresh connection to @address and reads to the end. */
static char *
raw_exchange (GSocketAddress *address,
              const char     *head,
              gssize          len)
{
  RawClient *c = raw_client_new (address);
  g_autoptr(GError) error = NULL;
  char *out;

  raw_client_send (c, head, len);
  raw_client_read_to_eof (c);
  out = g_strdup (raw_client_run (c, &error));
  /* A reset after the answer is fine; no answer at all is not. */
  if (error != NULL && *out == '\0')
    g_error ("raw exchange failed: %s", error->message);
  raw_client_free (c);
  return out;
}

static void
assert_contains (const char *haystack,
                 const char *needle)
{
  if (strstr (haystack, needle) == NULL)
    g_error ("“%s” does not contain “%s”", haystack, needle);
}

static GPtrArray *
take_blocked (Fixture    *f,
              const char *session)
{
  return ow_proxy_take_blocked (f->proxy, session);
}

/* ---- Tests ------------------------------------------------------------ */

static void
test_plain_allowed (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *url = site_url (f->site_port, "/a?b=1");
  g_autofree char *host = g_strdup_printf ("127.0.0.1:%u", f->site_port);
  g_autoptr(OwHttpResponse) resp = get_via (f, f->s1_port, url);
  g_autofree char *body = body_text (resp);
  g_autoptr(GPtrArray) blocked = NULL;

  g_assert_cmpuint (ow_http_response_get_status (resp), ==, 200);
  g_assert_cmpstr (body, ==, "hello /a?b=1");
  g_assert_cmpuint (f->site_seen.hits, ==, 1);
  g_assert_cmpstr (f->site_seen.host, ==, host);
  g_assert_cmpstr (f->site_seen.connection, ==, "close");
  g_assert_cmpstr (f->site_seen.x_keep, ==, "kept");
  /* The proxy's own credentials never travel on. */
  g_assert_false (f->site_seen.proxy_auth);

  blocked = take_blocked (f, "s1");
  g_assert_cmpuint (blocked->len, ==, 0);
}

static void
test_plain_not_listed (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *url = site_url (f->other_port, "/");
  g_autofree char *target = g_strdup_printf ("127.0.0.1:%u", f->other_port);
  g_autofree char *ok_url = site_url (f->site_port, "/");
  g_autoptr(OwHttpResponse) resp = get_via (f, f->s1_port, url);
  g_autoptr(OwHttpResponse) again = get_via (f, f->s1_port, url);
  g_autoptr(OwHttpResponse) named = get_via (f, f->s1_port, "http://unlisted.test/x");
  g_autoptr(OwHttpResponse) control = get_via (f, f->s1_port, ok_url);
  g_autofree char *body = body_text (resp);
  g_autofree char *named_body = body_text (named);
  g_autoptr(GPtrArray) blocked = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_autofree char *signalled = g_strdup_printf ("s1 %s", target);

  g_assert_cmpuint (ow_http_response_get_status (resp), ==, 403);
  assert_contains (body, target);
  assert_contains (body, "not on the list of sites");
  assert_contains (body, "Ask the person to allow");
  g_assert_cmpstr (ow_http_response_get_header (resp, "X-OpenWorker-Blocked"), ==, target);
  g_assert_cmpuint (ow_http_response_get_status (again), ==, 403);
  g_assert_cmpuint (f->other_seen.hits, ==, 0);

  /* A name that is not listed is refused by name and never looked up. */
  g_assert_cmpuint (ow_http_response_get_status (named), ==, 403);
  assert_contains (named_body, "unlisted.test:80");
  g_assert_cmpuint (test_resolver_count (f->resolver, "unlisted.test"), ==, 0);

  /* Positive control, same proxy, same session. */
  g_assert_cmpuint (ow_http_response_get_status (control), ==, 200);
  g_assert_cmpuint (f->site_seen.hits, ==, 1);

  /* Reported once each, in order, then forgotten. */
  blocked = take_blocked (f, "s1");
  g_assert_cmpuint (blocked->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (blocked, 0), ==, target);
  g_assert_cmpstr (g_ptr_array_index (blocked, 1), ==, "unlisted.test:80");
  none = take_blocked (f, "s1");
  g_assert_cmpuint (none->len, ==, 0);
  g_assert_cmpuint (f->signalled->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (f->signalled, 0), ==, signalled);
}

static void
test_grants (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *url = site_url (f->other_port, "/g");
  g_autofree char *entry = g_strdup_printf ("127.0.0.1:%u", f->other_port);
  OwHttpResponse *r;

  /* The other server is loopback: an exception lets the guard pass it, the
   * grants below decide by name. */
  g_assert_true (ow_address_guard_add_exception (f->guard, entry, NULL));

  r = get_via (f, f->s1_port, url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 403);
  ow_http_response_unref (r);

  /* Once: the next connection only. */
  g_assert_true (ow_site_list_grant (f->sites, "s1", entry, OW_SITE_GRANT_ONCE, NULL));
  r = get_via (f, f->s2_port, url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 403); /* another session */
  ow_http_response_unref (r);
  r = get_via (f, f->s1_port, url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 200);
  ow_http_response_unref (r);
  r = get_via (f, f->s1_port, url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 403);
  ow_http_response_unref (r);
  g_assert_cmpuint (f->other_seen.hits, ==, 1);

  /* This session: hot, repeatable, this session only, until it ends. */
  g_assert_true (ow_site_list_grant (f->sites, "s1", entry, OW_SITE_GRANT_SESSION, NULL));
  for (guint i = 0; i < 2; i++)
    {
      r = get_via (f, f->s1_port, url);
      g_assert_cmpuint (ow_http_response_get_status (r), ==, 200);
      ow_http_response_unref (r);
    }
  r = get_via (f, f->s2_port, url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 403);
  ow_http_response_unref (r);
  ow_site_list_end_session (f->sites, "s1");
  r = get_via (f, f->s1_port, url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 403);
  ow_http_response_unref (r);
  g_assert_cmpuint (f->other_seen.hits, ==, 3);

  /* Always: written through the caller's function, then open to all. */
  g_assert_true (ow_site_list_grant (f->sites, "s1", entry, OW_SITE_GRANT_ALWAYS, NULL));
  g_assert_cmpuint (f->persisted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->persisted, 0), ==, entry);
  r = get_via (f, f->s2_port, url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 200);
  ow_http_response_unref (r);
  g_assert_cmpuint (f->other_seen.hits, ==, 4);
}

static void
test_connect_unix (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = unix_address (f);
  RawClient *c = raw_client_new (address);
  g_autoptr(GError) error = NULL;
  g_autofree char *head = g_strdup_printf ("CONNECT 127.0.0.1:%u HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\nping",
                                           echo_server_get_port (f->echo), echo_server_get_port (f->echo));
  const char *got;
  struct stat st;

  /* Only the owner may use the session's socket. */
  g_assert_cmpint (g_stat (f->sock_path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  /* Bytes sent with the head are tunnel data; then both ways, then a
   * half-close passes through and the tunnel ends. */
  raw_client_send (c, head, -1);
  raw_client_read_until (c, "\r\n\r\nping");
  raw_client_send (c, " and more", -1);
  raw_client_read_until (c, "ping and more");
  raw_client_shutdown (c);
  raw_client_read_to_eof (c);
  got = raw_client_run (c, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==, "HTTP/1.1 200 Connection established\r\n\r\nping and more");
  g_assert_cmpuint (echo_server_get_n_accepted (f->echo), ==, 1);
  raw_client_free (c);
}

static void
test_connect_guarded (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = unix_address (f);
  guint16 e1 = echo_server_get_port (f->echo);
  guint16 e2 = echo_server_get_port (f->echo2);
  g_autofree char *refused_head = g_strdup_printf ("CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n", e2);
  g_autofree char *control_head = g_strdup_printf ("CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\nhi", e1);
  g_autofree char *refused = raw_exchange (address, refused_head, -1);
  g_autofree char *name_entry = g_strdup_printf ("echo.test:%u", e1);
  g_autofree char *name_head = g_strdup_printf ("CONNECT echo.test:%u HTTP/1.1\r\n\r\n", e1);
  g_autofree char *expected = g_strdup_printf ("127.0.0.1:%u", e2);
  g_autoptr(GPtrArray) blocked = NULL;
  g_autoptr(GError) error = NULL;
  RawClient *c;
  char *out;

  /* Listed but loopback, and no exception: refused, and said why. */
  g_assert_true (g_str_has_prefix (refused, "HTTP/1.1 403 Forbidden\r\n"));
  assert_contains (refused, "loopback");
  assert_contains (refused, "sandbox_network_hosts");
  g_assert_cmpuint (echo_server_get_n_accepted (f->echo2), ==, 0);

  /* Positive control: the excepted echo server through the same proxy. */
  c = raw_client_new (address);
  raw_client_send (c, control_head, -1);
  raw_client_read_until (c, "\r\n\r\nhi");
  raw_client_run (c, &error);
  g_assert_no_error (error);
  raw_client_free (c);
  g_assert_cmpuint (echo_server_get_n_accepted (f->echo), ==, 1);

  /* Names: a private answer, a mixed answer, the metadata address. */
  test_resolver_add (f->resolver, "private.test", "10.0.0.1");
  test_resolver_add (f->resolver, "mixed.test", "8.8.8.8,127.0.0.1");
  g_assert_true (ow_site_list_add (f->sites, "private.test:443", NULL));
  g_assert_true (ow_site_list_add (f->sites, "mixed.test:443", NULL));
  g_assert_true (ow_site_list_add (f->sites, "169.254.169.254:80", NULL));
  out = raw_exchange (address, "CONNECT private.test:443 HTTP/1.1\r\n\r\n", -1);
  assert_contains (out, "403 Forbidden");
  assert_contains (out, "private.test:443 (10.0.0.1): a private network");
  g_free (out);
  out = raw_exchange (address, "CONNECT mixed.test:443 HTTP/1.1\r\n\r\n", -1);
  assert_contains (out, "mixed.test:443 (127.0.0.1): loopback");
  g_free (out);
  out = raw_exchange (address, "CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n", -1);
  assert_contains (out, "link-local (includes the cloud metadata endpoint)");
  g_free (out);

  /* A name is resolved once and the tunnel goes to that answer: the
   * second answer (a private address) is never used, and the system
   * resolver, which knows no echo.test, is never asked. */
  test_resolver_add (f->resolver, "echo.test", "127.0.0.1");
  test_resolver_add (f->resolver, "echo.test", "10.9.9.9");
  g_assert_true (ow_site_list_add (f->sites, name_entry, NULL));
  g_assert_true (ow_address_guard_add_exception (f->guard, name_entry, NULL));
  c = raw_client_new (address);
  raw_client_send (c, name_head, -1);
  raw_client_read_until (c, "200 Connection established\r\n\r\n");
  raw_client_send (c, "pinned", -1);
  raw_client_read_until (c, "pinned");
  raw_client_run (c, &error);
  g_assert_no_error (error);
  raw_client_free (c);
  g_assert_cmpuint (test_resolver_count (f->resolver, "echo.test"), ==, 1);
  g_assert_cmpuint (echo_server_get_n_accepted (f->echo), ==, 2);

  blocked = take_blocked (f, "s1");
  g_assert_cmpuint (blocked->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (blocked, 0), ==, expected);
  g_assert_cmpstr (g_ptr_array_index (blocked, 3), ==, "169.254.169.254:80");
}

typedef struct {
  const char *head;      /* what the client sends */
  const char *status;    /* the status line expected */
  const char *message;   /* part of the body expected */
} BadCase;

static void
test_malformed (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = tcp_address (f->s1_port);
  g_autofree char *big = NULL;
  g_autofree char *allowed = site_url (f->site_port, "/after");
  g_autoptr(OwHttpResponse) control = NULL;
  static const BadCase cases[] = {
    { "HELLO\r\n\r\n", "HTTP/1.1 400 Bad Request", "METHOD target HTTP/1.1" },
    { "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 Bad Request", "send the full URL" },
    { "GET https://github.com/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "CONNECT tunnel" },
    { "GET ftp://github.com/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "Only http://" },
    { "GET http://user:pw@github.com/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "user names" },
    { "CONNECT github.com HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "needs a port" },
    { "CONNECT *.github.com:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "wildcards" },
    { "GET http://github.com/ HTTP/2.0\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported", "HTTP/1.1" },
    { "GET http://github.com/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
      "HTTP/1.1 400 Bad Request", "both Content-Length and Transfer-Encoding" },
    { "GET http://github.com/ HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n", "HTTP/1.1 400 Bad Request", "Folded" },
    { "GET http://github.com/ HTTP/1.1\r\nNo colon here\r\n\r\n", "HTTP/1.1 400 Bad Request", "Name: value" },
    { "GET http://github.com/ HTTP/1.1\r\nX-A: a\rb\r\n\r\n", "HTTP/1.1 400 Bad Request", "control character" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = raw_exchange (address, cases[i].head, -1);

      if (!g_str_has_prefix (out, cases[i].status))
        g_error ("case %" G_GSIZE_FORMAT ": got “%s”", i, out);
      assert_contains (out, cases[i].message);
    }

  /* A NUL in the head, and a head that never ends within the limit. */
  {
    static const char nul_head[] = "GET http://github.com/ HTTP/1.1\r\nX-A: a\0b\r\n\r\n";
    g_autofree char *out = raw_exchange (address, nul_head, sizeof nul_head - 1);

    g_assert_true (g_str_has_prefix (out, "HTTP/1.1 400 Bad Request"));
  }
  big = g_strnfill (20000, 'a');
  memcpy (big, "GET http://github.com/ HTTP/1.1\r\nX-Big: ", 40);
  {
    g_autofree char *out = raw_exchange (address, big, -1);

    g_assert_true (g_str_has_prefix (out, "HTTP/1.1 431 Request Header Fields Too Large"));
  }

  /* None of it was recorded as a blocked site, and the proxy still works. */
  {
    g_autoptr(GPtrArray) blocked = take_blocked (f, "s1");

    g_assert_cmpuint (blocked->len, ==, 0);
  }
  control = get_via (f, f->s1_port, allowed);
  g_assert_cmpuint (ow_http_response_get_status (control), ==, 200);
}

static void
test_headers_rewritten (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = tcp_address (f->s1_port);
  g_autofree char *head = g_strdup_printf ("GET http://127.0.0.1:%u/h HTTP/1.1\r\n"
                                           "Host: evil.example\r\n"
                                           "Connection: keep-alive, X-Drop\r\n"
                                           "X-Drop: 1\r\n"
                                           "X-Keep: 2\r\n"
                                           "Proxy-Authorization: Basic Zm9vOmJhcg==\r\n\r\n",
                                           f->site_port);
  g_autofree char *out = raw_exchange (address, head, -1);
  g_autofree char *host = g_strdup_printf ("127.0.0.1:%u", f->site_port);

  g_assert_true (g_str_has_prefix (out, "HTTP/1.1 200 OK"));
  assert_contains (out, "hello /h");
  /* The Host the proxy checked is the one the server sees. */
  g_assert_cmpstr (f->site_seen.host, ==, host);
  g_assert_null (f->site_seen.x_drop);
  g_assert_cmpstr (f->site_seen.x_keep, ==, "2");
  g_assert_cmpstr (f->site_seen.connection, ==, "close");
  g_assert_false (f->site_seen.proxy_auth);
}

static void
test_slow_client (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = unix_address (f);
  g_autofree char *url = site_url (f->site_port, "/fast");
  RawClient *slow = raw_client_new (address);
  g_autoptr(OwHttpResponse) resp = NULL;
  const char *got;

  ow_proxy_set_timeouts (f->proxy, 1000, 0, 0);

  /* Half a head, then nothing: the proxy closes on it without an answer. */
  raw_client_send (slow, "CONNECT 127.0", -1);
  raw_client_read_to_eof (slow);
  raw_client_start (slow);

  /* Meanwhile others are served: nothing waits on the slow one. */
  resp = get_via (f, f->s1_port, url);
  g_assert_cmpuint (ow_http_response_get_status (resp), ==, 200);

  got = raw_client_wait (slow, NULL);
  g_assert_cmpstr (got, ==, "");
  raw_client_free (slow);
}

static void
test_idle_tunnel (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = unix_address (f);
  g_autofree char *head = g_strdup_printf ("CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n", echo_server_get_port (f->echo));
  RawClient *c = raw_client_new (address);
  g_autoptr(GError) error = NULL;
  const char *got;

  ow_proxy_set_timeouts (f->proxy, 0, 0, 300);
  raw_client_send (c, head, -1);
  raw_client_read_until (c, "\r\n\r\n");
  raw_client_send (c, "x", -1);
  raw_client_read_until (c, "\r\n\r\nx");
  /* Then silence: the proxy ends the tunnel. */
  raw_client_read_to_eof (c);
  got = raw_client_run (c, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==, "HTTP/1.1 200 Connection established\r\n\r\nx");
  raw_client_free (c);
}

static void
test_open_profile (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *other_url = site_url (f->other_port, "/open");
  g_autofree char *entry = g_strdup_printf ("127.0.0.1:%u", f->other_port);
  OwHttpResponse *r;
  g_autofree char *body = NULL;

  /* Open: no list, but still no loopback without an exception. */
  ow_site_list_set_open (f->sites, TRUE);
  r = get_via (f, f->s1_port, other_url);
  body = body_text (r);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 403);
  assert_contains (body, "loopback");
  ow_http_response_unref (r);
  g_assert_cmpuint (f->other_seen.hits, ==, 0);

  g_assert_true (ow_address_guard_add_exception (f->guard, entry, NULL));
  r = get_via (f, f->s1_port, other_url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 200);
  ow_http_response_unref (r);

  /* Back to the list: the same site is refused by name. */
  ow_site_list_set_open (f->sites, FALSE);
  r = get_via (f, f->s1_port, other_url);
  g_assert_cmpuint (ow_http_response_get_status (r), ==, 403);
  ow_http_response_unref (r);
  g_assert_cmpuint (f->other_seen.hits, ==, 1);
}

static void
test_end_session (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = unix_address (f);
  g_autoptr(GSocket) sock = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = site_url (f->other_port, "/");
  g_autoptr(OwHttpResponse) r = get_via (f, f->s1_port, url);
  g_autoptr(GPtrArray) blocked = NULL;
  RawClient *open_tunnel = raw_client_new (address);
  g_autofree char *head = g_strdup_printf ("CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n", echo_server_get_port (f->echo));

  g_assert_cmpuint (ow_http_response_get_status (r), ==, 403);

  /* A tunnel open when the session ends is closed with it. */
  raw_client_send (open_tunnel, head, -1);
  raw_client_read_until (open_tunnel, "\r\n\r\n");
  raw_client_run (open_tunnel, &error);
  g_assert_no_error (error);
  raw_client_free (open_tunnel);

  ow_proxy_end_session (f->proxy, "s1");
  g_assert_false (g_file_test (f->sock_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_socket_connect (sock, address, NULL, &error));
  g_clear_error (&error);
  blocked = take_blocked (f, "s1");
  g_assert_cmpuint (blocked->len, ==, 0);
  ow_test_wait_until (no_connections, f->proxy, "the proxy to have no connections");

  /* Session s2 is untouched. */
  {
    g_autofree char *ok = site_url (f->site_port, "/s2");
    g_autoptr(OwHttpResponse) r2 = get_via (f, f->s2_port, ok);

    g_assert_cmpuint (ow_http_response_get_status (r2), ==, 200);
  }
}

static void
test_stale_socket (void)
{
  g_autoptr(OwSiteList) sites = ow_site_list_new ();
  g_autoptr(OwAddressGuard) guard = ow_address_guard_new (NULL);
  g_autoptr(OwProxy) proxy = ow_proxy_new (sites, guard);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = ow_test_make_tmpdir ("ow-proxy");
  g_autofree char *file = g_build_filename (dir, "not-a-socket", NULL);

  /* A regular file at the path is not ours to delete. */
  g_assert_true (g_file_set_contents (file, "keep me", -1, NULL));
  g_assert_false (ow_proxy_listen_unix (proxy, "s", file, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_true (g_file_test (file, G_FILE_TEST_IS_REGULAR));
  g_unlink (file);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, fn) g_test_add ("/ow/sandbox/proxy/" path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("plain-allowed", test_plain_allowed);
  ADD ("plain-not-listed", test_plain_not_listed);
  ADD ("grants", test_grants);
  ADD ("connect-unix", test_connect_unix);
  ADD ("connect-guarded", test_connect_guarded);
  ADD ("malformed", test_malformed);
  ADD ("headers-rewritten", test_headers_rewritten);
  ADD ("slow-client", test_slow_client);
  ADD ("idle-tunnel", test_idle_tunnel);
  ADD ("open-profile", test_open_profile);
  ADD ("end-session", test_end_session);
#undef ADD
  g_test_add_func ("/ow/sandbox/proxy/stale-socket", test_stale_socket);

  return g_test_run ();
}
