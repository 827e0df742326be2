/* ow-server-routes.c: health, coworkers, the inbox, workspaces and model
 * settings.
 *
 * Health is the one API route that answers without the token, and then
 * says only {"status":"ok"}. The inbox routes answer through the host, so
 * an answer given here wakes the waiting turn exactly as one given on the
 * WebSocket would (first answer wins: a second one gets 409). Workspace
 * trust is kept in <state>/workspace_trust.json (0600), as the original
 * kept it.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-private.h"

#include <stdlib.h>
#include <string.h>

#include "core/ow-coworker.h"
#include "ow-error.h"
#include "ow-json.h"
#include "server/ow-server-files.h"
#include "store/ow-model-config.h"
#include "store/ow-paths.h"
#include "store/ow-toml.h"

gboolean
ow_server_is_scratch (OwServer *self, const char *path)
{
  /* Called for every row of the session list: no system call here. */
  if (path == NULL)
    return FALSE;
  return ow_path_is_under (path, self->scratch_dir)
         || (self->scratch_real != NULL && ow_path_is_under (path, self->scratch_real));
}

/* ---- Health ----------------------------------------------------------------- */

static void
health (OwServer *self, OwRequest *req)
{
  static const char bare[] = "{\"status\":\"ok\"}";
  g_autofree char *default_model = NULL;
  JsonObject *out;
  const char *model;

  if (!req->authed)
    {
      /* The hot path of a liveness probe: no allocation. */
      soup_server_message_set_status (req->msg, SOUP_STATUS_OK, NULL);
      soup_message_headers_replace (soup_server_message_get_response_headers (req->msg), "Cache-Control", "no-store");
      soup_server_message_set_response (req->msg, "application/json", SOUP_MEMORY_STATIC, bare, sizeof bare - 1);
      return;
    }
  out = json_object_new ();
  json_object_set_string_member (out, "status", "ok");
  if (self->default_workspace != NULL)
    json_object_set_string_member (out, "default_workspace", self->default_workspace);
  else
    json_object_set_null_member (out, "default_workspace");
  model = default_model = ow_context_dup_default_model (self->ctx);
  if (model != NULL)
    json_object_set_string_member (out, "model", model);
  else
    json_object_set_null_member (out, "model");
  json_object_set_string_member (out, "version", OW_VERSION);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

/* ---- Coworkers ------------------------------------------------------------- */

static JsonObject *
coworker_json (const OwCoworker *c, gboolean is_default)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "name", c->id);
  json_object_set_string_member (o, "id", c->id);
  json_object_set_string_member (o, "title", c->title);
  json_object_set_boolean_member (o, "requires_folder", g_str_equal (c->id, "code"));
  json_object_set_string_member (o, "icon", g_str_equal (c->id, "code") ? "code" : "briefcase");
  json_object_set_string_member (o, "tagline", c->summary != NULL ? c->summary : "");
  json_object_set_boolean_member (o, "default", is_default);
  return o;
}

