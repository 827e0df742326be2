/* test-secrets.c: the secret stores, end to end.
 *
 * Runs inside keyring-session.py: a private D-Bus session with a fresh
 * GNOME Keyring unlocked with a test password, HOME and the XDG folders in
 * a temporary directory. Every secret value here contains SECRET_MARKER;
 * after the run the wrapper greps every file under HOME and the XDG folders
 * for it, and tests check the same after each store along the way.
 *
 *   memory/   the in-memory store
 *   file/     the sealed file store: round trip, permissions, damage, a
 *             missing or damaged key file, the format, concurrency
 *   keyring/  libsecret against the real gnome-keyring-daemon: round trip,
 *             async, the default store's choice, no Secret Service, a
 *             locked collection
 *   context/  provider creation reads the saved key (seen on the wire by
 *             the scripted model server), the environment wins, --isolated
 *             never reads the store, a failing store is reported
 *   redact/   a value read from a store is redacted from text and logs
 *   verify/   ow_provider_verify_key_async against the scripted model server
 */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <libsecret/secret.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "core/ow-context.h"
#include "core/ow-message.h"
#include "ow-error.h"
#include "ow-model-server.h"
#include "ow-redact.h"
#include "ow-secret-libsecret.h"
#include "ow-test-utils.h"
#include "providers/ow-provider-verify.h"
#include "store/ow-secret-store-private.h"
#include "store/ow-secret-store.h"

#define SECRET_MARKER "owtest-secret-Zq8"
#define KEYRING_PASSWORD "ow-test-password"

/* ---- Helpers ------------------------------------------------------------------ */

/* A fresh folder under $HOME, so the wrapper's grep covers it. */
static char *
fresh_dir (void)
{
  g_autofree char *tmpl = g_build_filename (g_getenv ("HOME"), "t-XXXXXX", NULL);
  char *dir = g_mkdtemp_full (g_steal_pointer (&tmpl), 0700);

  g_assert_nonnull (dir);
  return dir;
}

static gboolean
file_holds (const char *path, const char *needle)
{
  g_autofree char *data = NULL;
  gsize len;

  if (!g_file_get_contents (path, &data, &len, NULL))
    return FALSE;
  return memmem (data, len, needle, strlen (needle)) != NULL;
}

/* Every regular file under @dir holding @needle, added to @hits; returns
 * how many files were read. */
static guint
walk_for (const char *dir, const char *needle, GPtrArray *hits)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  if (d == NULL)
    return 0;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        n += walk_for (path, needle, hits);
      else if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          n++;
          if (file_holds (path, needle))
            g_ptr_array_add (hits, g_steal_pointer (&path));
        }
    }
  return n;
}

/* No file under HOME or an XDG folder holds @needle. Returns the number of
 * files read, so a test can tell the walk saw something. */
static guint
assert_no_file_holds (const char *needle)
{
  static const char *const vars[] = { "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
                                      "XDG_STATE_HOME", "XDG_RUNTIME_DIR" };
  g_autoptr(GPtrArray) hits = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      const char *dir = g_getenv (vars[i]);
      if (dir != NULL && g_hash_table_add (seen, (gpointer) dir))
        n += walk_for (dir, needle, hits);
    }
  for (guint i = 0; i < hits->len; i++)
    g_printerr ("secret found in %s\n", (char *) hits->pdata[i]);
  g_assert_cmpuint (hits->len, ==, 0);
  return n;
}

static GBytes *
read_bytes (const char *path)
{
  char *data = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  return g_bytes_new_take (data, len);
}

static void
write_bytes (const char *path, const void *data, gsize len)
{
  /* In place, keeping the file's mode (g_file_set_contents would make a new
   * 0666 & ~umask file). */
  int fd = g_open (path, O_WRONLY | O_TRUNC | O_CREAT, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, data, len), ==, (gssize) len);
  close (fd);
}

static guint
file_mode (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

static OwSecretStore *
keyring_store (void)
{
  g_autoptr(GError) error = NULL;
  OwSecretStore *store = ow_secret_libsecret_probe (&error);

  g_assert_no_error (error);
  g_assert_nonnull (store);
  return store;
}

/* ---- A spy store: counts lookups, can fail --------------------------------------- */

#define TEST_TYPE_SPY_STORE (test_spy_store_get_type ())
G_DECLARE_FINAL_TYPE (TestSpyStore, test_spy_store, TEST, SPY_STORE, GObject)

struct _TestSpyStore
{
  GObject        parent_instance;
  OwSecretStore *inner;
  guint          lookups;
  gboolean       locked;   /* every call fails with OW_SECRET_ERROR_LOCKED */
};

static void test_spy_store_iface_init (OwSecretStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestSpyStore, test_spy_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SECRET_STORE, test_spy_store_iface_init))

static void
test_spy_store_finalize (GObject *object)
{
  g_clear_object (&TEST_SPY_STORE (object)->inner);
  G_OBJECT_CLASS (test_spy_store_parent_class)->finalize (object);
}

static void
test_spy_store_class_init (TestSpyStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_spy_store_finalize;
}

static void
test_spy_store_init (TestSpyStore *self)
{
  self->inner = ow_secret_store_memory_new ();
}

static const char *
spy_backend (OwSecretStore *s)
{
  return "memory";
}

static char *
spy_describe (OwSecretStore *s)
{
  return g_strdup ("spy");
}

static char *
spy_lookup (OwSecretStore *s, const char *kind, const char *name, GCancellable *c, GError **error)
{
  TestSpyStore *self = TEST_SPY_STORE (s);

  self->lookups++;
  if (self->locked)
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_LOCKED, "The keyring “Spy” is locked.");
      return NULL;
    }
  return ow_secret_store_lookup (self->inner, kind, name, c, error);
}

static gboolean
spy_store (OwSecretStore *s, const char *kind, const char *name, const char *label, const char *value,
           GCancellable *c, GError **error)
{
  return ow_secret_store_store (TEST_SPY_STORE (s)->inner, kind, name, label, value, c, error);
}

static gboolean
spy_delete (OwSecretStore *s, const char *kind, const char *name, GCancellable *c, GError **error)
{
  return ow_secret_store_delete (TEST_SPY_STORE (s)->inner, kind, name, c, error);
}

static char **
spy_list (OwSecretStore *s, const char *kind, GCancellable *c, GError **error)
{
  return ow_secret_store_list (TEST_SPY_STORE (s)->inner, kind, c, error);
}

static void
test_spy_store_iface_init (OwSecretStoreInterface *iface)
{
  iface->get_backend = spy_backend;
  iface->describe = spy_describe;
  iface->lookup = spy_lookup;
  iface->store = spy_store;
  iface->delete_secret = spy_delete;
  iface->list = spy_list;
}

/* ---- Shared store checks ---------------------------------------------------------- */

