/* ow-sandbox-openshell.c: one OpenShell sandbox per agent, driven by its CLI.
 *
 * What a sandbox gets (docs/openshell.md): the session's folders as bind
 * mounts at the same absolute paths, read-only where the session has them
 * read-only; the tool runner as a read-only mount (one file, never part of
 * an image) started as the sandbox's main command, so it lives as long as
 * the sandbox; a whole policy rendered here (the folders, the user that
 * owns them, the network allow list, Landlock as a hard requirement); no
 * OpenShell credential providers. Credentials shared on purpose are copied
 * into a private home under the session's scratch folder and mounted
 * read-write at the same path (never under /tmp: the gateway NVIDIA's
 * installer sets up runs with a private /tmp and could not mount it).
 *
 * The engine talks to the runner over OpenShell's exec stream: `openshell
 * sandbox exec` runs the runner's attach mode inside the sandbox, and that
 * command's stdin and stdout carry the runner's framed protocol to the
 * runner listening on its socket. No port is opened, nothing forwarded.
 *
 * Only the allow list exists here: "open" is refused, because an OpenShell
 * policy has to name each site. Folders added to a running session
 * recreate the sandbox (filesystem rules are fixed at creation; shell state
 * is lost and the executor says so with "sandbox-recreated"); sites
 * granted for the session are added to the running one. The sandbox is
 * deleted when the executor goes.
 *
 * A session is refused, with the reason, when: the network is "open"; the
 * `openshell` command is missing or not a 0.1 release; the gateway is not
 * Connected; the base image is not downloaded ("needs download", with the
 * `docker pull` line); the gateway does not allow bind mounts; Docker's
 * kernel has no Landlock ("Update Docker Desktop…"); the sandbox does not
 * become Ready; or the wall cannot be proved from inside (every folder
 * reachable as granted, the person's home and OpenWorker's state absent).
 *
 * Every command line is in the table below. Where the seed pages are
 * silent the choices are: the policy is written as JSON (YAML 1.2 reads
 * it); readiness is polled with `sandbox get NAME` until its text says
 * Ready; the exec command is the runner's `--attach SOCKET` mode; the
 * image and Landlock questions go to `docker`, and when docker is not
 * there they are not asked (the create then says what is wrong).
 * Finding from the original's spike on 0.0.x: without a terminal,
 * `sandbox exec` read all of stdin before sending anything; 0.1 streams
 * (its exec is a gRPC stream), which is what this backend relies on.
 */
#define G_LOG_DOMAIN "ow-openshell"

#include "sandbox/ow-sandbox-openshell.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ow-error.h"
#include "sandbox/ow-credentials.h"
#include "sandbox/ow-executor-runner.h"

/* ---- every command line, in one place ------------------------------------ */

typedef enum {
  CMD_VERSION,
  CMD_STATUS,
  CMD_IMAGE_PRESENT,
  CMD_LANDLOCK,
  CMD_CREATE,
  CMD_GET,
  CMD_EXEC,
  CMD_DELETE,
  CMD_LIST,
  CMD_ADD_ENDPOINT,
} Cmd;

/* One invocation: the program and its arguments. "{x}" is replaced by one
 * value; "{x…}" by a list of them (nothing when empty). */
typedef struct {
  Cmd         cmd;       /* which one */
  gboolean    docker;    /* run `docker`, not `openshell` */
  const char *argv[24];  /* the arguments, NULL-terminated */
} Invocation;

static const Invocation invocations[] = {
  /* "openshell 0.1.2": the release. */
  { CMD_VERSION, FALSE, { "--version", NULL } },
  /* The gateway: "Connected" when it can be used. */
  { CMD_STATUS, FALSE, { "status", NULL } },
  /* Whether the base image is here (exit 0) or needs the 5 GB download. */
  { CMD_IMAGE_PRESENT, TRUE, { "image", "inspect", "--format", "{{.Id}}", "{image}", NULL } },
  /* The LSMs of Docker's kernel; OpenShell needs "landlock" among them. */
  { CMD_LANDLOCK, TRUE, { "run", "--rm", "--network", "none", "--entrypoint", "cat", "{image}",
                          "/sys/kernel/security/lsm", NULL } },
  /* One sandbox per agent; the runner is its main command. */
  { CMD_CREATE, FALSE, { "sandbox", "create", "--name", "{name}", "--from", "{image}", "--policy", "{policy}",
                         "--driver-config-json", "{mounts}", "--no-tty", "--detach", "--no-auto-providers",
                         "--label", "openworker=1", "--label", "{session_label}", "{env…}", "--", "{main…}",
                         NULL } },
  /* Its phase, polled until it says Ready. */
  { CMD_GET, FALSE, { "sandbox", "get", "{name}", NULL } },
  /* The runner's stream: stdin and stdout are the framed protocol. */
  { CMD_EXEC, FALSE, { "sandbox", "exec", "--name", "{name}", "--no-tty", "--", "{attach…}", NULL } },
  { CMD_DELETE, FALSE, { "sandbox", "delete", "{name}", NULL } },
  /* OpenWorker's sandboxes on this gateway, for the status. */
  { CMD_LIST, FALSE, { "sandbox", "list", "--selector", "openworker=1", "--names", NULL } },
  /* A site granted while the sandbox runs; the binary pattern lets any program use it. */
  { CMD_ADD_ENDPOINT, FALSE, { "policy", "update", "{name}", "--add-endpoint", "{endpoint}", "--binary", "/**",
                               "--wait", NULL } },
};

/* Values for one invocation's placeholders. */
typedef struct {
  const char        *name;           /* the sandbox */
  const char        *image;
  const char        *policy;         /* the policy file */
  const char        *mounts;         /* --driver-config-json */
  const char        *session_label;  /* "openworker-session=ID" */
  const char        *endpoint;       /* "host:port" */
  const char *const *env;            /* "NAME=value" → --env NAME=value each */
  const char *const *main;           /* the main command */
  const char *const *attach;         /* the exec command */
} Values;

static const char *
value_of (const Values *v, const char *key)
{
  if (g_str_equal (key, "name"))
    return v->name;
  if (g_str_equal (key, "image"))
    return v->image;
  if (g_str_equal (key, "policy"))
    return v->policy;
  if (g_str_equal (key, "mounts"))
    return v->mounts;
  if (g_str_equal (key, "session_label"))
    return v->session_label;
  if (g_str_equal (key, "endpoint"))
    return v->endpoint;
  return NULL;
}

/* The argv of @cmd with @program first. */
static GStrv
build_argv (Cmd cmd, const char *program, const Values *v)
{
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();
  const Invocation *inv = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (invocations); i++)
    if (invocations[i].cmd == cmd)
      inv = &invocations[i];
  g_assert (inv != NULL);
  g_strv_builder_add (b, program);
  for (gsize i = 0; inv->argv[i] != NULL; i++)
    {
      const char *a = inv->argv[i];

      if (g_str_equal (a, "{env…}"))
        {
          for (gsize j = 0; v->env != NULL && v->env[j] != NULL; j++)
            {
              g_strv_builder_add (b, "--env");
              g_strv_builder_add (b, v->env[j]);
            }
        }
      else if (g_str_equal (a, "{main…}") || g_str_equal (a, "{attach…}"))
        {
          const char *const *list = a[1] == 'm' ? v->main : v->attach;

          for (gsize j = 0; list != NULL && list[j] != NULL; j++)
            g_strv_builder_add (b, list[j]);
        }
      else if (a[0] == '{' && a[1] != '{')
        {
          g_autofree char *key = g_strndup (a + 1, strlen (a) - 2);
          const char *val = value_of (v, key);

          g_assert (val != NULL);
          g_strv_builder_add (b, val);
        }
      else
        g_strv_builder_add (b, a);
    }
  return g_strv_builder_end (b);
}

