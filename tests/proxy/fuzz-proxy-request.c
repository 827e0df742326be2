/* fuzz-proxy-request.c: libFuzzer target for the proxy's request-head parser.
 *
 * The parser reads bytes a sandboxed program chose, so beyond memory
 * errors (the sanitizers' part) the target checks what the proxy relies
 * on: a complete head ends within the input and the limit and names a
 * host that normalizes to itself; no shorter prefix of it is already
 * complete (so reading more never changes which request it was); a
 * refusal carries a status and a sentence; and the head rebuilt for the
 * upstream server is one request, well framed, whose only blank line is
 * its end (nothing the client wrote can smuggle a second request or a
 * header past the proxy).
 */
#include <stdint.h>
#include <string.h>

#include "sandbox/ow-proxy.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_upstream_head (const OwProxyRequest *req)
{
  g_autofree char *head = ow_proxy_request_upstream_head (req);
  gsize len = strlen (head);
  const char *blank = strstr (head, "\r\n\r\n");

  g_assert (len >= 4);
  /* The blank line that ends the head is the first and only one. */
  g_assert (blank != NULL && blank + 4 == head + len);
  for (gsize i = 0; i < len; i++)
    {
      /* Every line break is CRLF: no bare CR or LF to split a header. */
      if (head[i] == '\n')
        g_assert (i > 0 && head[i - 1] == '\r');
      if (head[i] == '\r')
        g_assert (i + 1 < len && head[i + 1] == '\n');
    }
  g_assert (g_str_has_prefix (head, req->method));
  g_assert (head[strlen (req->method)] == ' ');
  g_assert (req->path[0] == '/');
  g_assert (strstr (head, "\r\nHost: ") != NULL);
  g_assert (g_str_has_suffix (head, "\r\nConnection: close\r\n\r\n"));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  OwProxyRequest req = { 0 };
  OwProxyHeadStatus status = ow_proxy_parse_head ((const char *) data, size, &req);

  switch (status)
    {
    case OW_PROXY_HEAD_COMPLETE:
      {
        g_autofree char *site = NULL;
        g_autofree char *host = NULL;
        guint16 port = 0;
        OwProxyRequest shorter = { 0 };

        g_assert (req.head_len > 0 && req.head_len <= size && req.head_len <= OW_PROXY_MAX_HEAD);
        g_assert (req.method != NULL && req.host != NULL && *req.host != '\0' && req.port > 0);
        g_assert (req.minor_version <= 1);
        g_assert (req.error == NULL);

        /* The host is already in normal form: parsing its text again gives it back. */
        site = ow_site_format (req.host, req.port);
        g_assert (ow_site_parse (site, TRUE, &host, &port, NULL));
        g_assert (g_str_equal (host, req.host) && port == req.port);

        if (req.is_connect)
          g_assert (req.path == NULL);
        else
          check_upstream_head (&req);

        /* One byte less and the head is not complete yet. */
        g_assert (ow_proxy_parse_head ((const char *) data, req.head_len - 1, &shorter)
                  != OW_PROXY_HEAD_COMPLETE);
        ow_proxy_request_clear (&shorter);
      }
      break;

    case OW_PROXY_HEAD_INVALID:
      g_assert (req.error_status == 400 || req.error_status == 431 || req.error_status == 505);
      g_assert (req.error != NULL && g_utf8_validate (req.error, -1, NULL));
      break;

    case OW_PROXY_HEAD_INCOMPLETE:
    default:
      g_assert (size < OW_PROXY_MAX_HEAD);
      g_assert (req.host == NULL && req.error == NULL);
      break;
    }

  ow_proxy_request_clear (&req);
  return 0;
}