/* What every store must do; @prefix keeps names apart between stores. */
static void
check_round_trip (OwSecretStore *store, const char *prefix)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name_a = g_strconcat (prefix, "-anthropic", NULL);
  g_autofree char *name_b = g_strconcat (prefix, "-openai", NULL);
  g_autofree char *value_a = g_strconcat (SECRET_MARKER, "-", prefix, "-a-1", NULL);
  g_autofree char *value_a2 = g_strconcat (SECRET_MARKER, "-", prefix, "-a-2", NULL);
  g_autofree char *value_b = g_strconcat (SECRET_MARKER, "-", prefix, "-b-ü", NULL);
  g_autoptr(OwSecretText) got = NULL;
  g_auto(GStrv) names = NULL;

  got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, name_a, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (got);

  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, name_a, "Test A", value_a, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, name_b, NULL, value_b, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_CONNECTOR, name_a, "Connector", value_b, NULL,
                                        &error));
  g_assert_no_error (error);

  got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, name_a, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==, value_a);
  g_clear_pointer (&got, ow_secret_free);
  got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, name_b, NULL, &error);
  g_assert_cmpstr (got, ==, value_b);
  g_clear_pointer (&got, ow_secret_free);

  /* Replacing keeps one entry. */
  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, name_a, "Test A", value_a2, NULL, &error));
  got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, name_a, NULL, &error);
  g_assert_cmpstr (got, ==, value_a2);
  g_clear_pointer (&got, ow_secret_free);

  /* Names only, per kind, sorted. */
  names = ow_secret_store_list (store, OW_SECRET_KIND_PROVIDER, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_contains ((const char *const *) names, name_a));
  g_assert_true (g_strv_contains ((const char *const *) names, name_b));
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_assert_null (strstr (names[i], SECRET_MARKER));
      if (names[i + 1] != NULL)
        g_assert_cmpint (strcmp (names[i], names[i + 1]), <, 0);
    }
  g_clear_pointer (&names, g_strfreev);
  names = ow_secret_store_list (store, OW_SECRET_KIND_CONNECTOR, NULL, &error);
  g_assert_true (g_strv_contains ((const char *const *) names, name_a));
  g_assert_false (g_strv_contains ((const char *const *) names, name_b));

  /* Delete: TRUE once, then FALSE without an error. */
  g_assert_true (ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, name_a, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, name_a, NULL, &error));
  g_assert_no_error (error);
  got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, name_a, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (got);
  /* The other kind's entry of the same name is untouched. */
  got = ow_secret_store_lookup (store, OW_SECRET_KIND_CONNECTOR, name_a, NULL, &error);
  g_assert_cmpstr (got, ==, value_b);
  g_clear_pointer (&got, ow_secret_free);

  g_assert_true (ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, name_b, NULL, &error));
  g_assert_true (ow_secret_store_delete (store, OW_SECRET_KIND_CONNECTOR, name_a, NULL, &error));
  g_assert_no_error (error);

  /* Bad arguments are refused before any store sees them. */
  g_assert_false (ow_secret_store_store (store, "Provider!", "x", NULL, value_a, NULL, &error));
  g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "x", NULL, "", NULL, &error));
  g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "a\nb", NULL, value_a, NULL, &error));
  g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID);
  g_clear_error (&error);
}

typedef struct {
  gboolean done;
  char    *value;
  char   **names;
  gboolean ok;
  GError  *error;
} AsyncResult;

static void
on_lookup_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  AsyncResult *r = data;
  r->value = ow_secret_store_lookup_finish (OW_SECRET_STORE (source), res, &r->error);
  r->done = TRUE;
}

static void
on_store_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  AsyncResult *r = data;
  r->ok = ow_secret_store_store_finish (OW_SECRET_STORE (source), res, &r->error);
  r->done = TRUE;
}

static void
on_delete_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  AsyncResult *r = data;
  r->ok = ow_secret_store_delete_finish (OW_SECRET_STORE (source), res, &r->error);
  r->done = TRUE;
}

static void
on_list_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  AsyncResult *r = data;
  r->names = ow_secret_store_list_finish (OW_SECRET_STORE (source), res, &r->error);
  r->done = TRUE;
}

static void
async_result_clear (AsyncResult *r)
{
  ow_secret_free (r->value);
  g_strfreev (r->names);
  g_clear_error (&r->error);
  memset (r, 0, sizeof *r);
}

static void
check_async (OwSecretStore *store, const char *name)
{
  g_autofree char *value = g_strconcat (SECRET_MARKER, "-async-", name, NULL);
  AsyncResult r = { 0 };

  ow_secret_store_store_async (store, OW_SECRET_KIND_PROVIDER, name, "Async", value, NULL, on_store_cb, &r);
  g_assert_false (r.done);   /* never completes inside the call */
  ow_test_wait_flag (&r.done);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  async_result_clear (&r);

  ow_secret_store_lookup_async (store, OW_SECRET_KIND_PROVIDER, name, NULL, on_lookup_cb, &r);
  ow_test_wait_flag (&r.done);
  g_assert_no_error (r.error);
  g_assert_cmpstr (r.value, ==, value);
  async_result_clear (&r);

  ow_secret_store_list_async (store, OW_SECRET_KIND_PROVIDER, NULL, on_list_cb, &r);
  ow_test_wait_flag (&r.done);
  g_assert_no_error (r.error);
  g_assert_true (g_strv_contains ((const char *const *) r.names, name));
  async_result_clear (&r);

  ow_secret_store_delete_async (store, OW_SECRET_KIND_PROVIDER, name, NULL, on_delete_cb, &r);
  ow_test_wait_flag (&r.done);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  async_result_clear (&r);

  ow_secret_store_lookup_async (store, OW_SECRET_KIND_PROVIDER, name, NULL, on_lookup_cb, &r);
  ow_test_wait_flag (&r.done);
  g_assert_no_error (r.error);
  g_assert_null (r.value);
  async_result_clear (&r);

  /* A bad kind fails through the async path too. */
  ow_secret_store_lookup_async (store, "BAD KIND", name, NULL, on_lookup_cb, &r);
  ow_test_wait_flag (&r.done);
  g_assert_error (r.error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID);
  async_result_clear (&r);
}

/* ---- memory ------------------------------------------------------------------------ */

static void
test_memory_round_trip (void)
{
  g_autoptr(OwSecretStore) store = ow_secret_store_memory_new ();
  g_autofree char *notice = ow_secret_store_describe (store);

  g_assert_cmpstr (ow_secret_store_get_backend (store), ==, "memory");
  g_assert_nonnull (strstr (notice, "memory"));
  check_round_trip (store, "mem");
  check_async (store, "mem-async");
}

/* ---- file ------------------------------------------------------------------------- */

static void
test_file_round_trip (void)
{
  g_autofree char *dir = fresh_dir ();
  g_autofree char *path = g_build_filename (dir, "config", "secrets.sealed", NULL);
  g_autofree char *key_path = g_strconcat (path, ".key", NULL);
  g_autoptr(OwSecretStore) store = ow_secret_store_file_new (path);
  g_autoptr(OwSecretStore) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) got = NULL;
  g_autofree char *notice = ow_secret_store_describe (store);
  const char *value = SECRET_MARKER "-file-persist";

  g_assert_cmpstr (ow_secret_store_get_backend (store), ==, "file");
  g_assert_nonnull (strstr (notice, path));

  /* Reading a store that does not exist creates nothing. */
  got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);
  g_assert_no_error (error);
  g_assert_null (got);
  g_assert_false (g_file_test (key_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (key_path, G_FILE_TEST_EXISTS));

  check_round_trip (store, "file");
  check_async (store, "file-async");

  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, value, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (file_mode (path), ==, 0600);
  g_assert_cmpuint (file_mode (key_path), ==, 0600);
  g_assert_cmpuint (file_mode (dir), ==, 0700);
  {
    g_autofree char *config = g_path_get_dirname (path);
    g_assert_cmpuint (file_mode (config), ==, 0700);
    g_autoptr(GBytes) key = read_bytes (key_path);
    g_assert_cmpuint (g_bytes_get_size (key), ==, OW_SEALED_KEY_FILE_BYTES);
  }
  /* Sealed: the value is nowhere in the files. */
  g_assert_false (file_holds (path, value));
  g_assert_false (file_holds (path, "anthropic"));
  assert_no_file_holds (SECRET_MARKER);

  /* Another instance (another process) reads it. */
  again = ow_secret_store_file_new (path);
  got = ow_secret_store_lookup (again, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==, value);
}

static void
assert_lookup_fails (OwSecretStore *store, int code, const char *words)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);

  g_assert_null (got);
  g_assert_error (error, OW_SECRET_ERROR, code);
  if (strstr (error->message, words) == NULL)
    g_error ("“%s” not in “%s”", words, error->message);
}

