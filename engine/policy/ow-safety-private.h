/* ow-safety-private.h: what the safety checks' files share (see ow-safety.c).
 *
 * Check holds one call's state; a Target is one path argument resolved;
 * a Run is one simple command seen through its wrappers. Functions are
 * documented where they are defined.
 */
#pragma once

#include <string.h>

#include "policy/ow-safety.h"

G_BEGIN_DECLS

/* How many sh -c / eval / here-doc levels are followed (the limit the
 * deny rules and floors share); deeper is treated like a command that
 * cannot be read. */
#define SAFETY_MAX_DEPTH   OW_SHELL_MAX_NESTING
/* Linux gives up after 40 symlinks in one lookup; so do we. */
#define SAFETY_MAX_LINKS   40
/* Longer paths are not resolved (and count as unknown). */
#define SAFETY_MAX_PATH    8192
/* Paths with more components are not resolved (and count as unknown). */
#define SAFETY_MAX_PARTS   256
/* Reasons kept per call; the check bits are always complete. */
#define SAFETY_MAX_REASONS 24
/* Folders a relative path is judged against after cd's; past this the
 * shell's folder counts as unknown. */
#define SAFETY_MAX_CWDS    8
/* Forms one path argument may take (every cd candidate times lexical,
 * realpath and kernel walk, twice for a ".*" glob). */
#define SAFETY_MAX_FORMS   64
/* Simple commands judged per call (find -exec and sh -c multiply them);
 * past this every check applies. */
#define SAFETY_MAX_COMMANDS 20000

#define SAFETY_ALL (OW_SAFETY_DOWNLOADED_EXEC | OW_SAFETY_WRITE_OUTSIDE | OW_SAFETY_PROTECTED_FILE \
                    | OW_SAFETY_PERSISTENT_AUTHORITY | OW_SAFETY_RECURSIVE_DELETE \
                    | OW_SAFETY_CREDENTIAL_READ | OW_SAFETY_OPAQUE_CODE)

/* Everything one call's checks share. */
typedef struct {
  OwSafetyResult *out;         /* where findings go (borrowed) */
  GPtrArray      *roots;       /* char*: the session's folders, as given and canonical */
  GArray         *writable;    /* gboolean, parallel to roots */
  GPtrArray      *homes;       /* char*: the home folder, as given and canonical (may be empty) */
  GPtrArray      *agent_dirs;  /* char*: OpenWorker's folders, as given and canonical */
  const char *const *env;      /* the shell's starting environment (borrowed), or NULL */
  GPtrArray      *temp_dirs;   /* char*: shared scratch folders whose contents do not count */
  GPtrArray      *downloaded;  /* char*: canonical files the session (or this command) downloaded */
  GPtrArray      *cwds;        /* char*: every folder a relative path may resolve against */
  gboolean        cwd_unknown; /* a cd went somewhere that cannot be known */
  gboolean        home_unknown;/* the command assigns HOME, so ~ is not known */
  gboolean        file_tool;   /* judging a file tool: its paths are literal except a leading ~ */
  guint           depth;       /* sh -c / eval nesting */
  gboolean        saw_pipe;    /* some level of the command has a pipe */
  char           *downloader;  /* the first downloading program seen (owned), or NULL */
  char           *stdin_exec;  /* the first interpreter seen running its stdin (owned), or NULL */
  GPtrArray      *code_words;  /* const char*: words of the current command already read as code
                                * (made on first use) */
  guint           budget;      /* simple commands still to judge (SAFETY_MAX_COMMANDS) */
  GHashTable     *vars;        /* char* name → GPtrArray of char* values assigned in the
                                * command (made on first use) */
} Check;

/* A few distinct paths, kept on the stack: every argument of every
 * command is resolved, so this avoids allocating lists for each. */
typedef struct {
  char    *item[SAFETY_MAX_FORMS];  /* the paths (owned) */
  guint    len;                     /* how many */
  gboolean full;                    /* one did not fit (the path then counts as unknown) */
} Forms;

/* One path argument, resolved. */
typedef struct {
  const char *written;   /* the word as the command has it (borrowed) */
  gboolean    unknown;   /* its value is only known when the command runs */
  char       *prefix;    /* unknown: the absolute text its value starts with, or NULL */
  Forms       real;      /* where it really lands (realpath prefix, kernel walk) */
  Forms       names;     /* the real forms plus the lexical one, for name patterns */
  gboolean    glob;      /* real/names are the folder a glob expands in */
  gboolean    broad;     /* that glob matches everything in the folder */
  Forms       patterns;  /* glob: the absolute pattern (lexical) */
} Target;

/* A place is a list of path components matched anywhere in a path: a
 * folder matches itself and everything below; a file only itself. */
typedef struct {
  const char *const parts[4];  /* the components, NULL-terminated */
  gboolean          folder;    /* also matches what is below */
  gboolean          home_only; /* only directly under a home folder */
  const char       *what;      /* how a reason names it */
} Place;

/* The components of a normalized absolute path, as slices of it (these
 * checks run on every word of every command: no allocation). */
