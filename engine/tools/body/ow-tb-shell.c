/* ow-tb-shell.c: run_shell's persistent shell and background tasks.
 *
 * Each session has one long-lived bash, so `cd` and `export` carry over
 * from one command to the next the way they do for a person at a
 * terminal. bash is started on first use, in its own session (so it and
 * everything it starts form one process group we can kill), with the
 * session's environment plus a few variables that stop tools from waiting
 * for input nobody will type.
 *
 * How a command runs. bash reads commands from a socket (its stdin); its
 * stdout and stderr share one pipe; fd 3 is a separate "trailer" pipe.
 * Each command is sent as
 *
 *   eval '<command, single-quoted>' </dev/null 2>&1 3>&-;
 *     printf '<marker> <seq> %s %s\0' "$?" "$PWD" >&3
 *
 * - eval of a quoted string means a command with an unbalanced quote or
 *   a trailing backslash is a syntax error in eval (exit 2, message in
 *   the output) instead of swallowing the trailer and hanging the shell;
 * - </dev/null keeps the command from reading the shell's own command
 *   stream; 3>&- keeps the trailer pipe out of the command's processes;
 * - the trailer goes to its own pipe, so nothing the command prints can
 *   fake or corrupt it, and `exec >file` in a command cannot stop it;
 *   every byte the command wrote is already in the output pipe when the
 *   trailer arrives, so the output is complete after one final drain.
 * The trailer carries a random per-shell marker and the command's number,
 * so a late trailer from an earlier, interrupted command is never taken
 * for the current one.
 *
 * On the hot path (a warm shell, a builtin like `echo x >> f`) a call
 * costs a few poll/read/send calls plus bash's own work: no helper
 * processes, no /proc access. Only interruption walks /proc.
 *
 * Timeout and cancel: every descendant of bash gets SIGINT (as Ctrl-C
 * would give them) and bash gets 50 ms to print its trailer. If it does
 * not (a loop, a program ignoring SIGINT), the whole process group is
 * killed and the shell is marked dead; the next command starts a new
 * bash in the last known folder and says that shell state was reset.
 *
 * Background tasks are separate `bash -c` processes in their own
 * sessions, writing to an unlinked temporary file that only we can read.
 * Their exit status is observed with waitid(WNOWAIT) so the process
 * stays a zombie until we are done with it: its pid (and so its process
 * group id) cannot be reused, and killing the group later can never hit
 * an unrelated process.
 */
#include "ow-tb-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHELL_DEFAULT_TIMEOUT_S 120
#define SHELL_MAX_TIMEOUT_S     600
/* How long bash gets to print its trailer after its children were interrupted. */
#define SHELL_INTERRUPT_GRACE_MS 50
#define TASK_KILL_GRACE_MS      5000
/* Output is kept as bytes while a command runs; this bounds the memory
 * (enough for OW_TB_OUTPUT_LIMIT characters of any UTF-8, twice over). */
#define OUTPUT_KEEP_BYTES       (OW_TB_OUTPUT_LIMIT * 8)

/* A background task started with run_in_background. */
typedef struct {
  unsigned id;        /* the N of "bg-N" */
  pid_t    pid;       /* its bash -c, also its process group and session id */
  int      out_fd;    /* the unlinked temporary file it writes to */
  off_t    read_off;  /* how much of it shell_task_output has returned */
  char    *command;   /* what it runs (owned) */
  int      exited;    /* it has exited (still unreaped unless @reaped) */
  int      exit_code; /* when exited: status, or 128+N for signal N */
  int      killed;    /* shell_task_kill ended it */
  int      reaped;    /* waited for: its pid is no longer ours to signal */
} Task;

/* A guard waiting to be taken up by the next call (set_guard must not
 * wait for a running command: it is called from the main loop). */
typedef struct {
  int            set;         /* a change is waiting */
  OwTbChildSetup setup;
  void          *data;
  void         (*free_data) (void *data);
  char          *why;
  char         **env_set;     /* "NAME=value" entries to set at the same time (owned) */
} PendingGuard;

struct OwTbShell {
  pthread_mutex_t lock;       /* serializes calls on this shell */
  char          **envp;       /* environment of bash and of tasks (owned) */
  char           *start_cwd;  /* the folder given at creation (owned) */
  char           *cwd;        /* the last folder bash reported (owned) */
  pid_t           pid;        /* the running bash, or 0 */
  int             in_fd;      /* our end of bash's stdin socket: commands go here */
  int             out_fd;     /* read end of bash's stdout+stderr pipe */
  int             ctl_fd;     /* read end of bash's fd 3: the trailers */
  char            marker[33]; /* random hex token that starts every trailer */
  unsigned long   seq;        /* number of the latest command sent */
  OwTbBuf         ctl;        /* trailer bytes read but not yet parsed */
  char           *reset_note; /* said in the next result: why state was lost (owned) */
  Task           *tasks;      /* background tasks, oldest first (owned) */
  size_t          n_tasks;    /* how many tasks were started */
  unsigned        next_task;  /* the last task number handed out */
  OwTbChildSetup  guard;      /* run in every child before exec, or NULL */
  void           *guard_data; /* its argument (owned) */
  void          (*guard_free) (void *data);
  char            guard_error[512]; /* the guard's last refusal to start, or "" */
  pthread_mutex_t guard_lock; /* guards pending */
  PendingGuard    pending;    /* a guard or variables set while a call may be running */
};

