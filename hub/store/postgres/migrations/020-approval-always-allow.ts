/** As hub/store/sqlite/migrations/020-approval-always-allow.ts: the allow rules an approval offers, and whether they were taken. */
export const migration020 = `
ALTER TABLE approvals ADD COLUMN always_offer TEXT;
ALTER TABLE approvals ADD COLUMN always INTEGER NOT NULL DEFAULT 0;
`;
