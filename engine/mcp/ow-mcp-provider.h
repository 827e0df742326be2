/* ow-mcp-provider.h: one MCP server's tools, as a tool provider.
 *
 * OwMcpProvider adapts an OwMcpClient to the tool seam: its items are one
 * OwTool per tool the server lists (after the entry's include/exclude
 * lists), named `mcp__<server>__<tool>` (sanitized, at most 64 characters,
 * unique), from source `mcp:<server>`. When the server says its tools
 * changed, the items are replaced in one items-changed, so the next model
 * call of every session that holds the provider sees the new set.
 *
 * Governance: every MCP tool is `external`. The server's annotations
 * (readOnlyHint, destructiveHint …) come from a program we do not control;
 * they are passed on for display and never lower the risk class, so only a
 * person's rule (or the config) lets an MCP tool run without a card. The
 * entry's "tools" settings (ow-mcp-config.h) are that config: an `allow`
 * tool carries ow_tool_get_allowed_by(), a `deny` one is not an item and
 * ow_tool_provider_refused_reason() says why, an `off` one is not there.
 *
 * A server's questions (elicitation/create) go to the person through the
 * call in flight: its OwToolContext.ask_async, the session's ask path. Form
 * mode asks the fields one by one after a "Fill in / Decline" card; URL
 * mode shows the host and the address and never opens it; an answer by
 * rule declines. The provider installs the client's handler when it is
 * made, so make it before the client starts (ow_mcp_start_servers does).
 *
 * A call goes to the server as it is; its content blocks, structured
 * content and isError come back as an OwToolResult. A JSON-RPC error, a
 * timeout or a crashed server is an error result that names the server,
 * so the model can tell the person; a stopped turn cancels the call (the
 * server is sent notifications/cancelled).
 */
#pragma once

#include "mcp/ow-mcp-client.h"
#include "net/ow-oauth.h"
#include "store/ow-paths.h"
#include "tools/ow-tool-provider.h"

G_BEGIN_DECLS

#define OW_TYPE_MCP_PROVIDER (ow_mcp_provider_get_type ())
G_DECLARE_FINAL_TYPE (OwMcpProvider, ow_mcp_provider, OW, MCP_PROVIDER, GObject)

/* A provider for @client's tools (the client is referenced). Its items
 * follow the client's tools-changed signal from then on; a client that is
 * not ready yet has none. */
OwMcpProvider *ow_mcp_provider_new        (OwMcpClient   *client);
OwMcpClient   *ow_mcp_provider_get_client (OwMcpProvider *self);

/* The server-side name of @full_name (`mcp__srv__tool`), or NULL when
 * the provider has no such tool. (transfer none) */
const char    *ow_mcp_provider_server_tool_name (OwMcpProvider *self,
                                                 const char    *full_name);

/* The servers a session in @workspace uses, with @roots (NULL-terminated
 * folder paths) offered through roots/list:
 *  - @file given: that file's servers only (`openworker run --mcp-config`);
 *  - else, with @paths: the machine's mcp.json (config folder) and, only
 *    when the person trusts @workspace, its .openworker/mcp.json (the
 *    machine's entries win); an untrusted workspace's file is never read;
 *  - neither (an isolated run): none.
 * (transfer full) element type OwMcpServerConfig; NULL with a sentence
 * naming the file when a file cannot be read or is not mcp.json. */
GPtrArray     *ow_mcp_configs_for_session (const OwPaths      *paths,
                                           const char         *workspace,
                                           const char         *file,
                                           const char *const  *roots,
                                           GError            **error);

/* The configured servers, started together: a provider per enabled entry
 * of @configs that started (ready) or waits for a sign-in, in the configs'
 * order (with @oauth, HTTP servers sign in through it: mcp/ow-mcp-auth.h),
 * and a line per
 * entry that could not be used or failed to start in @problems (each names
 * the server and says why). Runs the thread-default main context until
 * every start has finished (each bounded by its own start timeout). */
GPtrArray     *ow_mcp_start_servers       (GPtrArray     *configs,
                                           OwOAuth       *oauth,
                                           GPtrArray     *problems);

G_END_DECLS
