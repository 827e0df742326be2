/* test-wall.c: the Linux backend, the real wall (sandbox_provider = "linux").
 *
 * Each test starts a sandbox on temporary folders — a writable workspace,
 * a read-only folder, a fake home with an SSH key, a toolchain and
 * OpenWorker's state in it, all hidden — and runs tools through it:
 * the folders work as granted, the home is private, toolchains are there
 * read-only, credentials arrive owner-only and leave with the sandbox, a
 * state folder inside the workspace is masked, the network is the proxy
 * (or the host's, when open), and the failures refuse with reasons.
 * Every result is checked for the enforcement level.
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ow-error.h"
#include "ow-json.h"
#include "ow-sandbox-linux.h"
#include "ow-secret-env.h"
#include "sbx-test-util.h"

/* Everything one sandbox needs, under one temporary folder. */
typedef struct {
  char             *base;      /* the temporary folder (owned) */
  char             *ws;        /* the writable workspace */
  char             *ro;        /* a read-only folder */
  char             *home;      /* the fake home (hidden) */
  char             *state;     /* OpenWorker's fake state folder (hidden) */
  char             *scratch;   /* the backend's scratch folder */
  GPtrArray        *roots;     /* OwRoot* (owned) */
  GStrv             env;       /* the tools' environment (owned) */
  GPtrArray        *hidden;    /* char*, NULL-terminated (owned) */
  OwSandboxBackend *backend;   /* the Linux backend (owned) */
  OwSandboxSpec     spec;      /* the spec, pointing into the above */
  char             *want_enforcement;  /* what every result must carry (owned) */
} Fx;

static void
fx_init (Fx *fx)
{
  memset (fx, 0, sizeof *fx);
  fx->base = ow_test_make_tmpdir ("ow-sbx-wall");
  fx->ws = g_build_filename (fx->base, "ws", NULL);
  fx->ro = g_build_filename (fx->base, "ro", NULL);
  fx->home = g_build_filename (fx->base, "home", NULL);
  fx->state = g_build_filename (fx->base, "state", NULL);
  fx->scratch = g_build_filename (fx->base, "scratch", NULL);
  g_mkdir (fx->ws, 0755);
  g_mkdir (fx->ro, 0755);

  {
    g_autofree char *f = g_build_filename (fx->ws, "hello.txt", NULL);
    g_autofree char *r = g_build_filename (fx->ro, "readme.txt", NULL);
    g_autofree char *key = g_build_filename (fx->home, ".ssh", "id_ed25519", NULL);
    g_autofree char *cargo = g_build_filename (fx->home, ".cargo", "bin", "cargo-hello", NULL);
    g_autofree char *bashrc = g_build_filename (fx->home, ".bashrc", NULL);
    g_autofree char *db = g_build_filename (fx->state, "openworker.db", NULL);
    g_autofree char *token = g_build_filename (fx->state, "sidecar-8765.token", NULL);
    g_autofree char *ws_state = g_build_filename (fx->ws, ".openworker", "token", NULL);

    sbx_write (f, "hello from the workspace\n", 0644);
    sbx_write (r, "read me\n", 0644);
    sbx_write (key, "-----BEGIN OPENSSH PRIVATE KEY-----\nfake-key-material\n", 0600);
    sbx_write (cargo, "#!/bin/sh\necho cargo says hello\n", 0755);
    sbx_write (bashrc, "export FROM_BASHRC=1\n", 0644);
    sbx_write (db, "SQLite format 3 (fake)\n", 0600);
    sbx_write (token, "tok-0123456789abcdef\n", 0600);
    sbx_write (ws_state, "inner-token-should-be-hidden\n", 0600);
  }

  fx->roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_ptr_array_add (fx->roots, ow_root_new (fx->ws, TRUE, "workspace"));
  g_ptr_array_add (fx->roots, ow_root_new (fx->ro, FALSE, "added"));

  fx->env = g_get_environ ();
  fx->env = g_environ_setenv (fx->env, "HOME", fx->home, TRUE);
  fx->env = g_environ_setenv (fx->env, "OW_WALL_TEST_API_KEY", "sk-should-never-be-seen", TRUE);
  fx->env = g_environ_setenv (fx->env, "OW_WALL_VISIBLE", "yes", TRUE);
  /* Commands get an allow-listed environment: a name the machine config
   * adds arrives, any other name does not, secret-looking or not. */
  fx->env = g_environ_setenv (fx->env, "OW_WALL_UNLISTED", "plain-value", TRUE);
  ow_secret_env_set_allowed ((const char *const[]) { "OW_WALL_VISIBLE", NULL });

  fx->hidden = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (fx->hidden, g_strdup (fx->home));
  g_ptr_array_add (fx->hidden, g_strdup (fx->state));
  g_ptr_array_add (fx->hidden, g_build_filename (fx->ws, ".openworker", NULL));
  g_ptr_array_add (fx->hidden, NULL);

  fx->backend = ow_sandbox_linux_new (sbx_runner_path ());
  fx->spec.session_id = "test-wall";
  fx->spec.roots = fx->roots;
  fx->spec.env = (const char *const *) fx->env;
  fx->spec.runner_path = sbx_runner_path ();
  fx->spec.hidden = (const char *const *) fx->hidden->pdata;
  fx->spec.scratch_dir = fx->scratch;
  fx->want_enforcement = g_strdup_printf ("linux: namespaces+landlock(abi %ld)+seccomp",
                                          syscall (444, NULL, 0, 1U));
}

