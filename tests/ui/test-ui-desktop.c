/* test-ui-desktop.c: the desktop application, in-process, under Xvfb.
 *
 * Each test starts a real OwApplication (engine, session host, loopback
 * API, window, the WebKit transcript) on a temporary home with a memory
 * secret store, against the scripted model server speaking OpenAI Chat,
 * and drives it the way a person would: the composer, the cards' buttons,
 * the window's actions. What the transcript shows is read from the web
 * view's DOM. Screenshots of each main screen go to $OW_UI_SCREENSHOTS.
 */
#include "ow-files.h"
#include <string.h>

#include <cairo-pdf.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "ow-application.h"
#include "ow-approval-card.h"
#include "ow-artifact-viewer.h"
#include "ow-json.h"
#include "ow-model-server.h"
#include "ow-question-card.h"
#include "ow-test-utils.h"
#include "ow-window.h"
#include "policy/ow-inbox.h"
#include "policy/ow-rules.h"

typedef struct {
  char          *tmp;
  char          *ws;
  OwPaths       *paths;
  OwModelServer *server;
  OwSecretStore *secrets;
  OwApplication *app;
  OwWindow      *window;
  GPtrArray     *events;   /* OwEvent* of every session */
} Fixture;

/* ---- Waiting ------------------------------------------------------------------ */

typedef gboolean (*Cond) (Fixture *f, gconstpointer data);

/* Says what the sessions did meanwhile: the last events tell why a wait
 * failed. */
static void
report_events (gpointer data, gpointer unused)
{
  Fixture *f = data;

  for (guint i = f->events->len > 12 ? f->events->len - 12 : 0; i < f->events->len; i++)
    {
      OwEvent *e = g_ptr_array_index (f->events, i);
      g_autofree char *json = ow_json_object_to_string (e->data);
      g_test_message ("event %u: %s %.300s", i, e->type, json != NULL ? json : "");
    }
}

static void
wait_until (Fixture *f, Cond cond, gconstpointer data, const char *what)
{
  OwTestWait wait;

  ow_test_wait_begin (&wait, NULL, what, G_STRLOC);
  wait.report = report_events;
  wait.report_data = f;
  while (!cond (f, data))
    ow_test_wait_step (&wait);
  ow_test_wait_end (&wait);
}

static OwSessionView *
view_of (Fixture *f)
{
  return ow_window_get_session_view (f->window);
}

static OwTranscriptView *
transcript_of (Fixture *f)
{
  return ow_session_view_get_transcript (view_of (f));
}

static gboolean
cond_settled (Fixture *f, gconstpointer data)
{
  return ow_transcript_view_is_settled (transcript_of (f));
}

static void
wait_settled (Fixture *f)
{
  wait_until (f, cond_settled, NULL, "the transcript page to settle");
}

static int
find_event (Fixture *f, const char *type, guint from)
{
  for (guint i = from; i < f->events->len; i++)
    if (g_str_equal (((OwEvent *) g_ptr_array_index (f->events, i))->type, type))
      return (int) i;
  return -1;
}

static gboolean
cond_event (Fixture *f, gconstpointer type)
{
  return find_event (f, type, 0) >= 0;
}

static void
wait_event (Fixture *f, const char *type)
{
  g_autofree char *what = g_strdup_printf ("a %s event", type);

  wait_until (f, cond_event, type, what);
}

static guint
count_events (Fixture *f, const char *type)
{
  guint n = 0;

  for (guint i = 0; i < f->events->len; i++)
    n += g_str_equal (((OwEvent *) g_ptr_array_index (f->events, i))->type, type);
  return n;
}

typedef struct {
  const char *type;
  guint       n;
} Nth;

static gboolean
cond_event_n (Fixture *f, gconstpointer data)
{
  const Nth *nth = data;

  return count_events (f, nth->type) >= nth->n;
}

/* Waits for the @n-th event of @type (of every session). */
static void
wait_event_n (Fixture *f, const char *type, guint n)
{
  Nth nth = { type, n };
  g_autofree char *what = g_strdup_printf ("%u %s event(s)", n, type);

  wait_until (f, cond_event_n, &nth, what);
}

static gboolean
cond_turns_done (Fixture *f, gconstpointer n)
{
  return count_events (f, "turn_done") >= GPOINTER_TO_UINT (n);
}

static void
wait_turns_done (Fixture *f, guint n)
{
  wait_until (f, cond_turns_done, GUINT_TO_POINTER (n), "the turn to finish");
  wait_settled (f);
}

/* ---- The page ---------------------------------------------------------------- */

typedef struct {
  gboolean done;
  char    *result;
} Js;

static void
on_js_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Js *js = user_data;
  g_autoptr(GError) error = NULL;

  js->result = ow_transcript_view_run_script_finish (OW_TRANSCRIPT_VIEW (source), result, &error);
  if (error != NULL)
    g_error ("the page's script failed: %s", error->message);
  js->done = TRUE;
}

static gboolean
cond_js (Fixture *f, gconstpointer data)
{
  return ((const Js *) data)->done;
}

/* Runs @script in the transcript page and returns its value as a string. */
static char *
page_eval (Fixture *f, const char *script)
{
  Js js = { FALSE, NULL };
  g_autofree char *body = g_strconcat ("return (", script, ");", NULL);

  ow_transcript_view_run_script_async (transcript_of (f), body, NULL, on_js_cb, &js);
  wait_until (f, cond_js, &js, "the page's script");
  return js.result;
}

static char *
page_html (Fixture *f)
{
  return page_eval (f, "document.getElementById('log').innerHTML");
}

static char *
page_text (Fixture *f)
{
  return page_eval (f, "document.getElementById('log').innerText");
}

/* The page's text with every tool-step group opened the way a person
 * opens one: a click on its summary (closed groups show only their last
 * step). */
static char *
page_text_expanded (Fixture *f)
{
  g_autofree char *opened = page_eval (f, "(() => { let n = 0;"
                                          " document.querySelectorAll('#log details.steps:not([open]) > summary')"
                                          "   .forEach(s => { s.click(); n++; }); return String(n); })()");

  g_assert_nonnull (opened);
  return page_text (f);
}

/* ---- Screenshots ---------------------------------------------------------------- */

/* What @paintable shows at @w x @h, or NULL while the widget has no
 * drawing: between a redraw being queued and the next frame. */
static GskRenderNode *
paint (GdkPaintable *paintable, int w, int h)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  return gtk_snapshot_free_to_node (snapshot);
}

static void
screenshot (Fixture *f, GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("OW_UI_SCREENSHOTS");
  g_autofree char *path = NULL;
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderNode *node;
  OwTestWait wait;
  int w, h;

  /* Let layout, WebKit's rendering and animations finish. */
  ow_test_spin_for (600);
  if (dir == NULL)
    return;
  g_mkdir_with_parents (dir, 0755);
  path = g_build_filename (dir, name, NULL);
  w = gtk_widget_get_width (widget);
  h = gtk_widget_get_height (widget);
  g_assert_cmpint (w, >, 0);
  /* The paintable shows the widget as last drawn; something still moving
   * (a spinner, the web view) leaves it without a drawing until the next
   * frame, so wait for that rather than guess a time. */
  paintable = gtk_widget_paintable_new (widget);
  ow_test_wait_begin (&wait, NULL, "the widget to be drawn", G_STRLOC);
  while ((node = paint (paintable, w, h)) == NULL)
    ow_test_wait_step (&wait);
  ow_test_wait_end (&wait);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

/* ---- Set-up --------------------------------------------------------------------- */

static void
on_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  Fixture *f = user_data;

  g_ptr_array_add (f->events, ow_event_copy (event));
}

static void
serve (Fixture *f, const char *script)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (script, &error);
  g_autofree char *url = NULL, *base = NULL;

  g_assert_no_error (error);
  if (f->server != NULL)
    g_assert_finalize_object (g_steal_pointer (&f->server));
  f->server = ow_model_server_new (node, &error);
  g_assert_no_error (error);
  url = ow_model_server_get_url (f->server);
  base = g_strdup_printf ("%s/v1", url);
  g_setenv ("OPENAI_BASE_URL", base, TRUE);
}

static gboolean
cond_models_known (Fixture *f, gconstpointer data)
{
  return ow_application_get_model_choices (f->app) != NULL && ow_transcript_view_is_settled (transcript_of (f));
}

