/* ow-secret-store-file.c: the sealed file store, for machines with no OS
 * secret store.
 *
 * A headless server has no Secret Service to ask, yet its keys must not sit
 * in a plain-text file. They are kept in one file sealed with libsodium's
 * crypto_secretbox (XSalsa20-Poly1305) under a random key kept in a second
 * file. Both are 0600 in the 0700 config folder; that protects against
 * other users of the machine and against the sealed file being copied
 * alone (a backup, a dotfiles repository), not against the account itself
 * — which is what an unlocked keyring offers too.
 *
 * The rules that keep a person's keys safe:
 *  - a file that group or others can read or write, a symbolic link, or a
 *    file another user owns is refused, never "fixed" silently;
 *  - the key file is created once, exclusively (link(2) of a finished temp
 *    file), and never rewritten; a sealed file with no key file is an error,
 *    never a reason to make a new key;
 *  - a damaged or truncated sealed file is reported, and left alone: a
 *    write that cannot read the file first fails rather than replace the
 *    keys it held;
 *  - every write is a whole new file, renamed into place (ow_write_file_atomic),
 *    under an exclusive flock(2) on the key file so two processes cannot
 *    lose each other's changes; readers take a shared lock.
 *
 * The format is in ow-secret-store-private.h; the parser is fuzzed
 * (tests/secrets/fuzz-sealed-file.c).
 */
#define G_LOG_DOMAIN "ow-secret-store"

#include "store/ow-secret-store.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sodium.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ow-error.h"
#include "store/ow-secret-store-private.h"

/* ---- The format -------------------------------------------------------------- */

const guint8 ow_sealed_key_magic[OW_SEALED_MAGIC_BYTES] = { 'O', 'W', 'S', 'K', 'E', 'Y', 0, 1 };
const guint8 ow_sealed_file_magic[OW_SEALED_MAGIC_BYTES] = { 'O', 'W', 'S', 'E', 'A', 'L', 0, 1 };

G_STATIC_ASSERT (OW_SEALED_KEY_BYTES == crypto_secretbox_KEYBYTES);
G_STATIC_ASSERT (OW_SEALED_MIN_BYTES
                 == OW_SEALED_MAGIC_BYTES + crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + 4);

OwSealedEntry *
ow_sealed_entry_new (const char *kind, const char *name, const char *label, const char *value)
{
  OwSealedEntry *e = g_new0 (OwSealedEntry, 1);

  e->kind = g_strdup (kind);
  e->name = g_strdup (name);
  e->label = g_strdup (label != NULL ? label : "");
  e->value = g_strdup (value);
  return e;
}

void
ow_sealed_entry_free (OwSealedEntry *e)
{
  if (e == NULL)
    return;
  g_free (e->kind);
  g_free (e->name);
  g_free (e->label);
  ow_secret_free (e->value);
  g_free (e);
}

void
ow_sealed_wipe_free (gpointer data, gsize len)
{
  if (data == NULL)
    return;
  sodium_memzero (data, len);
  g_free (data);
}

gboolean
ow_sealed_init (GError **error)
{
  /* Thread-safe and idempotent; 1 means it was already initialized. */
  if (sodium_init () < 0)
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED,
                           "libsodium could not start, so the sealed secrets file cannot be opened.");
      return FALSE;
    }
  return TRUE;
}

static guint32
get_u32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | (guint32) p[3];
}

static void
put_u32 (guint8 *p, guint32 v)
{
  p[0] = (guint8) (v >> 24);
  p[1] = (guint8) (v >> 16);
  p[2] = (guint8) (v >> 8);
  p[3] = (guint8) v;
}

/* One length-prefixed field at *@p, advancing it. */
static char *
read_field (const guint8 **p, const guint8 *end, guint index, const char *what, GError **error)
{
  guint32 len;

  if (end - *p < 4)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "entry %u ends before its %s", index + 1, what);
      return NULL;
    }
  len = get_u32 (*p);
  *p += 4;
  if ((guint64) (end - *p) < len)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "the %s of entry %u runs past the end", what, index + 1);
      return NULL;
    }
  if (memchr (*p, '\0', len) != NULL || !g_utf8_validate ((const char *) *p, (gssize) len, NULL))
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "the %s of entry %u is not text", what, index + 1);
      return NULL;
    }
  *p += len;
  return g_strndup ((const char *) *p - len, len);
}

