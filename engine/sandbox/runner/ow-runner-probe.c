/* ow-runner-probe.c: the wall's proof, from inside.
 *
 * Before a session may use a sandbox the engine sends "probe" with a list
 * of checks, and the runner answers each from where the tools will run,
 * with exactly their restrictions: folders reachable as granted (a write
 * is tried with an unnamed O_TMPFILE, so nothing appears in the person's
 * folder), hidden paths absent, a loopback port outside unreachable, the
 * proxy bridge answering, Landlock refusing a write in a folder only it
 * protects, seccomp refusing a new user namespace, no capability left,
 * the engine's process invisible, no secret in the tools' environment.
 * Each answer is {"name", "ok", "detail"}; an unknown check is a failure,
 * never a pass. Plain C over libc (the Linux-only checks are guarded).
 */
#include "sandbox/runner/ow-runner.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "sandbox/runner/ow-runner-private.h"

/* How long a probe waits for a TCP connect to be answered. */
#define PROBE_CONNECT_MS   1500

extern char **environ;

/* Appends one {"name", "ok", "detail"} to the answer array. */
static void
probe_add (OwTbBuf *out, int *count, const char *name, int ok, const char *detail)
{
  ow_tb_buf_puts (out, *count > 0 ? ",{\"name\":" : "{\"name\":");
  ow_tb_buf_json_string (out, name, (size_t) -1);
  ow_tb_buf_printf (out, ",\"ok\":%s,\"detail\":", ok ? "true" : "false");
  ow_tb_buf_json_string (out, detail, (size_t) -1);
  ow_tb_buf_puts (out, "}");
  (*count)++;
}

