/* test-json.c: the depth bound every parse of outside data goes through.
 *
 * json-glib's parser recurses once per level, so "[[[[…" a few hundred
 * thousand deep overflows the stack. ow_json_depth_ok() counts levels
 * without parsing; ow_json_parse() and ow_json_object_from_string() refuse
 * what it refuses before json-glib sees it. Each refusal here has a
 * document one level shallower that passes.
 */
#include <string.h>

#include "ow-json.h"

/* @depth arrays around 1, or objects {"a": …} around 1 when @objects. */
static char *
nested (guint depth, gboolean objects)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (s, objects ? "{\"a\":" : "[");
  g_string_append_c (s, '1');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, objects ? '}' : ']');
  return g_string_free (s, FALSE);
}

static void
test_counts_levels (void)
{
  const char *mixed = "{\"a\":[1,{\"b\":2}]}";

  g_assert_true (ow_json_depth_ok (mixed, strlen (mixed), 3));
  g_assert_false (ow_json_depth_ok (mixed, strlen (mixed), 2));
  /* Siblings do not add up: depth is how far in, not how many. */
  g_assert_true (ow_json_depth_ok ("[[],[],[],{}]", 13, 2));
  g_assert_false (ow_json_depth_ok ("[[],[[]],{}]", 12, 2));
  /* Only @len bytes count. */
  g_assert_true (ow_json_depth_ok ("[[[[", 1, 1));
}

static void
test_strings_do_not_count (void)
{
  /* Brackets in a string, an escaped quote that does not end it, and an
   * escaped backslash that does not escape the closing quote. */
  const char *quoted = "{\"a\":\"[[[[[\\\"[[[[\"}";
  const char *backslash = "[\"\\\\\",[1]]";
  const char *unicode = "[\"\\u005b\\\"{{{\"]";

  g_assert_true (ow_json_depth_ok (quoted, strlen (quoted), 1));
  g_assert_false (ow_json_depth_ok (quoted, strlen (quoted), 0));
  /* After "\\" the string is closed, so [1] is a second level. */
  g_assert_true (ow_json_depth_ok (backslash, strlen (backslash), 2));
  g_assert_false (ow_json_depth_ok (backslash, strlen (backslash), 1));
  g_assert_true (ow_json_depth_ok (unicode, strlen (unicode), 1));
  /* A backslash as the last byte of a cut-off string reads nothing beyond. */
  g_assert_true (ow_json_depth_ok ("[\"\\", 3, 1));
}

static void
test_limit_is_exact (void)
{
  for (int objects = 0; objects <= 1; objects++)
    {
      g_autofree char *at = nested (OW_JSON_MAX_DEPTH, objects);
      g_autofree char *over = nested (OW_JSON_MAX_DEPTH + 1, objects);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) ok = ow_json_parse (at, -1, &error);
      g_autoptr(JsonNode) refused = NULL;
      g_autoptr(JsonObject) obj = NULL;

      g_assert_true (ow_json_depth_ok (at, strlen (at), OW_JSON_MAX_DEPTH));
      g_assert_false (ow_json_depth_ok (over, strlen (over), OW_JSON_MAX_DEPTH));
      /* Exactly at the limit parses: the positive control. */
      g_assert_no_error (error);
      g_assert_nonnull (ok);
      refused = ow_json_parse (over, -1, &error);
      g_assert_null (refused);
      g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
      g_assert_nonnull (strstr (error->message, "nested deeper than 512 levels"));
      g_clear_error (&error);
      if (objects)
        {
          obj = ow_json_object_from_string (at, -1, &error);
          g_assert_no_error (error);
          g_assert_nonnull (obj);
          g_clear_pointer (&obj, json_object_unref);
          obj = ow_json_object_from_string (over, -1, &error);
          g_assert_null (obj);
          g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
        }
    }
}

static void
test_hostile_depth_refused (void)
{
  /* What a hostile reply sends: 200,000 levels, which crashes json-glib. */
  g_autofree char *deep = nested (200000, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = ow_json_parse (deep, -1, &error);
  /* Unclosed, in a string member: the brackets are text, so it parses. */
  g_autofree char *as_text = g_strdup_printf ("{\"a\":\"%.*s\"}", 200000, deep);
  g_autoptr(JsonObject) obj = NULL;

  g_assert_null (node);
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA);
  g_clear_error (&error);
  obj = ow_json_object_from_string (as_text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (ow_json_get_string (obj, "a")), ==, 200000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/json/depth/counts-levels", test_counts_levels);
  g_test_add_func ("/ow/json/depth/strings-do-not-count", test_strings_do_not_count);
  g_test_add_func ("/ow/json/depth/limit-is-exact", test_limit_is_exact);
  g_test_add_func ("/ow/json/depth/hostile-refused", test_hostile_depth_refused);
  return g_test_run ();
}
