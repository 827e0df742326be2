/* ow-window.c: the main window (see ow-window.h). */
#define G_LOG_DOMAIN "ow-window"

#include "config-ui.h"
#include "ow-window-private.h"

#include <glib/gi18n-lib.h>

#include "core/ow-coworker.h"
#include "core/ow-model-choices.h"
#include "ow-artifact-viewer.h"
#include "ow-format.h"
#include "ow-sidebar-row.h"

/* How long a deleted session can be brought back. */
#define UNDO_SECONDS 7

struct _OwWindow
{
  AdwApplicationWindow parent_instance;

  /* Template widgets */
  AdwWindowTitle    *window_title;
  GtkToggleButton   *sidebar_toggle;
  GtkToggleButton   *artifacts_toggle;
  AdwFlap           *sidebar_flap;
  AdwFlap           *artifacts_flap;
  GtkLabel          *inbox_badge;
  GtkSearchEntry    *search_entry;
  GtkStack          *sidebar_stack;
  AdwStatusPage     *sidebar_empty;
  GtkListView       *session_list_view;
  GtkStack          *pages;
  AdwToastOverlay   *toast_overlay;
  GtkDropDown       *coworker_filter;
  GtkDropDown       *folder_filter;
  GtkCheckButton    *attention_filter;
  GtkCheckButton    *archived_filter;

  /* Borrowed */
  OwApplication     *app;
  OwSessionHost     *host;

  /* Owned */
  OwSessionList     *sessions;
  GtkSingleSelection *selection;
  GPtrArray         *folder_ids;      /* char*, parallel to the folder filter ("" = all) */

  /* Children made here (owned by their parents) */
  OwSessionView     *session_view;
  OwInboxPage       *inbox_page;
  OwArtifactsPanel  *artifacts;

  /* A deletion that can still be undone, and its toast (a weak pointer) */
  AdwToast          *toast;
  char              *pending_delete;
  guint              pending_delete_id;
  gboolean           selecting;        /* changing the selection from code */
};

G_DEFINE_FINAL_TYPE (OwWindow, ow_window, ADW_TYPE_APPLICATION_WINDOW)

static OwStore *
store_of (OwWindow *self)
{
  return ow_context_get_store (ow_session_host_get_context (self->host));
}

/* ---- The heading ---------------------------------------------------------------- */

static void
update_heading (OwWindow *self)
{
  const char *page = gtk_stack_get_visible_child_name (self->pages);
  const char *title, *subtitle = NULL;

  if (g_strcmp0 (page, "inbox") == 0)
    title = _("Inbox");
  else
    {
      title = ow_session_view_get_title (self->session_view);
      g_object_get (self->session_view, "subtitle", &subtitle, NULL);
    }
  adw_window_title_set_title (self->window_title, title != NULL ? title : "OpenWorker");
  adw_window_title_set_subtitle (self->window_title, subtitle != NULL ? subtitle : "");
  gtk_window_set_title (GTK_WINDOW (self), title != NULL ? title : "OpenWorker");
  g_free ((char *) subtitle);
}

static void
on_heading_changed_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  update_heading (user_data);
}

static void
update_inbox_badge (OwWindow *self)
{
  guint n = ow_application_get_inbox_count (self->app);
  g_autofree char *text = g_strdup_printf ("%u", n);
  g_autofree char *label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Inbox, %u waiting", "Inbox, %u waiting", n), n);

  gtk_label_set_text (self->inbox_badge, text);
  gtk_widget_set_visible (GTK_WIDGET (self->inbox_badge), n > 0);
  gtk_accessible_update_property (GTK_ACCESSIBLE (gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (self->inbox_badge)))),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

static void
on_inbox_count_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  update_inbox_badge (user_data);
}

/* ---- Selection ---------------------------------------------------------------- */

/* Selects @session_id's row without reopening it. */
static void
select_row (OwWindow *self, const char *session_id)
{
  int pos = session_id != NULL ? ow_session_list_find (self->sessions, session_id) : -1;

  self->selecting = TRUE;
  if (pos >= 0)
    gtk_single_selection_set_selected (self->selection, (guint) pos);
  else
    gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  self->selecting = FALSE;
}