static void
test_file_permissions (void)
{
  g_autofree char *dir = fresh_dir ();
  g_autofree char *path = g_build_filename (dir, "secrets.sealed", NULL);
  g_autofree char *key_path = g_strconcat (path, ".key", NULL);
  g_autofree char *elsewhere = g_build_filename (dir, "elsewhere.sealed", NULL);
  g_autoptr(OwSecretStore) store = ow_secret_store_file_new (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;

  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, SECRET_MARKER "-perm",
                                        NULL, &error));
  g_assert_no_error (error);
  before = read_bytes (path);

  /* Readable by others: refused for reading and for writing. */
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  assert_lookup_fails (store, OW_SECRET_ERROR_PERMISSIONS, "chmod 600");
  assert_lookup_fails (store, OW_SECRET_ERROR_PERMISSIONS, "0644");
  g_assert_false (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "openai", NULL, SECRET_MARKER "-x", NULL,
                                         &error));
  g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_PERMISSIONS);
  g_clear_error (&error);
  g_assert_null (ow_secret_store_list (store, OW_SECRET_KIND_PROVIDER, NULL, &error));
  g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_PERMISSIONS);
  g_clear_error (&error);
  after = read_bytes (path);
  g_assert_true (g_bytes_equal (before, after));
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);

  /* Group-writable key file: refused too. */
  g_assert_cmpint (g_chmod (key_path, 0620), ==, 0);
  assert_lookup_fails (store, OW_SECRET_ERROR_PERMISSIONS, "key file");
  g_assert_cmpint (g_chmod (key_path, 0600), ==, 0);

  /* A symbolic link: refused, not followed. */
  g_assert_cmpint (g_rename (path, elsewhere), ==, 0);
  g_assert_cmpint (symlink (elsewhere, path), ==, 0);
  assert_lookup_fails (store, OW_SECRET_ERROR_PERMISSIONS, "symbolic link");
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rename (elsewhere, path), ==, 0);

  /* Put right, it reads again: nothing was lost. */
  {
    g_autoptr(OwSecretText) got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (got, ==, SECRET_MARKER "-perm");
  }
}

static void
test_file_corrupt (void)
{
  g_autofree char *dir = fresh_dir ();
  g_autofree char *path = g_build_filename (dir, "secrets.sealed", NULL);
  g_autofree char *key_path = g_strconcat (path, ".key", NULL);
  g_autoptr(OwSecretStore) store = ow_secret_store_file_new (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) good = NULL;
  g_autoptr(GBytes) key_before = NULL;
  gsize len;
  const guint8 *data;
  guint8 *bad;

  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, SECRET_MARKER "-corrupt",
                                        NULL, &error));
  g_assert_no_error (error);
  good = read_bytes (path);
  key_before = read_bytes (key_path);
  data = g_bytes_get_data (good, &len);
  bad = g_memdup2 (data, len);

  struct {
    gsize       keep;       /* bytes kept (truncation) */
    gssize      flip;       /* byte flipped, -1 none */
    const char *words;
  } cases[] = {
    { len, (gssize) len - 3, "does not open with its key" },     /* a damaged ciphertext */
    { len, 40, "does not open with its key" },                   /* a damaged nonce */
    { len, 2, "not an OpenWorker sealed secrets file" },         /* a damaged header */
    { len, 7, "format" },                                        /* an unknown version */
    { 20, -1, "truncated" },                                     /* cut short */
    { OW_SEALED_MIN_BYTES - 1, -1, "truncated" },
    { len - 5, -1, "does not open with its key" },              /* cut in the ciphertext */
    { 0, -1, "not an OpenWorker sealed secrets file" },          /* empty */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) now = NULL;
      g_autoptr(GBytes) key_now = NULL;

      memcpy (bad, data, len);
      if (cases[i].flip >= 0)
        bad[cases[i].flip] ^= 0x5a;
      write_bytes (path, bad, cases[i].keep);

      assert_lookup_fails (store, OW_SECRET_ERROR_CORRUPT, cases[i].words);
      /* The message says the key file is untouched and what to do. */
      assert_lookup_fails (store, OW_SECRET_ERROR_CORRUPT, "is untouched");
      assert_lookup_fails (store, OW_SECRET_ERROR_CORRUPT, "keys set");

      /* A write does not replace the damaged file (it held other keys). */
      g_assert_false (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "openai", NULL, SECRET_MARKER "-y",
                                             NULL, &error));
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
      g_clear_error (&error);
      g_assert_false (ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error));
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
      g_clear_error (&error);
      now = read_bytes (path);
      g_assert_cmpuint (g_bytes_get_size (now), ==, cases[i].keep);
      g_assert_cmpmem (g_bytes_get_data (now, NULL), cases[i].keep, bad, cases[i].keep);

      /* The key file is never lost. */
      key_now = read_bytes (key_path);
      g_assert_true (g_bytes_equal (key_before, key_now));
    }

  /* Restored from a backup, everything is back. */
  write_bytes (path, data, len);
  {
    g_autoptr(OwSecretText) got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (got, ==, SECRET_MARKER "-corrupt");
  }
  g_free (bad);
}

static void
test_file_missing_key (void)
{
  g_autofree char *dir = fresh_dir ();
  g_autofree char *path = g_build_filename (dir, "secrets.sealed", NULL);
  g_autofree char *key_path = g_strconcat (path, ".key", NULL);
  g_autofree char *aside = g_strconcat (key_path, ".aside", NULL);
  g_autoptr(OwSecretStore) store = ow_secret_store_file_new (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) sealed = NULL;
  g_autoptr(GBytes) key = NULL;

  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, SECRET_MARKER "-mk",
                                        NULL, &error));
  g_assert_no_error (error);
  sealed = read_bytes (path);
  key = read_bytes (key_path);

  /* No key file: the sealed file cannot be opened, and a new key is never
   * made over it (that would orphan the keys it holds). */
  g_assert_cmpint (g_rename (key_path, aside), ==, 0);
  assert_lookup_fails (store, OW_SECRET_ERROR_CORRUPT, "key file");
  assert_lookup_fails (store, OW_SECRET_ERROR_CORRUPT, "is missing");
  g_assert_false (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "openai", NULL, SECRET_MARKER "-z", NULL,
                                         &error));
  g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
  g_clear_error (&error);
  g_assert_false (g_file_test (key_path, G_FILE_TEST_EXISTS));
  {
    g_autoptr(GBytes) now = read_bytes (path);
    g_assert_true (g_bytes_equal (sealed, now));
  }

  /* A damaged key file: reported, never replaced. */
  write_bytes (key_path, g_bytes_get_data (key, NULL), 12);
  assert_lookup_fails (store, OW_SECRET_ERROR_CORRUPT, "key file");
  g_assert_false (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "openai", NULL, SECRET_MARKER "-z", NULL,
                                         &error));
  g_clear_error (&error);
  {
    g_autoptr(GBytes) now = read_bytes (key_path);
    g_assert_cmpuint (g_bytes_get_size (now), ==, 12);
  }

  /* Another key file: the sealed file does not open with it. */
  {
    guint8 other[OW_SEALED_KEY_FILE_BYTES];
    memcpy (other, g_bytes_get_data (key, NULL), sizeof other);
    other[OW_SEALED_KEY_FILE_BYTES - 1] ^= 1;
    write_bytes (key_path, other, sizeof other);
    assert_lookup_fails (store, OW_SECRET_ERROR_CORRUPT, "another key file");
  }

  /* The key restored, everything is back. */
  g_assert_cmpint (g_rename (aside, key_path), ==, 0);
  {
    g_autoptr(OwSecretText) got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (got, ==, SECRET_MARKER "-mk");
  }
}

