/* ow-runner-proto.c: frame I/O for the tool-runner protocol, over libc.
 *
 * A frame is a 4-byte big-endian length and that many bytes of JSON. Both
 * ends use the same two calls: the runner on its socket from several
 * threads (its callers hold a lock around each write, so frames never
 * interleave), and the tests on plain descriptors. The engine itself reads
 * frames asynchronously with GIO and only borrows the header helpers.
 *
 * A length above OW_RUNNER_MAX_FRAME is refused before anything is
 * allocated: a confused or hostile peer cannot make the other side reserve
 * gigabytes by sending four bytes.
 */
#include "sandbox/runner/ow-runner-proto.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

void
ow_runner_frame_header_encode (uint32_t len, unsigned char header[4])
{
  header[0] = (unsigned char) (len >> 24);
  header[1] = (unsigned char) (len >> 16);
  header[2] = (unsigned char) (len >> 8);
  header[3] = (unsigned char) len;
}

uint32_t
ow_runner_frame_header_decode (const unsigned char header[4])
{
  return ((uint32_t) header[0] << 24) | ((uint32_t) header[1] << 16)
         | ((uint32_t) header[2] << 8) | (uint32_t) header[3];
}

int
ow_runner_write_frame (int fd, const char *json, size_t len)
{
  unsigned char header[4];
  struct iovec iov[2];
  int n_iov = 2;

  if (len > OW_RUNNER_MAX_FRAME || (json == NULL && len > 0))
    {
      errno = EMSGSIZE;
      return -1;
    }
  ow_runner_frame_header_encode ((uint32_t) len, header);
  iov[0].iov_base = header;
  iov[0].iov_len = sizeof header;
  iov[1].iov_base = (void *) json;
  iov[1].iov_len = len;
  /* One writev for the common case; short writes advance through both
   * pieces so the header and the body always go out whole. */
  while (n_iov > 0)
    {
      struct iovec *first = &iov[2 - n_iov];
      ssize_t n = writev (fd, first, n_iov);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return -1;
        }
      while (n > 0 && n_iov > 0)
        {
          size_t take = (size_t) n < first->iov_len ? (size_t) n : first->iov_len;

          first->iov_base = (char *) first->iov_base + take;
          first->iov_len -= take;
          n -= (ssize_t) take;
          if (first->iov_len == 0)
            {
              n_iov--;
              first++;
            }
        }
      while (n_iov > 0 && iov[2 - n_iov].iov_len == 0)
        n_iov--;
    }
  return 0;
}

/* Reads exactly @len bytes. Returns the count read before end of stream
 * (less than @len only there), or -1 on a read error. */
static ssize_t
read_exact (int fd, void *buf, size_t len)
{
  size_t got = 0;

  while (got < len)
    {
      ssize_t n = read (fd, (char *) buf + got, len - got);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return -1;
        }
      if (n == 0)
        break;
      got += (size_t) n;
    }
  return (ssize_t) got;
}

long
ow_runner_read_frame (int fd, char **json_out)
{
  unsigned char header[4];
  ssize_t n;
  uint32_t len;
  char *body;

  *json_out = NULL;
  n = read_exact (fd, header, sizeof header);
  if (n < 0)
    return -1;
  if (n == 0)
    {
      errno = 0;
      return -1;
    }
  if (n < (ssize_t) sizeof header)
    {
      errno = EPROTO;
      return -1;
    }
  len = ow_runner_frame_header_decode (header);
  if (len > OW_RUNNER_MAX_FRAME)
    {
      errno = EMSGSIZE;
      return -1;
    }
  body = malloc ((size_t) len + 1);
  if (body == NULL)
    {
      errno = ENOMEM;
      return -1;
    }
  n = read_exact (fd, body, len);
  if (n < 0 || (size_t) n < len)
    {
      int saved = n < 0 ? errno : EPROTO;

      free (body);
      errno = saved;
      return -1;
    }
  body[len] = '\0';
  *json_out = body;
  return (long) len;
}