static void
start_app (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  OwApplicationOptions options = {
    .application_id = "com.openworker.OpenWorker.Test",
    .flags = G_APPLICATION_NON_UNIQUE,
    .paths = f->paths,
    .secrets = f->secrets,
    .any_port = TRUE,
  };

  f->app = ow_application_new (&options);
  g_assert_true (g_application_register (G_APPLICATION (f->app), NULL, &error));
  g_assert_no_error (error);
  g_assert_null (ow_application_get_startup_error (f->app));
  /* The loopback API runs in-process, with a token that is nowhere on disk. */
  g_assert_nonnull (ow_application_get_server (f->app));
  g_application_activate (G_APPLICATION (f->app));
  /* A reference of the test's own, so the end can check the window goes. */
  f->window = g_object_ref (OW_WINDOW (ow_application_get_main_window (f->app)));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->window)));
  g_signal_connect (ow_application_get_host (f->app), "session-event", G_CALLBACK (on_event_cb), f);
  wait_until (f, cond_models_known, NULL, "the window to be ready");
}

static gboolean warned_unregister;

static void
stop_app (Fixture *f)
{
  GList *windows;
  OwSessionHost *host;

  if (f->app == NULL)
    return;
  windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (f->app)));
  for (GList *l = windows; l != NULL; l = l->next)
    {
      if (OW_IS_WINDOW (l->data))
        ow_window_finish_pending (l->data);
      gtk_window_destroy (l->data);
    }
  g_list_free (windows);
  ow_test_spin_for (50);
  /* Destroyed, the window goes with everything in it: nothing the test
   * did left a reference or a cycle behind. */
  g_assert_finalize_object (g_steal_pointer (&f->window));
  host = g_object_ref (ow_application_get_host (f->app));
  g_signal_handlers_disconnect_by_data (host, f);
  ow_application_close (f->app);
  ow_test_spin_for (50);
  /* Nothing else holds the application: it goes now, and its bus path
   * is free for the next test's. */
  /* GLib has no public way for an application to leave the bus other
   * than the end of g_application_run(), so the first application dropped
   * in this process says so, once; its object path goes all the same. */
  if (!warned_unregister)
    g_test_expect_message ("GLib-GIO", G_LOG_LEVEL_WARNING, "Your application did not unregister from D-Bus*");
  g_assert_finalize_object (g_steal_pointer (&f->app));
  if (!warned_unregister)
    g_test_assert_expected_messages ();
  warned_unregister = TRUE;
  /* The engine went with it: its session host, and the sessions in it. */
  g_assert_finalize_object (host);
}

static void
setup (Fixture *f, gconstpointer data)
{
  f->tmp = ow_test_make_tmpdir ("ow-ui");
  f->ws = g_build_filename (f->tmp, "project", NULL);
  g_mkdir (f->ws, 0700);
  f->paths = ow_paths_new_under (f->tmp);
  f->secrets = ow_secret_store_memory_new ();
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_event_free);
  g_setenv ("OPENAI_API_KEY", "sk-test-desktop-0123456789", TRUE);
  g_setenv ("OPENWORKER_MODEL", "openai:gpt-4o", TRUE);
  g_setenv ("OPENWORKER_RETRY_DELAYS", "0.05,0.05", TRUE);
  /* No title call after the first turn: it would take a turn of each script. */
  g_setenv ("OPENWORKER_AUTO_TITLE", "0", TRUE);
  if (data == NULL)
    start_app (f);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  stop_app (f);
  if (f->server != NULL)
    g_assert_finalize_object (g_steal_pointer (&f->server));
  g_assert_finalize_object (g_steal_pointer (&f->secrets));
  g_ptr_array_unref (f->events);
  ow_paths_free (f->paths);
  ow_remove_tree (f->tmp, NULL);
  g_free (f->ws);
  g_free (f->tmp);
}

/* ---- Driving ---------------------------------------------------------------------- */

/* A new session in @workspace (NULL: a temporary folder), first message @text. */
static const char *
send_first (Fixture *f, const char *workspace, const char *mode, const char *text)
{
  OwComposer *composer = ow_session_view_get_composer (view_of (f));

  ow_window_new_session (f->window, workspace);
  if (mode != NULL)
    ow_composer_set_mode (composer, mode);
  ow_composer_set_text (composer, text);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL));
  g_assert_nonnull (ow_session_view_get_session_id (view_of (f)));
  return ow_session_view_get_session_id (view_of (f));
}

static gboolean
cond_cards (Fixture *f, gconstpointer n)
{
  return ow_card_dock_get_n_cards (ow_session_view_get_dock (view_of (f))) == GPOINTER_TO_UINT (n);
}

static void
wait_cards (Fixture *f, guint n)
{
  g_autofree char *what = g_strdup_printf ("%u card(s) above the composer", n);

  wait_until (f, cond_cards, GUINT_TO_POINTER (n), what);
}

#define WRITE_SCRIPT(id, path, content) \
  "{\"tool_calls\":[{\"id\":\"" id "\",\"name\":\"write_file\",\"arguments\":{\"path\":\"" path "\"," \
  "\"content\":\"" content "\"}}]}"

/* ---- Tests ---------------------------------------------------------------------- */

static gboolean
cond_titled (Fixture *f, gconstpointer id)
{
  OwSessionItem *item = ow_session_list_lookup (ow_window_get_session_list (f->window), id);

  return item != NULL && g_strcmp0 (ow_session_item_get_title (item), "Say hello") == 0;
}

typedef struct {
  GPtrArray *seen;   /* char*: the answer's text each time it changed */
} Streamed;

/* A message streams into the transcript: the page shows the answer grow
 * piece by piece, and ends with the markdown rendered (and sanitized). */
static void
test_stream (Fixture *f, gconstpointer data)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *html = NULL;
  g_autofree char *text = NULL;
  const char *id;
  OwSessionItem *item;

  serve (f, "{\"turns\":[{\"text\":\"Streaming works: **bold** and `code`.\\n\\n```sh\\necho hi\\n```\\n\\n"
            "<script>window.pwned=1</script><img src=x onerror=\\\"window.pwned=2\\\"> [link](javascript:alert(1))\","
            "\"text_chunks\":10,\"chunk_delay_ms\":80}]}");
  screenshot (f, GTK_WIDGET (f->window), "00-new-session.png");
  id = send_first (f, f->ws, NULL, "Say hello");
  wait_event (f, "assistant_delta");
  /* Sample the page while the reply streams. */
  while (count_events (f, "turn_done") == 0)
    {
      g_autofree char *now = page_eval (f, "Array.from(document.querySelectorAll('.answer')).map(e => e.innerText).join('|')");
      if (now != NULL && *now != '\0' && (seen->len == 0 || !g_str_equal (g_ptr_array_index (seen, seen->len - 1), now)))
        g_ptr_array_add (seen, g_strdup (now));
      ow_test_spin_for (30);
    }
  wait_settled (f);
  html = page_html (f);
  text = page_text (f);
  g_test_message ("the answer took %u different forms on the way", seen->len);
  g_assert_cmpuint (seen->len, >=, 3);
  g_assert_cmpuint (strlen (g_ptr_array_index (seen, 0)), <, strlen (g_ptr_array_index (seen, seen->len - 1)));
  g_assert_nonnull (strstr (text, "Say hello"));
  g_assert_nonnull (strstr (html, "<strong>bold</strong>"));
  g_assert_nonnull (strstr (html, "<code>code</code>"));
  g_assert_nonnull (strstr (html, "class=\"copy\""));   /* the code block's copy button */
  /* Nothing the model wrote became script, an element or a live link. */
  {
    g_autofree char *pwned = page_eval (f, "String(window.pwned)");
    g_autofree char *scripts = page_eval (f, "String(document.querySelectorAll('#log script, #log img').length)");
    g_autofree char *links = page_eval (f, "String(document.querySelectorAll('#log a[href^=\"javascript\"]').length)");
    g_assert_cmpstr (pwned, ==, "undefined");
    g_assert_cmpstr (scripts, ==, "0");
    g_assert_cmpstr (links, ==, "0");
  }
  /* The session is in the sidebar, titled by its first message. */
  wait_until (f, cond_titled, id, "the sidebar to show the session's title");
  item = ow_session_list_lookup (ow_window_get_session_list (f->window), id);
  g_assert_cmpstr (ow_session_item_get_title (item), ==, "Say hello");
  g_assert_false (ow_composer_get_running (ow_session_view_get_composer (view_of (f))));
  screenshot (f, GTK_WIDGET (f->window), "01-session-streamed.png");
}

