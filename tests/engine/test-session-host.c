/* test-session-host.c: live sessions through OwSessionHost, against the
 * scripted model server: turns, asks parked in the inbox and answered,
 * one turn at a time, interrupts, live mode/model changes, attachments,
 * deletion, and recovery of a session whose process died mid-turn. */
#include "ow-files.h"
#include <glib/gstdio.h>
#include <string.h>

#include "core/ow-context.h"
#include "core/ow-session-host.h"
#include "mcp/ow-mcp-provider.h"
#include "ow-model-server.h"
#include "ow-test-utils.h"

typedef struct {
  char          *tmp;
  char          *ws;
  OwPaths       *paths;
  OwContext     *ctx;
  OwSessionHost *host;
  OwModelServer *server;
  GPtrArray     *events;  /* OwEvent* of every session */
  guint          list_changes;  /* ::sessions-changed emissions */
} Fixture;

static void
on_sessions_changed_cb (OwSessionHost *host, gpointer user_data)
{
  ((Fixture *) user_data)->list_changes++;
}

static void
on_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  Fixture *f = user_data;

  g_assert_cmpstr (session_id, ==, event->session_id);
  g_ptr_array_add (f->events, ow_event_copy (event));
}

static void
open_host (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  OwContextOptions options = { .paths = f->paths, .isolated = TRUE };

  f->ctx = ow_context_new (&options, &error);
  g_assert_no_error (error);
  f->host = ow_session_host_new (f->ctx, "test", &error);
  g_assert_no_error (error);
  g_signal_connect (f->host, "session-event", G_CALLBACK (on_event_cb), f);
  g_signal_connect (f->host, "sessions-changed", G_CALLBACK (on_sessions_changed_cb), f);
}

static void
close_host (Fixture *f)
{
  g_clear_object (&f->host);
  g_clear_object (&f->ctx);
}

static void
serve (Fixture *f, const char *script)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (script, &error);
  g_autofree char *url = NULL, *base = NULL;

  g_assert_no_error (error);
  g_clear_object (&f->server);
  f->server = ow_model_server_new (node, &error);
  g_assert_no_error (error);
  url = ow_model_server_get_url (f->server);
  base = g_strdup_printf ("%s/v1", url);
  g_setenv ("OPENAI_BASE_URL", base, TRUE);
}

static void
setup (Fixture *f, gconstpointer data)
{
  f->tmp = ow_test_make_tmpdir ("ow-host");
  f->ws = g_build_filename (f->tmp, "ws", NULL);
  g_mkdir (f->ws, 0700);
  f->paths = ow_paths_new_under (f->tmp);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_event_free);
  g_setenv ("OPENAI_API_KEY", "sk-test-host-0123456789", TRUE);
  open_host (f);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  close_host (f);
  g_clear_object (&f->server);
  g_ptr_array_unref (f->events);
  ow_paths_free (f->paths);
  ow_remove_tree (f->tmp, NULL);
  g_free (f->ws);
  g_free (f->tmp);
}

/* The index of the first event of @type for @session_id from @from on,
 * or -1. */
static int
find_event (Fixture *f, const char *session_id, const char *type, guint from)
{
  for (guint i = from; i < f->events->len; i++)
    {
      OwEvent *e = g_ptr_array_index (f->events, i);
      if (g_str_equal (e->type, type) && g_str_equal (e->session_id, session_id))
        return (int) i;
    }
  return -1;
}

/* Runs the main loop until an event of @type arrives for @session_id
 * (counting from @from). Returns its index. */
static guint
wait_for (Fixture *f, const char *session_id, const char *type, guint from)
{
  g_autofree char *what = g_strdup_printf ("a %s event for %s", type, session_id);
  OwTestWait wait;
  int i;

  ow_test_wait_begin (&wait, NULL, what, G_STRLOC);
  while ((i = find_event (f, session_id, type, from)) < 0)
    ow_test_wait_step (&wait);
  ow_test_wait_end (&wait);
  return (guint) i;
}

static OwEvent *
event_at (Fixture *f, guint i)
{
  return g_ptr_array_index (f->events, i);
}

static OwSession *
new_session (Fixture *f, const char *workspace, const char *mode)
{
  g_autoptr(GError) error = NULL;
  OwSessionSpec spec = { .workspace = workspace, .model = "openai:gpt-4o", .mode = mode, .coworker = "cowork" };
  OwSession *s = ow_session_host_create (f->host, &spec, &error);

  g_assert_no_error (error);
  return s;
}

#define WRITE_SCRIPT \
  "{\"turns\":[{\"tool_calls\":[{\"id\":\"w1\",\"name\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"," \
  "\"content\":\"from the host\"}}]},{\"text\":\"written\"}]}"

