/* test-settings-window.c: the Settings window on a display, against real parts.
 *
 * Runs inside ui-session.py: a display, a private session bus, a fresh
 * gnome-keyring, HOME and the XDG folders in a temporary directory that is
 * searched afterwards for every test key. Each page is driven through its
 * actions and widgets, as a person would, and checked in what it wrote:
 *
 *   models     a key pasted into Models & Keys lands in the keyring (read
 *              back over libsecret) and in no file; Test against the
 *              scripted model server says ok for the right key and refused
 *              for a wrong one; Remove forgets it; a local server's address;
 *              the per-model settings dialog and the default model
 *   approvals  a standing rule is listed with its provenance and revoked;
 *              the default mode is written; the config's lists are shown
 *   sandbox    the status check's findings for each type; setting up the
 *              Linux sandbox proves it and turns it on; the network choice,
 *              "Choose sites…", toolchains and shared credentials
 *   general    run in the background, start at login, the scratch folder
 *   connectors the machine's MCP servers (the hostile double, a command that
 *              does not exist, a disabled one) with their status, tools,
 *              enable switch, Restart, Remove (asked) and "Add a Server…",
 *              each checked in mcp.json and in the host's running servers
 *   machines   this machine's facts
 *   appearance System follows the Settings portal's color-scheme live; Light
 *              and Dark override it and are kept
 *   german     the build's German catalogue on the window and its pages
 *
 * Every page is saved as a screenshot ($OW_SCREENSHOT_DIR).
 */
#include <glib/gstdio.h>
#include <libintl.h>
#include <libsecret/secret.h>
#include <locale.h>
#include <string.h>

#include "ow-appearance.h"

#include <adwaita.h>
#include "ow-autostart-xdg.h"
#include "ow-credential-dialog.h"
#include "ow-model-server.h"
#include "ow-model-settings-dialog.h"
#include "ow-provider-row.h"
#include "ow-secret-libsecret.h"
#include "ow-sandbox-linux.h"
#include "ow-settings-approvals-page.h"
#include "ow-settings-connectors-page.h"
#include "ow-settings-general-page.h"
#include "ow-settings-models-page.h"
#include "ow-settings-sandbox-page.h"
#include "ow-settings-window-private.h"
#include "ow-sites-dialog.h"
#include "sandbox/ow-sandbox-openshell.h"
#include "settings-test-util.h"
#include "store/ow-model-config.h"
#include "core/ow-session-host.h"
#include "mcp/ow-mcp-provider.h"

#define GOOD_KEY SECRET_MARKER "-openai-good"
#define WRONG_KEY "sk-wrong-0000000000000000"

