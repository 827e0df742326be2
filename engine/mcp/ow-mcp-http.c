/* ow-mcp-http.c: streamable HTTP for the MCP client (see ow-mcp-http.h).
 *
 * Each POST is a Post: the request's id (when it is a request), the
 * cancellable that ends it, and how its 2xx body is read, decided by the
 * Content-Type of the answer: a JSON body is gathered up to the message
 * limit; an SSE stream goes through OwSseParser with the same limit per
 * event. Bodies of other statuses are gathered by OwHttpClient itself.
 */
#define G_LOG_DOMAIN "ow-mcp"

#include "mcp/ow-mcp-http.h"

#include <string.h>

#include "mcp/ow-jsonrpc.h"
#include "net/ow-http-client.h"
#include "net/ow-sse-parser.h"
#include "ow-error.h"
#include "ow-json.h"

#define MAX_GET_REOPENS 10

struct _OwMcpHttp
{
  gint                refcount;
  OwHttpClient       *http;
  char               *name;              /* the server's name, for messages */
  char               *url;
  char              **headers;           /* "Name: value" from mcp.json */
  char               *session_id;        /* Mcp-Session-Id, once given */
  char               *access_token;      /* an OAuth access token, or NULL; never logged */
  char               *protocol_version;  /* MCP-Protocol-Version, once agreed */
  gboolean            modern;            /* 2026-07-28: Mcp-Method/Mcp-Name, no GET, no session */
  gsize               max;               /* largest message accepted */
  guint               connect_ms;
  GHashTable         *posts;             /* Post * set: what is in flight */
  gboolean            get_open;          /* the server's stream is open */
  gboolean            get_refused;       /* the server has no GET stream */
  guint               get_reopens;       /* reopened in a row without an event */
  gboolean            closing;
  OwMcpHttpCallbacks  cb;
  gpointer            user_data;
};

typedef struct
{
  OwMcpHttp    *t;           /* owned reference */
  gint64        id;          /* the request's id, or -1 */
  gboolean      is_get;      /* the server's own stream */
  GCancellable *cancel;
  gboolean      decided;     /* the Content-Type was looked at */
  OwSseParser  *sse;         /* an SSE answer */
  GByteArray   *json;        /* a JSON answer */
  gboolean      oversize;
  guint         n_events;
} Post;

static OwMcpHttp *
http_ref (OwMcpHttp *t)
{
  t->refcount++;
  return t;
}

static void
http_unref (OwMcpHttp *t)
{
  if (--t->refcount > 0)
    return;
  g_hash_table_unref (t->posts);
  g_clear_object (&t->http);
  g_free (t->name);
  g_free (t->url);
  g_strfreev (t->headers);
  g_free (t->session_id);
  g_free (t->protocol_version);
  g_free (t->access_token);
  g_free (t);
}

static void
post_free (Post *p)
{
  g_clear_pointer (&p->sse, ow_sse_parser_free);
  g_clear_pointer (&p->json, g_byte_array_unref);
  g_clear_object (&p->cancel);
  http_unref (p->t);
  g_free (p);
}

OwMcpHttp *
ow_mcp_http_start (const OwMcpServerConfig  *config,
                   const OwMcpHttpCallbacks *callbacks,
                   gpointer                  user_data)
{
  OwMcpHttp *t = g_new0 (OwMcpHttp, 1);

  t->refcount = 1;
  t->http = ow_http_client_new ();
  t->name = g_strdup (config->name);
  t->url = g_strdup (config->url);
  t->headers = g_strdupv (config->headers);
  t->max = config->max_message_bytes;
  t->connect_ms = config->start_timeout_ms;
  t->posts = g_hash_table_new (NULL, NULL);
  t->cb = *callbacks;
  t->user_data = user_data;
  return t;
}

