/* test-sse-parser.c: the incremental SSE parser, rule by rule.
 *
 * Events are recorded as "name␟data␞" in one string, so a whole stream's
 * outcome compares with one assertion. The split tests feed every sample
 * (the inline ones and the fuzz corpus) whole, byte by byte and cut at each
 * position, and require the same events and status every time.
 */
#include <string.h>

#include "net/ow-sse-parser.h"

typedef struct
{
  GString *log;       /* "name\x1f" "data\x1e" per event */
  guint    n_events;  /* events delivered */
  guint    stop_at;   /* return FALSE on this event (1-based); 0 = never */
} Recorder;

static gboolean
on_event (const char *event,
          const char *data,
          gsize       data_len,
          gpointer    user_data)
{
  Recorder *rec = user_data;

  /* The contract: data is NUL-terminated right after data_len bytes. */
  g_assert_cmpint (data[data_len], ==, '\0');
  g_string_append (rec->log, event);
  g_string_append_c (rec->log, '\x1f');
  g_string_append_len (rec->log, data, (gssize) data_len);
  g_string_append_c (rec->log, '\x1e');
  rec->n_events++;
  return rec->stop_at == 0 || rec->n_events < rec->stop_at;
}

/* Parses @stream fed in pieces of @piece bytes (0 = whole), then finishes.
 * Returns the event log; *status gets the last status. */
static char *
parse_pieces (const char    *stream,
              gsize          len,
              gsize          piece,
              gsize          max,
              guint          stop_at,
              OwParseStatus *status_out)
{
  Recorder rec = { g_string_new (NULL), 0, stop_at };
  g_autoptr(OwSseParser) parser = ow_sse_parser_new (on_event, &rec, max);
  OwParseStatus status = OW_PARSE_OK;
  gsize off = 0;

  if (piece == 0)
    piece = MAX (len, 1);
  while (off < len && status == OW_PARSE_OK)
    {
      gsize n = MIN (piece, len - off);

      status = ow_sse_parser_feed (parser, stream + off, n);
      off += n;
    }
  if (status == OW_PARSE_OK)
    status = ow_sse_parser_finish (parser);
  else
    g_assert_cmpint (ow_sse_parser_finish (parser), ==, status); /* sticky */

  if (status_out != NULL)
    *status_out = status;
  return g_string_free (rec.log, FALSE);
}

/* Parses @stream cut once, at @cut. */
static char *
parse_cut (const char    *stream,
           gsize          len,
           gsize          cut,
           gsize          max,
           OwParseStatus *status_out)
{
  Recorder rec = { g_string_new (NULL), 0, 0 };
  g_autoptr(OwSseParser) parser = ow_sse_parser_new (on_event, &rec, max);
  OwParseStatus status;

  status = ow_sse_parser_feed (parser, stream, cut);
  if (status == OW_PARSE_OK)
    status = ow_sse_parser_feed (parser, stream + cut, len - cut);
  if (status == OW_PARSE_OK)
    status = ow_sse_parser_finish (parser);
  *status_out = status;
  return g_string_free (rec.log, FALSE);
}

static char *
parse (const char *stream)
{
  return parse_pieces (stream, strlen (stream), 0, 0, 0, NULL);
}

static char *
parse_max (const char    *stream,
           gsize          max,
           OwParseStatus *status)
{
  return parse_pieces (stream, strlen (stream), 0, max, 0, status);
}

#define EV(name, data) name "\x1f" data "\x1e"

static void
test_basic (void)
{
  g_autofree char *log = parse ("data: hello\n\n");

  g_assert_cmpstr (log, ==, EV ("", "hello"));
}

static void
test_line_endings (void)
{
  const char *lf = "event: a\ndata: 1\ndata: 2\n\ndata: 3\n\n";
  const char *crlf = "event: a\r\ndata: 1\r\ndata: 2\r\n\r\ndata: 3\r\n\r\n";
  const char *cr = "event: a\rdata: 1\rdata: 2\r\rdata: 3\r\r";
  const char *mixed = "event: a\rdata: 1\r\ndata: 2\n\r\ndata: 3\n\r";
  const char *want = EV ("a", "1\n2") EV ("", "3");
  g_autofree char *log_lf = parse (lf);
  g_autofree char *log_crlf = parse (crlf);
  g_autofree char *log_cr = parse (cr);
  g_autofree char *log_mixed = parse (mixed);

  g_assert_cmpstr (log_lf, ==, want);
  g_assert_cmpstr (log_crlf, ==, want);
  g_assert_cmpstr (log_cr, ==, want);
  g_assert_cmpstr (log_mixed, ==, want);
}

