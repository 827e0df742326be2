/* ow-attendant.c: the OwAttendant interface and the rule attendant. */
#define G_LOG_DOMAIN "ow-attendant"

#include "policy/ow-attendant.h"

G_DEFINE_INTERFACE (OwAttendant, ow_attendant, G_TYPE_OBJECT)

static void
ow_attendant_default_init (OwAttendantInterface *iface)
{
}

const char *
ow_approval_answer_to_string (OwApprovalAnswer answer)
{
  switch (answer)
    {
    case OW_APPROVAL_ONCE: return "once";
    case OW_APPROVAL_SESSION: return "always_tool";
    case OW_APPROVAL_ALWAYS: return "always_task";
    case OW_APPROVAL_DENY: return "deny";
    case OW_APPROVAL_READONLY_SESSION: return "readonly_session";
    default: return "deny";
    }
}

void
ow_approval_reply_free (OwApprovalReply *reply)
{
  if (reply == NULL)
    return;
  g_free (reply->note);
  g_free (reply);
}

void
ow_attendant_request_approval_async (OwAttendant             *self,
                                     const OwApprovalRequest *request,
                                     GCancellable            *cancellable,
                                     GAsyncReadyCallback      callback,
                                     gpointer                 user_data)
{
  OW_ATTENDANT_GET_IFACE (self)->request_approval_async (self, request, cancellable, callback, user_data);
}

OwApprovalReply *
ow_attendant_request_approval_finish (OwAttendant *self, GAsyncResult *result, GError **error)
{
  return OW_ATTENDANT_GET_IFACE (self)->request_approval_finish (self, result, error);
}

void
ow_attendant_ask_async (OwAttendant *self, const char *session_id, const char *call_id, JsonObject *args,
                        GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  OW_ATTENDANT_GET_IFACE (self)->ask_async (self, session_id, call_id, args, cancellable, callback, user_data);
}

JsonObject *
ow_attendant_ask_finish (OwAttendant *self, GAsyncResult *result, GError **error)
{
  return OW_ATTENDANT_GET_IFACE (self)->ask_finish (self, result, error);
}

void
ow_attendant_request_directory_async (OwAttendant *self, const char *session_id, const char *call_id,
                                      JsonObject *args, GCancellable *cancellable, GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  OW_ATTENDANT_GET_IFACE (self)->request_directory_async (self, session_id, call_id, args, cancellable, callback,
                                                          user_data);
}

JsonObject *
ow_attendant_request_directory_finish (OwAttendant *self, GAsyncResult *result, GError **error)
{
  return OW_ATTENDANT_GET_IFACE (self)->request_directory_finish (self, result, error);
}

gboolean
ow_attendant_begin_run (OwAttendant *self, const char *session_id, const char *call_id, GError **error)
{
  OwAttendantInterface *iface = OW_ATTENDANT_GET_IFACE (self);

  return iface->begin_run == NULL || iface->begin_run (self, session_id, call_id, error);
}

void
ow_attendant_end_run (OwAttendant *self, const char *session_id, const char *call_id)
{
  OwAttendantInterface *iface = OW_ATTENDANT_GET_IFACE (self);

  if (iface->end_run != NULL)
    iface->end_run (self, session_id, call_id);
}

JsonObject *
ow_attendant_rule_answer (JsonObject *ask_args)
{
  JsonObject *r = json_object_new ();

  json_object_set_string_member (r, "answer", OW_AUTO_ANSWER);
  json_object_set_boolean_member (r, "answered_by_rule", TRUE);
  return r;
}

JsonObject *
ow_attendant_rule_directory_decline (gboolean dangerous_mode)
{
  JsonObject *r = json_object_new ();

  json_object_set_boolean_member (r, "granted", FALSE);
  json_object_set_string_member (r, "reason",
    dangerous_mode
      ? "No one is available to grant folders. Work inside the session's folders, or use the shell for paths "
        "outside them. If the task cannot continue without the folder, stop and say what is missing."
      : "No one is available to grant folders. Work inside the session's folders. If the task cannot "
        "continue without the folder, stop and say what is missing.");
  json_object_set_boolean_member (r, "answered_by_rule", TRUE);
  return r;
}

/* ---- The rule attendant ------------------------------------------------- */

struct _OwRuleAttendant
{
  GObject  parent_instance;
  gboolean dangerous_mode;   /* whether the shell may reach outside the folders (changes the guidance) */
};

static void rule_iface_init (OwAttendantInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwRuleAttendant, ow_rule_attendant, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_ATTENDANT, rule_iface_init))

static void
rule_request_approval_async (OwAttendant *self, const OwApprovalRequest *request, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  OwApprovalReply *reply = g_new0 (OwApprovalReply, 1);

  reply->answer = OW_APPROVAL_DENY;
  reply->by_rule = TRUE;
  reply->note = g_strdup ("no one is present to approve it, so it was refused");
  g_task_return_pointer (task, reply, (GDestroyNotify) ow_approval_reply_free);
}

static OwApprovalReply *
rule_request_approval_finish (OwAttendant *self, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
rule_ask_async (OwAttendant *self, const char *session_id, const char *call_id, JsonObject *args,
                GCancellable *cancellable,
                GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_task_return_pointer (task, ow_attendant_rule_answer (args), (GDestroyNotify) json_object_unref);
}

static JsonObject *
rule_finish_object (OwAttendant *self, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
rule_request_directory_async (OwAttendant *self, const char *session_id, const char *call_id, JsonObject *args,
                              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_task_return_pointer (task, ow_attendant_rule_directory_decline (OW_RULE_ATTENDANT (self)->dangerous_mode),
                         (GDestroyNotify) json_object_unref);
}

static void
rule_iface_init (OwAttendantInterface *iface)
{
  iface->request_approval_async = rule_request_approval_async;
  iface->request_approval_finish = rule_request_approval_finish;
  iface->ask_async = rule_ask_async;
  iface->ask_finish = rule_finish_object;
  iface->request_directory_async = rule_request_directory_async;
  iface->request_directory_finish = rule_finish_object;
}

static void
ow_rule_attendant_class_init (OwRuleAttendantClass *klass)
{
}

static void
ow_rule_attendant_init (OwRuleAttendant *self)
{
}

OwAttendant *
ow_rule_attendant_new (gboolean dangerous_mode)
{
  OwRuleAttendant *self = g_object_new (OW_TYPE_RULE_ATTENDANT, NULL);

  self->dangerous_mode = dangerous_mode;
  return OW_ATTENDANT (self);
}
