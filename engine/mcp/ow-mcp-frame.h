/* ow-mcp-frame.h: the newline-delimited framing of MCP's stdio transport.
 *
 * A server writes one JSON-RPC message per line on its stdout. Bytes go in
 * split anywhere; each non-blank line comes out whole, without its "\n" or
 * "\r\n". A line longer than the limit is not kept: the reader reports it
 * once, with its first bytes (enough to find the request id of a response
 * that grew too big), discards the rest up to the next newline and goes on
 * reading, so one oversized message costs neither the memory nor the
 * connection. No I/O; fuzzed (tests/mcp/fuzz-mcp-frame.c).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _OwMcpFrameReader OwMcpFrameReader;

/* How many leading bytes of an oversized line are kept for its report. */
#define OW_MCP_FRAME_PREFIX_BYTES 256

/* A complete line, NUL-terminated at @len (a NUL byte inside is passed
 * through, so rely on @len). */
typedef void (*OwMcpFrameLineFunc)     (const char *line, gsize len, gpointer user_data);
/* A line over the limit: @prefix holds its first bytes (at most
 * OW_MCP_FRAME_PREFIX_BYTES, NUL-terminated at @prefix_len). Called once,
 * when the limit is passed; the rest of that line is discarded. */
typedef void (*OwMcpFrameOversizeFunc) (const char *prefix, gsize prefix_len, gpointer user_data);

/* @max_line_bytes: the most bytes a line may hold before its "\n" (a
 * "\r" included); 0 = 16 MiB. */
OwMcpFrameReader *ow_mcp_frame_reader_new    (gsize                  max_line_bytes,
                                              OwMcpFrameLineFunc     line_func,
                                              OwMcpFrameOversizeFunc oversize_func,
                                              gpointer               user_data);
void              ow_mcp_frame_reader_feed   (OwMcpFrameReader *reader, const char *bytes, gsize len);
/* End of stream: a last line without a newline is delivered. */
void              ow_mcp_frame_reader_finish (OwMcpFrameReader *reader);
/* Bytes held for an unfinished line (never more than the limit). */
gsize             ow_mcp_frame_reader_get_buffered (OwMcpFrameReader *reader);
void              ow_mcp_frame_reader_free   (OwMcpFrameReader *reader);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwMcpFrameReader, ow_mcp_frame_reader_free)

G_END_DECLS
