/* ow-proxy.c: the allow-list proxy (see ow-proxy.h).
 *
 * One connection (ProxyConn) goes through a few phases, each with its own
 * deadline on one timer source:
 *
 *   READ_HEAD    read until the request head is complete (OW_PROXY_MAX_HEAD
 *                at most, within head_ms: a client that trickles is closed);
 *   CONNECTING   the site list by name, then the address guard resolves and
 *                vets, then a TCP connection to the vetted address (within
 *                connect_ms, else 504);
 *   ESTABLISHING "200 Connection established" to the client (CONNECT) and
 *                the rewritten head (plain HTTP) plus whatever the client
 *                already sent to the server;
 *   TUNNEL       two pumps copy bytes each way through a fixed buffer; an
 *                end of stream is passed on as a half-close; silence in both
 *                directions for idle_ms closes both;
 *   RESPONDING / LINGER  a refusal or error is written, the write side is
 *                shut and what the client still sends is read and dropped
 *                for a moment, so closing does not reset the connection
 *                before the client has read the answer.
 *
 * Only one read is ever pending on each stream and writes wait for the
 * previous one, so memory per connection is bounded (two pump buffers and
 * the head). Every asynchronous operation holds a reference to its
 * connection; closing cancels them all, and the last callback to return
 * frees the connection. Each connection also holds a reference to the
 * proxy, so a proxy dropped by its owner stays until its connections are
 * gone.
 *
 * Plain-HTTP requests are forwarded with "Connection: close", one request
 * per connection: a second request on a kept-alive connection could name
 * another host, and only the first one was checked. The Host header is
 * rewritten from the URL for the same reason (a different Host on an
 * allowed CDN address would reach another site). Inside a CONNECT tunnel
 * the proxy sees only bytes; what TLS names there is the client's business,
 * a limit every allow-list proxy without interception shares.
 */
#define G_LOG_DOMAIN "ow-proxy"

#include "sandbox/ow-proxy.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>

#define MAX_HEADERS        100
#define MAX_METHOD         32
#define PUMP_BUFFER        (16 * 1024)
#define READ_CHUNK         4096
#define MAX_CONNECTIONS    512
#define LINGER_MS          2000
#define LINGER_MAX_BYTES   (64 * 1024)
#define DEFAULT_HEAD_MS    (30 * 1000)
#define DEFAULT_CONNECT_MS (15 * 1000)
#define DEFAULT_IDLE_MS    (10 * 60 * 1000)

/* ---- Request heads ---------------------------------------------------- */

void
ow_proxy_request_clear (OwProxyRequest *req)
{
  g_return_if_fail (req != NULL);

  g_clear_pointer (&req->method, g_free);
  g_clear_pointer (&req->host, g_free);
  g_clear_pointer (&req->path, g_free);
  g_clear_pointer (&req->headers, g_ptr_array_unref);
  g_clear_pointer (&req->error, g_free);
  req->is_connect = FALSE;
  req->port = 0;
  req->minor_version = 0;
  req->head_len = 0;
  req->error_status = 0;
}

G_GNUC_PRINTF (3, 4)
static OwProxyHeadStatus
head_invalid (OwProxyRequest *req,
              guint           status,
              const char     *format,
              ...)
{
  va_list args;

  g_clear_pointer (&req->error, g_free);
  req->error_status = status;
  va_start (args, format);
  req->error = g_strdup_vprintf (format, args);
  va_end (args);
  return OW_PROXY_HEAD_INVALID;
}

static gboolean
is_tchar (guchar c)
{
  return g_ascii_isalnum (c) || (c != '\0' && strchr ("!#$%&'*+-.^_`|~", c) != NULL);
}

static gboolean
all_tchars (const char *s,
            gsize       len)
{
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!is_tchar ((guchar) s[i]))
      return FALSE;
  return TRUE;
}

/* Headers that concern one hop only, never forwarded. Host is rebuilt from
 * the URL. */
static gboolean
is_hop_header (const char *lower_name)
{
  static const char *const hop[] = {
    "connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate",
    "te", "trailer", "upgrade", "host",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (hop); i++)
    if (g_str_equal (lower_name, hop[i]))
      return TRUE;
  return FALSE;
}

