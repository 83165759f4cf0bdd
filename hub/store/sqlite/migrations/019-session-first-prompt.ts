/**
 * The session's first and latest prompts kept on its row (issue 31): its display title falls back
 * to the first when the metadata has none, and the list shows the latest, so a write needs no read
 * of the session's turns for its `update-session`. Each holds the start of the prompt (800
 * characters, as the reads cut it) and the opening of its turn (`_at`: an earlier first, a later
 * latest replaces it).
 */
export const migration019 = `
ALTER TABLE sessions ADD COLUMN first_prompt TEXT;
ALTER TABLE sessions ADD COLUMN first_prompt_at INTEGER;
ALTER TABLE sessions ADD COLUMN last_prompt TEXT;
ALTER TABLE sessions ADD COLUMN last_prompt_at INTEGER;
UPDATE sessions SET
  first_prompt = (SELECT substr(prompt, 1, 800) FROM turns WHERE turns.sid = sessions.sid AND prompt IS NOT NULL ORDER BY opened_at, rowid LIMIT 1),
  first_prompt_at = (SELECT opened_at FROM turns WHERE turns.sid = sessions.sid AND prompt IS NOT NULL ORDER BY opened_at, rowid LIMIT 1),
  last_prompt = (SELECT substr(prompt, 1, 800) FROM turns WHERE turns.sid = sessions.sid AND prompt IS NOT NULL ORDER BY opened_at DESC, rowid DESC LIMIT 1),
  last_prompt_at = (SELECT opened_at FROM turns WHERE turns.sid = sessions.sid AND prompt IS NOT NULL ORDER BY opened_at DESC, rowid DESC LIMIT 1);
`;
