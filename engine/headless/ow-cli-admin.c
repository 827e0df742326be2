/* ow-cli-admin.c: rules, inbox and audit commands (see ow-cli-admin.h).
 *
 * These are a person's tools: adding a standing rule here is the explicit
 * act the ladder of earned autonomy asks for, and answering an inbox item
 * here unblocks a run that parked it.
 */
#define G_LOG_DOMAIN "ow-cli"

#include "headless/ow-cli-admin.h"

#include <stdio.h>
#include <string.h>

#include "core/ow-context.h"
#include "ow-json.h"
#include "ow-terminal.h"
#include "policy/ow-inbox.h"
#include "policy/ow-rules.h"
#include "store/ow-audit-log.h"

static int G_GNUC_PRINTF (2, 3)
fail (int code, const char *fmt, ...)
{
  va_list ap;

  fputs ("openworker: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  return code;
}

static OwContext *
open_context (GError **error)
{
  g_autoptr(OwPaths) paths = ow_paths_new_default ();
  OwContextOptions options = { .paths = paths };

  return ow_context_new (&options, error);
}

static gboolean
has_flag (int argc, char **argv, const char *flag)
{
  for (int i = 0; i < argc; i++)
    if (g_str_equal (argv[i], flag))
      return TRUE;
  return FALSE;
}

static const char *
flag_value (int argc, char **argv, const char *flag)
{
  for (int i = 0; i + 1 < argc; i++)
    if (g_str_equal (argv[i], flag))
      return argv[i + 1];
  return NULL;
}

static void
print_json (JsonNode *node)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, NULL);
  puts (text);
}

/* ---- rules -------------------------------------------------------------- */

int
ow_rules_main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwContext) ctx = NULL;
  const char *verb = argc > 1 ? argv[1] : "list";

  if (g_str_equal (verb, "--help") || g_str_equal (verb, "help"))
    {
      puts ("Usage: openworker rules list [--json]\n"
            "       openworker rules add allow|deny RULE [--reason TEXT] [--expires ISO-8601]\n"
            "       openworker rules revoke ID\n\n"
            "A rule is TOOL or TOOL:PATTERN: run_shell:git status (argv prefix of a plain command),\n"
            "write_file:docs/report.md (path glob), send_message:slack:C123 (exact target).");
      return 0;
    }
  ctx = open_context (&error);
  if (ctx == NULL)
    return fail (1, "%s", error->message);

  if (g_str_equal (verb, "list"))
    {
      g_autoptr(GPtrArray) rules = ow_standing_rules_list (ow_context_get_store (ctx), &error);
      if (rules == NULL)
        return fail (1, "%s", error->message);
      if (has_flag (argc, argv, "--json"))
        {
          g_autoptr(JsonArray) arr = json_array_new ();
          g_autoptr(JsonNode) node = NULL;
          for (guint i = 0; i < rules->len; i++)
            {
              OwStandingRule *r = g_ptr_array_index (rules, i);
              JsonObject *o = json_object_new ();
              json_object_set_int_member (o, "id", r->id);
              json_object_set_string_member (o, "rule", r->rule);
              json_object_set_string_member (o, "decision", r->decision);
              json_object_set_string_member (o, "created_at", r->created_at);
              json_object_set_string_member (o, "created_by", r->created_by);
              if (r->session_id != NULL)
                json_object_set_string_member (o, "session_id", r->session_id);
              if (r->reason != NULL)
                json_object_set_string_member (o, "reason", r->reason);
              if (r->expires_at != NULL)
                json_object_set_string_member (o, "expires_at", r->expires_at);
              if (r->revoked_at != NULL)
                json_object_set_string_member (o, "revoked_at", r->revoked_at);
              json_array_add_object_element (arr, o);
            }
          node = json_node_init_array (json_node_alloc (), arr);
          print_json (node);
          return 0;
        }
      if (rules->len == 0)
        puts ("No standing rules.");
      for (guint i = 0; i < rules->len; i++)
        {
          OwStandingRule *r = g_ptr_array_index (rules, i);
          g_autofree char *rule = ow_terminal_escape (r->rule, NULL, NULL);
          printf ("#%-4" G_GINT64_FORMAT " %-5s %s\n      made %s by %s%s%s%s%s%s\n", r->id, r->decision, rule,
                  r->created_at, r->created_by, r->expires_at != NULL ? ", expires " : "",
                  r->expires_at != NULL ? r->expires_at : "", r->revoked_at != NULL ? ", revoked " : "",
                  r->revoked_at != NULL ? r->revoked_at : "", r->reason != NULL ? "" : "");
        }
      return 0;
    }
  if (g_str_equal (verb, "add"))
    {
      gint64 id;
      if (argc < 4)
        return fail (2, "usage: openworker rules add allow|deny RULE [--reason TEXT] [--expires ISO-8601]");
      id = ow_standing_rules_add (ow_context_get_store (ctx), argv[3], argv[2], "cli", NULL,
                                  flag_value (argc, argv, "--reason"), flag_value (argc, argv, "--expires"), &error);
      if (id == 0)
        return fail (2, "%s", error->message);
      printf ("Added standing rule #%" G_GINT64_FORMAT ": %s %s\n", id, argv[2], argv[3]);
      return 0;
    }
  if (g_str_equal (verb, "revoke"))
    {
      gint64 id;
      char *end = NULL;
      if (argc < 3)
        return fail (2, "usage: openworker rules revoke ID");
      id = g_ascii_strtoll (argv[2][0] == '#' ? argv[2] + 1 : argv[2], &end, 10);
      if (end == NULL || *end != '\0' || id <= 0)
        return fail (2, "\"%s\" is not a rule id; see openworker rules list.", argv[2]);
      if (!ow_standing_rules_revoke (ow_context_get_store (ctx), id, &error))
        return fail (1, "%s", error->message);
      printf ("Revoked standing rule #%" G_GINT64_FORMAT ".\n", id);
      return 0;
    }
  return fail (2, "unknown rules command \"%s\"; try openworker rules help.", verb);
}