static void
agents_list (OwServer *self, OwRequest *req)
{
  const char *const *ids = ow_coworker_ids ();
  JsonArray *arr = json_array_new ();
  JsonObject *out = json_object_new ();

  for (guint i = 0; ids[i] != NULL; i++)
    {
      const OwCoworker *c = ow_coworker_lookup (ids[i]);
      if (c != NULL)
        json_array_add_object_element (arr, coworker_json (c, g_str_equal (c->id, "cowork")));
    }
  json_object_set_array_member (out, "agents", arr);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

static void
personas_list (OwServer *self, OwRequest *req)
{
  const char *const *ids = ow_coworker_ids ();
  JsonArray *arr = json_array_new ();
  JsonObject *out = json_object_new ();

  for (guint i = 0; ids[i] != NULL; i++)
    {
      const OwCoworker *c = ow_coworker_lookup (ids[i]);
      JsonObject *o;
      if (c == NULL)
        continue;
      o = coworker_json (c, g_str_equal (c->id, "cowork"));
      json_object_set_boolean_member (o, "builtin", TRUE);
      json_object_set_boolean_member (o, "enabled", TRUE);
      json_object_set_boolean_member (o, "surfaced", TRUE);
      json_object_set_string_member (o, "group", "builtin");
      json_object_set_string_member (o, "description", c->summary != NULL ? c->summary : "");
      json_array_add_object_element (arr, o);
    }
  json_object_set_array_member (out, "personas", arr);
  json_object_set_boolean_member (out, "internal", FALSE);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

/* ---- Inbox ------------------------------------------------------------------- */

static void
set_opt_string (JsonObject *o, const char *name, const char *value)
{
  if (value != NULL)
    json_object_set_string_member (o, name, value);
  else
    json_object_set_null_member (o, name);
}

static JsonObject *
item_json (OwServer *self, OwInboxItem *item, GHashTable *sessions)
{
  JsonObject *o = json_object_new ();
  JsonObject *info = NULL;
  JsonObject *data = item->data;

  json_object_set_string_member (o, "id", item->id);
  json_object_set_string_member (o, "session_id", item->session_id);
  json_object_set_string_member (o, "kind", item->kind);
  json_object_set_string_member (o, "title", item->title);
  set_opt_string (o, "body", item->body);
  json_object_set_string_member (o, "state", item->state);
  set_opt_string (o, "resolution", item->resolution);
  set_opt_string (o, "resolved_by", item->resolved_by);
  json_object_set_string_member (o, "inbox", "default");
  set_opt_string (o, "created_at", item->created_at);
  set_opt_string (o, "resolved_at", item->resolved_at);
  json_object_set_string_member (o, "visibility", "inbox");
  set_opt_string (o, "tool_call_id", item->call_id);
  /* Question details live in the item's data; lift the ones the card uses. */
  json_object_set_member (o, "options", data != NULL && ow_json_get_array (data, "options") != NULL
                                          ? json_node_copy (json_object_get_member (data, "options"))
                                          : json_node_init_array (json_node_alloc (), json_array_new ()));
  json_object_set_boolean_member (o, "allow_text", data != NULL ? ow_json_get_bool (data, "allow_text", TRUE) : TRUE);
  json_object_set_boolean_member (o, "multi", data != NULL ? ow_json_get_bool (data, "multi", FALSE) : FALSE);
  set_opt_string (o, "header", data != NULL ? ow_json_get_string (data, "header") : NULL);
  json_object_set_object_member (o, "data", data != NULL ? ow_json_object_deep_copy (data) : json_object_new ());

  if (sessions != NULL)
    {
      if (!g_hash_table_lookup_extended (sessions, item->session_id, NULL, (gpointer *) &info))
        {
          info = ow_server_session_info (self, item->session_id);
          g_hash_table_insert (sessions, g_strdup (item->session_id), info);
        }
    }
  else
    info = ow_server_session_info (self, item->session_id);
  set_opt_string (o, "session_title", info != NULL ? ow_json_get_string (info, "title") : NULL);
  set_opt_string (o, "session_agent", info != NULL ? ow_json_get_string (info, "agent") : NULL);
  set_opt_string (o, "session_workspace", info != NULL ? ow_json_get_string (info, "workspace") : NULL);
  json_object_set_boolean_member (o, "session_exists", info != NULL);
  if (sessions == NULL && info != NULL)
    json_object_unref (info);
  return o;
}

static void
info_unref (gpointer p)
{
  if (p != NULL)
    json_object_unref (p);
}

static void
inbox_list (OwServer *self, OwRequest *req)
{
  const char *session_id = ow_request_query (req, "session_id");
  const char *state = ow_request_query (req, "state");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GHashTable) sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, info_unref);
  JsonArray *arr;
  JsonObject *out;

  if (state != NULL && *state != '\0' && g_strcmp0 (state, "pending") != 0 && g_strcmp0 (state, "resolved") != 0
      && g_strcmp0 (state, "all") != 0)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "state must be pending, resolved or all.");
      return;
    }
  items = ow_inbox_list (ow_session_host_get_inbox (self->host), g_strcmp0 (state, "pending") == 0, &error);
  if (items == NULL)
    {
      ow_reply_gerror (req, error);
      return;
    }
  arr = json_array_new ();
  for (guint i = 0; i < items->len; i++)
    {
      OwInboxItem *item = g_ptr_array_index (items, i);
      if (session_id != NULL && *session_id != '\0' && g_strcmp0 (item->session_id, session_id) != 0)
        continue;
      if (g_strcmp0 (state, "resolved") == 0 && g_strcmp0 (item->state, "resolved") != 0)
        continue;
      json_array_add_object_element (arr, item_json (self, item, sessions));
    }
  out = json_object_new ();
  json_object_set_array_member (out, "items", arr);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

