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
  gboolean has_head;      /* a head record (audit.db.head) lies beside it: a whole trail */
  gboolean head_unreadable; /* …but it is not one (written over) */
  gint64   head_last_id;  /* the last row the head record names */
  gint64   head_rows;     /* how many rows it counts up to head_last_id */
  gint64   rows_to_head;  /* how many of those are there */
  gboolean head_mismatch; /* the row it names is not there as it was */
  gboolean tail_cut;      /* rows after the table's last were cut off (up to head_last_id) */
  gint64   missing;       /* rows known to be gone: deleted in the middle or cut from the end */
  gint64   first_missing_id;  /* the first run of them: from this id … */
  gint64   first_missing_end; /* … to this one (0 when none are missing) */
} OwAuditVerify;

OwAuditLog *ow_audit_log_open            (const char *path, GError **error);
void        ow_audit_log_free            (OwAuditLog *log);
gboolean    ow_audit_log_append          (OwAuditLog *log, const OwAuditEntry *entry, GError **error);
/* Writes the rows of @session_id into a fresh audit database at @dest. */
gboolean    ow_audit_log_export_session  (OwAuditLog *log, const char *session_id, const char *dest, GError **error);

/* Recomputes every row's hash and every link of the chain in the audit
 * database at @path, and compares its end with the head record beside it
 * (@path.head) when there is one. TRUE when the file could be read; the
 * findings are in @out (see ow_audit_verify_intact). */
gboolean    ow_audit_verify              (const char *path, OwAuditVerify *out, GError **error);
/* TRUE when the findings show nothing wrong: every hash and link, no
 * missing row, and the head record (when there is one) matches. */
gboolean    ow_audit_verify_intact       (const OwAuditVerify *v);

/* The sanitized JSON text stored for @args (exposed for tests). */
char       *ow_audit_sanitize_args       (JsonObject *args);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OwAuditLog, ow_audit_log_free)

G_END_DECLS
