/* test-store.c: sessions, messages, events and settings on disk. */
#include <glib/gstdio.h>

#include "core/ow-message.h"
#include "core/ow-session.h"
#include "ow-error.h"
#include "ow-redact.h"
#include "ow-secret-env.h"
#include "ow-test-utils.h"
#include "store/ow-audit-log.h"
#include "store/ow-config.h"
#include "store/ow-model-config.h"
#include "store/ow-paths.h"
#include "store/ow-store.h"

typedef struct {
  char *dir;
  char *db;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->dir = ow_test_make_tmpdir ("ow-store");
  f->db = g_build_filename (f->dir, "openworker.db", NULL);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", f->dir);
  g_assert_cmpint (system (cmd), ==, 0);
  g_free (f->dir);
  g_free (f->db);
}

static void
on_event_count_cb (OwSession *session, OwEvent *event, gpointer user_data)
{
  GPtrArray *seen = user_data;
  g_ptr_array_add (seen, ow_event_copy (event));
}

static void
test_session_roundtrip (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwStore) store = ow_store_open (f->db, &error);
  g_autoptr(OwSession) session = NULL;
  g_autoptr(OwSession) again = NULL;
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_event_free);
  g_autofree char *id = NULL;
  OwSessionSpec spec = { .workspace = f->dir, .model = "openai:gpt-4o", .mode = "ask", .coworker = "code" };
  JsonObject *msg;

  g_assert_no_error (error);
  session = ow_session_new (store, &spec, &error);
  g_assert_no_error (error);
  id = g_strdup (ow_session_get_id (session));
  g_assert_cmpuint (strlen (id), ==, 12);
  g_signal_connect (session, "event", G_CALLBACK (on_event_count_cb), seen);

  msg = ow_message_json_user ("hello");
  g_assert_true (ow_session_append_message (session, msg, &error));
  json_object_unref (msg);
  msg = ow_message_json_tool ("call_1", "{\"ok\":true}");
  g_assert_true (ow_session_append_message (session, msg, &error));
  json_object_unref (msg);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (session)), ==, 2);

  g_assert_true (ow_session_emit (session, "turn_start", NULL, &error));
  g_assert_true (ow_session_emit (session, "turn_end", NULL, &error));
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_cmpint (((OwEvent *) g_ptr_array_index (seen, 0))->seq, ==, 1);
  g_assert_cmpint (((OwEvent *) g_ptr_array_index (seen, 1))->seq, ==, 2);
  g_assert_true (ow_session_add_tool_grant (session, "write_file", &error));
  g_assert_true (ow_session_add_command_grant (session, "make test", &error));
  g_clear_object (&session);

  /* Reopen: everything acknowledged is there. */
  again = ow_session_load (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ow_session_get_coworker (again), ==, "code");
  g_assert_cmpstr (ow_session_get_model (again), ==, "openai:gpt-4o");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (again)), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (ow_session_get_message_json (again, 1), "tool_call_id"), ==, "call_1");
  g_assert_cmpint (ow_session_get_last_seq (again), ==, 2);
  g_assert_true (ow_session_has_tool_grant (again, "write_file"));
  g_assert_false (ow_session_has_tool_grant (again, "run_shell"));
  g_assert_true (ow_session_has_command_grant (again, "make test"));
  g_assert_false (ow_session_has_command_grant (again, "make test; rm -rf /"));
  /* Sequence numbers continue after a reload. */
  g_assert_true (ow_session_emit (again, "turn_start", NULL, &error));
  g_assert_cmpint (ow_session_get_last_seq (again), ==, 3);
}

static void
collect_types_cb (gint64 seq, gint64 ts, const char *type, const char *data, gpointer user_data)
{
  g_string_append_printf (user_data, "%" G_GINT64_FORMAT ":%s ", seq, type);
}

