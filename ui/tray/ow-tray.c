/* ow-tray.c: the StatusNotifierItem and its dbusmenu (see ow-tray.h).
 *
 * Two objects are exported on the session bus: the item at
 * /StatusNotifierItem (what a panel shows: icon, status, tooltip) and the
 * menu at /MenuBar (a flat com.canonical.dbusmenu tree). Panels re-read the
 * item's properties when they get its New* signals, and the menu's layout
 * when its revision moves on with LayoutUpdated, so every change here
 * bumps one or sends the other; neither relies on PropertiesChanged.
 */
#define G_LOG_DOMAIN "ow-tray"

#include "config-ui.h"
#include "ow-tray.h"

#include <glib/gi18n-lib.h>
#include <unistd.h>

#define WATCHER_NAME "org.kde.StatusNotifierWatcher"
#define WATCHER_PATH "/StatusNotifierWatcher"
#define ITEM_IFACE   "org.kde.StatusNotifierItem"
#define MENU_IFACE   "com.canonical.dbusmenu"

static const char introspection_xml[] =
  "<node>"
  "  <interface name='org.kde.StatusNotifierItem'>"
  "    <property name='Category' type='s' access='read'/>"
  "    <property name='Id' type='s' access='read'/>"
  "    <property name='Title' type='s' access='read'/>"
  "    <property name='Status' type='s' access='read'/>"
  "    <property name='WindowId' type='i' access='read'/>"
  "    <property name='IconThemePath' type='s' access='read'/>"
  "    <property name='IconName' type='s' access='read'/>"
  "    <property name='IconPixmap' type='a(iiay)' access='read'/>"
  "    <property name='OverlayIconName' type='s' access='read'/>"
  "    <property name='OverlayIconPixmap' type='a(iiay)' access='read'/>"
  "    <property name='AttentionIconName' type='s' access='read'/>"
  "    <property name='AttentionIconPixmap' type='a(iiay)' access='read'/>"
  "    <property name='AttentionMovieName' type='s' access='read'/>"
  "    <property name='ToolTip' type='(sa(iiay)ss)' access='read'/>"
  "    <property name='ItemIsMenu' type='b' access='read'/>"
  "    <property name='Menu' type='o' access='read'/>"
  "    <method name='ContextMenu'><arg name='x' type='i' direction='in'/><arg name='y' type='i' direction='in'/></method>"
  "    <method name='Activate'><arg name='x' type='i' direction='in'/><arg name='y' type='i' direction='in'/></method>"
  "    <method name='SecondaryActivate'><arg name='x' type='i' direction='in'/><arg name='y' type='i' direction='in'/></method>"
  "    <method name='Scroll'><arg name='delta' type='i' direction='in'/><arg name='orientation' type='s' direction='in'/></method>"
  "    <signal name='NewTitle'/>"
  "    <signal name='NewIcon'/>"
  "    <signal name='NewAttentionIcon'/>"
  "    <signal name='NewOverlayIcon'/>"
  "    <signal name='NewToolTip'/>"
  "    <signal name='NewStatus'><arg name='status' type='s'/></signal>"
  "  </interface>"
  "  <interface name='com.canonical.dbusmenu'>"
  "    <property name='Version' type='u' access='read'/>"
  "    <property name='TextDirection' type='s' access='read'/>"
  "    <property name='Status' type='s' access='read'/>"
  "    <property name='IconThemePath' type='as' access='read'/>"
  "    <method name='GetLayout'>"
  "      <arg name='parentId' type='i' direction='in'/>"
  "      <arg name='recursionDepth' type='i' direction='in'/>"
  "      <arg name='propertyNames' type='as' direction='in'/>"
  "      <arg name='revision' type='u' direction='out'/>"
  "      <arg name='layout' type='(ia{sv}av)' direction='out'/>"
  "    </method>"
  "    <method name='GetGroupProperties'>"
  "      <arg name='ids' type='ai' direction='in'/>"
  "      <arg name='propertyNames' type='as' direction='in'/>"
  "      <arg name='properties' type='a(ia{sv})' direction='out'/>"
  "    </method>"
  "    <method name='GetProperty'>"
  "      <arg name='id' type='i' direction='in'/>"
  "      <arg name='name' type='s' direction='in'/>"
  "      <arg name='value' type='v' direction='out'/>"
  "    </method>"
  "    <method name='Event'>"
  "      <arg name='id' type='i' direction='in'/>"
  "      <arg name='eventId' type='s' direction='in'/>"
  "      <arg name='data' type='v' direction='in'/>"
  "      <arg name='timestamp' type='u' direction='in'/>"
  "    </method>"
  "    <method name='EventGroup'>"
  "      <arg name='events' type='a(isvu)' direction='in'/>"
  "      <arg name='idErrors' type='ai' direction='out'/>"
  "    </method>"
  "    <method name='AboutToShow'>"
  "      <arg name='id' type='i' direction='in'/>"
  "      <arg name='needUpdate' type='b' direction='out'/>"
  "    </method>"
  "    <method name='AboutToShowGroup'>"
  "      <arg name='ids' type='ai' direction='in'/>"
  "      <arg name='updatesNeeded' type='ai' direction='out'/>"
  "      <arg name='idErrors' type='ai' direction='out'/>"
  "    </method>"
  "    <signal name='ItemsPropertiesUpdated'>"
  "      <arg name='updatedProps' type='a(ia{sv})'/>"
  "      <arg name='removedProps' type='a(ias)'/>"
  "    </signal>"
  "    <signal name='LayoutUpdated'><arg name='revision' type='u'/><arg name='parent' type='i'/></signal>"
  "    <signal name='ItemActivationRequested'><arg name='id' type='i'/><arg name='timestamp' type='u'/></signal>"
  "  </interface>"
  "</node>";

