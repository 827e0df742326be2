/* ow-address-guard.c: the address guard and the site allow list.
 *
 * The guard answers "may we connect to this destination, and to which
 * address?". Its rules are a table of prefixes per family (below), applied
 * to every address a name resolves to: one bad record refuses the whole
 * name, because a resolver that mixes a public and a private answer is
 * exactly what a rebinding attack looks like, and which record a client
 * would pick is not ours to guess. The vetted addresses are handed back so
 * the caller connects to one of them and never resolves the name again.
 *
 * The site list answers "is this host:port one the person allowed?". It is
 * a set of exact keys ("host:port"), so matching is a hash lookup after
 * the same normalization the entries went through; names never match by
 * prefix or pattern. The credential catalogue's two wildcard families
 * (*.amazonaws.com, *.googleapis.com) are kept apart, as suffixes that only
 * ow_site_list_add_catalogue_hosts() can add, so no config line, grant or
 * --allow-site can widen the list by a pattern.
 */
#define G_LOG_DOMAIN "ow-address-guard"

#include "net/ow-address-guard.h"

#include <string.h>

/* ---- Host names ------------------------------------------------------- */

static gboolean
invalid (GError    **error,
         const char *text,
         const char *why)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "“%s” is not a site: %s.", text, why);
  return FALSE;
}

static gboolean
parse_port (const char *text,
            guint16    *port)
{
  guint value = 0;
  gsize n = 0;

  for (; text[n] != '\0'; n++)
    {
      if (!g_ascii_isdigit (text[n]) || n >= 5)
        return FALSE;
      value = value * 10 + (guint) (text[n] - '0');
    }
  if (n == 0 || value == 0 || value > 65535)
    return FALSE;
  *port = (guint16) value;
  return TRUE;
}

/* Checks a host name's shape: labels of letters, digits, '-' and '_',
 * 1–63 bytes each, 253 in all. Already lower case and ASCII. */
static gboolean
valid_host_name (const char *host)
{
  gsize len = strlen (host);
  gsize label = 0;

  if (len == 0 || len > 253)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      char c = host[i];

      if (c == '.')
        {
          if (label == 0)
            return FALSE;
          label = 0;
          continue;
        }
      if (!g_ascii_isalnum (c) && c != '-' && c != '_')
        return FALSE;
      if (++label > 63)
        return FALSE;
    }
  return label > 0;
}

/* Normalizes a bare host (no brackets, no port); NULL with @why if bad. */
static char *
normalize_host (const char  *raw,
                gboolean     bracketed,
                const char **why)
{
  g_autofree char *ascii = NULL;
  g_autofree char *lower = NULL;
  gsize len;

  if (*raw == '\0')
    {
      *why = "the host is empty";
      return NULL;
    }
  if (strchr (raw, '*') != NULL)
    {
      *why = "wildcards are not allowed, list each exact host name";
      return NULL;
    }
  if (strpbrk (raw, "/@?#%\\ \t\r\n") != NULL)
    {
      *why = "write only a host name and a port, like example.com:443";
      return NULL;
    }

  if (bracketed || strchr (raw, ':') != NULL)
    {
      g_autoptr(GInetAddress) addr = g_inet_address_new_from_string (raw);

      if (addr == NULL || g_inet_address_get_family (addr) != G_SOCKET_FAMILY_IPV6)
        {
          *why = "it is not an IPv6 address";
          return NULL;
        }
      return g_inet_address_to_string (addr);
    }

  if (g_hostname_is_non_ascii (raw))
    {
      ascii = g_hostname_to_ascii (raw);
      if (ascii == NULL)
        {
          *why = "it is not a valid international host name";
          return NULL;
        }
      raw = ascii;
    }
  lower = g_ascii_strdown (raw, -1);
  len = strlen (lower);
  if (len > 1 && lower[len - 1] == '.')
    lower[len - 1] = '\0';

  if (g_hostname_is_ip_address (lower))
    {
      g_autoptr(GInetAddress) addr = g_inet_address_new_from_string (lower);

      if (addr == NULL)
        {
          *why = "it is not an IP address";
          return NULL;
        }
      return g_inet_address_to_string (addr);
    }
  if (!valid_host_name (lower))
    {
      *why = "it is not a host name (letters, digits, '-' and '.')";
      return NULL;
    }
  return g_steal_pointer (&lower);
}

