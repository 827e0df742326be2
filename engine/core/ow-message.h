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
/* The first line of a stored message content (a string, or JSON content
 * parts when it starts with '[': the first text part), stripped and, when
 * longer than @max_chars characters, cut at a word boundary with "…"
 * (ow_text_cut_at_word); NULL when there is no valid text. For titles of
 * sessions that have none. */
char       *ow_message_content_first_line (const char *content, glong max_chars);
/* @text itself when it has at most @max_chars characters, else its
 * longest head of whole words that fits with a final "…" (a first word
 * longer than half of @max_chars is cut inside). */
char       *ow_text_cut_at_word (const char *text, glong max_chars);

/* Helpers to build canonical messages (timestamped now). */
JsonObject *ow_message_json_user      (const char *text);
/* A user message with attachments (@attachments: NULL or an array of
 * {kind: image|pdf|text, name, mime, data_url | text}), as the original's
 * limits allow: at most 8; text ≤ 200,000 characters; an image a
 * data:image/…;base64, URL ≤ 12,000,000 characters; a PDF a
 * data:application/pdf;base64, URL ≤ 15,000,000. Content becomes parts:
 * the text first, then image_url / file / text parts. Fails with
 * G_IO_ERROR_INVALID_ARGUMENT and a sentence naming the problem. */
JsonObject *ow_message_json_user_parts (const char *text, JsonArray *attachments, GError **error);
JsonObject *ow_message_json_tool      (const char *call_id, const char *content);
JsonObject *ow_message_json_notice    (const char *kind, const char *text);
JsonObject *ow_message_json_text_part (const char *text);
/* Text of a content value (string or parts). */
char       *ow_content_to_text        (JsonNode *content);

G_END_DECLS
