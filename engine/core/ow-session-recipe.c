/* ow-session-recipe.c: one way to build every agent (see ow-session-recipe.h). */
#define G_LOG_DOMAIN "ow-recipe"

#include "core/ow-session-recipe.h"

/* The window assumed for the tool budget when the model's is not known. */
#define OW_RECIPE_DEFAULT_WINDOW 128000

#include "policy/ow-reviewer.h"
#include "tools/ow-builtin-tools.h"
#include "tools/ow-web-tools.h"

gboolean
ow_session_recipe_has_allow_list (OwSessionSandbox *sandbox)
{
  /* With the "open" profile commands reach any site, and no site card is
   * offered (nobody could widen a list that does not bind), so the web
   * tools do not pretend to follow one either. */
  return !g_str_equal (ow_session_sandbox_get_provider (sandbox), "direct")
         && g_str_equal (ow_session_sandbox_get_network (sandbox), "allowlist");
}

static OwToolRegistry *
build_tools (const OwSessionRecipe *recipe, const OwCoworker *coworker, gboolean listed, GError **error)
{
  OwContext *ctx = recipe->context;
  g_autoptr(OwWebAccess) access = NULL;
  g_autoptr(OwBuiltinTools) builtins = NULL;
  g_autoptr(OwToolRegistry) tools = NULL;
  OwBuiltinToolsOptions options = {
    .groups = coworker->tool_groups,
    .network = listed,
  };

  if (!recipe->no_web_tools)
    {
      /* The web tools run here, in the engine; with an allow list they
       * follow it (a site not on it asks first). */
      access = ow_web_access_new (ow_context_get_http (ctx), ow_session_sandbox_get_guard (recipe->sandbox),
                                  listed ? ow_session_sandbox_get_sites (recipe->sandbox) : NULL,
                                  ow_session_get_id (recipe->session));
      if (recipe->web_search_provider != NULL)
        ow_web_access_set_search_provider (access, recipe->web_search_provider);
      options.web = access;
    }
  builtins = ow_builtin_tools_new_for_session (&options, error);
  if (builtins == NULL)
    return NULL;
  tools = ow_tool_registry_new ();
  ow_tool_registry_add_provider (tools, OW_TOOL_PROVIDER (builtins));
  for (guint i = 0; recipe->tool_providers != NULL && recipe->tool_providers[i] != NULL; i++)
    ow_tool_registry_add_provider (tools, recipe->tool_providers[i]);
  /* Tools from other sources (MCP servers, connectors) are sent in full
   * while their definitions fit in 5% of the window (a token taken as
   * four bytes); past that they wait behind tool_search. */
  {
    gint64 window = recipe->settings != NULL && recipe->settings->context_size > 0 ? recipe->settings->context_size
                                                                                    : OW_RECIPE_DEFAULT_WINDOW;
    ow_tool_registry_set_definition_budget (tools, (gsize) (window * 4 / 20));
  }
  return g_steal_pointer (&tools);
}

static char *
build_instructions (const OwSessionRecipe *recipe, const OwCoworker *coworker)
{
  g_autofree char *base = ow_coworker_build_instructions (coworker, ow_session_get_workspace (recipe->session),
                                                          ow_session_get_roots (recipe->session));
  GString *s = g_string_new (base);

  for (guint i = 0; recipe->instruction_sections != NULL && recipe->instruction_sections[i] != NULL; i++)
    {
      const char *section = recipe->instruction_sections[i];

      if (*section == '\0')
        continue;
      g_string_append (s, "\n\n");
      g_string_append (s, section);
    }
  return g_string_free (s, FALSE);
}