/* ---- inbox -------------------------------------------------------------- */

static char *
approval_resolution (const char *answer, const char *reason)
{
  static const char *const words[] = { "once", "session", "always", "deny", NULL };
  g_autoptr(JsonObject) o = json_object_new ();

  if (!g_strv_contains (words, answer))
    return NULL;
  json_object_set_string_member (o, "decision", answer);
  if (reason != NULL)
    json_object_set_string_member (o, "reason", reason);
  return ow_json_object_to_string (o);
}

static char *
directory_resolution (OwInboxItem *item, const char *answer)
{
  g_autoptr(JsonObject) o = json_object_new ();
  const char *path = ow_json_get_string (item->data, "path");
  gboolean writable = ow_json_get_bool (item->data, "writable", FALSE);

  if (g_str_equal (answer, "no"))
    {
      json_object_set_boolean_member (o, "granted", FALSE);
      json_object_set_string_member (o, "reason", "the user declined the request");
    }
  else if (g_str_equal (answer, "yes") || g_str_equal (answer, "read-only"))
    {
      if (path == NULL)
        return NULL;
      json_object_set_boolean_member (o, "granted", TRUE);
      json_object_set_string_member (o, "path", path);
      json_object_set_boolean_member (o, "writable", g_str_equal (answer, "yes") && writable);
    }
  else if (g_path_is_absolute (answer))
    {
      json_object_set_boolean_member (o, "granted", TRUE);
      json_object_set_string_member (o, "path", answer);
      json_object_set_boolean_member (o, "writable", writable);
    }
  else
    return NULL;
  return ow_json_object_to_string (o);
}

int
ow_inbox_main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(OwContext) ctx = NULL;
  g_autoptr(OwInbox) inbox = NULL;
  const char *verb = argc > 1 ? argv[1] : "list";

  if (g_str_equal (verb, "--help") || g_str_equal (verb, "help"))
    {
      puts ("Usage: openworker inbox list [--all] [--json]\n"
            "       openworker inbox answer ID ANSWER [--reason TEXT]\n\n"
            "ANSWER: for an approval once, session, always or deny; for a question the answer text;\n"
            "for a folder request yes, read-only, no, or another folder's path. The first answer wins.");
      return 0;
    }
  ctx = open_context (&error);
  if (ctx == NULL)
    return fail (1, "%s", error->message);
  inbox = ow_inbox_new (ow_context_get_store (ctx));

  if (g_str_equal (verb, "list"))
    {
      g_autoptr(GPtrArray) items = ow_inbox_list (inbox, !has_flag (argc, argv, "--all"), &error);
      if (items == NULL)
        return fail (1, "%s", error->message);
      if (has_flag (argc, argv, "--json"))
        {
          g_autoptr(JsonArray) arr = json_array_new ();
          g_autoptr(JsonNode) node = NULL;
          for (guint i = 0; i < items->len; i++)
            {
              OwInboxItem *it = g_ptr_array_index (items, i);
              JsonObject *o = json_object_new ();
              json_object_set_string_member (o, "id", it->id);
              json_object_set_string_member (o, "session_id", it->session_id);
              json_object_set_string_member (o, "kind", it->kind);
              json_object_set_string_member (o, "title", it->title);
              if (it->body != NULL)
                json_object_set_string_member (o, "body", it->body);
              json_object_set_object_member (o, "data", json_object_ref (it->data));
              json_object_set_string_member (o, "state", it->state);
              if (it->resolution != NULL)
                json_object_set_string_member (o, "resolution", it->resolution);
              json_object_set_string_member (o, "created_at", it->created_at);
              json_array_add_object_element (arr, o);
            }
          node = json_node_init_array (json_node_alloc (), arr);
          print_json (node);
          return 0;
        }
      if (items->len == 0)
        puts ("Nothing waits for you.");
      for (guint i = 0; i < items->len; i++)
        {
          OwInboxItem *it = g_ptr_array_index (items, i);
          /* What a person reads before answering: shown as it is, with no
           * escape sequence able to redraw it (see ow-terminal.h). */
          g_autofree char *title = ow_terminal_escape (it->title, NULL, NULL);
          g_autofree char *body = it->body != NULL ? ow_terminal_escape (it->body, "      ", NULL) : NULL;
          g_autofree char *resolution = g_str_equal (it->state, "resolved")
                                          ? ow_terminal_escape (it->resolution, NULL, NULL) : NULL;

          printf ("%s  %-9s %s%s%s\n      session %s, %s%s%s\n", it->id, it->kind, title,
                  body != NULL ? " — " : "", body != NULL ? body : "", it->session_id, it->created_at,
                  resolution != NULL ? ", answered: " : "", resolution != NULL ? resolution : "");
        }
      return 0;
    }
  if (g_str_equal (verb, "answer"))
    {
      g_autoptr(OwInboxItem) item = NULL;
      g_autofree char *resolution = NULL;
      if (argc < 4)
        return fail (2, "usage: openworker inbox answer ID ANSWER [--reason TEXT]");
      item = ow_inbox_get (inbox, argv[2], &error);
      if (item == NULL)
        return fail (1, "%s", error->message);
      if (g_str_equal (item->kind, "approval"))
        resolution = approval_resolution (argv[3], flag_value (argc, argv, "--reason"));
      else if (g_str_equal (item->kind, "directory"))
        resolution = directory_resolution (item, argv[3]);
      else
        resolution = g_strdup (argv[3]);
      if (resolution == NULL)
        return fail (2, "\"%s\" is not an answer to this %s; see openworker inbox help.", argv[3], item->kind);
      if (!ow_inbox_resolve (inbox, item->id, resolution, "cli", &error))
        return fail (1, "%s", error->message);
      printf ("Answered %s: %s\n", item->id, argv[3]);
      return 0;
    }
  return fail (2, "unknown inbox command \"%s\"; try openworker inbox help.", verb);
}

