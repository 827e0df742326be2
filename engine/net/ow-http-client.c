/* ow-http-client.c: outbound HTTP on the libcurl multi interface.
 *
 * engine/net is the only part of the engine that talks to libcurl (model
 * providers, connectors, MCP over HTTP and web tools all come through here)
 * and it also holds the pure SSE and NDJSON stream parsers.
 *
 * One OwHttpClient owns one CURLM, so every transfer of the client shares
 * curl's connection cache (sequential requests to one server reuse one
 * keep-alive connection) and DNS cache. The multi is driven from the GLib
 * main context that was thread-default when the client was made, through one
 * custom GSource: curl tells us which sockets to watch (CURLMOPT_SOCKETFUNCTION
 * → g_source_add_unix_fd on that source) and when it next needs to run
 * (CURLMOPT_TIMERFUNCTION → the source's ready time), and the source's
 * dispatch calls curl_multi_socket_action for the sockets poll found ready
 * and for an expired timer, then collects finished transfers with
 * curl_multi_info_read. Nothing polls and no thread is started, so a client
 * with nothing to do costs nothing, and a small request costs a few
 * main-loop iterations.
 *
 * A transfer (OwTransfer) is one send: an easy handle (recycled through a
 * small pool, since curl_easy_init is not free), its OwHttpResponse and the
 * GTask that completes it. curl hands us header lines and body bytes from
 * inside curl_multi_socket_action; 2xx bodies go straight to the caller's
 * chunk function, other bodies are accumulated up to the request's limit.
 * Every way a transfer can end (curl done, idle timer, cancellation)
 * funnels into transfer_finish(), which runs once, on the main context and
 * never inside a curl callback, and completes the task exactly once.
 *
 * Cancellation may come from any thread. The cancelled handler therefore
 * only queues a high-priority idle on the client's context, which removes
 * the easy handle; meanwhile the write callback checks the cancellable
 * before handing over each piece, so no chunk is delivered once cancel()
 * has returned. The idle timeout is our own per-transfer timer rather than
 * curl's LOW_SPEED options, for millisecond precision; it is re-armed lazily
 * (the callbacks only store a timestamp), so a stream of small chunks costs
 * no timer churn.
 *
 * Header values and URL queries (Gemini's ?key=) carry secrets: traces
 * and error messages name only scheme, host, port and path.
 */
#define G_LOG_DOMAIN "ow-net"

#include "net/ow-http-client.h"

#include <curl/curl.h>
#include <errno.h>
#include <string.h>

#include "ow-error.h"

#define DEFAULT_CONNECT_MS (30 * 1000)
#define DEFAULT_IDLE_MS    (300 * 1000)
#define DEFAULT_MAX_BODY   ((gsize) 64 * 1024 * 1024)
/* Easy handles kept for reuse once their transfer is done. */
#define MAX_SPARE_HANDLES  16
/* Idle connections curl keeps open for reuse. */
#define MAX_CACHED_CONNECTIONS 32

#ifndef CURL_WRITEFUNC_ERROR
/* libcurl < 7.87: any count other than the one given is an error. */
#define CURL_WRITEFUNC_ERROR 0xFFFFFFFF
#endif

/* Traces are formatted only when someone asked for ow-net debug output:
 * g_debug() would format its message even when it is then dropped. */
#define NET_TRACE(...)                                                       \
  G_STMT_START                                                               \
  {                                                                          \
    if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))  \
      g_debug (__VA_ARGS__);                                                 \
  }                                                                          \
  G_STMT_END

/* ---- Request ---------------------------------------------------------- */

struct _OwHttpRequest
{
  gatomicrefcount ref_count;    /* requests are shareable across threads */
  char           *method;       /* "GET", "POST", … as the caller spelled it */
  char           *url;          /* may carry a key in its query: never logged whole */
  GPtrArray      *headers;      /* "Name: value" lines (char *), in the order added */
  GBytes         *body;         /* request body, or NULL for none */
  char           *content_type; /* Content-Type of @body, or NULL */
  guint           connect_ms;   /* until the connection is up; 0 = none */
  guint           idle_ms;      /* longest silence once connected; 0 = none */
  guint           total_ms;     /* whole exchange; 0 = none */
  gsize           max_body;     /* largest accumulated body */
  char           *proxy;        /* NULL = environment, "" = none, else proxy URL */
  char           *pin;          /* IP literal to connect to instead of resolving, or NULL */
};

G_DEFINE_BOXED_TYPE (OwHttpRequest, ow_http_request, ow_http_request_ref, ow_http_request_unref)

OwHttpRequest *
ow_http_request_new (const char *method,
                     const char *url)
{
  OwHttpRequest *req;

  g_return_val_if_fail (method != NULL && *method != '\0', NULL);
  g_return_val_if_fail (url != NULL, NULL);

  req = g_new0 (OwHttpRequest, 1);
  g_atomic_ref_count_init (&req->ref_count);
  req->method = g_strdup (method);
  req->url = g_strdup (url);
  req->headers = g_ptr_array_new_with_free_func (g_free);
  req->connect_ms = DEFAULT_CONNECT_MS;
  req->idle_ms = DEFAULT_IDLE_MS;
  req->max_body = DEFAULT_MAX_BODY;

  return req;
}

OwHttpRequest *
ow_http_request_ref (OwHttpRequest *req)
{
  g_return_val_if_fail (req != NULL, NULL);

  g_atomic_ref_count_inc (&req->ref_count);
  return req;
}

void
ow_http_request_unref (OwHttpRequest *req)
{
  g_return_if_fail (req != NULL);

  if (!g_atomic_ref_count_dec (&req->ref_count))
    return;

  g_free (req->method);
  g_free (req->url);
  g_ptr_array_unref (req->headers);
  g_clear_pointer (&req->body, g_bytes_unref);
  g_free (req->content_type);
  g_free (req->proxy);
  g_free (req->pin);
  g_free (req);
}

const char *
ow_http_request_get_url (OwHttpRequest *req)
{
  g_return_val_if_fail (req != NULL, NULL);
  return req->url;
}

