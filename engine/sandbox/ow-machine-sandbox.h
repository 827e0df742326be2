/* ow-machine-sandbox.h: `openworker machine sandbox status|setup|remove`.
 *
 * The machine's sandbox is a setting in its config.toml (sandbox_provider);
 * these commands say what this machine offers, turn the sandbox on after
 * proving it works, and turn it off again. Nothing is installed
 * system-wide and nothing needs root: the Linux sandbox is built from
 * what the kernel already has.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sandbox/ow-sandbox.h"

G_BEGIN_DECLS

/* @argv[0] is "sandbox", @argv[1] the subcommand. Backends must be
 * registered first (ow_sandbox_linux_register () on Linux). Returns the
 * exit code: 0 done (status: ready), 1 not possible here (status: not
 * ready; setup: a prerequisite is missing or the wall could not be
 * proved; a config that cannot be read or written), 2 usage. */
int ow_machine_sandbox_main (int argc, char **argv);

/* ---- The same, for settings screens ------------------------------------- */

/* The sandbox this system's builds offer first ("linux", "seatbelt",
 * "windows"). */
const char *ow_machine_sandbox_default_provider (void);

/**
 * ow_machine_sandbox_status:
 * @config_path: the machine's config.toml
 * @provider: (nullable): the backend to ask; %NULL = the configured one, else
 *   the default
 *
 * What this machine has and lacks for @provider: the backend's status
 * ({"ready", "checks": [{"name", "ok", "detail"}], "missing": […]}) plus
 * "provider", "configured" (config.toml's sandbox_provider, "direct" when
 * unset) and "config_file". Fails when the config cannot be read or no
 * backend is registered for @provider. Blocking (a backend may run its
 * CLI): call it from a worker thread, or use the _async form.
 *
 * Returns: (transfer full): the status
 */
JsonObject *ow_machine_sandbox_status        (const char          *config_path,
                                              const char          *provider,
                                              GError             **error);
void        ow_machine_sandbox_status_async  (const char          *config_path,
                                              const char          *provider,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
JsonObject *ow_machine_sandbox_status_finish (GAsyncResult        *result,
                                              GError             **error);

/* Opens a throwaway sandbox on an empty folder, proves the wall from
 * inside (the proof every session gets) and runs one command in it. The
 * result is the enforcement level that was proved. Run it on the main
 * context the backend's sessions use. */
void        ow_machine_sandbox_prove_async   (OwSandboxBackend    *backend,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
char       *ow_machine_sandbox_prove_finish  (OwSandboxBackend    *backend,
                                              GAsyncResult        *result,
                                              GError             **error);

/* Writes sandbox_provider = @provider into @config_path, keeping the other
 * settings ("direct" turns the sandbox off). Call it only after a proof. */
gboolean    ow_machine_sandbox_set_provider  (const char          *config_path,
                                              const char          *provider,
                                              GError             **error);

G_END_DECLS
