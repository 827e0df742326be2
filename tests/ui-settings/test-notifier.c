/* test-notifier.c: notifications for asks, through a notification server of the test's own.
 *
 * Runs inside ui-session.py (a display and a private session bus). The
 * test owns org.freedesktop.Notifications on a second connection, which is
 * where GLib sends an application's GNotifications when no desktop shell
 * takes them, and records what arrives. A real session host runs a turn
 * against the scripted model server: the model writes a file, which asks
 * for approval. With no window on screen a notification must say so, with
 * Allow Once and Deny buttons; pressing Allow Once there (the server's
 * ActionInvoked) must answer the ask, the tool must run and the
 * notification must be withdrawn. With a window on screen, no notification;
 * with the window hidden again, a notification that goes when the ask is
 * answered elsewhere.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "core/ow-session-host.h"
#include "ow-json.h"
#include "ow-model-server.h"
#include "ow-notifier.h"
#include "ow-test-utils.h"

static const char server_xml[] =
  "<node><interface name='org.freedesktop.Notifications'>"
  "  <method name='Notify'>"
  "    <arg type='s' direction='in'/><arg type='u' direction='in'/><arg type='s' direction='in'/>"
  "    <arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='as' direction='in'/>"
  "    <arg type='a{sv}' direction='in'/><arg type='i' direction='in'/><arg type='u' direction='out'/>"
  "  </method>"
  "  <method name='CloseNotification'><arg type='u' direction='in'/></method>"
  "  <method name='GetCapabilities'><arg type='as' direction='out'/></method>"
  "  <method name='GetServerInformation'>"
  "    <arg type='s' direction='out'/><arg type='s' direction='out'/><arg type='s' direction='out'/>"
  "    <arg type='s' direction='out'/>"
  "  </method>"
  "  <signal name='ActionInvoked'><arg type='u'/><arg type='s'/></signal>"
  "  <signal name='NotificationClosed'><arg type='u'/><arg type='u'/></signal>"
  "</interface></node>";

typedef struct {
  guint32 id;
  char   *summary;
  char   *body;
  GStrv   actions;   /* key, label, key, label, … */
} Shown;

static struct {
  GDBusConnection *bus;
  GPtrArray       *shown;    /* Shown* */
  GArray          *closed;   /* guint32 */
  guint32          next_id;
  GPtrArray       *events;   /* char*: event types seen on the host */
} srv;

static void
shown_free (Shown *s)
{
  g_free (s->summary);
  g_free (s->body);
  g_strfreev (s->actions);
  g_free (s);
}

static void
server_method (GDBusConnection *c, const char *sender, const char *path, const char *iface, const char *method,
               GVariant *params, GDBusMethodInvocation *inv, gpointer user_data)
{
  if (g_str_equal (method, "Notify"))
    {
      Shown *s = g_new0 (Shown, 1);
      const char *app, *icon, *summary, *body;
      guint32 replaces;
      g_autoptr(GVariant) hints = NULL;
      int timeout;

      g_variant_get (params, "(&su&s&s&s^as@a{sv}i)", &app, &replaces, &icon, &summary, &body, &s->actions, &hints,
                     &timeout);
      s->id = replaces != 0 ? replaces : ++srv.next_id;
      s->summary = g_strdup (summary);
      s->body = g_strdup (body);
      g_ptr_array_add (srv.shown, s);
      g_dbus_method_invocation_return_value (inv, g_variant_new ("(u)", s->id));
    }
  else if (g_str_equal (method, "CloseNotification"))
    {
      guint32 id;
      g_variant_get (params, "(u)", &id);
      g_array_append_val (srv.closed, id);
      g_dbus_method_invocation_return_value (inv, NULL);
    }
  else if (g_str_equal (method, "GetCapabilities"))
    {
      const char *caps[] = { "actions", "body", NULL };
      g_dbus_method_invocation_return_value (inv, g_variant_new ("(^as)", caps));
    }
  else
    g_dbus_method_invocation_return_value (inv, g_variant_new ("(ssss)", "test", "openworker", "1", "1.2"));
}

static const GDBusInterfaceVTable server_vtable = { server_method, NULL, NULL, { 0 } };

static void
on_owned_cb (GDBusConnection *c, const char *name, gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
}

static gboolean
seen (gpointer data)
{
  for (guint i = 0; i < srv.events->len; i++)
    if (g_str_equal (g_ptr_array_index (srv.events, i), data))
      return TRUE;
  return FALSE;
}

static void
on_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  g_ptr_array_add (srv.events, g_strdup (event->type));
}

static const char *
action_key (Shown *s, const char *label)
{
  for (guint i = 0; s->actions[i] != NULL && s->actions[i + 1] != NULL; i += 2)
    if (g_str_equal (s->actions[i + 1], label))
      return s->actions[i];
  g_error ("no “%s” button on “%s”", label, s->summary);
}

/* Lets the application take in the server's reply to its Notify call.
 * GLib withdraws a notification by the id that reply carries; withdrawn
 * before the reply is in, it is dropped without a CloseNotification. The
 * server's reply is written out first, then a round trip on the
 * application's own connection brings it in behind it. */
