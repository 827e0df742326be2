/* test-web-tools.c: web_fetch and web_search against loopback servers.
 *
 * One libsoup server plays the web (HTML, text, redirects, errors) and the
 * three search services (Tavily's POST /search, Brave's
 * /res/v1/web/search, DuckDuckGo's /html/), reached through
 * TAVILY_BASE_URL and friends. It is loopback, so it is reachable only
 * because the tests list it and give it an exact host:port exception, as
 * the design prescribes; each refusal test has the same request succeed
 * when the rule is met. Names are answered by a scripted resolver, which
 * is how a redirect to a private address by name, a rebinding answer and
 * pinning are played without DNS.
 */
#include <string.h>

#include <libsoup/soup.h>

#include "net/ow-address-guard.h"
#include "net/ow-http-client.h"
#include "proxy-test-util.h"
#include "tools/ow-web-tools.h"

#define TAVILY_KEY "tvly-test-key-0123456789"
#define BRAVE_KEY  "brave-test-key-0123456789"

/* ---- The server ------------------------------------------------------- */

typedef struct {
  guint    port;              /* where it listens */
  guint    hits;              /* requests served */
  char    *last_host;         /* Host of the last request */
  char    *last_path;         /* path of the last request */
  gint64   tavily_max;        /* max_results Tavily was asked for */
  char    *tavily_query;      /* the query Tavily got */
  char    *brave_count;       /* count= Brave got */
  char    *brave_q;           /* q= Brave got */
  gboolean hanging;           /* /hang received and paused */
  SoupServerMessage *paused;  /* the /hang message */
} Web;

static const char page_html[] =
  "<!DOCTYPE html><html><head><title>Not shown</title><style>p{color:red}</style>"
  "<script>var x = '<p>no</p>';</script></head>"
  "<body><h1>Hello &amp; welcome</h1>\n\n\n"
  "<p>First   paragraph\nwith <b>bold</b> text.</p>"
  "<noscript>Enable JS</noscript><svg><text>svg text</text></svg>"
  "<!-- a comment -->"
  "<ul><li>one</li><li>two &lt;3&gt;</li></ul>"
  "<p>Caf&eacute; &#233; &#x263A; &nbsp;end</p>"
  "<template><p>template</p></template>"
  "</body></html>";

static const char page_text[] =
  "Hello & welcome\n"
  "First paragraph with bold text.\n"
  "one\n"
  "two <3>\n"
  "Café é ☺ end";

static const char ddg_html[] =
  "<html><body><div class=\"results\">"
  "<div class=\"result results_links\"><h2 class=\"result__title\">"
  "<a rel=\"nofollow\" class=\"result__a\" href=\"//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fx%3D1&amp;rut=abc\">Example <b>A</b></a>"
  "</h2><a class=\"result__snippet\" href=\"//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa\">The <b>first</b> result.</a></div>"
  "<div class=\"result result--ad\"><a class=\"result__a\" href=\"https://duckduckgo.com/y.js?ad=1\">Ad</a></div>"
  "<div class=\"result\"><a class=\"result__a\" href=\"https://example.org/b\">Example B</a>"
  "<div class=\"result__snippet\">Second &amp; last.</div></div>"
  "</div></body></html>";

static void
respond (SoupServerMessage *msg,
         guint              status,
         const char        *type,
         const char        *body,
         gsize              len)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, type, SOUP_MEMORY_COPY, body, len);
}

static void
redirect (SoupServerMessage *msg,
          const char        *location)
{
  soup_server_message_set_status (msg, 302, NULL);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Location", location);
}

static void
serve_tavily (Web               *web,
              SoupServerMessage *msg)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autoptr(JsonNode) root = json_from_string (g_bytes_get_data (bytes, NULL), NULL);
  JsonObject *o = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  static const char answer[] =
    "{\"query\":\"q\",\"results\":["
    "{\"title\":\"T1\",\"url\":\"https://one.example/\",\"content\":\"first\",\"score\":0.9},"
    "{\"title\":\"T2\",\"url\":\"https://two.example/\",\"content\":\"second\"},"
    "{\"title\":\"T3\",\"url\":\"https://three.example/\",\"content\":\"third\"}]}";

  if (o == NULL || g_strcmp0 (json_object_get_string_member_with_default (o, "api_key", ""), TAVILY_KEY) != 0)
    {
      respond (msg, 401, "application/json", "{\"detail\":{\"error\":\"Unauthorized\"}}", 36);
      return;
    }
  web->tavily_max = json_object_get_int_member_with_default (o, "max_results", -1);
  g_free (web->tavily_query);
  web->tavily_query = g_strdup (json_object_get_string_member_with_default (o, "query", NULL));
  respond (msg, 200, "application/json", answer, strlen (answer));
}

