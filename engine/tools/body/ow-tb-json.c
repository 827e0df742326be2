/* ow-tb-json.c: a small strict JSON reader for tool arguments.
 *
 * Tool arguments come straight from a model, and in the sandbox they are
 * the only input the tool runner takes, so this reader is strict and is
 * fuzzed: RFC 8259 grammar only (no comments, no trailing commas, no
 * single quotes, no NaN), well-formed UTF-8 only, nesting at most 128
 * deep, no duplicate keys (a second "path" must not silently win over
 * the one a person approved), and no U+0000 inside strings (every string
 * is handed on as a C string). Errors say what was expected and at which
 * byte. It is a recursive-descent parser with an explicit depth bound, so
 * hostile input cannot exhaust the stack.
 */
#include "ow-tb-private.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 128

/* The parser's position and the first error it met. */
typedef struct {
  const unsigned char *text;     /* the input (borrowed) */
  size_t               len;      /* its length */
  size_t               pos;      /* the next byte to read */
  char                *err;      /* where to write the error, or NULL */
  size_t               err_size; /* size of @err */
  int                  failed;   /* an error was recorded; stop everywhere */
} Parser;

static OwTbJson *parse_value (Parser *p, int depth);

static void
fail (Parser *p, size_t at, const char *what)
{
  if (p->failed)
    return;
  p->failed = 1;
  if (p->err != NULL && p->err_size > 0)
    snprintf (p->err, p->err_size, "%s at byte %zu", what, at);
}

static void
skip_ws (Parser *p)
{
  while (p->pos < p->len)
    {
      unsigned char c = p->text[p->pos];

      if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        break;
      p->pos++;
    }
}

static OwTbJson *
node_new (OwTbJsonType type)
{
  OwTbJson *node = ow_tb_xcalloc (1, sizeof *node);

  node->type = type;
  return node;
}

void
ow_tb_json_free (OwTbJson *node)
{
  if (node == NULL)
    return;
  for (size_t i = 0; i < node->n_items; i++)
    {
      ow_tb_json_free (node->items[i]);
      if (node->keys != NULL)
        free (node->keys[i]);
    }
  free (node->items);
  free (node->keys);
  free (node->string);
  free (node);
}

const OwTbJson *
ow_tb_json_get (const OwTbJson *object, const char *key)
{
  if (object == NULL || object->type != OW_TB_JSON_OBJECT)
    return NULL;
  for (size_t i = 0; i < object->n_items; i++)
    if (strcmp (object->keys[i], key) == 0)
      return object->items[i];
  return NULL;
}

static int
literal (Parser *p, const char *word)
{
  size_t n = strlen (word);

  if (p->len - p->pos < n || memcmp (p->text + p->pos, word, n) != 0)
    return 0;
  p->pos += n;
  return 1;
}

