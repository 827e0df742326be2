/* test-ui-format.c: the small pure functions the templates bind through. */
#include <string.h>

#include <glib/gstdio.h>

#include "ow-format.h"
#include "ow-json.h"
#include "ow-test-utils.h"

static void
test_modes_never_dangerous (void)
{
  const char *const *modes = ow_format_modes ();

  /* ask, auto-approve, bypass-approvals, plan, discuss. */
  g_assert_cmpuint (g_strv_length ((char **) modes), ==, 5);
  g_assert_false (g_strv_contains (modes, "dangerously-bypass-approvals"));
  g_assert_cmpstr (ow_format_mode_label ("ask"), ==, "Ask for approval");
  g_assert_cmpstr (ow_format_mode_label ("unknown"), ==, "unknown");
  g_assert_cmpstr (ow_format_coworker_label ("code"), ==, "Code");
  g_assert_cmpstr (ow_format_coworker_label (NULL), ==, "Cowork");
}

static void
test_session_title (void)
{
  g_autofree char *renamed = ow_format_session_title ("Mine", "Auto", TRUE, NULL);
  g_autofree char *auto_title = ow_format_session_title ("Stored", "Auto", FALSE, NULL);
  g_autofree char *stored = ow_format_session_title ("Stored", NULL, FALSE, "first");
  g_autofree char *first = ow_format_session_title (NULL, NULL, FALSE, "  \n  Write the launch note\nmore");
  g_autofree char *parts = ow_format_session_title (NULL, NULL, FALSE,
                                                    "[{\"type\":\"text\",\"text\":\"From parts\"},{\"type\":\"image_url\"}]");
  g_autofree char *nothing = ow_format_session_title (NULL, NULL, FALSE, NULL);
  g_autofree char *longer = ow_format_session_title (NULL, NULL, FALSE,
                                                     "ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé");

  g_assert_cmpstr (renamed, ==, "Mine");
  g_assert_cmpstr (auto_title, ==, "Auto");
  g_assert_cmpstr (stored, ==, "Stored");
  g_assert_cmpstr (first, ==, "Write the launch note");
  g_assert_cmpstr (parts, ==, "From parts");
  g_assert_cmpstr (nothing, ==, "New session");
  g_assert_cmpint (g_utf8_strlen (longer, -1), ==, 60);
}

static void
test_subtitle (void)
{
  g_autofree char *a = ow_format_session_subtitle ("code", "/home/me/project", FALSE);
  g_autofree char *b = ow_format_session_subtitle ("cowork", "/tmp/x", TRUE);

  g_assert_cmpstr (a, ==, "Code · project");
  g_assert_cmpstr (b, ==, "Cowork · Temporary folder");
}

static void
test_relative_time (void)
{
  g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
  g_autoptr(GDateTime) now = g_date_time_new (utc, 2025, 3, 12, 12, 0, 0);
  g_autofree char *just = ow_format_relative_time ("2025-03-12 11:59:30", now);
  g_autofree char *mins = ow_format_relative_time ("2025-03-12T11:55:00Z", now);
  g_autofree char *hours = ow_format_relative_time ("2025-03-12 09:00:00", now);
  g_autofree char *old = ow_format_relative_time ("2025-01-02 09:00:00", now);
  g_autofree char *bad = ow_format_relative_time ("yesterday-ish", now);

  g_assert_cmpstr (just, ==, "just now");
  g_assert_cmpstr (mins, ==, "5 min ago");
  g_assert_cmpstr (hours, ==, "3 h ago");
  g_assert_nonnull (strstr (old, "Jan"));
  g_assert_cmpstr (bad, ==, "");
}

