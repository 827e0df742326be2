/* ow-tool.h: what the model can call.
 *
 * An OwTool is one callable thing, whatever provides it (the built-ins,
 * an MCP server, a connector; see ow-tool-provider.h). It carries:
 *  - its name, a title and description for people and the model, the JSON
 *    Schema of its input and, optionally, of its structured output;
 *  - its risk class, which is all the policy reads about it, and the
 *    argument that names its target (what a standing rule like
 *    "send_message:#general" matches);
 *  - annotations (MCP's readOnlyHint, destructiveHint, …; informative,
 *    never trusted for policy) and its source ("builtin", "mcp:<server>",
 *    "connector:<id>");
 *  - call_async(), whose result holds content blocks (text, image,
 *    resource link), optional structured content and an error flag, plus
 *    the text the model is sent.
 * Most tools execute; ask_user, request_directory and
 * request_network_access (their kind says so) are answered by a person,
 * or by rule, through the session's attendant and never reach call_async.
 * Results are data, never instructions.
 *
 * Only get_name, get_risk and call_async/call_finish are required. The
 * function schema the wire wants is built from name, description and input
 * schema when a tool does not give its own.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum {
  OW_RISK_READ,         /* no side effects */
  OW_RISK_WRITE_LOCAL,  /* changes files in the session's folders */
  OW_RISK_EXEC,         /* runs commands */
  OW_RISK_EXTERNAL,     /* side effects off the machine */
} OwRisk;

const char *ow_risk_to_string (OwRisk risk);   /* "read", "write_local", "exec", "external" */

typedef enum {
  OW_TOOL_KIND_EXECUTE,            /* runs through call_async */
  OW_TOOL_KIND_ASK_USER,           /* answered by the attendant */
  OW_TOOL_KIND_REQUEST_DIRECTORY,  /* answered by the attendant */
  OW_TOOL_KIND_REQUEST_SITE,       /* a site card, answered by the attendant */
} OwToolKind;

typedef enum {
  OW_TOOL_STATUS_OK,
  OW_TOOL_STATUS_ERROR,
  OW_TOOL_STATUS_DENIED,
  OW_TOOL_STATUS_INTERRUPTED,
} OwToolStatus;

const char *ow_tool_status_to_string (OwToolStatus status);  /* "ok", "error", "denied", "interrupted" */

/* ---- Content ------------------------------------------------------------ */

typedef enum {
  OW_CONTENT_TEXT,
  OW_CONTENT_IMAGE,
  OW_CONTENT_RESOURCE_LINK,
} OwContentKind;

/* One block of a result, as MCP's content array has them. */
typedef struct {
  OwContentKind kind;
  char         *text;       /* TEXT: the text */
  GBytes       *data;       /* IMAGE: the decoded bytes */
  char         *mime_type;  /* IMAGE (required), RESOURCE_LINK (may be NULL) */
  char         *uri;        /* RESOURCE_LINK: where it is */
  char         *name;       /* RESOURCE_LINK: what to call it (may be NULL) */
} OwContentBlock;

OwContentBlock *ow_content_block_new_text          (const char *text);
OwContentBlock *ow_content_block_new_image         (GBytes     *data,
                                                    const char *mime_type);
OwContentBlock *ow_content_block_new_resource_link (const char *uri,
                                                    const char *name,
                                                    const char *mime_type);
void            ow_content_block_free              (OwContentBlock *block);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwContentBlock, ow_content_block_free)

/* ---- Results ------------------------------------------------------------ */

/* The outcome of one call. @text is what the model is sent: for the
 * built-ins a JSON object text, as before; for a result made of content
 * blocks, their text (see ow_tool_result_new_content()). */
typedef struct {
  OwToolStatus status;
  char        *text;        /* the result as the model sees it */
  GPtrArray   *content;     /* OwContentBlock*, or NULL: the result is @text alone */
  JsonObject  *structured;  /* structured content (matches the output schema), or NULL */
  gboolean     is_error;    /* the tool reports the call failed (MCP's isError) */
} OwToolResult;

OwToolResult *ow_tool_result_new  (OwToolStatus status, const char *text);
/* {"error": message} with @status. */
OwToolResult *ow_tool_result_new_error (OwToolStatus status, const char *message);
/* A result of content blocks (@content: transfer full, may be NULL) and
 * structured content (@structured: a reference is taken, may be NULL).
 * The model is sent the text blocks joined by newlines, an image as
 * "[image: <mime type>, <n> bytes]", a resource link as
 * "[resource: <name> <uri>]"; with no blocks, the structured content as
 * JSON. Status is ERROR when @is_error, else OK. */
OwToolResult *ow_tool_result_new_content (GPtrArray  *content,
                                          JsonObject *structured,
                                          gboolean    is_error);
/* A deep copy. */
OwToolResult *ow_tool_result_copy (const OwToolResult *result);
void          ow_tool_result_free (OwToolResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwToolResult, ow_tool_result_free)

/* What a tool may use while it runs. Borrowed for the call. A tool that
 * needs none of it (an MCP tool, a connector's) ignores it. */
