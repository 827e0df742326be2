/* ow-toml.h: a small strict TOML 1.0 reader and writer.
 *
 * Debian ships no C TOML library, and settings must be files people can read
 * and edit, so config.toml is read and written here. The reader accepts
 * exactly TOML 1.0 (https://toml.io/en/v1.0.0) and refuses everything else
 * with the line and column of the first problem: a config with a typo must
 * fail loudly, never half-load.
 *
 * The document is represented as a json-glib tree: tables are JSON objects,
 * arrays are arrays, strings strings, integers gint64, floats doubles
 * (inf/nan included), booleans booleans. Date-times, dates and times have no
 * JSON type: they are validated and kept as their RFC 3339 text in a string
 * node (so writing them back gives a quoted string; our settings use none).
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Parses @len bytes (-1 = NUL-terminated) of TOML. Returns the root table as
 * a JSON object node, or NULL with an OW_TOML_ERROR whose message starts
 * with "line L, column C: ". */
JsonNode *ow_toml_parse            (const char *text, gssize len, GError **error);

/* Serializes @root as TOML: scalars and arrays of scalars first, then
 * sub-tables as [a.b] sections and arrays of tables as [[a.b]]. Keys that
 * are not bare are quoted. Arrays mixing tables and other values (valid in
 * TOML 1.0) are written inline, with inline tables. Fails with
 * OW_TOML_ERROR_TYPE on null values and on strings or keys that are not
 * UTF-8. Parsing the output gives back an equal tree. */
char     *ow_toml_write            (JsonObject *root, GError **error);

G_END_DECLS
