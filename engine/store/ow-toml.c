/* ow-toml.c: a small strict TOML 1.0 reader and writer (see ow-toml.h).
 *
 * The reader is a hand-written recursive-descent parser over the whole
 * document held in memory. It checks that the text is UTF-8 first, then
 * walks it line by line: each line is blank, a comment, a [table] or
 * [[array of tables]] header, or a key/value pair. Values build json-glib
 * nodes directly. Everything the grammar does not allow is refused with the
 * line and column (in characters, counting from 1) of the first problem; the
 * reader never repairs or guesses. (A UTF-8 byte order mark at the very start
 * is skipped: it is an encoding marker some editors write, not text.)
 *
 * TOML's hardest part is not the grammar but the rules on which tables may
 * be opened again. json-glib nodes cannot carry that state, so the parser
 * keeps a side table from every JsonObject and JsonArray it creates to
 * flags that say how the container came to be: created implicitly as the
 * parent in a header, defined by a header, defined by dotted keys, written
 * inline (closed for good), or grown by [[…]]. Every later header or dotted
 * key checks those flags on each table it walks through.
 *
 * The writer emits a table's plain values first and its sub-tables after,
 * as sections, because TOML gives a key/value line to the most recent
 * header; within each group the JsonObject's member order is kept. Arrays
 * whose elements are all tables become [[…]] sections; every other array is
 * written inline, with inline tables for any tables inside it.
 *
 * Limits of the tree, not of TOML: json-glib strings end at a NUL byte, so
 * a string or key containing U+0000 (possible only through \u0000) is
 * refused; and nesting deeper than MAX_DEPTH containers is refused so that
 * hostile input cannot exhaust the stack of this or any recursive reader of
 * the tree.
 */
#define G_LOG_DOMAIN "ow-toml"

#include "ow-toml.h"

#include "ow-error.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Tables and arrays may nest this deep (the root table is depth 0). */
#define MAX_DEPTH 128

/* How a container came to be; decides whether a later header or dotted key
 * may add to it. A table has exactly one of the first four. */
typedef enum {
  TABLE_IMPLICIT = 1 << 0,  /* created as a parent by a header, not yet defined */
  TABLE_HEADER = 1 << 1,    /* defined by [header], or an element of [[header]] */
  TABLE_DOTTED = 1 << 2,    /* defined by dotted keys */
  TABLE_INLINE = 1 << 3,    /* written inline { … }: nothing may be added later */
  ARRAY_OF_TABLES = 1 << 4, /* created by [[header]]: the only kind of array that grows */
} ContainerFlags;

typedef struct {
  const char *text;     /* start of the document, for line and column in errors */
  const char *end;      /* one past its last byte */
  const char *p;        /* read position */
  GHashTable *flags;    /* JsonObject* or JsonArray* → ContainerFlags; containers
                         * are freed only when the parse fails, after which
                         * nothing is looked up, so addresses stay unique */
  JsonObject *root;     /* borrowed: the result node owns it */
  JsonObject *current;  /* borrowed: the table key/value lines go to */
  int current_depth;    /* its depth */
  GError **error;
} Parser;

/* One part of a (possibly dotted) key, and where it starts, so that a
 * redefinition can be reported at the part that clashes. */
typedef struct {
  char *name;
  const char *at;
} KeyPart;

static void
key_part_free (gpointer data)
{
  KeyPart *part = data;

  g_free (part->name);
  g_free (part);
}

/* ---- Characters and error messages ---- */

static gboolean
is_control (guchar c)
{
  /* TOML forbids U+0000–U+001F (tab excepted) and U+007F in strings and
   * comments; newlines are handled by the callers. */
  return (c < 0x20 && c != '\t') || c == 0x7f;
}

static gboolean
is_bare_key_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '-';
}

static gboolean
is_digit_of (char c, int base)
{
  switch (base)
    {
    case 2:
      return c == '0' || c == '1';
    case 8:
      return c >= '0' && c <= '7';
    case 16:
      return g_ascii_isxdigit (c);
    default:
      return g_ascii_isdigit (c);
    }
}

/* Describes the character at @at for an error message: "'x'", "a space",
 * "the end of the line", "U+0001"… */
static char *
describe_char (Parser *parser, const char *at)
{
  guchar c;

  if (at >= parser->end)
    return g_strdup ("the end of the file");
  c = (guchar) *at;
  if (c == '\n' || (c == '\r' && at + 1 < parser->end && at[1] == '\n'))
    return g_strdup ("the end of the line");
  if (c == ' ')
    return g_strdup ("a space");
  if (c == '\t')
    return g_strdup ("a tab");
  if (c < 0x20 || c == 0x7f)
    return g_strdup_printf ("the control character U+%04X", c);
  if (c < 0x80)
    return g_strdup_printf ("'%c'", c);
  else
    {
      /* The document is valid UTF-8 by now, so a whole character is there. */
      gunichar u = g_utf8_get_char (at);
      char buf[8] = { 0 };

      g_unichar_to_utf8 (u, buf);
      if (g_unichar_isprint (u))
        return g_strdup_printf ("'%s' (U+%04X)", buf, u);
      return g_strdup_printf ("the character U+%04X", u);
    }
}

static gboolean fail (Parser *parser, const char *at, OwTomlError code, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

/* Sets the error for a problem at @at and returns FALSE. The line and column
 * are worked out here, once, from the start of the document: parsing does not
 * need to track them, and an error ends the parse. */
static gboolean
fail (Parser *parser, const char *at, OwTomlError code, const char *format, ...)
{
  g_autofree char *message = NULL;
  int line = 1, column = 1;
  va_list args;

  if (at > parser->end)
    at = parser->end;
  for (const char *q = parser->text; q < at; q++)
    {
      if (*q == '\n')
        {
          line++;
          column = 1;
        }
      else if (((guchar) *q & 0xc0) != 0x80)
        column++; /* count characters, not the continuation bytes of UTF-8 */
    }

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (parser->error, OW_TOML_ERROR, code, "line %d, column %d: %s", line, column, message);
  return FALSE;
}

static gboolean
fail_too_deep (Parser *parser, const char *at)
{
  return fail (parser, at, OW_TOML_ERROR_SYNTAX,
               "arrays and tables nest too deeply (more than %d levels)", MAX_DEPTH);
}

/* Appends @s as a TOML basic string. Control characters become escapes, so
 * the result is one line; everything else, non-ASCII included, is kept. */
static void
append_basic_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) s; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\b':
          g_string_append (out, "\\b");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\f':
          g_string_append (out, "\\f");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        default:
          if (*p < 0x20 || *p == 0x7f)
            g_string_append_printf (out, "\\u%04X", *p);
          else
            g_string_append_c (out, (char) *p);
          break;
        }
    }
  g_string_append_c (out, '"');
}

static gboolean
is_bare_key (const char *key)
{
  if (*key == '\0')
    return FALSE;
  for (const char *p = key; *p != '\0'; p++)
    if (!is_bare_key_char (*p))
      return FALSE;
  return TRUE;
}

static void
append_key (GString *out, const char *key)
{
  if (is_bare_key (key))
    g_string_append (out, key);
  else
    append_basic_string (out, key);
}

