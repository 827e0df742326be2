/* ow-atif.h: the run as an ATIF-v1.7 trajectory, and the validator's rules.
 *
 * The Agent Trajectory Interchange Format (Harbor) is the stable contract
 * of a headless run. The trajectory is built from the session's messages
 * (one agent step per model reply, its tool results as that step's
 * observation) and the facts of each model call. Before it is written the
 * engine checks it against every rule of the Harbor 1.7 validator:
 * unknown keys, the schema version, agent name and version, step ids
 * 1..n, sources, messages, ISO 8601 timestamps, agent-only fields,
 * llm_call_count, observations tied to calls of the same step, unique call
 * ids, object arguments, number types, content parts and subagent refs.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "core/ow-session.h"

G_BEGIN_DECLS

/* Facts about the reply stored at a message index (from the model-call
 * records): where it was served and what it cost. */
typedef struct {
  gint64  message_index;
  char   *host;
  char   *served_model;
  char   *finish_reason;
  gboolean has_cost;
  double  cost_usd;
} OwAtifCallFacts;

void ow_atif_call_facts_free (OwAtifCallFacts *facts);

typedef struct {
  const char *session_id;
  const char *agent_version;     /* OpenWorker's version */
  const char *model_name;        /* full model id */
  const char *reasoning_effort;  /* or NULL */
  JsonArray  *tool_definitions;  /* function schemas offered */
  GPtrArray  *call_facts;        /* OwAtifCallFacts*, by message index */
  JsonObject *extra;             /* root extra (outcome, …), or NULL */
} OwAtifInput;

/* Builds the trajectory of @session. */
JsonObject *ow_atif_build    (OwSession *session, const OwAtifInput *input);

/* Checks @trajectory against the ATIF-v1.7 rules. Returns TRUE when valid;
 * otherwise @errors (optional) receives one line per problem. */
gboolean    ow_atif_validate (JsonNode *trajectory, GPtrArray **errors);

/* ISO 8601 UTC with milliseconds ("2026-11-29T10:48:03.123Z") for a time in
 * seconds since the epoch. */
char       *ow_iso8601_from_seconds (double seconds);

G_END_DECLS
