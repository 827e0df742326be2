/* ow-secret-libsecret.c: the Secret Service store (see ow-secret-libsecret.h).
 *
 * Every call is synchronous (libsecret's _sync functions run their own
 * main context, so they are safe in the worker threads the engine's
 * _async wrappers use). Errors are turned into OW_SECRET_ERROR codes with
 * sentences a person can act on: a missing session bus, a missing Secret
 * Service, a missing default keyring and a locked one each say what to do,
 * including how to fall back to the sealed file on a headless machine.
 */
#define G_LOG_DOMAIN "ow-secret-libsecret"

#include "ow-secret-libsecret.h"

#include <libsecret/secret.h>
#include <sys/stat.h>

#include "ow-error.h"

#define SECRETS_BUS_NAME "org.freedesktop.secrets"
#define SECRETS_PATH "/org/freedesktop/secrets"
#define PROBE_TIMEOUT_MS 5000

/* Advice shared by the messages below. */
#define HEADLESS_ADVICE "On a machine without a desktop session, set OPENWORKER_SECRET_STORE=file to keep keys in " \
                        "OpenWorker's sealed file instead."

static const SecretSchema ow_schema = {
  "org.openworker.Secret", SECRET_SCHEMA_NONE,
  {
    { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { "name", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  },
  0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

struct _OwSecretLibsecret
{
  GObject  parent_instance;

  char    *collection_label;   /* the default collection's label when the probe saw it, for messages */
};

static void ow_secret_libsecret_iface_init (OwSecretStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSecretLibsecret, ow_secret_libsecret, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SECRET_STORE, ow_secret_libsecret_iface_init))

static void
ow_secret_libsecret_finalize (GObject *object)
{
  OwSecretLibsecret *self = OW_SECRET_LIBSECRET (object);

  g_free (self->collection_label);
  G_OBJECT_CLASS (ow_secret_libsecret_parent_class)->finalize (object);
}

static void
ow_secret_libsecret_class_init (OwSecretLibsecretClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_secret_libsecret_finalize;
}

static void
ow_secret_libsecret_init (OwSecretLibsecret *self)
{
}

/* ---- Reaching the service ---------------------------------------------------- */

/* Whether a session bus is configured. GLib would otherwise "autolaunch"
 * one with dbus-launch, which on a headless machine either fails slowly or
 * leaves a stray bus daemon behind. */
static gboolean
session_bus_configured (void)
{
  const char *address = g_getenv ("DBUS_SESSION_BUS_ADDRESS");
  const char *runtime = g_getenv ("XDG_RUNTIME_DIR");
  struct stat st;

  if (address != NULL && *address != '\0')
    return TRUE;
  if (runtime != NULL && *runtime != '\0')
    {
      g_autofree char *bus = g_build_filename (runtime, "bus", NULL);
      return stat (bus, &st) == 0 && S_ISSOCK (st.st_mode);
    }
  return FALSE;
}

static void
set_no_bus_error (GError **error)
{
  g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                       "No D-Bus session bus is running (DBUS_SESSION_BUS_ADDRESS is unset), so there is no "
                       "Secret Service to keep keys in. " HEADLESS_ADVICE);
}

static gboolean
is_unavailable (const GError *err)
{
  return g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_NO_SERVER)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_DISCONNECTED)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_FILE_NOT_FOUND)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_EXEC_FAILED)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_CHILD_EXITED)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FAILED)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND)
         || g_error_matches (err, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
         || g_error_matches (err, G_IO_ERROR, G_IO_ERROR_CLOSED)
         || g_error_matches (err, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
}

static gboolean
is_timeout (const GError *err)
{
  return g_error_matches (err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_TIMEOUT)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_TIMED_OUT)
         || g_error_matches (err, G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY);
}

