/* test-openshell.c: the OpenShell backend against a fake `openshell`.
 *
 * fake-openshell.py records every call, checks the rendered policy and
 * mounts (folders at their own paths, read-only where asked, the runner
 * read-only, Landlock required, the folders' owner, exactly the allowed
 * sites, nothing of the home folder), and runs each sandbox as a small
 * container (a mount namespace holding only what was mounted), with the
 * real openworker-tool-runner behind a relay as its main command. So a
 * start here runs the whole path: preflight, create, Ready, the exec
 * stream, the runner's hello, the wall probe from inside, a tool call.
 *
 * Each refusal (gateway, bind mounts, Landlock, image, release, "open",
 * missing CLI) is checked for its message and for leaving no sandbox
 * behind; the successful start is their positive control.
 *
 * The fake needs mount namespaces (root) and util-linux; without them the
 * test skips with the reason.
 */
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ow-error.h"
#include "ow-test-utils.h"
#include "sandbox/ow-sandbox-openshell.h"

static char *fake_openshell;
static char *fake_docker;
static char *standin;

/* One test's world: a short state folder (socket paths are short), two
 * session folders and the fake's log. */
typedef struct {
  char *state;     /* FAKE_OPENSHELL_DIR */
  char *rw;        /* a read-write session folder */
  char *ro;        /* a read-only session folder */
  char *scratch;   /* the engine's scratch folder for the sandbox */
} World;

static void
world_init (World *w, const char *mode)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *forbidden = NULL;
  g_autofree char *note = NULL;

  w->state = ow_test_make_tmpdir ("owos");
  w->rw = g_build_filename (w->state, "work", NULL);
  w->ro = g_build_filename (w->state, "ref data", NULL);
  w->scratch = g_build_filename (w->state, "scratch", NULL);
  g_mkdir (w->rw, 0755);
  g_mkdir (w->ro, 0755);
  note = g_build_filename (w->ro, "spec.txt", NULL);
  g_file_set_contents (note, "the spec\n", -1, &error);
  g_assert_no_error (error);

  forbidden = g_strdup_printf ("%s:%s", g_get_home_dir (), g_get_user_config_dir ());
  g_setenv ("FAKE_OPENSHELL_DIR", w->state, TRUE);
  g_setenv ("FAKE_OPENSHELL_MODE", mode, TRUE);
  g_setenv ("FAKE_OPENSHELL_FORBIDDEN", forbidden, TRUE);
  g_setenv ("FAKE_OPENSHELL_EXPECT_HOSTS", "github.com:443,pypi.org:443", TRUE);
}

static void
world_clear (World *w)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", w->state);

  g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL);
  g_free (w->state);
  g_free (w->rw);
  g_free (w->ro);
  g_free (w->scratch);
}

/* The fake's calls, one argv (joined by spaces) per line. */
static GPtrArray *
calls (World *w, const char *file)
{
  g_autofree char *path = g_build_filename (w->state, file, NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return out;
  lines = g_strsplit (text, "\n", -1);
  for (gsize i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonArray *argv;
      g_autoptr(GString) joined = g_string_new (NULL);

      if (lines[i][0] == '\0' || !json_parser_load_from_data (parser, lines[i], -1, NULL))
        continue;
      argv = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "argv");
      for (guint j = 0; j < json_array_get_length (argv); j++)
        g_string_append_printf (joined, "%s%s", j > 0 ? " " : "", json_array_get_string_element (argv, j));
      g_ptr_array_add (out, g_string_free (g_steal_pointer (&joined), FALSE));
    }
  return out;
}

static const char *
find_call (GPtrArray *list, const char *prefix)
{
  for (guint i = 0; i < list->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (list, i), prefix))
      return g_ptr_array_index (list, i);
  return NULL;
}

static guint
count_sandboxes (World *w)
{
  g_autofree char *dir = g_build_filename (w->state, "sandboxes", NULL);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static OwSandboxBackend *
backend_new (const char *openshell)
{
  const char *hosts[] = { "github.com:443", "pypi.org:443", NULL };
  OwOpenshellConfig config = {
    .openshell = openshell != NULL ? openshell : fake_openshell,
    .docker = fake_docker,
    .network_hosts = hosts,
    .ready_timeout_ms = 3000,
  };

  return ow_sandbox_openshell_new (&config);
}

typedef struct {
  gboolean      done;    /* the answer is in */
  OwExecutor   *ex;      /* start's result */
  OwToolResult *result;  /* a tool call's result */
  GError       *error;   /* either's error */
} Wait;

static void
on_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Wait *w = user_data;

  w->ex = ow_sandbox_backend_start_finish (OW_SANDBOX_BACKEND (source), result, &w->error);
  w->done = TRUE;
}

