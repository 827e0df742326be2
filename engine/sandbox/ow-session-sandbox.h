/* ow-session-sandbox.h: where one session's shell and file tools run.
 *
 * The one place that turns the machine's sandbox settings into a working
 * executor for a session: `sandbox_provider` (machine config only; a
 * project's config cannot name it), the allow list (`sandbox_network_hosts`,
 * the credentials' hosts and a run's --allow-site entries), the allow-list
 * proxy the wall's only way out goes through, and the credentials shared on
 * purpose. With "direct" the tools run in-process and only the web tools
 * use the site list.
 *
 * It is itself an OwExecutor that forwards to the executor behind the wall
 * and adds to each result what the agent must know: the hosts the proxy
 * refused while the call ran ("network_blocked"), and, after folders were
 * added and the sandbox recreated, that shell state was lost. A session
 * whose wall cannot be proved is refused: start_finish fails with the
 * backend's reason and the session never runs open.
 */
#pragma once

#include <gio/gio.h>

#include "net/ow-address-guard.h"
#include "store/ow-config.h"
#include "store/ow-paths.h"
#include "tools/ow-executor.h"

G_BEGIN_DECLS

typedef struct {
  OwConfig          *config;        /* the merged config (sandbox keys only ever come from the machine's) */
  const OwPaths     *paths;         /* config, state and runtime folders (hidden from the sandbox) */
  const char        *session_id;
  GPtrArray         *roots;         /* OwRoot*: the session's folders, primary first */
  const char        *cwd;           /* where the shell starts */
  const char *const *extra_sites;   /* sites for this run only (--allow-site), or NULL */
  const char        *runner_path;   /* openworker-tool-runner; NULL = next to this program or on PATH */
  gboolean           isolated;      /* --isolated: no machine config, direct */
  /* What the command guard keeps read-only and hides (direct sessions);
   * from the safety checks (ow_safety_protected_names and
   * ow_safety_credential_paths), so the parser and the kernel name the
   * same places. NULL: nothing beyond OwPaths' folders. */
  const char *const *protected_names;
  const char *const *credential_paths;
} OwSessionSandboxOptions;

#define OW_TYPE_SESSION_SANDBOX (ow_session_sandbox_get_type ())
G_DECLARE_FINAL_TYPE (OwSessionSandbox, ow_session_sandbox, OW, SESSION_SANDBOX, GObject)

/* Reads the settings and builds the site list; starts nothing. Fails on a
 * bad allow-list entry or an unreadable credential entry, with the reason. */
OwSessionSandbox *ow_session_sandbox_new            (const OwSessionSandboxOptions *options, GError **error);

/* Starts the proxy and the sandbox and proves the wall (immediate for
 * "direct"). */
void              ow_session_sandbox_start_async    (OwSessionSandbox   *self,
                                                     GCancellable       *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer            user_data);
gboolean          ow_session_sandbox_start_finish   (OwSessionSandbox *self, GAsyncResult *result, GError **error);

/* "direct", "linux", "openshell", "seatbelt" or "windows". */
const char       *ow_session_sandbox_get_provider   (OwSessionSandbox *self);
/* "allowlist" or "open". */
const char       *ow_session_sandbox_get_network    (OwSessionSandbox *self);
/* The allow list and grants the proxy and the web tools follow (borrowed). */
OwSiteList       *ow_session_sandbox_get_sites      (OwSessionSandbox *self);
/* The address guard the web tools vet destinations with (borrowed). */
OwAddressGuard   *ow_session_sandbox_get_guard      (OwSessionSandbox *self);
/* Credential entries that were configured but not shared, with the reason
 * ("gh: /home/u/.config/gh does not exist"); borrowed, may be empty. */
GPtrArray        *ow_session_sandbox_get_skipped    (OwSessionSandbox *self);

/* Stops the sandbox and the session's proxy listener and forgets its grants. */
void              ow_session_sandbox_stop           (OwSessionSandbox *self);

G_END_DECLS