/* An approval card appears above the composer; Allow once runs the tool. */
static void
test_approval_once (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->ws, "a.txt", NULL);
  g_autofree char *content = NULL;
  g_autofree char *text = NULL;
  OwAskCard *card;

  serve (f, "{\"turns\":[" WRITE_SCRIPT ("w1", "a.txt", "from the desktop") ",{\"text\":\"Written.\"}]}");
  send_first (f, f->ws, "ask", "Write a.txt");
  wait_cards (f, 1);
  card = ow_card_dock_find (ow_session_view_get_dock (view_of (f)), "w1");
  g_assert_true (OW_IS_APPROVAL_CARD (card));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  screenshot (f, GTK_WIDGET (f->window), "02-approval-card.png");
  screenshot (f, GTK_WIDGET (card), "02b-approval-card-alone.png");
  /* Never in the web view: the page only shows the step waiting. */
  {
    g_autofree char *waiting = page_eval (f, "String(document.querySelectorAll('.status-waiting').length)");
    g_assert_cmpstr (waiting, ==, "1");
  }
  /* A write is not a read-only command: that grant is not offered. */
  g_assert_false (ow_ask_card_choose (card, "readonly_session"));
  g_assert_true (ow_ask_card_choose (card, "once"));
  wait_cards (f, 0);
  wait_turns_done (f, 1);
  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "from the desktop");
  text = page_text_expanded (f);
  g_assert_nonnull (strstr (text, "Wrote"));
  g_assert_nonnull (strstr (text, "You allowed it once"));
  g_assert_nonnull (strstr (text, "Written."));
}

/* "Allow read-only commands" runs the command and, without another card,
 * the read-only one after it. */
static void
test_readonly_commands (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->ws, "a.txt", NULL);
  OwAskCard *card;

  g_assert_true (g_file_set_contents (path, "alpha\n", -1, NULL));
  serve (f, "{\"turns\":[{\"tool_calls\":[{\"id\":\"r1\",\"name\":\"run_shell\",\"arguments\":{\"command\":"
            "\"cat a.txt\"}}]},{\"tool_calls\":[{\"id\":\"r2\",\"name\":\"run_shell\",\"arguments\":{\"command\":"
            "\"ls | wc -l\"}}]},{\"text\":\"Read.\"}]}");
  send_first (f, f->ws, "ask", "Look at a.txt");
  wait_cards (f, 1);
  card = ow_card_dock_find (ow_session_view_get_dock (view_of (f)), "r1");
  g_assert_true (OW_IS_APPROVAL_CARD (card));
  g_assert_true (ow_ask_card_choose (card, "readonly_session"));
  wait_cards (f, 0);
  /* No card for ls | wc: the turn ends on its own. */
  wait_turns_done (f, 1);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 3);
}

/* Always allow saves a standing rule, visible in the store and the page. */
static void
test_always_allow (Fixture *f, gconstpointer data)
{
  OwStore *store = ow_context_get_store (ow_application_get_context (f->app));
  g_autoptr(GPtrArray) before = ow_standing_rules_list (store, NULL);
  g_autoptr(GPtrArray) after = NULL;
  g_autofree char *text = NULL;
  OwAskCard *card;

  serve (f, "{\"turns\":[" WRITE_SCRIPT ("w2", "b.txt", "always") ",{\"text\":\"Saved.\"}]}");
  send_first (f, f->ws, "ask", "Write b.txt");
  wait_cards (f, 1);
  card = ow_card_dock_find (ow_session_view_get_dock (view_of (f)), "w2");
  /* The rule it would save is named on the card. */
  g_assert_true (ow_ask_card_choose (card, "always"));
  wait_turns_done (f, 1);
  after = ow_standing_rules_list (store, NULL);
  g_assert_cmpuint (after->len, ==, before->len + 1);
  {
    OwStandingRule *rule = g_ptr_array_index (after, after->len - 1);
    g_assert_true (g_str_has_prefix (rule->rule, "write_file:"));
    g_assert_nonnull (strstr (rule->rule, "b.txt"));
    g_assert_cmpstr (rule->decision, ==, "allow");
  }
  text = page_text_expanded (f);
  g_assert_nonnull (strstr (text, "Always allowed from now on"));
  g_assert_nonnull (strstr (text, "revoke it in Settings"));
  g_assert_true (g_file_test (g_build_filename (f->ws, "b.txt", NULL), G_FILE_TEST_EXISTS));
}

/* A question card: options and free text; the answer reaches the model. */
static void
test_question (Fixture *f, gconstpointer data)
{
  g_autofree char *text = NULL;
  OwAskCard *card;
  JsonArray *requests;

  serve (f, "{\"turns\":[{\"tool_calls\":[{\"id\":\"q1\",\"name\":\"ask_user\",\"arguments\":{\"question\":"
            "\"Which colour should the chart use?\",\"options\":[\"red\",\"blue\"]}}]},"
            "{\"text\":\"Blue it is.\",\"expect\":{\"last_message_contains\":\"blue\"}}]}");
  send_first (f, f->ws, "ask", "Make a chart");
  wait_cards (f, 1);
  card = ow_card_dock_find (ow_session_view_get_dock (view_of (f)), "q1");
  g_assert_true (OW_IS_QUESTION_CARD (card));
  screenshot (f, GTK_WIDGET (f->window), "03-question-card.png");
  g_assert_true (ow_ask_card_choose (card, "blue"));
  wait_turns_done (f, 1);
  requests = ow_model_server_get_requests (f->server);
  g_assert_cmpuint (json_array_get_length (requests), ==, 2);
  g_assert_false (json_object_has_member (json_array_get_object_element (requests, 1), "expectation"));
  text = page_text_expanded (f);
  g_assert_nonnull (strstr (text, "Blue it is."));
  g_assert_nonnull (strstr (text, "Asked you"));
}

static gboolean
cond_attention (Fixture *f, gconstpointer id)
{
  OwSessionItem *item = ow_session_list_lookup (ow_window_get_session_list (f->window), id);

  return item != NULL && ow_session_item_get_attention (item) == 1;
}

static gboolean
cond_inbox_shown (Fixture *f, gconstpointer n)
{
  return ow_inbox_page_get_n_shown (ow_window_get_inbox_page (f->window)) == GPOINTER_TO_UINT (n);
}

/* An ask parked in the inbox is answered from the Inbox page; the card
 * above the composer goes away with it. */
static void
test_inbox (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->ws, "c.txt", NULL);
  const char *id;
  OwAskCard *card;

  serve (f, "{\"turns\":[" WRITE_SCRIPT ("w3", "c.txt", "via the inbox") ",{\"text\":\"Done from the inbox.\"}]}");
  id = send_first (f, f->ws, "ask", "Write c.txt");
  wait_cards (f, 1);
  g_assert_cmpuint (ow_application_get_inbox_count (f->app), ==, 1);
  /* The sidebar's badge follows the inbox (the list refreshes shortly
   * after an item is parked). */
  wait_until (f, cond_attention, id, "the session's badge in the sidebar");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-inbox", NULL));
  g_assert_cmpstr (ow_window_get_page (f->window), ==, "inbox");
  wait_until (f, cond_inbox_shown, GUINT_TO_POINTER (1), "the item on the Inbox page");
  /* Filtering by kind hides it; all kinds show it again. */
  ow_inbox_page_set_kind_filter (ow_window_get_inbox_page (f->window), "question");
  g_assert_cmpuint (ow_inbox_page_get_n_shown (ow_window_get_inbox_page (f->window)), ==, 0);
  ow_inbox_page_set_kind_filter (ow_window_get_inbox_page (f->window), NULL);
  g_assert_cmpuint (ow_inbox_page_get_n_shown (ow_window_get_inbox_page (f->window)), ==, 1);
  screenshot (f, GTK_WIDGET (f->window), "04-inbox.png");
  card = ow_inbox_page_find_card (ow_window_get_inbox_page (f->window), id, "w3");
  g_assert_nonnull (card);
  g_assert_true (ow_ask_card_choose (card, "once"));
  wait_cards (f, 0);
  wait_until (f, cond_inbox_shown, GUINT_TO_POINTER (0), "the Inbox page to empty");
  wait_turns_done (f, 1);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ow_application_get_inbox_count (f->app), ==, 0);
  screenshot (f, GTK_WIDGET (f->window), "04b-inbox-empty.png");
}