static void
on_called_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Wait *w = user_data;

  w->result = ow_executor_execute_finish (OW_EXECUTOR (source), result, &w->error);
  w->done = TRUE;
}

static OwExecutor *
start (OwSandboxBackend *backend, World *w, gboolean open, GError **error)
{
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  const char *hidden[] = { g_get_home_dir (), g_get_user_config_dir (), NULL };
  OwSandboxSpec spec = { 0 };
  Wait wait = { 0 };

  g_ptr_array_add (roots, ow_root_new (w->rw, TRUE, "workspace"));
  g_ptr_array_add (roots, ow_root_new (w->ro, FALSE, "added"));
  spec.session_id = "s1";
  spec.roots = roots;
  spec.runner_path = standin;
  spec.network_open = open;
  spec.hidden = hidden;
  spec.scratch_dir = w->scratch;
  ow_sandbox_backend_start_async (backend, &spec, NULL, on_started_cb, &wait);
  ow_test_wait_flag (&wait.done);
  if (wait.error != NULL)
    g_propagate_error (error, wait.error);
  return wait.ex;
}

static OwToolResult *
call (OwExecutor *ex, const char *tool, const char *args, GError **error)
{
  Wait wait = { 0 };

  ow_executor_execute_async (ex, tool, args, NULL, on_called_cb, &wait);
  ow_test_wait_flag (&wait.done);
  if (wait.error != NULL)
    g_propagate_error (error, wait.error);
  return wait.result;
}

/* --- the path that works ------------------------------------------------- */

static void
test_start_and_call (void)
{
  World w;
  g_autoptr(OwSandboxBackend) backend = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwExecutor) ex = NULL;
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(GPtrArray) log = NULL;
  g_autofree char *made = NULL;
  g_autofree char *name = NULL;
  g_autofree char *want = NULL;
  const char *create;

  world_init (&w, "");
  backend = backend_new (NULL);
  g_assert_cmpstr (ow_sandbox_backend_get_name (backend), ==, "openshell");
  ex = start (backend, &w, FALSE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ex);
  g_assert_nonnull (strstr (ow_executor_get_enforcement (ex), "openshell"));
  g_assert_nonnull (strstr (ow_executor_get_enforcement (ex), "landlock"));
  name = g_strdup (ow_openshell_executor_get_sandbox (ex));
  g_assert_nonnull (name);
  g_assert_true (g_str_has_prefix (name, "ow-s1-1-"));

  /* The argument lists, exactly. */
  log = calls (&w, "calls.jsonl");
  g_assert_cmpstr (g_ptr_array_index (log, 0), ==, "--version");
  g_assert_cmpstr (g_ptr_array_index (log, 1), ==, "status");
  create = find_call (log, "sandbox create ");
  g_assert_nonnull (create);
  want = g_strdup_printf ("sandbox create --name %s --from " OW_OPENSHELL_IMAGE " --policy %s/scratch/openshell-", name,
                          w.state);
  g_assert_true (g_str_has_prefix (create, want));
  g_assert_nonnull (strstr (create, "/policy.json --driver-config-json {\"docker\":{\"mounts\":["));
  g_assert_nonnull (strstr (create, " --no-tty --detach --no-auto-providers --label openworker=1 --label "
                                    "openworker-session=s1 --env HOME=/tmp --env TMPDIR=/tmp -- "
                                    OW_OPENSHELL_RUNNER " --socket " OW_OPENSHELL_RUNNER_SOCKET));
  g_assert_nonnull (find_call (log, "sandbox get "));
  {
    g_autofree char *exec = g_strdup_printf ("sandbox exec --name %s --no-tty -- " OW_OPENSHELL_RUNNER
                                             " --attach " OW_OPENSHELL_RUNNER_SOCKET, name);

    g_assert_nonnull (find_call (log, exec));
  }
  {
    g_autoptr(GPtrArray) dlog = calls (&w, "docker.jsonl");

    g_assert_cmpuint (dlog->len, ==, 1);
    g_assert_cmpstr (g_ptr_array_index (dlog, 0), ==, "image inspect --format {{.Id}} " OW_OPENSHELL_IMAGE);
  }

  /* A command runs inside: it writes in the read-write folder, reads the
   * read-only one, and cannot write there. */
  r = call (ex, "run_shell",
            "{\"command\":\"echo made > made.txt; cat '../ref data/spec.txt'; "
            "(echo x > '../ref data/x.txt') 2>/dev/null || echo refused; test -e \\\"$OW_NOTHING\\\"; "
            "ls /root /home 2>&1 | head -3\"}",
            &error);
  g_assert_no_error (error);
  g_assert_nonnull (r);
  g_test_message ("run_shell: %s", r->text);
  g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_OK);
  g_assert_nonnull (strstr (r->text, "the spec"));
  g_assert_nonnull (strstr (r->text, "refused"));
  {
    g_autofree char *path = g_build_filename (w.rw, "made.txt", NULL);
    g_autofree char *x = g_build_filename (w.ro, "x.txt", NULL);

    g_assert_true (g_file_get_contents (path, &made, NULL, NULL));
    g_assert_cmpstr (made, ==, "made\n");
    g_assert_false (g_file_test (x, G_FILE_TEST_EXISTS));
  }

  /* A site granted for the session goes into the running sandbox. */
  g_assert_true (ow_openshell_executor_add_endpoint (ex, "registry.npmjs.org:443", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ow_openshell_executor_add_endpoint (ex, "no-port", NULL, &error));
  g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  g_clear_error (&error);
  g_ptr_array_unref (log);
  log = calls (&w, "calls.jsonl");
  {
    g_autofree char *upd = g_strdup_printf ("policy update %s --add-endpoint registry.npmjs.org:443 --binary /** --wait",
                                            name);

    g_assert_nonnull (find_call (log, upd));
  }

  /* The end of the session deletes the sandbox. */
  g_clear_object (&ex);
  OW_TEST_WAIT_UNTIL (count_sandboxes (&w) == 0);
  g_ptr_array_unref (log);
  log = calls (&w, "calls.jsonl");
  {
    g_autofree char *del = g_strdup_printf ("sandbox delete %s", name);

    g_assert_nonnull (find_call (log, del));
  }
  world_clear (&w);
}