/* The inbox's word for an answer, as the host wants it for the item's kind. */
static JsonObject *
answer_for (OwInboxItem *item, JsonNode *resolution)
{
  JsonObject *answer;
  const char *text = resolution != NULL && JSON_NODE_HOLDS_VALUE (resolution)
                       && json_node_get_value_type (resolution) == G_TYPE_STRING
                       ? json_node_get_string (resolution) : NULL;

  if (resolution != NULL && JSON_NODE_HOLDS_OBJECT (resolution))
    return ow_json_object_deep_copy (json_node_get_object (resolution));
  if (text == NULL)
    text = "deny";
  if (g_str_equal (item->kind, "approval") || g_str_equal (item->kind, "site"))
    {
      answer = json_object_new ();
      json_object_set_string_member (answer, "decision", text);
      return answer;
    }
  /* A JSON object written as text ({"granted":true,…}) is taken as is. */
  if (text[0] == '{')
    {
      JsonObject *parsed = ow_json_object_from_string (text, -1, NULL);
      if (parsed != NULL)
        return parsed;
    }
  answer = json_object_new ();
  if (g_str_equal (item->kind, "directory"))
    json_object_set_boolean_member (answer, "granted", g_str_equal (text, "allow") || g_str_equal (text, "once"));
  else
    json_object_set_string_member (answer, "answer", text);
  return answer;
}

static void
inbox_resolve (OwServer *self, OwRequest *req)
{
  OwInbox *inbox = ow_session_host_get_inbox (self->host);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwInboxItem) item = NULL;
  g_autoptr(JsonObject) answer = NULL;
  JsonObject *body = ow_request_object (req);
  JsonObject *extra;

  if (body == NULL)
    return;
  item = ow_inbox_get (inbox, req->params[0], NULL);
  if (item == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "There is no such inbox item.");
      return;
    }
  if (g_strcmp0 (item->state, "pending") != 0)
    {
      ow_reply_error (req, SOUP_STATUS_CONFLICT, "This was already answered.");
      return;
    }
  answer = answer_for (item, json_object_get_member (body, "resolution"));
  if (!ow_session_host_answer (self->host, item->session_id, item->call_id, answer, "inbox", &error))
    {
      if (g_error_matches (error, OW_HOST_ERROR, OW_HOST_ERROR_NO_ASK)
          || g_error_matches (error, OW_HOST_ERROR, OW_HOST_ERROR_ANSWERED))
        ow_reply_error (req, SOUP_STATUS_CONFLICT, "This was already answered.");
      else
        ow_reply_gerror (req, error);
      return;
    }
  extra = json_object_new ();
  json_object_set_string_member (extra, "id", item->id);
  ow_reply_ok (req, extra);
}

static void
inbox_reconcile (OwServer *self, OwRequest *req)
{
  const char *session_id = ow_request_query (req, "session_id");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GHashTable) sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, info_unref);
  JsonArray *pending, *recap;
  JsonObject *out;

  if (session_id == NULL || *session_id == '\0')
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Say which session: ?session_id=");
      return;
    }
  items = ow_inbox_list (ow_session_host_get_inbox (self->host), FALSE, &error);
  if (items == NULL)
    {
      ow_reply_gerror (req, error);
      return;
    }
  pending = json_array_new ();
  recap = json_array_new ();
  for (guint i = 0; i < items->len; i++)
    {
      OwInboxItem *item = g_ptr_array_index (items, i);
      if (g_strcmp0 (item->session_id, session_id) != 0)
        continue;
      json_array_add_object_element (g_strcmp0 (item->state, "pending") == 0 ? pending : recap,
                                     item_json (self, item, sessions));
    }
  out = json_object_new ();
  json_object_set_array_member (out, "pending", pending);
  json_object_set_array_member (out, "recap", recap);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

/* ---- Workspaces -------------------------------------------------------------- */

static char *
trust_path (OwServer *self)
{
  return g_build_filename (ow_context_get_paths (self->ctx)->state_dir, "workspace_trust.json", NULL);
}

/* The trusted folders (char*). */
static GPtrArray *
trust_load (OwServer *self)
{
  return ow_paths_load_trusted_workspaces (ow_context_get_paths (self->ctx));
}

