/* test-toml.c: the TOML 1.0 reader and writer (engine/store/ow-toml.c).
 *
 * Three tables drive most of the tests: documents that must parse, each
 * with the JSON tree it must give (types included: 1 is an integer, 1.0 a
 * float); documents that must be refused, each with the line, column, error
 * code and a phrase of the message; and trees with the exact TOML the writer
 * must produce. Every valid document also goes through the writer and back.
 * A realistic OpenWorker config.toml closes the file.
 */
#include "ow-error.h"
#include "store/ow-toml.h"

#include <math.h>
#include <string.h>

/* ---- Tree comparison ---- */

/* Stricter than json_node_equal: value types must match (1 is not 1.0),
 * doubles are compared bit for bit except that any NaN equals a NaN of the
 * same sign, and with @check_order tables must list their keys in the same
 * order. */
static gboolean
nodes_identical (JsonNode *a, JsonNode *b, gboolean check_order)
{
  if (JSON_NODE_TYPE (a) != JSON_NODE_TYPE (b))
    return FALSE;
  switch (JSON_NODE_TYPE (a))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *oa = json_node_get_object (a), *ob = json_node_get_object (b);
        g_autoptr(GList) ma = json_object_get_members (oa);
        g_autoptr(GList) mb = json_object_get_members (ob);

        if (g_list_length (ma) != g_list_length (mb))
          return FALSE;
        for (GList *la = ma, *lb = mb; la != NULL; la = la->next, lb = lb->next)
          {
            JsonNode *other = json_object_get_member (ob, la->data);

            if (check_order && strcmp (la->data, lb->data) != 0)
              return FALSE;
            if (other == NULL || !nodes_identical (json_object_get_member (oa, la->data), other,
                                                   check_order))
              return FALSE;
          }
        return TRUE;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *aa = json_node_get_array (a), *ab = json_node_get_array (b);

        if (json_array_get_length (aa) != json_array_get_length (ab))
          return FALSE;
        for (guint i = 0; i < json_array_get_length (aa); i++)
          if (!nodes_identical (json_array_get_element (aa, i), json_array_get_element (ab, i),
                                check_order))
            return FALSE;
        return TRUE;
      }
    case JSON_NODE_NULL:
      return TRUE;
    case JSON_NODE_VALUE:
    default:
      break;
    }
  if (json_node_get_value_type (a) != json_node_get_value_type (b))
    return FALSE;
  switch (json_node_get_value_type (a))
    {
    case G_TYPE_INT64:
      return json_node_get_int (a) == json_node_get_int (b);
    case G_TYPE_BOOLEAN:
      return json_node_get_boolean (a) == json_node_get_boolean (b);
    case G_TYPE_STRING:
      return g_strcmp0 (json_node_get_string (a), json_node_get_string (b)) == 0;
    case G_TYPE_DOUBLE:
      {
        double da = json_node_get_double (a), db = json_node_get_double (b);

        if (isnan (da) || isnan (db))
          return isnan (da) && isnan (db) && !signbit (da) == !signbit (db);
        return memcmp (&da, &db, sizeof da) == 0;
      }
    default:
      return FALSE;
    }
}

static gboolean
tree_has_nan (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autoptr(GList) members = json_object_get_members (json_node_get_object (node));

      for (GList *l = members; l != NULL; l = l->next)
        if (tree_has_nan (json_object_get_member (json_node_get_object (node), l->data)))
          return TRUE;
      return FALSE;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (tree_has_nan (json_array_get_element (array, i)))
          return TRUE;
      return FALSE;
    }
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE
         && isnan (json_node_get_double (node));
}

