/* ow-tb-files.c: read_file, write_file, replace_in_file and list_files.
 *
 * read_file streams the file once: it counts every line (the model needs
 * total_lines to page), checks that the whole file is UTF-8 text, and
 * keeps only the requested window, so a large log costs one pass and a
 * bounded amount of memory. Binary files are refused with advice rather
 * than dumped: bytes that are not text are noise to a model.
 *
 * Writes go to a temporary file in the same folder which is then renamed
 * over the target, so a reader (an editor, a running build) sees the old
 * file or the new one and never a half-written one; an existing file
 * keeps its permission bits. apply_patch uses the same staging in two
 * phases so that it changes nothing until every file is staged.
 */
#include "ow-tb-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_MAX_LINES    2000
#define READ_LINE_CHARS   500
#define BINARY_PROBE      8192
/* replace_in_file holds the whole file in memory; beyond this, sed is the tool. */
#define REPLACE_MAX_BYTES (64u * 1024 * 1024)
/* The mismatch hints look at this much of the file at most. */
#define HINT_MAX_BYTES    (4u * 1024 * 1024)
#define LIST_MAX_VISITED  200000
#define LIST_MAX_DEPTH    64

int
ow_tb_is_binary (const char *data, size_t len)
{
  size_t probe = len < BINARY_PROBE ? len : BINARY_PROBE;

  if (memchr (data, '\0', probe) != NULL)
    return 1;
  return !ow_tb_utf8_valid (data, len);
}

int
ow_tb_read_whole (const OwTbEnv *env, const char *abs, size_t max, OwTbBuf *into, char **error)
{
  char scratch[128];
  struct stat st;
  int fd;

  ow_tb_buf_reset (into);
  /* O_NONBLOCK: a FIFO put in the file's place must not hang the call. */
  fd = ow_tb_open_in_root (env, abs, O_RDONLY | O_NONBLOCK, 0);
  if (fd < 0)
    {
      if (errno == EXDEV || errno == ELOOP)
        *error = ow_tb_confinement_error ("read", abs, errno);
      else
        *error = ow_tb_strdup_printf ("read failed: %s",
                                      ow_tb_strerror (errno, scratch, sizeof scratch));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      *error = ow_tb_xstrdup ("not a regular file");
      return -1;
    }
  if ((size_t) st.st_size > max)
    {
      close (fd);
      *error = ow_tb_strdup_printf ("the file is too large (%lld bytes; the limit is %zu)",
                                    (long long) st.st_size, max);
      return -1;
    }
  for (;;)
    {
      char chunk[65536];
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n == 0)
        break;
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          *error = ow_tb_strdup_printf ("read failed: %s",
                                        ow_tb_strerror (errno, scratch, sizeof scratch));
          close (fd);
          return -1;
        }
      if (into->len + (size_t) n > max)
        {
          close (fd);
          *error = ow_tb_strdup_printf ("the file grew past the limit of %zu bytes", max);
          return -1;
        }
      ow_tb_buf_append (into, chunk, (size_t) n);
    }
  close (fd);
  return 0;
}

/* ---- staged, atomic writes ---- */

