/* ow-model-settings-dialog.c: one model's settings (see ow-model-settings-dialog.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-model-settings-dialog.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "ow-settings-io.h"
#include "providers/ow-provider-catalog.h"
#include "store/ow-model-config.h"

/* The effort drop-down's items after "Model default", as model_config.json spells them. */
static const char *const efforts[] = { "none", "minimal", "low", "medium", "high", "xhigh", "max" };

struct _OwModelSettingsDialog
{
  GtkWindow       parent_instance;

  /* template widgets */
  GtkLabel       *model_label;
  GtkSpinButton  *context_spin;
  GtkWidget      *context_note;
  GtkSpinButton  *max_output_spin;
  GtkDropDown    *thinking_drop;
  GtkDropDown    *effort_drop;
  GtkCheckButton *temperature_check;
  GtkSpinButton  *temperature_spin;
  GtkCheckButton *top_p_check;
  GtkSpinButton  *top_p_spin;
  GtkCheckButton *compaction_check;
  GtkScale       *compaction_scale;
  GtkCheckButton *default_check;
  GtkLabel       *error_label;

  /* owned */
  char           *config_path;
  char           *model_id;
  GCancellable   *cancellable;
};

G_DEFINE_FINAL_TYPE (OwModelSettingsDialog, ow_model_settings_dialog, GTK_TYPE_WINDOW)

enum { SIGNAL_SAVED, N_SIGNALS };
static guint signals[N_SIGNALS];

char *
ow_model_settings_format_percent (double fraction)
{
  /* TRANSLATORS: a percentage, e.g. "80 %" */
  return g_strdup_printf (_("%d %%"), (int) lround (fraction * 100.0));
}

static char *
format_compaction (GtkScale *scale, double value, gpointer user_data)
{
  return ow_model_settings_format_percent (value);
}

/* A token count of 0 reads "Default". */
static gboolean
on_spin_output_cb (GtkSpinButton *spin, gpointer user_data)
{
  if (gtk_adjustment_get_value (gtk_spin_button_get_adjustment (spin)) != 0)
    return FALSE;
  gtk_editable_set_text (GTK_EDITABLE (spin), _("Default"));
  return TRUE;
}

static int
on_spin_input_cb (GtkSpinButton *spin, double *new_value, gpointer user_data)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (spin));

  if (g_strcmp0 (text, _("Default")) != 0 && *text != '\0')
    return FALSE;
  *new_value = 0;
  return TRUE;
}

static void
show_error (OwModelSettingsDialog *self, const char *message)
{
  gtk_label_set_label (self->error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

static void
set_busy (OwModelSettingsDialog *self, gboolean busy)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "dialog.save", !busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "dialog.reset", !busy);
}

/* ---- Reading ------------------------------------------------------------------ */

static void
fill (OwModelSettingsDialog *self, const OwModelSettings *s)
{
  gtk_spin_button_set_value (self->context_spin, (double) s->context_size);
  gtk_spin_button_set_value (self->max_output_spin, (double) s->max_output_tokens);
  gtk_drop_down_set_selected (self->thinking_drop, s->thinking < 0 ? 0 : s->thinking ? 1 : 2);
  gtk_drop_down_set_selected (self->effort_drop, 0);
  for (guint i = 0; s->reasoning_effort != NULL && i < G_N_ELEMENTS (efforts); i++)
    if (g_str_equal (s->reasoning_effort, efforts[i]))
      gtk_drop_down_set_selected (self->effort_drop, i + 1);
  gtk_check_button_set_active (self->temperature_check, s->temperature >= 0);
  if (s->temperature >= 0)
    gtk_spin_button_set_value (self->temperature_spin, s->temperature);
  gtk_check_button_set_active (self->top_p_check, s->top_p >= 0);
  if (s->top_p >= 0)
    gtk_spin_button_set_value (self->top_p_spin, s->top_p);
  gtk_check_button_set_active (self->compaction_check, s->compaction_threshold_pct >= 0);
  if (s->compaction_threshold_pct >= 0)
    gtk_range_set_value (GTK_RANGE (self->compaction_scale), s->compaction_threshold_pct);
  gtk_check_button_set_active (self->default_check, s->is_default);
}

static void
load_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  const char *path = task_data;
  GError *error = NULL;
  OwModelConfig *config = ow_model_config_load (path, &error);

  if (config == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, config, (GDestroyNotify) ow_model_config_free);
}

