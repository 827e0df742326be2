/* ow-run-record.c: the run record folder (see ow-run-record.h). */
#define G_LOG_DOMAIN "ow-record"

#include "headless/ow-run-record.h"

#include <errno.h>
#include <stdio.h>

#include "ow-redact.h"
#include "store/ow-paths.h"

struct _OwRunRecord
{
  char      *dir;
  FILE      *events;       /* events.jsonl */
  FILE      *calls;        /* model_calls.jsonl */
  FILE      *errors;       /* provider_errors.log */
  JsonArray *answers;      /* for answers.json */
  GPtrArray *facts;        /* OwAtifCallFacts* of successful calls */
  GPtrArray *hosts;        /* char*, distinct */
  guint      n_calls;
  guint      n_retries;
  OwUsage    usage;        /* summed over successful calls */
  double     cost;
  gboolean   all_priced;   /* every successful call had a price */
};

static FILE *
open_log (const char *dir, const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  FILE *f = fopen (path, "we");

  if (f == NULL)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Could not create %s: %s", path,
                   g_strerror (saved));
    }
  return f;
}

OwRunRecord *
ow_run_record_open (const char *dir, GError **error)
{
  g_autoptr(OwRunRecord) r = g_new0 (OwRunRecord, 1);

  r->dir = g_strdup (dir);
  r->answers = json_array_new ();
  r->facts = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_atif_call_facts_free);
  r->hosts = g_ptr_array_new_with_free_func (g_free);
  r->all_priced = TRUE;
  if (!ow_paths_ensure_dir (dir, error))
    return NULL;
  if ((r->events = open_log (dir, "events.jsonl", error)) == NULL
      || (r->calls = open_log (dir, "model_calls.jsonl", error)) == NULL
      || (r->errors = open_log (dir, "provider_errors.log", error)) == NULL)
    return NULL;
  return g_steal_pointer (&r);
}

void
ow_run_record_free (OwRunRecord *r)
{
  if (r == NULL)
    return;
  if (r->events != NULL)
    fclose (r->events);
  if (r->calls != NULL)
    fclose (r->calls);
  if (r->errors != NULL)
    fclose (r->errors);
  json_array_unref (r->answers);
  g_ptr_array_unref (r->facts);
  g_ptr_array_unref (r->hosts);
  g_free (r->dir);
  g_free (r);
}

const char *
ow_run_record_get_dir (OwRunRecord *r)
{
  return r->dir;
}

static void
write_line (FILE *f, const char *line)
{
  fputs (line, f);
  fputc ('\n', f);
  fflush (f);
}

void
ow_run_record_event (OwRunRecord *r, const OwEvent *event)
{
  g_autofree char *line = ow_event_to_json (event);
  g_autofree char *safe = ow_redact (line);

  write_line (r->events, safe);
}

