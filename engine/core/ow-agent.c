/* ow-agent.c: the turn loop (see ow-agent.h for what it does).
 *
 * The loop is a chain of callbacks on the main loop, one GTask per turn
 * carrying a Run. The states are:
 *
 *   iterate ──▶ call_model ──▶ on_model_done ──┬─▶ (no tool calls) finish
 *      ▲                           │            └─▶ next_call ─▶ … ─▶ iterate
 *      │                           └─▶ transient failure: wait_then_retry ─▶ call_model
 *      └─────────────────────────────────────────────────────────────────────┘
 *
 * next_call walks the assistant message's tool calls in order: propose,
 * parse the arguments, decide (policy), ask (attendant) when needed,
 * execute, bound, append the result. Any stop on the way answers the calls
 * not yet run with "interrupted by user", so the history never holds a
 * tool call without its result.
 */
#define G_LOG_DOMAIN "ow-agent"

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

static const double default_delays[] = { 2, 5, 10, 30, 60, 120, 240, 300, 300 };

/* Replies that stop at the output-token ceiling without a tool call are
 * continued; this many in a row end the turn as cut off. */
#define MAX_LENGTH_STRIKES 3

struct _OwAgent
{
  GObject         parent_instance;

  /* owned references */
  OwSession      *session;
  OwProvider     *provider;
  OwToolRegistry *tools;
  OwExecutor     *executor;
  OwPolicy       *policy;
  OwAttendant    *attendant;
  OwAuditLog     *audit;          /* may be NULL */
  JsonArray      *tool_defs;      /* schemas offered to the model */

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

enum {
  SIGNAL_MODEL_CALL,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwAgent, ow_agent, G_TYPE_OBJECT)

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
  OwTool        *cur_tool;       /* borrowed from the registry */
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

static Ahead *
ahead_ref (Ahead *ahead)
{
  ahead->refs++;
  return ahead;
}

static void
ahead_unref (Ahead *ahead)
{
  if (--ahead->refs > 0)
    return;
  g_clear_pointer (&ahead->result, ow_tool_result_free);
  g_clear_error (&ahead->error);
  g_clear_object (&ahead->waiting);
  g_free (ahead);
}

static void
run_free (Run *run)
{
  g_clear_pointer (&run->wait_source, g_source_destroy);
  g_clear_pointer (&run->cancel_source, g_source_destroy);
  g_clear_pointer (&run->calls, g_ptr_array_unref);
  g_clear_pointer (&run->cur_args, json_object_unref);
  g_clear_pointer (&run->cur_provenance, g_free);
  g_clear_pointer (&run->cur_record, g_free);
  g_clear_pointer (&run->ahead, g_hash_table_unref);
  ow_decision_clear (&run->decision);
  g_free (run->review_mode);
  g_free (run->site);
  g_clear_pointer (&run->shell_before, ow_file_snapshot_free);
  g_clear_pointer (&run->shell_changed, g_ptr_array_unref);
  g_clear_pointer (&run->compact_history, json_array_unref);
  g_free (run->overflow_error);
  for (guint i = 0; i < G_N_ELEMENTS (run->delta_streams); i++)
    g_clear_pointer (&run->delta_streams[i], ow_redact_stream_free);
  g_clear_object (&run->cancellable);
  if (run->agent != NULL && run->agent->current == run)
    {
      run->agent->running = FALSE;
      run->agent->current = NULL;
      run->agent->parking = FALSE;
    }
  g_clear_object (&run->agent);
  g_free (run);
}

const char *
ow_outcome_to_string (OwOutcome outcome)
{
  switch (outcome)
    {
    case OW_OUTCOME_COMPLETED: return "completed";
    case OW_OUTCOME_MAX_ITERATIONS: return "max_iterations";
    case OW_OUTCOME_CUT_OFF: return "cut_off";
    case OW_OUTCOME_MODEL_ERROR: return "model_error";
    case OW_OUTCOME_INTERRUPTED: return "interrupted";
    case OW_OUTCOME_STORAGE_ERROR: return "storage_error";
    case OW_OUTCOME_PARKED: return "parked";
    default: return "unknown";
    }
}

void
ow_turn_result_free (OwTurnResult *result)
{
  if (result == NULL)
    return;
  g_free (result->error);
  g_free (result->error_type);
  g_free (result);
}

/* ---- GObject ------------------------------------------------------------ */

static void
ow_agent_finalize (GObject *object)
{
  OwAgent *self = OW_AGENT (object);

  g_clear_object (&self->session);
  g_clear_object (&self->provider);
  g_clear_object (&self->tools);
  g_clear_object (&self->executor);
  g_clear_object (&self->policy);
  g_clear_object (&self->attendant);
  g_clear_pointer (&self->tool_defs, json_array_unref);
  g_free (self->bare_model);
  g_free (self->cache_key);
  g_free (self->instructions);
  g_free (self->effort);
  g_free (self->provider_order);
  g_free (self->spill_dir);
  g_array_unref (self->retry_delays);
  g_clear_object (&self->reviewer);
  g_free (self->role_title);
  g_free (self->role_prompt);
  g_free (self->guidance);
  g_clear_object (&self->sites);
  g_strfreev (self->tool_env);
  g_clear_object (&self->guard);
  g_strfreev (self->agent_dirs);
  g_ptr_array_unref (self->downloaded);
  g_free (self->shell_cwd);
  g_free (self->request);
  G_OBJECT_CLASS (ow_agent_parent_class)->finalize (object);
}

static void
ow_agent_class_init (OwAgentClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_agent_finalize;

  /**
   * OwAgent::model-call:
   * @call: (type gpointer): an OwModelCall, valid during emission
   *
   * Emitted after every model call, successful or not.
   */
  signals[SIGNAL_MODEL_CALL] =
    g_signal_new ("model-call", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
ow_agent_init (OwAgent *self)
{
  self->max_iterations = 150;
  self->temperature = -1;
  self->top_p = -1;
  self->thinking = -1;
  self->compact_threshold = OW_COMPACTION_DEFAULT_THRESHOLD;
  self->last_context = -1;
  self->result_max = 10000;
  self->retry_delays = g_array_new (FALSE, FALSE, sizeof (double));
  g_array_append_vals (self->retry_delays, default_delays, G_N_ELEMENTS (default_delays));
  self->downloaded = g_ptr_array_new_with_free_func (g_free);
  self->tool_env = ow_tool_environment (NULL);
}

OwAgent *
ow_agent_new (OwSession      *session,
              OwProvider     *provider,
              const char     *bare_model,
              OwToolRegistry *tools,
              OwExecutor     *executor,
              OwPolicy       *policy,
              OwAttendant    *attendant,
              OwAuditLog     *audit)
{
  OwAgent *self = g_object_new (OW_TYPE_AGENT, NULL);

  self->session = g_object_ref (session);
  self->provider = g_object_ref (provider);
  self->bare_model = g_strdup (bare_model);
  /* One key for the whole session, so every call of it lands on the same
   * cache shard (OpenAI routes by key plus prefix). A digest of the id:
   * the service needs a stable name, not our session's. */
  {
    g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, ow_session_get_id (session), -1);
    self->cache_key = g_strdup_printf ("ow-%.32s", digest);
  }
  self->vision = ow_provider_entry_model_has_vision (ow_provider_catalog_lookup (ow_provider_get_id (provider)),
                                                     bare_model);
  self->tools = g_object_ref (tools);
  self->executor = g_object_ref (executor);
  self->policy = g_object_ref (policy);
  self->attendant = g_object_ref (attendant);
  self->audit = audit;
  self->tool_defs = ow_tool_registry_dup_definitions (tools);
  ow_executor_set_roots (executor, ow_session_get_roots (session));
  return self;
}

OwSession *
ow_agent_get_session (OwAgent *self)
{
  return self->session;
}

void
ow_agent_set_instructions (OwAgent *self, const char *instructions)
{
  g_free (self->instructions);
  self->instructions = g_strdup (instructions);
}

void
ow_agent_set_max_iterations (OwAgent *self, guint max_iterations)
{
  self->max_iterations = MAX (max_iterations, 1);
}

void
ow_agent_set_max_output_tokens (OwAgent *self, gint64 max_output_tokens)
{
  self->max_output_tokens = MAX (max_output_tokens, 0);
}

void
ow_agent_set_reasoning_effort (OwAgent *self, const char *effort)
{
  g_free (self->effort);
  self->effort = g_strdup (effort);
}

void
ow_agent_set_provider_order (OwAgent *self, const char *order)
{
  g_free (self->provider_order);
  self->provider_order = g_strdup (order);
}

void
ow_agent_set_sampling (OwAgent *self, double temperature, double top_p, gint64 context_size, int thinking)
{
  self->temperature = temperature;
  self->top_p = top_p;
  self->context_size = context_size;
  self->thinking = thinking;
}

void
ow_agent_set_compaction (OwAgent *self, gint64 window, double threshold, gint64 cap)
{
  self->compact_window = window;
  self->compact_threshold = threshold;
  self->compact_cap = cap;
}

gint64
ow_agent_get_compaction_trigger (OwAgent *self)
{
  return ow_compaction_trigger (self->compact_window, self->compact_threshold, self->compact_cap);
}

gboolean
ow_agent_set_tool_result_limit (OwAgent *self, gsize max_bytes, const char *spill_dir, GError **error)
{
  self->result_max = max_bytes;
  g_free (self->spill_dir);
  self->spill_dir = g_strdup (spill_dir);
  if (max_bytes == 0 || spill_dir == NULL)
    return TRUE;
  /* The spilled files must be readable by read_file, so the folder joins
   * the session read-only. */
  if (!ow_paths_ensure_dir (spill_dir, error)
      || !ow_session_add_root (self->session, spill_dir, FALSE, "tool-output", error))
    return FALSE;
  ow_executor_set_roots (self->executor, ow_session_get_roots (self->session));
  return TRUE;
}

void
ow_agent_set_retry_delays (OwAgent *self, const double *delays, guint n_delays)
{
  g_array_set_size (self->retry_delays, 0);
  g_array_append_vals (self->retry_delays, delays, n_delays);
}

void
ow_agent_load_retry_delays (OwAgent *self)
{
  /* Harnesses and tests may shorten the waits; the schedule's length is the
   * number of retries. Every surface reads it here, so the variable the
   * README documents means the same thing in the CLI, the server and the
   * desktop. */
  const char *env = g_getenv ("OPENWORKER_RETRY_DELAYS");
  g_auto(GStrv) parts = NULL;
  g_autoptr(GArray) delays = NULL;

  g_return_if_fail (OW_IS_AGENT (self));

  if (env == NULL || *env == '\0')
    return;
  parts = g_strsplit (env, ",", -1);
  delays = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; parts[i] != NULL; i++)
    {
      double d = g_ascii_strtod (parts[i], NULL);
      g_array_append_val (delays, d);
    }
  ow_agent_set_retry_delays (self, (const double *) delays->data, delays->len);
}

void
ow_agent_set_reviewer (OwAgent *self, OwReviewer *reviewer, const char *role_title, const char *role_prompt,
                       const char *guidance)
{
  g_set_object (&self->reviewer, reviewer);
  g_free (self->role_title);
  self->role_title = g_strdup (role_title);
  g_free (self->role_prompt);
  self->role_prompt = g_strdup (role_prompt);
  g_free (self->guidance);
  self->guidance = g_strdup (guidance);
}

OwReviewer *
ow_agent_get_reviewer (OwAgent *self)
{
  return self->reviewer;
}

void
ow_agent_set_agent_dirs (OwAgent *self, const char *const *dirs)
{
  g_strfreev (self->agent_dirs);
  self->agent_dirs = g_strdupv ((char **) dirs);
}

void
ow_agent_set_sites (OwAgent *self, OwSiteList *sites, OwAddressGuard *guard)
{
  g_return_if_fail (OW_IS_AGENT (self));
  g_set_object (&self->sites, sites);
  g_set_object (&self->guard, guard);
}

const double *
ow_agent_default_retry_delays (guint *n_delays)
{
  *n_delays = G_N_ELEMENTS (default_delays);
  return default_delays;
}

/* ---- Helpers ------------------------------------------------------------ */

static void iterate (GTask *task);
static void call_model (GTask *task);
static void next_call (GTask *task);
static void start_compaction (GTask *task, gboolean forced);
static void request_summary (GTask *task);

static Run *
run_of (GTask *task)
{
  return g_task_get_task_data (task);
}

static void
emit (Run *run, const char *type, JsonObject *data)
{
  /* An event that cannot be saved is still delivered; the messages that
   * matter are saved separately and fail the turn when they cannot be. */
  g_autoptr(GError) error = NULL;

  if (!ow_session_emit (run->agent->session, type, data, &error))
    g_message ("Could not save the %s event: %s", type, error->message);
}

static void
finish (GTask *task, OwOutcome outcome, const char *error, const char *error_type)
{
  Run *run = run_of (task);
  OwTurnResult *result = g_new0 (OwTurnResult, 1);

  result->outcome = outcome;
  result->iterations = run->iterations;
  result->error = g_strdup (error);
  result->error_type = g_strdup (error_type);
  g_task_return_pointer (task, result, (GDestroyNotify) ow_turn_result_free);
}

static gboolean
append (GTask *task, JsonObject *msg)
{
  Run *run = run_of (task);
  g_autoptr(GError) error = NULL;

  if (ow_session_append_message (run->agent->session, msg, &error))
    return TRUE;
  {
    JsonObject *data = json_object_new ();
    json_object_set_string_member (data, "error", error->message);
    json_object_set_string_member (data, "error_type", "StorageError");
    emit (run, "error", data);
  }
  finish (task, OW_OUTCOME_STORAGE_ERROR, error->message, "StorageError");
  return FALSE;
}

static void
audit (Run *run, OwToolCall *call, const char *stage, const char *status, const char *approval,
       const char *provenance, const char *reason, const char *preview)
{
  OwAgent *agent = run->agent;
  g_autoptr(GError) error = NULL;
  OwAuditEntry e = {
    .session_id = ow_session_get_id (agent->session),
    .agent = ow_session_get_coworker (agent->session),
    .workspace = ow_session_get_workspace (agent->session),
    .tool = call->name,
    .call_id = call->id,
    .stage = stage,
    .status = status,
    .approval = approval,
    .provenance = provenance,
    .args = run->cur_args,
    .result_preview = preview,
    .reason = reason,
    .enforcement = ow_executor_get_enforcement (agent->executor),
    .risk = run->cur_tool != NULL ? ow_risk_to_string (ow_tool_get_risk (run->cur_tool)) : NULL,
    .decision = run->cur_tool != NULL && run->decision.reason != NULL ? ow_verdict_to_string (run->decision.verdict) : NULL,
  };

  if (agent->audit != NULL && !ow_audit_log_append (agent->audit, &e, &error))
    g_message ("Could not write the audit row: %s", error->message);
}

/* A one-line preview of a result for events and the audit trail. */
static char *
preview_of (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_autofree char *flat = g_strdelimit (g_strdup (valid), "\n\r\t", ' ');

  if (g_utf8_strlen (flat, -1) <= 300)
    return g_steal_pointer (&flat);
  {
    g_autofree char *head = g_utf8_substring (flat, 0, 300);
    return g_strconcat (head, "…", NULL);
  }
}

/* What a person is shown of a command's result, on tool_finished, read
 * from run_shell's record whatever else it carries (the model got the
 * lean text):
 *   exit_code            the code, or null when the command had none
 *   output               the end of the output, at most DISPLAY_OUTPUT_MAX
 *                        characters: the desktop's and the browser's
 *                        terminal block
 *   output_tail          its last SHELL_TAIL_LINES lines, each cut at
 *                        SHELL_TAIL_LINE_CHARS: the CLI's lines under the step
 *   output_lines_hidden  how many lines came before the tail
 * The output is redacted once here, for every surface. Nothing is added
 * when the result is not that object. */
#define DISPLAY_OUTPUT_MAX 4000
#define SHELL_TAIL_LINES 6
#define SHELL_TAIL_LINE_CHARS 160

static void
add_command_display (JsonObject *data, const char *result_text)
{
  g_autoptr(JsonObject) result = ow_json_object_from_string (result_text, -1, NULL);
  JsonNode *code;
  const char *output;
  g_autofree char *safe = NULL;
  g_autofree char *valid = NULL;
  const char *shown;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) tail = NULL;
  guint n, first;

