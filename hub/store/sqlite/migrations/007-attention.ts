/**
 * The attention loop (docs/attention.md): each session's attention (null kind: none), and tool
 * approvals with their decisions (the deciding token's public id, never the token).
 */
export const migration007 = `
ALTER TABLE sessions ADD COLUMN attention_kind TEXT;
ALTER TABLE sessions ADD COLUMN attention_since INTEGER;
ALTER TABLE sessions ADD COLUMN attention_message TEXT;
ALTER TABLE sessions ADD COLUMN attention_tool TEXT;

CREATE TABLE approvals (
  approval_id TEXT PRIMARY KEY,
  sid TEXT NOT NULL,
  namespace TEXT NOT NULL,
  status TEXT NOT NULL,
  tool TEXT NOT NULL,
  input TEXT,
  input_truncated INTEGER NOT NULL DEFAULT 0,
  cwd TEXT,
  tool_use_id TEXT,
  created_at INTEGER NOT NULL,
  decided_at INTEGER,
  decided_by TEXT,
  message TEXT
);
CREATE INDEX approvals_by_session ON approvals (sid, created_at DESC);
CREATE INDEX approvals_pending ON approvals (sid) WHERE status = 'pending';
`;
