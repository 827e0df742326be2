/* ow-session-list.c: the sessions sidebar as a list model (see
 * ow-session-list.h). */
#define G_LOG_DOMAIN "ow-session-list"

#include "config-ui.h"
#include "ow-session-list.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "ow-format.h"

struct _OwSessionList
{
  GObject        parent_instance;

  /* Borrowed: the application outlives every window's list */
  OwSessionHost *host;

  GPtrArray     *items;       /* OwSessionItem*, what the model shows */
  GHashTable    *by_key;      /* row key (id, or "#pinned" for a header) → OwSessionItem* (owned refs) */
  GHashTable    *hidden;      /* session ids left out */
  GPtrArray     *workspaces;  /* char*, from the last read */
  guint          n_sessions;
  guint          refresh_id;

  char          *filter_coworker;
  char          *filter_workspace;
  char          *filter_text;     /* casefolded, or NULL */
  gboolean       attention_only;
  gboolean       show_archived;
};

enum {
  PROP_0,
  PROP_FILTER_COWORKER,
  PROP_FILTER_WORKSPACE,
  PROP_FILTER_TEXT,
  PROP_ATTENTION_ONLY,
  PROP_SHOW_ARCHIVED,
  PROP_N_SESSIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSessionList, ow_session_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
get_item_type (GListModel *model)
{
  return OW_TYPE_SESSION_ITEM;
}

static guint
get_n_items (GListModel *model)
{
  return OW_SESSION_LIST (model)->items->len;
}

static gpointer
get_item (GListModel *model, guint position)
{
  OwSessionList *self = OW_SESSION_LIST (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static OwSessionItem *
header (OwSessionList *self, const char *key, const char *title)
{
  OwSessionItem *item = g_hash_table_lookup (self->by_key, key);

  if (item == NULL)
    {
      item = ow_session_item_new_header (title);
      g_object_set_data_full (G_OBJECT (item), "ow-key", g_strdup (key), g_free);
      g_hash_table_insert (self->by_key, g_strdup (key), item);
    }
  return item;
}

/* A scratch folder is where a session without a folder of its own works. */
static gboolean
is_temporary (OwSessionList *self, const char *workspace)
{
  return workspace == NULL || ow_context_is_scratch (ow_session_host_get_context (self->host), workspace);
}

/* The search: every word of it in the title or the folder's name. */
static gboolean
matches_text (OwSessionList *self, OwSessionListRow *l)
{
  OwSessionRow *r = l->row;
  g_autofree char *title = ow_format_session_title (r->title, l->auto_title, l->renamed, l->first_text);
  g_autofree char *folder = r->workspace != NULL && !is_temporary (self, r->workspace)
                              ? g_path_get_basename (r->workspace) : g_strdup ("");
  g_autofree char *haystack_raw = g_strconcat (title != NULL ? title : "", " ", folder, NULL);
  g_autofree char *haystack = g_utf8_casefold (haystack_raw, -1);
  g_auto(GStrv) words = g_strsplit_set (self->filter_text, " \t", -1);

  for (guint i = 0; words[i] != NULL; i++)
    if (*words[i] != '\0' && strstr (haystack, words[i]) == NULL)
      return FALSE;
  return TRUE;
}

static gboolean
passes (OwSessionList *self, OwSessionListRow *l)
{
  OwSessionRow *r = l->row;
  const char *coworker = r->coworker != NULL ? r->coworker : "cowork";

  if (g_hash_table_contains (self->hidden, r->session_id))
    return FALSE;
  if (r->archived && !self->show_archived)
    return FALSE;
  if (self->filter_coworker != NULL && *self->filter_coworker != '\0' && g_strcmp0 (coworker, self->filter_coworker) != 0)
    return FALSE;
  if (self->filter_workspace != NULL && *self->filter_workspace != '\0'
      && g_strcmp0 (r->workspace, self->filter_workspace) != 0)
    return FALSE;
  if (self->attention_only && l->attention <= 0)
    return FALSE;
  if (self->filter_text != NULL && !matches_text (self, l))
    return FALSE;
  return TRUE;
}

static OwSessionItem *
session_item (OwSessionList *self, OwSessionListRow *l, GDateTime *now)
{
  OwSessionRow *r = l->row;
  OwSessionItem *item = g_hash_table_lookup (self->by_key, r->session_id);
  g_autofree char *title = ow_format_session_title (r->title, l->auto_title, l->renamed, l->first_text);
  g_autofree char *subtitle = ow_format_session_subtitle (r->coworker, r->workspace, is_temporary (self, r->workspace));
  g_autofree char *updated = ow_format_relative_time (r->updated_at, now);

  if (item == NULL)
    {
      item = ow_session_item_new (r->session_id);
      g_hash_table_insert (self->by_key, g_strdup (r->session_id), item);
    }
  ow_session_item_set_title (item, title);
  ow_session_item_set_subtitle (item, subtitle);
  ow_session_item_set_updated (item, updated);
  ow_session_item_set_coworker (item, r->coworker != NULL ? r->coworker : "cowork");
  ow_session_item_set_workspace (item, r->workspace);
  ow_session_item_set_pinned (item, r->pinned);
  ow_session_item_set_archived (item, r->archived);
  ow_session_item_set_attention (item, (guint) MAX (l->attention, 0));
  ow_session_item_set_running (item, ow_session_host_is_running (self->host, r->session_id));
  return item;
}

void
ow_session_list_refresh (OwSessionList *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) pinned = g_ptr_array_new ();
  g_autoptr(GPtrArray) recent = g_ptr_array_new ();
  g_autoptr(GPtrArray) archived = g_ptr_array_new ();
  g_autoptr(GPtrArray) wanted = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GHashTable) seen_ws = g_hash_table_new (g_str_hash, g_str_equal);
  guint prefix = 0, suffix = 0, old_n, n_sessions;

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  rows = ow_store_session_list (ow_context_get_store (ow_session_host_get_context (self->host)), NULL, NULL, &error);
  if (rows == NULL)
    {
      g_message ("The session list could not be read: %s", error->message);
      return;
    }

  g_ptr_array_set_size (self->workspaces, 0);
  for (guint i = 0; i < rows->len; i++)
    {
      OwSessionListRow *l = g_ptr_array_index (rows, i);
      OwSessionRow *r = l->row;

      if (r->workspace != NULL && !is_temporary (self, r->workspace) && !g_hash_table_contains (seen_ws, r->workspace))
        {
          g_hash_table_add (seen_ws, r->workspace);
          g_ptr_array_add (self->workspaces, g_strdup (r->workspace));
        }
      if (!passes (self, l))
        continue;
      if (r->archived)
        g_ptr_array_add (archived, l);
      else if (r->pinned)
        g_ptr_array_add (pinned, l);
      else
        g_ptr_array_add (recent, l);
    }

  {
    struct { GPtrArray *rows; const char *key; const char *title; } groups[] = {
      { pinned, "#pinned", _("Pinned") },
      { recent, "#recent", _("Recent") },
      { archived, "#archived", _("Archived") },
    };
    for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
      {
        if (groups[g].rows->len == 0)
          continue;
        g_ptr_array_add (wanted, g_object_ref (header (self, groups[g].key, groups[g].title)));
        for (guint i = 0; i < groups[g].rows->len; i++)
          g_ptr_array_add (wanted, g_object_ref (session_item (self, g_ptr_array_index (groups[g].rows, i), now)));
      }
  }
  n_sessions = pinned->len + recent->len + archived->len;

  /* Replace only the stretch that differs, so rows that stay keep their
   * widgets (and the view its selection). */
  old_n = self->items->len;
  while (prefix < old_n && prefix < wanted->len
         && g_ptr_array_index (self->items, prefix) == g_ptr_array_index (wanted, prefix))
    prefix++;
  while (suffix < old_n - prefix && suffix < wanted->len - prefix
         && g_ptr_array_index (self->items, old_n - 1 - suffix) == g_ptr_array_index (wanted, wanted->len - 1 - suffix))
    suffix++;
  if (prefix != old_n || old_n != wanted->len)
    {
      guint removed = old_n - prefix - suffix;
      guint added = wanted->len - prefix - suffix;

      g_ptr_array_remove_range (self->items, prefix, removed);
      for (guint i = 0; i < added; i++)
        g_ptr_array_insert (self->items, (int) (prefix + i), g_object_ref (g_ptr_array_index (wanted, prefix + i)));
      g_list_model_items_changed (G_LIST_MODEL (self), prefix, removed, added);
    }
  if (n_sessions != self->n_sessions)
    {
      self->n_sessions = n_sessions;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SESSIONS]);
    }
  /* Forget items no longer shown, so a session deleted and one created
   * later with the same id start fresh. */
  {
    GHashTableIter iter;
    gpointer key, value;
    g_autoptr(GHashTable) shown = g_hash_table_new (NULL, NULL);

    for (guint i = 0; i < self->items->len; i++)
      g_hash_table_add (shown, g_ptr_array_index (self->items, i));
    g_hash_table_iter_init (&iter, self->by_key);
    while (g_hash_table_iter_next (&iter, &key, &value))
      if (!g_hash_table_contains (shown, value))
        g_hash_table_iter_remove (&iter);
  }
}

