/* ow-agent.h: the turn loop.
 *
 * OwAgent runs one turn of a session: the person's input goes in, the model
 * is called (streaming text and reasoning as events), the tool calls it
 * makes are decided by the policy, answered by the attendant when a person
 * is needed, executed by the executor, bounded and returned, and the loop
 * repeats until the model answers without calling a tool — or a ceiling, a
 * permanent error or a stop ends it. Everything runs on the main loop; tools
 * run on worker threads; a GCancellable stops it at any point (between
 * chunks, during a tool, while asking, during a retry wait), and every tool
 * call still gets exactly one result.
 *
 * Transient provider failures (connection trouble, rate limits, overload,
 * 5xx, cut-off or empty replies) wait the retry schedule (by default 2, 5,
 * 10, 30, 60, 120, 240, 300, 300 seconds; a Retry-After longer than the
 * step is honoured) and re-enter the conversation, with a nudge when the
 * model should know what happened. Permanent failures end the turn at once.
 */
#pragma once

#include <gio/gio.h>

#include "core/ow-session.h"
#include "net/ow-address-guard.h"
#include "policy/ow-attendant.h"
#include "policy/ow-policy.h"
#include "policy/ow-reviewer.h"
#include "providers/ow-provider.h"
#include "store/ow-audit-log.h"
#include "tools/ow-executor.h"
#include "tools/ow-tool-registry.h"

G_BEGIN_DECLS

typedef enum {
  OW_OUTCOME_COMPLETED,       /* the model gave its answer */
  OW_OUTCOME_MAX_ITERATIONS,  /* the iteration ceiling was reached */
  OW_OUTCOME_CUT_OFF,         /* replies kept stopping at the output-token ceiling */
  OW_OUTCOME_MODEL_ERROR,     /* a permanent provider error, or retries ran out */
  OW_OUTCOME_INTERRUPTED,     /* the cancellable fired */
  OW_OUTCOME_STORAGE_ERROR,   /* the session could not be saved (disk full, …) */
  OW_OUTCOME_PARKED,          /* stopped while an ask waits for a person (ow_agent_park) */
} OwOutcome;

const char *ow_outcome_to_string (OwOutcome outcome);  /* "completed", "max_iterations", "cut_off", "model_error", "interrupted", "storage_error", "parked" */

typedef struct {
  OwOutcome outcome;
  guint     iterations;   /* model calls that produced a reply */
  char     *error;        /* for model and storage errors: the message */
  char     *error_type;   /* e.g. "AuthError", "RateLimited" */
} OwTurnResult;

void ow_turn_result_free (OwTurnResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwTurnResult, ow_turn_result_free)

/* The facts of one model call, for model_calls.jsonl and the trajectory. */
typedef struct {
  guint       iteration;      /* 1-based iteration the call belongs to */
  guint       attempt;        /* 0 for the first try, 1.. for retries */
  const char *status;         /* "ok", "error", "cancelled" */
  const char *finish_reason;  /* for ok calls */
  gboolean    has_usage;
  OwUsage     usage;
  gboolean    has_cost;
  double      cost_usd;
  gint64      ceiling;        /* max output tokens requested (0 = provider default) */
  const char *effort;         /* reasoning effort sent, or NULL */
  const char *model;          /* full model id */
  const char *served_model;   /* what the server said it ran, or NULL */
  const OwCallInfo *info;     /* URL, status, host, timings, cause */
  const char *error;          /* for failed calls: the message */
  const char *error_type;
  double      retry_in;       /* seconds until the retry, or -1 when none */
  gint64      message_index;  /* the assistant message it produced, or -1 */
  gint64      started_ms;     /* wall clock at the start of the call */
} OwModelCall;

/* The most tool calls run from one reply. Models fan out to a few dozen
 * parallel calls at most; a reply asking for thousands is broken or
 * hostile, and running them all would hold the run (and the person asked
 * to approve them) hostage. The calls beyond it are answered without being
 * run, so every call still has its result and the model can ask again. */
#define OW_AGENT_MAX_CALLS_PER_REPLY 64

#define OW_TYPE_AGENT (ow_agent_get_type ())
G_DECLARE_FINAL_TYPE (OwAgent, ow_agent, OW, AGENT, GObject)

/* All arguments are referenced. @audit may be NULL. */
OwAgent      *ow_agent_new                   (OwSession      *session,
                                              OwProvider     *provider,
                                              const char     *bare_model,
                                              OwToolRegistry *tools,
                                              OwExecutor     *executor,
                                              OwPolicy       *policy,
                                              OwAttendant    *attendant,
                                              OwAuditLog     *audit);

