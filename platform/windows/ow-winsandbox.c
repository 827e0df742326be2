/* ow-winsandbox.c: the Win32 half of the Windows sandbox core.
 *
 * What touches Windows, in plain Win32 C without GLib (so it can run in
 * the small elevated helper as well as in the app): the DPAPI-sealed
 * credential file, the access entries a session adds to its folders, the
 * four WFP filters and the logon rights setup writes, the status checks,
 * the runner started as the sandbox account in a job object, the wall
 * check run from inside, and the one elevated script run.
 *
 * The runner is started with CreateProcessWithLogonW, which asks the
 * secondary logon service to log the account on: it needs no privilege,
 * whereas LogonUser + CreateProcessAsUser needs SeAssignPrimaryTokenPrivilege,
 * which a person's own process does not hold. The process starts
 * suspended and is put into a job with KILL_ON_JOB_CLOSE before it runs,
 * so nothing it starts can outlive the session.
 *
 * Access entries are added one per session per folder and removed one at a
 * time (the last matching explicit entry), so two sessions sharing a
 * folder each keep theirs until they end. Every change is read back: an
 * entry that did not stick is an error, never a silent open door.
 */
#ifndef _WIN32
#error "ow-winsandbox.c is Windows-only; the portable half is ow-winsandbox-text.c"
#endif

/* Windows 10: the WFP, job and logon interfaces used here. */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00
#endif
#define COBJMACROS
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <ntsecapi.h>
#include <shellapi.h>
#include <wincrypt.h>
#include <initguid.h>
#include <fwpmu.h>
#include <netfw.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ow-winsandbox.h"

#ifndef STATUS_SUCCESS
#define STATUS_SUCCESS ((NTSTATUS) 0x00000000L)
#endif
#define OW_FWP_E_FILTER_NOT_FOUND 0x80320003u

/* Keys and flags from the Windows SDK's fwpmu.h that mingw-w64's copy
 * lacks; spelled out under our own names so a header that has them does
 * not clash. */
static const GUID ow_layer_connect_v4 =
  { 0xc38d57d1, 0x05a7, 0x4c33, { 0x90, 0x4f, 0x7f, 0xbc, 0xee, 0xe6, 0x0e, 0x82 } };
static const GUID ow_layer_connect_v6 =
  { 0x4a72393b, 0x319f, 0x44bc, { 0x84, 0xc3, 0xba, 0x54, 0xdc, 0xb3, 0xb6, 0xb4 } };
static const GUID ow_condition_user_id =
  { 0xaf043a0a, 0xb34d, 0x4f86, { 0x97, 0x9c, 0xc9, 0x03, 0x71, 0xaf, 0x6e, 0x66 } };
static const GUID ow_condition_remote_port =
  { 0xc35a604d, 0xd22b, 0x4e1a, { 0x91, 0xb4, 0x68, 0xf6, 0x74, 0xee, 0x67, 0x4b } };
static const GUID ow_condition_flags =
  { 0x632ce23b, 0x5167, 0x435c, { 0x86, 0xd7, 0xe9, 0x03, 0x68, 0x4a, 0xa8, 0x0c } };
#define OW_FWPM_PERSISTENT 0x00000001u  /* the same bit for providers, sublayers and filters */

/* --- small helpers ------------------------------------------------------- */

static void
set_error (char **error, const char *fmt, ...)
{
  va_list ap;
  char buf[1024];

  if (error == NULL)
    return;
  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  free (*error);
  *error = _strdup (buf);
}

static char *
dup_printf (const char *fmt, ...)
{
  va_list ap;
  char buf[1024];

  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  return _strdup (buf);
}

wchar_t *
ow_ws_wide (const char *utf8)
{
  int n = MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
  wchar_t *w;

  if (n <= 0)
    return NULL;
  w = malloc ((size_t) n * sizeof *w);
  if (w == NULL)
    abort ();
  MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w, n);
  return w;
}

