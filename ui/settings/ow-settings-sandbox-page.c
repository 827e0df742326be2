/* ow-settings-sandbox-page.c: Settings ▸ Sandbox (see ow-settings-sandbox-page.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-sandbox-page.h"

#include "tools/ow-executor.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ow-credential-dialog.h"
#include "ow-json.h"
#include "ow-settings-io.h"
#include "ow-sites-dialog.h"
#include "sandbox/ow-credentials.h"
#include "sandbox/ow-machine-sandbox.h"
#include "sandbox/ow-sandbox-catalogue.h"

struct _OwSettingsSandboxPage
{
  AdwPreferencesPage parent_instance;

  /* template widgets */
  GtkSwitch    *sandbox_switch;
  AdwActionRow *switch_row;
  GtkLabel     *message_label;
  GtkWidget    *types_box;
  GtkListBox   *types_list;
  GtkWidget    *options_box;      /* the network group */
  GtkWidget    *toolchains_group;
  GtkWidget    *credentials_group;
  AdwActionRow *allowlist_row;
  GtkCheckButton *allowlist_radio;
  GtkCheckButton *open_radio;
  GtkListBox   *toolchains_list;
  GtkListBox   *credentials_list;
  GtkListBox   *catalogue_list;
  GtkPopover   *add_popover;
  GtkWidget    *add_credential_button;

  /* owned references */
  OwContext    *ctx;
  GCancellable *cancellable;
  GHashTable   *statuses;       /* provider → JsonObject (the last status check) */
  GStrv         providers;      /* registered sandbox types */
  GStrv         toolchains_here;/* catalogue toolchains this home has */
  GHashTable   *logins_found;   /* catalogue credential name → GINT_TO_POINTER (found) */

  /* state */
  gboolean      updating;       /* widgets are being set from the config */
  gboolean      want_on;        /* switched on, no type chosen yet */
  gboolean      busy;           /* a setup or a write is running */
  guint         n_statuses;
  guint         popup_ticks;    /* frames to wait before the Add popover opens */
  gulong        config_handler;
};

G_DEFINE_FINAL_TYPE (OwSettingsSandboxPage, ow_settings_sandbox_page, ADW_TYPE_PREFERENCES_PAGE)

enum { PROP_0, PROP_N_STATUSES, PROP_BUSY, N_PROPS };
static GParamSpec *props[N_PROPS];

const char *
ow_sandbox_type_title (const char *provider)
{
  if (g_strcmp0 (provider, "linux") == 0)
    return _("Linux sandbox");
  if (g_strcmp0 (provider, "openshell") == 0)
    return _("NVIDIA OpenShell");
  if (g_strcmp0 (provider, "seatbelt") == 0)
    return _("macOS sandbox");
  if (g_strcmp0 (provider, "windows") == 0)
    return _("Windows sandbox");
  return provider;
}

const char *
ow_sandbox_type_blurb (const char *provider)
{
  if (g_strcmp0 (provider, "linux") == 0)
    return _("Namespaces, Landlock and seccomp from the kernel this computer already runs: nothing to install.");
  if (g_strcmp0 (provider, "openshell") == 0)
    return _("One container per agent, driven by the openshell command; needs Docker and OpenShell.");
  if (g_strcmp0 (provider, "seatbelt") == 0)
    return _("The sandbox built into macOS: nothing to install.");
  if (g_strcmp0 (provider, "windows") == 0)
    return _("A hidden local account that cannot see your profile; set up once as an administrator.");
  return "";
}

static const char *
configured_provider (OwSettingsSandboxPage *self)
{
  const char *p = ow_config_get_string (ow_context_get_config (self->ctx), "sandbox_provider");

  return p != NULL ? p : "direct";
}

static void
set_busy (OwSettingsSandboxPage *self, gboolean busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  gtk_widget_set_sensitive (GTK_WIDGET (self->sandbox_switch), !busy);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
}

static void
say (OwSettingsSandboxPage *self, gboolean error, const char *message)
{
  gtk_label_set_label (self->message_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->message_label), message != NULL);
  if (error)
    gtk_widget_add_css_class (GTK_WIDGET (self->message_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->message_label), "error");
}

static GtkWidget *
caption_label (const char *text, gboolean dim)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (dim)
    {
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "caption");
    }
  return label;
}

static GtkWidget *
chip (const char *text, const char *css)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_widget_add_css_class (label, "ow-chip");
  if (css != NULL)
    gtk_widget_add_css_class (label, css);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  return label;
}

