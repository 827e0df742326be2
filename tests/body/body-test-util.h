/* body-test-util.h: helpers shared by the tool-body tests.
 *
 * Results are parsed with the body's own JSON reader, so every test also
 * checks that what the writer produced is strict JSON.
 */
#pragma once

#include <glib.h>

#include "ow-test-utils.h"
#include "tools/body/ow-tb.h"

/* A throwaway session: up to four roots in temporary folders. */
typedef struct {
  OwTbRoot roots[4];   /* the roots handed to the body */
  char    *paths[4];   /* their folders (owned) */
  size_t   n_roots;    /* roots in use */
  OwTbEnv  env;        /* roots + optional shell + cancel fd */
} BodyFixture;

void           body_rm_rf         (const char *path);
/* Adds a new temporary folder as the next root. Returns its path. */
const char    *body_add_root      (BodyFixture *fx, gboolean writable);
void           body_fixture_clear (BodyFixture *fx);

/* Calls @tool and parses its result, which must be one JSON object. */
OwTbJson      *body_call          (const OwTbEnv *env, const char *tool, const char *args,
                                   OwTbStatus *status);
/* The same with printf-style arguments (use body_q for strings). */
OwTbJson      *body_callf         (const OwTbEnv *env, const char *tool, OwTbStatus *status,
                                   const char *fmt, ...) G_GNUC_PRINTF (4, 5);
/* Strings below are owned by a pool that lives until exit, so tests can
 * use them inline. */
/* @s as a JSON string literal, quotes included. */
const char    *body_q             (const char *s);
/* A printf-formatted string as a JSON string literal. */
const char    *body_qf            (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
/* A printf-formatted string. */
const char    *body_sf            (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
/* @dir/@rel. */
const char    *body_path          (const char *dir, const char *rel);

const char    *body_str           (const OwTbJson *obj, const char *key);
long long      body_int           (const OwTbJson *obj, const char *key);
gboolean       body_bool          (const OwTbJson *obj, const char *key);
gboolean       body_is_null       (const OwTbJson *obj, const char *key);
const OwTbJson *body_array        (const OwTbJson *obj, const char *key);
/* 1 when array @arr holds the string @s. */
gboolean       body_array_has     (const OwTbJson *arr, const char *s);

void           body_write         (const char *dir, const char *rel, const char *content);
const char    *body_read          (const char *dir, const char *rel);
gboolean       body_exists        (const char *dir, const char *rel);
/* Runs a command line in @cwd (for test set-up: git, mkfifo); asserts success. */
void           body_run           (const char *cwd, const char *const *argv);