const char *
ow_http_request_get_method (OwHttpRequest *req)
{
  g_return_val_if_fail (req != NULL, NULL);
  return req->method;
}

static gboolean
is_header_space (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void
ow_http_request_add_header (OwHttpRequest *req,
                            const char    *name,
                            const char    *value)
{
  const char *end;

  g_return_if_fail (req != NULL);
  g_return_if_fail (name != NULL && *name != '\0');
  g_return_if_fail (strpbrk (name, ":\r\n ") == NULL);
  g_return_if_fail (value != NULL);

  /* A key pasted from a file often ends in a newline: trim the edges. A line
   * break inside a value would inject a header, which is a bug upstream. */
  while (is_header_space (*value))
    value++;
  end = value + strlen (value);
  while (end > value && is_header_space (end[-1]))
    end--;
  g_return_if_fail (memchr (value, '\r', (gsize) (end - value)) == NULL);
  g_return_if_fail (memchr (value, '\n', (gsize) (end - value)) == NULL);

  /* curl drops "Name:" (empty value) but sends "Name;" as an empty header. */
  if (end == value)
    g_ptr_array_add (req->headers, g_strdup_printf ("%s;", name));
  else
    g_ptr_array_add (req->headers, g_strdup_printf ("%s: %.*s", name, (int) (end - value), value));
}

void
ow_http_request_set_body (OwHttpRequest *req,
                          GBytes        *body,
                          const char    *content_type)
{
  g_return_if_fail (req != NULL);

  g_clear_pointer (&req->body, g_bytes_unref);
  req->body = body != NULL ? g_bytes_ref (body) : NULL;
  g_free (req->content_type);
  req->content_type = g_strdup (content_type);
}

void
ow_http_request_set_timeouts (OwHttpRequest *req,
                              guint          connect_ms,
                              guint          idle_ms,
                              guint          total_ms)
{
  g_return_if_fail (req != NULL);

  req->connect_ms = connect_ms;
  req->idle_ms = idle_ms;
  req->total_ms = total_ms;
}

void
ow_http_request_set_max_body (OwHttpRequest *req,
                              gsize          max_bytes)
{
  g_return_if_fail (req != NULL);

  req->max_body = max_bytes;
}

void
ow_http_request_set_proxy (OwHttpRequest *req,
                           const char    *proxy_url)
{
  g_return_if_fail (req != NULL);

  g_free (req->proxy);
  req->proxy = g_strdup (proxy_url);
}

void
ow_http_request_set_pinned_address (OwHttpRequest *req,
                                    const char    *address)
{
  g_return_if_fail (req != NULL);
  g_return_if_fail (address == NULL || g_hostname_is_ip_address (address));

  g_free (req->pin);
  req->pin = g_strdup (address);
}

/* ---- Response --------------------------------------------------------- */

struct _OwHttpResponse
{
  gatomicrefcount ref_count;  /* responses outlive their transfer in callers */
  guint           status;     /* HTTP status of the final response; 0 before one */
  GHashTable     *headers;    /* name → value, case-insensitive keys, last wins */
  GByteArray     *acc;        /* body gathered while the transfer runs, or NULL */
  GBytes         *body;       /* the body once known (or an empty one) */
  char           *peer;       /* "ip:port" of the server (or proxy), or NULL */
  double          ttfb;       /* seconds from start to the first response byte */
  double          total_time; /* seconds for the whole exchange */
};

G_DEFINE_BOXED_TYPE (OwHttpResponse, ow_http_response, ow_http_response_ref, ow_http_response_unref)

/* Header names compare case-insensitively; hashing lower-cased on the fly
 * saves an allocation per lookup. */
static guint
header_name_hash (gconstpointer key)
{
  const guchar *p = key;
  guint hash = 5381;

  for (; *p != '\0'; p++)
    hash = hash * 33 + (guint) g_ascii_tolower (*p);
  return hash;
}

static gboolean
header_name_equal (gconstpointer a,
                   gconstpointer b)
{
  return g_ascii_strcasecmp (a, b) == 0;
}

static OwHttpResponse *
ow_http_response_new (void)
{
  OwHttpResponse *resp = g_new0 (OwHttpResponse, 1);

  g_atomic_ref_count_init (&resp->ref_count);
  resp->headers = g_hash_table_new_full (header_name_hash, header_name_equal, g_free, g_free);
  return resp;
}

OwHttpResponse *
ow_http_response_ref (OwHttpResponse *resp)
{
  g_return_val_if_fail (resp != NULL, NULL);

  g_atomic_ref_count_inc (&resp->ref_count);
  return resp;
}

void
ow_http_response_unref (OwHttpResponse *resp)
{
  g_return_if_fail (resp != NULL);

  if (!g_atomic_ref_count_dec (&resp->ref_count))
    return;

  g_hash_table_unref (resp->headers);
  g_clear_pointer (&resp->acc, g_byte_array_unref);
  g_clear_pointer (&resp->body, g_bytes_unref);
  g_free (resp->peer);
  g_free (resp);
}

guint
ow_http_response_get_status (OwHttpResponse *resp)
{
  g_return_val_if_fail (resp != NULL, 0);
  return resp->status;
}

const char *
ow_http_response_get_header (OwHttpResponse *resp,
                             const char     *name)
{
  g_return_val_if_fail (resp != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_hash_table_lookup (resp->headers, name);
}

GBytes *
ow_http_response_get_body (OwHttpResponse *resp)
{
  g_return_val_if_fail (resp != NULL, NULL);

  /* Before the transfer ends (inside a chunk function) the body is empty:
   * streamed bodies are never accumulated. */
  if (resp->body == NULL)
    resp->body = g_bytes_new_static ("", 0);
  return resp->body;
}

const char *
ow_http_response_get_peer (OwHttpResponse *resp)
{
  g_return_val_if_fail (resp != NULL, NULL);
  return resp->peer;
}

double
ow_http_response_get_ttfb (OwHttpResponse *resp)
{
  g_return_val_if_fail (resp != NULL, 0);
  return resp->ttfb;
}

double
ow_http_response_get_total_time (OwHttpResponse *resp)
{
  g_return_val_if_fail (resp != NULL, 0);
  return resp->total_time;
}

/* ---- Transfers -------------------------------------------------------- */

typedef enum {
  STOP_NONE,        /* curl decides how the transfer ended */
  STOP_CANCELLED,   /* the GCancellable fired */
  STOP_ABORTED,     /* the chunk function returned FALSE */
  STOP_TOO_LARGE,   /* the accumulated body passed max_body */
  STOP_IDLE,        /* our idle timer fired */
} StopReason;

typedef struct _OwTransfer OwTransfer;

struct _OwTransfer
{
  gatomicrefcount    ref_count;     /* the client's list + a pending cancel idle */
  GList              link;          /* node in the client's @active queue (data = self) */
  OwHttpClient      *client;        /* borrowed: @task keeps it alive until done */
  GMainContext      *context;       /* the client's context, for the cancel idle */
  GTask             *task;          /* completes the send; NULL once finished */
  OwHttpRequest     *req;           /* the request (owns the body curl reads) */
  OwHttpResponse    *resp;          /* filled while the transfer runs */
  CURL              *easy;          /* the easy handle; NULL once finished */
  struct curl_slist *header_list;   /* request headers as curl wants them */
  struct curl_slist *connect_to;    /* the pinned address as curl wants it, or NULL */

  OwHttpChunkFunc    chunk_func;    /* receives 2xx body pieces, or NULL */
  gpointer           chunk_data;    /* for @chunk_func */
  GDestroyNotify     chunk_destroy; /* frees @chunk_data once no chunk can come */

  GCancellable      *cancellable;   /* the caller's, or NULL */
  gulong             cancel_id;     /* its "cancelled" handler, or 0 */

  GSource           *idle_timer;    /* fires when the peer fell silent; or NULL */
  gint64             idle_us;       /* idle limit, µs; 0 = none */
  gint64             last_activity; /* monotonic µs of the last byte or of connecting */

  StopReason         stop;          /* why we ended it, when we did */
  gboolean           connected;     /* curl reported the connection ready */
  gboolean           added;         /* in the multi (not waiting in @pending) */
  gboolean           done;          /* transfer_finish() ran */
  gint64             started;       /* monotonic µs at send, for traces */
  char               errbuf[CURL_ERROR_SIZE]; /* curl's detail on failure */
};

static OwTransfer *
transfer_ref (OwTransfer *t)
{
  g_atomic_ref_count_inc (&t->ref_count);
  return t;
}

static void
transfer_unref (gpointer data)
{
  OwTransfer *t = data;

  if (!g_atomic_ref_count_dec (&t->ref_count))
    return;

  /* By now transfer_finish() has released everything tied to the main
   * context (easy handle, timer, task), so this may run on any thread. */
  g_assert (t->task == NULL && t->easy == NULL && t->idle_timer == NULL);
  g_main_context_unref (t->context);
  ow_http_request_unref (t->req);
  ow_http_response_unref (t->resp);
  g_clear_object (&t->cancellable);
  g_free (t);
}

/* ---- Client ----------------------------------------------------------- */

typedef struct
{
  curl_socket_t fd;       /* the socket curl asked us to watch */
  gpointer      tag;      /* from g_source_add_unix_fd() */
  GIOCondition  cond;     /* what we watch it for now */
} OwCurlSocket;

typedef struct
{
  GSource       source;   /* parent; watches curl's sockets, timer = ready time */
  OwHttpClient *client;   /* borrowed: the client destroys the source first */
} OwCurlSource;

struct _OwHttpClient
{
  GObject       parent_instance;

  GMainContext *context;  /* thread-default at construction; all callbacks run here */
  CURLM        *multi;    /* connection cache, DNS cache, every transfer */
  GSource      *source;   /* OwCurlSource driving @multi */
  GPtrArray    *sockets;  /* OwCurlSocket * curl asked us to watch */
  GQueue        active;   /* OwTransfer * not yet finished (in the multi or pending) */
  GQueue        pending;  /* OwTransfer * sent from inside curl, to add afterwards */
  GPtrArray    *spare;    /* reset easy handles kept for reuse */
  guint         in_curl;  /* > 0 while curl_multi_socket_action runs */
};

G_DEFINE_FINAL_TYPE (OwHttpClient, ow_http_client, G_TYPE_OBJECT)

static void process_done (OwHttpClient *self);
static void flush_pending (OwHttpClient *self);

/* Runs curl on @fd (or its timers) with the events poll reported. */
static void
drive (OwHttpClient  *self,
       curl_socket_t  fd,
       int            events)
{
  int running = 0;
  CURLMcode rc;

  self->in_curl++;
  rc = curl_multi_socket_action (self->multi, fd, events, &running);
  self->in_curl--;

  if (rc != CURLM_OK)
    NET_TRACE ("curl_multi_socket_action: %s", curl_multi_strerror (rc));
}

static gboolean
ow_curl_source_dispatch (GSource     *source,
                         GSourceFunc  callback,
                         gpointer     user_data)
{
  OwCurlSource *cs = (OwCurlSource *) source;
  g_autoptr(OwHttpClient) self = g_object_ref (cs->client);
  gint64 ready_time = g_source_get_ready_time (source);
  guint n = self->sockets->len;
  curl_socket_t *fds = g_newa (curl_socket_t, n + 1);
  int *events = g_newa (int, n + 1);
  guint n_ready = 0;

  /* Note what poll saw before acting: curl may close and reopen sockets
   * (and so change @sockets) while it runs. */
  for (guint i = 0; i < n; i++)
    {
      OwCurlSocket *sock = g_ptr_array_index (self->sockets, i);
      GIOCondition revents = g_source_query_unix_fd (source, sock->tag);
      int ev = 0;

      if (revents & (G_IO_IN | G_IO_HUP))
        ev |= CURL_CSELECT_IN;
      if (revents & G_IO_OUT)
        ev |= CURL_CSELECT_OUT;
      if (revents & G_IO_ERR)
        ev |= CURL_CSELECT_ERR;
      if (ev != 0)
        {
          fds[n_ready] = sock->fd;
          events[n_ready] = ev;
          n_ready++;
        }
    }

  for (guint i = 0; i < n_ready; i++)
    drive (self, fds[i], events[i]);

  if (ready_time >= 0 && ready_time <= g_source_get_time (source))
    {
      /* Cleared first: curl sets a new deadline from inside the call. */
      g_source_set_ready_time (source, -1);
      drive (self, CURL_SOCKET_TIMEOUT, 0);
    }

  process_done (self);
  flush_pending (self);

  return G_SOURCE_CONTINUE;
}

static GSourceFuncs ow_curl_source_funcs = {
  NULL, NULL, ow_curl_source_dispatch, NULL, NULL, NULL,
};

static int
on_multi_socket_cb (CURL          *easy,
                    curl_socket_t  fd,
                    int            what,
                    void          *user_data,
                    void          *socket_data)
{
  OwHttpClient *self = user_data;
  OwCurlSocket *sock = socket_data;
  GIOCondition cond = 0;

  if (what == CURL_POLL_REMOVE)
    {
      if (sock != NULL)
        {
          g_source_remove_unix_fd (self->source, sock->tag);
          curl_multi_assign (self->multi, fd, NULL);
          g_ptr_array_remove_fast (self->sockets, sock);
        }
      return 0;
    }

  if (what & CURL_POLL_IN)
    cond |= G_IO_IN;
  if (what & CURL_POLL_OUT)
    cond |= G_IO_OUT;

  if (sock == NULL)
    {
      sock = g_new0 (OwCurlSocket, 1);
      sock->fd = fd;
      sock->cond = cond;
      sock->tag = g_source_add_unix_fd (self->source, fd, cond);
      g_ptr_array_add (self->sockets, sock);
      curl_multi_assign (self->multi, fd, sock);
    }
  else if (sock->cond != cond)
    {
      sock->cond = cond;
      g_source_modify_unix_fd (self->source, sock->tag, cond);
    }

  return 0;
}

static int
on_multi_timer_cb (CURLM *multi,
                   long   timeout_ms,
                   void  *user_data)
{
  OwHttpClient *self = user_data;

  /* curl asks us not to call it back from here; the source's dispatch will. */
  if (timeout_ms < 0)
    g_source_set_ready_time (self->source, -1);
  else if (timeout_ms == 0)
    g_source_set_ready_time (self->source, 0);
  else
    g_source_set_ready_time (self->source, g_get_monotonic_time () + (gint64) timeout_ms * 1000);

  return 0;
}

static void
ow_http_client_finalize (GObject *object)
{
  OwHttpClient *self = (OwHttpClient *) object;

  /* Each transfer's task holds a reference to us, so none is left. */
  g_assert (self->active.length == 0);

  /* Closing cached connections must not reach a source being torn down. */
  curl_multi_setopt (self->multi, CURLMOPT_SOCKETFUNCTION, NULL);
  curl_multi_setopt (self->multi, CURLMOPT_TIMERFUNCTION, NULL);
  curl_multi_cleanup (self->multi);
  g_ptr_array_unref (self->spare);
  g_ptr_array_unref (self->sockets);

  g_source_destroy (self->source);
  g_source_unref (self->source);
  g_main_context_unref (self->context);

  G_OBJECT_CLASS (ow_http_client_parent_class)->finalize (object);
}

static void
ow_http_client_class_init (OwHttpClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ow_http_client_finalize;

  /* class_init runs once, under GType's lock: the one safe place for this
   * process-wide, not-always-thread-safe call. It is never undone. */
  curl_global_init (CURL_GLOBAL_DEFAULT);
}

static void
ow_http_client_init (OwHttpClient *self)
{
  OwCurlSource *cs;

  self->context = g_main_context_ref_thread_default ();
  self->sockets = g_ptr_array_new_with_free_func (g_free);
  self->spare = g_ptr_array_new_with_free_func ((GDestroyNotify) curl_easy_cleanup);
  g_queue_init (&self->active);
  g_queue_init (&self->pending);

  self->source = g_source_new (&ow_curl_source_funcs, sizeof (OwCurlSource));
  cs = (OwCurlSource *) self->source;
  cs->client = self;
  g_source_set_name (self->source, "OwHttpClient");
  g_source_set_priority (self->source, G_PRIORITY_DEFAULT);
  g_source_set_can_recurse (self->source, FALSE);
  g_source_attach (self->source, self->context);

  self->multi = curl_multi_init ();
  g_assert (self->multi != NULL);
  curl_multi_setopt (self->multi, CURLMOPT_SOCKETFUNCTION, on_multi_socket_cb);
  curl_multi_setopt (self->multi, CURLMOPT_SOCKETDATA, self);
  curl_multi_setopt (self->multi, CURLMOPT_TIMERFUNCTION, on_multi_timer_cb);
  curl_multi_setopt (self->multi, CURLMOPT_TIMERDATA, self);
  curl_multi_setopt (self->multi, CURLMOPT_MAXCONNECTS, (long) MAX_CACHED_CONNECTIONS);
}

OwHttpClient *
ow_http_client_new (void)
{
  return g_object_new (OW_TYPE_HTTP_CLIENT, NULL);
}

guint
ow_http_client_get_n_active (OwHttpClient *self)
{
  g_return_val_if_fail (OW_IS_HTTP_CLIENT (self), 0);

  return self->active.length;
}

/* ---- Errors ----------------------------------------------------------- */

/* "scheme://host:port/path" of @url: no user info, query or fragment, which
 * is where URLs carry secrets. */
static char *
describe_url (const char *url)
{
  const char *start = strstr (url, "://");
  const char *host = start != NULL ? start + 3 : url;
  const char *host_end = host + strcspn (host, "/?#");
  const char *at = memchr (host, '@', (gsize) (host_end - host));
  const char *path_end = host_end + strcspn (host_end, "?#");

  if (at == NULL)
    return g_strndup (url, (gsize) (path_end - url));
  return g_strdup_printf ("%.*s%.*s",
                          (int) (host - url), url,
                          (int) (path_end - (at + 1)), at + 1);
}

/* "host:port" the transfer was for, as a person would recognise it. */
static char *
describe_server (OwTransfer *t)
{
  g_autofree char *host = NULL;
  g_autofree char *port = NULL;
  CURLU *u = curl_url ();
  char *out;

  if (curl_url_set (u, CURLUPART_URL, t->req->url, 0) == CURLUE_OK
      && curl_url_get (u, CURLUPART_HOST, &host, 0) == CURLUE_OK
      && curl_url_get (u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
    out = g_strdup_printf ("%s:%s", host, port);
  else
    out = describe_url (t->req->url);

  curl_url_cleanup (u);
  return out;
}

/* The address curl actually tried (the proxy's, when there is one). */
static char *
describe_peer (OwTransfer *t)
{
  char *ip = NULL;
  long port = 0;

  if (curl_easy_getinfo (t->easy, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip != NULL && *ip != '\0'
      && curl_easy_getinfo (t->easy, CURLINFO_PRIMARY_PORT, &port) == CURLE_OK && port > 0)
    return g_strdup_printf (strchr (ip, ':') != NULL ? "[%s]:%ld" : "%s:%ld", ip, port);
  return describe_server (t);
}

static const char *
curl_detail (OwTransfer *t,
             CURLcode    rc)
{
  return t->errbuf[0] != '\0' ? t->errbuf : curl_easy_strerror (rc);
}

static GError *
make_error (OwTransfer *t,
            CURLcode    rc)
{
  g_autofree char *server = NULL;

  switch (t->stop)
    {
    case STOP_CANCELLED:
      return g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");

    case STOP_ABORTED:
      server = describe_server (t);
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_ABORTED,
                          "The response from %s was not read to the end: its reader stopped it.",
                          server);

    case STOP_TOO_LARGE:
      server = describe_server (t);
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_TOO_LARGE,
                          "The response from %s is larger than the limit of %" G_GSIZE_FORMAT
                          " bytes, so it was not read to the end.",
                          server, t->req->max_body);

    case STOP_IDLE:
      server = describe_server (t);
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_TIMEOUT,
                          "%s sent nothing for %u ms, so the request was given up (idle timeout). "
                          "The server may be overloaded; try again later.",
                          server, t->req->idle_ms);

    case STOP_NONE:
    default:
      break;
    }

  switch (rc)
    {
    case CURLE_OK:
      return NULL;

    case CURLE_COULDNT_RESOLVE_HOST:
      server = describe_server (t);
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_RESOLVE,
                          "Could not find the server %s (%s). "
                          "Check the address and the network connection.",
                          server, curl_detail (t, rc));

    case CURLE_COULDNT_RESOLVE_PROXY:
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_RESOLVE,
                          "Could not find the proxy server (%s). Check the proxy setting.",
                          curl_detail (t, rc));

    case CURLE_COULDNT_CONNECT:
      {
        long os_errno = 0;

        server = describe_peer (t);
        curl_easy_getinfo (t->easy, CURLINFO_OS_ERRNO, &os_errno);
        return g_error_new (OW_NET_ERROR, OW_NET_ERROR_CONNECT,
                            "Could not connect to %s (%s). Is the server running?",
                            server,
                            os_errno != 0 ? g_strerror ((int) os_errno) : curl_detail (t, rc));
      }

    case CURLE_OPERATION_TIMEDOUT:
      if (!t->connected)
        {
          server = describe_server (t);
          return g_error_new (OW_NET_ERROR, OW_NET_ERROR_TIMEOUT,
                              "Could not connect to %s in time (%s). "
                              "Check the address and the network connection.",
                              server, curl_detail (t, rc));
        }
      server = describe_server (t);
      if (t->req->total_ms == 0)
        return g_error_new (OW_NET_ERROR, OW_NET_ERROR_TIMEOUT,
                            "The request to %s timed out (%s). Try again.",
                            server, curl_detail (t, rc));
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_TIMEOUT,
                          "The request to %s did not finish within its time limit of %u ms (%s). "
                          "Try again, or allow it more time.",
                          server, t->req->total_ms, curl_detail (t, rc));

    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      server = describe_server (t);
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_TLS,
                          "The secure connection to %s failed (%s). "
                          "Check the address and the system's certificates.",
                          server, curl_detail (t, rc));

    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      server = describe_server (t);
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_CUT_OFF,
                          "The connection to %s closed before the response ended (%s). Try again.",
                          server, curl_detail (t, rc));

    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      {
        g_autofree char *url = describe_url (t->req->url);

        return g_error_new (OW_NET_ERROR, OW_NET_ERROR_FAILED,
                            "“%s” is not an address that can be fetched (%s). Check the URL.",
                            url, curl_detail (t, rc));
      }

    default:
      server = describe_server (t);
      return g_error_new (OW_NET_ERROR, OW_NET_ERROR_FAILED,
                          "The request to %s failed (%s).", server, curl_detail (t, rc));
    }
}

