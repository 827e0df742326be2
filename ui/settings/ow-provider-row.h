/* ow-provider-row.h: one provider in Settings ▸ Models & Keys.
 *
 * Its title and where its key comes from; opened, a field to paste a key
 * and Save, Test and Remove buttons (the row.save-key, row.test and
 * row.remove-key actions), and for a local server its address
 * (row.save-address). What the last action said shows under the buttons.
 * An AdwPreferencesRow titled with the provider, so Settings' search finds
 * it.
 */
#pragma once

#include <adwaita.h>

#include "ow-provider-list.h"

G_BEGIN_DECLS

#define OW_TYPE_PROVIDER_ROW (ow_provider_row_get_type ())
G_DECLARE_FINAL_TYPE (OwProviderRow, ow_provider_row, OW, PROVIDER_ROW, AdwPreferencesRow)

GtkWidget      *ow_provider_row_new      (OwProviderList *list,
                                          OwProviderItem *item);
OwProviderItem *ow_provider_row_get_item (OwProviderRow  *self);
/* Opens or closes the row's details. */
void            ow_provider_row_set_expanded (OwProviderRow *self,
                                              gboolean       expanded);

G_END_DECLS
