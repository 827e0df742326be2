/* ow-seatbelt-profile.h: the macOS sandbox profile of one session.
 *
 * The Seatbelt wall is a profile in Apple's sandbox language (SBPL) that
 * /usr/bin/sandbox-exec applies to the tool runner; every process the
 * runner starts inherits it and the kernel enforces it. This renderer is
 * portable C with no macOS API in it, so the profile it writes is built
 * and checked against golden files on every OS; only the launcher
 * (ow-sandbox-seatbelt.c) is macOS-only.
 *
 * Paths given here must already be canonical in the macOS sense (the
 * launcher calls realpath()); the renderer additionally maps the three
 * links macOS keeps at the top of the disk (/tmp, /var, /etc) to their
 * /private targets, because Seatbelt matches resolved paths only.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Everything a profile is rendered from. Lists are NULL-terminated and may
 * be NULL. */
typedef struct {
  const char        *session_id;    /* named in the profile's first comment only */
  const char        *home;          /* the person's home folder: invisible except what is listed */
  const char        *private_dir;   /* the session's one private folder under /private/tmp
                                     * (runner socket, temp, tool caches, the sandbox's home) */
  const char *const *writable;      /* the session's read-write folders */
  const char *const *readonly;      /* the session's read-only folders */
  const char *const *hidden;        /* folders that stay invisible even inside a session folder
                                     * (OpenWorker's config, state and runtime folders) */
  const char        *runner_path;   /* the openworker-tool-runner binary */
  const char        *managed_tools; /* OpenWorker's managed tools folder, or NULL */
  const char *const *toolchains;    /* switched-on toolchains: home-relative (".cargo") or absolute */
  guint              proxy_port;    /* the allow-list proxy's port on localhost; 0 = no network */
  gboolean           network_open;  /* sandbox_network_profile = "open": any host, no proxy */
} OwSeatbeltSession;

/* The toolchain folders Settings offers, home-relative, in display order. */
const char *const *ow_seatbelt_known_toolchains (void);

/* Renders the profile. Fails (OW_SANDBOX_ERROR_UNAVAILABLE, naming the
 * path) when a path is not absolute and canonical, holds a control
 * character that SBPL cannot carry, or would open the whole disk or the
 * whole home folder by accident. */
char       *ow_seatbelt_profile_render   (const OwSeatbeltSession *session,
                                          GError                 **error);

/* @path as an SBPL string literal, quotes included; NULL (and @error set)
 * when it holds a control character. */
char       *ow_seatbelt_quote            (const char *path,
                                          GError    **error);

/* @path with a leading /tmp, /var or /etc replaced by its /private target;
 * other paths are returned as they are. */
char       *ow_seatbelt_private_path     (const char *path);

G_END_DECLS