static void
clear_list (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

/* ---- Writing config.toml ------------------------------------------------------------ */

static void
on_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  OwSettingsSandboxPage *self;

  if (!ow_settings_config_set_finish (OW_CONTEXT (source), result, &error)
      && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_SETTINGS_SANDBOX_PAGE (user_data);
  set_busy (self, FALSE);
  if (error != NULL)
    say (self, TRUE, error->message);
}

static void
write_key (OwSettingsSandboxPage *self, const char *key, JsonNode *value)
{
  set_busy (self, TRUE);
  ow_settings_config_set_async (self->ctx, key, value, self->cancellable, on_written_cb, self);
}

/* ---- Sandbox types ------------------------------------------------------------------- */

static void refresh_types (OwSettingsSandboxPage *self);

static GtkWidget *
findings_box (JsonObject *status)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  JsonArray *checks = ow_json_get_array (status, "checks");
  JsonArray *missing = ow_json_get_array (status, "missing");
  g_autoptr(GPtrArray) more = g_ptr_array_new ();
  g_autoptr(GHashTable) said = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);
      gboolean ok = ow_json_get_bool (c, "ok", FALSE);

      if (!ok && ow_json_get_string (c, "detail") != NULL)
        g_hash_table_add (said, (gpointer) ow_json_get_string (c, "detail"));
    }
  /* The status lists each failed check's detail again under "missing":
   * say it once. */
  for (guint i = 0; missing != NULL && i < json_array_get_length (missing); i++)
    {
      const char *m = json_array_get_string_element (missing, i);

      if (m != NULL && !g_hash_table_contains (said, m))
        g_ptr_array_add (more, (gpointer) m);
    }

  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *c = json_array_get_object_element (checks, i);
      gboolean ok = ow_json_get_bool (c, "ok", FALSE);
      g_autofree char *line = g_strdup_printf ("%s  %s: %s", ok ? "✓" : "✗", ow_json_get_string (c, "name"),
                                               ow_json_get_string (c, "detail") != NULL
                                                 ? ow_json_get_string (c, "detail") : "");
      GtkWidget *label = caption_label (line, FALSE);

      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, ok ? "ow-ok" : "error");
      gtk_box_append (GTK_BOX (box), label);
    }
  if (more->len > 0)
    {
      gtk_box_append (GTK_BOX (box), caption_label (_("What is missing:"), FALSE));
      for (guint i = 0; i < more->len; i++)
        {
          g_autofree char *line = g_strdup_printf ("•  %s", (const char *) g_ptr_array_index (more, i));
          gtk_box_append (GTK_BOX (box), caption_label (line, FALSE));
        }
    }
  return box;
}

static GtkWidget *
type_row (OwSettingsSandboxPage *self, const char *provider)
{
  JsonObject *status = g_hash_table_lookup (self->statuses, provider);
  gboolean in_use = g_str_equal (configured_provider (self), provider);
  gboolean ready = status != NULL && ow_json_get_bool (status, "ready", FALSE);
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title = gtk_label_new (ow_sandbox_type_title (provider));
  GtkWidget *button;

  gtk_widget_set_name (row, provider);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");
  gtk_box_append (GTK_BOX (text), title);
  gtk_box_append (GTK_BOX (text), caption_label (ow_sandbox_type_blurb (provider), TRUE));
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (top), text);

  if (status == NULL)
    gtk_box_append (GTK_BOX (top), chip (_("Checking…"), NULL));
  else if (in_use)
    gtk_box_append (GTK_BOX (top), chip (ready ? _("In use") : _("In use, but not ready"), ready ? "ow-ok" : "error"));
  else
    gtk_box_append (GTK_BOX (top), chip (ready ? _("Ready to set up") : _("Not ready"), ready ? NULL : "dim-label"));

  if (!in_use)
    {
      button = gtk_button_new_with_label (_("Set Up"));
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (button, _("Prove the wall on a throwaway folder, then use this sandbox"));
      /* A button bound to an action takes its sensitivity from the action,
       * so one that must stay off is left unbound. */
      if (ready && !self->busy)
        {
          gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "sandbox.setup");
          gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", provider);
        }
      else
        gtk_widget_set_sensitive (button, FALSE);
      gtk_widget_add_css_class (button, "suggested-action");
      gtk_box_append (GTK_BOX (top), button);
    }
  button = gtk_button_new_with_label (_("Check Again"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "sandbox.check");
  gtk_box_append (GTK_BOX (top), button);
  gtk_box_append (GTK_BOX (outer), top);

  if (status != NULL)
    {
      const char *heading = _("What the status check found");
      GtkWidget *expander = gtk_expander_new (heading);

      /* GTK 4.8 does not name an expander from its label. */
      gtk_accessible_update_property (GTK_ACCESSIBLE (expander), GTK_ACCESSIBLE_PROPERTY_LABEL, heading, -1);

      gtk_expander_set_child (GTK_EXPANDER (expander), findings_box (status));
      /* What stands in the way is shown without a click. */
      gtk_expander_set_expanded (GTK_EXPANDER (expander), !ready);
      gtk_box_append (GTK_BOX (outer), expander);
    }
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), outer);
  return row;
}

static void
refresh_types (OwSettingsSandboxPage *self)
{
  clear_list (self->types_list);
  for (guint i = 0; self->providers[i] != NULL; i++)
    gtk_list_box_append (self->types_list, type_row (self, self->providers[i]));
  if (self->providers[0] == NULL)
    {
      GtkWidget *row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row),
                                  caption_label (_("This build of OpenWorker has no sandbox for this system."), TRUE));
      gtk_list_box_append (self->types_list, row);
    }
}

typedef struct {
  OwSettingsSandboxPage *page;   /* a reference */
  char                  *provider;
} StatusOp;

static void
on_status_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  StatusOp *op = user_data;
  g_autoptr(GError) error = NULL;
  JsonObject *status = ow_machine_sandbox_status_finish (result, &error);
  OwSettingsSandboxPage *self = op->page;

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      if (status == NULL)
        {
          /* No answer is a finding too: shown as a failed check. */
          JsonObject *check = json_object_new ();
          JsonArray *checks = json_array_new ();

          status = json_object_new ();
          json_object_set_boolean_member (status, "ready", FALSE);
          json_object_set_string_member (check, "name", "status");
          json_object_set_boolean_member (check, "ok", FALSE);
          json_object_set_string_member (check, "detail", error->message);
          json_array_add_object_element (checks, check);
          json_object_set_array_member (status, "checks", checks);
        }
      g_hash_table_replace (self->statuses, g_strdup (op->provider), status);
      self->n_statuses++;
      refresh_types (self);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_N_STATUSES]);
    }
  else if (status != NULL)
    json_object_unref (status);
  g_object_unref (op->page);
  g_free (op->provider);
  g_free (op);
}

