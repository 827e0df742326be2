/* ow-session-item.c: one row of the sessions sidebar (see ow-session-item.h). */
#define G_LOG_DOMAIN "ow-session-item"

#include "ow-session-item.h"

struct _OwSessionItem
{
  GObject  parent_instance;

  gboolean is_header;
  char    *id;
  char    *title;       /* a session's display title, or the header's words */
  char    *subtitle;    /* "Code · project" */
  char    *updated;     /* "5 min ago" */
  char    *coworker;
  char    *workspace;
  gboolean pinned;
  gboolean archived;
  guint    attention;   /* asks waiting for a person */
  gboolean running;
};

enum {
  PROP_0,
  PROP_IS_HEADER,
  PROP_SELECTABLE,
  PROP_ID,
  PROP_TITLE,
  PROP_SUBTITLE,
  PROP_UPDATED,
  PROP_COWORKER,
  PROP_WORKSPACE,
  PROP_PINNED,
  PROP_ARCHIVED,
  PROP_ATTENTION,
  PROP_HAS_ATTENTION,
  PROP_ATTENTION_LABEL,
  PROP_RUNNING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (OwSessionItem, ow_session_item, G_TYPE_OBJECT)

static void
ow_session_item_finalize (GObject *object)
{
  OwSessionItem *self = OW_SESSION_ITEM (object);

  g_free (self->id);
  g_free (self->title);
  g_free (self->subtitle);
  g_free (self->updated);
  g_free (self->coworker);
  g_free (self->workspace);
  G_OBJECT_CLASS (ow_session_item_parent_class)->finalize (object);
}

static void
ow_session_item_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwSessionItem *self = OW_SESSION_ITEM (object);

  switch (prop_id)
    {
    case PROP_IS_HEADER: g_value_set_boolean (value, self->is_header); break;
    case PROP_SELECTABLE: g_value_set_boolean (value, !self->is_header); break;
    case PROP_ID: g_value_set_string (value, self->id); break;
    case PROP_TITLE: g_value_set_string (value, self->title); break;
    case PROP_SUBTITLE: g_value_set_string (value, self->subtitle); break;
    case PROP_UPDATED: g_value_set_string (value, self->updated); break;
    case PROP_COWORKER: g_value_set_string (value, self->coworker); break;
    case PROP_WORKSPACE: g_value_set_string (value, self->workspace); break;
    case PROP_PINNED: g_value_set_boolean (value, self->pinned); break;
    case PROP_ARCHIVED: g_value_set_boolean (value, self->archived); break;
    case PROP_ATTENTION: g_value_set_uint (value, self->attention); break;
    case PROP_HAS_ATTENTION: g_value_set_boolean (value, self->attention > 0); break;
    case PROP_ATTENTION_LABEL: g_value_take_string (value, g_strdup_printf ("%u", self->attention)); break;
    case PROP_RUNNING: g_value_set_boolean (value, self->running); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_session_item_class_init (OwSessionItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = ow_session_item_finalize;
  object_class->get_property = ow_session_item_get_property;

  properties[PROP_IS_HEADER] = g_param_spec_boolean ("is-header", NULL, NULL, FALSE, ro);
  /* What the list item binds: headers are neither selected nor activated. */
  properties[PROP_SELECTABLE] = g_param_spec_boolean ("selectable", NULL, NULL, TRUE, ro);
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, ro);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, ro);
  properties[PROP_SUBTITLE] = g_param_spec_string ("subtitle", NULL, NULL, NULL, ro);
  properties[PROP_UPDATED] = g_param_spec_string ("updated", NULL, NULL, NULL, ro);
  properties[PROP_COWORKER] = g_param_spec_string ("coworker", NULL, NULL, NULL, ro);
  properties[PROP_WORKSPACE] = g_param_spec_string ("workspace", NULL, NULL, NULL, ro);
  properties[PROP_PINNED] = g_param_spec_boolean ("pinned", NULL, NULL, FALSE, ro);
  properties[PROP_ARCHIVED] = g_param_spec_boolean ("archived", NULL, NULL, FALSE, ro);
  properties[PROP_ATTENTION] = g_param_spec_uint ("attention", NULL, NULL, 0, G_MAXUINT, 0, ro);
  properties[PROP_HAS_ATTENTION] = g_param_spec_boolean ("has-attention", NULL, NULL, FALSE, ro);
  properties[PROP_ATTENTION_LABEL] = g_param_spec_string ("attention-label", NULL, NULL, NULL, ro);
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ow_session_item_init (OwSessionItem *self)
{
}

OwSessionItem *
ow_session_item_new_header (const char *title)
{
  OwSessionItem *self = g_object_new (OW_TYPE_SESSION_ITEM, NULL);

  self->is_header = TRUE;
  self->title = g_strdup (title);
  return self;
}

OwSessionItem *
ow_session_item_new (const char *session_id)
{
  OwSessionItem *self = g_object_new (OW_TYPE_SESSION_ITEM, NULL);

  self->id = g_strdup (session_id);
  return self;
}

gboolean ow_session_item_get_is_header (OwSessionItem *self) { return self->is_header; }
const char *ow_session_item_get_id (OwSessionItem *self) { return self->id; }
const char *ow_session_item_get_title (OwSessionItem *self) { return self->title; }
const char *ow_session_item_get_coworker (OwSessionItem *self) { return self->coworker; }
const char *ow_session_item_get_workspace (OwSessionItem *self) { return self->workspace; }
gboolean ow_session_item_get_pinned (OwSessionItem *self) { return self->pinned; }
gboolean ow_session_item_get_archived (OwSessionItem *self) { return self->archived; }
guint ow_session_item_get_attention (OwSessionItem *self) { return self->attention; }

static void
set_string (OwSessionItem *self, char **field, const char *value, guint prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
set_bool (OwSessionItem *self, gboolean *field, gboolean value, guint prop)
{
  value = !!value;
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

void ow_session_item_set_title (OwSessionItem *self, const char *v) { set_string (self, &self->title, v, PROP_TITLE); }
void ow_session_item_set_subtitle (OwSessionItem *self, const char *v) { set_string (self, &self->subtitle, v, PROP_SUBTITLE); }
void ow_session_item_set_updated (OwSessionItem *self, const char *v) { set_string (self, &self->updated, v, PROP_UPDATED); }
void ow_session_item_set_coworker (OwSessionItem *self, const char *v) { set_string (self, &self->coworker, v, PROP_COWORKER); }
void ow_session_item_set_workspace (OwSessionItem *self, const char *v) { set_string (self, &self->workspace, v, PROP_WORKSPACE); }
void ow_session_item_set_pinned (OwSessionItem *self, gboolean v) { set_bool (self, &self->pinned, v, PROP_PINNED); }
void ow_session_item_set_archived (OwSessionItem *self, gboolean v) { set_bool (self, &self->archived, v, PROP_ARCHIVED); }
void ow_session_item_set_running (OwSessionItem *self, gboolean v) { set_bool (self, &self->running, v, PROP_RUNNING); }

void
ow_session_item_set_attention (OwSessionItem *self, guint attention)
{
  gboolean had = self->attention > 0;

  if (self->attention == attention)
    return;
  self->attention = attention;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ATTENTION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ATTENTION_LABEL]);
  if (had != (attention > 0))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_ATTENTION]);
}
