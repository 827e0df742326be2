/* ow-error.c: the engine's error domains (see ow-error.h). */
#include "ow-error.h"

G_DEFINE_QUARK (ow-net-error-quark, ow_net_error)
G_DEFINE_QUARK (ow-provider-error-quark, ow_provider_error)
G_DEFINE_QUARK (ow-store-error-quark, ow_store_error)
G_DEFINE_QUARK (ow-toml-error-quark, ow_toml_error)
G_DEFINE_QUARK (ow-config-error-quark, ow_config_error)
G_DEFINE_QUARK (ow-tool-error-quark, ow_tool_error)
G_DEFINE_QUARK (ow-run-error-quark, ow_run_error)
G_DEFINE_QUARK (ow-policy-error-quark, ow_policy_error)
G_DEFINE_QUARK (ow-sandbox-error-quark, ow_sandbox_error)
G_DEFINE_QUARK (ow-secret-error-quark, ow_secret_error)
G_DEFINE_QUARK (ow-oauth-error-quark, ow_oauth_error)
G_DEFINE_QUARK (ow-mcp-error-quark, ow_mcp_error)
