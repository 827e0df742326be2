/* ow-tb-proc.c: starting programs and running them to completion.
 *
 * grep (ripgrep) and the git tools run one program with an argv — never
 * through a shell, so no argument can be reinterpreted — and capture its
 * output with a timeout. The shell reuses the spawning part.
 *
 * Programs are started with posix_spawn rather than fork: the engine is a
 * large multi-threaded GLib process, and glibc's posix_spawn uses a
 * vfork-style clone that neither copies page tables nor runs code that
 * is unsafe after fork in a threaded program. Every child gets its own
 * session (so it and everything it starts can be killed as one process
 * group), default signal dispositions (the engine ignores SIGPIPE, which
 * would otherwise leak into `yes | head`) and an empty signal mask.
 *
 * Waiting uses poll() on the output pipes, the caller's cancel fd and a
 * pidfd for the child: no sleeping, and a cancel is seen at once.
 */
#include "ow-tb-private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int
ow_tb_cancelled (int cancel_fd)
{
  struct pollfd pfd = { cancel_fd, POLLIN, 0 };

  if (cancel_fd < 0)
    return 0;
  if (poll (&pfd, 1, 0) <= 0)
    return 0;
  return (pfd.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

int
ow_tb_wait_status_code (int status)
{
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return -1;
}

int
ow_tb_pidfd_open (pid_t pid)
{
#ifdef SYS_pidfd_open
  long fd = syscall (SYS_pidfd_open, pid, 0);

  return fd < 0 ? -1 : (int) fd;
#else
  (void) pid;
  return -1;
#endif
}

/* 1 when "NAME=…" entry @var is for @name (given as "NAME" or "NAME=…"). */
static int
same_variable (const char *var, const char *name)
{
  size_t n = strcspn (name, "=");

  return strncmp (var, name, n) == 0 && var[n] == '=';
}

char **
ow_tb_env_build (const char *const *base, const char *const *set, const char *const *unset)
{
  const char *const *src = base != NULL ? base : (const char *const *) environ;
  size_t n_src = 0, n_set = 0, k = 0;
  char **envp;

  while (src[n_src] != NULL)
    n_src++;
  while (set != NULL && set[n_set] != NULL)
    n_set++;
  envp = ow_tb_xcalloc (n_src + n_set + 1, sizeof *envp);
  for (size_t i = 0; i < n_src; i++)
    {
      int drop = 0;

      for (size_t j = 0; j < n_set && !drop; j++)
        drop = same_variable (src[i], set[j]);
      for (size_t j = 0; unset != NULL && unset[j] != NULL && !drop; j++)
        drop = same_variable (src[i], unset[j]);
      if (!drop)
        envp[k++] = ow_tb_xstrdup (src[i]);
    }
  for (size_t j = 0; j < n_set; j++)
    envp[k++] = ow_tb_xstrdup (set[j]);
  envp[k] = NULL;
  return envp;
}

void
ow_tb_env_free (char **envp)
{
  if (envp == NULL)
    return;
  for (size_t i = 0; envp[i] != NULL; i++)
    free (envp[i]);
  free (envp);
}

/* The PATH a child will search: the one in @envp when given. */
static const char *
path_variable (const char *const *envp)
{
  const char *path = NULL;

  if (envp != NULL)
    {
      for (size_t i = 0; envp[i] != NULL; i++)
        if (strncmp (envp[i], "PATH=", 5) == 0)
          path = envp[i] + 5;
    }
  else
    path = getenv ("PATH");
  return path != NULL ? path : "/usr/local/bin:/usr/bin:/bin";
}

static int
is_executable_file (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISREG (st.st_mode) && access (path, X_OK) == 0;
}

char *
ow_tb_find_program (const char *name, const char *const *envp)
{
  const char *path, *p;

  if (strchr (name, '/') != NULL)
    return is_executable_file (name) ? ow_tb_xstrdup (name) : NULL;
  path = path_variable (envp);
  p = path;
  for (;;)
    {
      const char *end = strchr (p, ':');
      size_t dlen = end != NULL ? (size_t) (end - p) : strlen (p);
      char *candidate;

      /* An empty PATH entry means the current folder; a tool body must
       * not run whatever happens to sit there, so it is skipped. */
      if (dlen > 0)
        {
          candidate = ow_tb_strdup_printf ("%.*s/%s", (int) dlen, p, name);
          if (is_executable_file (candidate))
            return candidate;
          free (candidate);
        }
      if (end == NULL)
        break;
      p = end + 1;
    }
  return NULL;
}

/* posix_spawn applies dup2s in order, so a source descriptor that is
 * itself one of 0..3 could be overwritten before it is used. Such a
 * descriptor (the runner may have closed its stdio) is moved up first. */
static int
lift_fd (int fd, int *owned)
{
  int lifted;

  *owned = -1;
  if (fd < 0 || fd > 3)
    return fd;
  lifted = fcntl (fd, F_DUPFD_CLOEXEC, 10);
  if (lifted < 0)
    return fd;
  *owned = lifted;
  return lifted;
}

int
ow_tb_spawn (const char *path, const char *const *argv,
             const char *const *envp, const char *cwd,
             int fd0, int fd1, int fd2, int fd3, pid_t *pid)
{
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  sigset_t all, none;
  int owned[4];
  int fds[4];
  int rc;

  fds[0] = lift_fd (fd0, &owned[0]);
  fds[1] = lift_fd (fd1, &owned[1]);
  fds[2] = lift_fd (fd2, &owned[2]);
  fds[3] = lift_fd (fd3, &owned[3]);

  posix_spawn_file_actions_init (&fa);
  for (int i = 0; i < 3; i++)
    {
      if (fds[i] >= 0)
        posix_spawn_file_actions_adddup2 (&fa, fds[i], i);
      else
        posix_spawn_file_actions_addopen (&fa, i, "/dev/null", i == 0 ? O_RDONLY : O_WRONLY, 0);
    }
  if (fds[3] >= 0)
    posix_spawn_file_actions_adddup2 (&fa, fds[3], 3);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  /* Our own descriptors are close-on-exec, but other threads of the
   * engine may open some that are not; none of them belongs in a child. */
  posix_spawn_file_actions_addclosefrom_np (&fa, fds[3] >= 0 ? 4 : 3);
#endif
  if (cwd != NULL)
    posix_spawn_file_actions_addchdir_np (&fa, cwd);

  posix_spawnattr_init (&attr);
  sigfillset (&all);
  sigemptyset (&none);
  posix_spawnattr_setsigdefault (&attr, &all);
  posix_spawnattr_setsigmask (&attr, &none);
  posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF
                                       | POSIX_SPAWN_SETSIGMASK);

  rc = posix_spawn (pid, path, &fa, &attr, (char *const *) argv,
                    envp != NULL ? (char *const *) envp : environ);

  posix_spawnattr_destroy (&attr);
  posix_spawn_file_actions_destroy (&fa);
  for (int i = 0; i < 4; i++)
    if (owned[i] >= 0)
      close (owned[i]);
  return rc;
}

/* What a guarded child reports through its status pipe before exec. */
typedef struct {
  int  code;        /* an errno; EPERM when the setup failed */
  char text[500];   /* the setup's sentence, or "" */
} ChildReport;

static void
child_report (int fd, int code, const char *text)
{
  ChildReport report;
  ssize_t unused;

  memset (&report, 0, sizeof report);
  report.code = code;
  if (text != NULL)
    strncpy (report.text, text, sizeof report.text - 1);
  unused = write (fd, &report, sizeof report);
  (void) unused;
  _exit (127);
}

/* Puts @fd at @target in the child; a descriptor already at its place
 * loses close-on-exec instead. */
static int
child_place_fd (int fd, int target)
{
  if (fd == target)
    return fcntl (fd, F_SETFD, 0);
  return dup2 (fd, target) < 0 ? -1 : 0;
}

/* ---- the guards' namespaces ---- */

static pthread_mutex_t guard_ns_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long  *guard_ns;       /* inode numbers, unsorted */
static size_t          n_guard_ns;

static void
remember_namespace (pid_t pid)
{
  char path[64], link[64];
  unsigned long ino = 0;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/ns/mnt", (int) pid);
  n = readlink (path, link, sizeof link - 1);
  if (n <= 0)
    return;
  link[n] = '\0';
  if (sscanf (link, "mnt:[%lu]", &ino) != 1)
    return;
  pthread_mutex_lock (&guard_ns_lock);
  for (size_t i = 0; i < n_guard_ns; i++)
    if (guard_ns[i] == ino)
      {
        pthread_mutex_unlock (&guard_ns_lock);
        return;
      }
  guard_ns = ow_tb_xrealloc (guard_ns, (n_guard_ns + 1) * sizeof *guard_ns);
  guard_ns[n_guard_ns++] = ino;
  pthread_mutex_unlock (&guard_ns_lock);
}

int
ow_tb_guard_namespace_known (unsigned long ino)
{
  int known = 0;

  pthread_mutex_lock (&guard_ns_lock);
  for (size_t i = 0; i < n_guard_ns && !known; i++)
    known = guard_ns[i] == ino;
  pthread_mutex_unlock (&guard_ns_lock);
  return known;
}

int
ow_tb_spawn_setup (const char *path, const char *const *argv,
                   const char *const *envp, const char *cwd,
                   int fd0, int fd1, int fd2, int fd3, pid_t *pid,
                   OwTbChildSetup setup, void *setup_data,
                   char *err, size_t err_size)
{
  int owned[4], fds[4], status_pipe[2];
  ChildReport report;
  ssize_t n;
  pid_t child;

  if (setup == NULL)
    return ow_tb_spawn (path, argv, envp, cwd, fd0, fd1, fd2, fd3, pid);

  fds[0] = lift_fd (fd0, &owned[0]);
  fds[1] = lift_fd (fd1, &owned[1]);
  fds[2] = lift_fd (fd2, &owned[2]);
  fds[3] = lift_fd (fd3, &owned[3]);
  if (pipe2 (status_pipe, O_CLOEXEC) != 0)
    {
      int e = errno;
      for (int i = 0; i < 4; i++)
        if (owned[i] >= 0)
          close (owned[i]);
      return e;
    }

  /* fork, not posix_spawn: the guard must run between the two. The child
   * of a threaded process may only make system calls until exec, which is
   * all that happens below and in @setup. */
  child = fork ();
  if (child == 0)
    {
      struct sigaction dfl;
      sigset_t none;
      char msg[sizeof report.text];

      memset (&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      for (int sig = 1; sig < NSIG; sig++)
        sigaction (sig, &dfl, NULL);
      sigemptyset (&none);
      sigprocmask (SIG_SETMASK, &none, NULL);
      setsid ();
      for (int i = 0; i < 3; i++)
        {
          int fd = fds[i];

          if (fd < 0)
            fd = open ("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);
          if (fd < 0 || child_place_fd (fd, i) != 0)
            child_report (status_pipe[1], errno, NULL);
        }
      if (fds[3] >= 0 && child_place_fd (fds[3], 3) != 0)
        child_report (status_pipe[1], errno, NULL);
      /* Keep only 0..3 and the status pipe (close-on-exec). */
      {
        int first = fds[3] >= 0 ? 4 : 3;

        if (status_pipe[1] > first)
          syscall (SYS_close_range, first, status_pipe[1] - 1, 0);
        syscall (SYS_close_range, status_pipe[1] + 1, ~0U, 0);
      }
      msg[0] = '\0';
      if (setup (setup_data, msg, sizeof msg) != 0)
        child_report (status_pipe[1], EPERM, msg[0] != '\0' ? msg : "the command guard could not be built");
      if (cwd != NULL && chdir (cwd) != 0)
        child_report (status_pipe[1], errno, NULL);
      execve (path, (char *const *) argv, envp != NULL ? (char *const *) envp : environ);
      child_report (status_pipe[1], errno, NULL);
    }

  close (status_pipe[1]);
  for (int i = 0; i < 4; i++)
    if (owned[i] >= 0)
      close (owned[i]);
  if (child < 0)
    {
      int e = errno;
      close (status_pipe[0]);
      return e;
    }
  do
    n = read (status_pipe[0], &report, sizeof report);
  while (n < 0 && errno == EINTR);
  close (status_pipe[0]);
  if (n <= 0)
    {
      /* End of file without a report: exec succeeded, so the child is in
       * its namespace by now. */
      *pid = child;
      remember_namespace (child);
      return 0;
    }
  while (waitpid (child, NULL, 0) < 0 && errno == EINTR)
    ;
  report.text[sizeof report.text - 1] = '\0';
  if (err != NULL && err_size > 0)
    snprintf (err, err_size, "%s", report.text);
  return report.code != 0 ? report.code : EIO;
}

void
ow_tb_proc_result_init (OwTbProcResult *res)
{
  memset (res, 0, sizeof *res);
  ow_tb_buf_init (&res->out);
  ow_tb_buf_init (&res->err);
  res->exit_code = -1;
}

void
ow_tb_proc_result_clear (OwTbProcResult *res)
{
  ow_tb_buf_free (&res->out);
  ow_tb_buf_free (&res->err);
}

/* Reads what is available on @fd into @into (up to @max bytes kept).
 * Returns 0 at end of file, 1 otherwise. */
static int
drain_fd (int fd, OwTbBuf *into, size_t max, int *truncated)
{
  char chunk[16384];

  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n == 0)
        return 0;
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return errno == EAGAIN ? 1 : 0;
        }
      if (into->len < max)
        {
          size_t keep = (size_t) n;

          if (keep > max - into->len)
            {
              keep = max - into->len;
              *truncated = 1;
            }
          ow_tb_buf_append (into, chunk, keep);
        }
      else
        *truncated = 1;
    }
}