char *
ow_ws_utf8 (const wchar_t *wide)
{
  int n = WideCharToMultiByte (CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
  char *s;

  if (n <= 0)
    return _strdup ("");
  s = malloc ((size_t) n);
  if (s == NULL)
    abort ();
  WideCharToMultiByte (CP_UTF8, 0, wide, -1, s, n, NULL, NULL);
  return s;
}

void
ow_ws_password_free (char *password)
{
  if (password == NULL)
    return;
  SecureZeroMemory (password, strlen (password));
  free (password);
}

/* --- account.cred -------------------------------------------------------- */

static DATA_BLOB
entropy_blob (void)
{
  DATA_BLOB e = { (DWORD) strlen (OW_WS_CRED_ENTROPY), (BYTE *) OW_WS_CRED_ENTROPY };

  return e;
}

int
ow_ws_cred_write (const char *path, const char *open_password, const char *closed_password, char **error)
{
  char *plain = ow_ws_cred_plaintext (open_password, closed_password);
  DATA_BLOB in, out = { 0 }, entropy = entropy_blob ();
  wchar_t *wpath;
  HANDLE h;
  DWORD written;
  BOOL ok;
  size_t magic = strlen (OW_WS_CRED_MAGIC);

  if (plain == NULL)
    {
      set_error (error, "A sandbox account password holds a tab or a line break.");
      return 0;
    }
  in.cbData = (DWORD) strlen (plain);
  in.pbData = (BYTE *) plain;
  ok = CryptProtectData (&in, L"OpenWorker sandbox accounts", &entropy, NULL, NULL,
                         CRYPTPROTECT_UI_FORBIDDEN | CRYPTPROTECT_LOCAL_MACHINE, &out);
  SecureZeroMemory (plain, in.cbData);
  free (plain);
  if (!ok)
    {
      set_error (error, "The sandbox passwords could not be sealed (DPAPI error %lu).", GetLastError ());
      return 0;
    }
  wpath = ow_ws_wide (path);
  h = wpath != NULL ? CreateFileW (wpath, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL)
                    : INVALID_HANDLE_VALUE;
  free (wpath);
  if (h == INVALID_HANDLE_VALUE)
    {
      set_error (error, "The credential file %s could not be written (error %lu).", path, GetLastError ());
      LocalFree (out.pbData);
      return 0;
    }
  ok = WriteFile (h, OW_WS_CRED_MAGIC, (DWORD) magic, &written, NULL) && written == magic &&
       WriteFile (h, out.pbData, out.cbData, &written, NULL) && written == out.cbData;
  CloseHandle (h);
  LocalFree (out.pbData);
  if (!ok)
    {
      set_error (error, "The credential file %s could not be written completely.", path);
      return 0;
    }
  return 1;
}

int
ow_ws_cred_read (const char *path, char **open_password, char **closed_password, char **error)
{
  wchar_t *wpath = ow_ws_wide (path);
  HANDLE h;
  LARGE_INTEGER size;
  BYTE *data = NULL;
  DWORD got = 0;
  DATA_BLOB in, out = { 0 }, entropy = entropy_blob ();
  size_t magic = strlen (OW_WS_CRED_MAGIC);
  int ok;

  *open_password = *closed_password = NULL;
  h = wpath != NULL ? CreateFileW (wpath, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL)
                    : INVALID_HANDLE_VALUE;
  free (wpath);
  if (h == INVALID_HANDLE_VALUE)
    {
      DWORD e = GetLastError ();

      if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
        set_error (error, "The sandbox accounts' credential file is missing; run `openworker machine sandbox setup`.");
      else if (e == ERROR_ACCESS_DENIED)
        set_error (error, "This user may not read the sandbox accounts' credential file; run "
                          "`openworker machine sandbox setup` as this user.");
      else
        set_error (error, "The sandbox accounts' credential file cannot be opened (error %lu).", e);
      return 0;
    }
  if (!GetFileSizeEx (h, &size) || size.QuadPart < (LONGLONG) magic || size.QuadPart > 65536)
    {
      CloseHandle (h);
      set_error (error, "The sandbox accounts' credential file is damaged; run `openworker machine sandbox setup` again.");
      return 0;
    }
  data = malloc ((size_t) size.QuadPart);
  if (data == NULL)
    abort ();
  ok = ReadFile (h, data, (DWORD) size.QuadPart, &got, NULL) && got == (DWORD) size.QuadPart;
  CloseHandle (h);
  if (!ok || memcmp (data, OW_WS_CRED_MAGIC, magic) != 0)
    {
      free (data);
      set_error (error, "The sandbox accounts' credential file is not one OpenWorker wrote; run "
                        "`openworker machine sandbox setup` again.");
      return 0;
    }
  in.cbData = got - (DWORD) magic;
  in.pbData = data + magic;
  ok = CryptUnprotectData (&in, NULL, &entropy, NULL, NULL, CRYPTPROTECT_UI_FORBIDDEN, &out);
  free (data);
  if (!ok)
    {
      set_error (error, "The sandbox accounts' credential file cannot be unsealed on this PC (DPAPI error %lu); "
                        "run `openworker machine sandbox setup` again.", GetLastError ());
      return 0;
    }
  ok = ow_ws_cred_parse_plaintext ((const char *) out.pbData, out.cbData, open_password, closed_password, error);
  SecureZeroMemory (out.pbData, out.cbData);
  LocalFree (out.pbData);
  return ok;
}

/* --- access entries ------------------------------------------------------ */

static int
ace_matches (const ACE_HEADER *h, PSID sid, OwWsGrantKind kind)
{
  BYTE want_type = kind == OW_WS_GRANT_DENY_WRITE ? ACCESS_DENIED_ACE_TYPE : ACCESS_ALLOWED_ACE_TYPE;
  BYTE flags = h->AceFlags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE | INHERIT_ONLY_ACE |
                              NO_PROPAGATE_INHERIT_ACE);
  const ACCESS_ALLOWED_ACE *a = (const ACCESS_ALLOWED_ACE *) h;

  if (h->AceType != want_type || (h->AceFlags & INHERITED_ACE) != 0)
    return 0;
  if (flags != (BYTE) ow_ws_grant_inheritance (kind) || a->Mask != ow_ws_grant_mask (kind))
    return 0;
  return EqualSid ((PSID) &a->SidStart, sid);
}

static PACL
acl_new (DWORD size)
{
  PACL acl = LocalAlloc (LPTR, size);

  if (acl == NULL || !InitializeAcl (acl, size, ACL_REVISION))
    abort ();
  return acl;
}

static DWORD
acl_used (PACL acl)
{
  ACL_SIZE_INFORMATION info = { 0 };

  if (acl == NULL || !GetAclInformation (acl, &info, sizeof info, AclSizeInformation))
    return sizeof (ACL);
  return info.AclBytesInUse;
}

static int
acl_copy_ace (PACL to, PACL from, DWORD i)
{
  void *ace;

  return GetAce (from, i, &ace) && AddAce (to, ACL_REVISION, MAXDWORD, ace, ((ACE_HEADER *) ace)->AceSize);
}

int
ow_ws_acl_add_grant (PACL old, PSID sid, OwWsGrantKind kind, PACL *out, char **error)
{
  DWORD size = acl_used (old) + sizeof (ACCESS_ALLOWED_ACE) + GetLengthSid (sid) + 16;
  DWORD count = old != NULL ? old->AceCount : 0;
  PACL acl = acl_new (size);
  DWORD i = 0;
  BOOL ok = TRUE;

  *out = NULL;
  /* Canonical order: explicit denies, explicit allows, then what is
   * inherited. A new deny goes first, a new allow after the explicit ones. */
  if (kind == OW_WS_GRANT_DENY_WRITE)
    ok = AddAccessDeniedAceEx (acl, ACL_REVISION, ow_ws_grant_inheritance (kind), ow_ws_grant_mask (kind), sid);
  for (; ok && i < count; i++)
    {
      void *ace;

      if (!GetAce (old, i, &ace))
        ok = FALSE;
      else if ((((ACE_HEADER *) ace)->AceFlags & INHERITED_ACE) != 0)
        break;
      else
        ok = acl_copy_ace (acl, old, i);
    }
  if (ok && kind != OW_WS_GRANT_DENY_WRITE)
    ok = AddAccessAllowedAceEx (acl, ACL_REVISION, ow_ws_grant_inheritance (kind), ow_ws_grant_mask (kind), sid);
  for (; ok && i < count; i++)
    ok = acl_copy_ace (acl, old, i);
  if (!ok)
    {
      set_error (error, "An access entry could not be built (error %lu).", GetLastError ());
      LocalFree (acl);
      return 0;
    }
  *out = acl;
  return 1;
}

