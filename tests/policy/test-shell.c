/* test-shell.c: the shell command reader, table-driven.
 *
 * Each case gives a command line, the exact feature bits, and the exact
 * rendering of every simple command the parse holds, in order:
 *
 *   [word] ...        argv after quote removal; [word]* when dynamic
 *   {NAME=value}      a leading assignment
 *   (FD OP TARGET)    a redirection; TARGET is "-" for an fd dup, a '!'
 *                     after it marks a write, «…» holds a here-doc body
 *   " ; "             between commands
 *
 * Run with OW_PRINT_CASES=1 to print what the reader gives for every
 * case (used when a case is added; each printed line is then checked by
 * hand against bash before it goes into the table).
 */
#include "policy/ow-shell.h"

#include <string.h>

#define F_CHAIN   OW_SHELL_CHAIN
#define F_PIPE    OW_SHELL_PIPE
#define F_REDIR   OW_SHELL_REDIRECT
#define F_SUBST   OW_SHELL_SUBSTITUTION
#define F_EXP     OW_SHELL_EXPANSION
#define F_HEREDOC OW_SHELL_HEREDOC
#define F_BG      OW_SHELL_BACKGROUND
#define F_SUB     OW_SHELL_SUBSHELL
#define F_NL      OW_SHELL_NEWLINE
#define F_GLOB    OW_SHELL_GLOB
#define F_ASSIGN  OW_SHELL_ASSIGNMENT
#define F_COMP    OW_SHELL_COMPOUND
#define F_ERR     OW_SHELL_PARSE_ERROR

/* One reading. */
typedef struct {
  const char *input;     /* the command line */
  guint       features;  /* exact OwShellFeature bits */
  const char *commands;  /* the rendering (see the top); NULL: not compared (parse errors) */
  const char *error;     /* with F_ERR: a phrase the error must contain */
} Case;

