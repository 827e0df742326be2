/* ow-machine-sandbox.c: `openworker machine sandbox status|setup|remove`.
 *
 * status  asks the backend what this machine has and lacks (human lines,
 *         or --json) and shows what config.toml chooses now;
 * setup   checks the prerequisites, opens a throwaway sandbox on an empty
 *         folder and proves the wall from inside (the same proof every
 *         session gets), runs one command in it, and only then writes
 *         sandbox_provider = "<provider>" into the machine's config.toml;
 * remove  writes sandbox_provider = "direct" back.
 *
 * config.toml is read and written with the engine's own TOML reader and
 * writer, so every other setting is kept (comments are not: the writer
 * produces the file from its values, and the command says so).
 */
#define G_LOG_DOMAIN "ow-machine-sandbox"

#include "sandbox/ow-machine-sandbox.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "sandbox/ow-sandbox.h"
#include "store/ow-paths.h"
#include "store/ow-toml.h"
#include "tools/ow-executor.h"

#if defined(__APPLE__)
#define DEFAULT_PROVIDER "seatbelt"
#elif defined(_WIN32)
#define DEFAULT_PROVIDER "windows"
#else
#define DEFAULT_PROVIDER "linux"
#endif

static void
print_usage (FILE *out)
{
  fputs ("Usage: openworker machine sandbox COMMAND [OPTIONS]\n"
         "\n"
         "Commands:\n"
         "  status [--json] [--provider NAME]   What this machine offers for the sandbox and what is missing\n"
         "  setup [--provider NAME]             Prove the sandbox works here, then turn it on in config.toml\n"
         "  remove                              Turn the sandbox off (sandbox_provider = \"direct\")\n"
         "\n"
         "The provider defaults to the one config.toml names, else \"" DEFAULT_PROVIDER "\".\n"
         "Nothing is installed system-wide and nothing needs root.\n", out);
}

/* ---- config.toml ---------------------------------------------------------- */

static char *
config_path (void)
{
  g_autoptr(OwPaths) paths = ow_paths_new_default ();

  return g_build_filename (paths->config_dir, "config.toml", NULL);
}

/* The machine's config as a tree (an empty table when there is no file). */
static JsonNode *
read_config (const char *path, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;
  JsonNode *root;

  if (!g_file_get_contents (path, &text, &len, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          root = json_node_new (JSON_NODE_OBJECT);
          json_node_take_object (root, json_object_new ());
          return root;
        }
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_UNREADABLE, "Cannot read %s: %s", path, local->message);
      return NULL;
    }
  root = ow_toml_parse (text, (gssize) len, &local);
  if (root == NULL)
    {
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                   "%s: %s. Fix the file first; nothing was changed.", path, local->message);
      return NULL;
    }
  return root;
}

static const char *
configured_provider (JsonNode *root)
{
  const char *v = ow_json_get_string (json_node_get_object (root), "sandbox_provider");

  return v != NULL ? v : "direct";
}

/* Sets sandbox_provider and writes the file back, keeping its mode. */
static gboolean
write_provider (const char *path, JsonNode *root, const char *provider, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *text = NULL;
  GStatBuf st;
  int mode = 0600;

  json_object_set_string_member (json_node_get_object (root), "sandbox_provider", provider);
  text = ow_toml_write (json_node_get_object (root), error);
  if (text == NULL)
    return FALSE;
  if (g_stat (path, &st) == 0)
    mode = st.st_mode & 0777;
  if (!ow_paths_ensure_dir (dir, error))
    return FALSE;
  return ow_write_file_atomic (path, text, -1, mode, error);
}

/* ---- status ---------------------------------------------------------------- */

static OwSandboxBackend *
backend_or_complain (const char *provider)
{
  g_autoptr(GError) error = NULL;
  OwSandboxBackend *backend = ow_sandbox_backend_for (provider, &error);

  if (backend == NULL)
    fprintf (stderr, "openworker: %s\n", error->message);
  return backend;
}

