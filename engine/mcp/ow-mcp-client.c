/* ow-mcp-client.c: the MCP lifecycle, requests and tools (see ow-mcp-client.h).
 *
 * Reading order: the boxed types, the table of requests in flight (each a
 * Pending with its GTask, timeout and cancellation), what arrives from the
 * server (responses, notifications, the server's own requests), the start
 * sequence (login PATH → spawn → initialize → tools/list), tool calls, and
 * crash handling with restarts.
 *
 * A connection is one OwMcpStdio; when it ends, every request in flight
 * fails with a sentence that names the server, how it ended and the end of
 * its stderr. Callbacks from a connection that has been replaced are
 * ignored: they carry the generation they belong to.
 */
#define G_LOG_DOMAIN "ow-mcp"

#include "mcp/ow-mcp-client.h"

#include <signal.h>
#include <string.h>

#include "mcp/ow-jsonrpc.h"
#include "mcp/ow-mcp-http.h"
#include "mcp/ow-mcp-schema.h"
#include "mcp/ow-mcp-stdio.h"
#include "ow-error.h"
#include "ow-json.h"

#define OFFERED_VERSION "2025-11-25"
#define MODERN_VERSION "2026-07-28"
#define META_PREFIX "io.modelcontextprotocol/"
#define UNSUPPORTED_VERSION_CODE (-32022)
/* How long server/discover, asked after initialize was refused, may go
 * unanswered. */
#define DISCOVER_TIMEOUT_MS 2000
#define MAX_LIST_PAGES 100
#define RESTART_BASE_MS 500
#define RESTART_MAX_MS 30000

static const char *const accepted_versions[] = {
  "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL,
};

G_DEFINE_ENUM_TYPE (OwMcpStatus, ow_mcp_status,
                    G_DEFINE_ENUM_VALUE (OW_MCP_STATUS_STOPPED, "stopped"),
                    G_DEFINE_ENUM_VALUE (OW_MCP_STATUS_STARTING, "starting"),
                    G_DEFINE_ENUM_VALUE (OW_MCP_STATUS_READY, "ready"),
                    G_DEFINE_ENUM_VALUE (OW_MCP_STATUS_RESTARTING, "restarting"),
                    G_DEFINE_ENUM_VALUE (OW_MCP_STATUS_FAILED, "failed"),
                    G_DEFINE_ENUM_VALUE (OW_MCP_STATUS_AUTH_REQUIRED, "auth-required"))

/* ---- Boxed types ------------------------------------------------------ */

G_DEFINE_BOXED_TYPE (OwMcpTool, ow_mcp_tool, ow_mcp_tool_ref, ow_mcp_tool_unref)

OwMcpTool *
ow_mcp_tool_ref (OwMcpTool *tool)
{
  g_atomic_int_inc (&tool->refcount);
  return tool;
}

void
ow_mcp_tool_unref (OwMcpTool *tool)
{
  if (!g_atomic_int_dec_and_test (&tool->refcount))
    return;
  g_free (tool->name);
  g_free (tool->title);
  g_free (tool->description);
  g_clear_pointer (&tool->input_schema, json_object_unref);
  g_clear_pointer (&tool->output_schema, json_object_unref);
  g_clear_pointer (&tool->annotations, json_object_unref);
  g_free (tool);
}

static void
content_free (OwMcpContent *c)
{
  g_free (c->text);
  g_free (c->data);
  g_free (c->mime_type);
  g_free (c->uri);
  g_free (c->name);
  g_free (c->description);
  g_clear_pointer (&c->raw, json_object_unref);
  g_free (c);
}

void
ow_mcp_call_result_free (OwMcpCallResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->content, g_ptr_array_unref);
  g_clear_pointer (&result->structured_content, json_object_unref);
  g_free (result);
}

/* ---- The object ------------------------------------------------------- */

typedef struct _Pending Pending;

struct _OwMcpClient
{
  GObject parent_instance;

  /* configuration */
  OwMcpServerConfig *config;

  /* state shown through properties */
  OwMcpStatus  status;
  char        *last_error;
  char        *protocol_version;
  char        *instructions;
  JsonObject  *server_info;
  JsonObject  *server_caps;

  /* the connection */
  OwMcpStdio  *conn;            /* stdio: owned; NULL when none runs */
  OwMcpHttp   *http;            /* streamable HTTP: owned; NULL when none runs */
  char        *auth_challenge;  /* the last 401's WWW-Authenticate, or NULL */
  char        *access_token;    /* HTTP: sent as a bearer token, or NULL; never logged */
  guint        generation;      /* bumped for every connection */
  gint64       next_id;
  GHashTable  *pending;         /* gint64 id → Pending (owned) */

  /* the start sequence */
  GTask       *start_task;      /* the caller's start_async, or NULL during a restart */
  GCancellable *start_cancel;   /* ends the login-PATH probe when stopped */
  guint        start_timeout_id;
  gboolean     initialized;     /* the initialize reply (or discover result) arrived */
  gboolean     modern;          /* the server speaks 2026-07-28: _meta on every request */
  gint64       rpc_error_code;  /* the JSON-RPC code of the error being completed */
  GError      *init_error;      /* why initialize was refused, while server/discover is tried */

  /* tools */
  GPtrArray   *tools;           /* OwMcpTool, filtered; replaced, never edited */
  GPtrArray   *listing;         /* tools gathered by the listing in flight, or NULL */
  gboolean     list_dirty;      /* list_changed came during a listing or before init */
  guint        n_listings;

  /* elicitation */
  OwMcpElicitationFunc elicit_func;  /* or NULL: not offered */
  gpointer     elicit_data;
  guint        asking;          /* elicitations waiting for a person: calls' silence clocks stop */

  /* restarts */
  guint        restart_id;
  guint        restarts;        /* in a row, since the last READY */
};

enum {
  PROP_0,
  PROP_NAME,
  PROP_STATUS,
  PROP_LAST_ERROR,
  PROP_PROTOCOL_VERSION,
  PROP_INSTRUCTIONS,
  N_PROPS
};

enum {
  SIGNAL_TOOLS_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwMcpClient, ow_mcp_client, G_TYPE_OBJECT)

static void connect_server (OwMcpClient *self);
static void lose_connection (OwMcpClient *self, GError *error);

static void
set_status (OwMcpClient *self,
            OwMcpStatus  status)
{
  if (self->status == status)
    return;
  g_debug ("MCP server %s: status %d -> %d", self->config->name, self->status, status);
  self->status = status;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
}

static void
set_last_error (OwMcpClient *self,
                const char  *message)
{
  if (g_strcmp0 (self->last_error, message) == 0)
    return;
  g_free (self->last_error);
  self->last_error = g_strdup (message);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_ERROR]);
}

static gboolean
has_conn (OwMcpClient *self)
{
  return self->conn != NULL || self->http != NULL;
}

static void
conn_send (OwMcpClient *self,
           const char  *line)
{
  if (self->conn != NULL)
    ow_mcp_stdio_send (self->conn, line);
  else if (self->http != NULL)
    ow_mcp_http_send (self->http, line);
}

/* @message with the end of the server's stderr appended, when it has one. */
static char *
with_stderr (OwMcpClient *self,
             const char  *message)
{
  g_autofree char *tail = self->conn != NULL ? ow_mcp_stdio_dup_stderr_tail (self->conn) : NULL;

  if (tail == NULL || tail[0] == '\0')
    return g_strdup (message);
  return g_strdup_printf ("%s Its last output: %s", message, tail);
}

/* ---- Requests in flight ----------------------------------------------- */

typedef void (*ResultFunc) (OwMcpClient *self, JsonNode *result, GError *error, gpointer data);

struct _Pending
{
  OwMcpClient       *client;          /* borrowed: pendings die with the client */
  gint64             id;
  char              *method;
  guint              generation;
  /* who waits: a caller's GTask, or an internal continuation */
  GTask             *task;
  ResultFunc         func;
  gpointer           func_data;
  /* time */
  guint              timeout_ms;
  gint64             hard_deadline;   /* monotonic µs; progress cannot extend past it */
  guint              timeout_id;
  gboolean           capped;          /* the armed timeout ends at the hard deadline */
  /* progress and cancellation */
  char              *progress_token;
  OwMcpProgressFunc  progress;
  gpointer           progress_data;
  GDestroyNotify     progress_destroy;
  GCancellable      *cancellable;
  gulong             cancel_id;
  guint              cancel_idle_id;
};

