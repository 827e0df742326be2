/* ow-credential-dialog.h: "Add… ▸ A file or folder" for the sandbox.
 *
 * Anything else under the home folder a sandbox should have a copy of: a
 * file or a folder, labelled credential (a secret inside) or configuration,
 * with the sites its tool needs and, if the tool finds it through one, the
 * variable that points at the copy. The entry is checked by the engine
 * (ow_credentials_from_config()) before ::added hands it over as a
 * [[sandbox_credentials]] table.
 */
#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define OW_TYPE_CREDENTIAL_DIALOG (ow_credential_dialog_get_type ())
G_DECLARE_FINAL_TYPE (OwCredentialDialog, ow_credential_dialog, OW, CREDENTIAL_DIALOG, GtkWindow)

OwCredentialDialog *ow_credential_dialog_new (GtkWindow *parent);

/* Sets the path field (what the file chooser does), for tests. */
void                ow_credential_dialog_set_path (OwCredentialDialog *self,
                                                   const char         *path);

/* The table for the fields: {name, path ("~/…"), kind, hosts, env?,
 * enabled}. Fails with a sentence for a missing name or path. Pure. */
JsonObject         *ow_credential_table_build (const char  *name,
                                               const char  *path,
                                               gboolean     secret,
                                               const char  *hosts_text,
                                               const char  *env,
                                               GError     **error);

G_END_DECLS
