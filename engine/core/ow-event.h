/* ow-event.h: the one envelope for everything that happens in a session.
 *
 * {seq, ts, session_id, type, data}: appended to the session's durable event
 * log, emitted on the session, written as a line of events.jsonl in a
 * headless run and sent as a WebSocket frame {type, data, seq}. seq is
 * per session, starts at 1 and has no gaps; ts is milliseconds since the
 * Unix epoch. Type names are the original OpenWorker's (turn_start,
 * assistant_delta, reasoning_delta, assistant_message, tool_proposed,
 * permission_required, tool_started, tool_finished, iteration_end,
 * turn_end, error, interrupted, …).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "ow-json.h"

G_BEGIN_DECLS

typedef struct {
  gint64      seq;         /* 1, 2, 3, … per session */
  gint64      ts;          /* ms since the epoch */
  char       *session_id;
  char       *type;
  JsonObject *data;        /* never NULL */
} OwEvent;

#define OW_TYPE_EVENT (ow_event_get_type ())
GType    ow_event_get_type    (void) G_GNUC_CONST;

OwEvent *ow_event_new         (gint64 seq, gint64 ts, const char *session_id, const char *type, JsonObject *data);
OwEvent *ow_event_copy        (const OwEvent *event);
void     ow_event_free        (OwEvent *event);
/* {"seq":…,"ts":…,"session_id":…,"type":…,"data":{…}} on one line, no newline. */
char    *ow_event_to_json     (const OwEvent *event);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwEvent, ow_event_free)


G_END_DECLS
