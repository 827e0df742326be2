/* test-body-json.c: the strict JSON reader and the result writer.
 *
 * The reader is what tool arguments go through (and what is fuzzed), so
 * the cases here pin its strictness: what RFC 8259 rejects, duplicate
 * keys, depth, UTF-8, surrogates.
 */
#include "body-test-util.h"

#include <locale.h>
#include <string.h>

static OwTbJson *
parse (const char *text)
{
  char err[160];
  OwTbJson *node = ow_tb_json_parse (text, strlen (text), err, sizeof err);

  if (node == NULL)
    g_test_message ("%s -> %s", text, err);
  return node;
}

static void
test_valid (void)
{
  OwTbJson *node = parse (" {\"path\": \"a/b.txt\", \"n\": -12.5e1, \"ok\": true, \"no\": false,"
                          " \"nil\": null, \"list\": [1, [2, {}], \"x\"], \"empty\": \"\"} ");
  const OwTbJson *list;

  g_assert_nonnull (node);
  g_assert_cmpint (node->type, ==, OW_TB_JSON_OBJECT);
  g_assert_cmpuint (node->n_items, ==, 7);
  g_assert_cmpstr (body_str (node, "path"), ==, "a/b.txt");
  g_assert_cmpfloat (ow_tb_json_get (node, "n")->number, ==, -125.0);
  g_assert_true (body_bool (node, "ok"));
  g_assert_false (body_bool (node, "no"));
  g_assert_true (body_is_null (node, "nil"));
  list = body_array (node, "list");
  g_assert_cmpuint (list->n_items, ==, 3);
  g_assert_cmpint (list->items[1]->type, ==, OW_TB_JSON_ARRAY);
  g_assert_cmpint (list->items[1]->items[1]->type, ==, OW_TB_JSON_OBJECT);
  g_assert_cmpstr (body_str (node, "empty"), ==, "");
  g_assert_null (ow_tb_json_get (node, "missing"));
  ow_tb_json_free (node);

  /* Scalars are JSON texts too (RFC 8259). */
  node = parse ("42");
  g_assert_nonnull (node);
  g_assert_cmpfloat (node->number, ==, 42.0);
  ow_tb_json_free (node);
  node = parse ("12345678901234567890");
  g_assert_nonnull (node);
  g_assert_cmpfloat (node->number, ==, 12345678901234567890.0);
  ow_tb_json_free (node);
}

static void
test_invalid (void)
{
  static const char *const cases[] = {
    "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{'a':1}", "{a:1}", "[01]", "[1.]", "[.5]",
    "[1e]", "[-]", "[+1]", "[NaN]", "[Infinity]", "[1e999]", "tru", "nul", "[true false]",
    "{\"a\" 1}", "{\"a\":}", "\"unterminated", "\"bad \\x escape\"", "\"tab\there\"",
    "\"\\u12\"", "\"\\uZZZZ\"", "{} {}", "[1] x", "/* c */ {}", "{\"a\":1 // c\n}",
    "\"\\u0000\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char err[160] = "";
      OwTbJson *node = ow_tb_json_parse (cases[i], strlen (cases[i]), err, sizeof err);

      if (node != NULL)
        g_error ("accepted invalid JSON: %s", cases[i]);
      /* Every refusal says where. */
      g_assert_nonnull (strstr (err, "at byte "));
    }
}

static void
test_error_offset (void)
{
  char err[160];

  g_assert_null (ow_tb_json_parse ("{\"a\": 1, \"b\" 2}", 16, err, sizeof err));
  g_assert_cmpstr (err, ==, "expected ':' after object key at byte 13");
  /* A NULL error buffer is allowed. */
  g_assert_null (ow_tb_json_parse ("[", 1, NULL, 0));
}

static void
test_duplicate_keys (void)
{
  char err[160];

  g_assert_null (ow_tb_json_parse ("{\"path\":\"a\",\"path\":\"b\"}", 23, err, sizeof err));
  g_assert_nonnull (strstr (err, "duplicate key"));
  g_assert_nonnull (strstr (err, "at byte 12"));
  /* Keys equal only after unescaping are duplicates too. */
  g_assert_null (parse ("{\"a\":1,\"\\u0061\":2}"));
  /* The same key in different objects is fine. */
  OwTbJson *node = parse ("{\"a\":{\"a\":1},\"b\":{\"a\":2}}");
  g_assert_nonnull (node);
  ow_tb_json_free (node);
}

