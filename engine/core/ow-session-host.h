/* ow-session-host.h: live sessions in a long-running process.
 *
 * The desktop app and `openworker-server` keep many sessions open at once;
 * every surface (the GTK window, browser tabs over WebSocket, the inbox,
 * Slack later) talks to them through one OwSessionHost. It does what
 * `openworker run` does for its single session, for any number of them:
 * builds each session's agent (provider, tools, policy, reviewer, sandbox,
 * web tools, per-model settings) when the session first needs it, runs one
 * turn at a time per session, and parks every ask — approvals, questions,
 * folder requests, site cards — in the shared inbox, so the first answer
 * from any surface wins and every surface sees the card close
 * ("approval_resolved" event on the session).
 *
 * An ask outlives the process: when the process stops (or dies) while a
 * turn waits on one, the turn is parked ("turn_parked", then "turn_done"),
 * the ask stays pending, and the turn resumes with the answer after a
 * restart (ow_session_host_resume_parked). Only the person's stop
 * (ow_session_host_interrupt), a new message or deleting the session
 * withdraws a parked ask.
 *
 * Events: every OwEvent of every loaded session is re-emitted as
 * ::session-event, after it is durably in the session's event log; a
 * surface that reconnects replays what it missed from the store
 * (ow_store_event_foreach_since). Changes to the session list (a session
 * created, renamed or deleted; a turn starting or ending; an ask parked
 * or answered) come as ::sessions-changed.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "core/ow-context.h"
#include "core/ow-session.h"
#include "policy/ow-inbox.h"

G_BEGIN_DECLS

#define OW_HOST_ERROR (ow_host_error_quark ())
GQuark ow_host_error_quark (void);

typedef enum {
  OW_HOST_ERROR_NOT_FOUND,   /* no such session */
  OW_HOST_ERROR_BUSY,        /* a turn is already running */
  OW_HOST_ERROR_INVALID,     /* a bad value (mode, model, attachment, …) */
  OW_HOST_ERROR_NO_ASK,      /* nothing is waiting for an answer there */
  OW_HOST_ERROR_ANSWERED,    /* someone else answered first */
} OwHostError;

#define OW_TYPE_SESSION_HOST (ow_session_host_get_type ())
G_DECLARE_FINAL_TYPE (OwSessionHost, ow_session_host, OW, SESSION_HOST, GObject)

/* @origin: recorded on sessions created here ("desktop", "server"). Fails
 * only when the policy cannot be built from the settings. */
OwSessionHost *ow_session_host_new          (OwContext *ctx, const char *origin, GError **error);
OwContext     *ow_session_host_get_context  (OwSessionHost *self);
OwInbox       *ow_session_host_get_inbox    (OwSessionHost *self);

/* Creates and stores a session. @spec->workspace NULL = a scratch folder
 * (<scratch>/<session-id>, see ow_context_dup_scratch_dir()) becomes the
 * primary folder. @spec->model NULL = the default model (may stay NULL:
 * sending then fails with a clear "choose a model" error). Returns a new
 * reference to the loaded session. */
OwSession     *ow_session_host_create       (OwSessionHost *self, const OwSessionSpec *spec, GError **error);
/* The loaded session, loading it from the store the first time. New
 * reference; NOT_FOUND when the store does not have it. */
OwSession     *ow_session_host_get          (OwSessionHost *self, const char *session_id, GError **error);
/* Stops its turn and sandbox and forgets it (the store keeps it). */
void           ow_session_host_unload       (OwSessionHost *self, const char *session_id);
/* Stops it, resolves its pending asks ("session deleted") and deletes it
 * from the store. */
gboolean       ow_session_host_delete       (OwSessionHost *self, const char *session_id, GError **error);

/* Starts a turn with the person's message. @attachments: NULL or an array
 * of {kind: image|pdf|text, name, mime, data_url | text} (limits as the
 * inventory §5.1 lists them: ≤ 8, sizes). Emits "turn_start" … and always
 * ends with "turn_done". BUSY when a turn is running; INVALID for a bad
 * attachment or an empty message. A model or key problem is reported as
 * an "error" event of the turn, not here. */
