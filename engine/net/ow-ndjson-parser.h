/* ow-ndjson-parser.h: a pure, incremental newline-delimited JSON splitter.
 *
 * Ollama's native API streams one JSON object per line. Bytes go in split
 * anywhere; each non-blank line comes out whole (without its \n or \r\n).
 * The parser does not parse the JSON itself. Fuzzed.
 */
#pragma once

#include "net/ow-sse-parser.h"

G_BEGIN_DECLS

typedef struct _OwNdjsonParser OwNdjsonParser;

/* @line is NUL-terminated. Return FALSE to stop. */
typedef gboolean (*OwNdjsonLineFunc) (const char *line, gsize len, gpointer user_data);

/* @max_line_bytes: 0 = 16 MiB. */
OwNdjsonParser *ow_ndjson_parser_new    (OwNdjsonLineFunc func, gpointer user_data, gsize max_line_bytes);
OwParseStatus   ow_ndjson_parser_feed   (OwNdjsonParser *parser, const char *bytes, gsize len);
/* End of stream: a last line without a newline is delivered. Input fed
 * after finish() is ignored. */
OwParseStatus   ow_ndjson_parser_finish (OwNdjsonParser *parser);
void            ow_ndjson_parser_free   (OwNdjsonParser *parser);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwNdjsonParser, ow_ndjson_parser_free)

G_END_DECLS
