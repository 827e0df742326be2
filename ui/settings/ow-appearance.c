/* ow-appearance.c: Light, Dark, or as the system says (see ow-appearance.h). */
#define G_LOG_DOMAIN "ow-appearance"

#include "config-ui.h"
#include "ow-appearance.h"

#include <adwaita.h>

OwAppearance
ow_appearance_from_string (const char *value)
{
  if (g_strcmp0 (value, "light") == 0)
    return OW_APPEARANCE_LIGHT;
  if (g_strcmp0 (value, "dark") == 0)
    return OW_APPEARANCE_DARK;
  return OW_APPEARANCE_SYSTEM;
}

const char *
ow_appearance_to_string (OwAppearance appearance)
{
  switch (appearance)
    {
    case OW_APPEARANCE_LIGHT:
      return "light";
    case OW_APPEARANCE_DARK:
      return "dark";
    case OW_APPEARANCE_SYSTEM:
    default:
      return "system";
    }
}

OwAppearance
ow_appearance_get (OwContext *ctx)
{
  g_return_val_if_fail (OW_IS_CONTEXT (ctx), OW_APPEARANCE_SYSTEM);
  return ow_appearance_from_string (ow_config_get_string (ow_context_get_config (ctx), OW_APPEARANCE_KEY));
}

void
ow_appearance_apply (OwAppearance appearance)
{
  AdwColorScheme scheme;

  switch (appearance)
    {
    case OW_APPEARANCE_LIGHT:
      scheme = ADW_COLOR_SCHEME_FORCE_LIGHT;
      break;
    case OW_APPEARANCE_DARK:
      scheme = ADW_COLOR_SCHEME_FORCE_DARK;
      break;
    case OW_APPEARANCE_SYSTEM:
    default:
      /* Light unless the desktop prefers dark. */
      scheme = ADW_COLOR_SCHEME_PREFER_LIGHT;
      break;
    }
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), scheme);
}
