/* ow-config.h: settings from config.toml.
 *
 * The machine's config.toml (in the config folder) holds the settings a
 * person edits: the default model, approval mode, attendance, policy rules,
 * sandbox choices, per-provider overrides ([providers.<id>] base_url,
 * wire), the folder sessions without one work in (scratch_dir) and the
 * desktop app's own choices ([desktop] run_in_background). A project may
 * carry .openworker/config.toml, which can narrow what the machine allows
 * but never widen it: it may pick a model, lower the iteration ceiling,
 * choose a stricter approval mode and add deny rules; everything else in
 * it is ignored (and listed, so a person can see why).
 *
 * Known keys are checked when loading; a wrong type or value fails with the
 * file, the key and what is allowed. Unknown keys are kept and ignored.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _OwConfig OwConfig;

/* Loads @machine_path (absent file = empty) and, when given, @project_path
 * (absent = none). */
OwConfig    *ow_config_load          (const char *machine_path, const char *project_path, GError **error);
/* A config with nothing set (--isolated runs). */
OwConfig    *ow_config_new_empty     (void);
OwConfig    *ow_config_ref           (OwConfig *config);
void         ow_config_unref         (OwConfig *config);

/* Dotted keys ("providers.openai.base_url"). NULL / FALSE when unset. */
const char  *ow_config_get_string    (OwConfig *config, const char *key);
gboolean     ow_config_get_int       (OwConfig *config, const char *key, gint64 *out);
gboolean     ow_config_get_bool      (OwConfig *config, const char *key, gboolean *out);
/* A newly allocated NULL-terminated list of the strings in an array; NULL when unset. */
char       **ow_config_get_strv      (OwConfig *config, const char *key);
JsonObject  *ow_config_get_table     (OwConfig *config, const char *key);
/* An array as it is in the file ([[sandbox_credentials]] tables, …);
 * borrowed, NULL when unset. */
JsonArray   *ow_config_get_array     (OwConfig *config, const char *key);
/* The project config's [policy] deny rules (NULL-terminated; the machine's
 * own are under "policy.deny"). */
const char *const *ow_config_get_project_deny (OwConfig *config);
/* Settings of the project config that were ignored because they would widen. */
const char *const *ow_config_get_ignored_project_keys (OwConfig *config);

/* Adds @value to the string list @key (top level) of the config file at
 * @path, unless it is there already, and writes the file back atomically
 * with its mode kept (0600 for a new file). Comments in the file are not
 * kept: the file is rewritten from its parsed form. */
gboolean     ow_config_file_add_to_list (const char *path, const char *key, const char *value, GError **error);

/* Sets the dotted @key ("sandbox_network_profile", "providers.ollama.base_url")
 * in the config file at @path to a copy of @value, creating tables on the
 * way; a %NULL @value removes the key. The result is checked as loading
 * checks it — a wrong type or value fails and the file is left as it was —
 * then written back atomically with its mode kept (0600 for a new file).
 * Like ow_config_file_add_to_list(), comments in the file are not kept. */
gboolean     ow_config_file_set         (const char *path, const char *key, JsonNode *value, GError **error);

/* Approval modes, strictest first (the order is used to decide whether a
 * project narrows). Aliases "interactive" (= ask) and "auto"
 * (= bypass-approvals) are accepted; returns the canonical name or NULL. */
const char  *ow_approval_mode_canonical (const char *mode);
/* 0 for discuss … 5 for dangerously-bypass-approvals; -1 if unknown. */
int          ow_approval_mode_rank      (const char *mode);
/* The approval mode a session or a run starts in, one rule for every
 * surface: @requested (a flag, a request's member) when given, else
 * @config's approval_mode (the machine's, narrowed by the project's; NULL
 * @config: none), else "ask". There is no environment variable for it.
 * Returns the canonical name, or NULL when the chosen value names no mode. */
const char  *ow_approval_mode_effective (const char *requested, OwConfig *config);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwConfig, ow_config_unref)

G_END_DECLS
