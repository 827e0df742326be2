/* sbx-test-util.h: helpers shared by the sandbox tests.
 *
 * The runner under test is the built openworker-tool-runner (meson puts
 * its path in OW_TEST_RUNNER); the escape helper likewise (OW_TEST_ESCAPE).
 * Tool calls are made through the real OwExecutor interface and the main
 * loop is spun until each answers (ow-test-utils.h). For the network tests there is a tiny
 * loopback HTTP server and a stand-in for the allow-list proxy on a Unix
 * socket that forwards plain-HTTP requests for exactly one allowed
 * host:port and refuses everything else with 403.
 */
#pragma once

#include <gio/gio.h>

#include "ow-files.h"
#include <json-glib/json-glib.h>

#include "sandbox/ow-executor-runner.h"
#include "sandbox/ow-sandbox.h"
#include "tools/ow-executor.h"
#include "ow-test-utils.h"

G_BEGIN_DECLS

const char   *sbx_runner_path     (void);
const char   *sbx_escape_path     (void);

/* Exits 77 (skip) with a message saying what is missing unless this
 * machine can build the Linux wall (Landlock, user namespaces, seccomp). */
void          sbx_require_wall    (void);

void          sbx_write           (const char *path, const char *content, int mode);

/* The runner without a wall, as a child on a socketpair. */
OwExecutor   *sbx_plain_runner    (GSubprocess **process_out);

/* One call, synchronously (the main loop spins until it answers). */
OwToolResult *sbx_call            (OwExecutor *executor, const char *tool, const char *args, GError **error);
/* The same, with a cancellable. */
OwToolResult *sbx_call_cancellable (OwExecutor *executor, const char *tool, const char *args,
                                    GCancellable *cancellable, GError **error);
/* A result's JSON object (asserts it is one). */
JsonObject   *sbx_result_object   (const OwToolResult *result);

/* run_shell @command (30 s limit) and log it with what it printed; the
 * output (or, with none, the error) and, when @exit_code is not NULL, the
 * exit code. */
char         *sbx_shell           (OwExecutor *executor, const char *command, int *exit_code);

/* Starts a sandbox synchronously. */
OwExecutor   *sbx_start           (OwSandboxBackend *backend, const OwSandboxSpec *spec, GError **error);

/* A loopback HTTP server that answers every request with "hello from allowed". */
typedef struct _SbxHttp SbxHttp;
SbxHttp      *sbx_http_start      (void);
int           sbx_http_port       (SbxHttp *http);
guint         sbx_http_hits       (SbxHttp *http);
void          sbx_http_stop       (SbxHttp *http);

/* The proxy stand-in on @socket_path: forwards "GET http://@allowed/…"
 * to @allowed and answers 403 to anything else (counting refusals). */
typedef struct _SbxProxy SbxProxy;
SbxProxy     *sbx_proxy_start     (const char *socket_path, const char *allowed);
guint         sbx_proxy_refused   (SbxProxy *proxy);
guint         sbx_proxy_forwarded (SbxProxy *proxy);
void          sbx_proxy_stop      (SbxProxy *proxy);

G_END_DECLS