static JsonNode *
json_from_text (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static char *
tree_to_text (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

static JsonNode *
parse_ok (const char *toml, gssize len)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root = ow_toml_parse (toml, len, &error);

  g_assert_no_error (error);
  g_assert_nonnull (root);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return root;
}

/* Parses @toml, writes the tree, parses the output: the two trees must be
 * identical (key order aside: the writer puts values before sub-tables),
 * and writing the second tree must give the same text again. */
static void
assert_round_trip (JsonNode *first)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = ow_toml_write (json_node_get_object (first), &error);
  g_autoptr(JsonNode) second = NULL;
  g_autofree char *again = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (text);
  if (*text != '\0')
    g_assert_true (g_str_has_suffix (text, "\n"));
  second = ow_toml_parse (text, -1, &error);
  if (error != NULL)
    g_test_message ("writer output that does not parse:\n%s", text);
  g_assert_no_error (error);
  g_assert_true (nodes_identical (first, second, FALSE));
  if (!tree_has_nan (first))
    g_assert_true (json_node_equal (first, second));
  again = ow_toml_write (json_node_get_object (second), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (again, ==, text);
}

/* ---- Documents that must parse ---- */

typedef struct {
  const char *name;
  const char *toml;
  const char *json;
} ValidCase;

static const ValidCase valid_cases[] = {
  /* Comments and whitespace */
  { "empty", "", "{}" },
  { "blank-lines", "  \t\n\n\t\n", "{}" },
  { "comment-only", "# a comment\n", "{}" },
  { "comment-after-value", "a = 1 # the answer\n", "{\"a\":1}" },
  { "comment-unicode-and-tab", "#\tcafé ☃ \"quoted\" 'x' [y]\na = 1", "{\"a\":1}" },
  { "comment-at-eof", "a = 1 #", "{\"a\":1}" },
  { "comment-no-space", "a = 1#c\nb = \"x\"#c\nc = [1]#c\n[d]#c\n", "{\"a\":1,\"b\":\"x\",\"c\":[1],\"d\":{}}" },
  { "no-final-newline", "a = 1", "{\"a\":1}" },
  { "indentation", "\n\n  [a]\n    b = 1\n\t\tc = 2\n\n", "{\"a\":{\"b\":1,\"c\":2}}" },
  { "tabs-around-equals", "\ta\t=\t1\t\n", "{\"a\":1}" },
  { "crlf", "a = 1\r\n[b]\r\nc = \"x\"\r\n# c\r\n", "{\"a\":1,\"b\":{\"c\":\"x\"}}" },
  { "bom", "\xEF\xBB\xBF" "a = 1\n", "{\"a\":1}" },
  { "hash-in-string", "a = \"# not a comment\"\nb = '#'", "{\"a\":\"# not a comment\",\"b\":\"#\"}" },

  /* Keys */
  { "bare-keys", "key = 1\nbare_key = 2\nbare-key = 3\n1234 = 4\nABC = 5",
    "{\"key\":1,\"bare_key\":2,\"bare-key\":3,\"1234\":4,\"ABC\":5}" },
  { "quoted-keys",
    "\"127.0.0.1\" = 1\n\"character encoding\" = 2\n\"ʎǝʞ\" = 3\n'key2' = 4\n'quoted \"value\"' = 5",
    "{\"127.0.0.1\":1,\"character encoding\":2,\"ʎǝʞ\":3,\"key2\":4,\"quoted \\\"value\\\"\":5}" },
  { "empty-quoted-key", "\"\" = 1", "{\"\":1}" },
  { "empty-literal-key", "'' = 'blank'", "{\"\":\"blank\"}" },
  { "dotted-keys",
    "name = \"Orange\"\nphysical.color = \"orange\"\nphysical.shape = \"round\"\nsite.\"google.com\" = true",
    "{\"name\":\"Orange\",\"physical\":{\"color\":\"orange\",\"shape\":\"round\"},"
    "\"site\":{\"google.com\":true}}" },
  { "dotted-keys-whitespace", "fruit . color = 1\n  fruit.\tflavor = 2\nfruit. 'x y' = 3",
    "{\"fruit\":{\"color\":1,\"flavor\":2,\"x y\":3}}" },
  { "number-like-key", "3.14159 = \"pi\"", "{\"3\":{\"14159\":\"pi\"}}" },
  { "dotted-keys-interleaved", "apple.type = \"fruit\"\norange.type = \"fruit\"\napple.skin = \"thin\"",
    "{\"apple\":{\"type\":\"fruit\",\"skin\":\"thin\"},\"orange\":{\"type\":\"fruit\"}}" },
  { "escaped-key", "\"a\\tb\" = 1\n\"\\u00e9\" = 2", "{\"a\\tb\":1,\"é\":2}" },
  { "keyword-keys", "true = true\nfalse = 0\ninf = 'x'\nnan = 1.5",
    "{\"true\":true,\"false\":0,\"inf\":\"x\",\"nan\":1.5}" },
  { "dash-and-hex-keys", "- = 1\n0x1 = 2\n_ = 3", "{\"-\":1,\"0x1\":2,\"_\":3}" },
  { "deep-dotted", "a.b.c = 1\na.d = 2\na.b.e = 3", "{\"a\":{\"b\":{\"c\":1,\"e\":3},\"d\":2}}" },
  { "same-key-in-different-tables", "a = 1\n[b]\na = 2\n[b.c]\na = 3",
    "{\"a\":1,\"b\":{\"a\":2,\"c\":{\"a\":3}}}" },

  /* Basic strings */
  { "basic-string",
    "str = \"I'm a string. \\\"You can quote me\\\". Name\\tJos\\u00E9\\nLocation\\tSF.\"",
    "{\"str\":\"I'm a string. \\\"You can quote me\\\". Name\\tJosé\\nLocation\\tSF.\"}" },
  { "all-short-escapes", "s = \"\\b\\t\\n\\f\\r\\\"\\\\\"", "{\"s\":\"\\b\\t\\n\\f\\r\\\"\\\\\"}" },
  { "long-unicode-escape", "s = \"\\U0001F600 \\U0010FFFF\"", "{\"s\":\"😀 \U0010FFFF\"}" },
  { "escaped-controls", "s = \"\\u0001\\u007f\\u001F\"", "{\"s\":\"\\u0001\\u007f\\u001f\"}" },
  { "raw-unicode", "s = \"日本語 ñ\"", "{\"s\":\"日本語 ñ\"}" },
  { "empty-basic", "s = \"\"", "{\"s\":\"\"}" },
  { "raw-tab", "s = \"a\tb\"", "{\"s\":\"a\\tb\"}" },

  /* Multi-line basic strings */
  { "ml-first-newline-trimmed", "s = \"\"\"\nRoses\"\"\"", "{\"s\":\"Roses\"}" },
  { "ml-newlines-kept", "s = \"\"\"\nRoses are red\nViolets are blue\"\"\"",
    "{\"s\":\"Roses are red\\nViolets are blue\"}" },
  { "ml-crlf-normalized", "s = \"\"\"\r\na\r\nb\"\"\"", "{\"s\":\"a\\nb\"}" },
  { "ml-line-ending-backslash",
    "s = \"\"\"\nThe quick brown \\\n\n\n  fox jumps over \\\n    the lazy dog.\"\"\"",
    "{\"s\":\"The quick brown fox jumps over the lazy dog.\"}" },
  { "ml-backslash-trailing-spaces", "s = \"\"\"a \\   \n   b\"\"\"", "{\"s\":\"a b\"}" },
  { "ml-backslash-crlf", "s = \"\"\"x\\\r\n  y\"\"\"", "{\"s\":\"xy\"}" },
  { "ml-backslash-to-end", "s = \"\"\"\\\n  \"\"\"", "{\"s\":\"\"}" },
  { "ml-quotes-inside", "s = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"",
    "{\"s\":\"Here are two quotation marks: \\\"\\\". Simple enough.\"}" },
  { "ml-escaped-quotes",
    "s = \"\"\"Here are fifteen quotation marks: \"\"\\\"\"\"\\\"\"\"\\\"\"\"\\\"\"\"\\\".\"\"\"",
    "{\"s\":\"Here are fifteen quotation marks: \\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\".\"}" },
  { "ml-quotes-before-close",
    "s = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"",
    "{\"s\":\"\\\"This,\\\" she said, \\\"is just a pointless statement.\\\"\"}" },
  { "ml-two-quotes-before-close", "s = \"\"\"a\"\"\"\"\"", "{\"s\":\"a\\\"\\\"\"}" },
  { "ml-empty", "s = \"\"\"\"\"\"", "{\"s\":\"\"}" },
  { "ml-escaped-backslash-at-end", "s = \"\"\"a\\\\\"\"\"", "{\"s\":\"a\\\\\"}" },
  { "ml-escaped-triple-quote", "s = \"\"\"a\\\"\"\"b\"\"\"", "{\"s\":\"a\\\"\\\"\\\"b\"}" },

  /* Literal strings */
  { "literal", "s = 'C:\\Users\\nodejs\\templates'", "{\"s\":\"C:\\\\Users\\\\nodejs\\\\templates\"}" },
  { "literal-double-quotes", "s = 'Tom \"Dubs\" Preston-Werner'",
    "{\"s\":\"Tom \\\"Dubs\\\" Preston-Werner\"}" },
  { "literal-regex", "s = '<\\i\\c*\\s*>'", "{\"s\":\"<\\\\i\\\\c*\\\\s*>\"}" },
  { "ml-literal",
    "s = '''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''",
    "{\"s\":\"The first newline is\\ntrimmed in raw strings.\\n   All other whitespace\\n   is "
    "preserved.\\n\"}" },
  { "ml-literal-quotes", "s = '''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''",
    "{\"s\":\"Here are fifteen quotation marks: "
    "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\"}" },
  { "ml-literal-quotes-before-close", "s = ''''That,' she said, 'is still pointless.''''",
    "{\"s\":\"'That,' she said, 'is still pointless.'\"}" },
  { "ml-literal-crlf", "s = '''\r\nx\r\ny'''", "{\"s\":\"x\\ny\"}" },
  { "ml-literal-backslash-kept", "s = '''a \\\nb'''", "{\"s\":\"a \\\\\\nb\"}" },

  /* Integers */
  { "integers", "a = +99\nb = 42\nc = 0\nd = -17", "{\"a\":99,\"b\":42,\"c\":0,\"d\":-17}" },
  { "integer-underscores", "a = 1_000\nb = 5_349_221\nc = 53_49_221\nd = 1_2_3_4_5",
    "{\"a\":1000,\"b\":5349221,\"c\":5349221,\"d\":12345}" },
  { "hex-oct-bin",
    "a = 0xDEADBEEF\nb = 0xdeadbeef\nc = 0xdead_beef\nd = 0o01234567\ne = 0o755\nf = 0b11010110",
    "{\"a\":3735928559,\"b\":3735928559,\"c\":3735928559,\"d\":342391,\"e\":493,\"f\":214}" },
  { "integer-limits", "max = 9223372036854775807\nmin = -9223372036854775808",
    "{\"max\":9223372036854775807,\"min\":-9223372036854775808}" },
  { "hex-max", "a = 0x7FFFFFFFFFFFFFFF\nb = 0o777777777777777777777\nc = 0b0111", "{\"a\":9223372036854775807,\"b\":9223372036854775807,\"c\":7}" },
  { "signed-zeros", "a = +0\nb = -0\nc = 0x00\nd = 0o0\ne = 0b0\nf = 0x0001",
    "{\"a\":0,\"b\":0,\"c\":0,\"d\":0,\"e\":0,\"f\":1}" },

  /* Floats */
  { "floats",
    "a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\ng = 6.626e-34\nh = 224_617.445_991_228",
    "{\"a\":1.0,\"b\":3.1415,\"c\":-0.01,\"d\":5e22,\"e\":1e6,\"f\":-0.02,\"g\":6.626e-34,"
    "\"h\":224617.445991228}" },
  { "float-zeros", "a = 0.0\nb = +0.0\nc = -0.0\nd = 0e0", "{\"a\":0.0,\"b\":0.0,\"c\":-0.0,\"d\":0.0}" },
  { "float-exponent-underscore", "a = 1e1_0\nb = 1_0.0_1e0_1", "{\"a\":1e10,\"b\":100.1}" },
  { "float-exponent-only", "a = 1e0\nb = 3E2", "{\"a\":1.0,\"b\":300.0}" },
  { "float-underflow", "a = 1e-400", "{\"a\":0.0}" },
  { "float-max", "a = 1.7976931348623157e308", "{\"a\":1.7976931348623157e308}" },

  /* Booleans */
  { "booleans", "t = true\nf = false", "{\"t\":true,\"f\":false}" },

  /* Dates and times (kept as text) */
  { "offset-date-times",
    "odt1 = 1979-05-27T07:32:00Z\nodt2 = 1979-05-27T00:32:00-07:00\nodt3 = 1979-05-27T00:32:00.999999-07:00",
    "{\"odt1\":\"1979-05-27T07:32:00Z\",\"odt2\":\"1979-05-27T00:32:00-07:00\","
    "\"odt3\":\"1979-05-27T00:32:00.999999-07:00\"}" },
  { "space-delimiter", "odt4 = 1979-05-27 07:32:00Z", "{\"odt4\":\"1979-05-27 07:32:00Z\"}" },
  { "lowercase-t-and-z", "a = 1979-05-27t07:32:00z", "{\"a\":\"1979-05-27t07:32:00z\"}" },
  { "local-date-times", "ldt1 = 1979-05-27T07:32:00\nldt2 = 1979-05-27T00:32:00.999999",
    "{\"ldt1\":\"1979-05-27T07:32:00\",\"ldt2\":\"1979-05-27T00:32:00.999999\"}" },
  { "local-date", "ld1 = 1979-05-27", "{\"ld1\":\"1979-05-27\"}" },
  { "local-times", "lt1 = 07:32:00\nlt2 = 00:32:00.999999", "{\"lt1\":\"07:32:00\",\"lt2\":\"00:32:00.999999\"}" },
  { "leap-days", "a = 2000-02-29\nb = 2024-02-29", "{\"a\":\"2000-02-29\",\"b\":\"2024-02-29\"}" },
  { "date-then-comment", "a = 1979-05-27 # comment", "{\"a\":\"1979-05-27\"}" },
  { "leap-second", "a = 1990-12-31T23:59:60Z", "{\"a\":\"1990-12-31T23:59:60Z\"}" },
  { "dates-in-array", "a = [1979-05-27, 07:32:00, 1979-05-27 07:32:00]",
    "{\"a\":[\"1979-05-27\",\"07:32:00\",\"1979-05-27 07:32:00\"]}" },
  { "max-offset", "a = 2023-12-31T23:59:59.123456789+23:59",
    "{\"a\":\"2023-12-31T23:59:59.123456789+23:59\"}" },

  /* Arrays */
  { "arrays",
    "integers = [ 1, 2, 3 ]\ncolors = [ \"red\", \"yellow\", \"green\" ]\n"
    "nested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]\nnested_mixed_array = [ [ 1, 2 ], [\"a\", \"b\", \"c\"] ]\n"
    "string_array = [ \"all\", 'strings', \"\"\"are the same\"\"\", '''type''' ]",
    "{\"integers\":[1,2,3],\"colors\":[\"red\",\"yellow\",\"green\"],"
    "\"nested_arrays_of_ints\":[[1,2],[3,4,5]],\"nested_mixed_array\":[[1,2],[\"a\",\"b\",\"c\"]],"
    "\"string_array\":[\"all\",\"strings\",\"are the same\",\"type\"]}" },
  { "mixed-types",
    "numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]\ncontributors = [\n  \"Foo Bar <foo@example.com>\",\n"
    "  { name = \"Baz Qux\", email = \"bazqux@example.com\" }\n]",
    "{\"numbers\":[0.1,0.2,0.5,1,2,5],\"contributors\":[\"Foo Bar <foo@example.com>\","
    "{\"name\":\"Baz Qux\",\"email\":\"bazqux@example.com\"}]}" },
  { "multiline-trailing-comma", "integers2 = [\n  1, 2, 3\n]\nintegers3 = [\n  1,\n  2, # this is ok\n]",
    "{\"integers2\":[1,2,3],\"integers3\":[1,2]}" },
  { "trailing-comma-one-line", "a = [1, 2,]", "{\"a\":[1,2]}" },
  { "empty-arrays", "a = []\nb = [ ]\nc = [\n]\nd = [ # c\n]", "{\"a\":[],\"b\":[],\"c\":[],\"d\":[]}" },
  { "comments-in-array", "a = [ # start\n 1, # one\n # alone\n 2 # two\n ] # end", "{\"a\":[1,2]}" },
  { "nested-empty-arrays", "a = [[], [[]]]", "{\"a\":[[],[[]]]}" },
  { "array-of-inline-tables", "points = [ { x = 1, y = 2 }, { x = 7, y = 8 } ]",
    "{\"points\":[{\"x\":1,\"y\":2},{\"x\":7,\"y\":8}]}" },
  { "crlf-in-array", "a = [\r\n1,\r\n2\r\n]", "{\"a\":[1,2]}" },
  { "array-of-booleans-and-floats", "a = [true, false, 1.0]\nb = [1.5, -2e3]",
    "{\"a\":[true,false,1.0],\"b\":[1.5,-2000.0]}" },

  /* Tables */
  { "tables",
    "[table-1]\nkey1 = \"some string\"\nkey2 = 123\n\n[table-2]\nkey1 = \"another string\"\nkey2 = 456",
    "{\"table-1\":{\"key1\":\"some string\",\"key2\":123},\"table-2\":{\"key1\":\"another string\",\"key2\":456}}" },
  { "quoted-header-part", "[dog.\"tater.man\"]\ntype.name = \"pug\"",
    "{\"dog\":{\"tater.man\":{\"type\":{\"name\":\"pug\"}}}}" },
  { "header-whitespace", "[a.b.c]\n[ d.e.f ]\n[ g .  h  . i ]\n[ j . \"ʞ\" . 'l' ]",
    "{\"a\":{\"b\":{\"c\":{}}},\"d\":{\"e\":{\"f\":{}}},\"g\":{\"h\":{\"i\":{}}},\"j\":{\"ʞ\":{\"l\":{}}}}" },
  { "implicit-parents", "[x.y.z.w]\n", "{\"x\":{\"y\":{\"z\":{\"w\":{}}}}}" },
  { "parent-after-child", "[x.y.z.w]\n[x]\na = 1", "{\"x\":{\"y\":{\"z\":{\"w\":{}}},\"a\":1}}" },
  { "out-of-order", "[fruit.apple]\n[animal]\n[fruit.orange]",
    "{\"fruit\":{\"apple\":{},\"orange\":{}},\"animal\":{}}" },
  { "root-before-headers", "name = \"Fido\"\nbreed = \"pug\"\n\n[owner]\nname = \"Regina Dogman\"\nmember_since = 1999-08-04",
    "{\"name\":\"Fido\",\"breed\":\"pug\",\"owner\":{\"name\":\"Regina Dogman\",\"member_since\":\"1999-08-04\"}}" },
  { "dotted-defines-tables", "fruit.apple.color = \"red\"\nfruit.apple.taste.sweet = true",
    "{\"fruit\":{\"apple\":{\"color\":\"red\",\"taste\":{\"sweet\":true}}}}" },
  { "subtable-of-dotted", "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n\n[fruit.apple.texture]\nsmooth = true",
    "{\"fruit\":{\"apple\":{\"color\":\"red\",\"taste\":{\"sweet\":true},\"texture\":{\"smooth\":true}}}}" },
  { "empty-table", "[a]\n", "{\"a\":{}}" },
  { "header-comment", "[a] # c\nb = 1", "{\"a\":{\"b\":1}}" },
  { "quoted-header", "[\"a b\".'c']\nd = 1", "{\"a b\":{\"c\":{\"d\":1}}}" },
  { "dotted-into-implicit", "[a.b.c]\nz = 1\n[a]\nb.y = 2",
    "{\"a\":{\"b\":{\"c\":{\"z\":1},\"y\":2}}}" },
  { "define-parent-of-array", "[[a.b]]\nx = 1\n[a]\ny = 2", "{\"a\":{\"b\":[{\"x\":1}],\"y\":2}}" },
  { "header-through-root-dotted", "a.b = 1\n[a.c]\nd = 2", "{\"a\":{\"b\":1,\"c\":{\"d\":2}}}" },

  /* Inline tables */
  { "inline-tables",
    "name = { first = \"Tom\", last = \"Preston-Werner\" }\npoint = { x = 1, y = 2 }\nanimal = { type.name = \"pug\" }",
    "{\"name\":{\"first\":\"Tom\",\"last\":\"Preston-Werner\"},\"point\":{\"x\":1,\"y\":2},"
    "\"animal\":{\"type\":{\"name\":\"pug\"}}}" },
  { "inline-empty", "a = {}\nb = { }\nc = {\t}", "{\"a\":{},\"b\":{},\"c\":{}}" },
  { "inline-nested", "a = { b = { c = { d = 1 } } }", "{\"a\":{\"b\":{\"c\":{\"d\":1}}}}" },
  { "inline-with-arrays", "a = { b = [1, 2], c = [{ d = 1 }] }", "{\"a\":{\"b\":[1,2],\"c\":[{\"d\":1}]}}" },
  { "inline-dotted-shared-prefix", "a = { b.c = 1, b.d = 2 }", "{\"a\":{\"b\":{\"c\":1,\"d\":2}}}" },
  { "inline-no-spaces", "a={b=1,c=\"x\"}", "{\"a\":{\"b\":1,\"c\":\"x\"}}" },
  { "inline-in-header-table", "[t]\na = { x = 1 }\nb.c = { y = 2 }", "{\"t\":{\"a\":{\"x\":1},\"b\":{\"c\":{\"y\":2}}}}" },

  /* Arrays of tables */
  { "array-of-tables",
    "[[products]]\nname = \"Hammer\"\nsku = 738594937\n\n[[products]]  # empty table within the array\n\n"
    "[[products]]\nname = \"Nail\"\nsku = 284758393\n\ncolor = \"gray\"",
    "{\"products\":[{\"name\":\"Hammer\",\"sku\":738594937},{},{\"name\":\"Nail\",\"sku\":284758393,\"color\":\"gray\"}]}" },
  { "nested-arrays-of-tables",
    "[[fruits]]\nname = \"apple\"\n\n[fruits.physical]  # subtable\ncolor = \"red\"\nshape = \"round\"\n\n"
    "[[fruits.varieties]]  # nested array of tables\nname = \"red delicious\"\n\n"
    "[[fruits.varieties]]\nname = \"granny smith\"\n\n\n[[fruits]]\nname = \"banana\"\n\n"
    "[[fruits.varieties]]\nname = \"plantain\"",
    "{\"fruits\":[{\"name\":\"apple\",\"physical\":{\"color\":\"red\",\"shape\":\"round\"},"
    "\"varieties\":[{\"name\":\"red delicious\"},{\"name\":\"granny smith\"}]},"
    "{\"name\":\"banana\",\"varieties\":[{\"name\":\"plantain\"}]}]}" },
  { "subtable-per-element", "[[a]]\n[a.b]\nx = 1\n[[a]]\n[a.b]\nx = 2",
    "{\"a\":[{\"b\":{\"x\":1}},{\"b\":{\"x\":2}}]}" },
  { "dotted-per-element", "[[a]]\nb.c = 1\n[[a]]\nb.c = 2", "{\"a\":[{\"b\":{\"c\":1}},{\"b\":{\"c\":2}}]}" },
  { "array-of-tables-whitespace", "[[ a . b ]]\n[[\ta.b\t]]", "{\"a\":{\"b\":[{},{}]}}" },
  { "array-of-tables-quoted", "[['a b'.\"c\"]]\nx = 1", "{\"a b\":{\"c\":[{\"x\":1}]}}" },
};

static void
test_valid (gconstpointer data)
{
  const ValidCase *c = data;
  g_autoptr(JsonNode) got = parse_ok (c->toml, -1);
  g_autoptr(JsonNode) want = json_from_text (c->json);

  if (!nodes_identical (got, want, TRUE))
    {
      g_autofree char *got_text = tree_to_text (got);
      g_test_message ("got  %s\nwant %s", got_text, c->json);
      g_test_fail ();
    }
  assert_round_trip (got);
}

/* ---- Documents that must be refused ---- */

typedef struct {
  const char *name;
  const char *toml;
  int line;
  int column;
  OwTomlError code;
  const char *says; /* a phrase the message must contain */
} InvalidCase;

#define SYNTAX OW_TOML_ERROR_SYNTAX
#define DUP OW_TOML_ERROR_DUPLICATE

static const InvalidCase invalid_cases[] = {
  /* Key/value pairs */
  { "no-value", "a =", 1, 4, SYNTAX, "expected a value, found the end of the file" },
  { "no-value-newline", "a =\nb = 1", 1, 4, SYNTAX, "expected a value, found the end of the line" },
  { "no-equals", "a 1", 1, 3, SYNTAX, "expected '=' after the key a" },
  { "key-alone", "a\n", 1, 2, SYNTAX, "expected '='" },
  { "no-key", "= 1", 1, 1, SYNTAX, "expected a key, found '='" },
  { "dot-at-end-of-key", "a. = 1", 1, 4, SYNTAX, "expected a key" },
  { "double-dot", "a..b = 1", 1, 3, SYNTAX, "expected a key, found '.'" },
  { "bad-bare-key-char", "a$b = 1", 1, 2, SYNTAX, "not allowed in a bare key" },
  { "non-ascii-bare-key", "é = 1", 1, 1, SYNTAX, "put other keys in quotes" },
  { "nbsp-after-key", "a\xC2\xA0= 1", 1, 2, SYNTAX, "not allowed in a bare key" },
  { "multiline-key", "\"\"\"a\"\"\" = 1", 1, 1, SYNTAX, "cannot be a multi-line string" },
  { "two-pairs-on-a-line", "a = 1 b = 2", 1, 7, SYNTAX, "expected the end of the line after the value" },
  { "newline-in-quoted-key", "\"a\nb\" = 1", 1, 1, SYNTAX, "not closed before the end of the line" },
  { "space-in-bare-key", "a b = 1", 1, 3, SYNTAX, "expected '=' after the key a, found 'b'" },
  { "value-on-next-line", "a =\n1", 1, 4, SYNTAX, "expected a value" },

  /* Redefinition of keys */
  { "duplicate-key", "a = 1\na = 2", 2, 1, DUP, "the key a is defined twice" },
  { "duplicate-quoted-key", "a = 1\n\"a\" = 2", 2, 1, DUP, "defined twice" },
  { "duplicate-literal-key", "'a' = 1\na = 2", 2, 1, DUP, "defined twice" },
  { "duplicate-dotted-key", "a.b = 1\na.b = 2", 2, 3, DUP, "the key a.b is defined twice" },
  { "dotted-over-value", "a = 1\na.b = 2", 2, 1, DUP, "a is already an integer" },
  { "value-over-dotted-table", "a.b = 1\na = 2", 2, 1, DUP, "the key a is defined twice" },
  { "duplicate-in-table", "[t]\nx = 1\ny = 2\nx = 3", 4, 1, DUP, "the key x is defined twice" },
  { "duplicate-key-quoted-name", "\"a b\" = 1\n'a b' = 2", 2, 1, DUP, "the key \"a b\" is defined twice" },

  /* Basic strings */
  { "unterminated-string", "a = \"abc", 1, 5, SYNTAX, "this string is not closed" },
  { "newline-in-string", "a = \"abc\nd\"", 1, 5, SYNTAX, "use \"\"\" for a string that spans lines" },
  { "escape-x", "a = \"\\x41\"", 1, 6, SYNTAX, "invalid escape sequence: a backslash followed by 'x'" },
  { "escape-e", "a = \"\\e\"", 1, 6, SYNTAX, "invalid escape sequence" },
  { "escape-space", "a = \"a\\ b\"", 1, 7, SYNTAX, "a backslash followed by a space" },
  { "short-u-escape", "a = \"\\u12\"", 1, 6, SYNTAX, "exactly 4 hexadecimal digits" },
  { "bad-hex-in-u-escape", "a = \"\\u12G4\"", 1, 6, SYNTAX, "exactly 4 hexadecimal digits" },
  { "short-U-escape", "a = \"\\U0001F60\"", 1, 6, SYNTAX, "exactly 8 hexadecimal digits" },
  { "surrogate-escape", "a = \"\\uD800\"", 1, 6, SYNTAX, "not a Unicode scalar value" },
  { "too-large-escape", "a = \"\\U00110000\"", 1, 6, SYNTAX, "not a Unicode scalar value" },
  { "null-escape", "a = \"x\\u0000\"", 1, 7, SYNTAX, "null character" },
  { "raw-control-char", "a = \"a\x01" "b\"", 1, 7, SYNTAX, "control character U+0001" },
  { "raw-delete", "a = \"\x7F\"", 1, 6, SYNTAX, "control character U+007F" },
  { "raw-cr-in-string", "a = \"a\rb\"", 1, 5, SYNTAX, "not closed before the end of the line" },
  { "string-then-junk", "a = \"x\"y", 1, 8, SYNTAX, "expected the end of the line after the value, found 'y'" },
  { "two-strings", "a = \"x\" \"y\"", 1, 9, SYNTAX, "expected the end of the line" },

  /* Multi-line basic strings */
  { "unterminated-ml", "a = \"\"\"abc\n\ndef", 1, 5, SYNTAX, "never closed" },
  { "too-many-quotes-ml", "a = \"\"\"a\"\"\"\"\"\"", 1, 14, SYNTAX, "too many quotes" },
  { "backslash-space-mid-line", "a = \"\"\"a\\ b\"\"\"", 1, 9, SYNTAX, "only allowed at the end of a line" },
  { "ml-control-char", "a = \"\"\"\x01\"\"\"", 1, 8, SYNTAX, "control character U+0001" },
  { "ml-lone-cr", "a = \"\"\"a\rb\"\"\"", 1, 9, SYNTAX, "carriage return" },
  { "ml-bad-escape", "a = \"\"\"\nok\n\\q\"\"\"", 3, 1, SYNTAX, "invalid escape" },
  { "ml-junk-after", "a = \"\"\"a\"\"\"b", 1, 12, SYNTAX, "expected the end of the line" },

  /* Literal strings */
  { "unterminated-literal", "a = 'abc", 1, 5, SYNTAX, "this string is not closed (expected '" },
  { "newline-in-literal", "a = 'a\nb'", 1, 5, SYNTAX, "not closed before the end of the line" },
  { "control-in-literal", "a = 'a\x08" "b'", 1, 7, SYNTAX, "control character U+0008 is not allowed in a literal string" },
  { "too-many-quotes-ml-literal", "a = '''a''''''", 1, 14, SYNTAX, "too many quotes" },
  { "unterminated-ml-literal", "a = '''abc", 1, 5, SYNTAX, "never closed (expected ''')" },
  { "ml-literal-closed-early", "a = '''a'''b'''", 1, 12, SYNTAX, "expected the end of the line" },
  { "ml-literal-control", "a = '''\n\x7F'''", 2, 1, SYNTAX, "control character U+007F" },

  /* Integers */
  { "leading-zero", "a = 01", 1, 5, SYNTAX, "leading zeros are not allowed" },
  { "leading-zero-negative", "a = -01", 1, 6, SYNTAX, "leading zeros" },
  { "leading-zero-underscore", "a = 0_1", 1, 5, SYNTAX, "leading zeros" },
  { "leading-underscore", "a = _1", 1, 5, SYNTAX, "underscore in a number must stand between two digits" },
  { "trailing-underscore", "a = 1_", 1, 6, SYNTAX, "between two digits" },
  { "double-underscore", "a = 1__2", 1, 6, SYNTAX, "between two digits" },
  { "integer-overflow", "a = 9223372036854775808", 1, 5, SYNTAX, "does not fit in 64 bits" },
  { "integer-underflow", "a = -9223372036854775809", 1, 5, SYNTAX, "does not fit in 64 bits" },
  { "huge-integer", "a = 123456789012345678901234567890", 1, 5, SYNTAX, "does not fit in 64 bits" },
  { "hex-overflow", "a = 0x8000000000000000", 1, 5, SYNTAX, "does not fit in 64 bits" },
  { "signed-hex", "a = +0x1", 1, 5, SYNTAX, "cannot have a sign" },
  { "signed-binary", "a = -0b1", 1, 5, SYNTAX, "cannot have a sign" },
  { "uppercase-prefix", "a = 0X1", 1, 6, SYNTAX, "unexpected 'X' in the number" },
  { "empty-hex", "a = 0x", 1, 7, SYNTAX, "expected a hexadecimal digit" },
  { "bad-octal-digit", "a = 0o8", 1, 7, SYNTAX, "expected an octal digit, found '8'" },
  { "bad-binary-digit", "a = 0b102", 1, 9, SYNTAX, "unexpected '2' in the number" },
  { "hex-leading-underscore", "a = 0x_1", 1, 7, SYNTAX, "between two digits" },
  { "sign-only", "a = +", 1, 6, SYNTAX, "expected a digit" },
  { "double-sign", "a = +-1", 1, 6, SYNTAX, "expected a digit, found '-'" },
  { "integer-with-letters", "a = 12abc", 1, 7, SYNTAX, "unexpected 'a' in the number" },

  /* Floats */
  { "float-no-fraction", "a = 1.", 1, 7, SYNTAX, "expected a digit after the decimal point" },
  { "float-no-integer-part", "a = .5", 1, 5, SYNTAX, "expected a digit, found '.'" },
  { "float-dot-exponent", "a = 1.e5", 1, 7, SYNTAX, "after the decimal point" },
  { "float-empty-exponent", "a = 1e", 1, 7, SYNTAX, "expected a digit in the exponent" },
  { "float-exponent-underscore", "a = 1e_5", 1, 7, SYNTAX, "between two digits" },
  { "float-leading-zero", "a = 03.14", 1, 5, SYNTAX, "leading zeros" },
  { "float-trailing-underscore", "a = 1.5_", 1, 8, SYNTAX, "between two digits" },
  { "float-underscore-before-dot", "a = 1_.5", 1, 6, SYNTAX, "between two digits" },
  { "float-two-dots", "a = 1.2.3", 1, 8, SYNTAX, "unexpected '.' in the number" },
  { "float-overflow", "a = 1e400", 1, 5, SYNTAX, "too large for a 64-bit float" },
  { "float-dot-in-exponent", "a = 1e5.1", 1, 8, SYNTAX, "unexpected '.'" },
  { "infinity-spelled-out", "a = infinity", 1, 5, SYNTAX, "'infinity' is not a valid value" },
  { "capital-inf", "a = Inf", 1, 5, SYNTAX, "is not a valid value" },
  { "capital-nan", "a = NaN", 1, 5, SYNTAX, "is not a valid value" },
  { "double-signed-inf", "a = ++inf", 1, 6, SYNTAX, "expected a digit, found '+'" },
  { "inf-with-fraction", "a = inf.0", 1, 5, SYNTAX, "is not a valid value" },

  /* Booleans and bare words */
  { "capital-true", "a = True", 1, 5, SYNTAX, "'True' is not a valid value" },
  { "truee", "a = truee", 1, 5, SYNTAX, "not a valid value" },
  { "tru", "a = tru", 1, 5, SYNTAX, "not a valid value" },
  { "unquoted-string", "a = hello", 1, 5, SYNTAX, "strings must be in quotes" },

  /* Dates and times */
  { "month-13", "a = 1979-13-27", 1, 10, SYNTAX, "the month 13 is out of range" },
  { "month-00", "a = 1979-00-10", 1, 10, SYNTAX, "the month 00 is out of range" },
  { "day-32", "a = 1979-05-32", 1, 13, SYNTAX, "the day 32 is out of range" },
  { "day-00", "a = 1979-01-00", 1, 13, SYNTAX, "the day 00 is out of range" },
  { "april-31", "a = 2024-04-31", 1, 13, SYNTAX, "out of range for 2024-04 (01 to 30)" },
  { "feb-29-common-year", "a = 2023-02-29", 1, 13, SYNTAX, "out of range for 2023-02 (01 to 28)" },
  { "feb-29-1900", "a = 1900-02-29", 1, 13, SYNTAX, "out of range" },
  { "hour-24", "a = 24:00:00", 1, 5, SYNTAX, "the hour 24 is out of range" },
  { "minute-60", "a = 12:60:00", 1, 8, SYNTAX, "the minute 60 is out of range" },
  { "second-61", "a = 12:00:61", 1, 11, SYNTAX, "the second 61 is out of range" },
  { "no-seconds", "a = 12:30", 1, 10, SYNTAX, "TOML 1.0 times are HH:MM:SS" },
  { "no-time-after-t", "a = 1979-05-27T", 1, 16, SYNTAX, "expected two digits for the hour" },
  { "time-with-offset", "a = 07:32:00Z", 1, 13, SYNTAX, "a time without a date cannot have a time zone offset" },
  { "short-offset-hour", "a = 1979-05-27T07:32:00+7:00", 1, 26, SYNTAX, "hour of the offset" },
  { "offset-hour-24", "a = 1979-05-27T07:32:00+24:00", 1, 25, SYNTAX, "the offset hour 24 is out of range" },
  { "offset-minute-60", "a = 1979-05-27T07:32:00-01:60", 1, 28, SYNTAX, "offset minute 60" },
  { "offset-without-colon", "a = 1979-05-27T07:32:00+0700", 1, 27, SYNTAX, "expected ':' in the offset" },
  { "fraction-without-digits", "a = 07:32:00.", 1, 14, SYNTAX, "expected a digit after the decimal point of the seconds" },
  { "one-digit-month", "a = 1979-5-27", 1, 11, SYNTAX, "a date is written YYYY-MM-DD" },
  { "two-spaces-before-time", "a = 1979-05-27  07:32:00", 1, 17, SYNTAX, "expected the end of the line" },
  { "junk-after-date", "a = 1979-05-27x", 1, 15, SYNTAX, "unexpected 'x' after the date" },
  { "junk-after-date-time", "a = 1979-05-27T07:32:00Zx", 1, 25, SYNTAX, "unexpected 'x' in the date-time" },
  { "one-digit-hour", "a = 7:32:00", 1, 6, SYNTAX, "unexpected ':' in the number" },

  /* Arrays */
  { "unclosed-array", "a = [1, 2", 1, 5, SYNTAX, "this array is never closed" },
  { "missing-comma", "a = [1 2]", 1, 8, SYNTAX, "expected ',' or ']' after an array element, found '2'" },
  { "leading-comma", "a = [,1]", 1, 6, SYNTAX, "expected a value, found ','" },
  { "double-comma", "a = [1,,2]", 1, 8, SYNTAX, "expected a value, found ','" },
  { "unclosed-multiline-array", "a = [1,\n2,\n", 1, 5, SYNTAX, "never closed" },
  { "bad-value-in-array", "a = [1, x]", 1, 9, SYNTAX, "'x' is not a valid value" },
  { "comment-swallows-close", "a = [1 # ]", 1, 5, SYNTAX, "never closed" },
  { "lone-cr-in-array", "a = [1,\r2]", 1, 8, SYNTAX, "carriage return" },

  /* Inline tables */
  { "inline-trailing-comma", "a = {b = 1,}", 1, 12, SYNTAX, "trailing comma is not allowed in an inline table" },
  { "inline-newline", "a = {b = 1,\nc = 2}", 1, 12, SYNTAX, "closed with '}' on the same line" },
  { "inline-newline-after-brace", "a = {\n}", 1, 6, SYNTAX, "on the same line" },
  { "inline-missing-comma", "a = {b = 1 c = 2}", 1, 12, SYNTAX, "expected ',' or '}' in the inline table, found 'c'" },
  { "inline-unclosed", "a = {b = 1", 1, 11, SYNTAX, "on the same line" },
  { "inline-comment", "a = {b = 1 # c\n}", 1, 12, SYNTAX, "cannot span lines or hold comments" },
  { "inline-duplicate-key", "a = {b = 1, b = 2}", 1, 13, DUP, "the key b is defined twice" },
  { "inline-extended-inside", "a = {b = {c = 1}, b.d = 2}", 1, 19, DUP, "b is an inline table, which cannot be extended" },
  { "inline-extended-by-header", "a = {b = 1}\n[a]", 2, 2, DUP, "a is an inline table" },
  { "inline-extended-by-dotted", "a = {b = 1}\na.c = 2", 2, 1, DUP, "a is an inline table" },
  { "inline-extended-by-subtable", "a = {b = 1}\n[a.c]", 2, 2, DUP, "a is an inline table" },
  { "inline-nested-extended", "a = {b = {c = 1}}\n[a.b.d]", 2, 2, DUP, "a is an inline table" },
  { "inline-extended-by-array-header", "a = {}\n[[a]]", 2, 3, DUP, "a is already a table, not an array of tables" },
  { "inline-missing-value", "a = {b = }", 1, 10, SYNTAX, "expected a value, found '}'" },
  { "inline-missing-key", "a = {= 1}", 1, 6, SYNTAX, "expected a key, found '='" },
  { "inline-only-comma", "a = {,}", 1, 6, SYNTAX, "expected a key, found ','" },

  /* Tables */
  { "table-twice", "[a]\n[a]", 2, 2, DUP, "the table [a] is defined twice" },
  { "table-twice-after-implicit", "[a.b]\n[a]\n[a]", 3, 2, DUP, "the table [a] is defined twice" },
  { "table-twice-nested", "[a.b]\nx = 1\n[a.b]", 3, 4, DUP, "the table [a.b] is defined twice" },
  { "table-over-value", "a = 1\n[a]", 2, 2, DUP, "a is already an integer" },
  { "table-through-value", "a = \"x\"\n[a.b]", 2, 2, DUP, "a is already a string" },
  { "header-over-dotted", "[fruit]\napple.color = \"red\"\n[fruit.apple]", 3, 8, DUP, "already defined by dotted keys" },
  { "header-over-dotted-deep", "[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]", 3, 14, DUP, "already defined by dotted keys" },
  { "dotted-into-header-table", "[a.b.c]\nz = 9\n[a]\nb.c.t = 1", 4, 3, DUP, "the table b.c is defined by a [header]" },
  { "dotted-into-header-table-deep", "[a.b.c.d]\nz = 9\n[a]\nb.c.d.k.t = 1", 4, 5, DUP, "defined by a [header]" },
  { "root-dotted-then-header", "a.b = 1\n[a]", 2, 2, DUP, "already defined by dotted keys" },
  { "implicit-made-dotted-then-header", "[a.b.c]\n[a]\nb.d = 1\n[a.b]", 4, 4, DUP, "already defined by dotted keys" },
  { "empty-header", "[]", 1, 2, SYNTAX, "expected a key, found ']'" },
  { "unclosed-header", "[a", 1, 3, SYNTAX, "expected ']' to close the header" },
  { "header-junk", "[a] b", 1, 5, SYNTAX, "expected the end of the line after the header, found 'b'" },
  { "header-extra-bracket", "[a]]", 1, 4, SYNTAX, "expected the end of the line after the header, found ']'" },
  { "header-newline", "[a\n]", 1, 3, SYNTAX, "expected ']'" },
  { "header-trailing-dot", "[a.]", 1, 4, SYNTAX, "expected a key, found ']'" },
  { "header-nested-bracket", "[ [a] ]", 1, 3, SYNTAX, "expected a key, found '['" },
  { "header-value", "[a] = 1", 1, 5, SYNTAX, "expected the end of the line after the header" },
  { "header-multiline-key", "[\"\"\"a\"\"\"]", 1, 2, SYNTAX, "multi-line" },
  { "header-bad-char", "[a b]", 1, 4, SYNTAX, "expected ']' to close the header, found 'b'" },

  /* Arrays of tables */
  { "static-array-appended", "a = [1]\n[[a]]", 2, 3, DUP, "a is an array value, which [[a]] cannot add to" },
  { "empty-static-array-appended", "a = []\n[[a]]", 2, 3, DUP, "cannot add to" },
  { "table-then-array", "[a]\n[[a]]", 2, 3, DUP, "a is already a table, not an array of tables" },
  { "array-then-table", "[[a]]\n[a]", 2, 2, DUP, "a is an array of tables; use [[a]]" },
  { "value-then-array", "a = 1\n[[a]]", 2, 3, DUP, "already an integer, not an array of tables" },
  { "unclosed-array-header", "[[a]", 1, 5, SYNTAX, "expected ']]' to close the header, found the end of the file" },
  { "split-array-header-close", "[[a] ]", 1, 5, SYNTAX, "expected ']]'" },
  { "split-array-header-open", "[ [a]]", 1, 3, SYNTAX, "expected a key, found '['" },
  { "header-through-static-array", "a = [{b = 1}]\n[a.c]", 2, 2, DUP, "a is an array value, which cannot be extended" },
  { "array-header-through-static-array", "a = [{}]\n[[a.b]]", 2, 3, DUP, "cannot be extended by a header" },
  { "dotted-into-array-of-tables", "[[a.b]]\n[a]\nb.c = 1", 3, 1, DUP, "b is an array; dotted keys cannot add to it" },
  { "dotted-into-static-array", "a = [1]\na.b = 2", 2, 1, DUP, "dotted keys cannot add to it" },
  { "empty-array-header", "[[]]", 1, 3, SYNTAX, "expected a key, found ']'" },
  { "array-element-table-twice", "[[a]]\n[a.b]\n[a.b]", 3, 4, DUP, "the table [a.b] is defined twice" },

  /* Newlines, encoding, character counting */
  { "lone-cr", "a = 1\rb = 2", 1, 6, SYNTAX, "a carriage return (\\r) must be followed by a line feed" },
  { "lone-cr-at-eof", "a = 1\r", 1, 6, SYNTAX, "carriage return" },
  { "invalid-utf8", "a = \"\xFF\"", 1, 6, SYNTAX, "not valid UTF-8 (the byte 0xFF" },
  { "invalid-utf8-in-comment", "# \xC3\x28", 1, 3, SYNTAX, "not valid UTF-8" },
  { "overlong-utf8", "a = \"\xC0\xAF\"", 1, 6, SYNTAX, "not valid UTF-8" },
  { "utf8-surrogate", "a = \"\xED\xA0\x80\"", 1, 6, SYNTAX, "not valid UTF-8" },
  { "truncated-utf8", "a = 1\nb = \"\xE2\x98", 2, 6, SYNTAX, "not valid UTF-8" },
  { "control-in-comment", "# a\x01", 1, 4, SYNTAX, "control character U+0001 is not allowed in a comment" },
  { "delete-in-comment", "#\x7F", 1, 2, SYNTAX, "U+007F" },
  { "lone-cr-in-comment", "# a\rb\n", 1, 4, SYNTAX, "carriage return" },
  { "columns-count-characters", "s = \"é\"\nt = \"ü\" x", 2, 9, SYNTAX, "found 'x'" },
  { "line-after-multiline-string", "a = \"\"\"\nx\ny\"\"\"\nb = ?", 4, 5, SYNTAX, "'?'" },
  { "bom-in-the-middle", "a = 1\n\xEF\xBB\xBF" "b = 2", 2, 1, SYNTAX, "U+FEFF" },
  { "vertical-tab", "a =\x0B" "1", 1, 4, SYNTAX, "expected a value, found the control character U+000B" },
  { "form-feed-line", "\x0C", 1, 1, SYNTAX, "expected a key, found the control character U+000C" },
  { "error-after-crlf-lines", "a = 1\r\nb = 2\r\nc = \r\n", 3, 5, SYNTAX, "expected a value, found the end of the line" },
};

static void
test_invalid (gconstpointer data)
{
  const InvalidCase *c = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = ow_toml_parse (c->toml, -1, &error);
  g_autofree char *prefix = g_strdup_printf ("line %d, column %d: ", c->line, c->column);

  if (root != NULL)
    {
      g_autofree char *tree = tree_to_text (root);

      /* Fail this case only, so the run goes on and names every such case. */
      g_test_message ("parsed, but must be refused; got %s", tree);
      g_test_fail ();
      return;
    }
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_error (error, OW_TOML_ERROR, (int) c->code);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, c->says) == NULL)
    {
      g_test_message ("want \"%s…%s…\"", prefix, c->says);
      g_test_fail ();
    }
}