static void
fx_clear (Fx *fx)
{
  g_clear_object (&fx->backend);
  g_ptr_array_unref (fx->roots);
  g_ptr_array_unref (fx->hidden);
  g_strfreev (fx->env);
  ow_remove_tree (fx->base, NULL);
  g_free (fx->base);
  g_free (fx->ws);
  g_free (fx->ro);
  g_free (fx->home);
  g_free (fx->state);
  g_free (fx->scratch);
  g_free (fx->want_enforcement);
}

static OwExecutor *
fx_start (Fx *fx)
{
  g_autoptr(GError) error = NULL;
  OwExecutor *ex = sbx_start (fx->backend, &fx->spec, &error);

  g_assert_no_error (error);
  g_assert_nonnull (ex);
  return ex;
}

/* run_shell inside; asserts the enforcement level; returns the output. */
static char *
sh (Fx *fx, OwExecutor *ex, const char *command, int *exit_code)
{
  char *out = sbx_shell (ex, command, exit_code);

  g_assert_cmpstr (ow_executor_get_enforcement (ex), ==, fx->want_enforcement);
  return out;
}

static gboolean
dir_is_empty (gpointer data)
{
  g_autoptr(GDir) d = g_dir_open (data, 0, NULL);

  return d == NULL || g_dir_read_name (d) == NULL;
}

static void
wait_scratch_empty (Fx *fx)
{
  ow_test_wait_until (dir_is_empty, fx->scratch, "the scratch folder to be empty");
}

/* ---- tests ------------------------------------------------------------------- */

static void
test_status (void)
{
  g_autoptr(OwSandboxBackend) backend = ow_sandbox_linux_new (sbx_runner_path ());
  g_autoptr(JsonObject) status = ow_sandbox_backend_status (backend);
  JsonArray *checks = ow_json_get_array (status, "checks");
  gboolean saw_userns = FALSE, saw_landlock = FALSE;

  g_assert_cmpstr (ow_sandbox_backend_get_name (backend), ==, "linux");
  g_assert_true (ow_json_get_bool (status, "ready", FALSE));
  g_assert_cmpint (ow_json_get_int (status, "landlock_abi", 0), >=, 1);
  g_assert_cmpuint (json_array_get_length (ow_json_get_array (status, "missing")), ==, 0);
  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);

      g_test_message ("%s: %s", ow_json_get_string (c, "name"), ow_json_get_string (c, "detail"));
      g_assert_true (ow_json_get_bool (c, "ok", FALSE));
      saw_userns |= g_str_equal (ow_json_get_string (c, "name"), "user namespaces");
      saw_landlock |= g_str_equal (ow_json_get_string (c, "name"), "landlock");
    }
  g_assert_true (saw_userns && saw_landlock);
}

