/* ow-executor-runner.h: an OwExecutor that sends tool calls to
 * openworker-tool-runner over its framed protocol.
 *
 * The runner may sit behind any wall (Linux namespaces, OpenShell's exec
 * stream, a Seatbelt profile): this client only needs a stream to it and,
 * when the runner is a child of ours, its process, so that a runner that
 * dies is noticed with its exit status. Everything happens on the main
 * context the executor was made on: frames are read and written with GIO's
 * async stream calls, one read always outstanding, writes queued; no thread
 * per call.
 *
 * A call's GCancellable is honoured by sending "cancel": the call still
 * ends with the runner's answer, an "interrupted" result, exactly as the
 * direct executor does. If the runner goes away, every pending call (and
 * every later one) fails with OW_SANDBOX_ERROR_UNAVAILABLE saying so, and
 * the executor emits "stopped".
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "tools/ow-executor.h"

G_BEGIN_DECLS

#define OW_TYPE_EXECUTOR_RUNNER (ow_executor_runner_get_type ())
G_DECLARE_FINAL_TYPE (OwExecutorRunner, ow_executor_runner, OW, EXECUTOR_RUNNER, GObject)

/* @stream: connected to the runner (owned: closed with the executor).
 * @process: the runner's process, or NULL when it is not our child; it is
 * asked to stop with the executor and killed if it does not within a few
 * seconds. @enforcement: what get_enforcement() reports, e.g.
 * "linux: namespaces+landlock(abi 7)+seccomp". Starts reading at once. */
OwExecutor  *ow_executor_runner_new               (GIOStream   *stream,
                                                   GSubprocess *process,
                                                   const char  *enforcement);

void         ow_executor_runner_set_enforcement   (OwExecutorRunner *self, const char *enforcement);

/* Queues one frame as it is (e.g. the "wall" description a walled runner
 * reads before it says hello). */
void         ow_executor_runner_send              (OwExecutorRunner *self, JsonObject *frame);

/* Waits for the runner's hello. Fails with OW_SANDBOX_ERROR_WALL_NOT_PROVED
 * carrying the runner's reason when it sends "fatal" instead, and with
 * OW_SANDBOX_ERROR_UNAVAILABLE when it goes away. The result is the hello
 * object (transfer full). */
void         ow_executor_runner_wait_ready_async  (OwExecutorRunner    *self,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
JsonObject  *ow_executor_runner_wait_ready_finish (OwExecutorRunner *self,
                                                   GAsyncResult     *result,
                                                   GError          **error);

/* Sends a "probe" with @checks (see ow_runner_probe for the kinds) and
 * returns the runner's [{"name", "ok", "detail"}, …] (transfer full). */
void         ow_executor_runner_probe_async       (OwExecutorRunner    *self,
                                                   JsonArray           *checks,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
JsonArray   *ow_executor_runner_probe_finish      (OwExecutorRunner *self,
                                                   GAsyncResult     *result,
                                                   GError          **error);

/* Whether the runner is still there. */
gboolean     ow_executor_runner_is_alive          (OwExecutorRunner *self);

G_END_DECLS
