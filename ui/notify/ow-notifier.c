/* ow-notifier.c: notifications for asks (see ow-notifier.h). */
#define G_LOG_DOMAIN "ow-notifier"

#include "config-ui.h"
#include "ow-notifier.h"

#include <glib/gi18n-lib.h>

#include "ow-json.h"

/* A notification's body is one short line. */
#define BODY_MAX_CHARS 180

struct _OwNotifier
{
  GObject         parent_instance;

  /* borrowed: the application owns this object */
  GtkApplication *application;
  /* owned references */
  OwSessionHost  *host;
  GSimpleAction  *answer_action;

  guint           pending_count;
  gulong          event_handler;
  gulong          added_handler;
  gulong          resolved_handler;
};

G_DEFINE_FINAL_TYPE (OwNotifier, ow_notifier, G_TYPE_OBJECT)

enum { PROP_0, PROP_PENDING_COUNT, N_PROPS };
static GParamSpec *props[N_PROPS];

char *
ow_notifier_notification_id (const char *session_id, const char *call_id)
{
  return g_strdup_printf ("ask:%s:%s", session_id, call_id != NULL ? call_id : "");
}

gboolean
ow_notifier_event_is_ask (const char *type)
{
  return g_strcmp0 (type, "permission_required") == 0 || g_strcmp0 (type, "question_requested") == 0
         || g_strcmp0 (type, "directory_requested") == 0 || g_strcmp0 (type, "site_requested") == 0;
}

/* Whether a window of the application is on screen: visible and not minimized. */
static gboolean
window_on_screen (OwNotifier *self)
{
  for (GList *l = gtk_application_get_windows (self->application); l != NULL; l = l->next)
    {
      GtkWidget *window = l->data;
      GdkSurface *surface;

      if (!gtk_widget_get_visible (window))
        continue;
      surface = gtk_native_get_surface (GTK_NATIVE (window));
      if (surface != NULL && GDK_IS_TOPLEVEL (surface)
          && (gdk_toplevel_get_state (GDK_TOPLEVEL (surface)) & GDK_TOPLEVEL_STATE_MINIMIZED) != 0)
        continue;
      return TRUE;
    }
  return FALSE;
}

static void
set_pending (OwNotifier *self, guint count)
{
  if (self->pending_count == count)
    return;
  self->pending_count = count;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_PENDING_COUNT]);
}

void
ow_notifier_refresh (OwNotifier *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) items = NULL;

  g_return_if_fail (OW_IS_NOTIFIER (self));

  items = ow_inbox_list (ow_session_host_get_inbox (self->host), TRUE, &error);
  if (items == NULL)
    {
      g_debug ("The inbox could not be read: %s", error->message);
      return;
    }
  set_pending (self, items->len);
}

/* One line of at most BODY_MAX_CHARS characters. */
static char *
one_line (const char *text)
{
  g_autofree char *flat = g_strdup (text != NULL ? text : "");
  glong n;

  g_strdelimit (flat, "\r\n\t", ' ');
  g_strstrip (flat);
  n = g_utf8_strlen (flat, -1);
  if (n <= BODY_MAX_CHARS)
    return g_steal_pointer (&flat);
  {
    g_autofree char *cut = g_utf8_substring (flat, 0, BODY_MAX_CHARS - 1);
    return g_strconcat (cut, "…", NULL);
  }
}

static GNotification *
notification_for (const char *session_id, const OwEvent *event)
{
  JsonObject *data = event->data;
  const char *call_id = ow_json_get_string (data, "call_id") != NULL ? ow_json_get_string (data, "call_id") : "";
  g_autoptr(GNotification) n = NULL;
  g_autofree char *body = NULL;

  if (g_str_equal (event->type, "permission_required"))
    {
      const char *tool = ow_json_get_string (data, "name");
      const char *reason = ow_json_get_string (data, "reason");

      n = g_notification_new (_("Approval needed"));
      body = reason != NULL ? g_strdup_printf ("%s: %s", tool != NULL ? tool : _("a tool"), reason)
                            : g_strdup_printf (_("The coworker wants to use %s."), tool != NULL ? tool : _("a tool"));
      g_notification_add_button_with_target (n, _("Allow Once"), "app." OW_NOTIFIER_ANSWER_ACTION, "(sss)",
                                             session_id, call_id, "once");
      g_notification_add_button_with_target (n, _("Deny"), "app." OW_NOTIFIER_ANSWER_ACTION, "(sss)",
                                             session_id, call_id, "deny");
      g_notification_set_priority (n, G_NOTIFICATION_PRIORITY_HIGH);
    }
  else if (g_str_equal (event->type, "question_requested"))
    {
      n = g_notification_new (_("A question for you"));
      body = g_strdup (ow_json_get_string (data, "question"));
    }
  else if (g_str_equal (event->type, "directory_requested"))
    {
      n = g_notification_new (_("Folder access requested"));
      body = g_strdup (ow_json_get_string (data, "reason") != NULL ? ow_json_get_string (data, "reason")
                                                                   : ow_json_get_string (data, "path"));
    }
  else
    {
      const char *site = ow_json_get_string (data, "site");

      n = g_notification_new (_("A site needs your approval"));
      body = g_strdup_printf (_("The coworker wants to reach %s."), site != NULL ? site : "?");
    }
  if (body != NULL)
    {
      g_autofree char *line = one_line (body);
      g_notification_set_body (n, line);
    }
  g_notification_set_default_action (n, "app.inbox");
  return g_steal_pointer (&n);
}

