/* test-winsandbox.c: the Windows sandbox core, natively and under Wine.
 *
 * GLib-free like the core. Built natively it tests the portable half
 * (paths, SDDL, the grant plan, command lines, environments, the
 * credential plaintext, setup.json, the scripts against golden files).
 * Built with mingw-w64 and run under Wine it runs the same tests again
 * on Windows' C runtime and then the Win32 half as far as Wine goes:
 * DPAPI sealing, access lists in memory, the WFP filters as built, the
 * status of an empty and a half-made setup, a job that kills what is in
 * it, and the wall check, which under Wine must say the wall is NOT up
 * (Wine has no second account), with positive controls beside each
 * refusal.
 *
 *   test-winsandbox GOLDEN_DIR      (OW_UPDATE_GOLDEN=1 rewrites the golden files)
 */
#ifdef _WIN32
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <sddl.h>
#include <fwpmu.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ow-winsandbox.h"

static int failures;
static int checks_run;
static const char *golden_dir;

#define CHECK(cond) check_at ((cond) != 0, #cond, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str_at ((a), (b), #a, __FILE__, __LINE__)
#define CHECK_HAS(hay, needle) check_has_at ((hay), (needle), __FILE__, __LINE__)

static void
check_at (int ok, const char *what, const char *file, int line)
{
  checks_run++;
  if (!ok)
    {
      failures++;
      fprintf (stderr, "%s:%d: check failed: %s\n", file, line, what);
    }
}

static void
check_str_at (const char *got, const char *want, const char *what, const char *file, int line)
{
  checks_run++;
  if (got == NULL || want == NULL || strcmp (got, want) != 0)
    {
      failures++;
      fprintf (stderr, "%s:%d: %s\n  got:  %s\n  want: %s\n", file, line, what, got ? got : "(null)",
               want ? want : "(null)");
    }
}

static void
check_has_at (const char *hay, const char *needle, const char *file, int line)
{
  checks_run++;
  if (hay == NULL || strstr (hay, needle) == NULL)
    {
      failures++;
      fprintf (stderr, "%s:%d: “%s” not found in:\n%s\n", file, line, needle, hay ? hay : "(null)");
    }
}

static char *
read_file (const char *path)
{
  FILE *f = fopen (path, "rb");
  char *buf;
  long n;

  if (f == NULL)
    return NULL;
  fseek (f, 0, SEEK_END);
  n = ftell (f);
  fseek (f, 0, SEEK_SET);
  buf = malloc ((size_t) n + 1);
  if (buf == NULL || fread (buf, 1, (size_t) n, f) != (size_t) n)
    {
      fclose (f);
      free (buf);
      return NULL;
    }
  buf[n] = '\0';
  fclose (f);
  return buf;
}

static void
check_golden (const char *name, const char *text)
{
  char path[1024];
  char *want;

  snprintf (path, sizeof path, "%s/%s", golden_dir, name);
  if (getenv ("OW_UPDATE_GOLDEN") != NULL)
    {
      FILE *f = fopen (path, "wb");

      CHECK (f != NULL);
      if (f != NULL)
        {
          fputs (text, f);
          fclose (f);
        }
      return;
    }
  want = read_file (path);
  checks_run++;
  if (want == NULL || strcmp (want, text) != 0)
    {
      failures++;
      fprintf (stderr, "golden file %s differs (OW_UPDATE_GOLDEN=1 rewrites it); rendered:\n%s\n", path, text);
    }
  free (want);
}

/* --- the portable half ---------------------------------------------------- */

static void
test_paths (void)
{
  const char *good[][2] = {
    { "C:\\Users\\ada", "C:\\Users\\ada" },
    { "c:/Users/ada/code/", "C:\\Users\\ada\\code" },
    { "D:\\\\data\\\\set", "D:\\data\\set" },
    { "C:\\", "C:\\" },
    { "C:/", "C:\\" },
    { "C:\\Users\\ada\\Ünïcødé 文件", "C:\\Users\\ada\\Ünïcødé 文件" },
    { "C:\\Users\\ada\\O'Brien", "C:\\Users\\ada\\O'Brien" },
  };
  const char *bad[] = {
    "relative\\path", "\\\\server\\share\\x", "C:relative", "C:\\a\\..\\b", "C:\\a\\.\\b", "C:\\code.",
    "C:\\code \\x", "C:\\a\\b?c", "C:\\new\nline", "", NULL,
  };

  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    {
      char *error = NULL;
      char *got = ow_ws_normalize_path (good[i][0], &error);

      CHECK_STR (got, good[i][1]);
      CHECK (error == NULL);
      free (got);
      free (error);
    }
  for (size_t i = 0; bad[i] != NULL; i++)
    {
      char *error = NULL;
      char *got = ow_ws_normalize_path (bad[i], &error);

      CHECK (got == NULL);
      CHECK (error != NULL && strlen (error) > 20);
      free (got);
      free (error);
    }

  CHECK (ow_ws_path_within ("C:\\Users\\ada\\code", "C:\\Users\\ada"));
  CHECK (ow_ws_path_within ("c:\\users\\ADA\\code", "C:\\Users\\ada"));
  CHECK (ow_ws_path_within ("C:\\Users\\ada", "C:\\Users\\ada"));
  CHECK (ow_ws_path_within ("C:\\Users", "C:\\"));
  CHECK (!ow_ws_path_within ("C:\\Users\\adam", "C:\\Users\\ada"));
  CHECK (!ow_ws_path_within ("C:\\Users", "C:\\Users\\ada"));
  CHECK (!ow_ws_path_within ("D:\\Users\\ada", "C:\\Users\\ada"));

  {
    char *root = ow_ws_root_dir ("C:\\ProgramData");

    CHECK_STR (root, "C:\\ProgramData\\OpenWorker\\sandbox");
    free (root);
  }
}

