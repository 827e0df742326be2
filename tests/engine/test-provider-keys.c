/* test-provider-keys.c: provider keys are read off the main loop.
 *
 * A secret store double whose lookups wait, in their worker thread, until
 * the test opens a gate, stands in for a keyring that blocks on D-Bus (a
 * locked one waits on a person). While a turn's key is being read the main
 * loop keeps dispatching: an idle source runs and an HTTP request to the
 * in-process model server is answered; once the gate opens the turn goes
 * on and the key reaches the wire. The context keeps a key it read until a
 * secret is stored or deleted; a store that fails is reported as it is
 * when the call blocks.
 *
 *   turn-waits-off-loop  the gate, the idle source, the request, the turn
 *   interrupt-while-waiting  a stop ends the turn at once; Retry sends it
 *   reviewer             auto-approve's reviewer: the key kept; a missing
 *                        one refuses the turn, and Retry sends the message
 *   cache                kept, invalidated by a save and by a delete
 *   locked               a locked store: the turn says so; unlocked, Retry works
 */
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>

#include "core/ow-context.h"
#include "core/ow-session-host.h"
#include "ow-error.h"
#include "ow-files.h"
#include "ow-json.h"
#include "ow-model-server.h"
#include "ow-test-utils.h"

#define KEY_A "sk-gated-key-a-0123456789"
#define KEY_B "sk-gated-key-b-9876543210"

/* ---- A store whose lookups wait for the test ------------------------------------ */

#define TEST_TYPE_GATED_STORE (test_gated_store_get_type ())
G_DECLARE_FINAL_TYPE (TestGatedStore, test_gated_store, TEST, GATED_STORE, GObject)

struct _TestGatedStore
{
  GObject        parent_instance;
  OwSecretStore *inner;     /* where the secrets are (owned) */
  GMutex         lock;      /* guards closed */
  GCond          opened;
  gboolean       closed;    /* lookups wait while it is */
  gint           waiting;   /* lookups waiting at the gate (atomic) */
  gint           lookups;   /* lookups made (atomic) */
  gint           locked;    /* lookups fail as a locked keyring does (atomic) */
};

static void test_gated_store_iface_init (OwSecretStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestGatedStore, test_gated_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_SECRET_STORE, test_gated_store_iface_init))

static void
test_gated_store_finalize (GObject *object)
{
  TestGatedStore *self = TEST_GATED_STORE (object);

  g_clear_object (&self->inner);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->opened);
  G_OBJECT_CLASS (test_gated_store_parent_class)->finalize (object);
}

static void
test_gated_store_class_init (TestGatedStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_gated_store_finalize;
}

static void
test_gated_store_init (TestGatedStore *self)
{
  self->inner = ow_secret_store_memory_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->opened);
}

static void
gate_close (TestGatedStore *self)
{
  g_mutex_lock (&self->lock);
  self->closed = TRUE;
  g_mutex_unlock (&self->lock);
}

static void
gate_open (TestGatedStore *self)
{
  g_mutex_lock (&self->lock);
  self->closed = FALSE;
  g_cond_broadcast (&self->opened);
  g_mutex_unlock (&self->lock);
}

static const char *
gated_backend (OwSecretStore *s)
{
  return "memory";
}

static char *
gated_describe (OwSecretStore *s)
{
  return g_strdup ("Keys are kept behind a test gate.");
}

static char *
gated_lookup (OwSecretStore *s, const char *kind, const char *name, GCancellable *c, GError **error)
{
  TestGatedStore *self = TEST_GATED_STORE (s);

  g_mutex_lock (&self->lock);
  if (self->closed)
    {
      g_atomic_int_inc (&self->waiting);
      /* The main loop may be asleep in poll(): wake it to see the count. */
      g_main_context_wakeup (NULL);
      while (self->closed)
        g_cond_wait (&self->opened, &self->lock);
      g_atomic_int_add (&self->waiting, -1);
    }
  g_mutex_unlock (&self->lock);
  g_atomic_int_inc (&self->lookups);
  g_main_context_wakeup (NULL);
  if (g_atomic_int_get (&self->locked))
    {
      g_set_error_literal (error, OW_SECRET_ERROR, OW_SECRET_ERROR_LOCKED, "The keyring “Gated” is locked.");
      return NULL;
    }
  return ow_secret_store_lookup (self->inner, kind, name, c, error);
}

static gboolean
gated_store (OwSecretStore *s, const char *kind, const char *name, const char *label, const char *value,
             GCancellable *c, GError **error)
{
  return ow_secret_store_store (TEST_GATED_STORE (s)->inner, kind, name, label, value, c, error);
}

