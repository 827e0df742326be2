/* ow-server-peer.h: who is at the other end of a loopback connection.
 *
 * The loopback API refuses a request that carries the token when it comes
 * from one of this machine's sessions' commands (see ow-server-peer.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when the process whose loopback TCP socket has local port
 * @peer_port and remote port @our_port is a session's command (in a
 * guard's mount namespace, or started under the session marker), with a
 * sentence in @why. FALSE when it is not, or cannot be told. */
gboolean ow_server_peer_is_session_command (guint peer_port, guint our_port, char **why);

G_END_DECLS