  if (result == NULL || (code = json_object_get_member (result, "exit_code")) == NULL)
    return;
  if (JSON_NODE_HOLDS_VALUE (code) && json_node_get_value_type (code) == G_TYPE_INT64)
    json_object_set_int_member (data, "exit_code", json_node_get_int (code));
  else
    json_object_set_null_member (data, "exit_code");
  output = ow_json_get_string (result, "output");
  if (output == NULL)
    return;

  safe = ow_redact (output);
  valid = g_utf8_make_valid (safe, -1);
  shown = valid;
  if (g_utf8_strlen (shown, -1) > DISPLAY_OUTPUT_MAX)
    shown = g_utf8_offset_to_pointer (shown, g_utf8_strlen (shown, -1) - DISPLAY_OUTPUT_MAX);
  json_object_set_string_member (data, "output", shown);
  if (*valid == '\0')
    return;

  lines = g_strsplit (g_strchomp (valid), "\n", -1);
  n = g_strv_length (lines);
  first = n > SHELL_TAIL_LINES ? n - SHELL_TAIL_LINES : 0;
  tail = g_string_new (NULL);
  for (guint i = first; i < n; i++)
    {
      g_strdelimit (lines[i], "\r\t", ' ');
      if (tail->len > 0)
        g_string_append_c (tail, '\n');
      if (g_utf8_strlen (lines[i], -1) > SHELL_TAIL_LINE_CHARS)
        {
          g_autofree char *head = g_utf8_substring (lines[i], 0, SHELL_TAIL_LINE_CHARS);
          g_string_append_printf (tail, "%s…", head);
        }
      else
        g_string_append (tail, lines[i]);
    }
  json_object_set_string_member (data, "output_tail", tail->str);
  json_object_set_int_member (data, "output_lines_hidden", first);
}

static const char *
error_type_of (const GError *error)
{
  if (error->domain == OW_PROVIDER_ERROR)
    switch ((OwProviderError) error->code)
      {
      case OW_PROVIDER_ERROR_AUTH: return "AuthenticationError";
      case OW_PROVIDER_ERROR_MODEL_NOT_FOUND: return "ModelNotFoundError";
      case OW_PROVIDER_ERROR_CONTEXT_OVERFLOW: return "ContextOverflowError";
      case OW_PROVIDER_ERROR_QUOTA: return "QuotaExceededError";
      case OW_PROVIDER_ERROR_BAD_REQUEST: return "BadRequestError";
      case OW_PROVIDER_ERROR_REFUSED: return "RefusalError";
      case OW_PROVIDER_ERROR_RATE_LIMITED: return "RateLimitError";
      case OW_PROVIDER_ERROR_OVERLOADED: return "OverloadedError";
      case OW_PROVIDER_ERROR_SERVER: return "ServerError";
      case OW_PROVIDER_ERROR_CONNECTION: return "APIConnectionError";
      case OW_PROVIDER_ERROR_CUT_OFF: return "CutOffReplyError";
      case OW_PROVIDER_ERROR_EMPTY_REPLY: return "EmptyReplyError";
      case OW_PROVIDER_ERROR_PROTOCOL: return "ProtocolError";
      case OW_PROVIDER_ERROR_NO_KEY: return "MissingKeyError";
      case OW_PROVIDER_ERROR_UNKNOWN_PROVIDER: return "UnknownProviderError";
      case OW_PROVIDER_ERROR_REGION: return "UnsupportedRegionError";
      case OW_PROVIDER_ERROR_FAILED:
      default: return "ProviderError";
      }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return "Cancelled";
  return "Error";
}

/* ---- Ending the turn ---------------------------------------------------- */

/* Sets an assistant message's text without any value the engine holds: the
 * message is saved in the session's database and sent back to the model,
 * and a model that repeats a key it came across must not make either
 * keep it. (Reasoning is kept as it came: a provider's signature covers
 * it. Events are redacted where they are emitted, ow_session_emit().) */
static void
set_content (JsonObject *msg, const char *text)
{
  g_autofree char *safe = ow_redact_registered (text);

  json_object_set_string_member (msg, "content", safe);
}

/* Persists what streamed before a failure, so nothing the person saw is
 * lost: an assistant message with the partial text and no tool calls. */
static gboolean
persist_partial (GTask *task, OwTurn *partial)
{
  JsonObject *msg;

  if (partial == NULL || (partial->text->len == 0 && partial->reasoning->len == 0))
    return TRUE;
  msg = json_object_new ();
  json_object_set_string_member (msg, "role", "assistant");
  set_content (msg, partial->text->str);
  if (partial->reasoning->len > 0)
    json_object_set_string_member (msg, "reasoning", partial->reasoning->str);
  json_object_set_double_member (msg, "ts", (double) g_get_real_time () / G_USEC_PER_SEC);
  json_object_set_boolean_member (msg, "partial", TRUE);
  {
    gboolean ok = append (task, msg);
    json_object_unref (msg);
    return ok;
  }
}

static void
finish_interrupted (GTask *task)
{
  Run *run = run_of (task);
  JsonObject *notice = ow_message_json_notice ("interrupted", "Stopped by the person.");
  JsonObject *data;

  if (!append (task, notice))
    {
      json_object_unref (notice);
      return;
    }
  json_object_unref (notice);
  data = json_object_new ();
  json_object_set_int_member (data, "iterations", run->iterations);
  emit (run, "interrupted", data);
  finish (task, OW_OUTCOME_INTERRUPTED, NULL, NULL);
}

static void
finish_error (GTask *task, OwOutcome outcome, const char *message, const char *error_type, const char *raw)
{
  Run *run = run_of (task);
  JsonObject *notice = ow_message_json_notice ("error", message);
  JsonObject *data;

  if (!append (task, notice))
    {
      json_object_unref (notice);
      return;
    }
  json_object_unref (notice);
  data = json_object_new ();
  json_object_set_string_member (data, "error", message);
  json_object_set_string_member (data, "error_type", error_type);
  if (raw != NULL)
    json_object_set_string_member (data, "raw", raw);
  emit (run, "error", data);
  finish (task, outcome, message, error_type);
}

static void
finish_turn_end (GTask *task, OwOutcome outcome, const char *status)
{
  Run *run = run_of (task);
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "status", status);
  json_object_set_int_member (data, "iterations", run->iterations);
  emit (run, "turn_end", data);
  finish (task, outcome, NULL, NULL);
}

/* ---- Model calls -------------------------------------------------------- */

static const char *
delta_event (OwDeltaKind kind)
{
  return kind == OW_DELTA_REASONING ? "reasoning_delta" : "assistant_delta";
}

static void
emit_delta (Run *run, OwDeltaKind kind, const char *text)
{
  JsonObject *data;

  if (*text == '\0')
    return;
  data = json_object_new ();
  json_object_set_string_member (data, "text", text);
  emit (run, delta_event (kind), data);
}

static void
on_delta_cb (OwDeltaKind kind, const char *text, gsize len, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);
  guint i = kind == OW_DELTA_REASONING ? 1 : 0;
  g_autofree char *ready = NULL;

  if (run->delta_streams[i] == NULL)
    run->delta_streams[i] = ow_redact_stream_new ();
  ready = ow_redact_stream_feed (run->delta_streams[i], text, len);
  emit_delta (run, kind, ready);
}

/* The text each stream held back, as a last delta before whatever follows
 * the reply (its message, an error, a retry). */
