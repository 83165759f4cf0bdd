/** As hub/store/sqlite/migrations/002-detached-runs.ts: runs held by no socket (the hook bridge). */
export const migration002 = `
ALTER TABLE runs ADD COLUMN detached INTEGER NOT NULL DEFAULT 0;
`;
