/** As hub/store/sqlite/migrations/009-hook-events.ts: activity status, hook sessions, applied hook event ids. */
export const migration009 = `
ALTER TABLE activities ADD COLUMN status TEXT NOT NULL DEFAULT 'done';
ALTER TABLE activities ADD COLUMN ended_at BIGINT;

CREATE TABLE hook_sessions (
  namespace TEXT COLLATE "C" NOT NULL,
  tag TEXT COLLATE "C" NOT NULL,
  turns_ended INTEGER NOT NULL DEFAULT 0,
  last_at BIGINT NOT NULL,
  last_seq BIGINT NOT NULL,
  PRIMARY KEY (namespace, tag)
);

CREATE TABLE hook_events (
  namespace TEXT COLLATE "C" NOT NULL,
  event_id TEXT COLLATE "C" NOT NULL,
  outcome TEXT NOT NULL,
  applied_at BIGINT NOT NULL,
  PRIMARY KEY (namespace, event_id)
);
CREATE INDEX hook_events_by_age ON hook_events (applied_at);
`;
