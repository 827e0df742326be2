/* ow-sandbox-seatbelt.h: the macOS sandbox backend (sandbox_provider = "seatbelt").
 *
 * The tool runner under sandbox-exec with a profile rendered from the
 * session (ow-seatbelt-profile.h). macOS only; see ow-sandbox-seatbelt.c.
 */
#pragma once

#include <gio/gio.h>

#include "sandbox/ow-sandbox.h"

G_BEGIN_DECLS

#define OW_TYPE_SANDBOX_SEATBELT (ow_sandbox_seatbelt_get_type ())
G_DECLARE_FINAL_TYPE (OwSandboxSeatbelt, ow_sandbox_seatbelt, OW, SANDBOX_SEATBELT, GObject)

/* @proxy_port: the allow-list proxy's port on localhost (0: no network in
 * the allowlist profile). @managed_tools: OpenWorker's tools folder, read-only
 * inside, or NULL. */
OwSandboxBackend *ow_sandbox_seatbelt_new      (guint proxy_port, const char *managed_tools);
/* Registers "seatbelt" (no proxy port known: allowlist sessions get no
 * network until the engine passes one). */
void              ow_sandbox_seatbelt_register (void);

G_END_DECLS
