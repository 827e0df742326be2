/* ow-settings-approvals-page.c: Settings ▸ Approvals (see ow-settings-approvals-page.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-approvals-page.h"

#include "ow-format.h"

#include <glib/gi18n-lib.h>

#include "ow-settings-io.h"

/* How often the standing rules are looked at while the page is shown:
 * another process (the CLI, the server) may add or revoke one. */
#define POLL_SECONDS 1

struct _OwSettingsApprovalsPage
{
  AdwPreferencesPage parent_instance;

  /* template widgets */
  GtkDropDown    *mode_drop;
  AdwActionRow   *mode_row;
  GtkLabel       *mode_message;
  GtkCheckButton *show_all_check;
  GtkListBox     *rules_list;
  GtkLabel       *rules_message;
  GtkLabel       *allow_file_label;
  GtkListBox     *allow_list;
  GtkLabel       *deny_file_label;
  GtkListBox     *deny_list;

  /* owned references */
  OwContext      *ctx;
  GCancellable   *cancellable;

  /* state */
  gboolean        updating;
  gint64          rules_version;
  guint           poll_id;
  gulong          config_handler;
};

G_DEFINE_FINAL_TYPE (OwSettingsApprovalsPage, ow_settings_approvals_page, ADW_TYPE_PREFERENCES_PAGE)

static const char *const default_modes[] = { "ask", "auto-approve", "bypass-approvals", "plan", "discuss", NULL };

const char *const *
ow_default_modes (void)
{
  return default_modes;
}

const char *
ow_mode_title (const char *mode)
{
  /* One name per mode on every surface: the composer's. */
  return ow_format_mode_label (mode);
}

const char *
ow_mode_blurb (const char *mode)
{
  if (g_strcmp0 (mode, "ask") == 0)
    return _("Writes, sends and commands wait for your approval; reading is free.");
  if (g_strcmp0 (mode, "auto-approve") == 0)
    return _("A reviewer model lets routine actions through and asks you about anything it is unsure of.");
  if (g_strcmp0 (mode, "bypass-approvals") == 0)
    return _("Actions run without asking, except safety checks and hard floors.");
  if (g_strcmp0 (mode, "plan") == 0)
    return _("The coworker reads and proposes a plan; nothing consequential runs.");
  if (g_strcmp0 (mode, "discuss") == 0)
    return _("Conversation only: no consequential tool runs.");
  return "";
}

/* "29 Nov 2025 13:40" in local time; the text itself when it does not parse. */
static char *
format_time (const char *iso)
{
  g_autoptr(GDateTime) utc = iso != NULL ? g_date_time_new_from_iso8601 (iso, NULL) : NULL;
  g_autoptr(GDateTime) local = utc != NULL ? g_date_time_to_local (utc) : NULL;

  if (local == NULL)
    return g_strdup (iso != NULL ? iso : "?");
  return g_date_time_format (local, "%e %b %Y %H:%M");
}

char *
ow_standing_rule_provenance (const OwStandingRule *rule)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *when = format_time (rule->created_at);
  const char *by = rule->created_by != NULL && *rule->created_by != '\0' ? rule->created_by : _("someone");

  g_strstrip (when);
  if (rule->session_id != NULL && *rule->session_id != '\0')
    {
      g_autofree char *session = g_strndup (rule->session_id, 8);
      /* TRANSLATORS: provenance of a standing rule: who, which session, when */
      g_string_append_printf (out, _("Made by %s in session %s, %s"), by, session, when);
    }
  else
    /* TRANSLATORS: provenance of a standing rule: who, when */
    g_string_append_printf (out, _("Made by %s, %s"), by, when);
  if (rule->reason != NULL && *rule->reason != '\0')
    /* TRANSLATORS: follows the provenance; %s is the person's reason */
    g_string_append_printf (out, _(" — “%s”"), rule->reason);
  if (rule->expires_at != NULL)
    {
      g_autofree char *until = format_time (rule->expires_at);
      g_strstrip (until);
      /* TRANSLATORS: %s is when a rule expires */
      g_string_append_printf (out, _("; until %s"), until);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

gboolean
ow_standing_rule_in_force (const OwStandingRule *rule, GDateTime *now)
{
  g_autoptr(GDateTime) expires = NULL;

  if (rule->revoked_at != NULL)
    return FALSE;
  if (rule->expires_at == NULL)
    return TRUE;
  expires = g_date_time_new_from_iso8601 (rule->expires_at, NULL);
  return expires == NULL || g_date_time_compare (expires, now) > 0;
}

char *
ow_standing_rule_state (const OwStandingRule *rule, GDateTime *now)
{
  g_autofree char *when = NULL;

  if (rule->revoked_at != NULL)
    {
      when = format_time (rule->revoked_at);
      g_strstrip (when);
      /* TRANSLATORS: %s is when the rule was revoked */
      return g_strdup_printf (_("Revoked %s"), when);
    }
  if (!ow_standing_rule_in_force (rule, now))
    {
      when = format_time (rule->expires_at);
      g_strstrip (when);
      /* TRANSLATORS: %s is when the rule expired */
      return g_strdup_printf (_("Expired %s"), when);
    }
  return g_strdup (_("In force"));
}

static GtkWidget *
wrap_label (const char *text, const char *css)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (css != NULL)
    gtk_widget_add_css_class (label, css);
  return label;
}