static void
show_page (OwWindow *self, const char *name)
{
  gtk_stack_set_visible_child_name (self->pages, name);
  /* The deliverables are the shown session's: the Inbox has none. */
  if (self->artifacts != NULL)
    ow_artifacts_panel_set_session (self->artifacts, g_strcmp0 (name, "session") == 0
                                                       ? ow_session_view_get_session_id (self->session_view)
                                                       : NULL);
  update_heading (self);
}

/* A folded sidebar covers the page: it goes once a row is picked. */
static void
close_folded_sidebar (OwWindow *self)
{
  if (adw_flap_get_folded (self->sidebar_flap))
    adw_flap_set_reveal_flap (self->sidebar_flap, FALSE);
}

static void
on_selected_cb (GtkSingleSelection *selection, GParamSpec *pspec, gpointer user_data)
{
  OwWindow *self = user_data;
  OwSessionItem *item = gtk_single_selection_get_selected_item (selection);

  if (self->selecting || item == NULL || ow_session_item_get_is_header (item))
    return;
  ow_window_open_session (self, ow_session_item_get_id (item));
  close_folded_sidebar (self);
}

/* The list changed under the selection: keep the shown session selected. */
static void
on_sidebar_row_activated_cb (GtkListView *view, guint position, gpointer user_data)
{
  OwWindow *self = user_data;
  g_autoptr(OwSessionItem) item = g_list_model_get_item (G_LIST_MODEL (self->sessions), position);

  if (item != NULL && !ow_session_item_get_is_header (item))
    {
      ow_window_open_session (self, ow_session_item_get_id (item));
      close_folded_sidebar (self);
    }
}

static void
on_sessions_items_changed_cb (GListModel *model, guint position, guint removed, guint added, gpointer user_data)
{
  OwWindow *self = user_data;

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->pages), "session") == 0)
    select_row (self, ow_session_view_get_session_id (self->session_view));
}

void
ow_window_open_session (OwWindow *self, const char *session_id)
{
  g_return_if_fail (OW_IS_WINDOW (self));

  if (g_strcmp0 (ow_session_view_get_session_id (self->session_view), session_id) != 0)
    {
      ow_session_view_show_session (self->session_view, session_id);
      ow_artifacts_panel_set_session (self->artifacts, ow_session_view_get_session_id (self->session_view));
    }
  show_page (self, "session");
  select_row (self, session_id);
}

void
ow_window_new_session (OwWindow *self, const char *workspace)
{
  g_return_if_fail (OW_IS_WINDOW (self));

  ow_session_view_show_draft (self->session_view, workspace, NULL);
  ow_artifacts_panel_set_session (self->artifacts, NULL);
  show_page (self, "session");
  select_row (self, NULL);
}

void
ow_window_new_session_in (OwWindow *self, const char *folder)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) session = NULL;
  g_autoptr(GPtrArray) there = NULL;
  GPtrArray *choices = ow_application_get_model_choices (self->app);
  OwSessionSpec spec = { .workspace = folder, .origin = "desktop" };

  /* A session already in @folder that nobody has written to yet is the
   * one to show: launching on the same folder again leaves no second
   * empty "New session" row. */
  there = ow_store_session_list (store_of (self), folder, NULL, NULL);
  for (guint i = 0; there != NULL && i < there->len; i++)
    {
      OwSessionListRow *l = g_ptr_array_index (there, i);

      if (l->row->n_msgs == 0 && !l->row->archived && !l->renamed)
        {
          ow_window_open_session (self, l->row->session_id);
          return;
        }
    }

  /* The default model when it can run, else the first that can. */
  if (ow_context_default_model (ow_session_host_get_context (self->host)) == NULL && choices != NULL && choices->len > 0)
    spec.model = ((OwModelChoice *) g_ptr_array_index (choices, 0))->id;
  session = ow_session_host_create (self->host, &spec, &error);
  if (session == NULL)
    {
      ow_window_show_message (self, _("The session could not be created"), error->message);
      ow_window_new_session (self, NULL);
      return;
    }
  ow_session_list_refresh (self->sessions);
  ow_window_open_session (self, ow_session_get_id (session));
}

void
ow_window_show_inbox (OwWindow *self)
{
  g_return_if_fail (OW_IS_WINDOW (self));

  ow_inbox_page_refresh (self->inbox_page);
  show_page (self, "inbox");
  select_row (self, NULL);
}

const char *
ow_window_get_page (OwWindow *self)
{
  return gtk_stack_get_visible_child_name (self->pages);
}

