/* ow-jsonrpc.h: JSON-RPC 2.0 messages as MCP uses them.
 *
 * One line from a server becomes one OwJsonRpcMessage, or a GError in
 * OW_MCP_ERROR_PROTOCOL whose message says what is wrong with it (not
 * JSON, not an object, no "jsonrpc":"2.0", an id that is neither a string
 * nor an integer, a response with both or neither of result and error, …).
 * Batches (arrays) were removed from MCP in 2025-06-18 and are refused.
 * The encoders write compact JSON on one line: json-glib escapes control
 * characters inside strings, so a message never holds a raw newline.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Standard JSON-RPC error codes. */
#define OW_JSONRPC_PARSE_ERROR      (-32700)
#define OW_JSONRPC_INVALID_REQUEST  (-32600)
#define OW_JSONRPC_METHOD_NOT_FOUND (-32601)
#define OW_JSONRPC_INVALID_PARAMS   (-32602)
#define OW_JSONRPC_INTERNAL_ERROR   (-32603)

typedef enum {
  OW_JSONRPC_REQUEST,       /* method + id */
  OW_JSONRPC_NOTIFICATION,  /* method, no id */
  OW_JSONRPC_RESULT,        /* id + result */
  OW_JSONRPC_ERROR,         /* id (may be null) + error */
} OwJsonRpcKind;

typedef struct {
  OwJsonRpcKind kind;
  JsonNode     *id;             /* integer or string; NULL for notifications and null-id errors */
  char         *method;         /* requests and notifications */
  JsonNode     *params;         /* object or array, or NULL */
  JsonNode     *result;         /* results: any JSON value */
  gint64        error_code;     /* errors */
  char         *error_message;  /* errors; never NULL for an error */
  JsonNode     *error_data;     /* errors: optional */
} OwJsonRpcMessage;

/* Parses one message of @len bytes. The nesting depth is bounded
 * (OW_JSON_MAX_DEPTH). */
OwJsonRpcMessage *ow_jsonrpc_message_parse (const char *text, gsize len, GError **error);
void              ow_jsonrpc_message_free  (OwJsonRpcMessage *msg);

/* The params of @msg when they are an object, else NULL. */
JsonObject       *ow_jsonrpc_message_get_params_object (OwJsonRpcMessage *msg);

/* A stable key for an id ("i:42", "s:abc"), for tables of pending
 * requests; NULL for NULL. */
char             *ow_jsonrpc_id_key        (JsonNode *id);

/* Encoders. @params, @result and @data may be NULL; they are not consumed. */
char *ow_jsonrpc_encode_request      (gint64 id, const char *method, JsonObject *params);
char *ow_jsonrpc_encode_notification (const char *method, JsonObject *params);
char *ow_jsonrpc_encode_result       (JsonNode *id, JsonNode *result);
char *ow_jsonrpc_encode_error        (JsonNode *id, gint64 code, const char *message, JsonNode *data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwJsonRpcMessage, ow_jsonrpc_message_free)

G_END_DECLS
