/* ow-model-config.c: model_config.json (see ow-model-config.h). */
#define G_LOG_DOMAIN "ow-model-config"

#include "store/ow-model-config.h"

#include "ow-error.h"
#include "ow-json.h"
#include "store/ow-paths.h"

#include <string.h>

struct _OwModelConfig
{
  char       *path;   /* where it is saved; NULL for an empty, unsaved config */
  JsonObject *root;   /* model id → settings object */
};

static const char *const efforts[] = { "none", "minimal", "low", "medium", "high", "xhigh", "max", NULL };

void
ow_model_settings_init (OwModelSettings *s)
{
  memset (s, 0, sizeof *s);
  s->thinking = -1;
  s->temperature = -1;
  s->top_p = -1;
  s->compaction_threshold_pct = -1;
}

void
ow_model_settings_clear (OwModelSettings *s)
{
  g_clear_pointer (&s->reasoning_effort, g_free);
}

static gboolean
is_number (JsonNode *n)
{
  return JSON_NODE_HOLDS_VALUE (n)
         && (json_node_get_value_type (n) == G_TYPE_INT64 || json_node_get_value_type (n) == G_TYPE_DOUBLE);
}

static gboolean
check_value (const char *where, const char *key, JsonNode *v, GError **error)
{
  const char *problem = NULL;

  if (JSON_NODE_HOLDS_NULL (v))
    return TRUE;
  if (g_str_equal (key, "context_size") || g_str_equal (key, "max_output_tokens"))
    {
      if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_INT64 || json_node_get_int (v) < 1)
        problem = "a whole number of tokens, at least 1";
    }
  else if (g_str_equal (key, "thinking") || g_str_equal (key, "default"))
    {
      if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_BOOLEAN)
        problem = "true or false";
    }
  else if (g_str_equal (key, "reasoning_effort"))
    {
      if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_STRING
          || !g_strv_contains (efforts, json_node_get_string (v)))
        problem = "one of none, minimal, low, medium, high, xhigh, max";
    }
  else if (g_str_equal (key, "temperature"))
    {
      if (!is_number (v) || json_node_get_double (v) < 0 || json_node_get_double (v) > 2)
        problem = "a number from 0 to 2";
    }
  else if (g_str_equal (key, "top_p"))
    {
      if (!is_number (v) || json_node_get_double (v) <= 0 || json_node_get_double (v) > 1)
        problem = "a number above 0 and at most 1";
    }
  else if (g_str_equal (key, "compaction_threshold_pct"))
    {
      if (!is_number (v) || json_node_get_double (v) < 0.10 || json_node_get_double (v) > 0.95)
        problem = "a share of the window from 0.10 to 0.95";
    }
  else
    problem = "a setting OpenWorker knows (context_size, max_output_tokens, thinking, reasoning_effort, "
              "temperature, top_p, compaction_threshold_pct, default)";
  if (problem != NULL)
    {
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID, "%s: %s must be %s.", where, key, problem);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_root (const char *path, JsonObject *root, GError **error)
{
  JsonObjectIter iter;
  const char *model;
  JsonNode *entry;
  guint defaults = 0;

  json_object_iter_init (&iter, root);
  while (json_object_iter_next (&iter, &model, &entry))
    {
      g_autofree char *where = g_strdup_printf ("%s, model \"%s\"", path, model);
      JsonObjectIter inner;
      const char *key;
      JsonNode *v;

      if (!JSON_NODE_HOLDS_OBJECT (entry))
        {
          g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID, "%s: the settings must be an object.", where);
          return FALSE;
        }
      json_object_iter_init (&inner, json_node_get_object (entry));
      while (json_object_iter_next (&inner, &key, &v))
        {
          if (!check_value (where, key, v, error))
            return FALSE;
          if (g_str_equal (key, "default") && JSON_NODE_HOLDS_VALUE (v) && json_node_get_boolean (v))
            defaults++;
        }
    }
  if (defaults > 1)
    {
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                   "%s: %u models are marked \"default\"; only one may be.", path, defaults);
      return FALSE;
    }
  return TRUE;
}

OwModelConfig *
ow_model_config_new_empty (void)
{
  OwModelConfig *c = g_new0 (OwModelConfig, 1);

  c->root = json_object_new ();
  return c;
}

