/* ow-policy.h: the decision before every tool call.
 *
 * The agent asks the policy about each call before it runs: allow, deny, or
 * ask a person. The policy reads the tool's risk class, the session's
 * approval mode and what the person has already granted for this session.
 * It holds for every surface because it lives in the engine; the agent
 * cannot grant itself anything — only a person's answer (recorded by the
 * agent as a session grant) widens what a session may do.
 *
 * This is the seam the governance work builds on (hard floors, safety
 * checks, standing rules, the reviewer); the rules here are the baseline:
 *   discuss / plan: consequential calls are refused without asking;
 *   read-only tools: allowed;
 *   bypass-approvals, dangerously-bypass-approvals: allowed;
 *   a session grant for the tool (not the shell) or the exact command: allowed;
 *   otherwise (ask, auto-approve): ask.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "store/ow-config.h"
#include "tools/ow-tool.h"

G_BEGIN_DECLS

typedef enum {
  OW_VERDICT_ALLOW,
  OW_VERDICT_DENY,
  OW_VERDICT_ASK,
} OwVerdict;

const char *ow_verdict_to_string (OwVerdict verdict);

/* One call to decide. Borrowed. */
typedef struct {
  const char *mode;             /* the session's approval mode */
  const char *tool;
  OwRisk      risk;
  JsonObject *args;
  gboolean    tool_granted;     /* the session holds a grant for this tool */
  gboolean    command_granted;  /* run_shell: the session holds a grant for this exact command */
} OwPolicyCall;

typedef struct {
  OwVerdict verdict;
  char     *reason;       /* a sentence: shown when asking, returned to the model when denied */
  char     *provenance;   /* for the audit trail: "low risk", "session grant", "mode bypass-approvals", … */
} OwDecision;

void ow_decision_clear (OwDecision *decision);

#define OW_TYPE_POLICY (ow_policy_get_type ())
G_DECLARE_FINAL_TYPE (OwPolicy, ow_policy, OW, POLICY, GObject)

OwPolicy *ow_policy_new    (OwConfig *config);
void      ow_policy_decide (OwPolicy *self, const OwPolicyCall *call, OwDecision *out);

G_END_DECLS
