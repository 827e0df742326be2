/* ow-sandbox-seatbelt.c: the macOS sandbox backend (sandbox_provider = "seatbelt").
 *
 * Starts openworker-tool-runner under /usr/bin/sandbox-exec with the
 * profile ow-seatbelt-profile.c renders from the session, on pipes (the
 * runner's --stdio mode), so no socket or port is opened for it. Before
 * the runner starts: every path is resolved (Seatbelt matches real paths:
 * /tmp is /private/tmp), one private folder is made under /private/tmp
 * for the sandbox's home, temp and tool caches, and the credentials shared
 * on purpose are copied into that home. The tools' environment is the
 * engine's (secrets already removed) with HOME, TMPDIR and the caches
 * pointed into the private folder and, with the allow list, the proxy
 * variables pointed at the proxy's one localhost port.
 *
 * The wall is proved from inside before the executor is handed out: every
 * folder reachable as granted, the home folder's keys and OpenWorker's
 * state not there. A profile is fixed when a process starts, so a change
 * of folders means a new start (the engine asks for one and tells the
 * agent that shell state was lost).
 *
 * macOS only: built when meson's host is darwin. Elsewhere it is compiled
 * (never linked) by tests/platform to keep it honest.
 */
#define G_LOG_DOMAIN "ow-seatbelt"

#include "ow-sandbox-seatbelt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ow-error.h"
#include "ow-seatbelt-profile.h"
#include "sandbox/ow-credentials.h"
#include "sandbox/ow-executor-runner.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"

/* Caches tools keep under the home folder, moved into the private folder. */
static const char *const cache_variables[][2] = {
  { "npm_config_cache", "npm" },
  { "PIP_CACHE_DIR", "pip" },
  { "UV_CACHE_DIR", "uv" },
  { "XDG_CACHE_HOME", "xdg" },
  { "GOCACHE", "go-build" },
  { "GOMODCACHE", "go-mod" },
  { "YARN_CACHE_FOLDER", "yarn" },
  { "PYTHONPYCACHEPREFIX", "pycache" },
};

struct _OwSandboxSeatbelt
{
  GObject parent_instance;

  /* owned */
  guint  proxy_port;     /* the allow-list proxy's localhost port; 0 = none */
  char  *managed_tools;  /* OpenWorker's managed tools folder, or NULL */
};

static void ow_sandbox_seatbelt_backend_init (OwSandboxBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSandboxSeatbelt, ow_sandbox_seatbelt, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SANDBOX_BACKEND, ow_sandbox_seatbelt_backend_init))

/* realpath(), or a copy of @path when it does not resolve. */
static char *
resolved (const char *path)
{
  char buf[PATH_MAX];

  if (path != NULL && realpath (path, buf) != NULL)
    return g_strdup (buf);
  return g_strdup (path);
}

/* Whether sandbox-exec can apply a profile here. It cannot inside another
 * sandbox (macOS does not nest them), the usual reason sessions are refused. */
static gboolean
can_apply_profile (char **why)
{
  const char *argv[] = { SANDBOX_EXEC, "-p", "(version 1)(allow default)", "/usr/bin/true", NULL };
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr(GError) error = NULL;

  if (!g_file_test (SANDBOX_EXEC, G_FILE_TEST_IS_EXECUTABLE))
    {
      *why = g_strdup (SANDBOX_EXEC " is missing on this Mac.");
      return FALSE;
    }
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      *why = g_strdup_printf ("sandbox-exec could not apply a profile (%s); OpenWorker is probably running inside "
                              "another sandbox, and macOS does not nest them.",
                              error != NULL ? error->message : g_strstrip (err != NULL ? err : g_strdup ("")));
      return FALSE;
    }
  return TRUE;
}

static JsonObject *
ow_sandbox_seatbelt_status (OwSandboxBackend *backend)
{
  JsonObject *result = json_object_new ();
  JsonArray *checks = json_array_new ();
  JsonArray *missing = json_array_new ();
  JsonObject *c = json_object_new ();
  g_autofree char *why = NULL;
  gboolean ok = can_apply_profile (&why);

  json_object_set_string_member (c, "name", "sandbox-exec");
  json_object_set_boolean_member (c, "ok", ok);
  json_object_set_string_member (c, "detail", ok ? "profiles can be applied" : why);
  json_array_add_object_element (checks, c);
  if (!ok)
    json_array_add_string_element (missing, why);
  json_object_set_boolean_member (result, "ready", ok);
  json_object_set_array_member (result, "checks", checks);
  json_object_set_array_member (result, "missing", missing);
  return result;
}

static const char *
ow_sandbox_seatbelt_get_name (OwSandboxBackend *backend)
{
  return "seatbelt";
}

/* One start's state. */
typedef struct {
  char       *private_dir;  /* /private/tmp/owr-XXXXXX */
  char       *home;         /* its home/ */
  GPtrArray  *roots;        /* OwRoot*, resolved */
  GPtrArray  *credentials;  /* ref, or NULL */
  GStrv       hidden;       /* resolved */
  OwExecutor *executor;     /* the runner client, once started */
} Start;

