/* ow-web-tools.c: web_fetch and web_search (see ow-web-tools.h).
 *
 * Every request the web tools make is one "hop": the URL's host and port
 * are checked against the session's site list by name, then the address
 * guard resolves the name once and judges every address, and the request
 * goes to the first vetted address with the name kept for Host and TLS
 * (ow_http_request_set_pinned_address()). A redirect is not followed by
 * libcurl but handed back, so the next URL is a new hop with the same
 * checks. A once grant is used up by the first hop that needs it and then
 * holds for the rest of the same call, which is what "once" means to the
 * person ("this one web call").
 *
 * No proxy from the environment applies here: the point of pinning is to
 * connect to the vetted address ourselves.
 */
#define G_LOG_DOMAIN "ow-web-tools"

#include "tools/ow-web-tools.h"

#include <string.h>

#include "ow-error.h"
#include "ow-json.h"
#include "ow-redact.h"
#include "ow-secret-env.h"

#define FETCH_TIMEOUT_MS    (20 * 1000)
#define FETCH_CONNECT_MS    (10 * 1000)
#define FETCH_MAX_BYTES     ((gsize) 4 * 1024 * 1024)
#define ERROR_BODY_MAX      ((gsize) 256 * 1024)
#define MAX_REDIRECTS       5
#define DEFAULT_MAX_CHARS   20000
#define LIMIT_MAX_CHARS     100000
#define DEFAULT_MAX_RESULTS 5

/* ---- Access ----------------------------------------------------------- */

struct _OwWebAccess
{
  gatomicrefcount  ref_count;        /* shared by the tools of a session */
  OwHttpClient    *client;           /* all HTTP */
  OwAddressGuard  *guard;            /* vets and pins; holds the exceptions */
  OwSiteList      *sites;            /* the allow list and grants, or NULL for none */
  char            *session_id;       /* whose grants apply, or NULL */
  char            *search_provider;  /* configured provider, or NULL to choose */
};

G_DEFINE_BOXED_TYPE (OwWebAccess, ow_web_access, ow_web_access_ref, ow_web_access_unref)

OwWebAccess *
ow_web_access_new (OwHttpClient   *client,
                   OwAddressGuard *guard,
                   OwSiteList     *sites,
                   const char     *session_id)
{
  OwWebAccess *access;

  g_return_val_if_fail (OW_IS_HTTP_CLIENT (client), NULL);
  g_return_val_if_fail (OW_IS_ADDRESS_GUARD (guard), NULL);
  g_return_val_if_fail (sites == NULL || OW_IS_SITE_LIST (sites), NULL);

  access = g_new0 (OwWebAccess, 1);
  g_atomic_ref_count_init (&access->ref_count);
  access->client = g_object_ref (client);
  access->guard = g_object_ref (guard);
  access->sites = sites != NULL ? g_object_ref (sites) : NULL;
  access->session_id = g_strdup (session_id);
  return access;
}

OwWebAccess *
ow_web_access_ref (OwWebAccess *access)
{
  g_return_val_if_fail (access != NULL, NULL);

  g_atomic_ref_count_inc (&access->ref_count);
  return access;
}

void
ow_web_access_unref (OwWebAccess *access)
{
  g_return_if_fail (access != NULL);

  if (!g_atomic_ref_count_dec (&access->ref_count))
    return;
  g_object_unref (access->client);
  g_object_unref (access->guard);
  g_clear_object (&access->sites);
  g_free (access->session_id);
  g_free (access->search_provider);
  g_free (access);
}

void
ow_web_access_set_search_provider (OwWebAccess *access,
                                   const char  *provider)
{
  g_return_if_fail (access != NULL);

  g_free (access->search_provider);
  access->search_provider = g_strdup (provider);
}

/* ---- HTML to text ----------------------------------------------------- */

typedef struct {
  const char *name;   /* entity name without & and ; */
  gunichar    ch;     /* what it stands for; 0 = nothing */
} Entity;

