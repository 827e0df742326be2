/* ow-notifier.h: desktop notifications for asks that wait for a person.
 *
 * When an approval, a question, a folder request or a site card arrives
 * while no OpenWorker window is on screen (closed to the background, or
 * minimized), a GNotification says so. An approval's notification has
 * Allow once and Deny buttons that answer it in place, where the desktop
 * shows buttons; clicking the notification opens the inbox. An ask
 * answered anywhere — a window, the browser, the inbox — withdraws its
 * notification.
 *
 * The notifier also keeps the number of pending asks (the inbox count),
 * which the tray binds to.
 */
#pragma once

#include <gtk/gtk.h>

#include "core/ow-session-host.h"

G_BEGIN_DECLS

#define OW_TYPE_NOTIFIER (ow_notifier_get_type ())
G_DECLARE_FINAL_TYPE (OwNotifier, ow_notifier, OW, NOTIFIER, GObject)

/* The action the notifications' buttons run: "app." + this, with a
 * (session id, call id, decision) target. The notifier adds it to
 * @application. */
#define OW_NOTIFIER_ANSWER_ACTION "notification-answer"

/* @application: where notifications are sent and the answer action is
 * added; @host: whose asks are announced. */
OwNotifier *ow_notifier_new               (GtkApplication *application,
                                           OwSessionHost  *host);
/* Pending asks across sessions (the "pending-count" property). */
guint       ow_notifier_get_pending_count (OwNotifier *self);
/* Reads the count again (after an answer from another process). */
void        ow_notifier_refresh           (OwNotifier *self);

/* The notification id of an ask: "ask:SESSION:CALL". */
char       *ow_notifier_notification_id   (const char *session_id,
                                           const char *call_id);
/* Whether an event type is an ask that waits for a person. */
gboolean    ow_notifier_event_is_ask      (const char *type);

G_END_DECLS
