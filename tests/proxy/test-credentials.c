/* test-credentials.c: the credential catalogue and copy-in, in temp folders.
 *
 * A fake home holds the logins the catalogue knows (with loose modes, a
 * socket, links pointing in and out of a shared folder); a config.toml
 * names some of them. The copies land in a fake sandbox home and are
 * checked for content, modes (0700 / 0600) and the absence of any link.
 * The attacks a sandbox could stage in its own home are played directly:
 * a link planted where a copy goes (or on the way to it) refuses the copy,
 * and links planted after the copy are removed without touching what they
 * point at. Every refusal has the plain case succeed beside it.
 */
#include "ow-files.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>

#include "ow-error.h"
#include "proxy-test-util.h"
#include "sandbox/ow-credentials.h"
#include "store/ow-toml.h"

typedef struct {
  char *root;     /* everything lives under here */
  char *home;     /* the person's home */
  char *outside;  /* a folder outside the shared ones */
  char *sandbox;  /* the sandbox's private home */
} Dirs;

static char *
path_in (const char *dir,
         const char *rel)
{
  return g_build_filename (dir, rel, NULL);
}

static void
write_file (const char *dir,
            const char *rel,
            const char *text,
            int         mode)
{
  g_autofree char *path = path_in (dir, rel);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
}

static void
make_link (const char *target,
           const char *dir,
           const char *rel)
{
  g_autofree char *path = path_in (dir, rel);

  g_assert_cmpint (symlink (target, path), ==, 0);
}

static void
make_socket (const char *dir,
             const char *rel)
{
  g_autofree char *path = path_in (dir, rel);
  g_autoptr(GSocket) sock = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
  g_autoptr(GSocketAddress) addr = g_unix_socket_address_new (path);

  g_assert_true (g_socket_bind (sock, addr, FALSE, NULL));
}

static const char kube_config[] =
  "clusters:\n"
  "- cluster:\n"
  "    server: https://k8s.example.com:6443\n"
  "  name: one\n"
  "- cluster:\n"
  "    server: 'https://10.0.0.5'\n"
  "  name: two\n"
  "- cluster:\n"
  "    server: \"https://k8s.example.com:6443\"\n";

static void
dirs_setup (Dirs          *d,
            gconstpointer  data)
{
  g_autofree char *secret = NULL;

  d->root = ow_test_make_tmpdir ("ow-cred");
  d->home = path_in (d->root, "home");
  d->outside = path_in (d->root, "outside");
  d->sandbox = path_in (d->root, "sandbox");
  g_mkdir (d->home, 0755);
  g_mkdir (d->outside, 0755);
  g_mkdir (d->sandbox, 0700);

  write_file (d->outside, "secret.txt", "outside secret", 0600);
  secret = path_in (d->outside, "secret.txt");

  /* ~/.ssh with loose modes, a nested folder, links in and out, a socket. */
  write_file (d->home, ".ssh/id_ed25519", "PRIVATE KEY", 0644);
  write_file (d->home, ".ssh/id_ed25519.pub", "PUBLIC KEY", 0644);
  write_file (d->home, ".ssh/config", "Host *\n", 0644);
  write_file (d->home, ".ssh/sub/nested", "deep", 0644);
  make_link (secret, d->home, ".ssh/link-out");
  make_link ("id_ed25519.pub", d->home, ".ssh/link-in");
  make_link (d->outside, d->home, ".ssh/dir-link");
  make_socket (d->home, ".ssh/agent.sock");

  write_file (d->home, ".config/gh/hosts.yml", "github.com:\n  oauth_token: gho_x\n", 0600);
  write_file (d->home, ".aws/credentials", "[default]\naws_access_key_id = AKIA\n", 0600);
  write_file (d->home, ".aws/config", "[default]\nregion = eu-west-1\n", 0644);
  write_file (d->home, ".kube/config", kube_config, 0600);
  write_file (d->home, ".docker/config.json", "{\"auths\":{}}", 0600);
  write_file (d->home, ".docker/buildx/instances", "not shared", 0600);
  write_file (d->home, ".config/gcloud/credentials.db", "db", 0600);
  write_file (d->home, ".config/gcloud/logs/big.log", "log", 0600);
  write_file (d->home, ".pypirc", "[pypi]\npassword = pypi-x\n", 0644);
}

static void
dirs_teardown (Dirs          *d,
               gconstpointer  data)
{
  ow_remove_tree (d->root, NULL);
  g_free (d->root);
  g_free (d->home);
  g_free (d->outside);
  g_free (d->sandbox);
}

