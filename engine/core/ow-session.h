/* ow-session.h: one conversation and everything it owns.
 *
 * An OwSession is a GListModel of OwMessage (the history), the session's
 * folders (roots: the primary workspace first, then folders added to it,
 * each read-write or read-only), its model and approval mode, the grants a
 * person gave for this session, its todo list, and its event log. Messages
 * and events are persisted in the state database as they happen (when the
 * session has a store); a surface binds to the list model and listens to
 * the "event" signal.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "core/ow-compaction.h"
#include "core/ow-event.h"
#include "core/ow-message.h"
#include "providers/ow-turn.h"
#include "store/ow-store.h"
#include "tools/ow-executor.h"

G_BEGIN_DECLS

#define OW_TYPE_SESSION (ow_session_get_type ())
G_DECLARE_FINAL_TYPE (OwSession, ow_session, OW, SESSION, GObject)

/* What a new session starts with. */
typedef struct {
  const char *session_id;  /* NULL = a new random id */
  const char *workspace;   /* primary folder (canonicalized), or NULL */
  const char *model;       /* full model id */
  const char *mode;        /* approval mode */
  const char *coworker;    /* "cowork" (default) | "code" | … */
  const char *origin;      /* "cli", "desktop", … */
  const char *title;       /* NULL = derived from the first user message */
} OwSessionSpec;

/* Creates a session; @store may be NULL for a session kept only in memory. */
OwSession  *ow_session_new             (OwStore *store, const OwSessionSpec *spec, GError **error);
/* Loads a stored session with its messages. */
OwSession  *ow_session_load            (OwStore *store, const char *session_id, GError **error);

const char *ow_session_get_id          (OwSession *self);
const char *ow_session_get_workspace   (OwSession *self);
const char *ow_session_get_model       (OwSession *self);
const char *ow_session_get_mode        (OwSession *self);
const char *ow_session_get_coworker    (OwSession *self);
gboolean    ow_session_set_model       (OwSession *self, const char *model, GError **error);
gboolean    ow_session_set_mode        (OwSession *self, const char *mode, GError **error);

/* Roots (OwRoot*), primary first. Borrowed. */
GPtrArray  *ow_session_get_roots       (OwSession *self);
/* Adds a folder (canonicalized; an existing one is updated). Emits "roots-changed". */
gboolean    ow_session_add_root        (OwSession *self, const char *path, gboolean writable,
                                        const char *label, GError **error);

/* Session grants: a tool allowed for the rest of the session, or one exact
 * shell command. */
gboolean    ow_session_has_tool_grant    (OwSession *self, const char *tool);
gboolean    ow_session_has_command_grant (OwSession *self, const char *command);
gboolean    ow_session_add_tool_grant    (OwSession *self, const char *tool, GError **error);
gboolean    ow_session_add_command_grant (OwSession *self, const char *command, GError **error);
/* "Allow read-only commands": run_shell commands ow_readonly_command()
 * accepts run without asking for the rest of the session. */
gboolean    ow_session_has_readonly_grant (OwSession *self);
gboolean    ow_session_add_readonly_grant (OwSession *self, GError **error);

/* Appends a message (the session takes a reference on @msg) and persists it
 * before returning; fails, leaving the history unchanged, when it cannot be
 * saved. */
gboolean    ow_session_append_message  (OwSession *self, JsonObject *msg, GError **error);
JsonObject *ow_session_get_message_json (OwSession *self, guint index);
/* The history as a new array holding references to the message objects. */
JsonArray  *ow_session_dup_history     (OwSession *self);
/* The tool calls of the last assistant message that have no result yet
 * (OwToolCall*, in their order); empty when every call is answered. A turn
 * parked on a person's answer leaves exactly these, and the next turn
 * started without a message continues with them. */
GPtrArray  *ow_session_dup_unanswered_calls (OwSession *self);

/* Records and emits an event. Takes ownership of @data (may be NULL). The
 * event is delivered to "event" handlers even if it could not be saved; the
 * error says why. */
gboolean    ow_session_emit            (OwSession  *self,
                                        const char *type,
                                        JsonObject *data,
                                        GError    **error);
gint64      ow_session_get_last_seq    (OwSession *self);

/* The todo list (todo_write replaces it). Borrowed. */
/* Where the history was compacted, or NULL; see core/ow-compaction.h. */
const OwCompactionState *ow_session_get_compaction (OwSession *self);
/* Saves @state (copied; NULL clears it) in the session's row. */
gboolean    ow_session_set_compaction  (OwSession *self, const OwCompactionState *state, GError **error);
JsonArray  *ow_session_get_todos       (OwSession *self);
void        ow_session_set_todos       (OwSession *self, JsonArray *todos);

G_END_DECLS
