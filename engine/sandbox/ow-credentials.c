/* ow-credentials.c: the credential catalogue and copy-in (see ow-credentials.h).
 *
 * Copies are made with the *at() family of calls on folder descriptors
 * opened with O_NOFOLLOW, never by path. The sandbox home is writable from
 * inside the sandbox, so by the time a copy is made (a home reused after a
 * crash) or removed (always) a program in there may have put a symbolic
 * link where a copy's folder should be: a copy written, or a folder deleted,
 * through such a link would land in the person's real home. Walking one
 * component at a time with O_NOFOLLOW makes every such link an error (when
 * copying) or just a link to delete (when removing).
 *
 * On the source side, the entry itself may be a link the person made (a
 * dotfiles checkout): that one is followed, since the person named it.
 * Inside a shared folder a link is copied as a plain file only when it
 * points at a file inside the same folder; anything else is left out and
 * said so. Copies are bounded (bytes, entries, depth) so a huge folder
 * cannot fill the disk or stall a session's start.
 */
#define G_LOG_DOMAIN "ow-credentials"

#include "sandbox/ow-credentials.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ow-error.h"
#include "ow-redact.h"
#include "ow-secret-env.h"
#include "store/ow-toml.h"

#define MAX_COPY_BYTES   ((guint64) 64 * 1024 * 1024)
#define MAX_COPY_ENTRIES 10000
#define MAX_DEPTH        32

/* ---- The catalogue ---------------------------------------------------- */

static const char *const ssh_hosts[] = { "github.com:22", "gitlab.com:22", NULL };
static const char *const gh_hosts[] = { "api.github.com:443", "github.com:443", NULL };
static const char *const aws_hosts[] = { "*.amazonaws.com:443", NULL };
static const char *const npm_hosts[] = { "registry.npmjs.org:443", NULL };
/* Docker Hub serves image layers from a CDN host and ghcr.io from GitHub's
 * package host: without those a pull logs in and then fails. */
static const char *const docker_hosts[] = {
  "registry-1.docker.io:443", "auth.docker.io:443", "production.cloudflare.docker.com:443",
  "ghcr.io:443", "pkg-containers.githubusercontent.com:443", NULL,
};
static const char *const gcloud_hosts[] = { "*.googleapis.com:443", "accounts.google.com:443", NULL };
static const char *const terraform_hosts[] = {
  "app.terraform.io:443", "registry.terraform.io:443", "releases.hashicorp.com:443", NULL,
};
static const char *const no_hosts[] = { NULL };
/* gcloud keeps its command logs beside the credentials; they can be large
 * and hold nothing a tool needs. */
static const char *const gcloud_skip[] = { "logs", NULL };

static const OwCredentialKind catalogue[] = {
  { "ssh", "SSH keys", ".ssh", NULL, ".ssh", NULL, TRUE, TRUE, ssh_hosts, NULL },
  { "gh", "GitHub CLI", ".config/gh", "GH_CONFIG_DIR", ".config/gh", "GH_CONFIG_DIR", TRUE, TRUE,
    gh_hosts, NULL },
  { "aws-config", "AWS profiles", ".aws/config", "AWS_CONFIG_FILE", ".aws/config", "AWS_CONFIG_FILE",
    FALSE, FALSE, aws_hosts, NULL },
  { "aws-credentials", "AWS credentials", ".aws/credentials", "AWS_SHARED_CREDENTIALS_FILE",
    ".aws/credentials", "AWS_SHARED_CREDENTIALS_FILE", FALSE, TRUE, aws_hosts, NULL },
  /* Hosts: the servers named in the kubeconfig, read when resolving. */
  { "kube", "kubectl", ".kube/config", "KUBECONFIG", ".kube/config", "KUBECONFIG", FALSE, TRUE,
    no_hosts, NULL },
  { "npm", "npm", ".npmrc", "NPM_CONFIG_USERCONFIG", ".npmrc", "NPM_CONFIG_USERCONFIG", FALSE, TRUE,
    npm_hosts, NULL },
  /* DOCKER_CONFIG names the folder holding config.json, on both sides. */
  { "docker", "Docker registries", ".docker/config.json", "DOCKER_CONFIG", ".docker/config.json",
    "DOCKER_CONFIG", FALSE, TRUE, docker_hosts, NULL },
  { "gcloud", "gcloud", ".config/gcloud", "CLOUDSDK_CONFIG", ".config/gcloud", "CLOUDSDK_CONFIG",
    TRUE, TRUE, gcloud_hosts, gcloud_skip },
  /* Terraform finds credentials.tfrc.json under $HOME/.terraform.d itself. */
  { "terraform", "Terraform Cloud", ".terraform.d/credentials.tfrc.json", NULL,
    ".terraform.d/credentials.tfrc.json", NULL, FALSE, TRUE, terraform_hosts, NULL },
};

