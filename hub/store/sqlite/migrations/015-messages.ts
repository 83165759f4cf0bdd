/**
 * Messages from people to an agent (docs/messages.md): a session's durable queue, and the answers a
 * person gave to an agent's question (an approval of AskUserQuestion). `by_token` is the
 * sending token's public id (never the token), `by_label` its label where it has one.
 */
export const migration015 = `
CREATE TABLE messages (
  message_id TEXT PRIMARY KEY,
  sid TEXT NOT NULL,
  namespace TEXT NOT NULL,
  text TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER,
  ended_at INTEGER,
  by_token TEXT NOT NULL,
  by_label TEXT,
  via TEXT
);
CREATE INDEX messages_by_session ON messages (sid, created_at);
CREATE INDEX messages_queued ON messages (created_at) WHERE state = 'queued';

-- an approval for an agent's question (AskUserQuestion): the person's answers, question text -> option label(s)
ALTER TABLE approvals ADD COLUMN answers TEXT;
`;