/* The ones pages use most beyond Latin-1 (which has its own table). */
static const Entity entities[] = {
  { "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' }, { "apos", '\'' },
  { "ndash", 0x2013 }, { "mdash", 0x2014 }, { "hellip", 0x2026 }, { "lsquo", 0x2018 },
  { "rsquo", 0x2019 }, { "sbquo", 0x201A }, { "ldquo", 0x201C }, { "rdquo", 0x201D },
  { "bdquo", 0x201E }, { "bull", 0x2022 }, { "trade", 0x2122 }, { "euro", 0x20AC },
  { "larr", 0x2190 }, { "rarr", 0x2192 }, { "uarr", 0x2191 }, { "darr", 0x2193 },
  { "minus", 0x2212 }, { "le", 0x2264 }, { "ge", 0x2265 }, { "ne", 0x2260 },
  { "thinsp", ' ' }, { "ensp", ' ' }, { "emsp", ' ' }, { "zwj", 0 }, { "zwnj", 0 },
};

/* U+00A0 … U+00FF in order. */
static const char *const latin1_entities[] = {
  "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf",
  "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro",
  "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
  "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute",
  "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute",
  "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute",
  "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
  "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
  "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc",
  "uuml", "yacute", "thorn", "yuml",
};

G_STATIC_ASSERT (G_N_ELEMENTS (latin1_entities) == 96);

static void append_space (GString *out);

/* Appends what an entity stands for; spaces collapse like any other. */
static void
append_entity_char (GString  *out,
                    gunichar  ch)
{
  if (ch == ' ' || ch == 0xA0)
    append_space (out);
  else if (ch != 0 && ch != 0xAD)
    g_string_append_unichar (out, ch);
}

/* Decodes the entity at @p (which points at '&'); returns the bytes it
 * used, or 0 when it is not one (the '&' is then literal). */
static gsize
decode_entity (const char *p,
               const char *end,
               GString    *out)
{
  const char *semi;
  gsize n;

  for (semi = p + 1; semi < end && semi - p <= 12 && *semi != ';'; semi++)
    ;
  if (semi >= end || *semi != ';')
    return 0;
  n = (gsize) (semi - p - 1);

  if (n >= 2 && p[1] == '#')
    {
      gboolean hex = p[2] == 'x' || p[2] == 'X';
      const char *digits = p + (hex ? 3 : 2);
      guint64 value = 0;

      if (digits >= semi)
        return 0;
      for (const char *d = digits; d < semi; d++)
        {
          if (hex ? !g_ascii_isxdigit (*d) : !g_ascii_isdigit (*d))
            return 0;
          value = value * (hex ? 16 : 10) + (guint64) (hex ? g_ascii_xdigit_value (*d) : g_ascii_digit_value (*d));
          if (value > 0x10FFFF)
            value = 0x110000; /* keep it from growing; replaced below */
        }
      if (value == 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
        value = 0xFFFD;
      append_entity_char (out, (gunichar) value);
      return (gsize) (semi - p + 1);
    }

  for (gsize i = 0; i < G_N_ELEMENTS (entities); i++)
    if (strlen (entities[i].name) == n && strncmp (p + 1, entities[i].name, n) == 0)
      {
        append_entity_char (out, entities[i].ch);
        return n + 2;
      }
  for (gsize i = 0; i < G_N_ELEMENTS (latin1_entities); i++)
    if (strlen (latin1_entities[i]) == n && strncmp (p + 1, latin1_entities[i], n) == 0)
      {
        append_entity_char (out, (gunichar) (0xA0 + i));
        return n + 2;
      }
  return 0;
}

static gboolean
tag_is (const char *name,
        const char *const *set)
{
  for (gsize i = 0; set[i] != NULL; i++)
    if (g_str_equal (name, set[i]))
      return TRUE;
  return FALSE;
}

/* Finds "</@name" (any case) at or after @p; returns where it starts. */
static const char *
find_close_tag (const char *p,
                const char *end,
                const char *name)
{
  gsize n = strlen (name);

  for (; p + 2 + n <= end; p++)
    if (p[0] == '<' && p[1] == '/' && g_ascii_strncasecmp (p + 2, name, n) == 0
        && (p + 2 + n == end || !g_ascii_isalnum (p[2 + n])))
      return p;
  return NULL;
}

/* The end of the tag starting at @p ('<'): just past its '>', quotes in
 * attributes respected; @end when it never closes. */
static const char *
tag_end (const char *p,
         const char *end)
{
  char quote = 0;

  for (p++; p < end; p++)
    {
      if (quote != 0)
        {
          if (*p == quote)
            quote = 0;
        }
      else if (*p == '"' || *p == '\'')
        quote = *p;
      else if (*p == '>')
        return p + 1;
    }
  return end;
}

static void
append_space (GString *out)
{
  if (out->len > 0 && out->str[out->len - 1] != ' ' && out->str[out->len - 1] != '\n')
    g_string_append_c (out, ' ');
}

/* Tidies the text: spaces at line ends go (leading ones only come from
 * <pre>, and are kept), runs of blank lines become one. */
static char *
tidy_lines (GString *raw)
{
  g_auto(GStrv) lines = g_strsplit (raw->str, "\n", -1);
  GString *out = g_string_sized_new (raw->len);
  guint blank = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strchomp (lines[i]);

      if (*line == '\0')
        {
          blank++;
          continue;
        }
      if (out->len > 0)
        g_string_append (out, blank > 0 ? "\n\n" : "\n");
      blank = 0;
      g_string_append (out, line);
    }
  return g_string_free (out, FALSE);
}

char *
ow_html_to_text (const char *html,
                 gssize      len)
{
  static const char *const skipped[] = { "script", "style", "noscript", "svg", "template", "head", NULL };
  static const char *const blocks[] = {
    "p", "div", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "section",
    "article", "header", "footer", "nav", "aside", "main", "blockquote", "pre", "hr", "dl", "dt", "dd",
    "form", "fieldset", "figure", "figcaption", "address", "title", "body", "html", "details", "summary",
    NULL,
  };
  g_autofree char *valid = NULL;
  g_autoptr(GString) out = NULL;
  const char *p;
  const char *end;
  guint pre = 0;

  g_return_val_if_fail (html != NULL || len == 0, NULL);

  valid = g_utf8_make_valid (html != NULL ? html : "", len);
  p = valid;
  end = valid + strlen (valid);
  out = g_string_sized_new ((gsize) (end - p) / 2 + 16);

  while (p < end)
    {
      if (*p == '<')
        {
          const char *q = p + 1;
          gboolean closing = FALSE;
          char name[16];
          gsize n = 0;

          if (end - p >= 4 && strncmp (p, "<!--", 4) == 0)
            {
              const char *c = strstr (p + 4, "-->");

              p = c != NULL ? c + 3 : end;
              continue;
            }
          if (q < end && (*q == '!' || *q == '?'))
            {
              p = tag_end (p, end);
              continue;
            }
          if (q < end && *q == '/')
            {
              closing = TRUE;
              q++;
            }
          while (q < end && g_ascii_isalnum (*q) && n < sizeof name - 1)
            name[n++] = g_ascii_tolower (*q++);
          name[n] = '\0';
          if (n == 0)
            {
              /* "a < b" in text: a literal '<'. */
              g_string_append_c (out, '<');
              p++;
              continue;
            }

          p = tag_end (p, end);
          if (!closing && tag_is (name, skipped))
            {
              const char *c = find_close_tag (p, end, name);

              /* An unclosed <head> ends where <body> begins. */
              if (c == NULL && g_str_equal (name, "head"))
                {
                  for (c = p; c + 5 <= end && g_ascii_strncasecmp (c, "<body", 5) != 0; c++)
                    ;
                  p = c + 5 <= end ? c : end;
                  continue;
                }
              p = c != NULL ? tag_end (c, end) : end;
              continue;
            }
          if (g_str_equal (name, "pre"))
            pre = closing ? (pre > 0 ? pre - 1 : 0) : pre + 1;
          /* <br> is a line break of its own; a block only ends the line
           * it is on, so nested blocks do not pile up blank lines. */
          if (g_str_equal (name, "br"))
            g_string_append_c (out, '\n');
          else if (tag_is (name, blocks))
            {
              if (out->len > 0 && out->str[out->len - 1] != '\n')
                g_string_append_c (out, '\n');
            }
          else if (g_str_equal (name, "td") || g_str_equal (name, "th"))
            append_space (out);
          continue;
        }

      if (*p == '&')
        {
          gsize used = decode_entity (p, end, out);

          if (used > 0)
            {
              p += used;
              continue;
            }
          g_string_append_c (out, '&');
          p++;
          continue;
        }

      if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f')
        {
          if (pre > 0 && *p != '\r')
            g_string_append_c (out, *p == '\f' ? '\n' : *p);
          else
            append_space (out);
          p++;
          continue;
        }

      g_string_append_c (out, *p);
      p++;
    }

  return tidy_lines (out);
}

/* ---- One hop ---------------------------------------------------------- */

/* The outcome of a hop that got an answer. */
typedef struct {
  OwHttpResponse *resp;     /* status and headers */
  GBytes         *body;     /* the body (up to the cap) */
  gboolean        capped;   /* the body was longer than the cap and was cut */
} HopResult;

static void
hop_result_free (HopResult *r)
{
  g_clear_pointer (&r->resp, ow_http_response_unref);
  g_clear_pointer (&r->body, g_bytes_unref);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HopResult, hop_result_free)

/* A hop in flight. */
typedef struct {
  OwWebAccess    *access;     /* whose rules apply */
  OwHttpRequest  *req;        /* the request, pinned once vetted */
  char           *host;       /* normalized destination host */
  guint16         port;       /* destination port */
  char           *target;     /* "host:port" */
  GHashTable     *once_used;  /* keys a once grant opened during this call (borrowed) */
  GByteArray     *acc;        /* the 2xx body so far */
  gsize           cap;        /* the most body kept */
  gboolean        capped;     /* the cap was reached */
  OwHttpResponse *resp;       /* the response, kept by the chunk function */
} Hop;

static void
hop_free (Hop *hop)
{
  ow_web_access_unref (hop->access);
  ow_http_request_unref (hop->req);
  g_free (hop->host);
  g_free (hop->target);
  g_byte_array_unref (hop->acc);
  g_clear_pointer (&hop->resp, ow_http_response_unref);
  g_free (hop);
}

/* Refusals are G_IO_ERROR_PERMISSION_DENIED whose message is what follows
 * "refusing to fetch ". */
static void
return_refusal (GTask      *task,
                const char *message)
{
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "%s", message);
}