static const Case cases[] = {
  /* plain commands and words */
  { "git status", 0, "[git] [status]", NULL },
  { "  git   status  ", 0, "[git] [status]", NULL },
  { "git\tstatus", 0, "[git] [status]", NULL },
  { "ls", 0, "[ls]", NULL },
  { "git status -s", 0, "[git] [status] [-s]", NULL },
  { "git statusx", 0, "[git] [statusx]", NULL },
  { "echo 'a b'", 0, "[echo] [a b]", NULL },
  { "echo \"a b\"", 0, "[echo] [a b]", NULL },
  { "echo a\\ b", 0, "[echo] [a b]", NULL },
  { "echo 'it'\\''s'", 0, "[echo] [it's]", NULL },
  { "echo \"it's\"", 0, "[echo] [it's]", NULL },
  { "echo 'say \"hi\"'", 0, "[echo] [say \"hi\"]", NULL },
  { "echo \"say \\\"hi\\\"\"", 0, "[echo] [say \"hi\"]", NULL },
  { "echo \"a\\\\b\"", 0, "[echo] [a\\b]", NULL },
  { "echo \"a\\nb\"", 0, "[echo] [a\\nb]", NULL },
  { "echo 'a\\nb'", 0, "[echo] [a\\nb]", NULL },
  { "echo \"\\$HOME\"", 0, "[echo] [$HOME]", NULL },
  { "echo '$HOME'", 0, "[echo] [$HOME]", NULL },
  { "echo \\$HOME", 0, "[echo] [$HOME]", NULL },
  { "echo \"\\`x\\`\"", 0, "[echo] [`x`]", NULL },
  { "echo a\"b\"'c'd", 0, "[echo] [abcd]", NULL },
  { "echo ''", 0, "[echo] []", NULL },
  { "echo \"\"", 0, "[echo] []", NULL },
  { "echo $", 0, "[echo] [$]", NULL },
  { "echo a$", 0, "[echo] [a$]", NULL },
  { "echo \"$\"", 0, "[echo] [$]", NULL },
  { "echo \"a $ b\"", 0, "[echo] [a $ b]", NULL },
  { "echo a#b", 0, "[echo] [a#b]", NULL },
  { "echo a=b", 0, "[echo] [a=b]", NULL },
  { "echo \"#not a comment\"", 0, "[echo] [#not a comment]", NULL },
  { "echo \\#x", 0, "[echo] [#x]", NULL },
  { "echo }", 0, "[echo] [}]", NULL },
  { "echo {", 0, "[echo] [{]", NULL },
  { "echo {}", 0, "[echo] [{}]", NULL },
  { "echo a,b", 0, "[echo] [a,b]", NULL },
  { "echo then fi done", 0, "[echo] [then] [fi] [done]", NULL },
  { "\\if x", 0, "[if] [x]", NULL },
  { "'if' x", 0, "[if] [x]", NULL },
  { "[ -f x ]", 0, "[[] [-f] [x] []]", NULL },
  { "/usr/bin/git log", 0, "[/usr/bin/git] [log]", NULL },

  { "\\rm -rf x", 0, "[rm] [-rf] [x]", NULL },
  { "r\"m\" -rf x", 0, "[rm] [-rf] [x]", NULL },

  /* escaped operators stay in the word */
  { "a\\;b", 0, "[a;b]", NULL },
  { "echo a\\|b", 0, "[echo] [a|b]", NULL },
  { "echo a\\&\\&b", 0, "[echo] [a&&b]", NULL },
  { "echo \\>x", 0, "[echo] [>x]", NULL },
  { "echo \\<x", 0, "[echo] [<x]", NULL },
  { "echo \\(x\\)", 0, "[echo] [(x)]", NULL },
  { "echo 'a;b'", 0, "[echo] [a;b]", NULL },
  { "echo \"a|b\"", 0, "[echo] [a|b]", NULL },
  { "echo \"a && b > c\"", 0, "[echo] [a && b > c]", NULL },

  /* ANSI-C quoting */
  { "echo $'\\x3b'", 0, "[echo] [;]", NULL },
  { "echo $'a\\tb'", 0, "[echo] [a\tb]", NULL },
  { "echo $'\\101\\102'", 0, "[echo] [AB]", NULL },
  { "echo $'\\u00e9'", 0, "[echo] [\xc3\xa9]", NULL },
  { "echo $'it\\'s'", 0, "[echo] [it's]", NULL },
  { "echo $'\\e[0m'", 0, "[echo] [\033[0m]", NULL },
  { "echo $'\\q'", 0, "[echo] [\\q]", NULL },
  { "echo $'\\x'", 0, "[echo] [\\x]", NULL },
  { "echo $'\\cA'", 0, "[echo] [\001]", NULL },
  { "echo $\"x\"", 0, "[echo] [x]", NULL },
  { "r$'m' -rf x", 0, "[rm] [-rf] [x]", NULL },

  /* line continuation */
  { "git \\\nstatus", 0, "[git] [status]", NULL },
  { "gi\\\nt status", 0, "[git] [status]", NULL },
  { "echo \"a\\\nb\"", 0, "[echo] [ab]", NULL },
  { "echo 'a\\\nb'", 0, "[echo] [a\\\nb]", NULL },

  /* comments */
  { "echo ok #; rm -rf /", 0, "[echo] [ok]", NULL },
  { "# only a comment", 0, "", NULL },
  { "echo a;#x", F_CHAIN, "[echo] [a]", NULL },
  { "echo a # b\necho c", F_NL | F_CHAIN, "[echo] [a] ; [echo] [c]", NULL },
  { "", 0, "", NULL },

  /* chains, pipes, background, newlines */
  { "git status;rm -rf ~", F_CHAIN, "[git] [status] ; [rm] [-rf] [~]*", NULL },
  { "git status; rm -rf ~", F_CHAIN, "[git] [status] ; [rm] [-rf] [~]*", NULL },
  { "ls;", F_CHAIN, "[ls]", NULL },
  { "a && b", F_CHAIN, "[a] ; [b]", NULL },
  { "a || b", F_CHAIN, "[a] ; [b]", NULL },
  { "a&&b||c", F_CHAIN, "[a] ; [b] ; [c]", NULL },
  { "a | b", F_PIPE, "[a] ; [b]", NULL },
  { "a|b|c", F_PIPE, "[a] ; [b] ; [c]", NULL },
  { "a |& b", F_PIPE, "[a] ; [b]", NULL },
  { "a &", F_BG, "[a]", NULL },
  { "a & b", F_BG, "[a] ; [b]", NULL },
  { "a&b", F_BG, "[a] ; [b]", NULL },
  { "git\nstatus", F_NL | F_CHAIN, "[git] ; [status]", NULL },
  { "git status\n", F_NL, "[git] [status]", NULL },
  { "\n\ngit status", F_NL, "[git] [status]", NULL },
  { "a &&\nb", F_CHAIN | F_NL, "[a] ; [b]", NULL },
  { "a |\n b", F_PIPE | F_NL, "[a] ; [b]", NULL },
  { "git status\r", F_NL, "[git] [status\r]", NULL },
  { "echo \"a\nb\"", 0, "[echo] [a\nb]", NULL },
  { "! grep x y", F_COMP, "[grep] [x] [y]", NULL },
  { "! a | b", F_COMP | F_PIPE, "[a] ; [b]", NULL },

  /* redirections */
  { "echo hi > out.txt", F_REDIR, "[echo] [hi] (1 > out.txt!)", NULL },
  { "echo hi>out.txt", F_REDIR, "[echo] [hi] (1 > out.txt!)", NULL },
  { "echo hi >> log", F_REDIR, "[echo] [hi] (1 >> log!)", NULL },
  { "cat < in", F_REDIR, "[cat] (0 < in)", NULL },
  { "cmd 2> err", F_REDIR, "[cmd] (2 2> err!)", NULL },
  { "cmd 2>>err", F_REDIR, "[cmd] (2 2>> err!)", NULL },
  { "cmd 2>&1", F_REDIR, "[cmd] (2 2>& -)", NULL },
  { "cmd >&2", F_REDIR, "[cmd] (1 >& -)", NULL },
  { "cmd 3>&-", F_REDIR, "[cmd] (3 3>& -)", NULL },
  { "cmd 4<&0", F_REDIR, "[cmd] (4 4<& -)", NULL },
  { "cmd 1>&2-", F_REDIR, "[cmd] (1 1>& -)", NULL },
  { "cmd &> all", F_REDIR, "[cmd] (1 &> all!)", NULL },
  { "cmd &>> all", F_REDIR, "[cmd] (1 &>> all!)", NULL },
  { "cmd >& all", F_REDIR, "[cmd] (1 >& all!)", NULL },
  { "cmd >| x", F_REDIR, "[cmd] (1 >| x!)", NULL },
  { "cmd <> x", F_REDIR, "[cmd] (0 <> x!)", NULL },
  { "cmd 5<> x", F_REDIR, "[cmd] (5 5<> x!)", NULL },
  { "exec {fd}> x", F_REDIR, "[exec] (-1 {fd}> x!)", NULL },
  { "echo 2 > x", F_REDIR, "[echo] [2] (1 > x!)", NULL },
  { "echo a2>x", F_REDIR, "[echo] [a2] (1 > x!)", NULL },
  { "> x", F_REDIR, "(1 > x!)", NULL },
  { "cmd > \"$OUT\"", F_REDIR | F_EXP, "[cmd] (1 > $OUT!)", NULL },
  { "cmd > 'a b'", F_REDIR, "[cmd] (1 > a b!)", NULL },
  { "a > x | b < y", F_REDIR | F_PIPE, "[a] (1 > x!) ; [b] (0 < y)", NULL },
  { "echo > x hi", F_REDIR, "[echo] [hi] (1 > x!)", NULL },

  /* here-documents and here-strings */
  { "cat <<EOF\nhello $USER\nEOF", F_HEREDOC | F_REDIR | F_NL | F_EXP,
    "[cat] (0 << EOF «hello $USER\n»)", NULL },
  { "cat <<'EOF'\nhello $USER\nEOF", F_HEREDOC | F_REDIR | F_NL, "[cat] (0 << EOF «hello $USER\n»)",
    NULL },
  { "cat <<\"EOF\"\n$(rm x)\nEOF", F_HEREDOC | F_REDIR | F_NL, "[cat] (0 << EOF «$(rm x)\n»)",
    NULL },
  { "cat <<EOF\n$(rm -rf ~)\nEOF", F_HEREDOC | F_REDIR | F_NL | F_SUBST,
    "[cat] (0 << EOF «$(rm -rf ~)\n») ; [rm] [-rf] [~]*", NULL },
  { "cat <<-EOF\n\tindented\n\tEOF", F_HEREDOC | F_REDIR | F_NL, "[cat] (0 <<- EOF «indented\n»)",
    NULL },
  { "cat <<EOF > out\nbody\nEOF\necho done", F_HEREDOC | F_REDIR | F_NL | F_CHAIN,
    "[cat] (0 << EOF «body\n») (1 > out!) ; [echo] [done]", NULL },
  { "cat <<A <<B\na\nA\nb\nB", F_HEREDOC | F_REDIR | F_NL, "[cat] (0 << A «a\n») (0 << B «b\n»)",
    NULL },
  { "cat <<EOF | sh\nrm -rf /\nEOF", F_HEREDOC | F_REDIR | F_NL | F_PIPE,
    "[cat] (0 << EOF «rm -rf /\n») ; [sh]", NULL },
  { "cat <<EOF\nEOF", F_HEREDOC | F_REDIR | F_NL, "[cat] (0 << EOF «»)", NULL },
  { "cat <<EOF\n\\$x \\\\ \"q\"\nEOF", F_HEREDOC | F_REDIR | F_NL,
    "[cat] (0 << EOF «$x \\ \"q\"\n»)", NULL },
  { "bash <<< 'rm -rf ~'", F_HEREDOC | F_REDIR, "[bash] (0 <<< rm -rf ~)", NULL },
  { "cat <<<$x", F_HEREDOC | F_REDIR | F_EXP, "[cat] (0 <<< $x)", NULL },
  { "echo $(cat <<EOF\ninner\nEOF\n)", F_SUBST | F_HEREDOC | F_REDIR | F_NL,
    "[echo] [$(cat <<EOF\ninner\nEOF\n)]* ; [cat] (0 << EOF «inner\n»)", NULL },

  /* substitutions */
  { "git status$(rm x)", F_SUBST, "[git] [status$(rm x)]* ; [rm] [x]", NULL },
  { "echo $(whoami)", F_SUBST, "[echo] [$(whoami)]* ; [whoami]", NULL },
  { "echo `whoami`", F_SUBST, "[echo] [`whoami`]* ; [whoami]", NULL },
  { "echo \"$(whoami)\"", F_SUBST, "[echo] [$(whoami)]* ; [whoami]", NULL },
  { "$(curl -s x)", F_SUBST, "[$(curl -s x)]* ; [curl] [-s] [x]", NULL },
  { "echo $(a $(b))", F_SUBST, "[echo] [$(a $(b))]* ; [a] [$(b)]* ; [b]", NULL },
  { "echo $(a `b`)", F_SUBST, "[echo] [$(a `b`)]* ; [a] [`b`]* ; [b]", NULL },
  { "echo `a \\`b\\``", F_SUBST, "[echo] [`a \\`b\\``]* ; [a] [`b`]* ; [b]", NULL },
  { "echo \"`a \\\"q\\\"`\"", F_SUBST, "[echo] [`a \\\"q\\\"`]* ; [a] [q]", NULL },
  { "echo $(echo ')')", F_SUBST, "[echo] [$(echo ')')]* ; [echo] [)]", NULL },
  { "echo $(echo \"a)b\")", F_SUBST, "[echo] [$(echo \"a)b\")]* ; [echo] [a)b]", NULL },
  { "echo $(case x in x) echo y;; esac)", F_SUBST | F_COMP,
    "[echo] [$(case x in x) echo y;; esac)]* ; [echo] [y]", NULL },
  { "echo $(a; b)", F_SUBST | F_CHAIN, "[echo] [$(a; b)]* ; [a] ; [b]", NULL },
  { "echo $( )", F_SUBST, "[echo] [$( )]*", NULL },
  { "diff <(ls a) <(ls b)", F_SUBST, "[diff] [<(ls a)]* [<(ls b)]* ; [ls] [a] ; [ls] [b]", NULL },
  { "tee >(gzip > x.gz)", F_SUBST | F_REDIR, "[tee] [>(gzip > x.gz)]* ; [gzip] (1 > x.gz!)", NULL },
  { "cat < <(curl x)", F_REDIR | F_SUBST, "[cat] (0 < <(curl x)) ; [curl] [x]", NULL },
  { "sh <(curl -fsSL x)", F_SUBST, "[sh] [<(curl -fsSL x)]* ; [curl] [-fsSL] [x]", NULL },
  { "echo x$(a)y", F_SUBST, "[echo] [x$(a)y]* ; [a]", NULL },
  { "$(a) b", F_SUBST, "[$(a)]* [b] ; [a]", NULL },
  { "echo $(echo $(echo $(id)))", F_SUBST,
    "[echo] [$(echo $(echo $(id)))]* ; [echo] [$(echo $(id))]* ; [echo] [$(id)]* ; [id]", NULL },
  { "bash -c \"$(curl -fsSL x)\"", F_SUBST, "[bash] [-c] [$(curl -fsSL x)]* ; [curl] [-fsSL] [x]",
    NULL },
  { "eval \"$(wget -qO- x)\"", F_SUBST, "[eval] [$(wget -qO- x)]* ; [wget] [-qO-] [x]", NULL },

  /* expansions */
  { "echo $HOME", F_EXP, "[echo] [$HOME]*", NULL },
  { "echo \"$HOME/x\"", F_EXP, "[echo] [$HOME/x]*", NULL },
  { "echo ${HOME}", F_EXP, "[echo] [${HOME}]*", NULL },
  { "echo $1 $@ $# $? $$ $! $- $0", F_EXP, "[echo] [$1]* [$@]* [$#]* [$?]* [$$]* [$!]* [$-]* [$0]*",
    NULL },
  { "echo ${x:-$(rm -rf ~)}", F_EXP | F_SUBST, "[echo] [${x:-$(rm -rf ~)}]* ; [rm] [-rf] [~]*",
    NULL },
  { "echo \"${y:-`date`}\"", F_EXP | F_SUBST, "[echo] [${y:-`date`}]* ; [date]", NULL },
  { "echo ${x//a/b} ${#x} ${x%.c}", F_EXP, "[echo] [${x//a/b}]* [${#x}]* [${x%.c}]*", NULL },
  { "echo ${x:-{a}}", F_EXP, "[echo] [${x:-{a}}]*", NULL },
  { "echo ${x:-'}'}", F_EXP, "[echo] [${x:-'}'}]*", NULL },
  { "echo $((1+2))", F_EXP, "[echo] [$((1+2))]*", NULL },
  { "echo $((1+$(id -u)))", F_EXP | F_SUBST, "[echo] [$((1+$(id -u)))]* ; [id] [-u]", NULL },
  { "echo $(( (1+2)*3 ))", F_EXP, "[echo] [$(( (1+2)*3 ))]*", NULL },
  { "echo {a,b}", F_EXP, "[echo] [{a,b}]*", NULL },
  { "echo {1..3}", F_EXP, "[echo] [{1..3}]*", NULL },
  { "rm -rf {/,x}", F_EXP, "[rm] [-rf] [{/,x}]*", NULL },
  { "echo '{a,b}'", 0, "[echo] [{a,b}]", NULL },
  { "echo ~ ~/x ~root", 0, "[echo] [~]* [~/x]* [~root]*", NULL },
  { "echo '~' \"~\" a~", 0, "[echo] [~] [~] [a~]", NULL },

  /* globs */
  { "ls *.c", F_GLOB, "[ls] [*.c]*", NULL },
  { "rm -rf *", F_GLOB, "[rm] [-rf] [*]*", NULL },
  { "ls a?c", F_GLOB, "[ls] [a?c]*", NULL },
  { "ls [ab].c", F_GLOB, "[ls] [[ab].c]*", NULL },
  { "ls '*.c'", 0, "[ls] [*.c]", NULL },
  { "ls \"*\"", 0, "[ls] [*]", NULL },
  { "ls \\*", 0, "[ls] [*]", NULL },
  { "ls a[", 0, "[ls] [a[]", NULL },
  { "ls ~/*", F_GLOB, "[ls] [~/*]*", NULL },

  /* assignments */
  { "FOO=1 make", F_ASSIGN, "{FOO=1} [make]", NULL },
  { "A=1 B='x y' env", F_ASSIGN, "{A=1} {B=x y} [env]", NULL },
  { "FOO=1", F_ASSIGN, "{FOO=1}", NULL },
  { "FOO+=x cmd", F_ASSIGN, "{FOO+=x} [cmd]", NULL },
  { "a[1]=x", F_ASSIGN, "{a[1]=x}", NULL },
  { "x=(1 2 $(id)) cmd", F_ASSIGN | F_SUBST, "{x=(1 2 $(id))} [cmd] ; [id]", NULL },
  { "X=$(id) ls", F_ASSIGN | F_SUBST, "{X=$(id)} [ls] ; [id]", NULL },
  { "make FOO=1", 0, "[make] [FOO=1]", NULL },
  { "'A'=1 cmd", 0, "[A=1] [cmd]", NULL },
  { "1A=x", 0, "[1A=x]", NULL },
  { "A=*", F_ASSIGN, "{A=*}", NULL },

  /* subshells, groups and compound commands */
  { "(cd x && make)", F_SUB | F_CHAIN, "[cd] [x] ; [make]", NULL },
  { "{ a; b; }", F_SUB | F_CHAIN, "[a] ; [b]", NULL },
  { "{ cat f; }", F_SUB | F_CHAIN, "[cat] [f]", NULL },
  { "{ a; } 2>/dev/null", F_SUB | F_CHAIN | F_REDIR, "[a] ; (2 2> /dev/null!)", NULL },
  { "(a) | b", F_SUB | F_PIPE, "[a] ; [b]", NULL },
  { "( (a) )", F_SUB, "[a]", NULL },
  { "if true; then rm x; fi", F_COMP | F_CHAIN, "[true] ; [rm] [x]", NULL },
  { "if a; then b; elif c; then d; else e; fi", F_COMP | F_CHAIN, "[a] ; [b] ; [c] ; [d] ; [e]",
    NULL },
  { "if a\nthen b\nfi", F_COMP | F_NL, "[a] ; [b]", NULL },
  { "while read l; do echo \"$l\"; done < in", F_COMP | F_CHAIN | F_EXP | F_REDIR,
    "[read] [l] ; [echo] [$l]* ; (0 < in)", NULL },
  { "until a; do b; done", F_COMP | F_CHAIN, "[a] ; [b]", NULL },
  { "for f in *.c; do gcc $f; done > log", F_COMP | F_CHAIN | F_GLOB | F_EXP | F_REDIR,
    "[gcc] [$f]* ; (1 > log!)", NULL },
  { "for f in $(ls); do rm $f; done", F_COMP | F_CHAIN | F_SUBST | F_EXP, "[ls] ; [rm] [$f]*",
    NULL },
  { "for x; do :; done", F_COMP | F_CHAIN, "[:]", NULL },
  { "for ((i=0;i<3;i++)); do echo $i; done", F_COMP | F_CHAIN | F_EXP, "[echo] [$i]*", NULL },
  { "select x in a b; do break; done", F_COMP | F_CHAIN, "[break]", NULL },
  { "case $x in a|b) echo 1;; *) rm -rf y;; esac", F_COMP | F_EXP, "[echo] [1] ; [rm] [-rf] [y]",
    NULL },
  { "case x in (a) b;; esac", F_COMP, "[b]", NULL },
  { "case x in a) b;& c) d;;& esac", F_COMP, "[b] ; [d]", NULL },
  { "case x in esac", F_COMP, "", NULL },
  { "[[ -f x && $(cat f) == y ]] && echo", F_COMP | F_SUBST | F_CHAIN, "[cat] [f] ; [echo]", NULL },
  { "[[ $x =~ ^(a|b)$ ]]", F_COMP | F_EXP, "", NULL },
  { "[[ a < b ]]", F_COMP, "", NULL },
  { "(( x > 1 ))", F_COMP, "", NULL },
  { "(( $(rm x) ))", F_COMP | F_SUBST, "[rm] [x]", NULL },
  { "f() { rm -rf ~; }; f", F_COMP | F_SUB | F_CHAIN, "[rm] [-rf] [~]* ; [f]", NULL },
  { "function g { ls; }", F_COMP | F_SUB | F_CHAIN, "[ls]", NULL },
  { "function g() ( ls )", F_COMP | F_SUB, "[ls]", NULL },
  { "time (sleep 1)", F_COMP | F_SUB, "[sleep] [1]", NULL },
  { "time sleep 1", 0, "[time] [sleep] [1]", NULL },
  { "a && { b || c; }", F_CHAIN | F_SUB, "[a] ; [b] ; [c]", NULL },

  /* things that must not be read */
  { "echo \"unterminated", F_ERR, NULL, "double quote" },
  { "echo 'x", F_ERR, NULL, "single quote" },
  { "echo $(ls", F_ERR | F_SUBST, NULL, "not closed" },
  { "echo `ls", F_ERR, NULL, "not closed" },
  { "echo ${x", F_ERR | F_EXP, NULL, "not closed" },
  { "echo ${}", F_ERR | F_EXP, NULL, "bad substitution" },
  { "echo $((1+2)", F_ERR | F_EXP, NULL, "arithmetic" },
  { "echo $'\\x00'", F_ERR, NULL, "NUL" },
  { "echo a\\", F_ERR, NULL, "ends with a backslash" },
  { "echo 'x\ny'\\", F_ERR, NULL, "ends with a backslash" },
  { "echo $'\\0'", F_ERR, NULL, "NUL" },
  { "echo $'\\c@'", F_ERR, NULL, "NUL" },
  { "echo )", F_ERR, NULL, "unexpected ')'" },
  { "fi", F_ERR, NULL, "unexpected 'fi'" },
  { "a |", F_ERR | F_PIPE, NULL, "expected a command" },
  { "a &&", F_ERR | F_CHAIN, NULL, "expected a command" },
  { "; a", F_ERR, NULL, "expected a command" },
  { "a ;;", F_ERR, NULL, "unexpected ';;'" },
  { "| a", F_ERR, NULL, "expected a command" },
  { "a & & b", F_ERR | F_BG, NULL, "expected a command" },
  { "{ a }", F_ERR | F_SUB, NULL, "expected '}'" },
  { "if a; then b", F_ERR | F_COMP | F_CHAIN, NULL, "'fi'" },
  { "while a; do b", F_ERR | F_COMP | F_CHAIN, NULL, "'done'" },
  { "case x in a) b", F_ERR | F_COMP, NULL, "esac" },
  { "( )", F_ERR | F_SUB, NULL, "commands inside" },
  { "cat <<EOF", F_ERR | F_HEREDOC | F_REDIR, NULL, "never closed" },
  { "cat <<EOF\nbody", F_ERR | F_HEREDOC | F_REDIR | F_NL, NULL, "never closed" },
  { "echo >", F_ERR | F_REDIR, NULL, "a file after" },
  { "echo > ;", F_ERR | F_REDIR, NULL, "a file after" },
  { "cat <&file", F_ERR | F_REDIR, NULL, "file descriptor" },
  { "echo 99999999999>x", F_ERR, NULL, "too large" },
  { "[[ a ", F_ERR | F_COMP, NULL, "not closed" },
  { "[[ a; ]]", F_ERR | F_COMP, NULL, "';'" },
  { "echo @(a|b)", F_ERR, NULL, "unexpected '('" },
  { "echo a (b)", F_ERR, NULL, "unexpected '('" },
  { "coproc x", F_ERR, NULL, "coproc" },
  { "x=(1 2", F_ERR, NULL, "not closed" },
  { "echo x=(1)", F_ERR, NULL, "array" },
  { "for 1 in a; do b; done", F_ERR | F_COMP, NULL, "variable name" },
  { "cat <<EOF; echo $(\nx)\nbody\nEOF", F_ERR | F_HEREDOC | F_REDIR | F_CHAIN | F_SUBST | F_NL,
    NULL, "here-document" },
  { "echo $(cat <<EOF)", F_ERR | F_SUBST | F_HEREDOC | F_REDIR, NULL, "never closed" },
};