static gboolean
trust_save (OwServer *self, GPtrArray *trusted, GError **error)
{
  g_autofree char *path = trust_path (self);
  g_autoptr(JsonObject) obj = json_object_new ();
  JsonArray *arr = json_array_new ();
  g_autofree char *text = NULL;

  for (guint i = 0; i < trusted->len; i++)
    json_array_add_string_element (arr, g_ptr_array_index (trusted, i));
  json_object_set_array_member (obj, "trusted_workspaces", arr);
  text = ow_json_object_to_string (obj);
  return ow_write_file_atomic (path, text, -1, 0600, error);
}

static gboolean
contains_str (GPtrArray *list, const char *s)
{
  for (guint i = 0; i < list->len; i++)
    if (g_str_equal (g_ptr_array_index (list, i), s))
      return TRUE;
  return FALSE;
}

/* The commands a project's .openworker/config.toml asks to allow: a
 * project can only narrow, so these are shown, never applied. */
static JsonArray *
requested_commands (const char *workspace)
{
  JsonArray *out = json_array_new ();
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize len = 0;
  const char *keys[] = { "allowed_commands", "policy.allow", NULL };

  if (workspace == NULL)
    return out;
  path = g_build_filename (workspace, ".openworker", "config.toml", NULL);
  if (!g_file_get_contents (path, &text, &len, NULL) || len > 256 * 1024)
    return out;
  root = ow_toml_parse (text, (gssize) len, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return out;
  for (guint k = 0; keys[k] != NULL; k++)
    {
      JsonObject *obj = json_node_get_object (root);
      g_auto(GStrv) parts = g_strsplit (keys[k], ".", 2);
      JsonArray *arr;
      if (parts[1] != NULL)
        obj = ow_json_get_object (obj, parts[0]);
      arr = obj != NULL ? ow_json_get_array (obj, parts[1] != NULL ? parts[1] : parts[0]) : NULL;
      for (guint i = 0; arr != NULL && i < json_array_get_length (arr) && i < 200; i++)
        {
          JsonNode *n = json_array_get_element (arr, i);
          if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
            json_array_add_string_element (out, json_node_get_string (n));
        }
    }
  return out;
}

static JsonObject *
trust_json (const char *workspace, GPtrArray *trusted)
{
  JsonObject *o = json_object_new ();
  JsonArray *req = requested_commands (workspace);
  gboolean is_trusted = workspace != NULL && contains_str (trusted, workspace);

  if (workspace != NULL)
    json_object_set_string_member (o, "workspace", workspace);
  else
    json_object_set_null_member (o, "workspace");
  json_object_set_boolean_member (o, "trusted", is_trusted);
  json_object_set_boolean_member (o, "required", json_array_get_length (req) > 0 && !is_trusted);
  json_object_set_array_member (o, "requested_commands", req);
  return o;
}

JsonObject *
ow_server_command_trust (OwServer *self, const char *workspace)
{
  g_autoptr(GPtrArray) trusted = trust_load (self);

  return trust_json (workspace, trusted);
}

static void
workspaces_recent (OwServer *self, OwRequest *req)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) paths = ow_store_workspace_recent (ow_context_get_store (self->ctx), 60, &error);
  JsonArray *arr;
  JsonObject *out;

  if (paths == NULL)
    {
      ow_reply_gerror (req, error);
      return;
    }
  arr = json_array_new ();
  for (guint i = 0; i < paths->len && json_array_get_length (arr) < 20; i++)
    {
      const char *p = g_ptr_array_index (paths, i);
      JsonObject *o;
      g_autofree char *name = NULL;
      if (ow_server_is_scratch (self, p))
        continue;
      name = g_path_get_basename (p);
      o = json_object_new ();
      json_object_set_string_member (o, "path", p);
      json_object_set_string_member (o, "name", name);
      json_object_set_boolean_member (o, "exists", g_file_test (p, G_FILE_TEST_IS_DIR));
      json_array_add_object_element (arr, o);
    }
  out = json_object_new ();
  json_object_set_array_member (out, "workspaces", arr);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