static void
pending_free (Pending *p)
{
  g_clear_handle_id (&p->timeout_id, g_source_remove);
  g_clear_handle_id (&p->cancel_idle_id, g_source_remove);
  if (p->cancellable != NULL)
    {
      g_cancellable_disconnect (p->cancellable, p->cancel_id);
      g_object_unref (p->cancellable);
    }
  if (p->progress_destroy != NULL)
    p->progress_destroy (p->progress_data);
  g_clear_object (&p->task);
  g_free (p->progress_token);
  g_free (p->method);
  g_free (p);
}

/* Takes @p out of the table and completes it with @result or @error. */
static void
pending_complete (Pending  *p,
                  JsonNode *result,
                  GError   *error)
{
  OwMcpClient *self = p->client;

  g_hash_table_steal (self->pending, &p->id);
  if (p->task != NULL)
    {
      if (error != NULL)
        g_task_return_error (p->task, g_error_copy (error));
      else
        g_task_return_pointer (p->task, json_node_ref (result), (GDestroyNotify) json_node_unref);
    }
  else if (p->func != NULL && p->generation == self->generation)
    p->func (self, result, error, p->func_data);  /* continuations of a dropped connection are moot */
  pending_free (p);
}

static void
send_notification (OwMcpClient *self,
                   const char  *method,
                   JsonObject  *params)
{
  g_autofree char *line = ow_jsonrpc_encode_notification (method, params);

  conn_send (self, line);
}

static void
send_cancelled (OwMcpClient *self,
                gint64       id,
                const char  *reason)
{
  g_autoptr(JsonObject) params = json_object_new ();

  json_object_set_int_member (params, "requestId", id);
  json_object_set_string_member (params, "reason", reason);
  send_notification (self, "notifications/cancelled", params);
}

static void pending_arm (Pending *p);

static gboolean
on_pending_timeout_cb (gpointer user_data)
{
  Pending *p = user_data;
  OwMcpClient *self = p->client;
  g_autoptr(GError) error = NULL;

  p->timeout_id = 0;
  if (self->asking > 0 && !p->capped && g_str_equal (p->method, "tools/call"))
    {
      /* The server waits for a person's answer, not the other way round:
       * no silence limit meanwhile (the hard limit still holds). */
      pending_arm (p);
      return G_SOURCE_REMOVE;
    }
  send_cancelled (self, p->id, "timed out");
  if (p->capped)
    error = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_TIMEOUT,
                         "The MCP server “%s” was still working on %s at the hard limit of %.0f seconds; "
                         "it was asked to stop. Raise tool_timeout_max_sec in mcp.json if it needs longer.",
                         self->config->name, p->method, self->config->call_max_ms / 1000.0);
  else
    error = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_TIMEOUT,
                         "The MCP server “%s” did not answer %s within %.0f seconds; it was asked to stop. "
                         "Raise %s in mcp.json if it needs longer.",
                         self->config->name, p->method, p->timeout_ms / 1000.0,
                         g_str_equal (p->method, "tools/call") ? "tool_timeout_sec" : "startup_timeout_sec");
  /* An unanswered server/discover only means a 2025 server. */
  if (!g_str_equal (p->method, "server/discover"))
    set_last_error (self, error->message);
  pending_complete (p, NULL, error);
  return G_SOURCE_REMOVE;
}

/* (Re)arms the timeout: @timeout_ms of silence, never past the hard deadline. */
static void
pending_arm (Pending *p)
{
  gint64 left_ms = (p->hard_deadline - g_get_monotonic_time ()) / 1000;
  guint ms = (guint) CLAMP (left_ms, 0, (gint64) p->timeout_ms);

  g_clear_handle_id (&p->timeout_id, g_source_remove);
  p->capped = left_ms < (gint64) p->timeout_ms;
  p->timeout_id = g_timeout_add (ms, on_pending_timeout_cb, p);
}

static gboolean
on_pending_cancel_idle_cb (gpointer user_data)
{
  Pending *p = user_data;
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "The MCP call was cancelled.");

  p->cancel_idle_id = 0;
  send_cancelled (p->client, p->id, "cancelled by the user");
  pending_complete (p, NULL, error);
  return G_SOURCE_REMOVE;
}

static void
on_pending_cancelled_cb (GCancellable *cancellable,
                         gpointer      user_data)
{
  Pending *p = user_data;

  /* Runs in whichever thread cancelled, possibly inside connect(); the
   * work happens on the client's context, where the table lives. */
  if (p->cancel_idle_id == 0)
    {
      GSource *source = g_idle_source_new ();

      g_source_set_callback (source, on_pending_cancel_idle_cb, p, NULL);
      g_source_set_priority (source, G_PRIORITY_HIGH);
      p->cancel_idle_id = g_source_attach (source, g_task_get_context (p->task));
      g_source_unref (source);
    }
}

/* Sends a request. With @task the result node is returned through it;
 * otherwise @func runs. @timeout_ms 0 = the start timeout. */
static Pending *
send_request (OwMcpClient  *self,
              const char   *method,
              JsonObject   *params,
              guint         timeout_ms,
              guint         max_ms,
              GTask        *task,
              ResultFunc    func,
              gpointer      func_data)
{
  Pending *p = g_new0 (Pending, 1);
  g_autofree char *line = NULL;
  g_autoptr(JsonObject) owned = NULL;

  if (self->modern || g_str_equal (method, "server/discover"))
    {
      /* 2026-07-28 has no initialize: every request says who asks and
       * what it speaks. */
      JsonObject *meta;
      JsonObject *info = json_object_new ();

      owned = params != NULL ? json_object_ref (params) : json_object_new ();
      params = owned;
      meta = ow_json_get_object (params, "_meta");
      if (meta == NULL)
        {
          meta = json_object_new ();
          json_object_set_object_member (params, "_meta", meta);
        }
      json_object_set_string_member (meta, META_PREFIX "protocolVersion", MODERN_VERSION);
      json_object_set_object_member (meta, META_PREFIX "clientCapabilities", json_object_new ());
      json_object_set_string_member (info, "name", "openworker");
      json_object_set_string_member (info, "version", OW_VERSION);
      json_object_set_object_member (meta, META_PREFIX "clientInfo", info);
    }
  p->client = self;
  p->id = ++self->next_id;
  p->method = g_strdup (method);
  p->generation = self->generation;
  p->task = task != NULL ? g_object_ref (task) : NULL;
  p->func = func;
  p->func_data = func_data;
  p->timeout_ms = timeout_ms != 0 ? timeout_ms : self->config->start_timeout_ms;
  p->hard_deadline = g_get_monotonic_time () + (gint64) MAX (max_ms, p->timeout_ms) * 1000;
  g_hash_table_insert (self->pending, &p->id, p);
  line = ow_jsonrpc_encode_request (p->id, method, params);
  conn_send (self, line);
  pending_arm (p);
  return p;
}

/* Fails every request in flight with @error. */
static void
fail_all_pending (OwMcpClient *self,
                  GError      *error)
{
  g_autoptr(GList) all = g_hash_table_get_values (self->pending);

  for (GList *l = all; l != NULL; l = l->next)
    pending_complete (l->data, NULL, error);
}

/* ---- From the server -------------------------------------------------- */

static void
answer_error (OwMcpClient *self,
              JsonNode    *id,
              gint64       code,
              const char  *message)
{
  g_autofree char *line = ow_jsonrpc_encode_error (id, code, message, NULL);

  conn_send (self, line);
}

static void
answer_result (OwMcpClient *self,
               JsonNode    *id,
               JsonObject  *result)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), result);
  g_autofree char *line = ow_jsonrpc_encode_result (id, node);

  conn_send (self, line);
}

/* ---- Elicitation ----------------------------------------------------------- */

struct _OwMcpElicitation
{
  gint         refcount;
  OwMcpClient *client;       /* owned */
  guint        generation;   /* the connection that asked: an answer never reaches another */
  JsonNode    *id;           /* the request's id (owned) */
  gboolean     url_mode;
  char        *message;
  JsonObject  *schema;
  char        *url;
  char        *host;
  gboolean     answered;
  gboolean     counted;      /* in client->asking */
};

