/* ow-server.c: the loopback API server.
 *
 * engine/server serves one OwSessionHost to browsers and other local
 * programs over HTTP and WebSocket on 127.0.0.1, with libsoup 3. The
 * request path is:
 *
 *   got headers → the front door (on_early_cb): Host must be loopback with
 *     our port, a browser Origin must be a loopback page, then the route's
 *     token rule, then its body limit. A refused request with a body is
 *     answered and its connection closed without reading the body.
 *   got body    → dispatch (on_request_cb): the route's handler, which
 *     replies at once or pauses the message and replies later.
 *   /ws/…       → the same front door for Host; after the upgrade
 *     ow-server-ws.c checks Origin and the token subprotocol and closes
 *     with 1008 when they are wrong.
 *
 * Everything runs on the thread-default main context the server was made
 * on (the host's). Nothing here logs a header, a query or a body: the
 * token travels in headers and secrets travel in bodies.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ow-error.h"
#include "ow-json.h"
#include "server/ow-server-guard.h"
#include "server/ow-server-peer.h"
#include "store/ow-paths.h"

G_DEFINE_QUARK (ow-server-error-quark, ow_server_error)

G_DEFINE_FINAL_TYPE (OwServer, ow_server, G_TYPE_OBJECT)

#define REQUEST_KEY "ow-request"

/* ---- Requests ------------------------------------------------------------- */

static void
ow_request_free (OwRequest *req)
{
  g_clear_object (&req->msg);
  g_clear_pointer (&req->query, g_hash_table_unref);
  for (guint i = 0; i < OW_REQUEST_MAX_PARAMS; i++)
    g_free (req->params[i]);
  g_clear_pointer (&req->body, json_node_unref);
  g_free (req);
}

static void
common_headers (SoupServerMessage *msg)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (h, "Cache-Control", "no-store");
  soup_message_headers_replace (h, "X-Content-Type-Options", "nosniff");
}

static void
set_json_body (SoupServerMessage *msg, guint status, char *json)
{
  gsize len = strlen (json);

  common_headers (msg);
  soup_server_message_set_status (msg, status, status == OW_STATUS_TOO_MANY_REQUESTS ? "Too Many Requests" : NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, json, len);
}

void
ow_reply_json_text (OwRequest *req, guint status, char *json)
{
  set_json_body (req->msg, status, json);
}

void
ow_reply_object (OwRequest *req, guint status, JsonObject *obj)
{
  ow_reply_json_text (req, status, ow_json_object_to_string (obj));
  json_object_unref (obj);
}

void
ow_reply_array (OwRequest *req, guint status, JsonArray *arr)
{
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), arr);

  ow_reply_json_text (req, status, ow_json_to_string (node));
  json_array_unref (arr);
}

static char *
error_json (const char *message)
{
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_boolean_member (obj, "ok", FALSE);
  json_object_set_string_member (obj, "error", message);
  return ow_json_object_to_string (obj);
}

void
ow_reply_error (OwRequest *req, guint status, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  ow_reply_json_text (req, status, error_json (message));
}

void
ow_reply_ok (OwRequest *req, JsonObject *extra)
{
  JsonObject *obj = json_object_new ();

  json_object_set_boolean_member (obj, "ok", TRUE);
  if (extra != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;
      json_object_iter_init (&iter, extra);
      while (json_object_iter_next (&iter, &name, &value))
        json_object_set_member (obj, name, json_node_copy (value));
      json_object_unref (extra);
    }
  ow_reply_object (req, SOUP_STATUS_OK, obj);
}

guint
ow_status_for_error (const GError *error)
{
  if (error->domain == OW_HOST_ERROR)
    switch ((OwHostError) error->code)
      {
      case OW_HOST_ERROR_NOT_FOUND:
        return SOUP_STATUS_NOT_FOUND;
      case OW_HOST_ERROR_BUSY:
      case OW_HOST_ERROR_ANSWERED:
        return SOUP_STATUS_CONFLICT;
      case OW_HOST_ERROR_NO_ASK:
        return SOUP_STATUS_CONFLICT;
      case OW_HOST_ERROR_INVALID:
        return SOUP_STATUS_BAD_REQUEST;
      }
  if (g_error_matches (error, OW_STORE_ERROR, OW_STORE_ERROR_NOT_FOUND))
    return SOUP_STATUS_NOT_FOUND;
  if (error->domain == G_IO_ERROR)
    switch (error->code)
      {
      case G_IO_ERROR_NOT_FOUND:
        return SOUP_STATUS_NOT_FOUND;
      case G_IO_ERROR_NOT_DIRECTORY:
      case G_IO_ERROR_INVALID_ARGUMENT:
      case G_IO_ERROR_INVALID_FILENAME:
      case G_IO_ERROR_IS_DIRECTORY:
        return SOUP_STATUS_BAD_REQUEST;
      case G_IO_ERROR_PERMISSION_DENIED:
        return SOUP_STATUS_FORBIDDEN;
      default:
        break;
      }
  if (error->domain == OW_POLICY_ERROR)
    return SOUP_STATUS_CONFLICT;
  return SOUP_STATUS_INTERNAL_SERVER_ERROR;
}

