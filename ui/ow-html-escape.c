/* ow-html-escape.c: the output-encoding module (see ow-html-escape.h). */
#define G_LOG_DOMAIN "ow-html"

#include "ow-html-escape.h"

#include <string.h>

void
ow_html_escape_append (GString *out, const char *text, gssize len)
{
  g_autofree char *valid = NULL;
  const char *p, *end;

  g_return_if_fail (out != NULL);
  if (text == NULL)
    return;
  if (len < 0)
    len = (gssize) strlen (text);
  /* Invalid sequences become U+FFFD here, so everything below walks
   * well-formed UTF-8 and only has to look at ASCII bytes. */
  if (!g_utf8_validate_len (text, (gsize) len, NULL))
    {
      valid = g_utf8_make_valid (text, len);
      text = valid;
      len = (gssize) strlen (valid);
    }
  end = text + len;
  for (p = text; p < end; p++)
    {
      unsigned char c = (unsigned char) *p;

      switch (c)
        {
        case '&': g_string_append (out, "&amp;"); break;
        case '<': g_string_append (out, "&lt;"); break;
        case '>': g_string_append (out, "&gt;"); break;
        case '"': g_string_append (out, "&quot;"); break;
        case '\'': g_string_append (out, "&#39;"); break;
        case '`': g_string_append (out, "&#96;"); break;
        case '\t':
        case '\n':
        case '\r':
          g_string_append_c (out, (char) c);
          break;
        default:
          if (c < 0x20 || c == 0x7f)
            break;  /* dropped: see the header */
          g_string_append_c (out, (char) c);
          break;
        }
    }
}

char *
ow_html_escape (const char *text)
{
  GString *out = g_string_sized_new (text != NULL ? strlen (text) + 16 : 1);

  ow_html_escape_append (out, text, -1);
  return g_string_free (out, FALSE);
}

void
ow_html_append_valist (GString *out, const char *format, va_list args)
{
  const char *p = format;

  g_return_if_fail (out != NULL && format != NULL);
  while (*p != '\0')
    {
      const char *pct = strchr (p, '%');

      if (pct == NULL)
        {
          g_string_append (out, p);
          return;
        }
      g_string_append_len (out, p, pct - p);
      switch (pct[1])
        {
        case 's':
          ow_html_escape_append (out, va_arg (args, const char *), -1);
          break;
        case 'H':
          {
            const char *html = va_arg (args, const char *);
            if (html != NULL)
              g_string_append (out, html);
          }
          break;
        case 'd':
          g_string_append_printf (out, "%d", va_arg (args, int));
          break;
        case 'u':
          g_string_append_printf (out, "%u", va_arg (args, unsigned int));
          break;
        case 'l':
          g_string_append_printf (out, "%" G_GINT64_FORMAT, va_arg (args, gint64));
          break;
        case '%':
          g_string_append_c (out, '%');
          break;
        default:
          g_critical ("ow_html_append: unknown conversion in \"%s\"", format);
          if (pct[1] == '\0')
            return;
          break;
        }
      p = pct + 2;
    }
}

void
ow_html_append (GString *out, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  ow_html_append_valist (out, format, args);
  va_end (args);
}

char *
ow_html_safe_link (const char *url)
{
  static const char *const schemes[] = { "http://", "https://", "mailto:", "artifact:", NULL };
  gboolean known = FALSE;

  if (url == NULL || *url == '\0' || !g_utf8_validate (url, -1, NULL))
    return NULL;
  for (const char *p = url; *p != '\0'; p++)
    if ((unsigned char) *p <= 0x20 || *p == 0x7f || *p == '\\')
      return NULL;
  for (guint i = 0; schemes[i] != NULL; i++)
    known |= g_ascii_strncasecmp (url, schemes[i], strlen (schemes[i])) == 0;
  if (!known)
    return NULL;
  /* "artifact:" names a file inside the session's folders: no parent
   * steps, no absolute paths, no nested scheme. */
  if (g_ascii_strncasecmp (url, "artifact:", 9) == 0)
    {
      const char *rel = url + 9;
      g_auto(GStrv) parts = NULL;

      if (*rel == '\0' || *rel == '/' || strchr (rel, ':') != NULL)
        return NULL;
      parts = g_strsplit (rel, "/", -1);
      for (guint i = 0; parts[i] != NULL; i++)
        if (g_str_equal (parts[i], ".."))
          return NULL;
    }
  return g_strdup (url);
}

char *
ow_html_token (const char *text)
{
  char *out = g_strdup (text != NULL ? text : "");

  for (char *p = out; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      *p = '_';
  return out;
}
