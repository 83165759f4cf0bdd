/** As hub/store/sqlite/migrations/018-session-first-prompt.ts: the session's first prompt on its row. */
export const migration018 = `
ALTER TABLE sessions ADD COLUMN first_prompt TEXT;
ALTER TABLE sessions ADD COLUMN first_prompt_at BIGINT;
UPDATE sessions SET first_prompt = f.prompt, first_prompt_at = f.opened_at
FROM (
  SELECT DISTINCT ON (sid) sid, substr(prompt, 1, 800) AS prompt, opened_at
  FROM turns WHERE prompt IS NOT NULL ORDER BY sid, opened_at, created_order
) f
WHERE sessions.sid = f.sid;
`;
