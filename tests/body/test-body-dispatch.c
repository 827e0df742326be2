/* test-body-dispatch.c: ow_tb_call's front door — names and arguments. */
#include "body-test-util.h"

#include <string.h>

static void
test_names (void)
{
  static const char *const expected[] = {
    "run_shell", "shell_task_output", "shell_task_kill", "read_file", "write_file",
    "replace_in_file", "apply_patch", "list_files", "grep", "git_status", "git_diff", "git_log",
  };
  const char *const *names = ow_tb_tool_names ();
  size_t n = 0;

  while (names[n] != NULL)
    n++;
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected));
  for (size_t i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_assert_cmpstr (names[i], ==, expected[i]);
      g_assert_true (ow_tb_is_known (expected[i]));
    }
  g_assert_false (ow_tb_is_known ("todo_write"));
  g_assert_false (ow_tb_is_known (""));
  g_assert_false (ow_tb_is_known ("READ_FILE"));
}

static void
test_unknown_tool (void)
{
  BodyFixture fx = { 0 };
  OwTbStatus status;
  OwTbJson *r;

  body_add_root (&fx, TRUE);
  r = body_call (&fx.env, "web_fetch", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_UNKNOWN_TOOL);
  g_assert_cmpstr (body_str (r, "error"), ==, "unknown tool: web_fetch");
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

static void
test_bad_arguments (void)
{
  BodyFixture fx = { 0 };
  OwTbStatus status;
  OwTbJson *r;

  body_add_root (&fx, TRUE);

  r = body_call (&fx.env, "read_file", "{\"path\": ", &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  g_assert_nonnull (strstr (body_str (r, "error"), "not valid JSON"));
  g_assert_nonnull (strstr (body_str (r, "error"), "at byte 9"));
  ow_tb_json_free (r);

  r = body_call (&fx.env, "read_file", "[\"a.txt\"]", &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  g_assert_cmpstr (body_str (r, "error"), ==, "the arguments of read_file must be a JSON object");
  ow_tb_json_free (r);

  r = body_call (&fx.env, "read_file", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  g_assert_cmpstr (body_str (r, "error"), ==, "missing required parameter \"path\" (a string)");
  ow_tb_json_free (r);

  r = body_call (&fx.env, "read_file", "{\"path\": 7}", &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  g_assert_cmpstr (body_str (r, "error"), ==, "parameter \"path\" must be a string, not a number");
  ow_tb_json_free (r);

  r = body_call (&fx.env, "read_file", "{\"path\": \"a\", \"max_lines\": 2.5}", &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  g_assert_nonnull (strstr (body_str (r, "error"), "\"max_lines\" must be an integer"));
  ow_tb_json_free (r);

  r = body_call (&fx.env, "write_file", "{\"path\": \"a\", \"content\": \"x\", \"overwrite\": \"maybe\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  g_assert_nonnull (strstr (body_str (r, "error"), "\"overwrite\" must be true or false"));
  ow_tb_json_free (r);

  r = body_call (&fx.env, "write_file", "{\"path\": \"a\", \"path\": \"b\", \"content\": \"x\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
  g_assert_nonnull (strstr (body_str (r, "error"), "duplicate key"));
  ow_tb_json_free (r);
  g_assert_false (body_exists (fx.paths[0], "a"));
  g_assert_false (body_exists (fx.paths[0], "b"));

  body_fixture_clear (&fx);
}

static void
test_lenient_spellings (void)
{
  BodyFixture fx = { 0 };
  OwTbStatus status;
  OwTbJson *r;

  body_add_root (&fx, TRUE);
  body_write (fx.paths[0], "f.txt", "1\n2\n3\n");
  /* Models often quote numbers and booleans; those are accepted. */
  r = body_call (&fx.env, "read_file", "{\"path\": \"f.txt\", \"start_line\": \"2\", \"max_lines\": \"1\"}",
                 &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "start_line"), ==, 2);
  g_assert_cmpint (body_int (r, "end_line"), ==, 2);
  ow_tb_json_free (r);

  /* No arguments at all, "", and "null" all mean {} for a tool without
   * required parameters; a null optional parameter means its default. */
  r = body_call (&fx.env, "list_files", "", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpint (body_int (r, "count"), ==, 1);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "list_files", " null ", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  ow_tb_json_free (r);
  r = body_call (&fx.env, "list_files", "{\"path\": null, \"recursive\": \"false\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_OK);
  g_assert_cmpstr (body_str (r, "path"), ==, ".");
  ow_tb_json_free (r);
  body_fixture_clear (&fx);
}

static void
test_no_roots (void)
{
  OwTbEnv env = { NULL, 0, NULL, -1 };
  OwTbStatus status;
  OwTbJson *r;

  r = body_call (&env, "read_file", "{\"path\": \"/etc/hostname\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_cmpstr (body_str (r, "error"), ==, "this session has no folders to work in");
  ow_tb_json_free (r);
  r = body_call (&env, "git_log", "{}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  ow_tb_json_free (r);
  r = body_call (&env, "run_shell", "{\"command\": \"true\"}", &status);
  g_assert_cmpint (status, ==, OW_TB_ERROR);
  g_assert_nonnull (strstr (body_str (r, "error"), "no shell"));
  ow_tb_json_free (r);
}

/* resources/tools.json describes exactly these tools, and its "required"
 * lists agree with what the bodies refuse to run without. */
static void
test_schemas (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "resources", "tools.json", NULL);
  g_autofree char *text = NULL;
  const char *const *names = ow_tb_tool_names ();
  BodyFixture fx = { 0 };
  gsize len = 0;
  OwTbJson *schemas;
  char err[160];

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  schemas = ow_tb_json_parse (text, len, err, sizeof err);
  if (schemas == NULL)
    g_error ("tools.json: %s", err);
  g_assert_cmpint (schemas->type, ==, OW_TB_JSON_ARRAY);
  body_add_root (&fx, TRUE);
  for (size_t i = 0; i < schemas->n_items; i++)
    {
      const OwTbJson *fn = ow_tb_json_get (schemas->items[i], "function");
      const OwTbJson *params, *props, *required;
      OwTbStatus status;
      OwTbJson *r;

      g_assert_cmpstr (body_str (schemas->items[i], "type"), ==, "function");
      g_assert_nonnull (fn);
      g_assert_nonnull (names[i]);
      g_assert_cmpstr (body_str (fn, "name"), ==, names[i]);
      g_assert_cmpuint (strlen (body_str (fn, "description")), >, 40);
      params = ow_tb_json_get (fn, "parameters");
      g_assert_cmpstr (body_str (params, "type"), ==, "object");
      props = ow_tb_json_get (params, "properties");
      g_assert_nonnull (props);
      g_assert_cmpint (props->type, ==, OW_TB_JSON_OBJECT);
      required = body_array (params, "required");
      for (size_t k = 0; k < props->n_items; k++)
        g_assert_cmpuint (strlen (body_str (props->items[k], "description")), >, 0);
      for (size_t k = 0; k < required->n_items; k++)
        g_assert_nonnull (ow_tb_json_get (props, required->items[k]->string));

      r = body_call (&fx.env, names[i], "{}", &status);
      if (required->n_items > 0)
        {
          g_autofree char *expected = g_strdup_printf ("missing required parameter \"%s\"",
                                                       required->items[0]->string);

          g_assert_cmpint (status, ==, OW_TB_BAD_ARGS);
          g_assert_true (g_str_has_prefix (body_str (r, "error"), expected));
        }
      else
        g_assert_cmpint (status, !=, OW_TB_BAD_ARGS);
      ow_tb_json_free (r);
    }
  g_assert_null (names[schemas->n_items]);
  ow_tb_json_free (schemas);
  body_fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/body/dispatch/names", test_names);
  g_test_add_func ("/ow/body/dispatch/unknown-tool", test_unknown_tool);
  g_test_add_func ("/ow/body/dispatch/bad-arguments", test_bad_arguments);
  g_test_add_func ("/ow/body/dispatch/lenient-spellings", test_lenient_spellings);
  g_test_add_func ("/ow/body/dispatch/no-roots", test_no_roots);
  g_test_add_func ("/ow/body/dispatch/schemas", test_schemas);
  return g_test_run ();
}
