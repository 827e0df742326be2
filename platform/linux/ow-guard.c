/* ow-guard.c: the guard around every shell command (see ow-guard.h).
 *
 * Two halves. ow_guard_new runs in the engine: it resolves the spec into
 * concrete lists (which hidden paths exist and whether each is a folder
 * or a file; which protected paths exist inside the writable folders,
 * following a `.git` file to its real git folder; which writable folders
 * live under /tmp and must be bound back once /tmp is private), and
 * compiles the seccomp filter into a BPF program in memory.
 * ow_guard_child_enter runs in the forked child and only makes system
 * calls on what was prepared, so no lock another engine thread held at
 * fork time can be touched (no malloc, no stdio, no locale: messages use
 * strerrorname_np, which reads a static table).
 *
 * Order in the child: namespaces; /tmp made private (writable folders
 * under /tmp bound back in); hidden paths masked; `.git` folders bound
 * onto themselves (a mount point cannot be renamed, so `mv .git x` fails
 * with EBUSY); protected paths bound read-only; then no_new_privs,
 * Landlock (which from here on also forbids any mount change) and the
 * seccomp filter.
 */
#include "ow-guard.h"
#include "ow-wall-private.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* How many writable folders under /tmp can be bound back. */
#define MAX_TMP_REBINDS 32

typedef struct {
  char **items;
  size_t n;
} List;

struct OwGuard {
  int                 as_root;        /* uid 0: a mount namespace alone; else a user namespace too */
  char                uid_map[48];    /* "<uid> <uid> 1\n" */
  char                gid_map[48];
  int                 abi;            /* Landlock ABI */
  List                writable;       /* Landlock: everything allowed beneath */
  List                hide_dirs;      /* masked by an empty read-only tmpfs */
  List                hide_files;     /* masked by /dev/null, read-only */
  List                self_binds;     /* `.git` folders bound onto themselves */
  List                ro_binds;       /* protected paths bound read-only */
  List                mkdirs;         /* standard git folders created before protecting them */
  char               *tmp_dir;        /* the private /tmp's host folder, or NULL */
  List                tmp_rebinds;    /* writable folders (and the X socket folder) under /tmp */
  dev_t              *pin_dev;        /* what each ro_binds/self_binds path was at creation, */
  ino_t              *pin_ino;        /* to see when the host replaced one (ow_guard_stale); */
  struct timespec    *pin_ctime;      /* with the change time, as an inode number can be reused */
  size_t              n_pins;
  struct sock_filter *bpf;            /* the seccomp program */
  unsigned short      bpf_len;        /* its instructions */
};

/* ---- lists and paths (parent side) ---- */

static void
list_add (List *list, const char *item)
{
  for (size_t i = 0; i < list->n; i++)
    if (strcmp (list->items[i], item) == 0)
      return;
  list->items = realloc (list->items, (list->n + 2) * sizeof *list->items);
  if (list->items == NULL)
    abort ();
  list->items[list->n++] = strdup (item);
  list->items[list->n] = NULL;
}

static void
list_clear (List *list)
{
  for (size_t i = 0; i < list->n; i++)
    free (list->items[i]);
  free (list->items);
  list->items = NULL;
  list->n = 0;
}