static void
check_all (OwSettingsSandboxPage *self)
{
  g_autofree char *path = ow_context_dup_config_path (self->ctx);

  g_hash_table_remove_all (self->statuses);
  for (guint i = 0; self->providers[i] != NULL; i++)
    {
      StatusOp *op = g_new0 (StatusOp, 1);

      op->page = g_object_ref (self);
      op->provider = g_strdup (self->providers[i]);
      ow_machine_sandbox_status_async (path, self->providers[i], self->cancellable, on_status_cb, op);
    }
  refresh_types (self);
}

static void
check_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  check_all (OW_SETTINGS_SANDBOX_PAGE (widget));
}

typedef struct {
  OwSettingsSandboxPage *page;   /* a reference */
  OwSandboxBackend      *backend;
  char                  *provider;
  char                  *enforcement;
} SetupOp;

static void
setup_op_free (SetupOp *op)
{
  g_object_unref (op->page);
  g_clear_object (&op->backend);
  g_free (op->provider);
  g_free (op->enforcement);
  g_free (op);
}

static void
on_provider_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SetupOp *op = user_data;
  g_autoptr(GError) error = NULL;
  OwSettingsSandboxPage *self = op->page;

  if (!ow_settings_config_set_finish (OW_CONTEXT (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        say (self, TRUE, error->message);
    }
  else
    {
      g_autofree char *how = ow_settings_describe_enforcement (op->enforcement);
      /* TRANSLATORS: %s names the sandbox; the second %s says what it was proved to use, in words */
      g_autofree char *text = g_strdup_printf (_("The %s works on this computer: %s. New sessions run their commands "
                                                 "and file tools behind it."), ow_sandbox_type_title (op->provider), how);
      self->want_on = FALSE;
      say (self, FALSE, text);
    }
  set_busy (self, FALSE);
  refresh_types (self);
  setup_op_free (op);
}

static void
on_proved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SetupOp *op = user_data;
  g_autoptr(GError) error = NULL;
  OwSettingsSandboxPage *self = op->page;
  g_autoptr(JsonNode) value = NULL;

  op->enforcement = ow_machine_sandbox_prove_finish (OW_SANDBOX_BACKEND (source), result, &error);
  if (op->enforcement == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* TRANSLATORS: %s is why the sandbox could not be proved */
          g_autofree char *text = g_strdup_printf (_("The sandbox could not be proved, so it was not turned on: %s"),
                                                   error->message);
          say (self, TRUE, text);
        }
      set_busy (self, FALSE);
      refresh_types (self);
      setup_op_free (op);
      return;
    }
  /* Only a proved wall is chosen. */
  value = ow_settings_node_string (op->provider);
  ow_settings_config_set_async (self->ctx, "sandbox_provider", value, self->cancellable, on_provider_written_cb, op);
}

static void
setup_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (widget);
  const char *provider = g_variant_get_string (parameter, NULL);
  g_autoptr(GError) error = NULL;
  OwSandboxBackend *backend = ow_sandbox_backend_for (provider, &error);
  SetupOp *op;

  if (backend == NULL)
    {
      say (self, TRUE, error->message);
      return;
    }
  op = g_new0 (SetupOp, 1);
  op->page = g_object_ref (self);
  op->backend = backend;
  op->provider = g_strdup (provider);
  set_busy (self, TRUE);
  refresh_types (self);
  say (self, FALSE, _("Proving the wall on a throwaway folder…"));
  ow_machine_sandbox_prove_async (backend, self->cancellable, on_proved_cb, op);
}

/* ---- The switch ---------------------------------------------------------------------- */

static void
update_visibility (OwSettingsSandboxPage *self)
{
  gboolean on = !g_str_equal (configured_provider (self), "direct");

  gtk_widget_set_visible (self->types_box, on || self->want_on);
  gtk_widget_set_visible (self->options_box, on);
  gtk_widget_set_visible (self->toolchains_group, on);
  gtk_widget_set_visible (self->credentials_group, on);
}

static void update_switch_detail (OwSettingsSandboxPage *self, const char *provider);

static void
on_switch_active_cb (GtkSwitch *sw, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;
  gboolean on = !g_str_equal (configured_provider (self), "direct");

  if (self->updating)
    return;
  if (gtk_switch_get_active (sw))
    {
      /* Nothing changes until a type is proved and chosen. */
      self->want_on = TRUE;
      update_switch_detail (self, configured_provider (self));
      if (!on)
        say (self, FALSE, _("Set up one of the sandbox types below. Until one is proved, tools keep running directly."));
    }
  else
    {
      self->want_on = FALSE;
      update_switch_detail (self, configured_provider (self));
      say (self, FALSE, NULL);
      if (on)
        {
          g_autoptr(JsonNode) value = ow_settings_node_string ("direct");
          write_key (self, "sandbox_provider", value);
        }
    }
  update_visibility (self);
}

/* ---- Network ----------------------------------------------------------------------- */