/* Parses the request line into @req. */
static OwProxyHeadStatus
parse_request_line (const char     *line,
                    gsize           len,
                    OwProxyRequest *req)
{
  const char *sp1 = memchr (line, ' ', len);
  const char *sp2 = sp1 != NULL ? memchr (sp1 + 1, ' ', (gsize) (line + len - sp1 - 1)) : NULL;
  const char *version;
  gsize version_len;
  g_autofree char *target = NULL;
  g_autoptr(GError) error = NULL;
  gsize target_len;

  if (sp1 == NULL || sp2 == NULL || memchr (sp2 + 1, ' ', (gsize) (line + len - sp2 - 1)) != NULL)
    return head_invalid (req, 400, "The request line must be “METHOD target HTTP/1.1”.");
  if (!all_tchars (line, (gsize) (sp1 - line)) || sp1 - line > MAX_METHOD)
    return head_invalid (req, 400, "The request method is not valid.");

  version = sp2 + 1;
  version_len = (gsize) (line + len - version);
  if (version_len == 8 && memcmp (version, "HTTP/1.1", 8) == 0)
    req->minor_version = 1;
  else if (version_len == 8 && memcmp (version, "HTTP/1.0", 8) == 0)
    req->minor_version = 0;
  else if (version_len > 5 && memcmp (version, "HTTP/", 5) == 0)
    return head_invalid (req, 505, "Only HTTP/1.0 and HTTP/1.1 are spoken here.");
  else
    return head_invalid (req, 400, "The request line must end in HTTP/1.1.");

  target_len = (gsize) (sp2 - sp1 - 1);
  if (target_len == 0)
    return head_invalid (req, 400, "The request has no target.");
  for (gsize i = 0; i < target_len; i++)
    {
      guchar c = (guchar) sp1[1 + i];

      if (c <= 0x20 || c >= 0x7f)
        return head_invalid (req, 400, "The request target contains a character that is not allowed.");
    }

  req->method = g_strndup (line, (gsize) (sp1 - line));
  target = g_strndup (sp1 + 1, target_len);
  req->is_connect = g_str_equal (req->method, "CONNECT");

  if (req->is_connect)
    {
      if (!ow_site_parse (target, TRUE, &req->host, &req->port, &error))
        return head_invalid (req, 400, "CONNECT needs a host and a port: %s", error->message);
      return OW_PROXY_HEAD_COMPLETE;
    }

  if (g_ascii_strncasecmp (target, "http://", 7) == 0)
    {
      const char *authority = target + 7;
      gsize authority_len = strcspn (authority, "/?#");
      g_autofree char *auth = g_strndup (authority, authority_len);
      const char *rest = authority + authority_len;
      gsize rest_len = strcspn (rest, "#");

      if (authority_len == 0)
        return head_invalid (req, 400, "The URL has no host.");
      if (strchr (auth, '@') != NULL)
        return head_invalid (req, 400, "URLs with user names or passwords are not forwarded.");
      if (!ow_site_parse (auth, FALSE, &req->host, &req->port, &error))
        return head_invalid (req, 400, "The URL's host is not valid: %s", error->message);
      if (req->port == 0)
        req->port = 80;
      if (rest_len == 0)
        req->path = g_strdup ("/");
      else if (rest[0] == '?')
        req->path = g_strdup_printf ("/%.*s", (int) rest_len, rest);
      else
        req->path = g_strndup (rest, rest_len);
      return OW_PROXY_HEAD_COMPLETE;
    }
  if (g_ascii_strncasecmp (target, "https://", 8) == 0)
    return head_invalid (req, 400, "Send https:// requests through a CONNECT tunnel.");
  if (target[0] == '/')
    return head_invalid (req, 400, "This is OpenWorker's allow-list proxy: send the full URL "
                                   "(http://host/path) or use CONNECT host:port.");
  return head_invalid (req, 400, "Only http:// URLs and CONNECT host:port are forwarded.");
}

/* Parses one header line into @req's forwarded headers. @drop collects
 * the names a Connection header lists (lower case). */
static OwProxyHeadStatus
parse_header_line (const char     *line,
                   gsize           len,
                   OwProxyRequest *req,
                   GPtrArray      *drop,
                   GPtrArray      *raw,
                   char          **content_length,
                   gboolean       *chunked)
{
  const char *colon = memchr (line, ':', len);
  const char *value;
  const char *value_end = line + len;
  g_autofree char *name = NULL;
  g_autofree char *lower = NULL;

  if (line[0] == ' ' || line[0] == '\t')
    return head_invalid (req, 400, "Folded header lines are not accepted.");
  if (colon == NULL || !all_tchars (line, (gsize) (colon - line)))
    return head_invalid (req, 400, "A header line is not “Name: value”.");

  value = colon + 1;
  while (value < value_end && (*value == ' ' || *value == '\t'))
    value++;
  while (value_end > value && (value_end[-1] == ' ' || value_end[-1] == '\t'))
    value_end--;
  for (const char *p = value; p < value_end; p++)
    if (((guchar) *p < 0x20 && *p != '\t') || (guchar) *p == 0x7f)
      return head_invalid (req, 400, "A header value contains a control character.");

  name = g_strndup (line, (gsize) (colon - line));
  lower = g_ascii_strdown (name, -1);

  if (g_str_equal (lower, "content-length"))
    {
      gsize n = (gsize) (value_end - value);

      if (n == 0 || n > 18)
        return head_invalid (req, 400, "Content-Length is not a number.");
      for (gsize i = 0; i < n; i++)
        if (!g_ascii_isdigit (value[i]))
          return head_invalid (req, 400, "Content-Length is not a number.");
      if (*content_length != NULL && strncmp (*content_length, value, n) != 0)
        return head_invalid (req, 400, "Content-Length is given twice with different values.");
      if (*content_length == NULL)
        *content_length = g_strndup (value, n);
    }
  else if (g_str_equal (lower, "transfer-encoding"))
    *chunked = TRUE;
  else if (g_str_equal (lower, "connection"))
    {
      g_autofree char *list = g_strndup (value, (gsize) (value_end - value));
      g_auto(GStrv) tokens = g_strsplit (list, ",", -1);

      for (guint i = 0; tokens[i] != NULL; i++)
        {
          g_strstrip (tokens[i]);
          if (*tokens[i] != '\0')
            g_ptr_array_add (drop, g_ascii_strdown (tokens[i], -1));
        }
    }

  /* Kept as (lower name, line) pairs; filtered once Connection is known. */
  g_ptr_array_add (raw, g_steal_pointer (&lower));
  g_ptr_array_add (raw, g_strdup_printf ("%s: %.*s", name, (int) (value_end - value), value));
  return OW_PROXY_HEAD_COMPLETE;
}

/* The end of the head (after its blank line) within @scan bytes, or 0. */
static gsize
find_head_end (const char *data,
               gsize       scan)
{
  for (gsize i = 0; i < scan; i++)
    {
      if (data[i] != '\n')
        continue;
      if (i + 1 < scan && data[i + 1] == '\n')
        return i + 2;
      if (i + 2 < scan && data[i + 1] == '\r' && data[i + 2] == '\n')
        return i + 3;
    }
  return 0;
}

/* One line of the head: [start, end) without its line break. Bare CRs,
 * NULs and other control characters in the line are refused by callers. */
static gboolean
next_line (const char  *data,
           gsize        limit,
           gsize       *pos,
           const char **line,
           gsize       *len)
{
  const char *nl;
  gsize n;

  if (*pos >= limit)
    return FALSE;
  nl = memchr (data + *pos, '\n', limit - *pos);
  if (nl == NULL)
    return FALSE;
  *line = data + *pos;
  n = (gsize) (nl - *line);
  *pos += n + 1;
  if (n > 0 && (*line)[n - 1] == '\r')
    n--;
  *len = n;
  return TRUE;
}