void
ow_reply_gerror (OwRequest *req, const GError *error)
{
  ow_reply_json_text (req, ow_status_for_error (error), error_json (error->message));
}

JsonObject *
ow_request_object (OwRequest *req)
{
  SoupMessageBody *body;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *data;
  gsize len;

  if (req->body != NULL)
    return json_node_get_object (req->body);
  body = soup_server_message_get_request_body (req->msg);
  bytes = soup_message_body_flatten (body);
  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      req->body = json_node_init_object (json_node_alloc (), json_object_new ());
      return json_node_get_object (req->body);
    }
  if (!ow_json_depth_ok (data, len, OW_SERVER_MAX_JSON_DEPTH))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "The request body nests too deeply.");
      return NULL;
    }
  req->body = ow_json_parse (data, (gssize) len, &error);
  if (req->body == NULL || !JSON_NODE_HOLDS_OBJECT (req->body))
    {
      g_clear_pointer (&req->body, json_node_unref);
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "The request body must be a JSON object.");
      return NULL;
    }
  return json_node_get_object (req->body);
}

const char *
ow_request_query (OwRequest *req, const char *name)
{
  return req->query != NULL ? g_hash_table_lookup (req->query, name) : NULL;
}

static void
on_msg_finished_cb (SoupServerMessage *msg, gpointer user_data)
{
  g_object_set_data (G_OBJECT (msg), "ow-finished", GINT_TO_POINTER (1));
}

void
ow_request_pause (OwRequest *req)
{
  req->async = TRUE;
  /* Only a paused request can outlive its client: watch for that here,
   * not on every request. */
  g_signal_connect (req->msg, "finished", G_CALLBACK (on_msg_finished_cb), NULL);
  soup_server_message_pause (req->msg);
}

gboolean
ow_request_alive (OwRequest *req)
{
  return g_object_get_data (G_OBJECT (req->msg), "ow-finished") == NULL;
}

void
ow_request_done (OwRequest *req)
{
  /* A handler that paused and then finished before returning: the
   * dispatcher still holds @req and frees it. */
  if (req->in_dispatch)
    {
      req->done = TRUE;
      return;
    }
  if (ow_request_alive (req))
    soup_server_message_unpause (req->msg);
  ow_request_free (req);
}

/* ---- Routes --------------------------------------------------------------- */

typedef struct {
  const OwRoute *routes;
  guint          n;
} RouteTable;

static RouteTable tables[6];

static void
ensure_tables (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      tables[0].routes = ow_server_misc_routes (&tables[0].n);
      tables[1].routes = ow_server_session_routes (&tables[1].n);
      tables[2].routes = ow_server_provider_routes (&tables[2].n);
      tables[3].routes = ow_server_openai_routes (&tables[3].n);
      tables[4].routes = ow_server_oauth_routes (&tables[4].n);
      tables[5].routes = ow_server_mcp_routes (&tables[5].n);
      g_once_init_leave (&done, 1);
    }
}

/* Matches @path against @pattern ('*' = one non-empty segment). Captures
 * go to @params when it matches. */
static gboolean
pattern_match (const char *pattern, const char *path, char **params)
{
  const char *p = pattern, *s = path;
  guint n = 0;
  const char *caps[OW_REQUEST_MAX_PARAMS];
  gsize lens[OW_REQUEST_MAX_PARAMS];

  while (*p != '\0')
    {
      if (*p == '*')
        {
          const char *end = strchr (s, '/');
          gsize len = end != NULL ? (gsize) (end - s) : strlen (s);
          if (len == 0 || n == OW_REQUEST_MAX_PARAMS)
            return FALSE;
          caps[n] = s;
          lens[n] = len;
          n++;
          s += len;
          p++;
          continue;
        }
      if (*p != *s)
        return FALSE;
      p++;
      s++;
    }
  if (*s != '\0')
    return FALSE;
  if (params != NULL)
    for (guint i = 0; i < n; i++)
      params[i] = g_strndup (caps[i], lens[i]);
  return TRUE;
}

