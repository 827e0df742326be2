/* ow-settings-io.h: the settings screens' file writes, off the main loop.
 *
 * Settings are files (config.toml, model_config.json, an autostart entry)
 * and the keyring; writing them touches the disk (with an fsync), so each
 * write runs in a worker thread and reports back on the main loop. A
 * config.toml write is followed by ow_context_reload_config(), so the
 * engine, and every page listening to ::config-changed, sees the new
 * value at once.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "core/ow-context.h"

G_BEGIN_DECLS

/* Registers the settings' GResource (templates, style sheet, icons) once. */
void     ow_settings_ensure_resources    (void);

/* Blocking work for a worker thread: returns FALSE with @error on failure. */
typedef gboolean (*OwSettingsIoFunc) (gpointer data, GCancellable *cancellable, GError **error);

/* Runs @func (@data, freed with @destroy afterwards) in a worker thread. */
void     ow_settings_io_run_async        (gpointer             source,
                                          OwSettingsIoFunc     func,
                                          gpointer             data,
                                          GDestroyNotify       destroy,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
gboolean ow_settings_io_run_finish       (GAsyncResult        *result,
                                          GError             **error);
/* How many writes are under way: started, and their callback not yet run
 * (for a config.toml write, the context not yet reloaded). */
guint    ow_settings_io_get_in_flight    (void);

/* Sets @key in the machine's config.toml to @value (transfer none; NULL
 * removes the key; see ow_config_file_set()), then reloads the context's
 * settings. */
void     ow_settings_config_set_async    (OwContext           *ctx,
                                          const char          *key,
                                          JsonNode            *value,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
gboolean ow_settings_config_set_finish   (OwContext           *ctx,
                                          GAsyncResult        *result,
                                          GError             **error);

/* Value helpers for the above (transfer full: free with json_node_unref()). */
JsonNode *ow_settings_node_string        (const char          *value);
JsonNode *ow_settings_node_bool          (gboolean             value);
JsonNode *ow_settings_node_strv          (const char *const   *values);

G_END_DECLS