static void
clear_list (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

static void
add_placeholder (GtkListBox *list, const char *text)
{
  GtkWidget *label = wrap_label (text, "dim-label");

  gtk_list_box_append (list, label);
}

/* ---- Standing rules ---------------------------------------------------------------- */

static GtkWidget *
rule_row (const OwStandingRule *rule, GDateTime *now)
{
  gboolean in_force = ow_standing_rule_in_force (rule, now);
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *head = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *rule_label = wrap_label (rule->rule, "monospace");
  GtkWidget *decision = gtk_label_new (g_strcmp0 (rule->decision, "deny") == 0 ? _("Deny") : _("Allow"));
  g_autofree char *provenance = ow_standing_rule_provenance (rule);
  g_autofree char *state = ow_standing_rule_state (rule, now);
  g_autofree char *name = g_strdup_printf ("rule-%" G_GINT64_FORMAT, rule->id);

  gtk_widget_set_name (row, name);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_label_set_selectable (GTK_LABEL (rule_label), TRUE);
  gtk_widget_add_css_class (decision, "ow-chip");
  gtk_widget_set_valign (decision, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (head), decision);
  gtk_box_append (GTK_BOX (head), rule_label);
  gtk_box_append (GTK_BOX (text), head);
  gtk_box_append (GTK_BOX (text), wrap_label (provenance, "caption"));
  gtk_box_append (GTK_BOX (text), wrap_label (state, in_force ? "dim-label" : "ow-warning-text"));
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (box), text);
  if (in_force)
    {
      GtkWidget *revoke = gtk_button_new_with_label (_("Revoke"));
      /* TRANSLATORS: accessible name of a Revoke button; %s is the rule */
      g_autofree char *label = g_strdup_printf (_("Revoke %s"), rule->rule);

      gtk_widget_set_valign (revoke, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (revoke, "destructive-action");
      gtk_actionable_set_action_name (GTK_ACTIONABLE (revoke), "approvals.revoke");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (revoke), "x", rule->id);
      gtk_accessible_update_property (GTK_ACCESSIBLE (revoke), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      gtk_box_append (GTK_BOX (box), revoke);
    }
  else
    gtk_widget_add_css_class (text, "dim-label");
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  return row;
}

void
ow_settings_approvals_page_reload (OwSettingsApprovalsPage *self)
{
  OwStore *store = ow_context_get_store (self->ctx);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rules = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  gboolean show_all = gtk_check_button_get_active (self->show_all_check);
  guint shown = 0;

  g_return_if_fail (OW_IS_SETTINGS_APPROVALS_PAGE (self));

  self->rules_version = ow_standing_rules_version (store);
  rules = ow_standing_rules_list (store, &error);
  clear_list (self->rules_list);
  gtk_label_set_label (self->rules_message, error != NULL ? error->message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->rules_message), error != NULL);
  for (guint i = 0; rules != NULL && i < rules->len; i++)
    {
      const OwStandingRule *rule = g_ptr_array_index (rules, i);

      if (!show_all && !ow_standing_rule_in_force (rule, now))
        continue;
      gtk_list_box_append (self->rules_list, rule_row (rule, now));
      shown++;
    }
  if (shown == 0)
    add_placeholder (self->rules_list, _("No standing rules yet. “Always allow” on an approval card makes one."));
}