void
ow_window_show_message (OwWindow *self, const char *title, const char *detail)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), title, detail);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_session_created_cb (OwSessionView *view, const char *session_id, gpointer user_data)
{
  OwWindow *self = user_data;

  ow_session_list_refresh (self->sessions);
  ow_artifacts_panel_set_session (self->artifacts, session_id);
  select_row (self, session_id);
}

static void
on_open_artifact_cb (OwSessionView *view, const char *relative, gpointer user_data)
{
  OwWindow *self = user_data;
  g_autofree char *path = ow_artifacts_panel_resolve (self->artifacts, relative);

  if (path == NULL)
    {
      ow_window_show_message (self, _("The file is not in this session's folders"), relative);
      return;
    }
  gtk_window_present (GTK_WINDOW (ow_artifact_viewer_new (GTK_WINDOW (self), path)));
}

/* ---- Rename, pin, archive, delete ---------------------------------------------- */

static void
on_rename_response_cb (AdwMessageDialog *dialog, const char *response, gpointer user_data)
{
  OwWindow *self = user_data;
  const char *id = g_object_get_data (G_OBJECT (dialog), "ow-session-id");
  GtkEditable *entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
  g_autofree char *title = g_strstrip (g_strdup (gtk_editable_get_text (entry)));
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (response, "rename") == 0 && *title != '\0')
    {
      if (!ow_store_session_rename (store_of (self), id, title, &error))
        ow_window_show_message (self, _("The session could not be renamed"), error->message);
      ow_session_list_refresh (self->sessions);
      if (g_strcmp0 (ow_session_view_get_session_id (self->session_view), id) == 0)
        ow_session_view_refresh_heading (self->session_view);
    }
}

static void
action_rename_session (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);
  const char *id = g_variant_get_string (param, NULL);
  OwSessionItem *item = ow_session_list_lookup (self->sessions, id);
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Rename Session"), NULL);
  GtkWidget *entry = gtk_entry_new ();

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "rename", _("_Rename"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "rename", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "rename");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  gtk_editable_set_text (GTK_EDITABLE (entry), item != NULL ? ow_session_item_get_title (item) : "");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_entry_set_max_length (GTK_ENTRY (entry), 120);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Session title"), -1);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  g_object_set_data_full (G_OBJECT (dialog), "ow-session-id", g_strdup (id), g_free);
  g_signal_connect (dialog, "response", G_CALLBACK (on_rename_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
set_flags (OwWindow *self, const char *id, int pinned, int archived)
{
  g_autoptr(GError) error = NULL;

  if (!ow_store_session_set_flags (store_of (self), id, pinned, archived, &error))
    ow_window_show_message (self, _("The session could not be changed"), error->message);
  ow_session_list_refresh (self->sessions);
}

static void
action_toggle_pin (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);
  g_autoptr(OwSessionRow) row = ow_store_session_get (store_of (self), g_variant_get_string (param, NULL), NULL);

  if (row != NULL)
    set_flags (self, row->session_id, !row->pinned, -1);
}

static void
action_toggle_archive (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);
  g_autoptr(OwSessionRow) row = ow_store_session_get (store_of (self), g_variant_get_string (param, NULL), NULL);

  if (row != NULL)
    /* Archiving unpins: an archived session is out of the way. */
    set_flags (self, row->session_id, row->archived ? -1 : 0, !row->archived);
}

static gboolean
on_dismiss_later_cb (gpointer data)
{
  adw_toast_dismiss (ADW_TOAST (data));
  return G_SOURCE_REMOVE;
}

/* libadwaita 1.2 frees a toast dismissed before its show animation ends
 * while that animation still refers to it (a crash when a toast replaces
 * another and goes at once, as delete, undo, delete does): the toast goes
 * only once any show animation (at most 500 ms) is over. */
static void
dismiss_toast (OwWindow *self)
{
  AdwToast *toast = self->toast;

  if (toast == NULL)
    return;
  g_object_remove_weak_pointer (G_OBJECT (toast), (gpointer *) &self->toast);
  self->toast = NULL;
  g_timeout_add_full (G_PRIORITY_DEFAULT, 600, on_dismiss_later_cb, g_object_ref (toast), g_object_unref);
}

