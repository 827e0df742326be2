/* ow-agent-private.h: what the parts of the turn loop share.
 *
 * OwAgent is one class split by concern, as GNOME Text Editor splits its
 * window: ow-agent.c holds the object, the setters, the helpers every part
 * uses and the entry points; the turn's states live beside it in
 * ow-agent-model.c, ow-agent-compaction.c, ow-agent-tools.c,
 * ow-agent-approval.c and ow-agent-sites.c. Nothing here is API: only the
 * agent's own files include this header.
 */
#pragma once

#include "core/ow-agent.h"

#include <math.h>
#include <string.h>

#include "core/ow-file-changes.h"
#include "core/ow-outbound.h"
#include "core/ow-tool-args.h"
#include "policy/ow-readonly.h"
#include "policy/ow-safety.h"
#include "providers/ow-provider-catalog.h"
#include "core/ow-usage.h"
#include "ow-error.h"
#include "ow-redact.h"
#include "sandbox/ow-session-sandbox.h"
#include "store/ow-config.h"
#include "store/ow-paths.h"
#include "tools/ow-shell-result.h"

G_BEGIN_DECLS

/* Replies that stop at the output-token ceiling without a tool call are
 * continued; this many in a row end the turn as cut off. */
#define MAX_LENGTH_STRIKES 3

struct _OwAgent
{
  GObject         parent_instance;

  /* owned references */
  OwSession      *session;
  OwProvider     *provider;
  OwToolRegistry *tools;          /* read afresh at every model call */
  OwExecutor     *executor;
  OwPolicy       *policy;
  OwAttendant    *attendant;
  OwAuditLog     *audit;          /* may be NULL */

  /* settings */
  char           *bare_model;     /* the model as the wire wants it */
  char           *cache_key;      /* the session's stable prompt-cache key (a digest of its id) */
  gboolean        vision;         /* the model reads images and PDFs (the catalog's "vision") */
  char           *instructions;   /* the system message */
  guint           max_iterations;
  gint64          max_output_tokens;
  char           *effort;
  char           *provider_order;
  double          temperature;    /* < 0 unset */
  double          top_p;          /* < 0 unset */
  gint64          context_size;
  int             thinking;       /* -1 unset */
  gint64          compact_window;    /* the context window compaction sizes to */
  double          compact_threshold; /* share of the window (0.10–0.95) */
  gint64          compact_cap;       /* most tokens before compacting */
  gint64          last_context;      /* prompt total of the last reply, -1 unknown */
  gsize           result_max;     /* tool result bound in bytes, 0 = off */
  char           *spill_dir;
  GArray         *retry_delays;   /* double seconds */
  gboolean        running;        /* a turn is in progress */
  struct _Run    *current;        /* its Run (borrowed), for ow_agent_park */
  gboolean        parking;        /* ow_agent_park: a stop leaves the ask waiting */

  /* governance */
  OwReviewer     *reviewer;       /* auto-approve's reviewer, or NULL (owned) */
  char           *role_title;     /* the coworker, for the reviewer */
  char           *role_prompt;
  char           *guidance;       /* approval guidance, ≤ 2,400 characters */
  GStrv           agent_dirs;     /* OpenWorker's own folders (safety checks) */
  GStrv           tool_env;       /* the environment the shell starts with (safety checks' $NAME) */
  GPtrArray      *downloaded;     /* char*: files this session downloaded */
  char           *shell_cwd;      /* the shell's folder after its last command */
  char           *request;        /* the person's request of this turn, for the reviewer */
  OwSiteList     *sites;          /* the sandbox's allow list (site cards), or NULL (owned) */
  OwAddressGuard *guard;          /* its address guard (owned) */
};

typedef struct _Run {
  OwAgent       *agent;          /* owned reference */
  GCancellable  *cancellable;    /* owned reference; never NULL */
  guint          iterations;     /* replies received this turn */
  guint          attempt;        /* retries of the current model call */
  guint          length_strikes; /* consecutive replies cut at the ceiling */
  gint64         call_started_ms;
  GSource       *wait_source;    /* retry timer */
  GSource       *cancel_source;  /* wakes a retry wait on cancel */
  GPtrArray     *calls;          /* OwToolCall* of the current assistant message */
  guint          call_index;
  gboolean       reply_cut;      /* the current message stopped at the ceiling */
  gboolean       interrupted;    /* a tool call was interrupted: stop after answering the rest */
  /* the tool call in progress */
  OwTool        *cur_tool;       /* owned: the registry may change while it runs */
  JsonObject    *cur_args;       /* owned */
  char          *cur_provenance; /* owned */
  char          *cur_record;     /* owned: the tool's full result when the model gets a leaner one, else NULL */
  GHashTable    *ahead;          /* call id → Ahead*: read-only calls of this reply started before their turn */
  OwDecision     decision;       /* the policy's decision on the current call */
  guint64        review_generation; /* policy generation when the review started */
  char          *review_mode;    /* the mode when the review started */
  guint          review_roots;   /* the number of folders when the review started */
  char          *site;           /* the site a card asks about */
  OwFileSnapshot *shell_before;  /* run_shell: the writable folders before the command (owned) */
  GPtrArray     *shell_changed;  /* run_shell: char*, the files it made or changed (owned) */
  /* compaction in progress */
  JsonArray     *compact_history;  /* the history it summarizes (owned) */
  guint          compact_boundary;
  guint          compact_failures; /* summarizer failures of this compaction */
  gboolean       compact_forced;   /* the model said the context overflowed */
  guint          overflows;        /* forced compactions for the current call */
  char          *overflow_error;   /* the overflow's message, for when nothing helps */
  /* the reply streaming in: one per delta kind, so a key split across two
   * deltas is still caught before any sink sees either half */
  OwRedactStream *delta_streams[2];
} Run;