int
ow_tb_stage_write (const OwTbEnv *env, const char *abs, const char *data, size_t len,
                   OwTbStaged *staged, char **error)
{
  const char *base;
  char scratch[128];
  struct stat st;
  int have_old, dirfd, fd = -1;
  char *tmp = NULL;
  size_t done = 0;

  staged->target = NULL;
  staged->base = NULL;
  staged->tmp = NULL;
  staged->dirfd = -1;
  /* Every step from here works in this folder, never by name again. */
  dirfd = ow_tb_open_parent_in_root (env, abs, 1, &base, error);
  if (dirfd < 0)
    return -1;
  have_old = fstatat (dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG (st.st_mode);
  if (have_old && st.st_nlink > 1)
    {
      *error = ow_tb_strdup_printf ("cannot write %s: it has %lu hard links, and the others may be "
                                    "outside the session's folders; writing would leave them with the "
                                    "old content. Copy it to a file of its own first (cp, then mv) if "
                                    "this one should change.",
                                    abs, (unsigned long) st.st_nlink);
      close (dirfd);
      return -1;
    }

  for (int attempt = 0; attempt < 64 && fd < 0; attempt++)
    {
      unsigned long long r = 0;

      if (getrandom (&r, sizeof r, GRND_NONBLOCK) != (ssize_t) sizeof r)
        r = ((unsigned long long) getpid () << 32) ^ (unsigned long long) ow_tb_now_ms ()
            ^ (unsigned) attempt;
      free (tmp);
      tmp = ow_tb_strdup_printf (".%s.ow-tmp-%012llx", base, r & 0xffffffffffffull);
      /* A new file gets 0666 less the umask, as any editor's would; an
       * existing file's bits are copied below. */
      fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   have_old ? 0600 : 0666);
      if (fd < 0 && errno != EEXIST)
        break;
    }
  if (fd < 0)
    {
      *error = ow_tb_strdup_printf ("cannot write %s: %s", abs,
                                    ow_tb_strerror (errno, scratch, sizeof scratch));
      free (tmp);
      close (dirfd);
      return -1;
    }
  while (done < len)
    {
      ssize_t n = write (fd, data + done, len - done);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          *error = ow_tb_strdup_printf ("cannot write %s: %s", abs,
                                        ow_tb_strerror (errno, scratch, sizeof scratch));
          close (fd);
          unlinkat (dirfd, tmp, 0);
          free (tmp);
          close (dirfd);
          return -1;
        }
      done += (size_t) n;
    }
  if (have_old)
    {
      fchmod (fd, st.st_mode & 07777);
      /* Only effective (and only attempted by the kernel) when we may. */
      if (fchown (fd, st.st_uid, st.st_gid) != 0)
        errno = 0;
    }
  if (close (fd) != 0)
    {
      *error = ow_tb_strdup_printf ("cannot write %s: %s", abs,
                                    ow_tb_strerror (errno, scratch, sizeof scratch));
      unlinkat (dirfd, tmp, 0);
      free (tmp);
      close (dirfd);
      return -1;
    }
  staged->target = ow_tb_xstrdup (abs);
  staged->base = ow_tb_xstrdup (base);
  staged->tmp = tmp;
  staged->dirfd = dirfd;
  return 0;
}

/* Staged entries may be zero-filled and never staged (apply_patch keeps
 * one per file): only a staged one (base set) owns its descriptor. */
static void
stage_clear (OwTbStaged *staged)
{
  if (staged->base != NULL && staged->dirfd >= 0)
    close (staged->dirfd);
  free (staged->tmp);
  free (staged->base);
  free (staged->target);
  staged->tmp = NULL;
  staged->base = NULL;
  staged->target = NULL;
  staged->dirfd = -1;
}

int
ow_tb_stage_commit (OwTbStaged *staged, char **error)
{
  char scratch[128];

  /* rename replaces the name; it never follows a link put there. */
  if (renameat (staged->dirfd, staged->tmp, staged->dirfd, staged->base) != 0)
    {
      *error = ow_tb_strdup_printf ("cannot replace %s: %s", staged->target,
                                    ow_tb_strerror (errno, scratch, sizeof scratch));
      ow_tb_stage_abort (staged);
      return -1;
    }
  stage_clear (staged);
  return 0;
}

void
ow_tb_stage_abort (OwTbStaged *staged)
{
  if (staged->tmp != NULL && staged->base != NULL)
    unlinkat (staged->dirfd, staged->tmp, 0);
  stage_clear (staged);
}

int
ow_tb_unlink_in_root (const OwTbEnv *env, const char *abs, char **error)
{
  const char *base;
  int dirfd = ow_tb_open_parent_in_root (env, abs, 0, &base, error);
  int rc;

  if (dirfd < 0)
    return -1;
  rc = unlinkat (dirfd, base, 0);
  if (rc != 0 && errno != ENOENT)
    *error = ow_tb_confinement_error ("delete", abs, errno);
  else
    rc = 0;
  close (dirfd);
  return rc;
}

/* ---- read_file ---- */

/* The paging window and what has been seen so far. */
typedef struct {
  long long start;      /* first line wanted (1-based) */
  long long max;        /* how many lines wanted */
  long long total;      /* complete lines seen */
  int       partial;    /* bytes seen since the last newline */
  OwTbBuf   line;       /* the current line when it is in the window (head only) */
  size_t    line_bytes; /* bytes of the current line seen, kept or not */
  OwTbBuf   content;    /* the numbered window */
  long long shown;      /* lines put into content */
} ReadState;

/* Enough bytes for READ_LINE_CHARS characters of any UTF-8. */
#define LINE_KEEP (READ_LINE_CHARS * 4 + 4)