static char *
not_listed_message (const char *target)
{
  return g_strdup_printf ("%s: it is not on the list of sites this session may reach. The person can "
                          "allow %s (once, for this session, or always); ask them if you need it.",
                          target, target);
}

/* May the call reach the hop's site, by name? With @consume a once grant
 * is used up (and remembered for the rest of the call). */
static gboolean
hop_site_allowed (Hop      *hop,
                  gboolean  consume)
{
  OwSiteDecision d;

  if (hop->access->sites == NULL || g_hash_table_contains (hop->once_used, hop->target))
    return TRUE;
  d = ow_site_list_check (hop->access->sites, hop->access->session_id, hop->host, hop->port, consume);
  if (d == OW_SITE_ALLOWED_ONCE && consume)
    g_hash_table_add (hop->once_used, g_strdup (hop->target));
  return d != OW_SITE_DENIED;
}

static gboolean
on_hop_chunk_cb (OwHttpResponse *resp,
                 const char     *data,
                 gsize           len,
                 gpointer        user_data)
{
  Hop *hop = user_data;

  if (hop->resp == NULL)
    hop->resp = ow_http_response_ref (resp);
  if (hop->acc->len + len > hop->cap)
    {
      g_byte_array_append (hop->acc, (const guint8 *) data, (guint) (hop->cap - hop->acc->len));
      hop->capped = TRUE;
      return FALSE; /* enough: the rest is not read */
    }
  g_byte_array_append (hop->acc, (const guint8 *) data, (guint) len);
  return TRUE;
}

static void
on_hop_sent_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Hop *hop = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwHttpResponse) resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &error);
  HopResult *r;

  if (resp == NULL && !(hop->capped && g_error_matches (error, OW_NET_ERROR, OW_NET_ERROR_ABORTED)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  r = g_new0 (HopResult, 1);
  r->resp = resp != NULL ? g_steal_pointer (&resp) : ow_http_response_ref (hop->resp);
  r->capped = hop->capped;
  /* A 2xx body came through the chunk function; any other is accumulated. */
  if (hop->resp != NULL || hop->acc->len > 0)
    r->body = g_bytes_new (hop->acc->data, hop->acc->len);
  else
    r->body = g_bytes_ref (ow_http_response_get_body (r->resp));
  g_task_return_pointer (task, r, (GDestroyNotify) hop_result_free);
}

static void
on_hop_vetted_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Hop *hop = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwAddressVerdict) v = ow_address_guard_vet_finish (OW_ADDRESS_GUARD (source), result, &error);
  g_autofree char *pin = NULL;
  GCancellable *cancellable;

  if (v == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!v->allowed)
    {
      g_autofree char *what = ow_address_verdict_describe (v);

      return_refusal (task, what);
      return;
    }
  /* Used up only now that the hop will really go out. */
  if (!hop_site_allowed (hop, TRUE))
    {
      g_autofree char *msg = not_listed_message (hop->target);

      return_refusal (task, msg);
      return;
    }

  pin = ow_address_verdict_dup_pin (v);
  ow_http_request_set_pinned_address (hop->req, pin);
  cancellable = g_task_get_cancellable (task);
  ow_http_client_send_async (hop->access->client, hop->req, on_hop_chunk_cb, hop, NULL,
                             cancellable, on_hop_sent_cb, g_steal_pointer (&task));
}

/* Sends @req to the host of @uri after the checks. The request must carry
 * the URL of @uri. @cap bounds the body kept. */
static void
hop_async (OwWebAccess        *access,
           GUri               *uri,
           OwHttpRequest      *req,
           GHashTable         *once_used,
           gsize               cap,
           GCancellable       *cancellable,
           GAsyncReadyCallback callback,
           gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  const char *scheme = g_uri_get_scheme (uri);
  const char *raw_host = g_uri_get_host (uri);
  int port = g_uri_get_port (uri);
  Hop *hop;

  g_task_set_source_tag (task, hop_async);
  g_task_set_check_cancellable (task, FALSE);

  hop = g_new0 (Hop, 1);
  hop->access = ow_web_access_ref (access);
  hop->req = ow_http_request_ref (req);
  hop->once_used = once_used;
  hop->acc = g_byte_array_new ();
  hop->cap = cap;
  g_task_set_task_data (task, hop, (GDestroyNotify) hop_free);

  if (raw_host == NULL || *raw_host == '\0')
    {
      return_refusal (task, "url has no host");
      return;
    }
  if (!ow_site_parse (raw_host, FALSE, &hop->host, NULL, &error))
    {
      g_autofree char *msg = g_strdup_printf ("%s: url has no valid host", raw_host);

      return_refusal (task, msg);
      return;
    }
  hop->port = port > 0 ? (guint16) port : g_ascii_strcasecmp (scheme, "https") == 0 ? 443 : 80;
  hop->target = ow_site_format (hop->host, hop->port);

  /* By name first: a site that is not allowed is not even looked up. */
  if (!hop_site_allowed (hop, FALSE))
    {
      g_autofree char *msg = not_listed_message (hop->target);

      return_refusal (task, msg);
      return;
    }

  /* No environment proxy: the vetted address is where we connect. */
  ow_http_request_set_proxy (req, "");
  ow_http_request_set_timeouts (req, FETCH_CONNECT_MS, FETCH_TIMEOUT_MS, FETCH_TIMEOUT_MS);
  ow_http_request_set_max_body (req, ERROR_BODY_MAX);
  ow_address_guard_vet_async (access->guard, hop->host, hop->port, cancellable, on_hop_vetted_cb,
                              g_steal_pointer (&task));
}

