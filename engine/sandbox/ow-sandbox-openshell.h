/* ow-sandbox-openshell.h: the OpenShell sandbox backend.
 *
 * sandbox_provider = "openshell": each agent's shell and file tools run in
 * an NVIDIA OpenShell sandbox (a Linux container with Landlock and seccomp)
 * that OpenWorker drives through the `openshell` command line, 0.1.x. See
 * the overview of ow-sandbox-openshell.c for what a sandbox gets, every
 * command line used, and why the session is refused when it is refused.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sandbox/ow-sandbox.h"

G_BEGIN_DECLS

/* The base image sandboxes are made from, pinned by digest (about 5 GB,
 * downloaded once by `openworker machine sandbox setup` or `docker pull`). */
#define OW_OPENSHELL_IMAGE \
  "ghcr.io/nvidia/openshell-community/sandboxes/base@sha256:aeef1c63f00e2913ea002ccb3aaf925f338b5c5d70e63576f0d95c16a138044e"
/* The OpenShell releases this backend speaks to. */
#define OW_OPENSHELL_VERSION_PREFIX "0.1."
#define OW_OPENSHELL_TESTED_VERSION "0.1.2"
/* Where the tool runner appears inside a sandbox (a read-only mount). */
#define OW_OPENSHELL_RUNNER         "/opt/openworker/openworker-tool-runner"
/* The runner's socket inside the sandbox: it listens there as the
 * sandbox's main command; each exec stream attaches to it. */
#define OW_OPENSHELL_RUNNER_SOCKET  "/tmp/openworker-runner.sock"

/* How to reach OpenShell on this machine. Everything is copied. */
typedef struct {
  const char        *openshell;        /* the CLI; NULL = `openshell` on PATH (machine config:
                                        * sandbox_openshell_path) */
  const char        *docker;           /* asked whether the image is here and whether Docker's
                                        * kernel has Landlock; NULL = `docker` on PATH; when it is
                                        * missing those questions go unanswered, never refused */
  const char        *image;            /* NULL = OW_OPENSHELL_IMAGE */
  const char *const *network_hosts;    /* the machine's allow list, "host:port" */
  guint              ready_timeout_ms; /* how long a new sandbox may take to be Ready; 0 = 120 s */
} OwOpenshellConfig;

#define OW_TYPE_SANDBOX_OPENSHELL (ow_sandbox_openshell_get_type ())
G_DECLARE_FINAL_TYPE (OwSandboxOpenshell, ow_sandbox_openshell, OW, SANDBOX_OPENSHELL, GObject)

OwSandboxBackend *ow_sandbox_openshell_new      (const OwOpenshellConfig *config);
/* Registers "openshell" with the defaults (CLI and docker from PATH). */
void              ow_sandbox_openshell_register (void);

/* The executor start_finish() returns also answers these. */

/* Lets @host_port ("pypi.org:443") out of the running sandbox at once
 * (`openshell policy update … --add-endpoint … --wait`): a site granted
 * for this session or always. Blocking (a worker thread's call). */
gboolean          ow_openshell_executor_add_endpoint (OwExecutor   *executor,
                                                      const char   *host_port,
                                                      GCancellable *cancellable,
                                                      GError      **error);
/* The current sandbox's name, or NULL while there is none. */
const char       *ow_openshell_executor_get_sandbox  (OwExecutor *executor);

/* The policy (JSON, which OpenShell reads as YAML) and the Docker driver's
 * mounts for @roots (OwRoot*). @home: the sandbox's private home with the
 * copied credentials, mounted read-write at the same path, or NULL.
 * @uid/@gid: the owner of the folders (-1: the image's "sandbox" user). */
char             *ow_openshell_render_policy    (GPtrArray          *roots,
                                                 const char         *home,
                                                 gint64              uid,
                                                 gint64              gid,
                                                 const char *const  *hosts,
                                                 GError            **error);
char             *ow_openshell_render_mounts    (GPtrArray  *roots,
                                                 const char *runner_path,
                                                 const char *home);

G_END_DECLS