static char *
render (const OwShellParse *parse)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < parse->commands->len; i++)
    {
      const OwShellCommand *cmd = g_ptr_array_index (parse->commands, i);
      gboolean first = TRUE;

      if (i > 0)
        g_string_append (out, " ; ");
#define SEP() G_STMT_START { if (!first) g_string_append_c (out, ' '); first = FALSE; } G_STMT_END
      for (guint k = 0; cmd->assignments[k] != NULL; k++)
        {
          SEP ();
          g_string_append_printf (out, "{%s}", cmd->assignments[k]);
        }
      for (guint k = 0; cmd->argv[k] != NULL; k++)
        {
          SEP ();
          g_string_append_printf (out, "[%s]%s", cmd->argv[k], cmd->dynamic[k] ? "*" : "");
        }
      for (guint k = 0; k < cmd->redirects->len; k++)
        {
          const OwShellRedirect *r = g_ptr_array_index (cmd->redirects, k);

          SEP ();
          g_string_append_printf (out, "(%d %s %s%s", r->fd, r->op,
                                  r->target != NULL ? r->target : "-", r->writes ? "!" : "");
          if (r->body != NULL)
            g_string_append_printf (out, " «%s»", r->body);
          g_string_append_c (out, ')');
        }
#undef SEP
    }
  return g_string_free (out, FALSE);
}