static gboolean
on_refresh_idle_cb (gpointer user_data)
{
  OwSessionList *self = user_data;

  self->refresh_id = 0;
  ow_session_list_refresh (self);
  return G_SOURCE_REMOVE;
}

void
ow_session_list_queue_refresh (OwSessionList *self)
{
  if (self->refresh_id == 0)
    self->refresh_id = g_timeout_add (50, on_refresh_idle_cb, self);
}

int
ow_session_list_find (OwSessionList *self, const char *session_id)
{
  for (guint i = 0; i < self->items->len; i++)
    {
      OwSessionItem *item = g_ptr_array_index (self->items, i);
      if (!ow_session_item_get_is_header (item) && g_strcmp0 (ow_session_item_get_id (item), session_id) == 0)
        return (int) i;
    }
  return -1;
}

OwSessionItem *
ow_session_list_lookup (OwSessionList *self, const char *session_id)
{
  int pos = ow_session_list_find (self, session_id);

  return pos >= 0 ? g_ptr_array_index (self->items, pos) : NULL;
}

void
ow_session_list_set_hidden (OwSessionList *self, const char *session_id, gboolean hidden)
{
  if (hidden)
    g_hash_table_add (self->hidden, g_strdup (session_id));
  else
    g_hash_table_remove (self->hidden, session_id);
  ow_session_list_refresh (self);
}

