/* fuzz-server-frame.c: libFuzzer target for the session WebSocket's client
 * frames (ow_client_frame_parse).
 *
 * Beyond memory errors, the target checks the parser's promises: a frame
 * is either accepted with the members its type needs, or refused with a
 * sentence; accepted text and attachments respect the limits.
 */
#include <stdint.h>
#include <string.h>

#include "server/ow-ws-frame.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *why = NULL;
  OwClientFrame *frame = ow_client_frame_parse ((const char *) data, size, &why);

  if (frame == NULL)
    {
      g_assert (why != NULL && *why != '\0');
      g_assert (g_utf8_validate (why, -1, NULL));
      g_free (why);
      return 0;
    }
  g_assert (why == NULL);
  switch (frame->type)
    {
    case OW_FRAME_USER_MESSAGE:
      g_assert (frame->text != NULL);
      g_assert (g_utf8_strlen (frame->text, -1) <= OW_WS_MAX_TEXT_CHARS);
      g_assert (*frame->text != '\0' || frame->attachments != NULL);
      g_assert (frame->attachments == NULL
                || json_array_get_length (frame->attachments) <= OW_WS_MAX_ATTACHMENTS);
      break;
    case OW_FRAME_SET_MODE:
      g_assert (frame->mode != NULL);
      break;
    case OW_FRAME_SET_MODEL:
      g_assert (frame->model != NULL && *frame->model != '\0');
      break;
    case OW_FRAME_INTERRUPT:
    case OW_FRAME_RETRY:
      break;
    default:
      g_assert (frame->answer != NULL);
      break;
    }
  ow_client_frame_free (frame);
  return 0;
}