static void
test_file_format (void)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_sealed_entry_free);
  g_autoptr(GPtrArray) back = NULL;
  g_autoptr(GError) error = NULL;
  guint8 key[OW_SEALED_KEY_BYTES];
  guint8 other[OW_SEALED_KEY_BYTES];
  g_autofree guint8 *sealed = NULL;
  g_autofree guint8 *sealed2 = NULL;
  g_autofree guint8 *plain = NULL;
  gsize len, len2, plain_len;

  g_assert_true (ow_sealed_init (&error));
  memset (key, 7, sizeof key);
  memset (other, 8, sizeof other);
  g_ptr_array_add (entries, ow_sealed_entry_new ("provider", "anthropic", "Claude", SECRET_MARKER "-f1"));
  g_ptr_array_add (entries, ow_sealed_entry_new ("connector", "slack:team:T1 ☃", "", SECRET_MARKER "-f2\n{\"json\":1}"));

  sealed = ow_sealed_seal (entries, key, &len);
  back = ow_sealed_open (sealed, len, key, "test", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      OwSealedEntry *a = entries->pdata[i], *b = back->pdata[i];
      g_assert_cmpstr (a->kind, ==, b->kind);
      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpstr (a->label, ==, b->label);
      g_assert_cmpstr (a->value, ==, b->value);
    }
  g_assert_null (memmem (sealed, len, SECRET_MARKER, strlen (SECRET_MARKER)));

  /* A new nonce every time: the same entries seal differently. */
  sealed2 = ow_sealed_seal (entries, key, &len2);
  g_assert_cmpuint (len, ==, len2);
  g_assert_cmpint (memcmp (sealed, sealed2, len), !=, 0);

  /* Another key does not open it. */
  g_assert_null (ow_sealed_open (sealed, len, other, "test", &error));
  g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
  g_clear_error (&error);

  /* The plaintext parser: every kind of damage is CORRUPT, never a crash. */
  plain = ow_sealed_build_plaintext (entries, &plain_len);
  {
    g_autoptr(GPtrArray) ok = ow_sealed_parse_plaintext (plain, plain_len, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (ok->len, ==, 2);
  }
  for (gsize cut = 0; cut < plain_len; cut++)
    {
      g_autoptr(GPtrArray) none = ow_sealed_parse_plaintext (plain, cut, &error);
      g_assert_null (none);
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
      g_clear_error (&error);
    }
  {
    /* Trailing bytes, a huge count, a duplicate, a NUL inside a field. */
    g_autofree guint8 *longer = g_malloc (plain_len + 1);
    guint8 huge[8] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
    g_autoptr(GPtrArray) dup = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_sealed_entry_free);
    g_autofree guint8 *dup_plain = NULL;
    gsize dup_len;

    memcpy (longer, plain, plain_len);
    longer[plain_len] = 0;
    g_assert_null (ow_sealed_parse_plaintext (longer, plain_len + 1, &error));
    g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
    g_clear_error (&error);
    g_assert_null (ow_sealed_parse_plaintext (huge, sizeof huge, &error));
    g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
    g_clear_error (&error);
    g_ptr_array_add (dup, ow_sealed_entry_new ("provider", "a", "", SECRET_MARKER "-1"));
    g_ptr_array_add (dup, ow_sealed_entry_new ("provider", "a", "", SECRET_MARKER "-2"));
    dup_plain = ow_sealed_build_plaintext (dup, &dup_len);
    g_assert_null (ow_sealed_parse_plaintext (dup_plain, dup_len, &error));
    g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error->message, "repeats"));
    g_clear_error (&error);
    dup_plain[4 + 4 + 2] = '\0';   /* inside the first kind, "provider" */
    g_assert_null (ow_sealed_parse_plaintext (dup_plain, dup_len, &error));
    g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT);
    g_clear_error (&error);
  }
  ow_sealed_wipe_free (g_steal_pointer (&plain), plain_len);
}

typedef struct {
  OwSecretStore *store;
  guint          first;
  guint          count;
} Writer;

static gpointer
writer_thread (gpointer data)
{
  Writer *w = data;

  for (guint i = w->first; i < w->first + w->count; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *name = g_strdup_printf ("p%03u", i);
      g_autofree char *value = g_strdup_printf ("%s-c%03u", SECRET_MARKER, i);

      if (!ow_secret_store_store (w->store, OW_SECRET_KIND_PROVIDER, name, NULL, value, NULL, &error))
        g_error ("store %s: %s", name, error->message);
    }
  return NULL;
}

static void
test_file_concurrent (void)
{
  g_autofree char *dir = fresh_dir ();
  g_autofree char *path = g_build_filename (dir, "secrets.sealed", NULL);
  /* Two stores on one file stand for two processes: only the file lock
   * keeps one's write from losing the other's. */
  g_autoptr(OwSecretStore) one = ow_secret_store_file_new (path);
  g_autoptr(OwSecretStore) two = ow_secret_store_file_new (path);
  Writer w[4] = { { one, 0, 15 }, { two, 15, 15 }, { one, 30, 15 }, { two, 45, 15 } };
  GThread *threads[4];
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;

  for (guint i = 0; i < 4; i++)
    threads[i] = g_thread_new ("writer", writer_thread, &w[i]);
  for (guint i = 0; i < 4; i++)
    g_thread_join (threads[i]);
  names = ow_secret_store_list (one, OW_SECRET_KIND_PROVIDER, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, 60);
  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *name = g_strdup_printf ("p%03u", i);
      g_autofree char *value = g_strdup_printf ("%s-c%03u", SECRET_MARKER, i);
      g_autoptr(OwSecretText) got = ow_secret_store_lookup (two, OW_SECRET_KIND_PROVIDER, name, NULL, &error);
      g_assert_cmpstr (got, ==, value);
    }
}

/* ---- keyring ------------------------------------------------------------------------ */

static const SecretSchema test_schema = {
  "org.openworker.Secret", SECRET_SCHEMA_NONE,
  { { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING }, { "name", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } },
  0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static void
test_keyring_round_trip (void)
{
  g_autoptr(OwSecretStore) store = keyring_store ();
  g_autofree char *notice = ow_secret_store_describe (store);
  g_autoptr(GError) error = NULL;
  const char *value = SECRET_MARKER "-keyring-direct";
  g_autofree char *seen = NULL;
  GList *items;
  guint n;

  g_assert_cmpstr (ow_secret_store_get_backend (store), ==, "keyring");
  g_assert_nonnull (strstr (notice, "Secret Service"));
  check_round_trip (store, "kr");
  check_async (store, "kr-async");

  /* What a keyring manager shows: our schema, attributes and label. */
  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "kr-label", "OpenWorker: Test key", value,
                                        NULL, &error));
  g_assert_no_error (error);
  seen = secret_password_lookup_sync (&test_schema, NULL, &error, "kind", "provider", "name", "kr-label", NULL);
  g_assert_no_error (error);
  g_assert_cmpstr (seen, ==, value);
  {
    g_autoptr(SecretService) service = secret_service_get_sync (SECRET_SERVICE_NONE, NULL, &error);
    g_autoptr(GHashTable) attrs = secret_attributes_build (&test_schema, "kind", "provider", "name", "kr-label",
                                                           NULL);
    items = secret_service_search_sync (service, &test_schema, attrs, SECRET_SEARCH_ALL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g_list_length (items), ==, 1);
    {
      g_autofree char *label = secret_item_get_label (items->data);
      g_assert_cmpstr (label, ==, "OpenWorker: Test key");
    }
    g_list_free_full (items, g_object_unref);
  }

  /* The keyring keeps it encrypted: no file under HOME/XDG holds it. The
   * walk must have seen the keyring's own files for that to mean anything. */
  n = assert_no_file_holds (SECRET_MARKER);
  g_assert_cmpuint (n, >, 0);
  {
    g_autofree char *login = g_build_filename (g_getenv ("XDG_DATA_HOME"), "keyrings", "login.keyring", NULL);
    g_assert_true (g_file_test (login, G_FILE_TEST_IS_REGULAR));
    g_assert_false (file_holds (login, value));
  }

  g_assert_true (ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, "kr-label", NULL, &error));
  g_free (seen);
  seen = secret_password_lookup_sync (&test_schema, NULL, &error, "kind", "provider", "name", "kr-label", NULL);
  g_assert_no_error (error);
  g_assert_null (seen);
}

