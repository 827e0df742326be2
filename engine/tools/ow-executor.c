/* ow-executor.c: the OwExecutor interface and the direct executor.
 *
 * The direct executor runs tool bodies on GIO's worker threads, one call
 * per GTask. Cancellation reaches the body through the GCancellable's file
 * descriptor, which the body polls next to its child's pipes, so a stop
 * interrupts a running command within milliseconds without the main loop
 * ever blocking.
 */
#define G_LOG_DOMAIN "ow-executor"

#include "tools/ow-executor.h"

#include <string.h>

#include "ow-redact.h"
#include "ow-secret-env.h"
#include "tools/body/ow-tb.h"

G_DEFINE_INTERFACE (OwExecutor, ow_executor, G_TYPE_OBJECT)

static void
ow_executor_default_init (OwExecutorInterface *iface)
{
}

OwRoot *
ow_root_new (const char *path, gboolean writable, const char *label)
{
  OwRoot *r = g_new0 (OwRoot, 1);

  r->path = g_strdup (path);
  r->writable = writable;
  r->label = g_strdup (label);
  return r;
}

void
ow_root_free (OwRoot *root)
{
  if (root == NULL)
    return;
  g_free (root->path);
  g_free (root->label);
  g_free (root);
}

GPtrArray *
ow_roots_copy (GPtrArray *roots)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);

  for (guint i = 0; roots != NULL && i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      g_ptr_array_add (out, ow_root_new (r->path, r->writable, r->label));
    }
  return out;
}

gboolean
ow_roots_equal (GPtrArray *a, GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      OwRoot *x = g_ptr_array_index (a, i), *y = g_ptr_array_index (b, i);
      if (!g_str_equal (x->path, y->path) || x->writable != y->writable)
        return FALSE;
    }
  return TRUE;
}

void
ow_executor_set_roots (OwExecutor *self, GPtrArray *roots)
{
  OW_EXECUTOR_GET_IFACE (self)->set_roots (self, roots);
}

gboolean
ow_executor_handles (OwExecutor *self, const char *tool)
{
  return OW_EXECUTOR_GET_IFACE (self)->handles (self, tool);
}

void
ow_executor_execute_async (OwExecutor         *self,
                           const char         *tool,
                           const char         *args_text,
                           GCancellable       *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer            user_data)
{
  OW_EXECUTOR_GET_IFACE (self)->execute_async (self, tool, args_text, cancellable, callback, user_data);
}

OwToolResult *
ow_executor_execute_finish (OwExecutor *self, GAsyncResult *result, GError **error)
{
  return OW_EXECUTOR_GET_IFACE (self)->execute_finish (self, result, error);
}

const char *
ow_executor_get_enforcement (OwExecutor *self)
{
  return OW_EXECUTOR_GET_IFACE (self)->get_enforcement (self);
}

char **
ow_tool_environment (const char *const *envp)
{
  return ow_secret_env_filter (envp);
}

/* ---- The direct executor ------------------------------------------------ */

struct _OwExecutorDirect
{
  GObject    parent_instance;

  GMutex     lock;        /* guards roots (set on the main thread, read by workers) */
  GPtrArray *roots;       /* OwRoot* (owned copies) */
  OwTbShell *shell;       /* the session's persistent shell (owned) */
  char     **envp;        /* the shell's environment (owned) */
};

static void executor_iface_init (OwExecutorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwExecutorDirect, ow_executor_direct, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_EXECUTOR, executor_iface_init))

typedef struct {
  char *tool;
  char *args;
} Call;

static void
call_free (Call *call)
{
  g_free (call->tool);
  g_free (call->args);
  g_free (call);
}

static void
direct_set_roots (OwExecutor *executor, GPtrArray *roots)
{
  OwExecutorDirect *self = OW_EXECUTOR_DIRECT (executor);
  GPtrArray *copy = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);

  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      g_ptr_array_add (copy, ow_root_new (r->path, r->writable, r->label));
    }
  g_mutex_lock (&self->lock);
  g_ptr_array_unref (self->roots);
  self->roots = copy;
  g_mutex_unlock (&self->lock);
}