/* The schema the keyring store writes with (platform/linux/ow-secret-libsecret.c). */
static const SecretSchema keyring_schema = {
  "org.openworker.Secret", SECRET_SCHEMA_NONE,
  { { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING }, { "name", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } },
  0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static char *
keyring_lookup (const char *name)
{
  g_autoptr(GError) error = NULL;
  char *value = secret_password_lookup_sync (&keyring_schema, NULL, &error, "kind", "provider", "name", name, NULL);

  g_assert_no_error (error);
  return value;
}

static OwSettingsWindow *
open_window (SettingsHome *home, OwAutostart *autostart, const char *page)
{
  GtkWindow *window = ow_settings_window_new_for (NULL, home->ctx, home->secrets, autostart, NULL, page);

  gtk_window_present (window);
  return OW_SETTINGS_WINDOW (window);
}

/* ---- Models & Keys ---------------------------------------------------------------- */

static gboolean
models_offer_sol (gpointer data)
{
  GListModel *models = data;

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    {
      g_autoptr(GtkStringObject) s = g_list_model_get_item (models, i);
      if (g_str_equal (gtk_string_object_get_string (s), "openai:gpt-5.6-sol"))
        return TRUE;
    }
  return FALSE;
}

typedef struct {
  OwProviderItem *item;
  const char     *needle;   /* in the message */
} MessageWait;

static gboolean
message_has (gpointer data)
{
  MessageWait *w = data;
  const char *m = ow_provider_item_get_message (w->item);

  return !ow_provider_item_get_busy (w->item) && m != NULL && strstr (m, w->needle) != NULL;
}

static void
say_message (gpointer data, gpointer unused)
{
  MessageWait *w = data;

  g_test_message ("%s says “%s”", ow_provider_item_get_id (w->item), ow_provider_item_get_message (w->item));
}

static void
wait_message (OwProviderItem *item, const char *needle)
{
  MessageWait w = { item, needle };
  g_autofree char *what = g_strdup_printf ("“%s” on %s", needle, ow_provider_item_get_id (item));
  OwTestWait wait;

  ow_test_wait_begin (&wait, NULL, what, G_STRLOC);
  wait.report = say_message;
  wait.report_data = &w;
  while (!message_has (&w))
    ow_test_wait_step (&wait);
  ow_test_wait_end (&wait);
}

static gboolean
config_lacks_ssh (gpointer data)
{
  g_autofree char *now = settings_home_config (data);

  return strstr (now, "name = \"ssh\"") == NULL;
}

static gboolean
list_loaded (gpointer data)
{
  return ow_provider_list_get_loaded (data);
}

static gboolean
item_saved (gpointer data)
{
  return ow_provider_item_get_saved (data) && !ow_provider_item_get_busy (data);
}

static gboolean
item_not_saved (gpointer data)
{
  return !ow_provider_item_get_saved (data) && !ow_provider_item_get_busy (data);
}

static void
type_into (GtkWidget *row, GType type, const char *text)
{
  GtkWidget *entry = find_type (row, type);

  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
}

/* Types into the entry a template named @id. */
static void
set_text (GtkWidget *root, const char *id, const char *text)
{
  GtkWidget *entry = find_named (root, id, G_TYPE_INVALID);

  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
}

static void
test_models_keys (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) script = json_from_string ("{\"keys\": [\"" GOOD_KEY "\"], \"models\": [\"gpt-4o\"], "
                                                 "\"turns\": []}", &error);
  g_autoptr(JsonNode) keyless = json_from_string ("{\"models\": [\"qwen3:8b\"], \"turns\": []}", &error);
  g_autoptr(OwModelServer) server = NULL;
  g_autoptr(OwModelServer) local = NULL;
  g_autofree char *url = NULL;
  g_autofree char *local_url = NULL;
  g_autofree char *config = NULL;
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  OwSettingsModelsPage *page;
  OwProviderList *list;
  OwProviderItem *openai, *anthropic, *ollama;
  GtkWidget *row;
  g_autofree char *stored = NULL;

  g_assert_no_error (error);
  server = ow_model_server_new (script, &error);
  g_assert_no_error (error);
  url = ow_model_server_get_url (server);
  /* A local server takes no key. */
  local = ow_model_server_new (keyless, &error);
  g_assert_no_error (error);
  local_url = ow_model_server_get_url (local);
  /* OpenAI's calls go to the scripted server, as config.toml can send them. */
  config = g_strdup_printf ("[providers.openai]\nbase_url = \"%s/v1\"\n", url);
  g_setenv ("ANTHROPIC_API_KEY", "not-a-real-key-anthropic", TRUE);
  settings_home_init (&home, config);
  g_assert_cmpstr (ow_secret_store_get_backend (home.secrets), ==, "keyring");

  window = open_window (&home, NULL, "models");
  page = OW_SETTINGS_MODELS_PAGE (ow_settings_window_get_page_widget (window, "models"));
  list = ow_settings_models_page_get_providers (page);
  ow_test_wait_until (list_loaded, list, "the saved keys to be listed");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, ow_provider_catalog_get ()->len);

  openai = ow_provider_list_lookup (list, "openai");
  anthropic = ow_provider_list_lookup (list, "anthropic");
  ollama = ow_provider_list_lookup (list, "ollama");
  g_assert_cmpint (ow_provider_item_get_key_state (openai), ==, OW_KEY_STATE_NONE);
  g_assert_cmpint (ow_provider_item_get_key_state (anthropic), ==, OW_KEY_STATE_ENV);
  g_assert_cmpint (ow_provider_item_get_key_state (ollama), ==, OW_KEY_STATE_NOT_NEEDED);
  g_assert_nonnull (find_label (GTK_WIDGET (window), "From the environment (ANTHROPIC_API_KEY)"));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "On Your Own Hardware"));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Secret Service"));

  /* Paste a key and save it: it goes to the keyring. */
  row = find_named (GTK_WIDGET (window), "openai", OW_TYPE_PROVIDER_ROW);
  g_assert_nonnull (row);
  ow_provider_row_set_expanded (OW_PROVIDER_ROW (row), TRUE);
  g_assert_false (gtk_widget_activate_action (row, "row.save-key", NULL)
                  && ow_provider_item_get_busy (openai));   /* nothing typed: disabled */
  type_into (row, GTK_TYPE_PASSWORD_ENTRY, GOOD_KEY);
  g_assert_true (gtk_widget_activate_action (row, "row.save-key", NULL));
  ow_test_wait_until (item_saved, openai, "the key to be saved");
  wait_message (openai, "Key saved.");
  stored = keyring_lookup ("openai");
  g_assert_cmpstr (stored, ==, GOOD_KEY);
  g_assert_cmpint (ow_provider_item_get_key_state (openai), ==, OW_KEY_STATE_SAVED);
  g_assert_nonnull (find_label (row, "Saved in the keyring"));
  {
    /* The first key makes its provider's recommended model the machine's
     * default, as the browser and the CLI do. */
    g_autofree char *mc_path = g_build_filename (home.paths->config_dir, "model_config.json", NULL);
    g_autoptr(OwModelConfig) mc = ow_model_config_load (mc_path, &error);
    g_autofree char *expected = g_strdup_printf ("openai:%s", ow_provider_catalog_lookup ("openai")->recommended_model);

    g_assert_no_error (error);
    g_assert_cmpstr (ow_model_config_default_model (mc), ==, expected);
  }
  /* The field let go of the key. */
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (find_type (row, GTK_TYPE_PASSWORD_ENTRY))), ==, "");

  /* Test the saved key (nothing typed): the scripted server takes it. */
  g_assert_true (gtk_widget_activate_action (row, "row.test", NULL));
  wait_message (openai, "The key works.");
  {
    JsonArray *requests = ow_model_server_get_requests (server);
    JsonObject *last = json_array_get_object_element (requests, json_array_get_length (requests) - 1);
    JsonObject *headers = json_object_get_object_member (last, "headers");

    g_assert_cmpstr (json_object_get_string_member (last, "path"), ==, "/v1/models");
    g_assert_cmpstr (json_object_get_string_member (headers, "authorization"), ==, "Bearer " GOOD_KEY);
  }
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (find_label (row, "The key works.")), "ow-ok"));
  screenshot (GTK_WIDGET (window), "settings-models");

  /* A wrong key typed in is refused, and the saved one stays. */
  type_into (row, GTK_TYPE_PASSWORD_ENTRY, WRONG_KEY);
  g_assert_true (gtk_widget_activate_action (row, "row.test", NULL));
  wait_message (openai, "refused");
  g_assert_cmpint (ow_provider_item_get_message_kind (openai), ==, OW_MESSAGE_ERROR);
  g_assert_null (strstr (ow_provider_item_get_message (openai), WRONG_KEY));
  g_assert_true (ow_provider_item_get_saved (openai));
  screenshot (GTK_WIDGET (window), "settings-models-refused");
  type_into (row, GTK_TYPE_PASSWORD_ENTRY, "");

  /* A local server's address goes to config.toml, and Test reaches it. */
  row = find_named (GTK_WIDGET (window), "ollama", OW_TYPE_PROVIDER_ROW);
  g_assert_nonnull (row);
  ow_provider_row_set_expanded (OW_PROVIDER_ROW (row), TRUE);
  g_assert_false (gtk_widget_get_visible (find_type (row, GTK_TYPE_PASSWORD_ENTRY)));
  type_into (row, GTK_TYPE_ENTRY, "ftp://nowhere");
  g_assert_true (gtk_widget_activate_action (row, "row.save-address", NULL));
  wait_message (ollama, "http://");
  type_into (row, GTK_TYPE_ENTRY, local_url);
  g_assert_true (gtk_widget_activate_action (row, "row.save-address", NULL));
  wait_message (ollama, "Address saved.");
  {
    g_autofree char *want = g_strdup_printf ("base_url = \"%s\"", local_url);
    wait_config_holds (&home, want);
  }
  g_assert_cmpstr (ow_provider_item_get_base_url (ollama), ==, local_url);
  g_assert_true (ow_provider_item_get_configured (ollama));
  g_assert_true (gtk_widget_activate_action (row, "row.test", NULL));
  wait_message (ollama, "The server answers.");

  /* The models offered now: the configured providers' recommended ones. */
  /* The list is refilled once the provider's state is read back: wait for
   * it rather than for a fixed time (a loaded machine takes longer). */
  ow_test_wait_until (models_offer_sol, ow_settings_models_page_get_models (page), "the recommended model to be offered");

  /* Remove forgets the key in the keyring. */
  row = find_named (GTK_WIDGET (window), "openai", OW_TYPE_PROVIDER_ROW);
  g_assert_true (gtk_widget_activate_action (row, "row.remove-key", NULL));
  ow_test_wait_until (item_not_saved, openai, "the key to be removed");
  wait_message (openai, "Key removed.");
  g_assert_null (keyring_lookup ("openai"));
  g_assert_cmpint (ow_provider_item_get_key_state (openai), ==, OW_KEY_STATE_NONE);

  /* Saved once more, so the search of every file afterwards has a key to
   * look for that is still in the keyring. */
  type_into (row, GTK_TYPE_PASSWORD_ENTRY, GOOD_KEY);
  g_assert_true (gtk_widget_activate_action (row, "row.save-key", NULL));
  ow_test_wait_until (item_saved, openai, "the key to be saved again");

  close_window (window);
  g_unsetenv ("ANTHROPIC_API_KEY");
  settings_home_clear (&home);
  g_assert_finalize_object (g_steal_pointer (&server));
  g_assert_finalize_object (g_steal_pointer (&local));
}

static gboolean
window_gone (gpointer data)
{
  return *(GtkWidget **) data == NULL;
}