static void
serve_brave (Web               *web,
             SoupServerMessage *msg,
             GHashTable        *query)
{
  const char *token = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                    "X-Subscription-Token");
  static const char answer[] =
    "{\"type\":\"search\",\"web\":{\"results\":["
    "{\"title\":\"A &amp; B\",\"url\":\"https://a.example/\",\"description\":\"<strong>bold</strong> text\"},"
    "{\"title\":\"C\",\"url\":\"https://c.example/\",\"description\":\"plain\"}]}}";

  if (g_strcmp0 (token, BRAVE_KEY) != 0)
    {
      respond (msg, 401, "application/json", "{\"error\":\"bad token\"}", 21);
      return;
    }
  g_free (web->brave_count);
  g_free (web->brave_q);
  web->brave_count = g_strdup (query != NULL ? g_hash_table_lookup (query, "count") : NULL);
  web->brave_q = g_strdup (query != NULL ? g_hash_table_lookup (query, "q") : NULL);
  respond (msg, 200, "application/json", answer, strlen (answer));
}

static void
on_request_cb (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  Web *web = user_data;

  web->hits++;
  g_free (web->last_host);
  g_free (web->last_path);
  web->last_host = g_strdup (soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "Host"));
  web->last_path = g_strdup (path);

  if (g_str_equal (path, "/page"))
    respond (msg, 200, "text/html; charset=utf-8", page_html, strlen (page_html));
  else if (g_str_equal (path, "/plain"))
    respond (msg, 200, "text/plain", "just text", 9);
  else if (g_str_equal (path, "/big"))
    {
      g_autofree char *big = g_strnfill (50000, 'x');

      respond (msg, 200, "text/plain", big, 50000);
    }
  else if (g_str_equal (path, "/latin1"))
    respond (msg, 200, "text/plain; charset=iso-8859-1", "caf\xe9", 4);
  else if (g_str_equal (path, "/image"))
    respond (msg, 200, "image/png", "\x89PNG\r\n", 6);
  else if (g_str_equal (path, "/redir-rel"))
    redirect (msg, "/page");
  else if (g_str_equal (path, "/redir-loop"))
    redirect (msg, "/redir-loop");
  else if (g_str_equal (path, "/redir-ftp"))
    redirect (msg, "ftp://files.example/x");
  else if (g_str_equal (path, "/redir-to") && query != NULL && g_hash_table_lookup (query, "u") != NULL)
    redirect (msg, g_hash_table_lookup (query, "u"));
  else if (g_str_equal (path, "/search") && g_str_equal (soup_server_message_get_method (msg), "POST"))
    serve_tavily (web, msg);
  else if (g_str_equal (path, "/res/v1/web/search"))
    serve_brave (web, msg, query);
  else if (g_str_equal (path, "/html/"))
    respond (msg, 200, "text/html", ddg_html, strlen (ddg_html));
  else if (g_str_equal (path, "/hang"))
    {
      web->hanging = TRUE;
      web->paused = g_object_ref (msg);
      soup_server_message_pause (msg);
    }
  else
    respond (msg, 404, "text/plain", "not here", 8);
}

/* ---- Fixture ---------------------------------------------------------- */

