/* ow-mcp-client.h: one connection to one MCP server.
 *
 * engine/mcp is the MCP client. OwMcpClient starts a server (stdio: spawn,
 * see ow-mcp-stdio.h; streamable HTTP: ow-mcp-http.h) and finds out which
 * generation it speaks: initialize first, offering 2025-11-25 and accepting
 * the 2025-06-18, 2025-03-26 and 2024-11-05 revisions a server may answer
 * with, then notifications/initialized; when the server refuses initialize
 * with a JSON-RPC error, server/discover, and if that names 2026-07-28 the
 * stateless generation (every request carries the protocol version, client
 * capabilities and client info in _meta). It lists the tools with cursor pagination,
 * re-lists when the server says they changed (coalescing storms of
 * notifications into at most one listing in flight and one queued), calls
 * tools with progress, cancellation and timeouts, answers the server's own
 * requests (ping; roots/list with the configured folders; elicitation/create
 * through a handler when one is installed; everything else, sampling
 * included, with a JSON-RPC error), and restarts
 * a crashed server with backoff.
 *
 * The tool seam (OwToolProvider) adapts it; this file knows nothing of
 * policies or agents. Everything runs on the thread-default main context
 * the client was created in.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "mcp/ow-mcp-config.h"

G_BEGIN_DECLS

/* ---- Status ----------------------------------------------------------- */

typedef enum {
  OW_MCP_STATUS_STOPPED,        /* not started, or stop() ran */
  OW_MCP_STATUS_STARTING,       /* spawning, initializing, listing tools */
  OW_MCP_STATUS_READY,          /* tools listed; calls are accepted */
  OW_MCP_STATUS_RESTARTING,     /* the server crashed; a restart is scheduled or under way */
  OW_MCP_STATUS_FAILED,         /* gave up; last-error says why */
  OW_MCP_STATUS_AUTH_REQUIRED,  /* an HTTP server answered 401; last-error holds WWW-Authenticate */
} OwMcpStatus;

#define OW_TYPE_MCP_STATUS (ow_mcp_status_get_type ())
GType ow_mcp_status_get_type (void) G_GNUC_CONST;

/* ---- Tools ------------------------------------------------------------ */

/* One tool as the server lists it. Immutable; reference counted. */
typedef struct {
  gint        refcount;
  char       *name;           /* the server's name for it */
  char       *title;          /* or NULL */
  char       *description;    /* or NULL */
  JsonObject *input_schema;   /* never NULL ({"type":"object"} when absent) */
  JsonObject *output_schema;  /* or NULL */
  JsonObject *annotations;    /* untrusted hints, or NULL */
} OwMcpTool;

#define OW_TYPE_MCP_TOOL (ow_mcp_tool_get_type ())
GType      ow_mcp_tool_get_type (void) G_GNUC_CONST;
OwMcpTool *ow_mcp_tool_ref      (OwMcpTool *tool);
void       ow_mcp_tool_unref    (OwMcpTool *tool);

/* ---- Call results ----------------------------------------------------- */

typedef enum {
  OW_MCP_CONTENT_TEXT,
  OW_MCP_CONTENT_IMAGE,
  OW_MCP_CONTENT_AUDIO,
  OW_MCP_CONTENT_RESOURCE_LINK,
  OW_MCP_CONTENT_RESOURCE,      /* embedded resource */
  OW_MCP_CONTENT_UNKNOWN,       /* a type this client does not know; see raw */
} OwMcpContentType;

typedef struct {
  OwMcpContentType type;
  char       *text;         /* text; resource: its text, if a text resource */
  char       *data;         /* image, audio: base64; resource: its blob (base64), if binary */
  char       *mime_type;    /* image, audio, resource, resource_link (optional) */
  char       *uri;          /* resource_link, resource */
  char       *name;         /* resource_link */
  char       *description;  /* resource_link (optional) */
  JsonObject *raw;          /* the block as sent */
} OwMcpContent;

typedef struct {
  GPtrArray  *content;             /* OwMcpContent *, in order */
  JsonObject *structured_content;  /* or NULL; checked against the tool's outputSchema */
  gboolean    is_error;            /* the tool ran and failed: show it to the model */
} OwMcpCallResult;

void ow_mcp_call_result_free (OwMcpCallResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwMcpCallResult, ow_mcp_call_result_free)

/* @total < 0 when the server gave none; @message may be NULL. */
typedef void (*OwMcpProgressFunc) (double      progress,
                                   double      total,
                                   const char *message,
                                   gpointer    user_data);

/* ---- Elicitation -------------------------------------------------------- */

/* One elicitation/create request of the server (2025-06-18 form mode,
 * 2025-11-25 URL mode), to be answered once with
 * ow_mcp_elicitation_respond(). Reference counted; a request dropped
 * without an answer is answered "cancel". */
typedef struct _OwMcpElicitation OwMcpElicitation;
typedef struct _OwMcpClient OwMcpClient;

OwMcpElicitation *ow_mcp_elicitation_ref         (OwMcpElicitation *e);
void              ow_mcp_elicitation_unref       (OwMcpElicitation *e);
const char       *ow_mcp_elicitation_get_server  (OwMcpElicitation *e);   /* the entry's name */
gboolean          ow_mcp_elicitation_is_url      (OwMcpElicitation *e);
const char       *ow_mcp_elicitation_get_message (OwMcpElicitation *e);   /* never NULL */
/* Form mode: the flat requestedSchema (never NULL; {} when absent). */
JsonObject       *ow_mcp_elicitation_get_schema  (OwMcpElicitation *e);
/* URL mode: the address and its host (NULL when it is not http(s)). */
const char       *ow_mcp_elicitation_get_url     (OwMcpElicitation *e);
const char       *ow_mcp_elicitation_get_host    (OwMcpElicitation *e);
/* @action "accept" (with @content for a form; NULL for a URL, where it
 * means consent only), "decline" or "cancel"; @reason, when given, goes to
 * the server in the result's _meta. Later calls do nothing. */
