/* ow-sandbox-catalogue.c: the sites and toolchains Settings offers
 * (see ow-sandbox-catalogue.h). */
#define G_LOG_DOMAIN "ow-sandbox"

#include "sandbox/ow-sandbox-catalogue.h"

#define HOSTS(...) ((const char *const[]) { __VA_ARGS__, NULL })

static const OwSiteChoice sites[] = {
  { "github", "GitHub", OW_SITE_GROUP_CODE,
    HOSTS ("github.com:443", "api.github.com:443", "codeload.github.com:443", "objects.githubusercontent.com:443",
           "raw.githubusercontent.com:443") },
  { "gitlab", "GitLab", OW_SITE_GROUP_CODE, HOSTS ("gitlab.com:443") },
  { "pypi", "PyPI", OW_SITE_GROUP_PACKAGES, HOSTS ("pypi.org:443", "files.pythonhosted.org:443") },
  { "npm", "npm", OW_SITE_GROUP_PACKAGES, HOSTS ("registry.npmjs.org:443") },
  { "crates", "crates.io", OW_SITE_GROUP_PACKAGES, HOSTS ("crates.io:443", "index.crates.io:443", "static.crates.io:443") },
  { "goproxy", "Go module proxy", OW_SITE_GROUP_PACKAGES, HOSTS ("proxy.golang.org:443", "sum.golang.org:443") },
  { "brave", "Brave Search", OW_SITE_GROUP_SEARCH, HOSTS ("api.search.brave.com:443") },
  { "tavily", "Tavily", OW_SITE_GROUP_SEARCH, HOSTS ("api.tavily.com:443") },
  { "duckduckgo", "DuckDuckGo", OW_SITE_GROUP_SEARCH, HOSTS ("duckduckgo.com:443", "html.duckduckgo.com:443") },
};

const OwSiteChoice *
ow_site_catalogue (gsize *n_sites)
{
  if (n_sites != NULL)
    *n_sites = G_N_ELEMENTS (sites);
  return sites;
}

gboolean
ow_site_choice_in_list (const OwSiteChoice *site, const char *const *hosts)
{
  g_return_val_if_fail (site != NULL, FALSE);

  if (hosts == NULL)
    return FALSE;
  for (guint i = 0; site->hosts[i] != NULL; i++)
    if (!g_strv_contains (hosts, site->hosts[i]))
      return FALSE;
  return TRUE;
}

static const OwToolchainDir toolchains[] = {
  { ".nvm", "nvm (Node.js)" },
  { ".volta", "Volta (Node.js)" },
  { ".bun", "Bun" },
  { ".deno", "Deno" },
  { ".pyenv", "pyenv (Python)" },
  { ".rbenv", "rbenv (Ruby)" },
  { ".asdf", "asdf" },
  { ".sdkman", "SDKMAN! (Java)" },
  { ".cargo", "Cargo (Rust)" },
  { ".rustup", "rustup (Rust)" },
  { ".local/bin", "~/.local/bin" },
  { ".local/share/uv", "uv (Python)" },
  { ".local/share/mise", "mise" },
  { ".local/pipx", "pipx (Python)" },
  { "go", "Go" },
};

const OwToolchainDir *
ow_toolchain_catalogue (gsize *n_dirs)
{
  if (n_dirs != NULL)
    *n_dirs = G_N_ELEMENTS (toolchains);
  return toolchains;
}
