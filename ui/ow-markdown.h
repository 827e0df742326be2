/* ow-markdown.h: model text to sanitized HTML.
 *
 * GitHub-flavoured markdown (tables, strikethrough, autolinks, task lists)
 * through cmark-gfm in its safe mode: raw HTML is never passed through
 * (it is replaced by a comment), and links or images with javascript:,
 * vbscript:, file: or non-image data: URLs lose their target. The page the
 * result goes into adds the second wall: a Content-Security-Policy with no
 * inline script, no remote loads and no navigation.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The HTML for @markdown (NULL → ""). Never fails: invalid UTF-8 is
 * replaced, and any input gives a fragment safe to insert into the page. */
char *ow_markdown_to_html (const char *markdown);

G_END_DECLS
