/* test-address-guard.c: the address guard and the site list, rule by rule.
 *
 * Classification is checked against a table of addresses on both sides of
 * every range edge (100.63.255.255 is public, 100.64.0.0 is CGNAT). Vetting
 * runs on a scripted resolver, which is also how rebinding is played: a
 * name whose answer mixes a public and a private address is refused as a
 * whole, and a name is looked up once per vetting, never again by the
 * connection (proved with OwHttpClient pinned to the vetted address: the
 * name is one the system resolver has never heard of, yet the request
 * reaches the loopback server, which sees that name in Host).
 */
#include <string.h>

#include <libsoup/soup.h>

#include "net/ow-address-guard.h"
#include "net/ow-http-client.h"
#include "ow-error.h"
#include "proxy-test-util.h"

/* ---- Classification --------------------------------------------------- */

typedef struct {
  const char     *ip;     /* an IP literal */
  OwAddressClass  klass;  /* the class it must get */
} ClassCase;

static const ClassCase class_cases[] = {
  /* loopback */
  { "127.0.0.1", OW_ADDRESS_LOOPBACK },
  { "127.255.255.254", OW_ADDRESS_LOOPBACK },
  { "::1", OW_ADDRESS_LOOPBACK },
  /* link-local, the cloud metadata endpoint among them */
  { "169.254.169.254", OW_ADDRESS_LINK_LOCAL },
  { "169.254.0.1", OW_ADDRESS_LINK_LOCAL },
  { "fe80::1", OW_ADDRESS_LINK_LOCAL },
  { "febf:ffff::1", OW_ADDRESS_LINK_LOCAL },
  /* private */
  { "10.0.0.1", OW_ADDRESS_PRIVATE },
  { "10.255.255.255", OW_ADDRESS_PRIVATE },
  { "172.16.0.1", OW_ADDRESS_PRIVATE },
  { "172.31.255.255", OW_ADDRESS_PRIVATE },
  { "192.168.1.1", OW_ADDRESS_PRIVATE },
  { "0.0.0.0", OW_ADDRESS_PRIVATE },
  { "0.1.2.3", OW_ADDRESS_PRIVATE },
  { "192.0.0.8", OW_ADDRESS_PRIVATE },
  { "fc00::1", OW_ADDRESS_PRIVATE },
  { "fdff:ffff::1", OW_ADDRESS_PRIVATE },
  { "fec0::1", OW_ADDRESS_PRIVATE },
  { "64:ff9b:1::1", OW_ADDRESS_PRIVATE },
  /* CGNAT, and its neighbours (Tailscale's 100.x is inside; 100.63 and 100.128 are not) */
  { "100.64.0.0", OW_ADDRESS_SHARED },
  { "100.100.100.100", OW_ADDRESS_SHARED },
  { "100.127.255.255", OW_ADDRESS_SHARED },
  { "100.63.255.255", OW_ADDRESS_PUBLIC },
  { "100.128.0.0", OW_ADDRESS_PUBLIC },
  /* multicast */
  { "224.0.0.1", OW_ADDRESS_MULTICAST },
  { "239.255.255.250", OW_ADDRESS_MULTICAST },
  { "ff02::1", OW_ADDRESS_MULTICAST },
  /* reserved, unspecified, documentation, benchmarking */
  { "240.0.0.1", OW_ADDRESS_RESERVED },
  { "255.255.255.255", OW_ADDRESS_RESERVED },
  { "192.0.2.1", OW_ADDRESS_RESERVED },
  { "198.51.100.7", OW_ADDRESS_RESERVED },
  { "203.0.113.9", OW_ADDRESS_RESERVED },
  { "198.18.0.1", OW_ADDRESS_RESERVED },
  { "198.19.255.255", OW_ADDRESS_RESERVED },
  { "::", OW_ADDRESS_RESERVED },
  { "2001:db8::1", OW_ADDRESS_RESERVED },
  { "2001::1", OW_ADDRESS_RESERVED },           /* Teredo */
  { "100::1", OW_ADDRESS_RESERVED },            /* discard */
  { "::7f00:1", OW_ADDRESS_RESERVED },          /* IPv4-compatible, deprecated */
  { "4000::1", OW_ADDRESS_RESERVED },           /* outside 2000::/3 */
  { "3fff::1", OW_ADDRESS_RESERVED },
  /* IPv4 carried in IPv6 is judged as the IPv4 address */
  { "::ffff:127.0.0.1", OW_ADDRESS_LOOPBACK },
  { "::ffff:10.1.2.3", OW_ADDRESS_PRIVATE },
  { "::ffff:169.254.169.254", OW_ADDRESS_LINK_LOCAL },
  { "::ffff:8.8.8.8", OW_ADDRESS_PUBLIC },
  { "::ffff:0:127.0.0.1", OW_ADDRESS_LOOPBACK },  /* IPv4-translated */
  { "64:ff9b::10.0.0.1", OW_ADDRESS_PRIVATE },    /* NAT64 */
  { "64:ff9b::8.8.8.8", OW_ADDRESS_PUBLIC },
  { "2002:7f00:1::1", OW_ADDRESS_LOOPBACK },      /* 6to4 of 127.0.0.1 */
  { "2002:0808:0808::1", OW_ADDRESS_PUBLIC },
  /* public */
  { "8.8.8.8", OW_ADDRESS_PUBLIC },
  { "1.1.1.1", OW_ADDRESS_PUBLIC },
  { "172.32.0.1", OW_ADDRESS_PUBLIC },
  { "172.15.255.255", OW_ADDRESS_PUBLIC },
  { "192.169.0.1", OW_ADDRESS_PUBLIC },
  { "223.255.255.255", OW_ADDRESS_PUBLIC },
  { "2606:4700:4700::1111", OW_ADDRESS_PUBLIC },
  { "2a00:1450:4001::1", OW_ADDRESS_PUBLIC },
};