static void
test_args_preview (void)
{
  g_autoptr(JsonObject) args = ow_json_object_from_string (
    "{\"command\":\"ls   -la\\n  /tmp\",\"timeout_seconds\":30,\"long\":\"" \
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}", -1, NULL);
  g_autofree char *out = ow_format_args_preview (args);
  g_autoptr(GString) many = g_string_new ("{");
  g_autoptr(JsonObject) big = NULL;
  g_autofree char *capped = NULL;

  g_assert_true (g_str_has_prefix (out, "command: ls -la /tmp · timeout_seconds: 30 · long: xxx"));
  g_assert_true (g_str_has_suffix (out, "…"));
  for (int i = 0; i < 20; i++)
    g_string_append_printf (many, "%s\"k%d\":\"%s\"", i > 0 ? "," : "", i, "value value value value value");
  g_string_append_c (many, '}');
  big = ow_json_object_from_string (many->str, -1, NULL);
  capped = ow_format_args_preview (big);
  g_assert_cmpint (g_utf8_strlen (capped, -1), <=, 240);
}

static void
test_tool_step (void)
{
  g_autoptr(JsonObject) shell = ow_json_object_from_string ("{\"command\":\"make test\"}", -1, NULL);
  g_autoptr(JsonObject) write = ow_json_object_from_string ("{\"path\":\"a.txt\",\"content\":\"x\"}", -1, NULL);
  g_autoptr(JsonObject) other = ow_json_object_from_string ("{\"q\":1}", -1, NULL);
  g_autofree char *v1 = NULL, *d1 = NULL, *v2 = NULL, *d2 = NULL, *v3 = NULL, *d3 = NULL, *v4 = NULL, *d4 = NULL;

  ow_format_tool_step ("run_shell", shell, "ok", &v1, &d1);
  ow_format_tool_step ("write_file", write, "ok", &v2, &d2);
  ow_format_tool_step ("mcp_thing", other, "running", &v3, &d3);
  ow_format_tool_step ("list_files", NULL, "ok", &v4, &d4);
  g_assert_cmpstr (v1, ==, "Ran");
  g_assert_cmpstr (d1, ==, "make test");
  g_assert_cmpstr (v2, ==, "Wrote");
  g_assert_cmpstr (d2, ==, "a.txt");
  g_assert_cmpstr (v3, ==, "mcp_thing");
  g_assert_cmpstr (d3, ==, "q: 1");
  g_assert_cmpstr (d4, ==, ".");
}

/* The verb follows the step: nothing said to have run before it ran, or
 * after it was denied. */
static void
test_tool_step_states (void)
{
  static const struct { const char *status, *verb; } shell[] = {
    { "proposed", "Waiting to run" }, { "waiting", "Waiting to run" }, { "running", "Running" },
    { "ok", "Ran" }, { "error", "Failed to run" }, { "denied", "Denied" }, { "interrupted", "Stopped" },
  };
  g_autoptr(JsonObject) args = ow_json_object_from_string ("{\"command\":\"rm -r build\"}", -1, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (shell); i++)
    {
      g_autofree char *verb = NULL, *detail = NULL;
      ow_format_tool_step ("run_shell", args, shell[i].status, &verb, &detail);
      g_assert_cmpstr (verb, ==, shell[i].verb);
      g_assert_cmpstr (detail, ==, "rm -r build");
    }
  {
    g_autofree char *verb = NULL, *detail = NULL;
    ow_format_tool_step ("write_file", NULL, "waiting", &verb, &detail);
    g_assert_cmpstr (verb, ==, "Waiting to write");
    g_clear_pointer (&verb, g_free);
    g_clear_pointer (&detail, g_free);
    ow_format_tool_step ("mcp_thing", NULL, "denied", &verb, &detail);
    g_assert_cmpstr (verb, ==, "Denied");
    g_assert_cmpstr (detail, ==, "mcp_thing");
  }
  {
    g_autofree char *zero = ow_format_exit_code (TRUE, 0);
    g_autofree char *two = ow_format_exit_code (TRUE, 2);
    g_autofree char *none = ow_format_exit_code (FALSE, 0);
    g_assert_cmpstr (zero, ==, "Exit code 0");
    g_assert_cmpstr (two, ==, "Exit code 2");
    g_assert_cmpstr (none, ==, "No exit code");
  }
}