static void
read_finish_line (ReadState *rs)
{
  long long lineno = rs->total + 1;

  if (lineno >= rs->start && lineno < rs->start + rs->max)
    {
      size_t len = rs->line.len;
      size_t head;

      if (len > 0 && rs->line.data[len - 1] == '\r' && rs->line_bytes == len)
        len--;
      head = ow_tb_utf8_head (rs->line.data, len, READ_LINE_CHARS);
      if (rs->shown > 0)
        ow_tb_buf_append (&rs->content, "\n", 1);
      ow_tb_buf_printf (&rs->content, "%6lld\t", lineno);
      ow_tb_buf_append (&rs->content, rs->line.data, head);
      if (head < len || rs->line_bytes > rs->line.len)
        ow_tb_buf_puts (&rs->content, "\xe2\x80\xa6 (line truncated)");
      rs->shown++;
    }
  rs->total++;
  rs->partial = 0;
  rs->line_bytes = 0;
  ow_tb_buf_reset (&rs->line);
}

static void
read_feed (ReadState *rs, const char *data, size_t len)
{
  while (len > 0)
    {
      const char *nl = memchr (data, '\n', len);
      size_t seg = nl != NULL ? (size_t) (nl - data) : len;
      long long lineno = rs->total + 1;

      if (seg > 0)
        {
          rs->partial = 1;
          if (lineno >= rs->start && lineno < rs->start + rs->max && rs->line.len < LINE_KEEP)
            {
              size_t keep = LINE_KEEP - rs->line.len;

              ow_tb_buf_append (&rs->line, data, seg < keep ? seg : keep);
            }
          rs->line_bytes += seg;
        }
      if (nl == NULL)
        return;
      read_finish_line (rs);
      data += seg + 1;
      len -= seg + 1;
    }
}

static OwTbStatus
binary_refusal (OwTbBuf *out, const char *raw, const char *display, long long size)
{
  OwTbObj obj;

  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_key (&obj, "error");
  {
    char *msg = ow_tb_strdup_printf (
      "%s is a binary file (%lld bytes), not UTF-8 text, so it is not shown. "
      "Inspect it with run_shell instead, e.g. `file %s` or `xxd %s | head`.",
      raw, size, display, display);
    ow_tb_buf_json_string (out, msg, (size_t) -1);
    free (msg);
  }
  ow_tb_obj_str (&obj, "path", display);
  ow_tb_obj_bool (&obj, "binary", 1);
  ow_tb_obj_int (&obj, "size", size);
  ow_tb_obj_end (&obj);
  return OW_TB_ERROR;
}

