/* ow-tool-registry.c: the live aggregate of a session's tool providers.
 *
 * The registry watches each provider's items-changed and keeps one merged
 * view, ordered by source, then name, so that the tools a model is offered
 * come in the same order at every call (a prompt cache keys on it) however
 * the providers were added. The first tool of a name in that order is the
 * one offered and run; a later one of the same name is hidden.
 */
#define G_LOG_DOMAIN "ow-tools"

#include "tools/ow-tool-registry.h"

#include "tools/ow-tool-search.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "store/ow-paths.h"

/* ---- Registry ----------------------------------------------------------- */

typedef struct {
  OwToolProvider *provider;  /* owned */
  gulong          handler;   /* its items-changed */
} Member;

struct _OwToolRegistry
{
  GObject     parent_instance;
  GArray     *members;  /* Member, in the order they were added */
  GPtrArray  *tools;    /* OwTool*: the merged view, by source then name */
  GHashTable *by_name;  /* name (borrowed from the tool) → OwTool* in the view */
  gsize       budget;   /* bytes of non-built-in definitions sent in full; 0: all */
  GHashTable *loaded;   /* names tool_search has sent in full (owned) */
  OwTool     *search;   /* the tool_search tool, once a budget is set */
};

static void registry_list_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwToolRegistry, ow_tool_registry, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, registry_list_iface_init))

static GType
registry_get_item_type (GListModel *model)
{
  return OW_TYPE_TOOL;
}

static guint
registry_get_n_items (GListModel *model)
{
  return OW_TOOL_REGISTRY (model)->tools->len;
}

static gpointer
registry_get_item (GListModel *model, guint position)
{
  OwToolRegistry *self = OW_TOOL_REGISTRY (model);

  if (position >= self->tools->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->tools, position));
}

static void
registry_list_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = registry_get_item_type;
  iface->get_n_items = registry_get_n_items;
  iface->get_item = registry_get_item;
}

typedef struct {
  OwTool     *tool;
  const char *source;
  guint       member;  /* breaks ties: the provider added first */
} Entry;

static int
compare_entries (gconstpointer a, gconstpointer b)
{
  const Entry *x = a, *y = b;
  int c = strcmp (x->source, y->source);

  if (c == 0)
    c = strcmp (ow_tool_get_name (x->tool), ow_tool_get_name (y->tool));
  if (c == 0)
    c = x->member < y->member ? -1 : x->member > y->member ? 1 : 0;
  return c;
}

/* Rebuilds the merged view and says what changed (the whole range: a
 * model call reads all of it anyway). */
static void
rebuild (OwToolRegistry *self)
{
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) old = NULL;
  gboolean same;

  for (guint m = 0; m < self->members->len; m++)
    {
      OwToolProvider *provider = g_array_index (self->members, Member, m).provider;
      const char *source = ow_tool_provider_get_source (provider);
      guint n = g_list_model_get_n_items (G_LIST_MODEL (provider));

      for (guint i = 0; i < n; i++)
        {
          /* The provider holds a reference for as long as the tool is an
           * item; the view takes its own below. */
          g_autoptr(OwTool) tool = g_list_model_get_item (G_LIST_MODEL (provider), i);
          Entry e = { tool, source, m };

          g_array_append_val (entries, e);
        }
    }
  g_array_sort (entries, compare_entries);

  g_hash_table_remove_all (self->by_name);
  for (guint i = 0; i < entries->len; i++)
    {
      Entry *e = &g_array_index (entries, Entry, i);
      const char *name = ow_tool_get_name (e->tool);

      if (g_hash_table_contains (self->by_name, name))
        {
          g_debug ("The tool %s from %s is hidden: a tool of that name comes first.", name, e->source);
          continue;
        }
      g_ptr_array_add (tools, g_object_ref (e->tool));
      g_hash_table_insert (self->by_name, (gpointer) name, e->tool);
    }

  same = tools->len == self->tools->len;
  for (guint i = 0; same && i < tools->len; i++)
    same = g_ptr_array_index (tools, i) == g_ptr_array_index (self->tools, i);
  old = g_steal_pointer (&self->tools);
  self->tools = g_steal_pointer (&tools);
  if (!same)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, old->len, self->tools->len);
}

static void
on_provider_items_changed_cb (GListModel *provider, guint position, guint removed, guint added, gpointer user_data)
{
  rebuild (OW_TOOL_REGISTRY (user_data));
}

