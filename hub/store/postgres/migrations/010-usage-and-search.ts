/**
 * As hub/store/sqlite/migrations/010-usage-and-search.ts, in PostgreSQL terms: token counts BIGINT,
 * the cost DOUBLE PRECISION, key columns COLLATE "C" (byte order, as SQLite), the metadata copied
 * through jsonb.
 */
export const migration010 = `
CREATE TABLE turn_usage (
  turn_id TEXT COLLATE "C" NOT NULL,
  model TEXT COLLATE "C" NOT NULL,
  sid TEXT COLLATE "C" NOT NULL,
  namespace TEXT COLLATE "C" NOT NULL,
  at BIGINT NOT NULL,
  input_tokens BIGINT NOT NULL,
  output_tokens BIGINT NOT NULL,
  cache_read_tokens BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION,
  PRIMARY KEY (turn_id, model)
);
CREATE INDEX turn_usage_by_session ON turn_usage (sid);
CREATE INDEX turn_usage_by_time ON turn_usage (namespace, at);

ALTER TABLE sessions ADD COLUMN title TEXT;
ALTER TABLE sessions ADD COLUMN cwd TEXT;
ALTER TABLE sessions ADD COLUMN project TEXT COLLATE "C";
UPDATE sessions SET
  title = CASE WHEN jsonb_typeof(metadata::jsonb -> 'title') = 'string' THEN metadata::jsonb ->> 'title' END,
  cwd = CASE WHEN jsonb_typeof(metadata::jsonb -> 'path') = 'string' THEN metadata::jsonb ->> 'path' END,
  project = CASE
    WHEN jsonb_typeof(metadata::jsonb -> 'projectRoot') = 'string' THEN metadata::jsonb ->> 'projectRoot'
    WHEN jsonb_typeof(metadata::jsonb -> 'path') = 'string' THEN metadata::jsonb ->> 'path'
  END;
CREATE INDEX sessions_by_activity ON sessions (namespace, last_activity_at DESC, sid DESC);
CREATE INDEX sessions_by_project ON sessions (namespace, project, last_activity_at DESC, sid DESC);
`;