/* The menu, flat under the root (id 0). */
typedef enum { ITEM_OPEN = 1, ITEM_INBOX, ITEM_NEW_SESSION, ITEM_SEP1, ITEM_PAUSE, ITEM_SEP2, ITEM_QUIT } ItemId;

typedef struct {
  ItemId      id;
  const char *action;     /* an app action's name, or NULL (Open: activate; separators) */
  const char *label;      /* untranslated; NULL for separators and the inbox */
  gboolean    toggle;     /* a checkmark following the action's boolean state */
} MenuItem;

static const MenuItem menu_items[] = {
  { ITEM_OPEN, NULL, N_("_Open OpenWorker"), FALSE },
  { ITEM_INBOX, "inbox", NULL, FALSE },
  { ITEM_NEW_SESSION, "new-session", N_("_New Session"), FALSE },
  { ITEM_SEP1, NULL, NULL, FALSE },
  { ITEM_PAUSE, "pause-automations", N_("_Pause Automations"), TRUE },
  { ITEM_SEP2, NULL, NULL, FALSE },
  { ITEM_QUIT, "quit", N_("_Quit"), FALSE },
};

struct _OwTray
{
  GObject          parent_instance;

  /* owned references */
  GApplication    *application;
  GDBusConnection *connection;
  GCancellable    *cancellable;
  GDBusNodeInfo   *node_info;
  char            *icon_name;
  char            *bus_name;

  /* state */
  guint            inbox_count;
  guint            revision;       /* the menu layout's revision */
  guint            item_reg_id;
  guint            menu_reg_id;
  guint            own_id;
  guint            watch_id;
  gboolean         name_owned;
  gboolean         watcher_up;
  gboolean         registered;
};

G_DEFINE_FINAL_TYPE (OwTray, ow_tray, G_TYPE_OBJECT)

enum { PROP_0, PROP_INBOX_COUNT, PROP_NAME_OWNED, PROP_REGISTERED, N_PROPS };
static GParamSpec *props[N_PROPS];

/* ---- Pure helpers ---------------------------------------------------------- */

const char *
ow_tray_status_for_count (guint count)
{
  return count > 0 ? "NeedsAttention" : "Active";
}

char *
ow_tray_inbox_label (guint count)
{
  if (count == 0)
    return g_strdup (_("_Inbox"));
  /* TRANSLATORS: the tray menu's Inbox item with how many asks wait there */
  return g_strdup_printf (_("_Inbox (%u)"), count);
}

/* ---- Helpers --------------------------------------------------------------- */

static const MenuItem *
find_item (int id)
{
  for (gsize i = 0; i < G_N_ELEMENTS (menu_items); i++)
    if ((int) menu_items[i].id == id)
      return &menu_items[i];
  return NULL;
}

static gboolean
item_is_separator (const MenuItem *item)
{
  return item->id == ITEM_SEP1 || item->id == ITEM_SEP2;
}

