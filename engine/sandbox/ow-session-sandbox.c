/* ow-session-sandbox.c: where one session's shell and file tools run (see
 * ow-session-sandbox.h).
 *
 * States: before start_finish the inner executor is NULL for a walled
 * session (calls fail: a walled session never runs open). A change of
 * folders marks the sandbox stale; the next call starts a new one with the
 * new folders (holding any calls that arrive meanwhile), drops the old one
 * and tells the model, in that call's result, that shell state was lost.
 */
#define G_LOG_DOMAIN "ow-session-sandbox"

#include "sandbox/ow-session-sandbox.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ow-error.h"
#include "ow-json.h"
#include "sandbox/ow-credentials.h"
#include "sandbox/ow-proxy.h"
#include "sandbox/ow-sandbox.h"
#include "tools/body/ow-tb.h"

#define SHELL_STATE_LOST \
  "The session's folders changed, so its sandbox was recreated before this call: the shell's working " \
  "directory, variables and background tasks from before are gone."
#define BLOCKED_NOTE \
  "The allow list refused these hosts while this ran. If the task needs one, ask the person to allow it " \
  "(once, for this session, or always); do not try to get around the list."

struct _OwSessionSandbox
{
  GObject           parent_instance;

  char             *provider;       /* "direct", "linux", … */
  gboolean          network_open;   /* sandbox_network_profile = "open" */
  char             *session_id;
  char             *cwd;
  char             *config_path;    /* the machine's config.toml, for "always" grants (NULL when isolated) */
  OwPaths          *paths;
  OwSiteList       *sites;
  OwAddressGuard   *guard;
  OwProxy          *proxy;          /* walled sessions only */
  char             *proxy_socket;   /* its Unix socket */
  GPtrArray        *credentials;    /* OwCredentialCopy* */
  GPtrArray        *skipped;        /* char*: credential entries not shared, with why */
  char            **toolchains;
  char             *runner_path;
  OwSandboxBackend *backend;        /* walled sessions only */

  OwExecutor       *inner;          /* where calls go, or NULL before start */
  GPtrArray        *roots;          /* OwRoot*: the folders now */
  gboolean          stale;          /* roots changed since the sandbox started */
  gboolean          restarting;     /* a new sandbox is being started for the new roots */
  GPtrArray        *held;           /* GTask*: calls waiting for the restart */
  gboolean          state_lost;     /* tell the next result that shell state was lost */
};

static void executor_iface_init (OwExecutorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSessionSandbox, ow_session_sandbox, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_EXECUTOR, executor_iface_init))

static gboolean
persist_site_cb (const char *entry, gpointer user_data, GError **error)
{
  const char *config_path = user_data;

  if (config_path == NULL)
    {
      g_set_error_literal (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                           "This run reads no machine config (--isolated), so nothing can be allowed always.");
      return FALSE;
    }
  return ow_config_file_add_to_list (config_path, "sandbox_network_hosts", entry, error);
}

/* The literal folder or file a path pattern of a floor names ("~/x/" and
 * any trailing stars → "$HOME/x"); NULL when a glob sits before the end (the kernel cannot
 * match a pattern; the parser still does). */
static char *
floor_path (const char *pattern, const char *workspace)
{
  g_autofree char *p = NULL;
  gsize n;

  if (g_str_has_prefix (pattern, "~/"))
    p = g_build_filename (g_get_home_dir (), pattern + 2, NULL);
  else if (g_path_is_absolute (pattern))
    p = g_strdup (pattern);
  else if (workspace != NULL)
    p = g_build_filename (workspace, pattern, NULL);
  else
    return NULL;
  n = strlen (p);
  while (n > 1 && (g_str_has_suffix (p, "/**") || g_str_has_suffix (p, "/*")))
    {
      *strrchr (p, '/') = '\0';
      n = strlen (p);
    }
  if (strpbrk (p, "*?[") != NULL)
    return NULL;
  return g_canonicalize_filename (p, NULL);
}

/* Hard floors the kernel can enforce (README: what a floor can stop):
 * run_shell:PROGRAM (one word) masks every copy of PROGRAM on PATH, so
 * `x=curl; $x`, find -exec, a git alias and scripts cannot start it;
 * read floors on a path hide it; write floors keep it read-only. */