OwTbStatus
ow_tb_tool_read_file (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *raw;
  long long start, max;
  OwTbPath path;
  ReadState rs;
  struct stat st;
  unsigned char block[65536 + 4];
  size_t carry = 0;
  long long offset = 0;
  char scratch[128];
  int fd, binary = 0;
  OwTbObj obj;

  if (ow_tb_arg_string (args, "path", 1, &raw, NULL, out) != 0
      || ow_tb_arg_int (args, "start_line", 1, &start, out) != 0
      || ow_tb_arg_int (args, "max_lines", READ_MAX_LINES, &max, out) != 0)
    return OW_TB_BAD_ARGS;
  if (start < 1)
    start = 1;
  if (max < 1)
    max = 1;
  if (max > READ_MAX_LINES)
    max = READ_MAX_LINES;
  if (ow_tb_path_resolve (env, raw, OW_TB_ACCESS_READ, &path, out) != 0)
    return OW_TB_ERROR;

  fd = ow_tb_open_in_root (env, path.abs, O_RDONLY | O_NONBLOCK, 0);
  if (fd < 0 && (errno == EXDEV || errno == ELOOP))
    {
      char *msg = ow_tb_confinement_error ("read", raw, errno);

      ow_tb_set_error (out, "%s", msg);
      free (msg);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  if (fd < 0 && errno == ENOENT)
    {
      ow_tb_set_error (out, "not a file: %s", raw);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  if (fd < 0)
    {
      ow_tb_set_error (out, "read failed: %s", ow_tb_strerror (errno, scratch, sizeof scratch));
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      ow_tb_set_error (out, "not a file: %s", raw);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }

  memset (&rs, 0, sizeof rs);
  rs.start = start;
  rs.max = max;
  ow_tb_buf_init (&rs.line);
  ow_tb_buf_init (&rs.content);
  for (;;)
    {
      ssize_t n = read (fd, block + carry, sizeof block - 4 - carry);
      size_t avail, i = 0, valid_end;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          ow_tb_set_error (out, "read failed: %s", ow_tb_strerror (errno, scratch, sizeof scratch));
          close (fd);
          ow_tb_buf_free (&rs.line);
          ow_tb_buf_free (&rs.content);
          ow_tb_path_clear (&path);
          return OW_TB_ERROR;
        }
      if (n == 0)
        {
          binary = binary || carry > 0; /* a sequence cut off by the end of the file */
          break;
        }
      avail = carry + (size_t) n;
      if (offset < BINARY_PROBE)
        {
          size_t probe = (size_t) (BINARY_PROBE - offset);

          if (memchr (block + carry, '\0', (size_t) n < probe ? (size_t) n : probe) != NULL)
            {
              binary = 1;
              break;
            }
        }
      offset += n;
      /* Validate UTF-8; a sequence split by the read boundary is carried
       * over to the next block instead of being judged half-seen. */
      while (i < avail)
        {
          size_t k;

          if (block[i] < 0x80)
            {
              i++;
              continue;
            }
          k = ow_tb_utf8_seq_len (block + i, avail - i);
          if (k == 0)
            {
              if (avail - i < 4 && block[i] >= 0xc2 && block[i] <= 0xf4)
                break;
              binary = 1;
              break;
            }
          i += k;
        }
      if (binary)
        break;
      valid_end = i;
      read_feed (&rs, (const char *) block, valid_end);
      carry = avail - valid_end;
      memmove (block, block + valid_end, carry);
    }
  close (fd);
  if (binary)
    {
      OwTbStatus status = binary_refusal (out, raw, path.display, (long long) st.st_size);

      ow_tb_buf_free (&rs.line);
      ow_tb_buf_free (&rs.content);
      ow_tb_path_clear (&path);
      return status;
    }
  if (rs.partial)
    read_finish_line (&rs);

  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_str (&obj, "path", path.display);
  ow_tb_obj_int (&obj, "start_line", start);
  ow_tb_obj_int (&obj, "end_line", start + rs.shown - 1);
  ow_tb_obj_int (&obj, "total_lines", rs.total);
  ow_tb_obj_strn (&obj, "content", rs.content.data, rs.content.len);
  if (rs.shown > 0 && start + rs.shown - 1 < rs.total)
    {
      long long end = start + rs.shown - 1;
      char *note = ow_tb_strdup_printf ("showing lines %lld-%lld of %lld; "
                                        "call again with start_line=%lld to continue",
                                        start, end, rs.total, end + 1);
      ow_tb_obj_str (&obj, "note", note);
      free (note);
    }
  else if (rs.shown == 0 && rs.total > 0)
    {
      char *note = ow_tb_strdup_printf ("start_line %lld is past the end of the file (%lld lines)",
                                        start, rs.total);
      ow_tb_obj_str (&obj, "note", note);
      free (note);
    }
  ow_tb_obj_end (&obj);
  ow_tb_buf_free (&rs.line);
  ow_tb_buf_free (&rs.content);
  ow_tb_path_clear (&path);
  return OW_TB_OK;
}

/* ---- write_file ---- */

OwTbStatus
ow_tb_tool_write_file (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *raw, *content;
  size_t content_len;
  int overwrite, existed;
  OwTbPath path;
  OwTbStaged staged;
  struct stat st;
  char *error = NULL;
  OwTbObj obj;

  if (ow_tb_arg_string (args, "path", 1, &raw, NULL, out) != 0
      || ow_tb_arg_string (args, "content", 1, &content, &content_len, out) != 0
      || ow_tb_arg_bool (args, "overwrite", 1, &overwrite, out) != 0)
    return OW_TB_BAD_ARGS;
  if (ow_tb_path_resolve (env, raw, OW_TB_ACCESS_WRITE, &path, out) != 0)
    return OW_TB_ERROR;
  existed = stat (path.abs, &st) == 0;
  if (existed && S_ISDIR (st.st_mode))
    {
      ow_tb_set_error (out, "path is a directory: %s", raw);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  if (existed && !overwrite)
    {
      ow_tb_set_error (out, "file already exists: %s (pass overwrite: true to replace it)", raw);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  if (existed && !S_ISREG (st.st_mode))
    {
      ow_tb_set_error (out, "not a regular file: %s", raw);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  if (ow_tb_stage_write (env, path.abs, content, content_len, &staged, &error) != 0
      || ow_tb_stage_commit (&staged, &error) != 0)
    {
      ow_tb_set_error (out, "%s", error);
      free (error);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_str (&obj, "path", path.display);
  ow_tb_obj_int (&obj, "bytes", (long long) content_len);
  ow_tb_obj_bool (&obj, "created", !existed);
  ow_tb_obj_end (&obj);
  ow_tb_path_clear (&path);
  return OW_TB_OK;
}

/* ---- replace_in_file ---- */

static size_t
count_occurrences (const char *hay, size_t hay_len, const char *needle, size_t needle_len)
{
  size_t count = 0, at = 0;

  while (at + needle_len <= hay_len)
    {
      const char *hit = memmem (hay + at, hay_len - at, needle, needle_len);

      if (hit == NULL)
        break;
      count++;
      at = (size_t) (hit - hay) + needle_len;
    }
  return count;
}

static int
is_space (unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Collapses each run of whitespace to one space and trims the ends. When
 * @origin is not NULL it receives, for each output byte, the input offset. */
static char *
normalise_space (const char *s, size_t len, size_t *out_len, size_t **origin)
{
  char *norm = ow_tb_xmalloc (len + 1);
  size_t *map = origin != NULL ? ow_tb_xmalloc ((len + 1) * sizeof *map) : NULL;
  size_t n = 0;
  int pending = 0;

  for (size_t i = 0; i < len; i++)
    {
      if (is_space ((unsigned char) s[i]))
        {
          pending = n > 0;
          continue;
        }
      if (pending)
        {
          if (map != NULL)
            map[n] = i;
          norm[n++] = ' ';
          pending = 0;
        }
      if (map != NULL)
        map[n] = i;
      norm[n++] = s[i];
    }
  norm[n] = '\0';
  *out_len = n;
  if (origin != NULL)
    *origin = map;
  return norm;
}

static long long
line_of_offset (const char *s, size_t offset)
{
  long long line = 1;

  for (size_t i = 0; i < offset; i++)
    if (s[i] == '\n')
      line++;
  return line;
}

/* Bigram similarity (Dice) of @b against the bigram counts of the probe.
 * @counts is restored before returning. */
static double
dice (unsigned short *counts, size_t probe_bigrams, const char *b, size_t blen,
      unsigned *touched)
{
  size_t matches = 0, n_touched = 0;

  if (blen < 2 || probe_bigrams == 0)
    return 0;
  for (size_t i = 0; i + 1 < blen; i++)
    {
      unsigned h = ((unsigned char) b[i] * 31u + (unsigned char) b[i + 1]) & 4095u;

      if (counts[h] > 0)
        {
          counts[h]--;
          touched[n_touched++] = h;
          matches++;
        }
    }
  for (size_t i = 0; i < n_touched; i++)
    counts[touched[i]]++;
  return 2.0 * (double) matches / (double) (probe_bigrams + blen - 1);
}

static void
trim (const char **s, size_t *len)
{
  while (*len > 0 && is_space ((unsigned char) (*s)[0]))
    {
      (*s)++;
      (*len)--;
    }
  while (*len > 0 && is_space ((unsigned char) (*s)[*len - 1]))
    (*len)--;
}

/* Why `old` was not found: whitespace differences, or the nearest line. */
static char *
mismatch_hint (const char *text, size_t text_len, const char *old, size_t old_len)
{
  size_t hay_len, needle_len, probe_len = 0, best_len = 0;
  size_t *origin = NULL;
  char *hay, *needle, *hint = NULL;
  const char *probe = NULL, *line, *best = NULL;
  unsigned short *counts;
  unsigned *touched;
  double best_score = 0;
  long long lineno = 0, best_line = 0;

  if (text_len > HINT_MAX_BYTES)
    return ow_tb_xstrdup ("Read the file again to see its current content.");

  needle = normalise_space (old, old_len, &needle_len, NULL);
  hay = normalise_space (text, text_len, &hay_len, &origin);
  if (needle_len > 0)
    {
      const char *hit = memmem (hay, hay_len, needle, needle_len);

      if (hit != NULL)
        hint = ow_tb_strdup_printf (
          "The text does occur near line %lld if whitespace is ignored: indentation, tabs "
          "or line breaks differ. Copy `old` exactly from read_file output (without the line "
          "number prefix).",
          line_of_offset (text, origin[hit - hay]));
    }
  free (needle);
  free (hay);
  free (origin);
  if (hint != NULL)
    return hint;

  /* The first non-blank line of `old` is the one the model most likely
   * copied; find the file line that looks most like it. */
  line = old;
  while (line < old + old_len)
    {
      const char *nl = memchr (line, '\n', (size_t) (old + old_len - line));
      const char *s = line;
      size_t len = (size_t) ((nl != NULL ? nl : old + old_len) - line);

      trim (&s, &len);
      if (len > 0)
        {
          probe = s;
          probe_len = len > 1000 ? 1000 : len;
          break;
        }
      if (nl == NULL)
        break;
      line = nl + 1;
    }
  if (probe == NULL || probe_len < 2)
    return ow_tb_xstrdup ("Read the file again to see its current content.");

  counts = ow_tb_xcalloc (4096, sizeof *counts);
  touched = ow_tb_xmalloc (1000 * sizeof *touched);
  for (size_t i = 0; i + 1 < probe_len; i++)
    counts[((unsigned char) probe[i] * 31u + (unsigned char) probe[i + 1]) & 4095u]++;
  line = text;
  while (line < text + text_len)
    {
      const char *nl = memchr (line, '\n', (size_t) (text + text_len - line));
      const char *s = line;
      size_t len = (size_t) ((nl != NULL ? nl : text + text_len) - line);
      double score;

      lineno++;
      trim (&s, &len);
      if (len > 1000)
        len = 1000;
      score = dice (counts, probe_len - 1, s, len, touched);
      if (score > best_score)
        {
          best_score = score;
          best = s;
          best_len = len;
          best_line = lineno;
        }
      if (nl == NULL)
        break;
      line = nl + 1;
    }
  free (counts);
  free (touched);
  if (best != NULL && best_score >= 0.5)
    {
      size_t show = ow_tb_utf8_head (best, best_len, 200);

      return ow_tb_strdup_printf ("The closest line in the file is line %lld: %.*s", best_line,
                                  (int) show, best);
    }
  return ow_tb_xstrdup ("Nothing in the file resembles it; read the file again to see its "
                        "current content.");
}

OwTbStatus
ow_tb_tool_replace_in_file (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *raw, *old, *new_text;
  size_t old_len, new_len, count;
  long long expected;
  OwTbPath path;
  OwTbBuf text, result;
  OwTbStaged staged;
  struct stat st;
  char *error = NULL;
  OwTbObj obj;

  if (ow_tb_arg_string (args, "path", 1, &raw, NULL, out) != 0
      || ow_tb_arg_string (args, "old", 1, &old, &old_len, out) != 0
      || ow_tb_arg_string (args, "new", 1, &new_text, &new_len, out) != 0
      || ow_tb_arg_int (args, "expected_replacements", 1, &expected, out) != 0)
    return OW_TB_BAD_ARGS;
  if (old_len == 0)
    {
      ow_tb_set_error (out, "parameter \"old\" must not be empty; use write_file to create a file");
      return OW_TB_BAD_ARGS;
    }
  if (expected < 1)
    {
      ow_tb_set_error (out, "parameter \"expected_replacements\" must be at least 1");
      return OW_TB_BAD_ARGS;
    }
  if (ow_tb_path_resolve (env, raw, OW_TB_ACCESS_WRITE, &path, out) != 0)
    return OW_TB_ERROR;
  if (stat (path.abs, &st) != 0 || !S_ISREG (st.st_mode))
    {
      ow_tb_set_error (out, "not a file: %s", raw);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  ow_tb_buf_init (&text);
  if (ow_tb_read_whole (env, path.abs, REPLACE_MAX_BYTES, &text, &error) != 0)
    {
      ow_tb_set_error (out, "%s: %s", raw, error);
      goto fail;
    }
  if (ow_tb_is_binary (text.data, text.len))
    {
      binary_refusal (out, raw, path.display, (long long) text.len);
      goto fail;
    }

  count = count_occurrences (text.data, text.len, old, old_len);
  if (count != (size_t) expected)
    {
      char *hint = NULL;

      if (count == 0)
        hint = mismatch_hint (text.data, text.len, old, old_len);
      else if (count > (size_t) expected)
        hint = ow_tb_strdup_printf ("Include more surrounding lines in `old` so that it matches "
                                    "only the place you mean, or set expected_replacements to "
                                    "%zu to replace every occurrence.", count);
      else
        hint = ow_tb_strdup_printf ("Set expected_replacements to %zu if those are all the places "
                                    "you meant.", count);
      ow_tb_buf_reset (out);
      ow_tb_obj_begin (&obj, out);
      ow_tb_obj_key (&obj, "error");
      {
        char *msg = ow_tb_strdup_printf ("Expected %lld replacement(s), found %zu in %s. %s",
                                         expected, count, path.display, hint);
        ow_tb_buf_json_string (out, msg, (size_t) -1);
        free (msg);
      }
      ow_tb_obj_str (&obj, "path", path.display);
      ow_tb_obj_int (&obj, "expected", expected);
      ow_tb_obj_int (&obj, "found", (long long) count);
      ow_tb_obj_end (&obj);
      free (hint);
      goto fail;
    }

  ow_tb_buf_init (&result);
  {
    size_t at = 0;

    while (at < text.len)
      {
        const char *hit = memmem (text.data + at, text.len - at, old, old_len);

        if (hit == NULL)
          break;
        ow_tb_buf_append (&result, text.data + at, (size_t) (hit - text.data) - at);
        ow_tb_buf_append (&result, new_text, new_len);
        at = (size_t) (hit - text.data) + old_len;
      }
    ow_tb_buf_append (&result, text.data + at, text.len - at);
  }
  if (ow_tb_stage_write (env, path.abs, result.data, result.len, &staged, &error) != 0
      || ow_tb_stage_commit (&staged, &error) != 0)
    {
      ow_tb_set_error (out, "%s", error);
      ow_tb_buf_free (&result);
      goto fail;
    }
  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_str (&obj, "path", path.display);
  ow_tb_obj_int (&obj, "replacements", (long long) count);
  ow_tb_obj_int (&obj, "chars_before", (long long) ow_tb_utf8_count (text.data, text.len));
  ow_tb_obj_int (&obj, "chars_after", (long long) ow_tb_utf8_count (result.data, result.len));
  ow_tb_obj_end (&obj);
  ow_tb_buf_free (&result);
  ow_tb_buf_free (&text);
  ow_tb_path_clear (&path);
  return OW_TB_OK;

fail:
  free (error);
  ow_tb_buf_free (&text);
  ow_tb_path_clear (&path);
  return OW_TB_ERROR;
}

/* ---- list_files ---- */

/* A folder walk in progress. */
typedef struct {
  const char *pattern;   /* fnmatch pattern for file names */
  int         recursive; /* descend into subfolders */
  int         cancel_fd; /* stop when readable */
  char      **files;     /* matches, relative to the listed folder (owned) */
  size_t      n_files;   /* how many matches */
  size_t      cap_files; /* allocated slots in @files */
  size_t      visited;   /* entries looked at, against LIST_MAX_VISITED */
  int         stopped;   /* the walk was cut short (cap or cancel) */
  int         cancelled; /* …because cancel_fd fired */
} ListWalk;

/* Walks the folder open at @fd (taken over and closed). Each subfolder is
 * opened from its parent's descriptor with O_NOFOLLOW, so a folder
 * swapped for a symlink mid-walk is not followed out of the root. */
static void
list_walk (ListWalk *w, int fd, const char *rel, int depth)
{
  DIR *dir;
  struct dirent *e;

  if (depth > LIST_MAX_DEPTH || w->stopped || (dir = fdopendir (fd)) == NULL)
    {
      close (fd);
      return;
    }
  while ((e = readdir (dir)) != NULL)
    {
      const char *name = e->d_name;
      char *child_rel;
      int is_dir = 0, is_file = 0;

      if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
        continue;
      if (++w->visited > LIST_MAX_VISITED)
        {
          w->stopped = 1;
          break;
        }
      if ((w->visited & 1023) == 0 && ow_tb_cancelled (w->cancel_fd))
        {
          w->stopped = w->cancelled = 1;
          break;
        }
      if (e->d_type == DT_DIR)
        is_dir = 1;
      else if (e->d_type == DT_REG)
        is_file = 1;
      else if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN)
        {
          struct stat st;

          /* A link to a file is listed; a link to a folder is not walked
           * (it could lead out of the roots or round in a loop). */
          if (e->d_type == DT_UNKNOWN && fstatat (dirfd (dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0
              && S_ISDIR (st.st_mode))
            is_dir = 1;
          else if (fstatat (dirfd (dir), name, &st, 0) == 0 && S_ISREG (st.st_mode))
            is_file = 1;
        }
      if (is_dir || is_file)
        child_rel = rel[0] != '\0' ? ow_tb_strdup_printf ("%s/%s", rel, name)
                                   : ow_tb_xstrdup (name);
      else
        child_rel = NULL;
      if (is_dir && w->recursive && !ow_tb_name_in_list (name, ow_tb_list_ignored_dirs))
        {
          int child = openat (dirfd (dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

          if (child >= 0)
            list_walk (w, child, child_rel, depth + 1);
        }
      else if (is_file && fnmatch (w->pattern, name, 0) == 0)
        {
          if (w->n_files == w->cap_files)
            {
              w->cap_files = w->cap_files ? w->cap_files * 2 : 64;
              w->files = ow_tb_xrealloc (w->files, w->cap_files * sizeof *w->files);
            }
          w->files[w->n_files++] = child_rel;
          child_rel = NULL;
        }
      free (child_rel);
    }
  closedir (dir);
}

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

OwTbStatus
ow_tb_tool_list_files (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out)
{
  const char *raw, *pattern;
  long long max;
  int recursive;
  OwTbPath path;
  ListWalk walk;
  struct stat st;
  OwTbObj obj, arr;
  size_t shown;

  if (ow_tb_arg_string (args, "path", 0, &raw, NULL, out) != 0
      || ow_tb_arg_string (args, "pattern", 0, &pattern, NULL, out) != 0
      || ow_tb_arg_bool (args, "recursive", 1, &recursive, out) != 0
      || ow_tb_arg_int (args, "max_results", 100, &max, out) != 0)
    return OW_TB_BAD_ARGS;
  if (raw == NULL || raw[0] == '\0')
    raw = ".";
  if (pattern == NULL || pattern[0] == '\0')
    pattern = "*";
  if (max < 1)
    max = 1;
  if (max > 10000)
    max = 10000;
  if (ow_tb_path_resolve (env, raw, OW_TB_ACCESS_READ, &path, out) != 0)
    return OW_TB_ERROR;
  if (stat (path.abs, &st) != 0)
    {
      ow_tb_set_error (out, "no such directory: %s", raw);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }
  if (!S_ISDIR (st.st_mode))
    {
      ow_tb_set_error (out, "not a directory: %s (use read_file to read a file)", raw);
      ow_tb_path_clear (&path);
      return OW_TB_ERROR;
    }

  memset (&walk, 0, sizeof walk);
  walk.pattern = pattern;
  walk.recursive = recursive;
  walk.cancel_fd = env->cancel_fd;
  {
    int fd = ow_tb_open_in_root (env, path.abs, O_RDONLY | O_DIRECTORY, 0);

    if (fd < 0)
      {
        char *msg = ow_tb_confinement_error ("list", raw, errno);

        ow_tb_set_error (out, "%s", msg);
        free (msg);
        ow_tb_path_clear (&path);
        return OW_TB_ERROR;
      }
    list_walk (&walk, fd, "", 0);
  }
  if (walk.cancelled)
    {
      for (size_t i = 0; i < walk.n_files; i++)
        free (walk.files[i]);
      free (walk.files);
      ow_tb_set_error (out, "interrupted by user");
      ow_tb_path_clear (&path);
      return OW_TB_INTERRUPTED;
    }
  if (walk.n_files > 1)
    qsort (walk.files, walk.n_files, sizeof *walk.files, compare_strings);
  shown = walk.n_files < (size_t) max ? walk.n_files : (size_t) max;

  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_str (&obj, "path", path.display);
  ow_tb_obj_key (&obj, "files");
  ow_tb_arr_begin (&arr, out);
  for (size_t i = 0; i < shown; i++)
    {
      /* Names are relative to roots[0] where possible, so they can be
       * passed straight back to read_file. */
      if (strcmp (path.display, ".") == 0)
        ow_tb_obj_str (&arr, NULL, walk.files[i]);
      else
        {
          char *full = ow_tb_strdup_printf ("%s%s%s", path.display,
                                            strcmp (path.display, "/") == 0 ? "" : "/",
                                            walk.files[i]);
          ow_tb_obj_str (&arr, NULL, full);
          free (full);
        }
    }
  ow_tb_obj_end (&arr);
  ow_tb_obj_int (&obj, "count", (long long) shown);
  ow_tb_obj_bool (&obj, "truncated", walk.n_files > shown || walk.stopped);
  if (walk.stopped)
    ow_tb_obj_str (&obj, "note",
                   "the folder is too large to list completely; narrow path or pattern");
  ow_tb_obj_end (&obj);
  for (size_t i = 0; i < walk.n_files; i++)
    free (walk.files[i]);
  free (walk.files);
  ow_tb_path_clear (&path);
  return OW_TB_OK;
}
