/* ow-server-private.h: what the server's files share.
 *
 * ow-server.c owns the SoupServer, the front door (Host, Origin, token,
 * body limits) and dispatch; each route family lives in its own file and
 * hands ow-server.c a table of OwRoute. A handler gets an OwRequest,
 * replies through the ow_reply_* helpers, and either returns (the reply
 * is sent) or marks the request async and finishes it later with
 * ow_request_done().
 */
#pragma once

#include <libsoup/soup.h>

#include "core/ow-session-host.h"
#include "net/ow-oauth.h"
#include "server/ow-server.h"
#include "store/ow-secret-store.h"

G_BEGIN_DECLS

/* Request bodies: most routes take small JSON; the OpenAI-compatible route
 * may carry images and PDFs (the WebSocket frame limit). */
#define OW_SERVER_MAX_BODY      (1u * 1024 * 1024)
#define OW_SERVER_MAX_BIG_BODY  (16u * 1024 * 1024)
/* Nesting allowed in a JSON body (json-glib parses recursively). */
#define OW_SERVER_MAX_JSON_DEPTH 48
/* Wrong tokens tolerated per window before answering 429. */
#define OW_SERVER_AUTH_FAILURES_MAX   100
#define OW_SERVER_AUTH_WINDOW_USEC    (10 * G_USEC_PER_SEC)
/* WebSocket connections at once (each holds a little memory and a socket). */
#define OW_SERVER_MAX_SOCKETS         1024
/* OpenAI-compatible calls in flight at once. */
#define OW_SERVER_MAX_COMPLETIONS     16

/* libsoup 3.2 has no name for 429. */
#define OW_STATUS_TOO_MANY_REQUESTS 429

typedef struct _OwRequest OwRequest;
typedef struct _OwWsClient OwWsClient;

typedef void (*OwRouteFunc) (OwServer *self, OwRequest *req);

typedef enum {
  OW_ROUTE_TOKEN    = 0,
  OW_ROUTE_PUBLIC   = 1 << 0,  /* answered without the token (it may say more with it) */
  OW_ROUTE_BEARER   = 1 << 1,  /* Authorization: Bearer <token> is accepted too */
  OW_ROUTE_BIG_BODY = 1 << 2,  /* body up to OW_SERVER_MAX_BIG_BODY */
} OwRouteFlags;

typedef struct {
  const char  *method;
  const char  *pattern;   /* "/v1/sessions/ * /roots" without spaces: '*' matches one segment */
  OwRouteFunc  func;
  OwRouteFlags flags;
} OwRoute;

#define OW_REQUEST_MAX_PARAMS 3

struct _OwRequest
{
  OwServer          *server;   /* borrowed */
  SoupServerMessage *msg;      /* owned reference */
  const OwRoute     *route;    /* NULL for static files and WebSockets */
  GHashTable        *query;    /* decoded query, or NULL (owned) */
  char              *params[OW_REQUEST_MAX_PARAMS];  /* the '*' segments, in order */
  JsonNode          *body;     /* parsed on first use */
  gsize              body_seen;  /* bytes of a chunked body so far */
  gboolean           authed;   /* carried a valid token */
  gboolean           async;    /* the handler replies later (ow_request_done) */
  gboolean           in_dispatch;  /* its handler is still on the stack */
  gboolean           done;     /* ow_request_done() came while in dispatch */
};

struct _OwServer
{
  GObject        parent_instance;

  /* owned */
  OwSessionHost *host;
  SoupServer    *soup;
  OwSecretStore *secrets;
  OwOAuth       *oauth;            /* completes sign-ins at /v1/oauth/callback; NULL = none */
  char          *token;
  char          *default_workspace;
  char          *web_dir;          /* NULL = compiled-in resources */
  char          *scratch_dir;      /* the scratch base at start (ow_context_dup_scratch_dir), as named
                                    * and as resolved (when it differs) */
  char          *scratch_real;
  GPtrArray     *extra_origins;    /* char*, NULL-terminated for the guard */
  GHashTable    *watchers;         /* session id → GPtrArray of OwWsClient* (borrowed) */
  GPtrArray     *event_clients;    /* OwWsClient* on /ws/events (borrowed) */
  GPtrArray     *clients;          /* every OwWsClient (owned) */
  GCancellable  *cancellable;      /* cancelled on close: outbound calls stop */

  /* borrowed */
  OwContext     *ctx;              /* the host's */