static void
test_approval_answered_through_the_host (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  g_autofree char *path = g_build_filename (f->ws, "a.txt", NULL);
  g_autofree char *content = NULL;
  g_autoptr(GPtrArray) pending = NULL;
  guint asked, resolved, done, changes;
  const char *id;

  serve (f, WRITE_SCRIPT);
  s = new_session (f, f->ws, "ask");
  id = ow_session_get_id (s);
  changes = f->list_changes;
  g_assert_true (ow_session_host_send (f->host, id, "write a.txt", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ow_session_host_is_running (f->host, id));

  /* One turn at a time. */
  g_assert_false (ow_session_host_send (f->host, id, "again", NULL, &error));
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_BUSY);
  g_clear_error (&error);

  asked = wait_for (f, id, "permission_required", 0);
  g_assert_cmpstr (ow_json_get_string (event_at (f, asked)->data, "call_id"), ==, "w1");
  /* The ask is parked in the inbox, where any surface can see it. */
  pending = ow_inbox_list (ow_session_host_get_inbox (f->host), TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pending->len, ==, 1);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  {
    g_autoptr(JsonObject) answer = json_object_new ();
    json_object_set_string_member (answer, "decision", "bogus");
    g_assert_false (ow_session_host_answer (f->host, id, "w1", answer, "browser", &error));
    g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID);
    g_clear_error (&error);
    json_object_set_string_member (answer, "decision", "once");
    g_assert_true (ow_session_host_answer (f->host, id, "w1", answer, "browser", &error));
    g_assert_no_error (error);
    /* A second surface is too late. */
    g_assert_false (ow_session_host_answer (f->host, id, "w1", answer, "desktop", &error));
    g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_NO_ASK);
    g_clear_error (&error);
  }
  resolved = wait_for (f, id, "approval_resolved", asked);
  g_assert_cmpstr (ow_json_get_string (event_at (f, resolved)->data, "decision"), ==, "once");
  done = wait_for (f, id, "turn_done", resolved);
  g_assert_cmpuint (done, ==, f->events->len - 1);  /* turn_done is the last frame */
  g_assert_false (ow_session_host_is_running (f->host, id));
  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "from the host");
  /* The list row changed at: turn start, the ask, its answer, turn end. */
  g_assert_cmpuint (f->list_changes - changes, ==, 4);
}

/* Attendance is the session's: a session set to "auto" has its question
 * answered by rule and finishes, while the attended session beside it, in
 * the same host, parks the same question in the inbox. */
static void
test_attendance_per_session (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) automation = NULL;
  g_autoptr(OwSession) attended = NULL;
  g_autoptr(GPtrArray) pending = NULL;
  const char *auto_id, *person_id;
  guint done, asked;
  JsonObject *tool_msg = NULL;

  serve (f, "{\"turns\":["
            " {\"tool_calls\":[{\"id\":\"q1\",\"name\":\"ask_user\",\"arguments\":{\"question\":\"Which city?\"}}]},"
            " {\"text\":\"went on\"},"
            " {\"tool_calls\":[{\"id\":\"q2\",\"name\":\"ask_user\",\"arguments\":{\"question\":\"Which city?\"}}]}"
            "]}");
  automation = new_session (f, f->ws, "ask");
  attended = new_session (f, f->ws, "ask");
  auto_id = ow_session_get_id (automation);
  person_id = ow_session_get_id (attended);

  g_assert_false (ow_session_host_set_attendance (f->host, auto_id, "sometimes", &error));
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_true (ow_session_host_set_attendance (f->host, auto_id, "auto", &error));
  g_assert_no_error (error);
  g_assert_true (ow_session_host_set_attendance (f->host, person_id, "attended", &error));
  g_assert_no_error (error);

  g_assert_true (ow_session_host_send (f->host, auto_id, "go", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ow_session_host_set_attendance (f->host, auto_id, "inbox", &error));
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_BUSY);
  g_clear_error (&error);
  done = wait_for (f, auto_id, "turn_done", 0);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (automation)); i++)
    {
      JsonObject *m = ow_session_get_message_json (automation, i);
      if (g_strcmp0 (ow_json_get_string (m, "role"), "tool") == 0)
        tool_msg = m;
    }
  g_assert_nonnull (tool_msg);
  g_assert_nonnull (strstr (ow_json_get_string (tool_msg, "content"), OW_AUTO_ANSWER));
  pending = ow_inbox_list (ow_session_host_get_inbox (f->host), TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pending->len, ==, 0);
  g_clear_pointer (&pending, g_ptr_array_unref);

  /* Positive control: the same question in the attended session waits for
   * a person, in the inbox. */
  g_assert_true (ow_session_host_send (f->host, person_id, "go", NULL, &error));
  g_assert_no_error (error);
  asked = wait_for (f, person_id, "question_requested", done);
  g_assert_cmpstr (ow_json_get_string (event_at (f, asked)->data, "call_id"), ==, "q2");
  pending = ow_inbox_list (ow_session_host_get_inbox (f->host), TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pending->len, ==, 1);
  g_assert_true (ow_session_host_is_running (f->host, person_id));
  ow_session_host_interrupt (f->host, person_id);
  wait_for (f, person_id, "turn_done", asked);
}

