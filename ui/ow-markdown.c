/* ow-markdown.c: model text to sanitized HTML (see ow-markdown.h). */
#define G_LOG_DOMAIN "ow-markdown"

#include "ow-markdown.h"

#include <string.h>

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

/* The extensions GitHub renders model answers with. "tagfilter" is
 * listed although safe mode already drops raw HTML: it costs nothing and
 * stays right if the options ever change. */
static const char *const extensions[] = { "table", "strikethrough", "autolink", "tagfilter", "tasklist", NULL };

static gpointer
register_extensions (gpointer data)
{
  cmark_gfm_core_extensions_ensure_registered ();
  return NULL;
}

char *
ow_markdown_to_html (const char *markdown)
{
  static GOnce once = G_ONCE_INIT;
  /* CMARK_OPT_UNSAFE is never set: safe mode is what keeps raw HTML and
   * dangerous URLs out. */
  const int options = CMARK_OPT_SAFE | CMARK_OPT_VALIDATE_UTF8;
  g_autofree char *valid = NULL;
  cmark_parser *parser;
  cmark_node *doc;
  char *html;
  char *out;

  g_once (&once, register_extensions, NULL);
  if (markdown == NULL)
    return g_strdup ("");
  if (!g_utf8_validate (markdown, -1, NULL))
    markdown = valid = g_utf8_make_valid (markdown, -1);

  parser = cmark_parser_new (options);
  for (guint i = 0; extensions[i] != NULL; i++)
    {
      cmark_syntax_extension *ext = cmark_find_syntax_extension (extensions[i]);
      if (ext != NULL)
        cmark_parser_attach_syntax_extension (parser, ext);
    }
  cmark_parser_feed (parser, markdown, strlen (markdown));
  doc = cmark_parser_finish (parser);
  html = cmark_render_html (doc, options, cmark_parser_get_syntax_extensions (parser));
  out = g_strdup (html);
  cmark_get_default_mem_allocator ()->free (html);
  cmark_node_free (doc);
  cmark_parser_free (parser);
  return out;
}
