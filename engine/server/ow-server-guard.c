/* ow-server-guard.c: tokens, Host, Origin and nesting checks (see
 * ow-server-guard.h). No libsoup here: every function takes the header
 * text as it arrived, which may be anything. */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-guard.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

char *
ow_server_token_new (void)
{
  guint8 raw[32];
  gsize got = 0;
  GString *hex = g_string_sized_new (64);

  while (got < sizeof raw)
    {
      ssize_t n = getrandom (raw + got, sizeof raw - got, 0);
      if (n < 0)
        {
          /* getrandom() only fails before the pool is seeded or on EINTR;
           * neither is worth running without a token for. */
          if (errno == EINTR)
            continue;
          g_error ("Could not read random bytes for the API token: %s", g_strerror (errno));
        }
      got += (gsize) n;
    }
  for (gsize i = 0; i < sizeof raw; i++)
    g_string_append_printf (hex, "%02x", raw[i]);
  memset (raw, 0, sizeof raw);
  return g_string_free (hex, FALSE);
}

gboolean
ow_server_token_equal (const char *expected, const char *given)
{
  gsize n, m;
  volatile guint8 diff;

  if (expected == NULL || *expected == '\0' || given == NULL || *given == '\0')
    return FALSE;
  n = strlen (expected);
  m = strnlen (given, n + 1);
  diff = (guint8) (n != m);
  /* Walk the expected length whatever @given holds, reading @given only
   * within its own bytes. */
  for (gsize i = 0; i < n; i++)
    diff |= (guint8) expected[i] ^ (guint8) (i < m ? given[i] : 0);
  return diff == 0;
}

const char *
ow_server_bearer_token (const char *header, gsize *len)
{
  const char *p;
  const char *end;

  if (header == NULL)
    return NULL;
  p = header;
  while (*p == ' ' || *p == '\t')
    p++;
  if (g_ascii_strncasecmp (p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
    return NULL;
  p += 6;
  while (*p == ' ' || *p == '\t')
    p++;
  end = p + strlen (p);
  while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  if (end == p)
    return NULL;
  if (len != NULL)
    *len = (gsize) (end - p);
  return p;
}

/* Parses a decimal port of 1–5 digits; -1 when it is not one. */
static int
parse_port (const char *s, gsize len)
{
  int port = 0;

  if (len == 0 || len > 5 || (len > 1 && s[0] == '0'))
    return -1;
  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isdigit (s[i]))
        return -1;
      port = port * 10 + (s[i] - '0');
    }
  return port > 65535 ? -1 : port;
}

static gboolean
is_loopback_v4 (const char *s, gsize len)
{
  int parts = 0, value = -1;

  /* Dotted quad with 127 as its first number: the whole 127/8 block is
   * loopback. Leading zeros and other forms are refused. */
  for (gsize i = 0; i <= len; i++)
    {
      if (i == len || s[i] == '.')
        {
          if (value < 0 || value > 255)
            return FALSE;
          if (parts == 0 && value != 127)
            return FALSE;
          parts++;
          value = -1;
          continue;
        }
      if (!g_ascii_isdigit (s[i]))
        return FALSE;
      if (value == 0)
        return FALSE;   /* a leading zero */
      value = (value < 0 ? 0 : value * 10) + (s[i] - '0');
      if (value > 255)
        return FALSE;
    }
  return parts == 4;
}

static gboolean
name_is_loopback (const char *name, gsize len)
{
  if (len == 9 && g_ascii_strncasecmp (name, "localhost", 9) == 0)
    return TRUE;
  if (len == 5 && memcmp (name, "[::1]", 5) == 0)
    return TRUE;
  return is_loopback_v4 (name, len);
}

gboolean
ow_server_host_allowed (const char *host, guint port)
{
  const char *colon;
  gsize len;

  if (host == NULL || *host == '\0')
    return FALSE;
  len = strlen (host);
  if (len > 64)
    return FALSE;
  /* The port is after the last ':' that follows a closing ']' for IPv6. */
  if (host[0] == '[')
    {
      const char *close = memchr (host, ']', len);
      if (close == NULL)
        return FALSE;
      colon = close[1] == ':' ? close + 1 : NULL;
      if (colon == NULL && close[1] != '\0')
        return FALSE;
    }
  else
    colon = memchr (host, ':', len);

  if (colon == NULL)
    return port == 80 && name_is_loopback (host, len);
  if (parse_port (colon + 1, len - (gsize) (colon + 1 - host)) != (int) port)
    return FALSE;
  return name_is_loopback (host, (gsize) (colon - host));
}

/* scheme://name[:port] with nothing after it. */
static gboolean
origin_matches (const char *origin, const char *scheme, const char *name)
{
  gsize sl = strlen (scheme), nl = strlen (name);
  const char *rest;

  if (g_ascii_strncasecmp (origin, scheme, sl) != 0 || strncmp (origin + sl, "://", 3) != 0)
    return FALSE;
  rest = origin + sl + 3;
  if (g_ascii_strncasecmp (rest, name, nl) != 0)
    return FALSE;
  rest += nl;
  if (*rest == '\0')
    return TRUE;
  if (*rest != ':')
    return FALSE;
  return parse_port (rest + 1, strlen (rest + 1)) > 0;
}

gboolean
ow_server_origin_allowed (const char *origin, const char *const *extra)
{
  static const char *const schemes[] = { "http", "https" };
  static const char *const names[] = { "localhost", "127.0.0.1", "[::1]", "tauri.localhost" };

  if (origin == NULL || *origin == '\0' || strlen (origin) > 256)
    return FALSE;
  if (strcmp (origin, "tauri://localhost") == 0)
    return TRUE;
  for (guint s = 0; s < G_N_ELEMENTS (schemes); s++)
    for (guint n = 0; n < G_N_ELEMENTS (names); n++)
      if (origin_matches (origin, schemes[s], names[n]))
        return TRUE;
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    if (strcmp (origin, extra[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
ow_server_ws_protocol_ok (const char *offer, const char *expected)
{
  g_auto(GStrv) parts = NULL;
  gboolean seen_ours = FALSE;
  gboolean ok = FALSE;

  if (offer == NULL || strlen (offer) > 1024)
    return FALSE;
  parts = g_strsplit (offer, ",", 8);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *p = g_strstrip (parts[i]);
      if (!seen_ours)
        {
          seen_ours = strcmp (p, "openworker") == 0;
          continue;
        }
      /* The token is the protocol right after "openworker". */
      ok = ow_server_token_equal (expected, p);
      break;
    }
  return ok;
}

gboolean
ow_server_session_id_valid (const char *id)
{
  gsize len;

  if (id == NULL)
    return FALSE;
  len = strlen (id);
  if (len == 0 || len > 64 || id[0] == '.' || g_str_has_prefix (id, "__"))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (id[i]) && id[i] != '_' && id[i] != '.' && id[i] != '-')
      return FALSE;
  return TRUE;
}
