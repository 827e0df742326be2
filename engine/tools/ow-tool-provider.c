/* ow-tool-provider.c: the OwToolProvider interface (see ow-tool-provider.h). */
#define G_LOG_DOMAIN "ow-tools"

#include "tools/ow-tool-provider.h"

G_DEFINE_INTERFACE (OwToolProvider, ow_tool_provider, G_TYPE_LIST_MODEL)

static void
ow_tool_provider_default_init (OwToolProviderInterface *iface)
{
}

const char *
ow_tool_provider_get_source (OwToolProvider *self)
{
  g_return_val_if_fail (OW_IS_TOOL_PROVIDER (self), NULL);
  return OW_TOOL_PROVIDER_GET_IFACE (self)->get_source (self);
}

OwTool *
ow_tool_provider_lookup (OwToolProvider *self, const char *name)
{
  guint n;

  g_return_val_if_fail (OW_IS_TOOL_PROVIDER (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  n = g_list_model_get_n_items (G_LIST_MODEL (self));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(OwTool) tool = g_list_model_get_item (G_LIST_MODEL (self), i);

      if (g_strcmp0 (ow_tool_get_name (tool), name) == 0)
        return g_steal_pointer (&tool);
    }
  return NULL;
}

char *
ow_tool_provider_refused_reason (OwToolProvider *self, const char *name)
{
  OwToolProviderInterface *iface;

  g_return_val_if_fail (OW_IS_TOOL_PROVIDER (self), NULL);
  iface = OW_TOOL_PROVIDER_GET_IFACE (self);
  return iface->refused_reason != NULL && name != NULL ? iface->refused_reason (self, name) : NULL;
}