OwMcpElicitation *
ow_mcp_elicitation_ref (OwMcpElicitation *e)
{
  g_atomic_int_inc (&e->refcount);
  return e;
}

void
ow_mcp_elicitation_unref (OwMcpElicitation *e)
{
  if (e == NULL || !g_atomic_int_dec_and_test (&e->refcount))
    return;
  if (!e->answered)
    ow_mcp_elicitation_respond (e, "cancel", NULL, "nobody answered");
  g_object_unref (e->client);
  json_node_unref (e->id);
  g_free (e->message);
  json_object_unref (e->schema);
  g_free (e->url);
  g_free (e->host);
  g_free (e);
}

const char *
ow_mcp_elicitation_get_server (OwMcpElicitation *e)
{
  return e->client->config->name;
}

gboolean
ow_mcp_elicitation_is_url (OwMcpElicitation *e)
{
  return e->url_mode;
}

const char *
ow_mcp_elicitation_get_message (OwMcpElicitation *e)
{
  return e->message;
}

JsonObject *
ow_mcp_elicitation_get_schema (OwMcpElicitation *e)
{
  return e->schema;
}

const char *
ow_mcp_elicitation_get_url (OwMcpElicitation *e)
{
  return e->url;
}

const char *
ow_mcp_elicitation_get_host (OwMcpElicitation *e)
{
  return e->host;
}

static void answer_result (OwMcpClient *self, JsonNode *id, JsonObject *result);

void
ow_mcp_elicitation_respond (OwMcpElicitation *e,
                            const char       *action,
                            JsonObject       *content,
                            const char       *reason)
{
  g_autoptr(JsonObject) result = NULL;

  if (e->answered)
    return;
  e->answered = TRUE;
  if (e->counted && e->client->asking > 0)
    {
      GHashTableIter iter;
      gpointer value;

      e->client->asking--;
      /* A fresh silence window for the calls that waited. */
      g_hash_table_iter_init (&iter, e->client->pending);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        if (g_str_equal (((Pending *) value)->method, "tools/call") && ((Pending *) value)->timeout_id != 0)
          pending_arm (value);
    }
  if (e->generation != e->client->generation)
    return;   /* the server that asked is gone */
  result = json_object_new ();
  json_object_set_string_member (result, "action", action);
  if (content != NULL && g_str_equal (action, "accept") && !e->url_mode)
    json_object_set_object_member (result, "content", json_object_ref (content));
  if (reason != NULL)
    {
      JsonObject *meta = json_object_new ();

      json_object_set_string_member (meta, "io.openworker/reason", reason);
      json_object_set_object_member (result, "_meta", meta);
    }
  answer_result (e->client, e->id, result);
}

/* Words that mean a secret; "key" only as a whole word of the name. */
static gboolean
text_is_secret (const char *text, gboolean name)
{
  static const char *const words[] = {
    "password", "passwd", "passphrase", "passcode", "secret", "token", "api key", "apikey", "api_key", "api-key",
    "private key", "private_key", "credential", "access key", "access_key", "client_secret", NULL,
  };
  g_autofree char *low = NULL;

  if (text == NULL)
    return FALSE;
  low = g_ascii_strdown (text, -1);
  for (guint i = 0; words[i] != NULL; i++)
    if (strstr (low, words[i]) != NULL)
      return TRUE;
  if (name)
    {
      /* sshKey, ssh_key, "SSH key", pin, pwd: whole words, camelCase split. */
      GString *spaced = g_string_new (NULL);
      g_auto(GStrv) parts = NULL;
      gboolean found = FALSE;

      for (const char *p = text; *p != '\0'; p++)
        {
          if (g_ascii_isupper (*p) && p > text && (g_ascii_islower (p[-1]) || g_ascii_isdigit (p[-1])))
            g_string_append_c (spaced, ' ');
          g_string_append_c (spaced, g_ascii_isalnum (*p) ? g_ascii_tolower (*p) : ' ');
        }
      parts = g_strsplit (spaced->str, " ", -1);
      g_string_free (spaced, TRUE);
      for (guint i = 0; parts[i] != NULL && !found; i++)
        found = g_str_equal (parts[i], "key") || g_str_equal (parts[i], "pwd") || g_str_equal (parts[i], "pin")
                || g_str_equal (parts[i], "otp");
      if (found)
        return TRUE;
    }
  return FALSE;
}

gboolean
ow_mcp_elicitation_field_is_secret (const char *name,
                                    JsonObject *field)
{
  if (text_is_secret (name, TRUE))
    return TRUE;
  if (field == NULL)
    return FALSE;
  if (g_strcmp0 (ow_json_get_string (field, "format"), "password") == 0
      || ow_json_get_bool (field, "writeOnly", FALSE))
    return TRUE;
  return text_is_secret (ow_json_get_string (field, "title"), TRUE)
         || text_is_secret (ow_json_get_string (field, "description"), FALSE);
}

void
ow_mcp_client_set_elicitation_handler (OwMcpClient          *self,
                                       OwMcpElicitationFunc  func,
                                       gpointer              user_data)
{
  g_return_if_fail (OW_IS_MCP_CLIENT (self));
  self->elicit_func = func;
  self->elicit_data = user_data;
}

static void
handle_elicitation (OwMcpClient      *self,
                    OwJsonRpcMessage *msg)
{
  JsonObject *params = msg->params != NULL && JSON_NODE_HOLDS_OBJECT (msg->params)
                         ? json_node_get_object (msg->params) : NULL;
  const char *mode = params != NULL ? ow_json_get_string (params, "mode") : NULL;
  g_autoptr(OwMcpElicitation) e = NULL;
  JsonObject *schema;

  if (self->elicit_func == NULL)
    {
      answer_error (self, msg->id, OW_JSONRPC_METHOD_NOT_FOUND,
                    "OpenWorker did not offer elicitation to this server.");
      return;
    }
  if (params == NULL || (mode != NULL && !g_str_equal (mode, "form") && !g_str_equal (mode, "url")))
    {
      answer_error (self, msg->id, OW_JSONRPC_INVALID_PARAMS, "elicitation/create needs params with mode form or url.");
      return;
    }
  e = g_new0 (OwMcpElicitation, 1);
  e->refcount = 1;
  e->client = g_object_ref (self);
  e->generation = self->generation;
  e->id = json_node_copy (msg->id);
  e->url_mode = g_strcmp0 (mode, "url") == 0;
  e->message = g_strdup (ow_json_get_string (params, "message") != NULL ? ow_json_get_string (params, "message") : "");
  schema = ow_json_get_object (params, "requestedSchema");
  e->schema = schema != NULL ? ow_json_object_deep_copy (schema) : json_object_new ();
  if (e->url_mode)
    {
      const char *url = ow_json_get_string (params, "url");
      g_autoptr(GUri) uri = url != NULL ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;

      e->url = g_strdup (url);
      if (uri != NULL && g_uri_get_host (uri) != NULL
          && (g_str_equal (g_uri_get_scheme (uri), "https") || g_str_equal (g_uri_get_scheme (uri), "http")))
        e->host = g_strdup (g_uri_get_host (uri));
      if (e->host == NULL)
        {
          ow_mcp_elicitation_respond (e, "decline", NULL, "OpenWorker shows only http and https addresses.");
          return;
        }
    }
  else
    {
      JsonObject *props = ow_json_get_object (e->schema, "properties");
      g_autoptr(GList) names = props != NULL ? json_object_get_members (props) : NULL;

      for (GList *l = names; l != NULL; l = l->next)
        if (ow_mcp_elicitation_field_is_secret (l->data, ow_json_get_object (props, l->data)))
          {
            g_autofree char *why = g_strdup_printf ("OpenWorker never collects secrets through a form (the field "
                                                    "“%s” asks for one); configure it in the server's entry instead.",
                                                    (const char *) l->data);

            g_message ("MCP server %s asked for a secret in a form (%s); declined.", self->config->name,
                       (const char *) l->data);
            ow_mcp_elicitation_respond (e, "decline", NULL, why);
            return;
          }
    }
  e->counted = TRUE;
  self->asking++;
  self->elicit_func (self, e, self->elicit_data);
}

