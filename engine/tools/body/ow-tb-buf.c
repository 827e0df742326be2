/* ow-tb-buf.c: buffers, strings, UTF-8 and the JSON result writer.
 *
 * Every tool result is a JSON object text built in an OwTbBuf. Text that
 * comes from files and commands is arbitrary bytes, so the string writer
 * never trusts it: malformed UTF-8 becomes U+FFFD and control characters
 * are escaped, which keeps every result valid JSON whatever a command
 * printed. Allocation failures abort, as GLib's do: a tool result cannot
 * be half-built usefully, and it keeps every caller free of NULL checks.
 */
#include "ow-tb-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void buf_vprintf (OwTbBuf *buf, const char *fmt, va_list ap)
  __attribute__ ((format (printf, 2, 0)));

void *
ow_tb_xmalloc (size_t size)
{
  void *p = malloc (size ? size : 1);

  if (p == NULL)
    abort ();
  return p;
}

void *
ow_tb_xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size ? size : 1);

  if (p == NULL)
    abort ();
  return p;
}

void *
ow_tb_xrealloc (void *ptr, size_t size)
{
  void *p = realloc (ptr, size ? size : 1);

  if (p == NULL)
    abort ();
  return p;
}

char *
ow_tb_xstrndup (const char *str, size_t len)
{
  char *p = ow_tb_xmalloc (len + 1);

  memcpy (p, str, len);
  p[len] = '\0';
  return p;
}

char *
ow_tb_xstrdup (const char *str)
{
  return ow_tb_xstrndup (str, strlen (str));
}

char *
ow_tb_strdup_printf (const char *fmt, ...)
{
  OwTbBuf buf;
  va_list ap;

  ow_tb_buf_init (&buf);
  va_start (ap, fmt);
  buf_vprintf (&buf, fmt, ap);
  va_end (ap);
  return ow_tb_buf_steal (&buf);
}

const char *
ow_tb_strerror (int errnum, char *scratch, size_t scratch_size)
{
  /* _GNU_SOURCE gives the GNU strerror_r, which returns the text (maybe a
   * static string, maybe @scratch). */
  return strerror_r (errnum, scratch, scratch_size);
}

int64_t
ow_tb_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- OwTbBuf ---- */

void
ow_tb_buf_init (OwTbBuf *buf)
{
  buf->cap = 128;
  buf->data = ow_tb_xmalloc (buf->cap);
  buf->data[0] = '\0';
  buf->len = 0;
}

void
ow_tb_buf_free (OwTbBuf *buf)
{
  free (buf->data);
  buf->data = NULL;
  buf->len = 0;
  buf->cap = 0;
}

void
ow_tb_buf_reset (OwTbBuf *buf)
{
  if (buf->data == NULL)
    {
      ow_tb_buf_init (buf);
      return;
    }
  buf->len = 0;
  buf->data[0] = '\0';
}

char *
ow_tb_buf_steal (OwTbBuf *buf)
{
  char *data = buf->data;

  if (data == NULL)
    data = ow_tb_xstrdup ("");
  /* Left without storage: the next append allocates again. */
  buf->data = NULL;
  buf->len = 0;
  buf->cap = 0;
  return data;
}

/* Makes room for @extra more bytes plus the terminating NUL. */
static void
buf_reserve (OwTbBuf *buf, size_t extra)
{
  size_t need;

  if (buf->data == NULL)
    ow_tb_buf_init (buf);
  need = buf->len + extra + 1;
  if (need < buf->len) /* overflow: nothing sensible is left to do */
    abort ();
  if (need <= buf->cap)
    return;
  while (buf->cap < need)
    buf->cap = buf->cap < 64 ? 64 : buf->cap * 2;
  buf->data = ow_tb_xrealloc (buf->data, buf->cap);
}

void
ow_tb_buf_append (OwTbBuf *buf, const char *data, size_t len)
{
  buf_reserve (buf, len);
  if (len > 0)
    memcpy (buf->data + buf->len, data, len);
  buf->len += len;
  buf->data[buf->len] = '\0';
}