static void
on_recreated_cb (OwExecutor *ex, gpointer user_data)
{
  (*(int *) user_data)++;
}

static void
test_recreate_on_new_folder (void)
{
  World w;
  g_autoptr(OwSandboxBackend) backend = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwExecutor) ex = NULL;
  g_autoptr(OwToolResult) r = NULL;
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autoptr(GPtrArray) log = NULL;
  g_autofree char *first = NULL, *extra = NULL;
  int recreated = 0;
  const char *second;

  world_init (&w, "");
  backend = backend_new (NULL);
  ex = start (backend, &w, FALSE, &error);
  g_assert_no_error (error);
  first = g_strdup (ow_openshell_executor_get_sandbox (ex));
  g_signal_connect (ex, "sandbox-recreated", G_CALLBACK (on_recreated_cb), &recreated);

  /* The same folders: nothing happens. */
  g_ptr_array_add (roots, ow_root_new (w.rw, TRUE, "workspace"));
  g_ptr_array_add (roots, ow_root_new (w.ro, FALSE, "added"));
  ow_executor_set_roots (ex, roots);
  g_assert_cmpstr (ow_openshell_executor_get_sandbox (ex), ==, first);

  /* A new folder: a new sandbox; the call made meanwhile waits for it and
   * sees the new folder. */
  extra = g_build_filename (w.state, "more", NULL);
  g_mkdir (extra, 0755);
  g_ptr_array_add (roots, ow_root_new (extra, TRUE, "added"));
  ow_executor_set_roots (ex, roots);
  r = call (ex, "run_shell", "{\"command\":\"touch ../more/new.txt && echo ok\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->status, ==, OW_TOOL_STATUS_OK);
  g_assert_cmpint (recreated, ==, 1);
  second = ow_openshell_executor_get_sandbox (ex);
  g_assert_nonnull (second);
  g_assert_cmpstr (second, !=, first);
  {
    g_autofree char *made = g_build_filename (extra, "new.txt", NULL);

    g_assert_true (g_file_test (made, G_FILE_TEST_EXISTS));
  }
  log = calls (&w, "calls.jsonl");
  {
    g_autofree char *del = g_strdup_printf ("sandbox delete %s", first);

    g_assert_nonnull (find_call (log, del));
  }
  /* The new policy names the new folder read-write. */
  {
    g_autofree char *box = g_strdup_printf ("%s/sandboxes/%s.json", w.state, second);
    g_autoptr(JsonParser) p = json_parser_new ();
    JsonObject *fs;
    JsonArray *rw;
    gboolean found = FALSE;

    g_assert_true (json_parser_load_from_file (p, box, NULL));
    fs = json_object_get_object_member (
      json_object_get_object_member (json_node_get_object (json_parser_get_root (p)), "policy"), "filesystem_policy");
    rw = json_object_get_array_member (fs, "read_write");
    for (guint i = 0; i < json_array_get_length (rw); i++)
      found |= g_str_equal (json_array_get_string_element (rw, i), extra);
    g_assert_true (found);
  }
  g_assert_cmpuint (count_sandboxes (&w), ==, 1);
  g_clear_object (&ex);
  OW_TEST_WAIT_UNTIL (count_sandboxes (&w) == 0);
  world_clear (&w);
}

