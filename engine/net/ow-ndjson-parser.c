/* ow-ndjson-parser.c: the incremental newline-delimited JSON splitter.
 *
 * Ollama's native API streams one JSON object per line (protocols.md §5.1).
 * This splits the byte stream into lines and hands each non-blank one over
 * whole; it does not parse JSON, which is the provider's business. Only
 * "\n" ends a line (a "\r" before it is dropped); a lone "\r" is ordinary
 * content, as NDJSON defines. A line counts as blank when it holds nothing
 * but JSON whitespace (space, tab, CR): servers send such keep-alives.
 *
 * Each line is copied once into a reusable buffer, because the callback is
 * promised a NUL-terminated string and the caller's bytes are not. Memory is
 * bounded by the line limit; the limit is applied so that where the stream
 * was cut into pieces never changes what is delivered or returned.
 */
#define G_LOG_DOMAIN "ow-net"

#include "net/ow-ndjson-parser.h"

#include <string.h>

/* 16 MiB: far above any real line, low enough to stop a runaway stream. */
#define DEFAULT_MAX_LINE (16u * 1024 * 1024)
/* After an unusually long line, a buffer above this size is given back. */
#define SHRINK_ABOVE (1024u * 1024)

struct _OwNdjsonParser
{
  OwNdjsonLineFunc func;      /* receives each non-blank line */
  gpointer         user_data; /* passed to @func */
  gsize            max_line;  /* longest line accepted, line end excluded */
  GString         *line;      /* the line being gathered */
  gboolean         finished;  /* finish() was called: further input is ignored */
  OwParseStatus    status;    /* OK, or sticky once STOPPED or TOO_LARGE */
};

OwNdjsonParser *
ow_ndjson_parser_new (OwNdjsonLineFunc func,
                      gpointer         user_data,
                      gsize            max_line_bytes)
{
  OwNdjsonParser *parser;

  g_return_val_if_fail (func != NULL, NULL);

  parser = g_new0 (OwNdjsonParser, 1);
  parser->func = func;
  parser->user_data = user_data;
  parser->max_line = max_line_bytes > 0 ? max_line_bytes : DEFAULT_MAX_LINE;
  parser->line = g_string_sized_new (1024);
  parser->status = OW_PARSE_OK;

  return parser;
}

void
ow_ndjson_parser_free (OwNdjsonParser *parser)
{
  if (parser == NULL)
    return;

  g_string_free (parser->line, TRUE);
  g_free (parser);
}

static gboolean
is_blank (const char *s,
          gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      return FALSE;
  return TRUE;
}

/* Delivers the gathered line (its "\n" already gone) and empties the buffer. */
static OwParseStatus
emit_line (OwNdjsonParser *parser)
{
  GString *line = parser->line;

  if (line->len > 0 && line->str[line->len - 1] == '\r')
    g_string_truncate (line, line->len - 1);

  if (line->len > parser->max_line)
    parser->status = OW_PARSE_TOO_LARGE;
  else if (!is_blank (line->str, line->len)
           && !parser->func (line->str, line->len, parser->user_data))
    parser->status = OW_PARSE_STOPPED;

  if (line->allocated_len > SHRINK_ABOVE)
    {
      g_string_free (line, TRUE);
      parser->line = g_string_sized_new (1024);
    }
  else
    g_string_truncate (line, 0);

  return parser->status;
}

/* Adds a piece of the current line. Until the line ends we cannot know
 * whether its last byte is the "\r" of a "\r\n", so one byte beyond the
 * limit is tolerated here and emit_line() applies the exact limit. */
static gboolean
gather (OwNdjsonParser *parser,
        const char     *s,
        gsize           len)
{
  if (parser->line->len + len > parser->max_line + 1)
    {
      parser->status = OW_PARSE_TOO_LARGE;
      return FALSE;
    }
  g_string_append_len (parser->line, s, (gssize) len);
  return TRUE;
}

OwParseStatus
ow_ndjson_parser_feed (OwNdjsonParser *parser,
                       const char     *bytes,
                       gsize           len)
{
  const char *s = bytes;
  const char *end = bytes + len;

  g_return_val_if_fail (parser != NULL, OW_PARSE_OK);
  g_return_val_if_fail (bytes != NULL || len == 0, parser->status);

  if (parser->status != OW_PARSE_OK || parser->finished)
    return parser->status;

  while (s < end)
    {
      const char *nl = memchr (s, '\n', (gsize) (end - s));

      if (nl == NULL)
        {
          gather (parser, s, (gsize) (end - s));
          return parser->status;
        }
      if (!gather (parser, s, (gsize) (nl - s)))
        return parser->status;
      if (emit_line (parser) != OW_PARSE_OK)
        return parser->status;
      s = nl + 1;
    }

  return parser->status;
}

OwParseStatus
ow_ndjson_parser_finish (OwNdjsonParser *parser)
{
  g_return_val_if_fail (parser != NULL, OW_PARSE_OK);

  if (parser->status != OW_PARSE_OK || parser->finished)
    return parser->status;
  parser->finished = TRUE;

  if (parser->line->len > 0)
    return emit_line (parser);
  return parser->status;
}
