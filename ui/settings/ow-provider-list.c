/* ow-provider-list.c: providers, their keys and their tests (see ow-provider-list.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-provider-list.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ow-settings-io.h"
#include "core/ow-model-choices.h"
#include "providers/ow-provider-verify.h"

/* ---- OwProviderItem ------------------------------------------------------------ */

struct _OwProviderItem
{
  GObject                parent_instance;

  const OwProviderEntry *entry;        /* the catalog's (static) */
  OwKeyState             key_state;
  char                  *state_label;  /* owned */
  gboolean               saved;
  gboolean               busy;
  char                  *message;      /* owned, may be NULL */
  OwMessageKind          message_kind;
  char                  *base_url;     /* owned, may be NULL */
};

G_DEFINE_FINAL_TYPE (OwProviderItem, ow_provider_item, G_TYPE_OBJECT)

enum {
  ITEM_PROP_0,
  ITEM_PROP_ID,
  ITEM_PROP_TITLE,
  ITEM_PROP_STATE_LABEL,
  ITEM_PROP_SAVED,
  ITEM_PROP_CONFIGURED,
  ITEM_PROP_BUSY,
  ITEM_PROP_MESSAGE,
  ITEM_PROP_MESSAGE_KIND,
  ITEM_PROP_BASE_URL,
  ITEM_N_PROPS
};
static GParamSpec *item_props[ITEM_N_PROPS];

static void
ow_provider_item_finalize (GObject *object)
{
  OwProviderItem *self = OW_PROVIDER_ITEM (object);

  g_free (self->state_label);
  g_free (self->message);
  g_free (self->base_url);
  G_OBJECT_CLASS (ow_provider_item_parent_class)->finalize (object);
}

static void
ow_provider_item_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwProviderItem *self = OW_PROVIDER_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_ID:
      g_value_set_string (value, self->entry->id);
      break;
    case ITEM_PROP_TITLE:
      g_value_set_string (value, self->entry->title);
      break;
    case ITEM_PROP_STATE_LABEL:
      g_value_set_string (value, self->state_label);
      break;
    case ITEM_PROP_SAVED:
      g_value_set_boolean (value, self->saved);
      break;
    case ITEM_PROP_CONFIGURED:
      g_value_set_boolean (value, ow_provider_item_get_configured (self));
      break;
    case ITEM_PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case ITEM_PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;
    case ITEM_PROP_MESSAGE_KIND:
      g_value_set_int (value, self->message_kind);
      break;
    case ITEM_PROP_BASE_URL:
      g_value_set_string (value, self->base_url);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_provider_item_class_init (OwProviderItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = ow_provider_item_finalize;
  object_class->get_property = ow_provider_item_get_property;

  item_props[ITEM_PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, ro);
  item_props[ITEM_PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, ro);
  item_props[ITEM_PROP_STATE_LABEL] = g_param_spec_string ("state-label", NULL, NULL, NULL, ro);
  item_props[ITEM_PROP_SAVED] = g_param_spec_boolean ("saved", NULL, NULL, FALSE, ro);
  item_props[ITEM_PROP_CONFIGURED] = g_param_spec_boolean ("configured", NULL, NULL, FALSE, ro);
  item_props[ITEM_PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, ro);
  item_props[ITEM_PROP_MESSAGE] = g_param_spec_string ("message", NULL, NULL, NULL, ro);
  item_props[ITEM_PROP_MESSAGE_KIND] = g_param_spec_int ("message-kind", NULL, NULL, 0, 2, 0, ro);
  item_props[ITEM_PROP_BASE_URL] = g_param_spec_string ("base-url", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, ITEM_N_PROPS, item_props);
}

static void
ow_provider_item_init (OwProviderItem *self)
{
}

const OwProviderEntry *
ow_provider_item_get_entry (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), NULL);
  return self->entry;
}

const char *
ow_provider_item_get_id (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), NULL);
  return self->entry->id;
}

