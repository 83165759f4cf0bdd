/**
 * The hook route (POST /api/hooks, docs/hooks.md):
 * - activities get a status (`running` from a PreToolUse until its PostToolUse) and an end time;
 *   activities stored before are finished ones (`done`, end unknown);
 * - hook_sessions: per agent session (namespace, tag) what the bridge used to keep on the user's
 *   machine: the turn counter behind derived prompt ids, and the time and seq of the last event
 *   applied (events are clamped to never go before it);
 * - hook_events: the ids of applied hook events, so a re-sent event changes nothing.
 */
export const migration009 = `
ALTER TABLE activities ADD COLUMN status TEXT NOT NULL DEFAULT 'done';
ALTER TABLE activities ADD COLUMN ended_at INTEGER;

CREATE TABLE hook_sessions (
  namespace TEXT NOT NULL,
  tag TEXT NOT NULL,
  turns_ended INTEGER NOT NULL DEFAULT 0,
  last_at INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  PRIMARY KEY (namespace, tag)
);

CREATE TABLE hook_events (
  namespace TEXT NOT NULL,
  event_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  applied_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, event_id)
);
CREATE INDEX hook_events_by_age ON hook_events (applied_at);
`;