guint
ow_session_list_get_n_sessions (OwSessionList *self)
{
  return self->n_sessions;
}

GPtrArray *
ow_session_list_dup_workspaces (OwSessionList *self)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < self->workspaces->len; i++)
    g_ptr_array_add (out, g_strdup (g_ptr_array_index (self->workspaces, i)));
  return out;
}

static void
set_filter_string (OwSessionList *self, char **field, const char *value, guint prop)
{
  if (value != NULL && *value == '\0')
    value = NULL;
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
  ow_session_list_refresh (self);
}

static void
set_filter_bool (OwSessionList *self, gboolean *field, gboolean value, guint prop)
{
  value = !!value;
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
  ow_session_list_refresh (self);
}

void
ow_session_list_set_filter_coworker (OwSessionList *self, const char *coworker)
{
  set_filter_string (self, &self->filter_coworker, coworker, PROP_FILTER_COWORKER);
}

void
ow_session_list_set_filter_workspace (OwSessionList *self, const char *workspace)
{
  set_filter_string (self, &self->filter_workspace, workspace, PROP_FILTER_WORKSPACE);
}

void
ow_session_list_set_filter_text (OwSessionList *self, const char *text)
{
  g_autofree char *stripped = g_strstrip (g_strdup (text != NULL ? text : ""));
  g_autofree char *folded = *stripped != '\0' ? g_utf8_casefold (stripped, -1) : NULL;

  if (g_strcmp0 (folded, self->filter_text) == 0)
    return;
  g_free (self->filter_text);
  self->filter_text = g_steal_pointer (&folded);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILTER_TEXT]);
  ow_session_list_refresh (self);
}

void
ow_session_list_set_attention_only (OwSessionList *self, gboolean only)
{
  set_filter_bool (self, &self->attention_only, only, PROP_ATTENTION_ONLY);
}

void
ow_session_list_set_show_archived (OwSessionList *self, gboolean show)
{
  set_filter_bool (self, &self->show_archived, show, PROP_SHOW_ARCHIVED);
}

/* ---- Following the engine --------------------------------------------------- */

static void
on_sessions_changed_cb (OwSessionHost *host, gpointer user_data)
{
  ow_session_list_queue_refresh (user_data);
}

static void
on_session_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  static const char *const relevant[] = {
    "turn_start", "turn_done", "permission_required", "question_requested", "directory_requested",
    "site_requested", "approval_resolved", "session_title", "assistant_message", NULL
  };

  /* Deltas change nothing the list shows; everything else is cheap to re-read. */
  if (g_strv_contains (relevant, event->type))
    ow_session_list_queue_refresh (user_data);
}

