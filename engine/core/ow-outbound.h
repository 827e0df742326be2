/* ow-outbound.h: the history as one particular model is shown it. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The placeholder an image becomes for a model that cannot see it. */
#define OW_OUTBOUND_IMAGE_PLACEHOLDER "[image attachment — not viewable by this model]"

JsonArray *ow_outbound_for_model (JsonArray *messages,
                                  gboolean   vision);
char      *ow_outbound_pdf_text  (const char *data_url);

G_END_DECLS
