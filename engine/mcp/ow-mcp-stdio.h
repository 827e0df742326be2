/* ow-mcp-stdio.h: the stdio transport of the MCP client (private to engine/mcp).
 *
 * Starts a server's command in its own process group, with the PATH a
 * login shell would have and only the environment its entry names (see
 * ow_mcp_server_config_build_env), and speaks newline-delimited JSON-RPC
 * over its stdin and stdout. The last few KiB of its stderr are kept: that
 * is what a person needs to see when the server fails. When the process
 * ends, @closed runs once, after everything it wrote has been delivered.
 * Closing ends the whole process group: stdin is closed and SIGTERM sent,
 * then SIGKILL if it is still there after two seconds.
 */
#pragma once

#include <gio/gio.h>

#include "mcp/ow-mcp-config.h"

G_BEGIN_DECLS

typedef struct _OwMcpStdio OwMcpStdio;

typedef struct {
  void (*line)     (const char *line, gsize len, gpointer user_data);
  void (*oversize) (const char *prefix, gsize len, gpointer user_data);
  /* @reason: a sentence ("exited with status 1", "was killed by signal 9"). */
  void (*closed)   (const char *reason, gpointer user_data);
} OwMcpStdioCallbacks;

/* The PATH a login shell of this user has (`$SHELL -lc`), followed by this
 * process's own PATH entries; computed once per process and cached. A
 * .desktop-launched app gets a minimal PATH, and npx, uvx or ~/.local/bin
 * are not on it. */
void        ow_mcp_login_path_async  (GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data);
char       *ow_mcp_login_path_finish (GAsyncResult *result, GError **error);
/* For tests: forget the cached value, or fix it (NULL forgets). */
void        ow_mcp_login_path_set_for_testing (const char *path);

OwMcpStdio *ow_mcp_stdio_start       (const OwMcpServerConfig  *config,
                                      const char               *path,
                                      const OwMcpStdioCallbacks *callbacks,
                                      gpointer                  user_data,
                                      GError                  **error);
/* Queues one message; @line must hold no newline. */
void        ow_mcp_stdio_send        (OwMcpStdio *self, const char *line);
/* The process id (the group id too), 0 once it has ended. */
int         ow_mcp_stdio_get_pid     (OwMcpStdio *self);
/* The last lines the server wrote on stderr (at most 2 KiB), or "". */
char       *ow_mcp_stdio_dup_stderr_tail (OwMcpStdio *self);
/* Ends the process group and frees @self; no callback runs afterwards. */
void        ow_mcp_stdio_close       (OwMcpStdio *self);

G_END_DECLS