static void
test_scratch_folder_and_interrupt (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  GPtrArray *roots;
  guint i;
  const char *id;

  serve (f, WRITE_SCRIPT);
  s = new_session (f, NULL, "ask");
  id = ow_session_get_id (s);
  roots = ow_session_get_roots (s);
  g_assert_cmpuint (roots->len, >=, 1);
  g_assert_true (g_str_has_prefix (((OwRoot *) g_ptr_array_index (roots, 0))->path, f->tmp));
  g_assert_true (g_file_test (((OwRoot *) g_ptr_array_index (roots, 0))->path, G_FILE_TEST_IS_DIR));

  g_assert_true (ow_session_host_send (f->host, id, "write", NULL, &error));
  wait_for (f, id, "permission_required", 0);
  ow_session_host_interrupt (f->host, id);
  i = wait_for (f, id, "interrupted", 0);
  wait_for (f, id, "turn_done", i);
  g_assert_false (ow_session_host_is_running (f->host, id));
  /* The interrupted ask does not linger as something to answer. */
  {
    g_autoptr(JsonObject) answer = json_object_new ();
    json_object_set_string_member (answer, "decision", "once");
    g_assert_false (ow_session_host_answer (f->host, id, "w1", answer, "browser", &error));
    g_assert_nonnull (error);
  }
}

/* A session without a folder gets one in the scratch base, which is the
 * person's (not inside OpenWorker's own folders the safety checks guard):
 * writing there runs without a question in bypass-approvals. */
static void
test_scratch_folder_is_writable (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  g_autofree char *scratch = NULL, *file = NULL, *content = NULL;
  const char *id;

  serve (f, WRITE_SCRIPT);
  s = new_session (f, NULL, "bypass-approvals");
  id = ow_session_get_id (s);
  scratch = g_strdup (((OwRoot *) g_ptr_array_index (ow_session_get_roots (s), 0))->path);
  g_assert_true (g_str_has_prefix (scratch, f->paths->scratch_dir));
  g_assert_false (g_str_has_prefix (scratch, f->paths->state_dir));
  g_assert_false (g_str_has_prefix (scratch, f->paths->config_dir));
  /* The context names it and recognises it; a sibling that merely starts
   * with the same letters is not one. */
  {
    g_autofree char *named = ow_context_dup_session_scratch (f->ctx, id);
    g_autofree char *sibling = g_strconcat (f->paths->scratch_dir, "-other", G_DIR_SEPARATOR_S, "x", NULL);

    g_assert_cmpstr (named, ==, scratch);
    g_assert_true (ow_context_is_scratch (f->ctx, scratch));
    g_assert_false (ow_context_is_scratch (f->ctx, sibling));
    g_assert_false (ow_context_is_scratch (f->ctx, f->paths->state_dir));
  }

  g_assert_true (ow_session_host_send (f->host, id, "write", NULL, &error));
  g_assert_no_error (error);
  wait_for (f, id, "turn_done", 0);
  for (guint i = 0; i < f->events->len; i++)
    g_assert_cmpstr (event_at (f, i)->type, !=, "permission_required");
  file = g_build_filename (scratch, "a.txt", NULL);
  g_assert_true (g_file_get_contents (file, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "from the host");
}

static void
test_live_changes (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  const char *id;
  guint i;

  s = new_session (f, f->ws, "ask");
  id = ow_session_get_id (s);
  g_assert_false (ow_session_host_set_mode (f->host, id, "dangerously-bypass-approvals", FALSE, &error));
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ow_session_host_set_mode (f->host, id, "sometimes", FALSE, &error));
  g_clear_error (&error);
  g_assert_true (ow_session_host_set_mode (f->host, id, "interactive", FALSE, &error));  /* an alias of ask */
  g_assert_no_error (error);
  i = wait_for (f, id, "mode_changed", 0);
  g_assert_cmpstr (ow_json_get_string (event_at (f, i)->data, "mode"), ==, "ask");
  g_assert_false (ow_session_host_set_model (f->host, id, "nosuchprovider:x", &error));
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_true (ow_session_host_set_model (f->host, id, "openai:gpt-4o-mini", &error));
  i = wait_for (f, id, "model_changed", 0);
  g_assert_cmpstr (ow_session_get_model (s), ==, "openai:gpt-4o-mini");

  /* Bad messages are refused before anything runs. */
  g_assert_false (ow_session_host_send (f->host, id, "", NULL, &error));
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID);
  g_clear_error (&error);
  {
    g_autoptr(JsonArray) atts = json_array_new ();
    JsonObject *a = json_object_new ();
    json_object_set_string_member (a, "kind", "image");
    json_object_set_string_member (a, "name", "x.png");
    json_object_set_string_member (a, "data_url", "http://example.com/x.png");
    json_array_add_object_element (atts, a);
    g_assert_false (ow_session_host_send (f->host, id, "look", atts, &error));
    g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "x.png"));
  }
  g_assert_false (ow_session_host_is_running (f->host, id));
}

