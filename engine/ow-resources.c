/* ow-resources.c: registration of the engine's GResource. */
#include "ow-resources.h"
#include "ow-engine-resources.h"

void
ow_resources_ensure (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      g_resources_register (ow_engine_get_resource ());
      g_once_init_leave (&done, 1);
    }
}

GBytes *
ow_resources_lookup (const char *name, GError **error)
{
  g_autofree char *path = g_strconcat ("/com/openworker/engine/", name, NULL);

  ow_resources_ensure ();
  return g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
}
