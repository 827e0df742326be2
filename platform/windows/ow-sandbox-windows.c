/* ow-sandbox-windows.c: the Windows sandbox backend (sandbox_provider = "windows").
 *
 * The thin GLib glue over the GLib-free core (ow-winsandbox.h). A start,
 * on a worker thread: read setup.json and unseal the account's password
 * (the open account for sandbox_network_profile = "open", the closed one
 * for the allow list), make the session's private folder under
 * C:\ProgramData\OpenWorker\sandbox\sandboxes, copy the runner there (the
 * account cannot read an install under the person's profile), add the
 * session's access entries (ow_ws_plan_grants: Modify, Read, Deny-write,
 * traverse-only up to the profile root; every one read back), prove the
 * wall from inside by running openworker-winsandbox.exe wall-check as the
 * account (session folders listable, the profile refused, in the closed
 * mode a loopback port outside 47800–47899 unreachable), then start the
 * runner as the account in a job object. Back on the main context the
 * runner's pipes become the executor's stream.
 *
 * When the executor goes, the job ends the runner and everything it
 * started, the entries are removed (the last matching one each, so a
 * second session on the same folder keeps its own) and the private folder
 * is deleted. Anything that fails on the way is refused with the reason,
 * never run with less.
 *
 * Windows only: it needs GLib's Windows streams. Not built on this
 * project's Linux CI (the core is, with mingw-w64 under Wine).
 */
#define G_LOG_DOMAIN "ow-winsandbox"

#include <windows.h>

#include <gio/gio.h>
#include <gio/gwin32inputstream.h>
#include <gio/gwin32outputstream.h>

#include "ow-error.h"
#include "ow-winsandbox.h"
#include "sandbox/ow-executor-runner.h"
#include "sandbox/ow-sandbox.h"

#define OW_TYPE_SANDBOX_WINDOWS (ow_sandbox_windows_get_type ())
G_DECLARE_FINAL_TYPE (OwSandboxWindows, ow_sandbox_windows, OW, SANDBOX_WINDOWS, GObject)

struct _OwSandboxWindows
{
  GObject parent_instance;

  /* owned */
  char  *program_data;  /* C:\ProgramData */
  char  *helper_exe;    /* openworker-winsandbox.exe, for the wall check */
  guint  proxy_port;    /* the allow-list proxy, in 47800–47899; 0 = none */
};

static void ow_sandbox_windows_backend_init (OwSandboxBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSandboxWindows, ow_sandbox_windows, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SANDBOX_BACKEND, ow_sandbox_windows_backend_init))

/* Turns a core error (malloc'ed) into a GError. */
static GError *
core_error (char *message, int code)
{
  GError *e = g_error_new_literal (OW_SANDBOX_ERROR, code, message != NULL ? message : "The Windows sandbox failed.");

  free (message);
  return e;
}

static JsonObject *
ow_sandbox_windows_status (OwSandboxBackend *backend)
{
  OwSandboxWindows *self = OW_SANDBOX_WINDOWS (backend);
  OwWsCheck *checks = NULL;
  size_t n = ow_ws_status (self->program_data, &checks);
  JsonObject *result = json_object_new ();
  JsonArray *list = json_array_new ();
  JsonArray *missing = json_array_new ();

  for (size_t i = 0; i < n; i++)
    {
      JsonObject *c = json_object_new ();

      json_object_set_string_member (c, "name", checks[i].name);
      if (checks[i].ok < 0)
        json_object_set_null_member (c, "ok");
      else
        json_object_set_boolean_member (c, "ok", checks[i].ok == 1);
      json_object_set_string_member (c, "detail", checks[i].detail);
      json_array_add_object_element (list, c);
      if (checks[i].ok == 0)
        json_array_add_string_element (missing, checks[i].detail);
    }
  json_object_set_boolean_member (result, "ready", ow_ws_checks_ok (checks, n));
  json_object_set_array_member (result, "checks", list);
  json_object_set_array_member (result, "missing", missing);
  ow_ws_checks_free (checks, n);
  return result;
}

static const char *
ow_sandbox_windows_get_name (OwSandboxBackend *backend)
{
  return "windows";
}

/* The running sandbox, owned by its executor's data. */
typedef struct {
  char       *sid;          /* the account's SID */
  char       *private_dir;  /* the session's folder */
  OwWsGrants  grants;       /* the plan */
  size_t      applied;      /* how many of the plan's entries are on disk */
  OwWsRunner  runner;       /* the runner's process, job and pipes */
} Box;