static void
probe_root (const char *path, int writable, OwTbBuf *out, int *count)
{
  char name[4200], detail[512], scratch[128];
  struct stat st;
  DIR *dir;
  int fd, can_write, write_errno = 0;

  snprintf (name, sizeof name, "folder %s", path);
  if (stat (path, &st) != 0)
    {
      snprintf (detail, sizeof detail, "not visible inside: %s", ow_runner_err_text (errno, scratch, sizeof scratch));
      probe_add (out, count, name, 0, detail);
      return;
    }
  if (!S_ISDIR (st.st_mode))
    {
      probe_add (out, count, name, 0, "not a folder inside");
      return;
    }
  dir = opendir (path);
  if (dir == NULL)
    {
      snprintf (detail, sizeof detail, "cannot be listed inside: %s", ow_runner_err_text (errno, scratch, sizeof scratch));
      probe_add (out, count, name, 0, detail);
      return;
    }
  closedir (dir);

  /* An unnamed file proves writability without leaving anything behind
   * in the person's folder; a named one is the fallback for filesystems
   * without O_TMPFILE. */
#ifdef O_TMPFILE
  fd = open (path, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#else
  fd = -1;
  errno = EOPNOTSUPP;
#endif
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
    {
      char probe_path[4200];

      snprintf (probe_path, sizeof probe_path, "%s/.openworker-probe-%ld", path, (long) getpid ());
      fd = open (probe_path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
      if (fd >= 0)
        unlink (probe_path);
    }
  can_write = fd >= 0;
  if (fd >= 0)
    close (fd);
  else
    write_errno = errno;

  if (writable && can_write)
    probe_add (out, count, name, 1, "readable and writable");
  else if (!writable && !can_write)
    {
      snprintf (detail, sizeof detail, "readable; writing is refused (%s)",
                ow_runner_err_text (write_errno, scratch, sizeof scratch));
      probe_add (out, count, name, 1, detail);
    }
  else if (writable)
    {
      snprintf (detail, sizeof detail, "readable, but writing failed: %s",
                ow_runner_err_text (write_errno, scratch, sizeof scratch));
      probe_add (out, count, name, 0, detail);
    }
  else
    probe_add (out, count, name, 0, "meant to be read-only, but a file could be created in it");
}

static void
probe_hidden (const char *path, const OwTbJson *absent, int must_not_exist, OwTbBuf *out, int *count)
{
  char name[4200];
  struct stat st;
  OwTbBuf seen;
  size_t n_checked = 0, n_seen = 0;

  snprintf (name, sizeof name, "hidden %s", path);
  if (lstat (path, &st) != 0)
    {
      probe_add (out, count, name, 1, "absent");
      return;
    }
  if (must_not_exist)
    {
      probe_add (out, count, name, 0, "visible inside");
      return;
    }
  if (!S_ISDIR (st.st_mode))
    {
      /* A hidden file inside a bound folder is masked by an empty one. */
      if (S_ISREG (st.st_mode) && st.st_size == 0)
        probe_add (out, count, name, 1, "masked: empty inside");
      else
        probe_add (out, count, name, 0, "its contents are visible inside");
      return;
    }
  ow_tb_buf_init (&seen);
  for (size_t i = 0; absent != NULL && absent->type == OW_TB_JSON_ARRAY && i < absent->n_items; i++)
    {
      const OwTbJson *item = absent->items[i];
      char child[4200];

      if (item->type != OW_TB_JSON_STRING)
        continue;
      n_checked++;
      snprintf (child, sizeof child, "%s/%s", path, item->string);
      if (lstat (child, &st) == 0)
        {
          if (n_seen < 8)
            ow_tb_buf_printf (&seen, "%s%s", n_seen > 0 ? ", " : "", item->string);
          n_seen++;
        }
    }
  if (n_seen == 0)
    {
      char detail[160];

      snprintf (detail, sizeof detail, "only the sandbox's own entries; none of the %zu host entries is visible",
                n_checked);
      probe_add (out, count, name, 1, detail);
    }
  else
    {
      OwTbBuf detail;

      ow_tb_buf_init (&detail);
      ow_tb_buf_printf (&detail, "%zu host entries are visible inside: %s", n_seen, seen.data);
      probe_add (out, count, name, 0, detail.data);
      ow_tb_buf_free (&detail);
    }
  ow_tb_buf_free (&seen);
}

/* Connects to @host:@port (IPv4 or IPv6 literal). 0 on success, else -1
 * with errno (ETIMEDOUT when nobody answered in time). */
static int
tcp_connect (const char *host, int port)
{
  struct sockaddr_storage ss;
  socklen_t ss_len;
  int fd, err = 0;
  socklen_t err_len = sizeof err;

  memset (&ss, 0, sizeof ss);
  if (inet_pton (AF_INET, host, &((struct sockaddr_in *) &ss)->sin_addr) == 1)
    {
      ((struct sockaddr_in *) &ss)->sin_family = AF_INET;
      ((struct sockaddr_in *) &ss)->sin_port = htons ((unsigned short) port);
      ss_len = sizeof (struct sockaddr_in);
    }
  else if (inet_pton (AF_INET6, host, &((struct sockaddr_in6 *) &ss)->sin6_addr) == 1)
    {
      ((struct sockaddr_in6 *) &ss)->sin6_family = AF_INET6;
      ((struct sockaddr_in6 *) &ss)->sin6_port = htons ((unsigned short) port);
      ss_len = sizeof (struct sockaddr_in6);
    }
  else
    {
      errno = EINVAL;
      return -1;
    }
  fd = socket (ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect (fd, (struct sockaddr *) &ss, ss_len) != 0)
    {
      struct pollfd pfd = { fd, POLLOUT, 0 };

      if (errno != EINPROGRESS)
        {
          err = errno;
          close (fd);
          errno = err;
          return -1;
        }
      if (poll (&pfd, 1, PROBE_CONNECT_MS) <= 0)
        {
          close (fd);
          errno = ETIMEDOUT;
          return -1;
        }
      if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &err_len) != 0)
        err = errno;
      if (err != 0)
        {
          close (fd);
          errno = err;
          return -1;
        }
    }
  close (fd);
  return 0;
}

static int
unix_connect (const char *path)
{
  struct sockaddr_un sun;
  int fd, saved;

  if (strlen (path) >= sizeof sun.sun_path)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  memset (&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  memcpy (sun.sun_path, path, strlen (path));
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect (fd, (struct sockaddr *) &sun, sizeof sun) != 0)
    {
      saved = errno;
      close (fd);
      errno = saved;
      return -1;
    }
  close (fd);
  return 0;
}

static void
probe_port_closed (const char *host, long long port, OwTbBuf *out, int *count)
{
  char name[128], detail[256], scratch[128];

  snprintf (name, sizeof name, "port %s:%lld unreachable", host, port);
  if (tcp_connect (host, (int) port) == 0)
    probe_add (out, count, name, 0, "a connection from inside succeeded");
  else
    {
      snprintf (detail, sizeof detail, "connecting fails: %s", ow_runner_err_text (errno, scratch, sizeof scratch));
      probe_add (out, count, name, 1, detail);
    }
}