static void
start_free (Start *s)
{
  g_free (s->private_dir);
  g_free (s->home);
  g_clear_pointer (&s->roots, g_ptr_array_unref);
  g_clear_pointer (&s->credentials, g_ptr_array_unref);
  g_strfreev (s->hidden);
  g_clear_object (&s->executor);
  g_free (s);
}

static JsonArray *
wall_checks (Start *s)
{
  JsonArray *checks = json_array_new ();

  for (guint i = 0; i < s->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (s->roots, i);
      JsonObject *c = json_object_new ();

      json_object_set_string_member (c, "kind", "root");
      json_object_set_string_member (c, "path", r->path);
      json_object_set_boolean_member (c, "writable", r->writable);
      json_array_add_object_element (checks, c);
    }
  for (gsize i = 0; s->hidden != NULL && s->hidden[i] != NULL; i++)
    {
      JsonObject *c = json_object_new ();
      JsonArray *absent = json_array_new ();

      /* The folder itself can be stat'ed on the way to a granted one; what
       * is in it must not be reachable. */
      json_array_add_string_element (absent, ".ssh");
      json_array_add_string_element (absent, ".aws");
      json_array_add_string_element (absent, "Documents");
      json_object_set_string_member (c, "kind", "hidden");
      json_object_set_string_member (c, "path", s->hidden[i]);
      json_object_set_array_member (c, "absent", absent);
      json_object_set_boolean_member (c, "must_not_exist", FALSE);
      json_array_add_object_element (checks, c);
    }
  return checks;
}

static void
on_probe_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Start *s = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonArray) answers = ow_executor_runner_probe_finish (OW_EXECUTOR_RUNNER (source), result, &error);
  g_autoptr(GString) failed = g_string_new (NULL);

  if (answers == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; i < json_array_get_length (answers); i++)
    {
      JsonObject *a = json_array_get_object_element (answers, i);

      if (a == NULL || !json_object_get_boolean_member_with_default (a, "ok", FALSE))
        g_string_append_printf (failed, "%s%s", failed->len > 0 ? "; " : "",
                                a != NULL ? json_object_get_string_member_with_default (a, "detail", "?") : "?");
    }
  if (failed->len > 0)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                               "The macOS sandbox did not take effect, so the session is refused: %s.", failed->str);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&s->executor), g_object_unref);
}

static void
on_hello_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Start *s = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) hello = ow_executor_runner_wait_ready_finish (OW_EXECUTOR_RUNNER (source), result, &error);
  g_autoptr(JsonArray) checks = NULL;

  if (hello == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  ow_executor_set_roots (s->executor, s->roots);
  checks = wall_checks (s);
  ow_executor_runner_probe_async (OW_EXECUTOR_RUNNER (s->executor), checks, g_task_get_cancellable (task),
                                  on_probe_cb, task);
}