static HopResult *
hop_finish (GAsyncResult  *result,
            GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Parses @url for a hop: http or https with a host, or NULL and a refusal
 * text in @why. */
static GUri *
parse_web_url (const char  *url,
               GUri        *base,
               char       **why)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) uri = NULL;
  const char *scheme;

  if (base != NULL)
    uri = g_uri_parse_relative (base, url, G_URI_FLAGS_ENCODED, &error);
  else
    uri = g_uri_parse (url, G_URI_FLAGS_ENCODED, &error);
  if (uri == NULL)
    {
      *why = g_strdup_printf ("%s: url must start with http:// or https://", url);
      return NULL;
    }
  scheme = g_uri_get_scheme (uri);
  if (scheme == NULL || (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0))
    {
      *why = g_strdup_printf ("%s: url must start with http:// or https://", url);
      return NULL;
    }
  if (g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0')
    {
      *why = g_strdup_printf ("%s: url has no host", url);
      return NULL;
    }
  return g_steal_pointer (&uri);
}

/* ---- Results ---------------------------------------------------------- */

static char *
object_to_text (JsonObject *obj)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), obj);

  return json_to_string (node, FALSE);
}

static OwToolResult *
error_result (const char *message,
              const char *provider)
{
  g_autoptr(JsonObject) obj = json_object_new ();
  g_autofree char *text = NULL;
  g_autofree char *clean = ow_redact (message);

  json_object_set_string_member (obj, "error", clean);
  if (provider != NULL)
    json_object_set_string_member (obj, "provider", provider);
  text = object_to_text (obj);
  return ow_tool_result_new (OW_TOOL_STATUS_ERROR, text);
}

static OwToolResult *
interrupted_result (void)
{
  return ow_tool_result_new_error (OW_TOOL_STATUS_INTERRUPTED, "interrupted by user");
}

/* ---- web_fetch -------------------------------------------------------- */

/* One web_fetch call. */
typedef struct {
  OwWebAccess  *access;     /* the session's web access */
  GUri         *uri;        /* the current (logical) URL */
  GHashTable   *once_used;  /* once grants this call has used */
  guint         redirects;  /* redirects followed so far */
  gsize         max_chars;  /* longest text returned */
} FetchCall;

static void
fetch_call_free (FetchCall *call)
{
  ow_web_access_unref (call->access);
  g_clear_pointer (&call->uri, g_uri_unref);
  g_hash_table_unref (call->once_used);
  g_free (call);
}

static void fetch_hop (GTask *task);

static gboolean
is_textual (const char *mime)
{
  return g_str_has_prefix (mime, "text/") || g_str_equal (mime, "application/json")
         || g_str_equal (mime, "application/xml") || g_str_equal (mime, "application/javascript")
         || g_str_equal (mime, "application/x-yaml") || g_str_equal (mime, "application/yaml")
         || g_str_has_suffix (mime, "+json") || g_str_has_suffix (mime, "+xml");
}

/* The charset parameter of a Content-Type, or NULL. */
static char *
content_charset (const char *content_type)
{
  const char *p = content_type != NULL ? strstr (content_type, "charset=") : NULL;
  gsize n;

  if (p == NULL)
    return NULL;
  p += 8;
  if (*p == '"')
    p++;
  n = strcspn (p, "\"; \t");
  return n > 0 ? g_ascii_strdown (p, (gssize) n) : NULL;
}

static char *
body_as_utf8 (GBytes     *body,
              const char *charset)
{
  gsize len = 0;
  const char *data = g_bytes_get_data (body, &len);

  if (data == NULL)
    return g_strdup ("");
  if (charset != NULL && !g_str_equal (charset, "utf-8") && !g_str_equal (charset, "utf8"))
    {
      char *converted = g_convert (data, (gssize) len, "UTF-8", charset, NULL, NULL, NULL);

      if (converted != NULL)
        return converted;
    }
  return g_utf8_make_valid (data, (gssize) len);
}

static void
fetch_finish_page (GTask     *task,
                   HopResult *r)
{
  FetchCall *call = g_task_get_task_data (task);
  const char *content_type = ow_http_response_get_header (r->resp, "Content-Type");
  g_autofree char *mime = NULL;
  g_autofree char *charset = content_charset (content_type);
  g_autofree char *url = g_uri_to_string_partial (call->uri, G_URI_HIDE_PASSWORD);
  g_autofree char *decoded = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) obj = json_object_new ();
  g_autofree char *out = NULL;
  gboolean truncated = r->capped;
  gboolean html;
  glong n_chars;

  mime = content_type != NULL ? g_ascii_strdown (content_type, (gssize) strcspn (content_type, "; \t"))
                              : g_strdup ("");
  html = g_str_equal (mime, "text/html") || g_str_equal (mime, "application/xhtml+xml");
  if (!html && *mime != '\0' && !is_textual (mime))
    {
      g_autofree char *msg = g_strdup_printf ("fetch failed: %s is %s, not text", url, mime);

      g_task_return_pointer (task, error_result (msg, NULL), (GDestroyNotify) ow_tool_result_free);
      return;
    }

  decoded = body_as_utf8 (r->body, charset);
  text = html ? ow_html_to_text (decoded, -1) : g_steal_pointer (&decoded);
  n_chars = g_utf8_strlen (text, -1);
  if ((gsize) n_chars > call->max_chars)
    {
      *g_utf8_offset_to_pointer (text, (glong) call->max_chars) = '\0';
      truncated = TRUE;
    }

  json_object_set_string_member (obj, "url", url);
  json_object_set_string_member (obj, "content_type", content_type != NULL ? content_type : "");
  json_object_set_boolean_member (obj, "truncated", truncated);
  json_object_set_string_member (obj, "text", text);
  out = object_to_text (obj);
  g_task_return_pointer (task, ow_tool_result_new (OW_TOOL_STATUS_OK, out),
                         (GDestroyNotify) ow_tool_result_free);
}