static void
ow_tool_registry_dispose (GObject *object)
{
  OwToolRegistry *self = OW_TOOL_REGISTRY (object);

  for (guint m = 0; m < self->members->len; m++)
    {
      Member *member = &g_array_index (self->members, Member, m);

      g_clear_signal_handler (&member->handler, member->provider);
      g_clear_object (&member->provider);
    }
  g_array_set_size (self->members, 0);
  G_OBJECT_CLASS (ow_tool_registry_parent_class)->dispose (object);
}

static void
ow_tool_registry_finalize (GObject *object)
{
  OwToolRegistry *self = OW_TOOL_REGISTRY (object);

  g_array_unref (self->members);
  g_hash_table_unref (self->by_name);
  g_hash_table_unref (self->loaded);
  g_clear_object (&self->search);
  g_ptr_array_unref (self->tools);
  G_OBJECT_CLASS (ow_tool_registry_parent_class)->finalize (object);
}

static void
ow_tool_registry_class_init (OwToolRegistryClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ow_tool_registry_dispose;
  G_OBJECT_CLASS (klass)->finalize = ow_tool_registry_finalize;
}

static void
ow_tool_registry_init (OwToolRegistry *self)
{
  self->members = g_array_new (FALSE, FALSE, sizeof (Member));
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  self->loaded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

OwToolRegistry *
ow_tool_registry_new (void)
{
  return g_object_new (OW_TYPE_TOOL_REGISTRY, NULL);
}

void
ow_tool_registry_add_provider (OwToolRegistry *self, OwToolProvider *provider)
{
  Member member;

  g_return_if_fail (OW_IS_TOOL_REGISTRY (self));
  g_return_if_fail (OW_IS_TOOL_PROVIDER (provider));
  g_return_if_fail (g_type_is_a (g_list_model_get_item_type (G_LIST_MODEL (provider)), OW_TYPE_TOOL));

  for (guint m = 0; m < self->members->len; m++)
    g_return_if_fail (g_array_index (self->members, Member, m).provider != provider);

  member.provider = g_object_ref (provider);
  member.handler = g_signal_connect_object (provider, "items-changed", G_CALLBACK (on_provider_items_changed_cb),
                                            self, G_CONNECT_DEFAULT);
  g_array_append_val (self->members, member);
  rebuild (self);
}

void
ow_tool_registry_remove_provider (OwToolRegistry *self, OwToolProvider *provider)
{
  g_return_if_fail (OW_IS_TOOL_REGISTRY (self));

  for (guint m = 0; m < self->members->len; m++)
    {
      Member *member = &g_array_index (self->members, Member, m);

      if (member->provider != provider)
        continue;
      g_clear_signal_handler (&member->handler, member->provider);
      g_clear_object (&member->provider);
      g_array_remove_index (self->members, m);
      rebuild (self);
      return;
    }
}

OwTool *
ow_tool_registry_lookup (OwToolRegistry *self, const char *name)
{
  OwTool *tool = g_hash_table_lookup (self->by_name, name);

  if (tool == NULL && self->search != NULL && g_strcmp0 (name, OW_TOOL_SEARCH_NAME) == 0)
    return self->search;
  return tool;
}

char *
ow_tool_registry_refused_reason (OwToolRegistry *self, const char *name)
{
  for (guint m = 0; m < self->members->len; m++)
    {
      char *reason = ow_tool_provider_refused_reason (g_array_index (self->members, Member, m).provider, name);

      if (reason != NULL)
        return reason;
    }
  return NULL;
}

guint
ow_tool_registry_get_n_tools (OwToolRegistry *self)
{
  return self->tools->len;
}

OwTool *
ow_tool_registry_get_tool (OwToolRegistry *self, guint index)
{
  return g_ptr_array_index (self->tools, index);
}

/* ---- Deferred definitions (ow-tool-search.h) ----------------------------- */

static gboolean
is_builtin (OwTool *tool)
{
  return g_strcmp0 (ow_tool_get_source (tool), "builtin") == 0;
}

/* The bytes of @tool's definition on the wire, measured once (a tool's
 * schema does not change while it is an item). */
static gsize
definition_size (OwTool *tool)
{
  static GQuark quark;
  gpointer known;

  if (quark == 0)
    quark = g_quark_from_static_string ("ow-definition-size");
  known = g_object_get_qdata (G_OBJECT (tool), quark);
  if (known == NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), ow_tool_get_schema (tool));
      g_autofree char *text = json_to_string (node, FALSE);

      known = GSIZE_TO_POINTER (strlen (text) + 1);
      g_object_set_qdata (G_OBJECT (tool), quark, known);
    }
  return GPOINTER_TO_SIZE (known) - 1;
}