static void
test_attachments_reach_the_model (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  g_autoptr(JsonArray) atts = json_array_new ();
  JsonObject *a = json_object_new ();
  JsonArray *reqs;
  g_autofree char *body = NULL;
  const char *id;

  serve (f, "{\"turns\":[{\"text\":\"seen\"}]}");
  s = new_session (f, f->ws, "ask");
  id = ow_session_get_id (s);
  json_object_set_string_member (a, "kind", "text");
  json_object_set_string_member (a, "name", "notes.txt");
  json_object_set_string_member (a, "text", "the secret ingredient is thyme");
  json_array_add_object_element (atts, a);
  g_assert_true (ow_session_host_send (f->host, id, "read this", atts, &error));
  g_assert_no_error (error);
  wait_for (f, id, "turn_done", 0);
  reqs = ow_model_server_get_requests (f->server);
  g_assert_cmpuint (json_array_get_length (reqs), ==, 1);
  body = json_to_string (json_array_get_element (reqs, 0), FALSE);
  g_assert_nonnull (strstr (body, "[Attached file: notes.txt]"));
  g_assert_nonnull (strstr (body, "thyme"));
}

/* A one-page PDF that says "Thyme is the secret" (Helvetica, no compression). */
#define MINI_PDF_URL \
  "data:application/pdf;base64," \
  "JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoKPDwgL1R5cGUg" \
  "L1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUgL1BhZ2UgL1BhcmVudCAyIDAg" \
  "UiAvTWVkaWFCb3ggWzAgMCAzMDAgMTAwXSAvQ29udGVudHMgNCAwIFIgL1Jlc291cmNlcyA8PCAvRm9udCA8PCAvRjEgNSAwIFIg" \
  "Pj4gPj4gPj4KZW5kb2JqCjQgMCBvYmoKPDwgL0xlbmd0aCA0OSA+PgpzdHJlYW0KQlQgL0YxIDEyIFRmIDIwIDUwIFRkIChUaHlt" \
  "ZSBpcyB0aGUgc2VjcmV0KSBUaiBFVAplbmRzdHJlYW0KZW5kb2JqCjUgMCBvYmoKPDwgL1R5cGUgL0ZvbnQgL1N1YnR5cGUgL1R5" \
  "cGUxIC9CYXNlRm9udCAvSGVsdmV0aWNhID4+CmVuZG9iagp4cmVmCjAgNgowMDAwMDAwMDAwIDY1NTM1IGYgCjAwMDAwMDAwMDkg" \
  "MDAwMDAgbiAKMDAwMDAwMDA1OCAwMDAwMCBuIAowMDAwMDAwMTE1IDAwMDAwIG4gCjAwMDAwMDAyNDEgMDAwMDAgbiAKMDAwMDAw" \
  "MDM0MCAwMDAwMCBuIAp0cmFpbGVyCjw8IC9TaXplIDYgL1Jvb3QgMSAwIFIgPj4Kc3RhcnR4cmVmCjQxMAolJUVPRgo="

/* Issue 10's scenario: an image and a PDF sent to a model that reads them,
 * then a switch to deepseek-chat, which reads neither. The switch leaves a
 * notice, an event and a line the new model reads; the image becomes a
 * placeholder and the PDF its text; the history keeps both as they were. */
static void
test_switch_to_a_model_without_vision (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  g_autoptr(JsonArray) atts = json_array_new ();
  g_autoptr(JsonArray) history = NULL;
  g_autofree char *first = NULL, *second = NULL;
  g_autofree char *url = NULL, *base = NULL;
  JsonObject *a;
  JsonArray *reqs;
  const char *id;
  guint i, switched = 0;

  serve (f, "{\"turns\":[{\"text\":\"a red square\"},{\"text\":\"still here\"}]}");
  url = ow_model_server_get_url (f->server);
  base = g_strdup_printf ("%s/v1", url);
  g_setenv ("DEEPSEEK_BASE_URL", base, TRUE);
  g_setenv ("DEEPSEEK_API_KEY", "sk-test-deepseek-0123456789", TRUE);
  s = new_session (f, f->ws, "ask");
  id = ow_session_get_id (s);

  a = json_object_new ();
  json_object_set_string_member (a, "kind", "image");
  json_object_set_string_member (a, "name", "square.png");
  json_object_set_string_member (a, "data_url", "data:image/png;base64,iVBORw0KGgo=");
  json_array_add_object_element (atts, a);
  a = json_object_new ();
  json_object_set_string_member (a, "kind", "pdf");
  json_object_set_string_member (a, "name", "recipe.pdf");
  json_object_set_string_member (a, "data_url", MINI_PDF_URL);
  json_array_add_object_element (atts, a);
  g_assert_true (ow_session_host_send (f->host, id, "what is this?", atts, &error));
  g_assert_no_error (error);
  wait_for (f, id, "turn_done", 0);

  g_assert_true (ow_session_host_set_model (f->host, id, "deepseek:deepseek-chat", &error));
  g_assert_no_error (error);
  i = wait_for (f, id, "model_switch", 0);
  g_assert_cmpstr (ow_json_get_string (event_at (f, i)->data, "text"), ==,
                   "Model switched to deepseek:deepseek-chat — earlier images can't be read by this model");
  /* Switching to the model it already has says nothing. */
  g_assert_true (ow_session_host_set_model (f->host, id, "deepseek:deepseek-chat", &error));
  for (guint k = 0; k < f->events->len; k++)
    switched += g_str_equal (event_at (f, k)->type, "model_switch");
  g_assert_cmpuint (switched, ==, 1);

  g_assert_true (ow_session_host_send (f->host, id, "and now?", NULL, &error));
  wait_for (f, id, "turn_done", i);

  reqs = ow_model_server_get_requests (f->server);
  g_assert_cmpuint (json_array_get_length (reqs), ==, 2);
  /* Control: the first model got the image and the PDF as they are. */
  first = json_to_string (json_array_get_element (reqs, 0), FALSE);
  g_assert_nonnull (strstr (first, "\"image_url\""));
  g_assert_nonnull (strstr (first, "\"file_data\""));
  g_assert_null (strstr (first, "not viewable"));
  /* deepseek-chat gets neither: a placeholder, the PDF's text, and the line. */
  second = json_to_string (json_array_get_element (reqs, 1), FALSE);
  g_assert_cmpstr (ow_json_get_string (json_object_get_object_member (json_array_get_object_element (reqs, 1), "body"),
                                       "model"), ==, "deepseek-chat");
  g_assert_null (strstr (second, "\"image_url\""));
  g_assert_null (strstr (second, "\"file_data\""));
  g_assert_null (strstr (second, "iVBORw0KGgo"));
  g_assert_nonnull (strstr (second, "[image attachment — not viewable by this model]"));
  g_assert_nonnull (strstr (second, "Thyme is the secret"));
  g_assert_nonnull (strstr (second, "[Model switched to deepseek:deepseek-chat — earlier images can't be read by this "
                                    "model]\\n\\nand now?"));
  g_assert_null (strstr (second, "\"notice\""));

  /* The history is unchanged: the image is still there for a model that can see. */
  history = ow_session_dup_history (s);
  {
    g_autofree char *text = json_to_string (json_node_init_array (json_node_alloc (), history), FALSE);
    g_assert_nonnull (strstr (text, "iVBORw0KGgo"));
    g_assert_nonnull (strstr (text, "\"model_switch\""));
  }
  g_unsetenv ("DEEPSEEK_BASE_URL");
  g_unsetenv ("DEEPSEEK_API_KEY");
}

