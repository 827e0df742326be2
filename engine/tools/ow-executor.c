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

#include "ow-files.h"
#include "ow-json.h"
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

void
ow_executor_set_guard_off (OwExecutor *self, gboolean off)
{
  OwExecutorInterface *iface = OW_EXECUTOR_GET_IFACE (self);

  if (iface->set_guard_off != NULL)
    iface->set_guard_off (self, off);
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

  /* The command guard (NULL options: not asked for). */
  gboolean   guarded;     /* ow_executor_direct_set_guard was called */
  gboolean   guard_off;   /* dangerously-bypass-approvals: commands run unguarded */
  char     **hidden;      /* OwGuardOptions, copied */
  char     **protected_names;
  char     **readonly;
  char      *cache_dir;
  char      *tmp_dir;     /* the private /tmp's host folder (owned; removed at the end) */
  char      *enforcement; /* what get_enforcement says (owned) */
  void      *guard;       /* the shell's guard (borrowed: the shell owns it), or NULL */
};

static const OwTbGuardImpl *guard_impl;

static void executor_iface_init (OwExecutorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwExecutorDirect, ow_executor_direct, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_EXECUTOR, executor_iface_init))

typedef struct {
  char  *tool;
  char  *args;
  char **guarded_roots;   /* the writable roots when the command runs in the guard, else NULL */
} Call;

static void
call_free (Call *call)
{
  g_free (call->tool);
  g_free (call->args);
  g_strfreev (call->guarded_roots);
  g_free (call);
}

/* Builds the guard for the current roots and hands it to the shell. When
 * the guard cannot be built, commands run without it and every surface
 * says so (get_enforcement), never silently. */
static void
rebuild_guard (OwExecutorDirect *self, const char *why)
{
  g_autoptr(GPtrArray) writable = g_ptr_array_new ();
  g_autofree char *reason = NULL;
  char err[512] = "";
  void *guard = NULL;

  g_clear_pointer (&self->enforcement, g_free);
  self->guard = NULL;
  if (self->guard_off)
    {
      ow_tb_shell_set_guard (self->shell, NULL, NULL, NULL, "the guard was switched off "
                             "(dangerously-bypass-approvals)");
      self->enforcement = g_strdup ("none (direct; the command guard is lifted for this call: a person approved a safety check, or the mode is dangerously-bypass-approvals)");
      return;
    }
  if (!ow_executor_guard_status (&reason))
    {
      self->enforcement = g_strdup_printf ("parser only (direct; the command guard is unavailable: %s)",
                                           reason);
      return;
    }
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (self->roots, i);
      if (r->writable)
        g_ptr_array_add (writable, g_strdup (r->path));
    }
  g_mutex_unlock (&self->lock);
  g_ptr_array_set_free_func (writable, g_free);
  g_ptr_array_add (writable, NULL);
  if (self->tmp_dir == NULL)
    self->tmp_dir = g_dir_make_tmp ("openworker-tmp-XXXXXX", NULL);
  {
    OwTbGuardSpec spec = {
      .writable = (const char *const *) writable->pdata,
      .hidden = (const char *const *) self->hidden,
      .protected_names = (const char *const *) self->protected_names,
      .tmp_dir = self->tmp_dir,
      .cache_dir = self->cache_dir,
      .readonly = (const char *const *) self->readonly,
    };
    guard = guard_impl->create (&spec, err, sizeof err);
  }
  if (guard == NULL)
    {
      self->enforcement = g_strdup_printf ("parser only (direct; the command guard could not be built: %s)",
                                           err);
      return;
    }
  {
    const char *set[] = { "TMPDIR=/tmp", NULL };
    ow_tb_shell_setenv (self->shell, set);
  }
  ow_tb_shell_set_guard (self->shell, guard_impl->enter, guard, guard_impl->destroy, why);
  self->guard = guard;
  self->enforcement = g_strdup_printf ("direct, %s", guard_impl->describe ());
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
  if (self->guarded)
    rebuild_guard (self, "the session's folders changed, so the shell was restarted inside a guard for "
                         "the new folders");
}

static gboolean
direct_handles (OwExecutor *executor, const char *tool)
{
  return ow_tb_is_known (tool);
}

/* The paths a command was refused, read from what programs print when the
 * kernel says no ("cp: cannot create regular file '/x': Permission denied",
 * "PermissionError: [Errno 13] Permission denied: '/x'"). Landlock tells
 * the process, not us, so the output is where the refusal shows. */
