/* ow-settings-models-page.h: Settings ▸ Models & Keys.
 *
 * Where new sessions' model comes from (the default model), every
 * provider of the catalog with where its key comes from — paste, test and
 * remove a key; a local server's address — and the models with their own
 * settings (the per-model settings dialog).
 */
#pragma once

#include <adwaita.h>

#include "core/ow-context.h"
#include "ow-provider-list.h"

G_BEGIN_DECLS

#define OW_TYPE_SETTINGS_MODELS_PAGE (ow_settings_models_page_get_type ())
G_DECLARE_FINAL_TYPE (OwSettingsModelsPage, ow_settings_models_page, OW, SETTINGS_MODELS_PAGE, AdwPreferencesPage)

/* @secrets: where keys are saved (NULL: none can be). */
GtkWidget      *ow_settings_models_page_new            (OwContext     *ctx,
                                                        OwSecretStore *secrets);
OwProviderList *ow_settings_models_page_get_providers  (OwSettingsModelsPage *self);
/* The models the page offers as default, as shown (a GtkStringList). */
GListModel     *ow_settings_models_page_get_models     (OwSettingsModelsPage *self);
/* Opens @model_id's settings dialog and returns it. */
GtkWindow      *ow_settings_models_page_open_settings  (OwSettingsModelsPage *self,
                                                        const char           *model_id);

/* The models worth offering: the default first, then those with saved
 * settings and the recommended model of each configured provider, sorted,
 * without repeats. Pure: tested on its own. */
GStrv           ow_settings_models_collect             (const char         *current_default,
                                                        const char *const  *saved,
                                                        const char *const  *recommended);

G_END_DECLS