static gboolean
gated_delete (OwSecretStore *s, const char *kind, const char *name, GCancellable *c, GError **error)
{
  return ow_secret_store_delete (TEST_GATED_STORE (s)->inner, kind, name, c, error);
}

static char **
gated_list (OwSecretStore *s, const char *kind, GCancellable *c, GError **error)
{
  return ow_secret_store_list (TEST_GATED_STORE (s)->inner, kind, c, error);
}

static void
test_gated_store_iface_init (OwSecretStoreInterface *iface)
{
  iface->get_backend = gated_backend;
  iface->describe = gated_describe;
  iface->lookup = gated_lookup;
  iface->store = gated_store;
  iface->delete_secret = gated_delete;
  iface->list = gated_list;
}

/* ---- Fixture ------------------------------------------------------------------------ */

typedef struct {
  char           *tmp;
  char           *ws;
  OwPaths        *paths;
  TestGatedStore *store;
  OwContext      *ctx;
  OwSessionHost  *host;
  OwModelServer  *server;
  char           *url;
  GPtrArray      *events;  /* OwEvent* of every session */
} Fixture;

static void
on_event_cb (OwSessionHost *host, const char *session_id, OwEvent *event, gpointer user_data)
{
  g_ptr_array_add (((Fixture *) user_data)->events, ow_event_copy (event));
}

static void
serve (Fixture *f, const char *script)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (script, &error);
  g_autofree char *base = NULL;

  g_assert_no_error (error);
  f->server = ow_model_server_new (node, &error);
  g_assert_no_error (error);
  f->url = ow_model_server_get_url (f->server);
  base = g_strdup_printf ("%s/v1", f->url);
  g_setenv ("OPENAI_BASE_URL", base, TRUE);
}

static void
setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  OwContextOptions options = { 0 };

  f->tmp = g_dir_make_tmp ("ow-keys-XXXXXX", &error);
  g_assert_no_error (error);
  f->ws = g_build_filename (f->tmp, "ws", NULL);
  g_mkdir (f->ws, 0700);
  f->paths = ow_paths_new_under (f->tmp);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) ow_event_free);
  f->store = g_object_new (TEST_TYPE_GATED_STORE, NULL);
  /* Only the store has the key. */
  g_unsetenv ("OPENAI_API_KEY");
  g_setenv ("OPENWORKER_AUTO_TITLE", "0", TRUE);

  options.paths = f->paths;
  options.secrets = OW_SECRET_STORE (f->store);
  f->ctx = ow_context_new (&options, &error);
  g_assert_no_error (error);
  g_assert_true (ow_context_get_secrets (f->ctx) == OW_SECRET_STORE (f->store));
  f->host = ow_session_host_new (f->ctx, "test", &error);
  g_assert_no_error (error);
  g_signal_connect (f->host, "session-event", G_CALLBACK (on_event_cb), f);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  gate_open (f->store);
  g_clear_object (&f->host);
  g_clear_object (&f->ctx);
  /* A lookup given up on (a stop) may still hold the store in its thread. */
  g_clear_object (&f->store);
  g_clear_object (&f->server);
  g_free (f->url);
  g_ptr_array_unref (f->events);
  ow_paths_free (f->paths);
  ow_remove_tree (f->tmp, NULL);
  g_free (f->ws);
  g_free (f->tmp);
  g_unsetenv ("OPENAI_BASE_URL");
}

static gboolean
bump_cb (gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_REMOVE;
}

static gint
index_of (Fixture *f, const char *type, guint from)
{
  for (guint i = from; i < f->events->len; i++)
    if (g_str_equal (((OwEvent *) g_ptr_array_index (f->events, i))->type, type))
      return (gint) i;
  return -1;
}

static guint
wait_for (Fixture *f, const char *type, guint from)
{
  g_autofree char *what = g_strdup_printf ("a %s event from #%u", type, from);
  OwTestWait wait;

  ow_test_wait_begin (&wait, NULL, what, G_STRLOC);
  while (index_of (f, type, from) < 0)
    ow_test_wait_step (&wait);
  ow_test_wait_end (&wait);
  return (guint) index_of (f, type, from);
}

static OwSession *
new_session (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  OwSessionSpec spec = { .workspace = f->ws, .model = "openai:gpt-4o", .mode = "ask", .coworker = "cowork" };
  OwSession *s = ow_session_host_create (f->host, &spec, &error);

  g_assert_no_error (error);
  return s;
}

static void
save (Fixture *f, const char *value)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ow_secret_store_store (OW_SECRET_STORE (f->store), OW_SECRET_KIND_PROVIDER, "openai", NULL, value,
                                        NULL, &error));
  g_assert_no_error (error);
}

