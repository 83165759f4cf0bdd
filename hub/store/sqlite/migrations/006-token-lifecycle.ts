/**
 * Stored tokens get a public id (the first 12 hex digits of their hash, so existing rows get one
 * too), an expiry, a revocation time and when a hub last saw them used.
 */
export const migration006 = `
ALTER TABLE tokens ADD COLUMN id TEXT;
ALTER TABLE tokens ADD COLUMN expires_at INTEGER;
ALTER TABLE tokens ADD COLUMN revoked_at INTEGER;
ALTER TABLE tokens ADD COLUMN last_used_at INTEGER;
UPDATE tokens SET id = substr(token_hash, 1, 12);
CREATE UNIQUE INDEX tokens_by_id ON tokens (id);
`;
