/* ow-server-guard.h: the loopback API's front door, as pure functions.
 *
 * Everything that decides whether a request may talk to the server at all
 * lives here, apart from libsoup, so it can be tested rule by rule and
 * fuzzed: the per-launch token (256 random bits, compared in constant
 * time), the Host check that defeats DNS rebinding (only a loopback name
 * or address with our port), the Origin check (only loopback pages and the
 * app's own), the bearer form the OpenAI-compatible routes accept, the
 * WebSocket subprotocol pair ["openworker", <token>], and a JSON nesting
 * check run before any body reaches json-glib's recursive parser.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* 64 lower-case hex characters from the system's CSPRNG (256 bits). */
char     *ow_server_token_new            (void);

/* Constant-time comparison: the time taken depends on the length of
 * @expected only, never on where @given differs. NULL or "" @given is
 * never equal. */
gboolean  ow_server_token_equal          (const char *expected, const char *given);

/* The token in an "Authorization: Bearer <token>" value, or NULL. Borrowed
 * (points into @header). */
const char *ow_server_bearer_token       (const char *header, gsize *len);

/* Whether @host (a Host header value) names this machine's loopback
 * interface on @port: "127.0.0.1:P", "localhost:P", "[::1]:P", any
 * 127.x.y.z, case-insensitive names; no port only when @port is 80. NULL
 * (HTTP/1.0 without Host) is refused. */
gboolean  ow_server_host_allowed         (const char *host, guint port);

/* Whether a browser Origin may call the API: http(s)://localhost,
 * http(s)://127.0.0.1 and http(s)://[::1] on any port, tauri://localhost,
 * http(s)://tauri.localhost, or one of @extra (exact, NULL-terminated; the
 * desktop app's own origin). "null" and everything else are refused. No
 * Origin header (a non-browser client) is not a question for this
 * function: the caller allows it. */
gboolean  ow_server_origin_allowed       (const char *origin, const char *const *extra);

/* Reads a Sec-WebSocket-Protocol offer ("openworker, <token>") and says
 * whether it carries "openworker" followed by a token equal to @expected. */
gboolean  ow_server_ws_protocol_ok       (const char *offer, const char *expected);

/* A session id a person or the browser may choose: 1–64 of
 * [A-Za-z0-9_.-], not starting with '.', and not an internal "__" id. */
gboolean  ow_server_session_id_valid     (const char *id);

G_END_DECLS
