/* ow-shell-private.h: what the shell reader's files share (see ow-shell.c).
 *
 * A Parser reads one level of text (the command line, or the inside of a
 * substitution) and shares a Shared with every level of the same parse:
 * the list of commands, the features seen, the first error and the
 * budgets. Functions are documented where they are defined.
 */
#pragma once

#include "policy/ow-shell.h"

G_BEGIN_DECLS

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

/* ow-shell-lexer.c */
void ow_shell_fail (Parser *p, const char *format, ...) G_GNUC_PRINTF (2, 3);
gboolean ow_shell_failed (const Parser *p);
int ow_shell_peekc (const Parser *p, gsize off);
void ow_shell_feature (Parser *p, guint bits);
gboolean ow_shell_enter (Parser *p);
void ow_shell_leave (Parser *p);
gboolean ow_shell_is_blank (int c);
gboolean ow_shell_is_meta (int c);
gboolean ow_shell_is_name_start (int c);
gboolean ow_shell_is_digit (int c);
void ow_shell_token_clear (Token *t);
void ow_shell_redirect_free (gpointer data);
void ow_shell_command_free (gpointer data);
void ow_shell_parser_init (Parser *p, Shared *shared, const char *s, gsize len);
void ow_shell_parser_clear (Parser *p);
void ow_shell_parse_arith (Parser *p);
gboolean ow_shell_is_assignment (const char *raw, gsize len);
void ow_shell_lex_word (Parser *p, Token *t);
void ow_shell_lex_token (Parser *p, Token *t);

/* ow-shell-parser.c */
void ow_shell_skip (Parser *p);
void ow_shell_parse_list_into (Parser *p, guint *n_items);
void ow_shell_parse_program (Parser *p);

G_END_DECLS