typedef struct {
  gboolean done;
  guint    status;
  char    *body;
} Http;

static void
on_http_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Http *http = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);

  g_assert_no_error (error);
  http->status = soup_message_get_status (soup_session_get_async_result_message (SOUP_SESSION (source), result));
  http->body = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  http->done = TRUE;
}

static gboolean
cond_http (Fixture *f, gconstpointer data)
{
  return ((const Http *) data)->done;
}

/* POSTs @body to the app's own loopback API (in this process, on this
 * main loop) with its in-memory token in the header the browser UI
 * sends. */
static guint
api_post (Fixture *f, const char *path, const char *body, char **reply)
{
  OwServer *server = ow_application_get_server (f->app);
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u%s", ow_server_get_port (server), path);
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));
  Http http = { FALSE, 0, NULL };

  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-OpenWorker-Token",
                                ow_server_get_token (server));
  soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, on_http_cb, &http);
  wait_until (f, cond_http, &http, "the loopback API to answer");
  if (reply != NULL)
    *reply = g_steal_pointer (&http.body);
  g_free (http.body);
  return http.status;
}

/* A card answered from another surface disappears from the window at
 * once: first as the browser's WebSocket does, through the host; then
 * through the in-process loopback API's inbox route, over HTTP. */
static void
test_answered_elsewhere (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = json_object_new ();
  g_autoptr(GPtrArray) pending = NULL;
  g_autofree char *path = NULL, *reply = NULL;
  const char *id;
  const char *item_id = NULL;
  guint status;

  serve (f, "{\"turns\":[" WRITE_SCRIPT ("w4", "d.txt", "browser") ",{\"text\":\"ok\"},"
            WRITE_SCRIPT ("w4b", "d2.txt", "over http") ",{\"text\":\"written\"}]}");
  id = send_first (f, f->ws, "ask", "Write d.txt");
  wait_cards (f, 1);
  json_object_set_string_member (answer, "decision", "deny");
  json_object_set_string_member (answer, "reason", "not now");
  g_assert_true (ow_session_host_answer (ow_application_get_host (f->app), id, "w4", answer, "browser", &error));
  g_assert_no_error (error);
  wait_event (f, "approval_resolved");
  g_assert_cmpint (find_event (f, "approval_resolved", 0), >=, 0);
  /* Gone with the event itself, not after a poll. */
  g_assert_cmpuint (ow_card_dock_get_n_cards (ow_session_view_get_dock (view_of (f))), ==, 0);
  wait_turns_done (f, 1);
  path = g_build_filename (f->ws, "d.txt", NULL);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* The same session asks again; the answer comes over HTTP. */
  ow_composer_set_text (ow_session_view_get_composer (view_of (f)), "Write d2.txt then");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (ow_session_view_get_composer (view_of (f))), "composer.send",
                                             NULL));
  wait_event_n (f, "permission_required", 2);
  wait_cards (f, 1);
  g_assert_nonnull (ow_card_dock_find (ow_session_view_get_dock (view_of (f)), "w4b"));
  pending = ow_inbox_list (ow_session_host_get_inbox (ow_application_get_host (f->app)), TRUE, NULL);
  for (guint i = 0; pending != NULL && i < pending->len; i++)
    if (g_str_equal (((OwInboxItem *) g_ptr_array_index (pending, i))->call_id, "w4b"))
      item_id = ((OwInboxItem *) g_ptr_array_index (pending, i))->id;
  g_assert_nonnull (item_id);
  {
    g_autofree char *route = g_strdup_printf ("/v1/inbox/%s/resolve", item_id);
    status = api_post (f, route, "{\"resolution\":\"once\"}", &reply);
  }
  g_test_message ("POST /v1/inbox/…/resolve: %u %s", status, reply);
  g_assert_cmpuint (status, ==, 200);
  wait_cards (f, 0);
  wait_turns_done (f, 2);
  g_clear_pointer (&path, g_free);
  path = g_build_filename (f->ws, "d2.txt", NULL);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Reopening a session — in the same window, and in a new process over the
 * same state folder — shows exactly what was shown live. */
static void
test_replay (Fixture *f, gconstpointer data)
{
  g_autofree char *live = NULL;
  g_autofree char *again = NULL;
  g_autofree char *restarted = NULL;
  g_autofree char *id = NULL;

  serve (f, "{\"turns\":[{\"text\":\"Let me look.\",\"reasoning\":\"The folder first.\","
            "\"tool_calls\":[{\"id\":\"l1\",\"name\":\"list_files\",\"arguments\":{\"path\":\".\"}}]},"
            "{\"text\":\"Done **listing**: nothing there.\",\"text_chunks\":4,\"chunk_delay_ms\":20}]}");
  g_file_set_contents (g_build_filename (f->ws, "notes.md", NULL), "# notes\n", -1, NULL);
  id = g_strdup (send_first (f, f->ws, "ask", "What is in this folder?"));
  wait_turns_done (f, 1);
  live = page_html (f);
  g_assert_nonnull (strstr (live, "listing"));
  g_assert_nonnull (strstr (live, "The folder first."));

  ow_window_new_session (f->window, NULL);
  wait_settled (f);
  {
    g_autofree char *empty = page_html (f);
    g_assert_cmpstr (empty, ==, "");
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.open-session", "s", id));
  wait_settled (f);
  again = page_html (f);
  g_assert_cmpstr (again, ==, live);
  screenshot (f, GTK_WIDGET (f->window), "05-replayed.png");

  stop_app (f);
  start_app (f);
  ow_window_open_session (f->window, id);
  wait_settled (f);
  restarted = page_html (f);
  g_assert_cmpstr (restarted, ==, live);
}

/* The sidebar: pinned first, rename, archive, filters, delete with undo,
 * and the badge of a session waiting for a person. */
static void
test_sidebar (Fixture *f, gconstpointer data)
{
  OwSessionHost *host = ow_application_get_host (f->app);
  OwStore *store = ow_context_get_store (ow_application_get_context (f->app));
  OwSessionList *list = ow_window_get_session_list (f->window);
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autoptr(OwSessionItem) first = NULL;
  g_autoptr(OwSessionItem) second = NULL;

  {
    const char *names[] = { "Draft the launch note", "Weekly plan", "Fix the parser" };
    const char *coworkers[] = { "cowork", "cowork", "code" };
    char **ids[] = { &a, &b, &c };
    for (guint i = 0; i < 3; i++)
      {
        OwSessionSpec spec = { .workspace = i == 2 ? f->ws : NULL, .coworker = coworkers[i] };
        g_autoptr(OwSession) s = ow_session_host_create (host, &spec, NULL);
        g_assert_nonnull (s);
        *ids[i] = g_strdup (ow_session_get_id (s));
        g_assert_true (ow_store_session_rename (store, *ids[i], names[i], NULL));
      }
  }
  ow_session_list_refresh (list);
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 3);
  first = g_list_model_get_item (G_LIST_MODEL (list), 0);
  g_assert_true (ow_session_item_get_is_header (first));
  g_assert_cmpstr (ow_session_item_get_title (first), ==, "Recent");

  /* Pin: a "Pinned" group on top. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-pin", "s", b));
  g_clear_object (&first);
  first = g_list_model_get_item (G_LIST_MODEL (list), 0);
  second = g_list_model_get_item (G_LIST_MODEL (list), 1);
  g_assert_cmpstr (ow_session_item_get_title (first), ==, "Pinned");
  g_assert_cmpstr (ow_session_item_get_id (second), ==, b);

  /* Filter by coworker and by folder. */
  ow_session_list_set_filter_coworker (list, "code");
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 1);
  ow_session_list_set_filter_coworker (list, NULL);
  ow_session_list_set_filter_workspace (list, f->ws);
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 1);
  g_assert_cmpint (ow_session_list_find (list, c), >=, 0);
  ow_session_list_set_filter_workspace (list, NULL);

  /* Archive: out of the list, reachable with "Show archived". */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-archive", "s", a));
  g_assert_cmpint (ow_session_list_find (list, a), ==, -1);
  ow_session_list_set_show_archived (list, TRUE);
  g_assert_cmpint (ow_session_list_find (list, a), >=, 0);
  g_assert_true (ow_session_item_get_archived (ow_session_list_lookup (list, a)));
  ow_session_list_set_show_archived (list, FALSE);

  /* Rename through the store the dialog writes to. */
  g_assert_true (ow_store_session_rename (store, c, "Fix the TOML parser", NULL));
  ow_session_list_refresh (list);
  g_assert_cmpstr (ow_session_item_get_title (ow_session_list_lookup (list, c)), ==, "Fix the TOML parser");

  /* Delete, undo, delete for good. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.delete-session", "s", c));
  g_assert_cmpint (ow_session_list_find (list, c), ==, -1);
  screenshot (f, GTK_WIDGET (f->window), "06-sidebar-undo.png");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo-delete", NULL));
  g_assert_cmpint (ow_session_list_find (list, c), >=, 0);
  {
    g_autoptr(OwSessionRow) back = ow_store_session_get (store, c, NULL);
    g_assert_nonnull (back);
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.delete-session", "s", c));
  ow_window_finish_pending (f->window);
  {
    g_autoptr(OwSessionRow) gone = ow_store_session_get (store, c, NULL);
    g_assert_null (gone);
  }

  /* A session waiting for a person carries a badge. */
  serve (f, "{\"turns\":[" WRITE_SCRIPT ("w5", "e.txt", "x") "]}");
  send_first (f, f->ws, "ask", "Write e.txt");
  wait_cards (f, 1);
  ow_session_list_refresh (list);
  g_assert_cmpuint (ow_session_item_get_attention (
                      ow_session_list_lookup (list, ow_session_view_get_session_id (view_of (f)))), ==, 1);
  screenshot (f, GTK_WIDGET (f->window), "07-sidebar.png");
}

