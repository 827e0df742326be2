/* fuzz-sealed-file.c: libFuzzer target for the sealed secrets file.
 *
 * The input is tried three ways:
 *  1. as a whole sealed file under a fixed key: the header, version and
 *     length checks (almost every input then fails the MAC, as it should);
 *  2. as a plaintext: the entry parser, the part that sees decrypted bytes;
 *  3. sealed under the fixed key first, then opened: the decrypt-and-parse
 *     path a real file takes, which the MAC keeps random inputs out of.
 * Invariants: a parse either fails with OW_SECRET_ERROR_CORRUPT or gives
 * entries that rebuild to exactly the input (the format is canonical), and
 * the sealed form of a valid plaintext opens to the same entries.
 */
#include <sodium.h>
#include <stdint.h>
#include <string.h>

#include "ow-error.h"
#include "store/ow-secret-store-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const guint8 key[OW_SEALED_KEY_BYTES] = {
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
};

static void
check_error (GError *error)
{
  if (error == NULL || !g_error_matches (error, OW_SECRET_ERROR, OW_SECRET_ERROR_CORRUPT))
    __builtin_trap ();
  g_error_free (error);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  GPtrArray *entries, *reopened;

  if (size > 1024 * 1024 || !ow_sealed_init (NULL))
    return 0;

  /* 1. A sealed file. */
  entries = ow_sealed_open (data, size, key, "fuzz", &error);
  if (entries != NULL)
    g_ptr_array_unref (entries);
  else
    check_error (g_steal_pointer (&error));

  /* 2. A plaintext. */
  entries = ow_sealed_parse_plaintext (data, size, &error);
  if (entries == NULL)
    check_error (g_steal_pointer (&error));
  else
    {
      gsize len;
      guint8 *rebuilt = ow_sealed_build_plaintext (entries, &len);

      if (len != size || memcmp (rebuilt, data, size) != 0)
        __builtin_trap ();
      ow_sealed_wipe_free (rebuilt, len);
    }

  /* 3. The plaintext sealed, then opened as a file. */
  {
    gsize len = OW_SEALED_MAGIC_BYTES + crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + size;
    guint8 *file = g_malloc (len);
    guint8 *nonce = file + OW_SEALED_MAGIC_BYTES;

    memcpy (file, ow_sealed_file_magic, OW_SEALED_MAGIC_BYTES);
    memset (nonce, 0x24, crypto_secretbox_NONCEBYTES);
    crypto_secretbox_easy (nonce + crypto_secretbox_NONCEBYTES, data, size, nonce, key);
    reopened = ow_sealed_open (file, len, key, "fuzz", &error);
    if ((reopened == NULL) != (entries == NULL))
      __builtin_trap ();
    if (reopened == NULL)
      check_error (g_steal_pointer (&error));
    else
      {
        if (reopened->len != entries->len)
          __builtin_trap ();
        for (guint i = 0; i < entries->len; i++)
          {
            OwSealedEntry *a = entries->pdata[i], *b = reopened->pdata[i];
            if (strcmp (a->kind, b->kind) != 0 || strcmp (a->name, b->name) != 0
                || strcmp (a->label, b->label) != 0 || strcmp (a->value, b->value) != 0)
              __builtin_trap ();
          }
        g_ptr_array_unref (reopened);
      }
    g_free (file);
  }
  if (entries != NULL)
    g_ptr_array_unref (entries);
  return 0;
}
