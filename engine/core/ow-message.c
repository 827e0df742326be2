/* ow-message.c: a conversation message (see ow-message.h). */
#define G_LOG_DOMAIN "ow-message"

#include "core/ow-message.h"

#include <gio/gio.h>
#include <string.h>

#include "ow-json.h"

struct _OwMessage
{
  GObject     parent_instance;
  JsonObject *json;   /* the canonical message (owned reference) */
};

enum {
  PROP_0,
  PROP_ROLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (OwMessage, ow_message, G_TYPE_OBJECT)

static void
ow_message_finalize (GObject *object)
{
  OwMessage *self = OW_MESSAGE (object);

  g_clear_pointer (&self->json, json_object_unref);
  G_OBJECT_CLASS (ow_message_parent_class)->finalize (object);
}

static void
ow_message_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwMessage *self = OW_MESSAGE (object);

  switch (prop_id)
    {
    case PROP_ROLE:
      g_value_set_string (value, ow_message_get_role (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_message_class_init (OwMessageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ow_message_finalize;
  object_class->get_property = ow_message_get_property;

  properties[PROP_ROLE] =
    g_param_spec_string ("role", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ow_message_init (OwMessage *self)
{
}

OwMessage *
ow_message_new (JsonObject *json)
{
  OwMessage *self = g_object_new (OW_TYPE_MESSAGE, NULL);

  self->json = json_object_ref (json);
  return self;
}

JsonObject *
ow_message_get_json (OwMessage *self)
{
  g_return_val_if_fail (OW_IS_MESSAGE (self), NULL);
  return self->json;
}

const char *
ow_message_get_role (OwMessage *self)
{
  g_return_val_if_fail (OW_IS_MESSAGE (self), NULL);
  return json_object_get_string_member_with_default (self->json, "role", "");
}

char *
ow_content_to_text (JsonNode *content)
{
  GString *s;
  JsonArray *parts;

  if (content == NULL || JSON_NODE_HOLDS_NULL (content))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (content));
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return g_strdup ("");
  s = g_string_new (NULL);
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *p = json_array_get_element (parts, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (p) ? json_node_get_object (p) : NULL;
      const char *type = o != NULL ? json_object_get_string_member_with_default (o, "type", "") : "";
      if (g_str_equal (type, "text"))
        {
          if (s->len > 0)
            g_string_append_c (s, '\n');
          g_string_append (s, json_object_get_string_member_with_default (o, "text", ""));
        }
    }
  return g_string_free (s, FALSE);
}

char *
ow_message_dup_text (OwMessage *self)
{
  g_return_val_if_fail (OW_IS_MESSAGE (self), NULL);
  return ow_content_to_text (json_object_get_member (self->json, "content"));
}

static double
now_seconds (void)
{
  return (double) g_get_real_time () / G_USEC_PER_SEC;
}

JsonObject *
ow_message_json_user (const char *text)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "role", "user");
  json_object_set_string_member (o, "content", text);
  json_object_set_double_member (o, "ts", now_seconds ());
  return o;
}

#define MAX_ATTACHMENTS   8
#define MAX_TEXT_CHARS    200000
#define MAX_IMAGE_CHARS   12000000
#define MAX_PDF_CHARS     15000000
#define MAX_NAME_CHARS    1024
#define MAX_MIME_CHARS    255

static gboolean
attachment_problem (const char *name, const char *why, GError **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Attachment \"%s\": %s", name, why);
  return FALSE;
}

static gboolean
add_attachment (JsonArray *parts, JsonObject *att, GError **error)
{
  const char *kind = json_object_get_string_member_with_default (att, "kind", "");
  const char *name = json_object_get_string_member_with_default (att, "name", "attachment");
  const char *mime = json_object_get_string_member_with_default (att, "mime", "");
  JsonObject *part = json_object_new ();

  if (g_utf8_strlen (name, -1) > MAX_NAME_CHARS)
    return json_object_unref (part), attachment_problem ("(name)", "the name is longer than 1,024 characters", error);
  if (strlen (mime) > MAX_MIME_CHARS)
    return json_object_unref (part), attachment_problem (name, "the type is longer than 255 characters", error);
  if (g_str_equal (kind, "image") || g_str_equal (kind, "pdf"))
    {
      gboolean image = g_str_equal (kind, "image");
      const char *url = json_object_get_string_member_with_default (att, "data_url", "");
      const char *prefix = image ? "data:image/" : "data:application/pdf;base64,";

      if (!g_str_has_prefix (url, prefix) || strstr (url, ";base64,") == NULL)
        return json_object_unref (part),
               attachment_problem (name, image ? "an image must be a data:image/…;base64, URL"
                                               : "a PDF must be a data:application/pdf;base64, URL", error);
      if (strlen (url) > (image ? MAX_IMAGE_CHARS : MAX_PDF_CHARS))
        return json_object_unref (part),
               attachment_problem (name, image ? "the image is larger than 12,000,000 characters"
                                               : "the PDF is larger than 15,000,000 characters", error);
      if (image)
        {
          JsonObject *iu = json_object_new ();
          json_object_set_string_member (iu, "url", url);
          json_object_set_string_member (part, "type", "image_url");
          json_object_set_object_member (part, "image_url", iu);
        }
      else
        {
          JsonObject *file = json_object_new ();
          json_object_set_string_member (file, "filename", name);
          json_object_set_string_member (file, "file_data", url);
          json_object_set_string_member (part, "type", "file");
          json_object_set_object_member (part, "file", file);
        }
    }
  else if (g_str_equal (kind, "text"))
    {
      const char *body = json_object_get_string_member_with_default (att, "text", "");
      g_autofree char *text = NULL;

      if (g_utf8_strlen (body, -1) > MAX_TEXT_CHARS)
        return json_object_unref (part), attachment_problem (name, "the text is longer than 200,000 characters", error);
      text = g_strdup_printf ("[Attached file: %s]\n%s", name, body);
      json_object_set_string_member (part, "type", "text");
      json_object_set_string_member (part, "text", text);
    }
  else
    return json_object_unref (part), attachment_problem (name, "kind must be image, pdf or text", error);
  json_array_add_object_element (parts, part);
  return TRUE;
}

JsonObject *
ow_message_json_user_parts (const char *text, JsonArray *attachments, GError **error)
{
  g_autoptr(JsonArray) parts = NULL;
  guint n = attachments != NULL ? json_array_get_length (attachments) : 0;
  JsonObject *o;

  if (text == NULL)
    text = "";
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "The message is not valid UTF-8.");
      return NULL;
    }
  if (g_utf8_strlen (text, -1) > MAX_TEXT_CHARS)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "The message is longer than 200,000 characters.");
      return NULL;
    }
  if (n > MAX_ATTACHMENTS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "At most %d attachments fit in one message (this one has %u).", MAX_ATTACHMENTS, n);
      return NULL;
    }
  if (n == 0)
    {
      if (*text == '\0')
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "The message is empty.");
          return NULL;
        }
      return ow_message_json_user (text);
    }
  parts = json_array_new ();
  if (*text != '\0')
    json_array_add_object_element (parts, ow_message_json_text_part (text));
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (attachments, i);
      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Attachment %u is not an object.", i + 1);
          return NULL;
        }
      if (!add_attachment (parts, json_node_get_object (node), error))
        return NULL;
    }
  o = json_object_new ();
  json_object_set_string_member (o, "role", "user");
  json_object_set_array_member (o, "content", g_steal_pointer (&parts));
  json_object_set_double_member (o, "ts", now_seconds ());
  return o;
}

