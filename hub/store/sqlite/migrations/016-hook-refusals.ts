/**
 * Hook deliveries the hub refused for their token (issue 34: a wrong token must not fail in silence
 * hub-side): per presented token (its hash's first 12 hex digits, never the token) and address,
 * how many and when, written at most once a minute per pair. `namespace`: the token's, when known (403).
 */
export const migration016 = `
CREATE TABLE hook_refusals (
  token_id TEXT NOT NULL,
  address TEXT NOT NULL,
  namespace TEXT,
  status INTEGER NOT NULL,
  message TEXT NOT NULL,
  count INTEGER NOT NULL,
  first_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  PRIMARY KEY (token_id, address)
);
CREATE INDEX hook_refusals_recent ON hook_refusals (last_at);
`;
