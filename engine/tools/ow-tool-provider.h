/* ow-tool-provider.h: a source of tools.
 *
 * An OwToolProvider is a GListModel whose items are OwTools: the built-in
 * tools, one MCP server's tools, one connected account's tools, later the
 * team board. Everything the model may call comes from a provider, and a
 * session's OwToolRegistry is the live aggregate of its providers.
 *
 * A change of tools is the model's items-changed signal, nothing else: a
 * provider that learns of new tools (an MCP server's
 * notifications/tools/list_changed, a connector that was reconnected)
 * changes its items, and the registry offers the new set at the next model
 * call. Emit items-changed on the main context the session runs on.
 *
 * The contract, for whoever writes one:
 *  - items are OwTool (g_list_model_get_item_type() is OW_TYPE_TOOL), and
 *    each tool's ow_tool_get_source() is the provider's source;
 *  - names are unique within a provider; across providers the registry
 *    keeps the first in its order (source, then name) and hides the rest;
 *  - a tool's name, schema and risk do not change while it is an item: a
 *    changed tool is removed and added again (one items-changed);
 *  - a provider need not know about sessions, policy or people: the
 *    policy pipeline treats every tool alike, by its risk class.
 */
#pragma once

#include "tools/ow-tool.h"

G_BEGIN_DECLS

#define OW_TYPE_TOOL_PROVIDER (ow_tool_provider_get_type ())
G_DECLARE_INTERFACE (OwToolProvider, ow_tool_provider, OW, TOOL_PROVIDER, GListModel)

struct _OwToolProviderInterface
{
  GTypeInterface parent_iface;

  const char *(*get_source)     (OwToolProvider *self);
  /* optional */
  char       *(*refused_reason) (OwToolProvider *self, const char *name);
};

/**
 * ow_tool_provider_get_source:
 * @self: a provider
 *
 * Where the provider's tools come from: "builtin", "mcp:<server>" or
 * "connector:<id>". Stable for the provider's lifetime; the registry
 * orders providers by it.
 *
 * Returns: (transfer none): the source
 */
const char *ow_tool_provider_get_source (OwToolProvider *self);

/**
 * ow_tool_provider_lookup:
 * @self: a provider
 * @name: a tool name
 *
 * Returns: (transfer full) (nullable): the provider's tool named @name
 */
OwTool     *ow_tool_provider_lookup     (OwToolProvider *self,
                                         const char     *name);

/**
 * ow_tool_provider_refused_reason:
 * @self: a provider
 * @name: a tool name that is not an item
 *
 * Why a tool of this provider that a person's configuration denies is not
 * offered (so a model that guesses its name is told, not just "unknown").
 *
 * Returns: (transfer full) (nullable): the sentence, or NULL
 */
char       *ow_tool_provider_refused_reason (OwToolProvider *self,
                                             const char     *name);

G_END_DECLS