gboolean       ow_session_host_send         (OwSessionHost *self,
                                             const char    *session_id,
                                             const char    *text,
                                             JsonArray     *attachments,
                                             GError       **error);
/* Re-runs the last person message after a failed or interrupted turn. */
gboolean       ow_session_host_retry        (OwSessionHost *self, const char *session_id, GError **error);
gboolean       ow_session_host_is_running   (OwSessionHost *self, const char *session_id);
/* Stops the running turn, or a parked one: the person's stop withdraws
 * the asks it waits on ("interrupted"). */
void           ow_session_host_interrupt    (OwSessionHost *self, const char *session_id);
/* Live changes; emit "mode_changed" / "model_changed" on the session.
 * The mode may not be dangerously-bypass-approvals from a surface that
 * says so (@allow_dangerous FALSE); the model only while idle. */
gboolean       ow_session_host_set_mode     (OwSessionHost *self, const char *session_id, const char *mode,
                                             gboolean allow_dangerous, GError **error);
gboolean       ow_session_host_set_model    (OwSessionHost *self, const char *session_id, const char *model,
                                             GError **error);
/* How this session reaches a person, until it is unloaded: "attended" and
 * "inbox" (the default) park every ask in the inbox, where every surface
 * shows it; "auto" answers by rule (approvals that need a person are
 * refused, questions get the fixed answer, folders are declined), for an
 * automation run beside attended sessions. BUSY while a turn runs or an ask
 * waits; INVALID for another value. */
gboolean       ow_session_host_set_attendance (OwSessionHost *self, const char *session_id,
                                               const char *attendance, GError **error);
/* Adds a folder (recreating the session's sandbox if it has one). */
gboolean       ow_session_host_add_root     (OwSessionHost *self, const char *session_id, const char *path,
                                             gboolean writable, GError **error);

/* Answers what the session's @call_id is waiting for (NULL = its only
 * pending ask). @answer, by kind:
 *   approval / site: {"decision": "once" | "always_tool" | "always_command"
 *                    | "always_task" | "readonly_session" | "deny"
 *                    (also "allow", "always", "session"), "reason"?}
 *   question:        {"answer": "…"} or {"answers": {…}}
 *   directory:       {"granted": bool, "path"?, "writable"?}
 * @answered_by: "desktop", "browser", "inbox", "cli", … (recorded).
 * NO_ASK when nothing waits; ANSWERED when another surface was first. */
gboolean       ow_session_host_answer       (OwSessionHost *self,
                                             const char    *session_id,
                                             const char    *call_id,
                                             JsonObject    *answer,
                                             const char    *answered_by,
                                             GError       **error);

/* Takes up every turn parked in the store (stopped or killed while an ask
 * waited in the inbox): each waits on its ask again, and goes on with the
 * answer as soon as there is one — from any surface or process. A turn
 * whose ask was answered meanwhile goes on at once. A process that serves
 * sessions calls this once at start; answering an ask also resumes its
 * turn when this was not called. */
void           ow_session_host_resume_parked (OwSessionHost *self);

/* Signals:
 *   ::session-event (const char *session_id, OwEvent *event)
 *   ::sessions-changed ()  — the session list reads differently
 * Loaded sessions with a turn running (char*, borrowed ids). */
GPtrArray     *ow_session_host_dup_running  (OwSessionHost *self);

/* The machine's MCP servers (OwMcpProvider*), started with the host and
 * offered to every session. (transfer none) */
GPtrArray     *ow_session_host_get_mcp_providers (OwSessionHost *self);
/* Applies mcp.json as it now reads: servers removed, disabled or changed
 * stop (and leave every loaded session's tools), new ones start (and join
 * them), unchanged ones keep running. Emits ::mcp-changed when the set
 * changed. Fails, leaving the servers as they are, when the file cannot be
 * read. */
gboolean       ow_session_host_reload_mcp   (OwSessionHost *self, GError **error);
/* Stops server @name and starts it again (NOT_FOUND when none runs under
 * that name). */
gboolean       ow_session_host_restart_mcp  (OwSessionHost *self, const char *name, GError **error);

G_END_DECLS