OwKeyState
ow_provider_item_get_key_state (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), OW_KEY_STATE_NONE);
  return self->key_state;
}

gboolean
ow_provider_item_get_saved (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), FALSE);
  return self->saved;
}

gboolean
ow_provider_item_get_busy (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), FALSE);
  return self->busy;
}

const char *
ow_provider_item_get_message (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), NULL);
  return self->message;
}

OwMessageKind
ow_provider_item_get_message_kind (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), OW_MESSAGE_NONE);
  return self->message_kind;
}

const char *
ow_provider_item_get_base_url (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), NULL);
  return self->base_url;
}

gboolean
ow_provider_item_get_is_local (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), FALSE);
  return g_strcmp0 (self->entry->group, "local") == 0;
}

gboolean
ow_provider_item_get_configured (OwProviderItem *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_ITEM (self), FALSE);
  if (self->key_state == OW_KEY_STATE_SAVED || self->key_state == OW_KEY_STATE_ENV)
    return TRUE;
  /* A local server counts once its address is set (it may need no key). */
  return ow_provider_item_get_is_local (self) && self->base_url != NULL;
}

static void
item_set_busy (OwProviderItem *self, gboolean busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), item_props[ITEM_PROP_BUSY]);
}

static void
item_set_message (OwProviderItem *self, OwMessageKind kind, const char *message)
{
  if (g_strcmp0 (self->message, message) != 0)
    {
      g_free (self->message);
      self->message = g_strdup (message);
      g_object_notify_by_pspec (G_OBJECT (self), item_props[ITEM_PROP_MESSAGE]);
    }
  if (self->message_kind != kind)
    {
      self->message_kind = kind;
      g_object_notify_by_pspec (G_OBJECT (self), item_props[ITEM_PROP_MESSAGE_KIND]);
    }
}

/* ---- Pure formatting ----------------------------------------------------------- */

char *
ow_key_state_label (OwKeyState state, const char *variable, const char *backend, gboolean saved_too,
                    gboolean needs_key)
{
  switch (state)
    {
    case OW_KEY_STATE_ENV:
      if (saved_too)
        /* TRANSLATORS: %s is an environment variable such as ANTHROPIC_API_KEY */
        return g_strdup_printf (_("From the environment (%s), which wins over the saved key"), variable);
      /* TRANSLATORS: %s is an environment variable such as ANTHROPIC_API_KEY */
      return g_strdup_printf (_("From the environment (%s)"), variable);
    case OW_KEY_STATE_SAVED:
      if (g_strcmp0 (backend, "keyring") == 0)
        return g_strdup (_("Saved in the keyring"));
      if (g_strcmp0 (backend, "file") == 0)
        return g_strdup (_("Saved in the sealed key file"));
      return g_strdup (_("Saved until OpenWorker quits"));
    case OW_KEY_STATE_NOT_NEEDED:
      return g_strdup (_("No key needed"));
    case OW_KEY_STATE_NONE:
    default:
      return g_strdup (needs_key ? _("No key") : _("No key (only if the server asks for one)"));
    }
}

const char *
ow_provider_group_title (const char *group)
{
  if (g_strcmp0 (group, "reseller") == 0)
    return _("Through a Reseller");
  if (g_strcmp0 (group, "local") == 0)
    return _("On Your Own Hardware");
  return _("Model Makers");
}

/* ---- OwProviderList ------------------------------------------------------------ */

struct _OwProviderList
{
  GObject        parent_instance;

  /* owned references */
  OwContext     *ctx;
  OwSecretStore *secrets;     /* may be NULL */
  GListStore    *items;       /* OwProviderItem */
  GCancellable  *cancellable;

  gboolean       loaded;
  gboolean       store_chosen;  /* the store has answered once, from a worker thread */
  gulong         config_handler;
};

static void ow_provider_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwProviderList, ow_provider_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, ow_provider_list_model_init))

