/* ow-appearance.h: Light, Dark, or as the system says.
 *
 * The choice is the config key desktop.color_scheme ("system", "light",
 * "dark"; absent is "system"). AdwStyleManager applies it; with "system"
 * it follows the desktop's dark-style preference (the Settings portal's
 * org.freedesktop.appearance color-scheme) by itself.
 */
#pragma once

#include <gtk/gtk.h>

#include "core/ow-context.h"

G_BEGIN_DECLS

#define OW_APPEARANCE_KEY "desktop.color_scheme"

typedef enum {
  OW_APPEARANCE_SYSTEM = 0,
  OW_APPEARANCE_LIGHT  = 1,
  OW_APPEARANCE_DARK   = 2,
} OwAppearance;

/* "light" and "dark" as themselves; anything else is the system's. */
OwAppearance  ow_appearance_from_string (const char *value);
const char   *ow_appearance_to_string   (OwAppearance appearance);
/* The choice in @ctx's config. */
OwAppearance  ow_appearance_get         (OwContext *ctx);
/* Sets the process's AdwStyleManager (libadwaita must be initialised). */
void          ow_appearance_apply       (OwAppearance appearance);

G_END_DECLS
