/* ow-appearance.h: light or dark, as the desktop says.
 *
 * Without libadwaita, GTK 4.8 does not follow the desktop's dark-style
 * preference by itself. The preference is org.freedesktop.appearance
 * color-scheme in the Settings portal (0 no preference, 1 dark, 2 light);
 * this object reads it, listens for changes and sets GtkSettings'
 * gtk-application-prefer-dark-theme to match. Where no portal answers,
 * the theme is left as the desktop set it.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define OW_TYPE_APPEARANCE (ow_appearance_get_type ())
G_DECLARE_FINAL_TYPE (OwAppearance, ow_appearance, OW, APPEARANCE, GObject)

typedef enum {
  OW_COLOR_SCHEME_DEFAULT = 0,   /* no preference (or no portal) */
  OW_COLOR_SCHEME_DARK    = 1,
  OW_COLOR_SCHEME_LIGHT   = 2,
} OwColorScheme;

/* The process's one follower; the first call starts following (call it
 * once GTK is initialised). Transfer none. */
OwAppearance *ow_appearance_get_default      (void);
OwColorScheme ow_appearance_get_color_scheme (OwAppearance *self);
/* Whether the portal answered at all. */
gboolean      ow_appearance_get_from_portal  (OwAppearance *self);
/* "Dark, following the system", … for the General page. */
char         *ow_appearance_describe         (OwColorScheme scheme,
                                              gboolean      from_portal);
/* The portal's value, unwrapped from however many variants it comes in. */
OwColorScheme ow_appearance_scheme_from_variant (GVariant *value);

G_END_DECLS