gboolean
ow_site_parse (const char  *text,
               gboolean     require_port,
               char       **host,
               guint16     *port,
               GError     **error)
{
  g_autofree char *raw = NULL;
  const char *port_text = NULL;
  const char *why = NULL;
  gboolean bracketed = FALSE;
  guint16 p = 0;
  char *h;

  g_return_val_if_fail (text != NULL, FALSE);

  if (text[0] == '[')
    {
      const char *close = strchr (text, ']');

      if (close == NULL)
        return invalid (error, text, "the IPv6 address has no closing ‘]’");
      raw = g_strndup (text + 1, (gsize) (close - text - 1));
      bracketed = TRUE;
      if (close[1] == ':')
        port_text = close + 2;
      else if (close[1] != '\0')
        return invalid (error, text, "only a port may follow the IPv6 address");
    }
  else
    {
      const char *colon = strchr (text, ':');

      if (colon != NULL && strchr (colon + 1, ':') != NULL)
        {
          /* Several colons and no brackets: a bare IPv6 address, no port. */
          if (require_port)
            return invalid (error, text, "write an IPv6 address in brackets with its port, like [2001:db8::1]:443");
          raw = g_strdup (text);
        }
      else if (colon != NULL)
        {
          raw = g_strndup (text, (gsize) (colon - text));
          port_text = colon + 1;
        }
      else
        raw = g_strdup (text);
    }

  if (port_text != NULL && !parse_port (port_text, &p))
    return invalid (error, text, "the port must be a number from 1 to 65535");
  if (port_text == NULL && require_port)
    return invalid (error, text, "it needs a port, like example.com:443");

  h = normalize_host (raw, bracketed, &why);
  if (h == NULL)
    return invalid (error, text, why);

  if (host != NULL)
    *host = h;
  else
    g_free (h);
  if (port != NULL)
    *port = p;
  return TRUE;
}

char *
ow_site_format (const char *host,
                guint16     port)
{
  g_return_val_if_fail (host != NULL, NULL);

  if (strchr (host, ':') != NULL)
    return g_strdup_printf ("[%s]:%u", host, (guint) port);
  return g_strdup_printf ("%s:%u", host, (guint) port);
}

gboolean
ow_site_host_is_ip (const char *host)
{
  return host != NULL && g_hostname_is_ip_address (host);
}

/* ---- Address classes -------------------------------------------------- */

/* A prefix rule: the first @bits bits of an address equal @prefix. */
typedef struct {
  guint8         prefix[16]; /* network bytes; only the first @bits bits count */
  guint          bits;       /* prefix length */
  OwAddressClass klass;      /* what such an address is */
} PrefixRule;

static gboolean
prefix_matches (const guint8 *addr,
                const guint8 *prefix,
                guint         bits)
{
  guint whole = bits / 8;
  guint rest = bits % 8;

  if (memcmp (addr, prefix, whole) != 0)
    return FALSE;
  if (rest == 0)
    return TRUE;
  return ((addr[whole] ^ prefix[whole]) & (guint8) (0xFF << (8 - rest))) == 0;
}

/* IPv4, most specific first where ranges nest. */
static const PrefixRule v4_rules[] = {
  { { 127 }, 8, OW_ADDRESS_LOOPBACK },
  { { 169, 254 }, 16, OW_ADDRESS_LINK_LOCAL },
  { { 0 }, 8, OW_ADDRESS_PRIVATE },               /* "this network"; 0.0.0.0 reaches this host on Linux */
  { { 10 }, 8, OW_ADDRESS_PRIVATE },
  { { 172, 16 }, 12, OW_ADDRESS_PRIVATE },
  { { 192, 168 }, 16, OW_ADDRESS_PRIVATE },
  { { 192, 0, 0 }, 24, OW_ADDRESS_PRIVATE },      /* IETF protocol assignments */
  { { 100, 64 }, 10, OW_ADDRESS_SHARED },         /* RFC 6598; 100.63.x and 100.128.x are public */
  { { 224 }, 4, OW_ADDRESS_MULTICAST },
  { { 240 }, 4, OW_ADDRESS_RESERVED },            /* includes 255.255.255.255 */
  { { 192, 0, 2 }, 24, OW_ADDRESS_RESERVED },     /* documentation */
  { { 198, 51, 100 }, 24, OW_ADDRESS_RESERVED },  /* documentation */
  { { 203, 0, 113 }, 24, OW_ADDRESS_RESERVED },   /* documentation */
  { { 198, 18 }, 15, OW_ADDRESS_RESERVED },       /* benchmarking */
  { { 192, 88, 99 }, 24, OW_ADDRESS_RESERVED },   /* former 6to4 relay anycast */
};

/* IPv6 ranges that are not judged by an IPv4 address they carry (those are
 * handled in classify_v6 first). Anything outside 2000::/3 is reserved. */
