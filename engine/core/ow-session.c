/* ow-session.c: a conversation, its folders, grants and event log.
 *
 * The history is a GPtrArray of OwMessage exposed through GListModel. A
 * message is saved to the store before it joins the list, so what a surface
 * shows is always on disk. Events get the next sequence number, go to the
 * store, then to the "event" signal.
 */
#define G_LOG_DOMAIN "ow-session"

#include "core/ow-session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "ow-redact.h"

struct _OwSession
{
  GObject    parent_instance;

  /* borrowed */
  OwStore   *store;       /* may be NULL (memory-only session); outlives the session */

  /* owned */
  char      *id;
  char      *workspace;
  char      *model;
  char      *mode;
  char      *coworker;
  GPtrArray *messages;    /* OwMessage* */
  GPtrArray *roots;       /* OwRoot* */
  GPtrArray *tool_grants; /* char* */
  GPtrArray *cmd_grants;  /* char* */
  gboolean   readonly_grant; /* "Allow read-only commands" */
  JsonArray *todos;
  OwCompactionState *compaction; /* or NULL: nothing compacted yet */
  gint64     last_seq;    /* last event sequence number used */
};

enum {
  PROP_0,
  PROP_ID,
  PROP_MODEL,
  PROP_MODE,
  N_PROPS
};