/* ---- audit -------------------------------------------------------------- */

int
ow_audit_main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  const char *verb = argc > 1 ? argv[1] : "verify";
  const char *db = flag_value (argc, argv, "--db");
  g_autofree char *default_db = NULL;
  OwAuditVerify v;

  if (g_str_equal (verb, "--help") || g_str_equal (verb, "help"))
    {
      puts ("Usage: openworker audit verify [--db PATH]\n\n"
            "Recomputes the hash of every row of the audit trail (this machine's, or a run record's\n"
            "audit.db) and every link of the chain, and compares its last row with the head record\n"
            "kept beside it (audit.db.head), so rows deleted from the middle or cut from the end are\n"
            "named. Exit 0 when intact, 1 when tampered with.");
      return 0;
    }
  if (!g_str_equal (verb, "verify"))
    return fail (2, "unknown audit command \"%s\"; try openworker audit help.", verb);
  if (db == NULL)
    {
      g_autoptr(OwPaths) paths = ow_paths_new_default ();
      default_db = g_build_filename (paths->state_dir, "audit.db", NULL);
      db = default_db;
    }
  if (!ow_audit_verify (db, &v, &error))
    return fail (1, "%s", error->message);
  if (ow_audit_verify_intact (&v))
    {
      printf ("%s: %" G_GINT64_FORMAT " rows, every hash and link intact%s.\n", db, v.rows,
              v.has_head ? ", and the trail ends where its head record says"
              : v.gaps > 0 ? " (an exported subset: links across other sessions' rows were not checked)"
                           : " (no head record beside it, so rows cut from the end would not show)");
      return 0;
    }
  printf ("%s: TAMPERED — %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " rows do not match their hash, %" G_GINT64_FORMAT
          " links are broken", db, v.bad_hashes, v.rows, v.broken_links);
  if (v.first_bad_id != 0)
    printf ("; the first bad row is #%" G_GINT64_FORMAT, v.first_bad_id);
  printf (".\n");
  if (v.missing > 0)
    {
      if (v.first_missing_id == v.first_missing_end)
        printf ("  Row #%" G_GINT64_FORMAT " is missing", v.first_missing_id);
      else
        printf ("  Rows #%" G_GINT64_FORMAT "–#%" G_GINT64_FORMAT " are missing", v.first_missing_id,
                v.first_missing_end);
      printf (" (%" G_GINT64_FORMAT " rows deleted in all)%s.\n", v.missing,
              v.tail_cut && v.first_missing_end == v.head_last_id ? ", cut from the end" : "");
    }
  if (v.tail_cut)
    printf ("  The head record says the trail reached #%" G_GINT64_FORMAT " (%" G_GINT64_FORMAT
            " rows); %" G_GINT64_FORMAT " of them are left.\n", v.head_last_id, v.head_rows, v.rows_to_head);
  else if (v.head_mismatch)
    printf ("  Row #%" G_GINT64_FORMAT ", where the head record says the trail reached, is not the row it was.\n",
            v.head_last_id);
  if (v.head_unreadable)
    printf ("  The head record beside it (%s.head) was written over.\n", db);
  return 1;
}