static void
finish_delete (OwWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = g_steal_pointer (&self->pending_delete);

  g_clear_handle_id (&self->pending_delete_id, g_source_remove);
  dismiss_toast (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo-delete", FALSE);
  if (id == NULL)
    return;
  if (!ow_session_host_delete (self->host, id, &error))
    g_message ("Session %s could not be deleted: %s", id, error->message);
  ow_session_list_set_hidden (self->sessions, id, FALSE);
}

void
ow_window_finish_pending (OwWindow *self)
{
  finish_delete (self);
}

static gboolean
on_delete_timeout_cb (gpointer user_data)
{
  OwWindow *self = user_data;

  self->pending_delete_id = 0;
  finish_delete (self);
  return G_SOURCE_REMOVE;
}

static void
action_delete_session (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);
  const char *id = g_variant_get_string (param, NULL);
  OwSessionItem *item = ow_session_list_lookup (self->sessions, id);
  g_autofree char *text = g_strdup_printf (_("“%s” was deleted."), item != NULL ? ow_session_item_get_title (item) : id);

  /* One undo at a time: an earlier deletion goes through now. */
  finish_delete (self);
  self->pending_delete = g_strdup (id);
  ow_session_list_set_hidden (self->sessions, id, TRUE);
  if (g_strcmp0 (ow_session_view_get_session_id (self->session_view), id) == 0)
    ow_window_new_session (self, NULL);
  self->toast = adw_toast_new (text);
  adw_toast_set_button_label (self->toast, _("_Undo"));
  adw_toast_set_action_name (self->toast, "win.undo-delete");
  adw_toast_set_timeout (self->toast, UNDO_SECONDS);
  g_object_add_weak_pointer (G_OBJECT (self->toast), (gpointer *) &self->toast);
  adw_toast_overlay_add_toast (self->toast_overlay, self->toast);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo-delete", TRUE);
  self->pending_delete_id = g_timeout_add_seconds (UNDO_SECONDS, on_delete_timeout_cb, self);
}

static void
action_undo_delete (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);
  g_autofree char *id = g_steal_pointer (&self->pending_delete);

  g_clear_handle_id (&self->pending_delete_id, g_source_remove);
  dismiss_toast (self);
  gtk_widget_action_set_enabled (widget, "win.undo-delete", FALSE);
  if (id != NULL)
    ow_session_list_set_hidden (self->sessions, id, FALSE);
}

/* ---- Other actions ------------------------------------------------------------- */

static void
action_new_session (GtkWidget *widget, const char *name, GVariant *param)
{
  ow_window_new_session (OW_WINDOW (widget), NULL);
}

static void
action_show_inbox (GtkWidget *widget, const char *name, GVariant *param)
{
  ow_window_show_inbox (OW_WINDOW (widget));
  close_folded_sidebar (OW_WINDOW (widget));
}

static void
action_open_session (GtkWidget *widget, const char *name, GVariant *param)
{
  ow_window_open_session (OW_WINDOW (widget), g_variant_get_string (param, NULL));
}

static void
action_toggle_sidebar (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);

  gtk_toggle_button_set_active (self->sidebar_toggle, !gtk_toggle_button_get_active (self->sidebar_toggle));
}

static void
action_toggle_artifacts (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);

  gtk_toggle_button_set_active (self->artifacts_toggle, !gtk_toggle_button_get_active (self->artifacts_toggle));
}

static void
action_focus_cards (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);

  show_page (self, "session");
  ow_card_dock_focus_first (ow_session_view_get_dock (self->session_view));
}

static void
action_focus_composer (GtkWidget *widget, const char *name, GVariant *param)
{
  OwWindow *self = OW_WINDOW (widget);

  show_page (self, "session");
  gtk_widget_child_focus (GTK_WIDGET (ow_session_view_get_composer (self->session_view)), GTK_DIR_TAB_FORWARD);
}

/* ---- Filters ------------------------------------------------------------------- */

static void
on_coworker_filter_cb (GtkDropDown *dropdown, GParamSpec *pspec, gpointer user_data)
{
  OwWindow *self = user_data;
  guint i = gtk_drop_down_get_selected (dropdown);
  const char *const *ids = ow_coworker_ids ();

  ow_session_list_set_filter_coworker (self->sessions, i > 0 && i <= g_strv_length ((char **) ids) ? ids[i - 1] : NULL);
}

