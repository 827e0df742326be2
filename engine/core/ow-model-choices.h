/* ow-model-choices.h: the models a person can pick on this machine.
 *
 * The desktop's model pickers and its "no model yet" state show only
 * models that can run here: a provider counts as ready when its key is in
 * the environment or saved in the secret store, or — for keyless local
 * servers (Ollama, llama.cpp, vLLM) — when the settings name one of its
 * models (a local server is not assumed to run just because it could).
 * The choices are the default model, the models with saved per-model
 * settings and each ready provider's recommended model.
 */
#pragma once

#include "core/ow-context.h"

G_BEGIN_DECLS

typedef struct {
  char    *id;          /* full model id, "openai:gpt-4o" */
  char    *provider;    /* the catalog id, "openai" */
  char    *label;       /* "OpenAI · gpt-4o" */
  gboolean is_default;
} OwModelChoice;

void       ow_model_choice_free   (OwModelChoice *choice);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwModelChoice, ow_model_choice_free)

/* @stored: the provider ids with a key in the secret store (what
 * ow_secret_store_list() returns for OW_SECRET_KIND_PROVIDER), or NULL.
 * Returns the choices (OwModelChoice*), the default first, then in catalog
 * order; never NULL. Reads model_config.json (a small file) unless the
 * context is isolated. */
GPtrArray *ow_model_choices_list  (OwContext *ctx, const char *const *stored);

/* Whether @provider_id is ready in the sense above, leaving out the
 * "named in the settings" rule for keyless providers. */
gboolean   ow_model_provider_has_key (OwContext *ctx, const char *provider_id, const char *const *stored);

/* After a key for @provider_id was saved: when the machine has no default
 * model yet (neither config.toml's `model` nor one marked default in
 * model_config.json), marks that provider's recommended model the default
 * in model_config.json, which the CLI, the server and the desktop all read.
 * Returns the model made the default, or NULL when nothing changed (then
 * @error says why if it was a failure). Not for an isolated context. */
char      *ow_model_choices_adopt_default (OwContext *ctx, const char *provider_id, GError **error);

G_END_DECLS