static void
handle_server_request (OwMcpClient      *self,
                       OwJsonRpcMessage *msg)
{
  g_autoptr(JsonObject) result = json_object_new ();

  if (g_str_equal (msg->method, "ping"))
    answer_result (self, msg->id, result);
  else if (g_str_equal (msg->method, "roots/list"))
    {
      JsonArray *roots = json_array_new ();

      for (char **r = self->config->roots; *r != NULL; r++)
        {
          g_autofree char *uri = g_filename_to_uri (*r, NULL, NULL);
          g_autofree char *base = g_path_get_basename (*r);
          JsonObject *root;

          if (uri == NULL)
            continue;
          root = json_object_new ();
          json_object_set_string_member (root, "uri", uri);
          json_object_set_string_member (root, "name", base);
          json_array_add_object_element (roots, root);
        }
      json_object_set_array_member (result, "roots", roots);
      answer_result (self, msg->id, result);
    }
  else if (g_str_equal (msg->method, "elicitation/create"))
    handle_elicitation (self, msg);
  else if (g_str_equal (msg->method, "sampling/createMessage"))
    answer_error (self, msg->id, OW_JSONRPC_METHOD_NOT_FOUND,
                  "OpenWorker does not let MCP servers sample its model.");
  else
    {
      g_autofree char *text = g_strdup_printf ("OpenWorker does not support %s.", msg->method);

      answer_error (self, msg->id, OW_JSONRPC_METHOD_NOT_FOUND, text);
    }
}

static void list_tools (OwMcpClient *self);

static Pending *
find_progress (OwMcpClient *self,
               JsonNode    *token)
{
  GHashTableIter iter;
  gpointer value;

  if (token == NULL || !JSON_NODE_HOLDS_VALUE (token) || json_node_get_value_type (token) != G_TYPE_STRING)
    return NULL;
  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Pending *p = value;

      if (p->progress_token != NULL && g_str_equal (p->progress_token, json_node_get_string (token)))
        return p;
    }
  return NULL;
}

static void
handle_notification (OwMcpClient      *self,
                     OwJsonRpcMessage *msg)
{
  JsonObject *params = ow_jsonrpc_message_get_params_object (msg);

  if (g_str_equal (msg->method, "notifications/tools/list_changed"))
    {
      /* Before the initialize reply (server-everything does this) the first
       * listing is still to come and covers it. */
      if (!self->initialized || self->listing != NULL)
        self->list_dirty = TRUE;
      else
        list_tools (self);
    }
  else if (g_str_equal (msg->method, "notifications/progress") && params != NULL)
    {
      Pending *p = find_progress (self, json_object_get_member (params, "progressToken"));
      JsonNode *progress = json_object_get_member (params, "progress");
      JsonNode *total = json_object_get_member (params, "total");

      if (p == NULL || p->progress == NULL || progress == NULL || !JSON_NODE_HOLDS_VALUE (progress))
        return;
      pending_arm (p);
      p->progress (json_node_get_double (progress),
                   total != NULL && JSON_NODE_HOLDS_VALUE (total) ? json_node_get_double (total) : -1,
                   ow_json_get_string (params, "message"), p->progress_data);
    }
  else if (g_str_equal (msg->method, "notifications/message") && params != NULL)
    {
      g_autofree char *data = ow_json_to_string (json_object_get_member (params, "data"));

      g_debug ("MCP server %s log (%s): %s", self->config->name,
               ow_json_get_string (params, "level"), data);
    }
}

static void
on_conn_line (const char *line,
              gsize       len,
              gpointer    user_data)
{
  OwMcpClient *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwJsonRpcMessage) msg = ow_jsonrpc_message_parse (line, len, &error);
  Pending *p;

  if (msg == NULL)
    {
      /* Garbage on stdout is the server's bug; say so, keep reading. */
      g_autofree char *text = g_strdup_printf ("The MCP server “%s” wrote something that is not MCP: %s",
                                               self->config->name, error->message);
      g_debug ("%s", text);
      set_last_error (self, text);
      return;
    }
  switch (msg->kind)
    {
    case OW_JSONRPC_REQUEST:
      handle_server_request (self, msg);
      break;
    case OW_JSONRPC_NOTIFICATION:
      handle_notification (self, msg);
      break;
    case OW_JSONRPC_RESULT:
    case OW_JSONRPC_ERROR:
      if (msg->id == NULL || !JSON_NODE_HOLDS_VALUE (msg->id) || json_node_get_value_type (msg->id) != G_TYPE_INT64)
        break;
      {
        gint64 id = json_node_get_int (msg->id);

        p = g_hash_table_lookup (self->pending, &id);
      }
      if (p == NULL)
        break;  /* late: timed out or cancelled already */
      if (msg->kind == OW_JSONRPC_RESULT)
        pending_complete (p, msg->result, NULL);
      else
        {
          g_autoptr(GError) remote = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_REMOTE,
                                                  "The MCP server “%s” refused %s: %s (code %" G_GINT64_FORMAT ").",
                                                  self->config->name, p->method, msg->error_message,
                                                  msg->error_code);
          self->rpc_error_code = msg->error_code;
          pending_complete (p, NULL, remote);
          self->rpc_error_code = 0;
        }
      break;
    }
}

/* A cheap look for `"id":<digits>` in the first bytes of an oversized
 * message, so the request it answers fails now instead of timing out. */
static gboolean
find_id_in_prefix (const char *prefix,
                   gint64     *id)
{
  const char *p = strstr (prefix, "\"id\":");
  char *end = NULL;

  if (p == NULL)
    return FALSE;
  p += 5;
  while (*p == ' ')
    p++;
  *id = g_ascii_strtoll (p, &end, 10);
  return end != p;
}

static void
on_conn_oversize (const char *prefix,
                  gsize       len,
                  gpointer    user_data)
{
  OwMcpClient *self = user_data;
  g_autoptr(GError) error = NULL;
  gint64 id = 0;
  Pending *p = NULL;

  error = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_TOO_LARGE,
                       "The MCP server “%s” sent a message larger than %" G_GSIZE_FORMAT " bytes; it was dropped. "
                       "Raise max_message_bytes in mcp.json if the server's results are that large.",
                       self->config->name, self->config->max_message_bytes);
  set_last_error (self, error->message);
  if (find_id_in_prefix (prefix, &id))
    p = g_hash_table_lookup (self->pending, &id);
  else if (g_hash_table_size (self->pending) == 1)
    {
      g_autoptr(GList) all = g_hash_table_get_values (self->pending);

      p = all->data;
    }
  if (p != NULL)
    pending_complete (p, NULL, error);
}

static void
on_conn_closed (const char *reason,
                gpointer    user_data)
{
  OwMcpClient *self = user_data;
  g_autofree char *text = g_strdup_printf ("The MCP server “%s” stopped: it %s.", self->config->name, reason);
  g_autofree char *full = with_stderr (self, text);
  g_autoptr(GError) error = g_error_new_literal (OW_MCP_ERROR, OW_MCP_ERROR_EXITED, full);

  lose_connection (self, error);
}

static const OwMcpStdioCallbacks conn_callbacks = {
  on_conn_line,
  on_conn_oversize,
  on_conn_closed,
};

static void
on_http_request_failed (gint64        id,
                        const GError *error,
                        gpointer      user_data)
{
  OwMcpClient *self = user_data;
  Pending *p = g_hash_table_lookup (self->pending, &id);

  set_last_error (self, error->message);
  if (p != NULL)
    pending_complete (p, NULL, (GError *) error);
}

static void
on_http_auth_required (const char *www_authenticate,
                       gpointer    user_data)
{
  OwMcpClient *self = user_data;

  g_free (self->auth_challenge);
  self->auth_challenge = g_strdup (www_authenticate);
  /* Signing in is a person's act (net/ow-oauth.c); until then the server
   * is of no use, whether it asked during start or later. */
  if (self->status == OW_MCP_STATUS_READY)
    set_status (self, OW_MCP_STATUS_AUTH_REQUIRED);
}

static const OwMcpHttpCallbacks http_callbacks = {
  on_conn_line,
  on_conn_closed,
  on_http_request_failed,
  on_http_auth_required,
};

/* ---- Tools listing ---------------------------------------------------- */

