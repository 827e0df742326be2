/* ow-sidebar-row.c: a row of the sessions sidebar (see ow-sidebar-row.h). */
#define G_LOG_DOMAIN "ow-sidebar-row"

#include "config-ui.h"
#include "ow-sidebar-row.h"
#include "ow-ui-private.h"

#include <glib/gi18n-lib.h>

struct _OwSidebarRow
{
  GtkWidget      parent_instance;

  /* Template widgets */
  GtkWidget     *box;
  GtkMenuButton *menu_button;

  /* Owned */
  OwSessionItem *item;
};

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (OwSidebarRow, ow_sidebar_row, GTK_TYPE_WIDGET)

/* The menu depends on the session's state (Pin or Unpin), so it is made
 * when it opens. */
static GMenuModel *
build_menu (OwSidebarRow *self)
{
  GMenu *menu = g_menu_new ();
  GMenu *section = g_menu_new ();
  gboolean pinned = self->item != NULL && ow_session_item_get_pinned (self->item);
  gboolean archived = self->item != NULL && ow_session_item_get_archived (self->item);

  g_menu_append (section, _("_Rename…"), "session.rename");
  g_menu_append (section, pinned ? _("Un_pin") : _("_Pin"), "session.pin");
  g_menu_append (section, archived ? _("Un_archive") : _("_Archive"), "session.archive");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  g_object_unref (section);
  section = g_menu_new ();
  g_menu_append (section, _("_Delete"), "session.delete");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  g_object_unref (section);
  return G_MENU_MODEL (menu);
}

static void
on_menu_create_popup_cb (GtkMenuButton *button, gpointer user_data)
{
  OwSidebarRow *self = user_data;
  g_autoptr(GMenuModel) menu = build_menu (self);

  gtk_menu_button_set_menu_model (button, menu);
}

static void
on_right_click_cb (GtkGestureClick *gesture, int n_press, double x, double y, gpointer user_data)
{
  OwSidebarRow *self = user_data;

  if (self->item == NULL || ow_session_item_get_is_header (self->item))
    return;
  /* The same menu as the button's, opened from it. */
  gtk_menu_button_popup (self->menu_button);
}

static void
run_window_action (OwSidebarRow *self, const char *action)
{
  if (self->item == NULL || ow_session_item_get_is_header (self->item))
    return;
  gtk_widget_activate_action (GTK_WIDGET (self), action, "s", ow_session_item_get_id (self->item));
}

static void
action_rename (GtkWidget *widget, const char *name, GVariant *param)
{
  run_window_action (OW_SIDEBAR_ROW (widget), "win.rename-session");
}

static void
action_pin (GtkWidget *widget, const char *name, GVariant *param)
{
  run_window_action (OW_SIDEBAR_ROW (widget), "win.toggle-pin");
}

static void
action_archive (GtkWidget *widget, const char *name, GVariant *param)
{
  run_window_action (OW_SIDEBAR_ROW (widget), "win.toggle-archive");
}

static void
action_delete (GtkWidget *widget, const char *name, GVariant *param)
{
  run_window_action (OW_SIDEBAR_ROW (widget), "win.delete-session");
}

OwSessionItem *
ow_sidebar_row_get_item (OwSidebarRow *self)
{
  return self->item;
}

void
ow_sidebar_row_set_item (OwSidebarRow *self, OwSessionItem *item)
{
  if (!g_set_object (&self->item, item))
    return;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}

static void
ow_sidebar_row_dispose (GObject *object)
{
  OwSidebarRow *self = OW_SIDEBAR_ROW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_SIDEBAR_ROW);
  ow_widget_unparent_children (GTK_WIDGET (self));
  g_clear_object (&self->item);
  G_OBJECT_CLASS (ow_sidebar_row_parent_class)->dispose (object);
}

static void
ow_sidebar_row_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, OW_SIDEBAR_ROW (object)->item);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_sidebar_row_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_ITEM:
      ow_sidebar_row_set_item (OW_SIDEBAR_ROW (object), g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_sidebar_row_class_init (OwSidebarRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_sidebar_row_dispose;
  object_class->get_property = ow_sidebar_row_get_property;
  object_class->set_property = ow_sidebar_row_set_property;

  properties[PROP_ITEM] = g_param_spec_object ("item", NULL, NULL, OW_TYPE_SESSION_ITEM,
                                               G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-sidebar-row.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSidebarRow, box);
  gtk_widget_class_bind_template_child (widget_class, OwSidebarRow, menu_button);
  gtk_widget_class_bind_template_callback (widget_class, on_right_click_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owsidebarrow");

  gtk_widget_class_install_action (widget_class, "session.rename", NULL, action_rename);
  gtk_widget_class_install_action (widget_class, "session.pin", NULL, action_pin);
  gtk_widget_class_install_action (widget_class, "session.archive", NULL, action_archive);
  gtk_widget_class_install_action (widget_class, "session.delete", NULL, action_delete);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F2, 0, "session.rename", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0, "session.delete", NULL);
}

static void
ow_sidebar_row_init (OwSidebarRow *self)
{
  g_type_ensure (OW_TYPE_SESSION_ITEM);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_menu_button_set_create_popup_func (self->menu_button, on_menu_create_popup_cb, self, NULL);
}