static void
test_cr_lf_split (void)
{
  /* "\r" ends one piece and "\n" starts the next: one line end, not two
   * (two would be a blank line and dispatch "a" alone). */
  Recorder rec = { g_string_new (NULL), 0, 0 };
  g_autoptr(OwSseParser) parser = ow_sse_parser_new (on_event, &rec, 0);

  g_assert_cmpint (ow_sse_parser_feed (parser, "data: a\r", 8), ==, OW_PARSE_OK);
  g_assert_cmpint (ow_sse_parser_feed (parser, "\ndata: b\r", 9), ==, OW_PARSE_OK);
  g_assert_cmpint (ow_sse_parser_feed (parser, "\n", 1), ==, OW_PARSE_OK);
  g_assert_cmpuint (rec.n_events, ==, 0);
  g_assert_cmpint (ow_sse_parser_feed (parser, "\r", 1), ==, OW_PARSE_OK);
  g_assert_cmpstr (rec.log->str, ==, EV ("", "a\nb"));
  g_assert_cmpint (ow_sse_parser_feed (parser, "\n", 1), ==, OW_PARSE_OK);
  g_assert_cmpint (ow_sse_parser_finish (parser), ==, OW_PARSE_OK);
  g_assert_cmpuint (rec.n_events, ==, 1);
  g_string_free (rec.log, TRUE);
}

static void
test_data_lines (void)
{
  g_autofree char *joined = parse ("data: a\ndata: b\ndata:c\n\n");
  g_autofree char *one_space = parse ("data:  two spaces\n\n");
  g_autofree char *no_space = parse ("data:x\n\n");
  g_autofree char *empty = parse ("data:\n\n");
  g_autofree char *bare = parse ("data\n\n");
  g_autofree char *empty_lines = parse ("data\ndata\n\n");
  g_autofree char *colons = parse ("data: {\"a\":\"b: c\"}\n\n");
  g_autofree char *utf8 = parse ("data: h\xC3\xA9llo \xE2\x82\xAC\n\n");

  g_assert_cmpstr (joined, ==, EV ("", "a\nb\nc"));
  g_assert_cmpstr (one_space, ==, EV ("", " two spaces"));
  g_assert_cmpstr (no_space, ==, EV ("", "x"));
  g_assert_cmpstr (empty, ==, EV ("", ""));
  g_assert_cmpstr (bare, ==, EV ("", ""));
  g_assert_cmpstr (empty_lines, ==, EV ("", "\n"));
  g_assert_cmpstr (colons, ==, EV ("", "{\"a\":\"b: c\"}"));
  g_assert_cmpstr (utf8, ==, EV ("", "h\xC3\xA9llo \xE2\x82\xAC"));
}

static void
test_comments (void)
{
  g_autofree char *keepalive = parse (": keep-alive\n\n: OPENROUTER PROCESSING\n\n");
  g_autofree char *mixed = parse (":c1\ndata: x\n: c2\ndata: y\n\n");
  g_autofree char *long_comment = NULL;
  g_autoptr(GString) stream = g_string_new (":");
  OwParseStatus status;

  g_assert_cmpstr (keepalive, ==, "");
  g_assert_cmpstr (mixed, ==, EV ("", "x\ny"));

  /* A comment is never stored, so even one far beyond the limit is fine,
   * cut into pieces or not. */
  for (int i = 0; i < 1000; i++)
    g_string_append (stream, "padding ");
  g_string_append (stream, "\ndata: after\n\n");
  long_comment = parse_pieces (stream->str, stream->len, 7, 64, 0, &status);
  g_assert_cmpint (status, ==, OW_PARSE_OK);
  g_assert_cmpstr (long_comment, ==, EV ("", "after"));
}

