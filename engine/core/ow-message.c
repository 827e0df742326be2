/* ow-message.c: a conversation message (see ow-message.h). */
#define G_LOG_DOMAIN "ow-message"

#include "core/ow-message.h"

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
