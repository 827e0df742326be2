/* ow-proxy.h: the allow-list proxy, a sandbox's only way out.
 *
 * OwProxy is an HTTP forward proxy in the engine: CONNECT tunnels (HTTPS,
 * SSH through a ProxyCommand, anything over TCP) and plain-HTTP requests
 * in absolute form. Each sandboxed session gets its own listening socket
 * (a Unix socket bound into the sandbox, or a port on 127.0.0.1 for the
 * walls that can only reach loopback), so every connection is known to
 * belong to one session. A destination must pass the session's site list
 * (the machine's exact host[:port] entries plus the person's grants) and
 * then the address guard (no loopback, private or link-local address
 * unless it is an exact listed exception); the connection is made to the
 * vetted address, never to a second lookup of the name.
 *
 * A refusal is an HTTP 403 whose body names the host and says how to ask
 * for it, and the host is remembered, so after a command the engine can
 * tell the agent what the sandbox blocked (ow_proxy_take_blocked()).
 * Everything runs on the main context of the thread that created the
 * proxy, with bounded buffers and a deadline for every phase.
 */
#pragma once

#include <gio/gio.h>

#include "net/ow-address-guard.h"

G_BEGIN_DECLS

/* ---- Request heads (pure, fuzzed) ------------------------------------- */

/* The longest request head the proxy reads (request line + headers). */
#define OW_PROXY_MAX_HEAD (16 * 1024)

typedef enum {
  OW_PROXY_HEAD_INCOMPLETE,  /* read more */
  OW_PROXY_HEAD_COMPLETE,    /* the request is in the OwProxyRequest */
  OW_PROXY_HEAD_INVALID,     /* answer error_status with error, then close */
} OwProxyHeadStatus;

/* One parsed request head. */
typedef struct {
  gboolean   is_connect;    /* CONNECT host:port (a tunnel) */
  char      *method;        /* "CONNECT", "GET", … */
  char      *host;          /* normalized destination host (see ow_site_parse()) */
  guint16    port;          /* destination port (80 by default for http://) */
  char      *path;          /* origin-form target to forward ("/a?b"); NULL for CONNECT */
  guint      minor_version; /* HTTP/1.<minor_version>: 0 or 1 */
  GPtrArray *headers;       /* char * "Name: value" lines to forward (hop-by-hop and Host removed) */
  gsize      head_len;      /* bytes of the head, blank line included; what follows is body or tunnel data */
  guint      error_status;  /* for INVALID: 400, 431, 505 */
  char      *error;         /* for INVALID: what was wrong, as a sentence */
} OwProxyRequest;

/* Parses the request head at the start of @data (@len bytes received so
 * far, at most OW_PROXY_MAX_HEAD looked at). @req is cleared first. Accepts
 * CONNECT in authority form and other methods in absolute form with the
 * http scheme; refuses origin-form targets, https:// targets (use CONNECT),
 * user info, obsolete line folding, control characters, conflicting
 * Content-Length / Transfer-Encoding, and heads over the limit. */
OwProxyHeadStatus ow_proxy_parse_head           (const char     *data,
                                                 gsize           len,
                                                 OwProxyRequest *req);
void              ow_proxy_request_clear        (OwProxyRequest *req);
/* The head sent upstream for a plain-HTTP request: origin-form request
 * line, Host from the URL, the forwarded headers, "Connection: close". */
char             *ow_proxy_request_upstream_head (const OwProxyRequest *req);

/* ---- The proxy -------------------------------------------------------- */

#define OW_TYPE_PROXY (ow_proxy_get_type ())
G_DECLARE_FINAL_TYPE (OwProxy, ow_proxy, OW, PROXY, GObject)

/* @sites decides by name (its "open" flag lifts the list), @guard by
 * address. Both are shared with the web tools. */
OwProxy    *ow_proxy_new              (OwSiteList     *sites,
                                       OwAddressGuard *guard);
/* Listens for @session_id on a Unix socket at @path (made owner-only; a
 * stale socket there is replaced, any other file is an error). */
gboolean    ow_proxy_listen_unix      (OwProxy     *self,
                                       const char  *session_id,
                                       const char  *path,
                                       GError     **error);
/* Listens for @session_id on 127.0.0.1:@port (0 = any free port). Returns
 * the port, or 0 with @error. */
guint16     ow_proxy_listen_tcp       (OwProxy     *self,
                                       const char  *session_id,
                                       guint16      port,
                                       GError     **error);
/* Stops @session_id's listeners (removing their socket files), closes its
 * connections and forgets what it blocked. Site grants are the
 * OwSiteList's: end them there. */
void        ow_proxy_end_session      (OwProxy *self, const char *session_id);
/* Stops everything. Connections finish closing on the next main-loop
 * iterations, each holding a reference to the proxy until it has. */
void        ow_proxy_close            (OwProxy *self);

/* The "host:port" destinations refused for @session_id since the last
 * call, in the order first refused, each once. Never NULL. */
GPtrArray  *ow_proxy_take_blocked     (OwProxy *self, const char *session_id);

/* Milliseconds: @head_ms for a client to send its whole request head
 * (default 30 s), @connect_ms to resolve and connect upstream (default
 * 15 s), @idle_ms of silence in both directions before an established
 * connection is closed (default 10 min). 0 keeps the default. Applies to
 * connections from now on. */
void        ow_proxy_set_timeouts     (OwProxy *self,
                                       guint    head_ms,
                                       guint    connect_ms,
                                       guint    idle_ms);
/* Connections not yet completely closed (for tests and diagnostics). */
guint       ow_proxy_get_n_connections (OwProxy *self);

G_END_DECLS