static void
on_folder_filter_cb (GtkDropDown *dropdown, GParamSpec *pspec, gpointer user_data)
{
  OwWindow *self = user_data;
  guint i = gtk_drop_down_get_selected (dropdown);

  ow_session_list_set_filter_workspace (self->sessions,
                                        i < self->folder_ids->len ? g_ptr_array_index (self->folder_ids, i) : NULL);
}

/* The folder filter lists the folders sessions use; it is filled when the
 * filter popover opens, so it is never stale. */
static void
fill_folder_filter (OwWindow *self)
{
  g_autoptr(GtkStringList) labels = gtk_string_list_new (NULL);
  g_autoptr(GPtrArray) folders = ow_session_list_dup_workspaces (self->sessions);
  g_autofree char *current = NULL;
  guint selected = gtk_drop_down_get_selected (self->folder_filter);

  if (selected < self->folder_ids->len)
    current = g_strdup (g_ptr_array_index (self->folder_ids, selected));
  g_ptr_array_set_size (self->folder_ids, 0);
  gtk_string_list_append (labels, _("All folders"));
  g_ptr_array_add (self->folder_ids, g_strdup (""));
  selected = 0;
  for (guint i = 0; i < folders->len; i++)
    {
      g_autofree char *base = g_path_get_basename (g_ptr_array_index (folders, i));
      gtk_string_list_append (labels, base);
      g_ptr_array_add (self->folder_ids, g_strdup (g_ptr_array_index (folders, i)));
      if (g_strcmp0 (current, g_ptr_array_index (folders, i)) == 0)
        selected = i + 1;
    }
  g_signal_handlers_block_by_func (self->folder_filter, on_folder_filter_cb, self);
  gtk_drop_down_set_model (self->folder_filter, G_LIST_MODEL (labels));
  gtk_drop_down_set_selected (self->folder_filter, selected);
  g_signal_handlers_unblock_by_func (self->folder_filter, on_folder_filter_cb, self);
}

static void
on_filter_popover_show_cb (GtkWidget *popover, gpointer user_data)
{
  fill_folder_filter (user_data);
}

static void
on_search_changed_cb (GtkEditable *entry, gpointer user_data)
{
  OwWindow *self = user_data;

  ow_session_list_set_filter_text (self->sessions, gtk_editable_get_text (entry));
}

/* No rows: say why, and what to do about it. */
static void
update_sidebar_empty (OwWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  gboolean searching = text != NULL && *text != '\0';
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->sessions)) == 0;

  if (searching)
    {
      adw_status_page_set_icon_name (self->sidebar_empty, "edit-find-symbolic");
      adw_status_page_set_title (self->sidebar_empty, _("No Matching Sessions"));
      adw_status_page_set_description (self->sidebar_empty, _("Try other words, or clear the filters."));
    }
  else
    {
      adw_status_page_set_icon_name (self->sidebar_empty, "chat-message-new-symbolic");
      adw_status_page_set_title (self->sidebar_empty, _("No Sessions Yet"));
      adw_status_page_set_description (self->sidebar_empty, _("The sessions you start are listed here."));
    }
  gtk_stack_set_visible_child_name (self->sidebar_stack, empty ? "empty" : "list");
}

static void
on_sessions_n_items_cb (GListModel *model, guint position, guint removed, guint added, gpointer user_data)
{
  update_sidebar_empty (user_data);
}

/* ---- Window --------------------------------------------------------------------- */

static gboolean
ow_window_close_request (GtkWindow *window)
{
  OwWindow *self = OW_WINDOW (window);

  finish_delete (self);
  /* With "run in the background" the window only hides: sessions, the API
   * and the tray carry on, and activating the app shows it again. */
  if (ow_application_get_run_in_background (self->app))
    {
      gtk_widget_set_visible (GTK_WIDGET (window), FALSE);
      return TRUE;
    }
  return GTK_WINDOW_CLASS (ow_window_parent_class)->close_request (window);
}

static void
ow_window_dispose (GObject *object)
{
  OwWindow *self = OW_WINDOW (object);

  finish_delete (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_WINDOW);
  g_clear_object (&self->selection);
  g_clear_object (&self->sessions);
  G_OBJECT_CLASS (ow_window_parent_class)->dispose (object);
}

