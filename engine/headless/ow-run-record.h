/* ow-run-record.h: the folder a headless run leaves behind.
 *
 * events.jsonl, model_calls.jsonl and provider_errors.log are written as
 * things happen (one line each, flushed), so a run killed at any point
 * still leaves what it did. answers.json, messages.json, summary.json,
 * trajectory.json and audit.db are written when the run ends — also when
 * it ends by a signal or a time limit.
 */
#pragma once

#include "core/ow-agent.h"
#include "core/ow-event.h"
#include "headless/ow-atif.h"

G_BEGIN_DECLS

typedef struct _OwRunRecord OwRunRecord;

OwRunRecord *ow_run_record_open        (const char *dir, GError **error);
void         ow_run_record_free        (OwRunRecord *record);
const char  *ow_run_record_get_dir     (OwRunRecord *record);

void         ow_run_record_event       (OwRunRecord *record, const OwEvent *event);
void         ow_run_record_model_call  (OwRunRecord *record, const OwModelCall *call);
void         ow_run_record_answer      (OwRunRecord *record, JsonObject *answer);

/* Facts collected from the model calls so far. */
GPtrArray   *ow_run_record_get_call_facts (OwRunRecord *record);   /* OwAtifCallFacts* */
guint        ow_run_record_get_n_calls    (OwRunRecord *record);
guint        ow_run_record_get_n_retries  (OwRunRecord *record);
/* Distinct "ip:port" hosts that served a reply, as a new array of strings. */
JsonArray   *ow_run_record_dup_hosts      (OwRunRecord *record);
/* Summed usage and estimated cost of successful calls. */
void         ow_run_record_get_totals     (OwRunRecord *record, OwUsage *usage, double *cost, gboolean *all_priced);

/* Writes a JSON document into the record, atomically. */
gboolean     ow_run_record_write_json  (OwRunRecord *record, const char *name, JsonNode *node, GError **error);
/* Writes answers.json. */
gboolean     ow_run_record_write_answers (OwRunRecord *record, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwRunRecord, ow_run_record_free)

G_END_DECLS