const OwCredentialKind *
ow_credential_catalogue (gsize *n_kinds)
{
  if (n_kinds != NULL)
    *n_kinds = G_N_ELEMENTS (catalogue);
  return catalogue;
}

const OwCredentialKind *
ow_credential_kind_lookup (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (catalogue); i++)
    if (g_str_equal (catalogue[i].name, name))
      return &catalogue[i];
  return NULL;
}

/* ---- From the config -------------------------------------------------- */

/* Declared with the struct in ow-sandbox.h; defined here, beside the
 * only code that makes OwCredentialCopy values. */
void
ow_credential_copy_free (OwCredentialCopy *copy)
{
  if (copy == NULL)
    return;
  g_free (copy->name);
  g_free (copy->source);
  g_free (copy->dest);
  g_free (copy->env_name);
  g_strfreev (copy->hosts);
  g_free (copy);
}

static void
credential_copy_free (gpointer data)
{
  ow_credential_copy_free (data);
}


G_GNUC_PRINTF (4, 5)
static gboolean
bad_entry (GError    **error,
           guint       index,
           const char *name,
           const char *format,
           ...)
{
  g_autofree char *why = NULL;
  va_list args;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  if (name != NULL)
    g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                 "config.toml: [[sandbox_credentials]] entry %u (“%s”): %s", index + 1, name, why);
  else
    g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                 "config.toml: [[sandbox_credentials]] entry %u: %s", index + 1, why);
  return FALSE;
}

/* A string member, NULL when absent; FALSE when present but not a string. */
static gboolean
get_string (JsonObject  *table,
            const char  *member,
            const char **out)
{
  JsonNode *n = json_object_get_member (table, member);

  *out = NULL;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return FALSE;
  *out = json_node_get_string (n);
  return TRUE;
}

static const char *
env_lookup (const char *const *env,
            const char        *name)
{
  if (env == NULL)
    return g_getenv (name);
  return g_environ_getenv ((char **) env, name);
}

/* Variables a credential entry may never set, whatever it is called: they
 * would change how programs are found, loaded or connected. */
static gboolean
env_name_allowed (const char *name)
{
  static const char *const reserved[] = {
    "PATH", "HOME", "SHELL", "USER", "LOGNAME", "TMPDIR", "PWD", "IFS", "ENV", "BASH_ENV",
  };

  if (name == NULL || *name == '\0' || (!g_ascii_isalpha (*name) && *name != '_'))
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (reserved); i++)
    if (g_str_equal (name, reserved[i]))
      return FALSE;
  if (g_str_has_prefix (name, "LD_") || g_str_has_prefix (name, "DYLD_")
      || strstr (name, "PROXY") != NULL || strstr (name, "proxy") != NULL)
    return FALSE;
  return TRUE;
}

/* The host:port of each "server:" line of a kubeconfig. A full YAML reader
 * is not worth having for one key; a server URL is always on one line. */
static GStrv
kubeconfig_servers (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (g_free);

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_new0 (char *, 1);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *l = g_strstrip (lines[i]);
      g_autoptr(GUri) uri = NULL;
      g_autofree char *host = NULL;
      g_autofree char *entry = NULL;
      gsize len;
      int port;

      if (*l == '-')
        l = g_strchug (l + 1);
      if (!g_str_has_prefix (l, "server:"))
        continue;
      l = g_strstrip (l + 7);
      len = strlen (l);
      if (len >= 2 && (l[0] == '"' || l[0] == '\'') && l[len - 1] == l[0])
        {
          l[len - 1] = '\0';
          l++;
        }
      uri = g_uri_parse (l, G_URI_FLAGS_NONE, NULL);
      if (uri == NULL || g_uri_get_host (uri) == NULL)
        continue;
      port = g_uri_get_port (uri);
      if (port <= 0)
        port = g_strcmp0 (g_uri_get_scheme (uri), "http") == 0 ? 80 : 443;
      if (!ow_site_parse (g_uri_get_host (uri), FALSE, &host, NULL, NULL))
        continue;
      entry = ow_site_format (host, (guint16) port);
      if (!g_ptr_array_find_with_equal_func (out, entry, g_str_equal, NULL))
        g_ptr_array_add (out, g_steal_pointer (&entry));
    }
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

/* Where a catalogue entry's source is on this machine. */
static char *
kind_source (const OwCredentialKind *kind,
             const char             *home,
             const char *const      *env)
{
  const char *moved = kind->source_env != NULL ? env_lookup (env, kind->source_env) : NULL;

  if (moved != NULL && *moved != '\0')
    {
      if (g_str_equal (kind->name, "docker"))
        return g_build_filename (moved, "config.json", NULL);
      if (g_str_equal (kind->name, "kube"))
        {
          /* KUBECONFIG may list several files; the first one that exists
           * is the one kubectl writes to, so that one is shared. */
          g_auto(GStrv) paths = g_strsplit (moved, G_SEARCHPATH_SEPARATOR_S, -1);

          for (guint i = 0; paths[i] != NULL; i++)
            if (*paths[i] != '\0' && g_file_test (paths[i], G_FILE_TEST_EXISTS))
              return g_strdup (paths[i]);
          return g_strdup (paths[0] != NULL ? paths[0] : "");
        }
      return g_strdup (moved);
    }
  return g_build_filename (home, kind->source, NULL);
}