static gboolean
is_docker (Cmd cmd)
{
  for (gsize i = 0; i < G_N_ELEMENTS (invocations); i++)
    if (invocations[i].cmd == cmd)
      return invocations[i].docker;
  return FALSE;
}

/* ---- the backend ---------------------------------------------------------- */

struct _OwSandboxOpenshell
{
  GObject parent_instance;

  /* owned */
  char   *openshell;         /* the CLI as configured (may be a bare name) */
  char   *docker;            /* docker as configured, or NULL */
  char   *image;             /* the base image */
  GStrv   network_hosts;     /* the machine's allow list */
  guint   ready_timeout_ms;  /* how long create may take to be Ready */
};

static void ow_sandbox_openshell_backend_init (OwSandboxBackendInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSandboxOpenshell, ow_sandbox_openshell, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SANDBOX_BACKEND, ow_sandbox_openshell_backend_init))

/* The program for @cmd as an absolute path, or NULL when not installed. */
static char *
program_for (OwSandboxOpenshell *self, Cmd cmd)
{
  const char *p = is_docker (cmd) ? (self->docker != NULL ? self->docker : "docker") : self->openshell;

  if (g_path_is_absolute (p))
    return g_file_test (p, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup (p) : NULL;
  return g_find_program_in_path (p);
}

/* Runs @cmd to completion. FALSE (with @error) only when it could not be
 * run at all; otherwise its exit status and output are returned. */
static gboolean
run_cmd (OwSandboxOpenshell *self,
         Cmd                 cmd,
         const Values       *values,
         GCancellable       *cancellable,
         int                *exit_status,
         char              **out,
         char              **err,
         GError            **error)
{
  g_autofree char *program = program_for (self, cmd);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_auto(GStrv) argv = NULL;

  if (program == NULL)
    {
      if (is_docker (cmd))
        g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                     "`%s` is not on this machine, so OpenWorker cannot ask Docker about the sandbox image.",
                     self->docker != NULL ? self->docker : "docker");
      else
        g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                     "OpenShell is not installed on this machine (no `%s` command). Run `openworker machine "
                     "sandbox setup`, or install OpenShell %s yourself.",
                     self->openshell, OW_OPENSHELL_TESTED_VERSION);
      return FALSE;
    }
  argv = build_argv (cmd, program, values);
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN) == FALSE)
    {
      g_autofree char *line = g_strjoinv (" ", argv);

      g_debug ("running %s", line);
    }
  /* Stdin is a pipe closed at once: a command that reads it gets nothing
   * and never waits for this process's own input. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  /* No terminal colours in what is parsed here. */
  g_subprocess_launcher_setenv (launcher, "NO_COLOR", "1", TRUE);
  proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv, error);
  if (proc == NULL)
    return FALSE;
  if (!g_subprocess_communicate_utf8 (proc, NULL, cancellable, out, err, error))
    {
      g_subprocess_force_exit (proc);
      return FALSE;
    }
  *exit_status = g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : 255;
  return TRUE;
}

/* The last 400 bytes of what a command said, for a message. */
static char *
tail_of (const char *err, const char *out)
{
  const char *s = err != NULL && *err != '\0' ? err : out != NULL ? out : "";
  gsize n = strlen (s);
  g_autofree char *t = g_strdup (n > 400 ? s + n - 400 : s);

  return g_strdup (g_strstrip (t));
}

/* ---- the policy --------------------------------------------------------- */

/* System paths every sandbox needs, read-only. With Landlock a hard
 * requirement each must exist in the image, so this is the smallest set
 * a merged-/usr image has; /sandbox holds the base image's own tools. */
static const char *const system_read_only[] = {
  "/usr", "/lib", "/etc", "/proc", "/dev/urandom", "/var/log", "/sandbox", NULL,
};
static const char *const system_read_write[] = { "/tmp", "/dev/null", "/dev/pts", NULL };

static void
add_strings (JsonBuilder *b, const char *const *list)
{
  for (gsize i = 0; list != NULL && list[i] != NULL; i++)
    json_builder_add_string_value (b, list[i]);
}

/* "host:port" → host and port; FALSE when it is not that. */
static gboolean
split_host_port (const char *entry, char **host, gint64 *port)
{
  const char *colon = strrchr (entry, ':');
  char *end = NULL;
  gint64 p;

  if (colon == NULL || colon == entry || colon[1] == '\0')
    return FALSE;
  p = g_ascii_strtoll (colon + 1, &end, 10);
  if (*end != '\0' || p < 1 || p > 65535)
    return FALSE;
  *host = g_strndup (entry, (gsize) (colon - entry));
  *port = p;
  return TRUE;
}

char *
ow_openshell_render_policy (GPtrArray         *roots,
                            const char        *home,
                            gint64             uid,
                            gint64             gid,
                            const char *const *hosts,
                            GError           **error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *user = uid >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, uid) : g_strdup ("sandbox");
  g_autofree char *group = gid >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, gid) : g_strdup ("sandbox");

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);

  json_builder_set_member_name (b, "filesystem_policy");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "include_workdir");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "read_only");
  json_builder_begin_array (b);
  add_strings (b, system_read_only);
  json_builder_add_string_value (b, "/opt/openworker");
  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);

      if (!r->writable)
        json_builder_add_string_value (b, r->path);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "read_write");
  json_builder_begin_array (b);
  add_strings (b, system_read_write);
  if (home != NULL)
    json_builder_add_string_value (b, home);
  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);

      if (r->writable)
        json_builder_add_string_value (b, r->path);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  /* A kernel without Landlock refuses to start the sandbox instead of
   * running it open. */
  json_builder_set_member_name (b, "landlock");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "compatibility");
  json_builder_add_string_value (b, "hard_requirement");
  json_builder_end_object (b);

  /* The folders' owner, so the tools can write where the person can. */
  json_builder_set_member_name (b, "process");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "run_as_user");
  json_builder_add_string_value (b, user);
  json_builder_set_member_name (b, "run_as_group");
  json_builder_add_string_value (b, group);
  json_builder_end_object (b);

  /* The allow list: every site any program in the sandbox may reach. */
  json_builder_set_member_name (b, "network_policies");
  json_builder_begin_object (b);
  if (hosts != NULL && hosts[0] != NULL)
    {
      json_builder_set_member_name (b, "openworker_allow_list");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, "openworker-allow-list");
      json_builder_set_member_name (b, "endpoints");
      json_builder_begin_array (b);
      for (gsize i = 0; hosts[i] != NULL; i++)
        {
          g_autofree char *host = NULL;
          gint64 port;

          if (!split_host_port (hosts[i], &host, &port))
            {
              g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                           "The allow-list entry “%s” is not host:port; fix it in Settings ▸ Sandbox or in "
                           "sandbox_network_hosts.", hosts[i]);
              return NULL;
            }
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "host");
          json_builder_add_string_value (b, host);
          json_builder_set_member_name (b, "port");
          json_builder_add_int_value (b, port);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "binaries");
      json_builder_begin_array (b);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "path");
      json_builder_add_string_value (b, "/**");
      json_builder_end_object (b);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

