/* test-server-guard.c: the front door's rules and the request parsers,
 * one rule at a time. */
#include <string.h>

#include "server/ow-chat-request.h"
#include "server/ow-server-guard.h"
#include "server/ow-ws-frame.h"

static const char *TOKEN = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static void
test_token (void)
{
  g_autofree char *a = ow_server_token_new ();
  g_autofree char *b = ow_server_token_new ();

  g_assert_cmpuint (strlen (a), ==, 64);
  g_assert_cmpstr (a, !=, b);
  for (const char *p = a; *p != '\0'; p++)
    g_assert_true (g_ascii_isxdigit (*p) && !g_ascii_isupper (*p));

  g_assert_true (ow_server_token_equal (TOKEN, TOKEN));
  g_assert_false (ow_server_token_equal (TOKEN, NULL));
  g_assert_false (ow_server_token_equal (TOKEN, ""));
  g_assert_false (ow_server_token_equal (NULL, TOKEN));
  g_assert_false (ow_server_token_equal ("", ""));
  /* One character off anywhere, a prefix, an extension. */
  {
    g_autofree char *t = g_strdup (TOKEN);
    t[63] = '0';
    g_assert_false (ow_server_token_equal (TOKEN, t));
    t[63] = 'f';
    t[0] = '1';
    g_assert_false (ow_server_token_equal (TOKEN, t));
  }
  {
    g_autofree char *prefix = g_strndup (TOKEN, 63);
    g_autofree char *longer = g_strconcat (TOKEN, "0", NULL);
    g_assert_false (ow_server_token_equal (TOKEN, prefix));
    g_assert_false (ow_server_token_equal (TOKEN, longer));
  }
}

static void
test_bearer (void)
{
  gsize len = 0;
  const char *t;

  t = ow_server_bearer_token ("Bearer abc", &len);
  g_assert_nonnull (t);
  g_assert_cmpuint (len, ==, 3);
  g_assert_cmpint (strncmp (t, "abc", len), ==, 0);
  t = ow_server_bearer_token ("  bearer   abc  ", &len);
  g_assert_nonnull (t);
  g_assert_cmpuint (len, ==, 3);
  g_assert_null (ow_server_bearer_token ("Bearer", &len));
  g_assert_null (ow_server_bearer_token ("Bearer   ", &len));
  g_assert_null (ow_server_bearer_token ("Basic abc", &len));
  g_assert_null (ow_server_bearer_token ("Bearerabc", &len));
  g_assert_null (ow_server_bearer_token (NULL, &len));
}

static void
test_host (void)
{
  static const char *const ok[] = { "127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765", "[::1]:8765",
                                    "127.1.2.3:8765", NULL };
  static const char *const refused[] = {
    "evil.com:8765", "evil.com", "127.0.0.1", "localhost", "127.0.0.1:8766", "127.0.0.1:08765",
    "localhost.:8765", "localhost.evil.com:8765", "127.0.0.1.evil.com:8765", "0.0.0.0:8765",
    "10.0.0.1:8765", "[::2]:8765", "[::1]", "[::1]x:8765", "127.0.0.1:", "127.0.0.1:8765x",
    "127.00.0.1:8765", "127.0.0.256:8765", "127.0.0:8765", "1.127.0.0.1:8765", "", "127.0.0.1:99999",
    "user@127.0.0.1:8765", NULL
  };

  for (guint i = 0; ok[i] != NULL; i++)
    g_assert_true (ow_server_host_allowed (ok[i], 8765));
  for (guint i = 0; refused[i] != NULL; i++)
    {
      if (ow_server_host_allowed (refused[i], 8765))
        g_error ("Host %s was allowed", refused[i]);
    }
  g_assert_false (ow_server_host_allowed (NULL, 8765));
  /* No port only on port 80. */
  g_assert_true (ow_server_host_allowed ("localhost", 80));
  g_assert_true (ow_server_host_allowed ("127.0.0.1:80", 80));
}