static OwMcpTool *
parse_tool (JsonNode *node)
{
  JsonObject *obj;
  const char *name;
  JsonObject *schema;
  OwMcpTool *tool;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  obj = json_node_get_object (node);
  name = ow_json_get_string (obj, "name");
  if (name == NULL || name[0] == '\0')
    return NULL;
  tool = g_new0 (OwMcpTool, 1);
  tool->refcount = 1;
  tool->name = g_strdup (name);
  tool->title = g_strdup (ow_json_get_string (obj, "title"));
  tool->description = g_strdup (ow_json_get_string (obj, "description"));
  schema = ow_json_get_object (obj, "inputSchema");
  if (schema != NULL)
    tool->input_schema = ow_json_object_deep_copy (schema);
  else
    {
      tool->input_schema = json_object_new ();
      json_object_set_string_member (tool->input_schema, "type", "object");
    }
  if ((schema = ow_json_get_object (obj, "outputSchema")) != NULL)
    tool->output_schema = ow_json_object_deep_copy (schema);
  if ((schema = ow_json_get_object (obj, "annotations")) != NULL)
    tool->annotations = ow_json_object_deep_copy (schema);
  return tool;
}

static void start_succeeded (OwMcpClient *self);
static void start_failed (OwMcpClient *self, GError *error);
static void send_discover (OwMcpClient *self);

static void list_page (OwMcpClient *self, const char *cursor, guint page);

static void
listing_done (OwMcpClient *self,
              GError      *error)
{
  g_autoptr(GPtrArray) gathered = g_steal_pointer (&self->listing);

  if (error != NULL)
    {
      if (self->status == OW_MCP_STATUS_STARTING)
        start_failed (self, error);
      else
        set_last_error (self, error->message);
      return;
    }
  if (self->list_dirty)
    {
      /* The list changed while it was read: read it again before anyone
       * sees a stale one. */
      list_tools (self);
      return;
    }
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  self->tools = g_steal_pointer (&gathered);
  if (self->status == OW_MCP_STATUS_STARTING)
    start_succeeded (self);
  g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
}

static void
on_list_page_cb (OwMcpClient *self,
                 JsonNode    *result,
                 GError      *error,
                 gpointer     data)
{
  guint page = GPOINTER_TO_UINT (data);
  JsonObject *obj;
  JsonArray *tools;
  const char *cursor;

  if (error != NULL)
    {
      listing_done (self, error);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (result) || (tools = ow_json_get_array (json_node_get_object (result), "tools")) == NULL)
    {
      g_autoptr(GError) bad = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                                           "The MCP server “%s” answered tools/list without a list of tools.",
                                           self->config->name);
      listing_done (self, bad);
      return;
    }
  obj = json_node_get_object (result);
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      OwMcpTool *tool = parse_tool (json_array_get_element (tools, i));

      if (tool == NULL)
        continue;
      if (ow_mcp_server_config_allows_tool (self->config, tool->name))
        g_ptr_array_add (self->listing, tool);
      else
        ow_mcp_tool_unref (tool);
    }
  cursor = ow_json_get_string (obj, "nextCursor");
  if (cursor != NULL && cursor[0] != '\0')
    {
      if (page + 1 >= MAX_LIST_PAGES)
        {
          g_autoptr(GError) bad = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                                               "The MCP server “%s” paged its tools past %d pages; "
                                               "the list was not read.", self->config->name, MAX_LIST_PAGES);
          listing_done (self, bad);
          return;
        }
      list_page (self, cursor, page + 1);
      return;
    }
  listing_done (self, NULL);
}

static void
list_page (OwMcpClient *self,
           const char  *cursor,
           guint        page)
{
  g_autoptr(JsonObject) params = NULL;

  if (cursor != NULL)
    {
      params = json_object_new ();
      json_object_set_string_member (params, "cursor", cursor);
    }
  self->n_listings++;
  send_request (self, "tools/list", params, 0, 0, NULL, on_list_page_cb, GUINT_TO_POINTER (page));
}

static void
list_tools (OwMcpClient *self)
{
  if (!has_conn (self))
    return;
  self->list_dirty = FALSE;
  g_clear_pointer (&self->listing, g_ptr_array_unref);
  self->listing = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_mcp_tool_unref);
  list_page (self, NULL, 0);
}

/* ---- Start ------------------------------------------------------------ */

static void
end_start_sequence (OwMcpClient *self)
{
  g_clear_handle_id (&self->start_timeout_id, g_source_remove);
}

static void
start_succeeded (OwMcpClient *self)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->start_task);

  end_start_sequence (self);
  self->restarts = 0;
  set_status (self, OW_MCP_STATUS_READY);
  if (task != NULL)
    g_task_return_boolean (task, TRUE);
}

static void
drop_connection (OwMcpClient *self)
{
  self->generation++;
  self->initialized = FALSE;
  self->modern = FALSE;
  self->list_dirty = FALSE;
  g_clear_pointer (&self->listing, g_ptr_array_unref);
  g_clear_pointer (&self->conn, ow_mcp_stdio_close);
  g_clear_pointer (&self->http, ow_mcp_http_close);
}

static void
start_failed (OwMcpClient *self,
              GError      *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->start_task);
  /* An exit already carries the stderr tail. */
  g_autofree char *full = g_error_matches (error, OW_MCP_ERROR, OW_MCP_ERROR_EXITED)
                          ? g_strdup (error->message) : with_stderr (self, error->message);
  g_autoptr(GError) copy = g_error_new_literal (error->domain, error->code, full);

  end_start_sequence (self);
  set_last_error (self, full);
  if (task == NULL && self->status == OW_MCP_STATUS_STARTING && self->restarts > 0)
    {
      /* A restart that failed: try again later, up to the limit. */
      lose_connection (self, copy);
      return;
    }
  drop_connection (self);
  fail_all_pending (self, copy);
  set_status (self, g_error_matches (error, OW_MCP_ERROR, OW_MCP_ERROR_AUTH_REQUIRED)
                    ? OW_MCP_STATUS_AUTH_REQUIRED : OW_MCP_STATUS_FAILED);
  if (task != NULL)
    g_task_return_error (task, g_steal_pointer (&copy));
}

static gboolean
on_start_timeout_cb (gpointer user_data)
{
  OwMcpClient *self = user_data;
  g_autoptr(GError) error = NULL;

  self->start_timeout_id = 0;
  error = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_TIMEOUT,
                       "The MCP server “%s” did not finish starting within %.0f seconds. "
                       "Check that it runs from a terminal, or raise startup_timeout_sec in mcp.json.",
                       self->config->name, self->config->start_timeout_ms / 1000.0);
  start_failed (self, error);
  return G_SOURCE_REMOVE;
}

static void
on_initialize_cb (OwMcpClient *self,
                  JsonNode    *result,
                  GError      *error,
                  gpointer     data)
{
  JsonObject *obj;
  const char *version;

  if (error != NULL)
    {
      /* A JSON-RPC error, not silence or a crash: perhaps a 2026-07-28
       * server, which has no initialize. Ask it; if that fails too, the
       * initialize error is the one to report. */
      if (g_error_matches (error, OW_MCP_ERROR, OW_MCP_ERROR_REMOTE) && self->init_error == NULL)
        {
          self->init_error = g_error_copy (error);
          send_discover (self);
          return;
        }
      start_failed (self, error);
      return;
    }
  obj = JSON_NODE_HOLDS_OBJECT (result) ? json_node_get_object (result) : NULL;
  version = obj != NULL ? ow_json_get_string (obj, "protocolVersion") : NULL;
  if (version == NULL)
    {
      g_autoptr(GError) bad = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                                           "The MCP server “%s” answered initialize without a protocolVersion.",
                                           self->config->name);
      start_failed (self, bad);
      return;
    }
  if (!g_strv_contains (accepted_versions, version))
    {
      g_autoptr(GError) bad = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_VERSION,
                                           "The MCP server “%s” speaks MCP %s, which OpenWorker does not; "
                                           "it speaks 2024-11-05 to 2025-11-25. Update the server or OpenWorker.",
                                           self->config->name, version);
      start_failed (self, bad);
      return;
    }
  if (g_strcmp0 (self->protocol_version, version) != 0)
    {
      g_free (self->protocol_version);
      self->protocol_version = g_strdup (version);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROTOCOL_VERSION]);
    }
  if (g_strcmp0 (self->instructions, ow_json_get_string (obj, "instructions")) != 0)
    {
      g_free (self->instructions);
      self->instructions = g_strdup (ow_json_get_string (obj, "instructions"));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INSTRUCTIONS]);
    }
  g_clear_pointer (&self->server_info, json_object_unref);
  g_clear_pointer (&self->server_caps, json_object_unref);
  if (ow_json_get_object (obj, "serverInfo") != NULL)
    self->server_info = ow_json_object_deep_copy (ow_json_get_object (obj, "serverInfo"));
  if (ow_json_get_object (obj, "capabilities") != NULL)
    self->server_caps = ow_json_object_deep_copy (ow_json_get_object (obj, "capabilities"));

  self->initialized = TRUE;
  if (self->http != NULL)
    ow_mcp_http_set_protocol_version (self->http, version);
  send_notification (self, "notifications/initialized", NULL);
  if (self->server_caps != NULL && ow_json_get_object (self->server_caps, "tools") == NULL)
    {
      /* A server without tools (prompts or resources only): nothing to list. */
      g_clear_pointer (&self->tools, g_ptr_array_unref);
      self->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_mcp_tool_unref);
      start_succeeded (self);
      g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
      return;
    }
  list_tools (self);
}

