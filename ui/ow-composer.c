/* ow-composer.c: where a person writes to the session (see ow-composer.h). */
#define G_LOG_DOMAIN "ow-composer"

#include "config-ui.h"
#include "ow-composer.h"
#include "ow-ui-private.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <poppler.h>

#include "core/ow-coworker.h"
#include "core/ow-model-choices.h"
#include "ow-format.h"

typedef struct {
  char       *path;
  JsonObject *json;   /* {kind, name, mime, data_url | text} */
} Attachment;

struct _OwComposer
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkWidget      *setup_row;
  GtkDropDown    *coworker_dropdown;
  GtkButton      *folder_button;
  GtkLabel       *folder_label;
  GtkWidget      *folder_clear_button;
  GtkFlowBox     *attachments_box;
  GtkTextView    *text_view;
  GtkWidget      *placeholder_label;
  GtkLabel       *notice_label;
  GtkWidget      *mode_warning_label;
  GtkDropDown    *mode_dropdown;
  GtkDropDown    *model_dropdown;
  GtkWidget      *send_button;

  /* Owned */
  GPtrArray      *attachments;    /* Attachment* */
  GPtrArray      *model_ids;      /* char*, parallel to the model dropdown */
  GtkNativeDialog *chooser;
  GCancellable   *cancellable;
  GHashTable     *loading;        /* char* path set: files being read */

  gboolean        draft;
  gboolean        running;
  gboolean        enabled;
  char           *mode;
  char           *model;
  char           *coworker;
  char           *workspace;
  gboolean        syncing;        /* setting a dropdown from a property */
};

enum {
  PROP_0,
  PROP_DRAFT,
  PROP_RUNNING,
  PROP_ENABLED,
  PROP_MODE,
  PROP_MODEL,
  PROP_COWORKER,
  PROP_WORKSPACE,
  N_PROPS
};

enum {
  SIGNAL_SEND,
  SIGNAL_STOP,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OwComposer, ow_composer, GTK_TYPE_WIDGET)

static void
attachment_free (Attachment *a)
{
  g_free (a->path);
  g_clear_pointer (&a->json, json_object_unref);
  g_free (a);
}

static void
update_actions (OwComposer *self)
{
  g_autofree char *text = ow_composer_dup_text (self);
  gboolean has_text = text != NULL && *g_strstrip (text) != '\0';

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "composer.send",
                                 self->enabled && !self->running && g_hash_table_size (self->loading) == 0 && has_text);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "composer.stop", self->running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "composer.attach",
                                 self->enabled && self->attachments->len < OW_ATTACHMENTS_MAX);
  gtk_widget_set_visible (self->send_button, !self->running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->model_dropdown),
                            self->enabled && !self->running && self->model_ids->len > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->mode_dropdown), self->enabled);
  gtk_text_view_set_editable (self->text_view, self->enabled);
}

void
ow_composer_set_notice (OwComposer *self, const char *notice)
{
  gtk_label_set_text (self->notice_label, notice != NULL ? notice : "");
  gtk_widget_set_visible (GTK_WIDGET (self->notice_label), notice != NULL && *notice != '\0');
}

/* ---- Text ---------------------------------------------------------------- */

char *
ow_composer_dup_text (OwComposer *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

void
ow_composer_set_text (OwComposer *self, const char *text)
{
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_view), text != NULL ? text : "", -1);
}

static void
on_buffer_changed_cb (GtkTextBuffer *buffer, gpointer user_data)
{
  OwComposer *self = user_data;

  gtk_widget_set_visible (self->placeholder_label, gtk_text_buffer_get_char_count (buffer) == 0);
  update_actions (self);
}

/* Return sends (Ctrl+Return too, as before); Shift+Return is left to the
 * text view, which adds a line. Return never adds a stray line when there
 * is nothing to send. */
static gboolean
on_text_key_pressed_cb (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
                        gpointer user_data)
{
  OwComposer *self = user_data;

  if (keyval != GDK_KEY_Return && keyval != GDK_KEY_KP_Enter && keyval != GDK_KEY_ISO_Enter)
    return GDK_EVENT_PROPAGATE;
  if (state & GDK_SHIFT_MASK)
    return GDK_EVENT_PROPAGATE;
  gtk_widget_activate_action (GTK_WIDGET (self), "composer.send", NULL);
  return GDK_EVENT_STOP;
}