static void
flush_deltas (Run *run)
{
  for (guint i = 0; i < G_N_ELEMENTS (run->delta_streams); i++)
    if (run->delta_streams[i] != NULL)
      {
        g_autofree char *rest = ow_redact_stream_flush (run->delta_streams[i]);

        emit_delta (run, i == 1 ? OW_DELTA_REASONING : OW_DELTA_TEXT, rest);
      }
}

static void
report_call (Run *run, const char *status, OwTurn *turn, OwCallInfo *info, const GError *error,
             double retry_in, gint64 message_index)
{
  OwAgent *agent = run->agent;
  OwModelCall call = {
    .iteration = run->iterations + (turn != NULL ? 0 : 1),
    .attempt = run->attempt,
    .status = status,
    .finish_reason = turn != NULL ? turn->finish_reason : NULL,
    .has_usage = turn != NULL && turn->has_usage,
    .ceiling = agent->max_output_tokens,
    .effort = agent->effort,
    .model = ow_session_get_model (agent->session),
    .served_model = turn != NULL ? turn->served_model : NULL,
    .info = info,
    .error = error != NULL ? error->message : NULL,
    .error_type = error != NULL ? error_type_of (error) : NULL,
    .retry_in = retry_in,
    .message_index = message_index,
    .started_ms = run->call_started_ms,
  };

  if (turn != NULL && turn->has_usage)
    {
      call.usage = turn->usage;
      call.has_cost = ow_prices_estimate (agent->bare_model, &turn->usage, &call.cost_usd);
    }
  g_signal_emit (agent, signals[SIGNAL_MODEL_CALL], 0, &call);
}

static JsonObject *
usage_json (OwAgent *agent, const OwUsage *u)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "model", ow_session_get_model (agent->session));
  json_object_set_int_member (o, "input", u->input);
  json_object_set_int_member (o, "output", u->output);
  json_object_set_int_member (o, "cache_read", u->cache_read);
  json_object_set_int_member (o, "cache_write", u->cache_write);
  if (u->reasoning > 0)
    json_object_set_int_member (o, "reasoning", u->reasoning);
  return o;
}

static gboolean
on_retry_cancelled_cb (GCancellable *cancellable, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);

  g_clear_pointer (&run->wait_source, g_source_destroy);
  g_clear_pointer (&run->cancel_source, g_source_destroy);
  finish_interrupted (task);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

static gboolean
on_retry_timeout_cb (gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);

  g_clear_pointer (&run->wait_source, g_source_destroy);
  g_clear_pointer (&run->cancel_source, g_source_destroy);
  run->attempt++;
  call_model (task);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Waits @delay seconds (or until cancelled) and calls the model again.
 * Owns one reference to @task. */
static void
wait_then_retry (GTask *task, double delay)
{
  Run *run = run_of (task);

  run->wait_source = g_timeout_source_new ((guint) (delay * 1000));
  g_source_set_callback (run->wait_source, on_retry_timeout_cb, task, NULL);
  g_source_attach (run->wait_source, NULL);
  g_source_unref (run->wait_source);

  run->cancel_source = g_cancellable_source_new (run->cancellable);
  g_source_set_callback (run->cancel_source, G_SOURCE_FUNC (on_retry_cancelled_cb), task, NULL);
  g_source_attach (run->cancel_source, NULL);
  g_source_unref (run->cancel_source);
}

static gboolean
append_nudge (GTask *task, const char *text)
{
  JsonObject *msg = ow_message_json_user (text);
  gboolean ok;

  json_object_set_boolean_member (msg, "_nudge", TRUE);
  ok = append (task, msg);
  json_object_unref (msg);
  return ok;
}

static void
on_model_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwCallInfo) info = NULL;
  g_autoptr(OwTurn) partial = NULL;
  g_autoptr(OwTurn) turn = NULL;
  JsonObject *msg, *data;
  JsonArray *names;
  gint64 msg_index;

  turn = ow_provider_complete_finish (OW_PROVIDER (source), result, &info, &partial, &error);
  flush_deltas (run);

  if (turn == NULL)
    {
      guint n_delays = agent->retry_delays->len;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || g_cancellable_is_cancelled (run->cancellable))
        {
          report_call (run, "cancelled", NULL, info, error, -1, -1);
          if (persist_partial (task, partial))
            finish_interrupted (task);
          g_object_unref (task);
          return;
        }
      /* A context that overflowed is compacted harder and the call made
       * again, as long as each compaction moves the boundary. */
      if (g_error_matches (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_CONTEXT_OVERFLOW) && run->overflows < 4)
        {
          report_call (run, "error", NULL, info, error, -1, -1);
          run->overflows++;
          g_free (run->overflow_error);
          run->overflow_error = g_strdup (error->message);
          start_compaction (task, TRUE);
          g_object_unref (task);
          return;
        }
      if (ow_provider_error_is_transient (error) && run->attempt < n_delays)
        {
          double delay = g_array_index (agent->retry_delays, double, run->attempt);
          g_autofree char *cause = NULL;

          if (info != NULL && info->retry_after_ms >= 0 && info->retry_after_ms / 1000.0 > delay
              && error->code == OW_PROVIDER_ERROR_RATE_LIMITED)
            delay = info->retry_after_ms / 1000.0;
          report_call (run, "error", NULL, info, error, delay, -1);

          data = json_object_new ();
          json_object_set_int_member (data, "attempt", run->attempt + 1);
          json_object_set_int_member (data, "max_attempts", n_delays);
          json_object_set_double_member (data, "delay_seconds", delay);
          json_object_set_string_member (data, "error", error->message);
          json_object_set_string_member (data, "error_type", error_type_of (error));
          cause = ow_redact (info != NULL && info->cause != NULL ? info->cause : error->message);
          json_object_set_string_member (data, "cause", cause);
          emit (run, "provider_retry", data);

          /* The model should know when its reply was lost half-way or came
           * back empty; a connection that never produced anything needs no
           * explanation. */
          if (partial != NULL && (partial->text->len > 0 || partial->reasoning->len > 0))
            {
              if (!persist_partial (task, partial)
                  || !append_nudge (task, "(Your previous reply was cut off by a connection problem before it "
                                          "finished. Continue from where it stopped.)"))
                {
                  g_object_unref (task);
                  return;
                }
            }
          else if (error->code == OW_PROVIDER_ERROR_EMPTY_REPLY
                   && !append_nudge (task, "(Your previous reply was empty. Continue with the task: call a "
                                           "tool or give your final answer.)"))
            {
              g_object_unref (task);
              return;
            }
          wait_then_retry (task, delay);
          return;
        }

      report_call (run, "error", NULL, info, error, -1, -1);
      if (persist_partial (task, partial))
        {
          g_autofree char *raw = info != NULL && info->cause != NULL ? ow_redact (info->cause) : NULL;
          g_autofree char *message = NULL;
          if (ow_provider_error_is_transient (error))
            message = g_strdup_printf ("%s (gave up after %u retries)", error->message, n_delays);
          else
            message = g_strdup (error->message);
          finish_error (task, OW_OUTCOME_MODEL_ERROR, message, error_type_of (error), raw);
        }
      g_object_unref (task);
      return;
    }

  /* A reply. */
  run->iterations++;
  run->attempt = 0;
  run->overflows = 0;
  if (turn->has_usage)
    agent->last_context = turn->usage.input + turn->usage.cache_read + turn->usage.cache_write;

  msg = json_object_new ();
  json_object_set_string_member (msg, "role", "assistant");
  set_content (msg, turn->text->str);
  json_object_set_double_member (msg, "ts", (double) g_get_real_time () / G_USEC_PER_SEC);
  names = json_array_new ();
  if (turn->tool_calls->len > 0)
    {
      JsonArray *calls = json_array_new ();
      for (guint i = 0; i < turn->tool_calls->len; i++)
        {
          OwToolCall *c = g_ptr_array_index (turn->tool_calls, i);
          JsonObject *tc = json_object_new ();
          JsonObject *fn = json_object_new ();
          g_autoptr(JsonObject) parsed = ow_tool_args_parse (c->arguments, -1, NULL);
          g_autofree char *args = parsed != NULL ? g_strdup (c->arguments) : ow_tool_args_history_raw (c->arguments);

          /* A call without a name (a mangled reply) is answered as an
           * unknown tool, but history must stay sendable: every wire
           * refuses a tool_use / function_call with an empty name, which
           * would break the session at its next request. */
          if (c->name == NULL || c->name[0] == '\0')
            {
              g_free (c->name);
              c->name = g_strdup ("unnamed_tool");
            }

          json_object_set_string_member (fn, "name", c->name);
          json_object_set_string_member (fn, "arguments", args);
          json_object_set_string_member (tc, "id", c->id);
          json_object_set_string_member (tc, "type", "function");
          json_object_set_object_member (tc, "function", fn);
          json_array_add_object_element (calls, tc);
          json_array_add_string_element (names, c->name);
        }
      json_object_set_array_member (msg, "tool_calls", calls);
    }
  if (turn->reasoning->len > 0)
    json_object_set_string_member (msg, "reasoning", turn->reasoning->str);
  if (turn->has_usage)
    json_object_set_object_member (msg, "usage", usage_json (agent, &turn->usage));
  if (turn->sidecar_key != NULL && turn->sidecar != NULL)
    json_object_set_member (msg, turn->sidecar_key, json_node_copy (turn->sidecar));
  if (turn->finish_reason != NULL)
    json_object_set_string_member (msg, "finish_reason", turn->finish_reason);

  msg_index = g_list_model_get_n_items (G_LIST_MODEL (agent->session));
  if (!append (task, msg))
    {
      json_object_unref (msg);
      json_array_unref (names);
      g_object_unref (task);
      return;
    }
  report_call (run, "ok", turn, info, NULL, -1, msg_index);

  data = json_object_new ();
  json_object_set_string_member (data, "text", turn->text->str);
  json_object_set_array_member (data, "tool_calls", names);
  if (turn->reasoning->len > 0)
    json_object_set_string_member (data, "reasoning", turn->reasoning->str);
  if (turn->has_usage)
    json_object_set_object_member (data, "usage", usage_json (agent, &turn->usage));
  emit (run, "assistant_message", data);
  json_object_unref (msg);

  run->reply_cut = g_strcmp0 (turn->finish_reason, "length") == 0;
  if (turn->tool_calls->len == 0)
    {
      if (run->reply_cut)
        {
          run->length_strikes++;
          if (run->length_strikes >= MAX_LENGTH_STRIKES)
            finish_turn_end (task, OW_OUTCOME_CUT_OFF, "cut_off");
          else if (append_nudge (task, "(Your reply stopped at the output-token limit. Continue exactly where "
                                       "it stopped; keep the rest shorter, or put long content into files "
                                       "with tools.)"))
            iterate (task);
          else
            return;
          g_object_unref (task);
          return;
        }
      finish_turn_end (task, OW_OUTCOME_COMPLETED, "completed");
      g_object_unref (task);
      return;
    }

  run->length_strikes = 0;
  g_hash_table_remove_all (run->ahead);
  g_clear_pointer (&run->calls, g_ptr_array_unref);
  run->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_tool_call_free);
  for (guint i = 0; i < turn->tool_calls->len; i++)
    {
      OwToolCall *c = g_ptr_array_index (turn->tool_calls, i);
      g_ptr_array_add (run->calls, ow_tool_call_new (c->id, c->name, c->arguments));
    }
  run->call_index = 0;
  next_call (task);
  g_object_unref (task);
}