static void
test_classify (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (class_cases); i++)
    {
      OwAddressClass got = ow_address_classify_string (class_cases[i].ip);

      if (got != class_cases[i].klass)
        g_error ("%s: class %d, expected %d", class_cases[i].ip, got, class_cases[i].klass);
    }
  g_assert_cmpint (ow_address_classify_string ("not an address"), ==, OW_ADDRESS_RESERVED);
}

static void
test_reasons (void)
{
  g_assert_null (ow_address_class_reason (OW_ADDRESS_PUBLIC));
  g_assert_cmpstr (ow_address_class_reason (OW_ADDRESS_LOOPBACK), ==, "loopback");
  g_assert_cmpstr (ow_address_class_reason (OW_ADDRESS_LINK_LOCAL), ==,
                   "link-local (includes the cloud metadata endpoint)");
  g_assert_cmpstr (ow_address_class_reason (OW_ADDRESS_PRIVATE), ==, "a private network");
  g_assert_cmpstr (ow_address_class_reason (OW_ADDRESS_SHARED), ==, "shared address space (CGNAT / RFC 6598)");
  g_assert_cmpstr (ow_address_class_reason (OW_ADDRESS_MULTICAST), ==, "multicast");
  g_assert_cmpstr (ow_address_class_reason (OW_ADDRESS_RESERVED), ==, "a reserved range");
}

/* ---- Site entries ----------------------------------------------------- */

static void
check_parse (const char *text,
             gboolean    require_port,
             const char *host,
             guint16     port)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *h = NULL;
  guint16 p = 0;

  if (!ow_site_parse (text, require_port, &h, &p, &error))
    g_error ("“%s” did not parse: %s", text, error->message);
  g_assert_cmpstr (h, ==, host);
  g_assert_cmpuint (p, ==, port);
}

static void
check_parse_fails (const char *text,
                   gboolean    require_port,
                   const char *message_part)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *h = NULL;

  if (ow_site_parse (text, require_port, &h, NULL, &error))
    g_error ("“%s” parsed as %s", text, h);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, message_part) == NULL)
    g_error ("“%s”: message “%s” lacks “%s”", text, error->message, message_part);
}

