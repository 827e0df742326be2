/* ow-oauth.h: signing in to OAuth-protected resources.
 *
 * An HTTP MCP server (later a connector, the OpenRouter account) answers
 * 401 with a WWW-Authenticate header. OwOAuth turns that into a signed-in
 * resource, the way the MCP authorization spec (2025-11-25) lays it out:
 *
 *   discovery    protected resource metadata (RFC 9728) from the header's
 *                resource_metadata, else the well-known URL at the
 *                resource's path, then at the root; then the
 *                authorization server's metadata (RFC 8414 with path
 *                insertion, else OpenID Connect discovery), in the
 *                spec's order; the issuer it names must be the one asked
 *   client       a pre-registered client id (and secret) set for the
 *                resource, else a client ID metadata document when the
 *                server supports one, else dynamic registration (RFC 7591)
 *   sign-in      authorization code with PKCE S256 (a server that does not
 *                list S256 is refused), resource (RFC 8707) on every
 *                request, state checked, iss checked (RFC 9207)
 *   tokens       kept in the OwSecretStore under kind "oauth", named by
 *                issuer and resource; a rotated refresh token is stored
 *                before the new access token is handed out; invalid_grant
 *                on refresh deletes the credential and says so once
 *
 * The caller opens the authorization URL in a browser; the redirect comes
 * back to the loopback API (GET /v1/oauth/callback), which calls
 * ow_oauth_complete_async(). "signed-in" then tells every live session.
 *
 * What a client of a resource (the MCP HTTP transport) does:
 *   - before each request: ow_oauth_get_access_token_async(); on
 *     OW_OAUTH_ERROR_SIGN_IN_REQUIRED send none, and expect a 401;
 *   - 401 without a token (or SIGN_IN_REQUIRED): begin a sign-in with the
 *     401's WWW-Authenticate, show the URL, wait for "signed-in";
 *   - 401 with a token: ow_oauth_invalidate(), then get a token again
 *     (that refreshes) and retry once;
 *   - 403 with error="insufficient_scope": begin a sign-in with the 403's
 *     header (a step-up; OW_OAUTH_ERROR_STEP_UP_LIMIT ends the loop).
 * One OwOAuth serves the whole process: ow_context_get_oauth().
 */
#pragma once

#include <gio/gio.h>

#include "net/ow-http-client.h"
#include "store/ow-secret-store.h"

G_BEGIN_DECLS

/* The secret kind OwOAuth keeps its credentials and registered clients under. */
#define OW_SECRET_KIND_OAUTH        "oauth"
#define OW_SECRET_KIND_OAUTH_CLIENT "oauth-client"

/* How many times one resource may send a person back to re-authorize for
 * more scope (403 insufficient_scope) before OwOAuth refuses. */
#define OW_OAUTH_MAX_STEP_UPS 2

#define OW_TYPE_OAUTH (ow_oauth_get_type ())
G_DECLARE_FINAL_TYPE (OwOAuth, ow_oauth, OW, OAUTH, GObject)

/**
 * ow_oauth_new:
 * @http: the client every request goes through
 * @secrets: where tokens and registered clients are kept
 *
 * Returns: (transfer full): a new OwOAuth
 */
OwOAuth    *ow_oauth_new                    (OwHttpClient  *http,
                                             OwSecretStore *secrets);

/* Where the authorization server sends the browser back: the loopback
 * API's callback, "http://127.0.0.1:PORT/v1/oauth/callback". */
void        ow_oauth_set_redirect_uri       (OwOAuth    *self,
                                             const char *redirect_uri);
const char *ow_oauth_get_redirect_uri       (OwOAuth    *self);

/* The https URL of OpenWorker's client ID metadata document, used as the
 * client id where the server supports such documents. NULL: none. */
void        ow_oauth_set_client_metadata_url (OwOAuth    *self,
                                              const char *url);

/* A client registered by hand with the server behind @resource_url (GitHub,
 * Asana, HubSpot and Entra offer no dynamic registration). @client_secret
 * is NULL for a public client. Wins over every other way of getting one. */
void        ow_oauth_set_client             (OwOAuth    *self,
                                             const char *resource_url,
                                             const char *client_id,
                                             const char *client_secret);

/* Finds the authorization server of @resource_url from the
 * @www_authenticate header of its 401 (may be NULL). */
void        ow_oauth_discover_async         (OwOAuth             *self,
                                             const char          *resource_url,
                                             const char          *www_authenticate,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
/* Returns: (transfer full): the issuer found */
char       *ow_oauth_discover_finish        (OwOAuth       *self,
                                             GAsyncResult  *result,
                                             GError       **error);

/* Discovers (again), gets a client, and makes the authorization URL of a
 * new pending sign-in. @www_authenticate is the header of the 401, or of a
 * 403 with error="insufficient_scope" (a step-up: at most
 * OW_OAUTH_MAX_STEP_UPS per resource, then OW_OAUTH_ERROR_STEP_UP_LIMIT). */
void        ow_oauth_begin_sign_in_async    (OwOAuth             *self,
                                             const char          *resource_url,
                                             const char          *www_authenticate,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
/* Returns: (transfer full): the URL to open in a browser */
char       *ow_oauth_begin_sign_in_finish   (OwOAuth       *self,
                                             GAsyncResult  *result,
                                             GError       **error);

/* Whether @state names a pending sign-in (the callback route asks first). */
gboolean    ow_oauth_is_pending             (OwOAuth    *self,
                                             const char *state);

/* Completes the sign-in @state names with the redirect's parameters:
 * @code, @iss (NULL when absent) and @error_code (the redirect's "error",
 * NULL on success). The state is used up whatever the outcome. */
void        ow_oauth_complete_async         (OwOAuth             *self,
                                             const char          *state,
                                             const char          *code,
                                             const char          *iss,
                                             const char          *error_code,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
/* Returns: (transfer full): the resource now signed in */
char       *ow_oauth_complete_finish        (OwOAuth       *self,
                                             GAsyncResult  *result,
                                             GError       **error);

/* A valid access token for @resource_url, refreshed when it has expired
 * (or was marked so). Fails with OW_OAUTH_ERROR_SIGN_IN_REQUIRED when
 * there is no credential or the server revoked it. */
void        ow_oauth_get_access_token_async (OwOAuth             *self,
                                             const char          *resource_url,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
/* Returns: (transfer full): the token; free with ow_secret_free() */
char       *ow_oauth_get_access_token_finish (OwOAuth       *self,
                                              GAsyncResult  *result,
                                              GError       **error);

/* The resource answered 401 to the current access token: the next
 * ow_oauth_get_access_token_async() refreshes it. */
void        ow_oauth_invalidate             (OwOAuth    *self,
                                             const char *resource_url);

/* Forgets every credential kept for @resource_url (each issuer's), in
 * memory and in the secret store. The next request needs a new sign-in. */
void        ow_oauth_sign_out_async         (OwOAuth             *self,
                                             const char          *resource_url,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
/* Returns: how many stored credentials were deleted, or -1 with @error */
int         ow_oauth_sign_out_finish        (OwOAuth       *self,
                                             GAsyncResult  *result,
                                             GError       **error);

/* The canonical form of a resource URL (RFC 8707, MCP "canonical server
 * URI"): scheme and host lower-case, no fragment, no default port; NULL
 * when @url is not an acceptable OAuth URL. */
char       *ow_oauth_canonical_resource     (const char *url);

G_END_DECLS
