/* sbx-escape.c: one escape attempt (or positive control) from inside.
 *
 * The escape battery copies this program into the sandbox's workspace and
 * runs it through run_shell, one operation per run:
 *
 *   sbx-escape OP [ARG…]
 *
 * It tries the operation with the plain system call and reports what the
 * kernel said: "ok …" and exit 0 when the operation worked, "failed: …"
 * and exit 1 when it was refused. The test decides which outcome it
 * wants: an attempt must fail, its positive control must work. Plain libc,
 * no dependencies, so it runs inside the sandbox as is. It leaves with
 * _exit: in sanitizer builds LeakSanitizer's exit check needs ptrace,
 * which the wall denies, and would turn every answer into an abort.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static int
report (int rc, const char *what)
{
  if (rc >= 0)
    {
      printf ("ok %s\n", what);
      return 0;
    }
  printf ("failed: %s: %s\n", what, strerror (errno));
  return 1;
}

static int
op_read (char **a)
{
  char buf[256];
  int fd = open (a[0], O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return report (-1, "open");
  n = read (fd, buf, sizeof buf);
  close (fd);
  if (n < 0)
    return report (-1, "read");
  printf ("ok read %zd bytes\n", n);
  return 0;
}

static int
op_list (char **a)
{
  DIR *d = opendir (a[0]);
  struct dirent *e;
  int n = 0;

  if (d == NULL)
    return report (-1, "opendir");
  while ((e = readdir (d)) != NULL)
    if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
      {
        printf ("%s\n", e->d_name);
        n++;
      }
  closedir (d);
  printf ("ok %d entries\n", n);
  return 0;
}

static int
op_write (char **a)
{
  int fd = open (a[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  if (fd < 0)
    return report (-1, "open for writing");
  if (write (fd, "x", 1) != 1)
    {
      close (fd);
      return report (-1, "write");
    }
  close (fd);
  return report (0, "written");
}

static int
op_stat (char **a)
{
  struct stat st;

  return report (stat (a[0], &st), "stat");
}

static int
op_symlink (char **a)
{
  return report (symlink (a[0], a[1]), "symlink");
}

static int
op_link (char **a)
{
  return report (link (a[0], a[1]), "link");
}

static int
op_rename (char **a)
{
  return report (rename (a[0], a[1]), "rename");
}

static int
op_mount_tmpfs (char **a)
{
  return report (mount ("tmpfs", a[0], "tmpfs", 0, NULL), "mount tmpfs");
}

static int
op_bind (char **a)
{
  return report (mount (a[0], a[1], NULL, MS_BIND, NULL), "bind mount");
}

static int
op_remount_rw (char **a)
{
  return report (mount (NULL, a[0], NULL, MS_REMOUNT | MS_BIND, NULL), "remount read-write");
}

static int
op_umount (char **a)
{
  return report (umount2 (a[0], MNT_DETACH), "umount");
}

static int
op_unshare (char **a)
{
  int flag = strcmp (a[0], "user") == 0 ? CLONE_NEWUSER : strcmp (a[0], "net") == 0 ? CLONE_NEWNET
             : strcmp (a[0], "mnt") == 0 ? CLONE_NEWNS : strcmp (a[0], "pid") == 0 ? CLONE_NEWPID : 0;

  return report (unshare (flag), "unshare");
}

static int
op_clone_newuser (char **a)
{
  long pid = syscall (SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

  if (pid == 0)
    _exit (0);
  if (pid > 0)
    waitpid ((pid_t) pid, NULL, 0);
  return report (pid > 0 ? 0 : -1, "clone(CLONE_NEWUSER)");
}

static int
op_fork (char **a)
{
  pid_t pid = fork ();

  if (pid == 0)
    _exit (0);
  if (pid > 0)
    waitpid (pid, NULL, 0);
  return report (pid > 0 ? 0 : -1, "fork");
}

static int
op_setns (char **a)
{
  int fd = open (a[0], O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return report (-1, "open namespace");
  return report (setns (fd, 0), "setns");
}

static pid_t
spawn_sleeper (void)
{
  pid_t pid = fork ();

  if (pid == 0)
    {
      pause ();
      _exit (0);
    }
  usleep (20000);
  return pid;
}

static void
reap (pid_t pid)
{
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
}

static int
op_ptrace_child (char **a)
{
  pid_t pid = spawn_sleeper ();
  long rc = ptrace (PTRACE_ATTACH, pid, NULL, NULL);
  int saved = errno;

  reap (pid);
  errno = saved;
  return report (rc == 0 ? 0 : -1, "ptrace attach");
}

static int
op_ptrace_pid (char **a)
{
  return report (ptrace (PTRACE_ATTACH, (pid_t) atoi (a[0]), NULL, NULL) == 0 ? 0 : -1, "ptrace attach");
}

static int
op_vm_read_child (char **a)
{
  static char secret[] = "secret";
  char buf[8];
  struct iovec local = { buf, sizeof secret }, remote = { secret, sizeof secret };
  pid_t pid = spawn_sleeper ();
  ssize_t n = process_vm_readv (pid, &local, 1, &remote, 1, 0);
  int saved = errno;

  reap (pid);
  errno = saved;
  return report (n >= 0 ? 0 : -1, "process_vm_readv");
}

static int
op_keyctl (char **a)
{
  return report ((int) syscall (SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, "ow-escape"), "keyctl");
}

static int
op_add_key (char **a)
{
  return report ((int) syscall (SYS_add_key, "user", "ow-escape", "x", 1, KEY_SPEC_PROCESS_KEYRING), "add_key");
}

static int
op_bpf (char **a)
{
  union bpf_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.map_type = BPF_MAP_TYPE_ARRAY;
  attr.key_size = 4;
  attr.value_size = 4;
  attr.max_entries = 1;
  return report ((int) syscall (SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr), "bpf");
}

static int
op_perf (char **a)
{
  struct perf_event_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.exclude_kernel = 1;
  return report ((int) syscall (SYS_perf_event_open, &attr, 0, -1, -1, 0), "perf_event_open");
}

static int
op_io_uring (char **a)
{
  struct io_uring_params p;

  memset (&p, 0, sizeof p);
  return report ((int) syscall (SYS_io_uring_setup, 4, &p), "io_uring_setup");
}

static int
op_userfaultfd (char **a)
{
  return report ((int) syscall (SYS_userfaultfd, O_CLOEXEC), "userfaultfd");
}

static int
op_open_by_handle (char **a)
{
  struct {
    struct file_handle fh;
    unsigned char bytes[128];
  } h;
  int mount_id, fd;

  h.fh.handle_bytes = sizeof h.bytes;
  if (name_to_handle_at (AT_FDCWD, a[0], &h.fh, &mount_id, 0) != 0)
    return report (-1, "name_to_handle_at");
  fd = open_by_handle_at (AT_FDCWD, &h.fh, O_RDONLY);
  return report (fd, "open_by_handle_at");
}

static int
op_chroot (char **a)
{
  return report (chroot (a[0]), "chroot");
}

static int
op_pivot_root (char **a)
{
  return report ((int) syscall (SYS_pivot_root, a[0], a[1]), "pivot_root");
}

static int
op_socket (char **a)
{
  int domain = AF_INET, type = SOCK_STREAM, proto = 0;

  if (strcmp (a[0], "raw") == 0)
    type = SOCK_RAW, proto = IPPROTO_ICMP;
  else if (strcmp (a[0], "packet") == 0)
    domain = AF_PACKET, type = SOCK_RAW;
  else if (strcmp (a[0], "netlink-audit") == 0)
    domain = AF_NETLINK, type = SOCK_RAW, proto = NETLINK_AUDIT;
  else if (strcmp (a[0], "netlink-route") == 0)
    domain = AF_NETLINK, type = SOCK_RAW, proto = NETLINK_ROUTE;
  else if (strcmp (a[0], "vsock") == 0)
    domain = AF_VSOCK, type = SOCK_STREAM;
  return report (socket (domain, type | SOCK_CLOEXEC, proto), "socket");
}

static int
op_tcp (char **a)
{
  struct sockaddr_in sin;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct timeval tv = { 2, 0 };

  if (fd < 0)
    return report (-1, "socket");
  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons ((unsigned short) atoi (a[1]));
  inet_pton (AF_INET, a[0], &sin.sin_addr);
  setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return report (connect (fd, (struct sockaddr *) &sin, sizeof sin), "connect");
}

static int
op_udp_dns (char **a)
{
  /* A query for example.com, type A. */
  static const unsigned char query[] = {
    0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
    3, 'c', 'o', 'm', 0, 0x00, 0x01, 0x00, 0x01,
  };
  struct sockaddr_in sin;
  struct pollfd pfd;
  unsigned char reply[512];
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return report (-1, "socket");
  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons (53);
  inet_pton (AF_INET, a[0], &sin.sin_addr);
  if (sendto (fd, query, sizeof query, 0, (struct sockaddr *) &sin, sizeof sin) < 0)
    return report (-1, "sendto");
  pfd.fd = fd;
  pfd.events = POLLIN;
  if (poll (&pfd, 1, 2000) <= 0)
    {
      errno = ETIMEDOUT;
      return report (-1, "no answer");
    }
  return report ((int) recv (fd, reply, sizeof reply, 0), "dns answer");
}