extern char **environ;

/* ---- lifecycle ---- */

OwTbShell *
ow_tb_shell_new (const char *cwd, const char *const *envp)
{
  static const char *const additions[] = {
    "GIT_TERMINAL_PROMPT=0", "DEBIAN_FRONTEND=noninteractive", "PYTHONUNBUFFERED=1",
    "PIP_NO_INPUT=1", NULL,
  };
  OwTbShell *shell = ow_tb_xcalloc (1, sizeof *shell);

  pthread_mutex_init (&shell->lock, NULL);
  pthread_mutex_init (&shell->guard_lock, NULL);
  shell->envp = ow_tb_env_build (envp, additions, NULL);
  shell->start_cwd = ow_tb_xstrdup (cwd != NULL ? cwd : "/");
  shell->cwd = ow_tb_xstrdup (shell->start_cwd);
  shell->in_fd = shell->out_fd = shell->ctl_fd = -1;
  ow_tb_buf_init (&shell->ctl);
  return shell;
}

const char *const *
ow_tb_shell_envp (OwTbShell *shell)
{
  return (const char *const *) shell->envp;
}

static void shell_kill (OwTbShell *shell);


void
ow_tb_shell_set_guard (OwTbShell *shell, OwTbChildSetup setup, void *data,
                       void (*free_data) (void *data), const char *why)
{
  pthread_mutex_lock (&shell->guard_lock);
  if (shell->pending.set && shell->pending.free_data != NULL && shell->pending.data != NULL)
    shell->pending.free_data (shell->pending.data);
  free (shell->pending.why);
  shell->pending.set = 1;
  shell->pending.setup = setup;
  shell->pending.data = data;
  shell->pending.free_data = free_data;
  shell->pending.why = ow_tb_xstrdup (why != NULL ? why : "the shell's guard changed");
  pthread_mutex_unlock (&shell->guard_lock);
}

/* Takes up a waiting guard; called with shell->lock held, before a call
 * starts anything. */
