/* ow-shell.h: reading a shell command line the way bash would, without running it.
 *
 * The policy never matches a shell command by substring. It parses the
 * command line into simple commands (words after quote removal, with their
 * redirections) and records every feature that makes a command more than
 * one plain program call: chaining (; && || &), pipes, redirections,
 * command or process substitution, variable and arithmetic expansion,
 * here-documents, subshells and braces, background jobs and newlines. Only
 * a plain command — one simple command, none of those features — may be
 * matched by an allowlist entry or a standing rule, and then by argv
 * prefix (`git status` matches `git status -s`, never `git statusx` or
 * `git push`). The safety checks read the same structure to see what each
 * simple command would touch. Fuzzed.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  OW_SHELL_CHAIN        = 1 << 0,   /* ; && || or a second line */
  OW_SHELL_PIPE         = 1 << 1,   /* | or |& */
  OW_SHELL_REDIRECT     = 1 << 2,   /* < > >> 2> &> >| <> and fd dups */
  OW_SHELL_SUBSTITUTION = 1 << 3,   /* $( ) ` ` <( ) >( ) */
  OW_SHELL_EXPANSION    = 1 << 4,   /* $VAR ${…} $(( )) — a word whose value is not known */
  OW_SHELL_HEREDOC      = 1 << 5,   /* << <<- <<< */
  OW_SHELL_BACKGROUND   = 1 << 6,   /* a trailing or inner & */
  OW_SHELL_SUBSHELL     = 1 << 7,   /* ( … ) or { …; } */
  OW_SHELL_NEWLINE      = 1 << 8,   /* a newline or carriage return outside quotes */
  OW_SHELL_GLOB         = 1 << 9,   /* unquoted * ? [ that may expand */
  OW_SHELL_ASSIGNMENT   = 1 << 10,  /* leading VAR=value words */
  OW_SHELL_COMPOUND     = 1 << 11,  /* if/for/while/case/function keywords */
  OW_SHELL_PARSE_ERROR  = 1 << 12,  /* unbalanced quotes or brackets: treat as hostile */
} OwShellFeature;

/* One redirection of a simple command. */
typedef struct {
  int   fd;          /* the fd redirected (1 for >, 0 for <, …) */
  char *op;          /* ">", ">>", "<", "2>", "&>", ">&", "<<<", … */
  char *target;      /* the word after the operator, quotes removed; NULL when it is an fd dup */
  gboolean writes;   /* the redirection creates or changes a file */
  char *body;        /* << and <<-: the here-document's text (with an unquoted delimiter,
                      * expansions kept as written); NULL otherwise */
} OwShellRedirect;

/* One simple command: its words after quote removal (assignments and
 * redirections not included) and its redirections. */
typedef struct {
  GStrv      argv;          /* NULL-terminated; argv[0] is the program as written */
  GStrv      assignments;   /* leading NAME=value words */
  GPtrArray *redirects;     /* OwShellRedirect* */
  /* Words whose value depends on an expansion or substitution are kept as
   * written; this marks which ones (parallel to argv). Unquoted globs,
   * brace expansion and a leading ~ count too: their value is not the
   * text either. */
  gboolean  *dynamic;
} OwShellCommand;

typedef struct {
  GPtrArray *commands;      /* OwShellCommand*, in order of appearance, including those inside
                             * substitutions, subshells and pipelines */
  guint      features;      /* OwShellFeature bits */
  char      *error;         /* with OW_SHELL_PARSE_ERROR: what could not be read */
} OwShellParse;

OwShellParse *ow_shell_parse      (const char *command);
void          ow_shell_parse_free (OwShellParse *parse);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwShellParse, ow_shell_parse_free)

/* TRUE when @parse is exactly one simple command with none of the features
 * above except quoting (and, if @allow_assignments, leading assignments). */
gboolean ow_shell_parse_is_plain (const OwShellParse *parse, gboolean allow_assignments);

/* TRUE when @argv starts with every word of @prefix (whole words). */
gboolean ow_shell_argv_has_prefix (const char *const *argv, const char *const *prefix);

/* The program a simple command runs, looking through wrappers that run
 * their arguments (sudo, doas, env, nice, nohup, time, timeout, stdbuf,
 * xargs, command, exec, builtin) and returning its basename; sets
 * *@args_start to the index of its first argument. */
const char *ow_shell_command_program (const OwShellCommand *cmd, guint *args_start);

/* ---- command lines inside command lines ----
 *
 * `sh -c STRING`, `bash -c …` and `eval WORDS…` run a command line of
 * their own, and so do `su -c`, `flock -c`, `watch`, `env -S` and
 * `find -exec`. The deny rules and hard floors descend into them through
 * ow_shell_inner_command(), and the safety checks read sh -c and eval
 * strings through the same functions, so they know the same shells and
 * stop at the same depth. */

/* How many command lines inside command lines are read. A command line
 * nested deeper is not read: every reader treats it as too deep (a deny
 * rule or floor refuses it, every safety check applies), never as
 * harmless. */
#define OW_SHELL_MAX_NESTING 8

/* TRUE when @program (a basename) is a shell that runs `-c STRING`. */
gboolean ow_shell_is_shell (const char *program);

typedef enum {
  OW_SHELL_RUNS_STRING,   /* -c (alone or in a cluster, -ec): argv[at] is a command line */
  OW_SHELL_RUNS_SCRIPT,   /* argv[at] is a script file */
  OW_SHELL_RUNS_STDIN,    /* -s, `-`, or no operand: the program comes from stdin */
} OwShellRuns;

/* How a shell whose options start at argv[@start] (as from
 * ow_shell_command_program) is told what to run, reading its options as
 * bash does. With -c and nothing after it, argv[*at] is NULL. A word
 * before the -c whose value is only known when it runs (`sh $opts -c …`)
 * may be an option, nothing at all, or a script: the -c after it is
 * still found, and *@dynamic_at names that word (G_MAXUINT when there is
 * none) so a reader can judge it as a script too. */
OwShellRuns ow_shell_shell_runs (const OwShellCommand *cmd, guint start, guint *at, guint *dynamic_at);

/* The command line @cmd hands to a shell to run, behind any wrapper: the
 * STRING of `sh -c STRING` (any shell ow_shell_is_shell() knows), eval's
 * words joined by spaces, the -c / --command of su, runuser, script and
 * flock, env -S's string, watch's command, the command words of flock
 * FILE CMD… and of find -exec … ; (quoted, clauses joined by ;). NULL
 * when it runs none. *@at (may be NULL): the index in argv of the word
 * that holds it (of its first word when it is made of several). */
char *ow_shell_inner_command (const OwShellCommand *cmd, guint *at);

/* Splits @text like the shell would split a plain command (quotes removed);
 * NULL when it is not a plain command. Used to read rule patterns. */
GStrv    ow_shell_split_plain     (const char *text);

G_END_DECLS