/* The key parts first..last joined with dots, quoted where needed, for
 * messages. */
static char *
key_to_string (GPtrArray *parts, guint last)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i <= last && i < parts->len; i++)
    {
      KeyPart *part = g_ptr_array_index (parts, i);

      if (i > 0)
        g_string_append_c (s, '.');
      append_key (s, part->name);
    }
  return g_string_free (s, FALSE);
}

static const char *
describe_node (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      return "a table";
    case JSON_NODE_ARRAY:
      return "an array";
    case JSON_NODE_NULL:
      return "a null";
    case JSON_NODE_VALUE:
    default:
      break;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return "an integer";
    case G_TYPE_DOUBLE:
      return "a float";
    case G_TYPE_BOOLEAN:
      return "a boolean";
    default:
      return "a string";
    }
}

/* ---- Container flags ---- */

static guint
get_flags (Parser *parser, gpointer container)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (parser->flags, container));
}

static void
set_flags (Parser *parser, gpointer container, guint flags)
{
  g_hash_table_insert (parser->flags, container, GUINT_TO_POINTER (flags));
}

/* Adds an empty table named @name to @parent and returns it (borrowed). */
static JsonObject *
add_table (Parser *parser, JsonObject *parent, const char *name, guint flags)
{
  JsonObject *table = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, table);
  json_object_set_member (parent, name, node);
  set_flags (parser, table, flags);
  return table;
}

static JsonNode *
new_table_node (Parser *parser, guint flags, JsonObject **table_out)
{
  JsonObject *table = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, table);
  set_flags (parser, table, flags);
  *table_out = table;
  return node;
}

/* ---- Whitespace, newlines, comments ---- */

static void
skip_ws (Parser *parser)
{
  while (parser->p < parser->end && (*parser->p == ' ' || *parser->p == '\t'))
    parser->p++;
}

/* If a newline (LF or CRLF) is at the read position, consumes it. A CR alone
 * is not a newline in TOML and is refused. */
static gboolean
eat_newline (Parser *parser, gboolean *eaten)
{
  *eaten = FALSE;
  if (parser->p >= parser->end)
    return TRUE;
  if (*parser->p == '\n')
    {
      parser->p++;
      *eaten = TRUE;
    }
  else if (*parser->p == '\r')
    {
      if (parser->p + 1 >= parser->end || parser->p[1] != '\n')
        return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                     "a carriage return (\\r) must be followed by a line feed (\\n)");
      parser->p += 2;
      *eaten = TRUE;
    }
  return TRUE;
}

/* Skips a comment if one starts at the read position, up to (not over) the
 * newline that ends it. */
static gboolean
skip_comment (Parser *parser)
{
  if (parser->p >= parser->end || *parser->p != '#')
    return TRUE;
  for (parser->p++; parser->p < parser->end; parser->p++)
    {
      guchar c = (guchar) *parser->p;

      if (c == '\n' || (c == '\r' && parser->p + 1 < parser->end && parser->p[1] == '\n'))
        break;
      if (c == '\r')
        return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                     "a carriage return (\\r) must be followed by a line feed (\\n)");
      if (is_control (c))
        return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                     "the control character U+%04X is not allowed in a comment", c);
    }
  return TRUE;
}

/* After a value or a header only spaces and a comment may follow on the
 * line. */
static gboolean
end_of_line (Parser *parser, const char *after)
{
  gboolean eaten;

  skip_ws (parser);
  if (!skip_comment (parser))
    return FALSE;
  if (parser->p >= parser->end)
    return TRUE;
  if (!eat_newline (parser, &eaten))
    return FALSE;
  if (!eaten)
    {
      g_autofree char *found = describe_char (parser, parser->p);
      return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                   "expected the end of the line after %s, found %s", after, found);
    }
  return TRUE;
}

/* Inside an array, spaces, newlines and comments may stand anywhere between
 * the brackets and the commas. */
static gboolean
skip_array_space (Parser *parser)
{
  for (;;)
    {
      gboolean eaten;

      skip_ws (parser);
      if (!skip_comment (parser) || !eat_newline (parser, &eaten))
        return FALSE;
      if (!eaten)
        return TRUE;
    }
}

/* ---- Strings ---- */

static gboolean
read_hex (const char *p, const char *end, int n, guint32 *value)
{
  guint32 v = 0;

  if (end - p < n)
    return FALSE;
  for (int i = 0; i < n; i++)
    {
      if (!g_ascii_isxdigit (p[i]))
        return FALSE;
      v = v * 16 + (guint32) g_ascii_xdigit_value (p[i]);
    }
  *value = v;
  return TRUE;
}

/* Reads the escape at the read position (a backslash) of a basic string. */
static gboolean
parse_escape (Parser *parser, GString *out, gboolean multiline)
{
  const char *at = parser->p;
  char c;

  parser->p++;
  if (parser->p >= parser->end)
    return fail (parser, at, OW_TOML_ERROR_SYNTAX,
                 "the file ends in the middle of an escape sequence");
  c = *parser->p;
  switch (c)
    {
    case 'b':
      g_string_append_c (out, '\b');
      break;
    case 't':
      g_string_append_c (out, '\t');
      break;
    case 'n':
      g_string_append_c (out, '\n');
      break;
    case 'f':
      g_string_append_c (out, '\f');
      break;
    case 'r':
      g_string_append_c (out, '\r');
      break;
    case '"':
      g_string_append_c (out, '"');
      break;
    case '\\':
      g_string_append_c (out, '\\');
      break;
    case 'u':
    case 'U':
      {
        int n = c == 'u' ? 4 : 8;
        guint32 u;

        if (!read_hex (parser->p + 1, parser->end, n, &u))
          return fail (parser, at, OW_TOML_ERROR_SYNTAX,
                       "the escape \\%c must be followed by exactly %d hexadecimal digits", c, n);
        if (u == 0)
          return fail (parser, at, OW_TOML_ERROR_SYNTAX,
                       "the null character (\\%c%0*X) cannot be stored in a string", c, n, 0);
        if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff))
          return fail (parser, at, OW_TOML_ERROR_SYNTAX,
                       "\\%c%0*X is not a Unicode scalar value (surrogates and values above "
                       "10FFFF are not characters)", c, n, u);
        {
          char buf[8];
          int len = g_unichar_to_utf8 (u, buf);

          g_string_append_len (out, buf, len);
        }
        parser->p += n;
        break;
      }
    default:
      if (multiline && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
        {
          /* A "line-ending backslash": only spaces may stand between it and
           * the newline, and it swallows all whitespace and newlines up to
           * the next visible character. */
          const char *q = parser->p;
          gboolean eaten;

          while (q < parser->end && (*q == ' ' || *q == '\t'))
            q++;
          if (q >= parser->end || (*q != '\n' && *q != '\r'))
            return fail (parser, at, OW_TOML_ERROR_SYNTAX,
                         "a backslash followed by spaces is only allowed at the end of a line "
                         "(a line-ending backslash); write \\\\ for a backslash");
          parser->p = q;
          do
            {
              skip_ws (parser);
              if (!eat_newline (parser, &eaten))
                return FALSE;
            }
          while (eaten);
          return TRUE;
        }
      else
        {
          g_autofree char *found = describe_char (parser, parser->p);
          return fail (parser, at, OW_TOML_ERROR_SYNTAX,
                       "invalid escape sequence: a backslash followed by %s (valid escapes are "
                       "\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX and \\UXXXXXXXX)", found);
        }
    }
  parser->p++;
  return TRUE;
}