static int
unix_connect (const char *name, int abstract)
{
  struct sockaddr_un sun;
  socklen_t len;
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return -1;
  memset (&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  if (abstract)
    {
      memcpy (sun.sun_path + 1, name, strlen (name));
      len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + strlen (name));
    }
  else
    {
      memcpy (sun.sun_path, name, strlen (name));
      len = sizeof sun;
    }
  return connect (fd, (struct sockaddr *) &sun, len);
}

static int
op_abstract (char **a)
{
  return report (unix_connect (a[0], 1), "connect to abstract socket");
}

static int
op_abstract_self (char **a)
{
  struct sockaddr_un sun;
  socklen_t len;
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  memset (&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  memcpy (sun.sun_path + 1, a[0], strlen (a[0]));
  len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + strlen (a[0]));
  if (fd < 0 || bind (fd, (struct sockaddr *) &sun, len) != 0 || listen (fd, 1) != 0)
    return report (-1, "listen on abstract socket");
  return report (unix_connect (a[0], 1), "connect to own abstract socket");
}

static int
op_unix (char **a)
{
  return report (unix_connect (a[0], 0), "connect to unix socket");
}

static int
op_kill (char **a)
{
  return report (kill ((pid_t) atoi (a[0]), atoi (a[1])), "kill");
}