static void
probe_proxy (const OwRunnerOptions *options, OwTbBuf *out, int *count)
{
  char detail[512], scratch[128];

  if (options->bridge_port <= 0 || options->proxy_socket == NULL)
    {
      probe_add (out, count, "proxy bridge", 0, "this sandbox has no proxy bridge");
      return;
    }
  if (tcp_connect ("127.0.0.1", options->bridge_port) != 0)
    {
      snprintf (detail, sizeof detail, "127.0.0.1:%d does not answer: %s", options->bridge_port,
                ow_runner_err_text (errno, scratch, sizeof scratch));
      probe_add (out, count, "proxy bridge", 0, detail);
      return;
    }
  if (unix_connect (options->proxy_socket) != 0)
    {
      snprintf (detail, sizeof detail, "the bridge listens, but the proxy's socket %s does not answer: %s",
                options->proxy_socket, ow_runner_err_text (errno, scratch, sizeof scratch));
      probe_add (out, count, "proxy bridge", 0, detail);
      return;
    }
  snprintf (detail, sizeof detail, "127.0.0.1:%d forwards to the allow-list proxy", options->bridge_port);
  probe_add (out, count, "proxy bridge", 1, detail);
}

static void
probe_landlock (const OwRunnerOptions *options, OwTbBuf *out, int *count)
{
  char path[4200], detail[512], scratch[128];
  struct stat st;
  int fd;

  if (options->landlock_canary == NULL || stat (options->landlock_canary, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      probe_add (out, count, "landlock", 0, "no canary folder to test against");
      return;
    }
  snprintf (path, sizeof path, "%s/probe", options->landlock_canary);
  fd = open (path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0)
    {
      close (fd);
      unlink (path);
      probe_add (out, count, "landlock", 0, "a file could be created outside every granted folder");
    }
  else if (errno == EACCES)
    probe_add (out, count, "landlock", 1, "writing outside the granted folders is refused by Landlock");
  else
    {
      snprintf (detail, sizeof detail, "writing was refused, but not by Landlock (%s)",
                ow_runner_err_text (errno, scratch, sizeof scratch));
      probe_add (out, count, "landlock", 0, detail);
    }
}

#ifdef __linux__
static void
probe_seccomp (OwTbBuf *out, int *count)
{
  char detail[256], scratch[128];
  int mode = prctl (PR_GET_SECCOMP, 0, 0, 0, 0);
  long rc;

  if (mode != 2)
    {
      probe_add (out, count, "seccomp", 0, "no seccomp filter is loaded");
      return;
    }
  /* With the filter this is EPERM; without it the kernel would say EINVAL
   * (a threaded process cannot change user namespace), so the answer
   * proves the filter and changes nothing either way. */
  rc = syscall (SYS_unshare, CLONE_NEWUSER);
  if (rc == 0 || errno != EPERM)
    {
      snprintf (detail, sizeof detail, "unshare(CLONE_NEWUSER) was not refused by the filter (%s)",
                rc == 0 ? "it succeeded" : ow_runner_err_text (errno, scratch, sizeof scratch));
      probe_add (out, count, "seccomp", 0, detail);
      return;
    }
  probe_add (out, count, "seccomp", 1, "filter loaded; new user namespaces are refused");
}
#endif

#ifdef __linux__
static void
probe_capabilities (OwTbBuf *out, int *count)
{
  FILE *f = fopen ("/proc/self/status", "re");
  char line[256];
  OwTbBuf held;
  int seen = 0;

  if (f == NULL)
    {
      probe_add (out, count, "capabilities", 0, "cannot read /proc/self/status");
      return;
    }
  ow_tb_buf_init (&held);
  while (fgets (line, sizeof line, f) != NULL)
    {
      static const char *const fields[] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:" };

      for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strncmp (line, fields[i], strlen (fields[i])) == 0)
          {
            unsigned long long mask = strtoull (line + strlen (fields[i]), NULL, 16);

            seen++;
            if (mask != 0)
              ow_tb_buf_printf (&held, "%s%s %llx", held.len > 0 ? ", " : "", fields[i], mask);
          }
    }
  fclose (f);
  if (seen < 5)
    probe_add (out, count, "capabilities", 0, "the capability sets could not be read");
  else if (held.len > 0)
    probe_add (out, count, "capabilities", 0, held.data);
  else
    probe_add (out, count, "capabilities", 1, "none held, none can be regained");
  ow_tb_buf_free (&held);
}
#endif

static void
probe_pid_hidden (long long pid, OwTbBuf *out, int *count)
{
  char name[64], detail[256], scratch[128];

  snprintf (name, sizeof name, "process %lld outside", pid);
  if (pid <= 1 || kill ((pid_t) pid, 0) == 0)
    {
      probe_add (out, count, name, 0, pid <= 1 ? "no process given" : "it can be signalled from inside");
      return;
    }
  snprintf (detail, sizeof detail, "cannot be signalled: %s", ow_runner_err_text (errno, scratch, sizeof scratch));
  probe_add (out, count, name, 1, detail);
}