/* The route for @method @path. *@path_known says whether any route has the
 * path (for 405 against 404). */
static const OwRoute *
find_route (const char *method, const char *path, gboolean *path_known)
{
  ensure_tables ();
  *path_known = FALSE;
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    for (guint i = 0; i < tables[t].n; i++)
      if (pattern_match (tables[t].routes[i].pattern, path, NULL))
        {
          *path_known = TRUE;
          if (strcmp (tables[t].routes[i].method, method) == 0)
            return &tables[t].routes[i];
        }
  return NULL;
}

/* ---- The front door ------------------------------------------------------- */

/* Answers @msg and closes its connection without reading the body the
 * client is still sending: a body that is too large or that nobody asked
 * for never reaches memory. The write side is shut first and what is
 * already in flight is drained for a moment, so the client reads the
 * answer instead of a reset. */
typedef struct {
  GIOStream *stream;
  char      *response;
  guint      timeout_id;
  gsize      drained;
  char       buf[16384];
} Closer;

static void
closer_finish (Closer *c)
{
  g_clear_handle_id (&c->timeout_id, g_source_remove);
  g_io_stream_close (c->stream, NULL, NULL);
  g_object_unref (c->stream);
  g_free (c->response);
  g_free (c);
}

static gboolean
on_closer_timeout_cb (gpointer user_data)
{
  Closer *c = user_data;

  c->timeout_id = 0;
  /* The pending read is cancelled by the close; its callback frees. */
  g_io_stream_close (c->stream, NULL, NULL);
  return G_SOURCE_REMOVE;
}

static void
on_closer_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Closer *c = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n > 0 && c->drained < 64 * 1024 * 1024 && !g_io_stream_is_closed (c->stream))
    {
      c->drained += (gsize) n;
      g_input_stream_read_async (G_INPUT_STREAM (source), c->buf, sizeof c->buf, G_PRIORITY_LOW, NULL,
                                 on_closer_read_cb, c);
      return;
    }
  closer_finish (c);
}

static void
on_closer_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Closer *c = user_data;
  GSocket *socket = g_object_get_data (G_OBJECT (c->stream), "GSocket");

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL))
    {
      closer_finish (c);
      return;
    }
  if (G_IS_SOCKET_CONNECTION (c->stream))
    socket = g_socket_connection_get_socket (G_SOCKET_CONNECTION (c->stream));
  if (socket != NULL)
    g_socket_shutdown (socket, FALSE, TRUE, NULL);
  c->timeout_id = g_timeout_add_seconds (2, on_closer_timeout_cb, c);
  g_input_stream_read_async (g_io_stream_get_input_stream (c->stream), c->buf, sizeof c->buf, G_PRIORITY_LOW,
                             NULL, on_closer_read_cb, c);
}

static void
refuse_and_close (SoupServerMessage *msg, guint status, const char *message)
{
  g_autofree char *json = error_json (message);
  SoupMessageHeaders *req_h = soup_server_message_get_request_headers (msg);
  const char *origin = soup_message_headers_get_one (req_h, "Origin");
  SoupMessageHeaders *resp_h = soup_server_message_get_response_headers (msg);
  const char *acao = soup_message_headers_get_one (resp_h, "Access-Control-Allow-Origin");
  Closer *c = g_new0 (Closer, 1);

  (void) origin;
  c->response = g_strdup_printf ("HTTP/1.1 %u %s\r\n"
                                 "Content-Type: application/json\r\n"
                                 "Content-Length: %zu\r\n"
                                 "Cache-Control: no-store\r\n"
                                 "X-Content-Type-Options: nosniff\r\n"
                                 "%s%s%s"
                                 "Connection: close\r\n\r\n%s",
                                 status, status == OW_STATUS_TOO_MANY_REQUESTS ? "Too Many Requests"
                                 : soup_status_get_phrase (status), strlen (json),
                                 acao != NULL ? "Access-Control-Allow-Origin: " : "", acao != NULL ? acao : "",
                                 acao != NULL ? "\r\nVary: Origin\r\n" : "", json);
  c->stream = soup_server_message_steal_connection (msg);
  if (c->stream == NULL)
    {
      g_free (c->response);
      g_free (c);
      return;
    }
  g_output_stream_write_all_async (g_io_stream_get_output_stream (c->stream), c->response, strlen (c->response),
                                   G_PRIORITY_DEFAULT, NULL, on_closer_written_cb, c);
}

