/* ow-inbox-page.c: every ask that waits for a person (see ow-inbox-page.h).
 *
 * The page binds a GtkListBox to a list model of entries (an inbox item
 * with its session's title and coworker) through a filter. Refreshing
 * keeps the entries that are still pending — and so their cards, with
 * whatever a person typed into them — and inserts or drops only the rest.
 */
#define G_LOG_DOMAIN "ow-inbox-page"

#include "config-ui.h"
#include "ow-inbox-page.h"
#include "ow-ui-private.h"

#include <glib/gi18n-lib.h>

#include "core/ow-coworker.h"
#include "ow-format.h"
#include "ow-json.h"

/* ---- An entry of the page's model ------------------------------------------- */

#define OW_TYPE_INBOX_ENTRY (ow_inbox_entry_get_type ())
G_DECLARE_FINAL_TYPE (OwInboxEntry, ow_inbox_entry, OW, INBOX_ENTRY, GObject)

struct _OwInboxEntry
{
  GObject      parent_instance;
  OwInboxItem *item;
  char        *session_title;
  char        *coworker;
  char        *workspace;
};

G_DEFINE_FINAL_TYPE (OwInboxEntry, ow_inbox_entry, G_TYPE_OBJECT)

static void
ow_inbox_entry_finalize (GObject *object)
{
  OwInboxEntry *self = OW_INBOX_ENTRY (object);

  ow_inbox_item_free (self->item);
  g_free (self->session_title);
  g_free (self->coworker);
  g_free (self->workspace);
  G_OBJECT_CLASS (ow_inbox_entry_parent_class)->finalize (object);
}

static void
ow_inbox_entry_class_init (OwInboxEntryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_inbox_entry_finalize;
}

static void
ow_inbox_entry_init (OwInboxEntry *self)
{
}

/* ---- The page ------------------------------------------------------------------ */

static const char *const kinds[] = { NULL, "approval", "question", "directory" };

struct _OwInboxPage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkLabel          *count_label;
  GtkDropDown       *kind_dropdown;
  GtkDropDown       *coworker_dropdown;
  GtkStack          *stack;
  GtkListBox        *list;

  /* Borrowed */
  OwApplication     *app;
  OwSessionHost     *host;

  /* Owned */
  GListStore        *store;     /* OwInboxEntry*, newest first */
  GtkFilterListModel *filtered;
  GtkCustomFilter   *filter;
  guint              refresh_id;
};

G_DEFINE_FINAL_TYPE (OwInboxPage, ow_inbox_page, GTK_TYPE_WIDGET)

static gboolean
filter_entry (gpointer item, gpointer user_data)
{
  OwInboxPage *self = user_data;
  OwInboxEntry *entry = item;
  guint k = gtk_drop_down_get_selected (self->kind_dropdown);
  guint c = gtk_drop_down_get_selected (self->coworker_dropdown);
  const char *const *coworkers = ow_coworker_ids ();

  if (k > 0 && k < G_N_ELEMENTS (kinds) && g_strcmp0 (entry->item->kind, kinds[k]) != 0)
    return FALSE;
  if (c > 0 && c <= g_strv_length ((char **) coworkers) && g_strcmp0 (entry->coworker, coworkers[c - 1]) != 0)
    return FALSE;
  return TRUE;
}

static void
update_count (OwInboxPage *self)
{
  guint total = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));
  g_autofree char *text = NULL;

  if (shown == total)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u waiting", "%u waiting", total), total);
  else
    text = g_strdup_printf (_("%u of %u shown"), shown, total);
  gtk_label_set_text (self->count_label, text);
  gtk_stack_set_visible_child_name (self->stack, shown > 0 ? "list" : "empty");
}

static void
on_filter_changed_cb (GtkDropDown *dropdown, GParamSpec *pspec, gpointer user_data)
{
  OwInboxPage *self = user_data;

  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_count (self);
}

void
ow_inbox_page_set_kind_filter (OwInboxPage *self, const char *kind)
{
  guint index = 0;

  for (guint i = 1; i < G_N_ELEMENTS (kinds); i++)
    if (g_strcmp0 (kinds[i], kind) == 0)
      index = i;
  gtk_drop_down_set_selected (self->kind_dropdown, index);
}

static void
on_card_answered_cb (OwAskCard *card, JsonObject *answer, gpointer user_data)
{
  OwInboxPage *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!ow_session_host_answer (self->host, ow_ask_card_get_session_id (card), ow_ask_card_get_call_id (card), answer,
                               "inbox", &error)
      && !g_error_matches (error, OW_HOST_ERROR, OW_HOST_ERROR_ANSWERED)
      && !g_error_matches (error, OW_HOST_ERROR, OW_HOST_ERROR_NO_ASK))
    g_message ("The answer could not be given: %s", error->message);
  ow_inbox_page_refresh (self);
}

