/**
 * Who may take a session's messages, and what an answer holds (docs/messages.md, issue 33): each
 * session's taker key (its sha256: the secret stays with the agent's own hook processes or runner),
 * registered by the first process of the session that presents one; which process took a message;
 * a message's size in bytes, so a queue's bytes are summed without re-encoding its texts.
 */
export const migration018 = `
CREATE TABLE message_takers (
  namespace TEXT NOT NULL,
  sid TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  process TEXT NOT NULL,
  registered_at BIGINT NOT NULL,
  PRIMARY KEY (namespace, sid)
);
ALTER TABLE messages ADD COLUMN taken_by TEXT;
ALTER TABLE messages ADD COLUMN text_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE messages SET text_bytes = octet_length(text);
`;