static void
test_registry (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSandboxBackend) linux_backend = NULL;
  OwSandboxBackend *b;

  b = ow_sandbox_backend_for ("seatbelt", &error);
  g_assert_null (b);
  g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, "not available on this system"));
  g_clear_error (&error);
  b = ow_sandbox_backend_for ("direct", &error);
  g_assert_null (b);
  g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  g_clear_error (&error);
  b = ow_sandbox_backend_for ("moonbase", &error);
  g_assert_null (b);
  g_assert_nonnull (strstr (error->message, "not a sandbox provider"));
  g_clear_error (&error);

  ow_sandbox_linux_register ();
  linux_backend = ow_sandbox_backend_for ("linux", &error);
  g_assert_no_error (error);
  g_assert_true (OW_IS_SANDBOX_LINUX (linux_backend));
}

static void
test_tools (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  g_autofree char *out = NULL;
  int code;

  fx_init (&fx);
  ex = fx_start (&fx);
  g_assert_cmpstr (ow_executor_get_enforcement (ex), ==, fx.want_enforcement);

  /* The file tools, in both folders. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *args = g_strdup_printf ("{\"path\":\"%s/readme.txt\"}", fx.ro);
    g_autoptr(OwToolResult) w = sbx_call (ex, "write_file", "{\"path\":\"made-inside.txt\",\"content\":\"inside\\n\"}",
                                          &error);
    g_autoptr(OwToolResult) r = NULL;
    g_autoptr(OwToolResult) l = NULL;
    g_autoptr(OwToolResult) g = NULL;
    g_autofree char *made = g_build_filename (fx.ws, "made-inside.txt", NULL);
    g_autofree char *content = NULL;

    g_assert_no_error (error);
    g_assert_cmpint (w->status, ==, OW_TOOL_STATUS_OK);
    g_assert_true (g_file_get_contents (made, &content, NULL, NULL));
    g_assert_cmpstr (content, ==, "inside\n");
    r = sbx_call (ex, "read_file", args, &error);
    g_assert_no_error (error);
    g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_OK);
    g_assert_nonnull (strstr (r->text, "read me"));
    l = sbx_call (ex, "list_files", "{\"path\":\".\"}", &error);
    g_assert_no_error (error);
    g_assert_nonnull (strstr (l->text, "hello.txt"));
    g = sbx_call (ex, "grep", "{\"pattern\":\"workspace\"}", &error);
    g_assert_no_error (error);
    g_assert_nonnull (strstr (g->text, "hello.txt"));
    g_assert_cmpstr (ow_executor_get_enforcement (ex), ==, fx.want_enforcement);
  }

  /* The shell: in the workspace, as the same user, its own host name,
   * its own pid namespace, state kept between calls. */
  out = sh (&fx, ex, "pwd; cat hello.txt; hostname; echo pid=$$", &code);
  g_assert_cmpint (code, ==, 0);
  g_assert_nonnull (strstr (out, fx.ws));
  g_assert_nonnull (strstr (out, "hello from the workspace"));
  g_assert_nonnull (strstr (out, "openworker-sandbox"));
  g_clear_pointer (&out, g_free);
  out = sh (&fx, ex, "cd /tmp && export KEPT=1", &code);
  g_clear_pointer (&out, g_free);
  out = sh (&fx, ex, "pwd; echo kept=$KEPT; echo home=$HOME; echo tmp=$TMPDIR", &code);
  g_assert_nonnull (strstr (out, "/tmp\nkept=1"));
  g_assert_nonnull (strstr (out, fx.home));
  g_assert_nonnull (strstr (out, "tmp=/tmp"));
  g_clear_pointer (&out, g_free);

  /* The environment: secrets gone, the rest passed. */
  out = sh (&fx, ex, "env", &code);
  g_assert_null (strstr (out, "sk-should-never-be-seen"));
  g_assert_null (strstr (out, "OW_WALL_TEST_API_KEY"));
  g_assert_nonnull (strstr (out, "OW_WALL_VISIBLE=yes"));
  g_assert_null (strstr (out, "OW_WALL_UNLISTED"));
  g_clear_pointer (&out, g_free);

  /* git runs from the read-only system. */
  out = sh (&fx, ex, "git init -q . && git status --short | head -3; echo rc=$?", &code);
  g_assert_nonnull (strstr (out, "rc=0"));
  g_clear_pointer (&out, g_free);

  g_clear_object (&ex);
  wait_scratch_empty (&fx);
  fx_clear (&fx);
}