enum { LIST_PROP_0, LIST_PROP_LOADED, LIST_N_PROPS };
static GParamSpec *list_props[LIST_N_PROPS];

static GType
ow_provider_list_get_item_type (GListModel *model)
{
  return OW_TYPE_PROVIDER_ITEM;
}

static guint
ow_provider_list_get_n_items (GListModel *model)
{
  return g_list_model_get_n_items (G_LIST_MODEL (OW_PROVIDER_LIST (model)->items));
}

static gpointer
ow_provider_list_get_item (GListModel *model, guint position)
{
  return g_list_model_get_item (G_LIST_MODEL (OW_PROVIDER_LIST (model)->items), position);
}

static void
ow_provider_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = ow_provider_list_get_item_type;
  iface->get_n_items = ow_provider_list_get_n_items;
  iface->get_item = ow_provider_list_get_item;
}

/* Recomputes an item's key state from the environment, @saved and the config. */
static void
update_item (OwProviderList *self, OwProviderItem *item, gboolean saved)
{
  const OwProviderEntry *e = item->entry;
  const char *variable = ow_context_provider_key_env (self->ctx, e);
  g_autofree char *key = g_strdup_printf ("providers.%s.base_url", e->id);
  const char *base_url = ow_config_get_string (ow_context_get_config (self->ctx), key);
  /* Asking the store for its backend may choose it (a D-Bus round trip):
   * only once the first listing has done that in a worker thread. */
  const char *backend = self->secrets != NULL && self->store_chosen ? ow_secret_store_get_backend (self->secrets) : NULL;
  gboolean was_configured = ow_provider_item_get_configured (item);
  g_autofree char *label = NULL;
  OwKeyState state;

  if (variable != NULL)
    state = OW_KEY_STATE_ENV;
  else if (saved)
    state = OW_KEY_STATE_SAVED;
  else if (e->key_env == NULL)
    state = OW_KEY_STATE_NOT_NEEDED;
  else
    state = OW_KEY_STATE_NONE;
  label = ow_key_state_label (state, variable, backend, saved, e->needs_key);

  g_object_freeze_notify (G_OBJECT (item));
  item->key_state = state;
  if (item->saved != saved)
    {
      item->saved = saved;
      g_object_notify_by_pspec (G_OBJECT (item), item_props[ITEM_PROP_SAVED]);
    }
  if (g_strcmp0 (item->state_label, label) != 0)
    {
      g_free (item->state_label);
      item->state_label = g_steal_pointer (&label);
      g_object_notify_by_pspec (G_OBJECT (item), item_props[ITEM_PROP_STATE_LABEL]);
    }
  if (g_strcmp0 (item->base_url, base_url) != 0)
    {
      g_free (item->base_url);
      item->base_url = g_strdup (base_url);
      g_object_notify_by_pspec (G_OBJECT (item), item_props[ITEM_PROP_BASE_URL]);
    }
  if (was_configured != ow_provider_item_get_configured (item))
    g_object_notify_by_pspec (G_OBJECT (item), item_props[ITEM_PROP_CONFIGURED]);
  g_object_thaw_notify (G_OBJECT (item));
}

static void
on_listed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = ow_secret_store_list_finish (OW_SECRET_STORE (source), result, &error);
  OwProviderList *self;
  guint n;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_PROVIDER_LIST (user_data);
  self->store_chosen = TRUE;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(OwProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);
      gboolean saved = names != NULL && g_strv_contains ((const char *const *) names, item->entry->id);

      update_item (self, item, saved);
      /* A store that cannot list (a locked keyring) is said on every row that takes a key. */
      if (names == NULL && item->entry->key_env != NULL)
        item_set_message (item, OW_MESSAGE_ERROR, error->message);
    }
  if (!self->loaded)
    {
      self->loaded = TRUE;
      g_object_notify_by_pspec (G_OBJECT (self), list_props[LIST_PROP_LOADED]);
    }
}