/* ---- Finishing -------------------------------------------------------- */

static void
release_easy (OwHttpClient *self,
              CURL         *easy)
{
  if (self->spare->len < MAX_SPARE_HANDLES)
    {
      /* Reset now so no option points into the freed transfer. The
       * connection stays in the multi's cache either way. */
      curl_easy_reset (easy);
      g_ptr_array_add (self->spare, easy);
    }
  else
    curl_easy_cleanup (easy);
}

/* Ends @t once and for all: takes it out of curl and the client, and
 * completes its task. Never called from inside a curl callback. */
static void
transfer_finish (OwTransfer *t,
                 CURLcode    rc)
{
  OwHttpClient *self = t->client;
  g_autoptr(GTask) task = NULL;
  GError *error;

  if (t->done)
    return;
  t->done = TRUE;
  g_assert (self->in_curl == 0);

  if (t->added)
    {
      curl_off_t ttfb = 0;
      curl_off_t total = 0;

      curl_easy_getinfo (t->easy, CURLINFO_STARTTRANSFER_TIME_T, &ttfb);
      curl_easy_getinfo (t->easy, CURLINFO_TOTAL_TIME_T, &total);
      t->resp->ttfb = (double) ttfb / G_USEC_PER_SEC;
      t->resp->total_time = (double) total / G_USEC_PER_SEC;
      curl_multi_remove_handle (self->multi, t->easy);
      t->added = FALSE;
    }
  else
    g_queue_remove (&self->pending, t);
  g_queue_unlink (&self->active, &t->link);

  if (t->idle_timer != NULL)
    {
      g_source_destroy (t->idle_timer);
      g_clear_pointer (&t->idle_timer, g_source_unref);
    }
  /* Safe here: we never finish from inside the cancelled handler, and this
   * waits for a handler running on another thread to return. */
  if (t->cancel_id != 0)
    {
      g_cancellable_disconnect (t->cancellable, t->cancel_id);
      t->cancel_id = 0;
    }

  if (t->stop == STOP_NONE && rc != CURLE_OK && g_cancellable_is_cancelled (t->cancellable))
    t->stop = STOP_CANCELLED;
  error = make_error (t, rc);

  if (error == NULL)
    {
      GByteArray *acc = g_steal_pointer (&t->resp->acc);

      g_clear_pointer (&t->resp->body, g_bytes_unref);
      t->resp->body = acc != NULL ? g_byte_array_free_to_bytes (acc) : g_bytes_new_static ("", 0);
    }

  NET_TRACE ("%p: %s after %.2f ms, status %u%s%s", (void *) t,
             error != NULL ? "failed" : "done",
             (double) (g_get_monotonic_time () - t->started) / 1000.0, t->resp->status,
             error != NULL ? ": " : "", error != NULL ? error->message : "");

  release_easy (self, g_steal_pointer (&t->easy));
  g_clear_pointer (&t->header_list, curl_slist_free_all);
  g_clear_pointer (&t->connect_to, curl_slist_free_all);
  if (t->chunk_destroy != NULL)
    g_clear_pointer (&t->chunk_data, t->chunk_destroy);

  /* Last: the callback may run right here and do anything, including
   * sending again or dropping its last reference to the client. */
  task = g_steal_pointer (&t->task);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, ow_http_response_ref (t->resp),
                           (GDestroyNotify) ow_http_response_unref);

  transfer_unref (t);
}

