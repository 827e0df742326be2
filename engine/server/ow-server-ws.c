/* ow-server-ws.c: the session event and approval stream.
 *
 * /ws/session/{id}[?since=SEQ&workspace=&agent=] — after the upgrade the
 * Origin and the subprotocol pair ["openworker", <token>] are checked
 * (close 1008 when wrong; nothing is sent first). Then `ready` (no seq),
 * then, when ?since= is given, every event of the session's durable log
 * after SEQ, then the live stream. Each client remembers the last seq it
 * was sent: a live event it already has is skipped, and a gap (it was
 * sent less than the log holds) is filled from the log first, so a client
 * that reconnects with its last seq gets exactly what it missed, once.
 *
 * Inbound frames go through ow_client_frame_parse (ow-ws-frame.c) and, at
 * most 30 per 10 s, to the host: a message starts a turn, an answer
 * resolves the session's pending ask (first answer wins; the host's
 * "approval_resolved" event closes the card on every surface), interrupt,
 * retry, set_mode, set_model. Anything refused comes back as
 * `input_rejected` {error}, without seq.
 *
 * /ws/events is the app-wide stream (read-only): sessions_changed and
 * inbox_changed notices, so a sidebar can refresh.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-private.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "server/ow-server-guard.h"
#include "server/ow-ws-frame.h"

#define RATE_FRAMES 30
#define RATE_WINDOW_USEC (10 * G_USEC_PER_SEC)
#define KEEPALIVE_SECONDS 30

struct _OwWsClient
{
  OwServer                *server;      /* borrowed */
  SoupWebsocketConnection *conn;        /* owned */
  char                    *session_id;  /* NULL on /ws/events */
  gint64                   last_seq;    /* the highest seq sent */
  gint64                   stamps[RATE_FRAMES];  /* arrival of the last frames (ring) */
  guint                    n_stamps;
  gulong                   message_id;
  gulong                   closed_id;
};

static char *
json_string_literal (const char *s)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), s);
  return ow_json_to_string (node);
}

/* {"type":…,"data":…[,"seq":N]}; @data_json is JSON text; @seq < 0 = none. */
static char *
frame_text (const char *type, const char *data_json, gint64 seq)
{
  g_autofree char *t = json_string_literal (type);

  if (seq < 0)
    return g_strdup_printf ("{\"type\":%s,\"data\":%s}", t, data_json);
  return g_strdup_printf ("{\"type\":%s,\"data\":%s,\"seq\":%" G_GINT64_FORMAT "}", t, data_json, seq);
}

static gboolean
client_open (OwWsClient *client)
{
  return soup_websocket_connection_get_state (client->conn) == SOUP_WEBSOCKET_STATE_OPEN;
}

static void
send_text (OwWsClient *client, const char *text)
{
  if (client_open (client))
    soup_websocket_connection_send_text (client->conn, text);
}

static void
send_frame (OwWsClient *client, const char *type, JsonObject *data)
{
  g_autofree char *d = ow_json_object_to_string (data);
  g_autofree char *text = frame_text (type, d, -1);

  send_text (client, text);
}

static void
reject (OwWsClient *client, const char *message)
{
  g_autoptr(JsonObject) data = json_object_new ();

  json_object_set_string_member (data, "error", message);
  send_frame (client, "input_rejected", data);
}

/* ---- Replay ----------------------------------------------------------------- */

typedef struct {
  OwWsClient *client;
  gint64      until;   /* stop after this seq; < 0 = everything */
} Replay;

static void
replay_one_cb (gint64 seq, gint64 ts_ms, const char *type, const char *data, gpointer user_data)
{
  Replay *r = user_data;
  g_autofree char *text = NULL;

  if (r->until >= 0 && seq > r->until)
    return;
  if (seq <= r->client->last_seq)
    return;
  text = frame_text (type, data != NULL ? data : "{}", seq);
  send_text (r->client, text);
  r->client->last_seq = seq;
}

/* Sends the log's events after the client's last seq (up to @until). */
static void
send_from_log (OwWsClient *client, gint64 until)
{
  OwStore *store = ow_context_get_store (client->server->ctx);
  Replay r = { client, until };
  g_autoptr(GError) error = NULL;

  if (!ow_store_event_foreach_since (store, client->session_id, client->last_seq, replay_one_cb, &r, &error))
    g_warning ("Could not replay the events of session %s: %s", client->session_id, error->message);
}

