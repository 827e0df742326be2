/* ow-secret-store.c: the secret store seam (see ow-secret-store.h).
 *
 * This file holds what every implementation shares: the interface and its
 * checked entry points (argument checks, and the registration of every
 * value read with the redaction module, done here once rather than trusted
 * to each implementation), the _async forms (the sync call in a worker
 * thread), the OS store registry, and the default store that picks the OS
 * store or the sealed file on first use.
 */
#define G_LOG_DOMAIN "ow-secret-store"

#include "store/ow-secret-store.h"

#include <sodium.h>
#include <string.h>

#include "ow-error.h"
#include "ow-redact.h"
#include "store/ow-secret-store-private.h"

G_DEFINE_INTERFACE (OwSecretStore, ow_secret_store, G_TYPE_OBJECT)

static void
ow_secret_store_default_init (OwSecretStoreInterface *iface)
{
}

void
ow_secret_free (char *value)
{
  if (value == NULL)
    return;
  sodium_memzero (value, strlen (value));
  g_free (value);
}

/* ---- Checks ---------------------------------------------------------------- */

gboolean
ow_secret_check (const char *kind, const char *name, const char *value, GError **error)
{
  gsize len;

  if (kind == NULL || *kind == '\0' || strlen (kind) > 64
      || strspn (kind, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen (kind))
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                   "“%s” is not a secret kind: use lower-case letters, digits, “-” and “_” (at most 64).",
                   kind != NULL ? kind : "");
      return FALSE;
    }
  if (name == NULL || *name == '\0' || strlen (name) > 256 || !g_utf8_validate (name, -1, NULL))
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                           "A secret's name must be 1 to 256 bytes of UTF-8 text.");
      return FALSE;
    }
  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      {
        g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                             "A secret's name cannot hold control characters (line breaks, tabs, …).");
        return FALSE;
      }
  if (value == NULL)
    return TRUE;
  len = strlen (value);
  if (len == 0)
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                           "The secret is empty; there is nothing to save.");
      return FALSE;
    }
  if (len > OW_SECRET_MAX_VALUE)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                   "The secret is %" G_GSIZE_FORMAT " bytes long; at most %d can be kept.", len,
                   OW_SECRET_MAX_VALUE);
      return FALSE;
    }
  if (!g_utf8_validate (value, (gssize) len, NULL))
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                           "The secret is not UTF-8 text; keys and tokens are text.");
      return FALSE;
    }
  return TRUE;
}

/* ---- Entry points ------------------------------------------------------------ */

/* Stores and deletes made through the entry points, by any store; see
 * ow_secret_store_get_changes(). */
static gint changes;

const char *
ow_secret_store_get_backend (OwSecretStore *self)
{
  g_return_val_if_fail (OW_IS_SECRET_STORE (self), NULL);
  return OW_SECRET_STORE_GET_IFACE (self)->get_backend (self);
}

char *
ow_secret_store_describe (OwSecretStore *self)
{
  g_return_val_if_fail (OW_IS_SECRET_STORE (self), NULL);
  return OW_SECRET_STORE_GET_IFACE (self)->describe (self);
}

char *
ow_secret_store_lookup (OwSecretStore *self,
                        const char    *kind,
                        const char    *name,
                        GCancellable  *cancellable,
                        GError       **error)
{
  char *value;

  g_return_val_if_fail (OW_IS_SECRET_STORE (self), NULL);
  if (!ow_secret_check (kind, name, NULL, error))
    return NULL;
  value = OW_SECRET_STORE_GET_IFACE (self)->lookup (self, kind, name, cancellable, error);
  /* Before anyone can print it. */
  if (value != NULL)
    ow_redact_register_secret (value);
  return value;
}

