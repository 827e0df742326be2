/* ow-ws-frame.c: client frames of the session WebSocket (see ow-ws-frame.h).
 *
 * Every member is read with a type check: a frame is hostile until proved
 * otherwise, and a wrong type is refused rather than guessed at. Strings
 * are counted in characters (the original's limits are Python string
 * lengths) after checking they are UTF-8.
 */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-ws-frame.h"

#include <string.h>

#include "ow-json.h"
#include "server/ow-server-guard.h"

void
ow_client_frame_free (OwClientFrame *frame)
{
  if (frame == NULL)
    return;
  g_free (frame->text);
  g_clear_pointer (&frame->attachments, json_array_unref);
  g_free (frame->model);
  g_free (frame->mode);
  g_free (frame->call_id);
  g_clear_pointer (&frame->answer, json_object_unref);
  g_free (frame);
}

static const struct {
  const char *name;
  OwFrameType type;
} frame_types[] = {
  { "user_message", OW_FRAME_USER_MESSAGE },
  { "approval", OW_FRAME_APPROVAL },
  { "directory_response", OW_FRAME_DIRECTORY_RESPONSE },
  { "question_response", OW_FRAME_QUESTION_RESPONSE },
  { "tool_response", OW_FRAME_TOOL_RESPONSE },
  { "plan_response", OW_FRAME_PLAN_RESPONSE },
  { "team_response", OW_FRAME_TEAM_RESPONSE },
  { "items_response", OW_FRAME_ITEMS_RESPONSE },
  { "interrupt", OW_FRAME_INTERRUPT },
  { "retry", OW_FRAME_RETRY },
  { "set_mode", OW_FRAME_SET_MODE },
  { "set_model", OW_FRAME_SET_MODEL },
};

/* A member that must be a string when present. @present tells absence
 * from a wrong type. */
static gboolean
get_string (JsonObject *obj, const char *name, const char **out)
{
  JsonNode *node = json_object_get_member (obj, name);

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return FALSE;
  *out = json_node_get_string (node);
  return TRUE;
}

static gboolean
get_bool (JsonObject *obj, const char *name, int *out)
{
  JsonNode *node = json_object_get_member (obj, name);

  *out = -1;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return FALSE;
  *out = json_node_get_boolean (node);
  return TRUE;
}

/* Characters in a UTF-8 string, or -1 when it is not UTF-8. */
static glong
utf8_chars (const char *s)
{
  return g_utf8_validate (s, -1, NULL) ? g_utf8_strlen (s, -1) : -1;
}

static gboolean
string_ok (const char *s, glong max_chars)
{
  glong n = utf8_chars (s);
  return n >= 0 && n <= max_chars;
}

JsonArray *
ow_attachments_check (JsonArray *attachments, char **error_text)
{
  g_autoptr(JsonArray) out = json_array_new ();
  guint n = json_array_get_length (attachments);
  gsize total = 0;

  if (n > OW_WS_MAX_ATTACHMENTS)
    {
      *error_text = g_strdup_printf ("At most %d attachments can be sent with one message.", OW_WS_MAX_ATTACHMENTS);
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (attachments, i);
      JsonObject *a = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *kind, *name, *mime, *data_url, *text;
      JsonObject *copy;

      if (a == NULL)
        {
          *error_text = g_strdup_printf ("Attachment %u is not an object.", i + 1);
          return NULL;
        }
      if (!get_string (a, "kind", &kind) || !get_string (a, "name", &name) || !get_string (a, "mime", &mime)
          || !get_string (a, "data_url", &data_url) || !get_string (a, "text", &text))
        {
          *error_text = g_strdup_printf ("Attachment %u has a member of the wrong type.", i + 1);
          return NULL;
        }
      if (kind == NULL || (strcmp (kind, "image") != 0 && strcmp (kind, "pdf") != 0 && strcmp (kind, "text") != 0))
        {
          *error_text = g_strdup_printf ("Attachment %u: kind must be image, pdf or text.", i + 1);
          return NULL;
        }
      if ((name != NULL && !string_ok (name, OW_WS_MAX_NAME_CHARS))
          || (mime != NULL && !string_ok (mime, OW_WS_MAX_MIME_CHARS)))
        {
          *error_text = g_strdup_printf ("Attachment %u: the name or type is too long or not text.", i + 1);
          return NULL;
        }
      copy = json_object_new ();
      json_object_set_string_member (copy, "kind", kind);
      if (name != NULL)
        json_object_set_string_member (copy, "name", name);
      if (mime != NULL)
        json_object_set_string_member (copy, "mime", mime);
      if (strcmp (kind, "text") == 0)
        {
          if (text == NULL || !string_ok (text, OW_WS_MAX_TEXT_ATTACH_CHARS))
            {
              json_object_unref (copy);
              *error_text = g_strdup_printf ("Attachment %u: a text attachment needs text of at most %d characters.",
                                             i + 1, OW_WS_MAX_TEXT_ATTACH_CHARS);
              return NULL;
            }
          json_object_set_string_member (copy, "text", text);
          total += strlen (text);
        }
      else
        {
          gboolean image = strcmp (kind, "image") == 0;
          gsize max = image ? OW_WS_MAX_IMAGE_URL_CHARS : OW_WS_MAX_PDF_URL_CHARS;
          gsize len = data_url != NULL ? strlen (data_url) : 0;
          gboolean shape = data_url != NULL
                           && (image ? g_str_has_prefix (data_url, "data:image/") && strstr (data_url, ";base64,") != NULL
                                     : g_str_has_prefix (data_url, "data:application/pdf;base64,"));
          if (!shape || len > max || !g_utf8_validate (data_url, (gssize) len, NULL))
            {
              json_object_unref (copy);
              *error_text = g_strdup_printf (image ? "Attachment %u: an image must be a data:image/…;base64, URL of "
                                                     "at most 12,000,000 characters."
                                                   : "Attachment %u: a PDF must be a data:application/pdf;base64, URL of "
                                                     "at most 15,000,000 characters.", i + 1);
              return NULL;
            }
          json_object_set_string_member (copy, "data_url", data_url);
          total += len;
        }
      total += (name != NULL ? strlen (name) : 0) + (mime != NULL ? strlen (mime) : 0);
      if (total > OW_WS_MAX_ATTACHMENTS_BYTES)
        {
          json_object_unref (copy);
          *error_text = g_strdup ("The attachments are too large together (at most 15,000,000 bytes).");
          return NULL;
        }
      json_array_add_object_element (out, copy);
    }
  return g_steal_pointer (&out);
}

