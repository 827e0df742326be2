/* ow-mcp-http.h: the streamable HTTP transport of the MCP client (private
 * to engine/mcp), in its 2025-03-26 … 2025-11-25 form.
 *
 * Every message the client sends is its own POST with `Accept:
 * application/json, text/event-stream`; the answer is a JSON body or an
 * SSE stream of messages (progress, the server's requests, then the
 * response), each handed to @message. The server's Mcp-Session-Id is
 * echoed on every later request, MCP-Protocol-Version once it is agreed,
 * and the configured headers always. After initialize a GET opens the
 * server's own stream (405 means it has none). A request whose POST fails
 * is completed through @request_failed with a sentence; a 401 also reports
 * the WWW-Authenticate header through @auth_required; a 404 on a session
 * means it expired, reported as @closed so the client starts again.
 * Closing sends DELETE for the session and ends every stream.
 */
#pragma once

#include <gio/gio.h>

#include "mcp/ow-mcp-config.h"

G_BEGIN_DECLS

typedef struct _OwMcpHttp OwMcpHttp;

typedef struct {
  void (*message)        (const char *text, gsize len, gpointer user_data);
  void (*closed)         (const char *reason, gpointer user_data);
  /* @id is the request's id; @error names the server and what failed. */
  void (*request_failed) (gint64 id, const GError *error, gpointer user_data);
  void (*auth_required)  (const char *www_authenticate, gpointer user_data);
} OwMcpHttpCallbacks;

OwMcpHttp  *ow_mcp_http_start                (const OwMcpServerConfig  *config,
                                              const OwMcpHttpCallbacks *callbacks,
                                              gpointer                  user_data);
/* Posts one message (a JSON-RPC request, notification or response). A
 * notifications/cancelled also ends the stream of the request it names. */
void        ow_mcp_http_send                 (OwMcpHttp *self, const char *message);
/* Sent as MCP-Protocol-Version from now on (NULL: none); for a 2025
 * version it opens the GET stream, for 2026-07-28 it switches to that
 * generation's headers (Mcp-Method, Mcp-Name) without GET or DELETE. */
void        ow_mcp_http_set_protocol_version (OwMcpHttp *self, const char *version);
/* Sent as "Authorization: Bearer @token" from now on (NULL: none). */
void        ow_mcp_http_set_access_token     (OwMcpHttp *self, const char *token);
/* The session the server gave, or NULL. */
const char *ow_mcp_http_get_session_id       (OwMcpHttp *self);
/* Ends the session (DELETE) and every stream, and frees @self; no callback
 * runs afterwards. */
void        ow_mcp_http_close                (OwMcpHttp *self);

G_END_DECLS
