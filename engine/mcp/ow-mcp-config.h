/* ow-mcp-config.h: one MCP server's settings, and the mcp.json reader.
 *
 * The file has the original's shape, paste-compatible with Claude Desktop
 * and Cursor:
 *
 *   {"mcpServers": {"<name>": {"command": "npx", "args": […], "env": {…}, "cwd": "…"}
 *                   "<name>": {"url": "https://…/mcp", "headers": {…}}}}
 *
 * Per server: `type` (`stdio`, or `http`/`https`/`sse`/`streamable-http`/
 * `streamable_http` for HTTP; a `url` alone means HTTP), `enabled` (true),
 * `requires_approval` (true), `include_tools`/`exclude_tools` (aliases
 * `include`/`exclude`), `startup_timeout_sec` (10), `tool_timeout_sec` (60),
 * `tool_timeout_max_sec` (600: the hard limit progress cannot extend),
 * `max_message_bytes` (16 MiB), `client_id` and `client_secret` (a
 * pre-registered OAuth client; put the secret in as `${VAR}`), `auth`, and
 * `tools`: {"<the server's tool name>": "allow" | "ask" | "deny" | "off"}
 * (see OwMcpToolSetting). `${VAR}` inside any string is replaced through a resolver hook
 * (the environment by default; the secret store plugs in there). An entry
 * that cannot be used keeps its name and carries `error`, so one bad entry
 * never hides the others.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum {
  OW_MCP_TRANSPORT_STDIO,
  OW_MCP_TRANSPORT_HTTP,
} OwMcpTransport;

/* What a person set for one tool of a server. `requires_approval: false`
 * makes ALLOW the default of every tool of the entry; otherwise ASK is.
 * Server annotations never change it. */
typedef enum {
  OW_MCP_TOOL_ASK,    /* a card in ask mode (the default) */
  OW_MCP_TOOL_ALLOW,  /* runs without a card: a person's standing allow, from mcp.json */
  OW_MCP_TOOL_DENY,   /* not offered; a call to its name is refused with the reason */
  OW_MCP_TOOL_OFF,    /* not offered at all (as exclude_tools) */
} OwMcpToolSetting;

/* "allow", "ask", "deny", "off"; and back (FALSE for anything else). */
const char *ow_mcp_tool_setting_to_string   (OwMcpToolSetting setting);
gboolean    ow_mcp_tool_setting_from_string (const char *text, OwMcpToolSetting *out);

typedef struct {
  char           *name;               /* the key in mcpServers */
  OwMcpTransport  transport;
  char           *command;            /* stdio */
  char          **args;               /* stdio; never NULL */
  char          **env;                /* stdio: "NAME=value" the entry names; never NULL */
  char           *cwd;                /* stdio: NULL = inherit */
  char           *url;                /* http */
  char          **headers;            /* http: "Name: value"; never NULL */
  char          **include_tools;      /* NULL = all */
  char          **exclude_tools;      /* never NULL */
  char          **roots;              /* folders offered through roots/list; never NULL */
  gboolean        enabled;
  gboolean        requires_approval;
  char           *auth;               /* "oauth" or NULL */
  char           *client_id;          /* pre-registered OAuth client, or NULL */
  char           *client_secret;      /* its secret (from ${VAR}), or NULL; never logged */
  guint           start_timeout_ms;   /* spawn + initialize + first tools/list */
  guint           call_timeout_ms;    /* silence allowed in one call; progress resets it */
  guint           call_max_ms;        /* the hard limit of one call */
  gsize           max_message_bytes;  /* the largest message accepted from the server */
  guint           max_restarts;       /* restarts in a row after crashes before giving up */
  GHashTable     *tools;              /* server tool name → GINT_TO_POINTER (OwMcpToolSetting); never NULL */
  char           *error;              /* why this entry cannot be used, or NULL */
} OwMcpServerConfig;

/* Replaces ${NAME}: the value, or NULL when it is not set. */
typedef char *(*OwMcpResolveFunc) (const char *name, gpointer user_data);

OwMcpServerConfig *ow_mcp_server_config_new   (const char *name);
OwMcpServerConfig *ow_mcp_server_config_copy  (const OwMcpServerConfig *config);
void               ow_mcp_server_config_free  (OwMcpServerConfig *config);
/* Whether two entries would start the same server the same way (every
 * member compared), so a reload can keep one that did not change. */
gboolean           ow_mcp_server_config_equal (const OwMcpServerConfig *a, const OwMcpServerConfig *b);

/* Parses mcp.json text. Returns the servers in file order (transfer full,
 * element type OwMcpServerConfig), or NULL with OW_MCP_ERROR_CONFIG when the
 * file itself is not usable (not JSON, no mcpServers object). @resolve NULL
 * reads the process environment. */
GPtrArray         *ow_mcp_config_parse        (const char       *text,
                                               gssize            len,
                                               OwMcpResolveFunc  resolve,
                                               gpointer          resolve_data,
                                               GError          **error);

/* The servers of the global mcp.json (@global_path, in the state folder)
 * and, when the workspace is trusted, of its .openworker/mcp.json
 * (@workspace_path; pass NULL for an untrusted workspace: its file is never
 * read, so it can never start a command). On a name in both, the global
 * entry wins, except that the workspace's `tools` settings narrow it (the
 * stricter of the two holds: off > deny > ask > allow). A workspace's file
 * may narrow but never widen: a tool set to "allow" or
 * `requires_approval: false` there makes its entry an error. A file that does not exist adds nothing; one that cannot be
 * read or parsed fails the load with a sentence naming it. */
GPtrArray         *ow_mcp_config_load         (const char       *global_path,
                                               const char       *workspace_path,
                                               OwMcpResolveFunc  resolve,
                                               gpointer          resolve_data,
                                               GError          **error);

/* Whether @tool is offered: the include/exclude lists let it through and
 * its setting is neither deny nor off. */
gboolean           ow_mcp_server_config_allows_tool (const OwMcpServerConfig *config, const char *tool);
/* What holds for @tool: off when the include/exclude lists keep it out,
 * else its `tools` setting, else allow when `requires_approval` is false,
 * else ask. */
OwMcpToolSetting   ow_mcp_server_config_tool_setting (const OwMcpServerConfig *config, const char *tool);

/* The name the model sees: `mcp__<server>__<tool>`, every character outside
 * [A-Za-z0-9_-] replaced by '_', at most 64 characters. When @taken
 * (a set of names) already holds it, a suffix "_2", "_3", … makes it
 * unique (the name is shortened to fit). The result is added to @taken. */
char              *ow_mcp_tool_full_name      (const char *server, const char *tool, GHashTable *taken);
#define OW_MCP_TOOL_NAME_MAX 64

/* The environment a stdio server starts with: a minimal base from this
 * process (HOME, USER, LOGNAME, SHELL, TERM, LANG, LANGUAGE, LC_*, TZ,
 * TMPDIR), PATH = @path, then the entry's own `env` over it. Nothing else of
 * this process reaches the server: no provider keys, no tokens. */
char             **ow_mcp_server_config_build_env (const OwMcpServerConfig *config, const char *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwMcpServerConfig, ow_mcp_server_config_free)

G_END_DECLS