static void
ow_window_finalize (GObject *object)
{
  OwWindow *self = OW_WINDOW (object);

  g_clear_pointer (&self->folder_ids, g_ptr_array_unref);
  G_OBJECT_CLASS (ow_window_parent_class)->finalize (object);
}

static void
ow_window_class_init (OwWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_window_dispose;
  object_class->finalize = ow_window_finalize;
  GTK_WINDOW_CLASS (klass)->close_request = ow_window_close_request;

  g_type_ensure (OW_TYPE_SIDEBAR_ROW);
  g_type_ensure (OW_TYPE_SESSION_ITEM);
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-window.ui");
  gtk_widget_class_bind_template_child (widget_class, OwWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, sidebar_toggle);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, artifacts_toggle);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, sidebar_flap);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, artifacts_flap);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, inbox_badge);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, sidebar_stack);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, sidebar_empty);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, session_list_view);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, pages);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, coworker_filter);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, folder_filter);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, attention_filter);
  gtk_widget_class_bind_template_child (widget_class, OwWindow, archived_filter);

  gtk_widget_class_install_action (widget_class, "win.new-session", NULL, action_new_session);
  gtk_widget_class_install_action (widget_class, "win.show-inbox", NULL, action_show_inbox);
  gtk_widget_class_install_action (widget_class, "win.open-session", "s", action_open_session);
  gtk_widget_class_install_action (widget_class, "win.rename-session", "s", action_rename_session);
  gtk_widget_class_install_action (widget_class, "win.toggle-pin", "s", action_toggle_pin);
  gtk_widget_class_install_action (widget_class, "win.toggle-archive", "s", action_toggle_archive);
  gtk_widget_class_install_action (widget_class, "win.delete-session", "s", action_delete_session);
  gtk_widget_class_install_action (widget_class, "win.undo-delete", NULL, action_undo_delete);
  gtk_widget_class_install_action (widget_class, "win.toggle-sidebar", NULL, action_toggle_sidebar);
  gtk_widget_class_install_action (widget_class, "win.toggle-artifacts", NULL, action_toggle_artifacts);
  gtk_widget_class_install_action (widget_class, "win.focus-cards", NULL, action_focus_cards);
  gtk_widget_class_install_action (widget_class, "win.focus-composer", NULL, action_focus_composer);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F9, 0, "win.toggle-sidebar", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.focus-cards", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_l, GDK_CONTROL_MASK, "win.focus-composer", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "win.undo-delete", NULL);
}

static void
ow_window_init (OwWindow *self)
{
  GtkEventController *shortcuts;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->folder_ids = g_ptr_array_new_with_free_func (g_free);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo-delete", FALSE);

  /* The toggles and the flaps are one state: a folded sidebar closes
   * itself when a session is picked, and its toggle follows. */
  g_object_bind_property (self->sidebar_toggle, "active", self->sidebar_flap, "reveal-flap",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->artifacts_toggle, "active", self->artifacts_flap, "reveal-flap",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);

  /* Shift+Ctrl+D shows and hides the deliverables. GtkWindow binds the
   * same keys to the GTK Inspector in its class, ahead of ours; a
   * controller of the window's own in the capture phase runs first. */
  shortcuts = gtk_shortcut_controller_new ();
  gtk_event_controller_set_propagation_phase (shortcuts, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("<Primary><Shift>d"),
                                                          gtk_named_action_new ("win.toggle-artifacts")));
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);
}

