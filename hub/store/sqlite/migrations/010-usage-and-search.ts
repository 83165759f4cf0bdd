/**
 * Usage and finding sessions (docs/usage.md, docs/http.md):
 * - `turn_usage`: one row per turn and model, the turn's tokens and their cost (null: no price).
 *   `namespace` and `at` (the turn's opening time, the day its usage counts for) are copied from
 *   the session and turn so /api/usage filters by time without a join; `sid` for session totals.
 * - sessions get `title`, `cwd` and `project`, copied from their metadata (`title`, `path`, and
 *   `projectRoot` else `path`) on every metadata write, so the list filters and searches them in SQL;
 * - the list's sort: last activity, per namespace, and per project.
 */
export const migration010 = `
CREATE TABLE turn_usage (
  turn_id TEXT NOT NULL,
  model TEXT NOT NULL,
  sid TEXT NOT NULL,
  namespace TEXT NOT NULL,
  at INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  cost_usd REAL,
  PRIMARY KEY (turn_id, model)
) WITHOUT ROWID;
CREATE INDEX turn_usage_by_session ON turn_usage (sid);
CREATE INDEX turn_usage_by_time ON turn_usage (namespace, at);

ALTER TABLE sessions ADD COLUMN title TEXT;
ALTER TABLE sessions ADD COLUMN cwd TEXT;
ALTER TABLE sessions ADD COLUMN project TEXT;
UPDATE sessions SET
  title = CASE WHEN json_type(metadata, '$.title') = 'text' THEN json_extract(metadata, '$.title') END,
  cwd = CASE WHEN json_type(metadata, '$.path') = 'text' THEN json_extract(metadata, '$.path') END,
  project = CASE
    WHEN json_type(metadata, '$.projectRoot') = 'text' THEN json_extract(metadata, '$.projectRoot')
    WHEN json_type(metadata, '$.path') = 'text' THEN json_extract(metadata, '$.path')
  END;
CREATE INDEX sessions_by_activity ON sessions (namespace, last_activity_at DESC, sid DESC);
CREATE INDEX sessions_by_project ON sessions (namespace, project, last_activity_at DESC, sid DESC);
`;