static gboolean
parse_user_message (OwClientFrame *frame, JsonObject *obj, char **error_text)
{
  const char *text, *model;
  JsonNode *att = json_object_get_member (obj, "attachments");

  if (!get_string (obj, "text", &text) || !get_string (obj, "model", &model))
    {
      *error_text = g_strdup ("A user_message needs text as a string.");
      return FALSE;
    }
  if (text != NULL && !string_ok (text, OW_WS_MAX_TEXT_CHARS))
    {
      *error_text = g_strdup_printf ("The message is too long (at most %d characters) or is not text.",
                                     OW_WS_MAX_TEXT_CHARS);
      return FALSE;
    }
  if (att != NULL && !JSON_NODE_HOLDS_NULL (att))
    {
      if (!JSON_NODE_HOLDS_ARRAY (att))
        {
          *error_text = g_strdup ("attachments must be a list.");
          return FALSE;
        }
      if (json_array_get_length (json_node_get_array (att)) > 0)
        {
          frame->attachments = ow_attachments_check (json_node_get_array (att), error_text);
          if (frame->attachments == NULL)
            return FALSE;
        }
    }
  if ((text == NULL || *text == '\0') && frame->attachments == NULL)
    {
      *error_text = g_strdup ("The message is empty.");
      return FALSE;
    }
  if (model != NULL && (*model == '\0' || !string_ok (model, 256)))
    {
      *error_text = g_strdup ("model must be a model id.");
      return FALSE;
    }
  frame->text = g_strdup (text != NULL ? text : "");
  frame->model = g_strdup (model);
  return TRUE;
}

/* Copies the optional boolean/string members of an answer frame. */
static gboolean
copy_answer (OwClientFrame *frame, JsonObject *obj, const char *const *bools, const char *const *strings,
             char **error_text)
{
  frame->answer = json_object_new ();
  for (guint i = 0; bools != NULL && bools[i] != NULL; i++)
    {
      int v;
      if (!get_bool (obj, bools[i], &v))
        {
          *error_text = g_strdup_printf ("%s must be true or false.", bools[i]);
          return FALSE;
        }
      if (v >= 0)
        json_object_set_boolean_member (frame->answer, bools[i], v);
    }
  for (guint i = 0; strings != NULL && strings[i] != NULL; i++)
    {
      const char *v;
      if (!get_string (obj, strings[i], &v) || (v != NULL && !string_ok (v, OW_WS_MAX_TEXT_CHARS)))
        {
          *error_text = g_strdup_printf ("%s must be text of at most %d characters.", strings[i], OW_WS_MAX_TEXT_CHARS);
          return FALSE;
        }
      if (v != NULL)
        json_object_set_string_member (frame->answer, strings[i], v);
    }
  return TRUE;
}

