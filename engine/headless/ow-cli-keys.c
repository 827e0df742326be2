/* ow-cli-keys.c: `openworker keys` (see ow-cli-keys.h).
 *
 * Keys go into the machine's secret store (the OS keyring, or the sealed
 * file where there is none) and come out only to make model calls. So a
 * key is never taken from the command line — argv is visible to every user
 * in the process list and stays in shell history — but from stdin or a
 * prompt that does not echo; and nothing here ever prints one: listing
 * says where each key comes from, not what it is.
 */
#define G_LOG_DOMAIN "ow-cli"

#include "headless/ow-cli-keys.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "core/ow-context.h"
#include "core/ow-model-choices.h"
#include "ow-error.h"
#include "ow-json.h"
#include "ow-redact.h"
#include "providers/ow-provider-verify.h"
#include "store/ow-secret-store-private.h"

static int G_GNUC_PRINTF (2, 3)
fail (int code, const char *fmt, ...)
{
  va_list ap;

  fputs ("openworker: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  return code;
}

static void
print_usage (FILE *out)
{
  fputs ("Usage: openworker keys list [--json]\n"
         "       openworker keys set PROVIDER [--verify]\n"
         "       openworker keys remove PROVIDER\n"
         "       openworker keys verify PROVIDER\n"
         "\n"
         "`set` reads the key from stdin, or asks for it without echoing it when stdin is a\n"
         "terminal; it never takes a key on the command line. For example:\n"
         "  openworker keys set anthropic                      (paste the key at the prompt)\n"
         "  printf %s \"$KEY\" | openworker keys set anthropic\n"
         "\n"
         "Keys are kept in the OS keyring (the Secret Service), or in a sealed file in the\n"
         "config folder on machines without one; OPENWORKER_SECRET_STORE=keyring|file picks.\n"
         "A provider's key variable (ANTHROPIC_API_KEY, …) in the environment wins over a saved key.\n",
         out);
}

static OwContext *
open_context (GError **error)
{
  g_autoptr(OwPaths) paths = ow_paths_new_default ();
  g_autoptr(OwSecretStore) secrets = ow_secret_store_new_default (paths);
  OwContextOptions options = { .paths = paths, .secrets = secrets };

  return ow_context_new (&options, error);
}

static const OwProviderEntry *
find_provider (const char *id)
{
  const OwProviderEntry *entry = ow_provider_catalog_lookup (id);

  if (entry == NULL)
    {
      const GPtrArray *all = ow_provider_catalog_get ();
      g_autoptr(GString) ids = g_string_new (NULL);

      for (guint i = 0; i < all->len; i++)
        {
          const OwProviderEntry *e = g_ptr_array_index (all, i);
          if (e->key_env == NULL)
            continue;
          g_string_append_printf (ids, "%s%s", ids->len > 0 ? ", " : "", e->id);
        }
      fail (2, "“%s” is not a provider that takes a key. Known: %s.", id, ids->str);
    }
  return entry;
}

/* ---- list ---------------------------------------------------------------------- */

static int
keys_list (OwContext *ctx, gboolean json)
{
  OwSecretStore *store = ow_context_get_secrets (ctx);
  const GPtrArray *all = ow_provider_catalog_get ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) saved = ow_secret_store_list (store, OW_SECRET_KIND_PROVIDER, NULL, &error);
  g_autofree char *notice = ow_secret_store_describe (store);
  const char *backend = ow_secret_store_get_backend (store);
  g_autoptr(JsonArray) rows = json_array_new ();
  g_autoptr(GHashTable) listed = g_hash_table_new (g_str_hash, g_str_equal);

  if (saved == NULL)
    return fail (1, "%s", error->message);

  for (guint i = 0; i < all->len; i++)
    {
      const OwProviderEntry *e = g_ptr_array_index (all, i);
      const char *variable = ow_context_provider_key_env (ctx, e);
      gboolean is_saved = g_strv_contains ((const char *const *) saved, e->id);
      JsonObject *row = json_object_new ();
      const char *source;

      if (e->key_env == NULL)
        source = "not_needed";
      else if (variable != NULL)
        source = "environment";
      else if (is_saved)
        source = backend;
      else
        source = "none";
      json_object_set_string_member (row, "provider", e->id);
      json_object_set_string_member (row, "title", e->title);
      json_object_set_string_member (row, "source", source);
      if (e->key_env != NULL)
        json_object_set_string_member (row, "variable", variable != NULL ? variable : e->key_env);
      json_object_set_boolean_member (row, "saved", is_saved);
      json_object_set_boolean_member (row, "needs_key", e->needs_key);
      json_array_add_object_element (rows, row);
      g_hash_table_add (listed, e->id);
    }
  /* Saved under a name no provider has (any more): shown so it can be removed. */
  for (guint i = 0; saved[i] != NULL; i++)
    if (!g_hash_table_contains (listed, saved[i]))
      {
        JsonObject *row = json_object_new ();

        json_object_set_string_member (row, "provider", saved[i]);
        json_object_set_string_member (row, "source", backend);
        json_object_set_boolean_member (row, "saved", TRUE);
        json_object_set_boolean_member (row, "known", FALSE);
        json_array_add_object_element (rows, row);
      }

  if (json)
    {
      g_autoptr(JsonObject) root = json_object_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autofree char *text = NULL;

      json_object_set_string_member (root, "store", backend);
      json_object_set_string_member (root, "notice", notice);
      json_object_set_array_member (root, "providers", json_array_ref (rows));
      node = json_node_init_object (json_node_alloc (), root);
      json_generator_set_pretty (gen, TRUE);
      json_generator_set_root (gen, node);
      text = json_generator_to_data (gen, NULL);
      puts (text);
      return 0;
    }

  printf ("%s\n\n%-20s %s\n", notice, "PROVIDER", "KEY");
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      const char *id = json_object_get_string_member (row, "provider");
      const char *source = json_object_get_string_member (row, "source");
      g_autofree char *shown = NULL;
      g_autofree char *overriding = NULL;

      if (json_object_get_boolean_member (row, "saved"))
        overriding = g_strdup_printf (", overriding the one saved in the %s", backend);
      if (!json_object_get_boolean_member_with_default (row, "known", TRUE))
        shown = g_strdup_printf ("%s (not a provider this OpenWorker knows; `openworker keys remove %s` forgets it)",
                                 source, id);
      else if (g_str_equal (source, "not_needed"))
        shown = g_strdup ("no key needed");
      else if (g_str_equal (source, "environment"))
        shown = g_strdup_printf ("environment (%s)%s", json_object_get_string_member (row, "variable"),
                                 overriding != NULL ? overriding : "");
      else if (g_str_equal (source, "none"))
        shown = g_strdup_printf ("not set%s", json_object_get_boolean_member (row, "needs_key") ? "" : " (optional)");
      else
        shown = g_strdup (source);
      printf ("%-20s %s\n", id, shown);
    }
  return 0;
}

