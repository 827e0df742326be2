/* test-salvage.c: tool calls written as text (engine/providers/ow-tool-salvage.c).
 *
 * Every shape local models write, salvaged only for an offered tool and
 * never from inside code; each refusal beside a positive control that
 * differs only in what the rule looks at.
 */
#include "provider-test-util.h"

#include <string.h>

#include "providers/ow-tool-salvage.h"

static JsonArray *
offered (void)
{
  return json_array_ref (json_node_get_array (json_from_string (
    "[{\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"parameters\":{\"type\":\"object\","
    "\"properties\":{\"path\":{\"type\":\"string\"},\"max_lines\":{\"type\":\"integer\"}}}}},"
    " {\"type\":\"function\",\"function\":{\"name\":\"run_shell\",\"parameters\":{\"type\":\"object\","
    "\"properties\":{\"command\":{\"type\":\"string\"},\"run_in_background\":{\"type\":\"boolean\"}}}}}]",
    NULL)));
}

/* Salvages @text and checks the calls ("name args" each) and the rest. */
static void
check (const char *text, const char *const *expected, const char *expected_rest)
{
  g_autoptr(JsonArray) tools = offered ();
  g_autofree char *rest = NULL;
  g_autoptr(GPtrArray) calls = ow_tool_salvage (text, tools, &rest);
  guint n = expected != NULL ? g_strv_length ((char **) expected) : 0;

  g_test_message ("text: %s", text);
  if (n == 0)
    {
      g_assert_null (calls);
      return;
    }
  if (calls == NULL)
    g_error ("no call salvaged from: %s", text);
  g_assert_cmpuint (calls->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      OwToolCall *c = g_ptr_array_index (calls, i);
      g_autofree char *got = g_strconcat (c->name, " ", c->arguments, NULL);

      g_assert_cmpstr (got, ==, expected[i]);
      g_assert_nonnull (c->id);
    }
  g_assert_cmpstr (rest, ==, expected_rest);
}

#define CALLS(...) ((const char *const[]) { __VA_ARGS__, NULL })

static void
test_hermes (void)
{
  check ("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>",
         CALLS ("read_file {\"path\":\"a.txt\"}"), "");
  /* Several, with prose around; arguments as JSON text; no closing tag at the end. */
  check ("Reading both.\n<tool_call>{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"a\\\"}\"}</tool_call>\n"
         "<tool_call>{\"name\":\"run_shell\",\"arguments\":{\"command\":\"ls\"}}",
         CALLS ("read_file {\"path\":\"a\"}", "run_shell {\"command\":\"ls\"}"), "Reading both.");
}

static void
test_bare_object (void)
{
  check ("  {\"name\": \"run_shell\", \"parameters\": {\"command\": \"ls\"}}\n",
         CALLS ("run_shell {\"command\":\"ls\"}"), "");
  /* A JSON answer with other members is an answer, not a call. */
  check ("{\"name\": \"run_shell\", \"arguments\": {}, \"explanation\": \"x\"}", NULL, NULL);
  /* Not the whole reply: prose, then an object. */
  check ("Here: {\"name\": \"run_shell\", \"arguments\": {\"command\": \"ls\"}}", NULL, NULL);
}

static void
test_xml (void)
{
  check ("<tool_call>\n<function=read_file>\n<parameter=path>\nnotes.txt\n</parameter>\n"
         "<parameter=max_lines>\n20\n</parameter>\n</function>\n</tool_call>",
         CALLS ("read_file {\"path\":\"notes.txt\",\"max_lines\":20}"), "");
  /* Bare, and a string parameter stays a string even when it looks like a number. */
  check ("Running it.\n<function=run_shell><parameter=command>42</parameter>"
         "<parameter=run_in_background>true</parameter></function>",
         CALLS ("run_shell {\"command\":\"42\",\"run_in_background\":true}"), "Running it.");
}

static void
test_shorthand (void)
{
  check ("tool {\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}", CALLS ("read_file {\"path\":\"b\"}"), "");
  check ("tool: {\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}", CALLS ("read_file {\"path\":\"b\"}"), "");
  check ("run_shell {\"command\": \"pwd\"}", CALLS ("run_shell {\"command\": \"pwd\"}"), "");
}

static void
test_only_offered (void)
{
  /* Refused: a tool nobody offered. Control: the same shape, offered. */
  check ("<tool_call>{\"name\": \"delete_everything\", \"arguments\": {}}</tool_call>", NULL, NULL);
  check ("<function=delete_everything><parameter=x>1</parameter></function>", NULL, NULL);
  check ("delete_everything {\"x\": 1}", NULL, NULL);
  check ("{\"name\": \"delete_everything\", \"arguments\": {}}", NULL, NULL);
  check ("<tool_call>{\"name\": \"run_shell\", \"arguments\": {}}</tool_call>", CALLS ("run_shell {}"), "");
  /* No tools offered at all: nothing. */
  {
    g_autoptr(JsonArray) none = json_array_new ();
    g_assert_null (ow_tool_salvage ("<tool_call>{\"name\":\"run_shell\",\"arguments\":{}}</tool_call>", none, NULL));
    g_assert_null (ow_tool_salvage ("<tool_call>{\"name\":\"run_shell\",\"arguments\":{}}</tool_call>", NULL, NULL));
  }
}

static void
test_not_in_code (void)
{
  /* An example in a fenced block or an inline span is an example. */
  check ("To call a tool, write:\n```\n<tool_call>{\"name\": \"run_shell\", \"arguments\": {\"command\": \"ls\"}}"
         "</tool_call>\n```\nThat is all.", NULL, NULL);
  check ("~~~xml\n<function=run_shell><parameter=command>ls</parameter></function>\n~~~", NULL, NULL);
  check ("Write `<function=run_shell><parameter=command>ls</parameter></function>` to run ls.", NULL, NULL);
  check ("```json\n{\"name\": \"run_shell\", \"arguments\": {\"command\": \"ls\"}}\n```", NULL, NULL);
  check ("`run_shell {\"command\": \"ls\"}`", NULL, NULL);
  /* Control: after the block is closed, a real call is a call. */
  check ("Example:\n```\n<tool_call>{\"name\":\"run_shell\",\"arguments\":{\"command\":\"rm -rf x\"}}</tool_call>\n```\n"
         "<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}</tool_call>",
         CALLS ("read_file {\"path\":\"a\"}"),
         "Example:\n```\n<tool_call>{\"name\":\"run_shell\",\"arguments\":{\"command\":\"rm -rf x\"}}</tool_call>\n```");
}

static void
test_malformed (void)
{
  check ("<tool_call>{\"name\": \"run_shell\", \"arguments\": {\"command\": </tool_call>", NULL, NULL);
  check ("<function=run_shell><parameter=command>ls", NULL, NULL);
  check ("<function=><parameter=a>1</parameter></function>", NULL, NULL);
  check ("plain prose with a < sign and {braces}", NULL, NULL);
  check ("", NULL, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/ow/providers/salvage/hermes", test_hermes);
  g_test_add_func ("/ow/providers/salvage/bare-object", test_bare_object);
  g_test_add_func ("/ow/providers/salvage/xml", test_xml);
  g_test_add_func ("/ow/providers/salvage/shorthand", test_shorthand);
  g_test_add_func ("/ow/providers/salvage/only-offered", test_only_offered);
  g_test_add_func ("/ow/providers/salvage/not-in-code", test_not_in_code);
  g_test_add_func ("/ow/providers/salvage/malformed", test_malformed);
  return g_test_run ();
}
