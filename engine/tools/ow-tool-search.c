/* ow-tool-search.c: the `tool_search` tool (see ow-tool-search.h). */
#include "tools/ow-tool-search.h"

#include <string.h>

#include "ow-json.h"
#include "tools/ow-tool-registry.h"

#define MAX_MATCHES 8
#define LINE_CHARS 100

#define OW_TYPE_TOOL_SEARCH (ow_tool_search_get_type ())
G_DECLARE_FINAL_TYPE (OwToolSearch, ow_tool_search, OW, TOOL_SEARCH, GObject)

struct _OwToolSearch
{
  GObject     parent_instance;
  GWeakRef    registry;
  JsonObject *schema;
};

static void search_iface_init (OwToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwToolSearch, ow_tool_search, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL, search_iface_init))

static const char *
search_get_name (OwTool *tool)
{
  return OW_TOOL_SEARCH_NAME;
}

static OwRisk
search_get_risk (OwTool *tool)
{
  return OW_RISK_READ;
}

static JsonObject *
search_get_schema (OwTool *tool)
{
  return OW_TOOL_SEARCH (tool)->schema;
}

static const char *
search_get_source (OwTool *tool)
{
  return "builtin";
}

/* The first line of @text, at most LINE_CHARS characters. */
static char *
one_line (const char *text)
{
  const char *nl;
  g_autofree char *line = NULL;

  if (text == NULL)
    return g_strdup ("");
  nl = strchr (text, '\n');
  line = nl != NULL ? g_strndup (text, nl - text) : g_strdup (text);
  if (g_utf8_strlen (line, -1) > LINE_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (line, 0, LINE_CHARS - 1);
      return g_strconcat (cut, "…", NULL);
    }
  return g_steal_pointer (&line);
}

void
ow_tool_search_set_deferred (OwTool *search, GPtrArray *deferred)
{
  OwToolSearch *self = OW_TOOL_SEARCH (search);
  g_autoptr(GString) d = g_string_new ("More tools are available than are listed; each needs its definition "
                                       "before you call it. Call tool_search with words from what you need "
                                       "(or the exact names) and the matching definitions come back; those "
                                       "tools can then be called. Available:");
  JsonObject *fn = json_object_get_object_member (self->schema, "function");

  for (guint i = 0; i < deferred->len; i++)
    {
      OwTool *t = g_ptr_array_index (deferred, i);
      g_autofree char *line = one_line (ow_tool_get_description (t));

      g_string_append_printf (d, "\n- %s: %s", ow_tool_get_name (t), line);
    }
  json_object_set_string_member (fn, "description", d->str);
}

static gboolean
matches (OwTool *tool, char **words, JsonArray *names)
{
  const char *name = ow_tool_get_name (tool);
  g_autofree char *hay = NULL;

  for (guint i = 0; names != NULL && i < json_array_get_length (names); i++)
    {
      JsonNode *n = json_array_get_element (names, i);
      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
          && g_str_equal (json_node_get_string (n), name))
        return TRUE;
    }
  if (words == NULL || words[0] == NULL)
    return FALSE;
  hay = g_utf8_strdown (name, -1);
  {
    g_autofree char *desc = g_utf8_strdown (ow_tool_get_description (tool) != NULL ? ow_tool_get_description (tool)
                                                                                  : "", -1);
    g_autofree char *both = g_strconcat (hay, " ", desc, NULL);
    g_free (hay);
    hay = g_steal_pointer (&both);
  }
  for (guint i = 0; words[i] != NULL; i++)
    if (*words[i] != '\0' && strstr (hay, words[i]) == NULL)
      return FALSE;
  return TRUE;
}

