/* ow-secret-store-private.h: the sealed file format, for the file store,
 * its tests and its fuzz target.
 *
 * Key file (40 bytes):    "OWSKEY" 0x00 0x01 | 32 key bytes
 * Sealed file:            "OWSEAL" 0x00 0x01 | 24-byte nonce | crypto_secretbox
 *                         (16-byte MAC + the plaintext)
 * Plaintext:              u32 count | count × (kind, name, label, value),
 *                         each field a u32 length and that many bytes of
 *                         UTF-8 without NUL; integers big-endian; nothing
 *                         may follow the last entry.
 *
 * The last header byte is the format version. A new nonce is drawn for
 * every write. Entries are unique by (kind, name).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define OW_SEALED_KEY_BYTES   32
#define OW_SEALED_MAGIC_BYTES 8
#define OW_SEALED_KEY_FILE_BYTES (OW_SEALED_MAGIC_BYTES + OW_SEALED_KEY_BYTES)
/* Header + nonce + MAC + an entry count. */
#define OW_SEALED_MIN_BYTES   (OW_SEALED_MAGIC_BYTES + 24 + 16 + 4)
/* Far beyond any real set of keys; a bigger file is damage, not data. */
#define OW_SEALED_MAX_BYTES   (16 * 1024 * 1024)
#define OW_SECRET_MAX_VALUE   (64 * 1024)

extern const guint8 ow_sealed_key_magic[OW_SEALED_MAGIC_BYTES];
extern const guint8 ow_sealed_file_magic[OW_SEALED_MAGIC_BYTES];

typedef struct {
  char *kind;
  char *name;
  char *label;
  char *value;   /* wiped when freed */
} OwSealedEntry;

OwSealedEntry *ow_sealed_entry_new  (const char *kind, const char *name, const char *label, const char *value);
void           ow_sealed_entry_free (OwSealedEntry *entry);

/* Initializes libsodium; FALSE with an error when it cannot be. */
gboolean    ow_sealed_init             (GError **error);

/* Parses a decrypted plaintext into OwSealedEntry*. Fails with
 * OW_SECRET_ERROR_CORRUPT and what is wrong (no file name). */
GPtrArray  *ow_sealed_parse_plaintext  (const guint8 *data, gsize len, GError **error);
/* The plaintext for @entries; wipe it with ow_sealed_wipe_free(). */
guint8     *ow_sealed_build_plaintext  (GPtrArray *entries, gsize *len);

/* Opens a whole sealed file with @key and parses it. Fails with
 * OW_SECRET_ERROR_CORRUPT: wrong header, newer version, truncated, does not
 * open with the key, damaged contents. @what names the file in messages. */
GPtrArray  *ow_sealed_open             (const guint8 *data, gsize len, const guint8 *key, const char *what,
                                        GError **error);
/* Seals @entries under @key with a fresh nonce. */
guint8     *ow_sealed_seal             (GPtrArray *entries, const guint8 *key, gsize *len);

/* Wipes @len bytes of @data and frees it. */
void        ow_sealed_wipe_free        (gpointer data, gsize len);

G_END_DECLS
