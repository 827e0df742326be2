/* ow-run.c: `openworker run` (see ow-run.h).
 *
 * The run is one main loop: the agent streams and calls tools on it, the
 * attendant reads the terminal on it, SIGINT/SIGTERM and the wall-clock
 * limit arrive on it as sources that cancel the turn. However the turn
 * ends, the record is completed before the exit code is returned.
 */
#define G_LOG_DOMAIN "ow-run"

#include "headless/ow-run.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/ow-agent.h"
#include "core/ow-context.h"
#include "core/ow-coworker.h"
#include "core/ow-session-recipe.h"
#include "headless/ow-atif.h"
#include "headless/ow-headless-attendant.h"
#include "headless/ow-run-record.h"
#include "mcp/ow-mcp-provider.h"
#include "ow-error.h"
#include "ow-redact.h"
#include "ow-session-marker.h"
#include "ow-terminal.h"
#include "store/ow-model-config.h"
#include "policy/ow-inbox.h"
#include "policy/ow-safety.h"
#include "sandbox/ow-session-sandbox.h"

typedef struct {
  /* command line */
  char     *prompt;
  char     *prompt_file;
  char     *workspace;
  char    **add_dirs;
  char     *coworker;
  char     *model;
  char     *approval_mode;
  gboolean  auto_answer;
  char    **allow_sites;
  char     *allow_sites_file;
  char     *out;
  gboolean  isolated;
  char     *reasoning_effort;
  gint64    max_output_tokens;
  gint64    max_iterations;
  gint64    timeout_seconds;
  gboolean  no_web_tools;
  gint64    tool_result_max_bytes;
  char     *provider_order;
  char     *trajectory_atif;
  char     *mcp_config;

  /* resolved */
  char     *task;            /* the prompt text */
  const char *task_source;   /* "prompt", "prompt-file", "stdin" */
  char     *workspace_abs;
  GPtrArray *sites;          /* char*: --allow-site and --allow-sites-file entries */
  gboolean   web_tools;      /* web_search and web_fetch were offered */
  char      *sandbox;        /* sandbox_provider in force */
  char      *enforcement;    /* what protected the machine from the tools */
  GError    *start_error;    /* why the sandbox could not start */
  gboolean   sandbox_done;   /* start finished (either way) */
  const char *mode;          /* canonical approval mode */

  /* the run */
  GMainLoop    *loop;
  GCancellable *cancellable;
  gboolean      by_signal;
  gboolean      by_timeout;
  guint         n_signals;
  OwTurnResult *result;
  OwRunRecord  *record;
  guint         tool_calls;
  GHashTable   *tool_status;  /* status → count */
  gint64        progress_shown_us;  /* when the last progress line was printed (monotonic) */
  gboolean      progress_open;      /* a terminal's progress bar is on the current line */
  gint64        started_us;
  gint64        context_size;  /* the window the model was given (saved setting), 0 = provider's */
  gint64        compaction_trigger; /* tokens at which the history is compacted */
  const char   *attendance;    /* who answered: "attended", "auto", "inbox" */
  OwAgent      *parks;         /* borrowed: with the inbox, a signal parks this agent's turn */
  char         *last_retry_cause; /* the provider error last shown, so it is said once */
} Run;

static void
run_clear (Run *r)
{
  g_free (r->prompt);
  g_free (r->prompt_file);
  g_free (r->workspace);
  g_strfreev (r->add_dirs);
  g_free (r->coworker);
  g_free (r->model);
  g_free (r->approval_mode);
  g_strfreev (r->allow_sites);
  g_free (r->allow_sites_file);
  g_free (r->sandbox);
  g_free (r->enforcement);
  g_clear_error (&r->start_error);
  g_free (r->out);
  g_free (r->reasoning_effort);
  g_free (r->provider_order);
  g_free (r->trajectory_atif);
  g_free (r->mcp_config);
  g_free (r->task);
  g_free (r->workspace_abs);
  g_clear_pointer (&r->sites, g_ptr_array_unref);
  g_clear_pointer (&r->loop, g_main_loop_unref);
  g_clear_object (&r->cancellable);
  g_clear_pointer (&r->result, ow_turn_result_free);
  g_clear_pointer (&r->record, ow_run_record_free);
  g_clear_pointer (&r->tool_status, g_hash_table_unref);
  g_free (r->last_retry_cause);
}

/* The modes a run offers (--help lists them); plan and discuss are not
 * among them, and a config naming one is refused rather than quietly
 * replaced by another mode. */
static gboolean
run_mode_usable (const char *mode)
{
  return mode != NULL && !g_str_equal (mode, "plan") && !g_str_equal (mode, "discuss");
}

static int G_GNUC_PRINTF (1, 2)
usage_error (const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "openworker run: %s\n", msg);
  return OW_EXIT_USAGE;
}

/* Writes to the terminal through the same redaction as the record: a
 * terminal's scrollback and a CI log are records too. */
static void G_GNUC_PRINTF (2, 3)
show (FILE *out, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *text = NULL;
  g_autofree char *safe = NULL;

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  safe = ow_redact (text);
  fputs (safe, out);
}

static void G_GNUC_PRINTF (1, 2)
say (const char *fmt, ...)
{
  va_list ap;
  g_autofree char *text = NULL;

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  show (stderr, "openworker: %s\n", text);
}

static const char *const efforts[] = { "none", "minimal", "low", "medium", "high", "xhigh", "max", NULL };

/* ---- Reading the task and the flags ------------------------------------ */

