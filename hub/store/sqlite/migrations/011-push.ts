/**
 * Web Push (docs/attention.md, "Browser push"): browser subscriptions, each tied to the public id of
 * the token that made it and its namespace; the hub's VAPID key pair (one row, so every process of
 * a cluster signs with the same key); and the sending process's cursor over each namespace's events.
 */
export const migration011 = `
CREATE TABLE push_subscriptions (
  endpoint TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  token_id TEXT NOT NULL,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX push_subscriptions_by_namespace ON push_subscriptions (namespace);
CREATE TABLE push_vapid (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  public_key TEXT NOT NULL,
  private_key TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE push_cursors (
  namespace TEXT PRIMARY KEY,
  seq INTEGER NOT NULL
) WITHOUT ROWID;
`;
