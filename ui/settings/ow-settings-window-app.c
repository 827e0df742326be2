/* ow-settings-window-app.c: the Settings window of the running application.
 *
 * The only part of ui/settings that knows OwApplication: the pages work
 * on the engine's services alone (ow-settings-window-private.h), which is
 * what lets the tests give each window a context of its own.
 */
#define G_LOG_DOMAIN "ow-settings"

#include "config-ui.h"
#include "ow-application.h"
#include "ow-settings-window-private.h"

static void
on_providers_changed_cb (OwSettingsWindow *window, gpointer user_data)
{
  /* The models the composer offers follow the keys at once. */
  ow_application_refresh_models (OW_APPLICATION (user_data));
}

GtkWindow *
ow_settings_window_new (OwApplication *app, const char *page)
{
  OwContext *ctx;
  GtkWindow *window;
  g_autoptr(OwAutostart) autostart = NULL;

  g_return_val_if_fail (OW_IS_APPLICATION (app), NULL);

  ctx = ow_application_get_context (app);
  if (ctx == NULL)
    return NULL;   /* the engine did not start; the application says why */
  autostart = ow_settings_default_autostart ();
  window = ow_settings_window_new_for (GTK_APPLICATION (app), ctx, ow_application_get_secrets (app), autostart,
                                       ow_application_get_host (app), page);
  g_signal_connect_object (window, "providers-changed", G_CALLBACK (on_providers_changed_cb), app, 0);
  return window;
}
