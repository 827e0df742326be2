/* ow-model-server.h: the scripted model server used by the engine and end-to-end tests.
 *
 * See ow-model-server.c for the script format and README.md for a tour.
 *
 * Signals: "request" (JsonObject *record) is emitted after each recorded
 * request, once its answer is decided; the standalone program logs these.
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define OW_TYPE_MODEL_SERVER (ow_model_server_get_type ())
G_DECLARE_FINAL_TYPE (OwModelServer, ow_model_server, OW, MODEL_SERVER, GObject)

/**
 * ow_model_server_new:
 * @script: (transfer none): the script, a JSON object (copied)
 * @error: return location for a #GError
 *
 * Validates @script and starts serving it on 127.0.0.1 on a free port, from the
 * thread-default main context of the caller. Everything the server does is
 * driven by that context, so a client on the same main loop can talk to it.
 *
 * Returns: (transfer full) (nullable): the running server, or %NULL with
 *   @error set when the script is invalid or the port cannot be bound
 */
OwModelServer *ow_model_server_new          (JsonNode       *script,
                                             GError        **error);

/**
 * ow_model_server_new_on_port:
 * @script: (transfer none): the script (copied)
 * @port: the port to bind on 127.0.0.1, or 0 for a free one
 * @error: return location for a #GError
 *
 * Like ow_model_server_new() with a chosen port.
 *
 * Returns: (transfer full) (nullable): the running server
 */
OwModelServer *ow_model_server_new_on_port  (JsonNode       *script,
                                             guint           port,
                                             GError        **error);

/**
 * ow_model_server_get_port:
 * @self: a #OwModelServer
 *
 * Returns: the TCP port the server listens on
 */
guint          ow_model_server_get_port     (OwModelServer  *self);

/**
 * ow_model_server_get_url:
 * @self: a #OwModelServer
 *
 * Returns: (transfer full): the base URL, "http://127.0.0.1:PORT" (no trailing slash)
 */
char          *ow_model_server_get_url      (OwModelServer  *self);

/**
 * ow_model_server_get_requests:
 * @self: a #OwModelServer
 *
 * Every request received so far except the `/_script/` control routes, oldest
 * first. Each is an object `{method, path, query, headers, body, turn, n}`:
 * header names in lower case, the body parsed as JSON (or the raw text, or
 * null), turn the index of the script turn that answered (or null), n the
 * 1-based sequence number; a request that failed the script's expectations
 * also has "expectation", the failure message.
 *
 * Returns: (transfer none): the recorded requests; the array grows as requests arrive
 */
JsonArray     *ow_model_server_get_requests (OwModelServer  *self);

/**
 * ow_model_server_get_served:
 * @self: a #OwModelServer
 *
 * Returns: how many model requests consumed a scripted turn
 */
guint          ow_model_server_get_served   (OwModelServer  *self);

/**
 * ow_model_server_get_remaining:
 * @self: a #OwModelServer
 *
 * Returns: how many model requests the script can still answer, counting repeats
 */
guint          ow_model_server_get_remaining (OwModelServer *self);

G_END_DECLS