/* Reads a basic ("…", """…""") or literal ('…', '''…''') string starting at
 * the read position into @out. Keys may only be single-line strings. */
static gboolean
parse_string (Parser *parser, GString *out, gboolean is_key)
{
  const char *open = parser->p;
  char quote = *parser->p;
  gboolean literal = quote == '\'';
  gboolean multiline
      = parser->end - parser->p >= 3 && parser->p[1] == quote && parser->p[2] == quote;

  if (multiline)
    {
      if (is_key)
        return fail (parser, open, OW_TOML_ERROR_SYNTAX, "a key cannot be a multi-line string");
      parser->p += 3;
      /* A newline right after the opening delimiter is not part of the
       * string, so the text can start on its own line. */
      if (parser->p < parser->end && *parser->p == '\n')
        parser->p++;
      else if (parser->end - parser->p >= 2 && parser->p[0] == '\r' && parser->p[1] == '\n')
        parser->p += 2;
    }
  else
    parser->p++;

  for (;;)
    {
      guchar c;

      if (parser->p >= parser->end)
        {
          if (multiline)
            return fail (parser, open, OW_TOML_ERROR_SYNTAX,
                         "this multi-line string is never closed (expected %c%c%c)", quote, quote,
                         quote);
          return fail (parser, open, OW_TOML_ERROR_SYNTAX,
                       "this string is not closed (expected %c before the end of the line)", quote);
        }
      c = (guchar) *parser->p;
      if (c == (guchar) quote)
        {
          const char *run = parser->p;
          int n = 0;

          if (!multiline)
            {
              parser->p++;
              return TRUE;
            }
          while (run + n < parser->end && run[n] == quote)
            n++;
          if (n >= 3)
            {
              /* Up to two quotes may stand right before the closing three. */
              if (n > 5)
                return fail (parser, run + 5, OW_TOML_ERROR_SYNTAX,
                             "too many quotes: at most two %c may directly precede the closing "
                             "%c%c%c", quote, quote, quote, quote);
              g_string_append_len (out, run, n - 3);
              parser->p += n;
              return TRUE;
            }
          g_string_append_len (out, run, n);
          parser->p += n;
        }
      else if (c == '\\' && !literal)
        {
          if (!parse_escape (parser, out, multiline))
            return FALSE;
        }
      else if (c == '\n' || c == '\r')
        {
          gboolean eaten;

          if (!multiline)
            return fail (parser, open, OW_TOML_ERROR_SYNTAX,
                         "this string is not closed before the end of the line (use %c%c%c for "
                         "a string that spans lines)", quote, quote, quote);
          if (!eat_newline (parser, &eaten))
            return FALSE;
          /* CRLF is kept as LF, so a file edited on Windows reads the same. */
          g_string_append_c (out, '\n');
        }
      else if (is_control (c))
        {
          if (literal)
            return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                         "the control character U+%04X is not allowed in a literal string", c);
          return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                       "the control character U+%04X is not allowed in a string; write it as "
                       "the escape \\u%04X", c, c);
        }
      else
        {
          g_string_append_c (out, (char) c);
          parser->p++;
        }
    }
}

/* ---- Keys ---- */

/* Reads a key of one or more dot-separated parts. */
static gboolean
parse_key (Parser *parser, GPtrArray *parts)
{
  for (;;)
    {
      KeyPart *part = g_new0 (KeyPart, 1);

      part->at = parser->p;
      g_ptr_array_add (parts, part);
      if (parser->p < parser->end && (*parser->p == '"' || *parser->p == '\''))
        {
          g_autoptr(GString) s = g_string_new (NULL);

          if (!parse_string (parser, s, TRUE))
            return FALSE;
          part->name = g_strdup (s->str);
        }
      else if (parser->p < parser->end && is_bare_key_char (*parser->p))
        {
          const char *start = parser->p;

          while (parser->p < parser->end && is_bare_key_char (*parser->p))
            parser->p++;
          part->name = g_strndup (start, parser->p - start);
          /* A character glued to a bare key that cannot follow a key is most
           * likely meant as part of it: say so rather than "expected '='". */
          if (parser->p < parser->end && !strchr (" \t.=]},#\r\n", *parser->p))
            {
              g_autofree char *found = describe_char (parser, parser->p);
              return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                           "%s is not allowed in a bare key (bare keys may contain only ASCII "
                           "letters, digits, '_' and '-'; put other keys in quotes)", found);
            }
        }
      else
        {
          g_autofree char *found = describe_char (parser, parser->p);

          if (parser->p < parser->end && (guchar) *parser->p >= 0x80)
            return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                         "expected a key, found %s (bare keys may contain only ASCII letters, "
                         "digits, '_' and '-'; put other keys in quotes)", found);
          return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX, "expected a key, found %s", found);
        }
      skip_ws (parser);
      if (parser->p >= parser->end || *parser->p != '.')
        return TRUE;
      parser->p++;
      skip_ws (parser);
    }
}

/* ---- Numbers, booleans, dates and times ---- */

/* Scans digits of @base from @p, with single underscores between digits.
 * Returns the end, or NULL after setting the error. */
static const char *
scan_digits (Parser *parser, const char *p, const char *e, int base, const char *what)
{
  if (p < e && *p == '_')
    {
      fail (parser, p, OW_TOML_ERROR_SYNTAX,
            "an underscore in a number must stand between two digits");
      return NULL;
    }
  if (p >= e || !is_digit_of (*p, base))
    {
      g_autofree char *found = describe_char (parser, p);
      fail (parser, p, OW_TOML_ERROR_SYNTAX, "expected %s, found %s", what, found);
      return NULL;
    }
  while (p < e)
    {
      if (is_digit_of (*p, base))
        p++;
      else if (*p == '_')
        {
          if (p + 1 >= e || !is_digit_of (p[1], base))
            {
              fail (parser, p, OW_TOML_ERROR_SYNTAX,
                    "an underscore in a number must stand between two digits");
              return NULL;
            }
          p++;
        }
      else
        break;
    }
  return p;
}

/* The value of the digits in [a, b) (underscores skipped), if it is at most
 * @limit. */
static gboolean
digits_value (const char *a, const char *b, int base, guint64 limit, guint64 *value)
{
  guint64 v = 0;

  for (const char *p = a; p < b; p++)
    {
      guint64 d;

      if (*p == '_')
        continue;
      d = (guint64) g_ascii_xdigit_value (*p);
      if (v > (limit - d) / (guint64) base)
        return FALSE;
      v = v * (guint64) base + d;
    }
  *value = v;
  return TRUE;
}

