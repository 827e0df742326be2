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
#include "ow-files.h"
#include "ow-json.h"
#include "sandbox/ow-sandbox.h"
#include "store/ow-config.h"
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

gboolean
ow_machine_sandbox_set_provider (const char *config_path, const char *provider, GError **error)
{
  g_autoptr(JsonNode) value = json_node_init_string (json_node_alloc (), provider);

  g_return_val_if_fail (config_path != NULL && provider != NULL, FALSE);
  return ow_config_file_set (config_path, "sandbox_provider", value, error);
}

const char *
ow_machine_sandbox_default_provider (void)
{
  return DEFAULT_PROVIDER;
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

  JsonObject *guard = ow_json_get_object (status, "guard");

  if (guard != NULL && ow_json_get_bool (guard, "ready", FALSE))
    printf ("The command guard: ready (%s); in direct mode every command runs inside it.\n",
            ow_json_get_string (guard, "detail"));
  else if (guard != NULL)
    printf ("The command guard: unavailable (%s); in direct mode only the safety checks' parser stands between "
            "a command and your files.\n", ow_json_get_string (guard, "detail"));
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

JsonObject *
ow_machine_sandbox_status (const char *config_path, const char *provider, GError **error)
{
  g_autoptr(JsonNode) config = read_config (config_path, error);
  g_autoptr(OwSandboxBackend) backend = NULL;
  JsonObject *status;
  const char *configured;

  if (config == NULL)
    return NULL;
  configured = configured_provider (config);
  if (provider == NULL)
    provider = !g_str_equal (configured, "direct") ? configured : DEFAULT_PROVIDER;
  backend = ow_sandbox_backend_for (provider, error);
  if (backend == NULL)
    return NULL;
  status = ow_sandbox_backend_status (backend);
  {
    /* The guard every direct-mode command runs in (ARCHITECTURE §9). */
    g_autofree char *detail = NULL;
    JsonObject *guard = json_object_new ();
    gboolean ok = ow_executor_guard_status (&detail);

    json_object_set_boolean_member (guard, "ready", ok);
    json_object_set_string_member (guard, "detail", detail);
    json_object_set_object_member (status, "guard", guard);
  }
  json_object_set_string_member (status, "configured", configured);
  json_object_set_string_member (status, "config_file", config_path);
  json_object_set_string_member (status, "provider", provider);
  return status;
}

typedef struct {
  char *config_path;
  char *provider;
} StatusArgs;

static void
status_args_free (StatusArgs *a)
{
  g_free (a->config_path);
  g_free (a->provider);
  g_free (a);
}

static void
status_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  StatusArgs *a = task_data;
  GError *error = NULL;
  JsonObject *status = ow_machine_sandbox_status (a->config_path, a->provider, &error);

  if (status == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, status, (GDestroyNotify) json_object_unref);
}

void
ow_machine_sandbox_status_async (const char          *config_path,
                                 const char          *provider,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  StatusArgs *a = g_new0 (StatusArgs, 1);

  a->config_path = g_strdup (config_path);
  a->provider = g_strdup (provider);
  g_task_set_source_tag (task, ow_machine_sandbox_status_async);
  g_task_set_task_data (task, a, (GDestroyNotify) status_args_free);
  g_task_run_in_thread (task, status_in_thread);
}

JsonObject *
ow_machine_sandbox_status_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static int
cmd_status (const char *provider_opt, gboolean as_json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = config_path ();
  g_autoptr(JsonObject) status = ow_machine_sandbox_status (path, provider_opt, &error);

  if (status == NULL)
    {
      fprintf (stderr, "openworker: %s\n", error->message);
      return 1;
    }
  if (as_json)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autofree char *text = NULL;

      json_node_set_object (node, status);
      json_generator_set_root (gen, node);
      json_generator_set_pretty (gen, TRUE);
      text = json_generator_to_data (gen, NULL);
      printf ("%s\n", text);
    }
  else
    print_status_lines (status, ow_json_get_string (status, "provider"), ow_json_get_string (status, "configured"),
                        path);
  return ow_json_get_bool (status, "ready", FALSE) ? 0 : 1;
}