static const char config_toml[] =
  "[[sandbox_credentials]]\nname = \"ssh\"\nenabled = true\n\n"
  "[[sandbox_credentials]]\nname = \"gh\"\n\n"
  "[[sandbox_credentials]]\nname = \"aws-credentials\"\n\n"
  "[[sandbox_credentials]]\nname = \"aws-config\"\nenabled = false\n\n"
  "[[sandbox_credentials]]\nname = \"kube\"\n\n"
  "[[sandbox_credentials]]\nname = \"docker\"\n\n"
  "[[sandbox_credentials]]\nname = \"gcloud\"\n\n"
  "[[sandbox_credentials]]\nname = \"npm\"\n\n"
  "[[sandbox_credentials]]\nname = \"pypirc\"\npath = \"~/.pypirc\"\nkind = \"credential\"\n"
  "hosts = [\"upload.pypi.org:443\"]\nenv = \"PYPIRC_PATH\"\n";

static const char *const host_env[] = { "PATH=/usr/bin", NULL };

static GPtrArray *
load (Dirs       *d,
      GPtrArray **skipped)
{
  g_autofree char *config = path_in (d->root, "config.toml");
  g_autoptr(GError) error = NULL;
  GPtrArray *copies;

  g_assert_true (g_file_set_contents (config, config_toml, -1, NULL));
  copies = ow_credentials_load (config, d->home, host_env, skipped, &error);
  g_assert_no_error (error);
  return copies;
}

static OwCredentialCopy *
find_copy (GPtrArray  *copies,
           const char *name)
{
  for (guint i = 0; i < copies->len; i++)
    {
      OwCredentialCopy *c = g_ptr_array_index (copies, i);

      if (g_str_equal (c->name, name))
        return c;
    }
  return NULL;
}

/* The copy called @name, which must be there. */
static OwCredentialCopy *
get_copy (GPtrArray  *copies,
          const char *name)
{
  OwCredentialCopy *c = find_copy (copies, name);

  if (c == NULL)
    g_error ("no copy called %s", name);
  return c;
}

static void
assert_mode (const char *dir,
             const char *rel,
             int         type,
             int         mode)
{
  g_autofree char *path = path_in (dir, rel);
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    g_error ("%s is missing", path);
  g_assert_cmpint (st.st_mode & S_IFMT, ==, type);
  if ((int) (st.st_mode & 07777) != mode)
    g_error ("%s has mode %o, expected %o", path, st.st_mode & 07777, mode);
}

static void
assert_absent (const char *dir,
               const char *rel)
{
  g_autofree char *path = path_in (dir, rel);
  GStatBuf st;

  if (g_lstat (path, &st) == 0)
    g_error ("%s exists", path);
}

static void
assert_content (const char *dir,
                const char *rel,
                const char *text)
{
  g_autofree char *path = path_in (dir, rel);
  g_autofree char *got = NULL;

  g_assert_true (g_file_get_contents (path, &got, NULL, NULL));
  g_assert_cmpstr (got, ==, text);
}

/* No link anywhere under @path. */
static void
assert_no_links (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      GStatBuf st;

      g_assert_cmpint (g_lstat (child, &st), ==, 0);
      g_assert_false (S_ISLNK (st.st_mode));
      if (S_ISDIR (st.st_mode))
        assert_no_links (child);
    }
}

static gboolean
dir_is_empty (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);

  return dir != NULL && g_dir_read_name (dir) == NULL;
}

static gboolean
notes_mention (GPtrArray  *notes,
               const char *part)
{
  for (guint i = 0; i < notes->len; i++)
    if (strstr (g_ptr_array_index (notes, i), part) != NULL)
      return TRUE;
  return FALSE;
}

/* ---- Tests ------------------------------------------------------------ */

static void
test_catalogue (void)
{
  gsize n = 0;
  const OwCredentialKind *all = ow_credential_catalogue (&n);
  const OwCredentialKind *gh = ow_credential_kind_lookup ("gh");
  const char *const names[] = {
    "ssh", "gh", "aws-config", "aws-credentials", "kube", "npm", "docker", "gcloud", "terraform",
  };

  g_assert_cmpuint (n, ==, G_N_ELEMENTS (names));
  for (gsize i = 0; i < n; i++)
    g_assert_cmpstr (all[i].name, ==, names[i]);
  g_assert_cmpstr (gh->env_name, ==, "GH_CONFIG_DIR");
  g_assert_true (g_strv_contains (gh->hosts, "api.github.com:443"));
  g_assert_true (g_strv_contains (ow_credential_kind_lookup ("aws-config")->hosts, "*.amazonaws.com:443"));
  g_assert_true (g_strv_contains (ow_credential_kind_lookup ("terraform")->hosts, "releases.hashicorp.com:443"));
  g_assert_true (g_strv_contains (ow_credential_kind_lookup ("ssh")->hosts, "gitlab.com:22"));
  g_assert_null (ow_credential_kind_lookup ("pypirc"));
}

