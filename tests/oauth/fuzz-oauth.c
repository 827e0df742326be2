/* fuzz-oauth.c: libFuzzer target for what OAuth servers send us.
 *
 * The first byte picks the parser: the WWW-Authenticate header, protected
 * resource metadata, authorization server metadata, a token answer or a
 * registration answer; the rest is the input. Beyond memory errors, the
 * target checks the parsers' promises: every URL a metadata parser keeps
 * passes ow_oauth_url_ok(), a metadata result always has its required
 * members, and a token answer is either an error or carries an access token.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/ow-oauth-parse.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_url (const char *url, gboolean required)
{
  if (url == NULL)
    {
      if (required)
        abort ();
      return;
    }
  if (!ow_oauth_url_ok (url))
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;
  GError *error = NULL;

  if (size == 0)
    return 0;
  text = g_strndup ((const char *) data + 1, size - 1);

  switch (data[0] % 5)
    {
    case 0:
      {
        OwOAuthChallenge *c = ow_oauth_challenge_parse (text);
        ow_oauth_challenge_free (c);
        break;
      }
    case 1:
      {
        OwOAuthResourceMetadata *md = ow_oauth_resource_metadata_parse ((const char *) data + 1,
                                                                        (gssize) size - 1, &error);
        if (md != NULL)
          {
            check_url (md->resource, TRUE);
            if (md->authorization_servers[0] == NULL)
              abort ();
            for (char **s = md->authorization_servers; *s != NULL; s++)
              check_url (*s, TRUE);
          }
        else if (error == NULL)
          abort ();
        ow_oauth_resource_metadata_free (md);
        break;
      }
    case 2:
      {
        OwOAuthServerMetadata *md = ow_oauth_server_metadata_parse ((const char *) data + 1, (gssize) size - 1,
                                                                    &error);
        if (md != NULL)
          {
            check_url (md->issuer, TRUE);
            check_url (md->authorization_endpoint, TRUE);
            check_url (md->token_endpoint, TRUE);
            check_url (md->registration_endpoint, FALSE);
          }
        else if (error == NULL)
          abort ();
        ow_oauth_server_metadata_free (md);
        break;
      }
    case 3:
      {
        OwOAuthTokenResponse *tr = ow_oauth_token_response_parse ((const char *) data + 1, (gssize) size - 1,
                                                                  &error);
        if (tr != NULL && tr->error == NULL && (tr->access_token == NULL || tr->expires_in < 0))
          abort ();
        if (tr == NULL && error == NULL)
          abort ();
        ow_oauth_token_response_free (tr);
        break;
      }
    default:
      {
        char *id = NULL, *secret = NULL;
        if (ow_oauth_registration_parse ((const char *) data + 1, (gssize) size - 1, &id, &secret, &error))
          {
            if (id == NULL || *id == '\0')
              abort ();
          }
        else if (error == NULL)
          abort ();
        g_free (id);
        g_free (secret);
        break;
      }
    }
  g_clear_error (&error);
  return 0;
}