static gboolean
line_has_bad_bytes (const char *line,
                    gsize       len)
{
  return memchr (line, '\r', len) != NULL || memchr (line, '\0', len) != NULL;
}

OwProxyHeadStatus
ow_proxy_parse_head (const char     *data,
                     gsize           len,
                     OwProxyRequest *req)
{
  g_autoptr(GPtrArray) drop = NULL;
  g_autoptr(GPtrArray) raw = NULL;
  g_autofree char *content_length = NULL;
  gboolean chunked = FALSE;
  gsize scan = MIN (len, (gsize) OW_PROXY_MAX_HEAD);
  gsize end;
  gsize pos = 0;
  const char *line;
  gsize line_len;
  OwProxyHeadStatus status;
  guint n_headers = 0;

  g_return_val_if_fail (data != NULL || len == 0, OW_PROXY_HEAD_INVALID);
  g_return_val_if_fail (req != NULL, OW_PROXY_HEAD_INVALID);

  ow_proxy_request_clear (req);
  end = find_head_end (data, scan);

  if (end == 0)
    {
      /* Not complete: refuse early when what is there is already wrong,
       * so garbage does not hold a connection for the whole head timeout. */
      if (len >= OW_PROXY_MAX_HEAD)
        return head_invalid (req, 431, "The request head is larger than %d bytes.", OW_PROXY_MAX_HEAD);
      if (next_line (data, scan, &pos, &line, &line_len))
        {
          if (line_has_bad_bytes (line, line_len))
            return head_invalid (req, 400, "The request line contains a control character.");
          status = parse_request_line (line, line_len, req);
          if (status == OW_PROXY_HEAD_INVALID)
            {
              guint code = req->error_status;
              g_autofree char *why = g_steal_pointer (&req->error);

              ow_proxy_request_clear (req);
              return head_invalid (req, code, "%s", why);
            }
          ow_proxy_request_clear (req);
        }
      return OW_PROXY_HEAD_INCOMPLETE;
    }

  if (!next_line (data, end, &pos, &line, &line_len) || line_len == 0)
    return head_invalid (req, 400, "The request has no request line.");
  if (line_has_bad_bytes (line, line_len))
    return head_invalid (req, 400, "The request line contains a control character.");
  status = parse_request_line (line, line_len, req);
  if (status != OW_PROXY_HEAD_COMPLETE)
    return status;

  drop = g_ptr_array_new_with_free_func (g_free);
  raw = g_ptr_array_new_with_free_func (g_free);
  while (next_line (data, end, &pos, &line, &line_len) && line_len > 0)
    {
      if (line_has_bad_bytes (line, line_len))
        return head_invalid (req, 400, "A header line contains a control character.");
      if (++n_headers > MAX_HEADERS)
        return head_invalid (req, 431, "The request has more than %d headers.", MAX_HEADERS);
      status = parse_header_line (line, line_len, req, drop, raw, &content_length, &chunked);
      if (status != OW_PROXY_HEAD_COMPLETE)
        return status;
    }

  /* Both framings at once is how requests get smuggled past a proxy. */
  if (content_length != NULL && chunked)
    return head_invalid (req, 400, "A request may not carry both Content-Length and Transfer-Encoding.");

  req->headers = g_ptr_array_new_with_free_func (g_free);
  if (!req->is_connect)
    for (guint i = 0; i + 1 < raw->len; i += 2)
      {
        const char *lower = g_ptr_array_index (raw, i);
        gboolean listed = FALSE;

        for (guint d = 0; d < drop->len && !listed; d++)
          listed = g_str_equal (lower, g_ptr_array_index (drop, d));
        if (!listed && !is_hop_header (lower))
          g_ptr_array_add (req->headers, g_strdup (g_ptr_array_index (raw, i + 1)));
      }
  req->head_len = end;
  return OW_PROXY_HEAD_COMPLETE;
}

char *
ow_proxy_request_upstream_head (const OwProxyRequest *req)
{
  GString *out;

  g_return_val_if_fail (req != NULL && req->path != NULL && req->host != NULL, NULL);

  out = g_string_new (NULL);
  g_string_append_printf (out, "%s %s HTTP/1.%u\r\n", req->method, req->path, req->minor_version);
  if (strchr (req->host, ':') != NULL)
    g_string_append_printf (out, "Host: [%s]", req->host);
  else
    g_string_append_printf (out, "Host: %s", req->host);
  if (req->port != 80)
    g_string_append_printf (out, ":%u", (guint) req->port);
  g_string_append (out, "\r\n");
  for (guint i = 0; req->headers != NULL && i < req->headers->len; i++)
    g_string_append_printf (out, "%s\r\n", (const char *) g_ptr_array_index (req->headers, i));
  g_string_append (out, "Connection: close\r\n\r\n");
  return g_string_free (out, FALSE);
}

/* ---- The proxy -------------------------------------------------------- */

typedef struct _ProxyConn ProxyConn;

/* One listening socket, tied to a session. */
typedef struct {
  OwProxy        *proxy;       /* borrowed: the proxy stops its listeners before it goes */
  char           *session_id;  /* whose connections arrive here */
  GSocketService *service;     /* accepts them */
  char           *path;        /* the Unix socket file to remove, or NULL for TCP */
} Listener;

struct _OwProxy
{
  GObject         parent_instance;

  OwSiteList     *sites;        /* the allow list and grants (shared with the web tools) */
  OwAddressGuard *guard;        /* vets and pins destinations (shared too) */
  GPtrArray      *listeners;    /* Listener * */
  GQueue          conns;        /* ProxyConn * not yet closed */
  guint           n_live;       /* ProxyConns not yet freed (closed ones included) */
  GHashTable     *blocked;      /* session id → GPtrArray of "host:port", first refusal first */
  guint           head_ms;      /* deadline for a request head */
  guint           connect_ms;   /* deadline to resolve and connect upstream */
  guint           idle_ms;      /* silence that closes an established connection */
};

G_DEFINE_FINAL_TYPE (OwProxy, ow_proxy, G_TYPE_OBJECT)