static void
test_model_settings (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  OwSettingsModelsPage *page;
  GtkWidget *dialog;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  settings_home_init (&home, NULL);
  path = g_build_filename (home.paths->config_dir, "model_config.json", NULL);
  window = open_window (&home, NULL, "models");
  page = OW_SETTINGS_MODELS_PAGE (ow_settings_window_get_page_widget (window, "models"));

  /* "Add Model…" refuses an id no provider has. */
  set_text (GTK_WIDGET (page), "add_model_entry", "nosuchprovider:model");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "models.add-model", NULL));
  g_assert_nonnull (find_label (GTK_WIDGET (page), "nosuchprovider"));
  g_assert_null (find_toplevel (OW_TYPE_MODEL_SETTINGS_DIALOG, NULL));

  /* The dialog, as a person fills it. */
  set_text (GTK_WIDGET (page), "add_model_entry", "ollama:qwen3:8b");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "models.add-model", NULL));
  dialog = find_toplevel (OW_TYPE_MODEL_SETTINGS_DIALOG, NULL);
  g_assert_nonnull (dialog);
  g_assert_cmpstr (ow_model_settings_dialog_get_model_id (OW_MODEL_SETTINGS_DIALOG (dialog)), ==, "ollama:qwen3:8b");
  ow_test_spin_for (300);   /* the saved settings (none) are read */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_named (dialog, "context_spin", G_TYPE_INVALID)), 65536);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_named (dialog, "max_output_spin", G_TYPE_INVALID)), 16000);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_named (dialog, "thinking_drop", G_TYPE_INVALID)), 1);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find_named (dialog, "effort_drop", G_TYPE_INVALID)), 5);   /* high */
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (dialog, "temperature_check", G_TYPE_INVALID)), TRUE);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find_named (dialog, "temperature_spin", G_TYPE_INVALID)), 0.7);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (dialog, "compaction_check", G_TYPE_INVALID)), TRUE);
  gtk_range_set_value (GTK_RANGE (find_named (dialog, "compaction_scale", G_TYPE_INVALID)), 0.8);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (dialog, "default_check", G_TYPE_INVALID)), TRUE);
  screenshot (dialog, "settings-model-dialog");
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_assert_true (gtk_widget_activate_action (dialog, "dialog.save", NULL));
  ow_test_wait_until (window_gone, &dialog, "the dialog to save and close");

  {
    g_autoptr(OwModelConfig) config = ow_model_config_load (path, &error);
    g_auto(OwModelSettings) s = { 0 };

    g_assert_no_error (error);
    ow_model_settings_init (&s);
    g_assert_true (ow_model_config_lookup (config, "ollama:qwen3:8b", &s));
    g_assert_cmpint (s.context_size, ==, 65536);
    g_assert_cmpint (s.max_output_tokens, ==, 16000);
    g_assert_cmpint (s.thinking, ==, 1);
    g_assert_cmpstr (s.reasoning_effort, ==, "high");
    g_assert_cmpfloat_with_epsilon (s.temperature, 0.7, 1e-9);
    g_assert_cmpfloat_with_epsilon (s.compaction_threshold_pct, 0.8, 1e-9);
    g_assert_true (s.top_p < 0);   /* left at its default: not saved */
    g_assert_true (s.is_default);
    g_assert_cmpstr (ow_model_config_default_model (config), ==, "ollama:qwen3:8b");
  }

  /* The page now offers it, first, as the default. */
  {
    GListModel *models = ow_settings_models_page_get_models (page);
    g_autoptr(GtkStringObject) first = NULL;

    ow_test_spin_for (300);
    g_assert_cmpuint (g_list_model_get_n_items (models), >=, 1);
    first = g_list_model_get_item (models, 0);
    g_assert_cmpstr (gtk_string_object_get_string (first), ==, "ollama:qwen3:8b");
    g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (find_named (GTK_WIDGET (page), "default_drop",
                                                                             G_TYPE_INVALID))), ==, 0);
  }

  /* Opened again, the dialog shows what was saved; Reset forgets it. */
  dialog = GTK_WIDGET (ow_settings_models_page_open_settings (page, "ollama:qwen3:8b"));
  ow_test_spin_for (300);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (find_named (dialog, "context_spin", G_TYPE_INVALID))),
                     ==, 65536);
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (find_named (dialog, "default_check", G_TYPE_INVALID))));
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_assert_true (gtk_widget_activate_action (dialog, "dialog.reset", NULL));
  ow_test_wait_until (window_gone, &dialog, "the dialog to reset and close");
  {
    g_autoptr(OwModelConfig) config = ow_model_config_load (path, &error);
    g_auto(OwModelSettings) s = { 0 };
    ow_model_settings_init (&s);
    g_assert_false (ow_model_config_lookup (config, "ollama:qwen3:8b", &s));
  }

  /* llama.cpp fixes its context size when it starts: shown, not set. */
  dialog = GTK_WIDGET (ow_settings_models_page_open_settings (page, "llamacpp:my-model"));
  g_assert_false (gtk_widget_get_sensitive (find_named (dialog, "context_spin", G_TYPE_INVALID)));
  g_assert_true (gtk_widget_get_visible (find_named (dialog, "context_note", G_TYPE_INVALID)));
  close_window (dialog);

  close_window (window);
  settings_home_clear (&home);
}

/* ---- Approvals ------------------------------------------------------------------------ */

typedef struct {
  GtkWidget  *root;
  const char *name;
} Named;

static gboolean
named_gone (gpointer data)
{
  Named *n = data;
  return find_named (n->root, n->name, G_TYPE_INVALID) == NULL;
}

static void
test_approvals (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  GtkWidget *page, *row;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  gint64 id;
  GtkDropDown *drop;
  GListModel *modes;

  settings_home_init (&home, "[policy]\nallow = [\"read_file\", \"run_shell:git log\"]\n"
                             "deny = [\"run_shell:rm\"]\n");
  /* A rule a person made with "Always allow" on a card. */
  id = ow_standing_rules_add (ow_context_get_store (home.ctx), "run_shell:git status", "allow", "person",
                              "5e551011d000", "routine", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);

  window = open_window (&home, NULL, "approvals");
  page = ow_settings_window_get_page_widget (window, "approvals");
  name = g_strdup_printf ("rule-%" G_GINT64_FORMAT, id);
  row = find_named (page, name, G_TYPE_INVALID);
  g_assert_nonnull (row);
  g_assert_nonnull (find_label (row, "run_shell:git status"));
  g_assert_nonnull (find_label (row, "Made by person in session 5e551011, "));
  g_assert_nonnull (find_label (row, "“routine”"));
  g_assert_nonnull (find_label (row, "In force"));
  /* The config's lists, read-only, with the file named. */
  g_assert_nonnull (find_label (page, "run_shell:git log"));
  g_assert_nonnull (find_label (page, "run_shell:rm"));
  {
    g_autofree char *path = ow_context_dup_config_path (home.ctx);
    g_autofree char *text = g_strdup_printf ("edit [policy] allow in %s", path);
    g_assert_nonnull (find_label (page, text));
  }
  /* The modes offered: never the one that skips safety checks. */
  drop = GTK_DROP_DOWN (find_named (page, "mode_drop", G_TYPE_INVALID));
  modes = gtk_drop_down_get_model (drop);
  g_assert_cmpuint (g_list_model_get_n_items (modes), ==, 5);
  for (guint i = 0; i < g_list_model_get_n_items (modes); i++)
    {
      g_autoptr(GtkStringObject) s = g_list_model_get_item (modes, i);
      g_assert_cmpstr (gtk_string_object_get_string (s), !=, "dangerously-bypass-approvals");
    }
  g_assert_cmpuint (gtk_drop_down_get_selected (drop), ==, 0);   /* ask, the default */
  screenshot (page, "settings-approvals");

  /* Revoke: gone from the list at once, revoked in the store. */
  g_assert_true (gtk_widget_activate_action (page, "approvals.revoke", "x", id));
  {
    Named n = { page, name };
    ow_test_wait_until (named_gone, &n, "the revoked rule to leave the list");
  }
  {
    g_autoptr(GPtrArray) rules = ow_standing_rules_list (ow_context_get_store (home.ctx), &error);
    const OwStandingRule *r = g_ptr_array_index (rules, 0);

    g_assert_no_error (error);
    g_assert_cmpint (r->id, ==, id);
    g_assert_nonnull (r->revoked_at);
  }
  g_assert_nonnull (find_label (page, "No standing rules yet"));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (page, "show_all_check", G_TYPE_INVALID)), TRUE);
  row = find_named (page, name, G_TYPE_INVALID);
  g_assert_nonnull (row);
  g_assert_nonnull (find_label (row, "Revoked "));

  /* A rule made elsewhere (another process, the CLI) shows up by itself. */
  id = ow_standing_rules_add (ow_context_get_store (home.ctx), "write_file:docs/report.md", "allow", "cli", NULL,
                              NULL, NULL, &error);
  g_assert_no_error (error);
  g_free (name);
  name = g_strdup_printf ("rule-%" G_GINT64_FORMAT, id);
  ow_settings_approvals_page_reload (OW_SETTINGS_APPROVALS_PAGE (page));
  g_assert_nonnull (find_named (page, name, G_TYPE_INVALID));

  /* The default mode goes to config.toml. */
  gtk_drop_down_set_selected (drop, 3);   /* plan */
  wait_config_holds (&home, "approval_mode = \"plan\"");
  g_assert_cmpstr (ow_config_get_string (ow_context_get_config (home.ctx), "approval_mode"), ==, "plan");

  close_window (window);
  settings_home_clear (&home);
}

/* ---- Sandbox ------------------------------------------------------------------------- */

typedef struct {
  OwSettingsSandboxPage *page;
  guint                  want;
} StatusWait;

static gboolean
statuses_in (gpointer data)
{
  StatusWait *w = data;
  return ow_settings_sandbox_page_get_n_statuses (w->page) >= w->want;
}

static gboolean
page_idle (gpointer data)
{
  return !ow_settings_sandbox_page_get_busy (data);
}

