/* ow-autostart-xdg.c: the XDG autostart entry (see ow-autostart-xdg.h). */
#define G_LOG_DOMAIN "ow-autostart"

#include "ow-autostart-xdg.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

struct _OwAutostartXdg
{
  GObject  parent_instance;

  char    *path;       /* the user entry: <dir>/<app-id>.desktop (owned) */
  char    *system;     /* a system-wide entry of the same name, or NULL (owned) */
  char    *app_id;     /* owned */
  char    *name;       /* owned */
  char    *icon;       /* owned, may be NULL */
  GStrv    argv;       /* owned */
};

static void ow_autostart_xdg_iface_init (OwAutostartInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (OwAutostartXdg, ow_autostart_xdg, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (OW_TYPE_AUTOSTART, ow_autostart_xdg_iface_init))

#define GROUP G_KEY_FILE_DESKTOP_GROUP

char *
ow_autostart_xdg_quote_arg (const char *arg)
{
  /* The reserved characters of the specification's Exec key. */
  static const char reserved[] = " \t\n\"'\\><~|&;$*?#()`";
  GString *out;

  if (*arg != '\0' && strpbrk (arg, reserved) == NULL && strchr (arg, '%') == NULL)
    return g_strdup (arg);
  out = g_string_new ("\"");
  for (const char *p = arg; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '`' || *p == '$' || *p == '\\')
        g_string_append_c (out, '\\');
      if (*p == '%')
        g_string_append_c (out, '%');   /* a literal percent is %% */
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
  return g_string_free (out, FALSE);
}

static char *
exec_line (OwAutostartXdg *self)
{
  g_autoptr(GString) line = g_string_new (NULL);

  for (guint i = 0; self->argv[i] != NULL; i++)
    {
      g_autofree char *q = ow_autostart_xdg_quote_arg (self->argv[i]);

      if (i > 0)
        g_string_append_c (line, ' ');
      g_string_append (line, q);
    }
  return g_string_free (g_steal_pointer (&line), FALSE);
}

static gboolean
ow_autostart_xdg_is_enabled (OwAutostart *autostart)
{
  OwAutostartXdg *self = OW_AUTOSTART_XDG (autostart);
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  const char *path = self->path;

  /* A user entry shadows the system's; without one, the system's counts. */
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    path = self->system;
  if (path == NULL || !g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, NULL))
    return FALSE;
  if (g_key_file_get_boolean (kf, GROUP, G_KEY_FILE_DESKTOP_KEY_HIDDEN, NULL))
    return FALSE;
  if (g_key_file_has_key (kf, GROUP, "X-GNOME-Autostart-enabled", NULL)
      && !g_key_file_get_boolean (kf, GROUP, "X-GNOME-Autostart-enabled", NULL))
    return FALSE;
  return TRUE;
}

