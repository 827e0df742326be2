/* ow-settings-connectors-page.c: Settings ▸ Connectors (see ow-settings-connectors-page.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-connectors-page.h"
#include "ow-settings-io.h"

#include <glib/gi18n-lib.h>

#include "mcp/ow-mcp-edit.h"
#include "mcp/ow-mcp-provider.h"

struct _OwSettingsConnectorsPage
{
  AdwPreferencesPage parent_instance;

  /* template widgets */
  AdwPreferencesGroup *servers_group;
  GtkLabel            *add_error;
  GtkWidget           *empty_label;

  /* borrowed references: one AdwExpanderRow per server, in file order */
  GPtrArray     *rows;

  /* owned references */
  OwSessionHost *host;
  GPtrArray     *watched;    /* OwMcpClient* whose signals call refresh_soon */
  GHashTable    *expanded;   /* names of the rows a person opened: kept across refreshes */
  gulong         host_handler;
  guint          refresh_id;
};

G_DEFINE_FINAL_TYPE (OwSettingsConnectorsPage, ow_settings_connectors_page, ADW_TYPE_PREFERENCES_PAGE)

/* ---- Pure parts ------------------------------------------------------------- */

JsonObject *
ow_connector_entry_for_target (const char *target, GError **error)
{
  g_autofree char *text = g_strstrip (g_strdup (target != NULL ? target : ""));
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) local = NULL;
  JsonObject *entry;
  JsonArray *args;

  if (*text == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Give the server’s command line or its URL."));
      return NULL;
    }
  entry = json_object_new ();
  if (g_str_has_prefix (text, "http://") || g_str_has_prefix (text, "https://"))
    {
      json_object_set_string_member (entry, "url", text);
      return entry;
    }
  if (!g_shell_parse_argv (text, NULL, &argv, &local))
    {
      json_object_unref (entry);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("The command line cannot be read (%s). Check its quotes."), local->message);
      return NULL;
    }
  json_object_set_string_member (entry, "command", argv[0]);
  args = json_array_new ();
  for (guint i = 1; argv[i] != NULL; i++)
    json_array_add_string_element (args, argv[i]);
  json_object_set_array_member (entry, "args", args);
  return entry;
}

const char *
ow_connector_status_text (gboolean enabled, gboolean unusable, int status)
{
  if (unusable)
    return _("Error");
  if (!enabled)
    return _("Disabled");
  switch ((OwMcpStatus) status)
    {
    case OW_MCP_STATUS_READY: return _("Connected");
    case OW_MCP_STATUS_STARTING: return _("Starting");
    case OW_MCP_STATUS_RESTARTING: return _("Restarting");
    case OW_MCP_STATUS_FAILED: return _("Error");
    case OW_MCP_STATUS_AUTH_REQUIRED: return _("Needs sign-in");
    case OW_MCP_STATUS_STOPPED:
    default: return _("Stopped");
    }
}

/* ---- The list --------------------------------------------------------------- */

static char *
mcp_path (OwSettingsConnectorsPage *self)
{
  return g_build_filename (ow_context_get_paths (ow_session_host_get_context (self->host))->config_dir, "mcp.json",
                           NULL);
}

static OwMcpProvider *
provider_named (OwSettingsConnectorsPage *self, const char *name)
{
  GPtrArray *providers = ow_session_host_get_mcp_providers (self->host);

  for (guint i = 0; providers != NULL && i < providers->len; i++)
    {
      OwMcpProvider *p = g_ptr_array_index (providers, i);

      if (g_str_equal (ow_mcp_client_get_name (ow_mcp_provider_get_client (p)), name))
        return p;
    }
  return NULL;
}

static void refresh (OwSettingsConnectorsPage *self);

static gboolean
refresh_idle_cb (gpointer user_data)
{
  OwSettingsConnectorsPage *self = user_data;

  self->refresh_id = 0;
  refresh (self);
  return G_SOURCE_REMOVE;
}

/* Status notifications come in bursts (starting → ready, tools listed):
 * one rebuild per main-loop turn. */
static void
refresh_soon (OwSettingsConnectorsPage *self)
{
  if (self->refresh_id == 0)
    self->refresh_id = g_idle_add (refresh_idle_cb, self);
}

static void
on_client_changed_cb (GObject *client, GParamSpec *pspec, gpointer user_data)
{
  refresh_soon (user_data);
}

static void
on_tools_changed_cb (OwMcpClient *client, gpointer user_data)
{
  refresh_soon (user_data);
}

static void
on_host_mcp_changed_cb (OwSessionHost *host, gpointer user_data)
{
  refresh_soon (user_data);
}

static void
unwatch_all (OwSettingsConnectorsPage *self)
{
  for (guint i = 0; i < self->watched->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->watched, i), self);
  g_ptr_array_set_size (self->watched, 0);
}

