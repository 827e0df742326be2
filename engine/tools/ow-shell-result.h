/* ow-shell-result.h: what the model is told about a finished shell command. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *ow_shell_result_for_model (const char *record_text,
                                 const char *previous_cwd);

G_END_DECLS
