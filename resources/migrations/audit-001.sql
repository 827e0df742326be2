-- The audit log (audit.db): one row per step of every tool call, with its
-- approval provenance and the enforcement level it ran under.
CREATE TABLE audit_events (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  session_id     TEXT,
  agent          TEXT,
  workspace      TEXT,
  connector      TEXT,
  tool           TEXT,
  call_id        TEXT,
  stage          TEXT NOT NULL,
  status         TEXT,
  approval       TEXT,
  provenance     TEXT,
  args           TEXT,
  result_preview TEXT,
  reason         TEXT,
  resource       TEXT,
  enforcement    TEXT
);

CREATE INDEX audit_events_session ON audit_events (session_id, id);