static void
test_keyring_default_store (void)
{
  g_autofree char *dir = fresh_dir ();
  g_autoptr(OwPaths) paths = ow_paths_new_under (dir);
  g_autoptr(OwSecretStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *notice = NULL;
  g_autofree char *sealed = g_build_filename (paths->config_dir, "secrets.sealed", NULL);

  ow_secret_libsecret_register ();
  store = ow_secret_store_new_default (paths);
  g_assert_cmpstr (ow_secret_store_get_backend (store), ==, "keyring");
  notice = ow_secret_store_describe (store);
  g_assert_nonnull (strstr (notice, "Secret Service keyring"));
  g_assert_null (strchr (notice, '\n'));
  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "kr-default", NULL,
                                        SECRET_MARKER "-default", NULL, &error));
  g_assert_no_error (error);
  /* It went to the keyring, not to a file. */
  g_assert_false (g_file_test (sealed, G_FILE_TEST_EXISTS));
  {
    g_autoptr(OwSecretStore) direct = keyring_store ();
    g_autoptr(OwSecretText) got = ow_secret_store_lookup (direct, OW_SECRET_KIND_PROVIDER, "kr-default", NULL, &error);
    g_assert_cmpstr (got, ==, SECRET_MARKER "-default");
    g_assert_true (ow_secret_store_delete (direct, OW_SECRET_KIND_PROVIDER, "kr-default", NULL, &error));
  }
  assert_no_file_holds (SECRET_MARKER);

  /* OPENWORKER_SECRET_STORE=file picks the sealed file even here. */
  {
    g_autoptr(OwSecretStore) forced = NULL;
    g_autofree char *forced_notice = NULL;

    g_setenv ("OPENWORKER_SECRET_STORE", "file", TRUE);
    forced = ow_secret_store_new_default (paths);
    g_assert_cmpstr (ow_secret_store_get_backend (forced), ==, "file");
    forced_notice = ow_secret_store_describe (forced);
    g_assert_nonnull (strstr (forced_notice, sealed));
    g_assert_true (ow_secret_store_store (forced, OW_SECRET_KIND_PROVIDER, "f", NULL, SECRET_MARKER "-forced", NULL,
                                          &error));
    g_assert_true (g_file_test (sealed, G_FILE_TEST_EXISTS));
    g_unsetenv ("OPENWORKER_SECRET_STORE");
  }
}

/* In a subprocess: no session bus at all. */
static void
test_keyring_no_bus (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = fresh_dir ();
      g_autoptr(OwPaths) paths = ow_paths_new_under (dir);
      g_autoptr(OwSecretStore) direct = NULL;
      g_autoptr(OwSecretStore) chosen = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(OwSecretText) got = NULL;
      g_autofree char *notice = NULL;

      g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
      g_setenv ("XDG_RUNTIME_DIR", dir, TRUE);   /* no "bus" socket in it */

      g_assert_null (ow_secret_libsecret_probe (&error));
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "no D-Bus session bus"));
      g_clear_error (&error);

      /* The store used directly says what is wrong and what to do. */
      direct = ow_secret_libsecret_new ();
      got = ow_secret_store_lookup (direct, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);
      g_assert_null (got);
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "No D-Bus session bus"));
      g_assert_nonnull (strstr (error->message, "OPENWORKER_SECRET_STORE=file"));
      g_clear_error (&error);

      /* The default store falls back to the sealed file, and says so. */
      ow_secret_libsecret_register ();
      chosen = ow_secret_store_new_default (paths);
      g_assert_cmpstr (ow_secret_store_get_backend (chosen), ==, "file");
      notice = ow_secret_store_describe (chosen);
      g_assert_nonnull (strstr (notice, "sealed file"));
      g_assert_nonnull (strstr (notice, "no D-Bus session bus"));
      g_assert_null (strchr (notice, '\n'));
      g_assert_true (ow_secret_store_store (chosen, OW_SECRET_KIND_PROVIDER, "anthropic", NULL,
                                            SECRET_MARKER "-nobus", NULL, &error));
      g_assert_no_error (error);
      g_clear_object (&chosen);

      /* Forcing the keyring where there is none fails with the reason. */
      g_setenv ("OPENWORKER_SECRET_STORE", "keyring", TRUE);
      chosen = ow_secret_store_new_default (paths);
      got = ow_secret_store_lookup (chosen, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);
      g_assert_null (got);
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "OPENWORKER_SECRET_STORE=keyring"));
      g_clear_error (&error);
      g_clear_object (&chosen);

      /* A value it does not know is refused. */
      g_setenv ("OPENWORKER_SECRET_STORE", "vault", TRUE);
      chosen = ow_secret_store_new_default (paths);
      g_assert_null (ow_secret_store_list (chosen, OW_SECRET_KIND_PROVIDER, NULL, &error));
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID);
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* In a subprocess: a session bus with no Secret Service on it. */
static void
test_keyring_no_service (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GTestDBus) bus = g_test_dbus_new (G_TEST_DBUS_NONE);
      g_autoptr(OwSecretStore) direct = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(OwSecretText) got = NULL;

      g_test_dbus_up (bus);
      g_assert_null (ow_secret_libsecret_probe (&error));
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "no Secret Service answers"));
      g_clear_error (&error);

      direct = ow_secret_libsecret_new ();
      g_assert_false (ow_secret_store_store (direct, OW_SECRET_KIND_PROVIDER, "anthropic", NULL,
                                             SECRET_MARKER "-nosvc", NULL, &error));
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "No Secret Service answers"));
      g_clear_error (&error);
      got = ow_secret_store_lookup (direct, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, &error);
      g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_UNAVAILABLE);
      g_clear_error (&error);
      g_clear_object (&direct);
      g_test_dbus_down (bus);
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* gnome-keyring's own test door: unlocks a collection with its password,
 * without a prompt. Secrets travel in a "plain" session. */
static void
unlock_with_password (const char *collection_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_autoptr(GVariant) opened = NULL;
  g_autoptr(GVariant) output = NULL;
  g_autoptr(GVariant) reply = NULL;
  const char *session;
  GVariant *secret;

  g_assert_no_error (error);
  opened = g_dbus_connection_call_sync (bus, "org.freedesktop.secrets", "/org/freedesktop/secrets",
                                        "org.freedesktop.Secret.Service", "OpenSession",
                                        g_variant_new ("(sv)", "plain", g_variant_new_string ("")),
                                        G_VARIANT_TYPE ("(vo)"), G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (opened, "(v&o)", &output, &session);
  secret = g_variant_new ("(o@ay@ays)", session,
                          g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, "", 0, 1),
                          g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, KEYRING_PASSWORD,
                                                     strlen (KEYRING_PASSWORD), 1),
                          "text/plain");
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.secrets", "/org/freedesktop/secrets",
                                       "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
                                       "UnlockWithMasterPassword", g_variant_new ("(o@(oayays))", collection_path, secret),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);
  g_assert_no_error (error);
}

static void
test_keyring_locked (void)
{
  g_autoptr(OwSecretStore) store = keyring_store ();
  g_autoptr(GError) error = NULL;
  g_autoptr(SecretService) service = NULL;
  g_autoptr(SecretCollection) collection = NULL;
  g_autofree char *collection_path = NULL;
  GList *objects;
  gint64 start;

  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "kr-locked", NULL, SECRET_MARKER "-locked",
                                        NULL, &error));
  g_assert_no_error (error);

  service = secret_service_get_sync (SECRET_SERVICE_LOAD_COLLECTIONS, NULL, &error);
  g_assert_no_error (error);
  collection = secret_collection_for_alias_sync (service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, NULL,
                                                 &error);
  g_assert_no_error (error);
  g_assert_nonnull (collection);
  collection_path = g_strdup (g_dbus_proxy_get_object_path (G_DBUS_PROXY (collection)));
  objects = g_list_prepend (NULL, collection);
  g_assert_cmpint (secret_service_lock_sync (service, objects, NULL, NULL, &error), ==, 1);
  g_list_free (objects);
  g_assert_no_error (error);

  /* Reading: libsecret asks for an unlock prompt, none can be shown (the
   * wrapper leaves no display), and the answer says what to do — quickly,
   * not after a D-Bus timeout. */
  start = g_get_monotonic_time ();
  {
    g_autoptr(OwSecretText) got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "kr-locked", NULL, &error);
    g_assert_null (got);
    g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_LOCKED);
    g_assert_nonnull (strstr (error->message, "is locked"));
    g_assert_nonnull (strstr (error->message, "Unlock it"));
    g_assert_nonnull (strstr (error->message, "OPENWORKER_SECRET_STORE=file"));
    g_clear_error (&error);
  }
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);

  /* Saving: refused the same way. */
  g_assert_false (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "kr-locked-2", NULL,
                                         SECRET_MARKER "-locked-2", NULL, &error));
  g_assert_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_LOCKED);
  g_clear_error (&error);

  /* Listing names needs no unlock. */
  {
    g_auto(GStrv) names = ow_secret_store_list (store, OW_SECRET_KIND_PROVIDER, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (g_strv_contains ((const char *const *) names, "kr-locked"));
  }

  /* Unlocked again, the key is there. */
  unlock_with_password (collection_path);
  {
    g_autoptr(OwSecretText) got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "kr-locked", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (got, ==, SECRET_MARKER "-locked");
  }
  g_assert_true (ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, "kr-locked", NULL, &error));
  g_assert_no_error (error);
}

