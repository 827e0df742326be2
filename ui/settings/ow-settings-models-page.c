/* ow-settings-models-page.c: Settings ▸ Models & Keys (see ow-settings-models-page.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-models-page.h"

#include <glib/gi18n-lib.h>

#include "ow-model-settings-dialog.h"
#include "ow-provider-row.h"
#include "ow-settings-io.h"
#include "store/ow-model-config.h"

struct _OwSettingsModelsPage
{
  AdwPreferencesPage parent_instance;

  /* template widgets */
  GtkLabel       *store_label;
  GtkDropDown    *default_drop;
  gboolean        implicit_default;   /* the shown default is the first that can run, not a saved one */
  GtkLabel       *default_note;
  AdwPreferencesGroup *makers_group;
  AdwPreferencesGroup *resellers_group;
  AdwPreferencesGroup *local_group;
  GtkListBox     *models_list;
  GtkEntry       *add_model_entry;
  GtkLabel       *add_model_error;

  /* owned references */
  GPtrArray      *provider_rows;  /* the OwProviderRows this page put into its groups */
  OwContext      *ctx;
  OwProviderList *providers;
  OwSecretStore  *secrets;        /* may be NULL */
  GtkStringList  *models;         /* what the drop-down and the list show */
  GCancellable   *cancellable;
  char           *saved_default;  /* model_config.json's default, or NULL */

  /* state */
  gboolean        updating;       /* the drop-down is being filled, not chosen from */
  guint           refresh_id;
  gulong          config_handler;
};

G_DEFINE_FINAL_TYPE (OwSettingsModelsPage, ow_settings_models_page, ADW_TYPE_PREFERENCES_PAGE)

enum { SIGNAL_PROVIDERS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

GStrv
ow_settings_models_collect (const char *current_default, const char *const *saved, const char *const *recommended)
{
  g_autoptr(GPtrArray) rest = g_ptr_array_new ();
  g_autoptr(GStrvBuilder) out = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  const char *const *lists[] = { saved, recommended };

  if (current_default != NULL && *current_default != '\0')
    {
      g_strv_builder_add (out, current_default);
      g_hash_table_add (seen, (gpointer) current_default);
    }
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] != NULL && lists[l][i] != NULL; i++)
      if (*lists[l][i] != '\0' && g_hash_table_add (seen, (gpointer) lists[l][i]))
        g_ptr_array_add (rest, (gpointer) lists[l][i]);
  g_ptr_array_sort (rest, compare_strings);
  for (guint i = 0; i < rest->len; i++)
    g_strv_builder_add (out, g_ptr_array_index (rest, i));
  return g_strv_builder_end (out);
}

static char *
model_config_path (OwSettingsModelsPage *self)
{
  return g_build_filename (ow_context_get_paths (self->ctx)->config_dir, "model_config.json", NULL);
}

/* The model new sessions start with, and where that comes from. */
static const char *
effective_default (OwSettingsModelsPage *self)
{
  const char *chosen = ow_context_default_model (self->ctx);

  return chosen != NULL ? chosen : self->saved_default;
}

static void
update_default_note (OwSettingsModelsPage *self)
{
  const char *env = g_getenv ("OPENWORKER_MODEL");
  const char *configured = ow_config_get_string (ow_context_get_config (self->ctx), "model");
  g_autofree char *note = NULL;

  if (env != NULL && *env != '\0')
    /* TRANSLATORS: %s is a model id */
    note = g_strdup_printf (_("OPENWORKER_MODEL=%s in the environment chooses the model; unset it to choose here."),
                            env);
  else if (configured != NULL)
    {
      g_autofree char *path = ow_context_dup_config_path (self->ctx);
      /* TRANSLATORS: %s is the path of config.toml */
      note = g_strdup_printf (_("Kept as model = … in %s."), path);
    }
  else if (self->implicit_default)
    note = g_strdup (_("No default is saved: new sessions start with this model, the first that can run. "
                       "Choose one to keep it."));
  gtk_label_set_label (self->default_note, note != NULL ? note : "");
  gtk_widget_set_visible (GTK_WIDGET (self->default_note), note != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->default_drop), env == NULL || *env == '\0');
}

