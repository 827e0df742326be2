/* ow-settings-io.c: settings writes in worker threads (see ow-settings-io.h). */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-settings-io.h"

#include "ow-settings-resources.h"

void
ow_settings_ensure_resources (void)
{
  static gsize registered;

  /* Registered by hand: a static library drops a resource file's
   * constructor when nothing refers to it. */
  if (g_once_init_enter (&registered))
    {
      ow_settings_register_resource ();
      g_once_init_leave (&registered, 1);
    }
}

/* Writes started and not yet reported back (main thread only). */
static guint in_flight;

guint
ow_settings_io_get_in_flight (void)
{
  return in_flight;
}

/* The caller's callback, and the count lowered only once it has run: a
 * config.toml write is done when the context has read the file again,
 * not when the file changed. */
typedef struct {
  GAsyncReadyCallback callback;
  gpointer            user_data;
} Relay;

static void
on_io_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Relay relay = *(Relay *) user_data;

  g_free (user_data);
  if (relay.callback != NULL)
    relay.callback (source, result, relay.user_data);
  g_assert (in_flight > 0);
  in_flight--;
}

typedef struct {
  OwSettingsIoFunc func;
  gpointer         data;
  GDestroyNotify   destroy;
} Job;

static void
job_free (Job *job)
{
  if (job->destroy != NULL)
    job->destroy (job->data);
  g_free (job);
}

static void
run_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;

  if (job->func (job->data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
ow_settings_io_run_async (gpointer             source,
                          OwSettingsIoFunc     func,
                          gpointer             data,
                          GDestroyNotify       destroy,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  Relay *relay = g_new0 (Relay, 1);
  g_autoptr(GTask) task = NULL;
  Job *job = g_new0 (Job, 1);

  relay->callback = callback;
  relay->user_data = user_data;
  task = g_task_new (source, cancellable, on_io_done_cb, relay);
  in_flight++;

  job->func = func;
  job->data = data;
  job->destroy = destroy;
  g_task_set_source_tag (task, ow_settings_io_run_async);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, run_in_thread);
}

gboolean
ow_settings_io_run_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (G_IS_TASK (result), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- config.toml ------------------------------------------------------------ */

typedef struct {
  char     *path;
  char     *key;
  JsonNode *value;   /* NULL removes */
} ConfigWrite;

static void
config_write_free (ConfigWrite *w)
{
  g_free (w->path);
  g_free (w->key);
  g_clear_pointer (&w->value, json_node_unref);
  g_free (w);
}

static gboolean
config_write (gpointer data, GCancellable *cancellable, GError **error)
{
  ConfigWrite *w = data;

  return ow_config_file_set (w->path, w->key, w->value, error);
}

static void
on_config_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  OwContext *ctx = g_task_get_source_object (task);
  GError *error = NULL;

  /* The file changed (or not); either way, read what is there now. */
  if (!ow_settings_io_run_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!ow_context_reload_config (ctx, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
ow_settings_config_set_async (OwContext           *ctx,
                              const char          *key,
                              JsonNode            *value,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (ctx, cancellable, callback, user_data);
  ConfigWrite *w = g_new0 (ConfigWrite, 1);

  g_task_set_source_tag (task, ow_settings_config_set_async);
  w->path = ow_context_dup_config_path (ctx);
  w->key = g_strdup (key);
  w->value = value != NULL ? json_node_ref (value) : NULL;
  ow_settings_io_run_async (ctx, config_write, w, (GDestroyNotify) config_write_free, cancellable,
                            on_config_written_cb, task);
}

gboolean
ow_settings_config_set_finish (OwContext *ctx, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, ctx), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

JsonNode *
ow_settings_node_string (const char *value)
{
  return json_node_init_string (json_node_alloc (), value);
}

JsonNode *
ow_settings_node_bool (gboolean value)
{
  return json_node_init_boolean (json_node_alloc (), value);
}

JsonNode *
ow_settings_node_strv (const char *const *values)
{
  g_autoptr(JsonArray) arr = json_array_new ();

  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    json_array_add_string_element (arr, values[i]);
  return json_node_init_array (json_node_alloc (), arr);
}
