/* test-session-title.c: titles from a model's reply, and the word-boundary
 * cut the fallback title uses. */
#include "core/ow-message.h"
#include "core/ow-session-title.h"

static void
test_from_reply (void)
{
  const struct {
    const char *reply;
    const char *title;   /* NULL: no title */
  } table[] = {
    { "Quarterly Sales Report Draft", "Quarterly Sales Report Draft" },
    { "  \"Quarterly   Sales\nReport Draft.\" \n", "Quarterly Sales Report Draft" },
    { "“Fix the login bug”", "Fix the login bug" },
    { "**Plan a Lisbon trip**", "Plan a Lisbon trip" },
    { "small-talk", NULL },
    { "Small talk.", NULL },
    { "\"small-talk\"", NULL },
    { "", NULL },
    { "   ", NULL },
    /* more than 80 characters is not a title */
    { "This reply goes on and on about the conversation instead of giving a short title as asked", NULL },
    /* up to 80 is kept, cut to 60 at a word */
    { "Review the authentication middleware and session handling for vulnerabilities",
      "Review the authentication middleware and session handling…" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_autofree char *got = ow_session_title_from_reply (table[i].reply);
      if (g_strcmp0 (got, table[i].title) != 0)
        g_error ("\"%s\" → \"%s\", want \"%s\"", table[i].reply, got, table[i].title);
    }
}

static void
test_cut_at_word (void)
{
  g_autofree char *a = ow_text_cut_at_word ("short enough", 60);
  g_autofree char *b = ow_text_cut_at_word ("Please look at the failing tests in the parser module and fix them", 40);
  g_autofree char *c = ow_text_cut_at_word ("Supercalifragilisticexpialidociousnessandmore", 20);
  g_autofree char *d = ow_text_cut_at_word ("Fix the parser, then the lexer", 17);
  g_autofree char *line = ow_message_content_first_line ("Draft the quarterly report for the board with all the "
                                                          "regional numbers\nsecond line", 60);

  g_assert_cmpstr (a, ==, "short enough");
  g_assert_cmpstr (b, ==, "Please look at the failing tests in the…");
  g_assert_cmpuint (g_utf8_strlen (b, -1), <=, 40);
  g_assert_cmpstr (c, ==, "Supercalifragilisti…");   /* one word: cut inside it */
  g_assert_cmpstr (d, ==, "Fix the parser…");
  g_assert_cmpstr (line, ==, "Draft the quarterly report for the board with all the…");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ow/engine/session-title/from-reply", test_from_reply);
  g_test_add_func ("/ow/engine/session-title/cut-at-word", test_cut_at_word);
  return g_test_run ();
}