/* ---- reading a key -------------------------------------------------------------- */

static struct termios saved_termios;
static volatile sig_atomic_t echo_off;

static void
restore_echo_on_signal (int sig)
{
  if (echo_off)
    tcsetattr (STDIN_FILENO, TCSAFLUSH, &saved_termios);
  signal (sig, SIG_DFL);
  raise (sig);
}

/* Reads up to a newline (or the end) into a buffer that is wiped when it
 * grows and when it is freed. */
static char *
read_secret_line (int fd, gboolean stop_at_newline, GError **error)
{
  gsize cap = 256, len = 0;
  char *buf = g_malloc (cap);

  for (;;)
    {
      char c;
      ssize_t n = read (fd, &c, 1);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          ow_sealed_wipe_free (buf, cap);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Could not read the key: %s.",
                       g_strerror (saved));
          return NULL;
        }
      if (n == 0 || (stop_at_newline && c == '\n'))
        break;
      if (len + 2 > cap)
        {
          char *bigger;

          if (cap > OW_SECRET_MAX_VALUE * 2)
            {
              ow_sealed_wipe_free (buf, cap);
              g_set_error (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                           "That is far longer than any key (more than %d bytes); nothing was saved.",
                           OW_SECRET_MAX_VALUE);
              return NULL;
            }
          bigger = g_malloc (cap * 2);
          memcpy (bigger, buf, len);
          ow_sealed_wipe_free (buf, cap);
          buf = bigger;
          cap *= 2;
        }
      buf[len++] = c;
    }
  buf[len] = '\0';
  return buf;
}