static void
test_private_home (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  g_autofree char *out = NULL;
  g_autofree char *cmd = NULL;
  int code;

  fx_init (&fx);
  fx.spec.toolchains = (const char *const[]) { ".cargo", ".nvm", NULL };
  ex = fx_start (&fx);

  /* Only the toolchain that exists, read-only; no key, no bashrc. */
  out = sh (&fx, ex, "ls -A \"$HOME\"", &code);
  g_assert_cmpint (code, ==, 0);
  g_assert_nonnull (strstr (out, ".cargo"));
  g_assert_null (strstr (out, ".ssh"));
  g_assert_null (strstr (out, ".bashrc"));
  g_assert_null (strstr (out, ".nvm"));
  g_clear_pointer (&out, g_free);
  out = sh (&fx, ex, "\"$HOME/.cargo/bin/cargo-hello\"; touch \"$HOME/.cargo/new\" 2>&1; echo rc=$?", &code);
  g_assert_nonnull (strstr (out, "cargo says hello"));
  g_assert_nonnull (strstr (out, "Read-only file system"));
  g_clear_pointer (&out, g_free);
  /* The private home itself is writable, and its files stay inside. */
  out = sh (&fx, ex, "echo scratch > \"$HOME/notes\" && cat \"$HOME/notes\"", &code);
  g_assert_cmpint (code, ==, 0);
  g_clear_pointer (&out, g_free);
  {
    g_autofree char *notes = g_build_filename (fx.home, "notes", NULL);

    g_assert_false (g_file_test (notes, G_FILE_TEST_EXISTS));
  }
  /* OpenWorker's state folder is not there; the masked one in the
   * workspace is empty. */
  cmd = g_strdup_printf ("ls -A %s 2>&1; echo rc=$?; ls -A %s/.openworker; cat %s/.openworker/token 2>&1",
                         fx.state, fx.ws, fx.ws);
  out = sh (&fx, ex, cmd, &code);
  g_assert_nonnull (strstr (out, "No such file or directory"));
  g_assert_null (strstr (out, "sidecar"));
  g_assert_null (strstr (out, "inner-token"));
  g_clear_pointer (&out, g_free);

  g_clear_object (&ex);
  fx_clear (&fx);
}