static void
test_from_config (Dirs          *d,
                  gconstpointer  data)
{
  g_autoptr(GPtrArray) skipped = NULL;
  g_autoptr(GPtrArray) copies = load (d, &skipped);
  OwCredentialCopy *kube = get_copy (copies, "kube");
  OwCredentialCopy *custom = get_copy (copies, "custom");
  OwCredentialCopy *gh = get_copy (copies, "gh");
  g_autofree char *gh_source = path_in (d->home, ".config/gh");
  g_autofree char *alt = path_in (d->root, "alt-gh");
  g_autofree char *alt_env = g_strdup_printf ("GH_CONFIG_DIR=%s", alt);
  const char *moved_env[] = { alt_env, NULL };
  g_autofree char *config = path_in (d->root, "config.toml");
  g_autoptr(GPtrArray) moved = NULL;

  /* Enabled and present: 7; aws-config is off; npm is not on this machine. */
  g_assert_cmpuint (copies->len, ==, 7);
  g_assert_null (find_copy (copies, "aws-config"));
  g_assert_null (find_copy (copies, "npm"));
  g_assert_cmpuint (skipped->len, ==, 1);
  g_assert_true (notes_mention (skipped, "npm"));

  g_assert_cmpstr (gh->source, ==, gh_source);
  g_assert_cmpstr (gh->dest, ==, ".config/gh");
  g_assert_cmpstr (gh->env_name, ==, "GH_CONFIG_DIR");

  /* kubectl's hosts are the servers its config names, each once. */
  g_assert_cmpuint (g_strv_length (kube->hosts), ==, 2);
  g_assert_cmpstr (kube->hosts[0], ==, "k8s.example.com:6443");
  g_assert_cmpstr (kube->hosts[1], ==, "10.0.0.5:443");

  g_assert_cmpstr (custom->dest, ==, ".pypirc");
  g_assert_cmpstr (custom->env_name, ==, "PYPIRC_PATH");
  g_assert_cmpstr (custom->hosts[0], ==, "upload.pypi.org:443");

  /* The tool's own variable on the host moves where the source is. */
  write_file (d->root, "alt-gh/hosts.yml", "moved", 0600);
  moved = ow_credentials_load (config, d->home, moved_env, NULL, NULL);
  gh = get_copy (moved, "gh");
  g_assert_cmpstr (gh->source, ==, alt);
}

typedef struct {
  const char *toml;   /* one [[sandbox_credentials]] table */
  const char *part;   /* what the error must say */
} BadEntry;

static void
test_bad_entries (Dirs          *d,
                  gconstpointer  data)
{
  static const BadEntry cases[] = {
    { "[[sandbox_credentials]]\nname = \"mystery\"\n", "not a known login" },
    { "[[sandbox_credentials]]\nname = \"x\"\npath = \"/etc/passwd\"\n", "not a file or folder under the home folder" },
    { "[[sandbox_credentials]]\nname = \"x\"\npath = \"~/../outside\"\n", "not a file or folder under the home folder" },
    { "[[sandbox_credentials]]\nname = \"x\"\npath = \"~\"\n", "not a file or folder under the home folder" },
    { "[[sandbox_credentials]]\nname = \"x\"\npath = \"~/.pypirc\"\nenv = \"LD_PRELOAD\"\n", "cannot be set" },
    { "[[sandbox_credentials]]\nname = \"x\"\npath = \"~/.pypirc\"\nenv = \"HTTPS_PROXY\"\n", "cannot be set" },
    { "[[sandbox_credentials]]\nname = \"x\"\npath = \"~/.pypirc\"\nhosts = [\"*.pypi.org:443\"]\n", "wildcards" },
    { "[[sandbox_credentials]]\nname = \"x\"\npath = \"~/.pypirc\"\nhosts = [1]\n", "hosts must be a list" },
    { "[[sandbox_credentials]]\nname = \"x\"\npath = \"~/.pypirc\"\nkind = \"secret\"\n", "kind must be" },
    { "[[sandbox_credentials]]\nname = \"ssh\"\nenabled = \"yes\"\n", "enabled must be true or false" },
    { "[[sandbox_credentials]]\nname = \"ssh\"\npath = \"~/.ssh\"\n", "takes only name and enabled" },
    { "[[sandbox_credentials]]\nenabled = true\n", "name is missing" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) root = ow_toml_parse (cases[i].toml, -1, &error);
      GPtrArray *copies;

      g_assert_no_error (error);
      copies = ow_credentials_from_config (json_object_get_array_member (json_node_get_object (root),
                                                                         "sandbox_credentials"),
                                           d->home, host_env, NULL, &error);
      g_assert_null (copies);
      g_assert_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID);
      if (strstr (error->message, cases[i].part) == NULL)
        g_error ("case %" G_GSIZE_FORMAT ": “%s” lacks “%s”", i, error->message, cases[i].part);
    }
}

