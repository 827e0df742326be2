/* ow-tool-salvage.h: tool calls a model wrote as text, made real. */
#pragma once

#include <json-glib/json-glib.h>

#include "providers/ow-turn.h"

G_BEGIN_DECLS

GPtrArray *ow_tool_salvage (const char  *text,
                            JsonArray   *tools,
                            char       **rest);

G_END_DECLS
