/* ow-oauth-parse.h: the outside data of an OAuth sign-in, parsed.
 *
 * Pure functions over text from servers we do not control: the
 * WWW-Authenticate header of a 401 or 403 (RFC 9110 §11.6.1, RFC 6750 §3,
 * RFC 9728 §5.1), protected resource metadata (RFC 9728 §2),
 * authorization server metadata (RFC 8414 §2, the OpenID Connect
 * Discovery subset it shares), token responses (RFC 6749 §5) and dynamic
 * registration responses (RFC 7591 §3.2.1). No I/O, no GObject; each is
 * fuzzed (tests/net/fuzz-oauth.c).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The Bearer challenge of a WWW-Authenticate header. Members are NULL when
 * the challenge does not carry them. */
typedef struct {
  char *resource_metadata;  /* RFC 9728 §5.1 */
  char *scope;              /* space-separated, RFC 6750 §3 */
  char *error;              /* "invalid_token", "insufficient_scope", … */
  char *error_description;
} OwOAuthChallenge;

/* The Bearer challenge in @header (several challenges may share one
 * header), or NULL when there is none. */
OwOAuthChallenge *ow_oauth_challenge_parse (const char *header);
void              ow_oauth_challenge_free  (OwOAuthChallenge *challenge);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwOAuthChallenge, ow_oauth_challenge_free)

typedef struct {
  char  *resource;               /* required */
  char **authorization_servers;  /* issuer URLs, at least one */
  char **scopes_supported;       /* NULL when absent */
} OwOAuthResourceMetadata;

OwOAuthResourceMetadata *ow_oauth_resource_metadata_parse (const char *text, gssize len, GError **error);
void                     ow_oauth_resource_metadata_free  (OwOAuthResourceMetadata *md);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwOAuthResourceMetadata, ow_oauth_resource_metadata_free)

typedef struct {
  char     *issuer;
  char     *authorization_endpoint;
  char     *token_endpoint;
  char     *registration_endpoint;             /* NULL: no dynamic registration */
  char    **code_challenge_methods_supported;  /* NULL when absent */
  char    **scopes_supported;
  char    **token_endpoint_auth_methods_supported;
  gboolean  client_id_metadata_document_supported;
  gboolean  authorization_response_iss_parameter_supported;
} OwOAuthServerMetadata;

OwOAuthServerMetadata *ow_oauth_server_metadata_parse (const char *text, gssize len, GError **error);
void                   ow_oauth_server_metadata_free  (OwOAuthServerMetadata *md);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwOAuthServerMetadata, ow_oauth_server_metadata_free)

/* A token endpoint's answer: tokens on success, or error (+ description). */
typedef struct {
  char   *access_token;
  char   *refresh_token;   /* NULL when none was issued */
  char   *scope;           /* NULL: the scope asked for */
  gint64  expires_in;      /* seconds; 0 when not given */
  char   *error;           /* set instead of the tokens on an error answer */
  char   *error_description;
} OwOAuthTokenResponse;

OwOAuthTokenResponse *ow_oauth_token_response_parse (const char *text, gssize len, GError **error);
void                  ow_oauth_token_response_free  (OwOAuthTokenResponse *tr);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwOAuthTokenResponse, ow_oauth_token_response_free)

/* RFC 7591 §3.2.1: the client_id (required) and client_secret (optional). */
gboolean ow_oauth_registration_parse (const char *text,
                                      gssize      len,
                                      char      **client_id,
                                      char      **client_secret,
                                      GError    **error);

/* Whether @url may be used for OAuth: https, or http to a loopback host
 * (127.0.0.0/8, ::1, localhost), with no fragment and no user info. */
gboolean ow_oauth_url_ok (const char *url);

G_END_DECLS
