/* test-tray.c: the tray item on a real session bus, seen from another connection.
 *
 * Runs inside ui-session.py's private D-Bus session. The test plays the
 * panel: a StatusNotifierWatcher of its own on a second connection, which
 * the item must register with when it appears (and again when it comes
 * back), then the item's properties, the menu's layout, its events (which
 * must run the application's actions) and the attention state.
 */
#include <gio/gio.h>

#include "ow-test-utils.h"
#include "ow-tray.h"

#define ICON "com.openworker.OpenWorker"

static const char watcher_xml[] =
  "<node><interface name='org.kde.StatusNotifierWatcher'>"
  "  <method name='RegisterStatusNotifierItem'><arg name='service' type='s' direction='in'/></method>"
  "  <method name='RegisterStatusNotifierHost'><arg name='service' type='s' direction='in'/></method>"
  "  <property name='RegisteredStatusNotifierItems' type='as' access='read'/>"
  "  <property name='IsStatusNotifierHostRegistered' type='b' access='read'/>"
  "  <property name='ProtocolVersion' type='i' access='read'/>"
  "</interface></node>";

typedef struct {
  GDBusConnection *bus;         /* the panel's own connection */
  GDBusNodeInfo   *info;
  guint            reg_id;
  guint            own_id;
  gboolean         owned;
  GPtrArray       *registered;  /* service names, in order */
  char            *last_sender;
  /* signals seen from the item */
  guint            new_status;
  char            *last_status;
  guint            layout_updated;
  guint            props_updated;
  /* the application's actions */
  guint            activated, inbox, new_session, quit;
} Panel;

static Panel panel;

static void
watcher_method (GDBusConnection *c, const char *sender, const char *path, const char *iface, const char *method,
                GVariant *params, GDBusMethodInvocation *inv, gpointer user_data)
{
  const char *service;

  if (g_str_equal (method, "RegisterStatusNotifierItem"))
    {
      g_variant_get (params, "(&s)", &service);
      g_ptr_array_add (panel.registered, g_strdup (service));
      g_free (panel.last_sender);
      panel.last_sender = g_strdup (sender);
    }
  g_dbus_method_invocation_return_value (inv, NULL);
}

static GVariant *
watcher_get (GDBusConnection *c, const char *sender, const char *path, const char *iface, const char *name,
             GError **error, gpointer user_data)
{
  if (g_str_equal (name, "ProtocolVersion"))
    return g_variant_new_int32 (0);
  if (g_str_equal (name, "IsStatusNotifierHostRegistered"))
    return g_variant_new_boolean (TRUE);
  g_ptr_array_add (panel.registered, NULL);
  {
    GVariant *v = g_variant_new_strv ((const char *const *) panel.registered->pdata, -1);
    g_ptr_array_remove_index (panel.registered, panel.registered->len - 1);
    return v;
  }
}

static const GDBusInterfaceVTable watcher_vtable = { watcher_method, watcher_get, NULL, { 0 } };

static void
on_watcher_acquired_cb (GDBusConnection *c, const char *name, gpointer user_data)
{
  panel.owned = TRUE;
}

static void
start_watcher (void)
{
  g_autoptr(GError) error = NULL;

  panel.owned = FALSE;
  panel.reg_id = g_dbus_connection_register_object (panel.bus, "/StatusNotifierWatcher", panel.info->interfaces[0],
                                                    &watcher_vtable, NULL, NULL, &error);
  g_assert_no_error (error);
  panel.own_id = g_bus_own_name_on_connection (panel.bus, "org.kde.StatusNotifierWatcher",
                                               G_BUS_NAME_OWNER_FLAGS_NONE, on_watcher_acquired_cb, NULL, NULL, NULL);
  ow_test_wait_flag (&panel.owned);
}

static void
stop_watcher (void)
{
  g_dbus_connection_unregister_object (panel.bus, panel.reg_id);
  g_bus_unown_name (panel.own_id);
}

static void
on_item_signal_cb (GDBusConnection *c, const char *sender, const char *path, const char *iface, const char *signal,
                   GVariant *params, gpointer user_data)
{
  if (g_str_equal (signal, "NewStatus"))
    {
      panel.new_status++;
      g_free (panel.last_status);
      g_variant_get (params, "(s)", &panel.last_status);
    }
  else if (g_str_equal (signal, "LayoutUpdated"))
    panel.layout_updated++;
  else if (g_str_equal (signal, "ItemsPropertiesUpdated"))
    panel.props_updated++;
}

