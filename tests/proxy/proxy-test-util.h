/* proxy-test-util.h: pieces shared by the tests in tests/proxy.
 *
 * - A scripted GResolver: each name answers from a list of address sets,
 *   one set per lookup (the last repeats), and every lookup is counted.
 *   This is how the tests make a name resolve to loopback (and so prove a
 *   connection was pinned: the system resolver knows no *.test name), and
 *   how they play a rebinding resolver (a public answer, then a private
 *   one) without any real DNS.
 * - A TCP echo server on 127.0.0.1, the stand-in CONNECT target.
 * - A raw client that runs a script of blocking socket steps on a worker
 *   thread while the main thread keeps the main loop (and so the proxy and
 *   the servers) running.
 */
#pragma once

#include <gio/gio.h>

#include "ow-test-utils.h"

G_BEGIN_DECLS

/* ---- Scripted resolver ------------------------------------------------ */

#define TEST_TYPE_RESOLVER (test_resolver_get_type ())
G_DECLARE_FINAL_TYPE (TestResolver, test_resolver, TEST, RESOLVER, GResolver)

TestResolver *test_resolver_new     (void);
/* Adds one answer for @host: a comma-separated list of IP literals
 * ("8.8.8.8,127.0.0.1"). Successive calls script successive lookups. */
void          test_resolver_add     (TestResolver *self, const char *host, const char *addresses);
/* Lookups of @host so far. */
guint         test_resolver_count   (TestResolver *self, const char *host);

/* ---- Echo server ------------------------------------------------------ */

typedef struct _EchoServer EchoServer;

EchoServer   *echo_server_new         (void);
guint16       echo_server_get_port    (EchoServer *srv);
guint         echo_server_get_n_accepted (EchoServer *srv);
void          echo_server_free        (EchoServer *srv);

/* ---- Raw client ------------------------------------------------------- */

typedef struct _RawClient RawClient;

/* A client of @address (Unix or inet). Steps run in the order added, on a
 * thread, once raw_client_run() is called. */
RawClient    *raw_client_new          (GSocketAddress *address);
/* Sends @len bytes (-1 = NUL-terminated). */
void          raw_client_send         (RawClient *c, const char *data, gssize len);
/* Reads until everything received so far contains @text. */
void          raw_client_read_until   (RawClient *c, const char *text);
/* Shuts the write side (the peer sees end of stream). */
void          raw_client_shutdown     (RawClient *c);
/* Reads until the peer closes. */
void          raw_client_read_to_eof  (RawClient *c);
/* Runs the steps on a thread and spins the default main context until
 * they are done. Returns what was received (NUL-terminated); @error_out
 * receives a failed step's error, if any. */
const char   *raw_client_run          (RawClient *c, GError **error_out);
/* Starts the steps without waiting; raw_client_wait() waits. */
void          raw_client_start        (RawClient *c);
const char   *raw_client_wait         (RawClient *c, GError **error_out);
gsize         raw_client_get_received_len (RawClient *c);
void          raw_client_free         (RawClient *c);

G_END_DECLS