static void
test_events_since (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwStore) store = ow_store_open (f->db, &error);
  OwSessionSpec spec = { .model = "openai:gpt-4o" };
  g_autoptr(OwSession) session = ow_session_new (store, &spec, &error);
  g_autoptr(GString) s = g_string_new (NULL);
  const char *types[] = { "turn_start", "assistant_delta", "assistant_message", "turn_end" };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    g_assert_true (ow_session_emit (session, types[i], NULL, &error));
  g_assert_true (ow_store_event_foreach_since (store, ow_session_get_id (session), 2, collect_types_cb, s, &error));
  g_assert_cmpstr (s->str, ==, "3:assistant_message 4:turn_end ");
}

static void
test_append_fails_cleanly (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwStore) store = ow_store_open (f->db, &error);
  OwSessionSpec spec = { .model = "openai:gpt-4o" };
  g_autoptr(OwSession) session = ow_session_new (store, &spec, &error);
  JsonObject *msg = ow_message_json_user ("one");

  g_assert_true (ow_session_append_message (session, msg, &error));
  /* Another writer took index 1 behind the session's back: the append must
   * fail with an error and leave the history as it was. */
  g_assert_true (ow_store_message_append (store, ow_session_get_id (session), 1, "{}", &error));
  g_assert_false (ow_session_append_message (session, msg, &error));
  g_assert_error (error, OW_STORE_ERROR, OW_STORE_ERROR_FAILED);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (session)), ==, 1);
  json_object_unref (msg);
}

static void
test_config_layers (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *machine = g_build_filename (f->dir, "config.toml", NULL);
  g_autofree char *project = g_build_filename (f->dir, "project.toml", NULL);
  g_autoptr(OwConfig) config = NULL;
  g_auto(GStrv) deny = NULL;
  gint64 n = 0;

  g_assert_true (g_file_set_contents (machine,
    "model = \"anthropic:claude-sonnet-4-5\"\n"
    "approval_mode = \"bypass-approvals\"\n"
    "max_iterations = 50\n"
    "[policy]\n"
    "deny = [\"run_shell:rm -rf /\"]\n"
    "[providers.openai]\n"
    "base_url = \"http://127.0.0.1:9/v1\"\n", -1, &error));
  g_assert_true (g_file_set_contents (project,
    "model = \"openai:gpt-4o\"\n"
    "approval_mode = \"dangerously-bypass-approvals\"\n"
    "max_iterations = 20\n"
    "sandbox_provider = \"direct\"\n"
    "[policy]\n"
    "deny = [\"write_file:/etc/*\"]\n"
    "allow = [\"run_shell:curl\"]\n", -1, &error));
  config = ow_config_load (machine, project, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ow_config_get_string (config, "model"), ==, "openai:gpt-4o");
  /* A project can narrow, never widen. */
  g_assert_cmpstr (ow_config_get_string (config, "approval_mode"), ==, "bypass-approvals");
  g_assert_true (ow_config_get_int (config, "max_iterations", &n));
  g_assert_cmpint (n, ==, 20);
  deny = ow_config_get_strv (config, "policy.deny");
  g_assert_cmpuint (g_strv_length (deny), ==, 1);
  g_assert_cmpstr (deny[0], ==, "run_shell:rm -rf /");
  g_assert_cmpuint (g_strv_length ((char **) ow_config_get_project_deny (config)), ==, 1);
  g_assert_cmpstr (ow_config_get_project_deny (config)[0], ==, "write_file:/etc/*");
  g_assert_null (ow_config_get_strv (config, "policy.allow"));
  g_assert_true (g_strv_contains (ow_config_get_ignored_project_keys (config), "approval_mode"));
  g_assert_true (g_strv_contains (ow_config_get_ignored_project_keys (config), "policy.allow"));
  g_assert_true (g_strv_contains (ow_config_get_ignored_project_keys (config), "sandbox_provider"));
  g_assert_cmpstr (ow_config_get_string (config, "providers.openai.base_url"), ==, "http://127.0.0.1:9/v1");
}

