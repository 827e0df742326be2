/* ow-server-sessions.c: /v1/sessions and everything under it.
 *
 * The list, one session's info, create, rename / pin / archive, delete,
 * the message history, the session's folders (roots) and its artifacts.
 * Shapes are the original's (inventory §5.2 "Sessions / workspaces /
 * roots / artifacts"); errors are {ok:false, error} with a 4xx status.
 * Internal sessions ("__…") are neither listed nor changed here.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-private.h"

#include <stdlib.h>
#include <string.h>

#include "ow-error.h"
#include "ow-files.h"
#include "ow-json.h"
#include "core/ow-message.h"
#include "server/ow-server-files.h"
#include "server/ow-server-guard.h"

#define TITLE_MAX_CHARS 120

/* The session list is the API's biggest answer (a thousand sessions is
 * ~350 KB) and the sidebar asks for it often, so its rows are written
 * straight into one buffer rather than built as json-glib trees. */
static void
append_string (GString *out, const char *s)
{
  g_autofree char *valid = NULL;

  if (s == NULL)
    {
      g_string_append (out, "null");
      return;
    }
  if (!g_utf8_validate (s, -1, NULL))
    s = valid = g_utf8_make_valid (s, -1);
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) s; *p != '\0';)
    {
      /* Copy runs that need no escape in one go. */
      const unsigned char *run = p;
      while (*p >= 0x20 && *p != '"' && *p != '\\')
        p++;
      if (p > run)
        g_string_append_len (out, (const char *) run, p - run);
      if (*p == '\0')
        break;
      switch (*p)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          g_string_append_printf (out, "\\u%04x", *p);
        }
      p++;
    }
  g_string_append_c (out, '"');
}

static void
append_key (GString *out, const char *key, gboolean first)
{
  if (!first)
    g_string_append_c (out, ',');
  g_string_append_c (out, '"');
  g_string_append (out, key);
  g_string_append (out, "\":");
}

static void
append_info (GString *out, OwServer *self, OwSessionListRow *l)
{
  OwSessionRow *r = l->row;
  g_autofree char *derived = NULL;
  const char *title;

  if (l->renamed && r->title != NULL)
    title = r->title;
  else if (l->auto_title != NULL)
    title = l->auto_title;
  else if (r->title != NULL)
    title = r->title;
  else
    title = derived = ow_message_content_first_line (l->first_text, 60);

  g_string_append_c (out, '{');
  append_key (out, "session_id", TRUE);
  append_string (out, r->session_id);
  append_key (out, "title", FALSE);
  append_string (out, title != NULL ? title : "New session");
  append_key (out, "workspace", FALSE);
  append_string (out, r->workspace);
  append_key (out, "agent", FALSE);
  append_string (out, r->coworker != NULL ? r->coworker : "cowork");
  append_key (out, "model", FALSE);
  append_string (out, r->model);
  append_key (out, "mode", FALSE);
  append_string (out, r->mode);
  append_key (out, "updated_at", FALSE);
  append_string (out, r->updated_at);
  append_key (out, "messages", FALSE);
  g_string_append_printf (out, "%" G_GINT64_FORMAT, r->n_msgs);
  append_key (out, "pinned", FALSE);
  g_string_append (out, r->pinned ? "true" : "false");
  append_key (out, "archived", FALSE);
  g_string_append (out, r->archived ? "true" : "false");
  append_key (out, "origin", FALSE);
  append_string (out, r->origin);
  append_key (out, "origin_label", FALSE);
  append_string (out, l->origin_label);
  append_key (out, "attention", FALSE);
  g_string_append_printf (out, "%" G_GINT64_FORMAT, l->attention);
  append_key (out, "liveness", FALSE);
  g_string_append (out, ow_session_host_is_running (self->host, r->session_id) ? "\"working\"" : "\"idle\"");
  append_key (out, "sleeping_until", FALSE);
  g_string_append (out, "null");
  append_key (out, "subscriptions", FALSE);
  g_string_append (out, "[]");
  append_key (out, "team", FALSE);
  g_string_append (out, "null");
  append_key (out, "temp_workspace", FALSE);
  g_string_append (out, r->workspace == NULL || ow_server_is_scratch (self, r->workspace) ? "true" : "false");
  g_string_append_c (out, '}');
}

