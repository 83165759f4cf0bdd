/** As hub/store/sqlite/migrations/023-approval-asked-by.ts: who waits on an approval, `hook` or `runner`. */
export const migration023 = `
ALTER TABLE approvals ADD COLUMN asked_by TEXT NOT NULL DEFAULT 'hook';
`;
