/* ow-model-config.h: per-model settings (model_config.json).
 *
 * Each model may carry its own settings, keyed by its full id:
 *   { "ollama:qwen3:8b": { "context_size": 65536, "max_output_tokens": 16000,
 *       "thinking": true, "reasoning_effort": "high", "temperature": 1.0,
 *       "top_p": 0.95, "compaction_threshold_pct": 0.8, "default": true } }
 * The file lives in the config folder beside config.toml; the settings
 * screen and the API write it, `openworker run` reads it (flags on the run
 * win). Only one model may be the default.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct {
  gint64  context_size;              /* 0 = unset */
  gint64  max_output_tokens;         /* 0 = unset */
  int     thinking;                  /* -1 unset, 0 off, 1 on */
  char   *reasoning_effort;          /* NULL = unset */
  double  temperature;               /* < 0 unset */
  double  top_p;                     /* < 0 unset */
  double  compaction_threshold_pct;  /* < 0 unset */
  gboolean is_default;
} OwModelSettings;

void ow_model_settings_init  (OwModelSettings *settings);
void ow_model_settings_clear (OwModelSettings *settings);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (OwModelSettings, ow_model_settings_clear)

typedef struct _OwModelConfig OwModelConfig;

/* Loads @path; an absent file is an empty config. Every entry is checked:
 * a wrong type or value fails with the file, the model and the setting. */
OwModelConfig *ow_model_config_load          (const char *path, GError **error);
OwModelConfig *ow_model_config_new_empty     (void);
void           ow_model_config_free          (OwModelConfig *config);

/* The saved settings of @model_id; FALSE (and unset settings) when none. */
gboolean       ow_model_config_lookup        (OwModelConfig *config, const char *model_id, OwModelSettings *out);
/* The model marked default, or NULL. */
const char    *ow_model_config_default_model (OwModelConfig *config);

/* Sets values for @model_id (a null value removes that setting; "default":
 * true clears it on every other model) and saves atomically. */
gboolean       ow_model_config_set           (OwModelConfig *config, const char *model_id, JsonObject *values,
                                              GError **error);
/* Removes every setting of @model_id and saves. */
gboolean       ow_model_config_remove        (OwModelConfig *config, const char *model_id, GError **error);
/* The whole document (borrowed). */
JsonObject    *ow_model_config_get_root      (OwModelConfig *config);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwModelConfig, ow_model_config_free)

G_END_DECLS