static gboolean
item_enabled (OwTray *self, const MenuItem *item)
{
  GActionGroup *actions = G_ACTION_GROUP (self->application);

  if (item->action == NULL)
    return TRUE;
  return g_action_group_has_action (actions, item->action)
         && g_action_group_get_action_enabled (actions, item->action);
}

static int
item_toggle_state (OwTray *self, const MenuItem *item)
{
  GActionGroup *actions = G_ACTION_GROUP (self->application);
  g_autoptr(GVariant) state = NULL;

  if (g_action_group_has_action (actions, item->action))
    state = g_action_group_get_action_state (actions, item->action);
  if (state == NULL || !g_variant_is_of_type (state, G_VARIANT_TYPE_BOOLEAN))
    return 0;
  return g_variant_get_boolean (state) ? 1 : 0;
}

static gboolean
wanted (const char *const *names, const char *name)
{
  return names == NULL || names[0] == NULL || g_strv_contains (names, name);
}

/* The a{sv} of one item, limited to @names (all when empty). */
static GVariant *
item_properties (OwTray *self, const MenuItem *item, const char *const *names)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  if (item_is_separator (item))
    {
      if (wanted (names, "type"))
        g_variant_builder_add (&b, "{sv}", "type", g_variant_new_string ("separator"));
      return g_variant_builder_end (&b);
    }
  if (wanted (names, "label"))
    {
      g_autofree char *label = item->id == ITEM_INBOX ? ow_tray_inbox_label (self->inbox_count)
                                                      : g_strdup (_(item->label));
      g_variant_builder_add (&b, "{sv}", "label", g_variant_new_string (label));
    }
  if (wanted (names, "enabled"))
    g_variant_builder_add (&b, "{sv}", "enabled", g_variant_new_boolean (item_enabled (self, item)));
  if (wanted (names, "visible"))
    g_variant_builder_add (&b, "{sv}", "visible", g_variant_new_boolean (TRUE));
  if (item->toggle)
    {
      if (wanted (names, "toggle-type"))
        g_variant_builder_add (&b, "{sv}", "toggle-type", g_variant_new_string ("checkmark"));
      if (wanted (names, "toggle-state"))
        g_variant_builder_add (&b, "{sv}", "toggle-state", g_variant_new_int32 (item_toggle_state (self, item)));
    }
  return g_variant_builder_end (&b);
}

static GVariant *
layout_node (OwTray *self, int id, int depth, const char *const *names)
{
  GVariantBuilder children;
  GVariant *properties;

  g_variant_builder_init (&children, G_VARIANT_TYPE ("av"));
  if (id == 0)
    {
      GVariantBuilder b;

      g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
      if (wanted (names, "children-display"))
        g_variant_builder_add (&b, "{sv}", "children-display", g_variant_new_string ("submenu"));
      properties = g_variant_builder_end (&b);
      if (depth != 0)
        for (gsize i = 0; i < G_N_ELEMENTS (menu_items); i++)
          g_variant_builder_add (&children, "v", layout_node (self, (int) menu_items[i].id, depth - 1, names));
    }
  else
    properties = item_properties (self, find_item (id), names);
  return g_variant_new ("(i@a{sv}av)", id, properties, &children);
}

static void
activate_item (OwTray *self, const MenuItem *item)
{
  if (item->id == ITEM_OPEN)
    g_application_activate (self->application);
  else if (item->action != NULL && item_enabled (self, item))
    g_action_group_activate_action (G_ACTION_GROUP (self->application), item->action, NULL);
}

static void
emit_item_signal (OwTray *self, const char *signal, GVariant *params)
{
  if (self->connection == NULL || self->item_reg_id == 0)
    {
      if (params != NULL)
        g_variant_unref (g_variant_ref_sink (params));
      return;
    }
  g_dbus_connection_emit_signal (self->connection, NULL, OW_TRAY_ITEM_PATH, ITEM_IFACE, signal, params, NULL);
}

/* The menu changed: a new revision for hosts to fetch. */
static void
menu_changed (OwTray *self)
{
  self->revision++;
  if (self->connection != NULL && self->menu_reg_id != 0)
    g_dbus_connection_emit_signal (self->connection, NULL, OW_TRAY_MENU_PATH, MENU_IFACE, "LayoutUpdated",
                                   g_variant_new ("(ui)", self->revision, 0), NULL);
}

/* ---- org.kde.StatusNotifierItem --------------------------------------------- */