static void
test_config_errors (Fixture *f, gconstpointer data)
{
  const struct {
    const char *text;
    const char *expect;
  } cases[] = {
    { "approval_mode = \"yolo\"\n", "approval_mode must be one of" },
    { "max_iterations = 0\n", "max_iterations must be at least 1" },
    { "model = 3\n", "model must be a string" },
    { "[providers.openai]\napi_key = \"sk-abc\"\n", "not read from a file" },
    { "model = \"a\"\nmodel = \"b\"\n", "not valid TOML" },
    { "sandbox_provider = \"docker\"\n", "sandbox_provider must be one of" },
  };
  g_autofree char *path = g_build_filename (f->dir, "bad.toml", NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(OwConfig) config = NULL;
      g_assert_true (g_file_set_contents (path, cases[i].text, -1, NULL));
      config = ow_config_load (path, NULL, &error);
      g_assert_null (config);
      g_assert_nonnull (error);
      if (strstr (error->message, cases[i].expect) == NULL)
        g_error ("case %zu: \"%s\" does not mention \"%s\"", i, error->message, cases[i].expect);
      g_assert_nonnull (strstr (error->message, path));
    }
}

static void
test_config_missing_file (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "absent.toml", NULL);
  g_autoptr(OwConfig) config = ow_config_load (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_null (ow_config_get_string (config, "model"));
}

/* One rule for every surface: the request, else the config, else ask. */
static void
test_approval_mode_effective (Fixture *f, gconstpointer data)
{
  g_autofree char *machine = g_build_filename (f->dir, "machine.toml", NULL);
  g_autofree char *project = g_build_filename (f->dir, "project.toml", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwConfig) config = NULL;
  g_autoptr(OwConfig) narrowed = NULL;
  g_autoptr(OwConfig) empty = ow_config_new_empty ();

  g_assert_true (g_file_set_contents (machine, "approval_mode = \"bypass-approvals\"\n", -1, NULL));
  g_assert_true (g_file_set_contents (project, "approval_mode = \"ask\"\n", -1, NULL));
  config = ow_config_load (machine, NULL, &error);
  g_assert_no_error (error);
  narrowed = ow_config_load (machine, project, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (ow_approval_mode_effective (NULL, config), ==, "bypass-approvals");
  g_assert_cmpstr (ow_approval_mode_effective ("plan", config), ==, "plan");
  g_assert_cmpstr (ow_approval_mode_effective ("interactive", config), ==, "ask");
  g_assert_cmpstr (ow_approval_mode_effective (NULL, narrowed), ==, "ask");
  g_assert_cmpstr (ow_approval_mode_effective (NULL, empty), ==, "ask");
  g_assert_cmpstr (ow_approval_mode_effective (NULL, NULL), ==, "ask");
  g_assert_null (ow_approval_mode_effective ("yolo", config));
}

/* A message's first line, for titles: text that is itself a JSON array of
 * anything but parts is read as text, without a critical. */
static void
test_first_line_of_odd_content (void)
{
  g_autofree char *parts = ow_message_content_first_line ("[{\"type\":\"text\",\"text\":\"hello\\nmore\"}]", 60);
  g_autofree char *numbers = ow_message_content_first_line ("[1, \"two\", null, []]", 60);

  g_assert_cmpstr (parts, ==, "hello");
  g_assert_null (numbers);
}

static void
test_audit_sanitizes (Fixture *f, gconstpointer data)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autofree char *text = NULL;
  g_autofree char *long_value = g_strnfill (900, 'x');

  json_object_set_string_member (args, "path", "notes.txt");
  json_object_set_string_member (args, "content", "the whole secret document");
  json_object_set_string_member (args, "api_key", "sk-live-1234567890abcdef");
  json_object_set_string_member (args, "command", "curl -H 'Authorization: Bearer abcdefghijklmnop' x");
  json_object_set_string_member (args, "note", long_value);
  text = ow_audit_sanitize_args (args);
  g_assert_nonnull (strstr (text, "\"path\":\"notes.txt\""));
  g_assert_nonnull (strstr (text, "\"content\":\"[redacted body]\""));
  g_assert_nonnull (strstr (text, "\"api_key\":\"[redacted]\""));
  g_assert_null (strstr (text, "abcdefghijklmnop"));
  g_assert_null (strstr (text, "secret document"));
  g_assert_nonnull (strstr (text, "..."));
  g_assert_cmpuint (strlen (text), <, 700);
}

