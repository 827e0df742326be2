/* test-session-recipe.c: every agent is built one way.
 *
 * Real parts: a context over a temporary home with a real config.toml, the
 * session sandbox as the machine's settings make it (built, not started),
 * the real built-in tools and a test provider. The model is never called:
 * what is checked is what the agent would offer and say.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "core/ow-context.h"
#include "core/ow-session-recipe.h"
#include "ow-json.h"
#include "ow-sandbox-linux.h"
#include "policy/ow-attendant.h"
#include "policy/ow-safety.h"
#include "providers/ow-provider-catalog.h"
#include "tool-provider-test-util.h"

typedef struct {
  char      *dir;
  char      *ws;
  OwContext *ctx;
} Fixture;

static void
fixture_setup (Fixture *f, const char *config)
{
  g_autoptr(OwPaths) paths = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *config_path = NULL;
  OwContextOptions options = { 0 };

  f->dir = g_dir_make_tmp ("ow-recipe-XXXXXX", NULL);
  f->ws = g_build_filename (f->dir, "ws", NULL);
  g_mkdir (f->ws, 0700);
  paths = ow_paths_new_under (f->dir);
  g_mkdir_with_parents (paths->config_dir, 0700);
  config_path = g_build_filename (paths->config_dir, "config.toml", NULL);
  g_assert_true (g_file_set_contents (config_path, config, -1, NULL));
  options.paths = paths;
  f->ctx = ow_context_new (&options, &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture *f)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", f->dir);

  g_clear_object (&f->ctx);
  g_assert_cmpint (system (cmd), ==, 0);
  g_free (f->dir);
  g_free (f->ws);
}

typedef struct {
  gboolean           no_web_tools;
  OwToolProvider    *extra;
  const char *const *sections;
} Inputs;

/* Builds the agent for a fresh session under @f's settings. */
static OwAgent *
build (Fixture *f, const Inputs *in)
{
  g_autoptr(GError) error = NULL;
  const char *envp[] = { "OPENAI_API_KEY=sk-test-recipe-0123456789", NULL };
  OwProviderOverrides overrides = { .base_url = "http://127.0.0.1:9/v1" };
  g_autoptr(OwProvider) provider = ow_provider_catalog_create (ow_provider_catalog_lookup ("openai"), &overrides, envp,
                                                               ow_context_get_http (f->ctx), &error);
  OwSessionSpec spec = { .workspace = f->ws, .model = "openai:gpt-4o", .mode = "ask" };
  g_autoptr(OwSession) session = NULL;
  g_autoptr(OwSessionSandbox) sandbox = NULL;
  g_autoptr(OwPolicy) policy = ow_policy_new (NULL, NULL, NULL);
  g_autoptr(OwAttendant) attendant = ow_rule_attendant_new (FALSE);
  g_autofree char *spill = g_build_filename (f->dir, "spill", NULL);
  OwToolProvider *extra[] = { in->extra, NULL };
  OwAgent *agent;

  g_assert_no_error (error);
  session = ow_session_new (ow_context_get_store (f->ctx), &spec, &error);
  g_assert_no_error (error);
  {
    OwSessionSandboxOptions so = {
      .config = ow_context_get_config (f->ctx),
      .paths = ow_context_get_paths (f->ctx),
      .session_id = ow_session_get_id (session),
      .roots = ow_session_get_roots (session),
      .cwd = f->ws,
    };
    sandbox = ow_session_sandbox_new (&so, &error);
    g_assert_no_error (error);
  }
  {
    OwSessionRecipe recipe = {
      .context = f->ctx,
      .session = session,
      .provider = provider,
      .bare_model = "gpt-4o",
      .sandbox = sandbox,
      .policy = policy,
      .attendant = attendant,
      .no_web_tools = in->no_web_tools,
      .tool_providers = in->extra != NULL ? extra : NULL,
      .instruction_sections = in->sections,
      .result_max = 10000,
      .spill_dir = spill,
    };
    agent = ow_session_recipe_build (&recipe, &error);
  }
  g_assert_no_error (error);
  g_assert_nonnull (agent);
  return agent;
}

static gboolean
offers (OwAgent *agent, const char *name)
{
  return ow_tool_registry_lookup (ow_agent_get_tools (agent), name) != NULL;
}

/* The coworker's tools, the web tools, other providers' tools and further
 * instruction sections all come from the recipe. */
static void
test_direct (void)
{
  Fixture f = { 0 };
  g_autoptr(OwTestTools) mcp = ow_test_tools_new ("mcp:notes");
  const char *sections[] = { "## Memory\nThe person prefers metric units.", NULL };
  Inputs in = { .extra = OW_TOOL_PROVIDER (mcp), .sections = sections };
  Inputs bare = { .no_web_tools = TRUE };
  g_autoptr(OwAgent) agent = NULL;
  g_autoptr(OwAgent) without_web = NULL;

  fixture_setup (&f, "");
  ow_test_tools_add (mcp, "read_note");
  agent = build (&f, &in);
  g_assert_true (offers (agent, "run_shell"));
  g_assert_true (offers (agent, "ask_user"));
  g_assert_true (offers (agent, "web_fetch"));
  g_assert_true (offers (agent, "web_search"));
  g_assert_true (offers (agent, "read_note"));
  /* No sandbox, no allow list: nothing to ask a site for. */
  g_assert_false (offers (agent, "request_network_access"));
  /* The coworker's instructions first, then the further section. */
  {
    const char *text = ow_agent_get_instructions (agent);
    const char *section = strstr (text, "## Memory\nThe person prefers metric units.");

    g_assert_nonnull (section);
    g_assert_true (section > text);
    g_assert_cmpstr (section + strlen (sections[0]), ==, "");
    g_assert_nonnull (strstr (text, f.ws));
  }

  without_web = build (&f, &bare);
  g_assert_false (offers (without_web, "web_fetch"));
  g_assert_false (offers (without_web, "web_search"));
  g_assert_false (offers (without_web, "read_note"));
  g_assert_true (offers (without_web, "run_shell"));
  g_assert_null (strstr (ow_agent_get_instructions (without_web), "## Memory"));

  g_clear_object (&agent);
  g_clear_object (&without_web);
  fixture_teardown (&f);
}

/* The one behaviour for every surface: the network tool (and the web
 * tools' allow list) only with a sandbox whose network profile is the
 * allow list; "open" has no list to widen. */
static void
test_allow_list (void)
{
  struct {
    const char *config;
    gboolean    listed;
  } cases[] = {
    { "sandbox_provider = \"linux\"\nsandbox_network_profile = \"allowlist\"\n", TRUE },
    { "sandbox_provider = \"linux\"\nsandbox_network_profile = \"open\"\n", FALSE },
    { "sandbox_provider = \"direct\"\n", FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Fixture f = { 0 };
      Inputs in = { 0 };
      g_autoptr(OwAgent) agent = NULL;

      fixture_setup (&f, cases[i].config);
      agent = build (&f, &in);
      g_assert_cmpint (offers (agent, "request_network_access"), ==, cases[i].listed);
      /* The web tools are there either way. */
      g_assert_true (offers (agent, "web_fetch"));
      g_clear_object (&agent);
      fixture_teardown (&f);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  ow_sandbox_linux_register ();
  g_test_add_func ("/ow/core/recipe/direct", test_direct);
  g_test_add_func ("/ow/core/recipe/allow-list", test_allow_list);
  return g_test_run ();
}