/* --- the policy itself ------------------------------------------------------ */

static void
test_render_policy (void)
{
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  const char *hosts[] = { "github.com:443", "*.amazonaws.com:443", NULL };
  const char *bad_hosts[] = { "github.com", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *policy = NULL, *mounts = NULL, *bad = NULL;

  g_ptr_array_add (roots, ow_root_new ("/home/ada/code/app", TRUE, "workspace"));
  g_ptr_array_add (roots, ow_root_new ("/home/ada/specs \"v2\"", FALSE, "added"));
  policy = ow_openshell_render_policy (roots, "/home/ada/.local/share/openworker/rt/home", 1000, 1000, hosts, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (policy, ==,
                   "{\n"
                   "  \"version\" : 1,\n"
                   "  \"filesystem_policy\" : {\n"
                   "    \"include_workdir\" : false,\n"
                   "    \"read_only\" : [\n"
                   "      \"/usr\",\n      \"/lib\",\n      \"/etc\",\n      \"/proc\",\n      \"/dev/urandom\",\n"
                   "      \"/var/log\",\n      \"/sandbox\",\n      \"/opt/openworker\",\n"
                   "      \"/home/ada/specs \\\"v2\\\"\"\n"
                   "    ],\n"
                   "    \"read_write\" : [\n"
                   "      \"/tmp\",\n      \"/dev/null\",\n      \"/dev/pts\",\n"
                   "      \"/home/ada/.local/share/openworker/rt/home\",\n"
                   "      \"/home/ada/code/app\"\n"
                   "    ]\n"
                   "  },\n"
                   "  \"landlock\" : {\n    \"compatibility\" : \"hard_requirement\"\n  },\n"
                   "  \"process\" : {\n    \"run_as_user\" : \"1000\",\n    \"run_as_group\" : \"1000\"\n  },\n"
                   "  \"network_policies\" : {\n"
                   "    \"openworker_allow_list\" : {\n"
                   "      \"name\" : \"openworker-allow-list\",\n"
                   "      \"endpoints\" : [\n"
                   "        {\n          \"host\" : \"github.com\",\n          \"port\" : 443\n        },\n"
                   "        {\n          \"host\" : \"*.amazonaws.com\",\n          \"port\" : 443\n        }\n"
                   "      ],\n"
                   "      \"binaries\" : [\n        {\n          \"path\" : \"/**\"\n        }\n      ]\n"
                   "    }\n"
                   "  }\n"
                   "}");
  mounts = ow_openshell_render_mounts (roots, "/usr/libexec/openworker-tool-runner", NULL);
  g_assert_cmpstr (mounts, ==,
                   "{\"docker\":{\"mounts\":["
                   "{\"type\":\"bind\",\"source\":\"/home/ada/code/app\",\"target\":\"/home/ada/code/app\",\"read_only\":false},"
                   "{\"type\":\"bind\",\"source\":\"/home/ada/specs \\\"v2\\\"\",\"target\":\"/home/ada/specs \\\"v2\\\"\","
                   "\"read_only\":true},"
                   "{\"type\":\"bind\",\"source\":\"/usr/libexec/openworker-tool-runner\",\"target\":\"" OW_OPENSHELL_RUNNER
                   "\",\"read_only\":true}]}}");
  /* No sites: an empty list, nothing allowed. */
  g_free (policy);
  policy = ow_openshell_render_policy (roots, NULL, -1, -1, NULL, &error);
  g_assert_nonnull (strstr (policy, "\"network_policies\" : {  }"));
  g_assert_nonnull (strstr (policy, "\"run_as_user\" : \"sandbox\""));
  bad = ow_openshell_render_policy (roots, NULL, 1, 1, bad_hosts, &error);
  g_assert_null (bad);
  g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
}

/* --- every refusal ------------------------------------------------------------ */

static void
check_refusal (const char *mode, const char *openshell, gboolean open, const char *says)
{
  World w;
  g_autoptr(OwSandboxBackend) backend = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwExecutor) ex = NULL;

  world_init (&w, mode);
  backend = backend_new (openshell);
  ex = start (backend, &w, open, &error);
  g_assert_null (ex);
  g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
  if (strstr (error->message, says) == NULL)
    g_error ("mode %s: “%s” does not say “%s”", mode, error->message, says);
  /* Nothing is left on the gateway. */
  OW_TEST_WAIT_UNTIL (count_sandboxes (&w) == 0);
  world_clear (&w);
}

static void
test_refusals (void)
{
  check_refusal ("disconnected", NULL, FALSE, "gateway is not running");
  check_refusal ("no-bind-mounts", NULL, FALSE, "enable_bind_mounts = true");
  check_refusal ("no-landlock", NULL, FALSE, "Update Docker Desktop");
  check_refusal ("no-image", NULL, FALSE, "not downloaded yet (needs download");
  check_refusal ("no-image", NULL, FALSE, "docker pull " OW_OPENSHELL_IMAGE);
  check_refusal ("old-version", NULL, FALSE, "OpenShell 0.0.116 is installed");
  check_refusal ("never-ready", NULL, FALSE, "did not become ready");
  check_refusal ("", NULL, TRUE, "not available with OpenShell");
  check_refusal ("", "/nonexistent/openshell", FALSE, "not installed");
}

static void
test_status (void)
{
  World w;
  g_autoptr(OwSandboxBackend) backend = NULL;
  g_autoptr(JsonObject) ok = NULL, bad = NULL;

  world_init (&w, "");
  backend = backend_new (NULL);
  ok = ow_sandbox_backend_status (backend);
  g_assert_true (json_object_get_boolean_member (ok, "ready"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (ok, "missing")), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (ok, "checks")), >=, 4);

  g_setenv ("FAKE_OPENSHELL_MODE", "disconnected,no-image", TRUE);
  bad = ow_sandbox_backend_status (backend);
  g_assert_false (json_object_get_boolean_member (bad, "ready"));
  /* Both problems are listed, not just the first. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (bad, "missing")), ==, 2);
  world_clear (&w);
}

int
main (int argc, char **argv)
{
  const char *runner;
  g_autofree char *probe_out = NULL;
  int probe_status = 1;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  if (argc < 3)
    {
      g_printerr ("usage: %s TESTS_PLATFORM_SOURCE_DIR OPENWORKER_TOOL_RUNNER\n", argv[0]);
      return 2;
    }
  runner = argv[2];
  fake_openshell = g_build_filename (argv[1], "fake-openshell.py", NULL);
  fake_docker = g_build_filename (argv[1], "fake-docker.py", NULL);
  standin = g_build_filename (argv[1], "runner-standin.py", NULL);
  g_setenv ("OW_REAL_RUNNER", runner, TRUE);

  /* The fake's containers are mount namespaces: they need root. */
  g_spawn_command_line_sync ("unshare --mount --propagation private true", &probe_out, NULL, &probe_status, NULL);
  if (getuid () != 0 || probe_status != 0)
    {
      g_print ("1..0 # SKIP the fake OpenShell needs root and mount namespaces (unshare) to run its sandboxes\n");
      return 77;
    }

  g_test_add_func ("/ow/platform/openshell/render-policy", test_render_policy);
  g_test_add_func ("/ow/platform/openshell/start-and-call", test_start_and_call);
  g_test_add_func ("/ow/platform/openshell/recreate-on-new-folder", test_recreate_on_new_folder);
  g_test_add_func ("/ow/platform/openshell/refusals", test_refusals);
  g_test_add_func ("/ow/platform/openshell/status", test_status);
  return g_test_run ();
}