static void
floors_for_guard (OwSessionSandbox *self, const OwSessionSandboxOptions *options, GPtrArray *hidden,
                  GPtrArray *readonly)
{
  g_auto(GStrv) floors = options->isolated ? NULL : ow_config_get_strv (options->config, "policy.deny");
  g_auto(GStrv) path_dirs = g_strsplit (g_getenv ("PATH") != NULL ? g_getenv ("PATH") : "/usr/bin:/bin", ":", -1);

  for (guint i = 0; floors != NULL && floors[i] != NULL; i++)
    {
      const char *colon = strchr (floors[i], ':');
      g_autofree char *tool = colon != NULL ? g_strndup (floors[i], colon - floors[i]) : NULL;
      const char *pattern = colon != NULL ? colon + 1 : NULL;

      if (tool == NULL || *pattern == '\0')
        continue;
      if (g_str_equal (tool, "run_shell"))
        {
          if (strpbrk (pattern, " \t/*?[") != NULL)
            continue;
          for (guint d = 0; path_dirs[d] != NULL; d++)
            {
              g_autofree char *candidate = NULL, *real = NULL;

              if (path_dirs[d][0] != '/')
                continue;
              candidate = g_build_filename (path_dirs[d], pattern, NULL);
              if (!g_file_test (candidate, G_FILE_TEST_IS_EXECUTABLE) || g_file_test (candidate, G_FILE_TEST_IS_DIR))
                continue;
              real = realpath (candidate, NULL);
              g_ptr_array_add (hidden, g_strdup (candidate));
              if (real != NULL)
                g_ptr_array_add (hidden, g_steal_pointer (&real));
            }
        }
      else if (g_str_equal (tool, "read_file") || g_str_equal (tool, "list_files") || g_str_equal (tool, "grep"))
        {
          char *p = floor_path (pattern, self->cwd);
          if (p != NULL)
            g_ptr_array_add (hidden, p);
        }
      else if (g_str_equal (tool, "write_file") || g_str_equal (tool, "replace_in_file")
               || g_str_equal (tool, "apply_patch"))
        {
          char *p = floor_path (pattern, self->cwd);
          if (p != NULL)
            g_ptr_array_add (readonly, p);
        }
    }
}

/* Direct sessions: every command in the guard. Hidden: OpenWorker's own
 * folders (database, audit trail, token, sockets, config with its sealed
 * secrets), the keyring, the runtime folder with the session bus (the
 * Secret Service answers there) and the user's daemons, the system's
 * service manager, and the credential folders. */
static void
guard_direct (OwSessionSandbox *self, const OwSessionSandboxOptions *options)
{
  g_autoptr(GPtrArray) hidden = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) readonly = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *cache = g_build_filename (g_get_user_cache_dir (), "openworker", "tool-cache", NULL);
  const char *runtime = g_getenv ("XDG_RUNTIME_DIR");
  OwGuardOptions guard = { 0 };

  g_ptr_array_add (hidden, g_strdup (self->paths->config_dir));
  g_ptr_array_add (hidden, g_strdup (self->paths->state_dir));
  g_ptr_array_add (hidden, g_strdup (self->paths->runtime_dir));
  g_ptr_array_add (hidden, g_build_filename (g_get_user_data_dir (), "keyrings", NULL));
  /* The whole runtime folder: besides the keyring, the session bus and
   * OpenWorker's own sockets it holds the user's service manager
   * (systemd/private), the SSH and GPG agents and other daemons' doors,
   * each of which would run a command outside the guard. */
  if (runtime != NULL && runtime[0] == '/')
    g_ptr_array_add (hidden, g_strdup (runtime));
  /* The system's service manager and bus: as root they start a unit
   * anywhere (systemd-run), which is outside the guard. */
  g_ptr_array_add (hidden, g_strdup ("/run/systemd/private"));
  g_ptr_array_add (hidden, g_strdup ("/run/dbus/system_bus_socket"));
  for (guint i = 0; options->credential_paths != NULL && options->credential_paths[i] != NULL; i++)
    g_ptr_array_add (hidden, g_strdup (options->credential_paths[i]));
  floors_for_guard (self, options, hidden, readonly);
  g_ptr_array_add (hidden, NULL);
  g_ptr_array_add (readonly, NULL);
  guard.hidden = (const char *const *) hidden->pdata;
  guard.readonly = (const char *const *) readonly->pdata;
  guard.protected_names = options->protected_names;
  guard.cache_dir = cache;
  ow_executor_direct_set_guard (OW_EXECUTOR_DIRECT (self->inner), &guard);
}

