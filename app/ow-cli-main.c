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
#include "headless/ow-cli-mcp.h"
#include "headless/ow-run.h"
#include "ow-redact.h"
#include "ow-secret-env.h"
#include "ow-session-marker.h"
#include "ow-sandbox-linux.h"
#include "ow-secret-libsecret.h"
#include "sandbox/ow-machine-sandbox.h"
#include "sandbox/ow-sandbox-openshell.h"

/* The commands that give a session more than it has: each is a person's
 * act, and a command a session started must not be able to make it (an
 * agent that could run `openworker rules add allow run_shell` would
 * approve itself). A row matches when argv[1], argv[2] and (when given)
 * argv[3] are its words. */
static const struct {
  const char *words[3];  /* the command's words after "openworker"; NULL ends early */
  const char *act;       /* what only a person can do, for the refusal */
} person_only[] = {
  { { "inbox", "answer", NULL }, "answer approvals and questions in the inbox" },
  { { "keys", "remove", NULL }, "remove model keys" },
  { { "keys", "set", NULL }, "save model keys" },
  { { "machine", "sandbox", "remove" }, "turn the machine sandbox off" },
  { { "mcp", "add", NULL }, "add MCP servers" },
  { { "mcp", "login", NULL }, "sign in to MCP servers" },
  { { "mcp", "logout", NULL }, "sign out of MCP servers" },
  { { "mcp", "remove", NULL }, "remove MCP servers" },
  { { "mcp", "tool", NULL }, "change what an MCP tool may do" },
  { { "machine", "sandbox", "setup" }, "change the machine sandbox" },
  { { "rules", "add", NULL }, "add standing rules" },
  { { "rules", "revoke", NULL }, "revoke standing rules" },
};

/* Exit code 2 with a refusal when argv is a person-only command and a
 * session started it (see ow-session-marker.h); 0 otherwise. */
static int
refuse_session_command (int argc, char **argv)
{
  for (size_t i = 0; i < G_N_ELEMENTS (person_only); i++)
    {
      gboolean match = TRUE;
      g_autofree char *why = NULL;

      for (int w = 0; w < 3 && person_only[i].words[w] != NULL && match; w++)
        match = w + 1 < argc && g_str_equal (argv[w + 1], person_only[i].words[w]);
      if (!match)
        continue;
      if (!ow_session_marker_find (&why))
        return 0;
      fprintf (stderr,
               "openworker: this command was started by an OpenWorker session (%s); only a person "
               "can %s. Nothing was changed. Run it yourself in a terminal that no session started.\n",
               why, person_only[i].act);
      return 2;
    }
  return 0;
}

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
         "  mcp        List, add, remove and inspect the machine's MCP servers\n"
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
  if (refuse_session_command (argc, argv) != 0)
    return 2;
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
  if (g_str_equal (argv[1], "mcp"))
    return ow_mcp_main (argc - 1, argv + 1);
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