/* Applies the file through the host; says why when it cannot. The rows
 * are rebuilt on the next main-loop turn: the switch or button that asked
 * is still finishing its own signal and must not be destroyed under it. */
static void
apply (OwSettingsConnectorsPage *self)
{
  g_autoptr(GError) error = NULL;

  if (!ow_session_host_reload_mcp (self->host, &error))
    {
      gtk_label_set_text (self->add_error, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->add_error), TRUE);
    }
  refresh_soon (self);
}

static void
show_error (OwSettingsConnectorsPage *self, const char *message)
{
  gtk_label_set_text (self->add_error, message);
  gtk_widget_set_visible (GTK_WIDGET (self->add_error), message != NULL);
}

static void
on_enable_cb (GtkSwitch *toggle, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsConnectorsPage *self = user_data;
  const char *name = g_object_get_data (G_OBJECT (toggle), "server");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = mcp_path (self);
  g_autoptr(JsonNode) value = json_node_init_boolean (json_node_alloc (), gtk_switch_get_active (toggle));

  /* An entry without "enabled" is enabled: turning it on removes the member. */
  if (!ow_mcp_edit_set (path, name, "enabled", gtk_switch_get_active (toggle) ? NULL : value, &error))
    {
      show_error (self, error->message);
      refresh_soon (self);
      return;
    }
  show_error (self, NULL);
  apply (self);
}

static void
on_expanded_cb (AdwExpanderRow *row, GParamSpec *pspec, gpointer user_data)
{
  OwSettingsConnectorsPage *self = user_data;
  const char *name = g_object_get_data (G_OBJECT (row), "server");

  if (adw_expander_row_get_expanded (row))
    g_hash_table_add (self->expanded, g_strdup (name));
  else
    g_hash_table_remove (self->expanded, name);
}

static GtkWidget *
tool_row (OwMcpProvider *p, OwTool *tool, gboolean asks)
{
  GtkWidget *row = adw_action_row_new ();
  const char *server_name = ow_mcp_provider_server_tool_name (p, ow_tool_get_name (tool));
  OwMcpTool *listed = ow_mcp_client_lookup_tool (ow_mcp_provider_get_client (p), server_name);
  /* The server's own title; the agent's tool would fall back to the model's name for it. */
  const char *title = listed != NULL ? listed->title : NULL;

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_widget_set_name (row, server_name);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title != NULL ? title : server_name);
  /* The server's name for it under its title; alone when it has none. */
  if (title != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), server_name);
  if (asks)
    {
      GtkWidget *label = gtk_label_new (_("Asks before running"));

      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "caption");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
    }
  return row;
}

static GtkWidget *
icon_button (const char *icon, const char *tooltip, const char *action, const char *name)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
  gtk_widget_add_css_class (button, "flat");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", name);
  return button;
}