static void
on_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwModelConfig) config = g_task_propagate_pointer (G_TASK (result), &error);
  g_auto(OwModelSettings) settings = { 0 };
  OwModelSettingsDialog *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_MODEL_SETTINGS_DIALOG (user_data);
  set_busy (self, FALSE);
  if (config == NULL)
    {
      show_error (self, error->message);
      return;
    }
  ow_model_settings_init (&settings);
  ow_model_config_lookup (config, self->model_id, &settings);
  fill (self, &settings);
}

/* ---- Writing ------------------------------------------------------------------ */

JsonObject *
ow_model_settings_dialog_dup_values (OwModelSettingsDialog *self)
{
  JsonObject *v = json_object_new ();
  gint64 context = (gint64) gtk_spin_button_get_value (self->context_spin);
  gint64 max_output = (gint64) gtk_spin_button_get_value (self->max_output_spin);
  guint thinking = gtk_drop_down_get_selected (self->thinking_drop);
  guint effort = gtk_drop_down_get_selected (self->effort_drop);

  g_return_val_if_fail (OW_IS_MODEL_SETTINGS_DIALOG (self), NULL);

  if (context > 0 && gtk_widget_get_sensitive (GTK_WIDGET (self->context_spin)))
    json_object_set_int_member (v, "context_size", context);
  else
    json_object_set_null_member (v, "context_size");
  if (max_output > 0)
    json_object_set_int_member (v, "max_output_tokens", max_output);
  else
    json_object_set_null_member (v, "max_output_tokens");
  if (thinking == 1 || thinking == 2)
    json_object_set_boolean_member (v, "thinking", thinking == 1);
  else
    json_object_set_null_member (v, "thinking");
  if (effort >= 1 && effort <= G_N_ELEMENTS (efforts))
    json_object_set_string_member (v, "reasoning_effort", efforts[effort - 1]);
  else
    json_object_set_null_member (v, "reasoning_effort");
  if (gtk_check_button_get_active (self->temperature_check))
    json_object_set_double_member (v, "temperature", round (gtk_spin_button_get_value (self->temperature_spin) * 100) / 100);
  else
    json_object_set_null_member (v, "temperature");
  if (gtk_check_button_get_active (self->top_p_check))
    json_object_set_double_member (v, "top_p", round (gtk_spin_button_get_value (self->top_p_spin) * 100) / 100);
  else
    json_object_set_null_member (v, "top_p");
  if (gtk_check_button_get_active (self->compaction_check))
    json_object_set_double_member (v, "compaction_threshold_pct",
                                   round (gtk_range_get_value (GTK_RANGE (self->compaction_scale)) * 100) / 100);
  else
    json_object_set_null_member (v, "compaction_threshold_pct");
  if (gtk_check_button_get_active (self->default_check))
    json_object_set_boolean_member (v, "default", TRUE);
  else
    json_object_set_null_member (v, "default");
  return v;
}

typedef struct {
  char       *path;
  char       *model_id;
  JsonObject *values;   /* NULL: remove every setting */
} Save;

static void
save_free (Save *s)
{
  g_free (s->path);
  g_free (s->model_id);
  g_clear_pointer (&s->values, json_object_unref);
  g_free (s);
}

static gboolean
save_in_thread (gpointer data, GCancellable *cancellable, GError **error)
{
  Save *s = data;
  g_autoptr(OwModelConfig) config = ow_model_config_load (s->path, error);

  if (config == NULL)
    return FALSE;
  if (s->values == NULL)
    return ow_model_config_remove (config, s->model_id, error);
  return ow_model_config_set (config, s->model_id, s->values, error);
}

static void
on_saved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  OwModelSettingsDialog *self;

  if (!ow_settings_io_run_finish (result, &error) && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_MODEL_SETTINGS_DIALOG (user_data);
  set_busy (self, FALSE);
  if (error != NULL)
    {
      show_error (self, error->message);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_SAVED], 0);
  gtk_window_close (GTK_WINDOW (self));
}

static void
write_values (OwModelSettingsDialog *self, JsonObject *values)
{
  Save *s = g_new0 (Save, 1);

  s->path = g_strdup (self->config_path);
  s->model_id = g_strdup (self->model_id);
  s->values = values;
  show_error (self, NULL);
  set_busy (self, TRUE);
  ow_settings_io_run_async (self, save_in_thread, s, (GDestroyNotify) save_free, self->cancellable, on_saved_cb, self);
}