static void
call_model (GTask *task)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  g_autoptr(JsonArray) history = ow_session_dup_history (agent->session);
  g_autoptr(JsonArray) compacted = ow_compaction_outbound (history, ow_session_get_compaction (agent->session));
  g_autoptr(JsonArray) outbound = ow_outbound_for_model (compacted, agent->vision);
  OwModelRequest req;

  ow_model_request_init (&req);
  req.model = agent->bare_model;
  req.messages = outbound;
  req.tools = json_array_get_length (agent->tool_defs) > 0 ? agent->tool_defs : NULL;
  req.stream = TRUE;
  req.max_output_tokens = agent->max_output_tokens;
  req.reasoning_effort = agent->effort;
  req.thinking = agent->thinking;
  req.temperature = agent->temperature;
  req.top_p = agent->top_p;
  req.context_size = agent->context_size;
  req.provider_order = agent->provider_order;
  req.cache_key = agent->cache_key;

  run->call_started_ms = g_get_real_time () / 1000;
  ow_provider_complete_async (agent->provider, &req, on_delta_cb, task, run->cancellable,
                              on_model_done_cb, g_object_ref (task));
}

/* ---- Compaction ----------------------------------------------------------- */

/* The size of what the next call would send: the last reply's prompt total
 * when known (it is the provider's own count), else an estimate. */
static gint64
context_signal (OwAgent *agent)
{
  g_autoptr(JsonArray) history = NULL;
  g_autoptr(JsonArray) outbound = NULL;

  if (agent->last_context >= 0)
    return agent->last_context;
  history = ow_session_dup_history (agent->session);
  outbound = ow_compaction_outbound (history, ow_session_get_compaction (agent->session));
  return ow_compaction_estimate_tokens (outbound);
}

static gboolean
compaction_due (OwAgent *agent)
{
  return context_signal (agent) >= ow_agent_get_compaction_trigger (agent);
}

/* Saves @state, adds the notice to the transcript and says so. The notice
 * keeps what was sent in place of the older turns, and the summarizer's
 * token counts (@usage, or NULL), for the record. */
static gboolean
record_compaction (GTask *task, OwCompactionState *state, const char *text, const OwUsage *usage)
{
  Run *run = run_of (task);
  g_autoptr(GError) error = NULL;
  JsonObject *notice, *data;
  gboolean ok;

  if (!ow_session_set_compaction (run->agent->session, state, &error))
    {
      JsonObject *failed = json_object_new ();

      json_object_set_string_member (failed, "error", error->message);
      json_object_set_string_member (failed, "error_type", "StorageError");
      emit (run, "error", failed);
      finish (task, OW_OUTCOME_STORAGE_ERROR, error->message, "StorageError");
      return FALSE;
    }
  notice = ow_message_json_notice ("compacted", text);
  json_object_set_int_member (notice, "boundary", state->boundary);
  json_object_set_boolean_member (notice, "trimmed", state->trimmed);
  {
    g_autofree char *block = ow_compaction_block (state);
    json_object_set_string_member (notice, "context", block);
  }
  if (usage != NULL)
    json_object_set_object_member (notice, "usage", usage_json (run->agent, usage));
  ok = append (task, notice);
  json_object_unref (notice);
  if (!ok)
    return FALSE;
  data = json_object_new ();
  json_object_set_string_member (data, "text", text);
  json_object_set_int_member (data, "boundary", state->boundary);
  json_object_set_boolean_member (data, "trimmed", state->trimmed);
  emit (run, "compacted", data);
  run->agent->last_context = -1;
  return TRUE;
}

/* No summary to be had: drop the oldest turns instead, or — when even that
 * cannot move and the model refused the context — end with its error. */
static void
compact_by_trimming (GTask *task)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  const OwCompactionState *prior = ow_session_get_compaction (agent->session);
  g_autoptr(OwCompactionState) state = prior != NULL ? ow_compaction_state_copy (prior) : ow_compaction_state_new ();
  g_autoptr(JsonArray) history = ow_session_dup_history (agent->session);

  if (ow_compaction_trim (state, history))
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

      g_free (state->created_at);
      state->created_at = g_date_time_format_iso8601 (now);
      if (!record_compaction (task, state, "Context trimmed — oldest turns dropped (summary unavailable)", NULL))
        return;
      call_model (task);
      return;
    }
  if (run->compact_forced)
    {
      finish_error (task, OW_OUTCOME_MODEL_ERROR, run->overflow_error, "ContextOverflowError", NULL);
      return;
    }
  call_model (task);
}

static void
on_summary_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwCallInfo) info = NULL;
  g_autoptr(OwTurn) turn = ow_provider_complete_finish (OW_PROVIDER (source), result, &info, NULL, &error);
  g_autoptr(JsonArray) history = g_steal_pointer (&run->compact_history);

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      report_call (run, "cancelled", NULL, info, error, -1, -1);
      finish_interrupted (task);
      g_object_unref (task);
      return;
    }
  if (turn != NULL)
    g_strstrip (turn->text->str);
  /* A summary is recorded with the notice that follows it. */
  report_call (run, turn != NULL ? "ok" : "error", turn, info, error, -1,
               turn != NULL && *turn->text->str != '\0'
               ? (gint64) g_list_model_get_n_items (G_LIST_MODEL (agent->session)) : -1);
  if (turn != NULL && *turn->text->str != '\0')
    {
      const OwCompactionState *prior = ow_session_get_compaction (agent->session);
      g_autoptr(OwCompactionState) state = prior != NULL ? ow_compaction_state_copy (prior)
                                                         : ow_compaction_state_new ();
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      guint from = ow_compaction_span_start (history, prior);

      ow_compaction_add_user_messages (state, history, from, run->compact_boundary);
      state->boundary = run->compact_boundary;
      g_free (state->summary);
      state->summary = g_strdup (turn->text->str);
      g_free (state->working_state);
      state->working_state = ow_compaction_working_state (history, ow_compaction_span_start (history, NULL),
                                                          state->boundary);
      g_free (state->created_at);
      state->created_at = g_date_time_format_iso8601 (now);
      g_free (state->model_used);
      state->model_used = g_strdup (ow_session_get_model (agent->session));
      state->trimmed = FALSE;
      if (record_compaction (task, state, "Context compacted — earlier turns were summarized",
                             turn->has_usage ? &turn->usage : NULL))
        call_model (task);
      g_object_unref (task);
      return;
    }
  /* One more try, then trimming. */
  if (++run->compact_failures < 2)
    request_summary (task);
  else
    compact_by_trimming (task);
  g_object_unref (task);
}

/* Asks the model for a summary of the turns before the boundary this
 * compaction needs (run->compact_forced: the model refused the context). */
static void
request_summary (GTask *task)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  const OwCompactionState *prior = ow_session_get_compaction (agent->session);
  g_autoptr(JsonArray) history = ow_session_dup_history (agent->session);
  g_autoptr(JsonArray) outbound = ow_compaction_outbound (history, prior);
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autofree char *span = NULL;
  gint64 keep = ow_agent_get_compaction_trigger (agent) / 4;
  JsonObject *msg;
  OwModelRequest req;
  guint boundary;

  /* The model refused what was sent: keep a quarter of that at most. */
  if (run->compact_forced)
    keep = MIN (keep, ow_compaction_estimate_tokens (outbound) / 4);
  boundary = ow_compaction_pick_boundary (history, prior != NULL ? prior->boundary : 0, keep);
  if (boundary == 0)
    {
      compact_by_trimming (task);
      return;
    }
  if (run->compact_failures == 0)
    emit (run, "compacting", json_object_new ());

  span = ow_compaction_render_span (history, ow_compaction_span_start (history, prior), boundary,
                                    prior != NULL ? prior->summary : NULL);
  msg = json_object_new ();
  json_object_set_string_member (msg, "role", "system");
  json_object_set_string_member (msg, "content", ow_compaction_summary_prompt);
  json_array_add_object_element (messages, msg);
  json_array_add_object_element (messages, ow_message_json_user (span));

  g_clear_pointer (&run->compact_history, json_array_unref);
  run->compact_history = g_steal_pointer (&history);
  run->compact_boundary = boundary;

  ow_model_request_init (&req);
  req.model = agent->bare_model;
  req.messages = messages;
  req.stream = FALSE;
  req.max_output_tokens = OW_COMPACTION_SUMMARY_MAX_TOKENS;
  req.temperature = agent->temperature;
  req.top_p = agent->top_p;
  req.context_size = agent->context_size;
  req.provider_order = agent->provider_order;
  run->call_started_ms = g_get_real_time () / 1000;
  ow_provider_complete_async (agent->provider, &req, NULL, NULL, run->cancellable, on_summary_cb,
                              g_object_ref (task));
}

static void
start_compaction (GTask *task, gboolean forced)
{
  Run *run = run_of (task);

  run->compact_forced = forced;
  run->compact_failures = 0;
  request_summary (task);
}

static void
iterate (GTask *task)
{
  Run *run = run_of (task);

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      finish_interrupted (task);
      return;
    }
  if (run->iterations >= run->agent->max_iterations)
    {
      finish_turn_end (task, OW_OUTCOME_MAX_ITERATIONS, "max_iterations_exceeded");
      return;
    }
  if (compaction_due (run->agent))
    start_compaction (task, FALSE);
  else
    call_model (task);
}

/* ---- Tool calls --------------------------------------------------------- */

static OwToolCall *
current_call (Run *run)
{
  return g_ptr_array_index (run->calls, run->call_index);
}

/* After an ask came back: when the turn was stopped by ow_agent_park, it
 * ends here with the ask still waiting and the call without a result, so
 * the next turn takes it up with the person's answer. TRUE when it ended. */
static gboolean
finish_if_parked (GTask *task)
{
  Run *run = run_of (task);
  OwToolCall *call = current_call (run);
  JsonObject *data;

  if (!run->agent->parking || !g_cancellable_is_cancelled (run->cancellable))
    return FALSE;
  data = json_object_new ();
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "name", call->name);
  json_object_set_int_member (data, "iterations", run->iterations);
  emit (run, "turn_parked", data);
  finish (task, OW_OUTCOME_PARKED, NULL, NULL);
  return TRUE;
}

/* Appends the tool message, emits tool_finished, audits, and moves on. */
static void
complete_call (GTask *task, OwToolStatus status, const char *result_text, const char *reason)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = current_call (run);
  g_autofree char *bounded = NULL;
  g_autofree char *spilled = NULL;
  g_autofree char *preview = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *msg, *data;

  /* A key OpenWorker holds (a saved model key, a connector token) never
   * reaches the model, the session's messages or a spill file, even when a
   * tool prints it. Only registered values go: a person's file that merely
   * looks like a token must reach the model intact. */
  g_autofree char *safe_text = ow_redact_registered (result_text);
  result_text = safe_text;
  bounded = ow_tool_result_bound (result_text, agent->result_max, agent->spill_dir, call->id, &spilled, &error);
  if (bounded == NULL)
    {
      /* Could not spill (disk full?): send the head anyway and say so. */
      bounded = g_strdup_printf ("%.*s\n[… result truncated at %" G_GSIZE_FORMAT " bytes; the full text could "
                                 "not be saved: %s]", (int) agent->result_max, result_text, agent->result_max,
                                 error->message);
    }
  msg = ow_message_json_tool (call->id, bounded);
  if (!append (task, msg))
    {
      json_object_unref (msg);
      return;
    }
  json_object_unref (msg);
  /* Its result is in the history now: an ask about it is settled, and a
   * resumed turn will not look for it again. */
  ow_attendant_end_run (agent->attendant, ow_session_get_id (agent->session), call->id);

  /* The event log keeps the full record; the model got the lean text. */
  preview = preview_of (run->cur_record != NULL ? run->cur_record : result_text);
  data = json_object_new ();
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "status", ow_tool_status_to_string (status));
  json_object_set_string_member (data, "result_preview", preview);
  if (run->cur_record != NULL)
    {
      g_autofree char *safe_record = ow_redact_registered (run->cur_record);
      JsonObject *record = ow_json_object_from_string (safe_record, -1, NULL);

      if (record != NULL)
        json_object_set_object_member (data, "result", record);
    }
  if (reason != NULL)
    json_object_set_string_member (data, "reason", reason);
  if (run->cur_provenance != NULL)
    json_object_set_string_member (data, "provenance", run->cur_provenance);
  json_object_set_string_member (data, "enforcement", ow_executor_get_enforcement (agent->executor));
  if (spilled != NULL)
    json_object_set_string_member (data, "spilled_to", spilled);
  /* The terminal block and the CLI's lines: one display for every surface. */
  if (g_str_equal (call->name, "run_shell"))
    add_command_display (data, run->cur_record != NULL ? run->cur_record : result_text);
  if (run->shell_changed != NULL && run->shell_changed->len > 0)
    {
      JsonArray *files = json_array_new ();
      for (guint i = 0; i < run->shell_changed->len; i++)
        json_array_add_string_element (files, g_ptr_array_index (run->shell_changed, i));
      json_object_set_array_member (data, "files_changed", files);
    }
  g_clear_pointer (&run->shell_before, ow_file_snapshot_free);
  g_clear_pointer (&run->shell_changed, g_ptr_array_unref);
  emit (run, "tool_finished", data);
  audit (run, call, "finished", ow_tool_status_to_string (status), NULL, run->cur_provenance, reason, preview);

  if (status == OW_TOOL_STATUS_INTERRUPTED)
    run->interrupted = TRUE;
  g_clear_pointer (&run->cur_args, json_object_unref);
  g_clear_pointer (&run->cur_provenance, g_free);
  g_clear_pointer (&run->cur_record, g_free);
  run->cur_tool = NULL;
  run->call_index++;
  next_call (task);
}