OwAgent *
ow_session_recipe_build (const OwSessionRecipe *recipe, GError **error)
{
  OwContext *ctx;
  OwSession *session;
  const OwCoworker *coworker;
  g_autoptr(OwProvider) made = NULL;
  g_autofree char *made_bare = NULL;
  g_autoptr(OwToolRegistry) tools = NULL;
  g_autoptr(OwAgent) agent = NULL;
  g_autofree char *instructions = NULL;
  const OwModelSettings *settings = recipe->settings;
  OwProvider *provider = recipe->provider;
  const char *bare = recipe->bare_model;
  gboolean listed;

  g_return_val_if_fail (recipe != NULL && recipe->context != NULL && recipe->session != NULL, NULL);
  g_return_val_if_fail (recipe->sandbox != NULL && recipe->policy != NULL && recipe->attendant != NULL, NULL);

  ctx = recipe->context;
  session = recipe->session;
  coworker = recipe->coworker;
  if (coworker == NULL)
    coworker = ow_coworker_lookup (ow_session_get_coworker (session));
  if (coworker == NULL)
    coworker = ow_coworker_lookup ("cowork");
  if (provider == NULL)
    {
      made = ow_context_create_provider (ctx, ow_session_get_model (session), &made_bare, NULL, error);
      if (made == NULL)
        return NULL;
      provider = made;
      bare = made_bare;
    }

  listed = ow_session_recipe_has_allow_list (recipe->sandbox);
  tools = build_tools (recipe, coworker, listed, error);
  if (tools == NULL)
    return NULL;
  agent = ow_agent_new (session, provider, bare, tools, OW_EXECUTOR (recipe->sandbox), recipe->policy,
                        recipe->attendant, recipe->audit != NULL ? recipe->audit : ow_context_get_audit (ctx));
  {
    const OwPaths *p = ow_context_get_paths (ctx);
    const char *dirs[] = { p->config_dir, p->state_dir, p->runtime_dir, NULL };
    ow_agent_set_agent_dirs (agent, dirs);
  }
  if (listed)
    ow_agent_set_sites (agent, ow_session_sandbox_get_sites (recipe->sandbox),
                        ow_session_sandbox_get_guard (recipe->sandbox));
  instructions = build_instructions (recipe, coworker);
  ow_agent_set_instructions (agent, instructions);
  ow_agent_set_max_iterations (agent, recipe->max_iterations > 0 ? recipe->max_iterations : 150);
  if (settings != NULL)
    {
      if (settings->max_output_tokens > 0)
        ow_agent_set_max_output_tokens (agent, settings->max_output_tokens);
      ow_agent_set_reasoning_effort (agent, settings->reasoning_effort);
      ow_agent_set_sampling (agent, settings->temperature, settings->top_p, settings->context_size,
                             settings->thinking);
      ow_agent_set_compaction (agent, settings->context_size, settings->compaction_threshold_pct, 0);
    }
  if (recipe->max_output_tokens > 0)
    ow_agent_set_max_output_tokens (agent, recipe->max_output_tokens);
  if (recipe->reasoning_effort != NULL)
    ow_agent_set_reasoning_effort (agent, recipe->reasoning_effort);
  ow_agent_set_provider_order (agent, recipe->provider_order);
  if (!ow_agent_set_tool_result_limit (agent, recipe->result_max, recipe->spill_dir, error))
    return NULL;
  ow_agent_load_retry_delays (agent);
  return g_steal_pointer (&agent);
}

void
ow_session_recipe_add_reviewer (OwAgent          *agent,
                                const OwCoworker *coworker,
                                OwProvider       *provider,
                                const char       *bare_model)
{
  OwSession *session = ow_agent_get_session (agent);
  g_autoptr(OwReviewer) reviewer = NULL;

  g_return_if_fail (OW_IS_AGENT (agent));
  g_return_if_fail (OW_IS_PROVIDER (provider));

  if (coworker == NULL)
    coworker = ow_coworker_lookup (ow_session_get_coworker (session));
  if (coworker == NULL)
    coworker = ow_coworker_lookup ("cowork");
  reviewer = ow_reviewer_new (provider, bare_model, 0);
  ow_agent_set_reviewer (agent, reviewer, coworker->title, coworker->prompt, coworker->approval_guidance);
}
