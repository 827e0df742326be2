/* ow-sandbox-linux.c: the Linux OwSandboxBackend.
 *
 * Starting a sandbox, in order:
 *   1. check what can be checked cheaply here (Landlock, the runner, the
 *      session's folders, the proxy's socket) so the common failures say
 *      exactly what to fix before anything is spawned;
 *   2. spawn openworker-tool-runner --wall with one end of a socketpair
 *      as fd 3, stdout silenced, stderr collected for diagnostics, and an
 *      environment of its own (the tools' environment travels in the wall
 *      description, never in the runner's own);
 *   3. send the wall description — folders, the private home's path, the
 *      hidden paths, toolchains, credentials, the network — and wait for
 *      hello (the runner sends "fatal" with a reason instead when the wall
 *      cannot be built);
 *   4. prove the wall from inside: every folder reachable as granted, every
 *      hidden path absent, a loopback port this process listens on
 *      unreachable, the proxy bridge reachable, Landlock, seccomp,
 *      no_new_privs, no capabilities, this process invisible, no secret in
 *      the tools' environment;
 *   5. only then hand back the executor. Any failure refuses the session
 *      with the reason; tools never run without the wall.
 *
 * The scratch folder the new root is mounted over stays empty on the host
 * and is removed when the runner exits.
 */
#define G_LOG_DOMAIN "ow-sandbox-linux"

#include "ow-sandbox-linux.h"

#include "ow-guard.h"
#include "tools/ow-executor.h"

#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ow-error.h"
#include "ow-json.h"
#include "ow-redact.h"
#include "ow-secret-env.h"
#include "sandbox/ow-executor-runner.h"
#include "store/ow-paths.h"

#ifndef OW_LIBEXECDIR
#define OW_LIBEXECDIR "/usr/local/libexec"
#endif

/* How long the runner gets to build the wall and prove it. */
#define START_TIMEOUT_S  30
/* How many entries of a hidden folder the probe checks by name. */
#define MAX_ABSENT_NAMES 256

/* The system the wall binds read-only (the same list as ow-wall.c). */
static const char *const system_paths[] = {
  "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", NULL,
};

/* The machine's own secrets inside /etc, hidden from every sandbox. */
static const char *const system_secrets[] = {
  "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssl/private", NULL,
};

/* What the private home shows of the person's home besides toolchains. */
static const char *const git_settings[] = { ".gitconfig", ".config/git", NULL };

struct _OwSandboxLinux
{
  GObject  parent_instance;

  char    *runner_path;   /* the runner to use when a spec names none, or NULL to find it (owned) */
};

enum { PROP_0, PROP_RUNNER_PATH, N_PROPS };
static GParamSpec *props[N_PROPS];

static void backend_iface_init (OwSandboxBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSandboxLinux, ow_sandbox_linux, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SANDBOX_BACKEND, backend_iface_init))

/* ---- small helpers -------------------------------------------------------- */

static int
landlock_abi (void)
{
  long abi = syscall (444 /* landlock_create_ruleset */, NULL, 0, 1U /* VERSION */);

  return abi > 0 ? (int) abi : 0;
}

static gboolean
is_executable (const char *path)
{
  return path != NULL && g_file_test (path, G_FILE_TEST_IS_REGULAR) && access (path, X_OK) == 0;
}

char *
ow_sandbox_linux_find_runner (void)
{
  const char *env = g_getenv ("OPENWORKER_TOOL_RUNNER");
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  char *candidate;

  if (is_executable (env))
    return g_strdup (env);
  if (dir != NULL)
    {
      candidate = g_build_filename (dir, "openworker-tool-runner", NULL);
      if (is_executable (candidate))
        return candidate;
      g_free (candidate);
      candidate = g_build_filename (dir, "..", "libexec", "openworker-tool-runner", NULL);
      if (is_executable (candidate))
        return candidate;
      g_free (candidate);
    }
  candidate = g_build_filename (OW_LIBEXECDIR, "openworker-tool-runner", NULL);
  if (is_executable (candidate))
    return candidate;
  g_free (candidate);
  return g_find_program_in_path ("openworker-tool-runner");
}

static char *
resolve_runner (OwSandboxLinux *self, const char *from_spec)
{
  if (from_spec != NULL)
    return g_strdup (from_spec);
  if (self->runner_path != NULL)
    return g_strdup (self->runner_path);
  return ow_sandbox_linux_find_runner ();
}