static void
test_delete (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  g_autoptr(OwSession) again = NULL;
  g_autoptr(GPtrArray) pending = NULL;
  g_autofree char *id = NULL;

  serve (f, WRITE_SCRIPT);
  s = new_session (f, f->ws, "ask");
  id = g_strdup (ow_session_get_id (s));
  g_assert_true (ow_session_host_send (f->host, id, "write", NULL, &error));
  wait_for (f, id, "permission_required", 0);
  g_assert_true (ow_session_host_delete (f->host, id, &error));
  g_assert_no_error (error);
  pending = ow_inbox_list (ow_session_host_get_inbox (f->host), TRUE, &error);
  g_assert_cmpuint (pending->len, ==, 0);
  again = ow_session_host_get (f->host, id, &error);
  g_assert_null (again);
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_NOT_FOUND);
}

/* A process that died mid-turn: the history ends with a tool call that
 * has no result and the event log with no turn_done. */
static void
test_recovery_after_a_crash (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  guint i, n;

  serve (f, "{\"turns\":[{\"text\":\"carried on\"}]}");
  {
    g_autoptr(OwSession) s = new_session (f, f->ws, "ask");
    g_autoptr(JsonObject) user = ow_message_json_user ("do it");
    g_autoptr(JsonObject) asst = ow_json_object_from_string (
      "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"x1\",\"type\":\"function\","
      "\"function\":{\"name\":\"run_shell\",\"arguments\":\"{\\\"command\\\":\\\"true\\\"}\"}}]}", -1, &error);
    id = g_strdup (ow_session_get_id (s));
    g_assert_true (ow_session_emit (s, "turn_start", json_object_new (), &error));
    g_assert_true (ow_session_append_message (s, user, &error));
    g_assert_true (ow_session_append_message (s, asst, &error));
    g_assert_true (ow_session_emit (s, "tool_proposed", json_object_new (), &error));
    g_assert_no_error (error);
  }
  close_host (f);  /* the "crash": nothing more is written */
  g_ptr_array_set_size (f->events, 0);
  open_host (f);

  {
    g_autoptr(OwSession) s = ow_session_host_get (f->host, id, &error);
    JsonObject *tail;

    g_assert_no_error (error);
    i = wait_for (f, id, "interrupted", 0);
    g_assert_true (ow_json_get_bool (event_at (f, i)->data, "retryable", FALSE));
    wait_for (f, id, "turn_done", i);
    n = g_list_model_get_n_items (G_LIST_MODEL (s));
    tail = ow_session_get_message_json (s, n - 1);
    g_assert_cmpstr (ow_json_get_string (tail, "role"), ==, "tool");
    g_assert_cmpstr (ow_json_get_string (tail, "tool_call_id"), ==, "x1");

    n = f->events->len;
    g_assert_true (ow_session_host_retry (f->host, id, &error));
    g_assert_no_error (error);
    wait_for (f, id, "turn_done", n);
    tail = ow_session_get_message_json (s, g_list_model_get_n_items (G_LIST_MODEL (s)) - 1);
    g_assert_cmpstr (ow_json_get_string (tail, "content"), ==, "carried on");
    /* After an answer there is nothing to retry. */
    g_assert_false (ow_session_host_retry (f->host, id, &error));
    g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID);
  }
}

