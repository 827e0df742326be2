/* ow-composer.h: where a person writes to the session.
 *
 * A multi-line entry with a placeholder (Enter sends, Shift+Enter adds a
 * line, Esc stops a running turn),
 * attachments by button or drag and drop with the original's limits
 * (at most 8; images and PDFs as data URLs, PDFs at most 20 pages and
 * 10 MB; text files up to 200,000 characters), the approval mode chip (ask,
 * auto-approve, bypass approvals with a warning, plan, discuss — never the
 * dangerous mode), the model
 * picker (configured models only) and, while the session is a draft, its
 * coworker and folder. It holds what is being written; the session view
 * decides what happens with it.
 *
 * Properties: "draft", "running", "enabled" (a model can run), "mode",
 * "model", "coworker", "workspace" (NULL = a temporary folder).
 * Signals: ::send (), ::stop ().
 */
#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define OW_TYPE_COMPOSER (ow_composer_get_type ())
G_DECLARE_FINAL_TYPE (OwComposer, ow_composer, OW, COMPOSER, GtkWidget)

/* The limits the original checks at attach time. */
#define OW_ATTACHMENTS_MAX      8
#define OW_ATTACH_TEXT_MAX      200000
#define OW_ATTACH_IMAGE_URL_MAX 12000000
#define OW_ATTACH_PDF_URL_MAX   15000000
#define OW_ATTACH_PDF_PAGES     20
#define OW_ATTACH_PDF_BYTES     (10 * 1024 * 1024)

GtkWidget  *ow_composer_new               (void);

char       *ow_composer_dup_text          (OwComposer *self);
void        ow_composer_set_text          (OwComposer *self, const char *text);
/* The attachments as ow_session_host_send() takes them, or NULL. */
JsonArray  *ow_composer_dup_attachments   (OwComposer *self);
guint       ow_composer_get_n_attachments (OwComposer *self);
/* Empties the entry and the attachments (after a message went out). */
void        ow_composer_clear             (OwComposer *self);
/* Reads and checks a file; a refusal is shown as the composer's notice. */
void        ow_composer_add_file          (OwComposer *self, GFile *file);
/* A short notice under the entry (NULL hides it). */
void        ow_composer_set_notice        (OwComposer *self, const char *notice);
gboolean    ow_composer_get_busy          (OwComposer *self);

/* The models to offer (OwModelChoice*, borrowed for the call). */
void        ow_composer_set_models        (OwComposer *self, GPtrArray *choices);

gboolean    ow_composer_get_draft         (OwComposer *self);
void        ow_composer_set_draft         (OwComposer *self, gboolean draft);
gboolean    ow_composer_get_running       (OwComposer *self);
void        ow_composer_set_running       (OwComposer *self, gboolean running);
gboolean    ow_composer_get_enabled       (OwComposer *self);
void        ow_composer_set_enabled       (OwComposer *self, gboolean enabled);
const char *ow_composer_get_mode          (OwComposer *self);
void        ow_composer_set_mode          (OwComposer *self, const char *mode);
const char *ow_composer_get_model         (OwComposer *self);
void        ow_composer_set_model         (OwComposer *self, const char *model);
const char *ow_composer_get_coworker      (OwComposer *self);
void        ow_composer_set_coworker      (OwComposer *self, const char *coworker);
const char *ow_composer_get_workspace     (OwComposer *self);
void        ow_composer_set_workspace     (OwComposer *self, const char *workspace);

G_END_DECLS
