/* ow-tool-args.h: reading the arguments a model sent with a tool call.
 *
 * Models send arguments as JSON text, and sometimes send something that is
 * not a JSON object at all: text cut off by the output limit, prose, a bare
 * string. Such a call is never executed; it is answered with an error that
 * tells the model what went wrong, and the history keeps a short copy of
 * the unparsed text under "_raw" so the next request is still valid JSON.
 * Fuzzed.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Parses @text (@len bytes, -1 = NUL-terminated). Empty or blank text means
 * no arguments ({}). Returns the object, or NULL with a short description
 * of the problem in @problem. */
JsonObject *ow_tool_args_parse      (const char *text, gssize len, char **problem);

/* The arguments text to keep in history for an unparsed call:
 * {"_raw": "<first 200 characters>… [unparsed tool-call text, N characters]"}. */
char       *ow_tool_args_history_raw (const char *text);

/* The error result for an unparsed call. @cut_off: the reply stopped at the
 * output-token limit. */
char       *ow_tool_args_mangled_result (gboolean cut_off, const char *problem);

G_END_DECLS
