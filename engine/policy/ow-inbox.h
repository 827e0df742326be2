/* ow-inbox.h: where asks wait for a person.
 *
 * With attendance "inbox", an approval, a question or a folder request is
 * parked here — durably, in openworker.db — until a person answers it from
 * any surface: the desktop, the browser, the command line, another machine.
 * The first answer wins; a later one is told the item was already
 * answered. An item is keyed by (session, tool call), so a run that
 * restarts finds its earlier asks (and their answers) instead of asking
 * twice. Another process's answer is noticed within a quarter second.
 *
 * An item is written before any surface hears of it, and it outlives the
 * process that parked it: a clean stop leaves it pending like a crash does,
 * and the turn waiting on it resumes when the process starts again. Only a
 * person's stop (or deleting the session) withdraws it, ow_inbox_withdraw().
 * An approved call records when it starts running, so it runs once.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "policy/ow-attendant.h"
#include "store/ow-store.h"

G_BEGIN_DECLS

typedef struct {
  char       *id;
  char       *session_id;
  char       *call_id;
  char       *kind;         /* "approval" | "question" | "directory" */
  char       *title;
  char       *body;
  JsonObject *data;         /* the request's details */
  char       *state;        /* "pending" | "resolved" */
  char       *resolution;   /* the answer (JSON text or a word), when resolved */
  char       *resolved_by;
  char       *created_at;
  char       *resolved_at;
  char       *execution;    /* the call: NULL (waits for an answer, or for a turn to act on it)
                             * | "started" (an approved call began to run) | "finished" (it has its result) */
} OwInboxItem;

void ow_inbox_item_free (OwInboxItem *item);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwInboxItem, ow_inbox_item_free)

#define OW_TYPE_INBOX (ow_inbox_get_type ())
G_DECLARE_FINAL_TYPE (OwInbox, ow_inbox, OW, INBOX, GObject)

OwInbox     *ow_inbox_new         (OwStore *store);
/* Lets go of the store (before it is closed): a wait still pending then
 * fails, and nothing more is written. */
void         ow_inbox_close       (OwInbox *self);
/* Parks an item; if (session, call) is already there, returns that one. */
OwInboxItem *ow_inbox_add         (OwInbox *self, const char *session_id, const char *call_id, const char *kind,
                                   const char *title, const char *body, JsonObject *data, GError **error);
OwInboxItem *ow_inbox_get         (OwInbox *self, const char *id, GError **error);
/* The item of (session, call), or NULL (no error) when there is none. */
OwInboxItem *ow_inbox_find        (OwInbox *self, const char *session_id, const char *call_id, GError **error);
/* Sessions with items not settled yet (execution NULL): the ones whose
 * turns wait on the inbox or on acting on its answer. */
GStrv        ow_inbox_dup_unsettled_sessions (OwInbox *self, GError **error);
/* Answers an item. FALSE with OW_POLICY_ERROR when it was already answered
 * (first answer wins) or does not exist. */
gboolean     ow_inbox_resolve     (OwInbox *self, const char *id, const char *resolution, const char *resolved_by,
                                   GError **error);
/* Answers every pending item of @session_id as withdrawn — a denial, or an
 * error for a question or a folder — with @why as who answered ("interrupted"
 * when the person stopped the turn, "session deleted"). A turn that is
 * merely stopped with its process keeps its items pending instead. */
void         ow_inbox_withdraw    (OwInbox *self, const char *session_id, const char *why);
/* Marks the start of running (session, call): TRUE for the first caller,
 * and when the call never was an inbox item; FALSE when it was started
 * before — it ran, or OpenWorker stopped while it ran — so it must not run
 * again. An error (the database) also says FALSE: better not run than
 * twice. */
gboolean     ow_inbox_begin_run   (OwInbox *self, const char *session_id, const char *call_id, GError **error);
/* (session, call) has its result in the session: the item is settled. */
void         ow_inbox_end_run     (OwInbox *self, const char *session_id, const char *call_id);
/* Items, newest first (OwInboxItem*); @pending_only leaves out answered ones. */
GPtrArray   *ow_inbox_list        (OwInbox *self, gboolean pending_only, GError **error);
/* Waits for the item's answer (the resolution text). */
void         ow_inbox_wait_async  (OwInbox *self, const char *id, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data);
char        *ow_inbox_wait_finish (OwInbox *self, GAsyncResult *result, GError **error);

/* An attendant that parks every ask in @inbox and waits for a person. */
OwAttendant *ow_inbox_attendant_new (OwInbox *inbox);

G_END_DECLS
