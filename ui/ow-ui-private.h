/* ow-ui-private.h: small helpers shared by the desktop app's widgets. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Unparents every child of @widget. Composite widgets with a layout
 * manager call it in dispose after gtk_widget_dispose_template(), which
 * leaves the template's unnamed top-level child in place. */
static inline void
ow_widget_unparent_children (GtkWidget *widget)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (widget)) != NULL)
    gtk_widget_unparent (child);
}

G_END_DECLS
