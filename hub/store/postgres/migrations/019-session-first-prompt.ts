/** As hub/store/sqlite/migrations/018-session-first-prompt.ts: the session's first and latest prompts on its row. */
export const migration019 = `
ALTER TABLE sessions ADD COLUMN first_prompt TEXT;
ALTER TABLE sessions ADD COLUMN first_prompt_at BIGINT;
ALTER TABLE sessions ADD COLUMN last_prompt TEXT;
ALTER TABLE sessions ADD COLUMN last_prompt_at BIGINT;
UPDATE sessions SET first_prompt = f.prompt, first_prompt_at = f.opened_at
FROM (
  SELECT DISTINCT ON (sid) sid, substr(prompt, 1, 800) AS prompt, opened_at
  FROM turns WHERE prompt IS NOT NULL ORDER BY sid, opened_at, created_order
) f
WHERE sessions.sid = f.sid;
UPDATE sessions SET last_prompt = l.prompt, last_prompt_at = l.opened_at
FROM (
  SELECT DISTINCT ON (sid) sid, substr(prompt, 1, 800) AS prompt, opened_at
  FROM turns WHERE prompt IS NOT NULL ORDER BY sid, opened_at DESC, created_order DESC
) l
WHERE sessions.sid = l.sid;
`;
