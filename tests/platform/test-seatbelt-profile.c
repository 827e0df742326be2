/* test-seatbelt-profile.c: the macOS sandbox profile, on every OS.
 *
 * Each session below is rendered and compared byte for byte with its
 * golden file in tests/platform/golden/ (run with OW_UPDATE_GOLDEN=1 to
 * rewrite them after a deliberate change, then read the diff). Golden
 * files alone would bless whatever was rendered the first time, so every
 * profile is also read back by a small SBPL reader here and checked for
 * what the wall promises: balanced forms, (deny default) first, no deny
 * but the default, no read of the home folder unless the session was given
 * it, every string a clean path, exactly the network asked for.
 */
#include <string.h>

#include "ow-error.h"
#include "ow-seatbelt-profile.h"

static const char *golden_dir;

/* --- a small SBPL reader ------------------------------------------------ */

typedef struct _Node Node;
struct _Node {
  gboolean   is_list;  /* a (…) form, or an atom */
  gboolean   is_str;   /* an atom that was a "string" (unescaped into text) */
  char      *text;     /* the atom's text */
  GPtrArray *items;    /* Node*: the form's elements */
};

static void
node_free (Node *n)
{
  if (n == NULL)
    return;
  g_free (n->text);
  if (n->items != NULL)
    g_ptr_array_unref (n->items);
  g_free (n);
}

static Node *
read_node (const char **p, GError **error)
{
  while (**p != '\0')
    {
      if (g_ascii_isspace (**p))
        (*p)++;
      else if (**p == ';')
        while (**p != '\0' && **p != '\n')
          (*p)++;
      else
        break;
    }
  if (**p == '\0')
    return NULL;
  if (**p == '(')
    {
      Node *n = g_new0 (Node, 1);

      n->is_list = TRUE;
      n->items = g_ptr_array_new_with_free_func ((GDestroyNotify) node_free);
      (*p)++;
      for (;;)
        {
          Node *child;

          while (g_ascii_isspace (**p))
            (*p)++;
          if (**p == ')')
            {
              (*p)++;
              return n;
            }
          child = read_node (p, error);
          if (child == NULL)
            {
              if (error != NULL && *error == NULL)
                g_set_error_literal (error, G_MARKUP_ERROR, G_MARKUP_ERROR_PARSE, "unclosed form");
              node_free (n);
              return NULL;
            }
          g_ptr_array_add (n->items, child);
        }
    }
  if (**p == ')')
    {
      g_set_error_literal (error, G_MARKUP_ERROR, G_MARKUP_ERROR_PARSE, "unbalanced )");
      return NULL;
    }
  if (**p == '"' || (**p == '#' && (*p)[1] == '"'))
    {
      GString *s = g_string_new (NULL);
      gboolean regex = **p == '#';
      Node *n;

      *p += regex ? 2 : 1;
      while (**p != '"')
        {
          if (**p == '\0')
            {
              g_set_error_literal (error, G_MARKUP_ERROR, G_MARKUP_ERROR_PARSE, "unclosed string");
              g_string_free (s, TRUE);
              return NULL;
            }
          if ((unsigned char) **p < 0x20)
            {
              g_set_error_literal (error, G_MARKUP_ERROR, G_MARKUP_ERROR_PARSE, "control character in a string");
              g_string_free (s, TRUE);
              return NULL;
            }
          if (**p == '\\' && !regex)
            {
              (*p)++;
              if (**p != '"' && **p != '\\')
                {
                  g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_PARSE, "unknown escape \\%c", **p);
                  g_string_free (s, TRUE);
                  return NULL;
                }
            }
          g_string_append_c (s, **p);
          (*p)++;
        }
      (*p)++;
      n = g_new0 (Node, 1);
      n->is_str = !regex;
      n->text = g_string_free (s, FALSE);
      return n;
    }
  {
    const char *start = *p;
    Node *n;

    while (**p != '\0' && !g_ascii_isspace (**p) && **p != '(' && **p != ')' && **p != '"')
      (*p)++;
    n = g_new0 (Node, 1);
    n->text = g_strndup (start, (gsize) (*p - start));
    return n;
  }
}

static GPtrArray *
read_profile (const char *text, GError **error)
{
  GPtrArray *forms = g_ptr_array_new_with_free_func ((GDestroyNotify) node_free);
  const char *p = text;
  Node *n;

  while ((n = read_node (&p, error)) != NULL)
    g_ptr_array_add (forms, n);
  if (error != NULL && *error != NULL)
    {
      g_ptr_array_unref (forms);
      return NULL;
    }
  return forms;
}

