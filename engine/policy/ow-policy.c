/* ow-policy.c: the baseline decision before every tool call (see ow-policy.h). */
#define G_LOG_DOMAIN "ow-policy"

#include "policy/ow-policy.h"

#include <string.h>

struct _OwPolicy
{
  GObject   parent_instance;
  OwConfig *config;   /* the machine's settings (owned reference) */
};

G_DEFINE_FINAL_TYPE (OwPolicy, ow_policy, G_TYPE_OBJECT)

const char *
ow_verdict_to_string (OwVerdict verdict)
{
  switch (verdict)
    {
    case OW_VERDICT_ALLOW: return "allow";
    case OW_VERDICT_DENY: return "deny";
    case OW_VERDICT_ASK: return "ask";
    default: return "deny";
    }
}

void
ow_decision_clear (OwDecision *decision)
{
  g_clear_pointer (&decision->reason, g_free);
  g_clear_pointer (&decision->provenance, g_free);
}

static void
ow_policy_finalize (GObject *object)
{
  OwPolicy *self = OW_POLICY (object);

  g_clear_pointer (&self->config, ow_config_unref);
  G_OBJECT_CLASS (ow_policy_parent_class)->finalize (object);
}

static void
ow_policy_class_init (OwPolicyClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_policy_finalize;
}

static void
ow_policy_init (OwPolicy *self)
{
}

OwPolicy *
ow_policy_new (OwConfig *config)
{
  OwPolicy *self = g_object_new (OW_TYPE_POLICY, NULL);

  self->config = config != NULL ? ow_config_ref (config) : ow_config_new_empty ();
  return self;
}

static void
set (OwDecision *out, OwVerdict verdict, const char *reason, const char *provenance)
{
  out->verdict = verdict;
  out->reason = g_strdup (reason);
  out->provenance = g_strdup (provenance);
}

void
ow_policy_decide (OwPolicy *self, const OwPolicyCall *call, OwDecision *out)
{
  const char *mode = ow_approval_mode_canonical (call->mode);

  memset (out, 0, sizeof *out);
  if (mode == NULL)
    mode = "ask";

  if (call->risk != OW_RISK_READ && (g_str_equal (mode, "plan") || g_str_equal (mode, "discuss")))
    {
      g_autofree char *reason = g_strdup_printf ("%s mode is read-only", mode);
      set (out, OW_VERDICT_DENY, reason, "read-only mode");
      return;
    }
  if (call->risk == OW_RISK_READ)
    {
      set (out, OW_VERDICT_ALLOW, "low risk", "low risk");
      return;
    }
  if (g_str_equal (mode, "dangerously-bypass-approvals"))
    {
      set (out, OW_VERDICT_ALLOW, "allowed by mode dangerously-bypass-approvals", "cleared by mode");
      return;
    }
  if (g_str_equal (mode, "bypass-approvals"))
    {
      set (out, OW_VERDICT_ALLOW, "allowed by mode bypass-approvals", "auto-approved by mode");
      return;
    }
  if (call->risk == OW_RISK_EXEC && call->command_granted)
    {
      set (out, OW_VERDICT_ALLOW, "command allowed for session", "user-approved for session");
      return;
    }
  if (call->risk != OW_RISK_EXEC && call->tool_granted)
    {
      set (out, OW_VERDICT_ALLOW, "tool allowed for session", "user-approved for session");
      return;
    }
  set (out, OW_VERDICT_ASK, "requires approval", NULL);
}