static int
under (const char *path, const char *dir)
{
  size_t n = strlen (dir);

  if (strcmp (dir, "/") == 0)
    return 1;
  return strncmp (path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The folder a small pointer file names, resolved against @dir: a `.git`
 * file says "gitdir: PATH", a worktree's commondir holds PATH alone
 * (@prefix NULL). NULL when the file is missing or says something else. */
static char *
read_pointer_file (const char *dir, const char *file, const char *prefix)
{
  char buf[4096], joined[8192], *line;
  ssize_t n;
  int fd = open (file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

  if (fd < 0)
    return NULL;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return NULL;
  buf[n] = '\0';
  line = buf;
  if (prefix != NULL)
    {
      if (strncmp (buf, prefix, strlen (prefix)) != 0)
        return NULL;
      line += strlen (prefix);
      while (*line == ' ' || *line == '\t')
        line++;
    }
  line[strcspn (line, "\r\n")] = '\0';
  if (line[0] == '\0')
    return NULL;
  if (line[0] == '/')
    snprintf (joined, sizeof joined, "%s", line);
  else
    snprintf (joined, sizeof joined, "%s/%s", dir, line);
  return realpath (joined, NULL);
}

/* Protects one git folder: the folder itself becomes a mount point, its
 * hooks, config, info and modules read-only; a worktree's "commondir"
 * (where its hooks and config really live) likewise. */
static void
protect_git_dir (OwGuard *guard, const char *gitdir, int depth)
{
  static const char *const parts[] = { "hooks", "config", "info", "modules", "commondir", NULL };
  char path[8192];
  struct stat st;

  if (depth > 2 || stat (gitdir, &st) != 0 || !S_ISDIR (st.st_mode))
    return;
  list_add (&guard->self_binds, gitdir);
  for (size_t i = 0; parts[i] != NULL; i++)
    {
      snprintf (path, sizeof path, "%s/%s", gitdir, parts[i]);
      if (lstat (path, &st) == 0)
        list_add (&guard->ro_binds, path);
      else if (strcmp (parts[i], "hooks") == 0 || strcmp (parts[i], "info") == 0)
        {
          /* Created empty (git's own layout) so it can be kept read-only:
           * a missing hooks folder is otherwise one the agent could make. */
          list_add (&guard->mkdirs, path);
          list_add (&guard->ro_binds, path);
        }
    }
  snprintf (path, sizeof path, "%s/commondir", gitdir);
  {
    char *common = read_pointer_file (gitdir, path, NULL);

    if (common != NULL)
      protect_git_dir (guard, common, depth + 1);
    free (common);
  }
}

static void
protect_root (OwGuard *guard, const char *root, const char *const *names)
{
  char path[8192];
  struct stat st;

  snprintf (path, sizeof path, "%s/.git", root);
  if (lstat (path, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        protect_git_dir (guard, path, 0);
      else if (S_ISREG (st.st_mode))
        {
          char *gitdir = read_pointer_file (root, path, "gitdir:");

          /* The pointer file itself, so it cannot be aimed elsewhere. */
          list_add (&guard->ro_binds, path);
          if (gitdir != NULL)
            protect_git_dir (guard, gitdir, 0);
          free (gitdir);
        }
    }
  for (size_t i = 0; names != NULL && names[i] != NULL; i++)
    {
      snprintf (path, sizeof path, "%s/%s", root, names[i]);
      if (lstat (path, &st) == 0 && !S_ISLNK (st.st_mode))
        list_add (&guard->ro_binds, path);
    }
}

/* ---- the seccomp program (parent side) ---- */

static int
build_bpf (OwGuard *guard, char *err, size_t err_size)
{
  static const char *const denied[] = {
    /* leaving the guard's mount namespace, or changing its tree */
    "setns", "mount", "umount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    /* file handles reach files by inode, past the mount tree */
    "open_by_handle_at",
    NULL,
  };
  const uint32_t eperm = SCMP_ACT_ERRNO (EPERM);
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  struct stat st;
  int fd = -1, rc = 0;

  if (ctx == NULL)
    {
      snprintf (err, err_size, "cannot start a seccomp filter (libseccomp)");
      return -1;
    }
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0);
  for (size_t i = 0; rc == 0 && denied[i] != NULL; i++)
    {
      int sys = seccomp_syscall_resolve_name (denied[i]);

      if (sys == __NR_SCMP_ERROR || sys < 0)
        continue;
      rc = seccomp_rule_add (ctx, eperm, sys, 0);
      if (rc == -EEXIST)
        rc = 0;
    }
  /* Typing into the terminal (TIOCSTI) or the console (TIOCLINUX) would
   * run commands as whoever reads it, outside the guard. */
  if (rc == 0)
    rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (ioctl), 1,
                           SCMP_A1 (SCMP_CMP_MASKED_EQ, (scmp_datum_t) 0xffffffffU, (scmp_datum_t) TIOCSTI));
  if (rc == 0)
    rc = seccomp_rule_add (ctx, eperm, SCMP_SYS (ioctl), 1,
                           SCMP_A1 (SCMP_CMP_MASKED_EQ, (scmp_datum_t) 0xffffffffU, (scmp_datum_t) TIOCLINUX));
  if (rc == 0)
    {
      fd = memfd_create ("ow-guard-bpf", MFD_CLOEXEC);
      rc = fd < 0 ? -errno : seccomp_export_bpf (ctx, fd);
    }
  seccomp_release (ctx);
  if (rc == 0 && fstat (fd, &st) == 0 && st.st_size > 0
      && (size_t) st.st_size / sizeof (struct sock_filter) < 65536)
    {
      guard->bpf = malloc (st.st_size);
      if (guard->bpf == NULL || pread (fd, guard->bpf, st.st_size, 0) != st.st_size)
        rc = -EIO;
      else
        guard->bpf_len = (unsigned short) (st.st_size / sizeof (struct sock_filter));
    }
  else if (rc == 0)
    rc = -EIO;
  if (fd >= 0)
    close (fd);
  if (rc != 0)
    {
      snprintf (err, err_size, "cannot build the guard's seccomp filter: %s", strerror (-rc));
      return -1;
    }
  return 0;
}

/* ---- pins: a bind follows the file it was made on ---- */

/* A read-only bind covers the file that was at its path when the guard
 * was built. A program outside that replaces the file by a rename (git
 * itself writes .git/config that way) puts a new, unprotected file at the
 * path; the pins notice, and the caller builds a new guard. */
static void
pin_paths (OwGuard *guard)
{
  List *lists[] = { &guard->ro_binds, &guard->self_binds, &guard->mkdirs };
  size_t n = guard->ro_binds.n + guard->self_binds.n + guard->mkdirs.n, k = 0;

  guard->pin_dev = calloc (n + 1, sizeof *guard->pin_dev);
  guard->pin_ino = calloc (n + 1, sizeof *guard->pin_ino);
  guard->pin_ctime = calloc (n + 1, sizeof *guard->pin_ctime);
  if (guard->pin_dev == NULL || guard->pin_ino == NULL || guard->pin_ctime == NULL)
    abort ();
  for (size_t l = 0; l < 3; l++)
    for (size_t i = 0; i < lists[l]->n; i++)
      {
        struct stat st;

        if (stat (lists[l]->items[i], &st) == 0)
          {
            guard->pin_dev[k] = st.st_dev;
            guard->pin_ino[k] = st.st_ino;
            guard->pin_ctime[k] = st.st_ctim;
          }
        k++;
      }
  guard->n_pins = k;
}

int
ow_guard_stale (const OwGuard *guard)
{
  const List *lists[] = { &guard->ro_binds, &guard->self_binds, &guard->mkdirs };
  size_t k = 0;

  for (size_t l = 0; l < 3; l++)
    for (size_t i = 0; i < lists[l]->n; i++, k++)
      {
        struct stat st;
        int exists = stat (lists[l]->items[i], &st) == 0;

        /* mkdirs are made by the first child: missing before is fine. */
        if (guard->pin_ino[k] == 0 && l == 2)
          continue;
        if (!exists || st.st_dev != guard->pin_dev[k] || st.st_ino != guard->pin_ino[k]
            || st.st_ctim.tv_sec != guard->pin_ctime[k].tv_sec
            || st.st_ctim.tv_nsec != guard->pin_ctime[k].tv_nsec)
          return 1;
      }
  return 0;
}

/* ---- building and freeing ---- */

OwGuard *
ow_guard_new (const OwGuardSpec *spec, char *err, size_t err_size)
{
  OwGuard *guard = calloc (1, sizeof *guard);
  char why[256];
  struct stat st;
  int private_tmp = spec->tmp_dir != NULL;

  if (guard == NULL)
    abort ();
  guard->abi = ow_wall_landlock_abi (why, sizeof why);
  if (guard->abi < 1)
    {
      snprintf (err, err_size, "Landlock is unavailable: %s", why);
      ow_guard_free (guard);
      return NULL;
    }
  guard->as_root = getuid () == 0;
  snprintf (guard->uid_map, sizeof guard->uid_map, "%u %u 1\n", (unsigned) getuid (), (unsigned) getuid ());
  snprintf (guard->gid_map, sizeof guard->gid_map, "%u %u 1\n", (unsigned) getgid (), (unsigned) getgid ());

  for (size_t i = 0; spec->writable != NULL && spec->writable[i] != NULL; i++)
    {
      char *real = realpath (spec->writable[i], NULL);

      if (real == NULL)
        continue;
      list_add (&guard->writable, real);
      /* A writable /tmp is the person's choice: keep the real one. */
      if (strcmp (real, "/tmp") == 0)
        private_tmp = 0;
      free (real);
    }
  for (size_t i = 0; spec->lift != NULL && spec->lift[i] != NULL; i++)
    list_add (&guard->writable, spec->lift[i]);
  if (spec->cache_dir != NULL)
    {
      char path[4096];

      /* mkdir -p, owner only. */
      snprintf (path, sizeof path, "%s", spec->cache_dir);
      for (char *p = path + 1; *p != '\0'; p++)
        if (*p == '/')
          {
            *p = '\0';
            mkdir (path, 0700);
            *p = '/';
          }
      mkdir (path, 0700);
      if (stat (path, &st) == 0 && S_ISDIR (st.st_mode))
        list_add (&guard->writable, path);
    }
  if (private_tmp)
    {
      guard->tmp_dir = realpath (spec->tmp_dir, NULL);
      if (guard->tmp_dir == NULL)
        {
          snprintf (err, err_size, "the guard's private temporary folder %s is missing: %s", spec->tmp_dir,
                    strerror (errno));
          ow_guard_free (guard);
          return NULL;
        }
      for (size_t i = 0; i < guard->writable.n; i++)
        if (under (guard->writable.items[i], "/tmp") && guard->tmp_rebinds.n < MAX_TMP_REBINDS)
          list_add (&guard->tmp_rebinds, guard->writable.items[i]);
      /* The X display's sockets (/tmp/.X11-unix) stay out: a client of
       * the person's display can type into the person's terminal, which
       * is outside the guard. (Landlock scopes the abstract X socket.) */
      list_add (&guard->writable, "/tmp");
    }

  for (size_t i = 0; spec->hidden != NULL && spec->hidden[i] != NULL; i++)
    {
      const char *path = spec->hidden[i];

      /* Under a private /tmp a hidden path there is gone already. */
      if (guard->tmp_dir != NULL && under (path, "/tmp"))
        {
          int rebound = 0;
          for (size_t j = 0; j < guard->tmp_rebinds.n; j++)
            rebound |= under (path, guard->tmp_rebinds.items[j]);
          if (!rebound)
            continue;
        }
      if (stat (path, &st) != 0)
        continue;
      /* A folder holding one of the session's own folders stays: masking it
       * would take the session's folder away (the parser still guards it). */
      {
        int holds_root = 0;
        for (size_t j = 0; j < guard->writable.n && !holds_root; j++)
          holds_root = under (guard->writable.items[j], path);
        if (holds_root)
          continue;
      }
      list_add (S_ISDIR (st.st_mode) ? &guard->hide_dirs : &guard->hide_files, path);
    }
  /* The engine's own /proc entry: its environment and memory hold the
   * keys. Not dumpable keeps other users and non-root out; root passes
   * that check (and Landlock's ptrace scope does not cover /proc reads on
   * every kernel), so the entry is masked too. */
  {
    char self[64];

    snprintf (self, sizeof self, "/proc/%d", (int) getpid ());
    list_add (&guard->hide_dirs, self);
  }
  for (size_t i = 0; i < guard->writable.n; i++)
    {
      const char *root = guard->writable.items[i];
      int lifted = 0;

      if (strcmp (root, "/tmp") == 0 || (spec->cache_dir != NULL && strcmp (root, spec->cache_dir) == 0))
        continue;
      for (size_t j = 0; spec->lift != NULL && spec->lift[j] != NULL; j++)
        lifted |= strcmp (spec->lift[j], root) == 0;
      if (!lifted)
        protect_root (guard, root, spec->protected_names);
    }
  for (size_t i = 0; spec->readonly != NULL && spec->readonly[i] != NULL; i++)
    if (lstat (spec->readonly[i], &st) == 0 && !S_ISLNK (st.st_mode))
      list_add (&guard->ro_binds, spec->readonly[i]);
  /* A person's allowance for this command wins over protection. */
  for (size_t j = 0; spec->lift != NULL && spec->lift[j] != NULL; j++)
    for (size_t i = 0; i < guard->ro_binds.n; i++)
      if (under (spec->lift[j], guard->ro_binds.items[i]) || under (guard->ro_binds.items[i], spec->lift[j]))
        {
          free (guard->ro_binds.items[i]);
          guard->ro_binds.items[i] = guard->ro_binds.items[--guard->ro_binds.n];
          guard->ro_binds.items[guard->ro_binds.n] = NULL;
          i--;
        }

  if (build_bpf (guard, err, err_size) != 0)
    {
      ow_guard_free (guard);
      return NULL;
    }
  pin_paths (guard);
  return guard;
}

void
ow_guard_free (OwGuard *guard)
{
  if (guard == NULL)
    return;
  list_clear (&guard->writable);
  list_clear (&guard->hide_dirs);
  list_clear (&guard->hide_files);
  list_clear (&guard->self_binds);
  list_clear (&guard->ro_binds);
  list_clear (&guard->mkdirs);
  list_clear (&guard->tmp_rebinds);
  free (guard->tmp_dir);
  free (guard->pin_dev);
  free (guard->pin_ino);
  free (guard->pin_ctime);
  free (guard->bpf);
  free (guard);
}

/* ---- the child side: system calls only ---- */

static int
fail (char *err, size_t err_size, const char *what, const char *path, int errnum)
{
  const char *name = strerrorname_np (errnum);

  /* snprintf with %s and %d neither allocates nor locks in glibc. */
  snprintf (err, err_size, "the command guard could not be built: %s %s: %s", what,
            path != NULL ? path : "", name != NULL ? name : "error");
  return -1;
}

static int
write_file (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return -1;
  n = write (fd, text, strlen (text));
  close (fd);
  return n == (ssize_t) strlen (text) ? 0 : -1;
}

static int
bind_read_only (const char *source, const char *target)
{
  if (mount (source, target, NULL, MS_BIND | MS_REC, NULL) != 0)
    return -1;
  return ow_wall_set_mount_attrs (target, OW_MOUNT_ATTR_RDONLY, 0);
}

/* mkdir -p of @path, which lies under the private /tmp. */
static void
make_dirs (const char *path)
{
  char buf[4096];
  size_t n = strlen (path);

  if (n >= sizeof buf)
    return;
  memcpy (buf, path, n + 1);
  for (size_t i = 1; i < n; i++)
    if (buf[i] == '/')
      {
        buf[i] = '\0';
        mkdir (buf, 0700);
        buf[i] = '/';
      }
  mkdir (buf, 0700);
}

static int
landlock_add (int ruleset, const char *path, uint64_t access)
{
  OwLlPathBeneathAttr attr;
  struct stat st;
  int fd = open (path, O_PATH | O_CLOEXEC);
  int rc = 0;

  if (fd < 0)
    return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
  if (fstat (fd, &st) == 0 && !S_ISDIR (st.st_mode))
    access &= OW_LL_FILE_RIGHTS;
  attr.allowed_access = access;
  attr.parent_fd = fd;
  if (access != 0 && syscall (OW_SYS_landlock_add_rule, ruleset, OW_LL_RULE_PATH_BENEATH, &attr, 0) != 0)
    rc = -1;
  close (fd);
  return rc;
}

static int
apply_landlock (const OwGuard *guard, char *err, size_t err_size)
{
  static const char *const devices[] = {
    "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", NULL,
  };
  uint64_t all = ow_wall_landlock_fs_rights (guard->abi);
  uint64_t read_exec = OW_LL_FS_EXECUTE | OW_LL_FS_READ_FILE | OW_LL_FS_READ_DIR;
  uint64_t device = (OW_LL_FS_READ_FILE | OW_LL_FS_WRITE_FILE | OW_LL_FS_IOCTL_DEV) & all;
  OwLlRulesetAttr attr;
  size_t attr_size = sizeof attr.handled_access_fs;
  int ruleset, rc = 0;

  memset (&attr, 0, sizeof attr);
  attr.handled_access_fs = all;
  if (guard->abi >= 4)
    attr_size = offsetof (OwLlRulesetAttr, scoped);
  if (guard->abi >= 6)
    {
      /* Abstract Unix sockets (an older D-Bus session bus, the keyring's
       * agents) stay out of reach; path sockets are files like others. */
      attr.scoped = OW_LL_SCOPE_ABSTRACT_UNIX_SOCKET;
      attr_size = sizeof attr;
    }
  ruleset = (int) syscall (OW_SYS_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0)
    return fail (err, err_size, "create a Landlock ruleset", NULL, errno);

  rc |= landlock_add (ruleset, "/", read_exec);
  for (size_t i = 0; rc == 0 && devices[i] != NULL; i++)
    rc |= landlock_add (ruleset, devices[i], device);
  if (rc == 0)
    rc |= landlock_add (ruleset, "/dev/pts", device | OW_LL_FS_READ_DIR);
  if (rc == 0)
    rc |= landlock_add (ruleset, "/dev/shm", all);
  for (size_t i = 0; rc == 0 && i < guard->writable.n; i++)
    if (landlock_add (ruleset, guard->writable.items[i], all) != 0)
      {
        int e = errno;
        close (ruleset);
        return fail (err, err_size, "grant writing to", guard->writable.items[i], e);
      }
  if (rc != 0)
    {
      int e = errno;
      close (ruleset);
      return fail (err, err_size, "grant a device", NULL, e);
    }
  if (syscall (OW_SYS_landlock_restrict_self, ruleset, 0) != 0)
    {
      int e = errno;
      close (ruleset);
      return fail (err, err_size, "apply Landlock", NULL, e);
    }
  close (ruleset);
  return 0;
}

int
ow_guard_child_enter (void *data, char *err, size_t err_size)
{
  const OwGuard *guard = data;
  int rebind_fds[MAX_TMP_REBINDS + 1];
  size_t n_rebind = 0;

  if (guard->as_root)
    {
      if (unshare (CLONE_NEWNS) != 0)
        return fail (err, err_size, "make a mount namespace", NULL, errno);
    }
  else
    {
      if (unshare (CLONE_NEWUSER | CLONE_NEWNS) != 0)
        return fail (err, err_size, "make a user and mount namespace", NULL, errno);
      if (write_file ("/proc/self/setgroups", "deny") != 0
          || write_file ("/proc/self/uid_map", guard->uid_map) != 0
          || write_file ("/proc/self/gid_map", guard->gid_map) != 0)
        return fail (err, err_size, "map the user into its namespace", NULL, errno);
    }
  /* Host mounts (a USB disk) still arrive; ours never leave. */
  if (mount (NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
    return fail (err, err_size, "detach the mount tree", NULL, errno);

  if (guard->tmp_dir != NULL)
    {
      for (size_t i = 0; i < guard->tmp_rebinds.n; i++)
        {
          int fd = open (guard->tmp_rebinds.items[i], O_PATH | O_CLOEXEC | O_DIRECTORY);
          if (fd < 0)
            return fail (err, err_size, "open", guard->tmp_rebinds.items[i], errno);
          rebind_fds[n_rebind++] = fd;
        }
      if (mount (guard->tmp_dir, "/tmp", NULL, MS_BIND, NULL) != 0)
        return fail (err, err_size, "make /tmp private", NULL, errno);
      for (size_t i = 0; i < n_rebind; i++)
        {
          char source[64];

          snprintf (source, sizeof source, "/proc/self/fd/%d", rebind_fds[i]);
          make_dirs (guard->tmp_rebinds.items[i]);
          if (mount (source, guard->tmp_rebinds.items[i], NULL, MS_BIND | MS_REC, NULL) != 0)
            return fail (err, err_size, "bring back", guard->tmp_rebinds.items[i], errno);
          close (rebind_fds[i]);
        }
    }

  for (size_t i = 0; i < guard->hide_dirs.n; i++)
    if (mount ("tmpfs", guard->hide_dirs.items[i], "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
               "size=4k,mode=0555") != 0)
      return fail (err, err_size, "hide", guard->hide_dirs.items[i], errno);
  for (size_t i = 0; i < guard->hide_files.n; i++)
    if (bind_read_only ("/dev/null", guard->hide_files.items[i]) != 0)
      return fail (err, err_size, "hide", guard->hide_files.items[i], errno);
  for (size_t i = 0; i < guard->mkdirs.n; i++)
    mkdir (guard->mkdirs.items[i], 0755);
  for (size_t i = 0; i < guard->self_binds.n; i++)
    if (mount (guard->self_binds.items[i], guard->self_binds.items[i], NULL, MS_BIND | MS_REC, NULL) != 0)
      return fail (err, err_size, "pin", guard->self_binds.items[i], errno);
  for (size_t i = 0; i < guard->ro_binds.n; i++)
    if (bind_read_only (guard->ro_binds.items[i], guard->ro_binds.items[i]) != 0 && errno != ENOENT)
      return fail (err, err_size, "keep read-only", guard->ro_binds.items[i], errno);

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return fail (err, err_size, "set no_new_privs", NULL, errno);
  if (apply_landlock (guard, err, err_size) != 0)
    return -1;
  {
    struct sock_fprog prog = { .len = guard->bpf_len, .filter = guard->bpf };

    if (prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
      return fail (err, err_size, "load the seccomp filter", NULL, errno);
  }
  return 0;
}

/* ---- availability ---- */

static int  available_known = 0;
static int  available_value = 0;
static char available_why[256];

int
ow_guard_available (char *why, size_t why_size)
{
  if (!available_known)
    {
      char tmp[] = "/tmp/ow-guard-probe-XXXXXX";
      char err[512] = "";
      const char *writable[] = { tmp, NULL };
      OwGuardSpec spec = { .writable = writable };
      OwGuard *guard;

      available_known = 1;
      if (mkdtemp (tmp) == NULL)
        {
          snprintf (available_why, sizeof available_why, "cannot make a folder to try the guard in: %s",
                    strerror (errno));
          goto out;
        }
      spec.tmp_dir = tmp;
      guard = ow_guard_new (&spec, err, sizeof err);
      if (guard != NULL)
        {
          int pipefd[2];
          pid_t pid;

          if (pipe2 (pipefd, O_CLOEXEC) != 0)
            snprintf (err, sizeof err, "cannot try the guard: %s", strerror (errno));
          else if ((pid = fork ()) == 0)
            {
              char child_err[400];
              int rc = ow_guard_child_enter (guard, child_err, sizeof child_err);

              if (rc != 0)
                {
                  ssize_t unused = write (pipefd[1], child_err, strlen (child_err));
                  (void) unused;
                }
              _exit (rc == 0 ? 0 : 1);
            }
          else
            {
              int status = 0;
              ssize_t n;

              close (pipefd[1]);
              n = read (pipefd[0], err, sizeof err - 1);
              err[n > 0 ? n : 0] = '\0';
              close (pipefd[0]);
              while (pid > 0 && waitpid (pid, &status, 0) < 0 && errno == EINTR)
                ;
              if (pid > 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0)
                available_value = 1;
              else if (err[0] == '\0')
                snprintf (err, sizeof err, "the trial guard did not start");
            }
          ow_guard_free (guard);
        }
      rmdir (tmp);
      if (!available_value)
        snprintf (available_why, sizeof available_why, "%s", err);
    }
out:
  if (why != NULL && why_size > 0)
    snprintf (why, why_size, "%s", available_value ? "" : available_why);
  return available_value;
}

const char *
ow_guard_describe (void)
{
  static char text[128];

  if (text[0] == '\0')
    snprintf (text, sizeof text, "guard (%s namespace, Landlock ABI %d, seccomp)",
              getuid () == 0 ? "mount" : "user and mount", ow_wall_landlock_abi (NULL, 0));
  return text;
}

static void *
impl_create (const OwTbGuardSpec *spec, char *err, size_t err_size)
{
  return ow_guard_new (spec, err, err_size);
}

static int
impl_stale (const void *guard)
{
  return ow_guard_stale (guard);
}

static void
impl_destroy (void *guard)
{
  ow_guard_free (guard);
}

const OwTbGuardImpl *
ow_guard_impl (void)
{
  static const OwTbGuardImpl impl = {
    .create = impl_create,
    .enter = ow_guard_child_enter,
    .destroy = impl_destroy,
    .stale = impl_stale,
    .available = ow_guard_available,
    .describe = ow_guard_describe,
  };
  return &impl;
}