/* Whether the request says it carries a body larger than @small, or one of
 * unknown length. */
static gboolean
has_body_over (SoupServerMessage *msg, goffset small)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);

  switch (soup_message_headers_get_encoding (h))
    {
    case SOUP_ENCODING_CONTENT_LENGTH:
      return soup_message_headers_get_content_length (h) > small;
    case SOUP_ENCODING_NONE:
      return FALSE;
    default:
      return TRUE;
    }
}

/* Refuses before the body is read: small bodies are read and dropped so
 * the connection can be kept; others are not read at all. */
static void
refuse (SoupServerMessage *msg, guint status, const char *message)
{
  if (has_body_over (msg, 64 * 1024))
    {
      refuse_and_close (msg, status, message);
      return;
    }
  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  set_json_body (msg, status, error_json (message));
}

static gboolean
count_auth_failure (OwServer *self)
{
  gint64 now = g_get_monotonic_time ();

  if (now - self->fail_window > OW_SERVER_AUTH_WINDOW_USEC)
    {
      self->fail_window = now;
      self->fail_count = 0;
    }
  return ++self->fail_count > OW_SERVER_AUTH_FAILURES_MAX;
}

/* A request with the right token from a session's own command is still
 * refused: the agent never grants itself anything through the API. The
 * answer is kept on the connection's socket (the /proc walk is once per
 * connection). */
gboolean
ow_server_from_session_command (SoupServerMessage *msg, char **why)
{
  GSocket *socket = soup_server_message_get_socket (msg);
  GSocketAddress *remote = soup_server_message_get_remote_address (msg);
  GSocketAddress *local = soup_server_message_get_local_address (msg);
  const char *cached;

  if (socket == NULL || !G_IS_INET_SOCKET_ADDRESS (remote) || !G_IS_INET_SOCKET_ADDRESS (local))
    return FALSE;
  cached = g_object_get_data (G_OBJECT (socket), "ow-session-command");
  if (cached == NULL)
    {
      g_autofree char *reason = NULL;
      gboolean is_command = ow_server_peer_is_session_command (
          g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (remote)),
          g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)), &reason);

      g_object_set_data_full (G_OBJECT (socket), "ow-session-command",
                              g_strdup (is_command ? reason : ""), g_free);
      cached = g_object_get_data (G_OBJECT (socket), "ow-session-command");
    }
  if (cached[0] == '\0')
    return FALSE;
  if (why != NULL)
    *why = g_strdup (cached);
  return TRUE;
}

static gboolean
token_ok (OwServer *self, SoupServerMessage *msg, OwRouteFlags flags)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *given = soup_message_headers_get_one (h, "X-OpenWorker-Token");

  if (given != NULL)
    return ow_server_token_equal (self->token, given);
  if (flags & OW_ROUTE_BEARER)
    {
      gsize len = 0;
      const char *bearer = ow_server_bearer_token (soup_message_headers_get_one (h, "Authorization"), &len);
      if (bearer != NULL)
        {
          g_autofree char *copy = g_strndup (bearer, len);
          return ow_server_token_equal (self->token, copy);
        }
    }
  return FALSE;
}

static void
on_got_chunk_cb (SoupServerMessage *msg, GBytes *chunk, gpointer user_data)
{
  OwRequest *req = g_object_get_data (G_OBJECT (msg), REQUEST_KEY);
  gsize limit = req != NULL && req->route != NULL && (req->route->flags & OW_ROUTE_BIG_BODY)
                  ? OW_SERVER_MAX_BIG_BODY : OW_SERVER_MAX_BODY;

  if (req == NULL)
    return;
  req->body_seen += g_bytes_get_size (chunk);
  if (req->body_seen > limit)
    {
      g_signal_handlers_disconnect_by_func (msg, on_got_chunk_cb, user_data);
      refuse_and_close (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "The request body is too large.");
    }
}