int
ow_ws_acl_remove_grant (PACL old, PSID sid, OwWsGrantKind kind, PACL *out, int *removed, char **error)
{
  DWORD count = old != NULL ? old->AceCount : 0;
  PACL acl = acl_new (acl_used (old) + 16);
  long skip = -1;

  *out = NULL;
  *removed = 0;
  for (DWORD i = 0; i < count; i++)
    {
      void *ace;

      if (GetAce (old, i, &ace) && ace_matches (ace, sid, kind))
        skip = (long) i;
    }
  for (DWORD i = 0; i < count; i++)
    if ((long) i != skip && !acl_copy_ace (acl, old, i))
      {
        set_error (error, "An access entry could not be copied (error %lu).", GetLastError ());
        LocalFree (acl);
        return 0;
      }
  *removed = skip >= 0;
  *out = acl;
  return 1;
}

int
ow_ws_acl_count_grants (PACL acl, PSID sid, OwWsGrantKind kind)
{
  int n = 0;

  for (DWORD i = 0; acl != NULL && i < acl->AceCount; i++)
    {
      void *ace;

      if (GetAce (acl, i, &ace) && ace_matches (ace, sid, kind))
        n++;
    }
  return n;
}

/* Reads a folder's DACL; *sd holds it (LocalFree). */
static int
read_dacl (const wchar_t *path, PACL *dacl, PSECURITY_DESCRIPTOR *sd, int *is_protected, char **error,
           const char *upath)
{
  SECURITY_DESCRIPTOR_CONTROL control = 0;
  DWORD revision;
  DWORD e = GetNamedSecurityInfoW (path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, dacl, NULL, sd);

  if (e != ERROR_SUCCESS)
    {
      set_error (error, "The access entries of “%s” cannot be read (error %lu).", upath, e);
      return 0;
    }
  GetSecurityDescriptorControl (*sd, &control, &revision);
  *is_protected = (control & SE_DACL_PROTECTED) != 0;
  return 1;
}

static int
change_grant (const char *path, const char *sid_text, OwWsGrantKind kind, int add, char **error)
{
  wchar_t *wpath = ow_ws_wide (path), *wsid = ow_ws_wide (sid_text);
  PSID sid = NULL;
  PACL dacl = NULL, changed = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  int prot = 0, before, after, removed = 0, ok = 0;
  DWORD e;

  if (wpath == NULL || wsid == NULL || !ConvertStringSidToSidW (wsid, &sid))
    {
      set_error (error, "“%s” is not a security identifier this PC knows.", sid_text);
      goto out;
    }
  if (!read_dacl (wpath, &dacl, &sd, &prot, error, path))
    goto out;
  before = ow_ws_acl_count_grants (dacl, sid, kind);
  if (add ? !ow_ws_acl_add_grant (dacl, sid, kind, &changed, error)
          : !ow_ws_acl_remove_grant (dacl, sid, kind, &changed, &removed, error))
    goto out;
  if (!add && !removed)
    {
      ok = 1;  /* nothing of ours there: already gone */
      goto out;
    }
  e = SetNamedSecurityInfoW (wpath, SE_FILE_OBJECT,
                             DACL_SECURITY_INFORMATION |
                               (prot ? PROTECTED_DACL_SECURITY_INFORMATION : UNPROTECTED_DACL_SECURITY_INFORMATION),
                             NULL, NULL, changed, NULL);
  if (e != ERROR_SUCCESS)
    {
      set_error (error, "The access entry on “%s” could not be %s (error %lu).", path, add ? "added" : "removed", e);
      goto out;
    }
  LocalFree (sd);
  sd = NULL;
  if (!read_dacl (wpath, &dacl, &sd, &prot, error, path))
    goto out;
  after = ow_ws_acl_count_grants (dacl, sid, kind);
  if (after != before + (add ? 1 : -1))
    {
      set_error (error, "The %s entry on “%s” did not take effect (%d before, %d after); the session is refused "
                        "rather than run without it.", ow_ws_grant_kind_name (kind), path, before, after);
      goto out;
    }
  ok = 1;
out:
  if (changed != NULL)
    LocalFree (changed);
  if (sd != NULL)
    LocalFree (sd);
  if (sid != NULL)
    LocalFree (sid);
  free (wpath);
  free (wsid);
  return ok;
}

int
ow_ws_apply_grant (const char *path, const char *sid, OwWsGrantKind kind, char **error)
{
  return change_grant (path, sid, kind, 1, error);
}

int
ow_ws_revoke_grant (const char *path, const char *sid, OwWsGrantKind kind, char **error)
{
  return change_grant (path, sid, kind, 0, error);
}

/* --- Windows Filtering Platform ------------------------------------------ */

static int
parse_guid (const char *text, GUID *out)
{
  unsigned int d[11];

  if (sscanf (text, "{%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x}", &d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6],
              &d[7], &d[8], &d[9], &d[10]) != 11)
    return 0;
  out->Data1 = d[0];
  out->Data2 = (unsigned short) d[1];
  out->Data3 = (unsigned short) d[2];
  for (int i = 0; i < 8; i++)
    out->Data4[i] = (unsigned char) d[3 + i];
  return 1;
}

/* The four filters and everything they point at, kept alive together. */
struct _OwWsWfpFilters {
  FWPM_FILTER0           filters[4];      /* permit v4, block v4, permit v6, block v6 */
  FWPM_FILTER_CONDITION0 conditions[4][3];  /* user, loopback, [port range] */
  GUID                   provider;        /* OW_WS_WFP_PROVIDER */
  FWP_BYTE_BLOB          user_blob;       /* the account as a security descriptor */
  PSECURITY_DESCRIPTOR   user_sd;         /* owned by user_blob; LocalFree */
  FWP_RANGE0             ports;           /* the proxy's range */
  wchar_t                names[4][96];    /* display names */
};