static void
on_go_clicked_cb (GtkButton *button, gpointer user_data)
{
  gtk_widget_activate_action (GTK_WIDGET (button), "app.open-session", "s",
                              (const char *) g_object_get_data (G_OBJECT (button), "ow-session-id"));
}

static GtkWidget *
create_row (gpointer item, gpointer user_data)
{
  OwInboxPage *self = user_data;
  OwInboxEntry *entry = item;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *label, *go, *card;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *when = ow_format_relative_time (entry->item->created_at, now);
  g_autofree char *where = g_strdup_printf ("%s · %s · %s", entry->session_title,
                                            ow_format_coworker_label (entry->coworker), when);
  GtkWidget *row = gtk_list_box_row_new ();

  gtk_widget_add_css_class (box, "inbox-entry");
  label = gtk_label_new (where);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (header), label);
  go = gtk_button_new_with_mnemonic (_("_Go to session"));
  gtk_widget_add_css_class (go, "flat");
  g_object_set_data_full (G_OBJECT (go), "ow-session-id", g_strdup (entry->item->session_id), g_free);
  g_signal_connect (go, "clicked", G_CALLBACK (on_go_clicked_cb), self);
  gtk_box_append (GTK_BOX (header), go);
  gtk_box_append (GTK_BOX (box), header);

  card = ow_ask_card_new_for_item (entry->item, entry->workspace);
  if (card == NULL)
    {
      card = gtk_label_new (entry->item->title);
      gtk_label_set_wrap (GTK_LABEL (card), TRUE);
    }
  else
    g_signal_connect (card, "answered", G_CALLBACK (on_card_answered_cb), self);
  gtk_box_append (GTK_BOX (box), card);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_set_focusable (row, FALSE);
  g_object_set_data (G_OBJECT (row), "ow-card", card);
  return row;
}

static OwInboxEntry *
make_entry (OwInboxPage *self, OwInboxItem *item, GHashTable *sessions)
{
  OwInboxEntry *entry = g_object_new (OW_TYPE_INBOX_ENTRY, NULL);
  OwSessionListRow *l = g_hash_table_lookup (sessions, item->session_id);

  entry->item = item;
  if (l != NULL)
    {
      entry->session_title = ow_format_session_title (l->row->title, l->auto_title, l->renamed, l->first_text);
      entry->coworker = g_strdup (l->row->coworker != NULL ? l->row->coworker : "cowork");
      entry->workspace = g_strdup (l->row->workspace);
    }
  else
    {
      entry->session_title = g_strdup (_("A deleted session"));
      entry->coworker = g_strdup ("cowork");
    }
  return entry;
}

void
ow_inbox_page_refresh (OwInboxPage *self)
{
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GHashTable) sessions = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) pending = g_hash_table_new (g_str_hash, g_str_equal);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  items = ow_inbox_list (ow_session_host_get_inbox (self->host), TRUE, NULL);
  if (items == NULL)
    return;
  g_ptr_array_set_free_func (items, NULL);  /* entries take the items they use */
  rows = ow_store_session_list (ow_context_get_store (ow_session_host_get_context (self->host)), NULL, NULL, NULL);
  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      OwSessionListRow *l = g_ptr_array_index (rows, i);
      g_hash_table_insert (sessions, l->row->session_id, l);
    }
  for (guint i = 0; i < items->len; i++)
    g_hash_table_add (pending, ((OwInboxItem *) g_ptr_array_index (items, i))->id);

  /* Drop what was answered… */
  for (guint i = g_list_model_get_n_items (G_LIST_MODEL (self->store)); i > 0; i--)
    {
      g_autoptr(OwInboxEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->store), i - 1);
      if (!g_hash_table_contains (pending, entry->item->id))
        g_list_store_remove (self->store, i - 1);
    }
  /* …and put new asks where they belong (both lists are newest first). */
  for (guint i = 0; i < items->len; i++)
    {
      OwInboxItem *item = g_ptr_array_index (items, i);
      g_autoptr(OwInboxEntry) at = i < g_list_model_get_n_items (G_LIST_MODEL (self->store))
                                     ? g_list_model_get_item (G_LIST_MODEL (self->store), i) : NULL;

      if (at != NULL && g_str_equal (at->item->id, item->id))
        {
          ow_inbox_item_free (item);
          continue;
        }
      {
        g_autoptr(OwInboxEntry) entry = make_entry (self, item, sessions);
        g_list_store_insert (self->store, i, entry);
      }
    }
  update_count (self);
}

static gboolean
on_refresh_cb (gpointer user_data)
{
  OwInboxPage *self = user_data;

  self->refresh_id = 0;
  ow_inbox_page_refresh (self);
  return G_SOURCE_REMOVE;
}