static void
test_site_parse (void)
{
  g_autofree char *formatted = NULL;

  check_parse ("github.com:443", TRUE, "github.com", 443);
  check_parse ("GitHub.COM.", FALSE, "github.com", 0);
  check_parse ("127.0.0.1:41234", TRUE, "127.0.0.1", 41234);
  check_parse ("[::1]:8080", TRUE, "::1", 8080);
  check_parse ("[::FFFF:127.0.0.1]:80", TRUE, "::ffff:127.0.0.1", 80);
  check_parse ("2001:db8::1", FALSE, "2001:db8::1", 0);
  check_parse ("bücher.example:443", TRUE, "xn--bcher-kva.example", 443);
  check_parse ("under_score.example", FALSE, "under_score.example", 0);

  check_parse_fails ("*.github.com:443", TRUE, "wildcards are not allowed");
  check_parse_fails ("github.com", TRUE, "needs a port");
  check_parse_fails ("github.com:0", TRUE, "port");
  check_parse_fails ("github.com:65536", TRUE, "port");
  check_parse_fails ("github.com:+443", TRUE, "port");
  check_parse_fails ("github.com:443/path", TRUE, "port");
  check_parse_fails ("user@github.com:443", TRUE, "host name and a port");
  check_parse_fails ("", FALSE, "empty");
  check_parse_fails ("a..b", FALSE, "not a host name");
  check_parse_fails ("[::1", TRUE, "closing");
  check_parse_fails ("[fe80::1%eth0]:80", TRUE, "host name");
  check_parse_fails ("2001:db8::1", TRUE, "brackets");
  check_parse_fails ("[example.com]:80", TRUE, "IPv6");
  check_parse_fails ("exa mple.com", FALSE, "host name and a port");

  formatted = ow_site_format ("::1", 443);
  g_assert_cmpstr (formatted, ==, "[::1]:443");
}

/* ---- The site list ---------------------------------------------------- */

typedef struct {
  GPtrArray *written;  /* entries the persist function was given */
  gboolean   fail;     /* refuse them */
} Persist;

static gboolean
persist_cb (const char *entry,
            gpointer    user_data,
            GError    **error)
{
  Persist *p = user_data;

  if (p->fail)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY, "config.toml is read-only");
      return FALSE;
    }
  g_ptr_array_add (p->written, g_strdup (entry));
  return TRUE;
}

static void
on_changed_cb (OwSiteList *list,
               gpointer    user_data)
{
  (*(guint *) user_data)++;
}

