/* ow-config.c: config.toml loading, checking and layering (see ow-config.h). */
#define G_LOG_DOMAIN "ow-config"

#include "store/ow-config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "ow-error.h"
#include "store/ow-paths.h"
#include "store/ow-toml.h"

struct _OwConfig
{
  gatomicrefcount ref;
  JsonObject     *root;          /* the effective settings (owned) */
  GPtrArray      *ignored;       /* project keys ignored because they would widen (char*, NULL-terminated) */
  GPtrArray      *project_deny;  /* the project's [policy] deny rules (char*, NULL-terminated) */
};

/* Modes from the most to the least restrictive. */
static const char *const mode_order[] = {
  "discuss", "plan", "ask", "auto-approve", "bypass-approvals", "dangerously-bypass-approvals",
};

const char *
ow_approval_mode_canonical (const char *mode)
{
  if (mode == NULL)
    return NULL;
  if (g_str_equal (mode, "interactive"))
    return "ask";
  if (g_str_equal (mode, "auto"))
    return "bypass-approvals";
  for (gsize i = 0; i < G_N_ELEMENTS (mode_order); i++)
    if (g_str_equal (mode, mode_order[i]))
      return mode_order[i];
  return NULL;
}

int
ow_approval_mode_rank (const char *mode)
{
  const char *canon = ow_approval_mode_canonical (mode);

  for (gsize i = 0; canon != NULL && i < G_N_ELEMENTS (mode_order); i++)
    if (g_str_equal (canon, mode_order[i]))
      return (int) i;
  return -1;
}

const char *
ow_approval_mode_effective (const char *requested,
                            OwConfig   *config)
{
  const char *configured = config != NULL ? ow_config_get_string (config, "approval_mode") : NULL;

  return ow_approval_mode_canonical (requested != NULL ? requested : configured != NULL ? configured : "ask");
}

typedef enum { T_STRING, T_INT, T_BOOL, T_STRV, T_TABLE, T_TABLE_ARRAY } KeyType;

typedef struct {
  const char        *key;      /* dotted key */
  KeyType            type;
  const char *const *choices;  /* allowed strings, or NULL */
  gint64             min;      /* for T_INT */
} KnownKey;

static const char *const modes_all[] = {
  "ask", "auto-approve", "bypass-approvals", "dangerously-bypass-approvals", "plan", "discuss",
  "interactive", "auto", NULL,
};
static const char *const attendance_all[] = { "attended", "inbox", "auto", NULL };
static const char *const sandbox_all[] = { "direct", "linux", "openshell", "seatbelt", "windows", NULL };
static const char *const network_all[] = { "allowlist", "open", NULL };
static const char *const wires_all[] = {
  "openai-chat", "openai-responses", "anthropic", "gemini", "ollama", NULL,
};

static const KnownKey known_keys[] = {
  { "model", T_STRING, NULL, 0 },
  { "approval_mode", T_STRING, modes_all, 0 },
  { "attendance", T_STRING, attendance_all, 0 },
  { "reviewer_model", T_STRING, NULL, 0 },
  { "max_iterations", T_INT, NULL, 1 },
  { "tool_result_max_bytes", T_INT, NULL, 0 },
  { "web_search_provider", T_STRING, NULL, 0 },
  { "policy", T_TABLE, NULL, 0 },
  { "policy.deny", T_STRV, NULL, 0 },
  { "policy.allow", T_STRV, NULL, 0 },
  { "sandbox_provider", T_STRING, sandbox_all, 0 },
  { "sandbox_network_profile", T_STRING, network_all, 0 },
  { "sandbox_network_hosts", T_STRV, NULL, 0 },
  { "sandbox_credentials", T_TABLE_ARRAY, NULL, 0 },
  { "sandbox_toolchains", T_STRV, NULL, 0 },
  { "providers", T_TABLE, NULL, 0 },
  { "scratch_dir", T_STRING, NULL, 0 },
  { "shell_environment_allow", T_STRV, NULL, 0 },
  { "desktop", T_TABLE, NULL, 0 },
  { "desktop.run_in_background", T_BOOL, NULL, 0 },
};