/* ---- context ------------------------------------------------------------------------ */

typedef struct {
  char          *dir;
  OwModelServer *server;
  char          *url;
} Fixture;

static void
fixture_setup (Fixture *f, const char *script_json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) script = json_from_string (script_json, &error);

  g_assert_no_error (error);
  f->dir = fresh_dir ();
  f->server = ow_model_server_new (script, &error);
  g_assert_no_error (error);
  f->url = ow_model_server_get_url (f->server);
}

static void
fixture_clear (Fixture *f)
{
  g_clear_object (&f->server);
  g_free (f->url);
  g_free (f->dir);
}

static OwContext *
context_new (const char *dir, OwSecretStore *secrets, gboolean isolated)
{
  g_autoptr(OwPaths) paths = ow_paths_new_under (dir);
  g_autoptr(GError) error = NULL;
  OwContextOptions options = { .paths = paths, .secrets = secrets, .isolated = isolated };
  OwContext *ctx = ow_context_new (&options, &error);

  g_assert_no_error (error);
  return ctx;
}

typedef struct {
  gboolean done;
  OwTurn  *turn;
  GError  *error;
} Completion;

static void
on_complete_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Completion *c = data;
  c->turn = ow_provider_complete_finish (OW_PROVIDER (source), res, NULL, NULL, &c->error);
  c->done = TRUE;
}

/* One model call through @provider; returns the text answered. */
static char *
complete_once (OwProvider *provider, const char *model)
{
  g_autoptr(JsonArray) messages = json_array_new ();
  OwModelRequest req;
  Completion c = { 0 };
  char *text;

  json_array_add_object_element (messages, ow_message_json_user ("Say hi."));
  ow_model_request_init (&req);
  req.model = model;
  req.messages = messages;
  req.stream = TRUE;
  ow_provider_complete_async (provider, &req, NULL, NULL, NULL, on_complete_cb, &c);
  ow_test_wait_flag (&c.done);
  g_assert_no_error (c.error);
  text = g_strdup (c.turn->text != NULL ? c.turn->text->str : NULL);
  ow_turn_free (c.turn);
  return text;
}

static const char *
request_header (OwModelServer *server, guint index, const char *name)
{
  JsonArray *requests = ow_model_server_get_requests (server);
  JsonObject *request = json_array_get_object_element (requests, index);
  JsonObject *headers = json_object_get_object_member (request, "headers");

  return json_object_get_string_member_with_default (headers, name, NULL);
}

/* The key saved in the keyring reaches the wire; the model server accepts
 * only that key. */
static void
test_context_stored_key (void)
{
  Fixture f = { 0 };
  const char *key = SECRET_MARKER "-ctx-openai";
  g_autoptr(OwSecretStore) store = keyring_store ();
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *bare = NULL;
  g_autofree char *text = NULL;
  g_autofree char *base = NULL;
  g_autofree char *expected = g_strconcat ("Bearer ", key, NULL);
  const OwProviderEntry *entry = NULL;

  fixture_setup (&f, "{\"keys\": [\"" SECRET_MARKER "-ctx-openai\"], \"turns\": [{\"text\": \"hello\"}]}");
  base = g_strconcat (f.url, "/v1", NULL);
  g_setenv ("OPENAI_BASE_URL", base, TRUE);
  g_unsetenv ("OPENAI_API_KEY");
  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "openai", NULL, key, NULL, &error));
  g_assert_no_error (error);

  ctx = context_new (f.dir, store, FALSE);
  g_assert_true (ow_context_get_secrets (ctx) == store);
  provider = ow_context_create_provider (ctx, "openai:gpt-4o", &bare, &entry, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (entry->id, ==, "openai");
  g_assert_cmpstr (ow_provider_get_api_key (provider), ==, key);
  text = complete_once (provider, bare);
  g_assert_cmpstr (text, ==, "hello");
  g_assert_cmpstr (request_header (f.server, 0, "authorization"), ==, expected);

  g_assert_true (ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, "openai", NULL, &error));
  g_unsetenv ("OPENAI_BASE_URL");
  assert_no_file_holds (SECRET_MARKER);
  fixture_clear (&f);
}

/* The same through the sealed file, with Anthropic's header. */
static void
test_context_stored_key_file (void)
{
  Fixture f = { 0 };
  const char *key = SECRET_MARKER "-ctx-anthropic";
  g_autoptr(OwSecretStore) store = NULL;
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *bare = NULL;
  g_autofree char *text = NULL;
  g_autofree char *sealed = NULL;

  fixture_setup (&f, "{\"keys\": [\"" SECRET_MARKER "-ctx-anthropic\"], \"turns\": [{\"text\": \"hi there\"}]}");
  sealed = g_build_filename (f.dir, "config", "secrets.sealed", NULL);
  store = ow_secret_store_file_new (sealed);
  g_setenv ("ANTHROPIC_BASE_URL", f.url, TRUE);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_assert_true (ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, "anthropic", NULL, key, NULL, &error));

  ctx = context_new (f.dir, store, FALSE);
  provider = ow_context_create_provider (ctx, "anthropic:claude-sonnet-4-6", &bare, NULL, &error);
  g_assert_no_error (error);
  text = complete_once (provider, bare);
  g_assert_cmpstr (text, ==, "hi there");
  g_assert_cmpstr (request_header (f.server, 0, "x-api-key"), ==, key);
  g_unsetenv ("ANTHROPIC_BASE_URL");
  assert_no_file_holds (SECRET_MARKER);
  fixture_clear (&f);
}

static void
test_context_env_wins (void)
{
  Fixture f = { 0 };
  g_autoptr(TestSpyStore) spy = g_object_new (TEST_TYPE_SPY_STORE, NULL);
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *bare = NULL;
  g_autofree char *text = NULL;
  g_autofree char *base = NULL;

  fixture_setup (&f, "{\"keys\": [\"env-key-0123456789\"], \"turns\": [{\"text\": \"from env\"}]}");
  base = g_strconcat (f.url, "/v1", NULL);
  g_setenv ("OPENAI_BASE_URL", base, TRUE);
  g_setenv ("OPENAI_API_KEY", "env-key-0123456789", TRUE);
  g_assert_true (ow_secret_store_store (OW_SECRET_STORE (spy), OW_SECRET_KIND_PROVIDER, "openai", NULL,
                                        SECRET_MARKER "-saved-older", NULL, &error));

  ctx = context_new (f.dir, OW_SECRET_STORE (spy), FALSE);
  g_assert_cmpstr (ow_context_provider_key_env (ctx, ow_provider_catalog_lookup ("openai")), ==, "OPENAI_API_KEY");
  provider = ow_context_create_provider (ctx, "openai:gpt-4o", &bare, NULL, &error);
  g_assert_no_error (error);
  text = complete_once (provider, bare);
  g_assert_cmpstr (text, ==, "from env");
  g_assert_cmpstr (request_header (f.server, 0, "authorization"), ==, "Bearer env-key-0123456789");
  /* The store was not even asked. */
  g_assert_cmpuint (spy->lookups, ==, 0);

  /* An alternative variable counts as the environment too. */
  g_setenv ("GOOGLE_API_KEY", "google-alt-key-01234", TRUE);
  g_assert_cmpstr (ow_context_provider_key_env (ctx, ow_provider_catalog_lookup ("gemini")), ==, "GOOGLE_API_KEY");
  g_unsetenv ("GOOGLE_API_KEY");

  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("OPENAI_BASE_URL");
  fixture_clear (&f);
}