static void
take_pending_guard (OwTbShell *shell)
{
  PendingGuard p;

  pthread_mutex_lock (&shell->guard_lock);
  p = shell->pending;
  memset (&shell->pending, 0, sizeof shell->pending);
  pthread_mutex_unlock (&shell->guard_lock);
  if (p.env_set != NULL)
    {
      char **envp = ow_tb_env_build ((const char *const *) shell->envp, (const char *const *) p.env_set, NULL);

      ow_tb_env_free (shell->envp);
      shell->envp = envp;
      ow_tb_env_free (p.env_set);
    }
  if (!p.set)
    return;
  if (shell->guard_free != NULL && shell->guard_data != NULL)
    shell->guard_free (shell->guard_data);
  shell->guard = p.setup;
  shell->guard_data = p.data;
  shell->guard_free = p.free_data;
  if (shell->pid > 0)
    {
      /* The namespace and Landlock of a running bash cannot change. */
      shell_kill (shell);
      free (shell->reset_note);
      shell->reset_note = ow_tb_strdup_printf ("%s; this is a new shell and shell state from earlier "
                                               "commands was reset", p.why);
    }
  free (p.why);
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* Kills bash's whole process group and forgets it. */
static void
shell_kill (OwTbShell *shell)
{
  if (shell->pid <= 0)
    return;
  kill (-shell->pid, SIGKILL);
  while (waitpid (shell->pid, NULL, 0) < 0 && errno == EINTR)
    ;
  shell->pid = 0;
  close_fd (&shell->in_fd);
  close_fd (&shell->out_fd);
  close_fd (&shell->ctl_fd);
  ow_tb_buf_reset (&shell->ctl);
}

/* bash's output or trailer pipe closed: it is exiting. Collects it and
 * forgets it; returns its exit code. Should it still be alive after all
 * (it closed its fds itself), it is killed rather than waited for. */
static int
shell_reap (OwTbShell *shell)
{
  int status = 0, pidfd;
  pid_t got;

  pidfd = ow_tb_pidfd_open (shell->pid);
  if (pidfd >= 0)
    {
      struct pollfd pfd = { pidfd, POLLIN, 0 };

      poll (&pfd, 1, 200);
      close (pidfd);
    }
  while ((got = waitpid (shell->pid, &status, WNOHANG)) < 0 && errno == EINTR)
    ;
  if (got == 0)
    {
      shell_kill (shell);
      return 128 + SIGKILL;
    }
  /* Its children (if any are left in the group) go with it. */
  kill (-shell->pid, SIGKILL);
  shell->pid = 0;
  close_fd (&shell->in_fd);
  close_fd (&shell->out_fd);
  close_fd (&shell->ctl_fd);
  ow_tb_buf_reset (&shell->ctl);
  return ow_tb_wait_status_code (status);
}

static void
task_reap (Task *task)
{
  if (task->reaped)
    return;
  while (waitpid (task->pid, NULL, 0) < 0 && errno == EINTR)
    ;
  task->reaped = 1;
}

void
ow_tb_shell_free (OwTbShell *shell)
{
  if (shell == NULL)
    return;
  shell_kill (shell);
  for (size_t i = 0; i < shell->n_tasks; i++)
    {
      Task *task = &shell->tasks[i];

      /* Even an exited task may have left processes in its group; the
       * group id is still ours while the leader is unreaped. */
      if (!task->reaped)
        {
          kill (-task->pid, SIGKILL);
          task_reap (task);
        }
      close_fd (&task->out_fd);
      free (task->command);
    }
  free (shell->tasks);
  ow_tb_env_free (shell->envp);
  free (shell->start_cwd);
  free (shell->cwd);
  free (shell->reset_note);
  if (shell->guard_free != NULL && shell->guard_data != NULL)
    shell->guard_free (shell->guard_data);
  if (shell->pending.free_data != NULL && shell->pending.data != NULL)
    shell->pending.free_data (shell->pending.data);
  free (shell->pending.why);
  ow_tb_env_free (shell->pending.env_set);
  ow_tb_buf_free (&shell->ctl);
  pthread_mutex_destroy (&shell->guard_lock);
  pthread_mutex_destroy (&shell->lock);
  free (shell);
}

static char *
bash_path (const char *const *envp)
{
  char *path;

  if (access ("/bin/bash", X_OK) == 0)
    return ow_tb_xstrdup ("/bin/bash");
  path = ow_tb_find_program ("bash", envp);
  return path != NULL ? path : ow_tb_xstrdup ("/bin/sh");
}

static void
random_hex (char *out, size_t n_bytes)
{
  static const char hex[] = "0123456789abcdef";
  unsigned char raw[32];
  size_t got = 0;

  if (n_bytes > sizeof raw)
    n_bytes = sizeof raw;
  while (got < n_bytes)
    {
      ssize_t n = getrandom (raw + got, n_bytes - got, 0);

      if (n <= 0)
        {
          /* No entropy source: the marker only has to be unguessable by
           * accident, not by an attacker (it is never trusted as a secret). */
          unsigned long long x = (unsigned long long) ow_tb_now_ms ()
                                 ^ ((unsigned long long) getpid () << 20);

          for (; got < n_bytes; got++, x = x * 6364136223846793005ull + 1442695040888963407ull)
            raw[got] = (unsigned char) (x >> 56);
          break;
        }
      got += (size_t) n;
    }
  for (size_t i = 0; i < n_bytes; i++)
    {
      out[2 * i] = hex[raw[i] >> 4];
      out[2 * i + 1] = hex[raw[i] & 15];
    }
  out[2 * n_bytes] = '\0';
}

void
ow_tb_shell_setenv (OwTbShell *shell, const char *const *set)
{
  char **merged;

  pthread_mutex_lock (&shell->guard_lock);
  merged = ow_tb_env_build (shell->pending.env_set != NULL ? (const char *const *) shell->pending.env_set
                                                           : (const char *const *) (char *[]) { NULL },
                            set, NULL);
  ow_tb_env_free (shell->pending.env_set);
  shell->pending.env_set = merged;
  pthread_mutex_unlock (&shell->guard_lock);
}

/* Why a start failed: the guard's own sentence when it refused. */
static const char *
start_failure (OwTbShell *shell, int rc, char *scratch, size_t scratch_size)
{
  if (rc == EPERM && shell->guard != NULL && shell->guard_error[0] != '\0')
    return shell->guard_error;
  return ow_tb_strerror (rc, scratch, scratch_size);
}

/* Starts bash in shell->cwd (or, if that folder is gone, the first folder
 * and then "/"). Returns 0, or an errno with nothing started. */
static int
shell_start (OwTbShell *shell)
{
  const char *argv[] = { "bash", "--noprofile", "--norc", NULL };
  const char *dirs[3];
  int sv[2], out[2], ctl[2];
  char *path;
  int rc = 0;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return errno;
  if (pipe2 (out, O_CLOEXEC) != 0)
    {
      rc = errno;
      close (sv[0]);
      close (sv[1]);
      return rc;
    }
  if (pipe2 (ctl, O_CLOEXEC) != 0)
    {
      rc = errno;
      close (sv[0]);
      close (sv[1]);
      close (out[0]);
      close (out[1]);
      return rc;
    }
  path = bash_path ((const char *const *) shell->envp);
  dirs[0] = shell->cwd;
  dirs[1] = shell->start_cwd;
  dirs[2] = "/";
  for (int i = 0; i < 3; i++)
    {
      rc = ow_tb_spawn_setup (path, argv, (const char *const *) shell->envp, dirs[i], sv[1], out[1],
                              out[1], ctl[1], &shell->pid, shell->guard, shell->guard_data,
                              shell->guard_error, sizeof shell->guard_error);
      if (rc == 0)
        {
          if (i > 0)
            {
              char *note = ow_tb_strdup_printf ("the folder %s no longer exists; the shell started "
                                                "in %s", shell->cwd, dirs[i]);
              free (shell->reset_note);
              shell->reset_note = note;
              free (shell->cwd);
              shell->cwd = ow_tb_xstrdup (dirs[i]);
            }
          break;
        }
      if (rc != ENOENT && rc != ENOTDIR && rc != EACCES)
        break;
    }
  free (path);
  close (sv[1]);
  close (out[1]);
  close (ctl[1]);
  if (rc != 0)
    {
      close (sv[0]);
      close (out[0]);
      close (ctl[0]);
      shell->pid = 0;
      return rc;
    }
  shell->in_fd = sv[0];
  shell->out_fd = out[0];
  shell->ctl_fd = ctl[0];
  fcntl (shell->in_fd, F_SETFL, O_NONBLOCK);
  fcntl (shell->out_fd, F_SETFL, O_NONBLOCK);
  fcntl (shell->ctl_fd, F_SETFL, O_NONBLOCK);
  random_hex (shell->marker, 16);
  ow_tb_buf_reset (&shell->ctl);
  return 0;
}

/* ---- output ---- */

/* Reads what @fd has into @buf, keeping only the tail. Returns 0 at end
 * of file, 1 otherwise. */
static int
read_tail (int fd, OwTbBuf *buf, int *truncated)
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
      if (buf == NULL)
        continue;
      ow_tb_buf_append (buf, chunk, (size_t) n);
      if (buf->len > 2 * OUTPUT_KEEP_BYTES)
        {
          memmove (buf->data, buf->data + buf->len - OUTPUT_KEEP_BYTES, OUTPUT_KEEP_BYTES);
          buf->len = OUTPUT_KEEP_BYTES;
          buf->data[buf->len] = '\0';
          *truncated = 1;
        }
    }
}