static void
box_free (Box *b)
{
  ow_ws_runner_close (&b->runner);
  /* Removed in reverse: traverse entries and denies before the grants. */
  while (b->applied > 0)
    {
      OwWsGrant *g = &b->grants.items[--b->applied];
      char *error = NULL;

      if (!ow_ws_revoke_grant (g->path, b->sid, g->kind, &error))
        g_message ("an access entry could not be removed: %s", error);
      free (error);
    }
  ow_ws_grants_clear (&b->grants);
  if (b->private_dir != NULL)
    {
      g_autofree char *cmd = g_strdup_printf ("cmd.exe /c rmdir /s /q \"%s\"", b->private_dir);

      g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL);
    }
  g_free (b->private_dir);
  g_free (b->sid);
  g_free (b);
}

/* What the worker needs, copied. */
typedef struct {
  OwSandboxWindows *self;      /* ref */
  char             *session;
  GPtrArray        *roots;     /* OwRoot* copies */
  GStrv             env;
  GStrv             toolchains;
  char             *runner;
  gboolean          open;
  Box              *box;       /* the result */
} Job;

static void
job_free (Job *j)
{
  g_clear_object (&j->self);
  g_free (j->session);
  g_clear_pointer (&j->roots, g_ptr_array_unref);
  g_strfreev (j->env);
  g_strfreev (j->toolchains);
  g_free (j->runner);
  g_clear_pointer (&j->box, box_free);
  g_free (j);
}

/* Runs the helper's wall check as the account and waits for its verdict. */
static gboolean
prove_wall (Job *j, const char *account, const char *password, const char *profile, GError **error)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *port = NULL;
  OwWsSpawn spawn = { 0 };
  OwWsRunner r = { 0 };
  char *err = NULL;
  DWORD code = 1;

  g_ptr_array_add (argv, g_strdup (j->self->helper_exe));
  g_ptr_array_add (argv, g_strdup ("wall-check"));
  g_ptr_array_add (argv, g_strdup ("--profile"));
  g_ptr_array_add (argv, g_strdup (profile));
  for (guint i = 0; i < j->roots->len; i++)
    {
      g_ptr_array_add (argv, g_strdup ("--folder"));
      g_ptr_array_add (argv, g_strdup (((OwRoot *) g_ptr_array_index (j->roots, i))->path));
    }
  if (!j->open)
    {
      /* A port just outside the proxy's range: nothing may answer there. */
      port = g_strdup_printf ("%d", OW_WS_PORT_LOW - 1);
      g_ptr_array_add (argv, g_strdup ("--probe-port"));
      g_ptr_array_add (argv, g_strdup (port));
    }
  g_ptr_array_add (argv, NULL);
  spawn.account = account;
  spawn.password = password;
  spawn.runner_exe = j->self->helper_exe;
  spawn.argv = (const char *const *) argv->pdata;
  spawn.cwd = j->box->private_dir;
  spawn.env = (const char *const *) j->env;
  if (!ow_ws_spawn_runner (&spawn, &r, &err))
    {
      g_propagate_error (error, core_error (err, OW_SANDBOX_ERROR_UNAVAILABLE));
      return FALSE;
    }
  CloseHandle (r.to_runner);
  r.to_runner = NULL;
  WaitForSingleObject (r.process, 30000);
  GetExitCodeProcess (r.process, &code);
  ow_ws_runner_close (&r);
  if (code != 0)
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                   "The Windows sandbox did not take effect (the check from inside the %s account failed), so the "
                   "session is refused. Run `openworker machine sandbox status`, and `openworker machine sandbox "
                   "setup` again.", account);
      return FALSE;
    }
  return TRUE;
}