static GPtrArray *
refused_paths (const char *output)
{
  static gsize once;
  static GRegex *forms[3];
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);

  if (g_once_init_enter (&once))
    {
      forms[0] = g_regex_new ("(/[^\\s'\"\u2018\u2019:]+)['\"\u2019]?: (?:Permission denied|Read-only file system)",
                              G_REGEX_OPTIMIZE, 0, NULL);
      forms[1] = g_regex_new ("\\[Errno (?:1|13|30)\\] [^:\\n]+: '(/[^'\\n]+)'", G_REGEX_OPTIMIZE, 0, NULL);
      /* Node's form: "EACCES: permission denied, open '/x'". */
      forms[2] = g_regex_new ("E(?:ACCES|ROFS|PERM): [^,\\n]+, \\w+ '(/[^'\\n]+)'", G_REGEX_OPTIMIZE, 0, NULL);
      g_once_init_leave (&once, 1);
    }
  for (guint f = 0; f < G_N_ELEMENTS (forms) && paths->len < 5; f++)
    {
      g_autoptr(GMatchInfo) m = NULL;

      if (forms[f] == NULL)
        continue;
      for (g_regex_match (forms[f], output, 0, &m); g_match_info_matches (m) && paths->len < 5;
           g_match_info_next (m, NULL))
        {
          g_autofree char *path = g_match_info_fetch (m, 1);
          gboolean seen = FALSE;

          for (guint i = 0; i < paths->len && !seen; i++)
            seen = g_str_equal (g_ptr_array_index (paths, i), path);
          if (!seen)
            g_ptr_array_add (paths, g_steal_pointer (&path));
        }
    }
  return paths;
}

/* Tells the agent which paths the guard refused and what to do about it,
 * the way the sandbox reports blocked hosts. */
static char *
add_guard_note (const char *result, char *const *roots)
{
  g_autoptr(JsonObject) obj = ow_json_object_from_string (result, -1, NULL);
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(GString) note = NULL;
  const char *output;

  if (obj == NULL || (output = ow_json_get_string (obj, "output")) == NULL)
    return NULL;
  paths = refused_paths (output);
  if (paths->len == 0)
    return NULL;
  note = g_string_new (NULL);
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      gboolean inside = FALSE;

      for (guint r = 0; roots[r] != NULL && !inside; r++)
        inside = g_str_equal (roots[r], "/") || g_str_equal (path, roots[r])
                 || (g_str_has_prefix (path, roots[r]) && path[strlen (roots[r])] == '/');
      if (inside)
        g_string_append_printf (note, "%s is protected (git hooks and settings, CI files, the agent's and the "
                                "shell's settings stay read-only); a person has to approve changing it. ", path);
      else
        g_string_append_printf (note, "%s is outside the session's folders, so the command guard kept this "
                                "command from writing there. ", path);
    }
  g_string_append (note, "If the task needs a folder outside, ask the person for it with request_directory; do "
                         "not try to get around the guard.");
  json_object_set_string_member (obj, "guard_note", note->str);
  return ow_json_object_to_string (obj);
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
  if (call->guarded_roots != NULL && g_str_equal (call->tool, "run_shell"))
    {
      g_autofree char *noted = add_guard_note (out.data, call->guarded_roots);

      if (noted != NULL)
        {
          g_task_return_pointer (task, ow_tool_result_new (st, noted), (GDestroyNotify) ow_tool_result_free);
          ow_tb_buf_free (&out);
          return;
        }
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
  {
    OwExecutorDirect *self = OW_EXECUTOR_DIRECT (executor);

    /* On the main thread, where the guard is changed. */
    if (self->guard != NULL && guard_impl->stale (self->guard))
      rebuild_guard (self, "a protected file was replaced from outside the session, so the shell was "
                           "restarted inside a new guard");
    if (self->guard != NULL)
      {
        GPtrArray *roots = g_ptr_array_new ();

        g_mutex_lock (&self->lock);
        for (guint i = 0; i < self->roots->len; i++)
          {
            OwRoot *r = g_ptr_array_index (self->roots, i);
            if (r->writable)
              g_ptr_array_add (roots, g_strdup (r->path));
          }
        g_mutex_unlock (&self->lock);
        g_ptr_array_add (roots, NULL);
        call->guarded_roots = (char **) g_ptr_array_free (roots, FALSE);
      }
  }
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
  OwExecutorDirect *self = OW_EXECUTOR_DIRECT (executor);

  return self->enforcement != NULL ? self->enforcement : "none (direct)";
}

