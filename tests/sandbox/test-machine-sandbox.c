/* test-machine-sandbox.c: `openworker machine sandbox status|setup|remove`.
 *
 * Runs the command's entry point in this process with OPENWORKER_HOME on
 * a temporary folder (so config.toml is ours) and its standard output
 * captured: status as lines and as JSON, setup proving a throwaway
 * sandbox and then writing sandbox_provider = "linux" while keeping every
 * other setting and the file's mode, remove writing "direct" back, both
 * saying when nothing changed, and the refusals (unknown provider, broken
 * config, bad usage) leaving the file untouched.
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ow-json.h"
#include "ow-sandbox-linux.h"
#include "sandbox/ow-machine-sandbox.h"
#include "sbx-test-util.h"
#include "store/ow-toml.h"

static char *home;      /* OPENWORKER_HOME */
static char *config;    /* its config.toml */

/* Runs the command with @argv (NULL-terminated, starting at "sandbox")
 * and returns its exit code; *out gets what it printed on stdout. */
static int
run (const char *const *argv, char **out)
{
  g_autofree char *capture = g_build_filename (home, "stdout.txt", NULL);
  int saved, fd, code, argc = 0;

  while (argv[argc] != NULL)
    argc++;
  fflush (stdout);
  saved = dup (1);
  fd = open (capture, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  g_assert_cmpint (fd, >=, 0);
  dup2 (fd, 1);
  close (fd);
  code = ow_machine_sandbox_main (argc, (char **) argv);
  fflush (stdout);
  dup2 (saved, 1);
  close (saved);
  g_assert_true (g_file_get_contents (capture, out, NULL, NULL));
  g_test_message ("%s", *out);
  return code;
}

static JsonObject *
read_config (void)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *root;
  JsonObject *obj;

  g_assert_true (g_file_get_contents (config, &text, NULL, NULL));
  root = ow_toml_parse (text, -1, &error);
  g_assert_no_error (error);
  obj = json_object_ref (json_node_get_object (root));
  json_node_unref (root);
  return obj;
}

static void
write_config (const char *text, int mode)
{
  sbx_write (config, text, mode);
  g_chmod (config, mode);
}

static const char example_config[] =
  "model = \"openai:gpt-4o\"\n"
  "approval_mode = \"ask\"\n"
  "sandbox_network_hosts = [\"github.com:443\", \"pypi.org:443\"]\n"
  "\n"
  "[policy]\n"
  "deny = [\"rm -rf /\"]\n"
  "\n"
  "[providers.openai]\n"
  "base_url = \"http://127.0.0.1:8000/v1\"\n";

static void
assert_others_kept (JsonObject *c)
{
  JsonArray *hosts = ow_json_get_array (c, "sandbox_network_hosts");

  g_assert_cmpstr (ow_json_get_string (c, "model"), ==, "openai:gpt-4o");
  g_assert_cmpstr (ow_json_get_string (c, "approval_mode"), ==, "ask");
  g_assert_cmpuint (json_array_get_length (hosts), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (ow_json_get_array (ow_json_get_object (c, "policy"), "deny"), 0),
                   ==, "rm -rf /");
  g_assert_cmpstr (ow_json_get_string (ow_json_get_object (ow_json_get_object (c, "providers"), "openai"),
                                       "base_url"), ==, "http://127.0.0.1:8000/v1");
}

static void
test_status (void)
{
  const char *human[] = { "sandbox", "status", NULL };
  const char *as_json[] = { "sandbox", "status", "--json", NULL };
  g_autofree char *out = NULL, *json = NULL;
  g_autoptr(JsonObject) status = NULL;
  g_autoptr(GError) error = NULL;

  g_unlink (config);
  g_assert_cmpint (run (human, &out), ==, 0);
  g_assert_nonnull (strstr (out, "The linux sandbox on this machine: ready"));
  g_assert_nonnull (strstr (out, "sandbox_provider = \"direct\""));
  g_assert_nonnull (strstr (out, "[ok] landlock: ABI"));
  g_assert_nonnull (strstr (out, "[ok] user namespaces"));
  g_assert_nonnull (strstr (out, "openworker machine sandbox setup"));

  g_assert_cmpint (run (as_json, &json), ==, 0);
  status = ow_json_object_from_string (json, -1, &error);
  g_assert_no_error (error);
  g_assert_true (ow_json_get_bool (status, "ready", FALSE));
  g_assert_cmpstr (ow_json_get_string (status, "configured"), ==, "direct");
  g_assert_cmpstr (ow_json_get_string (status, "provider"), ==, "linux");
  g_assert_cmpstr (ow_json_get_string (status, "config_file"), ==, config);
  g_assert_cmpint (ow_json_get_int (status, "landlock_abi", 0), >=, 1);
  g_assert_nonnull (ow_json_get_string (status, "kernel"));
  g_assert_cmpuint (json_array_get_length (ow_json_get_array (status, "checks")), >=, 5);
  g_assert_cmpuint (json_array_get_length (ow_json_get_array (status, "missing")), ==, 0);
}