/* Cards speak of what a call does, and see a command leave its folder. */
static void
test_plain_cards (void)
{
  static const struct { const char *command; const char *outside; } cases[] = {
    { "make test", NULL },
    { "cat src/a.c > build/out.txt", NULL },
    { "ls /tmp/ws/sub", NULL },
    { "echo hi > /dev/null", NULL },
    { "curl https://example.com/x", NULL },
    { "cat /etc/passwd", "/etc/passwd" },
    { "rm -r ../other", "../other" },
    { "cp a.txt ~/Desktop/", "~/Desktop/" },
    { "sort a 2>/var/log/x", "/var/log/x" },
    { "tar -cf out.tar --directory=/srv/data .", "/srv/data" },
  };

  g_assert_cmpstr (ow_format_risk_label ("exec"), ==, "Run a command");
  g_assert_cmpstr (ow_format_risk_label ("write_local"), ==, "Change a file");
  g_assert_cmpstr (ow_format_risk_label ("read"), ==, "Read files");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *outside = ow_format_command_outside (cases[i].command, "/tmp/ws");
      g_assert_cmpstr (outside, ==, cases[i].outside);
    }
  /* One name per mode, everywhere; read-only modes are offered too. */
  g_assert_cmpstr (ow_format_mode_label ("ask"), ==, "Ask for approval");
  g_assert_cmpstr (ow_format_mode_label ("discuss"), ==, "Discuss (read-only)");
  g_assert_true (g_strv_contains (ow_format_modes (), "plan"));
  g_assert_true (g_strv_contains (ow_format_modes (), "discuss"));
  g_assert_false (g_strv_contains (ow_format_modes (), "dangerously-bypass-approvals"));
}

static void
test_provenance (void)
{
  g_autofree char *a = ow_format_provenance ("user-approved always (standing rule #12 \"write_file:a.txt\")");
  g_autofree char *b = ow_format_provenance ("standing rule #3");
  g_autofree char *c = ow_format_provenance ("user-approved once");
  g_autofree char *d = ow_format_provenance ("something new");
  g_autofree char *e = ow_format_provenance (NULL);

  g_assert_cmpstr (a, ==, "You always allow this (standing rule #12)");
  g_assert_cmpstr (b, ==, "Allowed by standing rule #3");
  g_assert_cmpstr (c, ==, "You allowed it once");
  g_assert_cmpstr (d, ==, "something new");
  g_assert_cmpstr (e, ==, "");
}

static char *
diff_text (GPtrArray *lines)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < lines->len; i++)
    {
      OwDiffLine *l = g_ptr_array_index (lines, i);
      g_string_append_printf (out, "%c%s\n", "  +-#"[l->kind + 1], l->text);
    }
  return g_string_free (out, FALSE);
}

static void
test_edit_diff_replace (void)
{
  g_autoptr(JsonObject) args = ow_json_object_from_string (
    "{\"path\":\"src/a.c\",\"old\":\"one\\ntwo\\nthree\\n\",\"new\":\"one\\nTWO\\nthree\\nfour\\n\"}", -1, NULL);
  g_autoptr(GPtrArray) lines = ow_format_edit_diff ("replace_in_file", args, "/nowhere", 0);
  g_autofree char *text = diff_text (lines);

  g_assert_cmpstr (text, ==, "#src/a.c\n one\n-two\n+TWO\n three\n+four\n");
}

static void
test_edit_diff_write_existing (void)
{
  g_autofree char *dir = ow_test_make_tmpdir ("ow-diff");
  g_autofree char *file = g_build_filename (dir, "n.txt", NULL);
  g_autoptr(GString) before = g_string_new (NULL);
  g_autoptr(GString) after = g_string_new (NULL);
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(GPtrArray) lines = NULL;
  g_autofree char *text = NULL;

  for (int i = 1; i <= 20; i++)
    {
      g_string_append_printf (before, "line %d\n", i);
      g_string_append_printf (after, i == 10 ? "changed %d\n" : "line %d\n", i);
    }
  g_assert_true (g_file_set_contents (file, before->str, -1, NULL));
  json_object_set_string_member (args, "path", "n.txt");
  json_object_set_string_member (args, "content", after->str);
  lines = ow_format_edit_diff ("write_file", args, dir, 0);
  text = diff_text (lines);
  /* Three lines of context around the change, the rest elided. */
  g_assert_cmpstr (text, ==, "#n.txt\n#…\n line 7\n line 8\n line 9\n-line 10\n+changed 10\n line 11\n line 12\n line 13\n#…\n");
  g_unlink (file);
  g_rmdir (dir);
}

