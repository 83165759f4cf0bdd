/**
 * Webhooks: each one a durable cursor over its namespace's event log (docs/attention.md). The secret
 * is kept as is: an HMAC is signed with the key itself, so a hash would not do.
 */
export const migration008 = `
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  format TEXT NOT NULL,
  secret TEXT NOT NULL,
  cursor_seq INTEGER NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  failing_since INTEGER,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  paused_at INTEGER,
  last_error TEXT,
  delivered INTEGER NOT NULL DEFAULT 0,
  last_delivered_at INTEGER,
  lost_events INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX webhooks_by_namespace ON webhooks (namespace, created_at);
`;
