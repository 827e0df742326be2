/* ow-settings-window-private.h: building the Settings window from the
 * engine's services directly (ow_settings_window_new() takes them from the
 * OwApplication); tests use it to give each window its own context. */
#pragma once

#include "core/ow-context.h"
#include "core/ow-session-host.h"
#include "ow-settings-window.h"
#include "store/ow-autostart.h"

G_BEGIN_DECLS

/* @secrets, @autostart may be NULL; without @host (whose MCP servers
 * Connectors shows and changes) that page is left out. */
GtkWindow *ow_settings_window_new_for (GtkApplication *application,
                                       OwContext      *ctx,
                                       OwSecretStore  *secrets,
                                       OwAutostart    *autostart,
                                       OwSessionHost  *host,
                                       const char     *page);

/* The id the desktop entry, the icons and the autostart entry share (as
 * ow-application.h has it). */
#ifndef OW_APPLICATION_ID
#define OW_APPLICATION_ID "com.openworker.OpenWorker"
#endif

/* This system's start-at-login for the desktop app, or NULL. Transfer full. */
OwAutostart *ow_settings_default_autostart (void);

G_END_DECLS