static void
executor_iface_init (OwExecutorInterface *iface)
{
  iface->set_roots = direct_set_roots;
  iface->handles = direct_handles;
  iface->execute_async = direct_execute_async;
  iface->execute_finish = direct_execute_finish;
  iface->get_enforcement = direct_get_enforcement;
  iface->set_guard_off = (void (*) (OwExecutor *, gboolean)) ow_executor_direct_set_guard_off;
}

static void
ow_executor_direct_finalize (GObject *object)
{
  OwExecutorDirect *self = OW_EXECUTOR_DIRECT (object);

  g_clear_pointer (&self->shell, ow_tb_shell_free);
  g_ptr_array_unref (self->roots);
  g_strfreev (self->envp);
  g_strfreev (self->hidden);
  g_strfreev (self->protected_names);
  g_strfreev (self->readonly);
  g_free (self->cache_dir);
  g_free (self->enforcement);
  if (self->tmp_dir != NULL)
    {
      g_autoptr(GError) error = NULL;
      if (!ow_remove_tree (self->tmp_dir, &error))
        g_debug ("the private /tmp %s stays: %s", self->tmp_dir, error->message);
      g_free (self->tmp_dir);
    }
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
  {
    /* Every command carries the marker, so the CLI's authority verbs can
     * refuse a caller that is a session's own command. */
    const char *set[] = { OW_SESSION_COMMAND_ENV "=1", NULL };
    ow_tb_shell_setenv (self->shell, set);
  }
  return OW_EXECUTOR (self);
}

void
ow_executor_set_guard_impl (const OwTbGuardImpl *impl)
{
  guard_impl = impl;
}

gboolean
ow_executor_guard_status (char **text)
{
  char why[512] = "";

  if (guard_impl == NULL)
    {
      if (text != NULL)
        *text = g_strdup ("this build has no command guard for this operating system");
      return FALSE;
    }
  if (!guard_impl->available (why, sizeof why))
    {
      if (text != NULL)
        *text = g_strdup (why);
      return FALSE;
    }
  if (text != NULL)
    *text = g_strdup (guard_impl->describe ());
  return TRUE;
}

void
ow_executor_direct_set_guard (OwExecutorDirect *self, const OwGuardOptions *options)
{
  g_return_if_fail (OW_IS_EXECUTOR_DIRECT (self));

  self->guarded = TRUE;
  g_strfreev (self->hidden);
  g_strfreev (self->protected_names);
  g_free (self->cache_dir);
  self->hidden = g_strdupv ((char **) options->hidden);
  self->protected_names = g_strdupv ((char **) options->protected_names);
  g_strfreev (self->readonly);
  self->readonly = g_strdupv ((char **) options->readonly);
  self->cache_dir = g_strdup (options->cache_dir);
  if (self->cache_dir != NULL)
    {
      /* The package managers' caches, pointed at the one folder the guard
       * keeps writable across sessions. */
      static const struct { const char *name, *sub; } caches[] = {
        { "npm_config_cache", "npm" }, { "PIP_CACHE_DIR", "pip" }, { "UV_CACHE_DIR", "uv" },
        { "GOCACHE", "go-build" }, { "GOMODCACHE", "go-mod" }, { "YARN_CACHE_FOLDER", "yarn" },
        { "CARGO_HOME", "cargo" }, { "XDG_CACHE_HOME", "xdg" },
      };
      g_autoptr(GPtrArray) set = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < G_N_ELEMENTS (caches); i++)
        g_ptr_array_add (set, g_strdup_printf ("%s=%s/%s", caches[i].name, self->cache_dir, caches[i].sub));
      g_ptr_array_add (set, NULL);
      ow_tb_shell_setenv (self->shell, (const char *const *) set->pdata);
    }
  rebuild_guard (self, "the shell was restarted inside the command guard");
}

void
ow_executor_direct_set_guard_off (OwExecutorDirect *self, gboolean off)
{
  g_return_if_fail (OW_IS_EXECUTOR_DIRECT (self));

  if (self->guard_off == !!off)
    return;
  self->guard_off = !!off;
  if (self->guarded)
    rebuild_guard (self, off ? "the guard was switched off" : "the shell was restarted inside the command guard");
}