static void
on_fetch_hop_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  FetchCall *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(HopResult) r = hop_finish (result, &error);
  OwToolResult *out = NULL;
  guint status;

  if (r == NULL)
    {
      g_autofree char *msg = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        out = interrupted_result ();
      else
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
            msg = g_strdup_printf ("refusing to fetch %s", error->message);
          else
            msg = g_strdup_printf ("fetch failed: %s", error->message);
          out = error_result (msg, NULL);
        }
      g_task_return_pointer (task, out, (GDestroyNotify) ow_tool_result_free);
      return;
    }

  status = ow_http_response_get_status (r->resp);
  if (status == 301 || status == 302 || status == 303 || status == 307 || status == 308)
    {
      const char *location = ow_http_response_get_header (r->resp, "Location");
      g_autofree char *why = NULL;
      GUri *next;

      if (location == NULL || *location == '\0')
        {
          g_autofree char *url = g_uri_to_string_partial (call->uri, G_URI_HIDE_PASSWORD);
          g_autofree char *msg = g_strdup_printf ("fetch failed: %s redirected (HTTP %u) without a Location",
                                                  url, status);

          g_task_return_pointer (task, error_result (msg, NULL), (GDestroyNotify) ow_tool_result_free);
          return;
        }
      if (++call->redirects > MAX_REDIRECTS)
        {
          g_task_return_pointer (task, error_result ("fetch failed: too many redirects (>5)", NULL),
                                 (GDestroyNotify) ow_tool_result_free);
          return;
        }
      /* Resolved against the logical URL, not the pinned address. */
      next = parse_web_url (location, call->uri, &why);
      if (next == NULL)
        {
          g_autofree char *msg = g_strdup_printf ("refusing to fetch %s", why);

          g_task_return_pointer (task, error_result (msg, NULL), (GDestroyNotify) ow_tool_result_free);
          return;
        }
      g_uri_unref (call->uri);
      call->uri = next;
      fetch_hop (g_steal_pointer (&task));
      return;
    }

  if (status < 200 || status >= 300)
    {
      g_autofree char *url = g_uri_to_string_partial (call->uri, G_URI_HIDE_PASSWORD);
      g_autofree char *msg = g_strdup_printf ("fetch failed: %s answered HTTP %u", url, status);

      g_task_return_pointer (task, error_result (msg, NULL), (GDestroyNotify) ow_tool_result_free);
      return;
    }

  fetch_finish_page (task, r);
}

static void
fetch_hop (GTask *task)
{
  FetchCall *call = g_task_get_task_data (task);
  g_autofree char *url = g_uri_to_string_partial (call->uri, G_URI_HIDE_FRAGMENT);
  g_autoptr(OwHttpRequest) req = ow_http_request_new ("GET", url);

  ow_http_request_add_header (req, "Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5");
  hop_async (call->access, call->uri, req, call->once_used, FETCH_MAX_BYTES, g_task_get_cancellable (task),
             on_fetch_hop_cb, task);
}

static void
run_web_fetch (OwWebAccess  *access,
               JsonObject   *args,
               GTask        *task)
{
  const char *url = json_object_get_string_member_with_default (args, "url", NULL);
  gint64 max_chars = DEFAULT_MAX_CHARS;
  g_autofree char *why = NULL;
  FetchCall *call;
  GUri *uri;

  if (json_object_has_member (args, "max_chars"))
    {
      JsonNode *n = json_object_get_member (args, "max_chars");

      if (JSON_NODE_HOLDS_VALUE (n) && (json_node_get_value_type (n) == G_TYPE_INT64
                                        || json_node_get_value_type (n) == G_TYPE_DOUBLE))
        max_chars = json_node_get_int (n);
    }
  max_chars = CLAMP (max_chars, 1, LIMIT_MAX_CHARS);

  if (url == NULL || *url == '\0')
    {
      g_task_return_pointer (task, error_result ("url is required", NULL), (GDestroyNotify) ow_tool_result_free);
      g_object_unref (task);
      return;
    }
  uri = parse_web_url (url, NULL, &why);
  if (uri == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("refusing to fetch %s", why);

      g_task_return_pointer (task, error_result (msg, NULL), (GDestroyNotify) ow_tool_result_free);
      g_object_unref (task);
      return;
    }

  call = g_new0 (FetchCall, 1);
  call->access = ow_web_access_ref (access);
  call->uri = uri;
  call->once_used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  call->max_chars = (gsize) max_chars;
  g_task_set_task_data (task, call, (GDestroyNotify) fetch_call_free);
  fetch_hop (task);
}

/* ---- web_search ------------------------------------------------------- */

/* One web_search call. */
typedef struct {
  OwWebAccess *access;       /* the session's web access */
  char        *provider;     /* "tavily", "brave", "duckduckgo" */
  guint        max_results;  /* 1–10 */
  GHashTable  *once_used;    /* once grants this call has used */
} SearchCall;

static void
search_call_free (SearchCall *call)
{
  ow_web_access_unref (call->access);
  g_free (call->provider);
  g_hash_table_unref (call->once_used);
  g_free (call);
}

static char *
base_url (const char *env_name,
          const char *fallback)
{
  const char *v = g_getenv (env_name);
  g_autofree char *url = g_strdup (v != NULL && *v != '\0' ? v : fallback);
  gsize len = strlen (url);

  while (len > 0 && url[len - 1] == '/')
    url[--len] = '\0';
  return g_steal_pointer (&url);
}

const char *const *
ow_web_search_key_names (void)
{
  static const char *const names[] = { "TAVILY_API_KEY", "BRAVE_API_KEY", NULL };

  return names;
}

static const char *
provider_key_env (const char *provider)
{
  if (g_str_equal (provider, "tavily"))
    return "TAVILY_API_KEY";
  if (g_str_equal (provider, "brave"))
    return "BRAVE_API_KEY";
  return NULL;
}