/* A sentence for a locked keyring. */
static void
set_locked_error (OwSecretLibsecret *self, GError **error)
{
  g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_LOCKED,
               "The keyring%s%s%s is locked, and it was not unlocked (no unlock prompt could be shown, or it "
               "was dismissed). Unlock it — log in to the desktop, or open Passwords and Keys — and try "
               "again. " HEADLESS_ADVICE,
               self->collection_label != NULL ? " “" : "", self->collection_label != NULL ? self->collection_label : "",
               self->collection_label != NULL ? "”" : "");
}

/* Turns a libsecret / GDBus error into an OW_SECRET_ERROR. Takes @err. */
static void
take_error (OwSecretLibsecret *self, GError **error, GError *err, const char *doing)
{
  if (g_error_matches (err, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_propagate_error (error, err);
  else if (g_error_matches (err, SECRET_ERROR, SECRET_ERROR_IS_LOCKED))
    {
      set_locked_error (self, error);
      g_error_free (err);
    }
  else
    {
      g_autofree char *detail = g_dbus_error_is_remote_error (err) ? g_dbus_error_get_remote_error (err) : NULL;

      if (detail != NULL)
        g_dbus_error_strip_remote_error (err);
      if (is_unavailable (err))
        g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                     "No Secret Service answers on the session bus (%s), so OpenWorker could not %s. Start "
                     "your keyring (gnome-keyring, KWallet or KeePassXC with its Secret Service on). "
                     HEADLESS_ADVICE, err->message, doing);
      else if (is_timeout (err))
        g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                     "The Secret Service did not answer in time (%s), so OpenWorker could not %s. Check that "
                     "your keyring is running and not waiting on a prompt, then try again.", err->message, doing);
      else
        g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED,
                     "The Secret Service refused to let OpenWorker %s: %s.", doing, err->message);
      g_error_free (err);
    }
}

static SecretService *
get_service (OwSecretLibsecret *self, const char *doing, GCancellable *cancellable, GError **error)
{
  GError *err = NULL;
  SecretService *service;

  if (!session_bus_configured ())
    {
      set_no_bus_error (error);
      return NULL;
    }
  service = secret_service_get_sync (SECRET_SERVICE_OPEN_SESSION, cancellable, &err);
  if (service == NULL)
    take_error (self, error, err, doing);
  return service;
}

/* ---- The store ------------------------------------------------------------------ */

static const char *
libsecret_get_backend (OwSecretStore *store)
{
  return "keyring";
}

static char *
libsecret_describe (OwSecretStore *store)
{
  OwSecretLibsecret *self = OW_SECRET_LIBSECRET (store);

  if (self->collection_label != NULL)
    return g_strdup_printf ("Keys are kept in the Secret Service keyring (collection “%s”).", self->collection_label);
  return g_strdup ("Keys are kept in the Secret Service keyring (the default collection).");
}

static char *
libsecret_lookup (OwSecretStore *store, const char *kind, const char *name, GCancellable *cancellable,
                  GError **error)
{
  OwSecretLibsecret *self = OW_SECRET_LIBSECRET (store);
  g_autoptr(SecretService) service = get_service (self, "read a key", cancellable, error);
  g_autoptr(GHashTable) attributes = NULL;
  GList *items;
  GError *err = NULL;
  char *text = NULL;
  gboolean locked = FALSE;

  if (service == NULL)
    return NULL;
  attributes = secret_attributes_build (&ow_schema, "kind", kind, "name", name, NULL);
  /* UNLOCK: a locked keyring is unlocked the desktop's way (a prompt). */
  items = secret_service_search_sync (service, &ow_schema, attributes,
                                      SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS,
                                      cancellable, &err);
  if (err != NULL)
    {
      take_error (self, error, err, "read a key");
      return NULL;
    }
  for (GList *l = items; l != NULL && text == NULL; l = l->next)
    {
      SecretItem *item = l->data;
      SecretValue *value;

      value = secret_item_get_locked (item) ? NULL : secret_item_get_secret (item);
      if (value == NULL)
        {
          /* An item whose secret did not load is one that stayed locked
           * (its cached Locked property can lag behind the keyring's). */
          locked = TRUE;
          continue;
        }
      text = g_strdup (secret_value_get_text (value));
      secret_value_unref (value);
    }
  g_list_free_full (items, g_object_unref);
  if (text == NULL && !locked)
    {
      /* libsecret leaves out items it could not unlock (the prompt failed
       * or was dismissed). Attributes are readable while locked, so a
       * second look tells "locked" from "not there". */
      items = secret_service_search_sync (service, &ow_schema, attributes, SECRET_SEARCH_NONE, cancellable, &err);
      if (err != NULL)
        {
          take_error (self, error, err, "read a key");
          return NULL;
        }
      locked = items != NULL;
      g_list_free_full (items, g_object_unref);
    }
  if (text == NULL && locked)
    set_locked_error (self, error);
  return text;
}

