/* ow-redact.c: credential redaction (see ow-redact.h). */
#define G_LOG_DOMAIN "ow-redact"

#include "ow-redact.h"

#include <string.h>

static GMutex secrets_lock;
static GPtrArray *secrets; /* char*, longest first so overlapping values redact fully */

static int
compare_longest_first (gconstpointer a, gconstpointer b)
{
  const char *sa = *(const char * const *) a;
  const char *sb = *(const char * const *) b;
  size_t la = strlen (sa), lb = strlen (sb);
  return (la < lb) - (la > lb);
}

void
ow_redact_register_secret (const char *value)
{
  if (value == NULL || strlen (value) < 8)
    return;
  g_mutex_lock (&secrets_lock);
  if (secrets == NULL)
    secrets = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < secrets->len; i++)
    if (g_str_equal (g_ptr_array_index (secrets, i), value))
      {
        g_mutex_unlock (&secrets_lock);
        return;
      }
  g_ptr_array_add (secrets, g_strdup (value));
  g_ptr_array_sort (secrets, compare_longest_first);
  g_mutex_unlock (&secrets_lock);
}

static GRegex *
credential_shapes (void)
{
  static GRegex *regex;

  if (g_once_init_enter (&regex))
    {
      /* Each alternative keeps its label (group 1) and drops the value. */
      const char *pattern =
        "((?:Bearer|Basic|Token)\\s+)[A-Za-z0-9._~+/=-]{8,}"
        "|((?:x-api-key|x-goog-api-key|api[_-]?key|X-OpenWorker-Token)[\"']?\\s*[:=]\\s*[\"']?)[^\\s\"'&,}]{6,}"
        "|([?&]key=)[^&\\s\"']+"
        "|()\\bsk-(?:ant-|or-|proj-)?[A-Za-z0-9_-]{12,}"
        "|()\\bAIza[0-9A-Za-z_-]{20,}"
        "|()\\bxox[abposr]-[A-Za-z0-9-]{8,}"
        "|()\\bgh[pousr]_[A-Za-z0-9]{20,}";
      GRegex *r = g_regex_new (pattern, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL);
      g_assert (r != NULL);
      g_once_init_leave (&regex, r);
    }
  return regex;
}

static gboolean
replace_shape_cb (const GMatchInfo *info, GString *out, gpointer user_data)
{
  /* Exactly one label group matched; keep its text. */
  for (int g = 1; g <= 7; g++)
    {
      int start = -1, end = -1;
      if (g_match_info_fetch_pos (info, g, &start, &end) && start >= 0)
        {
          g_autofree char *label = g_match_info_fetch (info, g);
          g_string_append (out, label);
          break;
        }
    }
  g_string_append (out, "[redacted]");
  return FALSE;
}

char *
ow_redact (const char *text)
{
  if (text == NULL)
    return NULL;

  g_autoptr(GString) s = g_string_new (text);

  g_mutex_lock (&secrets_lock);
  for (guint i = 0; secrets != NULL && i < secrets->len; i++)
    g_string_replace (s, g_ptr_array_index (secrets, i), "[redacted]", 0);
  g_mutex_unlock (&secrets_lock);

  char *shaped = g_regex_replace_eval (credential_shapes (), s->str, (gssize) s->len, 0, 0,
                                       replace_shape_cb, NULL, NULL);
  return shaped != NULL ? shaped : g_strdup (s->str);
}

gboolean
ow_env_name_is_secret (const char *name)
{
  static const char *const markers[] = {
    "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "COOKIE",
  };
  g_autofree char *upper = g_ascii_strup (name, -1);

  for (gsize i = 0; i < G_N_ELEMENTS (markers); i++)
    if (strstr (upper, markers[i]) != NULL)
      return TRUE;
  return FALSE;
}