OwSessionSandbox *
ow_session_sandbox_new (const OwSessionSandboxOptions *options, GError **error)
{
  g_autoptr(OwSessionSandbox) self = g_object_new (OW_TYPE_SESSION_SANDBOX, NULL);
  const char *provider = options->isolated ? NULL : ow_config_get_string (options->config, "sandbox_provider");
  const char *network = options->isolated ? NULL : ow_config_get_string (options->config, "sandbox_network_profile");
  g_auto(GStrv) hosts = options->isolated ? NULL : ow_config_get_strv (options->config, "sandbox_network_hosts");

  g_return_val_if_fail (options->session_id != NULL, NULL);

  self->provider = g_strdup (provider != NULL ? provider : "direct");
  self->network_open = g_strcmp0 (network, "open") == 0;
  self->session_id = g_strdup (options->session_id);
  self->cwd = g_strdup (options->cwd);
  self->paths = ow_paths_copy (options->paths);
  self->roots = ow_roots_copy (options->roots);
  self->runner_path = g_strdup (options->runner_path);
  self->toolchains = options->isolated ? NULL : ow_config_get_strv (options->config, "sandbox_toolchains");
  if (!options->isolated)
    self->config_path = g_build_filename (options->paths->config_dir, "config.toml", NULL);

  self->sites = ow_site_list_new ();
  ow_site_list_set_open (self->sites, self->network_open);
  ow_site_list_set_persist_func (self->sites, persist_site_cb, g_strdup (self->config_path), g_free);
  self->guard = ow_address_guard_new (NULL);
  for (guint i = 0; hosts != NULL && hosts[i] != NULL; i++)
    {
      g_autoptr(GError) local = NULL;
      if (!ow_site_list_add (self->sites, hosts[i], &local))
        {
          g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                       "sandbox_network_hosts in %s: %s", self->config_path, local->message);
          return NULL;
        }
    }
  if (hosts != NULL)
    ow_address_guard_add_exceptions_from_hosts (self->guard, (const char *const *) hosts);
  for (guint i = 0; options->extra_sites != NULL && options->extra_sites[i] != NULL; i++)
    {
      g_autoptr(GError) local = NULL;
      if (!ow_site_list_add (self->sites, options->extra_sites[i], &local))
        {
          g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                       "--allow-site %s: %s", options->extra_sites[i], local->message);
          return NULL;
        }
    }
  if (options->extra_sites != NULL)
    ow_address_guard_add_exceptions_from_hosts (self->guard, options->extra_sites);

  if (g_str_equal (self->provider, "direct"))
    {
      self->inner = ow_executor_direct_new (options->cwd);
      ow_executor_set_roots (self->inner, self->roots);
      guard_direct (self, options);
      self->skipped = g_ptr_array_new_with_free_func (g_free);
      return g_steal_pointer (&self);
    }

  /* Credentials shared on purpose: read from the machine's own config. */
  {
    g_auto(GStrv) env = g_get_environ ();
    self->credentials = ow_credentials_load (self->config_path, g_get_home_dir (), (const char *const *) env,
                                             &self->skipped, error);
    if (self->credentials == NULL)
      return NULL;
    if (self->skipped == NULL)
      self->skipped = g_ptr_array_new_with_free_func (g_free);
    if (!ow_credentials_add_hosts (self->credentials, self->sites, error))
      return NULL;
  }
  self->backend = ow_sandbox_backend_for (self->provider, error);
  if (self->backend == NULL)
    return NULL;
  return g_steal_pointer (&self);
}

/* ---- start ------------------------------------------------------------------- */

static void
on_backend_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  OwSessionSandbox *self = g_task_get_source_object (task);
  GError *error = NULL;
  OwExecutor *executor = ow_sandbox_backend_start_finish (OW_SANDBOX_BACKEND (source), result, &error);

  if (executor == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_clear_object (&self->inner);
  self->inner = executor;
  g_task_return_boolean (task, TRUE);
}

/* Starts a sandbox for the current roots; the result replaces inner. */
static void
start_backend (OwSessionSandbox *self, GTask *task)
{
  g_auto(GStrv) base_env = ow_tool_environment (NULL);
  g_auto(GStrv) env = ow_credentials_environ (self->credentials, g_get_home_dir (), (const char *const *) base_env);
  g_autofree char *scratch = g_build_filename (self->paths->state_dir, "sandboxes", self->session_id, NULL);
  const char *hidden[] = { g_get_home_dir (), self->paths->config_dir, self->paths->state_dir,
                           self->paths->runtime_dir, NULL };
  OwSandboxSpec spec = {
    .session_id = self->session_id,
    .roots = self->roots,
    .env = (const char *const *) env,
    .runner_path = self->runner_path,
    .proxy_socket = self->proxy_socket,
    .network_open = self->network_open,
    .toolchains = (const char *const *) self->toolchains,
    .credentials = self->credentials,
    .hidden = hidden,
    .scratch_dir = scratch,
  };

  g_mkdir_with_parents (scratch, 0700);
  ow_sandbox_backend_start_async (self->backend, &spec, g_task_get_cancellable (task), on_backend_started_cb, task);
}