enum {
  SIGNAL_BLOCKED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef enum {
  CONN_READ_HEAD,     /* reading the request head */
  CONN_CONNECTING,    /* vetting the destination and connecting to it */
  CONN_ESTABLISHING,  /* writing the 200 and the preamble */
  CONN_TUNNEL,        /* copying both ways */
  CONN_RESPONDING,    /* writing a final answer */
  CONN_LINGER,        /* draining the client before closing */
  CONN_CLOSED,        /* done; waiting for the last callback */
} ConnState;

/* One direction of a tunnel. */
typedef struct {
  ProxyConn     *conn;               /* owner (borrowed) */
  GInputStream  *in;                 /* where bytes come from (borrowed from a connection) */
  GOutputStream *out;                /* where they go (borrowed) */
  GSocket       *out_socket;         /* @out's socket, shut for writing at end of stream */
  gboolean       eof;                /* @in ended and @out was shut */
  guint8         buf[PUMP_BUFFER];   /* bytes in flight */
} Pump;

struct _ProxyConn
{
  gint               refs;            /* main context only, so a plain count */
  OwProxy           *proxy;           /* strong: the proxy outlives its connections */
  GList              link;            /* node in proxy->conns while not closed (data = self) */
  char              *session_id;      /* from the listener it arrived on */
  GSocketConnection *client;          /* the sandboxed program */
  GSocketConnection *upstream;        /* the destination, once connected */
  GCancellable      *cancellable;     /* every read and write; cancelled on close */
  GCancellable      *connect_cancel;  /* the vet and connect phase (timeout or close) */
  GByteArray        *head;            /* bytes read while waiting for the head */
  OwProxyRequest     req;             /* the parsed head */
  char              *target;          /* "host:port" once known */
  OwAddressVerdict  *verdict;         /* the guard's answer */
  guint              next_address;    /* index into verdict->addresses to try next */
  char              *response;        /* a final answer or the 200 being written */
  GBytes            *preamble;        /* bytes for upstream before tunnelling */
  Pump              *up;              /* client → upstream */
  Pump              *down;            /* upstream → client */
  GSource           *timer;           /* the current phase's deadline */
  gint64             deadline;        /* monotonic µs the phase ends (not for TUNNEL) */
  gint64             last_activity;   /* monotonic µs of the last byte tunnelled */
  gsize              lingered;        /* bytes dropped while lingering */
  ConnState          state;           /* the phase */
  guint8             readbuf[READ_CHUNK]; /* head and linger reads */
};

static void conn_close (ProxyConn *conn);
static void conn_respond (ProxyConn *conn, guint status, const char *reason, const char *body,
                          const char *blocked);

static ProxyConn *
conn_ref (ProxyConn *conn)
{
  conn->refs++;
  return conn;
}

static void
conn_unref (ProxyConn *conn)
{
  OwProxy *proxy;

  if (--conn->refs > 0)
    return;

  /* No operation is pending any more: closing cannot fail with PENDING. */
  g_assert (conn->state == CONN_CLOSED && conn->timer == NULL);
  if (conn->upstream != NULL)
    {
      g_io_stream_close (G_IO_STREAM (conn->upstream), NULL, NULL);
      g_object_unref (conn->upstream);
    }
  g_io_stream_close (G_IO_STREAM (conn->client), NULL, NULL);
  g_object_unref (conn->client);
  g_object_unref (conn->cancellable);
  g_object_unref (conn->connect_cancel);
  g_byte_array_unref (conn->head);
  ow_proxy_request_clear (&conn->req);
  g_free (conn->target);
  g_clear_pointer (&conn->verdict, ow_address_verdict_free);
  g_free (conn->response);
  g_clear_pointer (&conn->preamble, g_bytes_unref);
  g_free (conn->up);
  g_free (conn->down);
  g_free (conn->session_id);

  proxy = conn->proxy;
  proxy->n_live--;
  g_free (conn);
  g_object_unref (proxy);
}

static void
conn_set_deadline (ProxyConn *conn,
                   guint      ms)
{
  conn->deadline = g_get_monotonic_time () + (gint64) ms * 1000;
  g_source_set_ready_time (conn->timer, conn->deadline);
}

/* Ends @conn: no more callbacks act on it; the last one frees it. */
static void
conn_close (ProxyConn *conn)
{
  OwProxy *proxy = conn->proxy;

  if (conn->state == CONN_CLOSED)
    return;
  conn->state = CONN_CLOSED;
  g_cancellable_cancel (conn->cancellable);
  g_cancellable_cancel (conn->connect_cancel);
  if (conn->timer != NULL)
    {
      g_source_destroy (conn->timer);
      g_clear_pointer (&conn->timer, g_source_unref);
    }
  g_queue_unlink (&proxy->conns, &conn->link);
  conn_unref (conn); /* the reference the list held */
}

static gboolean
on_conn_timer_cb (gpointer user_data)
{
  ProxyConn *conn = user_data;
  gint64 now = g_get_monotonic_time ();

  switch (conn->state)
    {
    case CONN_TUNNEL:
      /* Activity only stores a timestamp; the deadline moves here. */
      if (now < conn->last_activity + (gint64) conn->proxy->idle_ms * 1000)
        {
          g_source_set_ready_time (conn->timer, conn->last_activity + (gint64) conn->proxy->idle_ms * 1000);
          return G_SOURCE_CONTINUE;
        }
      g_debug ("%s: idle for %u ms, closing", conn->target, conn->proxy->idle_ms);
      conn_close (conn);
      return G_SOURCE_CONTINUE;

    case CONN_CONNECTING:
      {
        g_autofree char *body = g_strdup_printf ("OpenWorker's proxy could not reach %s in time. "
                                                 "Try again later.\n", conn->target);

        /* The state changes first, so the cancelled operation's callback
         * knows it no longer leads anywhere. */
        conn->state = CONN_RESPONDING;
        g_cancellable_cancel (conn->connect_cancel);
        conn_respond (conn, 504, "Gateway Timeout", body, NULL);
        return G_SOURCE_CONTINUE;
      }

    case CONN_READ_HEAD:
      /* A client that trickles its head is not owed an answer. */
      g_debug ("request head not complete after %u ms, closing", conn->proxy->head_ms);
      conn_close (conn);
      return G_SOURCE_CONTINUE;

    case CONN_ESTABLISHING:
    case CONN_RESPONDING:
    case CONN_LINGER:
    case CONN_CLOSED:
    default:
      conn_close (conn);
      return G_SOURCE_CONTINUE;
    }
}

static gboolean
timer_dispatch (GSource     *source,
                GSourceFunc  callback,
                gpointer     user_data)
{
  g_source_set_ready_time (source, -1);
  return callback (user_data);
}

static GSourceFuncs timer_funcs = {
  NULL, NULL, timer_dispatch, NULL, NULL, NULL,
};

/* ---- Lingering close -------------------------------------------------- */

static void linger_read (ProxyConn *conn);

static void
on_linger_read_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ProxyConn *conn = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (conn->state == CONN_LINGER)
    {
      if (n <= 0 || (conn->lingered += (gsize) n) > LINGER_MAX_BYTES)
        conn_close (conn);
      else
        linger_read (conn);
    }
  conn_unref (conn);
}