static void
on_network_toggled_cb (GtkCheckButton *button, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;
  const char *current = ow_config_get_string (ow_context_get_config (self->ctx), "sandbox_network_profile");
  const char *chosen;
  g_autoptr(JsonNode) value = NULL;

  if (self->updating || !gtk_check_button_get_active (button))
    return;
  chosen = button == self->open_radio ? "open" : "allowlist";
  if (g_strcmp0 (current != NULL ? current : "allowlist", chosen) == 0)
    return;
  value = ow_settings_node_string (chosen);
  write_key (self, "sandbox_network_profile", value);
}

static void
on_sites_saved_cb (OwSitesDialog *dialog, GStrv hosts, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;
  g_autoptr(JsonNode) value = ow_settings_node_strv ((const char *const *) hosts);

  write_key (self, "sandbox_network_hosts", value);
}

static void
choose_sites_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (widget);
  g_auto(GStrv) hosts = ow_config_get_strv (ow_context_get_config (self->ctx), "sandbox_network_hosts");
  GtkRoot *root = gtk_widget_get_root (widget);
  OwSitesDialog *dialog = ow_sites_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                               (const char *const *) hosts);

  g_signal_connect_object (dialog, "saved", G_CALLBACK (on_sites_saved_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- Toolchains -------------------------------------------------------------------- */

static void
on_toolchain_switched_cb (GtkSwitch *sw, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;
  const char *path = g_object_get_data (G_OBJECT (sw), "ow-path");
  g_auto(GStrv) current = ow_config_get_strv (ow_context_get_config (self->ctx), "sandbox_toolchains");
  g_autoptr(GStrvBuilder) next = g_strv_builder_new ();
  g_auto(GStrv) list = NULL;
  g_autoptr(JsonNode) value = NULL;
  gboolean on = gtk_switch_get_active (sw);

  if (self->updating)
    return;
  for (guint i = 0; current != NULL && current[i] != NULL; i++)
    if (!g_str_equal (current[i], path))
      g_strv_builder_add (next, current[i]);
  if (on)
    g_strv_builder_add (next, path);
  list = g_strv_builder_end (next);
  value = ow_settings_node_strv ((const char *const *) list);
  write_key (self, "sandbox_toolchains", value);
}

static GtkWidget *
switch_row (OwSettingsSandboxPage *self, const char *title, const char *subtitle, gboolean active,
            GCallback on_switched, const char *path_data, GtkWidget *extra)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *label = gtk_label_new (title);
  GtkWidget *sw = gtk_switch_new ();

  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_box_append (GTK_BOX (text), label);
  if (subtitle != NULL)
    gtk_box_append (GTK_BOX (text), caption_label (subtitle, TRUE));
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (box), text);
  if (extra != NULL)
    gtk_box_append (GTK_BOX (box), extra);
  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  gtk_switch_set_active (GTK_SWITCH (sw), active);
  gtk_accessible_update_property (GTK_ACCESSIBLE (sw), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  g_object_set_data_full (G_OBJECT (sw), "ow-path", g_strdup (path_data), g_free);
  g_signal_connect (sw, "notify::active", on_switched, self);
  gtk_box_append (GTK_BOX (box), sw);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_widget_set_name (row, path_data);
  return row;
}

static const char *
toolchain_label (const char *path)
{
  gsize n;
  const OwToolchainDir *dirs = ow_toolchain_catalogue (&n);

  for (gsize i = 0; i < n; i++)
    if (g_str_equal (dirs[i].path, path))
      return dirs[i].label;
  return NULL;
}

static void
refresh_toolchains (OwSettingsSandboxPage *self)
{
  g_auto(GStrv) on = ow_config_get_strv (ow_context_get_config (self->ctx), "sandbox_toolchains");
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();

  clear_list (self->toolchains_list);
  for (guint i = 0; self->toolchains_here != NULL && self->toolchains_here[i] != NULL; i++)
    g_ptr_array_add (shown, self->toolchains_here[i]);
  /* Folders one added oneself, and switched-on ones not (or no longer) found. */
  for (guint i = 0; on != NULL && on[i] != NULL; i++)
    if (self->toolchains_here == NULL || !g_strv_contains ((const char *const *) self->toolchains_here, on[i]))
      g_ptr_array_add (shown, on[i]);
  for (guint i = 0; i < shown->len; i++)
    {
      const char *path = g_ptr_array_index (shown, i);
      const char *label = toolchain_label (path);
      g_autofree char *where = g_strconcat ("~/", path, NULL);

      gtk_list_box_append (self->toolchains_list,
                           switch_row (self, label != NULL ? label : where, label != NULL ? where : NULL,
                                       on != NULL && g_strv_contains ((const char *const *) on, path),
                                       G_CALLBACK (on_toolchain_switched_cb), path, NULL));
    }
  if (shown->len == 0)
    {
      GtkWidget *row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row),
                                  caption_label (_("No developer toolchains were found under your home folder."), TRUE));
      gtk_list_box_append (self->toolchains_list, row);
    }
}

