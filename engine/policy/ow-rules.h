/* ow-rules.h: rules that decide tool calls without asking.
 *
 * A rule is "TOOL" (every call of that tool) or "TOOL:PATTERN", matched
 * structurally, never by substring:
 *   run_shell:git status       argv prefix of a plain command (one program
 *                              call: no chaining, pipes, redirection,
 *                              substitution or newline — see ow-shell.h);
 *   write_file:docs/report.md  a path glob over the call's canonical paths
 *                              (relative patterns resolve against the
 *                              workspace; a star stays in one folder, two
 *                              stars cross folders); read_file, replace_in_file,
 *                              apply_patch (every path in the patch),
 *                              list_files and grep are matched the same way;
 *   send_message:slack:C123    the exact target of a tool that declares one.
 *
 * Rules come from three places, each a person's explicit act: the machine
 * config ([policy] deny = hard floors, [policy] allow = the config
 * allowlist), a project's config (deny only: a project narrows, never
 * widens), and standing rules a person created from an approval card —
 * persisted, visible, revocable, with who made them and when, and an
 * optional expiry.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "policy/ow-shell.h"

#include "store/ow-store.h"

G_BEGIN_DECLS

typedef struct _OwRule OwRule;

/* Parses @text ("tool" or "tool:pattern"). Fails with a sentence saying
 * what is wrong (an empty tool name, a shell pattern that is not a plain
 * command, …). */
OwRule     *ow_rule_parse      (const char *text, GError **error);
void        ow_rule_free       (OwRule *rule);
const char *ow_rule_get_text   (const OwRule *rule);
const char *ow_rule_get_tool   (const OwRule *rule);

typedef struct _OwRuleCallCache OwRuleCallCache;

/* What a rule is matched against. Borrowed. The cache is filled as rules
 * are checked (the command is parsed and the paths resolved once per call,
 * not once per rule); free it with ow_rule_call_clear(). */
typedef struct {
  const char      *tool;
  JsonObject      *args;
  const char      *workspace;    /* relative paths and patterns resolve here */
  const char      *target_arg;   /* the argument naming the call's target, as the tool says, or NULL */
  OwRuleCallCache *cache;        /* NULL until first used */
} OwRuleCall;

void        ow_rule_call_clear (OwRuleCall *call);
/* The call's command as the shell parser reads it (run_shell only; parsed
 * once and kept with the call), or NULL. */
const OwShellParse *ow_rule_call_get_parse (const OwRuleCall *call);

/* Allow-style matching: a shell rule matches only a plain command. */
gboolean    ow_rule_matches      (const OwRule *rule, const OwRuleCall *call);
/* Deny-style matching: a shell rule matches if any program the command
 * line would run matches (inside chains, substitutions, sh -c strings,
 * behind sudo/env), and an unreadable command matches if any word is the
 * rule's program. */
gboolean    ow_rule_matches_deny (const OwRule *rule, const OwRuleCall *call);

/* The pattern a person would be offered for "always allow" of @call
 * (the plain command itself, the exact path, the target), or NULL when the
 * call cannot be made a rule (a shell command that is not plain). */
char       *ow_rule_suggest    (const OwRuleCall *call);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwRule, ow_rule_free)

/* ---- A set of rules, indexed for speed ---------------------------------- */

typedef struct _OwRuleSet OwRuleSet;

OwRuleSet  *ow_rule_set_new      (void);
/* A set of deny rules (matched deny-style). */
OwRuleSet  *ow_rule_set_new_deny (void);
void        ow_rule_set_free   (OwRuleSet *set);
/* Takes ownership of @rule; @tag (copied) is reported back on a match
 * (e.g. "standing rule #12" or "config [policy] deny"). */
void        ow_rule_set_add    (OwRuleSet *set, OwRule *rule, const char *tag);
guint       ow_rule_set_size   (OwRuleSet *set);
/* The first matching rule's tag and text, or NULL. */
const char *ow_rule_set_match  (OwRuleSet *set, const OwRuleCall *call, const char **rule_text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwRuleSet, ow_rule_set_free)

/* ---- Standing rules, persisted in openworker.db ------------------------- */

typedef struct {
  gint64 id;
  char  *rule;
  char  *decision;     /* "allow" | "deny" */
  char  *created_at;
  char  *created_by;
  char  *session_id;
  char  *reason;
  char  *expires_at;   /* NULL: never */
  char  *revoked_at;   /* NULL: in force */
} OwStandingRule;

void        ow_standing_rule_free (OwStandingRule *rule);

/* Adds a rule a person made. @expires_at may be NULL. Returns its id, or 0
 * with an error (the rule text is checked first). */
gint64      ow_standing_rules_add    (OwStore    *store,
                                      const char *rule,
                                      const char *decision,
                                      const char *created_by,
                                      const char *session_id,
                                      const char *reason,
                                      const char *expires_at,
                                      GError    **error);
gboolean    ow_standing_rules_revoke (OwStore *store, gint64 id, GError **error);
/* Every rule (in force, expired and revoked), newest first (OwStandingRule*). */
GPtrArray  *ow_standing_rules_list   (OwStore *store, GError **error);
/* A number that changes whenever any connection commits to the database,
 * so a cached rule set knows when to reload. */
gint64      ow_standing_rules_version (OwStore *store);

G_END_DECLS
