/* ow-mcp-auth.c: an HTTP MCP server's sign-in (see ow-mcp-auth.h).
 *
 * One connection attempt is a sequence: token → start → (a 401 that
 * carried a token: invalidate → token → start, once). `connecting` is TRUE
 * while a sequence runs, so the client's own status changes during it are
 * the sequence's business; outside one, a client that falls to
 * AUTH_REQUIRED (a 401 or 403 in the middle of a session) is looked at on
 * an idle, and OwOAuth's "signed-in" starts a new sequence.
 */
#define G_LOG_DOMAIN "ow-mcp"

#include "mcp/ow-mcp-auth.h"

#include <string.h>

#include "ow-error.h"

#define AUTH_KEY "ow-mcp-auth"

struct _OwMcpAuth
{
  GObject parent_instance;

  /* borrowed references */
  OwMcpClient  *client;         /* owns us; valid until our dispose */

  /* owned references */
  OwOAuth      *oauth;
  GCancellable *cancel;         /* cancelled at dispose: ends every callback */
  GTask        *task;           /* the caller's start, or NULL for our own reconnects */

  /* state */
  char         *resource;       /* canonical resource URL */
  char         *authorization_url;
  gboolean      needs_sign_in;
  gboolean      connecting;     /* a sequence runs */
  gboolean      had_token;      /* the current attempt sent a token */
  gboolean      retried;        /* the one retry after a 401 was used */
  gulong        status_id;
  gulong        signed_in_id;
  guint         idle_id;
};

enum {
  PROP_0,
  PROP_NEEDS_SIGN_IN,
  PROP_AUTHORIZATION_URL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (OwMcpAuth, ow_mcp_auth, G_TYPE_OBJECT)

static void connect_begin (OwMcpAuth *self);

static void
set_needs_sign_in (OwMcpAuth *self,
                   gboolean   needs)
{
  if (self->needs_sign_in == needs)
    return;
  self->needs_sign_in = needs;
  g_debug ("MCP server %s: %s", ow_mcp_client_get_name (self->client),
           needs ? "needs a sign-in" : "signed in");
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NEEDS_SIGN_IN]);
}

static void
set_authorization_url (OwMcpAuth  *self,
                       const char *url)
{
  if (g_strcmp0 (self->authorization_url, url) == 0)
    return;
  g_free (self->authorization_url);
  self->authorization_url = g_strdup (url);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTHORIZATION_URL]);
}

static gboolean
is_step_up (OwMcpAuth *self)
{
  const char *www = ow_mcp_client_get_auth_challenge (self->client);

  return www != NULL && strstr (www, "insufficient_scope") != NULL;
}

/* A 401 to a token: the one retry with a refreshed token, when unused. */
static gboolean
try_again (OwMcpAuth *self)
{
  if (!self->had_token || self->retried || is_step_up (self))
    return FALSE;
  self->retried = TRUE;
  g_debug ("MCP server %s: the token was refused; refreshing it once", ow_mcp_client_get_name (self->client));
  ow_oauth_invalidate (self->oauth, self->resource);
  connect_begin (self);
  return TRUE;
}

static void
sequence_done (OwMcpAuth *self,
               GError    *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->task);

  self->connecting = FALSE;
  if (task == NULL)
    return;
  if (error != NULL)
    g_task_return_error (task, g_error_copy (error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_started_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(OwMcpAuth) self = user_data;
  g_autoptr(GError) error = NULL;
  const char *name;

  gboolean ok = ow_mcp_client_start_finish (OW_MCP_CLIENT (source), result, &error);

  if (g_cancellable_is_cancelled (self->cancel))
    return;
  if (ok)
    {
      self->retried = FALSE;
      set_needs_sign_in (self, FALSE);
      sequence_done (self, NULL);
      return;
    }
  if (ow_mcp_client_get_status (self->client) != OW_MCP_STATUS_AUTH_REQUIRED)
    {
      sequence_done (self, error);
      return;
    }
  if (try_again (self))
    return;
  name = ow_mcp_client_get_name (self->client);
  set_needs_sign_in (self, TRUE);
  g_clear_error (&error);
  error = g_error_new (OW_MCP_ERROR, OW_MCP_ERROR_AUTH_REQUIRED,
                       is_step_up (self)
                       ? "The MCP server “%s” needs more permission than you granted. "
                         "Sign in again: run “openworker mcp login %s”, or connect it from Settings."
                       : "The MCP server “%s” needs you to sign in. "
                         "Run “openworker mcp login %s”, or connect it from Settings.",
                       name, name);
  sequence_done (self, error);
}

static void
on_token_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(OwMcpAuth) self = user_data;
  g_autoptr(GError) error = NULL;
  char *token = ow_oauth_get_access_token_finish (OW_OAUTH (source), result, &error);

  if (g_cancellable_is_cancelled (self->cancel))
    {
      ow_secret_free (token);
      return;
    }
  self->had_token = token != NULL;
  ow_mcp_client_set_access_token (self->client, token);
  ow_secret_free (token);
  if (error != NULL && !g_error_matches (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_SIGN_IN_REQUIRED))
    g_debug ("MCP server %s: no token: %s", ow_mcp_client_get_name (self->client), error->message);
  if (ow_mcp_client_get_status (self->client) == OW_MCP_STATUS_READY)
    {
      /* A new sign-in for a server already connected (after a step-up, or
       * signing in again): the token is used from the next request on. */
      self->retried = FALSE;
      set_needs_sign_in (self, FALSE);
      sequence_done (self, NULL);
      return;
    }
  ow_mcp_client_start_async (self->client, self->cancel, on_started_cb, g_object_ref (self));
}