GPtrArray *
ow_sealed_parse_plaintext (const guint8 *data, gsize len, GError **error)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_sealed_entry_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const guint8 *p = data, *end = data + len;
  guint32 count;

  if (len < 4)
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT, "it holds no entry count");
      return NULL;
    }
  count = get_u32 (p);
  p += 4;
  /* Each entry takes at least its four lengths: a count that cannot fit is
   * damage, and must not size an allocation. */
  if (count > (len - 4) / 16)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "it claims %u entries, more than its %" G_GSIZE_FORMAT " bytes can hold", count, len);
      return NULL;
    }
  for (guint i = 0; i < count; i++)
    {
      g_autofree char *kind = NULL, *name = NULL, *label = NULL;
      char *value;
      g_autoptr(GError) bad = NULL;
      OwSealedEntry *e;

      if ((kind = read_field (&p, end, i, "kind", error)) == NULL
          || (name = read_field (&p, end, i, "name", error)) == NULL
          || (label = read_field (&p, end, i, "label", error)) == NULL
          || (value = read_field (&p, end, i, "value", error)) == NULL)
        return NULL;
      e = g_new0 (OwSealedEntry, 1);
      e->kind = g_steal_pointer (&kind);
      e->name = g_steal_pointer (&name);
      e->label = g_steal_pointer (&label);
      e->value = value;
      g_ptr_array_add (entries, e);
      if (!ow_secret_check (e->kind, e->name, e->value, &bad))
        {
          g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT, "entry %u is not valid: %s", i + 1,
                       bad->message);
          return NULL;
        }
      if (!g_hash_table_add (seen, g_strconcat (e->kind, "\n", e->name, NULL)))
        {
          g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT, "entry %u repeats %s “%s”", i + 1,
                       e->kind, e->name);
          return NULL;
        }
    }
  if (p != end)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "%" G_GSIZE_FORMAT " stray bytes follow the last entry", (gsize) (end - p));
      return NULL;
    }
  return g_steal_pointer (&entries);
}

guint8 *
ow_sealed_build_plaintext (GPtrArray *entries, gsize *len_out)
{
  gsize len = 4;
  guint8 *out, *p;

  for (guint i = 0; i < entries->len; i++)
    {
      OwSealedEntry *e = entries->pdata[i];
      len += 16 + strlen (e->kind) + strlen (e->name) + strlen (e->label) + strlen (e->value);
    }
  p = out = g_malloc (len);
  put_u32 (p, entries->len);
  p += 4;
  for (guint i = 0; i < entries->len; i++)
    {
      OwSealedEntry *e = entries->pdata[i];
      const char *fields[] = { e->kind, e->name, e->label, e->value };

      for (guint f = 0; f < G_N_ELEMENTS (fields); f++)
        {
          gsize n = strlen (fields[f]);
          put_u32 (p, (guint32) n);
          memcpy (p + 4, fields[f], n);
          p += 4 + n;
        }
    }
  *len_out = len;
  return out;
}

GPtrArray *
ow_sealed_open (const guint8 *data, gsize len, const guint8 *key, const char *what, GError **error)
{
  const guint8 *nonce = data + OW_SEALED_MAGIC_BYTES;
  const guint8 *box = nonce + crypto_secretbox_NONCEBYTES;
  gsize box_len, plain_len;
  guint8 *plain;
  GPtrArray *entries;
  GError *bad = NULL;

  if (len < OW_SEALED_MAGIC_BYTES - 1 || memcmp (data, ow_sealed_file_magic, OW_SEALED_MAGIC_BYTES - 1) != 0)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "%s is not an OpenWorker sealed secrets file (its first bytes are wrong).", what);
      return NULL;
    }
  if (len >= OW_SEALED_MAGIC_BYTES && data[OW_SEALED_MAGIC_BYTES - 1] != ow_sealed_file_magic[OW_SEALED_MAGIC_BYTES - 1])
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "%s was sealed in format %u, which this OpenWorker does not know; use a newer OpenWorker.",
                   what, data[OW_SEALED_MAGIC_BYTES - 1]);
      return NULL;
    }
  if (len < OW_SEALED_MIN_BYTES)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "%s is truncated: it has %" G_GSIZE_FORMAT " bytes, and a sealed file has at least %d.",
                   what, len, OW_SEALED_MIN_BYTES);
      return NULL;
    }
  if (len > OW_SEALED_MAX_BYTES)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "%s is %" G_GSIZE_FORMAT " bytes, far more than any set of keys; it is not a sealed file "
                   "this OpenWorker wrote.", what, len);
      return NULL;
    }
  box_len = len - OW_SEALED_MAGIC_BYTES - crypto_secretbox_NONCEBYTES;
  plain_len = box_len - crypto_secretbox_MACBYTES;
  plain = g_malloc (plain_len);
  if (crypto_secretbox_open_easy (plain, box, box_len, nonce, key) != 0)
    {
      ow_sealed_wipe_free (plain, plain_len);
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "%s does not open with its key: it is damaged or truncated, or was sealed with another "
                   "key file.", what);
      return NULL;
    }
  entries = ow_sealed_parse_plaintext (plain, plain_len, &bad);
  ow_sealed_wipe_free (plain, plain_len);
  if (entries == NULL)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT, "%s opens, but its contents are damaged: %s.",
                   what, bad->message);
      g_error_free (bad);
    }
  return entries;
}