/* A custom entry's path as an absolute path under @home; NULL if it is
 * not under home. */
static char *
custom_source (const char *path,
               const char *home)
{
  g_autofree char *expanded = NULL;
  g_autofree char *abs = NULL;
  g_autofree char *home_abs = g_canonicalize_filename (home, NULL);
  gsize home_len = strlen (home_abs);

  if (g_str_equal (path, "~") || g_str_has_prefix (path, "~/"))
    expanded = g_build_filename (home, path + 1, NULL);
  else
    expanded = g_strdup (path);
  if (!g_path_is_absolute (expanded))
    return NULL;
  abs = g_canonicalize_filename (expanded, NULL);
  if (strncmp (abs, home_abs, home_len) != 0 || abs[home_len] != '/' || abs[home_len + 1] == '\0')
    return NULL;
  return g_steal_pointer (&abs);
}

static OwCredentialCopy *
custom_copy (JsonObject  *table,
             guint        index,
             const char  *name,
             const char  *home,
             GError     **error)
{
  g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *source = NULL;
  g_autofree char *home_abs = g_canonicalize_filename (home, NULL);
  const char *path = NULL;
  const char *env = NULL;
  const char *kind = NULL;
  JsonNode *hosts_node;
  OwCredentialCopy *copy;

  if (!get_string (table, "path", &path) || !get_string (table, "env", &env)
      || !get_string (table, "kind", &kind))
    {
      bad_entry (error, index, name, "path, env and kind must be strings.");
      return NULL;
    }
  if (path == NULL)
    {
      bad_entry (error, index, name, "this is not a known login (ssh, gh, aws-config, aws-credentials, "
                 "kube, npm, docker, gcloud, terraform); for anything else give its path, like "
                 "path = \"~/.pypirc\".");
      return NULL;
    }
  source = custom_source (path, home);
  if (source == NULL)
    {
      bad_entry (error, index, name, "path %s is not a file or folder under the home folder.", path);
      return NULL;
    }
  if (kind != NULL && !g_str_equal (kind, "credential") && !g_str_equal (kind, "configuration"))
    {
      bad_entry (error, index, name, "kind must be \"credential\" or \"configuration\".");
      return NULL;
    }
  if (env != NULL && !env_name_allowed (env))
    {
      bad_entry (error, index, name, "env = \"%s\" cannot be set for a copy (a variable name, "
                 "not PATH, HOME, LD_… or a proxy variable).", env);
      return NULL;
    }

  hosts_node = json_object_get_member (table, "hosts");
  if (hosts_node != NULL)
    {
      JsonArray *arr = JSON_NODE_HOLDS_ARRAY (hosts_node) ? json_node_get_array (hosts_node) : NULL;

      for (guint i = 0; arr != NULL && i < json_array_get_length (arr); i++)
        {
          JsonNode *h = json_array_get_element (arr, i);
          g_autoptr(GError) local = NULL;
          g_autofree char *host = NULL;
          guint16 port = 0;

          if (!JSON_NODE_HOLDS_VALUE (h) || json_node_get_value_type (h) != G_TYPE_STRING)
            arr = NULL;
          else if (!ow_site_parse (json_node_get_string (h), FALSE, &host, &port, &local))
            {
              bad_entry (error, index, name, "%s", local->message);
              return NULL;
            }
          else if (port != 0)
            g_ptr_array_add (hosts, ow_site_format (host, port));
          else
            g_ptr_array_add (hosts, g_strdup (json_node_get_string (h)));
        }
      if (arr == NULL)
        {
          bad_entry (error, index, name, "hosts must be a list of \"host:port\" strings.");
          return NULL;
        }
    }
  g_ptr_array_add (hosts, NULL);

  copy = g_new0 (OwCredentialCopy, 1);
  copy->name = g_strdup ("custom");
  copy->dest = g_strdup (source + strlen (home_abs) + 1);
  copy->source = g_steal_pointer (&source);
  copy->env_name = g_strdup (env);
  copy->hosts = (char **) g_ptr_array_free (g_steal_pointer (&hosts), FALSE);
  return copy;
}

