/* ow-session-title.h: a short title for a session, made by its model.
 *
 * As the original does (inventory: session_title): after a turn ends, a
 * session that no person renamed and no model titled yet gets one
 * non-streaming call to its own model, with the first (at most two) user
 * messages, asking for a 4–5 word title. A greeting is answered
 * "small-talk" and titled on a later turn, with both openers. Until then,
 * and whenever the call fails, the title is the first line of the first
 * message cut at a word boundary (ow_message_content_first_line).
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define OW_SESSION_TITLE_MAX_CHARS   60   /* what is stored */
#define OW_SESSION_TITLE_MAX_REPLY   80   /* a longer reply is not a title */
#define OW_SESSION_TITLE_MAX_TOKENS  64
#define OW_SESSION_TITLE_ATTEMPTS    2    /* per session and process */

extern const char *const ow_session_title_prompt;

/* The request's messages: the system prompt and one user message holding
 * @openers (the first user texts, at most two). */
JsonArray *ow_session_title_messages   (const char *const *openers);

/* The title in the model's @reply: quotes stripped, whitespace collapsed,
 * cut to OW_SESSION_TITLE_MAX_CHARS at a word; NULL for "small-talk", an
 * empty reply, or one longer than OW_SESSION_TITLE_MAX_REPLY. */
char      *ow_session_title_from_reply (const char *reply);

G_END_DECLS