static void
on_toolchain_folder_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());
  g_autofree char *relative = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      relative = folder != NULL ? g_file_get_relative_path (home, folder) : NULL;
      if (relative == NULL)
        say (self, TRUE, _("A toolchain folder must be inside your home folder."));
      else
        {
          g_auto(GStrv) current = ow_config_get_strv (ow_context_get_config (self->ctx), "sandbox_toolchains");
          g_autoptr(GStrvBuilder) next = g_strv_builder_new ();
          g_auto(GStrv) list = NULL;
          g_autoptr(JsonNode) value = NULL;

          if (current != NULL)
            g_strv_builder_addv (next, (const char **) current);
          if (current == NULL || !g_strv_contains ((const char *const *) current, relative))
            g_strv_builder_add (next, relative);
          list = g_strv_builder_end (next);
          value = ow_settings_node_strv ((const char *const *) list);
          write_key (self, "sandbox_toolchains", value);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
add_toolchain_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkFileChooserNative *chooser =
    gtk_file_chooser_native_new (_("Choose a Toolchain Folder"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                 GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Add"), _("_Cancel"));
  g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), home, NULL);
  g_signal_connect (chooser, "response", G_CALLBACK (on_toolchain_folder_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- Credentials ------------------------------------------------------------------- */

static JsonArray *
credentials_copy (OwSettingsSandboxPage *self)
{
  JsonArray *current = ow_config_get_array (ow_context_get_config (self->ctx), "sandbox_credentials");
  JsonArray *copy = json_array_new ();

  for (guint i = 0; current != NULL && i < json_array_get_length (current); i++)
    json_array_add_element (copy, json_node_copy (json_array_get_element (current, i)));
  return copy;
}

static void
write_credentials (OwSettingsSandboxPage *self, JsonArray *tables)
{
  g_autoptr(JsonNode) value = json_node_init_array (json_node_alloc (), tables);

  write_key (self, "sandbox_credentials", value);
}

static void
on_credential_switched_cb (GtkSwitch *sw, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;
  guint index = (guint) g_ascii_strtoull (g_object_get_data (G_OBJECT (sw), "ow-path"), NULL, 10);
  g_autoptr(JsonArray) tables = NULL;

  if (self->updating)
    return;
  tables = credentials_copy (self);
  if (index >= json_array_get_length (tables))
    return;
  json_object_set_boolean_member (json_array_get_object_element (tables, index), "enabled",
                                  gtk_switch_get_active (sw));
  write_credentials (self, tables);
}

static void
remove_credential_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (widget);
  guint index = g_variant_get_uint32 (parameter);
  g_autoptr(JsonArray) tables = credentials_copy (self);

  if (index >= json_array_get_length (tables))
    return;
  json_array_remove_element (tables, index);
  write_credentials (self, tables);
}

static char *
hosts_text (const char *const *hosts)
{
  if (hosts == NULL || hosts[0] == NULL)
    return g_strdup (_("no sites"));
  return g_strjoinv (", ", (char **) hosts);
}

static void
refresh_credentials (OwSettingsSandboxPage *self)
{
  JsonArray *tables = ow_config_get_array (ow_context_get_config (self->ctx), "sandbox_credentials");
  guint n = tables != NULL ? json_array_get_length (tables) : 0;

  clear_list (self->credentials_list);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *t = json_array_get_object_element (tables, i);
      const char *name = t != NULL ? ow_json_get_string (t, "name") : NULL;
      const OwCredentialKind *kind = name != NULL ? ow_credential_kind_lookup (name) : NULL;
      gboolean enabled = t != NULL && ow_json_get_bool (t, "enabled", TRUE);
      g_autofree char *index = g_strdup_printf ("%u", i);
      g_autofree char *subtitle = NULL;
      g_autofree char *hosts = NULL;
      GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");
      g_autofree char *remove_label = NULL;
      g_autoptr(GStrvBuilder) hb = g_strv_builder_new ();
      g_auto(GStrv) hv = NULL;
      JsonArray *ha = t != NULL ? ow_json_get_array (t, "hosts") : NULL;

      if (name == NULL)
        continue;
      for (guint k = 0; ha != NULL && k < json_array_get_length (ha); k++)
        if (json_array_get_string_element (ha, k) != NULL)
          g_strv_builder_add (hb, json_array_get_string_element (ha, k));
      hv = g_strv_builder_end (hb);
      hosts = hosts_text (kind != NULL ? kind->hosts : (const char *const *) hv);
      if (kind != NULL)
        /* TRANSLATORS: "~/.ssh · credential · github.com:22, gitlab.com:22" */
        subtitle = g_strdup_printf ("~/%s · %s · %s", kind->source, kind->secret ? _("credential") : _("configuration"),
                                    hosts);
      else
        subtitle = g_strdup_printf ("%s · %s · %s", ow_json_get_string (t, "path") != NULL ? ow_json_get_string (t, "path") : "?",
                                    g_strcmp0 (ow_json_get_string (t, "kind"), "configuration") == 0 ? _("configuration")
                                                                                                : _("credential"),
                                    hosts);
      gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (remove, "flat");
      gtk_actionable_set_action_name (GTK_ACTIONABLE (remove), "sandbox.remove-credential");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (remove), "u", i);
      /* TRANSLATORS: accessible name of a Remove button; %s is what is shared */
      remove_label = g_strdup_printf (_("Stop sharing %s"), kind != NULL ? kind->label : name);
      gtk_widget_set_tooltip_text (remove, remove_label);
      gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, remove_label, -1);
      gtk_list_box_append (self->credentials_list,
                           switch_row (self, kind != NULL ? kind->label : name, subtitle, enabled,
                                       G_CALLBACK (on_credential_switched_cb), index, remove));
    }
  if (n == 0)
    {
      GtkWidget *row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row),
                                  caption_label (_("Nothing is shared with the sandbox."), TRUE));
      gtk_list_box_append (self->credentials_list, row);
    }
}

