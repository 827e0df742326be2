/* ow-wall.c: namespaces and the mount tree of the Linux wall.
 *
 * The order matters and is the whole design (see ow-wall.h for the
 * overview):
 *
 *   outside   unshare(user, mount, pid, IPC, UTS, cgroup [, net]); map our
 *             own uid and gid (nothing else); fork. This process then only
 *             waits and passes the exit status on.
 *   pid 1     make every mount private, then build the new root on a
 *             tmpfs over the engine's empty scratch folder: the system
 *             read-only, /dev, /proc, /tmp, /run, the private home (with
 *             credential copies, toolchains and git's settings), the
 *             session's folders and masks over hidden paths that a bound
 *             folder would otherwise show; pivot into it and drop the old
 *             root. Bring lo up, fork, and become init: reap orphans until
 *             the runner exits, then exit, which ends the namespace.
 *   pid 2     the runner proper: listen for the proxy bridge, then lock
 *             itself down (ow_wall_lockdown) and serve.
 *
 * The tree is built from nothing rather than by hiding things in a copy
 * of the host's: what the tools can reach is exactly the list below, and
 * a path nobody thought of is absent by default. Hidden paths only need a
 * mask where a bound folder contains them (a state folder inside a
 * workspace, /etc/shadow inside /etc).
 *
 * Failures come back as sentences that say what to change; the runner
 * sends them to the engine as its "fatal" frame.
 */
#include "ow-wall-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/securebits.h>


/* The system, bound read-only at its own paths. Symlinks among them
 * (/bin -> usr/bin on merged-/usr systems) are recreated as symlinks. */
const char *const ow_wall_system_paths[] = {
  "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", NULL,
};

/* Device nodes the tools get, bound from the host's /dev. */
const char *const ow_wall_device_nodes[] = {
  "null", "zero", "full", "random", "urandom", "tty", NULL,
};

/* Variables that point at the host's session or would steer tools to
 * places outside the wall; the wall sets its own values where it has
 * any. Proxy variables are replaced by the bridge's. */
static const char *const env_dropped[] = {
  "HOME", "TMPDIR", "TMP", "TEMP", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
  "XDG_CACHE_HOME", "XDG_STATE_HOME", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "SSH_AGENT_PID",
  "GPG_AGENT_INFO", "XAUTHORITY", "DISPLAY", "WAYLAND_DISPLAY", "OPENWORKER_HOME", "PWD", "OLDPWD",
  NULL,
};

/* The host's proxy settings: unreachable from a closed sandbox, and
 * replaced by the bridge's where there is one. An open sandbox keeps them. */
static const char *const env_proxies[] = {
  "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FTP_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
  "all_proxy", "ftp_proxy", "no_proxy", NULL,
};

/* ---- small helpers ------------------------------------------------------ */

static int
fail (char *err, size_t size, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static int
fail (char *err, size_t size, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (err, size, fmt, ap);
  va_end (ap);
  return -1;
}

static void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n != 0 ? n : 1, size != 0 ? size : 1);

  if (p == NULL)
    abort ();
  return p;
}

static char *
xstrdup (const char *s)
{
  char *copy = strdup (s);

  if (copy == NULL)
    abort ();
  return copy;
}

static char *
xprintf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

static char *
xprintf (const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;
  int n;

  va_start (ap, fmt);
  n = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (n < 0)
    abort ();
  return s;
}

static const char *
errstr (int errnum)
{
  /* strerror is fine here: the wall is built while the process has one
   * thread. */
  return strerror (errnum);
}

/* Reads a small /proc or /sys file into @buf; -1 when unreadable. */
static int
read_small_file (const char *path, char *buf, size_t size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return -1;
  n = read (fd, buf, size - 1);
  close (fd);
  if (n < 0)
    return -1;
  buf[n] = '\0';
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
    buf[--n] = '\0';
  return 0;
}

static int
write_small_file (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  size_t len = strlen (text);
  ssize_t n;
  int saved;

  if (fd < 0)
    return -1;
  n = write (fd, text, len);
  saved = errno;
  close (fd);
  errno = saved;
  return n == (ssize_t) len ? 0 : -1;
}

