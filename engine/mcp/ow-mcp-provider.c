/* ow-mcp-provider.c: one MCP server's tools, as a tool provider. */
#include "mcp/ow-mcp-provider.h"

#include <string.h>

#include "mcp/ow-mcp-auth.h"
#include "ow-error.h"
#include "ow-json.h"

/* ---- One tool --------------------------------------------------------------
 *
 * OwMcpBoundTool is an OwTool for one listed tool of one client. It keeps
 * the client alive while a call runs (a provider dropped mid-call must not
 * free the connection under it). */

/* ---- Who can be asked ---------------------------------------------------------
 *
 * A server asks (elicitation/create) while one of its tools runs. The
 * provider routes the question to the call in flight, whose context knows
 * how to reach the session's person (OwToolContext.ask_async: the attendant,
 * as ask_user). Shared by the provider and its tools, which may outlive it. */

typedef struct {
  void        (*ask_async)  (GObject *, JsonObject *, GCancellable *, GAsyncReadyCallback, gpointer);
  JsonObject *(*ask_finish) (GObject *, GAsyncResult *, GError **);
  GObject      *data;         /* owned */
  GCancellable *cancellable;  /* the call's, or NULL (owned) */
} Asker;

typedef struct {
  gint    refcount;
  GQueue  askers;   /* Asker*, calls in flight, oldest first */
} Router;

static Router *
router_ref (Router *r)
{
  r->refcount++;
  return r;
}

static void
asker_free (Asker *a)
{
  g_object_unref (a->data);
  g_clear_object (&a->cancellable);
  g_free (a);
}

static void
router_unref (Router *r)
{
  if (--r->refcount > 0)
    return;
  g_queue_clear_full (&r->askers, (GDestroyNotify) asker_free);
  g_free (r);
}

#define OW_TYPE_MCP_BOUND_TOOL (ow_mcp_bound_tool_get_type ())
G_DECLARE_FINAL_TYPE (OwMcpBoundTool, ow_mcp_bound_tool, OW, MCP_BOUND_TOOL, GObject)

struct _OwMcpBoundTool
{
  GObject      parent_instance;

  OwMcpClient *client;     /* owned */
  OwMcpTool   *tool;       /* owned reference */
  char        *full_name;  /* mcp__server__tool */
  char        *source;     /* mcp:server */
  char        *allowed_by; /* the person's mcp.json lets it run without a card, or NULL */
  Router      *router;     /* owned reference: where a call's questions go */
};

static void bound_tool_iface_init (OwToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwMcpBoundTool, ow_mcp_bound_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL, bound_tool_iface_init))

static void
ow_mcp_bound_tool_finalize (GObject *object)
{
  OwMcpBoundTool *self = OW_MCP_BOUND_TOOL (object);

  g_clear_object (&self->client);
  g_clear_pointer (&self->tool, ow_mcp_tool_unref);
  g_free (self->full_name);
  g_free (self->source);
  g_free (self->allowed_by);
  g_clear_pointer (&self->router, router_unref);
  G_OBJECT_CLASS (ow_mcp_bound_tool_parent_class)->finalize (object);
}

static void
ow_mcp_bound_tool_class_init (OwMcpBoundToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_mcp_bound_tool_finalize;
}

static void
ow_mcp_bound_tool_init (OwMcpBoundTool *self)
{
}

static const char *
bound_get_name (OwTool *tool)
{
  return OW_MCP_BOUND_TOOL (tool)->full_name;
}

/* Every MCP tool is external: its annotations are the server's word. */
static OwRisk
bound_get_risk (OwTool *tool)
{
  return OW_RISK_EXTERNAL;
}

static const char *
bound_get_title (OwTool *tool)
{
  return OW_MCP_BOUND_TOOL (tool)->tool->title;
}

static const char *
bound_get_description (OwTool *tool)
{
  return OW_MCP_BOUND_TOOL (tool)->tool->description;
}

static JsonObject *
bound_get_input_schema (OwTool *tool)
{
  return OW_MCP_BOUND_TOOL (tool)->tool->input_schema;
}

static JsonObject *
bound_get_output_schema (OwTool *tool)
{
  return OW_MCP_BOUND_TOOL (tool)->tool->output_schema;
}

static JsonObject *
bound_get_annotations (OwTool *tool)
{
  return OW_MCP_BOUND_TOOL (tool)->tool->annotations;
}

static const char *
bound_get_source (OwTool *tool)
{
  return OW_MCP_BOUND_TOOL (tool)->source;
}

/* Only the entry's `tools` setting (or requires_approval: false) in a
 * person's mcp.json; the server's annotations play no part. */