static void
on_session_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  OwNotifier *self = user_data;
  GApplication *app = G_APPLICATION (self->application);

  if (ow_notifier_event_is_ask (event->type))
    {
      if (!window_on_screen (self) && g_application_get_is_registered (app))
        {
          g_autoptr(GNotification) n = notification_for (session_id, event);
          g_autofree char *id = ow_notifier_notification_id (session_id, ow_json_get_string (event->data, "call_id"));

          g_application_send_notification (app, id, n);
        }
    }
  else if (g_str_equal (event->type, "approval_resolved") || g_str_equal (event->type, "site_resolved"))
    {
      g_autofree char *id = ow_notifier_notification_id (session_id, ow_json_get_string (event->data, "call_id"));

      if (g_application_get_is_registered (app))
        g_application_withdraw_notification (app, id);
    }
}

/* The count follows the inbox itself, not the session events: an ask's
 * event is emitted before the attendant parks it, and items are also added
 * and answered from other surfaces (the browser, the CLI) with no event
 * here. */
static void
on_inbox_item_changed_cb (OwInbox *inbox, const char *item_id, gpointer user_data)
{
  ow_notifier_refresh (OW_NOTIFIER (user_data));
}

static void
on_answer_activate_cb (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  OwNotifier *self = user_data;
  const char *session_id, *call_id, *decision;
  g_autoptr(JsonObject) answer = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;

  g_variant_get (parameter, "(&s&s&s)", &session_id, &call_id, &decision);
  /* Only the two answers the buttons offer; anything wider goes through a card. */
  if (!g_str_equal (decision, "once") && !g_str_equal (decision, "deny"))
    return;
  json_object_set_string_member (answer, "decision", decision);
  if (!ow_session_host_answer (self->host, session_id, *call_id != '\0' ? call_id : NULL, answer, "notification",
                               &error))
    g_debug ("The notification's answer was not taken: %s", error->message);
  id = ow_notifier_notification_id (session_id, call_id);
  g_application_withdraw_notification (G_APPLICATION (self->application), id);
  ow_notifier_refresh (self);
}

static void
ow_notifier_dispose (GObject *object)
{
  OwNotifier *self = OW_NOTIFIER (object);

  if (self->host != NULL)
    {
      OwInbox *inbox = ow_session_host_get_inbox (self->host);

      g_clear_signal_handler (&self->event_handler, self->host);
      g_clear_signal_handler (&self->added_handler, inbox);
      g_clear_signal_handler (&self->resolved_handler, inbox);
    }
  if (self->answer_action != NULL && self->application != NULL)
    g_action_map_remove_action (G_ACTION_MAP (self->application), OW_NOTIFIER_ANSWER_ACTION);
  g_clear_object (&self->answer_action);
  g_clear_object (&self->host);
  g_clear_weak_pointer (&self->application);
  G_OBJECT_CLASS (ow_notifier_parent_class)->dispose (object);
}

static void
ow_notifier_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwNotifier *self = OW_NOTIFIER (object);

  switch (prop_id)
    {
    case PROP_PENDING_COUNT:
      g_value_set_uint (value, self->pending_count);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_notifier_class_init (OwNotifierClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ow_notifier_dispose;
  object_class->get_property = ow_notifier_get_property;

  props[PROP_PENDING_COUNT] =
    g_param_spec_uint ("pending-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ow_notifier_init (OwNotifier *self)
{
}

OwNotifier *
ow_notifier_new (GtkApplication *application, OwSessionHost *host)
{
  OwNotifier *self;

  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (OW_IS_SESSION_HOST (host), NULL);

  self = g_object_new (OW_TYPE_NOTIFIER, NULL);
  g_set_weak_pointer (&self->application, application);
  self->host = g_object_ref (host);
  self->answer_action = g_simple_action_new (OW_NOTIFIER_ANSWER_ACTION, G_VARIANT_TYPE ("(sss)"));
  g_signal_connect (self->answer_action, "activate", G_CALLBACK (on_answer_activate_cb), self);
  g_action_map_add_action (G_ACTION_MAP (application), G_ACTION (self->answer_action));
  self->event_handler = g_signal_connect (host, "session-event", G_CALLBACK (on_session_event_cb), self);
  self->added_handler = g_signal_connect (ow_session_host_get_inbox (host), "item-added",
                                          G_CALLBACK (on_inbox_item_changed_cb), self);
  self->resolved_handler = g_signal_connect (ow_session_host_get_inbox (host), "item-resolved",
                                             G_CALLBACK (on_inbox_item_changed_cb), self);
  ow_notifier_refresh (self);
  return self;
}

guint
ow_notifier_get_pending_count (OwNotifier *self)
{
  g_return_val_if_fail (OW_IS_NOTIFIER (self), 0);
  return self->pending_count;
}