static gboolean
poll_rules_cb (gpointer user_data)
{
  OwSettingsApprovalsPage *self = user_data;

  if (ow_standing_rules_version (ow_context_get_store (self->ctx)) != self->rules_version)
    ow_settings_approvals_page_reload (self);
  return G_SOURCE_CONTINUE;
}

static void
revoke_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsApprovalsPage *self = OW_SETTINGS_APPROVALS_PAGE (widget);
  g_autoptr(GError) error = NULL;

  if (!ow_standing_rules_revoke (ow_context_get_store (self->ctx), g_variant_get_int64 (parameter), &error))
    {
      gtk_label_set_label (self->rules_message, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->rules_message), TRUE);
      return;
    }
  ow_settings_approvals_page_reload (self);
}

static void
on_show_all_toggled_cb (GtkCheckButton *check, gpointer user_data)
{
  ow_settings_approvals_page_reload (OW_SETTINGS_APPROVALS_PAGE (user_data));
}

/* ---- The mode and the config's lists --------------------------------------------- */

static void
fill_rule_list (GtkListBox *list, const char *const *rules, const char *empty)
{
  clear_list (list);
  for (guint i = 0; rules != NULL && rules[i] != NULL; i++)
    {
      GtkWidget *label = wrap_label (rules[i], "monospace");

      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_list_box_append (list, label);
    }
  if (rules == NULL || rules[0] == NULL)
    add_placeholder (list, empty);
}

static void
refresh_from_config (OwSettingsApprovalsPage *self)
{
  OwConfig *config = ow_context_get_config (self->ctx);
  const char *mode = ow_approval_mode_canonical (ow_config_get_string (config, "approval_mode"));
  g_auto(GStrv) allow = ow_config_get_strv (config, "policy.allow");
  g_auto(GStrv) deny = ow_config_get_strv (config, "policy.deny");
  g_autofree char *path = ow_context_dup_config_path (self->ctx);
  g_autofree char *allow_text = NULL;
  g_autofree char *deny_text = NULL;
  guint selected = GTK_INVALID_LIST_POSITION;

  if (mode == NULL)
    mode = "ask";
  for (guint i = 0; default_modes[i] != NULL; i++)
    if (g_str_equal (default_modes[i], mode))
      selected = i;
  self->updating = TRUE;
  gtk_drop_down_set_selected (self->mode_drop, selected);
  self->updating = FALSE;
  adw_action_row_set_subtitle (self->mode_row, ow_mode_blurb (mode));
  if (selected == GTK_INVALID_LIST_POSITION)
    {
      /* TRANSLATORS: %s is the path of config.toml */
      g_autofree char *text = g_strdup_printf (_("%s sets approval_mode = \"%s\": every session starts skipping "
                                                 "safety checks. Choose a mode here to replace it."), path, mode);
      gtk_label_set_label (self->mode_message, text);
      gtk_widget_add_css_class (GTK_WIDGET (self->mode_message), "error");
      gtk_widget_set_visible (GTK_WIDGET (self->mode_message), TRUE);
    }
  else
    gtk_widget_set_visible (GTK_WIDGET (self->mode_message), FALSE);

  /* TRANSLATORS: %s is the path of config.toml */
  allow_text = g_strdup_printf (_("Read-only here: edit [policy] allow in %s."), path);
  gtk_label_set_label (self->allow_file_label, allow_text);
  fill_rule_list (self->allow_list, (const char *const *) allow, _("None: nothing is allowed by the config file."));
  /* TRANSLATORS: %s is the path of config.toml */
  deny_text = g_strdup_printf (_("Refused in every mode. Read-only here: edit [policy] deny in %s."), path);
  gtk_label_set_label (self->deny_file_label, deny_text);
  fill_rule_list (self->deny_list, (const char *const *) deny, _("None."));
}

static void
on_mode_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  OwSettingsApprovalsPage *self;

  if (ow_settings_config_set_finish (OW_CONTEXT (source), result, &error)
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_SETTINGS_APPROVALS_PAGE (user_data);
  gtk_label_set_label (self->mode_message, error->message);
  gtk_widget_add_css_class (GTK_WIDGET (self->mode_message), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->mode_message), TRUE);
}

