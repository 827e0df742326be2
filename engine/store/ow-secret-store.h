/* ow-secret-store.h: where model keys and connector tokens live.
 *
 * Secrets are kept in the operating system's secret store — the Secret
 * Service (GNOME Keyring, KWallet, KeePassXC) on Linux, the Keychain on
 * macOS, the Credential Manager on Windows — never in a plain-text file.
 * Each secret is keyed by a kind and a name, ("provider", "anthropic") or
 * ("connector", "slack:team:T123"), and carries a label a person sees in
 * their keyring manager.
 *
 * OwSecretStore is the seam. The OS implementations live in platform/ and
 * register a factory (ow_secret_store_register_os) at start-up; the engine
 * never depends on them. Where no OS store answers — a headless machine with
 * no session bus — the sealed file store keeps secrets in one file encrypted
 * with libsodium's crypto_secretbox under a key in a second file, both
 * readable by their owner only. An in-memory store serves tests and
 * --isolated runs.
 *
 * Every value read through this interface is registered with the redaction
 * module (ow-redact.h) before the caller sees it, so it can never reach a
 * record, a log or a prompt. Listing returns names, never values.
 *
 * Implementations are called from worker threads (the _async functions run
 * the sync ones in a thread: the main loop never waits on D-Bus or disk),
 * so they must be thread-safe.
 */
#pragma once

#include <gio/gio.h>

#include "store/ow-paths.h"

G_BEGIN_DECLS

/* The kinds in use. A kind is lower-case ASCII letters, digits, '-' and '_'. */
#define OW_SECRET_KIND_PROVIDER  "provider"   /* name: the provider's catalog id */
#define OW_SECRET_KIND_CONNECTOR "connector"  /* name: "<connector>:<account>" */

#define OW_TYPE_SECRET_STORE (ow_secret_store_get_type ())
G_DECLARE_INTERFACE (OwSecretStore, ow_secret_store, OW, SECRET_STORE, GObject)

struct _OwSecretStoreInterface
{
  GTypeInterface parent_iface;

  /* A short word for where secrets are: "keyring", "file" or "memory". */
  const char *(*get_backend)   (OwSecretStore *self);
  /* One sentence naming the store for a person ("Keys are kept in …"). */
  char       *(*describe)      (OwSecretStore *self);
  /* The value, or NULL with no error when there is none. */
  char       *(*lookup)        (OwSecretStore *self,
                                const char    *kind,
                                const char    *name,
                                GCancellable  *cancellable,
                                GError       **error);
  /* Adds or replaces. */
  gboolean    (*store)         (OwSecretStore *self,
                                const char    *kind,
                                const char    *name,
                                const char    *label,
                                const char    *value,
                                GCancellable  *cancellable,
                                GError       **error);
  /* TRUE when a secret was deleted; FALSE with no error when there was none. */
  gboolean    (*delete_secret) (OwSecretStore *self,
                                const char    *kind,
                                const char    *name,
                                GCancellable  *cancellable,
                                GError       **error);
  /* The names stored under @kind, sorted; never values. */
  char      **(*list)          (OwSecretStore *self,
                                const char    *kind,
                                GCancellable  *cancellable,
                                GError       **error);
};

/* A secret value: free it with ow_secret_free(), which wipes it first.
 * g_autoptr(OwSecretText) key = ow_secret_store_lookup (…); */
typedef char OwSecretText;
void ow_secret_free (char *value);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwSecretText, ow_secret_free)

/**
 * ow_secret_store_get_backend:
 * Returns: (transfer none): "keyring", "file" or "memory"
 */
const char *ow_secret_store_get_backend (OwSecretStore *self);

/**
 * ow_secret_store_describe:
 * Returns: (transfer full): a one-line notice saying which store is in use,
 *   e.g. "Keys are kept in the Secret Service keyring (collection “Login”)."
 */
char       *ow_secret_store_describe    (OwSecretStore *self);

/**
 * ow_secret_store_lookup:
 * @kind: a kind such as %OW_SECRET_KIND_PROVIDER
 * @name: the secret's name within @kind ("anthropic")
 *
 * Blocks on D-Bus or disk: call it off the main loop, or use the _async form.
 *
 * Returns: (transfer full) (nullable): the value (free with ow_secret_free()),
 *   or %NULL — with @error set on failure, without when there is none
 */
char       *ow_secret_store_lookup      (OwSecretStore *self,
                                         const char    *kind,
                                         const char    *name,
                                         GCancellable  *cancellable,
                                         GError       **error);

/**
 * ow_secret_store_store:
 * @label: (nullable): what a person sees in their keyring manager;
 *   %NULL makes one from @kind and @name
 * @value: the secret: non-empty UTF-8, at most 64 KiB
 *
 * Adds the secret, or replaces the one stored under (@kind, @name).
 */