static void
test_site_list (void)
{
  g_autoptr(OwSiteList) list = ow_site_list_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) machine = NULL;
  g_auto(GStrv) session = NULL;
  Persist p = { g_ptr_array_new_with_free_func (g_free), FALSE };
  guint changes = 0;

  g_signal_connect (list, "changed", G_CALLBACK (on_changed_cb), &changes);
  ow_site_list_set_persist_func (list, persist_cb, &p, NULL);

  /* Nothing is allowed until listed. */
  g_assert_cmpint (ow_site_list_check (list, "s1", "github.com", 443, FALSE), ==, OW_SITE_DENIED);

  /* Exact entries; a bare host means the web's two ports. */
  g_assert_true (ow_site_list_add (list, "github.com:443", NULL));
  g_assert_true (ow_site_list_add (list, "PyPI.org", NULL));
  g_assert_cmpint (ow_site_list_check (list, NULL, "github.com", 443, FALSE), ==, OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (list, NULL, "github.com", 22, FALSE), ==, OW_SITE_DENIED);
  g_assert_cmpint (ow_site_list_check (list, NULL, "api.github.com", 443, FALSE), ==, OW_SITE_DENIED);
  g_assert_cmpint (ow_site_list_check (list, NULL, "pypi.org", 80, FALSE), ==, OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (list, NULL, "pypi.org", 443, FALSE), ==, OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (list, NULL, "pypi.org", 8080, FALSE), ==, OW_SITE_DENIED);

  /* No wildcard through the ordinary door. */
  g_assert_false (ow_site_list_add (list, "*.github.com:443", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ow_site_list_grant (list, "s1", "*.example.com:443", OW_SITE_GRANT_SESSION, &error));
  g_clear_error (&error);

  /* Once: the next check that consumes it, only. */
  g_assert_true (ow_site_list_grant (list, "s1", "example.com:443", OW_SITE_GRANT_ONCE, NULL));
  g_assert_cmpint (ow_site_list_check (list, "s2", "example.com", 443, TRUE), ==, OW_SITE_DENIED);
  g_assert_cmpint (ow_site_list_check (list, "s1", "example.com", 443, FALSE), ==, OW_SITE_ALLOWED_ONCE);
  g_assert_cmpint (ow_site_list_check (list, "s1", "example.com", 443, TRUE), ==, OW_SITE_ALLOWED_ONCE);
  g_assert_cmpint (ow_site_list_check (list, "s1", "example.com", 443, TRUE), ==, OW_SITE_DENIED);

  /* Session: until the session ends or the grant is taken back. */
  g_assert_true (ow_site_list_grant (list, "s1", "example.org:443", OW_SITE_GRANT_SESSION, NULL));
  g_assert_true (ow_site_list_grant (list, "s1", "example.net:443", OW_SITE_GRANT_SESSION, NULL));
  g_assert_cmpint (ow_site_list_check (list, "s1", "example.org", 443, TRUE), ==, OW_SITE_ALLOWED_SESSION);
  g_assert_cmpint (ow_site_list_check (list, "s1", "example.org", 443, TRUE), ==, OW_SITE_ALLOWED_SESSION);
  g_assert_cmpint (ow_site_list_check (list, "s2", "example.org", 443, TRUE), ==, OW_SITE_DENIED);
  session = ow_site_list_dup_session_entries (list, "s1");
  g_assert_cmpuint (g_strv_length (session), ==, 2);
  g_assert_cmpstr (session[0], ==, "example.net:443");
  g_assert_true (ow_site_list_revoke (list, "s1", "example.net:443"));
  g_assert_false (ow_site_list_revoke (list, "s1", "example.net:443"));
  g_assert_cmpint (ow_site_list_check (list, "s1", "example.net", 443, FALSE), ==, OW_SITE_DENIED);
  ow_site_list_end_session (list, "s1");
  g_assert_cmpint (ow_site_list_check (list, "s1", "example.org", 443, FALSE), ==, OW_SITE_DENIED);

  /* Always: written first; a config that cannot keep it refuses it. */
  p.fail = TRUE;
  g_assert_false (ow_site_list_grant (list, "s1", "crates.io:443", OW_SITE_GRANT_ALWAYS, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_cmpint (ow_site_list_check (list, "s1", "crates.io", 443, FALSE), ==, OW_SITE_DENIED);
  p.fail = FALSE;
  g_assert_true (ow_site_list_grant (list, "s1", "Crates.IO:443", OW_SITE_GRANT_ALWAYS, NULL));
  g_assert_cmpuint (p.written->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (p.written, 0), ==, "crates.io:443");
  g_assert_cmpint (ow_site_list_check (list, "other", "crates.io", 443, FALSE), ==, OW_SITE_ALLOWED_MACHINE);

  /* Catalogue suffixes: whole domains, but never the apex or look-alikes. */
  {
    const char *const hosts[] = { "*.amazonaws.com:443", "sts.example:443", NULL };
    const char *const bad[] = { "*.com:443", NULL };

    g_assert_true (ow_site_list_add_catalogue_hosts (list, hosts, NULL));
    g_assert_false (ow_site_list_add_catalogue_hosts (list, bad, &error));
    g_clear_error (&error);
  }
  g_assert_cmpint (ow_site_list_check (list, NULL, "s3.us-east-1.amazonaws.com", 443, FALSE), ==,
                   OW_SITE_ALLOWED_MACHINE);
  g_assert_cmpint (ow_site_list_check (list, NULL, "amazonaws.com", 443, FALSE), ==, OW_SITE_DENIED);
  g_assert_cmpint (ow_site_list_check (list, NULL, "evilamazonaws.com", 443, FALSE), ==, OW_SITE_DENIED);
  g_assert_cmpint (ow_site_list_check (list, NULL, "s3.amazonaws.com", 80, FALSE), ==, OW_SITE_DENIED);
  g_assert_cmpint (ow_site_list_check (list, NULL, "sts.example", 443, FALSE), ==, OW_SITE_ALLOWED_MACHINE);

  machine = ow_site_list_dup_machine_entries (list);
  g_assert_true (g_strv_contains ((const char *const *) machine, "*.amazonaws.com:443"));
  g_assert_true (g_strv_contains ((const char *const *) machine, "pypi.org:80"));

  /* Open: every name passes the list. */
  ow_site_list_set_open (list, TRUE);
  g_assert_cmpint (ow_site_list_check (list, "s9", "anything.example", 8443, TRUE), ==, OW_SITE_ALLOWED_OPEN);
  ow_site_list_set_open (list, FALSE);
  g_assert_cmpint (ow_site_list_check (list, "s9", "anything.example", 8443, TRUE), ==, OW_SITE_DENIED);

  g_assert_cmpuint (changes, >, 5);
  g_ptr_array_unref (p.written);
}

/* ---- Vetting ---------------------------------------------------------- */

typedef struct {
  OwAddressVerdict *verdict;  /* the answer */
  gboolean          done;     /* the callback ran */
} VetWait;

static void
on_vetted_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  VetWait *w = user_data;
  g_autoptr(GError) error = NULL;

  w->verdict = ow_address_guard_vet_finish (OW_ADDRESS_GUARD (source), result, &error);
  g_assert_no_error (error);
  w->done = TRUE;
}

static OwAddressVerdict *
vet_now (OwAddressGuard *guard,
         const char     *host,
         guint16         port)
{
  VetWait w = { NULL, FALSE };

  ow_address_guard_vet_async (guard, host, port, NULL, on_vetted_cb, &w);
  ow_test_wait_flag (&w.done);
  return w.verdict;
}

static void
check_refused (OwAddressGuard *guard,
               const char     *host,
               guint16         port,
               const char     *description)
{
  g_autoptr(OwAddressVerdict) v = vet_now (guard, host, port);
  g_autofree char *d = ow_address_verdict_describe (v);

  g_assert_false (v->allowed);
  g_assert_cmpuint (v->addresses->len, ==, 0);
  g_assert_null (ow_address_verdict_dup_pin (v));
  g_assert_cmpstr (d, ==, description);
}

static void
check_allowed (OwAddressGuard *guard,
               const char     *host,
               guint16         port,
               const char     *pin)
{
  g_autoptr(OwAddressVerdict) v = vet_now (guard, host, port);
  g_autofree char *got = ow_address_verdict_dup_pin (v);

  if (!v->allowed)
    g_error ("%s refused: %s", host, v->reason);
  g_assert_cmpstr (got, ==, pin);
}

static void
test_vet (void)
{
  g_autoptr(TestResolver) resolver = test_resolver_new ();
  g_autoptr(OwAddressGuard) guard = ow_address_guard_new (G_RESOLVER (resolver));
  g_autoptr(GError) error = NULL;
  const char *const hosts[] = {
    "127.0.0.1:41234", "[::1]:8080", "localhost:9000", "github.com:443", "8.8.8.8:53", "10.1.1.1", NULL,
  };

  test_resolver_add (resolver, "public.test", "8.8.8.8,2606:4700:4700::1111");
  test_resolver_add (resolver, "mixed.test", "8.8.8.8,10.0.0.1");
  test_resolver_add (resolver, "mapped.test", "::ffff:127.0.0.1");
  test_resolver_add (resolver, "meta.test", "169.254.169.254");
  test_resolver_add (resolver, "cgnat.test", "100.100.100.100");
  /* A rebinding name: public when checked, loopback afterwards. */
  test_resolver_add (resolver, "rebind.test", "1.1.1.1");
  test_resolver_add (resolver, "rebind.test", "127.0.0.1");
  test_resolver_add (resolver, "loop.test", "127.0.0.1");

  /* Literals are judged without a lookup. */
  check_allowed (guard, "8.8.8.8", 443, "8.8.8.8");
  check_refused (guard, "127.0.0.1", 80, "127.0.0.1: loopback");
  check_refused (guard, "::1", 80, "::1: loopback");
  check_refused (guard, "169.254.169.254", 80, "169.254.169.254: link-local (includes the cloud metadata endpoint)");
  check_refused (guard, "::ffff:10.0.0.1", 80, "::ffff:10.0.0.1: a private network");

  /* Names: every record counts, and the refused one is named. */
  check_allowed (guard, "public.test", 443, "8.8.8.8");
  check_refused (guard, "mixed.test", 443, "mixed.test (10.0.0.1): a private network");
  check_refused (guard, "mapped.test", 443, "mapped.test (::ffff:127.0.0.1): loopback");
  check_refused (guard, "meta.test", 80, "meta.test (169.254.169.254): link-local (includes the cloud metadata endpoint)");
  check_refused (guard, "cgnat.test", 443, "cgnat.test (100.100.100.100): shared address space (CGNAT / RFC 6598)");

  /* "localhost" is loopback without asking anyone. */
  check_refused (guard, "localhost", 80, "localhost: loopback");
  check_refused (guard, "app.localhost", 80, "app.localhost: loopback");
  g_assert_cmpuint (test_resolver_count (resolver, "localhost"), ==, 0);

  /* A name that does not resolve is refused, and says so. */
  {
    g_autoptr(OwAddressVerdict) v = vet_now (guard, "nowhere.test", 443);

    g_assert_false (v->allowed);
    g_assert_true (v->unresolved);
    g_assert_true (g_str_has_prefix (v->reason, "could not resolve nowhere.test: "));
  }

  /* One lookup per vetting: the first answer is what gets pinned. */
  check_allowed (guard, "rebind.test", 443, "1.1.1.1");
  g_assert_cmpuint (test_resolver_count (resolver, "rebind.test"), ==, 1);
  check_refused (guard, "rebind.test", 443, "rebind.test (127.0.0.1): loopback");

  /* Exceptions: exact host:port only. */
  g_assert_false (ow_address_guard_add_exception (guard, "127.0.0.1", &error));
  g_clear_error (&error);
  g_assert_true (ow_address_guard_add_exception (guard, "loop.test:5000", NULL));
  check_allowed (guard, "loop.test", 5000, "127.0.0.1");
  check_refused (guard, "loop.test", 5001, "loop.test (127.0.0.1): loopback");

  /* From a sandbox_network_hosts list only the literals the guard would
   * refuse, and localhost, become exceptions. */
  ow_address_guard_add_exceptions_from_hosts (guard, hosts);
  g_assert_true (ow_address_guard_is_exception (guard, "127.0.0.1", 41234));
  g_assert_true (ow_address_guard_is_exception (guard, "::1", 8080));
  g_assert_true (ow_address_guard_is_exception (guard, "localhost", 9000));
  g_assert_false (ow_address_guard_is_exception (guard, "github.com", 443));
  g_assert_false (ow_address_guard_is_exception (guard, "8.8.8.8", 53));
  g_assert_false (ow_address_guard_is_exception (guard, "10.1.1.1", 80));
  g_assert_false (ow_address_guard_is_exception (guard, "127.0.0.1", 41235));
  check_allowed (guard, "127.0.0.1", 41234, "127.0.0.1");
  check_refused (guard, "127.0.0.1", 41235, "127.0.0.1: loopback");
}

static void
on_cancelled_vet_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;
  OwAddressVerdict *v = ow_address_guard_vet_finish (OW_ADDRESS_GUARD (source), result, &error);

  g_assert_null (v);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  *done = TRUE;
}

