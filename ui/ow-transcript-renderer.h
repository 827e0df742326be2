/* ow-transcript-renderer.h: a session's events as page updates.
 *
 * The transcript is a pure function of the session's event log. The
 * renderer reads events — live ones as they are emitted, or the whole log
 * when a session is reopened — and produces operations on the transcript
 * page: append an HTML fragment, replace one, set a block's content, add or
 * remove a class. Live rendering and replay run the same code, so a
 * reopened session looks exactly as it did.
 *
 * It is GTK-free: the fragments are built with the output-encoding module
 * (every outside string escaped) and the markdown renderer (cmark-gfm in
 * safe mode), and the tests read them as text. Streamed text is coalesced:
 * a block's markdown is rendered once per batch of operations taken, not
 * once per delta.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _OwTranscriptRenderer OwTranscriptRenderer;

OwTranscriptRenderer *ow_transcript_renderer_new          (void);
void                  ow_transcript_renderer_free         (OwTranscriptRenderer *self);

/* Feeds one event. Events at or below the last seq seen are ignored, so
 * live events that the replay already covered do no harm. */
void                  ow_transcript_renderer_feed         (OwTranscriptRenderer *self,
                                                           gint64                seq,
                                                           gint64                ts_ms,
                                                           const char           *type,
                                                           JsonObject           *data);
gint64                ow_transcript_renderer_get_last_seq (OwTranscriptRenderer *self);
/* Whether operations are waiting to be taken. */
gboolean              ow_transcript_renderer_has_ops      (OwTranscriptRenderer *self);
/* The operations so far, in order, and forgets them; streamed blocks are
 * rendered now. Each is {op, …}:
 *   {"op":"append", "parent": id | null, "html"}   null = the page's root
 *   {"op":"replace", "id", "html"}                  the element itself
 *   {"op":"set", "id", "html"}                      its content
 *   {"op":"class", "id", "add"?, "remove"?}
 * Returns NULL when there are none. */
JsonArray            *ow_transcript_renderer_take_ops     (OwTranscriptRenderer *self);
/* Whether a turn is running as far as the events tell. */
gboolean              ow_transcript_renderer_is_working   (OwTranscriptRenderer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwTranscriptRenderer, ow_transcript_renderer_free)

G_END_DECLS