static char *
choose_provider (OwWebAccess *access)
{
  static const char *const keyed[] = { "tavily", "brave" };

  if (access->search_provider != NULL)
    return g_ascii_strdown (access->search_provider, -1);
  for (gsize i = 0; i < G_N_ELEMENTS (keyed); i++)
    {
      if (ow_secret_env_get (provider_key_env (keyed[i])) != NULL)
        return g_strdup (keyed[i]);
    }
  return g_strdup ("duckduckgo");
}

static void
add_result (JsonArray  *results,
            const char *title,
            const char *url,
            const char *snippet)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "title", title != NULL ? title : "");
  json_object_set_string_member (o, "url", url != NULL ? url : "");
  json_object_set_string_member (o, "snippet", snippet != NULL ? snippet : "");
  json_array_add_object_element (results, o);
}

/* Snippets may carry markup (Brave's <strong>): plain text on one line. */
static char *
plain_snippet (const char *html)
{
  g_autofree char *text = ow_html_to_text (html != NULL ? html : "", -1);

  g_strdelimit (text, "\n", ' ');
  return g_steal_pointer (&text);
}

static const char *
member_string (JsonObject *o,
               const char *name)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

/* Reads a JSON provider answer: @path names the array of results ("results"
 * or "web.results"), @snippet_key the snippet member. */
static gboolean
parse_json_results (GBytes      *body,
                    const char  *array_path,
                    const char  *snippet_key,
                    guint        max_results,
                    JsonArray   *results,
                    char       **why)
{
  g_auto(GStrv) path = g_strsplit (array_path, ".", -1);
  g_autoptr(GError) error = NULL;
  gsize len = 0;
  const char *data = g_bytes_get_data (body, &len);
  g_autoptr(JsonNode) root = ow_json_parse (data != NULL ? data : "", (gssize) len, &error);
  JsonNode *node;
  JsonArray *arr;

  if (root == NULL)
    {
      *why = g_strdup_printf ("the answer is not JSON (%s)", error->message);
      return FALSE;
    }
  node = root;
  for (guint i = 0; path[i] != NULL; i++)
    {
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          node = NULL;
          break;
        }
      node = json_object_get_member (json_node_get_object (node), path[i]);
    }
  /* No results at all is an empty answer, not a broken one. */
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      *why = g_strdup_printf ("“%s” in the answer is not a list", array_path);
      return FALSE;
    }
  arr = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (arr) && json_array_get_length (results) < max_results; i++)
    {
      JsonNode *item = json_array_get_element (arr, i);
      JsonObject *o;
      g_autofree char *title = NULL;
      g_autofree char *snippet = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;
      o = json_node_get_object (item);
      title = plain_snippet (member_string (o, "title"));
      snippet = plain_snippet (member_string (o, snippet_key));
      add_result (results, title, member_string (o, "url"), snippet);
    }
  return TRUE;
}

/* The value of attribute @name in the tag [tag, tag_end), entities
 * decoded; NULL if absent. */
static char *
tag_attribute (const char *tag,
               const char *tag_stop,
               const char *name)
{
  gsize n = strlen (name);

  for (const char *p = tag; p + n + 2 < tag_stop; p++)
    {
      const char *v;
      const char *close;
      char quote;

      if (g_ascii_strncasecmp (p, name, n) != 0 || p[n] != '=' || !g_ascii_isspace (p[-1]))
        continue;
      v = p + n + 1;
      quote = *v;
      if (quote != '"' && quote != '\'')
        continue;
      close = memchr (v + 1, quote, (gsize) (tag_stop - v - 1));
      if (close == NULL)
        return NULL;
      {
        g_autofree char *raw = g_strndup (v + 1, (gsize) (close - v - 1));

        return ow_html_to_text (raw, -1);
      }
    }
  return NULL;
}

/* DuckDuckGo's result links go through its redirector: the target is in
 * the uddg parameter. */
static char *
ddg_target (const char *href)
{
  const char *q = strstr (href, "uddg=");

  if (q != NULL)
    {
      gsize n = strcspn (q + 5, "&");
      g_autofree char *enc = g_strndup (q + 5, n);

      return g_uri_unescape_string (enc, NULL);
    }
  if (g_str_has_prefix (href, "//"))
    return g_strconcat ("https:", href, NULL);
  return g_strdup (href);
}

/* The element text from just after the tag at @tag_stop to "</@name". */
static char *
element_text (const char *tag_stop,
              const char *end,
              const char *name)
{
  const char *close = find_close_tag (tag_stop, end, name);

  if (close == NULL)
    return g_strdup ("");
  {
    g_autofree char *inner = g_strndup (tag_stop, (gsize) (close - tag_stop));

    return plain_snippet (inner);
  }
}

static void
parse_ddg_results (GBytes    *body,
                   guint      max_results,
                   JsonArray *results)
{
  gsize len = 0;
  const char *data = g_bytes_get_data (body, &len);
  g_autofree char *html = g_utf8_make_valid (data != NULL ? data : "", (gssize) len);
  const char *end = html + strlen (html);
  const char *p = html;

  while (json_array_get_length (results) < max_results && (p = strstr (p, "result__a")) != NULL)
    {
      /* The class token itself, not a longer one that starts the same. */
      if (p[9] != '"' && p[9] != '\'' && p[9] != ' ')
        {
          p += 9;
          continue;
        }
      const char *tag = p;
      const char *stop;
      const char *next;
      const char *snip;
      g_autofree char *href = NULL;
      g_autofree char *title = NULL;
      g_autofree char *url = NULL;
      g_autofree char *snippet = NULL;

      while (tag > html && *tag != '<')
        tag--;
      stop = tag_end (tag, end);
      p = stop;
      if (g_ascii_strncasecmp (tag, "<a", 2) != 0)
        continue;
      href = tag_attribute (tag, stop, "href");
      if (href == NULL)
        continue;
      url = ddg_target (href);
      /* Advertisements go through a different redirector. */
      if (strstr (url, "duckduckgo.com/y.js") != NULL)
        continue;
      title = element_text (stop, end, "a");

      next = strstr (stop, "result__a\"");
      snip = strstr (stop, "result__snippet");
      if (snip != NULL && (next == NULL || snip < next))
        {
          const char *stag = snip;
          const char *sstop;
          char name[8] = { 0 };
          gsize n = 0;

          while (stag > stop && *stag != '<')
            stag--;
          sstop = tag_end (stag, end);
          for (const char *q = stag + 1; q < sstop && g_ascii_isalnum (*q) && n < sizeof name - 1; q++)
            name[n++] = g_ascii_tolower (*q);
          snippet = element_text (sstop, end, n > 0 ? name : "a");
        }
      add_result (results, title, url, snippet);
    }
}