static void
add_mount (JsonBuilder *b, const char *source, const char *target, gboolean read_only)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "bind");
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source);
  json_builder_set_member_name (b, "target");
  json_builder_add_string_value (b, target);
  json_builder_set_member_name (b, "read_only");
  json_builder_add_boolean_value (b, read_only);
  json_builder_end_object (b);
}

char *
ow_openshell_render_mounts (GPtrArray *roots, const char *runner_path, const char *home)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "docker");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mounts");
  json_builder_begin_array (b);
  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);

      add_mount (b, r->path, r->path, !r->writable);
    }
  add_mount (b, runner_path, OW_OPENSHELL_RUNNER, TRUE);
  if (home != NULL)
    add_mount (b, home, home, FALSE);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}

/* ---- status ------------------------------------------------------------- */

static void
add_check (JsonArray *checks, JsonArray *missing, const char *name, gboolean ok, const char *detail)
{
  JsonObject *c = json_object_new ();

  json_object_set_string_member (c, "name", name);
  json_object_set_boolean_member (c, "ok", ok);
  json_object_set_string_member (c, "detail", detail);
  json_array_add_object_element (checks, c);
  if (!ok)
    json_array_add_string_element (missing, detail);
}

/* The release "0.1.2" from "openshell 0.1.2", or NULL. */
static char *
parse_version (const char *out)
{
  g_auto(GStrv) words = g_strsplit_set (out != NULL ? out : "", " \t\r\n", -1);
  char *found = NULL;

  for (gsize i = 0; words[i] != NULL; i++)
    if (g_ascii_isdigit (words[i][0]) || (words[i][0] == 'v' && g_ascii_isdigit (words[i][1])))
      {
        g_free (found);
        found = g_strdup (words[i][0] == 'v' ? words[i] + 1 : words[i]);
      }
  return found;
}

/* Checks shared by status() and a session's start: installed, the right
 * release, the gateway connected, the image here. Each writes a check and,
 * on failure, @error (the first one). Returns FALSE at the first failure
 * when @stop_early. */
static gboolean
preflight (OwSandboxOpenshell *self,
           JsonArray          *checks,
           JsonArray          *missing,
           gboolean            stop_early,
           GCancellable       *cancellable,
           GError            **error)
{
  Values v = { .image = self->image };
  g_autofree char *out = NULL, *err = NULL, *version = NULL;
  g_autoptr(GError) local = NULL;
  gboolean ok = TRUE;
  int status = 0;

  /* Installed, and a 0.1 release. */
  if (!run_cmd (self, CMD_VERSION, &v, cancellable, &status, &out, &err, &local))
    {
      add_check (checks, missing, "openshell installed", FALSE, local->message);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  version = parse_version (out);
  if (status != 0 || version == NULL || !g_str_has_prefix (version, OW_OPENSHELL_VERSION_PREFIX))
    {
      g_autofree char *msg = g_strdup_printf (
        "OpenShell %s is installed; OpenWorker works with the %sx releases (tested with %s). Install that "
        "release (`openworker machine sandbox setup`).",
        version != NULL ? version : "(unknown version)", OW_OPENSHELL_VERSION_PREFIX, OW_OPENSHELL_TESTED_VERSION);

      add_check (checks, missing, "openshell installed", FALSE, msg);
      g_set_error_literal (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, msg);
      return FALSE;
    }
  {
    g_autofree char *msg = g_strdup_printf ("OpenShell %s", version);

    add_check (checks, missing, "openshell installed", TRUE, msg);
  }

  /* The gateway. */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  if (!run_cmd (self, CMD_STATUS, &v, cancellable, &status, &out, &err, &local) || status != 0 ||
      out == NULL || strstr (out, "Connected") == NULL)
    {
      const char *msg = "The OpenShell gateway is not running or cannot be reached (`openshell status` does not "
                        "say Connected). Start it (on a headless machine: `systemctl --user start openshell-gateway` "
                        "and `loginctl enable-linger`), then start the session again.";

      add_check (checks, missing, "gateway connected", FALSE, msg);
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, msg);
      g_clear_error (&local);
      ok = FALSE;
      if (stop_early)
        return FALSE;
    }
  else
    add_check (checks, missing, "gateway connected", TRUE, "Connected");

  /* The base image: refused rather than hanging on a 5 GB download. */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  if (!run_cmd (self, CMD_IMAGE_PRESENT, &v, cancellable, &status, &out, &err, &local))
    {
      g_autofree char *msg = g_strdup_printf ("cannot be told here (%s)", local->message);

      add_check (checks, missing, "base image downloaded", TRUE, msg);
      g_clear_error (&local);
    }
  else if (status != 0)
    {
      g_autofree char *msg = g_strdup_printf (
        "The sandbox base image is not downloaded yet (needs download: about 5 GB, one time). Run `openworker "
        "machine sandbox setup`, or `docker pull %s`, then start the session again.", self->image);

      add_check (checks, missing, "base image downloaded", FALSE, msg);
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, msg);
      ok = FALSE;
    }
  else
    add_check (checks, missing, "base image downloaded", TRUE, self->image);
  return ok;
}

/* TRUE (with *has) when Docker's kernel could be asked about Landlock. */
static gboolean
ask_landlock (OwSandboxOpenshell *self, GCancellable *cancellable, gboolean *has)
{
  Values v = { .image = self->image };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;

  if (!run_cmd (self, CMD_LANDLOCK, &v, cancellable, &status, &out, &err, NULL) || status != 0 || out == NULL)
    return FALSE;
  *has = strstr (out, "landlock") != NULL;
  return TRUE;
}

#define LANDLOCK_FIX \
  "Update Docker Desktop: this version's Linux kernel has no Landlock, which OpenShell requires to keep a " \
  "sandbox closed (engine 28.0.4 with kernel 6.10 had none; engine 29.8 with kernel 7.0 has it). Then start " \
  "the session again."

static JsonObject *
ow_sandbox_openshell_status (OwSandboxBackend *backend)
{
  OwSandboxOpenshell *self = OW_SANDBOX_OPENSHELL (backend);
  JsonObject *result = json_object_new ();
  JsonArray *checks = json_array_new ();
  JsonArray *missing = json_array_new ();
  gboolean ready = preflight (self, checks, missing, FALSE, NULL, NULL);
  gboolean has = FALSE;

  if (ready && ask_landlock (self, NULL, &has))
    {
      add_check (checks, missing, "landlock", has, has ? "Docker's kernel has Landlock" : LANDLOCK_FIX);
      ready = has;
    }
  if (ready)
    {
      Values v = { 0 };
      g_autofree char *out = NULL, *err = NULL;
      int status = 0;

      if (run_cmd (self, CMD_LIST, &v, NULL, &status, &out, &err, NULL) && status == 0)
        {
          g_auto(GStrv) names = g_strsplit (g_strstrip (out), "\n", -1);
          g_autofree char *msg = g_strdup_printf ("%u running", out[0] == '\0' ? 0u : g_strv_length (names));

          add_check (checks, missing, "openworker sandboxes", TRUE, msg);
        }
    }
  json_object_set_boolean_member (result, "ready", ready);
  json_object_set_array_member (result, "checks", checks);
  json_object_set_array_member (result, "missing", missing);
  return result;
}

