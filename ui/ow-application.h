/* ow-application.h: the desktop application.
 *
 * OwApplication is the one process a person double-clicks. It owns the
 * engine (OwContext, OwSessionHost), the loopback API for the browser
 * (OwServer, in-process, with an in-memory token that is never written to
 * a file) and the secret store, and hands them out with getters; windows
 * and the settings, tray and notification parts use those, never their
 * own copies.
 *
 * Single instance: a second launch presents the running window; a folder
 * given on the command line opens a new session there (GApplication's
 * "open"). With no model key yet, the first window opens Settings on
 * Models & Keys.
 *
 * Actions (for menus, shortcuts, the tray and notifications):
 *   app.new-session            a new session in the main window
 *   app.inbox                  the Inbox page
 *   app.settings (s)           Settings on a page: "models", "sandbox",
 *                              "approvals", "machines", "general" ("" = first)
 *   app.open-session (s)       the main window on that session
 *   app.present                the main window, shown again if hidden
 *   app.about, app.quit
 *
 * Plug-ins: the settings window (ui/settings), the tray (ui/tray) and the
 * notifier (ui/notify) are built when their sources are there; the
 * application creates the tray and the notifier at start-up and keeps the
 * tray's inbox count in step with the notifier's pending count.
 */
#pragma once

#include <adwaita.h>

#include "core/ow-context.h"
#include "core/ow-session-host.h"
#include "server/ow-server.h"
#include "store/ow-secret-store.h"

G_BEGIN_DECLS

#define OW_APPLICATION_ID "com.openworker.OpenWorker"

#define OW_TYPE_APPLICATION (ow_application_get_type ())
G_DECLARE_FINAL_TYPE (OwApplication, ow_application, OW, APPLICATION, AdwApplication)

/* How to start; every member may be left 0/NULL for the defaults. Tests
 * and benchmarks use this to run on a temporary home with a memory secret
 * store and without taking the well-known bus name or port. */
typedef struct {
  const char       *application_id;  /* NULL = OW_APPLICATION_ID */
  GApplicationFlags flags;           /* added to G_APPLICATION_HANDLES_OPEN */
  const OwPaths    *paths;           /* NULL = the machine's folders (copied) */
  OwSecretStore    *secrets;         /* NULL = the machine's default store (a reference is taken) */
  gboolean          isolated;        /* read nothing from the machine */
  gboolean          no_server;       /* do not serve the loopback API */
  guint             server_port;     /* 0 = OW_SERVER_DEFAULT_PORT (next free ones tried) */
  gboolean          any_port;        /* let the kernel pick the port (tests) */
  gboolean          skip_first_run;  /* never open Settings by itself */
} OwApplicationOptions;

OwApplication *ow_application_new               (const OwApplicationOptions *options);

/* The engine and its services; NULL before start-up or when the engine
 * could not start (see ow_application_get_startup_error()). Borrowed. */
OwContext     *ow_application_get_context       (OwApplication *self);
OwSessionHost *ow_application_get_host          (OwApplication *self);
OwServer      *ow_application_get_server        (OwApplication *self);
OwSecretStore *ow_application_get_secrets       (OwApplication *self);
const GError  *ow_application_get_startup_error (OwApplication *self);

/* The models that can run here (OwModelChoice*, see
 * core/ow-model-choices.h), as of the last refresh. Borrowed. */
GPtrArray     *ow_application_get_model_choices (OwApplication *self);
/* The "model-ready" property: at least one model can run. */
gboolean       ow_application_get_model_ready   (OwApplication *self);
/* Reads the saved keys again (after Models & Keys changed them) and
 * updates the choices; emits ::models-changed. Asynchronous. */
void           ow_application_refresh_models    (OwApplication *self);

/* The "run-in-background" property: closing the window keeps the
 * application — its sessions, the API, later automations — running. */
gboolean       ow_application_get_run_in_background (OwApplication *self);
void           ow_application_set_run_in_background (OwApplication *self, gboolean run);

/* The "inbox-count" property: asks waiting for a person, every session. */
guint          ow_application_get_inbox_count   (OwApplication *self);

/* Stops the engine's sessions, the API and the plug-ins (the tray and the
 * notifier hold the application). Shutdown does it; code that registers
 * an application without g_application_run() — tests, the benchmark —
 * calls it before dropping its reference, and it runs that same shutdown
 * (GTK's part included, which holds the application until then). */
void           ow_application_close             (OwApplication *self);

/* The main window, created when needed. */
GtkWindow     *ow_application_get_main_window   (OwApplication *self);

G_END_DECLS