static void
test_audit_export (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "audit.db", NULL);
  g_autofree char *out = g_build_filename (f->dir, "export.db", NULL);
  g_autoptr(OwAuditLog) log = ow_audit_log_open (path, &error);
  OwAuditEntry a = { .session_id = "s1", .tool = "run_shell", .stage = "proposed" };
  OwAuditEntry b = { .session_id = "s2", .tool = "read_file", .stage = "proposed" };
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  g_assert_no_error (error);
  g_assert_true (ow_audit_log_append (log, &a, &error));
  g_assert_true (ow_audit_log_append (log, &b, &error));
  a.stage = "finished";
  a.status = "ok";
  g_assert_true (ow_audit_log_append (log, &a, &error));
  g_assert_true (ow_audit_log_export_session (log, "s1", out, &error));
  g_assert_no_error (error);

  g_assert_cmpint (sqlite3_open (out, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT count(*), group_concat(stage) FROM audit_events", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int (stmt, 0), ==, 2);
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 1), ==, "proposed,finished");
  sqlite3_finalize (stmt);
  sqlite3_close (db);
}

static void
test_model_config (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "cfg", "model_config.json", NULL);
  g_autoptr(OwModelConfig) config = ow_model_config_load (path, &error);
  g_autoptr(OwModelConfig) again = NULL;
  g_autoptr(JsonObject) values = json_object_new ();
  g_autoptr(JsonObject) other = json_object_new ();
  g_autoptr(JsonObject) bad = json_object_new ();
  g_auto(OwModelSettings) s = { 0 };

  g_assert_no_error (error);
  g_assert_null (ow_model_config_default_model (config));
  json_object_set_int_member (values, "context_size", 65536);
  json_object_set_double_member (values, "temperature", 0.6);
  json_object_set_boolean_member (values, "thinking", FALSE);
  json_object_set_boolean_member (values, "default", TRUE);
  g_assert_true (ow_model_config_set (config, "ollama:qwen3:8b", values, &error));
  json_object_set_boolean_member (other, "default", TRUE);
  json_object_set_string_member (other, "reasoning_effort", "high");
  g_assert_true (ow_model_config_set (config, "openai:gpt-4o", other, &error));

  /* Saved, reloaded, and only one default. */
  again = ow_model_config_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ow_model_config_default_model (again), ==, "openai:gpt-4o");
  g_assert_true (ow_model_config_lookup (again, "ollama:qwen3:8b", &s));
  g_assert_cmpint (s.context_size, ==, 65536);
  g_assert_cmpfloat (s.temperature, ==, 0.6);
  g_assert_cmpint (s.thinking, ==, 0);
  g_assert_false (s.is_default);
  ow_model_settings_clear (&s);
  g_assert_false (ow_model_config_lookup (again, "anthropic:claude-x", &s));
  g_assert_cmpint (s.thinking, ==, -1);

  /* A null removes one setting; remove drops the model. */
  json_object_set_null_member (values, "temperature");
  json_object_remove_member (values, "default");
  g_assert_true (ow_model_config_set (again, "ollama:qwen3:8b", values, &error));
  g_assert_true (ow_model_config_lookup (again, "ollama:qwen3:8b", &s));
  g_assert_cmpfloat (s.temperature, <, 0);
  ow_model_settings_clear (&s);
  g_assert_true (ow_model_config_remove (again, "ollama:qwen3:8b", &error));
  g_assert_false (ow_model_config_lookup (again, "ollama:qwen3:8b", &s));

  /* Bad values are refused with the setting named. */
  json_object_set_double_member (bad, "compaction_threshold_pct", 0.99);
  g_assert_false (ow_model_config_set (again, "openai:gpt-4o", bad, &error));
  g_assert_nonnull (strstr (error->message, "compaction_threshold_pct must be"));
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (path, "{\"m\": {\"default\": true}, \"n\": {\"default\": true}}", -1, NULL));
  g_assert_null (ow_model_config_load (path, &error));
  g_assert_nonnull (strstr (error->message, "only one may be"));
}