static char *
tooltip_text (OwTray *self)
{
  if (self->inbox_count == 0)
    return g_strdup (_("Nothing is waiting for you"));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u ask is waiting in the inbox",
                                       "%u asks are waiting in the inbox", self->inbox_count),
                          self->inbox_count);
}

static GVariant *
empty_pixmaps (void)
{
  return g_variant_new_array (G_VARIANT_TYPE ("(iiay)"), NULL, 0);
}

static GVariant *
item_get_property (GDBusConnection *connection, const char *sender, const char *path, const char *iface,
                   const char *name, GError **error, gpointer user_data)
{
  OwTray *self = user_data;

  if (g_str_equal (iface, MENU_IFACE))
    {
      if (g_str_equal (name, "Version"))
        return g_variant_new_uint32 (3);
      if (g_str_equal (name, "TextDirection"))
        /* TRANSLATORS: "rtl" for a language written right to left, else "ltr" */
        return g_variant_new_string (C_("text direction", "ltr"));
      if (g_str_equal (name, "Status"))
        return g_variant_new_string (self->inbox_count > 0 ? "notice" : "normal");
      if (g_str_equal (name, "IconThemePath"))
        return g_variant_new_strv (NULL, 0);
    }
  else if (g_str_equal (name, "Category"))
    return g_variant_new_string ("ApplicationStatus");
  else if (g_str_equal (name, "Id"))
    return g_variant_new_string (g_application_get_application_id (self->application) != NULL
                                   ? g_application_get_application_id (self->application) : "openworker");
  else if (g_str_equal (name, "Title"))
    return g_variant_new_string (_("OpenWorker"));
  else if (g_str_equal (name, "Status"))
    return g_variant_new_string (ow_tray_status_for_count (self->inbox_count));
  else if (g_str_equal (name, "WindowId"))
    return g_variant_new_int32 (0);
  else if (g_str_equal (name, "IconThemePath") || g_str_equal (name, "OverlayIconName")
           || g_str_equal (name, "AttentionMovieName"))
    return g_variant_new_string ("");
  else if (g_str_equal (name, "IconName"))
    {
      g_autofree char *icon = g_strconcat (self->icon_name, "-symbolic", NULL);
      return g_variant_new_string (icon);
    }
  else if (g_str_equal (name, "AttentionIconName"))
    {
      g_autofree char *icon = g_strconcat (self->icon_name, "-attention-symbolic", NULL);
      return g_variant_new_string (icon);
    }
  else if (g_str_has_suffix (name, "Pixmap"))
    return empty_pixmaps ();
  else if (g_str_equal (name, "ToolTip"))
    {
      g_autofree char *text = tooltip_text (self);
      return g_variant_new ("(s@a(iiay)ss)", self->icon_name, empty_pixmaps (), _("OpenWorker"), text);
    }
  else if (g_str_equal (name, "ItemIsMenu"))
    return g_variant_new_boolean (FALSE);
  else if (g_str_equal (name, "Menu"))
    return g_variant_new_object_path (OW_TRAY_MENU_PATH);

  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "No property %s.%s", iface, name);
  return NULL;
}

static void
item_method_call (GDBusConnection *connection, const char *sender, const char *path, const char *iface,
                  const char *method, GVariant *params, GDBusMethodInvocation *invocation, gpointer user_data)
{
  OwTray *self = user_data;

  if (g_str_equal (method, "Activate") || g_str_equal (method, "SecondaryActivate"))
    g_application_activate (self->application);
  /* ContextMenu: the host shows the exported menu itself. Scroll: nothing to scroll. */
  g_dbus_method_invocation_return_value (invocation, NULL);
}

/* ---- com.canonical.dbusmenu --------------------------------------------------- */

