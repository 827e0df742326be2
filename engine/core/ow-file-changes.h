/* ow-file-changes.h: which files a shell command made or changed.
 *
 * A file tool names the file it writes; a shell command does not, so the
 * agent looks: before each command it notes the size, modification time
 * and inode of every file in the session's writable folders, and after it
 * compares. What is new or different is what the command changed,
 * whoever wrote it (the shell, a program it ran, a sandbox bind mount).
 *
 * Why a walk and not inotify or fanotify: fanotify needs CAP_SYS_ADMIN;
 * inotify needs a watch per folder, set up before the command and racing
 * the folders it creates, and misses writes made inside a sandbox's own
 * mount namespace on some setups. Two bounded walks see every file the
 * folders hold, from any process.
 *
 * Bounded: at most OW_FILE_CHANGES_MAX_ENTRIES entries and
 * OW_FILE_CHANGES_MAX_MS milliseconds per walk, skipping .git and the
 * folders the file tools skip (node_modules, .venv, build, dist, …). A
 * walk that hits a bound is incomplete: files it did not reach are never
 * reported as new (only a file seen both times can be called changed).
 *
 * A walk can take its whole time bound on a big folder, so the agent runs
 * them in a worker thread (the _async forms); the results are the same.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define OW_FILE_CHANGES_MAX_ENTRIES 20000
#define OW_FILE_CHANGES_MAX_MS      250
#define OW_FILE_CHANGES_MAX_LISTED  100

typedef struct _OwFileSnapshot OwFileSnapshot;

/* The time bound of one walk, in milliseconds (OW_FILE_CHANGES_MAX_MS
 * until set; 0 restores it). For callers that can wait longer, and for
 * tests that compare two walks of a big folder on a slow machine, where a
 * bound that depends on the clock would make the comparison depend on it. */
void            ow_file_changes_set_time_limit (guint ms);

/* @roots: absolute folders, NULL-terminated. */
OwFileSnapshot *ow_file_snapshot_take (const char *const *roots);
void            ow_file_snapshot_free (OwFileSnapshot *snapshot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwFileSnapshot, ow_file_snapshot_free)

/* The regular files new in @after or changed since @before, as absolute
 * paths, sorted, at most OW_FILE_CHANGES_MAX_LISTED. */
GPtrArray      *ow_file_snapshot_changes (OwFileSnapshot *before, OwFileSnapshot *after);

/* ow_file_snapshot_take() in a worker thread; the callback comes on the
 * caller's thread-default main context. The walk is bounded, so it is
 * not cancelled: @cancellable only fails the result once it is done. */
void            ow_file_snapshot_take_async  (const char *const  *roots,
                                              GCancellable       *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
/* Transfer full. */
OwFileSnapshot *ow_file_snapshot_take_finish (GAsyncResult       *result,
                                              GError            **error);

/* Takes the snapshot of @roots after a command and compares it with
 * @before (transfer full: the worker thread owns it), in a worker thread:
 * ow_file_snapshot_changes() of the two. */
void            ow_file_snapshot_changes_async  (OwFileSnapshot     *before,
                                                 const char *const  *roots,
                                                 GCancellable       *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer            user_data);
/* Transfer full: char*, as ow_file_snapshot_changes(). */
GPtrArray      *ow_file_snapshot_changes_finish (GAsyncResult       *result,
                                                 GError            **error);

G_END_DECLS