static void
test_sddl (void)
{
  const char *sid = "S-1-5-21-1004336348-1177238915-682003330-1001";
  char *s;

  CHECK (ow_ws_sid_is_valid (sid));
  CHECK (ow_ws_sid_is_valid ("S-1-5-32-545"));
  CHECK (!ow_ws_sid_is_valid ("S-1-"));
  CHECK (!ow_ws_sid_is_valid ("S-1-5-)(A;;FA;;;WD"));
  CHECK (!ow_ws_sid_is_valid ("WD"));
  CHECK (!ow_ws_sid_is_valid (NULL));

  s = ow_ws_sddl_ace (OW_WS_GRANT_WRITE, sid);
  CHECK_STR (s, "(A;OICI;0x1301bf;;;S-1-5-21-1004336348-1177238915-682003330-1001)");
  free (s);
  s = ow_ws_sddl_ace (OW_WS_GRANT_READ, "S-1-5-21-1-2-3-1002");
  CHECK_STR (s, "(A;OICI;0x1200a9;;;S-1-5-21-1-2-3-1002)");
  free (s);
  s = ow_ws_sddl_ace (OW_WS_GRANT_TRAVERSE, "S-1-5-21-1-2-3-1002");
  CHECK_STR (s, "(A;;0x1000a0;;;S-1-5-21-1-2-3-1002)");
  free (s);
  s = ow_ws_sddl_ace (OW_WS_GRANT_DENY_WRITE, "S-1-5-21-1-2-3-1002");
  CHECK_STR (s, "(D;OICI;0x10156;;;S-1-5-21-1-2-3-1002)");
  free (s);
  s = ow_ws_sddl_match_user ("S-1-5-21-1-2-3-1003");
  CHECK_STR (s, "D:(A;;CC;;;S-1-5-21-1-2-3-1003)");
  free (s);
  s = ow_ws_sddl_cred_file ("S-1-5-21-1-2-3-1001");
  CHECK_STR (s, "D:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;S-1-5-21-1-2-3-1001)");
  free (s);
  s = ow_ws_sddl_root_dir ("S-1-5-21-9-1001", "S-1-5-21-9-1002", "S-1-5-21-9-1003");
  CHECK_STR (s, "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;S-1-5-21-9-1001)"
                "(A;;0x1000a0;;;S-1-5-21-9-1002)(A;;0x1000a0;;;S-1-5-21-9-1003)");
  free (s);
  /* Traverse is this folder only; everything else is inherited. */
  CHECK (ow_ws_grant_inheritance (OW_WS_GRANT_TRAVERSE) == 0);
  CHECK (ow_ws_grant_inheritance (OW_WS_GRANT_WRITE) == 3);
  /* Traverse lets nothing be read or listed. */
  CHECK ((OW_WS_MASK_TRAVERSE & 0x1u) == 0);  /* FILE_LIST_DIRECTORY / FILE_READ_DATA */
  CHECK ((OW_WS_MASK_READ & 0x6u) == 0);      /* no write data / append */
}

static char *
grants_text (const OwWsGrants *g)
{
  size_t cap = 64, len = 0;
  char *out = malloc (cap);

  out[0] = '\0';
  for (size_t i = 0; i < g->len; i++)
    {
      const char *kind = ow_ws_grant_kind_name (g->items[i].kind);
      size_t need = strlen (kind) + strlen (g->items[i].path) + 4;

      while (len + need >= cap)
        out = realloc (out, cap *= 2);
      len += (size_t) sprintf (out + len, "%s %s\n", kind, g->items[i].path);
    }
  return out;
}

static void
test_plan (void)
{
  const char *rw[] = { "C:\\Users\\ada\\code\\app", "D:\\shared", NULL };
  const char *ro[] = { "C:\\Users\\ada\\code\\app\\vendor", "C:\\Users\\ada\\Documents\\specs", "C:/Users/ada/code/app", NULL };
  const char *tc[] = { "C:\\Users\\ada\\AppData\\Roaming\\npm", "C:\\Users\\ada\\.cargo", NULL };
  OwWsPlanInput in = {
    .profile_root = "C:\\Users\\ada",
    .private_dir = "C:\\ProgramData\\OpenWorker\\sandbox\\sandboxes\\owr-1",
    .writable = rw,
    .readonly = ro,
    .toolchains = tc,
  };
  OwWsGrants g = { 0 };
  char *error = NULL, *text;

  CHECK (ow_ws_plan_grants (&in, &g, &error));
  CHECK (error == NULL);
  text = grants_text (&g);
  CHECK_STR (text,
             "write C:\\Users\\ada\\code\\app\n"
             "write D:\\shared\n"
             "write C:\\ProgramData\\OpenWorker\\sandbox\\sandboxes\\owr-1\n"
             "read C:\\Users\\ada\\code\\app\\vendor\n"
             "read C:\\Users\\ada\\Documents\\specs\n"
             "read C:\\Users\\ada\\AppData\\Roaming\\npm\n"
             "read C:\\Users\\ada\\.cargo\n"
             "deny-write C:\\Users\\ada\\code\\app\\vendor\n"
             "traverse C:\\Users\\ada\\code\n"
             "traverse C:\\Users\\ada\n"
             "traverse C:\\Users\\ada\\Documents\n"
             "traverse C:\\Users\\ada\\AppData\\Roaming\n"
             "traverse C:\\Users\\ada\\AppData\n");
  free (text);
  ow_ws_grants_clear (&g);

  /* The whole profile is the person's choice; its parents are not. */
  {
    const char *home[] = { "C:\\Users\\ada", NULL };
    const char *parents[][2] = { { "C:\\Users", NULL }, { "C:\\", NULL } };

    in.writable = home;
    in.readonly = NULL;
    in.toolchains = NULL;
    CHECK (ow_ws_plan_grants (&in, &g, &error));
    text = grants_text (&g);
    CHECK_STR (text, "write C:\\Users\\ada\n"
                     "write C:\\ProgramData\\OpenWorker\\sandbox\\sandboxes\\owr-1\n");
    free (text);
    ow_ws_grants_clear (&g);
    for (size_t i = 0; i < 2; i++)
      {
        in.writable = parents[i];
        CHECK (!ow_ws_plan_grants (&in, &g, &error));
        CHECK (g.len == 0);
        CHECK_HAS (error, "every profile");
        free (error);
        error = NULL;
        /* The same folder read-only is refused too. */
        in.writable = NULL;
        in.readonly = parents[i];
        CHECK (!ow_ws_plan_grants (&in, &g, &error));
        free (error);
        error = NULL;
        in.readonly = NULL;
      }
  }
  {
    const char *bad[] = { "code\\app", NULL };

    in.writable = bad;
    CHECK (!ow_ws_plan_grants (&in, &g, &error));
    CHECK_HAS (error, "drive letter");
    free (error);
    error = NULL;
  }
  in.writable = NULL;
  in.private_dir = NULL;
  CHECK (!ow_ws_plan_grants (&in, &g, &error));
  CHECK_HAS (error, "private folder");
  free (error);
}