void
ow_server_ws_on_event (OwServer *self, const char *session_id, OwEvent *event)
{
  GPtrArray *watchers = g_hash_table_lookup (self->watchers, session_id);
  g_autofree char *data = NULL;
  g_autofree char *text = NULL;

  if (watchers == NULL || watchers->len == 0)
    return;
  /* One serialization for every watcher. */
  data = ow_json_object_to_string (event->data);
  text = frame_text (event->type, data, event->seq);
  for (guint i = 0; i < watchers->len; i++)
    {
      OwWsClient *client = g_ptr_array_index (watchers, i);
      if (event->seq <= client->last_seq)
        continue;   /* already sent by a replay */
      if (event->seq > client->last_seq + 1)
        {
          /* A gap: the log has it all, this event included. */
          send_from_log (client, event->seq);
          continue;
        }
      send_text (client, text);
      client->last_seq = event->seq;
    }
}

void
ow_server_ws_broadcast (OwServer *self, const char *type, JsonObject *data)
{
  g_autofree char *d = ow_json_object_to_string (data);
  g_autofree char *text = frame_text (type, d, -1);

  for (guint i = 0; i < self->event_clients->len; i++)
    send_text (g_ptr_array_index (self->event_clients, i), text);
  json_object_unref (data);
}

guint
ow_server_ws_count (OwServer *self, const char *session_id)
{
  GPtrArray *watchers;

  if (session_id == NULL)
    return self->event_clients->len;
  watchers = g_hash_table_lookup (self->watchers, session_id);
  return watchers != NULL ? watchers->len : 0;
}

/* ---- Inbound frames ------------------------------------------------------------ */

static gboolean
rate_ok (OwWsClient *client)
{
  gint64 now = g_get_monotonic_time ();
  guint slot = client->n_stamps % RATE_FRAMES;

  /* The slot about to be reused holds the frame RATE_FRAMES ago. */
  if (client->n_stamps >= RATE_FRAMES && now - client->stamps[slot] < RATE_WINDOW_USEC)
    return FALSE;
  client->stamps[slot] = now;
  client->n_stamps++;
  return TRUE;
}

static void
handle_frame (OwWsClient *client, OwClientFrame *frame)
{
  OwSessionHost *host = client->server->host;
  const char *sid = client->session_id;
  g_autoptr(GError) error = NULL;
  gboolean ok = TRUE;

  switch (frame->type)
    {
    case OW_FRAME_USER_MESSAGE:
      if (frame->model != NULL)
        {
          g_autoptr(OwSession) session = ow_session_host_get (host, sid, &error);
          if (session == NULL)
            {
              ok = FALSE;
              break;
            }
          /* The first message binds the model; a later one switches it
           * between turns (never during one). */
          if (g_strcmp0 (ow_session_get_model (session), frame->model) != 0
              && !ow_session_host_set_model (host, sid, frame->model, &error))
            {
              ok = FALSE;
              break;
            }
        }
      ok = ow_session_host_send (host, sid, frame->text, frame->attachments, &error);
      break;
    case OW_FRAME_INTERRUPT:
      ow_session_host_interrupt (host, sid);
      break;
    case OW_FRAME_RETRY:
      ok = ow_session_host_retry (host, sid, &error);
      break;
    case OW_FRAME_SET_MODE:
      ok = ow_session_host_set_mode (host, sid, frame->mode, FALSE, &error);
      break;
    case OW_FRAME_SET_MODEL:
      ok = ow_session_host_set_model (host, sid, frame->model, &error);
      break;
    case OW_FRAME_APPROVAL:
    case OW_FRAME_DIRECTORY_RESPONSE:
    case OW_FRAME_QUESTION_RESPONSE:
    case OW_FRAME_TOOL_RESPONSE:
    case OW_FRAME_PLAN_RESPONSE:
    case OW_FRAME_TEAM_RESPONSE:
    case OW_FRAME_ITEMS_RESPONSE:
      ok = ow_session_host_answer (host, sid, frame->call_id, frame->answer, "browser", &error);
      break;
    }
  if (!ok)
    reject (client, error != NULL ? error->message : "That could not be done.");
}

static void
on_message_cb (SoupWebsocketConnection *conn, gint type, GBytes *message, gpointer user_data)
{
  OwWsClient *client = user_data;
  g_autoptr(OwClientFrame) frame = NULL;
  g_autofree char *why = NULL;
  const char *data;
  gsize len;

  if (!rate_ok (client))
    {
      reject (client, "Too many WebSocket messages; reconnect and try again.");
      soup_websocket_connection_close (conn, SOUP_WEBSOCKET_CLOSE_POLICY_VIOLATION, "rate limit");
      return;
    }
  if (client->session_id == NULL)
    return;   /* /ws/events is read-only */
  if (type != SOUP_WEBSOCKET_DATA_TEXT)
    {
      reject (client, "Messages must be JSON text.");
      return;
    }
  data = g_bytes_get_data (message, &len);
  frame = ow_client_frame_parse (data, len, &why);
  if (frame == NULL)
    {
      reject (client, why);
      return;
    }
  handle_frame (client, frame);
}

