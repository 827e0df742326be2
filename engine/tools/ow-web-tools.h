/* ow-web-tools.h: web_fetch and web_search.
 *
 * The web tools run in the app, not in the sandbox, but they follow the
 * sandbox's rules: a site must be on the session's allow list (the same
 * OwSiteList the allow-list proxy reads, with the person's once / session /
 * always grants) and must pass the address guard, hop by hop, with each
 * connection pinned to the address that was vetted. A refused site is
 * named in the result together with the fact that the person can allow it.
 *
 * web_fetch follows redirects itself (at most 5), vets every hop, and turns
 * HTML into its visible text. web_search asks Tavily, Brave or DuckDuckGo;
 * keys come from TAVILY_API_KEY / BRAVE_API_KEY and each service's base URL
 * can be moved with TAVILY_BASE_URL, BRAVE_BASE_URL and
 * DUCKDUCKGO_BASE_URL (tests point them at loopback stand-ins, made
 * reachable by an exact host:port exception).
 */
#pragma once

#include "net/ow-address-guard.h"
#include "net/ow-http-client.h"
#include "tools/ow-builtin-tools.h"

G_BEGIN_DECLS

/* What the web tools of one session may use. */
typedef struct _OwWebAccess OwWebAccess;

#define OW_TYPE_WEB_ACCESS (ow_web_access_get_type ())
GType        ow_web_access_get_type (void) G_GNUC_CONST;

/* @client carries all HTTP; @guard vets and pins every destination and
 * holds the exceptions; @sites is the allow list and grants shared with
 * the proxy, or NULL when no sandbox is chosen (then any public site may
 * be reached, still through the guard); @session_id names whose grants
 * apply (may be NULL). */
OwWebAccess *ow_web_access_new    (OwHttpClient   *client,
                                   OwAddressGuard *guard,
                                   OwSiteList     *sites,
                                   const char     *session_id);
OwWebAccess *ow_web_access_ref    (OwWebAccess *access);
void         ow_web_access_unref  (OwWebAccess *access);
/* web_search's provider: "tavily", "brave" or "duckduckgo" (config
 * web_search_provider). NULL (the default) picks the first of tavily and
 * brave whose key is in the environment, else duckduckgo. */
void         ow_web_access_set_search_provider (OwWebAccess *access,
                                                const char  *provider);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwWebAccess, ow_web_access_unref)

/* The variables the keyed search services' keys are read from. */
const char *const *ow_web_search_key_names (void);

/* Adds web_search and web_fetch (risk READ) to @tools. */
void         ow_web_tools_add      (OwBuiltinTools *tools,
                                    OwWebAccess    *access);

/* The visible text of an HTML document: script, style, noscript, svg,
 * template and head are left out, block elements become line breaks,
 * entities are decoded, runs of blank lines become one. @len -1 = up to
 * the NUL. Always valid UTF-8. */
char        *ow_html_to_text       (const char *html,
                                    gssize      len);

G_END_DECLS
