/* ow-session-recipe.h: one way to build every agent.
 *
 * `openworker run`, the loopback server and the desktop all turn a session
 * into a working agent the same way, here: the coworker's built-in tools
 * (with the web tools, and the network tool when the sandbox has an allow
 * list) and any other tool providers in one registry; the instructions
 * (the coworker's prompt, the environment, AGENTS.md, the folders, then
 * any further sections); the sandbox's allow list for site cards; the
 * model's settings; the bound on tool results. What differs between the
 * surfaces (where the spill folder is, which attendant answers, whether
 * a flag overrides a setting) is an input, not a copy of the assembly.
 *
 * Later inputs (skills, memory, a team board) arrive as tool providers and
 * instruction sections; the turn loop does not change for them.
 */
#pragma once

#include "core/ow-agent.h"
#include "core/ow-context.h"
#include "core/ow-coworker.h"
#include "sandbox/ow-session-sandbox.h"
#include "store/ow-model-config.h"
#include "tools/ow-tool-provider.h"

G_BEGIN_DECLS

/* Everything borrowed for the call. */
typedef struct {
  OwContext              *context;
  OwSession              *session;               /* its model, folders and approval mode */
  const OwCoworker       *coworker;              /* NULL: the session's coworker, else cowork */
  OwProvider             *provider;              /* the model's provider, or NULL: made from the session's model */
  const char             *bare_model;            /* the model as the wire wants it, with @provider */
  OwSessionSandbox       *sandbox;               /* where the tools run; its allow list governs sites */
  OwPolicy               *policy;
  OwAttendant            *attendant;             /* how this session reaches a person (its attendance) */
  OwAuditLog             *audit;                 /* NULL: the context's */
  gboolean                no_web_tools;          /* leave web_search and web_fetch out */
  const char             *web_search_provider;   /* NULL: the first keyed service, else duckduckgo */
  OwToolProvider *const  *tool_providers;        /* providers beside the built-ins, NULL-terminated, or NULL */
  const char *const      *instruction_sections;  /* appended to the coworker's instructions, or NULL */
  guint                   max_iterations;        /* 0: the default (150) */
  const OwModelSettings  *settings;              /* the model's saved settings, or NULL */
  gint64                  max_output_tokens;     /* > 0: instead of the saved setting */
  const char             *reasoning_effort;      /* not NULL: instead of the saved setting */
  const char             *provider_order;        /* OpenRouter's provider order, or NULL */
  gsize                   result_max;            /* tool results past this many bytes are spilled (0: never) */
  const char             *spill_dir;             /* where they are spilled */
} OwSessionRecipe;

/* The agent for @recipe's session, or NULL with an error (no model key,
 * an unknown tool group, a spill folder that cannot be made). */
OwAgent  *ow_session_recipe_build        (const OwSessionRecipe *recipe,
                                          GError               **error);

/* Gives @agent its reviewer for auto-approve, judging with @provider
 * (made for config reviewer_model, else the session's model; its key is
 * read by the caller, off the main loop where it can be) and @coworker's
 * role and approval guidance (NULL: the session's coworker). */
void      ow_session_recipe_add_reviewer (OwAgent          *agent,
                                          const OwCoworker *coworker,
                                          OwProvider       *provider,
                                          const char       *bare_model);

/* Whether web tools and site cards follow @sandbox's allow list: only a
 * sandbox with one (not direct, network profile "allowlist") has one. */
gboolean  ow_session_recipe_has_allow_list (OwSessionSandbox *sandbox);

G_END_DECLS
