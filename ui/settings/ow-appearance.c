/* ow-appearance.c: following the desktop's color scheme (see ow-appearance.h). */
#define G_LOG_DOMAIN "ow-appearance"

#include "config-ui.h"
#include "ow-appearance.h"

#include <glib/gi18n-lib.h>

#define PORTAL_NAME  "org.freedesktop.portal.Desktop"
#define PORTAL_PATH  "/org/freedesktop/portal/desktop"
#define PORTAL_IFACE "org.freedesktop.portal.Settings"
#define NAMESPACE    "org.freedesktop.appearance"
#define KEY          "color-scheme"

struct _OwAppearance
{
  GObject          parent_instance;

  GDBusProxy      *portal;       /* owned, may be NULL */
  GCancellable    *cancellable;  /* owned */
  OwColorScheme    scheme;
  gboolean         from_portal;
};

G_DEFINE_FINAL_TYPE (OwAppearance, ow_appearance, G_TYPE_OBJECT)

enum { PROP_0, PROP_COLOR_SCHEME, PROP_FROM_PORTAL, N_PROPS };
static GParamSpec *props[N_PROPS];

OwColorScheme
ow_appearance_scheme_from_variant (GVariant *value)
{
  g_autoptr(GVariant) v = value != NULL ? g_variant_ref (value) : NULL;

  /* Read answers v(v(u)) on older portals, ReadOne v(u). */
  while (v != NULL && g_variant_is_of_type (v, G_VARIANT_TYPE_VARIANT))
    {
      GVariant *inner = g_variant_get_variant (v);
      g_variant_unref (v);
      v = inner;
    }
  if (v != NULL && g_variant_is_of_type (v, G_VARIANT_TYPE_TUPLE) && g_variant_n_children (v) == 1)
    {
      GVariant *inner = g_variant_get_child_value (v, 0);
      g_variant_unref (v);
      v = inner;
      while (g_variant_is_of_type (v, G_VARIANT_TYPE_VARIANT))
        {
          GVariant *deeper = g_variant_get_variant (v);
          g_variant_unref (v);
          v = deeper;
        }
    }
  if (v == NULL || !g_variant_is_of_type (v, G_VARIANT_TYPE_UINT32))
    return OW_COLOR_SCHEME_DEFAULT;
  switch (g_variant_get_uint32 (v))
    {
    case 1:
      return OW_COLOR_SCHEME_DARK;
    case 2:
      return OW_COLOR_SCHEME_LIGHT;
    default:
      return OW_COLOR_SCHEME_DEFAULT;
    }
}

char *
ow_appearance_describe (OwColorScheme scheme, gboolean from_portal)
{
  if (!from_portal)
    return g_strdup (_("As the desktop theme sets it (the desktop does not say whether it prefers light or dark)"));
  switch (scheme)
    {
    case OW_COLOR_SCHEME_DARK:
      return g_strdup (_("Dark, following the system"));
    case OW_COLOR_SCHEME_LIGHT:
      return g_strdup (_("Light, following the system"));
    case OW_COLOR_SCHEME_DEFAULT:
    default:
      return g_strdup (_("Light, following the system (no preference set)"));
    }
}

static void
apply (OwAppearance *self, OwColorScheme scheme)
{
  GtkSettings *settings = gtk_settings_get_default ();

  if (settings != NULL)
    g_object_set (settings, "gtk-application-prefer-dark-theme", scheme == OW_COLOR_SCHEME_DARK, NULL);
  if (self->scheme != scheme)
    {
      self->scheme = scheme;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_COLOR_SCHEME]);
    }
}

static void
on_portal_signal_cb (GDBusProxy *proxy, const char *sender, const char *signal, GVariant *params, gpointer user_data)
{
  OwAppearance *self = user_data;
  const char *ns, *key;
  g_autoptr(GVariant) value = NULL;

  if (!g_str_equal (signal, "SettingChanged") || !g_variant_is_of_type (params, G_VARIANT_TYPE ("(ssv)")))
    return;
  g_variant_get (params, "(&s&sv)", &ns, &key, &value);
  if (g_str_equal (ns, NAMESPACE) && g_str_equal (key, KEY))
    apply (self, ow_appearance_scheme_from_variant (value));
}

static void
on_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_proxy_call_finish (G_DBUS_PROXY (source), result, &error);
  OwAppearance *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_APPEARANCE (user_data);
  if (reply == NULL)
    {
      g_debug ("No color scheme from the Settings portal: %s", error->message);
      return;
    }
  self->from_portal = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_FROM_PORTAL]);
  apply (self, ow_appearance_scheme_from_variant (reply));
}

static void
on_proxy_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  GDBusProxy *proxy = g_dbus_proxy_new_for_bus_finish (result, &error);
  OwAppearance *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_APPEARANCE (user_data);
  if (proxy == NULL)
    {
      g_debug ("No Settings portal: %s", error->message);
      return;
    }
  self->portal = proxy;
  g_signal_connect (proxy, "g-signal", G_CALLBACK (on_portal_signal_cb), self);
  g_dbus_proxy_call (proxy, "Read", g_variant_new ("(ss)", NAMESPACE, KEY), G_DBUS_CALL_FLAGS_NONE, 5000,
                     self->cancellable, on_read_cb, self);
}

static void
ow_appearance_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwAppearance *self = OW_APPEARANCE (object);

  switch (prop_id)
    {
    case PROP_COLOR_SCHEME:
      g_value_set_int (value, self->scheme);
      break;
    case PROP_FROM_PORTAL:
      g_value_set_boolean (value, self->from_portal);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_appearance_class_init (OwAppearanceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ow_appearance_get_property;

  props[PROP_COLOR_SCHEME] = g_param_spec_int ("color-scheme", NULL, NULL, 0, 2, 0,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  props[PROP_FROM_PORTAL] = g_param_spec_boolean ("from-portal", NULL, NULL, FALSE,
                                                  G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ow_appearance_init (OwAppearance *self)
{
  self->cancellable = g_cancellable_new ();
  g_dbus_proxy_new_for_bus (G_BUS_TYPE_SESSION,
                            G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION,
                            NULL, PORTAL_NAME, PORTAL_PATH, PORTAL_IFACE, self->cancellable, on_proxy_cb, self);
}

OwAppearance *
ow_appearance_get_default (void)
{
  static OwAppearance *instance;

  if (instance == NULL)
    instance = g_object_new (OW_TYPE_APPEARANCE, NULL);
  return instance;
}

OwColorScheme
ow_appearance_get_color_scheme (OwAppearance *self)
{
  g_return_val_if_fail (OW_IS_APPEARANCE (self), OW_COLOR_SCHEME_DEFAULT);
  return self->scheme;
}

gboolean
ow_appearance_get_from_portal (OwAppearance *self)
{
  g_return_val_if_fail (OW_IS_APPEARANCE (self), FALSE);
  return self->from_portal;
}