typedef struct {
  const char *path;                         /* the path (borrowed) */
  const char *part[SAFETY_MAX_PARTS + 1];   /* where each component starts */
  gsize       len[SAFETY_MAX_PARTS + 1];    /* its length */
  guint       n;                            /* how many (the rest of a longer path is ignored) */
} Parts;

/* How one command's own options are read. */
typedef struct {
  const char        *with_arg;       /* short options that take a value */
  const char        *optional_arg;   /* short options whose value is the rest of their cluster */
  const char *const *long_with_arg;  /* long options that take the next word unless --opt=value */
  gboolean           posix;          /* options end at the first operand */
} OptSpec;

/* One option as written. */
typedef struct {
  char        sh;        /* the short option, or 0 for a long one */
  const char *lng;       /* the long option's name (borrowed, lng_len bytes), or NULL */
  gsize       lng_len;   /* its length */
  const char *value;     /* its value (borrowed), or NULL */
  gboolean    dynamic;   /* the value comes from a dynamic word */
} Opt;

/* A command's words split into options and operands. */
typedef struct {
  const char *const *argv;  /* the words (borrowed) */
  const gboolean    *dyn;   /* which are dynamic (borrowed) */
  GArray            *opts;  /* Opt */
  GArray            *ops;   /* guint: indexes of the operands */
} Args;

/* An interpreter of another language: how it is given code. */
typedef struct {
  const char        *name;        /* the program */
  const char        *code_short;  /* short options whose value is code */
  const char *const  code_long[3];/* long options whose value is code */
  const char        *with_arg;    /* other short options that take a value */
  const char        *inplace;     /* short options that edit files in place (perl/ruby -i) */
} Interp;

/* One simple command seen through its wrappers. */
typedef struct {
  const OwShellCommand *cmd;    /* the command (borrowed) */
  const char *const    *argv;   /* its words */
  const gboolean       *dyn;    /* which are dynamic */
  const char           *prog;   /* the program it runs (basename) */
  guint                 at;     /* index of the program's word */
  guint                 start;  /* index of the program's first argument */
  gboolean              more;   /* xargs passes it more arguments at run time */
} Run;

/* ow-safety.c */
void ow_safety_finding (Check *c, OwSafetyCheck check, const char *format, ...)
    G_GNUC_PRINTF (3, 4);

/* ow-safety-paths.c */
gboolean ow_safety_path_within (const char *path, const char *dir);
gboolean ow_safety_path_below (const char *path, const char *dir);
void ow_safety_add_unique (GPtrArray *list, char *owned);
void ow_safety_forms_add (Forms *forms, char *owned);
void ow_safety_forms_clear (Forms *forms);
char *ow_safety_normalize (const char *path);
char *ow_safety_path_join (const char *dir, const char *rel);
char *ow_safety_realpath_prefix (const char *path);
gboolean ow_safety_add_forms (const char *abs, Forms *real, Forms *names);
void ow_safety_add_folder (GPtrArray *list, const char *dir);
char *ow_safety_display (const Check *c, const char *path);
gboolean ow_safety_in_writable_root (const Check *c, const char *path);
gboolean ow_safety_is_device (const char *path);
gboolean ow_safety_is_scratch (const Check *c, const char *path);
void ow_safety_split_parts (const char *path, Parts *out);
char *ow_safety_credential_kind (const Check *c, const char *path);
gboolean ow_safety_location_at (const Check *c, guint index, char *buf, gsize size);
const char *ow_safety_protected_kind (const Check *c, const char *path);
const char *ow_safety_persistent_kind (const Check *c, const char *path);

/* ow-safety-words.c */
void ow_safety_target_clear (Target *t);
void ow_safety_note_assignment (Check *c, const char *assignment);
char *ow_safety_substitute_vars (const Check *c, const char *word);
void ow_safety_target_init (Check *c, Target *t, const char *word, gboolean dynamic);
void ow_safety_judge_write_target (Check *c, const Target *t, const char *verb);
void ow_safety_judge_write (Check *c, const char *word, gboolean dynamic, const char *verb);
const char *ow_safety_delete_scope (const Check *c, const char *f, gboolean find_start);
void ow_safety_judge_delete (Check *c, const char *word, gboolean dynamic, gboolean recursive,
                             gboolean find_start);
void ow_safety_judge_read (Check *c, const char *word, gboolean dynamic, gboolean recursive);
void ow_safety_note_code_word (Check *c, const char *word);
void ow_safety_judge_code_text (Check *c, const char *code, const char *language);

/* ow-safety-programs.c */
gboolean ow_safety_name_in (const char *name, const char *const *list);
extern const char *const ow_safety_downloaders[];
gboolean ow_safety_is_python (const char *prog);
extern const char *const ow_safety_not_readers[];
void ow_safety_args_parse (Args *a, const char *const *argv, const gboolean *dyn, guint start,
                           const OptSpec *spec);
