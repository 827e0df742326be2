/* ow-mcp-auth.h: an HTTP MCP server's sign-in, through OwOAuth.
 *
 * OwMcpAuth binds one OwMcpClient to the process's OwOAuth (net/ow-oauth.h)
 * and does for it what that header asks of a resource's client:
 *
 *   - before connecting it asks OwOAuth for an access token (refreshed
 *     when it expired) and hands it over with
 *     ow_mcp_client_set_access_token(); with no credential it connects
 *     without one and expects a 401;
 *   - a 401 to a request that carried a token: ow_oauth_invalidate(),
 *     a new token (that refreshes), and one more connection; a second 401,
 *     or a refresh the server refuses (invalid_grant), leaves the client
 *     AUTH_REQUIRED and "needs-sign-in" TRUE;
 *   - a 403 with error="insufficient_scope" is a step-up: "needs-sign-in"
 *     TRUE, and the next sign-in asks for the scope the 403 named;
 *   - ow_mcp_auth_sign_in_async() begins a sign-in from the last challenge
 *     and gives the authorization URL to open; when OwOAuth's "signed-in"
 *     names this server's resource (a sign-in completed anywhere in the
 *     process: the loopback API's callback, `openworker mcp login`), the
 *     client connects again at once, with no restart of anything.
 *
 * The entry's `client_id` (and `client_secret`) is the pre-registered
 * client OwOAuth uses for this server. Tokens never leave OwOAuth and the
 * client's transport; nothing here logs them.
 *
 * The client owns its OwMcpAuth (ow_mcp_auth_attach()); stdio servers, and
 * URLs OAuth does not accept, get none.
 */
#pragma once

#include "mcp/ow-mcp-client.h"
#include "net/ow-oauth.h"

G_BEGIN_DECLS

#define OW_TYPE_MCP_AUTH (ow_mcp_auth_get_type ())
G_DECLARE_FINAL_TYPE (OwMcpAuth, ow_mcp_auth, OW, MCP_AUTH, GObject)

/* Binds @client (an HTTP server) to @oauth, once: a second call returns
 * the first binding. NULL for a stdio server or a URL OAuth refuses.
 * Properties: "needs-sign-in" (boolean), "authorization-url" (string or
 * NULL: the last sign-in begun and not yet completed).
 * Returns: (transfer none) (nullable): owned by @client */
OwMcpAuth  *ow_mcp_auth_attach             (OwMcpClient *client,
                                            OwOAuth     *oauth);
/* @client's binding, or NULL. (transfer none) */
OwMcpAuth  *ow_mcp_auth_get                (OwMcpClient *client);

/* The canonical resource URL of the server. */
const char *ow_mcp_auth_get_resource       (OwMcpAuth *self);
gboolean    ow_mcp_auth_get_needs_sign_in  (OwMcpAuth *self);
/* Whether the client's current connection sends an access token. */
gboolean    ow_mcp_auth_has_token          (OwMcpAuth *self);
const char *ow_mcp_auth_get_authorization_url (OwMcpAuth *self);

/* Gets a token when a credential exists, then starts the client (as
 * ow_mcp_client_start_async()), with the one retry described above. Fails
 * with OW_MCP_ERROR_AUTH_REQUIRED, a sentence saying how to sign in, when
 * a person has to. While a reconnection after a sign-in runs, this waits
 * for its outcome instead of starting another. */
void        ow_mcp_auth_start_async        (OwMcpAuth           *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean    ow_mcp_auth_start_finish       (OwMcpAuth     *self,
                                            GAsyncResult  *result,
                                            GError       **error);

/* Begins a sign-in (or a step-up) from the server's last challenge.
 * Returns: (transfer full): the URL to open in a browser */
void        ow_mcp_auth_sign_in_async      (OwMcpAuth           *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
char       *ow_mcp_auth_sign_in_finish     (OwMcpAuth     *self,
                                            GAsyncResult  *result,
                                            GError       **error);

/* Starts @client: through its OwMcpAuth when it has one, else as
 * ow_mcp_client_start_async(). The result is for ow_mcp_start_finish(). */
void        ow_mcp_start_async             (OwMcpClient         *client,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean    ow_mcp_start_finish            (OwMcpClient   *client,
                                            GAsyncResult  *result,
                                            GError       **error);

G_END_DECLS