static const char *
bound_get_allowed_by (OwTool *tool)
{
  return OW_MCP_BOUND_TOOL (tool)->allowed_by;
}

/* A server's content block as one of ours. Audio and binary resources are
 * named, not passed: the wire styles carry text and images. */
static OwContentBlock *
content_block (const OwMcpContent *c)
{
  switch (c->type)
    {
    case OW_MCP_CONTENT_TEXT:
      return ow_content_block_new_text (c->text != NULL ? c->text : "");
    case OW_MCP_CONTENT_IMAGE:
      if (c->data != NULL && c->mime_type != NULL)
        {
          gsize len = 0;
          g_autofree guchar *raw = g_base64_decode (c->data, &len);
          g_autoptr(GBytes) bytes = g_bytes_new_take (g_steal_pointer (&raw), len);

          return ow_content_block_new_image (bytes, c->mime_type);
        }
      return ow_content_block_new_text ("[image without data]");
    case OW_MCP_CONTENT_AUDIO:
      {
        g_autofree char *t = g_strdup_printf ("[audio: %s, not passed on]",
                                              c->mime_type != NULL ? c->mime_type : "unknown type");
        return ow_content_block_new_text (t);
      }
    case OW_MCP_CONTENT_RESOURCE_LINK:
      return ow_content_block_new_resource_link (c->uri != NULL ? c->uri : "", c->name, c->mime_type);
    case OW_MCP_CONTENT_RESOURCE:
      if (c->text != NULL)
        {
          g_autofree char *t = g_strdup_printf ("[resource %s]\n%s", c->uri != NULL ? c->uri : "", c->text);
          return ow_content_block_new_text (t);
        }
      return ow_content_block_new_resource_link (c->uri != NULL ? c->uri : "", NULL, c->mime_type);
    case OW_MCP_CONTENT_UNKNOWN:
    default:
      return ow_content_block_new_text ("[a content block of a kind this client does not read]");
    }
}

static OwToolResult *
tool_result (OwMcpCallResult *r)
{
  GPtrArray *content = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_content_block_free);

  for (guint i = 0; r->content != NULL && i < r->content->len; i++)
    g_ptr_array_add (content, content_block (g_ptr_array_index (r->content, i)));
  return ow_tool_result_new_content (content, r->structured_content, r->is_error);
}

typedef struct {
  OwToolProgressFunc progress;
  gpointer           data;
} Progress;

static void
on_progress (double progress, double total, const char *message, gpointer user_data)
{
  Progress *p = user_data;

  p->progress (progress, total, message, p->data);
}

/* One call: kept until it ends, since a call refused for an expired
 * token is sent once more after the reconnection (mcp/ow-mcp-auth.h). */
typedef struct {
  GTask              *task;
  JsonObject         *args;      /* or NULL */
  OwToolProgressFunc  progress;  /* or NULL */
  gpointer            progress_data;
  gboolean            retried;
  Asker              *asker;     /* where its questions go (the task owns it), or NULL */
  Router             *router;    /* the router @asker is queued in (owned), or NULL */
} Call;

/* The call has ended: its questions have nowhere to go any more. */
static void
call_free (Call *c)
{
  if (c->asker != NULL && c->router != NULL)
    g_queue_remove (&c->router->askers, c->asker);
  g_clear_pointer (&c->router, router_unref);
  g_clear_pointer (&c->args, json_object_unref);
  g_clear_object (&c->task);
  g_free (c);
}

static void send_call (Call *c);

static void
on_reconnected (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *c = user_data;
  OwMcpBoundTool *self = g_task_get_source_object (c->task);
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  if (ow_mcp_start_finish (OW_MCP_CLIENT (source), result, &error))
    {
      send_call (c);
      return;
    }
  if (g_task_return_error_if_cancelled (c->task))
    {
      call_free (c);
      return;
    }
  message = g_strdup_printf ("MCP server \"%s\" could not run %s: %s", ow_mcp_client_get_name (self->client),
                             self->tool->name, error->message);
  g_task_return_pointer (c->task, ow_tool_result_new_error (OW_TOOL_STATUS_ERROR, message),
                         (GDestroyNotify) ow_tool_result_free);
  call_free (c);
}