typedef struct {
  TestResolver   *resolver; /* answers names for the guard */
  OwAddressGuard *guard;    /* with the server's exception */
  OwSiteList     *sites;    /* the list, with the server on it */
  OwHttpClient   *client;   /* all HTTP */
  SoupServer     *server;   /* the web and the search services */
  Web             web;      /* what the server saw */
  char           *base;     /* "http://127.0.0.1:PORT" */
  char           *site;     /* "127.0.0.1:PORT" */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;
  const char *hosts[2] = { NULL, NULL };

  f->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (f->server, NULL, on_request_cb, &f->web, NULL);
  g_assert_true (soup_server_listen_local (f->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  uris = soup_server_get_uris (f->server);
  f->web.port = (guint) g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  f->base = g_strdup_printf ("http://127.0.0.1:%u", f->web.port);
  f->site = g_strdup_printf ("127.0.0.1:%u", f->web.port);

  f->resolver = test_resolver_new ();
  f->guard = ow_address_guard_new (G_RESOLVER (f->resolver));
  f->sites = ow_site_list_new ();
  f->client = ow_http_client_new ();

  /* The loopback server is an allowed site the only way one can be. */
  hosts[0] = f->site;
  g_assert_true (ow_site_list_add (f->sites, f->site, NULL));
  ow_address_guard_add_exceptions_from_hosts (f->guard, hosts);

  g_setenv ("TAVILY_BASE_URL", f->base, TRUE);
  g_setenv ("BRAVE_BASE_URL", f->base, TRUE);
  g_setenv ("DUCKDUCKGO_BASE_URL", f->base, TRUE);
  g_unsetenv ("TAVILY_API_KEY");
  g_unsetenv ("BRAVE_API_KEY");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->web.paused != NULL)
    {
      soup_server_message_unpause (f->web.paused);
      g_object_unref (f->web.paused);
    }
  g_object_unref (f->server);
  g_object_unref (f->client);
  g_object_unref (f->sites);
  g_object_unref (f->guard);
  g_object_unref (f->resolver);
  g_free (f->web.last_host);
  g_free (f->web.last_path);
  g_free (f->web.tavily_query);
  g_free (f->web.brave_count);
  g_free (f->web.brave_q);
  g_free (f->base);
  g_free (f->site);
  g_unsetenv ("TAVILY_API_KEY");
  g_unsetenv ("BRAVE_API_KEY");
}

/* ---- Running a tool --------------------------------------------------- */

typedef struct {
  OwToolResult *result;  /* what the tool returned */
  gboolean      done;    /* the callback ran */
} RunWait;

static void
on_tool_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  RunWait *w = user_data;
  g_autoptr(GError) error = NULL;

  w->result = ow_tool_call_finish (OW_TOOL (source), result, &error);
  g_assert_no_error (error);
  w->done = TRUE;
}

/* Runs @name with @args_json through a registry made for @access; returns
 * the result object and its status in @status. */
static JsonObject *
run_tool_full (OwWebAccess  *access,
               const char   *name,
               const char   *args_json,
               GCancellable *cancellable,
               OwToolStatus *status)
{
  g_autoptr(OwBuiltinTools) registry = ow_builtin_tools_new ();
  g_autoptr(JsonNode) args = json_from_string (args_json, NULL);
  g_autoptr(JsonNode) out = NULL;
  OwToolContext context = { NULL, NULL, NULL };
  RunWait w = { NULL, FALSE };
  OwTool *tool;
  JsonObject *obj;

  ow_web_tools_add (registry, access);
  tool = ow_tool_provider_lookup (OW_TOOL_PROVIDER (registry), name);
  g_assert_nonnull (tool);
  g_object_unref (tool);  /* the provider keeps it */
  g_assert_cmpint (ow_tool_get_risk (tool), ==, OW_RISK_READ);
  ow_tool_call_async (tool, &context, json_node_get_object (args), cancellable, NULL, NULL,
                      on_tool_done_cb, &w);
  ow_test_wait_flag (&w.done);
  out = json_from_string (w.result->text, NULL);
  g_assert_nonnull (out);
  obj = json_object_ref (json_node_get_object (out));
  if (status != NULL)
    *status = w.result->status;
  ow_tool_result_free (w.result);
  return obj;
}

static JsonObject *
run_tool (Fixture    *f,
          const char *name,
          const char *args_json)
{
  g_autoptr(OwWebAccess) access = ow_web_access_new (f->client, f->guard, f->sites, "s1");

  return run_tool_full (access, name, args_json, NULL, NULL);
}

static JsonObject *
fetch (Fixture    *f,
       const char *path,
       const char *extra)
{
  g_autofree char *args = g_strdup_printf ("{\"url\":\"%s%s\"%s}", f->base, path, extra != NULL ? extra : "");

  return run_tool (f, "web_fetch", args);
}

static const char *
error_of (JsonObject *o)
{
  return json_object_get_string_member_with_default (o, "error", NULL);
}

static void
assert_error_is (JsonObject *o,
                 const char *expected)
{
  const char *e = error_of (o);

  if (g_strcmp0 (e, expected) != 0)
    g_error ("error “%s”, expected “%s”", e != NULL ? e : "(none)", expected);
}

