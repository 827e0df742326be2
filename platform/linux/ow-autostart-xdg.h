/* ow-autostart-xdg.h: "start at login" through an XDG autostart entry.
 *
 * The freedesktop.org autostart specification: a desktop entry in
 * $XDG_CONFIG_HOME/autostart/<app-id>.desktop is started by the session
 * (GNOME, KDE, Xfce, and systemd's xdg-autostart-generator) when the person
 * logs in. Turning it off deletes our entry; where a system-wide entry of
 * the same name exists (/etc/xdg/autostart), a user entry with Hidden=true
 * is written instead, which hides it.
 */
#pragma once

#include "store/ow-autostart.h"

G_BEGIN_DECLS

#define OW_TYPE_AUTOSTART_XDG (ow_autostart_xdg_get_type ())
G_DECLARE_FINAL_TYPE (OwAutostartXdg, ow_autostart_xdg, OW, AUTOSTART_XDG, GObject)

/* @autostart_dir: where entries go; NULL = $XDG_CONFIG_HOME/autostart. */
OwAutostart *ow_autostart_xdg_new      (const OwAutostartSpec *spec,
                                        const char            *autostart_dir);
/* The entry's path. */
const char  *ow_autostart_xdg_get_path (OwAutostartXdg *self);
/* Registers the XDG implementation as this system's (call from main()). */
void         ow_autostart_xdg_register (void);

/* Quotes one argument for an Exec= line, as the Desktop Entry
 * specification asks (before the key file's own escaping). */
char        *ow_autostart_xdg_quote_arg (const char *arg);

G_END_DECLS
