/* ow-winsandbox.h: the Windows sandbox core, GLib-free.
 *
 * On Windows a session's tools run as one of two hidden local accounts
 * that Windows itself keeps out of the person's profile:
 * OWSandboxOpenNet (no network rules) and OWSandboxClosedNet (outbound
 * blocked by a firewall rule; on loopback only the allow-list proxy's
 * ports 47800–47899, by four WFP filters, because the firewall does not
 * look at loopback). One elevated PowerShell script, rendered here, sets
 * that up once and records what it changed in setup.json so that removal
 * undoes exactly that. Each session then gets one access entry per folder
 * for the account (Modify, Read, or traverse-only on the folders between
 * the profile root and a granted folder), a private folder under
 * C:\ProgramData\OpenWorker\sandbox\sandboxes, and its runner started as
 * the account in a job object that ends with the session. The wall is
 * proved from inside before the session starts.
 *
 * The first half of this header is portable C (ow-winsandbox-text.c): path
 * rules, SDDL strings, the grant plan, command lines and environment
 * blocks, the credential plaintext, setup.json and the scripts. It is
 * built and tested natively on every OS. The second half (_WIN32 only,
 * ow-winsandbox.c) touches Windows: DPAPI, ACLs, WFP, the firewall, the
 * logon, the job, the wall check.
 *
 * Text is UTF-8 everywhere in this API; conversion to UTF-16 happens at
 * the Win32 calls. Functions that can fail return 0 (or NULL) and, when
 * @error is not NULL, store a malloc'ed sentence a person can act on in
 * *error. Everything returned is malloc'ed and freed with free() (string
 * vectors with ow_ws_strv_free()).
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OW_WS_OPEN_ACCOUNT     "OWSandboxOpenNet"
#define OW_WS_CLOSED_ACCOUNT   "OWSandboxClosedNet"
#define OW_WS_PORT_LOW         47800
#define OW_WS_PORT_HIGH        47899
#define OW_WS_SETUP_VERSION    1
#define OW_WS_FIREWALL_RULE    "OpenWorker sandbox: closed account has no outbound network"
#define OW_WS_FIREWALL_NAME    "OpenWorker-Sandbox-ClosedNet-Outbound"
/* account.cred = this magic line, then a DPAPI blob (machine scope, this
 * entropy) of the plaintext from ow_ws_cred_plaintext(). */
#define OW_WS_CRED_MAGIC       "OWCRED1\n"
#define OW_WS_CRED_ENTROPY     "OpenWorker sandbox accounts v1"

/* File access masks of the three kinds of entry. Traverse also carries
 * FILE_READ_ATTRIBUTES: a shell stats each folder it steps through, and
 * the profile it steps out of does not let it list them. */
#define OW_WS_MASK_WRITE       0x001301bfu  /* Modify: read, write, execute, delete */
#define OW_WS_MASK_READ        0x001200a9u  /* read and execute */
#define OW_WS_MASK_TRAVERSE    0x001000a0u  /* traverse + read attributes, no listing */
/* Denied on a read-only folder inside a writable one, which would
 * otherwise inherit Modify: write data, append, write attributes and
 * extended attributes, delete, delete children. */
#define OW_WS_MASK_DENY_WRITE  0x00010156u

/* The fixed keys of the WFP provider, sublayer and four filters, so that
 * setup can replace them and removal can delete exactly them. */
#define OW_WS_WFP_PROVIDER     "{5f0c2b7e-8a51-4d63-9c2e-6b1f0a7d3e41}"
#define OW_WS_WFP_SUBLAYER     "{5f0c2b7e-8a51-4d63-9c2e-6b1f0a7d3e42}"
#define OW_WS_WFP_PERMIT_V4    "{5f0c2b7e-8a51-4d63-9c2e-6b1f0a7d3e43}"
#define OW_WS_WFP_BLOCK_V4     "{5f0c2b7e-8a51-4d63-9c2e-6b1f0a7d3e44}"
#define OW_WS_WFP_PERMIT_V6    "{5f0c2b7e-8a51-4d63-9c2e-6b1f0a7d3e45}"
#define OW_WS_WFP_BLOCK_V6     "{5f0c2b7e-8a51-4d63-9c2e-6b1f0a7d3e46}"

void   ow_ws_strv_free        (char **strv);