/* ---- Attachments --------------------------------------------------------- */

JsonArray *
ow_composer_dup_attachments (OwComposer *self)
{
  JsonArray *out;

  if (self->attachments->len == 0)
    return NULL;
  out = json_array_new ();
  for (guint i = 0; i < self->attachments->len; i++)
    json_array_add_object_element (out, json_object_ref (((Attachment *) g_ptr_array_index (self->attachments, i))->json));
  return out;
}

guint
ow_composer_get_n_attachments (OwComposer *self)
{
  return self->attachments->len;
}

gboolean
ow_composer_get_busy (OwComposer *self)
{
  return g_hash_table_size (self->loading) > 0;
}

static void rebuild_chips (OwComposer *self);

static void
on_chip_remove_clicked_cb (GtkButton *button, gpointer user_data)
{
  OwComposer *self = user_data;
  const char *path = g_object_get_data (G_OBJECT (button), "ow-path");

  for (guint i = 0; i < self->attachments->len; i++)
    if (g_strcmp0 (((Attachment *) g_ptr_array_index (self->attachments, i))->path, path) == 0)
      {
        g_ptr_array_remove_index (self->attachments, i);
        break;
      }
  rebuild_chips (self);
  update_actions (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

static void
rebuild_chips (OwComposer *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->attachments_box))) != NULL)
    gtk_flow_box_remove (self->attachments_box, child);
  for (guint i = 0; i < self->attachments->len; i++)
    {
      Attachment *a = g_ptr_array_index (self->attachments, i);
      const char *name = json_object_get_string_member (a->json, "name");
      const char *kind = json_object_get_string_member (a->json, "kind");
      GtkWidget *chip = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      GtkWidget *remove = gtk_button_new_from_icon_name ("window-close-symbolic");
      g_autofree char *remove_label = g_strdup_printf (_("Remove %s"), name);

      gtk_widget_add_css_class (chip, "attachment-chip");
      gtk_box_append (GTK_BOX (chip), gtk_image_new_from_icon_name (g_str_equal (kind, "image") ? "image-x-generic-symbolic"
                                                                   : g_str_equal (kind, "pdf") ? "x-office-document-symbolic"
                                                                                               : "text-x-generic-symbolic"));
      gtk_box_append (GTK_BOX (chip), gtk_label_new (name));
      gtk_widget_add_css_class (remove, "flat");
      gtk_widget_add_css_class (remove, "circular");
      gtk_widget_set_tooltip_text (remove, remove_label);
      gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, remove_label, -1);
      g_object_set_data_full (G_OBJECT (remove), "ow-path", g_strdup (a->path), g_free);
      g_signal_connect (remove, "clicked", G_CALLBACK (on_chip_remove_clicked_cb), self);
      gtk_box_append (GTK_BOX (chip), remove);
      gtk_flow_box_append (self->attachments_box, chip);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->attachments_box), self->attachments->len > 0);
}

typedef struct {
  OwComposer *self;
  char       *path;
  char       *name;
  char       *mime;
} Load;

static void
load_free (Load *load)
{
  g_object_unref (load->self);
  g_free (load->path);
  g_free (load->name);
  g_free (load->mime);
  g_free (load);
}

static char *
data_url (const char *mime, GBytes *bytes)
{
  gsize len = 0;
  const guchar *data = g_bytes_get_data (bytes, &len);
  g_autofree char *b64 = g_base64_encode (data, len);

  return g_strdup_printf ("data:%s;base64,%s", mime, b64);
}

/* Checks a loaded file against the limits and makes its attachment, or
 * says why it cannot be attached. */
