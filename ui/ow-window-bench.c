/* ow-window-bench.c: the measuring points bench/bench-desktop reads.
 *
 * Only with OW_BENCH_FIRST_FRAME set (the benchmark sets it; nobody
 * else should): at the main window's first "after-paint" the app prints
 *
 *   OW_BENCH first-frame <CLOCK_MONOTONIC µs>
 *
 * on stdout. With OW_BENCH_OPEN_SESSION=<id> as well it waits until the
 * app is up (WebKit loaded, the empty transcript page ready: it prints
 * "OW_BENCH ready <µs>"), then opens that session, waits until the
 * transcript page has applied the whole replay,
 * and at the next painted frame prints
 *
 *   OW_BENCH session-open <µs from the open call>
 *
 * (after "OW_BENCH session-open-sync <µs>", the part spent before the page
 * gets the operations) and keeps running, so the benchmark can read its memory, until it is
 * killed.
 */
#define G_LOG_DOMAIN "ow-window"

#include "config-ui.h"
#include "ow-window-private.h"

#include <stdio.h>

typedef struct {
  OwWindow   *window;         /* borrowed: the window owns this */
  gulong      paint_id;
  guint       tick_id;
  gint64      open_start;
  gboolean    first_done;
  gboolean    opening;
  gboolean    settled;
} Bench;

static void
bench_free (gpointer data)
{
  g_free (data);
}

static gboolean
on_tick_cb (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  Bench *b = user_data;
  OwTranscriptView *transcript = ow_session_view_get_transcript (ow_window_get_session_view (b->window));

  if (!ow_transcript_view_is_settled (transcript))
    return G_SOURCE_CONTINUE;
  /* Applied in the page: print at the frame that follows. */
  printf ("OW_BENCH session-open-applied %" G_GINT64_FORMAT "\n", g_get_monotonic_time () - b->open_start);
  fflush (stdout);
  b->settled = TRUE;
  b->tick_id = 0;
  gtk_widget_queue_draw (widget);
  return G_SOURCE_REMOVE;
}

/* Opens the session once the app is up: WebKit loaded and the empty
 * transcript page ready, as when a person clicks a session. */
static gboolean
on_open_idle_cb (gpointer user_data)
{
  Bench *b = user_data;
  OwTranscriptView *transcript = ow_session_view_get_transcript (ow_window_get_session_view (b->window));

  if (!ow_transcript_view_is_settled (transcript))
    return G_SOURCE_CONTINUE;
  printf ("OW_BENCH ready %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  b->opening = TRUE;
  b->open_start = g_get_monotonic_time ();
  ow_window_open_session (b->window, g_getenv ("OW_BENCH_OPEN_SESSION"));
  /* The part on this side: reading the log and rendering it to page
   * operations; the rest is the page applying them. */
  printf ("OW_BENCH session-open-sync %" G_GINT64_FORMAT "\n", g_get_monotonic_time () - b->open_start);
  fflush (stdout);
  b->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (b->window), on_tick_cb, b, NULL);
  return G_SOURCE_REMOVE;
}

static void
on_after_paint_cb (GdkFrameClock *clock, gpointer user_data)
{
  Bench *b = user_data;
  gint64 now = g_get_monotonic_time ();

  if (!b->first_done)
    {
      b->first_done = TRUE;
      printf ("OW_BENCH first-frame %" G_GINT64_FORMAT "\n", now);
      fflush (stdout);
      if (g_getenv ("OW_BENCH_OPEN_SESSION") != NULL)
        g_timeout_add (5, on_open_idle_cb, b);
      else
        g_clear_signal_handler (&b->paint_id, clock);
      return;
    }
  if (b->opening && b->settled)
    {
      printf ("OW_BENCH session-open %" G_GINT64_FORMAT "\n", now - b->open_start);
      fflush (stdout);
      b->opening = FALSE;
      g_clear_signal_handler (&b->paint_id, clock);
    }
}

static void
on_map_cb (GtkWidget *widget, gpointer user_data)
{
  Bench *b = user_data;
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);

  if (b->paint_id == 0 && !b->first_done && clock != NULL)
    b->paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint_cb), b);
}

void
ow_window_bench_install (OwWindow *self)
{
  Bench *b;

  if (g_getenv ("OW_BENCH_FIRST_FRAME") == NULL)
    return;
  /* Where start-up time goes: before this, the engine and the window's
   * construction; after it, GTK and WebKit until the first frame. */
  printf ("OW_BENCH window-built %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  fflush (stdout);
  b = g_new0 (Bench, 1);
  b->window = self;
  g_object_set_data_full (G_OBJECT (self), "ow-bench", b, bench_free);
  g_signal_connect (self, "map", G_CALLBACK (on_map_cb), b);
}
