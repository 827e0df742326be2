/* ow-mcp-edit.h: changing mcp.json, keeping everything else in it.
 *
 * The CLI (`openworker mcp add|remove`), the loopback API and the
 * desktop's Settings all change the machine's mcp.json through these, so
 * an entry is checked the way the engine will read it before it is
 * saved, members this version does not know survive, and the file is
 * replaced atomically (0600). A missing file is an empty one.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The file's path for the machine: <config folder>/mcp.json. */
char     *ow_mcp_edit_default_path (void);

/* Whether @name may name a server: letters, digits, - and _, at most 40. */
gboolean  ow_mcp_edit_valid_name   (const char *name);

/* Adds @entry (an mcpServers value: command/args/env or url/headers …)
 * as @name. Fails (G_IO_ERROR_EXISTS) when @name is taken, and
 * (G_IO_ERROR_INVALID_ARGUMENT) with the engine's sentence when the entry
 * cannot be used. */
gboolean  ow_mcp_edit_add          (const char  *path,
                                    const char  *name,
                                    JsonObject  *entry,
                                    GError     **error);

/* Removes @name (G_IO_ERROR_NOT_FOUND when there is none). */
gboolean  ow_mcp_edit_remove       (const char  *path,
                                    const char  *name,
                                    GError     **error);

/* Sets member @member of @name's entry to @value (transfer none; NULL
 * removes the member), checked as add() checks. */
gboolean  ow_mcp_edit_set          (const char  *path,
                                    const char  *name,
                                    const char  *member,
                                    JsonNode    *value,
                                    GError     **error);

/* Sets @tool (the server's name for it) of @name's entry to @setting
 * ("allow", "ask", "deny", "off") in its "tools" object. "ask" removes the
 * tool's line when it would be the default anyway. Fails
 * (G_IO_ERROR_INVALID_ARGUMENT) on another word. */
gboolean  ow_mcp_edit_set_tool     (const char  *path,
                                    const char  *name,
                                    const char  *tool,
                                    const char  *setting,
                                    GError     **error);

/* A copy of @name's entry as saved, or NULL (not found, or unreadable). */
JsonObject *ow_mcp_edit_get        (const char  *path,
                                    const char  *name,
                                    GError     **error);

G_END_DECLS
