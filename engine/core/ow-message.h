/* ow-message.h: one message of a conversation, as a list-model item.
 *
 * The history is kept exactly as the original OpenWorker kept it: OpenAI-chat
 * shaped JSON objects (role system/user/assistant/tool/notice, content,
 * tool_calls, tool_call_id, reasoning, usage, ts and provider sidecars).
 * OwMessage wraps one such object so surfaces can bind to it; the object is
 * never changed once the message is in a session.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define OW_TYPE_MESSAGE (ow_message_get_type ())
G_DECLARE_FINAL_TYPE (OwMessage, ow_message, OW, MESSAGE, GObject)

/* Takes a reference on @json. */
OwMessage  *ow_message_new       (JsonObject *json);
JsonObject *ow_message_get_json  (OwMessage *self);
const char *ow_message_get_role  (OwMessage *self);
/* The text content: the string, or the text parts joined; "" if none. */
char       *ow_message_dup_text  (OwMessage *self);

/* Helpers to build canonical messages (timestamped now). */
JsonObject *ow_message_json_user      (const char *text);
JsonObject *ow_message_json_tool      (const char *call_id, const char *content);
JsonObject *ow_message_json_notice    (const char *kind, const char *text);
/* Text of a content value (string or parts). */
char       *ow_content_to_text        (JsonNode *content);

G_END_DECLS
