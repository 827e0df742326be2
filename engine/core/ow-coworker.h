/* ow-coworker.h: who does the work.
 *
 * A coworker is a role: a system prompt, the tool groups it may use and the
 * approval guidance a reviewer reads. Two are built in, as in the original:
 * "cowork" (everyday work on files and documents; the default) and "code"
 * (software work). The persona system of a later issue adds more.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char        *id;                 /* "cowork" */
  const char        *title;              /* "Cowork" */
  const char        *summary;            /* one line for pickers */
  const char *const *tool_groups;        /* capability groups (see ow-builtin-tools.h) */
  const char        *prompt;             /* the role's system prompt */
  const char        *approval_guidance;  /* ≤ 2,400 characters, for the reviewer */
} OwCoworker;

const OwCoworker  *ow_coworker_lookup (const char *id);
/* NULL-terminated list of the built-in ids, in display order. */
const char *const *ow_coworker_ids    (void);

/* The system message for a session: the role's prompt, how to narrate, the
 * environment (workspace, platform, date, git state), the project's
 * AGENTS.md and the session's folders. @roots: OwRoot*. */
char *ow_coworker_build_instructions (const OwCoworker *coworker,
                                      const char       *workspace,
                                      GPtrArray        *roots);

G_END_DECLS
