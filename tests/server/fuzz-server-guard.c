/* fuzz-server-guard.c: libFuzzer target for the front door's header checks.
 *
 * The input is taken as a Host, an Origin, an Authorization value and a
 * WebSocket protocol offer in turn. Beyond memory errors: nothing that is
 * not loopback with our port passes the Host check, a bearer token found
 * lies inside the header, an offer passes only with the exact token, and
 * the nesting check agrees with a plain count when no strings are
 * involved.
 */
#include <stdint.h>
#include <string.h>

#include "ow-json.h"

#include "server/ow-server-guard.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const char *TOKEN = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  gsize len = 0;
  const char *bearer;

  if (ow_server_host_allowed (text, 8765))
    {
      /* Whatever passed names loopback and the port. */
      g_assert (g_str_has_suffix (text, ":8765"));
      g_assert (g_ascii_strncasecmp (text, "localhost:", 10) == 0 || g_str_has_prefix (text, "127.")
                || g_str_has_prefix (text, "[::1]:"));
    }
  if (ow_server_origin_allowed (text, NULL))
    {
      /* Host names compare without case: "http://LocalHost:5173" is loopback. */
      g_autofree char *lower = g_ascii_strdown (text, -1);
      g_assert (strstr (lower, "localhost") != NULL || strstr (lower, "127.0.0.1") != NULL
                || strstr (lower, "[::1]") != NULL);
    }
  bearer = ow_server_bearer_token (text, &len);
  if (bearer != NULL)
    g_assert (bearer >= text && bearer + len <= text + strlen (text) && len > 0);
  if (ow_server_ws_protocol_ok (text, TOKEN))
    g_assert (strstr (text, TOKEN) != NULL && strstr (text, "openworker") != NULL);
  if (ow_server_session_id_valid (text))
    g_assert (strchr (text, '/') == NULL && text[0] != '.');
  {
    guint depth = 0, max = 0;
    gboolean quoted = FALSE;
    for (gsize i = 0; i < size; i++)
      {
        if (data[i] == '"')
          quoted = TRUE;
        if (data[i] == '[' || data[i] == '{')
          {
            depth++;
            max = MAX (max, depth);
          }
        else if ((data[i] == ']' || data[i] == '}') && depth > 0)
          depth--;
      }
    if (!quoted)
      g_assert (ow_json_depth_ok ((const char *) data, size, 8) == (max <= 8));
  }
  return 0;
}