static void
on_inbox_cb (OwInbox *inbox, const char *id, gpointer user_data)
{
  ow_session_list_queue_refresh (user_data);
}

/* ---- Object ------------------------------------------------------------------- */

static void
ow_session_list_dispose (GObject *object)
{
  OwSessionList *self = OW_SESSION_LIST (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  G_OBJECT_CLASS (ow_session_list_parent_class)->dispose (object);
}

static void
ow_session_list_finalize (GObject *object)
{
  OwSessionList *self = OW_SESSION_LIST (object);

  g_ptr_array_unref (self->items);
  g_hash_table_unref (self->by_key);
  g_hash_table_unref (self->hidden);
  g_ptr_array_unref (self->workspaces);
  g_free (self->filter_coworker);
  g_free (self->filter_workspace);
  g_free (self->filter_text);
  G_OBJECT_CLASS (ow_session_list_parent_class)->finalize (object);
}

static void
ow_session_list_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwSessionList *self = OW_SESSION_LIST (object);

  switch (prop_id)
    {
    case PROP_FILTER_COWORKER: g_value_set_string (value, self->filter_coworker); break;
    case PROP_FILTER_WORKSPACE: g_value_set_string (value, self->filter_workspace); break;
    case PROP_FILTER_TEXT: g_value_set_string (value, self->filter_text); break;
    case PROP_ATTENTION_ONLY: g_value_set_boolean (value, self->attention_only); break;
    case PROP_SHOW_ARCHIVED: g_value_set_boolean (value, self->show_archived); break;
    case PROP_N_SESSIONS: g_value_set_uint (value, self->n_sessions); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_session_list_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  OwSessionList *self = OW_SESSION_LIST (object);

  switch (prop_id)
    {
    case PROP_FILTER_COWORKER: ow_session_list_set_filter_coworker (self, g_value_get_string (value)); break;
    case PROP_FILTER_WORKSPACE: ow_session_list_set_filter_workspace (self, g_value_get_string (value)); break;
    case PROP_FILTER_TEXT: ow_session_list_set_filter_text (self, g_value_get_string (value)); break;
    case PROP_ATTENTION_ONLY: ow_session_list_set_attention_only (self, g_value_get_boolean (value)); break;
    case PROP_SHOW_ARCHIVED: ow_session_list_set_show_archived (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_session_list_class_init (OwSessionListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = ow_session_list_dispose;
  object_class->finalize = ow_session_list_finalize;
  object_class->get_property = ow_session_list_get_property;
  object_class->set_property = ow_session_list_set_property;

  properties[PROP_FILTER_COWORKER] = g_param_spec_string ("filter-coworker", NULL, NULL, NULL, rw);
  properties[PROP_FILTER_WORKSPACE] = g_param_spec_string ("filter-workspace", NULL, NULL, NULL, rw);
  properties[PROP_FILTER_TEXT] = g_param_spec_string ("filter-text", NULL, NULL, NULL, rw);
  properties[PROP_ATTENTION_ONLY] = g_param_spec_boolean ("attention-only", NULL, NULL, FALSE, rw);
  properties[PROP_SHOW_ARCHIVED] = g_param_spec_boolean ("show-archived", NULL, NULL, FALSE, rw);
  properties[PROP_N_SESSIONS] = g_param_spec_uint ("n-sessions", NULL, NULL, 0, G_MAXUINT, 0,
                                                   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ow_session_list_init (OwSessionList *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->hidden = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->workspaces = g_ptr_array_new_with_free_func (g_free);
}

OwSessionList *
ow_session_list_new (OwSessionHost *host)
{
  OwSessionList *self = g_object_new (OW_TYPE_SESSION_LIST, NULL);

  self->host = host;
  g_signal_connect_object (host, "sessions-changed", G_CALLBACK (on_sessions_changed_cb), self, 0);
  g_signal_connect_object (host, "session-event", G_CALLBACK (on_session_event_cb), self, 0);
  g_signal_connect_object (ow_session_host_get_inbox (host), "item-added", G_CALLBACK (on_inbox_cb), self, 0);
  g_signal_connect_object (ow_session_host_get_inbox (host), "item-resolved", G_CALLBACK (on_inbox_cb), self, 0);
  ow_session_list_refresh (self);
  return self;
}