static void
test_vet_cancelled (void)
{
  g_autoptr(OwAddressGuard) guard = ow_address_guard_new (NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  gboolean done = FALSE;

  g_cancellable_cancel (cancellable);
  ow_address_guard_vet_async (guard, "example.com", 443, cancellable, on_cancelled_vet_cb, &done);
  ow_test_wait_flag (&done);
}

/* ---- Pinning ---------------------------------------------------------- */

typedef struct {
  char *host;   /* the Host header the server saw last */
  guint hits;   /* requests served */
} Seen;

static void
on_request_cb (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  Seen *seen = user_data;

  seen->hits++;
  g_free (seen->host);
  seen->host = g_strdup (soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "Host"));
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "pinned", 6);
}

typedef struct {
  OwHttpResponse *resp;   /* the response, or NULL */
  GError         *error;  /* the transport error, or NULL */
  gboolean        done;   /* the callback ran */
} SendWait;

static void
on_sent_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  SendWait *w = user_data;

  w->resp = ow_http_client_send_finish (OW_HTTP_CLIENT (source), result, &w->error);
  w->done = TRUE;
}

static guint16
server_port (SoupServer *server)
{
  GSList *uris = soup_server_get_uris (server);
  guint16 port = (guint16) g_uri_get_port (uris->data);

  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return port;
}

