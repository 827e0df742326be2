/* ow-format.c: engine values in words (see ow-format.h). */
#define G_LOG_DOMAIN "ow-format"

#include "config-ui.h"
#include "ow-format.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "ow-json.h"
#include "core/ow-message.h"
#include "providers/ow-provider-catalog.h"

const char *const *
ow_format_modes (void)
{
  static const char *const modes[] = { "ask", "auto-approve", "bypass-approvals", "plan", "discuss", NULL };

  return modes;
}

const char *
ow_format_mode_label (const char *mode)
{
  if (g_strcmp0 (mode, "ask") == 0)
    return _("Ask for approval");
  if (g_strcmp0 (mode, "auto-approve") == 0)
    return _("Auto-approve");
  if (g_strcmp0 (mode, "bypass-approvals") == 0)
    return _("Bypass approvals");
  if (g_strcmp0 (mode, "plan") == 0)
    return _("Plan (read-only)");
  if (g_strcmp0 (mode, "discuss") == 0)
    return _("Discuss (read-only)");
  if (g_strcmp0 (mode, "dangerously-bypass-approvals") == 0)
    return _("Dangerously bypass approvals");
  return mode != NULL ? mode : "";
}

const char *
ow_format_mode_help (const char *mode)
{
  if (g_strcmp0 (mode, "ask") == 0)
    return _("Anything that changes your files or runs a command waits for you.");
  if (g_strcmp0 (mode, "auto-approve") == 0)
    return _("A reviewer model approves routine steps; it asks you when it is unsure.");
  if (g_strcmp0 (mode, "bypass-approvals") == 0)
    return _("Steps run without asking, except the safety checks, which always ask.");
  if (g_strcmp0 (mode, "plan") == 0)
    return _("Reads and plans; nothing is changed or run until you switch the mode.");
  if (g_strcmp0 (mode, "discuss") == 0)
    return _("Talks it through; nothing is changed or run.");
  return "";
}

const char *
ow_format_coworker_label (const char *coworker)
{
  if (coworker == NULL || g_str_equal (coworker, "cowork"))
    return _("Cowork");
  if (g_str_equal (coworker, "code"))
    return _("Code");
  return coworker;
}

char *
ow_format_session_title (const char *title, const char *auto_title, gboolean renamed, const char *first_text)
{
  char *line;

  if (renamed && title != NULL && *title != '\0')
    return g_strdup (title);
  if (auto_title != NULL && *auto_title != '\0')
    return g_strdup (auto_title);
  if (title != NULL && *title != '\0')
    return g_strdup (title);
  line = ow_message_content_first_line (first_text, 60);
  return line != NULL ? line : g_strdup (_("New session"));
}

char *
ow_format_session_subtitle (const char *coworker, const char *workspace, gboolean temporary)
{
  g_autofree char *base = NULL;

  if (temporary || workspace == NULL)
    return g_strdup_printf ("%s · %s", ow_format_coworker_label (coworker), _("Temporary folder"));
  base = g_path_get_basename (workspace);
  return g_strdup_printf ("%s · %s", ow_format_coworker_label (coworker), base);
}

static GDateTime *
parse_time (const char *iso)
{
  g_autofree char *fixed = NULL;
  g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();

  if (iso == NULL || strlen (iso) < 19)
    return NULL;
  /* SQLite's CURRENT_TIMESTAMP is "YYYY-MM-DD HH:MM:SS", UTC, no zone. */
  fixed = g_strdup (iso);
  if (fixed[10] == ' ')
    fixed[10] = 'T';
  return g_date_time_new_from_iso8601 (fixed, utc);
}

char *
ow_format_relative_time (const char *iso8601, GDateTime *now)
{
  g_autoptr(GDateTime) t = parse_time (iso8601);
  g_autoptr(GDateTime) local = NULL;
  g_autoptr(GDateTime) now_local = NULL;
  GTimeSpan span;

  if (t == NULL || now == NULL)
    return g_strdup ("");
  span = g_date_time_difference (now, t);
  if (span < 60 * G_TIME_SPAN_SECOND)
    return g_strdup (_("just now"));
  if (span < G_TIME_SPAN_HOUR)
    return g_strdup_printf (_("%d min ago"), (int) (span / G_TIME_SPAN_MINUTE));
  if (span < 12 * G_TIME_SPAN_HOUR)
    return g_strdup_printf (_("%d h ago"), (int) (span / G_TIME_SPAN_HOUR));
  local = g_date_time_to_local (t);
  now_local = g_date_time_to_local (now);
  if (g_date_time_get_year (local) == g_date_time_get_year (now_local)
      && g_date_time_get_day_of_year (local) == g_date_time_get_day_of_year (now_local))
    return g_date_time_format (local, "%H:%M");
  if (span < 48 * G_TIME_SPAN_HOUR)
    return g_strdup (_("yesterday"));
  /* TRANSLATORS: a short date, see g_date_time_format(). */
  return g_date_time_format (local, _("%e %b"));
}