static void
test_setup_and_remove (void)
{
  const char *setup[] = { "sandbox", "setup", NULL };
  const char *remove[] = { "sandbox", "remove", NULL };
  g_autofree char *out1 = NULL, *out2 = NULL, *out3 = NULL, *out4 = NULL;
  g_autoptr(JsonObject) after_setup = NULL;
  g_autoptr(JsonObject) after_remove = NULL;
  GStatBuf st;

  write_config (example_config, 0640);
  g_assert_cmpint (run (setup, &out1), ==, 0);
  g_assert_nonnull (strstr (out1, "The wall holds (linux: namespaces+landlock(abi"));
  g_assert_nonnull (strstr (out1, "sandbox_provider = \"linux\" (was \"direct\")"));
  after_setup = read_config ();
  g_assert_cmpstr (ow_json_get_string (after_setup, "sandbox_provider"), ==, "linux");
  assert_others_kept (after_setup);
  g_assert_cmpint (g_stat (config, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);

  /* Again: proved again, nothing to change. */
  g_assert_cmpint (run (setup, &out2), ==, 0);
  g_assert_nonnull (strstr (out2, "nothing changed"));

  g_assert_cmpint (run (remove, &out3), ==, 0);
  g_assert_nonnull (strstr (out3, "sandbox_provider = \"direct\" (was \"linux\")"));
  after_remove = read_config ();
  g_assert_cmpstr (ow_json_get_string (after_remove, "sandbox_provider"), ==, "direct");
  assert_others_kept (after_remove);

  g_assert_cmpint (run (remove, &out4), ==, 0);
  g_assert_nonnull (strstr (out4, "nothing changed"));
}

static void
test_setup_without_config (void)
{
  const char *setup[] = { "sandbox", "setup", NULL };
  g_autofree char *out = NULL;
  g_autoptr(JsonObject) c = NULL;
  GStatBuf st;

  g_unlink (config);
  g_assert_cmpint (run (setup, &out), ==, 0);
  c = read_config ();
  g_assert_cmpstr (ow_json_get_string (c, "sandbox_provider"), ==, "linux");
  g_assert_cmpint (g_stat (config, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
}

static void
test_refusals (void)
{
  const char *seatbelt[] = { "sandbox", "setup", "--provider", "seatbelt", NULL };
  const char *status[] = { "sandbox", "status", NULL };
  const char *setup[] = { "sandbox", "setup", NULL };
  const char *none[] = { "sandbox", NULL };
  const char *unknown[] = { "sandbox", "explode", NULL };
  const char *bad_opt[] = { "sandbox", "remove", "--json", NULL };
  g_autofree char *o1 = NULL, *o2 = NULL, *o3 = NULL, *o4 = NULL, *o5 = NULL, *o6 = NULL;
  g_autofree char *before = NULL, *after = NULL;

  write_config (example_config, 0600);
  g_assert_cmpint (run (seatbelt, &o1), ==, 1);
  g_assert_true (g_file_get_contents (config, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, example_config);
  g_clear_pointer (&after, g_free);

  /* A config that does not parse is never rewritten. */
  before = g_strdup ("model = \"openai:gpt-4o\"\nsandbox_provider = \n");
  write_config (before, 0600);
  g_assert_cmpint (run (status, &o2), ==, 1);
  g_assert_cmpint (run (setup, &o3), ==, 1);
  g_assert_true (g_file_get_contents (config, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);

  g_assert_cmpint (run (none, &o4), ==, 2);
  g_assert_cmpint (run (unknown, &o5), ==, 2);
  g_assert_cmpint (run (bad_opt, &o6), ==, 2);
  g_unlink (config);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  sbx_require_wall ();
  home = ow_test_make_tmpdir ("ow-sbx-machine");
  config = g_build_filename (home, "config", "config.toml", NULL);
  g_setenv ("OPENWORKER_HOME", home, TRUE);
  g_setenv ("OPENWORKER_TOOL_RUNNER", sbx_runner_path (), TRUE);
  ow_sandbox_linux_register ();
  g_test_add_func ("/ow/sandbox/machine/status", test_status);
  g_test_add_func ("/ow/sandbox/machine/setup-and-remove", test_setup_and_remove);
  g_test_add_func ("/ow/sandbox/machine/setup-without-config", test_setup_without_config);
  g_test_add_func ("/ow/sandbox/machine/refusals", test_refusals);
  rc = g_test_run ();
  ow_remove_tree (home, NULL);
  g_free (home);
  g_free (config);
  return rc;
}
