/* ow-sse-parser.c: the incremental Server-Sent Events parser.
 *
 * Every streaming model provider except Ollama speaks SSE (protocols.md
 * §A.1), and the bytes reach us in whatever pieces TCP and libcurl chose:
 * a line, a UTF-8 code point or a "\r\n" pair can be cut anywhere. The
 * parser therefore keeps only what a later piece may still complete: the
 * start of an unfinished line, the data and name of the event being built,
 * and one bit saying the last piece ended in "\r" (whose "\n" may follow).
 *
 * Lines complete inside one piece are read in place, without copying; a
 * line cut by a piece boundary is gathered in @line first. Field handling
 * follows the WHATWG event-stream rules: a blank line dispatches; "data"
 * lines are joined with "\n"; one space after the colon is dropped; a line
 * without a colon is a field with an empty value; lines starting with ':'
 * are comments, skipped without being stored (so keep-alive padding of any
 * length costs nothing); a leading UTF-8 BOM is dropped. As in the WHATWG
 * rules, an event with no "data" line at all is not dispatched. Unlike
 * them, end of stream dispatches the event being built (ow-sse-parser.h).
 *
 * Memory is bounded by the caller's limit: a line longer than the limit
 * (plus room for a field name) or an event whose data exceeds it ends the
 * parse with OW_PARSE_TOO_LARGE. Each limit is checked at the same logical
 * point whatever the piece boundaries, so the events delivered, and the
 * status returned, never depend on how the stream was split; the fuzz target
 * checks exactly that.
 */
#define G_LOG_DOMAIN "ow-net"

#include "net/ow-sse-parser.h"

#include <string.h>

/* 16 MiB: far above any real event, low enough to stop a runaway stream. */
#define DEFAULT_MAX_EVENT (16u * 1024 * 1024)
/* A line may exceed the data limit by this much: its field name and colon. */
#define LINE_SLACK 64
/* After an unusually large event, buffers above this size are given back. */
#define SHRINK_ABOVE (1024u * 1024)

static const char bom[3] = { '\xEF', '\xBB', '\xBF' };

struct _OwSseParser
{
  OwSseEventFunc func;        /* receives each dispatched event */
  gpointer       user_data;   /* passed to @func */
  gsize          max_event;   /* largest data of one event, in bytes */
  gsize          max_line;    /* largest line, terminator excluded */

  GString       *line;        /* the start of a line cut by a piece boundary */
  GString       *data;        /* the event's data lines, joined with "\n" */
  GString       *event;       /* the event's name; "" when it had no event: line */
  GString       *last_id;     /* the last "id:" value; kept per spec, unused */
  gint64         retry_ms;    /* the last valid "retry:" value, or -1 */

  guint          bom_seen;    /* bytes of a leading BOM matched so far (0–2) */
  guint          bom_done : 1;   /* past the point where a BOM may start the stream */
  guint          has_data : 1;   /* a data: line was seen ("data:" alone gives "") */
  guint          after_cr : 1;   /* the previous piece ended with a "\r" line end */
  guint          in_comment : 1; /* inside a comment cut by a piece boundary */
  guint          finished : 1;   /* finish() was called: further input is ignored */
  OwParseStatus  status;      /* OK, or sticky once STOPPED or TOO_LARGE */
};

OwSseParser *
ow_sse_parser_new (OwSseEventFunc func,
                   gpointer       user_data,
                   gsize          max_event_bytes)
{
  OwSseParser *parser;

  g_return_val_if_fail (func != NULL, NULL);

  parser = g_new0 (OwSseParser, 1);
  parser->func = func;
  parser->user_data = user_data;
  parser->max_event = max_event_bytes > 0 ? max_event_bytes : DEFAULT_MAX_EVENT;
  parser->max_line = parser->max_event + LINE_SLACK;
  parser->line = g_string_sized_new (256);
  parser->data = g_string_sized_new (1024);
  parser->event = g_string_sized_new (32);
  parser->last_id = g_string_new (NULL);
  parser->retry_ms = -1;
  parser->status = OW_PARSE_OK;

  return parser;
}

void
ow_sse_parser_free (OwSseParser *parser)
{
  if (parser == NULL)
    return;

  g_string_free (parser->line, TRUE);
  g_string_free (parser->data, TRUE);
  g_string_free (parser->event, TRUE);
  g_string_free (parser->last_id, TRUE);
  g_free (parser);
}

