/* ow-mcp-stdio.c: spawning a stdio MCP server and talking to it (see
 * ow-mcp-stdio.h). */
#define G_LOG_DOMAIN "ow-mcp"

#include "mcp/ow-mcp-stdio.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "mcp/ow-mcp-frame.h"
#include "ow-error.h"
#include "ow-secret-env.h"

#define STDERR_TAIL_BYTES 2048
#define KILL_GRACE_MS 2000

struct _OwMcpStdio
{
  gint                 refcount;
  GSubprocess         *proc;
  GOutputStream       *in;
  GInputStream        *out;
  GInputStream        *err;
  OwMcpFrameReader    *reader;
  GCancellable        *cancel;        /* cancelled by close: ends every read and write */
  GQueue               writes;        /* GBytes waiting for the pipe */
  GBytes              *writing;       /* the one being written */
  GString             *tail;          /* the end of stderr */
  char                *name;          /* the server's name, for messages */
  char                *reason;        /* how the process ended */
  int                  pid;           /* also the process group id; 0 once reaped */
  gboolean             exited;
  gboolean             out_eof;
  gboolean             err_eof;
  gboolean             closing;       /* close() ran: no more callbacks */
  gboolean             reported;      /* closed() ran */
  OwMcpStdioCallbacks  cb;
  gpointer             user_data;
};

static OwMcpStdio *
stdio_ref (OwMcpStdio *self)
{
  g_atomic_int_inc (&self->refcount);
  return self;
}

static void
stdio_unref (OwMcpStdio *self)
{
  if (!g_atomic_int_dec_and_test (&self->refcount))
    return;
  g_queue_clear_full (&self->writes, (GDestroyNotify) g_bytes_unref);
  g_clear_pointer (&self->writing, g_bytes_unref);
  g_clear_pointer (&self->reader, ow_mcp_frame_reader_free);
  g_clear_object (&self->cancel);
  g_clear_object (&self->in);
  g_clear_object (&self->out);
  g_clear_object (&self->err);
  g_clear_object (&self->proc);
  g_string_free (self->tail, TRUE);
  g_free (self->name);
  g_free (self->reason);
  g_free (self);
}

/* ---- Login-shell PATH ------------------------------------------------- */

G_LOCK_DEFINE_STATIC (login_path);
static char *login_path_cached;

static char *
merge_paths (const char *first,
             const char *second)
{
  g_auto(GStrv) a = g_strsplit (first != NULL ? first : "", ":", -1);
  g_auto(GStrv) b = g_strsplit (second != NULL ? second : "", ":", -1);
  GPtrArray *out = g_ptr_array_new ();
  char *joined;

  for (char **p = a; *p != NULL; p++)
    if (**p != '\0' && !g_ptr_array_find_with_equal_func (out, *p, g_str_equal, NULL))
      g_ptr_array_add (out, *p);
  for (char **p = b; *p != NULL; p++)
    if (**p != '\0' && !g_ptr_array_find_with_equal_func (out, *p, g_str_equal, NULL))
      g_ptr_array_add (out, *p);
  g_ptr_array_add (out, NULL);
  joined = g_strjoinv (":", (char **) out->pdata);
  g_ptr_array_free (out, TRUE);
  return joined;
}

static char *
fallback_path (void)
{
  g_autofree char *local = g_build_filename (g_get_home_dir (), ".local", "bin", NULL);
  g_autofree char *common = g_strconcat (local, ":/usr/local/bin:/usr/bin:/bin", NULL);

  return merge_paths (g_getenv ("PATH"), common);
}

typedef struct
{
  GSubprocess *proc;
  guint        timeout_id;
} LoginProbe;

static void
login_probe_free (LoginProbe *probe)
{
  g_clear_handle_id (&probe->timeout_id, g_source_remove);
  g_clear_object (&probe->proc);
  g_free (probe);
}

static gboolean
on_login_probe_timeout_cb (gpointer user_data)
{
  LoginProbe *probe = user_data;

  /* A login profile that waits for input or hangs must not hold up every
   * server: give up on it and use the fallback. */
  probe->timeout_id = 0;
  g_subprocess_force_exit (probe->proc);
  return G_SOURCE_REMOVE;
}

