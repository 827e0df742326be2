-- The audit trail becomes tamper-evident: each row carries the hash of the
-- row before it and its own, and rows can be neither changed nor deleted.
ALTER TABLE audit_events ADD COLUMN risk TEXT;
ALTER TABLE audit_events ADD COLUMN decision TEXT;
ALTER TABLE audit_events ADD COLUMN prev_hash TEXT;
ALTER TABLE audit_events ADD COLUMN hash TEXT;

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE (ABORT, 'the audit trail is append-only');
END;

CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
  SELECT RAISE (ABORT, 'the audit trail is append-only');
END;