static void
menu_method_call (GDBusConnection *connection, const char *sender, const char *path, const char *iface,
                  const char *method, GVariant *params, GDBusMethodInvocation *invocation, gpointer user_data)
{
  OwTray *self = user_data;

  if (g_str_equal (method, "GetLayout"))
    {
      int parent, depth;
      g_autofree const char **names = NULL;

      g_variant_get (params, "(ii^a&s)", &parent, &depth, &names);
      if (parent != 0 && find_item (parent) == NULL)
        {
          g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                                 "There is no menu item %d", parent);
          return;
        }
      g_dbus_method_invocation_return_value (invocation,
                                             g_variant_new ("(u@(ia{sv}av))", self->revision,
                                                            layout_node (self, parent, depth, names)));
    }
  else if (g_str_equal (method, "GetGroupProperties"))
    {
      g_autoptr(GVariant) ids = NULL;
      g_autofree const char **names = NULL;
      GVariantBuilder b;
      gsize n;
      const gint32 *idv;

      g_variant_get (params, "(@ai^a&s)", &ids, &names);
      idv = g_variant_get_fixed_array (ids, &n, sizeof (gint32));
      g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ia{sv})"));
      for (gsize i = 0; i < G_N_ELEMENTS (menu_items); i++)
        {
          gboolean asked = n == 0;

          for (gsize k = 0; k < n && !asked; k++)
            asked = idv[k] == (gint32) menu_items[i].id;
          if (asked)
            g_variant_builder_add (&b, "(i@a{sv})", (int) menu_items[i].id,
                                   item_properties (self, &menu_items[i], names));
        }
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a(ia{sv}))", &b));
    }
  else if (g_str_equal (method, "GetProperty"))
    {
      int id;
      const char *name;
      const MenuItem *item;
      g_autoptr(GVariant) all = NULL;
      g_autoptr(GVariant) value = NULL;

      g_variant_get (params, "(i&s)", &id, &name);
      item = find_item (id);
      if (item != NULL)
        {
          all = item_properties (self, item, NULL);
          value = g_variant_lookup_value (all, name, NULL);
        }
      if (value == NULL)
        g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                               "Menu item %d has no property “%s”", id, name);
      else
        g_dbus_method_invocation_return_value (invocation, g_variant_new ("(v)", value));
    }
  else if (g_str_equal (method, "Event"))
    {
      int id;
      const char *event;
      g_autoptr(GVariant) data = NULL;
      guint32 timestamp;
      const MenuItem *item;

      g_variant_get (params, "(i&svu)", &id, &event, &data, &timestamp);
      item = find_item (id);
      if (item == NULL && id != 0)
        {
          g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                                 "There is no menu item %d", id);
          return;
        }
      if (item != NULL && g_str_equal (event, "clicked"))
        activate_item (self, item);
      g_dbus_method_invocation_return_value (invocation, NULL);
    }
  else if (g_str_equal (method, "EventGroup"))
    {
      g_autoptr(GVariantIter) iter = NULL;
      GVariantBuilder errors;
      int id;
      const char *event;
      GVariant *data;
      guint32 timestamp;

      g_variant_get (params, "(a(isvu))", &iter);
      g_variant_builder_init (&errors, G_VARIANT_TYPE ("ai"));
      while (g_variant_iter_loop (iter, "(i&svu)", &id, &event, &data, &timestamp))
        {
          const MenuItem *item = find_item (id);

          if (item == NULL)
            g_variant_builder_add (&errors, "i", id);
          else if (g_str_equal (event, "clicked"))
            activate_item (self, item);
        }
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(ai)", &errors));
    }
  else if (g_str_equal (method, "AboutToShow"))
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(b)", FALSE));
  else if (g_str_equal (method, "AboutToShowGroup"))
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@ai@ai)",
                                                                      g_variant_new_array (G_VARIANT_TYPE_INT32, NULL, 0),
                                                                      g_variant_new_array (G_VARIANT_TYPE_INT32, NULL, 0)));
  else
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD,
                                           "No method %s", method);
}

static const GDBusInterfaceVTable item_vtable = { item_method_call, item_get_property, NULL, { 0 } };
static const GDBusInterfaceVTable menu_vtable = { menu_method_call, item_get_property, NULL, { 0 } };

/* ---- The watcher ------------------------------------------------------------- */

static void
set_registered (OwTray *self, gboolean registered)
{
  if (self->registered == registered)
    return;
  self->registered = registered;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REGISTERED]);
}

static void
on_register_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  OwTray *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_TRAY (user_data);
  if (reply == NULL)
    {
      /* A watcher that refuses is a panel problem, not ours: the app runs on. */
      g_debug ("The StatusNotifierWatcher did not take the tray item: %s", error->message);
      return;
    }
  set_registered (self, self->watcher_up);
}