static void
test_command_line (void)
{
  const char *cases[][2] = {
    { "plain", "plain" },
    { "a b", "\"a b\"" },
    { "", "\"\"" },
    { "a\"b", "\"a\\\"b\"" },
    { "C:\\path\\", "C:\\path\\" },
    { "C:\\my path\\", "\"C:\\my path\\\\\"" },
    { "a\\\\\"b", "\"a\\\\\\\\\\\"b\"" },
    { "tab\there", "\"tab\there\"" },
  };
  const char *argv[] = { "C:\\Program Files\\OpenWorker\\openworker-tool-runner.exe", "--stdio", "a \"q\"", NULL };
  char *s;

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      s = ow_ws_quote_arg (cases[i][0]);
      CHECK_STR (s, cases[i][1]);
      free (s);
    }
  s = ow_ws_command_line (argv);
  CHECK_STR (s, "\"C:\\Program Files\\OpenWorker\\openworker-tool-runner.exe\" --stdio \"a \\\"q\\\"\"");
  free (s);
}

static void
test_environment (void)
{
  const char *base[] = { "Path=C:\\Windows", "=C:=C:\\work", "TEMP=C:\\Users\\ada\\AppData\\Local\\Temp",
                         "zeta=1", "NOEQUALS", "OPENAI_API_KEY=sk-x", NULL };
  const char *set[] = { "PATH=C:\\tools;C:\\Windows", "TEMP=C:\\sandbox\\tmp", "HTTPS_PROXY=http://127.0.0.1:47801",
                        "OPENAI_API_KEY=", "alpha=2", "alpha=3", NULL };
  char **env = ow_ws_environment (base, set);
  const char *want[] = {
    "=C:=C:\\work", "alpha=2", "HTTPS_PROXY=http://127.0.0.1:47801", "PATH=C:\\tools;C:\\Windows",
    "TEMP=C:\\sandbox\\tmp", "zeta=1", NULL,
  };
  size_t i;

  for (i = 0; want[i] != NULL; i++)
    CHECK_STR (env[i], want[i]);
  CHECK (env[i] == NULL);
  ow_ws_strv_free (env);
}

static void
test_cred_plaintext (void)
{
  char *text = ow_ws_cred_plaintext ("pw-open/+=aA1!", "pw-closed/+=aA1!");
  char *o = NULL, *c = NULL, *error = NULL;

  CHECK_STR (text, "OWSandboxOpenNet\tpw-open/+=aA1!\nOWSandboxClosedNet\tpw-closed/+=aA1!\n");
  CHECK (ow_ws_cred_parse_plaintext (text, strlen (text), &o, &c, &error));
  CHECK_STR (o, "pw-open/+=aA1!");
  CHECK_STR (c, "pw-closed/+=aA1!");
  free (o);
  free (c);
  free (text);
  /* CRLF line ends (a file that went through an editor) still read. */
  text = "OWSandboxClosedNet\tb\r\nOWSandboxOpenNet\ta\r\n";
  CHECK (ow_ws_cred_parse_plaintext (text, strlen (text), &o, &c, &error));
  CHECK_STR (o, "a");
  CHECK_STR (c, "b");
  free (o);
  free (c);
  text = "OWSandboxOpenNet\ta\n";
  CHECK (!ow_ws_cred_parse_plaintext (text, strlen (text), &o, &c, &error));
  CHECK (o == NULL && c == NULL);
  CHECK_HAS (error, "both passwords");
  free (error);
  CHECK (ow_ws_cred_plaintext ("tab\there", "x") == NULL);
}

static OwWsSetup
sample_setup (void)
{
  static char *filters[] = { OW_WS_WFP_PERMIT_V4, OW_WS_WFP_BLOCK_V4, OW_WS_WFP_PERMIT_V6, OW_WS_WFP_BLOCK_V6, NULL };
  static char *changed[] = { "folder:C:\\ProgramData\\OpenWorker\\sandbox", "account:OWSandboxOpenNet",
                             "userlist:OWSandboxOpenNet", "userlist:OWSandboxClosedNet", "logon-rights", "firewall",
                             "wfp", "folder:C:\\ProgramData\\OpenWorker\\sandbox\\sandboxes", "credential", NULL };
  OwWsSetup s = {
    .version = OW_WS_SETUP_VERSION,
    .user_sid = "S-1-5-21-1004336348-1177238915-682003330-1001",
    .set_up_at = "2026-05-04T10:11:12Z",
    .open_name = OW_WS_OPEN_ACCOUNT,
    .open_sid = "S-1-5-21-1004336348-1177238915-682003330-1007",
    .closed_name = OW_WS_CLOSED_ACCOUNT,
    .closed_sid = "S-1-5-21-1004336348-1177238915-682003330-1008",
    .firewall_rule = OW_WS_FIREWALL_RULE,
    .port_low = OW_WS_PORT_LOW,
    .port_high = OW_WS_PORT_HIGH,
    .filters = filters,
    .changed = changed,
  };

  return s;
}

