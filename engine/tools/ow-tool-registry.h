/* ow-tool-registry.h: the tools offered to the model in one session.
 *
 * The built-in set is assembled per coworker from capability groups (the
 * original's catalog: files, code_files, git, search, shell, todo) plus the
 * interaction tools; a run may leave out the web tools. The registry keeps
 * them in offer order and hands the model their function schemas.
 */
#pragma once

#include "tools/ow-tool.h"

G_BEGIN_DECLS

#define OW_TYPE_TOOL_REGISTRY (ow_tool_registry_get_type ())
G_DECLARE_FINAL_TYPE (OwToolRegistry, ow_tool_registry, OW, TOOL_REGISTRY, GObject)

OwToolRegistry *ow_tool_registry_new             (void);
void            ow_tool_registry_add             (OwToolRegistry *self, OwTool *tool);
OwTool         *ow_tool_registry_lookup          (OwToolRegistry *self, const char *name);
guint           ow_tool_registry_get_n_tools     (OwToolRegistry *self);
OwTool         *ow_tool_registry_get_tool        (OwToolRegistry *self, guint index);
/* The function schemas, in offer order (a new array of references). */
JsonArray      *ow_tool_registry_dup_definitions (OwToolRegistry *self);

/* Adds the built-in tools of the capability groups in @groups
 * ("files", "code_files", "git", "search", "shell", "todo", "interaction").
 * Unknown group names fail. */
gboolean        ow_tool_registry_add_builtins    (OwToolRegistry     *self,
                                                  const char *const  *groups,
                                                  GError            **error);

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