static void
wait_served (Fixture *f, guint n)
{
  OW_TEST_WAIT_UNTIL (ow_model_server_get_served (f->server) >= n);
}

static char *
listed_title (Fixture *f, const char *id)
{
  g_autoptr(GPtrArray) rows = ow_store_session_list (ow_context_get_store (f->ctx), NULL, id, NULL);
  OwSessionListRow *row = g_ptr_array_index (rows, 0);

  return g_strdup (row->auto_title);
}

/* After the first turn the session's model titles it (the original's
 * session_title); a greeting is titled later, with both openers. */
static void
test_title_from_the_model (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  g_autoptr(OwSession) chat = NULL;
  g_autofree char *title = NULL;
  g_autofree char *body = NULL;
  JsonArray *reqs;
  guint i;
  const char *id;

  g_setenv ("OPENWORKER_AUTO_TITLE", "1", TRUE);
  serve (f, "{\"turns\":[{\"text\":\"On it.\"},{\"text\":\" \\\"Quarterly Sales Report Draft.\\\"\\n\"},"
            "{\"text\":\"Hi!\"},{\"text\":\"small-talk\"},{\"text\":\"Sure.\"},"
            "{\"text\":\"Trip To Lisbon Planning\"}]}");
  s = new_session (f, f->ws, "ask");
  id = ow_session_get_id (s);
  g_assert_true (ow_session_host_send (f->host, id, "Please draft the quarterly sales report for the board", NULL,
                                       &error));
  g_assert_no_error (error);
  i = wait_for (f, id, "turn_done", 0);
  i = wait_for (f, id, "session_title", i);
  g_assert_cmpstr (ow_json_get_string (event_at (f, i)->data, "title"), ==, "Quarterly Sales Report Draft");
  title = listed_title (f, id);
  g_assert_cmpstr (title, ==, "Quarterly Sales Report Draft");
  reqs = ow_model_server_get_requests (f->server);
  body = json_to_string (json_array_get_element (reqs, 1), FALSE);
  g_assert_nonnull (strstr (body, "You title chat sessions"));
  g_assert_nonnull (strstr (body, "Please draft the quarterly sales report"));
  g_assert_nonnull (strstr (body, "\"temperature\":0.2"));

  /* A greeting: no title yet; the next turn tries again with both. */
  chat = new_session (f, f->ws, "ask");
  id = ow_session_get_id (chat);
  g_assert_true (ow_session_host_send (f->host, id, "hi", NULL, &error));
  i = wait_for (f, id, "turn_done", f->events->len);
  wait_served (f, 4);
  g_clear_pointer (&title, g_free);
  title = listed_title (f, id);
  g_assert_null (title);
  g_assert_true (ow_session_host_send (f->host, id, "plan a trip to Lisbon in May", NULL, &error));
  g_assert_no_error (error);
  i = wait_for (f, id, "session_title", i + 1);
  g_assert_cmpstr (ow_json_get_string (event_at (f, i)->data, "title"), ==, "Trip To Lisbon Planning");
  g_free (body);
  body = json_to_string (json_array_get_element (ow_model_server_get_requests (f->server), 5), FALSE);
  g_assert_nonnull (strstr (body, "hi\\n\\nplan a trip to Lisbon in May"));
  g_setenv ("OPENWORKER_AUTO_TITLE", "0", TRUE);
}

/* A session made before any model existed: its first turn cannot start,
 * the message is kept, and Retry sends it once a default exists, on the
 * session's next turn, instead of "nothing to retry". */
static void
test_retry_after_no_model (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  JsonArray *reqs;
  g_autofree char *body = NULL;
  OwSessionSpec spec = { .workspace = f->ws, .mode = "ask", .coworker = "cowork" };
  const char *id;
  guint i, n;

  serve (f, "{\"turns\": [{\"text\": \"answered at last\"}]}");
  g_unsetenv ("OPENWORKER_MODEL");
  s = ow_session_host_create (f->host, &spec, &error);
  g_assert_no_error (error);
  g_assert_null (ow_session_get_model (s));
  id = ow_session_get_id (s);

  g_assert_true (ow_session_host_send (f->host, id, "the first ask", NULL, &error));
  g_assert_no_error (error);
  i = wait_for (f, id, "error", 0);
  g_assert_nonnull (strstr (ow_json_get_string (event_at (f, i)->data, "error"), "No model is chosen"));
  wait_for (f, id, "turn_done", i);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (s)), ==, 0);

  /* Still no model: Retry is taken and fails the same way. */
  n = f->events->len;
  g_assert_true (ow_session_host_retry (f->host, id, &error));
  g_assert_no_error (error);
  i = wait_for (f, id, "error", n);
  wait_for (f, id, "turn_done", i);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 0);

  g_setenv ("OPENWORKER_MODEL", "openai:gpt-4o", TRUE);
  n = f->events->len;
  g_assert_true (ow_session_host_retry (f->host, id, &error));
  g_assert_no_error (error);
  i = wait_for (f, id, "model_changed", n);
  i = wait_for (f, id, "turn_done", i);
  g_unsetenv ("OPENWORKER_MODEL");
  g_assert_cmpstr (ow_session_get_model (s), ==, "openai:gpt-4o");
  reqs = ow_model_server_get_requests (f->server);
  g_assert_cmpuint (json_array_get_length (reqs), ==, 1);
  body = json_to_string (json_array_get_element (reqs, 0), FALSE);
  g_assert_nonnull (strstr (body, "the first ask"));
  n = g_list_model_get_n_items (G_LIST_MODEL (s));
  g_assert_cmpstr (ow_json_get_string (ow_session_get_message_json (s, n - 1), "content"), ==, "answered at last");

  /* Sent now: a second Retry has nothing left to send again. */
  g_assert_false (ow_session_host_retry (f->host, id, &error));
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_INVALID);
}

