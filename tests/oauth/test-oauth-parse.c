/* test-oauth-parse.c: the parsers of what OAuth servers send, rule by rule.
 *
 * WWW-Authenticate (RFC 9110 §11.6.1 syntax, RFC 6750 and RFC 9728
 * parameters), the metadata documents and token answers, the URL rule and
 * the canonical resource form. No network: the end-to-end flows are in
 * test-oauth.c.
 */
#include <string.h>

#include "net/ow-oauth.h"
#include "net/ow-oauth-parse.h"
#include "ow-error.h"

static void
test_challenge (void)
{
  struct {
    const char *header, *rm, *scope, *error;
  } cases[] = {
    { "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\", scope=\"files:read\"",
      "https://mcp.example.com/.well-known/oauth-protected-resource", "files:read", NULL },
    /* Another scheme first, with a token68; case-insensitive scheme and names. */
    { "Negotiate abc==, bearer Scope=\"a b\", ERROR=insufficient_scope", NULL, "a b", "insufficient_scope" },
    /* Another scheme first, with parameters of its own. */
    { "Basic realm=\"x\", charset=\"UTF-8\", Bearer error=\"invalid_token\"", NULL, NULL, "invalid_token" },
    /* Escapes inside a quoted string. */
    { "Bearer scope=\"say \\\"hi\\\"\"", NULL, "say \"hi\"", NULL },
    /* The first of a repeated parameter wins. */
    { "Bearer scope=\"first\", scope=\"second\"", NULL, "first", NULL },
    /* A bare scheme. */
    { "Bearer", NULL, NULL, NULL },
    /* Loose spacing. */
    { "Bearer   scope = read ,error=x", NULL, "read", "x" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(OwOAuthChallenge) c = ow_oauth_challenge_parse (cases[i].header);

      g_assert_nonnull (c);
      g_assert_cmpstr (c->resource_metadata, ==, cases[i].rm);
      g_assert_cmpstr (c->scope, ==, cases[i].scope);
      g_assert_cmpstr (c->error, ==, cases[i].error);
    }

  /* No Bearer challenge at all, and an unclosed quote. */
  g_assert_null (ow_oauth_challenge_parse ("Basic realm=\"x\""));
  g_assert_null (ow_oauth_challenge_parse (NULL));
  g_assert_null (ow_oauth_challenge_parse (""));
  {
    g_autoptr(OwOAuthChallenge) c = ow_oauth_challenge_parse ("Bearer scope=\"open, error=x");
    g_assert_nonnull (c);
    g_assert_null (c->scope);
    g_assert_null (c->error);
  }
}

static void
test_urls (void)
{
  const char *ok[] = { "https://as.example.com", "https://as.example.com/t1?x=1", "http://127.0.0.1:8080/cb",
                       "http://localhost/cb", "http://[::1]:9/cb", "http://127.1.2.3/" };
  const char *bad[] = { "http://as.example.com/", "ftp://as.example.com/", "https://as.example.com/#frag",
                        "https://user:pw@as.example.com/", "javascript:alert(1)", "not a url", "https:///path",
                        "http://10.0.0.1/" };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    g_assert_true (ow_oauth_url_ok (ok[i]));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (ow_oauth_url_ok (bad[i]));
}

static void
test_canonical (void)
{
  struct { const char *in, *out; } cases[] = {
    { "HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp" },
    { "https://mcp.example.com:443/", "https://mcp.example.com" },
    { "https://mcp.example.com", "https://mcp.example.com" },
    { "https://mcp.example.com:8443/a/b", "https://mcp.example.com:8443/a/b" },
    { "http://127.0.0.1:80/mcp", "http://127.0.0.1/mcp" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *c = ow_oauth_canonical_resource (cases[i].in);
      g_assert_cmpstr (c, ==, cases[i].out);
    }
  g_assert_null (ow_oauth_canonical_resource ("http://mcp.example.com/mcp"));
  g_assert_null (ow_oauth_canonical_resource ("https://mcp.example.com/mcp#x"));
}

static void
test_metadata (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwOAuthResourceMetadata) prm = NULL;
  g_autoptr(OwOAuthServerMetadata) as = NULL;

  prm = ow_oauth_resource_metadata_parse (
    "{\"resource\":\"https://r.example\",\"authorization_servers\":[\"http://evil.example\",7,\"https://as.example\"],"
    "\"scopes_supported\":[\"a\",\"b\"]}", -1, &error);
  g_assert_no_error (error);
  /* Servers that are not https are dropped; the rest keep their order. */
  g_assert_cmpstr (prm->authorization_servers[0], ==, "https://as.example");
  g_assert_null (prm->authorization_servers[1]);
  g_assert_cmpstr (prm->scopes_supported[1], ==, "b");

  g_assert_null (ow_oauth_resource_metadata_parse ("{\"resource\":\"https://r.example\"}", -1, &error));
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY);
  g_clear_error (&error);
  g_assert_null (ow_oauth_resource_metadata_parse ("[1]", -1, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  as = ow_oauth_server_metadata_parse (
    "{\"issuer\":\"https://as.example\",\"authorization_endpoint\":\"https://as.example/a\","
    "\"token_endpoint\":\"https://as.example/t\",\"registration_endpoint\":\"http://as.example/r\","
    "\"code_challenge_methods_supported\":[\"S256\"],\"client_id_metadata_document_supported\":true}", -1, &error);
  g_assert_no_error (error);
  /* A registration endpoint that is not https is as good as none. */
  g_assert_null (as->registration_endpoint);
  g_assert_true (as->client_id_metadata_document_supported);
  g_assert_false (as->authorization_response_iss_parameter_supported);
  g_assert_null (as->token_endpoint_auth_methods_supported);

  g_assert_null (ow_oauth_server_metadata_parse (
    "{\"issuer\":\"https://as.example\",\"authorization_endpoint\":\"https://as.example/a\"}", -1, &error));
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY);
}

static void
test_token_answers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwOAuthTokenResponse) ok = NULL, str = NULL, err = NULL;

  ok = ow_oauth_token_response_parse ("{\"access_token\":\"a\",\"expires_in\":60,\"refresh_token\":\"r\"}", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ok->access_token, ==, "a");
  g_assert_cmpstr (ok->refresh_token, ==, "r");
  g_assert_cmpint (ok->expires_in, ==, 60);

  /* expires_in as a string, as some servers send it; a negative one is none. */
  str = ow_oauth_token_response_parse ("{\"access_token\":\"a\",\"expires_in\":\"-5\"}", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (str->expires_in, ==, 0);
  g_assert_null (str->refresh_token);

  err = ow_oauth_token_response_parse ("{\"error\":\"invalid_grant\",\"error_description\":\"gone\"}", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (err->error, ==, "invalid_grant");
  g_assert_null (err->access_token);

  g_assert_null (ow_oauth_token_response_parse ("{\"token_type\":\"Bearer\"}", -1, &error));
  g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED);
  g_clear_error (&error);

  {
    g_autofree char *id = NULL, *secret = NULL;
    g_assert_true (ow_oauth_registration_parse ("{\"client_id\":\"c\",\"client_secret\":\"\"}", -1, &id, &secret,
                                                &error));
    g_assert_cmpstr (id, ==, "c");
    g_assert_null (secret);
    g_assert_false (ow_oauth_registration_parse ("{\"client_secret\":\"s\"}", -1, &id, &secret, &error));
    g_assert_error (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/oauth/parse/challenge", test_challenge);
  g_test_add_func ("/ow/oauth/parse/urls", test_urls);
  g_test_add_func ("/ow/oauth/parse/canonical", test_canonical);
  g_test_add_func ("/ow/oauth/parse/metadata", test_metadata);
  g_test_add_func ("/ow/oauth/parse/token-answers", test_token_answers);
  return g_test_run ();
}