static JsonNode *
parse_number (Parser *parser, const char *s, const char *e)
{
  const char *p = s, *int_start;
  gboolean negative = FALSE, is_float = FALSE;

  if (*p == '+' || *p == '-')
    {
      negative = *p == '-';
      p++;
    }

  if (p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'o' || p[1] == 'b'))
    {
      int base = p[1] == 'x' ? 16 : p[1] == 'o' ? 8 : 2;
      const char *what = base == 16 ? "a hexadecimal digit" : base == 8 ? "an octal digit"
                                                                        : "a binary digit";
      const char *digits = p + 2, *q;
      guint64 v;

      if (p != s)
        {
          fail (parser, s, OW_TOML_ERROR_SYNTAX,
                "hexadecimal, octal and binary integers cannot have a sign");
          return NULL;
        }
      q = scan_digits (parser, digits, e, base, what);
      if (q == NULL)
        return NULL;
      if (q != e)
        {
          g_autofree char *found = describe_char (parser, q);
          fail (parser, q, OW_TOML_ERROR_SYNTAX, "unexpected %s in the number", found);
          return NULL;
        }
      if (!digits_value (digits, e, base, G_MAXINT64, &v))
        {
          fail (parser, s, OW_TOML_ERROR_SYNTAX,
                "the integer %.*s does not fit in 64 bits (the largest is 0x7FFFFFFFFFFFFFFF)",
                (int) (e - s), s);
          return NULL;
        }
      return json_node_init_int (json_node_alloc (), (gint64) v);
    }

  int_start = p;
  p = scan_digits (parser, p, e, 10, "a digit");
  if (p == NULL)
    return NULL;
  if (*int_start == '0' && p - int_start > 1)
    {
      fail (parser, int_start, OW_TOML_ERROR_SYNTAX, "leading zeros are not allowed in numbers");
      return NULL;
    }
  if (p < e && *p == '.')
    {
      is_float = TRUE;
      p = scan_digits (parser, p + 1, e, 10, "a digit after the decimal point");
      if (p == NULL)
        return NULL;
    }
  if (p < e && (*p == 'e' || *p == 'E'))
    {
      is_float = TRUE;
      p++;
      if (p < e && (*p == '+' || *p == '-'))
        p++;
      /* The exponent may have leading zeros. */
      p = scan_digits (parser, p, e, 10, "a digit in the exponent");
      if (p == NULL)
        return NULL;
    }
  if (p != e)
    {
      g_autofree char *found = describe_char (parser, p);
      fail (parser, p, OW_TOML_ERROR_SYNTAX, "unexpected %s in the number", found);
      return NULL;
    }

  if (is_float)
    {
      g_autoptr(GString) clean = g_string_sized_new (e - s);
      char *stop = NULL;
      double d;

      for (const char *q = s; q < e; q++)
        if (*q != '_')
          g_string_append_c (clean, *q);
      errno = 0;
      d = g_ascii_strtod (clean->str, &stop);
      if (stop != clean->str + clean->len)
        {
          fail (parser, s, OW_TOML_ERROR_SYNTAX, "this float cannot be read");
          return NULL;
        }
      if (isinf (d))
        {
          /* Rounding a tiny value to zero is precision; turning a finite
           * literal into infinity is not, so it is refused. */
          fail (parser, s, OW_TOML_ERROR_SYNTAX,
                "the float %.*s is too large for a 64-bit float (write inf for infinity)",
                (int) (e - s), s);
          return NULL;
        }
      return json_node_init_double (json_node_alloc (), d);
    }
  else
    {
      guint64 v;
      guint64 limit = negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;

      if (!digits_value (int_start, e, 10, limit, &v))
        {
          fail (parser, s, OW_TOML_ERROR_SYNTAX,
                "the integer %.*s does not fit in 64 bits (from -9223372036854775808 to "
                "9223372036854775807)", (int) (e - s), s);
          return NULL;
        }
      if (negative)
        return json_node_init_int (json_node_alloc (),
                                   v == (guint64) G_MAXINT64 + 1 ? G_MININT64 : -(gint64) v);
      return json_node_init_int (json_node_alloc (), (gint64) v);
    }
}

static gboolean
all_digits (const char *p, int n)
{
  for (int i = 0; i < n; i++)
    if (!g_ascii_isdigit (p[i]))
      return FALSE;
  return TRUE;
}

static int
two_digits (const char *p)
{
  return (p[0] - '0') * 10 + (p[1] - '0');
}

/* Expects two digits at @p within [p, e). */
static gboolean
expect_two_digits (Parser *parser, const char *p, const char *e, const char *what)
{
  if (e - p < 2 || !all_digits (p, 2))
    {
      const char *bad = p < e && g_ascii_isdigit (*p) ? p + 1 : p;
      g_autofree char *found = describe_char (parser, bad < e ? bad : e);

      return fail (parser, bad, OW_TOML_ERROR_SYNTAX, "expected two digits for the %s, found %s",
                   what, found);
    }
  return TRUE;
}

static gboolean
expect_char (Parser *parser, const char *p, const char *e, char c, const char *context)
{
  if (p >= e || *p != c)
    {
      g_autofree char *found = describe_char (parser, p < e ? p : e);
      return fail (parser, p, OW_TOML_ERROR_SYNTAX, "expected '%c' %s, found %s", c, context,
                   found);
    }
  return TRUE;
}

static int
days_in_month (int year, int month)
{
  static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

  if (month == 2 && (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)))
    return 29;
  return days[month - 1];
}

/* Checks HH:MM:SS[.fraction] at *p and moves *p past it. */
static gboolean
check_time (Parser *parser, const char **pp, const char *e)
{
  const char *p = *pp;

  if (!expect_two_digits (parser, p, e, "hour"))
    return FALSE;
  if (two_digits (p) > 23)
    return fail (parser, p, OW_TOML_ERROR_SYNTAX, "the hour %.2s is out of range (00 to 23)", p);
  if (!expect_char (parser, p + 2, e, ':', "after the hour"))
    return FALSE;
  if (!expect_two_digits (parser, p + 3, e, "minute"))
    return FALSE;
  if (two_digits (p + 3) > 59)
    return fail (parser, p + 3, OW_TOML_ERROR_SYNTAX, "the minute %.2s is out of range (00 to 59)",
                 p + 3);
  /* TOML 1.0 requires the seconds. */
  if (!expect_char (parser, p + 5, e, ':',
                    "and the seconds after the minute (TOML 1.0 times are HH:MM:SS)"))
    return FALSE;
  if (!expect_two_digits (parser, p + 6, e, "second"))
    return FALSE;
  /* 60 is a leap second, which RFC 3339 allows. */
  if (two_digits (p + 6) > 60)
    return fail (parser, p + 6, OW_TOML_ERROR_SYNTAX, "the second %.2s is out of range (00 to 60)",
                 p + 6);
  p += 8;
  if (p < e && *p == '.')
    {
      p++;
      if (p >= e || !g_ascii_isdigit (*p))
        {
          g_autofree char *found = describe_char (parser, p);
          return fail (parser, p, OW_TOML_ERROR_SYNTAX,
                       "expected a digit after the decimal point of the seconds, found %s", found);
        }
      while (p < e && g_ascii_isdigit (*p))
        p++;
    }
  *pp = p;
  return TRUE;
}

/* Validates an offset date-time, local date-time, local date or local time
 * in [s, e). The caller keeps the text as it is. */
