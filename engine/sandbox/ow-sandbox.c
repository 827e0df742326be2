/* ow-sandbox.c: the OwSandboxBackend interface and the provider registry.
 *
 * The engine names a sandbox by the machine's sandbox_provider setting;
 * the code that builds each wall lives in platform/ (Linux namespaces +
 * Landlock + seccomp, Seatbelt, the Windows accounts) or beside this file
 * (OpenShell), and registers a factory under its provider's name at start
 * up. Asking for a provider nobody registered is an answer a person can
 * act on — this system cannot give that sandbox — never a fallback to
 * running tools without one.
 */
#define G_LOG_DOMAIN "ow-sandbox"

#include "sandbox/ow-sandbox.h"

#include "ow-error.h"

G_DEFINE_INTERFACE (OwSandboxBackend, ow_sandbox_backend, G_TYPE_OBJECT)

static void
ow_sandbox_backend_default_init (OwSandboxBackendInterface *iface)
{
}

const char *
ow_sandbox_backend_get_name (OwSandboxBackend *self)
{
  g_return_val_if_fail (OW_IS_SANDBOX_BACKEND (self), NULL);
  return OW_SANDBOX_BACKEND_GET_IFACE (self)->get_name (self);
}

JsonObject *
ow_sandbox_backend_status (OwSandboxBackend *self)
{
  g_return_val_if_fail (OW_IS_SANDBOX_BACKEND (self), NULL);
  return OW_SANDBOX_BACKEND_GET_IFACE (self)->status (self);
}

void
ow_sandbox_backend_start_async (OwSandboxBackend    *self,
                                const OwSandboxSpec *spec,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (OW_IS_SANDBOX_BACKEND (self));
  g_return_if_fail (spec != NULL);
  OW_SANDBOX_BACKEND_GET_IFACE (self)->start_async (self, spec, cancellable, callback, user_data);
}

OwExecutor *
ow_sandbox_backend_start_finish (OwSandboxBackend *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (OW_IS_SANDBOX_BACKEND (self), NULL);
  return OW_SANDBOX_BACKEND_GET_IFACE (self)->start_finish (self, result, error);
}

/* ---- the registry ------------------------------------------------------ */

static GMutex registry_lock;
static GHashTable *registry;   /* provider name → OwSandboxBackendFactory */

void
ow_sandbox_backend_register (const char *provider, OwSandboxBackendFactory factory)
{
  g_return_if_fail (provider != NULL && factory != NULL);

  g_mutex_lock (&registry_lock);
  if (registry == NULL)
    registry = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_replace (registry, g_strdup (provider), (gpointer) factory);
  g_mutex_unlock (&registry_lock);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

char **
ow_sandbox_backend_list_registered (void)
{
  /* The order Settings shows them in: the native wall first. */
  static const char *const order[] = { "linux", "seatbelt", "windows", "openshell", NULL };
  g_autoptr(GStrvBuilder) out = g_strv_builder_new ();

  g_mutex_lock (&registry_lock);
  for (guint i = 0; order[i] != NULL; i++)
    if (registry != NULL && g_hash_table_contains (registry, order[i]))
      g_strv_builder_add (out, order[i]);
  if (registry != NULL)
    {
      g_autofree const char **names = (const char **) g_hash_table_get_keys_as_array (registry, NULL);
      g_autoptr(GPtrArray) rest = g_ptr_array_new ();

      for (guint i = 0; names[i] != NULL; i++)
        if (!g_strv_contains (order, names[i]))
          g_ptr_array_add (rest, (gpointer) names[i]);
      g_ptr_array_sort (rest, compare_names);
      for (guint i = 0; i < rest->len; i++)
        g_strv_builder_add (out, g_ptr_array_index (rest, i));
    }
  g_mutex_unlock (&registry_lock);
  return g_strv_builder_end (out);
}

/* Why a known provider cannot be had here. */
static const char *
unavailable_reason (const char *provider)
{
  if (g_str_equal (provider, "seatbelt"))
    return "the Seatbelt sandbox is part of macOS";
  if (g_str_equal (provider, "windows"))
    return "the account sandbox is part of Windows";
  if (g_str_equal (provider, "linux"))
    return "the namespaces + Landlock sandbox needs Linux";
  if (g_str_equal (provider, "openshell"))
    return "this build of OpenWorker has no OpenShell backend";
  return NULL;
}

OwSandboxBackend *
ow_sandbox_backend_for (const char *provider, GError **error)
{
  OwSandboxBackendFactory factory = NULL;
  const char *why;

  if (provider == NULL || *provider == '\0' || g_str_equal (provider, "direct"))
    {
      g_set_error_literal (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                           "sandbox_provider = \"direct\" runs tools in OpenWorker's own process; there is "
                           "no sandbox to start. Choose \"linux\", \"openshell\", \"seatbelt\" or \"windows\" "
                           "to run them behind a wall.");
      return NULL;
    }
  g_mutex_lock (&registry_lock);
  if (registry != NULL)
    factory = (OwSandboxBackendFactory) g_hash_table_lookup (registry, provider);
  g_mutex_unlock (&registry_lock);
  if (factory != NULL)
    return factory (error);

  why = unavailable_reason (provider);
  if (why != NULL)
    g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                 "The \"%s\" sandbox is not available on this system (%s). Set sandbox_provider to one this "
                 "machine has (`openworker machine sandbox status` lists it), or to \"direct\".",
                 provider, why);
  else
    g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                 "\"%s\" is not a sandbox provider; use \"direct\", \"linux\", \"openshell\", \"seatbelt\" "
                 "or \"windows\".", provider);
  return NULL;
}