enum {
  SIGNAL_EVENT,
  SIGNAL_ROOTS_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSession, ow_session, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
list_model_get_item_type (GListModel *model)
{
  return OW_TYPE_MESSAGE;
}

static guint
list_model_get_n_items (GListModel *model)
{
  return OW_SESSION (model)->messages->len;
}

static gpointer
list_model_get_item (GListModel *model, guint position)
{
  OwSession *self = OW_SESSION (model);

  if (position >= self->messages->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->messages, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = list_model_get_item_type;
  iface->get_n_items = list_model_get_n_items;
  iface->get_item = list_model_get_item;
}

static void
ow_session_finalize (GObject *object)
{
  OwSession *self = OW_SESSION (object);

  g_free (self->id);
  g_free (self->workspace);
  g_free (self->model);
  g_free (self->mode);
  g_free (self->coworker);
  g_ptr_array_unref (self->messages);
  g_ptr_array_unref (self->roots);
  g_ptr_array_unref (self->tool_grants);
  g_ptr_array_unref (self->cmd_grants);
  json_array_unref (self->todos);
  ow_compaction_state_free (self->compaction);
  G_OBJECT_CLASS (ow_session_parent_class)->finalize (object);
}

static void
ow_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwSession *self = OW_SESSION (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_MODEL:
      g_value_set_string (value, self->model);
      break;
    case PROP_MODE:
      g_value_set_string (value, self->mode);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_session_class_init (OwSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ow_session_finalize;
  object_class->get_property = ow_session_get_property;

  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_MODE] =
    g_param_spec_string ("mode", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * OwSession::event:
   * @event: (type OwEvent): the event, already saved
   */
  signals[SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, OW_TYPE_EVENT | G_SIGNAL_TYPE_STATIC_SCOPE);
  signals[SIGNAL_ROOTS_CHANGED] =
    g_signal_new ("roots-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
ow_session_init (OwSession *self)
{
  self->messages = g_ptr_array_new_with_free_func (g_object_unref);
  self->roots = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_root_free);
  self->tool_grants = g_ptr_array_new_with_free_func (g_free);
  self->cmd_grants = g_ptr_array_new_with_free_func (g_free);
  self->todos = json_array_new ();
}

static char *
new_session_id (void)
{
  /* 12 hex characters, like the original's GUI session ids: short enough to
   * type, 48 random bits. */
  g_autofree char *uuid = g_uuid_string_random ();
  GString *s = g_string_new (NULL);

  for (const char *p = uuid; *p != '\0' && s->len < 12; p++)
    if (*p != '-')
      g_string_append_c (s, *p);
  return g_string_free (s, FALSE);
}

static char *
roots_to_json (OwSession *self)
{
  g_autoptr(JsonArray) arr = json_array_new ();
  g_autoptr(JsonNode) node = NULL;

  for (guint i = 0; i < self->roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (self->roots, i);
      JsonObject *o = json_object_new ();
      json_object_set_string_member (o, "path", r->path);
      json_object_set_boolean_member (o, "writable", r->writable);
      json_object_set_string_member (o, "label", r->label != NULL ? r->label : "");
      json_array_add_object_element (arr, o);
    }
  node = json_node_init_array (json_node_alloc (), arr);
  return json_to_string (node, FALSE);
}

static char *
grants_to_json (OwSession *self)
{
  g_autoptr(JsonObject) obj = json_object_new ();
  JsonArray *tools = json_array_new ();
  JsonArray *cmds = json_array_new ();

  for (guint i = 0; i < self->tool_grants->len; i++)
    json_array_add_string_element (tools, g_ptr_array_index (self->tool_grants, i));
  for (guint i = 0; i < self->cmd_grants->len; i++)
    json_array_add_string_element (cmds, g_ptr_array_index (self->cmd_grants, i));
  json_object_set_array_member (obj, "tools", tools);
  json_object_set_array_member (obj, "commands", cmds);
  if (self->readonly_grant)
    json_object_set_boolean_member (obj, "readonly", TRUE);
  return ow_json_object_to_string (obj);
}

static void
roots_from_json (OwSession *self, const char *text)
{
  g_autoptr(JsonNode) node = text != NULL ? ow_json_parse (text, -1, NULL) : NULL;
  JsonArray *arr;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;
  arr = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonObject *o = json_array_get_object_element (arr, i);
      OwRoot *r;
      if (o == NULL || !json_object_has_member (o, "path"))
        continue;
      r = g_new0 (OwRoot, 1);
      r->path = g_strdup (json_object_get_string_member (o, "path"));
      r->writable = json_object_get_boolean_member_with_default (o, "writable", FALSE);
      r->label = g_strdup (json_object_get_string_member_with_default (o, "label", ""));
      g_ptr_array_add (self->roots, r);
    }
}

static JsonArray *
array_member (JsonObject *obj, const char *name)
{
  JsonNode *n = json_object_get_member (obj, name);
  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static void
grants_from_json (OwSession *self, const char *text)
{
  g_autoptr(JsonObject) obj = text != NULL ? ow_json_object_from_string (text, -1, NULL) : NULL;
  JsonArray *arr;

  if (obj == NULL)
    return;
  if ((arr = array_member (obj, "tools")) != NULL)
    for (guint i = 0; i < json_array_get_length (arr); i++)
      g_ptr_array_add (self->tool_grants, g_strdup (json_array_get_string_element (arr, i)));
  if ((arr = array_member (obj, "commands")) != NULL)
    for (guint i = 0; i < json_array_get_length (arr); i++)
      g_ptr_array_add (self->cmd_grants, g_strdup (json_array_get_string_element (arr, i)));
  self->readonly_grant = json_object_get_boolean_member_with_default (obj, "readonly", FALSE);
}

static char *
canonical_path (const char *path, GError **error)
{
  g_autofree char *abs = g_canonicalize_filename (path, NULL);
  char *real = realpath (abs, NULL);

  if (real == NULL)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "The folder %s cannot be used: %s", abs, g_strerror (saved));
      return NULL;
    }
  if (!g_file_test (real, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY, "%s is not a folder.", real);
      free (real);
      return NULL;
    }
  {
    char *dup = g_strdup (real);
    free (real);
    return dup;
  }
}

OwSession *
ow_session_new (OwStore *store, const OwSessionSpec *spec, GError **error)
{
  g_autoptr(OwSession) self = g_object_new (OW_TYPE_SESSION, NULL);

  self->store = store;
  self->id = spec->session_id != NULL ? g_strdup (spec->session_id) : new_session_id ();
  self->model = g_strdup (spec->model);
  self->mode = g_strdup (spec->mode != NULL ? spec->mode : "ask");
  self->coworker = g_strdup (spec->coworker != NULL ? spec->coworker : "cowork");
  if (spec->workspace != NULL)
    {
      OwRoot *r;
      self->workspace = canonical_path (spec->workspace, error);
      if (self->workspace == NULL)
        return NULL;
      r = ow_root_new (self->workspace, TRUE, "workspace");
      g_ptr_array_add (self->roots, r);
    }

  if (store != NULL)
    {
      g_autofree char *roots = roots_to_json (self);
      OwSessionRow row = {
        .session_id = self->id,
        .workspace = self->workspace,
        .model = self->model,
        .mode = self->mode,
        .coworker = self->coworker,
        .title = (char *) spec->title,
        .origin = (char *) spec->origin,
        .roots = roots,
      };
      if (!ow_store_session_insert (store, &row, error))
        return NULL;
    }
  return g_steal_pointer (&self);
}

OwSession *
ow_session_load (OwStore *store, const char *session_id, GError **error)
{
  g_autoptr(OwSessionRow) row = ow_store_session_get (store, session_id, error);
  g_autoptr(OwSession) self = NULL;
  g_autoptr(GPtrArray) bodies = NULL;

  if (row == NULL)
    return NULL;
  bodies = ow_store_message_load (store, session_id, error);
  if (bodies == NULL)
    return NULL;
  self = g_object_new (OW_TYPE_SESSION, NULL);
  self->store = store;
  self->id = g_strdup (row->session_id);
  self->workspace = g_strdup (row->workspace);
  self->model = g_strdup (row->model);
  self->mode = g_strdup (row->mode);
  self->coworker = g_strdup (row->coworker);
  roots_from_json (self, row->roots);
  grants_from_json (self, row->grants);
  if (row->compaction != NULL)
    {
      g_autoptr(JsonObject) state = ow_json_object_from_string (row->compaction, -1, NULL);

      /* A state that does not fit the history is dropped: the whole
       * history is sent, and compaction starts again when it is due. */
      self->compaction = ow_compaction_state_from_json (state);
      if (self->compaction != NULL && self->compaction->boundary >= bodies->len)
        g_clear_pointer (&self->compaction, ow_compaction_state_free);
    }
  for (guint i = 0; i < bodies->len; i++)
    {
      g_autoptr(JsonObject) msg = ow_json_object_from_string (g_ptr_array_index (bodies, i), -1, error);
      if (msg == NULL)
        {
          g_prefix_error (error, "Message %u of session %s is damaged: ", i, session_id);
          return NULL;
        }
      g_ptr_array_add (self->messages, ow_message_new (msg));
    }
  self->last_seq = ow_store_event_last_seq (store, session_id);
  return g_steal_pointer (&self);
}

const char *
ow_session_get_id (OwSession *self)
{
  return self->id;
}

const char *
ow_session_get_workspace (OwSession *self)
{
  return self->workspace;
}

const char *
ow_session_get_model (OwSession *self)
{
  return self->model;
}

const char *
ow_session_get_mode (OwSession *self)
{
  return self->mode;
}

const char *
ow_session_get_coworker (OwSession *self)
{
  return self->coworker;
}

gboolean
ow_session_set_model (OwSession *self, const char *model, GError **error)
{
  if (g_strcmp0 (self->model, model) == 0)
    return TRUE;
  if (self->store != NULL && !ow_store_session_update (self->store, self->id, model, NULL, NULL, NULL, error))
    return FALSE;
  g_free (self->model);
  self->model = g_strdup (model);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
  return TRUE;
}

gboolean
ow_session_set_mode (OwSession *self, const char *mode, GError **error)
{
  if (g_strcmp0 (self->mode, mode) == 0)
    return TRUE;
  if (self->store != NULL && !ow_store_session_update (self->store, self->id, NULL, mode, NULL, NULL, error))
    return FALSE;
  g_free (self->mode);
  self->mode = g_strdup (mode);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODE]);
  return TRUE;
}