static JsonObject *
make_attachment (Load *load, GBytes *bytes, char **problem)
{
  JsonObject *json = json_object_new ();
  gsize len = g_bytes_get_size (bytes);

  json_object_set_string_member (json, "name", load->name);
  json_object_set_string_member (json, "mime", load->mime);
  if (g_str_has_prefix (load->mime, "image/"))
    {
      g_autofree char *url = NULL;
      if (len / 3 * 4 + 64 > OW_ATTACH_IMAGE_URL_MAX)
        {
          *problem = g_strdup_printf (_("%s is too large: images can be at most about 9 MB."), load->name);
          return json_object_unref (json), NULL;
        }
      url = data_url (load->mime, bytes);
      json_object_set_string_member (json, "kind", "image");
      json_object_set_string_member (json, "data_url", url);
      return json;
    }
  if (g_str_equal (load->mime, "application/pdf"))
    {
      PopplerDocument *doc;
      g_autofree char *url = NULL;
      int pages;

      if (len > OW_ATTACH_PDF_BYTES)
        {
          *problem = g_strdup_printf (_("%s is larger than 10 MB, the most a PDF can be."), load->name);
          return json_object_unref (json), NULL;
        }
      doc = poppler_document_new_from_bytes (bytes, NULL, NULL);
      if (doc == NULL)
        {
          *problem = g_strdup_printf (_("%s is not a PDF that can be read."), load->name);
          return json_object_unref (json), NULL;
        }
      pages = poppler_document_get_n_pages (doc);
      g_object_unref (doc);
      if (pages > OW_ATTACH_PDF_PAGES)
        {
          *problem = g_strdup_printf (_("%s has %d pages; at most %d can be attached."), load->name, pages,
                                      OW_ATTACH_PDF_PAGES);
          return json_object_unref (json), NULL;
        }
      url = data_url (load->mime, bytes);
      if (strlen (url) > OW_ATTACH_PDF_URL_MAX)
        {
          *problem = g_strdup_printf (_("%s is too large to attach."), load->name);
          return json_object_unref (json), NULL;
        }
      json_object_set_string_member (json, "kind", "pdf");
      json_object_set_string_member (json, "data_url", url);
      return json;
    }
  {
    const char *data = g_bytes_get_data (bytes, NULL);
    g_autofree char *text = NULL;

    if (len > 4 * OW_ATTACH_TEXT_MAX || memchr (data, '\0', len) != NULL || !g_utf8_validate_len (data, len, NULL))
      {
        *problem = g_strdup_printf (_("%s is neither an image, a PDF nor a text file."), load->name);
        return json_object_unref (json), NULL;
      }
    text = g_strndup (data, len);
    if (g_utf8_strlen (text, -1) > OW_ATTACH_TEXT_MAX)
      {
        *problem = g_strdup_printf (_("%s is longer than 200,000 characters."), load->name);
        return json_object_unref (json), NULL;
      }
    json_object_set_string_member (json, "kind", "text");
    json_object_set_string_member (json, "text", text);
    json_object_set_string_member (json, "mime", "text/plain");
    return json;
  }
}

static void
on_file_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Load *load = user_data;
  OwComposer *self = load->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_file_load_bytes_finish (G_FILE (source), result, NULL, &error);
  g_autofree char *problem = NULL;
  JsonObject *json;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      load_free (load);
      return;
    }
  g_hash_table_remove (self->loading, load->path);
  if (bytes == NULL)
    problem = g_strdup_printf (_("%s could not be read: %s"), load->name, error->message);
  else if (self->attachments->len >= OW_ATTACHMENTS_MAX)
    problem = g_strdup_printf (_("At most %d files fit in one message."), OW_ATTACHMENTS_MAX);
  else if ((json = make_attachment (load, bytes, &problem)) != NULL)
    {
      Attachment *a = g_new0 (Attachment, 1);
      a->path = g_strdup (load->path);
      a->json = json;
      g_ptr_array_add (self->attachments, a);
      rebuild_chips (self);
    }
  ow_composer_set_notice (self, problem);
  update_actions (self);
  load_free (load);
}

