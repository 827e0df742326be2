-- The state database (openworker.db): sessions, their messages and their
-- durable event logs. Applied once; PRAGMA user_version records it.
CREATE TABLE sessions (
  session_id   TEXT PRIMARY KEY,
  workspace    TEXT,
  model        TEXT,
  mode         TEXT NOT NULL DEFAULT 'ask',
  coworker     TEXT NOT NULL DEFAULT 'cowork',
  title        TEXT,
  auto_title   TEXT,
  renamed      INTEGER NOT NULL DEFAULT 0,
  pinned       INTEGER NOT NULL DEFAULT 0,
  archived     INTEGER NOT NULL DEFAULT 0,
  origin       TEXT,
  origin_label TEXT,
  roots        TEXT NOT NULL DEFAULT '[]',
  grants       TEXT NOT NULL DEFAULT '{}',
  compaction   TEXT,
  n_msgs       INTEGER NOT NULL DEFAULT 0,
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE messages (
  session_id TEXT NOT NULL,
  idx        INTEGER NOT NULL,
  body       TEXT NOT NULL,
  PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;

CREATE TABLE events (
  session_id TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  ts         INTEGER NOT NULL,
  type       TEXT NOT NULL,
  data       TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

CREATE TABLE workspaces (
  path      TEXT PRIMARY KEY,
  last_used TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