static void
print_status_lines (JsonObject *status, const char *provider, const char *configured, const char *path)
{
  JsonArray *checks = ow_json_get_array (status, "checks");
  JsonArray *missing = ow_json_get_array (status, "missing");
  gboolean ready = ow_json_get_bool (status, "ready", FALSE);

  printf ("The %s sandbox on this machine: %s\n", provider, ready ? "ready" : "not ready");
  printf ("  configured: sandbox_provider = \"%s\" (%s)\n", configured, path);
  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);

      printf ("  [%s] %s: %s\n", ow_json_get_bool (c, "ok", FALSE) ? "ok" : "missing",
              ow_json_get_string (c, "name"), ow_json_get_string (c, "detail"));
    }
  if (!ready && missing != NULL && json_array_get_length (missing) > 0)
    {
      printf ("What is missing:\n");
      for (guint i = 0; i < json_array_get_length (missing); i++)
        printf ("  - %s\n", json_array_get_string_element (missing, i));
    }
  else if (ready && !g_str_equal (configured, provider))
    printf ("Turn it on with `openworker machine sandbox setup`.\n");
  else if (ready)
    printf ("Sessions on this machine run their shell and file tools behind it.\n");
}

static int
cmd_status (const char *provider_opt, gboolean as_json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = config_path ();
  g_autoptr(JsonNode) config = read_config (path, &error);
  g_autoptr(OwSandboxBackend) backend = NULL;
  g_autoptr(JsonObject) status = NULL;
  const char *configured, *provider;

  if (config == NULL)
    {
      fprintf (stderr, "openworker: %s\n", error->message);
      return 1;
    }
  configured = configured_provider (config);
  provider = provider_opt != NULL ? provider_opt : !g_str_equal (configured, "direct") ? configured : DEFAULT_PROVIDER;
  backend = backend_or_complain (provider);
  if (backend == NULL)
    return 1;
  status = ow_sandbox_backend_status (backend);
  if (as_json)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autofree char *text = NULL;

      json_object_set_string_member (status, "configured", configured);
      json_object_set_string_member (status, "config_file", path);
      json_object_set_string_member (status, "provider", provider);
      json_node_set_object (node, status);
      json_generator_set_root (gen, node);
      json_generator_set_pretty (gen, TRUE);
      text = json_generator_to_data (gen, NULL);
      printf ("%s\n", text);
    }
  else
    print_status_lines (status, provider, configured, path);
  return ow_json_get_bool (status, "ready", FALSE) ? 0 : 1;
}

/* ---- setup ------------------------------------------------------------------ */

/* A throwaway sandbox's start and one command in it. */
typedef struct {
  GMainLoop    *loop;      /* runs until each step is done (borrowed) */
  OwExecutor   *executor;  /* the started sandbox (owned) */
  OwToolResult *result;    /* the command's result (owned) */
  GError       *error;     /* why it failed (owned) */
} Proof;

static void
on_proof_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Proof *p = user_data;

  p->executor = ow_sandbox_backend_start_finish (OW_SANDBOX_BACKEND (source), result, &p->error);
  g_main_loop_quit (p->loop);
}

static void
on_proof_ran_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Proof *p = user_data;

  p->result = ow_executor_execute_finish (OW_EXECUTOR (source), result, &p->error);
  g_main_loop_quit (p->loop);
}

static void
rm_rf (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        rm_rf (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* Opens a sandbox on an empty folder, proves it and runs `true` in it. */
static gboolean
prove_backend (OwSandboxBackend *backend, char **enforcement, GError **error)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_autofree char *tmp = g_dir_make_tmp ("openworker-sandbox-setup-XXXXXX", error);
  g_autofree char *work = NULL, *scratch = NULL;
  OwSandboxSpec spec = { 0 };
  Proof p = { .loop = loop };
  gboolean ok = FALSE;

  if (tmp == NULL)
    return FALSE;
  work = g_build_filename (tmp, "work", NULL);
  scratch = g_build_filename (tmp, "scratch", NULL);
  g_mkdir (work, 0700);
  g_ptr_array_add (roots, ow_root_new (work, TRUE, "workspace"));
  spec.session_id = "machine-sandbox-setup";
  spec.roots = roots;
  spec.scratch_dir = scratch;

  ow_sandbox_backend_start_async (backend, &spec, NULL, on_proof_started_cb, &p);
  g_main_loop_run (loop);
  if (p.executor != NULL)
    {
      ow_executor_execute_async (p.executor, "run_shell", "{\"command\":\"true\"}", NULL, on_proof_ran_cb, &p);
      g_main_loop_run (loop);
      if (p.result != NULL && p.result->status == OW_TOOL_STATUS_OK)
        {
          *enforcement = g_strdup (ow_executor_get_enforcement (p.executor));
          ok = TRUE;
        }
      else if (p.error == NULL)
        p.error = g_error_new (OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                               "The sandbox started, but a command in it failed: %s",
                               p.result != NULL ? p.result->text : "no result");
    }
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&p.error));
  g_clear_error (&p.error);
  g_clear_pointer (&p.result, ow_tool_result_free);
  g_clear_object (&p.executor);
  rm_rf (tmp);
  return ok;
}

