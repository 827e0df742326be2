/* ow-server-files.c: confined file access for the API (see ow-server-files.h). */
#define G_LOG_DOMAIN "ow-server"

#include "server/ow-server-files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ow-json.h"
#include "store/ow-store.h"

gboolean
ow_path_is_under (const char *path, const char *root)
{
  gsize n;

  if (path == NULL || root == NULL)
    return FALSE;
  if (strcmp (root, "/") == 0)
    return path[0] == '/';
  n = strlen (root);
  return strncmp (path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static char *
fd_path (int fd)
{
  char link[64];
  char buf[4096];
  ssize_t n;

  g_snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink (link, buf, sizeof buf - 1);
  if (n <= 0)
    return NULL;
  buf[n] = '\0';
  return g_strdup (buf);
}

int
ow_confined_open (const char *root_real, const char *path, char **real_out, GError **error)
{
  g_autofree char *joined = NULL;
  g_autofree char *canon = NULL;
  char *real;
  g_autofree char *opened = NULL;
  int fd;
  struct stat st;

  if (path == NULL || *path == '\0' || strlen (path) > 4096)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "A path is needed.");
      return -1;
    }
  joined = g_path_is_absolute (path) ? g_strdup (path) : g_build_filename (root_real, path, NULL);
  canon = g_canonicalize_filename (joined, NULL);
  if (!ow_path_is_under (canon, root_real))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "path escapes workspace");
      return -1;
    }
  real = realpath (canon, NULL);
  if (real == NULL)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path, g_strerror (saved));
      return -1;
    }
  if (!ow_path_is_under (real, root_real))
    {
      free (real);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "path escapes workspace");
      return -1;
    }
  /* O_NONBLOCK: a FIFO must not hang the main loop. */
  fd = open (real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    {
      int saved = errno;
      free (real);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path, g_strerror (saved));
      return -1;
    }
  /* What was opened, not what was resolved a moment ago. */
  opened = fd_path (fd);
  if (fstat (fd, &st) != 0 || (!S_ISREG (st.st_mode) && !S_ISDIR (st.st_mode))
      || (opened != NULL && !ow_path_is_under (opened, root_real)))
    {
      gboolean escaped = opened != NULL && !ow_path_is_under (opened, root_real);
      close (fd);
      free (real);
      g_set_error_literal (error, G_IO_ERROR, escaped ? G_IO_ERROR_PERMISSION_DENIED : G_IO_ERROR_NOT_REGULAR_FILE,
                           escaped ? "path escapes workspace" : "not a file or folder");
      return -1;
    }
  if (real_out != NULL)
    *real_out = g_strdup (real);
  free (real);
  return fd;
}

GBytes *
ow_fd_read_all (int fd, gsize max, GError **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  guint8 chunk[65536];

  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);
      if (n < 0)
        {
          int saved = errno;
          if (saved == EINTR)
            continue;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Could not read the file: %s",
                       g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      if (buf->len + (gsize) n > max)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "The file is larger than %zu MB.",
                       max / (1024 * 1024));
          return NULL;
        }
      g_byte_array_append (buf, chunk, (guint) n);
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&buf));
}

static const struct {
  const char *suffix;
  const char *kind;
  const char *mime;
} kinds[] = {
  { "md", "markdown", "text/markdown" },
  { "markdown", "markdown", "text/markdown" },
  { "html", "html", "text/html" },
  { "htm", "html", "text/html" },
  { "txt", "text", "text/plain" },
  { "json", "json", "application/json" },
  { "csv", "csv", "text/csv" },
  { "tsv", "csv", "text/tab-separated-values" },
  { "py", "code", "text/x-python" },
  { "js", "code", "text/javascript" },
  { "ts", "code", "text/typescript" },
  { "tsx", "code", "text/typescript" },
  { "css", "code", "text/css" },
  { "png", "image", "image/png" },
  { "jpg", "image", "image/jpeg" },
  { "jpeg", "image", "image/jpeg" },
  { "webp", "image", "image/webp" },
  { "gif", "image", "image/gif" },
  { "pdf", "pdf", "application/pdf" },
  { "xlsx", "sheet", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
  { "xls", "sheet", "application/vnd.ms-excel" },
  { "pptx", "office", NULL },
  { "ppt", "office", NULL },
  { "pptm", "office", NULL },
  { "docx", "office", NULL },
  { "doc", "office", NULL },
  { "docm", "office", NULL },
};

static int
kind_index (const char *name)
{
  const char *dot = strrchr (name, '.');

  if (dot == NULL || dot == name)
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_ascii_strcasecmp (dot + 1, kinds[i].suffix) == 0)
      return (int) i;
  return -1;
}

