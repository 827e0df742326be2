/* ow-compaction.h: keeping a long conversation inside the model's window.
 *
 * When the context a model call would carry reaches the trigger
 * (threshold × window, capped), the oldest part of the history is replaced
 * — in what is sent, never in what is stored — by one user message holding
 * a summary written by the model, a working state extracted mechanically
 * from the tool records, and the person's own messages verbatim. The newest
 * quarter of the trigger is kept as it was. The state that says where the
 * boundary lies and what the summary is lives in the session's row, so a
 * reopened session sends exactly what it sent before.
 *
 * Everything here is pure: the agent (ow-agent.c) decides when, calls the
 * summarizer and records the result.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define OW_COMPACTION_DEFAULT_THRESHOLD   0.8
#define OW_COMPACTION_DEFAULT_CAP_TOKENS  250000
#define OW_COMPACTION_DEFAULT_WINDOW      128000
#define OW_COMPACTION_SUMMARY_MAX_TOKENS  3000

typedef struct {
  guint      boundary;        /* index of the first history message kept as it is */
  char      *summary;         /* the summarizer's text */
  char      *working_state;   /* the mechanical block */
  GPtrArray *user_messages;   /* char*: the person's messages in the span, oldest first */
  guint      user_messages_dropped;
  char      *created_at;      /* ISO 8601 UTC */
  char      *model_used;
  gboolean   trimmed;         /* turns were dropped without a summary */
} OwCompactionState;

OwCompactionState *ow_compaction_state_new       (void);
void               ow_compaction_state_free      (OwCompactionState *state);
OwCompactionState *ow_compaction_state_copy      (const OwCompactionState *state);
JsonObject        *ow_compaction_state_to_json   (const OwCompactionState *state);
/* NULL when @json does not hold a usable state. */
OwCompactionState *ow_compaction_state_from_json (JsonObject *json);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwCompactionState, ow_compaction_state_free)

/* min(threshold × window, cap): @window ≤ 0 means the default window, a
 * @threshold outside 0.10–0.95 the default, and @cap is clamped to
 * 10,000–2,000,000 (≤ 0: the default). */
gint64  ow_compaction_trigger          (gint64 window, double threshold, gint64 cap);

/* Where the next span to summarize starts: @prior's boundary, else the
 * first message after the system prompt. */
guint   ow_compaction_span_start       (JsonArray *history, const OwCompactionState *prior);

/* A rough token count: a quarter of each message's JSON length. */
gint64  ow_compaction_estimate_tokens  (JsonArray *messages);

/* Where the kept part should start so that it fits @keep_tokens: the
 * earliest user message whose suffix fits; else, inside the newest user
 * turn, the earliest assistant message whose suffix fits, or that turn's
 * last assistant message; never a tool result. Returns 0 when there is
 * nothing to compact (the boundary would not move past @prior, or past the
 * first message after the system prompt). */
guint   ow_compaction_pick_boundary    (JsonArray *history, guint prior, gint64 keep_tokens);

/* The span [@from, @to) rendered for the summarizer, with @prior_summary
 * (or NULL) folded in first. */
char   *ow_compaction_render_span      (JsonArray *history, guint from, guint to, const char *prior_summary);

/* The working state of the span: files written, recent shell commands with
 * their outcome, tools used. */
char   *ow_compaction_working_state    (JsonArray *history, guint from, guint to);

/* Adds the person's messages of [@from, @to) to @state, keeping the newest. */
void    ow_compaction_add_user_messages (OwCompactionState *state, JsonArray *history, guint from, guint to);

/* The user message that stands for the compacted span. */
char   *ow_compaction_block            (const OwCompactionState *state);

/* What is sent instead of @history: the system message (when @history
 * starts with one), the block, then history[boundary…]. A new array of
 * references. */
JsonArray *ow_compaction_outbound      (JsonArray *history, const OwCompactionState *state);

/* When no summary can be had: moves @state's boundary past about a tenth
 * of the messages still kept, to the next user or assistant message, and
 * says in the summary that those turns are gone. FALSE if it cannot move. */
gboolean ow_compaction_trim            (OwCompactionState *state, JsonArray *history);

/* The summarizer's system prompt. */
extern const char ow_compaction_summary_prompt[];

G_END_DECLS
