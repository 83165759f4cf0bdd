/** As hub/store/sqlite/migrations/003-cluster.ts: hub processes and which one holds each run's runner socket. */
export const migration003 = `
CREATE TABLE hubs (
  hub_id TEXT COLLATE "C" PRIMARY KEY,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL
);
ALTER TABLE runs ADD COLUMN hub_id TEXT COLLATE "C";
CREATE INDEX runs_live_by_hub ON runs (hub_id) WHERE status = 'running' AND disconnected_at IS NULL;
`;