static void
connect_begin (OwMcpAuth *self)
{
  self->connecting = TRUE;
  ow_oauth_get_access_token_async (self->oauth, self->resource, self->cancel, on_token_cb, g_object_ref (self));
}

static gboolean
on_auth_required_idle_cb (gpointer user_data)
{
  OwMcpAuth *self = user_data;

  self->idle_id = 0;
  if (self->connecting || ow_mcp_client_get_status (self->client) != OW_MCP_STATUS_AUTH_REQUIRED)
    return G_SOURCE_REMOVE;
  if (!try_again (self))
    set_needs_sign_in (self, TRUE);
  return G_SOURCE_REMOVE;
}

static void
on_client_status_cb (GObject    *object,
                     GParamSpec *pspec,
                     gpointer    user_data)
{
  OwMcpAuth *self = user_data;
  OwMcpStatus status = ow_mcp_client_get_status (self->client);

  /* Stopped on purpose (the app quits, the server was removed): a later
   * sign-in must not start it again. */
  if (status == OW_MCP_STATUS_STOPPED && !self->connecting)
    set_needs_sign_in (self, FALSE);
  if (self->connecting || self->idle_id != 0 || status != OW_MCP_STATUS_AUTH_REQUIRED)
    return;
  self->idle_id = g_idle_add (on_auth_required_idle_cb, self);
}

static void
on_oauth_signed_in_cb (OwOAuth    *oauth,
                       const char *resource,
                       gpointer    user_data)
{
  OwMcpAuth *self = user_data;
  g_autofree char *canonical = ow_oauth_canonical_resource (resource);

  if (g_strcmp0 (canonical, self->resource) != 0)
    return;
  set_authorization_url (self, NULL);
  if (self->connecting)
    return;
  self->retried = FALSE;
  if (ow_mcp_client_get_status (self->client) == OW_MCP_STATUS_STOPPED && !self->needs_sign_in)
    return;  /* never started, or stopped on purpose */
  g_debug ("MCP server %s: signed in; connecting", ow_mcp_client_get_name (self->client));
  connect_begin (self);
}

/* ---- Public ------------------------------------------------------------ */

static void
detach (gpointer data)
{
  /* The client is going; end our callbacks even where one holds a ref. */
  g_object_run_dispose (data);
  g_object_unref (data);
}

OwMcpAuth *
ow_mcp_auth_attach (OwMcpClient *client,
                    OwOAuth     *oauth)
{
  const OwMcpServerConfig *config;
  OwMcpAuth *self;
  g_autofree char *resource = NULL;

  g_return_val_if_fail (OW_IS_MCP_CLIENT (client), NULL);
  g_return_val_if_fail (OW_IS_OAUTH (oauth), NULL);
  if ((self = ow_mcp_auth_get (client)) != NULL)
    return self;
  config = ow_mcp_client_get_config (client);
  if (config->transport != OW_MCP_TRANSPORT_HTTP || config->url == NULL
      || (resource = ow_oauth_canonical_resource (config->url)) == NULL)
    return NULL;
  self = g_object_new (OW_TYPE_MCP_AUTH, NULL);
  self->client = client;
  self->oauth = g_object_ref (oauth);
  self->resource = g_steal_pointer (&resource);
  if (config->client_id != NULL && config->client_id[0] != '\0')
    ow_oauth_set_client (oauth, config->url, config->client_id, config->client_secret);
  self->status_id = g_signal_connect (client, "notify::status", G_CALLBACK (on_client_status_cb), self);
  self->signed_in_id = g_signal_connect (oauth, "signed-in", G_CALLBACK (on_oauth_signed_in_cb), self);
  g_object_set_data_full (G_OBJECT (client), AUTH_KEY, self, detach);
  return self;
}

OwMcpAuth *
ow_mcp_auth_get (OwMcpClient *client)
{
  return g_object_get_data (G_OBJECT (client), AUTH_KEY);
}