/* 1 when @path is @prefix or below it. */
static gboolean
path_within (const char *path, const char *prefix)
{
  gsize n = strlen (prefix);

  if (g_str_equal (prefix, "/"))
    return TRUE;
  return strncmp (path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The canonical form of @path (symlinks resolved) when it exists. */
static char *
canonical (const char *path)
{
  char *real = realpath (path, NULL);
  char *copy;

  if (real == NULL)
    return g_canonicalize_filename (path, "/");
  copy = g_strdup (real);
  free (real);
  return copy;
}

static void
add_check (JsonObject *status, gboolean *ready, const char *name, gboolean ok, const char *detail)
{
  JsonArray *checks = json_object_get_array_member (status, "checks");
  JsonObject *c = json_object_new ();

  json_object_set_string_member (c, "name", name);
  json_object_set_boolean_member (c, "ok", ok);
  json_object_set_string_member (c, "detail", detail);
  json_array_add_object_element (checks, c);
  if (!ok)
    {
      json_array_add_string_element (json_object_get_array_member (status, "missing"), detail);
      *ready = FALSE;
    }
}

/* ---- status --------------------------------------------------------------- */

static const char *
linux_get_name (OwSandboxBackend *backend)
{
  return "linux";
}

/* Runs `openworker-tool-runner --check`, which tries a throwaway set of
 * namespaces; NULL when it cannot be run. */
static JsonObject *
run_runner_check (const char *runner, char **why)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autofree char *out = NULL;
  JsonObject *result;

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                              runner, "--check", NULL);
  if (process == NULL || !g_subprocess_communicate_utf8 (process, NULL, NULL, &out, NULL, &error))
    {
      *why = g_strdup (error->message);
      return NULL;
    }
  result = ow_json_object_from_string (out != NULL ? out : "", -1, &error);
  if (result == NULL)
    *why = g_strdup_printf ("it printed something that is not its report (%s)", error->message);
  return result;
}

static JsonObject *
linux_status (OwSandboxBackend *backend)
{
  OwSandboxLinux *self = OW_SANDBOX_LINUX (backend);
  JsonObject *status = json_object_new ();
  g_autofree char *runner = resolve_runner (self, NULL);
  g_autoptr(JsonObject) report = NULL;
  g_autofree char *why = NULL;
  gboolean ready = TRUE;
  struct utsname u;
  int abi = landlock_abi ();

  json_object_set_string_member (status, "provider", "linux");
  json_object_set_array_member (status, "checks", json_array_new ());
  json_object_set_array_member (status, "missing", json_array_new ());
  uname (&u);
  json_object_set_string_member (status, "kernel", u.release);
  json_object_set_int_member (status, "landlock_abi", abi);
  json_object_set_string_member (status, "runner", runner != NULL ? runner : "");

  if (runner != NULL && is_executable (runner))
    {
      g_autofree char *detail = g_strdup_printf ("openworker-tool-runner at %s", runner);

      add_check (status, &ready, "runner", TRUE, detail);
      report = run_runner_check (runner, &why);
    }
  else
    add_check (status, &ready, "runner", FALSE,
               "openworker-tool-runner is missing: install it next to openworker (or in its libexec folder), "
               "or point OPENWORKER_TOOL_RUNNER at it");

  if (report != NULL)
    {
      JsonArray *checks = ow_json_get_array (report, "checks");

      for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
        {
          JsonObject *c = json_array_get_object_element (checks, i);

          add_check (status, &ready, ow_json_get_string (c, "name"), ow_json_get_bool (c, "ok", FALSE),
                     ow_json_get_string (c, "detail"));
        }
    }
  else
    {
      g_autofree char *kernel = g_strdup_printf ("Linux %s %s", u.release, u.machine);
      g_autofree char *ll = abi > 0 ? g_strdup_printf ("ABI %d", abi)
                                    : g_strdup ("Landlock is not available in this kernel (it needs Linux 5.13+ "
                                                "with CONFIG_SECURITY_LANDLOCK and \"landlock\" in lsm=)");
      g_autofree char *userns = g_strdup_printf ("cannot be tested without the runner%s%s",
                                                 why != NULL ? ": " : "", why != NULL ? why : "");

      add_check (status, &ready, "kernel", TRUE, kernel);
      add_check (status, &ready, "landlock", abi > 0, ll);
      add_check (status, &ready, "seccomp", prctl (PR_GET_SECCOMP, 0, 0, 0, 0) >= 0,
                 prctl (PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 ? "seccomp filters are available"
                                                         : "seccomp is not available in this kernel");
      add_check (status, &ready, "user namespaces", FALSE, userns);
    }
  json_object_set_boolean_member (status, "ready", ready);
  return status;
}

/* ---- the runner's stderr -------------------------------------------------- */

/* Reads the runner's stderr for its whole life (so it never blocks on a
 * full pipe), logs it at debug level and keeps the tail for error messages. */
typedef struct {
  gatomicrefcount ref;       /* the read in flight and the start, while it lasts */
  GInputStream   *in;        /* the pipe (owned) */
  GString        *tail;      /* the last few KiB (owned) */
  char            buf[4096]; /* the read in flight */
} Drain;

static Drain *
drain_ref (Drain *d)
{
  g_atomic_ref_count_inc (&d->ref);
  return d;
}

static void
drain_unref (Drain *d)
{
  if (!g_atomic_ref_count_dec (&d->ref))
    return;
  g_object_unref (d->in);
  g_string_free (d->tail, TRUE);
  g_free (d);
}

static void
on_drain_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Drain *d = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n <= 0)
    {
      drain_unref (d);
      return;
    }
  g_debug ("runner: %.*s", (int) n, d->buf);
  g_string_append_len (d->tail, d->buf, n);
  if (d->tail->len > 8192)
    g_string_erase (d->tail, 0, d->tail->len - 8192);
  g_input_stream_read_async (d->in, d->buf, sizeof d->buf, G_PRIORITY_DEFAULT, NULL, on_drain_read_cb, d);
}