static void
test_credentials (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  g_autoptr(GPtrArray) creds = g_ptr_array_new ();
  OwCredentialCopy gh = { 0 }, npm = { 0 };
  g_autofree char *gh_dir = NULL, *npmrc = NULL, *out = NULL;
  int code;

  fx_init (&fx);
  gh_dir = g_build_filename (fx.home, ".config", "gh", NULL);
  npmrc = g_build_filename (fx.home, ".npmrc", NULL);
  {
    g_autofree char *hosts = g_build_filename (gh_dir, "hosts.yml", NULL);

    sbx_write (hosts, "github.com:\n  oauth_token: gho_fake\n", 0644);
    sbx_write (npmrc, "//registry.npmjs.org/:_authToken=npm_fake\n", 0644);
  }
  gh = (OwCredentialCopy) { "gh", gh_dir, ".config/gh", "GH_CONFIG_DIR", NULL };
  npm = (OwCredentialCopy) { "npm", npmrc, ".npmrc", "NPM_CONFIG_USERCONFIG", NULL };
  g_ptr_array_add (creds, &gh);
  g_ptr_array_add (creds, &npm);
  fx.spec.credentials = creds;
  ex = fx_start (&fx);

  out = sh (&fx, ex, "echo $GH_CONFIG_DIR $NPM_CONFIG_USERCONFIG;"
            " cat \"$GH_CONFIG_DIR/hosts.yml\" \"$NPM_CONFIG_USERCONFIG\";"
            " stat -c '%a %n' \"$GH_CONFIG_DIR\" \"$GH_CONFIG_DIR/hosts.yml\" \"$NPM_CONFIG_USERCONFIG\";"
            " ls -A \"$HOME\"", &code);
  g_assert_cmpint (code, ==, 0);
  {
    g_autofree char *want = g_strdup_printf ("%s/.config/gh %s/.npmrc", fx.home, fx.home);

    g_assert_nonnull (strstr (out, want));
  }
  g_assert_nonnull (strstr (out, "oauth_token: gho_fake"));
  g_assert_nonnull (strstr (out, "_authToken=npm_fake"));
  g_assert_nonnull (strstr (out, "700 "));
  g_assert_nonnull (strstr (out, "600 "));
  g_assert_null (strstr (out, "644 "));
  /* The rest of the home is still not there. */
  g_assert_null (strstr (out, ".ssh"));
  g_clear_pointer (&out, g_free);

  /* Changing the copy changes nothing outside. */
  out = sh (&fx, ex, "echo changed > \"$NPM_CONFIG_USERCONFIG\"", &code);
  g_clear_pointer (&out, g_free);
  {
    g_autofree char *content = NULL;

    g_assert_true (g_file_get_contents (npmrc, &content, NULL, NULL));
    g_assert_cmpstr (content, ==, "//registry.npmjs.org/:_authToken=npm_fake\n");
  }
  g_clear_object (&ex);
  wait_scratch_empty (&fx);
  fx_clear (&fx);
}

static void
test_proxy (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  SbxHttp *http = sbx_http_start ();
  SbxProxy *proxy = NULL;
  g_autofree char *sock = NULL, *allowed = NULL, *cmd = NULL, *out = NULL;
  int code;

  fx_init (&fx);
  sock = g_build_filename (fx.base, "proxy.sock", NULL);
  allowed = g_strdup_printf ("127.0.0.1:%d", sbx_http_port (http));
  proxy = sbx_proxy_start (sock, allowed);
  fx.spec.proxy_socket = sock;
  ex = fx_start (&fx);

  cmd = g_strdup_printf ("echo $HTTP_PROXY; curl -sS --max-time 10 http://%s/; echo; "
                         "curl -sS --max-time 5 --noproxy '*' http://%s/ 2>&1; echo direct=$?", allowed, allowed);
  out = sh (&fx, ex, cmd, &code);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "http://127.0.0.1:"));
  g_assert_nonnull (strstr (out, "hello from allowed"));
  g_assert_null (strstr (out, "direct=0"));
  g_assert_cmpuint (sbx_proxy_forwarded (proxy), >=, 1);
  g_assert_cmpuint (sbx_http_hits (http), ==, 1);
  g_clear_pointer (&out, g_free);

  /* The namespace's own loopback is the sandbox's: a test server started
   * inside answers there. */
  out = sh (&fx, ex, "python3 -m http.server 8123 --bind 127.0.0.1 >/dev/null 2>&1 & "
            "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.2; "
            "curl -s --noproxy '*' -o /dev/null -w 'local:%{http_code}' http://127.0.0.1:8123/ && break; done; "
            "kill $!", &code);
  g_assert_nonnull (strstr (out, "local:200"));
  g_clear_pointer (&out, g_free);

  g_clear_object (&ex);
  sbx_proxy_stop (proxy);
  sbx_http_stop (http);
  fx_clear (&fx);
}

