/* ow-wall-landlock.c: Landlock on top of the sandbox's mount tree.
 *
 * The mount tree already decides what exists; Landlock decides what may
 * be done with it, independently of file permissions and of any mount the
 * tree might get wrong: read and run the system, read the read-only
 * folders, write only the session's writable folders, the private /tmp
 * and home, a few devices. It also stops any later mount change; from
 * ABI 4 a sandbox without network gets no TCP at all, and from ABI 6
 * abstract Unix sockets and signals are scoped to the sandbox.
 *
 * The ABI is found at run time and every right newer than it is left out,
 * so one binary works from Linux 5.13 on. The constants and structures
 * are defined here under our own names: build machines' headers are often
 * older than the kernels the runner meets (protocols.md §12.2).
 */
#include "ow-wall-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int
ow_wall_landlock_abi (char *why, size_t why_size)
{
  long abi = syscall (OW_SYS_landlock_create_ruleset, NULL, 0, OW_LL_CREATE_RULESET_VERSION);

  if (abi >= 1)
    return (int) abi;
  if (why != NULL)
    {
      if (errno == EOPNOTSUPP)
        snprintf (why, why_size, "it is built in but switched off at boot: add \"landlock\" to the lsm= "
                  "kernel parameter");
      else if (errno == ENOSYS)
        snprintf (why, why_size, "the kernel is older than Linux 5.13 or built without "
                  "CONFIG_SECURITY_LANDLOCK");
      else
        snprintf (why, why_size, "%s", strerror (errno));
    }
  return 0;
}

uint64_t
ow_wall_landlock_fs_rights (int abi)
{
  uint64_t rights = (OW_LL_FS_MAKE_SYM << 1) - 1;   /* the thirteen of ABI 1 */

  if (abi >= 2)
    rights |= OW_LL_FS_REFER;
  if (abi >= 3)
    rights |= OW_LL_FS_TRUNCATE;
  if (abi >= 5)
    rights |= OW_LL_FS_IOCTL_DEV;
  return rights;
}

/* Grants @access beneath @path. A missing optional path is skipped. */
static int
add_path (int ruleset, const char *path, uint64_t access, int optional, char *err, size_t size)
{
  OwLlPathBeneathAttr attr;
  struct stat st;
  int fd = open (path, O_PATH | O_CLOEXEC);
  int rc = 0;

  if (fd < 0)
    {
      if (optional && (errno == ENOENT || errno == ENOTDIR))
        return 0;
      snprintf (err, size, "cannot open %s to grant access to it: %s", path, strerror (errno));
      return -1;
    }
  if (fstat (fd, &st) == 0 && !S_ISDIR (st.st_mode))
    access &= OW_LL_FILE_RIGHTS;
  attr.allowed_access = access;
  attr.parent_fd = fd;
  if (access != 0 && syscall (OW_SYS_landlock_add_rule, ruleset, OW_LL_RULE_PATH_BENEATH, &attr, 0) != 0)
    {
      snprintf (err, size, "Landlock refused the rule for %s: %s", path, strerror (errno));
      rc = -1;
    }
  close (fd);
  return rc;
}

int
ow_wall_landlock_apply (const OwWallConfig *config, int abi, char *err, size_t err_size)
{
  uint64_t all = ow_wall_landlock_fs_rights (abi);
  uint64_t read_exec = OW_LL_FS_EXECUTE | OW_LL_FS_READ_FILE | OW_LL_FS_READ_DIR;
  uint64_t device = (OW_LL_FS_READ_FILE | OW_LL_FS_WRITE_FILE | OW_LL_FS_IOCTL_DEV) & all;
  OwLlRulesetAttr attr;
  size_t attr_size;
  int ruleset, rc = 0;

  memset (&attr, 0, sizeof attr);
  attr.handled_access_fs = all;
  attr_size = sizeof attr.handled_access_fs;
  if (abi >= 4)
    {
      /* With no network at all, no TCP either, not even on the sandbox's
       * own loopback (Codex's "restricted" mode does the same). With the
       * proxy, the network namespace is the boundary: its loopback holds
       * only the sandbox's own servers and the bridge, so test suites that
       * start a local server keep working; Landlock's port rules could not
       * tell that loopback from any other address anyway. */
      if (config->network == OW_WALL_NET_NONE)
        attr.handled_access_net = OW_LL_NET_BIND_TCP | OW_LL_NET_CONNECT_TCP;
      attr_size = offsetof (OwLlRulesetAttr, scoped);
    }
  if (abi >= 6)
    {
      attr.scoped = OW_LL_SCOPE_ABSTRACT_UNIX_SOCKET | OW_LL_SCOPE_SIGNAL;
      attr_size = sizeof attr;
    }

  ruleset = (int) syscall (OW_SYS_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0)
    {
      snprintf (err, err_size, "cannot create a Landlock ruleset (ABI %d): %s", abi, strerror (errno));
      return -1;
    }

  /* Listing folders is harmless (the tree holds only what the sandbox may
   * see) and keeps `ls /`, `find` and getcwd working. */
  rc |= add_path (ruleset, "/", OW_LL_FS_READ_DIR, 0, err, err_size);
  for (size_t i = 0; rc == 0 && ow_wall_system_paths[i] != NULL; i++)
    rc |= add_path (ruleset, ow_wall_system_paths[i], read_exec, 1, err, err_size);
  if (rc == 0)
    rc |= add_path (ruleset, "/proc", OW_LL_FS_READ_FILE | OW_LL_FS_READ_DIR, 0, err, err_size);
  for (size_t i = 0; rc == 0 && ow_wall_device_nodes[i] != NULL; i++)
    {
      char path[64];

      snprintf (path, sizeof path, "/dev/%s", ow_wall_device_nodes[i]);
      rc |= add_path (ruleset, path, device, 1, err, err_size);
    }
  if (rc == 0)
    rc |= add_path (ruleset, "/dev/pts", device | OW_LL_FS_READ_DIR, 1, err, err_size);
  if (rc == 0)
    rc |= add_path (ruleset, "/dev/shm", all, 1, err, err_size);
  if (rc == 0)
    rc |= add_path (ruleset, "/tmp", all, 0, err, err_size);
  if (rc == 0)
    rc |= add_path (ruleset, config->home, all, 0, err, err_size);
  for (size_t i = 0; rc == 0 && i < config->n_roots; i++)
    rc |= add_path (ruleset, config->roots[i].path, config->roots[i].writable ? all : read_exec, 0,
                    err, err_size);

  if (rc == 0 && syscall (OW_SYS_landlock_restrict_self, ruleset, 0) != 0)
    {
      snprintf (err, err_size, "cannot apply Landlock: %s", strerror (errno));
      rc = -1;
    }
  close (ruleset);
  return rc == 0 ? 0 : -1;
}