gboolean
ow_secret_store_store (OwSecretStore *self,
                       const char    *kind,
                       const char    *name,
                       const char    *label,
                       const char    *value,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autofree char *made_label = NULL;
  gboolean ok;

  g_return_val_if_fail (OW_IS_SECRET_STORE (self), FALSE);
  if (!ow_secret_check (kind, name, value, error))
    return FALSE;
  if (label != NULL && (strlen (label) > 1024 || !g_utf8_validate (label, -1, NULL)))
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                           "A secret's label must be at most 1024 bytes of UTF-8 text.");
      return FALSE;
    }
  if (label == NULL || *label == '\0')
    label = made_label = g_strdup_printf ("OpenWorker %s %s", kind, name);
  /* The process now holds it, whatever the store does with it. */
  ow_redact_register_secret (value);
  ok = OW_SECRET_STORE_GET_IFACE (self)->store (self, kind, name, label, value, cancellable, error);
  /* Counted even on failure: a half-done write may have changed the store. */
  g_atomic_int_inc (&changes);
  return ok;
}

gboolean
ow_secret_store_delete (OwSecretStore *self,
                        const char    *kind,
                        const char    *name,
                        GCancellable  *cancellable,
                        GError       **error)
{
  gboolean deleted;

  g_return_val_if_fail (OW_IS_SECRET_STORE (self), FALSE);
  if (!ow_secret_check (kind, name, NULL, error))
    return FALSE;
  deleted = OW_SECRET_STORE_GET_IFACE (self)->delete_secret (self, kind, name, cancellable, error);
  g_atomic_int_inc (&changes);
  return deleted;
}

guint
ow_secret_store_get_changes (void)
{
  return (guint) g_atomic_int_get (&changes);
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char **
ow_secret_store_list (OwSecretStore *self,
                      const char    *kind,
                      GCancellable  *cancellable,
                      GError       **error)
{
  char **names;

  g_return_val_if_fail (OW_IS_SECRET_STORE (self), NULL);
  if (!ow_secret_check (kind, "-", NULL, error))
    return NULL;
  names = OW_SECRET_STORE_GET_IFACE (self)->list (self, kind, cancellable, error);
  if (names != NULL)
    qsort (names, g_strv_length (names), sizeof (char *), compare_names);
  return names;
}

/* ---- Async: the sync call in a worker thread -------------------------------- */

typedef struct {
  char *kind;
  char *name;
  char *label;
  char *value;   /* wiped when freed */
} OpData;

static void
op_data_free (OpData *d)
{
  g_free (d->kind);
  g_free (d->name);
  g_free (d->label);
  ow_secret_free (d->value);
  g_free (d);
}

static GTask *
op_task_new (OwSecretStore       *self,
             gpointer             tag,
             const char          *kind,
             const char          *name,
             const char          *label,
             const char          *value,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  OpData *d = g_new0 (OpData, 1);

  g_task_set_source_tag (task, tag);
  d->kind = g_strdup (kind);
  d->name = g_strdup (name);
  d->label = g_strdup (label);
  d->value = g_strdup (value);
  g_task_set_task_data (task, d, (GDestroyNotify) op_data_free);
  return task;
}

static void
lookup_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  OpData *d = task_data;
  GError *error = NULL;
  char *value = ow_secret_store_lookup (source, d->kind, d->name, cancellable, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, value, (GDestroyNotify) ow_secret_free);
}

void
ow_secret_store_lookup_async (OwSecretStore       *self,
                              const char          *kind,
                              const char          *name,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = op_task_new (self, ow_secret_store_lookup_async, kind, name, NULL, NULL,
                                       cancellable, callback, user_data);

  /* A locked keyring may wait on a person for as long as they like: a
   * cancelled lookup answers at once and its thread finishes alone. */
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, lookup_thread);
}