static void
linger_read (ProxyConn *conn)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (conn->client));

  g_input_stream_read_async (in, conn->readbuf, sizeof conn->readbuf, G_PRIORITY_DEFAULT,
                             conn->cancellable, on_linger_read_cb, conn_ref (conn));
}

static void
on_response_written_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  ProxyConn *conn = user_data;
  gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL);

  if (conn->state == CONN_RESPONDING)
    {
      if (!ok)
        conn_close (conn);
      else
        {
          /* Half-close so the client sees the end of the answer, then drop
           * what it still sends for a moment before closing for good. */
          g_socket_shutdown (g_socket_connection_get_socket (conn->client), FALSE, TRUE, NULL);
          conn->state = CONN_LINGER;
          conn_set_deadline (conn, LINGER_MS);
          linger_read (conn);
        }
    }
  conn_unref (conn);
}

/* Writes a final answer and closes. @blocked names the refused host for
 * the X-OpenWorker-Blocked header, or NULL. */
static void
conn_respond (ProxyConn  *conn,
              guint       status,
              const char *reason,
              const char *body,
              const char *blocked)
{
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn->client));
  GString *r = g_string_new (NULL);

  g_string_append_printf (r, "HTTP/1.1 %u %s\r\n", status, reason);
  g_string_append (r, "Content-Type: text/plain; charset=utf-8\r\n");
  g_string_append_printf (r, "Content-Length: %" G_GSIZE_FORMAT "\r\n", strlen (body));
  if (blocked != NULL)
    g_string_append_printf (r, "X-OpenWorker-Blocked: %s\r\n", blocked);
  g_string_append (r, "Connection: close\r\n\r\n");
  g_string_append (r, body);

  g_free (conn->response);
  conn->response = g_string_free (r, FALSE);
  conn->state = CONN_RESPONDING;
  conn_set_deadline (conn, conn->proxy->connect_ms);
  g_output_stream_write_all_async (out, conn->response, strlen (conn->response), G_PRIORITY_DEFAULT,
                                   conn->cancellable, on_response_written_cb, conn_ref (conn));
}

/* ---- Refusals --------------------------------------------------------- */

static void
record_blocked (OwProxy    *self,
                const char *session_id,
                const char *target,
                const char *reason)
{
  GPtrArray *list = g_hash_table_lookup (self->blocked, session_id);
  gboolean known = FALSE;

  if (list == NULL)
    {
      list = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (self->blocked, g_strdup (session_id), list);
    }
  for (guint i = 0; i < list->len && !known; i++)
    known = g_str_equal (g_ptr_array_index (list, i), target);
  if (!known)
    g_ptr_array_add (list, g_strdup (target));

  g_signal_emit (self, signals[SIGNAL_BLOCKED], 0, session_id, target, reason);
}

static void
refuse_not_listed (ProxyConn *conn)
{
  g_autofree char *body = NULL;

  g_debug ("%s: blocked, not on the list for session %s", conn->target, conn->session_id);
  record_blocked (conn->proxy, conn->session_id, conn->target, "not on the allow list");
  body = g_strdup_printf ("OpenWorker's sandbox blocked %s: it is not on the list of sites this "
                          "session may reach.\n"
                          "Ask the person to allow %s (once, for this session, or always). "
                          "Once allowed it works at once, without a restart.\n",
                          conn->target, conn->target);
  conn_respond (conn, 403, "Forbidden", body, conn->target);
}

static void
refuse_address (ProxyConn *conn)
{
  OwAddressVerdict *v = conn->verdict;
  g_autofree char *what = NULL;
  g_autofree char *body = NULL;

  /* "host:port (ip): reason" when a name led to the refused address. */
  if (v->refused_ip != NULL && g_strcmp0 (v->refused_ip, v->host) != 0)
    what = g_strdup_printf ("%s (%s): %s", conn->target, v->refused_ip, v->reason);
  else
    what = g_strdup_printf ("%s: %s", conn->target, v->reason);
  g_debug ("blocked by the address guard: %s", what);
  record_blocked (conn->proxy, conn->session_id, conn->target, v->reason);
  body = g_strdup_printf ("OpenWorker's sandbox blocked %s.\n"
                          "Addresses on this machine, its private networks, link-local ranges "
                          "(the cloud metadata endpoint) and reserved ranges are not reachable "
                          "from the sandbox. A person can list the exact host:port in "
                          "sandbox_network_hosts to make an exception.\n",
                          what);
  conn_respond (conn, 403, "Forbidden", body, conn->target);
}

/* ---- Tunnelling ------------------------------------------------------- */

static void pump_read (Pump *pump);

static void
on_pump_written_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Pump *pump = user_data;
  ProxyConn *conn = pump->conn;
  gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL);

  if (conn->state == CONN_TUNNEL)
    {
      if (!ok)
        conn_close (conn);
      else
        pump_read (pump);
    }
  conn_unref (conn);
}