/* Cuts @buf to its last OW_TB_OUTPUT_LIMIT characters. */
static void
keep_tail_chars (OwTbBuf *buf, int *truncated)
{
  size_t from = ow_tb_utf8_tail (buf->data, buf->len, OW_TB_OUTPUT_LIMIT);

  if (from == 0)
    return;
  memmove (buf->data, buf->data + from, buf->len - from);
  buf->len -= from;
  buf->data[buf->len] = '\0';
  *truncated = 1;
}

/* Looks in shell->ctl for the trailer of command @seq. Returns 1 and sets
 * @exit_code and shell->cwd when found; stale trailers are dropped. */
static int
take_trailer (OwTbShell *shell, unsigned long seq, int *exit_code)
{
  for (;;)
    {
      char *nul = memchr (shell->ctl.data, '\0', shell->ctl.len);
      size_t rec_len, mlen = strlen (shell->marker);
      int found = 0;

      if (nul == NULL)
        return 0;
      rec_len = (size_t) (nul - shell->ctl.data);
      if (rec_len > mlen + 1 && strncmp (shell->ctl.data, shell->marker, mlen) == 0
          && shell->ctl.data[mlen] == ' ')
        {
          char *p = shell->ctl.data + mlen + 1, *end;
          unsigned long got = strtoul (p, &end, 10);

          if (got == seq && *end == ' ')
            {
              long code = strtol (end + 1, &p, 10);

              if (*p == ' ')
                {
                  *exit_code = (int) code;
                  free (shell->cwd);
                  shell->cwd = ow_tb_xstrdup (p + 1);
                  found = 1;
                }
            }
        }
      memmove (shell->ctl.data, nul + 1, shell->ctl.len - rec_len - 1);
      shell->ctl.len -= rec_len + 1;
      shell->ctl.data[shell->ctl.len] = '\0';
      if (found)
        return 1;
    }
}

/* Sends @sig to every descendant of @root (not to @root itself). */
static void
signal_descendants (pid_t root, int sig)
{
  DIR *proc = opendir ("/proc");
  struct dirent *e;
  pid_t *pids = NULL, *ppids = NULL, *queue;
  size_t n = 0, cap = 0, head = 0, tail = 0;

  if (proc == NULL)
    return;
  while ((e = readdir (proc)) != NULL)
    {
      char path[64], stat_text[512];
      char *close_paren;
      ssize_t len;
      int fd;
      long pid = strtol (e->d_name, &close_paren, 10);

      if (pid <= 0 || *close_paren != '\0')
        continue;
      snprintf (path, sizeof path, "/proc/%ld/stat", pid);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      len = read (fd, stat_text, sizeof stat_text - 1);
      close (fd);
      if (len <= 0)
        continue;
      stat_text[len] = '\0';
      /* "pid (comm) state ppid …"; comm may contain ')' and spaces. */
      close_paren = strrchr (stat_text, ')');
      if (close_paren == NULL || close_paren[1] == '\0' || close_paren[2] == '\0')
        continue;
      if (n == cap)
        {
          cap = cap ? cap * 2 : 256;
          pids = ow_tb_xrealloc (pids, cap * sizeof *pids);
          ppids = ow_tb_xrealloc (ppids, cap * sizeof *ppids);
        }
      pids[n] = (pid_t) pid;
      ppids[n] = (pid_t) strtol (close_paren + 4, NULL, 10);
      n++;
    }
  closedir (proc);

  queue = ow_tb_xmalloc ((n + 1) * sizeof *queue);
  queue[tail++] = root;
  while (head < tail)
    {
      pid_t parent = queue[head++];

      for (size_t i = 0; i < n; i++)
        if (ppids[i] == parent && pids[i] != root)
          {
            kill (pids[i], sig);
            queue[tail++] = pids[i];
            ppids[i] = 0; /* never visit twice */
          }
    }
  free (queue);
  free (pids);
  free (ppids);
}

/* ---- run_shell ---- */

