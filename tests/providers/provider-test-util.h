/* provider-test-util.h: shared fixtures of the provider tests.
 *
 * A fixed canonical history (every message shape the engine stores, with
 * engine-only keys and all three providers' sidecars), tools with schema
 * features some wires reject, helpers to build a request and read its body
 * by JSON path, to feed recorded stream text to a provider in any split,
 * and to record the deltas a call reports.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "providers/ow-provider-private.h"

G_BEGIN_DECLS

/* The canonical history, as JSON text and parsed. Index: 0 system,
 * 1 user (string, engine keys), 2 user (text + image + pdf parts),
 * 3 assistant (text, two tool calls — call_b's arguments are mangled —,
 * reasoning, usage, all three sidecars), 4 tool (call_a), 5 tool (call_b),
 * 6 notice, 7 user. */
extern const char *const tp_history_json;
JsonArray  *tp_history      (void);
/* Three tools: read_file (schema with format, type array, enum,
 * additionalProperties, $schema, a required name that is no property),
 * run_shell, git_status (no properties). */
JsonArray  *tp_tools        (void);

/* A provider of @style at @base_url with @key (may be NULL) and quirks
 * given as JSON text (may be NULL); no HTTP client. */
OwProvider *tp_provider_new (OwWireStyle style,
                             const char *base_url,
                             const char *key,
                             const char *quirks_json);

/* A request for @model over @messages, streaming, nothing else set. */
void        tp_request_init (OwModelRequest *req,
                             const char     *model,
                             JsonArray      *messages,
                             JsonArray      *tools);

/* Builds @req with @provider; returns the call (free it) whose body, URL
 * and headers the test reads. Fails the test if building fails. */
OwProviderCall *tp_build (OwProvider *provider, const OwModelRequest *req);

/* JSON-path access ("$.messages[2].content[0].type") to a node: the first
 * match, or NULL. */
JsonNode   *tp_path         (JsonNode *root, const char *path);
char       *tp_path_string  (JsonNode *root, const char *path);
gint64      tp_path_int     (JsonNode *root, const char *path);
guint       tp_path_length  (JsonNode *root, const char *path);
gboolean    tp_path_exists  (JsonNode *root, const char *path);
char       *tp_to_string    (JsonNode *node);

#define tp_assert_path_string(root, path, expected) \
  G_STMT_START { \
    g_autofree char *_tp_s = tp_path_string ((root), (path)); \
    g_assert_cmpstr (_tp_s, ==, (expected)); \
  } G_STMT_END

/* Deltas a call reported. */
typedef struct {
  GString *text;       /* all text deltas joined */
  GString *reasoning;  /* all reasoning deltas joined */
  GString *order;      /* one letter per run of one kind: "RT" = reasoning, then text */
  guint    n;          /* number of deltas */
} TpDeltas;

void        tp_deltas_init  (TpDeltas *deltas);
void        tp_deltas_clear (TpDeltas *deltas);
void        tp_on_delta     (OwDeltaKind kind, const char *text, gsize len, gpointer user_data);

/* Feeds @wire to a new call of @provider in pieces of @split bytes
 * (0 = whole; G_MAXSIZE = pseudo-random sizes from @seed) and ends the
 * stream. Returns the turn, or NULL with @error and @partial set. */
OwTurn     *tp_stream       (OwProvider           *provider,
                             const OwModelRequest *req,
                             const char           *wire,
                             gsize                 split,
                             guint32               seed,
                             TpDeltas             *deltas,
                             OwTurn              **partial,
                             GError              **error);

/* Runs tp_stream() over many splits (whole, 1, 2, 3, 7, 64 and random
 * ones) and checks every run gives the same turn and deltas; returns the
 * turn of the whole run. */
OwTurn     *tp_stream_all_splits (OwProvider           *provider,
                                  const OwModelRequest *req,
                                  const char           *wire,
                                  TpDeltas             *deltas);

/* Parses a non-streamed body. */
OwTurn     *tp_parse        (OwProvider           *provider,
                             const OwModelRequest *req,
                             const char           *body,
                             OwTurn              **partial,
                             GError              **error);

void        tp_assert_turns_equal (OwTurn *a, OwTurn *b);

G_END_DECLS