static char *
escape (const char *s)
{
  return g_strescape (s, "\xc2\xab\xc2\xbb\xc3\xa9");
}

static void
test_table (void)
{
  gboolean print = g_getenv ("OW_PRINT_CASES") != NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *tc = &cases[i];
      g_autoptr(OwShellParse) parse = ow_shell_parse (tc->input);
      g_autofree char *got = render (parse);
      g_autofree char *in = escape (tc->input);

      if (print)
        {
          g_autofree char *shown = escape (got);

          g_print ("%-50s 0x%04x  %s%s%s\n", in, parse->features, shown,
                   parse->error != NULL ? "  ERROR: " : "",
                   parse->error != NULL ? parse->error : "");
          continue;
        }
      if (parse->features != tc->features)
        g_error ("case %u \"%s\": features 0x%x, expected 0x%x (error: %s)", i, in, parse->features,
                 tc->features, parse->error != NULL ? parse->error : "none");
      if (tc->features & F_ERR)
        {
          g_assert_nonnull (parse->error);
          if (tc->error != NULL && strstr (parse->error, tc->error) == NULL)
            g_error ("case %u \"%s\": error \"%s\" does not mention \"%s\"", i, in, parse->error,
                     tc->error);
          g_assert_false (ow_shell_parse_is_plain (parse, TRUE));
        }
      else
        {
          g_assert_null (parse->error);
        }
      if (tc->commands != NULL && strcmp (got, tc->commands) != 0)
        {
          g_autofree char *a = escape (got), *b = escape (tc->commands);

          g_error ("case %u \"%s\":\n  got      %s\n  expected %s", i, in, a, b);
        }
    }
}