/* ---- Connections ------------------------------------------------------------- */

static void
client_free (OwWsClient *client)
{
  g_clear_signal_handler (&client->message_id, client->conn);
  g_clear_signal_handler (&client->closed_id, client->conn);
  g_clear_object (&client->conn);
  g_free (client->session_id);
  g_free (client);
}

static void
client_forget (OwWsClient *client)
{
  OwServer *self = client->server;

  if (client->session_id != NULL)
    {
      GPtrArray *watchers = g_hash_table_lookup (self->watchers, client->session_id);
      if (watchers != NULL)
        {
          g_ptr_array_remove_fast (watchers, client);
          if (watchers->len == 0)
            g_hash_table_remove (self->watchers, client->session_id);
        }
    }
  else
    g_ptr_array_remove_fast (self->event_clients, client);
  g_ptr_array_remove_fast (self->clients, client);
}

static void
on_closed_cb (SoupWebsocketConnection *conn, gpointer user_data)
{
  OwWsClient *client = user_data;

  client_forget (client);
  client_free (client);
}

static gboolean
parse_since (const char *text, gint64 *out)
{
  char *end = NULL;
  gint64 v;

  if (text == NULL || *text == '\0' || !g_ascii_isdigit (*text))
    return FALSE;
  errno = 0;
  v = g_ascii_strtoll (text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 0)
    return FALSE;
  *out = v;
  return TRUE;
}

static void
refuse_ws (SoupWebsocketConnection *conn, const char *why)
{
  soup_websocket_connection_close (conn, SOUP_WEBSOCKET_CLOSE_POLICY_VIOLATION, why);
}

/* The session for @id, created when the browser names a new one (as the
 * original GUI does: it picks the id and connects). */