static GtkWidget *
server_row (OwSettingsConnectorsPage *self, const OwMcpServerConfig *c)
{
  OwMcpProvider *p = c->error == NULL && c->enabled ? provider_named (self, c->name) : NULL;
  OwMcpClient *client = p != NULL ? ow_mcp_provider_get_client (p) : NULL;
  int status = client != NULL ? (int) ow_mcp_client_get_status (client) : OW_MCP_STATUS_STOPPED;
  const char *last_error = client != NULL ? ow_mcp_client_get_last_error (client) : c->error;
  gboolean failed = c->error != NULL || status == OW_MCP_STATUS_FAILED || status == OW_MCP_STATUS_AUTH_REQUIRED;
  guint n_tools = p != NULL ? g_list_model_get_n_items (G_LIST_MODEL (p)) : 0;
  GtkWidget *row = adw_expander_row_new ();
  GtkWidget *state = gtk_label_new (ow_connector_status_text (c->enabled, c->error != NULL, status));
  GtkWidget *toggle = gtk_switch_new ();
  g_autofree char *what = NULL;

  gtk_widget_set_name (row, c->name);
  g_object_set_data_full (G_OBJECT (row), "server", g_strdup (c->name), g_free);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), c->name);
  if (failed && last_error != NULL)
    what = g_strdup (last_error);
  else if (status == OW_MCP_STATUS_READY)
    what = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tool", "%u tools", n_tools), n_tools);
  else if (c->transport == OW_MCP_TRANSPORT_HTTP)
    what = g_strdup (c->url);
  else
    {
      g_autofree char *args = g_strjoinv (" ", c->args);

      what = g_strconcat (c->command != NULL ? c->command : "", *c->args != NULL ? " " : "", args, NULL);
    }
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), what);

  gtk_widget_set_name (state, "status");
  gtk_widget_set_valign (state, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (state, "caption-heading");
  gtk_widget_add_css_class (state, failed ? "error" : status == OW_MCP_STATUS_READY ? "success" : "dim-label");
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), state);

  gtk_widget_set_name (toggle, "enabled");
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  gtk_switch_set_active (GTK_SWITCH (toggle), c->enabled);
  gtk_widget_set_tooltip_text (toggle, _("Use this server"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Use this server"), -1);
  g_object_set_data_full (G_OBJECT (toggle), "server", g_strdup (c->name), g_free);
  g_signal_connect (toggle, "notify::active", G_CALLBACK (on_enable_cb), self);
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), toggle);
  if (p != NULL)
    adw_expander_row_add_action (ADW_EXPANDER_ROW (row),
                                 icon_button ("view-refresh-symbolic", _("Restart"), "connectors.restart", c->name));
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row),
                               icon_button ("user-trash-symbolic", _("Remove"), "connectors.remove", c->name));

  for (guint i = 0; i < n_tools; i++)
    {
      g_autoptr(OwTool) tool = g_list_model_get_item (G_LIST_MODEL (p), i);

      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), tool_row (p, tool, c->requires_approval));
    }
  adw_expander_row_set_enable_expansion (ADW_EXPANDER_ROW (row), n_tools > 0);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), n_tools > 0 && g_hash_table_contains (self->expanded, c->name));
  g_signal_connect (row, "notify::expanded", G_CALLBACK (on_expanded_cb), self);

  if (client != NULL)
    {
      g_signal_connect (client, "notify::status", G_CALLBACK (on_client_changed_cb), self);
      g_signal_connect (client, "notify::last-error", G_CALLBACK (on_client_changed_cb), self);
      g_signal_connect (client, "tools-changed", G_CALLBACK (on_tools_changed_cb), self);
      g_ptr_array_add (self->watched, g_object_ref (client));
    }
  return row;
}

/* Rebuilds the rows from mcp.json as it reads now and the host's servers. */
static void
refresh (OwSettingsConnectorsPage *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) configs = NULL;
  OwContext *ctx = ow_session_host_get_context (self->host);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  unwatch_all (self);
  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->servers_group, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);

  if (!ow_context_is_isolated (ctx))
    configs = ow_mcp_configs_for_session (ow_context_get_paths (ctx), NULL, NULL, NULL, &error);
  if (configs == NULL && error != NULL)
    show_error (self, error->message);
  for (guint i = 0; configs != NULL && i < configs->len; i++)
    {
      GtkWidget *row = server_row (self, g_ptr_array_index (configs, i));

      adw_preferences_group_add (self->servers_group, row);
      g_ptr_array_add (self->rows, row);
    }
  gtk_widget_set_visible (self->empty_label, self->rows->len == 0);
}

/* ---- Actions ---------------------------------------------------------------- */

static void
restart_action (GtkWidget *widget, const char *action, GVariant *param)
{
  OwSettingsConnectorsPage *self = OW_SETTINGS_CONNECTORS_PAGE (widget);
  g_autoptr(GError) error = NULL;

  if (!ow_session_host_restart_mcp (self->host, g_variant_get_string (param, NULL), &error))
    show_error (self, error->message);
  else
    show_error (self, NULL);
  refresh_soon (self);
}

static void
on_remove_response_cb (AdwMessageDialog *dialog, const char *response, gpointer user_data)
{
  OwSettingsConnectorsPage *self = user_data;
  const char *name = g_object_get_data (G_OBJECT (dialog), "server");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = mcp_path (self);

  if (!g_str_equal (response, "remove"))
    return;
  if (!ow_mcp_edit_remove (path, name, &error))
    {
      show_error (self, error->message);
      return;
    }
  show_error (self, NULL);
  g_hash_table_remove (self->expanded, name);
  apply (self);
}

