/* test-settings-units.c: the settings' pure parts and file writers, no display.
 *
 *   formatting   key states, mode names, rule provenance, percentages, paths
 *   models       which models are offered, and in what order
 *   sites        "Choose sites…": the allow list from ticks and one's own entries
 *   credentials  a custom [[sandbox_credentials]] table, checked by the engine
 *   config       ow_config_file_set(): set, nest, remove, refuse a bad value
 *   context      ow_context_reload_config() and ::config-changed, the scratch folder
 *   autostart    the XDG autostart entry: written, valid, read back, removed
 *   appearance   the Light / Dark / System choice as the config keeps it
 *   tray         the item's status and the Inbox label
 */
#include <glib/gstdio.h>
#include <string.h>

#include "ow-appearance.h"
#include "ow-error.h"
#include "ow-autostart-xdg.h"
#include "ow-credential-dialog.h"
#include "ow-model-settings-dialog.h"
#include "ow-provider-list.h"
#include "ow-settings-approvals-page.h"
#include "ow-settings-connectors-page.h"
#include "ow-settings-general-page.h"
#include "ow-settings-models-page.h"
#include "ow-settings-sandbox-page.h"
#include "ow-sites-dialog.h"
#include "ow-test-utils.h"
#include "ow-tray.h"
#include "sandbox/ow-sandbox-catalogue.h"