static void
queue_refresh (OwInboxPage *self)
{
  if (self->refresh_id == 0)
    self->refresh_id = g_timeout_add (30, on_refresh_cb, self);
}

static void
on_inbox_cb (OwInbox *inbox, const char *id, gpointer user_data)
{
  queue_refresh (user_data);
}

static void
on_session_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  if (g_str_equal (event->type, "approval_resolved") || g_str_equal (event->type, "turn_done"))
    queue_refresh (user_data);
}

guint
ow_inbox_page_get_n_shown (OwInboxPage *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->filtered));
}

OwAskCard *
ow_inbox_page_find_card (OwInboxPage *self, const char *session_id, const char *call_id)
{
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *card = g_object_get_data (G_OBJECT (row), "ow-card");
      if (card != NULL && OW_IS_ASK_CARD (card)
          && g_strcmp0 (ow_ask_card_get_session_id (OW_ASK_CARD (card)), session_id) == 0
          && g_strcmp0 (ow_ask_card_get_call_id (OW_ASK_CARD (card)), call_id) == 0)
        return OW_ASK_CARD (card);
    }
  return NULL;
}

static void
ow_inbox_page_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (ow_inbox_page_parent_class)->map (widget);
  /* Another process may have parked or answered something meanwhile. */
  ow_inbox_page_refresh (OW_INBOX_PAGE (widget));
}

static void
ow_inbox_page_dispose (GObject *object)
{
  OwInboxPage *self = OW_INBOX_PAGE (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_INBOX_PAGE);
  ow_widget_unparent_children (GTK_WIDGET (self));
  g_clear_object (&self->filtered);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (ow_inbox_page_parent_class)->dispose (object);
}

static void
ow_inbox_page_class_init (OwInboxPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ow_inbox_page_dispose;
  widget_class->map = ow_inbox_page_map;
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-inbox-page.ui");
  gtk_widget_class_bind_template_child (widget_class, OwInboxPage, count_label);
  gtk_widget_class_bind_template_child (widget_class, OwInboxPage, kind_dropdown);
  gtk_widget_class_bind_template_child (widget_class, OwInboxPage, coworker_dropdown);
  gtk_widget_class_bind_template_child (widget_class, OwInboxPage, stack);
  gtk_widget_class_bind_template_child (widget_class, OwInboxPage, list);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owinboxpage");
}

static void
ow_inbox_page_init (OwInboxPage *self)
{
  g_autoptr(GtkStringList) kind_labels = gtk_string_list_new (NULL);
  g_autoptr(GtkStringList) coworker_labels = gtk_string_list_new (NULL);
  const char *const *coworkers = ow_coworker_ids ();

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_string_list_append (kind_labels, _("All asks"));
  gtk_string_list_append (kind_labels, _("Approvals"));
  gtk_string_list_append (kind_labels, _("Questions"));
  gtk_string_list_append (kind_labels, _("Folder requests"));
  gtk_drop_down_set_model (self->kind_dropdown, G_LIST_MODEL (kind_labels));
  gtk_string_list_append (coworker_labels, _("All coworkers"));
  for (guint i = 0; coworkers[i] != NULL; i++)
    gtk_string_list_append (coworker_labels, ow_format_coworker_label (coworkers[i]));
  gtk_drop_down_set_model (self->coworker_dropdown, G_LIST_MODEL (coworker_labels));

  self->store = g_list_store_new (OW_TYPE_INBOX_ENTRY);
  self->filter = gtk_custom_filter_new (filter_entry, self, NULL);
  self->filtered = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (self->store)), GTK_FILTER (self->filter));
  gtk_list_box_bind_model (self->list, G_LIST_MODEL (self->filtered), create_row, self, NULL);
  g_signal_connect (self->kind_dropdown, "notify::selected", G_CALLBACK (on_filter_changed_cb), self);
  g_signal_connect (self->coworker_dropdown, "notify::selected", G_CALLBACK (on_filter_changed_cb), self);
}

GtkWidget *
ow_inbox_page_new (OwApplication *app)
{
  OwInboxPage *self = g_object_new (OW_TYPE_INBOX_PAGE, NULL);

  self->app = app;
  self->host = ow_application_get_host (app);
  g_signal_connect_object (ow_session_host_get_inbox (self->host), "item-added", G_CALLBACK (on_inbox_cb), self, 0);
  g_signal_connect_object (ow_session_host_get_inbox (self->host), "item-resolved", G_CALLBACK (on_inbox_cb), self, 0);
  g_signal_connect_object (self->host, "session-event", G_CALLBACK (on_session_event_cb), self, 0);
  ow_inbox_page_refresh (self);
  return GTK_WIDGET (self);
}