static void
add_credential_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (widget);
  g_autoptr(JsonArray) tables = credentials_copy (self);
  JsonObject *t = json_object_new ();

  json_object_set_string_member (t, "name", g_variant_get_string (parameter, NULL));
  json_object_set_boolean_member (t, "enabled", TRUE);
  json_array_add_object_element (tables, t);
  gtk_popover_popdown (self->add_popover);
  write_credentials (self, tables);
}

static void
on_custom_credential_cb (OwCredentialDialog *dialog, JsonObject *table, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;
  g_autoptr(JsonArray) tables = credentials_copy (self);

  json_array_add_object_element (tables, json_object_ref (table));
  write_credentials (self, tables);
}

static void
add_custom_credential_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  OwCredentialDialog *dialog = ow_credential_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL);

  gtk_popover_popdown (self->add_popover);
  g_signal_connect_object (dialog, "added", G_CALLBACK (on_custom_credential_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
refresh_catalogue (OwSettingsSandboxPage *self)
{
  JsonArray *tables = ow_config_get_array (ow_context_get_config (self->ctx), "sandbox_credentials");
  gsize n;
  const OwCredentialKind *kinds = ow_credential_catalogue (&n);

  clear_list (self->catalogue_list);
  for (gsize i = 0; i < n; i++)
    {
      gboolean found = self->logins_found != NULL
                       && GPOINTER_TO_INT (g_hash_table_lookup (self->logins_found, kinds[i].name));
      gboolean added = FALSE;
      GtkWidget *button = gtk_button_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *title = gtk_label_new (kinds[i].label);
      g_autofree char *hosts = hosts_text (kinds[i].hosts);
      g_autofree char *detail = NULL;

      for (guint k = 0; tables != NULL && k < json_array_get_length (tables); k++)
        {
          JsonObject *t = json_array_get_object_element (tables, k);
          if (t != NULL && g_strcmp0 (ow_json_get_string (t, "name"), kinds[i].name) == 0)
            added = TRUE;
        }
      /* TRANSLATORS: "~/.ssh — found · github.com:22, gitlab.com:22" */
      detail = g_strdup_printf ("~/%s — %s · %s", kinds[i].source,
                                added ? _("added") : found ? _("found") : _("not found on this computer"), hosts);
      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_box_append (GTK_BOX (box), title);
      gtk_box_append (GTK_BOX (box), caption_label (detail, TRUE));
      gtk_button_set_child (GTK_BUTTON (button), box);
      /* A button holding a box is not named by the labels inside it. */
      gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, kinds[i].label,
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, detail, -1);
      gtk_widget_add_css_class (button, "flat");
      /* Unbound when there is nothing to add: an action would switch it back on. */
      if (found && !added)
        {
          gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "sandbox.add-credential");
          gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", kinds[i].name);
        }
      else
        gtk_widget_set_sensitive (button, FALSE);
      gtk_widget_set_name (button, kinds[i].name);
      gtk_list_box_append (self->catalogue_list, button);
    }
}

/* ---- What this home has (read in a thread) -------------------------------------------- */

typedef struct {
  GStrv       toolchains;   /* catalogue toolchains present */
  GHashTable *logins;       /* name → found */
} HomeScan;

static void
home_scan_free (HomeScan *scan)
{
  g_strfreev (scan->toolchains);
  g_clear_pointer (&scan->logins, g_hash_table_unref);
  g_free (scan);
}

static void
scan_home_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  HomeScan *scan = g_new0 (HomeScan, 1);
  const char *home = g_get_home_dir ();
  g_autoptr(GStrvBuilder) here = g_strv_builder_new ();
  gsize n;
  const OwToolchainDir *dirs = ow_toolchain_catalogue (&n);
  const OwCredentialKind *kinds;

  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *path = g_build_filename (home, dirs[i].path, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        g_strv_builder_add (here, dirs[i].path);
    }
  scan->toolchains = g_strv_builder_end (g_steal_pointer (&here));
  scan->logins = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  kinds = ow_credential_catalogue (&n);
  for (gsize i = 0; i < n; i++)
    {
      /* The engine's own rule for where each login is (moved by its variable, or not). */
      g_autoptr(JsonArray) one = json_array_new ();
      JsonObject *t = json_object_new ();
      g_autoptr(GPtrArray) copies = NULL;

      json_object_set_string_member (t, "name", kinds[i].name);
      json_array_add_object_element (one, t);
      copies = ow_credentials_from_config (one, home, NULL, NULL, NULL);
      g_hash_table_insert (scan->logins, g_strdup (kinds[i].name),
                           GINT_TO_POINTER (copies != NULL && copies->len > 0));
    }
  g_task_return_pointer (task, scan, (GDestroyNotify) home_scan_free);
}

static void
on_home_scanned_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  HomeScan *scan = g_task_propagate_pointer (G_TASK (result), &error);
  OwSettingsSandboxPage *self;

  if (scan == NULL)
    return;   /* cancelled: the page is gone */
  self = OW_SETTINGS_SANDBOX_PAGE (user_data);
  g_strfreev (self->toolchains_here);
  self->toolchains_here = g_steal_pointer (&scan->toolchains);
  g_clear_pointer (&self->logins_found, g_hash_table_unref);
  self->logins_found = g_steal_pointer (&scan->logins);
  home_scan_free (scan);
  self->updating = TRUE;
  refresh_toolchains (self);
  refresh_catalogue (self);
  self->updating = FALSE;
}