static gboolean
libsecret_store (OwSecretStore *store, const char *kind, const char *name, const char *label, const char *value,
                 GCancellable *cancellable, GError **error)
{
  OwSecretLibsecret *self = OW_SECRET_LIBSECRET (store);
  g_autoptr(SecretService) service = get_service (self, "save the key", cancellable, error);
  g_autoptr(SecretCollection) collection = NULL;
  g_autoptr(GHashTable) attributes = NULL;
  g_autoptr(SecretItem) item = NULL;
  SecretValue *secret;
  GError *err = NULL;

  if (service == NULL)
    return FALSE;
  collection = secret_collection_for_alias_sync (service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE,
                                                 cancellable, &err);
  if (err != NULL)
    {
      take_error (self, error, err, "save the key");
      return FALSE;
    }
  if (collection == NULL)
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                           "The Secret Service has no default keyring to save the key in. Create one (Passwords "
                           "and Keys ▸ New keyring, then set it as default) or log in to a desktop session that "
                           "makes one. " HEADLESS_ADVICE);
      return FALSE;
    }
  if (secret_collection_get_locked (collection))
    {
      GList *objects = g_list_prepend (NULL, collection);

      secret_service_unlock_sync (service, objects, cancellable, NULL, &err);
      g_list_free (objects);
      g_clear_error (&err);
      if (secret_collection_get_locked (collection))
        {
          set_locked_error (self, error);
          return FALSE;
        }
    }
  attributes = secret_attributes_build (&ow_schema, "kind", kind, "name", name, NULL);
  secret = secret_value_new (value, -1, "text/plain");
  item = secret_item_create_sync (collection, &ow_schema, attributes, label, secret, SECRET_ITEM_CREATE_REPLACE,
                                  cancellable, &err);
  secret_value_unref (secret);
  if (item == NULL)
    {
      take_error (self, error, err, "save the key");
      return FALSE;
    }
  return TRUE;
}

static gboolean
libsecret_delete (OwSecretStore *store, const char *kind, const char *name, GCancellable *cancellable,
                  GError **error)
{
  OwSecretLibsecret *self = OW_SECRET_LIBSECRET (store);
  g_autoptr(SecretService) service = get_service (self, "remove the key", cancellable, error);
  g_autoptr(GHashTable) attributes = NULL;
  GError *err = NULL;
  gboolean deleted;

  if (service == NULL)
    return FALSE;
  attributes = secret_attributes_build (&ow_schema, "kind", kind, "name", name, NULL);
  deleted = secret_service_clear_sync (service, &ow_schema, attributes, cancellable, &err);
  if (err != NULL)
    {
      take_error (self, error, err, "remove the key");
      return FALSE;
    }
  return deleted;
}

