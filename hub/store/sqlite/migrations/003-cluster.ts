/**
 * Hub processes and which one holds each run's runner socket. A run whose process stopped
 * heartbeating starts its grace like a run whose runner disconnected (docs/scale-out.md).
 */
export const migration003 = `
CREATE TABLE hubs (
  hub_id TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
) WITHOUT ROWID;
ALTER TABLE runs ADD COLUMN hub_id TEXT;
CREATE INDEX runs_live_by_hub ON runs (hub_id) WHERE status = 'running' AND disconnected_at IS NULL;
`;