OwWsWfpFilters *
ow_ws_wfp_filters_new (const char *sid, int port_low, int port_high, char **error)
{
  static const char *const keys[4] = { OW_WS_WFP_PERMIT_V4, OW_WS_WFP_BLOCK_V4, OW_WS_WFP_PERMIT_V6, OW_WS_WFP_BLOCK_V6 };
  OwWsWfpFilters *f;
  char *sddl;
  wchar_t *wsddl;
  ULONG sd_size = 0;
  GUID sublayer;

  if (!ow_ws_sid_is_valid (sid) || port_low < 1 || port_high > 65535 || port_low > port_high)
    {
      set_error (error, "The loopback filters need the closed account's SID and a port range (got %s, %d–%d).",
                 sid != NULL ? sid : "(none)", port_low, port_high);
      return NULL;
    }
  f = calloc (1, sizeof *f);
  if (f == NULL)
    abort ();
  sddl = ow_ws_sddl_match_user (sid);
  wsddl = ow_ws_wide (sddl);
  free (sddl);
  if (!ConvertStringSecurityDescriptorToSecurityDescriptorW (wsddl, SDDL_REVISION_1, &f->user_sd, &sd_size))
    {
      set_error (error, "The closed account %s cannot be put into a filter (error %lu).", sid, GetLastError ());
      free (wsddl);
      free (f);
      return NULL;
    }
  free (wsddl);
  f->user_blob.size = sd_size;
  f->user_blob.data = (UINT8 *) f->user_sd;
  f->ports.valueLow.type = FWP_UINT16;
  f->ports.valueLow.uint16 = (UINT16) port_low;
  f->ports.valueHigh.type = FWP_UINT16;
  f->ports.valueHigh.uint16 = (UINT16) port_high;
  parse_guid (OW_WS_WFP_PROVIDER, &f->provider);
  parse_guid (OW_WS_WFP_SUBLAYER, &sublayer);

  for (int i = 0; i < 4; i++)
    {
      FWPM_FILTER0 *flt = &f->filters[i];
      FWPM_FILTER_CONDITION0 *c = f->conditions[i];
      int permit = i % 2 == 0;
      int v6 = i >= 2;

      parse_guid (keys[i], &flt->filterKey);
      swprintf (f->names[i], 96, L"OpenWorker sandbox: %ls (%ls)",
                permit ? L"loopback to the allow-list proxy" : L"no other local port", v6 ? L"IPv6" : L"IPv4");
      flt->displayData.name = f->names[i];
      flt->displayData.description = (wchar_t *) L"Written by openworker machine sandbox setup";
      flt->flags = OW_FWPM_PERSISTENT;
      flt->providerKey = &f->provider;
      flt->layerKey = v6 ? ow_layer_connect_v6 : ow_layer_connect_v4;
      flt->subLayerKey = sublayer;
      /* Within our sublayer the heavier filter decides: the proxy's ports
       * are let through, every other loopback port is not. */
      flt->weight.type = FWP_UINT8;
      flt->weight.uint8 = permit ? 15 : 5;
      flt->action.type = permit ? FWP_ACTION_PERMIT : FWP_ACTION_BLOCK;
      c[0].fieldKey = ow_condition_user_id;
      c[0].matchType = FWP_MATCH_EQUAL;
      c[0].conditionValue.type = FWP_SECURITY_DESCRIPTOR_TYPE;
      c[0].conditionValue.sd = &f->user_blob;
      c[1].fieldKey = ow_condition_flags;
      c[1].matchType = FWP_MATCH_FLAGS_ALL_SET;
      c[1].conditionValue.type = FWP_UINT32;
      c[1].conditionValue.uint32 = FWP_CONDITION_FLAG_IS_LOOPBACK;
      c[2].fieldKey = ow_condition_remote_port;
      c[2].matchType = FWP_MATCH_RANGE;
      c[2].conditionValue.type = FWP_RANGE_TYPE;
      c[2].conditionValue.rangeValue = &f->ports;
      flt->numFilterConditions = permit ? 3 : 2;
      flt->filterCondition = c;
    }
  return f;
}

size_t
ow_ws_wfp_filters_count (OwWsWfpFilters *filters)
{
  return filters != NULL ? 4 : 0;
}

const void *
ow_ws_wfp_filters_get (OwWsWfpFilters *filters, size_t i)
{
  return filters != NULL && i < 4 ? &filters->filters[i] : NULL;
}

void
ow_ws_wfp_filters_free (OwWsWfpFilters *filters)
{
  if (filters == NULL)
    return;
  if (filters->user_sd != NULL)
    LocalFree (filters->user_sd);
  free (filters);
}

static int
wfp_open (HANDLE *engine, char **error)
{
  DWORD e = FwpmEngineOpen0 (NULL, RPC_C_AUTHN_DEFAULT, NULL, NULL, engine);

  if (e != ERROR_SUCCESS)
    {
      set_error (error, "The Windows Filtering Platform cannot be opened (error 0x%08lx); the loopback filters "
                        "need an administrator and the Base Filtering Engine service.", e);
      return 0;
    }
  return 1;
}

/* Deletes our filters, sublayer and provider; what is not there is fine. */
static void
wfp_delete_ours (HANDLE engine)
{
  static const char *const keys[4] = { OW_WS_WFP_PERMIT_V4, OW_WS_WFP_BLOCK_V4, OW_WS_WFP_PERMIT_V6, OW_WS_WFP_BLOCK_V6 };
  GUID g;

  for (int i = 0; i < 4; i++)
    if (parse_guid (keys[i], &g))
      FwpmFilterDeleteByKey0 (engine, &g);
  if (parse_guid (OW_WS_WFP_SUBLAYER, &g))
    FwpmSubLayerDeleteByKey0 (engine, &g);
  if (parse_guid (OW_WS_WFP_PROVIDER, &g))
    FwpmProviderDeleteByKey0 (engine, &g);
}