static void
test_copy_in_and_remove (Dirs          *d,
                         gconstpointer  data)
{
  g_autoptr(GPtrArray) copies = load (d, NULL);
  g_autoptr(GPtrArray) skipped = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (ow_credentials_copy_in (copies, d->sandbox, &skipped, &error));
  g_assert_no_error (error);

  /* Owner-only, whatever the source's modes were. */
  assert_mode (d->sandbox, ".ssh", S_IFDIR, 0700);
  assert_mode (d->sandbox, ".ssh/id_ed25519", S_IFREG, 0600);
  assert_content (d->sandbox, ".ssh/id_ed25519", "PRIVATE KEY");
  assert_mode (d->sandbox, ".ssh/sub", S_IFDIR, 0700);
  assert_mode (d->sandbox, ".ssh/sub/nested", S_IFREG, 0600);
  assert_mode (d->sandbox, ".config", S_IFDIR, 0700);
  assert_mode (d->sandbox, ".config/gh/hosts.yml", S_IFREG, 0600);
  assert_mode (d->sandbox, ".aws/credentials", S_IFREG, 0600);
  assert_mode (d->sandbox, ".kube/config", S_IFREG, 0600);
  assert_mode (d->sandbox, ".docker/config.json", S_IFREG, 0600);
  assert_mode (d->sandbox, ".config/gcloud/credentials.db", S_IFREG, 0600);
  assert_mode (d->sandbox, ".pypirc", S_IFREG, 0600);
  assert_absent (d->sandbox, ".aws/config");          /* switched off */
  assert_absent (d->sandbox, ".docker/buildx");       /* only config.json */
  assert_absent (d->sandbox, ".config/gcloud/logs");  /* never copied */

  /* A link inside the folder becomes a file; links out, and a socket, are
   * left out and said so. */
  assert_mode (d->sandbox, ".ssh/link-in", S_IFREG, 0600);
  assert_content (d->sandbox, ".ssh/link-in", "PUBLIC KEY");
  assert_absent (d->sandbox, ".ssh/link-out");
  assert_absent (d->sandbox, ".ssh/dir-link");
  assert_absent (d->sandbox, ".ssh/agent.sock");
  g_assert_true (notes_mention (skipped, "link-out was left out"));
  g_assert_true (notes_mention (skipped, "dir-link was left out"));
  g_assert_true (notes_mention (skipped, "agent.sock was left out"));
  assert_no_links (d->sandbox);

  /* Copying again over a stale copy replaces it. */
  g_assert_true (ow_credentials_copy_in (copies, d->sandbox, NULL, &error));
  g_assert_no_error (error);

  /* Removal takes the copies and the folders they needed. */
  g_assert_true (ow_credentials_remove (copies, d->sandbox, &error));
  g_assert_no_error (error);
  g_assert_true (dir_is_empty (d->sandbox));
  /* The originals are untouched. */
  assert_content (d->home, ".ssh/id_ed25519", "PRIVATE KEY");
  assert_content (d->outside, "secret.txt", "outside secret");
}

static GPtrArray *
only (GPtrArray  *copies,
      const char *name)
{
  GPtrArray *out = g_ptr_array_new ();

  g_ptr_array_add (out, get_copy (copies, name));
  return out;
}