/* ---- The machine's MCP servers, live ------------------------------------- */

static void
write_mcp_json (Fixture *f, const char *servers)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->paths->config_dir, "mcp.json", NULL);
  g_autofree char *text = g_strdup_printf ("{\"mcpServers\": {%s}}", servers);

  g_mkdir_with_parents (f->paths->config_dir, 0700);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

/* A double entry: python3 mcp-double.py, with @extra members. */
static char *
double_entry (const char *name, const char *extra)
{
  return g_strdup_printf ("\"%s\": {\"command\": \"python3\", \"args\": [\"%s\"]%s}", name,
                          g_getenv ("OW_MCP_DOUBLE"), extra);
}

static OwMcpProvider *
host_mcp (Fixture *f, const char *name)
{
  GPtrArray *providers = ow_session_host_get_mcp_providers (f->host);

  for (guint i = 0; i < providers->len; i++)
    if (g_str_equal (ow_mcp_client_get_name (ow_mcp_provider_get_client (g_ptr_array_index (providers, i))), name))
      return g_ptr_array_index (providers, i);
  return NULL;
}

static gboolean
mcp_ready (gpointer data)
{
  OwMcpProvider *p = data;

  return ow_mcp_client_get_status (ow_mcp_provider_get_client (p)) == OW_MCP_STATUS_READY;
}

static void
on_mcp_changed_cb (OwSessionHost *host, gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* The tools the model was offered in request @i (their names, joined). */
static char *
offered_tools (Fixture *f, guint i)
{
  JsonArray *reqs = ow_model_server_get_requests (f->server);
  g_autofree char *body = NULL;

  g_assert_cmpuint (json_array_get_length (reqs), >, i);
  body = json_to_string (json_array_get_element (reqs, i), FALSE);
  return g_steal_pointer (&body);
}

static guint
turn (Fixture *f, const char *id, guint from)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ow_session_host_send (f->host, id, "hello", NULL, &error));
  g_assert_no_error (error);
  return wait_for (f, id, "turn_done", from) + 1;
}