static void
test_depth (void)
{
  GString *ok = g_string_new (NULL), *deep = g_string_new (NULL);
  OwTbJson *node;
  char err[160];

  for (int i = 0; i < 128; i++)
    g_string_append_c (ok, '[');
  g_string_append (ok, "1");
  for (int i = 0; i < 128; i++)
    g_string_append_c (ok, ']');
  node = ow_tb_json_parse (ok->str, ok->len, err, sizeof err);
  g_assert_nonnull (node);
  ow_tb_json_free (node);

  for (int i = 0; i < 129; i++)
    g_string_append (deep, "{\"k\":");
  g_string_append (deep, "1");
  for (int i = 0; i < 129; i++)
    g_string_append_c (deep, '}');
  g_assert_null (ow_tb_json_parse (deep->str, deep->len, err, sizeof err));
  g_assert_nonnull (strstr (err, "nesting deeper than 128"));

  /* Far deeper input must fail the same way, not exhaust the stack. */
  g_string_truncate (deep, 0);
  for (int i = 0; i < 200000; i++)
    g_string_append_c (deep, '[');
  g_assert_null (ow_tb_json_parse (deep->str, deep->len, err, sizeof err));
  g_string_free (ok, TRUE);
  g_string_free (deep, TRUE);
}

static void
test_unicode (void)
{
  OwTbJson *node = parse ("[\"caf\\u00e9 \\ud83d\\ude00 \xe2\x82\xac \\n\\t\\\"\\\\\\/\"]");

  g_assert_nonnull (node);
  g_assert_cmpstr (node->items[0]->string, ==, "caf\xc3\xa9 \xf0\x9f\x98\x80 \xe2\x82\xac \n\t\"\\/");
  g_assert_cmpuint (node->items[0]->string_len, ==, strlen (node->items[0]->string));
  ow_tb_json_free (node);

  /* Malformed UTF-8 in raw string bytes. */
  g_assert_null (parse ("[\"\xff\"]"));
  g_assert_null (parse ("[\"\xc0\xaf\"]"));         /* overlong '/' */
  g_assert_null (parse ("[\"\xed\xa0\x80\"]"));     /* encoded surrogate */
  g_assert_null (parse ("[\"\xf4\x90\x80\x80\"]")); /* beyond U+10FFFF */
  g_assert_null (parse ("[\"\xe2\x82\"]"));         /* truncated sequence */
}

static void
test_locale_independent (void)
{
  /* A desktop app may run with a decimal comma; JSON numbers never do. */
  const char *old = setlocale (LC_NUMERIC, NULL);
  g_autofree char *saved = g_strdup (old);
  OwTbJson *node;

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("no de_DE.UTF-8 locale on this machine");
      return;
    }
  node = parse ("2.5");
  g_assert_nonnull (node);
  g_assert_cmpfloat (node->number, ==, 2.5);
  ow_tb_json_free (node);
  setlocale (LC_NUMERIC, saved);
}

static void
test_writer (void)
{
  OwTbBuf buf;
  OwTbJson *node;

  ow_tb_buf_init (&buf);
  ow_tb_buf_puts (&buf, "[");
  ow_tb_buf_json_string (&buf, "q\"b\\n\n\x01\x7f \xc3\xa9", (size_t) -1);
  ow_tb_buf_puts (&buf, ",");
  /* Invalid bytes become U+FFFD; the result is still valid JSON. */
  ow_tb_buf_json_string (&buf, "a\xff" "b\xe2\x82", 5);
  ow_tb_buf_puts (&buf, ",");
  ow_tb_buf_json_string (&buf, "nul\0byte", 8);
  ow_tb_buf_puts (&buf, "]");
  g_assert_cmpstr (buf.data, ==,
                   "[\"q\\\"b\\\\n\\n\\u0001\x7f \xc3\xa9\",\"a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\","
                   "\"nul\\u0000byte\"]");
  node = ow_tb_json_parse (buf.data, buf.len, NULL, 0);
  /* "\u0000" is refused by the reader by design; the first two round-trip. */
  g_assert_null (node);
  ow_tb_buf_reset (&buf);
  g_assert_cmpuint (buf.len, ==, 0);
  g_assert_cmpstr (buf.data, ==, "");
  ow_tb_buf_printf (&buf, "%d-%s", 7, "x");
  for (int i = 0; i < 1000; i++)
    ow_tb_buf_append (&buf, "0123456789", 10);
  g_assert_cmpuint (buf.len, ==, 10003);
  g_assert_cmpuint (strlen (buf.data), ==, 10003);
  ow_tb_buf_free (&buf);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/body/json/valid", test_valid);
  g_test_add_func ("/ow/body/json/invalid", test_invalid);
  g_test_add_func ("/ow/body/json/error-offset", test_error_offset);
  g_test_add_func ("/ow/body/json/duplicate-keys", test_duplicate_keys);
  g_test_add_func ("/ow/body/json/depth", test_depth);
  g_test_add_func ("/ow/body/json/unicode", test_unicode);
  g_test_add_func ("/ow/body/json/locale", test_locale_independent);
  g_test_add_func ("/ow/body/buf/writer", test_writer);
  return g_test_run ();
}
