/* ow-secret-env.c: the engine's own secrets in its environment (see
 * ow-secret-env.h). */
#define G_LOG_DOMAIN "ow-secret-env"

#include "ow-secret-env.h"

#include <errno.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "ow-redact.h"

static GMutex lock;
static GHashTable *captured;  /* name → value (both owned); written at start only */
static GStrv allowed_extra;   /* from the machine config; guarded by lock */

/* What a shell and the programs it starts need to behave as they do at the
 * person's terminal, and nothing that names a credential. DISPLAY,
 * WAYLAND_DISPLAY and XAUTHORITY are left out on purpose: they hand a command
 * the person's whole graphical session (its keystrokes, its screen), which
 * no shell tool needs; a person who wants GUI programs started adds them in
 * shell_environment_allow. PWD is the shell's own to set, for the folder
 * it starts in. */
static const char *const allowed_names[] = {
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TZ", "TMPDIR",
  "NO_COLOR",
  "http_proxy", "https_proxy", "no_proxy", "all_proxy", "ftp_proxy",
  "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "FTP_PROXY",
};

static gboolean
name_matches (const char *pattern, const char *name)
{
  gsize n = strlen (pattern);

  if (n > 0 && pattern[n - 1] == '*')
    return strncmp (pattern, name, n - 1) == 0;
  return g_str_equal (pattern, name);
}

gboolean
ow_secret_env_name_allowed (const char *name)
{
  gboolean found = FALSE;

  if (name == NULL || *name == '\0')
    return FALSE;
  if (g_str_has_prefix (name, "LC_"))
    return TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (allowed_names); i++)
    if (g_str_equal (allowed_names[i], name))
      return TRUE;
  g_mutex_lock (&lock);
  for (guint i = 0; !found && allowed_extra != NULL && allowed_extra[i] != NULL; i++)
    found = name_matches (allowed_extra[i], name);
  g_mutex_unlock (&lock);
  return found;
}

void
ow_secret_env_set_allowed (const char *const *names)
{
  g_mutex_lock (&lock);
  g_clear_pointer (&allowed_extra, g_strfreev);
  allowed_extra = g_strdupv ((char **) names);
  g_mutex_unlock (&lock);
}

char **
ow_secret_env_filter (const char *const *envp)
{
  g_auto(GStrv) own = NULL;
  GPtrArray *out = g_ptr_array_new ();

  if (envp == NULL)
    envp = (const char *const *) (own = g_get_environ ());
  for (guint i = 0; envp[i] != NULL; i++)
    {
      const char *eq = strchr (envp[i], '=');
      g_autofree char *name = eq != NULL ? g_strndup (envp[i], (gsize) (eq - envp[i])) : NULL;

      if (name != NULL && ow_secret_env_name_allowed (name))
        g_ptr_array_add (out, g_strdup (envp[i]));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

void
ow_secret_env_protect_process (void)
{
#ifdef __linux__
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    g_warning ("Could not make this process undumpable: %s", g_strerror (errno));
#endif
}

char *
ow_secret_env_url_password (const char *url)
{
  const char *authority, *at, *next, *colon;
  gsize len;

  if (url == NULL || (authority = strstr (url, "://")) == NULL)
    return NULL;
  authority += 3;
  len = strcspn (authority, "/?#");
  at = g_strstr_len (authority, (gssize) len, "@");
  if (at == NULL)
    return NULL;
  /* The userinfo ends at the last '@' of the authority: a password may
   * hold an '@' of its own when its owner did not percent-encode it. */
  while ((next = g_strstr_len (at + 1, (gssize) (authority + len - at - 1), "@")) != NULL)
    at = next;
  colon = memchr (authority, ':', (gsize) (at - authority));
  return colon != NULL ? g_strndup (colon + 1, (gsize) (at - colon - 1)) : NULL;
}

void
ow_secret_env_register_url (const char *url)
{
  g_autofree char *password = ow_secret_env_url_password (url);
  g_autofree char *decoded = NULL;

  if (password == NULL)
    return;
  decoded = g_uri_unescape_string (password, NULL);
  ow_redact_register_secret (password);
  ow_redact_register_secret (decoded);
}

void
ow_secret_env_capture (const char *const *names)
{
  g_auto(GStrv) env = g_get_environ ();

  /* Credentials in URLs stay where they are (a proxy needs its password,
   * and a base URL is read from the environment again later), but their
   * passwords never reach a record. */
  for (guint i = 0; env[i] != NULL; i++)
    {
      const char *eq = strchr (env[i], '=');
      if (eq != NULL && strstr (eq + 1, "://") != NULL)
        ow_secret_env_register_url (eq + 1);
    }

  g_mutex_lock (&lock);
  if (captured == NULL)
    captured = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      const char *value = g_getenv (names[i]);

      if (value == NULL)
        continue;
      if (*value != '\0' && !g_hash_table_contains (captured, names[i]))
        {
          ow_redact_register_secret (value);
          g_hash_table_insert (captured, g_strdup (names[i]), g_strdup (value));
        }
      g_unsetenv (names[i]);
    }
  g_mutex_unlock (&lock);
}

const char *
ow_secret_env_get (const char *name)
{
  const char *value = NULL;

  if (name == NULL)
    return NULL;
  /* The table only grows, and its values are never replaced after start:
   * a pointer handed out stays valid for the life of the process. */
  g_mutex_lock (&lock);
  if (captured != NULL)
    value = g_hash_table_lookup (captured, name);
  g_mutex_unlock (&lock);
  if (value == NULL)
    value = g_getenv (name);
  return value != NULL && *value != '\0' ? value : NULL;
}
