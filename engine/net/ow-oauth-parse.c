/* ow-oauth-parse.c: parsers for what OAuth servers send us.
 *
 * Everything here is outside data: metadata documents and token answers
 * come from servers the person named, the WWW-Authenticate header from
 * the resource itself. The parsers accept what the RFCs allow, refuse
 * what would mislead a sign-in (a metadata document without its required
 * members, an endpoint that is neither https nor loopback), and never
 * crash on anything; tests/net/fuzz-oauth.c holds them to that.
 */
#define G_LOG_DOMAIN "ow-oauth"

#include "net/ow-oauth-parse.h"

#include <gio/gio.h>
#include <string.h>

#include "ow-error.h"
#include "ow-json.h"

/* ---- WWW-Authenticate --------------------------------------------------- */

/* RFC 9110 §5.6.2 tchar. */
static gboolean
is_tchar (char c)
{
  return g_ascii_isalnum (c) || (c != '\0' && strchr ("!#$%&'*+-.^_`|~", c) != NULL);
}

static const char *
skip_ows (const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

/* Reads a token at @p into *@out; returns the end, or NULL if none. */
static const char *
read_token (const char *p, char **out)
{
  const char *start = p;

  while (is_tchar (*p))
    p++;
  if (p == start)
    return NULL;
  *out = g_strndup (start, (gsize) (p - start));
  return p;
}

/* Reads a quoted-string at @p (which is '"'); returns the end, or NULL
 * when it does not close. */
static const char *
read_quoted (const char *p, char **out)
{
  GString *s = g_string_new (NULL);

  p++;
  while (*p != '\0' && *p != '"')
    {
      if (*p == '\\' && p[1] != '\0')
        p++;
      g_string_append_c (s, *p);
      p++;
    }
  if (*p != '"')
    {
      g_string_free (s, TRUE);
      return NULL;
    }
  *out = g_string_free (s, FALSE);
  return p + 1;
}

static void
set_param (OwOAuthChallenge *c, const char *name, char *value)
{
  char **slot = NULL;

  if (g_ascii_strcasecmp (name, "resource_metadata") == 0)
    slot = &c->resource_metadata;
  else if (g_ascii_strcasecmp (name, "scope") == 0)
    slot = &c->scope;
  else if (g_ascii_strcasecmp (name, "error") == 0)
    slot = &c->error;
  else if (g_ascii_strcasecmp (name, "error_description") == 0)
    slot = &c->error_description;
  /* The first of a repeated parameter wins (RFC 9110: each "MUST only
   * occur once"); a second one is ignored rather than trusted. */
  if (slot != NULL && *slot == NULL)
    *slot = value;
  else
    g_free (value);
}

OwOAuthChallenge *
ow_oauth_challenge_parse (const char *header)
{
  const char *p = header;
  OwOAuthChallenge *found = NULL;

  if (header == NULL)
    return NULL;

  /* challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ], and a
   * header is a comma-separated list of challenges. A new challenge
   * starts where a token is followed by something other than '='. */
  while (*p != '\0')
    {
      g_autofree char *scheme = NULL;
      OwOAuthChallenge *current = NULL;
      const char *q;

      p = skip_ows (p);
      while (*p == ',' || *p == ' ' || *p == '\t')
        p++;
      if (*p == '\0')
        break;
      q = read_token (p, &scheme);
      if (q == NULL)
        {
          p++;  /* junk: step over it */
          continue;
        }
      p = q;
      if (found == NULL && g_ascii_strcasecmp (scheme, "Bearer") == 0)
        current = found = g_new0 (OwOAuthChallenge, 1);

      /* Parameters until the next challenge. */
      for (;;)
        {
          g_autofree char *name = NULL;
          char *value = NULL;
          const char *save;

          p = skip_ows (p);
          while (*p == ',' || *p == ' ' || *p == '\t')
            p++;
          if (*p == '\0')
            break;
          save = p;
          q = read_token (p, &name);
          if (q == NULL)
            {
              p++;
              continue;
            }
          q = skip_ows (q);
          if (*q != '=')
            {
              /* A token68 ends in '=' padding; anything else is the next scheme. */
              p = save;
              break;
            }
          q = skip_ows (q + 1);
          if (*q == '"')
            q = read_quoted (q, &value);
          else if (*q == '=' || *q == ',' || *q == '\0')
            {
              /* token68 padding ("abc==") or an empty value. */
              while (*q == '=')
                q++;
              p = q;
              continue;
            }
          else
            q = read_token (q, &value);
          if (q == NULL)
            {
              g_free (value);
              return found;  /* an unclosed quote: nothing after it can be trusted */
            }
          p = q;
          if (current != NULL)
            set_param (current, name, value);
          else
            g_free (value);
        }
    }
  return found;
}

void
ow_oauth_challenge_free (OwOAuthChallenge *c)
{
  if (c == NULL)
    return;
  g_free (c->resource_metadata);
  g_free (c->scope);
  g_free (c->error);
  g_free (c->error_description);
  g_free (c);
}

/* ---- URLs --------------------------------------------------------------- */

gboolean
ow_oauth_url_ok (const char *url)
{
  g_autoptr(GUri) uri = NULL;
  const char *scheme, *host;

  if (url == NULL || strlen (url) > 4096)
    return FALSE;
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL)
    return FALSE;
  scheme = g_uri_get_scheme (uri);
  host = g_uri_get_host (uri);
  if (host == NULL || *host == '\0' || g_uri_get_fragment (uri) != NULL || g_uri_get_userinfo (uri) != NULL)
    return FALSE;
  if (g_ascii_strcasecmp (scheme, "https") == 0)
    return TRUE;
  if (g_ascii_strcasecmp (scheme, "http") != 0)
    return FALSE;
  if (g_ascii_strcasecmp (host, "localhost") == 0 || strcmp (host, "::1") == 0)
    return TRUE;
  {
    g_autoptr(GInetAddress) addr = g_inet_address_new_from_string (host);
    return addr != NULL && g_inet_address_get_is_loopback (addr);
  }
}

