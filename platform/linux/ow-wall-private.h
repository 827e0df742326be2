/* ow-wall-private.h: what the wall's files share with each other. */
#pragma once

#include "ow-wall.h"

/* The system, bound read-only and granted read + execute: the same list
 * for the mount tree and for Landlock. */
extern const char *const ow_wall_system_paths[];

/* The device nodes the tools get (names under /dev). */
extern const char *const ow_wall_device_nodes[];

/* ---- Landlock's ABI, under our own names (ow-wall-landlock.c, ow-guard.c) ----
 *
 * Build machines' headers are often older than the kernels the runner
 * meets (protocols.md §12.2), so the constants are defined here. */

#include <stdint.h>

/* The three system calls have the same numbers on every architecture. */
#define OW_SYS_landlock_create_ruleset 444
#define OW_SYS_landlock_add_rule       445
#define OW_SYS_landlock_restrict_self  446

#define OW_LL_CREATE_RULESET_VERSION   (1U << 0)
#define OW_LL_RULE_PATH_BENEATH        1

/* Filesystem rights, by the ABI that introduced them. */
#define OW_LL_FS_EXECUTE      (1ULL << 0)   /* ABI 1 */
#define OW_LL_FS_WRITE_FILE   (1ULL << 1)
#define OW_LL_FS_READ_FILE    (1ULL << 2)
#define OW_LL_FS_READ_DIR     (1ULL << 3)
#define OW_LL_FS_REMOVE_DIR   (1ULL << 4)
#define OW_LL_FS_REMOVE_FILE  (1ULL << 5)
#define OW_LL_FS_MAKE_CHAR    (1ULL << 6)
#define OW_LL_FS_MAKE_DIR     (1ULL << 7)
#define OW_LL_FS_MAKE_REG     (1ULL << 8)
#define OW_LL_FS_MAKE_SOCK    (1ULL << 9)
#define OW_LL_FS_MAKE_FIFO    (1ULL << 10)
#define OW_LL_FS_MAKE_BLOCK   (1ULL << 11)
#define OW_LL_FS_MAKE_SYM     (1ULL << 12)
#define OW_LL_FS_REFER        (1ULL << 13)  /* ABI 2 */
#define OW_LL_FS_TRUNCATE     (1ULL << 14)  /* ABI 3 */
#define OW_LL_FS_IOCTL_DEV    (1ULL << 15)  /* ABI 5 */

#define OW_LL_NET_BIND_TCP    (1ULL << 0)   /* ABI 4 */
#define OW_LL_NET_CONNECT_TCP (1ULL << 1)

#define OW_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)  /* ABI 6 */
#define OW_LL_SCOPE_SIGNAL               (1ULL << 1)

/* struct landlock_ruleset_attr; the kernel takes the prefix its ABI knows. */
typedef struct {
  uint64_t handled_access_fs;   /* filesystem rights this ruleset governs */
  uint64_t handled_access_net;  /* network rights it governs (ABI 4) */
  uint64_t scoped;              /* IPC scopes (ABI 6) */
} OwLlRulesetAttr;

/* struct landlock_path_beneath_attr (packed in the kernel's UAPI). */
typedef struct __attribute__ ((packed)) {
  uint64_t allowed_access;      /* rights granted beneath parent_fd */
  int32_t  parent_fd;           /* an O_PATH descriptor of the folder or file */
} OwLlPathBeneathAttr;

/* Rights the file-only rule may carry (the kernel refuses folder rights
 * on a file). */
#define OW_LL_FILE_RIGHTS (OW_LL_FS_EXECUTE | OW_LL_FS_WRITE_FILE | OW_LL_FS_READ_FILE \
                           | OW_LL_FS_TRUNCATE | OW_LL_FS_IOCTL_DEV)

/* Every filesystem right the kernel's ABI @abi knows. */
uint64_t ow_wall_landlock_fs_rights (int abi);

/* ---- Mount attributes (ow-wall.c, ow-guard.c) ---- */

/* mount_setattr(2) arrived in Linux 5.12; older headers lack it. */
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define OW_MOUNT_ATTR_RDONLY 0x00000001ULL
#define OW_MOUNT_ATTR_NOSUID 0x00000002ULL
#define OW_MOUNT_ATTR_NODEV  0x00000004ULL

/* struct mount_attr, under our own name so no header clash can happen. */
typedef struct {
  uint64_t attr_set;     /* flags to set */
  uint64_t attr_clr;     /* flags to clear */
  uint64_t propagation;  /* MS_SHARED etc., 0 = unchanged */
  uint64_t userns_fd;    /* for idmapped mounts; unused */
} OwMountAttr;

/* Applies mount attributes to @target (and below when @recursive): with
 * mount_setattr where the kernel has it, else by a bind remount that
 * keeps the flags a user namespace may not clear. System calls only, so
 * the guard's child may use it. 0, or -1 with errno. */
int ow_wall_set_mount_attrs (const char *target, uint64_t attrs, int recursive);
