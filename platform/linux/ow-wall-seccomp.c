/* ow-wall-seccomp.c: the system calls a walled tool never gets.
 *
 * A deny list on top of the namespaces and Landlock: everything is allowed
 * except what would let a process leave or look past the wall — new
 * namespaces (above all user namespaces, which hand out capabilities
 * again), joining others, mount changes, tracing and reading other
 * processes, io_uring (which makes sockets and opens files without the
 * system calls below), the kernel keyring, BPF, perf, module and kexec
 * loading, file handles (open_by_handle_at walks around mounts), raw and
 * packet sockets, VM sockets, netlink beyond routing information, and
 * faking terminal input. Each is answered with EPERM, never a kill, so a
 * program that probes for a feature sees "not permitted" and carries on.
 *
 * Two exceptions to EPERM: clone3 says ENOSYS, because its flags sit in
 * memory a filter cannot read, and glibc then falls back to clone, whose
 * flags the filter does check; system calls of another architecture
 * (32-bit x86 on x86_64) say EPERM as a whole rather than slipping past a
 * filter written for this one.
 *
 * Names libseccomp does not know (an older libseccomp, or a system call
 * this architecture lacks) are skipped, not fatal.
 */
#include "ow-wall-private.h"

#include <errno.h>
#include <linux/netlink.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* Denied outright. */
static const char *const denied[] = {
  /* namespaces and mounts */
  "setns", "mount", "umount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
  "fsconfig", "fsmount", "fspick", "mount_setattr",
  /* other processes' memory */
  "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
  /* io_uring */
  "io_uring_setup", "io_uring_enter", "io_uring_register",
  /* the kernel keyring */
  "keyctl", "add_key", "request_key",
  /* the kernel itself */
  "bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load", "init_module",
  "finit_module", "delete_module", "create_module", "reboot", "swapon", "swapoff", "syslog", "acct",
  "quotactl", "quotactl_fd", "lookup_dcookie", "vhangup", "iopl", "ioperm", "uselib", "nfsservctl",
  "_sysctl", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
  /* file handles bypass the mount tree */
  "open_by_handle_at", "name_to_handle_at",
  NULL,
};

/* Namespace flags refused in clone and unshare. */
static const unsigned long namespace_flags[] = {
  CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
};

static int
rule_failed (scmp_filter_ctx ctx, const char *what, int rc, char *err, size_t size)
{
  snprintf (err, size, "cannot add the seccomp rule for %s: %s", what, strerror (-rc));
  seccomp_release (ctx);
  return -1;
}

int
ow_wall_seccomp_apply (char *err, size_t err_size)
{
  const uint32_t eperm = SCMP_ACT_ERRNO (EPERM);
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  int rc, sys;

  if (ctx == NULL)
    {
      snprintf (err, err_size, "cannot start a seccomp filter (libseccomp)");
      return -1;
    }
  seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, eperm);
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 1);
  /* Threads started before the filter (there should be none) get it too. */
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_TSYNC, 1);

  for (size_t i = 0; denied[i] != NULL; i++)
    {
      sys = seccomp_syscall_resolve_name (denied[i]);
      if (sys == __NR_SCMP_ERROR || sys < 0)
        continue;
      rc = seccomp_rule_add (ctx, eperm, sys, 0);
      if (rc != 0 && rc != -EEXIST)
        return rule_failed (ctx, denied[i], rc, err, err_size);
    }

  for (size_t i = 0; i < sizeof namespace_flags / sizeof namespace_flags[0]; i++)
    {
      scmp_datum_t flag = namespace_flags[i];

      rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (clone), 1, SCMP_A0 (SCMP_CMP_MASKED_EQ, flag, flag));
      if (rc != 0)
        return rule_failed (ctx, "clone", rc, err, err_size);
      rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (unshare), 1, SCMP_A0 (SCMP_CMP_MASKED_EQ, flag, flag));
      if (rc != 0)
        return rule_failed (ctx, "unshare", rc, err, err_size);
    }
  rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (unshare), 1,
                         SCMP_A0 (SCMP_CMP_MASKED_EQ, (scmp_datum_t) CLONE_NEWTIME, (scmp_datum_t) CLONE_NEWTIME));
  if (rc != 0)
    return rule_failed (ctx, "unshare", rc, err, err_size);
  sys = seccomp_syscall_resolve_name ("clone3");
  if (sys != __NR_SCMP_ERROR && sys >= 0)
    {
      rc = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (ENOSYS), sys, 0);
      if (rc != 0)
        return rule_failed (ctx, "clone3", rc, err, err_size);
    }

  /* Sockets: no packet, VM or key-management sockets; no raw IP; netlink
   * only for routing information (glibc's getaddrinfo and `ip` read it;
   * changing anything needs a capability nobody inside has). */
  {
    static const int families[] = { AF_PACKET, AF_VSOCK, AF_KEY };

    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
      {
        rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (socket), 1, SCMP_A0 (SCMP_CMP_EQ, (scmp_datum_t) families[i]));
        if (rc != 0)
          return rule_failed (ctx, "socket", rc, err, err_size);
        rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (socketpair), 1,
                               SCMP_A0 (SCMP_CMP_EQ, (scmp_datum_t) families[i]));
        if (rc != 0)
          return rule_failed (ctx, "socketpair", rc, err, err_size);
      }
  }
  rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (socket), 2, SCMP_A0 (SCMP_CMP_EQ, (scmp_datum_t) AF_NETLINK),
                         SCMP_A2 (SCMP_CMP_NE, (scmp_datum_t) NETLINK_ROUTE));
  if (rc != 0)
    return rule_failed (ctx, "socket(AF_NETLINK)", rc, err, err_size);
  {
    static const int ip_families[] = { AF_INET, AF_INET6 };
    static const int bad_types[] = { SOCK_RAW, SOCK_PACKET };

    for (size_t f = 0; f < 2; f++)
      for (size_t t = 0; t < 2; t++)
        {
          /* The type argument carries SOCK_NONBLOCK/SOCK_CLOEXEC above the low bits. */
          rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (socket), 2,
                                 SCMP_A0 (SCMP_CMP_EQ, (scmp_datum_t) ip_families[f]),
                                 SCMP_A1 (SCMP_CMP_MASKED_EQ, (scmp_datum_t) 0xf, (scmp_datum_t) bad_types[t]));
          if (rc != 0)
            return rule_failed (ctx, "socket(SOCK_RAW)", rc, err, err_size);
        }
  }

  /* Pushing characters into a terminal's input (TIOCSTI) or the console
   * (TIOCLINUX) would type commands for whoever reads it. */
  rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (ioctl), 1,
                         SCMP_A1 (SCMP_CMP_MASKED_EQ, (scmp_datum_t) 0xffffffffU, (scmp_datum_t) TIOCSTI));
  if (rc == 0)
    rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (ioctl), 1,
                           SCMP_A1 (SCMP_CMP_MASKED_EQ, (scmp_datum_t) 0xffffffffU, (scmp_datum_t) TIOCLINUX));
  if (rc != 0)
    return rule_failed (ctx, "ioctl", rc, err, err_size);

  rc = seccomp_load (ctx);
  seccomp_release (ctx);
  if (rc != 0)
    {
      snprintf (err, err_size, "cannot load the seccomp filter: %s", strerror (-rc));
      return -1;
    }
  return 0;
}
