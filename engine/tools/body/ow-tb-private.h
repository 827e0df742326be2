/* ow-tb-private.h: what the tool-body files share with each other.
 *
 * The public contract is ow-tb.h. This header holds the plumbing behind
 * it: allocation that aborts instead of returning NULL (like g_malloc, so
 * no call site needs an out-of-memory branch), UTF-8 helpers, a small
 * JSON object writer for results, argument extraction, path confinement,
 * file helpers shared by the file and patch tools, the process runner
 * used by grep and git, and one entry point per tool. Plain C over libc.
 */
#pragma once

#include "ow-tb.h"

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>

/* Results that carry command output keep at most this many characters. */
#define OW_TB_OUTPUT_LIMIT 20000

/* The folders list_files never descends into (inventory §2.2). */
extern const char *const ow_tb_list_ignored_dirs[];
/* The folders grep never descends into (inventory §2.2, a longer list). */
extern const char *const ow_tb_grep_ignored_dirs[];

/* ---- memory and strings (ow-tb-buf.c) ---- */

void  *ow_tb_xmalloc       (size_t size);
void  *ow_tb_xcalloc       (size_t n, size_t size);
void  *ow_tb_xrealloc      (void *ptr, size_t size);
char  *ow_tb_xstrdup       (const char *str);
char  *ow_tb_xstrndup      (const char *str, size_t len);
char  *ow_tb_strdup_printf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
/* Returns buf->data and leaves @buf empty and reusable; the caller frees. */
char  *ow_tb_buf_steal     (OwTbBuf *buf);
/* Thread-safe strerror. */
const char *ow_tb_strerror (int errnum, char *scratch, size_t scratch_size);
/* Milliseconds on the monotonic clock. */
int64_t ow_tb_now_ms       (void);

/* ---- UTF-8 (ow-tb-buf.c) ---- */

/* Length of the well-formed UTF-8 sequence starting at @s (1..4), or 0 when
 * the bytes there are not one (overlong forms and surrogates included). */
size_t ow_tb_utf8_seq_len   (const unsigned char *s, size_t avail);
/* 1 when all @len bytes are well-formed UTF-8. */
int    ow_tb_utf8_valid     (const char *s, size_t len);
/* Number of characters; each malformed byte counts as one. */
size_t ow_tb_utf8_count     (const char *s, size_t len);
/* Byte offset just past the first @n characters (or @len). */
size_t ow_tb_utf8_head      (const char *s, size_t len, size_t n);
/* Byte offset where the last @n characters begin (0 when there are fewer). */
size_t ow_tb_utf8_tail      (const char *s, size_t len, size_t n);

/* ---- writing JSON results (ow-tb-buf.c) ---- */

/* An object or array being written into a buffer; tracks the comma. */
typedef struct {
  OwTbBuf *buf;    /* where the text goes (borrowed) */
  int      count;  /* members written so far, so the next one knows to add ',' */
  char     close;  /* '}' or ']' */
} OwTbObj;

void ow_tb_obj_begin   (OwTbObj *obj, OwTbBuf *buf);
void ow_tb_arr_begin   (OwTbObj *arr, OwTbBuf *buf);
/* Starts a member: writes the comma and, for objects, the key. The caller
 * then writes exactly one value (e.g. a nested ow_tb_obj_begin). */
void ow_tb_obj_key     (OwTbObj *obj, const char *key);
void ow_tb_obj_str     (OwTbObj *obj, const char *key, const char *value);
void ow_tb_obj_strn    (OwTbObj *obj, const char *key, const char *value, size_t len);
void ow_tb_obj_int     (OwTbObj *obj, const char *key, long long value);
void ow_tb_obj_bool    (OwTbObj *obj, const char *key, int value);
void ow_tb_obj_null    (OwTbObj *obj, const char *key);
void ow_tb_obj_end     (OwTbObj *obj);