guint8 *
ow_sealed_seal (GPtrArray *entries, const guint8 *key, gsize *len_out)
{
  gsize plain_len;
  guint8 *plain = ow_sealed_build_plaintext (entries, &plain_len);
  gsize len = OW_SEALED_MAGIC_BYTES + crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + plain_len;
  guint8 *out = g_malloc (len);
  guint8 *nonce = out + OW_SEALED_MAGIC_BYTES;

  memcpy (out, ow_sealed_file_magic, OW_SEALED_MAGIC_BYTES);
  randombytes_buf (nonce, crypto_secretbox_NONCEBYTES);
  crypto_secretbox_easy (nonce + crypto_secretbox_NONCEBYTES, plain, plain_len, nonce, key);
  ow_sealed_wipe_free (plain, plain_len);
  *len_out = len;
  return out;
}

/* ---- Files ------------------------------------------------------------------ */

/* Opens @path for reading if it is a private regular file of ours.
 * Returns the fd; -1 with @missing set when there is no such file; -1 with
 * @error otherwise. */
static int
open_private (const char *path, const char *what, gboolean *missing, GError **error)
{
  struct stat st;
  int fd;

  *missing = FALSE;
  fd = g_open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0);
  if (fd < 0)
    {
      int saved = errno;

      if (saved == ENOENT)
        *missing = TRUE;
      else if (saved == ELOOP)
        g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_PERMISSIONS,
                     "The %s %s is a symbolic link; OpenWorker reads secrets only from a file of its own. "
                     "Replace the link with the file it points to.", what, path);
      else
        g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED, "Could not open the %s %s: %s.", what, path,
                     g_strerror (saved));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_PERMISSIONS,
                   "The %s %s is not a regular file; OpenWorker will not read secrets from it.", what, path);
      close (fd);
      return -1;
    }
  if (st.st_uid != geteuid ())
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_PERMISSIONS,
                   "The %s %s belongs to another user (uid %u); OpenWorker reads secrets only from files of "
                   "the account it runs as.", what, path, (guint) st.st_uid);
      close (fd);
      return -1;
    }
  if ((st.st_mode & 077) != 0)
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_PERMISSIONS,
                   "The %s %s can be read or changed by other users (mode %04o), so OpenWorker will not "
                   "trust it. If the file is yours, run `chmod 600 %s` and try again — and consider the "
                   "keys in it seen.", what, path, (guint) (st.st_mode & 07777), path);
      close (fd);
      return -1;
    }
  return fd;
}

/* Reads @fd to its end, or to @max + 1 bytes (more than a valid file has),
 * into a buffer of its own (ciphertext: nothing to wipe). */