static void
test_event_names (void)
{
  g_autofree char *named = parse ("event: message_start\ndata: {}\n\ndata: plain\n\n");
  g_autofree char *last_wins = parse ("event: a\nevent: b\ndata: x\n\n");
  g_autofree char *no_data = parse ("event: lonely\n\ndata: next\n\n");
  g_autofree char *ping = parse ("event: ping\ndata: {\"type\": \"ping\"}\n\n");

  /* The name is per event: the second event has none. */
  g_assert_cmpstr (named, ==, EV ("message_start", "{}") EV ("", "plain"));
  g_assert_cmpstr (last_wins, ==, EV ("b", "x"));
  /* WHATWG: no data line, no event; and its name does not leak on. */
  g_assert_cmpstr (no_data, ==, EV ("", "next"));
  g_assert_cmpstr (ping, ==, EV ("ping", "{\"type\": \"ping\"}"));
}

static void
test_other_fields (void)
{
  g_autofree char *log = parse ("id: 7\nretry: 1000\nretry: soon\nfoo: bar\nData: no\n"
                                "event\ndata: kept\n\n");

  /* id/retry/unknown fields are no data; field names are case-sensitive;
   * "event" alone sets an empty name. */
  g_assert_cmpstr (log, ==, EV ("", "kept"));
}

static void
test_bom (void)
{
  g_autofree char *whole = parse ("\xEF\xBB\xBF" "data: x\n\n");
  g_autofree char *bytewise = parse_pieces ("\xEF\xBB\xBF" "data: x\n\n", 12, 1, 0, 0, NULL);
  g_autofree char *second = parse ("\xEF\xBB\xBF\xEF\xBB\xBF" "data: x\n\ndata: y\n\n");
  g_autofree char *mid = parse ("data: \xEF\xBB\xBFx\n\n");
  g_autofree char *partial = parse ("\xEF\xBB" "data: x\n\n");
  g_autofree char *only_start = parse ("\xEF");

  g_assert_cmpstr (whole, ==, EV ("", "x"));
  g_assert_cmpstr (bytewise, ==, EV ("", "x"));
  /* Only one BOM, only at the very start: the second makes the first line
   * an unknown field. */
  g_assert_cmpstr (second, ==, EV ("", "y"));
  g_assert_cmpstr (mid, ==, EV ("", "\xEF\xBB\xBFx"));
  /* Two bytes of a BOM are not a BOM: they start an (unknown) field name. */
  g_assert_cmpstr (partial, ==, "");
  g_assert_cmpstr (only_start, ==, "");
}

static void
test_nul (void)
{
  const char stream[] = "data: a\0b\n\n";
  g_autofree char *log = parse_pieces (stream, sizeof stream - 1, 0, 0, 0, NULL);

  /* A NUL byte is passed through; data_len counts it. */
  g_assert_cmpmem (log, 6, "\x1f" "a\0b\x1e", 6);
}

static void
test_finish (void)
{
  g_autofree char *no_newline = parse ("data: x");
  g_autofree char *no_blank = parse ("data: x\n");
  g_autofree char *crlf_half = parse ("data: x\r");
  g_autofree char *name_only = parse ("event: e\n");
  g_autofree char *comment_only = parse (": hi");
  Recorder rec = { g_string_new (NULL), 0, 0 };
  OwSseParser *parser = ow_sse_parser_new (on_event, &rec, 0);

  g_assert_cmpstr (no_newline, ==, EV ("", "x"));
  g_assert_cmpstr (no_blank, ==, EV ("", "x"));
  g_assert_cmpstr (crlf_half, ==, EV ("", "x"));
  g_assert_cmpstr (name_only, ==, "");
  g_assert_cmpstr (comment_only, ==, "");

  /* finish() dispatches once; later input and finishes change nothing. */
  g_assert_cmpint (ow_sse_parser_feed (parser, "data: 1\n\ndata: 2", 16), ==, OW_PARSE_OK);
  g_assert_cmpuint (rec.n_events, ==, 1);
  g_assert_cmpint (ow_sse_parser_finish (parser), ==, OW_PARSE_OK);
  g_assert_cmpuint (rec.n_events, ==, 2);
  g_assert_cmpint (ow_sse_parser_finish (parser), ==, OW_PARSE_OK);
  g_assert_cmpint (ow_sse_parser_feed (parser, "\n\ndata: 3\n\n", 11), ==, OW_PARSE_OK);
  g_assert_cmpuint (rec.n_events, ==, 2);
  g_assert_cmpstr (rec.log->str, ==, EV ("", "1") EV ("", "2"));
  ow_sse_parser_free (parser);
  g_string_free (rec.log, TRUE);
}