JsonObject *
ow_server_session_info (OwServer *self, const char *session_id)
{
  g_autoptr(GPtrArray) rows = ow_store_session_list (ow_context_get_store (self->ctx), NULL, session_id, NULL);
  g_autoptr(GString) text = g_string_new (NULL);

  if (rows == NULL || rows->len == 0)
    return NULL;
  append_info (text, self, g_ptr_array_index (rows, 0));
  return ow_json_object_from_string (text->str, (gssize) text->len, NULL);
}

/* The session named by the route, checked to exist and not be internal;
 * replies 404 otherwise. */
static const char *
route_session (OwServer *self, OwRequest *req)
{
  const char *id = req->params[0];
  g_autoptr(OwSessionRow) row = NULL;

  if (id == NULL || g_str_has_prefix (id, "__") || strlen (id) > 128)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no such session.");
      return NULL;
    }
  row = ow_store_session_get (ow_context_get_store (self->ctx), id, NULL);
  if (row == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no session %s.", id);
      return NULL;
    }
  return id;
}

static void
sessions_list (OwServer *self, OwRequest *req)
{
  g_autoptr(GError) error = NULL;
  const char *workspace = ow_request_query (req, "workspace");
  g_autoptr(GPtrArray) rows = NULL;
  GString *out;

  if (workspace != NULL && *workspace == '\0')
    workspace = NULL;
  rows = ow_store_session_list (ow_context_get_store (self->ctx), workspace, NULL, &error);
  if (rows == NULL)
    {
      ow_reply_gerror (req, error);
      return;
    }
  out = g_string_sized_new (64 + rows->len * 400);
  g_string_append (out, "{\"sessions\":[");
  for (guint i = 0; i < rows->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      append_info (out, self, g_ptr_array_index (rows, i));
    }
  g_string_append (out, "]}");
  ow_reply_json_text (req, SOUP_STATUS_OK, g_string_free (out, FALSE));
}

static void
session_get (OwServer *self, OwRequest *req)
{
  const char *id = route_session (self, req);
  JsonObject *info;

  if (id == NULL)
    return;
  info = ow_server_session_info (self, id);
  if (info == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no session %s.", id);
      return;
    }
  ow_reply_object (req, SOUP_STATUS_OK, info);
}

/* POST /v1/sessions {session_id?, workspace?, agent?, model?, mode?, title?} */
static void
session_create (OwServer *self, OwRequest *req)
{
  JsonObject *body = ow_request_object (req);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) session = NULL;
  OwSessionSpec spec = { 0 };
  const char *id, *agent;
  JsonObject *extra;

  if (body == NULL)
    return;
  id = ow_json_get_string (body, "session_id");
  if (id != NULL && !ow_server_session_id_valid (id))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "A session id is 1 to 64 letters, digits, '_', '.' or '-'.");
      return;
    }
  if (id != NULL)
    {
      g_autoptr(OwSessionRow) row = ow_store_session_get (ow_context_get_store (self->ctx), id, NULL);
      if (row != NULL)
        {
          ow_reply_error (req, SOUP_STATUS_CONFLICT, "There is already a session %s.", id);
          return;
        }
    }
  agent = ow_json_get_string (body, "agent");
  spec.session_id = id;
  spec.coworker = agent;
  spec.workspace = ow_json_get_string (body, "workspace");
  if (spec.workspace != NULL && *spec.workspace == '\0')
    spec.workspace = NULL;
  if (spec.workspace == NULL && g_strcmp0 (agent, "code") == 0)
    spec.workspace = self->default_workspace;
  spec.model = ow_json_get_string (body, "model");
  spec.mode = ow_json_get_string (body, "mode");
  spec.title = ow_json_get_string (body, "title");
  spec.origin = "server";
  if ((spec.title != NULL && (!g_utf8_validate (spec.title, -1, NULL) || g_utf8_strlen (spec.title, -1) > TITLE_MAX_CHARS))
      || (spec.model != NULL && strlen (spec.model) > 256) || (spec.mode != NULL && strlen (spec.mode) > 64))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "A title is at most 120 characters; model and mode are short ids.");
      return;
    }
  if (spec.mode != NULL && g_strcmp0 (ow_approval_mode_canonical (spec.mode), "dangerously-bypass-approvals") == 0)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST,
                      "dangerously-bypass-approvals can only be chosen for a headless run, not from here.");
      return;
    }
  session = ow_session_host_create (self->host, &spec, &error);
  if (session == NULL)
    {
      ow_reply_gerror (req, error);
      return;
    }
  extra = json_object_new ();
  json_object_set_string_member (extra, "session_id", ow_session_get_id (session));
  {
    JsonObject *info = ow_server_session_info (self, ow_session_get_id (session));
    if (info != NULL)
      json_object_set_object_member (extra, "session", info);
  }
  ow_reply_ok (req, extra);
}