static void
start_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *j = data;
  OwSandboxWindows *self = j->self;
  const char *account = j->open ? OW_WS_OPEN_ACCOUNT : OW_WS_CLOSED_ACCOUNT;
  g_autofree char *root = ow_ws_root_dir (self->program_data);
  g_autofree char *setup_path = ow_ws_join (root, "setup.json");
  g_autofree char *cred = ow_ws_join (root, "account.cred");
  g_autofree char *boxes = ow_ws_join (root, "sandboxes");
  g_autofree char *text = NULL, *runner_copy = NULL, *tmp = NULL;
  const char *profile = g_getenv ("USERPROFILE");
  char *open_pw = NULL, *closed_pw = NULL, *err = NULL;
  OwWsSetup setup = { 0 };
  OwWsPlanInput plan = { 0 };
  g_autoptr(GPtrArray) rw = g_ptr_array_new ();
  g_autoptr(GPtrArray) ro = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  OwWsSpawn spawn = { 0 };
  const char *argv[3];

  if (!g_file_get_contents (setup_path, &text, NULL, NULL) || !ow_ws_setup_from_json (text, &setup, &err))
    {
      g_task_return_error (task, core_error (err != NULL ? err : strdup ("The one-time setup has not run on this PC; "
                                                                        "run `openworker machine sandbox setup`."),
                                             OW_SANDBOX_ERROR_UNAVAILABLE));
      return;
    }
  if (!ow_ws_cred_read (cred, &open_pw, &closed_pw, &err))
    {
      ow_ws_setup_clear (&setup);
      g_task_return_error (task, core_error (err, OW_SANDBOX_ERROR_UNAVAILABLE));
      return;
    }
  j->box = g_new0 (Box, 1);
  j->box->sid = g_strdup (j->open ? setup.open_sid : setup.closed_sid);
  ow_ws_setup_clear (&setup);

  /* The session's private folder, and the runner in it. */
  j->box->private_dir = g_strdup_printf ("%s\\owr-%.12s-%08x", boxes, j->session, g_random_int ());
  if (g_mkdir_with_parents (j->box->private_dir, 0700) != 0)
    {
      g_set_error (&error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "The session's private folder could not be made in %s; run `openworker machine sandbox setup`.",
                   boxes);
      goto fail;
    }
  tmp = g_build_filename (j->box->private_dir, "tmp", NULL);
  g_mkdir_with_parents (tmp, 0700);
  runner_copy = g_build_filename (j->box->private_dir, "openworker-tool-runner.exe", NULL);
  {
    g_autoptr(GFile) from = g_file_new_for_path (j->runner);
    g_autoptr(GFile) to = g_file_new_for_path (runner_copy);

    if (!g_file_copy (from, to, G_FILE_COPY_OVERWRITE, cancellable, NULL, NULL, &error))
      goto fail;
  }

  /* The entries, each read back. */
  for (guint i = 0; i < j->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (j->roots, i);

      g_ptr_array_add (r->writable ? rw : ro, r->path);
    }
  g_ptr_array_add (rw, NULL);
  g_ptr_array_add (ro, NULL);
  plan.profile_root = profile != NULL ? profile : "C:\\Users\\Default";
  plan.private_dir = j->box->private_dir;
  plan.writable = (const char *const *) rw->pdata;
  plan.readonly = (const char *const *) ro->pdata;
  plan.toolchains = (const char *const *) j->toolchains;
  if (!ow_ws_plan_grants (&plan, &j->box->grants, &err))
    {
      error = core_error (err, OW_SANDBOX_ERROR_UNAVAILABLE);
      goto fail;
    }
  for (; j->box->applied < j->box->grants.len; j->box->applied++)
    {
      OwWsGrant *g = &j->box->grants.items[j->box->applied];

      if (!ow_ws_apply_grant (g->path, j->box->sid, g->kind, &err))
        {
          error = core_error (err, OW_SANDBOX_ERROR_UNAVAILABLE);
          goto fail;
        }
    }

  /* The environment: the engine's (secrets already out), temp in the
   * private folder, the proxy for the closed account. */
  j->env = g_environ_setenv (j->env, "TEMP", tmp, TRUE);
  j->env = g_environ_setenv (j->env, "TMP", tmp, TRUE);
  if (!j->open && self->proxy_port != 0)
    {
      g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", self->proxy_port);

      j->env = g_environ_setenv (j->env, "HTTP_PROXY", url, TRUE);
      j->env = g_environ_setenv (j->env, "HTTPS_PROXY", url, TRUE);
      j->env = g_environ_setenv (j->env, "ALL_PROXY", url, TRUE);
    }

  if (!prove_wall (j, account, j->open ? open_pw : closed_pw, plan.profile_root, &error))
    goto fail;

  argv[0] = runner_copy;
  argv[1] = "--stdio";
  argv[2] = NULL;
  spawn.account = account;
  spawn.password = j->open ? open_pw : closed_pw;
  spawn.runner_exe = runner_copy;
  spawn.argv = argv;
  spawn.cwd = ((OwRoot *) g_ptr_array_index (j->roots, 0))->path;
  spawn.env = (const char *const *) j->env;
  if (!ow_ws_spawn_runner (&spawn, &j->box->runner, &err))
    {
      error = core_error (err, OW_SANDBOX_ERROR_UNAVAILABLE);
      goto fail;
    }
  ow_ws_password_free (open_pw);
  ow_ws_password_free (closed_pw);
  g_task_return_boolean (task, TRUE);
  return;

