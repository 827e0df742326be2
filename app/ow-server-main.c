/* ow-server-main.c: `openworker-server`, the loopback API on its own.
 *
 *   openworker-server [--cwd DIR] [--port N]
 *
 * Serves the browser dev UI and the API on 127.0.0.1 (port 8765 by
 * default; the next free one when it is taken). At start it prints the
 * URL with the token in its fragment, http://127.0.0.1:PORT/#token=…, and
 * writes the token to <runtime>/sidecar-<port>.token (0600) for tools that
 * read it; the file is removed on exit, SIGINT and SIGTERM included.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib-unix.h>
#include <glib/gstdio.h>

#include "core/ow-context.h"
#include "core/ow-session-host.h"
#include "ow-redact.h"
#include "ow-secret-env.h"
#include "ow-sandbox-linux.h"
#include "ow-secret-libsecret.h"
#include "sandbox/ow-sandbox-openshell.h"
#include "server/ow-server.h"
#include "store/ow-paths.h"

static gboolean
on_signal_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_drain_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  g_autofree char *cwd_opt = NULL;
  int port_opt = OW_SERVER_DEFAULT_PORT;
  GOptionEntry entries[] = {
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &cwd_opt, "The default folder for code sessions (default: the current one)",
      "DIR" },
    { "port", 0, 0, G_OPTION_ARG_INT, &port_opt, "The port on 127.0.0.1 (default 8765; 0 = any free port)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("— the OpenWorker loopback API and browser UI");
  g_autoptr(GError) error = NULL;
  g_autoptr(OwPaths) paths = NULL;
  g_autoptr(OwSecretStore) secrets = NULL;
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwSessionHost) host = NULL;
  g_autoptr(OwServer) server = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *cwd = NULL;
  g_autofree char *token_path = NULL;
  g_autofree char *url = NULL;
  OwContextOptions ctx_options = { 0 };
  OwServerOptions server_options = { 0 };

  /* Before any thread: no other process of this user may read this one's
   * memory, environment or core dump, and the keys leave the environment
   * for memory. */
  ow_secret_env_protect_process ();
  ow_context_take_environment_secrets ();
  setlocale (LC_ALL, "");
  ow_sandbox_linux_register ();
  ow_sandbox_openshell_register ();
  ow_secret_libsecret_register ();
  /* No log line ever carries a key (nor the token: it is registered too). */
  ow_redact_install_log_writer ();
  /* stdout carries the URL line and nothing else. */
  g_log_writer_default_set_use_stderr (TRUE);

  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      fprintf (stderr, "openworker-server: %s\n", error->message);
      return 2;
    }
  if (port_opt < 0 || port_opt > 65535)
    {
      fprintf (stderr, "openworker-server: --port must be between 0 and 65535.\n");
      return 2;
    }
  {
    g_autofree char *given = cwd_opt != NULL ? g_strdup (cwd_opt) : g_get_current_dir ();
    char *real = realpath (given, NULL);
    if (real == NULL || !g_file_test (real, G_FILE_TEST_IS_DIR))
      {
        fprintf (stderr, "openworker-server: %s is not a folder.\n", given);
        free (real);
        return 2;
      }
    cwd = g_strdup (real);
    free (real);
  }

  paths = ow_paths_new_default ();
  /* The keys Models & Keys saves are the keys the sessions use: one store
   * (the OS keyring, or the sealed file; OPENWORKER_SECRET_STORE picks), as
   * the CLI and the desktop have. */
  secrets = ow_secret_store_new_default (paths);
  ctx_options.paths = paths;
  ctx_options.secrets = secrets;
  ctx_options.project_dir = cwd;
  ctx = ow_context_new (&ctx_options, &error);
  if (ctx == NULL)
    {
      fprintf (stderr, "openworker-server: %s\n", error->message);
      return 1;
    }
  host = ow_session_host_new (ctx, "server", &error);
  if (host == NULL)
    {
      fprintf (stderr, "openworker-server: %s\n", error->message);
      return 1;
    }
  server_options.default_workspace = cwd;
  server_options.secrets = secrets;
  server = ow_server_new (host, &server_options);
  ow_redact_register_secret (ow_server_get_token (server));
  if (!ow_server_listen (server, (guint) port_opt, port_opt == 0 ? 1 : 20, &error))
    {
      fprintf (stderr, "openworker-server: %s\n", error->message);
      return 1;
    }
  token_path = ow_server_write_token_file (paths->runtime_dir, ow_server_get_port (server),
                                           ow_server_get_token (server), &error);
  if (token_path == NULL)
    {
      fprintf (stderr, "openworker-server: could not write the token file: %s\n", error->message);
      return 1;
    }

  /* Turns parked by the last stop (or crash) wait on their asks again. */
  ow_session_host_resume_parked (host);

  loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGINT, on_signal_cb, loop);
  g_unix_signal_add (SIGTERM, on_signal_cb, loop);
  g_unix_signal_add (SIGHUP, on_signal_cb, loop);

  url = ow_server_dup_url (server);
  printf ("%s\n", url);
  fflush (stdout);
  fprintf (stderr, "OpenWorker is serving %s on 127.0.0.1:%u. Open the URL above in a browser; Ctrl+C stops.\n",
           cwd, ow_server_get_port (server));

  g_main_loop_run (loop);

  /* Say goodbye on every WebSocket, then go. */
  g_unlink (token_path);
  ow_server_close (server);
  g_timeout_add (200, on_drain_cb, loop);
  g_main_loop_run (loop);
  g_clear_object (&server);
  g_clear_object (&host);
  return 0;
}
