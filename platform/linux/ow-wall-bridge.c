/* ow-wall-bridge.c: the sandbox's only way out, 127.0.0.1:PORT → proxy.
 *
 * A closed sandbox has its own network namespace with nothing but lo. The
 * allow-list proxy runs in the engine, outside, on a Unix socket that the
 * wall binds into the sandbox. Programs expect an HTTP proxy on a TCP
 * port (HTTP_PROXY=http://127.0.0.1:PORT), so a thread of the runner
 * listens on a loopback port inside the namespace and copies bytes between
 * each connection and a fresh connection to the proxy's socket. It reads
 * nothing and decides nothing: the proxy sees every request and refuses
 * what is not on the list.
 *
 * One thread accepts; each connection gets a thread that pumps both ways
 * until both sides have closed (half-closes are passed on, so a client
 * that shuts down its sending side still gets the whole answer).
 */
#include "ow-wall-private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The bridge's two ends of one connection. */
typedef struct {
  int client;   /* the program inside, over TCP */
  int proxy;    /* the proxy, over its Unix socket */
} Pipe;

/* What the accepting thread needs. */
typedef struct {
  int   listen_fd;    /* 127.0.0.1:PORT */
  char *socket_path;  /* the proxy's socket inside (owned) */
} Bridge;

int
ow_wall_bridge_listen (int *port, char *err, size_t err_size)
{
  struct sockaddr_in sin;
  socklen_t len = sizeof sin;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    {
      snprintf (err, err_size, "cannot open the proxy bridge's socket: %s", strerror (errno));
      return -1;
    }
  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  sin.sin_port = 0;
  if (bind (fd, (struct sockaddr *) &sin, sizeof sin) != 0 || listen (fd, 64) != 0
      || getsockname (fd, (struct sockaddr *) &sin, &len) != 0)
    {
      snprintf (err, err_size, "cannot listen on 127.0.0.1 for the proxy bridge: %s", strerror (errno));
      close (fd);
      return -1;
    }
  *port = ntohs (sin.sin_port);
  return fd;
}

/* Writes all of @len bytes; 0, or -1 when the peer is gone. */
static int
write_all (int fd, const char *data, size_t len)
{
  while (len > 0)
    {
      ssize_t n = send (fd, data, len, MSG_NOSIGNAL);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return -1;
        }
      data += n;
      len -= (size_t) n;
    }
  return 0;
}

static void *
pump_thread (void *data)
{
  Pipe *p = data;
  int open_in[2] = { 1, 1 };   /* [0]: client → proxy still flowing, [1]: proxy → client */
  char buf[65536];

  while (open_in[0] || open_in[1])
    {
      struct pollfd pfd[2] = {
        { open_in[0] ? p->client : -1, POLLIN, 0 },
        { open_in[1] ? p->proxy : -1, POLLIN, 0 },
      };

      if (poll (pfd, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      for (int side = 0; side < 2; side++)
        {
          int from = side == 0 ? p->client : p->proxy;
          int to = side == 0 ? p->proxy : p->client;
          ssize_t n;

          if (!open_in[side] || (pfd[side].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
            continue;
          n = recv (from, buf, sizeof buf, 0);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            {
              /* Pass the end on, keep the other direction going. */
              open_in[side] = 0;
              shutdown (to, SHUT_WR);
              if (n < 0)
                open_in[0] = open_in[1] = 0;
              continue;
            }
          if (write_all (to, buf, (size_t) n) != 0)
            open_in[0] = open_in[1] = 0;
        }
    }
  close (p->client);
  close (p->proxy);
  free (p);
  return NULL;
}

static int
connect_proxy (const char *path)
{
  struct sockaddr_un sun;
  int fd;

  if (strlen (path) >= sizeof sun.sun_path)
    return -1;
  memset (&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  memcpy (sun.sun_path, path, strlen (path));
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect (fd, (struct sockaddr *) &sun, sizeof sun) != 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

static void *
accept_thread (void *data)
{
  Bridge *b = data;

  for (;;)
    {
      int client = accept4 (b->listen_fd, NULL, NULL, SOCK_CLOEXEC);
      int proxy;
      Pipe *p;
      pthread_t thread;
      pthread_attr_t attr;

      if (client < 0)
        {
          if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE
              || errno == ENOBUFS || errno == ENOMEM)
            {
              if (errno != EINTR && errno != ECONNABORTED)
                usleep (10000);
              continue;
            }
          break;
        }
      proxy = connect_proxy (b->socket_path);
      if (proxy < 0)
        {
          /* The proxy is gone: the program sees its connection closed. */
          close (client);
          continue;
        }
      p = calloc (1, sizeof *p);
      if (p == NULL)
        {
          close (client);
          close (proxy);
          continue;
        }
      p->client = client;
      p->proxy = proxy;
      pthread_attr_init (&attr);
      pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
      pthread_attr_setstacksize (&attr, 256 * 1024);
      if (pthread_create (&thread, &attr, pump_thread, p) != 0)
        {
          close (client);
          close (proxy);
          free (p);
        }
      pthread_attr_destroy (&attr);
    }
  return NULL;
}

int
ow_wall_bridge_start (OwWallState *state, char *err, size_t err_size)
{
  Bridge *b;
  pthread_t thread;
  pthread_attr_t attr;
  int rc;

  if (state->bridge_fd < 0 || state->proxy_socket == NULL)
    return 0;
  b = calloc (1, sizeof *b);
  if (b == NULL)
    {
      snprintf (err, err_size, "out of memory starting the proxy bridge");
      return -1;
    }
  b->listen_fd = state->bridge_fd;
  b->socket_path = strdup (state->proxy_socket);
  pthread_attr_init (&attr);
  pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
  rc = pthread_create (&thread, &attr, accept_thread, b);
  pthread_attr_destroy (&attr);
  if (rc != 0)
    {
      snprintf (err, err_size, "cannot start the proxy bridge: %s", strerror (rc));
      free (b->socket_path);
      free (b);
      return -1;
    }
  /* The thread owns the socket now; it lives as long as the runner. */
  state->bridge_fd = -1;
  return 0;
}