/* ---- Cases that do not fit the tables ---- */

static void
test_special_floats (void)
{
  g_autoptr(JsonNode) root =
    parse_ok ("a = inf\nb = +inf\nc = -inf\nd = nan\ne = +nan\nf = -nan\n", -1);
  JsonObject *o = json_node_get_object (root);
  g_autofree char *text = NULL;

  g_assert_true (isinf (json_object_get_double_member (o, "a")));
  g_assert_cmpfloat (json_object_get_double_member (o, "a"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (o, "b"), >, 0);
  g_assert_true (isinf (json_object_get_double_member (o, "c")));
  g_assert_cmpfloat (json_object_get_double_member (o, "c"), <, 0);
  g_assert_true (isnan (json_object_get_double_member (o, "d")));
  g_assert_false (signbit (json_object_get_double_member (o, "d")));
  g_assert_true (isnan (json_object_get_double_member (o, "e")));
  g_assert_true (isnan (json_object_get_double_member (o, "f")));
  g_assert_true (signbit (json_object_get_double_member (o, "f")));

  text = ow_toml_write (o, NULL);
  g_assert_cmpstr (text, ==, "a = inf\nb = inf\nc = -inf\nd = nan\ne = nan\nf = -nan\n");
  assert_round_trip (root);
}

static void
test_embedded_nul (void)
{
  static const char text[] = "a = 1\nb = \"x\0y\"\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = ow_toml_parse (text, sizeof text - 1, &error);

  g_assert_null (root);
  g_assert_error (error, OW_TOML_ERROR, OW_TOML_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==,
                   "line 2, column 7: the control character U+0000 is not allowed in a string; "
                   "write it as the escape \\u0000");
  g_clear_error (&error);

  /* A NUL between pairs is not a key either. */
  root = ow_toml_parse ("a = 1\n\0", 7, &error);
  g_assert_null (root);
  g_assert_error (error, OW_TOML_ERROR, OW_TOML_ERROR_SYNTAX);
  g_assert_true (g_str_has_prefix (
      error->message, "line 2, column 1: expected a key, found the control character U+0000"));
}

static void
test_length_limits_input (void)
{
  /* Only the first @len bytes are read: the rest is not part of the document. */
  g_autoptr(JsonNode) root = parse_ok ("a = 12345 garbage", 9);
  g_autoptr(JsonNode) empty = parse_ok (NULL, 0);

  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "a"), ==, 12345);
  g_assert_cmpuint (json_object_get_size (json_node_get_object (empty)), ==, 0);
}

