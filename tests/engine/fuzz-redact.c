/* fuzz-redact.c: redaction of whole texts and of streams cut anywhere, and
 * the reading of a URL's password. */
#include <stdint.h>
#include <string.h>

#include "ow-redact.h"
#include "ow-secret-env.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Fixed, so the table does not grow with every input; chosen to have
 * prefixes that occur in ordinary text and characters that encode. */
static const char *const secrets[] = { "fuzz-secret-0123456789", "p@ss/w:rd+=xyz!", "aaaaaaaaab" };

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;
  g_autofree char *whole = NULL;
  g_autofree char *shapes = NULL;
  g_autofree char *password = NULL;
  g_autoptr(OwRedactStream) stream = ow_redact_stream_new ();
  GString *streamed = g_string_new (NULL);
  guint seed;
  gsize at = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (secrets); i++)
    ow_redact_register_secret (secrets[i]);
  if (size < 1)
    return 0;
  /* The first byte picks where the stream is cut; the rest is the text. */
  seed = data[0];
  text = g_strndup ((const char *) data + 1, size - 1);
  size = strlen (text);

  whole = ow_redact_registered (text);
  shapes = ow_redact (text);
  while (at < size)
    {
      gsize step, n;
      g_autofree char *ready = NULL;

      /* Computed apart: MIN evaluates its arguments twice. */
      seed = seed * 1103515245u + 12345u;
      step = 1 + seed % 13;
      n = MIN (size - at, step);
      ready = ow_redact_stream_feed (stream, text + at, n);

      g_string_append (streamed, ready);
      at += n;
    }
  {
    g_autofree char *rest = ow_redact_stream_flush (stream);
    g_string_append (streamed, rest);
  }
  /* However the text was cut, no registered value survives it. */
  for (gsize i = 0; i < G_N_ELEMENTS (secrets); i++)
    if (strstr (streamed->str, secrets[i]) != NULL || strstr (whole, secrets[i]) != NULL
        || strstr (shapes, secrets[i]) != NULL)
      __builtin_trap ();

  password = ow_secret_env_url_password (text);
  if (password != NULL && strstr (text, password) == NULL)
    __builtin_trap ();
  g_string_free (streamed, TRUE);
  return 0;
}