/* The key from a terminal without echo, or from piped stdin. */
static char *
read_key (const OwProviderEntry *entry, GError **error)
{
  char *key;

  if (isatty (STDIN_FILENO))
    {
      struct termios quiet;

      if (tcgetattr (STDIN_FILENO, &saved_termios) != 0)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                               "Could not turn off echo on this terminal, so the key is not asked for here. Pipe "
                               "it instead: printf %s \"$KEY\" | openworker keys set PROVIDER");
          return NULL;
        }
      quiet = saved_termios;
      quiet.c_lflag &= ~(tcflag_t) (ECHO | ECHOE | ECHOK);
      quiet.c_lflag |= ECHONL;
      signal (SIGINT, restore_echo_on_signal);
      signal (SIGTERM, restore_echo_on_signal);
      signal (SIGHUP, restore_echo_on_signal);
      fprintf (stderr, "Paste the %s API key (it will not be shown), then press Enter: ", entry->title);
      fflush (stderr);
      echo_off = 1;
      tcsetattr (STDIN_FILENO, TCSAFLUSH, &quiet);
      key = read_secret_line (STDIN_FILENO, TRUE, error);
      tcsetattr (STDIN_FILENO, TCSAFLUSH, &saved_termios);
      echo_off = 0;
      signal (SIGINT, SIG_DFL);
      signal (SIGTERM, SIG_DFL);
      signal (SIGHUP, SIG_DFL);
    }
  else
    key = read_secret_line (STDIN_FILENO, FALSE, error);
  if (key == NULL)
    return NULL;

  g_strstrip (key);
  if (*key == '\0')
    {
      ow_secret_free (key);
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                           "No key was given; nothing was saved.");
      return NULL;
    }
  for (const char *p = key; *p != '\0'; p++)
    if (g_ascii_isspace (*p) || g_ascii_iscntrl (*p))
      {
        ow_secret_free (key);
        g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_INVALID,
                             "The key has spaces or line breaks inside it; paste just the key. Nothing was saved.");
        return NULL;
      }
  /* From here on, nothing may print it. */
  ow_redact_register_secret (key);
  return key;
}

/* ---- verify ---------------------------------------------------------------------- */

static void
on_verified_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  OwProviderVerifyResult **out = user_data;

  *out = ow_provider_verify_key_finish (result);
}

static OwProviderVerifyResult *
verify_now (OwContext *ctx, const OwProviderEntry *entry, const char *key)
{
  g_autofree char *base_key = g_strdup_printf ("providers.%s.base_url", entry->id);
  OwProviderVerifyResult *result = NULL;

  ow_provider_verify_key_async (ow_context_get_http (ctx), entry, key,
                                ow_config_get_string (ow_context_get_config (ctx), base_key), NULL, on_verified_cb,
                                &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return result;
}

/* ---- the commands ---------------------------------------------------------------- */

static int
keys_set (OwContext *ctx, const OwProviderEntry *entry, gboolean verify)
{
  OwSecretStore *store = ow_context_get_secrets (ctx);
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) key = read_key (entry, &error);
  g_autofree char *label = NULL;
  g_autofree char *where = NULL;
  const char *variable;

  if (key == NULL)
    return fail (1, "%s", error->message);
  if (verify)
    {
      g_autoptr(OwProviderVerifyResult) result = verify_now (ctx, entry, key);

      if (!result->ok)
        return fail (1, "%s Nothing was saved.", result->error);
      fprintf (stderr, "The %s key works.\n", entry->title);
    }
  label = g_strdup_printf ("OpenWorker: %s API key", entry->title);
  if (!ow_secret_store_store (store, OW_SECRET_KIND_PROVIDER, entry->id, label, key, NULL, &error))
    return fail (1, "%s", error->message);
  where = ow_secret_store_describe (store);
  printf ("Saved the %s key. %s\n", entry->title, where);
  {
    /* The first key picks the machine's default model, as Models & Keys
     * does in the browser and the desktop. */
    g_autoptr(GError) adopt_error = NULL;
    g_autofree char *adopted = ow_model_choices_adopt_default (ctx, entry->id, &adopt_error);

    if (adopted != NULL)
      printf ("%s is now the default model (model_config.json).\n", adopted);
    else if (adopt_error != NULL)
      fprintf (stderr, "openworker: the default model was not set: %s\n", adopt_error->message);
  }
  variable = ow_context_provider_key_env (ctx, entry);
  if (variable != NULL)
    printf ("Note: %s is set in this environment, and wins over the saved key while it is.\n", variable);
  return 0;
}

