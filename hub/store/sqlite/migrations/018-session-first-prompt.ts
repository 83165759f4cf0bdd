/**
 * The session's first prompt kept on its row (issue 31): its display title falls back to it when
 * the metadata has none, and a write then needs no read of the session's turns for its
 * `update-session` title. `first_prompt` holds the start of it (as the title's read cut it: 800
 * characters), `first_prompt_at` the opening of its turn (an earlier one replaces it).
 */
export const migration018 = `
ALTER TABLE sessions ADD COLUMN first_prompt TEXT;
ALTER TABLE sessions ADD COLUMN first_prompt_at INTEGER;
UPDATE sessions SET
  first_prompt = (SELECT substr(prompt, 1, 800) FROM turns WHERE turns.sid = sessions.sid AND prompt IS NOT NULL ORDER BY opened_at, rowid LIMIT 1),
  first_prompt_at = (SELECT opened_at FROM turns WHERE turns.sid = sessions.sid AND prompt IS NOT NULL ORDER BY opened_at, rowid LIMIT 1);
`;
