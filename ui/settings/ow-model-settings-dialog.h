/* ow-model-settings-dialog.h: one model's settings (model_config.json).
 *
 * As the seeds' "Model settings" describe: the context size a local model
 * is loaded with, the longest reply, thinking on or off, the reasoning
 * effort, sampling (temperature, top p), when the conversation is
 * compacted (10–95 % of the window) and whether new sessions start with
 * this model. A setting left at its default is not saved, so the model's
 * recommendation or the provider's own default applies. Saving goes
 * through ow_model_config_set(), which checks every value.
 */
#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define OW_TYPE_MODEL_SETTINGS_DIALOG (ow_model_settings_dialog_get_type ())
G_DECLARE_FINAL_TYPE (OwModelSettingsDialog, ow_model_settings_dialog, OW, MODEL_SETTINGS_DIALOG, GtkWindow)

/* @config_path: model_config.json; @model_id: "provider:model". The
 * dialog reads the saved settings when it opens and emits ::saved after
 * Save or Reset wrote the file. */
OwModelSettingsDialog *ow_model_settings_dialog_new          (GtkWindow  *parent,
                                                              const char *config_path,
                                                              const char *model_id);
const char            *ow_model_settings_dialog_get_model_id (OwModelSettingsDialog *self);

/* The values the fields hold, as ow_model_config_set() takes them (a null
 * member removes that setting). Transfer full. */
JsonObject            *ow_model_settings_dialog_dup_values   (OwModelSettingsDialog *self);

/* "80 %" for 0.8, as the compaction scale shows it. */
char                  *ow_model_settings_format_percent      (double fraction);

G_END_DECLS
