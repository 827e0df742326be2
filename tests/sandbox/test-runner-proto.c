/* test-runner-proto.c: the framed protocol's frame I/O (ow-runner-proto.c).
 *
 * Round trips over socketpairs and pipes, the edge cases of the framing
 * (empty frames, frames split across many writes, a stream that ends in a
 * header or a body, a clean end between frames), the size limit on both
 * sides (a length above the limit is refused before anything is
 * allocated), and a large frame written by one thread and read by another.
 */
#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/runner/ow-runner-proto.h"

static void
make_pair (int sv[2])
{
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), ==, 0);
}

static void
test_header_codec (void)
{
  static const guint32 values[] = { 0, 1, 255, 256, 65535, 0x01020304, OW_RUNNER_MAX_FRAME, 0xffffffffu };
  unsigned char h[4];

  for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
    {
      ow_runner_frame_header_encode (values[i], h);
      g_assert_cmpuint (ow_runner_frame_header_decode (h), ==, values[i]);
    }
  ow_runner_frame_header_encode (0x01020304, h);
  g_assert_cmpuint (h[0], ==, 1);   /* big-endian on the wire */
  g_assert_cmpuint (h[3], ==, 4);
}

static void
test_round_trip (void)
{
  const char *frames[] = { "{\"op\":\"hello\",\"version\":1,\"pid\":7}", "{}", "",
                           "{\"id\":1,\"result\":\"caf\xc3\xa9 \\u0000 \\\"quoted\\\"\"}" };
  int sv[2];

  make_pair (sv);
  for (gsize i = 0; i < G_N_ELEMENTS (frames); i++)
    g_assert_cmpint (ow_runner_write_frame (sv[0], frames[i], strlen (frames[i])), ==, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      char *json = NULL;
      long n = ow_runner_read_frame (sv[1], &json);

      g_assert_cmpint (n, ==, (long) strlen (frames[i]));
      g_assert_cmpstr (json, ==, frames[i]);
      g_assert_cmpint (json[n], ==, '\0');
      free (json);
    }
  /* A clean end between frames: -1 with errno 0. */
  close (sv[0]);
  {
    char *json = (char *) "sentinel";

    errno = EINVAL;
    g_assert_cmpint (ow_runner_read_frame (sv[1], &json), ==, -1);
    g_assert_cmpint (errno, ==, 0);
    g_assert_null (json);
  }
  close (sv[1]);
}

/* Bytes arriving one at a time still make whole frames. */
static void
test_split_writes (void)
{
  const char *body = "{\"op\":\"call\",\"id\":42,\"tool\":\"read_file\",\"args\":\"{}\"}";
  unsigned char header[4];
  char *json = NULL;
  int fds[2];

  g_assert_cmpint (pipe (fds), ==, 0);
  ow_runner_frame_header_encode ((guint32) strlen (body), header);
  for (gsize i = 0; i < 4; i++)
    g_assert_cmpint (write (fds[1], header + i, 1), ==, 1);
  for (gsize i = 0; body[i] != '\0'; i++)
    g_assert_cmpint (write (fds[1], body + i, 1), ==, 1);
  g_assert_cmpint (ow_runner_read_frame (fds[0], &json), ==, (long) strlen (body));
  g_assert_cmpstr (json, ==, body);
  free (json);
  close (fds[0]);
  close (fds[1]);
}

static void
test_truncated_header (void)
{
  unsigned char header[4];
  char *json = NULL;
  int fds[2];

  g_assert_cmpint (pipe (fds), ==, 0);
  ow_runner_frame_header_encode (10, header);
  g_assert_cmpint (write (fds[1], header, 3), ==, 3);
  close (fds[1]);
  g_assert_cmpint (ow_runner_read_frame (fds[0], &json), ==, -1);
  g_assert_cmpint (errno, ==, EPROTO);
  g_assert_null (json);
  close (fds[0]);
}

static void
test_truncated_body (void)
{
  unsigned char header[4];
  char *json = NULL;
  int fds[2];

  g_assert_cmpint (pipe (fds), ==, 0);
  ow_runner_frame_header_encode (10, header);
  g_assert_cmpint (write (fds[1], header, 4), ==, 4);
  g_assert_cmpint (write (fds[1], "{\"a\":", 5), ==, 5);
  close (fds[1]);
  g_assert_cmpint (ow_runner_read_frame (fds[0], &json), ==, -1);
  g_assert_cmpint (errno, ==, EPROTO);
  g_assert_null (json);
  close (fds[0]);
}

/* A length above the limit is refused from the header alone: nothing is
 * allocated or read past it. */
static void
test_too_large_read (void)
{
  static const guint32 lengths[] = { OW_RUNNER_MAX_FRAME + 1, 0x7fffffffu, 0xffffffffu };

  for (gsize i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      unsigned char header[4];
      char *json = NULL;
      int fds[2];

      g_assert_cmpint (pipe (fds), ==, 0);
      ow_runner_frame_header_encode (lengths[i], header);
      g_assert_cmpint (write (fds[1], header, 4), ==, 4);
      g_assert_cmpint (write (fds[1], "{}", 2), ==, 2);
      g_assert_cmpint (ow_runner_read_frame (fds[0], &json), ==, -1);
      g_assert_cmpint (errno, ==, EMSGSIZE);
      g_assert_null (json);
      /* The body was left unread. */
      {
        char rest[2];

        g_assert_cmpint (read (fds[0], rest, 2), ==, 2);
      }
      close (fds[0]);
      close (fds[1]);
    }
}

