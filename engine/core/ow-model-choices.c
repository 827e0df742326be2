/* ow-model-choices.c: the models a person can pick (see ow-model-choices.h). */
#define G_LOG_DOMAIN "ow-model-choices"

#include "core/ow-model-choices.h"

#include "ow-json.h"
#include "store/ow-model-config.h"

void
ow_model_choice_free (OwModelChoice *choice)
{
  if (choice == NULL)
    return;
  g_free (choice->id);
  g_free (choice->provider);
  g_free (choice->label);
  g_free (choice);
}

gboolean
ow_model_provider_has_key (OwContext *ctx, const char *provider_id, const char *const *stored)
{
  const OwProviderEntry *entry = ow_provider_catalog_lookup (provider_id);

  if (entry == NULL || !entry->needs_key)
    return FALSE;
  if (ow_context_provider_key_env (ctx, entry) != NULL)
    return TRUE;
  return stored != NULL && !ow_context_is_isolated (ctx) && g_strv_contains (stored, entry->id);
}

/* Adds @model_id when its provider is ready; @named says the settings
 * name it (which is what makes a keyless provider count). */
static void
consider (GPtrArray *out, GHashTable *seen, OwContext *ctx, const char *model_id, gboolean named,
          gboolean is_default, const char *const *stored)
{
  const OwProviderEntry *entry = NULL;
  g_autofree char *bare = NULL;
  OwModelChoice *choice;

  if (model_id == NULL || *model_id == '\0' || g_hash_table_contains (seen, model_id))
    return;
  if (!ow_model_id_split (model_id, &entry, &bare, NULL) || entry == NULL)
    return;
  if (entry->needs_key ? !ow_model_provider_has_key (ctx, entry->id, stored) : !named)
    return;
  choice = g_new0 (OwModelChoice, 1);
  choice->id = g_strdup (model_id);
  choice->provider = g_strdup (entry->id);
  choice->label = g_strdup_printf ("%s · %s", entry->title, bare);
  choice->is_default = is_default;
  g_hash_table_add (seen, g_strdup (model_id));
  g_ptr_array_add (out, choice);
}

GPtrArray *
ow_model_choices_list (OwContext *ctx, const char *const *stored)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_model_choice_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(OwModelConfig) config = NULL;
  const GPtrArray *catalog = ow_provider_catalog_get ();
  const char *def = ow_context_default_model (ctx);

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), out);

  if (!ow_context_is_isolated (ctx))
    {
      g_autofree char *path = g_build_filename (ow_context_get_paths (ctx)->config_dir, "model_config.json", NULL);
      config = ow_model_config_load (path, NULL);
    }
  if (def == NULL && config != NULL)
    def = ow_model_config_default_model (config);
  consider (out, seen, ctx, def, TRUE, TRUE, stored);

  if (config != NULL)
    {
      JsonObject *root = ow_model_config_get_root (config);
      g_autoptr(GList) ids = root != NULL ? json_object_get_members (root) : NULL;

      ids = g_list_sort (ids, (GCompareFunc) g_strcmp0);
      for (GList *l = ids; l != NULL; l = l->next)
        consider (out, seen, ctx, l->data, TRUE, FALSE, stored);
    }
  for (guint i = 0; i < catalog->len; i++)
    {
      const OwProviderEntry *e = g_ptr_array_index (catalog, i);
      g_autofree char *id = NULL;

      if (e->recommended_model == NULL)
        continue;
      id = g_strdup_printf ("%s:%s", e->id, e->recommended_model);
      consider (out, seen, ctx, id, FALSE, FALSE, stored);
    }
  return out;
}

char *
ow_model_choices_adopt_default (OwContext *ctx, const char *provider_id, GError **error)
{
  const OwProviderEntry *entry = ow_provider_catalog_lookup (provider_id);
  g_autoptr(OwModelConfig) config = NULL;
  g_autoptr(JsonObject) values = NULL;
  g_autofree char *path = NULL;
  g_autofree char *id = NULL;

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  if (entry == NULL || entry->recommended_model == NULL || ow_context_is_isolated (ctx))
    return NULL;
  /* OPENWORKER_MODEL is this launch's choice, not the machine's: it does
   * not stop the first key from setting the machine's default. */
  if (ow_config_get_string (ow_context_get_config (ctx), "model") != NULL)
    return NULL;
  path = g_build_filename (ow_context_get_paths (ctx)->config_dir, "model_config.json", NULL);
  config = ow_model_config_load (path, error);
  if (config == NULL || ow_model_config_default_model (config) != NULL)
    return NULL;
  id = g_strdup_printf ("%s:%s", entry->id, entry->recommended_model);
  values = json_object_new ();
  json_object_set_boolean_member (values, "default", TRUE);
  if (!ow_model_config_set (config, id, values, error))
    return NULL;
  return g_steal_pointer (&id);
}