/* ---- JSON documents ----------------------------------------------------- */

/* The string members of @arr (others skipped); NULL when @arr is NULL. */
static char **
string_array (JsonArray *arr)
{
  GPtrArray *out;

  if (arr == NULL)
    return NULL;
  out = g_ptr_array_new ();
  for (guint i = 0; i < json_array_get_length (arr) && i < 256; i++)
    {
      JsonNode *n = json_array_get_element (arr, i);
      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        g_ptr_array_add (out, g_strdup (json_node_get_string (n)));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static char *
dup_url (JsonObject *obj, const char *name)
{
  const char *v = ow_json_get_string (obj, name);
  return v != NULL && ow_oauth_url_ok (v) ? g_strdup (v) : NULL;
}

OwOAuthResourceMetadata *
ow_oauth_resource_metadata_parse (const char *text, gssize len, GError **error)
{
  g_autoptr(JsonObject) obj = ow_json_object_from_string (text, len, error);
  g_autoptr(OwOAuthResourceMetadata) md = NULL;
  g_auto(GStrv) servers = NULL;
  GPtrArray *ok;

  if (obj == NULL)
    return NULL;
  md = g_new0 (OwOAuthResourceMetadata, 1);
  md->resource = dup_url (obj, "resource");
  servers = string_array (ow_json_get_array (obj, "authorization_servers"));
  ok = g_ptr_array_new ();
  for (guint i = 0; servers != NULL && servers[i] != NULL; i++)
    if (ow_oauth_url_ok (servers[i]))
      g_ptr_array_add (ok, g_strdup (servers[i]));
  g_ptr_array_add (ok, NULL);
  md->authorization_servers = (char **) g_ptr_array_free (ok, FALSE);
  md->scopes_supported = string_array (ow_json_get_array (obj, "scopes_supported"));
  if (md->resource == NULL || md->authorization_servers[0] == NULL)
    {
      g_set_error_literal (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                           "The resource's metadata names no valid resource or authorization server.");
      return NULL;
    }
  return g_steal_pointer (&md);
}

void
ow_oauth_resource_metadata_free (OwOAuthResourceMetadata *md)
{
  if (md == NULL)
    return;
  g_free (md->resource);
  g_strfreev (md->authorization_servers);
  g_strfreev (md->scopes_supported);
  g_free (md);
}

OwOAuthServerMetadata *
ow_oauth_server_metadata_parse (const char *text, gssize len, GError **error)
{
  g_autoptr(JsonObject) obj = ow_json_object_from_string (text, len, error);
  g_autoptr(OwOAuthServerMetadata) md = NULL;

  if (obj == NULL)
    return NULL;
  md = g_new0 (OwOAuthServerMetadata, 1);
  md->issuer = dup_url (obj, "issuer");
  md->authorization_endpoint = dup_url (obj, "authorization_endpoint");
  md->token_endpoint = dup_url (obj, "token_endpoint");
  md->registration_endpoint = dup_url (obj, "registration_endpoint");
  md->code_challenge_methods_supported = string_array (ow_json_get_array (obj, "code_challenge_methods_supported"));
  md->scopes_supported = string_array (ow_json_get_array (obj, "scopes_supported"));
  md->token_endpoint_auth_methods_supported =
    string_array (ow_json_get_array (obj, "token_endpoint_auth_methods_supported"));
  md->client_id_metadata_document_supported =
    ow_json_get_bool (obj, "client_id_metadata_document_supported", FALSE);
  md->authorization_response_iss_parameter_supported =
    ow_json_get_bool (obj, "authorization_response_iss_parameter_supported", FALSE);
  if (md->issuer == NULL || md->authorization_endpoint == NULL || md->token_endpoint == NULL)
    {
      g_set_error_literal (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_DISCOVERY,
                           "The authorization server's metadata lacks a valid issuer, authorization "
                           "endpoint or token endpoint.");
      return NULL;
    }
  return g_steal_pointer (&md);
}

void
ow_oauth_server_metadata_free (OwOAuthServerMetadata *md)
{
  if (md == NULL)
    return;
  g_free (md->issuer);
  g_free (md->authorization_endpoint);
  g_free (md->token_endpoint);
  g_free (md->registration_endpoint);
  g_strfreev (md->code_challenge_methods_supported);
  g_strfreev (md->scopes_supported);
  g_strfreev (md->token_endpoint_auth_methods_supported);
  g_free (md);
}

OwOAuthTokenResponse *
ow_oauth_token_response_parse (const char *text, gssize len, GError **error)
{
  g_autoptr(JsonObject) obj = ow_json_object_from_string (text, len, error);
  g_autoptr(OwOAuthTokenResponse) tr = NULL;
  const char *v;

  if (obj == NULL)
    return NULL;
  tr = g_new0 (OwOAuthTokenResponse, 1);
  if ((v = ow_json_get_string (obj, "error")) != NULL)
    {
      tr->error = g_strdup (v);
      tr->error_description = g_strdup (ow_json_get_string (obj, "error_description"));
      return g_steal_pointer (&tr);
    }
  v = ow_json_get_string (obj, "access_token");
  if (v == NULL || *v == '\0')
    {
      g_set_error_literal (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED,
                           "The token endpoint answered without an access token.");
      return NULL;
    }
  tr->access_token = g_strdup (v);
  v = ow_json_get_string (obj, "refresh_token");
  tr->refresh_token = v != NULL && *v != '\0' ? g_strdup (v) : NULL;
  tr->scope = g_strdup (ow_json_get_string (obj, "scope"));
  /* Some servers send expires_in as a string. */
  if (ow_json_has_int (obj, "expires_in"))
    tr->expires_in = ow_json_get_int (obj, "expires_in", 0);
  else if ((v = ow_json_get_string (obj, "expires_in")) != NULL)
    tr->expires_in = g_ascii_strtoll (v, NULL, 10);
  tr->expires_in = CLAMP (tr->expires_in, 0, G_MAXINT32);
  return g_steal_pointer (&tr);
}

void
ow_oauth_token_response_free (OwOAuthTokenResponse *tr)
{
  if (tr == NULL)
    return;
  g_free (tr->access_token);
  g_free (tr->refresh_token);
  g_free (tr->scope);
  g_free (tr->error);
  g_free (tr->error_description);
  g_free (tr);
}

gboolean
ow_oauth_registration_parse (const char *text,
                             gssize      len,
                             char      **client_id,
                             char      **client_secret,
                             GError    **error)
{
  g_autoptr(JsonObject) obj = ow_json_object_from_string (text, len, error);
  const char *id, *secret;

  if (obj == NULL)
    return FALSE;
  id = ow_json_get_string (obj, "client_id");
  if (id == NULL || *id == '\0')
    {
      g_set_error_literal (error, OW_OAUTH_ERROR, OW_OAUTH_ERROR_FAILED,
                           "The authorization server registered no client id.");
      return FALSE;
    }
  secret = ow_json_get_string (obj, "client_secret");
  *client_id = g_strdup (id);
  *client_secret = secret != NULL && *secret != '\0' ? g_strdup (secret) : NULL;
  return TRUE;
}