static void
on_called (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Call *c = user_data;
  OwMcpBoundTool *self = g_task_get_source_object (c->task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwMcpCallResult) r = ow_mcp_client_call_tool_finish (OW_MCP_CLIENT (source), result, &error);
  g_autofree char *message = NULL;
  const char *challenge = ow_mcp_client_get_auth_challenge (self->client);

  if (r != NULL)
    {
      g_task_return_pointer (c->task, tool_result (r), (GDestroyNotify) ow_tool_result_free);
      call_free (c);
      return;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (c->task, g_steal_pointer (&error));
      call_free (c);
      return;
    }
  /* A 401 to a token the server no longer takes: the server did not run
   * the tool. Once the token is refreshed and the client reconnected, send
   * it again, once. A 403 for more scope waits for a person instead. */
  if (g_error_matches (error, OW_MCP_ERROR, OW_MCP_ERROR_AUTH_REQUIRED) && !c->retried
      && ow_mcp_auth_get (self->client) != NULL && (challenge == NULL || strstr (challenge, "insufficient_scope") == NULL))
    {
      c->retried = TRUE;
      ow_mcp_start_async (self->client, g_task_get_cancellable (c->task), on_reconnected, c);
      return;
    }
  /* The server could not answer: a result the model reads, naming the
   * server, rather than a failure of the turn. */
  message = g_strdup_printf ("MCP server \"%s\" could not run %s: %s", ow_mcp_client_get_name (self->client),
                             self->tool->name, error->message);
  g_task_return_pointer (c->task, ow_tool_result_new_error (OW_TOOL_STATUS_ERROR, message),
                         (GDestroyNotify) ow_tool_result_free);
  call_free (c);
}

static void
send_call (Call *c)
{
  OwMcpBoundTool *self = g_task_get_source_object (c->task);
  Progress *p = NULL;

  if (c->progress != NULL)
    {
      p = g_new0 (Progress, 1);
      p->progress = c->progress;
      p->data = c->progress_data;
    }
  ow_mcp_client_call_tool_async (self->client, self->tool->name, c->args,
                                 p != NULL ? on_progress : NULL, p, p != NULL ? g_free : NULL,
                                 g_task_get_cancellable (c->task), on_called, c);
}

static void
bound_call_async (OwTool              *tool,
                  const OwToolContext *context,
                  JsonObject          *args,
                  GCancellable        *cancellable,
                  OwToolProgressFunc   progress,
                  gpointer             progress_data,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  OwMcpBoundTool *self = OW_MCP_BOUND_TOOL (tool);
  Call *c = g_new0 (Call, 1);

  c->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (c->task, bound_call_async);
  if (context != NULL && context->ask_async != NULL && context->ask_data != NULL && self->router != NULL)
    {
      Asker *a = g_new0 (Asker, 1);

      a->ask_async = context->ask_async;
      a->ask_finish = context->ask_finish;
      a->data = g_object_ref (context->ask_data);
      a->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
      g_queue_push_tail (&self->router->askers, a);
      g_task_set_task_data (c->task, a, (GDestroyNotify) asker_free);
      c->asker = a;
      c->router = router_ref (self->router);
    }
  c->args = args != NULL ? json_object_ref (args) : NULL;
  c->progress = progress;
  c->progress_data = progress_data;
  send_call (c);
}