static gboolean
write_entry (OwAutostartXdg *self, gboolean hidden, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *dir = g_path_get_dirname (self->path);
  g_autofree char *exec = exec_line (self);
  g_autofree char *data = NULL;
  gsize len = 0;

  g_key_file_set_string (kf, GROUP, G_KEY_FILE_DESKTOP_KEY_TYPE, G_KEY_FILE_DESKTOP_TYPE_APPLICATION);
  g_key_file_set_string (kf, GROUP, G_KEY_FILE_DESKTOP_KEY_NAME, self->name);
  g_key_file_set_string (kf, GROUP, G_KEY_FILE_DESKTOP_KEY_EXEC, exec);
  if (self->icon != NULL)
    g_key_file_set_string (kf, GROUP, G_KEY_FILE_DESKTOP_KEY_ICON, self->icon);
  g_key_file_set_boolean (kf, GROUP, G_KEY_FILE_DESKTOP_KEY_TERMINAL, FALSE);
  g_key_file_set_boolean (kf, GROUP, G_KEY_FILE_DESKTOP_KEY_NO_DISPLAY, TRUE);
  if (hidden)
    g_key_file_set_boolean (kf, GROUP, G_KEY_FILE_DESKTOP_KEY_HIDDEN, TRUE);
  else
    g_key_file_set_boolean (kf, GROUP, "X-GNOME-Autostart-enabled", TRUE);
  data = g_key_file_to_data (kf, &len, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Could not create %s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  return g_file_set_contents_full (self->path, data, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

static gboolean
ow_autostart_xdg_set_enabled (OwAutostart *autostart, gboolean enabled, GError **error)
{
  OwAutostartXdg *self = OW_AUTOSTART_XDG (autostart);

  if (enabled)
    return write_entry (self, FALSE, error);
  /* A system-wide entry is hidden by a user entry that says so. */
  if (self->system != NULL)
    return write_entry (self, TRUE, error);
  if (g_unlink (self->path) != 0 && errno != ENOENT)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Could not remove %s: %s", self->path,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static char *
ow_autostart_xdg_describe (OwAutostart *autostart)
{
  OwAutostartXdg *self = OW_AUTOSTART_XDG (autostart);
  const char *home = g_get_home_dir ();
  gsize n = strlen (home);

  if (n > 1 && g_str_has_prefix (self->path, home) && self->path[n] == '/')
    return g_strconcat ("~", self->path + n, NULL);
  return g_strdup (self->path);
}

static void
ow_autostart_xdg_iface_init (OwAutostartInterface *iface)
{
  iface->is_enabled = ow_autostart_xdg_is_enabled;
  iface->set_enabled = ow_autostart_xdg_set_enabled;
  iface->describe = ow_autostart_xdg_describe;
}

static void
ow_autostart_xdg_finalize (GObject *object)
{
  OwAutostartXdg *self = OW_AUTOSTART_XDG (object);

  g_free (self->path);
  g_free (self->system);
  g_free (self->app_id);
  g_free (self->name);
  g_free (self->icon);
  g_strfreev (self->argv);
  G_OBJECT_CLASS (ow_autostart_xdg_parent_class)->finalize (object);
}

static void
ow_autostart_xdg_class_init (OwAutostartXdgClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ow_autostart_xdg_finalize;
}

static void
ow_autostart_xdg_init (OwAutostartXdg *self)
{
}

OwAutostart *
ow_autostart_xdg_new (const OwAutostartSpec *spec, const char *autostart_dir)
{
  OwAutostartXdg *self;
  g_autofree char *file = NULL;
  g_autofree char *dir = NULL;

  g_return_val_if_fail (spec != NULL && spec->app_id != NULL && spec->argv != NULL && spec->argv[0] != NULL, NULL);

  self = g_object_new (OW_TYPE_AUTOSTART_XDG, NULL);
  self->app_id = g_strdup (spec->app_id);
  self->name = g_strdup (spec->name != NULL ? spec->name : spec->app_id);
  self->icon = g_strdup (spec->icon);
  self->argv = g_strdupv ((char **) spec->argv);
  file = g_strconcat (spec->app_id, ".desktop", NULL);
  dir = autostart_dir != NULL ? g_strdup (autostart_dir) : g_build_filename (g_get_user_config_dir (), "autostart", NULL);
  self->path = g_build_filename (dir, file, NULL);
  /* A system-wide entry only matters for the real folder, not a test's. */
  if (autostart_dir == NULL)
    for (const char *const *d = g_get_system_config_dirs (); *d != NULL && self->system == NULL; d++)
      {
        g_autofree char *candidate = g_build_filename (*d, "autostart", file, NULL);
        if (g_file_test (candidate, G_FILE_TEST_IS_REGULAR))
          self->system = g_steal_pointer (&candidate);
      }
  return OW_AUTOSTART (self);
}

const char *
ow_autostart_xdg_get_path (OwAutostartXdg *self)
{
  g_return_val_if_fail (OW_IS_AUTOSTART_XDG (self), NULL);
  return self->path;
}

static OwAutostart *
xdg_factory (const OwAutostartSpec *spec)
{
  return ow_autostart_xdg_new (spec, NULL);
}

void
ow_autostart_xdg_register (void)
{
  ow_autostart_register_os (xdg_factory);
}