/* ---- cleanup when the runner exits ----------------------------------------- */

typedef struct {
  char *mount_point;   /* the empty folder the root was built on (owned) */
  char *scratch;       /* a folder we made for it, or NULL (owned) */
} Cleanup;

static void
on_runner_exited_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Cleanup *c = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  if (c->mount_point != NULL)
    g_rmdir (c->mount_point);
  if (c->scratch != NULL)
    g_rmdir (c->scratch);
  g_free (c->mount_point);
  g_free (c->scratch);
  g_free (c);
}

/* ---- start ----------------------------------------------------------------- */

typedef struct {
  OwExecutorRunner *executor;     /* the runner's client (owned) */
  GSubprocess      *process;      /* the runner (owned) */
  Drain            *drain;        /* its stderr (a reference) */
  GSocket          *decoy;        /* a loopback listener outside that the sandbox must not reach (owned) */
  JsonArray        *checks;       /* the probe (owned) */
  GSource          *cancel;       /* fires when the caller cancels the start (owned) */
  guint             timeout_id;   /* the start deadline */
  gboolean          done;         /* the task has returned */
} Start;

static void
start_free (Start *s)
{
  g_clear_handle_id (&s->timeout_id, g_source_remove);
  if (s->cancel != NULL)
    g_source_destroy (s->cancel);
  g_clear_pointer (&s->cancel, g_source_unref);
  g_clear_object (&s->executor);
  g_clear_object (&s->process);
  g_clear_pointer (&s->drain, drain_unref);
  if (s->decoy != NULL)
    g_socket_close (s->decoy, NULL);
  g_clear_object (&s->decoy);
  g_clear_pointer (&s->checks, json_array_unref);
  g_free (s);
}

/* Returns @error from the task once. The runner is killed outright: a
 * sandbox that failed has nothing worth a graceful stop, and a runner
 * hung while building the wall would never answer one. Killing the
 * process the engine started takes init, and so the whole namespace,
 * with it. */
static void
start_fail (GTask *task, GError *error)
{
  Start *s = g_task_get_task_data (task);

  if (s->done)
    {
      g_error_free (error);
      return;
    }
  s->done = TRUE;
  g_clear_handle_id (&s->timeout_id, g_source_remove);
  if (s->process != NULL)
    g_subprocess_force_exit (s->process);
  g_clear_object (&s->executor);
  g_task_return_error (task, error);
}

static gboolean
on_start_timeout_cb (gpointer user_data)
{
  GTask *task = user_data;
  Start *s = g_task_get_task_data (task);

  s->timeout_id = 0;
  start_fail (task, g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                 "The sandbox did not start within %d s, so the session is refused. "
                                 "`openworker machine sandbox status` shows what this machine lacks.",
                                 START_TIMEOUT_S));
  return G_SOURCE_REMOVE;
}

static gboolean
on_start_cancelled_cb (GCancellable *cancellable, gpointer user_data)
{
  GTask *task = user_data;

  start_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Starting the sandbox was cancelled."));
  return G_SOURCE_REMOVE;
}

static void
on_probe_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Start *s = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) answers = ow_executor_runner_probe_finish (OW_EXECUTOR_RUNNER (source), result, &error);
  g_autoptr(GString) failed = g_string_new (NULL);

  if (s->done)
    return;
  if (answers == NULL)
    {
      start_fail (task, g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                     "The sandbox's wall could not be checked from inside, so the session is "
                                     "refused: %s", error->message));
      return;
    }
  for (guint i = 0; i < json_array_get_length (answers); i++)
    {
      JsonObject *a = json_array_get_object_element (answers, i);

      if (a != NULL && !ow_json_get_bool (a, "ok", FALSE))
        g_string_append_printf (failed, "%s%s: %s", failed->len > 0 ? "; " : "", ow_json_get_string (a, "name"),
                                ow_json_get_string (a, "detail"));
    }
  if (json_array_get_length (answers) < json_array_get_length (s->checks))
    g_string_append_printf (failed, "%sthe runner answered %u of %u checks", failed->len > 0 ? "; " : "",
                            json_array_get_length (answers), json_array_get_length (s->checks));
  if (failed->len > 0)
    {
      start_fail (task, g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                     "The sandbox's wall could not be proved from inside, so the session is "
                                     "refused: %s.", failed->str));
      return;
    }
  s->done = TRUE;
  g_clear_handle_id (&s->timeout_id, g_source_remove);
  g_task_return_pointer (task, g_steal_pointer (&s->executor), g_object_unref);
}

