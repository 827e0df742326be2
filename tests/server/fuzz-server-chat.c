/* fuzz-server-chat.c: libFuzzer target for POST /v1/chat/completions
 * bodies (ow_chat_request_parse).
 *
 * Beyond memory errors: an accepted request has at least one message,
 * every message has a known role (developer turned into system) and no
 * "_" member survives; a refused one says why.
 */
#include <stdint.h>
#include <string.h>

#include "server/ow-chat-request.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *why = NULL;
  OwChatRequest *req = ow_chat_request_parse ((const char *) data, size, &why);
  static const char *const roles[] = { "system", "user", "assistant", "tool", NULL };

  if (req == NULL)
    {
      g_assert (why != NULL && *why != '\0');
      g_free (why);
      return 0;
    }
  g_assert (json_array_get_length (req->messages) > 0);
  g_assert (json_array_get_length (req->messages) <= OW_CHAT_MAX_MESSAGES);
  for (guint i = 0; i < json_array_get_length (req->messages); i++)
    {
      JsonObject *m = json_array_get_object_element (req->messages, i);
      GList *members = json_object_get_members (m);
      g_assert (g_strv_contains (roles, json_object_get_string_member (m, "role")));
      for (GList *l = members; l != NULL; l = l->next)
        g_assert (((const char *) l->data)[0] != '_');
      g_list_free (members);
    }
  g_assert (req->tools == NULL || json_array_get_length (req->tools) <= OW_CHAT_MAX_TOOLS);
  ow_chat_request_free (req);
  return 0;
}