static void
on_search_hop_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SearchCall *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(HopResult) r = hop_finish (result, &error);
  g_autoptr(JsonArray) results = json_array_new ();
  g_autoptr(JsonObject) obj = json_object_new ();
  g_autofree char *why = NULL;
  g_autofree char *out = NULL;
  guint status;

  if (r == NULL)
    {
      g_autofree char *msg = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_task_return_pointer (task, interrupted_result (), (GDestroyNotify) ow_tool_result_free);
          return;
        }
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
        msg = g_strdup_printf ("web search failed: refusing to reach %s", error->message);
      else
        msg = g_strdup_printf ("web search failed: %s", error->message);
      g_task_return_pointer (task, error_result (msg, call->provider), (GDestroyNotify) ow_tool_result_free);
      return;
    }

  status = ow_http_response_get_status (r->resp);
  if (status < 200 || status >= 300)
    {
      gsize len = 0;
      const char *data = g_bytes_get_data (r->body, &len);
      g_autofree char *excerpt = g_utf8_make_valid (data != NULL ? data : "", (gssize) MIN (len, 300));
      g_autofree char *msg = g_strdup_printf ("web search failed: %s answered HTTP %u: %s",
                                              call->provider, status, g_strstrip (excerpt));

      g_task_return_pointer (task, error_result (msg, call->provider), (GDestroyNotify) ow_tool_result_free);
      return;
    }

  if (g_str_equal (call->provider, "tavily"))
    parse_json_results (r->body, "results", "content", call->max_results, results, &why);
  else if (g_str_equal (call->provider, "brave"))
    parse_json_results (r->body, "web.results", "description", call->max_results, results, &why);
  else
    parse_ddg_results (r->body, call->max_results, results);

  if (why != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("web search failed: %s: %s", call->provider, why);

      g_task_return_pointer (task, error_result (msg, call->provider), (GDestroyNotify) ow_tool_result_free);
      return;
    }

  json_object_set_string_member (obj, "provider", call->provider);
  json_object_set_array_member (obj, "results", g_steal_pointer (&results));
  out = object_to_text (obj);
  g_task_return_pointer (task, ow_tool_result_new (OW_TOOL_STATUS_OK, out), (GDestroyNotify) ow_tool_result_free);
}

static gboolean
is_blank (const char *s)
{
  if (s == NULL)
    return TRUE;
  for (; *s != '\0'; s++)
    if (!g_ascii_isspace (*s))
      return FALSE;
  return TRUE;
}

static void
run_web_search (OwWebAccess *access,
                JsonObject  *args,
                GTask       *task)
{
  const char *query = json_object_get_string_member_with_default (args, "query", NULL);
  gint64 max_results = DEFAULT_MAX_RESULTS;
  g_autoptr(OwHttpRequest) req = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *url = NULL;
  g_autofree char *why = NULL;
  g_autofree char *base = NULL;
  g_autofree char *escaped = NULL;
  const char *key_env;
  const char *key = NULL;
  SearchCall *call;

  if (json_object_has_member (args, "max_results"))
    {
      JsonNode *n = json_object_get_member (args, "max_results");

      if (JSON_NODE_HOLDS_VALUE (n) && (json_node_get_value_type (n) == G_TYPE_INT64
                                        || json_node_get_value_type (n) == G_TYPE_DOUBLE))
        max_results = json_node_get_int (n);
    }

  call = g_new0 (SearchCall, 1);
  call->access = ow_web_access_ref (access);
  call->provider = choose_provider (access);
  call->max_results = (guint) CLAMP (max_results, 1, 10);
  call->once_used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_task_set_task_data (task, call, (GDestroyNotify) search_call_free);

  if (is_blank (query))
    {
      g_task_return_pointer (task, error_result ("query is required", call->provider),
                             (GDestroyNotify) ow_tool_result_free);
      g_object_unref (task);
      return;
    }

  key_env = provider_key_env (call->provider);
  if (key_env != NULL)
    {
      key = ow_secret_env_get (key_env);
      if (key == NULL)
        {
          g_autofree char *msg = g_strdup_printf ("web search failed: %s needs an API key: set %s, or choose "
                                                  "another web_search_provider", call->provider, key_env);

          g_task_return_pointer (task, error_result (msg, call->provider), (GDestroyNotify) ow_tool_result_free);
          g_object_unref (task);
          return;
        }
      ow_redact_register_secret (key);
    }

  escaped = g_uri_escape_string (query, NULL, FALSE);
  if (g_str_equal (call->provider, "tavily"))
    {
      g_autoptr(JsonObject) body = json_object_new ();
      g_autofree char *text = NULL;
      g_autofree char *auth = g_strdup_printf ("Bearer %s", key);

      base = base_url ("TAVILY_BASE_URL", "https://api.tavily.com");
      url = g_strdup_printf ("%s/search", base);
      json_object_set_string_member (body, "api_key", key);
      json_object_set_string_member (body, "query", query);
      json_object_set_int_member (body, "max_results", call->max_results);
      text = object_to_text (body);
      req = ow_http_request_new ("POST", url);
      ow_http_request_add_header (req, "Authorization", auth);
      {
        gsize text_len = strlen (text);
        g_autoptr(GBytes) bytes = g_bytes_new_take (g_steal_pointer (&text), text_len);

        ow_http_request_set_body (req, bytes, "application/json");
      }
    }
  else if (g_str_equal (call->provider, "brave"))
    {
      base = base_url ("BRAVE_BASE_URL", "https://api.search.brave.com");
      url = g_strdup_printf ("%s/res/v1/web/search?q=%s&count=%u", base, escaped, call->max_results);
      req = ow_http_request_new ("GET", url);
      ow_http_request_add_header (req, "Accept", "application/json");
      ow_http_request_add_header (req, "X-Subscription-Token", key);
    }
  else if (g_str_equal (call->provider, "duckduckgo"))
    {
      base = base_url ("DUCKDUCKGO_BASE_URL", "https://html.duckduckgo.com");
      url = g_strdup_printf ("%s/html/?q=%s", base, escaped);
      req = ow_http_request_new ("GET", url);
      ow_http_request_add_header (req, "Accept", "text/html");
    }
  else
    {
      g_autofree char *msg = g_strdup_printf ("web search failed: unknown provider “%s” (use tavily, brave "
                                              "or duckduckgo)", call->provider);

      g_task_return_pointer (task, error_result (msg, call->provider), (GDestroyNotify) ow_tool_result_free);
      g_object_unref (task);
      return;
    }

  uri = parse_web_url (url, NULL, &why);
  if (uri == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("web search failed: the %s address is not usable: %s",
                                              call->provider, why);

      g_task_return_pointer (task, error_result (msg, call->provider), (GDestroyNotify) ow_tool_result_free);
      g_object_unref (task);
      return;
    }
  hop_async (access, uri, req, call->once_used, FETCH_MAX_BYTES, g_task_get_cancellable (task),
             on_search_hop_cb, task);
}