static void
complete_error (GTask *task, OwToolStatus status, const char *message, const char *reason)
{
  g_autoptr(OwToolResult) r = ow_tool_result_new_error (status, message);

  if (reason != NULL)
    {
      g_autoptr(JsonObject) obj = ow_json_object_from_string (r->text, -1, NULL);
      g_autofree char *text = NULL;
      json_object_set_string_member (obj, "reason", reason);
      text = ow_json_object_to_string (obj);
      complete_call (task, status, text, reason);
      return;
    }
  complete_call (task, status, r->text, message);
}

/* After a shell command: where the shell is now, and what it downloaded
 * (so running that file later is a safety check). */
static void
note_shell_effects (Run *run, const char *result_text)
{
  OwAgent *agent = run->agent;
  g_autoptr(JsonObject) result = ow_json_object_from_string (result_text, -1, NULL);
  const char *cwd = result != NULL ? ow_json_get_string (result, "cwd") : NULL;
  const char *command = ow_json_get_string (run->cur_args, "command");

  if (command != NULL)
    {
      OwSafetyContext ctx;
      g_autoptr(GPtrArray) holder = NULL;
      g_auto(GStrv) downloads = NULL;

      holder = g_ptr_array_new_with_free_func (g_free);
      ctx = (OwSafetyContext) { .cwd = agent->shell_cwd != NULL ? agent->shell_cwd : ow_session_get_workspace (agent->session),
                                .home = g_get_home_dir () };
      downloads = ow_safety_downloads_of (&ctx, command);
      for (guint i = 0; downloads != NULL && downloads[i] != NULL; i++)
        g_ptr_array_add (agent->downloaded, g_strdup (downloads[i]));
    }
  if (cwd != NULL && g_path_is_absolute (cwd))
    {
      g_free (agent->shell_cwd);
      agent->shell_cwd = g_strdup (cwd);
    }
}

/* The folders a command may write in: where the files it makes land. */
static GStrv
writable_folders (OwAgent *agent)
{
  GPtrArray *roots = ow_session_get_roots (agent->session);
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      if (r->writable)
        g_ptr_array_add (out, g_strdup (r->path));
    }
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

static void
set_todos_cb (GObject *session, JsonArray *todos)
{
  ow_session_set_todos (OW_SESSION (session), todos);
}

/* The current call finished with @r (or @error): its result goes to the
 * history and the run moves on. */
static void
tool_done (GTask *task, OwToolResult *r, const GError *error)
{
  Run *run = run_of (task);

  /* An interrupted command may have written files too. */
  if (run->shell_before != NULL)
    {
      g_auto(GStrv) folders = writable_folders (run->agent);
      g_autoptr(OwFileSnapshot) after = ow_file_snapshot_take ((const char *const *) folders);
      run->shell_changed = ow_file_snapshot_changes (run->shell_before, after);
    }
  if (r == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    complete_error (task, OW_TOOL_STATUS_INTERRUPTED, "interrupted by user", NULL);
  else if (r == NULL)
    complete_error (task, OW_TOOL_STATUS_ERROR, error->message, NULL);
  else if (g_str_equal (current_call (run)->name, "run_shell"))
    {
      OwAgent *agent = run->agent;
      g_autofree char *before = g_strdup (agent->shell_cwd != NULL ? agent->shell_cwd
                                          : ow_session_get_workspace (agent->session));
      g_autofree char *lean = NULL;

      note_shell_effects (run, r->text);
      lean = ow_shell_result_for_model (r->text, before);
      g_free (run->cur_record);
      run->cur_record = g_strdup (r->text);
      complete_call (task, r->status, lean, NULL);
    }
  else
    complete_call (task, r->status, r->text, NULL);
}

static void
on_tool_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(OwToolResult) r = ow_tool_execute_finish (OW_TOOL (source), result, &error);

  tool_done (task, r, error);
  g_object_unref (task);
}

/* ---- Reads at once ---------------------------------------------------------
 *
 * Several low-risk reads in one reply (a model looking at five files before
 * it answers) need not wait for each other: when the first of them runs,
 * the reads that follow it directly, up to the first call that is anything
 * else, start too, each once the policy allows it as things stand (a read
 * that would ask a person waits for its turn, and so does everything after
 * it). Everything else about a call happens in order, as before: its
 * tool_proposed, policy decision, tool_started, result and audit rows, so
 * the model gets the results in the order it asked and every surface sees
 * the same sequence; only the work overlaps. Medium-risk calls (writes,
 * commands, the web) never start ahead: a read after a write must see it.
 * Only with the in-process executor, which runs each call on a thread of
 * its own; a sandbox's runner takes one request at a time.
 *
 * A call's own turn still decides: should the policy refuse it by then (a
 * person added a deny rule mid-reply), its early result is dropped unseen;
 * only a low-risk read the policy allowed a moment before ever starts
 * early, so nothing is done that the session was not already allowed to
 * do. web_fetch is left out: it can ask for a site mid-call. */

static void policy_decide (Run *run, OwToolCall *call, OwTool *tool, JsonObject *args, OwDecision *out);

static const char *const read_tools[] = {
  "read_file", "list_files", "grep", "git_status", "git_diff", "git_log",
};

/* Whether the executor runs each call on a thread of its own. */
static gboolean
executor_in_process (OwExecutor *executor)
{
  if (OW_IS_SESSION_SANDBOX (executor))
    return g_strcmp0 (ow_session_sandbox_get_provider (OW_SESSION_SANDBOX (executor)), "direct") == 0;
  return OW_IS_EXECUTOR_DIRECT (executor);
}

static gboolean
runs_at_once (Run *run, OwTool *tool, const char *name)
{
  if (tool == NULL || !executor_in_process (run->agent->executor)
      || ow_tool_get_kind (tool) != OW_TOOL_KIND_EXECUTE || ow_tool_get_risk (tool) != OW_RISK_READ)
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (read_tools); i++)
    if (g_str_equal (name, read_tools[i]))
      return TRUE;
  return FALSE;
}

typedef struct {
  GTask *task;   /* owned */
  Ahead *ahead;  /* owned */
} AheadCall;

static void
on_ahead_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AheadCall *ac = user_data;
  Ahead *ahead = ac->ahead;

  ahead->result = ow_tool_execute_finish (OW_TOOL (source), result, &ahead->error);
  ahead->done = TRUE;
  if (ahead->waiting != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&ahead->waiting);
      tool_done (task, ahead->result, ahead->error);
    }
  ahead_unref (ahead);
  g_object_unref (ac->task);
  g_free (ac);
}

static void
start_ahead (GTask *task)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolContext ctx = {
    .session = G_OBJECT (agent->session),
    .executor = G_OBJECT (agent->executor),
    .set_todos = set_todos_cb,
  };

  for (guint j = run->call_index + 1; j < run->calls->len && j < OW_AGENT_MAX_CALLS_PER_REPLY; j++)
    {
      OwToolCall *call = g_ptr_array_index (run->calls, j);
      g_autoptr(JsonObject) args = NULL;
      g_autofree char *args_text = NULL;
      OwDecision decision = { 0 };
      OwTool *tool;
      AheadCall *ac;
      gboolean allowed;

      if (g_hash_table_contains (run->ahead, call->id))
        continue;
      tool = ow_tool_registry_lookup (agent->tools, call->name);
      args = ow_tool_args_parse (call->arguments, -1, NULL);
      if (args == NULL || !runs_at_once (run, tool, call->name))
        break;
      policy_decide (run, call, tool, args, &decision);
      allowed = decision.verdict == OW_VERDICT_ALLOW && decision.safety_checks == 0;
      ow_decision_clear (&decision);
      if (!allowed)
        break;

      ac = g_new0 (AheadCall, 1);
      ac->task = g_object_ref (task);
      ac->ahead = g_new0 (Ahead, 1);
      ac->ahead->refs = 1;
      g_hash_table_insert (run->ahead, g_strdup (call->id), ahead_ref (ac->ahead));
      args_text = ow_json_object_to_string (args);
      ow_tool_execute_async (tool, &ctx, args, args_text, run->cancellable, on_ahead_done_cb, ac);
    }
}


static void
execute_current (GTask *task)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = current_call (run);
  OwToolContext ctx = {
    .session = G_OBJECT (agent->session),
    .executor = G_OBJECT (agent->executor),
    .set_todos = set_todos_cb,
  };
  JsonObject *data;
  g_autofree char *args_text = ow_json_object_to_string (run->cur_args);
  g_autoptr(GError) error = NULL;

  /* An approval answered in the inbox may be acted on by a turn resumed
   * after a restart: the attendant's record makes sure the call runs once. */
  if (!ow_attendant_begin_run (agent->attendant, ow_session_get_id (agent->session), call->id, &error))
    {
      complete_error (task, OW_TOOL_STATUS_ERROR, error != NULL ? error->message : "tool call not executed", NULL);
      return;
    }
  data = json_object_new ();
  /* The command guard makes the safety checks true in the kernel, so a
   * check a person approved (or the dangerous mode cleared) must lift it
   * for this call; the next call is guarded again. The audit row's
   * enforcement level says which it was. */
  ow_executor_set_guard_off (agent->executor,
                             run->decision.safety_checks != 0
                             || g_str_equal (ow_session_get_mode (agent->session), "dangerously-bypass-approvals"));
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  /* What the command is about to change, seen from before it runs (the
   * deliverables list every file the session changed, however made). */
  g_clear_pointer (&run->shell_before, ow_file_snapshot_free);
  g_clear_pointer (&run->shell_changed, g_ptr_array_unref);
  if (g_str_equal (call->name, "run_shell"))
    {
      g_auto(GStrv) folders = writable_folders (agent);
      run->shell_before = ow_file_snapshot_take ((const char *const *) folders);
    }
  emit (run, "tool_started", data);
  audit (run, call, "started", NULL, NULL, run->cur_provenance, NULL, NULL);

  /* Started ahead of its turn (see start_ahead()): its result, now or
   * when it comes. */
  {
    gpointer key = NULL, value = NULL;

    if (g_hash_table_steal_extended (run->ahead, call->id, &key, &value))
      {
        Ahead *ahead = value;

        g_free (key);
        if (ahead->done)
          tool_done (task, ahead->result, ahead->error);
        else
          ahead->waiting = g_object_ref (task);
        ahead_unref (ahead);
        return;
      }
  }
  ow_tool_execute_async (run->cur_tool, &ctx, run->cur_args, args_text, run->cancellable,
                         on_tool_done_cb, g_object_ref (task));
  if (runs_at_once (run, run->cur_tool, call->name))
    start_ahead (task);
}