static void
on_login_probe_done_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autofree char *out = NULL;
  g_autofree char *path = NULL;
  const char *marker;

  if (g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result, &out, NULL, NULL)
      && g_subprocess_get_if_exited (G_SUBPROCESS (source))
      && g_subprocess_get_exit_status (G_SUBPROCESS (source)) == 0
      && out != NULL && (marker = strstr (out, "__OW_PATH__")) != NULL && marker[11] != '\0')
    path = merge_paths (marker + 11, g_getenv ("PATH"));
  else
    path = fallback_path ();
  G_LOCK (login_path);
  if (login_path_cached == NULL)
    login_path_cached = g_strdup (path);
  G_UNLOCK (login_path);
  g_debug ("login-shell PATH: %s", path);
  g_task_return_pointer (task, g_steal_pointer (&path), g_free);
}

void
ow_mcp_login_path_async (GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_auto(GStrv) envp = NULL;
  g_autofree char *cached = NULL;
  const char *shell = g_getenv ("SHELL");
  LoginProbe *probe;

  g_task_set_source_tag (task, ow_mcp_login_path_async);
  G_LOCK (login_path);
  cached = g_strdup (login_path_cached);
  G_UNLOCK (login_path);
  if (cached != NULL)
    {
      g_task_return_pointer (task, g_steal_pointer (&cached), g_free);
      return;
    }
  if (shell == NULL || !g_path_is_absolute (shell) || !g_file_test (shell, G_FILE_TEST_IS_EXECUTABLE))
    shell = "/bin/sh";

  /* stdin is a pipe that communicate() closes: a profile that reads input
   * gets end-of-file, not the terminal of whoever started us. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  envp = ow_secret_env_filter (NULL);
  g_subprocess_launcher_set_environ (launcher, envp);
  probe = g_new0 (LoginProbe, 1);
  probe->proc = g_subprocess_launcher_spawn (launcher, NULL, shell, "-lc",
                                             "printf '\\n__OW_PATH__%s' \"$PATH\"", NULL);
  if (probe->proc == NULL)
    {
      login_probe_free (probe);
      g_task_return_pointer (task, fallback_path (), g_free);
      return;
    }
  probe->timeout_id = g_timeout_add (5000, on_login_probe_timeout_cb, probe);
  g_task_set_task_data (task, probe, (GDestroyNotify) login_probe_free);
  g_subprocess_communicate_utf8_async (probe->proc, NULL, NULL, on_login_probe_done_cb, g_object_ref (task));
}

char *
ow_mcp_login_path_finish (GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
ow_mcp_login_path_set_for_testing (const char *path)
{
  G_LOCK (login_path);
  g_free (login_path_cached);
  login_path_cached = g_strdup (path);
  G_UNLOCK (login_path);
}

/* ---- Reading ---------------------------------------------------------- */

static void
maybe_report_closed (OwMcpStdio *self)
{
  if (self->closing || self->reported || !self->exited || !self->out_eof || !self->err_eof)
    return;
  self->reported = TRUE;
  self->cb.closed (self->reason, self->user_data);
}

static void
on_frame_line (const char *line,
               gsize       len,
               gpointer    user_data)
{
  OwMcpStdio *self = user_data;

  if (!self->closing)
    self->cb.line (line, len, self->user_data);
}

static void
on_frame_oversize (const char *prefix,
                   gsize       len,
                   gpointer    user_data)
{
  OwMcpStdio *self = user_data;

  if (!self->closing)
    self->cb.oversize (prefix, len, self->user_data);
}

static void read_out (OwMcpStdio *self);
static void read_err (OwMcpStdio *self);

static void
on_out_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  OwMcpStdio *self = user_data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);

  if (!self->closing)
    {
      if (bytes == NULL || g_bytes_get_size (bytes) == 0)
        {
          ow_mcp_frame_reader_finish (self->reader);
          self->out_eof = TRUE;
          maybe_report_closed (self);
        }
      else
        {
          ow_mcp_frame_reader_feed (self->reader, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
          if (!self->closing)
            read_out (self);
        }
    }
  stdio_unref (self);
}

static void
read_out (OwMcpStdio *self)
{
  g_input_stream_read_bytes_async (self->out, 64 * 1024, G_PRIORITY_DEFAULT, self->cancel,
                                   on_out_read_cb, stdio_ref (self));
}