/* --- paths --------------------------------------------------------------- */

/* <program_data>\OpenWorker\sandbox, and a file or folder in it. */
char  *ow_ws_root_dir         (const char *program_data);
char  *ow_ws_join             (const char *dir, const char *leaf);
/* A drive-absolute path with backslashes, no repeated separators, no "."
 * or ".." component, no trailing separator (but "C:\"), no control
 * character; NULL otherwise. */
char  *ow_ws_normalize_path   (const char *path, char **error);
/* Whether @a is @b or lies inside it (ASCII case-insensitive, as NTFS
 * compares names for the folders this is used on). */
int    ow_ws_path_within      (const char *a, const char *b);

/* --- security descriptors ------------------------------------------------ */

typedef enum {
  OW_WS_GRANT_WRITE,     /* Modify, inherited by everything inside */
  OW_WS_GRANT_READ,      /* read and execute, inherited by everything inside */
  OW_WS_GRANT_TRAVERSE,  /* step through, this folder only */
  OW_WS_GRANT_DENY_WRITE, /* no writing, inherited: a read-only folder inside a writable one */
} OwWsGrantKind;

/* Whether @sid looks like a SID string ("S-1-5-21-…"). */
int           ow_ws_sid_is_valid         (const char *sid);
unsigned int  ow_ws_grant_mask           (OwWsGrantKind kind);
/* OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE (3) or 0. */
unsigned int  ow_ws_grant_inheritance    (OwWsGrantKind kind);
const char   *ow_ws_grant_kind_name      (OwWsGrantKind kind);  /* "write", "read", "traverse", "deny-write" */
/* "(A;OICI;0x1301bf;;;SID)" and friends. */
char         *ow_ws_sddl_ace             (OwWsGrantKind kind, const char *sid);
/* The descriptor a firewall rule's LocalUser and a WFP user condition
 * take: "D:(A;;CC;;;SID)" (CC = match). */
char         *ow_ws_sddl_match_user      (const char *sid);
/* The sandbox folder: SYSTEM and Administrators full, the person read,
 * both accounts traverse and read this folder only (to reach sandboxes). */
char         *ow_ws_sddl_root_dir        (const char *user_sid, const char *open_sid, const char *closed_sid);
/* sandboxes\: the person may make and remove session folders in it. */
char         *ow_ws_sddl_sandboxes_dir   (const char *user_sid, const char *open_sid, const char *closed_sid);
/* account.cred: SYSTEM and Administrators full, the person read, nobody else. */
char         *ow_ws_sddl_cred_file       (const char *user_sid);

/* --- the grant plan ------------------------------------------------------ */

typedef struct {
  char          *path;  /* normalized folder */
  OwWsGrantKind  kind;
} OwWsGrant;

typedef struct {
  OwWsGrant *items;  /* in the order they are applied (and removed in reverse) */
  size_t     len;
} OwWsGrants;

typedef struct {
  const char        *profile_root;  /* the person's profile, C:\Users\ada */
  const char        *private_dir;   /* the session's private folder */
  const char *const *writable;      /* the session's read-write folders */
  const char *const *readonly;      /* the session's read-only folders */
  const char *const *toolchains;    /* per-user tool folders switched on, absolute */
} OwWsPlanInput;

/* Every entry a session needs: Write on its writable folders and private
 * folder, Read on its read-only folders and toolchains, Deny-write on a
 * read-only folder inside a writable one, Traverse on each folder from
 * the profile root down to a granted folder inside the profile. Refuses a folder that would hold the whole profile root's
 * parent (C:\, C:\Users): the account would reach every profile. */
int   ow_ws_plan_grants   (const OwWsPlanInput *in, OwWsGrants *out, char **error);
void  ow_ws_grants_clear  (OwWsGrants *grants);

/* --- command lines and environments ------------------------------------- */

/* @arg quoted for CommandLineToArgvW / the C runtime's argv parser. */
char  *ow_ws_quote_arg      (const char *arg);
char  *ow_ws_command_line   (const char *const *argv);
/* @base ("NAME=value" entries) with @set applied over it (an entry of @set
 * replaces the same name, case-insensitively; "NAME=" with nothing after
 * removes it), sorted case-insensitively as CreateProcess requires. */
char **ow_ws_environment    (const char *const *base, const char *const *set);