GPtrArray *
ow_session_get_roots (OwSession *self)
{
  return self->roots;
}

gboolean
ow_session_add_root (OwSession *self, const char *path, gboolean writable, const char *label, GError **error)
{
  g_autofree char *canon = canonical_path (path, error);
  OwRoot *r = NULL;

  if (canon == NULL)
    return FALSE;
  for (guint i = 0; i < self->roots->len; i++)
    if (g_str_equal (((OwRoot *) g_ptr_array_index (self->roots, i))->path, canon))
      r = g_ptr_array_index (self->roots, i);
  if (r == NULL)
    {
      r = g_new0 (OwRoot, 1);
      r->path = g_steal_pointer (&canon);
      r->label = g_strdup (label != NULL ? label : "added");
      g_ptr_array_add (self->roots, r);
      if (self->workspace == NULL && self->roots->len == 1)
        self->workspace = g_strdup (r->path);
    }
  r->writable = writable;
  if (self->store != NULL)
    {
      g_autofree char *json = roots_to_json (self);
      if (!ow_store_session_update (self->store, self->id, NULL, NULL, json, NULL, error))
        return FALSE;
    }
  g_signal_emit (self, signals[SIGNAL_ROOTS_CHANGED], 0);
  return TRUE;
}

static gboolean
contains (GPtrArray *list, const char *value)
{
  for (guint i = 0; i < list->len; i++)
    if (g_str_equal (g_ptr_array_index (list, i), value))
      return TRUE;
  return FALSE;
}

