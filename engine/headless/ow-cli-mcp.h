/* ow-cli-mcp.h: `openworker mcp list|add|remove|tools` (the machine's
 * MCP servers in mcp.json). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "mcp". Exit codes: 0 done, 1 failed, 2 bad command line. */
int ow_mcp_main (int argc, char **argv);

G_END_DECLS