static const char *
head (Node *n)
{
  if (!n->is_list || n->items->len == 0)
    return NULL;
  return ((Node *) g_ptr_array_index (n->items, 0))->text;
}

/* Collects the string of every (subpath S) and (literal S) under @n that
 * is not inside a (require-not …). */
static void
collect_paths (Node *n, GPtrArray *out)
{
  const char *h;

  if (!n->is_list)
    return;
  h = head (n);
  if (h != NULL && strcmp (h, "require-not") == 0)
    return;
  if (h != NULL && (strcmp (h, "subpath") == 0 || strcmp (h, "literal") == 0) && n->items->len == 2)
    {
      g_ptr_array_add (out, ((Node *) g_ptr_array_index (n->items, 1))->text);
      return;
    }
  for (guint i = 1; i < n->items->len; i++)
    collect_paths (g_ptr_array_index (n->items, i), out);
}

static gboolean
allow_has_op (Node *form, const char *prefix)
{
  for (guint i = 1; i < form->items->len; i++)
    {
      Node *item = g_ptr_array_index (form->items, i);

      if (!item->is_list && g_str_has_prefix (item->text, prefix))
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_within (const char *a, const char *b)
{
  gsize n = strlen (b);

  return strcmp (a, b) == 0 || strcmp (b, "/") == 0 || (strncmp (a, b, n) == 0 && a[n] == '/');
}

/* What every rendered profile must hold, whatever its golden file says. */
static void
check_invariants (const char *text, const OwSeatbeltSession *s, gboolean home_granted)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) forms = read_profile (text, &error);
  guint proxy_rules = 0, open_rules = 0;

  g_assert_no_error (error);
  if (forms == NULL)
    g_error ("the profile could not be read back");
  g_assert_cmpuint (forms->len, >, 3);
  g_assert_cmpstr (head (g_ptr_array_index (forms, 0)), ==, "version");
  g_assert_cmpstr (head (g_ptr_array_index (forms, 1)), ==, "deny");
  g_assert_cmpstr (((Node *) g_ptr_array_index (((Node *) g_ptr_array_index (forms, 1))->items, 1))->text, ==,
                   "default");

  for (guint i = 2; i < forms->len; i++)
    {
      Node *form = g_ptr_array_index (forms, i);
      g_autoptr(GPtrArray) paths = g_ptr_array_new ();

      /* Nothing but allows after the default deny. */
      g_assert_cmpstr (head (form), ==, "allow");
      g_assert_false (allow_has_op (form, "default"));

      if (allow_has_op (form, "network*"))
        open_rules++;
      if (allow_has_op (form, "network-outbound"))
        {
          char *want = g_strdup_printf ("localhost:%u", s->proxy_port);

          g_assert_true (strstr (text, want) != NULL);
          proxy_rules++;
          g_free (want);
        }

      collect_paths (form, paths);
      for (guint j = 0; j < paths->len; j++)
        {
          const char *p = g_ptr_array_index (paths, j);

          g_assert_true (p[0] == '/');
          /* Only metadata of the home folder or anything above it, unless
           * the session holds the home folder itself. */
          if (!home_granted && is_within (s->home, p) && allow_has_op (form, "file-read") &&
              !allow_has_op (form, "file-read-metadata"))
            g_error ("the profile lets the home folder be read through %s", p);
          if (!home_granted && is_within (s->home, p) && allow_has_op (form, "file-write"))
            g_error ("the profile lets the home folder be written through %s", p);
        }
    }

  if (s->network_open)
    {
      g_assert_cmpuint (open_rules, ==, 1);
      g_assert_cmpuint (proxy_rules, ==, 0);
    }
  else
    {
      g_assert_cmpuint (open_rules, ==, 0);
      g_assert_cmpuint (proxy_rules, ==, s->proxy_port != 0 ? 1 : 0);
    }
}

/* --- golden files ------------------------------------------------------- */

static void
check_golden (const char *name, const char *text)
{
  g_autofree char *path = g_strdup_printf ("%s/%s.sb", golden_dir, name);
  g_autofree char *want = NULL;
  g_autoptr(GError) error = NULL;

  if (g_getenv ("OW_UPDATE_GOLDEN") != NULL)
    {
      g_file_set_contents (path, text, -1, &error);
      g_assert_no_error (error);
      return;
    }
  g_file_get_contents (path, &want, NULL, &error);
  g_assert_no_error (error);
  if (strcmp (want, text) != 0)
    {
      g_printerr ("---- rendered %s ----\n%s---- end ----\n", name, text);
      g_error ("the profile for %s differs from %s (OW_UPDATE_GOLDEN=1 rewrites it)", name, path);
    }
}

static const char *runner = "/Applications/OpenWorker.app/Contents/MacOS/openworker-tool-runner";