OwWindow *
ow_window_new (OwApplication *app)
{
  OwWindow *self;
  g_autoptr(GtkListItemFactory) factory = NULL;
  g_autoptr(GtkStringList) coworkers = gtk_string_list_new (NULL);
  const char *const *ids = ow_coworker_ids ();

  g_return_val_if_fail (OW_IS_APPLICATION (app), NULL);
  self = g_object_new (OW_TYPE_WINDOW, "application", app, NULL);
  self->app = app;
  self->host = ow_application_get_host (app);
  if (self->host == NULL)
    {
      /* The engine did not start: say why, and offer nothing that needs it. */
      const GError *error = ow_application_get_startup_error (app);
      GtkWidget *status = adw_status_page_new ();

      adw_status_page_set_icon_name (ADW_STATUS_PAGE (status), "dialog-error-symbolic");
      adw_status_page_set_title (ADW_STATUS_PAGE (status), _("OpenWorker Could Not Start"));
      adw_status_page_set_description (ADW_STATUS_PAGE (status),
                                       error != NULL ? error->message : _("The engine did not start."));
      gtk_stack_add_named (self->pages, status, "error");
      return self;
    }

  self->sessions = ow_session_list_new (self->host);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->sessions)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  factory = gtk_builder_list_item_factory_new_from_resource (NULL, "/com/openworker/ui/ow-session-list-item.ui");
  gtk_list_view_set_factory (self->session_list_view, factory);
  gtk_list_view_set_model (self->session_list_view, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect (self->selection, "notify::selected", G_CALLBACK (on_selected_cb), self);
  g_signal_connect (self->session_list_view, "activate", G_CALLBACK (on_sidebar_row_activated_cb), self);
  g_signal_connect_after (self->sessions, "items-changed", G_CALLBACK (on_sessions_items_changed_cb), self);
  g_signal_connect_after (self->sessions, "items-changed", G_CALLBACK (on_sessions_n_items_cb), self);
  /* Every change at once: the list is local and cheap to filter. */
  g_signal_connect (self->search_entry, "changed", G_CALLBACK (on_search_changed_cb), self);
  update_sidebar_empty (self);

  gtk_string_list_append (coworkers, _("All coworkers"));
  for (guint i = 0; ids[i] != NULL; i++)
    gtk_string_list_append (coworkers, ow_format_coworker_label (ids[i]));
  gtk_drop_down_set_model (self->coworker_filter, G_LIST_MODEL (coworkers));
  fill_folder_filter (self);
  g_signal_connect (self->coworker_filter, "notify::selected", G_CALLBACK (on_coworker_filter_cb), self);
  g_signal_connect (self->folder_filter, "notify::selected", G_CALLBACK (on_folder_filter_cb), self);
  g_object_bind_property (self->attention_filter, "active", self->sessions, "attention-only", G_BINDING_DEFAULT);
  g_object_bind_property (self->archived_filter, "active", self->sessions, "show-archived", G_BINDING_DEFAULT);
  g_signal_connect (gtk_widget_get_ancestor (GTK_WIDGET (self->coworker_filter), GTK_TYPE_POPOVER), "show",
                    G_CALLBACK (on_filter_popover_show_cb), self);

  self->session_view = OW_SESSION_VIEW (ow_session_view_new (app));
  gtk_stack_add_named (self->pages, GTK_WIDGET (self->session_view), "session");
  self->inbox_page = OW_INBOX_PAGE (ow_inbox_page_new (app));
  gtk_stack_add_named (self->pages, GTK_WIDGET (self->inbox_page), "inbox");
  self->artifacts = OW_ARTIFACTS_PANEL (ow_artifacts_panel_new (self->host));
  gtk_widget_set_size_request (GTK_WIDGET (self->artifacts), 300, -1);
  /* As the sidebar: a fixed width, the page takes the rest. */
  gtk_widget_set_hexpand (GTK_WIDGET (self->artifacts), FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (self->artifacts), "sidebar-pane");
  adw_flap_set_flap (self->artifacts_flap, GTK_WIDGET (self->artifacts));

  g_signal_connect_object (self->session_view, "notify::title", G_CALLBACK (on_heading_changed_cb), self, 0);
  g_signal_connect_object (self->session_view, "notify::subtitle", G_CALLBACK (on_heading_changed_cb), self, 0);
  g_signal_connect_object (self->session_view, "session-created", G_CALLBACK (on_session_created_cb), self, 0);
  g_signal_connect_object (self->session_view, "open-artifact", G_CALLBACK (on_open_artifact_cb), self, 0);
  g_signal_connect_object (app, "notify::inbox-count", G_CALLBACK (on_inbox_count_cb), self, 0);
  update_inbox_badge (self);
  show_page (self, "session");
  ow_window_bench_install (self);
  return self;
}

OwSessionView *
ow_window_get_session_view (OwWindow *self)
{
  return self->session_view;
}

OwInboxPage *
ow_window_get_inbox_page (OwWindow *self)
{
  return self->inbox_page;
}

OwArtifactsPanel *
ow_window_get_artifacts_panel (OwWindow *self)
{
  return self->artifacts;
}

OwSessionList *
ow_window_get_session_list (OwWindow *self)
{
  return self->sessions;
}

GtkListView *
ow_window_get_session_list_view (OwWindow *self)
{
  return self->session_list_view;
}