/* The branch named in .git/HEAD, without running git. */
static char *
git_branch (const char *workspace)
{
  g_autofree char *head = g_build_filename (workspace, ".git", "HEAD", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;

  if (!g_file_get_contents (head, &text, &len, NULL) || len > 4096)
    return NULL;
  g_strstrip (text);
  if (g_str_has_prefix (text, "ref: refs/heads/"))
    return g_strdup (text + strlen ("ref: refs/heads/"));
  return len >= 7 ? g_strndup (text, 7) : NULL;   /* a detached head: the short hash */
}

static void
workspaces_open (OwServer *self, OwRequest *req)
{
  JsonObject *body = ow_request_object (req);
  const char *path;
  g_autofree char *real = NULL;
  g_autofree char *branch = NULL;
  JsonObject *extra;

  if (body == NULL)
    return;
  path = ow_json_get_string (body, "path");
  if (path == NULL || !g_path_is_absolute (path) || strlen (path) > 4096)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "path must be an absolute folder path.");
      return;
    }
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      if (!ow_json_get_bool (body, "create", FALSE))
        {
          ow_reply_error (req, SOUP_STATUS_NOT_FOUND, "folder does not exist: %s", path);
          return;
        }
      if (g_mkdir_with_parents (path, 0755) != 0)
        {
          ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Could not create %s: %s", path, g_strerror (errno));
          return;
        }
    }
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "not a directory: %s", path);
      return;
    }
  real = realpath (path, NULL);
  if (real == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "not a directory: %s", path);
      return;
    }
  ow_store_touch_workspace (ow_context_get_store (self->ctx), real, NULL);
  branch = git_branch (real);
  extra = json_object_new ();
  json_object_set_string_member (extra, "path", real);
  set_opt_string (extra, "git_branch", branch);
  json_object_set_object_member (extra, "command_trust", ow_server_command_trust (self, real));
  ow_reply_ok (req, extra);
}

static void
workspaces_trusted (OwServer *self, OwRequest *req)
{
  g_autoptr(GPtrArray) trusted = trust_load (self);
  JsonArray *arr = json_array_new ();
  JsonObject *out = json_object_new ();

  for (guint i = 0; i < trusted->len; i++)
    {
      const char *p = g_ptr_array_index (trusted, i);
      JsonObject *o = trust_json (p, trusted);
      json_object_set_boolean_member (o, "exists", g_file_test (p, G_FILE_TEST_IS_DIR));
      json_array_add_object_element (arr, o);
    }
  json_object_set_array_member (out, "workspaces", arr);
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

static void
workspaces_trust (OwServer *self, OwRequest *req)
{
  JsonObject *body = ow_request_object (req);
  g_autoptr(GPtrArray) trusted = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *real = NULL;
  JsonNode *flag;
  const char *path;

  if (body == NULL)
    return;
  path = ow_json_get_string (body, "path");
  flag = json_object_get_member (body, "trusted");
  if (path == NULL || flag == NULL || !JSON_NODE_HOLDS_VALUE (flag) || json_node_get_value_type (flag) != G_TYPE_BOOLEAN)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Send {path, trusted: true|false}.");
      return;
    }
  real = realpath (path, NULL);
  if (real == NULL || !g_file_test (real, G_FILE_TEST_IS_DIR))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "not a directory: %s", path);
      return;
    }
  trusted = trust_load (self);
  if (json_node_get_boolean (flag) && !contains_str (trusted, real))
    g_ptr_array_add (trusted, g_strdup (real));
  else if (!json_node_get_boolean (flag))
    for (guint i = trusted->len; i > 0; i--)
      if (g_str_equal (g_ptr_array_index (trusted, i - 1), real))
        g_ptr_array_remove_index (trusted, i - 1);
  if (!trust_save (self, trusted, &error))
    {
      ow_reply_gerror (req, error);
      return;
    }
  ow_reply_ok (req, trust_json (real, trusted));
}

/* ---- Model settings ------------------------------------------------------------ */

static char *
model_config_path (OwServer *self)
{
  return g_build_filename (ow_context_get_paths (self->ctx)->config_dir, "model_config.json", NULL);
}

static OwModelConfig *
model_config_load (OwServer *self, OwRequest *req)
{
  g_autofree char *path = model_config_path (self);
  g_autoptr(GError) error = NULL;
  OwModelConfig *config = ow_model_config_load (path, &error);

  if (config == NULL)
    ow_reply_error (req, SOUP_STATUS_CONFLICT, "%s", error->message);
  return config;
}

static gboolean
model_id_ok (OwRequest *req, const char *model)
{
  if (model == NULL || *model == '\0' || strlen (model) > 256 || !g_utf8_validate (model, -1, NULL))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "Say which model: a model id such as openai:gpt-5.");
      return FALSE;
    }
  return TRUE;
}

/* GET /v1/settings/model-config?model= → {model, values, origins}; without
 * ?model= the whole file. */