int
ow_ws_wfp_install (const char *sid, int port_low, int port_high, char **error)
{
  OwWsWfpFilters *f = ow_ws_wfp_filters_new (sid, port_low, port_high, error);
  HANDLE engine = NULL;
  FWPM_PROVIDER0 provider = { 0 };
  FWPM_SUBLAYER0 sublayer = { 0 };
  DWORD e = ERROR_SUCCESS;
  const char *step = "";

  if (f == NULL)
    return 0;
  if (!wfp_open (&engine, error))
    {
      ow_ws_wfp_filters_free (f);
      return 0;
    }
  e = FwpmTransactionBegin0 (engine, 0);
  step = "begin";
  if (e == ERROR_SUCCESS)
    {
      wfp_delete_ours (engine);
      provider.providerKey = f->provider;
      provider.displayData.name = (wchar_t *) L"OpenWorker sandbox";
      provider.displayData.description = (wchar_t *) L"Loopback filters for the OpenWorker sandbox account";
      provider.flags = OW_FWPM_PERSISTENT;
      e = FwpmProviderAdd0 (engine, &provider, NULL);
      step = "provider";
    }
  if (e == ERROR_SUCCESS)
    {
      parse_guid (OW_WS_WFP_SUBLAYER, &sublayer.subLayerKey);
      sublayer.displayData.name = (wchar_t *) L"OpenWorker sandbox";
      sublayer.displayData.description = (wchar_t *) L"Loopback: the allow-list proxy only";
      sublayer.flags = OW_FWPM_PERSISTENT;
      sublayer.providerKey = &f->provider;
      sublayer.weight = 0xffff;
      e = FwpmSubLayerAdd0 (engine, &sublayer, NULL);
      step = "sublayer";
    }
  for (int i = 0; e == ERROR_SUCCESS && i < 4; i++)
    {
      UINT64 id = 0;

      e = FwpmFilterAdd0 (engine, &f->filters[i], NULL, &id);
      step = "filter";
    }
  if (e == ERROR_SUCCESS)
    {
      e = FwpmTransactionCommit0 (engine);
      step = "commit";
    }
  else
    FwpmTransactionAbort0 (engine);
  FwpmEngineClose0 (engine);
  ow_ws_wfp_filters_free (f);
  if (e != ERROR_SUCCESS)
    {
      set_error (error, "The loopback filters could not be written (%s: error 0x%08lx).", step, e);
      return 0;
    }
  return 1;
}

int
ow_ws_wfp_remove (char **error)
{
  HANDLE engine = NULL;

  if (!wfp_open (&engine, error))
    return 0;
  wfp_delete_ours (engine);
  FwpmEngineClose0 (engine);
  return 1;
}

int
ow_ws_wfp_present (char **detail)
{
  static const char *const keys[4] = { OW_WS_WFP_PERMIT_V4, OW_WS_WFP_BLOCK_V4, OW_WS_WFP_PERMIT_V6, OW_WS_WFP_BLOCK_V6 };
  HANDLE engine = NULL;
  int result = 1;
  char *why = NULL;

  if (!wfp_open (&engine, &why))
    {
      if (detail != NULL)
        *detail = why;
      else
        free (why);
      return -1;
    }
  for (int i = 0; i < 4 && result != -1; i++)
    {
      GUID g;
      FWPM_FILTER0 *got = NULL;
      DWORD e;

      parse_guid (keys[i], &g);
      e = FwpmFilterGetByKey0 (engine, &g, &got);
      if (e == ERROR_SUCCESS)
        FwpmFreeMemory0 ((void **) &got);
      else if (e == OW_FWP_E_FILTER_NOT_FOUND)
        result = 0;
      else
        result = -1;
    }
  FwpmEngineClose0 (engine);
  if (detail != NULL)
    *detail = _strdup (result == 1 ? "all four filters are there"
                       : result == 0 ? "a filter is missing; run `openworker machine sandbox setup` again"
                                     : "only an administrator may look; the wall check at session start tests them");
  return result;
}

int
ow_ws_deny_logon_rights (const char *sid_text, char **error)
{
  static const wchar_t *const rights[] = {
    L"SeDenyRemoteInteractiveLogonRight", L"SeDenyNetworkLogonRight", L"SeDenyServiceLogonRight",
  };
  LSA_OBJECT_ATTRIBUTES attrs = { 0 };
  LSA_HANDLE policy = NULL;
  LSA_UNICODE_STRING names[3];
  wchar_t *wsid = ow_ws_wide (sid_text);
  PSID sid = NULL;
  NTSTATUS st;

  if (wsid == NULL || !ConvertStringSidToSidW (wsid, &sid))
    {
      free (wsid);
      set_error (error, "“%s” is not a security identifier.", sid_text);
      return 0;
    }
  free (wsid);
  st = LsaOpenPolicy (NULL, &attrs, POLICY_CREATE_ACCOUNT | POLICY_LOOKUP_NAMES, &policy);
  if (st == STATUS_SUCCESS)
    {
      for (int i = 0; i < 3; i++)
        {
          names[i].Buffer = (wchar_t *) rights[i];
          names[i].Length = (USHORT) (wcslen (rights[i]) * sizeof (wchar_t));
          names[i].MaximumLength = names[i].Length;
        }
      st = LsaAddAccountRights (policy, sid, names, 3);
      LsaClose (policy);
    }
  LocalFree (sid);
  if (st != STATUS_SUCCESS)
    {
      set_error (error, "The logon rights of %s could not be set (error %lu).", sid_text, LsaNtStatusToWinError (st));
      return 0;
    }
  return 1;
}

/* --- status --------------------------------------------------------------- */

static void
check_add (OwWsCheck **checks, size_t *n, const char *name, int ok, char *detail)
{
  *checks = realloc (*checks, (*n + 1) * sizeof **checks);
  if (*checks == NULL)
    abort ();
  (*checks)[*n].name = _strdup (name);
  (*checks)[*n].ok = ok;
  (*checks)[*n].detail = detail != NULL ? detail : _strdup ("");
  (*n)++;
}

void
ow_ws_checks_free (OwWsCheck *checks, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      free (checks[i].name);
      free (checks[i].detail);
    }
  free (checks);
}

int
ow_ws_checks_ok (const OwWsCheck *checks, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (checks[i].ok == 0)
      return 0;
  return 1;
}

