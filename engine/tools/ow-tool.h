/* ow-tool.h: what the model can call.
 *
 * An OwTool has a name and an OpenAI function schema (the original
 * OpenWorker's names and parameters), a risk class the policy reads, and a
 * kind: most tools execute, while ask_user and request_directory are
 * answered by a person (or by rule) through the session's attendant and
 * never reach execute. Results are JSON object texts; they are data, never
 * instructions.
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
  OW_TOOL_KIND_EXECUTE,            /* runs through execute_async */
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

/* The outcome of one call. */
typedef struct {
  OwToolStatus status;
  char        *text;     /* a JSON object text: the result as the model sees it */
} OwToolResult;

OwToolResult *ow_tool_result_new  (OwToolStatus status, const char *text);
/* {"error": message} with @status. */
OwToolResult *ow_tool_result_new_error (OwToolStatus status, const char *message);
void          ow_tool_result_free (OwToolResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwToolResult, ow_tool_result_free)

/* What a tool may use while it runs. Borrowed for the call. */
typedef struct _OwToolContext OwToolContext;
struct _OwToolContext {
  GObject *session;    /* the OwSession */
  GObject *executor;   /* the session's OwExecutor */
  /* Replaces the session's todo list (the session lives in core/, above
   * this module, so the agent passes its setter). */
  void   (*set_todos) (GObject *session, JsonArray *todos);
};

#define OW_TYPE_TOOL (ow_tool_get_type ())
G_DECLARE_INTERFACE (OwTool, ow_tool, OW, TOOL, GObject)

struct _OwToolInterface
{
  GTypeInterface parent_iface;

  const char   *(*get_name)       (OwTool *self);
  JsonObject   *(*get_schema)     (OwTool *self);
  OwRisk        (*get_risk)       (OwTool *self);
  OwToolKind    (*get_kind)       (OwTool *self);
  void          (*execute_async)  (OwTool              *self,
                                   const OwToolContext *context,
                                   JsonObject          *args,
                                   const char          *args_text,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
  OwToolResult *(*execute_finish) (OwTool        *self,
                                   GAsyncResult  *result,
                                   GError       **error);
};

const char   *ow_tool_get_name       (OwTool *self);
/* {type:"function", function:{name, description, parameters}}. Borrowed. */
JsonObject   *ow_tool_get_schema     (OwTool *self);
OwRisk        ow_tool_get_risk       (OwTool *self);
OwToolKind    ow_tool_get_kind       (OwTool *self);
void          ow_tool_execute_async  (OwTool              *self,
                                      const OwToolContext *context,
                                      JsonObject          *args,
                                      const char          *args_text,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
OwToolResult *ow_tool_execute_finish (OwTool *self, GAsyncResult *result, GError **error);

G_END_DECLS
