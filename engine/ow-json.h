/* ow-json.h: small json-glib helpers shared by every module.
 *
 * Typed member getters that tolerate absent members and wrong types (model
 * and server replies are outside data), deep copies, and compact
 * serialization.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Members of the given type, or NULL / @fallback when absent or of another type. */
const char *ow_json_get_string       (JsonObject *obj, const char *name);
JsonObject *ow_json_get_object       (JsonObject *obj, const char *name);
JsonArray  *ow_json_get_array        (JsonObject *obj, const char *name);
gint64      ow_json_get_int          (JsonObject *obj, const char *name, gint64 fallback);
gboolean    ow_json_get_bool         (JsonObject *obj, const char *name, gboolean fallback);
gboolean    ow_json_has_int          (JsonObject *obj, const char *name);

/* Copies that share nothing with the original (json_node_copy shares
 * objects and arrays). */
JsonNode   *ow_json_deep_copy        (JsonNode *node);
JsonObject *ow_json_object_deep_copy (JsonObject *obj);

/* The deepest nesting of arrays and objects read from outside data.
 * json-glib's parser recurses once per level (so do its generator and
 * ow_json_deep_copy), so "[[[[…" 200,000 deep in a model reply overflows
 * the stack and kills the process. Real replies, tool arguments, JSON
 * Schemas and API requests stay under 30 levels; 512 leaves ample room for
 * them, and parsing plus serializing 512 levels takes json-glib under
 * 128 KiB of stack (measured), far inside any thread's stack. */
#define OW_JSON_MAX_DEPTH 512

/* Whether @text (@len bytes) nests JSON arrays and objects at most
 * @max_depth deep (brackets inside strings, escaped quotes included, do
 * not count). Cheap: one pass, no allocation. Malformed text may pass; the
 * parser then rejects it. The server checks its tighter per-route limits
 * with it too. */
gboolean    ow_json_depth_ok         (const char *text, gsize len, guint max_depth);

/* Every parse of outside data goes through these two: they refuse nesting
 * deeper than OW_JSON_MAX_DEPTH before json-glib sees the text.
 * Parses @len bytes (-1: NUL-terminated); the root, or NULL with an error. */
JsonNode   *ow_json_parse            (const char *text, gssize len, GError **error);
/* Parses @text as a JSON object; NULL with an error if it is not one. */
JsonObject *ow_json_object_from_string (const char *text, gssize len, GError **error);

/* Compact serialization (no spaces, member order kept). */
char       *ow_json_to_string        (JsonNode *node);
char       *ow_json_object_to_string (JsonObject *obj);

G_END_DECLS