static JsonObject *
initialize_params (OwMcpClient *self)
{
  JsonObject *params = json_object_new ();
  JsonObject *caps = json_object_new ();
  JsonObject *roots = json_object_new ();
  JsonObject *info = json_object_new ();

  json_object_set_string_member (params, "protocolVersion", OFFERED_VERSION);
  /* Roots, and elicitation only when someone can answer it; sampling is
   * never offered, so servers do not ask for it (and are refused). */
  json_object_set_boolean_member (roots, "listChanged", FALSE);
  json_object_set_object_member (caps, "roots", roots);
  if (self->elicit_func != NULL)
    {
      JsonObject *elicitation = json_object_new ();

      json_object_set_object_member (elicitation, "form", json_object_new ());
      json_object_set_object_member (elicitation, "url", json_object_new ());
      json_object_set_object_member (caps, "elicitation", elicitation);
    }
  json_object_set_object_member (params, "capabilities", caps);
  json_object_set_string_member (info, "name", "openworker");
  json_object_set_string_member (info, "title", "OpenWorker");
  json_object_set_string_member (info, "version", OW_VERSION);
  json_object_set_object_member (params, "clientInfo", info);
  return params;
}

static void
send_initialize (OwMcpClient *self)
{
  g_autoptr(JsonObject) params = initialize_params (self);

  self->modern = FALSE;
  if (self->http != NULL)
    ow_mcp_http_set_protocol_version (self->http, NULL);
  send_request (self, "initialize", params, 0, 0, NULL, on_initialize_cb, NULL);
}

static void
set_string_prop (OwMcpClient *self,
                 char       **field,
                 const char  *value,
                 guint        prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

/* Era detection. initialize goes first: most servers speak a 2025
 * revision, and some stateless 2025 servers (the conformance suite's own)
 * break when another request comes before it. A server that refuses
 * initialize with a JSON-RPC error is asked server/discover; a
 * DiscoverResult naming 2026-07-28 means the stateless generation (every
 * request then carries _meta). Anything else fails the start with the
 * initialize error. */
static void
on_discover_cb (OwMcpClient *self,
                JsonNode    *result,
                GError      *error,
                gpointer     data)
{
  g_autoptr(GError) init_error = g_steal_pointer (&self->init_error);
  JsonObject *obj;
  JsonArray *versions;
  JsonObject *meta;
  gboolean speaks = FALSE;

  if (error != NULL)
    {
      if (self->rpc_error_code == UNSUPPORTED_VERSION_CODE)
        g_debug ("MCP server %s: refuses 2026-07-28 too", self->config->name);
      start_failed (self, init_error != NULL ? init_error : error);
      return;
    }
  obj = JSON_NODE_HOLDS_OBJECT (result) ? json_node_get_object (result) : NULL;
  versions = obj != NULL ? ow_json_get_array (obj, "supportedVersions") : NULL;
  for (guint i = 0; versions != NULL && i < json_array_get_length (versions); i++)
    {
      JsonNode *v = json_array_get_element (versions, i);

      speaks |= JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_STRING
                && g_str_equal (json_node_get_string (v), MODERN_VERSION);
    }
  if (!speaks)
    {
      g_autoptr(GError) none = NULL;

      if (init_error == NULL)
        none = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_VERSION,
                            "The MCP server “%s” speaks no protocol revision OpenWorker does.", self->config->name);
      start_failed (self, init_error != NULL ? init_error : none);
      return;
    }
  self->modern = TRUE;
  self->initialized = TRUE;
  set_string_prop (self, &self->protocol_version, MODERN_VERSION, PROP_PROTOCOL_VERSION);
  set_string_prop (self, &self->instructions, ow_json_get_string (obj, "instructions"), PROP_INSTRUCTIONS);
  g_clear_pointer (&self->server_info, json_object_unref);
  g_clear_pointer (&self->server_caps, json_object_unref);
  meta = ow_json_get_object (obj, "_meta");
  if (meta != NULL && ow_json_get_object (meta, META_PREFIX "serverInfo") != NULL)
    self->server_info = ow_json_object_deep_copy (ow_json_get_object (meta, META_PREFIX "serverInfo"));
  if (ow_json_get_object (obj, "capabilities") != NULL)
    self->server_caps = ow_json_object_deep_copy (ow_json_get_object (obj, "capabilities"));
  if (self->http != NULL)
    ow_mcp_http_set_protocol_version (self->http, MODERN_VERSION);
  list_tools (self);
}

static void
send_discover (OwMcpClient *self)
{
  if (self->http != NULL)
    ow_mcp_http_set_protocol_version (self->http, MODERN_VERSION);
  send_request (self, "server/discover", NULL, MIN (DISCOVER_TIMEOUT_MS, self->config->start_timeout_ms), 0, NULL,
                on_discover_cb, NULL);
}

static void
connect_with_path (OwMcpClient *self,
                   const char  *path)
{
  g_autoptr(GError) error = NULL;

  drop_connection (self);
  g_clear_error (&self->init_error);
  if (self->config->transport == OW_MCP_TRANSPORT_HTTP)
    {
      self->http = ow_mcp_http_start (self->config, &http_callbacks, self);
      ow_mcp_http_set_access_token (self->http, self->access_token);
    }
  else
    {
      self->conn = ow_mcp_stdio_start (self->config, path, &conn_callbacks, self, &error);
      if (self->conn == NULL)
        {
          start_failed (self, error);
          return;
        }
    }
  send_initialize (self);
}

static void
on_login_path_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(OwMcpClient) self = user_data;
  g_autofree char *path = ow_mcp_login_path_finish (result, NULL);

  if (self->status != OW_MCP_STATUS_STARTING || path == NULL)
    return;  /* stopped meanwhile */
  connect_with_path (self, path);
}

static void
connect_server (OwMcpClient *self)
{
  set_status (self, OW_MCP_STATUS_STARTING);
  g_clear_handle_id (&self->start_timeout_id, g_source_remove);
  self->start_timeout_id = g_timeout_add (self->config->start_timeout_ms, on_start_timeout_cb, self);
  g_clear_object (&self->start_cancel);
  self->start_cancel = g_cancellable_new ();
  if (self->config->transport == OW_MCP_TRANSPORT_HTTP)
    connect_with_path (self, NULL);
  else
    ow_mcp_login_path_async (self->start_cancel, on_login_path_cb, g_object_ref (self));
}

void
ow_mcp_client_start_async (OwMcpClient         *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_return_if_fail (OW_IS_MCP_CLIENT (self));
  g_task_set_source_tag (task, ow_mcp_client_start_async);
  if (self->config->error != NULL)
    {
      set_last_error (self, self->config->error);
      set_status (self, OW_MCP_STATUS_FAILED);
      g_task_return_new_error (task, OW_MCP_ERROR, OW_MCP_ERROR_CONFIG, "%s", self->config->error);
      return;
    }
  if (self->status == OW_MCP_STATUS_READY)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (self->start_task != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING,
                               "The MCP server “%s” is already starting.", self->config->name);
      return;
    }
  g_clear_handle_id (&self->restart_id, g_source_remove);
  self->restarts = 0;
  self->start_task = g_steal_pointer (&task);
  connect_server (self);
}