void
ow_composer_add_file (OwComposer *self, GFile *file)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autofree char *path = g_file_get_path (file);
  Load *load;
  const char *type;

  g_return_if_fail (OW_IS_COMPOSER (self));
  if (path == NULL)
    return;
  for (guint i = 0; i < self->attachments->len; i++)
    if (g_strcmp0 (((Attachment *) g_ptr_array_index (self->attachments, i))->path, path) == 0)
      return;  /* already attached */
  if (g_hash_table_contains (self->loading, path))
    return;  /* already on its way */
  if (self->attachments->len + g_hash_table_size (self->loading) >= OW_ATTACHMENTS_MAX)
    {
      g_autofree char *notice = g_strdup_printf (_("At most %d files fit in one message."), OW_ATTACHMENTS_MAX);
      ow_composer_set_notice (self, notice);
      return;
    }
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_CONTENT_TYPE "," G_FILE_ATTRIBUTE_STANDARD_DISPLAY_NAME
                                  "," G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info == NULL || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *notice = g_strdup_printf (_("%s is not a file that can be attached."), base);
      ow_composer_set_notice (self, notice);
      return;
    }
  if (g_file_info_get_size (info) > 16 * 1024 * 1024)
    {
      g_autofree char *notice = g_strdup_printf (_("%s is too large to attach."), g_file_info_get_display_name (info));
      ow_composer_set_notice (self, notice);
      return;
    }
  type = g_file_info_get_content_type (info);
  load = g_new0 (Load, 1);
  load->self = g_object_ref (self);
  load->path = g_strdup (path);
  load->name = g_strdup (g_file_info_get_display_name (info));
  {
    g_autofree char *mime = type != NULL ? g_content_type_get_mime_type (type) : NULL;
    load->mime = g_strdup (mime != NULL ? mime : "application/octet-stream");
  }
  g_hash_table_add (self->loading, g_strdup (path));
  update_actions (self);
  g_file_load_bytes_async (file, self->cancellable, on_file_loaded_cb, load);
}

static void
on_attach_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  OwComposer *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);
          ow_composer_add_file (self, file);
        }
    }
  g_clear_object (&self->chooser);
}

static void
action_attach (GtkWidget *widget, const char *name, GVariant *param)
{
  OwComposer *self = OW_COMPOSER (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkFileChooserNative *chooser;

  if (self->chooser != NULL)
    return;
  chooser = gtk_file_chooser_native_new (_("Attach files"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Attach"), _("_Cancel"));
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  self->chooser = GTK_NATIVE_DIALOG (chooser);
  gtk_native_dialog_set_modal (self->chooser, TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (on_attach_response_cb), self);
  gtk_native_dialog_show (self->chooser);
}

static gboolean
on_drop_cb (GtkDropTarget *target, const GValue *value, double x, double y, gpointer user_data)
{
  OwComposer *self = user_data;
  GSList *files = g_value_get_boxed (value);

  if (!self->enabled)
    return FALSE;
  for (GSList *l = files; l != NULL; l = l->next)
    ow_composer_add_file (self, l->data);
  return TRUE;
}

/* ---- Folder -------------------------------------------------------------- */

static void
update_folder (OwComposer *self)
{
  g_autofree char *base = self->workspace != NULL ? g_path_get_basename (self->workspace) : NULL;

  gtk_label_set_text (self->folder_label, base != NULL ? base : _("Temporary folder"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->folder_button),
                               self->workspace != NULL ? self->workspace : _("Choose the folder the session works in"));
  gtk_widget_set_visible (self->folder_clear_button, self->workspace != NULL);
}

static void
on_folder_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  OwComposer *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      if (path != NULL)
        ow_composer_set_workspace (self, path);
    }
  g_clear_object (&self->chooser);
}

static void
on_folder_clicked_cb (OwComposer *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (self->chooser != NULL)
    return;
  self->chooser = GTK_NATIVE_DIALOG (gtk_file_chooser_native_new (_("Choose the session's folder"),
                                                                  GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                                  GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Choose"),
                                                                  _("_Cancel")));
  gtk_native_dialog_set_modal (self->chooser, TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_folder_response_cb), self);
  gtk_native_dialog_show (self->chooser);
}

static void
on_folder_clear_clicked_cb (OwComposer *self)
{
  ow_composer_set_workspace (self, NULL);
  gtk_widget_grab_focus (GTK_WIDGET (self->folder_button));
}

/* ---- Dropdowns ----------------------------------------------------------- */

static void
set_string_prop (OwComposer *self, char **field, const char *value, guint prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
on_mode_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, gpointer user_data)
{
  OwComposer *self = user_data;
  guint i = gtk_drop_down_get_selected (dropdown);
  const char *const *modes = ow_format_modes ();

  if (self->syncing || i >= g_strv_length ((char **) modes))
    return;
  set_string_prop (self, &self->mode, modes[i], PROP_MODE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (dropdown), ow_format_mode_help (modes[i]));
  gtk_widget_set_visible (self->mode_warning_label, g_strcmp0 (modes[i], "bypass-approvals") == 0);
}