static void
make_file (const char *relative, const char *contents)
{
  g_autofree char *path = g_build_filename (g_get_home_dir (), relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static gboolean
popover_shown (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static void
test_sandbox (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  OwSettingsSandboxPage *page;
  GtkWidget *row, *dialog;
  g_auto(GStrv) providers = ow_sandbox_backend_list_registered ();
  StatusWait w;
  g_autofree char *text = NULL;

  g_assert_true (g_strv_contains ((const char *const *) providers, "linux"));
  /* What this home has to offer: a toolchain and an SSH folder. */
  g_assert_cmpint (g_mkdir_with_parents (g_build_filename (g_get_home_dir (), ".cargo", "bin", NULL), 0700), ==, 0);
  make_file (".ssh/known_hosts", "github.com ssh-ed25519 AAAA\n");
  make_file (".pypirc", "[pypi]\n");

  settings_home_init (&home, NULL);
  window = open_window (&home, NULL, "sandbox");
  page = OW_SETTINGS_SANDBOX_PAGE (ow_settings_window_get_page_widget (window, "sandbox"));
  w.page = page;
  w.want = g_strv_length (providers);
  ow_test_wait_until (statuses_in, &w, "the status checks");

  /* Off: the types show only once the switch is on. */
  g_assert_false (gtk_widget_get_visible (find_named (GTK_WIDGET (page), "options_box", G_TYPE_INVALID)));
  gtk_switch_set_active (GTK_SWITCH (find_named (GTK_WIDGET (page), "sandbox_switch", G_TYPE_INVALID)), TRUE);
  g_assert_true (gtk_widget_get_visible (find_named (GTK_WIDGET (page), "types_box", G_TYPE_INVALID)));
  /* Never "Off" under a switch that is on. */
  g_assert_false (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (find_named (GTK_WIDGET (page), "switch_row",
                                                                                           ADW_TYPE_ACTION_ROW))), "Off"));
  g_assert_nonnull (find_label (GTK_WIDGET (page), "Turning on:"));
  text = settings_home_config (&home);
  g_assert_null (strstr (text, "sandbox_provider"));   /* nothing written until proved */

  /* The status check's findings, per type. */
  row = find_named (GTK_WIDGET (page), "linux", GTK_TYPE_LIST_BOX_ROW);
  g_assert_nonnull (row);
  g_assert_nonnull (find_label (row, "Ready to set up"));
  /* A ready type keeps its findings folded (GtkExpander holds no child
   * then); open them as a person would. */
  g_assert_nonnull (find_type (row, GTK_TYPE_EXPANDER));
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (find_type (row, GTK_TYPE_EXPANDER))));
  g_assert_null (find_label (row, "landlock: ABI"));
  gtk_expander_set_expanded (GTK_EXPANDER (find_type (row, GTK_TYPE_EXPANDER)), TRUE);
  g_assert_nonnull (find_label (row, "✓  landlock: ABI"));
  g_assert_nonnull (find_label (row, "✓  runner: openworker-tool-runner at"));
  if (g_strv_contains ((const char *const *) providers, "openshell"))
    {
      GtkWidget *openshell = find_named (GTK_WIDGET (page), "openshell", GTK_TYPE_LIST_BOX_ROW);
      g_assert_nonnull (openshell);
      GtkWidget *setup;

      g_assert_nonnull (find_label (openshell, "Not ready"));
      g_assert_nonnull (find_label (openshell, "✗  "));
      /* Not ready: nothing to set up, and the button says so. */
      ow_test_spin_for (100);
      setup = gtk_widget_get_ancestor (GTK_WIDGET (find_label (openshell, "Set Up")), GTK_TYPE_BUTTON);
      g_assert_nonnull (setup);
      g_assert_false (gtk_widget_get_sensitive (setup));
    }
  screenshot (GTK_WIDGET (page), "settings-sandbox-types");

  /* Set up: the wall is proved on a throwaway folder, then chosen. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "sandbox.setup", "s", "linux"));
  ow_test_wait_until (page_idle, page, "the sandbox setup");
  /* Said in words, not as the enforcement string. */
  g_assert_nonnull (find_label (GTK_WIDGET (page), "works on this computer: a separate view of the files"));
  g_assert_null (find_label (GTK_WIDGET (page), "landlock(abi"));
  wait_config_holds (&home, "sandbox_provider = \"linux\"");
  g_assert_true (gtk_widget_get_visible (find_named (GTK_WIDGET (page), "options_box", G_TYPE_INVALID)));
  row = find_named (GTK_WIDGET (page), "linux", GTK_TYPE_LIST_BOX_ROW);
  g_assert_nonnull (find_label (row, "In use"));

  /* The network choice. */
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (GTK_WIDGET (page), "open_radio", G_TYPE_INVALID)), TRUE);
  wait_config_holds (&home, "sandbox_network_profile = \"open\"");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (GTK_WIDGET (page), "allowlist_radio", G_TYPE_INVALID)), TRUE);
  wait_config_holds (&home, "sandbox_network_profile = \"allowlist\"");
  g_assert_nonnull (find_label (GTK_WIDGET (page), "No sites yet"));

  /* Choose sites…: GitHub ticked, a site of one's own added. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "sandbox.choose-sites", NULL));
  dialog = find_toplevel (OW_TYPE_SITES_DIALOG, NULL);
  g_assert_nonnull (dialog);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (dialog, "github", GTK_TYPE_CHECK_BUTTON)), TRUE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (find_named (dialog, "pypi", GTK_TYPE_CHECK_BUTTON)), TRUE);
  set_text (dialog, "site_entry", "*.example.org:443");
  g_assert_true (gtk_widget_activate_action (dialog, "sites.add", NULL));
  g_assert_nonnull (find_label (dialog, "*.example.org"));   /* refused, with the entry named */
  set_text (dialog, "site_entry", "Example.ORG:8443");
  g_assert_true (gtk_widget_activate_action (dialog, "sites.add", NULL));
  g_assert_nonnull (find_label (dialog, "example.org:8443"));
  screenshot (dialog, "settings-sandbox-sites");
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_assert_true (gtk_widget_activate_action (dialog, "sites.save", NULL));
  ow_test_wait_until (window_gone, &dialog, "the sites dialog to close");
  wait_config_holds (&home, "\"example.org:8443\"");
  {
    g_auto(GStrv) hosts = NULL;
    ow_test_spin_for (100);
    hosts = ow_config_get_strv (ow_context_get_config (home.ctx), "sandbox_network_hosts");
    g_assert_true (g_strv_contains ((const char *const *) hosts, "github.com:443"));
    g_assert_true (g_strv_contains ((const char *const *) hosts, "files.pythonhosted.org:443"));
    g_assert_cmpstr (hosts[g_strv_length (hosts) - 1], ==, "example.org:8443");
  }
  g_assert_nonnull (find_label (GTK_WIDGET (page), "sites allowed"));

  /* A toolchain this home has, switched on. */
  row = find_named (GTK_WIDGET (page), ".cargo", GTK_TYPE_LIST_BOX_ROW);
  g_assert_nonnull (row);
  g_assert_nonnull (find_label (row, "Cargo (Rust)"));
  g_assert_null (find_named (GTK_WIDGET (page), ".pyenv", G_TYPE_INVALID));   /* not on this machine: not listed */
  gtk_switch_set_active (GTK_SWITCH (find_type (row, GTK_TYPE_SWITCH)), TRUE);
  wait_config_holds (&home, "sandbox_toolchains = [\".cargo\"]");

  /* A CLI's login: offered when found, added, switched off, removed. */
  {
    GtkWidget *ssh = find_named (GTK_WIDGET (window), "ssh", GTK_TYPE_BUTTON);
    GtkWidget *gh = find_named (GTK_WIDGET (window), "gh", GTK_TYPE_BUTTON);

    g_assert_nonnull (ssh);
    g_assert_true (gtk_widget_get_sensitive (ssh));
    g_assert_false (gtk_widget_get_sensitive (gh));   /* no ~/.config/gh here */
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "sandbox.add-credential", "s", "ssh"));
  wait_config_holds (&home, "[[sandbox_credentials]]");
  wait_config_holds (&home, "name = \"ssh\"");
  row = find_named (GTK_WIDGET (find_named (GTK_WIDGET (page), "credentials_list", G_TYPE_INVALID)), "0",
                    GTK_TYPE_LIST_BOX_ROW);
  g_assert_nonnull (row);
  g_assert_nonnull (find_label (row, "SSH keys"));
  g_assert_nonnull (find_label (row, "github.com:22"));
  screenshot (GTK_WIDGET (page), "settings-sandbox-options");
  /* The Add… popover opens from the foot of a long page, scrolled or not. */
  {
    GtkWidget *add = find_named (GTK_WIDGET (page), "add_credential_button", GTK_TYPE_BUTTON);
    GtkWidget *popover = find_type (add, GTK_TYPE_POPOVER);

    g_assert_nonnull (popover);
    g_signal_emit_by_name (add, "clicked");
    ow_test_wait_until (popover_shown, popover, "the Add popover to show");
    screenshot (GTK_WIDGET (page), "settings-sandbox-add");
    gtk_popover_popdown (GTK_POPOVER (popover));
  }
  gtk_switch_set_active (GTK_SWITCH (find_type (row, GTK_TYPE_SWITCH)), FALSE);
  wait_config_holds (&home, "enabled = false");

  /* A file of one's own, checked by the engine before it is added. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "sandbox.add-custom-credential", NULL));
  dialog = find_toplevel (OW_TYPE_CREDENTIAL_DIALOG, NULL);
  g_assert_nonnull (dialog);
  set_text (dialog, "name_entry", "pypirc");
  ow_credential_dialog_set_path (OW_CREDENTIAL_DIALOG (dialog), "/etc/hostname");
  set_text (dialog, "hosts_entry", "upload.pypi.org:443");
  g_assert_true (gtk_widget_activate_action (dialog, "credential.add", NULL));
  /* Outside the home folder: refused. */
  OW_TEST_WAIT_UNTIL (gtk_widget_get_visible (find_named (dialog, "error_label", G_TYPE_INVALID)));
  g_assert_nonnull (find_label (dialog, "under the home folder"));
  {
    g_autofree char *pypirc = g_build_filename (g_get_home_dir (), ".pypirc", NULL);
    ow_credential_dialog_set_path (OW_CREDENTIAL_DIALOG (dialog), pypirc);
  }
  g_assert_nonnull (find_label (dialog, "~/.pypirc"));
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_assert_true (gtk_widget_activate_action (dialog, "credential.add", NULL));
  ow_test_wait_until (window_gone, &dialog, "the credential dialog to add and close");
  wait_config_holds (&home, "path = \"~/.pypirc\"");
  wait_config_holds (&home, "\"upload.pypi.org:443\"");

  /* Remove the SSH entry: the custom one remains. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "sandbox.remove-credential", "u", 0));
  {
    g_autofree char *now = NULL;

    ow_test_wait_until (config_lacks_ssh, &home, "the SSH entry to leave config.toml");
    now = settings_home_config (&home);
    g_assert_nonnull (strstr (now, "name = \"pypirc\""));
  }

  /* Switched off: tools run directly again. */
  ow_test_wait_until (page_idle, page, "the writes");
  gtk_switch_set_active (GTK_SWITCH (find_named (GTK_WIDGET (page), "sandbox_switch", G_TYPE_INVALID)), FALSE);
  wait_config_holds (&home, "sandbox_provider = \"direct\"");

  close_window (window);
  settings_home_clear (&home);
}

