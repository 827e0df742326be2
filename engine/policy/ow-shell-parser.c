/* ow-shell-parser.c: the parser of the shell reader (see ow-shell.c).
 *
 * Recursive descent over bash's grammar: lists, and-or lists, pipelines,
 * compound commands (if, for, while, until, case, [[ ]], (( )), groups,
 * subshells, functions) and simple commands with their redirections. It
 * drives the lexer one token at a time, so reserved words count only
 * where a command may start.
 */
#define G_LOG_DOMAIN "ow-shell"

#include "policy/ow-shell-private.h"

#include <string.h>

static void parse_command (Parser *p);

/* ---- tokens ---- */

static Token *
peek (Parser *p)
{
  if (!p->has_la)
    {
      Token t;

      /* lexed aside: a word's substitutions run a nested parse, which
       * uses the lookahead slot itself */
      ow_shell_lex_token (p, &t);
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

void
ow_shell_skip (Parser *p)
{
  Token t;

  take (p, &t);
  ow_shell_token_clear (&t);
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
    ow_shell_fail (p, "expected %s but found %s", expected, what);
  else
    ow_shell_fail (p, "unexpected %s", what);
}

/* Steps over the reserved word @word, or fails. */
static void
expect_word (Parser *p, const char *word)
{
  g_autofree char *expected = NULL;

  if (ow_shell_failed (p))
    return;
  if (is_word (peek (p), word))
    {
      ow_shell_skip (p);
      return;
    }
  expected = g_strdup_printf ("'%s'", word);
  fail_unexpected (p, expected);
}

static void
skip_newlines (Parser *p)
{
  while (!ow_shell_failed (p) && peek (p)->kind == TOK_NEWLINE)
    ow_shell_skip (p);
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
    ow_shell_fail (p, "the command has more than %d simple commands", SHELL_MAX_COMMANDS);
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
  ow_shell_feature (p, OW_SHELL_REDIRECT);
  if (peek (p)->kind != TOK_WORD)
    {
      g_autofree char *expected = g_strdup_printf ("a file after '%s'", op.op);

      fail_unexpected (p, expected);
      ow_shell_token_clear (&op);
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

      ow_shell_feature (p, OW_SHELL_HEREDOC);
      r->target = g_strdup (word.text->str);
      hd->redirect = r;
      hd->delimiter = g_strdup (word.text->str);
      hd->strip_tabs = op.op[2] == '-';
      hd->quoted = word.quoted;
      g_ptr_array_add (p->heredocs, hd);
    }
  else if (strcmp (op.op, "<<<") == 0)
    {
      ow_shell_feature (p, OW_SHELL_HEREDOC);
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
          ow_shell_fail (p, "'<&' must be followed by a file descriptor, not '%.40s'", w);
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
  ow_shell_token_clear (&op);
  ow_shell_token_clear (&word);
}

/* Redirections after a compound command belong to no simple command;
 * they are kept on a command with no words so that nothing reads past
 * them. */
static void
parse_trailing_redirects (Parser *p)
{
  OwShellCommand *cmd = NULL;
  guint slot = 0;

  while (!ow_shell_failed (p) && peek (p)->kind == TOK_REDIR)
    {
      if (cmd == NULL)
        {
          slot = reserve_slot (p);
          cmd = g_new0 (OwShellCommand, 1);
          cmd->redirects = g_ptr_array_new_with_free_func (ow_shell_redirect_free);
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
  if (ow_shell_failed (p))
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

  cmd->redirects = g_ptr_array_new_with_free_func (ow_shell_redirect_free);
  while (!ow_shell_failed (p))
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
              ow_shell_feature (p, OW_SHELL_ASSIGNMENT);
              if (assignments == NULL)
                assignments = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (assignments, g_string_free (g_steal_pointer (&w.text), FALSE));
            }
          else if (w.array)
            {
              ow_shell_fail (p, "an array assignment '%.40s' where a word was expected",
                             w.text->str);
            }
          else
            {
              gboolean dyn = w.dynamic || w.glob;

              if (w.glob)
                ow_shell_feature (p, OW_SHELL_GLOB);
              g_ptr_array_add (argv, g_string_free (g_steal_pointer (&w.text), FALSE));
              g_array_append_val (dynamic, dyn);
            }
          ow_shell_token_clear (&w);
        }
      else if (is_op (t, "(") && argv->len == 1 && assignments == NULL
               && cmd->redirects->len == 0 && !g_array_index (dynamic, gboolean, 0))
        {
          /* name () compound-command: a function definition */
          ow_shell_skip (p);
          if (!is_op (peek (p), ")"))
            {
              fail_unexpected (p, "')' after '('");
              break;
            }
          ow_shell_skip (p);
          ow_shell_feature (p, OW_SHELL_COMPOUND);
          /* the name is not a command; give its slot back */
          g_ptr_array_remove_index (p->shared->commands, slot);
          ow_shell_command_free (cmd);
          parse_function_body (p);
          return;
        }
      else
        {
          break;
        }
    }
  if (!ow_shell_failed (p) && argv->len == 0 && assignments == NULL && cmd->redirects->len == 0)
    fail_unexpected (p, "a command");
  if (ow_shell_failed (p))
    {
      ow_shell_command_free (cmd);
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
  while (!ow_shell_failed (p))
    {
      int c;

      while (p->pos < p->len)
        {
          c = ow_shell_peekc (p, 0);
          if (ow_shell_is_blank (c) || c == '\n')
            p->pos++;
          else if (c == '\\' && ow_shell_peekc (p, 1) == '\n')
            p->pos += 2;
          else
            break;
        }
      if (p->pos >= p->len)
        {
          ow_shell_fail (p, "a [[ … ]] test is not closed");
          break;
        }
      c = ow_shell_peekc (p, 0);
      if (c == ']' && ow_shell_peekc (p, 1) == ']' && ow_shell_is_meta (ow_shell_peekc (p, 2)))
        {
          p->pos += 2;
          break;
        }
      if (c == ';')
        {
          ow_shell_fail (p, "unexpected ';' inside [[ … ]]");
          break;
        }
      if (strchr ("()<>|&!", c) != NULL)
        {
          p->pos++;
          continue;
        }
      {
        Token w = { 0 };

        ow_shell_lex_word (p, &w);
        ow_shell_token_clear (&w);
      }
    }
  p->cond = saved_cond;
  p->no_glob = saved_no_glob;
}

static void
parse_compound_list (Parser *p, const char *what)
{
  guint n = 0;

  ow_shell_parse_list_into (p, &n);
  if (!ow_shell_failed (p) && n == 0)
    fail_unexpected (p, what);
}

static void
parse_if (Parser *p)
{
  parse_compound_list (p, "a condition after 'if'");
  expect_word (p, "then");
  parse_compound_list (p, "commands after 'then'");
  while (!ow_shell_failed (p))
    {
      Token *t = peek (p);

      if (is_word (t, "elif"))
        {
          ow_shell_skip (p);
          parse_compound_list (p, "a condition after 'elif'");
          expect_word (p, "then");
          parse_compound_list (p, "commands after 'then'");
        }
      else if (is_word (t, "else"))
        {
          ow_shell_skip (p);
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

  if (is_op (t, "(") && ow_shell_peekc (p, 0) == '(')
    {
      ow_shell_skip (p);
      p->pos++;
      ow_shell_parse_arith (p);
      if (ow_shell_failed (p))
        return;
      t = peek (p);
      if (is_op (t, ";"))
        ow_shell_skip (p);
      parse_do_group (p);
      return;
    }
  if (t->kind != TOK_WORD || !t->plain || !ow_shell_is_name_start ((guchar) t->text->str[0])
      || t->text->str[strspn (t->text->str,
                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")]
             != '\0')
    {
      fail_unexpected (p, "a variable name after 'for'");
      return;
    }
  ow_shell_skip (p);
  skip_newlines (p);
  if (ow_shell_failed (p))
    return;
  t = peek (p);
  if (is_word (t, "in"))
    {
      ow_shell_skip (p);
      while (!ow_shell_failed (p))
        {
          t = peek (p);
          if (t->kind == TOK_WORD)
            {
              if (t->glob)
                ow_shell_feature (p, OW_SHELL_GLOB);
              ow_shell_skip (p);
            }
          else if (is_op (t, ";") || t->kind == TOK_NEWLINE)
            {
              ow_shell_skip (p);
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
      ow_shell_skip (p);
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
  ow_shell_skip (p);
  skip_newlines (p);
  expect_word (p, "in");
  while (!ow_shell_failed (p))
    {
      gboolean saved = p->no_glob;

      skip_newlines (p);
      if (ow_shell_failed (p))
        return;
      if (is_word (peek (p), "esac"))
        {
          ow_shell_skip (p);
          return;
        }
      p->no_glob = TRUE;
      if (is_op (peek (p), "("))
        ow_shell_skip (p);
      while (!ow_shell_failed (p))
        {
          if (peek (p)->kind != TOK_WORD)
            {
              fail_unexpected (p, "a pattern");
              break;
            }
          ow_shell_skip (p);
          t = peek (p);
          if (is_op (t, "|"))
            {
              ow_shell_skip (p);
              continue;
            }
          if (is_op (t, ")"))
            {
              ow_shell_skip (p);
              break;
            }
          fail_unexpected (p, "')' after a pattern");
        }
      p->no_glob = saved;
      if (ow_shell_failed (p))
        return;
      ow_shell_parse_list_into (p, NULL);
      if (ow_shell_failed (p))
        return;
      t = peek (p);
      if (is_op (t, ";;") || is_op (t, ";&") || is_op (t, ";;&"))
        ow_shell_skip (p);
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

  while (at < p->len && ow_shell_is_blank ((guchar) p->s[at]))
    at++;
  for (guint i = 0; words[i] != NULL; i++)
    {
      gsize n = strlen (words[i]);

      if (at + n <= p->len && memcmp (p->s + at, words[i], n) == 0
          && (words[i][0] == '(' || at + n == p->len || ow_shell_is_meta ((guchar) p->s[at + n])))
        return TRUE;
    }
  return FALSE;
}

/* One command: simple, or compound with its trailing redirections. */
static void
parse_command (Parser *p)
{
  Token *t;

  if (ow_shell_failed (p))
    return;
  t = peek (p);
  if (t->kind == TOK_OP && strcmp (t->op, "(") == 0)
    {
      if (!ow_shell_enter (p))
        {
          ow_shell_leave (p);
          return;
        }
      if (ow_shell_peekc (p, 0) == '(')
        {
          /* (( … )): an arithmetic command */
          ow_shell_skip (p);
          p->pos++;
          ow_shell_feature (p, OW_SHELL_COMPOUND);
          ow_shell_parse_arith (p);
        }
      else
        {
          ow_shell_skip (p);
          ow_shell_feature (p, OW_SHELL_SUBSHELL);
          parse_compound_list (p, "commands inside ( … )");
          if (!ow_shell_failed (p) && !is_op (peek (p), ")"))
            fail_unexpected (p, "')'");
          else if (!ow_shell_failed (p))
            ow_shell_skip (p);
        }
      ow_shell_leave (p);
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

          if (!ow_shell_enter (p))
            {
              ow_shell_leave (p);
              return;
            }
          ow_shell_skip (p);
          if (strcmp (kw, "{") == 0)
            {
              ow_shell_feature (p, OW_SHELL_SUBSHELL);
              parse_compound_list (p, "commands inside { … }");
              expect_word (p, "}");
            }
          else if (strcmp (kw, "if") == 0)
            {
              ow_shell_feature (p, OW_SHELL_COMPOUND);
              parse_if (p);
            }
          else if (strcmp (kw, "while") == 0 || strcmp (kw, "until") == 0)
            {
              ow_shell_feature (p, OW_SHELL_COMPOUND);
              parse_compound_list (p, "a condition");
              parse_do_group (p);
            }
          else if (strcmp (kw, "for") == 0 || strcmp (kw, "select") == 0)
            {
              ow_shell_feature (p, OW_SHELL_COMPOUND);
              parse_for (p);
            }
          else if (strcmp (kw, "case") == 0)
            {
              ow_shell_feature (p, OW_SHELL_COMPOUND);
              parse_case (p);
            }
          else if (strcmp (kw, "function") == 0)
            {
              ow_shell_feature (p, OW_SHELL_COMPOUND);
              if (peek (p)->kind != TOK_WORD)
                {
                  fail_unexpected (p, "a function name");
                }
              else
                {
                  ow_shell_skip (p);
                  if (is_op (peek (p), "("))
                    {
                      ow_shell_skip (p);
                      if (!is_op (peek (p), ")"))
                        fail_unexpected (p, "')'");
                      else
                        ow_shell_skip (p);
                    }
                  parse_function_body (p);
                }
            }
          else
            {
              ow_shell_feature (p, OW_SHELL_COMPOUND);
              parse_cond (p);
            }
          ow_shell_leave (p);
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

      if (ow_shell_failed (p))
        return;
      t = peek (p);
      if (is_word (t, "!"))
        {
          ow_shell_feature (p, OW_SHELL_COMPOUND);
          ow_shell_skip (p);
          continue;
        }
      if (is_word (t, "time") && compound_follows (p))
        {
          ow_shell_feature (p, OW_SHELL_COMPOUND);
          ow_shell_skip (p);
          continue;
        }
      break;
    }
  parse_command (p);
  while (!ow_shell_failed (p))
    {
      Token *t = peek (p);

      if (!is_op (t, "|") && !is_op (t, "|&"))
        break;
      ow_shell_skip (p);
      ow_shell_feature (p, OW_SHELL_PIPE);
      skip_newlines (p);
      parse_command (p);
    }
}

static void
parse_and_or (Parser *p)
{
  parse_pipeline (p);
  while (!ow_shell_failed (p))
    {
      Token *t = peek (p);

      if (!is_op (t, "&&") && !is_op (t, "||"))
        break;
      ow_shell_skip (p);
      ow_shell_feature (p, OW_SHELL_CHAIN);
      skip_newlines (p);
      parse_pipeline (p);
    }
}

/* A list of and-or lists separated by ; & or newlines. Stops (leaving the
 * token in the lookahead) at the end of the text, a ')', a reserved word
 * that closes a compound command, or a case terminator. */
void
ow_shell_parse_list_into (Parser *p, guint *n_items)
{
  guint n = 0;
  gboolean after_newline = FALSE;

  while (!ow_shell_failed (p))
    {
      Token *t = peek (p);

      if (t->kind == TOK_NEWLINE)
        {
          ow_shell_skip (p);
          after_newline = TRUE;
          continue;
        }
      if (t->kind == TOK_EOF || is_op (t, ")") || is_closer (t) || is_op (t, ";;")
          || is_op (t, ";&") || is_op (t, ";;&"))
        break;
      if (n > 0 && after_newline)
        ow_shell_feature (p, OW_SHELL_CHAIN);
      after_newline = FALSE;
      parse_and_or (p);
      n++;
      if (ow_shell_failed (p))
        break;
      t = peek (p);
      if (is_op (t, ";"))
        {
          ow_shell_skip (p);
          ow_shell_feature (p, OW_SHELL_CHAIN);
        }
      else if (is_op (t, "&"))
        {
          ow_shell_skip (p);
          ow_shell_feature (p, OW_SHELL_BACKGROUND);
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
  if (!ow_shell_failed (p))
    peek (p);
}

/* A whole command line: a list that must end at the end of the text. */
void
ow_shell_parse_program (Parser *p)
{
  ow_shell_parse_list_into (p, NULL);
  if (ow_shell_failed (p))
    return;
  if (peek (p)->kind != TOK_EOF)
    fail_unexpected (p, NULL);
  else if (p->heredocs->len > 0)
    ow_shell_fail (p, "the here-document ended by '%s' is never closed",
                   ((Heredoc *) g_ptr_array_index (p->heredocs, 0))->delimiter);
}