gboolean
ow_mcp_client_start_finish (OwMcpClient   *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- Crashes and restarts --------------------------------------------- */

static gboolean
on_restart_cb (gpointer user_data)
{
  OwMcpClient *self = user_data;

  self->restart_id = 0;
  connect_server (self);
  return G_SOURCE_REMOVE;
}

static void
lose_connection (OwMcpClient *self,
                 GError      *error)
{
  gboolean was_starting_for_caller = self->start_task != NULL;
  guint delay;

  if (was_starting_for_caller)
    {
      /* The first start: the caller decides whether to try again. */
      start_failed (self, error);
      return;
    }
  set_last_error (self, error->message);
  end_start_sequence (self);
  drop_connection (self);
  fail_all_pending (self, error);
  if (self->restarts >= self->config->max_restarts)
    {
      g_autofree char *text = g_strdup_printf ("%s It was restarted %u times in a row and is now left stopped.",
                                               error->message, self->restarts);
      set_last_error (self, text);
      set_status (self, OW_MCP_STATUS_FAILED);
      return;
    }
  delay = MIN ((guint) RESTART_BASE_MS << MIN (self->restarts, 10u), (guint) RESTART_MAX_MS);
  self->restarts++;
  set_status (self, OW_MCP_STATUS_RESTARTING);
  g_debug ("MCP server %s: restart %u in %u ms", self->config->name, self->restarts, delay);
  self->restart_id = g_timeout_add (delay, on_restart_cb, self);
}

/* ---- Tool calls ------------------------------------------------------- */

static OwMcpContent *
parse_content (JsonNode *node)
{
  OwMcpContent *c;
  JsonObject *obj;
  const char *type;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  obj = json_node_get_object (node);
  type = ow_json_get_string (obj, "type");
  c = g_new0 (OwMcpContent, 1);
  c->raw = ow_json_object_deep_copy (obj);
  c->mime_type = g_strdup (ow_json_get_string (obj, "mimeType"));
  if (g_strcmp0 (type, "text") == 0 && ow_json_get_string (obj, "text") != NULL)
    {
      c->type = OW_MCP_CONTENT_TEXT;
      c->text = g_strdup (ow_json_get_string (obj, "text"));
    }
  else if ((g_strcmp0 (type, "image") == 0 || g_strcmp0 (type, "audio") == 0)
           && ow_json_get_string (obj, "data") != NULL)
    {
      c->type = g_str_equal (type, "image") ? OW_MCP_CONTENT_IMAGE : OW_MCP_CONTENT_AUDIO;
      c->data = g_strdup (ow_json_get_string (obj, "data"));
    }
  else if (g_strcmp0 (type, "resource_link") == 0 && ow_json_get_string (obj, "uri") != NULL)
    {
      c->type = OW_MCP_CONTENT_RESOURCE_LINK;
      c->uri = g_strdup (ow_json_get_string (obj, "uri"));
      c->name = g_strdup (ow_json_get_string (obj, "name"));
      c->description = g_strdup (ow_json_get_string (obj, "description"));
    }
  else if (g_strcmp0 (type, "resource") == 0 && ow_json_get_object (obj, "resource") != NULL
           && ow_json_get_string (ow_json_get_object (obj, "resource"), "uri") != NULL)
    {
      JsonObject *res = ow_json_get_object (obj, "resource");

      c->type = OW_MCP_CONTENT_RESOURCE;
      c->uri = g_strdup (ow_json_get_string (res, "uri"));
      g_free (c->mime_type);
      c->mime_type = g_strdup (ow_json_get_string (res, "mimeType"));
      c->text = g_strdup (ow_json_get_string (res, "text"));
      c->data = g_strdup (ow_json_get_string (res, "blob"));
    }
  else
    c->type = OW_MCP_CONTENT_UNKNOWN;
  return c;
}

typedef struct
{
  char      *name;
  OwMcpTool *tool;  /* the descriptor when the call was made, or NULL */
} CallData;

static void
call_data_free (CallData *d)
{
  g_free (d->name);
  g_clear_pointer (&d->tool, ow_mcp_tool_unref);
  g_free (d);
}

static void
on_call_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) outer = user_data;
  OwMcpClient *self = OW_MCP_CLIENT (source);
  CallData *d = g_task_get_task_data (outer);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = g_task_propagate_pointer (G_TASK (result), &error);
  g_autoptr(OwMcpCallResult) out = NULL;
  JsonObject *obj;
  JsonArray *content;
  JsonNode *structured;

  if (node == NULL)
    {
      g_task_return_error (outer, g_steal_pointer (&error));
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_task_return_new_error (outer, OW_MCP_ERROR, OW_MCP_ERROR_PROTOCOL,
                               "The MCP server “%s” answered tools/call with something that is not a result object.",
                               self->config->name);
      return;
    }
  obj = json_node_get_object (node);
  if (g_strcmp0 (ow_json_get_string (obj, "resultType"), "input_required") == 0)
    {
      /* 2026-07-28's multi-round requests (elicitation and the like). */
      g_task_return_new_error (outer, OW_MCP_ERROR, OW_MCP_ERROR_FAILED,
                               "The MCP server “%s” asked for more input to run %s, which OpenWorker cannot "
                               "give it yet.", self->config->name, d->name);
      return;
    }
  out = g_new0 (OwMcpCallResult, 1);
  out->content = g_ptr_array_new_with_free_func ((GDestroyNotify) content_free);
  out->is_error = ow_json_get_bool (obj, "isError", FALSE);
  content = ow_json_get_array (obj, "content");
  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      OwMcpContent *c = parse_content (json_array_get_element (content, i));

      if (c != NULL)
        g_ptr_array_add (out->content, c);
    }
  structured = json_object_get_member (obj, "structuredContent");
  if (structured != NULL && JSON_NODE_HOLDS_OBJECT (structured))
    out->structured_content = ow_json_object_deep_copy (json_node_get_object (structured));
  else if (structured != NULL && !JSON_NODE_HOLDS_NULL (structured))
    {
      g_task_return_new_error (outer, OW_MCP_ERROR, OW_MCP_ERROR_INVALID_RESULT,
                               "The MCP server “%s” returned a structuredContent from %s that is not an object.",
                               self->config->name, d->name);
      return;
    }
  if (d->tool != NULL && d->tool->output_schema != NULL && !out->is_error)
    {
      if (out->structured_content == NULL)
        {
          g_task_return_new_error (outer, OW_MCP_ERROR, OW_MCP_ERROR_INVALID_RESULT,
                                   "The MCP server “%s” declares an output schema for %s but returned no "
                                   "structuredContent.", self->config->name, d->name);
          return;
        }
      if (!ow_mcp_schema_check (d->tool->output_schema, structured, &error))
        {
          g_task_return_new_error (outer, OW_MCP_ERROR, OW_MCP_ERROR_INVALID_RESULT,
                                   "The MCP server “%s” returned a result from %s that breaks its own schema. %s",
                                   self->config->name, d->name, error->message);
          return;
        }
    }
  g_task_return_pointer (outer, g_steal_pointer (&out), (GDestroyNotify) ow_mcp_call_result_free);
}