static const char *
request_header (Fixture *f, guint index, const char *name)
{
  JsonObject *request = json_array_get_object_element (ow_model_server_get_requests (f->server), index);

  return json_object_get_string_member_with_default (json_object_get_object_member (request, "headers"), name, NULL);
}

/* ---- The turn waits, the main loop does not ----------------------------------------- */

typedef struct {
  gint    done;
  guint   status;
  GBytes *body;
} Fetch;

static void
on_fetched_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Fetch *fetch = user_data;
  g_autoptr(GError) error = NULL;
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (source), result);

  fetch->body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);
  g_assert_no_error (error);
  fetch->status = soup_message_get_status (msg);
  g_atomic_int_set (&fetch->done, 1);
}

static void
test_turn_waits_off_loop (Fixture *f, gconstpointer data)
{
  g_autoptr(OwSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SoupSession) http = soup_session_new ();
  g_autoptr(SoupMessage) msg = NULL;
  g_autofree char *probe = NULL;
  Fetch fetch = { 0 };
  guint idles = 0;
  guint done;
  gint answer;

  serve (f, "{\"keys\": [\"" KEY_A "\"], \"turns\": [{\"text\": \"answered after the keyring\"}]}");
  save (f, KEY_A);
  session = new_session (f);

  gate_close (f->store);
  g_assert_true (ow_session_host_send (f->host, ow_session_get_id (session), "hello", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ow_session_host_is_running (f->host, ow_session_get_id (session)));
  OW_TEST_WAIT_UNTIL (g_atomic_int_get (&f->store->waiting) >= 1);

  /* The lookup is stuck at the gate; the main loop is not. */
  g_idle_add (bump_cb, &idles);
  OW_TEST_WAIT_UNTIL (idles > 0);
  probe = g_strdup_printf ("%s/_script/requests", f->url);
  msg = soup_message_new ("GET", probe);
  soup_session_send_and_read_async (http, msg, G_PRIORITY_DEFAULT, NULL, on_fetched_cb, &fetch);
  OW_TEST_WAIT_UNTIL (g_atomic_int_get (&fetch.done) >= 1);
  g_assert_cmpuint (fetch.status, ==, 200);
  g_clear_pointer (&fetch.body, g_bytes_unref);

  /* Nothing went to the model, and the turn is still waiting. */
  g_assert_cmpint (g_atomic_int_get (&f->store->waiting), ==, 1);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 0);
  g_assert_cmpint (index_of (f, "turn_done", 0), <, 0);
  g_assert_cmpint (index_of (f, "error", 0), <, 0);

  gate_open (f->store);
  done = wait_for (f, "turn_done", 0);
  g_assert_cmpint (index_of (f, "error", 0), <, 0);
  answer = index_of (f, "assistant_message", 0);
  g_assert_cmpint (answer, >=, 0);
  g_assert_cmpint (answer, <, (gint) done);
  g_assert_cmpstr (ow_json_get_string (((OwEvent *) g_ptr_array_index (f->events, answer))->data, "text"), ==,
                   "answered after the keyring");
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);
  g_assert_cmpstr (request_header (f, 0, "authorization"), ==, "Bearer " KEY_A);
  g_assert_cmpint (g_atomic_int_get (&f->store->lookups), ==, 1);
}

/* A stop while the key is being read ends the turn at once; the message
 * stays for Retry, which sends it once the store answers. */
static void
test_interrupt_while_waiting (Fixture *f, gconstpointer data)
{
  g_autoptr(OwSession) session = NULL;
  guint done;

  serve (f, "{\"keys\": [\"" KEY_A "\"], \"turns\": [{\"text\": \"sent on retry\"}]}");
  save (f, KEY_A);
  session = new_session (f);

  gate_close (f->store);
  g_assert_true (ow_session_host_send (f->host, ow_session_get_id (session), "hello", NULL, NULL));
  OW_TEST_WAIT_UNTIL (g_atomic_int_get (&f->store->waiting) >= 1);
  ow_session_host_interrupt (f->host, ow_session_get_id (session));
  done = wait_for (f, "turn_done", 0);
  /* Over while the store still holds its lookup. */
  g_assert_cmpint (g_atomic_int_get (&f->store->waiting), ==, 1);
  g_assert_cmpint (index_of (f, "interrupted", 0), >=, 0);
  g_assert_cmpint (index_of (f, "interrupted", 0), <, (gint) done);
  g_assert_false (ow_session_host_is_running (f->host, ow_session_get_id (session)));
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 0);

  /* The control: the store answers, and Retry sends the message. */
  gate_open (f->store);
  g_assert_true (ow_session_host_retry (f->host, ow_session_get_id (session), NULL));
  done = wait_for (f, "turn_done", done + 1);
  g_assert_cmpint (index_of (f, "error", 0), <, 0);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);
  g_assert_cmpstr (request_header (f, 0, "authorization"), ==, "Bearer " KEY_A);
  {
    g_autofree char *sent = ow_json_object_to_string (json_array_get_object_element (
                                                        ow_model_server_get_requests (f->server), 0));
    g_assert_nonnull (strstr (sent, "hello"));
  }
}