static void
test_nesting_limit (void)
{
  g_autoptr(GString) ok = g_string_new ("a = ");
  g_autoptr(GString) deep = g_string_new ("a = ");
  g_autoptr(GString) dotted = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;

  /* a is at depth 1, so 128 levels of arrays end at depth 128. */
  for (int i = 0; i < 128; i++)
    g_string_append_c (ok, '[');
  for (int i = 0; i < 128; i++)
    g_string_append_c (ok, ']');
  root = parse_ok (ok->str, -1);
  assert_round_trip (root);

  for (int i = 0; i < 1000; i++)
    g_string_append_c (deep, '[');
  g_assert_null (ow_toml_parse (deep->str, -1, &error));
  g_assert_error (error, OW_TOML_ERROR, OW_TOML_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==,
                   "line 1, column 133: arrays and tables nest too deeply (more than 128 levels)");
  g_clear_error (&error);

  for (int i = 0; i < 200; i++)
    g_string_append (dotted, i == 0 ? "k" : ".k");
  g_string_append (dotted, " = 1");
  g_assert_null (ow_toml_parse (dotted->str, -1, &error));
  g_assert_error (error, OW_TOML_ERROR, OW_TOML_ERROR_SYNTAX);
  g_assert_true (
      g_str_has_prefix (error->message, "line 1, column 257: arrays and tables nest too deeply"));
}

