/* ow-settings-connectors-page.h: Settings ▸ Connectors.
 *
 * The machine's MCP servers (mcp.json in the settings folder), as the
 * session host runs them: one expander row per server with its status
 * (Connected, Starting, Error with the server's last error, Disabled), a
 * switch that enables it, Restart, Remove (asked first), and its tools
 * (name, title, whether it asks before running) when expanded. "Add a
 * Server…" takes a name and either a command line or a URL. Every change
 * is written through ow-mcp-edit (checked as the engine reads the file)
 * and applied at once through ow_session_host_reload_mcp(), so sessions
 * gain or lose the tools from their next model call.
 */
#pragma once

#include <adwaita.h>

#include "core/ow-session-host.h"

G_BEGIN_DECLS

#define OW_TYPE_SETTINGS_CONNECTORS_PAGE (ow_settings_connectors_page_get_type ())
G_DECLARE_FINAL_TYPE (OwSettingsConnectorsPage, ow_settings_connectors_page, OW, SETTINGS_CONNECTORS_PAGE,
                      AdwPreferencesPage)

GtkWidget  *ow_settings_connectors_page_new (OwSessionHost *host);

/* The entry "Add a Server…" saves for @target, a command line or an
 * http(s) URL: {"url": …} or {"command": argv[0], "args": [argv[1…]]}.
 * NULL with a sentence when @target is empty or cannot be split. */
JsonObject *ow_connector_entry_for_target   (const char *target, GError **error);

/* The status word a row shows. */
const char *ow_connector_status_text        (gboolean enabled, gboolean unusable, int status);

G_END_DECLS