char *
ow_format_size (gint64 bytes)
{
  return g_format_size ((guint64) MAX (bytes, 0));
}

char *
ow_format_model_label (const char *model_id)
{
  const OwProviderEntry *entry = NULL;
  g_autofree char *bare = NULL;

  if (model_id == NULL || *model_id == '\0')
    return g_strdup (_("No model"));
  if (!ow_model_id_split (model_id, &entry, &bare, NULL) || entry == NULL)
    return g_strdup (model_id);
  return g_strdup_printf ("%s · %s", entry->title, bare);
}

/* @text on one line (runs of whitespace become one space), at most @max
 * characters with an ellipsis. */
static void
append_collapsed (GString *out, const char *text, glong max)
{
  gboolean space = FALSE;
  glong n = 0;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c))
        {
          space = out->len > 0;
          continue;
        }
      if (n >= max)
        {
          g_string_append (out, "…");
          return;
        }
      if (space && n > 0)
        {
          g_string_append_c (out, ' ');
          n++;
        }
      space = FALSE;
      g_string_append_unichar (out, c);
      n++;
    }
}

char *
ow_format_args_preview (JsonObject *args)
{
  g_autoptr(GString) out = g_string_new (NULL);
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (args == NULL)
    return g_strdup ("");
  json_object_iter_init (&iter, args);
  while (json_object_iter_next (&iter, &key, &value))
    {
      g_autoptr(GString) one = g_string_new (NULL);
      g_autofree char *text = NULL;

      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
        text = g_strdup (json_node_get_string (value));
      else
        text = json_to_string (value, FALSE);
      g_string_append_printf (one, "%s: ", key);
      append_collapsed (one, text != NULL ? text : "", 80);
      if (out->len > 0)
        g_string_append (out, " · ");
      g_string_append (out, one->str);
      if (g_utf8_strlen (out->str, -1) > 240)
        {
          *g_utf8_offset_to_pointer (out->str, 239) = '\0';
          g_string_set_size (out, strlen (out->str));
          g_string_append (out, "…");
          break;
        }
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* A tool's verb in each state: waiting (or proposed), running, done and
 * failed; denied and stopped are the same words for every tool. */
typedef struct {
  const char *name;
  const char *waiting;
  const char *running;
  const char *done;
  const char *failed;
  const char *detail_key;   /* the argument shown beside the verb, or NULL */
} StepVerbs;

static const StepVerbs step_verbs[] = {
  { "run_shell", N_("Waiting to run"), N_("Running"), N_("Ran"), N_("Failed to run"), "command" },
  { "read_file", N_("Waiting to read"), N_("Reading"), N_("Read"), N_("Could not read"), "path" },
  { "write_file", N_("Waiting to write"), N_("Writing"), N_("Wrote"), N_("Could not write"), "path" },
  { "replace_in_file", N_("Waiting to edit"), N_("Editing"), N_("Edited"), N_("Could not edit"), "path" },
  { "apply_patch", N_("Waiting to apply a patch"), N_("Applying a patch"), N_("Applied a patch"),
    N_("Could not apply a patch"), NULL },
  { "list_files", N_("Waiting to list"), N_("Listing"), N_("Listed"), N_("Could not list"), "path" },
  { "grep", N_("Waiting to search for"), N_("Searching for"), N_("Searched for"), N_("Could not search for"),
    "pattern" },
  { "git_status", N_("Waiting to look at"), N_("Looking at"), N_("Looked at"), N_("Could not look at"), NULL },
  { "git_diff", N_("Waiting to look at"), N_("Looking at"), N_("Looked at"), N_("Could not look at"), NULL },
  { "git_log", N_("Waiting to look at"), N_("Looking at"), N_("Looked at"), N_("Could not look at"), NULL },
  { "web_fetch", N_("Waiting to fetch"), N_("Fetching"), N_("Fetched"), N_("Could not fetch"), "url" },
  { "web_search", N_("Waiting to search the web for"), N_("Searching the web for"), N_("Searched the web for"),
    N_("Could not search the web for"), "query" },
  { "todo_write", N_("Updating the plan"), N_("Updating the plan"), N_("Updated the plan"),
    N_("Could not update the plan"), NULL },
  { "ask_user", N_("Asking you"), N_("Asking you"), N_("Asked you"), N_("Could not ask you"), "question" },
  { "request_directory", N_("Asking for a folder"), N_("Asking for a folder"), N_("Asked for a folder"),
    N_("Could not ask for a folder"), "path" },
  { "request_network_access", N_("Asking to reach"), N_("Asking to reach"), N_("Asked to reach"),
    N_("Could not ask to reach"), "host" },
  { "shell_task_output", N_("Checking a background command"), N_("Checking a background command"),
    N_("Checked a background command"), N_("Could not check a background command"), "task_id" },
  { "shell_task_kill", N_("Stopping a background command"), N_("Stopping a background command"),
    N_("Stopped a background command"), N_("Could not stop a background command"), "task_id" },
};

void
ow_format_tool_step (const char *name, JsonObject *args, const char *status, char **verb, char **detail)
{
  const StepVerbs *entry = NULL;
  const char *v, *d = NULL;
  g_autofree char *computed = NULL;

  name = name != NULL ? name : "";
  for (guint i = 0; i < G_N_ELEMENTS (step_verbs); i++)
    if (g_str_equal (step_verbs[i].name, name))
      entry = &step_verbs[i];

  if (entry == NULL)
    {
      /* A tool of a connector: its name and its arguments; once denied or
       * stopped, that word and its name. */
      gboolean ended = g_strcmp0 (status, "denied") == 0 || g_strcmp0 (status, "interrupted") == 0;

      *verb = g_strdup (!ended ? name : g_strcmp0 (status, "denied") == 0 ? _("Denied") : _("Stopped"));
      *detail = ended ? g_strdup (name) : ow_format_args_preview (args);
      return;
    }
  if (entry->detail_key != NULL)
    d = ow_json_get_string (args, entry->detail_key);
  if (g_str_equal (name, "list_files") && d == NULL)
    d = ".";
  else if (g_str_has_prefix (name, "git_"))
    d = computed = g_strdelimit (g_strdup (name), "_", ' ');

  if (g_strcmp0 (status, "ok") == 0)
    v = _(entry->done);
  else if (g_strcmp0 (status, "running") == 0)
    v = _(entry->running);
  else if (g_strcmp0 (status, "error") == 0)
    v = _(entry->failed);
  else if (g_strcmp0 (status, "denied") == 0)
    v = _("Denied");
  else if (g_strcmp0 (status, "interrupted") == 0)
    v = _("Stopped");
  else
    /* proposed, waiting, reviewing: nothing has happened yet. */
    v = _(entry->waiting);
  *verb = g_strdup (v);
  *detail = g_strdup (d != NULL ? d : "");
}

const char *
ow_format_risk_label (const char *risk)
{
  if (g_strcmp0 (risk, "read") == 0)
    return _("Read files");
  if (g_strcmp0 (risk, "write_local") == 0)
    return _("Change a file");
  if (g_strcmp0 (risk, "exec") == 0)
    return _("Run a command");
  if (g_strcmp0 (risk, "external") == 0)
    return _("Reach outside this computer");
  return _("Needs your approval");
}

/* @path (absolute, "~/…" or with "..") names something outside @folder. */
static gboolean
path_outside (const char *path, const char *folder)
{
  g_autofree char *full = NULL;
  g_autofree char *canon = NULL;
  static const char *const harmless[] = { "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", NULL };

  if (g_strv_contains (harmless, path))
    return FALSE;
  if (path[0] == '~')
    full = g_build_filename (g_get_home_dir (), path + 1, NULL);
  else if (g_path_is_absolute (path))
    full = g_strdup (path);
  else
    full = g_build_filename (folder, path, NULL);
  canon = g_canonicalize_filename (full, NULL);
  return !(g_str_equal (canon, folder)
           || (g_str_has_prefix (canon, folder) && canon[strlen (folder)] == '/'));
}

char *
ow_format_command_outside (const char *command, const char *folder)
{
  g_auto(GStrv) words = NULL;
  g_autofree char *canon_folder = NULL;

  if (command == NULL || folder == NULL || *folder == '\0')
    return NULL;
  canon_folder = g_canonicalize_filename (folder, NULL);
  if (!g_shell_parse_argv (command, NULL, &words, NULL))
    words = g_strsplit_set (command, " \t\n", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      /* The path in "--out=/x", "2>/x" or ">/x" too. */
      const char *w = words[i];
      const char *eq = strchr (w, '=');
      const char *path;

      if (eq != NULL && (eq[1] == '/' || eq[1] == '~'))
        w = eq + 1;
      while (*w == '>' || *w == '<' || g_ascii_isdigit (*w) || *w == '&')
        w++;
      path = w;
      if (*path == '\0' || strstr (path, "://") != NULL)
        continue;
      if (path[0] == '/' || (path[0] == '~' && (path[1] == '/' || path[1] == '\0'))
          || g_str_has_prefix (path, "../") || g_str_equal (path, "..") || strstr (path, "/../") != NULL)
        if (path_outside (path, canon_folder))
          return g_strdup (path);
    }
  return NULL;
}

char *
ow_format_exit_code (gboolean has_code, gint64 code)
{
  if (!has_code)
    return g_strdup (_("No exit code"));
  /* TRANSLATORS: %d is a command's exit status, 0 when it succeeded */
  return g_strdup_printf (_("Exit code %d"), (int) code);
}

const char *
ow_format_tool_status (const char *status)
{
  if (g_strcmp0 (status, "ok") == 0)
    return _("done");
  if (g_strcmp0 (status, "error") == 0)
    return _("failed");
  if (g_strcmp0 (status, "denied") == 0)
    return _("denied");
  if (g_strcmp0 (status, "interrupted") == 0)
    return _("stopped");
  if (g_strcmp0 (status, "running") == 0)
    return _("running");
  if (g_strcmp0 (status, "waiting") == 0)
    return _("waiting for you");
  if (g_strcmp0 (status, "proposed") == 0)
    return _("proposed");
  return status != NULL ? status : "";
}

char *
ow_format_provenance (const char *provenance)
{
  gint64 id;

  if (provenance == NULL || *provenance == '\0')
    return g_strdup ("");
  if (g_str_equal (provenance, "low risk"))
    return g_strdup (_("Allowed: low risk"));
  if (g_str_equal (provenance, "user-approved once"))
    return g_strdup (_("You allowed it once"));
  if (g_str_equal (provenance, "user-approved for session"))
    return g_strdup (_("You allowed it for this session"));
  if (g_str_equal (provenance, "denied by person"))
    return g_strdup (_("You denied it"));
  if (g_str_equal (provenance, "refused unattended"))
    return g_strdup (_("Refused: nobody could approve it"));
  if (g_str_equal (provenance, "cleared by mode"))
    return g_strdup (_("Allowed by the approval mode (safety checks cleared)"));
  if (g_str_equal (provenance, "denied by hard floor"))
    return g_strdup (_("Refused by this machine's deny rules"));
  if (g_str_equal (provenance, "denied by read-only mode"))
    return g_strdup (_("Refused: the session is read-only"));
  if (g_str_has_prefix (provenance, "user-approved always (standing rule #")
      && (id = g_ascii_strtoll (provenance + strlen ("user-approved always (standing rule #"), NULL, 10)) > 0)
    return g_strdup_printf (_("You always allow this (standing rule #%" PRId64 ")"), (int64_t) id);
  if (g_str_has_prefix (provenance, "standing rule #")
      && (id = g_ascii_strtoll (provenance + strlen ("standing rule #"), NULL, 10)) > 0)
    return g_strdup_printf (_("Allowed by standing rule #%" PRId64), (int64_t) id);
  if (g_str_has_prefix (provenance, "auto-approved by reviewer: "))
    return g_strdup_printf (_("Approved by the reviewer: %s"), provenance + strlen ("auto-approved by reviewer: "));
  return g_strdup (provenance);
}

/* ---- The edit diff ------------------------------------------------------ */

void
ow_diff_line_free (OwDiffLine *line)
{
  if (line == NULL)
    return;
  g_free (line->text);
  g_free (line);
}

static void
add_line (GPtrArray *out, OwDiffKind kind, const char *text, gssize len)
{
  OwDiffLine *line = g_new0 (OwDiffLine, 1);

  line->kind = kind;
  line->text = len < 0 ? g_strdup (text) : g_strndup (text, (gsize) len);
  g_ptr_array_add (out, line);
}

static GStrv
split_lines (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text != NULL ? text : "", "\n", -1);
  guint n = g_strv_length (lines);

  /* A final newline ends the last line; it does not start another one. */
  if (n > 0 && *lines[n - 1] == '\0')
    {
      g_free (lines[n - 1]);
      lines[n - 1] = NULL;
    }
  return g_steal_pointer (&lines);
}

/* Above this many lines on a side, a full line diff costs more than it
 * tells: the old text is shown removed and the new one added. */
#define DIFF_MAX_SIDE 800
#define DIFF_CONTEXT 3

static void
diff_texts (GPtrArray *out, const char *before, const char *after)
{
  g_auto(GStrv) a = split_lines (before);
  g_auto(GStrv) b = split_lines (after);
  guint n = g_strv_length (a), m = g_strv_length (b);
  g_autofree guint16 *lcs = NULL;
  g_autoptr(GPtrArray) raw = NULL;
  guint i = 0, j = 0;
  guint w = m + 1;

  if (n > DIFF_MAX_SIDE || m > DIFF_MAX_SIDE)
    {
      for (i = 0; i < n; i++)
        add_line (out, OW_DIFF_REMOVED, a[i], -1);
      for (j = 0; j < m; j++)
        add_line (out, OW_DIFF_ADDED, b[j], -1);
      return;
    }
  /* Longest common subsequence, filled from the end so the walk below
   * goes forwards. */
  lcs = g_new0 (guint16, (gsize) (n + 1) * w);
  for (guint x = n; x-- > 0;)
    for (guint y = m; y-- > 0;)
      lcs[x * w + y] = g_str_equal (a[x], b[y]) ? lcs[(x + 1) * w + y + 1] + 1
                                                : MAX (lcs[(x + 1) * w + y], lcs[x * w + y + 1]);
  raw = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_diff_line_free);
  while (i < n || j < m)
    {
      if (i < n && j < m && g_str_equal (a[i], b[j]))
        add_line (raw, OW_DIFF_CONTEXT, a[i++], -1), j++;
      /* Removals before additions, as a unified diff shows them. */
      else if (i < n && (j >= m || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]))
        add_line (raw, OW_DIFF_REMOVED, a[i++], -1);
      else
        add_line (raw, OW_DIFF_ADDED, b[j++], -1);
    }
  /* Keep the changes with a little context around them. */
  {
    g_autofree gboolean *keep = g_new0 (gboolean, raw->len + 1);
    gboolean elided = FALSE;

    for (guint k = 0; k < raw->len; k++)
      if (((OwDiffLine *) g_ptr_array_index (raw, k))->kind != OW_DIFF_CONTEXT)
        for (guint c = k >= DIFF_CONTEXT ? k - DIFF_CONTEXT : 0; c <= k + DIFF_CONTEXT && c < raw->len; c++)
          keep[c] = TRUE;
    for (guint k = 0; k < raw->len; k++)
      {
        OwDiffLine *line = g_ptr_array_index (raw, k);
        if (!keep[k])
          {
            if (!elided)
              add_line (out, OW_DIFF_HEADER, "…", -1);
            elided = TRUE;
            continue;
          }
        elided = FALSE;
        add_line (out, line->kind, line->text, -1);
      }
  }
}

