/* ow-policy.c: the decision before every tool call (see ow-policy.h). */
#define G_LOG_DOMAIN "ow-policy"

#include "policy/ow-policy.h"

#include <stdlib.h>
#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "policy/ow-readonly.h"
#include "tools/body/ow-tb.h"

struct _OwPolicy
{
  GObject    parent_instance;

  OwConfig  *config;          /* owned reference */
  OwStore   *store;           /* borrowed; standing rules; may be NULL */
  OwRuleSet *floors;          /* machine [policy] deny */
  OwRuleSet *config_allow;    /* machine [policy] allow */
  OwRuleSet *project_deny;    /* a project's [policy] deny */
  OwRuleSet *standing_allow;  /* standing rules in force */
  OwRuleSet *standing_deny;
  GPtrArray *standing_text;   /* char*: "allow run_shell:make" … for the reviewer */
  gint64     standing_version;
  guint64    generation;
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
    case OW_VERDICT_REVIEW: return "review";
    default: return "deny";
    }
}

void
ow_decision_clear (OwDecision *decision)
{
  g_clear_pointer (&decision->reason, g_free);
  g_clear_pointer (&decision->provenance, g_free);
  g_clear_pointer (&decision->rule, g_free);
  g_clear_pointer (&decision->safety_reasons, g_ptr_array_unref);
  g_clear_pointer (&decision->suggested_rule, g_free);
}

static void
ow_policy_finalize (GObject *object)
{
  OwPolicy *self = OW_POLICY (object);

  g_clear_pointer (&self->config, ow_config_unref);
  g_clear_pointer (&self->floors, ow_rule_set_free);
  g_clear_pointer (&self->config_allow, ow_rule_set_free);
  g_clear_pointer (&self->project_deny, ow_rule_set_free);
  g_clear_pointer (&self->standing_allow, ow_rule_set_free);
  g_clear_pointer (&self->standing_deny, ow_rule_set_free);
  g_clear_pointer (&self->standing_text, g_ptr_array_unref);
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
  self->standing_allow = ow_rule_set_new ();
  self->standing_deny = ow_rule_set_new_deny ();
  self->standing_text = g_ptr_array_new_with_free_func (g_free);
  self->standing_version = -1;
}

static OwRuleSet *
load_rules (const char *const *texts, const char *tag, const char *where, gboolean deny, GError **error)
{
  g_autoptr(OwRuleSet) set = deny ? ow_rule_set_new_deny () : ow_rule_set_new ();

  for (guint i = 0; texts != NULL && texts[i] != NULL; i++)
    {
      g_autoptr(GError) local = NULL;
      OwRule *rule = ow_rule_parse (texts[i], &local);
      if (rule == NULL)
        {
          g_set_error (error, OW_CONFIG_ERROR, OW_CONFIG_ERROR_INVALID, "%s: %s", where, local->message);
          return NULL;
        }
      ow_rule_set_add (set, rule, tag);
    }
  return g_steal_pointer (&set);
}

/* Reloads standing rules when another process (or this one) changed them. */
static void
refresh_standing (OwPolicy *self)
{
  g_autoptr(GPtrArray) rules = NULL;
  g_autoptr(GDateTime) now = NULL;
  gint64 version;

  if (self->store == NULL)
    return;
  version = ow_standing_rules_version (self->store);
  if (version == self->standing_version)
    return;
  rules = ow_standing_rules_list (self->store, NULL);
  if (rules == NULL)
    return;
  self->standing_version = version;
  self->generation++;
  g_clear_pointer (&self->standing_allow, ow_rule_set_free);
  g_clear_pointer (&self->standing_deny, ow_rule_set_free);
  self->standing_allow = ow_rule_set_new ();
  self->standing_deny = ow_rule_set_new_deny ();
  g_ptr_array_set_size (self->standing_text, 0);
  now = g_date_time_new_now_utc ();
  for (guint i = 0; i < rules->len; i++)
    {
      OwStandingRule *r = g_ptr_array_index (rules, i);
      g_autofree char *tag = NULL;
      OwRule *rule;

      if (r->revoked_at != NULL)
        continue;
      if (r->expires_at != NULL)
        {
          g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
          g_autoptr(GDateTime) expiry = g_date_time_new_from_iso8601 (r->expires_at, utc);
          if (expiry == NULL || g_date_time_compare (expiry, now) <= 0)
            continue;
        }
      rule = ow_rule_parse (r->rule, NULL);
      if (rule == NULL)
        continue;
      tag = g_strdup_printf ("standing rule #%" G_GINT64_FORMAT, r->id);
      ow_rule_set_add (g_str_equal (r->decision, "deny") ? self->standing_deny : self->standing_allow, rule, tag);
      g_ptr_array_add (self->standing_text, g_strdup_printf ("%s %s", r->decision, r->rule));
    }
}