static void
process_done (OwHttpClient *self)
{
  CURLMsg *msg;
  int left;

  while ((msg = curl_multi_info_read (self->multi, &left)) != NULL)
    {
      OwTransfer *t = NULL;
      CURLcode rc = msg->data.result;

      if (msg->msg != CURLMSG_DONE)
        continue;
      curl_easy_getinfo (msg->easy_handle, CURLINFO_PRIVATE, (char **) &t);
      /* @msg is invalid from here: finishing removes the handle. */
      transfer_finish (t, rc);
    }
}

/* ---- curl callbacks (run inside curl_multi_socket_action) ------------- */

static int
on_prereq_cb (void *user_data,
              char *primary_ip,
              char *local_ip,
              int   primary_port,
              int   local_port)
{
  OwTransfer *t = user_data;

  /* Called once the connection is up (new or reused), before the request
   * goes out: from now on silence counts against the idle limit. */
  t->connected = TRUE;
  t->last_activity = g_get_monotonic_time ();
  g_free (t->resp->peer);
  t->resp->peer = g_strdup_printf (strchr (primary_ip, ':') != NULL ? "[%s]:%d" : "%s:%d",
                                   primary_ip, primary_port);
  return CURL_PREREQFUNC_OK;
}

static size_t
on_header_cb (char   *buf,
              size_t  size,
              size_t  n,
              void   *user_data)
{
  OwTransfer *t = user_data;
  size_t len = size * n;
  const char *end = buf + len;
  const char *colon;
  const char *name_end;
  const char *value;

  t->last_activity = g_get_monotonic_time ();
  if (g_cancellable_is_cancelled (t->cancellable))
    {
      t->stop = STOP_CANCELLED;
      return CURL_WRITEFUNC_ERROR;
    }

  /* A status line starts each response, informational (1xx) ones included:
   * only the headers of the last one count. */
  if (len > 5 && memcmp (buf, "HTTP/", 5) == 0)
    {
      const char *sp = memchr (buf, ' ', len);
      guint status = 0;

      if (sp != NULL && end - sp >= 4 && g_ascii_isdigit (sp[1]) && g_ascii_isdigit (sp[2])
          && g_ascii_isdigit (sp[3]))
        status = (guint) ((sp[1] - '0') * 100 + (sp[2] - '0') * 10 + (sp[3] - '0'));
      t->resp->status = status;
      g_hash_table_remove_all (t->resp->headers);
      return len;
    }

  while (end > buf && is_header_space (end[-1]))
    end--;
  colon = memchr (buf, ':', (size_t) (end - buf));
  if (colon == NULL || colon == buf)
    return len; /* the blank line after the headers, or a folded line */

  name_end = colon;
  while (name_end > buf && is_header_space (name_end[-1]))
    name_end--;
  value = colon + 1;
  while (value < end && is_header_space (*value))
    value++;

  g_hash_table_replace (t->resp->headers,
                        g_strndup (buf, (gsize) (name_end - buf)),
                        g_strndup (value, (gsize) (end - value)));
  return len;
}

