/* ow-attendant.h: whoever answers for the person.
 *
 * When a tool call needs approval, or the agent asks a question or for a
 * folder, the engine asks the session's attendant. A terminal run asks at
 * the terminal; an unattended run answers by fixed rule; the desktop and the
 * loopback API show a card (and, with the governance issue, park it in the
 * inbox). An attendant answers; it never decides policy.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum {
  OW_APPROVAL_ONCE,      /* allow this call */
  OW_APPROVAL_SESSION,   /* allow this tool (or this exact command) for the rest of the session */
  OW_APPROVAL_ALWAYS,    /* a standing rule: the suggested rule, saved, visible and revocable */
  OW_APPROVAL_DENY,
  OW_APPROVAL_READONLY_SESSION,  /* run_shell: allow read-only commands (ow-readonly.h) for the session */
} OwApprovalAnswer;

const char *ow_approval_answer_to_string (OwApprovalAnswer answer);   /* "once", "always_tool", "always_task", "deny", "readonly_session" */

/* What the person is asked to approve. Borrowed for the request. */
typedef struct {
  const char *session_id;
  const char *call_id;
  const char *tool;
  JsonObject *arguments;
  const char *reason;      /* why it needs approval ("requires approval", a safety check, …) */
  const char *risk;        /* "write_local", "exec", … */
  gboolean    safety_check;        /* a safety check asks: no session or standing grant may be offered */
  gboolean    readonly_ok;         /* run_shell: the command is read-only, so "allow read-only commands"
                                    * (OW_APPROVAL_READONLY_SESSION) may be offered */
  const char *suggested_rule;      /* what "always" would save, or NULL when it may not be offered */
  const char *reviewer_reasoning;  /* auto-approve: why the reviewer was unsure, or NULL */
  const char *site;                /* a site card: the "host:port" to let through. The answers then
                                    * mean this one call (ONCE), this session (SESSION) and the
                                    * machine's list (ALWAYS) */
} OwApprovalRequest;

typedef struct {
  OwApprovalAnswer answer;
  char            *note;   /* the person's reason for a denial, or how it was answered */
  gboolean         by_rule; /* answered by rule, nobody was asked */
} OwApprovalReply;

void ow_approval_reply_free (OwApprovalReply *reply);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwApprovalReply, ow_approval_reply_free)

#define OW_TYPE_ATTENDANT (ow_attendant_get_type ())
G_DECLARE_INTERFACE (OwAttendant, ow_attendant, OW, ATTENDANT, GObject)

struct _OwAttendantInterface
{
  GTypeInterface parent_iface;

  void             (*request_approval_async)  (OwAttendant             *self,
                                               const OwApprovalRequest *request,
                                               GCancellable            *cancellable,
                                               GAsyncReadyCallback      callback,
                                               gpointer                 user_data);
  OwApprovalReply *(*request_approval_finish) (OwAttendant *self, GAsyncResult *result, GError **error);

  /* @args: ask_user's arguments. Result: {answer} or {answers:{…}}, plus
   * "answered_by_rule": true when nobody was asked. */
  void             (*ask_async)               (OwAttendant        *self,
                                               const char         *session_id,
                                               const char         *call_id,
                                               JsonObject         *args,
                                               GCancellable       *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer            user_data);
  JsonObject      *(*ask_finish)              (OwAttendant *self, GAsyncResult *result, GError **error);

  /* @args: request_directory's arguments. Result: {granted, path, writable}
   * or {granted:false, reason}. */
  void             (*request_directory_async) (OwAttendant        *self,
                                               const char         *session_id,
                                               const char         *call_id,
                                               JsonObject         *args,
                                               GCancellable       *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer            user_data);
  JsonObject      *(*request_directory_finish) (OwAttendant *self, GAsyncResult *result, GError **error);
  /* Optional. An attendant whose asks outlive the process (the inbox)
   * records that tool call @call_id starts and ends running, so a turn
   * resumed after a restart never runs an approved call twice. */
  gboolean         (*begin_run)               (OwAttendant *self, const char *session_id, const char *call_id,
                                               GError **error);
  void             (*end_run)                 (OwAttendant *self, const char *session_id, const char *call_id);
};

void             ow_attendant_request_approval_async   (OwAttendant             *self,
                                                        const OwApprovalRequest *request,
                                                        GCancellable            *cancellable,
                                                        GAsyncReadyCallback      callback,
                                                        gpointer                 user_data);
OwApprovalReply *ow_attendant_request_approval_finish  (OwAttendant *self, GAsyncResult *result, GError **error);
void             ow_attendant_ask_async                (OwAttendant *self, const char *session_id,
                                                        const char *call_id, JsonObject *args,
                                                        GCancellable *cancellable, GAsyncReadyCallback callback,
                                                        gpointer user_data);
JsonObject      *ow_attendant_ask_finish               (OwAttendant *self, GAsyncResult *result, GError **error);
void             ow_attendant_request_directory_async  (OwAttendant *self, const char *session_id,
                                                        const char *call_id, JsonObject *args,
                                                        GCancellable *cancellable, GAsyncReadyCallback callback,
                                                        gpointer user_data);
JsonObject      *ow_attendant_request_directory_finish (OwAttendant *self, GAsyncResult *result, GError **error);

/* Before a tool call runs: FALSE (with the reason) when it already
 * started once and must not run again. TRUE without begin_run. */
gboolean         ow_attendant_begin_run                (OwAttendant *self, const char *session_id,
                                                        const char *call_id, GError **error);
void             ow_attendant_end_run                  (OwAttendant *self, const char *session_id,
                                                        const char *call_id);

/* The fixed-rule answers used when nobody is there (attendance "auto"). */
#define OW_AUTO_ANSWER "No one is available. Choose the least destructive option that still satisfies the task as written."
JsonObject      *ow_attendant_rule_answer              (JsonObject *ask_args);
JsonObject      *ow_attendant_rule_directory_decline   (gboolean dangerous_mode);

/* An attendant that answers everything by rule: approvals that need a
 * person are refused (never parked), questions get OW_AUTO_ANSWER, folder
 * requests are declined with guidance. */
#define OW_TYPE_RULE_ATTENDANT (ow_rule_attendant_get_type ())
G_DECLARE_FINAL_TYPE (OwRuleAttendant, ow_rule_attendant, OW, RULE_ATTENDANT, GObject)

OwAttendant     *ow_rule_attendant_new                 (gboolean dangerous_mode);

G_END_DECLS