static void
test_origin (void)
{
  static const char *const ok[] = { "http://localhost", "http://localhost:5173", "https://localhost:8765",
                                    "http://127.0.0.1:8765", "https://127.0.0.1", "http://[::1]:8765",
                                    "tauri://localhost", "http://tauri.localhost", "https://tauri.localhost",
                                    "HTTP://LOCALHOST:3000", NULL };
  static const char *const refused[] = {
    "null", "http://evil.com", "http://localhost.evil.com", "http://127.0.0.1.nip.io",
    "http://localhost:8765/", "http://localhost:", "http://localhost:abc", "file://", "ws://localhost",
    "http://evil.com#http://localhost", "https://localhost@evil.com", "tauri://evil", "http://10.0.0.1",
    "http://localhost:0", "", "http://127.0.0.1:8765 ", NULL
  };
  const char *extra[] = { "app://openworker", NULL };

  for (guint i = 0; ok[i] != NULL; i++)
    if (!ow_server_origin_allowed (ok[i], NULL))
      g_error ("Origin %s was refused", ok[i]);
  for (guint i = 0; refused[i] != NULL; i++)
    if (ow_server_origin_allowed (refused[i], NULL))
      g_error ("Origin %s was allowed", refused[i]);
  g_assert_false (ow_server_origin_allowed ("app://openworker", NULL));
  g_assert_true (ow_server_origin_allowed ("app://openworker", extra));
  g_assert_false (ow_server_origin_allowed ("app://openworker.evil", extra));
}

static void
test_ws_protocol (void)
{
  g_autofree char *offer = g_strdup_printf ("openworker, %s", TOKEN);
  g_autofree char *tight = g_strdup_printf ("openworker,%s", TOKEN);
  g_autofree char *reversed = g_strdup_printf ("%s, openworker", TOKEN);

  g_assert_true (ow_server_ws_protocol_ok (offer, TOKEN));
  g_assert_true (ow_server_ws_protocol_ok (tight, TOKEN));
  g_assert_false (ow_server_ws_protocol_ok (reversed, TOKEN));
  g_assert_false (ow_server_ws_protocol_ok ("openworker", TOKEN));
  g_assert_false (ow_server_ws_protocol_ok ("openworker, wrong", TOKEN));
  g_assert_false (ow_server_ws_protocol_ok (NULL, TOKEN));
  g_assert_false (ow_server_ws_protocol_ok (TOKEN, TOKEN));
}

static void
test_session_id (void)
{
  g_assert_true (ow_server_session_id_valid ("abc123"));
  g_assert_true (ow_server_session_id_valid ("a.b_c-d"));
  g_assert_false (ow_server_session_id_valid (""));
  g_assert_false (ow_server_session_id_valid (".hidden"));
  g_assert_false (ow_server_session_id_valid ("__task__x"));
  g_assert_false (ow_server_session_id_valid ("../x"));
  g_assert_false (ow_server_session_id_valid ("a/b"));
  g_assert_false (ow_server_session_id_valid ("a b"));
  g_assert_false (ow_server_session_id_valid ("0123456789012345678901234567890123456789012345678901234567890123456789"));
}

/* ---- WebSocket client frames --------------------------------------------- */

static OwClientFrame *
frame (const char *text, char **why)
{
  return ow_client_frame_parse (text, strlen (text), why);
}

static void
expect_rejected (const char *text, const char *contains)
{
  g_autofree char *why = NULL;
  g_autoptr(OwClientFrame) f = frame (text, &why);

  if (f != NULL)
    g_error ("frame was accepted: %s", text);
  g_assert_nonnull (why);
  if (contains != NULL && strstr (why, contains) == NULL)
    g_error ("\"%s\" does not say \"%s\"", why, contains);
}

