/* ow-error.h: every error domain of the engine, in one place.
 *
 * Expected failures are GErrors in these domains. Their messages are
 * sentences a person can act on: what failed, why, and what to do.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define OW_NET_ERROR (ow_net_error_quark ())
#define OW_PROVIDER_ERROR (ow_provider_error_quark ())
#define OW_STORE_ERROR (ow_store_error_quark ())
#define OW_TOML_ERROR (ow_toml_error_quark ())
#define OW_CONFIG_ERROR (ow_config_error_quark ())
#define OW_TOOL_ERROR (ow_tool_error_quark ())
#define OW_RUN_ERROR (ow_run_error_quark ())
#define OW_POLICY_ERROR (ow_policy_error_quark ())
#define OW_SANDBOX_ERROR (ow_sandbox_error_quark ())
#define OW_SECRET_ERROR (ow_secret_error_quark ())
#define OW_OAUTH_ERROR (ow_oauth_error_quark ())
#define OW_MCP_ERROR (ow_mcp_error_quark ())

/* Transport-level failures of outbound HTTP (engine/net). An HTTP status,
 * even 500, is not an OW_NET_ERROR: the response is returned. */
typedef enum {
  OW_NET_ERROR_FAILED,        /* anything else libcurl reports */
  OW_NET_ERROR_RESOLVE,       /* host name did not resolve */
  OW_NET_ERROR_CONNECT,       /* connection refused / unreachable */
  OW_NET_ERROR_TIMEOUT,       /* connect, idle or total timeout */
  OW_NET_ERROR_TLS,           /* certificate or handshake failure */
  OW_NET_ERROR_CUT_OFF,       /* connection dropped before the body ended */
  OW_NET_ERROR_ABORTED,       /* the body consumer asked to stop */
  OW_NET_ERROR_TOO_LARGE,     /* body exceeded the request's limit */
} OwNetError;

/* Model-call failures (engine/providers), classified for retry. */
typedef enum {
  OW_PROVIDER_ERROR_FAILED,           /* unclassified */
  OW_PROVIDER_ERROR_AUTH,             /* bad or missing key: permanent */
  OW_PROVIDER_ERROR_MODEL_NOT_FOUND,  /* unknown model / no access: permanent */
  OW_PROVIDER_ERROR_CONTEXT_OVERFLOW, /* prompt too long: permanent (compaction) */
  OW_PROVIDER_ERROR_QUOTA,            /* out of credits / spend limit: permanent */
  OW_PROVIDER_ERROR_BAD_REQUEST,      /* other 4xx: permanent */
  OW_PROVIDER_ERROR_REFUSED,          /* safety refusal: permanent */
  OW_PROVIDER_ERROR_RATE_LIMITED,     /* 429: transient */
  OW_PROVIDER_ERROR_OVERLOADED,       /* 529 / overloaded_error: transient */
  OW_PROVIDER_ERROR_SERVER,           /* 5xx, 408, 409: transient */
  OW_PROVIDER_ERROR_CONNECTION,       /* transport failure: transient */
  OW_PROVIDER_ERROR_CUT_OFF,          /* stream ended before its terminal event: transient */
  OW_PROVIDER_ERROR_EMPTY_REPLY,      /* no text and no tool calls: transient */
  OW_PROVIDER_ERROR_PROTOCOL,         /* the server spoke something we cannot parse: transient */
  OW_PROVIDER_ERROR_NO_KEY,           /* no key configured: permanent */
  OW_PROVIDER_ERROR_UNKNOWN_PROVIDER, /* model id names no known provider: permanent */
  OW_PROVIDER_ERROR_REGION,           /* the service refuses this country or region: permanent */
} OwProviderError;

typedef enum {
  OW_STORE_ERROR_FAILED,
  OW_STORE_ERROR_CORRUPT,
  OW_STORE_ERROR_FULL,
  OW_STORE_ERROR_BUSY,
  OW_STORE_ERROR_NOT_FOUND,   /* no such row (a session id that is not there) */
} OwStoreError;

typedef enum {
  OW_TOML_ERROR_SYNTAX,       /* message carries "line L, column C: …" */
  OW_TOML_ERROR_DUPLICATE,    /* a key or table defined twice */
  OW_TOML_ERROR_TYPE,         /* a value the writer cannot express */
} OwTomlError;

typedef enum {
  OW_CONFIG_ERROR_INVALID,    /* a value of the wrong type or out of range */
  OW_CONFIG_ERROR_UNREADABLE,
} OwConfigError;