/* A read-only call of the current reply started before its turn, so that
 * several reads run at once (see start_ahead()). Shared by the run's table
 * and the call in flight. */
typedef struct {
  gint          refs;
  gboolean      done;     /* the call finished: @result or @error is set */
  OwToolResult *result;
  GError       *error;
  GTask        *waiting;  /* owned: the run, when the call's turn came before it finished */
} Ahead;

/* Emits OwAgent::model-call with @call. */
void _ow_agent_emit_model_call (OwAgent *self, OwModelCall *call);

/* ow-agent.c: the loop's spine: results, events, messages, audit rows, ending a turn */
Run *_ow_agent_run_of (GTask *task);
void _ow_agent_emit (Run *run, const char *type, JsonObject *data);
void _ow_agent_finish (GTask *task, OwOutcome outcome, const char *error, const char *error_type);
gboolean _ow_agent_append (GTask *task, JsonObject *msg);
void _ow_agent_audit (Run *run, OwToolCall *call, const char *stage, const char *status, const char *approval, const char *provenance, const char *reason, const char *preview);
void _ow_agent_set_content (JsonObject *msg, const char *text);
gboolean _ow_agent_persist_partial (GTask *task, OwTurn *partial);
void _ow_agent_finish_interrupted (GTask *task);
void _ow_agent_finish_error (GTask *task, OwOutcome outcome, const char *message, const char *error_type, const char *raw);
void _ow_agent_finish_turn_end (GTask *task, OwOutcome outcome, const char *status);
void _ow_agent_iterate (GTask *task);

/* ow-agent-model.c: model calls: streaming, retries, the reply */
void _ow_agent_report_call (Run *run, const char *status, OwTurn *turn, OwCallInfo *info, const GError *error, double retry_in, gint64 message_index);
JsonObject *_ow_agent_usage_json (OwAgent *agent, const OwUsage *u);
void _ow_agent_call_model (GTask *task);

/* ow-agent-compaction.c: compaction: summaries and trimming */
gboolean _ow_agent_compaction_due (OwAgent *agent);
void _ow_agent_start_compaction (GTask *task, gboolean forced);

/* ow-agent-tools.c: tool calls: one after another, reads at once, results */
void _ow_agent_ahead_unref (Ahead *ahead);
OwToolCall *_ow_agent_current_call (Run *run);
gboolean _ow_agent_finish_if_parked (GTask *task);
void _ow_agent_complete_call (GTask *task, OwToolStatus status, const char *result_text, const char *reason);
void _ow_agent_complete_error (GTask *task, OwToolStatus status, const char *message, const char *reason);
void _ow_agent_execute_current (GTask *task);
void _ow_agent_next_call (GTask *task);

/* ow-agent-approval.c: the policy's verdict, the reviewer, a person's answer */
void _ow_agent_refuse (GTask *task, const char *provenance, const char *reason, OwToolStatus status);
/* OwToolContext's ask hook: a tool's question (an MCP elicitation) through
 * the attendant, announced as question_requested/resolved. @ask_data is the
 * turn's GTask. */
void _ow_agent_tool_ask_async (GObject *ask_data, JsonObject *question, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data);
JsonObject *_ow_agent_tool_ask_finish (GObject *ask_data, GAsyncResult *result, GError **error);
void _ow_agent_emit_resolved (Run *run, OwToolCall *call, const char *kind, const char *decision, gboolean by_rule);
void _ow_agent_on_interaction_cb (GObject *source, GAsyncResult *result, gpointer user_data);
void _ow_agent_policy_decide (Run *run, OwToolCall *call, OwTool *tool, JsonObject *args, OwDecision *out);
void _ow_agent_decide_current (GTask *task);

/* ow-agent-sites.c: site cards: web_fetch to a new site, request_network_access */
char *_ow_agent_site_of_url (const char *url);
gboolean _ow_agent_site_allowed (OwAgent *agent, const char *site);
void _ow_agent_ask_site (GTask *task, const char *site, const char *reason);
void _ow_agent_request_site (GTask *task);

G_END_DECLS
