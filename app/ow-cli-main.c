/* ow-cli-main.c: the `openworker` command.
 *
 * A thin shell over the engine: it picks the subcommand and hands over.
 * `run` is the headless task runner; the machine and remote-controller
 * subcommands arrive with their issues.
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "headless/ow-run.h"

static void
print_usage (FILE *out)
{
  fputs ("Usage: openworker COMMAND [OPTIONS]\n"
         "\n"
         "Commands:\n"
         "  run        Run one task to the end and leave a record (openworker run --help)\n"
         "  version    Print the version\n"
         "  help       Show this help\n", out);
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  if (argc < 2)
    {
      print_usage (stderr);
      return 2;
    }
  if (g_str_equal (argv[1], "run"))
    return ow_run_main (argc - 1, argv + 1);
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
