/* ow-desktop-main.c: `openworker-desktop`, the desktop application.
 *
 *   openworker-desktop [FOLDER…]
 *   openworker-desktop --help | --version
 *
 * A thin shell around OwApplication (ui/): registers this platform's
 * sandbox and keyring, keeps keys out of every log line, and runs the
 * application — a second launch presents the running window, and a
 * folder opens a new session there. On a machine with no display it runs
 * `openworker-server` instead, which prints the browser URL.
 */
#include <locale.h>
#include <stdio.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "config-ui.h"
#include "core/ow-context.h"
#include "ow-application.h"
#include "ow-redact.h"
#include "ow-secret-env.h"
#include "ow-sandbox-linux.h"
#include "ow-secret-libsecret.h"
#include "ow-web-module.h"
#include "sandbox/ow-sandbox-openshell.h"

/* No X11 or Wayland display: hand over to the loopback server, which
 * prints http://127.0.0.1:PORT/#token=… for a browser. */
static int
run_server_instead (void)
{
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = self_path != NULL ? g_path_get_dirname (self_path) : NULL;
  g_autofree char *sibling = dir != NULL ? g_build_filename (dir, "openworker-server", NULL) : NULL;
  g_autofree char *server = sibling != NULL && g_file_test (sibling, G_FILE_TEST_IS_EXECUTABLE)
                              ? g_strdup (sibling) : g_find_program_in_path ("openworker-server");
  char *argv[] = { server, NULL };

  fprintf (stderr, "%s\n", _("There is no display here, so OpenWorker serves its browser interface instead."));
  if (server == NULL)
    {
      fprintf (stderr, "%s\n", _("openworker-server was not found next to openworker-desktop or on the PATH."));
      return 1;
    }
  execv (server, argv);
  perror ("openworker-server");
  return 1;
}

/* Whether the command line only asks what the program is: those print
 * and exit, with or without a display (never a server in their place). */
static gboolean
asks_only (int argc, char **argv, gboolean *version)
{
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--"))
        break;
      if (g_str_equal (argv[i], "--version"))
        {
          *version = TRUE;
          return TRUE;
        }
      if (g_str_equal (argv[i], "-h") || g_str_equal (argv[i], "-?") || g_str_has_prefix (argv[i], "--help"))
        return TRUE;
    }
  return FALSE;
}

int
main (int argc, char **argv)
{
  gboolean version = FALSE;
  gboolean asks;
  g_autoptr(OwApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, OW_LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* No other process of this user may read this one's memory, environment
   * or core dump (the keys are in there). */
  ow_secret_env_protect_process ();
  asks = asks_only (argc, argv, &version);
  if (version)
    {
      printf ("openworker-desktop %s\n", OW_VERSION);
      return 0;
    }
  /* --help is GApplication's, printed before any window or display is
   * needed, so it goes there even here. */
  if (!asks && g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    return run_server_instead ();
  /* The keys leave the environment for memory, before GTK starts a thread;
   * not earlier, or the server exec'd above would start without them. */
  ow_context_take_environment_secrets ();

  /* Without a GPU render node GTK would draw through llvmpipe: some
   * 80 MiB and a slower start for nothing cairo cannot do. */
  ow_web_prefer_software ();

  ow_sandbox_linux_register ();
  ow_sandbox_openshell_register ();
  ow_secret_libsecret_register ();
  /* No log line ever carries a key, nor the API's token. */
  ow_redact_install_log_writer ();

  g_set_application_name ("OpenWorker");
  app = ow_application_new (NULL);
  g_application_set_option_context_parameter_string (G_APPLICATION (app), _("[FOLDER…]"));
  g_application_set_option_context_summary (G_APPLICATION (app),
                                            _("Opens OpenWorker, with a new session in each FOLDER given. "
                                              "Without a display it serves the browser interface instead."));
  return g_application_run (G_APPLICATION (app), argc, argv);
}