static void
ow_sandbox_seatbelt_start_async (OwSandboxBackend    *backend,
                                 const OwSandboxSpec *spec,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  OwSandboxSeatbelt *self = OW_SANDBOX_SEATBELT (backend);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Start *s = g_new0 (Start, 1);
  g_autoptr(GPtrArray) rw = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) ro = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GIOStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *home = resolved (g_get_home_dir ());
  g_autofree char *runner = resolved (spec->runner_path);
  g_autofree char *profile = NULL, *tmp = NULL, *enforcement = NULL;
  g_auto(GStrv) env = NULL;
  OwSeatbeltSession session = { 0 };
  g_autofree char *why = NULL;

  g_task_set_source_tag (task, ow_sandbox_seatbelt_start_async);
  g_task_set_task_data (task, s, (GDestroyNotify) start_free);
  if (!can_apply_profile (&why))
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, "%s", why);
      g_object_unref (task);
      return;
    }

  s->roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  for (guint i = 0; spec->roots != NULL && i < spec->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (spec->roots, i);
      g_autofree char *real = resolved (r->path);

      g_ptr_array_add (s->roots, ow_root_new (real, r->writable, r->label));
      g_ptr_array_add (r->writable ? rw : ro, g_strdup (real));
    }
  g_ptr_array_add (rw, NULL);
  g_ptr_array_add (ro, NULL);
  {
    g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

    for (gsize i = 0; spec->hidden != NULL && spec->hidden[i] != NULL; i++)
      {
        g_autofree char *h = resolved (spec->hidden[i]);

        g_strv_builder_add (b, h);
      }
    s->hidden = g_strv_builder_end (b);
  }

  /* The private folder: short (a Unix socket path in it must fit) and
   * resolved (/tmp is a link). */
  tmp = g_build_filename ("/private/tmp", "owr-XXXXXX", NULL);
  if (g_mkdtemp_full (tmp, 0700) == NULL)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "The sandbox's private folder could not be made in /private/tmp: %s", g_strerror (errno));
      g_object_unref (task);
      return;
    }
  s->private_dir = g_steal_pointer (&tmp);
  s->home = g_build_filename (s->private_dir, "home", NULL);
  g_mkdir (s->home, 0700);
  for (gsize i = 0; i < G_N_ELEMENTS (cache_variables); i++)
    {
      g_autofree char *dir = g_build_filename (s->private_dir, "tmp", "cache", cache_variables[i][1], NULL);

      g_mkdir_with_parents (dir, 0700);
    }
  if (spec->credentials != NULL && spec->credentials->len > 0)
    {
      s->credentials = g_ptr_array_ref (spec->credentials);
      if (!ow_credentials_copy_in (s->credentials, s->home, NULL, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          g_object_unref (task);
          return;
        }
    }

  session.session_id = spec->session_id;
  session.home = home;
  session.private_dir = s->private_dir;
  session.writable = (const char *const *) rw->pdata;
  session.readonly = (const char *const *) ro->pdata;
  session.hidden = (const char *const *) s->hidden;
  session.runner_path = runner;
  session.managed_tools = self->managed_tools;
  session.toolchains = spec->toolchains;
  session.proxy_port = spec->network_open ? 0 : self->proxy_port;
  session.network_open = spec->network_open;
  profile = ow_seatbelt_profile_render (&session, &error);
  if (profile == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }

  /* The tools' environment: the engine's, secrets already out, with the
   * copies' variables; then home, temp, caches and the proxy here. */
  env = ow_credentials_environ (s->credentials, s->home, spec->env);
  env = g_environ_setenv (env, "HOME", s->home, TRUE);
  {
    g_autofree char *t = g_build_filename (s->private_dir, "tmp", "/", NULL);

    env = g_environ_setenv (env, "TMPDIR", t, TRUE);
  }
  for (gsize i = 0; i < G_N_ELEMENTS (cache_variables); i++)
    {
      g_autofree char *dir = g_build_filename (s->private_dir, "tmp", "cache", cache_variables[i][1], NULL);

      env = g_environ_setenv (env, cache_variables[i][0], dir, TRUE);
    }
  if (!spec->network_open && self->proxy_port != 0)
    {
      g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", self->proxy_port);
      const char *names[] = { "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy" };

      for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
        env = g_environ_setenv (env, names[i], url, TRUE);
    }

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_environ (launcher, env);
  g_subprocess_launcher_set_cwd (launcher, "/");
  proc = g_subprocess_launcher_spawn (launcher, &error, SANDBOX_EXEC, "-p", profile, runner, "--stdio", NULL);
  if (proc == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  stream = g_simple_io_stream_new (g_subprocess_get_stdout_pipe (proc), g_subprocess_get_stdin_pipe (proc));
  enforcement = g_strdup_printf ("macos seatbelt: files limited to the session's folders; network: %s",
                                 spec->network_open ? "open" : self->proxy_port != 0 ? "the allow-list proxy only" : "none");
  s->executor = ow_executor_runner_new (stream, proc, enforcement);
  ow_executor_runner_wait_ready_async (OW_EXECUTOR_RUNNER (s->executor), cancellable, on_hello_cb, task);
}

static OwExecutor *
ow_sandbox_seatbelt_start_finish (OwSandboxBackend *backend, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
ow_sandbox_seatbelt_backend_init (OwSandboxBackendInterface *iface)
{
  iface->get_name = ow_sandbox_seatbelt_get_name;
  iface->status = ow_sandbox_seatbelt_status;
  iface->start_async = ow_sandbox_seatbelt_start_async;
  iface->start_finish = ow_sandbox_seatbelt_start_finish;
}

static void
ow_sandbox_seatbelt_finalize (GObject *object)
{
  g_free (OW_SANDBOX_SEATBELT (object)->managed_tools);
  G_OBJECT_CLASS (ow_sandbox_seatbelt_parent_class)->finalize (object);
}

static void
ow_sandbox_seatbelt_class_init (OwSandboxSeatbeltClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_sandbox_seatbelt_finalize;
}

static void
ow_sandbox_seatbelt_init (OwSandboxSeatbelt *self)
{
}

OwSandboxBackend *
ow_sandbox_seatbelt_new (guint proxy_port, const char *managed_tools)
{
  OwSandboxSeatbelt *self = g_object_new (OW_TYPE_SANDBOX_SEATBELT, NULL);

  self->proxy_port = proxy_port;
  self->managed_tools = g_strdup (managed_tools);
  return OW_SANDBOX_BACKEND (self);
}

static OwSandboxBackend *
seatbelt_factory (GError **error)
{
  return ow_sandbox_seatbelt_new (0, NULL);
}

void
ow_sandbox_seatbelt_register (void)
{
  ow_sandbox_backend_register ("seatbelt", seatbelt_factory);
}
