-- Governance state: standing rules (the ladder's third rung) and the inbox
-- (approvals and questions parked until a person answers).
CREATE TABLE standing_rules (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  rule        TEXT NOT NULL,                 -- "tool" or "tool:pattern"
  decision    TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  created_by  TEXT NOT NULL,                 -- how a person made it: "terminal", "desktop", "api", "cli", …
  session_id  TEXT,                          -- the session it was granted in, if any
  reason      TEXT,
  expires_at  TEXT,                          -- ISO 8601 UTC, or NULL for no expiry
  revoked_at  TEXT
);

CREATE TABLE inbox_items (
  id          TEXT PRIMARY KEY,
  session_id  TEXT NOT NULL,
  call_id     TEXT NOT NULL,
  kind        TEXT NOT NULL,                 -- approval | question | directory
  title       TEXT NOT NULL,
  body        TEXT,
  data        TEXT NOT NULL DEFAULT '{}',
  state       TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'resolved')),
  resolution  TEXT,
  resolved_by TEXT,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  resolved_at TEXT,
  UNIQUE (session_id, call_id)
);

CREATE INDEX inbox_items_pending ON inbox_items (state, created_at);