static gboolean
direct_handles (OwExecutor *executor, const char *tool)
{
  return ow_tb_is_known (tool);
}

static void
run_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  OwExecutorDirect *self = source;
  Call *call = task_data;
  g_autoptr(GPtrArray) roots = NULL;
  g_autofree OwTbRoot *tb_roots = NULL;
  OwTbBuf out;
  OwTbEnv env;
  OwTbStatus status;
  OwToolStatus st;

  /* Take a reference to the current roots so a concurrent change cannot
   * free them under the call. */
  g_mutex_lock (&self->lock);
  roots = g_ptr_array_ref (self->roots);
  g_mutex_unlock (&self->lock);

  tb_roots = g_new0 (OwTbRoot, MAX (roots->len, 1));
  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      tb_roots[i].path = r->path;
      tb_roots[i].writable = r->writable;
    }
  env.roots = tb_roots;
  env.n_roots = roots->len;
  env.shell = self->shell;
  env.cancel_fd = cancellable != NULL ? g_cancellable_get_fd (cancellable) : -1;

  ow_tb_buf_init (&out);
  status = ow_tb_call (&env, call->tool, call->args, strlen (call->args), &out);
  if (cancellable != NULL)
    g_cancellable_release_fd (cancellable);

  switch (status)
    {
    case OW_TB_OK: st = OW_TOOL_STATUS_OK; break;
    case OW_TB_INTERRUPTED: st = OW_TOOL_STATUS_INTERRUPTED; break;
    default: st = OW_TOOL_STATUS_ERROR; break;
    }
  g_task_return_pointer (task, ow_tool_result_new (st, out.data), (GDestroyNotify) ow_tool_result_free);
  ow_tb_buf_free (&out);
}

static void
direct_execute_async (OwExecutor         *executor,
                      const char         *tool,
                      const char         *args_text,
                      GCancellable       *cancellable,
                      GAsyncReadyCallback callback,
                      gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (executor, cancellable, callback, user_data);
  Call *call = g_new0 (Call, 1);

  call->tool = g_strdup (tool);
  call->args = g_strdup (args_text);
  g_task_set_source_tag (task, direct_execute_async);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  /* The body itself watches the cancellable; a task cancelled before it
   * starts still runs the body, which then returns "interrupted" at once. */
  g_task_set_check_cancellable (task, FALSE);
  g_task_run_in_thread (task, run_in_thread);
}

static OwToolResult *
direct_execute_finish (OwExecutor *executor, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
direct_get_enforcement (OwExecutor *executor)
{
  return "none (direct)";
}

static void
executor_iface_init (OwExecutorInterface *iface)
{
  iface->set_roots = direct_set_roots;
  iface->handles = direct_handles;
  iface->execute_async = direct_execute_async;
  iface->execute_finish = direct_execute_finish;
  iface->get_enforcement = direct_get_enforcement;
}

static void
ow_executor_direct_finalize (GObject *object)
{
  OwExecutorDirect *self = OW_EXECUTOR_DIRECT (object);

  g_clear_pointer (&self->shell, ow_tb_shell_free);
  g_ptr_array_unref (self->roots);
  g_strfreev (self->envp);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ow_executor_direct_parent_class)->finalize (object);
}

static void
ow_executor_direct_class_init (OwExecutorDirectClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_executor_direct_finalize;
}

static void
ow_executor_direct_init (OwExecutorDirect *self)
{
  g_mutex_init (&self->lock);
  self->roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
}

OwExecutor *
ow_executor_direct_new (const char *cwd)
{
  OwExecutorDirect *self = g_object_new (OW_TYPE_EXECUTOR_DIRECT, NULL);

  self->envp = ow_tool_environment (NULL);
  self->shell = ow_tb_shell_new (cwd, (const char *const *) self->envp);
  return OW_EXECUTOR (self);
}