/* Whitespace runs become one space. */
static char *
collapse_ws (const char *s)
{
  GString *out = g_string_new (NULL);
  gboolean space = FALSE;

  for (const char *p = s; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (g_unichar_isspace (c))
        {
          space = out->len > 0;
          continue;
        }
      if (space)
        g_string_append_c (out, ' ');
      space = FALSE;
      g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

static gboolean
flag_member (JsonObject *body, const char *name, int *out, gboolean *bad)
{
  JsonNode *n = json_object_get_member (body, name);

  *out = -1;
  if (n == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    {
      *bad = TRUE;
      return FALSE;
    }
  *out = json_node_get_boolean (n);
  return TRUE;
}

static void
session_patch (OwServer *self, OwRequest *req)
{
  const char *id = route_session (self, req);
  JsonObject *body;
  g_autoptr(GError) error = NULL;
  int pinned, archived;
  gboolean bad = FALSE, has_flags;
  JsonObject *extra;

  if (id == NULL || (body = ow_request_object (req)) == NULL)
    return;
  has_flags = flag_member (body, "pinned", &pinned, &bad);
  has_flags |= flag_member (body, "archived", &archived, &bad);
  if (bad)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "pinned and archived must be true or false.");
      return;
    }
  if (has_flags)
    {
      if (!ow_store_session_set_flags (ow_context_get_store (self->ctx), id, pinned, archived, &error))
        {
          ow_reply_gerror (req, error);
          return;
        }
      extra = json_object_new ();
      json_object_set_string_member (extra, "session_id", id);
      ow_reply_ok (req, extra);
      ow_server_ws_broadcast (self, "sessions_changed", json_object_new ());
      return;
    }
  {
    const char *title = ow_json_get_string (body, "title");
    g_autofree char *clean = NULL;

    if (title == NULL || !g_utf8_validate (title, -1, NULL))
      {
        ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Send {title} to rename, or {pinned} / {archived}.");
        return;
      }
    clean = collapse_ws (title);
    if (*clean == '\0')
      {
        ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "A title cannot be empty.");
        return;
      }
    if (g_utf8_strlen (clean, -1) > TITLE_MAX_CHARS)
      *g_utf8_offset_to_pointer (clean, TITLE_MAX_CHARS) = '\0';
    if (!ow_store_session_rename (ow_context_get_store (self->ctx), id, clean, &error))
      {
        ow_reply_gerror (req, error);
        return;
      }
    extra = json_object_new ();
    json_object_set_string_member (extra, "session_id", id);
    json_object_set_string_member (extra, "title", clean);
    ow_reply_ok (req, extra);
    ow_server_ws_broadcast (self, "sessions_changed", json_object_new ());
  }
}

static void
session_delete (OwServer *self, OwRequest *req)
{
  const char *id = route_session (self, req);
  g_autoptr(GError) error = NULL;
  g_autofree char *id_copy = NULL;
  JsonObject *extra;

  if (id == NULL)
    return;
  id_copy = g_strdup (id);
  if (!ow_session_host_delete (self->host, id_copy, &error))
    {
      ow_reply_gerror (req, error);
      return;
    }
  /* The scratch folder goes with the session; a real folder never. */
  if (ow_server_session_id_valid (id_copy))
    {
      g_autofree char *scratch = g_build_filename (self->scratch_dir, id_copy, NULL);
      g_autoptr(GError) rm_error = NULL;

      if (!ow_remove_tree (scratch, &rm_error))
        g_warning ("Could not remove the scratch folder of session %s: %s", id_copy, rm_error->message);
    }
  extra = json_object_new ();
  json_object_set_string_member (extra, "session_id", id_copy);
  ow_reply_ok (req, extra);
}

static void
session_messages (OwServer *self, OwRequest *req)
{
  const char *id = route_session (self, req);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) bodies = NULL;
  GString *out;

  if (id == NULL)
    return;
  bodies = ow_store_message_load (ow_context_get_store (self->ctx), id, &error);
  if (bodies == NULL)
    {
      ow_reply_gerror (req, error);
      return;
    }
  /* The bodies are stored as JSON text already. */
  out = g_string_new ("{\"messages\":[");
  for (guint i = 0; i < bodies->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      g_string_append (out, g_ptr_array_index (bodies, i));
    }
  g_string_append (out, "]}");
  ow_reply_json_text (req, SOUP_STATUS_OK, g_string_free (out, FALSE));
}

