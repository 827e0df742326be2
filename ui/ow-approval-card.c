/* ow-approval-card.c: an approval, with the ladder of answers (see
 * ow-ask-card.h). */
#define G_LOG_DOMAIN "ow-approval-card"

#include "config-ui.h"
#include "ow-approval-card.h"
#include "ow-ui-private.h"

#include <glib/gi18n-lib.h>

#include "ow-format.h"
#include "ow-json.h"

struct _OwApprovalCard
{
  GtkWidget    parent_instance;

  /* Template widgets */
  GtkLabel    *title_label;
  GtkLabel    *risk_label;
  GtkLabel    *outside_label;
  GtkLabel    *command_label;
  GtkLabel    *detail_label;
  GtkButton   *copy_button;
  GtkWidget   *diff_scroller;
  GtkTextView *diff_view;
  GtkLabel    *reason_label;
  GtkLabel    *reviewer_label;
  GtkLabel    *safety_label;
  GtkLabel    *rule_label;
  GtkButton   *once_button;
  GtkButton   *session_button;
  GtkButton   *always_button;
  GtkButton   *readonly_button;
  GtkEntry    *deny_entry;
  GtkButton   *deny_button;

  /* state */
  char        *copy_text;   /* what Copy puts on the clipboard, or NULL */
};

static void ask_card_iface_init (OwAskCardInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwApprovalCard, ow_approval_card, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_ASK_CARD, ask_card_iface_init))

static void
answer (OwApprovalCard *self, const char *decision, const char *reason)
{
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_string_member (obj, "decision", decision);
  if (reason != NULL && *reason != '\0')
    json_object_set_string_member (obj, "reason", reason);
  ow_ask_card_answer (OW_ASK_CARD (self), obj);
}

static void
on_once_clicked_cb (OwApprovalCard *self)
{
  answer (self, "once", NULL);
}

static void
on_session_clicked_cb (OwApprovalCard *self)
{
  answer (self, "session", NULL);
}

static void
on_always_clicked_cb (OwApprovalCard *self)
{
  answer (self, "always", NULL);
}

static void
on_readonly_clicked_cb (OwApprovalCard *self)
{
  answer (self, "readonly_session", NULL);
}

static void
on_copy_clicked_cb (OwApprovalCard *self)
{
  if (self->copy_text != NULL)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), self->copy_text);
}

static void
on_deny_clicked_cb (OwApprovalCard *self)
{
  answer (self, "deny", gtk_editable_get_text (GTK_EDITABLE (self->deny_entry)));
}

static gboolean
choose (OwAskCard *card, const char *choice)
{
  OwApprovalCard *self = OW_APPROVAL_CARD (card);
  GtkButton *button = g_strcmp0 (choice, "once") == 0      ? self->once_button
                      : g_strcmp0 (choice, "session") == 0 ? self->session_button
                      : g_strcmp0 (choice, "always") == 0  ? self->always_button
                      : g_strcmp0 (choice, "readonly_session") == 0 ? self->readonly_button
                      : g_strcmp0 (choice, "deny") == 0    ? self->deny_button
                                                           : NULL;

  if (button == NULL || !gtk_widget_get_visible (GTK_WIDGET (button)) || !gtk_widget_is_sensitive (GTK_WIDGET (button)))
    return FALSE;
  g_signal_emit_by_name (button, "clicked");
  return TRUE;
}

static void
ask_card_iface_init (OwAskCardInterface *iface)
{
  iface->choose = choose;
}