static const PrefixRule v6_rules[] = {
  { { 0xfe, 0x80 }, 10, OW_ADDRESS_LINK_LOCAL },
  { { 0xfe, 0xc0 }, 10, OW_ADDRESS_PRIVATE },          /* deprecated site-local */
  { { 0xfc }, 7, OW_ADDRESS_PRIVATE },                 /* unique local */
  { { 0xff }, 8, OW_ADDRESS_MULTICAST },
  { { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48, OW_ADDRESS_PRIVATE }, /* local-use NAT64 */
  { { 0x01, 0x00 }, 64, OW_ADDRESS_RESERVED },         /* discard-only */
  { { 0x20, 0x01, 0x0d, 0xb8 }, 32, OW_ADDRESS_RESERVED }, /* documentation */
  { { 0x20, 0x01, 0x00 }, 23, OW_ADDRESS_RESERVED },   /* IETF protocol assignments: Teredo, benchmarking, ORCHID */
  { { 0x3f, 0xff }, 20, OW_ADDRESS_RESERVED },         /* documentation (RFC 9637) */
  { { 0x5f, 0x00 }, 16, OW_ADDRESS_RESERVED },         /* SRv6 SIDs */
};

static OwAddressClass
classify_v4 (const guint8 *b)
{
  for (gsize i = 0; i < G_N_ELEMENTS (v4_rules); i++)
    if (prefix_matches (b, v4_rules[i].prefix, v4_rules[i].bits))
      return v4_rules[i].klass;
  return OW_ADDRESS_PUBLIC;
}

static OwAddressClass
classify_v6 (const guint8 *b)
{
  static const guint8 zero[16] = { 0 };
  static const guint8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
  static const guint8 translated[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 };
  static const guint8 nat64[12] = { 0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0 };

  if (memcmp (b, zero, 16) == 0)
    return OW_ADDRESS_RESERVED;                       /* :: */
  if (memcmp (b, zero, 15) == 0 && b[15] == 1)
    return OW_ADDRESS_LOOPBACK;                       /* ::1 */
  /* Addresses that carry an IPv4 address reach (or are routed towards)
   * that address: judge them by it. */
  if (memcmp (b, mapped, 12) == 0 || memcmp (b, translated, 12) == 0 || memcmp (b, nat64, 12) == 0)
    return classify_v4 (b + 12);
  if (b[0] == 0x20 && b[1] == 0x02)
    return classify_v4 (b + 2);                       /* 6to4 */

  for (gsize i = 0; i < G_N_ELEMENTS (v6_rules); i++)
    if (prefix_matches (b, v6_rules[i].prefix, v6_rules[i].bits))
      return v6_rules[i].klass;
  /* Only 2000::/3 is allocated as global unicast. This also covers the
   * deprecated IPv4-compatible ::a.b.c.d. */
  if ((b[0] & 0xe0) != 0x20)
    return OW_ADDRESS_RESERVED;
  return OW_ADDRESS_PUBLIC;
}

OwAddressClass
ow_address_classify (GInetAddress *address)
{
  const guint8 *bytes;

  g_return_val_if_fail (G_IS_INET_ADDRESS (address), OW_ADDRESS_RESERVED);

  bytes = g_inet_address_to_bytes (address);
  if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV4)
    return classify_v4 (bytes);
  return classify_v6 (bytes);
}

OwAddressClass
ow_address_classify_string (const char *ip)
{
  g_autoptr(GInetAddress) addr = NULL;

  g_return_val_if_fail (ip != NULL, OW_ADDRESS_RESERVED);

  addr = g_inet_address_new_from_string (ip);
  if (addr == NULL)
    return OW_ADDRESS_RESERVED;
  return ow_address_classify (addr);
}

const char *
ow_address_class_reason (OwAddressClass klass)
{
  switch (klass)
    {
    case OW_ADDRESS_PUBLIC: return NULL;
    case OW_ADDRESS_LOOPBACK: return "loopback";
    case OW_ADDRESS_LINK_LOCAL: return "link-local (includes the cloud metadata endpoint)";
    case OW_ADDRESS_PRIVATE: return "a private network";
    case OW_ADDRESS_SHARED: return "shared address space (CGNAT / RFC 6598)";
    case OW_ADDRESS_MULTICAST: return "multicast";
    case OW_ADDRESS_RESERVED:
    default: return "a reserved range";
    }
}

/* ---- Verdicts --------------------------------------------------------- */

static OwAddressVerdict *
verdict_new (const char *host,
             guint16     port)
{
  OwAddressVerdict *v = g_new0 (OwAddressVerdict, 1);

  v->host = g_strdup (host);
  v->port = port;
  v->addresses = g_ptr_array_new_with_free_func (g_object_unref);
  return v;
}