static char *
read_all (int fd, GError **error)
{
  g_autoptr(GString) s = g_string_new (NULL);
  char buf[65536];

  for (;;)
    {
      ssize_t n = read (fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      g_string_append_len (s, buf, n);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
valid_site (const char *site)
{
  const char *colon = strrchr (site, ':');
  g_autofree char *host = colon != NULL ? g_strndup (site, colon - site) : g_strdup (site);

  if (*host == '\0' || strchr (host, '*') != NULL || strchr (host, '/') != NULL || strchr (host, ' ') != NULL)
    return FALSE;
  if (colon != NULL)
    {
      char *end = NULL;
      long port = strtol (colon + 1, &end, 10);
      if (end == colon + 1 || *end != '\0' || port < 1 || port > 65535)
        return FALSE;
    }
  return TRUE;
}

static int
resolve_options (Run *r)
{
  g_autoptr(GError) error = NULL;
  gboolean piped = !isatty (STDIN_FILENO);

  if (r->prompt != NULL && r->prompt_file != NULL)
    return usage_error ("give the task with --prompt or --prompt-file, not both.");
  if (r->prompt != NULL)
    {
      r->task = g_strdup (r->prompt);
      r->task_source = "prompt";
    }
  else if (r->prompt_file != NULL && !g_str_equal (r->prompt_file, "-"))
    {
      if (!g_file_get_contents (r->prompt_file, &r->task, NULL, &error))
        return usage_error ("could not read the task from --prompt-file %s: %s", r->prompt_file, error->message);
      r->task_source = "prompt-file";
    }
  else if (r->prompt_file != NULL || piped)
    {
      r->task = read_all (STDIN_FILENO, &error);
      if (r->task == NULL)
        return usage_error ("could not read the task from standard input: %s", error->message);
      r->task_source = "stdin";
    }
  if (r->task == NULL || *g_strstrip (r->task) == '\0')
    return usage_error ("no task given. Pass --prompt TEXT or --prompt-file PATH, or pipe the task on standard "
                        "input (cat task.md | openworker run).");
  if (!g_utf8_validate (r->task, -1, NULL))
    return usage_error ("the task is not valid UTF-8 text.");

  if (r->coworker == NULL)
    r->coworker = g_strdup ("cowork");
  if (ow_coworker_lookup (r->coworker) == NULL)
    {
      g_autofree char *ids = g_strjoinv (", ", (char **) ow_coworker_ids ());
      return usage_error ("unknown coworker \"%s\". The coworkers here are: %s.", r->coworker, ids);
    }

  /* The flag is checked here, with the other flags; the mode itself is
   * decided once the config is read (see run ()). */
  if (r->approval_mode != NULL && !run_mode_usable (ow_approval_mode_canonical (r->approval_mode)))
    return usage_error ("--approval-mode must be ask, auto-approve, bypass-approvals or "
                        "dangerously-bypass-approvals (got \"%s\").", r->approval_mode);

  if (r->reasoning_effort != NULL && !g_strv_contains (efforts, r->reasoning_effort))
    return usage_error ("--reasoning-effort must be one of none, minimal, low, medium, high, xhigh, max (got \"%s\").",
                        r->reasoning_effort);
  if (r->max_iterations == 0 || r->max_iterations < -1)
    return usage_error ("--max-iterations must be at least 1.");
  if (r->max_output_tokens < -1 || r->max_output_tokens == 0)
    return usage_error ("--max-output-tokens must be at least 1.");
  if (r->timeout_seconds < -1)
    return usage_error ("--timeout-seconds must be 0 (no limit) or more.");
  if (r->tool_result_max_bytes < -1)
    return usage_error ("--tool-result-max-bytes must be 0 (no bound) or more.");

  if (r->isolated && (r->out == NULL || r->model == NULL))
    return usage_error ("--isolated reads nothing from this computer, so it needs --out DIR and --model ID.");

  {
    g_autofree char *ws = r->workspace != NULL ? g_strdup (r->workspace) : g_get_current_dir ();
    g_autofree char *abs = g_canonicalize_filename (ws, NULL);
    if (!g_file_test (abs, G_FILE_TEST_IS_DIR))
      return usage_error ("the workspace %s is not a folder.", abs);
    r->workspace_abs = g_steal_pointer (&abs);
  }
  for (guint i = 0; r->add_dirs != NULL && r->add_dirs[i] != NULL; i++)
    if (!g_file_test (r->add_dirs[i], G_FILE_TEST_IS_DIR))
      return usage_error ("--add-dir %s is not a folder.", r->add_dirs[i]);

  r->sites = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; r->allow_sites != NULL && r->allow_sites[i] != NULL; i++)
    {
      if (!valid_site (r->allow_sites[i]))
        return usage_error ("--allow-site %s is not HOST or HOST:PORT (exact host names, no wildcards).",
                            r->allow_sites[i]);
      g_ptr_array_add (r->sites, g_strdup (r->allow_sites[i]));
    }
  if (r->allow_sites_file != NULL)
    {
      g_autofree char *text = NULL;
      g_auto(GStrv) lines = NULL;
      if (!g_file_get_contents (r->allow_sites_file, &text, NULL, &error))
        return usage_error ("could not read --allow-sites-file: %s", error->message);
      lines = g_strsplit (text, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        {
          char *hash = strchr (lines[i], '#');
          if (hash != NULL)
            *hash = '\0';
          g_strstrip (lines[i]);
          if (*lines[i] == '\0')
            continue;
          if (!valid_site (lines[i]))
            return usage_error ("%s line %u: \"%s\" is not HOST or HOST:PORT.", r->allow_sites_file, i + 1, lines[i]);
          g_ptr_array_add (r->sites, g_strdup (lines[i]));
        }
    }
  return 0;
}

/* ---- Events → stderr and the record ------------------------------------- */

/* Under a command's step: the end of what it printed and, when it
 * failed, its exit code (the agent put both in tool_finished, redacted;
 * show() redacts again, as for every line). */
static void
show_shell_summary (JsonObject *d)
{
  const char *tail = json_object_get_string_member_with_default (d, "output_tail", NULL);
  gint64 hidden = json_object_get_int_member_with_default (d, "output_lines_hidden", 0);
  gint64 code = json_object_get_int_member_with_default (d, "exit_code", 0);

  if (tail != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (tail, "\n", -1);

      if (hidden > 0)
        show (stderr, "    │ … %" G_GINT64_FORMAT " earlier line%s\n", hidden, hidden == 1 ? "" : "s");
      for (guint i = 0; lines[i] != NULL; i++)
        show (stderr, "    │ %s\n", lines[i]);
    }
  if (code != 0)
    show (stderr, "    └ exit code %" G_GINT64_FORMAT "\n", code);
}

/* A tool's progress (MCP notifications/progress) under its step: at a
 * terminal one bar redrawn in place, elsewhere a line at most every half
 * second (and always the last one), so a chatty server cannot flood a log.
 * Every event is in events.jsonl either way. */
static void
show_progress (Run *r, JsonObject *d)
{
  double progress = json_object_get_double_member_with_default (d, "progress", 0);
  double total = json_object_get_double_member_with_default (d, "total", -1);
  const char *message = json_object_get_string_member_with_default (d, "message", NULL);
  gboolean tty = isatty (STDERR_FILENO);
  gboolean last = total > 0 && progress >= total;
  gint64 now = g_get_monotonic_time ();
  g_autofree char *text = message != NULL ? ow_terminal_escape (message, NULL, NULL) : NULL;
  g_autoptr(GString) line = g_string_new ("    ⋯ ");

  if (!tty && !last && r->progress_shown_us != 0 && now - r->progress_shown_us < G_USEC_PER_SEC / 2)
    return;
  r->progress_shown_us = now;
  if (total > 0)
    {
      double frac = CLAMP (progress / total, 0.0, 1.0);
      int filled = (int) (frac * 20 + 0.5);

      g_string_append_c (line, '[');
      for (int i = 0; i < 20; i++)
        g_string_append (line, i < filled ? "█" : "·");
      g_string_append_printf (line, "] %3d%% (%g/%g)", (int) (frac * 100 + 0.5), progress, total);
    }
  else
    g_string_append_printf (line, "%g", progress);
  if (text != NULL && text[0] != '\0')
    g_string_append_printf (line, " %s", text);
  if (tty)
    {
      show (stderr, "\r\033[K%s", line->str);
      r->progress_open = TRUE;
      if (last)
        {
          fputc ('\n', stderr);
          r->progress_open = FALSE;
        }
    }
  else
    show (stderr, "%s\n", line->str);
}

static void
on_session_event_cb (OwSession *session, OwEvent *event, gpointer user_data)
{
  Run *r = user_data;
  const char *type = event->type;
  JsonObject *d = event->data;

  ow_run_record_event (r->record, event);

  if (r->progress_open && !g_str_equal (type, "tool_progress"))
    {
      /* The next line starts below the bar. */
      fputc ('\n', stderr);
      r->progress_open = FALSE;
    }
  if (g_str_equal (type, "tool_progress"))
    show_progress (r, d);
  else if (g_str_equal (type, "tool_started"))
    {
      r->tool_calls++;
    }
  else if (g_str_equal (type, "tool_proposed"))
    {
      const char *name = json_object_get_string_member_with_default (d, "name", "?");
      JsonObject *args = json_object_get_object_member (d, "arguments");
      g_autofree char *shown = NULL, *shown_name = NULL, *escaped = NULL;
      if (args != NULL && json_object_has_member (args, "command"))
        shown = g_strdup (json_object_get_string_member_with_default (args, "command", ""));
      else if (args != NULL && json_object_has_member (args, "path"))
        shown = g_strdup (json_object_get_string_member_with_default (args, "path", ""));
      else
        shown = g_strdup ("");
      /* Redacted before it is cut: a key cut in half is no longer found. */
      {
        char *safe = ow_redact (shown);
        g_free (shown);
        shown = safe;
      }
      if (g_utf8_strlen (shown, -1) > 120)
        {
          g_autofree char *head = g_utf8_substring (shown, 0, 120);
          g_free (shown);
          shown = g_strconcat (head, "…", NULL);
        }
      /* The line above an approval prompt: it must show the same command. */
      shown_name = ow_terminal_escape (name, NULL, NULL);
      escaped = ow_terminal_escape (shown, NULL, NULL);
      show (stderr, "  • %s %s\n", shown_name, escaped);
    }
  else if (g_str_equal (type, "tool_finished"))
    {
      const char *status = json_object_get_string_member_with_default (d, "status", "ok");
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (r->tool_status, status));
      g_hash_table_insert (r->tool_status, g_strdup (status), GUINT_TO_POINTER (n + 1));
      show_shell_summary (d);
      if (!g_str_equal (status, "ok"))
        {
          g_autofree char *reason = ow_terminal_escape (json_object_get_string_member_with_default (d, "reason", ""),
                                                        NULL, NULL);
          show (stderr, "    ✗ %s%s%s\n", status, json_object_has_member (d, "reason") ? ": " : "", reason);
        }
    }
  else if (g_str_equal (type, "assistant_message"))
    {
      JsonArray *calls = json_object_get_array_member (d, "tool_calls");
      const char *text = json_object_get_string_member_with_default (d, "text", "");
      /* Narration before tool calls is progress; the final answer goes to stdout. */
      if (calls != NULL && json_array_get_length (calls) > 0 && *text != '\0')
        {
          g_autofree char *narration = ow_terminal_escape (text, "  ", NULL);
          show (stderr, "› %s\n", narration);
        }
    }
  else if (g_str_equal (type, "tool_calls_capped"))
    {
      fprintf (stderr, "openworker: the model asked for %" G_GINT64_FORMAT " tool calls in one reply; the first %"
               G_GINT64_FORMAT " ran, the other %" G_GINT64_FORMAT " were answered without running (limit %"
               G_GINT64_FORMAT " per reply)\n",
               json_object_get_int_member_with_default (d, "requested", 0),
               json_object_get_int_member_with_default (d, "run", 0),
               json_object_get_int_member_with_default (d, "not_run", 0),
               json_object_get_int_member_with_default (d, "limit", 0));
    }
  else if (g_str_equal (type, "provider_retry"))
    {
      const char *message = json_object_get_string_member_with_default (d, "error", "");
      const char *cause = json_object_get_string_member_with_default (d, "cause", "");
      g_autofree char *said = g_strconcat (message, "\n", cause, NULL);
      g_autofree char *retry = g_strdup_printf ("retry %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " in %gs",
                                                json_object_get_int_member_with_default (d, "attempt", 0),
                                                json_object_get_int_member_with_default (d, "max_attempts", 0),
                                                json_object_get_double_member_with_default (d, "delay_seconds", 0));

      /* The cause once; the retries after it only count, until the cause
       * changes (an unreachable host fails the same way every time). A
       * cause the message already quotes (after its "POST URL: ") is not
       * said again either. */
      if (g_strcmp0 (said, r->last_retry_cause) == 0)
        show (stderr, "openworker: %s\n", retry);
      else if (*cause == '\0' || strstr (message, cause) != NULL
               || (strstr (cause, ": ") != NULL && strstr (message, strstr (cause, ": ") + 2) != NULL))
        show (stderr, "openworker: provider error (%s: %s); %s\n",
              json_object_get_string_member_with_default (d, "error_type", "Error"), message, retry);
      else
        show (stderr, "openworker: provider error (%s: %s Cause: %s); %s\n",
              json_object_get_string_member_with_default (d, "error_type", "Error"), message, cause, retry);
      g_free (r->last_retry_cause);
      r->last_retry_cause = g_steal_pointer (&said);
    }
  else if (g_str_equal (type, "safety_check_cleared"))
    {
      /* dangerously-bypass-approvals answered a safety check for the person. */
      JsonObject *a = json_object_new ();
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      g_autofree char *ts = g_date_time_format_iso8601 (now);
      json_object_set_string_member (a, "ts", ts);
      json_object_set_string_member (a, "kind", "safety_check");
      json_object_set_string_member (a, "tool", json_object_get_string_member_with_default (d, "name", ""));
      json_object_set_object_member (a, "request", json_object_ref (d));
      json_object_set_string_member (a, "answer", "cleared by mode");
      json_object_set_string_member (a, "answered_by", "mode dangerously-bypass-approvals");
      ow_run_record_answer (r->record, a);
      json_object_unref (a);
      show (stderr, "    ! safety check cleared by mode\n");
    }
  else if (g_str_equal (type, "review_finished"))
    {
      g_autofree char *verdict = ow_terminal_escape (json_object_get_string_member_with_default (d, "verdict", ""),
                                                     NULL, NULL);
      g_autofree char *reasoning = ow_terminal_escape (json_object_get_string_member_with_default (d, "reasoning", ""),
                                                       NULL, NULL);
      show (stderr, "    reviewer: %s — %s\n", verdict, reasoning);
    }
  else if (g_str_equal (type, "reviewer_paused"))
    {
      show (stderr, "openworker: the reviewer denied %" G_GINT64_FORMAT " calls in a row and is paused; a person decides "
               "from here on.\n", json_object_get_int_member_with_default (d, "denials", 0));
    }
  else if (g_str_equal (type, "error"))
    {
      show (stderr, "openworker: error: %s\n", json_object_get_string_member_with_default (d, "error", ""));
    }
}

static void
on_model_call_cb (OwAgent *agent, const OwModelCall *call, gpointer user_data)
{
  Run *r = user_data;
  ow_run_record_model_call (r->record, call);
}

static void
on_inbox_item_cb (OwInbox *inbox, const char *id, gpointer user_data)
{
  g_autoptr(OwInboxItem) item = ow_inbox_get (inbox, id, NULL);

  if (item != NULL)
    {
      g_autofree char *title = ow_terminal_escape (item->title, NULL, NULL);

      fprintf (stderr, "openworker: waiting in the inbox for a person: %s\n"
               "  answer with: openworker inbox answer %s once|session|always|deny\n", title, id);
    }
}

static void
on_answer_cb (JsonObject *answer, gpointer user_data)
{
  Run *r = user_data;
  ow_run_record_answer (r->record, answer);
}

/* ---- Stopping ----------------------------------------------------------- */

static gboolean
on_signal_cb (gpointer user_data)
{
  Run *r = user_data;

  r->n_signals++;
  if (r->n_signals > 1)
    {
      /* A second signal while the record is being written: the person
       * really wants out. What was written line by line stays. */
      fprintf (stderr, "\nopenworker: stopped again; exiting without finishing the record.\n");
      _exit (OW_EXIT_INTERRUPTED);
    }
  if (!r->by_timeout)
    r->by_signal = TRUE;
  fprintf (stderr, "\nopenworker: stopping (writing the record)…\n");
  /* An ask parked in the inbox is not withdrawn by a stop: it stays
   * pending, and the record says the run was parked on it. */
  if (r->parks != NULL)
    ow_agent_park (r->parks);
  g_cancellable_cancel (r->cancellable);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_timeout_cb (gpointer user_data)
{
  Run *r = user_data;

  if (!r->by_signal)
    {
      r->by_timeout = TRUE;
      fprintf (stderr, "openworker: the time limit of %" G_GINT64_FORMAT " s was reached; stopping.\n",
               r->timeout_seconds);
    }
  g_cancellable_cancel (r->cancellable);
  return G_SOURCE_REMOVE;
}

static void
on_turn_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *r = user_data;
  g_autoptr(GError) error = NULL;

  r->result = ow_agent_run_finish (OW_AGENT (source), result, &error);
  if (r->result == NULL)
    {
      r->result = g_new0 (OwTurnResult, 1);
      r->result->outcome = OW_OUTCOME_MODEL_ERROR;
      r->result->error = g_strdup (error->message);
      r->result->error_type = g_strdup ("Error");
    }
  g_main_loop_quit (r->loop);
}

/* ---- The record's documents --------------------------------------------- */

static const char *
outcome_name (Run *r)
{
  if (r->result->outcome == OW_OUTCOME_INTERRUPTED)
    return r->by_timeout ? "timeout" : "interrupted";
  return ow_outcome_to_string (r->result->outcome);
}

static int
exit_code (Run *r)
{
  switch (r->result->outcome)
    {
    case OW_OUTCOME_COMPLETED:
      return OW_EXIT_OK;
    case OW_OUTCOME_INTERRUPTED:
    case OW_OUTCOME_PARKED:
      return r->by_timeout ? OW_EXIT_EARLY : OW_EXIT_INTERRUPTED;
    default:
      return OW_EXIT_EARLY;
    }
}

static JsonObject *
build_summary (Run *r, OwContext *ctx, OwSession *session, const char *provider_id, gint64 iterations_cap,
               gint64 result_max, gboolean terminal)
{
  JsonObject *s = json_object_new ();
  JsonObject *args = json_object_new ();
  JsonObject *tokens = json_object_new ();
  JsonObject *by_status = json_object_new ();
  JsonArray *extra = json_array_new ();
  JsonArray *sites = json_array_new ();
  OwUsage u;
  double cost;
  gboolean priced;
  GHashTableIter iter;
  gpointer key, value;
  g_autoptr(GDateTime) start = g_date_time_new_from_unix_utc (r->started_us / G_USEC_PER_SEC);
  g_autofree char *started = g_date_time_format_iso8601 (start);
  g_autoptr(GDateTime) end = g_date_time_new_now_utc ();
  g_autofree char *finished = g_date_time_format_iso8601 (end);

  json_object_set_string_member (s, "outcome", outcome_name (r));
  json_object_set_int_member (s, "exit_code", exit_code (r));
  if (r->result->error != NULL)
    {
      json_object_set_string_member (s, "error", r->result->error);
      json_object_set_string_member (s, "error_type", r->result->error_type);
    }
  json_object_set_string_member (s, "session_id", ow_session_get_id (session));
  json_object_set_string_member (s, "coworker", r->coworker);
  json_object_set_string_member (s, "model", ow_session_get_model (session));
  json_object_set_string_member (s, "provider", provider_id);
  json_object_set_string_member (s, "approval_mode", r->mode);
  json_object_set_string_member (s, "attendance", r->attendance);
  json_object_set_boolean_member (s, "terminal", terminal);
  json_object_set_int_member (s, "iterations", r->result->iterations);
  json_object_set_int_member (s, "tool_calls", r->tool_calls);
  g_hash_table_iter_init (&iter, r->tool_status);
  while (g_hash_table_iter_next (&iter, &key, &value))
    json_object_set_int_member (by_status, key, GPOINTER_TO_UINT (value));
  json_object_set_object_member (s, "tool_results", by_status);
  json_object_set_int_member (s, "model_calls", ow_run_record_get_n_calls (r->record));
  json_object_set_int_member (s, "retries", ow_run_record_get_n_retries (r->record));

  ow_run_record_get_totals (r->record, &u, &cost, &priced);
  json_object_set_int_member (tokens, "input", u.input);
  json_object_set_int_member (tokens, "output", u.output);
  json_object_set_int_member (tokens, "cache_read", u.cache_read);
  json_object_set_int_member (tokens, "cache_write", u.cache_write);
  json_object_set_int_member (tokens, "reasoning", u.reasoning);
  json_object_set_int_member (tokens, "prompt_total", u.input + u.cache_read + u.cache_write);
  json_object_set_object_member (s, "tokens", tokens);
  if (priced)
    json_object_set_double_member (s, "cost_usd", cost);
  else
    json_object_set_null_member (s, "cost_usd");
  json_object_set_string_member (s, "cost_note", priced
    ? "estimated from OpenWorker's prices table; price the token counts yourself for billing"
    : "no estimate: the model is not in OpenWorker's prices table");

  /* The window is the saved context_size, else the size compaction
   * assumes for a model it knows nothing about. */
  json_object_set_int_member (s, "context_window",
                              r->context_size > 0 ? r->context_size : OW_COMPACTION_DEFAULT_WINDOW);
  json_object_set_int_member (s, "compaction_trigger", r->compaction_trigger);
  json_object_set_array_member (s, "hosts", ow_run_record_dup_hosts (r->record));
  json_object_set_boolean_member (s, "web_tools", r->web_tools);
  json_object_set_string_member (s, "sandbox", r->sandbox != NULL ? r->sandbox : "direct");
  json_object_set_string_member (s, "enforcement", r->enforcement != NULL ? r->enforcement : "none (direct)");
  json_object_set_double_member (s, "duration_seconds", (g_get_real_time () - r->started_us) / 1e6);
  json_object_set_string_member (s, "started_at", started);
  json_object_set_string_member (s, "finished_at", finished);
  json_object_set_string_member (s, "openworker_version", OW_VERSION);

  json_object_set_string_member (args, "task_source", r->task_source);
  json_object_set_string_member (args, "workspace", r->workspace_abs);
  for (guint i = 0; r->add_dirs != NULL && r->add_dirs[i] != NULL; i++)
    {
      g_autofree char *abs = g_canonicalize_filename (r->add_dirs[i], NULL);
      json_array_add_string_element (extra, abs);
    }
  json_object_set_array_member (args, "extra_dirs", extra);
  json_object_set_string_member (args, "coworker", r->coworker);
  json_object_set_string_member (args, "model", ow_session_get_model (session));
  json_object_set_string_member (args, "approval_mode", r->mode);
  json_object_set_boolean_member (args, "auto_answer", r->auto_answer);
  for (guint i = 0; i < r->sites->len; i++)
    json_array_add_string_element (sites, g_ptr_array_index (r->sites, i));
  json_object_set_array_member (args, "allow_sites", sites);
  json_object_set_string_member (args, "out", ow_run_record_get_dir (r->record));
  json_object_set_boolean_member (args, "isolated", r->isolated);
  if (r->reasoning_effort != NULL)
    json_object_set_string_member (args, "reasoning_effort", r->reasoning_effort);
  else
    json_object_set_null_member (args, "reasoning_effort");
  if (r->max_output_tokens > 0)
    json_object_set_int_member (args, "max_output_tokens", r->max_output_tokens);
  else
    json_object_set_null_member (args, "max_output_tokens");
  json_object_set_int_member (args, "max_iterations", iterations_cap);
  json_object_set_int_member (args, "timeout_seconds", MAX (r->timeout_seconds, 0));
  json_object_set_boolean_member (args, "no_web_tools", r->no_web_tools);
  json_object_set_int_member (args, "tool_result_max_bytes", result_max);
  if (r->provider_order != NULL)
    json_object_set_string_member (args, "provider_order", r->provider_order);
  if (r->trajectory_atif != NULL)
    json_object_set_string_member (args, "trajectory_atif", r->trajectory_atif);
  json_object_set_object_member (s, "args", args);
  return s;
}

static const char *
last_answer (OwSession *session)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (session));

  for (guint i = n; i > 0; i--)
    {
      JsonObject *m = ow_session_get_message_json (session, i - 1);
      if (g_str_equal (json_object_get_string_member_with_default (m, "role", ""), "assistant"))
        return json_object_get_string_member_with_default (m, "content", "");
    }
  return "";
}

