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

/* The shapes of common credentials, found by a hand-written scanner rather
 * than a regular expression: every line written to a record passes here,
 * and a scan that rejects most characters on their first byte costs far
 * less than a regex engine (and keeps PCRE out of the process).
 *
 * Labelled values keep their label and lose the value:
 *   Bearer|Basic|Token <8+ token chars>
 *   x-api-key|x-goog-api-key|api_key|api-key|apikey|x-openworker-token ["']? [:=] ["']? <6+ value chars>
 *   ?key=<value> / &key=<value>
 * Self-identifying tokens are removed whole:
 *   sk-…(12+), sk-ant-…, sk-or-…, sk-proj-…, AIza…(20+), xox[abposr]-…(8+), gh[pousr]_…(20+) */

static gboolean
is_word (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

static gboolean
is_token_char (char c)
{
  return g_ascii_isalnum (c) || strchr ("._~+/=-", c) != NULL;
}

static gboolean
is_value_char (char c)
{
  return c != '\0' && !g_ascii_isspace (c) && strchr ("\"'&,}", c) == NULL;
}

/* Length of the run of characters at @p accepted by @accept. */
static gsize
run_of (const char *p, gboolean (*accept) (char))
{
  gsize n = 0;
  while (p[n] != '\0' && accept (p[n]))
    n++;
  return n;
}

static gboolean
is_id_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '-';
}

static gboolean
is_alnum (char c)
{
  return g_ascii_isalnum (c);
}

/* Whether a labelled secret starts at @p: returns the label's length (kept)
 * and sets @value_len; 0 when none. */
static gsize
match_labelled (const char *p, const char *start, gsize *value_len)
{
  static const char *const schemes[] = { "bearer", "basic", "token" };
  static const char *const keys[] = { "x-openworker-token", "x-goog-api-key", "x-api-key", "api_key", "api-key", "apikey" };

  if (p > start && is_word (p[-1]))
    return 0;
  for (gsize i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      gsize n = strlen (schemes[i]), sp = 0, v;
      if (g_ascii_strncasecmp (p, schemes[i], n) != 0)
        continue;
      while (p[n + sp] == ' ' || p[n + sp] == '\t')
        sp++;
      if (sp == 0)
        continue;
      v = run_of (p + n + sp, is_token_char);
      if (v >= 8)
        {
          *value_len = v;
          return n + sp;
        }
    }
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      gsize n = strlen (keys[i]), v;
      if (g_ascii_strncasecmp (p, keys[i], n) != 0)
        continue;
      if (p[n] == '"' || p[n] == '\'')
        n++;
      while (p[n] == ' ')
        n++;
      if (p[n] != ':' && p[n] != '=')
        continue;
      n++;
      while (p[n] == ' ')
        n++;
      if (p[n] == '"' || p[n] == '\'')
        n++;
      v = run_of (p + n, is_value_char);
      if (v >= 6)
        {
          *value_len = v;
          return n;
        }
    }
  if ((p[0] == '?' || p[0] == '&') && strncmp (p + 1, "key=", 4) == 0)
    {
      gsize v = 0;
      while (p[5 + v] != '\0' && p[5 + v] != '&' && !g_ascii_isspace (p[5 + v]) && p[5 + v] != '"' && p[5 + v] != '\'')
        v++;
      if (v > 0)
        {
          *value_len = v;
          return 5;
        }
    }
  return 0;
}

/* Length of a self-identifying token starting at @p, or 0. */
static gsize
match_token (const char *p, const char *start)
{
  gsize n;

  if (p > start && is_word (p[-1]))
    return 0;
  if (strncmp (p, "sk-", 3) == 0)
    {
      n = run_of (p + 3, is_id_char);
      return n >= 12 ? 3 + n : 0;
    }
  if (strncmp (p, "AIza", 4) == 0)
    {
      n = run_of (p + 4, is_id_char);
      return n >= 20 ? 4 + n : 0;
    }
  if (strncmp (p, "xox", 3) == 0 && p[3] != '\0' && strchr ("abposr", p[3]) != NULL && p[4] == '-')
    {
      n = run_of (p + 5, is_id_char);
      return n >= 8 ? 5 + n : 0;
    }
  if (p[0] == 'g' && p[1] == 'h' && p[2] != '\0' && strchr ("pousr", p[2]) != NULL && p[3] == '_')
    {
      n = run_of (p + 4, is_alnum);
      return n >= 20 ? 4 + n : 0;
    }
  return 0;
}

/* A copy of @text with every registered value replaced, or NULL when it
 * holds none: most texts do not, and are then scanned where they are. */
static GString *
replace_registered (const char *text)
{
  GString *s = NULL;

  g_mutex_lock (&secrets_lock);
  for (guint i = 0; secrets != NULL && i < secrets->len; i++)
    {
      const char *secret = g_ptr_array_index (secrets, i);

      if (strstr (s != NULL ? s->str : text, secret) == NULL)
        continue;
      if (s == NULL)
        s = g_string_new (text);
      g_string_replace (s, secret, "[redacted]", 0);
    }
  g_mutex_unlock (&secrets_lock);
  return s;
}

char *
ow_redact_registered (const char *text)
{
  GString *s;

  if (text == NULL)
    return NULL;
  s = replace_registered (text);
  return s != NULL ? g_string_free (s, FALSE) : g_strdup (text);
}

char *
ow_redact (const char *text)
{
  g_autoptr(GString) replaced = NULL;
  const char *src;
  GString *out;
  const char *p;

  if (text == NULL)
    return NULL;
  replaced = replace_registered (text);
  src = replaced != NULL ? replaced->str : text;

  out = g_string_sized_new (strlen (src));
  for (p = src; *p != '\0';)
    {
      gsize label, value = 0, token;

      /* First-byte filter: every pattern starts with one of these. */
      if (strchr ("BbTtXxAa?&sg", *p) == NULL)
        {
          g_string_append_c (out, *p++);
          continue;
        }
      if ((label = match_labelled (p, src, &value)) > 0)
        {
          g_string_append_len (out, p, label);
          g_string_append (out, "[redacted]");
          p += label + value;
        }
      else if ((token = match_token (p, src)) > 0)
        {
          g_string_append (out, "[redacted]");
          p += token;
        }
      else
        g_string_append_c (out, *p++);
    }
  return g_string_free (out, FALSE);
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

/* The log writer: a copy of the fields with MESSAGE redacted, handed to
 * GLib's default writer, so the format and G_MESSAGES_DEBUG filtering stay
 * GLib's own. */
static GLogWriterOutput
redacting_writer (GLogLevelFlags   level,
                  const GLogField *fields,
                  gsize            n_fields,
                  gpointer         user_data)
{
  g_autofree GLogField *copy = g_new (GLogField, n_fields);
  g_autofree char *safe = NULL;

  for (gsize i = 0; i < n_fields; i++)
    {
      copy[i] = fields[i];
      if (safe == NULL && g_str_equal (fields[i].key, "MESSAGE") && fields[i].value != NULL)
        {
          g_autofree char *text = fields[i].length < 0 ? g_strdup (fields[i].value)
                                                       : g_strndup (fields[i].value, (gsize) fields[i].length);
          safe = ow_redact (text);
          copy[i].value = safe;
          copy[i].length = -1;
        }
    }
  return g_log_writer_default (level, copy, n_fields, user_data);
}

void
ow_redact_install_log_writer (void)
{
  g_log_set_writer_func (redacting_writer, NULL, NULL);
}