static void
on_ready_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Start *s = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) hello = ow_executor_runner_wait_ready_finish (OW_EXECUTOR_RUNNER (source), result, &error);
  g_autofree char *enforcement = NULL;
  JsonObject *wall;

  if (s->done)
    return;
  if (hello == NULL)
    {
      /* A "fatal" reason is already a sentence; a runner that just went
       * away gets what it printed, when it printed anything. */
      if (g_error_matches (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE))
        {
          g_autofree char *tail = g_strstrip (g_strdup (s->drain->tail->str));

          start_fail (task, g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                         "The sandbox could not be started, so the session is refused: %s",
                                         *tail != '\0' ? tail : error->message));
        }
      else
        start_fail (task, g_steal_pointer (&error));
      return;
    }
  wall = ow_json_get_object (hello, "wall");
  if (wall == NULL || !ow_json_get_bool (wall, "seccomp", FALSE) || ow_json_get_int (wall, "landlock_abi", 0) < 1)
    {
      start_fail (task, g_error_new_literal (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                             "The tool runner started without its wall, so the session is "
                                             "refused; reinstall openworker-tool-runner."));
      return;
    }
  enforcement = g_strdup_printf ("linux: namespaces+landlock(abi %" G_GINT64_FORMAT ")+seccomp%s",
                                 ow_json_get_int (wall, "landlock_abi", 0),
                                 g_strcmp0 (ow_json_get_string (wall, "network"), "open") == 0
                                 ? ", network open" : "");
  ow_executor_runner_set_enforcement (s->executor, enforcement);
  ow_executor_runner_probe_async (s->executor, s->checks, g_task_get_cancellable (task), on_probe_cb,
                                  g_object_ref (task));
}

/* Host entries of @dir, except those leading to something the sandbox
 * shows (@placed), up to MAX_ABSENT_NAMES. */
static JsonArray *
absent_names (const char *dir, GPtrArray *placed)
{
  JsonArray *names = json_array_new ();
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL && json_array_get_length (names) < MAX_ABSENT_NAMES)
    {
      g_autofree char *full = g_build_filename (dir, name, NULL);
      gboolean leads_to_placed = FALSE;

      for (guint i = 0; i < placed->len; i++)
        if (path_within (g_ptr_array_index (placed, i), full))
          leads_to_placed = TRUE;
      if (!leads_to_placed)
        json_array_add_string_element (names, name);
    }
  return names;
}

/* A check that takes nothing but its kind. */
static void
add_probe (JsonArray *checks, const char *kind)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "kind", kind);
  json_array_add_object_element (checks, o);
}

/* The wall's checks for this sandbox. */
static gboolean
names_credential_copy (const OwSandboxSpec *spec, const char *name)
{
  for (guint i = 0; spec->credentials != NULL && i < spec->credentials->len; i++)
    {
      OwCredentialCopy *c = g_ptr_array_index (spec->credentials, i);

      if (g_strcmp0 (c->env_name, name) == 0)
        return TRUE;
    }
  return FALSE;
}

