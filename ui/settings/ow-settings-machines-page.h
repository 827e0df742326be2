/* ow-settings-machines-page.h: Settings ▸ Machines.
 *
 * This machine — its name, system, OpenWorker version, where its settings
 * and state live, where its keys are kept and which sandbox it uses — and
 * its identity. The keypair that is a machine's permanent identity, and
 * the list of machines enrolled with this one ("Add a machine…"), arrive
 * with remote machines; until then the page says so rather than showing
 * controls that do nothing.
 */
#pragma once

#include <adwaita.h>

#include "core/ow-context.h"

G_BEGIN_DECLS

#define OW_TYPE_SETTINGS_MACHINES_PAGE (ow_settings_machines_page_get_type ())
G_DECLARE_FINAL_TYPE (OwSettingsMachinesPage, ow_settings_machines_page, OW, SETTINGS_MACHINES_PAGE, AdwPreferencesPage)

/* @secrets: the key store to name (may be NULL). */
GtkWidget *ow_settings_machines_page_new (OwContext     *ctx,
                                          OwSecretStore *secrets);

G_END_DECLS