static gboolean
cond_settings_window (Fixture *f, gconstpointer data)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (f->app)); l != NULL; l = l->next)
    if (!OW_IS_WINDOW (l->data))
      return TRUE;
  return FALSE;
}

/* With no model key, the composer says why it cannot send and Settings
 * opens on Models & Keys by itself. */
static void
test_no_key (Fixture *f, gconstpointer data)
{
  OwComposer *composer;

  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("OPENWORKER_MODEL");
  start_app (f);
  wait_until (f, cond_settings_window, NULL, "Settings to open on Models & Keys");
  g_assert_false (ow_application_get_model_ready (f->app));
  composer = ow_session_view_get_composer (view_of (f));
  g_assert_false (ow_composer_get_enabled (composer));
  ow_composer_set_text (composer, "hello");
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL)
                  && ow_session_view_get_session_id (view_of (f)) != NULL);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (f->app)); l != NULL; l = l->next)
    if (!OW_IS_WINDOW (l->data))
      screenshot (f, GTK_WIDGET (l->data), "09-settings-opened-on-models.png");
  screenshot (f, GTK_WIDGET (f->window), "08-no-key.png");
}

static gboolean
cond_artifact (Fixture *f, gconstpointer name)
{
  GPtrArray *paths = ow_artifacts_panel_get_paths (ow_window_get_artifacts_panel (f->window));

  for (guint i = 0; i < paths->len; i++)
    if (g_str_has_suffix (g_ptr_array_index (paths, i), name))
      return TRUE;
  return FALSE;
}

/* Deliverables: the files a session wrote (by a file tool or a command)
 * are listed, the report previews as markdown
 * in the no-script view, and an artifact: link resolves to it. */
static void
test_artifacts (Fixture *f, gconstpointer data)
{
  OwArtifactsPanel *panel = ow_window_get_artifacts_panel (f->window);
  g_autofree char *path = NULL;
  GtkWidget *viewer;

  serve (f, "{\"turns\":[" WRITE_SCRIPT ("w6", "report.md", "# Report\\n\\nAll **good**.\\n\\n<script>bad()</script>")
            ",{\"tool_calls\":[{\"id\":\"s6\",\"name\":\"run_shell\","
            "\"arguments\":{\"command\":\"printf 'a,b' > made-by-shell.csv\"}}]}"
            ",{\"text\":\"See [the report](artifact:report.md).\"}]}");
  send_first (f, f->ws, "bypass-approvals", "Write the report");
  wait_turns_done (f, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-artifacts", NULL));
  wait_until (f, cond_artifact, "report.md", "report.md among the deliverables");
  /* A file a command made is a deliverable too. */
  wait_until (f, cond_artifact, "made-by-shell.csv", "made-by-shell.csv among the deliverables");
  path = ow_artifacts_panel_resolve (panel, "report.md");
  g_assert_nonnull (path);
  g_assert_null (ow_artifacts_panel_resolve (panel, "../../etc/passwd"));
  screenshot (f, GTK_WIDGET (f->window), "10-deliverables.png");
  viewer = ow_artifact_viewer_new (GTK_WINDOW (f->window), path);
  g_assert_cmpstr (ow_artifact_viewer_get_kind (OW_ARTIFACT_VIEWER (viewer)), ==, "markdown");
  gtk_window_present (GTK_WINDOW (viewer));
  ow_test_spin_for (1500);
  screenshot (f, viewer, "11-artifact-preview.png");
  g_object_ref (viewer);
  gtk_window_destroy (GTK_WINDOW (viewer));
  g_assert_finalize_object (viewer);
}

/* ---- The GNOME window: adaptive, searchable, one empty session per folder ---- */

typedef gboolean (*WidgetMatch) (GtkWidget *widget, gconstpointer data);

/* The first widget under @root (itself included) that @match accepts. */
static GtkWidget *
find_widget (GtkWidget *root, WidgetMatch match, gconstpointer data)
{
  if (match (root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, match, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* On screen and of the type @data holds (GType). */
static gboolean
is_shown_type (GtkWidget *widget, gconstpointer data)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (widget, *(const GType *) data) && gtk_widget_get_mapped (widget);
}

static gboolean
has_label_text (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL;
}

static gboolean
has_action (GtkWidget *widget, gconstpointer action)
{
  return GTK_IS_ACTIONABLE (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0;
}

/* The buttons shown under @root, in the order they are laid out. */
static void
collect_buttons (GtkWidget *root, GPtrArray *out)
{
  if (GTK_IS_BUTTON (root) && gtk_widget_get_mapped (root))
    g_ptr_array_add (out, root);
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect_buttons (c, out);
}

/* @widget is shown whole inside the window, not cut off at its edge. */
static void
assert_inside_window (Fixture *f, GtkWidget *widget, const char *what)
{
  graphene_rect_t r;

  g_assert_nonnull (widget);
  g_assert_true (gtk_widget_get_mapped (widget));
  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (f->window), &r));
  if (r.origin.x < 0 || r.origin.x + r.size.width > gtk_widget_get_width (GTK_WIDGET (f->window)) + 0.5
      || r.size.width < 8)
    g_error ("%s is cut off: x %.0f, width %.0f in a window %d wide", what, r.origin.x, r.size.width,
             gtk_widget_get_width (GTK_WIDGET (f->window)));
}

/* The window's widget is the default size less the frame GTK draws
 * around it without a compositor (a few pixels a side). */
static gboolean
cond_width (Fixture *f, gconstpointer data)
{
  return ABS (gtk_widget_get_width (GTK_WIDGET (f->window)) - GPOINTER_TO_INT (data)) <= 12;
}

static void
resize (Fixture *f, int width)
{
  gtk_window_set_default_size (GTK_WINDOW (f->window), width, 760);
  wait_until (f, cond_width, GINT_TO_POINTER (width), "the window to take its new width");
  ow_test_spin_for (400);
}

static void
screenshot_both (Fixture *f, const char *name)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_autofree char *light = g_strdup_printf ("%s-light.png", name);
  g_autofree char *dark = g_strdup_printf ("%s-dark.png", name);

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  screenshot (f, GTK_WIDGET (f->window), light);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  screenshot (f, GTK_WIDGET (f->window), dark);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_PREFER_LIGHT);
}

/* At 640 px the sidebar folds over the page and Send stays in sight; at
 * 900 px the deliverables fit beside the page, their buttons whole; the
 * Inbox shows no session's deliverables. */