static void
on_pump_read_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Pump *pump = user_data;
  ProxyConn *conn = pump->conn;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (conn->state == CONN_TUNNEL)
    {
      if (n < 0)
        conn_close (conn);
      else if (n == 0)
        {
          /* Pass the end on as a half-close; the other way may still talk. */
          g_socket_shutdown (pump->out_socket, FALSE, TRUE, NULL);
          pump->eof = TRUE;
          if (conn->up->eof && conn->down->eof)
            conn_close (conn);
        }
      else
        {
          conn->last_activity = g_get_monotonic_time ();
          conn_ref (conn);
          g_output_stream_write_all_async (pump->out, pump->buf, (gsize) n, G_PRIORITY_DEFAULT,
                                           conn->cancellable, on_pump_written_cb, pump);
        }
    }
  conn_unref (conn);
}

static void
pump_read (Pump *pump)
{
  conn_ref (pump->conn);
  g_input_stream_read_async (pump->in, pump->buf, sizeof pump->buf, G_PRIORITY_DEFAULT,
                             pump->conn->cancellable, on_pump_read_cb, pump);
}

static Pump *
pump_new (ProxyConn         *conn,
          GSocketConnection *from,
          GSocketConnection *to)
{
  Pump *pump = g_new0 (Pump, 1);

  pump->conn = conn;
  pump->in = g_io_stream_get_input_stream (G_IO_STREAM (from));
  pump->out = g_io_stream_get_output_stream (G_IO_STREAM (to));
  pump->out_socket = g_socket_connection_get_socket (to);
  return pump;
}

static void
start_tunnel (ProxyConn *conn)
{
  conn->state = CONN_TUNNEL;
  conn->last_activity = g_get_monotonic_time ();
  g_source_set_ready_time (conn->timer, conn->last_activity + (gint64) conn->proxy->idle_ms * 1000);
  conn->up = pump_new (conn, conn->client, conn->upstream);
  conn->down = pump_new (conn, conn->upstream, conn->client);
  pump_read (conn->up);
  pump_read (conn->down);
}

static void
on_preamble_written_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  ProxyConn *conn = user_data;
  gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL);

  if (conn->state == CONN_ESTABLISHING)
    {
      if (!ok)
        conn_close (conn);
      else
        start_tunnel (conn);
    }
  conn_unref (conn);
}

static void
write_preamble (ProxyConn *conn)
{
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn->upstream));
  gsize len = 0;
  const void *data = g_bytes_get_data (conn->preamble, &len);

  if (len == 0)
    {
      start_tunnel (conn);
      return;
    }
  g_output_stream_write_all_async (out, data, len, G_PRIORITY_DEFAULT, conn->cancellable,
                                   on_preamble_written_cb, conn_ref (conn));
}

static void
on_established_written_cb (GObject      *source,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  ProxyConn *conn = user_data;
  gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL);

  if (conn->state == CONN_ESTABLISHING)
    {
      if (!ok)
        conn_close (conn);
      else
        write_preamble (conn);
    }
  conn_unref (conn);
}

static void
establish (ProxyConn *conn)
{
  const guint8 *extra = conn->head->data + conn->req.head_len;
  gsize extra_len = conn->head->len - conn->req.head_len;

  conn->state = CONN_ESTABLISHING;
  conn_set_deadline (conn, conn->proxy->connect_ms);

  if (conn->req.is_connect)
    {
      GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn->client));

      /* What the client sent after its CONNECT head is tunnel data. */
      conn->preamble = g_bytes_new (extra, extra_len);
      g_free (conn->response);
      conn->response = g_strdup ("HTTP/1.1 200 Connection established\r\n\r\n");
      g_output_stream_write_all_async (out, conn->response, strlen (conn->response), G_PRIORITY_DEFAULT,
                                       conn->cancellable, on_established_written_cb, conn_ref (conn));
      return;
    }

  {
    g_autofree char *head = ow_proxy_request_upstream_head (&conn->req);
    gsize head_len = strlen (head);
    guint8 *buf = g_malloc (head_len + extra_len);

    memcpy (buf, head, head_len);
    if (extra_len > 0)
      memcpy (buf + head_len, extra, extra_len);
    conn->preamble = g_bytes_new_take (buf, head_len + extra_len);
  }
  write_preamble (conn);
}

/* ---- Connecting ------------------------------------------------------- */

static void connect_next (ProxyConn *conn, const char *last_error);

static void
on_connected_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ProxyConn *conn = user_data;
  g_autoptr(GError) error = NULL;
  GSocketConnection *upstream = g_socket_client_connect_finish (G_SOCKET_CLIENT (source), result, &error);

  if (conn->state != CONN_CONNECTING)
    {
      g_clear_object (&upstream);
      conn_unref (conn);
      return;
    }
  if (upstream == NULL)
    connect_next (conn, error->message);
  else
    {
      g_socket_set_option (g_socket_connection_get_socket (upstream), IPPROTO_TCP, TCP_NODELAY, 1, NULL);
      conn->upstream = upstream;
      establish (conn);
    }
  conn_unref (conn);
}

/* Tries the next vetted address, or answers 502 when none is left. */
static void
connect_next (ProxyConn  *conn,
              const char *last_error)
{
  GPtrArray *addresses = conn->verdict->addresses;
  g_autoptr(GSocketClient) client = NULL;
  g_autoptr(GSocketAddress) address = NULL;

  if (conn->next_address >= addresses->len)
    {
      g_autofree char *body = g_strdup_printf ("OpenWorker's proxy could not connect to %s (%s).\n",
                                               conn->target, last_error != NULL ? last_error : "no address");

      conn_respond (conn, 502, "Bad Gateway", body, NULL);
      return;
    }

  /* The vetted address itself: nothing is resolved again, and GIO's own
   * proxy settings (which read *_proxy variables) stay out of it. */
  address = g_inet_socket_address_new (g_ptr_array_index (addresses, conn->next_address++),
                                       conn->req.port);
  client = g_socket_client_new ();
  g_socket_client_set_enable_proxy (client, FALSE);
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (address), conn->connect_cancel,
                                 on_connected_cb, conn_ref (conn));
}