static void
test_many_tables (void)
{
  /* Large documents stay linear: 20000 array elements and 20000 keys. */
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(JsonNode) root = NULL;
  JsonObject *o;

  for (int i = 0; i < 20000; i++)
    g_string_append_printf (text, "k%d = %d\n", i, i);
  for (int i = 0; i < 20000; i++)
    g_string_append_printf (text, "[[items]]\nid = %d\n", i);
  root = parse_ok (text->str, -1);
  o = json_node_get_object (root);
  g_assert_cmpuint (json_object_get_size (o), ==, 20001);
  g_assert_cmpint (json_object_get_int_member (o, "k19999"), ==, 19999);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "items")), ==, 20000);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                     json_object_get_array_member (o, "items"), 12345), "id"), ==, 12345);
  assert_round_trip (root);
}

/* ---- The writer ---- */

typedef struct {
  const char *name;
  const char *json;
  const char *toml;
} WriteCase;

static const WriteCase write_cases[] = {
  { "empty-root", "{}", "" },
  { "scalars", "{\"s\":\"x\",\"i\":-42,\"f\":2.5,\"b\":false}", "s = \"x\"\ni = -42\nf = 2.5\nb = false\n" },
  { "key-quoting", "{\"a b\":1,\"\":2,\"é\":3,\"ok-key_1\":4,\"a.b\":5,\"1\":6}",
    "\"a b\" = 1\n\"\" = 2\n\"é\" = 3\nok-key_1 = 4\n\"a.b\" = 5\n1 = 6\n" },
  { "string-escapes", "{\"s\":\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f é ☃\"}",
    "s = \"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001F\\u007F é ☃\"\n" },
  { "key-escapes", "{\"a\\nb\":1,\"q\\\"\":2}", "\"a\\nb\" = 1\n\"q\\\"\" = 2\n" },
  { "floats", "{\"a\":1.0,\"b\":0.1,\"c\":-0.0,\"d\":1e300,\"e\":1.5e-7,\"f\":100.0,\"g\":0.7,\"h\":1e16}",
    "a = 1.0\nb = 0.1\nc = -0.0\nd = 1e+300\ne = 1.5e-07\nf = 100.0\ng = 0.7\nh = 1e+16\n" },
  { "float-needing-17-digits", "{\"a\":0.30000000000000004}", "a = 0.30000000000000004\n" },
  { "integer-limits", "{\"a\":9223372036854775807,\"b\":-9223372036854775808}",
    "a = 9223372036854775807\nb = -9223372036854775808\n" },
  { "values-before-sections",
    "{\"t\":{\"x\":1},\"v\":2,\"arr\":[{\"k\":1},{\"k\":2}],\"w\":[1,2]}",
    "v = 2\nw = [1, 2]\n\n[t]\nx = 1\n\n[[arr]]\nk = 1\n\n[[arr]]\nk = 2\n" },
  { "no-header-for-parent-only", "{\"providers\":{\"openai\":{\"base_url\":\"x\"}}}",
    "[providers.openai]\nbase_url = \"x\"\n" },
  { "empty-table", "{\"e\":{},\"f\":{\"g\":{}}}", "[e]\n\n[f.g]\n" },
  { "quoted-header-path", "{\"a b\":{\"c.d\":{\"x\":1}}}", "[\"a b\".\"c.d\"]\nx = 1\n" },
  { "inline-in-arrays", "{\"a\":[[1,2],[{\"b\":1}]],\"m\":[1,{\"x\":{}}],\"e\":[]}",
    "a = [[1, 2], [{ b = 1 }]]\nm = [1, { x = {} }]\ne = []\n" },
  { "array-element-subsections",
    "{\"fruits\":[{\"name\":\"apple\",\"physical\":{\"color\":\"red\"},\"varieties\":[{\"name\":\"a\"},{\"name\":\"b\"}]},{}]}",
    "[[fruits]]\nname = \"apple\"\n\n[fruits.physical]\ncolor = \"red\"\n\n[[fruits.varieties]]\nname = \"a\"\n\n"
    "[[fruits.varieties]]\nname = \"b\"\n\n[[fruits]]\n" },
  { "array-of-empty-tables", "{\"a\":[{},{}]}", "[[a]]\n\n[[a]]\n" },
  { "table-in-inline-table", "{\"a\":[{\"b\":{\"c\":[1]}}, 2]}", "a = [{ b = { c = [1] } }, 2]\n" },
};