static void
add_cors (SoupServerMessage *msg, const char *origin)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (h, "Access-Control-Allow-Origin", origin);
  soup_message_headers_append (h, "Vary", "Origin");
}

static void
on_early_cb (SoupServer        *soup,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  OwServer *self = user_data;
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *method = soup_server_message_get_method (msg);
  const char *origin = soup_message_headers_get_one (h, "Origin");
  gboolean is_ws = g_str_has_prefix (path, "/ws/");
  gboolean is_api = g_str_has_prefix (path, "/v1/") || strcmp (path, "/v1") == 0;
  const OwRoute *route = NULL;
  OwRequest *req;

  if (self->closed)
    {
      refuse (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "The server is shutting down.");
      return;
    }
  /* DNS rebinding: a page on evil.example that resolves its name to
   * 127.0.0.1 sends Host: evil.example. */
  if (!ow_server_host_allowed (soup_message_headers_get_one (h, "Host"), self->port))
    {
      refuse (msg, SOUP_STATUS_FORBIDDEN,
              "This server answers only requests addressed to 127.0.0.1 or localhost with its port.");
      return;
    }
  if (is_ws)
    return;  /* Origin and token are checked after the upgrade (close 1008). */

  if (origin != NULL)
    {
      if (!ow_server_origin_allowed (origin, (const char *const *) self->extra_origins->pdata))
        {
          refuse (msg, SOUP_STATUS_FORBIDDEN, "Requests from other web sites are refused.");
          return;
        }
      add_cors (msg, origin);
    }

  if (strcmp (method, "OPTIONS") == 0)
    {
      SoupMessageHeaders *rh = soup_server_message_get_response_headers (msg);
      soup_message_headers_replace (rh, "Access-Control-Allow-Methods", "GET, POST, PATCH, PUT, DELETE, OPTIONS");
      soup_message_headers_replace (rh, "Access-Control-Allow-Headers",
                                    "X-OpenWorker-Token, Content-Type, Authorization");
      soup_message_headers_replace (rh, "Access-Control-Max-Age", "600");
      soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
      common_headers (msg);
      soup_server_message_set_status (msg, SOUP_STATUS_NO_CONTENT, NULL);
      return;
    }

  /* The liveness probe without a token: answered at the door, nothing
   * allocated (it is the route load balancers and scripts hammer). */
  if (strcmp (path, "/v1/health") == 0 && strcmp (method, "GET") == 0
      && soup_message_headers_get_one (h, "X-OpenWorker-Token") == NULL)
    {
      static const char bare[] = "{\"status\":\"ok\"}";
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control", "no-store");
      soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, bare, sizeof bare - 1);
      return;
    }

  req = g_new0 (OwRequest, 1);
  req->server = self;
  req->msg = g_object_ref (msg);
  g_object_set_data_full (G_OBJECT (msg), REQUEST_KEY, req, (GDestroyNotify) ow_request_free);

  if (is_api)
    {
      gboolean known;
      route = find_route (method, path, &known);
      req->route = route;
      req->authed = token_ok (self, msg, route != NULL ? route->flags : OW_ROUTE_TOKEN);
      if (req->authed)
        {
          g_autofree char *why = NULL;

          if (ow_server_from_session_command (msg, &why))
            {
              g_autofree char *text = g_strdup_printf ("A session's own command cannot use the OpenWorker API "
                                                       "(%s): only a person answers asks and grants "
                                                       "authority.", why);
              g_message ("refused an API request from a session's command: %s", why);
              refuse (msg, SOUP_STATUS_FORBIDDEN, text);
              return;
            }
        }
      if (!req->authed && (route == NULL || !(route->flags & OW_ROUTE_PUBLIC)))
        {
          /* Only guesses count: a page that lost its token sends none. */
          gboolean guessed = soup_message_headers_get_one (h, "X-OpenWorker-Token") != NULL
                             || soup_message_headers_get_one (h, "Authorization") != NULL;
          if (guessed && count_auth_failure (self))
            refuse (msg, OW_STATUS_TOO_MANY_REQUESTS, "Too many requests with a wrong token; wait a few seconds.");
          else
            refuse (msg, SOUP_STATUS_UNAUTHORIZED, "missing or invalid OpenWorker sidecar token");
          return;
        }
    }
  else if (strcmp (method, "GET") != 0 && strcmp (method, "HEAD") != 0)
    {
      refuse (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "Only GET is allowed here.");
      return;
    }

  {
    gsize limit = route != NULL && (route->flags & OW_ROUTE_BIG_BODY) ? OW_SERVER_MAX_BIG_BODY
                  : is_api ? OW_SERVER_MAX_BODY : 0;
    if (has_body_over (msg, (goffset) limit))
      {
        SoupMessageHeaders *rh = soup_server_message_get_request_headers (msg);
        if (soup_message_headers_get_encoding (rh) == SOUP_ENCODING_CONTENT_LENGTH)
          {
            refuse_and_close (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "The request body is too large.");
            return;
          }
        /* Chunked: counted as it arrives. */
        g_signal_connect (msg, "got-chunk", G_CALLBACK (on_got_chunk_cb), self);
      }
  }
}

