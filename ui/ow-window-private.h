/* ow-window-private.h: what ow-window.c shares with its parts split by
 * concern (ow-window-bench.c). */
#pragma once

#include "ow-window.h"

G_BEGIN_DECLS

/* The benchmark's measuring points; does nothing unless
 * OW_BENCH_FIRST_FRAME is set (see ow-window-bench.c). */
void ow_window_bench_install (OwWindow *self);

G_END_DECLS
