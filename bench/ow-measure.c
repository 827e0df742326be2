/* ow-measure.c: run a command and report what it cost.
 *
 *   ow-measure COMMAND [ARGS…]
 *
 * Starts COMMAND in a new session with its output discarded, waits for it
 * and prints one JSON line: the wall-clock start (µs since the epoch), wall
 * time, user and system CPU time and peak RSS of the command and the
 * processes it waited for, and its exit status.
 *
 * Peak RSS has to be measured from a small parent: Linux charges a forked
 * child with its parent's resident pages until it execs, so a benchmark
 * harness in Python would see its own size in the figure.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now (clockid_t clock)
{
  struct timespec ts;
  clock_gettime (clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main (int argc, char **argv)
{
  struct rusage ru;
  double start, wall;
  long long start_us;
  int status = 0;
  pid_t pid;

  if (argc < 2)
    {
      fprintf (stderr, "usage: ow-measure COMMAND [ARGS…]\n");
      return 2;
    }
  start_us = (long long) (now (CLOCK_REALTIME) * 1e6);
  start = now (CLOCK_MONOTONIC);
  pid = fork ();
  if (pid < 0)
    return 1;
  if (pid == 0)
    {
      int null = open ("/dev/null", O_RDWR);
      setsid ();
      dup2 (null, 0);
      dup2 (null, 1);
      dup2 (null, 2);
      execvp (argv[1], argv + 1);
      _exit (127);
    }
  if (wait4 (pid, &status, 0, &ru) < 0)
    return 1;
  wall = now (CLOCK_MONOTONIC) - start;
  printf ("{\"start_us\": %lld, \"wall\": %.6f, \"user\": %.6f, \"sys\": %.6f, \"maxrss_kib\": %ld, \"exit\": %d}\n",
          start_us, wall, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
          ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss,
          WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status));
  return 0;
}