static JsonArray *
build_checks (const OwSandboxSpec *spec, const char *home, GPtrArray *hidden, GPtrArray *placed,
              GPtrArray *bound, int decoy_port)
{
  JsonArray *checks = json_array_new ();
  JsonArray *secret_names = json_array_new ();
  g_auto(GStrv) own_env = g_get_environ ();
  JsonObject *o;

  for (guint i = 0; i < spec->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (spec->roots, i);

      o = json_object_new ();
      json_object_set_string_member (o, "kind", "root");
      json_object_set_string_member (o, "path", r->path);
      json_object_set_boolean_member (o, "writable", r->writable);
      json_array_add_object_element (checks, o);
    }

  for (guint i = 0; i < hidden->len; i++)
    {
      const char *h = g_ptr_array_index (hidden, i);
      gboolean masked = FALSE, skeleton = FALSE, granted = FALSE;
      struct stat st;

      if (lstat (h, &st) != 0)
        continue;
      for (guint k = 0; k < spec->roots->len; k++)
        {
          OwRoot *r = g_ptr_array_index (spec->roots, k);

          if (g_str_equal (r->path, h))
            granted = TRUE;
        }
      if (granted)
        continue;
      for (guint k = 0; k < bound->len; k++)
        if (path_within (h, g_ptr_array_index (bound, k)) && !g_str_equal (h, g_ptr_array_index (bound, k)))
          masked = TRUE;
      for (guint k = 0; k < placed->len; k++)
        if (path_within (g_ptr_array_index (placed, k), h))
          skeleton = TRUE;

      o = json_object_new ();
      json_object_set_string_member (o, "kind", "hidden");
      json_object_set_string_member (o, "path", h);
      /* Masked (inside something bound) or a skeleton folder on the way
       * to something shown: it exists inside, but none of its host
       * entries may. Anything else must not exist at all. */
      if (masked || skeleton || g_str_equal (h, home))
        json_object_set_array_member (o, "absent", S_ISDIR (st.st_mode) ? absent_names (h, placed)
                                                                        : json_array_new ());
      else
        json_object_set_boolean_member (o, "must_not_exist", TRUE);
      json_array_add_object_element (checks, o);
    }

  if (!spec->network_open)
    {
      o = json_object_new ();
      json_object_set_string_member (o, "kind", "port_closed");
      json_object_set_string_member (o, "host", "127.0.0.1");
      json_object_set_int_member (o, "port", decoy_port);
      json_array_add_object_element (checks, o);
      add_probe (checks, "net_isolated");
      if (spec->proxy_socket != NULL)
        add_probe (checks, "proxy");
    }
  add_probe (checks, "landlock");
  add_probe (checks, "seccomp");
  add_probe (checks, "no_new_privs");
  add_probe (checks, "capabilities");
  o = json_object_new ();
  json_object_set_string_member (o, "kind", "pid_hidden");
  json_object_set_int_member (o, "pid", getpid ());
  json_array_add_object_element (checks, o);

  /* Every variable of this process or the spec that is not on the allow
   * list (and is not a credential copy's path) must be missing from what
   * the tools get. */
  for (int pass = 0; pass < 2; pass++)
    {
      const char *const *env = pass == 0 ? (const char *const *) own_env : spec->env;

      for (guint i = 0; env != NULL && env[i] != NULL; i++)
        {
          g_autofree char *name = g_strndup (env[i], strcspn (env[i], "="));

          if (!ow_secret_env_name_allowed (name) && !names_credential_copy (spec, name)
              && g_utf8_validate (name, -1, NULL))
            json_array_add_string_element (secret_names, name);
        }
    }
  o = json_object_new ();
  json_object_set_string_member (o, "kind", "env_absent");
  json_object_set_array_member (o, "names", secret_names);
  json_array_add_object_element (checks, o);
  return checks;
}

static JsonArray *
strv_to_json (const char *const *v)
{
  JsonArray *a = json_array_new ();

  for (guint i = 0; v != NULL && v[i] != NULL; i++)
    if (g_utf8_validate (v[i], -1, NULL))
      json_array_add_string_element (a, v[i]);
  return a;
}

/* A loopback port on the host that is really listening, so that failing
 * to reach it from inside proves the network namespace. */
static GSocket *
open_decoy (int *port, GError **error)
{
  g_autoptr(GSocket) sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, error);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  if (sock == NULL || !g_socket_bind (sock, addr, FALSE, error) || !g_socket_listen (sock, error))
    return NULL;
  bound = g_socket_get_local_address (sock, error);
  if (bound == NULL)
    return NULL;
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  return g_steal_pointer (&sock);
}

static void
add_unique (GPtrArray *list, const char *path)
{
  for (guint i = 0; i < list->len; i++)
    if (g_str_equal (g_ptr_array_index (list, i), path))
      return;
  g_ptr_array_add (list, g_strdup (path));
}