/* --- account.cred -------------------------------------------------------- */

/* The plaintext sealed in account.cred: one "NAME\tPASSWORD\n" line per account. */
char  *ow_ws_cred_plaintext       (const char *open_password, const char *closed_password);
int    ow_ws_cred_parse_plaintext (const char *text, size_t len,
                                   char **open_password, char **closed_password, char **error);

/* --- setup.json ---------------------------------------------------------- */

typedef struct {
  int    version;        /* OW_WS_SETUP_VERSION when written by this code */
  char  *user_sid;       /* who ran setup: may read account.cred */
  char  *set_up_at;      /* UTC, ISO 8601 */
  char  *open_name;      /* the open account's name and SID */
  char  *open_sid;
  char  *closed_name;    /* the closed account's name and SID */
  char  *closed_sid;
  char  *firewall_rule;  /* the rule's display name */
  int    port_low;       /* the proxy's loopback range the filters allow */
  int    port_high;
  char **filters;        /* the WFP filter keys written, NULL-terminated */
  char **changed;        /* what setup created: "account:NAME", "userlist:NAME", "firewall",
                          * "wfp", "logon-rights", "credential", "folder:PATH" */
} OwWsSetup;

char  *ow_ws_setup_to_json    (const OwWsSetup *setup);
/* Reads what ow_ws_setup_to_json() or the setup script's ConvertTo-Json
 * wrote (a UTF-8 byte-order mark is allowed). */
int    ow_ws_setup_from_json  (const char *text, OwWsSetup *out, char **error);
void   ow_ws_setup_clear      (OwWsSetup *setup);
/* Whether @setup records @item in its changed list. */
int    ow_ws_setup_changed    (const OwWsSetup *setup, const char *item);

/* --- the scripts --------------------------------------------------------- */

typedef struct {
  const char *program_data;  /* C:\ProgramData */
  const char *user_sid;      /* the person running setup */
  const char *helper_exe;    /* openworker-winsandbox.exe: the WFP filters and logon rights */
  const char *log_path;      /* where the elevated script writes what it did */
} OwWsScriptInput;

/* @s as a PowerShell single-quoted literal (every quote character
 * PowerShell accepts there, curly ones included, is doubled). */
char  *ow_ws_ps_quote         (const char *s);
/* The one elevated setup script. Idempotent: run again, it repairs. */
char  *ow_ws_setup_script     (const OwWsScriptInput *in, char **error);
/* The elevated removal script: undoes what @recorded lists, nothing else. */
char  *ow_ws_remove_script    (const OwWsScriptInput *in, const OwWsSetup *recorded, char **error);

/* ========================================================================= */
#ifdef _WIN32

#include <windows.h>

/* --- account.cred (DPAPI, machine scope) --------------------------------- */

int   ow_ws_cred_write        (const char *path, const char *open_password, const char *closed_password,
                               char **error);
int   ow_ws_cred_read         (const char *path, char **open_password, char **closed_password, char **error);
/* Overwrites and frees a password. */
void  ow_ws_password_free     (char *password);

/* --- access entries ------------------------------------------------------ */

/* A copy of @old (may be NULL: empty) with one entry of @kind for @sid
 * appended after the explicit entries. Free *out with LocalFree(). */
int   ow_ws_acl_add_grant     (PACL old, PSID sid, OwWsGrantKind kind, PACL *out, char **error);
/* A copy of @old without one explicit entry of @kind for @sid (the last
 * one: concurrent sessions on one folder each hold their own). *removed
 * says whether one was found. */
int   ow_ws_acl_remove_grant  (PACL old, PSID sid, OwWsGrantKind kind, PACL *out, int *removed, char **error);
/* Counts the explicit entries of @kind for @sid in @acl. */
int   ow_ws_acl_count_grants  (PACL acl, PSID sid, OwWsGrantKind kind);
/* Adds / removes the entry on a folder and reads it back. */
int   ow_ws_apply_grant       (const char *path, const char *sid, OwWsGrantKind kind, char **error);
int   ow_ws_revoke_grant      (const char *path, const char *sid, OwWsGrantKind kind, char **error);

/* --- Windows Filtering Platform ------------------------------------------ */

/* The four filters, built but not written, for inspection by tests and by
 * ow_ws_wfp_install(). */