static void
assert_error_has (JsonObject *o,
                  const char *part)
{
  const char *e = error_of (o);

  if (e == NULL || strstr (e, part) == NULL)
    g_error ("error “%s” lacks “%s”", e != NULL ? e : "(none)", part);
}

/* ---- HTML to text ----------------------------------------------------- */

static void
test_html_to_text (void)
{
  struct { const char *html; const char *text; } cases[] = {
    { page_html, page_text },
    { "a<br>b<br/>c", "a\nb\nc" },
    { "<p>x</p><p></p><p></p><p></p><div>y</div>", "x\ny" },
    { "<pre>  keep\n    this</pre>", "  keep\n    this" },
    { "<script>if (a < b) alert(1)</script>after", "after" },
    { "<STYLE>x</STYLE>Up<Script src=x></SCRIPT>case", "Upcase" },
    { "1 < 2 &amp;&amp; 3 > 2 &bogus; &#0; &#xD800; &#99999999;", "1 < 2 && 3 > 2 &bogus; \xef\xbf\xbd \xef\xbf\xbd \xef\xbf\xbd" },
    { "<a href='x>y'>link</a> text", "link text" },
    { "<td>a</td><td>b</td>", "a b" },
    { "<head><title>t</title><body>unclosed head", "unclosed head" },
    { "text <!-- never closed", "text" },
    { "line1\r\n\r\n\r\n\r\nline2", "line1 line2" },
    { "<p>one</p>\n\n\n\n<p>two</p><br><br><br><p>three</p>", "one\ntwo\n\nthree" },
    { "bad \xff utf8", "bad \xef\xbf\xbd utf8" },
    { "", "" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = ow_html_to_text (cases[i].html, -1);

      if (g_strcmp0 (got, cases[i].text) != 0)
        g_error ("case %" G_GSIZE_FORMAT ": got “%s”, expected “%s”", i, got, cases[i].text);
      g_assert_true (g_utf8_validate (got, -1, NULL));
    }
}

/* ---- web_fetch -------------------------------------------------------- */

static void
test_fetch_html (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(JsonObject) o = fetch (f, "/page", NULL);
  g_autofree char *url = g_strdup_printf ("%s/page", f->base);

  g_assert_null (error_of (o));
  g_assert_cmpstr (json_object_get_string_member (o, "url"), ==, url);
  g_assert_cmpstr (json_object_get_string_member (o, "content_type"), ==, "text/html; charset=utf-8");
  g_assert_false (json_object_get_boolean_member (o, "truncated"));
  g_assert_cmpstr (json_object_get_string_member (o, "text"), ==, page_text);
  g_assert_cmpuint (f->web.hits, ==, 1);
}

static void
test_fetch_guarded (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(OwAddressGuard) strict = ow_address_guard_new (G_RESOLVER (f->resolver));
  g_autoptr(OwWebAccess) no_exception = ow_web_access_new (f->client, strict, f->sites, "s1");
  g_autoptr(OwWebAccess) no_sandbox = ow_web_access_new (f->client, f->guard, NULL, "s1");
  g_autofree char *args = g_strdup_printf ("{\"url\":\"%s/plain\"}", f->base);
  g_autoptr(JsonObject) refused = run_tool_full (no_exception, "web_fetch", args, NULL, NULL);
  g_autoptr(JsonObject) direct = run_tool_full (no_sandbox, "web_fetch", args, NULL, NULL);
  g_autoptr(JsonObject) control = run_tool (f, "web_fetch", args);
  g_autoptr(JsonObject) meta = run_tool (f, "web_fetch", "{\"url\":\"http://169.254.169.254/latest/meta-data/\"}");
  g_autoptr(JsonObject) local = NULL;
  g_autoptr(JsonObject) direct_local = NULL;

  /* The same site without its exception: refused by the guard, unasked. */
  assert_error_is (refused, "refusing to fetch 127.0.0.1: loopback");
  /* With no sandbox there is no list, but the guard still holds. */
  g_assert_null (error_of (direct));
  g_assert_cmpstr (json_object_get_string_member (direct, "text"), ==, "just text");
  /* Positive control through the full rules. */
  g_assert_null (error_of (control));
  g_assert_cmpuint (f->web.hits, ==, 2);

  /* Not on the list: refused by name, and the person can allow it. */
  assert_error_has (meta, "refusing to fetch 169.254.169.254:80: it is not on the list of sites");
  assert_error_has (meta, "The person can allow 169.254.169.254:80");
  g_assert_true (ow_site_list_add (f->sites, "169.254.169.254:80", NULL));
  g_clear_pointer (&meta, json_object_unref);
  meta = run_tool (f, "web_fetch", "{\"url\":\"http://169.254.169.254/latest/meta-data/\"}");
  assert_error_is (meta, "refusing to fetch 169.254.169.254: link-local (includes the cloud metadata endpoint)");

  local = run_tool (f, "web_fetch", "{\"url\":\"http://localhost:1/\"}");
  assert_error_has (local, "refusing to fetch localhost:1: it is not on the list");
  direct_local = run_tool_full (no_sandbox, "web_fetch", "{\"url\":\"http://[::ffff:127.0.0.1]:1/\"}", NULL, NULL);
  assert_error_is (direct_local, "refusing to fetch ::ffff:127.0.0.1: loopback");
}

static void
test_fetch_redirects (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(JsonObject) rel = fetch (f, "/redir-rel", NULL);
  g_autoptr(JsonObject) loop = fetch (f, "/redir-loop", NULL);
  g_autoptr(JsonObject) ftp = fetch (f, "/redir-ftp", NULL);
  g_autoptr(JsonObject) to_private = NULL;
  g_autoptr(JsonObject) to_name = NULL;
  g_autoptr(JsonObject) to_unlisted = NULL;
  g_autoptr(SoupServer) other = soup_server_new (NULL, NULL);
  g_autofree char *final = g_strdup_printf ("%s/page", f->base);
  g_autofree char *other_site = NULL;
  g_autofree char *extra = NULL;
  Web other_web = { 0 };
  guint hits;
  GSList *uris;

  /* Followed hop by hop; the result names the final (logical) URL. */
  g_assert_null (error_of (rel));
  g_assert_cmpstr (json_object_get_string_member (rel, "url"), ==, final);
  g_assert_cmpstr (json_object_get_string_member (rel, "text"), ==, page_text);
  assert_error_is (loop, "fetch failed: too many redirects (>5)");
  assert_error_is (ftp, "refusing to fetch ftp://files.example/x: url must start with http:// or https://");

  /* A redirect to another loopback server that is listed but has no
   * exception: refused, and that server never hears of it. */
  soup_server_add_handler (other, NULL, on_request_cb, &other_web, NULL);
  g_assert_true (soup_server_listen_local (other, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, NULL));
  uris = soup_server_get_uris (other);
  other_site = g_strdup_printf ("127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  g_assert_true (ow_site_list_add (f->sites, other_site, NULL));
  extra = g_strdup_printf ("/redir-to?u=http://%s/secret", other_site);
  hits = f->web.hits;
  to_private = fetch (f, extra, NULL);
  assert_error_is (to_private, "refusing to fetch 127.0.0.1: loopback");
  g_assert_cmpuint (f->web.hits, ==, hits + 1);
  g_assert_cmpuint (other_web.hits, ==, 0);

  /* A redirect to a listed name that resolves privately. */
  test_resolver_add (f->resolver, "internal.test", "10.0.0.7");
  g_assert_true (ow_site_list_add (f->sites, "internal.test:80", NULL));
  to_name = fetch (f, "/redir-to?u=http://internal.test/admin", NULL);
  assert_error_is (to_name, "refusing to fetch internal.test (10.0.0.7): a private network");

  /* A redirect to a name not on the list is refused by name, unresolved. */
  to_unlisted = fetch (f, "/redir-to?u=https://elsewhere.test/", NULL);
  assert_error_has (to_unlisted, "refusing to fetch elsewhere.test:443: it is not on the list");
  g_assert_cmpuint (test_resolver_count (f->resolver, "elsewhere.test"), ==, 0);

  g_free (other_web.last_host);
  g_free (other_web.last_path);
}

static void
test_fetch_pinned (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *entry = g_strdup_printf ("site.test:%u", f->web.port);
  g_autofree char *args = g_strdup_printf ("{\"url\":\"http://site.test:%u/plain\"}", f->web.port);
  g_autofree char *rebind_args = g_strdup_printf ("{\"url\":\"http://rebind.test:%u/plain\"}", f->web.port);
  g_autofree char *rebind_entry = g_strdup_printf ("rebind.test:%u", f->web.port);
  g_autoptr(JsonObject) o = NULL;
  g_autoptr(JsonObject) rebind = NULL;

  /* site.test is in no DNS: the request can only arrive through the pin,
   * and the server sees the name. Its second answer is never used. */
  test_resolver_add (f->resolver, "site.test", "127.0.0.1");
  test_resolver_add (f->resolver, "site.test", "10.0.0.1");
  g_assert_true (ow_site_list_add (f->sites, entry, NULL));
  g_assert_true (ow_address_guard_add_exception (f->guard, entry, NULL));
  o = run_tool (f, "web_fetch", args);
  g_assert_null (error_of (o));
  g_assert_cmpstr (json_object_get_string_member (o, "text"), ==, "just text");
  g_assert_cmpstr (f->web.last_host, ==, entry);
  g_assert_cmpuint (test_resolver_count (f->resolver, "site.test"), ==, 1);

  /* A public and a private answer together: refused as a whole. */
  test_resolver_add (f->resolver, "rebind.test", "8.8.8.8,127.0.0.1");
  g_assert_true (ow_site_list_add (f->sites, rebind_entry, NULL));
  rebind = run_tool (f, "web_fetch", rebind_args);
  assert_error_is (rebind, "refusing to fetch rebind.test (127.0.0.1): loopback");
}

static void
test_fetch_once_grant (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(OwSiteList) empty = ow_site_list_new ();
  g_autoptr(OwWebAccess) access = ow_web_access_new (f->client, f->guard, empty, "s1");
  g_autofree char *args = g_strdup_printf ("{\"url\":\"%s/redir-rel\"}", f->base);
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(JsonObject) before = run_tool_full (access, "web_fetch", args, NULL, NULL);

  assert_error_has (before, "is not on the list");
  g_assert_true (ow_site_list_grant (empty, "s1", f->site, OW_SITE_GRANT_ONCE, NULL));
  /* One web call, two hops to the same site: both under the one grant. */
  first = run_tool_full (access, "web_fetch", args, NULL, NULL);
  g_assert_null (error_of (first));
  g_assert_cmpstr (json_object_get_string_member (first, "text"), ==, page_text);
  second = run_tool_full (access, "web_fetch", args, NULL, NULL);
  assert_error_has (second, "is not on the list");
}

static void
test_fetch_content (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(JsonObject) cut = fetch (f, "/big", ",\"max_chars\":10");
  g_autoptr(JsonObject) clamp = fetch (f, "/big", ",\"max_chars\":100000000");
  g_autoptr(JsonObject) image = fetch (f, "/image", NULL);
  g_autoptr(JsonObject) missing = fetch (f, "/missing", NULL);
  g_autoptr(JsonObject) latin1 = fetch (f, "/latin1", NULL);
  g_autoptr(JsonObject) no_url = run_tool (f, "web_fetch", "{}");
  g_autoptr(JsonObject) js = run_tool (f, "web_fetch", "{\"url\":\"javascript:alert(1)\"}");
  g_autoptr(JsonObject) no_host = run_tool (f, "web_fetch", "{\"url\":\"http:///path\"}");
  g_autofree char *image_msg = g_strdup_printf ("fetch failed: %s/image is image/png, not text", f->base);
  g_autofree char *missing_msg = g_strdup_printf ("fetch failed: %s/missing answered HTTP 404", f->base);

  g_assert_true (json_object_get_boolean_member (cut, "truncated"));
  g_assert_cmpstr (json_object_get_string_member (cut, "text"), ==, "xxxxxxxxxx");
  g_assert_false (json_object_get_boolean_member (clamp, "truncated"));
  g_assert_cmpuint (strlen (json_object_get_string_member (clamp, "text")), ==, 50000);
  assert_error_is (image, image_msg);
  assert_error_is (missing, missing_msg);
  g_assert_cmpstr (json_object_get_string_member (latin1, "text"), ==, "café");
  assert_error_is (no_url, "url is required");
  assert_error_has (js, "url must start with http:// or https://");
  assert_error_has (no_host, "refusing to fetch");
}

static void
test_fetch_cancelled (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(OwWebAccess) access = ow_web_access_new (f->client, f->guard, f->sites, "s1");
  g_autoptr(OwBuiltinTools) registry = ow_builtin_tools_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *args_json = g_strdup_printf ("{\"url\":\"%s/hang\"}", f->base);
  g_autoptr(JsonNode) args = json_from_string (args_json, NULL);
  OwToolContext context = { NULL, NULL, NULL };
  RunWait w = { NULL, FALSE };

  ow_web_tools_add (registry, access);
  g_autoptr(OwTool) fetch = ow_tool_provider_lookup (OW_TOOL_PROVIDER (registry), "web_fetch");
  ow_tool_call_async (fetch, &context, json_node_get_object (args), cancellable, NULL, NULL,
                      on_tool_done_cb, &w);
  /* Cancelled once the server holds the request: the call ends at once. */
  ow_test_wait_flag (&f->web.hanging);
  g_cancellable_cancel (cancellable);
  ow_test_wait_flag (&w.done);
  g_assert_cmpint (w.result->status, ==, OW_TOOL_STATUS_INTERRUPTED);
  g_assert_nonnull (strstr (w.result->text, "interrupted"));
  ow_tool_result_free (w.result);
}

/* ---- web_search ------------------------------------------------------- */

static void
test_search_tavily (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(JsonObject) o = NULL;
  JsonArray *results;
  JsonObject *first;

  g_setenv ("TAVILY_API_KEY", TAVILY_KEY, TRUE);
  o = run_tool (f, "web_search", "{\"query\":\"open worker\",\"max_results\":50}");
  g_assert_null (error_of (o));
  g_assert_cmpstr (json_object_get_string_member (o, "provider"), ==, "tavily");
  g_assert_cmpint (f->web.tavily_max, ==, 10);
  g_assert_cmpstr (f->web.tavily_query, ==, "open worker");
  results = json_object_get_array_member (o, "results");
  g_assert_cmpuint (json_array_get_length (results), ==, 3);
  first = json_array_get_object_element (results, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "title"), ==, "T1");
  g_assert_cmpstr (json_object_get_string_member (first, "url"), ==, "https://one.example/");
  g_assert_cmpstr (json_object_get_string_member (first, "snippet"), ==, "first");
  g_assert_cmpuint (json_object_get_size (first), ==, 3);

  /* max_results is honoured on our side too. */
  g_clear_pointer (&o, json_object_unref);
  o = run_tool (f, "web_search", "{\"query\":\"q\",\"max_results\":2}");
  g_assert_cmpint (f->web.tavily_max, ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "results")), ==, 2);
  g_clear_pointer (&o, json_object_unref);
  o = run_tool (f, "web_search", "{\"query\":\"q\",\"max_results\":0}");
  g_assert_cmpint (f->web.tavily_max, ==, 1);
}