static gboolean
parse_datetime (Parser *parser, const char *s, const char *e)
{
  const char *p = s;
  gboolean has_date = FALSE;

  if (e - s >= 5 && all_digits (s, 4) && s[4] == '-')
    {
      int year, month, day;

      has_date = TRUE;
      for (int i = 5; i < 10; i++)
        {
          gboolean ok = i == 7 ? (s + i < e && s[i] == '-') : (s + i < e && g_ascii_isdigit (s[i]));
          if (!ok)
            {
              g_autofree char *found = describe_char (parser, s + i < e ? s + i : e);
              fail (parser, s + i, OW_TOML_ERROR_SYNTAX,
                    "a date is written YYYY-MM-DD; found %s", found);
              return FALSE;
            }
        }
      year = two_digits (s) * 100 + two_digits (s + 2);
      month = two_digits (s + 5);
      day = two_digits (s + 8);
      if (month < 1 || month > 12)
        {
          fail (parser, s + 5, OW_TOML_ERROR_SYNTAX, "the month %.2s is out of range (01 to 12)",
                s + 5);
          return FALSE;
        }
      if (day < 1 || day > days_in_month (year, month))
        {
          fail (parser, s + 8, OW_TOML_ERROR_SYNTAX,
                "the day %.2s is out of range for %.7s (01 to %d)", s + 8, s,
                days_in_month (year, month));
          return FALSE;
        }
      p = s + 10;
      if (p == e)
        return TRUE;
      if (*p != 'T' && *p != 't' && *p != ' ')
        {
          g_autofree char *found = describe_char (parser, p);
          fail (parser, p, OW_TOML_ERROR_SYNTAX,
                "unexpected %s after the date (a date-time has 'T' or a space between the date "
                "and the time)", found);
          return FALSE;
        }
      p++;
    }

  if (!check_time (parser, &p, e))
    return FALSE;

  if (p < e && has_date)
    {
      if (*p == 'Z' || *p == 'z')
        p++;
      else if (*p == '+' || *p == '-')
        {
          const char *o = p + 1;

          if (!expect_two_digits (parser, o, e, "hour of the offset"))
            return FALSE;
          if (two_digits (o) > 23)
            {
              fail (parser, o, OW_TOML_ERROR_SYNTAX,
                    "the offset hour %.2s is out of range (00 to 23)", o);
              return FALSE;
            }
          if (!expect_char (parser, o + 2, e, ':', "in the offset"))
            return FALSE;
          if (!expect_two_digits (parser, o + 3, e, "minute of the offset"))
            return FALSE;
          if (two_digits (o + 3) > 59)
            {
              fail (parser, o + 3, OW_TOML_ERROR_SYNTAX,
                    "the offset minute %.2s is out of range (00 to 59)", o + 3);
              return FALSE;
            }
          p = o + 5;
        }
    }
  else if (p < e && (*p == 'Z' || *p == 'z' || *p == '+' || *p == '-'))
    {
      fail (parser, p, OW_TOML_ERROR_SYNTAX,
            "a time without a date cannot have a time zone offset");
      return FALSE;
    }

  if (p != e)
    {
      g_autofree char *found = describe_char (parser, p);
      fail (parser, p, OW_TOML_ERROR_SYNTAX, "unexpected %s in the %s", found,
            has_date ? "date-time" : "time");
      return FALSE;
    }
  return TRUE;
}

/* ---- Values ---- */

static JsonNode *parse_value (Parser *parser, int depth);

static gboolean
is_word_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '-' || c == '+' || c == '.' || c == ':';
}

static gboolean
word_is (const char *s, size_t len, const char *word)
{
  return len == strlen (word) && memcmp (s, word, len) == 0;
}

/* A value that is not a string, array or inline table: a boolean, number,
 * date or time. It is read as one "word" first and then classified, so that
 * "truex" or "1979-05-27x" are refused as a whole. */
static JsonNode *
parse_scalar (Parser *parser)
{
  const char *s = parser->p, *e = s;
  JsonNode *node = NULL;
  size_t len;

  while (e < parser->end && is_word_char (*e))
    e++;
  /* A date may be followed by a space and a time: 1979-05-27 07:32:00. */
  if (e - s == 10 && all_digits (s, 4) && s[4] == '-' && parser->end - e >= 4 && e[0] == ' '
      && all_digits (e + 1, 2) && e[3] == ':')
    {
      e++;
      while (e < parser->end && is_word_char (*e))
        e++;
    }
  if (e == s)
    {
      g_autofree char *found = describe_char (parser, s);
      fail (parser, s, OW_TOML_ERROR_SYNTAX, "expected a value, found %s", found);
      return NULL;
    }

  len = (size_t) (e - s);
  if (word_is (s, len, "true") || word_is (s, len, "false"))
    node = json_node_init_boolean (json_node_alloc (), *s == 't');
  else if (word_is (s, len, "inf") || word_is (s, len, "+inf"))
    node = json_node_init_double (json_node_alloc (), INFINITY);
  else if (word_is (s, len, "-inf"))
    node = json_node_init_double (json_node_alloc (), -INFINITY);
  else if (word_is (s, len, "nan") || word_is (s, len, "+nan"))
    node = json_node_init_double (json_node_alloc (), NAN);
  else if (word_is (s, len, "-nan"))
    node = json_node_init_double (json_node_alloc (), -NAN);
  else if ((len >= 5 && all_digits (s, 4) && s[4] == '-')
           || (len >= 3 && all_digits (s, 2) && s[2] == ':'))
    {
      g_autofree char *text = NULL;

      if (!parse_datetime (parser, s, e))
        return NULL;
      text = g_strndup (s, len);
      node = json_node_init_string (json_node_alloc (), text);
    }
  else if (g_ascii_isdigit (*s) || *s == '+' || *s == '-' || *s == '.' || *s == '_')
    {
      node = parse_number (parser, s, e);
      if (node == NULL)
        return NULL;
    }
  else
    {
      fail (parser, s, OW_TOML_ERROR_SYNTAX,
            "'%.*s' is not a valid value (strings must be in quotes; booleans are true and false)",
            (int) MIN (len, 40), s);
      return NULL;
    }
  parser->p = e;
  return node;
}

static JsonNode *
parse_array (Parser *parser, int depth)
{
  const char *open = parser->p;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array = json_array_new ();

  json_node_take_array (node, array);
  if (depth > MAX_DEPTH)
    {
      fail_too_deep (parser, open);
      return NULL;
    }
  parser->p++;
  for (;;)
    {
      JsonNode *element;

      if (!skip_array_space (parser))
        return NULL;
      if (parser->p >= parser->end)
        {
          fail (parser, open, OW_TOML_ERROR_SYNTAX, "this array is never closed (expected ']')");
          return NULL;
        }
      if (*parser->p == ']')
        break;
      element = parse_value (parser, depth + 1);
      if (element == NULL)
        return NULL;
      json_array_add_element (array, element);
      if (!skip_array_space (parser))
        return NULL;
      if (parser->p >= parser->end)
        {
          fail (parser, open, OW_TOML_ERROR_SYNTAX, "this array is never closed (expected ']')");
          return NULL;
        }
      if (*parser->p == ']')
        break;
      if (*parser->p != ',')
        {
          g_autofree char *found = describe_char (parser, parser->p);
          fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                "expected ',' or ']' after an array element, found %s", found);
          return NULL;
        }
      parser->p++;
    }
  parser->p++;
  return g_steal_pointer (&node);
}