GPtrArray *
ow_credentials_from_config (JsonArray          *tables,
                            const char         *home,
                            const char *const  *host_env,
                            GPtrArray         **skipped,
                            GError            **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (credential_copy_free);

  g_return_val_if_fail (home != NULL, NULL);

  if (skipped != NULL)
    *skipped = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; tables != NULL && i < json_array_get_length (tables); i++)
    {
      JsonNode *node = json_array_get_element (tables, i);
      JsonObject *table = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const OwCredentialKind *kind;
      const char *name = NULL;
      JsonNode *enabled;
      OwCredentialCopy *copy;

      if (table == NULL)
        {
          bad_entry (error, i, NULL, "each entry must be a table.");
          return NULL;
        }
      if (!get_string (table, "name", &name) || name == NULL || *name == '\0')
        {
          bad_entry (error, i, NULL, "name is missing (\"ssh\", \"gh\", … or a name of your own with a path).");
          return NULL;
        }
      enabled = json_object_get_member (table, "enabled");
      if (enabled != NULL
          && (!JSON_NODE_HOLDS_VALUE (enabled) || json_node_get_value_type (enabled) != G_TYPE_BOOLEAN))
        {
          bad_entry (error, i, name, "enabled must be true or false.");
          return NULL;
        }
      /* An entry is added to be used: only "enabled = false" turns it off. */
      if (enabled != NULL && !json_node_get_boolean (enabled))
        continue;

      kind = ow_credential_kind_lookup (name);
      if (kind == NULL)
        {
          copy = custom_copy (table, i, name, home, error);
          if (copy == NULL)
            return NULL;
        }
      else
        {
          if (json_object_has_member (table, "path") || json_object_has_member (table, "env"))
            {
              bad_entry (error, i, name, "a catalogue entry takes only name and enabled; "
                         "use a name of your own for a custom path.");
              return NULL;
            }
          copy = g_new0 (OwCredentialCopy, 1);
          copy->name = g_strdup (kind->name);
          copy->source = kind_source (kind, home, host_env);
          copy->dest = g_strdup (kind->dest);
          copy->env_name = g_strdup (kind->env_name);
          copy->hosts = g_strdupv ((char **) kind->hosts);
        }

      if (!g_file_test (copy->source, G_FILE_TEST_EXISTS))
        {
          if (skipped != NULL)
            g_ptr_array_add (*skipped, g_strdup_printf ("%s: %s is not on this machine, so it is not shared.",
                                                        name, copy->source));
          credential_copy_free (copy);
          continue;
        }
      if (g_str_equal (copy->name, "kube"))
        {
          g_strfreev (copy->hosts);
          copy->hosts = kubeconfig_servers (copy->source);
        }
      g_ptr_array_add (out, copy);
    }
  return g_steal_pointer (&out);
}

GPtrArray *
ow_credentials_load (const char         *config_path,
                     const char         *home,
                     const char *const  *host_env,
                     GPtrArray         **skipped,
                     GError            **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonNode *tables;
  gsize len = 0;

  g_return_val_if_fail (config_path != NULL, NULL);

  if (!g_file_get_contents (config_path, &text, &len, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return ow_credentials_from_config (NULL, home, host_env, skipped, error);
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_UNREADABLE,
                   "Could not read %s: %s", config_path, local->message);
      return NULL;
    }
  root = ow_toml_parse (text, (gssize) len, &local);
  if (root == NULL)
    {
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID, "%s: %s", config_path, local->message);
      return NULL;
    }
  tables = json_object_get_member (json_node_get_object (root), "sandbox_credentials");
  if (tables != NULL && !JSON_NODE_HOLDS_ARRAY (tables))
    {
      g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID,
                   "%s: sandbox_credentials must be a list of tables ([[sandbox_credentials]]).",
                   config_path);
      return NULL;
    }
  return ow_credentials_from_config (tables != NULL ? json_node_get_array (tables) : NULL,
                                     home, host_env, skipped, error);
}

/* ---- Copying in ------------------------------------------------------- */

/* Running totals and notes of one copy-in. */
typedef struct {
  GPtrArray  *skipped;    /* sentences for what was left out, or NULL */
  guint64     bytes;      /* bytes copied so far */
  guint       entries;    /* files and folders made so far */
  const char *root_real;  /* the shared folder's real path, for links inside it */
} CopyState;

G_GNUC_PRINTF (3, 4)
static gboolean
errno_error (GError    **error,
             int         saved,
             const char *format,
             ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s.", what, g_strerror (saved));
  return FALSE;
}

static void
note_skipped (CopyState  *st,
              const char *path,
              const char *why)
{
  if (st->skipped != NULL)
    g_ptr_array_add (st->skipped, g_strdup_printf ("%s was left out: %s.", path, why));
}

static gboolean
count_entry (CopyState  *st,
             const char *path,
             GError    **error)
{
  if (++st->entries > MAX_COPY_ENTRIES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   "Sharing %s would copy more than %d files; share a smaller folder.",
                   path, MAX_COPY_ENTRIES);
      return FALSE;
    }
  return TRUE;
}

