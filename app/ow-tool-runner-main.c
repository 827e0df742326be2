/* ow-tool-runner-main.c: `openworker-tool-runner`, the tools behind a wall.
 *
 * A thin main over engine/sandbox/runner (the protocol loop) and, with
 * --wall, platform/linux/ow-wall.h (the Linux wall the runner builds around
 * itself). It links libc, the tool bodies, the protocol and, on Linux, the
 * wall and libseccomp: no GLib, so it stays small and starts fast.
 *
 *   openworker-tool-runner                 serve on fd 3
 *   openworker-tool-runner --socket PATH   listen on PATH (owner only), serve one connection
 *   openworker-tool-runner --stdio         serve on stdin/stdout (for exec streams)
 *   openworker-tool-runner --wall          fd 3; the first frame describes the sandbox
 *   openworker-tool-runner --check         print what this machine offers, as JSON
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sandbox/runner/ow-runner-proto.h"
#include "sandbox/runner/ow-runner.h"
#ifdef OW_RUNNER_HAVE_WALL
#include "ow-wall.h"
#endif

static void
print_usage (FILE *out)
{
  fputs ("Usage: openworker-tool-runner [--socket PATH | --stdio | --wall | --check]\n"
         "\n"
         "Hosts OpenWorker's shell and file tools for the engine, over the framed\n"
         "protocol on fd 3 (or PATH, or stdin/stdout). It is started by OpenWorker;\n"
         "people do not run it by hand, except --check, which prints what this\n"
         "machine offers for the Linux sandbox.\n", out);
}

/* Tells the engine why there will be no hello, then leaves without
 * running exit handlers (behind the wall they would touch nothing useful). */
static void __attribute__ ((noreturn))
die_fatal (int fd, const char *message)
{
  OwTbBuf frame;

  fprintf (stderr, "openworker-tool-runner: %s\n", message);
  ow_tb_buf_init (&frame);
  ow_tb_buf_puts (&frame, "{\"op\":\"fatal\",\"message\":");
  ow_tb_buf_json_string (&frame, message, (size_t) -1);
  ow_tb_buf_puts (&frame, "}");
  if (fd >= 0)
    ow_runner_write_frame (fd, frame.data, frame.len);
  ow_tb_buf_free (&frame);
  _exit (1);
}

