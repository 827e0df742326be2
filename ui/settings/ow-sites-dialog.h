/* ow-sites-dialog.h: "Choose sites…" for the sandbox's allow list.
 *
 * The sites of the catalogue (code hosting, package registries, search
 * APIs), each with a tick box, and sites of one's own as exact host:port
 * entries. Saving emits ::saved with the whole list, in the form
 * sandbox_network_hosts keeps it; the dialog writes nothing itself.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define OW_TYPE_SITES_DIALOG (ow_sites_dialog_get_type ())
G_DECLARE_FINAL_TYPE (OwSitesDialog, ow_sites_dialog, OW, SITES_DIALOG, GtkWindow)

/* @hosts: the current sandbox_network_hosts (may be NULL). */
OwSitesDialog *ow_sites_dialog_new       (GtkWindow         *parent,
                                          const char *const *hosts);
/* The list the dialog would save now. Transfer full. */
GStrv          ow_sites_dialog_dup_hosts (OwSitesDialog *self);

/* The list from ticked catalogue sites (by id) and one's own entries:
 * catalogue hosts first, in catalogue order, then one's own, without
 * repeats. Pure: tested on its own. */
GStrv          ow_sites_merge            (const char *const *ticked_ids,
                                          const char *const *own);

G_END_DECLS