static void
show_diff (OwApprovalCard *self, GPtrArray *lines)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->diff_view);
  GtkTextIter end;
  GtkTextTag *tags[4];

  tags[OW_DIFF_CONTEXT] = NULL;
  tags[OW_DIFF_ADDED] = gtk_text_buffer_create_tag (buffer, "added", "paragraph-background", "rgba(46,160,67,0.22)",
                                                    NULL);
  tags[OW_DIFF_REMOVED] = gtk_text_buffer_create_tag (buffer, "removed", "paragraph-background",
                                                      "rgba(218,54,51,0.22)", NULL);
  tags[OW_DIFF_HEADER] = gtk_text_buffer_create_tag (buffer, "header", "weight", PANGO_WEIGHT_BOLD, "foreground",
                                                     "#7f7f7f", NULL);
  for (guint i = 0; i < lines->len; i++)
    {
      OwDiffLine *line = g_ptr_array_index (lines, i);
      g_autofree char *text = g_strdup_printf ("%s%s%s", line->kind == OW_DIFF_ADDED     ? "+ "
                                                         : line->kind == OW_DIFF_REMOVED ? "- "
                                                         : line->kind == OW_DIFF_HEADER  ? ""
                                                                                         : "  ",
                                               line->text, i + 1 < lines->len ? "\n" : "");
      gtk_text_buffer_get_end_iter (buffer, &end);
      if (tags[line->kind] != NULL)
        gtk_text_buffer_insert_with_tags (buffer, &end, text, -1, tags[line->kind], NULL);
      else
        gtk_text_buffer_insert (buffer, &end, text, -1);
    }
  gtk_widget_set_visible (self->diff_scroller, TRUE);
}

static void
ow_approval_card_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), OW_TYPE_APPROVAL_CARD);
  ow_widget_unparent_children (GTK_WIDGET (object));
  G_OBJECT_CLASS (ow_approval_card_parent_class)->dispose (object);
}

static void
ow_approval_card_finalize (GObject *object)
{
  g_free (OW_APPROVAL_CARD (object)->copy_text);
  G_OBJECT_CLASS (ow_approval_card_parent_class)->finalize (object);
}

