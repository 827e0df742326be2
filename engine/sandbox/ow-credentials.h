/* ow-credentials.h: credentials shared with a sandbox on purpose.
 *
 * A sandbox has none of the person's logins. The person may add some in
 * the machine's config.toml (Settings ▸ Sandbox ▸ "Explicit config and keys
 * exposed to Agent"):
 *
 *   [[sandbox_credentials]]
 *   name = "ssh"            # an entry of the catalogue below
 *   enabled = true
 *
 *   [[sandbox_credentials]]
 *   name = "pypirc"         # anything else: a file or folder under home
 *   path = "~/.pypirc"
 *   kind = "credential"     # or "configuration" (a label for people)
 *   hosts = ["upload.pypi.org:443"]
 *   env = "PYPIRC"          # optional: a variable pointing at the copy
 *
 * Each enabled entry becomes an OwCredentialCopy: its source is copied
 * owner-only into the sandbox's private home when the sandbox starts and
 * deleted with it, the tool's variable points at the copy, and its hosts
 * join the allow list. Only allow-listed host variables reach the sandbox
 * (ow_secret_env_filter()).
 *
 * The catalogue's AWS and gcloud entries need whole domains
 * (*.amazonaws.com:443, *.googleapis.com:443): those are written as
 * "*.suffix:port" in OwCredentialCopy.hosts and enter the site list only
 * through ow_site_list_add_catalogue_hosts(), the one place a wildcard is
 * accepted. Custom entries, config lines and grants stay exact.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "net/ow-address-guard.h"
#include "sandbox/ow-sandbox.h"

G_BEGIN_DECLS

/* One entry of the catalogue of CLI logins. */
typedef struct {
  const char        *name;        /* config name: "ssh", "gh", "aws-config", … */
  const char        *label;       /* shown to people: "SSH keys" */
  const char        *source;      /* default location, relative to home: ".ssh" */
  const char        *source_env;  /* host variable that moves the source (GH_CONFIG_DIR), or NULL */
  const char        *dest;        /* the copy, relative to the sandbox home */
  const char        *env_name;    /* variable set inside pointing at the copy, or NULL */
  gboolean           folder;      /* a folder (TRUE) or a single file */
  gboolean           secret;      /* holds a secret ("credential") or not ("configuration") */
  const char *const *hosts;       /* allow-list entries it needs; "*.suffix:port" for domains */
  const char *const *skip;        /* names inside a folder that are never copied (logs, sockets) */
} OwCredentialKind;

/* The catalogue, in the order Settings shows it. */
const OwCredentialKind *ow_credential_catalogue        (gsize *n_kinds);
const OwCredentialKind *ow_credential_kind_lookup      (const char *name);

/* Turns [[sandbox_credentials]] tables (as ow_toml_parse() gives them)
 * into OwCredentialCopy values for the enabled entries whose source exists
 * on this machine, looking under @home and honouring the host variables in
 * @host_env (an environ-style list; NULL = this process's). Entries whose
 * source is missing are left out, with a sentence each in @skipped (may be
 * NULL). A malformed entry fails the whole list with a sentence naming it.
 * Reads files (kubeconfig servers): not for the main loop. The array frees
 * its elements (ow_credential_copy_free(), defined in this module). */
GPtrArray  *ow_credentials_from_config     (JsonArray          *tables,
                                            const char         *home,
                                            const char *const  *host_env,
                                            GPtrArray         **skipped,
                                            GError            **error);
/* The same, reading the [[sandbox_credentials]] of the machine config at
 * @config_path (a missing file has none). */
GPtrArray  *ow_credentials_load            (const char         *config_path,
                                            const char         *home,
                                            const char *const  *host_env,
                                            GPtrArray         **skipped,
                                            GError            **error);

/* Copies each credential into @sandbox_home (an existing folder): folders
 * 0700, files 0600, no symbolic link followed: one inside a shared folder
 * is copied as a file only when it points inside that folder, otherwise
 * left out (with a sentence in @skipped); a link planted in the sandbox
 * home on the way to a copy refuses the copy. Sockets, pipes and devices
 * are left out. On failure what was copied is removed again. Blocking
 * file I/O: call from a worker thread (or use the _async form). */
gboolean    ow_credentials_copy_in         (GPtrArray   *copies,
                                            const char  *sandbox_home,
                                            GPtrArray  **skipped,
                                            GError     **error);
void        ow_credentials_copy_in_async   (GPtrArray          *copies,
                                            const char         *sandbox_home,
                                            GCancellable       *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer            user_data);
gboolean    ow_credentials_copy_in_finish  (GAsyncResult  *result,
                                            GError       **error);
/* Deletes the copies from @sandbox_home, following no link (whatever the
 * sandbox left there is removed, never what a link points at), and the
 * folders the copies needed when they are empty. Blocking file I/O. */
gboolean    ow_credentials_remove          (GPtrArray   *copies,
                                            const char  *sandbox_home,
                                            GError     **error);

/* The variable each copy sets, as "NAME=value" with @inside_home the
 * sandbox home as the sandbox sees it. */
char       *ow_credential_copy_env         (const OwCredentialCopy *copy,
                                            const char             *inside_home);
/* The environment for the sandbox's tools: the allow-listed variables of
 * @env (environ-style), then the copies' variables (which hold only paths
 * to the copies). */
char      **ow_credentials_environ         (GPtrArray          *copies,
                                            const char         *inside_home,
                                            const char *const  *env);
/* Adds the copies' hosts to @sites (machine-wide, for this process). */
gboolean    ow_credentials_add_hosts       (GPtrArray   *copies,
                                            OwSiteList  *sites,
                                            GError     **error);

G_END_DECLS
