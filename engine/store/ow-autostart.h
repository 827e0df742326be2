/* ow-autostart.h: starting OpenWorker when the person logs in.
 *
 * "Start at login" in Settings ▸ General. How a program starts with the
 * session is the operating system's business — an XDG autostart entry on
 * Linux, a login item on macOS, a Run key or a scheduled task on Windows —
 * so OwAutostart is a seam: the implementations live in platform/ and
 * register a factory at start-up (ow_autostart_xdg_register () on Linux),
 * as the secret store's do. Where none is registered there is no such
 * setting, and the settings screen says so.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define OW_TYPE_AUTOSTART (ow_autostart_get_type ())
G_DECLARE_INTERFACE (OwAutostart, ow_autostart, OW, AUTOSTART, GObject)

struct _OwAutostartInterface
{
  GTypeInterface parent_iface;

  /* Whether the program starts at login now. Reads a small file at most. */
  gboolean  (*is_enabled)  (OwAutostart *self);
  /* Turns starting at login on or off. */
  gboolean  (*set_enabled) (OwAutostart  *self,
                            gboolean      enabled,
                            GError      **error);
  /* Where the choice is kept, for a person ("~/.config/autostart/…"). */
  char     *(*describe)    (OwAutostart *self);
};

gboolean     ow_autostart_is_enabled  (OwAutostart  *self);
/* Blocking file I/O: call it from a worker thread (the settings screen does). */
gboolean     ow_autostart_set_enabled (OwAutostart  *self,
                                       gboolean      enabled,
                                       GError      **error);
/* Returns: (transfer full): where the choice is kept */
char        *ow_autostart_describe    (OwAutostart  *self);

/* What to start: the application's id (the entry's file name on Linux), a
 * name people see, the command line (argv[0] absolute) and an icon name. */
typedef struct {
  const char        *app_id;
  const char        *name;
  const char *const *argv;
  const char        *icon;
} OwAutostartSpec;

typedef OwAutostart *(*OwAutostartFactory) (const OwAutostartSpec *spec);

/* Registers this system's implementation; platform/ calls it from main().
 * The last one wins. */
void         ow_autostart_register_os (OwAutostartFactory factory);

/**
 * ow_autostart_new_default:
 * @spec: what to start (copied by the implementation)
 *
 * Returns: (transfer full) (nullable): this system's implementation, or
 *   %NULL when none is registered
 */
OwAutostart *ow_autostart_new_default (const OwAutostartSpec *spec);

G_END_DECLS