/* How a foreground command ended. */
typedef enum {
  END_DONE,        /* the trailer arrived */
  END_TIMEOUT,     /* timeout_seconds passed */
  END_CANCEL,      /* cancel_fd fired */
  END_SHELL_DIED,  /* bash exited (the command ran `exit`, or was killed from outside) */
} EndKind;

static void
append_single_quoted (OwTbBuf *buf, const char *s, size_t len)
{
  ow_tb_buf_append (buf, "'", 1);
  for (size_t i = 0; i < len; i++)
    {
      if (s[i] == '\'')
        ow_tb_buf_append (buf, "'\\''", 4);
      else
        ow_tb_buf_append (buf, s + i, 1);
    }
  ow_tb_buf_append (buf, "'", 1);
}

/* Waits for the trailer of @seq (sending @cmd meanwhile) until the
 * deadline, a cancel, or bash's death. */
static EndKind
shell_wait (OwTbShell *shell, const OwTbBuf *cmd, size_t *sent, int64_t deadline, int cancel_fd,
            unsigned long seq, OwTbBuf *output, int *truncated, int *exit_code)
{
  int out_open = 1;

  for (;;)
    {
      struct pollfd pfds[4];
      int n = 0, i_out = -1, i_ctl, i_in = -1, i_cancel = -1, wait_ms = -1, rc;

      if (out_open)
        {
          i_out = n;
          pfds[n++] = (struct pollfd) { shell->out_fd, POLLIN, 0 };
        }
      i_ctl = n;
      pfds[n++] = (struct pollfd) { shell->ctl_fd, POLLIN, 0 };
      if (*sent < cmd->len)
        {
          i_in = n;
          pfds[n++] = (struct pollfd) { shell->in_fd, POLLOUT, 0 };
        }
      if (cancel_fd >= 0)
        {
          i_cancel = n;
          pfds[n++] = (struct pollfd) { cancel_fd, POLLIN, 0 };
        }
      if (deadline > 0)
        {
          int64_t left = deadline - ow_tb_now_ms ();

          wait_ms = left > 0 ? (int) left : 0;
        }
      rc = poll (pfds, (nfds_t) n, wait_ms);
      if (rc < 0 && errno == EINTR)
        continue;
      if (rc < 0)
        return END_SHELL_DIED;
      if (i_cancel >= 0 && (pfds[i_cancel].revents & (POLLIN | POLLHUP | POLLERR)))
        return END_CANCEL;
      if (i_in >= 0 && pfds[i_in].revents)
        {
          ssize_t w = send (shell->in_fd, cmd->data + *sent, cmd->len - *sent,
                            MSG_NOSIGNAL | MSG_DONTWAIT);

          if (w > 0)
            *sent += (size_t) w;
          else if (w < 0 && errno != EAGAIN && errno != EINTR)
            *sent = cmd->len; /* bash is gone; the trailer pipe will say so */
        }
      if (i_out >= 0 && pfds[i_out].revents)
        out_open = read_tail (shell->out_fd, output, truncated);
      if (pfds[i_ctl].revents)
        {
          char chunk[4096];
          ssize_t r;
          int eof = 0;

          while ((r = read (shell->ctl_fd, chunk, sizeof chunk)) > 0)
            ow_tb_buf_append (&shell->ctl, chunk, (size_t) r);
          if (r == 0)
            eof = 1;
          if (take_trailer (shell, seq, exit_code))
            {
              /* Everything the command wrote is in the pipe by now. */
              read_tail (shell->out_fd, output, truncated);
              return END_DONE;
            }
          if (eof)
            {
              read_tail (shell->out_fd, output, truncated);
              return END_SHELL_DIED;
            }
        }
      /* Checked after the events, so a command that never stops
       * printing still times out. */
      if (deadline > 0 && ow_tb_now_ms () >= deadline)
        return END_TIMEOUT;
    }
}

static OwTbStatus
start_task (OwTbShell *shell, const char *command, OwTbBuf *out)
{
  const char *argv[] = { "bash", "-c", command, NULL };
  const char *tmpdir = getenv ("TMPDIR");
  char *template, *path, *note;
  char scratch[128];
  Task *task;
  pid_t pid;
  int fd, rc;
  OwTbObj obj;

  if (tmpdir == NULL || tmpdir[0] != '/')
    tmpdir = "/tmp";
  template = ow_tb_strdup_printf ("%s/ow-task-XXXXXX", tmpdir);
  fd = mkostemp (template, O_CLOEXEC);
  if (fd < 0)
    {
      ow_tb_set_error (out, "cannot start the background task: cannot create its output file: %s",
                       ow_tb_strerror (errno, scratch, sizeof scratch));
      free (template);
      return OW_TB_ERROR;
    }
  /* Unlinked at once: the output is private to this process. */
  unlink (template);
  free (template);
  path = bash_path ((const char *const *) shell->envp);
  rc = ow_tb_spawn_setup (path, argv, (const char *const *) shell->envp, shell->cwd, -1, fd, fd, -1,
                          &pid, shell->guard, shell->guard_data, shell->guard_error,
                          sizeof shell->guard_error);
  free (path);
  if (rc != 0)
    {
      close (fd);
      ow_tb_set_error (out, "cannot start the background task in %s: %s", shell->cwd,
                       start_failure (shell, rc, scratch, sizeof scratch));
      return OW_TB_ERROR;
    }
  shell->tasks = ow_tb_xrealloc (shell->tasks, (shell->n_tasks + 1) * sizeof *shell->tasks);
  task = &shell->tasks[shell->n_tasks++];
  memset (task, 0, sizeof *task);
  task->id = ++shell->next_task;
  task->pid = pid;
  task->out_fd = fd;
  task->command = ow_tb_xstrdup (command);

  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_key (&obj, "task_id");
  ow_tb_buf_printf (out, "\"bg-%u\"", task->id);
  ow_tb_obj_str (&obj, "command", command);
  ow_tb_obj_str (&obj, "status", "running");
  note = ow_tb_strdup_printf ("started in the background in %s; call shell_task_output with "
                              "task_id \"bg-%u\" to read its output and status, and "
                              "shell_task_kill to stop it", shell->cwd, task->id);
  ow_tb_obj_str (&obj, "note", note);
  free (note);
  ow_tb_obj_end (&obj);
  return OW_TB_OK;
}

