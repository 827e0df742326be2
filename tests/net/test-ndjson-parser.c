/* test-ndjson-parser.c: the incremental NDJSON line splitter, rule by rule.
 *
 * Lines are recorded as "line␞" in one string; the split tests require the
 * same lines and status however the stream is cut.
 */
#include <string.h>

#include "net/ow-ndjson-parser.h"

typedef struct
{
  GString *log;      /* "line\x1e" per delivered line */
  guint    n_lines;  /* lines delivered */
  guint    stop_at;  /* return FALSE on this line (1-based); 0 = never */
} Recorder;

static gboolean
on_line (const char *line,
         gsize       len,
         gpointer    user_data)
{
  Recorder *rec = user_data;

  g_assert_cmpint (line[len], ==, '\0');
  g_string_append_len (rec->log, line, (gssize) len);
  g_string_append_c (rec->log, '\x1e');
  rec->n_lines++;
  return rec->stop_at == 0 || rec->n_lines < rec->stop_at;
}

static char *
parse_pieces (const char    *stream,
              gsize          len,
              gsize          piece,
              gsize          max,
              OwParseStatus *status_out)
{
  Recorder rec = { g_string_new (NULL), 0, 0 };
  g_autoptr(OwNdjsonParser) parser = ow_ndjson_parser_new (on_line, &rec, max);
  OwParseStatus status = OW_PARSE_OK;
  gsize off = 0;

  if (piece == 0)
    piece = MAX (len, 1);
  while (off < len && status == OW_PARSE_OK)
    {
      gsize n = MIN (piece, len - off);

      status = ow_ndjson_parser_feed (parser, stream + off, n);
      off += n;
    }
  if (status == OW_PARSE_OK)
    status = ow_ndjson_parser_finish (parser);
  else
    g_assert_cmpint (ow_ndjson_parser_finish (parser), ==, status);

  if (status_out != NULL)
    *status_out = status;
  return g_string_free (rec.log, FALSE);
}

static char *
parse_cut (const char    *stream,
           gsize          len,
           gsize          cut,
           gsize          max,
           OwParseStatus *status_out)
{
  Recorder rec = { g_string_new (NULL), 0, 0 };
  g_autoptr(OwNdjsonParser) parser = ow_ndjson_parser_new (on_line, &rec, max);
  OwParseStatus status;

  status = ow_ndjson_parser_feed (parser, stream, cut);
  if (status == OW_PARSE_OK)
    status = ow_ndjson_parser_feed (parser, stream + cut, len - cut);
  if (status == OW_PARSE_OK)
    status = ow_ndjson_parser_finish (parser);
  *status_out = status;
  return g_string_free (rec.log, FALSE);
}

static char *
parse (const char *stream)
{
  return parse_pieces (stream, strlen (stream), 0, 0, NULL);
}

static char *
parse_max (const char    *stream,
           gsize          max,
           OwParseStatus *status)
{
  return parse_pieces (stream, strlen (stream), 0, max, status);
}

#define L(line) line "\x1e"

static void
test_basic (void)
{
  g_autofree char *log = parse ("{\"a\":1}\n{\"b\":2}\n");

  g_assert_cmpstr (log, ==, L ("{\"a\":1}") L ("{\"b\":2}"));
}

static void
test_crlf (void)
{
  g_autofree char *crlf = parse ("{\"a\":1}\r\n{\"b\":2}\r\n");
  g_autofree char *lone_cr = parse ("{\"a\":\r1}\n");
  g_autofree char *two_cr = parse ("x\r\r\n");

  g_assert_cmpstr (crlf, ==, L ("{\"a\":1}") L ("{\"b\":2}"));
  /* Only "\n" ends a line; a lone "\r" is content, and only one "\r"
   * before the "\n" belongs to the line end. */
  g_assert_cmpstr (lone_cr, ==, L ("{\"a\":\r1}"));
  g_assert_cmpstr (two_cr, ==, L ("x\r"));
}

static void
test_blank_lines (void)
{
  g_autofree char *log = parse ("\n\r\n   \n\t\r\n{\"a\":1}\n\n \n{\"b\":2}\n");
  g_autofree char *inner = parse ("  {\"a\": 1}  \n");

  g_assert_cmpstr (log, ==, L ("{\"a\":1}") L ("{\"b\":2}"));
  /* Non-blank lines come out whole, surrounding spaces included. */
  g_assert_cmpstr (inner, ==, L ("  {\"a\": 1}  "));
}

static void
test_finish (void)
{
  g_autofree char *no_newline = parse ("{\"a\":1}\n{\"done\":true}");
  g_autofree char *cr_end = parse ("{\"done\":true}\r");
  g_autofree char *blank_end = parse ("{\"a\":1}\n   ");
  Recorder rec = { g_string_new (NULL), 0, 0 };
  OwNdjsonParser *parser = ow_ndjson_parser_new (on_line, &rec, 0);

  g_assert_cmpstr (no_newline, ==, L ("{\"a\":1}") L ("{\"done\":true}"));
  g_assert_cmpstr (cr_end, ==, L ("{\"done\":true}"));
  g_assert_cmpstr (blank_end, ==, L ("{\"a\":1}"));

  g_assert_cmpint (ow_ndjson_parser_feed (parser, "1\n2", 3), ==, OW_PARSE_OK);
  g_assert_cmpuint (rec.n_lines, ==, 1);
  g_assert_cmpint (ow_ndjson_parser_finish (parser), ==, OW_PARSE_OK);
  g_assert_cmpuint (rec.n_lines, ==, 2);
  /* Finished: nothing more comes out. */
  g_assert_cmpint (ow_ndjson_parser_finish (parser), ==, OW_PARSE_OK);
  g_assert_cmpint (ow_ndjson_parser_feed (parser, "\n3\n", 3), ==, OW_PARSE_OK);
  g_assert_cmpuint (rec.n_lines, ==, 2);
  ow_ndjson_parser_free (parser);
  g_string_free (rec.log, TRUE);
}

