/* ow-settings-general-page.h: Settings ▸ General.
 *
 * Where sessions without a folder of their own work (the scratch folder,
 * config.toml scratch_dir), whether OpenWorker keeps running in the
 * background when its window closes ([desktop] run_in_background), whether
 * it starts at login (through OwAutostart: an XDG autostart entry here),
 * and the appearance: System (the desktop's light or dark style), Light or
 * Dark.
 */
#pragma once

#include <adwaita.h>

#include "core/ow-context.h"
#include "store/ow-autostart.h"

G_BEGIN_DECLS

#define OW_TYPE_SETTINGS_GENERAL_PAGE (ow_settings_general_page_get_type ())
G_DECLARE_FINAL_TYPE (OwSettingsGeneralPage, ow_settings_general_page, OW, SETTINGS_GENERAL_PAGE, AdwPreferencesPage)

/* @autostart: this system's start-at-login, or NULL when there is none. */
GtkWidget *ow_settings_general_page_new (OwContext   *ctx,
                                         OwAutostart *autostart);

/* Whether the desktop app keeps running with no window ([desktop]
 * run_in_background; off unless set). */
gboolean   ow_settings_get_run_in_background (OwContext *ctx);

/* A path for people: "~/…" under the home folder. Pure. */
char      *ow_settings_display_path (const char *path);

G_END_DECLS
