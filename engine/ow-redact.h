/* ow-redact.h: keep credentials out of everything we write.
 *
 * Every key the engine loads is registered here, and every text that may
 * reach a log, a record file, an event or a prompt passes ow_redact(), which
 * replaces registered values and the shapes of common credentials
 * (Bearer tokens, sk-… keys, Google API keys, ?key= URL parameters, Slack
 * and GitHub tokens) with "[redacted]".
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Registers @value (a key, a token) so ow_redact() removes it, and with it
 * the forms a program prints it in: base64 (standard and URL-safe, at each
 * alignment), hex (lower and upper case) and percent-encoding. Values
 * shorter than 8 bytes are ignored: they would redact ordinary words.
 * Thread-safe. */
void   ow_redact_register_secret (const char *value);

/* Returns a newly allocated copy of @text with every secret replaced. */
char  *ow_redact (const char *text);

/* Like ow_redact(), but replaces only the registered values, not the shapes
 * of credentials. For text the model reads and may write back (tool
 * results): a person's own file that merely looks like it holds a token
 * must reach the model intact, or an edit would write "[redacted]" into it;
 * a key OpenWorker itself holds must never reach it. */
char  *ow_redact_registered (const char *text);

/* A text that arrives in pieces (a model's reply, streamed): a registered
 * value split across two pieces is caught all the same. Each piece fed
 * returns what can be shown now, holding back the longest tail that could
 * still begin a registered value; flush returns the rest at the end. Both
 * results are redacted of registered values (not shapes: see
 * ow_redact_registered()). */
typedef struct _OwRedactStream OwRedactStream;

OwRedactStream *ow_redact_stream_new   (void);
char           *ow_redact_stream_feed  (OwRedactStream *self, const char *text, gsize len);
char           *ow_redact_stream_flush (OwRedactStream *self);
void            ow_redact_stream_free  (OwRedactStream *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwRedactStream, ow_redact_stream_free)

/* Routes every GLib log message of the process through ow_redact() before
 * the default writer prints it. Call once, early in main(). */
void   ow_redact_install_log_writer (void);

G_END_DECLS