static void
remove_action (GtkWidget *widget, const char *action, GVariant *param)
{
  OwSettingsConnectorsPage *self = OW_SETTINGS_CONNECTORS_PAGE (widget);
  const char *name = g_variant_get_string (param, NULL);
  g_autofree char *heading = g_strdup_printf (_("Remove “%s”?"), name);
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (widget)), heading,
                                              _("Its tools leave every session at once, and its entry leaves "
                                                "mcp.json."));

  g_object_set_data_full (G_OBJECT (dialog), "server", g_strdup (name), g_free);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "remove", _("_Remove"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_remove_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_add_changed_cb (GtkEditable *editable, gpointer user_data)
{
  AdwMessageDialog *dialog = user_data;
  GtkEditable *name = g_object_get_data (G_OBJECT (dialog), "name-entry");
  GtkEditable *target = g_object_get_data (G_OBJECT (dialog), "target-entry");

  adw_message_dialog_set_response_enabled (dialog, "add",
                                           *gtk_editable_get_text (name) != '\0'
                                           && *gtk_editable_get_text (target) != '\0');
}

static void
on_add_response_cb (AdwMessageDialog *dialog, const char *response, gpointer user_data)
{
  OwSettingsConnectorsPage *self = user_data;
  GtkEditable *name = g_object_get_data (G_OBJECT (dialog), "name-entry");
  GtkEditable *target = g_object_get_data (G_OBJECT (dialog), "target-entry");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) entry = NULL;
  g_autofree char *path = mcp_path (self);
  g_autofree char *server = NULL;

  if (!g_str_equal (response, "add"))
    return;
  server = g_strstrip (g_strdup (gtk_editable_get_text (name)));
  entry = ow_connector_entry_for_target (gtk_editable_get_text (target), &error);
  if (entry == NULL || !ow_mcp_edit_add (path, server, entry, &error))
    {
      show_error (self, error->message);
      return;
    }
  show_error (self, NULL);
  apply (self);
}

static GtkWidget *
entry_row (const char *name, const char *title)
{
  GtkWidget *row = adw_entry_row_new ();

  gtk_widget_set_name (row, name);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  return row;
}

static void
add_action (GtkWidget *widget, const char *action, GVariant *param)
{
  OwSettingsConnectorsPage *self = OW_SETTINGS_CONNECTORS_PAGE (widget);
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (widget)), _("Add a Server"),
                                              _("A program to run, such as “npx -y @modelcontextprotocol/server-memory”, "
                                                "or the URL of a server on the web. Its tools are offered to every "
                                                "session."));
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *name = entry_row ("server-name", _("Name"));
  GtkWidget *target = entry_row ("server-target", _("Command line or URL"));

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_list_box_append (GTK_LIST_BOX (list), name);
  gtk_list_box_append (GTK_LIST_BOX (list), target);
  g_object_set_data (G_OBJECT (dialog), "name-entry", name);
  g_object_set_data (G_OBJECT (dialog), "target-entry", target);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), list);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "add", _("_Add"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "add", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (dialog), "add", FALSE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "add");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (name, "changed", G_CALLBACK (on_add_changed_cb), dialog);
  g_signal_connect (target, "changed", G_CALLBACK (on_add_changed_cb), dialog);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_add_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- Object ----------------------------------------------------------------- */

static void
ow_settings_connectors_page_dispose (GObject *object)
{
  OwSettingsConnectorsPage *self = OW_SETTINGS_CONNECTORS_PAGE (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  if (self->watched != NULL)
    unwatch_all (self);
  g_clear_signal_handler (&self->host_handler, self->host);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SETTINGS_CONNECTORS_PAGE);
  g_clear_object (&self->host);
  G_OBJECT_CLASS (ow_settings_connectors_page_parent_class)->dispose (object);
}

static void
ow_settings_connectors_page_finalize (GObject *object)
{
  OwSettingsConnectorsPage *self = OW_SETTINGS_CONNECTORS_PAGE (object);

  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->watched, g_ptr_array_unref);
  g_clear_pointer (&self->expanded, g_hash_table_unref);
  G_OBJECT_CLASS (ow_settings_connectors_page_parent_class)->finalize (object);
}

static void
ow_settings_connectors_page_class_init (OwSettingsConnectorsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_settings_connectors_page_dispose;
  object_class->finalize = ow_settings_connectors_page_finalize;

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/com/openworker/ui/settings/ow-settings-connectors-page.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSettingsConnectorsPage, servers_group);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsConnectorsPage, add_error);
  gtk_widget_class_bind_template_child (widget_class, OwSettingsConnectorsPage, empty_label);
  gtk_widget_class_install_action (widget_class, "connectors.add", NULL, add_action);
  gtk_widget_class_install_action (widget_class, "connectors.restart", "s", restart_action);
  gtk_widget_class_install_action (widget_class, "connectors.remove", "s", remove_action);
}

static void
ow_settings_connectors_page_init (OwSettingsConnectorsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_ptr_array_new ();
  self->watched = g_ptr_array_new_with_free_func (g_object_unref);
  self->expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

GtkWidget *
ow_settings_connectors_page_new (OwSessionHost *host)
{
  OwSettingsConnectorsPage *self;

  g_return_val_if_fail (OW_IS_SESSION_HOST (host), NULL);

  self = g_object_new (OW_TYPE_SETTINGS_CONNECTORS_PAGE, NULL);
  self->host = g_object_ref (host);
  self->host_handler = g_signal_connect (host, "mcp-changed", G_CALLBACK (on_host_mcp_changed_cb), self);
  refresh (self);
  return GTK_WIDGET (self);
}
