/* ow-tool-search.h: deferred tool definitions behind `tool_search`.
 *
 * Two hundred MCP tools with their schemas would fill a fifth of a small
 * context window before the person says a word. Past a budget (the recipe
 * gives 5% of the window) the registry sends the built-ins in full and,
 * for the tools of other sources, one `tool_search` tool whose description
 * names each of them with one line. When the model calls tool_search, the
 * matching tools' full definitions come back as the result and those
 * tools are sent in full at every later call; a deferred tool the model
 * calls by name directly still runs (the policy decides as for any tool).
 *
 * The registry owns its search tool; see ow_tool_registry_set_definition_budget().
 */
#pragma once

#include "tools/ow-tool.h"

G_BEGIN_DECLS

#define OW_TOOL_SEARCH_NAME "tool_search"

typedef struct _OwToolRegistry OwToolRegistry;

/* The tool_search tool of @registry (weakly held). Its description is
 * built from the deferred tools at each dup_definitions. */
OwTool *ow_tool_search_new (OwToolRegistry *registry);

/* Replaces the tool's description with one naming @deferred (OwTool*). */
void    ow_tool_search_set_deferred (OwTool *search, GPtrArray *deferred);

G_END_DECLS
