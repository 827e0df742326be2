/* ow-address-guard.h: where the engine's own network traffic may go.
 *
 * Two checks stand between the agent and the network, and both the
 * allow-list proxy (what a sandboxed command reaches) and the web tools
 * (web_fetch and web_search, which run in the app) consult them:
 *
 *  - OwSiteList, by name: the machine's allow list of exact host[:port]
 *    entries plus the grants a person gives a session (once, this session,
 *    always). Nothing here is ever a wildcard, except the few domain
 *    suffixes the credential catalogue brings (*.amazonaws.com:443), which
 *    enter only through ow_site_list_add_catalogue_hosts().
 *
 *  - OwAddressGuard, by address: a destination's name is resolved once,
 *    every A/AAAA record is judged, and a destination with any address on
 *    this machine, a private or link-local network, CGNAT, multicast or a
 *    reserved range is refused (an IPv4-mapped IPv6 address is judged as
 *    the IPv4 address it carries). The connection is then made to the
 *    vetted address itself (see ow_http_request_set_pinned_address()), so
 *    a name that answers differently the second time (DNS rebinding) cannot
 *    move it. The only thing that lifts the guard is an exception: an exact
 *    host:port a person listed, typically a loopback test server
 *    ("127.0.0.1:41234" in sandbox_network_hosts).
 *
 * Both objects belong to the main context they are used on; OwSiteList
 * takes a lock so a grant may come from another thread.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* ---- Host names ------------------------------------------------------- */

/* Parses "host", "host:port" or "[v6]:port" into a normalized host
 * (lower case, no trailing dot, IDN in ASCII, IP literals in their
 * canonical text, IPv6 without brackets) and a port (0 when none was
 * given; with @require_port that is an error). Wildcards, user info, paths,
 * zone ids and anything that is not a host name or IP literal fail with
 * G_IO_ERROR_INVALID_ARGUMENT and a sentence naming the entry. */
gboolean    ow_site_parse        (const char  *text,
                                  gboolean     require_port,
                                  char       **host,
                                  guint16     *port,
                                  GError     **error);
/* "host:port", or "[v6]:port" for an IPv6 literal. */
char       *ow_site_format       (const char *host, guint16 port);
/* Whether @host (normalized) is an IP literal. */
gboolean    ow_site_host_is_ip   (const char *host);

/* ---- Address classes -------------------------------------------------- */

typedef enum {
  OW_ADDRESS_PUBLIC,      /* may be reached */
  OW_ADDRESS_LOOPBACK,    /* 127/8, ::1, "localhost" */
  OW_ADDRESS_LINK_LOCAL,  /* 169.254/16 (cloud metadata), fe80::/10 */
  OW_ADDRESS_PRIVATE,     /* 10/8, 172.16/12, 192.168/16, 0/8, 192.0.0/24, fc00::/7, fec0::/10 */
  OW_ADDRESS_SHARED,      /* 100.64/10 (CGNAT, Tailscale) */
  OW_ADDRESS_MULTICAST,   /* 224/4, ff00::/8 */
  OW_ADDRESS_RESERVED,    /* 240/4, documentation and benchmark ranges, ::, and all IPv6 outside 2000::/3 */
} OwAddressClass;

/* The class of @address. IPv4-mapped (::ffff:a.b.c.d), IPv4-translated,
 * NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses are judged by the
 * IPv4 address they carry. */
OwAddressClass ow_address_classify        (GInetAddress *address);
/* The same for a textual IP literal; OW_ADDRESS_RESERVED if it is not one. */
OwAddressClass ow_address_classify_string (const char *ip);
/* The reason shown in refusals: "loopback", "a private network", …;
 * NULL for OW_ADDRESS_PUBLIC. */
const char    *ow_address_class_reason    (OwAddressClass klass);

/* ---- Verdicts --------------------------------------------------------- */

/* What the guard decided about one destination. */
typedef struct {
  char      *host;        /* normalized host as asked (a name or an IP literal) */
  guint16    port;        /* the destination port */
  gboolean   allowed;     /* TRUE: connect to @addresses; FALSE: see @reason */
  gboolean   excepted;    /* allowed only because host:port is a listed exception */
  gboolean   unresolved;  /* refused because the name did not resolve (a failure, not a rule) */
  GPtrArray *addresses;   /* GInetAddress *: the vetted addresses, connect to the first; empty when refused */
  char      *refused_ip;  /* the address that was refused, or NULL (a name refused as such, or DNS failed) */
  char      *reason;      /* why it was refused ("loopback", "could not resolve x: …"), or NULL */
} OwAddressVerdict;

void      ow_address_verdict_free      (OwAddressVerdict *verdict);
/* "host: reason" or "host (ip): reason", for "refusing to fetch …". */
char     *ow_address_verdict_describe  (const OwAddressVerdict *verdict);
/* The first vetted address as text ("93.184.216.34", "2606:2800::1"). */
char     *ow_address_verdict_dup_pin   (const OwAddressVerdict *verdict);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwAddressVerdict, ow_address_verdict_free)

/* ---- The guard -------------------------------------------------------- */

#define OW_TYPE_ADDRESS_GUARD (ow_address_guard_get_type ())
G_DECLARE_FINAL_TYPE (OwAddressGuard, ow_address_guard, OW, ADDRESS_GUARD, GObject)

