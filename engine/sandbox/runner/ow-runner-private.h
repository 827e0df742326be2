/* ow-runner-private.h: what the runner's files share with each other. */
#pragma once

#include "tools/body/ow-tb.h"

/* strerror_r into @scratch, whichever strerror_r libc has. */
const char *ow_runner_err_text   (int errnum, char *scratch, size_t size);

/* Members of a frame, or NULL / 0 when absent or of another type. */
const char *ow_runner_json_str   (const OwTbJson *obj, const char *key);
/* 1 and *value when @key is an integral number. */
int         ow_runner_json_int   (const OwTbJson *obj, const char *key, long long *value);
int         ow_runner_json_bool  (const OwTbJson *obj, const char *key);