/* No proxy: no network at all, not even TCP on the sandbox's loopback. */
static void
test_network_none (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  SbxHttp *http = sbx_http_start ();
  g_autofree char *cmd = NULL, *out = NULL;
  int code;

  fx_init (&fx);
  ex = fx_start (&fx);
  cmd = g_strdup_printf ("echo proxy=[$HTTP_PROXY]; curl -sS --max-time 5 http://127.0.0.1:%d/ 2>&1; "
                         "python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0))' 2>&1 | tail -1; "
                         "ip -o link | cut -d: -f2", sbx_http_port (http));
  out = sh (&fx, ex, cmd, &code);
  g_assert_nonnull (strstr (out, "proxy=[]"));
  g_assert_null (strstr (out, "hello from allowed"));
  g_assert_nonnull (strstr (out, "PermissionError"));
  g_assert_nonnull (strstr (out, " lo"));
  g_assert_null (strstr (out, " eth"));
  g_assert_cmpuint (sbx_http_hits (http), ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_object (&ex);
  sbx_http_stop (http);
  fx_clear (&fx);
}

static void
test_network_open (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  SbxHttp *http = sbx_http_start ();
  g_autofree char *cmd = NULL, *out = NULL;
  int code;

  fx_init (&fx);
  fx.spec.network_open = TRUE;
  g_free (fx.want_enforcement);
  fx.want_enforcement = g_strdup_printf ("linux: namespaces+landlock(abi %ld)+seccomp, network open",
                                         syscall (444, NULL, 0, 1U));
  ex = fx_start (&fx);
  /* The host's network, but still the wall's files. */
  cmd = g_strdup_printf ("curl -sS --max-time 10 http://127.0.0.1:%d/; echo; ls %s 2>&1; cat %s/.ssh/id_ed25519 2>&1",
                         sbx_http_port (http), fx.state, fx.home);
  out = sh (&fx, ex, cmd, &code);
  g_assert_nonnull (strstr (out, "hello from allowed"));
  g_assert_null (strstr (out, "openworker.db"));
  g_assert_null (strstr (out, "fake-key-material"));
  g_clear_pointer (&out, g_free);
  g_clear_object (&ex);
  sbx_http_stop (http);
  fx_clear (&fx);
}

static gboolean
on_cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel_through_wall (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  g_autoptr(GCancellable) cancel = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = NULL;
  gint64 started;

  fx_init (&fx);
  ex = fx_start (&fx);
  g_timeout_add (200, on_cancel_cb, cancel);
  started = g_get_monotonic_time ();
  r = sbx_call_cancellable (ex, "run_shell", "{\"command\":\"sleep 60\"}", cancel, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_INTERRUPTED);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 10 * G_USEC_PER_SEC);
  g_clear_object (&ex);
  fx_clear (&fx);
}

static gboolean
host_has_process_with (const char *marker)
{
  g_autoptr(GDir) d = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%s/cmdline", name);
      g_autofree char *cmdline = NULL;
      gsize len = 0;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (path, &cmdline, &len, NULL))
        continue;
      for (gsize i = 0; i + 1 < len; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      if (strstr (cmdline, marker) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* A tool that kills the runner takes the whole sandbox with it: pending
 * calls fail with the reason, nothing it started survives. */
static void
test_runner_killed_from_inside (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = NULL;
  g_autofree char *out = NULL;
  int code;

  fx_init (&fx);
  ex = fx_start (&fx);
  /* The pause lets setsid exec sleep before we look for it. */
  out = sh (&fx, ex, "(setsid sleep 31337 &) ; sleep 0.2; echo started", &code);
  g_clear_pointer (&out, g_free);
  g_assert_true (host_has_process_with ("sleep 31337"));
  r = sbx_call (ex, "run_shell", "{\"command\":\"kill -9 $PPID; sleep 5\"}", &error);
  g_assert_null (r);
  g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, "tool runner stopped"));
  g_assert_false (ow_executor_runner_is_alive (OW_EXECUTOR_RUNNER (ex)));
  OW_TEST_WAIT_UNTIL (!host_has_process_with ("sleep 31337"));
  g_clear_object (&ex);
  wait_scratch_empty (&fx);
  fx_clear (&fx);
}

/* A hidden folder inside the workspace that itself holds a session folder
 * (a run's tool-output folder inside OpenWorker's state, with the state
 * inside the project): the folder shows, nothing else of the state does. */