static void
on_coworker_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, gpointer user_data)
{
  OwComposer *self = user_data;
  guint i = gtk_drop_down_get_selected (dropdown);
  const char *const *ids = ow_coworker_ids ();

  if (self->syncing || i >= g_strv_length ((char **) ids))
    return;
  set_string_prop (self, &self->coworker, ids[i], PROP_COWORKER);
}

static void
on_model_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, gpointer user_data)
{
  OwComposer *self = user_data;
  guint i = gtk_drop_down_get_selected (dropdown);

  if (self->syncing || i >= self->model_ids->len)
    return;
  set_string_prop (self, &self->model, g_ptr_array_index (self->model_ids, i), PROP_MODEL);
}

static void
select_mode (OwComposer *self)
{
  const char *const *modes = ow_format_modes ();

  self->syncing = TRUE;
  for (guint i = 0; modes[i] != NULL; i++)
    if (g_strcmp0 (modes[i], self->mode) == 0)
      {
        gtk_drop_down_set_selected (self->mode_dropdown, i);
        gtk_widget_set_tooltip_text (GTK_WIDGET (self->mode_dropdown), ow_format_mode_help (modes[i]));
      }
  /* Bypassing approvals is said where it is chosen, not only in a tooltip. */
  gtk_widget_set_visible (self->mode_warning_label, g_strcmp0 (self->mode, "bypass-approvals") == 0);
  self->syncing = FALSE;
}

static void
select_model (OwComposer *self)
{
  self->syncing = TRUE;
  for (guint i = 0; i < self->model_ids->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->model_ids, i), self->model) == 0)
      gtk_drop_down_set_selected (self->model_dropdown, i);
  self->syncing = FALSE;
}

void
ow_composer_set_models (OwComposer *self, GPtrArray *choices)
{
  g_autoptr(GtkStringList) labels = gtk_string_list_new (NULL);
  gboolean known = FALSE;

  g_ptr_array_set_size (self->model_ids, 0);
  for (guint i = 0; choices != NULL && i < choices->len; i++)
    {
      OwModelChoice *c = g_ptr_array_index (choices, i);
      gtk_string_list_append (labels, c->label);
      g_ptr_array_add (self->model_ids, g_strdup (c->id));
      known |= g_strcmp0 (c->id, self->model) == 0;
    }
  /* A session's model that is not (or no longer) configured stays visible:
   * the person sees what the session uses and can pick another. */
  if (!known && self->model != NULL)
    {
      g_autofree char *label = ow_format_model_label (self->model);
      gtk_string_list_append (labels, label);
      g_ptr_array_add (self->model_ids, g_strdup (self->model));
    }
  if (self->model_ids->len == 0)
    gtk_string_list_append (labels, _("No model connected"));
  self->syncing = TRUE;
  gtk_drop_down_set_model (self->model_dropdown, G_LIST_MODEL (labels));
  self->syncing = FALSE;
  if (self->model == NULL && self->model_ids->len > 0)
    set_string_prop (self, &self->model, g_ptr_array_index (self->model_ids, 0), PROP_MODEL);
  select_model (self);
  update_actions (self);
}

/* ---- Actions ------------------------------------------------------------- */

static void
action_send (GtkWidget *widget, const char *name, GVariant *param)
{
  g_signal_emit (widget, signals[SIGNAL_SEND], 0);
}

static void
action_stop (GtkWidget *widget, const char *name, GVariant *param)
{
  g_signal_emit (widget, signals[SIGNAL_STOP], 0);
}

void
ow_composer_clear (OwComposer *self)
{
  ow_composer_set_text (self, "");
  g_ptr_array_set_size (self->attachments, 0);
  rebuild_chips (self);
  ow_composer_set_notice (self, NULL);
  update_actions (self);
}

/* ---- Properties ---------------------------------------------------------- */

gboolean ow_composer_get_draft (OwComposer *self) { return self->draft; }
gboolean ow_composer_get_running (OwComposer *self) { return self->running; }
gboolean ow_composer_get_enabled (OwComposer *self) { return self->enabled; }
const char *ow_composer_get_mode (OwComposer *self) { return self->mode; }
const char *ow_composer_get_model (OwComposer *self) { return self->model; }
const char *ow_composer_get_coworker (OwComposer *self) { return self->coworker; }
const char *ow_composer_get_workspace (OwComposer *self) { return self->workspace; }

