/* ow-session-marker.c: finding a session's mark on this process or an
 * ancestor (see ow-session-marker.h).
 *
 * Linux only: the parent chain comes from /proc/PID/stat and each
 * environment from /proc/PID/environ, which shows a process's environment
 * as it was when it started. Elsewhere only the process's own environment
 * is looked at.
 *
 * A session's commands all descend from an engine program, so one among
 * the ancestors gives a command away even when the mark is gone from
 * every process between (a shell that `exec`ed `env -u …`).
 *
 * What the walk cannot see: a command that detaches (double fork, setsid)
 * and outlives its shell is reparented to init or a subreaper, and then
 * has no marked ancestor left. The walk raises the bar for the simple
 * `env -u`; the wall that hides the person's configuration from session
 * commands is the sandbox around them.
 */
#define G_LOG_DOMAIN "ow-session-marker"

#include "ow-session-marker.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A chain longer than this is a loop in what /proc told us. */
#define MAX_ANCESTORS 4096

/* The parent of @pid, or 0 when it cannot be read. */
static pid_t
parent_of (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  const char *close_paren;
  char state;
  int ppid;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  /* "PID (COMM) STATE PPID …": COMM may hold spaces and parentheses, so
   * the fields resume after the last ')'. */
  close_paren = strrchr (text, ')');
  if (close_paren == NULL || sscanf (close_paren + 1, " %c %d", &state, &ppid) != 2)
    return 0;
  return (pid_t) ppid;
}

/* TRUE when the environment @pid started with holds the mark. */
static gboolean
environ_has_mark (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/environ", (int) pid);
  g_autofree char *text = NULL;
  gsize len = 0;
  const gsize name_len = strlen (OW_SESSION_COMMAND_ENV);

  if (!g_file_get_contents (path, &text, &len, NULL))
    return FALSE;
  for (gsize at = 0; at < len; at += strnlen (text + at, len - at) + 1)
    if (len - at > name_len && strncmp (text + at, OW_SESSION_COMMAND_ENV, name_len) == 0
        && text[at + name_len] == '=')
      return TRUE;
  return FALSE;
}

/* The name of @pid's program when it is one of the engine's, else NULL. */
static const char *
engine_program (pid_t pid)
{
  static const char *const programs[] = {
    "openworker", "openworker-desktop", "openworker-server", "openworker-tool-runner", NULL,
  };
  g_autofree char *link = g_strdup_printf ("/proc/%d/exe", (int) pid);
  g_autofree char *target = g_file_read_link (link, NULL);
  g_autofree char *base = NULL;
  char *deleted;

  if (target == NULL)
    return NULL;
  /* A program replaced on disk since it started (a rebuild, an upgrade). */
  deleted = g_strrstr (target, " (deleted)");
  if (deleted != NULL && deleted[strlen (" (deleted)")] == '\0')
    *deleted = '\0';
  base = g_path_get_basename (target);
  for (size_t i = 0; programs[i] != NULL; i++)
    if (g_str_equal (base, programs[i]))
      return programs[i];
  return NULL;
}

int
ow_session_marker_find (char **why)
{
  pid_t pid;

  if (getenv (OW_SESSION_COMMAND_ENV) != NULL)
    {
      if (why != NULL)
        *why = g_strdup_printf ("its environment carries %s", OW_SESSION_COMMAND_ENV);
      return 1;
    }
  pid = getppid ();
  for (int hops = 0; pid > 0 && hops < MAX_ANCESTORS; hops++)
    {
      const char *program;

      if (environ_has_mark (pid))
        {
          if (why != NULL)
            *why = g_strdup_printf ("process %d, which started it, carries %s", (int) pid,
                                    OW_SESSION_COMMAND_ENV);
          return 1;
        }
      if ((program = engine_program (pid)) != NULL)
        {
          if (why != NULL)
            *why = g_strdup_printf ("process %d, which started it, is %s", (int) pid, program);
          return 1;
        }
      if (pid == 1)
        break;
      pid = parent_of (pid);
    }
  return 0;
}