typedef enum {
  OW_TOOL_ERROR_FAILED,
  OW_TOOL_ERROR_UNKNOWN_TOOL,
  OW_TOOL_ERROR_BAD_ARGUMENTS,
  OW_TOOL_ERROR_INTERRUPTED,
} OwToolError;

typedef enum {
  OW_RUN_ERROR_USAGE,         /* the command line could not be run as given (exit 2) */
  OW_RUN_ERROR_FAILED,
} OwRunError;

typedef enum {
  OW_POLICY_ERROR_DENIED,
} OwPolicyError;

typedef enum {
  OW_SANDBOX_ERROR_UNAVAILABLE,
  OW_SANDBOX_ERROR_WALL_NOT_PROVED,
} OwSandboxError;

/* Secret stores (engine/store/ow-secret-store.h and its platform
 * implementations). A secret that is simply not there is not an error. */
typedef enum {
  OW_SECRET_ERROR_UNAVAILABLE,  /* no secret store answers: no Secret Service, no default keyring */
  OW_SECRET_ERROR_LOCKED,       /* the keyring is locked and was not unlocked */
  OW_SECRET_ERROR_PERMISSIONS,  /* a sealed-store file is open to other users, a link, or not ours */
  OW_SECRET_ERROR_CORRUPT,      /* a sealed-store file is damaged, truncated, or its key is missing */
  OW_SECRET_ERROR_INVALID,      /* a kind, name or value that cannot be stored */
  OW_SECRET_ERROR_FAILED,       /* anything else the store reports */
} OwSecretError;

/* Signing in to an OAuth-protected resource (engine/net/ow-oauth.h). */
typedef enum {
  OW_OAUTH_ERROR_FAILED,            /* anything else */
  OW_OAUTH_ERROR_DISCOVERY,         /* no usable resource or authorization server metadata */
  OW_OAUTH_ERROR_UNSUPPORTED,       /* the server lacks what a safe sign-in needs (PKCE S256, a way to register) */
  OW_OAUTH_ERROR_STATE,             /* a redirect for no sign-in we started */
  OW_OAUTH_ERROR_ISSUER,            /* the redirect or metadata names another issuer */
  OW_OAUTH_ERROR_DENIED,            /* the server refused the authorization or the code */
  OW_OAUTH_ERROR_SIGN_IN_REQUIRED,  /* no credential, or it was revoked: sign in again */
  OW_OAUTH_ERROR_STEP_UP_LIMIT,     /* the resource keeps asking for more scope */
} OwOAuthError;
/* The MCP client (engine/mcp). A tool that ran and failed is not an
 * error here: its result carries isError. */
typedef enum {
  OW_MCP_ERROR_FAILED,
  OW_MCP_ERROR_PROTOCOL,      /* the server sent something that is not JSON-RPC / MCP */
  OW_MCP_ERROR_SPAWN,         /* the server's command could not be started */
  OW_MCP_ERROR_EXITED,        /* the server process ended (or closed its output) */
  OW_MCP_ERROR_TIMEOUT,       /* no answer within the configured time */
  OW_MCP_ERROR_REMOTE,        /* the server answered with a JSON-RPC error */
  OW_MCP_ERROR_TOO_LARGE,     /* a message exceeded the configured limit */
  OW_MCP_ERROR_VERSION,       /* the server speaks no protocol revision we do */
  OW_MCP_ERROR_NOT_READY,     /* the client is not connected */
  OW_MCP_ERROR_INVALID_RESULT,/* structuredContent does not match the tool's outputSchema */
  OW_MCP_ERROR_AUTH_REQUIRED, /* an HTTP server asked for authorization (401) */
  OW_MCP_ERROR_CONFIG,        /* an mcp.json entry that cannot be used */
} OwMcpError;

GQuark ow_net_error_quark (void);
GQuark ow_provider_error_quark (void);
GQuark ow_store_error_quark (void);
GQuark ow_toml_error_quark (void);
GQuark ow_config_error_quark (void);
GQuark ow_tool_error_quark (void);
GQuark ow_run_error_quark (void);
GQuark ow_policy_error_quark (void);
GQuark ow_sandbox_error_quark (void);
GQuark ow_secret_error_quark (void);
GQuark ow_oauth_error_quark (void);
GQuark ow_mcp_error_quark (void);

G_END_DECLS
