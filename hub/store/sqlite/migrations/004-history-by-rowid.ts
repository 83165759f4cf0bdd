/**
 * metadata_history becomes a rowid table with a unique (sid, version) index (it was WITHOUT ROWID,
 * keyed by (sid, version)). The rows are large (a whole metadata document each) and every write
 * adds one to its own session's part of the key order: as a WITHOUT ROWID table that meant an
 * insert in the middle of a B-tree of ~1 KiB cells, three dirty pages per write to rebalance (of
 * ~4.5 per write in all). Rows now append at the end of the table and only the small index entry
 * goes in the session's part: ~1.7 dirty pages per write for the history, measured
 * (docs/benchmarks.md). Same lookups: by session in version order, and one version.
 */
export const migration004 = `
CREATE TABLE metadata_history_v4 (
  sid TEXT NOT NULL,
  version INTEGER NOT NULL,
  at INTEGER NOT NULL,
  by TEXT NOT NULL,
  carried TEXT NOT NULL,
  cleared TEXT NOT NULL,
  dropped TEXT NOT NULL,
  metadata TEXT NOT NULL
);
INSERT INTO metadata_history_v4 (sid, version, at, by, carried, cleared, dropped, metadata)
  SELECT sid, version, at, by, carried, cleared, dropped, metadata FROM metadata_history ORDER BY at, sid, version;
DROP TABLE metadata_history;
ALTER TABLE metadata_history_v4 RENAME TO metadata_history;
CREATE UNIQUE INDEX metadata_history_by_version ON metadata_history (sid, version);
`;