static OwHttpRequest *
build_request (OwMcpHttp  *t,
               const char *method)
{
  OwHttpRequest *req = ow_http_request_new (method, t->url);

  for (char **h = t->headers; *h != NULL; h++)
    {
      const char *colon = strchr (*h, ':');
      g_autofree char *name = NULL;

      if (colon == NULL)
        continue;
      name = g_strndup (*h, (gsize) (colon - *h));
      ow_http_request_add_header (req, name, colon + 1);
    }
  ow_http_request_add_header (req, "Accept", g_str_equal (method, "GET") ? "text/event-stream"
                                                                          : "application/json, text/event-stream");
  if (t->access_token != NULL)
    {
      g_autofree char *bearer = g_strconcat ("Bearer ", t->access_token, NULL);

      ow_http_request_add_header (req, "Authorization", bearer);
    }
  if (t->session_id != NULL)
    ow_http_request_add_header (req, "Mcp-Session-Id", t->session_id);
  if (t->protocol_version != NULL)
    ow_http_request_add_header (req, "MCP-Protocol-Version", t->protocol_version);
  /* The client's own timeouts govern requests; a stream may stay quiet. */
  ow_http_request_set_timeouts (req, t->connect_ms, 0, 0);
  ow_http_request_set_max_body (req, t->max);
  return req;
}

static void
remember_session (OwMcpHttp      *t,
                  OwHttpResponse *resp)
{
  const char *sid = ow_http_response_get_header (resp, "Mcp-Session-Id");

  if (sid == NULL || sid[0] == '\0' || g_strcmp0 (sid, t->session_id) == 0)
    return;
  /* Visible ASCII only (0x21–0x7E): it goes back into a header. */
  for (const char *c = sid; *c != '\0'; c++)
    if (*c < 0x21 || *c > 0x7e)
      return;
  g_free (t->session_id);
  t->session_id = g_strdup (sid);
}

static gboolean
on_sse_event (const char *event,
              const char *data,
              gsize       len,
              gpointer    user_data)
{
  Post *p = user_data;

  if (p->t->closing)
    return FALSE;
  if ((event[0] == '\0' || g_str_equal (event, "message")) && len > 0)
    {
      p->n_events++;
      p->t->cb.message (data, len, p->t->user_data);
    }
  return !p->t->closing;
}

static gboolean
on_chunk_cb (OwHttpResponse *resp,
             const char     *data,
             gsize           len,
             gpointer        user_data)
{
  Post *p = user_data;

  if (p->t->closing)
    return FALSE;
  if (!p->decided)
    {
      const char *type = ow_http_response_get_header (resp, "Content-Type");

      p->decided = TRUE;
      remember_session (p->t, resp);
      if (type != NULL && g_ascii_strncasecmp (type, "text/event-stream", 17) == 0)
        p->sse = ow_sse_parser_new (on_sse_event, p, p->t->max);
      else
        p->json = g_byte_array_new ();
    }
  if (p->sse != NULL)
    {
      OwParseStatus status = ow_sse_parser_feed (p->sse, data, len);

      if (status == OW_PARSE_TOO_LARGE)
        p->oversize = TRUE;
      return status == OW_PARSE_OK;
    }
  if (p->json->len + len > p->t->max)
    {
      p->oversize = TRUE;
      return FALSE;
    }
  g_byte_array_append (p->json, (const guint8 *) data, (guint) len);
  return TRUE;
}

static void
fail (Post       *p,
      gint        code,
      const char *format,
      ...) G_GNUC_PRINTF (3, 4);

static void
fail (Post       *p,
      gint        code,
      const char *format,
      ...)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  if (p->id < 0 || p->t->closing)
    {
      g_debug ("MCP server %s: %s", p->t->name, text);
      return;
    }
  error = g_error_new_literal (OW_MCP_ERROR, code, text);
  p->t->cb.request_failed (p->id, error, p->t->user_data);
}

static void open_get (OwMcpHttp *t);

/* A JSON-RPC error body for this very request: the client reads it. */
static gboolean
deliver_rpc_error (Post  *p,
                   GBytes *body)
{
  gsize n = 0;
  const char *data = g_bytes_get_data (body, &n);
  g_autoptr(OwJsonRpcMessage) msg = n > 0 ? ow_jsonrpc_message_parse (data, n, NULL) : NULL;

  if (msg == NULL || msg->kind != OW_JSONRPC_ERROR || msg->id == NULL || p->id < 0
      || json_node_get_value_type (msg->id) != G_TYPE_INT64 || json_node_get_int (msg->id) != p->id)
    return FALSE;
  p->t->cb.message (data, n, p->t->user_data);
  return TRUE;
}