static int
op_mknod (char **a)
{
  return report (mknod (a[0], S_IFCHR | 0600, makedev (1, 1)), "mknod /dev/mem");
}

static int
op_tiocsti (char **a)
{
  char c = 'x';
  int fd = open (a[0], O_RDWR | O_CLOEXEC);

  if (fd < 0)
    return report (-1, "open terminal");
  return report (ioctl (fd, TIOCSTI, &c), "TIOCSTI");
}

static int
op_x32 (char **a)
{
  /* getpid through the x32 ABI: must not bypass a filter written for x86_64. */
  return report ((int) syscall (0x40000000 | SYS_getpid), "x32 syscall");
}

static int
op_int80 (char **a)
{
#if defined(__x86_64__)
  long ret;

  /* getpid (20) through the 32-bit entry point. */
  __asm__ volatile ("int $0x80" : "=a" (ret) : "a" (20L) : "memory");
  if (ret < 0)
    {
      errno = (int) -ret;
      return report (-1, "int 0x80");
    }
  return report (0, "int 0x80");
#else
  errno = ENOSYS;
  return report (-1, "int 0x80");
#endif
}

static int
op_sethostname (char **a)
{
  return report (sethostname (a[0], strlen (a[0])), "sethostname");
}

static int
op_chown (char **a)
{
  return report (chown (a[0], (uid_t) atoi (a[1]), (gid_t) -1), "chown");
}

