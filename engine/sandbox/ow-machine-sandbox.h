/* ow-machine-sandbox.h: `openworker machine sandbox status|setup|remove`.
 *
 * The machine's sandbox is a setting in its config.toml (sandbox_provider);
 * these commands say what this machine offers, turn the sandbox on after
 * proving it works, and turn it off again. Nothing is installed
 * system-wide and nothing needs root: the Linux sandbox is built from
 * what the kernel already has.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @argv[0] is "sandbox", @argv[1] the subcommand. Backends must be
 * registered first (ow_sandbox_linux_register () on Linux). Returns the
 * exit code: 0 done (status: ready), 1 not possible here (status: not
 * ready; setup: a prerequisite is missing or the wall could not be
 * proved; a config that cannot be read or written), 2 usage. */
int ow_machine_sandbox_main (int argc, char **argv);

G_END_DECLS