  guint          port;
  gulong         event_handler;
  gulong         changed_handler;
  gulong         inbox_added_handler;
  gulong         inbox_resolved_handler;
  guint          recover_id;       /* idle: close turns a crash cut short */
  gint64         fail_window;      /* start of the current wrong-token window */
  guint          fail_count;
  guint          completions;      /* OpenAI-compatible calls in flight */
  gboolean       closed;
};

/* ---- Replies (ow-server.c) ---------------------------------------------- */

/* Sends @obj (transfer full) as JSON with @status. */
void        ow_reply_object     (OwRequest *req, guint status, JsonObject *obj);
void        ow_reply_array      (OwRequest *req, guint status, JsonArray *arr);
/* Sends @json (transfer full), already serialized. */
void        ow_reply_json_text  (OwRequest *req, guint status, char *json);
/* {"ok": false, "error": "<message>"} with @status. */
void        ow_reply_error      (OwRequest *req, guint status, const char *format, ...) G_GNUC_PRINTF (3, 4);
/* {"ok": true, …@extra} (transfer full; may be NULL) with 200. */
void        ow_reply_ok         (OwRequest *req, JsonObject *extra);
/* The status fitting a GError from the host or the store. */
guint       ow_status_for_error (const GError *error);
void        ow_reply_gerror     (OwRequest *req, const GError *error);

/* The body as a JSON object; on failure replies 400 and returns NULL.
 * Borrowed (the request owns it). An empty body is an empty object. */
JsonObject *ow_request_object   (OwRequest *req);
const char *ow_request_query    (OwRequest *req, const char *name);
/* Marks the request as answered later: pauses the message. */
void        ow_request_pause    (OwRequest *req);
/* Sends what the ow_reply_* call set, for a paused request. */
void        ow_request_done     (OwRequest *req);
/* Whether the client is still there (a paused request may outlive it). */
gboolean    ow_request_alive    (OwRequest *req);

/* ---- Route tables (one per file) --------------------------------------- */

const OwRoute *ow_server_session_routes   (guint *n);   /* ow-server-sessions.c */
const OwRoute *ow_server_misc_routes      (guint *n);   /* ow-server-routes.c */
const OwRoute *ow_server_provider_routes  (guint *n);   /* ow-server-providers.c */
const OwRoute *ow_server_openai_routes    (guint *n);   /* ow-server-openai.c */
const OwRoute *ow_server_oauth_routes     (guint *n);   /* ow-server-oauth.c */
const OwRoute *ow_server_mcp_routes       (guint *n);   /* ow-server-mcp.c */
/* The server listens: tells its OwOAuth where the callback is. */
void           ow_server_oauth_listening  (OwServer *self);

/* ---- WebSockets (ow-server-ws.c) ---------------------------------------- */

/* After the upgrade: checks Origin and token (close 1008 when wrong), then
 * serves /ws/session/{id} or /ws/events. */
void        ow_server_ws_accept      (OwServer *self, SoupServerMessage *msg, const char *path,
                                      SoupWebsocketConnection *conn);
/* The host's ::session-event: fan out to the session's sockets. */
void        ow_server_ws_on_event    (OwServer *self, const char *session_id, OwEvent *event);
/* App-wide notices to /ws/events sockets. */
void        ow_server_ws_broadcast   (OwServer *self, const char *type, JsonObject *data);
void        ow_server_ws_close_all   (OwServer *self);
/* Forgets every socket at once (dispose). */
void        ow_server_ws_free_all    (OwServer *self);
guint       ow_server_ws_count       (OwServer *self, const char *session_id);

/* ---- Static files (ow-server-static.c) ---------------------------------- */

void        ow_server_static_serve   (OwServer *self, SoupServerMessage *msg, const char *path);

/* ---- Shared helpers ------------------------------------------------------ */

/* The session's info object as GET /v1/sessions lists it (NULL when the
 * store has no such session). ow-server-sessions.c */
JsonObject *ow_server_session_info   (OwServer *self, const char *session_id);
/* {workspace, requested_commands, trusted, required} for a folder.
 * ow-server-routes.c */
JsonObject *ow_server_command_trust  (OwServer *self, const char *workspace);
/* Whether @path is a session scratch folder (under <state>/scratch). */
gboolean    ow_server_is_scratch     (OwServer *self, const char *path);

/* TRUE when @msg comes from a session's own command (ow-server-peer.c),
 * with the reason in @why; kept per connection. */
gboolean ow_server_from_session_command (SoupServerMessage *msg, char **why);

G_END_DECLS