static void
test_redact (void)
{
  const struct {
    const char *in;
    const char *must_not;
  } cases[] = {
    { "Authorization: Bearer sk-proj-abcdefghijklmnopqrstuvwx", "abcdefghij" },
    { "x-api-key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "abcdefghij" },
    { "https://generativelanguage.googleapis.com/v1beta/models?key=AIzaSyA1234567890abcdefghijkl", "AIzaSy" },
    { "token xoxb-1234567890-abcdefghij", "1234567890-abc" },
    { "{\"api_key\":\"plain-secret-value\"}", "plain-secret" },
    { "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnop" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = ow_redact (cases[i].in);
      if (strstr (out, cases[i].must_not) != NULL || strstr (out, "[redacted]") == NULL)
        g_error ("case %zu: %s → %s", i, cases[i].in, out);
    }
  ow_redact_register_secret ("registered-secret-42");
  {
    g_autofree char *out = ow_redact ("the value registered-secret-42 appears");
    g_assert_cmpstr (out, ==, "the value [redacted] appears");
  }
  {
    g_autofree char *out = ow_redact ("nothing secret in this line");
    g_assert_cmpstr (out, ==, "nothing secret in this line");
  }
}

/* @prefix, then @value as `od -tx1` or `xxd -p` prints it. */
static char *
hex_of (const char *prefix, const char *value)
{
  GString *hex = g_string_new (prefix);

  for (const char *p = value; *p != '\0'; p++)
    g_string_append_printf (hex, "%02x", (guchar) *p);
  return g_string_free (hex, FALSE);
}

/* @text with @value inside, base64-encoded at @align bytes into the input
 * (standard or URL-safe), as a program would print it. Returns the encoding
 * and sets @inner to a stretch of it only @value's own bits decide. */
static char *
encode_at (const char *value, gsize align, gboolean url_safe, char **inner)
{
  g_autofree char *input = g_strdup_printf ("%.*s%s tail", (int) align, "ab", value);
  char *encoded = g_base64_encode ((const guchar *) input, strlen (input));

  if (url_safe)
    {
      g_strdelimit (encoded, "+", '-');
      g_strdelimit (encoded, "/", '_');
    }
  *inner = g_strndup (encoded + 4, 8);
  return encoded;
}

static void
test_redact_encodings (void)
{
  /* '>' and '?' runs make base64 print '+' and '/', where the two
   * alphabets differ. */
  const char *secret = "enc>>>???_secret-0042";
  const char *escaped_upper = "p%40ss%2Fword%3A-4242";
  const char *escaped_lower = "p%40ss%2fword%3a-4242";

  ow_redact_register_secret (secret);
  ow_redact_register_secret ("p@ss/word:-4242");
  for (gsize align = 0; align < 3; align++)
    for (int url_safe = 0; url_safe < 2; url_safe++)
      {
        g_autofree char *inner = NULL;
        g_autofree char *encoded = encode_at (secret, align, url_safe, &inner);
        g_autofree char *line = g_strdup_printf ("before %s after", encoded);
        g_autofree char *out = ow_redact (line);

        if (strstr (out, inner) != NULL || strstr (out, "[redacted]") == NULL
            || !g_str_has_prefix (out, "before ") || !g_str_has_suffix (out, " after"))
          g_error ("alignment %zu%s: %s → %s", align, url_safe ? " (URL-safe)" : "", line, out);
      }
  {
    g_autofree char *hex = hex_of ("dump: ", secret);
    g_autofree char *upper = g_ascii_strup (hex, -1);
    g_autofree char *out_lower = ow_redact (hex);
    g_autofree char *out_upper = ow_redact (upper);

    g_assert_cmpstr (out_lower, ==, "dump: [redacted]");
    g_assert_cmpstr (out_upper, ==, "DUMP: [redacted]");
  }
  {
    g_autofree char *upper = g_strdup_printf ("GET /login?pw=%s&next=1", escaped_upper);
    g_autofree char *lower = g_strdup_printf ("GET /login?pw=%s&next=1", escaped_lower);
    g_autofree char *out_upper = ow_redact (upper);
    g_autofree char *out_lower = ow_redact (lower);

    g_assert_cmpstr (out_upper, ==, "GET /login?pw=[redacted]&next=1");
    g_assert_cmpstr (out_lower, ==, "GET /login?pw=[redacted]&next=1");
  }
  /* Control: encodings of text that is not registered pass untouched. */
  {
    g_autofree char *b64 = g_base64_encode ((const guchar *) "just ordinary words", 19);
    g_autofree char *out = ow_redact (b64);

    g_assert_cmpstr (out, ==, b64);
  }
}

static void
test_redact_url_userinfo (void)
{
  const struct {
    const char *in;
    const char *out;
  } cases[] = {
    { "POST http://user:pass@127.0.0.1:8000/v1/chat/completions",
      "POST http://[redacted]@127.0.0.1:8000/v1/chat/completions" },
    { "\"url\":\"https://me:p@ss@proxy.example:3128\"", "\"url\":\"https://[redacted]@proxy.example:3128\"" },
    /* Controls: a user name alone, a port, no userinfo at all. */
    { "git clone ssh://git@github.com/o/r", "git clone ssh://git@github.com/o/r" },
    { "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1" },
    { "see https://example.org/a:b@c", "see https://example.org/a:b@c" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = ow_redact (cases[i].in);
      g_assert_cmpstr (out, ==, cases[i].out);
    }
}

/* Feeds @pieces through a stream; returns what it let out, in order, and
 * fails when one piece let out more than the start of the secret. */
static char *
stream_through (const char *const *pieces, const char *must_not)
{
  g_autoptr(OwRedactStream) stream = ow_redact_stream_new ();
  GString *all = g_string_new (NULL);
  g_autofree char *rest = NULL;

  for (guint i = 0; pieces[i] != NULL; i++)
    {
      g_autofree char *ready = ow_redact_stream_feed (stream, pieces[i], strlen (pieces[i]));

      if (must_not != NULL && strstr (ready, must_not) != NULL)
        g_error ("piece %u let out \"%s\"", i, ready);
      g_string_append (all, ready);
    }
  rest = ow_redact_stream_flush (stream);
  g_string_append (all, rest);
  return g_string_free (all, FALSE);
}

static void
test_redact_stream (void)
{
  ow_redact_register_secret ("stream-secret-0123456789");
  {
    const char *pieces[] = { "hello stream-sec", "ret-01234", "56789 world", NULL };
    g_autofree char *out = stream_through (pieces, "stream-s");
    g_assert_cmpstr (out, ==, "hello [redacted] world");
  }
  {
    /* Split inside its hex form. */
    g_autofree char *hex = hex_of ("x=", "stream-secret-0123456789");
    g_autofree char *head = g_strndup (hex, 12);
    const char *pieces[] = { head, hex + 12, " done", NULL };
    g_autofree char *out = stream_through (pieces, "73747265616d");

    g_assert_cmpstr (out, ==, "x=[redacted] done");
  }
  {
    /* Controls: a start that turns into an ordinary word is let out whole,
     * and text with no start of a secret is let out at once. */
    const char *pieces[] = { "a str", "ange stream", " of words", NULL };
    g_autofree char *out = stream_through (pieces, NULL);
    g_autoptr(OwRedactStream) stream = ow_redact_stream_new ();
    g_autofree char *ready = ow_redact_stream_feed (stream, "plain words ", 12);
    g_autofree char *rest = ow_redact_stream_flush (stream);

    g_assert_cmpstr (out, ==, "a strange stream of words");
    g_assert_cmpstr (ready, ==, "plain words ");
    g_assert_cmpstr (rest, ==, "");
  }
}

static void
test_secret_env_capture (void)
{
  g_autofree char *out = NULL;

  g_setenv ("OW_TEST_CAPTURED_API_KEY", "captured-key-value-99", TRUE);
  g_setenv ("OW_TEST_LEFT_ALONE", "left-alone-value-99", TRUE);
  g_setenv ("HTTPS_PROXY", "http://proxyuser:proxy-pass-777@127.0.0.1:3128", TRUE);
  ow_secret_env_capture ((const char *const[]) { "OW_TEST_CAPTURED_API_KEY", "OW_TEST_NEVER_SET", NULL });

  /* Gone from the environment, still there for the engine, redacted. */
  g_assert_null (g_getenv ("OW_TEST_CAPTURED_API_KEY"));
  g_assert_cmpstr (ow_secret_env_get ("OW_TEST_CAPTURED_API_KEY"), ==, "captured-key-value-99");
  g_assert_null (ow_secret_env_get ("OW_TEST_NEVER_SET"));
  out = ow_redact ("k=captured-key-value-99 p=proxy-pass-777 o=left-alone-value-99");
  g_assert_cmpstr (out, ==, "k=[redacted] p=[redacted] o=left-alone-value-99");
  /* The proxy keeps its credentials: a person's proxy needs them. */
  g_assert_cmpstr (g_getenv ("HTTPS_PROXY"), ==, "http://proxyuser:proxy-pass-777@127.0.0.1:3128");
  g_assert_cmpstr (ow_secret_env_get ("OW_TEST_LEFT_ALONE"), ==, "left-alone-value-99");
  g_unsetenv ("HTTPS_PROXY");
}

static void
test_secret_env_allow_list (void)
{
  const char *const env[] = {
    "PATH=/usr/bin", "HOME=/home/p", "LANG=C.UTF-8", "LC_TIME=C", "TZ=UTC", "TMPDIR=/tmp",
    "https_proxy=http://u:pw@proxy:3128", "NO_PROXY=localhost", "TERM=xterm",
    "DATABASE_URL=postgres://app:db-pass-1@db/app", "DB_PASS=hunter22", "GH_PAT=ghp_notreal",
    "OPENAI_BASE_URL=http://user:pass@127.0.0.1:8000/v1", "OPENAI_API_KEY=sk-x", "DISPLAY=:0",
    "MY_TOOL_HOME=/opt/tool", "MYCO_REGION=eu", "MYCO_ZONE=b", NULL,
  };
  g_auto(GStrv) plain = NULL;
  g_auto(GStrv) extra = NULL;

  ow_secret_env_set_allowed (NULL);
  plain = ow_secret_env_filter (env);
  for (const char *const *n = (const char *const[]) { "PATH", "HOME", "LANG", "LC_TIME", "TZ", "TMPDIR",
                                                      "https_proxy", "NO_PROXY", "TERM", NULL }; *n != NULL; n++)
    g_assert_nonnull (g_environ_getenv (plain, *n));
  for (const char *const *n = (const char *const[]) { "DATABASE_URL", "DB_PASS", "GH_PAT", "OPENAI_BASE_URL",
                                                      "OPENAI_API_KEY", "DISPLAY", "MY_TOOL_HOME", "MYCO_REGION",
                                                      NULL }; *n != NULL; n++)
    g_assert_null (g_environ_getenv (plain, *n));

  ow_secret_env_set_allowed ((const char *const[]) { "MY_TOOL_HOME", "MYCO_*", NULL });
  extra = ow_secret_env_filter (env);
  g_assert_cmpstr (g_environ_getenv (extra, "MY_TOOL_HOME"), ==, "/opt/tool");
  g_assert_cmpstr (g_environ_getenv (extra, "MYCO_REGION"), ==, "eu");
  g_assert_cmpstr (g_environ_getenv (extra, "MYCO_ZONE"), ==, "b");
  g_assert_null (g_environ_getenv (extra, "DATABASE_URL"));
  ow_secret_env_set_allowed (NULL);
}

/* Several processes opening a brand-new database at once (a run and
 * `openworker inbox list`) must each end up with the whole schema: the
 * migrations are taken under the write lock, once. */
static gpointer
open_db_thread (gpointer path)
{
  g_autoptr(GError) error = NULL;
  OwStore *store = ow_store_open (path, &error);

  g_assert_no_error (error);
  ow_store_free (store);
  return NULL;
}

static void
test_concurrent_first_open (Fixture *f, gconstpointer data)
{
  /* A race is timing-dependent: try several fresh files. */
  for (guint round = 0; round < 6; round++)
    {
      g_autofree char *name = g_strdup_printf ("race-%u.db", round);
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      GThread *threads[12];
      g_autoptr(GError) error = NULL;
      OwStore *store;

      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        threads[i] = g_thread_new ("open", open_db_thread, path);
      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        g_thread_join (threads[i]);
      store = ow_store_open (path, &error);
      g_assert_no_error (error);
      g_assert_true (ow_store_touch_workspace (store, "/tmp", &error));
      ow_store_free (store);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add ("/ow/engine/store/session-roundtrip", Fixture, NULL, fixture_setup, test_session_roundtrip, fixture_teardown);
  g_test_add ("/ow/engine/store/concurrent-first-open", Fixture, NULL, fixture_setup, test_concurrent_first_open, fixture_teardown);
  g_test_add ("/ow/engine/store/events-since", Fixture, NULL, fixture_setup, test_events_since, fixture_teardown);
  g_test_add ("/ow/engine/store/append-fails-cleanly", Fixture, NULL, fixture_setup, test_append_fails_cleanly, fixture_teardown);
  g_test_add ("/ow/engine/config/layers", Fixture, NULL, fixture_setup, test_config_layers, fixture_teardown);
  g_test_add ("/ow/engine/config/errors", Fixture, NULL, fixture_setup, test_config_errors, fixture_teardown);
  g_test_add ("/ow/engine/config/missing-file", Fixture, NULL, fixture_setup, test_config_missing_file, fixture_teardown);
  g_test_add ("/ow/engine/audit/sanitizes", Fixture, NULL, fixture_setup, test_audit_sanitizes, fixture_teardown);
  g_test_add ("/ow/engine/audit/export", Fixture, NULL, fixture_setup, test_audit_export, fixture_teardown);
  g_test_add ("/ow/engine/model-config", Fixture, NULL, fixture_setup, test_model_config, fixture_teardown);
  g_test_add ("/ow/engine/config/approval-mode", Fixture, NULL, fixture_setup, test_approval_mode_effective,
              fixture_teardown);
  g_test_add_func ("/ow/engine/message/first-line-of-odd-content", test_first_line_of_odd_content);
  g_test_add_func ("/ow/engine/redact", test_redact);
  g_test_add_func ("/ow/engine/redact/encodings", test_redact_encodings);
  g_test_add_func ("/ow/engine/redact/url-userinfo", test_redact_url_userinfo);
  g_test_add_func ("/ow/engine/redact/stream", test_redact_stream);
  g_test_add_func ("/ow/engine/secret-env/capture", test_secret_env_capture);
  g_test_add_func ("/ow/engine/secret-env/allow-list", test_secret_env_allow_list);
  return g_test_run ();
}