static void
on_vetted_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ProxyConn *conn = user_data;
  OwAddressVerdict *verdict = ow_address_guard_vet_finish (OW_ADDRESS_GUARD (source), result, NULL);

  if (conn->state != CONN_CONNECTING || verdict == NULL)
    {
      g_clear_pointer (&verdict, ow_address_verdict_free);
      conn_unref (conn);
      return;
    }
  conn->verdict = verdict;

  if (!verdict->allowed && verdict->unresolved)
    {
      g_autofree char *body = g_strdup_printf ("OpenWorker's proxy %s.\n", verdict->reason);

      conn_respond (conn, 502, "Bad Gateway", body, NULL);
    }
  else if (!verdict->allowed)
    refuse_address (conn);
  else if (ow_site_list_check (conn->proxy->sites, conn->session_id, conn->req.host, conn->req.port,
                               TRUE) == OW_SITE_DENIED)
    refuse_not_listed (conn); /* a once grant another connection used meanwhile */
  else
    connect_next (conn, NULL);
  conn_unref (conn);
}

static void
handle_request (ProxyConn *conn)
{
  OwProxy *self = conn->proxy;

  conn->target = ow_site_format (conn->req.host, conn->req.port);

  /* The name is checked before it is resolved: a host that is not allowed
   * is never even looked up, so DNS carries nothing out either. Once
   * grants are used up only when the connection is really made. */
  if (ow_site_list_check (self->sites, conn->session_id, conn->req.host, conn->req.port, FALSE)
      == OW_SITE_DENIED)
    {
      refuse_not_listed (conn);
      return;
    }

  conn->state = CONN_CONNECTING;
  conn_set_deadline (conn, self->connect_ms);
  ow_address_guard_vet_async (self->guard, conn->req.host, conn->req.port, conn->connect_cancel,
                              on_vetted_cb, conn_ref (conn));
}

/* ---- Reading the head ------------------------------------------------- */

static void head_read (ProxyConn *conn);

static void
on_head_read_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ProxyConn *conn = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (conn->state != CONN_READ_HEAD)
    {
      conn_unref (conn);
      return;
    }
  if (n <= 0)
    conn_close (conn); /* the client left, or the connection failed */
  else
    {
      g_byte_array_append (conn->head, conn->readbuf, (guint) n);
      switch (ow_proxy_parse_head ((const char *) conn->head->data, conn->head->len, &conn->req))
        {
        case OW_PROXY_HEAD_INCOMPLETE:
          head_read (conn);
          break;
        case OW_PROXY_HEAD_COMPLETE:
          handle_request (conn);
          break;
        case OW_PROXY_HEAD_INVALID:
        default:
          {
            g_autofree char *body = g_strdup_printf ("%s\n", conn->req.error);
            const char *reason = conn->req.error_status == 431 ? "Request Header Fields Too Large"
                               : conn->req.error_status == 505 ? "HTTP Version Not Supported"
                               : "Bad Request";

            conn_respond (conn, conn->req.error_status, reason, body, NULL);
          }
          break;
        }
    }
  conn_unref (conn);
}

static void
head_read (ProxyConn *conn)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (conn->client));

  g_input_stream_read_async (in, conn->readbuf, sizeof conn->readbuf, G_PRIORITY_DEFAULT,
                             conn->cancellable, on_head_read_cb, conn_ref (conn));
}

static void
conn_start (OwProxy           *self,
            const char        *session_id,
            GSocketConnection *client)
{
  ProxyConn *conn = g_new0 (ProxyConn, 1);

  conn->refs = 1; /* the list's */
  conn->proxy = g_object_ref (self);
  conn->link.data = conn;
  conn->session_id = g_strdup (session_id);
  conn->client = g_object_ref (client);
  conn->cancellable = g_cancellable_new ();
  conn->connect_cancel = g_cancellable_new ();
  conn->head = g_byte_array_new ();
  conn->state = CONN_READ_HEAD;
  conn->timer = g_source_new (&timer_funcs, sizeof (GSource));
  g_source_set_static_name (conn->timer, "OwProxy deadline");
  g_source_set_callback (conn->timer, on_conn_timer_cb, conn, NULL);
  g_source_attach (conn->timer, g_main_context_get_thread_default ());
  g_queue_push_tail_link (&self->conns, &conn->link);
  self->n_live++;

  if (self->n_live > MAX_CONNECTIONS)
    {
      conn_respond (conn, 503, "Service Unavailable",
                    "OpenWorker's proxy has too many connections open; try again shortly.\n", NULL);
      return;
    }
  conn_set_deadline (conn, self->head_ms);
  head_read (conn);
}

/* ---- Listeners -------------------------------------------------------- */

static gboolean
on_service_incoming_cb (GSocketService    *service,
                        GSocketConnection *connection,
                        GObject           *source_object,
                        gpointer           user_data)
{
  Listener *l = user_data;

  conn_start (l->proxy, l->session_id, connection);
  return TRUE;
}

static void
listener_free (gpointer data)
{
  Listener *l = data;

  g_signal_handlers_disconnect_by_data (l->service, l);
  g_socket_service_stop (l->service);
  g_socket_listener_close (G_SOCKET_LISTENER (l->service));
  g_object_unref (l->service);
  if (l->path != NULL)
    g_unlink (l->path);
  g_free (l->path);
  g_free (l->session_id);
  g_free (l);
}

static Listener *
listener_new (OwProxy    *self,
              const char *session_id)
{
  Listener *l = g_new0 (Listener, 1);

  l->proxy = self;
  l->session_id = g_strdup (session_id);
  l->service = g_socket_service_new ();
  g_signal_connect (l->service, "incoming", G_CALLBACK (on_service_incoming_cb), l);
  return l;
}

