/* ow-executor.h: where the shell and file tools run.
 *
 * The seam the sandbox plugs into. The direct executor runs the libc tool
 * bodies (tools/body/) in this process on worker threads; a sandbox
 * executor (engine/sandbox, later) sends the same calls to
 * openworker-tool-runner behind a wall. The engine does not care which: it
 * hands over a tool name and the argument text and gets a result back,
 * together with the enforcement level to record.
 */
#pragma once

#include <gio/gio.h>

#include "tools/ow-tool.h"
#include "ow-session-marker.h"
#include "tools/body/ow-tb.h"

G_BEGIN_DECLS

/* A folder the tools may use. */
typedef struct {
  char    *path;      /* absolute, canonical */
  gboolean writable;
  char    *label;     /* "workspace", "added", "tool-output", … */
} OwRoot;

OwRoot *ow_root_new  (const char *path, gboolean writable, const char *label);
void    ow_root_free (OwRoot *root);
/* A deep copy of a list of OwRoot* (NULL gives an empty list). */
GPtrArray *ow_roots_copy  (GPtrArray *roots);
/* Same folders, in the same order, with the same access. */
gboolean   ow_roots_equal (GPtrArray *a, GPtrArray *b);

#define OW_TYPE_EXECUTOR (ow_executor_get_type ())
G_DECLARE_INTERFACE (OwExecutor, ow_executor, OW, EXECUTOR, GObject)

struct _OwExecutorInterface
{
  GTypeInterface parent_iface;

  /* Replaces the folders (OwRoot*, primary first). */
  void          (*set_roots)       (OwExecutor *self, GPtrArray *roots);
  /* Whether @tool runs here. */
  gboolean      (*handles)         (OwExecutor *self, const char *tool);
  void          (*execute_async)   (OwExecutor         *self,
                                    const char         *tool,
                                    const char         *args_text,
                                    GCancellable       *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer            user_data);
  OwToolResult *(*execute_finish)  (OwExecutor    *self,
                                    GAsyncResult  *result,
                                    GError       **error);
  /* What protects the machine from these calls, for the audit trail:
   * "none (direct)", "linux sandbox", … */
  const char   *(*get_enforcement) (OwExecutor *self);
  /* Optional: the next calls run without the command guard while @off
   * (a person approved a safety check for this call, or the mode is
   * dangerously-bypass-approvals). Walls do not implement it: a wall is
   * never lifted. */
  void          (*set_guard_off)   (OwExecutor *self, gboolean off);
};

void          ow_executor_set_roots       (OwExecutor *self, GPtrArray *roots);
gboolean      ow_executor_handles         (OwExecutor *self, const char *tool);
void          ow_executor_execute_async   (OwExecutor         *self,
                                           const char         *tool,
                                           const char         *args_text,
                                           GCancellable       *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer            user_data);
OwToolResult *ow_executor_execute_finish  (OwExecutor *self, GAsyncResult *result, GError **error);
const char   *ow_executor_get_enforcement (OwExecutor *self);
void          ow_executor_set_guard_off   (OwExecutor *self, gboolean off);

/* The in-process executor. @cwd is where the shell starts; the shell's
 * environment is the allow-listed part of this process's
 * (ow_tool_environment()). */
#define OW_TYPE_EXECUTOR_DIRECT (ow_executor_direct_get_type ())
G_DECLARE_FINAL_TYPE (OwExecutorDirect, ow_executor_direct, OW, EXECUTOR_DIRECT, GObject)

OwExecutor   *ow_executor_direct_new      (const char *cwd);

/* The command guard (ARCHITECTURE §9): every shell command of a direct
 * executor runs inside it when the platform registered one and the
 * kernel offers what it needs. */
typedef struct {
  const char *const *hidden;          /* folders and files commands must not see */
  const char *const *protected_names; /* read-only inside writable folders */
  const char        *cache_dir;       /* the tool cache that lasts across sessions, or NULL */
  const char *const *readonly;        /* more paths kept read-only (write floors), or NULL */
} OwGuardOptions;

/* Called once by the platform layer (ow_sandbox_linux_register). */
void          ow_executor_set_guard_impl  (const OwTbGuardImpl *impl);
/* TRUE with a description ("guard (…)") when commands can be guarded
 * here; FALSE with the reason a person can act on. */
gboolean      ow_executor_guard_status    (char **text);
/* Guards this executor's commands (from now on; the shell restarts). */
void          ow_executor_direct_set_guard (OwExecutorDirect *self, const OwGuardOptions *options);
/* Runs commands without the guard while @off (dangerously-bypass-approvals). */
void          ow_executor_direct_set_guard_off (OwExecutorDirect *self, gboolean off);

/* The environment tools get: only the allow-listed variables of @envp
 * (NULL = this process's), see ow_secret_env_filter(). A list rather than
 * a filter on names: DATABASE_URL, GH_PAT or a *_PASS hold secrets no name
 * rule recognises. */
char        **ow_tool_environment         (const char *const *envp);

G_END_DECLS