static size_t
on_write_cb (char   *data,
             size_t  size,
             size_t  n,
             void   *user_data)
{
  OwTransfer *t = user_data;
  size_t len = size * n;
  OwHttpResponse *resp = t->resp;
  gsize max_body;

  t->last_activity = g_get_monotonic_time ();

  /* The cancellable may have fired on this thread or another since curl
   * last ran: after cancel() returns, not one more byte is handed over. */
  if (g_cancellable_is_cancelled (t->cancellable))
    {
      t->stop = STOP_CANCELLED;
      return CURL_WRITEFUNC_ERROR;
    }

  if (t->chunk_func != NULL && resp->status >= 200 && resp->status < 300)
    {
      if (!t->chunk_func (resp, data, len, t->chunk_data))
        {
          t->stop = g_cancellable_is_cancelled (t->cancellable) ? STOP_CANCELLED : STOP_ABORTED;
          return CURL_WRITEFUNC_ERROR;
        }
      if (g_cancellable_is_cancelled (t->cancellable))
        {
          t->stop = STOP_CANCELLED;
          return CURL_WRITEFUNC_ERROR;
        }
      return len;
    }

  /* GByteArray lengths are guint: no body beyond 4 GiB, whatever the limit. */
  max_body = MIN (t->req->max_body, (gsize) G_MAXUINT);
  if (resp->acc == NULL)
    resp->acc = g_byte_array_sized_new ((guint) MIN (len, 64 * 1024));
  if (len > max_body || resp->acc->len > max_body - len)
    {
      t->stop = STOP_TOO_LARGE;
      return CURL_WRITEFUNC_ERROR;
    }
  g_byte_array_append (resp->acc, (const guint8 *) data, (guint) len);
  return len;
}