/* ---- General and Machines ---------------------------------------------------------- */

static void
test_general (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  GtkWidget *page;
  g_autofree char *folder = g_build_filename (g_get_user_config_dir (), "autostart", NULL);
  const char *argv[] = { "/usr/bin/openworker-desktop", "--background", NULL };
  OwAutostartSpec spec = { "com.openworker.OpenWorker", "OpenWorker", argv, "com.openworker.OpenWorker" };
  g_autoptr(OwAutostart) autostart = ow_autostart_xdg_new (&spec, NULL);
  const char *entry = ow_autostart_xdg_get_path (OW_AUTOSTART_XDG (autostart));

  g_assert_true (g_str_has_prefix (entry, folder));
  settings_home_init (&home, "scratch_dir = \"~/Scratch\"\n");
  window = open_window (&home, autostart, "general");
  page = ow_settings_window_get_page_widget (window, "general");
  g_assert_nonnull (find_label (page, "~/Scratch"));
  g_assert_false (ow_settings_get_run_in_background (home.ctx));
  g_assert_nonnull (find_label (page, "autostart/com.openworker.OpenWorker.desktop"));

  gtk_switch_set_active (GTK_SWITCH (find_named (page, "background_switch", G_TYPE_INVALID)), TRUE);
  wait_config_holds (&home, "run_in_background = true");
  g_assert_true (ow_settings_get_run_in_background (home.ctx));

  gtk_switch_set_active (GTK_SWITCH (find_named (page, "login_switch", G_TYPE_INVALID)), TRUE);
  OW_TEST_WAIT_UNTIL (g_file_test (entry, G_FILE_TEST_EXISTS));
  g_assert_true (ow_autostart_is_enabled (autostart));
  screenshot (page, "settings-general");
  gtk_switch_set_active (GTK_SWITCH (find_named (page, "login_switch", G_TYPE_INVALID)), FALSE);
  OW_TEST_WAIT_UNTIL (!g_file_test (entry, G_FILE_TEST_EXISTS));

  g_assert_true (gtk_widget_activate_action (page, "general.default-scratch", NULL));
  {
    g_autofree char *want = g_strdup (home.paths->scratch_dir);
    g_autofree char *shown = ow_settings_display_path (want);

    OW_TEST_WAIT_UNTIL (find_label (page, shown) != NULL);
    g_assert_null (ow_config_get_string (ow_context_get_config (home.ctx), "scratch_dir"));
  }

  close_window (window);
  settings_home_clear (&home);
}

static gboolean
keys_fact_known (gpointer data)
{
  return find_label (data, "Checking…") == NULL;
}

static void
test_machines (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  GtkWidget *page;

  settings_home_init (&home, NULL);
  window = open_window (&home, NULL, "machines");
  page = ow_settings_window_get_page_widget (window, "machines");
  g_assert_nonnull (find_label (find_named (page, "name", GTK_TYPE_LIST_BOX_ROW), g_get_host_name ()));
  g_assert_nonnull (find_label (find_named (page, "version", GTK_TYPE_LIST_BOX_ROW), OW_VERSION));
  g_assert_nonnull (find_label (find_named (page, "folders", GTK_TYPE_LIST_BOX_ROW), home.paths->config_dir));
  ow_test_wait_until (keys_fact_known, page, "the key store to be named");
  g_assert_nonnull (find_label (find_named (page, "keys", GTK_TYPE_LIST_BOX_ROW), "Secret Service"));
  g_assert_nonnull (find_label (find_named (page, "identity", GTK_TYPE_LIST_BOX_ROW), "Not made yet"));
  screenshot (page, "settings-machines");
  close_window (window);
  settings_home_clear (&home);
}

/* ---- Connectors ---------------------------------------------------------------------- */

static gboolean window_is_width (gpointer data);

static OwMcpProvider *
running (OwSessionHost *host, const char *name)
{
  GPtrArray *providers = ow_session_host_get_mcp_providers (host);

  for (guint i = 0; i < providers->len; i++)
    if (g_str_equal (ow_mcp_client_get_name (ow_mcp_provider_get_client (g_ptr_array_index (providers, i))), name))
      return g_ptr_array_index (providers, i);
  return NULL;
}

typedef struct {
  GtkWidget  *page;
  const char *server;
  const char *status;   /* the row's status word */
} RowWait;

static GtkWidget *
server_row (GtkWidget *page, const char *name)
{
  return find_named (page, name, ADW_TYPE_EXPANDER_ROW);
}

static gboolean
row_says (gpointer data)
{
  RowWait *w = data;
  GtkWidget *row = server_row (w->page, w->server);
  GtkWidget *status = row != NULL ? find_named (row, "status", GTK_TYPE_LABEL) : NULL;

  return status != NULL && g_str_equal (gtk_label_get_text (GTK_LABEL (status)), w->status);
}

static void
wait_row (GtkWidget *page, const char *server, const char *status)
{
  RowWait w = { page, server, status };
  g_autofree char *what = g_strdup_printf ("%s to say %s", server, status);

  ow_test_wait_until (row_says, &w, what);
}

static gboolean
row_gone (gpointer data)
{
  RowWait *w = data;

  return server_row (w->page, w->server) == NULL;
}

static char *
mcp_json (SettingsHome *home)
{
  g_autofree char *path = g_build_filename (home->paths->config_dir, "mcp.json", NULL);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    text = g_strdup ("");
  return text;
}