static void
on_request_cb (SoupServer        *soup,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  OwServer *self = user_data;
  OwRequest *req = g_object_get_data (G_OBJECT (msg), REQUEST_KEY);
  const char *method = soup_server_message_get_method (msg);
  gboolean known = FALSE;
  const OwRoute *route;

  if (req == NULL)
    return;  /* answered at the door */

  if (!g_str_has_prefix (path, "/v1/"))
    {
      ow_server_static_serve (self, msg, path);
      return;
    }

  route = find_route (method, path, &known);
  if (route == NULL)
    {
      if (known)
        ow_reply_error (req, SOUP_STATUS_METHOD_NOT_ALLOWED, "%s is not allowed on %s.", method, path);
      else
        ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no such route.");
      return;
    }
  if (!pattern_match (route->pattern, path, req->params))
    g_assert_not_reached ();
  req->route = route;
  if (query != NULL)
    req->query = g_hash_table_ref (query);

  /* The handler owns @req from here when it pauses; the message keeps
   * its own data slot until it is freed otherwise. */
  g_object_steal_data (G_OBJECT (msg), REQUEST_KEY);
  req->in_dispatch = TRUE;
  route->func (self, req);
  req->in_dispatch = FALSE;
  if (req->async && req->done)
    soup_server_message_unpause (msg);
  if (!req->async || req->done)
    ow_request_free (req);
}

/* /ws/…: the plain handler runs before libsoup checks the handshake; it
 * refuses what is not a WebSocket upgrade to a known path. */
static void
on_ws_request_cb (SoupServer        *soup,
                  SoupServerMessage *msg,
                  const char        *path,
                  GHashTable        *query,
                  gpointer           user_data)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  gboolean known = strcmp (path, "/ws/events") == 0
                   || (g_str_has_prefix (path, "/ws/session/") && strchr (path + 12, '/') == NULL && path[12] != '\0');

  if (!known)
    {
      set_json_body (msg, SOUP_STATUS_NOT_FOUND, error_json ("There is no such stream."));
      return;
    }
  if (!soup_message_headers_header_contains (h, "Upgrade", "websocket"))
    set_json_body (msg, SOUP_STATUS_BAD_REQUEST, error_json ("This path takes a WebSocket connection."));
}

static void
on_ws_cb (SoupServer              *soup,
          SoupServerMessage       *msg,
          const char              *path,
          SoupWebsocketConnection *conn,
          gpointer                 user_data)
{
  ow_server_ws_accept (OW_SERVER (user_data), msg, path, conn);
}

/* ---- Host signals --------------------------------------------------------- */

static void
on_host_session_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  ow_server_ws_on_event (OW_SERVER (user_data), session_id, event);
}

static void
on_host_sessions_changed_cb (OwSessionHost *host, gpointer user_data)
{
  ow_server_ws_broadcast (OW_SERVER (user_data), "sessions_changed", json_object_new ());
}

static void
on_inbox_changed_cb (OwInbox *inbox, const char *id, gpointer user_data)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "id", id);
  ow_server_ws_broadcast (OW_SERVER (user_data), "inbox_changed", data);
}

/* ---- After a crash -------------------------------------------------------- */

/* Turns that were running when the last process died are closed as soon
 * as we start, not when someone happens to open their session: loading a
 * session makes the host mark its cut turn "interrupted" (retryable) and
 * end it with "turn_done", so every surface sees the truth at once. */