void
ow_tb_buf_puts (OwTbBuf *buf, const char *str)
{
  ow_tb_buf_append (buf, str, strlen (str));
}

static void
buf_vprintf (OwTbBuf *buf, const char *fmt, va_list ap)
{
  va_list again;
  int n;

  buf_reserve (buf, 0);
  va_copy (again, ap);
  n = vsnprintf (buf->data + buf->len, buf->cap - buf->len, fmt, ap);
  if (n >= 0 && (size_t) n >= buf->cap - buf->len)
    {
      buf_reserve (buf, (size_t) n);
      vsnprintf (buf->data + buf->len, buf->cap - buf->len, fmt, again);
    }
  va_end (again);
  if (n < 0)
    {
      buf->data[buf->len] = '\0';
      return;
    }
  buf->len += (size_t) n;
}

void
ow_tb_buf_printf (OwTbBuf *buf, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  buf_vprintf (buf, fmt, ap);
  va_end (ap);
}

/* ---- UTF-8 ---- */

size_t
ow_tb_utf8_seq_len (const unsigned char *s, size_t avail)
{
  unsigned char c = s[0];
  unsigned char lo = 0x80, hi = 0xbf;
  size_t n;

  if (c < 0x80)
    return 1;
  if (c < 0xc2)
    return 0;
  if (c < 0xe0)
    n = 2;
  else if (c < 0xf0)
    {
      n = 3;
      /* E0 needs A0.. (no overlongs); ED stops at 9F (no surrogates). */
      if (c == 0xe0)
        lo = 0xa0;
      else if (c == 0xed)
        hi = 0x9f;
    }
  else if (c < 0xf5)
    {
      n = 4;
      /* F0 needs 90.. (no overlongs); F4 stops at 8F (U+10FFFF). */
      if (c == 0xf0)
        lo = 0x90;
      else if (c == 0xf4)
        hi = 0x8f;
    }
  else
    return 0;
  if (avail < n)
    return 0;
  if (s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

int
ow_tb_utf8_valid (const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *) s;
  size_t i = 0;

  while (i < len)
    {
      size_t n;

      if (p[i] < 0x80)
        {
          i++;
          continue;
        }
      n = ow_tb_utf8_seq_len (p + i, len - i);
      if (n == 0)
        return 0;
      i += n;
    }
  return 1;
}

size_t
ow_tb_utf8_head (const char *s, size_t len, size_t n)
{
  const unsigned char *p = (const unsigned char *) s;
  size_t i = 0;

  while (i < len && n > 0)
    {
      size_t k = p[i] < 0x80 ? 1 : ow_tb_utf8_seq_len (p + i, len - i);

      i += k ? k : 1;
      n--;
    }
  return i;
}

size_t
ow_tb_utf8_count (const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *) s;
  size_t i = 0, count = 0;

  while (i < len)
    {
      size_t k = p[i] < 0x80 ? 1 : ow_tb_utf8_seq_len (p + i, len - i);

      i += k ? k : 1;
      count++;
    }
  return count;
}

size_t
ow_tb_utf8_tail (const char *s, size_t len, size_t n)
{
  size_t total = ow_tb_utf8_count (s, len);

  if (total <= n)
    return 0;
  return ow_tb_utf8_head (s, len, total - n);
}

/* ---- JSON strings ---- */