static void
on_post_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Post *p = user_data;
  OwMcpHttp *t = p->t;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwHttpResponse) resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &error);
  guint status;

  g_hash_table_remove (t->posts, p);
  if (p->is_get)
    t->get_open = FALSE;
  if (t->closing || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    goto out;
  if (resp == NULL)
    {
      if (p->oversize)
        fail (p, OW_MCP_ERROR_TOO_LARGE,
              "The MCP server “%s” sent a message larger than %" G_GSIZE_FORMAT " bytes; it was dropped. "
              "Raise max_message_bytes in mcp.json if the server's results are that large.", t->name, t->max);
      else
        fail (p, OW_MCP_ERROR_EXITED, "The MCP server “%s” could not be reached: %s", t->name, error->message);
      goto out;
    }
  status = ow_http_response_get_status (resp);
  remember_session (t, resp);
  if (status >= 200 && status < 300)
    {
      if (p->sse != NULL)
        ow_sse_parser_finish (p->sse);
      else if (p->json != NULL && p->json->len > 0 && !t->closing)
        t->cb.message ((const char *) p->json->data, p->json->len, t->user_data);
      if (p->is_get && !t->closing)
        {
          /* The server may end its stream at will; open it again, but not
           * forever when it ends at once every time. */
          t->get_reopens = p->n_events > 0 ? 0 : t->get_reopens + 1;
          if (t->get_reopens < MAX_GET_REOPENS)
            open_get (t);
        }
      goto out;
    }
  if (status == 401)
    {
      const char *www = ow_http_response_get_header (resp, "WWW-Authenticate");

      t->cb.auth_required (www != NULL ? www : "", t->user_data);
      fail (p, OW_MCP_ERROR_AUTH_REQUIRED,
            "The MCP server “%s” needs you to sign in (HTTP 401). Connect it from Settings to sign in.", t->name);
      goto out;
    }
  if (status == 404 && t->session_id != NULL)
    {
      t->cb.closed ("ended its session (HTTP 404)", t->user_data);
      goto out;
    }
  if (p->is_get)
    {
      /* 405: this server has no stream of its own. */
      t->get_refused = TRUE;
      goto out;
    }
  if (status == 403)
    {
      const char *www = ow_http_response_get_header (resp, "WWW-Authenticate");

      /* error="insufficient_scope": a step-up sign-in (net/ow-oauth.c). */
      if (www != NULL && strstr (www, "insufficient_scope") != NULL)
        {
          t->cb.auth_required (www, t->user_data);
          fail (p, OW_MCP_ERROR_AUTH_REQUIRED,
                "The MCP server “%s” needs more permission than you granted (HTTP 403 insufficient_scope). "
                "Sign in to it again to grant it.", t->name);
          goto out;
        }
    }
  if (!deliver_rpc_error (p, ow_http_response_get_body (resp)))
    {
      gsize n = 0;
      const char *body = g_bytes_get_data (ow_http_response_get_body (resp), &n);
      g_autofree char *excerpt = g_utf8_make_valid (body != NULL ? body : "", (gssize) MIN (n, 200));

      fail (p, status == 403 ? OW_MCP_ERROR_AUTH_REQUIRED : OW_MCP_ERROR_REMOTE,
            "The MCP server “%s” answered HTTP %u: %s", t->name, status, excerpt);
    }
out:
  post_free (p);
}

static void
send_post (OwMcpHttp     *t,
           OwHttpRequest *req,
           gint64         id,
           gboolean       is_get)
{
  Post *p = g_new0 (Post, 1);

  p->t = http_ref (t);
  p->id = id;
  p->is_get = is_get;
  p->cancel = g_cancellable_new ();
  g_hash_table_add (t->posts, p);
  ow_http_client_send_async (t->http, req, on_chunk_cb, p, NULL, p->cancel, on_post_done_cb, p);
}