gboolean
ow_session_has_tool_grant (OwSession *self, const char *tool)
{
  return contains (self->tool_grants, tool);
}

gboolean
ow_session_has_command_grant (OwSession *self, const char *command)
{
  return contains (self->cmd_grants, command);
}

static gboolean
save_grants (OwSession *self, GError **error)
{
  g_autofree char *json = NULL;

  if (self->store == NULL)
    return TRUE;
  json = grants_to_json (self);
  return ow_store_session_update (self->store, self->id, NULL, NULL, NULL, json, error);
}

gboolean
ow_session_add_tool_grant (OwSession *self, const char *tool, GError **error)
{
  if (contains (self->tool_grants, tool))
    return TRUE;
  g_ptr_array_add (self->tool_grants, g_strdup (tool));
  return save_grants (self, error);
}

gboolean
ow_session_add_command_grant (OwSession *self, const char *command, GError **error)
{
  if (contains (self->cmd_grants, command))
    return TRUE;
  g_ptr_array_add (self->cmd_grants, g_strdup (command));
  return save_grants (self, error);
}

gboolean
ow_session_has_readonly_grant (OwSession *self)
{
  return self->readonly_grant;
}

gboolean
ow_session_add_readonly_grant (OwSession *self, GError **error)
{
  if (self->readonly_grant)
    return TRUE;
  self->readonly_grant = TRUE;
  return save_grants (self, error);
}

gboolean
ow_session_append_message (OwSession *self, JsonObject *msg, GError **error)
{
  guint pos = self->messages->len;

  if (self->store != NULL)
    {
      g_autofree char *body = ow_json_object_to_string (msg);
      if (!ow_store_message_append (self->store, self->id, pos, body, error))
        return FALSE;
    }
  g_ptr_array_add (self->messages, ow_message_new (msg));
  g_list_model_items_changed (G_LIST_MODEL (self), pos, 0, 1);
  return TRUE;
}

JsonObject *
ow_session_get_message_json (OwSession *self, guint index)
{
  g_return_val_if_fail (index < self->messages->len, NULL);
  return ow_message_get_json (g_ptr_array_index (self->messages, index));
}