static gboolean
on_recover_idle_cb (gpointer user_data)
{
  OwServer *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) ids = ow_store_session_list_unfinished (ow_context_get_store (self->ctx), &error);

  self->recover_id = 0;
  if (ids == NULL)
    {
      g_warning ("Could not look for interrupted turns: %s", error->message);
      return G_SOURCE_REMOVE;
    }
  for (guint i = 0; i < ids->len; i++)
    {
      const char *id = g_ptr_array_index (ids, i);
      g_autoptr(OwSession) session = NULL;
      g_autoptr(GError) local = NULL;
      if (ow_session_host_is_running (self->host, id))
        continue;
      session = ow_session_host_get (self->host, id, &local);
      if (session == NULL)
        g_warning ("Could not close the interrupted turn of session %s: %s", id, local->message);
      else
        g_debug ("Closed the interrupted turn of session %s", id);
    }
  return G_SOURCE_REMOVE;
}

/* ---- Object --------------------------------------------------------------- */

static void
ow_server_dispose (GObject *object)
{
  OwServer *self = OW_SERVER (object);

  ow_server_close (self);
  g_clear_handle_id (&self->recover_id, g_source_remove);
  ow_server_ws_free_all (self);
  if (self->host != NULL)
    {
      g_clear_signal_handler (&self->event_handler, self->host);
      g_clear_signal_handler (&self->changed_handler, self->host);
      g_clear_signal_handler (&self->inbox_added_handler, ow_session_host_get_inbox (self->host));
      g_clear_signal_handler (&self->inbox_resolved_handler, ow_session_host_get_inbox (self->host));
    }
  g_clear_object (&self->soup);
  g_clear_object (&self->host);
  g_clear_object (&self->secrets);
  g_clear_object (&self->oauth);
  G_OBJECT_CLASS (ow_server_parent_class)->dispose (object);
}

static void
ow_server_finalize (GObject *object)
{
  OwServer *self = OW_SERVER (object);

  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);
  g_free (self->default_workspace);
  g_free (self->web_dir);
  g_free (self->scratch_dir);
  g_free (self->scratch_real);
  g_ptr_array_unref (self->extra_origins);
  g_hash_table_unref (self->watchers);
  g_ptr_array_unref (self->event_clients);
  g_ptr_array_unref (self->clients);
  g_object_unref (self->cancellable);
  G_OBJECT_CLASS (ow_server_parent_class)->finalize (object);
}

static void
ow_server_class_init (OwServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_server_dispose;
  object_class->finalize = ow_server_finalize;
}

static void
ow_server_init (OwServer *self)
{
  self->extra_origins = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->extra_origins, NULL);
  self->watchers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  self->event_clients = g_ptr_array_new ();
  self->clients = g_ptr_array_new ();
  self->cancellable = g_cancellable_new ();
}

OwServer *
ow_server_new (OwSessionHost *host, const OwServerOptions *options)
{
  OwServer *self;
  const OwServerOptions defaults = { 0 };
  const char *protocols[] = { "openworker", NULL };
  const char *web_dir;

  g_return_val_if_fail (OW_IS_SESSION_HOST (host), NULL);
  if (options == NULL)
    options = &defaults;

  self = g_object_new (OW_TYPE_SERVER, NULL);
  self->host = g_object_ref (host);
  self->ctx = ow_session_host_get_context (host);
  self->token = options->token != NULL ? g_strdup (options->token) : ow_server_token_new ();
  self->default_workspace = g_strdup (options->default_workspace);
  web_dir = options->web_dir != NULL ? options->web_dir : g_getenv ("OPENWORKER_WEB_DIR");
  if (web_dir != NULL && *web_dir != '\0')
    self->web_dir = g_canonicalize_filename (web_dir, NULL);
  self->scratch_dir = ow_context_dup_scratch_dir (self->ctx);
  {
    char *real;
    g_mkdir_with_parents (self->scratch_dir, 0700);
    real = realpath (self->scratch_dir, NULL);
    if (real != NULL && strcmp (real, self->scratch_dir) != 0)
      self->scratch_real = g_strdup (real);
    free (real);
  }
  /* Where keys are saved must be where the sessions look for them: the
   * context's store unless the caller names one. */
  if (options->secrets != NULL)
    self->secrets = g_object_ref (options->secrets);
  else if (ow_context_get_secrets (self->ctx) != NULL)
    self->secrets = g_object_ref (ow_context_get_secrets (self->ctx));
  else
    self->secrets = ow_secret_store_new_default (ow_context_get_paths (self->ctx));
  /* The context's sign-ins come back through our callback route. */
  if (ow_context_get_oauth (self->ctx) != NULL)
    self->oauth = g_object_ref (ow_context_get_oauth (self->ctx));

  /* No "Server:" header: nothing to fingerprint. */
  self->soup = soup_server_new ("server-header", NULL, NULL);
  /* Compression on loopback buys nothing and a hostile client could use
   * it to inflate frames past the size limits. */
  soup_server_remove_websocket_extension (self->soup, SOUP_TYPE_WEBSOCKET_EXTENSION_DEFLATE);
  soup_server_add_early_handler (self->soup, NULL, on_early_cb, self, NULL);
  soup_server_add_handler (self->soup, NULL, on_request_cb, self, NULL);
  soup_server_add_early_handler (self->soup, "/ws", on_early_cb, self, NULL);
  soup_server_add_handler (self->soup, "/ws", on_ws_request_cb, self, NULL);
  soup_server_add_websocket_handler (self->soup, "/ws", NULL, (char **) protocols, on_ws_cb, self, NULL);

  self->event_handler = g_signal_connect (host, "session-event", G_CALLBACK (on_host_session_event_cb), self);
  self->changed_handler = g_signal_connect (host, "sessions-changed", G_CALLBACK (on_host_sessions_changed_cb), self);
  self->inbox_added_handler = g_signal_connect (ow_session_host_get_inbox (host), "item-added",
                                                G_CALLBACK (on_inbox_changed_cb), self);
  self->inbox_resolved_handler = g_signal_connect (ow_session_host_get_inbox (host), "item-resolved",
                                                   G_CALLBACK (on_inbox_changed_cb), self);
  self->recover_id = g_idle_add (on_recover_idle_cb, self);
  return self;
}