static OwSession *
session_for (OwServer *self, const char *id, GHashTable *query, GError **error)
{
  g_autoptr(GError) local = NULL;
  OwSession *session = ow_session_host_get (self->host, id, &local);
  const char *agent, *workspace;
  OwSessionSpec spec = { 0 };

  if (session != NULL)
    return session;
  if (!g_error_matches (local, OW_HOST_ERROR, OW_HOST_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (!ow_server_session_id_valid (id))
    {
      g_set_error_literal (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID,
                           "A session id is 1 to 64 letters, digits, '_', '.' or '-'.");
      return NULL;
    }
  agent = query != NULL ? g_hash_table_lookup (query, "agent") : NULL;
  workspace = query != NULL ? g_hash_table_lookup (query, "workspace") : NULL;
  if (agent == NULL || (g_strcmp0 (agent, "cowork") != 0 && g_strcmp0 (agent, "code") != 0))
    agent = "cowork";   /* unknown personas resolve to the default */
  if (workspace != NULL && *workspace == '\0')
    workspace = NULL;
  if (workspace == NULL && g_str_equal (agent, "code"))
    workspace = self->default_workspace;
  spec.session_id = id;
  spec.coworker = agent;
  spec.workspace = workspace;
  spec.origin = "server";
  return ow_session_host_create (self->host, &spec, error);
}

static JsonObject *
ready_data (OwServer *self, OwSession *session)
{
  JsonObject *data = json_object_new ();
  const char *ws = ow_session_get_workspace (session);

  json_object_set_string_member (data, "session_id", ow_session_get_id (session));
  json_object_set_string_member (data, "agent", ow_session_get_coworker (session));
  if (ow_session_get_model (session) != NULL)
    json_object_set_string_member (data, "model", ow_session_get_model (session));
  else
    json_object_set_null_member (data, "model");
  json_object_set_string_member (data, "mode", ow_session_get_mode (session));
  if (ws != NULL)
    json_object_set_string_member (data, "workspace", ws);
  else
    json_object_set_null_member (data, "workspace");
  json_object_set_boolean_member (data, "temp_workspace", ws == NULL || ow_server_is_scratch (self, ws));
  json_object_set_object_member (data, "command_trust", ow_server_command_trust (self, ws));
  json_object_set_int_member (data, "last_seq", ow_session_get_last_seq (session));
  json_object_set_boolean_member (data, "running",
                                  ow_session_host_is_running (self->host, ow_session_get_id (session)));
  return data;
}

void
ow_server_ws_accept (OwServer *self, SoupServerMessage *msg, const char *path, SoupWebsocketConnection *conn)
{
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);
  const char *origin = soup_message_headers_get_one (h, "Origin");
  const char *offer = soup_message_headers_get_one (h, "Sec-WebSocket-Protocol");
  const char *raw_query = g_uri_get_query (soup_server_message_get_uri (msg));
  g_autoptr(GHashTable) query = raw_query != NULL ? soup_form_decode (raw_query) : NULL;
  OwWsClient *client;

  if (self->closed)
    {
      soup_websocket_connection_close (conn, SOUP_WEBSOCKET_CLOSE_GOING_AWAY, "shutting down");
      return;
    }
  if (origin != NULL && !ow_server_origin_allowed (origin, (const char *const *) self->extra_origins->pdata))
    {
      refuse_ws (conn, "origin not allowed");
      return;
    }
  if (!ow_server_ws_protocol_ok (offer, self->token))
    {
      refuse_ws (conn, "missing or invalid OpenWorker sidecar token");
      return;
    }
  if (ow_server_from_session_command (msg, NULL))
    {
      refuse_ws (conn, "a session's own command cannot use the OpenWorker API");
      return;
    }
  if (self->clients->len >= OW_SERVER_MAX_SOCKETS)
    {
      /* 1013: try again later (libsoup 3.2 has no name for it). */
      soup_websocket_connection_close (conn, 1013, "too many connections");
      return;
    }

  /* Frames up to 16 MiB: a message with its attachments. */
  soup_websocket_connection_set_max_incoming_payload_size (conn, OW_WS_MAX_FRAME_BYTES);
  soup_websocket_connection_set_keepalive_interval (conn, KEEPALIVE_SECONDS);

  client = g_new0 (OwWsClient, 1);
  client->server = self;
  client->conn = g_object_ref (conn);

  if (strcmp (path, "/ws/events") == 0)
    {
      g_autoptr(JsonObject) data = json_object_new ();
      g_ptr_array_add (self->clients, client);
      g_ptr_array_add (self->event_clients, client);
      client->message_id = g_signal_connect (conn, "message", G_CALLBACK (on_message_cb), client);
      client->closed_id = g_signal_connect (conn, "closed", G_CALLBACK (on_closed_cb), client);
      send_frame (client, "ready", data);
      return;
    }

  {
    const char *id = path + strlen ("/ws/session/");
    g_autoptr(GError) error = NULL;
    g_autoptr(OwSession) session = session_for (self, id, query, &error);
    g_autoptr(JsonObject) ready = NULL;
    GPtrArray *watchers;
    gint64 since = -1;

    if (session == NULL)
      {
        g_autoptr(JsonObject) data = json_object_new ();
        json_object_set_string_member (data, "error", error->message);
        send_frame (client, "error", data);
        soup_websocket_connection_close (conn, SOUP_WEBSOCKET_CLOSE_NORMAL, NULL);
        client_free (client);
        return;
      }
    if (query != NULL && g_hash_table_lookup (query, "since") != NULL
        && !parse_since (g_hash_table_lookup (query, "since"), &since))
      {
        g_autoptr(JsonObject) data = json_object_new ();
        json_object_set_string_member (data, "error", "since must be a sequence number (0 or more).");
        send_frame (client, "error", data);
        soup_websocket_connection_close (conn, SOUP_WEBSOCKET_CLOSE_POLICY_VIOLATION, "bad since");
        client_free (client);
        return;
      }
    client->session_id = g_strdup (ow_session_get_id (session));
    g_ptr_array_add (self->clients, client);
    watchers = g_hash_table_lookup (self->watchers, client->session_id);
    if (watchers == NULL)
      {
        watchers = g_ptr_array_new ();
        g_hash_table_insert (self->watchers, g_strdup (client->session_id), watchers);
      }
    g_ptr_array_add (watchers, client);
    client->message_id = g_signal_connect (conn, "message", G_CALLBACK (on_message_cb), client);
    client->closed_id = g_signal_connect (conn, "closed", G_CALLBACK (on_closed_cb), client);

    ready = ready_data (self, session);
    send_frame (client, "ready", ready);
    if (since >= 0)
      {
        client->last_seq = since;
        send_from_log (client, -1);
      }
    else
      client->last_seq = ow_session_get_last_seq (session);
  }
}

void
ow_server_ws_close_all (OwServer *self)
{
  /* Close frames go out from the main loop; "closed" then frees. */
  for (guint i = 0; i < self->clients->len; i++)
    {
      OwWsClient *client = g_ptr_array_index (self->clients, i);
      if (client_open (client))
        soup_websocket_connection_close (client->conn, SOUP_WEBSOCKET_CLOSE_GOING_AWAY, "server closing");
    }
}

void
ow_server_ws_free_all (OwServer *self)
{
  /* The server is going away: no callback may reach it after this. */
  while (self->clients->len > 0)
    {
      OwWsClient *client = g_ptr_array_index (self->clients, self->clients->len - 1);
      client_forget (client);
      if (client_open (client))
        soup_websocket_connection_close (client->conn, SOUP_WEBSOCKET_CLOSE_GOING_AWAY, "server closing");
      client_free (client);
    }
}
