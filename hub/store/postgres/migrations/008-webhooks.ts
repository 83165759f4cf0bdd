/** As hub/store/sqlite/migrations/008-webhooks.ts: webhooks, each a durable cursor over its namespace's events. */
export const migration008 = `
CREATE TABLE webhooks (
  id TEXT COLLATE "C" PRIMARY KEY,
  namespace TEXT COLLATE "C" NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  format TEXT NOT NULL,
  secret TEXT NOT NULL,
  cursor_seq BIGINT NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  failing_since BIGINT,
  next_attempt_at BIGINT NOT NULL DEFAULT 0,
  paused_at BIGINT,
  last_error TEXT,
  delivered BIGINT NOT NULL DEFAULT 0,
  last_delivered_at BIGINT,
  lost_events BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);
CREATE INDEX webhooks_by_namespace ON webhooks (namespace, created_at);
`;