static void
colour_patch (GPtrArray *out, const char *patch)
{
  g_auto(GStrv) lines = split_lines (patch);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];
      if (g_str_has_prefix (l, "***") || g_str_has_prefix (l, "@@"))
        add_line (out, OW_DIFF_HEADER, l, -1);
      else if (l[0] == '+')
        add_line (out, OW_DIFF_ADDED, l + 1, -1);
      else if (l[0] == '-')
        add_line (out, OW_DIFF_REMOVED, l + 1, -1);
      else
        add_line (out, OW_DIFF_CONTEXT, l[0] == ' ' ? l + 1 : l, -1);
    }
}

/* @read_disk: compare write_file's content with the file as it is now
 * (the card, before the write); without it the content shows as added
 * (the step, after the write, when the file already holds it). */
static GPtrArray *
edit_diff (const char *tool, JsonObject *args, const char *workspace, guint max_lines, gboolean read_disk)
{
  g_autoptr(GPtrArray) out = NULL;
  const char *path = ow_json_get_string (args, "path");

  if (tool == NULL || args == NULL)
    return NULL;
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_diff_line_free);
  if (g_str_equal (tool, "write_file") && !read_disk)
    {
      g_auto(GStrv) lines = split_lines (ow_json_get_string (args, "content"));

      add_line (out, OW_DIFF_HEADER, path != NULL ? path : "", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        add_line (out, OW_DIFF_ADDED, lines[i], -1);
    }
  else if (g_str_equal (tool, "write_file"))
    {
      g_autofree char *full = NULL;
      g_autofree char *before = NULL;
      gsize len = 0;

      /* A relative path means nothing without the session's folder. */
      if (path != NULL && g_path_is_absolute (path))
        full = g_strdup (path);
      else if (path != NULL && workspace != NULL)
        full = g_build_filename (workspace, path, NULL);
      add_line (out, OW_DIFF_HEADER, path != NULL ? path : "", -1);
      /* Only a modest regular file is compared; anything else shows as new. */
      if (full != NULL && g_file_test (full, G_FILE_TEST_IS_REGULAR) && !g_file_test (full, G_FILE_TEST_IS_SYMLINK))
        {
          g_autoptr(GMappedFile) map = g_mapped_file_new (full, FALSE, NULL);
          len = map != NULL ? g_mapped_file_get_length (map) : 0;
          if (map != NULL && len <= 1024 * 1024)
            before = g_strndup (g_mapped_file_get_contents (map), len);
        }
      diff_texts (out, before != NULL ? before : "", ow_json_get_string (args, "content"));
    }
  else if (g_str_equal (tool, "replace_in_file"))
    {
      add_line (out, OW_DIFF_HEADER, path != NULL ? path : "", -1);
      diff_texts (out, ow_json_get_string (args, "old"), ow_json_get_string (args, "new"));
    }
  else if (g_str_equal (tool, "apply_patch"))
    colour_patch (out, ow_json_get_string (args, "patch"));
  else
    return NULL;

  if (max_lines > 0 && out->len > max_lines)
    {
      guint rest = out->len - max_lines;
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… and %u more line", "… and %u more lines", rest),
                                               rest);
      g_ptr_array_set_size (out, max_lines);
      add_line (out, OW_DIFF_HEADER, more, -1);
    }
  return g_steal_pointer (&out);
}