static OwTbStatus
run_foreground (OwTbShell *shell, const char *command, size_t command_len, double timeout_s,
                int cancel_fd, OwTbBuf *out)
{
  OwTbBuf cmd, output, note;
  size_t sent = 0;
  int truncated = 0, exit_code = 0, have_code = 0, reset = 0, rc, died_code = 0;
  EndKind end;
  unsigned long seq;
  char scratch[128];
  OwTbStatus status = OW_TB_OK;
  OwTbObj obj;

  ow_tb_buf_init (&note);
  if (shell->reset_note != NULL && shell->pid <= 0)
    {
      /* Said once, by the first command that runs in the new shell. */
      ow_tb_buf_puts (&note, shell->reset_note);
      free (shell->reset_note);
      shell->reset_note = NULL;
    }
  if (shell->pid <= 0 && (rc = shell_start (shell)) != 0)
    {
      ow_tb_set_error (out, "cannot start the shell: %s",
                       start_failure (shell, rc, scratch, sizeof scratch));
      ow_tb_buf_free (&note);
      return OW_TB_ERROR;
    }
  if (shell->reset_note != NULL)
    {
      /* shell_start had to pick another folder. */
      if (note.len > 0)
        ow_tb_buf_puts (&note, "; ");
      ow_tb_buf_puts (&note, shell->reset_note);
      free (shell->reset_note);
      shell->reset_note = NULL;
    }

  /* Output that arrived between commands (from something left running in
   * the background) belongs to no command: drop it. */
  if (read_tail (shell->out_fd, NULL, &truncated) == 0)
    {
      /* bash closed its output: it is gone (or useless); start afresh. */
      shell_reap (shell);
      if (note.len > 0)
        ow_tb_buf_puts (&note, "; ");
      ow_tb_buf_puts (&note, "the previous shell had exited; this is a new shell and shell "
                             "state from earlier commands was reset");
      if ((rc = shell_start (shell)) != 0)
        {
          ow_tb_set_error (out, "cannot start the shell: %s",
                           start_failure (shell, rc, scratch, sizeof scratch));
          ow_tb_buf_free (&note);
          return OW_TB_ERROR;
        }
    }
  truncated = 0;

  seq = ++shell->seq;
  ow_tb_buf_init (&cmd);
  ow_tb_buf_puts (&cmd, "eval ");
  append_single_quoted (&cmd, command, command_len);
  ow_tb_buf_printf (&cmd, " </dev/null 2>&1 3>&-; printf '%s %lu %%s %%s\\0' \"$?\" \"$PWD\" >&3\n",
                    shell->marker, seq);
  ow_tb_buf_init (&output);

  end = shell_wait (shell, &cmd, &sent, ow_tb_now_ms () + (int64_t) (timeout_s * 1000.0),
                    cancel_fd, seq, &output, &truncated, &exit_code);
  if (end == END_DONE)
    have_code = 1;
  else if (end == END_TIMEOUT || end == END_CANCEL)
    {
      EndKind again;

      /* Ctrl-C for everything the command started, then a short grace
       * for bash to report; a command that shrugs it off costs the shell. */
      signal_descendants (shell->pid, SIGINT);
      again = shell_wait (shell, &cmd, &sent, ow_tb_now_ms () + SHELL_INTERRUPT_GRACE_MS, -1, seq,
                          &output, &truncated, &exit_code);
      if (again == END_DONE)
        have_code = 1;
      else
        {
          if (again == END_SHELL_DIED)
            shell_reap (shell);
          else
            shell_kill (shell);
          reset = 1;
        }
    }
  else if (end == END_SHELL_DIED)
    {
      died_code = shell_reap (shell);
      exit_code = died_code;
      have_code = 1;
      reset = 1;
    }
  if (reset)
    {
      free (shell->reset_note);
      shell->reset_note = ow_tb_strdup_printf ("the previous shell %s; this is a new shell in %s "
                                               "(variables, functions and other shell state from "
                                               "earlier commands were reset)",
                                               end == END_SHELL_DIED ? "exited" : "was killed",
                                               shell->cwd);
    }

  keep_tail_chars (&output, &truncated);
  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  if (end == END_CANCEL)
    {
      ow_tb_obj_str (&obj, "error", "interrupted by user");
      status = OW_TB_INTERRUPTED;
    }
  else if (end == END_TIMEOUT)
    {
      char *msg = ow_tb_strdup_printf ("the command timed out after %g s and was interrupted%s",
                                       timeout_s, reset ? "; the shell had to be killed" : "");
      ow_tb_obj_str (&obj, "error", msg);
      free (msg);
      status = OW_TB_ERROR;
    }
  ow_tb_obj_strn (&obj, "command", command, command_len);
  ow_tb_obj_str (&obj, "cwd", shell->cwd);
  if (have_code)
    ow_tb_obj_int (&obj, "exit_code", exit_code);
  else
    ow_tb_obj_null (&obj, "exit_code");
  ow_tb_obj_strn (&obj, "output", output.data, output.len);
  ow_tb_obj_bool (&obj, "timed_out", end == END_TIMEOUT);
  ow_tb_obj_bool (&obj, "truncated", truncated);
  if (reset)
    ow_tb_obj_bool (&obj, "shell_reset", 1);
  if (truncated)
    {
      if (note.len > 0)
        ow_tb_buf_puts (&note, "; ");
      ow_tb_buf_printf (&note, "the output was longer than %d characters; only its end is shown",
                        OW_TB_OUTPUT_LIMIT);
    }
  if (end == END_SHELL_DIED)
    {
      if (note.len > 0)
        ow_tb_buf_puts (&note, "; ");
      ow_tb_buf_printf (&note, "the shell exited (status %d); the next command starts a new shell "
                               "in %s and shell state is reset", died_code, shell->cwd);
    }
  else if (reset)
    {
      if (note.len > 0)
        ow_tb_buf_puts (&note, "; ");
      ow_tb_buf_printf (&note, "the command did not stop on interrupt, so the shell was killed; "
                               "the next command starts a new shell in %s and shell state "
                               "(variables, functions) is reset", shell->cwd);
    }
  if (note.len > 0)
    ow_tb_obj_strn (&obj, "note", note.data, note.len);
  ow_tb_obj_end (&obj);

  ow_tb_buf_free (&cmd);
  ow_tb_buf_free (&output);
  ow_tb_buf_free (&note);
  return status;
}

