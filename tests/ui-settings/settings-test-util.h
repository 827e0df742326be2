/* settings-test-util.h: what the settings UI tests share.
 *
 * A temporary OpenWorker home under $HOME (so ui-session.py's search for
 * test secrets covers it) with its own OwContext and the machine's secret
 * store (the real keyring in ui-session.py), waiting on the config
 * file, closing a window (asserted finalized), widget lookups by name and
 * by text, and screenshots: GTK's own snapshot of a window rendered to a
 * PNG in $OW_SCREENSHOT_DIR.
 */
#pragma once

#include <gtk/gtk.h>

#include "core/ow-context.h"
#include "ow-test-utils.h"

G_BEGIN_DECLS

/* Every test secret contains this: ui-session.py looks for it in every file. */
#define SECRET_MARKER "owtest-secret-Zq8"

typedef struct {
  char          *dir;       /* the OpenWorker home (config, data, runtime under it) */
  OwPaths       *paths;
  OwSecretStore *secrets;
  OwContext     *ctx;
} SettingsHome;

/* Makes the home; @config_toml (may be NULL) is written as its config.toml
 * before the context reads it. */
void        settings_home_init   (SettingsHome *home, const char *config_toml);
void        settings_home_clear  (SettingsHome *home);
/* The config.toml as text now ("" when absent). */
char       *settings_home_config (SettingsHome *home);

/* Spins until the config file holds @needle and no settings write is under
 * way (so the context has reloaded it). */
void        wait_config_holds    (SettingsHome *home, const char *needle);

/* Destroys @window and asserts it was finalized with that: nothing the
 * test did left a reference or a cycle behind. */
void        close_window         (gpointer window);

/* The first widget under @root (itself included) named @name (its widget
 * name or its template id) / of @type
 * (G_TYPE_INVALID: any) / showing a label containing @text. */
GtkWidget  *find_named           (GtkWidget *root, const char *name, GType type);
GtkWidget  *find_type            (GtkWidget *root, GType type);
GtkLabel   *find_label           (GtkWidget *root, const char *text);
/* The toplevel of @type other than @not, if one is open. */
GtkWidget  *find_toplevel        (GType type, GtkWidget *not);

/* Renders @widget's window as it is on screen to $OW_SCREENSHOT_DIR/@name.png. */
void        screenshot           (GtkWidget *widget, const char *name);

G_END_DECLS