typedef struct {
  gboolean  done;
  GVariant *reply;
  GError   *error;
} Reply;

static void
on_reply_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Reply *r = user_data;

  r->reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &r->error);
  r->done = TRUE;
}

/* A call from the panel's connection. The item answers on this thread's
 * main loop, so the call is made asynchronously and the loop spun. */
static GVariant *
call (OwTray *tray, const char *path, const char *iface, const char *method, GVariant *params, const char *reply_type,
      GError **error)
{
  Reply r = { 0 };

  g_dbus_connection_call (panel.bus, ow_tray_get_bus_name (tray), path, iface, method, params,
                          reply_type != NULL ? G_VARIANT_TYPE (reply_type) : NULL, G_DBUS_CALL_FLAGS_NONE, 5000, NULL,
                          on_reply_cb, &r);
  ow_test_wait_flag (&r.done);
  if (r.error != NULL)
    g_propagate_error (error, r.error);
  return r.reply;
}

/* The item's properties, as a panel reads them. */
static GVariant *
item_props (OwTray *tray)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = call (tray, "/StatusNotifierItem", "org.freedesktop.DBus.Properties", "GetAll",
                                    g_variant_new ("(s)", "org.kde.StatusNotifierItem"), "(a{sv})", &error);
  GVariant *all;

  g_assert_no_error (error);
  g_variant_get (reply, "(@a{sv})", &all);
  return all;
}

static char *
prop_string (GVariant *all, const char *name)
{
  g_autoptr(GVariant) v = g_variant_lookup_value (all, name, NULL);

  g_assert_nonnull (v);
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_OBJECT_PATH) || g_variant_is_of_type (v, G_VARIANT_TYPE_STRING))
    return g_variant_dup_string (v, NULL);
  g_error ("%s is %s", name, g_variant_get_type_string (v));
}

/* The menu's children, as a host gets them: each (id, props, children). */
static GVariant *
layout (OwTray *tray, guint32 *revision)
{
  g_autoptr(GError) error = NULL;
  const char *none[] = { NULL };
  g_autoptr(GVariant) reply = call (tray, "/MenuBar", "com.canonical.dbusmenu", "GetLayout",
                                    g_variant_new ("(ii^as)", 0, -1, none), "(u(ia{sv}av))", &error);
  GVariant *root;
  int id;

  g_assert_no_error (error);
  g_variant_get (reply, "(u@(ia{sv}av))", revision, &root);
  g_variant_get_child (root, 0, "i", &id);
  g_assert_cmpint (id, ==, 0);
  return root;
}

/* The properties of the menu child with @id. */
static GVariant *
child_props (GVariant *root, int id)
{
  g_autoptr(GVariant) children = g_variant_get_child_value (root, 2);

  for (gsize i = 0; i < g_variant_n_children (children); i++)
    {
      g_autoptr(GVariant) boxed = g_variant_get_child_value (children, i);
      g_autoptr(GVariant) node = g_variant_get_variant (boxed);
      int child_id;
      GVariant *props;

      g_variant_get (node, "(i@a{sv}av)", &child_id, &props, NULL);
      if (child_id == id)
        return props;
      g_variant_unref (props);
    }
  g_error ("no menu item %d", id);
}

static char *
label_of (GVariant *root, int id)
{
  g_autoptr(GVariant) props = child_props (root, id);
  char *label = NULL;

  g_assert_true (g_variant_lookup (props, "label", "s", &label));
  return label;
}

static gboolean
enabled_of (GVariant *root, int id)
{
  g_autoptr(GVariant) props = child_props (root, id);
  gboolean enabled = FALSE;

  g_assert_true (g_variant_lookup (props, "enabled", "b", &enabled));
  return enabled;
}

static void
click (OwTray *tray, int id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = call (tray, "/MenuBar", "com.canonical.dbusmenu", "Event",
                                    g_variant_new ("(isvu)", id, "clicked", g_variant_new_int32 (0), 0), "()", &error);

  g_assert_no_error (error);
  g_assert_nonnull (reply);
}

static void
on_activate_cb (GApplication *app, gpointer user_data)
{
  panel.activated++;
}

