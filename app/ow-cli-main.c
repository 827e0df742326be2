/* ow-cli-main.c: the `openworker` command.
 *
 * A thin shell over the engine: it picks the subcommand and hands over.
 * `run` is the headless task runner; `machine sandbox` says what sandbox
 * this machine offers and turns it on or off. The other machine and
 * remote-controller subcommands arrive with their issues.
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "core/ow-context.h"
#include "headless/ow-cli-admin.h"
#include "headless/ow-cli-keys.h"
#include "headless/ow-run.h"
#include "ow-redact.h"
#include "ow-secret-env.h"
#include "ow-sandbox-linux.h"
#include "ow-secret-libsecret.h"
#include "sandbox/ow-machine-sandbox.h"
#include "sandbox/ow-sandbox-openshell.h"

static void
print_usage (FILE *out)
{
  fputs ("Usage: openworker COMMAND [OPTIONS]\n"
         "\n"
         "Commands:\n"
         "  run        Run one task to the end and leave a record (openworker run --help)\n"
         "  machine    This machine's settings: machine sandbox status|setup|remove\n"
         "  rules      List, add and revoke standing rules\n"
         "  inbox      List and answer approvals and questions parked for a person\n"
         "  audit      Verify the tamper-evident audit trail\n"
         "  keys       List, save, remove and test model keys (kept in the OS keyring)\n"
         "  version    Print the version\n"
         "  help       Show this help\n", out);
}

int
main (int argc, char **argv)
{
  /* Before anything else, and before any thread: no other process of this
   * user may read this one's memory, environment or core dump (the keys are
   * in there), and the keys leave the environment for memory. */
  ow_secret_env_protect_process ();
  ow_context_take_environment_secrets ();
  setlocale (LC_ALL, "");
  /* The sandboxes this build has, for whichever command needs one. */
  ow_sandbox_linux_register ();
  ow_sandbox_openshell_register ();
  /* Saved keys: the Secret Service when one answers, else the sealed file;
   * and no log line ever carries a key. */
  ow_secret_libsecret_register ();
  ow_redact_install_log_writer ();
  if (argc < 2)
    {
      print_usage (stderr);
      return 2;
    }
  if (g_str_equal (argv[1], "run"))
    return ow_run_main (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "machine"))
    {
      if (argc >= 3 && g_str_equal (argv[2], "sandbox"))
        return ow_machine_sandbox_main (argc - 2, argv + 2);
      if (argc < 3)
        fputs ("Usage: openworker machine sandbox status|setup|remove\n", stderr);
      else
        fprintf (stderr, "openworker: unknown command \"machine %s\"; try `openworker machine sandbox status`.\n",
                 argv[2]);
      return 2;
    }
  if (g_str_equal (argv[1], "rules"))
    return ow_rules_main (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "inbox"))
    return ow_inbox_main (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "audit"))
    return ow_audit_main (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "keys"))
    return ow_keys_main (argc - 1, argv + 1);
  if (g_str_equal (argv[1], "version") || g_str_equal (argv[1], "--version"))
    {
      printf ("openworker %s\n", OW_VERSION);
      return 0;
    }
  if (g_str_equal (argv[1], "help") || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    {
      print_usage (stdout);
      return 0;
    }
  fprintf (stderr, "openworker: unknown command \"%s\".\n\n", argv[1]);
  print_usage (stderr);
  return 2;
}
