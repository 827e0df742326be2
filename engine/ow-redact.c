/* ow-redact.c: credential redaction (see ow-redact.h). */
#define G_LOG_DOMAIN "ow-redact"

#include "ow-redact.h"

#include <string.h>

static GMutex secrets_lock;
static GPtrArray *secrets; /* char*: the values and their encoded forms, longest first so overlapping ones redact fully */

static int
compare_longest_first (gconstpointer a, gconstpointer b)
{
  const char *sa = *(const char * const *) a;
  const char *sb = *(const char * const *) b;
  size_t la = strlen (sa), lb = strlen (sb);
  return (la < lb) - (la > lb);
}

/* Adds @needle unless it is there already; the caller holds the lock. */
static void
add_needle (char *needle)
{
  for (guint i = 0; i < secrets->len; i++)
    if (g_str_equal (g_ptr_array_index (secrets, i), needle))
      {
        g_free (needle);
        return;
      }
  g_ptr_array_add (secrets, needle);
}

/* A copy of @text with each "%XX" escape's hex digits in lower case. */
static char *
lower_escapes (const char *text)
{
  char *out = g_strdup (text);

  for (char *p = out; *p != '\0'; p++)
    if (p[0] == '%' && p[1] != '\0' && p[2] != '\0')
      {
        p[1] = g_ascii_tolower (p[1]);
        p[2] = g_ascii_tolower (p[2]);
        p += 2;
      }
  return out;
}

/* The forms a command can print a value in without knowing it is secret
 * (`base64`, `xxd -p`, a URL's query): each is registered beside the value.
 * Base64 depends on where the value starts in the encoded input, so each of
 * the three alignments contributes the part of its encoding that only the
 * value's own bits decide: from the first sextet after the bytes before it
 * to the last sextet before the bytes after it. */
static void
add_encodings (const char *value)
{
  gsize n = strlen (value);
  GString *lower = g_string_sized_new (2 * n);
  g_autofree char *escaped = g_uri_escape_string (value, NULL, FALSE);

  for (gsize k = 0; k < 3; k++)
    {
      g_autofree guchar *input = g_malloc0 (k + n);
      g_autofree char *encoded = NULL;
      gsize start = (8 * k + 5) / 6, end = (8 * (k + n)) / 6;
      char *plain, *url_safe;

      memcpy (input + k, value, n);
      encoded = g_base64_encode (input, k + n);
      plain = g_strndup (encoded + start, end - start);
      url_safe = g_strdup (plain);
      g_strdelimit (url_safe, "+", '-');
      g_strdelimit (url_safe, "/", '_');
      add_needle (plain);
      add_needle (url_safe);
    }
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (lower, "%02x", (guchar) value[i]);
  add_needle (g_ascii_strup (lower->str, -1));
  add_needle (g_string_free (lower, FALSE));
  if (!g_str_equal (escaped, value))
    {
      add_needle (lower_escapes (escaped));
      add_needle (g_steal_pointer (&escaped));
    }
}

void
ow_redact_register_secret (const char *value)
{
  if (value == NULL || strlen (value) < 8)
    return;
  g_mutex_lock (&secrets_lock);
  if (secrets == NULL)
    secrets = g_ptr_array_new_with_free_func (g_free);
  /* Each form is added unless it is there already: a value may be one
   * registered before, or happen to be another's encoding. */
  add_needle (g_strdup (value));
  add_encodings (value);
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
 *   scheme://<user:password>@host (the userinfo of a URL with a password)
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

/* Length of the userinfo of a URL whose "://" is at @p, when it holds a
 * password ("user:pass@"), else 0. A user name alone ("git@") is kept: it
 * is an address, not a credential. */
static gsize
match_userinfo (const char *p)
{
  gsize n = 0, at = 0;
  gboolean colon = FALSE;

  if (p[0] != ':' || p[1] != '/' || p[2] != '/')
    return 0;
  p += 3;
  for (; p[n] != '\0' && !g_ascii_isspace (p[n]) && strchr ("/?#\"'<>", p[n]) == NULL; n++)
    if (p[n] == '@')
      at = n;
    else if (p[n] == ':' && at == 0)
      colon = TRUE;
  return at > 0 && colon ? at : 0;
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
      if (strchr ("BbTtXxAa?&sg:", *p) == NULL)
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
      else if ((value = match_userinfo (p)) > 0)
        {
          g_string_append (out, "://[redacted]");
          p += 3 + value;
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

/* ---- Streams -------------------------------------------------------------- */

struct _OwRedactStream
{
  GString *held;  /* replaced of every whole value; its tail may begin one */
};

OwRedactStream *
ow_redact_stream_new (void)
{
  OwRedactStream *self = g_new0 (OwRedactStream, 1);

  self->held = g_string_new (NULL);
  return self;
}

/* The length of the longest tail of @text (@len bytes) that is the start,
 * but not the whole, of a registered value. */
static gsize
pending_prefix (const char *text, gsize len)
{
  gsize longest = 0;

  g_mutex_lock (&secrets_lock);
  for (guint i = 0; secrets != NULL && i < secrets->len; i++)
    {
      const char *secret = g_ptr_array_index (secrets, i);
      gsize n = MIN (strlen (secret) - 1, len);

      for (gsize l = n; l > longest; l--)
        if (text[len - l] == secret[0] && memcmp (text + len - l, secret, l) == 0)
          {
            longest = l;
            break;
          }
    }
  g_mutex_unlock (&secrets_lock);
  return longest;
}

char *
ow_redact_stream_feed (OwRedactStream *self, const char *text, gsize len)
{
  g_autoptr(GString) replaced = NULL;
  gsize keep;
  char *ready;

  g_return_val_if_fail (self != NULL, NULL);

  g_string_append_len (self->held, text, (gssize) len);
  /* Whole values first, so a value that now ends inside the held text is
   * replaced before the cut; what is left to hold can only be a start. */
  replaced = replace_registered (self->held->str);
  if (replaced != NULL)
    g_string_assign (self->held, replaced->str);
  keep = pending_prefix (self->held->str, self->held->len);
  ready = g_strndup (self->held->str, self->held->len - keep);
  g_string_erase (self->held, 0, (gssize) (self->held->len - keep));
  return ready;
}

char *
ow_redact_stream_flush (OwRedactStream *self)
{
  char *rest;

  g_return_val_if_fail (self != NULL, NULL);

  rest = g_strdup (self->held->str);
  g_string_truncate (self->held, 0);
  return rest;
}

void
ow_redact_stream_free (OwRedactStream *self)
{
  if (self == NULL)
    return;
  g_string_free (self->held, TRUE);
  g_free (self);
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