static void
set_bool_prop (OwComposer *self, gboolean *field, gboolean value, guint prop)
{
  value = !!value;
  if (*field == value)
    return;
  *field = value;
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

void ow_composer_set_draft (OwComposer *self, gboolean v) { set_bool_prop (self, &self->draft, v, PROP_DRAFT); }
void ow_composer_set_running (OwComposer *self, gboolean v) { set_bool_prop (self, &self->running, v, PROP_RUNNING); }
void ow_composer_set_enabled (OwComposer *self, gboolean v) { set_bool_prop (self, &self->enabled, v, PROP_ENABLED); }

void
ow_composer_set_mode (OwComposer *self, const char *mode)
{
  set_string_prop (self, &self->mode, mode, PROP_MODE);
  select_mode (self);
}

void
ow_composer_set_model (OwComposer *self, const char *model)
{
  set_string_prop (self, &self->model, model, PROP_MODEL);
  select_model (self);
}

void
ow_composer_set_coworker (OwComposer *self, const char *coworker)
{
  const char *const *ids = ow_coworker_ids ();

  set_string_prop (self, &self->coworker, coworker != NULL ? coworker : "cowork", PROP_COWORKER);
  self->syncing = TRUE;
  for (guint i = 0; ids[i] != NULL; i++)
    if (g_strcmp0 (ids[i], self->coworker) == 0)
      gtk_drop_down_set_selected (self->coworker_dropdown, i);
  self->syncing = FALSE;
}

void
ow_composer_set_workspace (OwComposer *self, const char *workspace)
{
  set_string_prop (self, &self->workspace, workspace, PROP_WORKSPACE);
  update_folder (self);
}

static void
ow_composer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OwComposer *self = OW_COMPOSER (object);

  switch (prop_id)
    {
    case PROP_DRAFT: g_value_set_boolean (value, self->draft); break;
    case PROP_RUNNING: g_value_set_boolean (value, self->running); break;
    case PROP_ENABLED: g_value_set_boolean (value, self->enabled); break;
    case PROP_MODE: g_value_set_string (value, self->mode); break;
    case PROP_MODEL: g_value_set_string (value, self->model); break;
    case PROP_COWORKER: g_value_set_string (value, self->coworker); break;
    case PROP_WORKSPACE: g_value_set_string (value, self->workspace); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_composer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  OwComposer *self = OW_COMPOSER (object);

  switch (prop_id)
    {
    case PROP_DRAFT: ow_composer_set_draft (self, g_value_get_boolean (value)); break;
    case PROP_RUNNING: ow_composer_set_running (self, g_value_get_boolean (value)); break;
    case PROP_ENABLED: ow_composer_set_enabled (self, g_value_get_boolean (value)); break;
    case PROP_MODE: ow_composer_set_mode (self, g_value_get_string (value)); break;
    case PROP_MODEL: ow_composer_set_model (self, g_value_get_string (value)); break;
    case PROP_COWORKER: ow_composer_set_coworker (self, g_value_get_string (value)); break;
    case PROP_WORKSPACE: ow_composer_set_workspace (self, g_value_get_string (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ow_composer_dispose (GObject *object)
{
  OwComposer *self = OW_COMPOSER (object);

  g_cancellable_cancel (self->cancellable);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (self->chooser);
  g_clear_object (&self->chooser);
  gtk_widget_dispose_template (GTK_WIDGET (self), OW_TYPE_COMPOSER);
  ow_widget_unparent_children (GTK_WIDGET (self));
  G_OBJECT_CLASS (ow_composer_parent_class)->dispose (object);
}

static void
ow_composer_finalize (GObject *object)
{
  OwComposer *self = OW_COMPOSER (object);

  g_ptr_array_unref (self->attachments);
  g_hash_table_unref (self->loading);
  g_ptr_array_unref (self->model_ids);
  g_clear_object (&self->cancellable);
  g_free (self->mode);
  g_free (self->model);
  g_free (self->coworker);
  g_free (self->workspace);
  G_OBJECT_CLASS (ow_composer_parent_class)->finalize (object);
}

static void
ow_composer_class_init (OwComposerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = ow_composer_dispose;
  object_class->finalize = ow_composer_finalize;
  object_class->get_property = ow_composer_get_property;
  object_class->set_property = ow_composer_set_property;

  properties[PROP_DRAFT] = g_param_spec_boolean ("draft", NULL, NULL, FALSE, rw);
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE, rw);
  properties[PROP_ENABLED] = g_param_spec_boolean ("enabled", NULL, NULL, FALSE, rw);
  properties[PROP_MODE] = g_param_spec_string ("mode", NULL, NULL, NULL, rw);
  properties[PROP_MODEL] = g_param_spec_string ("model", NULL, NULL, NULL, rw);
  properties[PROP_COWORKER] = g_param_spec_string ("coworker", NULL, NULL, NULL, rw);
  properties[PROP_WORKSPACE] = g_param_spec_string ("workspace", NULL, NULL, NULL, rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_SEND] = g_signal_new ("send", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);
  signals[SIGNAL_STOP] = g_signal_new ("stop", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/com/openworker/ui/ow-composer.ui");
  gtk_widget_class_bind_template_child (widget_class, OwComposer, setup_row);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, coworker_dropdown);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, folder_button);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, folder_label);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, folder_clear_button);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, attachments_box);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, text_view);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, placeholder_label);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, notice_label);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, mode_warning_label);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, mode_dropdown);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, model_dropdown);
  gtk_widget_class_bind_template_child (widget_class, OwComposer, send_button);
  gtk_widget_class_bind_template_callback (widget_class, on_folder_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_folder_clear_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "owcomposer");

  gtk_widget_class_install_action (widget_class, "composer.send", NULL, action_send);
  gtk_widget_class_install_action (widget_class, "composer.stop", NULL, action_stop);
  gtk_widget_class_install_action (widget_class, "composer.attach", NULL, action_attach);
}