static gboolean parse_keyval (Parser *parser, JsonObject *table, int depth);

/* Inside an inline table only spaces may separate the parts: TOML 1.0 keeps
 * an inline table on one line, so a newline or comment there is an error. */
static gboolean
inline_table_continues (Parser *parser)
{
  skip_ws (parser);
  if (parser->p >= parser->end || *parser->p == '\n' || *parser->p == '\r' || *parser->p == '#')
    return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                 "this inline table must be closed with '}' on the same line (inline tables "
                 "cannot span lines or hold comments; use a [table] instead)");
  return TRUE;
}

static JsonNode *
parse_inline_table (Parser *parser, int depth)
{
  const char *open = parser->p;
  JsonObject *table;
  /* While it is being read, dotted keys inside it may still add to the
   * tables they create ({ a.b = 1, a.c = 2 }); it is closed at the '}'. */
  g_autoptr(JsonNode) node = new_table_node (parser, TABLE_DOTTED, &table);

  if (depth > MAX_DEPTH)
    {
      fail_too_deep (parser, open);
      return NULL;
    }
  parser->p++;
  if (!inline_table_continues (parser))
    return NULL;
  if (*parser->p != '}')
    {
      for (;;)
        {
          if (!parse_keyval (parser, table, depth) || !inline_table_continues (parser))
            return NULL;
          if (*parser->p == '}')
            break;
          if (*parser->p != ',')
            {
              g_autofree char *found = describe_char (parser, parser->p);
              fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                    "expected ',' or '}' in the inline table, found %s", found);
              return NULL;
            }
          parser->p++;
          if (!inline_table_continues (parser))
            return NULL;
          if (*parser->p == '}')
            {
              fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                    "a trailing comma is not allowed in an inline table");
              return NULL;
            }
        }
    }
  parser->p++;
  /* Complete now: neither headers nor dotted keys may add to it later. */
  set_flags (parser, table, TABLE_INLINE);
  return g_steal_pointer (&node);
}

static JsonNode *
parse_value (Parser *parser, int depth)
{
  if (parser->p < parser->end)
    {
      switch (*parser->p)
        {
        case '"':
        case '\'':
          {
            g_autoptr(GString) s = g_string_new (NULL);

            if (!parse_string (parser, s, FALSE))
              return NULL;
            return json_node_init_string (json_node_alloc (), s->str);
          }
        case '[':
          return parse_array (parser, depth);
        case '{':
          return parse_inline_table (parser, depth);
        default:
          break;
        }
    }
  return parse_scalar (parser);
}

/* ---- Putting keys in tables ---- */

/* Walks the dotted key @parts (all but the last) from @table, creating the
 * tables that are missing, and checks that the last part is still free.
 * On success *@target, which starts as the table the key is read in, is the
 * table the last part goes in, and *@depth its depth. */
static gboolean
resolve_dotted_key (Parser *parser, JsonObject **target, int *depth, GPtrArray *parts)
{
  JsonObject *table = *target;
  KeyPart *last = g_ptr_array_index (parts, parts->len - 1);

  for (guint i = 0; i + 1 < parts->len; i++)
    {
      KeyPart *part = g_ptr_array_index (parts, i);
      JsonNode *node = json_object_get_member (table, part->name);
      g_autofree char *path = NULL;
      JsonObject *child;
      guint flags;

      (*depth)++;
      if (node == NULL)
        {
          if (*depth > MAX_DEPTH)
            return fail_too_deep (parser, part->at);
          table = add_table (parser, table, part->name, TABLE_DOTTED);
          continue;
        }

      /* The key path is only needed for a message, so it is built only on
       * the way to one. */
      path = key_to_string (parts, i);
      if (JSON_NODE_HOLDS_ARRAY (node))
        return fail (parser, part->at, OW_TOML_ERROR_DUPLICATE,
                     "%s is an array; dotted keys cannot add to it", path);
      if (!JSON_NODE_HOLDS_OBJECT (node))
        return fail (parser, part->at, OW_TOML_ERROR_DUPLICATE,
                     "%s is already %s, so it cannot also be a table", path,
                     describe_node (node));
      child = json_node_get_object (node);
      flags = get_flags (parser, child);
      if (flags & TABLE_INLINE)
        return fail (parser, part->at, OW_TOML_ERROR_DUPLICATE,
                     "%s is an inline table, which cannot be extended after it is written",
                     path);
      if (flags & TABLE_HEADER)
        return fail (parser, part->at, OW_TOML_ERROR_DUPLICATE,
                     "the table %s is defined by a [header]; dotted keys cannot add to it",
                     path);
      /* An implicit table (so far only a parent in some header) is defined
       * here, by dotted keys; a later [header] for it is then a
       * redefinition. */
      set_flags (parser, child, TABLE_DOTTED);
      table = child;
    }

  if (json_object_has_member (table, last->name))
    {
      g_autofree char *path = key_to_string (parts, parts->len - 1);
      return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE, "the key %s is defined twice", path);
    }
  *target = table;
  return TRUE;
}

/* Reads "key = value" into @table (at @depth). The key is checked before the
 * value is read, so errors come in the order of the text. */
static gboolean
parse_keyval (Parser *parser, JsonObject *table, int depth)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (key_part_free);
  KeyPart *last;
  JsonObject *target;
  JsonNode *value;

  if (!parse_key (parser, parts))
    return FALSE;
  if (parser->p >= parser->end || *parser->p != '=')
    {
      g_autofree char *path = key_to_string (parts, parts->len - 1);
      g_autofree char *found = describe_char (parser, parser->p);
      return fail (parser, parser->p, OW_TOML_ERROR_SYNTAX,
                   "expected '=' after the key %s, found %s", path, found);
    }
  parser->p++;
  skip_ws (parser);
  target = table;
  if (!resolve_dotted_key (parser, &target, &depth, parts))
    return FALSE;
  value = parse_value (parser, depth + 1);
  if (value == NULL)
    return FALSE;
  last = g_ptr_array_index (parts, parts->len - 1);
  json_object_set_member (target, last->name, value);
  return TRUE;
}

/* Walks one part of a header's key path, other than the last: the table
 * may exist (implicit, header-defined or dotted, but not inline), or is
 * created implicitly; an array of tables stands for its last element. */
static gboolean
walk_header_part (Parser *parser, JsonObject **table, int *depth, GPtrArray *parts, guint i)
{
  KeyPart *part = g_ptr_array_index (parts, i);
  JsonNode *node = json_object_get_member (*table, part->name);
  g_autofree char *path = NULL;

  (*depth)++;
  if (*depth > MAX_DEPTH)
    return fail_too_deep (parser, part->at);
  if (node == NULL)
    {
      *table = add_table (parser, *table, part->name, TABLE_IMPLICIT);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_OBJECT (node)
      && !(get_flags (parser, json_node_get_object (node)) & TABLE_INLINE))
    {
      *table = json_node_get_object (node);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (node)
      && (get_flags (parser, json_node_get_array (node)) & ARRAY_OF_TABLES))
    {
      JsonArray *elements = json_node_get_array (node);

      /* Arrays of tables are never empty and hold only tables. */
      (*depth)++;
      *table = json_array_get_object_element (elements, json_array_get_length (elements) - 1);
      return TRUE;
    }

  path = key_to_string (parts, i);
  if (JSON_NODE_HOLDS_OBJECT (node))
    return fail (parser, part->at, OW_TOML_ERROR_DUPLICATE,
                 "%s is an inline table, which cannot be extended after it is written", path);
  if (JSON_NODE_HOLDS_ARRAY (node))
    return fail (parser, part->at, OW_TOML_ERROR_DUPLICATE,
                 "%s is an array value, which cannot be extended by a header", path);
  return fail (parser, part->at, OW_TOML_ERROR_DUPLICATE,
               "%s is already %s, so it cannot also be a table", path, describe_node (node));
}

