/* ow-autostart.c: the start-at-login seam (see ow-autostart.h). */
#define G_LOG_DOMAIN "ow-autostart"

#include "store/ow-autostart.h"

G_DEFINE_INTERFACE (OwAutostart, ow_autostart, G_TYPE_OBJECT)

static void
ow_autostart_default_init (OwAutostartInterface *iface)
{
}

gboolean
ow_autostart_is_enabled (OwAutostart *self)
{
  g_return_val_if_fail (OW_IS_AUTOSTART (self), FALSE);
  return OW_AUTOSTART_GET_IFACE (self)->is_enabled (self);
}

gboolean
ow_autostart_set_enabled (OwAutostart *self, gboolean enabled, GError **error)
{
  g_return_val_if_fail (OW_IS_AUTOSTART (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  return OW_AUTOSTART_GET_IFACE (self)->set_enabled (self, enabled, error);
}

char *
ow_autostart_describe (OwAutostart *self)
{
  g_return_val_if_fail (OW_IS_AUTOSTART (self), NULL);
  return OW_AUTOSTART_GET_IFACE (self)->describe (self);
}

static OwAutostartFactory os_factory;

void
ow_autostart_register_os (OwAutostartFactory factory)
{
  g_atomic_pointer_set (&os_factory, factory);
}

OwAutostart *
ow_autostart_new_default (const OwAutostartSpec *spec)
{
  OwAutostartFactory factory = g_atomic_pointer_get (&os_factory);

  g_return_val_if_fail (spec != NULL && spec->app_id != NULL, NULL);
  return factory != NULL ? factory (spec) : NULL;
}