static void
test_setup_json (void)
{
  OwWsSetup s = sample_setup (), back;
  char *json = ow_ws_setup_to_json (&s), *again, *error = NULL, *ps5;
  char path[1024];

  check_golden ("windows-setup.json", json);
  CHECK (ow_ws_setup_from_json (json, &back, &error));
  CHECK (back.version == 1);
  CHECK_STR (back.closed_sid, s.closed_sid);
  CHECK_STR (back.changed[0], "folder:C:\\ProgramData\\OpenWorker\\sandbox");
  CHECK (back.port_low == 47800 && back.port_high == 47899);
  again = ow_ws_setup_to_json (&back);
  CHECK_STR (again, json);
  CHECK (ow_ws_setup_changed (&back, "firewall"));
  CHECK (!ow_ws_setup_changed (&back, "account:OWSandboxClosedNet"));
  ow_ws_setup_clear (&back);
  free (again);
  free (json);

  /* What Windows PowerShell 5's ConvertTo-Json writes: a byte-order mark,
   * its own indentation, \u escapes, a one-element list as a list. */
  snprintf (path, sizeof path, "%s/windows-setup-ps5.json", golden_dir);
  ps5 = read_file (path);
  CHECK (ps5 != NULL);
  if (ps5 != NULL)
    {
      CHECK (ow_ws_setup_from_json (ps5, &back, &error));
      CHECK (error == NULL);
      CHECK_STR (back.open_sid, "S-1-5-21-3623811015-3361044348-30300820-1013");
      CHECK_STR (back.firewall_rule, "OpenWorker sandbox: closed account has no outbound network");
      CHECK_STR (back.user_sid, "S-1-5-21-3623811015-3361044348-30300820-1001");
      CHECK_STR (back.changed[0], "folder:C:\\ProgramData\\OpenWorker\\sandbox");
      CHECK_STR (back.changed[1], "account:OWSandboxOpenNet");
      CHECK (back.filters != NULL && back.filters[0] != NULL && back.filters[1] == NULL);
      CHECK_STR (back.set_up_at, "2026-05-04T10:11:12Z \xc3\xa9\xf0\x9f\x98\x80");
      ow_ws_setup_clear (&back);
      free (ps5);
    }

  {
    const char *broken[] = {
      "", "[]", "{", "{\"version\": 1}", "{\"version\": 1,}", "{\"version\": \"1\"}", "nul",
      "{\"version\":1,\"user_sid\":\"S-1-5-21-1\",\"accounts\":{\"open\":{\"name\":\"a\",\"sid\":\"x\"},"
      "\"closed\":{\"name\":\"b\",\"sid\":\"S-1-5-21-2\"}}}",
      "{\"a\": \"\\ud800\\u0000\"}",
      "{\"version\":1} trailing",
      NULL,
    };

    for (size_t i = 0; broken[i] != NULL; i++)
      {
        CHECK (!ow_ws_setup_from_json (broken[i], &back, &error));
        CHECK_HAS (error, "setup.json");
        free (error);
        error = NULL;
      }
  }
  {
    /* Deep nesting is refused, not recursed into. */
    char deep[200];

    memset (deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    CHECK (!ow_ws_setup_from_json (deep, &back, &error));
    free (error);
  }
}

static void
test_scripts (void)
{
  OwWsScriptInput in = {
    .program_data = "C:\\ProgramData",
    .user_sid = "S-1-5-21-1004336348-1177238915-682003330-1001",
    .helper_exe = "C:\\Program Files\\OpenWorker\\O'Brien \xe2\x80\x98tools\xe2\x80\x99\\openworker-winsandbox.exe",
    .log_path = "C:\\Users\\ada\\AppData\\Local\\Temp\\ow-setup\\setup.log",
  };
  OwWsSetup recorded = sample_setup ();
  char *error = NULL, *script, *q, *sddl;

  q = ow_ws_ps_quote ("it's \xe2\x80\x98quoted\xe2\x80\x99 $(not) `run`");
  CHECK_STR (q, "'it''s \xe2\x80\x98\xe2\x80\x98quoted\xe2\x80\x99\xe2\x80\x99 $(not) `run`'");
  free (q);

  script = ow_ws_setup_script (&in, &error);
  CHECK (script != NULL);
  check_golden ("windows-setup.ps1", script);
  CHECK_HAS (script, "$Helper = 'C:\\Program Files\\OpenWorker\\O''Brien \xe2\x80\x98\xe2\x80\x98tools\xe2\x80\x99\xe2\x80\x99\\openworker-winsandbox.exe'");
  /* The script's descriptors are the ones the C side renders. */
  sddl = ow_ws_sddl_root_dir ("$UserSid", "$($open.sid)", "$($closed.sid)");
  CHECK_HAS (script, sddl);
  free (sddl);
  sddl = ow_ws_sddl_sandboxes_dir ("$UserSid", "$($open.sid)", "$($closed.sid)");
  CHECK_HAS (script, sddl);
  free (sddl);
  sddl = ow_ws_sddl_cred_file ("$UserSid");
  CHECK_HAS (script, sddl);
  free (sddl);
  sddl = ow_ws_sddl_match_user ("$($closed.sid)");
  CHECK_HAS (script, sddl);
  free (sddl);
  CHECK_HAS (script, "$PortLow = 47800");
  CHECK_HAS (script, "$PortHigh = 47899");
  CHECK_HAS (script, "DataProtectionScope]::LocalMachine");
  CHECK_HAS (script, "'" OW_WS_CRED_ENTROPY "'");
  free (script);

  script = ow_ws_remove_script (&in, &recorded, &error);
  CHECK (script != NULL);
  check_golden ("windows-remove.ps1", script);
  /* Only the account setup made is removed; the closed one existed before. */
  CHECK_HAS (script, "Remove-LocalUser -Name 'OWSandboxOpenNet'");
  CHECK (strstr (script, "Remove-LocalUser -Name 'OWSandboxClosedNet'") == NULL);
  CHECK_HAS (script, "Remove-ItemProperty -Path $userlist -Name 'OWSandboxClosedNet'");
  free (script);

  in.user_sid = "S-1-5-21-1'; Remove-Item C:\\ -Recurse; '";
  CHECK (ow_ws_setup_script (&in, &error) == NULL);
  CHECK_HAS (error, "security identifier");
  free (error);
  error = NULL;
  in.user_sid = "S-1-5-21-1";
  in.log_path = "C:\\log\nWrite-Host pwned";
  CHECK (ow_ws_setup_script (&in, &error) == NULL);
  CHECK_HAS (error, "control character");
  free (error);
}

/* --- the Win32 half ------------------------------------------------------- */
#ifdef _WIN32

static int
contains_bytes (const char *hay, size_t n, const char *needle)
{
  size_t m = strlen (needle);

  for (size_t i = 0; i + m <= n; i++)
    if (memcmp (hay + i, needle, m) == 0)
      return 1;
  return 0;
}

/* A fresh folder under the temp folder, named after @leaf and this
 * process, so a run never sees what an earlier one left. */
static char *
temp_dir (const char *leaf)
{
  wchar_t wtmp[MAX_PATH];
  char *tmp, *dir, name[128];
  wchar_t *wdir;

  GetTempPathW (MAX_PATH, wtmp);
  tmp = ow_ws_utf8 (wtmp);
  if (tmp[strlen (tmp) - 1] == '\\')
    tmp[strlen (tmp) - 1] = '\0';
  snprintf (name, sizeof name, "%s-%lu-%lu", leaf, GetCurrentProcessId (), GetTickCount ());
  dir = ow_ws_join (tmp, name);
  wdir = ow_ws_wide (dir);
  CreateDirectoryW (wdir, NULL);
  free (wdir);
  free (tmp);
  return dir;
}

static void
test_utf16 (void)
{
  const char *s = "C:\\Users\\ada\\Ünïcødé 文件 \xf0\x9f\x98\x80";
  wchar_t *w = ow_ws_wide (s);
  char *back = ow_ws_utf8 (w);

  CHECK_STR (back, s);
  free (w);
  free (back);
  CHECK (ow_ws_wide ("\xff\xfe bad") == NULL);
}

static void
test_cred_file (void)
{
  char *dir = temp_dir ("ow-cred-test");
  char *path = ow_ws_join (dir, "account.cred");
  char *o = NULL, *c = NULL, *error = NULL, *data;
  FILE *f;
  long n;

  CHECK (ow_ws_cred_write (path, "open-pw-\xc3\xa9", "closed-pw", &error));
  CHECK (error == NULL);
  CHECK (ow_ws_cred_read (path, &o, &c, &error));
  CHECK_STR (o, "open-pw-\xc3\xa9");
  CHECK_STR (c, "closed-pw");
  ow_ws_password_free (o);
  ow_ws_password_free (c);

  /* The file holds no password in the clear. */
  data = read_file (path);
  CHECK (data != NULL && strncmp (data, OW_WS_CRED_MAGIC, strlen (OW_WS_CRED_MAGIC)) == 0);
  f = fopen (path, "rb");
  fseek (f, 0, SEEK_END);
  n = ftell (f);
  fclose (f);
  CHECK (n > 40);
  CHECK (data != NULL && !contains_bytes (data, (size_t) n, "closed-pw"));

  /* One flipped byte in the sealed part: refused, not misread. */
  f = fopen (path, "r+b");
  fseek (f, n - 5, SEEK_SET);
  fputc (data[n - 5] ^ 0x5a, f);
  fclose (f);
  CHECK (!ow_ws_cred_read (path, &o, &c, &error));
  CHECK_HAS (error, "cannot be unsealed");
  CHECK (o == NULL && c == NULL);
  free (error);
  error = NULL;
  free (data);

  f = fopen (path, "wb");
  fputs ("OWCRED9\nxxxxxxxxxxxxxxxxxxxx", f);
  fclose (f);
  CHECK (!ow_ws_cred_read (path, &o, &c, &error));
  CHECK_HAS (error, "not one OpenWorker wrote");
  free (error);
  error = NULL;

  remove (path);
  CHECK (!ow_ws_cred_read (path, &o, &c, &error));
  CHECK_HAS (error, "missing");
  free (error);
  free (path);
  free (dir);
}

static void
test_acl (void)
{
  PSID sid = NULL, other = NULL;
  PACL base, with = NULL, twice = NULL, less = NULL, denied = NULL, none = NULL;
  char *error = NULL;
  int removed = 0;
  void *ace;
  DWORD size = 512;

  CHECK (ConvertStringSidToSidW (L"S-1-5-21-1-2-3-1008", &sid));
  CHECK (ConvertStringSidToSidW (L"S-1-5-21-1-2-3-1001", &other));
  base = LocalAlloc (LPTR, size);
  InitializeAcl (base, size, ACL_REVISION);
  /* An explicit entry of the person's, then one inherited from above. */
  AddAccessAllowedAceEx (base, ACL_REVISION, 3, 0x1f01ff, other);
  AddAccessAllowedAceEx (base, ACL_REVISION, 3 | INHERITED_ACE, 0x1200a9, other);

  CHECK (ow_ws_acl_count_grants (base, sid, OW_WS_GRANT_WRITE) == 0);
  CHECK (ow_ws_acl_add_grant (base, sid, OW_WS_GRANT_WRITE, &with, &error));
  CHECK (with->AceCount == 3);
  CHECK (ow_ws_acl_count_grants (with, sid, OW_WS_GRANT_WRITE) == 1);
  CHECK (ow_ws_acl_count_grants (with, sid, OW_WS_GRANT_READ) == 0);
  /* Canonical order: ours after the explicit entry, before the inherited one. */
  GetAce (with, 1, &ace);
  CHECK (((ACCESS_ALLOWED_ACE *) ace)->Mask == OW_WS_MASK_WRITE);
  GetAce (with, 2, &ace);
  CHECK ((((ACE_HEADER *) ace)->AceFlags & INHERITED_ACE) != 0);

  /* A second session on the same folder holds its own entry. */
  CHECK (ow_ws_acl_add_grant (with, sid, OW_WS_GRANT_WRITE, &twice, &error));
  CHECK (ow_ws_acl_count_grants (twice, sid, OW_WS_GRANT_WRITE) == 2);
  CHECK (ow_ws_acl_remove_grant (twice, sid, OW_WS_GRANT_WRITE, &less, &removed, &error));
  CHECK (removed == 1);
  CHECK (ow_ws_acl_count_grants (less, sid, OW_WS_GRANT_WRITE) == 1);
  CHECK (less->AceCount == 3);

  /* A deny goes first. */
  CHECK (ow_ws_acl_add_grant (base, sid, OW_WS_GRANT_DENY_WRITE, &denied, &error));
  GetAce (denied, 0, &ace);
  CHECK (((ACE_HEADER *) ace)->AceType == ACCESS_DENIED_ACE_TYPE);
  CHECK (ow_ws_acl_count_grants (denied, sid, OW_WS_GRANT_DENY_WRITE) == 1);

  /* Nothing of ours: nothing removed, the person's entries kept. */
  CHECK (ow_ws_acl_remove_grant (base, sid, OW_WS_GRANT_READ, &none, &removed, &error));
  CHECK (removed == 0);
  CHECK (none->AceCount == 2);
  /* The inherited entry of the person's is never taken for ours. */
  CHECK (ow_ws_acl_count_grants (base, other, OW_WS_GRANT_READ) == 0);

  CHECK (error == NULL);
  LocalFree (with);
  LocalFree (twice);
  LocalFree (less);
  LocalFree (denied);
  LocalFree (none);
  LocalFree (base);
  LocalFree (sid);
  LocalFree (other);
}

static void
test_wfp_build (void)
{
  char *error = NULL;
  OwWsWfpFilters *f = ow_ws_wfp_filters_new ("S-1-5-21-1-2-3-1008", OW_WS_PORT_LOW, OW_WS_PORT_HIGH, &error);
  int permits = 0, blocks = 0;

  CHECK (f != NULL);
  CHECK (ow_ws_wfp_filters_count (f) == 4);
  for (size_t i = 0; f != NULL && i < 4; i++)
    {
      const FWPM_FILTER0 *flt = ow_ws_wfp_filters_get (f, i);
      const FWPM_FILTER_CONDITION0 *c = flt->filterCondition;
      int permit = flt->action.type == FWP_ACTION_PERMIT;

      permits += permit;
      blocks += flt->action.type == FWP_ACTION_BLOCK;
      CHECK ((flt->flags & 1u) != 0);  /* persistent */
      CHECK (flt->weight.type == FWP_UINT8);
      CHECK (flt->weight.uint8 == (permit ? 15 : 5));
      CHECK (flt->numFilterConditions == (permit ? 3u : 2u));
      CHECK (c[0].conditionValue.type == FWP_SECURITY_DESCRIPTOR_TYPE);
      CHECK (c[0].conditionValue.sd != NULL && c[0].conditionValue.sd->size > 0);
      CHECK (c[1].conditionValue.type == FWP_UINT32 && c[1].conditionValue.uint32 == FWP_CONDITION_FLAG_IS_LOOPBACK);
      CHECK (c[1].matchType == FWP_MATCH_FLAGS_ALL_SET);
      if (permit)
        {
          CHECK (c[2].matchType == FWP_MATCH_RANGE);
          CHECK (c[2].conditionValue.rangeValue->valueLow.uint16 == 47800);
          CHECK (c[2].conditionValue.rangeValue->valueHigh.uint16 == 47899);
        }
      /* v4 layer for the first two, v6 for the others; different layers. */
      if (i == 2)
        CHECK (memcmp (&flt->layerKey, &((const FWPM_FILTER0 *) ow_ws_wfp_filters_get (f, 0))->layerKey,
                       sizeof (GUID)) != 0);
    }
  CHECK (permits == 2 && blocks == 2);
  ow_ws_wfp_filters_free (f);

  CHECK (ow_ws_wfp_filters_new ("not a sid", 1, 2, &error) == NULL);
  CHECK_HAS (error, "closed account");
  free (error);
  error = NULL;
  CHECK (ow_ws_wfp_filters_new ("S-1-5-21-1", 47899, 47800, &error) == NULL);
  free (error);
  error = NULL;

  /* Writing them needs the Base Filtering Engine and an administrator;
   * wherever that is missing (Wine among them) the refusal says so. */
  if (!ow_ws_wfp_install ("S-1-5-21-1-2-3-1008", OW_WS_PORT_LOW, OW_WS_PORT_HIGH, &error))
    {
      CHECK_HAS (error, "loopback filters");
      printf ("# WFP not available here: %s\n", error);
    }
  else
    CHECK (ow_ws_wfp_remove (NULL));
  free (error);
}

static void
write_text (const char *path, const char *text)
{
  FILE *f = fopen (path, "wb");

  CHECK (f != NULL);
  if (f != NULL)
    {
      fputs (text, f);
      fclose (f);
    }
}

static void
test_status (void)
{
  char *pd = temp_dir ("ow-status-pd");
  char *root = ow_ws_root_dir (pd);
  char *boxes = ow_ws_join (root, "sandboxes");
  char *cred = ow_ws_join (root, "account.cred");
  char *json_path = ow_ws_join (root, "setup.json");
  char *parent = ow_ws_join (pd, "OpenWorker");
  OwWsCheck *checks = NULL;
  size_t n = ow_ws_status (pd, &checks);
  OwWsSetup s = sample_setup ();
  char *json, *error = NULL;
  wchar_t *w;

  /* Nothing set up: not ready, and each missing piece named. */
  CHECK (n == 7);
  CHECK (!ow_ws_checks_ok (checks, n));
  CHECK_STR (checks[0].name, "setup record");
  CHECK (checks[0].ok == 0);
  CHECK_HAS (checks[0].detail, "openworker machine sandbox setup");
  CHECK_STR (checks[1].name, "account OWSandboxOpenNet");
  CHECK (checks[1].ok == 0);
  CHECK_STR (checks[3].name, "credentials");
  CHECK (checks[3].ok == 0);
  CHECK_STR (checks[6].name, "sandboxes folder");
  CHECK (checks[6].ok == 0);
  for (size_t i = 0; i < n; i++)
    printf ("# status (empty): %s = %d: %s\n", checks[i].name, checks[i].ok, checks[i].detail);
  ow_ws_checks_free (checks, n);

  /* Half made: the record, the credentials and the folder, but no accounts. */
  w = ow_ws_wide (parent);
  CreateDirectoryW (w, NULL);
  free (w);
  w = ow_ws_wide (root);
  CreateDirectoryW (w, NULL);
  free (w);
  w = ow_ws_wide (boxes);
  CreateDirectoryW (w, NULL);
  free (w);
  json = ow_ws_setup_to_json (&s);
  write_text (json_path, json);
  free (json);
  CHECK (ow_ws_cred_write (cred, "a", "b", &error));
  n = ow_ws_status (pd, &checks);
  CHECK (n == 7);
  CHECK (checks[0].ok == 1);
  CHECK (checks[3].ok == 1);
  CHECK (checks[6].ok == 1);
  /* Wine has no such accounts, so the sandbox is still not ready. */
  CHECK (checks[1].ok == 0 && checks[2].ok == 0);
  CHECK (!ow_ws_checks_ok (checks, n));
  for (size_t i = 0; i < n; i++)
    printf ("# status (half): %s = %d: %s\n", checks[i].name, checks[i].ok, checks[i].detail);
  ow_ws_checks_free (checks, n);

  /* An old record asks for setup to run again. */
  write_text (json_path, "{\"version\": 0, \"user_sid\": \"S-1-5-21-1\"}");
  n = ow_ws_status (pd, &checks);
  CHECK (checks[0].ok == 0);
  ow_ws_checks_free (checks, n);

  remove (cred);
  remove (json_path);
  free (pd);
  free (root);
  free (boxes);
  free (cred);
  free (json_path);
  free (parent);
}

/* The child side of the job test: echo one line, then start a grandchild
 * that would live for a minute, report its pid and wait. */
static int
child_main (const char *mode)
{
  char line[256];

  if (strcmp (mode, "sleep") == 0)
    {
      Sleep (60000);
      return 0;
    }
  if (fgets (line, sizeof line, stdin) == NULL)
    return 1;
  printf ("echo:%s", line);
  {
    wchar_t app[MAX_PATH];
    wchar_t cmd[MAX_PATH + 32];
    STARTUPINFOW si = { sizeof si };
    PROCESS_INFORMATION pi;

    GetModuleFileNameW (NULL, app, MAX_PATH);
    swprintf (cmd, MAX_PATH + 32, L"\"%ls\" --child sleep", app);
    if (!CreateProcessW (app, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
      return 2;
    printf ("grandchild:%lu\n", pi.dwProcessId);
    fflush (stdout);
    CloseHandle (pi.hThread);
    CloseHandle (pi.hProcess);
  }
  Sleep (60000);
  return 0;
}

static void
test_job (void)
{
  OwWsRunner r = { 0 };
  HANDLE child_in, child_out;
  char *error = NULL;
  wchar_t app[MAX_PATH];
  wchar_t cmd[MAX_PATH + 32];
  STARTUPINFOW si = { sizeof si };
  PROCESS_INFORMATION pi;
  char buf[256] = "";
  DWORD got = 0, total = 0, pid = 0;
  HANDLE grandchild = NULL;

  CHECK (ow_ws_job_create (&r.job, &error));
  CHECK (ow_ws_pipes_create (&child_in, &r.to_runner, &r.from_runner, &child_out, &error));
  GetModuleFileNameW (NULL, app, MAX_PATH);
  swprintf (cmd, MAX_PATH + 32, L"\"%ls\" --child echo", app);
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = child_in;
  si.hStdOutput = child_out;
  si.hStdError = GetStdHandle (STD_ERROR_HANDLE);
  CHECK (CreateProcessW (app, cmd, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si, &pi));
  CHECK (AssignProcessToJobObject (r.job, pi.hProcess));
  ResumeThread (pi.hThread);
  CloseHandle (pi.hThread);
  CloseHandle (child_in);
  CloseHandle (child_out);
  r.process = pi.hProcess;

  CHECK (WriteFile (r.to_runner, "hello\n", 6, &got, NULL));
  while (strstr (buf, "grandchild:") == NULL || strchr (strstr (buf, "grandchild:"), '\n') == NULL)
    {
      if (!ReadFile (r.from_runner, buf + total, (DWORD) sizeof buf - 1 - total, &got, NULL) || got == 0)
        break;
      total += got;
      buf[total] = '\0';
    }
  CHECK_HAS (buf, "echo:hello");
  if (strstr (buf, "grandchild:") != NULL)
    pid = (DWORD) strtoul (strstr (buf, "grandchild:") + 11, NULL, 10);
  CHECK (pid != 0);
  grandchild = pid != 0 ? OpenProcess (SYNCHRONIZE, FALSE, pid) : NULL;
  CHECK (grandchild != NULL);
  /* Both still alive before the session ends… */
  CHECK (WaitForSingleObject (pi.hProcess, 0) == WAIT_TIMEOUT);
  /* …and both gone after: the grandchild was never told, the job ended it. */
  ow_ws_runner_close (&r);
  if (grandchild != NULL)
    {
      CHECK (WaitForSingleObject (grandchild, 10000) == WAIT_OBJECT_0);
      CloseHandle (grandchild);
    }
  free (error);
}

static void
test_spawn_as_account (void)
{
  const char *argv[] = { "openworker-tool-runner.exe", "--stdio", NULL };
  const char *env[] = { "PATH=C:\\Windows\\system32", "TEMP=C:\\tmp", NULL };
  OwWsSpawn spawn = {
    .account = OW_WS_CLOSED_ACCOUNT,
    .password = "not-the-password",
    .runner_exe = "C:\\windows\\system32\\cmd.exe",
    .argv = argv,
    .cwd = NULL,
    .env = env,
  };
  OwWsRunner r;
  char *error = NULL;
  char *long_arg = malloc (1100);
  const char *long_argv[] = { "runner", long_arg, NULL };

  /* No such account here (and no second logon under Wine): refused with
   * the reason, nothing left running. */
  CHECK (!ow_ws_spawn_runner (&spawn, &r, &error));
  CHECK_HAS (error, "could not be started as OWSandboxClosedNet");
  CHECK (r.process == NULL && r.job == NULL);
  printf ("# spawn as account: %s\n", error);
  free (error);
  error = NULL;

  memset (long_arg, 'x', 1099);
  long_arg[1099] = '\0';
  spawn.argv = long_argv;
  CHECK (!ow_ws_spawn_runner (&spawn, &r, &error));
  CHECK_HAS (error, "1024");
  free (error);
  free (long_arg);
}

static SOCKET
listen_loopback (int *port)
{
  WSADATA wsa;
  SOCKET s;
  struct sockaddr_in a = { 0 };
  int len = sizeof a;

  WSAStartup (MAKEWORD (2, 2), &wsa);
  s = socket (AF_INET, SOCK_STREAM, IPPROTO_TCP);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  bind (s, (struct sockaddr *) &a, sizeof a);
  listen (s, 4);
  getsockname (s, (struct sockaddr *) &a, &len);
  *port = ntohs (a.sin_port);
  return s;
}

static void
test_wall_check (void)
{
  char *inside = temp_dir ("ow-wall-session");
  char *profile = temp_dir ("ow-wall-profile");
  char *missing = ow_ws_join (inside, "no-such-folder");
  const char *folders[] = { inside, NULL };
  const char *bad_folders[] = { inside, missing, NULL };
  OwWsCheck *checks = NULL;
  size_t n = 0;
  int port = 0, closed_port = 0;
  SOCKET listener = listen_loopback (&port);
  SOCKET gone = listen_loopback (&closed_port);

  closesocket (gone);  /* a port nobody listens on: the positive control */

  /* Without a second account (as here) the profile can be listed: the
   * check must say the wall is not up. */
  CHECK (!ow_ws_wall_check (profile, folders, port, &checks, &n));
  CHECK (n == 3);
  CHECK (checks[0].ok == 1);                 /* the session folder: reachable */
  CHECK_STR (checks[1].name, "profile hidden");
  CHECK (checks[1].ok == 0);
  CHECK_HAS (checks[1].detail, "the wall is not up");
  CHECK_STR (checks[2].name, "loopback closed");
  CHECK (checks[2].ok == 0);                 /* our listener outside the range answered */
  for (size_t i = 0; i < n; i++)
    printf ("# wall: %s = %d: %s\n", checks[i].name, checks[i].ok, checks[i].detail);
  ow_ws_checks_free (checks, n);

  /* The controls: a port nobody listens on is unreachable; a folder that
   * is not there is reported, not skipped; a profile that cannot be tried
   * does not count as hidden. */
  CHECK (!ow_ws_wall_check (missing, bad_folders, closed_port, &checks, &n));
  CHECK (checks[0].ok == 1);
  CHECK (checks[1].ok == 0);
  CHECK (checks[2].ok == 0);
  CHECK_HAS (checks[2].detail, "cannot be proved");
  CHECK (checks[3].ok == 1);
  ow_ws_checks_free (checks, n);

  closesocket (listener);
  WSACleanup ();
  free (inside);
  free (profile);
  free (missing);
}

#endif /* _WIN32 */

int
main (int argc, char **argv)
{
#ifdef _WIN32
  if (argc > 2 && strcmp (argv[1], "--child") == 0)
    return child_main (argv[2]);
#endif
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
      return 2;
    }
  golden_dir = argv[1];

  test_paths ();
  test_sddl ();
  test_plan ();
  test_command_line ();
  test_environment ();
  test_cred_plaintext ();
  test_setup_json ();
  test_scripts ();
#ifdef _WIN32
  test_utf16 ();
  test_cred_file ();
  test_acl ();
  test_wfp_build ();
  test_status ();
  test_job ();
  test_spawn_as_account ();
  test_wall_check ();
#endif
  printf ("%d checks, %d failed\n", checks_run, failures);
  return failures == 0 ? 0 : 1;
}
