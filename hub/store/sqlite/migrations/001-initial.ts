/** The first schema: sessions with their versioned documents, history, runs, turns, the event log and tokens. */
export const migration001 = `
CREATE TABLE namespaces (
  name TEXT PRIMARY KEY,
  last_seq INTEGER NOT NULL DEFAULT 0,
  -- every event with seq <= pruned_through is gone; a replay from below it is a gap
  pruned_through INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE sessions (
  sid TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  tag TEXT NOT NULL,
  flavor TEXT NOT NULL,
  parent_sid TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  metadata TEXT NOT NULL,
  metadata_version INTEGER NOT NULL,
  agent_state TEXT,
  agent_state_version INTEGER NOT NULL,
  lifecycle_state TEXT NOT NULL,
  lifecycle_since INTEGER NOT NULL,
  lifecycle_reason TEXT,
  lifecycle_by TEXT,
  last_run_id TEXT,
  last_run_status TEXT,
  last_run_ended_at INTEGER,
  last_run_reason TEXT,
  current_turn_id TEXT,
  -- lifecycle events and writes; heartbeats do not count
  last_activity_at INTEGER NOT NULL,
  active INTEGER NOT NULL DEFAULT 0,
  active_at INTEGER,
  alive_at INTEGER,
  thinking INTEGER NOT NULL DEFAULT 0,
  UNIQUE (namespace, tag)
);
CREATE INDEX sessions_by_update ON sessions (namespace, updated_at DESC, sid DESC);
CREATE INDEX sessions_running_by_activity ON sessions (last_activity_at) WHERE lifecycle_state = 'running';
CREATE INDEX sessions_active_by_alive ON sessions (alive_at) WHERE active = 1;

-- When each resume token got its current value, and whether the agent rejected that value.
CREATE TABLE resume_tokens (
  sid TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  since INTEGER NOT NULL,
  rejected INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sid, key)
) WITHOUT ROWID;

CREATE TABLE metadata_history (
  sid TEXT NOT NULL,
  version INTEGER NOT NULL,
  at INTEGER NOT NULL,
  by TEXT NOT NULL,
  carried TEXT NOT NULL,
  cleared TEXT NOT NULL,
  dropped TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (sid, version)
) WITHOUT ROWID;

-- requestId idempotency: what an applied write produced, so a retry answers the same.
CREATE TABLE applied_requests (
  sid TEXT NOT NULL,
  field TEXT NOT NULL,
  request_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  value TEXT,
  at INTEGER NOT NULL,
  PRIMARY KEY (sid, field, request_id)
) WITHOUT ROWID;
CREATE INDEX applied_requests_by_age ON applied_requests (at);

CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  sid TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  ended_at INTEGER,
  reason TEXT,
  pid INTEGER,
  -- set while no runner socket is bound to the run; the grace counts from here
  disconnected_at INTEGER,
  resume_retried INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_session ON runs (sid, started_at DESC);
CREATE INDEX runs_live_disconnected ON runs (disconnected_at) WHERE status = 'running';

CREATE TABLE turns (
  turn_id TEXT PRIMARY KEY,
  sid TEXT NOT NULL,
  kind TEXT NOT NULL,
  prompt TEXT,
  prompt_truncated INTEGER NOT NULL DEFAULT 0,
  prompt_id TEXT,
  status TEXT NOT NULL,
  opened_at INTEGER NOT NULL,
  closed_at INTEGER,
  response TEXT,
  activity_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX turns_by_session ON turns (sid, opened_at DESC);
CREATE INDEX turns_open_by_age ON turns (opened_at) WHERE status = 'open';
CREATE UNIQUE INDEX turns_by_prompt_id ON turns (sid, prompt_id) WHERE prompt_id IS NOT NULL;

CREATE TABLE activities (
  activity_id TEXT PRIMARY KEY,
  turn_id TEXT NOT NULL,
  sid TEXT NOT NULL,
  tool_use_id TEXT,
  tool TEXT NOT NULL,
  input TEXT,
  output TEXT,
  at INTEGER NOT NULL,
  truncated INTEGER NOT NULL DEFAULT 0,
  ord INTEGER NOT NULL
);
CREATE UNIQUE INDEX activities_by_tool_use ON activities (sid, tool_use_id) WHERE tool_use_id IS NOT NULL;
CREATE INDEX activities_by_turn ON activities (turn_id, ord);

CREATE TABLE events (
  namespace TEXT NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  sid TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (namespace, seq)
) WITHOUT ROWID;
CREATE INDEX events_by_age ON events (namespace, created_at);

CREATE TABLE tokens (
  token_hash TEXT PRIMARY KEY,
  role TEXT NOT NULL,
  namespace TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  source TEXT NOT NULL
) WITHOUT ROWID;
`;