static JsonNode *
lookup (JsonObject *root, const char *key)
{
  g_auto(GStrv) parts = g_strsplit (key, ".", -1);
  JsonObject *obj = root;
  JsonNode *node = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (obj == NULL || !json_object_has_member (obj, parts[i]))
        return NULL;
      node = json_object_get_member (obj, parts[i]);
      obj = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      if (parts[i + 1] != NULL && obj == NULL)
        return NULL;
    }
  return node;
}

static const char *
type_name (KeyType t)
{
  switch (t)
    {
    case T_STRING: return "a string";
    case T_INT: return "an integer";
    case T_BOOL: return "true or false";
    case T_STRV: return "a list of strings";
    case T_TABLE: return "a table";
    case T_TABLE_ARRAY: return "a list of tables ([[…]])";
    default: return "?";
    }
}

static gboolean
check_key (const char *file, JsonNode *node, const KnownKey *k, GError **error)
{
  gboolean ok = FALSE;

  switch (k->type)
    {
    case T_STRING:
      ok = JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
      break;
    case T_INT:
      ok = JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
      if (ok && json_node_get_int (node) < k->min)
        {
          g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                       "%s: %s must be at least %" G_GINT64_FORMAT " (found %" G_GINT64_FORMAT ").",
                       file, k->key, k->min, json_node_get_int (node));
          return FALSE;
        }
      break;
    case T_BOOL:
      ok = JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN;
      break;
    case T_STRV:
      ok = JSON_NODE_HOLDS_ARRAY (node);
      for (guint i = 0; ok && i < json_array_get_length (json_node_get_array (node)); i++)
        {
          JsonNode *e = json_array_get_element (json_node_get_array (node), i);
          ok = JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING;
        }
      break;
    case T_TABLE:
      ok = JSON_NODE_HOLDS_OBJECT (node);
      break;
    case T_TABLE_ARRAY:
      ok = JSON_NODE_HOLDS_ARRAY (node);
      for (guint i = 0; ok && i < json_array_get_length (json_node_get_array (node)); i++)
        ok = JSON_NODE_HOLDS_OBJECT (json_array_get_element (json_node_get_array (node), i));
      break;
    default:
      break;
    }
  if (!ok)
    {
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                   "%s: %s must be %s.", file, k->key, type_name (k->type));
      return FALSE;
    }
  if (k->choices != NULL)
    {
      const char *v = json_node_get_string (node);
      g_autofree char *list = NULL;

      for (guint i = 0; k->choices[i] != NULL; i++)
        if (g_str_equal (v, k->choices[i]))
          return TRUE;
      list = g_strjoinv (", ", (char **) k->choices);
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                   "%s: %s must be one of %s (found \"%s\").", file, k->key, list, v);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_providers (const char *file, JsonObject *root, GError **error)
{
  JsonNode *providers = lookup (root, "providers");
  JsonObjectIter iter;
  const char *id;
  JsonNode *entry;

  if (providers == NULL)
    return TRUE;
  json_object_iter_init (&iter, json_node_get_object (providers));
  while (json_object_iter_next (&iter, &id, &entry))
    {
      JsonObject *obj;

      if (!JSON_NODE_HOLDS_OBJECT (entry))
        {
          g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                       "%s: providers.%s must be a table, like [providers.%s].", file, id, id);
          return FALSE;
        }
      obj = json_node_get_object (entry);
      if (json_object_has_member (obj, "api_key"))
        {
          g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                       "%s: providers.%s.api_key is not read from a file: keys belong in the secret store "
                       "or in the provider's environment variable. Remove the line.", file, id);
          return FALSE;
        }
      for (const char *const *k = (const char *const[]) { "base_url", "wire", NULL }; *k != NULL; k++)
        {
          JsonNode *v = json_object_get_member (obj, *k);
          if (v != NULL && !(JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_STRING))
            {
              g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                           "%s: providers.%s.%s must be a string.", file, id, *k);
              return FALSE;
            }
        }
      if (json_object_has_member (obj, "wire"))
        {
          const char *w = json_object_get_string_member (obj, "wire");
          if (!g_strv_contains (wires_all, w))
            {
              g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                           "%s: providers.%s.wire must be one of openai-chat, openai-responses, anthropic, "
                           "gemini, ollama (found \"%s\").", file, id, w);
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* Every known key of @root has the right type and value. */
static gboolean
check_root (const char *path, JsonObject *root, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (known_keys); i++)
    {
      JsonNode *node = lookup (root, known_keys[i].key);
      if (node != NULL && !check_key (path, node, &known_keys[i], error))
        return FALSE;
    }
  return check_providers (path, root, error);
}