/* ---- setup ------------------------------------------------------------------ */

/* A throwaway sandbox's start and one command in it. */
typedef struct {
  char       *tmp;       /* the throwaway folder (owned) */
  GPtrArray  *roots;     /* its one root (owned) */
  OwExecutor *executor;  /* the started sandbox (owned) */
} Proof;

static void
proof_free (Proof *p)
{
  if (p->executor != NULL)
    g_object_unref (p->executor);
  if (p->tmp != NULL)
    ow_remove_tree (p->tmp, NULL);
  g_free (p->tmp);
  g_clear_pointer (&p->roots, g_ptr_array_unref);
  g_free (p);
}

static void
on_proof_ran_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Proof *p = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(OwToolResult) ran = ow_executor_execute_finish (OW_EXECUTOR (source), result, &error);

  if (ran != NULL && ran->status == OW_TOOL_STATUS_OK)
    g_task_return_pointer (task, g_strdup (ow_executor_get_enforcement (p->executor)), g_free);
  else if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_new_error (task, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_WALL_NOT_PROVED,
                             "The sandbox started, but a command in it failed: %s",
                             ran != NULL ? ran->text : "no result");
}

static void
on_proof_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  Proof *p = g_task_get_task_data (task);
  GCancellable *cancellable;
  GError *error = NULL;

  p->executor = ow_sandbox_backend_start_finish (OW_SANDBOX_BACKEND (source), result, &error);
  if (p->executor == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  cancellable = g_task_get_cancellable (task);
  ow_executor_execute_async (p->executor, "run_shell", "{\"command\":\"true\"}", cancellable, on_proof_ran_cb,
                             g_steal_pointer (&task));
}

void
ow_machine_sandbox_prove_async (OwSandboxBackend    *backend,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (backend, cancellable, callback, user_data);
  g_autofree char *work = NULL, *scratch = NULL;
  GError *error = NULL;
  OwSandboxSpec spec = { 0 };
  Proof *p = g_new0 (Proof, 1);

  g_task_set_source_tag (task, ow_machine_sandbox_prove_async);
  g_task_set_task_data (task, p, (GDestroyNotify) proof_free);
  p->tmp = g_dir_make_tmp ("openworker-sandbox-setup-XXXXXX", &error);
  if (p->tmp == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  work = g_build_filename (p->tmp, "work", NULL);
  scratch = g_build_filename (p->tmp, "scratch", NULL);
  g_mkdir (work, 0700);
  p->roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  g_ptr_array_add (p->roots, ow_root_new (work, TRUE, "workspace"));
  spec.session_id = "machine-sandbox-setup";
  spec.roots = p->roots;
  spec.scratch_dir = scratch;
  ow_sandbox_backend_start_async (backend, &spec, cancellable, on_proof_started_cb, g_steal_pointer (&task));
}

char *
ow_machine_sandbox_prove_finish (OwSandboxBackend *backend, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, backend), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

typedef struct {
  GMainLoop *loop;         /* borrowed */
  char      *enforcement; /* owned */
  GError    *error;       /* owned */
} ProofWait;

static void
on_proved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ProofWait *w = user_data;

  w->enforcement = ow_machine_sandbox_prove_finish (OW_SANDBOX_BACKEND (source), result, &w->error);
  g_main_loop_quit (w->loop);
}

/* The command line waits for the proof on a loop of its own. */
static gboolean
prove_backend (OwSandboxBackend *backend, char **enforcement, GError **error)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  ProofWait w = { .loop = loop };

  ow_machine_sandbox_prove_async (backend, NULL, on_proved_cb, &w);
  g_main_loop_run (loop);
  if (w.enforcement == NULL)
    {
      g_propagate_error (error, w.error);
      return FALSE;
    }
  *enforcement = w.enforcement;
  return TRUE;
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
  if (!ow_machine_sandbox_set_provider (path, provider, &error))
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
  if (!ow_machine_sandbox_set_provider (path, "direct", &error))
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