static void
test_frames (void)
{
  g_autofree char *why = NULL;
  g_autoptr(OwClientFrame) f = NULL;

  f = frame ("{\"type\":\"user_message\",\"text\":\"hi\"}", &why);
  g_assert_nonnull (f);
  g_assert_cmpint (f->type, ==, OW_FRAME_USER_MESSAGE);
  g_assert_cmpstr (f->text, ==, "hi");
  g_assert_null (f->attachments);
  g_clear_pointer (&f, ow_client_frame_free);

  f = frame ("{\"type\":\"approval\",\"decision\":\"always_tool\",\"call_id\":\"c1\"}", &why);
  g_assert_nonnull (f);
  g_assert_cmpint (f->type, ==, OW_FRAME_APPROVAL);
  g_assert_cmpstr (f->call_id, ==, "c1");
  g_assert_cmpstr (json_object_get_string_member (f->answer, "decision"), ==, "always_tool");
  g_clear_pointer (&f, ow_client_frame_free);

  f = frame ("{\"type\":\"directory_response\",\"granted\":true,\"path\":\"/tmp\",\"writable\":false}", &why);
  g_assert_nonnull (f);
  g_assert_true (json_object_get_boolean_member (f->answer, "granted"));
  g_assert_false (json_object_get_boolean_member (f->answer, "writable"));
  g_clear_pointer (&f, ow_client_frame_free);

  f = frame ("{\"type\":\"set_mode\",\"mode\":\"plan\"}", &why);
  g_assert_nonnull (f);
  g_assert_cmpstr (f->mode, ==, "plan");
  g_clear_pointer (&f, ow_client_frame_free);

  f = frame ("{\"type\":\"user_message\",\"text\":\"\",\"attachments\":[{\"kind\":\"text\",\"name\":\"a.txt\","
             "\"text\":\"body\"}]}", &why);
  g_assert_nonnull (f);
  g_assert_cmpuint (json_array_get_length (f->attachments), ==, 1);
  g_clear_pointer (&f, ow_client_frame_free);

  expect_rejected ("[]", "JSON object");
  expect_rejected ("\"x\"", "JSON object");
  expect_rejected ("{", "JSON object");
  expect_rejected ("{\"text\":\"hi\"}", "type");
  expect_rejected ("{\"type\":7}", "type");
  expect_rejected ("{\"type\":\"launch_missiles\"}", "Unknown");
  expect_rejected ("{\"type\":\"user_message\"}", "empty");
  expect_rejected ("{\"type\":\"user_message\",\"text\":5}", NULL);
  expect_rejected ("{\"type\":\"user_message\",\"text\":\"a\",\"attachments\":{}}", "list");
  expect_rejected ("{\"type\":\"approval\",\"decision\":\"sudo\"}", "decision");
  expect_rejected ("{\"type\":\"approval\"}", "decision");
  expect_rejected ("{\"type\":\"set_mode\"}", "mode");
  expect_rejected ("{\"type\":\"set_model\",\"model\":\"\"}", "model");
  expect_rejected ("{\"type\":\"question_response\"}", "answer");
  expect_rejected ("{\"type\":\"directory_response\",\"granted\":\"yes\"}", "true or false");
  /* Attachments: kind, shape, count. */
  expect_rejected ("{\"type\":\"user_message\",\"text\":\"a\",\"attachments\":[{\"kind\":\"exe\"}]}", "kind");
  expect_rejected ("{\"type\":\"user_message\",\"text\":\"a\",\"attachments\":[{\"kind\":\"image\","
                   "\"data_url\":\"http://evil/x.png\"}]}", "image");
  expect_rejected ("{\"type\":\"user_message\",\"text\":\"a\",\"attachments\":[{\"kind\":\"image\","
                   "\"data_url\":\"data:image/png,notbase64\"}]}", "image");
  expect_rejected ("{\"type\":\"user_message\",\"text\":\"a\",\"attachments\":[{\"kind\":\"pdf\","
                   "\"data_url\":\"data:image/png;base64,AAAA\"}]}", "PDF");
  expect_rejected ("{\"type\":\"user_message\",\"text\":\"a\",\"attachments\":[7]}", "object");
  {
    GString *many = g_string_new ("{\"type\":\"user_message\",\"text\":\"a\",\"attachments\":[");
    for (int i = 0; i < 9; i++)
      g_string_append_printf (many, "%s{\"kind\":\"text\",\"text\":\"x\"}", i > 0 ? "," : "");
    g_string_append (many, "]}");
    expect_rejected (many->str, "At most 8");
    g_string_free (many, TRUE);
  }
  /* Length limits count characters: 200,000 three-byte characters pass,
   * 200,001 do not. */
  {
    GString *text = g_string_new ("{\"type\":\"user_message\",\"text\":\"");
    for (int i = 0; i < OW_WS_MAX_TEXT_CHARS; i++)
      g_string_append (text, "€");
    g_string_append (text, "\"}");
    g_clear_pointer (&why, g_free);
    f = frame (text->str, &why);
    g_assert_nonnull (f);
    g_clear_pointer (&f, ow_client_frame_free);
    g_string_insert (text, 31, "€");
    expect_rejected (text->str, "too long");
    g_string_free (text, TRUE);
  }
  {
    GString *deep = g_string_new ("{\"type\":\"user_message\",\"text\":\"a\",\"x\":");
    for (int i = 0; i < 10000; i++)
      g_string_append_c (deep, '[');
    expect_rejected (deep->str, "deep");
    g_string_free (deep, TRUE);
  }
}