static void
test_mcp_reload (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSession) s = NULL;
  g_autofree char *a = double_entry ("alpha", "");
  g_autofree char *b = double_entry ("beta", "");
  g_autofree char *b2 = double_entry ("beta", ", \"exclude_tools\": [\"echo\"]");
  g_autofree char *both = g_strdup_printf ("%s, %s", a, b);
  g_autofree char *r0 = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL;
  OwContextOptions options = { .paths = f->paths };
  OwMcpProvider *alpha, *beta, *beta2;
  OwMcpClient *client;
  guint changes = 0, next = 0;
  int pid;
  const char *id;

  g_assert_nonnull (g_getenv ("OW_MCP_DOUBLE"));
  /* The machine's servers are read only by a host that reads the machine. */
  close_host (f);
  write_mcp_json (f, a);
  f->ctx = ow_context_new (&options, &error);
  g_assert_no_error (error);
  f->host = ow_session_host_new (f->ctx, "test", &error);
  g_assert_no_error (error);
  g_signal_connect (f->host, "session-event", G_CALLBACK (on_event_cb), f);
  g_signal_connect (f->host, "mcp-changed", G_CALLBACK (on_mcp_changed_cb), &changes);
  alpha = host_mcp (f, "alpha");
  g_assert_nonnull (alpha);
  ow_test_wait_until (mcp_ready, alpha, "alpha ready");
  pid = ow_mcp_client_get_pid (ow_mcp_provider_get_client (alpha));
  g_assert_cmpint (pid, >, 0);

  serve (f, "{\"turns\":[{\"text\":\"one\"},{\"text\":\"two\"},{\"text\":\"three\"},{\"text\":\"four\"}]}");
  s = new_session (f, f->ws, "ask");
  id = ow_session_get_id (s);
  next = turn (f, id, next);
  r0 = offered_tools (f, 0);
  g_assert_nonnull (strstr (r0, "mcp__alpha__echo"));
  g_assert_null (strstr (r0, "mcp__beta__"));

  /* A new server joins the live session; the unchanged one keeps running. */
  write_mcp_json (f, both);
  g_assert_true (ow_session_host_reload_mcp (f->host, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changes, ==, 1);
  g_assert_true (host_mcp (f, "alpha") == alpha);
  g_assert_cmpint (ow_mcp_client_get_pid (ow_mcp_provider_get_client (alpha)), ==, pid);
  beta = host_mcp (f, "beta");
  g_assert_nonnull (beta);
  ow_test_wait_until (mcp_ready, beta, "beta ready");
  next = turn (f, id, next);
  r1 = offered_tools (f, 1);
  g_assert_nonnull (strstr (r1, "mcp__alpha__echo"));
  g_assert_nonnull (strstr (r1, "mcp__beta__echo"));

  /* Nothing changed: nothing restarts, no signal. */
  g_assert_true (ow_session_host_reload_mcp (f->host, &error));
  g_assert_cmpuint (changes, ==, 1);
  g_assert_true (host_mcp (f, "beta") == beta);

  /* Removed: stopped, and gone from the live session. Changed: started anew. */
  client = g_object_ref (ow_mcp_provider_get_client (alpha));
  write_mcp_json (f, b2);
  g_assert_true (ow_session_host_reload_mcp (f->host, &error));
  g_assert_cmpuint (changes, ==, 2);
  g_assert_null (host_mcp (f, "alpha"));
  g_assert_cmpint (ow_mcp_client_get_status (client), ==, OW_MCP_STATUS_STOPPED);
  g_assert_cmpint (ow_mcp_client_get_pid (client), ==, 0);
  g_object_unref (client);
  beta2 = host_mcp (f, "beta");
  g_assert_nonnull (beta2);
  g_assert_true (beta2 != beta);
  ow_test_wait_until (mcp_ready, beta2, "beta ready again");
  next = turn (f, id, next);
  r2 = offered_tools (f, 2);
  g_assert_null (strstr (r2, "mcp__alpha__"));
  g_assert_null (strstr (r2, "mcp__beta__echo"));
  g_assert_nonnull (strstr (r2, "mcp__beta__"));  /* its other tools stay */

  /* Restart: the same server, a new process. */
  pid = ow_mcp_client_get_pid (ow_mcp_provider_get_client (beta2));
  g_assert_true (ow_session_host_restart_mcp (f->host, "beta", &error));
  g_assert_no_error (error);
  ow_test_wait_until (mcp_ready, beta2, "beta ready after the restart");
  g_assert_cmpint (ow_mcp_client_get_pid (ow_mcp_provider_get_client (beta2)), !=, pid);
  g_assert_false (ow_session_host_restart_mcp (f->host, "alpha", &error));
  g_assert_error (error, OW_HOST_ERROR, OW_HOST_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* A file that cannot be read leaves the servers running. */
  {
    g_autofree char *path = g_build_filename (f->paths->config_dir, "mcp.json", NULL);

    g_assert_true (g_file_set_contents (path, "{not json", -1, NULL));
  }
  g_assert_false (ow_session_host_reload_mcp (f->host, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (host_mcp (f, "beta") == beta2);
  g_assert_cmpuint (changes, ==, 2);

  /* Disabled: stopped. */
  {
    g_autofree char *off = double_entry ("beta", ", \"enabled\": false");

    write_mcp_json (f, off);
  }
  g_assert_true (ow_session_host_reload_mcp (f->host, &error));
  g_assert_null (host_mcp (f, "beta"));
  next = turn (f, id, next);
  r3 = offered_tools (f, 3);
  g_assert_null (strstr (r3, "mcp__beta__"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* The title call after a first turn takes a scripted turn: only the
   * test of titles wants it. */
  g_setenv ("OPENWORKER_AUTO_TITLE", "0", TRUE);
  g_test_add ("/host/title", Fixture, NULL, setup, test_title_from_the_model, teardown);
  g_test_add ("/host/approval", Fixture, NULL, setup, test_approval_answered_through_the_host, teardown);
  g_test_add ("/host/attendance-per-session", Fixture, NULL, setup, test_attendance_per_session, teardown);
  g_test_add ("/host/scratch-and-interrupt", Fixture, NULL, setup, test_scratch_folder_and_interrupt, teardown);
  g_test_add ("/host/scratch-writable", Fixture, NULL, setup, test_scratch_folder_is_writable, teardown);
  g_test_add ("/host/live-changes", Fixture, NULL, setup, test_live_changes, teardown);
  g_test_add ("/host/attachments", Fixture, NULL, setup, test_attachments_reach_the_model, teardown);
  g_test_add ("/host/switch-to-a-model-without-vision", Fixture, NULL, setup, test_switch_to_a_model_without_vision,
              teardown);
  g_test_add ("/host/delete", Fixture, NULL, setup, test_delete, teardown);
  g_test_add ("/host/retry-after-no-model", Fixture, NULL, setup, test_retry_after_no_model, teardown);
  g_test_add ("/host/mcp-reload", Fixture, NULL, setup, test_mcp_reload, teardown);
  g_test_add ("/host/recovery", Fixture, NULL, setup, test_recovery_after_a_crash, teardown);
  return g_test_run ();
}