static int
hex4 (Parser *p, unsigned *out)
{
  unsigned v = 0;

  if (p->len - p->pos < 4)
    {
      fail (p, p->pos, "truncated \\u escape");
      return 0;
    }
  for (int i = 0; i < 4; i++)
    {
      unsigned char c = p->text[p->pos + (size_t) i];

      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= (unsigned) (c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= (unsigned) (c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= (unsigned) (c - 'A' + 10);
      else
        {
          fail (p, p->pos + (size_t) i, "invalid hex digit in \\u escape");
          return 0;
        }
    }
  p->pos += 4;
  *out = v;
  return 1;
}

static void
put_utf8 (OwTbBuf *buf, unsigned cp)
{
  char b[4];
  size_t n;

  if (cp < 0x80)
    {
      b[0] = (char) cp;
      n = 1;
    }
  else if (cp < 0x800)
    {
      b[0] = (char) (0xc0 | (cp >> 6));
      b[1] = (char) (0x80 | (cp & 0x3f));
      n = 2;
    }
  else if (cp < 0x10000)
    {
      b[0] = (char) (0xe0 | (cp >> 12));
      b[1] = (char) (0x80 | ((cp >> 6) & 0x3f));
      b[2] = (char) (0x80 | (cp & 0x3f));
      n = 3;
    }
  else
    {
      b[0] = (char) (0xf0 | (cp >> 18));
      b[1] = (char) (0x80 | ((cp >> 12) & 0x3f));
      b[2] = (char) (0x80 | ((cp >> 6) & 0x3f));
      b[3] = (char) (0x80 | (cp & 0x3f));
      n = 4;
    }
  ow_tb_buf_append (buf, b, n);
}

/* Reads a string literal (p->pos at the opening quote) into @buf. */
static int
parse_string_into (Parser *p, OwTbBuf *buf)
{
  size_t start = p->pos;

  p->pos++; /* the opening quote */
  for (;;)
    {
      size_t run = p->pos;
      unsigned char c;

      /* Plain bytes are copied in runs; only quotes, backslashes, control
       * characters and non-ASCII need a closer look. */
      while (p->pos < p->len)
        {
          c = p->text[p->pos];
          if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
            break;
          p->pos++;
        }
      ow_tb_buf_append (buf, (const char *) p->text + run, p->pos - run);
      if (p->pos >= p->len)
        {
          fail (p, start, "unterminated string");
          return 0;
        }
      c = p->text[p->pos];
      if (c == '"')
        {
          p->pos++;
          return 1;
        }
      if (c < 0x20)
        {
          fail (p, p->pos, "unescaped control character in string");
          return 0;
        }
      if (c >= 0x80)
        {
          size_t n = ow_tb_utf8_seq_len (p->text + p->pos, p->len - p->pos);

          if (n == 0)
            {
              fail (p, p->pos, "invalid UTF-8 in string");
              return 0;
            }
          ow_tb_buf_append (buf, (const char *) p->text + p->pos, n);
          p->pos += n;
          continue;
        }
      /* A backslash escape. */
      if (p->pos + 1 >= p->len)
        {
          fail (p, p->pos, "unterminated escape");
          return 0;
        }
      c = p->text[p->pos + 1];
      p->pos += 2;
      switch (c)
        {
        case '"': ow_tb_buf_append (buf, "\"", 1); break;
        case '\\': ow_tb_buf_append (buf, "\\", 1); break;
        case '/': ow_tb_buf_append (buf, "/", 1); break;
        case 'b': ow_tb_buf_append (buf, "\b", 1); break;
        case 'f': ow_tb_buf_append (buf, "\f", 1); break;
        case 'n': ow_tb_buf_append (buf, "\n", 1); break;
        case 'r': ow_tb_buf_append (buf, "\r", 1); break;
        case 't': ow_tb_buf_append (buf, "\t", 1); break;
        case 'u':
          {
            size_t at = p->pos - 2;
            unsigned cp, lo;

            if (!hex4 (p, &cp))
              return 0;
            if (cp >= 0xdc00 && cp <= 0xdfff)
              {
                fail (p, at, "unpaired low surrogate in \\u escape");
                return 0;
              }
            if (cp >= 0xd800 && cp <= 0xdbff)
              {
                if (p->len - p->pos < 2 || p->text[p->pos] != '\\' || p->text[p->pos + 1] != 'u')
                  {
                    fail (p, at, "unpaired high surrogate in \\u escape");
                    return 0;
                  }
                p->pos += 2;
                if (!hex4 (p, &lo))
                  return 0;
                if (lo < 0xdc00 || lo > 0xdfff)
                  {
                    fail (p, at, "unpaired high surrogate in \\u escape");
                    return 0;
                  }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
              }
            if (cp == 0)
              {
                fail (p, at, "\\u0000 is not allowed in strings");
                return 0;
              }
            put_utf8 (buf, cp);
          }
          break;
        default:
          fail (p, p->pos - 2, "invalid escape in string");
          return 0;
        }
    }
}

static OwTbJson *
parse_string (Parser *p)
{
  OwTbBuf buf;
  OwTbJson *node;

  ow_tb_buf_init (&buf);
  if (!parse_string_into (p, &buf))
    {
      ow_tb_buf_free (&buf);
      return NULL;
    }
  node = node_new (OW_TB_JSON_STRING);
  node->string_len = buf.len;
  node->string = ow_tb_buf_steal (&buf);
  ow_tb_buf_free (&buf);
  return node;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
init_c_locale (void)
{
  c_locale = newlocale (LC_ALL_MASK, "C", (locale_t) 0);
}

static OwTbJson *
parse_number (Parser *p)
{
  size_t start = p->pos;
  int plain = 1; /* no fraction or exponent: an exact integer fast path applies */
  OwTbJson *node;
  double v;

  if (p->text[p->pos] == '-')
    p->pos++;
  if (p->pos >= p->len || p->text[p->pos] < '0' || p->text[p->pos] > '9')
    {
      fail (p, p->pos, "expected a digit");
      return NULL;
    }
  if (p->text[p->pos] == '0')
    {
      p->pos++;
      if (p->pos < p->len && p->text[p->pos] >= '0' && p->text[p->pos] <= '9')
        {
          fail (p, p->pos, "leading zeros are not allowed in numbers");
          return NULL;
        }
    }
  else
    while (p->pos < p->len && p->text[p->pos] >= '0' && p->text[p->pos] <= '9')
      p->pos++;
  if (p->pos < p->len && p->text[p->pos] == '.')
    {
      plain = 0;
      p->pos++;
      if (p->pos >= p->len || p->text[p->pos] < '0' || p->text[p->pos] > '9')
        {
          fail (p, p->pos, "expected a digit after the decimal point");
          return NULL;
        }
      while (p->pos < p->len && p->text[p->pos] >= '0' && p->text[p->pos] <= '9')
        p->pos++;
    }
  if (p->pos < p->len && (p->text[p->pos] == 'e' || p->text[p->pos] == 'E'))
    {
      plain = 0;
      p->pos++;
      if (p->pos < p->len && (p->text[p->pos] == '+' || p->text[p->pos] == '-'))
        p->pos++;
      if (p->pos >= p->len || p->text[p->pos] < '0' || p->text[p->pos] > '9')
        {
          fail (p, p->pos, "expected a digit in the exponent");
          return NULL;
        }
      while (p->pos < p->len && p->text[p->pos] >= '0' && p->text[p->pos] <= '9')
        p->pos++;
    }

  if (plain && p->pos - start <= 16)
    {
      /* Up to 15 digits fit a double exactly; no locale involved. */
      long long iv = 0;
      int neg = p->text[start] == '-';

      for (size_t i = start + (size_t) neg; i < p->pos; i++)
        iv = iv * 10 + (p->text[i] - '0');
      v = neg ? -(double) iv : (double) iv;
    }
  else
    {
      /* strtod obeys LC_NUMERIC, which a desktop app sets from the user's
       * locale ("1,5"); JSON numbers always use '.', so parse in "C". */
      char tmp[64];
      char *copy = p->pos - start < sizeof tmp ? tmp : ow_tb_xmalloc (p->pos - start + 1);

      memcpy (copy, p->text + start, p->pos - start);
      copy[p->pos - start] = '\0';
      pthread_once (&c_locale_once, init_c_locale);
      v = c_locale != (locale_t) 0 ? strtod_l (copy, NULL, c_locale) : strtod (copy, NULL);
      if (copy != tmp)
        free (copy);
      if (!isfinite (v))
        {
          fail (p, start, "number out of range");
          return NULL;
        }
    }
  node = node_new (OW_TB_JSON_NUMBER);
  node->number = v;
  return node;
}

static void
push_item (OwTbJson *node, size_t *cap, OwTbJson *item, char *key)
{
  if (node->n_items == *cap)
    {
      *cap = *cap ? *cap * 2 : 4;
      node->items = ow_tb_xrealloc (node->items, *cap * sizeof *node->items);
      if (node->type == OW_TB_JSON_OBJECT)
        node->keys = ow_tb_xrealloc (node->keys, *cap * sizeof *node->keys);
    }
  node->items[node->n_items] = item;
  if (node->type == OW_TB_JSON_OBJECT)
    node->keys[node->n_items] = key;
  node->n_items++;
}

static OwTbJson *
parse_array (Parser *p, int depth)
{
  OwTbJson *node = node_new (OW_TB_JSON_ARRAY);
  size_t cap = 0;

  p->pos++; /* '[' */
  skip_ws (p);
  if (p->pos < p->len && p->text[p->pos] == ']')
    {
      p->pos++;
      return node;
    }
  for (;;)
    {
      OwTbJson *item;

      skip_ws (p);
      item = parse_value (p, depth + 1);
      if (item == NULL)
        goto error;
      push_item (node, &cap, item, NULL);
      skip_ws (p);
      if (p->pos >= p->len)
        {
          fail (p, p->pos, "unterminated array");
          goto error;
        }
      if (p->text[p->pos] == ',')
        {
          p->pos++;
          continue;
        }
      if (p->text[p->pos] == ']')
        {
          p->pos++;
          return node;
        }
      fail (p, p->pos, "expected ',' or ']' in array");
      goto error;
    }
error:
  ow_tb_json_free (node);
  return NULL;
}

static OwTbJson *
parse_object (Parser *p, int depth)
{
  OwTbJson *node = node_new (OW_TB_JSON_OBJECT);
  size_t cap = 0;
  OwTbBuf key;

  ow_tb_buf_init (&key);
  p->pos++; /* '{' */
  skip_ws (p);
  if (p->pos < p->len && p->text[p->pos] == '}')
    {
      p->pos++;
      ow_tb_buf_free (&key);
      return node;
    }
  for (;;)
    {
      size_t key_at;
      OwTbJson *value;

      skip_ws (p);
      if (p->pos >= p->len || p->text[p->pos] != '"')
        {
          fail (p, p->pos, "expected a string key in object");
          goto error;
        }
      key_at = p->pos;
      ow_tb_buf_reset (&key);
      if (!parse_string_into (p, &key))
        goto error;
      for (size_t i = 0; i < node->n_items; i++)
        if (strlen (node->keys[i]) == key.len && memcmp (node->keys[i], key.data, key.len) == 0)
          {
            fail (p, key_at, "duplicate key in object");
            goto error;
          }
      skip_ws (p);
      if (p->pos >= p->len || p->text[p->pos] != ':')
        {
          fail (p, p->pos, "expected ':' after object key");
          goto error;
        }
      p->pos++;
      skip_ws (p);
      value = parse_value (p, depth + 1);
      if (value == NULL)
        goto error;
      push_item (node, &cap, value, ow_tb_xstrndup (key.data, key.len));
      skip_ws (p);
      if (p->pos >= p->len)
        {
          fail (p, p->pos, "unterminated object");
          goto error;
        }
      if (p->text[p->pos] == ',')
        {
          p->pos++;
          continue;
        }
      if (p->text[p->pos] == '}')
        {
          p->pos++;
          ow_tb_buf_free (&key);
          return node;
        }
      fail (p, p->pos, "expected ',' or '}' in object");
      goto error;
    }
error:
  ow_tb_buf_free (&key);
  ow_tb_json_free (node);
  return NULL;
}

static OwTbJson *
parse_value (Parser *p, int depth)
{
  unsigned char c;

  if (p->pos >= p->len)
    {
      fail (p, p->pos, "unexpected end of input");
      return NULL;
    }
  c = p->text[p->pos];
  if ((c == '{' || c == '[') && depth > MAX_DEPTH)
    {
      fail (p, p->pos, "nesting deeper than 128 levels");
      return NULL;
    }
  switch (c)
    {
    case '{':
      return parse_object (p, depth);
    case '[':
      return parse_array (p, depth);
    case '"':
      return parse_string (p);
    case 't':
      if (literal (p, "true"))
        {
          OwTbJson *node = node_new (OW_TB_JSON_BOOL);

          node->boolean = 1;
          return node;
        }
      break;
    case 'f':
      if (literal (p, "false"))
        return node_new (OW_TB_JSON_BOOL);
      break;
    case 'n':
      if (literal (p, "null"))
        return node_new (OW_TB_JSON_NULL);
      break;
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parse_number (p);
      break;
    }
  fail (p, p->pos, "unexpected character");
  return NULL;
}

OwTbJson *
ow_tb_json_parse (const char *text, size_t len, char *err, size_t err_size)
{
  Parser p = { (const unsigned char *) text, len, 0, err, err_size, 0 };
  OwTbJson *root;

  if (err != NULL && err_size > 0)
    err[0] = '\0';
  if (text == NULL)
    {
      p.text = (const unsigned char *) "";
      p.len = 0;
    }
  skip_ws (&p);
  /* Containers count as depth 1, so "[[…]]" 128 deep is the most allowed. */
  root = parse_value (&p, 1);
  if (root == NULL)
    return NULL;
  skip_ws (&p);
  if (p.pos != p.len)
    {
      fail (&p, p.pos, "unexpected data after the JSON value");
      ow_tb_json_free (root);
      return NULL;
    }
  return root;
}
