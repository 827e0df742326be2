/* ow-builtin-tools.h: the tools OpenWorker brings, as one OwToolProvider.
 *
 * The built-in set is assembled per coworker from capability groups (the
 * original's catalog: files, code_files, git, search, shell, todo,
 * interaction, network), plus the web tools when the session offers them.
 * Its source is "builtin".
 */
#pragma once

#include "tools/ow-tool-provider.h"

G_BEGIN_DECLS

typedef struct _OwWebAccess OwWebAccess;

#define OW_TYPE_BUILTIN_TOOLS (ow_builtin_tools_get_type ())
G_DECLARE_FINAL_TYPE (OwBuiltinTools, ow_builtin_tools, OW, BUILTIN_TOOLS, GObject)

/* What one session's built-in tools are made of. */
typedef struct {
  const char *const *groups;  /* capability groups, or NULL for none */
  OwWebAccess       *web;     /* web_search and web_fetch through this, or NULL: no web tools */
  gboolean           network; /* request_network_access (the session has a sandbox allow list) */
} OwBuiltinToolsOptions;

/* An empty provider. */
OwBuiltinTools *ow_builtin_tools_new             (void);
/* The provider for one session. Unknown group names fail. */
OwBuiltinTools *ow_builtin_tools_new_for_session (const OwBuiltinToolsOptions *options,
                                                  GError                     **error);
/* Adds the tools of the capability groups in @groups ("files",
 * "code_files", "git", "search", "shell", "todo", "interaction",
 * "network"); a tool already there is not added twice. Unknown group
 * names fail. */
gboolean        ow_builtin_tools_add_groups      (OwBuiltinTools     *self,
                                                  const char *const  *groups,
                                                  GError            **error);
/* Adds @tool (its name must be new here). */
void            ow_builtin_tools_add             (OwBuiltinTools *self,
                                                  OwTool         *tool);

G_END_DECLS