static int
op_capset (char **a)
{
  struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2];

  memset (data, 0xff, sizeof data);
  return report ((int) syscall (SYS_capset, &hdr, data), "capset");
}

static int
op_kexec (char **a)
{
  return report ((int) syscall (SYS_kexec_load, 0, 0, NULL, 0), "kexec_load");
}

static int
op_init_module (char **a)
{
  return report ((int) syscall (SYS_init_module, "", 0, ""), "init_module");
}

static int
op_iopl (char **a)
{
  return report (iopl (3), "iopl");
}

static int
op_clock_settime (char **a)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  return report (clock_settime (CLOCK_REALTIME, &ts), "clock_settime");
}

static int
op_openat_up (char **a)
{
  int dir = open (a[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int fd;

  if (dir < 0)
    return report (-1, "open folder");
  fd = openat (dir, a[1], O_RDONLY | O_CLOEXEC);
  return report (fd, "openat");
}

typedef struct {
  const char *name;          /* the operation */
  int         n_args;        /* arguments it needs */
  int       (*func) (char **args);  /* runs it; 0 when it worked */
} Op;

static const Op ops[] = {
  { "read", 1, op_read }, { "list", 1, op_list }, { "write", 1, op_write }, { "stat", 1, op_stat },
  { "symlink", 2, op_symlink }, { "link", 2, op_link }, { "rename", 2, op_rename },
  { "mount-tmpfs", 1, op_mount_tmpfs }, { "bind", 2, op_bind }, { "remount-rw", 1, op_remount_rw },
  { "umount", 1, op_umount }, { "unshare", 1, op_unshare }, { "clone-newuser", 0, op_clone_newuser },
  { "fork", 0, op_fork }, { "setns", 1, op_setns }, { "ptrace-child", 0, op_ptrace_child },
  { "ptrace-pid", 1, op_ptrace_pid }, { "vm-read-child", 0, op_vm_read_child }, { "keyctl", 0, op_keyctl },
  { "add-key", 0, op_add_key }, { "bpf", 0, op_bpf }, { "perf", 0, op_perf }, { "io-uring", 0, op_io_uring },
  { "userfaultfd", 0, op_userfaultfd }, { "open-by-handle", 1, op_open_by_handle }, { "chroot", 1, op_chroot },
  { "pivot-root", 2, op_pivot_root }, { "socket", 1, op_socket }, { "tcp", 2, op_tcp },
  { "udp-dns", 1, op_udp_dns }, { "abstract", 1, op_abstract }, { "abstract-self", 1, op_abstract_self },
  { "unix", 1, op_unix }, { "kill", 2, op_kill }, { "mknod", 1, op_mknod }, { "tiocsti", 1, op_tiocsti },
  { "x32", 0, op_x32 }, { "int80", 0, op_int80 }, { "sethostname", 1, op_sethostname }, { "chown", 2, op_chown },
  { "capset", 0, op_capset }, { "kexec", 0, op_kexec }, { "init-module", 0, op_init_module },
  { "iopl", 0, op_iopl }, { "clock-settime", 0, op_clock_settime }, { "openat", 2, op_openat_up },
};

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fputs ("usage: sbx-escape OP [ARG…]\n", stderr);
      return 2;
    }
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp (argv[1], ops[i].name) == 0)
      {
        if (argc - 2 < ops[i].n_args)
          {
            fprintf (stderr, "sbx-escape: %s needs %d argument(s)\n", ops[i].name, ops[i].n_args);
            return 2;
          }
        {
          int rc = ops[i].func (argv + 2);

          fflush (stdout);
          _exit (rc);
        }
      }
  fprintf (stderr, "sbx-escape: unknown operation %s\n", argv[1]);
  return 2;
}