/* @resolver: NULL for the system's (g_resolver_get_default()); tests pass
 * one that answers from a script. */
OwAddressGuard   *ow_address_guard_new            (GResolver *resolver);
/* Lifts the guard for exactly @host_port ("127.0.0.1:41234"; a port is
 * required). The name is still resolved once and the connection pinned. */
gboolean          ow_address_guard_add_exception  (OwAddressGuard *self,
                                                   const char     *host_port,
                                                   GError        **error);
/* Adds, from a sandbox_network_hosts list, the entries that are exceptions:
 * those with a port whose host is "localhost" or an IP literal the guard
 * would refuse. Other entries (ordinary sites) are left to OwSiteList.
 * Entries that do not parse are skipped (OwSiteList reports them). */
void              ow_address_guard_add_exceptions_from_hosts (OwAddressGuard    *self,
                                                              const char *const *hosts);
gboolean          ow_address_guard_is_exception   (OwAddressGuard *self,
                                                   const char     *host,
                                                   guint16         port);

/* Resolves @host (normalized, see ow_site_parse()) and judges every
 * address. Always yields a verdict, refusals included; fails only when
 * @cancellable fires (G_IO_ERROR_CANCELLED). */
void              ow_address_guard_vet_async      (OwAddressGuard      *self,
                                                   const char          *host,
                                                   guint16              port,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
OwAddressVerdict *ow_address_guard_vet_finish     (OwAddressGuard *self,
                                                   GAsyncResult   *result,
                                                   GError        **error);

/* ---- The site allow list ---------------------------------------------- */

typedef enum {
  OW_SITE_GRANT_ONCE,     /* the session's next connection (or web call) to it only */
  OW_SITE_GRANT_SESSION,  /* until the session ends */
  OW_SITE_GRANT_ALWAYS,   /* added to the machine's list (and written by the persist function) */
} OwSiteGrant;

typedef enum {
  OW_SITE_DENIED,           /* not on any list */
  OW_SITE_ALLOWED_OPEN,     /* sandbox_network_profile = "open": no list applies */
  OW_SITE_ALLOWED_MACHINE,  /* on the machine's list (config, --allow-site, catalogue, always) */
  OW_SITE_ALLOWED_SESSION,  /* granted for this session */
  OW_SITE_ALLOWED_ONCE,     /* a once grant, now used up (when consumed) */
} OwSiteDecision;

/* Writes @entry ("host:port") to the machine's config.toml for an "always"
 * grant. Return FALSE with @error to refuse the grant. */
typedef gboolean (*OwSitePersistFunc) (const char *entry,
                                       gpointer    user_data,
                                       GError    **error);

#define OW_TYPE_SITE_LIST (ow_site_list_get_type ())
G_DECLARE_FINAL_TYPE (OwSiteList, ow_site_list, OW, SITE_LIST, GObject)

OwSiteList     *ow_site_list_new          (void);
/* "open" profile: every host passes the list (the address guard still
 * applies wherever it is used). */
void            ow_site_list_set_open     (OwSiteList *self, gboolean open);
gboolean        ow_site_list_get_open     (OwSiteList *self);
/* Adds a machine entry for this process only: a config entry or an
 * --allow-site. "host" without a port means ports 80 and 443. */
gboolean        ow_site_list_add          (OwSiteList *self, const char *entry, GError **error);
/* Adds the hosts of a credential-catalogue entry: exact entries, and
 * "*.suffix:port" entries (any name ending in ".suffix", at least two
 * labels, port required). This is the only way a wildcard enters. */
gboolean        ow_site_list_add_catalogue_hosts (OwSiteList        *self,
                                                  const char *const *hosts,
                                                  GError           **error);
void            ow_site_list_set_persist_func (OwSiteList       *self,
                                               OwSitePersistFunc func,
                                               gpointer          user_data,
                                               GDestroyNotify    destroy);
/* A person's grant for @session_id (may be NULL only for ALWAYS). An
 * ALWAYS grant calls the persist function first and changes nothing when
 * it fails. Emits ::changed. */
gboolean        ow_site_list_grant        (OwSiteList  *self,
                                           const char  *session_id,
                                           const char  *entry,
                                           OwSiteGrant  grant,
                                           GError     **error);
/* Takes back a once or session grant ("Session only" in the Access list). */
gboolean        ow_site_list_revoke       (OwSiteList *self, const char *session_id, const char *entry);
/* Forgets every grant of @session_id. */
void            ow_site_list_end_session  (OwSiteList *self, const char *session_id);
/* May @session_id (or NULL) reach @host:@port? With @consume, a once grant
 * that decides it is used up. */
OwSiteDecision  ow_site_list_check        (OwSiteList *self,
                                           const char *session_id,
                                           const char *host,
                                           guint16     port,
                                           gboolean    consume);
/* The machine's entries ("host:port", then "*.suffix:port"), sorted. */
char          **ow_site_list_dup_machine_entries (OwSiteList *self);
/* @session_id's own grants, sorted, for the "Session only" badges; once
 * grants not yet used are included. */
char          **ow_site_list_dup_session_entries (OwSiteList *self, const char *session_id);

G_END_DECLS
