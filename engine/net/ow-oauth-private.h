/* ow-oauth-private.h: what ow-oauth.c and ow-oauth-token.c share.
 *
 * ow-oauth.c finds servers and signs in (discovery, registration, the
 * authorization code); ow-oauth-token.c keeps and refreshes what a sign-in
 * earned (credentials in the secret store, access tokens, rotation).
 */
#pragma once

#include "net/ow-oauth.h"
#include "net/ow-oauth-parse.h"

G_BEGIN_DECLS

/* OwOAuthPending sign-ins kept at once; the oldest goes first. */
#define MAX_PENDING 16
/* An access token this close to its expiry counts as expired. */
#define EXPIRY_MARGIN_SECONDS 30
/* Metadata and token answers are small. */
#define MAX_ANSWER (1024 * 1024)

/* What discovery found for one resource. */
typedef struct {
  char                  *resource;   /* canonical */
  char                  *issuer;
  OwOAuthServerMetadata *as;
  char                  *scope;      /* what to ask for, or NULL */
} OwOAuthDiscovery;

/* A client registered with a server. */
typedef struct {
  char *client_id;
  char *client_secret;  /* NULL: a public client */
} OwOAuthClient;

/* A sign-in waiting for its redirect. */
typedef struct {
  char     *state;
  char     *verifier;
  char     *resource;
  char     *issuer;
  char     *token_endpoint;
  char     *redirect_uri;
  char     *scope;
  char    **auth_methods;
  OwOAuthClient    client;
  gboolean  iss_required;
  gint64    created;         /* monotonic, for dropping the oldest */
} OwOAuthPending;

/* A stored credential (one secret: the whole JSON, so a rotation is one
 * atomic write). */
typedef struct {
  char    *name;             /* the secret's name: "<issuer> <resource>" */
  char    *issuer;
  char    *resource;
  char    *token_endpoint;
  char    *auth_method;      /* "none", "client_secret_basic", "client_secret_post" */
  OwOAuthClient   client;
  char    *access_token;
  char    *refresh_token;
  char    *scope;
  gint64   expires_at;       /* unix seconds; 0 = not said */
} OwOAuthCredential;

struct _OwOAuth
{
  GObject        parent_instance;

  /* owned */
  OwHttpClient  *http;
  OwSecretStore *secrets;
  char          *redirect_uri;
  char          *client_metadata_url;
  GHashTable    *clients;       /* canonical resource → OwOAuthClient* (set by hand) */
  GHashTable    *discoveries;   /* canonical resource → OwOAuthDiscovery* */
  GHashTable    *pending;       /* state → OwOAuthPending* */
  GHashTable    *creds;         /* canonical resource → OwOAuthCredential* (cache) */
  GHashTable    *refreshing;    /* canonical resource → GPtrArray of GTask* waiting */
  GHashTable    *step_ups;      /* canonical resource → count (GUINT_TO_POINTER) */
};

enum {
  SIGNAL_SIGNED_IN,
  SIGNAL_SIGN_IN_REQUIRED,
  N_SIGNALS
};

extern guint ow_oauth_signals[N_SIGNALS];

/* ---- Shared helpers (ow-oauth.c) ---------------------------------------- */

void           ow_oauth_client_clear   (OwOAuthClient *c);
gboolean       ow_oauth_strv_has       (char **v, const char *s);
void           ow_oauth_form_add       (GString *form, const char *name, const char *value);
/* A server's text fit for an error message: short, one line, redacted. */
char          *ow_oauth_outside_text   (const char *text);
OwHttpRequest *ow_oauth_new_request    (const char *method, const char *url);
/* A form POST to a token endpoint with the client's authentication. */
OwHttpRequest *ow_oauth_token_request  (const char *endpoint, GString *form, const char *auth_method,
                                        const OwOAuthClient *client);
/* A token endpoint's refusal as a clause. */
char          *ow_oauth_token_refusal  (const OwOAuthTokenResponse *tr, guint status);

/* ---- Credentials (ow-oauth-token.c) ------------------------------------- */

void           ow_oauth_credential_free (OwOAuthCredential *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwOAuthCredential, ow_oauth_credential_free)
/* The secret's name: "<issuer> <resource>", or their hash when too long. */
char          *ow_oauth_credential_name (const char *issuer, const char *resource);
OwOAuthCredential    *ow_oauth_credential_from_answer (const OwOAuthTokenResponse *tr,
                                                const char                 *issuer,
                                                const char                 *resource,
                                                const char                 *token_endpoint,
                                                const char                 *auth_method,
                                                const OwOAuthClient               *client,
                                                const char                 *asked_scope,
                                                const OwOAuthCredential           *old);
void           ow_oauth_store_credential_async (OwOAuth             *self,
                                                OwOAuthCredential          *cred,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  cb,
                                                gpointer             user_data);

G_END_DECLS
