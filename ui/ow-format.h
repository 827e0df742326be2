/* ow-format.h: small pure functions that turn engine values into words.
 *
 * The templates and the transcript show engine state through these:
 * labels for modes and coworkers, a session's subtitle, relative times,
 * humanized tool steps, argument previews, sizes, and the coloured diff of
 * a file edit. They touch no widget and no disk (except the edit diff,
 * which reads the file being replaced), so each has a unit test.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The approval modes a person can choose in the desktop app, in menu
 * order. dangerously-bypass-approvals is deliberately not one of them. */
const char *const *ow_format_modes              (void);
/* "Ask for approval", "Auto-approve", … (translated); the id for others. */
const char        *ow_format_mode_label         (const char *mode);
/* One sentence on what the mode does, for tooltips. */
const char        *ow_format_mode_help          (const char *mode);
/* "Cowork", "Code", … (translated). */
const char        *ow_format_coworker_label     (const char *coworker);

/* The title the list shows: a person's rename, else a model's title, else
 * the stored one, else the first line of the first message (≤ 60
 * characters), else "New session". */
char *ow_format_session_title  (const char *title, const char *auto_title, gboolean renamed, const char *first_text);
/* "Code · project" or "Cowork · Temporary folder". */
char *ow_format_session_subtitle (const char *coworker, const char *workspace, gboolean temporary);
/* "just now", "5 min ago", "3 h ago", "yesterday", "12 Mar" for an ISO 8601
 * UTC time ("2025-03-12 10:00:00" or with a T/Z); "" when unparsable. */
char *ow_format_relative_time  (const char *iso8601, GDateTime *now);
/* "1.2 MB" style. */
char *ow_format_size           (gint64 bytes);
/* "OpenAI · gpt-4o" for "openai:gpt-4o"; the id itself when unknown. */
char *ow_format_model_label    (const char *model_id);

/* `k: v` pairs joined by " · ", each value on one line and at most 80
 * characters, the whole at most 240 (the original's args_preview). */
char *ow_format_args_preview   (JsonObject *args);
/* A tool call in words, as far as it has gone: @status (proposed, waiting,
 * running, ok, error, denied, interrupted) picks @verb: "Waiting to run",
 * "Running", "Ran", "Failed to run", "Denied", "Stopped"; @detail is the
 * command, the path or the query (may be ""). Plain text, not escaped. */
void  ow_format_tool_step      (const char *name, JsonObject *args, const char *status, char **verb,
                                char **detail);
/* A call's risk class in plain words: "Run a command" for exec, "Change a
 * file" for write_local, … */
const char *ow_format_risk_label (const char *risk);
/* The first path @command names outside @folder (absolute, "~/…", or
 * climbing out with ".."), or NULL. A hint for the card, not a guard. */
char *ow_format_command_outside (const char *command, const char *folder);
/* "Exit code 0", "Exit code 2", or "No exit code" for a command that
 * ended without one (stopped, timed out). */
char *ow_format_exit_code      (gboolean has_code, gint64 code);
/* "done", "failed", "denied", "stopped", "running", "waiting for you". */
const char *ow_format_tool_status (const char *status);
/* A readable provenance: "allowed by a standing rule", … */
char *ow_format_provenance     (const char *provenance);

typedef enum {
  OW_DIFF_CONTEXT,
  OW_DIFF_ADDED,
  OW_DIFF_REMOVED,
  OW_DIFF_HEADER,   /* a file name or "…" between hunks */
} OwDiffKind;

typedef struct {
  OwDiffKind kind;
  char      *text;  /* without the leading +/-/space */
} OwDiffLine;

void ow_diff_line_free (OwDiffLine *line);

/* The change a file tool would make, as diff lines (OwDiffLine*), or NULL
 * when @tool does not edit files. @workspace resolves relative paths for
 * write_file, whose current content (≤ 1 MB) is compared with the new one;
 * at most @max_lines lines come back (the rest is summarized in a last
 * header line). */
GPtrArray *ow_format_edit_diff (const char *tool, JsonObject *args, const char *workspace, guint max_lines);

/* As ow_format_edit_diff(), without looking at the disk: write_file's
 * content shows as added lines. For a finished step, whose file already
 * holds it. */
GPtrArray *ow_format_step_change (const char *tool, JsonObject *args, guint max_lines);

/* An approval card's title in plain words: "Run this command?", "Change
 * notes.md?" ("Create notes.md?" when @workspace shows it is not there
 * yet), "Fetch a web page?", …; @fallback (may be NULL) for tools of
 * connectors. */
char *ow_format_approval_title     (const char *tool, JsonObject *args, const char *workspace,
                                    const char *fallback);
/* What the call is about, on one line: the command, the file, the host
 * of a page, the query, the folder; NULL for other tools. */
char *ow_format_approval_subject   (const char *tool, JsonObject *args);
/* What the card's Copy puts on the clipboard: the command, the new
 * content, the patch, the URL, the query; NULL for other tools. */
char *ow_format_approval_copy_text (const char *tool, JsonObject *args);

/* A step's "enforcement" in plain words ("Enforced by the kernel
 * sandbox", "Checked by the command parser"), or NULL when there is
 * nothing to say. The command guard and the parser are said of commands
 * (@command) only. */
char *ow_format_enforcement        (const char *enforcement, gboolean command);

G_END_DECLS