static OwToolResult *
bound_call_finish (OwTool *tool, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
bound_tool_iface_init (OwToolInterface *iface)
{
  iface->get_name = bound_get_name;
  iface->get_risk = bound_get_risk;
  iface->call_async = bound_call_async;
  iface->call_finish = bound_call_finish;
  iface->get_title = bound_get_title;
  iface->get_description = bound_get_description;
  iface->get_input_schema = bound_get_input_schema;
  iface->get_output_schema = bound_get_output_schema;
  iface->get_annotations = bound_get_annotations;
  iface->get_source = bound_get_source;
  iface->get_allowed_by = bound_get_allowed_by;
}

/* ---- A server's questions (elicitation) ------------------------------------
 *
 * Form mode: first a card that names the server and its message and lists
 * the fields ("Fill in" / "Decline"), then one question per field; the
 * answers are typed by the field's schema. URL mode: one card that shows
 * the host and the address ("Open" / "Decline"); OpenWorker never opens it,
 * an accept is consent only. A question answered by rule (nobody there)
 * declines: nothing is invented and nothing is opened. */

typedef struct {
  OwMcpElicitation *request;   /* owned reference */
  Asker             asker;     /* a copy: the call may end while a question waits */
  GList            *fields;    /* char*, owned list, the field names still to ask */
  GList            *next;      /* the field being asked */
  JsonObject       *content;   /* answers so far (owned) */
  gboolean          consented;
} Elicit;

static void
elicit_free (Elicit *el)
{
  ow_mcp_elicitation_unref (el->request);
  g_object_unref (el->asker.data);
  g_clear_object (&el->asker.cancellable);
  g_list_free (el->fields);
  json_object_unref (el->content);
  g_free (el);
}

static void ask_next (Elicit *el);

static gboolean
answer_is (const char *answer, const char *option, guint number)
{
  char digits[8];

  g_snprintf (digits, sizeof digits, "%u", number);
  return answer != NULL && (g_ascii_strcasecmp (answer, option) == 0 || g_str_equal (answer, digits));
}

/* The allowed values of an enum field, or NULL. (transfer container) */
static GPtrArray *
field_choices (JsonObject *field)
{
  JsonArray *values = ow_json_get_array (field, "enum");
  JsonArray *one_of = ow_json_get_array (field, "oneOf");
  JsonObject *items = ow_json_get_object (field, "items");
  GPtrArray *out;

  if (values == NULL && one_of == NULL && items != NULL)
    {
      values = ow_json_get_array (items, "enum");
      one_of = ow_json_get_array (items, "anyOf");
    }
  if (values == NULL && one_of == NULL)
    return NULL;
  out = g_ptr_array_new ();
  for (guint i = 0; values != NULL && i < json_array_get_length (values); i++)
    {
      JsonNode *n = json_array_get_element (values, i);
      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        g_ptr_array_add (out, (gpointer) json_node_get_string (n));
    }
  for (guint i = 0; one_of != NULL && i < json_array_get_length (one_of); i++)
    {
      JsonNode *n = json_array_get_element (one_of, i);
      const char *c = JSON_NODE_HOLDS_OBJECT (n) ? ow_json_get_string (json_node_get_object (n), "const") : NULL;
      if (c != NULL)
        g_ptr_array_add (out, (gpointer) c);
    }
  return out;
}

/* @text typed as @field says; NULL with @why when it does not fit. */
static JsonNode *
typed_value (JsonObject *field, const char *text, char **why)
{
  const char *type = ow_json_get_string (field, "type");
  g_autoptr(GPtrArray) choices = field_choices (field);
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  if (g_strcmp0 (type, "boolean") == 0)
    {
      if (g_ascii_strcasecmp (text, "yes") == 0 || g_ascii_strcasecmp (text, "y") == 0
          || g_ascii_strcasecmp (text, "true") == 0)
        json_node_set_boolean (node, TRUE);
      else if (g_ascii_strcasecmp (text, "no") == 0 || g_ascii_strcasecmp (text, "n") == 0
               || g_ascii_strcasecmp (text, "false") == 0)
        json_node_set_boolean (node, FALSE);
      else
        goto bad;
      return node;
    }
  if (g_strcmp0 (type, "integer") == 0 || g_strcmp0 (type, "number") == 0)
    {
      char *end = NULL;
      double v = g_ascii_strtod (text, &end);

      if (end == text || *end != '\0' || (g_str_equal (type, "integer") && v != (double) (gint64) v))
        goto bad;
      if ((json_object_has_member (field, "minimum") && v < json_object_get_double_member (field, "minimum"))
          || (json_object_has_member (field, "maximum") && v > json_object_get_double_member (field, "maximum")))
        goto bad;
      if (g_str_equal (type, "integer"))
        json_node_set_int (node, (gint64) v);
      else
        json_node_set_double (node, v);
      return node;
    }
  if (g_strcmp0 (type, "array") == 0)
    {
      g_auto(GStrv) parts = g_strsplit (text, ",", -1);
      JsonArray *arr = json_array_new ();

      json_node_unref (node);
      for (guint i = 0; parts[i] != NULL; i++)
        {
          g_strstrip (parts[i]);
          if (parts[i][0] == '\0')
            continue;
          if (choices != NULL && !g_ptr_array_find_with_equal_func (choices, parts[i], g_str_equal, NULL))
            {
              json_array_unref (arr);
              *why = g_strdup_printf ("“%s” is not one of the choices", parts[i]);
              return NULL;
            }
          json_array_add_string_element (arr, parts[i]);
        }
      node = json_node_init_array (json_node_alloc (), arr);
      json_array_unref (arr);
      return node;
    }
  if (choices != NULL && !g_ptr_array_find_with_equal_func (choices, text, g_str_equal, NULL))
    goto bad;
  json_node_set_string (node, text);
  return node;

bad:
  json_node_unref (node);
  *why = g_strdup_printf ("“%s” is not a valid %s", text, type != NULL ? type : "value");
  return NULL;
}

static void
on_elicit_answer (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Elicit *el = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = el->asker.ask_finish (el->asker.data, result, &error);
  const char *text = answer != NULL ? ow_json_get_string (answer, "answer") : NULL;

  if (answer == NULL)
    {
      ow_mcp_elicitation_respond (el->request, "cancel", NULL, error != NULL ? error->message : "not answered");
      elicit_free (el);
      return;
    }
  if (json_object_get_boolean_member_with_default (answer, "answered_by_rule", FALSE))
    {
      ow_mcp_elicitation_respond (el->request, "decline", NULL,
                                  "Nobody was there to answer; OpenWorker answers a server's questions only with a "
                                  "person's words.");
      elicit_free (el);
      return;
    }
  if (!el->consented)
    {
      const char *yes = ow_mcp_elicitation_is_url (el->request) ? "Open" : "Fill in";

      if (!answer_is (text, yes, 1))
        {
          ow_mcp_elicitation_respond (el->request, "decline", NULL, NULL);
          elicit_free (el);
          return;
        }
      el->consented = TRUE;
      if (ow_mcp_elicitation_is_url (el->request))
        {
          /* Consent only: the person opens the page, we never do. */
          ow_mcp_elicitation_respond (el->request, "accept", NULL, NULL);
          elicit_free (el);
          return;
        }
      el->next = el->fields;
      ask_next (el);
      return;
    }
  {
    JsonObject *props = ow_json_get_object (ow_mcp_elicitation_get_schema (el->request), "properties");
    const char *name = el->next->data;
    JsonObject *field = ow_json_get_object (props, name);
    g_autofree char *trimmed = g_strstrip (g_strdup (text != NULL ? text : ""));
    g_autofree char *why = NULL;

    if (trimmed[0] == '\0')
      {
        JsonNode *def = json_object_get_member (field, "default");
        if (def != NULL)
          json_object_set_member (el->content, name, json_node_copy (def));
      }
    else
      {
        JsonNode *v = typed_value (field, trimmed, &why);

        if (v == NULL)
          {
            g_autofree char *reason = g_strdup_printf ("The answer for “%s” did not fit: %s.", name, why);
            ow_mcp_elicitation_respond (el->request, "cancel", NULL, reason);
            elicit_free (el);
            return;
          }
        json_object_set_member (el->content, name, v);
      }
    el->next = el->next->next;
    ask_next (el);
  }
}

/* The first card, then one question per field; at the end, the answer. */
static void
ask_next (Elicit *el)
{
  OwMcpElicitation *r = el->request;
  g_autoptr(JsonObject) q = json_object_new ();
  JsonArray *options = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  JsonObject *props = ow_json_get_object (ow_mcp_elicitation_get_schema (r), "properties");

  if (!el->consented && ow_mcp_elicitation_is_url (r))
    {
      g_string_append_printf (text, "The MCP server “%s” asks you to open a page on %s: %s — %s — "
                              "OpenWorker does not open it; open it yourself only if you trust %s.",
                              ow_mcp_elicitation_get_server (r), ow_mcp_elicitation_get_host (r),
                              ow_mcp_elicitation_get_url (r), ow_mcp_elicitation_get_message (r),
                              ow_mcp_elicitation_get_host (r));
      options = json_array_new ();
      json_array_add_string_element (options, "Open");
      json_array_add_string_element (options, "Decline");
    }
  else if (!el->consented)
    {
      g_string_append_printf (text, "The MCP server “%s” asks for information: %s — Fields:",
                              ow_mcp_elicitation_get_server (r), ow_mcp_elicitation_get_message (r));
      for (GList *l = el->fields; l != NULL; l = l->next)
        {
          JsonObject *f = ow_json_get_object (props, l->data);
          const char *title = f != NULL ? ow_json_get_string (f, "title") : NULL;

          g_string_append_printf (text, " %s%s", title != NULL ? title : (const char *) l->data,
                                  l->next != NULL ? "," : ".");
        }
      options = json_array_new ();
      json_array_add_string_element (options, "Fill in");
      json_array_add_string_element (options, "Decline");
    }
  else if (el->next == NULL)
    {
      ow_mcp_elicitation_respond (r, "accept", el->content, NULL);
      elicit_free (el);
      return;
    }
  else
    {
      const char *name = el->next->data;
      JsonObject *f = ow_json_get_object (props, name);
      const char *title = f != NULL ? ow_json_get_string (f, "title") : NULL;
      const char *desc = f != NULL ? ow_json_get_string (f, "description") : NULL;
      const char *type = f != NULL ? ow_json_get_string (f, "type") : NULL;
      g_autoptr(GPtrArray) choices = f != NULL ? field_choices (f) : NULL;
      JsonNode *def = f != NULL ? json_object_get_member (f, "default") : NULL;

      g_string_append_printf (text, "“%s” asks: %s%s%s (%s%s)", ow_mcp_elicitation_get_server (r),
                              title != NULL ? title : name, desc != NULL ? " — " : "", desc != NULL ? desc : "",
                              type != NULL ? type : "text",
                              g_strcmp0 (type, "array") == 0 ? ", separate several with commas" : "");
      if (def != NULL)
        {
          g_autofree char *d = json_to_string (def, FALSE);
          g_string_append_printf (text, "; empty for %s", d);
        }
      if (choices != NULL && choices->len > 0 && g_strcmp0 (type, "array") != 0)
        {
          options = json_array_new ();
          for (guint i = 0; i < choices->len; i++)
            json_array_add_string_element (options, g_ptr_array_index (choices, i));
        }
      else if (choices != NULL)
        {
          g_string_append (text, "; choices:");
          for (guint i = 0; i < choices->len; i++)
            g_string_append_printf (text, " %s", (const char *) g_ptr_array_index (choices, i));
        }
    }
  json_object_set_string_member (q, "question", text->str);
  if (options != NULL)
    json_object_set_array_member (q, "options", options);
  el->asker.ask_async (el->asker.data, q, el->asker.cancellable, on_elicit_answer, el);
}

static void
on_elicitation (OwMcpClient *client, OwMcpElicitation *request, gpointer user_data)
{
  Router *router = user_data;
  Asker *asker = g_queue_peek_tail (&router->askers);
  Elicit *el;
  JsonObject *props;

  if (asker == NULL)
    {
      ow_mcp_elicitation_respond (request, "decline", NULL,
                                  "OpenWorker asks a person only while one of this server's tools runs.");
      return;
    }
  el = g_new0 (Elicit, 1);
  el->request = ow_mcp_elicitation_ref (request);
  el->asker.ask_async = asker->ask_async;
  el->asker.ask_finish = asker->ask_finish;
  el->asker.data = g_object_ref (asker->data);
  el->asker.cancellable = asker->cancellable != NULL ? g_object_ref (asker->cancellable) : NULL;
  el->content = json_object_new ();
  props = ow_json_get_object (ow_mcp_elicitation_get_schema (request), "properties");
  el->fields = props != NULL ? json_object_get_members (props) : NULL;
  ask_next (el);
}

/* ---- The provider ---------------------------------------------------------- */

struct _OwMcpProvider
{
  GObject      parent_instance;

  OwMcpClient *client;     /* owned */
  char        *source;     /* mcp:<server> */
  GPtrArray   *tools;      /* OwMcpBoundTool*, ordered by name */
  Router      *router;     /* owned reference */
  gulong       changed_id;
  gulong       status_id;
};

static void list_model_iface_init (GListModelInterface *iface);
static void provider_iface_init (OwToolProviderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwMcpProvider, ow_mcp_provider, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init)
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL_PROVIDER, provider_iface_init))

