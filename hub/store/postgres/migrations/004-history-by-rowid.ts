/**
 * As hub/store/sqlite/migrations/004-history-by-rowid.ts: the history's (sid, version) key becomes
 * a unique index of the same name as SQLite's. A PostgreSQL table is a heap either way; only the
 * index changes name, so both schemas keep the same named indexes.
 */
export const migration004 = `
ALTER TABLE metadata_history DROP CONSTRAINT metadata_history_pkey;
CREATE UNIQUE INDEX metadata_history_by_version ON metadata_history (sid, version);
`;
