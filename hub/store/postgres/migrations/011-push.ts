/** As hub/store/sqlite/migrations/011-push.ts: push subscriptions per token, the VAPID key pair, the sender's cursors. */
export const migration011 = `
CREATE TABLE push_subscriptions (
  endpoint TEXT COLLATE "C" PRIMARY KEY,
  namespace TEXT COLLATE "C" NOT NULL,
  token_id TEXT COLLATE "C" NOT NULL,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX push_subscriptions_by_namespace ON push_subscriptions (namespace);
CREATE TABLE push_vapid (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  public_key TEXT NOT NULL,
  private_key TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE push_cursors (
  namespace TEXT COLLATE "C" PRIMARY KEY,
  seq BIGINT NOT NULL
);
`;