const char *
ow_mcp_auth_get_resource (OwMcpAuth *self)
{
  return self->resource;
}

gboolean
ow_mcp_auth_get_needs_sign_in (OwMcpAuth *self)
{
  return self->needs_sign_in;
}

gboolean
ow_mcp_auth_has_token (OwMcpAuth *self)
{
  return self->had_token;
}

const char *
ow_mcp_auth_get_authorization_url (OwMcpAuth *self)
{
  return self->authorization_url;
}

void
ow_mcp_auth_start_async (OwMcpAuth           *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_return_if_fail (OW_IS_MCP_AUTH (self));
  g_task_set_source_tag (task, ow_mcp_auth_start_async);
  if (self->task != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING, "The MCP server “%s” is already starting.",
                               ow_mcp_client_get_name (self->client));
      return;
    }
  self->task = g_steal_pointer (&task);
  if (self->connecting)
    return;  /* a reconnection after a sign-in is under way: its outcome is ours */
  self->retried = FALSE;
  connect_begin (self);
}

gboolean
ow_mcp_auth_start_finish (OwMcpAuth     *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
on_begin_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OwMcpAuth *self = g_task_get_source_object (task);
  GError *error = NULL;
  char *url = ow_oauth_begin_sign_in_finish (OW_OAUTH (source), result, &error);

  if (url == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  set_authorization_url (self, url);
  g_task_return_pointer (task, url, g_free);
}

void
ow_mcp_auth_sign_in_async (OwMcpAuth           *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_return_if_fail (OW_IS_MCP_AUTH (self));
  g_task_set_source_tag (task, ow_mcp_auth_sign_in_async);
  ow_oauth_begin_sign_in_async (self->oauth, self->resource, ow_mcp_client_get_auth_challenge (self->client),
                                cancellable, on_begin_cb, task);
}

char *
ow_mcp_auth_sign_in_finish (OwMcpAuth     *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_start_any_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  gboolean ok = OW_IS_MCP_AUTH (source)
                ? ow_mcp_auth_start_finish (OW_MCP_AUTH (source), result, &error)
                : ow_mcp_client_start_finish (OW_MCP_CLIENT (source), result, &error);

  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
ow_mcp_start_async (OwMcpClient         *client,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  GTask *task = g_task_new (client, cancellable, callback, user_data);
  OwMcpAuth *auth = ow_mcp_auth_get (client);

  g_task_set_source_tag (task, ow_mcp_start_async);
  if (auth != NULL)
    ow_mcp_auth_start_async (auth, cancellable, on_start_any_cb, task);
  else
    ow_mcp_client_start_async (client, cancellable, on_start_any_cb, task);
}

gboolean
ow_mcp_start_finish (OwMcpClient   *client,
                     GAsyncResult  *result,
                     GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- GObject ----------------------------------------------------------- */

static void
ow_mcp_auth_dispose (GObject *object)
{
  OwMcpAuth *self = OW_MCP_AUTH (object);

  g_cancellable_cancel (self->cancel);
  g_clear_handle_id (&self->idle_id, g_source_remove);
  if (self->client != NULL && self->status_id != 0
      && g_signal_handler_is_connected (self->client, self->status_id))
    g_signal_handler_disconnect (self->client, self->status_id);
  self->status_id = 0;
  if (self->oauth != NULL)
    g_clear_signal_handler (&self->signed_in_id, self->oauth);
  if (self->task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->task);

      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The MCP server was removed.");
    }
  self->client = NULL;
  g_clear_object (&self->oauth);
  G_OBJECT_CLASS (ow_mcp_auth_parent_class)->dispose (object);
}

static void
ow_mcp_auth_finalize (GObject *object)
{
  OwMcpAuth *self = OW_MCP_AUTH (object);

  g_object_unref (self->cancel);
  g_free (self->resource);
  g_free (self->authorization_url);
  G_OBJECT_CLASS (ow_mcp_auth_parent_class)->finalize (object);
}

static void
ow_mcp_auth_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  OwMcpAuth *self = OW_MCP_AUTH (object);

  switch (prop_id)
    {
    case PROP_NEEDS_SIGN_IN:
      g_value_set_boolean (value, self->needs_sign_in);
      break;
    case PROP_AUTHORIZATION_URL:
      g_value_set_string (value, self->authorization_url);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_mcp_auth_class_init (OwMcpAuthClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_mcp_auth_dispose;
  object_class->finalize = ow_mcp_auth_finalize;
  object_class->get_property = ow_mcp_auth_get_property;

  properties[PROP_NEEDS_SIGN_IN] =
    g_param_spec_boolean ("needs-sign-in", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_AUTHORIZATION_URL] =
    g_param_spec_string ("authorization-url", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ow_mcp_auth_init (OwMcpAuth *self)
{
  self->cancel = g_cancellable_new ();
}
