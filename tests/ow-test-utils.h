/* ow-test-utils.h: what every test shares: waiting on the main loop,
 * and a temporary folder.
 *
 * A test that starts something asynchronous iterates the main context
 * until the effect shows. These helpers are the one way to do that: they
 * block in the main context (a short tick wakes it, so conditions that
 * change outside it, such as a file another process writes, are seen
 * too) and fail the test with a message naming what it waited for and
 * where, once a generous safety bound has passed. The bound is not a
 * timing assertion: it only turns a hang into a failure that says why.
 * OW_TEST_WAIT_SECONDS in the environment changes it (60 s by default)
 * for a slow machine.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef gboolean (*OwTestCondition) (gpointer data);

/* One wait in progress; on the stack of the waiting function. */
typedef struct {
  GMainContext *context;      /* the context iterated (NULL: the default one) */
  GSource      *tick;         /* wakes the context while nothing else does (owned) */
  gint64        deadline;     /* monotonic time after which the test fails */
  const char   *what;         /* what is waited for, for the failure message */
  const char   *where;        /* the caller's file and line (G_STRLOC) */
  GFunc         report;       /* says more on failure, before the message (may be NULL) */
  gpointer      report_data;
} OwTestWait;

/* The loop for a caller that needs more than a condition: begin, then
 * step while its condition does not hold, then end. */
void ow_test_wait_begin (OwTestWait   *wait,
                         GMainContext *context,
                         const char   *what,
                         const char   *where);
void ow_test_wait_step  (OwTestWait   *wait);
void ow_test_wait_end   (OwTestWait   *wait);

/* Iterates the default main context until @done (@data) holds. */
#define ow_test_wait_until(done, data, what) \
  ow_test_wait_until_at ((done), (data), (what), G_STRLOC)
void ow_test_wait_until_at (OwTestCondition  done,
                            gpointer         data,
                            const char      *what,
                            const char      *where);

/* Iterates the default main context until *@flag is TRUE. */
#define ow_test_wait_flag(flag) \
  ow_test_wait_flag_at ((flag), #flag, G_STRLOC)
void ow_test_wait_flag_at (const gboolean *flag,
                           const char     *what,
                           const char     *where);

/* Iterates the default main context until the C expression @expr holds;
 * the failure message quotes it. */
#define OW_TEST_WAIT_UNTIL(expr) \
  G_STMT_START { \
    OwTestWait ow_test_wait_; \
    ow_test_wait_begin (&ow_test_wait_, NULL, #expr, G_STRLOC); \
    while (!(expr)) \
      ow_test_wait_step (&ow_test_wait_); \
    ow_test_wait_end (&ow_test_wait_); \
  } G_STMT_END

/* Dispatches everything ready in the default context, without blocking:
 * where a second completion or a late chunk would show. */
void ow_test_drain      (void);

/* Runs the default main context for @ms milliseconds: a pause that lets
 * things happen which a test then checks did not (or did) happen. */
void ow_test_spin_for   (guint ms);

/* A new folder @prefix-XXXXXX in the temporary directory (mode 0700),
 * by its canonical path; fails the test when it cannot be made. */
char *ow_test_make_tmpdir (const char *prefix);

G_END_DECLS