static void
test_adaptive (Fixture *f, gconstpointer data)
{
  OwComposer *composer = ow_session_view_get_composer (view_of (f));
  AdwFlap *sidebar, *deliverables;
  GtkWidget *panel = GTK_WIDGET (ow_window_get_artifacts_panel (f->window));

  serve (f, "{\"turns\":[" WRITE_SCRIPT ("w7", "summary-of-the-quarter.md", "# Q3") ",{\"text\":\"Done.\"}]}");
  send_first (f, f->ws, "bypass-approvals", "Write the summary");
  wait_turns_done (f, 1);
  sidebar = ADW_FLAP (gtk_widget_get_ancestor (GTK_WIDGET (ow_window_get_session_list_view (f->window)), ADW_TYPE_FLAP));
  deliverables = ADW_FLAP (gtk_widget_get_ancestor (panel, ADW_TYPE_FLAP));
  g_assert_true (deliverables != sidebar);

  resize (f, 1180);
  g_assert_false (adw_flap_get_folded (sidebar));
  g_assert_true (adw_flap_get_reveal_flap (sidebar));
  screenshot_both (f, "20-wide");

  resize (f, 640);
  g_assert_true (adw_flap_get_folded (sidebar));
  /* Folded, the sidebar starts hidden; its toggle brings it over the page. */
  adw_flap_set_reveal_flap (sidebar, FALSE);
  ow_test_spin_for (400);
  assert_inside_window (f, find_widget (GTK_WIDGET (composer), has_action, "composer.send"), "Send at 640 px");
  screenshot_both (f, "21-narrow");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-sidebar", NULL));
  g_assert_true (adw_flap_get_reveal_flap (sidebar));
  screenshot_both (f, "22-narrow-sidebar");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-sidebar", NULL));

  resize (f, 900);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-artifacts", NULL));
  wait_until (f, cond_artifact, "summary-of-the-quarter.md", "the summary among the deliverables");
  ow_test_spin_for (400);
  g_assert_true (adw_flap_get_reveal_flap (deliverables));
  screenshot_both (f, "23-deliverables-900");
  {
    /* Every button of the panel whole inside the window. */
    g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

    collect_buttons (panel, buttons);
    for (guint i = 0; i < buttons->len; i++)
      assert_inside_window (f, g_ptr_array_index (buttons, i), "a deliverables button at 900 px");
    g_assert_cmpuint (buttons->len, >=, 3);
  }
  assert_inside_window (f, find_widget (GTK_WIDGET (composer), has_action, "composer.send"), "Send at 900 px");

  /* The Inbox is nobody's session: no deliverables from the last one. */
  ow_window_show_inbox (f->window);
  ow_test_spin_for (400);
  g_assert_cmpuint (ow_artifacts_panel_get_paths (OW_ARTIFACTS_PANEL (panel))->len, ==, 0);
  screenshot_both (f, "24-inbox-900");
  resize (f, 1180);
}

static gboolean
cond_page_has (Fixture *f, gconstpointer needle)
{
  g_autofree char *text = page_text_expanded (f);

  return text != NULL && strstr (text, needle) != NULL;
}

/* A command's card at 640 px: in plain words, its buttons whole, Deny
 * first and Allow once last; the step says it waits, then that it was
 * denied, never that it ran. */
static void
test_narrow_card (Fixture *f, gconstpointer data)
{
  OwAskCard *card;
  AdwFlap *sidebar;
  g_autofree char *text = NULL;

  serve (f, "{\"turns\":[{\"tool_calls\":[{\"id\":\"s1\",\"name\":\"run_shell\","
            "\"arguments\":{\"command\":\"cp notes.txt /etc/notes.txt\"}}]},{\"text\":\"Not copied.\"}]}");
  send_first (f, f->ws, "ask", "Copy the notes");
  wait_cards (f, 1);
  card = ow_card_dock_find (ow_session_view_get_dock (view_of (f)), "s1");
  g_assert_true (OW_IS_APPROVAL_CARD (card));
  g_assert_nonnull (find_widget (GTK_WIDGET (card), has_label_text, "Run a command"));
  g_assert_nonnull (find_widget (GTK_WIDGET (card), has_label_text, "reaches outside the session's folder (/etc/notes.txt)"));
  g_assert_null (find_widget (GTK_WIDGET (card), has_label_text, "exec"));
  wait_until (f, cond_page_has, "Waiting to run", "the step to wait");
  text = page_text_expanded (f);
  g_assert_null (strstr (text, "Ran "));

  resize (f, 640);
  sidebar = ADW_FLAP (gtk_widget_get_ancestor (GTK_WIDGET (ow_window_get_session_list_view (f->window)), ADW_TYPE_FLAP));
  adw_flap_set_reveal_flap (sidebar, FALSE);
  ow_test_spin_for (400);
  {
    g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
    graphene_rect_t first, last;

    collect_buttons (GTK_WIDGET (card), buttons);
    g_assert_cmpuint (buttons->len, >=, 2);
    for (guint i = 0; i < buttons->len; i++)
      assert_inside_window (f, g_ptr_array_index (buttons, i), "a card button at 640 px");
    /* Deny first, Allow once last, as the browser orders them (the
     * answers; Copy, an icon in the card's head, is not one). */
    for (guint i = buttons->len; i-- > 0;)
      if (gtk_button_get_label (g_ptr_array_index (buttons, i)) == NULL)
        g_ptr_array_remove_index (buttons, i);
    g_assert_cmpstr (gtk_button_get_label (g_ptr_array_index (buttons, 0)), ==, "_Deny");
    g_assert_cmpstr (gtk_button_get_label (g_ptr_array_index (buttons, buttons->len - 1)), ==, "Allow _once");
    g_assert_true (gtk_widget_compute_bounds (g_ptr_array_index (buttons, 0), GTK_WIDGET (f->window), &first));
    g_assert_true (gtk_widget_compute_bounds (g_ptr_array_index (buttons, buttons->len - 1), GTK_WIDGET (f->window),
                                              &last));
    g_assert_cmpfloat (first.origin.x, <, last.origin.x);
  }
  screenshot_both (f, "27-narrow-card");

  g_assert_true (ow_ask_card_choose (card, "deny"));
  wait_turns_done (f, 1);
  wait_until (f, cond_page_has, "Denied", "the step to say it was denied");
  g_clear_pointer (&text, g_free);
  text = page_text_expanded (f);
  g_assert_null (strstr (text, "Ran "));
  screenshot_both (f, "28-denied-step");
  resize (f, 1180);
}

static gboolean
cond_card_shown (Fixture *f, gconstpointer id)
{
  return ow_card_dock_find (ow_session_view_get_dock (view_of (f)), id) != NULL;
}

/* The text Copy put on the clipboard (it is this process's own). */
static char *
clipboard_text (GtkWidget *widget)
{
  GdkContentProvider *content = gdk_clipboard_get_content (gtk_widget_get_clipboard (widget));
  g_auto(GValue) value = G_VALUE_INIT;

  g_assert_nonnull (content);
  g_value_init (&value, G_TYPE_STRING);
  g_assert_true (gdk_content_provider_get_value (content, &value, NULL));
  return g_value_dup_string (&value);
}

static gboolean
has_tooltip_text (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), text) == 0;
}

/* One card: its plain title and subject line, and what Copy takes. */
static OwAskCard *
check_card (Fixture *f, const char *id, const char *title, const char *subject, const char *copy_tip,
            const char *copied)
{
  OwAskCard *card;
  GtkWidget *button;
  g_autofree char *text = NULL;

  card = ow_card_dock_find (ow_session_view_get_dock (view_of (f)), id);
  g_assert_true (OW_IS_APPROVAL_CARD (card));
  g_assert_nonnull (find_widget (GTK_WIDGET (card), has_label_text, title));
  if (subject != NULL)
    g_assert_nonnull (find_widget (GTK_WIDGET (card), has_label_text, subject));
  button = find_widget (GTK_WIDGET (card), has_tooltip_text, copy_tip);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_mapped (button));
  g_signal_emit_by_name (button, "clicked");
  text = clipboard_text (button);
  g_assert_cmpstr (text, ==, copied);
  return card;
}

/* Cards and steps for the tools beyond commands, in plain words: a file
 * edit shows its diff and copies the new text, a patch copies whole (a
 * page to fetch is low risk and asks nothing; its card's words are in
 * test-ui-format); the finished steps keep the change to look at and
 * say what guarded them in words, never the engine's. */