static void
test_limits (void)
{
  OwParseStatus status;
  g_autofree char *at_limit = parse_max ("data: 0123456789abcdef\n\n", 16, &status);
  g_autofree char *over = NULL;
  g_autofree char *joined_over = NULL;
  g_autofree char *long_line = NULL;
  g_autoptr(GString) big = g_string_new ("data: ok\n\nfoo: ");

  g_assert_cmpint (status, ==, OW_PARSE_OK);
  g_assert_cmpstr (at_limit, ==, EV ("", "0123456789abcdef"));

  /* One byte over: the events before still came out. */
  over = parse_max ("data: first\n\ndata: 0123456789abcdefg\n\ndata: never\n\n", 16, &status);
  g_assert_cmpint (status, ==, OW_PARSE_TOO_LARGE);
  g_assert_cmpstr (over, ==, EV ("", "first"));

  /* The joining "\n" counts: 8 + 1 + 8 = 17 > 16. */
  joined_over = parse_max ("data: 01234567\ndata: 01234567\n\n", 16, &status);
  g_assert_cmpint (status, ==, OW_PARSE_TOO_LARGE);
  g_assert_cmpstr (joined_over, ==, "");

  /* Any line beyond limit + room for a field name is refused, whether it
   * arrives whole or in pieces, and the status then sticks. */
  for (int i = 0; i < 200; i++)
    g_string_append_c (big, 'x');
  g_string_append (big, "\n\ndata: never\n\n");
  for (gsize piece = 0; piece <= 5; piece++)
    {
      g_autofree char *log = parse_pieces (big->str, big->len, piece, 16, 0, &status);

      g_assert_cmpint (status, ==, OW_PARSE_TOO_LARGE);
      g_assert_cmpstr (log, ==, EV ("", "ok"));
    }
  long_line = parse_pieces ("data: 0123456789abcdefXYZ", 25, 3, 16, 0, &status);
  g_assert_cmpint (status, ==, OW_PARSE_TOO_LARGE);
}

static void
test_stop (void)
{
  const char *stream = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
  Recorder rec = { g_string_new (NULL), 0, 2 };
  OwSseParser *parser = ow_sse_parser_new (on_event, &rec, 0);

  /* Stops inside one feed: the third event is never delivered. */
  g_assert_cmpint (ow_sse_parser_feed (parser, stream, strlen (stream)), ==, OW_PARSE_STOPPED);
  g_assert_cmpstr (rec.log->str, ==, EV ("", "1") EV ("", "2"));
  g_assert_cmpint (ow_sse_parser_feed (parser, "data: 4\n\n", 9), ==, OW_PARSE_STOPPED);
  g_assert_cmpint (ow_sse_parser_finish (parser), ==, OW_PARSE_STOPPED);
  g_assert_cmpuint (rec.n_events, ==, 2);
  ow_sse_parser_free (parser);
  g_string_free (rec.log, TRUE);

  /* Stopping at the event finish() dispatches. */
  {
    OwParseStatus status;
    g_autofree char *log = parse_pieces ("data: last", 10, 0, 0, 1, &status);

    g_assert_cmpint (status, ==, OW_PARSE_STOPPED);
    g_assert_cmpstr (log, ==, EV ("", "last"));
  }
}

/* Every way of cutting @stream gives what the whole one gives. */
static void
check_split_invariance (const char *stream,
                        gsize       len,
                        gsize       max)
{
  OwParseStatus want_status;
  g_autofree char *want = parse_pieces (stream, len, 0, max, 0, &want_status);

  for (gsize piece = 1; piece <= 3; piece++)
    {
      OwParseStatus status;
      g_autofree char *log = parse_pieces (stream, len, piece, max, 0, &status);

      g_assert_cmpstr (log, ==, want);
      g_assert_cmpint (status, ==, want_status);
    }
  for (gsize cut = 0; cut <= len; cut++)
    {
      OwParseStatus status;
      g_autofree char *log = parse_cut (stream, len, cut, max, &status);

      g_assert_cmpstr (log, ==, want);
      g_assert_cmpint (status, ==, want_status);
    }
}