JsonObject *
ow_message_json_tool (const char *call_id, const char *content)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "role", "tool");
  json_object_set_string_member (o, "tool_call_id", call_id);
  json_object_set_string_member (o, "content", content);
  json_object_set_double_member (o, "ts", now_seconds ());
  return o;
}

/* {"type": "text", "text": @text}: a content part. */
JsonObject *
ow_message_json_text_part (const char *text)
{
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "type", "text");
  json_object_set_string_member (part, "text", text);
  return part;
}

JsonObject *
ow_message_json_notice (const char *kind, const char *text)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "role", "notice");
  json_object_set_string_member (o, "kind", kind);
  if (text != NULL)
    json_object_set_string_member (o, "text", text);
  json_object_set_double_member (o, "ts", now_seconds ());
  return o;
}

char *
ow_message_content_first_line (const char *content, glong max_chars)
{
  g_autofree char *text = NULL;
  char *nl;

  if (content == NULL)
    return NULL;
  if (content[0] == '[')
    {
      g_autoptr(JsonNode) node = ow_json_parse (content, -1, NULL);
      JsonArray *parts = node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

      for (guint i = 0; parts != NULL && i < json_array_get_length (parts) && text == NULL; i++)
        {
          /* A reply's text may itself be a JSON array of anything. */
          JsonNode *part = json_array_get_element (parts, i);
          JsonObject *p = JSON_NODE_HOLDS_OBJECT (part) ? json_node_get_object (part) : NULL;
          if (p != NULL && g_strcmp0 (ow_json_get_string (p, "type"), "text") == 0)
            text = g_strdup (ow_json_get_string (p, "text"));
        }
    }
  else
    text = g_strdup (content);
  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return NULL;
  g_strstrip (text);
  nl = strchr (text, '\n');
  if (nl != NULL)
    *nl = '\0';
  g_strstrip (text);
  if (*text == '\0')
    return NULL;
  return ow_text_cut_at_word (text, max_chars);
}

char *
ow_text_cut_at_word (const char *text, glong max_chars)
{
  g_autofree char *head = NULL;
  char *space;

  if (g_utf8_strlen (text, -1) <= max_chars)
    return g_strdup (text);
  /* One character is left for the ellipsis. */
  head = g_utf8_substring (text, 0, MAX (max_chars - 1, 1));
  space = strrchr (head, ' ');
  /* The head may end at a word already; a single very long word is cut
   * where it must be. */
  if (*g_utf8_offset_to_pointer (text, MAX (max_chars - 1, 1)) != ' ' && space != NULL
      && g_utf8_strlen (head, space - head) >= max_chars / 2)
    *space = '\0';
  g_strchomp (head);
  /* "Fix the parser, then" reads better as "Fix the parser…" */
  while (*head != '\0' && strchr (",;:-", head[strlen (head) - 1]) != NULL)
    head[strlen (head) - 1] = '\0';
  return g_strconcat (head, "…", NULL);
}