static int
keys_remove (OwContext *ctx, const char *name)
{
  OwSecretStore *store = ow_context_get_secrets (ctx);
  const OwProviderEntry *entry = ow_provider_catalog_lookup (name);
  const char *id = entry != NULL ? entry->id : name;
  const char *title = entry != NULL ? entry->title : name;
  g_autoptr(GError) error = NULL;
  g_autofree char *where = NULL;
  gboolean removed;

  removed = ow_secret_store_delete (store, OW_SECRET_KIND_PROVIDER, id, NULL, &error);
  if (error != NULL)
    return fail (1, "%s", error->message);
  where = ow_secret_store_describe (store);
  if (removed)
    printf ("Removed the saved %s key. %s\n", title, where);
  else
    printf ("There was no saved %s key; nothing to remove. %s\n", title, where);
  if (entry != NULL && ow_context_provider_key_env (ctx, entry) != NULL)
    printf ("Note: %s is still set in this environment, and OpenWorker will use it.\n",
            ow_context_provider_key_env (ctx, entry));
  return 0;
}

static int
keys_verify (OwContext *ctx, const OwProviderEntry *entry)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwSecretText) stored = NULL;
  g_autoptr(OwProviderVerifyResult) result = NULL;
  const char *variable = ow_context_provider_key_env (ctx, entry);
  g_autofree char *source = NULL;

  /* The key a run would use: the environment's, else the saved one. */
  if (variable == NULL && entry->key_env != NULL)
    {
      stored = ow_secret_store_lookup (ow_context_get_secrets (ctx), OW_SECRET_KIND_PROVIDER, entry->id, NULL, &error);
      if (error != NULL)
        return fail (1, "%s", error->message);
    }
  source = variable != NULL ? g_strdup_printf ("from %s", variable)
           : stored != NULL ? g_strdup_printf ("saved in the %s", ow_secret_store_get_backend (ow_context_get_secrets (ctx)))
           : NULL;
  result = verify_now (ctx, entry, stored);
  if (!result->ok)
    return fail (1, "%s", result->error);
  if (source != NULL)
    printf ("The %s key (%s) works.\n", entry->title, source);
  else
    printf ("%s answers without a key.\n", entry->title);
  return 0;
}

int
ow_keys_main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwContext) ctx = NULL;
  const char *verb = argc > 1 ? argv[1] : "list";
  const char *name = NULL;
  gboolean json = FALSE, verify = FALSE;
  const OwProviderEntry *entry = NULL;
  int positional = 0;

  if (g_str_equal (verb, "--help") || g_str_equal (verb, "-h") || g_str_equal (verb, "help"))
    {
      print_usage (stdout);
      return 0;
    }
  for (int i = 2; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--json"))
        json = TRUE;
      else if (g_str_equal (argv[i], "--verify"))
        verify = TRUE;
      else if (argv[i][0] == '-')
        return fail (2, "unknown option “%s” for `keys %s`; see `openworker keys --help`.", argv[i], verb);
      else if (positional++ == 0)
        name = argv[i];
      else if (g_str_equal (verb, "set"))
        {
          /* Do not echo it back: it may well be the key. */
          return fail (2, "`openworker keys set` never takes the key on the command line: it would stay in "
                          "your shell history and show in the process list. Nothing was saved. Paste it at the "
                          "prompt instead, or pipe it: printf %%s \"$KEY\" | openworker keys set %s",
                       name);
        }
      else
        return fail (2, "`keys %s` takes one provider; see `openworker keys --help`.", verb);
    }

  if (g_str_equal (verb, "list"))
    {
      if (name != NULL)
        return fail (2, "`keys list` takes no provider; see `openworker keys --help`.");
    }
  else if (g_str_equal (verb, "set") || g_str_equal (verb, "remove") || g_str_equal (verb, "verify"))
    {
      if (name == NULL)
        return fail (2, "`keys %s` needs a provider, for example `openworker keys %s anthropic`.", verb, verb);
      if (!g_str_equal (verb, "remove") && (entry = find_provider (name)) == NULL)
        return 2;
      if (g_str_equal (verb, "set") && entry->key_env == NULL)
        return fail (2, "%s takes no key.", entry->title);
    }
  else
    {
      fprintf (stderr, "openworker: unknown command “keys %s”.\n\n", verb);
      print_usage (stderr);
      return 2;
    }

  ctx = open_context (&error);
  if (ctx == NULL)
    return fail (1, "%s", error->message);
  if (g_str_equal (verb, "list"))
    return keys_list (ctx, json);
  if (g_str_equal (verb, "set"))
    return keys_set (ctx, entry, verify);
  if (g_str_equal (verb, "remove"))
    return keys_remove (ctx, name);
  return keys_verify (ctx, entry);
}