static gboolean
write_documents (Run *r, OwContext *ctx, OwSession *session, OwAgent *agent, JsonArray *tool_defs,
                 const char *provider_id, gint64 iterations_cap, gint64 result_max, gboolean terminal)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) summary = build_summary (r, ctx, session, provider_id, iterations_cap, result_max, terminal);
  g_autoptr(JsonNode) summary_node = json_node_init_object (json_node_alloc (), summary);
  g_autoptr(JsonArray) history = ow_session_dup_history (session);
  g_autoptr(JsonNode) messages_node = json_node_init_array (json_node_alloc (), history);
  g_autoptr(JsonObject) extra = json_object_new ();
  g_autoptr(JsonObject) traj = NULL;
  g_autoptr(JsonNode) traj_node = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autofree char *audit_path = g_build_filename (ow_run_record_get_dir (r->record), "audit.db", NULL);
  OwAtifInput input = {
    .session_id = ow_session_get_id (session),
    .agent_version = OW_VERSION,
    .model_name = ow_session_get_model (session),
    .reasoning_effort = r->reasoning_effort,
    .tool_definitions = tool_defs,
    .call_facts = ow_run_record_get_call_facts (r->record),
    .extra = extra,
  };
  gboolean ok = TRUE;

  json_object_set_string_member (extra, "outcome", outcome_name (r));
  json_object_set_int_member (extra, "exit_code", exit_code (r));
  json_object_set_string_member (extra, "approval_mode", r->mode);
  json_object_set_string_member (extra, "coworker", r->coworker);
  traj = ow_atif_build (session, &input);
  traj_node = json_node_init_object (json_node_alloc (), traj);

  if (!ow_atif_validate (traj_node, &problems))
    {
      say ("internal error: the trajectory does not pass the ATIF-v1.7 rules; it is saved as "
           "trajectory.invalid.json. Problems:");
      for (guint i = 0; i < problems->len; i++)
        fprintf (stderr, "  - %s\n", (char *) g_ptr_array_index (problems, i));
      ow_run_record_write_json (r->record, "trajectory.invalid.json", traj_node, NULL);
      ok = FALSE;
    }
  else if (!ow_run_record_write_json (r->record, "trajectory.json", traj_node, &error))
    {
      say ("could not write trajectory.json: %s", error->message);
      g_clear_error (&error);
      ok = FALSE;
    }
  if (r->trajectory_atif != NULL && ok)
    {
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autofree char *text = NULL;
      json_generator_set_pretty (gen, TRUE);
      json_generator_set_root (gen, traj_node);
      text = json_generator_to_data (gen, NULL);
      if (!ow_write_file_atomic (r->trajectory_atif, text, -1, 0644, &error))
        {
          say ("could not write --trajectory-atif %s: %s", r->trajectory_atif, error->message);
          g_clear_error (&error);
        }
    }
  if (!ow_run_record_write_json (r->record, "messages.json", messages_node, &error)
      || !ow_run_record_write_answers (r->record, &error)
      || !ow_run_record_write_json (r->record, "summary.json", summary_node, &error))
    {
      say ("could not complete the record: %s", error->message);
      g_clear_error (&error);
      ok = FALSE;
    }
  g_unlink (audit_path);
  if (!ow_audit_log_export_session (ow_context_get_audit (ctx), ow_session_get_id (session), audit_path, &error))
    {
      say ("could not write audit.db: %s", error->message);
      g_clear_error (&error);
      ok = FALSE;
    }
  return ok;
}