void ow_safety_args_clear (Args *a);
gboolean ow_safety_opt_is (const Opt *o, char sh, const char *lng);
gboolean ow_safety_args_has (const Args *a, char sh, const char *lng);
const Opt *ow_safety_args_value (const Args *a, char sh, const char *lng);
guint ow_safety_n_ops (const Args *a);
const char *ow_safety_op (const Args *a, guint k);
gboolean ow_safety_op_dyn (const Args *a, guint k);
char *ow_safety_join_words (const char *const *argv, guint from);
char *ow_safety_runs_download (const char *text);
void ow_safety_check_code (Check *c, const char *code, const char *what);
void ow_safety_check_exec_file (Check *c, const char *word, gboolean dynamic, const char *how);
void ow_safety_note_stdin_exec (Check *c, const char *prog);
void ow_safety_check_shell_program (Check *c, const OwShellCommand *cmd, const char *prog,
                                    guint start);
void ow_safety_check_python (Check *c, const OwShellCommand *cmd, const char *prog, guint start);
void ow_safety_check_interp (Check *c, const OwShellCommand *cmd, const Interp *in, guint start);
const Interp *ow_safety_find_interp (const char *prog);
gboolean ow_safety_mode_sets_id (const char *mode);
gboolean ow_safety_is_url (const char *word);
char *ow_safety_url_basename (const char *url, const char *fallback);
extern const OptSpec ow_safety_curl_spec;
extern const OptSpec ow_safety_wget_spec;
extern const OptSpec ow_safety_aria_spec;
void ow_safety_download_targets (const OwShellCommand *cmd, const char *prog, guint start,
                                 GPtrArray *out);

/* ow-safety-command.c */
gboolean ow_safety_run_has_flag (const Run *r, char flag, const char *long_flag);
void ow_safety_each_write (Check *c, const Args *a, guint from, const char *verb);
void ow_safety_more_targets (Check *c, const Run *r, const char *verb, gboolean deletes,
                             gboolean recursive);
void ow_safety_check_words (Check *c, char **argv, const gboolean *dyn, guint n);
gboolean ow_safety_looks_dynamic (const char *word);
void ow_safety_check_parsed (Check *c, const OwShellParse *parse, const char *what);
void ow_safety_check_shell (Check *c, const char *command, const char *what);
/* TRUE when the @n names at @first, @stride bytes apart (a table whose
 * rows start with their name), are in strictly increasing strcmp order:
 * sorted for bsearch, no duplicates. Otherwise *@bad (may be NULL) is the
 * first name out of place. */
gboolean ow_safety_names_sorted (const void *first, gsize n, gsize stride, const char **bad);
/* The same for the table of program checkers (ow-safety-command.c). */
gboolean ow_safety_programs_sorted (const char **bad);

/* ow-safety-files.c */
void ow_safety_check_rm (Check *c, const Run *r);
void ow_safety_check_find (Check *c, const Run *r);
void ow_safety_check_copy (Check *c, const Run *r);
void ow_safety_check_chmod (Check *c, const Run *r);
void ow_safety_check_sed (Check *c, const Run *r);
void ow_safety_check_awk (Check *c, const Run *r);
void ow_safety_check_tar (Check *c, const Run *r);
GPtrArray *ow_safety_push_cwd (Check *c, const char *dir, gboolean dynamic,
                               gboolean *saved_unknown);
void ow_safety_pop_cwd (Check *c, GPtrArray *saved, gboolean saved_unknown);
void ow_safety_check_cd (Check *c, const Run *r);
void ow_safety_check_unlink (Check *c, const Run *r);
void ow_safety_check_create (Check *c, const Run *r);
void ow_safety_check_dd (Check *c, const Run *r);
void ow_safety_check_zip (Check *c, const Run *r);
void ow_safety_check_unzip (Check *c, const Run *r);
void ow_safety_check_compiler (Check *c, const Run *r);
void ow_safety_check_sort (Check *c, const Run *r);
void ow_safety_check_uniq (Check *c, const Run *r);
void ow_safety_check_openssl (Check *c, const Run *r);
void ow_safety_check_editor (Check *c, const Run *r);

/* ow-safety-code.c */
void ow_safety_check_git (Check *c, const Run *r);
gboolean ow_safety_check_authority (Check *c, const Run *r);
void ow_safety_check_powershell (Check *c, const Run *r);
void ow_safety_check_transfer (Check *c, const Run *r);
void ow_safety_check_container (Check *c, const Run *r);
void ow_safety_check_deno (Check *c, const Run *r);
void ow_safety_check_eval (Check *c, const Run *r);
void ow_safety_check_source (Check *c, const Run *r);
void ow_safety_check_su (Check *c, const Run *r);
void ow_safety_check_watch (Check *c, const Run *r);
void ow_safety_check_trap (Check *c, const Run *r);
void ow_safety_check_alias (Check *c, const Run *r);
void ow_safety_check_env (Check *c, const Run *r);
void ow_safety_check_cmd_exe (Check *c, const Run *r);
void ow_safety_check_ssh (Check *c, const Run *r);
void ow_safety_check_download (Check *c, const Run *r);
void ow_safety_check_echo (Check *c, const Run *r);

G_END_DECLS