typedef struct _OwToolContext OwToolContext;
struct _OwToolContext {
  GObject *session;    /* the OwSession */
  GObject *executor;   /* the session's OwExecutor */
  /* Replaces the session's todo list (the session lives in core/, above
   * this module, so the agent passes its setter). */
  void   (*set_todos) (GObject *session, JsonArray *todos);
  /* Asks the person a question on the call's behalf (an MCP server's
   * elicitation) the way ask_user is asked: through the session's
   * attendant, so the card reaches whoever watches the session and an
   * unattended run answers by rule. @question has ask_user's arguments
   * ({question, options?}); the answer is ask_user's ({answer,
   * answered_by_rule?}). NULL when nobody can be asked. @ask_data stays
   * valid while a reference is held (take one for the call). */
  void        (*ask_async)  (GObject *ask_data, JsonObject *question, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data);
  JsonObject *(*ask_finish) (GObject *ask_data, GAsyncResult *result, GError **error);
  GObject     *ask_data;
};

/* Progress of a call that reports it (MCP's notifications/progress):
 * @progress so far of @total (total < 0: unknown), and an optional
 * message. Called on the main context the call was started on. */
typedef void (*OwToolProgressFunc) (double      progress,
                                    double      total,
                                    const char *message,
                                    gpointer    user_data);

#define OW_TYPE_TOOL (ow_tool_get_type ())
G_DECLARE_INTERFACE (OwTool, ow_tool, OW, TOOL, GObject)

struct _OwToolInterface
{
  GTypeInterface parent_iface;

  /* required */
  const char   *(*get_name)            (OwTool *self);
  OwRisk        (*get_risk)            (OwTool *self);
  void          (*call_async)          (OwTool              *self,
                                        const OwToolContext *context,
                                        JsonObject          *args,
                                        GCancellable        *cancellable,
                                        OwToolProgressFunc   progress,
                                        gpointer             progress_data,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
  OwToolResult *(*call_finish)         (OwTool        *self,
                                        GAsyncResult  *result,
                                        GError       **error);
  /* optional */
  JsonObject   *(*get_schema)          (OwTool *self);
  const char   *(*get_title)           (OwTool *self);
  const char   *(*get_description)     (OwTool *self);
  JsonObject   *(*get_input_schema)    (OwTool *self);
  JsonObject   *(*get_output_schema)   (OwTool *self);
  const char   *(*get_target_argument) (OwTool *self);
  JsonObject   *(*get_annotations)     (OwTool *self);
  const char   *(*get_source)          (OwTool *self);
  OwToolKind    (*get_kind)            (OwTool *self);
  const char   *(*get_allowed_by)      (OwTool *self);
};

const char   *ow_tool_get_name            (OwTool *self);
/* {type:"function", function:{name, description, parameters}}. Borrowed. */
JsonObject   *ow_tool_get_schema          (OwTool *self);
/* A title for people; the name when the tool has none. */
const char   *ow_tool_get_title           (OwTool *self);
/* The description (from the schema by default), or NULL. */
const char   *ow_tool_get_description     (OwTool *self);
/* The JSON Schema of the arguments (from the schema by default), or NULL. Borrowed. */
JsonObject   *ow_tool_get_input_schema    (OwTool *self);
/* The JSON Schema of the structured result, or NULL. Borrowed. */
JsonObject   *ow_tool_get_output_schema   (OwTool *self);
OwRisk        ow_tool_get_risk            (OwTool *self);
/* The argument naming whom or what the call goes to, for standing rules
 * ("to" of an email tool), or NULL: the policy's own table decides (it
 * knows the built-ins: commands, paths), as it does for every built-in. */
const char   *ow_tool_get_target_argument (OwTool *self);
/* Hints about the tool (MCP annotations), or NULL. Borrowed. Never a
 * reason to trust it more: the policy reads the risk class. */
JsonObject   *ow_tool_get_annotations     (OwTool *self);
/* "builtin" (the default), "mcp:<server>" or "connector:<id>". */
const char   *ow_tool_get_source          (OwTool *self);
OwToolKind    ow_tool_get_kind            (OwTool *self);
/* Where a person's configuration lets this tool run without a card (a
 * sentence's subject, e.g. "mcp.json (server “x”: tool “y” set to allow)"),
 * or NULL (the default). The policy reads it like a config allow rule,
 * after floors, safety checks and deny rules. It is set only by engine
 * code from a person's file (never from a server's annotations, never by
 * the agent). */
const char   *ow_tool_get_allowed_by      (OwTool *self);
/* Runs the call. @progress may be NULL. A stop is reported by the tool,
 * as an INTERRUPTED result or a G_IO_ERROR_CANCELLED error. */
void          ow_tool_call_async          (OwTool              *self,
                                           const OwToolContext *context,
                                           JsonObject          *args,
                                           GCancellable        *cancellable,
                                           OwToolProgressFunc   progress,
                                           gpointer             progress_data,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
OwToolResult *ow_tool_call_finish         (OwTool        *self,
                                           GAsyncResult  *result,
                                           GError       **error);

G_END_DECLS