void
ow_run_record_model_call (OwRunRecord *r, const OwModelCall *call)
{
  g_autoptr(JsonObject) o = json_object_new ();
  g_autofree char *ts = ow_iso8601_from_seconds (call->started_ms / 1000.0);
  g_autofree char *line = NULL;
  g_autofree char *safe = NULL;

  r->n_calls++;
  json_object_set_string_member (o, "ts", ts);
  json_object_set_int_member (o, "iteration", call->iteration);
  json_object_set_int_member (o, "attempt", call->attempt);
  json_object_set_string_member (o, "status", call->status);
  json_object_set_string_member (o, "model", call->model);
  if (call->served_model != NULL)
    json_object_set_string_member (o, "served_model", call->served_model);
  if (call->finish_reason != NULL)
    json_object_set_string_member (o, "stop_reason", call->finish_reason);
  else
    json_object_set_null_member (o, "stop_reason");
  if (call->has_usage)
    {
      JsonObject *u = json_object_new ();
      json_object_set_int_member (u, "input", call->usage.input);
      json_object_set_int_member (u, "output", call->usage.output);
      json_object_set_int_member (u, "cache_read", call->usage.cache_read);
      json_object_set_int_member (u, "cache_write", call->usage.cache_write);
      json_object_set_int_member (u, "reasoning", call->usage.reasoning);
      json_object_set_object_member (o, "usage", u);
    }
  else
    json_object_set_null_member (o, "usage");
  if (call->has_cost)
    json_object_set_double_member (o, "cost_usd", call->cost_usd);
  json_object_set_int_member (o, "ceiling", call->ceiling);
  if (call->effort != NULL)
    json_object_set_string_member (o, "effort", call->effort);
  else
    json_object_set_null_member (o, "effort");
  if (call->info != NULL)
    {
      if (call->info->host != NULL)
        json_object_set_string_member (o, "host", call->info->host);
      if (call->info->url != NULL)
        json_object_set_string_member (o, "url", call->info->url);
      json_object_set_int_member (o, "http_status", call->info->status);
      if (call->info->request_id != NULL)
        json_object_set_string_member (o, "request_id", call->info->request_id);
      json_object_set_double_member (o, "ttfb_seconds", call->info->ttfb);
      json_object_set_double_member (o, "duration_seconds", call->info->duration);
    }
  if (call->error != NULL)
    {
      json_object_set_string_member (o, "error", call->error);
      json_object_set_string_member (o, "error_type", call->error_type);
    }
  if (call->retry_in >= 0)
    json_object_set_double_member (o, "retry_in_seconds", call->retry_in);
  line = ow_json_object_to_string (o);
  safe = ow_redact (line);
  write_line (r->calls, safe);

  if (call->retry_in >= 0)
    r->n_retries++;

  if (g_str_equal (call->status, "ok"))
    {
      OwAtifCallFacts *f = g_new0 (OwAtifCallFacts, 1);
      f->message_index = call->message_index;
      f->host = g_strdup (call->info != NULL ? call->info->host : NULL);
      f->served_model = g_strdup (call->served_model);
      f->finish_reason = g_strdup (call->finish_reason);
      f->has_cost = call->has_cost;
      f->cost_usd = call->cost_usd;
      g_ptr_array_add (r->facts, f);
      if (f->host != NULL)
        {
          gboolean seen = FALSE;
          for (guint i = 0; i < r->hosts->len; i++)
            seen = seen || g_str_equal (g_ptr_array_index (r->hosts, i), f->host);
          if (!seen)
            g_ptr_array_add (r->hosts, g_strdup (f->host));
        }
      if (call->has_usage)
        {
          r->usage.input += call->usage.input;
          r->usage.output += call->usage.output;
          r->usage.cache_read += call->usage.cache_read;
          r->usage.cache_write += call->usage.cache_write;
          r->usage.reasoning += call->usage.reasoning;
        }
      if (call->has_cost)
        r->cost += call->cost_usd;
      else
        r->all_priced = FALSE;
    }
  else if (call->error != NULL)
    {
      /* The full cause chain, for a person debugging a failed run. */
      g_autofree char *cause = ow_redact (call->info != NULL && call->info->cause != NULL ? call->info->cause : call->error);
      g_autofree char *message = ow_redact (call->error);
      fprintf (r->errors, "%s %s iteration %u attempt %u: %s: %s\n  cause: %s\n", ts, call->model, call->iteration,
               call->attempt + 1, call->error_type != NULL ? call->error_type : "Error", message, cause);
      if (call->info != NULL && call->info->url != NULL)
        {
          g_autofree char *url = ow_redact (call->info->url);
          fprintf (r->errors, "  request: %s (HTTP %u%s%s)\n", url, call->info->status,
                   call->info->host != NULL ? " from " : "", call->info->host != NULL ? call->info->host : "");
        }
      if (call->retry_in >= 0)
        fprintf (r->errors, "  retrying in %.3g s\n", call->retry_in);
      else if (!g_str_equal (call->status, "cancelled"))
        fprintf (r->errors, "  not retried\n");
      fflush (r->errors);
    }
}

void
ow_run_record_answer (OwRunRecord *r, JsonObject *answer)
{
  json_array_add_object_element (r->answers, json_object_ref (answer));
}

GPtrArray *
ow_run_record_get_call_facts (OwRunRecord *r)
{
  return r->facts;
}

guint
ow_run_record_get_n_calls (OwRunRecord *r)
{
  return r->n_calls;
}

guint
ow_run_record_get_n_retries (OwRunRecord *r)
{
  return r->n_retries;
}

JsonArray *
ow_run_record_dup_hosts (OwRunRecord *r)
{
  JsonArray *arr = json_array_new ();

  for (guint i = 0; i < r->hosts->len; i++)
    json_array_add_string_element (arr, g_ptr_array_index (r->hosts, i));
  return arr;
}

void
ow_run_record_get_totals (OwRunRecord *r, OwUsage *usage, double *cost, gboolean *all_priced)
{
  *usage = r->usage;
  *cost = r->cost;
  *all_priced = r->all_priced && r->facts->len > 0;
}

gboolean
ow_run_record_write_json (OwRunRecord *r, const char *name, JsonNode *node, GError **error)
{
  g_autofree char *path = g_build_filename (r->dir, name, NULL);
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *text = NULL;
  g_autofree char *safe = NULL;

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 2);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, NULL);
  safe = ow_redact (text);
  g_clear_pointer (&text, g_free);   /* a long run's record is large: one copy at a time */
  return ow_write_file_atomic (path, safe, -1, 0644, error);
}

gboolean
ow_run_record_write_answers (OwRunRecord *r, GError **error)
{
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), r->answers);
  return ow_run_record_write_json (r, "answers.json", node, error);
}