static void
test_card_kinds (Fixture *f, gconstpointer data)
{
  g_autofree char *notes = g_build_filename (f->ws, "notes.md", NULL);
  g_autofree char *content = NULL;
  g_autofree char *text = NULL;
  OwAskCard *card;
  AdwFlap *sidebar;

  g_assert_true (g_file_set_contents (notes, "# Notes\nold line\nend\n", -1, NULL));
  serve (f, "{\"turns\":["
            "{\"tool_calls\":[{\"id\":\"e1\",\"name\":\"replace_in_file\",\"arguments\":{\"path\":\"notes.md\","
            "\"old\":\"old line\\n\",\"new\":\"new line\\n\"}}]},"
            "{\"tool_calls\":[{\"id\":\"p1\",\"name\":\"apply_patch\",\"arguments\":{\"patch\":"
            "\"*** Begin Patch\\n*** Add File: todo.txt\\n+buy milk\\n*** End Patch\"}}]},"
            "{\"text\":\"Done.\"}]}");
  send_first (f, f->ws, "ask", "Tidy the notes");

  wait_cards (f, 1);
  card = check_card (f, "e1", "Change notes.md?", NULL, "Copy the new text", "new line\n");
  g_assert_true (gtk_widget_get_visible (find_widget (GTK_WIDGET (card), is_shown_type,
                                                      &(GType) { GTK_TYPE_TEXT_VIEW })));
  /* The policy's bare "requires approval" is what the card already says. */
  g_assert_null (find_widget (GTK_WIDGET (card), has_label_text, "requires approval"));
  screenshot_both (f, "30-card-edit-wide");
  resize (f, 640);
  sidebar = ADW_FLAP (gtk_widget_get_ancestor (GTK_WIDGET (ow_window_get_session_list_view (f->window)), ADW_TYPE_FLAP));
  adw_flap_set_reveal_flap (sidebar, FALSE);
  ow_test_spin_for (400);
  {
    g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

    collect_buttons (GTK_WIDGET (card), buttons);
    for (guint i = 0; i < buttons->len; i++)
      assert_inside_window (f, g_ptr_array_index (buttons, i), "an edit card's button at 640 px");
  }
  screenshot_both (f, "31-card-edit-narrow");
  resize (f, 1180);
  g_assert_true (ow_ask_card_choose (card, "once"));

  wait_until (f, cond_card_shown, "p1", "the patch's card");
  card = check_card (f, "p1", "Change files with a patch?", NULL, "Copy the patch",
                     "*** Begin Patch\n*** Add File: todo.txt\n+buy milk\n*** End Patch");
  resize (f, 640);
  adw_flap_set_reveal_flap (sidebar, FALSE);
  ow_test_spin_for (400);
  screenshot_both (f, "33-card-patch-narrow");
  resize (f, 1180);
  g_assert_true (ow_ask_card_choose (card, "deny"));
  wait_turns_done (f, 1);

  g_assert_true (g_file_get_contents (notes, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "# Notes\nnew line\nend\n");
  wait_until (f, cond_page_has, "Done.", "the answer");
  text = page_text_expanded (f);
  g_assert_nonnull (strstr (text, "Edited"));
  g_assert_nonnull (strstr (text, "Changes"));
  g_assert_null (strstr (text, "parser only"));
  g_assert_null (strstr (text, "sandbox:"));
  {
    /* The edit's change, folded once done; opened, the diff it made. */
    g_autofree char *diff = page_eval (f, "(() => { const d = document.querySelector('#log details.step-change');"
                                          " if (!d) return ''; d.open = true;"
                                          " return d.querySelector('pre.diff').innerText; })()");
    g_assert_nonnull (strstr (diff, "old line"));
    g_assert_nonnull (strstr (diff, "new line"));
  }
  screenshot_both (f, "34-file-steps-wide");
}

/* The folder card, wide and narrow, light and dark: the folder on its
 * own line, the answers whole; then a question's card. (A site card needs a sandbox, whose
 * allow list asks for sites: the sandbox suite's.) */
static void
test_folder_card (Fixture *f, gconstpointer data)
{
  OwAskCard *card;
  AdwFlap *sidebar;

  serve (f, "{\"turns\":["
            "{\"tool_calls\":[{\"id\":\"d1\",\"name\":\"request_directory\",\"arguments\":{"
            "\"reason\":\"The quarterly reports are kept there.\",\"path\":\"/srv/reports\"}}]},"
            "{\"tool_calls\":[{\"id\":\"q2\",\"name\":\"ask_user\",\"arguments\":{\"question\":"
            "\"Which quarter should the summary cover?\",\"options\":[\"Q2\",\"Q3\"]}}]},"
            "{\"text\":\"Fine.\"}]}");
  send_first (f, f->ws, "ask", "Summarize the reports");
  wait_cards (f, 1);
  card = ow_card_dock_find (ow_session_view_get_dock (view_of (f)), "d1");
  g_assert_nonnull (card);
  g_assert_nonnull (find_widget (GTK_WIDGET (card), has_label_text, "/srv/reports"));
  screenshot_both (f, "35-card-folder-wide");
  resize (f, 640);
  sidebar = ADW_FLAP (gtk_widget_get_ancestor (GTK_WIDGET (ow_window_get_session_list_view (f->window)), ADW_TYPE_FLAP));
  adw_flap_set_reveal_flap (sidebar, FALSE);
  ow_test_spin_for (400);
  {
    g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

    collect_buttons (GTK_WIDGET (card), buttons);
    for (guint i = 0; i < buttons->len; i++)
      assert_inside_window (f, g_ptr_array_index (buttons, i), "a folder card's button at 640 px");
    /* No first and the grant last, as on every card. */
    g_assert_cmpstr (gtk_button_get_label (g_ptr_array_index (buttons, 0)), ==, "_No");
    g_assert_true (gtk_widget_has_css_class (g_ptr_array_index (buttons, buttons->len - 1), "suggested-action"));
  }
  screenshot_both (f, "36-card-folder-narrow");
  g_assert_true (ow_ask_card_choose (card, "no"));

  /* The question card after it, narrow and wide. */
  wait_until (f, cond_card_shown, "q2", "the question's card");
  card = ow_card_dock_find (ow_session_view_get_dock (view_of (f)), "q2");
  g_assert_true (OW_IS_QUESTION_CARD (card));
  adw_flap_set_reveal_flap (sidebar, FALSE);
  ow_test_spin_for (400);
  screenshot_both (f, "37-card-question-narrow");
  resize (f, 1180);
  screenshot_both (f, "38-card-question-wide");
  g_assert_true (ow_ask_card_choose (card, "Q3"));
  wait_turns_done (f, 1);
}

static gboolean
cond_n_sessions (Fixture *f, gconstpointer data)
{
  return ow_session_list_get_n_sessions (ow_window_get_session_list (f->window)) == GPOINTER_TO_UINT (data);
}

/* The sidebar's search; a folder opened twice leaves one empty session. */
static void
test_search_and_folder (Fixture *f, gconstpointer data)
{
  OwSessionHost *host = ow_application_get_host (f->app);
  OwStore *store = ow_context_get_store (ow_application_get_context (f->app));
  OwSessionList *list = ow_window_get_session_list (f->window);
  const char *names[] = { "Draft the launch note", "Weekly plan", "Plan the offsite" };
  const char *first;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      OwSessionSpec spec = { .coworker = "cowork" };
      g_autoptr(OwSession) s = ow_session_host_create (host, &spec, NULL);
      g_assert_true (ow_store_session_rename (store, ow_session_get_id (s), names[i], NULL));
    }
  ow_session_list_refresh (list);
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 3);

  /* Every word, any case, in any order. */
  ow_session_list_set_filter_text (list, "plan");
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 2);
  ow_session_list_set_filter_text (list, "OFFSITE plan");
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 1);
  ow_session_list_set_filter_text (list, "nothing like it");
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 0);
  screenshot (f, GTK_WIDGET (f->window), "25-search-empty.png");
  ow_session_list_set_filter_text (list, "  ");
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 3);
  /* Typed into the sidebar's search entry. */
  {
    GtkWidget *sidebar = adw_flap_get_flap (ADW_FLAP (gtk_widget_get_ancestor (
                           GTK_WIDGET (ow_window_get_session_list_view (f->window)), ADW_TYPE_FLAP)));
    GType type = GTK_TYPE_SEARCH_ENTRY;
    GtkWidget *entry = find_widget (sidebar, is_shown_type, &type);

    g_assert_nonnull (entry);
    gtk_editable_set_text (GTK_EDITABLE (entry), "offsite");
    wait_until (f, cond_n_sessions, GUINT_TO_POINTER (1), "the search to leave one session");
    screenshot (f, GTK_WIDGET (f->window), "26-search.png");
    gtk_editable_set_text (GTK_EDITABLE (entry), "");
    wait_until (f, cond_n_sessions, GUINT_TO_POINTER (3), "the cleared search to show all");
  }

  /* openworker-desktop FOLDER, twice: one session there, not two. */
  ow_window_new_session_in (f->window, f->ws);
  wait_until (f, cond_n_sessions, GUINT_TO_POINTER (4), "the folder's session in the sidebar");
  first = ow_session_view_get_session_id (view_of (f));
  g_assert_nonnull (first);
  {
    g_autofree char *kept = g_strdup (first);
    ow_window_new_session (f->window, NULL);
    ow_window_new_session_in (f->window, f->ws);
    g_assert_cmpstr (ow_session_view_get_session_id (view_of (f)), ==, kept);
  }
  ow_session_list_refresh (list);
  g_assert_cmpuint (ow_session_list_get_n_sessions (list), ==, 4);

  /* Rename in an AdwMessageDialog. */
  {
    g_autofree char *id = g_strdup (ow_session_view_get_session_id (view_of (f)));
    g_autoptr(OwSessionRow) row = NULL;
    AdwMessageDialog *dialog = NULL;

    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.rename-session", "s", id));
    ow_test_spin_for (300);
    for (GList *l = gtk_window_list_toplevels (); l != NULL; l = g_list_delete_link (l, l))
      if (ADW_IS_MESSAGE_DIALOG (l->data))
        dialog = l->data;
    g_assert_nonnull (dialog);
    gtk_editable_set_text (GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog)), "Project notes");
    screenshot (f, GTK_WIDGET (dialog), "29-rename-dialog.png");
    adw_message_dialog_response (dialog, "rename");
    ow_test_spin_for (300);
    row = ow_store_session_get (store, id, NULL);
    g_assert_cmpstr (row->title, ==, "Project notes");
  }
}