OwSession    *ow_agent_get_session           (OwAgent *self);
/* The system message a new session starts with (borrowed, may be NULL). */
const char   *ow_agent_get_instructions      (OwAgent *self);
/* The session's live tool registry (borrowed). */
OwToolRegistry *ow_agent_get_tools           (OwAgent *self);
/* The system message, added at the start of the session's history when the
 * history has none. */
void          ow_agent_set_instructions      (OwAgent *self, const char *instructions);
void          ow_agent_set_max_iterations    (OwAgent *self, guint max_iterations);        /* default 150 */
void          ow_agent_set_max_output_tokens (OwAgent *self, gint64 max_output_tokens);     /* 0 = provider default */
void          ow_agent_set_reasoning_effort  (OwAgent *self, const char *effort);
void          ow_agent_set_provider_order    (OwAgent *self, const char *order);
void          ow_agent_set_sampling          (OwAgent *self, double temperature, double top_p, gint64 context_size, int thinking);
/* When the history is compacted: at min(@threshold × @window, @cap) tokens
 * (@window ≤ 0: 128,000; @threshold outside 0.10–0.95: 0.8; @cap ≤ 0:
 * 250,000). See core/ow-compaction.h. */
void          ow_agent_set_compaction        (OwAgent *self, gint64 window, double threshold, gint64 cap);
gint64        ow_agent_get_compaction_trigger (OwAgent *self);
/* Bound on each tool result (default 10,000 bytes; 0 = off) and where the
 * full text of a bounded result goes (added to the session as a read-only
 * folder so read_file can page through it). */
gboolean      ow_agent_set_tool_result_limit (OwAgent *self, gsize max_bytes, const char *spill_dir, GError **error);
/* The waits between retries of a transient failure, in seconds; the number
 * of entries is the number of retries. */
void          ow_agent_set_retry_delays      (OwAgent *self, const double *delays, guint n_delays);
/* Sets the waits from OPENWORKER_RETRY_DELAYS ("0.05,0.05": seconds, one a
 * retry) when it is set; leaves the default schedule otherwise. */
void          ow_agent_load_retry_delays     (OwAgent *self);
/* auto-approve: the reviewer and what it is told about the coworker. */
void          ow_agent_set_reviewer          (OwAgent *self, OwReviewer *reviewer, const char *role_title,
                                              const char *role_prompt, const char *guidance);
OwReviewer   *ow_agent_get_reviewer          (OwAgent *self);
/* OpenWorker's own folders (config, state, runtime): touching them is a
 * safety check. */
void          ow_agent_set_agent_dirs        (OwAgent *self, const char *const *dirs);
/* The sandbox's allow list: web_fetch to a site not on it shows a site
 * card first, and request_network_access asks for one. NULL = no list.
 * An "always" grant of an exact address the guard would refuse (loopback,
 * private) is written to sandbox_network_hosts, which makes it an
 * exception; it is added to @guard at once. Once and session grants never
 * lift the guard. */
void          ow_agent_set_sites             (OwAgent *self, OwSiteList *sites, OwAddressGuard *guard);
/* The default schedule: 2, 5, 10, 30, 60, 120, 240, 300, 300. */
const double *ow_agent_default_retry_delays  (guint *n_delays);

void          ow_agent_run_async             (OwAgent            *self,
                                              const char         *input,
                                              GCancellable       *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
/* The same with a whole user message (content parts: text, images, PDFs)
 * as built by ow_message_json_user_parts(); @request is its text for the
 * reviewer and the turn_start event. @user NULL continues the history as
 * it is (a retry after a failed or interrupted turn); when its last reply
 * has tool calls without results (a turn that was parked), those are
 * taken up first — an ask already answered in the inbox is not asked
 * again — and the turn goes on from there. */
void          ow_agent_run_message_async     (OwAgent            *self,
                                              JsonObject         *user,
                                              const char         *request,
                                              GCancellable       *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
OwTurnResult *ow_agent_run_finish            (OwAgent *self, GAsyncResult *result, GError **error);
/* Stops the running turn because its process stops. If the turn waits for
 * a person's answer, the ask stays waiting (in the inbox) and nothing is
 * written for the call: the turn ends with "turn_parked" and
 * OW_OUTCOME_PARKED, and a later turn started without a message continues
 * it with the answer. Otherwise it is like cancelling the turn. */
void          ow_agent_park                  (OwAgent *self);

G_END_DECLS
