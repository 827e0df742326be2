/* ow-settings-window.h: the Settings window.
 *
 * An AdwPreferencesWindow of pages — Models & Keys ("models"), Sandbox
 * ("sandbox"), Approvals ("approvals"), Connectors ("connectors"),
 * Machines ("machines") and General
 * ("general"), each an AdwPreferencesPage of groups — over the
 * application's engine: its OwContext, secret store and session host.
 * Its search finds the rows of every page by title and subtitle. The
 * "page" property (and the settings.page action) says which page shows.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

typedef struct _OwApplication OwApplication;

#define OW_TYPE_SETTINGS_WINDOW (ow_settings_window_get_type ())
G_DECLARE_FINAL_TYPE (OwSettingsWindow, ow_settings_window, OW, SETTINGS_WINDOW, AdwPreferencesWindow)

/**
 * ow_settings_window_new:
 * @app: the application, whose context, secret store and session host
 *   the pages work on
 * @page: (nullable): "models", "sandbox", "approvals", "connectors", "machines" or
 *   "general"; %NULL for the first
 *
 * Returns: (transfer none): a new Settings window, not yet presented
 */
GtkWindow  *ow_settings_window_new      (OwApplication *app,
                                         const char    *page);

const char *ow_settings_window_get_page (OwSettingsWindow *self);
void        ow_settings_window_set_page (OwSettingsWindow *self,
                                         const char       *page);
/* The page widget named @page (for tests). */
GtkWidget  *ow_settings_window_get_page_widget (OwSettingsWindow *self,
                                                const char       *page);

G_END_DECLS