void              ow_mcp_elicitation_respond     (OwMcpElicitation *e,
                                                  const char       *action,
                                                  JsonObject       *content,
                                                  const char       *reason);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwMcpElicitation, ow_mcp_elicitation_unref)

/* Whether a form field asks for a secret (a password, token, key,
 * credential…) by its name, title or description: form mode must never
 * collect one, so such a request is declined before anyone is asked. */
gboolean          ow_mcp_elicitation_field_is_secret (const char *name, JsonObject *field);

/* Receives @request (transfer none: take a reference to answer later). */
typedef void (*OwMcpElicitationFunc) (OwMcpClient      *client,
                                      OwMcpElicitation *request,
                                      gpointer          user_data);

/* ---- Client ----------------------------------------------------------- */

#define OW_TYPE_MCP_CLIENT (ow_mcp_client_get_type ())
G_DECLARE_FINAL_TYPE (OwMcpClient, ow_mcp_client, OW, MCP_CLIENT, GObject)

/* Properties: "name" (string), "status" (OwMcpStatus), "last-error"
 * (string or NULL: the last failure, with the server's stderr tail),
 * "protocol-version" (what the server agreed to), "instructions".
 * Signal "tools-changed" (no arguments): get_tools() has a new list. */

OwMcpClient *ow_mcp_client_new              (const OwMcpServerConfig *config);
const char  *ow_mcp_client_get_name         (OwMcpClient *self);
/* The entry the client was made from. (transfer none) */
const OwMcpServerConfig *ow_mcp_client_get_config (OwMcpClient *self);
OwMcpStatus  ow_mcp_client_get_status       (OwMcpClient *self);
const char  *ow_mcp_client_get_last_error   (OwMcpClient *self);
const char  *ow_mcp_client_get_protocol_version (OwMcpClient *self);
const char  *ow_mcp_client_get_instructions (OwMcpClient *self);
/* The server's serverInfo, or NULL before initialize. (transfer none) */
JsonObject  *ow_mcp_client_get_server_info  (OwMcpClient *self);

/* Installs (or with NULL removes) who answers the server's
 * elicitation/create. Only with a handler does initialize declare the
 * `elicitation` capability (form and URL), so install it before start.
 * Without one the request is answered with a JSON-RPC error. A form that
 * asks for a secret is declined here, the handler never sees it. */
void         ow_mcp_client_set_elicitation_handler (OwMcpClient          *self,
                                                    OwMcpElicitationFunc  func,
                                                    gpointer              user_data);

/* Spawns the server, initializes and lists its tools. Fails with
 * OW_MCP_ERROR_* (SPAWN, EXITED, TIMEOUT after the start timeout, VERSION,
 * PROTOCOL, CONFIG); the status is then FAILED. */
void         ow_mcp_client_start_async      (OwMcpClient         *self,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
gboolean     ow_mcp_client_start_finish     (OwMcpClient   *self,
                                             GAsyncResult  *result,
                                             GError       **error);

/* The tools the include/exclude lists let through, in the server's order.
 * (transfer container): unref the array; elements are OwMcpTool. */
GPtrArray   *ow_mcp_client_get_tools        (OwMcpClient *self);
/* (transfer none) or NULL. */
OwMcpTool   *ow_mcp_client_lookup_tool      (OwMcpClient *self, const char *name);

/* Calls @name with @arguments (NULL = {}). @progress, when given, receives
 * the server's progress notifications; each one also restarts the call's
 * timeout, up to the hard maximum. Cancelling @cancellable sends
 * notifications/cancelled and completes with G_IO_ERROR_CANCELLED at once.
 * A JSON-RPC error answer is OW_MCP_ERROR_REMOTE; a tool that ran and
 * failed is a result with is_error. */
void             ow_mcp_client_call_tool_async  (OwMcpClient         *self,
                                                 const char          *name,
                                                 JsonObject          *arguments,
                                                 OwMcpProgressFunc    progress,
                                                 gpointer             progress_data,
                                                 GDestroyNotify       progress_destroy,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
OwMcpCallResult *ow_mcp_client_call_tool_finish (OwMcpClient   *self,
                                                 GAsyncResult  *result,
                                                 GError       **error);

/* Ends the server (its whole process group) and fails what is in flight.
 * The client can be started again. Disposing the client stops it. */
void         ow_mcp_client_stop             (OwMcpClient *self);

/* The server's process id while it runs (diagnostics and tests), else 0. */
int          ow_mcp_client_get_pid          (OwMcpClient *self);
/* The OAuth access token sent to an HTTP server ("Authorization: Bearer …")
 * from the next request on, kept across restarts; NULL removes it. This is
 * where net/ow-oauth.c hands over a token it obtained or refreshed; start
 * the client again after a 401 to use it. */
void         ow_mcp_client_set_access_token (OwMcpClient *self, const char *token);
/* The WWW-Authenticate header of the last 401 (or 403 insufficient_scope),
 * for net/ow-oauth.c (see mcp/ow-mcp-auth.h), or NULL. */
const char  *ow_mcp_client_get_auth_challenge (OwMcpClient *self);
/* The HTTP server's Mcp-Session-Id, or NULL (stdio, or none given). */
const char  *ow_mcp_client_get_session_id   (OwMcpClient *self);
/* How many times tools/list was sent since the client was created. */
guint        ow_mcp_client_get_n_listings   (OwMcpClient *self);

G_END_DECLS