static AdwMessageDialog *
wait_dialog (GtkWidget *not)
{
  OW_TEST_WAIT_UNTIL (find_toplevel (ADW_TYPE_MESSAGE_DIALOG, not) != NULL);
  return ADW_MESSAGE_DIALOG (find_toplevel (ADW_TYPE_MESSAGE_DIALOG, not));
}

static void
answer (AdwMessageDialog *dialog, const char *response)
{
  /* What a click on the response's button does in 1.2: the response, then the dialog closes. */
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  adw_message_dialog_response (dialog, response);
  gtk_window_close (GTK_WINDOW (dialog));
  OW_TEST_WAIT_UNTIL (dialog == NULL);
}

static void
add_server (GtkWidget *page, const char *name, const char *target)
{
  AdwMessageDialog *dialog;

  g_assert_true (gtk_widget_activate_action (page, "connectors.add", NULL));
  dialog = wait_dialog (NULL);
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "add"));
  gtk_editable_set_text (GTK_EDITABLE (find_named (GTK_WIDGET (dialog), "server-name", ADW_TYPE_ENTRY_ROW)), name);
  gtk_editable_set_text (GTK_EDITABLE (find_named (GTK_WIDGET (dialog), "server-target", ADW_TYPE_ENTRY_ROW)), target);
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "add"));
  screenshot (GTK_WIDGET (dialog), "settings-connectors-add");
  answer (dialog, "add");
}

static void
test_connectors (void)
{
  SettingsHome home = { 0 };
  g_autoptr(GError) error = NULL;
  OwSessionHost *host;
  OwSettingsWindow *window;
  GtkWidget *page, *row, *toggle, *add_error;
  AdwStyleManager *style = adw_style_manager_get_default ();
  const char *script = g_getenv ("OW_MCP_DOUBLE");
  const int widths[] = { 600, 1100 };
  g_autofree char *path = NULL, *json = NULL, *target = NULL;
  OwMcpProvider *p;
  int pid;

  g_assert_nonnull (script);
  settings_home_init (&home, NULL);
  path = g_build_filename (home.paths->config_dir, "mcp.json", NULL);
  json = g_strdup_printf ("{\"mcpServers\": {\"double\": {\"command\": \"python3\", \"args\": [\"%s\"]},"
                          " \"broken\": {\"command\": \"/nonexistent/mcp-server\"},"
                          " \"off\": {\"command\": \"python3\", \"args\": [\"%s\", \"a&b <c>\"], \"enabled\": false}}}",
                          script, script);
  g_assert_true (g_file_set_contents (path, json, -1, &error));
  /* The desktop's host, on the window's context as in the app. */
  host = ow_session_host_new (home.ctx, "desktop", &error);
  g_assert_no_error (error);
  window = OW_SETTINGS_WINDOW (ow_settings_window_new_for (NULL, home.ctx, home.secrets, NULL, host, "connectors"));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_cmpstr (ow_settings_window_get_page (window), ==, "connectors");
  page = ow_settings_window_get_page_widget (window, "connectors");
  g_assert_nonnull (page);

  wait_row (page, "double", "Connected");
  wait_row (page, "broken", "Error");
  wait_row (page, "off", "Disabled");
  /* The error row says why, in the server's words; the disabled one what it runs, as text. */
  g_assert_nonnull (strstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (server_row (page, "broken"))),
                            "/nonexistent/mcp-server"));
  g_assert_nonnull (strstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (server_row (page, "off"))), "a&b <c>"));
  g_assert_nonnull (strstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (server_row (page, "double"))), "tools"));

  for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
    {
      g_object_set_data (G_OBJECT (window), "want-width", GINT_TO_POINTER (widths[w]));
      gtk_window_set_default_size (GTK_WINDOW (window), widths[w], 760);
      ow_test_wait_until (window_is_width, window, "the window to take its width");
      ow_test_spin_for (500);
      for (guint dark = 0; dark < 2; dark++)
        {
          g_autofree char *name = g_strdup_printf ("settings-connectors-%s-%s", widths[w] < 700 ? "narrow" : "wide",
                                                   dark ? "dark" : "light");

          adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
          screenshot (GTK_WIDGET (window), name);
        }
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  /* Its tools, when expanded: name, title, and that each asks first. */
  row = server_row (page, "double");
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  g_assert_nonnull (find_named (row, "echo", ADW_TYPE_ACTION_ROW));
  g_assert_nonnull (find_label (find_named (row, "echo", ADW_TYPE_ACTION_ROW), "Asks before running"));
  g_assert_false (adw_expander_row_get_enable_expansion (ADW_EXPANDER_ROW (server_row (page, "broken"))));
  ow_test_spin_for (500);   /* the expander's reveal */
  screenshot (GTK_WIDGET (window), "settings-connectors-tools");

  /* Disable: saved, stopped in the host. Enable: saved, running again. */
  toggle = find_named (server_row (page, "double"), "enabled", GTK_TYPE_SWITCH);
  gtk_switch_set_active (GTK_SWITCH (toggle), FALSE);
  wait_row (page, "double", "Disabled");
  g_assert_null (running (host, "double"));
  g_free (json);
  json = mcp_json (&home);
  g_assert_nonnull (strstr (json, "\"enabled\" : false"));
  toggle = find_named (server_row (page, "off"), "enabled", GTK_TYPE_SWITCH);
  gtk_switch_set_active (GTK_SWITCH (toggle), TRUE);
  wait_row (page, "off", "Connected");
  g_assert_nonnull (running (host, "off"));
  toggle = find_named (server_row (page, "double"), "enabled", GTK_TYPE_SWITCH);
  gtk_switch_set_active (GTK_SWITCH (toggle), TRUE);
  wait_row (page, "double", "Connected");

  /* Restart: a new process. */
  p = running (host, "double");
  pid = ow_mcp_client_get_pid (ow_mcp_provider_get_client (p));
  g_assert_true (gtk_widget_activate_action (page, "connectors.restart", "s", "double"));
  OW_TEST_WAIT_UNTIL (ow_mcp_client_get_status (ow_mcp_provider_get_client (p)) == OW_MCP_STATUS_READY
                      && ow_mcp_client_get_pid (ow_mcp_provider_get_client (p)) != pid);
  wait_row (page, "double", "Connected");
  pid = ow_mcp_client_get_pid (ow_mcp_provider_get_client (p));
  /* Still open after its row was rebuilt by the status changes. */
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (server_row (page, "double")), TRUE);
  g_assert_true (gtk_widget_activate_action (page, "connectors.restart", "s", "double"));
  OW_TEST_WAIT_UNTIL (ow_mcp_client_get_pid (ow_mcp_provider_get_client (p)) != pid
                      && ow_mcp_client_get_pid (ow_mcp_provider_get_client (p)) != 0);
  wait_row (page, "double", "Connected");
  g_assert_true (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (server_row (page, "double"))));

  /* Add: a bad name is refused with the engine's sentence and nothing saved;
   * the same server under a good name runs. */
  target = g_strdup_printf ("python3 '%s'", script);
  add_error = find_named (page, "add_error", GTK_TYPE_LABEL);
  add_server (page, "no good", target);
  g_assert_true (gtk_widget_get_visible (add_error));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (add_error)), "letters"));
  g_free (json);
  json = mcp_json (&home);
  g_assert_null (strstr (json, "no good"));
  add_server (page, "added", target);
  g_assert_false (gtk_widget_get_visible (add_error));
  wait_row (page, "added", "Connected");
  g_assert_nonnull (running (host, "added"));
  g_free (json);
  json = mcp_json (&home);
  g_assert_nonnull (strstr (json, "\"added\""));
  screenshot (GTK_WIDGET (window), "settings-connectors-added");

  /* Remove asks first: Cancel keeps it, Remove takes it out of the file and the host. */
  g_assert_true (gtk_widget_activate_action (page, "connectors.remove", "s", "added"));
  screenshot (GTK_WIDGET (wait_dialog (NULL)), "settings-connectors-remove");
  answer (wait_dialog (NULL), "cancel");
  g_assert_nonnull (running (host, "added"));
  g_assert_true (gtk_widget_activate_action (page, "connectors.remove", "s", "added"));
  answer (wait_dialog (NULL), "remove");
  {
    RowWait w = { page, "added", NULL };

    ow_test_wait_until (row_gone, &w, "the removed server's row to go");
  }
  g_assert_null (running (host, "added"));
  g_free (json);
  json = mcp_json (&home);
  g_assert_null (strstr (json, "\"added\""));
  g_assert_nonnull (strstr (json, "\"double\""));

  close_window (window);
  g_assert_finalize_object (host);
  g_test_message ("connectors: window and host finalized");
  settings_home_clear (&home);
}