void
ow_tb_buf_json_string (OwTbBuf *buf, const char *str, size_t len)
{
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *) str;
  size_t i = 0, run = 0;

  if (len == (size_t) -1)
    len = strlen (str);
  buf_reserve (buf, len + 2);
  buf->data[buf->len++] = '"';
  while (i < len)
    {
      unsigned char c = p[i];
      size_t k;

      /* Copy plain runs in one go: most text needs no escaping. */
      if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
        {
          run = i;
          while (i < len && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\')
            i++;
          ow_tb_buf_append (buf, str + run, i - run);
          continue;
        }
      if (c < 0x80)
        {
          char esc[7];

          switch (c)
            {
            case '"': ow_tb_buf_append (buf, "\\\"", 2); break;
            case '\\': ow_tb_buf_append (buf, "\\\\", 2); break;
            case '\n': ow_tb_buf_append (buf, "\\n", 2); break;
            case '\r': ow_tb_buf_append (buf, "\\r", 2); break;
            case '\t': ow_tb_buf_append (buf, "\\t", 2); break;
            case '\b': ow_tb_buf_append (buf, "\\b", 2); break;
            case '\f': ow_tb_buf_append (buf, "\\f", 2); break;
            default:
              esc[0] = '\\';
              esc[1] = 'u';
              esc[2] = '0';
              esc[3] = '0';
              esc[4] = hex[c >> 4];
              esc[5] = hex[c & 0xf];
              ow_tb_buf_append (buf, esc, 6);
              break;
            }
          i++;
          continue;
        }
      k = ow_tb_utf8_seq_len (p + i, len - i);
      if (k == 0)
        {
          ow_tb_buf_append (buf, "\xef\xbf\xbd", 3);
          i++;
        }
      else
        {
          ow_tb_buf_append (buf, str + i, k);
          i += k;
        }
    }
  ow_tb_buf_append (buf, "\"", 1);
}

/* ---- the result writer ---- */

void
ow_tb_obj_begin (OwTbObj *obj, OwTbBuf *buf)
{
  obj->buf = buf;
  obj->count = 0;
  obj->close = '}';
  ow_tb_buf_append (buf, "{", 1);
}

void
ow_tb_arr_begin (OwTbObj *arr, OwTbBuf *buf)
{
  arr->buf = buf;
  arr->count = 0;
  arr->close = ']';
  ow_tb_buf_append (buf, "[", 1);
}

void
ow_tb_obj_key (OwTbObj *obj, const char *key)
{
  if (obj->count++ > 0)
    ow_tb_buf_append (obj->buf, ",", 1);
  if (key != NULL)
    {
      ow_tb_buf_json_string (obj->buf, key, (size_t) -1);
      ow_tb_buf_append (obj->buf, ":", 1);
    }
}

void
ow_tb_obj_str (OwTbObj *obj, const char *key, const char *value)
{
  ow_tb_obj_key (obj, key);
  if (value == NULL)
    ow_tb_buf_puts (obj->buf, "null");
  else
    ow_tb_buf_json_string (obj->buf, value, (size_t) -1);
}

void
ow_tb_obj_strn (OwTbObj *obj, const char *key, const char *value, size_t len)
{
  ow_tb_obj_key (obj, key);
  ow_tb_buf_json_string (obj->buf, value, len);
}

void
ow_tb_obj_int (OwTbObj *obj, const char *key, long long value)
{
  ow_tb_obj_key (obj, key);
  ow_tb_buf_printf (obj->buf, "%lld", value);
}

void
ow_tb_obj_bool (OwTbObj *obj, const char *key, int value)
{
  ow_tb_obj_key (obj, key);
  ow_tb_buf_puts (obj->buf, value ? "true" : "false");
}

void
ow_tb_obj_null (OwTbObj *obj, const char *key)
{
  ow_tb_obj_key (obj, key);
  ow_tb_buf_puts (obj->buf, "null");
}

void
ow_tb_obj_end (OwTbObj *obj)
{
  ow_tb_buf_append (obj->buf, &obj->close, 1);
}

void
ow_tb_set_error (OwTbBuf *out, const char *fmt, ...)
{
  OwTbBuf msg;
  OwTbObj obj;
  va_list ap;

  ow_tb_buf_init (&msg);
  va_start (ap, fmt);
  buf_vprintf (&msg, fmt, ap);
  va_end (ap);
  ow_tb_buf_reset (out);
  ow_tb_obj_begin (&obj, out);
  ow_tb_obj_strn (&obj, "error", msg.data, msg.len);
  ow_tb_obj_end (&obj);
  ow_tb_buf_free (&msg);
}