typedef struct _OwWsWfpFilters OwWsWfpFilters;
OwWsWfpFilters *ow_ws_wfp_filters_new     (const char *sid, int port_low, int port_high, char **error);
size_t          ow_ws_wfp_filters_count   (OwWsWfpFilters *filters);
/* The i-th filter, an FWPM_FILTER0* (void* keeps fwpmu.h out of this header). */
const void     *ow_ws_wfp_filters_get     (OwWsWfpFilters *filters, size_t i);
void            ow_ws_wfp_filters_free    (OwWsWfpFilters *filters);
/* Writes the provider, sublayer and filters (persistent; replaces ours). */
int             ow_ws_wfp_install         (const char *sid, int port_low, int port_high, char **error);
int             ow_ws_wfp_remove          (char **error);
/* 1 all four present, 0 one is missing, -1 this process may not look. */
int             ow_ws_wfp_present         (char **detail);

/* Denies remote desktop, network and service logon to @sid. */
int             ow_ws_deny_logon_rights   (const char *sid, char **error);

/* --- what is there -------------------------------------------------------- */

typedef struct {
  char *name;    /* "setup record", "account OWSandboxOpenNet", … */
  int   ok;      /* 1 present and right, 0 missing or wrong, -1 cannot be told here */
  char *detail;  /* what was found, or what to do */
} OwWsCheck;

/* Status for `openworker machine sandbox status`. Returns the number of
 * checks in *checks; free with ow_ws_checks_free(). */
size_t ow_ws_status           (const char *program_data, OwWsCheck **checks);
void   ow_ws_checks_free      (OwWsCheck *checks, size_t n);
/* Whether every check that can be told is ok. */
int    ow_ws_checks_ok        (const OwWsCheck *checks, size_t n);

/* --- the runner ------------------------------------------------------------ */

typedef struct {
  HANDLE process;      /* the runner */
  HANDLE job;          /* closing it ends the runner and everything it started */
  HANDLE to_runner;    /* the runner's standard input */
  HANDLE from_runner;  /* the runner's standard output */
  DWORD  pid;
} OwWsRunner;

typedef struct {
  const char        *account;     /* OW_WS_OPEN_ACCOUNT or OW_WS_CLOSED_ACCOUNT */
  const char        *password;    /* from account.cred */
  const char        *runner_exe;  /* a copy the account can read (in the private folder) */
  const char *const *argv;        /* argv[0] included */
  const char        *cwd;
  const char *const *env;         /* the whole environment, "NAME=value" */
} OwWsSpawn;

/* A job object that kills everything in it when its last handle closes. */
int   ow_ws_job_create        (HANDLE *job, char **error);
/* Two pipes; the child's ends are inheritable, ours are not. */
int   ow_ws_pipes_create      (HANDLE *child_in, HANDLE *to_child, HANDLE *from_child, HANDLE *child_out,
                               char **error);
/* Starts the runner as the account (CreateProcessWithLogonW: the secondary
 * logon service, no privilege needed), suspended, puts it in a new job,
 * then lets it run. */
int   ow_ws_spawn_runner      (const OwWsSpawn *spawn, OwWsRunner *out, char **error);
/* Ends the runner and everything in its job. */
void  ow_ws_runner_close      (OwWsRunner *runner);

/* --- the wall, from inside ------------------------------------------------- */

/* Run as the sandbox account: every folder in @folders must be listable,
 * @profile_root must be refused (access denied), and when @probe_port is
 * not 0 a loopback connection to it must fail. Returns 1 when all hold. */
int   ow_ws_wall_check        (const char *profile_root, const char *const *folders, int probe_port,
                               OwWsCheck **checks, size_t *n);

/* --- elevation ------------------------------------------------------------- */

/* Writes @script (UTF-8 with a byte-order mark, which Windows PowerShell 5
 * needs to read anything but ASCII) into @dir and runs it with
 * powershell.exe on one administrator prompt; waits for it. */
int   ow_ws_run_elevated      (const char *script, const char *dir, unsigned long *exit_code, char **error);

/* --- UTF-8 ⇄ UTF-16 --------------------------------------------------------- */

wchar_t *ow_ws_wide           (const char *utf8);
char    *ow_ws_utf8           (const wchar_t *wide);

#endif /* _WIN32 */

#ifdef __cplusplus
}
#endif