static guint8 *
read_all (int fd, gsize max, gsize *len_out, const char *path, GError **error)
{
  gsize cap = MIN ((gsize) 4096, max + 1), len = 0;
  guint8 *buf = g_malloc (cap);

  while (len < max + 1)
    {
      ssize_t n;

      if (len == cap)
        {
          cap = MIN (cap * 2, max + 1);
          buf = g_realloc (buf, cap);
        }
      n = read (fd, buf + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_free (buf);
          g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED, "Could not read %s: %s.", path,
                       g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      len += (gsize) n;
    }
  *len_out = len;
  return buf;
}

/* Reads at most @cap bytes of @fd into @buf; -1 on a read error. */
static gssize
read_up_to (int fd, guint8 *buf, gsize cap)
{
  gsize len = 0;

  while (len < cap)
    {
      ssize_t n = read (fd, buf + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        break;
      len += (gsize) n;
    }
  return (gssize) len;
}

/* ---- The store ---------------------------------------------------------------- */

#define OW_TYPE_SECRET_STORE_FILE (ow_secret_store_file_get_type ())
G_DECLARE_FINAL_TYPE (OwSecretStoreFile, ow_secret_store_file, OW, SECRET_STORE_FILE, GObject)

struct _OwSecretStoreFile
{
  GObject  parent_instance;

  char    *path;       /* the sealed file */
  char    *key_path;   /* its key: path + ".key" */
  GMutex   lock;       /* one operation at a time in this process (flock covers other processes) */
};

static void ow_secret_store_file_iface_init (OwSecretStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwSecretStoreFile, ow_secret_store_file, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SECRET_STORE, ow_secret_store_file_iface_init))

static void
ow_secret_store_file_finalize (GObject *object)
{
  OwSecretStoreFile *self = OW_SECRET_STORE_FILE (object);

  g_free (self->path);
  g_free (self->key_path);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ow_secret_store_file_parent_class)->finalize (object);
}

static void
ow_secret_store_file_class_init (OwSecretStoreFileClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_secret_store_file_finalize;
}

static void
ow_secret_store_file_init (OwSecretStoreFile *self)
{
  g_mutex_init (&self->lock);
}

/* What a person can do about a damaged sealed file; the key file is never
 * touched on this path, so say so. */
static void
add_recovery_advice (OwSecretStoreFile *self, GError **error)
{
  if (error != NULL && *error != NULL && (*error)->code == OW_SECRET_ERROR_CORRUPT)
    {
      g_autofree char *msg = g_strdup_printf ("%s Nothing was changed, and the key file %s is untouched. Restore "
                                              "%s from a backup, or move it aside and save your keys again "
                                              "(`openworker keys set PROVIDER`).",
                                              (*error)->message, self->key_path, self->path);
      g_free ((*error)->message);
      (*error)->message = g_steal_pointer (&msg);
    }
}

/* Makes the key file: a finished temp file linked into place, so the key
 * file exists whole or not at all, and a racing process's key is never
 * replaced (link fails with EEXIST; then theirs is used). */
static gboolean
create_key_file (OwSecretStoreFile *self, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (self->key_path);
  g_autofree char *tmp = g_strdup_printf ("%s.XXXXXX", self->key_path);
  guint8 contents[OW_SEALED_KEY_FILE_BYTES];
  gsize done = 0;
  int fd, saved;

  if (!ow_paths_ensure_dir (dir, error))
    return FALSE;
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED, "Could not create the key file %s: %s.",
                   self->key_path, g_strerror (saved));
      return FALSE;
    }
  memcpy (contents, ow_sealed_key_magic, OW_SEALED_MAGIC_BYTES);
  randombytes_buf (contents + OW_SEALED_MAGIC_BYTES, OW_SEALED_KEY_BYTES);
  while (done < sizeof contents)
    {
      ssize_t n = write (fd, contents + done, sizeof contents - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += (gsize) n;
    }
  sodium_memzero (contents, sizeof contents);
  if (done < sizeof contents || fsync (fd) != 0)
    {
      saved = errno;
      close (fd);
      g_unlink (tmp);
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED, "Could not write the key file %s: %s.",
                   self->key_path, g_strerror (saved));
      return FALSE;
    }
  close (fd);
  if (link (tmp, self->key_path) != 0 && errno != EEXIST)
    {
      saved = errno;
      g_unlink (tmp);
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED,
                   "Could not create the key file %s: %s (the folder must allow hard links).", self->key_path,
                   g_strerror (saved));
      return FALSE;
    }
  g_unlink (tmp);
  /* The new name must survive a crash before anything is sealed with it. */
  fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
  return TRUE;
}

typedef struct {
  int        key_fd;                     /* holds the flock; -1 when there is no key file yet */
  guint8     key[OW_SEALED_KEY_BYTES];
  GPtrArray *entries;                    /* OwSealedEntry* */
} Opened;

