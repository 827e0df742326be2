/* ow-seatbelt-profile.c: rendering a session's Seatbelt profile.
 *
 * The profile starts from (deny default) and allows, in this order: the
 * process basics every program needs (exec, fork, signals and process
 * information within the sandbox, sysctl reads, preferences, POSIX
 * semaphores, a short list of system services, terminals and the standard
 * devices); the read-only system (/usr /bin /sbin /System /Library /opt
 * /Applications /private/etc, plus /private/var/select and the time-zone
 * database that /bin/sh and libc reach through links); metadata (stat, not
 * listing) of the root, the top-level links and every folder on the way to
 * something granted; the tool runner and OpenWorker's managed tools; the
 * toolchains the person switched on and git's settings, read-only; the
 * session's folders (read-only ones readable, read-write ones writable)
 * and its private folder; and the network: one localhost port (the
 * allow-list proxy), everything (open), or nothing.
 *
 * Every rule is an allow. Where one granted folder holds another that must
 * stay narrower (a read-only folder inside a writable one, OpenWorker's
 * own state inside a granted home), the wider rule carves it out with
 * (require-not …) instead of relying on a later deny winning, which SBPL
 * does not promise. So the order of rules never matters.
 *
 * Strings are SBPL string literals: a backslash and a double quote are
 * escaped, every other byte (UTF-8 included) goes through as it is, and a
 * control character refuses the session, because no escape for it is
 * documented to reach the kernel unchanged.
 */
#define G_LOG_DOMAIN "ow-seatbelt"

#include "ow-seatbelt-profile.h"

#include <string.h>

#include "ow-error.h"

static const char *const known_toolchains[] = {
  ".nvm", ".volta", ".bun", ".deno", ".pyenv", ".rbenv", ".asdf", ".sdkman", ".cargo", ".rustup",
  ".local/bin", ".local/share/uv", ".local/share/mise", ".local/pipx", "go", NULL,
};

/* What the system gives every sandbox to read. /private/var/select holds
 * the link /bin/sh follows to the real shell; the time-zone database is
 * where /etc/localtime points. */
static const char *const system_read_only[] = {
  "/usr", "/bin", "/sbin", "/System", "/Library", "/opt", "/Applications", "/private/etc",
  "/private/var/select", "/private/var/db/timezone", NULL,
};

/* The names at the top of the disk that programs stat on their way
 * somewhere: the links and what they point into. */
static const char *const top_level_metadata[] = {
  "/", "/etc", "/tmp", "/var", "/private", "/private/tmp", "/private/var", NULL,
};

/* System services a command line program commonly looks up: user and
 * group names, logging, certificate trust (TLS through the proxy still
 * verifies certificates), preferences and power assertions. */
static const char *const mach_services[] = {
  "com.apple.system.opendirectoryd.libinfo",
  "com.apple.system.logger",
  "com.apple.logd",
  "com.apple.trustd.agent",
  "com.apple.cfprefsd.daemon",
  "com.apple.cfprefsd.agent",
  "com.apple.PowerManagement.control",
  NULL,
};

/* The services name resolution needs when the network is open. */
static const char *const dns_services[] = {
  "com.apple.dnssd.service",
  "com.apple.SystemConfiguration.configd",
  "com.apple.SystemConfiguration.DNSConfiguration",
  NULL,
};

const char *const *
ow_seatbelt_known_toolchains (void)
{
  return known_toolchains;
}

char *
ow_seatbelt_private_path (const char *path)
{
  static const char *const links[] = { "/tmp", "/var", "/etc", NULL };

  for (guint i = 0; links[i] != NULL; i++)
    {
      gsize n = strlen (links[i]);

      if (strncmp (path, links[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
        return g_strconcat ("/private", path, NULL);
    }
  return g_strdup (path);
}

static gboolean
has_control_char (const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p != '\0'; p++)
    if (*p < 0x20 || *p == 0x7f)
      return TRUE;
  return FALSE;
}

char *
ow_seatbelt_quote (const char *path, GError **error)
{
  GString *out;

  if (has_control_char (path))
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "The path “%s” holds a control character (such as a line break), which a "
                   "macOS sandbox profile cannot name; rename the folder to use it in a sandboxed session.",
                   path);
      return NULL;
    }
  out = g_string_sized_new (strlen (path) + 2);
  g_string_append_c (out, '"');
  for (const char *p = path; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
  return g_string_free (out, FALSE);
}

/* Whether @path is absolute and has no empty, "." or ".." component and no
 * trailing slash: the only form Seatbelt's path filters match. */
static gboolean
is_canonical (const char *path)
{
  const char *p;

  if (path == NULL || path[0] != '/')
    return FALSE;
  if (strcmp (path, "/") == 0)
    return TRUE;
  p = path;
  while (*p == '/')
    {
      const char *start = ++p;
      gsize n;

      while (*p != '\0' && *p != '/')
        p++;
      n = (gsize) (p - start);
      if (n == 0 || (n == 1 && start[0] == '.') || (n == 2 && start[0] == '.' && start[1] == '.'))
        return FALSE;
    }
  return *p == '\0';
}

/* Checks @path and returns its /private form, or NULL with @error set.
 * @what names it in the message ("the session folder"). */
static char *
checked_path (const char *path, const char *what, GError **error)
{
  if (path == NULL || !is_canonical (path))
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "%s “%s” is not an absolute, resolved path, so a macOS sandbox profile cannot name it.",
                   what, path != NULL ? path : "(none)");
      return NULL;
    }
  if (has_control_char (path))
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "%s “%s” holds a control character (such as a line break), which a macOS sandbox "
                   "profile cannot name; rename it to use it in a sandboxed session.",
                   what, path);
      return NULL;
    }
  return ow_seatbelt_private_path (path);
}

