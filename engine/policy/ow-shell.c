/* ow-shell.c: reading a bash command line without running it (see ow-shell.h).
 *
 * The command text comes from the model, which may have been talked into
 * anything, so this reader assumes hostile input and reads it the way bash
 * would: a recursive-descent parser over the grammar of bash's lists,
 * pipelines, compound commands and simple commands, with a lexer that is
 * driven by the parser (reserved words only count where a command starts,
 * `[[ … ]]` and case patterns are lexed differently). Quotes are removed
 * exactly as bash removes them; anything whose value is only known when
 * the command runs (parameters, substitutions, globs, brace expansion, a
 * leading tilde) is kept as written and marked dynamic, so the safety
 * checks never mistake a guess for a fact.
 *
 * Substitutions are not opaque: `$( … )`, backquotes, `<( … )`, `>( … )`
 * and the `$( … )` hidden in `${x:-…}`, `$(( … ))` and unquoted here-doc
 * bodies are parsed too, and every simple command they contain is added
 * to the same flat list, in order of appearance, next to those of
 * pipelines, subshells, brace groups and compound commands.
 *
 * Whatever cannot be read with confidence — unbalanced quotes or brackets,
 * a here-document that never ends, a NUL in `$'…'`, bash syntax errors,
 * nesting past SHELL_MAX_DEPTH, more than 1 MiB of text — sets
 * OW_SHELL_PARSE_ERROR with a reason, and the policy then treats the
 * command as hostile. Work and memory are bounded for any input: every
 * byte is looked at a bounded number of times (backquote and here-doc
 * bodies are copied once per nesting level, and nesting is capped), and
 * word and command counts are capped.
 */
#define G_LOG_DOMAIN "ow-shell"

#include "policy/ow-shell.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Longer command lines are refused outright: no real command needs them,
 * and the bound keeps the work per call predictable. */
#define SHELL_MAX_INPUT    (1024 * 1024)
/* Substitutions, subshells, compound commands and quotes inside ${…}
 * each take a level; bash itself has no limit, but nothing legitimate
 * nests this deep and the C stack must stay bounded. */
#define SHELL_MAX_DEPTH    48
/* Caps on what one parse may produce, so hostile text cannot make the
 * reader allocate without bound. */
#define SHELL_MAX_WORDS    (256 * 1024)
#define SHELL_MAX_COMMANDS (64 * 1024)

/* What every level of one parse shares: the output and the budget. */
typedef struct {
  GPtrArray *commands;   /* OwShellCommand*, the parse's list (NULL slots are reserved) */
  guint      features;   /* OwShellFeature bits seen so far */
  char      *error;      /* the first thing that could not be read (owned), or NULL */
  guint      depth;      /* current nesting level */
  guint      words;      /* words read so far, against SHELL_MAX_WORDS */
} Shared;

typedef enum {
  TOK_EOF,      /* end of the text being parsed */
  TOK_NEWLINE,  /* an unquoted newline */
  TOK_OP,       /* ; & && || | |& ( ) ;; ;& ;;& */
  TOK_WORD,     /* a word, quotes removed */
  TOK_REDIR,    /* a redirection operator, with its fd if one was written */
} TokKind;

/* One token. Words own their text; everything else points at static strings. */
typedef struct {
  TokKind     kind;      /* what it is */
  const char *op;        /* TOK_OP / TOK_REDIR: the operator, without a leading fd */
  GString    *text;      /* TOK_WORD: the value after quote removal, expansions as written */
  gboolean    dynamic;   /* TOK_WORD: the value depends on an expansion, a glob or ~ */
  gboolean plain;  /* TOK_WORD: no quoting, escapes or expansions (so it may be a reserved word) */
  gboolean quoted; /* TOK_WORD: some part was quoted or escaped (matters for here-doc delimiters) */
  gboolean    glob;      /* TOK_WORD: an unquoted * ? or [ … ] */
  gboolean    assign;    /* TOK_WORD: NAME=value, NAME+=value or NAME[…]=value */
  gboolean    array;     /* TOK_WORD: NAME=( … ) */
  gsize       start;     /* offset of the first byte in the text being parsed */
  gsize       end;       /* offset just past the last byte */
  guint       first_cmd; /* how many commands the parse had when this token was read: those
                          * its substitutions add come after, and its command goes here */
  int         fd;        /* TOK_REDIR: the fd written before the operator, or -1 */
  char       *fd_text;   /* TOK_REDIR: that fd as written ("2", "{fd}"), or NULL (owned) */
} Token;

/* A here-document whose body follows the next newline. */
typedef struct {
  OwShellRedirect *redirect;    /* where the body goes (owned by its command) */
  char            *delimiter;   /* the line that ends it, quotes removed (owned) */
  gboolean         strip_tabs;  /* <<- : leading tabs are removed from every line */
  gboolean         quoted;      /* the delimiter was quoted: the body is literal */
} Heredoc;

/* One level of parsing over one buffer. Substitutions written in place
 * ($( … ), <( … )) reuse the level's buffer; backquotes and here-doc
 * bodies get a level of their own over a copy. */
typedef struct {
  Shared     *shared;          /* the output and budget (borrowed) */
  const char *s;               /* the text, NUL-terminated (borrowed) */
  gsize       len;             /* its length */
  gsize       pos;             /* where the lexer is */
  Token       la;              /* the lookahead token, when has_la */
  gboolean    has_la;          /* whether la holds a token */
  GPtrArray  *heredocs;        /* Heredoc*, waiting for the next newline */
  gboolean    outer_heredocs;  /* an enclosing $( … ) on this line has here-docs waiting */
  gboolean    no_glob;         /* lexing patterns: * ? [ are matched, not expanded */
  gboolean    cond;            /* inside [[ … ]]: < > ( ) are operators of the test */
} Parser;

static void parse_list_into (Parser *p, guint *n_items);
static void parse_command (Parser *p);
static void lex_word (Parser *p, Token *t);
static void parse_dollar (Parser *p, Token *t, gboolean in_dquote);
static void parse_dquote (Parser *p, Token *t, gboolean heredoc);
static void parse_backquote (Parser *p, Token *t, gboolean in_dquote);

/* ---- small helpers ---- */