gboolean
ow_proxy_listen_unix (OwProxy     *self,
                      const char  *session_id,
                      const char  *path,
                      GError     **error)
{
  g_autoptr(GSocketAddress) address = NULL;
  struct stat st;
  Listener *l;

  g_return_val_if_fail (OW_IS_PROXY (self), FALSE);
  g_return_val_if_fail (session_id != NULL && path != NULL, FALSE);

  if (lstat (path, &st) == 0)
    {
      /* A socket left by an earlier run is ours to replace; anything else
       * at that path is not ours to delete. */
      if (!S_ISSOCK (st.st_mode))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       "Cannot start the sandbox's proxy at %s: something that is not a socket is "
                       "already there. Remove it and try again.", path);
          return FALSE;
        }
      g_unlink (path);
    }

  l = listener_new (self, session_id);
  address = g_unix_socket_address_new (path);
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (l->service), address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, error))
    {
      listener_free (l);
      return FALSE;
    }
  l->path = g_strdup (path);
  /* Owner only: anyone else able to connect could use the session's grants.
   * (The folder should be private as well, which closes the moment between
   * bind and chmod.) */
  if (chmod (path, 0600) != 0)
    {
      int saved = errno;

      listener_free (l);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot make the sandbox's proxy socket %s private: %s", path, g_strerror (saved));
      return FALSE;
    }
  g_socket_service_start (l->service);
  g_ptr_array_add (self->listeners, l);
  return TRUE;
}

guint16
ow_proxy_listen_tcp (OwProxy     *self,
                     const char  *session_id,
                     guint16      port,
                     GError     **error)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketAddress) effective = NULL;
  Listener *l;

  g_return_val_if_fail (OW_IS_PROXY (self), 0);
  g_return_val_if_fail (session_id != NULL, 0);

  l = listener_new (self, session_id);
  address = g_inet_socket_address_new (loopback, port);
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (l->service), address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, NULL, &effective, error))
    {
      listener_free (l);
      return 0;
    }
  g_socket_service_start (l->service);
  g_ptr_array_add (self->listeners, l);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
}

void
ow_proxy_end_session (OwProxy    *self,
                      const char *session_id)
{
  GList *l;

  g_return_if_fail (OW_IS_PROXY (self));
  g_return_if_fail (session_id != NULL);

  for (guint i = self->listeners->len; i > 0; i--)
    {
      Listener *listener = g_ptr_array_index (self->listeners, i - 1);

      if (g_str_equal (listener->session_id, session_id))
        g_ptr_array_remove_index (self->listeners, i - 1);
    }
  l = self->conns.head;
  while (l != NULL)
    {
      ProxyConn *conn = l->data;

      l = l->next;
      if (g_str_equal (conn->session_id, session_id))
        conn_close (conn);
    }
  g_hash_table_remove (self->blocked, session_id);
}

void
ow_proxy_close (OwProxy *self)
{
  g_return_if_fail (OW_IS_PROXY (self));

  g_ptr_array_set_size (self->listeners, 0);
  while (self->conns.head != NULL)
    conn_close (self->conns.head->data);
}

GPtrArray *
ow_proxy_take_blocked (OwProxy    *self,
                       const char *session_id)
{
  GPtrArray *list = NULL;
  char *key = NULL;

  g_return_val_if_fail (OW_IS_PROXY (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  if (!g_hash_table_steal_extended (self->blocked, session_id, (gpointer *) &key, (gpointer *) &list))
    return g_ptr_array_new_with_free_func (g_free);
  g_free (key);
  return list;
}

void
ow_proxy_set_timeouts (OwProxy *self,
                       guint    head_ms,
                       guint    connect_ms,
                       guint    idle_ms)
{
  g_return_if_fail (OW_IS_PROXY (self));

  self->head_ms = head_ms > 0 ? head_ms : DEFAULT_HEAD_MS;
  self->connect_ms = connect_ms > 0 ? connect_ms : DEFAULT_CONNECT_MS;
  self->idle_ms = idle_ms > 0 ? idle_ms : DEFAULT_IDLE_MS;
}

guint
ow_proxy_get_n_connections (OwProxy *self)
{
  g_return_val_if_fail (OW_IS_PROXY (self), 0);

  return self->n_live;
}

/* ---- Object ----------------------------------------------------------- */

static void
ow_proxy_dispose (GObject *object)
{
  OwProxy *self = OW_PROXY (object);

  /* Connections hold references, so none is left by now; listeners may be. */
  g_ptr_array_set_size (self->listeners, 0);
  G_OBJECT_CLASS (ow_proxy_parent_class)->dispose (object);
}

static void
ow_proxy_finalize (GObject *object)
{
  OwProxy *self = OW_PROXY (object);

  g_assert (self->n_live == 0);
  g_ptr_array_unref (self->listeners);
  g_hash_table_unref (self->blocked);
  g_clear_object (&self->sites);
  g_clear_object (&self->guard);
  G_OBJECT_CLASS (ow_proxy_parent_class)->finalize (object);
}

static void
ow_proxy_class_init (OwProxyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_proxy_dispose;
  object_class->finalize = ow_proxy_finalize;

  /**
   * OwProxy::blocked:
   * @proxy: the proxy
   * @session_id: the session whose command was refused
   * @host_port: the destination ("example.com:443")
   * @reason: "not on the allow list", or the address guard's reason
   *
   * A connection was refused. The same destinations are kept for
   * ow_proxy_take_blocked(); this is for a live view.
   */
  signals[SIGNAL_BLOCKED] = g_signal_new ("blocked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                          G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
}

static void
ow_proxy_init (OwProxy *self)
{
  self->listeners = g_ptr_array_new_with_free_func (listener_free);
  g_queue_init (&self->conns);
  self->blocked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_ptr_array_unref);
  self->head_ms = DEFAULT_HEAD_MS;
  self->connect_ms = DEFAULT_CONNECT_MS;
  self->idle_ms = DEFAULT_IDLE_MS;
}

OwProxy *
ow_proxy_new (OwSiteList     *sites,
              OwAddressGuard *guard)
{
  OwProxy *self;

  g_return_val_if_fail (OW_IS_SITE_LIST (sites), NULL);
  g_return_val_if_fail (OW_IS_ADDRESS_GUARD (guard), NULL);

  self = g_object_new (OW_TYPE_PROXY, NULL);
  self->sites = g_object_ref (sites);
  self->guard = g_object_ref (guard);
  return self;
}