static void
test_search_brave (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(OwWebAccess) access = ow_web_access_new (f->client, f->guard, f->sites, "s1");
  g_autoptr(JsonObject) o = NULL;
  g_autoptr(JsonObject) bad = NULL;
  JsonObject *first;

  g_setenv ("BRAVE_API_KEY", BRAVE_KEY, TRUE);
  /* With both keys present, Tavily would be chosen: the config decides. */
  g_setenv ("TAVILY_API_KEY", TAVILY_KEY, TRUE);
  ow_web_access_set_search_provider (access, "brave");
  o = run_tool_full (access, "web_search", "{\"query\":\"a&b c\",\"max_results\":3}", NULL, NULL);
  g_assert_null (error_of (o));
  g_assert_cmpstr (json_object_get_string_member (o, "provider"), ==, "brave");
  g_assert_cmpstr (f->web.brave_count, ==, "3");
  g_assert_cmpstr (f->web.brave_q, ==, "a&b c");
  first = json_array_get_object_element (json_object_get_array_member (o, "results"), 0);
  g_assert_cmpstr (json_object_get_string_member (first, "title"), ==, "A & B");
  g_assert_cmpstr (json_object_get_string_member (first, "snippet"), ==, "bold text");

  g_setenv ("BRAVE_API_KEY", "brave-wrong-key-000000", TRUE);
  bad = run_tool_full (access, "web_search", "{\"query\":\"x\"}", NULL, NULL);
  assert_error_has (bad, "web search failed: brave answered HTTP 401");
  /* The key that was sent never shows in a result. */
  g_assert_null (strstr (error_of (bad), "brave-wrong-key"));
  g_assert_cmpstr (json_object_get_string_member (bad, "provider"), ==, "brave");
}