static char **
libsecret_list (OwSecretStore *store, const char *kind, GCancellable *cancellable, GError **error)
{
  OwSecretLibsecret *self = OW_SECRET_LIBSECRET (store);
  g_autoptr(SecretService) service = get_service (self, "list keys", cancellable, error);
  g_autoptr(GHashTable) attributes = NULL;
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GStrvBuilder) names = NULL;
  GList *items;
  GError *err = NULL;

  if (service == NULL)
    return NULL;
  attributes = secret_attributes_build (&ow_schema, "kind", kind, NULL);
  /* No UNLOCK, no secrets: attributes are readable in a locked keyring, and
   * listing must never fetch a value. */
  items = secret_service_search_sync (service, &ow_schema, attributes, SECRET_SEARCH_ALL, cancellable, &err);
  if (err != NULL)
    {
      take_error (self, error, err, "list keys");
      return NULL;
    }
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  names = g_strv_builder_new ();
  for (GList *l = items; l != NULL; l = l->next)
    {
      g_autoptr(GHashTable) item_attributes = secret_item_get_attributes (l->data);
      const char *name = g_hash_table_lookup (item_attributes, "name");

      if (name != NULL && !g_hash_table_contains (seen, name))
        {
          g_strv_builder_add (names, name);
          g_hash_table_add (seen, (gpointer) g_intern_string (name));
        }
    }
  g_list_free_full (items, g_object_unref);
  return g_strv_builder_end (names);
}

static void
ow_secret_libsecret_iface_init (OwSecretStoreInterface *iface)
{
  iface->get_backend = libsecret_get_backend;
  iface->describe = libsecret_describe;
  iface->lookup = libsecret_lookup;
  iface->store = libsecret_store;
  iface->delete_secret = libsecret_delete;
  iface->list = libsecret_list;
}

OwSecretStore *
ow_secret_libsecret_new (void)
{
  return g_object_new (OW_TYPE_SECRET_LIBSECRET, NULL);
}

/* ---- Choosing it ----------------------------------------------------------------- */

OwSecretStore *
ow_secret_libsecret_probe (GError **error)
{
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) label = NULL;
  g_autoptr(GError) err = NULL;
  OwSecretLibsecret *self;
  const char *path;

  /* The reasons below are short clauses: they end up inside the one-line
   * notice that says the sealed file is used instead. */
  if (!session_bus_configured ())
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                           "no D-Bus session bus is running");
      return NULL;
    }
  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &err);
  if (bus == NULL)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                   "the D-Bus session bus does not answer (%s)", err->message);
      return NULL;
    }
  /* Asking for the default collection both finds out whether a Secret
   * Service answers (starting it if the bus can) and whether it has
   * somewhere to keep keys: a keyring that was never set up (a headless
   * login with gnome-keyring installed) has none, and saving would need a
   * prompt that cannot be shown. */
  reply = g_dbus_connection_call_sync (bus, SECRETS_BUS_NAME, SECRETS_PATH, "org.freedesktop.Secret.Service",
                                       "ReadAlias", g_variant_new ("(s)", "default"), G_VARIANT_TYPE ("(o)"),
                                       G_DBUS_CALL_FLAGS_NONE, PROBE_TIMEOUT_MS, NULL, &err);
  if (reply == NULL)
    {
      g_dbus_error_strip_remote_error (err);
      if (is_timeout (err))
        g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                     "the Secret Service did not answer within %d seconds (%s)", PROBE_TIMEOUT_MS / 1000,
                     err->message);
      else
        g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                     "no Secret Service answers on the session bus (%s)", err->message);
      return NULL;
    }
  g_variant_get (reply, "(&o)", &path);
  if (g_str_equal (path, "/"))
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE,
                           "the Secret Service on the session bus has no default keyring");
      return NULL;
    }
  self = g_object_new (OW_TYPE_SECRET_LIBSECRET, NULL);
  label = g_dbus_connection_call_sync (bus, SECRETS_BUS_NAME, path, "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", "org.freedesktop.Secret.Collection", "Label"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE, PROBE_TIMEOUT_MS, NULL, NULL);
  if (label != NULL)
    {
      g_autoptr(GVariant) inner = NULL;

      g_variant_get (label, "(v)", &inner);
      if (g_variant_is_of_type (inner, G_VARIANT_TYPE_STRING) && *g_variant_get_string (inner, NULL) != '\0')
        self->collection_label = g_variant_dup_string (inner, NULL);
    }
  if (self->collection_label == NULL)
    self->collection_label = g_path_get_basename (path);
  return OW_SECRET_STORE (self);
}

void
ow_secret_libsecret_register (void)
{
  ow_secret_store_register_os (ow_secret_libsecret_probe);
}