void
ow_session_sandbox_start_async (OwSessionSandbox   *self,
                                GCancellable       *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;

  g_task_set_source_tag (task, ow_session_sandbox_start_async);
  if (self->backend == NULL || self->inner != NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (!self->network_open)
    {
      g_autofree char *name = g_strdup_printf ("proxy-%.12s.sock", self->session_id);

      if (!ow_paths_ensure_dir (self->paths->runtime_dir, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      self->proxy = ow_proxy_new (self->sites, self->guard);
      self->proxy_socket = g_build_filename (self->paths->runtime_dir, name, NULL);
      if (!ow_proxy_listen_unix (self->proxy, self->session_id, self->proxy_socket, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
  start_backend (self, g_steal_pointer (&task));
}

gboolean
ow_session_sandbox_start_finish (OwSessionSandbox *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- executor ------------------------------------------------------------------ */

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
sb_set_roots (OwExecutor *executor, GPtrArray *roots)
{
  OwSessionSandbox *self = OW_SESSION_SANDBOX (executor);
  g_autoptr(GPtrArray) copy = ow_roots_copy (roots);

  if (ow_roots_equal (copy, self->roots))
    return;
  g_ptr_array_unref (self->roots);
  self->roots = g_steal_pointer (&copy);
  if (self->backend == NULL)
    ow_executor_set_roots (self->inner, self->roots);
  else if (self->inner != NULL)
    self->stale = TRUE;
}

static gboolean
sb_handles (OwExecutor *executor, const char *tool)
{
  return ow_tb_is_known (tool);
}

static void
sb_set_guard_off (OwExecutor *executor, gboolean off)
{
  OwSessionSandbox *self = OW_SESSION_SANDBOX (executor);

  if (self->inner != NULL && self->backend == NULL)
    ow_executor_set_guard_off (self->inner, off);
}

static const char *
sb_get_enforcement (OwExecutor *executor)
{
  OwSessionSandbox *self = OW_SESSION_SANDBOX (executor);

  return self->inner != NULL ? ow_executor_get_enforcement (self->inner) : "none (sandbox not started)";
}

/* Adds what the model must know to a result's JSON object. */
static void
annotate (OwSessionSandbox *self, OwToolResult *result)
{
  g_autoptr(GPtrArray) blocked = self->proxy != NULL ? ow_proxy_take_blocked (self->proxy, self->session_id) : NULL;
  gboolean lost = self->state_lost;
  g_autoptr(JsonObject) obj = NULL;

  if ((blocked == NULL || blocked->len == 0) && !lost)
    return;
  self->state_lost = FALSE;
  obj = ow_json_object_from_string (result->text, -1, NULL);
  if (obj == NULL)
    {
      obj = json_object_new ();
      json_object_set_string_member (obj, "output", result->text);
    }
  if (blocked != NULL && blocked->len > 0)
    {
      JsonArray *list = json_array_new ();
      for (guint i = 0; i < blocked->len; i++)
        json_array_add_string_element (list, g_ptr_array_index (blocked, i));
      json_object_set_array_member (obj, "network_blocked", list);
      json_object_set_string_member (obj, "network_note", BLOCKED_NOTE);
    }
  if (lost)
    json_object_set_string_member (obj, "sandbox_note", SHELL_STATE_LOST);
  g_free (result->text);
  result->text = ow_json_object_to_string (obj);
}

static void
on_forwarded_cb (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  OwSessionSandbox *self = g_task_get_source_object (task);
  GError *error = NULL;
  OwToolResult *result = ow_executor_execute_finish (OW_EXECUTOR (source), res, &error);

  if (result == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  annotate (self, result);
  g_task_return_pointer (task, result, (GDestroyNotify) ow_tool_result_free);
}

static void
forward (OwSessionSandbox *self, GTask *task)
{
  Call *call = g_task_get_task_data (task);

  if (self->inner == NULL)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "The %s sandbox is not running, so %s was not run.", self->provider, call->tool);
      g_object_unref (task);
      return;
    }
  ow_executor_execute_async (self->inner, call->tool, call->args, g_task_get_cancellable (task),
                             on_forwarded_cb, task);
}

static void
on_restarted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OwSessionSandbox *self = OW_SESSION_SANDBOX (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) held = g_steal_pointer (&self->held);
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  self->restarting = FALSE;
  self->held = g_ptr_array_new ();
  if (ok)
    self->state_lost = TRUE;
  else
    g_clear_object (&self->inner);  /* never fall back to the old folders or to running open */
  for (guint i = 0; i < held->len; i++)
    {
      GTask *task = g_ptr_array_index (held, i);
      if (!ok)
        {
          g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                   "The sandbox could not be recreated for the session's new folders: %s",
                                   error->message);
          g_object_unref (task);
        }
      else
        forward (self, task);
    }
}

static void
sb_execute_async (OwExecutor         *executor,
                  const char         *tool,
                  const char         *args_text,
                  GCancellable       *cancellable,
                  GAsyncReadyCallback callback,
                  gpointer            user_data)
{
  OwSessionSandbox *self = OW_SESSION_SANDBOX (executor);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Call *call = g_new0 (Call, 1);

  call->tool = g_strdup (tool);
  call->args = g_strdup (args_text);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);

  if (self->stale && !self->restarting)
    {
      /* The old sandbox goes first: its folders are no longer the session's. */
      GTask *restart = g_task_new (self, NULL, on_restarted_cb, NULL);

      self->stale = FALSE;
      self->restarting = TRUE;
      g_clear_object (&self->inner);
      start_backend (self, restart);
    }
  if (self->restarting)
    {
      g_ptr_array_add (self->held, task);
      return;
    }
  forward (self, task);
}

static OwToolResult *
sb_execute_finish (OwExecutor *executor, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
executor_iface_init (OwExecutorInterface *iface)
{
  iface->set_roots = sb_set_roots;
  iface->handles = sb_handles;
  iface->execute_async = sb_execute_async;
  iface->execute_finish = sb_execute_finish;
  iface->get_enforcement = sb_get_enforcement;
  iface->set_guard_off = sb_set_guard_off;
}

/* ---- accessors and life ------------------------------------------------------------ */

const char *
ow_session_sandbox_get_provider (OwSessionSandbox *self)
{
  return self->provider;
}

const char *
ow_session_sandbox_get_network (OwSessionSandbox *self)
{
  return self->network_open ? "open" : "allowlist";
}

OwSiteList *
ow_session_sandbox_get_sites (OwSessionSandbox *self)
{
  return self->sites;
}

OwAddressGuard *
ow_session_sandbox_get_guard (OwSessionSandbox *self)
{
  return self->guard;
}

GPtrArray *
ow_session_sandbox_get_skipped (OwSessionSandbox *self)
{
  return self->skipped;
}

void
ow_session_sandbox_stop (OwSessionSandbox *self)
{
  if (self->backend != NULL)
    g_clear_object (&self->inner);
  if (self->proxy != NULL)
    {
      ow_proxy_end_session (self->proxy, self->session_id);
      ow_proxy_close (self->proxy);
      g_clear_object (&self->proxy);
    }
  if (self->sites != NULL)
    ow_site_list_end_session (self->sites, self->session_id);
}

static void
ow_session_sandbox_dispose (GObject *object)
{
  OwSessionSandbox *self = OW_SESSION_SANDBOX (object);

  ow_session_sandbox_stop (self);
  g_clear_object (&self->inner);
  g_clear_object (&self->backend);
  G_OBJECT_CLASS (ow_session_sandbox_parent_class)->dispose (object);
}

static void
ow_session_sandbox_finalize (GObject *object)
{
  OwSessionSandbox *self = OW_SESSION_SANDBOX (object);

  g_free (self->provider);
  g_free (self->session_id);
  g_free (self->cwd);
  g_free (self->config_path);
  g_free (self->proxy_socket);
  g_free (self->runner_path);
  g_strfreev (self->toolchains);
  g_clear_pointer (&self->paths, ow_paths_free);
  g_clear_object (&self->sites);
  g_clear_object (&self->guard);
  g_clear_pointer (&self->credentials, g_ptr_array_unref);
  g_clear_pointer (&self->skipped, g_ptr_array_unref);
  g_clear_pointer (&self->roots, g_ptr_array_unref);
  g_clear_pointer (&self->held, g_ptr_array_unref);
  G_OBJECT_CLASS (ow_session_sandbox_parent_class)->finalize (object);
}

static void
ow_session_sandbox_class_init (OwSessionSandboxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_session_sandbox_dispose;
  object_class->finalize = ow_session_sandbox_finalize;
}

static void
ow_session_sandbox_init (OwSessionSandbox *self)
{
  self->held = g_ptr_array_new ();
}