/* 1 when @path is @prefix or lies below it (component-wise). */
static int
path_has_prefix (const char *path, const char *prefix)
{
  size_t n = strlen (prefix);

  if (n == 1 && prefix[0] == '/')
    return path[0] == '/';
  return strncmp (path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static size_t
path_depth (const char *path)
{
  size_t depth = 0;

  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/' && p[1] != '\0')
      depth++;
  return depth;
}

/* A home-relative name is usable when it stays inside the home. */
static int
relative_ok (const char *rel)
{
  const char *p = rel;

  if (rel == NULL || rel[0] == '\0' || rel[0] == '/')
    return 0;
  while (*p != '\0')
    {
      size_t n = strcspn (p, "/");

      if ((n == 2 && p[0] == '.' && p[1] == '.') || (n == 1 && p[0] == '.') || n == 0)
        return 0;
      p += n;
      if (*p == '/')
        p++;
    }
  return 1;
}

/* ---- the config --------------------------------------------------------- */

static char **
strv_from_json (const OwTbJson *array)
{
  size_t n = 0;
  char **v;

  if (array != NULL && array->type == OW_TB_JSON_ARRAY)
    n = array->n_items;
  v = xcalloc (n + 1, sizeof (char *));
  for (size_t i = 0, k = 0; i < n; i++)
    if (array->items[i]->type == OW_TB_JSON_STRING)
      v[k++] = xstrdup (array->items[i]->string);
  return v;
}

static const char *
member_str (const OwTbJson *obj, const char *key)
{
  const OwTbJson *node = ow_tb_json_get (obj, key);

  return node != NULL && node->type == OW_TB_JSON_STRING ? node->string : NULL;
}

int
ow_wall_config_parse (const char *json, size_t len, OwWallConfig *config, char *err, size_t err_size)
{
  char why[160];
  OwTbJson *root = ow_tb_json_parse (json, len, why, sizeof why);
  const OwTbJson *roots, *creds;
  const char *s;

  memset (config, 0, sizeof *config);
  if (root == NULL || root->type != OW_TB_JSON_OBJECT)
    {
      ow_tb_json_free (root);
      return fail (err, err_size, "the sandbox description is not a JSON object (%s)",
                   root == NULL ? why : "another value");
    }
  s = member_str (root, "op");
  if (s == NULL || strcmp (s, "wall") != 0)
    {
      ow_tb_json_free (root);
      return fail (err, err_size, "the first frame was not the sandbox description (\"op\":\"wall\")");
    }

  s = member_str (root, "mount_point");
  config->mount_point = s != NULL ? xstrdup (s) : NULL;
  s = member_str (root, "home");
  config->home = xstrdup (s != NULL && s[0] == '/' ? s : "/home/sandbox");
  s = member_str (root, "proxy_socket");
  config->proxy_socket = s != NULL && s[0] == '/' ? xstrdup (s) : NULL;
  s = member_str (root, "network");
  config->network = s != NULL && strcmp (s, "open") == 0 ? OW_WALL_NET_OPEN
                    : s != NULL && strcmp (s, "proxy") == 0 && config->proxy_socket != NULL ? OW_WALL_NET_PROXY
                    : OW_WALL_NET_NONE;
  config->env = strv_from_json (ow_tb_json_get (root, "env"));
  config->hidden = strv_from_json (ow_tb_json_get (root, "hidden"));
  config->toolchains = strv_from_json (ow_tb_json_get (root, "toolchains"));

  roots = ow_tb_json_get (root, "roots");
  if (roots != NULL && roots->type == OW_TB_JSON_ARRAY)
    {
      config->roots = xcalloc (roots->n_items, sizeof (OwTbRoot));
      for (size_t i = 0; i < roots->n_items; i++)
        {
          const char *path = member_str (roots->items[i], "path");
          const OwTbJson *w = ow_tb_json_get (roots->items[i], "writable");

          if (path == NULL || path[0] != '/')
            continue;
          config->roots[config->n_roots].path = xstrdup (path);
          config->roots[config->n_roots].writable = w != NULL && w->type == OW_TB_JSON_BOOL && w->boolean;
          config->n_roots++;
        }
    }
  creds = ow_tb_json_get (root, "credentials");
  if (creds != NULL && creds->type == OW_TB_JSON_ARRAY)
    {
      config->credentials = xcalloc (creds->n_items, sizeof (OwWallCredential));
      for (size_t i = 0; i < creds->n_items; i++)
        {
          const char *source = member_str (creds->items[i], "source");
          const char *dest = member_str (creds->items[i], "dest");
          const char *env = member_str (creds->items[i], "env");
          OwWallCredential *c = &config->credentials[config->n_credentials];

          if (source == NULL || source[0] != '/' || !relative_ok (dest))
            continue;
          c->source = xstrdup (source);
          c->dest = xstrdup (dest);
          c->env_name = env != NULL && env[0] != '\0' && strchr (env, '=') == NULL ? xstrdup (env) : NULL;
          config->n_credentials++;
        }
    }
  ow_tb_json_free (root);

  if (config->mount_point == NULL || config->mount_point[0] != '/')
    {
      ow_wall_config_clear (config);
      return fail (err, err_size, "the sandbox description has no scratch folder to build the root on");
    }
  if (config->n_roots == 0)
    {
      ow_wall_config_clear (config);
      return fail (err, err_size, "the sandbox description names no folder for the session");
    }
  return 0;
}

static void
strv_free (char **v)
{
  for (size_t i = 0; v != NULL && v[i] != NULL; i++)
    free (v[i]);
  free (v);
}

void
ow_wall_config_clear (OwWallConfig *config)
{
  free (config->mount_point);
  free (config->home);
  for (size_t i = 0; i < config->n_roots; i++)
    free ((char *) config->roots[i].path);
  free (config->roots);
  strv_free (config->env);
  strv_free (config->hidden);
  strv_free (config->toolchains);
  for (size_t i = 0; i < config->n_credentials; i++)
    {
      free (config->credentials[i].source);
      free (config->credentials[i].dest);
      free (config->credentials[i].env_name);
    }
  free (config->credentials);
  free (config->proxy_socket);
  memset (config, 0, sizeof *config);
}

void
ow_wall_state_clear (OwWallState *state)
{
  if (state->bridge_fd >= 0)
    close (state->bridge_fd);
  free (state->proxy_socket);
  free (state->canary);
  strv_free (state->tools_env);
  memset (state, 0, sizeof *state);
  state->bridge_fd = -1;
}

/* ---- namespaces --------------------------------------------------------- */

/* Why the kernel refused a user namespace, as something a person can change. */
static int
userns_failure (int errnum, char *err, size_t size)
{
  char value[32];

  if (read_small_file ("/proc/sys/kernel/unprivileged_userns_clone", value, sizeof value) == 0
      && strcmp (value, "0") == 0)
    return fail (err, size, "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0); "
                 "enable them with `sysctl -w kernel.unprivileged_userns_clone=1` (and in /etc/sysctl.d/ to "
                 "keep it), or set sandbox_provider = \"direct\"");
  if (read_small_file ("/proc/sys/user/max_user_namespaces", value, sizeof value) == 0
      && strcmp (value, "0") == 0)
    return fail (err, size, "user namespaces are switched off (user.max_user_namespaces=0); raise it with "
                 "`sysctl -w user.max_user_namespaces=10000`, or set sandbox_provider = \"direct\"");
  if (read_small_file ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", value, sizeof value) == 0
      && strcmp (value, "1") == 0)
    return fail (err, size, "AppArmor restricts unprivileged user namespaces "
                 "(kernel.apparmor_restrict_unprivileged_userns=1); allow them with "
                 "`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile for "
                 "openworker-tool-runner, or set sandbox_provider = \"direct\"");
  if (errnum == ENOSPC || errnum == EUSERS)
    return fail (err, size, "the limit of user namespaces is reached (user.max_user_namespaces); raise it "
                 "with `sysctl -w user.max_user_namespaces=10000`");
  if (errnum == EINVAL)
    return fail (err, size, "this kernel has no user namespaces (CONFIG_USER_NS); the Linux sandbox needs "
                 "them, so use sandbox_provider = \"direct\" or another sandbox");
  return fail (err, size, "the system refuses new user namespaces (%s); OpenWorker may itself be running "
               "inside a container or sandbox that forbids them — run it on the host, or set "
               "sandbox_provider = \"direct\"", errstr (errnum));
}

static int
write_id_maps (uid_t uid, gid_t gid, char *err, size_t size)
{
  char map[64];

  /* Required before an unprivileged gid_map; also keeps setgroups(2)
   * from dropping a group that could be a deny entry on some file. */
  if (write_small_file ("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
    return fail (err, size, "cannot write /proc/self/setgroups in the new user namespace: %s", errstr (errno));
  snprintf (map, sizeof map, "%lu %lu 1\n", (unsigned long) uid, (unsigned long) uid);
  if (write_small_file ("/proc/self/uid_map", map) != 0)
    return fail (err, size, "cannot map the user id into the sandbox: %s", errstr (errno));
  snprintf (map, sizeof map, "%lu %lu 1\n", (unsigned long) gid, (unsigned long) gid);
  if (write_small_file ("/proc/self/gid_map", map) != 0)
    return fail (err, size, "cannot map the group id into the sandbox: %s", errstr (errno));
  return 0;
}

static void __attribute__ ((noreturn))
wait_and_exit (pid_t pid)
{
  int status = 0;

  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      _exit (1);
  _exit (WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status));
}

/* Drops every capability for good: bounding set, ambient set, the
 * "root gets capabilities on exec" rule, then the sets themselves. */
static int
drop_capabilities (char *err, size_t size)
{
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2];
  char value[32];
  int last = 40;

  if (read_small_file ("/proc/sys/kernel/cap_last_cap", value, sizeof value) == 0)
    last = atoi (value);
  for (int cap = 0; cap <= last; cap++)
    if (prctl (PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
      return fail (err, size, "cannot drop capability %d from the bounding set: %s", cap, errstr (errno));
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return fail (err, size, "cannot clear the ambient capabilities: %s", errstr (errno));
  if (prctl (PR_SET_SECUREBITS,
             SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED
             | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
             0, 0, 0) != 0)
    return fail (err, size, "cannot lock the securebits: %s", errstr (errno));
  memset (data, 0, sizeof data);
  if (syscall (SYS_capset, &header, data) != 0)
    return fail (err, size, "cannot drop the capabilities: %s", errstr (errno));
  return 0;
}

/* ---- the mount tree ----------------------------------------------------- */

/* The tree being built: the new root's folder on the host, and what the
 * hidden-path masks must not cover. */
typedef struct {
  const OwWallConfig *config;   /* what was asked for (borrowed) */
  const char         *nr;       /* the new root's mount point on the host */
  char              **bound;    /* targets of read-only/read-write binds, for the masks (owned) */
  size_t              n_bound;  /* how many */
  char              **masks;    /* tmpfs masks to make read-only at the end (owned) */
  size_t              n_masks;  /* how many */
} Tree;

static char *
tree_path (const Tree *t, const char *abs)
{
  /* The parser guarantees a mount point; the check keeps compilers that
   * cannot see that from warning. */
  return xprintf ("%s%s", t->nr != NULL ? t->nr : "", strcmp (abs, "/") == 0 ? "" : abs);
}

static void
tree_remember (char ***list, size_t *n, const char *path)
{
  *list = realloc (*list, (*n + 1) * sizeof (char *));
  if (*list == NULL)
    abort ();
  (*list)[(*n)++] = xstrdup (path);
}

/* mkdir -p for a host path (components that exist are kept). */
static int
mkdir_p (const char *path, mode_t mode)
{
  char *copy = xstrdup (path);
  int rc = 0;

  for (char *p = copy + 1; ; p++)
    if (*p == '/' || *p == '\0')
      {
        char saved = *p;

        *p = '\0';
        if (mkdir (copy, mode) != 0 && errno != EEXIST)
          {
            rc = -1;
            break;
          }
        *p = saved;
        if (saved == '\0')
          break;
      }
  free (copy);
  return rc;
}

/* An empty regular file to bind a non-folder onto. */
static int
touch (const char *path)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

  if (fd < 0)
    return errno == EEXIST ? 0 : -1;
  close (fd);
  return 0;
}

/* Applies mount attributes to @target (and below when @recursive): with
 * mount_setattr where the kernel has it, else by a bind remount of the
 * top mount that keeps the flags the user namespace may not clear. */
int
ow_wall_set_mount_attrs (const char *target, uint64_t attrs, int recursive)
{
  OwMountAttr attr = { .attr_set = attrs };
  struct statvfs sv;
  unsigned long flags = MS_BIND | MS_REMOUNT;

  if (syscall (SYS_mount_setattr, AT_FDCWD, target, recursive ? AT_RECURSIVE : 0, &attr, sizeof attr) == 0)
    return 0;
  if (errno != ENOSYS)
    return -1;
  if (statvfs (target, &sv) != 0)
    return -1;
  if (sv.f_flag & ST_NOEXEC)
    flags |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME)
    flags |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME)
    flags |= MS_NODIRATIME;
  if ((sv.f_flag & ST_NOSUID) || (attrs & OW_MOUNT_ATTR_NOSUID))
    flags |= MS_NOSUID;
  if ((sv.f_flag & ST_NODEV) || (attrs & OW_MOUNT_ATTR_NODEV))
    flags |= MS_NODEV;
  if ((sv.f_flag & ST_RDONLY) || (attrs & OW_MOUNT_ATTR_RDONLY))
    flags |= MS_RDONLY;
  return mount (NULL, target, NULL, flags, NULL);
}

static int
bind_into (const Tree *t, const char *source, const char *abs_target, int writable, int devices,
           char *err, size_t size)
{
  char *target = tree_path (t, abs_target);
  uint64_t attrs = OW_MOUNT_ATTR_NOSUID | (devices ? 0 : OW_MOUNT_ATTR_NODEV)
                   | (writable ? 0 : OW_MOUNT_ATTR_RDONLY);
  int rc = 0;

  if (mount (source, target, NULL, MS_BIND | MS_REC, NULL) != 0)
    rc = fail (err, size, "cannot show %s inside the sandbox (bind mount: %s)", source, errstr (errno));
  else if (ow_wall_set_mount_attrs (target, attrs, 1) != 0)
    rc = fail (err, size, "cannot make %s %s inside the sandbox: %s", source,
               writable ? "nosuid" : "read-only", errstr (errno));
  free (target);
  return rc;
}

static int
mount_tmpfs (const Tree *t, const char *abs_target, const char *options, unsigned long flags,
             char *err, size_t size)
{
  char *target = tree_path (t, abs_target);
  int rc = 0;

  if (mkdir_p (target, 0755) != 0)
    rc = fail (err, size, "cannot create %s in the sandbox's root: %s", abs_target, errstr (errno));
  else if (mount ("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | flags, options) != 0)
    rc = fail (err, size, "cannot mount a private %s: %s", abs_target, errstr (errno));
  free (target);
  return rc;
}

static int
bind_system (Tree *t, char *err, size_t size)
{
  for (size_t i = 0; ow_wall_system_paths[i] != NULL; i++)
    {
      const char *path = ow_wall_system_paths[i];
      struct stat st;
      char *target;

      if (lstat (path, &st) != 0)
        continue;
      target = tree_path (t, path);
      if (S_ISLNK (st.st_mode))
        {
          char link[PATH_MAX];
          ssize_t n = readlink (path, link, sizeof link - 1);

          if (n > 0)
            {
              link[n] = '\0';
              if (symlink (link, target) != 0 && errno != EEXIST)
                {
                  free (target);
                  return fail (err, size, "cannot recreate the symlink %s: %s", path, errstr (errno));
                }
            }
          free (target);
          continue;
        }
      if (!S_ISDIR (st.st_mode))
        {
          free (target);
          continue;
        }
      if (mkdir_p (target, 0755) != 0)
        {
          free (target);
          return fail (err, size, "cannot create %s in the sandbox's root: %s", path, errstr (errno));
        }
      free (target);
      if (bind_into (t, path, path, 0, 0, err, size) != 0)
        return -1;
      tree_remember (&t->bound, &t->n_bound, path);
    }
  return 0;
}

static int
build_dev (Tree *t, char *err, size_t size)
{
  static const char *const links[][2] = {
    { "/dev/ptmx", "pts/ptmx" }, { "/dev/fd", "/proc/self/fd" }, { "/dev/stdin", "/proc/self/fd/0" },
    { "/dev/stdout", "/proc/self/fd/1" }, { "/dev/stderr", "/proc/self/fd/2" },
  };
  char *pts, *dev;

  if (mount_tmpfs (t, "/dev", "mode=0755,size=64k", 0, err, size) != 0)
    return -1;
  for (size_t i = 0; ow_wall_device_nodes[i] != NULL; i++)
    {
      char *host = xprintf ("/dev/%s", ow_wall_device_nodes[i]);
      char *abs = host;
      char *target = tree_path (t, abs);
      struct stat st;
      int rc = 0;

      if (stat (host, &st) == 0 && S_ISCHR (st.st_mode))
        {
          if (touch (target) != 0)
            rc = fail (err, size, "cannot create %s in the sandbox: %s", abs, errstr (errno));
          else
            rc = bind_into (t, host, abs, 1, 1, err, size);
        }
      free (target);
      free (host);
      if (rc != 0)
        return -1;
    }
  /* A pseudo-terminal instance of our own; the host's terminals stay out. */
  pts = tree_path (t, "/dev/pts");
  if (mkdir (pts, 0755) == 0
      && mount ("devpts", pts, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") != 0)
    rmdir (pts);
  free (pts);
  if (mount_tmpfs (t, "/dev/shm", "mode=1777", 0, err, size) != 0)
    return -1;
  for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
    {
      char *target = tree_path (t, links[i][0]);

      if (symlink (links[i][1], target) != 0 && errno != EEXIST)
        {
          free (target);
          return fail (err, size, "cannot create %s in the sandbox: %s", links[i][0], errstr (errno));
        }
      free (target);
    }
  dev = tree_path (t, "/dev");
  tree_remember (&t->masks, &t->n_masks, dev);
  free (dev);
  return 0;
}

static int
build_proc (Tree *t, char *err, size_t size)
{
  char *target = tree_path (t, "/proc");
  int rc = 0;

  if (mkdir (target, 0555) != 0 && errno != EEXIST)
    rc = fail (err, size, "cannot create /proc in the sandbox: %s", errstr (errno));
  else if (mount ("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
    rc = fail (err, size, "cannot mount a private /proc (%s); this happens when the host's /proc has "
               "masked parts, as inside a container: run OpenWorker on the host, or choose "
               "sandbox_provider = \"openshell\"", errstr (errno));
  free (target);
  return rc;
}

/* With the host's network, name resolution must work too: where
 * /etc/resolv.conf points into /run (systemd-resolved), that one file is
 * shown at its place in the private /run. */
static int
bind_resolver (Tree *t, char *err, size_t size)
{
  char *real = realpath ("/etc/resolv.conf", NULL);
  char *target, *slash;
  int rc = 0;

  if (real == NULL || strncmp (real, "/run/", 5) != 0)
    {
      free (real);
      return 0;
    }
  target = tree_path (t, real);
  slash = strrchr (target, '/');
  *slash = '\0';
  if (mkdir_p (target, 0755) != 0)
    rc = fail (err, size, "cannot prepare %s in the sandbox: %s", real, errstr (errno));
  *slash = '/';
  if (rc == 0 && touch (target) != 0)
    rc = fail (err, size, "cannot prepare %s in the sandbox: %s", real, errstr (errno));
  if (rc == 0)
    rc = bind_into (t, real, real, 0, 0, err, size);
  free (target);
  free (real);
  return rc;
}

static int
build_run (Tree *t, const OwWallConfig *config, char *err, size_t size)
{
  char *dir, *canary, *empty, *sock;
  int rc = 0;

  if (mount_tmpfs (t, "/run", "mode=0755,size=64k", 0, err, size) != 0)
    return -1;
  dir = tree_path (t, OW_WALL_RUN_DIR);
  canary = tree_path (t, OW_WALL_CANARY);
  empty = tree_path (t, OW_WALL_RUN_DIR "/empty");
  if (mkdir (dir, 0755) != 0 || mkdir (canary, 0700) != 0 || touch (empty) != 0 || chmod (empty, 0444) != 0)
    rc = fail (err, size, "cannot prepare %s in the sandbox: %s", OW_WALL_RUN_DIR, errstr (errno));
  free (dir);
  free (canary);
  free (empty);
  if (rc == 0 && config->network == OW_WALL_NET_OPEN)
    rc = bind_resolver (t, err, size);
  if (rc != 0 || config->network != OW_WALL_NET_PROXY)
    return rc;

  sock = tree_path (t, OW_WALL_PROXY_SOCKET);
  if (touch (sock) != 0)
    rc = fail (err, size, "cannot prepare the proxy's socket in the sandbox: %s", errstr (errno));
  else if (mount (config->proxy_socket, sock, NULL, MS_BIND, NULL) != 0)
    rc = fail (err, size, "cannot show the allow-list proxy's socket %s inside the sandbox: %s",
               config->proxy_socket, errstr (errno));
  free (sock);
  return rc;
}

/* Copies @src (file or folder, symlinks followed) to @dst, owner-only.
 * @budget bounds the bytes copied so a huge folder cannot fill memory. */
static int
copy_tree (const char *src, const char *dst, int depth, long long *budget, char *err, size_t size)
{
  struct stat st;

  if (depth > 16)
    return 0;
  if (stat (src, &st) != 0)
    return fail (err, size, "cannot read the shared credential %s: %s", src, errstr (errno));
  if (S_ISDIR (st.st_mode))
    {
      DIR *dir = opendir (src);
      struct dirent *e;
      int rc = 0;

      if (dir == NULL)
        return fail (err, size, "cannot read the shared credential folder %s: %s", src, errstr (errno));
      if (mkdir (dst, 0700) != 0 && errno != EEXIST)
        {
          closedir (dir);
          return fail (err, size, "cannot create %s in the private home: %s", dst, errstr (errno));
        }
      while (rc == 0 && (e = readdir (dir)) != NULL)
        {
          char *s, *d;

          if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
            continue;
          s = xprintf ("%s/%s", src, e->d_name);
          d = xprintf ("%s/%s", dst, e->d_name);
          rc = copy_tree (s, d, depth + 1, budget, err, size);
          free (s);
          free (d);
        }
      closedir (dir);
      return rc;
    }
  if (S_ISREG (st.st_mode))
    {
      int in = open (src, O_RDONLY | O_CLOEXEC);
      int out;
      char buf[16384];
      ssize_t n;

      if (in < 0)
        return fail (err, size, "cannot read the shared credential %s: %s", src, errstr (errno));
      out = open (dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (out < 0)
        {
          close (in);
          return fail (err, size, "cannot write %s in the private home: %s", dst, errstr (errno));
        }
      while ((n = read (in, buf, sizeof buf)) > 0)
        {
          *budget -= n;
          if (*budget < 0 || write (out, buf, (size_t) n) != n)
            {
              close (in);
              close (out);
              return fail (err, size, "the shared credentials are too large to copy (over 64 MiB), or %s "
                           "could not be written", dst);
            }
        }
      close (in);
      close (out);
      return 0;
    }
  /* Sockets, pipes and devices are not credentials: an SSH agent's socket
   * in particular must stay outside. */
  return 0;
}

static int
build_home (Tree *t, const OwWallConfig *config, char *err, size_t size)
{
  static const char *const git_settings[] = { ".gitconfig", ".config/git", NULL };
  long long budget = 64LL * 1024 * 1024;
  char *home = tree_path (t, config->home);

  if (mkdir_p (home, 0755) != 0)
    {
      free (home);
      return fail (err, size, "cannot create the private home %s: %s", config->home, errstr (errno));
    }
  free (home);
  if (mount_tmpfs (t, config->home, "mode=0700", 0, err, size) != 0)
    return -1;

  for (size_t i = 0; i < config->n_credentials; i++)
    {
      const OwWallCredential *c = &config->credentials[i];
      char *abs = xprintf ("%s/%s", config->home, c->dest);
      char *target = tree_path (t, abs);
      char *slash = strrchr (target, '/');
      int rc;

      *slash = '\0';
      rc = mkdir_p (target, 0700);
      *slash = '/';
      if (rc != 0)
        rc = fail (err, size, "cannot create the folder for %s in the private home: %s", c->dest, errstr (errno));
      else
        rc = copy_tree (c->source, target, 0, &budget, err, size);
      free (abs);
      free (target);
      if (rc != 0)
        return -1;
    }

  /* Git's own settings (name, email, aliases) and the toolchains the
   * person switched on, read-only at their usual place in the home. */
  for (int pass = 0; pass < 2; pass++)
    {
      const char *const *list = pass == 0 ? git_settings : (const char *const *) config->toolchains;

      for (size_t i = 0; list != NULL && list[i] != NULL; i++)
        {
          char *abs, *target, *source;
          struct stat st;
          int rc = 0;

          if (!relative_ok (list[i]))
            continue;
          abs = xprintf ("%s/%s", config->home, list[i]);
          source = xstrdup (abs);
          if (stat (source, &st) != 0 || (!S_ISDIR (st.st_mode) && !S_ISREG (st.st_mode)))
            {
              free (abs);
              free (source);
              continue;
            }
          target = tree_path (t, abs);
          if (S_ISDIR (st.st_mode))
            rc = mkdir_p (target, 0755);
          else
            {
              char *slash = strrchr (target, '/');

              *slash = '\0';
              rc = mkdir_p (target, 0755);
              *slash = '/';
              if (rc == 0)
                rc = touch (target);
            }
          if (rc != 0)
            rc = fail (err, size, "cannot create %s in the private home: %s", list[i], errstr (errno));
          else
            rc = bind_into (t, source, abs, 0, 0, err, size);
          if (rc == 0)
            tree_remember (&t->bound, &t->n_bound, abs);
          free (abs);
          free (source);
          free (target);
          if (rc != 0)
            return -1;
        }
    }
  return 0;
}

/* One bind of a session folder or one mask, placed in depth order. */
typedef struct {
  const char *path;      /* the path inside (= on the host) */
  int         is_mask;   /* 1 for a hidden-path mask */
  int         writable;  /* for folders */
} Placement;

static int
placement_cmp (const void *a, const void *b)
{
  const Placement *pa = a, *pb = b;
  size_t da = path_depth (pa->path), db = path_depth (pb->path);

  if (da != db)
    return da < db ? -1 : 1;
  /* At equal depth a folder comes before a mask: the same path as both
   * means the person granted it, and the mask is skipped then. */
  return pa->is_mask - pb->is_mask;
}

/* Whether hidden path @h would show through something bound: then it
 * needs a mask. */
static int
needs_mask (const Tree *t, const char *h)
{
  const OwWallConfig *config = t->config;

  for (size_t i = 0; i < config->n_roots; i++)
    if (strcmp (config->roots[i].path, h) == 0)
      return 0;
  for (size_t i = 0; i < config->n_roots; i++)
    if (path_has_prefix (h, config->roots[i].path))
      return 1;
  for (size_t i = 0; i < t->n_bound; i++)
    if (path_has_prefix (h, t->bound[i]) && strcmp (h, t->bound[i]) != 0)
      return 1;
  return 0;
}

static int
place_mask (Tree *t, const char *h, char *err, size_t size)
{
  char *target = tree_path (t, h);
  struct stat st;
  int rc = 0;

  /* A symlink is left alone: it resolves inside the new root, where its
   * target is either absent or masked itself. */
  if (lstat (target, &st) != 0 || S_ISLNK (st.st_mode))
    {
      free (target);
      return 0;
    }
  if (S_ISDIR (st.st_mode))
    {
      if (mount ("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=64k") != 0)
        rc = fail (err, size, "cannot hide %s inside the sandbox: %s", h, errstr (errno));
      else
        tree_remember (&t->masks, &t->n_masks, target);
    }
  else
    {
      char *empty = tree_path (t, OW_WALL_RUN_DIR "/empty");

      if (mount (empty, target, NULL, MS_BIND, NULL) != 0
          || ow_wall_set_mount_attrs (target, OW_MOUNT_ATTR_RDONLY | OW_MOUNT_ATTR_NOSUID | OW_MOUNT_ATTR_NODEV, 0) != 0)
        rc = fail (err, size, "cannot hide %s inside the sandbox: %s", h, errstr (errno));
      free (empty);
    }
  free (target);
  return rc;
}

static int
place_roots_and_masks (Tree *t, char *err, size_t size)
{
  const OwWallConfig *config = t->config;
  size_t n_hidden = 0, n = 0;
  Placement *list;
  int rc = 0;

  while (config->hidden != NULL && config->hidden[n_hidden] != NULL)
    n_hidden++;
  list = xcalloc (config->n_roots + n_hidden, sizeof *list);
  for (size_t i = 0; i < config->n_roots; i++)
    list[n++] = (Placement) { config->roots[i].path, 0, config->roots[i].writable };
  for (size_t i = 0; i < n_hidden; i++)
    if (config->hidden[i][0] == '/' && needs_mask (t, config->hidden[i]))
      list[n++] = (Placement) { config->hidden[i], 1, 0 };
  qsort (list, n, sizeof *list, placement_cmp);

  for (size_t i = 0; rc == 0 && i < n; i++)
    {
      char *target;
      struct stat st;

      if (list[i].is_mask)
        {
          rc = place_mask (t, list[i].path, err, size);
          continue;
        }
      if (stat (list[i].path, &st) != 0 || !S_ISDIR (st.st_mode))
        {
          int why = stat (list[i].path, &st) != 0 ? errno : ENOTDIR;

          rc = fail (err, size, "the session's folder %s is not a folder on this machine (%s)", list[i].path,
                     errstr (why));
          break;
        }
      target = tree_path (t, list[i].path);
      if (stat (target, &st) != 0 && mkdir_p (target, 0755) != 0)
        rc = fail (err, size, "cannot create %s in the sandbox's root: %s", list[i].path, errstr (errno));
      free (target);
      if (rc == 0)
        rc = bind_into (t, list[i].path, list[i].path, list[i].writable, 0, err, size);
    }
  free (list);
  return rc;
}

static int
build_tree (const OwWallConfig *config, char *err, size_t size)
{
  Tree t = { .config = config, .nr = config->mount_point };
  struct stat st;
  int rc = -1;

  if (config->mount_point == NULL || stat (config->mount_point, &st) != 0 || !S_ISDIR (st.st_mode))
    return fail (err, size, "the sandbox's scratch folder %s is missing", config->mount_point);
  for (size_t i = 0; i < config->n_roots; i++)
    if (strcmp (config->roots[i].path, "/") == 0)
      return fail (err, size, "the whole file system (/) cannot be a session folder in the sandbox; "
                   "choose the project's folder instead");

  /* Nothing done from here on may show on the host. */
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return fail (err, size, "cannot make the sandbox's mounts private: %s", errstr (errno));
  if (mount ("tmpfs", t.nr, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=4m") != 0)
    return fail (err, size, "cannot mount the sandbox's root (%s)%s", errstr (errno),
                 errno == EPERM ? "; the kernel may forbid mounts in user namespaces (AppArmor's "
                                  "kernel.apparmor_restrict_unprivileged_userns=1, or a container)" : "");

  if (bind_system (&t, err, size) == 0
      && build_dev (&t, err, size) == 0
      && build_proc (&t, err, size) == 0
      && mount_tmpfs (&t, "/tmp", "mode=1777", 0, err, size) == 0
      && build_run (&t, config, err, size) == 0
      && build_home (&t, config, err, size) == 0
      && place_roots_and_masks (&t, err, size) == 0)
    rc = 0;

  /* Freeze what tools must not write to: the root's skeleton, /dev and
   * the masks. Submounts keep their own flags. */
  for (size_t i = 0; rc == 0 && i < t.n_masks; i++)
    if (ow_wall_set_mount_attrs (t.masks[i], OW_MOUNT_ATTR_RDONLY | OW_MOUNT_ATTR_NOSUID, 0) != 0)
      rc = fail (err, size, "cannot make %s read-only: %s", t.masks[i] + strlen (t.nr), errstr (errno));
  if (rc == 0 && ow_wall_set_mount_attrs (t.nr, OW_MOUNT_ATTR_RDONLY | OW_MOUNT_ATTR_NOSUID | OW_MOUNT_ATTR_NODEV, 0) != 0)
    rc = fail (err, size, "cannot make the sandbox's root read-only: %s", errstr (errno));

  if (rc == 0)
    {
      /* pivot_root(".", ".") stacks the old root on the new one; detaching
       * it leaves only the new tree. */
      if (chdir (t.nr) != 0 || syscall (SYS_pivot_root, ".", ".") != 0)
        rc = fail (err, size, "cannot switch to the sandbox's root: %s", errstr (errno));
      else if (umount2 (".", MNT_DETACH) != 0 || chdir ("/") != 0)
        rc = fail (err, size, "cannot let go of the host's file system: %s", errstr (errno));
    }

  for (size_t i = 0; i < t.n_bound; i++)
    free (t.bound[i]);
  free (t.bound);
  for (size_t i = 0; i < t.n_masks; i++)
    free (t.masks[i]);
  free (t.masks);
  return rc;
}

static int
bring_up_loopback (char *err, size_t size)
{
  struct ifreq ifr;
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int rc = 0;

  if (fd < 0)
    return fail (err, size, "cannot open a socket in the sandbox's network namespace: %s", errstr (errno));
  memset (&ifr, 0, sizeof ifr);
  snprintf (ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  if (ioctl (fd, SIOCGIFFLAGS, &ifr) != 0)
    rc = fail (err, size, "cannot find lo in the sandbox's network namespace: %s", errstr (errno));
  else
    {
      ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
      if (ioctl (fd, SIOCSIFFLAGS, &ifr) != 0)
        rc = fail (err, size, "cannot bring up lo in the sandbox's network namespace: %s", errstr (errno));
    }
  close (fd);
  return rc;
}

static void __attribute__ ((noreturn))
be_init (pid_t runner)
{
  char scratch[256];
  int code = 1;

  /* Nothing inside may look into pid 1, signal it (it has no handlers,
   * so the kernel drops every signal sent from inside the namespace) or
   * borrow its capabilities. */
  prctl (PR_SET_DUMPABLE, 0, 0, 0, 0);
  syscall (SYS_close_range, 3U, ~0U, 0U);
  drop_capabilities (scratch, sizeof scratch);
  prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  for (;;)
    {
      int status;
      pid_t pid = waitpid (-1, &status, 0);

      if (pid < 0)
        {
          if (errno == EINTR)
            continue;
          _exit (code);
        }
      if (pid == runner)
        {
          code = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
          _exit (code);
        }
    }
}

static void
env_push (char ***env, size_t *n, char *entry)
{
  *env = realloc (*env, (*n + 2) * sizeof (char *));
  if (*env == NULL)
    abort ();
  (*env)[(*n)++] = entry;
  (*env)[*n] = NULL;
}

static char **
tools_environment (const OwWallConfig *config, const OwWallState *state)
{
  static const char *const proxy_names[] = {
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", NULL,
  };
  char **env = NULL;
  size_t n = 0;

  for (size_t i = 0; config->env != NULL && config->env[i] != NULL; i++)
    {
      const char *entry = config->env[i];
      size_t name_len = strcspn (entry, "=");
      int dropped = entry[name_len] != '=';

      for (size_t k = 0; !dropped && env_dropped[k] != NULL; k++)
        if (strlen (env_dropped[k]) == name_len && strncmp (entry, env_dropped[k], name_len) == 0)
          dropped = 1;
      for (size_t k = 0; !dropped && config->network != OW_WALL_NET_OPEN && env_proxies[k] != NULL; k++)
        if (strlen (env_proxies[k]) == name_len && strncmp (entry, env_proxies[k], name_len) == 0)
          dropped = 1;
      for (size_t k = 0; !dropped && k < config->n_credentials; k++)
        if (config->credentials[k].env_name != NULL && strlen (config->credentials[k].env_name) == name_len
            && strncmp (entry, config->credentials[k].env_name, name_len) == 0)
          dropped = 1;
      if (!dropped)
        env_push (&env, &n, xstrdup (entry));
    }
  env_push (&env, &n, xprintf ("HOME=%s", config->home));
  env_push (&env, &n, xstrdup ("TMPDIR=/tmp"));
  env_push (&env, &n, xstrdup ("OPENWORKER_SANDBOX=linux"));
  if (state->bridge_port > 0)
    for (size_t k = 0; proxy_names[k] != NULL; k++)
      env_push (&env, &n, xprintf ("%s=http://127.0.0.1:%d", proxy_names[k], state->bridge_port));
  for (size_t k = 0; k < config->n_credentials; k++)
    if (config->credentials[k].env_name != NULL)
      env_push (&env, &n, xprintf ("%s=%s/%s", config->credentials[k].env_name, config->home,
                                   config->credentials[k].dest));
  if (env == NULL)
    env = xcalloc (1, sizeof (char *));
  return env;
}

int
ow_wall_enter (const OwWallConfig *config, int conn_fd, OwWallState *state, char *err, size_t err_size)
{
  int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
  uid_t uid = getuid ();
  gid_t gid = getgid ();
  char why[256];
  pid_t child;

  memset (state, 0, sizeof *state);
  state->bridge_fd = -1;
  if (ow_wall_landlock_abi (why, sizeof why) < 1)
    return fail (err, err_size, "Landlock is not available in this kernel (%s); the Linux sandbox needs it "
                 "to confine files — use a kernel with Landlock, or set sandbox_provider = \"direct\"", why);
  if (prctl (PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
    return fail (err, err_size, "seccomp is not available in this kernel (CONFIG_SECCOMP_FILTER); the Linux "
                 "sandbox needs it — use a kernel with seccomp, or set sandbox_provider = \"direct\"");
  if (config->network != OW_WALL_NET_OPEN)
    flags |= CLONE_NEWNET;

  /* Out of the engine's terminal session: nothing inside can reach the
   * person's terminal, let alone type into it. */
  setsid ();
  if (unshare (flags) != 0)
    return userns_failure (errno, err, err_size);
  if (write_id_maps (uid, gid, err, err_size) != 0)
    return -1;

  child = fork ();
  if (child < 0)
    return fail (err, err_size, "cannot start the sandbox's first process: %s", errstr (errno));
  if (child > 0)
    {
      close (conn_fd);
      wait_and_exit (child);
    }

  /* pid 1 of the new namespace. */
  prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (build_tree (config, err, err_size) != 0)
    return -1;
  if ((flags & CLONE_NEWNET) && bring_up_loopback (err, err_size) != 0)
    return -1;
  sethostname ("openworker-sandbox", strlen ("openworker-sandbox"));

  child = fork ();
  if (child < 0)
    return fail (err, err_size, "cannot start the tool runner inside the sandbox: %s", errstr (errno));
  if (child > 0)
    {
      close (conn_fd);
      be_init (child);
    }

  /* pid 2: the runner proper. */
  prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (chdir (config->roots[0].path) != 0 && chdir (config->home) != 0)
    return fail (err, err_size, "cannot enter the session's folder %s inside the sandbox: %s",
                 config->roots[0].path, errstr (errno));
  if (config->network == OW_WALL_NET_PROXY)
    {
      state->bridge_fd = ow_wall_bridge_listen (&state->bridge_port, err, err_size);
      if (state->bridge_fd < 0)
        return -1;
      state->proxy_socket = xstrdup (OW_WALL_PROXY_SOCKET);
    }
  state->canary = xstrdup (OW_WALL_CANARY);
  state->tools_env = tools_environment (config, state);
  return 0;
}

int
ow_wall_lockdown (const OwWallConfig *config, OwWallState *state, char *err, size_t err_size)
{
  struct rlimit no_core = { 0, 0 };
  char why[256];
  int abi;

  /* Non-dumpable: tools of the same user cannot open /proc/2/fd/3 and
   * speak for the runner, nor read its memory. */
  prctl (PR_SET_DUMPABLE, 0, 0, 0, 0);
  setrlimit (RLIMIT_CORE, &no_core);
  if (drop_capabilities (err, err_size) != 0)
    return -1;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return fail (err, err_size, "cannot set no_new_privs: %s", errstr (errno));
  abi = ow_wall_landlock_abi (why, sizeof why);
  if (abi < 1)
    return fail (err, err_size, "Landlock is not available in this kernel (%s)", why);
  if (ow_wall_landlock_apply (config, abi, err, err_size) != 0)
    return -1;
  state->landlock_abi = abi;
  if (ow_wall_seccomp_apply (err, err_size) != 0)
    return -1;
  state->seccomp = 1;
  return 0;
}

/* ---- what this machine offers -------------------------------------------- */

static void
check_add (OwTbBuf *out, int *count, const char *name, int ok, const char *detail)
{
  ow_tb_buf_puts (out, *count > 0 ? ",{\"name\":" : "{\"name\":");
  ow_tb_buf_json_string (out, name, (size_t) -1);
  ow_tb_buf_printf (out, ",\"ok\":%s,\"detail\":", ok ? "true" : "false");
  ow_tb_buf_json_string (out, detail, (size_t) -1);
  ow_tb_buf_puts (out, "}");
  (*count)++;
}

/* Stages of the throwaway namespace test, reported through a pipe. */
enum { TRY_OK, TRY_USERNS, TRY_MAPS, TRY_MOUNT, TRY_PROC, TRY_NET, TRY_FORK };

static void __attribute__ ((noreturn))
try_child (int report)
{
  char err[512];
  unsigned char answer[2] = { TRY_OK, 0 };
  /* Taken before unshare: inside, until the map is written, we are nobody. */
  uid_t uid = getuid ();
  gid_t gid = getgid ();
  pid_t pid;

  if (unshare (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET) != 0)
    {
      answer[0] = TRY_USERNS;
      answer[1] = (unsigned char) errno;
    }
  else if (write_id_maps (uid, gid, err, sizeof err) != 0)
    {
      answer[0] = TRY_MAPS;
      answer[1] = (unsigned char) errno;
    }
  else if ((pid = fork ()) < 0)
    {
      answer[0] = TRY_FORK;
      answer[1] = (unsigned char) errno;
    }
  else if (pid == 0)
    {
      /* pid 1 of the test namespace: a private tmpfs over /tmp (in this
       * mount namespace only) with a /proc inside it. */
      if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0
          || mount ("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0)
        {
          answer[0] = TRY_MOUNT;
          answer[1] = (unsigned char) errno;
        }
      else if (mkdir ("/tmp/proc", 0555) != 0
               || mount ("proc", "/tmp/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        {
          answer[0] = TRY_PROC;
          answer[1] = (unsigned char) errno;
        }
      else if (bring_up_loopback (err, sizeof err) != 0)
        {
          answer[0] = TRY_NET;
          answer[1] = (unsigned char) errno;
        }
      if (write (report, answer, 2) != 2)
        _exit (1);
      _exit (0);
    }
  else
    {
      int status;

      while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
      _exit (0);
    }
  if (write (report, answer, 2) != 2)
    _exit (1);
  _exit (0);
}

void
ow_wall_check (OwTbBuf *out)
{
  struct utsname u;
  char why[256], detail[768], err[512];
  int count = 0, abi, fds[2];
  unsigned char answer[2] = { 255, 0 };
  pid_t pid;

  uname (&u);
  abi = ow_wall_landlock_abi (why, sizeof why);
  ow_tb_buf_puts (out, "{\"kernel\":");
  ow_tb_buf_json_string (out, u.release, (size_t) -1);
  ow_tb_buf_printf (out, ",\"landlock_abi\":%d,\"checks\":[", abi);

  snprintf (detail, sizeof detail, "Linux %s %s", u.release, u.machine);
  check_add (out, &count, "kernel", 1, detail);

  if (abi >= 1)
    {
      snprintf (detail, sizeof detail, "ABI %d: files%s%s%s", abi, abi >= 2 ? ", moves between folders" : "",
                abi >= 4 ? ", TCP ports" : "", abi >= 6 ? ", abstract sockets and signals" : "");
      check_add (out, &count, "landlock", 1, detail);
    }
  else
    {
      snprintf (detail, sizeof detail, "Landlock is not available in this kernel (%s)", why);
      check_add (out, &count, "landlock", 0, detail);
    }

  if (prctl (PR_GET_SECCOMP, 0, 0, 0, 0) >= 0)
    check_add (out, &count, "seccomp", 1, "seccomp filters are available");
  else
    check_add (out, &count, "seccomp", 0, "seccomp is not available in this kernel (CONFIG_SECCOMP_FILTER)");

  if (pipe2 (fds, O_CLOEXEC) != 0 || (pid = fork ()) < 0)
    check_add (out, &count, "user namespaces", 0, "cannot start a test process");
  else
    {
      int status;

      if (pid == 0)
        {
          close (fds[0]);
          try_child (fds[1]);
        }
      close (fds[1]);
      if (read (fds[0], answer, 2) != 2)
        answer[0] = 255;
      close (fds[0]);
      while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
      switch (answer[0])
        {
        case TRY_OK:
          check_add (out, &count, "user namespaces", 1, "new user, mount, pid and network namespaces work");
          check_add (out, &count, "private /proc", 1, "a /proc of its own can be mounted");
          break;
        case TRY_USERNS:
          userns_failure (answer[1], err, sizeof err);
          check_add (out, &count, "user namespaces", 0, err);
          break;
        case TRY_MAPS:
          snprintf (detail, sizeof detail, "a user namespace starts, but the user id cannot be mapped "
                    "into it (%s)", errstr (answer[1]));
          check_add (out, &count, "user namespaces", 0, detail);
          break;
        case TRY_MOUNT:
          snprintf (detail, sizeof detail, "user namespaces start, but mounting inside them is refused (%s); "
                    "AppArmor's kernel.apparmor_restrict_unprivileged_userns=1 or a container can cause this",
                    errstr (answer[1]));
          check_add (out, &count, "user namespaces", 0, detail);
          break;
        case TRY_PROC:
          check_add (out, &count, "user namespaces", 1, "new user, mount, pid and network namespaces work");
          snprintf (detail, sizeof detail, "a private /proc cannot be mounted (%s): the host's /proc has "
                    "masked parts, as inside a container", errstr (answer[1]));
          check_add (out, &count, "private /proc", 0, detail);
          break;
        case TRY_NET:
          check_add (out, &count, "user namespaces", 0, "a network namespace starts, but lo cannot be brought up");
          break;
        default:
          check_add (out, &count, "user namespaces", 0, "the namespace test process failed");
          break;
        }
    }
  ow_tb_buf_puts (out, "]}");
}
