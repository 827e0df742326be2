/* ow-terminal.c: text made safe to show on a terminal (see ow-terminal.h). */
#define G_LOG_DOMAIN "ow-terminal"

#include "ow-terminal.h"

#include <string.h>

/* TRUE for the characters a terminal acts on or draws as nothing. */
static gboolean
needs_escape (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:            /* C0, DEL, C1 */
    case G_UNICODE_FORMAT:             /* bidi controls, zero-width characters, tags */
    case G_UNICODE_LINE_SEPARATOR:     /* U+2028 */
    case G_UNICODE_PARAGRAPH_SEPARATOR: /* U+2029 */
      return TRUE;
    default:
      return FALSE;
    }
}

char *
ow_terminal_escape (const char *text, const char *newline_indent, gboolean *escaped)
{
  GString *out = g_string_sized_new (text != NULL ? strlen (text) : 0);
  const char *p = text != NULL ? text : "";
  const char *end = p + strlen (p);
  gboolean any = FALSE;

  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8: show the byte, never pass it on. */
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          any = TRUE;
          p++;
          continue;
        }
      if (c == '\n' && newline_indent != NULL)
        {
          g_string_append_c (out, '\n');
          g_string_append (out, newline_indent);
        }
      else if (!needs_escape (c))
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      else
        {
          any = TRUE;
          if (c == '\r')
            g_string_append (out, "\\r");
          else if (c == '\n')
            g_string_append (out, "\\n");
          else if (c == '\t')
            g_string_append (out, "\\t");
          else if (c == '\b')
            g_string_append (out, "\\b");
          else if (c < 0x80)
            g_string_append_printf (out, "\\x%02x", c);
          else if (c <= 0xffff)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_printf (out, "\\U%08x", c);
        }
      p = g_utf8_next_char (p);
    }
  if (escaped != NULL)
    *escaped = any;
  return g_string_free (out, FALSE);
}
