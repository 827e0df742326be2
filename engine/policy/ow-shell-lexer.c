/* ow-shell-lexer.c: the lexer of the shell reader (see ow-shell.c).
 *
 * Tokens for the parser: words with their quotes removed and their
 * expansions kept as written (parameters, $( … ), backquotes, $(( … )),
 * $'…', arrays), operators and redirections, and here-document bodies
 * read after their line. The text of a substitution is handed back to
 * the parser (parse_nested), so the commands inside it are read too.
 * Also the helpers every part of a parse uses: failing with a reason,
 * the nesting budget, freeing what a parse made.
 */
#define G_LOG_DOMAIN "ow-shell"

#include "policy/ow-shell-private.h"

#include <stdarg.h>
#include <string.h>

static void parse_dollar (Parser *p, Token *t, gboolean in_dquote);
static void parse_dquote (Parser *p, Token *t, gboolean heredoc);
static void parse_backquote (Parser *p, Token *t, gboolean in_dquote);

/* ---- small helpers ---- */

void
ow_shell_fail (Parser *p, const char *format, ...)
{
  va_list args;

  if (p->shared->error != NULL)
    return;
  va_start (args, format);
  p->shared->error = g_strdup_vprintf (format, args);
  va_end (args);
}

gboolean
ow_shell_failed (const Parser *p)
{
  return p->shared->error != NULL;
}

/* The byte @off ahead of the lexer, or 0 past the end. */
int
ow_shell_peekc (const Parser *p, gsize off)
{
  if (p->pos + off >= p->len)
    return 0;
  return (guchar) p->s[p->pos + off];
}

void
ow_shell_feature (Parser *p, guint bits)
{
  p->shared->features |= bits;
}

/* Takes a nesting level; FALSE (with the error set) past the limit. The
 * caller calls ow_shell_leave() either way. */
gboolean
ow_shell_enter (Parser *p)
{
  if (++p->shared->depth > SHELL_MAX_DEPTH)
    {
      ow_shell_fail (p, "the command nests substitutions or compound commands more than %d deep",
                     SHELL_MAX_DEPTH);
      return FALSE;
    }
  return TRUE;
}

void
ow_shell_leave (Parser *p)
{
  p->shared->depth--;
}

gboolean
ow_shell_is_blank (int c)
{
  return c == ' ' || c == '\t';
}

/* Characters that end an unquoted word. */
gboolean
ow_shell_is_meta (int c)
{
  return c == 0 || c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|'
         || c == '(' || c == ')' || c == '<' || c == '>';
}

