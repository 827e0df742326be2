/* fuzz-mcp-frame.c: libFuzzer target for the MCP stdio framing and the
 * JSON-RPC decoder behind it.
 *
 * The input is framed twice, whole and cut into pieces whose sizes come
 * from a generator seeded by the input, and every line is decoded. Beyond
 * memory errors it checks the reader's promises: a line is NUL-terminated
 * at len, holds no "\n", never exceeds the limit; oversize reports keep at
 * most the prefix; the lines, reports and decode outcomes do not depend on
 * where the stream was cut; a decoded message re-encodes and decodes again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/ow-jsonrpc.h"
#include "mcp/ow-mcp-frame.h"
#include "ow-error.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef struct
{
  guint64 hash;
  guint   n_lines;
  guint   n_oversize;
  guint   n_valid;
  gsize   max;
} Digest;

static void
mix (Digest     *d,
     const char *bytes,
     gsize       len,
     guint8      tag)
{
  for (gsize i = 0; i < len; i++)
    d->hash = (d->hash ^ (guchar) bytes[i]) * 0x100000001B3ull;
  d->hash = (d->hash ^ tag) * 0x100000001B3ull;
}

static void
reencode (OwJsonRpcMessage *msg)
{
  g_autofree char *text = NULL;
  g_autoptr(OwJsonRpcMessage) again = NULL;
  JsonObject *params = ow_jsonrpc_message_get_params_object (msg);

  switch (msg->kind)
    {
    case OW_JSONRPC_REQUEST:
    case OW_JSONRPC_NOTIFICATION:
      text = msg->kind == OW_JSONRPC_REQUEST
             ? ow_jsonrpc_encode_request (7, msg->method, params)
             : ow_jsonrpc_encode_notification (msg->method, params);
      break;
    case OW_JSONRPC_RESULT:
      text = ow_jsonrpc_encode_result (msg->id, msg->result);
      break;
    case OW_JSONRPC_ERROR:
      text = ow_jsonrpc_encode_error (msg->id, msg->error_code, msg->error_message, msg->error_data);
      break;
    }
  if (strchr (text, '\n') != NULL)
    abort ();
  again = ow_jsonrpc_message_parse (text, strlen (text), NULL);
  if (again == NULL || again->kind != msg->kind)
    abort ();
}

static void
on_line (const char *line,
         gsize       len,
         gpointer    user_data)
{
  Digest *d = user_data;
  g_autoptr(OwJsonRpcMessage) msg = NULL;
  g_autoptr(GError) error = NULL;

  if (line[len] != '\0' || len > d->max || memchr (line, '\n', len) != NULL || len == 0)
    abort ();
  mix (d, line, len, 0x1e);
  d->n_lines++;
  msg = ow_jsonrpc_message_parse (line, len, &error);
  if ((msg == NULL) == (error == NULL))
    abort ();
  if (msg != NULL)
    {
      g_autofree char *key = ow_jsonrpc_id_key (msg->id);

      d->n_valid++;
      d->hash = (d->hash ^ (0x40 + msg->kind)) * 0x100000001B3ull;
      if (key != NULL)
        mix (d, key, strlen (key), 0x1f);
      reencode (msg);
    }
  else if (error->domain != OW_MCP_ERROR || error->message[0] == '\0')
    abort ();
}

static void
on_oversize (const char *prefix,
             gsize       len,
             gpointer    user_data)
{
  Digest *d = user_data;

  if (len > OW_MCP_FRAME_PREFIX_BYTES || prefix[len] != '\0' || len > d->max)
    abort ();
  mix (d, prefix, len, 0x2e);
  d->n_oversize++;
}

static guint64
next (guint64 *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static void
run (const uint8_t *data,
     size_t         size,
     guint64        seed,
     gsize          max,
     Digest        *d)
{
  OwMcpFrameReader *reader;
  gsize off = 0;
  guint64 spread = seed == 0 ? 0 : ((seed >> 3) % 4 == 0 ? 4096 : 1 + (seed >> 5) % 9);

  memset (d, 0, sizeof *d);
  d->hash = 0xCBF29CE484222325ull;
  d->max = max != 0 ? max : 16u * 1024 * 1024;
  reader = ow_mcp_frame_reader_new (max, on_line, on_oversize, d);
  while (off < size)
    {
      gsize n = spread == 0 ? size - off : 1 + next (&seed) % spread;

      n = MIN (n, size - off);
      ow_mcp_frame_reader_feed (reader, (const char *) data + off, n);
      if (ow_mcp_frame_reader_get_buffered (reader) > d->max)
        abort ();
      off += n;
    }
  ow_mcp_frame_reader_finish (reader);
  ow_mcp_frame_reader_free (reader);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  guint64 seed = 0x9E3779B97F4A7C15ull;
  gsize max;
  Digest whole;
  Digest split;

  for (size_t i = 0; i < size; i++)
    seed = (seed ^ data[i]) * 0x100000001B3ull;
  seed |= 1;
  max = (seed >> 11) % 3 == 0 ? 1 + (seed >> 17) % 200 : 0;

  run (data, size, 0, max, &whole);
  run (data, size, seed, max, &split);
  if (whole.hash != split.hash || whole.n_lines != split.n_lines
      || whole.n_oversize != split.n_oversize || whole.n_valid != split.n_valid)
    abort ();
  return 0;
}