static void
test_search_duckduckgo (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(JsonObject) o = run_tool (f, "web_search", "{\"query\":\"example\"}");
  JsonArray *results;
  JsonObject *a;
  JsonObject *b;

  g_assert_null (error_of (o));
  g_assert_cmpstr (json_object_get_string_member (o, "provider"), ==, "duckduckgo");
  g_assert_cmpstr (f->web.last_path, ==, "/html/");
  results = json_object_get_array_member (o, "results");
  g_assert_cmpuint (json_array_get_length (results), ==, 2);
  a = json_array_get_object_element (results, 0);
  b = json_array_get_object_element (results, 1);
  g_assert_cmpstr (json_object_get_string_member (a, "title"), ==, "Example A");
  g_assert_cmpstr (json_object_get_string_member (a, "url"), ==, "https://example.com/a?x=1");
  g_assert_cmpstr (json_object_get_string_member (a, "snippet"), ==, "The first result.");
  g_assert_cmpstr (json_object_get_string_member (b, "url"), ==, "https://example.org/b");
  g_assert_cmpstr (json_object_get_string_member (b, "snippet"), ==, "Second & last.");
}

static void
test_search_refusals (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(OwWebAccess) access = ow_web_access_new (f->client, f->guard, f->sites, "s1");
  g_autoptr(JsonObject) no_key = NULL;
  g_autoptr(JsonObject) unlisted = NULL;
  g_autoptr(JsonObject) empty = NULL;
  g_autoptr(JsonObject) unknown = NULL;
  g_autoptr(JsonObject) control = NULL;
  guint hits = f->web.hits;

  ow_web_access_set_search_provider (access, "tavily");
  no_key = run_tool_full (access, "web_search", "{\"query\":\"x\"}", NULL, NULL);
  assert_error_is (no_key, "web search failed: tavily needs an API key: set TAVILY_API_KEY, "
                           "or choose another web_search_provider");
  g_assert_cmpstr (json_object_get_string_member (no_key, "provider"), ==, "tavily");

  /* The service's host follows the list like any site. */
  g_setenv ("TAVILY_API_KEY", TAVILY_KEY, TRUE);
  g_setenv ("TAVILY_BASE_URL", "http://api.tavily.test", TRUE);
  unlisted = run_tool_full (access, "web_search", "{\"query\":\"x\"}", NULL, NULL);
  assert_error_is (unlisted, "web search failed: refusing to reach api.tavily.test:80: it is not on the list of "
                             "sites this session may reach. The person can allow api.tavily.test:80 (once, for "
                             "this session, or always); ask them if you need it.");
  g_assert_cmpuint (f->web.hits, ==, hits);

  empty = run_tool_full (access, "web_search", "{\"query\":\"   \"}", NULL, NULL);
  assert_error_is (empty, "query is required");
  ow_web_access_set_search_provider (access, "bing");
  unknown = run_tool_full (access, "web_search", "{\"query\":\"x\"}", NULL, NULL);
  assert_error_has (unknown, "unknown provider");

  /* Positive control: the same call to the listed stand-in. */
  g_setenv ("TAVILY_BASE_URL", f->base, TRUE);
  ow_web_access_set_search_provider (access, NULL);
  control = run_tool_full (access, "web_search", "{\"query\":\"x\"}", NULL, NULL);
  g_assert_null (error_of (control));
  g_assert_cmpuint (f->web.hits, ==, hits + 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/tools/web/html-to-text", test_html_to_text);
#define ADD(path, fn) g_test_add ("/ow/tools/web/" path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("fetch-html", test_fetch_html);
  ADD ("fetch-guarded", test_fetch_guarded);
  ADD ("fetch-redirects", test_fetch_redirects);
  ADD ("fetch-pinned", test_fetch_pinned);
  ADD ("fetch-once-grant", test_fetch_once_grant);
  ADD ("fetch-content", test_fetch_content);
  ADD ("fetch-cancelled", test_fetch_cancelled);
  ADD ("search-tavily", test_search_tavily);
  ADD ("search-brave", test_search_brave);
  ADD ("search-duckduckgo", test_search_duckduckgo);
  ADD ("search-refusals", test_search_refusals);
#undef ADD

  return g_test_run ();
}
