/* ow-mcp-schema.h: the small JSON Schema check applied to structuredContent.
 *
 * When a tool declares an outputSchema, its structuredContent is checked
 * against it before anyone reads it. Covered keywords: `type` (a name or a
 * list of names; "integer" accepts whole numbers written as 3.0), `enum`,
 * `const`, `required`, `properties` (recursively), `additionalProperties`
 * (false or a schema), `items` (a schema for every element). Everything
 * else (`$ref`, `anyOf`/`oneOf`/`allOf`, formats, numeric and length
 * bounds, patterns) is accepted without a check. Nesting is bounded.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Whether @value conforms to @schema; otherwise FALSE with
 * OW_MCP_ERROR_INVALID_RESULT naming the first offending path
 * ("$.temperature: expected number, got string"). */
gboolean ow_mcp_schema_check (JsonObject *schema, JsonNode *value, GError **error);

G_END_DECLS