/* ---- The models ------------------------------------------------------------------ */

static void
on_model_settings_saved_cb (OwModelSettingsDialog *dialog, gpointer user_data);

static GtkWidget *
create_model_row (gpointer item, gpointer user_data)
{
  OwSettingsModelsPage *self = user_data;
  const char *model = gtk_string_object_get_string (GTK_STRING_OBJECT (item));
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new (model);
  GtkWidget *button = gtk_button_new_with_label (_("Settings…"));
  g_autofree char *accessible = NULL;

  gtk_widget_set_hexpand (label, TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_box_append (GTK_BOX (box), label);
  if (g_strcmp0 (model, effective_default (self)) == 0)
    {
      GtkWidget *chip = gtk_label_new (_("Default"));

      gtk_widget_add_css_class (chip, "ow-chip");
      gtk_widget_set_valign (chip, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (box), chip);
    }
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "models.open-settings");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", model);
  /* TRANSLATORS: accessible name of a model's Settings button; %s is the model id */
  accessible = g_strdup_printf (_("Settings for %s"), model);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  gtk_box_append (GTK_BOX (box), button);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_set_name (row, model);
  return row;
}

typedef struct {
  GStrv saved;       /* models with settings */
  char *default_id;  /* model_config.json's default */
} ModelConfigSummary;

static void
summary_free (ModelConfigSummary *s)
{
  g_strfreev (s->saved);
  g_free (s->default_id);
  g_free (s);
}

static void
read_model_config_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  g_autoptr(OwModelConfig) config = ow_model_config_load (task_data, &error);
  ModelConfigSummary *s;
  g_autoptr(GList) members = NULL;
  g_autoptr(GStrvBuilder) saved = g_strv_builder_new ();

  if (config == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  s = g_new0 (ModelConfigSummary, 1);
  members = json_object_get_members (ow_model_config_get_root (config));
  for (GList *l = members; l != NULL; l = l->next)
    g_strv_builder_add (saved, l->data);
  s->saved = g_strv_builder_end (saved);
  s->default_id = g_strdup (ow_model_config_default_model (config));
  g_task_return_pointer (task, s, (GDestroyNotify) summary_free);
}

static void
fill_models (OwSettingsModelsPage *self, const char *const *saved)
{
  g_autoptr(GStrvBuilder) recommended = g_strv_builder_new ();
  g_auto(GStrv) models = NULL;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->providers));
  const char *current = effective_default (self);
  guint selected = GTK_INVALID_LIST_POSITION;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(OwProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->providers), i);
      const OwProviderEntry *e = ow_provider_item_get_entry (item);

      if (ow_provider_item_get_configured (item) && e->recommended_model != NULL)
        {
          g_autofree char *full = g_strdup_printf ("%s:%s", e->id, e->recommended_model);
          g_strv_builder_add (recommended, full);
        }
    }
  {
    g_auto(GStrv) rec = g_strv_builder_end (g_steal_pointer (&recommended));
    models = ow_settings_models_collect (current, saved, (const char *const *) rec);
  }
  self->updating = TRUE;
  gtk_string_list_splice (self->models, 0, g_list_model_get_n_items (G_LIST_MODEL (self->models)),
                          (const char *const *) models);
  for (guint i = 0; current != NULL && models[i] != NULL; i++)
    if (g_str_equal (models[i], current))
      selected = i;
  /* No default saved: new sessions take the first model that can run, so
   * that is the one shown, not "(None)". */
  self->implicit_default = selected == GTK_INVALID_LIST_POSITION && models[0] != NULL;
  if (self->implicit_default)
    selected = 0;
  gtk_drop_down_set_selected (self->default_drop, selected);
  self->updating = FALSE;
  update_default_note (self);
}

static void
on_model_config_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  ModelConfigSummary *s = g_task_propagate_pointer (G_TASK (result), &error);
  OwSettingsModelsPage *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_SETTINGS_MODELS_PAGE (user_data);
  if (s == NULL)
    {
      /* A model_config.json that cannot be read is said, and nothing is offered from it. */
      gtk_label_set_label (self->default_note, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->default_note), TRUE);
      fill_models (self, NULL);
      return;
    }
  g_free (self->saved_default);
  self->saved_default = g_strdup (s->default_id);
  fill_models (self, (const char *const *) s->saved);
  summary_free (s);
}