static void
test_pinned_request (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(OwHttpClient) client = ow_http_client_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *expected_host = NULL;
  g_autoptr(OwHttpRequest) req = NULL;
  g_autoptr(OwHttpRequest) unpinned = NULL;
  SendWait w = { 0 };
  Seen seen = { 0 };
  guint16 port;

  soup_server_add_handler (server, NULL, on_request_cb, &seen, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  port = server_port (server);

  /* "never-resolved.test" is in no DNS anywhere: only the pin can get the
   * request to the server, and the server still sees the name. */
  url = g_strdup_printf ("http://never-resolved.test:%u/x", port);
  req = ow_http_request_new ("GET", url);
  ow_http_request_set_proxy (req, "");
  ow_http_request_set_pinned_address (req, "127.0.0.1");
  ow_http_client_send_async (client, req, NULL, NULL, NULL, NULL, on_sent_cb, &w);
  ow_test_wait_flag (&w.done);
  g_assert_no_error (w.error);
  g_assert_cmpuint (ow_http_response_get_status (w.resp), ==, 200);
  expected_host = g_strdup_printf ("never-resolved.test:%u", port);
  g_assert_cmpstr (seen.host, ==, expected_host);
  g_assert_true (g_str_has_prefix (ow_http_response_get_peer (w.resp), "127.0.0.1:"));
  g_clear_pointer (&w.resp, ow_http_response_unref);

  /* The connection just made stays in curl's cache; a request for the
   * same URL pinned elsewhere must not ride it. (127.0.0.2 is loopback too,
   * but nothing listens there: the server is bound to 127.0.0.1.) */
  {
    g_autoptr(OwHttpRequest) moved = ow_http_request_new ("GET", url);

    w.done = FALSE;
    ow_http_request_set_proxy (moved, "");
    ow_http_request_set_pinned_address (moved, "127.0.0.2");
    ow_http_request_set_timeouts (moved, 5000, 5000, 10000);
    ow_http_client_send_async (client, moved, NULL, NULL, NULL, NULL, on_sent_cb, &w);
    ow_test_wait_flag (&w.done);
    g_assert_null (w.resp);
    g_assert_error (w.error, OW_NET_ERROR, OW_NET_ERROR_CONNECT);
    g_clear_error (&w.error);
    g_assert_cmpuint (seen.hits, ==, 1);
  }

  /* Control: the same request without the pin never gets there. */
  w.done = FALSE;
  unpinned = ow_http_request_new ("GET", url);
  ow_http_request_set_proxy (unpinned, "");
  ow_http_request_set_timeouts (unpinned, 5000, 5000, 10000);
  ow_http_client_send_async (client, unpinned, NULL, NULL, NULL, NULL, on_sent_cb, &w);
  ow_test_wait_flag (&w.done);
  g_assert_null (w.resp);
  g_assert_nonnull (w.error);
  g_clear_error (&w.error);
  g_assert_cmpuint (seen.hits, ==, 1);
  g_free (seen.host);
}

static void
test_pinned_request_v6 (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(OwHttpClient) client = ow_http_client_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GInetAddress) lo6 = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV6);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo6, 0);
  g_autofree char *url = NULL;
  g_autoptr(OwHttpRequest) req = NULL;
  SendWait w = { 0 };
  Seen seen = { 0 };

  soup_server_add_handler (server, NULL, on_request_cb, &seen, NULL);
  if (!soup_server_listen (server, addr, 0, &error))
    {
      g_test_skip ("no IPv6 loopback here");
      return;
    }
  url = g_strdup_printf ("http://v6.test:%u/", server_port (server));
  req = ow_http_request_new ("GET", url);
  ow_http_request_set_proxy (req, "");
  ow_http_request_set_pinned_address (req, "::1");
  ow_http_client_send_async (client, req, NULL, NULL, NULL, NULL, on_sent_cb, &w);
  ow_test_wait_flag (&w.done);
  g_assert_no_error (w.error);
  g_assert_cmpuint (ow_http_response_get_status (w.resp), ==, 200);
  g_assert_true (g_str_has_prefix (ow_http_response_get_peer (w.resp), "[::1]:"));
  g_clear_pointer (&w.resp, ow_http_response_unref);
  g_free (seen.host);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/ow/net/address-guard/classify", test_classify);
  g_test_add_func ("/ow/net/address-guard/reasons", test_reasons);
  g_test_add_func ("/ow/net/address-guard/site-parse", test_site_parse);
  g_test_add_func ("/ow/net/address-guard/site-list", test_site_list);
  g_test_add_func ("/ow/net/address-guard/vet", test_vet);
  g_test_add_func ("/ow/net/address-guard/vet-cancelled", test_vet_cancelled);
  g_test_add_func ("/ow/net/address-guard/pinned-request", test_pinned_request);
  g_test_add_func ("/ow/net/address-guard/pinned-request-v6", test_pinned_request_v6);

  return g_test_run ();
}