static const char *
ow_sandbox_openshell_get_name (OwSandboxBackend *backend)
{
  return "openshell";
}

/* ---- the executor: one sandbox, recreated when folders change -------------- */

#define OW_TYPE_OPENSHELL_EXECUTOR (ow_openshell_executor_get_type ())
G_DECLARE_FINAL_TYPE (OwOpenshellExecutor, ow_openshell_executor, OW, OPENSHELL_EXECUTOR, GObject)

/* A call that arrived while the sandbox was being (re)made. */
typedef struct {
  char  *tool;       /* the tool's name */
  char  *args_text;  /* its arguments */
  GTask *task;       /* completes the caller's execute_async */
} QueuedCall;

static void
queued_call_free (QueuedCall *c)
{
  g_free (c->tool);
  g_free (c->args_text);
  g_clear_object (&c->task);
  g_free (c);
}

struct _OwOpenshellExecutor
{
  GObject parent_instance;

  /* owned */
  OwSandboxOpenshell *backend;       /* the CLI and configuration */
  char               *session_id;    /* for the sandbox's label */
  GPtrArray          *roots;         /* OwRoot*: the folders the current sandbox has */
  GStrv               hosts;         /* the allow list rendered into its policy */
  GPtrArray          *credentials;   /* OwCredentialCopy*, borrowed from the spec's owner (ref) */
  GStrv               hidden;        /* folders that must be absent inside */
  char               *runner_path;   /* the runner on this machine (mounted read-only) */
  char               *runtime_dir;   /* the policy file and the private home live here */
  char               *home;          /* the private home with the copies, or NULL */
  char               *name;          /* the current sandbox, NULL while there is none */
  OwExecutor         *inner;         /* the runner client over the exec stream */
  GPtrArray          *queue;         /* QueuedCall*: calls waiting for the sandbox */
  GError             *broken;        /* why the sandbox cannot be had any more, or NULL */
  gboolean            starting;      /* a (re)creation is under way */
  guint               generation;    /* counts (re)creations, for the sandbox's name */
};

enum { SIGNAL_SANDBOX_RECREATED, N_SIGNALS };
static guint executor_signals[N_SIGNALS];

static void ow_openshell_executor_iface_init (OwExecutorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwOpenshellExecutor, ow_openshell_executor, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_EXECUTOR, ow_openshell_executor_iface_init))

/* Deletes @name on the gateway without waiting (the executor is going). */
static void
delete_in_background (OwSandboxOpenshell *backend, const char *name)
{
  g_autofree char *program = program_for (backend, CMD_DELETE);
  Values v = { .name = name };
  g_auto(GStrv) argv = NULL;
  g_autoptr(GSubprocess) proc = NULL;

  if (program == NULL)
    return;
  argv = build_argv (CMD_DELETE, program, &v);
  proc = g_subprocess_newv ((const char *const *) argv,
                            G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, NULL);
  if (proc != NULL)
    g_subprocess_wait_async (proc, NULL, NULL, NULL);  /* reaped by GIO's child watch */
}

static void
ow_openshell_executor_dispose (GObject *object)
{
  OwOpenshellExecutor *self = OW_OPENSHELL_EXECUTOR (object);

  g_clear_object (&self->inner);
  if (self->name != NULL && self->backend != NULL)
    delete_in_background (self->backend, self->name);
  g_clear_pointer (&self->name, g_free);
  if (self->runtime_dir != NULL)
    {
      /* The copied credentials go with the sandbox; then the folder. */
      if (self->home != NULL && self->credentials != NULL)
        ow_credentials_remove (self->credentials, self->home, NULL);
      if (self->home != NULL)
        g_rmdir (self->home);
      {
        g_autofree char *policy = g_build_filename (self->runtime_dir, "policy.json", NULL);

        g_unlink (policy);
      }
      g_rmdir (self->runtime_dir);
      g_clear_pointer (&self->runtime_dir, g_free);
    }
  if (self->queue != NULL)
    {
      for (guint i = 0; i < self->queue->len; i++)
        {
          QueuedCall *c = g_ptr_array_index (self->queue, i);

          g_task_return_new_error (c->task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                   "The session's sandbox was closed before the call could run.");
        }
      g_ptr_array_set_size (self->queue, 0);
    }
  g_clear_object (&self->backend);
  G_OBJECT_CLASS (ow_openshell_executor_parent_class)->dispose (object);
}

static void
ow_openshell_executor_finalize (GObject *object)
{
  OwOpenshellExecutor *self = OW_OPENSHELL_EXECUTOR (object);

  g_free (self->session_id);
  g_clear_pointer (&self->roots, g_ptr_array_unref);
  g_strfreev (self->hosts);
  g_clear_pointer (&self->credentials, g_ptr_array_unref);
  g_strfreev (self->hidden);
  g_free (self->runner_path);
  g_free (self->home);
  g_clear_pointer (&self->queue, g_ptr_array_unref);
  g_clear_error (&self->broken);
  G_OBJECT_CLASS (ow_openshell_executor_parent_class)->finalize (object);
}