static JsonArray *
roots_json (OwServer *self, OwSession *session)
{
  GPtrArray *roots = ow_session_get_roots (session);
  JsonArray *arr = json_array_new ();

  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      JsonObject *o = json_object_new ();
      const char *label = r->label != NULL && *r->label != '\0' ? r->label : NULL;
      g_autofree char *base = g_path_get_basename (r->path);

      json_object_set_string_member (o, "path", r->path);
      json_object_set_boolean_member (o, "writable", r->writable);
      if (ow_server_is_scratch (self, r->path))
        label = "scratch";
      else if (i == 0)
        label = "workspace";
      else if (label == NULL || g_str_equal (label, "added"))
        label = base;
      json_object_set_string_member (o, "label", label);
      json_object_set_boolean_member (o, "primary", i == 0);
      json_object_set_boolean_member (o, "exists", g_file_test (r->path, G_FILE_TEST_IS_DIR));
      json_array_add_object_element (arr, o);
    }
  return arr;
}

static OwSession *
route_live_session (OwServer *self, OwRequest *req)
{
  const char *id = route_session (self, req);
  g_autoptr(GError) error = NULL;
  OwSession *session;

  if (id == NULL)
    return NULL;
  session = ow_session_host_get (self->host, id, &error);
  if (session == NULL)
    ow_reply_gerror (req, error);
  return session;
}

static void
roots_get (OwServer *self, OwRequest *req)
{
  g_autoptr(OwSession) session = route_live_session (self, req);
  JsonObject *out;

  if (session == NULL)
    return;
  out = json_object_new ();
  json_object_set_array_member (out, "roots", roots_json (self, session));
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

static void
roots_add (OwServer *self, OwRequest *req)
{
  g_autoptr(OwSession) session = route_live_session (self, req);
  g_autoptr(GError) error = NULL;
  JsonObject *body, *extra;
  const char *path;

  if (session == NULL || (body = ow_request_object (req)) == NULL)
    return;
  path = ow_json_get_string (body, "path");
  if (path == NULL || *path == '\0' || !g_path_is_absolute (path))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "path must be an absolute folder path.");
      return;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "not a directory: %s", path);
      return;
    }
  if (!ow_session_host_add_root (self->host, ow_session_get_id (session), path,
                                 ow_json_get_bool (body, "writable", FALSE), &error))
    {
      ow_reply_gerror (req, error);
      return;
    }
  extra = json_object_new ();
  json_object_set_array_member (extra, "roots", roots_json (self, session));
  ow_reply_ok (req, extra);
}

/* There is no live "remove a folder" in the host: a folder is taken away
 * between turns by rewriting the stored list and letting the session
 * load again, which also rebuilds its sandbox with the narrower set. */
static void
roots_remove (OwServer *self, OwRequest *req)
{
  g_autoptr(OwSession) session = route_live_session (self, req);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) kept = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *json = NULL;
  g_autofree char *id = NULL;
  g_autofree char *want = NULL;
  const char *path = ow_request_query (req, "path");
  GPtrArray *roots;
  gboolean found = FALSE;
  JsonObject *extra;

  if (session == NULL)
    return;
  if (path == NULL || *path == '\0')
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Say which folder: ?path=");
      return;
    }
  id = g_strdup (ow_session_get_id (session));
  if (ow_session_host_is_running (self->host, id))
    {
      ow_reply_error (req, SOUP_STATUS_CONFLICT, "A folder can be removed between turns only; stop the turn first.");
      return;
    }
  want = realpath (path, NULL);
  roots = ow_session_get_roots (session);
  kept = json_array_new ();
  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      gboolean match = g_str_equal (r->path, path) || (want != NULL && g_str_equal (r->path, want));
      JsonObject *o;
      if (match && i == 0)
        {
          ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "The session's own folder cannot be removed.");
          return;
        }
      if (match)
        {
          found = TRUE;
          continue;
        }
      o = json_object_new ();
      json_object_set_string_member (o, "path", r->path);
      json_object_set_boolean_member (o, "writable", r->writable);
      json_object_set_string_member (o, "label", r->label != NULL ? r->label : "");
      json_array_add_object_element (kept, o);
    }
  if (!found)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "That folder is not one of the session's.");
      return;
    }
  node = json_node_init_array (json_node_alloc (), json_array_ref (kept));
  json = ow_json_to_string (node);
  g_clear_object (&session);
  ow_session_host_unload (self->host, id);
  if (!ow_store_session_update (ow_context_get_store (self->ctx), id, NULL, NULL, json, NULL, &error))
    {
      ow_reply_gerror (req, error);
      return;
    }
  session = ow_session_host_get (self->host, id, &error);
  if (session == NULL)
    {
      ow_reply_gerror (req, error);
      return;
    }
  extra = json_object_new ();
  json_object_set_array_member (extra, "roots", roots_json (self, session));
  ow_reply_ok (req, extra);
}