static void
probe_net_isolated (OwTbBuf *out, int *count)
{
  struct if_nameindex *ifs = if_nameindex ();
  OwTbBuf others;
  int has_lo = 0;

  if (ifs == NULL)
    {
      probe_add (out, count, "network isolated", 0, "cannot list the network interfaces");
      return;
    }
  ow_tb_buf_init (&others);
  for (struct if_nameindex *i = ifs; i->if_index != 0; i++)
    {
      if (strcmp (i->if_name, "lo") == 0)
        has_lo = 1;
      else
        ow_tb_buf_printf (&others, "%s%s", others.len > 0 ? ", " : "", i->if_name);
    }
  if_freenameindex (ifs);
  if (others.len > 0)
    {
      OwTbBuf detail;

      ow_tb_buf_init (&detail);
      ow_tb_buf_printf (&detail, "interfaces other than lo are visible: %s", others.data);
      probe_add (out, count, "network isolated", 0, detail.data);
      ow_tb_buf_free (&detail);
    }
  else
    probe_add (out, count, "network isolated", 1, has_lo ? "only lo" : "no interface at all");
  ow_tb_buf_free (&others);
}

static void
probe_env_absent (const OwRunnerOptions *options, const OwTbJson *names, OwTbBuf *out, int *count)
{
  const char *const *envp = options->envp != NULL ? options->envp : (const char *const *) environ;
  OwTbBuf found;

  ow_tb_buf_init (&found);
  for (size_t i = 0; names != NULL && names->type == OW_TB_JSON_ARRAY && i < names->n_items; i++)
    {
      const char *name = names->items[i]->type == OW_TB_JSON_STRING ? names->items[i]->string : NULL;
      size_t len = name != NULL ? strlen (name) : 0;

      for (size_t e = 0; len > 0 && envp[e] != NULL; e++)
        if (strncmp (envp[e], name, len) == 0 && envp[e][len] == '=')
          {
            ow_tb_buf_printf (&found, "%s%s", found.len > 0 ? ", " : "", name);
            break;
          }
    }
  if (found.len > 0)
    {
      OwTbBuf detail;

      ow_tb_buf_init (&detail);
      ow_tb_buf_printf (&detail, "the tools would see: %s", found.data);
      probe_add (out, count, "environment", 0, detail.data);
      ow_tb_buf_free (&detail);
    }
  else
    probe_add (out, count, "environment", 1, "no secret variable reaches the tools");
  ow_tb_buf_free (&found);
}

void
ow_runner_probe (const OwRunnerOptions *options, const OwTbJson *checks, OwTbBuf *out)
{
  int count = 0;

  ow_tb_buf_puts (out, "[");
  for (size_t i = 0; checks != NULL && checks->type == OW_TB_JSON_ARRAY && i < checks->n_items; i++)
    {
      const OwTbJson *check = checks->items[i];
      const char *kind = ow_runner_json_str (check, "kind");
      const char *path = ow_runner_json_str (check, "path");
      long long n = 0;

      if (kind == NULL)
        probe_add (out, &count, "check", 0, "a check without a kind");
      else if (strcmp (kind, "root") == 0 && path != NULL)
        probe_root (path, ow_runner_json_bool (check, "writable"), out, &count);
      else if (strcmp (kind, "hidden") == 0 && path != NULL)
        probe_hidden (path, ow_tb_json_get (check, "absent"), ow_runner_json_bool (check, "must_not_exist"), out, &count);
      else if (strcmp (kind, "port_closed") == 0 && ow_runner_json_int (check, "port", &n))
        probe_port_closed (ow_runner_json_str (check, "host") != NULL ? ow_runner_json_str (check, "host") : "127.0.0.1", n,
                           out, &count);
      else if (strcmp (kind, "proxy") == 0)
        probe_proxy (options, out, &count);
      else if (strcmp (kind, "landlock") == 0)
        probe_landlock (options, out, &count);
#ifdef __linux__
      else if (strcmp (kind, "seccomp") == 0)
        probe_seccomp (out, &count);
      else if (strcmp (kind, "no_new_privs") == 0)
        {
          int on = prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;

          probe_add (out, &count, "no_new_privs", on, on ? "set" : "not set: a setuid program could gain privileges");
        }
      else if (strcmp (kind, "capabilities") == 0)
        probe_capabilities (out, &count);
#endif
      else if (strcmp (kind, "pid_hidden") == 0 && ow_runner_json_int (check, "pid", &n))
        probe_pid_hidden (n, out, &count);
      else if (strcmp (kind, "net_isolated") == 0)
        probe_net_isolated (out, &count);
      else if (strcmp (kind, "env_absent") == 0)
        probe_env_absent (options, ow_tb_json_get (check, "names"), out, &count);
      else
        {
          char detail[160];

          snprintf (detail, sizeof detail, "the runner cannot check \"%s\"", kind);
          probe_add (out, &count, kind, 0, detail);
        }
    }
  ow_tb_buf_puts (out, "]");
}
