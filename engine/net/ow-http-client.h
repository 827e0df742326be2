/* ow-http-client.h: all outbound HTTP(S) of the engine.
 *
 * OwHttpClient drives the libcurl multi interface from the GLib main loop of
 * the thread-default GMainContext it was created in: curl's sockets are
 * watched with GSources and its timer is a GLib timeout, so there is no
 * thread per request. Bodies can be consumed as they arrive (streams) or
 * accumulated. Cancelling the GCancellable removes the transfer at once and
 * completes the call with G_IO_ERROR_CANCELLED.
 *
 * An HTTP status is never an error here: a 429 or 500 response is returned
 * like a 200 and the caller reads its status and body. GErrors in
 * OW_NET_ERROR mean the transport failed (see ow-error.h).
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* ---- Request ---------------------------------------------------------- */

typedef struct _OwHttpRequest OwHttpRequest;

#define OW_TYPE_HTTP_REQUEST (ow_http_request_get_type ())
GType           ow_http_request_get_type     (void) G_GNUC_CONST;

OwHttpRequest  *ow_http_request_new          (const char *method, const char *url);
OwHttpRequest  *ow_http_request_ref          (OwHttpRequest *req);
void            ow_http_request_unref        (OwHttpRequest *req);
const char     *ow_http_request_get_url      (OwHttpRequest *req);
const char     *ow_http_request_get_method   (OwHttpRequest *req);
/* Adds a header line. Header values are never logged unredacted. */
void            ow_http_request_add_header   (OwHttpRequest *req, const char *name, const char *value);
void            ow_http_request_set_body     (OwHttpRequest *req, GBytes *body, const char *content_type);
/* Milliseconds; 0 = none. connect: until the connection is up; idle: the
 * longest silence while receiving; total: the whole exchange. Defaults:
 * connect 30 s, idle 300 s, total none. */
void            ow_http_request_set_timeouts (OwHttpRequest *req, guint connect_ms, guint idle_ms, guint total_ms);
/* Largest accumulated body (default 64 MiB); beyond it OW_NET_ERROR_TOO_LARGE. */
void            ow_http_request_set_max_body (OwHttpRequest *req, gsize max_bytes);
/* An explicit proxy URL ("http://127.0.0.1:PORT"), or "" for none. When not
 * called, libcurl's usual environment variables apply. */
void            ow_http_request_set_proxy    (OwHttpRequest *req, const char *proxy_url);
/* Connects to the IP literal @address ("93.184.216.34", "2001:db8::1")
 * instead of resolving the URL's host, which still names the site in the
 * Host header and TLS (SNI, certificate check). This is how a destination
 * vetted by the address guard is pinned, so DNS cannot change it between
 * the check and the connection. NULL resolves as usual. */
void            ow_http_request_set_pinned_address (OwHttpRequest *req, const char *address);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwHttpRequest, ow_http_request_unref)

/* ---- Response --------------------------------------------------------- */

typedef struct _OwHttpResponse OwHttpResponse;

#define OW_TYPE_HTTP_RESPONSE (ow_http_response_get_type ())
GType           ow_http_response_get_type        (void) G_GNUC_CONST;

OwHttpResponse *ow_http_response_ref             (OwHttpResponse *resp);
void            ow_http_response_unref           (OwHttpResponse *resp);
guint           ow_http_response_get_status      (OwHttpResponse *resp);
/* Case-insensitive; the last value when a header repeats; NULL if absent. */
const char     *ow_http_response_get_header      (OwHttpResponse *resp, const char *name);
/* The accumulated body: the whole body when no chunk function was given or
 * when the status is not 2xx; otherwise empty. Never NULL. */
GBytes         *ow_http_response_get_body        (OwHttpResponse *resp);
/* "ip:port" of the peer that served the request ("127.0.0.1:41234"). */
const char     *ow_http_response_get_peer        (OwHttpResponse *resp);
/* Seconds from start to the first response byte, and in total. */
double          ow_http_response_get_ttfb        (OwHttpResponse *resp);
double          ow_http_response_get_total_time  (OwHttpResponse *resp);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwHttpResponse, ow_http_response_unref)

/* ---- Client ----------------------------------------------------------- */

#define OW_TYPE_HTTP_CLIENT (ow_http_client_get_type ())
G_DECLARE_FINAL_TYPE (OwHttpClient, ow_http_client, OW, HTTP_CLIENT, GObject)

/* Called on the client's main context for each piece of a 2xx body, as it
 * arrives. The response's status and headers are already known. Return FALSE
 * to abort the transfer (the call then fails with OW_NET_ERROR_ABORTED). */
typedef gboolean (*OwHttpChunkFunc) (OwHttpResponse *resp,
                                     const char     *data,
                                     gsize           len,
                                     gpointer        user_data);

OwHttpClient   *ow_http_client_new         (void);

/* Sends @req. With @chunk_func, 2xx bodies are streamed to it and not
 * accumulated. @callback runs on the client's main context. */
void            ow_http_client_send_async  (OwHttpClient       *self,
                                            OwHttpRequest      *req,
                                            OwHttpChunkFunc     chunk_func,
                                            gpointer            chunk_data,
                                            GDestroyNotify      chunk_data_destroy,
                                            GCancellable       *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer            user_data);
OwHttpResponse *ow_http_client_send_finish (OwHttpClient  *self,
                                            GAsyncResult  *result,
                                            GError       **error);

/* Number of transfers in flight (for tests and diagnostics). */
guint           ow_http_client_get_n_active (OwHttpClient *self);

G_END_DECLS