static void
save_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwModelSettingsDialog *self = OW_MODEL_SETTINGS_DIALOG (widget);

  write_values (self, ow_model_settings_dialog_dup_values (self));
}

static void
reset_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  write_values (OW_MODEL_SETTINGS_DIALOG (widget), NULL);
}

/* ---- GObject ------------------------------------------------------------------ */

static void
ow_model_settings_dialog_dispose (GObject *object)
{
  OwModelSettingsDialog *self = OW_MODEL_SETTINGS_DIALOG (object);

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_MODEL_SETTINGS_DIALOG);
  G_OBJECT_CLASS (ow_model_settings_dialog_parent_class)->dispose (object);
}

static void
ow_model_settings_dialog_finalize (GObject *object)
{
  OwModelSettingsDialog *self = OW_MODEL_SETTINGS_DIALOG (object);

  g_clear_object (&self->cancellable);
  g_free (self->config_path);
  g_free (self->model_id);
  G_OBJECT_CLASS (ow_model_settings_dialog_parent_class)->finalize (object);
}

static void
ow_model_settings_dialog_class_init (OwModelSettingsDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_model_settings_dialog_dispose;
  object_class->finalize = ow_model_settings_dialog_finalize;

  /**
   * OwModelSettingsDialog::saved:
   *
   * model_config.json was written (Save or Reset).
   */
  signals[SIGNAL_SAVED] = g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 0);

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/com/openworker/ui/settings/ow-model-settings-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, model_label);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, context_spin);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, context_note);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, max_output_spin);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, thinking_drop);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, effort_drop);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, temperature_check);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, temperature_spin);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, top_p_check);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, top_p_spin);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, compaction_check);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, compaction_scale);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, default_check);
  gtk_widget_class_bind_template_child (widget_class, OwModelSettingsDialog, error_label);

  gtk_widget_class_install_action (widget_class, "dialog.save", NULL, save_activated);
  gtk_widget_class_install_action (widget_class, "dialog.reset", NULL, reset_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ow_model_settings_dialog_init (OwModelSettingsDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  gtk_scale_set_format_value_func (self->compaction_scale, format_compaction, NULL, NULL);
  g_signal_connect (self->context_spin, "output", G_CALLBACK (on_spin_output_cb), NULL);
  g_signal_connect (self->context_spin, "input", G_CALLBACK (on_spin_input_cb), NULL);
  g_signal_connect (self->max_output_spin, "output", G_CALLBACK (on_spin_output_cb), NULL);
  g_signal_connect (self->max_output_spin, "input", G_CALLBACK (on_spin_input_cb), NULL);
}

OwModelSettingsDialog *
ow_model_settings_dialog_new (GtkWindow *parent, const char *config_path, const char *model_id)
{
  OwModelSettingsDialog *self;
  g_autoptr(GTask) task = NULL;
  g_autofree char *title = NULL;
  const OwProviderEntry *entry = NULL;
  g_autofree char *bare = NULL;

  g_return_val_if_fail (config_path != NULL && model_id != NULL, NULL);

  self = g_object_new (OW_TYPE_MODEL_SETTINGS_DIALOG, "transient-for", parent, NULL);
  self->config_path = g_strdup (config_path);
  self->model_id = g_strdup (model_id);
  /* TRANSLATORS: the window title; %s is a model id such as anthropic:claude-sonnet-4-6 */
  title = g_strdup_printf (_("Settings for %s"), model_id);
  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_label_set_label (self->model_label, model_id);

  /* llama.cpp and vLLM fix the context size when they start. */
  if (ow_model_id_split (model_id, &entry, &bare, NULL)
      && (g_str_equal (entry->id, "llamacpp") || g_str_equal (entry->id, "vllm")))
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->context_spin), FALSE);
      gtk_widget_set_visible (self->context_note, TRUE);
    }

  set_busy (self, TRUE);
  task = g_task_new (NULL, self->cancellable, on_loaded_cb, self);
  g_task_set_task_data (task, g_strdup (config_path), g_free);
  g_task_run_in_thread (task, load_in_thread);
  return self;
}

const char *
ow_model_settings_dialog_get_model_id (OwModelSettingsDialog *self)
{
  g_return_val_if_fail (OW_IS_MODEL_SETTINGS_DIALOG (self), NULL);
  return self->model_id;
}