/* Defines the table named by the last part of a [header] in @parent. */
static gboolean
define_table (Parser *parser, JsonObject *parent, GPtrArray *parts, JsonObject **out)
{
  KeyPart *last = g_ptr_array_index (parts, parts->len - 1);
  JsonNode *node = json_object_get_member (parent, last->name);
  g_autofree char *path = NULL;
  JsonObject *table;
  guint flags;

  if (node == NULL)
    {
      *out = add_table (parser, parent, last->name, TABLE_HEADER);
      return TRUE;
    }

  path = key_to_string (parts, parts->len - 1);
  if (JSON_NODE_HOLDS_ARRAY (node)
      && (get_flags (parser, json_node_get_array (node)) & ARRAY_OF_TABLES))
    return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE,
                 "%s is an array of tables; use [[%s]] to add an element to it", path, path);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE,
                 "%s is already %s, so it cannot also be a table", path, describe_node (node));
  table = json_node_get_object (node);
  flags = get_flags (parser, table);
  if (flags & TABLE_INLINE)
    return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE,
                 "%s is an inline table, which cannot be extended after it is written", path);
  if (flags & TABLE_HEADER)
    return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE, "the table [%s] is defined twice",
                 path);
  if (flags & TABLE_DOTTED)
    return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE,
                 "the table %s is already defined by dotted keys, so a [%s] header cannot "
                 "define it again", path, path);
  /* Implicit so far: this header defines it. */
  set_flags (parser, table, TABLE_HEADER);
  *out = table;
  return TRUE;
}

/* Adds a new element to the array of tables named by the last part of a
 * [[header]] in @parent, creating the array if needed. */
static gboolean
append_table (Parser *parser, JsonObject *parent, GPtrArray *parts, JsonObject **out)
{
  KeyPart *last = g_ptr_array_index (parts, parts->len - 1);
  JsonNode *node = json_object_get_member (parent, last->name);
  g_autofree char *path = NULL;
  JsonArray *elements;

  if (node == NULL)
    {
      JsonNode *array_node = json_node_new (JSON_NODE_ARRAY);

      elements = json_array_new ();
      json_node_take_array (array_node, elements);
      json_object_set_member (parent, last->name, array_node);
      set_flags (parser, elements, ARRAY_OF_TABLES);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node)
           && (get_flags (parser, json_node_get_array (node)) & ARRAY_OF_TABLES))
    elements = json_node_get_array (node);
  else
    {
      path = key_to_string (parts, parts->len - 1);
      if (JSON_NODE_HOLDS_ARRAY (node))
        return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE,
                     "%s is an array value, which [[%s]] cannot add to", path, path);
      if (JSON_NODE_HOLDS_OBJECT (node))
        return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE,
                     "%s is already a table, not an array of tables", path);
      return fail (parser, last->at, OW_TOML_ERROR_DUPLICATE,
                   "%s is already %s, not an array of tables", path, describe_node (node));
    }
  json_array_add_element (elements, new_table_node (parser, TABLE_HEADER, out));
  return TRUE;
}

/* Reads a [table] or [[array of tables]] header and makes its table the
 * current one. */
static gboolean
parse_header (Parser *parser)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (key_part_free);
  gboolean array = parser->end - parser->p >= 2 && parser->p[1] == '[';
  JsonObject *table = parser->root;
  KeyPart *last;
  int depth = 0;

  parser->p += array ? 2 : 1;
  skip_ws (parser);
  if (!parse_key (parser, parts))
    return FALSE;
  if (parser->p >= parser->end || *parser->p != ']'
      || (array && (parser->p + 1 >= parser->end || parser->p[1] != ']')))
    {
      const char *at = parser->p < parser->end && *parser->p == ']' ? parser->p + 1 : parser->p;
      g_autofree char *found = describe_char (parser, at);
      return fail (parser, at, OW_TOML_ERROR_SYNTAX, "expected '%s' to close the header, found %s",
                   array ? "]]" : "]", found);
    }
  parser->p += array ? 2 : 1;

  for (guint i = 0; i + 1 < parts->len; i++)
    if (!walk_header_part (parser, &table, &depth, parts, i))
      return FALSE;
  last = g_ptr_array_index (parts, parts->len - 1);
  /* The table, or the array and its element, one level further down. */
  depth += array ? 2 : 1;
  if (depth > MAX_DEPTH)
    return fail_too_deep (parser, last->at);
  if (array ? !append_table (parser, table, parts, &table)
            : !define_table (parser, table, parts, &table))
    return FALSE;
  parser->current = table;
  parser->current_depth = depth;
  return TRUE;
}

/* ---- The document ---- */

/* The whole document must be UTF-8. NUL bytes pass here and are refused by
 * the grammar where they stand, with a clearer message. */
static gboolean
check_utf8 (Parser *parser)
{
  const char *p = parser->text;

  while (p < parser->end)
    {
      const char *bad;

      if (g_utf8_validate_len (p, (gsize) (parser->end - p), &bad))
        return TRUE;
      if (*bad != '\0')
        return fail (parser, bad, OW_TOML_ERROR_SYNTAX,
                     "the file is not valid UTF-8 (the byte 0x%02X cannot stand here)",
                     (guchar) *bad);
      p = bad + 1;
    }
  return TRUE;
}

static gboolean
parse_document (Parser *parser)
{
  if (!check_utf8 (parser))
    return FALSE;
  /* Some editors start UTF-8 files with a byte order mark; it is not text. */
  if (parser->end - parser->p >= 3 && memcmp (parser->p, "\xEF\xBB\xBF", 3) == 0)
    parser->p += 3;

  while (parser->p < parser->end)
    {
      const char *after = "the comment";

      skip_ws (parser);
      if (parser->p >= parser->end)
        break;
      if (*parser->p == '[')
        {
          if (!parse_header (parser))
            return FALSE;
          after = "the header";
        }
      else if (*parser->p != '#' && *parser->p != '\n' && *parser->p != '\r')
        {
          if (!parse_keyval (parser, parser->current, parser->current_depth))
            return FALSE;
          after = "the value";
        }
      if (!end_of_line (parser, after))
        return FALSE;
    }
  return TRUE;
}