static void
fail (Parser *p, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
fail (Parser *p, const char *format, ...)
{
  va_list args;

  if (p->shared->error != NULL)
    return;
  va_start (args, format);
  p->shared->error = g_strdup_vprintf (format, args);
  va_end (args);
}

static gboolean
failed (const Parser *p)
{
  return p->shared->error != NULL;
}

/* The byte @off ahead of the lexer, or 0 past the end. */
static int
peekc (const Parser *p, gsize off)
{
  if (p->pos + off >= p->len)
    return 0;
  return (guchar) p->s[p->pos + off];
}

static void
feature (Parser *p, guint bits)
{
  p->shared->features |= bits;
}

/* Takes a nesting level; FALSE (with the error set) past the limit. The
 * caller calls leave() either way. */
static gboolean
enter (Parser *p)
{
  if (++p->shared->depth > SHELL_MAX_DEPTH)
    {
      fail (p, "the command nests substitutions or compound commands more than %d deep",
            SHELL_MAX_DEPTH);
      return FALSE;
    }
  return TRUE;
}

static void
leave (Parser *p)
{
  p->shared->depth--;
}

static gboolean
is_blank (int c)
{
  return c == ' ' || c == '\t';
}

/* Characters that end an unquoted word. */
static gboolean
is_meta (int c)
{
  return c == 0 || c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|'
         || c == '(' || c == ')' || c == '<' || c == '>';
}

static gboolean
is_name_start (int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static gboolean
is_name_char (int c)
{
  return is_name_start (c) || (c >= '0' && c <= '9');
}

static gboolean
is_digit (int c)
{
  return c >= '0' && c <= '9';
}

static void
token_clear (Token *t)
{
  if (t->text != NULL)
    g_string_free (t->text, TRUE);
  g_free (t->fd_text);
  memset (t, 0, sizeof *t);
  t->fd = -1;
}

static void
redirect_free (gpointer data)
{
  OwShellRedirect *r = data;

  g_free (r->op);
  g_free (r->target);
  g_free (r->body);
  g_free (r);
}

static void
command_free (gpointer data)
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

static void
parser_init (Parser *p, Shared *shared, const char *s, gsize len)
{
  memset (p, 0, sizeof *p);
  p->shared = shared;
  p->s = s;
  p->len = len;
  p->la.fd = -1;
  p->heredocs = g_ptr_array_new_with_free_func (heredoc_free);
}

static void
parser_clear (Parser *p)
{
  if (p->has_la)
    token_clear (&p->la);
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
  for (guint i = 0; i < p->heredocs->len && !failed (p); i++)
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
          gsize skip = 0;

          if (hd->strip_tabs)
            while (skip < n && line[skip] == '\t')
              skip++;
          p->pos += n + (nl != NULL ? 1 : 0);
          if (n - skip == dlen && memcmp (line + skip, hd->delimiter, dlen) == 0)
            {
              closed = TRUE;
              break;
            }
          g_string_append_len (body, line + skip, n - skip);
          g_string_append_c (body, '\n');
        }
      if (!closed)
        {
          fail (p, "the here-document ended by '%s' is never closed", hd->delimiter);
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

          if (!enter (p))
            {
              leave (p);
              return;
            }
          parser_init (&sub, p->shared, body->str, body->len);
          t.text = g_string_new (NULL);
          parse_dquote (&sub, &t, TRUE);
          hd->redirect->body = g_string_free (g_steal_pointer (&t.text), FALSE);
          token_clear (&t);
          parser_clear (&sub);
          leave (p);
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

  if (enter (p))
    {
      p->heredocs = g_ptr_array_new_with_free_func (heredoc_free);
      p->outer_heredocs = saved_outer || saved_heredocs->len > 0;
      p->no_glob = FALSE;
      p->cond = FALSE;
      parse_list_into (p, &n_items);
      if (!failed (p))
        {
          Token *t;

          if (!p->has_la)
            {
              /* parse_list_into always leaves the token it stopped at */
              fail (p, "cannot read %s", what);
            }
          t = &p->la;
          if (!failed (p) && !(t->kind == TOK_OP && strcmp (t->op, ")") == 0))
            fail (p, "%s is not closed", what);
          if (!failed (p) && p->heredocs->len > 0)
            fail (p, "a here-document inside %s is never closed", what);
        }
      if (p->has_la)
        token_clear (&p->la);
      p->has_la = FALSE;
      g_ptr_array_unref (p->heredocs);
      p->heredocs = saved_heredocs;
      p->outer_heredocs = saved_outer;
      p->no_glob = saved_no_glob;
      p->cond = saved_cond;
    }
  leave (p);
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
      int c = peekc (p, 0);

      if (p->pos >= p->len)
        {
          fail (p, "a $'…' string is not closed");
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
        int e = peekc (p, 1);
        gunichar value = 0;
        guint digits = 0, max = 0, base = 16;

        if (p->pos + 1 >= p->len)
          {
            fail (p, "a $'…' string is not closed");
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
              int x = peekc (p, 0);

              if (p->pos >= p->len)
                {
                  fail (p, "a $'…' string is not closed");
                  return;
                }
              p->pos++;
              if ((x & 0x1f) == 0)
                {
                  fail (p, "a NUL byte in a $'…' string would cut the word short");
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
            int d = peekc (p, 0);
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
            fail (p, "a NUL byte in a $'…' string would cut the word short");
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
                fail (p, "a $'…' string names a character that does not exist");
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

  if (!enter (p))
    {
      leave (p);
      return;
    }
  scratch.text = g_string_new (NULL);
  if (peekc (p, 0) == '}')
    fail (p, "'${}' is a bad substitution");
  while (!failed (p))
    {
      int c = peekc (p, 0);

      if (p->pos >= p->len)
        {
          fail (p, "a ${…} expansion is not closed");
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
                fail (p, "a quote inside ${…} is not closed");
                break;
              }
            /* Inside double quotes bash reads these quotes differently
             * from outside; refuse the one case where that changes where
             * the expansion ends. */
            if (in_dquote && memchr (p->s + p->pos, '}', (gsize) (end - (p->s + p->pos))) != NULL)
              {
                fail (p, "cannot tell where a ${…} with quotes inside double quotes ends");
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
  token_clear (&scratch);
  leave (p);
}

/* The inside of $(( … )) or (( … )): the lexer is past the two opening
 * parentheses. Ends after the matching "))". */
static void
parse_arith (Parser *p)
{
  guint depth = 0;
  Token scratch = { 0 };

  if (!enter (p))
    {
      leave (p);
      return;
    }
  scratch.text = g_string_new (NULL);
  while (!failed (p))
    {
      int c = peekc (p, 0);

      if (p->pos >= p->len)
        {
          fail (p, "an arithmetic expression (( … )) is not closed");
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
              if (peekc (p, 1) != ')')
                {
                  fail (p, "cannot read '((' … ')' as arithmetic or as nested subshells");
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
              fail (p, "a quote inside (( … )) is not closed");
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
  token_clear (&scratch);
  leave (p);
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
      int c = peekc (p, 0);

      if (p->pos >= p->len)
        {
          fail (p, "a `…` substitution is not closed");
          return;
        }
      if (c == '`')
        {
          p->pos++;
          break;
        }
      if (c == '\\')
        {
          int n = peekc (p, 1);

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
  feature (p, OW_SHELL_SUBSTITUTION);
  t->dynamic = TRUE;
  t->plain = FALSE;
  append_raw (p, t, start);
  if (enter (p))
    {
      parser_init (&sub, p->shared, inner->str, inner->len);
      parse_list_into (&sub, NULL);
      if (!failed (p) && sub.has_la && sub.la.kind != TOK_EOF)
        fail (p, "unexpected text inside a `…` substitution");
      if (!failed (p) && sub.heredocs->len > 0)
        fail (p, "a here-document inside a `…` substitution is never closed");
      parser_clear (&sub);
    }
  leave (p);
}

/* A '$' in a word or in double quotes. */
static void
parse_dollar (Parser *p, Token *t, gboolean in_dquote)
{
  gsize start = p->pos;
  int n = peekc (p, 1);

  if (n == '(')
    {
      if (peekc (p, 2) == '(')
        {
          p->pos += 3;
          parse_arith (p);
          feature (p, OW_SHELL_EXPANSION);
        }
      else
        {
          p->pos += 2;
          parse_nested (p, "a $( … ) substitution");
          feature (p, OW_SHELL_SUBSTITUTION);
        }
    }
  else if (n == '{')
    {
      p->pos += 2;
      parse_brace_param (p, in_dquote);
      feature (p, OW_SHELL_EXPANSION);
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
  else if (is_name_start (n))
    {
      p->pos++;
      while (is_name_char (peekc (p, 0)))
        p->pos++;
      feature (p, OW_SHELL_EXPANSION);
    }
  else if (n != 0 && (is_digit (n) || strchr ("@*#?-$!", n) != NULL))
    {
      p->pos += 2;
      feature (p, OW_SHELL_EXPANSION);
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
  while (!failed (p))
    {
      int c = peekc (p, 0);

      if (p->pos >= p->len)
        {
          if (!heredoc)
            fail (p, "a double quote is not closed");
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
            int n = peekc (p, 1);

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
  while (!failed (p))
    {
      int c = peekc (p, 0);

      if (p->pos >= p->len)
        {
          fail (p, "an array assignment ( … ) is not closed");
          return;
        }
      if (is_blank (c) || c == '\n')
        {
          p->pos++;
          continue;
        }
      if (c == '\\' && peekc (p, 1) == '\n')
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
      if (is_meta (c) && !((c == '<' || c == '>') && peekc (p, 1) == '('))
        {
          fail (p, "unexpected '%c' inside an array assignment", c);
          return;
        }
      {
        Token w = { 0 };

        lex_word (p, &w);
        if (w.dynamic)
          t->dynamic = TRUE;
        token_clear (&w);
      }
    }
  t->array = TRUE;
  t->plain = FALSE;
  g_string_truncate (t->text, 0);
  append_raw (p, t, start);
}

/* Whether @raw starts with NAME=, NAME+= or NAME[…]= (all unquoted). */
static gboolean
is_assignment (const char *raw, gsize len)
{
  gsize i = 0;

  if (len == 0 || !is_name_start ((guchar) raw[0]))
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
static void
lex_word (Parser *p, Token *t)
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
      fail (p, "the command has more than %d words", SHELL_MAX_WORDS);
      return;
    }
  while (!failed (p))
    {
      int c = peekc (p, 0);

      if (p->pos >= p->len)
        break;
      if ((c == '<' || c == '>') && peekc (p, 1) == '(' && !p->cond)
        {
          gsize at = p->pos;

          p->pos += 2;
          parse_nested (p, c == '<' ? "a <( … ) substitution" : "a >( … ) substitution");
          feature (p, OW_SHELL_SUBSTITUTION);
          t->dynamic = TRUE;
          t->plain = FALSE;
          append_raw (p, t, at);
          continue;
        }
      if (c == '(' && !p->cond && p->pos > start
          && p->s[p->pos - 1] == '=' && is_assignment (p->s + start, p->pos - start)
          && !t->quoted && t->plain)
        {
          parse_array (p, t, start);
          continue;
        }
      if (is_meta (c))
        break;
      switch (c)
        {
        case '\\':
          if (peekc (p, 1) == '\n')
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
              fail (p, "the command ends with a backslash");
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
                fail (p, "a single quote is not closed");
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
          if (brace_depth > 0 && peekc (p, 1) == '.')
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
          feature (p, OW_SHELL_NEWLINE);
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
      feature (p, OW_SHELL_EXPANSION);
      t->dynamic = TRUE;
      t->plain = FALSE;
    }
  if (!t->array && is_assignment (p->s + start, p->pos - start))
    t->assign = TRUE;
}

/* Reads the next token into @t. */
static void
lex_token (Parser *p, Token *t)
{
  memset (t, 0, sizeof *t);
  t->fd = -1;
  t->first_cmd = p->shared->commands->len;
  for (;;)
    {
      int c;

      if (failed (p))
        {
          t->kind = TOK_EOF;
          return;
        }
      while (p->pos < p->len)
        {
          c = peekc (p, 0);
          if (is_blank (c))
            p->pos++;
          else if (c == '\\' && peekc (p, 1) == '\n')
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
      c = peekc (p, 0);
      if (c == '#')
        {
          while (p->pos < p->len && p->s[p->pos] != '\n')
            p->pos++;
          continue;
        }
      break;
    }

  {
    int c = peekc (p, 0), c1 = peekc (p, 1), c2 = peekc (p, 2);

    switch (c)
      {
      case '\n':
        p->pos++;
        t->kind = TOK_NEWLINE;
        t->end = p->pos;
        feature (p, OW_SHELL_NEWLINE);
        if (p->outer_heredocs)
          {
            fail (p, "a substitution spans lines while a here-document waits for its body");
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
            lex_word (p, t);
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
            lex_word (p, t);
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
        if (is_digit (c))
          {
            gsize n = 0;

            while (is_digit (peekc (p, n)))
              n++;
            if ((peekc (p, n) == '<' || peekc (p, n) == '>') && peekc (p, n + 1) != '(')
              {
                if (n > 9)
                  {
                    fail (p, "the file descriptor %.*s is too large", (int) MIN (n, 32),
                          p->s + p->pos);
                    t->kind = TOK_EOF;
                    return;
                  }
                char *fd_text = g_strndup (p->s + p->pos, n);

                p->pos += n;
                lex_token (p, t);
                t->fd_text = fd_text;
                t->fd = atoi (fd_text);
                return;
              }
          }
        else if (c == '{' && is_name_start (c1))
          {
            gsize n = 1;

            while (is_name_char (peekc (p, n)))
              n++;
            if (peekc (p, n) == '}' && (peekc (p, n + 1) == '<' || peekc (p, n + 1) == '>')
                && peekc (p, n + 2) != '(')
              {
                char *fd_text = g_strndup (p->s + p->pos, n + 1);

                p->pos += n + 1;
                lex_token (p, t);
                t->fd_text = fd_text;
                t->fd = -1;
                return;
              }
          }
        lex_word (p, t);
        return;
      }
    p->pos += strlen (t->op);
    t->end = p->pos;
  }
}

static Token *
peek (Parser *p)
{
  if (!p->has_la)
    {
      Token t;

      /* lexed aside: a word's substitutions run a nested parse, which
       * uses the lookahead slot itself */
      lex_token (p, &t);
      p->la = t;
      p->has_la = TRUE;
    }
  return &p->la;
}

/* Moves the lookahead into @out (which the caller clears). */
static void
take (Parser *p, Token *out)
{
  peek (p);
  *out = p->la;
  memset (&p->la, 0, sizeof p->la);
  p->la.fd = -1;
  p->has_la = FALSE;
}

static void
skip (Parser *p)
{
  Token t;

  take (p, &t);
  token_clear (&t);
}

static gboolean
is_op (const Token *t, const char *op)
{
  return t->kind == TOK_OP && strcmp (t->op, op) == 0;
}

/* A word that may be a reserved word: unquoted and exactly @word. */
static gboolean
is_word (const Token *t, const char *word)
{
  return t->kind == TOK_WORD && t->plain && strcmp (t->text->str, word) == 0;
}

static gboolean
is_closer (const Token *t)
{
  static const char *const closers[] = {
    "then", "elif", "else", "fi", "do", "done", "esac", "}", NULL,
  };

  if (t->kind != TOK_WORD || !t->plain)
    return FALSE;
  for (guint i = 0; closers[i] != NULL; i++)
    if (strcmp (t->text->str, closers[i]) == 0)
      return TRUE;
  return FALSE;
}

static char *
describe (const Token *t)
{
  switch (t->kind)
    {
    case TOK_EOF: return g_strdup ("the end of the command");
    case TOK_NEWLINE: return g_strdup ("a newline");
    case TOK_OP:
    case TOK_REDIR: return g_strdup_printf ("'%s%s'", t->fd_text ? t->fd_text : "", t->op);
    case TOK_WORD:
    default: return g_strdup_printf ("'%.40s'", t->text->str);
    }
}

static void
fail_unexpected (Parser *p, const char *expected)
{
  g_autofree char *what = describe (peek (p));

  if (expected != NULL)
    fail (p, "expected %s but found %s", expected, what);
  else
    fail (p, "unexpected %s", what);
}

/* Steps over the reserved word @word, or fails. */
static void
expect_word (Parser *p, const char *word)
{
  g_autofree char *expected = NULL;

  if (failed (p))
    return;
  if (is_word (peek (p), word))
    {
      skip (p);
      return;
    }
  expected = g_strdup_printf ("'%s'", word);
  fail_unexpected (p, expected);
}

static void
skip_newlines (Parser *p)
{
  while (!failed (p) && peek (p)->kind == TOK_NEWLINE)
    skip (p);
}

/* ---- commands ---- */

/* Reserves a place in the list before the commands found in the
 * substitutions of the command's first token (already read as the
 * lookahead), so commands appear in the order they start. */
static guint
reserve_slot (Parser *p)
{
  guint at = MIN (peek (p)->first_cmd, p->shared->commands->len);

  if (p->shared->commands->len >= SHELL_MAX_COMMANDS)
    fail (p, "the command has more than %d simple commands", SHELL_MAX_COMMANDS);
  g_ptr_array_insert (p->shared->commands, (gint) at, NULL);
  return at;
}

/* Reads one redirection into @cmd. */
static void
parse_redirect (Parser *p, OwShellCommand *cmd)
{
  Token op, word;
  OwShellRedirect *r;
  gboolean reading;

  take (p, &op);
  feature (p, OW_SHELL_REDIRECT);
  if (peek (p)->kind != TOK_WORD)
    {
      g_autofree char *expected = g_strdup_printf ("a file after '%s'", op.op);

      fail_unexpected (p, expected);
      token_clear (&op);
      return;
    }
  take (p, &word);
  reading = op.op[0] == '<';
  r = g_new0 (OwShellRedirect, 1);
  r->fd = op.fd >= 0 ? op.fd : (op.fd_text != NULL ? -1 : (reading ? 0 : 1));
  r->op = g_strconcat (op.fd_text != NULL ? op.fd_text : "", op.op, NULL);
  g_ptr_array_add (cmd->redirects, r);

  if (strcmp (op.op, "<<") == 0 || strcmp (op.op, "<<-") == 0)
    {
      Heredoc *hd = g_new0 (Heredoc, 1);

      feature (p, OW_SHELL_HEREDOC);
      r->target = g_strdup (word.text->str);
      hd->redirect = r;
      hd->delimiter = g_strdup (word.text->str);
      hd->strip_tabs = op.op[2] == '-';
      hd->quoted = word.quoted;
      g_ptr_array_add (p->heredocs, hd);
    }
  else if (strcmp (op.op, "<<<") == 0)
    {
      feature (p, OW_SHELL_HEREDOC);
      r->target = g_strdup (word.text->str);
    }
  else if (strcmp (op.op, ">&") == 0 || strcmp (op.op, "<&") == 0)
    {
      const char *w = word.text->str;
      gsize digits = strspn (w, "0123456789");
      gboolean dup
          = !word.dynamic
            && ((digits > 0 && (w[digits] == '\0' || (w[digits] == '-' && w[digits + 1] == '\0')))
                || strcmp (w, "-") == 0);

      if (!dup && strcmp (op.op, "<&") == 0)
        {
          fail (p, "'<&' must be followed by a file descriptor, not '%.40s'", w);
        }
      else if (!dup)
        {
          /* >&file (no fd before it) sends stdout and stderr to a file;
           * with a word that only expands later, it may be either, and
           * the file is the case that matters */
          r->target = g_strdup (w);
          r->writes = TRUE;
        }
    }
  else
    {
      r->target = g_strdup (word.text->str);
      r->writes = !reading || strcmp (op.op, "<>") == 0;
    }
  token_clear (&op);
  token_clear (&word);
}

/* Redirections after a compound command belong to no simple command;
 * they are kept on a command with no words so that nothing reads past
 * them. */
static void
parse_trailing_redirects (Parser *p)
{
  OwShellCommand *cmd = NULL;
  guint slot = 0;

  while (!failed (p) && peek (p)->kind == TOK_REDIR)
    {
      if (cmd == NULL)
        {
          slot = reserve_slot (p);
          cmd = g_new0 (OwShellCommand, 1);
          cmd->redirects = g_ptr_array_new_with_free_func (redirect_free);
          cmd->argv = g_new0 (char *, 1);
          cmd->assignments = g_new0 (char *, 1);
          cmd->dynamic = g_new0 (gboolean, 1);
          g_ptr_array_index (p->shared->commands, slot) = cmd;
        }
      parse_redirect (p, cmd);
    }
}

static void
finish_compound (Parser *p)
{
  parse_trailing_redirects (p);
}

/* The body of a function: bash wants a compound command there. */
static void
parse_function_body (Parser *p)
{
  Token *t;

  skip_newlines (p);
  if (failed (p))
    return;
  t = peek (p);
  if (!(is_word (t, "{") || is_op (t, "(") || is_word (t, "if") || is_word (t, "while")
        || is_word (t, "until") || is_word (t, "for") || is_word (t, "case")
        || is_word (t, "select") || is_word (t, "[[")))
    {
      fail_unexpected (p, "a function body");
      return;
    }
  parse_command (p);
}

/* A simple command: assignments, words and redirections in any order. */
static void
parse_simple (Parser *p)
{
  guint slot = reserve_slot (p);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) assignments = NULL;   /* made for the first one: most commands have none */
  g_autoptr(GArray) dynamic = g_array_sized_new (FALSE, TRUE, sizeof (gboolean), 8);
  OwShellCommand *cmd = g_new0 (OwShellCommand, 1);

  cmd->redirects = g_ptr_array_new_with_free_func (redirect_free);
  while (!failed (p))
    {
      Token *t = peek (p);

      if (t->kind == TOK_REDIR)
        {
          parse_redirect (p, cmd);
        }
      else if (t->kind == TOK_WORD)
        {
          Token w;

          take (p, &w);
          if (argv->len == 0 && (w.assign || w.array))
            {
              feature (p, OW_SHELL_ASSIGNMENT);
              if (assignments == NULL)
                assignments = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (assignments, g_string_free (g_steal_pointer (&w.text), FALSE));
            }
          else if (w.array)
            {
              fail (p, "an array assignment '%.40s' where a word was expected", w.text->str);
            }
          else
            {
              gboolean dyn = w.dynamic || w.glob;

              if (w.glob)
                feature (p, OW_SHELL_GLOB);
              g_ptr_array_add (argv, g_string_free (g_steal_pointer (&w.text), FALSE));
              g_array_append_val (dynamic, dyn);
            }
          token_clear (&w);
        }
      else if (is_op (t, "(") && argv->len == 1 && assignments == NULL
               && cmd->redirects->len == 0 && !g_array_index (dynamic, gboolean, 0))
        {
          /* name () compound-command: a function definition */
          skip (p);
          if (!is_op (peek (p), ")"))
            {
              fail_unexpected (p, "')' after '('");
              break;
            }
          skip (p);
          feature (p, OW_SHELL_COMPOUND);
          /* the name is not a command; give its slot back */
          g_ptr_array_remove_index (p->shared->commands, slot);
          command_free (cmd);
          parse_function_body (p);
          return;
        }
      else
        {
          break;
        }
    }
  if (!failed (p) && argv->len == 0 && assignments == NULL && cmd->redirects->len == 0)
    fail_unexpected (p, "a command");
  if (failed (p))
    {
      command_free (cmd);
      return;
    }
  g_ptr_array_add (argv, NULL);
  cmd->argv = (GStrv) g_ptr_array_free (g_steal_pointer (&argv), FALSE);
  if (assignments != NULL)
    {
      g_ptr_array_add (assignments, NULL);
      cmd->assignments = (GStrv) g_ptr_array_free (g_steal_pointer (&assignments), FALSE);
    }
  else
    cmd->assignments = g_new0 (char *, 1);
  {
    gboolean none = FALSE;

    g_array_append_val (dynamic, none);
    cmd->dynamic = (gboolean *) (void *) g_array_free (g_steal_pointer (&dynamic), FALSE);
  }
  g_ptr_array_index (p->shared->commands, slot) = cmd;
}

/* [[ … ]]: words are read for what they hide (substitutions), the
 * operators of the test are stepped over. */
static void
parse_cond (Parser *p)
{
  gboolean saved_cond = p->cond, saved_no_glob = p->no_glob;

  p->cond = TRUE;
  p->no_glob = TRUE;
  while (!failed (p))
    {
      int c;

      while (p->pos < p->len)
        {
          c = peekc (p, 0);
          if (is_blank (c) || c == '\n')
            p->pos++;
          else if (c == '\\' && peekc (p, 1) == '\n')
            p->pos += 2;
          else
            break;
        }
      if (p->pos >= p->len)
        {
          fail (p, "a [[ … ]] test is not closed");
          break;
        }
      c = peekc (p, 0);
      if (c == ']' && peekc (p, 1) == ']' && is_meta (peekc (p, 2)))
        {
          p->pos += 2;
          break;
        }
      if (c == ';')
        {
          fail (p, "unexpected ';' inside [[ … ]]");
          break;
        }
      if (strchr ("()<>|&!", c) != NULL)
        {
          p->pos++;
          continue;
        }
      {
        Token w = { 0 };

        lex_word (p, &w);
        token_clear (&w);
      }
    }
  p->cond = saved_cond;
  p->no_glob = saved_no_glob;
}

static void
parse_compound_list (Parser *p, const char *what)
{
  guint n = 0;

  parse_list_into (p, &n);
  if (!failed (p) && n == 0)
    fail_unexpected (p, what);
}

static void
parse_if (Parser *p)
{
  parse_compound_list (p, "a condition after 'if'");
  expect_word (p, "then");
  parse_compound_list (p, "commands after 'then'");
  while (!failed (p))
    {
      Token *t = peek (p);

      if (is_word (t, "elif"))
        {
          skip (p);
          parse_compound_list (p, "a condition after 'elif'");
          expect_word (p, "then");
          parse_compound_list (p, "commands after 'then'");
        }
      else if (is_word (t, "else"))
        {
          skip (p);
          parse_compound_list (p, "commands after 'else'");
          expect_word (p, "fi");
          break;
        }
      else
        {
          expect_word (p, "fi");
          break;
        }
    }
}

static void
parse_do_group (Parser *p)
{
  skip_newlines (p);
  expect_word (p, "do");
  parse_compound_list (p, "commands after 'do'");
  expect_word (p, "done");
}

static void
parse_for (Parser *p)
{
  Token *t = peek (p);

  if (is_op (t, "(") && peekc (p, 0) == '(')
    {
      skip (p);
      p->pos++;
      parse_arith (p);
      if (failed (p))
        return;
      t = peek (p);
      if (is_op (t, ";"))
        skip (p);
      parse_do_group (p);
      return;
    }
  if (t->kind != TOK_WORD || !t->plain || !is_name_start ((guchar)t->text->str[0])
      || t->text->str[strspn (t->text->str,
                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")]
             != '\0')
    {
      fail_unexpected (p, "a variable name after 'for'");
      return;
    }
  skip (p);
  skip_newlines (p);
  if (failed (p))
    return;
  t = peek (p);
  if (is_word (t, "in"))
    {
      skip (p);
      while (!failed (p))
        {
          t = peek (p);
          if (t->kind == TOK_WORD)
            {
              if (t->glob)
                feature (p, OW_SHELL_GLOB);
              skip (p);
            }
          else if (is_op (t, ";") || t->kind == TOK_NEWLINE)
            {
              skip (p);
              break;
            }
          else
            {
              fail_unexpected (p, "';' or a newline after the words of 'for'");
              return;
            }
        }
    }
  else if (is_op (t, ";"))
    {
      skip (p);
    }
  parse_do_group (p);
}

static void
parse_case (Parser *p)
{
  Token *t = peek (p);

  if (t->kind != TOK_WORD)
    {
      fail_unexpected (p, "a word after 'case'");
      return;
    }
  skip (p);
  skip_newlines (p);
  expect_word (p, "in");
  while (!failed (p))
    {
      gboolean saved = p->no_glob;

      skip_newlines (p);
      if (failed (p))
        return;
      if (is_word (peek (p), "esac"))
        {
          skip (p);
          return;
        }
      p->no_glob = TRUE;
      if (is_op (peek (p), "("))
        skip (p);
      while (!failed (p))
        {
          if (peek (p)->kind != TOK_WORD)
            {
              fail_unexpected (p, "a pattern");
              break;
            }
          skip (p);
          t = peek (p);
          if (is_op (t, "|"))
            {
              skip (p);
              continue;
            }
          if (is_op (t, ")"))
            {
              skip (p);
              break;
            }
          fail_unexpected (p, "')' after a pattern");
        }
      p->no_glob = saved;
      if (failed (p))
        return;
      parse_list_into (p, NULL);
      if (failed (p))
        return;
      t = peek (p);
      if (is_op (t, ";;") || is_op (t, ";&") || is_op (t, ";;&"))
        skip (p);
      else if (!is_word (t, "esac"))
        fail_unexpected (p, "';;' or 'esac'");
    }
}

/* Whether the text at the lexer starts a compound command, for the
 * keyword reading of `time`. */
static gboolean
compound_follows (const Parser *p)
{
  static const char *const words[] = { "{", "(", "!", "if", "for", "while", "until", "case",
                                       "select", "[[", NULL };
  gsize at = p->pos;

  while (at < p->len && is_blank ((guchar) p->s[at]))
    at++;
  for (guint i = 0; words[i] != NULL; i++)
    {
      gsize n = strlen (words[i]);

      if (at + n <= p->len && memcmp (p->s + at, words[i], n) == 0
          && (words[i][0] == '(' || at + n == p->len || is_meta ((guchar) p->s[at + n])))
        return TRUE;
    }
  return FALSE;
}

/* One command: simple, or compound with its trailing redirections. */
static void
parse_command (Parser *p)
{
  Token *t;

  if (failed (p))
    return;
  t = peek (p);
  if (t->kind == TOK_OP && strcmp (t->op, "(") == 0)
    {
      if (!enter (p))
        {
          leave (p);
          return;
        }
      if (peekc (p, 0) == '(')
        {
          /* (( … )): an arithmetic command */
          skip (p);
          p->pos++;
          feature (p, OW_SHELL_COMPOUND);
          parse_arith (p);
        }
      else
        {
          skip (p);
          feature (p, OW_SHELL_SUBSHELL);
          parse_compound_list (p, "commands inside ( … )");
          if (!failed (p) && !is_op (peek (p), ")"))
            fail_unexpected (p, "')'");
          else if (!failed (p))
            skip (p);
        }
      leave (p);
      finish_compound (p);
      return;
    }
  if (t->kind == TOK_WORD && t->plain)
    {
      const char *w = t->text->str;

      if (strcmp (w, "{") == 0 || strcmp (w, "if") == 0 || strcmp (w, "while") == 0
          || strcmp (w, "until") == 0 || strcmp (w, "for") == 0 || strcmp (w, "select") == 0
          || strcmp (w, "case") == 0 || strcmp (w, "function") == 0 || strcmp (w, "[[") == 0)
        {
          g_autofree char *kw = g_strdup (w);

          if (!enter (p))
            {
              leave (p);
              return;
            }
          skip (p);
          if (strcmp (kw, "{") == 0)
            {
              feature (p, OW_SHELL_SUBSHELL);
              parse_compound_list (p, "commands inside { … }");
              expect_word (p, "}");
            }
          else if (strcmp (kw, "if") == 0)
            {
              feature (p, OW_SHELL_COMPOUND);
              parse_if (p);
            }
          else if (strcmp (kw, "while") == 0 || strcmp (kw, "until") == 0)
            {
              feature (p, OW_SHELL_COMPOUND);
              parse_compound_list (p, "a condition");
              parse_do_group (p);
            }
          else if (strcmp (kw, "for") == 0 || strcmp (kw, "select") == 0)
            {
              feature (p, OW_SHELL_COMPOUND);
              parse_for (p);
            }
          else if (strcmp (kw, "case") == 0)
            {
              feature (p, OW_SHELL_COMPOUND);
              parse_case (p);
            }
          else if (strcmp (kw, "function") == 0)
            {
              feature (p, OW_SHELL_COMPOUND);
              if (peek (p)->kind != TOK_WORD)
                {
                  fail_unexpected (p, "a function name");
                }
              else
                {
                  skip (p);
                  if (is_op (peek (p), "("))
                    {
                      skip (p);
                      if (!is_op (peek (p), ")"))
                        fail_unexpected (p, "')'");
                      else
                        skip (p);
                    }
                  parse_function_body (p);
                }
            }
          else
            {
              feature (p, OW_SHELL_COMPOUND);
              parse_cond (p);
            }
          leave (p);
          finish_compound (p);
          return;
        }
      if (is_closer (t) || strcmp (w, "in") == 0 || strcmp (w, "coproc") == 0)
        {
          fail_unexpected (p, NULL);
          return;
        }
    }
  if (t->kind != TOK_WORD && t->kind != TOK_REDIR)
    {
      fail_unexpected (p, "a command");
      return;
    }
  parse_simple (p);
}

/* [!] [time] command { | command } */
static void
parse_pipeline (Parser *p)
{
  for (;;)
    {
      Token *t;

      if (failed (p))
        return;
      t = peek (p);
      if (is_word (t, "!"))
        {
          feature (p, OW_SHELL_COMPOUND);
          skip (p);
          continue;
        }
      if (is_word (t, "time") && compound_follows (p))
        {
          feature (p, OW_SHELL_COMPOUND);
          skip (p);
          continue;
        }
      break;
    }
  parse_command (p);
  while (!failed (p))
    {
      Token *t = peek (p);

      if (!is_op (t, "|") && !is_op (t, "|&"))
        break;
      skip (p);
      feature (p, OW_SHELL_PIPE);
      skip_newlines (p);
      parse_command (p);
    }
}

static void
parse_and_or (Parser *p)
{
  parse_pipeline (p);
  while (!failed (p))
    {
      Token *t = peek (p);

      if (!is_op (t, "&&") && !is_op (t, "||"))
        break;
      skip (p);
      feature (p, OW_SHELL_CHAIN);
      skip_newlines (p);
      parse_pipeline (p);
    }
}

/* A list of and-or lists separated by ; & or newlines. Stops (leaving the
 * token in the lookahead) at the end of the text, a ')', a reserved word
 * that closes a compound command, or a case terminator. */
static void
parse_list_into (Parser *p, guint *n_items)
{
  guint n = 0;
  gboolean after_newline = FALSE;

  while (!failed (p))
    {
      Token *t = peek (p);

      if (t->kind == TOK_NEWLINE)
        {
          skip (p);
          after_newline = TRUE;
          continue;
        }
      if (t->kind == TOK_EOF || is_op (t, ")") || is_closer (t) || is_op (t, ";;")
          || is_op (t, ";&") || is_op (t, ";;&"))
        break;
      if (n > 0 && after_newline)
        feature (p, OW_SHELL_CHAIN);
      after_newline = FALSE;
      parse_and_or (p);
      n++;
      if (failed (p))
        break;
      t = peek (p);
      if (is_op (t, ";"))
        {
          skip (p);
          feature (p, OW_SHELL_CHAIN);
        }
      else if (is_op (t, "&"))
        {
          skip (p);
          feature (p, OW_SHELL_BACKGROUND);
        }
      else if (t->kind == TOK_NEWLINE)
        {
          continue;
        }
      else
        {
          break;
        }
    }
  if (n_items != NULL)
    *n_items = n;
  if (!failed (p))
    peek (p);
}

/* A whole command line: a list that must end at the end of the text. */
static void
parse_program (Parser *p)
{
  parse_list_into (p, NULL);
  if (failed (p))
    return;
  if (peek (p)->kind != TOK_EOF)
    fail_unexpected (p, NULL);
  else if (p->heredocs->len > 0)
    fail (p, "the here-document ended by '%s' is never closed",
          ((Heredoc *) g_ptr_array_index (p->heredocs, 0))->delimiter);
}

/* ---- public ---- */

/* Errors quote the command, which may hold any bytes; they are shown to
 * people and stored as JSON, so they are made valid UTF-8 with control
 * characters spelled out. */
static char *
readable (const char *text)
{
  g_autofree char *made = g_utf8_validate (text, -1, NULL) ? NULL : g_utf8_make_valid (text, -1);
  const char *valid = made != NULL ? made : text;
  GString *out = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar ch = (guchar) *p;

      if (ch == '\n')
        g_string_append (out, "\\n");
      else if (ch == '\t')
        g_string_append (out, "\\t");
      else if (ch == '\r')
        g_string_append (out, "\\r");
      else if (ch < 0x20 || ch == 0x7f)
        g_string_append_printf (out, "\\x%02x", ch);
      else
        g_string_append_c (out, (char) ch);
    }
  return g_string_free (out, FALSE);
}

OwShellParse *
ow_shell_parse (const char *command)
{
  OwShellParse *parse = g_new0 (OwShellParse, 1);
  Shared shared = { 0 };
  Parser p;
  gsize len;

  parse->commands = g_ptr_array_new_with_free_func (command_free);
  if (command == NULL)
    {
      parse->features = OW_SHELL_PARSE_ERROR;
      parse->error = g_strdup ("there is no command");
      return parse;
    }
  len = strlen (command);
  if (len > SHELL_MAX_INPUT)
    {
      parse->features = OW_SHELL_PARSE_ERROR;
      parse->error = g_strdup_printf ("the command is longer than %d bytes", SHELL_MAX_INPUT);
      return parse;
    }
  shared.commands = parse->commands;
  parser_init (&p, &shared, command, len);
  parse_program (&p);
  parser_clear (&p);

  /* drop the slots of commands that were never finished */
  for (guint i = parse->commands->len; i > 0; i--)
    if (g_ptr_array_index (parse->commands, i - 1) == NULL)
      g_ptr_array_remove_index (parse->commands, i - 1);
  parse->features = shared.features;
  if (shared.error != NULL)
    {
      parse->features |= OW_SHELL_PARSE_ERROR;
      parse->error = readable (shared.error);
      g_free (shared.error);
    }
  return parse;
}

void
ow_shell_parse_free (OwShellParse *parse)
{
  if (parse == NULL)
    return;
  g_clear_pointer (&parse->commands, g_ptr_array_unref);
  g_free (parse->error);
  g_free (parse);
}

gboolean
ow_shell_parse_is_plain (const OwShellParse *parse, gboolean allow_assignments)
{
  guint allowed = allow_assignments ? OW_SHELL_ASSIGNMENT : 0;
  const OwShellCommand *cmd;

  if (parse == NULL || parse->commands->len != 1 || (parse->features & ~allowed) != 0)
    return FALSE;
  cmd = g_ptr_array_index (parse->commands, 0);
  return cmd->argv != NULL && cmd->argv[0] != NULL && cmd->redirects->len == 0
         && (allow_assignments || cmd->assignments[0] == NULL);
}

gboolean
ow_shell_argv_has_prefix (const char *const *argv, const char *const *prefix)
{
  guint i;

  /* an empty prefix would match every command: never a match */
  if (argv == NULL || prefix == NULL || prefix[0] == NULL)
    return FALSE;
  for (i = 0; prefix[i] != NULL; i++)
    if (argv[i] == NULL || strcmp (argv[i], prefix[i]) != 0)
      return FALSE;
  return TRUE;
}

/* A program that runs its arguments as a command, and how to step over
 * its own options to find that command. */
typedef struct {
  const char *name;          /* its basename */
  const char *short_args; /* short options that take the next word (or the rest of the cluster) */
  const char *const
      *long_args;   /* long options that take the next word unless written --opt=value */
  guint positional; /* words before the command that are not options (timeout's duration) */
  gboolean    assignments;   /* NAME=value words before the command are the wrapper's (env, sudo) */
  const char *stop_flags;    /* short options after which nothing is run (command -v) */
} Wrapper;

static const char *const sudo_long[] = { "close-from", "chdir", "group", "host", "prompt", "chroot",
                                         "role", "type", "command-timeout", "other-user", "user",
                                         NULL };
static const char *const env_long[] = { "unset", "chdir", "split-string", NULL };
static const char *const nice_long[] = { "adjustment", NULL };
static const char *const time_long[] = { "format", "output", NULL };
static const char *const timeout_long[] = { "kill-after", "signal", NULL };
static const char *const stdbuf_long[] = { "input", "output", "error", NULL };
static const char *const xargs_long[] = { "arg-file", "delimiter", "max-args", "max-procs",
                                          "max-chars", "process-slot-var", NULL };
static const char *const ionice_long[] = { "class", "classdata", "pid", "pgid", "uid", NULL };
static const char *const strace_long[] = { "output", "expr", "attach", "user", "env", "trace-path",
                                           NULL };
static const char *const none_long[] = { NULL };

static const Wrapper wrappers[] = {
  { "sudo", "CDgpRrtTUu", sudo_long, 0, TRUE, NULL },
  { "doas", "uC", none_long, 0, FALSE, NULL },
  { "env", "uC", env_long, 0, TRUE, "S" },
  { "nice", "n", nice_long, 0, FALSE, NULL },
  { "nohup", "", none_long, 0, FALSE, NULL },
  { "time", "fo", time_long, 0, FALSE, NULL },
  { "timeout", "ks", timeout_long, 1, FALSE, NULL },
  { "stdbuf", "ioe", stdbuf_long, 0, FALSE, NULL },
  { "xargs", "aEIdLnPs", xargs_long, 0, FALSE, NULL },
  { "command", "", none_long, 0, FALSE, "vV" },
  { "exec", "a", none_long, 0, FALSE, NULL },
  { "builtin", "", none_long, 0, FALSE, NULL },
  { "busybox", "", none_long, 0, FALSE, NULL },
  { "toybox", "", none_long, 0, FALSE, NULL },
  { "ionice", "cnpPu", ionice_long, 0, FALSE, NULL },
  { "setsid", "", none_long, 0, FALSE, NULL },
  { "pkexec", "", none_long, 0, FALSE, NULL },
  { "unbuffer", "", none_long, 0, FALSE, NULL },
  { "chronic", "", none_long, 0, FALSE, NULL },
  { "nocache", "", none_long, 0, FALSE, NULL },
  { "strace", "abeEIoOpPsSuUX", strace_long, 0, FALSE, NULL },
};

static const char *
base_name (const char *word)
{
  const char *slash = strrchr (word, '/');

  return slash != NULL ? slash + 1 : word;
}

static const Wrapper *
find_wrapper (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (wrappers); i++)
    if (strcmp (wrappers[i].name, name) == 0)
      return &wrappers[i];
  return NULL;
}

static gboolean
in_list (const char *const *list, const char *word, gsize len)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (strlen (list[i]) == len && strncmp (list[i], word, len) == 0)
      return TRUE;
  return FALSE;
}

/* Steps over @w's options from @i; sets *@stop when the wrapper runs
 * nothing (command -v, env -S whose command is in a string). */
static guint
skip_wrapper_options (const Wrapper *w, const char *const *argv, guint i, gboolean *stop)
{
  guint positional = w->positional;

  *stop = FALSE;
  while (argv[i] != NULL)
    {
      const char *a = argv[i];

      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (a[0] == '-' && a[1] == '-' && a[2] != '\0')
        {
          const char *eq = strchr (a + 2, '=');
          gsize n = eq != NULL ? (gsize) (eq - (a + 2)) : strlen (a + 2);

          if (strcmp (w->name, "env") == 0 && n == strlen ("split-string")
              && strncmp (a + 2, "split-string", n) == 0)
            {
              *stop = TRUE;
              return i;
            }
          i++;
          if (eq == NULL && in_list (w->long_args, a + 2, n) && argv[i] != NULL)
            i++;
          continue;
        }
      if (a[0] == '-' && a[1] != '\0')
        {
          gboolean takes_next = FALSE;

          /* nice -10, nice -n 10 */
          if (strcmp (w->name, "nice") == 0 && (is_digit ((guchar) a[1]) || a[1] == '+'))
            {
              i++;
              continue;
            }
          for (const char *c = a + 1; *c != '\0'; c++)
            {
              if (w->stop_flags != NULL && strchr (w->stop_flags, *c) != NULL)
                {
                  *stop = TRUE;
                  return i;
                }
              if (strchr (w->short_args, *c) != NULL)
                {
                  takes_next = c[1] == '\0';
                  break;
                }
            }
          i++;
          if (takes_next && argv[i] != NULL)
            i++;
          continue;
        }
      if (w->assignments && is_assignment (a, strlen (a)))
        {
          i++;
          continue;
        }
      if (strcmp (w->name, "env") == 0 && strcmp (a, "-") == 0)
        {
          i++;
          continue;
        }
      if (positional > 0)
        {
          positional--;
          i++;
          continue;
        }
      break;
    }
  return i;
}

const char *
ow_shell_command_program (const OwShellCommand *cmd, guint *args_start)
{
  const char *last = NULL;
  guint i = 0, dummy;

  if (args_start == NULL)
    args_start = &dummy;
  *args_start = 0;
  if (cmd == NULL || cmd->argv == NULL)
    return NULL;
  while (cmd->argv[i] != NULL)
    {
      const char *name = base_name (cmd->argv[i]);
      const Wrapper *w = find_wrapper (name);
      gboolean stop;

      if (w == NULL)
        {
          *args_start = i + 1;
          return name;
        }
      last = name;
      i = skip_wrapper_options (w, (const char *const *) cmd->argv, i + 1, &stop);
      if (stop)
        {
          *args_start = i;
          return name;
        }
    }
  *args_start = i;
  return last;
}

/* ---- command lines inside command lines ---- */

static const char *const shells[] = {
  "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh", "rbash",
  NULL,
};

gboolean
ow_shell_is_shell (const char *program)
{
  return program != NULL && g_strv_contains (shells, program);
}

/* Reads a shell's options from argv[*i] on: sets *command (-c) and
 * *from_stdin (-s, -), and leaves *i at the first operand. Stops at a
 * word whose value is not known unless @past_dynamic, and then records
 * the first such word in *dynamic_at. */
static void
scan_shell_options (const OwShellCommand *cmd, guint *i, gboolean past_dynamic, gboolean *command,
                    gboolean *from_stdin, guint *dynamic_at)
{
  const char *const *argv = (const char *const *) cmd->argv;

  while (argv[*i] != NULL)
    {
      const char *a = argv[*i];

      if (cmd->dynamic[*i])
        {
          if (!past_dynamic)
            break;
          if (*dynamic_at == G_MAXUINT)
            *dynamic_at = *i;
          (*i)++;
          continue;
        }
      if (strcmp (a, "--") == 0 || strcmp (a, "-") == 0)
        {
          (*i)++;
          if (strcmp (a, "-") == 0)
            *from_stdin = TRUE;
          break;
        }
      if (a[0] == '-' && a[1] == '-')
        {
          (*i)++;
          if ((strcmp (a, "--rcfile") == 0 || strcmp (a, "--init-file") == 0) && argv[*i] != NULL)
            (*i)++;
          continue;
        }
      if ((a[0] == '-' || a[0] == '+') && a[1] != '\0')
        {
          gboolean takes = FALSE;

          for (const char *ch = a + 1; *ch != '\0'; ch++)
            {
              if (*ch == 'c')
                *command = TRUE;
              else if (*ch == 's')
                *from_stdin = TRUE;
              else if (*ch == 'o' || *ch == 'O')
                takes = TRUE;
            }
          (*i)++;
          if (takes && argv[*i] != NULL)
            (*i)++;
          continue;
        }
      break;
    }
}

OwShellRuns
ow_shell_shell_runs (const OwShellCommand *cmd, guint start, guint *at, guint *dynamic_at)
{
  gboolean command = FALSE, from_stdin = FALSE;
  guint i = start;

  *dynamic_at = G_MAXUINT;
  scan_shell_options (cmd, &i, FALSE, &command, &from_stdin, dynamic_at);
  if (!command && cmd->argv[i] != NULL && cmd->dynamic[i])
    {
      /* sh $opts -c …: look past the unknown words for a -c */
      guint j = i;
      gboolean later_command = FALSE, later_stdin = from_stdin;

      scan_shell_options (cmd, &j, TRUE, &later_command, &later_stdin, dynamic_at);
      if (later_command)
        {
          *at = j;
          return OW_SHELL_RUNS_STRING;
        }
      *dynamic_at = G_MAXUINT;
    }
  *at = i;
  if (command)
    return OW_SHELL_RUNS_STRING;
  if (!from_stdin && cmd->argv[i] != NULL)
    return OW_SHELL_RUNS_SCRIPT;
  return OW_SHELL_RUNS_STDIN;
}

char *
ow_shell_inner_command (const OwShellCommand *cmd, guint *at)
{
  guint start = 0, i = 0, dynamic_at;
  const char *program = ow_shell_command_program (cmd, &start);

  if (at != NULL)
    *at = 0;
  if (program == NULL)
    return NULL;
  if (strcmp (program, "eval") == 0)
    {
      if (cmd->argv[start] == NULL)
        return NULL;
      if (at != NULL)
        *at = start;
      return g_strjoinv (" ", cmd->argv + start);
    }
  if (!ow_shell_is_shell (program)
      || ow_shell_shell_runs (cmd, start, &i, &dynamic_at) != OW_SHELL_RUNS_STRING
      || cmd->argv[i] == NULL)
    return NULL;
  if (at != NULL)
    *at = i;
  return g_strdup (cmd->argv[i]);
}

GStrv
ow_shell_split_plain (const char *text)
{
  g_autoptr(OwShellParse) parse = ow_shell_parse (text);
  const OwShellCommand *cmd;

  if (!ow_shell_parse_is_plain (parse, FALSE))
    return NULL;
  cmd = g_ptr_array_index (parse->commands, 0);
  return g_strdupv (cmd->argv);
}