/* ---- The tools -------------------------------------------------------- */

typedef enum {
  WEB_FETCH,
  WEB_SEARCH,
} WebToolKind;

#define OW_TYPE_WEB_TOOL (ow_web_tool_get_type ())
G_DECLARE_FINAL_TYPE (OwWebTool, ow_web_tool, OW, WEB_TOOL, GObject)

struct _OwWebTool
{
  GObject      parent_instance;
  WebToolKind  kind;     /* which tool */
  JsonObject  *schema;   /* its function schema (owned) */
  OwWebAccess *access;   /* what it may use (owned reference) */
};

static void web_tool_iface_init (OwToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwWebTool, ow_web_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_TOOL, web_tool_iface_init))

static const char web_fetch_schema[] =
  "{\"type\":\"function\",\"function\":{\"name\":\"web_fetch\","
  "\"description\":\"Fetch a web page or text document over http(s) and return its readable text (HTML is "
  "reduced to its visible text). Redirects are followed. Addresses on this machine or private networks are "
  "refused, and a site that is not on this session's list is refused until the person allows it.\","
  "\"parameters\":{\"type\":\"object\",\"properties\":{"
  "\"url\":{\"type\":\"string\",\"description\":\"The http:// or https:// URL to fetch.\"},"
  "\"max_chars\":{\"type\":\"integer\",\"description\":\"Longest text to return (default 20000, at most 100000).\"}},"
  "\"required\":[\"url\"]}}}";

static const char web_search_schema[] =
  "{\"type\":\"function\",\"function\":{\"name\":\"web_search\","
  "\"description\":\"Search the web. Returns a list of results with title, url and snippet; use web_fetch to "
  "read a result.\","
  "\"parameters\":{\"type\":\"object\",\"properties\":{"
  "\"query\":{\"type\":\"string\",\"description\":\"What to search for.\"},"
  "\"max_results\":{\"type\":\"integer\",\"description\":\"How many results (1 to 10, default 5).\"}},"
  "\"required\":[\"query\"]}}}";

static const char *
web_tool_get_name (OwTool *tool)
{
  return OW_WEB_TOOL (tool)->kind == WEB_FETCH ? "web_fetch" : "web_search";
}

static JsonObject *
web_tool_get_schema (OwTool *tool)
{
  return OW_WEB_TOOL (tool)->schema;
}

static OwRisk
web_tool_get_risk (OwTool *tool)
{
  return OW_RISK_READ;
}

static OwToolKind
web_tool_get_kind (OwTool *tool)
{
  return OW_TOOL_KIND_EXECUTE;
}

static void
web_tool_call_async (OwTool              *tool,
                     const OwToolContext *context,
                     JsonObject          *args,
                     GCancellable        *cancellable,
                     OwToolProgressFunc   progress,
                     gpointer             progress_data,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  OwWebTool *self = OW_WEB_TOOL (tool);
  GTask *task = g_task_new (tool, cancellable, callback, user_data);
  g_autoptr(JsonObject) empty = NULL;

  g_task_set_source_tag (task, web_tool_call_async);
  /* A stop is reported by the tool itself, as an "interrupted" result. */
  g_task_set_check_cancellable (task, FALSE);
  if (args == NULL)
    args = empty = json_object_new ();

  /* Each runner takes over the task reference. */
  if (self->kind == WEB_FETCH)
    run_web_fetch (self->access, args, task);
  else
    run_web_search (self->access, args, task);
}

static OwToolResult *
web_tool_call_finish (OwTool        *tool,
                      GAsyncResult  *result,
                      GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
web_tool_iface_init (OwToolInterface *iface)
{
  iface->get_name = web_tool_get_name;
  iface->get_schema = web_tool_get_schema;
  iface->get_risk = web_tool_get_risk;
  iface->get_kind = web_tool_get_kind;
  iface->call_async = web_tool_call_async;
  iface->call_finish = web_tool_call_finish;
}

static void
ow_web_tool_finalize (GObject *object)
{
  OwWebTool *self = OW_WEB_TOOL (object);

  g_clear_pointer (&self->schema, json_object_unref);
  g_clear_pointer (&self->access, ow_web_access_unref);
  G_OBJECT_CLASS (ow_web_tool_parent_class)->finalize (object);
}

static void
ow_web_tool_class_init (OwWebToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_web_tool_finalize;
}

static void
ow_web_tool_init (OwWebTool *self)
{
}

static OwTool *
web_tool_new (WebToolKind  kind,
              OwWebAccess *access)
{
  OwWebTool *self = g_object_new (OW_TYPE_WEB_TOOL, NULL);
  g_autoptr(JsonNode) node = json_from_string (kind == WEB_FETCH ? web_fetch_schema : web_search_schema, NULL);

  g_assert (node != NULL);
  self->kind = kind;
  self->schema = json_object_ref (json_node_get_object (node));
  self->access = ow_web_access_ref (access);
  return OW_TOOL (self);
}

void
ow_web_tools_add (OwBuiltinTools *tools,
                  OwWebAccess    *access)
{
  g_autoptr(OwTool) fetch = NULL;
  g_autoptr(OwTool) search = NULL;

  g_return_if_fail (OW_IS_BUILTIN_TOOLS (tools));
  g_return_if_fail (access != NULL);

  fetch = web_tool_new (WEB_FETCH, access);
  search = web_tool_new (WEB_SEARCH, access);
  ow_builtin_tools_add (tools, search);
  ow_builtin_tools_add (tools, fetch);
}
