/* ow-sites-dialog.c: "Choose sites…" (see ow-sites-dialog.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-sites-dialog.h"
#include "ow-settings-io.h"

#include <glib/gi18n-lib.h>

#include "net/ow-address-guard.h"
#include "sandbox/ow-sandbox-catalogue.h"

struct _OwSitesDialog
{
  GtkWindow   parent_instance;

  /* template widgets */
  GtkBox     *catalogue_box;
  GtkListBox *own_list;
  GtkEntry   *site_entry;
  GtkLabel   *error_label;

  /* owned */
  GPtrArray  *checks;   /* GtkCheckButton*, one per catalogue site, in order (borrowed widgets) */
  GPtrArray  *own;      /* char*: one's own entries */
};

G_DEFINE_FINAL_TYPE (OwSitesDialog, ow_sites_dialog, GTK_TYPE_WINDOW)

enum { SIGNAL_SAVED, N_SIGNALS };
static guint signals[N_SIGNALS];

GStrv
ow_sites_merge (const char *const *ticked_ids, const char *const *own)
{
  g_autoptr(GStrvBuilder) out = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  gsize n;
  const OwSiteChoice *sites = ow_site_catalogue (&n);

  for (gsize i = 0; i < n; i++)
    {
      if (ticked_ids == NULL || !g_strv_contains (ticked_ids, sites[i].id))
        continue;
      for (guint h = 0; sites[i].hosts[h] != NULL; h++)
        if (g_hash_table_add (seen, (gpointer) sites[i].hosts[h]))
          g_strv_builder_add (out, sites[i].hosts[h]);
    }
  for (guint i = 0; own != NULL && own[i] != NULL; i++)
    if (g_hash_table_add (seen, (gpointer) own[i]))
      g_strv_builder_add (out, own[i]);
  return g_strv_builder_end (out);
}

static const char *
group_title (OwSiteGroup group)
{
  switch (group)
    {
    case OW_SITE_GROUP_CODE:
      return _("Code Hosting");
    case OW_SITE_GROUP_PACKAGES:
      return _("Package Registries");
    case OW_SITE_GROUP_SEARCH:
    default:
      return _("Search APIs");
    }
}

static void
show_error (OwSitesDialog *self, const char *message)
{
  gtk_label_set_label (self->error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

static void
refresh_own (OwSitesDialog *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->own_list))) != NULL)
    gtk_list_box_remove (self->own_list, child);
  for (guint i = 0; i < self->own->len; i++)
    {
      const char *entry = g_ptr_array_index (self->own, i);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
      GtkWidget *label = gtk_label_new (entry);
      GtkWidget *remove = gtk_button_new_from_icon_name ("list-remove-symbolic");
      g_autofree char *remove_label = g_strdup_printf (_("Remove %s"), entry);

      gtk_widget_set_hexpand (label, TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (remove, "flat");
      gtk_actionable_set_action_name (GTK_ACTIONABLE (remove), "sites.remove");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (remove), "s", entry);
      gtk_widget_set_tooltip_text (remove, remove_label);
      gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, remove_label, -1);
      gtk_box_append (GTK_BOX (row), label);
      gtk_box_append (GTK_BOX (row), remove);
      gtk_list_box_append (self->own_list, row);
    }
  if (self->own->len == 0)
    {
      GtkWidget *label = gtk_label_new (_("None"));
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_list_box_append (self->own_list, label);
    }
}

GStrv
ow_sites_dialog_dup_hosts (OwSitesDialog *self)
{
  g_autoptr(GStrvBuilder) ticked = g_strv_builder_new ();
  g_auto(GStrv) ids = NULL;
  gsize n;
  const OwSiteChoice *sites = ow_site_catalogue (&n);

  g_return_val_if_fail (OW_IS_SITES_DIALOG (self), NULL);

  for (gsize i = 0; i < n; i++)
    if (gtk_check_button_get_active (g_ptr_array_index (self->checks, i)))
      g_strv_builder_add (ticked, sites[i].id);
  ids = g_strv_builder_end (g_steal_pointer (&ticked));
  g_ptr_array_add (self->own, NULL);
  {
    GStrv out = ow_sites_merge ((const char *const *) ids, (const char *const *) self->own->pdata);
    g_ptr_array_remove_index (self->own, self->own->len - 1);
    return out;
  }
}

static void
add_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSitesDialog *self = OW_SITES_DIALOG (widget);
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->site_entry))));
  g_autofree char *host = NULL;
  g_autofree char *entry = NULL;
  g_autoptr(GError) error = NULL;
  guint16 port = 0;

  /* The engine's own parser: exact hosts only, no wildcards, no paths. */
  if (!ow_site_parse (text, FALSE, &host, &port, &error))
    {
      show_error (self, error->message);
      return;
    }
  entry = port != 0 ? ow_site_format (host, port) : g_strdup (host);
  for (guint i = 0; i < self->own->len; i++)
    if (g_str_equal (g_ptr_array_index (self->own, i), entry))
      {
        gtk_editable_set_text (GTK_EDITABLE (self->site_entry), "");
        return;
      }
  g_ptr_array_add (self->own, g_steal_pointer (&entry));
  gtk_editable_set_text (GTK_EDITABLE (self->site_entry), "");
  show_error (self, NULL);
  refresh_own (self);
}

