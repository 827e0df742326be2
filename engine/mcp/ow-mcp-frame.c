/* ow-mcp-frame.c: newline-delimited framing (see ow-mcp-frame.h). */
#define G_LOG_DOMAIN "ow-mcp"

#include "mcp/ow-mcp-frame.h"

#include <string.h>

struct _OwMcpFrameReader
{
  GByteArray             *line;          /* the unfinished line */
  gsize                   max;           /* longest line delivered */
  gboolean                discarding;    /* inside an oversized line, until its "\n" */
  gboolean                finished;      /* finish() ran; input is ignored */
  OwMcpFrameLineFunc      line_func;
  OwMcpFrameOversizeFunc  oversize_func;
  gpointer                user_data;
};

OwMcpFrameReader *
ow_mcp_frame_reader_new (gsize                  max_line_bytes,
                         OwMcpFrameLineFunc     line_func,
                         OwMcpFrameOversizeFunc oversize_func,
                         gpointer               user_data)
{
  OwMcpFrameReader *reader = g_new0 (OwMcpFrameReader, 1);

  reader->line = g_byte_array_new ();
  reader->max = max_line_bytes != 0 ? max_line_bytes : 16u * 1024 * 1024;
  reader->line_func = line_func;
  reader->oversize_func = oversize_func;
  reader->user_data = user_data;
  return reader;
}

static gboolean
is_blank (const guint8 *data,
          gsize         len)
{
  for (gsize i = 0; i < len; i++)
    if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r')
      return FALSE;
  return TRUE;
}

static void
deliver (OwMcpFrameReader *reader)
{
  gsize len = reader->line->len;

  if (len > 0 && reader->line->data[len - 1] == '\r')
    len--;
  if (len > 0 && !is_blank (reader->line->data, len))
    {
      guint8 nul = 0;

      g_byte_array_set_size (reader->line, len);
      g_byte_array_append (reader->line, &nul, 1);
      reader->line_func ((const char *) reader->line->data, len, reader->user_data);
    }
  g_byte_array_set_size (reader->line, 0);
}

static void
overflow (OwMcpFrameReader *reader)
{
  gsize n = MIN (reader->line->len, OW_MCP_FRAME_PREFIX_BYTES);
  char prefix[OW_MCP_FRAME_PREFIX_BYTES + 1];

  memcpy (prefix, reader->line->data, n);
  prefix[n] = '\0';
  g_byte_array_set_size (reader->line, 0);
  reader->discarding = TRUE;
  if (reader->oversize_func != NULL)
    reader->oversize_func (prefix, n, reader->user_data);
}

void
ow_mcp_frame_reader_feed (OwMcpFrameReader *reader,
                          const char       *bytes,
                          gsize             len)
{
  const char *p = bytes;
  const char *end = bytes + len;

  if (reader->finished)
    return;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      gsize n = (gsize) ((nl != NULL ? nl : end) - p);

      if (!reader->discarding)
        {
          gsize room = reader->max - reader->line->len;

          g_byte_array_append (reader->line, (const guint8 *) p, MIN (n, room));
          if (n > room)
            overflow (reader);
        }
      if (nl == NULL)
        break;
      if (reader->discarding)
        reader->discarding = FALSE;
      else
        deliver (reader);
      p = nl + 1;
    }
}

void
ow_mcp_frame_reader_finish (OwMcpFrameReader *reader)
{
  if (reader->finished)
    return;
  if (!reader->discarding && reader->line->len > 0)
    deliver (reader);
  reader->finished = TRUE;
}

gsize
ow_mcp_frame_reader_get_buffered (OwMcpFrameReader *reader)
{
  return reader->line->len;
}

void
ow_mcp_frame_reader_free (OwMcpFrameReader *reader)
{
  if (reader == NULL)
    return;
  g_byte_array_unref (reader->line);
  g_free (reader);
}
