/* ow-tray.h: the tray icon, a StatusNotifierItem over GDBus.
 *
 * GTK 4 has no tray API and libappindicator drags GTK 3 into the process,
 * so the item is spoken directly on the session bus: an
 * org.kde.StatusNotifierItem object with a com.canonical.dbusmenu menu
 * (Open, Inbox with its count, New session, Pause automations, Quit). The
 * menu runs the application's actions (app.inbox, app.new-session,
 * app.pause-automations, app.quit; Open activates the application), and an
 * item whose action the application does not have is shown disabled.
 *
 * The item owns its bus name as soon as it is created, whether or not a
 * tray runs, and registers with org.kde.StatusNotifierWatcher whenever one
 * appears (a panel that restarts gets it again). A non-zero inbox count
 * puts the item in its attention state.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define OW_TYPE_TRAY (ow_tray_get_type ())
G_DECLARE_FINAL_TYPE (OwTray, ow_tray, OW, TRAY, GObject)

/* The D-Bus object paths of the item and of its menu. */
#define OW_TRAY_ITEM_PATH "/StatusNotifierItem"
#define OW_TRAY_MENU_PATH "/MenuBar"

/**
 * ow_tray_new:
 * @application: whose actions the menu runs
 * @icon_name: the item's icon (a themed name, e.g. the app id)
 *
 * Takes a bus name on the session bus and exports the item; the work is
 * done on the main loop, so the name appears shortly after.
 */
OwTray     *ow_tray_new             (GApplication *application,
                                     const char   *icon_name);

/* How many asks wait in the inbox; non-zero asks for attention. */
void        ow_tray_set_inbox_count (OwTray *self,
                                     guint   count);
guint       ow_tray_get_inbox_count (OwTray *self);

/* The item's bus name ("org.kde.StatusNotifierItem-PID-N"). */
const char *ow_tray_get_bus_name    (OwTray *self);
/* Whether the name is ours on the bus yet. */
gboolean    ow_tray_get_name_owned  (OwTray *self);
/* Whether a StatusNotifierWatcher accepted the item (and still runs). */
gboolean    ow_tray_get_registered  (OwTray *self);

/* Pure helpers, tested on their own. */
/* "Active" or "NeedsAttention". */
const char *ow_tray_status_for_count (guint count);
/* The Inbox item's label: "_Inbox" or "_Inbox (N)", translated. */
char       *ow_tray_inbox_label      (guint count);

G_END_DECLS