static void
ow_approval_card_class_init (OwApprovalCardClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ow_approval_card_dispose;
  G_OBJECT_CLASS (klass)->finalize = ow_approval_card_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-approval-card.ui");
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, title_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, risk_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, outside_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, command_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, detail_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, copy_button);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, diff_scroller);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, diff_view);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, reason_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, reviewer_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, safety_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, rule_label);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, once_button);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, session_button);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, always_button);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, readonly_button);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, deny_entry);
  gtk_widget_class_bind_template_child (widget_class, OwApprovalCard, deny_button);
  gtk_widget_class_bind_template_callback (widget_class, on_once_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_session_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_always_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_readonly_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_deny_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_copy_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owaskcard");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
ow_approval_card_init (OwApprovalCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ow_approval_card_new (const OwInboxItem *item, const char *workspace)
{
  OwApprovalCard *self = g_object_new (OW_TYPE_APPROVAL_CARD, NULL);
  JsonObject *data = item->data;
  const char *tool = ow_json_get_string (data, "tool");
  JsonObject *args = ow_json_get_object (data, "arguments");
  const char *risk = ow_json_get_string (data, "risk");
  const char *rule = ow_json_get_string (data, "suggested_rule");
  const char *reviewer = ow_json_get_string (data, "reviewer_reasoning");
  gboolean safety = ow_json_get_bool (data, "safety_check", FALSE);
  g_autofree char *title = ow_format_approval_title (tool, args, workspace, item->title);
  g_autofree char *subject = ow_format_approval_subject (tool, args);
  g_autoptr(GPtrArray) diff = ow_format_edit_diff (tool, args, workspace, 400);

  ow_ask_card_bind_item (OW_ASK_CARD (self), item);
  gtk_label_set_text (self->title_label, title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  /* The risk in words ("Run a command"), not the engine's class ("exec"). */
  gtk_label_set_text (self->risk_label, ow_format_risk_label (risk));
  gtk_widget_set_visible (GTK_WIDGET (self->risk_label), risk != NULL);

  /* What it will do, readably: the command, the diff, or the arguments. */
  if (diff != NULL)
    {
      show_diff (self, diff);
      gtk_widget_set_visible (GTK_WIDGET (self->command_label), FALSE);
    }
  else if (g_strcmp0 (tool, "run_shell") == 0 && ow_json_get_string (args, "command") != NULL)
    {
      const char *command = ow_json_get_string (args, "command");
      g_autofree char *outside = ow_format_command_outside (command, workspace);

      gtk_label_set_text (self->command_label, command);
      if (outside != NULL)
        {
          /* TRANSLATORS: %s is a path the command names */
          g_autofree char *text = g_strdup_printf (_("This command reaches outside the session's folder (%s)."),
                                                   outside);
          gtk_label_set_text (self->outside_label, text);
          gtk_widget_set_visible (GTK_WIDGET (self->outside_label), TRUE);
        }
    }
  else if (subject != NULL)
    {
      const char *url = ow_json_get_string (args, "url");

      gtk_label_set_text (self->command_label, subject);
      /* A page: its host on the line, the whole address under it. */
      if (g_strcmp0 (tool, "web_fetch") == 0 && url != NULL && g_strcmp0 (url, subject) != 0)
        {
          gtk_label_set_text (self->detail_label, url);
          gtk_widget_set_visible (GTK_WIDGET (self->detail_label), TRUE);
        }
    }
  else
    {
      g_autofree char *preview = ow_format_args_preview (args);
      g_autofree char *text = g_strdup_printf ("%s  %s", tool != NULL ? tool : "", preview);
      gtk_label_set_text (self->command_label, text);
    }

  /* Copy takes what the call carries whole: the new content, the
   * patch, the command, the address. */
  self->copy_text = ow_format_approval_copy_text (tool, args);
  if (self->copy_text != NULL && *self->copy_text != '\0')
    {
      const char *what = g_strcmp0 (tool, "apply_patch") == 0 ? _("Copy the patch")
                         : diff != NULL                       ? _("Copy the new text")
                                                              : _("Copy");

      gtk_widget_set_visible (GTK_WIDGET (self->copy_button), TRUE);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->copy_button), GTK_ACCESSIBLE_PROPERTY_LABEL, what, -1);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->copy_button), what);
    }

  {
    const char *description = ow_json_get_string (args, "description");
    /* The policy's plain "requires approval" is what the card itself
     * says; a reason worth reading (a safety check's) is shown. */
    const char *body = g_strcmp0 (item->body, "requires approval") != 0 ? item->body : NULL;
    g_autofree char *reason = NULL;

    if (description != NULL && body != NULL)
      reason = g_strdup_printf ("%s — %s", description, body);
    gtk_label_set_text (self->reason_label, reason != NULL ? reason : description != NULL ? description
                                                                      : body != NULL ? body : "");
    gtk_widget_set_visible (GTK_WIDGET (self->reason_label), description != NULL || body != NULL);
  }
  if (reviewer != NULL && *reviewer != '\0')
    {
      g_autofree char *text = g_strdup_printf (_("The reviewer was unsure: %s"), reviewer);
      gtk_label_set_text (self->reviewer_label, text);
      gtk_widget_set_visible (GTK_WIDGET (self->reviewer_label), TRUE);
    }

  /* The ladder. A safety check covers one call, so only "once" is offered;
   * "always" exists only when the engine named what it would save. */
  gtk_widget_set_visible (GTK_WIDGET (self->safety_label), safety);
  gtk_widget_set_visible (GTK_WIDGET (self->session_button), !safety);
  /* The engine says when the command is one the read-only grant covers. */
  gtk_widget_set_visible (GTK_WIDGET (self->readonly_button),
                          !safety && ow_json_get_bool (data, "readonly_ok", FALSE));
  if (rule != NULL && !safety)
    {
      g_autofree char *text = g_strdup_printf (_("“Always allow” saves a standing rule, “%s”: calls it matches "
                                                 "run without asking, in every session, until you revoke it in "
                                                 "Settings ▸ Approvals."), rule);
      gtk_label_set_text (self->rule_label, text);
      gtk_widget_set_visible (GTK_WIDGET (self->rule_label), TRUE);
      gtk_widget_set_visible (GTK_WIDGET (self->always_button), TRUE);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->always_button), text);
    }
  return GTK_WIDGET (self);
}