static void
test_write (gconstpointer data)
{
  const WriteCase *c = data;
  g_autoptr(JsonNode) tree = json_from_text (c->json);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = ow_toml_write (json_node_get_object (tree), &error);
  g_autoptr(JsonNode) back = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, c->toml);
  back = parse_ok (text, -1);
  g_assert_true (nodes_identical (tree, back, FALSE));
  g_assert_true (json_node_equal (tree, back));
}

static void
test_write_errors (void)
{
  static const struct {
    const char *json;
    const char *message;
  } cases[] = {
    { "{\"a\":null}", "a is null, which TOML cannot express" },
    { "{\"t\":{\"x\":[1,null]}}", "t.x[1] is null, which TOML cannot express" },
    { "{\"t\":[{\"y\":{\"z\":null}}]}", "t.y.z is null, which TOML cannot express" },
    { "{\"a b\":[1,{\"k\":[null]}]}", "\"a b\"[1].k[0] is null, which TOML cannot express" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) tree = json_from_text (cases[i].json);
      g_autoptr(GError) error = NULL;
      g_autofree char *text = ow_toml_write (json_node_get_object (tree), &error);

      g_assert_null (text);
      g_assert_error (error, OW_TOML_ERROR, OW_TOML_ERROR_TYPE);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  /* Strings that are not UTF-8 cannot be written as TOML text. */
  {
    g_autoptr(JsonObject) root = json_object_new ();
    g_autoptr(GError) error = NULL;
    g_autofree char *text = NULL;

    json_object_set_string_member (root, "bad", "\xFF");
    text = ow_toml_write (root, &error);
    g_assert_null (text);
    g_assert_error (error, OW_TOML_ERROR, OW_TOML_ERROR_TYPE);
    g_assert_cmpstr (error->message, ==,
                     "bad: the string is not valid UTF-8, which TOML cannot hold");
  }
}

static void
test_write_float_round_trip (void)
{
  /* Doubles from a fixed-seed stream of bit patterns, and some hard ones:
   * every one must read back as the same bits. */
  static const double hard[] = {
    0.1, 1.0 / 3.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 123456789012345678.0,
    0.30000000000000004, 1e23, 9007199254740993.0, -1e-7, 4.35,
  };
  GRand *rand = g_rand_new_with_seed (20250601);
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) back = NULL;
  int n = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (hard); i++)
    {
      g_autofree char *key = g_strdup_printf ("h%zu", i);
      json_object_set_double_member (root, key, hard[i]);
    }
  while (n < 2000)
    {
      guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
      double d;
      g_autofree char *key = NULL;

      memcpy (&d, &bits, sizeof d);
      if (!isfinite (d))
        continue;
      key = g_strdup_printf ("r%d", n++);
      json_object_set_double_member (root, key, d);
    }
  g_rand_free (rand);

  text = ow_toml_write (root, &error);
  g_assert_no_error (error);
  g_assert_true (
      g_str_has_prefix (text, "h0 = 0.1\nh1 = 0.3333333333333333\nh2 = 4.94065645841247e-324\n"));
  json_node_set_object (node, root);
  back = parse_ok (text, -1);
  g_assert_true (nodes_identical (node, back, TRUE));
}

