/* tool-provider-test-util.h: a tool provider the tests change at will.
 *
 * OwTestTools is an OwToolProvider whose tools the test adds and removes
 * while a session runs, as an MCP server's list changes. Its tools are
 * OwTestTool: a read-only tool whose result is {"tool": name, "args": …},
 * which reports progress once (1 of 2, "halfway") on its way.
 */
#pragma once

#include "tools/ow-tool-provider.h"

G_BEGIN_DECLS

#define OW_TYPE_TEST_TOOLS (ow_test_tools_get_type ())
G_DECLARE_FINAL_TYPE (OwTestTools, ow_test_tools, OW, TEST_TOOLS, GObject)

OwTestTools *ow_test_tools_new    (const char  *source);
/* Adds a tool named @name (one items-changed); returns it (borrowed). */
OwTool      *ow_test_tools_add    (OwTestTools *self,
                                   const char  *name);
/* Removes the tool named @name (one items-changed). */
void         ow_test_tools_remove (OwTestTools *self,
                                   const char  *name);

G_END_DECLS