char *
ow_secret_store_lookup_finish (OwSecretStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
store_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  OpData *d = task_data;
  GError *error = NULL;

  if (ow_secret_store_store (source, d->kind, d->name, d->label, d->value, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
ow_secret_store_store_async (OwSecretStore       *self,
                             const char          *kind,
                             const char          *name,
                             const char          *label,
                             const char          *value,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = op_task_new (self, ow_secret_store_store_async, kind, name, label, value,
                                       cancellable, callback, user_data);

  g_task_run_in_thread (task, store_thread);
}

gboolean
ow_secret_store_store_finish (OwSecretStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
delete_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  OpData *d = task_data;
  GError *error = NULL;
  gboolean deleted = ow_secret_store_delete (source, d->kind, d->name, cancellable, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, deleted);
}

void
ow_secret_store_delete_async (OwSecretStore       *self,
                              const char          *kind,
                              const char          *name,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = op_task_new (self, ow_secret_store_delete_async, kind, name, NULL, NULL,
                                       cancellable, callback, user_data);

  g_task_run_in_thread (task, delete_thread);
}

gboolean
ow_secret_store_delete_finish (OwSecretStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
list_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  OpData *d = task_data;
  GError *error = NULL;
  char **names = ow_secret_store_list (source, d->kind, cancellable, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, names, (GDestroyNotify) g_strfreev);
}

void
ow_secret_store_list_async (OwSecretStore       *self,
                            const char          *kind,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = op_task_new (self, ow_secret_store_list_async, kind, NULL, NULL, NULL,
                                       cancellable, callback, user_data);

  g_task_run_in_thread (task, list_thread);
}

char **
ow_secret_store_list_finish (OwSecretStore *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- The OS store registry ------------------------------------------------- */

static GMutex registry_lock;
static OwSecretStoreFactory os_factory;

void
ow_secret_store_register_os (OwSecretStoreFactory factory)
{
  g_mutex_lock (&registry_lock);
  os_factory = factory;
  g_mutex_unlock (&registry_lock);
}

static OwSecretStoreFactory
get_os_factory (void)
{
  OwSecretStoreFactory factory;

  g_mutex_lock (&registry_lock);
  factory = os_factory;
  g_mutex_unlock (&registry_lock);
  return factory;
}

/* ---- The default store: chosen on first use ---------------------------------- */

#define OW_TYPE_SECRET_STORE_AUTO (ow_secret_store_auto_get_type ())
G_DECLARE_FINAL_TYPE (OwSecretStoreAuto, ow_secret_store_auto, OW, SECRET_STORE_AUTO, GObject)

struct _OwSecretStoreAuto
{
  GObject        parent_instance;

  char          *sealed_path;  /* where the file store would keep secrets */
  GMutex         lock;         /* guards the choice */
  gboolean       chosen;
  OwSecretStore *inner;        /* the chosen store (owned); NULL when there is none */
  GError        *failure;      /* why there is none (a forced keyring that does not answer) */
  char          *notice;       /* the one-line notice */
};

static void ow_secret_store_auto_iface_init (OwSecretStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSecretStoreAuto, ow_secret_store_auto, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SECRET_STORE, ow_secret_store_auto_iface_init))

static void
ow_secret_store_auto_finalize (GObject *object)
{
  OwSecretStoreAuto *self = OW_SECRET_STORE_AUTO (object);

  g_clear_object (&self->inner);
  g_clear_error (&self->failure);
  g_free (self->notice);
  g_free (self->sealed_path);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ow_secret_store_auto_parent_class)->finalize (object);
}

static void
ow_secret_store_auto_class_init (OwSecretStoreAutoClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_secret_store_auto_finalize;
}

static void
ow_secret_store_auto_init (OwSecretStoreAuto *self)
{
  g_mutex_init (&self->lock);
}

/* Picks the store once; returns it (borrowed) or NULL with the failure. */
static OwSecretStore *
choose (OwSecretStoreAuto *self, GError **error)
{
  OwSecretStore *inner;

  g_mutex_lock (&self->lock);
  if (!self->chosen)
    {
      const char *mode = g_getenv ("OPENWORKER_SECRET_STORE");
      OwSecretStoreFactory factory = get_os_factory ();
      g_autoptr(GError) local = NULL;

      if (mode == NULL || *mode == '\0')
        mode = "auto";
      if (g_str_equal (mode, "file"))
        {
          self->inner = ow_secret_store_file_new (self->sealed_path);
          self->notice = g_strdup_printf ("Keys are kept in the sealed file %s (OPENWORKER_SECRET_STORE=file).",
                                          self->sealed_path);
        }
      else if (g_str_equal (mode, "keyring") || g_str_equal (mode, "auto"))
        {
          if (factory != NULL)
            self->inner = factory (&local);
          else
            local = g_error_new_literal (OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                                         "this build of OpenWorker has no OS keyring support");
          if (self->inner != NULL)
            self->notice = ow_secret_store_describe (self->inner);
          else if (g_str_equal (mode, "keyring"))
            {
              self->failure = g_error_new (OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                                           "OPENWORKER_SECRET_STORE=keyring, but there is no OS keyring to use: "
                                           "%s. Start your keyring, or unset OPENWORKER_SECRET_STORE to use the "
                                           "sealed file store instead.", local->message);
              self->notice = g_strdup (self->failure->message);
            }
          else
            {
              self->inner = ow_secret_store_file_new (self->sealed_path);
              self->notice = g_strdup_printf ("Keys are kept in the sealed file %s (no OS keyring: %s).",
                                              self->sealed_path, local->message);
            }
        }
      else
        {
          self->failure = g_error_new (OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                                       "OPENWORKER_SECRET_STORE is “%s”; it can be “keyring” or “file” (or "
                                       "unset, to use the keyring when one answers).", mode);
          self->notice = g_strdup (self->failure->message);
        }
      self->chosen = TRUE;
      g_debug ("%s", self->notice);
    }
  inner = self->inner;
  if (inner == NULL)
    g_propagate_error (error, g_error_copy (self->failure));
  g_mutex_unlock (&self->lock);
  return inner;
}

static const char *
default_get_backend (OwSecretStore *store)
{
  OwSecretStore *inner = choose (OW_SECRET_STORE_AUTO (store), NULL);

  return inner != NULL ? ow_secret_store_get_backend (inner) : "keyring";
}

static char *
default_describe (OwSecretStore *store)
{
  OwSecretStoreAuto *self = OW_SECRET_STORE_AUTO (store);

  choose (self, NULL);
  return g_strdup (self->notice);
}

static char *
default_lookup (OwSecretStore *store, const char *kind, const char *name, GCancellable *cancellable,
                GError **error)
{
  OwSecretStore *inner = choose (OW_SECRET_STORE_AUTO (store), error);

  return inner != NULL ? OW_SECRET_STORE_GET_IFACE (inner)->lookup (inner, kind, name, cancellable, error) : NULL;
}

static gboolean
default_store (OwSecretStore *store, const char *kind, const char *name, const char *label, const char *value,
               GCancellable *cancellable, GError **error)
{
  OwSecretStore *inner = choose (OW_SECRET_STORE_AUTO (store), error);

  return inner != NULL
         && OW_SECRET_STORE_GET_IFACE (inner)->store (inner, kind, name, label, value, cancellable, error);
}

static gboolean
default_delete (OwSecretStore *store, const char *kind, const char *name, GCancellable *cancellable,
                GError **error)
{
  OwSecretStore *inner = choose (OW_SECRET_STORE_AUTO (store), error);

  return inner != NULL
         && OW_SECRET_STORE_GET_IFACE (inner)->delete_secret (inner, kind, name, cancellable, error);
}

static char **
default_list (OwSecretStore *store, const char *kind, GCancellable *cancellable, GError **error)
{
  OwSecretStore *inner = choose (OW_SECRET_STORE_AUTO (store), error);

  return inner != NULL ? OW_SECRET_STORE_GET_IFACE (inner)->list (inner, kind, cancellable, error) : NULL;
}

static void
ow_secret_store_auto_iface_init (OwSecretStoreInterface *iface)
{
  iface->get_backend = default_get_backend;
  iface->describe = default_describe;
  iface->lookup = default_lookup;
  iface->store = default_store;
  iface->delete_secret = default_delete;
  iface->list = default_list;
}

OwSecretStore *
ow_secret_store_new_default (const OwPaths *paths)
{
  OwSecretStoreAuto *self = g_object_new (OW_TYPE_SECRET_STORE_AUTO, NULL);

  self->sealed_path = g_build_filename (paths->config_dir, "secrets.sealed", NULL);
  return OW_SECRET_STORE (self);
}
