/* ow-policy.h: the decision before every tool call.
 *
 * The agent asks the policy about each call before it runs. One precedence,
 * for every surface because it lives in the engine:
 *
 *   hard floor  >  safety check  >  deny rule  >  ask  >  allow
 *
 *   1. hard floors — the machine config's [policy] deny rules — refuse in
 *      every mode, dangerously-bypass-approvals included;
 *   2. read-only modes (plan, discuss) refuse every consequential call,
 *      and a file tool's write outside the session's writable folders is
 *      refused (the tool itself would refuse it: no card for a call that
 *      cannot succeed);
 *   3. safety checks (ow-safety.h) are asked in every mode; only
 *      dangerously-bypass-approvals clears them, each recorded "cleared by
 *      mode"; no rule or grant skips them;
 *   4. deny rules — a project's [policy] deny and standing deny rules —
 *      refuse;
 *   5. read-only tools are allowed;
 *   6. allow: a grant for this session (a tool, an exact command, or
 *      read-only commands, ow-readonly.h), a standing allow rule, the
 *      machine's [policy] allow list, a tool a person's file allows
 *      (mcp.json's "tools": {"x": "allow"}, ow_tool_get_allowed_by());
 *   7. the mode: bypass-approvals and dangerously-bypass-approvals run,
 *      auto-approve sends the call to the reviewer (whose "uncertain" asks a
 *      person), ask asks.
 *
 * The agent can never grant itself anything: rules come only from the
 * machine config (a person's file), a project's config (which may only
 * narrow), and standing rules a person made from an approval card.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "policy/ow-rules.h"
#include "policy/ow-safety.h"
#include "store/ow-config.h"
#include "store/ow-store.h"
#include "tools/ow-tool.h"

G_BEGIN_DECLS

typedef enum {
  OW_VERDICT_ALLOW,
  OW_VERDICT_DENY,
  OW_VERDICT_ASK,
  OW_VERDICT_REVIEW,   /* auto-approve: the reviewer decides; uncertain asks a person */
} OwVerdict;

const char *ow_verdict_to_string (OwVerdict verdict);   /* "allow", "deny", "ask", "review" */

/* One call to decide. Borrowed. */
typedef struct {
  const char            *mode;             /* the session's approval mode */
  const char            *tool;
  OwRisk                 risk;
  JsonObject            *args;
  const char            *target_arg;       /* the tool's target argument (ow_tool_get_target_argument), or NULL */
  const char            *workspace;        /* the session's primary folder */
  gboolean               tool_granted;     /* the session holds a grant for this tool */
  gboolean               command_granted;  /* run_shell: a grant for this exact command */
  gboolean               readonly_granted; /* run_shell: the session allows read-only commands */
  const OwSafetyContext *safety;           /* NULL: no safety checks (only for tests of the rest) */
  const char            *allowed_by;       /* a person's file allows this tool (ow_tool_get_allowed_by), or NULL */
} OwPolicyCall;

typedef struct {
  OwVerdict  verdict;
  char      *reason;           /* a sentence: shown when asking, returned to the model when refused */
  char      *provenance;       /* for the audit trail: "low risk", "hard floor", "standing rule #3", … */
  char      *rule;             /* the rule that decided, as written, or NULL */
  guint      safety_checks;    /* OwSafetyCheck bits found */
  GPtrArray *safety_reasons;   /* char*, one per finding (never NULL after decide) */
  gboolean   cleared_by_mode;  /* safety checks cleared by dangerously-bypass-approvals */
  char      *suggested_rule;   /* what "always allow" would save, or NULL when it may not be offered */
} OwDecision;

void ow_decision_clear (OwDecision *decision);

#define OW_TYPE_POLICY (ow_policy_get_type ())
G_DECLARE_FINAL_TYPE (OwPolicy, ow_policy, OW, POLICY, GObject)

/* @config: the settings (machine + project layers); @store: where standing
 * rules live, or NULL for none. Fails when a configured rule cannot be read
 * (a mistyped hard floor must not silently disappear). */
OwPolicy *ow_policy_new            (OwConfig *config, OwStore *store, GError **error);
void      ow_policy_decide         (OwPolicy *self, const OwPolicyCall *call, OwDecision *out);
/* Changes whenever the rules in force change (for invalidating reviews). */
guint64   ow_policy_get_generation (OwPolicy *self);
/* Saves a standing rule a person made (from an approval card's "always").
 * Returns its id, or 0 with an error. */
gint64    ow_policy_add_standing_rule (OwPolicy *self, const char *rule, const char *decision,
                                       const char *created_by, const char *session_id, GError **error);
/* The standing rules in force, as text, for the reviewer's context. */
GStrv     ow_policy_dup_rules_text (OwPolicy *self);

G_END_DECLS