OwPolicy *
ow_policy_new (OwConfig *config, OwStore *store, GError **error)
{
  g_autoptr(OwPolicy) self = g_object_new (OW_TYPE_POLICY, NULL);
  g_auto(GStrv) deny = NULL;
  g_auto(GStrv) allow = NULL;

  self->config = config != NULL ? ow_config_ref (config) : ow_config_new_empty ();
  self->store = store;
  deny = ow_config_get_strv (self->config, "policy.deny");
  allow = ow_config_get_strv (self->config, "policy.allow");
  self->floors = load_rules ((const char *const *) deny, "hard floor", "config.toml [policy] deny", TRUE, error);
  if (self->floors == NULL)
    return NULL;
  self->config_allow = load_rules ((const char *const *) allow, "config allowlist", "config.toml [policy] allow", FALSE, error);
  if (self->config_allow == NULL)
    return NULL;
  self->project_deny = load_rules (ow_config_get_project_deny (self->config), "project deny rule",
                                   ".openworker/config.toml [policy] deny", TRUE, error);
  if (self->project_deny == NULL)
    return NULL;
  refresh_standing (self);
  return g_steal_pointer (&self);
}

guint64
ow_policy_get_generation (OwPolicy *self)
{
  refresh_standing (self);
  return self->generation;
}