gboolean
ow_shell_is_name_start (int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static gboolean
is_name_char (int c)
{
  return ow_shell_is_name_start (c) || (c >= '0' && c <= '9');
}

gboolean
ow_shell_is_digit (int c)
{
  return c >= '0' && c <= '9';
}

void
ow_shell_token_clear (Token *t)
{
  if (t->text != NULL)
    g_string_free (t->text, TRUE);
  g_free (t->fd_text);
  memset (t, 0, sizeof *t);
  t->fd = -1;
}

void
ow_shell_redirect_free (gpointer data)
{
  OwShellRedirect *r = data;

  g_free (r->op);
  g_free (r->target);
  g_free (r->body);
  g_free (r);
}

void
ow_shell_command_free (gpointer data)
{
  OwShellCommand *cmd = data;

  if (cmd == NULL)
    return;
  g_strfreev (cmd->argv);
  g_strfreev (cmd->assignments);
  g_clear_pointer (&cmd->redirects, g_ptr_array_unref);
  g_free (cmd->dynamic);
  g_free (cmd);
}

static void
heredoc_free (gpointer data)
{
  Heredoc *hd = data;

  g_free (hd->delimiter);
  g_free (hd);
}

void
ow_shell_parser_init (Parser *p, Shared *shared, const char *s, gsize len)
{
  memset (p, 0, sizeof *p);
  p->shared = shared;
  p->s = s;
  p->len = len;
  p->la.fd = -1;
  p->heredocs = g_ptr_array_new_with_free_func (heredoc_free);
}

void
ow_shell_parser_clear (Parser *p)
{
  if (p->has_la)
    ow_shell_token_clear (&p->la);
  p->has_la = FALSE;
  g_clear_pointer (&p->heredocs, g_ptr_array_unref);
}

/* ---- here-documents ---- */

/* Reads the bodies of the here-documents waiting for this newline (the
 * lexer has just stepped over it). An unquoted delimiter makes the body
 * subject to expansion, so it is scanned like a double-quoted string
 * (where '"' is an ordinary character) and any substitution in it is
 * parsed. */
static void
read_heredocs (Parser *p)
{
  for (guint i = 0; i < p->heredocs->len && !ow_shell_failed (p); i++)
    {
      Heredoc *hd = g_ptr_array_index (p->heredocs, i);
      g_autoptr(GString) body = g_string_new (NULL);
      gsize dlen = strlen (hd->delimiter);
      gboolean closed = FALSE;

      while (p->pos < p->len)
        {
          const char *line = p->s + p->pos;
          const char *nl = memchr (line, '\n', p->len - p->pos);
          gsize n = nl != NULL ? (gsize) (nl - line) : p->len - p->pos;
          gsize ow_shell_skip = 0;

          if (hd->strip_tabs)
            while (ow_shell_skip < n && line[ow_shell_skip] == '\t')
              ow_shell_skip++;
          p->pos += n + (nl != NULL ? 1 : 0);
          if (n - ow_shell_skip == dlen && memcmp (line + ow_shell_skip, hd->delimiter, dlen) == 0)
            {
              closed = TRUE;
              break;
            }
          g_string_append_len (body, line + ow_shell_skip, n - ow_shell_skip);
          g_string_append_c (body, '\n');
        }
      if (!closed)
        {
          ow_shell_fail (p, "the here-document ended by '%s' is never closed", hd->delimiter);
          return;
        }
      if (hd->quoted)
        {
          hd->redirect->body = g_string_free (g_steal_pointer (&body), FALSE);
        }
      else
        {
          Parser sub;
          Token t = { 0 };

          if (!ow_shell_enter (p))
            {
              ow_shell_leave (p);
              return;
            }
          ow_shell_parser_init (&sub, p->shared, body->str, body->len);
          t.text = g_string_new (NULL);
          parse_dquote (&sub, &t, TRUE);
          hd->redirect->body = g_string_free (g_steal_pointer (&t.text), FALSE);
          ow_shell_token_clear (&t);
          ow_shell_parser_clear (&sub);
          ow_shell_leave (p);
        }
    }
  g_ptr_array_set_size (p->heredocs, 0);
}

/* ---- the lexer ---- */

/* Parses a list in place up to the ')' that closes a $( , <( or >( and
 * steps over it. The lexer is inside a word, so no lookahead is held. */
static void
parse_nested (Parser *p, const char *what)
{
  GPtrArray *saved_heredocs = p->heredocs;
  gboolean saved_outer = p->outer_heredocs, saved_no_glob = p->no_glob, saved_cond = p->cond;
  guint n_items = 0;

  if (ow_shell_enter (p))
    {
      p->heredocs = g_ptr_array_new_with_free_func (heredoc_free);
      p->outer_heredocs = saved_outer || saved_heredocs->len > 0;
      p->no_glob = FALSE;
      p->cond = FALSE;
      ow_shell_parse_list_into (p, &n_items);
      if (!ow_shell_failed (p))
        {
          Token *t;

          if (!p->has_la)
            {
              /* parse_list_into always leaves the token it stopped at */
              ow_shell_fail (p, "cannot read %s", what);
            }
          t = &p->la;
          if (!ow_shell_failed (p) && !(t->kind == TOK_OP && strcmp (t->op, ")") == 0))
            ow_shell_fail (p, "%s is not closed", what);
          if (!ow_shell_failed (p) && p->heredocs->len > 0)
            ow_shell_fail (p, "a here-document inside %s is never closed", what);
        }
      if (p->has_la)
        ow_shell_token_clear (&p->la);
      p->has_la = FALSE;
      g_ptr_array_unref (p->heredocs);
      p->heredocs = saved_heredocs;
      p->outer_heredocs = saved_outer;
      p->no_glob = saved_no_glob;
      p->cond = saved_cond;
    }
  ow_shell_leave (p);
}

/* Appends the text from @start to the lexer to @t as written. */
static void
append_raw (Parser *p, Token *t, gsize start)
{
  g_string_append_len (t->text, p->s + start, p->pos - start);
}

/* $'…': bash's ANSI-C quoting. The lexer is past "$'". */
static void
parse_ansi_c (Parser *p, Token *t)
{
  for (;;)
    {
      int c = ow_shell_peekc (p, 0);

      if (p->pos >= p->len)
        {
          ow_shell_fail (p, "a $'…' string is not closed");
          return;
        }
      if (c == '\'')
        {
          p->pos++;
          return;
        }
      if (c != '\\')
        {
          g_string_append_c (t->text, (char) c);
          p->pos++;
          continue;
        }
      {
        int e = ow_shell_peekc (p, 1);
        gunichar value = 0;
        guint digits = 0, max = 0, base = 16;

        if (p->pos + 1 >= p->len)
          {
            ow_shell_fail (p, "a $'…' string is not closed");
            return;
          }
        p->pos += 2;
        switch (e)
          {
          case 'a': g_string_append_c (t->text, '\a'); continue;
          case 'b': g_string_append_c (t->text, '\b'); continue;
          case 'e': case 'E': g_string_append_c (t->text, '\033'); continue;
          case 'f': g_string_append_c (t->text, '\f'); continue;
          case 'n': g_string_append_c (t->text, '\n'); continue;
          case 'r': g_string_append_c (t->text, '\r'); continue;
          case 't': g_string_append_c (t->text, '\t'); continue;
          case 'v': g_string_append_c (t->text, '\v'); continue;
          case '\\': case '\'': case '"': case '?':
            g_string_append_c (t->text, (char) e);
            continue;
          case 'c':
            {
              int x = ow_shell_peekc (p, 0);

              if (p->pos >= p->len)
                {
                  ow_shell_fail (p, "a $'…' string is not closed");
                  return;
                }
              p->pos++;
              if ((x & 0x1f) == 0)
                {
                  ow_shell_fail (p, "a NUL byte in a $'…' string would cut the word short");
                  return;
                }
              g_string_append_c (t->text, (char) (x & 0x1f));
              continue;
            }
          case 'x': max = 2; base = 16; break;
          case 'u': max = 4; base = 16; break;
          case 'U': max = 8; base = 16; break;
          default:
            if (e >= '0' && e <= '7')
              {
                p->pos--;
                max = 3;
                base = 8;
                e = 'o';
                break;
              }
            /* bash keeps unknown escapes as written */
            g_string_append_c (t->text, '\\');
            g_string_append_c (t->text, (char) e);
            continue;
          }
        while (digits < max)
          {
            int d = ow_shell_peekc (p, 0);
            int v;

            if (d >= '0' && d <= '9')
              v = d - '0';
            else if (base == 16 && d >= 'a' && d <= 'f')
              v = d - 'a' + 10;
            else if (base == 16 && d >= 'A' && d <= 'F')
              v = d - 'A' + 10;
            else
              break;
            if ((guint) v >= base)
              break;
            value = value * base + (gunichar) v;
            digits++;
            p->pos++;
          }
        if (digits == 0)
          {
            g_string_append_c (t->text, '\\');
            g_string_append_c (t->text, (char) e);
            continue;
          }
        if (value == 0)
          {
            ow_shell_fail (p, "a NUL byte in a $'…' string would cut the word short");
            return;
          }
        if (e == 'x' || e == 'o')
          {
            g_string_append_c (t->text, (char) (value & 0xff));
          }
        else
          {
            char utf8[8];
            int n;

            if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
              {
                ow_shell_fail (p, "a $'…' string names a character that does not exist");
                return;
              }
            n = g_unichar_to_utf8 (value, utf8);
            g_string_append_len (t->text, utf8, n);
          }
      }
    }
}

/* ${ … }: the lexer is past "${". The contents may hide substitutions
 * (${x:-$(cmd)}) and quotes, so they are scanned with the same readers;
 * braces nest as bash nests them. */
static void
parse_brace_param (Parser *p, gboolean in_dquote)
{
  guint depth = 1;
  Token scratch = { 0 };

  if (!ow_shell_enter (p))
    {
      ow_shell_leave (p);
      return;
    }
  scratch.text = g_string_new (NULL);
  if (ow_shell_peekc (p, 0) == '}')
    ow_shell_fail (p, "'${}' is a bad substitution");
  while (!ow_shell_failed (p))
    {
      int c = ow_shell_peekc (p, 0);

      if (p->pos >= p->len)
        {
          ow_shell_fail (p, "a ${…} expansion is not closed");
          break;
        }
      switch (c)
        {
        case '\\':
          p->pos += p->pos + 1 < p->len ? 2 : 1;
          break;
        case '\'':
          {
            const char *end = memchr (p->s + p->pos + 1, '\'', p->len - p->pos - 1);

            if (end == NULL)
              {
                ow_shell_fail (p, "a quote inside ${…} is not closed");
                break;
              }
            /* Inside double quotes bash reads these quotes differently
             * from outside; refuse the one case where that changes where
             * the expansion ends. */
            if (in_dquote && memchr (p->s + p->pos, '}', (gsize) (end - (p->s + p->pos))) != NULL)
              {
                ow_shell_fail (p, "cannot tell where a ${…} with quotes inside double quotes ends");
                break;
              }
            p->pos = (gsize) (end - p->s) + 1;
          }
          break;
        case '"':
          parse_dquote (p, &scratch, FALSE);
          break;
        case '$':
          parse_dollar (p, &scratch, in_dquote);
          break;
        case '`':
          parse_backquote (p, &scratch, in_dquote);
          break;
        case '{':
          depth++;
          p->pos++;
          break;
        case '}':
          p->pos++;
          if (--depth == 0)
            goto out;
          break;
        default:
          p->pos++;
          break;
        }
    }
out:
  ow_shell_token_clear (&scratch);
  ow_shell_leave (p);
}

/* The inside of $(( … )) or (( … )): the lexer is past the two opening
 * parentheses. Ends after the matching "))". */
void
ow_shell_parse_arith (Parser *p)
{
  guint depth = 0;
  Token scratch = { 0 };

  if (!ow_shell_enter (p))
    {
      ow_shell_leave (p);
      return;
    }
  scratch.text = g_string_new (NULL);
  while (!ow_shell_failed (p))
    {
      int c = ow_shell_peekc (p, 0);

      if (p->pos >= p->len)
        {
          ow_shell_fail (p, "an arithmetic expression (( … )) is not closed");
          break;
        }
      switch (c)
        {
        case '(':
          depth++;
          p->pos++;
          break;
        case ')':
          if (depth == 0)
            {
              if (ow_shell_peekc (p, 1) != ')')
                {
                  ow_shell_fail (p, "cannot read '((' … ')' as arithmetic or as nested subshells");
                  break;
                }
              p->pos += 2;
              goto out;
            }
          depth--;
          p->pos++;
          break;
        case '\\':
          p->pos += p->pos + 1 < p->len ? 2 : 1;
          break;
        case '\'':
          {
            const char *end = memchr (p->s + p->pos + 1, '\'', p->len - p->pos - 1);

            if (end == NULL)
              ow_shell_fail (p, "a quote inside (( … )) is not closed");
            else
              p->pos = (gsize) (end - p->s) + 1;
          }
          break;
        case '"':
          parse_dquote (p, &scratch, FALSE);
          break;
        case '$':
          parse_dollar (p, &scratch, FALSE);
          break;
        case '`':
          parse_backquote (p, &scratch, FALSE);
          break;
        default:
          p->pos++;
          break;
        }
    }
out:
  ow_shell_token_clear (&scratch);
  ow_shell_leave (p);
}

/* `…`: the old command substitution. Its text is unescaped (\$ \` \\
 * and, inside double quotes, \") and parsed as a command line of its own. */
static void
parse_backquote (Parser *p, Token *t, gboolean in_dquote)
{
  gsize start = p->pos;
  g_autoptr(GString) inner = g_string_new (NULL);
  Parser sub;

  p->pos++;
  for (;;)
    {
      int c = ow_shell_peekc (p, 0);

      if (p->pos >= p->len)
        {
          ow_shell_fail (p, "a `…` substitution is not closed");
          return;
        }
      if (c == '`')
        {
          p->pos++;
          break;
        }
      if (c == '\\')
        {
          int n = ow_shell_peekc (p, 1);

          if (n == '$' || n == '`' || n == '\\' || (in_dquote && n == '"'))
            {
              g_string_append_c (inner, (char) n);
              p->pos += 2;
              continue;
            }
        }
      g_string_append_c (inner, (char) c);
      p->pos++;
    }
  ow_shell_feature (p, OW_SHELL_SUBSTITUTION);
  t->dynamic = TRUE;
  t->plain = FALSE;
  append_raw (p, t, start);
  if (ow_shell_enter (p))
    {
      ow_shell_parser_init (&sub, p->shared, inner->str, inner->len);
      ow_shell_parse_list_into (&sub, NULL);
      if (!ow_shell_failed (p) && sub.has_la && sub.la.kind != TOK_EOF)
        ow_shell_fail (p, "unexpected text inside a `…` substitution");
      if (!ow_shell_failed (p) && sub.heredocs->len > 0)
        ow_shell_fail (p, "a here-document inside a `…` substitution is never closed");
      ow_shell_parser_clear (&sub);
    }
  ow_shell_leave (p);
}

/* A '$' in a word or in double quotes. */
static void
parse_dollar (Parser *p, Token *t, gboolean in_dquote)
{
  gsize start = p->pos;
  int n = ow_shell_peekc (p, 1);

  if (n == '(')
    {
      if (ow_shell_peekc (p, 2) == '(')
        {
          p->pos += 3;
          ow_shell_parse_arith (p);
          ow_shell_feature (p, OW_SHELL_EXPANSION);
        }
      else
        {
          p->pos += 2;
          parse_nested (p, "a $( … ) substitution");
          ow_shell_feature (p, OW_SHELL_SUBSTITUTION);
        }
    }
  else if (n == '{')
    {
      p->pos += 2;
      parse_brace_param (p, in_dquote);
      ow_shell_feature (p, OW_SHELL_EXPANSION);
    }
  else if (!in_dquote && n == '\'')
    {
      p->pos += 2;
      parse_ansi_c (p, t);
      t->plain = FALSE;
      t->quoted = TRUE;
      return;
    }
  else if (!in_dquote && n == '"')
    {
      /* $"…" is a translatable string: a double-quoted string here */
      p->pos++;
      parse_dquote (p, t, FALSE);
      return;
    }
  else if (ow_shell_is_name_start (n))
    {
      p->pos++;
      while (is_name_char (ow_shell_peekc (p, 0)))
        p->pos++;
      ow_shell_feature (p, OW_SHELL_EXPANSION);
    }
  else if (n != 0 && (ow_shell_is_digit (n) || strchr ("@*#?-$!", n) != NULL))
    {
      p->pos += 2;
      ow_shell_feature (p, OW_SHELL_EXPANSION);
    }
  else
    {
      g_string_append_c (t->text, '$');
      p->pos++;
      return;
    }
  t->dynamic = TRUE;
  t->plain = FALSE;
  append_raw (p, t, start);
}

/* "…", or with @heredoc the body of an unquoted here-document (where '"'
 * is an ordinary character and the text runs to the end of the buffer). */
static void
parse_dquote (Parser *p, Token *t, gboolean heredoc)
{
  if (!heredoc)
    p->pos++;
  t->plain = FALSE;
  t->quoted = TRUE;
  while (!ow_shell_failed (p))
    {
      int c = ow_shell_peekc (p, 0);

      if (p->pos >= p->len)
        {
          if (!heredoc)
            ow_shell_fail (p, "a double quote is not closed");
          return;
        }
      switch (c)
        {
        case '"':
          if (!heredoc)
            {
              p->pos++;
              return;
            }
          g_string_append_c (t->text, '"');
          p->pos++;
          break;
        case '\\':
          {
            int n = ow_shell_peekc (p, 1);

            if (n == '\n' && p->pos + 1 < p->len)
              {
                p->pos += 2;
              }
            else if (n == '$' || n == '`' || n == '\\' || (n == '"' && !heredoc))
              {
                g_string_append_c (t->text, (char) n);
                p->pos += 2;
              }
            else
              {
                g_string_append_c (t->text, '\\');
                p->pos++;
              }
          }
          break;
        case '$':
          parse_dollar (p, t, TRUE);
          break;
        case '`':
          parse_backquote (p, t, !heredoc);
          break;
        default:
          g_string_append_c (t->text, (char) c);
          p->pos++;
          break;
        }
    }
}

/* NAME=( … ): an array assignment. The lexer is at the '('. */
static void
parse_array (Parser *p, Token *t, gsize start)
{
  p->pos++;
  while (!ow_shell_failed (p))
    {
      int c = ow_shell_peekc (p, 0);

      if (p->pos >= p->len)
        {
          ow_shell_fail (p, "an array assignment ( … ) is not closed");
          return;
        }
      if (ow_shell_is_blank (c) || c == '\n')
        {
          p->pos++;
          continue;
        }
      if (c == '\\' && ow_shell_peekc (p, 1) == '\n')
        {
          p->pos += 2;
          continue;
        }
      if (c == '#')
        {
          while (p->pos < p->len && p->s[p->pos] != '\n')
            p->pos++;
          continue;
        }
      if (c == ')')
        {
          p->pos++;
          break;
        }
      if (ow_shell_is_meta (c) && !((c == '<' || c == '>') && ow_shell_peekc (p, 1) == '('))
        {
          ow_shell_fail (p, "unexpected '%c' inside an array assignment", c);
          return;
        }
      {
        Token w = { 0 };

        ow_shell_lex_word (p, &w);
        if (w.dynamic)
          t->dynamic = TRUE;
        ow_shell_token_clear (&w);
      }
    }
  t->array = TRUE;
  t->plain = FALSE;
  g_string_truncate (t->text, 0);
  append_raw (p, t, start);
}

/* Whether @raw starts with NAME=, NAME+= or NAME[…]= (all unquoted). */
gboolean
ow_shell_is_assignment (const char *raw, gsize len)
{
  gsize i = 0;

  if (len == 0 || !ow_shell_is_name_start ((guchar) raw[0]))
    return FALSE;
  while (i < len && is_name_char ((guchar) raw[i]))
    i++;
  if (i < len && raw[i] == '[')
    {
      guint depth = 0;

      for (; i < len; i++)
        {
          if (raw[i] == '[')
            depth++;
          else if (raw[i] == ']' && --depth == 0)
            break;
        }
      if (i >= len)
        return FALSE;
      i++;
    }
  if (i < len && raw[i] == '+')
    i++;
  return i < len && raw[i] == '=';
}

/* Reads one word at the lexer into @t. */
void
ow_shell_lex_word (Parser *p, Token *t)
{
  gsize start = p->pos;
  guint brace_depth = 0;
  gboolean brace_list = FALSE, brace_sep = FALSE, open_bracket = FALSE;

  t->kind = TOK_WORD;
  t->text = g_string_sized_new (32);
  t->plain = TRUE;
  t->start = start;
  if (++p->shared->words > SHELL_MAX_WORDS)
    {
      ow_shell_fail (p, "the command has more than %d words", SHELL_MAX_WORDS);
      return;
    }
  while (!ow_shell_failed (p))
    {
      int c = ow_shell_peekc (p, 0);

      if (p->pos >= p->len)
        break;
      if ((c == '<' || c == '>') && ow_shell_peekc (p, 1) == '(' && !p->cond)
        {
          gsize at = p->pos;

          p->pos += 2;
          parse_nested (p, c == '<' ? "a <( … ) substitution" : "a >( … ) substitution");
          ow_shell_feature (p, OW_SHELL_SUBSTITUTION);
          t->dynamic = TRUE;
          t->plain = FALSE;
          append_raw (p, t, at);
          continue;
        }
      if (c == '(' && !p->cond && p->pos > start
          && p->s[p->pos - 1] == '=' && ow_shell_is_assignment (p->s + start, p->pos - start)
          && !t->quoted && t->plain)
        {
          parse_array (p, t, start);
          continue;
        }
      if (ow_shell_is_meta (c))
        break;
      switch (c)
        {
        case '\\':
          if (ow_shell_peekc (p, 1) == '\n')
            {
              p->pos += 2;
              break;
            }
          t->plain = FALSE;
          t->quoted = TRUE;
          if (p->pos + 1 >= p->len)
            {
              /* bash keeps or drops it depending on where the word
               * started: not something to guess about */
              ow_shell_fail (p, "the command ends with a backslash");
              break;
            }
          g_string_append_c (t->text, p->s[p->pos + 1]);
          p->pos += 2;
          break;
        case '\'':
          {
            const char *end = memchr (p->s + p->pos + 1, '\'', p->len - p->pos - 1);

            if (end == NULL)
              {
                ow_shell_fail (p, "a single quote is not closed");
                break;
              }
            g_string_append_len (t->text, p->s + p->pos + 1, (gsize) (end - (p->s + p->pos + 1)));
            p->pos = (gsize) (end - p->s) + 1;
            t->plain = FALSE;
            t->quoted = TRUE;
          }
          break;
        case '"':
          parse_dquote (p, t, FALSE);
          break;
        case '$':
          parse_dollar (p, t, FALSE);
          break;
        case '`':
          parse_backquote (p, t, FALSE);
          break;
        case '~':
          if (p->pos == start)
            t->dynamic = TRUE;
          g_string_append_c (t->text, '~');
          p->pos++;
          break;
        case '*':
        case '?':
          if (!p->no_glob)
            t->glob = TRUE;
          g_string_append_c (t->text, (char) c);
          p->pos++;
          break;
        case '[':
          open_bracket = TRUE;
          g_string_append_c (t->text, '[');
          p->pos++;
          break;
        case ']':
          if (open_bracket && !p->no_glob)
            t->glob = TRUE;
          g_string_append_c (t->text, ']');
          p->pos++;
          break;
        case '{':
          brace_depth++;
          g_string_append_c (t->text, '{');
          p->pos++;
          break;
        case ',':
          if (brace_depth > 0)
            brace_sep = TRUE;
          g_string_append_c (t->text, ',');
          p->pos++;
          break;
        case '.':
          if (brace_depth > 0 && ow_shell_peekc (p, 1) == '.')
            brace_sep = TRUE;
          g_string_append_c (t->text, '.');
          p->pos++;
          break;
        case '}':
          if (brace_depth > 0)
            {
              brace_depth--;
              if (brace_sep)
                brace_list = TRUE;
            }
          g_string_append_c (t->text, '}');
          p->pos++;
          break;
        case '\r':
          /* bash keeps a carriage return in the word; it is still a
           * line ending to anyone reading the command */
          ow_shell_feature (p, OW_SHELL_NEWLINE);
          g_string_append_c (t->text, '\r');
          p->pos++;
          break;
        default:
          g_string_append_c (t->text, (char) c);
          p->pos++;
          break;
        }
    }
  t->end = p->pos;
  if (brace_list && !p->no_glob)
    {
      ow_shell_feature (p, OW_SHELL_EXPANSION);
      t->dynamic = TRUE;
      t->plain = FALSE;
    }
  if (!t->array && ow_shell_is_assignment (p->s + start, p->pos - start))
    t->assign = TRUE;
}

/* Reads the next token into @t. */
void
ow_shell_lex_token (Parser *p, Token *t)
{
  memset (t, 0, sizeof *t);
  t->fd = -1;
  t->first_cmd = p->shared->commands->len;
  for (;;)
    {
      int c;

      if (ow_shell_failed (p))
        {
          t->kind = TOK_EOF;
          return;
        }
      while (p->pos < p->len)
        {
          c = ow_shell_peekc (p, 0);
          if (ow_shell_is_blank (c))
            p->pos++;
          else if (c == '\\' && ow_shell_peekc (p, 1) == '\n')
            p->pos += 2;
          else
            break;
        }
      t->start = p->pos;
      if (p->pos >= p->len)
        {
          t->kind = TOK_EOF;
          t->end = p->pos;
          return;
        }
      c = ow_shell_peekc (p, 0);
      if (c == '#')
        {
          while (p->pos < p->len && p->s[p->pos] != '\n')
            p->pos++;
          continue;
        }
      break;
    }

  {
    int c = ow_shell_peekc (p, 0), c1 = ow_shell_peekc (p, 1), c2 = ow_shell_peekc (p, 2);

    switch (c)
      {
      case '\n':
        p->pos++;
        t->kind = TOK_NEWLINE;
        t->end = p->pos;
        ow_shell_feature (p, OW_SHELL_NEWLINE);
        if (p->outer_heredocs)
          {
            ow_shell_fail (p,
                           "a substitution spans lines while a here-document waits for its body");
            return;
          }
        read_heredocs (p);
        return;
      case ';':
        t->kind = TOK_OP;
        if (c1 == ';' && c2 == '&')
          t->op = ";;&";
        else if (c1 == ';')
          t->op = ";;";
        else if (c1 == '&')
          t->op = ";&";
        else
          t->op = ";";
        break;
      case '&':
        if (c1 == '&')
          {
            t->kind = TOK_OP;
            t->op = "&&";
          }
        else if (c1 == '>')
          {
            t->kind = TOK_REDIR;
            t->op = c2 == '>' ? "&>>" : "&>";
          }
        else
          {
            t->kind = TOK_OP;
            t->op = "&";
          }
        break;
      case '|':
        t->kind = TOK_OP;
        t->op = c1 == '|' ? "||" : c1 == '&' ? "|&" : "|";
        break;
      case '(':
        t->kind = TOK_OP;
        t->op = "(";
        break;
      case ')':
        t->kind = TOK_OP;
        t->op = ")";
        break;
      case '<':
        if (c1 == '(' && !p->cond)
          {
            ow_shell_lex_word (p, t);
            return;
          }
        t->kind = TOK_REDIR;
        if (c1 == '<' && c2 == '<')
          t->op = "<<<";
        else if (c1 == '<' && c2 == '-')
          t->op = "<<-";
        else if (c1 == '<')
          t->op = "<<";
        else if (c1 == '>')
          t->op = "<>";
        else if (c1 == '&')
          t->op = "<&";
        else
          t->op = "<";
        break;
      case '>':
        if (c1 == '(' && !p->cond)
          {
            ow_shell_lex_word (p, t);
            return;
          }
        t->kind = TOK_REDIR;
        if (c1 == '>')
          t->op = ">>";
        else if (c1 == '|')
          t->op = ">|";
        else if (c1 == '&')
          t->op = ">&";
        else
          t->op = ">";
        break;
      default:
        if (ow_shell_is_digit (c))
          {
            gsize n = 0;

            while (ow_shell_is_digit (ow_shell_peekc (p, n)))
              n++;
            if ((ow_shell_peekc (p, n) == '<' || ow_shell_peekc (p, n) == '>')
                && ow_shell_peekc (p, n + 1) != '(')
              {
                if (n > 9)
                  {
                    ow_shell_fail (p, "the file descriptor %.*s is too large", (int) MIN (n, 32),
                                   p->s + p->pos);
                    t->kind = TOK_EOF;
                    return;
                  }
                char *fd_text = g_strndup (p->s + p->pos, n);

                p->pos += n;
                ow_shell_lex_token (p, t);
                t->fd_text = fd_text;
                t->fd = atoi (fd_text);
                return;
              }
          }
        else if (c == '{' && ow_shell_is_name_start (c1))
          {
            gsize n = 1;

            while (is_name_char (ow_shell_peekc (p, n)))
              n++;
            if (ow_shell_peekc (p, n) == '}'
                && (ow_shell_peekc (p, n + 1) == '<' || ow_shell_peekc (p, n + 1) == '>')
                && ow_shell_peekc (p, n + 2) != '(')
              {
                char *fd_text = g_strndup (p->s + p->pos, n + 1);

                p->pos += n + 1;
                ow_shell_lex_token (p, t);
                t->fd_text = fd_text;
                t->fd = -1;
                return;
              }
          }
        ow_shell_lex_word (p, t);
        return;
      }
    p->pos += strlen (t->op);
    t->end = p->pos;
  }
}
