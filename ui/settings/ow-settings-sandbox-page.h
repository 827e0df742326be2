/* ow-settings-sandbox-page.h: Settings ▸ Sandbox.
 *
 * The switch ("Run agents in a sandbox"), the sandbox types this machine
 * can use with the status check's findings and a way to set one up (the
 * same proof `openworker machine sandbox setup` makes, through the
 * engine's API), and once a type is chosen its options: the network
 * (only the sites you allow, with "Choose sites…", or everything), the
 * developer toolchains shown read-only, and the config and keys exposed
 * to the agent (the seeds' catalogue of CLI logins, and files or folders
 * of one's own). Everything is written to the machine's config.toml.
 */
#pragma once

#include <adwaita.h>

#include "core/ow-context.h"

G_BEGIN_DECLS

#define OW_TYPE_SETTINGS_SANDBOX_PAGE (ow_settings_sandbox_page_get_type ())
G_DECLARE_FINAL_TYPE (OwSettingsSandboxPage, ow_settings_sandbox_page, OW, SETTINGS_SANDBOX_PAGE, AdwPreferencesPage)

GtkWidget  *ow_settings_sandbox_page_new            (OwContext *ctx);
/* How many status checks have answered (tests wait for them). */
guint       ow_settings_sandbox_page_get_n_statuses (OwSettingsSandboxPage *self);
/* Whether a setup is running. */
gboolean    ow_settings_sandbox_page_get_busy       (OwSettingsSandboxPage *self);

/* The enforcement a sandbox proved ("linux: namespaces+landlock(abi 7)+
 * seccomp") in words: "a separate view of the files and processes, file
 * access limited to the session's folders and a filter on …". */
char       *ow_settings_describe_enforcement        (const char *enforcement);
/* A sandbox type's name for people ("Linux sandbox") and one line on it. */
const char *ow_sandbox_type_title (const char *provider);
const char *ow_sandbox_type_blurb (const char *provider);

G_END_DECLS
