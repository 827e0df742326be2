/* ow-sse-parser.h: a pure, incremental Server-Sent Events parser.
 *
 * Bytes go in as they arrive, split anywhere (inside a line, inside a UTF-8
 * code point, between \r and \n); complete events come out. Lines end in
 * \n, \r\n or \r; "event:" names the event; "data:" lines are joined with
 * \n; one leading space after the colon is dropped; lines starting with ':'
 * are comments; a blank line dispatches (an event without any "data:" line
 * is dropped, as in the WHATWG rules); a leading UTF-8 BOM is skipped.
 * "id:" and "retry:" are remembered but not needed by model providers.
 * No I/O, no allocation per byte; fuzzed.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _OwSseParser OwSseParser;

/* @event is the event name, "" when the event had no "event:" line.
 * @data is NUL-terminated at @data_len; a NUL byte in the stream is passed
 * through, so rely on @data_len. Return FALSE to stop: the parser then
 * ignores all further input. */
typedef gboolean (*OwSseEventFunc) (const char *event,
                                    const char *data,
                                    gsize       data_len,
                                    gpointer    user_data);

typedef enum {
  OW_PARSE_OK,          /* keep feeding */
  OW_PARSE_STOPPED,     /* the callback returned FALSE */
  OW_PARSE_TOO_LARGE,   /* one line or event exceeded the limit */
} OwParseStatus;

/* @max_event_bytes: the largest event (all its data) accepted; 0 = 16 MiB. */
OwSseParser  *ow_sse_parser_new    (OwSseEventFunc func, gpointer user_data, gsize max_event_bytes);
OwParseStatus ow_sse_parser_feed   (OwSseParser *parser, const char *bytes, gsize len);
/* End of stream. An event not yet terminated by a blank line is dispatched
 * (servers that close right after the last data line are common). Input
 * fed after finish() is ignored. */
OwParseStatus ow_sse_parser_finish (OwSseParser *parser);
void          ow_sse_parser_free   (OwSseParser *parser);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwSseParser, ow_sse_parser_free)

G_END_DECLS
