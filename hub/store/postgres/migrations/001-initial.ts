/**
 * The first schema, as hub/store/sqlite/migrations/001-initial.ts, in PostgreSQL terms:
 * - times, seq and versions are BIGINT (milliseconds overflow INTEGER), parsed back to JS numbers;
 * - flags stay INTEGER 0/1 (not BOOLEAN) so store modules map rows the same on both engines;
 * - key and sort columns are COLLATE "C": byte order, as SQLite compares TEXT, so `ORDER BY sid`
 *   and cursor comparisons agree between engines whatever the database's locale;
 * - turns get `created_order` (identity), the tie-break SQLite's queries take from `rowid`.
 */
export const migration001 = `
CREATE TABLE namespaces (
  name TEXT COLLATE "C" PRIMARY KEY,
  last_seq BIGINT NOT NULL DEFAULT 0,
  -- every event with seq <= pruned_through is gone; a replay from below it is a gap
  pruned_through BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE sessions (
  sid TEXT COLLATE "C" PRIMARY KEY,
  namespace TEXT COLLATE "C" NOT NULL,
  tag TEXT COLLATE "C" NOT NULL,
  flavor TEXT NOT NULL,
  parent_sid TEXT COLLATE "C",
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  metadata TEXT NOT NULL,
  metadata_version BIGINT NOT NULL,
  agent_state TEXT,
  agent_state_version BIGINT NOT NULL,
  lifecycle_state TEXT NOT NULL,
  lifecycle_since BIGINT NOT NULL,
  lifecycle_reason TEXT,
  lifecycle_by TEXT,
  last_run_id TEXT COLLATE "C",
  last_run_status TEXT,
  last_run_ended_at BIGINT,
  last_run_reason TEXT,
  current_turn_id TEXT COLLATE "C",
  -- lifecycle events and writes; heartbeats do not count
  last_activity_at BIGINT NOT NULL,
  active INTEGER NOT NULL DEFAULT 0,
  active_at BIGINT,
  alive_at BIGINT,
  thinking INTEGER NOT NULL DEFAULT 0,
  UNIQUE (namespace, tag)
);
CREATE INDEX sessions_by_update ON sessions (namespace, updated_at DESC, sid DESC);
CREATE INDEX sessions_running_by_activity ON sessions (last_activity_at) WHERE lifecycle_state = 'running';
CREATE INDEX sessions_active_by_alive ON sessions (alive_at) WHERE active = 1;

-- When each resume token got its current value, and whether the agent rejected that value.
CREATE TABLE resume_tokens (
  sid TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  value TEXT NOT NULL,
  since BIGINT NOT NULL,
  rejected INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sid, key)
);

CREATE TABLE metadata_history (
  sid TEXT COLLATE "C" NOT NULL,
  version BIGINT NOT NULL,
  at BIGINT NOT NULL,
  by TEXT NOT NULL,
  carried TEXT NOT NULL,
  cleared TEXT NOT NULL,
  dropped TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (sid, version)
);

-- requestId idempotency: what an applied write produced, so a retry answers the same.
CREATE TABLE applied_requests (
  sid TEXT COLLATE "C" NOT NULL,
  field TEXT COLLATE "C" NOT NULL,
  request_id TEXT COLLATE "C" NOT NULL,
  version BIGINT NOT NULL,
  value TEXT,
  at BIGINT NOT NULL,
  PRIMARY KEY (sid, field, request_id)
);
CREATE INDEX applied_requests_by_age ON applied_requests (at);

CREATE TABLE runs (
  run_id TEXT COLLATE "C" PRIMARY KEY,
  sid TEXT COLLATE "C" NOT NULL,
  started_at BIGINT NOT NULL,
  status TEXT NOT NULL,
  ended_at BIGINT,
  reason TEXT,
  pid INTEGER,
  -- set while no runner socket is bound to the run; the grace counts from here
  disconnected_at BIGINT,
  resume_retried INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_session ON runs (sid, started_at DESC);
CREATE INDEX runs_live_disconnected ON runs (disconnected_at) WHERE status = 'running';

CREATE TABLE turns (
  turn_id TEXT COLLATE "C" PRIMARY KEY,
  sid TEXT COLLATE "C" NOT NULL,
  kind TEXT NOT NULL,
  prompt TEXT,
  prompt_truncated INTEGER NOT NULL DEFAULT 0,
  prompt_id TEXT COLLATE "C",
  status TEXT NOT NULL,
  opened_at BIGINT NOT NULL,
  closed_at BIGINT,
  response TEXT,
  activity_count INTEGER NOT NULL DEFAULT 0,
  -- insertion order: the tie-break between turns opened in the same millisecond (SQLite: rowid)
  created_order BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX turns_by_session ON turns (sid, opened_at DESC);
CREATE INDEX turns_open_by_age ON turns (opened_at) WHERE status = 'open';
CREATE UNIQUE INDEX turns_by_prompt_id ON turns (sid, prompt_id) WHERE prompt_id IS NOT NULL;

CREATE TABLE activities (
  activity_id TEXT COLLATE "C" PRIMARY KEY,
  turn_id TEXT COLLATE "C" NOT NULL,
  sid TEXT COLLATE "C" NOT NULL,
  tool_use_id TEXT COLLATE "C",
  tool TEXT NOT NULL,
  input TEXT,
  output TEXT,
  at BIGINT NOT NULL,
  truncated INTEGER NOT NULL DEFAULT 0,
  ord INTEGER NOT NULL
);
CREATE UNIQUE INDEX activities_by_tool_use ON activities (sid, tool_use_id) WHERE tool_use_id IS NOT NULL;
CREATE INDEX activities_by_turn ON activities (turn_id, ord);

CREATE TABLE events (
  namespace TEXT COLLATE "C" NOT NULL,
  seq BIGINT NOT NULL,
  id TEXT NOT NULL,
  sid TEXT COLLATE "C" NOT NULL,
  created_at BIGINT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (namespace, seq)
);
CREATE INDEX events_by_age ON events (namespace, created_at);

CREATE TABLE tokens (
  token_hash TEXT COLLATE "C" PRIMARY KEY,
  role TEXT NOT NULL,
  namespace TEXT COLLATE "C" NOT NULL,
  created_at BIGINT NOT NULL,
  source TEXT NOT NULL
);
`;