static void
test_root_inside_hidden (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  g_autofree char *state = NULL, *output = NULL, *token = NULL, *cmd = NULL, *out = NULL;
  int code;

  fx_init (&fx);
  state = g_build_filename (fx.ws, ".openworker", NULL);
  output = g_build_filename (state, "sessions", "s1", "tool-output", NULL);
  token = g_build_filename (state, "sessions", "s1", "token", NULL);
  g_mkdir_with_parents (output, 0700);
  sbx_write (token, "session-token\n", 0600);
  g_ptr_array_add (fx.roots, ow_root_new (output, TRUE, "tool-output"));
  ex = fx_start (&fx);
  cmd = g_strdup_printf ("echo spilled > %s/out.txt && cat %s/out.txt; ls -A %s; ls -A %s/sessions/s1; "
                         "cat %s 2>&1; cat %s/token 2>&1", output, output, state, state, token, state);
  out = sh (&fx, ex, cmd, &code);
  g_assert_nonnull (strstr (out, "spilled"));
  g_assert_null (strstr (out, "session-token"));
  g_assert_null (strstr (out, "inner-token"));
  g_assert_nonnull (strstr (out, "sessions\ntool-output\n"));
  g_clear_pointer (&out, g_free);
  {
    g_autofree char *spilled = g_build_filename (output, "out.txt", NULL);

    g_assert_true (g_file_test (spilled, G_FILE_TEST_EXISTS));
  }
  g_clear_object (&ex);
  fx_clear (&fx);
}

/* The runner's process as the engine sees it (outside the namespaces). */
static pid_t
find_outer_runner (void)
{
  g_autoptr(GDir) d = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *stat_path = g_strdup_printf ("/proc/%s/stat", name);
      g_autofree char *cmd_path = g_strdup_printf ("/proc/%s/cmdline", name);
      g_autofree char *stat = NULL, *cmdline = NULL;
      const char *close_paren;
      int ppid = 0;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (stat_path, &stat, NULL, NULL)
          || !g_file_get_contents (cmd_path, &cmdline, NULL, NULL))
        continue;
      close_paren = strrchr (stat, ')');
      if (close_paren == NULL || sscanf (close_paren + 2, "%*c %d", &ppid) != 1)
        continue;
      if (ppid == getpid () && strstr (cmdline, "openworker-tool-runner") != NULL)
        return (pid_t) atoi (name);
    }
  return 0;
}

/* The engine's way to end a sandbox that will not stop: kill the process
 * it started. Init dies with it (parent-death signal), and with init the
 * whole pid namespace. */
static void
test_engine_kills_runner (void)
{
  Fx fx;
  g_autoptr(OwExecutor) ex = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = NULL;
  g_autofree char *out = NULL;
  pid_t outer;
  int code;

  fx_init (&fx);
  ex = fx_start (&fx);
  out = sh (&fx, ex, "(setsid sleep 31338 &) ; sleep 0.2; echo started", &code);
  g_assert_true (host_has_process_with ("sleep 31338"));
  outer = find_outer_runner ();
  g_assert_cmpint (outer, >, 0);
  g_assert_cmpint (kill (outer, SIGKILL), ==, 0);
  r = sbx_call (ex, "run_shell", "{\"command\":\"sleep 30\"}", &error);
  g_assert_null (r);
  g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  OW_TEST_WAIT_UNTIL (!host_has_process_with ("sleep 31338"));
  g_clear_object (&ex);
  wait_scratch_empty (&fx);
  fx_clear (&fx);
}

static void
expect_refusal (Fx *fx, const char *phrase)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwExecutor) ex = sbx_start (fx->backend, &fx->spec, &error);

  g_assert_null (ex);
  g_assert_nonnull (error);
  g_assert_true (error->domain == OW_SANDBOX_ERROR);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, phrase));
}

typedef struct {
  OwExecutor *executor;  /* (owned) */
  GError     *error;     /* (owned) */
  gboolean    done;      /* the start has answered */
} Started;

static void
on_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Started *st = user_data;

  st->executor = ow_sandbox_backend_start_finish (OW_SANDBOX_BACKEND (source), result, &st->error);
  st->done = TRUE;
}