static gboolean
refresh_models_now (gpointer user_data)
{
  OwSettingsModelsPage *self = user_data;
  g_autoptr(GTask) task = g_task_new (NULL, self->cancellable, on_model_config_read_cb, self);

  self->refresh_id = 0;
  g_task_set_task_data (task, model_config_path (self), g_free);
  g_task_run_in_thread (task, read_model_config_in_thread);
  return G_SOURCE_REMOVE;
}

/* Many items change at once (a refresh of every key): read once. */
static void
queue_refresh_models (OwSettingsModelsPage *self)
{
  if (self->refresh_id == 0)
    self->refresh_id = g_idle_add (refresh_models_now, self);
}

static void
on_provider_configured_cb (OwProviderItem *item, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsModelsPage *self = OW_SETTINGS_MODELS_PAGE (user_data);

  queue_refresh_models (self);
  g_signal_emit (self, signals[SIGNAL_PROVIDERS_CHANGED], 0);
}

/* The store has been chosen (in a worker thread) by the first listing: naming it is cheap now. */
static void
on_providers_loaded_cb (OwProviderList *list, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsModelsPage *self = user_data;
  g_autofree char *notice = ow_secret_store_describe (self->secrets);

  gtk_label_set_label (self->store_label, notice);
}

static void
on_config_changed_cb (OwContext *ctx, gpointer user_data)
{
  queue_refresh_models (OW_SETTINGS_MODELS_PAGE (user_data));
}

static void
on_model_settings_saved_cb (OwModelSettingsDialog *dialog, gpointer user_data)
{
  queue_refresh_models (OW_SETTINGS_MODELS_PAGE (user_data));
}

/* ---- Choosing the default ----------------------------------------------------------- */

typedef struct {
  char *path;
  char *model;
} DefaultWrite;

static void
default_write_free (DefaultWrite *w)
{
  g_free (w->path);
  g_free (w->model);
  g_free (w);
}

static gboolean
write_default_in_thread (gpointer data, GCancellable *cancellable, GError **error)
{
  DefaultWrite *w = data;
  g_autoptr(OwModelConfig) config = ow_model_config_load (w->path, error);
  g_autoptr(JsonObject) values = json_object_new ();

  if (config == NULL)
    return FALSE;
  json_object_set_boolean_member (values, "default", TRUE);
  return ow_model_config_set (config, w->model, values, error);
}

static void
on_default_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  OwSettingsModelsPage *self;
  gboolean ok;

  if (OW_IS_CONTEXT (source))
    ok = ow_settings_config_set_finish (OW_CONTEXT (source), result, &error);
  else
    ok = ow_settings_io_run_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_SETTINGS_MODELS_PAGE (user_data);
  if (!ok)
    {
      gtk_label_set_label (self->default_note, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->default_note), TRUE);
    }
  queue_refresh_models (self);
}

static void
on_default_selected_cb (GtkDropDown *drop, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsModelsPage *self = user_data;
  GtkStringObject *chosen = gtk_drop_down_get_selected_item (drop);
  const char *model;

  if (self->updating || chosen == NULL)
    return;
  model = gtk_string_object_get_string (chosen);
  if (g_strcmp0 (model, effective_default (self)) == 0)
    return;
  /* config.toml's model wins over model_config.json's default: where it is
   * set, the choice is written there; otherwise as the seeds keep it. */
  if (ow_config_get_string (ow_context_get_config (self->ctx), "model") != NULL)
    {
      g_autoptr(JsonNode) value = ow_settings_node_string (model);
      ow_settings_config_set_async (self->ctx, "model", value, self->cancellable, on_default_written_cb, self);
    }
  else
    {
      DefaultWrite *w = g_new0 (DefaultWrite, 1);

      w->path = model_config_path (self);
      w->model = g_strdup (model);
      ow_settings_io_run_async (NULL, write_default_in_thread, w, (GDestroyNotify) default_write_free,
                                self->cancellable, on_default_written_cb, self);
    }
}

