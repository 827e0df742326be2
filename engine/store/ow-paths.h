/* ow-paths.h: where OpenWorker keeps things on this machine.
 *
 * Three folders (ARCHITECTURE §7): config (config.toml, model_config.json),
 * state (openworker.db, audit.db, run records) and runtime (tokens,
 * sockets). OPENWORKER_HOME=DIR puts all three under DIR/config, DIR/data
 * and DIR/runtime; otherwise the XDG base directories are used.
 *
 * Beside them, the scratch base: where a session without a folder of its
 * own gets one (<base>/<session-id>), a place for the person's files and
 * so never inside OpenWorker's own folders, which the safety checks guard.
 * OPENWORKER_SCRATCH_BASE, else DIR/scratch under OPENWORKER_HOME, else
 * ~/OpenWorker (config.toml's scratch_dir overrides it; see OwContext).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *config_dir;   /* $XDG_CONFIG_HOME/openworker */
  char *state_dir;    /* $XDG_DATA_HOME/openworker */
  char *runtime_dir;  /* $XDG_RUNTIME_DIR/openworker (falls back to the state folder when unset) */
  char *scratch_dir;  /* ~/OpenWorker */
} OwPaths;

/* Resolves the folders from the process environment. Creates nothing. */
OwPaths *ow_paths_new_default (void);
/* All four under @root (for --isolated runs and tests). */
OwPaths *ow_paths_new_under   (const char *root);
OwPaths *ow_paths_copy        (const OwPaths *paths);
void     ow_paths_free        (OwPaths *paths);

/* The folders a person trusts (state folder's workspace_trust.json):
 * their commands (.openworker/commands) and MCP servers
 * (.openworker/mcp.json) may run. (transfer full) element type char*;
 * empty when the file is missing or unreadable. */
GPtrArray *ow_paths_load_trusted_workspaces (const OwPaths *paths);
gboolean   ow_paths_workspace_trusted       (const OwPaths *paths, const char *workspace);

/* Creates @path and its parents with mode 0700. */
gboolean ow_paths_ensure_dir  (const char *path, GError **error);

/* Writes @contents to @path atomically (temp file in the same folder,
 * fsync, rename) with @mode. */
gboolean ow_write_file_atomic (const char *path, const char *contents, gssize len, int mode, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwPaths, ow_paths_free)

G_END_DECLS
