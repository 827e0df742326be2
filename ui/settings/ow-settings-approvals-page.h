/* ow-settings-approvals-page.h: Settings ▸ Approvals.
 *
 * The mode new sessions start in (never dangerously-bypass-approvals: that
 * one is chosen per session, knowingly, or in config.toml by hand), the
 * standing rules a person made from approval cards — with who made them,
 * when, where and why, and a Revoke button — and, read-only, what this
 * machine's config.toml allows ([policy] allow) and never allows
 * ([policy] deny), naming the file to edit.
 */
#pragma once

#include <adwaita.h>

#include "core/ow-context.h"
#include "policy/ow-rules.h"

G_BEGIN_DECLS

#define OW_TYPE_SETTINGS_APPROVALS_PAGE (ow_settings_approvals_page_get_type ())
G_DECLARE_FINAL_TYPE (OwSettingsApprovalsPage, ow_settings_approvals_page, OW, SETTINGS_APPROVALS_PAGE, AdwPreferencesPage)

GtkWidget  *ow_settings_approvals_page_new     (OwContext *ctx);
/* Reads the standing rules again now (the page also notices changes by itself). */
void        ow_settings_approvals_page_reload  (OwSettingsApprovalsPage *self);

/* The modes offered as the default, in order, and their names for people. */
const char *const *ow_default_modes            (void);
const char *ow_mode_title                      (const char *mode);
const char *ow_mode_blurb                      (const char *mode);
/* "Made by person in session 1a2b3c4d, 29 Nov 2025 13:40", with the
 * reason and the expiry when there are. Pure: tested on its own. */
char       *ow_standing_rule_provenance        (const OwStandingRule *rule);
/* "In force", "Revoked 29 Nov 2025 13:40" or "Expired …". */
char       *ow_standing_rule_state             (const OwStandingRule *rule,
                                                GDateTime            *now);
gboolean    ow_standing_rule_in_force          (const OwStandingRule *rule,
                                                GDateTime            *now);

G_END_DECLS