static void
on_mode_selected_cb (GtkDropDown *drop, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsApprovalsPage *self = user_data;
  guint selected = gtk_drop_down_get_selected (drop);
  g_autoptr(JsonNode) value = NULL;

  if (self->updating || selected >= G_N_ELEMENTS (default_modes) - 1)
    return;
  adw_action_row_set_subtitle (self->mode_row, ow_mode_blurb (default_modes[selected]));
  value = ow_settings_node_string (default_modes[selected]);
  ow_settings_config_set_async (self->ctx, "approval_mode", value, self->cancellable, on_mode_written_cb, self);
}

static void
on_config_changed_cb (OwContext *ctx, gpointer user_data)
{
  refresh_from_config (OW_SETTINGS_APPROVALS_PAGE (user_data));
}

static GtkWidget *
mode_item_label (void)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  return label;
}

static void
setup_mode_item_cb (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  gtk_list_item_set_child (item, mode_item_label ());
}

static void
bind_mode_item_cb (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  const char *mode = gtk_string_object_get_string (gtk_list_item_get_item (item));

  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), ow_mode_title (mode));
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
ow_settings_approvals_page_map (GtkWidget *widget)
{
  OwSettingsApprovalsPage *self = OW_SETTINGS_APPROVALS_PAGE (widget);

  GTK_WIDGET_CLASS (ow_settings_approvals_page_parent_class)->map (widget);
  ow_settings_approvals_page_reload (self);
  if (self->poll_id == 0)
    self->poll_id = g_timeout_add_seconds (POLL_SECONDS, poll_rules_cb, self);
}

static void
ow_settings_approvals_page_unmap (GtkWidget *widget)
{
  OwSettingsApprovalsPage *self = OW_SETTINGS_APPROVALS_PAGE (widget);

  g_clear_handle_id (&self->poll_id, g_source_remove);
  GTK_WIDGET_CLASS (ow_settings_approvals_page_parent_class)->unmap (widget);
}

static void
ow_settings_approvals_page_dispose (GObject *object)
{
  OwSettingsApprovalsPage *self = OW_SETTINGS_APPROVALS_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->poll_id, g_source_remove);
  g_clear_signal_handler (&self->config_handler, self->ctx);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SETTINGS_APPROVALS_PAGE);
  g_clear_object (&self->ctx);
  G_OBJECT_CLASS (ow_settings_approvals_page_parent_class)->dispose (object);
}

static void
ow_settings_approvals_page_finalize (GObject *object)
{
  g_clear_object (&OW_SETTINGS_APPROVALS_PAGE (object)->cancellable);
  G_OBJECT_CLASS (ow_settings_approvals_page_parent_class)->finalize (object);
}

static void
ow_settings_approvals_page_class_init (OwSettingsApprovalsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_settings_approvals_page_dispose;
  object_class->finalize = ow_settings_approvals_page_finalize;
  widget_class->map = ow_settings_approvals_page_map;
  widget_class->unmap = ow_settings_approvals_page_unmap;

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/com/openworker/ui/settings/ow-settings-approvals-page.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, mode_drop);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, mode_row);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, mode_message);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, show_all_check);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, rules_list);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, rules_message);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, allow_file_label);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, allow_list);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, deny_file_label);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsApprovalsPage, deny_list);

  gtk_widget_class_install_action (widget_class, "approvals.revoke", "x", revoke_activated);
}

static void
ow_settings_approvals_page_init (OwSettingsApprovalsPage *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkStringList) modes = gtk_string_list_new (default_modes);

  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_mode_item_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_mode_item_cb), NULL);
  gtk_drop_down_set_factory (self->mode_drop, factory);
  gtk_drop_down_set_model (self->mode_drop, G_LIST_MODEL (modes));
}

GtkWidget *
ow_settings_approvals_page_new (OwContext *ctx)
{
  OwSettingsApprovalsPage *self;

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_SETTINGS_APPROVALS_PAGE, NULL);
  self->ctx = g_object_ref (ctx);
  refresh_from_config (self);
  ow_settings_approvals_page_reload (self);
  g_signal_connect (self->mode_drop, "notify::selected", G_CALLBACK (on_mode_selected_cb), self);
  g_signal_connect (self->show_all_check, "toggled", G_CALLBACK (on_show_all_toggled_cb), self);
  self->config_handler = g_signal_connect (ctx, "config-changed", G_CALLBACK (on_config_changed_cb), self);
  return GTK_WIDGET (self);
}