/* ---- In words ------------------------------------------------------------------------------ */

char *
ow_settings_describe_enforcement (const char *enforcement)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) layers = NULL;
  const char *colon;
  GString *out;

  if (enforcement == NULL || *enforcement == '\0')
    return g_strdup (_("its own walls"));
  /* "linux: namespaces+landlock(abi 7)+seccomp": the sandbox's name, then
   * the kernel's layers. */
  colon = strchr (enforcement, ':');
  layers = g_strsplit (colon != NULL ? colon + 1 : enforcement, "+", -1);
  for (guint i = 0; layers[i] != NULL; i++)
    {
      g_autofree char *layer = g_strstrip (g_strdup (layers[i]));

      if (g_str_has_prefix (layer, "namespaces"))
        g_ptr_array_add (parts, g_strdup (_("a separate view of the files and processes")));
      else if (g_str_has_prefix (layer, "landlock"))
        g_ptr_array_add (parts, g_strdup (_("file access limited to the session's folders")));
      else if (g_str_has_prefix (layer, "seccomp"))
        g_ptr_array_add (parts, g_strdup (_("a filter on what programs may ask the kernel")));
      else if (*layer != '\0')
        g_ptr_array_add (parts, g_strdup (layer));
    }
  if (parts->len == 0)
    return g_strdup (_("its own walls"));
  out = g_string_new (g_ptr_array_index (parts, 0));
  for (guint i = 1; i < parts->len; i++)
    /* TRANSLATORS: joins the sandbox's layers: "a, b and c" */
    g_string_append_printf (out, "%s%s", i + 1 == parts->len ? _(" and ") : ", ",
                            (const char *) g_ptr_array_index (parts, i));
  return g_string_free (out, FALSE);
}

/* ---- From the config -------------------------------------------------------------------- */

/* The line under the switch says what the switch shows: on, turning on,
 * or off and what guards commands then. */
static void
update_switch_detail (OwSettingsSandboxPage *self, const char *provider)
{
  gboolean on = !g_str_equal (provider, "direct");
  g_autofree char *detail = NULL;

  if (on)
    /* TRANSLATORS: %s names the sandbox in use */
    detail = g_strdup_printf (_("On: sessions run their tools behind the %s."), ow_sandbox_type_title (provider));
  else if (self->want_on)
    /* The switch is on and a type is being set up: never "Off" under it. */
    detail = g_strdup (_("Turning on: sessions keep running their tools directly until a sandbox type below "
                         "is proved on this computer."));
  else
    {
      g_autofree char *guard = NULL;

      if (ow_executor_guard_status (&guard))
        detail = g_strdup (_("Off: commands run on this computer inside the command guard. They write only in "
                             "the session’s folders, and OpenWorker’s own files and your credential folders "
                             "are hidden from them."));
      else
        /* TRANSLATORS: %s says why the kernel cannot build the guard */
        detail = g_strdup_printf (_("Off: commands run on this computer with your permissions, and only the safety "
                                    "checks’ parser stands between them and your files: the command guard is "
                                    "unavailable (%s)."), guard);
    }
  adw_action_row_set_subtitle (self->switch_row, detail);
}

static void
refresh_from_config (OwSettingsSandboxPage *self)
{
  const char *provider = configured_provider (self);
  const char *profile = ow_config_get_string (ow_context_get_config (self->ctx), "sandbox_network_profile");
  g_auto(GStrv) hosts = ow_config_get_strv (ow_context_get_config (self->ctx), "sandbox_network_hosts");
  guint n_hosts = hosts != NULL ? g_strv_length (hosts) : 0;
  gboolean on = !g_str_equal (provider, "direct");
  g_autofree char *summary = NULL;

  self->updating = TRUE;
  gtk_switch_set_active (self->sandbox_switch, on || self->want_on);
  update_switch_detail (self, provider);
  gtk_check_button_set_active (g_strcmp0 (profile, "open") == 0 ? self->open_radio : self->allowlist_radio, TRUE);
  if (n_hosts == 0)
    summary = g_strdup (_("No sites yet: commands reach nothing until you choose some."));
  else
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u site allowed", "%u sites allowed", n_hosts), n_hosts);
  adw_action_row_set_subtitle (self->allowlist_row, summary);
  refresh_toolchains (self);
  refresh_credentials (self);
  refresh_catalogue (self);
  refresh_types (self);
  update_visibility (self);
  self->updating = FALSE;
}

static void
on_config_changed_cb (OwContext *ctx, gpointer user_data)
{
  refresh_from_config (OW_SETTINGS_SANDBOX_PAGE (user_data));
}

/* ---- GObject ------------------------------------------------------------------------------ */

/* ---- The Add… popover ---------------------------------------------------------------- */

/* The button sits at the foot of a long page. Opened while scrolled out
 * of sight (a screen reader's press, a keyboard user's), a popover would
 * be placed off the monitor (GTK 4.8 then has no monitor for it): the page
 * is scrolled to the button first, and the popover opens once the frame
 * after has laid the page out again. */
static gboolean
popup_after_layout_cb (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;

  if (--self->popup_ticks > 0)
    return G_SOURCE_CONTINUE;
  gtk_popover_popup (self->add_popover);
  return G_SOURCE_REMOVE;
}