static GType
model_get_item_type (GListModel *model)
{
  return OW_TYPE_TOOL;
}

static guint
model_get_n_items (GListModel *model)
{
  return OW_MCP_PROVIDER (model)->tools->len;
}

static gpointer
model_get_item (GListModel *model, guint position)
{
  OwMcpProvider *self = OW_MCP_PROVIDER (model);

  if (position >= self->tools->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->tools, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = model_get_item_type;
  iface->get_n_items = model_get_n_items;
  iface->get_item = model_get_item;
}

static const char *
provider_get_source (OwToolProvider *provider)
{
  return OW_MCP_PROVIDER (provider)->source;
}

/* A tool the entry sets to "deny" is not an item; a call to its name is
 * told why. */
static char *
provider_refused_reason (OwToolProvider *provider, const char *name)
{
  OwMcpProvider *self = OW_MCP_PROVIDER (provider);
  const OwMcpServerConfig *config = ow_mcp_client_get_config (self->client);
  GHashTableIter iter;
  gpointer k;

  if (!g_str_has_prefix (name, "mcp__"))
    return NULL;
  g_hash_table_iter_init (&iter, config->tools);
  while (g_hash_table_iter_next (&iter, &k, NULL))
    {
      g_autofree char *full = NULL;

      if (ow_mcp_server_config_tool_setting (config, k) != OW_MCP_TOOL_DENY)
        continue;
      full = ow_mcp_tool_full_name (config->name, k, NULL);
      if (g_str_equal (full, name))
        return g_strdup_printf ("refused: the tool “%s” of the MCP server “%s” is set to deny in mcp.json; a person "
                                "can change that with `openworker mcp tool %s %s ask`",
                                (const char *) k, config->name, config->name, (const char *) k);
    }
  return NULL;
}

static void
provider_iface_init (OwToolProviderInterface *iface)
{
  iface->get_source = provider_get_source;
  iface->refused_reason = provider_refused_reason;
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  const OwMcpBoundTool *x = *(OwMcpBoundTool *const *) a;
  const OwMcpBoundTool *y = *(OwMcpBoundTool *const *) b;

  return strcmp (x->full_name, y->full_name);
}

/* The server's tools as items, replacing the old ones in one change. The
 * names are given in the server's order, so a collision suffix (`_2`)
 * stays on the same tool from listing to listing. */
static void
reload (OwMcpProvider *self)
{
  OwMcpStatus status = ow_mcp_client_get_status (self->client);
  g_autoptr(GPtrArray) listed = status == OW_MCP_STATUS_READY ? ow_mcp_client_get_tools (self->client) : NULL;
  g_autoptr(GHashTable) taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *tools = g_ptr_array_new_with_free_func (g_object_unref);
  guint removed = self->tools->len;
  const char *server = ow_mcp_client_get_name (self->client);
  const OwMcpServerConfig *config = ow_mcp_client_get_config (self->client);

  for (guint i = 0; listed != NULL && i < listed->len; i++)
    {
      OwMcpTool *t = g_ptr_array_index (listed, i);
      OwMcpBoundTool *bound = g_object_new (OW_TYPE_MCP_BOUND_TOOL, NULL);

      bound->client = g_object_ref (self->client);
      bound->tool = ow_mcp_tool_ref (t);
      bound->full_name = ow_mcp_tool_full_name (server, t->name, taken);
      bound->source = g_strdup (self->source);
      bound->router = router_ref (self->router);
      if (ow_mcp_server_config_tool_setting (config, t->name) == OW_MCP_TOOL_ALLOW)
        bound->allowed_by = g_hash_table_contains (config->tools, t->name)
                              ? g_strdup_printf ("mcp.json (the MCP server “%s”: tool “%s” set to allow)", server, t->name)
                              : g_strdup_printf ("mcp.json (the MCP server “%s” has requires_approval false)", server);
      g_ptr_array_add (tools, bound);
    }
  g_ptr_array_sort (tools, by_name);
  g_ptr_array_unref (self->tools);
  self->tools = tools;
  if (removed > 0 || tools->len > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, tools->len);
}

static void
on_tools_changed (OwMcpClient *client, gpointer user_data)
{
  reload (OW_MCP_PROVIDER (user_data));
}

/* A server that becomes ready (started late, or restarted after a crash)
 * brings its tools; one that stops or fails takes them away. */
static void
on_status (OwMcpClient *client, GParamSpec *pspec, gpointer user_data)
{
  OwMcpProvider *self = OW_MCP_PROVIDER (user_data);
  OwMcpStatus status = ow_mcp_client_get_status (client);

  if (status == OW_MCP_STATUS_READY || status == OW_MCP_STATUS_FAILED || status == OW_MCP_STATUS_STOPPED)
    reload (self);
}

static void
ow_mcp_provider_dispose (GObject *object)
{
  OwMcpProvider *self = OW_MCP_PROVIDER (object);

  g_clear_signal_handler (&self->changed_id, self->client);
  g_clear_signal_handler (&self->status_id, self->client);
  if (self->client != NULL)
    ow_mcp_client_set_elicitation_handler (self->client, NULL, NULL);
  G_OBJECT_CLASS (ow_mcp_provider_parent_class)->dispose (object);
}

static void
ow_mcp_provider_finalize (GObject *object)
{
  OwMcpProvider *self = OW_MCP_PROVIDER (object);

  g_ptr_array_unref (self->tools);
  g_clear_pointer (&self->router, router_unref);
  g_clear_object (&self->client);
  g_free (self->source);
  G_OBJECT_CLASS (ow_mcp_provider_parent_class)->finalize (object);
}

static void
ow_mcp_provider_class_init (OwMcpProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_mcp_provider_dispose;
  object_class->finalize = ow_mcp_provider_finalize;
}

static void
ow_mcp_provider_init (OwMcpProvider *self)
{
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
  self->router = g_new0 (Router, 1);
  self->router->refcount = 1;
  g_queue_init (&self->router->askers);
}

OwMcpProvider *
ow_mcp_provider_new (OwMcpClient *client)
{
  OwMcpProvider *self;

  g_return_val_if_fail (OW_IS_MCP_CLIENT (client), NULL);
  self = g_object_new (OW_TYPE_MCP_PROVIDER, NULL);
  self->client = g_object_ref (client);
  self->source = g_strconcat ("mcp:", ow_mcp_client_get_name (client), NULL);
  self->changed_id = g_signal_connect (client, "tools-changed", G_CALLBACK (on_tools_changed), self);
  self->status_id = g_signal_connect (client, "notify::status", G_CALLBACK (on_status), self);
  ow_mcp_client_set_elicitation_handler (client, on_elicitation, self->router);
  reload (self);
  return self;
}

OwMcpClient *
ow_mcp_provider_get_client (OwMcpProvider *self)
{
  g_return_val_if_fail (OW_IS_MCP_PROVIDER (self), NULL);
  return self->client;
}

const char *
ow_mcp_provider_server_tool_name (OwMcpProvider *self, const char *full_name)
{
  g_return_val_if_fail (OW_IS_MCP_PROVIDER (self), NULL);
  for (guint i = 0; i < self->tools->len; i++)
    {
      OwMcpBoundTool *t = g_ptr_array_index (self->tools, i);

      if (g_str_equal (t->full_name, full_name))
        return t->tool->name;
    }
  return NULL;
}

/* ---- Starting the configured servers --------------------------------------- */

typedef struct {
  guint pending;
} Starting;

typedef struct {
  Starting    *starting;
  OwMcpClient *client;
  OwMcpProvider *provider;   /* made before the start (owned until handed over) */
  GError      *error;
  gboolean     ok;
} Start;

static void
on_started (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Start *s = user_data;

  s->ok = ow_mcp_start_finish (OW_MCP_CLIENT (source), result, &s->error);
  s->starting->pending--;
  g_main_context_wakeup (g_main_context_get_thread_default ());
}

GPtrArray *
ow_mcp_start_servers (GPtrArray *configs, OwOAuth *oauth, GPtrArray *problems)
{
  GPtrArray *providers = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree Start *starts = NULL;
  Starting starting = { 0 };
  GMainContext *context = g_main_context_get_thread_default ();

  if (configs == NULL || configs->len == 0)
    return providers;
  starts = g_new0 (Start, configs->len);
  for (guint i = 0; i < configs->len; i++)
    {
      const OwMcpServerConfig *c = g_ptr_array_index (configs, i);

      if (c->error != NULL)
        {
          if (problems != NULL)
            g_ptr_array_add (problems, g_strdup_printf ("MCP server \"%s\" is not used: %s", c->name, c->error));
          continue;
        }
      if (!c->enabled)
        continue;
      starts[i].starting = &starting;
      starts[i].client = ow_mcp_client_new (c);
      /* Before the start: its elicitation handler decides what initialize offers. */
      starts[i].provider = ow_mcp_provider_new (starts[i].client);
      starting.pending++;
      if (oauth != NULL)
        ow_mcp_auth_attach (starts[i].client, oauth);
      ow_mcp_start_async (starts[i].client, NULL, on_started, &starts[i]);
    }
  while (starting.pending > 0)
    g_main_context_iteration (context, TRUE);
  for (guint i = 0; i < configs->len; i++)
    {
      Start *s = &starts[i];

      if (s->client == NULL)
        continue;
      /* A server waiting for a sign-in stays: it connects, and its tools
       * appear, as soon as someone signs in (OwOAuth "signed-in"). */
      if (s->ok || (ow_mcp_auth_get (s->client) != NULL && ow_mcp_auth_get_needs_sign_in (ow_mcp_auth_get (s->client))))
        g_ptr_array_add (providers, g_steal_pointer (&s->provider));
      if (!s->ok && problems != NULL)
        g_ptr_array_add (problems, g_strdup_printf ("MCP server \"%s\" did not start: %s",
                                                    ow_mcp_client_get_name (s->client),
                                                    s->error != NULL ? s->error->message : "unknown failure"));
      g_clear_error (&s->error);
      g_clear_object (&s->provider);
      g_object_unref (s->client);
    }
  return providers;
}

/* ---- Which servers a session uses ------------------------------------------ */

GPtrArray *
ow_mcp_configs_for_session (const OwPaths     *paths,
                            const char        *workspace,
                            const char        *file,
                            const char *const *roots,
                            GError           **error)
{
  GPtrArray *configs;

  if (file != NULL)
    configs = ow_mcp_config_load (file, NULL, NULL, NULL, error);
  else if (paths != NULL)
    {
      g_autofree char *global = g_build_filename (paths->config_dir, "mcp.json", NULL);
      g_autofree char *local = NULL;

      if (workspace != NULL && ow_paths_workspace_trusted (paths, workspace))
        local = g_build_filename (workspace, ".openworker", "mcp.json", NULL);
      configs = ow_mcp_config_load (global, local, NULL, NULL, error);
    }
  else
    configs = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_mcp_server_config_free);
  for (guint i = 0; configs != NULL && i < configs->len; i++)
    {
      OwMcpServerConfig *c = g_ptr_array_index (configs, i);

      if (roots != NULL && (c->roots == NULL || c->roots[0] == NULL))
        {
          g_strfreev (c->roots);
          c->roots = g_strdupv ((char **) roots);
        }
    }
  return configs;
}