/* ---- Providers ---------------------------------------------------------------------- */

/* Each provider's row goes in its part of the catalogue, the group's
 * own list, where the window's search finds it. The catalogue is read
 * once; the rows follow their items from then on. */
static void
add_provider_rows (OwSettingsModelsPage *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->providers));
  AdwPreferencesGroup *groups[] = { self->makers_group, self->resellers_group, self->local_group };
  static const char *const names[] = { "cloud", "reseller", "local" };
  guint counts[G_N_ELEMENTS (groups)] = { 0 };

  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    adw_preferences_group_set_title (groups[g], ow_provider_group_title (names[g]));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(OwProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->providers), i);
      const char *group = ow_provider_item_get_entry (item)->group;
      guint g = g_strcmp0 (group, "reseller") == 0 ? 1 : g_strcmp0 (group, "local") == 0 ? 2 : 0;
      GtkWidget *row = ow_provider_row_new (self->providers, item);

      adw_preferences_group_add (groups[g], row);
      g_ptr_array_add (self->provider_rows, g_object_ref (row));
      counts[g]++;
    }
  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    gtk_widget_set_visible (GTK_WIDGET (groups[g]), counts[g] > 0);
}

/* ---- Actions -------------------------------------------------------------------------- */

GtkWindow *
ow_settings_models_page_open_settings (OwSettingsModelsPage *self, const char *model_id)
{
  g_autofree char *path = NULL;
  OwModelSettingsDialog *dialog;
  GtkRoot *root;

  g_return_val_if_fail (OW_IS_SETTINGS_MODELS_PAGE (self), NULL);

  path = model_config_path (self);
  root = gtk_widget_get_root (GTK_WIDGET (self));
  dialog = ow_model_settings_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, path, model_id);
  g_signal_connect_object (dialog, "saved", G_CALLBACK (on_model_settings_saved_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return GTK_WINDOW (dialog);
}

static void
open_settings_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ow_settings_models_page_open_settings (OW_SETTINGS_MODELS_PAGE (widget), g_variant_get_string (parameter, NULL));
}

static void
default_settings_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsModelsPage *self = OW_SETTINGS_MODELS_PAGE (widget);
  GtkStringObject *chosen = gtk_drop_down_get_selected_item (self->default_drop);

  if (chosen != NULL)
    ow_settings_models_page_open_settings (self, gtk_string_object_get_string (chosen));
}

static void
add_model_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsModelsPage *self = OW_SETTINGS_MODELS_PAGE (widget);
  g_autofree char *model = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->add_model_entry))));
  g_autoptr(GError) error = NULL;
  g_autofree char *bare = NULL;
  const OwProviderEntry *entry = NULL;

  if (*model == '\0')
    g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("Type a model id first, such as anthropic:claude-sonnet-4-6."));
  else
    ow_model_id_split (model, &entry, &bare, &error);
  gtk_label_set_label (self->add_model_error, error != NULL ? error->message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->add_model_error), error != NULL);
  if (error != NULL)
    return;
  gtk_editable_set_text (GTK_EDITABLE (self->add_model_entry), "");
  ow_settings_models_page_open_settings (self, model);
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
ow_settings_models_page_dispose (GObject *object)
{
  OwSettingsModelsPage *self = OW_SETTINGS_MODELS_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->refresh_id, g_source_remove);
  g_clear_signal_handler (&self->config_handler, self->ctx);
  if (self->providers != NULL)
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->providers));
      for (guint i = 0; i < n; i++)
        {
          g_autoptr(OwProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->providers), i);
          g_signal_handlers_disconnect_by_data (item, self);
        }
    }
  /* libadwaita 1.2.2, Debian 12's, leaks a reference to each group that
   * the window's search has listed (the page's map from groups to rows
   * keeps the group it is given; fixed in 1.2.3, "preferences-page: Don't
   * leak groups in map model"). Such a group outlives the page with every
   * row still in it, and a provider row holds the provider list and,
   * through it, the context: the page takes its rows back out first. */
  if (self->provider_rows != NULL)
    for (guint i = 0; i < self->provider_rows->len; i++)
      {
        GtkWidget *row = g_ptr_array_index (self->provider_rows, i);
        GtkWidget *group = gtk_widget_get_ancestor (row, ADW_TYPE_PREFERENCES_GROUP);

        if (group != NULL)
          adw_preferences_group_remove (ADW_PREFERENCES_GROUP (group), row);
      }
  g_clear_pointer (&self->provider_rows, g_ptr_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SETTINGS_MODELS_PAGE);
  if (self->providers != NULL)
    g_signal_handlers_disconnect_by_data (self->providers, self);
  g_clear_object (&self->providers);
  g_clear_object (&self->secrets);
  g_clear_object (&self->models);
  g_clear_object (&self->ctx);
  G_OBJECT_CLASS (ow_settings_models_page_parent_class)->dispose (object);
}