static void
open_get (OwMcpHttp *t)
{
  g_autoptr(OwHttpRequest) req = NULL;

  if (t->get_open || t->get_refused || t->session_id == NULL || t->closing || t->modern)
    return;
  req = build_request (t, "GET");
  t->get_open = TRUE;
  send_post (t, req, -1, TRUE);
}

void
ow_mcp_http_send (OwMcpHttp  *self,
                  const char *message)
{
  g_autoptr(OwHttpRequest) req = build_request (self, "POST");
  g_autoptr(OwJsonRpcMessage) msg = ow_jsonrpc_message_parse (message, strlen (message), NULL);
  g_autoptr(GBytes) body = g_bytes_new (message, strlen (message));
  gint64 id = -1;

  if (self->closing)
    return;
  if (msg != NULL && msg->kind == OW_JSONRPC_REQUEST && json_node_get_value_type (msg->id) == G_TYPE_INT64)
    id = json_node_get_int (msg->id);
  if (self->modern && msg != NULL && msg->method != NULL)
    {
      JsonObject *params = ow_jsonrpc_message_get_params_object (msg);
      const char *target = NULL;

      /* 2026-07-28 routes on headers. Names outside printable ASCII would
       * need the Base64 sentinel form; they are left out instead. */
      ow_http_request_add_header (req, "Mcp-Method", msg->method);
      if (params != NULL && (g_str_equal (msg->method, "tools/call") || g_str_equal (msg->method, "prompts/get")))
        target = ow_json_get_string (params, "name");
      else if (params != NULL && g_str_equal (msg->method, "resources/read"))
        target = ow_json_get_string (params, "uri");
      if (target != NULL)
        {
          gboolean plain = TRUE;

          for (const char *c = target; *c != '\0' && plain; c++)
            plain = *c >= 0x20 && *c < 0x7f;
          if (plain)
            ow_http_request_add_header (req, "Mcp-Name", target);
        }
    }
  ow_http_request_set_body (req, body, "application/json");
  send_post (self, req, id, FALSE);

  if (msg != NULL && msg->kind == OW_JSONRPC_NOTIFICATION && g_str_equal (msg->method, "notifications/cancelled"))
    {
      JsonObject *params = ow_jsonrpc_message_get_params_object (msg);
      gint64 gone = params != NULL ? ow_json_get_int (params, "requestId", -1) : -1;
      GHashTableIter iter;
      gpointer key;

      /* The request's own stream is of no more use. */
      g_hash_table_iter_init (&iter, self->posts);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        if (((Post *) key)->id == gone && gone >= 0)
          g_cancellable_cancel (((Post *) key)->cancel);
    }
}

void
ow_mcp_http_set_protocol_version (OwMcpHttp  *self,
                                  const char *version)
{
  g_free (self->protocol_version);
  self->protocol_version = g_strdup (version);
  self->modern = g_strcmp0 (version, "2026-07-28") == 0;
  open_get (self);
}

void
ow_mcp_http_set_access_token (OwMcpHttp  *self,
                              const char *token)
{
  g_free (self->access_token);
  self->access_token = g_strdup (token);
}

const char *
ow_mcp_http_get_session_id (OwMcpHttp *self)
{
  return self->session_id;
}

static void
on_delete_done_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(OwHttpResponse) resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, NULL);

  g_debug ("MCP session DELETE: %u", resp != NULL ? ow_http_response_get_status (resp) : 0);
  g_object_unref (source);
}

void
ow_mcp_http_close (OwMcpHttp *self)
{
  g_autoptr(GList) posts = NULL;

  if (self == NULL)
    return;
  self->closing = TRUE;
  posts = g_hash_table_get_keys (self->posts);
  for (GList *l = posts; l != NULL; l = l->next)
    g_cancellable_cancel (((Post *) l->data)->cancel);
  if (self->session_id != NULL && !self->modern)
    {
      g_autoptr(OwHttpRequest) req = build_request (self, "DELETE");

      /* The answer does not matter (405 means the server keeps sessions
       * itself); the HTTP client lives until it arrives. */
      ow_http_client_send_async (self->http, req, NULL, NULL, NULL, NULL, on_delete_done_cb,
                                 g_object_ref (self->http));
    }
  http_unref (self);
}