static void
ow_openshell_executor_class_init (OwOpenshellExecutorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_openshell_executor_dispose;
  object_class->finalize = ow_openshell_executor_finalize;

  /* The sandbox was made again with new folders: shell state (the working
   * folder, variables, background tasks) is gone, and the agent should be
   * told so. */
  executor_signals[SIGNAL_SANDBOX_RECREATED] =
    g_signal_new ("sandbox-recreated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
ow_openshell_executor_init (OwOpenshellExecutor *self)
{
  self->queue = g_ptr_array_new_with_free_func ((GDestroyNotify) queued_call_free);
}

/* ---- bringing a sandbox up ----------------------------------------------- */

/* What the worker thread needs, copied so the main thread may go on. */
typedef struct {
  OwSandboxOpenshell *backend;      /* ref */
  char               *name;         /* the sandbox to make */
  char               *old_name;     /* the one to delete first, or NULL */
  char               *session_id;
  GPtrArray          *roots;        /* OwRoot* copies */
  GStrv               hosts;
  GPtrArray          *credentials;  /* ref, or NULL */
  char               *runner_path;
  char               *runtime_dir;
  char               *home;         /* the private home, or NULL without credentials */
} Plan;

static void
plan_free (Plan *p)
{
  g_clear_object (&p->backend);
  g_free (p->name);
  g_free (p->old_name);
  g_free (p->session_id);
  g_clear_pointer (&p->roots, g_ptr_array_unref);
  g_strfreev (p->hosts);
  g_clear_pointer (&p->credentials, g_ptr_array_unref);
  g_free (p->runner_path);
  g_free (p->runtime_dir);
  g_free (p->home);
  g_free (p);
}

/* Classifies a failed create: bind mounts, Landlock, or what it said. */
static void
explain_create_failure (OwSandboxOpenshell *self,
                        const char         *name,
                        const char         *said,
                        GCancellable       *cancellable,
                        GError            **error)
{
  g_autofree char *lower = g_ascii_strdown (said, -1);
  gboolean has = TRUE;

  if (strstr (lower, "bind") != NULL && (strstr (lower, "enable") != NULL || strstr (lower, "not allowed") != NULL))
    g_set_error_literal (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                         "The OpenShell gateway does not allow bind mounts, so it cannot give a sandbox your "
                         "folders. Set `enable_bind_mounts = true` under `[openshell.drivers.docker]` in the "
                         "gateway config (`openworker machine sandbox setup` does this), then start the session again.");
  else if (ask_landlock (self, cancellable, &has) && !has)
    g_set_error_literal (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, LANDLOCK_FIX);
  else
    g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                 "OpenShell could not start the sandbox %s: %s", name, said);
}

/* The worker thread: refusals that need no sandbox, then create and wait
 * until Ready. Returns the sandbox's name. */
static void
bring_up_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Plan *p = data;
  OwSandboxOpenshell *self = p->backend;
  g_autoptr(JsonArray) checks = json_array_new ();
  g_autoptr(JsonArray) missing = json_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *policy = NULL, *mounts = NULL, *policy_path = NULL, *label = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GPtrArray) env = g_ptr_array_new_with_free_func (g_free);
  const char *main_cmd[] = { OW_OPENSHELL_RUNNER, "--socket", OW_OPENSHELL_RUNNER_SOCKET, NULL };
  gint64 deadline;
  int status = 0;

  if (p->old_name != NULL)
    {
      Values v = { .name = p->old_name };

      run_cmd (self, CMD_DELETE, &v, cancellable, &status, &out, &err, NULL);
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
    }

  for (guint i = 0; i < p->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (p->roots, i);

      if (!g_path_is_absolute (r->path) || !g_file_test (r->path, G_FILE_TEST_IS_DIR))
        {
          g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                   "The folder %s is not on this machine, so an OpenShell sandbox cannot be given it.",
                                   r->path);
          return;
        }
    }

  if (!preflight (self, checks, missing, TRUE, cancellable, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* The private home with the copies, then the policy next to it. */
  if (g_mkdir_with_parents (p->runtime_dir, 0700) != 0)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "The sandbox's private folder %s could not be made: %s", p->runtime_dir,
                               g_strerror (errno));
      return;
    }
  if (p->home != NULL)
    {
      if (g_mkdir_with_parents (p->home, 0700) != 0 ||
          !ow_credentials_copy_in (p->credentials, p->home, NULL, &error))
        {
          if (error == NULL)
            g_set_error (&error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                         "The sandbox's private home %s could not be made.", p->home);
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
#ifdef __linux__
  /* The folders' owner here; on a Mac, Docker Desktop maps ownership and
   * the image's own "sandbox" user is the one to run as. */
  policy = ow_openshell_render_policy (p->roots, p->home, (gint64) getuid (), (gint64) getgid (),
                                       (const char *const *) p->hosts, &error);
#else
  policy = ow_openshell_render_policy (p->roots, p->home, -1, -1, (const char *const *) p->hosts, &error);
#endif
  if (policy == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  policy_path = g_build_filename (p->runtime_dir, "policy.json", NULL);
  if (!g_file_set_contents_full (policy_path, policy, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  mounts = ow_openshell_render_mounts (p->roots, p->runner_path, p->home);
  label = g_strdup_printf ("openworker-session=%s", p->session_id);

  /* Only what the tools need: their home (the private one when there are
   * copies), and each copy's variable. Nothing of this machine's
   * environment crosses. */
  g_ptr_array_add (env, g_strdup_printf ("HOME=%s", p->home != NULL ? p->home : "/tmp"));
  g_ptr_array_add (env, g_strdup ("TMPDIR=/tmp"));
  for (guint i = 0; p->credentials != NULL && p->home != NULL && i < p->credentials->len; i++)
    {
      char *e = ow_credential_copy_env (g_ptr_array_index (p->credentials, i), p->home);

      if (e != NULL)
        g_ptr_array_add (env, e);
    }
  g_ptr_array_add (env, NULL);

  {
    Values v = {
      .name = p->name,
      .image = self->image,
      .policy = policy_path,
      .mounts = mounts,
      .session_label = label,
      .env = (const char *const *) env->pdata,
      .main = main_cmd,
    };

    if (!run_cmd (self, CMD_CREATE, &v, cancellable, &status, &out, &err, &error))
      {
        g_task_return_error (task, g_steal_pointer (&error));
        return;
      }
    if (status != 0)
      {
        g_autofree char *said = tail_of (err, out);
        Values d = { .name = p->name };
        g_autofree char *o2 = NULL, *e2 = NULL;

        explain_create_failure (self, p->name, said, cancellable, &error);
        run_cmd (self, CMD_DELETE, &d, NULL, &status, &o2, &e2, NULL);  /* whatever was half made */
        g_task_return_error (task, g_steal_pointer (&error));
        return;
      }
  }

  /* Ready, or refused with what it said. */
  deadline = g_get_monotonic_time () + (gint64) self->ready_timeout_ms * 1000;
  for (;;)
    {
      Values v = { .name = p->name };
      g_autofree char *lower = NULL;

      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      if (run_cmd (self, CMD_GET, &v, cancellable, &status, &out, &err, NULL) && status == 0 && out != NULL)
        {
          lower = g_ascii_strdown (out, -1);
          if (strstr (lower, "ready") != NULL)
            break;
          if (strstr (lower, "error") != NULL || strstr (lower, "failed") != NULL ||
              strstr (lower, "completed") != NULL)
            {
              g_autofree char *said = tail_of (err, out);
              g_autofree char *o2 = NULL, *e2 = NULL;

              explain_create_failure (self, p->name, said, cancellable, &error);
              run_cmd (self, CMD_DELETE, &v, NULL, &status, &o2, &e2, NULL);
              g_task_return_error (task, g_steal_pointer (&error));
              return;
            }
        }
      if (g_cancellable_is_cancelled (cancellable) || g_get_monotonic_time () > deadline)
        {
          g_autofree char *o2 = NULL, *e2 = NULL;

          run_cmd (self, CMD_DELETE, &v, NULL, &status, &o2, &e2, NULL);
          g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                   "The OpenShell sandbox %s did not become ready in %u seconds; `openshell logs %s` "
                                   "says why.", p->name, self->ready_timeout_ms / 1000, p->name);
          return;
        }
      g_usleep (200 * 1000);
    }
  g_task_return_pointer (task, g_strdup (p->name), g_free);
}

/* Main-thread state of one bring-up. */
typedef struct {
  OwOpenshellExecutor *self;     /* ref */
  char                *name;     /* the sandbox now made */
  OwExecutor          *runner;   /* the new runner client */
  guint                timeout;  /* source cancelling a runner that never says hello */
  GCancellable        *cancel;   /* for the hello and the probe */
} Connect;

static void
connect_free (Connect *c)
{
  g_clear_handle_id (&c->timeout, g_source_remove);
  g_clear_object (&c->self);
  g_free (c->name);
  g_clear_object (&c->runner);
  g_clear_object (&c->cancel);
  g_free (c);
}

static char *
enforcement_text (OwOpenshellExecutor *self)
{
  guint n = self->hosts != NULL ? g_strv_length (self->hosts) : 0;

  return g_strdup_printf ("openshell %s: container, landlock (hard requirement), seccomp; network: %u allowed site%s "
                          "in the policy",
                          OW_OPENSHELL_VERSION_PREFIX "x", n, n == 1 ? "" : "s");
}

/* The wall, from inside: every folder as granted, home and state absent. */
static JsonArray *
wall_checks (OwOpenshellExecutor *self)
{
  JsonArray *checks = json_array_new ();

  for (guint i = 0; i < self->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (self->roots, i);
      JsonObject *c = json_object_new ();

      json_object_set_string_member (c, "kind", "root");
      json_object_set_string_member (c, "path", r->path);
      json_object_set_boolean_member (c, "writable", r->writable);
      json_array_add_object_element (checks, c);
    }
  for (gsize i = 0; self->hidden != NULL && self->hidden[i] != NULL; i++)
    {
      const char *h = self->hidden[i];
      gboolean holds_root = FALSE, inside_root = FALSE;
      JsonObject *c;

      for (guint j = 0; j < self->roots->len; j++)
        {
          const char *r = ((OwRoot *) g_ptr_array_index (self->roots, j))->path;
          gsize n = strlen (h);

          if (g_str_has_prefix (r, h) && (r[n] == '/' || r[n] == '\0'))
            holds_root = TRUE;
          else if (g_str_has_prefix (h, r) && h[strlen (r)] == '/')
            inside_root = TRUE;
        }
      if (inside_root)
        continue;  /* the person gave a folder holding it */
      c = json_object_new ();
      json_object_set_string_member (c, "kind", "hidden");
      json_object_set_string_member (c, "path", h);
      /* A folder above a session folder exists inside (the mount point's
       * parents) but must hold nothing else of this machine. */
      json_object_set_boolean_member (c, "must_not_exist", !holds_root);
      if (holds_root)
        {
          JsonArray *absent = json_array_new ();

          json_array_add_string_element (absent, ".ssh");
          json_array_add_string_element (absent, ".aws");
          json_array_add_string_element (absent, ".gnupg");
          json_array_add_string_element (absent, ".config");
          json_object_set_array_member (c, "absent", absent);
        }
      json_array_add_object_element (checks, c);
    }
  return checks;
}

static void bring_up_failed (OwOpenshellExecutor *self, GTask *task, GError *error, const char *name);
static void bring_up_done (OwOpenshellExecutor *self, GTask *task, Connect *c);

static void
on_probe_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Connect *c = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) answers = ow_executor_runner_probe_finish (OW_EXECUTOR_RUNNER (source), result, &error);
  g_autoptr(GString) failed = g_string_new (NULL);

  if (answers == NULL)
    {
      bring_up_failed (c->self, task, g_steal_pointer (&error), c->name);
      return;
    }
  for (guint i = 0; i < json_array_get_length (answers); i++)
    {
      JsonObject *a = json_array_get_object_element (answers, i);

      if (a == NULL || !json_object_get_boolean_member_with_default (a, "ok", FALSE))
        g_string_append_printf (failed, "%s%s (%s)", failed->len > 0 ? "; " : "",
                                a != NULL ? json_object_get_string_member_with_default (a, "name", "?") : "?",
                                a != NULL ? json_object_get_string_member_with_default (a, "detail", "") : "");
    }
  if (failed->len > 0)
    {
      bring_up_failed (c->self, task,
                       g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                                    "The OpenShell sandbox's wall could not be proved from inside, so the session "
                                    "is refused: %s.", failed->str),
                       c->name);
      return;
    }
  bring_up_done (c->self, task, c);
}

