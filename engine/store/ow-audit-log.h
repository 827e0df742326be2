/* ow-audit-log.h: the audit trail (audit.db).
 *
 * One row per step of every tool call (proposed, approval requested and
 * resolved, started, finished, …) with who approved it and how
 * (provenance), the sandbox enforcement level it ran under and a sanitized
 * copy of its arguments: credentials, message bodies and file contents never
 * reach the log.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _OwAuditLog OwAuditLog;

/* One row. Every field may be NULL except stage. Borrowed. */
typedef struct {
  const char *session_id;
  const char *agent;           /* coworker id */
  const char *workspace;
  const char *connector;
  const char *tool;
  const char *call_id;
  const char *stage;           /* proposed | approval_requested | approval_resolved | auto_allowed | started | finished | … */
  const char *status;          /* allowed | approved | denied | ok | error | interrupted | … */
  const char *approval;        /* once | always_tool | always_command | deny | … */
  const char *provenance;      /* auto-approved | user-approved | denied | cleared by mode | … */
  JsonObject *args;            /* sanitized before storing */
  const char *result_preview;
  const char *reason;
  const char *resource;
  const char *enforcement;     /* "none (direct)", "linux", … */
  const char *risk;            /* read | write_local | exec | external */
  const char *decision;        /* allow | deny | ask | review */
} OwAuditEntry;

/* The result of checking an audit database's hash chain. */
typedef struct {
  gint64   rows;          /* rows read */
  gint64   bad_hashes;    /* rows whose hash does not match their content */
  gint64   broken_links;  /* rows whose prev_hash is not the previous row's hash */
  gint64   gaps;          /* links across missing ids (an exported subset has them) */
  gint64   first_bad_id;  /* the first row that failed, or 0 */
} OwAuditVerify;

OwAuditLog *ow_audit_log_open            (const char *path, GError **error);
void        ow_audit_log_free            (OwAuditLog *log);
gboolean    ow_audit_log_append          (OwAuditLog *log, const OwAuditEntry *entry, GError **error);
/* Writes the rows of @session_id into a fresh audit database at @dest. */
gboolean    ow_audit_log_export_session  (OwAuditLog *log, const char *session_id, const char *dest, GError **error);

/* Recomputes every row's hash and every link of the chain in the audit
 * database at @path. TRUE when the file could be read; the findings are in
 * @out (tampering shows as bad hashes or broken links). */
gboolean    ow_audit_verify              (const char *path, OwAuditVerify *out, GError **error);

/* The sanitized JSON text stored for @args (exposed for tests). */
char       *ow_audit_sanitize_args       (JsonObject *args);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwAuditLog, ow_audit_log_free)

G_END_DECLS