static void
test_window_pages (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  const char *names[] = { "models", "sandbox", "approvals", "machines", "general" };

  settings_home_init (&home, NULL);
  window = open_window (&home, NULL, "sandbox");
  g_assert_cmpstr (ow_settings_window_get_page (window), ==, "sandbox");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "settings.page", "s", names[i]));
      g_assert_cmpstr (ow_settings_window_get_page (window), ==, names[i]);
      g_assert_nonnull (ow_settings_window_get_page_widget (window, names[i]));
    }
  ow_settings_window_set_page (window, "no-such-page");
  g_assert_cmpstr (ow_settings_window_get_page (window), ==, "models");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Settings");
  /* Every page is in the sidebar, by its title. */
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Models & Keys"));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Machines"));
  close_window (window);
  settings_home_clear (&home);
}

/* Every page, light and dark, at a phone's width and a laptop's: the
 * view switcher moves to the bottom when narrow, and nothing is cut. */
static gboolean
window_is_width (gpointer data)
{
  GtkWidget *window = data;

  /* Within the client-side shadow. */
  return ABS (gtk_widget_get_width (window) - GPOINTER_TO_INT (g_object_get_data (G_OBJECT (window), "want-width"))) <= 12;
}

static void
test_window_sizes (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  AdwStyleManager *style = adw_style_manager_get_default ();
  const char *names[] = { "models", "sandbox", "approvals", "machines", "general" };
  const int widths[] = { 600, 1100 };

  settings_home_init (&home, "sandbox_provider = \"linux\"\n");
  window = open_window (&home, NULL, "models");
  for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
    {
      g_object_set_data (G_OBJECT (window), "want-width", GINT_TO_POINTER (widths[w]));
      gtk_window_set_default_size (GTK_WINDOW (window), widths[w], 760);
      ow_test_wait_until (window_is_width, window, "the window to take its width");
      ow_test_spin_for (500);   /* the view switcher moves (a revealer) */
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          ow_settings_window_set_page (window, names[i]);
          for (guint dark = 0; dark < 2; dark++)
            {
              g_autofree char *name = g_strdup_printf ("settings-%s-%s-%s", names[i], widths[w] < 700 ? "narrow" : "wide",
                                                       dark ? "dark" : "light");

              adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK
                                                              : ADW_COLOR_SCHEME_FORCE_LIGHT);
              screenshot (GTK_WIDGET (window), name);
            }
        }
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_destroy (GTK_WINDOW (window));
  settings_home_clear (&home);
}

/* ---- Search: the preferences window's own ------------------------------------------ */

typedef struct {
  GtkWidget  *root;
  const char *title;     /* shown */
  const char *not;       /* not shown */
} Shown;

/* A row titled @title that is on screen: with the Models page showing, a
 * General row can only be on screen as a search result. */
static GtkWidget *
mapped_row (GtkWidget *root, const char *title)
{
  if (ADW_IS_PREFERENCES_ROW (root) && gtk_widget_get_mapped (root)
      && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = mapped_row (c, title);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The header bar's search toggle, by its icon. */
static GtkWidget *
search_button (GtkWidget *root)
{
  if (GTK_IS_TOGGLE_BUTTON (root) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (root)), "edit-find-symbolic") == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = search_button (c);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
row_shown (gpointer data)
{
  Shown *s = data;

  /* The entry filters after a pause, and an empty search matches all. */
  return mapped_row (s->root, s->title) != NULL && mapped_row (s->root, s->not) == NULL;
}

static gboolean
on_page (gpointer data)
{
  return g_strcmp0 (ow_settings_window_get_page (data), "general") == 0;
}

static void
test_window_search (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  GtkWidget *entry, *result;
  Shown login = { NULL, "Start at login", "Appearance" };

  settings_home_init (&home, NULL);
  window = open_window (&home, NULL, "models");
  login.root = GTK_WIDGET (window);
  g_assert_true (adw_preferences_window_get_search_enabled (ADW_PREFERENCES_WINDOW (window)));
  g_assert_null (mapped_row (GTK_WIDGET (window), "Start at login"));

  /* Typing in the window's search finds a row of another page by its
   * title, and only rows that match. */
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (search_button (GTK_WIDGET (window))), TRUE);
  entry = find_type (GTK_WIDGET (window), GTK_TYPE_SEARCH_ENTRY);
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), "login");
  ow_test_wait_until (row_shown, &login, "the search to show Start at login alone");
  ow_test_spin_for (500);   /* the crossfade to the results */
  screenshot (GTK_WIDGET (window), "settings-search");

  /* A machine fact is a row of its own, found the same way. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "identity");
  login.title = "Identity";
  login.not = "Start at login";
  ow_test_wait_until (row_shown, &login, "the search to show the Identity fact");

  /* A row of Models & Keys names its page under it, ampersand and all
   * (libadwaita 1.2 reads that line as markup). */
  gtk_editable_set_text (GTK_EDITABLE (entry), "default model");
  login.title = "Default Model";
  ow_test_wait_until (row_shown, &login, "the search to show Default Model");
  result = mapped_row (GTK_WIDGET (window), "Default Model");
  g_assert_nonnull (find_label (result, "Models"));
  g_assert_cmpstr (gtk_label_get_text (find_label (result, "Models")), ==, "Models & Keys");

  /* A provider is a row of its own too. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "anthropic");
  login.title = "Claude (Anthropic)";
  login.not = "Default Model";
  ow_test_wait_until (row_shown, &login, "the search to show the Anthropic provider");

  /* Choosing a result opens its page. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "login");
  login.title = "Start at login";
  login.not = "Identity";
  ow_test_wait_until (row_shown, &login, "the search to show Start at login again");
  result = mapped_row (GTK_WIDGET (window), "Start at login");
  g_signal_emit_by_name (gtk_widget_get_parent (result), "row-activated", result);
  ow_test_wait_until (on_page, window, "the General page to open");
  g_assert_cmpstr (adw_preferences_page_get_title (ADW_PREFERENCES_PAGE (ow_settings_window_get_page_widget (window, "models"))),
                   ==, "Models & Keys");
  gtk_window_destroy (GTK_WINDOW (window));
  settings_home_clear (&home);
}

/* ---- Appearance: a Settings portal of the test's own ------------------------------------ */

static const char portal_xml[] =
  "<node><interface name='org.freedesktop.portal.Settings'>"
  "  <method name='Read'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
  "    <arg type='v' direction='out'/></method>"
  "  <signal name='SettingChanged'><arg type='s'/><arg type='s'/><arg type='v'/></signal>"
  "  <property name='version' type='u' access='read'/>"
  "</interface></node>";

static int portal_scheme = 1;   /* dark; read in the portal's thread */

static void
portal_method (GDBusConnection *c, const char *sender, const char *path, const char *iface, const char *method,
               GVariant *params, GDBusMethodInvocation *inv, gpointer user_data)
{
  const char *ns, *key;

  g_variant_get (params, "(&s&s)", &ns, &key);
  if (!g_str_equal (ns, "org.freedesktop.appearance") || !g_str_equal (key, "color-scheme"))
    {
      g_dbus_method_invocation_return_dbus_error (inv, "org.freedesktop.portal.Error.NotFound", "no such setting");
      return;
    }
  /* As older portals answer Read: a variant in a variant. */
  g_dbus_method_invocation_return_value (inv, g_variant_new ("(v)", g_variant_new_variant (g_variant_new_uint32 (g_atomic_int_get (&portal_scheme)))));
}

static GVariant *
portal_get (GDBusConnection *c, const char *sender, const char *path, const char *iface, const char *name,
            GError **error, gpointer user_data)
{
  return g_variant_new_uint32 (1);
}

static const GDBusInterfaceVTable portal_vtable = { portal_method, portal_get, NULL, { 0 } };
static GDBusConnection *portal_bus;

static void
on_portal_owned_cb (GDBusConnection *c, const char *name, gpointer user_data)
{
  g_atomic_int_set ((int *) user_data, TRUE);
}