static int
listen_once (const char *path)
{
  struct sockaddr_un sun;
  int fd, conn;
  mode_t old_mask;

  if (strlen (path) >= sizeof sun.sun_path)
    {
      fprintf (stderr, "openworker-tool-runner: the socket path is too long: %s\n", path);
      return -1;
    }
  memset (&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  memcpy (sun.sun_path, path, strlen (path));
  fd = socket (AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  fcntl (fd, F_SETFD, FD_CLOEXEC);
  /* Only this user may connect: whoever does can run commands as us. */
  old_mask = umask (077);
  if (bind (fd, (struct sockaddr *) &sun, sizeof sun) != 0 || listen (fd, 1) != 0)
    {
      fprintf (stderr, "openworker-tool-runner: cannot listen on %s: %s\n", path, strerror (errno));
      umask (old_mask);
      close (fd);
      return -1;
    }
  umask (old_mask);
  do
    conn = accept (fd, NULL, NULL);
  while (conn < 0 && errno == EINTR);
  if (conn >= 0)
    fcntl (conn, F_SETFD, FD_CLOEXEC);
  close (fd);
  unlink (path);
  return conn;
}

#ifdef OW_RUNNER_HAVE_WALL
static int
serve_walled (int fd)
{
  OwWallConfig config;
  OwWallState state;
  OwRunnerOptions options;
  OwTbBuf extra;
  char err[1024];
  char *text = NULL;
  long len = ow_runner_read_frame (fd, &text);
  int code;

  if (len < 0)
    die_fatal (fd, "the engine closed the connection before describing the sandbox");
  if (ow_wall_config_parse (text, (size_t) len, &config, err, sizeof err) != 0)
    {
      free (text);
      die_fatal (fd, err);
    }
  free (text);
  if (ow_wall_enter (&config, fd, &state, err, sizeof err) != 0)
    die_fatal (fd, err);
  if (ow_wall_lockdown (&config, &state, err, sizeof err) != 0)
    die_fatal (fd, err);
  if (ow_wall_bridge_start (&state, err, sizeof err) != 0)
    die_fatal (fd, err);

  ow_tb_buf_init (&extra);
  ow_tb_buf_printf (&extra, "\"wall\":{\"landlock_abi\":%d,\"seccomp\":%s,\"network\":\"%s\",\"bridge_port\":%d,"
                            "\"home\":",
                    state.landlock_abi, state.seccomp ? "true" : "false",
                    config.network == OW_WALL_NET_OPEN ? "open"
                    : config.network == OW_WALL_NET_PROXY ? "proxy" : "none",
                    state.bridge_port);
  ow_tb_buf_json_string (&extra, config.home, (size_t) -1);
  ow_tb_buf_puts (&extra, "}");

  memset (&options, 0, sizeof options);
  options.in_fd = fd;
  options.out_fd = fd;
  options.envp = (const char *const *) state.tools_env;
  options.roots = config.roots;
  options.n_roots = config.n_roots;
  options.hello_extra = extra.data;
  options.bridge_port = state.bridge_port;
  options.proxy_socket = state.proxy_socket;
  options.landlock_canary = state.canary;
  code = ow_runner_serve (&options);
  /* Behind the wall the process ends here; init and the namespace follow. */
  _exit (code);
}
#endif

int
main (int argc, char **argv)
{
  OwRunnerOptions options;
  const char *socket_path = NULL;
  int use_stdio = 0, walled = 0, fd = 3;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--socket") == 0 && i + 1 < argc)
        socket_path = argv[++i];
      else if (strcmp (argv[i], "--stdio") == 0)
        use_stdio = 1;
      else if (strcmp (argv[i], "--wall") == 0)
        walled = 1;
#ifdef OW_RUNNER_HAVE_WALL
      else if (strcmp (argv[i], "--check") == 0)
        {
          OwTbBuf out;

          ow_tb_buf_init (&out);
          ow_wall_check (&out);
          puts (out.data);
          ow_tb_buf_free (&out);
          return 0;
        }
#endif
      else if (strcmp (argv[i], "--version") == 0)
        {
          printf ("openworker-tool-runner %s (protocol %d)\n", OW_VERSION, OW_RUNNER_PROTOCOL_VERSION);
          return 0;
        }
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          print_usage (stdout);
          return 0;
        }
      else
        {
          fprintf (stderr, "openworker-tool-runner: unknown argument \"%s\"\n\n", argv[i]);
          print_usage (stderr);
          return 2;
        }
    }

  if (socket_path != NULL)
    {
      fd = listen_once (socket_path);
      if (fd < 0)
        return 1;
    }
  else if (!use_stdio && fcntl (fd, F_GETFD) < 0)
    {
      fputs ("openworker-tool-runner: no connection on fd 3; OpenWorker starts this program with its "
             "protocol socket there (or use --socket PATH or --stdio)\n", stderr);
      return 2;
    }
  if (walled)
    {
      if (use_stdio || socket_path != NULL)
        {
          fputs ("openworker-tool-runner: --wall works on fd 3 only\n", stderr);
          return 2;
        }
#ifdef OW_RUNNER_HAVE_WALL
      serve_walled (fd);
#else
      fputs ("openworker-tool-runner: this system has no built-in wall; use the platform's sandbox\n", stderr);
      return 2;
#endif
    }

  memset (&options, 0, sizeof options);
  options.in_fd = use_stdio ? 0 : fd;
  options.out_fd = use_stdio ? 1 : fd;
  if (use_stdio)
    {
      /* stdout carries frames now; a stray printf must not corrupt them. */
      int out = dup (1);
      int devnull = open ("/dev/null", O_WRONLY | O_CLOEXEC);

      if (out < 0 || devnull < 0 || dup2 (devnull, 1) < 0)
        return 1;
      close (devnull);
      options.out_fd = out;
    }
  return ow_runner_serve (&options);
}