static void
remove_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSitesDialog *self = OW_SITES_DIALOG (widget);
  const char *entry = g_variant_get_string (parameter, NULL);

  for (guint i = 0; i < self->own->len; i++)
    if (g_str_equal (g_ptr_array_index (self->own, i), entry))
      {
        g_ptr_array_remove_index (self->own, i);
        break;
      }
  refresh_own (self);
}

static void
save_activated (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  OwSitesDialog *self = OW_SITES_DIALOG (widget);
  g_auto(GStrv) hosts = ow_sites_dialog_dup_hosts (self);

  g_signal_emit (self, signals[SIGNAL_SAVED], 0, hosts);
  gtk_window_close (GTK_WINDOW (self));
}

static void
ow_sites_dialog_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), OW_TYPE_SITES_DIALOG);
  G_OBJECT_CLASS (ow_sites_dialog_parent_class)->dispose (object);
}

static void
ow_sites_dialog_finalize (GObject *object)
{
  OwSitesDialog *self = OW_SITES_DIALOG (object);

  g_ptr_array_unref (self->checks);
  g_ptr_array_unref (self->own);
  G_OBJECT_CLASS (ow_sites_dialog_parent_class)->finalize (object);
}

static void
ow_sites_dialog_class_init (OwSitesDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ow_sites_dialog_dispose;
  object_class->finalize = ow_sites_dialog_finalize;

  /**
   * OwSitesDialog::saved:
   * @hosts: (array zero-terminated=1): the list to keep
   */
  signals[SIGNAL_SAVED] = g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, G_TYPE_STRV);

  ow_settings_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/settings/ow-sites-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, OwSitesDialog, catalogue_box);
  gtk_widget_class_bind_template_child (widget_class, OwSitesDialog, own_list);
  gtk_widget_class_bind_template_child (widget_class, OwSitesDialog, site_entry);
  gtk_widget_class_bind_template_child (widget_class, OwSitesDialog, error_label);

  gtk_widget_class_install_action (widget_class, "sites.add", NULL, add_activated);
  gtk_widget_class_install_action (widget_class, "sites.remove", "s", remove_activated);
  gtk_widget_class_install_action (widget_class, "sites.save", NULL, save_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ow_sites_dialog_init (OwSitesDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->checks = g_ptr_array_new ();
  self->own = g_ptr_array_new_with_free_func (g_free);
}

OwSitesDialog *
ow_sites_dialog_new (GtkWindow *parent, const char *const *hosts)
{
  OwSitesDialog *self = g_object_new (OW_TYPE_SITES_DIALOG, "transient-for", parent, NULL);
  g_autoptr(GHashTable) covered = g_hash_table_new (g_str_hash, g_str_equal);
  gsize n;
  const OwSiteChoice *sites = ow_site_catalogue (&n);
  int group = -1;

  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *detail = g_strjoinv (", ", (char **) sites[i].hosts);
      GtkWidget *check = gtk_check_button_new_with_label (sites[i].label);
      GtkWidget *sub = gtk_label_new (detail);
      gboolean ticked = ow_site_choice_in_list (&sites[i], hosts);

      if ((int) sites[i].group != group)
        {
          GtkWidget *heading = gtk_label_new (group_title (sites[i].group));

          group = (int) sites[i].group;
          gtk_label_set_xalign (GTK_LABEL (heading), 0);
          gtk_widget_add_css_class (heading, "heading");
          gtk_widget_set_margin_top (heading, 8);
          gtk_box_append (self->catalogue_box, heading);
        }
      /* The hosts under the name, lined up with the check button's label. */
      gtk_label_set_xalign (GTK_LABEL (sub), 0);
      gtk_label_set_wrap (GTK_LABEL (sub), TRUE);
      gtk_widget_set_margin_start (sub, 28);
      gtk_widget_add_css_class (sub, "dim-label");
      gtk_widget_add_css_class (sub, "caption");
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), ticked);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_DESCRIBED_BY, sub, NULL, -1);
      gtk_widget_set_name (check, sites[i].id);
      gtk_box_append (self->catalogue_box, check);
      gtk_box_append (self->catalogue_box, sub);
      g_ptr_array_add (self->checks, check);
      if (ticked)
        for (guint h = 0; sites[i].hosts[h] != NULL; h++)
          g_hash_table_add (covered, (gpointer) sites[i].hosts[h]);
    }
  for (guint i = 0; hosts != NULL && hosts[i] != NULL; i++)
    if (!g_hash_table_contains (covered, hosts[i]))
      g_ptr_array_add (self->own, g_strdup (hosts[i]));
  refresh_own (self);
  return self;
}