static void
linux_start_async (OwSandboxBackend    *backend,
                   const OwSandboxSpec *spec,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  OwSandboxLinux *self = OW_SANDBOX_LINUX (backend);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  g_autofree char *runner = resolve_runner (self, spec->runner_path);
  g_auto(GStrv) tools_env = NULL;
  g_autoptr(GPtrArray) hidden = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) placed = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) bound = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(JsonObject) frame = json_object_new ();
  g_autoptr(OwPaths) paths = ow_paths_new_default ();
  g_autoptr(GSocket) sock = NULL;
  g_autoptr(GSocketConnection) conn = NULL;
  g_autofree char *scratch = NULL, *mount_point = NULL, *home = NULL, *net = NULL;
  gboolean scratch_owned = FALSE;
  JsonArray *roots_json, *creds_json;
  Start *s;
  Cleanup *cleanup;
  int abi = landlock_abi (), sv[2], decoy_port = 0;
  const char *home_env;

  g_task_set_source_tag (task, linux_start_async);
  s = g_new0 (Start, 1);
  g_task_set_task_data (task, s, (GDestroyNotify) start_free);

  /* 1. What can be checked here. */
  if (abi < 1)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "Landlock is not available in this kernel (it needs Linux 5.13 or later built with "
                               "CONFIG_SECURITY_LANDLOCK and \"landlock\" in the lsm= boot parameter), so the "
                               "Linux sandbox cannot confine files and the session is refused. Use a kernel with "
                               "Landlock, or set sandbox_provider = \"direct\".");
      return;
    }
  if (runner == NULL || !is_executable (runner))
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "openworker-tool-runner was not found%s%s, so the session is refused. Install it "
                               "next to openworker or point OPENWORKER_TOOL_RUNNER at it.",
                               runner != NULL ? " at " : "", runner != NULL ? runner : "");
      return;
    }
  if (spec->roots == NULL || spec->roots->len == 0)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "The session has no folder to give the sandbox.");
      return;
    }
  for (guint i = 0; i < spec->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (spec->roots, i);

      if (r->path == NULL || !g_path_is_absolute (r->path) || !g_file_test (r->path, G_FILE_TEST_IS_DIR))
        {
          g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                   "The session's folder %s does not exist; the sandbox cannot show it.",
                                   r->path != NULL ? r->path : "(none)");
          return;
        }
      if (g_str_equal (r->path, "/"))
        {
          g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                   "The whole file system (/) cannot be a session folder in the Linux sandbox; "
                                   "choose the project's folder.");
          return;
        }
    }
  if (!spec->network_open && spec->proxy_socket != NULL)
    {
      GStatBuf st;

      if (g_stat (spec->proxy_socket, &st) != 0 || !S_ISSOCK (st.st_mode))
        {
          g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                   "The allow-list proxy's socket %s is missing, so the sandbox would have no "
                                   "way out; start the proxy first.", spec->proxy_socket);
          return;
        }
    }

  /* The tools' environment, filtered again here: what reaches a tool
   * must never depend on the caller having remembered. */
  tools_env = ow_tool_environment (spec->env);
  /* A credential copy's variable names a path inside the sandbox, set by
   * ow_credentials_environ(); it is not on the allow list, by name. */
  for (guint i = 0; spec->credentials != NULL && i < spec->credentials->len; i++)
    {
      OwCredentialCopy *c = g_ptr_array_index (spec->credentials, i);
      const char *value = c->env_name != NULL && spec->env != NULL
                            ? g_environ_getenv ((char **) spec->env, c->env_name) : NULL;

      if (value != NULL)
        tools_env = g_environ_setenv (tools_env, c->env_name, value, TRUE);
    }
  home_env = g_environ_getenv (tools_env, "HOME");
  if (home_env == NULL && spec->env != NULL)
    home_env = g_environ_getenv ((char **) spec->env, "HOME");
  home = canonical (home_env != NULL && g_path_is_absolute (home_env) ? home_env : g_get_home_dir ());
  if (g_str_equal (home, "/"))
    {
      g_free (home);
      home = g_strdup ("/home/sandbox");
    }

  /* What the sandbox shows, and what it must not. */
  for (guint i = 0; system_paths[i] != NULL; i++)
    if (g_file_test (system_paths[i], G_FILE_TEST_IS_DIR) && !g_file_test (system_paths[i], G_FILE_TEST_IS_SYMLINK))
      {
        add_unique (placed, system_paths[i]);
        add_unique (bound, system_paths[i]);
      }
  add_unique (placed, home);
  for (guint i = 0; i < spec->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (spec->roots, i);

      add_unique (placed, r->path);
      add_unique (bound, r->path);
    }
  for (int pass = 0; pass < 2; pass++)
    {
      const char *const *list = pass == 0 ? git_settings : spec->toolchains;

      for (guint i = 0; list != NULL && list[i] != NULL; i++)
        {
          g_autofree char *p = g_build_filename (home, list[i], NULL);

          if (g_file_test (p, G_FILE_TEST_EXISTS))
            {
              add_unique (placed, p);
              add_unique (bound, p);
            }
        }
    }
  for (guint i = 0; spec->credentials != NULL && i < spec->credentials->len; i++)
    {
      OwCredentialCopy *c = g_ptr_array_index (spec->credentials, i);
      g_autofree char *p = c->dest != NULL ? g_build_filename (home, c->dest, NULL) : NULL;

      if (p != NULL)
        add_unique (placed, p);
    }
  for (guint i = 0; spec->hidden != NULL && spec->hidden[i] != NULL; i++)
    {
      g_autofree char *c = canonical (spec->hidden[i]);

      add_unique (hidden, c);
    }
  {
    g_autofree char *own_home = canonical (g_get_home_dir ());
    const char *own[] = { own_home, paths->config_dir, paths->state_dir, paths->runtime_dir };

    for (guint i = 0; i < G_N_ELEMENTS (own); i++)
      if (own[i] != NULL)
        {
          g_autofree char *c = canonical (own[i]);

          add_unique (hidden, c);
        }
  }
  for (guint i = 0; system_secrets[i] != NULL; i++)
    add_unique (hidden, system_secrets[i]);
  {
    g_autoptr(GDir) d = g_dir_open ("/etc/ssh", 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      if (g_str_has_prefix (name, "ssh_host_") && g_str_has_suffix (name, "_key"))
        {
          g_autofree char *p = g_build_filename ("/etc/ssh", name, NULL);

          add_unique (hidden, p);
        }
  }

  /* The folder the new root is mounted over: empty on the host, always. */
  if (spec->scratch_dir != NULL)
    {
      scratch = g_strdup (spec->scratch_dir);
      if (g_mkdir_with_parents (scratch, 0700) != 0)
        {
          g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                   "Cannot create the sandbox's scratch folder %s: %s.", scratch,
                                   g_strerror (errno));
          return;
        }
    }
  else
    {
      scratch = g_dir_make_tmp ("openworker-sandbox-XXXXXX", &error);
      if (scratch == NULL)
        {
          g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                   "Cannot create the sandbox's scratch folder: %s.", error->message);
          return;
        }
      scratch_owned = TRUE;
    }
  mount_point = g_build_filename (scratch, "root-XXXXXX", NULL);
  if (g_mkdtemp_full (mount_point, 0700) == NULL)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "Cannot create the sandbox's root folder in %s: %s.", scratch, g_strerror (errno));
      if (scratch_owned)
        g_rmdir (scratch);
      return;
    }

  /* 2. Spawn the runner with its end of a socketpair as fd 3. */
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "Cannot make a connection for the tool runner: %s.", g_strerror (errno));
      g_rmdir (mount_point);
      if (scratch_owned)
        g_rmdir (scratch);
      return;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  {
    /* The runner's own environment: nothing of ours, except the
     * sanitizers' settings in instrumented builds. */
    g_auto(GStrv) own = g_get_environ ();
    g_autoptr(GStrvBuilder) env = g_strv_builder_new ();
    g_auto(GStrv) envv = NULL;

    g_strv_builder_add (env, "PATH=/usr/local/bin:/usr/bin:/bin");
    for (guint i = 0; own[i] != NULL; i++)
      if (g_str_has_prefix (own[i], "ASAN_OPTIONS=") || g_str_has_prefix (own[i], "UBSAN_OPTIONS=")
          || g_str_has_prefix (own[i], "LSAN_OPTIONS="))
        g_strv_builder_add (env, own[i]);
    envv = g_strv_builder_end (env);
    g_subprocess_launcher_set_environ (launcher, envv);
  }
  g_subprocess_launcher_set_cwd (launcher, "/");
  g_subprocess_launcher_take_fd (launcher, sv[1], 3);
  s->process = g_subprocess_launcher_spawn (launcher, &error, runner, "--wall", NULL);
  if (s->process == NULL)
    {
      close (sv[0]);
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "Cannot start openworker-tool-runner (%s): %s.", runner, error->message);
      g_rmdir (mount_point);
      if (scratch_owned)
        g_rmdir (scratch);
      return;
    }
  cleanup = g_new0 (Cleanup, 1);
  cleanup->mount_point = g_strdup (mount_point);
  cleanup->scratch = scratch_owned ? g_strdup (scratch) : NULL;
  g_subprocess_wait_async (s->process, NULL, on_runner_exited_cb, cleanup);

  s->drain = g_new0 (Drain, 1);
  g_atomic_ref_count_init (&s->drain->ref);
  s->drain->in = g_object_ref (g_subprocess_get_stderr_pipe (s->process));
  s->drain->tail = g_string_new (NULL);
  g_input_stream_read_async (s->drain->in, s->drain->buf, sizeof s->drain->buf, G_PRIORITY_DEFAULT, NULL,
                             on_drain_read_cb, drain_ref (s->drain));

  sock = g_socket_new_from_fd (sv[0], &error);
  if (sock == NULL)
    {
      close (sv[0]);
      start_fail (task, g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                     "Cannot talk to the tool runner: %s.", error->message));
      return;
    }
  conn = g_socket_connection_factory_create_connection (sock);
  s->executor = OW_EXECUTOR_RUNNER (ow_executor_runner_new (G_IO_STREAM (conn), s->process,
                                                            "linux: namespaces+landlock+seccomp (starting)"));

  /* 3. Describe the wall. */
  net = g_strdup (spec->network_open ? "open" : spec->proxy_socket != NULL ? "proxy" : "none");
  json_object_set_string_member (frame, "op", "wall");
  json_object_set_string_member (frame, "mount_point", mount_point);
  json_object_set_string_member (frame, "home", home);
  roots_json = json_array_new ();
  for (guint i = 0; i < spec->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (spec->roots, i);
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "path", r->path);
      json_object_set_boolean_member (o, "writable", r->writable);
      json_array_add_object_element (roots_json, o);
    }
  json_object_set_array_member (frame, "roots", roots_json);
  json_object_set_array_member (frame, "env", strv_to_json ((const char *const *) tools_env));
  g_ptr_array_add (hidden, NULL);
  json_object_set_array_member (frame, "hidden", strv_to_json ((const char *const *) hidden->pdata));
  g_ptr_array_remove_index (hidden, hidden->len - 1);
  json_object_set_array_member (frame, "toolchains", strv_to_json (spec->toolchains));
  creds_json = json_array_new ();
  for (guint i = 0; spec->credentials != NULL && i < spec->credentials->len; i++)
    {
      OwCredentialCopy *c = g_ptr_array_index (spec->credentials, i);
      JsonObject *o;

      if (c->source == NULL || c->dest == NULL)
        continue;
      o = json_object_new ();
      json_object_set_string_member (o, "source", c->source);
      json_object_set_string_member (o, "dest", c->dest);
      if (c->env_name != NULL)
        json_object_set_string_member (o, "env", c->env_name);
      json_array_add_object_element (creds_json, o);
    }
  json_object_set_array_member (frame, "credentials", creds_json);
  if (spec->proxy_socket != NULL && !spec->network_open)
    json_object_set_string_member (frame, "proxy_socket", spec->proxy_socket);
  json_object_set_string_member (frame, "network", net);
  ow_executor_runner_send (s->executor, frame);

  /* 4. The proof, sent once the runner says hello. */
  if (!spec->network_open)
    {
      s->decoy = open_decoy (&decoy_port, &error);
      if (s->decoy == NULL)
        {
          start_fail (task, g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                         "Cannot open a loopback port to test the sandbox's network against: %s.",
                                         error->message));
          return;
        }
    }
  s->checks = build_checks (spec, home, hidden, placed, bound, decoy_port);
  s->timeout_id = g_timeout_add_seconds (START_TIMEOUT_S, on_start_timeout_cb, task);
  if (cancellable != NULL)
    {
      s->cancel = g_cancellable_source_new (cancellable);
      g_source_set_callback (s->cancel, G_SOURCE_FUNC (on_start_cancelled_cb), task, NULL);
      g_source_attach (s->cancel, g_main_context_get_thread_default ());
    }
  ow_executor_runner_wait_ready_async (s->executor, cancellable, on_ready_cb, g_object_ref (task));
}

