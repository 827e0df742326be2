/* ow-tool-registry.h: the tools offered to the model in one session.
 *
 * A registry is the live aggregate of the session's tool providers (the
 * built-ins, each MCP server, each connected account): a GListModel of
 * OwTool, ordered by source, then name, that follows its providers'
 * items-changed. The agent reads it at every model call, so a tool a
 * provider adds or removes is offered, or gone, from the next call on.
 */
#pragma once

#include "tools/ow-tool-provider.h"

G_BEGIN_DECLS

#define OW_TYPE_TOOL_REGISTRY (ow_tool_registry_get_type ())
G_DECLARE_FINAL_TYPE (OwToolRegistry, ow_tool_registry, OW, TOOL_REGISTRY, GObject)

OwToolRegistry *ow_tool_registry_new             (void);
/* Adds @provider (once); its tools join the view at once. */
void            ow_tool_registry_add_provider    (OwToolRegistry *self,
                                                  OwToolProvider *provider);
void            ow_tool_registry_remove_provider (OwToolRegistry *self,
                                                  OwToolProvider *provider);
/* The tool offered under @name, or NULL. Borrowed: valid until the
 * registry changes (take a reference to keep it across a main-loop turn). */
OwTool         *ow_tool_registry_lookup          (OwToolRegistry *self, const char *name);
/* Why @name, which is not offered, is refused by a person's configuration
 * (a provider's refused_reason), or NULL. (transfer full) */
char           *ow_tool_registry_refused_reason  (OwToolRegistry *self, const char *name);
guint           ow_tool_registry_get_n_tools     (OwToolRegistry *self);
/* Borrowed, as ow_tool_registry_lookup(). */
OwTool         *ow_tool_registry_get_tool        (OwToolRegistry *self, guint index);
/* The function schemas, in offer order (a new array of references). */
JsonArray      *ow_tool_registry_dup_definitions (OwToolRegistry *self);

/* Deferral (ow-tool-search.h): past @bytes of definitions from sources
 * other than the built-ins, those tools are named in one tool_search tool
 * instead of sent in full, until tool_search loads them. 0 (the default):
 * every definition in full. */
void            ow_tool_registry_set_definition_budget (OwToolRegistry *self, gsize bytes);
/* The tools whose definitions are held back now. (transfer full) */
GPtrArray      *ow_tool_registry_dup_deferred    (OwToolRegistry *self);
/* Sends @name's definition in full from the next model call on. */
void            ow_tool_registry_load_deferred   (OwToolRegistry *self, const char *name);

/* Bounds a tool result for the model: when @text is longer than @max_bytes
 * (0 = unbounded) the full text is written to @spill_dir/<call_id>.txt and
 * the result becomes its head plus a note naming that file. Returns the
 * text to send (newly allocated). @spilled_path receives the file, or NULL. */
char           *ow_tool_result_bound             (const char  *text,
                                                  gsize        max_bytes,
                                                  const char  *spill_dir,
                                                  const char  *call_id,
                                                  char       **spilled_path,
                                                  GError     **error);

G_END_DECLS