/* Copies the open regular file @src_fd to @name in @dst_dir, owner-only.
 * The destination must not exist (O_EXCL also refuses a link there). */
static gboolean
copy_file_fd (int         src_fd,
              const char *src_path,
              int         dst_dir,
              const char *name,
              CopyState  *st,
              GError    **error)
{
  struct stat sb;
  char buf[64 * 1024];
  int dst;
  gboolean ok = TRUE;

  if (fstat (src_fd, &sb) != 0)
    return errno_error (error, errno, "Could not read %s", src_path);
  if (!S_ISREG (sb.st_mode))
    {
      note_skipped (st, src_path, "it is not a regular file");
      return TRUE;
    }
  if (!count_entry (st, src_path, error))
    return FALSE;

  dst = openat (dst_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (dst < 0)
    return errno_error (error, errno, "Could not create the copy of %s in the sandbox home", src_path);

  for (;;)
    {
      ssize_t n = read (src_fd, buf, sizeof buf);
      ssize_t off = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          ok = errno_error (error, errno, "Could not read %s", src_path);
          break;
        }
      if (n == 0)
        break;
      st->bytes += (guint64) n;
      if (st->bytes > MAX_COPY_BYTES)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                       "Sharing %s would copy more than %" G_GUINT64_FORMAT " MiB; share something smaller.",
                       src_path, MAX_COPY_BYTES / (1024 * 1024));
          ok = FALSE;
          break;
        }
      while (off < n)
        {
          ssize_t w = write (dst, buf + off, (size_t) (n - off));

          if (w < 0 && errno == EINTR)
            continue;
          if (w < 0)
            {
              ok = errno_error (error, errno, "Could not write the copy of %s", src_path);
              break;
            }
          off += w;
        }
      if (!ok)
        break;
    }
  /* The umask may have taken bits away; the mode is exactly 0600. */
  if (ok && fchmod (dst, 0600) != 0)
    ok = errno_error (error, errno, "Could not make the copy of %s private", src_path);
  close (dst);
  return ok;
}

static gboolean
in_list (const char *const *list,
         const char        *name)
{
  return list != NULL && g_strv_contains (list, name);
}