/* ---- Chat completion requests ------------------------------------------- */

static void
expect_chat_refused (const char *body, const char *contains)
{
  g_autofree char *why = NULL;
  g_autoptr(OwChatRequest) r = ow_chat_request_parse (body, strlen (body), &why);

  if (r != NULL)
    g_error ("request was accepted: %s", body);
  if (contains != NULL && strstr (why, contains) == NULL)
    g_error ("\"%s\" does not say \"%s\"", why, contains);
}

static void
test_chat_request (void)
{
  const char *body = "{\"model\":\"openai:gpt-4o\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                     "\"max_tokens\":50,\"temperature\":0.5,"
                     "\"messages\":[{\"role\":\"developer\",\"content\":\"be brief\"},"
                     "{\"role\":\"user\",\"content\":\"hi\",\"_anthropic\":{\"x\":1}},"
                     "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                     "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
                     "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"ok\"}],"
                     "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{\"type\":\"object\"}}}]}";
  g_autofree char *why = NULL;
  g_autoptr(OwChatRequest) r = ow_chat_request_parse (body, strlen (body), &why);
  JsonObject *m;

  g_assert_nonnull (r);
  g_assert_cmpstr (r->model, ==, "openai:gpt-4o");
  g_assert_true (r->stream);
  g_assert_true (r->include_usage);
  g_assert_cmpint (r->max_tokens, ==, 50);
  g_assert_cmpfloat (r->temperature, ==, 0.5);
  g_assert_cmpuint (json_array_get_length (r->messages), ==, 4);
  m = json_array_get_object_element (r->messages, 0);
  g_assert_cmpstr (json_object_get_string_member (m, "role"), ==, "system");
  m = json_array_get_object_element (r->messages, 1);
  g_assert_false (json_object_has_member (m, "_anthropic"));
  g_assert_cmpuint (json_array_get_length (r->tools), ==, 1);

  expect_chat_refused ("", "JSON object");
  expect_chat_refused ("[]", "JSON object");
  expect_chat_refused ("{}", "messages");
  expect_chat_refused ("{\"messages\":[]}", "messages");
  expect_chat_refused ("{\"messages\":[{\"role\":\"root\",\"content\":\"x\"}]}", "role");
  expect_chat_refused ("{\"messages\":[{\"role\":\"user\",\"content\":5}]}", "content");
  expect_chat_refused ("{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}", "tool_call_id");
  expect_chat_refused ("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"temperature\":9}", "temperature");
  expect_chat_refused ("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"n\":2}", "n = 1");
  expect_chat_refused ("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":\"yes\"}", "stream");
  expect_chat_refused ("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":[{\"function\":{}}]}",
                       "tools[0]");
  expect_chat_refused ("{\"model\":7,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", "model");
  expect_chat_refused ("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"reasoning_effort\":\"ultra\"}",
                       "reasoning_effort");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/server/guard/token", test_token);
  g_test_add_func ("/ow/server/guard/bearer", test_bearer);
  g_test_add_func ("/ow/server/guard/host", test_host);
  g_test_add_func ("/ow/server/guard/origin", test_origin);
  g_test_add_func ("/ow/server/guard/ws-protocol", test_ws_protocol);
  g_test_add_func ("/ow/server/guard/session-id", test_session_id);
  g_test_add_func ("/ow/server/frames/parse", test_frames);
  g_test_add_func ("/ow/server/chat-request/parse", test_chat_request);
  return g_test_run ();
}