static void
test_planted_links_refuse_copy (Dirs          *d,
                                gconstpointer  data)
{
  g_autoptr(GPtrArray) copies = load (d, NULL);
  g_autoptr(GPtrArray) ssh = only (copies, "ssh");
  g_autoptr(GPtrArray) gh = only (copies, "gh");
  g_autoptr(GPtrArray) custom = only (copies, "custom");
  g_autofree char *victim = path_in (d->outside, "victim");
  g_autofree char *victim_file = path_in (d->outside, "victim-file");
  g_autoptr(GError) error = NULL;

  g_mkdir (victim, 0700);
  write_file (d->outside, "victim-file", "untouched", 0600);

  /* A link where the copy goes. */
  make_link (victim, d->sandbox, ".ssh");
  g_assert_false (ow_credentials_copy_in (ssh, d->sandbox, NULL, &error));
  g_assert_nonnull (strstr (error->message, "symbolic link"));
  g_clear_error (&error);
  g_assert_true (dir_is_empty (victim));

  /* A link on the way to it. */
  make_link (victim, d->sandbox, ".config");
  g_assert_false (ow_credentials_copy_in (gh, d->sandbox, NULL, &error));
  g_assert_nonnull (strstr (error->message, "symbolic link"));
  g_clear_error (&error);
  g_assert_true (dir_is_empty (victim));

  /* A link to a file where a file copy goes. */
  make_link (victim_file, d->sandbox, ".pypirc");
  g_assert_false (ow_credentials_copy_in (custom, d->sandbox, NULL, &error));
  g_clear_error (&error);
  assert_content (d->outside, "victim-file", "untouched");

  /* A failed copy-in cleans its destinations up, the planted links
   * included (the links, never what they point at). */
  assert_absent (d->sandbox, ".ssh");
  assert_absent (d->sandbox, ".config");
  assert_absent (d->sandbox, ".pypirc");
  g_assert_true (dir_is_empty (victim));

  /* Positive control: the same copies into the now clean home. */
  g_assert_true (ow_credentials_copy_in (ssh, d->sandbox, NULL, &error));
  g_assert_true (ow_credentials_copy_in (gh, d->sandbox, NULL, &error));
  g_assert_true (ow_credentials_copy_in (custom, d->sandbox, NULL, &error));
  g_assert_no_error (error);
  assert_content (d->sandbox, ".pypirc", "[pypi]\npassword = pypi-x\n");
}