/* Which parses are plain, and so may be matched by a rule. */
static void
test_plain (void)
{
  static const struct {
    const char *input;        /* the command */
    gboolean    plain;        /* without assignments allowed */
    gboolean    plain_assign; /* with them */
  } table[] = {
    { "git status", TRUE, TRUE },
    { "git status -s", TRUE, TRUE },
    { "echo 'a;b'", TRUE, TRUE },
    { "cat ~/notes.txt", TRUE, TRUE },
    { "FOO=1 make", FALSE, TRUE },
    { "FOO=1", FALSE, FALSE },
    { "git status;rm -rf ~", FALSE, FALSE },
    { "git status$(rm x)", FALSE, FALSE },
    { "git\nstatus", FALSE, FALSE },
    { "git status\n", FALSE, FALSE },
    { "git status > x", FALSE, FALSE },
    { "git status | cat", FALSE, FALSE },
    { "git status &", FALSE, FALSE },
    { "ls *.c", FALSE, FALSE },
    { "echo $HOME", FALSE, FALSE },
    { "(git status)", FALSE, FALSE },
    { "{ git status; }", FALSE, FALSE },
    { "! git status", FALSE, FALSE },
    { "echo \"unterminated", FALSE, FALSE },
    { "", FALSE, FALSE },
    { "# comment", FALSE, FALSE },
    { "> x", FALSE, FALSE },
    { "echo ok #; rm -rf /", TRUE, TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_autoptr(OwShellParse) parse = ow_shell_parse (table[i].input);

      if (ow_shell_parse_is_plain (parse, FALSE) != table[i].plain
          || ow_shell_parse_is_plain (parse, TRUE) != table[i].plain_assign)
        g_error ("\"%s\": plain %d/%d, expected %d/%d", table[i].input,
                 ow_shell_parse_is_plain (parse, FALSE), ow_shell_parse_is_plain (parse, TRUE),
                 table[i].plain, table[i].plain_assign);
    }
  g_assert_false (ow_shell_parse_is_plain (NULL, TRUE));
}

static void
test_prefix (void)
{
  static const struct {
    const char *command;  /* what the model wrote */
    const char *rule;     /* a rule pattern */
    gboolean    match;    /* whether the rule covers it */
  } table[] = {
    { "git status", "git status", TRUE },
    { "git status -s", "git status", TRUE },
    { "git statusx", "git status", FALSE },
    { "git push", "git status", FALSE },
    { "lsof", "ls", FALSE },
    { "ls -la", "ls", TRUE },
    { "git  status", "git status", TRUE },
    { "'git' \"status\"", "git status", TRUE },
    { "git", "git status", FALSE },
    { "npm run test:unit", "npm run 'test:unit'", TRUE },
    { "npm run test", "npm run test:unit", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_auto(GStrv) argv = ow_shell_split_plain (table[i].command);
      g_auto(GStrv) prefix = ow_shell_split_plain (table[i].rule);

      g_assert_nonnull (argv);
      g_assert_nonnull (prefix);
      if (ow_shell_argv_has_prefix ((const char *const *) argv, (const char *const *) prefix)
          != table[i].match)
        g_error ("\"%s\" against \"%s\": expected %d", table[i].command, table[i].rule,
                 table[i].match);
    }
  {
    const char *empty[] = { NULL };
    const char *argv[] = { "ls", NULL };

    /* an empty rule matches nothing */
    g_assert_false (ow_shell_argv_has_prefix (argv, empty));
    g_assert_false (ow_shell_argv_has_prefix (NULL, argv));
    g_assert_false (ow_shell_argv_has_prefix (argv, NULL));
  }
  g_assert_null (ow_shell_split_plain ("git status; ls"));
  g_assert_null (ow_shell_split_plain ("'unbalanced"));
  g_assert_null (ow_shell_split_plain ("A=1 ls"));
  g_assert_null (ow_shell_split_plain (NULL));
}

static void
test_program (void)
{
  static const struct {
    const char *command;   /* a simple command */
    const char *program;   /* what it runs, or NULL */
    guint       args;      /* where that program's arguments start */
  } table[] = {
    { "rm -rf x", "rm", 1 },
    { "/bin/rm -rf x", "rm", 1 },
    { "sudo rm -rf /", "rm", 2 },
    { "sudo -u root -E rm x", "rm", 5 },
    { "sudo --user=root rm x", "rm", 3 },
    { "sudo -- rm x", "rm", 3 },
    { "sudo FOO=1 rm x", "rm", 3 },
    { "env A=1 B=2 rm x", "rm", 4 },
    { "env -i -u PATH rm x", "rm", 5 },
    { "env -C / rm x", "rm", 4 },
    { "env -S 'rm -rf /'", "env", 1 },
    { "env", "env", 1 },
    { "nice -n 10 rm x", "rm", 4 },
    { "nice -10 rm x", "rm", 3 },
    { "nohup rm x", "rm", 2 },
    { "time rm x", "rm", 2 },
    { "time -p rm x", "rm", 3 },
    { "time -o out -f %e rm x", "rm", 6 },
    { "timeout 10 rm x", "rm", 3 },
    { "timeout -s KILL 10s rm x", "rm", 5 },
    { "timeout --signal=KILL 10 rm x", "rm", 4 },
    { "stdbuf -oL rm x", "rm", 3 },
    { "stdbuf -o L rm x", "rm", 4 },
    { "xargs rm", "rm", 2 },
    { "xargs -0 -n 1 rm -f", "rm", 5 },
    { "xargs -I {} rm {}", "rm", 4 },
    { "xargs", "xargs", 1 },
    { "command rm x", "rm", 2 },
    { "command -v rm", "command", 1 },
    { "exec rm x", "rm", 2 },
    { "exec -a name rm x", "rm", 4 },
    { "builtin echo x", "echo", 2 },
    { "busybox rm -rf /", "rm", 2 },
    { "sudo nice nohup env A=1 timeout 5 /usr/bin/rm -rf /", "rm", 8 },
    { "strace -o log rm x", "rm", 4 },
    { "ionice -c 3 rm x", "rm", 4 },
    { "sudo", "sudo", 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_autoptr(OwShellParse) parse = ow_shell_parse (table[i].command);
      const OwShellCommand *cmd;
      const char *program;
      guint args = 999;

      g_assert_cmpuint (parse->commands->len, ==, 1);
      cmd = g_ptr_array_index (parse->commands, 0);
      program = ow_shell_command_program (cmd, &args);
      if (g_strcmp0 (program, table[i].program) != 0 || args != table[i].args)
        g_error ("\"%s\": program %s at %u, expected %s at %u", table[i].command, program, args,
                 table[i].program, table[i].args);
    }
  g_assert_null (ow_shell_command_program (NULL, NULL));
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse ("> x");
    guint args = 7;

    g_assert_null (ow_shell_command_program (g_ptr_array_index (parse->commands, 0), &args));
    g_assert_cmpuint (args, ==, 0);
  }
}

/* Hostile sizes: every input is refused or read in bounded time. */
/* The one descent into sh -c / eval strings that rules, floors and the
 * safety checks share. */
static void
test_inner (void)
{
  const struct {
    const char *line;
    const char *inner;   /* NULL: runs no inner command line */
  } table[] = {
    { "sh -c 'rm x'", "rm x" },
    { "bash -ec 'rm x' name", "rm x" },
    { "zsh -o errexit -c 'rm x'", "rm x" },
    { "dash --norc -c -- 'rm x'", "rm x" },
    { "busybox sh -c 'rm x'", "rm x" },
    { "sudo -u root /bin/ksh -c 'rm x'", "rm x" },
    { "env A=1 fish -c 'rm x'", "rm x" },
    { "tcsh -c 'rm x'", "rm x" },
    { "eval rm x", "rm x" },
    { "command eval 'rm x;' ls", "rm x; ls" },
    /* a word only known when it runs, then -c: the string is still read */
    { "sh $opts -c 'rm x'", "rm x" },
    /* not a command line: a script, stdin, a -c that belongs to the script,
     * a program that is not a shell */
    { "sh script.sh -c 'rm x'", NULL },
    { "bash -s", NULL },
    { "sh -c", NULL },
    { "eval", NULL },
    { "python3 -c 'rm x'", NULL },
    { "echo sh -c 'rm x'", NULL },
    /* other programs that run a command line (words they run as they
     * are come back quoted) */
    { "su -c 'rm x'", "rm x" },
    { "su - root -lc 'rm x'", "rm x" },
    { "runuser -u nobody --command='rm x'", "rm x" },
    { "script -q -c 'rm x' /dev/null", "rm x" },
    { "flock /tmp/l -c 'rm x'", "rm x" },
    { "flock -w 5 /tmp/l rm -f 'a b'", "'rm' '-f' 'a b'" },
    { "watch -n 1 rm x", "rm x" },
    { "watch -x rm 'a b'", "'rm' 'a b'" },
    { "env -S 'rm x'", "rm x" },
    { "env --split-string='rm x'", "rm x" },
    { "find . -name '*.o' -exec rm {} + -o -execdir sh -c 'ls' \\;", "'rm' '{}' ; 'sh' '-c' 'ls'" },
    { "su root", NULL },
    { "script log", NULL },
    { "flock /tmp/l", NULL },
    { "find . -name x", NULL },
    { "env A=1", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_autoptr(OwShellParse) parse = ow_shell_parse (table[i].line);
      g_autofree char *inner = NULL;

      g_assert_cmpuint (parse->commands->len, ==, 1);
      inner = ow_shell_inner_command (g_ptr_array_index (parse->commands, 0), NULL);
      if (g_strcmp0 (inner, table[i].inner) != 0)
        g_error ("%s: inner command %s, want %s", table[i].line, inner, table[i].inner);
    }

  g_assert_true (ow_shell_is_shell ("mksh"));
  g_assert_true (ow_shell_is_shell ("rbash"));
  g_assert_false (ow_shell_is_shell ("shx"));
  g_assert_false (ow_shell_is_shell ("python"));

  {
    g_autoptr(OwShellParse) parse = ow_shell_parse ("sh $x -c 'ls'");
    const OwShellCommand *cmd = g_ptr_array_index (parse->commands, 0);
    guint at, dynamic_at;

    g_assert_cmpint (ow_shell_shell_runs (cmd, 1, &at, &dynamic_at), ==, OW_SHELL_RUNS_STRING);
    g_assert_cmpuint (at, ==, 3);
    g_assert_cmpuint (dynamic_at, ==, 1);
  }
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse ("sh $script arg");
    const OwShellCommand *cmd = g_ptr_array_index (parse->commands, 0);
    guint at, dynamic_at;

    g_assert_cmpint (ow_shell_shell_runs (cmd, 1, &at, &dynamic_at), ==, OW_SHELL_RUNS_SCRIPT);
    g_assert_cmpuint (at, ==, 1);
    g_assert_cmpuint (dynamic_at, ==, G_MAXUINT);
  }
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse ("bash -x - arg");
    const OwShellCommand *cmd = g_ptr_array_index (parse->commands, 0);
    guint at, dynamic_at;

    g_assert_cmpint (ow_shell_shell_runs (cmd, 1, &at, &dynamic_at), ==, OW_SHELL_RUNS_STDIN);
  }
}

static void
test_limits (void)
{
  g_autoptr(GString) big = g_string_new (NULL);
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autoptr(GString) backs = g_string_new ("echo ");
  g_autoptr(GString) many = g_string_new (NULL);

  /* over 1 MiB */
  while (big->len <= 1024 * 1024)
    g_string_append (big, "echo aaaaaaaaaaaaaaa; ");
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse (big->str);

    g_assert_true (parse->features & OW_SHELL_PARSE_ERROR);
    g_assert_nonnull (strstr (parse->error, "longer than"));
    g_assert_cmpuint (parse->commands->len, ==, 0);
  }
  /* nesting past the limit */
  for (guint i = 0; i < 200; i++)
    g_string_append (deep, "$(");
  g_string_append (deep, "x");
  for (guint i = 0; i < 200; i++)
    g_string_append (deep, ")");
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse (deep->str);

    g_assert_true (parse->features & OW_SHELL_PARSE_ERROR);
    g_assert_nonnull (strstr (parse->error, "deep"));
  }
  g_string_truncate (deep, 0);
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '(');
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse (deep->str);

    g_assert_true (parse->features & OW_SHELL_PARSE_ERROR);
  }
  g_string_truncate (deep, 0);
  for (guint i = 0; i < 100000; i++)
    g_string_append (deep, "{ ");
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse (deep->str);

    g_assert_true (parse->features & OW_SHELL_PARSE_ERROR);
  }
  /* nested backquotes double their escapes at each level, so the size
   * limit bounds them long before the depth limit; twelve levels are
   * read down to the innermost command */
  {
    g_autofree char *inner = g_strdup ("id");

    for (guint level = 0; level < 12; level++)
      {
        GString *escaped = g_string_new ("echo `");

        for (const char *ch = inner; *ch != '\0'; ch++)
          {
            if (*ch == '\\' || *ch == '`')
              g_string_append_c (escaped, '\\');
            g_string_append_c (escaped, *ch);
          }
        g_string_append_c (escaped, '`');
        g_free (inner);
        inner = g_string_free (escaped, FALSE);
      }
    g_string_append (backs, inner + strlen ("echo "));
  }
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse (backs->str);
    const OwShellCommand *last;

    g_assert_null (parse->error);
    g_assert_cmpuint (parse->commands->len, ==, 13);
    last = g_ptr_array_index (parse->commands, 12);
    g_assert_cmpstr (last->argv[0], ==, "id");
  }
  /* many commands just under the size limit are read */
  for (guint i = 0; i < 20000; i++)
    g_string_append (many, "a;");
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse (many->str);

    g_assert_null (parse->error);
    g_assert_cmpuint (parse->commands->len, ==, 20000);
  }
  /* and too many words is an error, not an allocation storm */
  g_string_truncate (many, 0);
  while (many->len < 1000 * 1000)
    g_string_append (many, "a ");
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse (many->str);

    g_assert_true (parse->features & OW_SHELL_PARSE_ERROR);
    g_assert_nonnull (strstr (parse->error, "words"));
  }
  {
    g_autoptr(OwShellParse) parse = ow_shell_parse (NULL);

    g_assert_true (parse->features & OW_SHELL_PARSE_ERROR);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/policy/shell/table", test_table);
  g_test_add_func ("/ow/policy/shell/plain", test_plain);
  g_test_add_func ("/ow/policy/shell/prefix", test_prefix);
  g_test_add_func ("/ow/policy/shell/program", test_program);
  g_test_add_func ("/ow/policy/shell/inner", test_inner);
  g_test_add_func ("/ow/policy/shell/limits", test_limits);
  return g_test_run ();
}