static char *
read_text_file (const char *path)
{
  wchar_t *w = ow_ws_wide (path);
  HANDLE h = w != NULL ? CreateFileW (w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL)
                       : INVALID_HANDLE_VALUE;
  LARGE_INTEGER size;
  char *text = NULL;
  DWORD got = 0;

  free (w);
  if (h == INVALID_HANDLE_VALUE)
    return NULL;
  if (GetFileSizeEx (h, &size) && size.QuadPart < 1024 * 1024)
    {
      text = malloc ((size_t) size.QuadPart + 1);
      if (text == NULL)
        abort ();
      if (!ReadFile (h, text, (DWORD) size.QuadPart, &got, NULL))
        got = 0;
      text[got] = '\0';
    }
  CloseHandle (h);
  return text;
}

/* The SID of a local account, or NULL when it does not exist. */
static char *
account_sid (const char *name)
{
  BYTE sid[SECURITY_MAX_SID_SIZE];
  DWORD sid_len = sizeof sid, dom_len = 256;
  wchar_t domain[256];
  SID_NAME_USE use;
  wchar_t *wname = ow_ws_wide (name), *text = NULL;
  char *out = NULL;

  if (wname != NULL && LookupAccountNameW (NULL, wname, sid, &sid_len, domain, &dom_len, &use) &&
      ConvertSidToStringSidW (sid, &text))
    {
      out = ow_ws_utf8 (text);
      LocalFree (text);
    }
  free (wname);
  return out;
}

/* 1 the rule is there, 0 it is not, -1 the firewall cannot be asked. */
static int
firewall_rule_present (const char *display_name)
{
  INetFwPolicy2 *policy = NULL;
  INetFwRules *rules = NULL;
  INetFwRule *rule = NULL;
  HRESULT init = CoInitializeEx (NULL, COINIT_APARTMENTTHREADED);
  HRESULT hr;
  wchar_t *wname = ow_ws_wide (display_name);
  BSTR name = wname != NULL ? SysAllocString (wname) : NULL;
  int result = -1;

  free (wname);
  hr = CoCreateInstance (&CLSID_NetFwPolicy2, NULL, CLSCTX_INPROC_SERVER, &IID_INetFwPolicy2, (void **) &policy);
  if (SUCCEEDED (hr))
    hr = INetFwPolicy2_get_Rules (policy, &rules);
  if (SUCCEEDED (hr) && name != NULL)
    {
      hr = INetFwRules_Item (rules, name, &rule);
      if (SUCCEEDED (hr))
        result = 1;
      else if (hr == HRESULT_FROM_WIN32 (ERROR_FILE_NOT_FOUND))
        result = 0;
    }
  if (rule != NULL)
    INetFwRule_Release (rule);
  if (rules != NULL)
    INetFwRules_Release (rules);
  if (policy != NULL)
    INetFwPolicy2_Release (policy);
  SysFreeString (name);
  if (SUCCEEDED (init))
    CoUninitialize ();
  return result;
}

size_t
ow_ws_status (const char *program_data, OwWsCheck **checks)
{
  char *root = ow_ws_root_dir (program_data);
  char *setup_path = ow_ws_join (root, "setup.json");
  char *cred_path = ow_ws_join (root, "account.cred");
  char *boxes = ow_ws_join (root, "sandboxes");
  char *text = read_text_file (setup_path);
  char *why = NULL;
  OwWsSetup setup = { 0 };
  int have_setup = 0;
  size_t n = 0;

  *checks = NULL;
  if (text == NULL)
    check_add (checks, &n, "setup record", 0,
               dup_printf ("%s is missing: the one-time setup has not run. Run `openworker machine sandbox setup` "
                           "(one administrator prompt).", setup_path));
  else if (!ow_ws_setup_from_json (text, &setup, &why))
    check_add (checks, &n, "setup record", 0, why), why = NULL;
  else if (setup.version < OW_WS_SETUP_VERSION)
    check_add (checks, &n, "setup record", 0,
               dup_printf ("an older setup (version %d) is recorded; run `openworker machine sandbox setup` again.",
                           setup.version));
  else
    {
      have_setup = 1;
      check_add (checks, &n, "setup record", 1, dup_printf ("set up at %s", setup.set_up_at ? setup.set_up_at : "?"));
    }
  free (text);

  {
    const char *names[2] = { OW_WS_OPEN_ACCOUNT, OW_WS_CLOSED_ACCOUNT };
    const char *recorded[2] = { have_setup ? setup.open_sid : NULL, have_setup ? setup.closed_sid : NULL };

    for (int i = 0; i < 2; i++)
      {
        char *sid = account_sid (names[i]);
        char *label = dup_printf ("account %s", names[i]);

        if (sid == NULL)
          check_add (checks, &n, label, 0, dup_printf ("the account does not exist; run `openworker machine sandbox setup`."));
        else if (recorded[i] != NULL && _stricmp (sid, recorded[i]) != 0)
          check_add (checks, &n, label, 0, dup_printf ("the account was made again since setup (%s); run setup again.", sid));
        else
          check_add (checks, &n, label, 1, dup_printf ("%s", sid));
        free (sid);
        free (label);
      }
  }

  {
    char *open_pw = NULL, *closed_pw = NULL;

    if (ow_ws_cred_read (cred_path, &open_pw, &closed_pw, &why))
      check_add (checks, &n, "credentials", 1, dup_printf ("%s can be unsealed by this user", cred_path));
    else
      check_add (checks, &n, "credentials", 0, why), why = NULL;
    ow_ws_password_free (open_pw);
    ow_ws_password_free (closed_pw);
  }

  {
    int fw = firewall_rule_present (have_setup && setup.firewall_rule ? setup.firewall_rule : OW_WS_FIREWALL_RULE);

    check_add (checks, &n, "firewall rule", fw,
               _strdup (fw == 1 ? "outbound is blocked for the closed account"
                        : fw == 0 ? "the rule is missing; run `openworker machine sandbox setup` again"
                                  : "Windows Firewall cannot be asked here; the wall check at session start tests it"));
  }

  {
    char *detail = NULL;
    int wfp = ow_ws_wfp_present (&detail);

    check_add (checks, &n, "loopback filters", wfp, detail);
  }

  {
    wchar_t *w = ow_ws_wide (boxes);
    DWORD attrs = w != NULL ? GetFileAttributesW (w) : INVALID_FILE_ATTRIBUTES;

    free (w);
    check_add (checks, &n, "sandboxes folder",
               attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY) != 0,
               attrs != INVALID_FILE_ATTRIBUTES ? dup_printf ("%s", boxes)
                                                : dup_printf ("%s is missing; run `openworker machine sandbox setup`.", boxes));
  }

  ow_ws_setup_clear (&setup);
  free (why);
  free (root);
  free (setup_path);
  free (cred_path);
  free (boxes);
  return n;
}

