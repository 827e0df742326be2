/* ow-winsandbox-helper.c: openworker-winsandbox.exe, the core's own door.
 *
 * The elevated setup script calls this for the two things PowerShell has
 * no command for: the WFP loopback filters and the denied logon rights.
 * It also prints the status and runs the wall check from inside a
 * sandbox (started as the account, it reports what it could reach). It
 * links the GLib-free core only, so it is small and can be started
 * elevated without loading anything of the app.
 *
 *   openworker-winsandbox wfp-add --sid SID [--port-low N --port-high N]
 *   openworker-winsandbox wfp-remove | wfp-status
 *   openworker-winsandbox deny-logon-rights --sid SID
 *   openworker-winsandbox status [--program-data DIR]
 *   openworker-winsandbox wall-check --profile DIR [--folder DIR]… [--probe-port N]
 *
 * Exit codes: 0 done (or: the wall holds), 1 failed, 2 usage, 3 the wall
 * does not hold.
 */
#include <windows.h>
#include <shellapi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ow-winsandbox.h"

static const char *
option (int argc, char **argv, const char *name)
{
  for (int i = 2; i + 1 < argc; i++)
    if (strcmp (argv[i], name) == 0)
      return argv[i + 1];
  return NULL;
}

static void
print_json_string (const char *s)
{
  putchar ('"');
  for (const unsigned char *p = (const unsigned char *) s; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        printf ("\\%c", *p);
      else if (*p < 0x20)
        printf ("\\u%04x", *p);
      else
        putchar (*p);
    }
  putchar ('"');
}

static void
print_checks (const OwWsCheck *checks, size_t n)
{
  printf ("{\"checks\": [");
  for (size_t i = 0; i < n; i++)
    {
      printf ("%s{\"name\": ", i > 0 ? ", " : "");
      print_json_string (checks[i].name);
      printf (", \"ok\": %s, \"detail\": ", checks[i].ok == 1 ? "true" : checks[i].ok == 0 ? "false" : "null");
      print_json_string (checks[i].detail);
      putchar ('}');
    }
  printf ("], \"ready\": %s}\n", ow_ws_checks_ok (checks, n) ? "true" : "false");
}

static int
fail (char *error)
{
  fprintf (stderr, "%s\n", error != NULL ? error : "failed");
  free (error);
  return 1;
}

static int
run (int argc, char **argv)
{
  const char *cmd = argc > 1 ? argv[1] : "";
  char *error = NULL;

  if (strcmp (cmd, "wfp-add") == 0)
    {
      const char *sid = option (argc, argv, "--sid");
      const char *low = option (argc, argv, "--port-low"), *high = option (argc, argv, "--port-high");

      if (sid == NULL)
        return 2;
      if (!ow_ws_wfp_install (sid, low != NULL ? atoi (low) : OW_WS_PORT_LOW,
                              high != NULL ? atoi (high) : OW_WS_PORT_HIGH, &error))
        return fail (error);
      printf ("{\"filters\": [\"%s\", \"%s\", \"%s\", \"%s\"]}\n", OW_WS_WFP_PERMIT_V4, OW_WS_WFP_BLOCK_V4,
              OW_WS_WFP_PERMIT_V6, OW_WS_WFP_BLOCK_V6);
      return 0;
    }
  if (strcmp (cmd, "wfp-remove") == 0)
    return ow_ws_wfp_remove (&error) ? 0 : fail (error);
  if (strcmp (cmd, "wfp-status") == 0)
    {
      char *detail = NULL;
      int present = ow_ws_wfp_present (&detail);

      printf ("%s\n", detail != NULL ? detail : "");
      free (detail);
      return present == 1 ? 0 : present == 0 ? 3 : 1;
    }
  if (strcmp (cmd, "deny-logon-rights") == 0)
    {
      const char *sid = option (argc, argv, "--sid");

      if (sid == NULL)
        return 2;
      return ow_ws_deny_logon_rights (sid, &error) ? 0 : fail (error);
    }
  if (strcmp (cmd, "status") == 0)
    {
      const char *pd = option (argc, argv, "--program-data");
      char buf[MAX_PATH];
      OwWsCheck *checks = NULL;
      size_t n;

      if (pd == NULL)
        {
          DWORD len = GetEnvironmentVariableA ("ProgramData", buf, sizeof buf);

          pd = len > 0 && len < sizeof buf ? buf : "C:\\ProgramData";
        }
      n = ow_ws_status (pd, &checks);
      print_checks (checks, n);
      ow_ws_checks_free (checks, n);
      return 0;
    }
  if (strcmp (cmd, "wall-check") == 0)
    {
      const char *profile = option (argc, argv, "--profile");
      const char *port = option (argc, argv, "--probe-port");
      const char **folders = calloc ((size_t) argc, sizeof *folders);
      OwWsCheck *checks = NULL;
      size_t n = 0, nf = 0;
      int proved;

      if (folders == NULL || profile == NULL)
        {
          free (folders);
          return 2;
        }
      for (int i = 2; i + 1 < argc; i++)
        if (strcmp (argv[i], "--folder") == 0)
          folders[nf++] = argv[i + 1];
      proved = ow_ws_wall_check (profile, folders, port != NULL ? atoi (port) : 0, &checks, &n);
      print_checks (checks, n);
      ow_ws_checks_free (checks, n);
      free (folders);
      return proved ? 0 : 3;
    }
  fprintf (stderr, "usage: openworker-winsandbox wfp-add|wfp-remove|wfp-status|deny-logon-rights|status|wall-check …\n");
  return 2;
}

int
main (void)
{
  int argc = 0;
  wchar_t **wargv = CommandLineToArgvW (GetCommandLineW (), &argc);
  char **argv;
  int code;

  if (wargv == NULL)
    return 1;
  argv = calloc ((size_t) argc + 1, sizeof *argv);
  if (argv == NULL)
    return 1;
  for (int i = 0; i < argc; i++)
    argv[i] = ow_ws_utf8 (wargv[i]);
  LocalFree (wargv);
  SetConsoleOutputCP (CP_UTF8);
  code = run (argc, argv);
  ow_ws_strv_free (argv);
  return code;
}
