/* ow-question-card.c: the agent's question, with its options and free text
 * (see ow-ask-card.h). */
#define G_LOG_DOMAIN "ow-question-card"

#include "config-ui.h"
#include "ow-question-card.h"
#include "ow-ui-private.h"

#include <glib/gi18n-lib.h>

#include "ow-json.h"

struct _OwQuestionCard
{
  GtkWidget   parent_instance;

  /* Template widgets */
  GtkLabel   *header_label;
  GtkLabel   *question_label;
  GtkFlowBox *options_box;
  GtkWidget  *text_box;
  GtkEntry   *text_entry;
  GtkButton  *send_button;

  gboolean    multi;     /* several options may be chosen (check buttons) */
  GPtrArray  *checks;    /* GtkCheckButton*, when multi (borrowed) */
};

static void ask_card_iface_init (OwAskCardInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwQuestionCard, ow_question_card, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_ASK_CARD, ask_card_iface_init))

static void
answer_text (OwQuestionCard *self, const char *text)
{
  g_autoptr(JsonObject) obj = json_object_new ();

  json_object_set_string_member (obj, "answer", text);
  ow_ask_card_answer (OW_ASK_CARD (self), obj);
}

static void
on_option_clicked_cb (GtkButton *button, gpointer user_data)
{
  answer_text (user_data, g_object_get_data (G_OBJECT (button), "ow-option"));
}

/* Free text, or — with several options allowed — the ticked ones joined,
 * followed by the text when there is some. */
static void
on_send_clicked_cb (OwQuestionCard *self)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->text_entry));

  for (guint i = 0; self->multi && i < self->checks->len; i++)
    {
      GtkCheckButton *check = g_ptr_array_index (self->checks, i);
      if (gtk_check_button_get_active (check))
        g_string_append_printf (out, "%s%s", out->len > 0 ? ", " : "",
                                (const char *) g_object_get_data (G_OBJECT (check), "ow-option"));
    }
  if (text != NULL && *text != '\0')
    g_string_append_printf (out, "%s%s", out->len > 0 ? ". " : "", text);
  if (out->len == 0)
    {
      gtk_widget_grab_focus (GTK_WIDGET (self->text_entry));
      return;
    }
  answer_text (self, out->str);
}

static gboolean
choose (OwAskCard *card, const char *choice)
{
  OwQuestionCard *self = OW_QUESTION_CARD (card);

  if (!gtk_widget_is_sensitive (GTK_WIDGET (self)))
    return FALSE;
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->options_box)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *option = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child));
      if (g_strcmp0 (g_object_get_data (G_OBJECT (option), "ow-option"), choice) != 0)
        continue;
      if (GTK_IS_CHECK_BUTTON (option))
        {
          gtk_check_button_set_active (GTK_CHECK_BUTTON (option), TRUE);
          on_send_clicked_cb (self);
        }
      else
        g_signal_emit_by_name (option, "clicked");
      return TRUE;
    }
  if (!gtk_widget_get_visible (self->text_box))
    return FALSE;
  gtk_editable_set_text (GTK_EDITABLE (self->text_entry), choice);
  on_send_clicked_cb (self);
  return TRUE;
}

static void
ask_card_iface_init (OwAskCardInterface *iface)
{
  iface->choose = choose;
}

static void
ow_question_card_dispose (GObject *object)
{
  OwQuestionCard *self = OW_QUESTION_CARD (object);

  gtk_widget_dispose_template (GTK_WIDGET (object), OW_TYPE_QUESTION_CARD);
  ow_widget_unparent_children (GTK_WIDGET (object));
  g_clear_pointer (&self->checks, g_ptr_array_unref);
  G_OBJECT_CLASS (ow_question_card_parent_class)->dispose (object);
}

static void
ow_question_card_class_init (OwQuestionCardClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ow_question_card_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-question-card.ui");
  gtk_widget_class_bind_template_child (widget_class, OwQuestionCard, header_label);
  gtk_widget_class_bind_template_child (widget_class, OwQuestionCard, question_label);
  gtk_widget_class_bind_template_child (widget_class, OwQuestionCard, options_box);
  gtk_widget_class_bind_template_child (widget_class, OwQuestionCard, text_box);
  gtk_widget_class_bind_template_child (widget_class, OwQuestionCard, text_entry);
  gtk_widget_class_bind_template_child (widget_class, OwQuestionCard, send_button);
  gtk_widget_class_bind_template_callback (widget_class, on_send_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owaskcard");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
ow_question_card_init (OwQuestionCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->checks = g_ptr_array_new ();
}

GtkWidget *
ow_question_card_new (const OwInboxItem *item)
{
  OwQuestionCard *self = g_object_new (OW_TYPE_QUESTION_CARD, NULL);
  JsonObject *data = item->data;
  const char *question = ow_json_get_string (data, "question");
  const char *header = ow_json_get_string (data, "header");
  JsonArray *options = ow_json_get_array (data, "options");
  gboolean allow_text = ow_json_get_bool (data, "allow_text", TRUE);
  guint n_options = 0;

  ow_ask_card_bind_item (OW_ASK_CARD (self), item);
  self->multi = ow_json_get_bool (data, "multi", FALSE);
  if (question == NULL)
    question = item->title != NULL ? item->title : "";
  gtk_label_set_text (self->question_label, question);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, question, -1);
  if (header != NULL && *header != '\0')
    gtk_label_set_text (self->header_label, header);

  for (guint i = 0; options != NULL && i < json_array_get_length (options); i++)
    {
      const char *text = json_array_get_string_element (options, i);
      GtkWidget *option;

      if (text == NULL || *text == '\0')
        continue;
      if (self->multi)
        {
          option = gtk_check_button_new_with_label (text);
          g_ptr_array_add (self->checks, option);
        }
      else
        {
          option = gtk_button_new_with_label (text);
          gtk_label_set_wrap (GTK_LABEL (gtk_button_get_child (GTK_BUTTON (option))), TRUE);
          g_signal_connect (option, "clicked", G_CALLBACK (on_option_clicked_cb), self);
        }
      g_object_set_data_full (G_OBJECT (option), "ow-option", g_strdup (text), g_free);
      gtk_flow_box_append (self->options_box, option);
      n_options++;
    }
  gtk_widget_set_visible (GTK_WIDGET (self->options_box), n_options > 0);
  /* Several options need a button to send them even without free text. */
  gtk_widget_set_visible (self->text_box, allow_text || self->multi || n_options == 0);
  gtk_widget_set_visible (GTK_WIDGET (self->text_entry), allow_text || n_options == 0);
  return GTK_WIDGET (self);
}