/* Copies the folder open at @src_dir (real path @src_path) into @dst_dir. */
static gboolean
copy_tree (int                src_dir,
           const char        *src_path,
           int                dst_dir,
           const char *const *skip,
           int                depth,
           CopyState         *st,
           GError           **error)
{
  DIR *d;
  struct dirent *e;
  gboolean ok = TRUE;
  int dup_fd;

  if (depth > MAX_DEPTH)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                   "%s is nested more than %d folders deep; share something smaller.", src_path, MAX_DEPTH);
      return FALSE;
    }
  dup_fd = dup (src_dir);
  if (dup_fd < 0 || (d = fdopendir (dup_fd)) == NULL)
    {
      int saved = errno;

      if (dup_fd >= 0)
        close (dup_fd);
      return errno_error (error, saved, "Could not list %s", src_path);
    }

  while (ok && (e = readdir (d)) != NULL)
    {
      g_autofree char *path = NULL;
      struct stat sb;

      if (g_str_equal (e->d_name, ".") || g_str_equal (e->d_name, ".."))
        continue;
      path = g_build_filename (src_path, e->d_name, NULL);
      if (depth == 0 && in_list (skip, e->d_name))
        continue;
      if (fstatat (src_dir, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        {
          ok = errno_error (error, errno, "Could not read %s", path);
          break;
        }

      if (S_ISDIR (sb.st_mode))
        {
          int s = -1;
          int t = -1;

          ok = count_entry (st, path, error);
          if (ok && mkdirat (dst_dir, e->d_name, 0700) != 0)
            ok = errno_error (error, errno, "Could not make the copy of %s", path);
          if (ok && (s = openat (src_dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
            ok = errno_error (error, errno, "Could not open %s", path);
          if (ok && (t = openat (dst_dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
            ok = errno_error (error, errno, "Could not open the copy of %s", path);
          if (ok && fchmod (t, 0700) != 0)
            ok = errno_error (error, errno, "Could not make the copy of %s private", path);
          if (ok)
            ok = copy_tree (s, path, t, skip, depth + 1, st, error);
          if (s >= 0)
            close (s);
          if (t >= 0)
            close (t);
        }
      else if (S_ISREG (sb.st_mode))
        {
          int s = openat (src_dir, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

          if (s < 0)
            ok = errno_error (error, errno, "Could not open %s", path);
          else
            {
              ok = copy_file_fd (s, path, dst_dir, e->d_name, st, error);
              close (s);
            }
        }
      else if (S_ISLNK (sb.st_mode))
        {
          /* A link is never recreated. Its file is copied only when it is
           * inside the shared folder, which the person chose to share. */
          g_autofree char *real = realpath (path, NULL);
          struct stat rb;

          if (real != NULL && g_str_has_prefix (real, st->root_real)
              && real[strlen (st->root_real)] == '/' && stat (real, &rb) == 0 && S_ISREG (rb.st_mode))
            {
              int s = open (real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

              if (s < 0)
                ok = errno_error (error, errno, "Could not open %s", real);
              else
                {
                  ok = copy_file_fd (s, path, dst_dir, e->d_name, st, error);
                  close (s);
                }
            }
          else
            note_skipped (st, path, "it is a symbolic link to something outside the shared folder");
        }
      else
        note_skipped (st, path, "it is not a file or folder");
    }
  closedir (d);
  return ok;
}

/* Removes @name in @dir_fd and everything under it, following no link. */
static gboolean
remove_at (int         dir_fd,
           const char *name,
           int         depth,
           GError    **error)
{
  struct stat sb;

  if (fstatat (dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? TRUE : errno_error (error, errno, "Could not remove %s", name);

  if (S_ISDIR (sb.st_mode))
    {
      int fd;
      int dup_fd;
      DIR *d;
      struct dirent *e;
      gboolean ok = TRUE;

      if (depth > MAX_DEPTH + 8)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                       "Could not remove %s: it is nested too deep.", name);
          return FALSE;
        }
      /* O_NOFOLLOW: if the folder was swapped for a link since fstatat,
       * this fails instead of entering what the link points at. */
      fd = openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        {
          if (errno == ELOOP || errno == ENOTDIR)
            return unlinkat (dir_fd, name, 0) == 0 ? TRUE
                                                   : errno_error (error, errno, "Could not remove %s", name);
          return errno_error (error, errno, "Could not remove %s", name);
        }
      dup_fd = dup (fd);
      d = dup_fd >= 0 ? fdopendir (dup_fd) : NULL;
      if (d == NULL)
        {
          int saved = errno;

          if (dup_fd >= 0)
            close (dup_fd);
          close (fd);
          return errno_error (error, saved, "Could not remove %s", name);
        }
      while (ok && (e = readdir (d)) != NULL)
        {
          if (g_str_equal (e->d_name, ".") || g_str_equal (e->d_name, ".."))
            continue;
          ok = remove_at (fd, e->d_name, depth + 1, error);
        }
      closedir (d);
      close (fd);
      if (!ok)
        return FALSE;
      if (unlinkat (dir_fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        return errno_error (error, errno, "Could not remove %s", name);
      return TRUE;
    }
  if (unlinkat (dir_fd, name, 0) != 0 && errno != ENOENT)
    return errno_error (error, errno, "Could not remove %s", name);
  return TRUE;
}

/* Opens each folder on the way to @dest under @home_fd without following
 * links, making them (0700) when @create. Returns the parent's descriptor
 * and fills @fds with every descriptor opened (to close), or -1 when a
 * component is missing (errno ENOENT) or is not a plain folder (ELOOP,
 * ENOTDIR). @components receives the split path. */
static int
open_parent (int         home_fd,
             const char *dest,
             gboolean    create,
             GStrv      *components,
             GArray     *fds)
{
  g_auto(GStrv) parts = g_strsplit (dest, "/", -1);
  guint n = g_strv_length (parts);
  int fd = home_fd;

  for (guint i = 0; i + 1 < n; i++)
    {
      int next;

      if (*parts[i] == '\0' || g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
        {
          errno = EINVAL;
          return -1;
        }
      if (create && mkdirat (fd, parts[i], 0700) != 0 && errno != EEXIST)
        return -1;
      next = openat (fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0)
        return -1;
      g_array_append_val (fds, next);
      fd = next;
    }
  *components = g_steal_pointer (&parts);
  return fd;
}

static void
close_fds (GArray *fds)
{
  for (guint i = 0; i < fds->len; i++)
    close (g_array_index (fds, int, i));
  g_array_set_size (fds, 0);
}

static gboolean
copy_one (const OwCredentialCopy *copy,
          int                     home_fd,
          const char             *sandbox_home,
          CopyState              *st,
          GError                **error)
{
  g_autoptr(GArray) fds = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto(GStrv) parts = NULL;
  const OwCredentialKind *kind = ow_credential_kind_lookup (copy->name);
  const char *leaf;
  struct stat sb;
  gboolean ok = TRUE;
  int parent;
  int src;

  parent = open_parent (home_fd, copy->dest, TRUE, &parts, fds);
  if (parent < 0)
    {
      int saved = errno;

      close_fds (fds);
      if (saved == ELOOP || saved == ENOTDIR)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                       "Refusing to copy %s into the sandbox home: a folder on the way to %s/%s is a "
                       "symbolic link or not a folder.", copy->source, sandbox_home, copy->dest);
          return FALSE;
        }
      return errno_error (error, saved, "Could not make the folders for %s in the sandbox home", copy->dest);
    }
  leaf = parts[g_strv_length (parts) - 1];

  /* Whatever is already there goes first, unless it is a link: that is not
   * something this code made, and it is not to be trusted either way. */
  if (fstatat (parent, leaf, &sb, AT_SYMLINK_NOFOLLOW) == 0)
    {
      if (S_ISLNK (sb.st_mode))
        {
          close_fds (fds);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                       "Refusing to copy %s: %s/%s in the sandbox home is a symbolic link.",
                       copy->source, sandbox_home, copy->dest);
          return FALSE;
        }
      if (!remove_at (parent, leaf, 0, error))
        {
          close_fds (fds);
          return FALSE;
        }
    }

  /* The entry itself may be a link the person made: followed on purpose. */
  src = open (copy->source, O_RDONLY | O_CLOEXEC);
  if (src < 0 || fstat (src, &sb) != 0)
    {
      int saved = errno;

      if (src >= 0)
        close (src);
      close_fds (fds);
      return errno_error (error, saved, "Could not read %s", copy->source);
    }

  if (S_ISDIR (sb.st_mode))
    {
      g_autofree char *real = realpath (copy->source, NULL);
      int dst = -1;

      st->root_real = real;
      ok = count_entry (st, copy->source, error);
      if (ok && mkdirat (parent, leaf, 0700) != 0)
        ok = errno_error (error, errno, "Could not make the copy of %s", copy->source);
      if (ok && (dst = openat (parent, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        ok = errno_error (error, errno, "Could not open the copy of %s", copy->source);
      if (ok && fchmod (dst, 0700) != 0)
        ok = errno_error (error, errno, "Could not make the copy of %s private", copy->source);
      if (ok && real == NULL)
        ok = errno_error (error, errno, "Could not read %s", copy->source);
      if (ok)
        ok = copy_tree (src, real, dst, kind != NULL ? kind->skip : NULL, 0, st, error);
      st->root_real = NULL;
      if (dst >= 0)
        close (dst);
    }
  else if (S_ISREG (sb.st_mode))
    ok = copy_file_fd (src, copy->source, parent, leaf, st, error);
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "Could not share %s: it is neither a file nor a folder.", copy->source);
      ok = FALSE;
    }
  close (src);
  close_fds (fds);
  return ok;
}

gboolean
ow_credentials_copy_in (GPtrArray   *copies,
                        const char  *sandbox_home,
                        GPtrArray  **skipped,
                        GError     **error)
{
  CopyState st = { 0 };
  int home_fd;

  g_return_val_if_fail (sandbox_home != NULL, FALSE);

  if (skipped != NULL)
    *skipped = st.skipped = g_ptr_array_new_with_free_func (g_free);
  if (copies == NULL || copies->len == 0)
    return TRUE;

  home_fd = open (sandbox_home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (home_fd < 0)
    return errno_error (error, errno, "Could not open the sandbox home %s", sandbox_home);

  for (guint i = 0; i < copies->len; i++)
    if (!copy_one (g_ptr_array_index (copies, i), home_fd, sandbox_home, &st, error))
      {
        close (home_fd);
        /* Leave nothing half-shared behind. */
        ow_credentials_remove (copies, sandbox_home, NULL);
        return FALSE;
      }
  close (home_fd);
  return TRUE;
}

static void
copy_in_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  GPtrArray *copies = g_object_get_data (G_OBJECT (task), "copies");
  GError *error = NULL;

  if (ow_credentials_copy_in (copies, task_data, NULL, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
ow_credentials_copy_in_async (GPtrArray          *copies,
                              const char         *sandbox_home,
                              GCancellable       *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (sandbox_home != NULL);

  g_task_set_source_tag (task, ow_credentials_copy_in_async);
  g_task_set_task_data (task, g_strdup (sandbox_home), g_free);
  if (copies != NULL)
    g_object_set_data_full (G_OBJECT (task), "copies", g_ptr_array_ref (copies),
                            (GDestroyNotify) g_ptr_array_unref);
  g_task_run_in_thread (task, copy_in_thread);
}

gboolean
ow_credentials_copy_in_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- Removing --------------------------------------------------------- */

static gboolean
remove_one (const OwCredentialCopy *copy,
            int                     home_fd,
            GError                **error)
{
  g_autoptr(GArray) fds = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto(GStrv) parts = NULL;
  guint n;
  int parent;
  gboolean ok;

  parent = open_parent (home_fd, copy->dest, FALSE, &parts, fds);
  if (parent < 0)
    {
      int saved = errno;

      close_fds (fds);
      if (saved == ENOENT)
        return TRUE; /* never copied, or already gone */
      if (saved == ELOOP || saved == ENOTDIR)
        {
          /* A link (or file) where a folder of ours was: remove just that
           * entry, never what it points at. */
          g_auto(GStrv) comps = g_strsplit (copy->dest, "/", -1);
          int fd = home_fd;
          guint i;

          for (i = 0; comps[i + 1] != NULL; i++)
            {
              struct stat sb;

              if (fstatat (fd, comps[i], &sb, AT_SYMLINK_NOFOLLOW) != 0)
                break;
              if (!S_ISDIR (sb.st_mode))
                {
                  if (unlinkat (fd, comps[i], 0) != 0 && errno != ENOENT)
                    return errno_error (error, errno, "Could not remove %s from the sandbox home", comps[i]);
                  break;
                }
              fd = openat (fd, comps[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
              if (fd < 0)
                break;
              g_array_append_val (fds, fd);
            }
          close_fds (fds);
          return TRUE;
        }
      return errno_error (error, saved, "Could not remove the copy %s", copy->dest);
    }

  n = g_strv_length (parts);
  ok = remove_at (parent, parts[n - 1], 0, error);

  /* Then the folders made on the way, innermost first, while empty. */
  for (guint i = fds->len; ok && i > 0; i--)
    {
      int above = i >= 2 ? g_array_index (fds, int, i - 2) : home_fd;

      if (unlinkat (above, parts[i - 1], AT_REMOVEDIR) != 0)
        break;
    }
  close_fds (fds);
  return ok;
}

gboolean
ow_credentials_remove (GPtrArray   *copies,
                       const char  *sandbox_home,
                       GError     **error)
{
  gboolean ok = TRUE;
  int home_fd;

  g_return_val_if_fail (sandbox_home != NULL, FALSE);

  if (copies == NULL || copies->len == 0)
    return TRUE;
  home_fd = open (sandbox_home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (home_fd < 0)
    return errno == ENOENT ? TRUE : errno_error (error, errno, "Could not open the sandbox home %s", sandbox_home);

  /* Every copy is attempted; the first failure is reported. */
  for (guint i = 0; i < copies->len; i++)
    {
      GError *local = NULL;

      if (!remove_one (g_ptr_array_index (copies, i), home_fd, &local))
        {
          if (ok)
            g_propagate_error (error, local);
          else
            g_error_free (local);
          ok = FALSE;
        }
    }
  close (home_fd);
  return ok;
}

/* ---- Environment and hosts -------------------------------------------- */

char *
ow_credential_copy_env (const OwCredentialCopy *copy,
                        const char             *inside_home)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (copy != NULL && inside_home != NULL, NULL);

  if (copy->env_name == NULL)
    return NULL;
  path = g_build_filename (inside_home, copy->dest, NULL);
  /* DOCKER_CONFIG names the folder that holds config.json. */
  if (g_str_equal (copy->name, "docker"))
    {
      char *dir = g_path_get_dirname (path);

      g_free (path);
      path = dir;
    }
  return g_strdup_printf ("%s=%s", copy->env_name, path);
}

char **
ow_credentials_environ (GPtrArray          *copies,
                        const char         *inside_home,
                        const char *const  *env)
{
  GPtrArray *out = g_ptr_array_new ();

  g_return_val_if_fail (inside_home != NULL, NULL);

  if (env != NULL)
    {
      g_auto(GStrv) allowed = ow_secret_env_filter (env);

      for (guint i = 0; allowed[i] != NULL; i++)
        g_ptr_array_add (out, g_strdup (allowed[i]));
    }
  g_ptr_array_add (out, NULL);

  /* Set after the filter: AWS_SHARED_CREDENTIALS_FILE reads as a secret's
   * name, but here it holds the path of the copy, not a host value. */
  for (guint i = 0; copies != NULL && i < copies->len; i++)
    {
      OwCredentialCopy *copy = g_ptr_array_index (copies, i);
      g_autofree char *assignment = ow_credential_copy_env (copy, inside_home);
      char *eq;

      if (assignment == NULL)
        continue;
      eq = strchr (assignment, '=');
      *eq = '\0';
      out->pdata = (gpointer *) g_environ_setenv ((char **) out->pdata, assignment, eq + 1, TRUE);
    }
  {
    char **result = (char **) out->pdata;

    g_ptr_array_free (out, FALSE);
    return result;
  }
}

gboolean
ow_credentials_add_hosts (GPtrArray   *copies,
                          OwSiteList  *sites,
                          GError     **error)
{
  g_return_val_if_fail (OW_IS_SITE_LIST (sites), FALSE);

  for (guint i = 0; copies != NULL && i < copies->len; i++)
    {
      OwCredentialCopy *copy = g_ptr_array_index (copies, i);

      if (!ow_site_list_add_catalogue_hosts (sites, (const char *const *) copy->hosts, error))
        return FALSE;
    }
  return TRUE;
}