void
ow_provider_list_refresh (OwProviderList *self)
{
  g_return_if_fail (OW_IS_PROVIDER_LIST (self));

  if (self->secrets == NULL)
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->items));

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(OwProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);
          update_item (self, item, FALSE);
        }
      self->loaded = TRUE;
      g_object_notify_by_pspec (G_OBJECT (self), list_props[LIST_PROP_LOADED]);
      return;
    }
  ow_secret_store_list_async (self->secrets, OW_SECRET_KIND_PROVIDER, self->cancellable, on_listed_cb, self);
}

static void
on_config_changed_cb (OwContext *ctx, gpointer user_data)
{
  OwProviderList *self = user_data;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->items));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(OwProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);
      update_item (self, item, item->saved);
    }
}

gboolean
ow_provider_list_get_loaded (OwProviderList *self)
{
  g_return_val_if_fail (OW_IS_PROVIDER_LIST (self), FALSE);
  return self->loaded;
}

OwProviderItem *
ow_provider_list_lookup (OwProviderList *self, const char *id)
{
  guint n;

  g_return_val_if_fail (OW_IS_PROVIDER_LIST (self), NULL);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(OwProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);
      if (g_strcmp0 (item->entry->id, id) == 0)
        return item;   /* the store keeps its reference */
    }
  return NULL;
}

/* ---- Actions --------------------------------------------------------------------- */

/* One action on one item: the list and the item stay alive until it ends. */
typedef struct {
  OwProviderList *list;
  OwProviderItem *item;
  char           *base_url;
} Op;

static Op *
op_new (OwProviderList *self, OwProviderItem *item)
{
  Op *op = g_new0 (Op, 1);

  op->list = g_object_ref (self);
  op->item = g_object_ref (item);
  item_set_busy (item, TRUE);
  return op;
}

static void
op_free (Op *op)
{
  item_set_busy (op->item, FALSE);
  g_object_unref (op->list);
  g_object_unref (op->item);
  g_free (op->base_url);
  g_free (op);
}

static gboolean
op_cancelled (Op *op, const GError *error)
{
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return FALSE;
  op_free (op);
  return TRUE;
}

static void
on_key_stored_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  g_autoptr(GError) error = NULL;

  if (!ow_secret_store_store_finish (OW_SECRET_STORE (source), result, &error))
    {
      if (op_cancelled (op, error))
        return;
      item_set_message (op->item, OW_MESSAGE_ERROR, error->message);
    }
  else
    {
      /* The first key picks the machine's default model, as the browser's
       * Models & Keys and `openworker keys set` do. */
      g_autoptr(GError) adopt_error = NULL;

      g_free (ow_model_choices_adopt_default (op->list->ctx, op->item->entry->id, &adopt_error));
      if (adopt_error != NULL)
        g_warning ("The default model was not set: %s", adopt_error->message);
      update_item (op->list, op->item, TRUE);
      item_set_message (op->item, OW_MESSAGE_OK, _("Key saved."));
    }
  op_free (op);
}

void
ow_provider_list_save_key (OwProviderList *self, OwProviderItem *item, const char *key)
{
  g_autofree char *trimmed = NULL;
  g_autofree char *label = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (OW_IS_PROVIDER_LIST (self));
  g_return_if_fail (OW_IS_PROVIDER_ITEM (item));

  if (self->secrets == NULL)
    {
      item_set_message (item, OW_MESSAGE_ERROR, _("There is no secret store to save keys in on this machine."));
      return;
    }
  trimmed = g_strstrip (g_strdup (key != NULL ? key : ""));
  if (*trimmed == '\0')
    {
      item_set_message (item, OW_MESSAGE_ERROR, _("Paste a key first."));
      return;
    }
  if (!ow_secret_check (OW_SECRET_KIND_PROVIDER, item->entry->id, trimmed, &error))
    {
      item_set_message (item, OW_MESSAGE_ERROR, error->message);
      memset (trimmed, 0, strlen (trimmed));
      return;
    }
  /* TRANSLATORS: what a person sees in their keyring manager; %s is a provider */
  label = g_strdup_printf (_("OpenWorker: %s API key"), item->entry->title);
  ow_secret_store_store_async (self->secrets, OW_SECRET_KIND_PROVIDER, item->entry->id, label, trimmed,
                               self->cancellable, on_key_stored_cb, op_new (self, item));
  memset (trimmed, 0, strlen (trimmed));
}

