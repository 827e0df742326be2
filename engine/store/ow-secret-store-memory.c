/* ow-secret-store-memory.c: secrets held by this process only.
 *
 * For tests and --isolated runs, which must not read or write anything
 * the machine keeps. Values are wiped when replaced or dropped.
 */
#define G_LOG_DOMAIN "ow-secret-store"

#include "store/ow-secret-store.h"

#include <string.h>

#define OW_TYPE_SECRET_STORE_MEMORY (ow_secret_store_memory_get_type ())
G_DECLARE_FINAL_TYPE (OwSecretStoreMemory, ow_secret_store_memory, OW, SECRET_STORE_MEMORY, GObject)

struct _OwSecretStoreMemory
{
  GObject     parent_instance;

  GMutex      lock;
  GHashTable *values;   /* "kind\nname" → value (wiped on removal); names cannot hold '\n' */
};

static void ow_secret_store_memory_iface_init (OwSecretStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSecretStoreMemory, ow_secret_store_memory, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SECRET_STORE, ow_secret_store_memory_iface_init))

static void
ow_secret_store_memory_finalize (GObject *object)
{
  OwSecretStoreMemory *self = OW_SECRET_STORE_MEMORY (object);

  g_hash_table_unref (self->values);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ow_secret_store_memory_parent_class)->finalize (object);
}

static void
ow_secret_store_memory_class_init (OwSecretStoreMemoryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_secret_store_memory_finalize;
}

static void
ow_secret_store_memory_init (OwSecretStoreMemory *self)
{
  g_mutex_init (&self->lock);
  self->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) ow_secret_free);
}

static char *
key_of (const char *kind, const char *name)
{
  return g_strconcat (kind, "\n", name, NULL);
}

static const char *
memory_get_backend (OwSecretStore *store)
{
  return "memory";
}

static char *
memory_describe (OwSecretStore *store)
{
  return g_strdup ("Keys are kept in memory for this run only.");
}

static char *
memory_lookup (OwSecretStore *store, const char *kind, const char *name, GCancellable *cancellable,
               GError **error)
{
  OwSecretStoreMemory *self = OW_SECRET_STORE_MEMORY (store);
  g_autofree char *key = key_of (kind, name);
  char *value;

  g_mutex_lock (&self->lock);
  value = g_strdup (g_hash_table_lookup (self->values, key));
  g_mutex_unlock (&self->lock);
  return value;
}

static gboolean
memory_store (OwSecretStore *store, const char *kind, const char *name, const char *label, const char *value,
              GCancellable *cancellable, GError **error)
{
  OwSecretStoreMemory *self = OW_SECRET_STORE_MEMORY (store);

  g_mutex_lock (&self->lock);
  g_hash_table_replace (self->values, key_of (kind, name), g_strdup (value));
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
memory_delete (OwSecretStore *store, const char *kind, const char *name, GCancellable *cancellable,
               GError **error)
{
  OwSecretStoreMemory *self = OW_SECRET_STORE_MEMORY (store);
  g_autofree char *key = key_of (kind, name);
  gboolean removed;

  g_mutex_lock (&self->lock);
  removed = g_hash_table_remove (self->values, key);
  g_mutex_unlock (&self->lock);
  return removed;
}

static char **
memory_list (OwSecretStore *store, const char *kind, GCancellable *cancellable, GError **error)
{
  OwSecretStoreMemory *self = OW_SECRET_STORE_MEMORY (store);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  g_autofree char *prefix = g_strconcat (kind, "\n", NULL);
  GHashTableIter iter;
  gpointer key;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->values);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_str_has_prefix (key, prefix))
      g_strv_builder_add (names, (const char *) key + strlen (prefix));
  g_mutex_unlock (&self->lock);
  return g_strv_builder_end (names);
}

static void
ow_secret_store_memory_iface_init (OwSecretStoreInterface *iface)
{
  iface->get_backend = memory_get_backend;
  iface->describe = memory_describe;
  iface->lookup = memory_lookup;
  iface->store = memory_store;
  iface->delete_secret = memory_delete;
  iface->list = memory_list;
}

OwSecretStore *
ow_secret_store_memory_new (void)
{
  return g_object_new (OW_TYPE_SECRET_STORE_MEMORY, NULL);
}