int
ow_tb_proc_run (const OwTbProcSpec *spec, OwTbProcResult *res)
{
  int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };
  int out_open, err_open, exited = 0, pidfd, status = 0;
  int64_t deadline = spec->timeout_ms > 0 ? ow_tb_now_ms () + spec->timeout_ms : 0;
  char *program;
  pid_t pid;
  int rc;

  program = ow_tb_find_program (spec->argv[0], spec->envp);
  if (program == NULL)
    {
      res->spawn_errno = ENOENT;
      res->not_found = 1;
      return -1;
    }
  if (pipe2 (out_pipe, O_CLOEXEC) != 0 || pipe2 (err_pipe, O_CLOEXEC) != 0)
    {
      res->spawn_errno = errno;
      free (program);
      if (out_pipe[0] >= 0)
        {
          close (out_pipe[0]);
          close (out_pipe[1]);
        }
      return -1;
    }
  rc = ow_tb_spawn (program, spec->argv, spec->envp, spec->cwd, -1, out_pipe[1], err_pipe[1], -1,
                    &pid);
  free (program);
  close (out_pipe[1]);
  close (err_pipe[1]);
  if (rc != 0)
    {
      close (out_pipe[0]);
      close (err_pipe[0]);
      res->spawn_errno = rc;
      return -1;
    }
  fcntl (out_pipe[0], F_SETFL, O_NONBLOCK);
  fcntl (err_pipe[0], F_SETFL, O_NONBLOCK);
  pidfd = ow_tb_pidfd_open (pid);
  out_open = err_open = 1;

  /* Until the program exits (seen on the pidfd), or, without a pidfd,
   * until both pipes are closed. */
  while (out_open || err_open || pidfd >= 0)
    {
      struct pollfd pfds[4];
      int n = 0, i_out = -1, i_err = -1, i_cancel = -1, i_pid = -1;
      int wait_ms = -1;

      if (out_open)
        {
          i_out = n;
          pfds[n++] = (struct pollfd) { out_pipe[0], POLLIN, 0 };
        }
      if (err_open)
        {
          i_err = n;
          pfds[n++] = (struct pollfd) { err_pipe[0], POLLIN, 0 };
        }
      if (spec->cancel_fd >= 0)
        {
          i_cancel = n;
          pfds[n++] = (struct pollfd) { spec->cancel_fd, POLLIN, 0 };
        }
      if (pidfd >= 0)
        {
          i_pid = n;
          pfds[n++] = (struct pollfd) { pidfd, POLLIN, 0 };
        }
      if (deadline > 0)
        {
          int64_t left = deadline - ow_tb_now_ms ();

          wait_ms = left > 0 ? (int) left : 0;
        }
      rc = poll (pfds, (nfds_t) n, wait_ms);
      if (rc < 0 && errno == EINTR)
        continue;
      if (deadline > 0 && (rc == 0 || ow_tb_now_ms () >= deadline))
        {
          /* Checked even when there was output: a program that never
           * stops printing must still time out. */
          res->timed_out = 1;
          break;
        }
      if (i_cancel >= 0 && (pfds[i_cancel].revents & (POLLIN | POLLHUP | POLLERR)))
        {
          res->cancelled = 1;
          break;
        }
      if (i_out >= 0 && pfds[i_out].revents)
        out_open = drain_fd (out_pipe[0], &res->out, spec->max_stdout, &res->out_truncated);
      if (i_err >= 0 && pfds[i_err].revents)
        err_open = drain_fd (err_pipe[0], &res->err, spec->max_stderr, &res->err_truncated);
      if (spec->stop_when_full && res->out_truncated)
        break;
      if (i_pid >= 0 && pfds[i_pid].revents)
        {
          /* The program is gone. Whatever it wrote is in the pipes now;
           * a grandchild that kept them open must not hold us up. */
          exited = 1;
          if (out_open)
            drain_fd (out_pipe[0], &res->out, spec->max_stdout, &res->out_truncated);
          if (err_open)
            drain_fd (err_pipe[0], &res->err, spec->max_stderr, &res->err_truncated);
          break;
        }
    }

  /* Stopped early (timeout, cancel, enough output): the whole group goes,
   * so nothing it started keeps running unseen. */
  if (!exited && (res->timed_out || res->cancelled || (spec->stop_when_full && res->out_truncated)))
    kill (-pid, SIGKILL);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  res->exit_code = ow_tb_wait_status_code (status);
  close (out_pipe[0]);
  close (err_pipe[0]);
  if (pidfd >= 0)
    close (pidfd);
  return 0;
}