static void
test_too_large_write (void)
{
  int sv[2];

  make_pair (sv);
  /* The length alone is checked; no memory of that size is needed. */
  g_assert_cmpint (ow_runner_write_frame (sv[0], "x", (size_t) OW_RUNNER_MAX_FRAME + 1), ==, -1);
  g_assert_cmpint (errno, ==, EMSGSIZE);
  g_assert_cmpint (ow_runner_write_frame (sv[0], NULL, 1), ==, -1);
  /* Nothing reached the other side. */
  close (sv[0]);
  {
    char *json = NULL;

    g_assert_cmpint (ow_runner_read_frame (sv[1], &json), ==, -1);
    g_assert_cmpint (errno, ==, 0);
  }
  close (sv[1]);
}

static void
test_write_to_closed_peer (void)
{
  int sv[2];

  make_pair (sv);
  close (sv[1]);
  signal (SIGPIPE, SIG_IGN);
  g_assert_cmpint (ow_runner_write_frame (sv[0], "{}", 2), ==, -1);
  g_assert_cmpint (errno, ==, EPIPE);
  close (sv[0]);
}

typedef struct {
  int    fd;    /* where to write */
  char  *data;  /* the frame (borrowed) */
  size_t len;   /* its length */
} BigWrite;

static gpointer
big_writer (gpointer user_data)
{
  BigWrite *w = user_data;

  g_assert_cmpint (ow_runner_write_frame (w->fd, w->data, w->len), ==, 0);
  g_assert_cmpint (ow_runner_write_frame (w->fd, "{}", 2), ==, 0);
  return NULL;
}

/* 8 MiB through a socket buffer of a few hundred KiB: many short writes
 * and reads on both sides, one frame in the end. */
static void
test_large_frame (void)
{
  BigWrite w;
  GThread *thread;
  char *json = NULL;
  int sv[2];

  make_pair (sv);
  w.fd = sv[0];
  w.len = 8u * 1024u * 1024u;
  w.data = g_malloc (w.len);
  for (size_t i = 0; i < w.len; i++)
    w.data[i] = (char) ('a' + i % 26);
  thread = g_thread_new ("writer", big_writer, &w);
  g_assert_cmpint (ow_runner_read_frame (sv[1], &json), ==, (long) w.len);
  g_assert_true (memcmp (json, w.data, w.len) == 0);
  free (json);
  g_assert_cmpint (ow_runner_read_frame (sv[1], &json), ==, 2);
  g_assert_cmpstr (json, ==, "{}");
  free (json);
  g_thread_join (thread);
  g_free (w.data);
  close (sv[0]);
  close (sv[1]);
}

/* Frames from several threads never interleave when each write is whole
 * and the callers take turns (the runner holds a lock per frame). */
typedef struct {
  int     fd;     /* shared socket */
  GMutex *lock;   /* the writers' turn */
  int     which;  /* this writer's number */
} Writer;

static gpointer
locked_writer (gpointer user_data)
{
  Writer *w = user_data;

  for (int i = 0; i < 200; i++)
    {
      g_autofree char *frame = g_strdup_printf ("{\"writer\":%d,\"n\":%d,\"pad\":\"%0*d\"}", w->which, i,
                                                100 + i * 10, 0);

      g_mutex_lock (w->lock);
      g_assert_cmpint (ow_runner_write_frame (w->fd, frame, strlen (frame)), ==, 0);
      g_mutex_unlock (w->lock);
    }
  return NULL;
}

static void
test_concurrent_writers (void)
{
  GMutex lock;
  Writer writers[4];
  GThread *threads[4];
  int sv[2], seen[4] = { 0 };

  make_pair (sv);
  g_mutex_init (&lock);
  for (int i = 0; i < 4; i++)
    {
      writers[i] = (Writer) { sv[0], &lock, i };
      threads[i] = g_thread_new ("w", locked_writer, &writers[i]);
    }
  for (int n = 0; n < 800; n++)
    {
      char *json = NULL;
      int which = -1, k = -1;

      g_assert_cmpint (ow_runner_read_frame (sv[1], &json), >, 0);
      g_assert_cmpint (sscanf (json, "{\"writer\":%d,\"n\":%d", &which, &k), ==, 2);
      g_assert_cmpint (k, ==, seen[which]);   /* in order, none lost, none torn */
      seen[which]++;
      free (json);
    }
  for (int i = 0; i < 4; i++)
    g_thread_join (threads[i]);
  g_mutex_clear (&lock);
  close (sv[0]);
  close (sv[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/sandbox/proto/header-codec", test_header_codec);
  g_test_add_func ("/ow/sandbox/proto/round-trip", test_round_trip);
  g_test_add_func ("/ow/sandbox/proto/split-writes", test_split_writes);
  g_test_add_func ("/ow/sandbox/proto/truncated-header", test_truncated_header);
  g_test_add_func ("/ow/sandbox/proto/truncated-body", test_truncated_body);
  g_test_add_func ("/ow/sandbox/proto/too-large-read", test_too_large_read);
  g_test_add_func ("/ow/sandbox/proto/too-large-write", test_too_large_write);
  g_test_add_func ("/ow/sandbox/proto/closed-peer", test_write_to_closed_peer);
  g_test_add_func ("/ow/sandbox/proto/large-frame", test_large_frame);
  g_test_add_func ("/ow/sandbox/proto/concurrent-writers", test_concurrent_writers);
  return g_test_run ();
}