static JsonObject *
load_file (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize len;

  if (!g_file_get_contents (path, &text, &len, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return json_object_new ();
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_UNREADABLE,
                   "Could not read %s: %s", path, local->message);
      return NULL;
    }
  root = ow_toml_parse (text, (gssize) len, &local);
  if (root == NULL)
    {
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                   "%s is not valid TOML: %s. Fix the file and try again.", path, local->message);
      return NULL;
    }
  if (!check_root (path, json_node_get_object (root), error))
    return NULL;
  return json_object_ref (json_node_get_object (root));
}

/* Applies the narrowing parts of a project's config to @root. */
static void
layer_project (JsonObject *root, JsonObject *project, GPtrArray *ignored, GPtrArray *project_deny)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, project);
  while (json_object_iter_next (&iter, &key, &value))
    {
      if (g_str_equal (key, "model"))
        json_object_set_member (root, key, json_node_copy (value));
      else if (g_str_equal (key, "max_iterations"))
        {
          gint64 mine = json_node_get_int (value);
          if (!json_object_has_member (root, key) || json_object_get_int_member (root, key) > mine)
            json_object_set_int_member (root, key, mine);
        }
      else if (g_str_equal (key, "approval_mode"))
        {
          const char *machine = json_object_has_member (root, key) ? json_object_get_string_member (root, key) : "ask";
          if (ow_approval_mode_rank (json_node_get_string (value)) <= ow_approval_mode_rank (machine))
            json_object_set_member (root, key, json_node_copy (value));
          else
            g_ptr_array_add (ignored, g_strdup (key));
        }
      else if (g_str_equal (key, "policy") && JSON_NODE_HOLDS_OBJECT (value))
        {
          JsonObject *pol = json_node_get_object (value);
          /* A project's denies are kept apart from the machine's: they
           * narrow like any deny rule, but only the machine's are hard
           * floors. */
          if (json_object_has_member (pol, "deny"))
            {
              JsonArray *add = json_object_get_array_member (pol, "deny");
              for (guint i = 0; i < json_array_get_length (add); i++)
                g_ptr_array_add (project_deny, g_strdup (json_array_get_string_element (add, i)));
            }
          if (json_object_has_member (pol, "allow"))
            g_ptr_array_add (ignored, g_strdup ("policy.allow"));
        }
      else
        g_ptr_array_add (ignored, g_strdup (key));
    }
}

OwConfig *
ow_config_new_empty (void)
{
  OwConfig *c = g_new0 (OwConfig, 1);

  g_atomic_ref_count_init (&c->ref);
  c->root = json_object_new ();
  c->ignored = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (c->ignored, NULL);
  c->project_deny = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (c->project_deny, NULL);
  return c;
}

OwConfig *
ow_config_load (const char *machine_path, const char *project_path, GError **error)
{
  g_autoptr(OwConfig) c = ow_config_new_empty ();
  JsonObject *machine;

  machine = load_file (machine_path, error);
  if (machine == NULL)
    return NULL;
  json_object_unref (c->root);
  c->root = machine;

  g_ptr_array_set_size (c->ignored, 0);
  g_ptr_array_set_size (c->project_deny, 0);
  if (project_path != NULL)
    {
      g_autoptr(JsonObject) project = load_file (project_path, error);
      if (project == NULL)
        return NULL;
      layer_project (c->root, project, c->ignored, c->project_deny);
    }
  g_ptr_array_add (c->ignored, NULL);
  g_ptr_array_add (c->project_deny, NULL);
  return g_steal_pointer (&c);
}

OwConfig *
ow_config_ref (OwConfig *config)
{
  g_atomic_ref_count_inc (&config->ref);
  return config;
}

void
ow_config_unref (OwConfig *config)
{
  if (config != NULL && g_atomic_ref_count_dec (&config->ref))
    {
      json_object_unref (config->root);
      g_ptr_array_unref (config->ignored);
      g_ptr_array_unref (config->project_deny);
      g_free (config);
    }
}