static int
cmd_setup (const char *provider_opt)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = config_path ();
  g_autoptr(JsonNode) config = read_config (path, &error);
  g_autoptr(OwSandboxBackend) backend = NULL;
  g_autoptr(JsonObject) status = NULL;
  g_autofree char *enforcement = NULL, *before = NULL;
  const char *provider;

  if (config == NULL)
    {
      fprintf (stderr, "openworker: %s\n", error->message);
      return 1;
    }
  before = g_strdup (configured_provider (config));
  provider = provider_opt != NULL ? provider_opt : !g_str_equal (before, "direct") ? before : DEFAULT_PROVIDER;
  backend = backend_or_complain (provider);
  if (backend == NULL)
    return 1;

  status = ow_sandbox_backend_status (backend);
  if (!ow_json_get_bool (status, "ready", FALSE))
    {
      print_status_lines (status, provider, before, path);
      fprintf (stderr, "openworker: the %s sandbox cannot be set up on this machine yet; config.toml was not "
               "changed.\n", provider);
      return 1;
    }
  printf ("Proving the %s sandbox on a throwaway folder…\n", provider);
  if (!prove_backend (backend, &enforcement, &error))
    {
      fprintf (stderr, "openworker: %s\nconfig.toml was not changed.\n", error->message);
      return 1;
    }
  printf ("The wall holds (%s).\n", enforcement);
  if (g_str_equal (before, provider))
    {
      printf ("%s already has sandbox_provider = \"%s\"; nothing changed.\n", path, provider);
      return 0;
    }
  if (!write_provider (path, config, provider, &error))
    {
      fprintf (stderr, "openworker: %s\n", error->message);
      return 1;
    }
  printf ("Changed %s: sandbox_provider = \"%s\" (was \"%s\"). Other settings are kept; comments in the file "
          "are not.\nNew sessions on this machine run their shell and file tools behind the sandbox.\n",
          path, provider, before);
  return 0;
}

static int
cmd_remove (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = config_path ();
  g_autoptr(JsonNode) config = read_config (path, &error);
  g_autofree char *before = NULL;

  if (config == NULL)
    {
      fprintf (stderr, "openworker: %s\n", error->message);
      return 1;
    }
  before = g_strdup (configured_provider (config));
  if (g_str_equal (before, "direct"))
    {
      printf ("%s already runs tools directly (sandbox_provider = \"direct\"); nothing changed.\n", path);
      return 0;
    }
  if (!write_provider (path, config, "direct", &error))
    {
      fprintf (stderr, "openworker: %s\n", error->message);
      return 1;
    }
  printf ("Changed %s: sandbox_provider = \"direct\" (was \"%s\"). New sessions run their tools in "
          "OpenWorker's own process. Nothing was installed, so nothing else is removed.\n", path, before);
  return 0;
}

int
ow_machine_sandbox_main (int argc, char **argv)
{
  const char *command, *provider = NULL;
  gboolean as_json = FALSE;

  if (argc < 2)
    {
      print_usage (stderr);
      return 2;
    }
  command = argv[1];
  if (g_str_equal (command, "help") || g_str_equal (command, "--help") || g_str_equal (command, "-h"))
    {
      print_usage (stdout);
      return 0;
    }
  for (int i = 2; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--json") && g_str_equal (command, "status"))
        as_json = TRUE;
      else if (g_str_equal (argv[i], "--provider") && i + 1 < argc && !g_str_equal (command, "remove"))
        provider = argv[++i];
      else if (g_str_has_prefix (argv[i], "--provider=") && !g_str_equal (command, "remove"))
        provider = argv[i] + strlen ("--provider=");
      else
        {
          fprintf (stderr, "openworker: unknown option \"%s\" for machine sandbox %s.\n\n", argv[i], command);
          print_usage (stderr);
          return 2;
        }
    }
  if (g_str_equal (command, "status"))
    return cmd_status (provider, as_json);
  if (g_str_equal (command, "setup"))
    return cmd_setup (provider);
  if (g_str_equal (command, "remove"))
    return cmd_remove ();
  fprintf (stderr, "openworker: unknown command \"machine sandbox %s\".\n\n", command);
  print_usage (stderr);
  return 2;
}
