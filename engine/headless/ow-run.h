/* ow-run.h: `openworker run` — one task to the end, with a record.
 *
 * Reads the task (--prompt, --prompt-file, or standard input when piped),
 * builds a session in the workspace with the chosen coworker and model,
 * runs the turn loop with the approval mode and attendance the flags ask
 * for, writes the record and returns the documented exit code:
 *   0 the task finished · 1 the run crashed before it could write a record ·
 *   2 the command line could not be run as given · 3 the run stopped early
 *   (time limit, model error, iteration limit, cut-off reply; the record is
 *   written) · 130 stopped by Ctrl-C or a stop signal (the record is written).
 * The answer goes to standard output; progress, prompts and the closing
 * summary to standard error.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define OW_EXIT_OK          0
#define OW_EXIT_CRASH       1
#define OW_EXIT_USAGE       2
#define OW_EXIT_EARLY       3
#define OW_EXIT_INTERRUPTED 130

/* Runs `openworker run` with @argv (argv[0] is "run"). Returns the exit code. */
int ow_run_main (int argc, char **argv);

G_END_DECLS