/* ---- A realistic config.toml ---- */

static const char config_toml[] =
  "# OpenWorker settings. Edit freely; the app re-reads this file.\r\n"
  "model = \"anthropic:claude-sonnet-4-6\"\n"
  "approval_mode = \"ask\"   # ask | auto-approve | bypass-approvals\n"
  "attendance = 'present'\n"
  "max_turns = 40\n"
  "temperature = 0.7\n"
  "sandbox_network_hosts = [\n"
  "  \"github.com:443\",\n"
  "  \"pypi.org:443\",  # for pip\n"
  "]\n"
  "\n"
  "[policy]\n"
  "deny = [\"run_shell:rm -rf /\", 'run_shell:mkfs*']\n"
  "allow = []\n"
  "\n"
  "[providers.openai]\n"
  "base_url = \"https://api.openai.com/v1\"\n"
  "timeout_seconds = 60\n"
  "\n"
  "[providers.ollama]\n"
  "base_url = \"http://127.0.0.1:11434\"\n"
  "headers = { \"X-Client\" = \"openworker\" }\n"
  "\n"
  "[[sandbox_credentials]]\n"
  "name = \"ssh\"\n"
  "enabled = true\n"
  "\n"
  "[[sandbox_credentials]]\n"
  "name = \"git\"\n"
  "enabled = false\n"
  "paths.read = [\"~/.gitconfig\"]\n";