static void
search_call_async (OwTool              *tool,
                   const OwToolContext *context,
                   JsonObject          *args,
                   GCancellable        *cancellable,
                   OwToolProgressFunc   progress,
                   gpointer             progress_data,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  OwToolSearch *self = OW_TOOL_SEARCH (tool);
  g_autoptr(GTask) task = g_task_new (tool, cancellable, callback, user_data);
  g_autoptr(OwToolRegistry) registry = g_weak_ref_get (&self->registry);
  const char *query = args != NULL ? ow_json_get_string (args, "query") : NULL;
  JsonArray *names = args != NULL ? ow_json_get_array (args, "names") : NULL;
  g_autofree char *lower = query != NULL ? g_utf8_strdown (query, -1) : NULL;
  g_auto(GStrv) words = lower != NULL ? g_strsplit_set (lower, " \t\n,", -1) : NULL;
  g_autoptr(GPtrArray) deferred = NULL;
  JsonArray *found;
  JsonObject *out;
  guint n = 0, total = 0;

  if (registry == NULL)
    {
      g_task_return_pointer (task, ow_tool_result_new_error (OW_TOOL_STATUS_ERROR, "the session has ended"),
                             (GDestroyNotify) ow_tool_result_free);
      return;
    }
  if ((query == NULL || *query == '\0') && names == NULL)
    {
      g_task_return_pointer (task, ow_tool_result_new_error (OW_TOOL_STATUS_ERROR,
                                                             "give \"query\" (words) or \"names\" (exact tool names)"),
                             (GDestroyNotify) ow_tool_result_free);
      return;
    }
  deferred = ow_tool_registry_dup_deferred (registry);
  found = json_array_new ();
  for (guint i = 0; i < deferred->len; i++)
    {
      OwTool *t = g_ptr_array_index (deferred, i);

      if (!matches (t, words, names))
        continue;
      total++;
      if (n == MAX_MATCHES)
        continue;
      n++;
      json_array_add_object_element (found, json_object_ref (ow_tool_get_schema (t)));
      ow_tool_registry_load_deferred (registry, ow_tool_get_name (t));
    }
  out = json_object_new ();
  json_object_set_array_member (out, "tools", found);
  if (total > n)
    json_object_set_string_member (out, "note", "more tools matched than were returned; narrow the query");
  else if (n == 0)
    json_object_set_string_member (out, "note", "no tool matched; try other words, or the names from the list");
  else
    json_object_set_string_member (out, "note", "these tools can be called now");
  {
    g_autofree char *text = ow_json_object_to_string (out);
    json_object_unref (out);
    g_task_return_pointer (task, ow_tool_result_new (OW_TOOL_STATUS_OK, text), (GDestroyNotify) ow_tool_result_free);
  }
}

static OwToolResult *
search_call_finish (OwTool *tool, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
search_iface_init (OwToolInterface *iface)
{
  iface->get_name = search_get_name;
  iface->get_risk = search_get_risk;
  iface->get_schema = search_get_schema;
  iface->get_source = search_get_source;
  iface->call_async = search_call_async;
  iface->call_finish = search_call_finish;
}

static void
ow_tool_search_finalize (GObject *object)
{
  OwToolSearch *self = OW_TOOL_SEARCH (object);

  g_weak_ref_clear (&self->registry);
  json_object_unref (self->schema);
  G_OBJECT_CLASS (ow_tool_search_parent_class)->finalize (object);
}

static void
ow_tool_search_class_init (OwToolSearchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_tool_search_finalize;
}

static void
ow_tool_search_init (OwToolSearch *self)
{
  static const char params[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"query\":{\"type\":\"string\",\"description\":\"Words from what the tool should do or its name\"},"
    "\"names\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"Exact tool names to load\"}}}";
  JsonObject *fn = json_object_new ();

  json_object_set_string_member (fn, "name", OW_TOOL_SEARCH_NAME);
  json_object_set_string_member (fn, "description", "");
  json_object_set_object_member (fn, "parameters", ow_json_object_from_string (params, -1, NULL));
  self->schema = json_object_new ();
  json_object_set_string_member (self->schema, "type", "function");
  json_object_set_object_member (self->schema, "function", fn);
}

OwTool *
ow_tool_search_new (OwToolRegistry *registry)
{
  OwToolSearch *self = g_object_new (OW_TYPE_TOOL_SEARCH, NULL);

  g_weak_ref_init (&self->registry, registry);
  return OW_TOOL (self);
}
