/** The same as SQLite's migration 006: a public id, expiry, revocation and last use per stored token. */
export const migration006 = `
ALTER TABLE tokens ADD COLUMN id TEXT COLLATE "C";
ALTER TABLE tokens ADD COLUMN expires_at BIGINT;
ALTER TABLE tokens ADD COLUMN revoked_at BIGINT;
ALTER TABLE tokens ADD COLUMN last_used_at BIGINT;
UPDATE tokens SET id = substr(token_hash, 1, 12);
CREATE UNIQUE INDEX tokens_by_id ON tokens (id);
`;