static void
test_refusals (void)
{
  Fx fx;

  fx_init (&fx);
  fx.spec.runner_path = "/nonexistent/openworker-tool-runner";
  expect_refusal (&fx, "openworker-tool-runner was not found");
  fx.spec.runner_path = sbx_runner_path ();

  g_ptr_array_add (fx.roots, ow_root_new ("/nonexistent-ow-folder", TRUE, "added"));
  expect_refusal (&fx, "does not exist");
  g_ptr_array_set_size (fx.roots, 1);

  g_ptr_array_add (fx.roots, ow_root_new ("/", TRUE, "added"));
  expect_refusal (&fx, "cannot be a session folder");
  g_ptr_array_set_size (fx.roots, 1);

  fx.spec.proxy_socket = "/nonexistent-ow/proxy.sock";
  expect_refusal (&fx, "proxy's socket");
  fx.spec.proxy_socket = NULL;

  /* The wall cannot be built inside (a credential that is not there):
   * the runner's own reason comes back. */
  {
    g_autoptr(GPtrArray) creds = g_ptr_array_new ();
    OwCredentialCopy missing = { "custom", "/nonexistent-ow/credential", ".secret", NULL, NULL };

    g_ptr_array_add (creds, &missing);
    fx.spec.credentials = creds;
    expect_refusal (&fx, "cannot read the shared credential /nonexistent-ow/credential");
    fx.spec.credentials = NULL;
  }

  /* A runner that is not a runner: the wall is never proved. */
  fx.spec.runner_path = "/bin/true";
  expect_refusal (&fx, "refused");
  fx.spec.runner_path = sbx_runner_path ();

  /* Cancelled while starting: refused with "cancelled", nothing left. */
  {
    g_autoptr(GCancellable) cancel = g_cancellable_new ();
    Started st = { 0 };

    ow_sandbox_backend_start_async (fx.backend, &fx.spec, cancel, on_started_cb, &st);
    g_cancellable_cancel (cancel);
    ow_test_wait_flag (&st.done);
    g_assert_null (st.executor);
    g_assert_error (st.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error (&st.error);
  }

  /* A runner that hangs before hello: cancelling the start kills it. */
  {
    g_autoptr(GCancellable) cancel = g_cancellable_new ();
    g_autofree char *hung = g_build_filename (fx.base, "hung-runner", NULL);
    Started st = { 0 };

    sbx_write (hung, "#!/bin/sh\nexec sleep 4242\n", 0755);
    fx.spec.runner_path = hung;
    ow_sandbox_backend_start_async (fx.backend, &fx.spec, cancel, on_started_cb, &st);
    ow_test_spin_for (300);
    g_assert_true (host_has_process_with ("sleep 4242"));
    g_cancellable_cancel (cancel);
    OW_TEST_WAIT_UNTIL (st.done && !host_has_process_with ("sleep 4242"));
    g_assert_error (st.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error (&st.error);
    fx.spec.runner_path = sbx_runner_path ();
  }
  wait_scratch_empty (&fx);
  fx_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  sbx_require_wall ();
  g_test_add_func ("/ow/sandbox/wall/status", test_status);
  g_test_add_func ("/ow/sandbox/wall/registry", test_registry);
  g_test_add_func ("/ow/sandbox/wall/tools", test_tools);
  g_test_add_func ("/ow/sandbox/wall/private-home", test_private_home);
  g_test_add_func ("/ow/sandbox/wall/credentials", test_credentials);
  g_test_add_func ("/ow/sandbox/wall/proxy", test_proxy);
  g_test_add_func ("/ow/sandbox/wall/network-none", test_network_none);
  g_test_add_func ("/ow/sandbox/wall/network-open", test_network_open);
  g_test_add_func ("/ow/sandbox/wall/cancel", test_cancel_through_wall);
  g_test_add_func ("/ow/sandbox/wall/runner-killed-from-inside", test_runner_killed_from_inside);
  g_test_add_func ("/ow/sandbox/wall/root-inside-hidden", test_root_inside_hidden);
  g_test_add_func ("/ow/sandbox/wall/engine-kills-runner", test_engine_kills_runner);
  g_test_add_func ("/ow/sandbox/wall/refusals", test_refusals);
  return g_test_run ();
}