static void
on_key_deleted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  g_autoptr(GError) error = NULL;
  gboolean deleted = ow_secret_store_delete_finish (OW_SECRET_STORE (source), result, &error);

  if (error != NULL)
    {
      if (op_cancelled (op, error))
        return;
      item_set_message (op->item, OW_MESSAGE_ERROR, error->message);
    }
  else
    {
      update_item (op->list, op->item, FALSE);
      item_set_message (op->item, OW_MESSAGE_OK, deleted ? _("Key removed.") : _("There was no saved key."));
    }
  op_free (op);
}

void
ow_provider_list_remove_key (OwProviderList *self, OwProviderItem *item)
{
  g_return_if_fail (OW_IS_PROVIDER_LIST (self));
  g_return_if_fail (OW_IS_PROVIDER_ITEM (item));

  if (self->secrets == NULL)
    return;
  ow_secret_store_delete_async (self->secrets, OW_SECRET_KIND_PROVIDER, item->entry->id, self->cancellable,
                                on_key_deleted_cb, op_new (self, item));
}

static void
on_verified_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  g_autoptr(OwProviderVerifyResult) r = ow_provider_verify_key_finish (result);

  if (r->status == OW_VERIFY_CANCELLED)
    {
      op_free (op);
      return;
    }
  if (r->ok)
    item_set_message (op->item, OW_MESSAGE_OK,
                      op->item->entry->key_env == NULL ? _("The server answers.") : _("The key works."));
  else
    item_set_message (op->item, OW_MESSAGE_ERROR, r->error);
  op_free (op);
}

static void
verify_with (Op *op, const char *key)
{
  OwProviderList *self = op->list;

  if (key == NULL && op->item->entry->needs_key && ow_context_provider_key_env (self->ctx, op->item->entry) == NULL)
    {
      item_set_message (op->item, OW_MESSAGE_ERROR, _("Paste a key to test, or save one first."));
      op_free (op);
      return;
    }
  ow_provider_verify_key_async (ow_context_get_http (self->ctx), op->item->entry, key, op->base_url,
                                self->cancellable, on_verified_cb, op);
}

static void
on_verify_lookup_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) key = ow_secret_store_lookup_finish (OW_SECRET_STORE (source), result, &error);

  if (error != NULL)
    {
      if (op_cancelled (op, error))
        return;
      item_set_message (op->item, OW_MESSAGE_ERROR, error->message);
      op_free (op);
      return;
    }
  verify_with (op, key);
}

void
ow_provider_list_verify (OwProviderList *self, OwProviderItem *item, const char *key, const char *base_url)
{
  Op *op;

  g_return_if_fail (OW_IS_PROVIDER_LIST (self));
  g_return_if_fail (OW_IS_PROVIDER_ITEM (item));

  op = op_new (self, item);
  op->base_url = g_strdup (base_url != NULL && *base_url != '\0' ? base_url : item->base_url);
  item_set_message (item, OW_MESSAGE_NONE, _("Testing…"));
  if (key != NULL && *key != '\0')
    {
      g_autofree char *trimmed = g_strstrip (g_strdup (key));

      verify_with (op, trimmed);
      memset (trimmed, 0, strlen (trimmed));
      return;
    }
  /* The key this machine would use: the environment's wins, then the saved one. */
  if (ow_context_provider_key_env (self->ctx, item->entry) == NULL && item->saved && self->secrets != NULL)
    ow_secret_store_lookup_async (self->secrets, OW_SECRET_KIND_PROVIDER, item->entry->id, self->cancellable,
                                  on_verify_lookup_cb, op);
  else
    verify_with (op, NULL);
}