/* Whether @child lies strictly inside @parent. */
static gboolean
is_inside (const char *child, const char *parent)
{
  gsize n = strlen (parent);

  if (strcmp (parent, "/") == 0)
    return strcmp (child, "/") != 0;
  return strncmp (child, parent, n) == 0 && child[n] == '/';
}

/* Whether @a is @b or lies inside it. */
static gboolean
is_within (const char *a, const char *b)
{
  return strcmp (a, b) == 0 || is_inside (a, b);
}

/* Appends @path to @list unless it is already there. */
static void
add_unique (GPtrArray *list, const char *path)
{
  for (guint i = 0; i < list->len; i++)
    if (strcmp (g_ptr_array_index (list, i), path) == 0)
      return;
  g_ptr_array_add (list, g_strdup (path));
}

/* One path filter: (subpath "P"), or with the folders of @carve that lie
 * inside it taken out again. */
static gboolean
append_filter (GString    *out,
               const char *kind,
               const char *path,
               GPtrArray  *carve,
               GError    **error)
{
  g_autofree char *quoted = ow_seatbelt_quote (path, error);
  g_autoptr(GPtrArray) inside = g_ptr_array_new ();

  if (quoted == NULL)
    return FALSE;
  for (guint i = 0; carve != NULL && i < carve->len; i++)
    if (is_inside (g_ptr_array_index (carve, i), path))
      g_ptr_array_add (inside, g_ptr_array_index (carve, i));

  if (inside->len == 0)
    {
      g_string_append_printf (out, "\n  (%s %s)", kind, quoted);
      return TRUE;
    }
  g_string_append_printf (out, "\n  (require-all (%s %s)", kind, quoted);
  for (guint i = 0; i < inside->len; i++)
    {
      g_autofree char *q = ow_seatbelt_quote (g_ptr_array_index (inside, i), error);

      if (q == NULL)
        return FALSE;
      g_string_append_printf (out, "\n    (require-not (subpath %s))", q);
    }
  g_string_append_c (out, ')');
  return TRUE;
}

/* (allow OPS filter…) over @paths, each a subpath with @carve taken out. */
static gboolean
append_allow (GString    *out,
              const char *comment,
              const char *ops,
              const char *kind,
              GPtrArray  *paths,
              GPtrArray  *carve,
              GError    **error)
{
  if (paths->len == 0)
    return TRUE;
  g_string_append_printf (out, "\n;; %s\n(allow %s", comment, ops);
  for (guint i = 0; i < paths->len; i++)
    if (!append_filter (out, kind, g_ptr_array_index (paths, i), carve, error))
      return FALSE;
  g_string_append (out, ")\n");
  return TRUE;
}

/* Adds every folder above @path (not @path itself) to @set. */
static void
add_ancestors (GHashTable *set, const char *path)
{
  g_autofree char *copy = g_strdup (path);
  char *slash;

  while ((slash = strrchr (copy, '/')) != NULL && slash != copy)
    {
      *slash = '\0';
      g_hash_table_add (set, g_strdup (copy));
    }
  g_hash_table_add (set, g_strdup ("/"));
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Resolves one toolchain entry to an absolute folder under or outside the
 * home folder, refusing entries that would open the home folder itself. */
static char *
toolchain_path (const char *entry, const char *home, GError **error)
{
  g_autofree char *joined = NULL;
  char *checked;

  if (entry == NULL || entry[0] == '\0')
    {
      g_set_error_literal (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                           "An empty toolchain folder would open the whole home folder; remove it from "
                           "the sandbox's toolchain list.");
      return NULL;
    }
  joined = entry[0] == '/' ? g_strdup (entry) : g_strconcat (home, "/", entry, NULL);
  checked = checked_path (joined, "The toolchain folder", error);
  if (checked == NULL)
    return NULL;
  if (is_within (home, checked))
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "The toolchain folder “%s” holds the whole home folder, which the sandbox keeps "
                   "out of reach; name the tool's own folder instead.",
                   entry);
      g_free (checked);
      return NULL;
    }
  return checked;
}