static void
refuse (GTask *task, const char *provenance, const char *reason, OwToolStatus status)
{
  Run *run = run_of (task);

  g_clear_pointer (&run->cur_provenance, g_free);
  run->cur_provenance = g_strdup (provenance);
  complete_error (task, status, "tool call not executed", reason);
}

/* Tells every surface the ask is answered, so its card closes everywhere. */
static void
emit_resolved (Run *run, OwToolCall *call, const char *kind, const char *decision, gboolean by_rule)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "kind", kind);
  json_object_set_string_member (data, "decision", decision);
  json_object_set_boolean_member (data, "by_rule", by_rule);
  emit (run, "approval_resolved", data);
}

static void
on_approval_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = current_call (run);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwApprovalReply) reply = ow_attendant_request_approval_finish (OW_ATTENDANT (source), result, &error);
  gboolean safety = run->decision.safety_checks != 0;
  const char *approval;
  g_autofree char *provenance = NULL;

  if (finish_if_parked (task))
    {
      g_object_unref (task);
      return;
    }

  if (reply == NULL || g_cancellable_is_cancelled (run->cancellable))
    {
      gboolean stopped = g_cancellable_is_cancelled (run->cancellable);
      const char *why = stopped ? "interrupted by user" : error != NULL ? error->message : "no answer";
      emit_resolved (run, call, "approval", stopped ? "interrupted" : "deny", TRUE);
      audit (run, call, "approval_resolved", "denied", "deny", "denied", why, NULL);
      refuse (task, "denied", why, stopped ? OW_TOOL_STATUS_INTERRUPTED : OW_TOOL_STATUS_DENIED);
      g_object_unref (task);
      return;
    }

  approval = ow_approval_answer_to_string (reply->answer);
  emit_resolved (run, call, "approval", approval, reply->by_rule);
  if (reply->answer == OW_APPROVAL_DENY)
    {
      g_autofree char *reason = NULL;
      if (reply->by_rule)
        reason = g_strdup_printf ("refused: %s", reply->note != NULL ? reply->note : "no one could approve it");
      else
        reason = g_strdup_printf ("denied by the person%s%s", reply->note != NULL ? ": " : "",
                                  reply->note != NULL ? reply->note : "");
      provenance = g_strdup (reply->by_rule ? "refused unattended" : "denied by person");
      audit (run, call, "approval_resolved", "denied", approval, provenance, reason, NULL);
      refuse (task, provenance, reason, OW_TOOL_STATUS_DENIED);
      g_object_unref (task);
      return;
    }

  /* "Allow read-only commands" lets this command run only if it is one:
   * the card offers it only then, but the inbox and the API take any
   * answer for any card. */
  if (reply->answer == OW_APPROVAL_READONLY_SESSION)
    {
      if (!g_str_equal (call->name, "run_shell") || !ow_readonly_command (ow_json_get_string (run->cur_args, "command")))
        {
          const char *why = "not run: the person allowed read-only commands, and this one is not read-only";
          audit (run, call, "approval_resolved", "denied", approval, "denied by person", why, NULL);
          refuse (task, "denied by person", why, OW_TOOL_STATUS_DENIED);
          g_object_unref (task);
          return;
        }
      if (!safety)
        {
          g_autoptr(GError) grant_error = NULL;
          if (!ow_session_add_readonly_grant (agent->session, &grant_error))
            g_message ("Could not save the session grant: %s", grant_error->message);
        }
      provenance = g_strdup (safety ? "user-approved once" : "user-approved read-only commands for session");
      reply->answer = OW_APPROVAL_ONCE;
    }

  /* A safety check is asked every time: the answer covers this call only. */
  if (safety && reply->answer != OW_APPROVAL_ONCE)
    reply->answer = OW_APPROVAL_ONCE;
  if (reply->answer == OW_APPROVAL_ALWAYS && run->decision.suggested_rule != NULL)
    {
      g_autoptr(GError) rule_error = NULL;
      gint64 id = ow_policy_add_standing_rule (agent->policy, run->decision.suggested_rule, "allow", "person",
                                               ow_session_get_id (agent->session), &rule_error);
      if (id > 0)
        {
          JsonObject *data = json_object_new ();
          provenance = g_strdup_printf ("user-approved always (standing rule #%" G_GINT64_FORMAT " \"%s\")", id,
                                        run->decision.suggested_rule);
          json_object_set_int_member (data, "id", id);
          json_object_set_string_member (data, "rule", run->decision.suggested_rule);
          json_object_set_string_member (data, "decision", "allow");
          emit (run, "standing_rule_created", data);
          audit (run, call, "standing_rule_minted", "granted", approval, provenance, run->decision.suggested_rule, NULL);
        }
      else
        {
          g_message ("Could not save the standing rule: %s", rule_error->message);
          reply->answer = OW_APPROVAL_SESSION;
        }
    }
  else if (reply->answer == OW_APPROVAL_ALWAYS)
    reply->answer = OW_APPROVAL_SESSION;

  if (reply->answer == OW_APPROVAL_SESSION)
    {
      g_autoptr(GError) grant_error = NULL;
      gboolean ok;
      if (g_str_equal (call->name, "run_shell"))
        {
          approval = "always_command";
          ok = ow_session_add_command_grant (agent->session, ow_json_get_string (run->cur_args, "command"),
                                             &grant_error);
        }
      else
        ok = ow_session_add_tool_grant (agent->session, call->name, &grant_error);
      if (!ok)
        g_message ("Could not save the session grant: %s", grant_error->message);
      provenance = g_strdup ("user-approved for session");
    }
  else if (provenance == NULL)
    provenance = g_strdup ("user-approved once");

  g_clear_pointer (&run->cur_provenance, g_free);
  run->cur_provenance = g_steal_pointer (&provenance);
  audit (run, call, "approval_resolved", "approved", approval, run->cur_provenance, NULL, NULL);
  execute_current (task);
  g_object_unref (task);
}

static void
on_interaction_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  gboolean is_dir = ow_tool_get_kind (run->cur_tool) == OW_TOOL_KIND_REQUEST_DIRECTORY;

  if (is_dir)
    answer = ow_attendant_request_directory_finish (OW_ATTENDANT (source), result, &error);
  else
    answer = ow_attendant_ask_finish (OW_ATTENDANT (source), result, &error);
  if (finish_if_parked (task))
    {
      g_object_unref (task);
      return;
    }

  emit_resolved (run, current_call (run), is_dir ? "directory" : "question",
                 answer == NULL || g_cancellable_is_cancelled (run->cancellable) ? "interrupted" : "answered",
                 answer != NULL && json_object_get_boolean_member_with_default (answer, "answered_by_rule", FALSE));
  if (answer == NULL || g_cancellable_is_cancelled (run->cancellable))
    {
      complete_error (task, g_cancellable_is_cancelled (run->cancellable) ? OW_TOOL_STATUS_INTERRUPTED : OW_TOOL_STATUS_ERROR,
                      g_cancellable_is_cancelled (run->cancellable) ? "interrupted by user"
                                                                    : error != NULL ? error->message : "no answer",
                      NULL);
      g_object_unref (task);
      return;
    }
  if (is_dir && json_object_get_boolean_member_with_default (answer, "granted", FALSE))
    {
      g_autoptr(GError) root_error = NULL;
      const char *path = json_object_get_string_member_with_default (answer, "path", NULL);
      gboolean writable = json_object_get_boolean_member_with_default (answer, "writable", FALSE);

      if (path == NULL || !ow_session_add_root (run->agent->session, path, writable, "added", &root_error))
        {
          json_object_set_boolean_member (answer, "granted", FALSE);
          json_object_set_string_member (answer, "reason", root_error != NULL ? root_error->message : "no folder was given");
        }
      else
        ow_executor_set_roots (run->agent->executor, ow_session_get_roots (run->agent->session));
    }
  {
    g_autofree char *text = ow_json_object_to_string (answer);
    gboolean declined = is_dir && !json_object_get_boolean_member_with_default (answer, "granted", FALSE);
    g_clear_pointer (&run->cur_provenance, g_free);
    run->cur_provenance = g_strdup (json_object_get_boolean_member_with_default (answer, "answered_by_rule", FALSE)
                                      ? "answered by rule" : "answered by the person");
    complete_call (task, declined ? OW_TOOL_STATUS_DENIED : OW_TOOL_STATUS_OK, text, NULL);
  }
  g_object_unref (task);
}

/* Asks the attendant about the current call (the policy said ask, or the
 * reviewer was unsure). */
static void
ask_person (GTask *task, const char *reviewer_reasoning)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = current_call (run);
  gboolean safety = run->decision.safety_checks != 0;
  OwApprovalRequest req = {
    .session_id = ow_session_get_id (agent->session),
    .call_id = call->id,
    .tool = call->name,
    .arguments = run->cur_args,
    .reason = run->decision.reason,
    .risk = ow_risk_to_string (ow_tool_get_risk (run->cur_tool)),
    .safety_check = safety,
    .readonly_ok = !safety && g_str_equal (call->name, "run_shell")
                   && ow_readonly_command (ow_json_get_string (run->cur_args, "command")),
    .suggested_rule = safety ? NULL : run->decision.suggested_rule,
    .reviewer_reasoning = reviewer_reasoning,
  };
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_object_member (data, "arguments", json_object_ref (run->cur_args));
  json_object_set_string_member (data, "reason", run->decision.reason);
  json_object_set_string_member (data, "category", req.risk);
  json_object_set_boolean_member (data, "safety_check", safety);
  if (req.suggested_rule != NULL)
    json_object_set_string_member (data, "standing_target", req.suggested_rule);
  else
    json_object_set_null_member (data, "standing_target");
  if (reviewer_reasoning != NULL)
    json_object_set_string_member (data, "reviewer_reasoning", reviewer_reasoning);
  /* The card offers "Allow read-only commands" only for a command the
   * grant would cover, and never on a safety check (asked every time). */
  json_object_set_boolean_member (data, "readonly_ok", req.readonly_ok);
  audit (run, call, "approval_requested", NULL, NULL, NULL, run->decision.reason, NULL);
  /* The ask is parked (an inbox item is on disk) before any surface hears
   * of it: a card a client sees is always one it can find and answer. */
  ow_attendant_request_approval_async (agent->attendant, &req, run->cancellable, on_approval_cb, g_object_ref (task));
  emit (run, "permission_required", data);
}

static void
on_review_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = current_call (run);
  g_autoptr(OwReview) review = ow_reviewer_review_finish (OW_REVIEWER (source), result);
  JsonObject *data = json_object_new ();

  /* A verdict about a context that no longer holds is void. */
  if (review->verdict != OW_REVIEW_UNCERTAIN
      && (ow_policy_get_generation (agent->policy) != run->review_generation
          || g_strcmp0 (ow_session_get_mode (agent->session), run->review_mode) != 0
          || ow_session_get_roots (agent->session)->len != run->review_roots))
    {
      review->verdict = OW_REVIEW_UNCERTAIN;
      g_free (review->reasoning);
      review->reasoning = g_strdup ("the context changed while the reviewer was deciding; a person decides");
    }

  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "verdict", ow_review_verdict_to_string (review->verdict));
  json_object_set_string_member (data, "reasoning", review->reasoning);
  emit (run, "review_finished", data);
  audit (run, call, "reviewed", ow_review_verdict_to_string (review->verdict), NULL, "reviewer", review->reasoning, NULL);

  if (ow_reviewer_is_paused (OW_REVIEWER (source)) && review->verdict == OW_REVIEW_DENY)
    {
      JsonObject *p = json_object_new ();
      json_object_set_int_member (p, "denials", ow_reviewer_get_denials (OW_REVIEWER (source)));
      emit (run, "reviewer_paused", p);
    }

  if (g_cancellable_is_cancelled (run->cancellable))
    refuse (task, "denied", "interrupted by user", OW_TOOL_STATUS_INTERRUPTED);
  else if (review->verdict == OW_REVIEW_ALLOW)
    {
      g_clear_pointer (&run->cur_provenance, g_free);
      run->cur_provenance = g_strdup_printf ("auto-approved by reviewer: %s", review->reasoning);
      audit (run, call, "auto_allowed", "allowed", NULL, run->cur_provenance, review->reasoning, NULL);
      execute_current (task);
    }
  else if (review->verdict == OW_REVIEW_DENY)
    {
      g_autofree char *reason = g_strdup_printf ("denied by the reviewer: %s", review->reasoning);
      g_autofree char *prov = g_strdup_printf ("denied by reviewer: %s", review->reasoning);
      audit (run, call, "finished", "denied", NULL, prov, reason, NULL);
      refuse (task, prov, reason, OW_TOOL_STATUS_DENIED);
    }
  else
    ask_person (task, review->reasoning);
  g_object_unref (task);
}