static void
on_base_url_set_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Op *op = user_data;
  g_autoptr(GError) error = NULL;

  if (!ow_settings_config_set_finish (OW_CONTEXT (source), result, &error))
    {
      if (op_cancelled (op, error))
        return;
      item_set_message (op->item, OW_MESSAGE_ERROR, error->message);
    }
  else
    item_set_message (op->item, OW_MESSAGE_OK, _("Address saved."));
  op_free (op);
}

void
ow_provider_list_set_base_url (OwProviderList *self, OwProviderItem *item, const char *base_url)
{
  g_autofree char *key = NULL;
  g_autofree char *trimmed = NULL;
  g_autoptr(JsonNode) value = NULL;

  g_return_if_fail (OW_IS_PROVIDER_LIST (self));
  g_return_if_fail (OW_IS_PROVIDER_ITEM (item));

  trimmed = g_strstrip (g_strdup (base_url != NULL ? base_url : ""));
  if (*trimmed != '\0' && !g_str_has_prefix (trimmed, "http://") && !g_str_has_prefix (trimmed, "https://"))
    {
      item_set_message (item, OW_MESSAGE_ERROR, _("An address starts with http:// or https://."));
      return;
    }
  key = g_strdup_printf ("providers.%s.base_url", item->entry->id);
  if (*trimmed != '\0')
    value = ow_settings_node_string (trimmed);
  ow_settings_config_set_async (self->ctx, key, value, self->cancellable, on_base_url_set_cb, op_new (self, item));
}

/* ---- GObject --------------------------------------------------------------------- */

static void
ow_provider_list_dispose (GObject *object)
{
  OwProviderList *self = OW_PROVIDER_LIST (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_signal_handler (&self->config_handler, self->ctx);
  g_clear_object (&self->items);
  g_clear_object (&self->secrets);
  g_clear_object (&self->ctx);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (ow_provider_list_parent_class)->dispose (object);
}

static void
ow_provider_list_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwProviderList *self = OW_PROVIDER_LIST (object);

  switch (prop_id)
    {
    case LIST_PROP_LOADED:
      g_value_set_boolean (value, self->loaded);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_provider_list_class_init (OwProviderListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_provider_list_dispose;
  object_class->get_property = ow_provider_list_get_property;

  list_props[LIST_PROP_LOADED] =
    g_param_spec_boolean ("loaded", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, LIST_N_PROPS, list_props);
}

static void
ow_provider_list_init (OwProviderList *self)
{
  self->items = g_list_store_new (OW_TYPE_PROVIDER_ITEM);
  self->cancellable = g_cancellable_new ();
}

OwProviderList *
ow_provider_list_new (OwContext *ctx, OwSecretStore *secrets)
{
  OwProviderList *self;
  const GPtrArray *catalog = ow_provider_catalog_get ();

  g_return_val_if_fail (OW_IS_CONTEXT (ctx), NULL);

  self = g_object_new (OW_TYPE_PROVIDER_LIST, NULL);
  self->ctx = g_object_ref (ctx);
  self->secrets = secrets != NULL ? g_object_ref (secrets) : NULL;
  for (guint i = 0; i < catalog->len; i++)
    {
      OwProviderItem *item = g_object_new (OW_TYPE_PROVIDER_ITEM, NULL);

      item->entry = g_ptr_array_index (catalog, i);
      update_item (self, item, FALSE);
      g_list_store_append (self->items, item);
      g_object_unref (item);
    }
  self->config_handler = g_signal_connect (ctx, "config-changed", G_CALLBACK (on_config_changed_cb), self);
  ow_provider_list_refresh (self);
  return self;
}
