/* ow-server-static.c: the browser dev UI's files at /.
 *
 * Served from the compiled-in resources (/org/openworker/web/, files from
 * resources/web/) or, for development, from a folder
 * (OPENWORKER_WEB_DIR), confined to it. The pages need no token: they
 * carry none and learn it from the URL fragment. Every page gets a strict
 * Content-Security-Policy: scripts and styles from this server only, and
 * network access to this server only.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-private.h"

#include <string.h>
#include <unistd.h>

#include "ow-resources.h"
#include "server/ow-server-files.h"

#define WEB_PREFIX "/org/openworker/web"

static const struct {
  const char *suffix;
  const char *type;
} types[] = {
  { ".html", "text/html; charset=utf-8" },
  { ".js", "text/javascript; charset=utf-8" },
  { ".mjs", "text/javascript; charset=utf-8" },
  { ".css", "text/css; charset=utf-8" },
  { ".json", "application/json" },
  { ".svg", "image/svg+xml" },
  { ".png", "image/png" },
  { ".ico", "image/x-icon" },
  { ".woff2", "font/woff2" },
  { ".txt", "text/plain; charset=utf-8" },
  { ".map", "application/json" },
};

static const char *
content_type (const char *path)
{
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_has_suffix (path, types[i].suffix))
      return types[i].type;
  return NULL;
}

/* Only plain relative names: letters, digits, '-', '_', '.', '/', no
 * empty, "." or ".." segment and no segment starting with '.'. */
static gboolean
safe_name (const char *rel)
{
  gboolean seg_start = TRUE;

  if (*rel == '\0' || strlen (rel) > 256)
    return FALSE;
  for (const char *p = rel; *p != '\0'; p++)
    {
      if (seg_start && (*p == '.' || *p == '/'))
        return FALSE;
      seg_start = *p == '/';
      if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.' && *p != '/')
        return FALSE;
    }
  return !seg_start;
}

static void
security_headers (OwServer *self, SoupServerMessage *msg)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);
  g_autofree char *csp = g_strdup_printf ("default-src 'self'; script-src 'self'; style-src 'self'; "
                                          "img-src 'self' data: blob:; font-src 'self'; "
                                          "connect-src 'self' ws://127.0.0.1:%u ws://localhost:%u; "
                                          "object-src 'none'; base-uri 'none'; form-action 'none'; "
                                          "frame-ancestors 'none'",
                                          self->port, self->port);

  soup_message_headers_replace (h, "Content-Security-Policy", csp);
  soup_message_headers_replace (h, "X-Content-Type-Options", "nosniff");
  soup_message_headers_replace (h, "X-Frame-Options", "DENY");
  soup_message_headers_replace (h, "Referrer-Policy", "no-referrer");
  soup_message_headers_replace (h, "Cache-Control", "no-cache");
}

static void
not_found (SoupServerMessage *msg)
{
  static const char body[] = "{\"ok\":false,\"error\":\"There is no such file.\"}";

  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control", "no-store");
  soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

static GBytes *
lookup_file (OwServer *self, const char *rel)
{
  if (self->web_dir != NULL)
    {
      g_autofree char *root = realpath (self->web_dir, NULL);
      GBytes *bytes;
      int fd;

      if (root == NULL)
        return NULL;
      fd = ow_confined_open (root, rel, NULL, NULL);
      if (fd < 0)
        return NULL;
      bytes = ow_fd_read_all (fd, 32 * 1024 * 1024, NULL);
      close (fd);
      return bytes;
    }
  {
    g_autofree char *path = g_strconcat (WEB_PREFIX "/", rel, NULL);
    ow_resources_ensure ();
    return g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  }
}

void
ow_server_static_serve (OwServer *self, SoupServerMessage *msg, const char *path)
{
  const char *rel = path[0] == '/' ? path + 1 : path;
  g_autoptr(GBytes) bytes = NULL;
  const char *type;

  if (*rel == '\0')
    rel = "index.html";
  type = content_type (rel);
  if (!safe_name (rel) || type == NULL || (bytes = lookup_file (self, rel)) == NULL)
    {
      not_found (msg);
      return;
    }
  security_headers (self, msg);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, type, SOUP_MEMORY_COPY, g_bytes_get_data (bytes, NULL),
                                    g_bytes_get_size (bytes));
}