/* Copies each entry of @list, checked, into @into. */
static gboolean
add_checked (GPtrArray *into, const char *const *list, const char *what, GError **error)
{
  for (guint i = 0; list != NULL && list[i] != NULL; i++)
    {
      g_autofree char *p = checked_path (list[i], what, error);

      if (p == NULL)
        return FALSE;
      if (strcmp (p, "/") == 0)
        {
          g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                       "%s “/” would hand the sandbox the whole disk; choose the folders the session needs.",
                       what);
          return FALSE;
        }
      add_unique (into, p);
    }
  return TRUE;
}

static void
append_list (GString *out, const char *comment, const char *ops, const char *kind, const char *const *items)
{
  g_string_append_printf (out, "\n;; %s\n(allow %s", comment, ops);
  for (guint i = 0; items[i] != NULL; i++)
    g_string_append_printf (out, "\n  (%s \"%s\")", kind, items[i]);
  g_string_append (out, ")\n");
}

char *
ow_seatbelt_profile_render (const OwSeatbeltSession *session, GError **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GPtrArray) writable = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) readonly = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) readable = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) hidden = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) write_carve = g_ptr_array_new ();
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) tool_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) private_dir = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) ancestors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) sorted = NULL;
  g_autofree char *home = NULL;
  g_autofree char *priv = NULL;
  g_autofree char *runner = NULL;
  g_autofree char *id = NULL;

  home = checked_path (session->home, "The home folder", error);
  if (home == NULL)
    return NULL;
  priv = checked_path (session->private_dir, "The sandbox's private folder", error);
  if (priv == NULL)
    return NULL;
  if (strcmp (priv, "/") == 0 || is_within (home, priv))
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "The sandbox's private folder “%s” would hold the home folder; it must be a "
                   "folder of its own under /private/tmp.",
                   session->private_dir);
      return NULL;
    }
  runner = checked_path (session->runner_path, "The tool runner", error);
  if (runner == NULL)
    return NULL;
  if (session->proxy_port > 65535)
    {
      g_set_error (error, OW_SANDBOX_ERROR, OW_SANDBOX_ERROR_UNAVAILABLE,
                   "The allow-list proxy's port %u is not a TCP port.", session->proxy_port);
      return NULL;
    }

  if (!add_checked (writable, session->writable, "The session folder", error) ||
      !add_checked (readonly, session->readonly, "The session folder", error) ||
      !add_checked (hidden, session->hidden, "The hidden folder", error))
    return NULL;

  /* Read access: every session folder, minus the hidden folders inside. */
  for (guint i = 0; i < writable->len; i++)
    add_unique (readable, g_ptr_array_index (writable, i));
  for (guint i = 0; i < readonly->len; i++)
    add_unique (readable, g_ptr_array_index (readonly, i));
  /* Write access: the read-write folders, minus the hidden folders and the
   * read-only folders inside them. */
  for (guint i = 0; i < hidden->len; i++)
    g_ptr_array_add (write_carve, g_ptr_array_index (hidden, i));
  for (guint i = 0; i < readonly->len; i++)
    {
      const char *r = g_ptr_array_index (readonly, i);
      gboolean also_writable = FALSE;

      for (guint j = 0; j < writable->len; j++)
        if (strcmp (g_ptr_array_index (writable, j), r) == 0)
          also_writable = TRUE;
      if (!also_writable)
        g_ptr_array_add (write_carve, (gpointer) r);
    }

  /* Read-only tools: the managed tools folder, the switched-on toolchains
   * and git's settings. The runner is one file. */
  if (session->managed_tools != NULL)
    {
      g_autofree char *m = checked_path (session->managed_tools, "The managed tools folder", error);

      if (m == NULL)
        return NULL;
      add_unique (tools, m);
    }
  for (guint i = 0; session->toolchains != NULL && session->toolchains[i] != NULL; i++)
    {
      g_autofree char *t = toolchain_path (session->toolchains[i], home, error);

      if (t == NULL)
        return NULL;
      add_unique (tools, t);
    }
  {
    g_autofree char *git_dir = g_strconcat (home, "/.config/git", NULL);

    add_unique (tools, git_dir);
  }
  add_unique (tool_files, runner);
  {
    g_autofree char *gitconfig = g_strconcat (home, "/.gitconfig", NULL);

    add_unique (tool_files, gitconfig);
  }
  add_unique (private_dir, priv);

  /* Metadata of everything above what is granted. */
  for (guint i = 0; top_level_metadata[i] != NULL; i++)
    g_hash_table_add (ancestors, g_strdup (top_level_metadata[i]));
  {
    GPtrArray *lists[] = { readable, tools, tool_files, private_dir };

    for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
      for (guint i = 0; i < lists[l]->len; i++)
        add_ancestors (ancestors, g_ptr_array_index (lists[l], i));
  }
  sorted = g_ptr_array_new ();
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, ancestors);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      g_ptr_array_add (sorted, key);
  }
  g_ptr_array_sort (sorted, compare_strings);

  /* The header. The session id is only a comment; a line break in it must
   * not end the comment early. */
  id = g_strdup (session->session_id != NULL ? session->session_id : "");
  for (char *p = id; *p != '\0'; p++)
    if ((unsigned char) *p < 0x20 || *p == 0x7f)
      *p = '?';
  g_string_append_printf (out,
                          ";; OpenWorker sandbox profile for session %s.\n"
                          ";; Rendered from the session's folders; applied with sandbox-exec -p.\n"
                          ";; Every rule below is an allow: anything not listed is refused.\n"
                          "(version 1)\n"
                          "(deny default)\n",
                          id);

  g_string_append (out,
                   "\n;; Processes: commands may start others, which inherit this profile.\n"
                   "(allow process-exec process-fork)\n"
                   "(allow signal (target same-sandbox))\n"
                   "(allow process-info* (target same-sandbox))\n"
                   "(allow sysctl-read)\n"
                   "(allow user-preference-read)\n"
                   "(allow ipc-posix-sem)\n"
                   "(allow iokit-open (iokit-registry-entry-class \"RootDomainUserClient\"))\n");
  append_list (out, "System services a command line program looks up.", "mach-lookup", "global-name",
               mach_services);
  g_string_append (out,
                   "\n;; Terminals and the standard devices.\n"
                   "(allow pseudo-tty)\n"
                   "(allow file-read* file-write* file-ioctl\n"
                   "  (literal \"/dev/null\")\n"
                   "  (literal \"/dev/zero\")\n"
                   "  (literal \"/dev/tty\")\n"
                   "  (literal \"/dev/ptmx\")\n"
                   "  (regex #\"^/dev/ttys[0-9]+$\")\n"
                   "  (regex #\"^/dev/fd/[0-9]+$\"))\n"
                   "(allow file-read*\n"
                   "  (literal \"/dev\")\n"
                   "  (literal \"/dev/random\")\n"
                   "  (literal \"/dev/urandom\")\n"
                   "  (literal \"/dev/dtracehelper\"))\n");
  append_list (out, "The system, read-only.", "file-read*", "subpath", system_read_only);

  g_string_append (out, "\n;; The folders on the way to what is granted: their metadata only, never a listing.\n"
                        "(allow file-read-metadata");
  for (guint i = 0; i < sorted->len; i++)
    {
      g_autofree char *q = ow_seatbelt_quote (g_ptr_array_index (sorted, i), error);

      if (q == NULL)
        return NULL;
      g_string_append_printf (out, "\n  (literal %s)", q);
    }
  g_string_append (out, ")\n");

  if (!append_allow (out, "The tool runner and git's settings file, read-only.", "file-read*", "literal",
                     tool_files, NULL, error) ||
      !append_allow (out, "OpenWorker's managed tools, the toolchains switched on and git's settings, read-only.",
                     "file-read*", "subpath", tools, NULL, error) ||
      !append_allow (out, "The session's folders, readable.", "file-read*", "subpath", readable, hidden, error) ||
      !append_allow (out, "The session's read-write folders, writable.", "file-write*", "subpath", writable,
                     write_carve, error) ||
      !append_allow (out, "The sandbox's private folder: temp, tool caches and its own home.",
                     "file-read* file-write*", "subpath", private_dir, NULL, error))
    return NULL;

  if (session->network_open)
    {
      g_string_append (out,
                       "\n;; Network: open (sandbox_network_profile = \"open\"); the files are still the wall.\n"
                       "(allow network*)\n"
                       "(allow system-socket)\n"
                       "(allow file-read* file-write* (literal \"/private/var/run/mDNSResponder\"))\n");
      append_list (out, "Name resolution.", "mach-lookup", "global-name", dns_services);
    }
  else if (session->proxy_port != 0)
    g_string_append_printf (out,
                            "\n;; Network: only the allow-list proxy on this machine.\n"
                            "(allow network-outbound (remote ip \"localhost:%u\"))\n",
                            session->proxy_port);
  else
    g_string_append (out, "\n;; Network: none.\n");

  return g_string_free (g_steal_pointer (&out), FALSE);
}