OwTbStatus
ow_tb_tool_run_shell (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *command, *description;
  size_t command_len;
  double timeout_s;
  int background;
  OwTbShell *shell = env->shell;
  OwTbStatus status;

  if (ow_tb_arg_string (args, "command", 1, &command, &command_len, out) != 0
      || ow_tb_arg_string (args, "description", 0, &description, NULL, out) != 0
      || ow_tb_arg_number (args, "timeout_seconds", SHELL_DEFAULT_TIMEOUT_S, &timeout_s, out) != 0
      || ow_tb_arg_bool (args, "run_in_background", 0, &background, out) != 0)
    return OW_TB_BAD_ARGS;
  if (command_len == 0 || strspn (command, " \t\n") == command_len)
    {
      ow_tb_set_error (out, "parameter \"command\" must not be empty");
      return OW_TB_BAD_ARGS;
    }
  if (shell == NULL)
    {
      ow_tb_set_error (out, "run_shell is not available here (no shell for this session)");
      return OW_TB_ERROR;
    }
  if (!(timeout_s >= 1))
    timeout_s = 1;
  if (timeout_s > SHELL_MAX_TIMEOUT_S)
    timeout_s = SHELL_MAX_TIMEOUT_S;

  pthread_mutex_lock (&shell->lock);
  take_pending_guard (shell);
  if (ow_tb_cancelled (env->cancel_fd))
    {
      OwTbObj obj;

      ow_tb_buf_reset (out);
      ow_tb_obj_begin (&obj, out);
      ow_tb_obj_str (&obj, "error", "interrupted by user");
      ow_tb_obj_strn (&obj, "command", command, command_len);
      ow_tb_obj_str (&obj, "cwd", shell->cwd);
      ow_tb_obj_null (&obj, "exit_code");
      ow_tb_obj_str (&obj, "output", "");
      ow_tb_obj_bool (&obj, "timed_out", 0);
      ow_tb_obj_bool (&obj, "truncated", 0);
      ow_tb_obj_end (&obj);
      status = OW_TB_INTERRUPTED;
    }
  else if (background)
    status = start_task (shell, command, out);
  else
    status = run_foreground (shell, command, command_len, timeout_s, env->cancel_fd, out);
  pthread_mutex_unlock (&shell->lock);
  return status;
}

/* ---- shell_task_output / shell_task_kill ---- */

static Task *
find_task (OwTbShell *shell, const char *id)
{
  char *end;
  unsigned long n;

  if (strncmp (id, "bg-", 3) != 0)
    return NULL;
  n = strtoul (id + 3, &end, 10);
  if (*end != '\0' || end == id + 3)
    return NULL;
  for (size_t i = 0; i < shell->n_tasks; i++)
    if (shell->tasks[i].id == n)
      return &shell->tasks[i];
  return NULL;
}