const char *
ow_artifact_kind (const char *name)
{
  int i = kind_index (name);
  return i >= 0 ? kinds[i].kind : NULL;
}

static gboolean
skipped_dir (const char *name)
{
  static const char *const skip[] = { "node_modules", "target", "dist", "__pycache__", "Library", "AppData", NULL };
  return name[0] == '.' || g_strv_contains (skip, name);
}

typedef struct {
  char   *rel;
  char   *abs;
  gint64  size;
  gint64  mtime;
} Found;

static void
found_free (Found *f)
{
  g_free (f->rel);
  g_free (f->abs);
  g_free (f);
}

static int
found_newest_first (gconstpointer a, gconstpointer b)
{
  const Found *fa = *(Found *const *) a, *fb = *(Found *const *) b;
  return fa->mtime < fb->mtime ? 1 : fa->mtime > fb->mtime ? -1 : strcmp (fa->rel, fb->rel);
}

/* Walks @dir_fd (owned) without following links; bounded in depth and in
 * the entries looked at, so a huge tree costs a bounded time. */
static void
walk (int dir_fd, const char *root, const char *rel, guint depth, guint *budget, GPtrArray *out)
{
  DIR *dir = fdopendir (dir_fd);
  struct dirent *de;

  if (dir == NULL)
    {
      close (dir_fd);
      return;
    }
  while ((de = readdir (dir)) != NULL && *budget > 0)
    {
      struct stat st;
      g_autofree char *child_rel = NULL;

      (*budget)--;
      if (de->d_name[0] == '.')
        continue;
      if (fstatat (dirfd (dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      child_rel = rel[0] != '\0' ? g_build_filename (rel, de->d_name, NULL) : g_strdup (de->d_name);
      if (S_ISDIR (st.st_mode))
        {
          int fd;
          if (depth >= 6 || skipped_dir (de->d_name))
            continue;
          fd = openat (dirfd (dir), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (fd >= 0)
            walk (fd, root, child_rel, depth + 1, budget, out);
        }
      else if (S_ISREG (st.st_mode) && ow_artifact_kind (de->d_name) != NULL)
        {
          Found *f = g_new0 (Found, 1);
          f->rel = g_steal_pointer (&child_rel);
          f->abs = g_build_filename (root, f->rel, NULL);
          f->size = st.st_size;
          f->mtime = (gint64) st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
          g_ptr_array_add (out, f);
        }
    }
  closedir (dir);
}

static char *
iso_from_ms (gint64 ms)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (ms / 1000);
  return dt != NULL ? g_date_time_format_iso8601 (dt) : g_strdup ("");
}

static JsonObject *
found_to_json (const Found *f)
{
  JsonObject *o = json_object_new ();
  g_autofree char *iso = iso_from_ms (f->mtime);
  g_autofree char *base = g_path_get_basename (f->rel);
  const char *kind = ow_artifact_kind (base);

  json_object_set_string_member (o, "path", f->rel);
  json_object_set_string_member (o, "abs_path", f->abs);
  json_object_set_string_member (o, "name", base);
  /* a command's output may be any file: "file" when no kind fits */
  json_object_set_string_member (o, "kind", kind != NULL ? kind : "file");
  json_object_set_int_member (o, "size", f->size);
  json_object_set_string_member (o, "modified_at", iso);
  return o;
}

JsonArray *
ow_artifacts_list (const char *root, guint max)
{
  JsonArray *arr = json_array_new ();
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) found_free);
  guint budget = 20000;
  int fd;

  if (root == NULL)
    return arr;
  fd = open (root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return arr;
  walk (fd, root, "", 0, &budget, found);
  g_ptr_array_sort (found, found_newest_first);
  for (guint i = 0; i < found->len && i < max; i++)
    json_array_add_object_element (arr, found_to_json (g_ptr_array_index (found, i)));
  return arr;
}

static JsonObject *
read_error (const char *message)
{
  JsonObject *o = json_object_new ();

  json_object_set_boolean_member (o, "ok", FALSE);
  json_object_set_string_member (o, "error", message);
  return o;
}

typedef struct
{
  char   *name;
  gboolean dir;
  gint64  size;
} FolderEntry;

static void
folder_entry_free (gpointer p)
{
  FolderEntry *e = p;

  g_free (e->name);
  g_free (e);
}

/* Folders first, then names in byte order, as a file manager lists them;
 * readdir's own order changes with the file system. */
static int
folder_entry_compare (gconstpointer a, gconstpointer b)
{
  const FolderEntry *ea = *(FolderEntry *const *) a, *eb = *(FolderEntry *const *) b;

  if (ea->dir != eb->dir)
    return ea->dir ? -1 : 1;
  return strcmp (ea->name, eb->name);
}

static JsonObject *
read_folder (int fd, const char *real)
{
  JsonObject *o = json_object_new ();
  JsonArray *entries = json_array_new ();
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (folder_entry_free);
  DIR *dir = fdopendir (fd);
  struct dirent *de;

  json_object_set_boolean_member (o, "ok", TRUE);
  json_object_set_string_member (o, "path", real);
  json_object_set_string_member (o, "kind", "folder");
  if (dir == NULL)
    close (fd);
  while (dir != NULL && (de = readdir (dir)) != NULL && found->len < OW_ARTIFACT_MAX_ENTRIES)
    {
      struct stat st;
      FolderEntry *e;

      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (fstatat (dirfd (dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      e = g_new0 (FolderEntry, 1);
      e->name = g_strdup (de->d_name);
      e->dir = S_ISDIR (st.st_mode);
      e->size = S_ISREG (st.st_mode) ? st.st_size : 0;
      g_ptr_array_add (found, e);
    }
  if (dir != NULL)
    closedir (dir);
  g_ptr_array_sort (found, folder_entry_compare);
  for (guint i = 0; i < found->len; i++)
    {
      const FolderEntry *f = g_ptr_array_index (found, i);
      JsonObject *e = json_object_new ();

      json_object_set_string_member (e, "name", f->name);
      json_object_set_boolean_member (e, "dir", f->dir);
      json_object_set_int_member (e, "size", f->size);
      json_array_add_object_element (entries, e);
    }
  json_object_set_array_member (o, "entries", entries);
  return o;
}

static gboolean
looks_binary (const char *data, gsize len)
{
  return memchr (data, '\0', MIN (len, 8192)) != NULL;
}

JsonObject *
ow_artifact_read (const char *const *roots, const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *real = NULL;
  g_autoptr(GBytes) bytes = NULL;
  struct stat st;
  int fd = -1;
  int ki;
  JsonObject *o;
  const char *data;
  gsize len;
  gboolean escaped = FALSE;

  if (path == NULL || *path == '\0')
    return read_error ("A path is needed.");
  /* Relative paths are tried in each folder in turn; an absolute one must
   * be inside one of them. */
  for (guint i = 0; roots != NULL && roots[i] != NULL && fd < 0; i++)
    {
      g_clear_error (&error);
      fd = ow_confined_open (roots[i], path, &real, &error);
      if (fd < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
        escaped = TRUE;
    }
  if (fd < 0)
    {
      if (roots == NULL || roots[0] == NULL)
        return read_error ("This isn't in the conversation's folder anymore.");
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) && !escaped)
        return read_error ("This isn't in the conversation's folder anymore; it may have been moved or deleted.");
      return read_error (escaped ? "path escapes workspace" : error->message);
    }
  if (fstat (fd, &st) != 0)
    {
      close (fd);
      return read_error ("The file could not be read.");
    }
  if (S_ISDIR (st.st_mode))
    return read_folder (fd, real);

  ki = kind_index (real);
  if (ki >= 0 && g_str_equal (kinds[ki].kind, "office"))
    {
      close (fd);
      o = json_object_new ();
      json_object_set_boolean_member (o, "ok", TRUE);
      json_object_set_string_member (o, "path", real);
      json_object_set_string_member (o, "kind", "office");
      return o;
    }
  if (ki >= 0 && (g_str_equal (kinds[ki].kind, "image") || g_str_equal (kinds[ki].kind, "pdf")
                  || g_str_equal (kinds[ki].kind, "sheet")))
    {
      g_autofree char *b64 = NULL;
      g_autofree char *url = NULL;
      bytes = ow_fd_read_all (fd, OW_ARTIFACT_MAX_BYTES, &error);
      close (fd);
      if (bytes == NULL)
        return read_error (error->message);
      data = g_bytes_get_data (bytes, &len);
      b64 = g_base64_encode ((const guchar *) data, len);
      url = g_strconcat ("data:", kinds[ki].mime, ";base64,", b64, NULL);
      o = json_object_new ();
      json_object_set_boolean_member (o, "ok", TRUE);
      json_object_set_string_member (o, "path", real);
      json_object_set_string_member (o, "kind", kinds[ki].kind);
      json_object_set_string_member (o, "data_url", url);
      return o;
    }

  /* Text: the first 500,000 bytes, cut on a character boundary. */
  {
    g_autoptr(GByteArray) buf = g_byte_array_new ();
    guint8 chunk[65536];
    gboolean truncated = FALSE;
    const char *end;

    for (;;)
      {
        ssize_t n = read (fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0)
          break;
        g_byte_array_append (buf, chunk, (guint) n);
        if (buf->len > OW_ARTIFACT_MAX_TEXT)
          {
            truncated = TRUE;
            g_byte_array_set_size (buf, OW_ARTIFACT_MAX_TEXT);
            break;
          }
      }
    close (fd);
    data = (const char *) buf->data;
    len = buf->len;
    if (looks_binary (data, len))
      return read_error ("binary file cannot be previewed");
    if (!g_utf8_validate (data, (gssize) len, &end))
      {
        /* Only a character cut at the limit may be incomplete. */
        if (!truncated || len - (gsize) (end - data) > 3)
          return read_error ("binary file cannot be previewed");
        len = (gsize) (end - data);
      }
    o = json_object_new ();
    json_object_set_boolean_member (o, "ok", TRUE);
    json_object_set_string_member (o, "path", real);
    json_object_set_string_member (o, "kind", ki >= 0 ? kinds[ki].kind : "text");
    {
      g_autofree char *content = g_strndup (data, len);
      json_object_set_string_member (o, "content", content);
    }
    json_object_set_boolean_member (o, "truncated", truncated);
    return o;
  }
}

/* ---- What the session wrote ---- */

typedef struct {
  GHashTable *proposed;   /* call id → char* path list joined by '\n' */
  GPtrArray  *written;    /* char*, in order */
} Scan;

static void
patch_paths (const char *patch, GString *out)
{
  g_auto(GStrv) lines = g_strsplit (patch != NULL ? patch : "", "\n", -1);
  static const char *const heads[] = { "*** Add File: ", "*** Update File: ", NULL };

  for (guint i = 0; lines[i] != NULL; i++)
    for (guint h = 0; heads[h] != NULL; h++)
      if (g_str_has_prefix (lines[i], heads[h]))
        g_string_append_printf (out, "%s\n", g_strstrip (lines[i] + strlen (heads[h])));
}

static void
scan_event_cb (gint64 seq, gint64 ts_ms, const char *type, const char *data, gpointer user_data)
{
  Scan *scan = user_data;
  g_autoptr(JsonObject) obj = NULL;
  const char *name, *call_id;

  if (!g_str_equal (type, "tool_proposed") && !g_str_equal (type, "tool_finished"))
    return;
  obj = ow_json_object_from_string (data, -1, NULL);
  if (obj == NULL)
    return;
  name = ow_json_get_string (obj, "name");
  call_id = ow_json_get_string (obj, "call_id");
  if (name == NULL || call_id == NULL)
    return;
  if (g_str_equal (type, "tool_proposed"))
    {
      JsonObject *args = ow_json_get_object (obj, "arguments");
      g_autoptr(GString) paths = g_string_new (NULL);

      if (g_str_equal (name, "write_file") || g_str_equal (name, "replace_in_file"))
        {
          if (ow_json_get_string (args, "path") != NULL)
            g_string_append_printf (paths, "%s\n", ow_json_get_string (args, "path"));
        }
      else if (g_str_equal (name, "apply_patch"))
        patch_paths (ow_json_get_string (args, "patch"), paths);
      if (paths->len > 0)
        g_hash_table_insert (scan->proposed, g_strdup (call_id), g_string_free (g_steal_pointer (&paths), FALSE));
    }
  else
    {
      JsonNode *changed = json_object_get_member (obj, "files_changed");

      /* A command's files count however it ended: a failed build may
       * still have written its output. */
      if (changed != NULL && JSON_NODE_HOLDS_ARRAY (changed))
        {
          JsonArray *arr = json_node_get_array (changed);
          for (guint i = 0; i < json_array_get_length (arr); i++)
            {
              JsonNode *n = json_array_get_element (arr, i);
              if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
                g_ptr_array_add (scan->written, g_strdup (json_node_get_string (n)));
            }
        }
      if (g_strcmp0 (ow_json_get_string (obj, "status"), "ok") == 0)
        {
          const char *paths = g_hash_table_lookup (scan->proposed, call_id);
          g_auto(GStrv) each = paths != NULL ? g_strsplit (paths, "\n", -1) : NULL;

          for (guint i = 0; each != NULL && each[i] != NULL; i++)
            if (*each[i] != '\0')
              g_ptr_array_add (scan->written, g_strdup (each[i]));
        }
    }
}

GPtrArray *
ow_artifacts_written (OwStore *store, const char *session_id)
{
  Scan scan = {
    .proposed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
    .written = g_ptr_array_new_with_free_func (g_free),
  };

  if (store != NULL && session_id != NULL)
    ow_store_event_foreach_since (store, session_id, 0, scan_event_cb, &scan, NULL);
  g_hash_table_unref (scan.proposed);
  return scan.written;
}

static void
add_found (GPtrArray *out, GHashTable *seen, const char *real, const char *rel)
{
  struct stat st;
  Found *f;

  if (g_hash_table_contains (seen, real) || lstat (real, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  f = g_new0 (Found, 1);
  f->rel = g_strdup (rel);
  f->abs = g_strdup (real);
  f->size = st.st_size;
  f->mtime = (gint64) st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
  g_hash_table_add (seen, f->abs);
  g_ptr_array_add (out, f);
}

JsonArray *
ow_artifacts_list_session (const char *const *roots, const char *scratch, GPtrArray *written, guint max)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) found_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  JsonArray *listed = ow_artifacts_list (scratch, max);
  JsonArray *arr = json_array_new ();

  for (guint i = 0; written != NULL && i < written->len; i++)
    {
      const char *p = g_ptr_array_index (written, i);
      g_autofree char *full = g_path_is_absolute (p) || roots == NULL || roots[0] == NULL
                                ? g_strdup (p) : g_build_filename (roots[0], p, NULL);
      char *real = realpath (full, NULL);

      for (guint r = 0; real != NULL && roots != NULL && roots[r] != NULL; r++)
        if (ow_path_is_under (real, roots[r]))
          {
            /* Shown relative to the folder it is in, as the scratch
             * folder's files are; read back by its absolute path. */
            add_found (found, seen, real, real + strlen (roots[r]) + (real[strlen (roots[r])] == '/'));
            break;
          }
      free (real);
    }
  for (guint i = 0; i < json_array_get_length (listed); i++)
    {
      JsonObject *o = json_array_get_object_element (listed, i);
      const char *abs = ow_json_get_string (o, "abs_path");
      if (abs != NULL)
        add_found (found, seen, abs, ow_json_get_string (o, "path"));
    }
  json_array_unref (listed);
  g_ptr_array_sort (found, found_newest_first);
  for (guint i = 0; i < found->len && i < max; i++)
    {
      Found *f = g_ptr_array_index (found, i);
      json_array_add_object_element (arr, found_to_json (f));
    }
  return arr;
}