/* auto-approve's reviewer is made the same way: with the session's model
 * it takes the key just read; with another whose key is missing the turn
 * is refused, and the message waits for Retry. */
static void
test_reviewer (Fixture *f, gconstpointer data)
{
  g_autoptr(OwSession) session = NULL;
  g_autoptr(OwSession) other = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *config = g_build_filename (f->paths->config_dir, "config.toml", NULL);
  OwEvent *failed;
  guint done, first;

  serve (f, "{\"keys\": [\"" KEY_A "\"], \"turns\": [{\"text\": \"reviewed\"}, {\"text\": \"asked\"}]}");
  save (f, KEY_A);
  g_unsetenv ("ANTHROPIC_API_KEY");

  session = new_session (f);
  g_assert_true (ow_session_host_set_mode (f->host, ow_session_get_id (session), "auto-approve", FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (ow_session_host_send (f->host, ow_session_get_id (session), "hello", NULL, NULL));
  first = wait_for (f, "turn_done", 0);
  g_assert_cmpint (index_of (f, "error", 0), <, 0);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);
  /* One read for the model and its reviewer. */
  g_assert_cmpint (g_atomic_int_get (&f->store->lookups), ==, 1);

  /* A reviewer on a provider with no key: refused before the model. */
  g_mkdir_with_parents (f->paths->config_dir, 0700);
  g_assert_true (g_file_set_contents (config, "reviewer_model = \"anthropic:claude-sonnet-4-6\"\n", -1, NULL));
  g_assert_true (ow_context_reload_config (f->ctx, &error));
  g_assert_no_error (error);
  other = new_session (f);
  g_assert_true (ow_session_host_set_mode (f->host, ow_session_get_id (other), "auto-approve", FALSE, NULL));
  g_assert_true (ow_session_host_send (f->host, ow_session_get_id (other), "second", NULL, NULL));
  done = wait_for (f, "turn_done", first + 1);
  failed = g_ptr_array_index (f->events, index_of (f, "error", first + 1));
  g_assert_true (g_str_has_prefix (ow_json_get_string (failed->data, "error"), "auto-approve needs a reviewer model: "));
  g_assert_nonnull (strstr (ow_json_get_string (failed->data, "error"), "Anthropic"));
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);

  /* The control: without auto-approve, Retry sends the same message. */
  g_assert_true (ow_session_host_set_mode (f->host, ow_session_get_id (other), "ask", FALSE, NULL));
  g_assert_true (ow_session_host_retry (f->host, ow_session_get_id (other), &error));
  g_assert_no_error (error);
  wait_for (f, "turn_done", done + 1);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 2);
  {
    g_autofree char *sent = ow_json_object_to_string (json_array_get_object_element (
                                                        ow_model_server_get_requests (f->server), 1));
    g_assert_nonnull (strstr (sent, "second"));
  }
}

/* ---- The cache -------------------------------------------------------------------- */

typedef struct {
  gint        done;
  OwProvider *provider;
  GError     *error;
} Made;

static void
on_made_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Made *made = user_data;

  made->provider = ow_context_create_provider_finish (OW_CONTEXT (source), result, NULL, NULL, &made->error);
  g_atomic_int_set (&made->done, 1);
}

/* The provider for openai:gpt-4o, made with the _async form. */
static OwProvider *
make (Fixture *f, GError **error)
{
  Made made = { 0 };

  ow_context_create_provider_async (f->ctx, "openai:gpt-4o", NULL, on_made_cb, &made);
  OW_TEST_WAIT_UNTIL (g_atomic_int_get (&made.done) >= 1);
  if (made.error != NULL)
    g_propagate_error (error, made.error);
  return made.provider;
}

static void
assert_made_with (Fixture *f, const char *key, gint lookups)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwProvider) provider = make (f, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (ow_provider_get_api_key (provider), ==, key);
  g_assert_cmpint (g_atomic_int_get (&f->store->lookups), ==, lookups);
}