static void
verdict_refuse (OwAddressVerdict *v,
                const char       *ip,
                const char       *reason)
{
  v->allowed = FALSE;
  g_ptr_array_set_size (v->addresses, 0);
  v->refused_ip = g_strdup (ip);
  v->reason = g_strdup (reason);
}

void
ow_address_verdict_free (OwAddressVerdict *verdict)
{
  if (verdict == NULL)
    return;
  g_free (verdict->host);
  g_ptr_array_unref (verdict->addresses);
  g_free (verdict->refused_ip);
  g_free (verdict->reason);
  g_free (verdict);
}

char *
ow_address_verdict_describe (const OwAddressVerdict *verdict)
{
  g_return_val_if_fail (verdict != NULL, NULL);

  if (verdict->allowed)
    return g_strdup_printf ("%s: allowed", verdict->host);
  /* A refused literal names itself; a name shows which address failed it. */
  if (verdict->refused_ip != NULL && g_strcmp0 (verdict->refused_ip, verdict->host) != 0)
    return g_strdup_printf ("%s (%s): %s", verdict->host, verdict->refused_ip, verdict->reason);
  return g_strdup_printf ("%s: %s", verdict->host, verdict->reason);
}

char *
ow_address_verdict_dup_pin (const OwAddressVerdict *verdict)
{
  g_return_val_if_fail (verdict != NULL, NULL);

  if (!verdict->allowed || verdict->addresses->len == 0)
    return NULL;
  return g_inet_address_to_string (g_ptr_array_index (verdict->addresses, 0));
}

/* ---- The guard -------------------------------------------------------- */

struct _OwAddressGuard
{
  GObject     parent_instance;

  GResolver  *resolver;    /* answers name lookups (the system's, or a test's) */
  GHashTable *exceptions;  /* "host:port" keys that lift the guard (set) */
};

G_DEFINE_FINAL_TYPE (OwAddressGuard, ow_address_guard, G_TYPE_OBJECT)

static void
ow_address_guard_finalize (GObject *object)
{
  OwAddressGuard *self = OW_ADDRESS_GUARD (object);

  g_clear_object (&self->resolver);
  g_hash_table_unref (self->exceptions);
  G_OBJECT_CLASS (ow_address_guard_parent_class)->finalize (object);
}

static void
ow_address_guard_class_init (OwAddressGuardClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_address_guard_finalize;
}