/* ---- Timers and cancellation (run on the main context) ---------------- */

static gboolean
on_idle_timer_cb (gpointer user_data)
{
  OwTransfer *t = user_data;
  gint64 now = g_get_monotonic_time ();

  /* Until curl has a connection, the connect timeout is in charge. */
  if (!t->connected)
    {
      g_source_set_ready_time (t->idle_timer, now + t->idle_us);
      return G_SOURCE_CONTINUE;
    }
  /* The callbacks only record activity; the deadline moves here, lazily. */
  if (now < t->last_activity + t->idle_us)
    {
      g_source_set_ready_time (t->idle_timer, t->last_activity + t->idle_us);
      return G_SOURCE_CONTINUE;
    }
  /* Only a nested main loop inside a chunk function gets here mid-curl. */
  if (t->client->in_curl > 0)
    {
      g_source_set_ready_time (t->idle_timer, now + 1000);
      return G_SOURCE_CONTINUE;
    }

  t->stop = STOP_IDLE;
  transfer_finish (t, CURLE_OK);
  return G_SOURCE_REMOVE;
}

static gboolean
ow_idle_timer_dispatch (GSource     *source,
                        GSourceFunc  callback,
                        gpointer     user_data)
{
  return callback (user_data);
}

static GSourceFuncs ow_idle_timer_funcs = {
  NULL, NULL, ow_idle_timer_dispatch, NULL, NULL, NULL,
};