static void
ow_composer_init (OwComposer *self)
{
  g_autoptr(GtkStringList) modes = gtk_string_list_new (NULL);
  g_autoptr(GtkStringList) coworkers = gtk_string_list_new (NULL);
  const char *const *mode_ids = ow_format_modes ();
  const char *const *coworker_ids = ow_coworker_ids ();
  GtkEventController *shortcuts;
  GtkEventController *keys;
  GtkDropTarget *drop;

  self->loading = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_widget_init_template (GTK_WIDGET (self));
  self->attachments = g_ptr_array_new_with_free_func ((GDestroyNotify) attachment_free);
  self->model_ids = g_ptr_array_new_with_free_func (g_free);
  self->cancellable = g_cancellable_new ();
  self->mode = g_strdup ("ask");
  self->coworker = g_strdup ("cowork");

  for (guint i = 0; mode_ids[i] != NULL; i++)
    gtk_string_list_append (modes, ow_format_mode_label (mode_ids[i]));
  gtk_drop_down_set_model (self->mode_dropdown, G_LIST_MODEL (modes));
  for (guint i = 0; coworker_ids[i] != NULL; i++)
    gtk_string_list_append (coworkers, ow_format_coworker_label (coworker_ids[i]));
  gtk_drop_down_set_model (self->coworker_dropdown, G_LIST_MODEL (coworkers));
  select_mode (self);
  g_signal_connect (self->mode_dropdown, "notify::selected", G_CALLBACK (on_mode_selected_cb), self);
  g_signal_connect (self->coworker_dropdown, "notify::selected", G_CALLBACK (on_coworker_selected_cb), self);
  g_signal_connect (self->model_dropdown, "notify::selected", G_CALLBACK (on_model_selected_cb), self);
  g_signal_connect (gtk_text_view_get_buffer (self->text_view), "changed", G_CALLBACK (on_buffer_changed_cb), self);
  ow_composer_set_models (self, NULL);
  update_folder (self);

  /* Return in the text, before the text view sees it. */
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_text_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->text_view), keys);

  /* Esc stops a running turn, wherever the focus is in the composer. */
  shortcuts = gtk_shortcut_controller_new ();
  gtk_event_controller_set_propagation_phase (shortcuts, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("Escape"),
                                                          gtk_named_action_new ("composer.stop")));
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  update_actions (self);
}

GtkWidget *
ow_composer_new (void)
{
  return g_object_new (OW_TYPE_COMPOSER, NULL);
}
