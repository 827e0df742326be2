/* ow-session-title.c: a short title for a session (see ow-session-title.h). */
#include "core/ow-session-title.h"

#include <string.h>

#include "core/ow-message.h"

const char *const ow_session_title_prompt =
  "You title chat sessions. Read the opening of a conversation between a person and an AI coworker and reply "
  "with ONLY a 4-5 word title that names the task, in the language of the conversation: no quotes, no final "
  "punctuation, no explanation. If the opening is merely a greeting or small talk with no task yet, reply with "
  "exactly: small-talk";

JsonArray *
ow_session_title_messages (const char *const *openers)
{
  JsonArray *messages = json_array_new ();
  JsonObject *system = json_object_new ();
  g_autofree char *joined = g_strjoinv ("\n\n", (char **) openers);

  json_object_set_string_member (system, "role", "system");
  json_object_set_string_member (system, "content", ow_session_title_prompt);
  json_array_add_object_element (messages, system);
  json_array_add_object_element (messages, ow_message_json_user (joined));
  return messages;
}

char *
ow_session_title_from_reply (const char *reply)
{
  g_autoptr(GString) flat = g_string_new (NULL);
  g_autofree char *valid = NULL;
  g_autofree char *sentinel = NULL;
  const char *p;

  if (reply == NULL)
    return NULL;
  valid = g_utf8_make_valid (reply, -1);
  /* Whitespace collapsed to single spaces. */
  for (p = valid; *p != '\0'; p++)
    {
      if (g_ascii_isspace (*p))
        {
          if (flat->len > 0 && flat->str[flat->len - 1] != ' ')
            g_string_append_c (flat, ' ');
        }
      else
        g_string_append_c (flat, *p);
    }
  g_strchomp (flat->str);
  flat->len = strlen (flat->str);
  /* Quotes around it (straight or typographic), and a final period. */
  for (;;)
    {
      static const char *const quotes[] = { "\"", "'", "`", "“", "”", "‘", "’", "«", "»", "*", NULL };
      gboolean stripped = FALSE;

      for (guint i = 0; quotes[i] != NULL; i++)
        {
          gsize n = strlen (quotes[i]);
          if (flat->len >= n && strncmp (flat->str, quotes[i], n) == 0)
            {
              g_string_erase (flat, 0, n);
              stripped = TRUE;
            }
          if (flat->len >= n && strcmp (flat->str + flat->len - n, quotes[i]) == 0)
            {
              g_string_truncate (flat, flat->len - n);
              stripped = TRUE;
            }
        }
      if (flat->len > 0 && flat->str[flat->len - 1] == '.')
        {
          g_string_truncate (flat, flat->len - 1);
          stripped = TRUE;
        }
      g_strstrip (flat->str);
      flat->len = strlen (flat->str);
      if (!stripped)
        break;
    }
  sentinel = g_utf8_strdown (flat->str, -1);
  g_strdelimit (sentinel, "_ ", '-');
  if (flat->len == 0 || g_str_equal (sentinel, "small-talk") || g_str_has_prefix (sentinel, "small-talk")
      || g_utf8_strlen (flat->str, -1) > OW_SESSION_TITLE_MAX_REPLY)
    return NULL;
  return ow_text_cut_at_word (flat->str, OW_SESSION_TITLE_MAX_CHARS);
}