static void
on_hello_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Connect *c = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) hello = ow_executor_runner_wait_ready_finish (OW_EXECUTOR_RUNNER (source), result, &error);
  g_autoptr(JsonArray) checks = NULL;

  g_clear_handle_id (&c->timeout, g_source_remove);
  if (hello == NULL)
    {
      g_autoptr(GError) e = g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                                         "The tool runner in the OpenShell sandbox %s did not answer: %s", c->name,
                                         error->message);

      bring_up_failed (c->self, task, g_steal_pointer (&e), c->name);
      return;
    }
  checks = wall_checks (c->self);
  ow_executor_runner_probe_async (OW_EXECUTOR_RUNNER (c->runner), checks, c->cancel, on_probe_done_cb, task);
}

static gboolean
on_hello_timeout_cb (gpointer user_data)
{
  Connect *c = user_data;

  c->timeout = 0;
  g_cancellable_cancel (c->cancel);
  return G_SOURCE_REMOVE;
}

/* Starts `openshell sandbox exec … -- RUNNER --attach SOCKET` and a runner
 * client on its stdin and stdout. */
static OwExecutor *
open_stream (OwOpenshellExecutor *self, const char *name, GError **error)
{
  g_autofree char *program = program_for (self->backend, CMD_EXEC);
  const char *attach[] = { OW_OPENSHELL_RUNNER, "--attach", OW_OPENSHELL_RUNNER_SOCKET, NULL };
  Values v = { .name = name, .attach = attach };
  g_auto(GStrv) argv = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GIOStream) stream = NULL;
  g_autofree char *enforcement = NULL;

  if (program == NULL)
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "OpenShell is not installed on this machine (no `%s` command).", self->backend->openshell);
      return NULL;
    }
  argv = build_argv (CMD_EXEC, program, &v);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_setenv (launcher, "NO_COLOR", "1", TRUE);
  proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv, error);
  if (proc == NULL)
    return NULL;
  stream = g_simple_io_stream_new (g_subprocess_get_stdout_pipe (proc), g_subprocess_get_stdin_pipe (proc));
  enforcement = enforcement_text (self);
  return ow_executor_runner_new (stream, proc, enforcement);
}

static void
on_thread_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;   /* the bring-up's own task */
  OwOpenshellExecutor *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_task_propagate_pointer (G_TASK (result), &error);
  Connect *c;
  OwExecutor *runner;

  if (name == NULL)
    {
      bring_up_failed (self, task, g_steal_pointer (&error), NULL);
      return;
    }
  runner = open_stream (self, name, &error);
  if (runner == NULL)
    {
      bring_up_failed (self, task, g_steal_pointer (&error), name);
      return;
    }
  c = g_new0 (Connect, 1);
  c->self = g_object_ref (self);
  c->name = g_steal_pointer (&name);
  c->runner = runner;
  c->cancel = g_cancellable_new ();
  c->timeout = g_timeout_add_seconds (60, on_hello_timeout_cb, c);
  g_task_set_task_data (task, c, (GDestroyNotify) connect_free);
  ow_executor_runner_wait_ready_async (OW_EXECUTOR_RUNNER (runner), c->cancel, on_hello_cb, task);
}

static void run_queue (OwOpenshellExecutor *self);