gboolean
ow_server_listen (OwServer *self, guint port, guint tries, GError **error)
{
  g_autoptr(GError) last = NULL;

  g_return_val_if_fail (OW_IS_SERVER (self), FALSE);
  g_return_val_if_fail (port <= 65535, FALSE);

  if (tries == 0)
    tries = 1;
  for (guint i = 0; i < tries && port + i <= 65535; i++)
    {
      g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
      g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, (guint16) (port == 0 ? 0 : port + i));
      g_clear_error (&last);
      if (soup_server_listen (self->soup, addr, 0, &last))
        {
          GSList *uris = soup_server_get_uris (self->soup);
          self->port = (guint) g_uri_get_port (uris->data);
          g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
          g_debug ("Listening on 127.0.0.1:%u", self->port);
          if (self->oauth != NULL)
            ow_server_oauth_listening (self);
          return TRUE;
        }
      if (port == 0 || !g_error_matches (last, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE))
        break;
    }
  if (g_error_matches (last, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE))
    g_set_error (error, OW_SERVER_ERROR, OW_SERVER_ERROR_NO_PORT,
                 "Ports %u to %u on 127.0.0.1 are all taken; stop what uses them or pass --port.", port,
                 port + tries - 1);
  else
    g_propagate_prefixed_error (error, g_steal_pointer (&last), "Could not listen on 127.0.0.1:%u: ", port);
  return FALSE;
}

guint
ow_server_get_port (OwServer *self)
{
  return self->port;
}

const char *
ow_server_get_token (OwServer *self)
{
  return self->token;
}

char *
ow_server_dup_url (OwServer *self)
{
  return g_strdup_printf ("http://127.0.0.1:%u/#token=%s", self->port, self->token);
}

void
ow_server_add_origin (OwServer *self, const char *origin)
{
  g_return_if_fail (origin != NULL);
  g_ptr_array_insert (self->extra_origins, (gint) self->extra_origins->len - 1, g_strdup (origin));
}

void
ow_server_close (OwServer *self)
{
  if (self->closed)
    return;
  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);
  ow_server_ws_close_all (self);
  if (self->soup != NULL)
    soup_server_disconnect (self->soup);
}

char *
ow_server_write_token_file (const char *runtime_dir, guint port, const char *token, GError **error)
{
  g_autofree char *name = g_strdup_printf ("sidecar-%u.token", port);
  g_autofree char *path = g_build_filename (runtime_dir, name, NULL);

  if (!ow_paths_ensure_dir (runtime_dir, error))
    return NULL;
  if (!ow_write_file_atomic (path, token, -1, 0600, error))
    return NULL;
  return g_steal_pointer (&path);
}