/* ---- The run ------------------------------------------------------------ */

static char *
default_record_dir (OwContext *ctx, const char *workspace, const char *session_id)
{
  g_autofree char *dashed = g_strdup (workspace);

  g_strdelimit (dashed, "/\\:", '-');
  return g_build_filename (ow_context_get_paths (ctx)->state_dir, "sessions", dashed, session_id, NULL);
}

static void
on_sandbox_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *r = user_data;

  ow_session_sandbox_start_finish (OW_SESSION_SANDBOX (source), result, &r->start_error);
  r->sandbox_done = TRUE;
}

static int
run (Run *r)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwPaths) paths = NULL;
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwProvider) provider = NULL;
  g_autoptr(OwSession) session = NULL;
  g_autoptr(OwSessionSandbox) sandbox = NULL;
  g_autoptr(OwPolicy) policy = NULL;
  g_autoptr(OwAttendant) attendant = NULL;
  g_autoptr(OwAgent) agent = NULL;
  g_autoptr(JsonArray) tool_defs = NULL;
  g_autofree char *bare = NULL;
  g_autofree char *record_dir = NULL;
  g_autofree char *spill = NULL;
  g_autoptr(GPtrArray) mcp_providers = NULL;  /* OwMcpProvider* */
  g_autoptr(GPtrArray) mcp_list = g_ptr_array_new ();  /* the same, NULL-terminated, borrowed */
  g_autoptr(OwModelConfig) model_config = NULL;
  g_auto(OwModelSettings) settings = { 0 };
  const OwProviderEntry *entry = NULL;
  const OwCoworker *coworker = ow_coworker_lookup (r->coworker);
  const char *model;
  g_autofree char *default_model = NULL;
  gint64 iterations_cap = 150, result_max;
  int tty = -1;
  guint sigint_id, sigterm_id, timeout_id = 0;
  gboolean terminal, ok;
  const char *attendance;
  g_autoptr(OwInbox) inbox = NULL;
  int code;

  if (r->isolated)
    {
      g_autofree char *root = g_build_filename (r->out, "state", NULL);
      paths = ow_paths_new_under (root);
    }
  else
    paths = ow_paths_new_default ();
  {
    /* Saved keys: the OS keyring or the sealed file, chosen on first use
     * (never for --isolated, which reads nothing from this computer). */
    g_autoptr(OwSecretStore) secrets = r->isolated ? NULL : ow_secret_store_new_default (paths);
    OwContextOptions options = { .paths = paths, .isolated = r->isolated, .project_dir = r->workspace_abs,
                                 .secrets = secrets };
    ctx = ow_context_new (&options, &error);
  }
  if (ctx == NULL)
    return usage_error ("%s", error->message);
  {
    /* The same rule as the server's sessions: the flag, else config.toml's
     * approval_mode, else ask. --isolated reads no config. Only the config
   * can be unusable here: the flag was checked. */
    r->mode = ow_approval_mode_effective (r->approval_mode, r->isolated ? NULL : ow_context_get_config (ctx));
    if (!run_mode_usable (r->mode))
      return usage_error ("approval_mode = \"%s\" in config.toml cannot be used by openworker run: a run needs ask, "
                          "auto-approve, bypass-approvals or dangerously-bypass-approvals. Pass --approval-mode, or "
                          "change the config.", r->mode != NULL ? r->mode : "?");
    /* A run that answers approvals by itself is a grant of authority: a
     * session must not start one to get past its own approvals. */
    if (!g_str_equal (r->mode, "ask"))
      {
        g_autofree char *why = NULL;

        if (ow_session_marker_find (&why))
          return usage_error ("this command was started by an OpenWorker session (%s); only a person can "
                              "start a run in --approval-mode %s. Nothing was run. Start it yourself in a "
                              "terminal that no session started, or run it in ask mode.", why, r->mode);
      }
  }

  if (r->isolated)
    model_config = ow_model_config_new_empty ();
  else
    {
      g_autofree char *mc_path = g_build_filename (ow_context_get_paths (ctx)->config_dir, "model_config.json", NULL);
      model_config = ow_model_config_load (mc_path, &error);
      if (model_config == NULL)
        return usage_error ("%s", error->message);
    }
  if (r->model != NULL)
    model = r->model;
  else
    model = default_model = ow_context_dup_default_model (ctx);
  if (model == NULL)
    return usage_error ("no model is set. Name one with --model provider:model (for example "
                        "--model anthropic:claude-sonnet-4-5), set OPENWORKER_MODEL, or set model in %s/config.toml, "
                        "and set that provider's key variable (for example ANTHROPIC_API_KEY).",
                        ow_context_get_paths (ctx)->config_dir);
  provider = ow_context_create_provider (ctx, model, &bare, &entry, &error);
  if (provider == NULL)
    return usage_error ("%s", error->message);
  if (ow_context_get_secrets (ctx) != NULL && ow_provider_get_api_key (provider) != NULL
      && entry->key_env != NULL && ow_context_provider_key_env (ctx, entry) == NULL)
    {
      g_autofree char *where = ow_secret_store_describe (ow_context_get_secrets (ctx));
      fprintf (stderr, "openworker: using the saved %s key. %s\n", entry->title, where);
    }
  if (r->provider_order != NULL && !g_str_equal (entry->id, "openrouter"))
    return usage_error ("--provider-order pins an upstream host on OpenRouter; the model %s is not an OpenRouter model.",
                        model);

  if (r->max_iterations > 0)
    iterations_cap = r->max_iterations;
  else
    ow_config_get_int (ow_context_get_config (ctx), "max_iterations", &iterations_cap);
  result_max = r->tool_result_max_bytes >= 0 ? r->tool_result_max_bytes : 10000;
  if (r->tool_result_max_bytes < 0)
    ow_config_get_int (ow_context_get_config (ctx), "tool_result_max_bytes", &result_max);

  {
    OwSessionSpec spec = {
      .workspace = r->workspace_abs,
      .model = model,
      .mode = r->mode,
      .coworker = r->coworker,
      .origin = "cli",
    };
    session = ow_session_new (ow_context_get_store (ctx), &spec, &error);
  }
  if (session == NULL)
    {
      say ("could not start the session: %s", error->message);
      return OW_EXIT_CRASH;
    }
  for (guint i = 0; r->add_dirs != NULL && r->add_dirs[i] != NULL; i++)
    if (!ow_session_add_root (session, r->add_dirs[i], TRUE, "added", &error))
      return usage_error ("--add-dir %s: %s", r->add_dirs[i], error->message);

  record_dir = r->out != NULL ? g_canonicalize_filename (r->out, NULL)
                              : default_record_dir (ctx, r->workspace_abs, ow_session_get_id (session));
  r->record = ow_run_record_open (record_dir, &error);
  if (r->record == NULL)
    {
      say ("could not create the record folder: %s", error->message);
      return OW_EXIT_CRASH;
    }

  tty = open ("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
  terminal = tty >= 0;
  attendance = r->isolated ? NULL : ow_config_get_string (ow_context_get_config (ctx), "attendance");
  if (g_strcmp0 (attendance, "inbox") == 0 && !r->auto_answer)
    {
      /* Asks park in the inbox until a person answers from any surface
       * (`openworker inbox answer`, the app, the browser). */
      inbox = ow_inbox_new (ow_context_get_store (ctx));
      attendant = ow_inbox_attendant_new (inbox);
      g_signal_connect (inbox, "item-added", G_CALLBACK (on_inbox_item_cb), r);
      r->attendance = "inbox";
    }
  else
    {
      if (g_strcmp0 (attendance, "auto") == 0 && terminal)
        {
          close (tty);
          tty = -1;
        }
      attendant = ow_headless_attendant_new (tty, r->auto_answer, g_str_equal (r->mode, "dangerously-bypass-approvals"),
                                             on_answer_cb, r);
      r->attendance = tty >= 0 ? (r->auto_answer ? "attended (questions by rule)" : "attended") : "auto";
    }
  /* Where the tools run: the machine's sandbox_provider decides (a
   * project's config cannot). A wall that cannot be proved refuses the run. */
  {
    g_auto(GStrv) protected_names = ow_safety_protected_names ();
    g_auto(GStrv) credential_paths = ow_safety_credential_paths (g_get_home_dir ());
    OwSessionSandboxOptions so = {
      .protected_names = (const char *const *) protected_names,
      .credential_paths = (const char *const *) credential_paths,
      .config = ow_context_get_config (ctx),
      .paths = ow_context_get_paths (ctx),
      .session_id = ow_session_get_id (session),
      .roots = ow_session_get_roots (session),
      .cwd = r->workspace_abs,
      .isolated = r->isolated,
    };
    g_ptr_array_add (r->sites, NULL);
    so.extra_sites = (const char *const *) r->sites->pdata;
    sandbox = ow_session_sandbox_new (&so, &error);
    g_ptr_array_set_size (r->sites, r->sites->len - 1);
    if (sandbox == NULL)
      return usage_error ("%s", error->message);
    r->sandbox = g_strdup (ow_session_sandbox_get_provider (sandbox));
  }
  policy = ow_policy_new (ow_context_get_config (ctx), ow_context_get_store (ctx), &error);
  if (policy == NULL)
    return usage_error ("%s", error->message);
  /* Saved per-model settings apply unless a flag on the run says otherwise. */
  ow_model_config_lookup (model_config, model, &settings);
  if (r->max_output_tokens <= 0 && settings.max_output_tokens > 0)
    r->max_output_tokens = settings.max_output_tokens;
  if (r->reasoning_effort == NULL && settings.reasoning_effort != NULL)
    r->reasoning_effort = g_strdup (settings.reasoning_effort);
  spill = g_build_filename (record_dir, "tool-output", NULL);
  /* The MCP servers: --mcp-config's alone, else the machine's (and a
   * trusted workspace's); an isolated run reads none of this computer's. */
  {
    g_autoptr(GPtrArray) configs = NULL;
    g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
    g_autoptr(GPtrArray) roots = g_ptr_array_new ();
    GPtrArray *session_roots = ow_session_get_roots (session);

    if (r->mcp_config != NULL && !g_file_test (r->mcp_config, G_FILE_TEST_IS_REGULAR))
      return usage_error ("--mcp-config %s: no such file.", r->mcp_config);
    for (guint i = 0; session_roots != NULL && i < session_roots->len; i++)
      g_ptr_array_add (roots, ((OwRoot *) g_ptr_array_index (session_roots, i))->path);
    g_ptr_array_add (roots, NULL);
    configs = ow_mcp_configs_for_session (r->isolated ? NULL : ow_context_get_paths (ctx), r->workspace_abs,
                                          r->mcp_config, (const char *const *) roots->pdata, &error);
    if (configs == NULL)
      return usage_error ("%s", error->message);
    /* HTTP servers sign in through the machine's OwOAuth; an isolated run
     * uses none of this computer's credentials. */
    mcp_providers = ow_mcp_start_servers (configs, r->isolated ? NULL : ow_context_get_oauth (ctx), problems);
    for (guint i = 0; i < problems->len; i++)
      say ("%s", (const char *) g_ptr_array_index (problems, i));
    for (guint i = 0; i < mcp_providers->len; i++)
      g_ptr_array_add (mcp_list, g_ptr_array_index (mcp_providers, i));
    g_ptr_array_add (mcp_list, NULL);
  }
  {
    OwSessionRecipe recipe = {
      .context = ctx,
      .session = session,
      .coworker = coworker,
      .provider = provider,
      .bare_model = bare,
      .sandbox = sandbox,
      .policy = policy,
      .attendant = attendant,
      .no_web_tools = r->no_web_tools,
      .web_search_provider = r->isolated ? NULL : ow_config_get_string (ow_context_get_config (ctx),
                                                                         "web_search_provider"),
      .max_iterations = (guint) CLAMP (iterations_cap, 1, G_MAXUINT),
      .settings = &settings,
      .max_output_tokens = r->max_output_tokens,
      .reasoning_effort = r->reasoning_effort,
      .provider_order = r->provider_order,
      .result_max = (gsize) result_max,
      .spill_dir = spill,
      .tool_providers = (OwToolProvider *const *) mcp_list->pdata,
    };

    agent = ow_session_recipe_build (&recipe, &error);
    if (agent == NULL)
      {
        say ("could not set up the agent: %s", error->message);
        return OW_EXIT_CRASH;
      }
  }
  r->web_tools = !r->no_web_tools;
  tool_defs = ow_tool_registry_dup_definitions (ow_agent_get_tools (agent));
  if (g_str_equal (r->mode, "auto-approve"))
    {
      /* The reviewer: reviewer_model from config, else the run's own model. */
      const char *reviewer_model = r->isolated ? NULL : ow_config_get_string (ow_context_get_config (ctx), "reviewer_model");

      g_autofree char *reviewer_bare = NULL;
      g_autoptr(OwProvider) reviewer_provider = ow_context_create_provider (ctx, reviewer_model != NULL ? reviewer_model : model,
                                                                           &reviewer_bare, NULL, &error);
      if (reviewer_provider == NULL)
        return usage_error ("the reviewer model cannot be used: %s", error->message);
      ow_session_recipe_add_reviewer (agent, coworker, reviewer_provider, reviewer_bare);
    }
  r->context_size = settings.context_size;
  r->compaction_trigger = ow_agent_get_compaction_trigger (agent);
  /* The wall is built for the folders the agent ended up with (the spill
   * folder included), and proved before the first model call. */
  if (!g_str_equal (r->sandbox, "direct"))
    {
      g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
      ow_session_sandbox_start_async (sandbox, NULL, on_sandbox_started_cb, r);
      while (!r->sandbox_done)
        g_main_context_iteration (context, TRUE);
      if (r->start_error != NULL)
        {
          say ("the %s sandbox could not be started, so the run was refused (it never runs without the wall): %s",
               r->sandbox, r->start_error->message);
          return OW_EXIT_CRASH;
        }
      for (guint i = 0; i < ow_session_sandbox_get_skipped (sandbox)->len; i++)
        say ("credential not shared: %s", (char *) g_ptr_array_index (ow_session_sandbox_get_skipped (sandbox), i));
    }
  r->enforcement = g_strdup (ow_executor_get_enforcement (OW_EXECUTOR (sandbox)));
  if (g_str_has_prefix (r->enforcement, "parser only"))
    say ("WARNING: commands run without the command guard: %s. Only the safety checks' parser protects files "
         "outside the session's folders; `openworker machine sandbox status` says what is missing.",
         r->enforcement);
  g_signal_connect (session, "event", G_CALLBACK (on_session_event_cb), r);
  g_signal_connect (agent, "model-call", G_CALLBACK (on_model_call_cb), r);

  if (g_str_equal (r->mode, "dangerously-bypass-approvals"))
    say ("WARNING: --approval-mode dangerously-bypass-approvals grants every approval and switches the safety "
         "checks off. Use it only on a disposable machine or container.");
  if (inbox == NULL && tty < 0 && (g_str_equal (r->mode, "ask") || g_str_equal (r->mode, "auto-approve")))
    say ("no terminal: every approval that needs a person will be refused and recorded (mode %s). "
         "For a run with nobody present use --approval-mode auto-approve or bypass-approvals.", r->mode);
  say ("%s · %s · %s · session %s", r->coworker, model, r->mode, ow_session_get_id (session));

  r->loop = g_main_loop_new (NULL, FALSE);
  r->cancellable = g_cancellable_new ();
  r->tool_status = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sigint_id = g_unix_signal_add (SIGINT, on_signal_cb, r);
  sigterm_id = g_unix_signal_add (SIGTERM, on_signal_cb, r);
  if (r->timeout_seconds > 0)
    timeout_id = g_timeout_add_seconds ((guint) MIN (r->timeout_seconds, G_MAXUINT), on_timeout_cb, r);

  if (inbox != NULL)
    r->parks = agent;
  ow_agent_run_async (agent, r->task, r->cancellable, on_turn_done_cb, r);
  g_main_loop_run (r->loop);
  r->parks = NULL;
  if (r->result->outcome == OW_OUTCOME_PARKED)
    say ("stopped while an ask waited in the inbox: it stays pending there, and the record says the run was "
         "parked on it. This run does not go on by itself; start a new one to continue.");

  if (timeout_id != 0 && !r->by_timeout)
    g_source_remove (timeout_id);

  ok = write_documents (r, ctx, session, agent, tool_defs, entry->id, iterations_cap, result_max, terminal);
  code = ok ? exit_code (r) : OW_EXIT_CRASH;

  if (r->result->outcome == OW_OUTCOME_COMPLETED)
    {
      g_autofree char *answer = ow_redact (last_answer (session));
      fputs (answer, stdout);
      if (*answer != '\0' && answer[strlen (answer) - 1] != '\n')
        fputc ('\n', stdout);
      fflush (stdout);
    }
  {
    OwUsage u;
    double cost;
    gboolean priced;
    g_autofree char *cost_text = NULL;
    /* A refused call never started, so "completed · 0 tool calls" would
     * read as a success that needed nothing: the refusals are counted. */
    guint refused = GPOINTER_TO_UINT (g_hash_table_lookup (r->tool_status, "denied"));
    g_autofree char *refused_text = refused > 0
      ? g_strdup_printf (", %u refused", refused) : g_strdup ("");

    ow_run_record_get_totals (r->record, &u, &cost, &priced);
    cost_text = priced ? g_strdup_printf (" · est. $%.4f", cost) : g_strdup ("");
    say ("%s · %u iteration%s · %u tool call%s run%s · %" G_GINT64_FORMAT " tokens in, %" G_GINT64_FORMAT " out%s · record: %s",
         outcome_name (r), r->result->iterations, r->result->iterations == 1 ? "" : "s",
         r->tool_calls, r->tool_calls == 1 ? "" : "s", refused_text,
         u.input + u.cache_read + u.cache_write, u.output, cost_text, record_dir);
  }

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_signal_handlers_disconnect_by_data (session, r);
  g_signal_handlers_disconnect_by_data (agent, r);
  g_clear_object (&agent);
  ow_session_sandbox_stop (sandbox);
  if (tty >= 0)
    {
      g_clear_object (&attendant);
      close (tty);
    }
  return code;
}