static void
test_limits (void)
{
  OwParseStatus status;
  g_autofree char *at_limit = parse_max ("12345678\n12345678\r\n", 8, &status);
  g_autofree char *over = NULL;
  g_autofree char *over_at_end = NULL;

  g_assert_cmpint (status, ==, OW_PARSE_OK);
  g_assert_cmpstr (at_limit, ==, L ("12345678") L ("12345678"));

  over = parse_max ("ok\n123456789\nnever\n", 8, &status);
  g_assert_cmpint (status, ==, OW_PARSE_TOO_LARGE);
  g_assert_cmpstr (over, ==, L ("ok"));

  over_at_end = parse_max ("ok\n123456789", 8, &status);
  g_assert_cmpint (status, ==, OW_PARSE_TOO_LARGE);
  g_assert_cmpstr (over_at_end, ==, L ("ok"));

  /* Cut anywhere, the verdict is the same. */
  for (gsize piece = 1; piece <= 4; piece++)
    {
      g_autofree char *log = parse_pieces ("ok\n123456789\r\nnever\n", 20, piece, 8, &status);

      g_assert_cmpint (status, ==, OW_PARSE_TOO_LARGE);
      g_assert_cmpstr (log, ==, L ("ok"));
    }
  for (gsize piece = 1; piece <= 4; piece++)
    {
      g_autofree char *log = parse_pieces ("ok\n12345678\r\nyes\n", 17, piece, 8, &status);

      g_assert_cmpint (status, ==, OW_PARSE_OK);
      g_assert_cmpstr (log, ==, L ("ok") L ("12345678") L ("yes"));
    }
}

static void
test_stop (void)
{
  Recorder rec = { g_string_new (NULL), 0, 1 };
  OwNdjsonParser *parser = ow_ndjson_parser_new (on_line, &rec, 0);

  g_assert_cmpint (ow_ndjson_parser_feed (parser, "a\nb\nc\n", 6), ==, OW_PARSE_STOPPED);
  g_assert_cmpstr (rec.log->str, ==, L ("a"));
  g_assert_cmpint (ow_ndjson_parser_feed (parser, "d\n", 2), ==, OW_PARSE_STOPPED);
  g_assert_cmpint (ow_ndjson_parser_finish (parser), ==, OW_PARSE_STOPPED);
  g_assert_cmpuint (rec.n_lines, ==, 1);
  ow_ndjson_parser_free (parser);
  g_string_free (rec.log, TRUE);
}

static void
check_split_invariance (const char *stream,
                        gsize       len,
                        gsize       max)
{
  OwParseStatus want_status;
  g_autofree char *want = parse_pieces (stream, len, 0, max, &want_status);

  for (gsize piece = 1; piece <= 3; piece++)
    {
      OwParseStatus status;
      g_autofree char *log = parse_pieces (stream, len, piece, max, &status);

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

static const char ollama_sample[] =
  "{\"model\":\"qwen3:8b\",\"created_at\":\"2025-01-01T00:00:00Z\","
  "\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Need the file.\"},"
  "\"done\":false}\n"
  "{\"model\":\"qwen3:8b\",\"created_at\":\"2025-01-01T00:00:00Z\","
  "\"message\":{\"role\":\"assistant\",\"content\":\"Caf\xC3\xA9\"},\"done\":false}\r\n"
  "\n"
  "{\"model\":\"qwen3:8b\",\"created_at\":\"2025-01-01T00:00:01Z\","
  "\"message\":{\"role\":\"assistant\",\"content\":\"\"},"
  "\"done\":true,\"done_reason\":\"stop\",\"eval_count\":12}";

static void
test_split_anywhere (void)
{
  OwParseStatus status;
  g_autofree char *log = parse_pieces (ollama_sample, strlen (ollama_sample), 0, 0, &status);

  g_assert_cmpint (status, ==, OW_PARSE_OK);
  g_assert_nonnull (strstr (log, "\"done_reason\":\"stop\",\"eval_count\":12}\x1e"));
  g_assert_nonnull (strstr (log, "Caf\xC3\xA9\"},\"done\":false}\x1e"));
  check_split_invariance (ollama_sample, strlen (ollama_sample), 0);
  check_split_invariance (ollama_sample, strlen (ollama_sample), 150);
}

static void
test_split_corpus (void)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "fuzz", "corpus", "ndjson", NULL);
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
        continue;
      check_split_invariance (contents, len, 0);
      check_split_invariance (contents, len, 100);
      n_files++;
    }
  g_assert_cmpuint (n_files, >=, 10);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/net/ndjson-parser/basic", test_basic);
  g_test_add_func ("/ow/net/ndjson-parser/crlf", test_crlf);
  g_test_add_func ("/ow/net/ndjson-parser/blank-lines", test_blank_lines);
  g_test_add_func ("/ow/net/ndjson-parser/finish", test_finish);
  g_test_add_func ("/ow/net/ndjson-parser/limits", test_limits);
  g_test_add_func ("/ow/net/ndjson-parser/stop", test_stop);
  g_test_add_func ("/ow/net/ndjson-parser/split-anywhere", test_split_anywhere);
  g_test_add_func ("/ow/net/ndjson-parser/split-corpus", test_split_corpus);

  return g_test_run ();
}
