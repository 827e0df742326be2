/* ow-ws-frame.h: what a browser may send on the session WebSocket.
 *
 * A client frame is a JSON object {type, …} (inventory §5.3). This parser
 * turns the text of one frame into a checked OwClientFrame, or into the
 * sentence the server sends back as `input_rejected`: a frame that is not
 * an object, has no or an unknown type, a message over 200,000
 * characters, more than 8 attachments, an attachment of the wrong kind,
 * mime, shape or size. It touches nothing but the text, so it is fuzzed
 * directly.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Limits from the original server (inventory §5.1). */
#define OW_WS_MAX_FRAME_BYTES        (16u * 1024 * 1024)
#define OW_WS_MAX_TEXT_CHARS         200000
#define OW_WS_MAX_ATTACHMENTS        8
#define OW_WS_MAX_ATTACHMENTS_BYTES  15000000
#define OW_WS_MAX_NAME_CHARS         1024
#define OW_WS_MAX_MIME_CHARS         255
#define OW_WS_MAX_IMAGE_URL_CHARS    12000000
#define OW_WS_MAX_PDF_URL_CHARS      15000000
#define OW_WS_MAX_TEXT_ATTACH_CHARS  200000
#define OW_WS_MAX_JSON_DEPTH         32

typedef enum {
  OW_FRAME_USER_MESSAGE,
  OW_FRAME_APPROVAL,
  OW_FRAME_DIRECTORY_RESPONSE,
  OW_FRAME_QUESTION_RESPONSE,
  OW_FRAME_TOOL_RESPONSE,
  OW_FRAME_PLAN_RESPONSE,
  OW_FRAME_TEAM_RESPONSE,
  OW_FRAME_ITEMS_RESPONSE,
  OW_FRAME_INTERRUPT,
  OW_FRAME_RETRY,
  OW_FRAME_SET_MODE,
  OW_FRAME_SET_MODEL,
} OwFrameType;

typedef struct {
  OwFrameType type;
  char       *text;         /* user_message: the text ("" when only attachments) */
  JsonArray  *attachments;  /* user_message: checked copies, or NULL */
  char       *model;        /* user_message (optional) and set_model */
  char       *mode;         /* set_mode */
  char       *call_id;      /* answers: which ask (optional; NULL = the session's only one) */
  JsonObject *answer;       /* answers: what ow_session_host_answer() takes */
} OwClientFrame;

void           ow_client_frame_free  (OwClientFrame *frame);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwClientFrame, ow_client_frame_free)

/* Parses one text frame of @len bytes. NULL with @error_text set (the
 * sentence for `input_rejected`, newly allocated) when it is refused. */
OwClientFrame *ow_client_frame_parse (const char *text, gsize len, char **error_text);

/* Checks attachments as user_message carries them; returns checked copies
 * or NULL with @error_text. Shared with the REST side. */
JsonArray     *ow_attachments_check  (JsonArray *attachments, char **error_text);

G_END_DECLS