/* The session's folders, resolved, primary first; the scratch folder is
 * where artifacts are listed from. */
static GPtrArray *
resolved_roots (OwServer *self, OwSession *session, char **scratch_out)
{
  GPtrArray *roots = ow_session_get_roots (session);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *scratch = g_build_filename (self->scratch_dir,
                                               ow_session_get_id (session), NULL);
  char *real;

  for (guint i = 0; i < roots->len; i++)
    {
      real = realpath (((OwRoot *) g_ptr_array_index (roots, i))->path, NULL);
      if (real != NULL)
        {
          g_ptr_array_add (out, g_strdup (real));
          free (real);
        }
    }
  real = realpath (scratch, NULL);
  if (real != NULL)
    {
      gboolean seen = FALSE;
      for (guint i = 0; i < out->len; i++)
        seen |= g_str_equal (g_ptr_array_index (out, i), real);
      if (!seen)
        g_ptr_array_insert (out, MIN (out->len, 1), g_strdup (real));
      if (scratch_out != NULL)
        *scratch_out = g_strdup (real);
      free (real);
    }
  g_ptr_array_add (out, NULL);
  return out;
}

static void
artifacts_list (OwServer *self, OwRequest *req)
{
  g_autoptr(OwSession) session = route_live_session (self, req);
  g_autoptr(GPtrArray) roots = NULL;
  g_autoptr(GPtrArray) written = NULL;
  g_autofree char *scratch = NULL;
  JsonObject *out;

  if (session == NULL)
    return;
  roots = resolved_roots (self, session, &scratch);
  written = ow_artifacts_written (ow_context_get_store (self->ctx), ow_session_get_id (session));
  out = json_object_new ();
  json_object_set_array_member (out, "artifacts",
                                ow_artifacts_list_session ((const char *const *) roots->pdata, scratch, written,
                                                           OW_ARTIFACTS_MAX));
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

static void
artifacts_read (OwServer *self, OwRequest *req)
{
  g_autoptr(OwSession) session = route_live_session (self, req);
  g_autoptr(GPtrArray) roots = NULL;
  JsonObject *out;
  const char *path = ow_request_query (req, "path");

  if (session == NULL)
    return;
  if (path == NULL || *path == '\0')
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Say which file: ?path=");
      return;
    }
  roots = resolved_roots (self, session, NULL);
  out = ow_artifact_read ((const char *const *) roots->pdata, path);
  if (!ow_json_get_bool (out, "ok", FALSE))
    {
      const char *err = ow_json_get_string (out, "error");
      guint status = g_strcmp0 (err, "path escapes workspace") == 0 ? SOUP_STATUS_FORBIDDEN
                     : g_str_has_prefix (err, "This isn't") ? SOUP_STATUS_NOT_FOUND
                     : g_strcmp0 (err, "binary file cannot be previewed") == 0 ? SOUP_STATUS_UNPROCESSABLE_ENTITY
                     : SOUP_STATUS_BAD_REQUEST;
      ow_reply_object (req, status, out);
      return;
    }
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

static const OwRoute routes[] = {
  { "GET", "/v1/sessions", sessions_list, 0 },
  { "POST", "/v1/sessions", session_create, 0 },
  { "GET", "/v1/sessions/*", session_get, 0 },
  { "PATCH", "/v1/sessions/*", session_patch, 0 },
  { "DELETE", "/v1/sessions/*", session_delete, 0 },
  { "GET", "/v1/sessions/*/messages", session_messages, 0 },
  { "GET", "/v1/sessions/*/roots", roots_get, 0 },
  { "POST", "/v1/sessions/*/roots", roots_add, 0 },
  { "DELETE", "/v1/sessions/*/roots", roots_remove, 0 },
  { "GET", "/v1/sessions/*/artifacts", artifacts_list, 0 },
  { "GET", "/v1/sessions/*/artifacts/read", artifacts_read, 0 },
};

const OwRoute *
ow_server_session_routes (guint *n)
{
  *n = G_N_ELEMENTS (routes);
  return routes;
}
