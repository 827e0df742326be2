/* ow-server-files.h: reading files for the API without leaving a folder.
 *
 * The artifacts routes show a session's files to the browser; the static
 * route may serve the UI from a development folder. Both read only inside
 * a given folder: the path is resolved (symbolic links included) and must
 * stay under the folder's own resolved path, the file is opened without
 * following a final link, and what was actually opened is checked again
 * through /proc/self/fd, so a link swapped in between cannot escape.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "store/ow-store.h"

G_BEGIN_DECLS

#define OW_ARTIFACTS_MAX          80
#define OW_ARTIFACT_MAX_BYTES     (25 * 1024 * 1024)
#define OW_ARTIFACT_MAX_TEXT      500000
#define OW_ARTIFACT_MAX_ENTRIES   500

/* Whether @path (resolved) is @root (resolved) or inside it. */
gboolean  ow_path_is_under        (const char *path, const char *root);

/* Opens @path for reading if it resolves to a regular file or folder
 * inside @root_real (already resolved). @path may be relative to the root
 * or absolute. Returns the fd (O_CLOEXEC) and the resolved path, or -1
 * with G_IO_ERROR_PERMISSION_DENIED "path escapes workspace" /
 * G_IO_ERROR_NOT_FOUND. */
int       ow_confined_open        (const char *root_real, const char *path, char **real_out, GError **error);

/* Reads the whole file at @fd (at most @max bytes; larger fails with
 * G_IO_ERROR_MESSAGE_TOO_LARGE). */
GBytes   *ow_fd_read_all          (int fd, gsize max, GError **error);

/* The artifact kind for a file name: markdown, html, text, json, csv,
 * code, image, pdf, sheet, office; NULL when it is not one we list. */
const char *ow_artifact_kind      (const char *name);

/* {path, abs_path, name, kind, size, modified_at} for the files under
 * @root, newest first, at most @max, skipping dotfiles, node_modules,
 * target, dist, __pycache__, Library, AppData and every symbolic link. */
JsonArray *ow_artifacts_list      (const char *root, guint max);

/* What the session wrote, from its event log, in order: the paths its
 * file tools wrote (as the tools named them) and the files its shell
 * commands made or changed (absolute; see core/ow-file-changes.h). */
GPtrArray *ow_artifacts_written   (OwStore *store, const char *session_id);

/* The session's deliverables: each of @written (from
 * ow_artifacts_written) that is a regular file inside one of @roots
 * (resolved, NULL-terminated, relative paths against roots[0]), and the
 * files ow_artifacts_list finds under @scratch; newest first, at most
 * @max, each once. */
JsonArray *ow_artifacts_list_session (const char *const *roots, const char *scratch, GPtrArray *written,
                                      guint max);

/* The body of GET …/artifacts/read for @path, searched in @roots
 * (resolved folders, NULL-terminated, in order). Always an object:
 * {ok:true, …} or {ok:false, error}. */
JsonObject *ow_artifact_read      (const char *const *roots, const char *path);

G_END_DECLS