static void
settle_notifications (GtkApplication *app)
{
  GDBusConnection *own = g_application_get_dbus_connection (G_APPLICATION (app));
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_dbus_connection_flush_sync (srv.bus, NULL, &error));
  reply = g_dbus_connection_call_sync (own, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetId", NULL, G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL,
                                       &error);
  g_assert_no_error (error);
  ow_test_drain ();
}

#define SCRIPT \
  "{\"turns\":[" \
  "{\"tool_calls\":[{\"id\":\"w1\",\"name\":\"write_file\",\"arguments\":{\"path\":\"a.txt\",\"content\":\"allowed\"}}]}," \
  "{\"text\":\"written\"}," \
  "{\"tool_calls\":[{\"id\":\"w2\",\"name\":\"write_file\",\"arguments\":{\"path\":\"b.txt\",\"content\":\"seen\"}}]}," \
  "{\"text\":\"written again\"}," \
  "{\"tool_calls\":[{\"id\":\"w3\",\"name\":\"write_file\",\"arguments\":{\"path\":\"c.txt\",\"content\":\"hidden\"}}]}," \
  "{\"text\":\"written in the background\"}]}"

static void
test_notifier (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (server_xml, &error);
  g_autoptr(GtkApplication) app = gtk_application_new ("com.openworker.NotifierTest", G_APPLICATION_NON_UNIQUE);
  g_autofree char *tmp = NULL, *ws = NULL, *url = NULL, *base = NULL, *a = NULL, *b = NULL, *c = NULL;
  g_autoptr(OwPaths) paths = NULL;
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwSessionHost) host = NULL;
  g_autoptr(OwNotifier) notifier = NULL;
  g_autoptr(OwModelServer) server = NULL;
  g_autoptr(JsonNode) script = NULL;
  g_autoptr(OwSession) session = NULL;
  OwSession *weak_session;
  OwContextOptions options = { 0 };
  OwSessionSpec spec = { 0 };
  gboolean owned = FALSE;
  Shown *shown;
  const char *id;
  GtkWidget *window;

  g_assert_no_error (error);
  srv.shown = g_ptr_array_new_with_free_func ((GDestroyNotify) shown_free);
  srv.closed = g_array_new (FALSE, FALSE, sizeof (guint32));
  srv.events = g_ptr_array_new_with_free_func (g_free);

  /* The notification server. */
  srv.bus = g_dbus_connection_new_for_address_sync (g_getenv ("DBUS_SESSION_BUS_ADDRESS"),
                                                    G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                                    | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                    NULL, NULL, &error);
  g_assert_no_error (error);
  g_dbus_connection_register_object (srv.bus, "/org/freedesktop/Notifications", info->interfaces[0], &server_vtable,
                                     NULL, NULL, &error);
  g_assert_no_error (error);
  g_bus_own_name_on_connection (srv.bus, "org.freedesktop.Notifications", G_BUS_NAME_OWNER_FLAGS_NONE, on_owned_cb,
                                NULL, &owned, NULL);
  ow_test_wait_flag (&owned);

  /* The engine, on a temporary home, against the scripted model server. */
  tmp = ow_test_make_tmpdir ("ow-notify");
  ws = g_build_filename (tmp, "ws", NULL);
  g_assert_cmpint (g_mkdir (ws, 0700), ==, 0);
  script = json_from_string (SCRIPT, &error);
  g_assert_no_error (error);
  server = ow_model_server_new (script, &error);
  g_assert_no_error (error);
  url = ow_model_server_get_url (server);
  base = g_strconcat (url, "/v1", NULL);
  g_setenv ("OPENAI_BASE_URL", base, TRUE);
  g_setenv ("OPENAI_API_KEY", "sk-test-notifier-0123456789", TRUE);
  paths = ow_paths_new_under (tmp);
  options.paths = paths;
  options.isolated = TRUE;
  ctx = ow_context_new (&options, &error);
  g_assert_no_error (error);
  host = ow_session_host_new (ctx, "test", &error);
  g_assert_no_error (error);
  g_signal_connect (host, "session-event", G_CALLBACK (on_event_cb), NULL);

  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  notifier = ow_notifier_new (app, host);
  g_assert_cmpuint (ow_notifier_get_pending_count (notifier), ==, 0);
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (app), OW_NOTIFIER_ANSWER_ACTION));

  /* No window on screen: the ask is announced, with buttons. */
  spec.workspace = ws;
  spec.model = "openai:gpt-4o";
  spec.mode = "ask";
  spec.coworker = "cowork";
  session = ow_session_host_create (host, &spec, &error);
  g_assert_no_error (error);
  id = ow_session_get_id (session);
  g_assert_true (ow_session_host_send (host, id, "write a.txt", NULL, &error));
  g_assert_no_error (error);
  OW_TEST_WAIT_UNTIL (srv.shown->len >= 1);
  shown = g_ptr_array_index (srv.shown, 0);
  g_assert_cmpstr (shown->summary, ==, "Approval needed");
  g_assert_nonnull (strstr (shown->body, "write_file"));
  settle_notifications (app);
  g_assert_cmpuint (ow_notifier_get_pending_count (notifier), ==, 1);
  a = g_build_filename (ws, "a.txt", NULL);
  g_assert_false (g_file_test (a, G_FILE_TEST_EXISTS));

  /* Allow Once, pressed on the notification, answers the ask. */
  g_dbus_connection_emit_signal (srv.bus, NULL, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                 "ActionInvoked", g_variant_new ("(us)", shown->id, action_key (shown, "Allow Once")),
                                 &error);
  g_assert_no_error (error);
  (void) action_key (shown, "Deny");
  ow_test_wait_until (seen, (gpointer) "turn_done", "the turn to finish");
  g_assert_true (g_file_test (a, G_FILE_TEST_EXISTS));
  OW_TEST_WAIT_UNTIL (srv.closed->len >= 1);
  g_assert_cmpuint (g_array_index (srv.closed, guint32, 0), ==, shown->id);
  g_assert_cmpuint (ow_notifier_get_pending_count (notifier), ==, 0);

  /* A window on screen: the card is there, no notification. */
  window = gtk_application_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  OW_TEST_WAIT_UNTIL (gtk_widget_get_mapped (window));
  g_ptr_array_set_size (srv.events, 0);
  g_assert_true (ow_session_host_send (host, id, "write b.txt", NULL, &error));
  g_assert_no_error (error);
  ow_test_wait_until (seen, (gpointer) "permission_required", "the second ask");
  g_assert_cmpuint (ow_notifier_get_pending_count (notifier), ==, 1);
  g_assert_cmpuint (srv.shown->len, ==, 1);
  {
    g_autoptr(JsonObject) answer = json_object_new ();
    json_object_set_string_member (answer, "decision", "once");
    g_assert_true (ow_session_host_answer (host, id, "w2", answer, "desktop", &error));
    g_assert_no_error (error);
  }
  ow_test_wait_until (seen, (gpointer) "turn_done", "the second turn to finish");
  b = g_build_filename (ws, "b.txt", NULL);
  g_assert_true (g_file_test (b, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (srv.shown->len, ==, 1);
  g_assert_cmpuint (ow_notifier_get_pending_count (notifier), ==, 0);

  /* The window hidden (closed to the background): announced again, and
   * withdrawn when the ask is answered from another surface. */
  gtk_widget_set_visible (window, FALSE);
  g_ptr_array_set_size (srv.events, 0);
  g_assert_true (ow_session_host_send (host, id, "write c.txt", NULL, &error));
  g_assert_no_error (error);
  OW_TEST_WAIT_UNTIL (srv.shown->len >= 2);
  shown = g_ptr_array_index (srv.shown, 1);
  g_assert_cmpstr (shown->summary, ==, "Approval needed");
  settle_notifications (app);
  g_assert_cmpuint (ow_notifier_get_pending_count (notifier), ==, 1);
  {
    g_autoptr(JsonObject) answer = json_object_new ();
    json_object_set_string_member (answer, "decision", "once");
    g_assert_true (ow_session_host_answer (host, id, "w3", answer, "browser", &error));
    g_assert_no_error (error);
  }
  OW_TEST_WAIT_UNTIL (srv.closed->len >= 2);
  g_assert_cmpuint (g_array_index (srv.closed, guint32, 1), ==, shown->id);
  ow_test_wait_until (seen, (gpointer) "turn_done", "the third turn to finish");
  c = g_build_filename (ws, "c.txt", NULL);
  g_assert_true (g_file_test (c, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ow_notifier_get_pending_count (notifier), ==, 0);

  /* What the test made goes with its last reference: no cycle holds any. */
  g_object_ref (window);
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
  g_assert_finalize_object (g_steal_pointer (&notifier));
  g_assert_false (g_action_group_has_action (G_ACTION_GROUP (app), OW_NOTIFIER_ANSWER_ACTION));
  /* The session belongs to the host, and goes with it. */
  weak_session = session;
  g_object_add_weak_pointer (G_OBJECT (session), (gpointer *) &weak_session);
  g_clear_object (&session);
  g_assert_finalize_object (g_steal_pointer (&host));
  g_assert_null (weak_session);
  g_assert_finalize_object (g_steal_pointer (&ctx));
  g_assert_finalize_object (g_steal_pointer (&server));
  g_unsetenv ("OPENAI_BASE_URL");
  g_unsetenv ("OPENAI_API_KEY");
  g_clear_object (&srv.bus);
  g_clear_pointer (&srv.shown, g_ptr_array_unref);
  g_clear_pointer (&srv.closed, g_array_unref);
  g_clear_pointer (&srv.events, g_ptr_array_unref);
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  g_set_prgname ("test-notifier");
  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL || g_getenv ("OW_UI_SESSION") == NULL)
    {
      g_printerr ("test-notifier runs inside ui-session.py (a display and a session bus)\n");
      return 1;
    }
  g_test_add_func ("/ow/ui-settings/notifier/ask", test_notifier);
  return g_test_run ();
}