/* Empties @str, giving its memory back when an outsized event grew it, so a
 * single huge event does not pin megabytes for the rest of a long stream. */
static void
reset_buffer (GString **str)
{
  if ((*str)->allocated_len > SHRINK_ABOVE)
    {
      g_string_free (*str, TRUE);
      *str = g_string_sized_new (1024);
    }
  else
    g_string_truncate (*str, 0);
}

static OwParseStatus
fail_too_large (OwSseParser *parser)
{
  parser->status = OW_PARSE_TOO_LARGE;
  return parser->status;
}

static OwParseStatus
dispatch (OwSseParser *parser)
{
  gboolean keep_going;

  /* WHATWG: an event that never had a data line is dropped, but it still
   * ends the event, so its name does not leak into the next one. */
  if (!parser->has_data)
    {
      g_string_truncate (parser->event, 0);
      return OW_PARSE_OK;
    }

  keep_going = parser->func (parser->event->str, parser->data->str, parser->data->len,
                             parser->user_data);

  parser->has_data = FALSE;
  reset_buffer (&parser->data);
  g_string_truncate (parser->event, 0);

  if (!keep_going)
    parser->status = OW_PARSE_STOPPED;
  return parser->status;
}

static gboolean
field_is (const char *name, gsize name_len, const char *field)
{
  gsize field_len = strlen (field);

  return name_len == field_len && memcmp (name, field, field_len) == 0;
}

/* Acts on one complete line, its terminator already removed. */
static OwParseStatus
process_line (OwSseParser *parser,
              const char  *line,
              gsize        len)
{
  const char *colon;
  const char *value;
  gsize name_len;
  gsize value_len;

  if (len == 0)
    return dispatch (parser);
  if (line[0] == ':')
    return OW_PARSE_OK;
  if (len > parser->max_line)
    return fail_too_large (parser);

  colon = memchr (line, ':', len);
  if (colon != NULL)
    {
      name_len = (gsize) (colon - line);
      value = colon + 1;
      value_len = len - name_len - 1;
      if (value_len > 0 && value[0] == ' ')
        {
          value++;
          value_len--;
        }
    }
  else
    {
      name_len = len;
      value = "";
      value_len = 0;
    }

  if (field_is (line, name_len, "data"))
    {
      gsize joined = parser->data->len + (parser->has_data ? 1 : 0) + value_len;

      if (joined > parser->max_event)
        return fail_too_large (parser);
      if (parser->has_data)
        g_string_append_c (parser->data, '\n');
      g_string_append_len (parser->data, value, (gssize) value_len);
      parser->has_data = TRUE;
    }
  else if (field_is (line, name_len, "event"))
    {
      g_string_truncate (parser->event, 0);
      g_string_append_len (parser->event, value, (gssize) value_len);
    }
  else if (field_is (line, name_len, "id"))
    {
      /* WHATWG: an id containing NUL is ignored. */
      if (memchr (value, '\0', value_len) == NULL)
        {
          g_string_truncate (parser->last_id, 0);
          g_string_append_len (parser->last_id, value, (gssize) value_len);
        }
    }
  else if (field_is (line, name_len, "retry"))
    {
      gint64 ms = 0;
      gsize i;

      for (i = 0; i < value_len && g_ascii_isdigit (value[i]) && ms < G_MAXINT32; i++)
        ms = ms * 10 + (value[i] - '0');
      if (value_len > 0 && i == value_len)
        parser->retry_ms = ms;
    }
  /* Any other field is ignored, as the spec says. */

  return OW_PARSE_OK;
}

/* The first "\r" or "\n" in [s, end), or NULL. Two memchr() calls beat a
 * byte loop: they are vectorised and lines are usually much longer than two
 * bytes. */
static const char *
find_eol (const char *s,
          const char *end)
{
  const char *lf = memchr (s, '\n', (gsize) (end - s));
  const char *cr = memchr (s, '\r', (gsize) ((lf != NULL ? lf : end) - s));

  return cr != NULL ? cr : lf;
}

/* Steps over the line end at @eol. A "\r" that ends the piece may be the
 * first half of "\r\n": remember it, and drop a "\n" that starts the next. */
static const char *
skip_eol (OwSseParser *parser,
          const char  *eol,
          const char  *end)
{
  if (*eol == '\n')
    return eol + 1;
  if (eol + 1 == end)
    {
      parser->after_cr = TRUE;
      return end;
    }
  return eol[1] == '\n' ? eol + 2 : eol + 1;
}