static OwExecutor *
linux_start_finish (OwSandboxBackend *backend, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, backend), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
backend_iface_init (OwSandboxBackendInterface *iface)
{
  iface->get_name = linux_get_name;
  iface->status = linux_status;
  iface->start_async = linux_start_async;
  iface->start_finish = linux_start_finish;
}

/* ---- the object ------------------------------------------------------------- */

static void
ow_sandbox_linux_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwSandboxLinux *self = OW_SANDBOX_LINUX (object);

  switch (prop_id)
    {
    case PROP_RUNNER_PATH:
      g_value_set_string (value, self->runner_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_sandbox_linux_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  OwSandboxLinux *self = OW_SANDBOX_LINUX (object);

  switch (prop_id)
    {
    case PROP_RUNNER_PATH:
      g_free (self->runner_path);
      self->runner_path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_sandbox_linux_finalize (GObject *object)
{
  OwSandboxLinux *self = OW_SANDBOX_LINUX (object);

  g_free (self->runner_path);
  G_OBJECT_CLASS (ow_sandbox_linux_parent_class)->finalize (object);
}

static void
ow_sandbox_linux_class_init (OwSandboxLinuxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ow_sandbox_linux_get_property;
  object_class->set_property = ow_sandbox_linux_set_property;
  object_class->finalize = ow_sandbox_linux_finalize;

  props[PROP_RUNNER_PATH] = g_param_spec_string ("runner-path", NULL, NULL, NULL,
                                                 G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY
                                                 | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ow_sandbox_linux_init (OwSandboxLinux *self)
{
}

OwSandboxBackend *
ow_sandbox_linux_new (const char *runner_path)
{
  return g_object_new (OW_TYPE_SANDBOX_LINUX, "runner-path", runner_path, NULL);
}

static OwSandboxBackend *
linux_factory (GError **error)
{
  return ow_sandbox_linux_new (NULL);
}

void
ow_sandbox_linux_register (void)
{
  ow_sandbox_backend_register ("linux", linux_factory);
  /* The same kernel parts guard every command in direct mode. */
  ow_executor_set_guard_impl (ow_guard_impl ());
}
