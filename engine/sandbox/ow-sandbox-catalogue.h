/* ow-sandbox-catalogue.h: what Settings ▸ Sandbox offers to tick.
 *
 * Two short lists of data, kept beside the credential catalogue
 * (ow-credentials.h) so every surface offers the same choices:
 *
 *  - the sites "Choose sites…" lists — code hosting, package registries,
 *    search APIs — each with the exact host:port entries it needs in
 *    sandbox_network_hosts (never a wildcard);
 *  - the developer toolchain folders under home that a sandbox may be
 *    shown read-only (sandbox_toolchains), as the seeds list them.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  OW_SITE_GROUP_CODE,      /* code hosting */
  OW_SITE_GROUP_PACKAGES,  /* package registries */
  OW_SITE_GROUP_SEARCH,    /* search APIs */
} OwSiteGroup;

typedef struct {
  const char        *id;      /* "github" */
  const char        *label;   /* "GitHub" (a name: not translated) */
  OwSiteGroup        group;
  const char *const *hosts;   /* the host:port entries it needs */
} OwSiteChoice;

/* The sites, in the order they are offered. */
const OwSiteChoice *ow_site_catalogue      (gsize *n_sites);
/* Whether every host of @site is in @hosts (a sandbox_network_hosts list). */
gboolean            ow_site_choice_in_list (const OwSiteChoice *site,
                                            const char *const  *hosts);

typedef struct {
  const char *path;    /* relative to home: ".cargo", ".local/share/uv", "go" */
  const char *label;   /* the tools it holds: "Cargo (Rust)" (names: not translated) */
} OwToolchainDir;

/* The toolchain folders, in the order they are offered. */
const OwToolchainDir *ow_toolchain_catalogue (gsize *n_dirs);

G_END_DECLS