int
ow_run_main (int argc, char **argv)
{
  Run r = {
    .max_output_tokens = -1,
    .max_iterations = -1,
    .timeout_seconds = -1,
    .tool_result_max_bytes = -1,
  };
  GOptionEntry entries[] = {
    { "prompt", 0, 0, G_OPTION_ARG_STRING, &r.prompt, "The task", "TEXT" },
    { "prompt-file", 0, 0, G_OPTION_ARG_FILENAME, &r.prompt_file, "Read the task from a file (- for standard input)", "PATH" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &r.workspace, "The folder the agent works in (default: the current folder)", "DIR" },
    { "add-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &r.add_dirs, "An extra folder the agent may read and write (repeatable)", "DIR" },
    { "coworker", 0, 0, G_OPTION_ARG_STRING, &r.coworker, "Who does the task: cowork (default) or code", "ID" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &r.model, "provider:model or provider/model", "ID" },
    { "approval-mode", 0, 0, G_OPTION_ARG_STRING, &r.approval_mode,
      "ask (default), auto-approve, bypass-approvals or dangerously-bypass-approvals", "MODE" },
    { "auto-answer", 0, 0, G_OPTION_ARG_NONE, &r.auto_answer, "Nobody will answer questions: answer them by rule", NULL },
    { "allow-site", 0, 0, G_OPTION_ARG_STRING_ARRAY, &r.allow_sites, "A site this run may reach (repeatable)", "HOST[:PORT]" },
    { "allow-sites-file", 0, 0, G_OPTION_ARG_FILENAME, &r.allow_sites_file, "Sites from a file, one per line", "FILE" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &r.out, "Where the record goes", "DIR" },
    { "isolated", 0, 0, G_OPTION_ARG_NONE, &r.isolated, "Read nothing from this computer (needs --out and --model)", NULL },
    { "reasoning-effort", 0, 0, G_OPTION_ARG_STRING, &r.reasoning_effort, "none, minimal, low, medium, high, xhigh or max", "LEVEL" },
    { "max-output-tokens", 0, 0, G_OPTION_ARG_INT64, &r.max_output_tokens, "The longest reply per model call", "N" },
    { "max-iterations", 0, 0, G_OPTION_ARG_INT64, &r.max_iterations, "The most model replies in the run", "N" },
    { "timeout-seconds", 0, 0, G_OPTION_ARG_INT64, &r.timeout_seconds, "Wall-clock limit (0: none)", "N" },
    { "no-web-tools", 0, 0, G_OPTION_ARG_NONE, &r.no_web_tools, "Never offer web_search or web_fetch", NULL },
    { "tool-result-max-bytes", 0, 0, G_OPTION_ARG_INT64, &r.tool_result_max_bytes, "Bound each tool result (default 10000; 0: off)", "N" },
    { "provider-order", 0, 0, G_OPTION_ARG_STRING, &r.provider_order, "OpenRouter only: pin the upstream host, no fallback", "HOSTS" },
    { "trajectory-atif", 0, 0, G_OPTION_ARG_FILENAME, &r.trajectory_atif, "Also write the trajectory here", "PATH" },
    { "mcp-config", 0, 0, G_OPTION_ARG_FILENAME, &r.mcp_config,
      "Use only the MCP servers in this mcp.json (also with --isolated)", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) octx = g_option_context_new ("- run one task to the end and leave a record");
  g_autoptr(GError) error = NULL;
  int code;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_set_summary (octx,
    "The answer goes to standard output; progress and the closing summary to standard error.\n"
    "Exit codes: 0 finished, 1 crashed before a record, 2 bad command line, 3 stopped early, 130 stopped by a signal.");
  if (!g_option_context_parse (octx, &argc, &argv, &error))
    {
      code = usage_error ("%s. Try 'openworker run --help'.", error->message);
      run_clear (&r);
      return code;
    }
  if (argc > 1)
    {
      code = usage_error ("unexpected argument \"%s\". Give the task with --prompt \"…\".", argv[1]);
      run_clear (&r);
      return code;
    }
  signal (SIGPIPE, SIG_IGN);
  code = resolve_options (&r);
  if (code == 0)
    code = run (&r);
  run_clear (&r);
  return code;
}