static void
test_edit_diff_new_file_and_cap (void)
{
  g_autoptr(JsonObject) args = ow_json_object_from_string ("{\"path\":\"/nonexistent/x\",\"content\":\"a\\nb\\nc\\nd\\n\"}",
                                                           -1, NULL);
  g_autoptr(GPtrArray) lines = ow_format_edit_diff ("write_file", args, NULL, 3);
  g_autofree char *text = diff_text (lines);

  g_assert_cmpstr (text, ==, "#/nonexistent/x\n+a\n+b\n#… and 2 more lines\n");
}

static void
test_edit_diff_patch_and_others (void)
{
  g_autoptr(JsonObject) args = ow_json_object_from_string (
    "{\"patch\":\"*** Begin Patch\\n*** Update File: a\\n@@\\n-x\\n+y\\n z\\n*** End Patch\"}", -1, NULL);
  g_autoptr(GPtrArray) lines = ow_format_edit_diff ("apply_patch", args, NULL, 0);
  g_autofree char *text = diff_text (lines);
  g_autoptr(JsonObject) shell = ow_json_object_from_string ("{\"command\":\"ls\"}", -1, NULL);

  g_assert_cmpstr (text, ==, "#*** Begin Patch\n#*** Update File: a\n#@@\n-x\n+y\n z\n#*** End Patch\n");
  g_assert_null (ow_format_edit_diff ("run_shell", shell, NULL, 0));
}

/* Cards in plain words, whatever the tool: the title says what will
 * happen, the line says to what, Copy takes the whole of it. */
static void
test_approval_words (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ow-format-XXXXXX", NULL);
  g_autofree char *there = g_build_filename (dir, "there.txt", NULL);
  static const struct { const char *tool; const char *args; const char *title; const char *subject;
                        const char *copy; } cases[] = {
    { "run_shell", "{\"command\":\"make test\"}", "Run this command?", "make test", "make test" },
    { "write_file", "{\"path\":\"new.txt\",\"content\":\"hi\\n\"}", "Create new.txt?", "new.txt", "hi\n" },
    { "write_file", "{\"path\":\"there.txt\",\"content\":\"hi\"}", "Change there.txt?", "there.txt", "hi" },
    { "replace_in_file", "{\"path\":\"src/a.c\",\"old\":\"x\",\"new\":\"y\"}", "Change a.c?", "src/a.c", "y" },
    { "replace_in_file", "{\"old\":\"x\",\"new\":\"y\"}", "Change a file?", NULL, "y" },
    { "apply_patch", "{\"patch\":\"*** Begin Patch\"}", "Change files with a patch?", NULL, "*** Begin Patch" },
    { "web_fetch", "{\"url\":\"https://docs.example.org/a/b?c=1\"}", "Fetch a web page?", "docs.example.org",
      "https://docs.example.org/a/b?c=1" },
    { "web_fetch", "{\"url\":\"not a url\"}", "Fetch a web page?", "not a url", "not a url" },
    { "web_search", "{\"query\":\"gtk 4.8 list view\"}", "Search the web?", "gtk 4.8 list view",
      "gtk 4.8 list view" },
    { "request_directory", "{\"path\":\"~/Reports\"}", "Grant access to a folder?", "~/Reports", "~/Reports" },
    { "slack_post", "{\"text\":\"hi\"}", "Use slack_post?", NULL, NULL },
  };

  g_assert_true (g_file_set_contents (there, "old", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) args = ow_json_object_from_string (cases[i].args, -1, NULL);
      g_autofree char *title = ow_format_approval_title (cases[i].tool, args, dir, NULL);
      g_autofree char *subject = ow_format_approval_subject (cases[i].tool, args);
      g_autofree char *copy = ow_format_approval_copy_text (cases[i].tool, args);

      g_assert_cmpstr (title, ==, cases[i].title);
      g_assert_cmpstr (subject, ==, cases[i].subject);
      g_assert_cmpstr (copy, ==, cases[i].copy);
    }
  {
    g_autofree char *named = ow_format_approval_title ("slack_post", NULL, NULL, "Post to #general?");
    g_assert_cmpstr (named, ==, "Post to #general?");
  }
  g_unlink (there);
  g_rmdir (dir);
}