static void
model_config_get (OwServer *self, OwRequest *req)
{
  g_autoptr(OwModelConfig) config = model_config_load (self, req);
  const char *model = ow_request_query (req, "model");
  JsonObject *root, *values, *origins, *out;

  if (config == NULL)
    return;
  root = ow_model_config_get_root (config);
  out = json_object_new ();
  if (model == NULL)
    {
      json_object_set_object_member (out, "models", ow_json_object_deep_copy (root));
      ow_reply_object (req, SOUP_STATUS_OK, out);
      return;
    }
  if (!model_id_ok (req, model))
    {
      json_object_unref (out);
      return;
    }
  values = ow_json_get_object (root, model) != NULL ? ow_json_object_deep_copy (ow_json_get_object (root, model))
                                                   : json_object_new ();
  origins = json_object_new ();
  {
    JsonObjectIter iter;
    const char *name;
    JsonNode *value;
    json_object_iter_init (&iter, values);
    while (json_object_iter_next (&iter, &name, &value))
      json_object_set_string_member (origins, name, "user");
  }
  json_object_set_string_member (out, "model", model);
  json_object_set_object_member (out, "values", values);
  json_object_set_object_member (out, "origins", origins);
  json_object_set_object_member (out, "recommended", json_object_new ());
  ow_reply_object (req, SOUP_STATUS_OK, out);
}

static void
model_config_set (OwServer *self, OwRequest *req)
{
  JsonObject *body = ow_request_object (req);
  g_autoptr(OwModelConfig) config = NULL;
  g_autoptr(GError) error = NULL;
  const char *model;
  JsonObject *values, *extra;

  if (body == NULL)
    return;
  model = ow_json_get_string (body, "model");
  values = ow_json_get_object (body, "values");
  if (!model_id_ok (req, model))
    return;
  if (values == NULL)
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "values must be an object of settings.");
      return;
    }
  if ((config = model_config_load (self, req)) == NULL)
    return;
  if (!ow_model_config_set (config, model, values, &error))
    {
      ow_reply_error (req, SOUP_STATUS_BAD_REQUEST, "%s", error->message);
      return;
    }
  extra = json_object_new ();
  json_object_set_string_member (extra, "model", model);
  {
    JsonObject *saved = ow_json_get_object (ow_model_config_get_root (config), model);
    json_object_set_object_member (extra, "values", saved != NULL ? ow_json_object_deep_copy (saved) : json_object_new ());
  }
  ow_reply_ok (req, extra);
}

static void
model_config_remove (OwServer *self, OwRequest *req)
{
  JsonObject *body = ow_request_object (req);
  g_autoptr(OwModelConfig) config = NULL;
  g_autoptr(GError) error = NULL;
  const char *model;
  JsonObject *extra;

  if (body == NULL)
    return;
  model = ow_json_get_string (body, "model");
  if (!model_id_ok (req, model) || (config = model_config_load (self, req)) == NULL)
    return;
  if (!ow_model_config_remove (config, model, &error))
    {
      ow_reply_gerror (req, error);
      return;
    }
  extra = json_object_new ();
  json_object_set_string_member (extra, "model", model);
  ow_reply_ok (req, extra);
}

static const OwRoute routes[] = {
  { "GET", "/v1/health", health, OW_ROUTE_PUBLIC },
  { "GET", "/v1/agents", agents_list, 0 },
  { "GET", "/v1/personas", personas_list, 0 },
  { "GET", "/v1/inbox", inbox_list, 0 },
  { "GET", "/v1/inbox/reconcile", inbox_reconcile, 0 },
  { "POST", "/v1/inbox/*/resolve", inbox_resolve, 0 },
  { "GET", "/v1/workspaces/recent", workspaces_recent, 0 },
  { "POST", "/v1/workspaces/open", workspaces_open, 0 },
  { "GET", "/v1/workspaces/trusted", workspaces_trusted, 0 },
  { "POST", "/v1/workspaces/trust", workspaces_trust, 0 },
  { "GET", "/v1/settings/model-config", model_config_get, 0 },
  { "POST", "/v1/settings/model-config", model_config_set, 0 },
  { "POST", "/v1/settings/model-config/remove", model_config_remove, 0 },
};

const OwRoute *
ow_server_misc_routes (guint *n)
{
  *n = G_N_ELEMENTS (routes);
  return routes;
}
