/* ow-resources.h: the engine's compiled-in GResource. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Registers the engine's resources (idempotent, thread-safe). Call before
 * any g_resources_lookup_data() under /com/openworker/engine/. */
void    ow_resources_ensure (void);

/* Looks up @name under /com/openworker/engine/ (registering first). */
GBytes *ow_resources_lookup (const char *name, GError **error);

G_END_DECLS