void
ow_tool_registry_set_definition_budget (OwToolRegistry *self, gsize bytes)
{
  g_return_if_fail (OW_IS_TOOL_REGISTRY (self));
  self->budget = bytes;
  if (bytes > 0 && self->search == NULL)
    self->search = ow_tool_search_new (self);
}

GPtrArray *
ow_tool_registry_dup_deferred (OwToolRegistry *self)
{
  GPtrArray *deferred = g_ptr_array_new_with_free_func (g_object_unref);
  gsize bytes = 0;

  if (self->budget == 0)
    return deferred;
  for (guint i = 0; i < self->tools->len && bytes <= self->budget; i++)
    {
      OwTool *t = g_ptr_array_index (self->tools, i);

      if (!is_builtin (t))
        bytes += definition_size (t);
    }
  if (bytes <= self->budget)
    return deferred;
  for (guint i = 0; i < self->tools->len; i++)
    {
      OwTool *t = g_ptr_array_index (self->tools, i);

      if (!is_builtin (t) && !g_hash_table_contains (self->loaded, ow_tool_get_name (t)))
        g_ptr_array_add (deferred, g_object_ref (t));
    }
  return deferred;
}

void
ow_tool_registry_load_deferred (OwToolRegistry *self, const char *name)
{
  g_return_if_fail (OW_IS_TOOL_REGISTRY (self));
  g_hash_table_add (self->loaded, g_strdup (name));
}

JsonArray *
ow_tool_registry_dup_definitions (OwToolRegistry *self)
{
  JsonArray *arr = json_array_sized_new (self->tools->len + 1);
  g_autoptr(GPtrArray) deferred = ow_tool_registry_dup_deferred (self);
  g_autoptr(GHashTable) skip = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < deferred->len; i++)
    g_hash_table_add (skip, g_ptr_array_index (deferred, i));
  for (guint i = 0; i < self->tools->len; i++)
    {
      OwTool *t = g_ptr_array_index (self->tools, i);

      if (!g_hash_table_contains (skip, t))
        json_array_add_object_element (arr, json_object_ref (ow_tool_get_schema (t)));
    }
  if (deferred->len > 0)
    {
      ow_tool_search_set_deferred (self->search, deferred);
      json_array_add_object_element (arr, json_object_ref (ow_tool_get_schema (self->search)));
    }
  return arr;
}

/* ---- Result bounding ---------------------------------------------------- */

char *
ow_tool_result_bound (const char  *text,
                      gsize        max_bytes,
                      const char  *spill_dir,
                      const char  *call_id,
                      char       **spilled_path,
                      GError     **error)
{
  gsize len = strlen (text);
  const char *end;
  g_autofree char *safe_id = NULL;
  g_autofree char *path = NULL;

  if (spilled_path != NULL)
    *spilled_path = NULL;
  if (max_bytes == 0 || len <= max_bytes)
    return g_strdup (text);

  /* File names come from the model's call id: keep only safe characters. */
  safe_id = g_strdup (call_id);
  g_strcanon (safe_id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", '_');
  path = g_strdup_printf ("%s/%s.txt", spill_dir, safe_id);
  if (!ow_paths_ensure_dir (spill_dir, error)
      || !ow_write_file_atomic (path, text, (gssize) len, 0600, error))
    return NULL;

  /* Cut at a character boundary at or before the limit. */
  g_utf8_validate (text, (gssize) max_bytes, &end);
  if (spilled_path != NULL)
    *spilled_path = g_strdup (path);
  return g_strdup_printf ("%.*s\n[… result truncated: it was %" G_GSIZE_FORMAT " bytes and only the first %"
                          G_GSIZE_FORMAT " are shown. The whole result is saved in %s; read the rest with "
                          "read_file (start_line to page) or grep.]",
                          (int) (end - text), text, len, (gsize) (end - text), path);
}