static void
test_remove_follows_no_link (Dirs          *d,
                             gconstpointer  data)
{
  g_autoptr(GPtrArray) copies = load (d, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *keep_dir = path_in (d->outside, "keep");
  g_autofree char *precious = path_in (d->outside, "precious");
  g_autofree char *cfg = path_in (d->outside, "cfg");
  g_autofree char *ssh = path_in (d->sandbox, ".ssh");
  g_autofree char *config = path_in (d->sandbox, ".config");
  g_autofree char *aws_cred = path_in (d->sandbox, ".aws/credentials");

  g_assert_true (ow_credentials_copy_in (copies, d->sandbox, NULL, &error));
  g_assert_no_error (error);

  /* What a program in the sandbox could do to its own home afterwards. */
  write_file (d->outside, "keep/id_ed25519", "the real key", 0600);
  write_file (d->outside, "precious", "precious", 0600);
  write_file (d->outside, "cfg/gh/hosts.yml", "real gh", 0600);
  ow_remove_tree (ssh, NULL);
  make_link (keep_dir, d->sandbox, ".ssh");
  g_unlink (aws_cred);
  make_link (precious, d->sandbox, ".aws/credentials");
  ow_remove_tree (config, NULL);
  make_link (cfg, d->sandbox, ".config");

  g_assert_true (ow_credentials_remove (copies, d->sandbox, &error));
  g_assert_no_error (error);

  /* The links went; what they pointed at did not. */
  assert_content (d->outside, "keep/id_ed25519", "the real key");
  assert_content (d->outside, "precious", "precious");
  assert_content (d->outside, "cfg/gh/hosts.yml", "real gh");
  assert_absent (d->sandbox, ".ssh");
  assert_absent (d->sandbox, ".aws");
  assert_absent (d->sandbox, ".config");
  g_assert_true (dir_is_empty (d->sandbox));
}

static void
test_failure_cleans_up (Dirs          *d,
                        gconstpointer  data)
{
  g_autoptr(GPtrArray) copies = load (d, NULL);
  g_autoptr(GPtrArray) two = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  OwCredentialCopy missing = { (char *) "custom", (char *) "/nonexistent/ow-test", (char *) ".gone", NULL, NULL };

  g_ptr_array_add (two, get_copy (copies, "ssh"));
  g_ptr_array_add (two, &missing);
  g_assert_false (ow_credentials_copy_in (two, d->sandbox, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  /* Nothing is left half-shared. */
  g_assert_true (dir_is_empty (d->sandbox));
}

static void
on_copied_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (ow_credentials_copy_in_finish (result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static void
test_copy_in_async (Dirs          *d,
                    gconstpointer  data)
{
  g_autoptr(GPtrArray) copies = load (d, NULL);
  gboolean done = FALSE;

  ow_credentials_copy_in_async (copies, d->sandbox, NULL, on_copied_cb, &done);
  ow_test_wait_flag (&done);
  assert_content (d->sandbox, ".kube/config", kube_config);
  g_assert_true (ow_credentials_remove (copies, d->sandbox, NULL));
}

static void
test_environ_and_hosts (Dirs          *d,
                        gconstpointer  data)
{
  g_autoptr(GPtrArray) copies = load (d, NULL);
  const char *const env[] = {
    "PATH=/usr/bin", "LANG=C.UTF-8", "OPENAI_API_KEY=sk-test", "GITHUB_TOKEN=ghp_x",
    "AWS_SECRET_ACCESS_KEY=abc", "MY_PASSWORD=pw", "AWS_SHARED_CREDENTIALS_FILE=/host/.aws/credentials", NULL,
  };
  g_auto(GStrv) out = ow_credentials_environ (copies, "/sandbox/home", env);
  g_autoptr(OwSiteList) sites = ow_site_list_new ();
  g_autoptr(GError) error = NULL;

  g_assert_cmpstr (g_environ_getenv (out, "PATH"), ==, "/usr/bin");
  g_assert_cmpstr (g_environ_getenv (out, "LANG"), ==, "C.UTF-8");
  g_assert_null (g_environ_getenv (out, "OPENAI_API_KEY"));
  g_assert_null (g_environ_getenv (out, "GITHUB_TOKEN"));
  g_assert_null (g_environ_getenv (out, "AWS_SECRET_ACCESS_KEY"));
  g_assert_null (g_environ_getenv (out, "MY_PASSWORD"));
  /* The copies' variables point at the copies (the host's value is gone). */
  g_assert_cmpstr (g_environ_getenv (out, "GH_CONFIG_DIR"), ==, "/sandbox/home/.config/gh");
  g_assert_cmpstr (g_environ_getenv (out, "AWS_SHARED_CREDENTIALS_FILE"), ==, "/sandbox/home/.aws/credentials");
  g_assert_cmpstr (g_environ_getenv (out, "KUBECONFIG"), ==, "/sandbox/home/.kube/config");
  g_assert_cmpstr (g_environ_getenv (out, "DOCKER_CONFIG"), ==, "/sandbox/home/.docker");
  g_assert_cmpstr (g_environ_getenv (out, "CLOUDSDK_CONFIG"), ==, "/sandbox/home/.config/gcloud");
  g_assert_cmpstr (g_environ_getenv (out, "PYPIRC_PATH"), ==, "/sandbox/home/.pypirc");
  g_assert_null (g_environ_getenv (out, "AWS_CONFIG_FILE"));

  g_assert_true (ow_credentials_add_hosts (copies, sites, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "github.com", 22, FALSE), ==, OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "api.github.com", 443, FALSE), ==, OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "s3.eu-west-1.amazonaws.com", 443, FALSE), ==,
                   OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "amazonaws.com", 443, FALSE), ==, OW_SITE_DENIED);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "k8s.example.com", 6443, FALSE), ==, OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "registry-1.docker.io", 443, FALSE), ==, OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "storage.googleapis.com", 443, FALSE), ==,
                   OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "upload.pypi.org", 443, FALSE), ==, OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (sites, NULL, "registry.npmjs.org", 443, FALSE), ==, OW_SITE_DENIED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/sandbox/credentials/catalogue", test_catalogue);
#define ADD(path, fn) g_test_add ("/ow/sandbox/credentials/" path, Dirs, NULL, dirs_setup, fn, dirs_teardown)
  ADD ("from-config", test_from_config);
  ADD ("bad-entries", test_bad_entries);
  ADD ("copy-in-and-remove", test_copy_in_and_remove);
  ADD ("planted-links-refuse-copy", test_planted_links_refuse_copy);
  ADD ("remove-follows-no-link", test_remove_follows_no_link);
  ADD ("failure-cleans-up", test_failure_cleans_up);
  ADD ("copy-in-async", test_copy_in_async);
  ADD ("environ-and-hosts", test_environ_and_hosts);
#undef ADD

  return g_test_run ();
}
