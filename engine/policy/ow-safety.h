/* ow-safety.h: the safety checks.
 *
 * Some actions are asked about in every approval mode, even
 * bypass-approvals, and only dangerously-bypass-approvals clears them
 * (recorded "cleared by mode"). They are found here, the same way whether
 * the action comes through a file tool or the shell:
 *   - running a downloaded file (curl … | sh, sh <(wget …), executing a file
 *     the session downloaded or one in ~/Downloads);
 *   - shell writes outside the session's folders (redirections, cp, mv, tee,
 *     install, dd of=, sed -i, touch, mkdir, ln, chmod/chown, truncate, …);
 *   - editing git hooks (.git/hooks, core.hooksPath, .git/config), CI
 *     configuration (.github/workflows, .gitlab-ci.yml, .circleci,
 *     Jenkinsfile, .travis.yml, azure-pipelines.yml, .buildkite, …), the
 *     agent's own settings (OpenWorker's config and state folders, a
 *     project's .openworker/) or the shell's settings and start-up files
 *     (.bashrc, .profile, .zshrc, .config/fish, /etc/profile.d, …);
 *   - granting authority that outlives the session (crontab, at, systemctl
 *     enable / user units, autostart entries, ssh authorized_keys, sudoers,
 *     git config --global / --system, setuid bits, launchctl, schtasks);
 *   - recursive deletes outside the session's folders (rm -r, find -delete,
 *     rm of a root, a home, or a glob at the top);
 *   - reads of credential files (~/.ssh, ~/.aws, ~/.gnupg, keyrings, .netrc,
 *     .git-credentials, .docker/config.json, .kube/config, gh hosts, .npmrc,
 *     .pypirc, /etc/shadow, OpenWorker's own secrets and tokens).
 * A command the parser cannot read (OW_SHELL_PARSE_ERROR) is treated as
 * hitting every check it could hide. The checks judge what is written,
 * never what the model says about it.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "policy/ow-shell.h"

G_BEGIN_DECLS

typedef enum {
  OW_SAFETY_DOWNLOADED_EXEC        = 1 << 0,
  OW_SAFETY_WRITE_OUTSIDE          = 1 << 1,
  OW_SAFETY_PROTECTED_FILE         = 1 << 2,   /* git hooks, CI, agent or shell settings */
  OW_SAFETY_PERSISTENT_AUTHORITY   = 1 << 3,
  OW_SAFETY_RECURSIVE_DELETE       = 1 << 4,   /* recursive delete outside the folders */
  OW_SAFETY_CREDENTIAL_READ        = 1 << 5,
  OW_SAFETY_OPAQUE_CODE            = 1 << 6,   /* eval / sh -c of text only known when it runs */
} OwSafetyCheck;

/* Short stable names for records: "downloaded_exec", "write_outside",
 * "protected_file", "persistent_authority", "recursive_delete",
 * "credential_read". */
const char *ow_safety_check_name (OwSafetyCheck check);

/* What the checks need to know. Borrowed. */
typedef struct {
  const char *const *roots;           /* the session's folders (canonical, absolute) */
  const gboolean    *roots_writable;  /* parallel to roots */
  guint              n_roots;
  const char        *cwd;             /* where the shell is (relative paths resolve here) */
  const char        *home;            /* the person's home folder */
  const char *const *agent_dirs;      /* OpenWorker's config, state and runtime folders */
  const char *const *downloaded;      /* files this session downloaded (NULL-terminated, may be NULL) */
  const char *const *env;             /* the environment the shell started with ("NAME=value"), or
                                       * NULL: $NAME is filled in from it as an extra check only,
                                       * never to clear one (the shell may have changed it since) */
} OwSafetyContext;

typedef struct {
  guint      checks;    /* OwSafetyCheck bits */
  GPtrArray *reasons;   /* char*: one sentence per finding, naming the file or command */
} OwSafetyResult;

void ow_safety_result_init  (OwSafetyResult *result);
void ow_safety_result_clear (OwSafetyResult *result);

/* Checks one tool call: run_shell (its command), write_file /
 * replace_in_file / apply_patch (their paths, including every path inside
 * a patch), read_file / grep / list_files (credential reads), and anything
 * else by its path-like arguments. */
void ow_safety_check_tool (const OwSafetyContext *ctx,
                           const char            *tool,
                           JsonObject            *args,
                           OwSafetyResult        *out);

/* The same, with run_shell's command already parsed (@parse, which must
 * be ow_shell_parse() of args.command; NULL = parse it here). */
void ow_safety_check_tool_parsed (const OwSafetyContext *ctx,
                                  const char            *tool,
                                  JsonObject            *args,
                                  const OwShellParse    *parse,
                                  OwSafetyResult        *out);

/* Files a shell command would download to (curl -o/-O, wget -O/-P, …),
 * resolved against ctx->cwd, so later execution of them is caught. */
GStrv ow_safety_downloads_of (const OwSafetyContext *ctx, const char *command);

/* The protected files the command guard keeps read-only inside every
 * writable folder, as paths relative to it (the same places the checks
 * name). NULL-terminated; free with g_strfreev. */
GStrv ow_safety_protected_names  (void);
/* The credential files and folders under @home that commands must not see. */
GStrv ow_safety_credential_paths (const char *home);

G_END_DECLS