fail:
  ow_ws_password_free (open_pw);
  ow_ws_password_free (closed_pw);
  g_clear_pointer (&j->box, box_free);
  g_task_return_error (task, g_steal_pointer (&error));
}

static void
on_hello_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  g_autoptr(JsonObject) hello = ow_executor_runner_wait_ready_finish (OW_EXECUTOR_RUNNER (source), result, &error);

  if (hello == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_object_ref (source), g_object_unref);
}

static void
on_thread_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Job *j = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GIOStream) stream = NULL;
  OwExecutor *ex;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  /* The pipes now belong to the streams; the box keeps the job. */
  in = g_win32_input_stream_new (j->box->runner.from_runner, TRUE);
  out = g_win32_output_stream_new (j->box->runner.to_runner, TRUE);
  j->box->runner.from_runner = j->box->runner.to_runner = NULL;
  stream = g_simple_io_stream_new (in, out);
  ex = ow_executor_runner_new (stream, NULL,
                               j->open ? "windows account OWSandboxOpenNet: profile out of reach; network open"
                                       : "windows account OWSandboxClosedNet: profile out of reach; network through "
                                         "the allow-list proxy only (firewall + WFP)");
  /* The sandbox lives as long as the executor. */
  g_object_set_data_full (G_OBJECT (ex), "ow-windows-box", g_steal_pointer (&j->box), (GDestroyNotify) box_free);
  g_task_set_task_data (task, NULL, NULL);
  ow_executor_runner_wait_ready_async (OW_EXECUTOR_RUNNER (ex), g_task_get_cancellable (task), on_hello_cb, task);
  g_object_unref (ex);
}

static void
ow_sandbox_windows_start_async (OwSandboxBackend    *backend,
                                const OwSandboxSpec *spec,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  OwSandboxWindows *self = OW_SANDBOX_WINDOWS (backend);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GTask) thread = g_task_new (self, cancellable, on_thread_done_cb, task);
  Job *j = g_new0 (Job, 1);

  j->self = g_object_ref (self);
  j->session = g_strdup (spec->session_id != NULL ? spec->session_id : "session");
  j->roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  for (guint i = 0; spec->roots != NULL && i < spec->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (spec->roots, i);

      g_ptr_array_add (j->roots, ow_root_new (r->path, r->writable, r->label));
    }
  j->env = g_strdupv ((char **) spec->env);
  j->toolchains = g_strdupv ((char **) spec->toolchains);
  j->runner = g_strdup (spec->runner_path);
  j->open = spec->network_open;
  if (j->roots->len == 0)
    {
      job_free (j);
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "A sandboxed session needs at least one folder.");
      g_object_unref (task);
      return;
    }
  g_task_set_task_data (thread, j, (GDestroyNotify) job_free);
  g_task_run_in_thread (thread, start_thread);
}

static OwExecutor *
ow_sandbox_windows_start_finish (OwSandboxBackend *backend, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
ow_sandbox_windows_backend_init (OwSandboxBackendInterface *iface)
{
  iface->get_name = ow_sandbox_windows_get_name;
  iface->status = ow_sandbox_windows_status;
  iface->start_async = ow_sandbox_windows_start_async;
  iface->start_finish = ow_sandbox_windows_start_finish;
}

static void
ow_sandbox_windows_finalize (GObject *object)
{
  OwSandboxWindows *self = OW_SANDBOX_WINDOWS (object);

  g_free (self->program_data);
  g_free (self->helper_exe);
  G_OBJECT_CLASS (ow_sandbox_windows_parent_class)->finalize (object);
}

static void
ow_sandbox_windows_class_init (OwSandboxWindowsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_sandbox_windows_finalize;
}

static void
ow_sandbox_windows_init (OwSandboxWindows *self)
{
}

/* @helper_exe: openworker-winsandbox.exe; @proxy_port: the allow-list
 * proxy's port (47800–47899), 0 when there is none. */
OwSandboxBackend *ow_sandbox_windows_new (const char *helper_exe, guint proxy_port);

OwSandboxBackend *
ow_sandbox_windows_new (const char *helper_exe, guint proxy_port)
{
  OwSandboxWindows *self = g_object_new (OW_TYPE_SANDBOX_WINDOWS, NULL);
  const char *pd = g_getenv ("ProgramData");

  self->program_data = g_strdup (pd != NULL ? pd : "C:\\ProgramData");
  self->helper_exe = g_strdup (helper_exe);
  self->proxy_port = proxy_port;
  return OW_SANDBOX_BACKEND (self);
}
