/* body-test-util.c: helpers shared by the tool-body tests (see the header). */
#include "body-test-util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

static GPtrArray *quoted_pool;

void
body_rm_rf (const char *path)
{
  GDir *dir;
  const char *name;

  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK) || !g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_unlink (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          body_rm_rf (child);
        }
      g_dir_close (dir);
    }
  g_rmdir (path);
}

const char *
body_add_root (BodyFixture *fx, gboolean writable)
{
  size_t i = fx->n_roots++;

  g_assert_cmpuint (i, <, G_N_ELEMENTS (fx->roots));
  fx->paths[i] = ow_test_make_tmpdir ("ow-body");
  fx->roots[i].path = fx->paths[i];
  fx->roots[i].writable = writable;
  fx->env.roots = fx->roots;
  fx->env.n_roots = fx->n_roots;
  fx->env.cancel_fd = -1;
  return fx->paths[i];
}

void
body_fixture_clear (BodyFixture *fx)
{
  if (fx->env.shell != NULL)
    ow_tb_shell_free (fx->env.shell);
  for (size_t i = 0; i < fx->n_roots; i++)
    {
      body_rm_rf (fx->paths[i]);
      free (fx->paths[i]);
    }
  memset (fx, 0, sizeof *fx);
}

OwTbJson *
body_call (const OwTbEnv *env, const char *tool, const char *args, OwTbStatus *status)
{
  OwTbBuf out;
  OwTbJson *result;
  OwTbStatus st;
  char err[200];

  ow_tb_buf_init (&out);
  st = ow_tb_call (env, tool, args, args != NULL ? strlen (args) : 0, &out);
  g_test_message ("%s %s -> %d %.2000s%s", tool, args != NULL ? args : "(null)", st, out.data,
                  out.len > 2000 ? "…" : "");
  result = ow_tb_json_parse (out.data, out.len, err, sizeof err);
  if (result == NULL)
    g_error ("%s returned invalid JSON (%s): %s", tool, err, out.data);
  g_assert_cmpint (result->type, ==, OW_TB_JSON_OBJECT);
  ow_tb_buf_free (&out);
  if (status != NULL)
    *status = st;
  return result;
}

OwTbJson *
body_callf (const OwTbEnv *env, const char *tool, OwTbStatus *status, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *args = NULL;

  va_start (ap, fmt);
  args = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return body_call (env, tool, args, status);
}

static void
free_pool (void)
{
  g_ptr_array_unref (quoted_pool);
}

/* Keeps @s (malloc'd) until exit. */
static const char *
pool (char *s)
{
  if (quoted_pool == NULL)
    {
      quoted_pool = g_ptr_array_new_with_free_func (free);
      atexit (free_pool);
    }
  g_ptr_array_add (quoted_pool, s);
  return s;
}

const char *
body_q (const char *s)
{
  OwTbBuf buf;

  ow_tb_buf_init (&buf);
  ow_tb_buf_json_string (&buf, s, (size_t) -1);
  return pool (buf.data);
}

const char *
body_qf (const char *fmt, ...)
{
  va_list ap;
  g_autofree char *s = NULL;

  va_start (ap, fmt);
  s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return body_q (s);
}

const char *
body_sf (const char *fmt, ...)
{
  va_list ap;
  g_autofree char *s = NULL;

  va_start (ap, fmt);
  s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return pool (strdup (s));
}

const char *
body_path (const char *dir, const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);

  return pool (strdup (path));
}

static const OwTbJson *
member (const OwTbJson *obj, const char *key, OwTbJsonType type)
{
  const OwTbJson *node = ow_tb_json_get (obj, key);

  if (node == NULL)
    g_error ("the result has no \"%s\"", key);
  if (node->type != type)
    g_error ("\"%s\" has type %d, expected %d", key, node->type, type);
  return node;
}

const char *
body_str (const OwTbJson *obj, const char *key)
{
  return member (obj, key, OW_TB_JSON_STRING)->string;
}

long long
body_int (const OwTbJson *obj, const char *key)
{
  return (long long) member (obj, key, OW_TB_JSON_NUMBER)->number;
}

gboolean
body_bool (const OwTbJson *obj, const char *key)
{
  return member (obj, key, OW_TB_JSON_BOOL)->boolean;
}

gboolean
body_is_null (const OwTbJson *obj, const char *key)
{
  const OwTbJson *node = ow_tb_json_get (obj, key);

  return node != NULL && node->type == OW_TB_JSON_NULL;
}

const OwTbJson *
body_array (const OwTbJson *obj, const char *key)
{
  return member (obj, key, OW_TB_JSON_ARRAY);
}

gboolean
body_array_has (const OwTbJson *arr, const char *s)
{
  for (size_t i = 0; i < arr->n_items; i++)
    if (arr->items[i]->type == OW_TB_JSON_STRING && strcmp (arr->items[i]->string, s) == 0)
      return TRUE;
  return FALSE;
}

void
body_write (const char *dir, const char *rel, const char *content)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (path, content, -1, &error);
  g_assert_no_error (error);
}

const char *
body_read (const char *dir, const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *content = NULL;

  g_file_get_contents (path, &content, NULL, &error);
  g_assert_no_error (error);
  return pool (strdup (content));
}

gboolean
body_exists (const char *dir, const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

void
body_run (const char *cwd, const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;

  g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s%s", argv[0], out, err);
}

/* Under AddressSanitizer: GLib 2.74's G_TEST_OPTION_ISOLATE_DIRS leaks the
 * strings it sets up for every test case (g_set_user_dirs), which would
 * make every leak check fail for reasons outside this code. Those GLib
 * allocations, and only those, are suppressed; finding them needs the
 * slow unwinder, since Debian's GLib is built without frame pointers. */
const char *__asan_default_options (void);
const char *__lsan_default_suppressions (void);

const char *
__asan_default_options (void)
{
  return "fast_unwind_on_malloc=0";
}

const char *
__lsan_default_suppressions (void)
{
  return "leak:g_set_user_dirs\n";
}