static void
ow_address_guard_init (OwAddressGuard *self)
{
  self->exceptions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

OwAddressGuard *
ow_address_guard_new (GResolver *resolver)
{
  OwAddressGuard *self;

  g_return_val_if_fail (resolver == NULL || G_IS_RESOLVER (resolver), NULL);

  self = g_object_new (OW_TYPE_ADDRESS_GUARD, NULL);
  self->resolver = resolver != NULL ? g_object_ref (resolver) : g_resolver_get_default ();
  return self;
}

gboolean
ow_address_guard_add_exception (OwAddressGuard *self,
                                const char     *host_port,
                                GError        **error)
{
  g_autofree char *host = NULL;
  guint16 port = 0;

  g_return_val_if_fail (OW_IS_ADDRESS_GUARD (self), FALSE);
  g_return_val_if_fail (host_port != NULL, FALSE);

  if (!ow_site_parse (host_port, TRUE, &host, &port, error))
    return FALSE;
  g_hash_table_add (self->exceptions, ow_site_format (host, port));
  return TRUE;
}

void
ow_address_guard_add_exceptions_from_hosts (OwAddressGuard    *self,
                                            const char *const *hosts)
{
  g_return_if_fail (OW_IS_ADDRESS_GUARD (self));

  for (gsize i = 0; hosts != NULL && hosts[i] != NULL; i++)
    {
      g_autofree char *host = NULL;
      guint16 port = 0;

      if (!ow_site_parse (hosts[i], TRUE, &host, &port, NULL))
        continue;
      /* Only literals the guard would refuse, and localhost: a name that
       * merely resolves privately today is not an exception, since what it
       * resolves to is what an attacker controls. */
      if (g_str_equal (host, "localhost")
          || (ow_site_host_is_ip (host) && ow_address_classify_string (host) != OW_ADDRESS_PUBLIC))
        g_hash_table_add (self->exceptions, ow_site_format (host, port));
    }
}

gboolean
ow_address_guard_is_exception (OwAddressGuard *self,
                               const char     *host,
                               guint16         port)
{
  g_autofree char *key = NULL;

  g_return_val_if_fail (OW_IS_ADDRESS_GUARD (self), FALSE);
  g_return_val_if_fail (host != NULL, FALSE);

  key = ow_site_format (host, port);
  return g_hash_table_contains (self->exceptions, key);
}

/* Judges @addresses into @v: every one must be public unless excepted. */
static void
judge (OwAddressVerdict *v,
       GList            *addresses)
{
  for (GList *l = addresses; l != NULL; l = l->next)
    {
      GInetAddress *addr = l->data;
      OwAddressClass klass = ow_address_classify (addr);

      if (klass != OW_ADDRESS_PUBLIC && !v->excepted)
        {
          g_autofree char *ip = g_inet_address_to_string (addr);

          verdict_refuse (v, ip, ow_address_class_reason (klass));
          return;
        }
      g_ptr_array_add (v->addresses, g_object_ref (addr));
    }
  v->allowed = v->addresses->len > 0;
  if (!v->allowed)
    verdict_refuse (v, NULL, "the name has no address");
}

static gboolean
is_localhost_name (const char *host)
{
  return g_str_equal (host, "localhost") || g_str_has_suffix (host, ".localhost");
}

static void
on_lookup_done_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  OwAddressVerdict *v = g_task_get_task_data (task);  /* ours until returned */
  g_autoptr(GError) error = NULL;
  GList *addresses = g_resolver_lookup_by_name_finish (G_RESOLVER (source), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      ow_address_verdict_free (v);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (addresses == NULL)
    {
      g_autofree char *reason = g_strdup_printf ("could not resolve %s: %s", v->host,
                                                 error != NULL ? error->message : "no address");

      verdict_refuse (v, NULL, reason);
      v->unresolved = TRUE;
    }
  else
    {
      judge (v, addresses);
      g_resolver_free_addresses (addresses);
    }
  g_task_return_pointer (task, v, (GDestroyNotify) ow_address_verdict_free);
}

void
ow_address_guard_vet_async (OwAddressGuard      *self,
                            const char          *host,
                            guint16              port,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  OwAddressVerdict *v;

  g_return_if_fail (OW_IS_ADDRESS_GUARD (self));
  g_return_if_fail (host != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ow_address_guard_vet_async);
  if (g_task_return_error_if_cancelled (task))
    return;

  v = verdict_new (host, port);
  v->excepted = ow_address_guard_is_exception (self, host, port);

  if (ow_site_host_is_ip (host))
    {
      g_autoptr(GInetAddress) addr = g_inet_address_new_from_string (host);
      GList one = { addr, NULL, NULL };

      if (addr == NULL)
        verdict_refuse (v, NULL, "it is not an IP address");
      else
        judge (v, &one);
      g_task_return_pointer (task, v, (GDestroyNotify) ow_address_verdict_free);
      return;
    }

  /* "localhost" is loopback by definition (RFC 6761): no need to ask. */
  if (is_localhost_name (host) && !v->excepted)
    {
      verdict_refuse (v, NULL, ow_address_class_reason (OW_ADDRESS_LOOPBACK));
      g_task_return_pointer (task, v, (GDestroyNotify) ow_address_verdict_free);
      return;
    }

  /* The verdict rides as task data without a destroy function: the
   * callback either returns it or frees it. */
  g_task_set_task_data (task, v, NULL);
  g_resolver_lookup_by_name_async (self->resolver, host, cancellable, on_lookup_done_cb,
                                   g_steal_pointer (&task));
}

OwAddressVerdict *
ow_address_guard_vet_finish (OwAddressGuard *self,
                             GAsyncResult   *result,
                             GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- The site allow list ---------------------------------------------- */

/* A catalogue suffix: any name ending in @suffix, on @port. */
typedef struct {
  char    *suffix;  /* ".amazonaws.com": with its leading dot */
  guint16  port;    /* the one port it opens */
} SiteSuffix;

/* One session's grants. */
typedef struct {
  GHashTable *keys;  /* "host:port" granted for the session (set) */
  GPtrArray  *once;  /* GStrv: the keys of each once grant not yet used */
} SiteSession;

struct _OwSiteList
{
  GObject            parent_instance;

  GMutex             lock;            /* guards everything below */
  gboolean           open;            /* "open" profile: no list applies */
  GHashTable        *machine;         /* "host:port" keys on the machine's list (set) */
  GArray            *suffixes;        /* SiteSuffix: the catalogue's wildcard families */
  GHashTable        *sessions;        /* session id → SiteSession * */
  OwSitePersistFunc  persist;         /* writes an "always" grant to config.toml, or NULL */
  gpointer           persist_data;    /* for @persist */
  GDestroyNotify     persist_destroy; /* frees @persist_data */
};

G_DEFINE_FINAL_TYPE (OwSiteList, ow_site_list, G_TYPE_OBJECT)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
site_session_free (gpointer data)
{
  SiteSession *s = data;

  g_hash_table_unref (s->keys);
  g_ptr_array_unref (s->once);
  g_free (s);
}

static void
site_suffix_clear (gpointer data)
{
  SiteSuffix *s = data;

  g_free (s->suffix);
}

static void
ow_site_list_finalize (GObject *object)
{
  OwSiteList *self = OW_SITE_LIST (object);

  if (self->persist_destroy != NULL)
    self->persist_destroy (self->persist_data);
  g_hash_table_unref (self->machine);
  g_array_unref (self->suffixes);
  g_hash_table_unref (self->sessions);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ow_site_list_parent_class)->finalize (object);
}

static void
ow_site_list_class_init (OwSiteListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_site_list_finalize;

  /**
   * OwSiteList::changed:
   *
   * An entry or grant was added or taken back, so a view of the list (the
   * session's Access section, Settings ▸ Sandbox) should refresh. Emitted
   * on the thread that made the change.
   */
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
ow_site_list_init (OwSiteList *self)
{
  g_mutex_init (&self->lock);
  self->machine = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->suffixes = g_array_new (FALSE, TRUE, sizeof (SiteSuffix));
  g_array_set_clear_func (self->suffixes, site_suffix_clear);
  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, site_session_free);
}

OwSiteList *
ow_site_list_new (void)
{
  return g_object_new (OW_TYPE_SITE_LIST, NULL);
}

void
ow_site_list_set_open (OwSiteList *self,
                       gboolean    open)
{
  g_return_if_fail (OW_IS_SITE_LIST (self));

  g_mutex_lock (&self->lock);
  self->open = !!open;
  g_mutex_unlock (&self->lock);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

gboolean
ow_site_list_get_open (OwSiteList *self)
{
  gboolean open;

  g_return_val_if_fail (OW_IS_SITE_LIST (self), FALSE);

  g_mutex_lock (&self->lock);
  open = self->open;
  g_mutex_unlock (&self->lock);
  return open;
}

/* The keys an entry stands for: "host:port" itself, or for a bare host the
 * web's two ports. */
static GStrv
entry_keys (const char  *entry,
            char       **normalized,
            GError     **error)
{
  g_autofree char *host = NULL;
  guint16 port = 0;
  GStrv keys;

  if (!ow_site_parse (entry, FALSE, &host, &port, error))
    return NULL;
  keys = g_new0 (char *, 3);
  if (port != 0)
    {
      keys[0] = ow_site_format (host, port);
      if (normalized != NULL)
        *normalized = g_strdup (keys[0]);
    }
  else
    {
      keys[0] = ow_site_format (host, 80);
      keys[1] = ow_site_format (host, 443);
      if (normalized != NULL)
        *normalized = strchr (host, ':') != NULL ? g_strdup_printf ("[%s]", host) : g_strdup (host);
    }
  return keys;
}

gboolean
ow_site_list_add (OwSiteList *self,
                  const char *entry,
                  GError    **error)
{
  g_auto(GStrv) keys = NULL;

  g_return_val_if_fail (OW_IS_SITE_LIST (self), FALSE);
  g_return_val_if_fail (entry != NULL, FALSE);

  keys = entry_keys (entry, NULL, error);
  if (keys == NULL)
    return FALSE;
  g_mutex_lock (&self->lock);
  for (guint i = 0; keys[i] != NULL; i++)
    g_hash_table_add (self->machine, g_strdup (keys[i]));
  g_mutex_unlock (&self->lock);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

gboolean
ow_site_list_add_catalogue_hosts (OwSiteList        *self,
                                  const char *const *hosts,
                                  GError           **error)
{
  g_autoptr(GPtrArray) exact = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) suffixes = g_array_new (FALSE, TRUE, sizeof (SiteSuffix));

  g_return_val_if_fail (OW_IS_SITE_LIST (self), FALSE);

  g_array_set_clear_func (suffixes, site_suffix_clear);

  /* Check every entry before adding any, so a bad list changes nothing. */
  for (gsize i = 0; hosts != NULL && hosts[i] != NULL; i++)
    {
      const char *h = hosts[i];

      if (g_str_has_prefix (h, "*."))
        {
          g_autofree char *host = NULL;
          guint16 port = 0;
          SiteSuffix s;

          if (!ow_site_parse (h + 2, TRUE, &host, &port, error))
            return FALSE;
          /* "*.com" would open a whole top-level domain. */
          if (strchr (host, '.') == NULL || ow_site_host_is_ip (host))
            return invalid (error, h, "a wildcard needs a domain of at least two labels");
          s.suffix = g_strconcat (".", host, NULL);
          s.port = port;
          g_array_append_val (suffixes, s);
        }
      else
        {
          g_auto(GStrv) keys = entry_keys (h, NULL, error);

          if (keys == NULL)
            return FALSE;
          for (guint k = 0; keys[k] != NULL; k++)
            g_ptr_array_add (exact, g_strdup (keys[k]));
        }
    }

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < exact->len; i++)
    g_hash_table_add (self->machine, g_strdup (g_ptr_array_index (exact, i)));
  for (guint i = 0; i < suffixes->len; i++)
    {
      SiteSuffix *s = &g_array_index (suffixes, SiteSuffix, i);
      gboolean known = FALSE;

      for (guint j = 0; j < self->suffixes->len && !known; j++)
        {
          SiteSuffix *t = &g_array_index (self->suffixes, SiteSuffix, j);

          known = t->port == s->port && g_str_equal (t->suffix, s->suffix);
        }
      if (!known)
        {
          SiteSuffix copy = { g_strdup (s->suffix), s->port };

          g_array_append_val (self->suffixes, copy);
        }
    }
  g_mutex_unlock (&self->lock);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

void
ow_site_list_set_persist_func (OwSiteList       *self,
                               OwSitePersistFunc func,
                               gpointer          user_data,
                               GDestroyNotify    destroy)
{
  g_return_if_fail (OW_IS_SITE_LIST (self));

  g_mutex_lock (&self->lock);
  if (self->persist_destroy != NULL)
    self->persist_destroy (self->persist_data);
  self->persist = func;
  self->persist_data = user_data;
  self->persist_destroy = destroy;
  g_mutex_unlock (&self->lock);
}

/* Called with the lock held. */
static SiteSession *
session_get (OwSiteList *self,
             const char *session_id,
             gboolean    create)
{
  SiteSession *s = g_hash_table_lookup (self->sessions, session_id);

  if (s == NULL && create)
    {
      s = g_new0 (SiteSession, 1);
      s->keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      s->once = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
      g_hash_table_insert (self->sessions, g_strdup (session_id), s);
    }
  return s;
}

gboolean
ow_site_list_grant (OwSiteList  *self,
                    const char  *session_id,
                    const char  *entry,
                    OwSiteGrant  grant,
                    GError     **error)
{
  g_autofree char *normalized = NULL;
  g_auto(GStrv) keys = NULL;
  OwSitePersistFunc persist;
  gpointer persist_data;
  SiteSession *s;

  g_return_val_if_fail (OW_IS_SITE_LIST (self), FALSE);
  g_return_val_if_fail (entry != NULL, FALSE);
  g_return_val_if_fail (session_id != NULL || grant == OW_SITE_GRANT_ALWAYS, FALSE);

  keys = entry_keys (entry, &normalized, error);
  if (keys == NULL)
    return FALSE;

  switch (grant)
    {
    case OW_SITE_GRANT_ALWAYS:
      g_mutex_lock (&self->lock);
      persist = self->persist;
      persist_data = self->persist_data;
      g_mutex_unlock (&self->lock);
      /* Written first: a grant the config cannot keep is not "always". The
       * lock is not held, since the function does disk I/O. */
      if (persist != NULL && !persist (normalized, persist_data, error))
        return FALSE;
      g_mutex_lock (&self->lock);
      for (guint i = 0; keys[i] != NULL; i++)
        g_hash_table_add (self->machine, g_strdup (keys[i]));
      g_mutex_unlock (&self->lock);
      break;

    case OW_SITE_GRANT_SESSION:
      g_mutex_lock (&self->lock);
      s = session_get (self, session_id, TRUE);
      for (guint i = 0; keys[i] != NULL; i++)
        g_hash_table_add (s->keys, g_strdup (keys[i]));
      g_mutex_unlock (&self->lock);
      break;

    case OW_SITE_GRANT_ONCE:
    default:
      g_mutex_lock (&self->lock);
      s = session_get (self, session_id, TRUE);
      g_ptr_array_add (s->once, g_steal_pointer (&keys));
      g_mutex_unlock (&self->lock);
      break;
    }

  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

gboolean
ow_site_list_revoke (OwSiteList *self,
                     const char *session_id,
                     const char *entry)
{
  g_auto(GStrv) keys = NULL;
  gboolean removed = FALSE;
  SiteSession *s;

  g_return_val_if_fail (OW_IS_SITE_LIST (self), FALSE);
  g_return_val_if_fail (session_id != NULL && entry != NULL, FALSE);

  keys = entry_keys (entry, NULL, NULL);
  if (keys == NULL)
    return FALSE;

  g_mutex_lock (&self->lock);
  s = session_get (self, session_id, FALSE);
  if (s != NULL)
    {
      for (guint i = 0; keys[i] != NULL; i++)
        removed |= g_hash_table_remove (s->keys, keys[i]);
      for (guint i = s->once->len; i > 0; i--)
        {
          GStrv once = g_ptr_array_index (s->once, i - 1);

          if (g_strv_contains ((const char *const *) once, keys[0]))
            {
              g_ptr_array_remove_index (s->once, i - 1);
              removed = TRUE;
            }
        }
    }
  g_mutex_unlock (&self->lock);
  if (removed)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return removed;
}

void
ow_site_list_end_session (OwSiteList *self,
                          const char *session_id)
{
  gboolean removed;

  g_return_if_fail (OW_IS_SITE_LIST (self));
  g_return_if_fail (session_id != NULL);

  g_mutex_lock (&self->lock);
  removed = g_hash_table_remove (self->sessions, session_id);
  g_mutex_unlock (&self->lock);
  if (removed)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* Called with the lock held. */
static gboolean
suffix_allows (OwSiteList *self,
               const char *host,
               guint16     port)
{
  if (ow_site_host_is_ip (host))
    return FALSE;
  for (guint i = 0; i < self->suffixes->len; i++)
    {
      SiteSuffix *s = &g_array_index (self->suffixes, SiteSuffix, i);

      /* The suffix keeps its dot, so "evilamazonaws.com" does not match. */
      if (s->port == port && g_str_has_suffix (host, s->suffix) && strlen (host) > strlen (s->suffix))
        return TRUE;
    }
  return FALSE;
}

OwSiteDecision
ow_site_list_check (OwSiteList *self,
                    const char *session_id,
                    const char *host,
                    guint16     port,
                    gboolean    consume)
{
  g_autofree char *key = NULL;
  OwSiteDecision decision = OW_SITE_DENIED;
  gboolean consumed = FALSE;
  SiteSession *s;

  g_return_val_if_fail (OW_IS_SITE_LIST (self), OW_SITE_DENIED);
  g_return_val_if_fail (host != NULL, OW_SITE_DENIED);

  key = ow_site_format (host, port);
  g_mutex_lock (&self->lock);
  if (self->open)
    decision = OW_SITE_ALLOWED_OPEN;
  else if (g_hash_table_contains (self->machine, key) || suffix_allows (self, host, port))
    decision = OW_SITE_ALLOWED_MACHINE;
  else if (session_id != NULL && (s = session_get (self, session_id, FALSE)) != NULL)
    {
      if (g_hash_table_contains (s->keys, key))
        decision = OW_SITE_ALLOWED_SESSION;
      else
        for (guint i = 0; i < s->once->len; i++)
          {
            GStrv once = g_ptr_array_index (s->once, i);

            if (g_strv_contains ((const char *const *) once, key))
              {
                decision = OW_SITE_ALLOWED_ONCE;
                if (consume)
                  {
                    g_ptr_array_remove_index (s->once, i);
                    consumed = TRUE;
                  }
                break;
              }
          }
    }
  g_mutex_unlock (&self->lock);

  if (consumed)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return decision;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static char **
sorted_strv (GPtrArray *items)
{
  g_ptr_array_sort (items, compare_strings);
  g_ptr_array_add (items, NULL);
  return (char **) g_ptr_array_free (items, FALSE);
}

char **
ow_site_list_dup_machine_entries (OwSiteList *self)
{
  GPtrArray *items = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (OW_IS_SITE_LIST (self), NULL);

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->machine);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (items, g_strdup (key));
  for (guint i = 0; i < self->suffixes->len; i++)
    {
      SiteSuffix *s = &g_array_index (self->suffixes, SiteSuffix, i);

      g_ptr_array_add (items, g_strdup_printf ("*%s:%u", s->suffix, (guint) s->port));
    }
  g_mutex_unlock (&self->lock);
  return sorted_strv (items);
}

char **
ow_site_list_dup_session_entries (OwSiteList *self,
                                  const char *session_id)
{
  GPtrArray *items = g_ptr_array_new ();
  SiteSession *s;

  g_return_val_if_fail (OW_IS_SITE_LIST (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  g_mutex_lock (&self->lock);
  s = session_get (self, session_id, FALSE);
  if (s != NULL)
    {
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, s->keys);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_ptr_array_add (items, g_strdup (key));
      for (guint i = 0; i < s->once->len; i++)
        {
          GStrv once = g_ptr_array_index (s->once, i);

          for (guint k = 0; once[k] != NULL; k++)
            g_ptr_array_add (items, g_strdup (once[k]));
        }
    }
  g_mutex_unlock (&self->lock);
  return sorted_strv (items);
}