static void
on_err_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  OwMcpStdio *self = user_data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);

  if (!self->closing)
    {
      if (bytes == NULL || g_bytes_get_size (bytes) == 0)
        {
          self->err_eof = TRUE;
          maybe_report_closed (self);
        }
      else
        {
          gsize n = 0;
          const char *data = g_bytes_get_data (bytes, &n);

          g_string_append_len (self->tail, data, (gssize) n);
          if (self->tail->len > STDERR_TAIL_BYTES)
            g_string_erase (self->tail, 0, (gssize) (self->tail->len - STDERR_TAIL_BYTES));
          read_err (self);
        }
    }
  stdio_unref (self);
}

static void
read_err (OwMcpStdio *self)
{
  g_input_stream_read_bytes_async (self->err, 4096, G_PRIORITY_DEFAULT, self->cancel,
                                   on_err_read_cb, stdio_ref (self));
}

static void
on_wait_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  OwMcpStdio *self = user_data;
  GSubprocess *proc = G_SUBPROCESS (source);

  if (g_subprocess_wait_finish (proc, result, NULL) && !self->closing)
    {
      int group = self->pid;

      if (g_subprocess_get_if_signaled (proc))
        self->reason = g_strdup_printf ("was killed by signal %d (%s)", g_subprocess_get_term_sig (proc),
                                        g_strsignal (g_subprocess_get_term_sig (proc)));
      else
        self->reason = g_strdup_printf ("exited with status %d", g_subprocess_get_exit_status (proc));
      self->exited = TRUE;
      self->pid = 0;
      /* Whatever the server started may still hold its pipes open; the
       * group goes with its leader. */
      if (group > 0 && (!self->out_eof || !self->err_eof))
        kill (-group, SIGKILL);
      maybe_report_closed (self);
    }
  stdio_unref (self);
}

/* ---- Writing ---------------------------------------------------------- */

static void write_next (OwMcpStdio *self);

static void
on_written_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  OwMcpStdio *self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->writing, g_bytes_unref);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      /* The server closed its stdin or died: its exit is reported through
       * closed(); what is still queued cannot be delivered. */
      g_debug ("MCP server %s: write failed: %s", self->name, error->message);
      g_queue_clear_full (&self->writes, (GDestroyNotify) g_bytes_unref);
    }
  else if (!self->closing)
    write_next (self);
  stdio_unref (self);
}

static void
write_next (OwMcpStdio *self)
{
  if (self->writing != NULL || g_queue_is_empty (&self->writes))
    return;
  self->writing = g_queue_pop_head (&self->writes);
  g_output_stream_write_all_async (self->in, g_bytes_get_data (self->writing, NULL),
                                   g_bytes_get_size (self->writing), G_PRIORITY_DEFAULT, self->cancel,
                                   on_written_cb, stdio_ref (self));
}

void
ow_mcp_stdio_send (OwMcpStdio *self,
                   const char *line)
{
  GString *s;

  g_return_if_fail (strchr (line, '\n') == NULL);
  if (self->closing || self->exited)
    return;
  s = g_string_new (line);
  g_string_append_c (s, '\n');
  g_queue_push_tail (&self->writes, g_string_free_to_bytes (s));
  write_next (self);
}

/* ---- Start and close -------------------------------------------------- */