/* Registers once the name is ours and a watcher runs, in either order. */
static void
maybe_register (OwTray *self)
{
  if (!self->name_owned || !self->watcher_up)
    return;
  g_dbus_connection_call (self->connection, WATCHER_NAME, WATCHER_PATH, WATCHER_NAME, "RegisterStatusNotifierItem",
                          g_variant_new ("(s)", self->bus_name), NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1,
                          self->cancellable, on_register_done_cb, self);
}

static void
on_watcher_appeared_cb (GDBusConnection *connection, const char *name, const char *owner, gpointer user_data)
{
  OwTray *self = user_data;

  self->watcher_up = TRUE;
  maybe_register (self);
}

static void
on_watcher_vanished_cb (GDBusConnection *connection, const char *name, gpointer user_data)
{
  OwTray *self = user_data;

  self->watcher_up = FALSE;
  set_registered (self, FALSE);
}

static void
on_name_acquired_cb (GDBusConnection *connection, const char *name, gpointer user_data)
{
  OwTray *self = user_data;

  self->name_owned = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_NAME_OWNED]);
  maybe_register (self);
}

static void
on_name_lost_cb (GDBusConnection *connection, const char *name, gpointer user_data)
{
  OwTray *self = user_data;

  if (connection == NULL)
    g_debug ("No session bus connection for the tray item %s", name);
  if (self->name_owned)
    {
      self->name_owned = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_NAME_OWNED]);
    }
}

/* ---- The application's actions ------------------------------------------------ */

static void
on_actions_changed_cb (GActionGroup *group, const char *name, gpointer user_data)
{
  OwTray *self = user_data;

  for (gsize i = 0; i < G_N_ELEMENTS (menu_items); i++)
    if (g_strcmp0 (menu_items[i].action, name) == 0)
      {
        menu_changed (self);
        return;
      }
}

static void
on_action_enabled_changed_cb (GActionGroup *group, const char *name, gboolean enabled, gpointer user_data)
{
  on_actions_changed_cb (group, name, user_data);
}

static void
on_action_state_changed_cb (GActionGroup *group, const char *name, GVariant *state, gpointer user_data)
{
  on_actions_changed_cb (group, name, user_data);
}

/* ---- Start-up ------------------------------------------------------------------ */

static void
on_bus_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GError) error = NULL;
  GDBusConnection *connection = g_bus_get_finish (result, &error);
  OwTray *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = OW_TRAY (user_data);
  if (connection == NULL)
    {
      g_debug ("No session bus, so no tray item: %s", error->message);
      return;
    }
  self->connection = connection;
  self->item_reg_id = g_dbus_connection_register_object (connection, OW_TRAY_ITEM_PATH,
                                                         self->node_info->interfaces[0], &item_vtable, self, NULL,
                                                         &error);
  if (self->item_reg_id != 0)
    self->menu_reg_id = g_dbus_connection_register_object (connection, OW_TRAY_MENU_PATH,
                                                           self->node_info->interfaces[1], &menu_vtable, self, NULL,
                                                           &error);
  if (self->menu_reg_id == 0)
    {
      g_debug ("The tray item could not be exported: %s", error->message);
      return;
    }
  self->own_id = g_bus_own_name_on_connection (connection, self->bus_name, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
                                               on_name_acquired_cb, on_name_lost_cb, self, NULL);
  self->watch_id = g_bus_watch_name_on_connection (connection, WATCHER_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                   on_watcher_appeared_cb, on_watcher_vanished_cb, self, NULL);
}

/* ---- GObject ------------------------------------------------------------------- */

static void
ow_tray_dispose (GObject *object)
{
  OwTray *self = OW_TRAY (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->watch_id, g_bus_unwatch_name);
  g_clear_handle_id (&self->own_id, g_bus_unown_name);
  if (self->connection != NULL)
    {
      if (self->item_reg_id != 0)
        g_dbus_connection_unregister_object (self->connection, self->item_reg_id);
      if (self->menu_reg_id != 0)
        g_dbus_connection_unregister_object (self->connection, self->menu_reg_id);
      self->item_reg_id = self->menu_reg_id = 0;
    }
  if (self->application != NULL)
    g_signal_handlers_disconnect_by_data (self->application, self);
  g_clear_object (&self->connection);
  g_clear_object (&self->application);
  G_OBJECT_CLASS (ow_tray_parent_class)->dispose (object);
}

static void
ow_tray_finalize (GObject *object)
{
  OwTray *self = OW_TRAY (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->node_info, g_dbus_node_info_unref);
  g_free (self->icon_name);
  g_free (self->bus_name);
  G_OBJECT_CLASS (ow_tray_parent_class)->finalize (object);
}