void
ow_mcp_client_call_tool_async (OwMcpClient         *self,
                               const char          *name,
                               JsonObject          *arguments,
                               OwMcpProgressFunc    progress,
                               gpointer             progress_data,
                               GDestroyNotify       progress_destroy,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) outer = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GTask) inner = NULL;
  g_autoptr(JsonObject) params = json_object_new ();
  CallData *d;
  Pending *p;
  OwMcpTool *tool;

  g_return_if_fail (OW_IS_MCP_CLIENT (self));
  g_task_set_source_tag (outer, ow_mcp_client_call_tool_async);
  if (self->status != OW_MCP_STATUS_READY || !has_conn (self))
    {
      if (progress_destroy != NULL)
        progress_destroy (progress_data);
      g_task_return_new_error (outer, OW_MCP_ERROR, OW_MCP_ERROR_NOT_READY,
                               self->status == OW_MCP_STATUS_RESTARTING
                               ? "The MCP server “%s” is restarting after a crash; try again in a moment."
                               : self->status == OW_MCP_STATUS_AUTH_REQUIRED
                               ? "The MCP server “%s” needs you to sign in before its tools can be used."
                               : "The MCP server “%s” is not connected.", self->config->name);
      return;
    }
  if (g_task_return_error_if_cancelled (outer))
    {
      if (progress_destroy != NULL)
        progress_destroy (progress_data);
      return;
    }
  tool = ow_mcp_client_lookup_tool (self, name);
  d = g_new0 (CallData, 1);
  d->name = g_strdup (name);
  d->tool = tool != NULL ? ow_mcp_tool_ref (tool) : NULL;
  g_task_set_task_data (outer, d, (GDestroyNotify) call_data_free);

  json_object_set_string_member (params, "name", name);
  json_object_set_object_member (params, "arguments",
                                 arguments != NULL ? ow_json_object_deep_copy (arguments) : json_object_new ());
  if (progress != NULL)
    {
      /* The token names the request it is sent with (send_request takes
       * the next id). */
      JsonObject *meta = json_object_new ();
      g_autofree char *token = g_strdup_printf ("ow-%" G_GINT64_FORMAT, self->next_id + 1);

      json_object_set_string_member (meta, "progressToken", token);
      json_object_set_object_member (params, "_meta", meta);
    }
  inner = g_task_new (self, NULL, on_call_done_cb, g_object_ref (outer));
  p = send_request (self, "tools/call", params, self->config->call_timeout_ms, self->config->call_max_ms,
                    inner, NULL, NULL);
  if (progress != NULL)
    {
      p->progress_token = g_strdup_printf ("ow-%" G_GINT64_FORMAT, p->id);
      p->progress = progress;
      p->progress_data = progress_data;
      p->progress_destroy = progress_destroy;
    }
  if (cancellable != NULL)
    {
      p->cancellable = g_object_ref (cancellable);
      p->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_pending_cancelled_cb), p, NULL);
    }
}

OwMcpCallResult *
ow_mcp_client_call_tool_finish (OwMcpClient   *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Stop and accessors ----------------------------------------------- */

void
ow_mcp_client_stop (OwMcpClient *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = g_steal_pointer (&self->start_task);

  g_return_if_fail (OW_IS_MCP_CLIENT (self));
  error = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_NOT_READY, "The MCP server “%s” was stopped.", self->config->name);
  g_clear_handle_id (&self->restart_id, g_source_remove);
  end_start_sequence (self);
  if (self->start_cancel != NULL)
    g_cancellable_cancel (self->start_cancel);
  drop_connection (self);
  fail_all_pending (self, error);
  set_status (self, OW_MCP_STATUS_STOPPED);
  if (task != NULL)
    g_task_return_error (task, g_steal_pointer (&error));
}

GPtrArray *
ow_mcp_client_get_tools (OwMcpClient *self)
{
  g_return_val_if_fail (OW_IS_MCP_CLIENT (self), NULL);
  if (self->tools == NULL)
    return g_ptr_array_new_with_free_func ((GDestroyNotify) ow_mcp_tool_unref);
  return g_ptr_array_ref (self->tools);
}

OwMcpTool *
ow_mcp_client_lookup_tool (OwMcpClient *self,
                           const char  *name)
{
  for (guint i = 0; self->tools != NULL && i < self->tools->len; i++)
    {
      OwMcpTool *tool = g_ptr_array_index (self->tools, i);

      if (g_str_equal (tool->name, name))
        return tool;
    }
  return NULL;
}

const OwMcpServerConfig *
ow_mcp_client_get_config (OwMcpClient *self)
{
  g_return_val_if_fail (OW_IS_MCP_CLIENT (self), NULL);
  return self->config;
}

const char *
ow_mcp_client_get_name (OwMcpClient *self)
{
  return self->config->name;
}

OwMcpStatus
ow_mcp_client_get_status (OwMcpClient *self)
{
  return self->status;
}

const char *
ow_mcp_client_get_last_error (OwMcpClient *self)
{
  return self->last_error;
}

const char *
ow_mcp_client_get_protocol_version (OwMcpClient *self)
{
  return self->protocol_version;
}

const char *
ow_mcp_client_get_instructions (OwMcpClient *self)
{
  return self->instructions;
}

JsonObject *
ow_mcp_client_get_server_info (OwMcpClient *self)
{
  return self->server_info;
}

int
ow_mcp_client_get_pid (OwMcpClient *self)
{
  return self->conn != NULL ? ow_mcp_stdio_get_pid (self->conn) : 0;
}

void
ow_mcp_client_set_access_token (OwMcpClient *self,
                                const char  *token)
{
  g_return_if_fail (OW_IS_MCP_CLIENT (self));
  g_free (self->access_token);
  self->access_token = g_strdup (token);
  if (self->http != NULL)
    ow_mcp_http_set_access_token (self->http, token);
}

const char *
ow_mcp_client_get_auth_challenge (OwMcpClient *self)
{
  return self->auth_challenge;
}

const char *
ow_mcp_client_get_session_id (OwMcpClient *self)
{
  return self->http != NULL ? ow_mcp_http_get_session_id (self->http) : NULL;
}

guint
ow_mcp_client_get_n_listings (OwMcpClient *self)
{
  return self->n_listings;
}

OwMcpClient *
ow_mcp_client_new (const OwMcpServerConfig *config)
{
  OwMcpClient *self = g_object_new (OW_TYPE_MCP_CLIENT, NULL);

  self->config = ow_mcp_server_config_copy (config);
  return self;
}

static void
ow_mcp_client_dispose (GObject *object)
{
  OwMcpClient *self = OW_MCP_CLIENT (object);

  if (self->config != NULL && (has_conn (self) || self->start_task != NULL || self->restart_id != 0))
    ow_mcp_client_stop (self);
  G_OBJECT_CLASS (ow_mcp_client_parent_class)->dispose (object);
}

static void
ow_mcp_client_finalize (GObject *object)
{
  OwMcpClient *self = OW_MCP_CLIENT (object);

  g_hash_table_unref (self->pending);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_clear_pointer (&self->listing, g_ptr_array_unref);
  g_clear_pointer (&self->server_info, json_object_unref);
  g_clear_pointer (&self->server_caps, json_object_unref);
  g_clear_object (&self->start_cancel);
  g_free (self->last_error);
  g_free (self->auth_challenge);
  g_free (self->access_token);
  g_clear_error (&self->init_error);
  g_free (self->protocol_version);
  g_free (self->instructions);
  ow_mcp_server_config_free (self->config);
  G_OBJECT_CLASS (ow_mcp_client_parent_class)->finalize (object);
}

static void
ow_mcp_client_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  OwMcpClient *self = OW_MCP_CLIENT (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->config != NULL ? self->config->name : NULL);
      break;
    case PROP_STATUS:
      g_value_set_enum (value, self->status);
      break;
    case PROP_LAST_ERROR:
      g_value_set_string (value, self->last_error);
      break;
    case PROP_PROTOCOL_VERSION:
      g_value_set_string (value, self->protocol_version);
      break;
    case PROP_INSTRUCTIONS:
      g_value_set_string (value, self->instructions);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_mcp_client_class_init (OwMcpClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  struct sigaction old;

  object_class->dispose = ow_mcp_client_dispose;
  object_class->finalize = ow_mcp_client_finalize;
  object_class->get_property = ow_mcp_client_get_property;

  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATUS] = g_param_spec_enum ("status", NULL, NULL, OW_TYPE_MCP_STATUS, OW_MCP_STATUS_STOPPED,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_LAST_ERROR] = g_param_spec_string ("last-error", NULL, NULL, NULL,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_PROTOCOL_VERSION] = g_param_spec_string ("protocol-version", NULL, NULL, NULL,
                                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                           | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_INSTRUCTIONS] = g_param_spec_string ("instructions", NULL, NULL, NULL,
                                                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                       | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_TOOLS_CHANGED] = g_signal_new ("tools-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /* A write to a server that just died must fail with EPIPE, not kill us
   * with SIGPIPE. Leave a handler someone else installed alone. */
  if (sigaction (SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
    signal (SIGPIPE, SIG_IGN);
}

static void
ow_mcp_client_init (OwMcpClient *self)
{
  self->pending = g_hash_table_new (g_int64_hash, g_int64_equal);
}