/* Replaces @out with {"error": message}. */
void ow_tb_set_error   (OwTbBuf *out, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* ---- arguments (ow-tb.c) ---- */

/* Each returns 0 and stores the value (or @def when the parameter is
 * absent or null), or writes {"error": …} naming the parameter into @out
 * and returns -1. Integers and booleans also accept their spelling as a
 * string ("20", "true"), which models often send. */
int ow_tb_arg_string (const OwTbJson *args, const char *name, int required,
                      const char **value, size_t *len, OwTbBuf *out);
int ow_tb_arg_int    (const OwTbJson *args, const char *name, long long def,
                      long long *value, OwTbBuf *out);
int ow_tb_arg_number (const OwTbJson *args, const char *name, double def,
                      double *value, OwTbBuf *out);
int ow_tb_arg_bool   (const OwTbJson *args, const char *name, int def,
                      int *value, OwTbBuf *out);

/* ---- paths and confinement (ow-tb-paths.c) ---- */

typedef enum {
  OW_TB_ACCESS_READ,   /* inside any root */
  OW_TB_ACCESS_WRITE,  /* inside a writable root (the deepest root containing it decides) */
} OwTbAccess;

/* A path the model named, resolved and checked. */
typedef struct {
  char           *abs;      /* canonical absolute path (owned) */
  char           *display;  /* relative to roots[0] when inside it, else absolute (owned) */
  const OwTbRoot *root;     /* the deepest root containing it (borrowed from the env) */
} OwTbPath;

/* Resolves @raw (relative to roots[0], "~" expanded, symlinks followed in
 * the longest existing prefix) and checks it against the roots. On
 * refusal writes the error result into @out and returns -1. */
int   ow_tb_path_resolve     (const OwTbEnv *env, const char *raw, OwTbAccess access,
                              OwTbPath *path, OwTbBuf *out);
void  ow_tb_path_clear       (OwTbPath *path);
/* Canonical form of an absolute path whose tail may not exist yet; NULL on
 * a symlink loop (errno = ELOOP). */
char *ow_tb_path_canonical   (const char *abs);
/* The name shown to the model for canonical path @abs. */
char *ow_tb_path_display     (const OwTbEnv *env, const char *abs);
/* The deepest root containing canonical @abs, or NULL. */
const OwTbRoot *ow_tb_path_root (const OwTbEnv *env, const char *abs);
/* 1 when @name is one of the NULL-terminated @list. */
int   ow_tb_name_in_list     (const char *name, const char *const *list);
/* Opens canonical @abs, which lies in one of @env's roots, from a
 * descriptor of that root, never leaving it and following no symlink (see
 * ow-tb-paths.c), so a folder swapped for a link after the check cannot
 * redirect the open. Returns a descriptor, or -1 with errno (EXDEV or
 * ELOOP when the path changed since it was checked). */
int   ow_tb_open_in_root     (const OwTbEnv *env, const char *abs, int flags, mode_t mode);
/* Opens the folder holding canonical @abs the same way (an O_PATH
 * descriptor for the *at calls), creating the missing folders on the way
 * when @create. *@base points into @abs at the last component. -1 with a
 * sentence in *error (owned by the caller). */
int   ow_tb_open_parent_in_root (const OwTbEnv *env, const char *abs, int create,
                                 const char **base, char **error);
/* The sentence for a failed confined @what ("read", "write") of @name. */
char *ow_tb_confinement_error (const char *what, const char *name, int errnum);

/* ---- files (ow-tb-files.c) ---- */

/* Reads a whole regular file into @into (replacing its contents). Files
 * larger than @max bytes are refused. @abs is canonical and opened below
 * its root in @env (ow_tb_open_in_root). On failure returns -1 with a
 * sentence in *error (owned by the caller). */
int  ow_tb_read_whole    (const OwTbEnv *env, const char *abs, size_t max, OwTbBuf *into,
                          char **error);
/* 1 when @data looks binary: a NUL byte in the first 8 KiB, or not UTF-8. */
int  ow_tb_is_binary     (const char *data, size_t len);

/* A file written to a temporary sibling, waiting to be renamed in place:
 * lets apply_patch stage every file before it changes any. */
typedef struct {
  char *target;   /* where the content belongs, for messages (owned) */
  char *base;     /* its name in dirfd (owned) */
  char *tmp;      /* the staged temporary file's name in dirfd, or NULL once committed (owned) */
  int   dirfd;    /* the folder both are in, opened below the root; -1 when none */
} OwTbStaged;

/* Stages @data for canonical @abs, in its folder opened below its root
 * (missing folders created the same way). A file with other hard links is
 * refused: replacing it would leave the other names (which may be outside
 * the session's folders) with the old content, and a write through it
 * would reach them. */
int  ow_tb_stage_write   (const OwTbEnv *env, const char *abs, const char *data, size_t len,
                          OwTbStaged *staged, char **error);
/* Deletes canonical @abs from its folder opened below its root. */
int  ow_tb_unlink_in_root (const OwTbEnv *env, const char *abs, char **error);
int  ow_tb_stage_commit  (OwTbStaged *staged, char **error);
void ow_tb_stage_abort   (OwTbStaged *staged);

/* ---- processes (ow-tb-proc.c) ---- */

/* How to run one program to completion. */
typedef struct {
  const char *const *argv;       /* argv[0] is looked up on PATH when it has no '/' */
  const char        *cwd;        /* working folder, or NULL to inherit */
  const char *const *envp;       /* environment, or NULL for environ */
  int                timeout_ms; /* kill the process group after this long; <= 0 = never */
  int                cancel_fd;  /* kill and report cancelled when readable; -1 = never */
  size_t             max_stdout; /* keep at most this many bytes of stdout (the head) */
  size_t             max_stderr; /* keep at most this many bytes of stderr (the head) */
  int                stop_when_full; /* kill the process once stdout is full (grep) */
} OwTbProcSpec;

/* What happened. */
typedef struct {
  OwTbBuf out;            /* captured stdout (head) */
  OwTbBuf err;            /* captured stderr (head) */
  int     exit_code;      /* exit status, 128+N for signal N, -1 when never started */
  int     timed_out;      /* killed for exceeding timeout_ms */
  int     cancelled;      /* killed because cancel_fd fired */
  int     out_truncated;  /* stdout had more than max_stdout bytes */
  int     err_truncated;  /* stderr had more than max_stderr bytes */
  int     spawn_errno;    /* nonzero when the program could not be started */
  int     not_found;      /* …because it is not on PATH */
} OwTbProcResult;

void  ow_tb_proc_result_init  (OwTbProcResult *res);
void  ow_tb_proc_result_clear (OwTbProcResult *res);
/* Runs to completion (or timeout / cancel). Returns 0 when the program
 * ran, -1 when it could not be started (res->spawn_errno says why). */
int   ow_tb_proc_run          (const OwTbProcSpec *spec, OwTbProcResult *res);
/* A deep copy of @base (NULL = environ) in which each "NAME=value" of
 * @set (NULL-terminated, may be NULL) replaces or adds its variable and
 * each name in @unset (may be NULL) is dropped. Free with ow_tb_env_free. */
char **ow_tb_env_build        (const char *const *base, const char *const *set,
                               const char *const *unset);
void   ow_tb_env_free         (char **envp);
/* Looks @name up on the PATH of @envp (or of this process); owned result
 * or NULL. A name containing '/' is returned as is when executable. */
char *ow_tb_find_program      (const char *name, const char *const *envp);
/* A pollable descriptor that becomes readable when @pid exits, or -1
 * where the kernel has no pidfd. */
int   ow_tb_pidfd_open        (pid_t pid);
/* 1 when @cancel_fd is readable now. */
int   ow_tb_cancelled         (int cancel_fd);
/* Decodes a waitpid status into an exit code (128+N for signal N). */
int   ow_tb_wait_status_code  (int status);
/* Spawns @path with the file actions every child of ours needs: its own
 * session, default signal handling, empty signal mask. stdin/stdout/stderr
 * come from @fd0/@fd1/@fd2 (-1 = /dev/null); @fd3 (-1 = none) becomes fd 3.
 * Returns 0 or an errno. */
int   ow_tb_spawn             (const char *path, const char *const *argv,
                               const char *const *envp, const char *cwd,
                               int fd0, int fd1, int fd2, int fd3, pid_t *pid);
/* The same with @setup run in the child between fork and exec (after the
 * descriptors are in place, before the folder change), for the command
 * guard. @setup may make system calls only. When it fails, returns EPERM
 * with its sentence in @err; when @setup is NULL this is ow_tb_spawn. */
int   ow_tb_spawn_setup       (const char *path, const char *const *argv,
                               const char *const *envp, const char *cwd,
                               int fd0, int fd1, int fd2, int fd3, pid_t *pid,
                               OwTbChildSetup setup, void *setup_data,
                               char *err, size_t err_size);

/* ---- the shell (ow-tb-shell.c) ---- */

/* The environment the shell's processes get (with the additions made by
 * ow_tb_shell_new); grep and git use it too. */
const char *const *ow_tb_shell_envp (OwTbShell *shell);

/* ---- one entry point per tool ---- */

typedef OwTbStatus (*OwTbToolFunc) (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);

OwTbStatus ow_tb_tool_run_shell         (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_shell_task_output (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_shell_task_kill   (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_read_file         (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_write_file        (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_replace_in_file   (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_apply_patch       (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_list_files        (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_grep              (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_git_status        (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_git_diff          (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
OwTbStatus ow_tb_tool_git_log           (const OwTbEnv *env, const OwTbJson *args, OwTbBuf *out);