static void
count_cb (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
on_name_owned_cb (GObject *tray, GParamSpec *pspec, gpointer user_data)
{
  *(gboolean *) user_data = ow_tray_get_name_owned (OW_TRAY (tray));
}

static gboolean
action_is_on (GSimpleAction *action)
{
  g_autoptr(GVariant) state = g_action_get_state (G_ACTION (action));

  return g_variant_get_boolean (state);
}

static gboolean
name_has_owner (const char *name)
{
  g_autoptr(GVariant) reply = g_dbus_connection_call_sync (panel.bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                          "org.freedesktop.DBus", "NameHasOwner",
                                                          g_variant_new ("(s)", name), G_VARIANT_TYPE ("(b)"),
                                                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  gboolean has = FALSE;

  g_assert_nonnull (reply);
  g_variant_get (reply, "(b)", &has);
  return has;
}

static void
test_tray_item (void)
{
  g_autoptr(GApplication) app = g_application_new ("com.openworker.TrayTest", G_APPLICATION_NON_UNIQUE);
  g_autoptr(GSimpleAction) inbox = g_simple_action_new ("inbox", NULL);
  g_autoptr(GSimpleAction) new_session = g_simple_action_new ("new-session", NULL);
  g_autoptr(GSimpleAction) quit = g_simple_action_new ("quit", NULL);
  g_autoptr(GSimpleAction) pause = g_simple_action_new_stateful ("pause-automations", NULL,
                                                                 g_variant_new_boolean (FALSE));
  g_autoptr(GError) error = NULL;
  g_autoptr(OwTray) tray = NULL;
  g_autoptr(GVariant) all = NULL;
  g_autoptr(GVariant) root = NULL;
  g_autofree char *bus_name = NULL;
  gboolean owned = FALSE;
  guint32 rev1 = 0, rev2 = 0;
  guint sub;

  panel.bus = g_dbus_connection_new_for_address_sync (g_getenv ("DBUS_SESSION_BUS_ADDRESS"),
                                                      G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                                      | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                      NULL, NULL, &error);
  g_assert_no_error (error);
  panel.info = g_dbus_node_info_new_for_xml (watcher_xml, &error);
  g_assert_no_error (error);
  panel.registered = g_ptr_array_new_with_free_func (g_free);

  g_signal_connect (inbox, "activate", G_CALLBACK (count_cb), &panel.inbox);
  g_signal_connect (new_session, "activate", G_CALLBACK (count_cb), &panel.new_session);
  g_signal_connect (quit, "activate", G_CALLBACK (count_cb), &panel.quit);
  g_action_map_add_action (G_ACTION_MAP (app), G_ACTION (inbox));
  g_action_map_add_action (G_ACTION_MAP (app), G_ACTION (new_session));
  g_action_map_add_action (G_ACTION_MAP (app), G_ACTION (quit));
  g_action_map_add_action (G_ACTION_MAP (app), G_ACTION (pause));
  g_signal_connect (app, "activate", G_CALLBACK (on_activate_cb), NULL);
  g_assert_true (g_application_register (app, NULL, &error));
  g_assert_no_error (error);

  /* No panel yet: the item takes its name all the same. */
  tray = ow_tray_new (app, ICON);
  bus_name = g_strdup (ow_tray_get_bus_name (tray));
  g_assert_true (g_str_has_prefix (bus_name, "org.kde.StatusNotifierItem-"));
  g_signal_connect (tray, "notify::name-owned", G_CALLBACK (on_name_owned_cb), &owned);
  ow_test_wait_flag (&owned);
  g_assert_true (name_has_owner (bus_name));
  g_assert_false (ow_tray_get_registered (tray));
  g_assert_cmpuint (panel.registered->len, ==, 0);

  sub = g_dbus_connection_signal_subscribe (panel.bus, NULL, NULL, NULL, NULL, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                            on_item_signal_cb, NULL, NULL);

  /* A panel appears: the item registers with it, by its name. */
  start_watcher ();
  OW_TEST_WAIT_UNTIL (panel.registered->len >= 1);
  g_assert_cmpstr (g_ptr_array_index (panel.registered, 0), ==, bus_name);
  OW_TEST_WAIT_UNTIL (ow_tray_get_registered (tray));

  /* The item's properties. */
  all = item_props (tray);
  {
    g_autofree char *status = prop_string (all, "Status");
    g_autofree char *menu = prop_string (all, "Menu");
    g_autofree char *icon = prop_string (all, "IconName");
    g_autofree char *attention = prop_string (all, "AttentionIconName");
    g_autofree char *title = prop_string (all, "Title");
    g_autofree char *category = prop_string (all, "Category");
    g_autofree char *id = prop_string (all, "Id");
    gboolean is_menu = TRUE;

    g_assert_cmpstr (status, ==, "Active");
    g_assert_cmpstr (menu, ==, "/MenuBar");
    g_assert_cmpstr (icon, ==, ICON "-symbolic");
    g_assert_cmpstr (attention, ==, ICON "-attention-symbolic");
    g_assert_cmpstr (title, ==, "OpenWorker");
    g_assert_cmpstr (category, ==, "ApplicationStatus");
    g_assert_cmpstr (id, ==, "com.openworker.TrayTest");
    g_assert_true (g_variant_lookup (all, "ItemIsMenu", "b", &is_menu));
    g_assert_false (is_menu);
  }
  {
    g_autoptr(GVariant) version = call (tray, "/MenuBar", "org.freedesktop.DBus.Properties", "Get",
                                        g_variant_new ("(ss)", "com.canonical.dbusmenu", "Version"), "(v)", &error);
    g_autoptr(GVariant) v = NULL;
    g_assert_no_error (error);
    g_variant_get (version, "(v)", &v);
    g_assert_cmpuint (g_variant_get_uint32 (v), ==, 3);
  }

  /* The menu: Open, Inbox, New Session, Pause Automations, Quit. */
  root = layout (tray, &rev1);
  {
    g_autoptr(GVariant) children = g_variant_get_child_value (root, 2);
    g_autoptr(GVariant) root_props = g_variant_get_child_value (root, 1);
    g_autoptr(GVariant) sep = child_props (root, 4);
    g_autoptr(GVariant) pause_props = child_props (root, 5);
    g_autofree char *open = label_of (root, 1);
    g_autofree char *inbox_label = label_of (root, 2);
    g_autofree char *new_label = label_of (root, 3);
    g_autofree char *pause_label = label_of (root, 5);
    g_autofree char *quit_label = label_of (root, 7);
    const char *display = NULL;
    const char *type = NULL;
    const char *toggle = NULL;
    int state = -1;

    g_assert_cmpuint (g_variant_n_children (children), ==, 7);
    g_assert_true (g_variant_lookup (root_props, "children-display", "&s", &display));
    g_assert_cmpstr (display, ==, "submenu");
    g_assert_cmpstr (open, ==, "_Open OpenWorker");
    g_assert_cmpstr (inbox_label, ==, "_Inbox");
    g_assert_cmpstr (new_label, ==, "_New Session");
    g_assert_cmpstr (pause_label, ==, "_Pause Automations");
    g_assert_cmpstr (quit_label, ==, "_Quit");
    g_assert_true (g_variant_lookup (sep, "type", "&s", &type));
    g_assert_cmpstr (type, ==, "separator");
    g_assert_true (g_variant_lookup (pause_props, "toggle-type", "&s", &toggle));
    g_assert_cmpstr (toggle, ==, "checkmark");
    g_assert_true (g_variant_lookup (pause_props, "toggle-state", "i", &state));
    g_assert_cmpint (state, ==, 0);
    for (int id = 1; id <= 7; id++)
      if (id != 4 && id != 6)
        g_assert_true (enabled_of (root, id));
  }
  g_clear_pointer (&root, g_variant_unref);

  /* Asks waiting: attention, a new status and the count in the menu. */
  ow_tray_set_inbox_count (tray, 3);
  OW_TEST_WAIT_UNTIL (panel.new_status >= 1);
  g_assert_cmpstr (panel.last_status, ==, "NeedsAttention");
  OW_TEST_WAIT_UNTIL (panel.layout_updated >= 1);
  OW_TEST_WAIT_UNTIL (panel.props_updated >= 1);
  root = layout (tray, &rev2);
  g_assert_cmpuint (rev2, >, rev1);
  {
    g_autofree char *inbox_label = label_of (root, 2);
    g_autoptr(GVariant) now = item_props (tray);
    g_autofree char *status = prop_string (now, "Status");
    g_autoptr(GVariant) tip = g_variant_lookup_value (now, "ToolTip", G_VARIANT_TYPE ("(sa(iiay)ss)"));
    const char *description = NULL;

    g_assert_cmpstr (inbox_label, ==, "_Inbox (3)");
    g_assert_cmpstr (status, ==, "NeedsAttention");
    g_assert_nonnull (tip);
    g_variant_get_child (tip, 3, "&s", &description);
    g_assert_cmpstr (description, ==, "3 asks are waiting in the inbox");
  }
  g_clear_pointer (&root, g_variant_unref);
  {
    g_autoptr(GVariant) prop = call (tray, "/MenuBar", "com.canonical.dbusmenu", "GetProperty",
                                     g_variant_new ("(is)", 2, "label"), "(v)", &error);
    g_autoptr(GVariant) v = NULL;
    g_assert_no_error (error);
    g_variant_get (prop, "(v)", &v);
    g_assert_cmpstr (g_variant_get_string (v, NULL), ==, "_Inbox (3)");
  }

  /* Clicks run the application's actions. */
  click (tray, 2);
  OW_TEST_WAIT_UNTIL (panel.inbox >= 1);
  click (tray, 3);
  OW_TEST_WAIT_UNTIL (panel.new_session >= 1);
  click (tray, 1);
  OW_TEST_WAIT_UNTIL (panel.activated >= 1);
  click (tray, 5);
  OW_TEST_WAIT_UNTIL (action_is_on (pause));
  {
    const int ids[] = { 5 };
    const char *names[] = { "toggle-state", NULL };
    g_autoptr(GVariant) reply = call (tray, "/MenuBar", "com.canonical.dbusmenu", "GetGroupProperties",
                                      g_variant_new ("(@ai^as)",
                                                     g_variant_new_fixed_array (G_VARIANT_TYPE_INT32, ids, 1, sizeof (int)),
                                                     names), "(a(ia{sv}))", &error);
    g_autoptr(GVariant) list = NULL;
    g_autoptr(GVariant) entry = NULL;
    g_autoptr(GVariant) props = NULL;
    int id = 0, state = 0;

    g_assert_no_error (error);
    list = g_variant_get_child_value (reply, 0);
    g_assert_cmpuint (g_variant_n_children (list), ==, 1);
    entry = g_variant_get_child_value (list, 0);
    g_variant_get (entry, "(i@a{sv})", &id, &props);
    g_assert_cmpint (id, ==, 5);
    g_assert_true (g_variant_lookup (props, "toggle-state", "i", &state));
    g_assert_cmpint (state, ==, 1);
    g_assert_false (g_variant_lookup (props, "label", "s", NULL));   /* only what was asked */
  }
  click (tray, 7);
  OW_TEST_WAIT_UNTIL (panel.quit >= 1);
  {
    g_autoptr(GVariant) reply = call (tray, "/MenuBar", "com.canonical.dbusmenu", "Event",
                                      g_variant_new ("(isvu)", 99, "clicked", g_variant_new_int32 (0), 0), "()", &error);
    g_assert_null (reply);
    g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS);
    g_clear_error (&error);
  }
  {
    g_autoptr(GVariant) reply = call (tray, "/MenuBar", "com.canonical.dbusmenu", "AboutToShow",
                                      g_variant_new ("(i)", 0), "(b)", &error);
    g_assert_no_error (error);
    g_assert_nonnull (reply);
  }

  /* An action the application drops is shown disabled. */
  {
    guint before = panel.layout_updated;
    g_action_map_remove_action (G_ACTION_MAP (app), "quit");
    OW_TEST_WAIT_UNTIL (panel.layout_updated >= before + 1);
    root = layout (tray, &rev1);
    g_assert_false (enabled_of (root, 7));
    g_assert_true (enabled_of (root, 1));
    g_clear_pointer (&root, g_variant_unref);
  }

  /* The panel restarts: the item registers again. */
  stop_watcher ();
  OW_TEST_WAIT_UNTIL (!ow_tray_get_registered (tray));
  start_watcher ();
  OW_TEST_WAIT_UNTIL (panel.registered->len >= 2);
  g_assert_cmpstr (g_ptr_array_index (panel.registered, 1), ==, bus_name);

  /* Gone with the object (no reference or cycle keeps it): the name is
   * let go. */
  g_assert_finalize_object (g_steal_pointer (&tray));
  OW_TEST_WAIT_UNTIL (!name_has_owner (bus_name));
  stop_watcher ();
  g_dbus_connection_signal_unsubscribe (panel.bus, sub);
  g_clear_object (&panel.bus);
  g_clear_pointer (&panel.info, g_dbus_node_info_unref);
  g_clear_pointer (&panel.registered, g_ptr_array_unref);
  g_free (panel.last_sender);
  g_free (panel.last_status);
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_printerr ("test-tray needs a session bus: run it through ui-session.py\n");
      return 1;
    }
  g_test_add_func ("/ow/ui-settings/tray/item", test_tray_item);
  return g_test_run ();
}