/* --- the runner ------------------------------------------------------------ */

int
ow_ws_job_create (HANDLE *job, char **error)
{
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = { 0 };

  *job = CreateJobObjectW (NULL, NULL);
  if (*job == NULL)
    {
      set_error (error, "A job object for the sandbox could not be made (error %lu).", GetLastError ());
      return 0;
    }
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
                                            JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  if (!SetInformationJobObject (*job, JobObjectExtendedLimitInformation, &limits, sizeof limits))
    {
      set_error (error, "The sandbox's job object could not be limited (error %lu).", GetLastError ());
      CloseHandle (*job);
      *job = NULL;
      return 0;
    }
  return 1;
}

int
ow_ws_pipes_create (HANDLE *child_in, HANDLE *to_child, HANDLE *from_child, HANDLE *child_out, char **error)
{
  SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };

  *child_in = *to_child = *from_child = *child_out = NULL;
  if (!CreatePipe (child_in, to_child, &sa, 0) || !CreatePipe (from_child, child_out, &sa, 0))
    {
      set_error (error, "The runner's pipes could not be made (error %lu).", GetLastError ());
      if (*child_in != NULL)
        CloseHandle (*child_in), CloseHandle (*to_child);
      *child_in = *to_child = NULL;
      return 0;
    }
  /* Only the child's ends are passed on. */
  SetHandleInformation (*to_child, HANDLE_FLAG_INHERIT, 0);
  SetHandleInformation (*from_child, HANDLE_FLAG_INHERIT, 0);
  return 1;
}

/* "A=1\0B=2\0\0" in UTF-16, sorted as CreateProcess wants it. */
static wchar_t *
environment_block (const char *const *env)
{
  char **sorted = ow_ws_environment (env, NULL);
  size_t total = 1, at = 0;
  wchar_t *block;

  for (size_t i = 0; sorted[i] != NULL; i++)
    total += (size_t) MultiByteToWideChar (CP_UTF8, 0, sorted[i], -1, NULL, 0);
  block = calloc (total + 1, sizeof *block);
  if (block == NULL)
    abort ();
  for (size_t i = 0; sorted[i] != NULL; i++)
    at += (size_t) MultiByteToWideChar (CP_UTF8, 0, sorted[i], -1, block + at, (int) (total - at));
  block[at] = L'\0';
  ow_ws_strv_free (sorted);
  return block;
}

int
ow_ws_spawn_runner (const OwWsSpawn *spawn, OwWsRunner *out, char **error)
{
  HANDLE child_in = NULL, child_out = NULL, null_err = INVALID_HANDLE_VALUE;
  SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };
  STARTUPINFOW si = { sizeof si };
  PROCESS_INFORMATION pi = { 0 };
  char *cmdline = ow_ws_command_line (spawn->argv);
  wchar_t *wuser = ow_ws_wide (spawn->account), *wpass = ow_ws_wide (spawn->password);
  wchar_t *wapp = ow_ws_wide (spawn->runner_exe), *wcmd = ow_ws_wide (cmdline);
  wchar_t *wcwd = spawn->cwd != NULL ? ow_ws_wide (spawn->cwd) : NULL;
  wchar_t *wenv = environment_block (spawn->env);
  int ok = 0;

  memset (out, 0, sizeof *out);
  if (wuser == NULL || wpass == NULL || wapp == NULL || wcmd == NULL)
    {
      set_error (error, "The runner's account, password or command line is not valid text.");
      goto out;
    }
  /* CreateProcessWithLogonW takes at most 1024 characters of command line;
   * the environment travels in its own block, so only paths go here. */
  if (wcslen (wcmd) >= 1024)
    {
      set_error (error, "The runner's command line is longer than Windows allows for another account (1024).");
      goto out;
    }
  if (!ow_ws_job_create (&out->job, error) ||
      !ow_ws_pipes_create (&child_in, &out->to_runner, &out->from_runner, &child_out, error))
    goto out;
  null_err = CreateFileW (L"NUL", GENERIC_WRITE, FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL);
  si.dwFlags = STARTF_USESTDHANDLES | STARTF_USESHOWWINDOW;
  si.wShowWindow = SW_HIDE;
  si.hStdInput = child_in;
  si.hStdOutput = child_out;
  si.hStdError = null_err;
  if (!CreateProcessWithLogonW (wuser, L".", wpass, LOGON_WITH_PROFILE, wapp, wcmd,
                                CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW, wenv, wcwd, &si,
                                &pi))
    {
      DWORD e = GetLastError ();

      set_error (error, "The tool runner could not be started as %s (error %lu)%s.", spawn->account, e,
                 e == ERROR_LOGON_FAILURE ? ": the stored password is wrong; run `openworker machine sandbox setup` again"
                 : e == 0 ? ": this Windows cannot log another account on" : "");
      goto out;
    }
  if (!AssignProcessToJobObject (out->job, pi.hProcess))
    {
      set_error (error, "The tool runner could not be put into the session's job (error %lu).", GetLastError ());
      TerminateProcess (pi.hProcess, 1);
      CloseHandle (pi.hThread);
      CloseHandle (pi.hProcess);
      goto out;
    }
  ResumeThread (pi.hThread);
  CloseHandle (pi.hThread);
  out->process = pi.hProcess;
  out->pid = pi.dwProcessId;
  ok = 1;
out:
  if (child_in != NULL)
    CloseHandle (child_in);
  if (child_out != NULL)
    CloseHandle (child_out);
  if (null_err != INVALID_HANDLE_VALUE)
    CloseHandle (null_err);
  if (wpass != NULL)
    SecureZeroMemory (wpass, wcslen (wpass) * sizeof *wpass);
  free (wuser);
  free (wpass);
  free (wapp);
  free (wcmd);
  free (wcwd);
  free (wenv);
  free (cmdline);
  if (!ok)
    ow_ws_runner_close (out);
  return ok;
}

