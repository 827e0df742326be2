/* ow-tb.h: the shell and file tool bodies, in plain C over libc.
 *
 * This is the one implementation of run_shell, shell_task_output,
 * shell_task_kill, read_file, write_file, replace_in_file, apply_patch,
 * list_files, grep, git_status, git_diff and git_log. The engine runs it
 * in-process when there is no sandbox (sandbox_provider = "direct"), and
 * openworker-tool-runner hosts the very same code behind a sandbox wall.
 * Nothing here uses GLib: only libc and POSIX, so the runner stays small.
 *
 * A call takes the tool's name and its arguments as a JSON object text,
 * exactly as the model sent them (parameter names are the original
 * OpenWorker's), and writes the tool's result as a JSON object text. The
 * body decides nothing about permissions except one rule that holds in
 * every mode: file tools only write inside a writable root. It holds no
 * keys; everything it returns is data.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A growable, always NUL-terminated byte buffer. */
typedef struct {
  char  *data;
  size_t len;
  size_t cap;
} OwTbBuf;

void  ow_tb_buf_init    (OwTbBuf *buf);
void  ow_tb_buf_free    (OwTbBuf *buf);
void  ow_tb_buf_reset   (OwTbBuf *buf);
void  ow_tb_buf_append  (OwTbBuf *buf, const char *data, size_t len);
void  ow_tb_buf_puts    (OwTbBuf *buf, const char *str);
void  ow_tb_buf_printf  (OwTbBuf *buf, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* Appends @str (@len bytes, or strlen when len == (size_t) -1) as a JSON
 * string literal with quotes; invalid UTF-8 bytes become U+FFFD. */
void  ow_tb_buf_json_string (OwTbBuf *buf, const char *str, size_t len);

/* One folder the session may use. Paths are absolute and canonical. */
typedef struct {
  const char *path;
  int         writable;
} OwTbRoot;

/* The persistent shell of a session (cwd and environment survive between
 * calls) and its background tasks. Opaque; one per session. */
typedef struct OwTbShell OwTbShell;

/* @cwd: the folder the shell starts in. @envp: the complete environment for
 * the shell and every process it starts (the engine passes it with secrets
 * removed); NULL means inherit environ. Does not start bash yet: the first
 * run_shell does. */
OwTbShell *ow_tb_shell_new  (const char *cwd, const char *const *envp);
/* Runs in a child between fork and exec, before the shell or a background
 * task starts: the command guard (platform/linux/ow-guard.c) enters its
 * namespaces and Landlock here. System calls only. 0, or -1 with a
 * sentence in @err. */
typedef int (*OwTbChildSetup) (void *data, char *err, size_t err_size);

/* Every process the shell starts from now on (its bash, background tasks)
 * runs @setup first. A running bash is stopped, so the next command starts
 * a new one inside the new guard and is told that shell state was reset
 * (@why says why). The shell owns @data and frees it with @free_data when
 * it is replaced or the shell is freed. @setup NULL removes the guard. */
void       ow_tb_shell_set_guard (OwTbShell *shell, OwTbChildSetup setup, void *data,
                                  void (*free_data) (void *data), const char *why);

/* What a command guard is built from (the platform's guard reads it; see
 * platform/linux/ow-guard.h). Lists are NULL-terminated absolute paths,
 * except @protected_names, which are relative to each writable folder. */
typedef struct {
  const char *const *writable;        /* the session's writable folders */
  const char *const *hidden;          /* folders and files that must not be visible */
  const char *const *protected_names; /* kept read-only inside writable folders */
  const char *tmp_dir;                /* a private folder mounted on /tmp, or NULL */
  const char *cache_dir;              /* the tool cache, or NULL */
  const char *const *lift;            /* writable for one command by a person's leave, or NULL */
  const char *const *readonly;        /* more paths kept read-only (hard floors on writes), or NULL */
} OwTbGuardSpec;

/* A platform's command guard, registered by the platform layer. */
typedef struct {
  void       *(*create)    (const OwTbGuardSpec *spec, char *err, size_t err_size);
  OwTbChildSetup enter;                            /* runs in the child */
  void        (*destroy)   (void *guard);
  int         (*stale)     (const void *guard);        /* 1: protected paths were replaced */
  int         (*available) (char *why, size_t why_size);
  const char *(*describe)  (void);                 /* "guard (…)" */
} OwTbGuardImpl;

/* The mount namespaces this process's guards created (the inode number of
 * /proc/PID/ns/mnt), so the loopback API can tell a session's command
 * from a person's program: 1 when @ino is one of them. */
int        ow_tb_guard_namespace_known (unsigned long ino);

/* Sets "NAME=value" entries of @set (NULL-terminated) in the environment
 * of every process started from now on (the next bash, background tasks). */
void       ow_tb_shell_setenv    (OwTbShell *shell, const char *const *set);

/* Kills the shell, every process group it started and every background task. */
void       ow_tb_shell_free (OwTbShell *shell);

/* The folders list_files skips (NULL-terminated): .git, .venv,
 * node_modules, build, dist, caches. */
extern const char *const ow_tb_list_ignored_dirs[];
/* 1 when @name is one of the NULL-terminated @list. */
int        ow_tb_name_in_list (const char *name, const char *const *list);

/* 1 when a file tool may write @raw (relative to roots[0], ~ expanded,
 * canonical like the tools' own check), else 0: the policy refuses such a
 * call before anyone is asked, since the tool would refuse it anyway. */
int        ow_tb_path_writable (const OwTbRoot *roots, size_t n_roots, const char *raw);
/* The same for every file an apply_patch @text adds, updates, deletes or
 * moves to: 0 with the first refused path in *@refused (free()), else 1
 * (a patch that does not parse is 1: the tool says what is wrong). */
int        ow_tb_patch_writable (const OwTbRoot *roots, size_t n_roots, const char *text, char **refused);

/* Everything a call needs. The caller owns all of it. */
typedef struct {
  const OwTbRoot *roots;      /* roots[0] is primary: relative paths resolve there */
  size_t          n_roots;
  OwTbShell      *shell;      /* required for run_shell / shell_task_* */
  int             cancel_fd;  /* becomes readable when the call must stop; -1 = never */
} OwTbEnv;

typedef enum {
  OW_TB_OK = 0,           /* the tool ran; @out holds its result object */
  OW_TB_ERROR = 1,        /* the tool failed; @out holds {"error": "…", …} */
  OW_TB_INTERRUPTED = 2,  /* cancel_fd fired; @out holds {"error": "interrupted by user", …} */
  OW_TB_UNKNOWN_TOOL = 3, /* no such tool; @out holds {"error": "unknown tool: NAME"} */
  OW_TB_BAD_ARGS = 4,     /* arguments are not a JSON object, or a required one is missing/mistyped;
                           * @out holds {"error": "…"} naming the parameter */
} OwTbStatus;

/* Runs tool @name. Thread-safe across different shells; calls on the same
 * shell are serialized internally. Cancellation returns within 100 ms:
 * a foreground shell command is interrupted (SIGINT to its processes, then
 * SIGKILL of the process group) and the shell is restarted in its last
 * folder if it had to be killed. */
OwTbStatus  ow_tb_call      (const OwTbEnv *env,
                             const char    *name,
                             const char    *args_json,
                             size_t         args_len,
                             OwTbBuf       *out);

/* 1 if @name is hosted here. */
int         ow_tb_is_known  (const char *name);

/* NULL-terminated list of the tool names hosted here. */
const char *const *ow_tb_tool_names (void);

/* ---- A small strict JSON reader (RFC 8259), used for tool arguments. ---- */

typedef enum {
  OW_TB_JSON_NULL, OW_TB_JSON_BOOL, OW_TB_JSON_NUMBER, OW_TB_JSON_STRING,
  OW_TB_JSON_ARRAY, OW_TB_JSON_OBJECT,
} OwTbJsonType;

typedef struct OwTbJson OwTbJson;
struct OwTbJson {
  OwTbJsonType type;
  int          boolean;
  double       number;
  char        *string;     /* UTF-8, NUL-terminated (strings with U+0000 are rejected) */
  size_t       string_len;
  OwTbJson   **items;      /* array elements, or object values */
  char       **keys;       /* object keys (parallel to items) */
  size_t       n_items;
};

/* Parses @len bytes. Returns NULL on any syntax error, invalid UTF-8,
 * nesting deeper than 128, or a duplicate object key, and writes a short
 * description with the byte offset into @err (may be NULL). */
OwTbJson       *ow_tb_json_parse      (const char *text, size_t len, char *err, size_t err_size);
void            ow_tb_json_free       (OwTbJson *node);
const OwTbJson *ow_tb_json_get        (const OwTbJson *object, const char *key);

#ifdef __cplusplus
}
#endif