GPtrArray *
ow_session_dup_unanswered_calls (OwSession *self)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_tool_call_free);
  g_autoptr(GHashTable) answered = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = self->messages->len; i > 0; i--)
    {
      JsonObject *msg = ow_message_get_json (g_ptr_array_index (self->messages, i - 1));
      const char *role = ow_json_get_string (msg, "role");
      JsonArray *calls;

      if (g_strcmp0 (role, "tool") == 0)
        {
          const char *id = ow_json_get_string (msg, "tool_call_id");
          if (id != NULL)
            g_hash_table_add (answered, (gpointer) id);
          continue;
        }
      if (g_strcmp0 (role, "assistant") != 0)
        return out;
      calls = ow_json_get_array (msg, "tool_calls");
      for (guint c = 0; calls != NULL && c < json_array_get_length (calls); c++)
        {
          JsonObject *call = json_array_get_object_element (calls, c);
          const char *id = call != NULL ? ow_json_get_string (call, "id") : NULL;
          JsonObject *fn = call != NULL ? ow_json_get_object (call, "function") : NULL;

          if (id == NULL || g_hash_table_contains (answered, id))
            continue;
          g_ptr_array_add (out, ow_tool_call_new (id, fn != NULL ? ow_json_get_string (fn, "name") : NULL,
                                                  fn != NULL ? ow_json_get_string (fn, "arguments") : NULL));
        }
      return out;
    }
  return out;
}

JsonArray *
ow_session_dup_history (OwSession *self)
{
  JsonArray *arr = json_array_sized_new (self->messages->len);

  for (guint i = 0; i < self->messages->len; i++)
    json_array_add_object_element (arr, json_object_ref (ow_message_get_json (g_ptr_array_index (self->messages, i))));
  return arr;
}

gboolean
ow_session_emit (OwSession *self, const char *type, JsonObject *data, GError **error)
{
  g_autoptr(JsonObject) owned = data != NULL ? data : json_object_new ();
  g_autoptr(OwEvent) event = NULL;
  g_autofree char *text = ow_json_object_to_string (owned);
  g_autofree char *safe = ow_redact_registered (text);
  const char *stored = text;
  gboolean saved = TRUE;

  /* The one place every event passes on its way to the database, the
   * record and the clients: none of them keeps a value the engine holds
   * (a key in an error's base URL, a model repeating one). */
  if (!g_str_equal (safe, text))
    {
      JsonObject *clean = ow_json_object_from_string (safe, -1, NULL);

      if (clean != NULL)
        {
          json_object_unref (owned);
          owned = clean;
          stored = safe;
        }
    }
  event = ow_event_new (++self->last_seq, g_get_real_time () / 1000, self->id, type, owned);
  if (self->store != NULL)
    saved = ow_store_event_append (self->store, self->id, event->seq, event->ts, type, stored, error);
  g_signal_emit (self, signals[SIGNAL_EVENT], 0, event);
  return saved;
}

gint64
ow_session_get_last_seq (OwSession *self)
{
  return self->last_seq;
}

const OwCompactionState *
ow_session_get_compaction (OwSession *self)
{
  return self->compaction;
}

gboolean
ow_session_set_compaction (OwSession *self, const OwCompactionState *state, GError **error)
{
  g_autofree char *text = NULL;

  if (state != NULL)
    {
      g_autoptr(JsonObject) json = ow_compaction_state_to_json (state);
      text = ow_json_object_to_string (json);
    }
  if (self->store != NULL && !ow_store_session_set_compaction (self->store, self->id, text, error))
    return FALSE;
  ow_compaction_state_free (self->compaction);
  self->compaction = state != NULL ? ow_compaction_state_copy (state) : NULL;
  return TRUE;
}

JsonArray *
ow_session_get_todos (OwSession *self)
{
  return self->todos;
}

void
ow_session_set_todos (OwSession *self, JsonArray *todos)
{
  json_array_unref (self->todos);
  self->todos = json_array_ref (todos);
}