static gboolean
on_cancel_idle_cb (gpointer user_data)
{
  OwTransfer *t = user_data;

  if (t->done)
    return G_SOURCE_REMOVE;
  if (t->client->in_curl > 0)
    return G_SOURCE_CONTINUE; /* a nested main loop inside a chunk function */

  t->stop = STOP_CANCELLED;
  transfer_finish (t, CURLE_OK);
  return G_SOURCE_REMOVE;
}

/* May run on any thread, and inside a curl callback on ours: only hand the
 * work to the client's context. The idle holds a reference in case the
 * transfer finishes some other way first. */
static void
on_cancellable_cancelled_cb (GCancellable *cancellable,
                             gpointer      user_data)
{
  OwTransfer *t = user_data;
  GSource *idle = g_idle_source_new ();

  g_source_set_priority (idle, G_PRIORITY_HIGH);
  g_source_set_static_name (idle, "OwHttpClient cancel");
  g_source_set_callback (idle, on_cancel_idle_cb, transfer_ref (t), transfer_unref);
  g_source_attach (idle, t->context);
  g_source_unref (idle);
}

/* ---- Sending ---------------------------------------------------------- */

static void
setup_easy (OwTransfer *t)
{
  OwHttpRequest *req = t->req;
  CURL *easy = t->easy;
  gboolean has_body = req->body != NULL;
  const char *body_data = "";
  gsize body_len = 0;
  gboolean has_content_type = FALSE;

  curl_easy_setopt (easy, CURLOPT_URL, req->url);
  curl_easy_setopt (easy, CURLOPT_PRIVATE, t);
  curl_easy_setopt (easy, CURLOPT_ERRORBUFFER, t->errbuf);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt (easy, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt (easy, CURLOPT_PROTOCOLS, (long) (CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl_easy_setopt (easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (easy, CURLOPT_TCP_NODELAY, 1L);
  /* Model calls can be silent for minutes: let TCP notice a dead peer. */
  curl_easy_setopt (easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt (easy, CURLOPT_TCP_KEEPIDLE, 60L);
  curl_easy_setopt (easy, CURLOPT_TCP_KEEPINTVL, 30L);
  curl_easy_setopt (easy, CURLOPT_HTTP_VERSION, (long) CURL_HTTP_VERSION_1_1);
  curl_easy_setopt (easy, CURLOPT_USERAGENT, "OpenWorker/" OW_VERSION);
  curl_easy_setopt (easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);

  /* Streams must arrive as sent; a whole body may come compressed. */
  if (t->chunk_func == NULL)
    curl_easy_setopt (easy, CURLOPT_ACCEPT_ENCODING, "");

  /* curl reads 0 as its default of 300 s; "none" has to be spelled out. */
  curl_easy_setopt (easy, CURLOPT_CONNECTTIMEOUT_MS,
                    req->connect_ms > 0 ? (long) req->connect_ms : (long) G_MAXINT32);
  if (req->total_ms > 0)
    curl_easy_setopt (easy, CURLOPT_TIMEOUT_MS, (long) req->total_ms);

  if (req->proxy != NULL)
    {
      curl_easy_setopt (easy, CURLOPT_PROXY, req->proxy);
      /* An explicit choice beats the environment's NO_PROXY either way. */
      curl_easy_setopt (easy, CURLOPT_NOPROXY, req->proxy[0] == '\0' ? "*" : "");
    }

  if (req->pin != NULL)
    {
      /* "::ADDR:" = any host, any port → ADDR, same port. curl keeps the
       * URL's name for Host and TLS, and matches reused connections on the
       * pinned address too, so a pinned request never rides a connection
       * made to another address. */
      g_autofree char *entry = g_strdup_printf (strchr (req->pin, ':') != NULL ? "::[%s]:" : "::%s:",
                                                req->pin);

      t->connect_to = curl_slist_append (NULL, entry);
      curl_easy_setopt (easy, CURLOPT_CONNECT_TO, t->connect_to);
    }

  if (has_body)
    body_data = g_bytes_get_data (req->body, &body_len);
  if (body_data == NULL)
    body_data = "";

  if (g_ascii_strcasecmp (req->method, "GET") == 0 && !has_body)
    curl_easy_setopt (easy, CURLOPT_HTTPGET, 1L);
  else if (g_ascii_strcasecmp (req->method, "HEAD") == 0)
    curl_easy_setopt (easy, CURLOPT_NOBODY, 1L);
  else
    {
      if (g_ascii_strcasecmp (req->method, "POST") != 0)
        curl_easy_setopt (easy, CURLOPT_CUSTOMREQUEST, req->method);
      if (has_body || g_ascii_strcasecmp (req->method, "POST") == 0)
        {
          /* The request keeps the GBytes alive as long as curl reads it. */
          curl_easy_setopt (easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) body_len);
          curl_easy_setopt (easy, CURLOPT_POSTFIELDS, body_data);
        }
    }

  for (guint i = 0; i < req->headers->len; i++)
    {
      const char *line = g_ptr_array_index (req->headers, i);

      if (g_ascii_strncasecmp (line, "Content-Type", 12) == 0
          && (line[12] == ':' || line[12] == ';'))
        has_content_type = TRUE;
      t->header_list = curl_slist_append (t->header_list, line);
    }
  if (req->content_type != NULL)
    {
      g_autofree char *line = g_strdup_printf ("Content-Type: %s", req->content_type);

      t->header_list = curl_slist_append (t->header_list, line);
    }
  else if (!has_content_type)
    {
      /* Otherwise curl labels every POST body as a form. */
      t->header_list = curl_slist_append (t->header_list, "Content-Type:");
    }
  /* Waiting for "100 Continue" costs a round trip and helps nobody here. */
  if (has_body)
    t->header_list = curl_slist_append (t->header_list, "Expect:");
  curl_easy_setopt (easy, CURLOPT_HTTPHEADER, t->header_list);

  curl_easy_setopt (easy, CURLOPT_HEADERFUNCTION, on_header_cb);
  curl_easy_setopt (easy, CURLOPT_HEADERDATA, t);
  curl_easy_setopt (easy, CURLOPT_WRITEFUNCTION, on_write_cb);
  curl_easy_setopt (easy, CURLOPT_WRITEDATA, t);
  curl_easy_setopt (easy, CURLOPT_PREREQFUNCTION, on_prereq_cb);
  curl_easy_setopt (easy, CURLOPT_PREREQDATA, t);
}

static void
add_to_multi (OwHttpClient *self,
              OwTransfer   *t)
{
  CURLMcode rc = curl_multi_add_handle (self->multi, t->easy);

  if (rc != CURLM_OK)
    {
      /* Only out of memory or a bug gets here; fail the one request. */
      g_strlcpy (t->errbuf, curl_multi_strerror (rc), sizeof t->errbuf);
      transfer_finish (t, CURLE_FAILED_INIT);
      return;
    }
  t->added = TRUE;
}

static void
flush_pending (OwHttpClient *self)
{
  OwTransfer *t;

  while ((t = g_queue_pop_head (&self->pending)) != NULL)
    add_to_multi (self, t);
}

void
ow_http_client_send_async (OwHttpClient       *self,
                           OwHttpRequest      *req,
                           OwHttpChunkFunc     chunk_func,
                           gpointer            chunk_data,
                           GDestroyNotify      chunk_data_destroy,
                           GCancellable       *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;
  OwTransfer *t;

  g_return_if_fail (OW_IS_HTTP_CLIENT (self));
  g_return_if_fail (req != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_http_client_send_async);

  if (g_task_return_error_if_cancelled (task))
    {
      if (chunk_data_destroy != NULL)
        chunk_data_destroy (chunk_data);
      return;
    }

  t = g_new0 (OwTransfer, 1);
  g_atomic_ref_count_init (&t->ref_count);
  t->link.data = t;
  t->client = self;
  t->context = g_main_context_ref (self->context);
  t->task = g_steal_pointer (&task);
  t->req = ow_http_request_ref (req);
  t->resp = ow_http_response_new ();
  t->chunk_func = chunk_func;
  t->chunk_data = chunk_data;
  t->chunk_destroy = chunk_data_destroy;
  t->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  t->started = g_get_monotonic_time ();
  t->last_activity = t->started;

  t->easy = self->spare->len > 0 ? g_ptr_array_steal_index_fast (self->spare, self->spare->len - 1)
                                 : curl_easy_init ();
  setup_easy (t);

  if (req->idle_ms > 0)
    {
      t->idle_us = (gint64) req->idle_ms * 1000;
      t->idle_timer = g_source_new (&ow_idle_timer_funcs, sizeof (GSource));
      g_source_set_static_name (t->idle_timer, "OwHttpClient idle");
      g_source_set_callback (t->idle_timer, on_idle_timer_cb, t, NULL);
      g_source_set_ready_time (t->idle_timer, t->started + t->idle_us);
      g_source_attach (t->idle_timer, self->context);
    }

  g_queue_push_tail_link (&self->active, &t->link);

  if (cancellable != NULL)
    t->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancellable_cancelled_cb),
                                          t, NULL);

  if (G_UNLIKELY (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN)))
    {
      g_autofree char *where = describe_url (req->url);

      g_debug ("%p: %s %s%s", (void *) t, req->method, where,
               chunk_func != NULL ? " (streamed)" : "");
    }

  /* curl refuses new handles from inside its own callbacks (a chunk
   * function that sends): those wait until the current action returns. */
  if (self->in_curl > 0)
    g_queue_push_tail (&self->pending, t);
  else
    add_to_multi (self, t);
}

OwHttpResponse *
ow_http_client_send_finish (OwHttpClient  *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (OW_IS_HTTP_CLIENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