static void
render_and_check (const char *name, const OwSeatbeltSession *s, gboolean home_granted)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = ow_seatbelt_profile_render (s, &error);

  g_assert_no_error (error);
  g_assert_nonnull (text);
  check_invariants (text, s, home_granted);
  check_golden (name, text);
}

static void
test_folders (void)
{
  const char *rw[] = { "/Users/ada/code/app", "/Volumes/Work/shared", NULL };
  const char *ro[] = { "/Users/ada/Documents/specs", NULL };
  const char *hidden[] = { "/Users/ada", "/Users/ada/Library/Application Support/OpenWorker", NULL };
  OwSeatbeltSession s = {
    .session_id = "s-folders",
    .home = "/Users/ada",
    .private_dir = "/tmp/owr-8f2c01",
    .writable = rw,
    .readonly = ro,
    .hidden = hidden,
    .runner_path = runner,
    .managed_tools = "/Users/ada/Library/Application Support/OpenWorker/tools",
    .proxy_port = 47811,
  };

  render_and_check ("folders", &s, FALSE);
}

static void
test_nested (void)
{
  /* The person gave the whole home folder, with one read-only folder inside
   * it; OpenWorker's own state must still be carved out of it, and the
   * read-only folder out of the writes. */
  const char *rw[] = { "/Users/ada", NULL };
  const char *ro[] = { "/Users/ada/code/vendor", "/Users/ada/Pictures", NULL };
  const char *hidden[] = { "/Users/ada/Library/Application Support/OpenWorker", "/Users/ada/.config/openworker", NULL };
  OwSeatbeltSession s = {
    .session_id = "s-nested",
    .home = "/Users/ada",
    .private_dir = "/private/tmp/owr-nested",
    .writable = rw,
    .readonly = ro,
    .hidden = hidden,
    .runner_path = runner,
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *text = ow_seatbelt_profile_render (&s, &error);

  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "(require-not (subpath \"/Users/ada/code/vendor\"))"));
  g_assert_nonnull (strstr (text, "(require-not (subpath \"/Users/ada/.config/openworker\"))"));
  render_and_check ("nested", &s, TRUE);
}

static void
test_toolchains (void)
{
  const char *rw[] = { "/Users/ada/code/app", NULL };
  const char *const *known = ow_seatbelt_known_toolchains ();
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();
  g_auto(GStrv) chains = NULL;
  OwSeatbeltSession s = {
    .session_id = "s-toolchains",
    .home = "/Users/ada",
    .private_dir = "/tmp/owr-tc",
    .writable = rw,
    .runner_path = runner,
    .proxy_port = 47800,
  };

  g_assert_cmpuint (g_strv_length ((char **) known), ==, 15);
  g_strv_builder_addv (b, (const char **) known);
  g_strv_builder_add (b, ".local/share/fnm");
  g_strv_builder_add (b, "/opt/homebrew/Caskroom");
  chains = g_strv_builder_end (b);
  s.toolchains = (const char *const *) chains;
  render_and_check ("toolchains", &s, FALSE);
}

static void
test_open_network (void)
{
  const char *rw[] = { "/Users/ada/code/app", NULL };
  OwSeatbeltSession s = {
    .session_id = "s-open",
    .home = "/Users/ada",
    .private_dir = "/tmp/owr-open",
    .writable = rw,
    .runner_path = runner,
    .proxy_port = 47805,   /* ignored: open means no proxy */
    .network_open = TRUE,
  };

  render_and_check ("open-network", &s, FALSE);
}

static void
test_quoting (void)
{
  const char *rw[] = {
    "/Users/ada/My \"Quoted\" Folder",
    "/Users/ada/back\\slash dir",
    "/Users/ada/Ünïcødé 文件夹",
    NULL,
  };
  const char *ro[] = { "/var/folders/zz/T/ref data", "/tmp/paren (1)", NULL };
  OwSeatbeltSession s = {
    .session_id = "s-quoting\nforged (allow default)",
    .home = "/Users/ada",
    .private_dir = "/tmp/owr-q",
    .writable = rw,
    .readonly = ro,
    .runner_path = "/Users/ada/Library/Application Support/OpenWorker/bin/openworker-tool-runner",
    .proxy_port = 0,
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *text = ow_seatbelt_profile_render (&s, &error);

  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "(subpath \"/Users/ada/My \\\"Quoted\\\" Folder\")"));
  g_assert_nonnull (strstr (text, "(subpath \"/Users/ada/back\\\\slash dir\")"));
  g_assert_nonnull (strstr (text, "(subpath \"/private/var/folders/zz/T/ref data\")"));
  g_assert_nonnull (strstr (text, "(subpath \"/private/tmp/paren (1)\")"));
  /* The line break in the id must not start a rule of its own. */
  g_assert_null (strstr (text, "\nforged"));
  render_and_check ("quoting", &s, FALSE);
}