static void
test_context_isolated (void)
{
  g_autofree char *dir = fresh_dir ();
  g_autoptr(TestSpyStore) spy = g_object_new (TEST_TYPE_SPY_STORE, NULL);
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(GError) error = NULL;

  g_unsetenv ("OPENAI_API_KEY");
  g_assert_true (ow_secret_store_store (OW_SECRET_STORE (spy), OW_SECRET_KIND_PROVIDER, "openai", NULL,
                                        SECRET_MARKER "-isolated", NULL, &error));
  ctx = context_new (dir, OW_SECRET_STORE (spy), TRUE);
  g_assert_null (ow_context_get_secrets (ctx));
  provider = ow_context_create_provider (ctx, "openai:gpt-4o", NULL, NULL, &error);
  g_assert_null (provider);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY);
  g_assert_cmpuint (spy->lookups, ==, 0);
}

static void
test_context_store_errors (void)
{
  g_autofree char *dir = fresh_dir ();
  g_autoptr(TestSpyStore) spy = g_object_new (TEST_TYPE_SPY_STORE, NULL);
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(GError) error = NULL;

  g_unsetenv ("OPENAI_API_KEY");
  ctx = context_new (dir, OW_SECRET_STORE (spy), FALSE);

  /* Nothing saved: the message says how to save one. */
  provider = ow_context_create_provider (ctx, "openai:gpt-4o", NULL, NULL, &error);
  g_assert_null (provider);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY);
  g_assert_nonnull (strstr (error->message, "openworker keys set openai"));
  g_assert_nonnull (strstr (error->message, "OPENAI_API_KEY"));
  g_clear_error (&error);
  g_assert_cmpuint (spy->lookups, ==, 1);

  /* A locked keyring is reported as such, not as a missing key. */
  spy->locked = TRUE;
  provider = ow_context_create_provider (ctx, "openai:gpt-4o", NULL, NULL, &error);
  g_assert_null (provider);
  g_assert_nonnull (strstr (error->message, "is locked"));
  g_clear_error (&error);

  /* Keyless local providers are never looked up. */
  provider = ow_context_create_provider (ctx, "ollama:qwen3", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (provider);
  g_assert_cmpuint (spy->lookups, ==, 2);
}

/* ---- redaction ------------------------------------------------------------------------ */

/* Writes a sealed store holding @value without this process ever handling
 * it through a store, so only the lookup can register it. */
static char *
sealed_store_with (const char *dir, const char *value)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_sealed_entry_free);
  g_autofree char *path = g_build_filename (dir, "secrets.sealed", NULL);
  g_autofree char *key_path = g_strconcat (path, ".key", NULL);
  guint8 key_file[OW_SEALED_KEY_FILE_BYTES];
  g_autofree guint8 *sealed = NULL;
  gsize len;

  g_assert_true (ow_sealed_init (NULL));
  memcpy (key_file, ow_sealed_key_magic, OW_SEALED_MAGIC_BYTES);
  memset (key_file + OW_SEALED_MAGIC_BYTES, 0x42, OW_SEALED_KEY_BYTES);
  write_bytes (key_path, key_file, sizeof key_file);
  g_ptr_array_add (entries, ow_sealed_entry_new ("provider", "openai", "", value));
  sealed = ow_sealed_seal (entries, key_file + OW_SEALED_MAGIC_BYTES, &len);
  write_bytes (path, sealed, len);
  return g_steal_pointer (&path);
}

static void
test_redact_on_read (void)
{
  /* Shaped like nothing the pattern scanner knows: only registration can
   * redact it. */
  const char *value = SECRET_MARKER "-plainvalue-on-read";
  g_autofree char *dir = fresh_dir ();
  g_autofree char *path = sealed_store_with (dir, value);
  g_autoptr(OwSecretStore) store = ow_secret_store_file_new (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_strdup_printf ("tool output: %s (end)", value);
  g_autofree char *before = ow_redact (line);
  g_autofree char *after = NULL;
  g_autofree char *after_registered = NULL;
  g_autoptr(OwSecretText) got = NULL;

  g_assert_nonnull (strstr (before, value));   /* the control: not yet known */
  got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "openai", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==, value);
  after = ow_redact (line);
  g_assert_cmpstr (after, ==, "tool output: [redacted] (end)");
  /* The tool-result form: registered values only, shapes untouched. */
  {
    g_autofree char *mixed = g_strdup_printf ("%s and sk-proj-0123456789abcdef", value);
    after_registered = ow_redact_registered (mixed);
    g_assert_cmpstr (after_registered, ==, "[redacted] and sk-proj-0123456789abcdef");
  }
}

static void
test_redact_log_line (void)
{
  if (g_test_subprocess ())
    {
      const char *value = SECRET_MARKER "-plainvalue-in-log";
      g_autofree char *dir = fresh_dir ();
      g_autofree char *path = sealed_store_with (dir, value);
      g_autoptr(OwSecretStore) store = ow_secret_store_file_new (path);
      g_autoptr(OwSecretText) got = NULL;

      ow_redact_install_log_writer ();
      got = ow_secret_store_lookup (store, OW_SECRET_KIND_PROVIDER, "openai", NULL, NULL);
      g_assert_nonnull (got);
      g_message ("calling the model with key %s now", got);
      return;
    }
  g_test_trap_subprocess (NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*calling the model with key [redacted] now*");
  g_test_trap_assert_stderr_unmatched ("*plainvalue-in-log*");
}

/* ---- verify --------------------------------------------------------------------------- */

typedef struct {
  gboolean                done;
  OwProviderVerifyResult *result;
} Verified;

static void
on_verified_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Verified *v = data;
  v->result = ow_provider_verify_key_finish (res);
  v->done = TRUE;
}

static OwProviderVerifyResult *
verify (const char *provider, const char *key, const char *base_url, GCancellable *cancellable)
{
  g_autoptr(OwHttpClient) http = ow_http_client_new ();
  Verified v = { 0 };

  ow_provider_verify_key_async (http, ow_provider_catalog_lookup (provider), key, base_url, cancellable,
                                on_verified_cb, &v);
  g_assert_false (v.done);
  ow_test_wait_flag (&v.done);
  g_assert_nonnull (v.result);
  return v.result;
}

static void
assert_verify (OwProviderVerifyResult *r, OwVerifyStatus status, const char *words)
{
  if (r->status != status)
    g_error ("expected %s, got %s: %s", ow_verify_status_to_string (status), ow_verify_status_to_string (r->status),
             r->error != NULL ? r->error : "(ok)");
  g_assert_cmpint (r->ok, ==, status == OW_VERIFY_OK);
  if (status == OW_VERIFY_OK)
    g_assert_null (r->error);
  else if (strstr (r->error, words) == NULL)
    g_error ("“%s” not in “%s”", words, r->error);
  if (r->error != NULL)
    g_assert_null (strstr (r->error, SECRET_MARKER));
}

static void
test_verify_openai (void)
{
  Fixture f = { 0 };
  g_autofree char *base = NULL;
  const char *good = SECRET_MARKER "-verify-good";

  fixture_setup (&f, "{\"keys\": [\"" SECRET_MARKER "-verify-good\"], \"models\": [\"gpt-4o\"], \"turns\": []}");
  base = g_strconcat (f.url, "/v1", NULL);
  g_unsetenv ("OPENAI_API_KEY");
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("openai", good, base, NULL);
    g_autofree char *bearer = g_strconcat ("Bearer ", good, NULL);
    JsonObject *req = json_array_get_object_element (ow_model_server_get_requests (f.server), 0);

    assert_verify (r, OW_VERIFY_OK, NULL);
    g_assert_cmpuint (r->http_status, ==, 200);
    g_assert_cmpstr (json_object_get_string_member (req, "method"), ==, "GET");
    g_assert_cmpstr (json_object_get_string_member (req, "path"), ==, "/v1/models");
    g_assert_cmpstr (request_header (f.server, 0, "authorization"), ==, bearer);
  }
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("openai", SECRET_MARKER "-verify-wrong", base, NULL);
    assert_verify (r, OW_VERIFY_REFUSED, "The key was refused by OpenAI (HTTP 401)");
  }
  /* No key given and none in the environment. */
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("openai", NULL, base, NULL);
    assert_verify (r, OW_VERIFY_NO_KEY, "Enter an API key for OpenAI");
  }
  /* The environment's key when none is given. */
  g_setenv ("OPENAI_API_KEY", good, TRUE);
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("openai", NULL, base, NULL);
    assert_verify (r, OW_VERIFY_OK, NULL);
  }
  g_unsetenv ("OPENAI_API_KEY");
  g_assert_cmpuint (ow_model_server_get_served (f.server), ==, 0);   /* no model call was made */
  fixture_clear (&f);
}