JsonNode *
ow_toml_parse (const char *text, gssize len, GError **error)
{
  g_autoptr(GHashTable) flags = NULL;
  g_autoptr(JsonNode) root = NULL;
  Parser parser = { 0 };

  g_return_val_if_fail (text != NULL || len == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (text == NULL)
    text = "";
  if (len < 0)
    len = (gssize) strlen (text);
  flags = g_hash_table_new (g_direct_hash, g_direct_equal);
  parser.text = text;
  parser.end = text + len;
  parser.p = text;
  parser.flags = flags;
  parser.error = error;
  root = new_table_node (&parser, TABLE_HEADER, &parser.root);
  parser.current = parser.root;
  parser.current_depth = 0;
  if (!parse_document (&parser))
    return NULL;
  return g_steal_pointer (&root);
}

/* ---- The writer ---- */

typedef struct {
  GString *out;
  GError **error;
} Writer;

/* Writes a double so that reading it back gives the same double: the
 * shortest of 15, 16 or 17 significant digits that does, with ".0" added
 * when the result would otherwise read as an integer. */
static void
append_double (GString *out, double v)
{
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    {
      g_string_append (out, signbit (v) ? "-nan" : "nan");
      return;
    }
  if (isinf (v))
    {
      g_string_append (out, v > 0 ? "inf" : "-inf");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  g_string_append (out, buf);
  if (strpbrk (buf, ".eE") == NULL)
    g_string_append (out, ".0");
}

static gboolean
write_fail (Writer *writer, const char *path, const char *problem)
{
  g_set_error (writer->error, OW_TOML_ERROR, OW_TOML_ERROR_TYPE, "%s %s", path, problem);
  return FALSE;
}

static gboolean
check_utf8_string (Writer *writer, const char *s, const char *path, const char *what)
{
  if (g_utf8_validate (s, -1, NULL))
    return TRUE;
  g_set_error (writer->error, OW_TOML_ERROR, OW_TOML_ERROR_TYPE,
               "%s: the %s is not valid UTF-8, which TOML cannot hold", path, what);
  return FALSE;
}

/* Writes @node inline: scalars, arrays as [ … ], tables as { … }. @path
 * names it in errors; it is extended and restored on the way down rather
 * than copied, so long keys in big arrays do not cost quadratic time. */
static gboolean
write_inline (Writer *writer, JsonNode *node, GString *path)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_NULL:
      return write_fail (writer, path->str, "is null, which TOML cannot express");
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        g_string_append_c (writer->out, '[');
        for (guint i = 0; i < n; i++)
          {
            gsize saved = path->len;

            if (i > 0)
              g_string_append (writer->out, ", ");
            g_string_append_printf (path, "[%u]", i);
            if (!write_inline (writer, json_array_get_element (array, i), path))
              return FALSE;
            g_string_truncate (path, saved);
          }
        g_string_append_c (writer->out, ']');
        return TRUE;
      }
    case JSON_NODE_OBJECT:
      {
        JsonObject *table = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (table);

        if (members == NULL)
          {
            g_string_append (writer->out, "{}");
            return TRUE;
          }
        g_string_append (writer->out, "{ ");
        for (GList *l = members; l != NULL; l = l->next)
          {
            gsize saved = path->len;

            if (!check_utf8_string (writer, l->data, path->str, "key"))
              return FALSE;
            if (l != members)
              g_string_append (writer->out, ", ");
            append_key (writer->out, l->data);
            g_string_append (writer->out, " = ");
            g_string_append_c (path, '.');
            append_key (path, l->data);
            if (!write_inline (writer, json_object_get_member (table, l->data), path))
              return FALSE;
            g_string_truncate (path, saved);
          }
        g_string_append (writer->out, " }");
        return TRUE;
      }
    case JSON_NODE_VALUE:
    default:
      break;
    }

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      g_string_append_printf (writer->out, "%" G_GINT64_FORMAT, json_node_get_int (node));
      return TRUE;
    case G_TYPE_DOUBLE:
      append_double (writer->out, json_node_get_double (node));
      return TRUE;
    case G_TYPE_BOOLEAN:
      g_string_append (writer->out, json_node_get_boolean (node) ? "true" : "false");
      return TRUE;
    case G_TYPE_STRING:
      if (!check_utf8_string (writer, json_node_get_string (node), path->str, "string"))
        return FALSE;
      append_basic_string (writer->out, json_node_get_string (node));
      return TRUE;
    default:
      return write_fail (writer, path->str, "holds a value of a type TOML cannot express");
    }
}

/* Whether @node is written as [[…]] sections: a non-empty array of tables
 * only. Every other array is written inline. */
static gboolean
is_array_of_tables (JsonNode *node)
{
  JsonArray *array;
  guint n;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n == 0)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!JSON_NODE_HOLDS_OBJECT (json_array_get_element (array, i)))
      return FALSE;
  return TRUE;
}

static gboolean
is_section (JsonNode *node)
{
  return JSON_NODE_HOLDS_OBJECT (node) || is_array_of_tables (node);
}

/* Writes @table's section: its header (the key path in @path), its plain
 * values, then its sub-tables and arrays of tables as sections of their own.
 * @path is restored before returning. */
static gboolean
write_section (Writer *writer, JsonObject *table, GString *path, gboolean array_element)
{
  g_autoptr(GList) members = json_object_get_members (table);
  gboolean has_values = FALSE;

  for (GList *l = members; l != NULL; l = l->next)
    {
      if (!check_utf8_string (writer, l->data, path->len > 0 ? path->str : "the root table", "key"))
        return FALSE;
      if (!is_section (json_object_get_member (table, l->data)))
        has_values = TRUE;
    }

  /* A table holding only sub-tables needs no header of its own: their
   * headers create it. An empty one, or an array element, does. */
  if (path->len > 0 && (array_element || has_values || members == NULL))
    {
      if (writer->out->len > 0)
        g_string_append_c (writer->out, '\n');
      g_string_append (writer->out, array_element ? "[[" : "[");
      g_string_append_len (writer->out, path->str, path->len);
      g_string_append (writer->out, array_element ? "]]\n" : "]\n");
    }

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (table, l->data);
      gsize saved = path->len;

      if (is_section (node))
        continue;
      append_key (writer->out, l->data);
      g_string_append (writer->out, " = ");
      if (path->len > 0)
        g_string_append_c (path, '.');
      append_key (path, l->data);
      if (!write_inline (writer, node, path))
        return FALSE;
      g_string_truncate (path, saved);
      g_string_append_c (writer->out, '\n');
    }

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (table, l->data);
      gsize saved = path->len;
      gboolean ok = TRUE;

      if (!is_section (node))
        continue;
      if (path->len > 0)
        g_string_append_c (path, '.');
      append_key (path, l->data);
      if (JSON_NODE_HOLDS_OBJECT (node))
        ok = write_section (writer, json_node_get_object (node), path, FALSE);
      else
        {
          JsonArray *elements = json_node_get_array (node);

          for (guint i = 0; ok && i < json_array_get_length (elements); i++)
            ok = write_section (writer, json_array_get_object_element (elements, i), path, TRUE);
        }
      g_string_truncate (path, saved);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

char *
ow_toml_write (JsonObject *root, GError **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) path = g_string_new (NULL);
  Writer writer = { out, error };

  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!write_section (&writer, root, path, FALSE))
    return NULL;
  return g_string_free (g_steal_pointer (&out), FALSE);
}
