/* ow-secret-libsecret.h: secrets in the Secret Service (GNOME Keyring,
 * KWallet, KeePassXC), through libsecret.
 *
 * Items use a schema of our own, "org.openworker.Secret", with the string
 * attributes "kind" and "name", and go into the default collection (the
 * "login" keyring on most desktops). A locked keyring is unlocked the usual
 * way — libsecret asks the desktop to prompt — and when no prompt can be
 * shown the caller gets OW_SECRET_ERROR_LOCKED with what to do.
 */
#pragma once

#include "store/ow-secret-store.h"

G_BEGIN_DECLS

#define OW_TYPE_SECRET_LIBSECRET (ow_secret_libsecret_get_type ())
G_DECLARE_FINAL_TYPE (OwSecretLibsecret, ow_secret_libsecret, OW, SECRET_LIBSECRET, GObject)

/* The store, unconditionally: when no Secret Service answers, each call
 * fails with OW_SECRET_ERROR_UNAVAILABLE saying so. */
OwSecretStore *ow_secret_libsecret_new      (void);

/* The factory ow_secret_store_new_default() uses: the store when a Secret
 * Service answers on the session bus and has a default collection, else
 * NULL with OW_SECRET_ERROR_UNAVAILABLE and the reason as a short clause
 * ("no D-Bus session bus is running"). It never starts a session bus (no
 * dbus-launch autolaunch on a headless machine). */
OwSecretStore *ow_secret_libsecret_probe    (GError **error);

/* Registers ow_secret_libsecret_probe() as this machine's OS store. */
void           ow_secret_libsecret_register (void);

G_END_DECLS