static const char anthropic_sample[] =
  "event: message_start\n"
  "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01X\",\"role\":\"assistant\"}}\n"
  "\n"
  "event: ping\n"
  "data: {\"type\": \"ping\"}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":0,"
  "\"delta\":{\"type\":\"text_delta\",\"text\":\"Caf\xC3\xA9 \xE2\x82\xAC\"}}\n"
  "\n"
  "event: message_stop\n"
  "data: {\"type\":\"message_stop\"}\n"
  "\n";

static void
test_split_anywhere (void)
{
  g_autofree char *crlf = NULL;
  g_autofree char *cr = NULL;
  OwParseStatus status;
  g_autofree char *log = parse_pieces (anthropic_sample, strlen (anthropic_sample), 0, 0, 0,
                                       &status);

  g_assert_cmpint (status, ==, OW_PARSE_OK);
  g_assert_nonnull (strstr (log, "message_stop\x1f{\"type\":\"message_stop\"}\x1e"));
  g_assert_nonnull (strstr (log, "Caf\xC3\xA9 \xE2\x82\xAC"));
  check_split_invariance (anthropic_sample, strlen (anthropic_sample), 0);

  /* Same with the other line ends, "\r\n" pairs and code points cut. */
  {
    g_auto(GStrv) lines = g_strsplit (anthropic_sample, "\n", -1);

    crlf = g_strjoinv ("\r\n", lines);
    cr = g_strjoinv ("\r", lines);
  }
  check_split_invariance (crlf, strlen (crlf), 0);
  check_split_invariance (cr, strlen (cr), 0);
  {
    g_autofree char *log_crlf = parse (crlf);
    g_autofree char *log_cr = parse (cr);

    g_assert_cmpstr (log_crlf, ==, log);
    g_assert_cmpstr (log_cr, ==, log);
  }

  /* And at a small limit, where TOO_LARGE lands mid-stream. */
  check_split_invariance (anthropic_sample, strlen (anthropic_sample), 40);
}

static void
test_split_corpus (void)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "fuzz", "corpus", "sse", NULL);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  guint n_files = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_autofree char *contents = NULL;
      gsize len = 0;

      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      if (len > 8192)
        continue; /* every cut of a big file is quadratic; the fuzzer has it */
      check_split_invariance (contents, len, 0);
      check_split_invariance (contents, len, 100);
      n_files++;
    }
  g_assert_cmpuint (n_files, >=, 10);
}

static void
test_openai_done (void)
{
  g_autofree char *log = parse ("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
                                "data: [DONE]\n\n");

  g_assert_cmpstr (log, ==,
                   EV ("", "{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}") EV ("", "[DONE]"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/net/sse-parser/basic", test_basic);
  g_test_add_func ("/ow/net/sse-parser/line-endings", test_line_endings);
  g_test_add_func ("/ow/net/sse-parser/cr-lf-split", test_cr_lf_split);
  g_test_add_func ("/ow/net/sse-parser/data-lines", test_data_lines);
  g_test_add_func ("/ow/net/sse-parser/comments", test_comments);
  g_test_add_func ("/ow/net/sse-parser/event-names", test_event_names);
  g_test_add_func ("/ow/net/sse-parser/other-fields", test_other_fields);
  g_test_add_func ("/ow/net/sse-parser/bom", test_bom);
  g_test_add_func ("/ow/net/sse-parser/nul", test_nul);
  g_test_add_func ("/ow/net/sse-parser/finish", test_finish);
  g_test_add_func ("/ow/net/sse-parser/limits", test_limits);
  g_test_add_func ("/ow/net/sse-parser/stop", test_stop);
  g_test_add_func ("/ow/net/sse-parser/openai-done", test_openai_done);
  g_test_add_func ("/ow/net/sse-parser/split-anywhere", test_split_anywhere);
  g_test_add_func ("/ow/net/sse-parser/split-corpus", test_split_corpus);

  return g_test_run ();
}
