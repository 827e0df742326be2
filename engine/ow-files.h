/* ow-files.h: file-system helpers the engine's modules share. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Removes @path and, when it is a folder, everything under it, the way
 * `rm -rf --one-file-system` would, but in-process and without following a
 * single link: a symbolic link is removed, never what it points to, and a
 * folder on another file system (a mount inside the tree) is left alone
 * with an error. Folders the owner cannot write or enter are made so first.
 * A missing @path is success. On failure it goes on removing what it can
 * and reports the first error. */
gboolean ow_remove_tree (const char *path, GError **error);

G_END_DECLS
