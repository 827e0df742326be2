/* ow-model-server-main.c: the scripted model server as a program.
 *
 *   ow-model-server --script FILE|- [--port N] [--log FILE]
 *
 * For tests that drive the real programs (the CLI, the loopback API) from the
 * outside: it reads the script, listens on 127.0.0.1, prints exactly one line
 * "PORT=<n>" to stdout once it accepts connections, and serves until SIGTERM
 * or SIGINT, then exits 0. With --log, each recorded request is appended to
 * FILE as one JSON line as soon as it arrives, so a test can read what the
 * program under test sent even if that program is killed.
 */
#define G_LOG_DOMAIN "ow-model-server"

#include <errno.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "ow-model-server.h"

static gboolean
on_signal_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

static void
on_server_request_cb (OwModelServer *server,
                      JsonObject    *record,
                      gpointer       user_data)
{
  FILE *log = user_data;
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), record);
  g_autofree char *line = json_to_string (node, FALSE);

  fprintf (log, "%s\n", line);
  fflush (log);
}

static char *
read_script (const char  *path,
             gsize       *len,
             GError     **error)
{
  char *contents = NULL;

  if (g_strcmp0 (path, "-") == 0)
    {
      g_autoptr(GInputStream) in = g_unix_input_stream_new (0, FALSE);
      g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

      if (g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, error) < 0)
        return NULL;
      *len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
      return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
    }
  if (!g_file_get_contents (path, &contents, len, error))
    return NULL;
  return contents;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *script_path = NULL;
  g_autofree char *log_path = NULL;
  int port = 0;
  GOptionEntry entries[] = {
    { "script", 0, 0, G_OPTION_ARG_FILENAME, &script_path, "The script (- for stdin)", "FILE" },
    { "port", 0, 0, G_OPTION_ARG_INT, &port, "Port on 127.0.0.1 (default: a free one)", "N" },
    { "log", 0, 0, G_OPTION_ARG_FILENAME, &log_path, "Append each request as a JSON line", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("- serve a scripted model conversation");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(OwModelServer) server = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *script = NULL;
  FILE *log = NULL;
  gsize len = 0;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("ow-model-server: %s\n", error->message);
      return 2;
    }
  if (script_path == NULL || port < 0 || port > G_MAXUINT16)
    {
      g_printerr ("ow-model-server: usage: ow-model-server --script FILE|- [--port N] [--log FILE]\n");
      return 2;
    }

  script = read_script (script_path, &len, &error);
  if (script == NULL || !json_parser_load_from_data (parser, script, (gssize) len, &error))
    {
      g_printerr ("ow-model-server: cannot read the script %s: %s\n", script_path, error->message);
      return 1;
    }

  server = ow_model_server_new_on_port (json_parser_get_root (parser), (guint) port, &error);
  if (server == NULL)
    {
      g_printerr ("ow-model-server: %s\n", error->message);
      return 1;
    }

  if (log_path != NULL)
    {
      log = fopen (log_path, "a");
      if (log == NULL)
        {
          g_printerr ("ow-model-server: cannot open the log %s: %s\n", log_path, g_strerror (errno));
          return 1;
        }
      g_signal_connect (server, "request", G_CALLBACK (on_server_request_cb), log);
    }

  loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGTERM, on_signal_cb, loop);
  g_unix_signal_add (SIGINT, on_signal_cb, loop);

  printf ("PORT=%u\n", ow_model_server_get_port (server));
  fflush (stdout);
  g_main_loop_run (loop);

  g_clear_object (&server);
  if (log != NULL)
    fclose (log);
  return EXIT_SUCCESS;
}