static void
bring_up_failed (OwOpenshellExecutor *self, GTask *task, GError *error, const char *name)
{
  if (name != NULL)
    delete_in_background (self->backend, name);
  self->starting = FALSE;
  g_clear_error (&self->broken);
  self->broken = g_error_copy (error);
  run_queue (self);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
bring_up_done (OwOpenshellExecutor *self, GTask *task, Connect *c)
{
  gboolean recreated = self->generation > 1;

  g_clear_object (&self->inner);
  self->inner = g_steal_pointer (&c->runner);
  g_free (self->name);
  self->name = g_steal_pointer (&c->name);
  self->starting = FALSE;
  g_clear_error (&self->broken);
  {
    OwRoot *first = self->roots->len > 0 ? g_ptr_array_index (self->roots, 0) : NULL;

    /* The runner learns its folders (the first is where the shell starts). */
    if (first != NULL)
      ow_executor_set_roots (self->inner, self->roots);
  }
  if (recreated)
    g_signal_emit (self, executor_signals[SIGNAL_SANDBOX_RECREATED], 0);
  run_queue (self);
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

/* Makes a sandbox for the current folders (deleting the one there is). */
static void
bring_up_async (OwOpenshellExecutor *self,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GTask) thread = NULL;
  Plan *p = g_new0 (Plan, 1);

  self->starting = TRUE;
  self->generation++;
  p->backend = g_object_ref (self->backend);
  p->name = g_strdup_printf ("ow-%.8s-%u-%08x", self->session_id, self->generation, g_random_int ());
  /* A sandbox name holds letters, digits and '-': whatever else the
   * session id has becomes '-'. */
  for (char *q = p->name; *q != '\0'; q++)
    if (!g_ascii_isalnum (*q) && *q != '-')
      *q = '-';
  p->old_name = g_steal_pointer (&self->name);
  p->session_id = g_strdup (self->session_id);
  p->roots = ow_roots_copy (self->roots);
  p->hosts = g_strdupv (self->hosts);
  p->credentials = self->credentials != NULL ? g_ptr_array_ref (self->credentials) : NULL;
  p->runner_path = g_strdup (self->runner_path);
  p->runtime_dir = g_strdup (self->runtime_dir);
  p->home = g_strdup (self->home);
  g_clear_object (&self->inner);  /* its stream ends with the old sandbox */

  thread = g_task_new (self, cancellable, on_thread_done_cb, task);
  g_task_set_task_data (thread, p, (GDestroyNotify) plan_free);
  g_task_run_in_thread (thread, bring_up_thread);
}

/* ---- the executor interface ------------------------------------------------ */

static void
on_inner_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  OwToolResult *r = ow_executor_execute_finish (OW_EXECUTOR (source), result, &error);

  if (r == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, r, (GDestroyNotify) ow_tool_result_free);
}

static void
run_queue (OwOpenshellExecutor *self)
{
  g_autoptr(GPtrArray) calls = NULL;

  if (self->starting)
    return;
  calls = g_steal_pointer (&self->queue);
  self->queue = g_ptr_array_new_with_free_func ((GDestroyNotify) queued_call_free);
  for (guint i = 0; i < calls->len; i++)
    {
      QueuedCall *c = g_ptr_array_index (calls, i);

      if (self->inner == NULL)
        g_task_return_error (c->task, self->broken != NULL ? g_error_copy (self->broken)
                                                            : g_error_new_literal (OW_SANDBOX_ERROR,
                                                                                   OW_SANDBOX_ERROR_UNAVAILABLE,
                                                                                   "The session's sandbox is gone."));
      else
        ow_executor_execute_async (self->inner, c->tool, c->args_text, g_task_get_cancellable (c->task),
                                   on_inner_done_cb, g_object_ref (c->task));
    }
}

static void
ow_openshell_executor_execute_async (OwExecutor         *executor,
                                     const char         *tool,
                                     const char         *args_text,
                                     GCancellable       *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer            user_data)
{
  OwOpenshellExecutor *self = OW_OPENSHELL_EXECUTOR (executor);
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, ow_openshell_executor_execute_async);
  if (self->starting)
    {
      QueuedCall *c = g_new0 (QueuedCall, 1);

      c->tool = g_strdup (tool);
      c->args_text = g_strdup (args_text);
      c->task = task;
      g_ptr_array_add (self->queue, c);
      return;
    }
  if (self->inner == NULL)
    {
      g_task_return_error (task, self->broken != NULL ? g_error_copy (self->broken)
                                                       : g_error_new_literal (OW_SANDBOX_ERROR,
                                                                              OW_SANDBOX_ERROR_UNAVAILABLE,
                                                                              "The session's sandbox is gone."));
      g_object_unref (task);
      return;
    }
  ow_executor_execute_async (self->inner, tool, args_text, cancellable, on_inner_done_cb, task);
}

static OwToolResult *
ow_openshell_executor_execute_finish (OwExecutor *executor, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_recreated_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_debug ("the OpenShell sandbox could not be recreated: %s", error->message);
}

static void
ow_openshell_executor_set_roots (OwExecutor *executor, GPtrArray *roots)
{
  OwOpenshellExecutor *self = OW_OPENSHELL_EXECUTOR (executor);
  g_autoptr(GPtrArray) wanted = ow_roots_copy (roots);

  if (ow_roots_equal (self->roots, wanted))
    return;
  g_clear_pointer (&self->roots, g_ptr_array_unref);
  self->roots = g_steal_pointer (&wanted);
  /* Filesystem rules are fixed when an OpenShell sandbox is created: a
   * new folder means a new sandbox. Calls wait for it. */
  bring_up_async (self, NULL, on_recreated_cb, NULL);
}

static gboolean
ow_openshell_executor_handles (OwExecutor *executor, const char *tool)
{
  OwOpenshellExecutor *self = OW_OPENSHELL_EXECUTOR (executor);
  static const char *const tools[] = {
    "run_shell", "shell_task_output", "shell_task_kill", "read_file", "write_file", "replace_in_file",
    "apply_patch", "list_files", "grep", "git_status", "git_diff", "git_log", NULL,
  };

  if (self->inner != NULL)
    return ow_executor_handles (self->inner, tool);
  return g_strv_contains (tools, tool);
}

static const char *
ow_openshell_executor_get_enforcement (OwExecutor *executor)
{
  OwOpenshellExecutor *self = OW_OPENSHELL_EXECUTOR (executor);

  if (self->inner != NULL)
    return ow_executor_get_enforcement (self->inner);
  return "openshell (no sandbox running)";
}

static void
ow_openshell_executor_iface_init (OwExecutorInterface *iface)
{
  iface->set_roots = ow_openshell_executor_set_roots;
  iface->handles = ow_openshell_executor_handles;
  iface->execute_async = ow_openshell_executor_execute_async;
  iface->execute_finish = ow_openshell_executor_execute_finish;
  iface->get_enforcement = ow_openshell_executor_get_enforcement;
}