/* The composer: attachments within the limits, refusals with a reason,
 * and the attachment reaching the model. */
static void
test_attachments (Fixture *f, gconstpointer data)
{
  OwComposer *composer = ow_session_view_get_composer (view_of (f));
  g_autofree char *notes = g_build_filename (f->tmp, "notes.txt", NULL);
  g_autofree char *pdf = g_build_filename (f->tmp, "long.pdf", NULL);
  g_autoptr(GFile) notes_file = g_file_new_for_path (notes);
  g_autoptr(GFile) pdf_file = g_file_new_for_path (pdf);
  g_autofree char *body = NULL;
  JsonArray *requests;

  g_assert_true (g_file_set_contents (notes, "the secret ingredient is thyme", -1, NULL));
  {
    cairo_surface_t *surface = cairo_pdf_surface_create (pdf, 200, 200);
    cairo_t *cr = cairo_create (surface);
    for (int i = 0; i < 21; i++)
      cairo_show_page (cr);
    cairo_destroy (cr);
    cairo_surface_destroy (surface);
  }
  serve (f, "{\"turns\":[{\"text\":\"Thyme, noted.\"}]}");
  ow_window_new_session (f->window, f->ws);
  ow_composer_add_file (composer, pdf_file);
  while (ow_composer_get_busy (composer))
    ow_test_spin_for (20);
  g_assert_cmpuint (ow_composer_get_n_attachments (composer), ==, 0);
  ow_composer_add_file (composer, notes_file);
  ow_composer_add_file (composer, notes_file);   /* the same file once */
  while (ow_composer_get_busy (composer))
    ow_test_spin_for (20);
  g_assert_cmpuint (ow_composer_get_n_attachments (composer), ==, 1);
  ow_composer_set_text (composer, "Read this");
  screenshot (f, GTK_WIDGET (f->window), "12-composer-attachment.png");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL));
  wait_turns_done (f, 1);
  requests = ow_model_server_get_requests (f->server);
  body = json_to_string (json_array_get_element (requests, 0), FALSE);
  g_assert_nonnull (strstr (body, "[Attached file: notes.txt]"));
  g_assert_nonnull (strstr (body, "thyme"));
  g_assert_cmpuint (ow_composer_get_n_attachments (composer), ==, 0);
}

/* The mode chip changes the live session's mode (never to the dangerous
 * one), and Esc's action stops a running turn. */
static void
test_mode_and_stop (Fixture *f, gconstpointer data)
{
  OwComposer *composer = ow_session_view_get_composer (view_of (f));
  g_autoptr(OwSession) session = NULL;
  g_autofree char *text = NULL;
  const char *id;

  serve (f, "{\"turns\":[{\"text\":\"First.\"},{\"text\":\"A long answer that will be stopped.\",\"delay_ms\":3000}]}");
  id = send_first (f, f->ws, "ask", "Hello");
  wait_turns_done (f, 1);
  ow_composer_set_mode (composer, "bypass-approvals");
  session = ow_session_host_get (ow_application_get_host (f->app), id, NULL);
  g_assert_cmpstr (ow_session_get_mode (session), ==, "bypass-approvals");
  wait_event (f, "mode_changed");

  ow_composer_set_text (composer, "Go on");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL));
  g_assert_true (ow_composer_get_running (composer));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.stop", NULL));
  wait_turns_done (f, 2);
  text = page_text (f);
  g_assert_nonnull (strstr (text, "Approval mode: Bypass approvals"));
  g_assert_nonnull (strstr (text, "Interrupted."));
  g_assert_false (ow_composer_get_running (composer));
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_test_init (&argc, &argv, NULL);
  /* ui-session.sh provides a display (Xvfb when none is set); only a run
   * without any display skips. */
  if (!gtk_init_check ())
    {
      g_printerr ("SKIP: no display\n");
      return 77;
    }
  /* WebKit helpers are started by absolute path under meson. */
  g_set_prgname ("test-ui-desktop");
  g_test_add ("/ow/ui/desktop/stream", Fixture, NULL, setup, test_stream, teardown);
  g_test_add ("/ow/ui/desktop/approval-once", Fixture, NULL, setup, test_approval_once, teardown);
  g_test_add ("/ow/ui/desktop/readonly-commands", Fixture, NULL, setup, test_readonly_commands, teardown);
  g_test_add ("/ow/ui/desktop/always-allow", Fixture, NULL, setup, test_always_allow, teardown);
  g_test_add ("/ow/ui/desktop/question", Fixture, NULL, setup, test_question, teardown);
  g_test_add ("/ow/ui/desktop/inbox", Fixture, NULL, setup, test_inbox, teardown);
  g_test_add ("/ow/ui/desktop/answered-elsewhere", Fixture, NULL, setup, test_answered_elsewhere, teardown);
  g_test_add ("/ow/ui/desktop/replay", Fixture, NULL, setup, test_replay, teardown);
  g_test_add ("/ow/ui/desktop/sidebar", Fixture, NULL, setup, test_sidebar, teardown);
  g_test_add ("/ow/ui/desktop/no-key", Fixture, "no-app", setup, test_no_key, teardown);
  g_test_add ("/ow/ui/desktop/artifacts", Fixture, NULL, setup, test_artifacts, teardown);
  g_test_add ("/ow/ui/desktop/attachments", Fixture, NULL, setup, test_attachments, teardown);
  g_test_add ("/ow/ui/desktop/mode-and-stop", Fixture, NULL, setup, test_mode_and_stop, teardown);
  g_test_add ("/ow/ui/desktop/adaptive", Fixture, NULL, setup, test_adaptive, teardown);
  g_test_add ("/ow/ui/desktop/search-and-folder", Fixture, NULL, setup, test_search_and_folder, teardown);
  g_test_add ("/ow/ui/desktop/narrow-card", Fixture, NULL, setup, test_narrow_card, teardown);
  g_test_add ("/ow/ui/desktop/card-kinds", Fixture, NULL, setup, test_card_kinds, teardown);
  g_test_add ("/ow/ui/desktop/folder-card", Fixture, NULL, setup, test_folder_card, teardown);
  return g_test_run ();
}