static void
test_cache (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwProvider) none = NULL;
  g_autoptr(OwProvider) sync = NULL;

  save (f, KEY_A);
  assert_made_with (f, KEY_A, 1);
  /* Kept: not read again, by either form. */
  assert_made_with (f, KEY_A, 1);
  sync = ow_context_create_provider (f->ctx, "openai:gpt-4o", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ow_provider_get_api_key (sync), ==, KEY_A);
  g_assert_cmpint (g_atomic_int_get (&f->store->lookups), ==, 1);

  /* A save through the store is seen at once. */
  save (f, KEY_B);
  assert_made_with (f, KEY_B, 2);
  assert_made_with (f, KEY_B, 2);

  /* So is a delete: the key is gone, and the error says how to add one. */
  g_assert_true (ow_secret_store_delete (OW_SECRET_STORE (f->store), OW_SECRET_KIND_PROVIDER, "openai", NULL, &error));
  none = make (f, &error);
  g_assert_null (none);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY);
  g_assert_nonnull (strstr (error->message, "openworker keys set openai"));
  g_clear_error (&error);
  g_assert_cmpint (g_atomic_int_get (&f->store->lookups), ==, 3);
  /* A missing key is looked for again next time (another process may save it). */
  none = make (f, &error);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY);
  g_clear_error (&error);
  g_assert_cmpint (g_atomic_int_get (&f->store->lookups), ==, 4);

  /* The environment wins, and the store is not asked. */
  g_setenv ("OPENAI_API_KEY", "sk-from-the-environment-01", TRUE);
  assert_made_with (f, "sk-from-the-environment-01", 4);
  g_unsetenv ("OPENAI_API_KEY");
}

/* ---- A locked store ----------------------------------------------------------------- */

static void
test_locked (Fixture *f, gconstpointer data)
{
  g_autoptr(OwSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) sync_error = NULL;
  g_autoptr(OwProvider) provider = NULL;
  OwEvent *failed;
  guint done;

  serve (f, "{\"keys\": [\"" KEY_A "\"], \"turns\": [{\"text\": \"unlocked now\"}]}");
  save (f, KEY_A);
  g_atomic_int_set (&f->store->locked, 1);

  /* The same sentence from both forms. */
  provider = make (f, &error);
  g_assert_null (provider);
  g_assert_error (error, OW_PROVIDER_ERROR, OW_PROVIDER_ERROR_NO_KEY);
  g_assert_null (ow_context_create_provider (f->ctx, "openai:gpt-4o", NULL, NULL, &sync_error));
  g_assert_cmpstr (error->message, ==, sync_error->message);
  g_assert_nonnull (strstr (error->message, "could not be read from the secret store"));
  g_assert_nonnull (strstr (error->message, "is locked"));

  session = new_session (f);
  g_assert_true (ow_session_host_send (f->host, ow_session_get_id (session), "hello", NULL, NULL));
  done = wait_for (f, "turn_done", 0);
  failed = g_ptr_array_index (f->events, index_of (f, "error", 0));
  g_assert_cmpint (index_of (f, "error", 0), <, (gint) done);
  g_assert_cmpstr (ow_json_get_string (failed->data, "error"), ==, error->message);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 0);

  /* The control: unlocked, Retry sends the same message with the key. */
  g_atomic_int_set (&f->store->locked, 0);
  g_assert_true (ow_session_host_retry (f->host, ow_session_get_id (session), NULL));
  done = wait_for (f, "turn_done", done + 1);
  g_assert_cmpint (index_of (f, "error", index_of (f, "error", 0) + 1), <, 0);
  g_assert_cmpuint (ow_model_server_get_served (f->server), ==, 1);
  g_assert_cmpstr (request_header (f, 0, "authorization"), ==, "Bearer " KEY_A);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  /* The probe's SoupSession would ask GSettings for a proxy. */
  g_setenv ("GIO_USE_PROXY_RESOLVER", "dummy", TRUE);

  g_test_add ("/ow/engine/provider-keys/turn-waits-off-loop", Fixture, NULL, setup, test_turn_waits_off_loop, teardown);
  g_test_add ("/ow/engine/provider-keys/interrupt-while-waiting", Fixture, NULL, setup, test_interrupt_while_waiting,
              teardown);
  g_test_add ("/ow/engine/provider-keys/reviewer", Fixture, NULL, setup, test_reviewer, teardown);
  g_test_add ("/ow/engine/provider-keys/cache", Fixture, NULL, setup, test_cache, teardown);
  g_test_add ("/ow/engine/provider-keys/locked", Fixture, NULL, setup, test_locked, teardown);
  return g_test_run ();
}