void
ow_ws_runner_close (OwWsRunner *runner)
{
  if (runner->to_runner != NULL)
    CloseHandle (runner->to_runner);
  if (runner->from_runner != NULL)
    CloseHandle (runner->from_runner);
  /* Closing the job kills the runner and everything it started. */
  if (runner->job != NULL)
    CloseHandle (runner->job);
  if (runner->process != NULL)
    {
      WaitForSingleObject (runner->process, 5000);
      CloseHandle (runner->process);
    }
  memset (runner, 0, sizeof *runner);
}

/* --- the wall, from inside ------------------------------------------------- */

/* 0 listable, else the Windows error. */
static DWORD
list_folder (const char *folder)
{
  char *pattern = ow_ws_join (folder, "*");
  wchar_t *w = ow_ws_wide (pattern);
  WIN32_FIND_DATAW data;
  HANDLE h = w != NULL ? FindFirstFileW (w, &data) : INVALID_HANDLE_VALUE;
  DWORD e = h == INVALID_HANDLE_VALUE ? GetLastError () : 0;

  if (h != INVALID_HANDLE_VALUE)
    FindClose (h);
  free (pattern);
  free (w);
  return e;
}

/* 1 a connection to 127.0.0.1:@port was accepted, 0 it was not. */
static int
loopback_reachable (int port)
{
  WSADATA wsa;
  SOCKET s;
  struct sockaddr_in addr = { 0 };
  u_long nonblocking = 1;
  fd_set w, x;
  struct timeval tv = { 3, 0 };
  int reached = 0;

  if (WSAStartup (MAKEWORD (2, 2), &wsa) != 0)
    return 0;
  s = socket (AF_INET, SOCK_STREAM, IPPROTO_TCP);
  if (s != INVALID_SOCKET)
    {
      addr.sin_family = AF_INET;
      addr.sin_port = htons ((u_short) port);
      addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
      ioctlsocket (s, FIONBIO, &nonblocking);
      if (connect (s, (struct sockaddr *) &addr, sizeof addr) == 0)
        reached = 1;
      else if (WSAGetLastError () == WSAEWOULDBLOCK)
        {
          FD_ZERO (&w);
          FD_ZERO (&x);
          FD_SET (s, &w);
          FD_SET (s, &x);
          if (select (0, NULL, &w, &x, &tv) > 0 && FD_ISSET (s, &w) && !FD_ISSET (s, &x))
            reached = 1;
        }
      closesocket (s);
    }
  WSACleanup ();
  return reached;
}

int
ow_ws_wall_check (const char *profile_root, const char *const *folders, int probe_port, OwWsCheck **checks,
                  size_t *n)
{
  int proved = 1;

  *checks = NULL;
  *n = 0;
  for (size_t i = 0; folders != NULL && folders[i] != NULL; i++)
    {
      DWORD e = list_folder (folders[i]);
      char *label = dup_printf ("folder %s", folders[i]);

      check_add (checks, n, label, e == 0,
                 e == 0 ? _strdup ("reachable") : dup_printf ("not reachable from inside (error %lu)", e));
      proved &= e == 0;
      free (label);
    }
  {
    DWORD e = list_folder (profile_root);
    int refused = e == ERROR_ACCESS_DENIED;

    check_add (checks, n, "profile hidden", refused,
               refused ? dup_printf ("%s cannot be listed", profile_root)
               : e == 0 ? dup_printf ("%s can be listed from inside: the wall is not up", profile_root)
                        : dup_printf ("%s could not be tried (error %lu), so the wall cannot be proved", profile_root, e));
    proved &= refused;
  }
  if (probe_port != 0)
    {
      int reached = loopback_reachable (probe_port);

      check_add (checks, n, "loopback closed", !reached,
                 reached ? dup_printf ("127.0.0.1:%d outside the proxy's range answered: the loopback filters are missing",
                                       probe_port)
                         : dup_printf ("127.0.0.1:%d is unreachable", probe_port));
      proved &= !reached;
    }
  return proved;
}

/* --- elevation ------------------------------------------------------------- */

int
ow_ws_run_elevated (const char *script, const char *dir, unsigned long *exit_code, char **error)
{
  static const unsigned char bom[3] = { 0xef, 0xbb, 0xbf };
  char *path = ow_ws_join (dir, "openworker-sandbox.ps1");
  char *params = dup_printf ("-NoProfile -NonInteractive -ExecutionPolicy Bypass -File \"%s\"", path);
  wchar_t *wpath = ow_ws_wide (path), *wparams = ow_ws_wide (params);
  SHELLEXECUTEINFOW sei = { sizeof sei };
  HANDLE h;
  DWORD written, code = 1;
  int ok = 0;

  *exit_code = 1;
  h = wpath != NULL ? CreateFileW (wpath, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL)
                    : INVALID_HANDLE_VALUE;
  if (h == INVALID_HANDLE_VALUE)
    {
      set_error (error, "The setup script could not be written to %s (error %lu).", path, GetLastError ());
      goto out;
    }
  ok = WriteFile (h, bom, 3, &written, NULL) && WriteFile (h, script, (DWORD) strlen (script), &written, NULL);
  CloseHandle (h);
  if (!ok)
    {
      set_error (error, "The setup script could not be written to %s.", path);
      goto out;
    }
  ok = 0;
  sei.fMask = SEE_MASK_NOCLOSEPROCESS | SEE_MASK_NOASYNC;
  sei.lpVerb = L"runas";
  sei.lpFile = L"powershell.exe";
  sei.lpParameters = wparams;
  sei.nShow = SW_HIDE;
  if (!ShellExecuteExW (&sei) || sei.hProcess == NULL)
    {
      DWORD e = GetLastError ();

      set_error (error, e == ERROR_CANCELLED ? "The administrator prompt was declined; nothing was changed."
                                             : "The setup could not be started elevated (error %lu).", e);
      goto out;
    }
  WaitForSingleObject (sei.hProcess, INFINITE);
  GetExitCodeProcess (sei.hProcess, &code);
  CloseHandle (sei.hProcess);
  *exit_code = code;
  ok = 1;
out:
  if (wpath != NULL)
    DeleteFileW (wpath);
  free (path);
  free (params);
  free (wpath);
  free (wparams);
  return ok;
}