gboolean    ow_secret_store_store       (OwSecretStore *self,
                                         const char    *kind,
                                         const char    *name,
                                         const char    *label,
                                         const char    *value,
                                         GCancellable  *cancellable,
                                         GError       **error);

/**
 * ow_secret_store_delete:
 *
 * Returns: %TRUE when a secret was deleted; %FALSE without @error when there
 *   was none; %FALSE with @error on failure
 */
gboolean    ow_secret_store_delete      (OwSecretStore *self,
                                         const char    *kind,
                                         const char    *name,
                                         GCancellable  *cancellable,
                                         GError       **error);

/**
 * ow_secret_store_list:
 *
 * Returns: (transfer full) (nullable): the names stored under @kind, sorted
 *   (an empty vector when there are none); %NULL with @error on failure
 */
char      **ow_secret_store_list        (OwSecretStore *self,
                                         const char    *kind,
                                         GCancellable  *cancellable,
                                         GError       **error);

/**
 * ow_secret_store_get_changes:
 *
 * How many times a secret was stored or deleted through
 * ow_secret_store_store() or ow_secret_store_delete() (or their _async
 * forms), by any store in this process. A cache of looked-up values notes
 * it before each lookup and trusts a value only while the count is the
 * same, so saving or removing a key is seen at once. Thread-safe.
 *
 * Returns: the count (it only grows, modulo wrap-around)
 */
guint       ow_secret_store_get_changes (void);

/* The same, run in a worker thread; callbacks come on the caller's
 * thread-default main context. A cancelled lookup fails with
 * G_IO_ERROR_CANCELLED at once, even while the store still blocks. */
void        ow_secret_store_lookup_async  (OwSecretStore       *self,
                                           const char          *kind,
                                           const char          *name,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
char       *ow_secret_store_lookup_finish (OwSecretStore *self,
                                           GAsyncResult  *result,
                                           GError       **error);
void        ow_secret_store_store_async   (OwSecretStore       *self,
                                           const char          *kind,
                                           const char          *name,
                                           const char          *label,
                                           const char          *value,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
gboolean    ow_secret_store_store_finish  (OwSecretStore *self,
                                           GAsyncResult  *result,
                                           GError       **error);
void        ow_secret_store_delete_async  (OwSecretStore       *self,
                                           const char          *kind,
                                           const char          *name,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
gboolean    ow_secret_store_delete_finish (OwSecretStore *self,
                                           GAsyncResult  *result,
                                           GError       **error);
void        ow_secret_store_list_async    (OwSecretStore       *self,
                                           const char          *kind,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
char      **ow_secret_store_list_finish   (OwSecretStore *self,
                                           GAsyncResult  *result,
                                           GError       **error);

/* Whether (@kind, @name, @value) can be stored; fails with
 * OW_SECRET_ERROR_INVALID and a sentence saying why. @value may be NULL to
 * check the key alone. Every implementation's entry points call it. */
gboolean    ow_secret_check             (const char *kind,
                                         const char *name,
                                         const char *value,
                                         GError    **error);

/* ---- Implementations in the engine ---------------------------------------- */

/* Holds secrets in this process only: tests and --isolated runs. */
OwSecretStore *ow_secret_store_memory_new (void);

/**
 * ow_secret_store_file_new:
 * @path: the sealed file ("…/secrets.sealed"); its key is kept beside it in
 *   "@path.key"
 *
 * The sealed file store, for machines with no OS secret store. Both files
 * are created 0600 and written atomically; a file that group or others can
 * read or write, that is a symbolic link or that another user owns is
 * refused. A damaged or truncated sealed file is reported and left as it
 * is, and the key file is never rewritten once it exists.
 */
OwSecretStore *ow_secret_store_file_new   (const char *path);

/* ---- Choosing a store ----------------------------------------------------- */

/* Returns the OS store, or NULL with a GError saying why there is none on
 * this machine as a short clause that fits in a notice ("no D-Bus session
 * bus is running", "the Secret Service has no default keyring"). */
typedef OwSecretStore *(*OwSecretStoreFactory) (GError **error);

/* Registers the OS store's factory; platform/ calls this from main()
 * (ow_secret_libsecret_register () on Linux). The last one wins. */
void           ow_secret_store_register_os (OwSecretStoreFactory factory);

/**
 * ow_secret_store_new_default:
 * @paths: this machine's folders; the sealed file is
 *   @paths->config_dir/secrets.sealed
 *
 * The store this machine uses. The choice is made on first use, so making
 * one costs nothing (a run whose key is in the environment never touches
 * D-Bus): the registered OS store when it answers, else the sealed file
 * store. OPENWORKER_SECRET_STORE=keyring or =file forces one (keyring then
 * fails with the reason when none answers). ow_secret_store_describe() says
 * which was chosen and why.
 *
 * Returns: (transfer full): the store
 */
OwSecretStore *ow_secret_store_new_default (const OwPaths *paths);

G_END_DECLS