static void
ow_settings_models_page_finalize (GObject *object)
{
  OwSettingsModelsPage *self = OW_SETTINGS_MODELS_PAGE (object);

  g_clear_object (&self->cancellable);
  g_free (self->saved_default);
  G_OBJECT_CLASS (ow_settings_models_page_parent_class)->finalize (object);
}

static void
ow_settings_models_page_class_init (OwSettingsModelsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_settings_models_page_dispose;
  object_class->finalize = ow_settings_models_page_finalize;

  /**
   * OwSettingsModelsPage::providers-changed:
   *
   * A provider became usable or stopped being usable (a key saved or
   * removed, a local server's address set).
   */
  signals[SIGNAL_PROVIDERS_CHANGED] = g_signal_new ("providers-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 0);

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/com/openworker/ui/settings/ow-settings-models-page.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, store_label);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, default_drop);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, default_note);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, makers_group);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, resellers_group);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, local_group);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, models_list);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, add_model_entry);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsModelsPage, add_model_error);

  gtk_widget_class_install_action (widget_class, "models.open-settings", "s", open_settings_activated);
  gtk_widget_class_install_action (widget_class, "models.default-settings", NULL, default_settings_activated);
  gtk_widget_class_install_action (widget_class, "models.add-model", NULL, add_model_activated);
}

static void
ow_settings_models_page_init (OwSettingsModelsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->models = gtk_string_list_new (NULL);
  self->provider_rows = g_ptr_array_new_with_free_func (g_object_unref);
}

GtkWidget *
ow_settings_models_page_new (OwContext *ctx, OwSecretStore *secrets)
{
  OwSettingsModelsPage *self;
  guint n;

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_SETTINGS_MODELS_PAGE, NULL);
  self->ctx = g_object_ref (ctx);
  self->providers = ow_provider_list_new (ctx, secrets);

  self->secrets = secrets != NULL ? g_object_ref (secrets) : NULL;
  if (secrets == NULL)
    gtk_label_set_label (self->store_label,
                         _("No secret store is available: keys can only come from the environment."));
  else
    g_signal_connect (self->providers, "notify::loaded", G_CALLBACK (on_providers_loaded_cb), self);

  add_provider_rows (self);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->providers));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(OwProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->providers), i);
      g_signal_connect (item, "notify::configured", G_CALLBACK (on_provider_configured_cb), self);
      g_signal_connect (item, "notify::saved", G_CALLBACK (on_provider_configured_cb), self);
    }

  gtk_drop_down_set_model (self->default_drop, G_LIST_MODEL (self->models));
  gtk_list_box_bind_model (self->models_list, G_LIST_MODEL (self->models), create_model_row, self, NULL);
  g_signal_connect (self->default_drop, "notify::selected", G_CALLBACK (on_default_selected_cb), self);
  self->config_handler = g_signal_connect (ctx, "config-changed", G_CALLBACK (on_config_changed_cb), self);
  queue_refresh_models (self);
  return GTK_WIDGET (self);
}

OwProviderList *
ow_settings_models_page_get_providers (OwSettingsModelsPage *self)
{
  g_return_val_if_fail (OW_IS_SETTINGS_MODELS_PAGE (self), NULL);
  return self->providers;
}

GListModel *
ow_settings_models_page_get_models (OwSettingsModelsPage *self)
{
  g_return_val_if_fail (OW_IS_SETTINGS_MODELS_PAGE (self), NULL);
  return G_LIST_MODEL (self->models);
}
