/* ow-outbound.c: the history as one particular model is shown it.
 *
 * A session outlives its model: a person switches from a model that reads
 * images to one that does not (deepseek-chat, say), and the history still
 * holds the image they sent earlier. Sending the image_url part would make
 * the new model's service refuse the whole request, so for a model without
 * vision each image becomes a short text placeholder and each PDF its
 * extracted text (poppler), as the original did; a model with vision gets
 * the history as it is. The history itself is never changed: a message
 * that needs a different form is copied, the rest are shared.
 *
 * A model switch leaves a model_switch notice in the history (the
 * transcript's line). Notices never go to a model as such, so its text is
 * put in front of the next user message, in brackets: the new model learns
 * that the earlier turns were another model's and why it cannot see the
 * earlier images, without a message of a role the wires do not have.
 */
#define G_LOG_DOMAIN "ow-agent"

#include "core/ow-outbound.h"

#include <poppler.h>
#include <string.h>

#include "core/ow-message.h"
#include "ow-json.h"

/* Enough of a PDF for a model to work with; a longer one is cut. */
#define PDF_MAX_PAGES 100
#define PDF_MAX_CHARS 200000

/**
 * ow_outbound_pdf_text:
 * @data_url: "data:application/pdf;base64,…"
 *
 * Returns: (transfer full) (nullable): the PDF's text, pages separated by
 *   form feeds, or %NULL when it cannot be read.
 */
char *
ow_outbound_pdf_text (const char *data_url)
{
  const char *comma = data_url != NULL ? strstr (data_url, ";base64,") : NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  PopplerDocument *doc;
  GString *text;
  guchar *raw;
  gsize len = 0;
  int pages;

  if (comma == NULL)
    return NULL;
  raw = g_base64_decode (comma + strlen (";base64,"), &len);
  bytes = g_bytes_new_take (raw, len);
  /* poppler-glib 22 has no autoptr support: references are dropped by hand. */
  doc = poppler_document_new_from_bytes (bytes, NULL, &error);
  if (doc == NULL)
    return NULL;
  text = g_string_new (NULL);
  pages = MIN (poppler_document_get_n_pages (doc), PDF_MAX_PAGES);
  for (int i = 0; i < pages && text->len < PDF_MAX_CHARS; i++)
    {
      PopplerPage *page = poppler_document_get_page (doc, i);
      g_autofree char *piece = page != NULL ? poppler_page_get_text (page) : NULL;

      if (i > 0)
        g_string_append_c (text, '\f');
      if (piece != NULL)
        g_string_append (text, piece);
      g_clear_object (&page);
    }
  if (poppler_document_get_n_pages (doc) > pages || text->len > PDF_MAX_CHARS)
    {
      g_string_truncate (text, MIN (text->len, PDF_MAX_CHARS));
      g_string_append (text, "\n[… the rest of the PDF is left out]");
    }
  g_object_unref (doc);
  return g_string_free (text, FALSE);
}

/* A part the model can read in place of an image or PDF part, or NULL to
 * keep @part as it is. */
static JsonObject *
readable_part (JsonObject *part)
{
  const char *type = ow_json_get_string (part, "type");

  if (g_strcmp0 (type, "image_url") == 0)
    return ow_message_json_text_part (OW_OUTBOUND_IMAGE_PLACEHOLDER);
  if (g_strcmp0 (type, "file") == 0)
    {
      JsonObject *file = ow_json_get_object (part, "file");
      const char *name = file != NULL ? ow_json_get_string (file, "filename") : NULL;
      const char *data = file != NULL ? ow_json_get_string (file, "file_data") : NULL;
      g_autofree char *extracted = NULL;
      g_autofree char *text = NULL;

      if (data == NULL || !g_str_has_prefix (data, "data:application/pdf"))
        return NULL;
      extracted = ow_outbound_pdf_text (data);
      if (extracted != NULL)
        text = g_strdup_printf ("[PDF %s, as text]\n%s", name != NULL ? name : "attachment", extracted);
      else
        text = g_strdup_printf ("[PDF %s — not readable by this model]", name != NULL ? name : "attachment");
      return ow_message_json_text_part (text);
    }
  return NULL;
}

/* @message with images and PDFs made readable, or NULL when it has none. */
static JsonObject *
without_media (JsonObject *message)
{
  JsonArray *parts = ow_json_get_array (message, "content");
  JsonObject *copy = NULL;
  JsonArray *out = NULL;

  for (guint i = 0; parts != NULL && i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *replacement = JSON_NODE_HOLDS_OBJECT (node) ? readable_part (json_node_get_object (node)) : NULL;

      if (replacement != NULL && out == NULL)
        {
          out = json_array_new ();
          for (guint j = 0; j < i; j++)
            json_array_add_element (out, ow_json_deep_copy (json_array_get_element (parts, j)));
        }
      if (replacement != NULL)
        json_array_add_object_element (out, replacement);
      else if (out != NULL)
        json_array_add_element (out, ow_json_deep_copy (node));
    }
  if (out == NULL)
    return NULL;
  copy = ow_json_object_deep_copy (message);
  json_object_set_array_member (copy, "content", out);
  return copy;
}

/* A copy of the user @message with "[@line]" in front of its content. */
static JsonObject *
with_line_first (JsonObject *message,
                 const char *line)
{
  JsonObject *copy = ow_json_object_deep_copy (message);
  JsonNode *content = json_object_get_member (copy, "content");
  g_autofree char *bracketed = g_strdup_printf ("[%s]", line);

  if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);
      JsonArray *out = json_array_new ();

      json_array_add_object_element (out, ow_message_json_text_part (bracketed));
      for (guint i = 0; i < json_array_get_length (parts); i++)
        json_array_add_element (out, ow_json_deep_copy (json_array_get_element (parts, i)));
      json_object_set_array_member (copy, "content", out);
    }
  else
    {
      const char *text = content != NULL && JSON_NODE_HOLDS_VALUE (content) ? json_node_get_string (content) : NULL;
      g_autofree char *joined = g_strconcat (bracketed, "\n\n", text != NULL ? text : "", NULL);
      json_object_set_string_member (copy, "content", joined);
    }
  return copy;
}

/**
 * ow_outbound_for_model:
 * @messages: the outbound history (after compaction), not changed
 * @vision: whether the model reads images and PDFs
 *
 * Returns: (transfer full): the history for this model.
 */
JsonArray *
ow_outbound_for_model (JsonArray *messages,
                       gboolean   vision)
{
  JsonArray *out = json_array_new ();
  g_autoptr(GString) pending = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *role = ow_json_get_string (message, "role");
      g_autoptr(JsonObject) readable = NULL;

      if (g_strcmp0 (role, "notice") == 0
          && g_strcmp0 (ow_json_get_string (message, "kind"), "model_switch") == 0)
        {
          const char *text = ow_json_get_string (message, "text");

          /* Only the last switch before a message matters to the model. */
          if (text != NULL)
            g_string_assign (pending, text);
          continue;
        }
      if (!vision && (g_strcmp0 (role, "user") == 0 || g_strcmp0 (role, "tool") == 0))
        readable = without_media (message);
      if (g_strcmp0 (role, "user") == 0 && pending->len > 0)
        {
          JsonObject *lined = with_line_first (readable != NULL ? readable : message, pending->str);

          g_clear_pointer (&readable, json_object_unref);
          readable = lined;
          g_string_truncate (pending, 0);
        }
      json_array_add_object_element (out, readable != NULL ? g_steal_pointer (&readable)
                                                            : json_object_ref (message));
    }
  return out;
}