gboolean
ow_openshell_executor_add_endpoint (OwExecutor   *executor,
                                    const char   *host_port,
                                    GCancellable *cancellable,
                                    GError      **error)
{
  OwOpenshellExecutor *self;
  g_autofree char *host = NULL, *out = NULL, *err = NULL;
  gint64 port;
  int status = 0;

  g_return_val_if_fail (OW_IS_OPENSHELL_EXECUTOR (executor), FALSE);
  self = OW_OPENSHELL_EXECUTOR (executor);
  if (!split_host_port (host_port, &host, &port))
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE, "“%s” is not host:port.", host_port);
      return FALSE;
    }
  if (self->name == NULL)
    {
      g_set_error_literal (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                           "The session has no running OpenShell sandbox to let the site into.");
      return FALSE;
    }
  {
    Values v = { .name = self->name, .endpoint = host_port };

    if (!run_cmd (self->backend, CMD_ADD_ENDPOINT, &v, cancellable, &status, &out, &err, error))
      return FALSE;
  }
  if (status != 0)
    {
      g_autofree char *said = tail_of (err, out);

      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "OpenShell did not let %s into the sandbox: %s", host_port, said);
      return FALSE;
    }
  if (!g_strv_contains ((const char *const *) self->hosts, host_port))
    {
      gsize n = g_strv_length (self->hosts);

      self->hosts = g_renew (char *, self->hosts, n + 2);
      self->hosts[n] = g_strdup (host_port);
      self->hosts[n + 1] = NULL;
    }
  return TRUE;
}

const char *
ow_openshell_executor_get_sandbox (OwExecutor *executor)
{
  g_return_val_if_fail (OW_IS_OPENSHELL_EXECUTOR (executor), NULL);
  return OW_OPENSHELL_EXECUTOR (executor)->name;
}

/* ---- start ----------------------------------------------------------------- */

static void
on_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_object_ref (source), g_object_unref);
}

static void
ow_sandbox_openshell_start_async (OwSandboxBackend    *backend,
                                  const OwSandboxSpec *spec,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  OwSandboxOpenshell *self = OW_SANDBOX_OPENSHELL (backend);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(OwOpenshellExecutor) ex = NULL;
  g_autoptr(GStrvBuilder) hosts = g_strv_builder_new ();
  g_autofree char *scratch = NULL;

  g_task_set_source_tag (task, ow_sandbox_openshell_start_async);
  if (spec->network_open)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "Allow everything (sandbox_network_profile = \"open\") is not available with "
                               "OpenShell: its policy has to name each site. Choose the sites under Settings ▸ "
                               "Sandbox (sandbox_network_profile = \"allowlist\"), then start the session again.");
      g_object_unref (task);
      return;
    }
  if (spec->runner_path == NULL || !g_file_test (spec->runner_path, G_FILE_TEST_IS_REGULAR))
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "The tool runner %s is missing, so no sandbox can be started; reinstall OpenWorker.",
                               spec->runner_path != NULL ? spec->runner_path : "(none)");
      g_object_unref (task);
      return;
    }

  ex = g_object_new (OW_TYPE_OPENSHELL_EXECUTOR, NULL);
  ex->backend = g_object_ref (self);
  ex->session_id = g_strdup (spec->session_id != NULL ? spec->session_id : "session");
  ex->roots = ow_roots_copy (spec->roots);
  ex->runner_path = g_strdup (spec->runner_path);
  ex->hidden = g_strdupv ((char **) spec->hidden);
  /* The allow list: the machine's sites and those the shared credentials need. */
  for (gsize i = 0; self->network_hosts != NULL && self->network_hosts[i] != NULL; i++)
    g_strv_builder_add (hosts, self->network_hosts[i]);
  for (guint i = 0; spec->credentials != NULL && i < spec->credentials->len; i++)
    {
      OwCredentialCopy *copy = g_ptr_array_index (spec->credentials, i);

      for (gsize j = 0; copy->hosts != NULL && copy->hosts[j] != NULL; j++)
        g_strv_builder_add (hosts, copy->hosts[j]);
    }
  {
    g_auto(GStrv) all = g_strv_builder_end (hosts);
    g_autoptr(GStrvBuilder) unique = g_strv_builder_new ();

    for (gsize i = 0; all[i] != NULL; i++)
      {
        gboolean seen = FALSE;

        for (gsize j = 0; j < i; j++)
          seen |= g_str_equal (all[i], all[j]);
        if (!seen)
          g_strv_builder_add (unique, all[i]);
      }
    ex->hosts = g_strv_builder_end (unique);
  }
  /* The private folder: the scratch folder the engine gave (never /tmp,
   * which the gateway's service cannot see), else the user's state. */
  scratch = spec->scratch_dir != NULL ? g_strdup (spec->scratch_dir)
                                      : g_build_filename (g_get_user_data_dir (), "openworker", "sandbox-runtime", NULL);
  ex->runtime_dir = g_build_filename (scratch, "openshell-XXXXXX", NULL);
  if (g_mkdir_with_parents (scratch, 0700) != 0 || g_mkdtemp_full (ex->runtime_dir, 0700) == NULL)
    {
      g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                               "The sandbox's private folder could not be made under %s: %s", scratch,
                               g_strerror (errno));
      g_clear_pointer (&ex->runtime_dir, g_free);
      g_object_unref (task);
      return;
    }
  if (spec->credentials != NULL && spec->credentials->len > 0)
    {
      ex->credentials = g_ptr_array_ref (spec->credentials);
      ex->home = g_build_filename (ex->runtime_dir, "home", NULL);
    }
  bring_up_async (ex, cancellable, on_started_cb, task);
}

static OwExecutor *
ow_sandbox_openshell_start_finish (OwSandboxBackend *backend, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
ow_sandbox_openshell_backend_init (OwSandboxBackendInterface *iface)
{
  iface->get_name = ow_sandbox_openshell_get_name;
  iface->status = ow_sandbox_openshell_status;
  iface->start_async = ow_sandbox_openshell_start_async;
  iface->start_finish = ow_sandbox_openshell_start_finish;
}

static void
ow_sandbox_openshell_finalize (GObject *object)
{
  OwSandboxOpenshell *self = OW_SANDBOX_OPENSHELL (object);

  g_free (self->openshell);
  g_free (self->docker);
  g_free (self->image);
  g_strfreev (self->network_hosts);
  G_OBJECT_CLASS (ow_sandbox_openshell_parent_class)->finalize (object);
}

static void
ow_sandbox_openshell_class_init (OwSandboxOpenshellClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_sandbox_openshell_finalize;
}

static void
ow_sandbox_openshell_init (OwSandboxOpenshell *self)
{
}

OwSandboxBackend *
ow_sandbox_openshell_new (const OwOpenshellConfig *config)
{
  OwSandboxOpenshell *self = g_object_new (OW_TYPE_SANDBOX_OPENSHELL, NULL);
  const char *image = config != NULL && config->image != NULL ? config->image : g_getenv ("OPENWORKER_SANDBOX_IMAGE");

  self->openshell = g_strdup (config != NULL && config->openshell != NULL ? config->openshell : "openshell");
  self->docker = g_strdup (config != NULL ? config->docker : NULL);
  self->image = g_strdup (image != NULL && *image != '\0' ? image : OW_OPENSHELL_IMAGE);
  self->network_hosts = g_strdupv (config != NULL ? (char **) config->network_hosts : NULL);
  if (self->network_hosts == NULL)
    self->network_hosts = g_new0 (char *, 1);
  self->ready_timeout_ms = config != NULL && config->ready_timeout_ms != 0 ? config->ready_timeout_ms : 120000;
  return OW_SANDBOX_BACKEND (self);
}

static OwSandboxBackend *
openshell_factory (GError **error)
{
  return ow_sandbox_openshell_new (NULL);
}

void
ow_sandbox_openshell_register (void)
{
  ow_sandbox_backend_register ("openshell", openshell_factory);
}
