/* ow-server.h: the loopback API (REST, WebSocket, OpenAI-compatible).
 *
 * One OwServer serves one OwSessionHost on 127.0.0.1: the browser dev UI
 * (static files at /), the REST routes under /v1/ (sessions, inbox,
 * workspaces, providers, model settings), the session event and approval
 * stream at /ws/session/{id}, an app-wide stream at /ws/events, and
 * POST /v1/chat/completions + GET /v1/models for any OpenAI client. The
 * desktop app hosts it in-process; `openworker-server` runs it alone.
 *
 * Every request but the static files, OPTIONS preflights and the bare
 * /v1/health must carry the per-launch token (X-OpenWorker-Token; or
 * Authorization: Bearer on the OpenAI-compatible routes; or the
 * WebSocket subprotocol pair ["openworker", <token>]). The Host header
 * must name loopback with our port and a browser Origin must be a
 * loopback page, whatever the route: that is the DNS-rebinding defence.
 */
#pragma once

#include <gio/gio.h>

#include "core/ow-session-host.h"
#include "net/ow-oauth.h"
#include "store/ow-secret-store.h"

G_BEGIN_DECLS

#define OW_SERVER_DEFAULT_PORT 8765

#define OW_SERVER_ERROR (ow_server_error_quark ())
GQuark ow_server_error_quark (void);

typedef enum {
  OW_SERVER_ERROR_NO_PORT,   /* every port tried was taken */
} OwServerError;

typedef struct {
  const char    *token;              /* NULL = a new random 256-bit token */
  const char    *default_workspace;  /* the folder the server was started in (--cwd), or NULL */
  const char    *web_dir;            /* serve the browser UI from this folder; NULL = $OPENWORKER_WEB_DIR,
                                        else the compiled-in resources */
  OwSecretStore *secrets;            /* where provider keys go; NULL = the machine's default store */
} OwServerOptions;

#define OW_TYPE_SERVER (ow_server_get_type ())
G_DECLARE_FINAL_TYPE (OwServer, ow_server, OW, SERVER, GObject)

OwServer   *ow_server_new        (OwSessionHost *host, const OwServerOptions *options);

/* Listens on 127.0.0.1:@port; when it is taken, on the next ports, @tries
 * in all. @port 0 = a port the kernel picks (tests). */
gboolean    ow_server_listen     (OwServer *self, guint port, guint tries, GError **error);
guint       ow_server_get_port   (OwServer *self);
/* The token (never log it). */
const char *ow_server_get_token  (OwServer *self);
/* http://127.0.0.1:PORT/#token=… — the fragment never reaches a server. */
char       *ow_server_dup_url    (OwServer *self);
/* Another browser origin allowed to call the API (the desktop app's own). */
void        ow_server_add_origin (OwServer *self, const char *origin);
/* Sign-ins whose browser redirect comes back to this server: GET
 * /v1/oauth/callback (no token: it is a browser navigation) completes the
 * pending sign-in its state names, and refuses any other. The server sets
 * @oauth's redirect URI to its own callback once it listens. By default
 * it serves its context's (ow_context_get_oauth()); this replaces it. */
void        ow_server_set_oauth  (OwServer *self, OwOAuth *oauth);
/* Closes every WebSocket (1001 going away) and stops listening. */
void        ow_server_close      (OwServer *self);

/* Writes @token to <@runtime_dir>/sidecar-<@port>.token, mode 0600 (the
 * folder is created 0700). Returns the path. */
char       *ow_server_write_token_file (const char *runtime_dir, guint port, const char *token, GError **error);

G_END_DECLS