static void
child_setup (gpointer user_data)
{
  /* Its own process group, so stop() ends npx and the node it started
   * alike; and it goes when we go, even if we crash. */
  setpgid (0, 0);
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static char *
find_program (const char *command,
              const char *path)
{
  g_auto(GStrv) dirs = NULL;

  if (strchr (command, '/') != NULL)
    return g_file_test (command, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup (command) : NULL;
  dirs = g_strsplit (path != NULL ? path : "", ":", -1);
  for (char **d = dirs; *d != NULL; d++)
    {
      g_autofree char *candidate = g_build_filename (**d != '\0' ? *d : ".", command, NULL);

      if (g_file_test (candidate, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (candidate, G_FILE_TEST_IS_DIR))
        return g_steal_pointer (&candidate);
    }
  return NULL;
}

OwMcpStdio *
ow_mcp_stdio_start (const OwMcpServerConfig   *config,
                    const char                *path,
                    const OwMcpStdioCallbacks *callbacks,
                    gpointer                   user_data,
                    GError                   **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = NULL;
  g_autofree char *program = NULL;
  g_autoptr(GError) spawn_error = NULL;
  OwMcpStdio *self;
  GSubprocess *proc;

  program = find_program (config->command, path);
  if (program == NULL)
    {
      g_set_error (error, OW_MCP_ERROR, OW_MCP_ERROR_SPAWN,
                   "The MCP server “%s” could not start: “%s” is not on the PATH a login shell has (%s). "
                   "Install it, or give its full path in mcp.json.", config->name, config->command, path);
      return NULL;
    }
  g_ptr_array_add (argv, program);
  for (char **a = config->args; *a != NULL; a++)
    g_ptr_array_add (argv, *a);
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  envp = ow_mcp_server_config_build_env (config, path);
  g_subprocess_launcher_set_environ (launcher, envp);
  if (config->cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, config->cwd);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &spawn_error);
  if (proc == NULL)
    {
      g_set_error (error, OW_MCP_ERROR, OW_MCP_ERROR_SPAWN, "The MCP server “%s” could not start: %s",
                   config->name, spawn_error->message);
      return NULL;
    }

  self = g_new0 (OwMcpStdio, 1);
  self->refcount = 1;
  self->proc = proc;
  self->in = g_object_ref (g_subprocess_get_stdin_pipe (proc));
  self->out = g_object_ref (g_subprocess_get_stdout_pipe (proc));
  self->err = g_object_ref (g_subprocess_get_stderr_pipe (proc));
  self->cancel = g_cancellable_new ();
  self->tail = g_string_new (NULL);
  self->name = g_strdup (config->name);
  /* NULL once the process has ended and been reaped, which a server that
   * exits at once (a wrong command) may already have. */
  {
    const char *id = g_subprocess_get_identifier (proc);
    self->pid = id != NULL ? (int) g_ascii_strtoll (id, NULL, 10) : 0;
  }
  self->reader = ow_mcp_frame_reader_new (config->max_message_bytes, on_frame_line, on_frame_oversize, self);
  self->cb = *callbacks;
  self->user_data = user_data;
  g_queue_init (&self->writes);
  read_out (self);
  read_err (self);
  g_subprocess_wait_async (proc, self->cancel, on_wait_cb, stdio_ref (self));
  g_debug ("MCP server %s started as pid %d: %s", config->name, self->pid, program);
  return self;
}

int
ow_mcp_stdio_get_pid (OwMcpStdio *self)
{
  return self->pid;
}

char *
ow_mcp_stdio_dup_stderr_tail (OwMcpStdio *self)
{
  const char *start = self->tail->str;
  /* Start at a line boundary when the tail was cut. */
  const char *nl = self->tail->len >= STDERR_TAIL_BYTES ? strchr (start, '\n') : NULL;

  if (nl != NULL)
    start = nl + 1;
  return g_strstrip (g_utf8_make_valid (start, -1));
}

typedef struct
{
  GSubprocess *proc;
  int          group;
} Reaper;

static gboolean
on_kill_grace_cb (gpointer user_data)
{
  Reaper *r = user_data;

  /* Still there after the grace period: a server that ignores SIGTERM. */
  if (g_subprocess_get_identifier (r->proc) != NULL)
    kill (-r->group, SIGKILL);
  g_object_unref (r->proc);
  g_free (r);
  return G_SOURCE_REMOVE;
}

void
ow_mcp_stdio_close (OwMcpStdio *self)
{
  if (self == NULL)
    return;
  self->closing = TRUE;
  g_cancellable_cancel (self->cancel);
  g_output_stream_close (self->in, NULL, NULL);
  if (self->pid > 0 && g_subprocess_get_identifier (self->proc) != NULL)
    {
      Reaper *r = g_new0 (Reaper, 1);

      kill (-self->pid, SIGTERM);
      r->proc = g_object_ref (self->proc);
      r->group = self->pid;
      g_timeout_add (KILL_GRACE_MS, on_kill_grace_cb, r);
    }
  stdio_unref (self);
}