GStrv
ow_policy_dup_rules_text (OwPolicy *self)
{
  GPtrArray *out = g_ptr_array_new ();

  refresh_standing (self);
  for (guint i = 0; i < self->standing_text->len; i++)
    g_ptr_array_add (out, g_strdup (g_ptr_array_index (self->standing_text, i)));
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

static void
set (OwDecision *out, OwVerdict verdict, const char *reason, const char *provenance)
{
  out->verdict = verdict;
  g_free (out->reason);
  out->reason = g_strdup (reason);
  g_free (out->provenance);
  out->provenance = g_strdup (provenance);
}

static gboolean
matched (OwRuleSet *set, const OwRuleCall *rc, OwDecision *out, const char **tag)
{
  const char *text = NULL;

  *tag = ow_rule_set_match (set, rc, &text);
  if (*tag == NULL)
    return FALSE;
  g_free (out->rule);
  out->rule = g_strdup (text);
  return TRUE;
}

static gboolean
is_file_write (const char *tool)
{
  static const char *const writers[] = { "write_file", "replace_in_file", "edit_file", "apply_patch", NULL };

  return tool != NULL && g_strv_contains (writers, tool);
}

/* The path of a file tool's call it may not write, as the call names it,
 * or NULL when it may write them all. */
static char *
file_tool_refused_path (const OwSafetyContext *safety, const char *tool, JsonObject *args)
{
  g_autofree OwTbRoot *roots = g_new0 (OwTbRoot, MAX (safety->n_roots, 1));
  const char *path = args != NULL ? ow_json_get_string (args, "path") : NULL;
  char *refused = NULL;

  for (guint i = 0; i < safety->n_roots; i++)
    {
      roots[i].path = safety->roots[i];
      roots[i].writable = safety->roots_writable != NULL && safety->roots_writable[i];
    }
  if (g_str_equal (tool, "apply_patch"))
    {
      char *found = NULL;
      if (!ow_tb_patch_writable (roots, safety->n_roots, args != NULL ? ow_json_get_string (args, "patch") : NULL,
                                 &found))
        refused = g_strdup (found);
      free (found);
      return refused;
    }
  return path != NULL && !ow_tb_path_writable (roots, safety->n_roots, path) ? g_strdup (path) : NULL;
}

static void decide_inner (OwPolicy *self, const OwPolicyCall *call, const char *mode, OwRuleCall *rc,
                          OwDecision *out);

void
ow_policy_decide (OwPolicy *self, const OwPolicyCall *call, OwDecision *out)
{
  const char *mode = ow_approval_mode_canonical (call->mode);
  OwRuleCall rc = { .tool = call->tool, .args = call->args, .workspace = call->workspace,
                    .target_arg = call->target_arg };

  memset (out, 0, sizeof *out);
  out->safety_reasons = g_ptr_array_new_with_free_func (g_free);
  if (mode == NULL)
    mode = "ask";
  refresh_standing (self);
  decide_inner (self, call, mode, &rc, out);
  ow_rule_call_clear (&rc);
}

static void
decide_inner (OwPolicy *self, const OwPolicyCall *call, const char *mode, OwRuleCall *rc, OwDecision *out)
{
  const char *tag = NULL;
  gboolean consequential = call->risk != OW_RISK_READ;

  /* 1. Hard floors: no mode lowers them. */
  if (matched (self->floors, rc, out, &tag))
    {
      g_autofree char *reason = g_strdup_printf ("refused by this machine's hard floor \"%s\" (config.toml [policy] deny)",
                                                 out->rule);
      set (out, OW_VERDICT_DENY, reason, "denied by hard floor");
      return;
    }

  /* 2. Read-only modes. */
  if (consequential && (g_str_equal (mode, "plan") || g_str_equal (mode, "discuss")))
    {
      g_autofree char *reason = g_strdup_printf ("%s mode is read-only", mode);
      set (out, OW_VERDICT_DENY, reason, "denied by read-only mode");
      return;
    }

  /* A file tool writes only in a writable folder of the session, in
   * every mode: asking would only lead to the tool's own refusal. */
  if (call->safety != NULL && is_file_write (call->tool))
    {
      g_autofree char *path = file_tool_refused_path (call->safety, call->tool, call->args);

      if (path != NULL)
        {
          g_autofree char *reason = g_strdup_printf ("path is not in a writable directory: %s (file tools write only "
                                                     "in the session's writable folders; ask for one with "
                                                     "request_directory)", path);
          set (out, OW_VERDICT_DENY, reason, "denied: outside the writable folders");
          return;
        }
    }

  /* 3. Safety checks: found here, asked below in every mode but the
   * dangerous one. */
  if (call->safety != NULL)
    {
      OwSafetyResult found;

      ow_safety_result_init (&found);
      ow_safety_check_tool_parsed (call->safety, call->tool, call->args, ow_rule_call_get_parse (rc), &found);
      out->safety_checks = found.checks;
      for (guint i = 0; i < found.reasons->len; i++)
        g_ptr_array_add (out->safety_reasons, g_strdup (g_ptr_array_index (found.reasons, i)));
      ow_safety_result_clear (&found);
    }

  /* 4. Deny rules beat every ask, a safety check's included, and the
   * dangerous mode does not lower them: a project's `deny = ["run_shell:curl"]`
   * also refuses `curl … | sh`. */
  if (matched (self->project_deny, rc, out, &tag) || matched (self->standing_deny, rc, out, &tag))
    {
      g_autofree char *reason = g_strdup_printf ("refused by %s \"%s\"", tag, out->rule);
      g_autofree char *prov = g_strdup_printf ("denied by %s", tag);
      set (out, OW_VERDICT_DENY, reason, prov);
      return;
    }

  if (out->safety_checks != 0)
    {
      g_autoptr(GString) reason = g_string_new ("safety check: ");
      for (guint i = 0; i < out->safety_reasons->len; i++)
        {
          if (i > 0)
            g_string_append (reason, "; ");
          g_string_append (reason, g_ptr_array_index (out->safety_reasons, i));
        }
      if (g_str_equal (mode, "dangerously-bypass-approvals"))
        {
          out->cleared_by_mode = TRUE;
          set (out, OW_VERDICT_ALLOW, reason->str, "cleared by mode");
        }
      else
        set (out, OW_VERDICT_ASK, reason->str, NULL);
      return;
    }

  /* 5. Reading is allowed. */
  if (!consequential)
    {
      set (out, OW_VERDICT_ALLOW, "low risk", "low risk");
      return;
    }

  /* 6. What a person already allowed. */
  if (call->risk == OW_RISK_EXEC ? call->command_granted : call->tool_granted)
    {
      set (out, OW_VERDICT_ALLOW, call->risk == OW_RISK_EXEC ? "command allowed for this session"
                                                             : "tool allowed for this session",
           "user-approved for session");
      return;
    }
  if (call->risk == OW_RISK_EXEC && call->readonly_granted && g_strcmp0 (call->tool, "run_shell") == 0
      && ow_readonly_command (call->args != NULL ? ow_json_get_string (call->args, "command") : NULL))
    {
      set (out, OW_VERDICT_ALLOW, "read-only command (session grant)", "user-approved read-only commands for session");
      return;
    }
  if (matched (self->standing_allow, rc, out, &tag) || matched (self->config_allow, rc, out, &tag))
    {
      g_autofree char *reason = g_strdup_printf ("allowed by %s \"%s\"", tag, out->rule);
      g_autofree char *prov = g_strdup_printf ("auto-approved by %s \"%s\"", tag, out->rule);
      set (out, OW_VERDICT_ALLOW, reason, prov);
      return;
    }
  if (call->allowed_by != NULL)
    {
      g_autofree char *reason = g_strdup_printf ("allowed by %s", call->allowed_by);
      g_autofree char *prov = g_strdup_printf ("auto-approved by %s", call->allowed_by);
      set (out, OW_VERDICT_ALLOW, reason, prov);
      return;
    }

  /* 7. The mode. */
  if (g_str_equal (mode, "dangerously-bypass-approvals") || g_str_equal (mode, "bypass-approvals"))
    {
      g_autofree char *prov = g_strdup_printf ("auto-approved by mode %s", mode);
      set (out, OW_VERDICT_ALLOW, "allowed by the approval mode", prov);
      return;
    }
  out->suggested_rule = ow_rule_suggest (rc);
  if (g_str_equal (mode, "auto-approve"))
    set (out, OW_VERDICT_REVIEW, "the reviewer decides routine calls in auto-approve mode", NULL);
  else
    set (out, OW_VERDICT_ASK, "requires approval", NULL);
}

gint64
ow_policy_add_standing_rule (OwPolicy *self, const char *rule, const char *decision, const char *created_by,
                             const char *session_id, GError **error)
{
  gint64 id;

  if (self->store == NULL)
    {
      g_set_error_literal (error, OW_POLICY_ERROR, OW_POLICY_ERROR_DENIED,
                           "Standing rules cannot be saved in this session (it has no state database).");
      return 0;
    }
  id = ow_standing_rules_add (self->store, rule, decision, created_by, session_id, NULL, NULL, error);
  if (id > 0)
    refresh_standing (self);
  return id;
}
