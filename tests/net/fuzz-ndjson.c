/* fuzz-ndjson.c: libFuzzer target for the NDJSON line splitter.
 *
 * The input is split twice: whole, and cut into pieces whose sizes come
 * from a generator seeded by the input itself. Beyond memory errors, the
 * target checks the splitter's promises: each line is NUL-terminated at
 * len, holds no "\n", never exceeds the limit, and the lines and final
 * status do not depend on where the stream was cut.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/ow-ndjson-parser.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef struct
{
  guint64 hash;     /* FNV-1a over every line */
  guint   n_lines;  /* lines delivered */
  gsize   max;      /* the parser's limit, to check len against */
  guint   stop_at;  /* return FALSE on this line (1-based); 0 = never */
} Digest;

static gboolean
on_line (const char *line,
         gsize       len,
         gpointer    user_data)
{
  Digest *d = user_data;

  if (line[len] != '\0' || len > d->max || memchr (line, '\n', len) != NULL || len == 0)
    abort ();
  for (gsize i = 0; i < len; i++)
    d->hash = (d->hash ^ (guchar) line[i]) * 0x100000001B3ull;
  d->hash = (d->hash ^ 0x1e) * 0x100000001B3ull;
  d->n_lines++;
  return d->stop_at == 0 || d->n_lines < d->stop_at;
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
  OwNdjsonParser *parser = ow_ndjson_parser_new (on_line, d, max);
  OwParseStatus status = OW_PARSE_OK;
  gsize off = 0;
  guint64 spread = seed == 0 ? 0 : ((seed >> 3) % 4 == 0 ? 4096 : 1 + (seed >> 5) % 9);

  d->hash = 0xCBF29CE484222325ull;
  d->n_lines = 0;
  d->max = max != 0 ? max : 16u * 1024 * 1024;
  d->stop_at = stop_at;

  while (off < size)
    {
      gsize n = spread == 0 ? size - off : 1 + next (&seed) % spread;

      n = MIN (n, size - off);
      status = ow_ndjson_parser_feed (parser, (const char *) data + off, n);
      off += n;
      if (status != OW_PARSE_OK)
        break;
    }
  if (status == OW_PARSE_OK)
    status = ow_ndjson_parser_finish (parser);
  else if (ow_ndjson_parser_finish (parser) != status)
    abort ();

  ow_ndjson_parser_free (parser);
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

  max = (seed >> 11) % 3 == 0 ? 1 + (seed >> 17) % 200 : 0;
  stop_at = (seed >> 23) % 5 == 0 ? 1 + (guint) ((seed >> 29) % 8) : 0;

  whole_status = run (data, size, 0, max, stop_at, &whole);
  split_status = run (data, size, seed, max, stop_at, &split);

  if (whole_status != split_status || whole.n_lines != split.n_lines || whole.hash != split.hash)
    abort ();
  return 0;
}