static void
test_quote (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *q = ow_seatbelt_quote ("a\"b\\c d", &error);
  g_autofree char *bad = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (q, ==, "\"a\\\"b\\\\c d\"");
  bad = ow_seatbelt_quote ("line\nbreak", &error);
  g_assert_null (bad);
  g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
}

static void
test_private_path (void)
{
  const char *cases[][2] = {
    { "/tmp", "/private/tmp" },
    { "/tmp/x", "/private/tmp/x" },
    { "/var/folders/a", "/private/var/folders/a" },
    { "/etc/hosts", "/private/etc/hosts" },
    { "/tmpx", "/tmpx" },
    { "/private/tmp/x", "/private/tmp/x" },
    { "/Users/ada/tmp", "/Users/ada/tmp" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = ow_seatbelt_private_path (cases[i][0]);

      g_assert_cmpstr (got, ==, cases[i][1]);
    }
}

/* Every way a session can be refused, each with the same session rendering
 * fine once the one bad value is replaced (the positive control). */
static void
test_refusals (void)
{
  const char *good_rw[] = { "/Users/ada/code", NULL };
  struct {
    const char *rw;
    const char *toolchain;
    const char *private_dir;
    guint       port;
    const char *says;
  } cases[] = {
    { "code/relative", NULL, NULL, 0, "not an absolute" },
    { "/Users/ada/../bob", NULL, NULL, 0, "not an absolute" },
    { "/Users/ada/./code", NULL, NULL, 0, "not an absolute" },
    { "/Users/ada/code/", NULL, NULL, 0, "not an absolute" },
    { "/Users//ada", NULL, NULL, 0, "not an absolute" },
    { "/Users/ada/new\nline", NULL, NULL, 0, "control character" },
    { "/", NULL, NULL, 0, "whole disk" },
    { NULL, "", NULL, 0, "whole home folder" },
    { NULL, "../bob/.cargo", NULL, 0, "not an absolute" },
    { NULL, "/Users/ada", NULL, 0, "whole home folder" },
    { NULL, "/Users", NULL, 0, "whole home folder" },
    { NULL, NULL, "/Users/ada", 0, "private folder" },
    { NULL, NULL, "/", 0, "private folder" },
    { NULL, NULL, NULL, 70000, "not a TCP port" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *rw[] = { cases[i].rw != NULL ? cases[i].rw : "/Users/ada/code", NULL };
      const char *tc[] = { cases[i].toolchain, NULL };
      OwSeatbeltSession s = {
        .session_id = "s-bad",
        .home = "/Users/ada",
        .private_dir = cases[i].private_dir != NULL ? cases[i].private_dir : "/tmp/owr-bad",
        .writable = rw,
        .toolchains = cases[i].toolchain != NULL ? tc : NULL,
        .runner_path = runner,
        .proxy_port = cases[i].port,
      };
      g_autoptr(GError) error = NULL;
      g_autofree char *text = ow_seatbelt_profile_render (&s, &error);

      g_assert_null (text);
      g_assert_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE);
      if (strstr (error->message, cases[i].says) == NULL)
        g_error ("case %u: “%s” does not say “%s”", i, error->message, cases[i].says);

      /* The control: the same session with the bad value replaced. */
      g_clear_error (&error);
      s.writable = good_rw;
      s.toolchains = NULL;
      s.private_dir = "/tmp/owr-bad";
      s.proxy_port = 0;
      g_free (text);
      text = ow_seatbelt_profile_render (&s, &error);
      g_assert_no_error (error);
      g_assert_nonnull (text);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  if (argc < 2)
    {
      g_printerr ("usage: %s GOLDEN_DIR\n", argv[0]);
      return 2;
    }
  golden_dir = argv[1];

  g_test_add_func ("/ow/platform/seatbelt/folders", test_folders);
  g_test_add_func ("/ow/platform/seatbelt/nested", test_nested);
  g_test_add_func ("/ow/platform/seatbelt/toolchains", test_toolchains);
  g_test_add_func ("/ow/platform/seatbelt/open-network", test_open_network);
  g_test_add_func ("/ow/platform/seatbelt/quoting", test_quoting);
  g_test_add_func ("/ow/platform/seatbelt/quote", test_quote);
  g_test_add_func ("/ow/platform/seatbelt/private-path", test_private_path);
  g_test_add_func ("/ow/platform/seatbelt/refusals", test_refusals);
  return g_test_run ();
}