static void
opened_clear (Opened *o)
{
  if (o->key_fd >= 0)
    close (o->key_fd);   /* releases the lock */
  o->key_fd = -1;
  sodium_memzero (o->key, sizeof o->key);
  g_clear_pointer (&o->entries, g_ptr_array_unref);
}

/* Opens the store under a shared (@write FALSE) or exclusive lock and reads
 * every entry. With @write, a missing key file is created; without, a store
 * that does not exist yet reads as empty. */
static gboolean
open_store (OwSecretStoreFile *self, gboolean write, Opened *o, GError **error)
{
  gboolean missing;
  guint8 key_data[OW_SEALED_KEY_FILE_BYTES + 1];
  gssize key_len;
  int fd;

  o->key_fd = -1;
  o->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_sealed_entry_free);
  if (!ow_sealed_init (error))
    return FALSE;

  o->key_fd = open_private (self->key_path, "key file", &missing, error);
  if (o->key_fd < 0 && !missing)
    return FALSE;
  if (missing)
    {
      if (g_file_test (self->path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK))
        {
          g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                       "The sealed secrets file %s exists, but its key file %s is missing, so it cannot be "
                       "opened. Restore the key file from a backup, or move %s aside and save your keys again "
                       "(`openworker keys set PROVIDER`).", self->path, self->key_path, self->path);
          return FALSE;
        }
      if (!write)
        return TRUE;
      if (!create_key_file (self, error))
        return FALSE;
      o->key_fd = open_private (self->key_path, "key file", &missing, error);
      if (o->key_fd < 0)
        {
          if (missing)
            g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED,
                         "The key file %s vanished as it was created; is another program removing it?",
                         self->key_path);
          return FALSE;
        }
    }

  while (flock (o->key_fd, write ? LOCK_EX : LOCK_SH) != 0)
    if (errno != EINTR)
      {
        int saved = errno;
        g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED, "Could not lock %s: %s.", self->key_path,
                     g_strerror (saved));
        return FALSE;
      }

  key_len = read_up_to (o->key_fd, key_data, sizeof key_data);
  if (key_len < 0)
    {
      int saved = errno;
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED, "Could not read the key file %s: %s.",
                   self->key_path, g_strerror (saved));
      return FALSE;
    }
  if (key_len != OW_SEALED_KEY_FILE_BYTES || memcmp (key_data, ow_sealed_key_magic, OW_SEALED_MAGIC_BYTES) != 0)
    {
      sodium_memzero (key_data, sizeof key_data);
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT,
                   "The key file %s is damaged (%s; a key file is %d bytes starting with OWSKEY), so %s cannot "
                   "be opened. Restore the key file from a backup; OpenWorker will not replace it.",
                   self->key_path, key_len > OW_SEALED_KEY_FILE_BYTES ? "it is too long" : "it is too short or "
                   "its header is wrong", OW_SEALED_KEY_FILE_BYTES, self->path);
      return FALSE;
    }
  memcpy (o->key, key_data + OW_SEALED_MAGIC_BYTES, OW_SEALED_KEY_BYTES);
  sodium_memzero (key_data, sizeof key_data);

  fd = open_private (self->path, "sealed secrets file", &missing, error);
  if (fd < 0)
    return missing;
  {
    gsize len = 0;
    guint8 *data = read_all (fd, OW_SEALED_MAX_BYTES, &len, self->path, error);
    GPtrArray *entries;

    close (fd);
    if (data == NULL)
      return FALSE;
    entries = ow_sealed_open (data, len, o->key, self->path, error);
    g_free (data);   /* ciphertext: nothing to wipe */
    if (entries == NULL)
      {
        add_recovery_advice (self, error);
        return FALSE;
      }
    g_ptr_array_unref (o->entries);
    o->entries = entries;
  }
  return TRUE;
}

static gboolean
write_store (OwSecretStoreFile *self, Opened *o, GError **error)
{
  gsize len;
  g_autofree guint8 *data = ow_sealed_seal (o->entries, o->key, &len);
  g_autoptr(GError) local = NULL;

  if (!ow_write_file_atomic (self->path, (const char *) data, (gssize) len, 0600, &local))
    {
      g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_FAILED, "%s. Nothing was changed.", local->message);
      return FALSE;
    }
  return TRUE;
}