static void
test_enforcement_words (void)
{
  static const struct { const char *raw; gboolean command; const char *shown; } cases[] = {
    { "linux: namespaces+landlock(abi 7)+seccomp", FALSE, "Enforced by the kernel sandbox" },
    { "linux: namespaces+landlock(abi 7)+seccomp, network open", TRUE,
      "Enforced by the kernel sandbox, with the network open" },
    { "openshell 0.1.x: container, landlock (hard requirement), seccomp; network: 2 allowed sites in the policy",
      FALSE, "Enforced by the OpenShell container" },
    { "parser only (direct; the command guard is unavailable: no landlock)", TRUE, "Checked by the command parser" },
    { "parser only (direct; the command guard is unavailable: no landlock)", FALSE, NULL },
    { "direct", TRUE, "Checked by the command parser" },
    { "direct, guard (mount namespace, Landlock ABI 7, seccomp)", TRUE, "Enforced by the kernel’s command guard" },
    { "direct, guard (mount namespace, Landlock ABI 7, seccomp)", FALSE, NULL },
    { "none (direct; the command guard is lifted for this call: …)", TRUE,
      "Not guarded: a safety check was approved, or approvals are bypassed" },
    { "none (sandbox not started)", FALSE, "Not guarded: the sandbox had not started" },
    { "", TRUE, NULL },
    { NULL, TRUE, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *shown = ow_format_enforcement (cases[i].raw, cases[i].command);
      g_assert_cmpstr (shown, ==, cases[i].shown);
    }
}

/* A finished step's write_file change never reads the disk: a relative
 * path means nothing there, and the file already holds the content. */
static void
test_step_change (void)
{
  g_autoptr(JsonObject) args = ow_json_object_from_string ("{\"path\":\"/etc/hostname\",\"content\":\"a\\nb\\n\"}",
                                                           -1, NULL);
  g_autoptr(GPtrArray) lines = ow_format_step_change ("write_file", args, 2);
  g_autofree char *text = diff_text (lines);

  g_assert_cmpstr (text, ==, "#/etc/hostname\n+a\n#… and 1 more line\n");
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_setenv ("TZ", "UTC", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/ui/format/modes", test_modes_never_dangerous);
  g_test_add_func ("/ow/ui/format/session-title", test_session_title);
  g_test_add_func ("/ow/ui/format/subtitle", test_subtitle);
  g_test_add_func ("/ow/ui/format/relative-time", test_relative_time);
  g_test_add_func ("/ow/ui/format/args-preview", test_args_preview);
  g_test_add_func ("/ow/ui/format/tool-step", test_tool_step);
  g_test_add_func ("/ow/ui/format/tool-step-states", test_tool_step_states);
  g_test_add_func ("/ow/ui/format/plain-cards", test_plain_cards);
  g_test_add_func ("/ow/ui/format/provenance", test_provenance);
  g_test_add_func ("/ow/ui/format/diff/replace", test_edit_diff_replace);
  g_test_add_func ("/ow/ui/format/diff/write-existing", test_edit_diff_write_existing);
  g_test_add_func ("/ow/ui/format/diff/new-file-and-cap", test_edit_diff_new_file_and_cap);
  g_test_add_func ("/ow/ui/format/diff/patch-and-others", test_edit_diff_patch_and_others);
  g_test_add_func ("/ow/ui/format/diff/step-change", test_step_change);
  g_test_add_func ("/ow/ui/format/approval-words", test_approval_words);
  g_test_add_func ("/ow/ui/format/enforcement-words", test_enforcement_words);
  return g_test_run ();
}