static void
start_review (GTask *task)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = current_call (run);
  GPtrArray *roots = ow_session_get_roots (agent->session);
  g_autoptr(GPtrArray) folders = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) rules = ow_policy_dup_rules_text (agent->policy);
  OwReviewRequest req;

  if (agent->reviewer == NULL)
    {
      g_free (run->decision.reason);
      run->decision.reason = g_strdup ("no reviewer model is configured (reviewer_model), so a person decides");
      ask_person (task, NULL);
      return;
    }
  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      g_ptr_array_add (folders, g_strdup_printf ("%s (%s)", r->path, r->writable ? "read-write" : "read-only"));
    }
  g_ptr_array_add (folders, NULL);
  req = (OwReviewRequest) {
    .coworker = agent->role_title,
    .role = agent->role_prompt,
    .approval_guidance = agent->guidance,
    .folders = (const char *const *) folders->pdata,
    .mode = ow_session_get_mode (agent->session),
    .user_rules = (const char *const *) rules,
    .request = agent->request,
    .tool = call->name,
    .arguments = run->cur_args,
    .risk = ow_risk_to_string (ow_tool_get_risk (run->cur_tool)),
  };
  run->review_generation = ow_policy_get_generation (agent->policy);
  g_free (run->review_mode);
  run->review_mode = g_strdup (ow_session_get_mode (agent->session));
  run->review_roots = roots->len;
  {
    JsonObject *data = json_object_new ();
    json_object_set_string_member (data, "call_id", call->id);
    json_object_set_string_member (data, "name", call->name);
    emit (run, "review_started", data);
  }
  ow_reviewer_review_async (agent->reviewer, &req, run->cancellable, on_review_cb, g_object_ref (task));
}

/* The policy's verdict on @call to @tool with @args, as things stand. */
static void
policy_decide (Run *run, OwToolCall *call, OwTool *tool, JsonObject *args, OwDecision *out)
{
  OwAgent *agent = run->agent;
  GPtrArray *roots = ow_session_get_roots (agent->session);
  g_autofree const char **root_paths = g_new0 (const char *, roots->len + 1);
  g_autofree gboolean *root_writable = g_new0 (gboolean, roots->len + 1);
  OwSafetyContext safety;
  OwPolicyCall pc;

  for (guint i = 0; i < roots->len; i++)
    {
      OwRoot *r = g_ptr_array_index (roots, i);
      root_paths[i] = r->path;
      root_writable[i] = r->writable;
    }
  g_ptr_array_add (agent->downloaded, NULL);
  safety = (OwSafetyContext) {
    .roots = root_paths,
    .roots_writable = root_writable,
    .n_roots = roots->len,
    .cwd = agent->shell_cwd != NULL ? agent->shell_cwd : ow_session_get_workspace (agent->session),
    .home = g_get_home_dir (),
    .agent_dirs = (const char *const *) agent->agent_dirs,
    .downloaded = (const char *const *) agent->downloaded->pdata,
    .env = (const char *const *) agent->tool_env,
  };
  pc = (OwPolicyCall) {
    .mode = ow_session_get_mode (agent->session),
    .tool = call->name,
    .risk = ow_tool_get_risk (tool),
    .args = args,
    .workspace = ow_session_get_workspace (agent->session),
    .tool_granted = ow_session_has_tool_grant (agent->session, call->name),
    .readonly_granted = ow_session_has_readonly_grant (agent->session),
    .command_granted = g_str_equal (call->name, "run_shell")
                       && ow_session_has_command_grant (agent->session, ow_json_get_string (args, "command") != NULL
                                                                        ? ow_json_get_string (args, "command") : ""),
    .safety = &safety,
  };
  ow_decision_clear (out);
  ow_policy_decide (agent->policy, &pc, out);
  g_ptr_array_set_size (agent->downloaded, agent->downloaded->len - 1);
}

static void
decide_current (GTask *task)
{
  Run *run = run_of (task);
  OwToolCall *call = current_call (run);

  policy_decide (run, call, run->cur_tool, run->cur_args, &run->decision);

  switch (run->decision.verdict)
    {
    case OW_VERDICT_ALLOW:
      g_clear_pointer (&run->cur_provenance, g_free);
      run->cur_provenance = g_strdup (run->decision.provenance);
      if (run->decision.cleared_by_mode)
        {
          JsonObject *data = json_object_new ();
          JsonArray *reasons = json_array_new ();
          for (guint i = 0; i < run->decision.safety_reasons->len; i++)
            json_array_add_string_element (reasons, g_ptr_array_index (run->decision.safety_reasons, i));
          json_object_set_string_member (data, "name", call->name);
          json_object_set_string_member (data, "call_id", call->id);
          json_object_set_object_member (data, "arguments", json_object_ref (run->cur_args));
          json_object_set_array_member (data, "checks", reasons);
          emit (run, "safety_check_cleared", data);
        }
      audit (run, call, "auto_allowed", "allowed", NULL, run->decision.provenance, run->decision.reason, NULL);
      execute_current (task);
      break;
    case OW_VERDICT_DENY:
      audit (run, call, "finished", "denied", NULL, run->decision.provenance, run->decision.reason, NULL);
      refuse (task, run->decision.provenance, run->decision.reason, OW_TOOL_STATUS_DENIED);
      break;
    case OW_VERDICT_REVIEW:
      start_review (task);
      break;
    case OW_VERDICT_ASK:
    default:
      ask_person (task, NULL);
      break;
    }
}

/* ---- Site cards ----------------------------------------------------------- */

/* "host:port" of a URL, or NULL when it has no usable host. */
static char *
site_of_url (const char *url)
{
  g_autoptr(GUri) uri = url != NULL ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;
  g_autofree char *host = NULL;
  guint16 port = 0;
  int uri_port;

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return NULL;
  if (!ow_site_parse (g_uri_get_host (uri), FALSE, &host, &port, NULL))
    return NULL;
  uri_port = g_uri_get_port (uri);
  if (uri_port > 0)
    port = (guint16) uri_port;
  else
    port = g_ascii_strcasecmp (g_uri_get_scheme (uri), "http") == 0 ? 80 : 443;
  return ow_site_format (host, port);
}

/* Whether the session may reach @site ("host:port") now, without asking. */
static gboolean
site_allowed (OwAgent *agent, const char *site)
{
  g_autofree char *host = NULL;
  guint16 port = 0;

  if (!ow_site_parse (site, TRUE, &host, &port, NULL))
    return FALSE;
  return ow_site_list_check (agent->sites, ow_session_get_id (agent->session), host, port, FALSE) != OW_SITE_DENIED;
}

static void
on_site_answer_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = current_call (run);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwApprovalReply) reply = ow_attendant_request_approval_finish (OW_ATTENDANT (source), result, &error);
  gboolean is_request = ow_tool_get_kind (run->cur_tool) == OW_TOOL_KIND_REQUEST_SITE;
  const char *site = run->site;
  const char *scope = NULL;
  g_autoptr(GError) grant_error = NULL;
  gboolean granted = FALSE;
  JsonObject *data;

  if (finish_if_parked (task))
    {
      g_object_unref (task);
      return;
    }

  /* "Allow read-only commands" says nothing about a site: not a yes. */
  if (reply != NULL && !g_cancellable_is_cancelled (run->cancellable) && reply->answer != OW_APPROVAL_DENY
      && reply->answer != OW_APPROVAL_READONLY_SESSION)
    {
      OwSiteGrant grant = reply->answer == OW_APPROVAL_ALWAYS ? OW_SITE_GRANT_ALWAYS
                          : reply->answer == OW_APPROVAL_SESSION ? OW_SITE_GRANT_SESSION
                          : OW_SITE_GRANT_ONCE;
      /* A command's site is asked for the session: "once" has no meaning
       * for a sandbox that keeps running. */
      if (is_request && grant == OW_SITE_GRANT_ONCE)
        grant = OW_SITE_GRANT_SESSION;
      granted = ow_site_list_grant (agent->sites, ow_session_get_id (agent->session), site, grant, &grant_error);
      if (granted && grant == OW_SITE_GRANT_ALWAYS && agent->guard != NULL)
        {
          g_autofree char *host = NULL;
          guint16 port = 0;
          /* "Always" wrote this exact host:port into sandbox_network_hosts,
           * the one place that may lift the private-address guard; it
           * applies at once, as it will in every later session. */
          if (ow_site_parse (site, TRUE, &host, &port, NULL)
              && (ow_site_host_is_ip (host) || g_str_equal (host, "localhost")))
            ow_address_guard_add_exception (agent->guard, site, NULL);
        }
      scope = grant == OW_SITE_GRANT_ALWAYS ? "always" : grant == OW_SITE_GRANT_SESSION ? "session" : "once";
    }

  emit_resolved (run, call, "site", granted ? scope : "deny", reply == NULL || reply->by_rule);
  data = json_object_new ();
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "site", site);
  json_object_set_boolean_member (data, "granted", granted);
  if (scope != NULL && granted)
    json_object_set_string_member (data, "scope", scope);
  emit (run, "site_resolved", data);

  if (!granted)
    {
      const char *why = g_cancellable_is_cancelled (run->cancellable) ? "interrupted by user"
                        : grant_error != NULL ? grant_error->message
                        : reply != NULL && reply->note != NULL ? reply->note
                        : error != NULL ? error->message : "the person declined";
      g_autofree char *reason = g_strdup_printf ("%s was not allowed: %s", site, why);
      audit (run, call, "approval_resolved", "denied", "deny", "site denied", reason, NULL);
      if (is_request)
        {
          g_autoptr(JsonObject) answer = json_object_new ();
          g_autofree char *text = NULL;
          json_object_set_boolean_member (answer, "granted", FALSE);
          json_object_set_string_member (answer, "site", site);
          json_object_set_string_member (answer, "reason", reason);
          text = ow_json_object_to_string (answer);
          g_clear_pointer (&run->cur_provenance, g_free);
          run->cur_provenance = g_strdup ("site denied");
          complete_call (task, OW_TOOL_STATUS_DENIED, text, NULL);
        }
      else
        refuse (task, "site denied", reason,
                g_cancellable_is_cancelled (run->cancellable) ? OW_TOOL_STATUS_INTERRUPTED : OW_TOOL_STATUS_DENIED);
      g_object_unref (task);
      return;
    }

  {
    g_autofree char *provenance = g_strdup_printf ("site allowed by the person (%s)", scope);
    audit (run, call, "approval_resolved", "approved", scope, provenance, site, NULL);
    if (is_request)
      {
        g_autoptr(JsonObject) answer = json_object_new ();
        g_autofree char *text = NULL;
        json_object_set_boolean_member (answer, "granted", TRUE);
        json_object_set_string_member (answer, "site", site);
        json_object_set_string_member (answer, "scope", scope);
        json_object_set_string_member (answer, "note", "The sandbox lets it through now; no restart is needed.");
        text = ow_json_object_to_string (answer);
        g_clear_pointer (&run->cur_provenance, g_free);
        run->cur_provenance = g_strdup (provenance);
        complete_call (task, OW_TOOL_STATUS_OK, text, NULL);
      }
    else
      decide_current (task);
  }
  g_object_unref (task);
}