/* Notices an exit without reaping (see the top of the file). */
static void
task_poll (Task *task)
{
  siginfo_t info;

  if (task->exited)
    return;
  memset (&info, 0, sizeof info);
  if (waitid (P_PID, (id_t) task->pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
    return;
  task->exited = 1;
  task->exit_code = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
}

static const char *
task_status (const Task *task)
{
  return !task->exited ? "running" : task->killed ? "killed" : "exited";
}

/* Common start of both task tools: the shell, the lock and the task. */
static Task *
task_lookup (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out, OwTbStatus *status)
{
  const char *id;
  Task *task;

  if (ow_tb_arg_string (args, "task_id", 1, &id, NULL, out) != 0)
    {
      *status = OW_TB_BAD_ARGS;
      return NULL;
    }
  if (env->shell == NULL)
    {
      ow_tb_set_error (out, "unknown task: %s", id);
      *status = OW_TB_ERROR;
      return NULL;
    }
  pthread_mutex_lock (&env->shell->lock);
  task = find_task (env->shell, id);
  if (task == NULL)
    {
      pthread_mutex_unlock (&env->shell->lock);
      ow_tb_set_error (out, "unknown task: %s", id);
      *status = OW_TB_ERROR;
    }
  return task;
}

OwTbStatus
ow_tb_tool_shell_task_output (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  OwTbStatus status = OW_TB_OK;
  Task *task = task_lookup (env, args, out, &status);
  OwTbBuf output;
  struct stat st;
  int truncated = 0;
  OwTbObj obj;

  if (task == NULL)
    return status;
  /* Exit first, then read: output written before the exit is all there. */
  task_poll (task);
  ow_tb_buf_init (&output);
  if (fstat (task->out_fd, &st) == 0 && st.st_size > task->read_off)
    {
      off_t from = task->read_off;

      if (st.st_size - from > (off_t) OUTPUT_KEEP_BYTES)
        {
          from = st.st_size - (off_t) OUTPUT_KEEP_BYTES;
          truncated = 1;
        }
      while (from < st.st_size)
        {
          char chunk[16384];
          size_t want = (size_t) (st.st_size - from) < sizeof chunk ? (size_t) (st.st_size - from)
                                                                     : sizeof chunk;
          ssize_t n = pread (task->out_fd, chunk, want, from);

          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            break;
          ow_tb_buf_append (&output, chunk, (size_t) n);
          from += n;
        }
      task->read_off = from;
    }
  keep_tail_chars (&output, &truncated);

  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_key (&obj, "task_id");
  ow_tb_buf_printf (out, "\"bg-%u\"", task->id);
  ow_tb_obj_str (&obj, "status", task_status (task));
  if (task->exited)
    ow_tb_obj_int (&obj, "exit_code", task->exit_code);
  else
    ow_tb_obj_null (&obj, "exit_code");
  ow_tb_obj_strn (&obj, "output", output.data, output.len);
  ow_tb_obj_bool (&obj, "truncated", truncated);
  ow_tb_obj_end (&obj);
  ow_tb_buf_free (&output);
  pthread_mutex_unlock (&env->shell->lock);
  return OW_TB_OK;
}

/* Waits up to @ms for @task to exit (or @cancel_fd). 1 when it exited. */
static int
task_wait (Task *task, int ms, int cancel_fd)
{
  int pidfd = ow_tb_pidfd_open (task->pid);
  int64_t deadline = ow_tb_now_ms () + ms;

  for (;;)
    {
      struct pollfd pfds[2];
      int n = 0, left;

      task_poll (task);
      if (task->exited)
        break;
      left = (int) (deadline - ow_tb_now_ms ());
      if (left <= 0)
        break;
      if (pidfd >= 0)
        pfds[n++] = (struct pollfd) { pidfd, POLLIN, 0 };
      if (cancel_fd >= 0)
        pfds[n++] = (struct pollfd) { cancel_fd, POLLIN, 0 };
      /* Without a pidfd (kernels before 5.3) there is nothing to wait on
       * but time: check again every 20 ms. */
      if (poll (pfds, (nfds_t) n, pidfd >= 0 ? left : (left < 20 ? left : 20)) > 0
          && cancel_fd >= 0 && (pfds[n - 1].revents & (POLLIN | POLLHUP | POLLERR)))
        break;
    }
  if (pidfd >= 0)
    close (pidfd);
  return task->exited;
}

OwTbStatus
ow_tb_tool_shell_task_kill (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  OwTbStatus status = OW_TB_OK;
  Task *task = task_lookup (env, args, out, &status);
  OwTbObj obj;

  if (task == NULL)
    return status;
  task_poll (task);
  if (!task->exited)
    {
      kill (-task->pid, SIGTERM);
      if (!task_wait (task, TASK_KILL_GRACE_MS, env->cancel_fd))
        {
          kill (-task->pid, SIGKILL);
          task_wait (task, 1000, -1);
        }
      task->killed = 1;
    }
  /* Whatever else is left in its group goes too (safe: unreaped, so the
   * group id is still this task's). */
  if (!task->reaped)
    kill (-task->pid, SIGKILL);
  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_key (&obj, "task_id");
  ow_tb_buf_printf (out, "\"bg-%u\"", task->id);
  ow_tb_obj_str (&obj, "status", task_status (task));
  if (task->exited)
    ow_tb_obj_int (&obj, "exit_code", task->exit_code);
  else
    ow_tb_obj_null (&obj, "exit_code");
  ow_tb_obj_end (&obj);
  pthread_mutex_unlock (&env->shell->lock);
  return OW_TB_OK;
}