static void
ow_tray_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwTray *self = OW_TRAY (object);

  switch (prop_id)
    {
    case PROP_INBOX_COUNT:
      g_value_set_uint (value, self->inbox_count);
      break;
    case PROP_NAME_OWNED:
      g_value_set_boolean (value, self->name_owned);
      break;
    case PROP_REGISTERED:
      g_value_set_boolean (value, self->registered);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_tray_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  OwTray *self = OW_TRAY (object);

  switch (prop_id)
    {
    case PROP_INBOX_COUNT:
      ow_tray_set_inbox_count (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_tray_class_init (OwTrayClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_tray_dispose;
  object_class->finalize = ow_tray_finalize;
  object_class->get_property = ow_tray_get_property;
  object_class->set_property = ow_tray_set_property;

  props[PROP_INBOX_COUNT] =
    g_param_spec_uint ("inbox-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  props[PROP_NAME_OWNED] =
    g_param_spec_boolean ("name-owned", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_REGISTERED] =
    g_param_spec_boolean ("registered", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ow_tray_init (OwTray *self)
{
  static guint counter;

  self->cancellable = g_cancellable_new ();
  self->node_info = g_dbus_node_info_new_for_xml (introspection_xml, NULL);
  self->bus_name = g_strdup_printf ("org.kde.StatusNotifierItem-%d-%u", (int) getpid (),
                                    g_atomic_int_add (&counter, 1) + 1);
  self->revision = 1;
}

OwTray *
ow_tray_new (GApplication *application, const char *icon_name)
{
  OwTray *self;

  g_return_val_if_fail (G_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (icon_name != NULL, NULL);

  self = g_object_new (OW_TYPE_TRAY, NULL);
  self->application = g_object_ref (application);
  self->icon_name = g_strdup (icon_name);
  g_signal_connect (application, "action-added", G_CALLBACK (on_actions_changed_cb), self);
  g_signal_connect (application, "action-removed", G_CALLBACK (on_actions_changed_cb), self);
  g_signal_connect (application, "action-enabled-changed", G_CALLBACK (on_action_enabled_changed_cb), self);
  g_signal_connect (application, "action-state-changed", G_CALLBACK (on_action_state_changed_cb), self);
  g_bus_get (G_BUS_TYPE_SESSION, self->cancellable, on_bus_cb, self);
  return self;
}

void
ow_tray_set_inbox_count (OwTray *self, guint count)
{
  GVariantBuilder updated;
  const MenuItem *inbox = find_item (ITEM_INBOX);

  g_return_if_fail (OW_IS_TRAY (self));

  if (self->inbox_count == count)
    return;
  self->inbox_count = count;
  emit_item_signal (self, "NewStatus", g_variant_new ("(s)", ow_tray_status_for_count (count)));
  emit_item_signal (self, "NewToolTip", NULL);
  if (self->connection != NULL && self->menu_reg_id != 0)
    {
      g_variant_builder_init (&updated, G_VARIANT_TYPE ("a(ia{sv})"));
      g_variant_builder_add (&updated, "(i@a{sv})", (int) ITEM_INBOX, item_properties (self, inbox, NULL));
      g_dbus_connection_emit_signal (self->connection, NULL, OW_TRAY_MENU_PATH, MENU_IFACE, "ItemsPropertiesUpdated",
                                     g_variant_new ("(a(ia{sv})@a(ias))", &updated,
                                                    g_variant_new_array (G_VARIANT_TYPE ("(ias)"), NULL, 0)),
                                     NULL);
    }
  menu_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_INBOX_COUNT]);
}

guint
ow_tray_get_inbox_count (OwTray *self)
{
  g_return_val_if_fail (OW_IS_TRAY (self), 0);
  return self->inbox_count;
}

const char *
ow_tray_get_bus_name (OwTray *self)
{
  g_return_val_if_fail (OW_IS_TRAY (self), NULL);
  return self->bus_name;
}

gboolean
ow_tray_get_name_owned (OwTray *self)
{
  g_return_val_if_fail (OW_IS_TRAY (self), FALSE);
  return self->name_owned;
}

gboolean
ow_tray_get_registered (OwTray *self)
{
  g_return_val_if_fail (OW_IS_TRAY (self), FALSE);
  return self->registered;
}
