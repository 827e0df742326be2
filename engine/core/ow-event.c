/* ow-event.c: the event envelope (see ow-event.h). */
#define G_LOG_DOMAIN "ow-event"

#include "core/ow-event.h"

G_DEFINE_BOXED_TYPE (OwEvent, ow_event, ow_event_copy, ow_event_free)

OwEvent *
ow_event_new (gint64 seq, gint64 ts, const char *session_id, const char *type, JsonObject *data)
{
  OwEvent *e = g_new0 (OwEvent, 1);

  e->seq = seq;
  e->ts = ts;
  e->session_id = g_strdup (session_id);
  e->type = g_strdup (type);
  e->data = data != NULL ? json_object_ref (data) : json_object_new ();
  return e;
}

OwEvent *
ow_event_copy (const OwEvent *event)
{
  return ow_event_new (event->seq, event->ts, event->session_id, event->type, event->data);
}

void
ow_event_free (OwEvent *event)
{
  if (event == NULL)
    return;
  g_free (event->session_id);
  g_free (event->type);
  json_object_unref (event->data);
  g_free (event);
}

char *
ow_event_to_json (const OwEvent *event)
{
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_int_member (obj, "seq", event->seq);
  json_object_set_int_member (obj, "ts", event->ts);
  json_object_set_string_member (obj, "session_id", event->session_id);
  json_object_set_string_member (obj, "type", event->type);
  json_object_set_object_member (obj, "data", json_object_ref (event->data));
  return ow_json_object_to_string (obj);
}