OwModelConfig *
ow_model_config_load (const char *path, GError **error)
{
  g_autoptr(OwModelConfig) c = ow_model_config_new_empty ();
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  gsize len;

  c->path = g_strdup (path);
  if (!g_file_get_contents (path, &text, &len, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_steal_pointer (&c);
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_UNREADABLE, "Could not read %s: %s", path, local->message);
      return NULL;
    }
  json_object_unref (c->root);
  c->root = ow_json_object_from_string (text, (gssize) len, &local);
  if (c->root == NULL)
    {
      c->root = json_object_new ();
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                   "%s is not a JSON object of model settings (%s). Fix or remove the file.", path, local->message);
      return NULL;
    }
  if (!check_root (path, c->root, error))
    return NULL;
  return g_steal_pointer (&c);
}

void
ow_model_config_free (OwModelConfig *c)
{
  if (c == NULL)
    return;
  g_free (c->path);
  json_object_unref (c->root);
  g_free (c);
}

JsonObject *
ow_model_config_get_root (OwModelConfig *c)
{
  return c->root;
}

gboolean
ow_model_config_lookup (OwModelConfig *c, const char *model_id, OwModelSettings *out)
{
  JsonObject *e = ow_json_get_object (c->root, model_id);
  JsonNode *v;

  ow_model_settings_init (out);
  if (e == NULL)
    return FALSE;
  out->context_size = ow_json_get_int (e, "context_size", 0);
  out->max_output_tokens = ow_json_get_int (e, "max_output_tokens", 0);
  if ((v = json_object_get_member (e, "thinking")) != NULL && JSON_NODE_HOLDS_VALUE (v))
    out->thinking = json_node_get_boolean (v) ? 1 : 0;
  out->reasoning_effort = g_strdup (ow_json_get_string (e, "reasoning_effort"));
  if ((v = json_object_get_member (e, "temperature")) != NULL && is_number (v))
    out->temperature = json_node_get_double (v);
  if ((v = json_object_get_member (e, "top_p")) != NULL && is_number (v))
    out->top_p = json_node_get_double (v);
  if ((v = json_object_get_member (e, "compaction_threshold_pct")) != NULL && is_number (v))
    out->compaction_threshold_pct = json_node_get_double (v);
  out->is_default = ow_json_get_bool (e, "default", FALSE);
  return TRUE;
}

const char *
ow_model_config_default_model (OwModelConfig *c)
{
  JsonObjectIter iter;
  const char *model;
  JsonNode *entry;

  json_object_iter_init (&iter, c->root);
  while (json_object_iter_next (&iter, &model, &entry))
    if (JSON_NODE_HOLDS_OBJECT (entry) && ow_json_get_bool (json_node_get_object (entry), "default", FALSE))
      return model;
  return NULL;
}

static gboolean
save (OwModelConfig *c, GError **error)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), c->root);
  g_autofree char *text = NULL;
  g_autofree char *dir = NULL;

  if (c->path == NULL)
    return TRUE;
  dir = g_path_get_dirname (c->path);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, NULL);
  return ow_paths_ensure_dir (dir, error) && ow_write_file_atomic (c->path, text, -1, 0600, error);
}

gboolean
ow_model_config_set (OwModelConfig *c, const char *model_id, JsonObject *values, GError **error)
{
  g_autofree char *where = g_strdup_printf ("model \"%s\"", model_id);
  JsonObject *e;
  JsonObjectIter iter;
  const char *key;
  JsonNode *v;

  json_object_iter_init (&iter, values);
  while (json_object_iter_next (&iter, &key, &v))
    if (!check_value (where, key, v, error))
      return FALSE;
  if (!json_object_has_member (c->root, model_id))
    json_object_set_object_member (c->root, model_id, json_object_new ());
  e = json_object_get_object_member (c->root, model_id);
  json_object_iter_init (&iter, values);
  while (json_object_iter_next (&iter, &key, &v))
    {
      if (JSON_NODE_HOLDS_NULL (v))
        json_object_remove_member (e, key);
      else
        json_object_set_member (e, key, json_node_copy (v));
      if (g_str_equal (key, "default") && JSON_NODE_HOLDS_VALUE (v) && json_node_get_boolean (v))
        {
          JsonObjectIter others;
          const char *other;
          JsonNode *oe;
          json_object_iter_init (&others, c->root);
          while (json_object_iter_next (&others, &other, &oe))
            if (!g_str_equal (other, model_id) && JSON_NODE_HOLDS_OBJECT (oe))
              json_object_remove_member (json_node_get_object (oe), "default");
        }
    }
  if (json_object_get_size (e) == 0)
    json_object_remove_member (c->root, model_id);
  return save (c, error);
}

gboolean
ow_model_config_remove (OwModelConfig *c, const char *model_id, GError **error)
{
  json_object_remove_member (c->root, model_id);
  return save (c, error);
}