static char *
read_text (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* ---- formatting ------------------------------------------------------------------ */

static void
test_key_state_labels (void)
{
  g_autofree char *env = ow_key_state_label (OW_KEY_STATE_ENV, "ANTHROPIC_API_KEY", NULL, FALSE, TRUE);
  g_autofree char *env_saved = ow_key_state_label (OW_KEY_STATE_ENV, "OPENAI_API_KEY", "keyring", TRUE, TRUE);
  g_autofree char *keyring = ow_key_state_label (OW_KEY_STATE_SAVED, NULL, "keyring", TRUE, TRUE);
  g_autofree char *file = ow_key_state_label (OW_KEY_STATE_SAVED, NULL, "file", TRUE, TRUE);
  g_autofree char *none = ow_key_state_label (OW_KEY_STATE_NONE, NULL, NULL, FALSE, TRUE);
  g_autofree char *optional = ow_key_state_label (OW_KEY_STATE_NONE, NULL, NULL, FALSE, FALSE);
  g_autofree char *keyless = ow_key_state_label (OW_KEY_STATE_NOT_NEEDED, NULL, NULL, FALSE, FALSE);

  g_assert_cmpstr (env, ==, "From the environment (ANTHROPIC_API_KEY)");
  g_assert_cmpstr (env_saved, ==, "From the environment (OPENAI_API_KEY), which wins over the saved key");
  g_assert_cmpstr (keyring, ==, "Saved in the keyring");
  g_assert_cmpstr (file, ==, "Saved in the sealed key file");
  g_assert_cmpstr (none, ==, "No key");
  g_assert_cmpstr (optional, ==, "No key (only if the server asks for one)");
  g_assert_cmpstr (keyless, ==, "No key needed");
  g_assert_cmpstr (ow_provider_group_title ("local"), ==, "On Your Own Hardware");
  g_assert_cmpstr (ow_provider_group_title ("reseller"), ==, "Through a Reseller");
  g_assert_cmpstr (ow_provider_group_title ("cloud"), ==, "Model Makers");
}

static void
test_modes (void)
{
  const char *const *modes = ow_default_modes ();

  /* The mode that skips safety checks is never offered as a default. */
  g_assert_false (g_strv_contains (modes, "dangerously-bypass-approvals"));
  g_assert_cmpstr (modes[0], ==, "ask");
  g_assert_true (g_strv_contains (modes, "auto-approve"));
  g_assert_true (g_strv_contains (modes, "bypass-approvals"));
  g_assert_true (g_strv_contains (modes, "plan"));
  g_assert_true (g_strv_contains (modes, "discuss"));
  for (guint i = 0; modes[i] != NULL; i++)
    {
      g_assert_cmpstr (ow_mode_title (modes[i]), !=, modes[i]);
      g_assert_cmpstr (ow_mode_blurb (modes[i]), !=, "");
    }
}

static void
test_rule_provenance (void)
{
  OwStandingRule rule = {
    .id = 3,
    .rule = (char *) "run_shell:git status",
    .decision = (char *) "allow",
    .created_at = (char *) "2025-11-29T13:40:00.000Z",
    .created_by = (char *) "person",
    .session_id = (char *) "1a2b3c4d5e6f7a8b",
    .reason = NULL,
  };
  g_autoptr(GDateTime) now = g_date_time_new_utc (2025, 12, 1, 0, 0, 0);
  g_autoptr(GDateTime) later = g_date_time_new_utc (2026, 2, 1, 0, 0, 0);
  g_autofree char *p = ow_standing_rule_provenance (&rule);
  g_autofree char *state = ow_standing_rule_state (&rule, now);

  g_assert_true (g_str_has_prefix (p, "Made by person in session 1a2b3c4d, "));
  g_assert_nonnull (strstr (p, "2025"));
  g_assert_cmpstr (state, ==, "In force");
  g_assert_true (ow_standing_rule_in_force (&rule, now));

  rule.reason = (char *) "routine";
  rule.expires_at = (char *) "2026-01-01T00:00:00Z";
  {
    g_autofree char *with = ow_standing_rule_provenance (&rule);
    g_autofree char *expired = ow_standing_rule_state (&rule, later);

    g_assert_nonnull (strstr (with, "— “routine”"));
    g_assert_nonnull (strstr (with, "; until "));
    g_assert_true (ow_standing_rule_in_force (&rule, now));
    g_assert_false (ow_standing_rule_in_force (&rule, later));
    g_assert_true (g_str_has_prefix (expired, "Expired "));
  }
  rule.revoked_at = (char *) "2025-11-30T08:00:00Z";
  {
    g_autofree char *revoked = ow_standing_rule_state (&rule, now);
    g_assert_true (g_str_has_prefix (revoked, "Revoked "));
    g_assert_false (ow_standing_rule_in_force (&rule, now));
  }
  rule.session_id = NULL;
  rule.reason = NULL;
  rule.expires_at = NULL;
  {
    g_autofree char *plain = ow_standing_rule_provenance (&rule);
    g_assert_true (g_str_has_prefix (plain, "Made by person, "));
  }
}

static void
test_percent_and_paths (void)
{
  g_autofree char *eighty = ow_model_settings_format_percent (0.8);
  g_autofree char *ten = ow_model_settings_format_percent (0.1);
  g_autofree char *in_home = g_build_filename (g_get_home_dir (), "OpenWorker", NULL);
  g_autofree char *shown = ow_settings_display_path (in_home);
  g_autofree char *home = ow_settings_display_path (g_get_home_dir ());
  g_autofree char *elsewhere = ow_settings_display_path ("/srv/work");

  g_assert_cmpstr (eighty, ==, "80 %");
  g_assert_cmpstr (ten, ==, "10 %");
  g_assert_cmpstr (shown, ==, "~/OpenWorker");
  g_assert_cmpstr (home, ==, "~");
  g_assert_cmpstr (elsewhere, ==, "/srv/work");
}

/* ---- models ---------------------------------------------------------------------- */

static void
test_models_collect (void)
{
  const char *saved[] = { "ollama:qwen3:8b", "anthropic:claude-sonnet-4-6", NULL };
  const char *recommended[] = { "openai:gpt-5.6-sol", "anthropic:claude-sonnet-4-6", "", NULL };
  g_auto(GStrv) models = ow_settings_models_collect ("vllm:nvidia/Nemotron", saved, recommended);
  g_auto(GStrv) none = ow_settings_models_collect (NULL, NULL, NULL);
  g_auto(GStrv) dup_default = ow_settings_models_collect ("ollama:qwen3:8b", saved, NULL);
  const char *want[] = { "vllm:nvidia/Nemotron", "anthropic:claude-sonnet-4-6", "ollama:qwen3:8b",
                         "openai:gpt-5.6-sol", NULL };

  /* The default first; the rest sorted, without repeats or blanks. */
  g_assert_true (g_strv_equal ((const char *const *) models, want));
  g_assert_cmpuint (g_strv_length (none), ==, 0);
  g_assert_cmpuint (g_strv_length (dup_default), ==, 2);
  g_assert_cmpstr (dup_default[0], ==, "ollama:qwen3:8b");
}

/* ---- sites ----------------------------------------------------------------------- */

static void
test_sites_merge (void)
{
  const char *ticked[] = { "npm", "github", NULL };
  const char *own[] = { "example.com:443", "registry.npmjs.org:443", NULL };
  g_auto(GStrv) hosts = ow_sites_merge (ticked, own);
  gsize n;
  const OwSiteChoice *sites = ow_site_catalogue (&n);

  /* Catalogue order (GitHub before npm), own entries after, no repeats. */
  g_assert_cmpstr (hosts[0], ==, "github.com:443");
  g_assert_true (g_strv_contains ((const char *const *) hosts, "registry.npmjs.org:443"));
  g_assert_cmpstr (hosts[g_strv_length (hosts) - 1], ==, "example.com:443");
  {
    guint count = 0;
    for (guint i = 0; hosts[i] != NULL; i++)
      count += g_str_equal (hosts[i], "registry.npmjs.org:443");
    g_assert_cmpuint (count, ==, 1);
  }
  /* Every catalogue entry is exact host:port: no wildcard enters this way. */
  for (gsize i = 0; i < n; i++)
    for (guint h = 0; sites[i].hosts[h] != NULL; h++)
      {
        g_assert_null (strchr (sites[i].hosts[h], '*'));
        g_assert_nonnull (strchr (sites[i].hosts[h], ':'));
      }
  g_assert_true (ow_site_choice_in_list (&sites[0], (const char *const *) hosts));
  g_assert_false (ow_site_choice_in_list (&sites[0], own));
}

/* ---- credentials ------------------------------------------------------------------ */

static void
test_credential_table (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) table = ow_credential_table_build ("pypirc", "~/.pypirc", TRUE,
                                                           "upload.pypi.org:443, pypi.org:443", "PYPIRC", &error);
  JsonArray *hosts;

  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (table, "name"), ==, "pypirc");
  g_assert_cmpstr (json_object_get_string_member (table, "path"), ==, "~/.pypirc");
  g_assert_cmpstr (json_object_get_string_member (table, "kind"), ==, "credential");
  g_assert_cmpstr (json_object_get_string_member (table, "env"), ==, "PYPIRC");
  g_assert_true (json_object_get_boolean_member (table, "enabled"));
  hosts = json_object_get_array_member (table, "hosts");
  g_assert_cmpuint (json_array_get_length (hosts), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (hosts, 1), ==, "pypi.org:443");

  g_assert_null (ow_credential_table_build ("", "~/.x", TRUE, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ow_credential_table_build ("x", NULL, FALSE, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

/* ---- config.toml ------------------------------------------------------------------ */

static void
test_config_file_set (void)
{
  g_autofree char *dir = ow_test_make_tmpdir ("ow-cfg");
  g_autofree char *path = g_build_filename (dir, "config.toml", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) mode = json_node_init_string (json_node_alloc (), "plan");
  g_autoptr(JsonNode) url = json_node_init_string (json_node_alloc (), "http://box:11434");
  g_autoptr(JsonNode) bad = json_node_init_string (json_node_alloc (), "maybe");
  g_autoptr(JsonNode) yes = json_node_init_boolean (json_node_alloc (), TRUE);
  g_autofree char *text = NULL;
  GStatBuf st;

  /* A new file, 0600, with the other settings kept as they come. */
  g_assert_true (g_file_set_contents (path, "model = \"openai:gpt-5\"\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0640), ==, 0);
  g_assert_true (ow_config_file_set (path, "approval_mode", mode, &error));
  g_assert_no_error (error);
  g_assert_true (ow_config_file_set (path, "providers.ollama.base_url", url, &error));
  g_assert_true (ow_config_file_set (path, "desktop.run_in_background", yes, &error));
  g_assert_no_error (error);
  text = read_text (path);
  g_assert_nonnull (strstr (text, "model = \"openai:gpt-5\""));
  g_assert_nonnull (strstr (text, "approval_mode = \"plan\""));
  g_assert_nonnull (strstr (text, "[providers.ollama]"));
  g_assert_nonnull (strstr (text, "base_url = \"http://box:11434\""));
  g_assert_nonnull (strstr (text, "run_in_background = true"));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);

  /* A value loading would refuse is refused, and the file stays as it was. */
  g_assert_false (ow_config_file_set (path, "sandbox_network_profile", bad, &error));
  g_assert_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "allowlist, open"));
  g_clear_error (&error);
  {
    g_autofree char *again = read_text (path);
    g_assert_cmpstr (again, ==, text);
  }
  g_assert_false (ow_config_file_set (path, "approval_mode", yes, &error));
  g_assert_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID);
  g_clear_error (&error);

  /* Removing a key, and a key that is not there. */
  g_assert_true (ow_config_file_set (path, "providers.ollama.base_url", NULL, &error));
  g_assert_true (ow_config_file_set (path, "nothing.here", NULL, &error));
  g_assert_no_error (error);
  {
    g_autofree char *after = read_text (path);
    g_assert_null (strstr (after, "base_url"));
    g_assert_nonnull (strstr (after, "approval_mode = \"plan\""));
  }
  g_unlink (path);
  g_rmdir (dir);
}

static void
on_changed_cb (OwContext *ctx, gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
test_context_reload (void)
{
  g_autofree char *dir = ow_test_make_tmpdir ("ow-ctx");
  g_autoptr(OwPaths) paths = ow_paths_new_under (dir);
  OwContextOptions options = { .paths = paths };
  g_autoptr(GError) error = NULL;
  g_autoptr(OwContext) ctx = ow_context_new (&options, &error);
  g_autofree char *path = NULL;
  g_autofree char *scratch = NULL;
  g_autofree char *custom = NULL;
  g_autoptr(JsonNode) where = json_node_init_string (json_node_alloc (), "~/Work/Scratch");
  g_autoptr(JsonNode) mode = json_node_init_string (json_node_alloc (), "auto-approve");
  guint changed = 0;

  g_assert_no_error (error);
  path = ow_context_dup_config_path (ctx);
  g_assert_true (g_str_has_prefix (path, paths->config_dir));
  scratch = ow_context_dup_scratch_dir (ctx);
  g_assert_cmpstr (scratch, ==, paths->scratch_dir);
  g_signal_connect (ctx, "config-changed", G_CALLBACK (on_changed_cb), &changed);

  g_assert_true (ow_config_file_set (path, "scratch_dir", where, &error));
  g_assert_true (ow_config_file_set (path, "approval_mode", mode, &error));
  /* Nothing is read until asked. */
  g_assert_null (ow_config_get_string (ow_context_get_config (ctx), "approval_mode"));
  g_assert_true (ow_context_reload_config (ctx, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_cmpstr (ow_config_get_string (ow_context_get_config (ctx), "approval_mode"), ==, "auto-approve");
  custom = ow_context_dup_scratch_dir (ctx);
  {
    g_autofree char *want = g_build_filename (g_get_home_dir (), "Work", "Scratch", NULL);
    g_assert_cmpstr (custom, ==, want);
  }

  /* A file broken by hand: the settings in use are kept, and it is said. */
  g_assert_true (g_file_set_contents (path, "approval_mode = [\n", -1, NULL));
  g_assert_false (ow_context_reload_config (ctx, &error));
  g_assert_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_cmpstr (ow_config_get_string (ow_context_get_config (ctx), "approval_mode"), ==, "auto-approve");
}

/* ---- autostart -------------------------------------------------------------------- */

static void
test_autostart_quote (void)
{
  g_autofree char *plain = ow_autostart_xdg_quote_arg ("/usr/bin/openworker-desktop");
  g_autofree char *space = ow_autostart_xdg_quote_arg ("/opt/Open Worker/bin/app");
  g_autofree char *special = ow_autostart_xdg_quote_arg ("a\"b$c`d\\e");
  g_autofree char *percent = ow_autostart_xdg_quote_arg ("100%");
  g_autofree char *empty = ow_autostart_xdg_quote_arg ("");

  g_assert_cmpstr (plain, ==, "/usr/bin/openworker-desktop");
  g_assert_cmpstr (space, ==, "\"/opt/Open Worker/bin/app\"");
  g_assert_cmpstr (special, ==, "\"a\\\"b\\$c\\`d\\\\e\"");
  g_assert_cmpstr (percent, ==, "\"100%%\"");
  g_assert_cmpstr (empty, ==, "\"\"");
}

static void
test_autostart_entry (void)
{
  g_autofree char *dir = ow_test_make_tmpdir ("ow-autostart");
  g_autofree char *folder = g_build_filename (dir, "autostart", NULL);
  const char *argv[] = { "/opt/Open Worker/openworker-desktop", "--background", NULL };
  OwAutostartSpec spec = { "com.openworker.OpenWorker", "OpenWorker", argv, "com.openworker.OpenWorker" };
  g_autoptr(OwAutostart) autostart = ow_autostart_xdg_new (&spec, folder);
  const char *path = ow_autostart_xdg_get_path (OW_AUTOSTART_XDG (autostart));
  g_autoptr(GError) error = NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *exec = NULL;
  g_autofree char *validator = g_find_program_in_path ("desktop-file-validate");
  g_autofree char *where = ow_autostart_describe (autostart);

  g_assert_cmpstr (where, ==, path);
  g_assert_true (g_str_has_suffix (path, "/autostart/com.openworker.OpenWorker.desktop"));
  g_assert_false (ow_autostart_is_enabled (autostart));
  /* Turning off what is off is fine. */
  g_assert_true (ow_autostart_set_enabled (autostart, FALSE, &error));
  g_assert_no_error (error);

  g_assert_true (ow_autostart_set_enabled (autostart, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (ow_autostart_is_enabled (autostart));
  g_assert_true (g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &error));
  g_assert_no_error (error);
  exec = g_key_file_get_string (kf, G_KEY_FILE_DESKTOP_GROUP, "Exec", &error);
  g_assert_cmpstr (exec, ==, "\"/opt/Open Worker/openworker-desktop\" --background");
  g_assert_true (g_key_file_get_boolean (kf, G_KEY_FILE_DESKTOP_GROUP, "X-GNOME-Autostart-enabled", NULL));
  g_assert_cmpstr (g_key_file_get_start_group (kf), ==, G_KEY_FILE_DESKTOP_GROUP);
  /* The entry is a valid desktop entry (the validator is on the install line). */
  g_assert_nonnull (validator);
  {
    const char *cmd[] = { validator, path, NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = -1;

    g_assert_true (g_spawn_sync (NULL, (char **) cmd, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
    g_assert_no_error (error);
    if (!g_spawn_check_wait_status (status, NULL) || (err != NULL && *err != '\0') || (out != NULL && *out != '\0'))
      g_error ("desktop-file-validate: %s%s", out, err);
  }

  g_assert_true (ow_autostart_set_enabled (autostart, FALSE, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (ow_autostart_is_enabled (autostart));
  g_rmdir (folder);
  g_rmdir (dir);
}

static void
test_autostart_registry (void)
{
  const char *argv[] = { "/bin/true", NULL };
  OwAutostartSpec spec = { "com.openworker.Test", "Test", argv, NULL };
  g_autoptr(OwAutostart) registered = NULL;

  ow_autostart_xdg_register ();
  registered = ow_autostart_new_default (&spec);
  g_assert_true (OW_IS_AUTOSTART_XDG (registered));
  /* The user's own folder: $XDG_CONFIG_HOME/autostart (isolated by the test). */
  g_assert_true (g_str_has_prefix (ow_autostart_xdg_get_path (OW_AUTOSTART_XDG (registered)),
                                   g_get_user_config_dir ()));
}

/* ---- appearance ------------------------------------------------------------------- */

static void
test_appearance_choice (void)
{
  g_assert_cmpint (ow_appearance_from_string ("light"), ==, OW_APPEARANCE_LIGHT);
  g_assert_cmpint (ow_appearance_from_string ("dark"), ==, OW_APPEARANCE_DARK);
  g_assert_cmpint (ow_appearance_from_string ("system"), ==, OW_APPEARANCE_SYSTEM);
  /* Absent or strange: the system's, never an error. */
  g_assert_cmpint (ow_appearance_from_string (NULL), ==, OW_APPEARANCE_SYSTEM);
  g_assert_cmpint (ow_appearance_from_string ("Dark"), ==, OW_APPEARANCE_SYSTEM);
  for (int i = OW_APPEARANCE_SYSTEM; i <= OW_APPEARANCE_DARK; i++)
    g_assert_cmpint (ow_appearance_from_string (ow_appearance_to_string (i)), ==, i);
}

/* ---- sandbox in words ------------------------------------------------------------------ */

static void
test_enforcement_in_words (void)
{
  g_autofree char *linux_ = ow_settings_describe_enforcement ("linux: namespaces+landlock(abi 7)+seccomp");
  g_autofree char *two = ow_settings_describe_enforcement ("namespaces+seccomp");
  g_autofree char *none = ow_settings_describe_enforcement (NULL);

  g_assert_cmpstr (linux_, ==, "a separate view of the files and processes, file access limited to the session's "
                               "folders and a filter on what programs may ask the kernel");
  g_assert_null (strstr (linux_, "landlock"));
  g_assert_null (strstr (linux_, "abi"));
  g_assert_cmpstr (two, ==, "a separate view of the files and processes and a filter on what programs may ask the kernel");
  g_assert_cmpstr (none, ==, "its own walls");
}

/* ---- tray ----------------------------------------------------------------------------- */

static void
test_tray_formatting (void)
{
  g_autofree char *none = ow_tray_inbox_label (0);
  g_autofree char *three = ow_tray_inbox_label (3);

  g_assert_cmpstr (ow_tray_status_for_count (0), ==, "Active");
  g_assert_cmpstr (ow_tray_status_for_count (2), ==, "NeedsAttention");
  g_assert_cmpstr (none, ==, "_Inbox");
  g_assert_cmpstr (three, ==, "_Inbox (3)");
}

/* "Add a Server…": a URL is an HTTP entry, anything else a command line
 * split as the shell would (no expansion); what cannot be read is refused. */
static void
test_connector_targets (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) url = ow_connector_entry_for_target ("  https://example.org/mcp ", &error);
  g_autoptr(JsonObject) cmd = ow_connector_entry_for_target ("npx -y '@scope/server two' $HOME", &error);
  JsonArray *args;

  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (url, "url"), ==, "https://example.org/mcp");
  g_assert_false (json_object_has_member (url, "command"));
  g_assert_cmpstr (json_object_get_string_member (cmd, "command"), ==, "npx");
  args = json_object_get_array_member (cmd, "args");
  g_assert_cmpuint (json_array_get_length (args), ==, 3);
  g_assert_cmpstr (json_array_get_string_element (args, 1), ==, "@scope/server two");
  g_assert_cmpstr (json_array_get_string_element (args, 2), ==, "$HOME");
  g_assert_null (ow_connector_entry_for_target ("npx 'open", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "quotes"));
  g_clear_error (&error);
  g_assert_null (ow_connector_entry_for_target ("   ", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_cmpstr (ow_connector_status_text (TRUE, FALSE, 2), ==, "Connected");
  g_assert_cmpstr (ow_connector_status_text (TRUE, FALSE, 1), ==, "Starting");
  g_assert_cmpstr (ow_connector_status_text (TRUE, FALSE, 4), ==, "Error");
  g_assert_cmpstr (ow_connector_status_text (FALSE, FALSE, 0), ==, "Disabled");
  g_assert_cmpstr (ow_connector_status_text (TRUE, TRUE, 0), ==, "Error");
}

int
main (int argc, char **argv)
{
  /* Untranslated: the strings are compared as written. */
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/ui-settings/formatting/key-states", test_key_state_labels);
  g_test_add_func ("/ow/ui-settings/formatting/modes", test_modes);
  g_test_add_func ("/ow/ui-settings/formatting/connector-targets", test_connector_targets);
  g_test_add_func ("/ow/ui-settings/formatting/rule-provenance", test_rule_provenance);
  g_test_add_func ("/ow/ui-settings/formatting/percent-and-paths", test_percent_and_paths);
  g_test_add_func ("/ow/ui-settings/models/collect", test_models_collect);
  g_test_add_func ("/ow/ui-settings/sites/merge", test_sites_merge);
  g_test_add_func ("/ow/ui-settings/credentials/table", test_credential_table);
  g_test_add_func ("/ow/ui-settings/config/file-set", test_config_file_set);
  g_test_add_func ("/ow/ui-settings/context/reload", test_context_reload);
  g_test_add_func ("/ow/ui-settings/autostart/quote", test_autostart_quote);
  g_test_add_func ("/ow/ui-settings/autostart/entry", test_autostart_entry);
  g_test_add_func ("/ow/ui-settings/autostart/registry", test_autostart_registry);
  g_test_add_func ("/ow/ui-settings/appearance/choice", test_appearance_choice);
  g_test_add_func ("/ow/ui-settings/sandbox/enforcement-in-words", test_enforcement_in_words);
  g_test_add_func ("/ow/ui-settings/tray/formatting", test_tray_formatting);
  return g_test_run ();
}