static void
on_add_credential_clicked_cb (GtkButton *button, gpointer user_data)
{
  OwSettingsSandboxPage *self = user_data;
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (button), GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *content = scroller != NULL ? gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller)) : NULL;
  graphene_rect_t bounds;

  if (self->popup_ticks > 0)
    return;   /* already on its way */
  if (content != NULL && gtk_widget_compute_bounds (GTK_WIDGET (button), content, &bounds))
    gtk_adjustment_clamp_page (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller)),
                               bounds.origin.y - 12, bounds.origin.y + bounds.size.height + 12);
  self->popup_ticks = 2;
  gtk_widget_add_tick_callback (GTK_WIDGET (button), popup_after_layout_cb, self, NULL);
}

static void
ow_settings_sandbox_page_dispose (GObject *object)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_signal_handler (&self->config_handler, self->ctx);
  if (self->add_popover != NULL && gtk_widget_get_parent (GTK_WIDGET (self->add_popover)) != NULL)
    gtk_widget_unparent (GTK_WIDGET (self->add_popover));
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SETTINGS_SANDBOX_PAGE);
  g_clear_object (&self->ctx);
  G_OBJECT_CLASS (ow_settings_sandbox_page_parent_class)->dispose (object);
}

static void
ow_settings_sandbox_page_finalize (GObject *object)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (object);

  g_clear_object (&self->cancellable);
  g_hash_table_unref (self->statuses);
  g_strfreev (self->providers);
  g_strfreev (self->toolchains_here);
  g_clear_pointer (&self->logins_found, g_hash_table_unref);
  G_OBJECT_CLASS (ow_settings_sandbox_page_parent_class)->finalize (object);
}

static void
ow_settings_sandbox_page_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwSettingsSandboxPage *self = OW_SETTINGS_SANDBOX_PAGE (object);

  switch (prop_id)
    {
    case PROP_N_STATUSES:
      g_value_set_uint (value, self->n_statuses);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_settings_sandbox_page_class_init (OwSettingsSandboxPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_settings_sandbox_page_dispose;
  object_class->finalize = ow_settings_sandbox_page_finalize;
  object_class->get_property = ow_settings_sandbox_page_get_property;

  props[PROP_N_STATUSES] = g_param_spec_uint ("n-statuses", NULL, NULL, 0, G_MAXUINT, 0,
                                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  props[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/com/openworker/ui/settings/ow-settings-sandbox-page.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, sandbox_switch);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, switch_row);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, message_label);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, types_box);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, types_list);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, options_box);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, toolchains_group);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, credentials_group);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, allowlist_row);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, allowlist_radio);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, open_radio);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, toolchains_list);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, credentials_list);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, catalogue_list);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, add_popover);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsSandboxPage, add_credential_button);
  gtk_widget_class_bind_template_callback (widget_class, on_add_credential_clicked_cb);

  gtk_widget_class_install_action (widget_class, "sandbox.setup", "s", setup_activated);
  gtk_widget_class_install_action (widget_class, "sandbox.check", NULL, check_activated);
  gtk_widget_class_install_action (widget_class, "sandbox.choose-sites", NULL, choose_sites_activated);
  gtk_widget_class_install_action (widget_class, "sandbox.add-toolchain", NULL, add_toolchain_activated);
  gtk_widget_class_install_action (widget_class, "sandbox.add-credential", "s", add_credential_activated);
  gtk_widget_class_install_action (widget_class, "sandbox.add-custom-credential", NULL,
                                   add_custom_credential_activated);
  gtk_widget_class_install_action (widget_class, "sandbox.remove-credential", "u", remove_credential_activated);
}

static void
ow_settings_sandbox_page_init (OwSettingsSandboxPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_parent (GTK_WIDGET (self->add_popover), self->add_credential_button);
  self->cancellable = g_cancellable_new ();
  self->statuses = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  self->providers = ow_sandbox_backend_list_registered ();
}

GtkWidget *
ow_settings_sandbox_page_new (OwContext *ctx)
{
  OwSettingsSandboxPage *self;
  g_autoptr(GTask) scan = NULL;

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_SETTINGS_SANDBOX_PAGE, NULL);
  self->ctx = g_object_ref (ctx);
  refresh_from_config (self);
  g_signal_connect (self->sandbox_switch, "notify::active", G_CALLBACK (on_switch_active_cb), self);
  g_signal_connect (self->allowlist_radio, "toggled", G_CALLBACK (on_network_toggled_cb), self);
  g_signal_connect (self->open_radio, "toggled", G_CALLBACK (on_network_toggled_cb), self);
  self->config_handler = g_signal_connect (ctx, "config-changed", G_CALLBACK (on_config_changed_cb), self);
  check_all (self);
  scan = g_task_new (NULL, self->cancellable, on_home_scanned_cb, self);
  g_task_run_in_thread (scan, scan_home_in_thread);
  return GTK_WIDGET (self);
}

guint
ow_settings_sandbox_page_get_n_statuses (OwSettingsSandboxPage *self)
{
  g_return_val_if_fail (OW_IS_SETTINGS_SANDBOX_PAGE (self), 0);
  return self->n_statuses;
}

gboolean
ow_settings_sandbox_page_get_busy (OwSettingsSandboxPage *self)
{
  g_return_val_if_fail (OW_IS_SETTINGS_SANDBOX_PAGE (self), FALSE);
  return self->busy;
}