static gboolean
parse_answer (OwClientFrame *frame, JsonObject *obj, char **error_text)
{
  static const char *const approved[] = { "approved", NULL };
  static const char *const plan_strings[] = { "mode", "feedback", NULL };
  static const char *const team_bools[] = { "approved", "enable_chat", NULL };
  static const char *const feedback[] = { "feedback", NULL };
  static const char *const dir_bools[] = { "granted", "writable", NULL };
  static const char *const dir_strings[] = { "path", NULL };
  const char *call_id;

  if (!get_string (obj, "call_id", &call_id) || (call_id != NULL && !string_ok (call_id, 256)))
    {
      *error_text = g_strdup ("call_id must be text.");
      return FALSE;
    }
  frame->call_id = g_strdup (call_id);

  switch (frame->type)
    {
    case OW_FRAME_APPROVAL:
      {
        static const char *const decisions[] = { "once", "always_tool", "always_command", "always_task",
                                                 "readonly_session", "deny", "allow", "always", "session", NULL };
        const char *decision, *reason;
        if (!get_string (obj, "decision", &decision) || decision == NULL || !g_strv_contains (decisions, decision))
          {
            *error_text = g_strdup ("decision must be once, always_tool, always_command, always_task, "
                                    "readonly_session or deny.");
            return FALSE;
          }
        if (!get_string (obj, "reason", &reason) || (reason != NULL && !string_ok (reason, 4000)))
          {
            *error_text = g_strdup ("reason must be text of at most 4000 characters.");
            return FALSE;
          }
        frame->answer = json_object_new ();
        json_object_set_string_member (frame->answer, "decision", decision);
        if (reason != NULL)
          json_object_set_string_member (frame->answer, "reason", reason);
        return TRUE;
      }
    case OW_FRAME_DIRECTORY_RESPONSE:
      if (!copy_answer (frame, obj, dir_bools, dir_strings, error_text))
        return FALSE;
      if (!json_object_has_member (frame->answer, "granted"))
        json_object_set_boolean_member (frame->answer, "granted", FALSE);
      return TRUE;
    case OW_FRAME_QUESTION_RESPONSE:
      {
        const char *answer;
        JsonNode *answers = json_object_get_member (obj, "answers");
        frame->answer = json_object_new ();
        if (answers != NULL && JSON_NODE_HOLDS_OBJECT (answers))
          {
            json_object_set_object_member (frame->answer, "answers",
                                           ow_json_object_deep_copy (json_node_get_object (answers)));
            return TRUE;
          }
        if (!get_string (obj, "answer", &answer) || answer == NULL || !string_ok (answer, OW_WS_MAX_TEXT_CHARS))
          {
            *error_text = g_strdup ("A question_response needs an answer as text.");
            return FALSE;
          }
        json_object_set_string_member (frame->answer, "answer", answer);
        return TRUE;
      }
    case OW_FRAME_TOOL_RESPONSE:
      return copy_answer (frame, obj, approved, NULL, error_text);
    case OW_FRAME_PLAN_RESPONSE:
      return copy_answer (frame, obj, approved, plan_strings, error_text);
    case OW_FRAME_TEAM_RESPONSE:
    case OW_FRAME_ITEMS_RESPONSE:
      return copy_answer (frame, obj, team_bools, feedback, error_text);
    default:
      g_assert_not_reached ();
    }
}

OwClientFrame *
ow_client_frame_parse (const char *text, gsize len, char **error_text)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(OwClientFrame) frame = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *obj;
  const char *type;
  guint i;

  *error_text = NULL;
  if (len > OW_WS_MAX_FRAME_BYTES)
    {
      *error_text = g_strdup ("The message is too large.");
      return NULL;
    }
  if (!ow_json_depth_ok (text, len, OW_WS_MAX_JSON_DEPTH))
    {
      *error_text = g_strdup ("The message nests too deeply.");
      return NULL;
    }
  root = ow_json_parse (text, (gssize) len, &error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      *error_text = g_strdup ("Each message must be a JSON object with a type.");
      return NULL;
    }
  obj = json_node_get_object (root);
  if (!get_string (obj, "type", &type) || type == NULL)
    {
      *error_text = g_strdup ("Each message must be a JSON object with a type.");
      return NULL;
    }
  for (i = 0; i < G_N_ELEMENTS (frame_types); i++)
    if (strcmp (frame_types[i].name, type) == 0)
      break;
  if (i == G_N_ELEMENTS (frame_types))
    {
      g_autofree char *shown = g_utf8_make_valid (type, MIN (strlen (type), 40));
      *error_text = g_strdup_printf ("Unknown message type \"%s\".", shown);
      return NULL;
    }

  frame = g_new0 (OwClientFrame, 1);
  frame->type = frame_types[i].type;
  switch (frame->type)
    {
    case OW_FRAME_USER_MESSAGE:
      if (!parse_user_message (frame, obj, error_text))
        return NULL;
      break;
    case OW_FRAME_SET_MODE:
      {
        const char *mode;
        if (!get_string (obj, "mode", &mode) || mode == NULL || !string_ok (mode, 64))
          {
            *error_text = g_strdup ("set_mode needs a mode.");
            return NULL;
          }
        frame->mode = g_strdup (mode);
        break;
      }
    case OW_FRAME_SET_MODEL:
      {
        const char *model;
        if (!get_string (obj, "model", &model) || model == NULL || *model == '\0' || !string_ok (model, 256))
          {
            *error_text = g_strdup ("set_model needs a model id.");
            return NULL;
          }
        frame->model = g_strdup (model);
        break;
      }
    case OW_FRAME_INTERRUPT:
    case OW_FRAME_RETRY:
      break;
    default:
      if (!parse_answer (frame, obj, error_text))
        return NULL;
      break;
    }
  return g_steal_pointer (&frame);
}