const char *
ow_config_get_string (OwConfig *config, const char *key)
{
  JsonNode *n = lookup (config->root, key);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

gboolean
ow_config_get_int (OwConfig *config, const char *key, gint64 *out)
{
  JsonNode *n = lookup (config->root, key);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_int (n);
  return TRUE;
}

gboolean
ow_config_get_bool (OwConfig *config, const char *key, gboolean *out)
{
  JsonNode *n = lookup (config->root, key);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return FALSE;
  *out = json_node_get_boolean (n);
  return TRUE;
}

char **
ow_config_get_strv (OwConfig *config, const char *key)
{
  JsonNode *n = lookup (config->root, key);
  GPtrArray *out;
  JsonArray *arr;

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    return NULL;
  arr = json_node_get_array (n);
  out = g_ptr_array_new ();
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      const char *s = json_array_get_string_element (arr, i);
      if (s != NULL)
        g_ptr_array_add (out, g_strdup (s));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

JsonObject *
ow_config_get_table (OwConfig *config, const char *key)
{
  JsonNode *n = lookup (config->root, key);

  return n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

JsonArray *
ow_config_get_array (OwConfig *config, const char *key)
{
  JsonNode *n = lookup (config->root, key);

  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

const char *const *
ow_config_get_ignored_project_keys (OwConfig *config)
{
  return (const char *const *) config->ignored->pdata;
}

const char *const *
ow_config_get_project_deny (OwConfig *config)
{
  return (const char *const *) config->project_deny->pdata;
}

/* Writes @root to @path atomically, keeping the file's mode (0600 for a new one). */
static gboolean
write_file (const char *path, JsonObject *root, GError **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *text = NULL;
  GStatBuf st;
  int mode = 0600;

  text = ow_toml_write (root, error);
  if (text == NULL)
    return FALSE;
  if (g_stat (path, &st) == 0)
    mode = st.st_mode & 0777;
  dir = g_path_get_dirname (path);
  if (!ow_paths_ensure_dir (dir, error))
    return FALSE;
  return ow_write_file_atomic (path, text, -1, mode, error);
}

gboolean
ow_config_file_set (const char *path, const char *key, JsonNode *value, GError **error)
{
  g_autoptr(JsonObject) root = load_file (path, error);
  g_auto(GStrv) parts = NULL;
  JsonObject *obj;
  guint n;

  g_return_val_if_fail (key != NULL && *key != '\0', FALSE);

  if (root == NULL)
    return FALSE;
  parts = g_strsplit (key, ".", -1);
  n = g_strv_length (parts);
  obj = root;
  for (guint i = 0; i + 1 < n; i++)
    {
      JsonNode *child = json_object_get_member (obj, parts[i]);

      if (child == NULL)
        {
          if (value == NULL)
            return TRUE;   /* nothing to remove */
          json_object_set_object_member (obj, parts[i], json_object_new ());
          child = json_object_get_member (obj, parts[i]);
        }
      if (!JSON_NODE_HOLDS_OBJECT (child))
        {
          g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                       "%s: %s is not a table, so %s cannot be set; fix the file by hand first.", path, parts[i], key);
          return FALSE;
        }
      obj = json_node_get_object (child);
    }
  if (value != NULL)
    json_object_set_member (obj, parts[n - 1], json_node_copy (value));
  else if (json_object_has_member (obj, parts[n - 1]))
    json_object_remove_member (obj, parts[n - 1]);
  else
    return TRUE;
  /* The same checks as loading: a value that would make the file fail to
   * load is refused here, and the file is left as it was. */
  if (!check_root (path, root, error))
    return FALSE;
  return write_file (path, root, error);
}

gboolean
ow_config_file_add_to_list (const char *path, const char *key, const char *value, GError **error)
{
  g_autoptr(JsonObject) root = load_file (path, error);
  JsonArray *list;

  if (root == NULL)
    return FALSE;
  if (!json_object_has_member (root, key))
    json_object_set_array_member (root, key, json_array_new ());
  list = json_object_get_array_member (root, key);
  if (list == NULL)
    {
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                   "%s: %s is not a list of strings; fix it by hand first.", path, key);
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (list); i++)
    if (g_strcmp0 (json_array_get_string_element (list, i), value) == 0)
      return TRUE;
  json_array_add_string_element (list, value);
  return write_file (path, root, error);
}