static void
test_verify_styles (void)
{
  Fixture f = { 0 };
  g_autofree char *gemini_base = NULL;
  g_autofree char *ark_base = NULL;
  g_autofree char *ollama_base = NULL;

  fixture_setup (&f, "{\"keys\": [\"" SECRET_MARKER "-styles\"], \"models\": [\"m\"], \"turns\": ["
                     "{\"text\": \"OK\"}, {\"error\": {\"kind\": \"quota\"}}, {\"error\": {\"kind\": \"rate_limit\"}},"
                     "{\"error\": {\"kind\": \"server\"}}, {\"delay_ms\": 3000, \"text\": \"late\"}]}");
  gemini_base = g_strconcat (f.url, "/v1beta", NULL);
  ark_base = g_strconcat (f.url, "/api/v3", NULL);
  ollama_base = g_strconcat (f.url, "/sub", NULL);

  /* Anthropic: x-api-key and anthropic-version, bare host or /v1. */
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("anthropic", SECRET_MARKER "-styles", f.url, NULL);
    guint last = json_array_get_length (ow_model_server_get_requests (f.server)) - 1;
    assert_verify (r, OW_VERIFY_OK, NULL);
    g_assert_cmpstr (request_header (f.server, last, "x-api-key"), ==, SECRET_MARKER "-styles");
    g_assert_nonnull (request_header (f.server, last, "anthropic-version"));
  }
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("anthropic", "sk-ant-wrong-key-000000", f.url, NULL);
    assert_verify (r, OW_VERIFY_REFUSED, "The key was refused by Claude (Anthropic) (HTTP 401)");
    g_assert_null (strstr (r->error, "sk-ant-wrong"));
  }
  /* Gemini: a bad key is a 400 "API key not valid". */
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("gemini", SECRET_MARKER "-styles", gemini_base, NULL);
    guint last = json_array_get_length (ow_model_server_get_requests (f.server)) - 1;
    assert_verify (r, OW_VERIFY_OK, NULL);
    g_assert_cmpstr (request_header (f.server, last, "x-goog-api-key"), ==, SECRET_MARKER "-styles");
  }
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("gemini", "AIzaWrongKey0123456789abcdef", gemini_base, NULL);
    assert_verify (r, OW_VERIFY_REFUSED, "The key was refused by Gemini");
  }
  /* Ark: the smallest Responses call, which consumes the first turn; then
   * the scripted errors are classified. */
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ark", SECRET_MARKER "-styles", ark_base, NULL);
    assert_verify (r, OW_VERIFY_OK, NULL);
  }
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ark", SECRET_MARKER "-styles", ark_base, NULL);
    assert_verify (r, OW_VERIFY_QUOTA, "out of credits");
  }
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ark", SECRET_MARKER "-styles", ark_base, NULL);
    assert_verify (r, OW_VERIFY_RATE_LIMITED, "limiting requests");
  }
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ark", SECRET_MARKER "-styles", ark_base, NULL);
    assert_verify (r, OW_VERIFY_SERVER, "HTTP 500");
  }
  /* Too slow: the limit (shortened here) applies. */
  ow_provider_verify_set_timeout_for_testing (500);
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ark", SECRET_MARKER "-styles", ark_base, NULL);
    assert_verify (r, OW_VERIFY_TIMEOUT, "did not answer");
  }
  ow_provider_verify_set_timeout_for_testing (0);
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ark", "ark-wrong-key-0000000", ark_base, NULL);
    assert_verify (r, OW_VERIFY_REFUSED, "The key was refused by BytePlus Ark (HTTP 401)");
  }
  /* Ollama needs no key; a base URL that is not Ollama's is a 404. */
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ollama", SECRET_MARKER "-styles", f.url, NULL);
    assert_verify (r, OW_VERIFY_OK, NULL);
  }
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ollama", SECRET_MARKER "-styles", ollama_base, NULL);
    assert_verify (r, OW_VERIFY_NOT_FOUND, "Check the base URL");
  }
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("ollama", NULL, f.url, NULL);
    assert_verify (r, OW_VERIFY_REFUSED, "rejected the request");
  }
  fixture_clear (&f);
}

static void
test_verify_unreachable (void)
{
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  g_autofree char *dead = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  /* A port that was just free: nothing listens there. */
  g_assert_cmpint (bind (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (getsockname (fd, (struct sockaddr *) &addr, &len), ==, 0);
  close (fd);
  dead = g_strdup_printf ("http://127.0.0.1:%u/v1", ntohs (addr.sin_port));
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("openai", SECRET_MARKER "-dead", dead, NULL);
    g_autofree char *where = g_strdup_printf ("127.0.0.1:%u", ntohs (addr.sin_port));
    assert_verify (r, OW_VERIFY_UNREACHABLE, "Couldn't reach OpenAI");
    g_assert_nonnull (strstr (r->error, where));
  }
  /* Cancelled: still an answer, never an error. */
  g_cancellable_cancel (cancellable);
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("openai", SECRET_MARKER "-dead", dead, cancellable);
    assert_verify (r, OW_VERIFY_CANCELLED, "cancelled");
  }
  /* A base URL that is no URL: an answer, not a crash. */
  {
    g_autoptr(OwProviderVerifyResult) r = verify ("openai", SECRET_MARKER "-dead", "not a url at all", NULL);
    g_assert_false (r->ok);
    g_assert_nonnull (r->error);
  }
}

int
main (int argc, char **argv)
{
  /* Not G_TEST_OPTION_ISOLATE_DIRS: the wrapper's HOME is what it greps. */
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("OW_KEYRING_SESSION") == NULL && !g_test_subprocess ())
    {
      g_printerr ("test-secrets runs inside tests/secrets/keyring-session.py (a private D-Bus session with an "
                  "unlocked gnome-keyring); run it with `meson test --suite secrets`.\n");
      return 1;
    }

  g_test_add_func ("/ow/secrets/memory/round-trip", test_memory_round_trip);
  g_test_add_func ("/ow/secrets/file/round-trip", test_file_round_trip);
  g_test_add_func ("/ow/secrets/file/permissions", test_file_permissions);
  g_test_add_func ("/ow/secrets/file/corrupt", test_file_corrupt);
  g_test_add_func ("/ow/secrets/file/missing-key", test_file_missing_key);
  g_test_add_func ("/ow/secrets/file/format", test_file_format);
  g_test_add_func ("/ow/secrets/file/concurrent", test_file_concurrent);
  g_test_add_func ("/ow/secrets/keyring/round-trip", test_keyring_round_trip);
  g_test_add_func ("/ow/secrets/keyring/default-store", test_keyring_default_store);
  g_test_add_func ("/ow/secrets/keyring/no-bus", test_keyring_no_bus);
  g_test_add_func ("/ow/secrets/keyring/no-service", test_keyring_no_service);
  g_test_add_func ("/ow/secrets/keyring/locked", test_keyring_locked);
  g_test_add_func ("/ow/secrets/context/stored-key", test_context_stored_key);
  g_test_add_func ("/ow/secrets/context/stored-key-file", test_context_stored_key_file);
  g_test_add_func ("/ow/secrets/context/env-wins", test_context_env_wins);
  g_test_add_func ("/ow/secrets/context/isolated", test_context_isolated);
  g_test_add_func ("/ow/secrets/context/store-errors", test_context_store_errors);
  g_test_add_func ("/ow/secrets/redact/on-read", test_redact_on_read);
  g_test_add_func ("/ow/secrets/redact/log-line", test_redact_log_line);
  g_test_add_func ("/ow/secrets/verify/openai", test_verify_openai);
  g_test_add_func ("/ow/secrets/verify/styles", test_verify_styles);
  g_test_add_func ("/ow/secrets/verify/unreachable", test_verify_unreachable);
  return g_test_run ();
}