/* Shows a site card for the current call: web_fetch to a site not on the
 * list, or request_network_access. */
static void
ask_site (GTask *task, const char *site, const char *reason)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call = current_call (run);
  OwApprovalRequest req = {
    .session_id = ow_session_get_id (agent->session),
    .call_id = call->id,
    .tool = call->name,
    .arguments = run->cur_args,
    .reason = reason,
    .risk = "network",
    .site = site,
  };
  JsonObject *data = json_object_new ();

  g_free (run->site);
  run->site = g_strdup (site);
  req.site = run->site;
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  json_object_set_string_member (data, "site", site);
  json_object_set_string_member (data, "reason", reason);
  audit (run, call, "approval_requested", NULL, NULL, NULL, reason, NULL);
  /* Parked first, then announced (see ask_person). */
  ow_attendant_request_approval_async (agent->attendant, &req, run->cancellable, on_site_answer_cb,
                                       g_object_ref (task));
  emit (run, "site_requested", data);
}

/* request_network_access: answered from the list when already allowed,
 * refused when nobody may be asked, else a site card. */
static void
request_site (GTask *task)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  const char *asked = ow_json_get_string (run->cur_args, "host");
  const char *why = ow_json_get_string (run->cur_args, "reason");
  g_autofree char *host = NULL, *site = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = json_object_new ();
  g_autofree char *text = NULL;
  guint16 port = 0;

  if (asked == NULL || !ow_site_parse (asked, FALSE, &host, &port, &error))
    {
      complete_error (task, OW_TOOL_STATUS_ERROR, error != NULL ? error->message : "host is required", NULL);
      return;
    }
  site = ow_site_format (host, port != 0 ? port : 443);
  if (site_allowed (agent, site))
    {
      json_object_set_boolean_member (answer, "granted", TRUE);
      json_object_set_string_member (answer, "site", site);
      json_object_set_string_member (answer, "note", "It is already on the list; if a command still fails, the "
                                     "problem is elsewhere.");
      text = ow_json_object_to_string (answer);
      complete_call (task, OW_TOOL_STATUS_OK, text, NULL);
      return;
    }
  if (g_str_equal (ow_session_get_mode (agent->session), "dangerously-bypass-approvals"))
    {
      json_object_set_boolean_member (answer, "granted", FALSE);
      json_object_set_string_member (answer, "site", site);
      json_object_set_string_member (answer, "reason", "With full access nobody is asked, so sites cannot be "
                                     "requested; the person adds them to sandbox_network_hosts themselves.");
      text = ow_json_object_to_string (answer);
      complete_call (task, OW_TOOL_STATUS_DENIED, text, NULL);
      return;
    }
  {
    g_autofree char *reason = g_strdup_printf ("the coworker asks for %s: %s", site, why != NULL ? why : "no reason given");
    ask_site (task, site, reason);
  }
}

/* Answers every call of the reply from the cap on without running it, in
 * one loop (not one call at a time: thousands of them would recurse
 * through complete_call), and says so once. FALSE: the store failed and
 * the task is finished. */
static gboolean
answer_calls_over_cap (GTask *task)
{
  Run *run = run_of (task);
  guint asked = run->calls->len;
  guint skipped = asked - run->call_index;
  g_autoptr(JsonObject) result = json_object_new ();
  g_autofree char *reason = g_strdup_printf (
    "Your reply asked for %u tool calls; only the first %u of a reply are run, so this one was not. "
    "If it is still needed, call it again in your next reply (at most %u calls per reply).",
    asked, OW_AGENT_MAX_CALLS_PER_REPLY, OW_AGENT_MAX_CALLS_PER_REPLY);
  g_autofree char *text = NULL;
  JsonObject *data;

  json_object_set_string_member (result, "error", "tool call not executed");
  json_object_set_string_member (result, "reason", reason);
  text = ow_json_object_to_string (result);
  for (; run->call_index < asked; run->call_index++)
    {
      OwToolCall *call = current_call (run);
      JsonObject *msg = ow_message_json_tool (call->id, text);
      gboolean ok = append (task, msg);

      json_object_unref (msg);
      if (!ok)
        return FALSE;
    }
  data = json_object_new ();
  json_object_set_int_member (data, "requested", asked);
  json_object_set_int_member (data, "run", asked - skipped);
  json_object_set_int_member (data, "not_run", skipped);
  json_object_set_int_member (data, "limit", OW_AGENT_MAX_CALLS_PER_REPLY);
  emit (run, "tool_calls_capped", data);
  return TRUE;
}

static void
next_call (GTask *task)
{
  Run *run = run_of (task);
  OwAgent *agent = run->agent;
  OwToolCall *call;
  JsonObject *data;
  g_autofree char *problem = NULL;

  if (run->call_index >= OW_AGENT_MAX_CALLS_PER_REPLY && run->call_index < run->calls->len
      && !answer_calls_over_cap (task))
    return;
  if (run->call_index >= run->calls->len)
    {
      data = json_object_new ();
      json_object_set_int_member (data, "iteration", run->iterations);
      emit (run, "iteration_end", data);
      if (run->interrupted || g_cancellable_is_cancelled (run->cancellable))
        finish_interrupted (task);
      else
        iterate (task);
      return;
    }

  call = current_call (run);
  ow_decision_clear (&run->decision);
  run->cur_args = ow_tool_args_parse (call->arguments, -1, &problem);

  data = json_object_new ();
  json_object_set_string_member (data, "name", call->name);
  json_object_set_string_member (data, "call_id", call->id);
  if (run->cur_args != NULL)
    json_object_set_object_member (data, "arguments", json_object_ref (run->cur_args));
  else
    {
      g_autofree char *raw = ow_tool_args_history_raw (call->arguments);
      json_object_set_object_member (data, "arguments", ow_json_object_from_string (raw, -1, NULL));
    }
  emit (run, "tool_proposed", data);

  if (run->interrupted || g_cancellable_is_cancelled (run->cancellable))
    {
      audit (run, call, "finished", "interrupted", NULL, NULL, "interrupted by user", NULL);
      complete_error (task, OW_TOOL_STATUS_INTERRUPTED, "interrupted by user", NULL);
      return;
    }
  audit (run, call, "proposed", NULL, NULL, NULL, NULL, NULL);

  if (run->cur_args == NULL)
    {
      g_autofree char *text = ow_tool_args_mangled_result (run->reply_cut, problem);
      complete_call (task, OW_TOOL_STATUS_ERROR, text, "arguments could not be parsed");
      return;
    }

  run->cur_tool = ow_tool_registry_lookup (agent->tools, call->name);
  if (run->cur_tool == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("unknown tool: %s", call->name);
      complete_error (task, OW_TOOL_STATUS_ERROR, msg, NULL);
      return;
    }

  if (ow_tool_get_kind (run->cur_tool) == OW_TOOL_KIND_REQUEST_SITE)
    {
      if (agent->sites == NULL)
        complete_error (task, OW_TOOL_STATUS_ERROR, "this session has no sandbox allow list, so there is nothing to ask for",
                        NULL);
      else
        request_site (task);
      return;
    }
  if (agent->sites != NULL && g_str_equal (call->name, "web_fetch")
      && !g_str_equal (ow_session_get_mode (agent->session), "dangerously-bypass-approvals"))
    {
      g_autofree char *site = site_of_url (ow_json_get_string (run->cur_args, "url"));
      if (site != NULL && !site_allowed (agent, site))
        {
          g_autofree char *reason = g_strdup_printf ("web_fetch of %s", ow_json_get_string (run->cur_args, "url"));
          ask_site (task, site, reason);
          return;
        }
    }

  if (ow_tool_get_kind (run->cur_tool) != OW_TOOL_KIND_EXECUTE)
    {
      gboolean is_dir = ow_tool_get_kind (run->cur_tool) == OW_TOOL_KIND_REQUEST_DIRECTORY;
      data = json_object_new ();
      {
        JsonObjectIter iter;
        const char *key;
        JsonNode *value;
        json_object_iter_init (&iter, run->cur_args);
        while (json_object_iter_next (&iter, &key, &value))
          json_object_set_member (data, key, json_node_copy (value));
      }
      json_object_set_string_member (data, "call_id", call->id);
      audit (run, call, is_dir ? "directory_requested" : "question_requested", NULL, NULL, NULL, NULL, NULL);
      /* Parked first, then announced (see ask_person). */
      if (is_dir)
        ow_attendant_request_directory_async (agent->attendant, ow_session_get_id (agent->session), call->id,
                                              run->cur_args, run->cancellable, on_interaction_cb, g_object_ref (task));
      else
        ow_attendant_ask_async (agent->attendant, ow_session_get_id (agent->session), call->id, run->cur_args,
                                run->cancellable, on_interaction_cb, g_object_ref (task));
      emit (run, is_dir ? "directory_requested" : "question_requested", data);
      return;
    }

  decide_current (task);
}

/* ---- Entry -------------------------------------------------------------- */

void
ow_agent_run_async (OwAgent            *self,
                    const char         *input,
                    GCancellable       *cancellable,
                    GAsyncReadyCallback callback,
                    gpointer            user_data)
{
  g_autoptr(JsonObject) user = ow_message_json_user (input);

  ow_agent_run_message_async (self, user, input, cancellable, callback, user_data);
}

void
ow_agent_run_message_async (OwAgent            *self,
                            JsonObject         *user,
                            const char         *request,
                            GCancellable       *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Run *run = g_new0 (Run, 1);
  JsonObject *data;

  g_task_set_source_tag (task, ow_agent_run_async);
  /* The loop reports cancellation itself (as an "interrupted" outcome with
   * the record intact), so the task must not short-circuit it. */
  g_task_set_check_cancellable (task, FALSE);
  run->agent = g_object_ref (self);
  run->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  run->ahead = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) ahead_unref);
  g_task_set_task_data (task, run, (GDestroyNotify) run_free);

  if (self->running)
    {
      g_task_return_new_error (task, OW_TOOL_ERROR, OW_TOOL_ERROR_FAILED,
                               "A turn is already running in this session; wait for it or stop it first.");
      g_object_unref (task);
      return;
    }
  self->running = TRUE;
  self->current = run;

  if (g_list_model_get_n_items (G_LIST_MODEL (self->session)) == 0 && self->instructions != NULL)
    {
      JsonObject *sys = json_object_new ();
      gboolean ok;
      json_object_set_string_member (sys, "role", "system");
      json_object_set_string_member (sys, "content", self->instructions);
      ok = append (task, sys);
      json_object_unref (sys);
      if (!ok)
        {
          g_object_unref (task);
          return;
        }
    }
  if (user != NULL && !append (task, user))
    {
      g_object_unref (task);
      return;
    }
  if (request != NULL)
    {
      g_free (self->request);
      self->request = g_strdup (request);
    }
  data = json_object_new ();
  json_object_set_string_member (data, "input", user != NULL && request != NULL ? request : "");
  emit (run, "turn_start", data);
  if (user == NULL)
    {
      /* A parked turn goes on where it stopped: its calls first. */
      g_autoptr(GPtrArray) left = ow_session_dup_unanswered_calls (self->session);
      if (left->len > 0)
        {
          run->calls = g_steal_pointer (&left);
          run->call_index = 0;
          next_call (task);
          g_object_unref (task);
          return;
        }
    }
  iterate (task);
  g_object_unref (task);
}

void
ow_agent_park (OwAgent *self)
{
  g_return_if_fail (OW_IS_AGENT (self));

  if (self->current == NULL)
    return;
  self->parking = TRUE;
  g_cancellable_cancel (self->current->cancellable);
}

OwTurnResult *
ow_agent_run_finish (OwAgent *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