static gint
find_entry (Opened *o, const char *kind, const char *name)
{
  for (guint i = 0; i < o->entries->len; i++)
    {
      OwSealedEntry *e = o->entries->pdata[i];
      if (g_str_equal (e->kind, kind) && g_str_equal (e->name, name))
        return (gint) i;
    }
  return -1;
}

static const char *
file_get_backend (OwSecretStore *store)
{
  return "file";
}

static char *
file_describe (OwSecretStore *store)
{
  OwSecretStoreFile *self = OW_SECRET_STORE_FILE (store);

  return g_strdup_printf ("Keys are kept in the sealed file %s (its key is %s).", self->path, self->key_path);
}

static char *
file_lookup (OwSecretStore *store, const char *kind, const char *name, GCancellable *cancellable, GError **error)
{
  OwSecretStoreFile *self = OW_SECRET_STORE_FILE (store);
  Opened o = { 0 };
  char *value = NULL;
  gint i;

  g_mutex_lock (&self->lock);
  if (open_store (self, FALSE, &o, error) && (i = find_entry (&o, kind, name)) >= 0)
    value = g_strdup (((OwSealedEntry *) o.entries->pdata[i])->value);
  opened_clear (&o);
  g_mutex_unlock (&self->lock);
  return value;
}

static gboolean
file_store (OwSecretStore *store, const char *kind, const char *name, const char *label, const char *value,
            GCancellable *cancellable, GError **error)
{
  OwSecretStoreFile *self = OW_SECRET_STORE_FILE (store);
  Opened o = { 0 };
  gboolean ok = FALSE;
  gint i;

  g_mutex_lock (&self->lock);
  if (open_store (self, TRUE, &o, error))
    {
      if ((i = find_entry (&o, kind, name)) >= 0)
        g_ptr_array_remove_index (o.entries, (guint) i);
      g_ptr_array_add (o.entries, ow_sealed_entry_new (kind, name, label, value));
      ok = write_store (self, &o, error);
    }
  opened_clear (&o);
  g_mutex_unlock (&self->lock);
  return ok;
}

static gboolean
file_delete (OwSecretStore *store, const char *kind, const char *name, GCancellable *cancellable, GError **error)
{
  OwSecretStoreFile *self = OW_SECRET_STORE_FILE (store);
  Opened o = { 0 };
  gboolean deleted = FALSE;
  gint i;

  g_mutex_lock (&self->lock);
  /* A store that does not exist has nothing to delete: do not create a key
   * file for it. */
  if (!g_file_test (self->key_path, G_FILE_TEST_EXISTS) && !g_file_test (self->path, G_FILE_TEST_EXISTS))
    ;
  else if (open_store (self, TRUE, &o, error) && (i = find_entry (&o, kind, name)) >= 0)
    {
      g_ptr_array_remove_index (o.entries, (guint) i);
      deleted = write_store (self, &o, error);
    }
  opened_clear (&o);
  g_mutex_unlock (&self->lock);
  return deleted;
}

static char **
file_list (OwSecretStore *store, const char *kind, GCancellable *cancellable, GError **error)
{
  OwSecretStoreFile *self = OW_SECRET_STORE_FILE (store);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  Opened o = { 0 };
  gboolean ok;

  g_mutex_lock (&self->lock);
  ok = open_store (self, FALSE, &o, error);
  for (guint i = 0; ok && i < o.entries->len; i++)
    {
      OwSealedEntry *e = o.entries->pdata[i];
      if (g_str_equal (e->kind, kind))
        g_strv_builder_add (names, e->name);
    }
  opened_clear (&o);
  g_mutex_unlock (&self->lock);
  return ok ? g_strv_builder_end (names) : NULL;
}

static void
ow_secret_store_file_iface_init (OwSecretStoreInterface *iface)
{
  iface->get_backend = file_get_backend;
  iface->describe = file_describe;
  iface->lookup = file_lookup;
  iface->store = file_store;
  iface->delete_secret = file_delete;
  iface->list = file_list;
}

OwSecretStore *
ow_secret_store_file_new (const char *path)
{
  OwSecretStoreFile *self;

  g_return_val_if_fail (path != NULL, NULL);
  self = g_object_new (OW_TYPE_SECRET_STORE_FILE, NULL);
  self->path = g_strdup (path);
  self->key_path = g_strconcat (path, ".key", NULL);
  return OW_SECRET_STORE (self);
}