/* The portal answers from a thread of its own: libadwaita reads it with
 * a blocking call from the main thread. */
static gpointer
portal_thread (gpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (portal_xml, &error);
  GMainContext *context = g_main_context_new ();

  g_main_context_push_thread_default (context);
  g_assert_no_error (error);
  portal_bus = g_dbus_connection_new_for_address_sync (g_getenv ("DBUS_SESSION_BUS_ADDRESS"),
                                                       G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                                       | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                       NULL, NULL, &error);
  g_assert_no_error (error);
  g_dbus_connection_register_object (portal_bus, "/org/freedesktop/portal/desktop", info->interfaces[0],
                                     &portal_vtable, NULL, NULL, &error);
  g_assert_no_error (error);
  g_bus_own_name_on_connection (portal_bus, "org.freedesktop.portal.Desktop", G_BUS_NAME_OWNER_FLAGS_NONE,
                                on_portal_owned_cb, NULL, data, NULL);
  for (;;)
    g_main_context_iteration (context, TRUE);
  return NULL;
}

static gboolean
is_set (gpointer data)
{
  return g_atomic_int_get ((int *) data);
}

static void
start_portal (void)
{
  static int owned;

  g_thread_unref (g_thread_new ("test-portal", portal_thread, &owned));
  ow_test_wait_until (is_set, &owned, "the test's portal to own its name");
}

static gboolean
dark_is (gpointer data)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ()) == GPOINTER_TO_INT (data);
}

static void
portal_switches_to (guint32 scheme)
{
  g_atomic_int_set (&portal_scheme, scheme);
  g_dbus_connection_emit_signal (portal_bus, NULL, "/org/freedesktop/portal/desktop", "org.freedesktop.portal.Settings",
                                 "SettingChanged",
                                 g_variant_new ("(ssv)", "org.freedesktop.appearance", "color-scheme",
                                                g_variant_new_uint32 (scheme)), NULL);
}

/* System follows the desktop's preference (the portal) live; Light and
 * Dark override it at once and are kept in the config. */
static void
test_appearance (void)
{
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  GtkWidget *page;
  GtkDropDown *choice;

  settings_home_init (&home, NULL);
  window = open_window (&home, NULL, "general");
  page = ow_settings_window_get_page_widget (window, "general");
  choice = GTK_DROP_DOWN (find_named (page, "appearance_dropdown", GTK_TYPE_DROP_DOWN));
  g_assert_nonnull (choice);
  g_assert_cmpuint (gtk_drop_down_get_selected (choice), ==, OW_APPEARANCE_SYSTEM);
  ow_test_wait_until (dark_is, GINT_TO_POINTER (TRUE), "the portal's dark preference");
  screenshot (page, "settings-general-dark");
  ow_settings_window_set_page (window, "models");
  screenshot (GTK_WIDGET (window), "settings-models-dark");
  ow_settings_window_set_page (window, "general");

  /* The desktop switches to light: followed at once. */
  portal_switches_to (2);
  ow_test_wait_until (dark_is, GINT_TO_POINTER (FALSE), "the portal's light preference");
  screenshot (page, "settings-general-light");

  /* Dark chosen: dark whatever the desktop prefers, and kept. */
  gtk_drop_down_set_selected (choice, OW_APPEARANCE_DARK);
  g_assert_true (dark_is (GINT_TO_POINTER (TRUE)));
  wait_config_holds (&home, "color_scheme = \"dark\"");
  /* Light chosen while the desktop prefers dark: light. */
  portal_switches_to (1);
  gtk_drop_down_set_selected (choice, OW_APPEARANCE_LIGHT);
  ow_test_spin_for (200);
  g_assert_true (dark_is (GINT_TO_POINTER (FALSE)));
  wait_config_holds (&home, "color_scheme = \"light\"");
  /* Back to System: the desktop's dark again. */
  gtk_drop_down_set_selected (choice, OW_APPEARANCE_SYSTEM);
  ow_test_wait_until (dark_is, GINT_TO_POINTER (TRUE), "the desktop's preference once System is chosen");
  wait_config_holds (&home, "color_scheme = \"system\"");
  portal_switches_to (2);
  ow_test_wait_until (dark_is, GINT_TO_POINTER (FALSE), "the portal's light preference");

  close_window (window);
  settings_home_clear (&home);
}

/* ---- German ------------------------------------------------------------------------ */

/* The chain from po/de.po to the screen: the catalogue the build made, bound
 * as the app binds its own, turns the window's templates and the pages'
 * C strings German. */
static void
test_german (void)
{
  const char *localedir = g_getenv ("OW_TEST_LOCALEDIR");
  g_autofree char *mo = NULL;
  SettingsHome home = { 0 };
  OwSettingsWindow *window;
  GtkWidget *page;

  g_assert_nonnull (localedir);
  mo = g_build_filename (localedir, "de", "LC_MESSAGES", "openworker.mo", NULL);
  g_assert_true (g_file_test (mo, G_FILE_TEST_IS_REGULAR));
  bindtextdomain ("openworker", localedir);
  bind_textdomain_codeset ("openworker", "UTF-8");
  g_setenv ("LANGUAGE", "de", TRUE);
  /* gettext forgets what it looked up before. It ignores LANGUAGE in the
   * "C" locale, which is what a machine with no LANG set (a fresh root, a
   * bare service) gives: C.UTF-8 is there on every Debian and honours it. */
  if (setlocale (LC_MESSAGES, "") == NULL || g_str_equal (setlocale (LC_MESSAGES, NULL), "C"))
    g_assert_nonnull (setlocale (LC_MESSAGES, "C.UTF-8"));

  settings_home_init (&home, NULL);
  window = open_window (&home, NULL, "general");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Einstellungen");
  /* The sidebar. */
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Modelle und Schlüssel"));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Freigaben"));
  g_assert_nonnull (find_label (GTK_WIDGET (window), "Rechner"));
  g_assert_null (find_label (GTK_WIDGET (window), "Models & Keys"));
  /* A page's template, and a string its code sets. */
  page = ow_settings_window_get_page_widget (window, "general");
  g_assert_nonnull (find_label (page, "Bei der Anmeldung starten"));
  g_assert_nonnull (find_label (page, "Im Hintergrund weiterlaufen, wenn das Fenster geschlossen wird"));
  page = ow_settings_window_get_page_widget (window, "approvals");
  g_assert_nonnull (find_label (page, "Noch keine dauerhaften Regeln."));
  screenshot (ow_settings_window_get_page_widget (window, "general"), "settings-general-de");

  close_window (window);
  settings_home_clear (&home);
  g_setenv ("LANGUAGE", "C", TRUE);
  setlocale (LC_MESSAGES, "");
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_setenv ("OPENWORKER_SECRET_STORE", "keyring", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  g_set_prgname ("test-settings-window");
  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL || g_getenv ("OW_UI_SESSION") == NULL)
    {
      g_printerr ("test-settings-window runs inside ui-session.py (a display, a session bus and a keyring)\n");
      return 1;
    }
  /* What the desktop app registers at start-up. */
  ow_secret_libsecret_register ();
  ow_sandbox_linux_register ();
  ow_sandbox_openshell_register ();
  /* The test's portal must answer before the appearance is first asked. */
  start_portal ();
  /* As the application's start-up does: libadwaita reads the portal now. */
  adw_init ();

  g_test_add_func ("/ow/ui-settings/appearance/portal", test_appearance);
  g_test_add_func ("/ow/ui-settings/window/pages", test_window_pages);
  g_test_add_func ("/ow/ui-settings/window/search", test_window_search);
  g_test_add_func ("/ow/ui-settings/window/sizes", test_window_sizes);
  g_test_add_func ("/ow/ui-settings/models/keys", test_models_keys);
  g_test_add_func ("/ow/ui-settings/models/settings-dialog", test_model_settings);
  g_test_add_func ("/ow/ui-settings/approvals/rules", test_approvals);
  g_test_add_func ("/ow/ui-settings/sandbox/page", test_sandbox);
  g_test_add_func ("/ow/ui-settings/general/page", test_general);
  g_test_add_func ("/ow/ui-settings/machines/page", test_machines);
  g_test_add_func ("/ow/ui-settings/connectors/page", test_connectors);
  g_test_add_func ("/ow/ui-settings/i18n/german", test_german);
  return g_test_run ();
}
