/* fuzz-sse.c: libFuzzer target for the SSE parser.
 *
 * The input is parsed twice: whole, and cut into pieces whose sizes come
 * from a generator seeded by the input itself (so every input is also its
 * own choice of cut points, and a crash reproduces from the file alone).
 * Beyond memory errors, which the sanitizers catch, the target checks the
 * parser's promises: every event's data is NUL-terminated at data_len, it
 * never exceeds the limit, and the events and final status do not depend on
 * where the stream was cut.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/ow-sse-parser.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef struct
{
  guint64 hash;      /* FNV-1a over every event's name and data */
  guint   n_events;  /* events delivered */
  gsize   max;       /* the parser's limit, to check data_len against */
  guint   stop_at;   /* return FALSE on this event (1-based); 0 = never */
} Digest;

static void
mix (guint64    *hash,
     const char *bytes,
     gsize       len)
{
  for (gsize i = 0; i < len; i++)
    *hash = (*hash ^ (guchar) bytes[i]) * 0x100000001B3ull;
}

static gboolean
on_event (const char *event,
          const char *data,
          gsize       data_len,
          gpointer    user_data)
{
  Digest *d = user_data;

  if (data[data_len] != '\0' || data_len > d->max)
    abort ();
  mix (&d->hash, event, strlen (event) + 1);
  mix (&d->hash, data, data_len);
  mix (&d->hash, "\x1e", 1);
  d->n_events++;
  return d->stop_at == 0 || d->n_events < d->stop_at;
}

static guint64
next (guint64 *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static OwParseStatus
run (const uint8_t *data,
     size_t         size,
     guint64        seed,
     gsize          max,
     guint          stop_at,
     Digest        *d)
{
  OwSseParser *parser = ow_sse_parser_new (on_event, d, max);
  OwParseStatus status = OW_PARSE_OK;
  gsize off = 0;
  /* Mostly tiny pieces (they hit every boundary case), sometimes big ones. */
  guint64 spread = seed == 0 ? 0 : ((seed >> 3) % 4 == 0 ? 4096 : 1 + (seed >> 5) % 9);

  d->hash = 0xCBF29CE484222325ull;
  d->n_events = 0;
  d->max = max != 0 ? max : 16u * 1024 * 1024;
  d->stop_at = stop_at;

  while (off < size)
    {
      gsize n = spread == 0 ? size - off : 1 + next (&seed) % spread;

      n = MIN (n, size - off);
      status = ow_sse_parser_feed (parser, (const char *) data + off, n);
      off += n;
      if (status != OW_PARSE_OK)
        break;
    }
  if (status == OW_PARSE_OK)
    status = ow_sse_parser_finish (parser);
  else if (ow_sse_parser_finish (parser) != status)
    abort (); /* STOPPED and TOO_LARGE stick */

  ow_sse_parser_free (parser);
  return status;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  guint64 seed = 0x9E3779B97F4A7C15ull;
  gsize max;
  guint stop_at;
  Digest whole;
  Digest split;
  OwParseStatus whole_status;
  OwParseStatus split_status;

  for (size_t i = 0; i < size; i++)
    seed = (seed ^ data[i]) * 0x100000001B3ull;
  seed |= 1;

  /* Sometimes a small limit, so TOO_LARGE is exercised; sometimes a stop. */
  max = (seed >> 11) % 3 == 0 ? 1 + (seed >> 17) % 200 : 0;
  stop_at = (seed >> 23) % 5 == 0 ? 1 + (guint) ((seed >> 29) % 8) : 0;

  whole_status = run (data, size, 0, max, stop_at, &whole);
  split_status = run (data, size, seed, max, stop_at, &split);

  if (whole_status != split_status || whole.n_events != split.n_events || whole.hash != split.hash)
    abort ();
  return 0;
}