static const char config_written[] =
  "model = \"anthropic:claude-sonnet-4-6\"\n"
  "approval_mode = \"ask\"\n"
  "attendance = \"present\"\n"
  "max_turns = 40\n"
  "temperature = 0.7\n"
  "sandbox_network_hosts = [\"github.com:443\", \"pypi.org:443\"]\n"
  "\n"
  "[policy]\n"
  "deny = [\"run_shell:rm -rf /\", \"run_shell:mkfs*\"]\n"
  "allow = []\n"
  "\n"
  "[providers.openai]\n"
  "base_url = \"https://api.openai.com/v1\"\n"
  "timeout_seconds = 60\n"
  "\n"
  "[providers.ollama]\n"
  "base_url = \"http://127.0.0.1:11434\"\n"
  "\n"
  "[providers.ollama.headers]\n"
  "X-Client = \"openworker\"\n"
  "\n"
  "[[sandbox_credentials]]\n"
  "name = \"ssh\"\n"
  "enabled = true\n"
  "\n"
  "[[sandbox_credentials]]\n"
  "name = \"git\"\n"
  "enabled = false\n"
  "\n"
  "[sandbox_credentials.paths]\n"
  "read = [\"~/.gitconfig\"]\n";

static void
test_config (void)
{
  g_autoptr(JsonNode) root = parse_ok (config_toml, -1);
  JsonObject *o = json_node_get_object (root);
  JsonObject *policy, *openai;
  JsonArray *deny, *hosts, *creds;
  g_autoptr(GList) keys = json_object_get_members (o);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpstr (json_object_get_string_member (o, "model"), ==, "anthropic:claude-sonnet-4-6");
  g_assert_cmpstr (json_object_get_string_member (o, "approval_mode"), ==, "ask");
  g_assert_cmpstr (json_object_get_string_member (o, "attendance"), ==, "present");
  g_assert_cmpint (json_object_get_int_member (o, "max_turns"), ==, 40);
  g_assert_cmpfloat (json_object_get_double_member (o, "temperature"), ==, 0.7);

  hosts = json_object_get_array_member (o, "sandbox_network_hosts");
  g_assert_cmpuint (json_array_get_length (hosts), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (hosts, 0), ==, "github.com:443");
  g_assert_cmpstr (json_array_get_string_element (hosts, 1), ==, "pypi.org:443");

  policy = json_object_get_object_member (o, "policy");
  deny = json_object_get_array_member (policy, "deny");
  g_assert_cmpuint (json_array_get_length (deny), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (deny, 0), ==, "run_shell:rm -rf /");
  g_assert_cmpstr (json_array_get_string_element (deny, 1), ==, "run_shell:mkfs*");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (policy, "allow")), ==, 0);

  openai = json_object_get_object_member (json_object_get_object_member (o, "providers"), "openai");
  g_assert_cmpstr (json_object_get_string_member (openai, "base_url"), ==,
                   "https://api.openai.com/v1");
  g_assert_cmpint (json_object_get_int_member (openai, "timeout_seconds"), ==, 60);

  creds = json_object_get_array_member (o, "sandbox_credentials");
  g_assert_cmpuint (json_array_get_length (creds), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (creds, 0), "name"),
                   ==, "ssh");
  g_assert_true (
      json_object_get_boolean_member (json_array_get_object_element (creds, 0), "enabled"));
  g_assert_false (
      json_object_get_boolean_member (json_array_get_object_element (creds, 1), "enabled"));

  /* Keys keep the order of the file. */
  g_assert_cmpuint (g_list_length (keys), ==, 9);
  g_assert_cmpstr (g_list_nth_data (keys, 0), ==, "model");
  g_assert_cmpstr (g_list_nth_data (keys, 5), ==, "sandbox_network_hosts");
  g_assert_cmpstr (g_list_nth_data (keys, 8), ==, "sandbox_credentials");

  text = ow_toml_write (o, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, config_written);
  assert_round_trip (root);
}

static void
test_config_edit (void)
{
  /* What the settings code does: read, change a value, write, read again. */
  g_autoptr(JsonNode) root = parse_ok (config_toml, -1);
  JsonObject *o = json_node_get_object (root);
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) back = NULL;

  json_object_set_string_member (o, "approval_mode", "auto-approve");
  json_array_add_string_element (json_object_get_array_member (o, "sandbox_network_hosts"),
                                 "api.example.com:8443");
  text = ow_toml_write (o, NULL);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "approval_mode = \"auto-approve\"\n"));
  g_assert_nonnull (strstr (text, "sandbox_network_hosts = [\"github.com:443\", \"pypi.org:443\", "
                                  "\"api.example.com:8443\"]\n"));
  back = parse_ok (text, -1);
  g_assert_true (nodes_identical (root, back, FALSE));
}

static void
test_config_typo (void)
{
  /* A config with a typo fails as a whole, pointing at the typo. */
  static const char broken[] =
    "model = \"anthropic:claude-sonnet-4-6\"\n"
    "approval_mode = ask\n"
    "[policy]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = ow_toml_parse (broken, -1, &error);

  g_assert_null (root);
  g_assert_error (error, OW_TOML_ERROR, OW_TOML_ERROR_SYNTAX);
  g_assert_cmpstr (error->message, ==,
                   "line 2, column 17: 'ask' is not a valid value (strings must be in quotes; "
                   "booleans are true and false)");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (valid_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ow/store/toml/valid/%s", valid_cases[i].name);
      g_test_add_data_func (path, &valid_cases[i], test_valid);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ow/store/toml/invalid/%s", invalid_cases[i].name);
      g_test_add_data_func (path, &invalid_cases[i], test_invalid);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (write_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ow/store/toml/write/%s", write_cases[i].name);
      g_test_add_data_func (path, &write_cases[i], test_write);
    }
  g_test_add_func ("/ow/store/toml/special-floats", test_special_floats);
  g_test_add_func ("/ow/store/toml/embedded-nul", test_embedded_nul);
  g_test_add_func ("/ow/store/toml/length-limits-input", test_length_limits_input);
  g_test_add_func ("/ow/store/toml/nesting-limit", test_nesting_limit);
  g_test_add_func ("/ow/store/toml/many-tables", test_many_tables);
  g_test_add_func ("/ow/store/toml/write/errors", test_write_errors);
  g_test_add_func ("/ow/store/toml/write/float-round-trip", test_write_float_round_trip);
  g_test_add_func ("/ow/store/toml/config", test_config);
  g_test_add_func ("/ow/store/toml/config-edit", test_config_edit);
  g_test_add_func ("/ow/store/toml/config-typo", test_config_typo);

  return g_test_run ();
}