static OwParseStatus
process_bytes (OwSseParser *parser,
               const char  *s,
               const char  *end)
{
  if (parser->after_cr && s < end)
    {
      if (*s == '\n')
        s++;
      parser->after_cr = FALSE;
    }

  while (s < end)
    {
      const char *eol = find_eol (s, end);
      OwParseStatus status;

      if (parser->in_comment)
        {
          if (eol == NULL)
            return OW_PARSE_OK;
          parser->in_comment = FALSE;
          s = skip_eol (parser, eol, end);
          continue;
        }

      if (eol == NULL)
        {
          /* An unfinished line: keep it for the next piece. */
          gsize piece = (gsize) (end - s);

          if (parser->line->len == 0 && *s == ':')
            {
              parser->in_comment = TRUE;
              return OW_PARSE_OK;
            }
          if (parser->line->len + piece > parser->max_line)
            return fail_too_large (parser);
          g_string_append_len (parser->line, s, (gssize) piece);
          return OW_PARSE_OK;
        }

      if (parser->line->len > 0)
        {
          gsize piece = (gsize) (eol - s);

          if (parser->line->len + piece > parser->max_line)
            return fail_too_large (parser);
          g_string_append_len (parser->line, s, (gssize) piece);
          status = process_line (parser, parser->line->str, parser->line->len);
          reset_buffer (&parser->line);
        }
      else
        status = process_line (parser, s, (gsize) (eol - s));

      if (status != OW_PARSE_OK)
        return status;
      s = skip_eol (parser, eol, end);
    }

  return OW_PARSE_OK;
}

/* Consumes a leading BOM, which may itself arrive in pieces. Returns where
 * ordinary input starts, or NULL when the whole piece was (part of) a BOM. */
static const char *
skip_bom (OwSseParser *parser,
          const char  *s,
          const char  *end,
          OwParseStatus *status)
{
  *status = OW_PARSE_OK;

  while (s < end && parser->bom_seen < sizeof bom)
    {
      if (*s != bom[parser->bom_seen])
        {
          guint seen = parser->bom_seen;

          /* Not a BOM after all: what looked like its start is data. */
          parser->bom_done = TRUE;
          parser->bom_seen = 0;
          if (seen > 0)
            *status = process_bytes (parser, bom, bom + seen);
          return s;
        }
      parser->bom_seen++;
      s++;
    }

  if (parser->bom_seen == sizeof bom)
    {
      parser->bom_done = TRUE;
      parser->bom_seen = 0;
      return s;
    }
  return NULL;
}

OwParseStatus
ow_sse_parser_feed (OwSseParser *parser,
                    const char  *bytes,
                    gsize        len)
{
  const char *s = bytes;
  const char *end = bytes + len;

  g_return_val_if_fail (parser != NULL, OW_PARSE_OK);
  g_return_val_if_fail (bytes != NULL || len == 0, parser->status);

  if (parser->status != OW_PARSE_OK || parser->finished || len == 0)
    return parser->status;

  if (!parser->bom_done)
    {
      OwParseStatus status;

      s = skip_bom (parser, s, end, &status);
      if (status != OW_PARSE_OK || s == NULL)
        return status;
    }

  return process_bytes (parser, s, end);
}

OwParseStatus
ow_sse_parser_finish (OwSseParser *parser)
{
  OwParseStatus status;

  g_return_val_if_fail (parser != NULL, OW_PARSE_OK);

  if (parser->status != OW_PARSE_OK || parser->finished)
    return parser->status;
  parser->finished = TRUE;

  /* A stream that was only the start of a BOM: those bytes are a line. */
  if (!parser->bom_done && parser->bom_seen > 0)
    {
      guint seen = parser->bom_seen;

      parser->bom_done = TRUE;
      parser->bom_seen = 0;
      status = process_bytes (parser, bom, bom + seen);
      if (status != OW_PARSE_OK)
        return status;
    }
  parser->bom_done = TRUE;

  if (parser->in_comment)
    parser->in_comment = FALSE;
  else if (parser->line->len > 0)
    {
      status = process_line (parser, parser->line->str, parser->line->len);
      reset_buffer (&parser->line);
      if (status != OW_PARSE_OK)
        return status;
    }

  /* Servers often close right after the last data line. */
  return dispatch (parser);
}
