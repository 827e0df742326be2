/* ow-server-peer.c: is the program at the other end of a loopback
 * connection one of our sessions' commands?
 *
 * The token is the door's key, and the guard keeps it out of every
 * command's reach (the runtime folder is an empty mount inside). Should a
 * command hold it anyway (a model that was shown it, the parser-only
 * fallback), it still must not use it: a session answering its own asks
 * or adding rules through the API would grant itself authority.
 *
 * The kernel knows who is at the other end of a loopback TCP connection:
 * /proc/net/tcp{,6} maps the pair of ports to a socket inode, and the
 * process holding that inode has it among its descriptors. That process
 * is a session's command when it lives in a mount namespace one of this
 * process's guards made, or when it or one of its ancestors carries the
 * marker every command starts with. The lookup walks /proc once per
 * connection; the answer is kept on the connection's socket.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/body/ow-tb.h"
#include "tools/ow-executor.h"

/* The inode of the socket whose local port is @peer_port and whose remote
 * port is @our_port, from one /proc/net table; 0 when absent. */
static unsigned long
socket_inode_in (const char *table, guint peer_port, guint our_port)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents (table, &text, NULL, NULL))
    return 0;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      char local[128], remote[128];
      unsigned long inode = 0;
      const char *lc, *rc;

      /* sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode */
      if (sscanf (lines[i], "%*s %127s %127s %*s %*s %*s %*s %*s %*s %lu", local, remote, &inode) != 3)
        continue;
      lc = strrchr (local, ':');
      rc = strrchr (remote, ':');
      if (lc == NULL || rc == NULL)
        continue;
      if (strtoul (lc + 1, NULL, 16) == peer_port && strtoul (rc + 1, NULL, 16) == our_port && inode != 0)
        return inode;
    }
  return 0;
}

/* The process holding socket @inode, or 0. */
static int
pid_holding (unsigned long inode)
{
  g_autofree char *want = g_strdup_printf ("socket:[%lu]", inode);
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *fd_dir = NULL;
      g_autoptr(GDir) fds = NULL;
      const char *fd;

      if (!g_ascii_isdigit (name[0]))
        continue;
      fd_dir = g_build_filename ("/proc", name, "fd", NULL);
      fds = g_dir_open (fd_dir, 0, NULL);
      while (fds != NULL && (fd = g_dir_read_name (fds)) != NULL)
        {
          g_autofree char *link_path = g_build_filename (fd_dir, fd, NULL);
          g_autofree char *target = g_file_read_link (link_path, NULL);

          if (target != NULL && g_str_equal (target, want))
            return atoi (name);
        }
    }
  return 0;
}

static gboolean
in_guard_namespace (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/ns/mnt", pid);
  g_autofree char *link = g_file_read_link (path, NULL);
  unsigned long ino = 0;

  return link != NULL && sscanf (link, "mnt:[%lu]", &ino) == 1 && ow_tb_guard_namespace_known (ino);
}

static gboolean
carries_marker (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/environ", pid);
  g_autofree char *env = NULL;
  gsize len = 0;
  const char *marker = OW_SESSION_COMMAND_ENV "=";

  if (!g_file_get_contents (path, &env, &len, NULL))
    return FALSE;
  for (gsize off = 0; off < len; off += strlen (env + off) + 1)
    if (g_str_has_prefix (env + off, marker))
      return TRUE;
  return FALSE;
}

static int
parent_of (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *stat = NULL;
  const char *close_paren;
  int ppid = 0;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return 0;
  /* "pid (comm) state ppid …": comm may hold spaces and parentheses. */
  close_paren = strrchr (stat, ')');
  if (close_paren == NULL || sscanf (close_paren + 1, " %*c %d", &ppid) != 1)
    return 0;
  return ppid;
}

gboolean
ow_server_peer_is_session_command (guint peer_port, guint our_port, char **why)
{
  unsigned long inode = socket_inode_in ("/proc/net/tcp", peer_port, our_port);
  int pid, self = (int) getpid ();

  if (inode == 0)
    inode = socket_inode_in ("/proc/net/tcp6", peer_port, our_port);
  if (inode == 0 || (pid = pid_holding (inode)) == 0 || pid == self)
    return FALSE;
  if (in_guard_namespace (pid))
    {
      if (why != NULL)
        *why = g_strdup_printf ("process %d runs inside a session's command guard", pid);
      return TRUE;
    }
  for (int p = pid, depth = 0; p > 1 && p != self && depth < 64; p = parent_of (p), depth++)
    if (carries_marker (p))
      {
        if (why != NULL)
          *why = g_strdup_printf ("process %d was started by a session's command (process %d)", pid, p);
        return TRUE;
      }
  return FALSE;
}