GPtrArray *
ow_format_edit_diff (const char *tool, JsonObject *args, const char *workspace, guint max_lines)
{
  return edit_diff (tool, args, workspace, max_lines, TRUE);
}

GPtrArray *
ow_format_step_change (const char *tool, JsonObject *args, guint max_lines)
{
  return edit_diff (tool, args, NULL, max_lines, FALSE);
}

/* ---- Approval cards ----------------------------------------------------- */

/* The last part of @path: the card's line and the diff name it whole. */
static const char *
display_name (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

char *
ow_format_approval_title (const char *tool, JsonObject *args, const char *workspace, const char *fallback)
{
  const char *path = ow_json_get_string (args, "path");

  if (g_strcmp0 (tool, "run_shell") == 0)
    return g_strdup (_("Run this command?"));
  if (g_strcmp0 (tool, "write_file") == 0)
    {
      g_autofree char *full = NULL;

      if (path != NULL && g_path_is_absolute (path))
        full = g_strdup (path);
      else if (path != NULL && workspace != NULL)
        full = g_build_filename (workspace, path, NULL);
      /* A file that is not there yet is made, not changed. */
      if (full != NULL && !g_file_test (full, G_FILE_TEST_EXISTS))
        /* TRANSLATORS: %s is a file's name */
        return g_strdup_printf (_("Create %s?"), display_name (path));
      if (path != NULL)
        /* TRANSLATORS: %s is a file's name */
        return g_strdup_printf (_("Change %s?"), display_name (path));
      return g_strdup (_("Change a file?"));
    }
  if (g_strcmp0 (tool, "replace_in_file") == 0)
    return path != NULL ? g_strdup_printf (_("Change %s?"), display_name (path)) : g_strdup (_("Change a file?"));
  if (g_strcmp0 (tool, "apply_patch") == 0)
    return g_strdup (_("Change files with a patch?"));
  if (g_strcmp0 (tool, "web_fetch") == 0)
    return g_strdup (_("Fetch a web page?"));
  if (g_strcmp0 (tool, "web_search") == 0)
    return g_strdup (_("Search the web?"));
  if (g_strcmp0 (tool, "request_directory") == 0)
    return g_strdup (_("Grant access to a folder?"));   /* as the folder card asks */
  if (g_strcmp0 (tool, "read_file") == 0)
    return g_strdup (_("Read a file?"));
  if (g_strcmp0 (tool, "list_files") == 0)
    return g_strdup (_("List a folder?"));
  if (g_strcmp0 (tool, "grep") == 0)
    return g_strdup (_("Search in files?"));
  if (fallback != NULL)
    return g_strdup (fallback);
  /* TRANSLATORS: %s is the name of a connector's tool */
  return g_strdup_printf (_("Use %s?"), tool != NULL ? tool : "?");
}

/* The host of @url, or NULL when it has none. */
static char *
url_host (const char *url)
{
  g_autoptr(GUri) uri = url != NULL ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;
  const char *host = uri != NULL ? g_uri_get_host (uri) : NULL;

  return host != NULL && *host != '\0' ? g_strdup (host) : NULL;
}

char *
ow_format_approval_subject (const char *tool, JsonObject *args)
{
  static const struct { const char *tool; const char *key; } subjects[] = {
    { "run_shell", "command" },
    { "write_file", "path" },
    { "replace_in_file", "path" },
    { "web_search", "query" },
    { "request_directory", "path" },
    { "read_file", "path" },
    { "list_files", "path" },
    { "grep", "pattern" },
  };

  if (g_strcmp0 (tool, "web_fetch") == 0)
    {
      const char *url = ow_json_get_string (args, "url");
      char *host = url_host (url);

      return host != NULL ? host : g_strdup (url);
    }
  for (guint i = 0; i < G_N_ELEMENTS (subjects); i++)
    if (g_strcmp0 (tool, subjects[i].tool) == 0)
      return g_strdup (ow_json_get_string (args, subjects[i].key));
  return NULL;
}

char *
ow_format_approval_copy_text (const char *tool, JsonObject *args)
{
  static const struct { const char *tool; const char *key; } copied[] = {
    { "run_shell", "command" },
    { "write_file", "content" },
    { "replace_in_file", "new" },
    { "apply_patch", "patch" },
    { "web_fetch", "url" },
    { "web_search", "query" },
    { "request_directory", "path" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (copied); i++)
    if (g_strcmp0 (tool, copied[i].tool) == 0)
      return g_strdup (ow_json_get_string (args, copied[i].key));
  return NULL;
}

/* ---- What guarded a step ------------------------------------------------ */

char *
ow_format_enforcement (const char *enforcement, gboolean command)
{
  if (enforcement == NULL || *enforcement == '\0')
    return NULL;
  /* A sandbox walls every tool; the command guard and the parser stand
   * only between commands and the files (file tools check their paths). */
  if (g_str_has_prefix (enforcement, "linux:"))
    return g_strdup (strstr (enforcement, "network open") != NULL
                     ? _("Enforced by the kernel sandbox, with the network open")
                     : _("Enforced by the kernel sandbox"));
  if (g_str_has_prefix (enforcement, "openshell"))
    return g_strdup (_("Enforced by the OpenShell container"));
  if (g_str_has_prefix (enforcement, "none (sandbox not started)"))
    return g_strdup (_("Not guarded: the sandbox had not started"));
  if (!command)
    return NULL;
  if (g_str_has_prefix (enforcement, "direct, guard"))
    return g_strdup (_("Enforced by the kernel’s command guard"));
  if (g_str_has_prefix (enforcement, "parser only") || g_str_equal (enforcement, "direct"))
    return g_strdup (_("Checked by the command parser"));
  if (g_str_has_prefix (enforcement, "none (direct"))
    return g_strdup (_("Not guarded: a safety check was approved, or approvals are bypassed"));
  return g_strdup (enforcement);
}
