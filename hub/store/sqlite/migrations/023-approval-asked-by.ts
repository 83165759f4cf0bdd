/**
 * Who waits on an approval (issue 32): the agent's hook in its terminal (`hook`: when nobody decides
 * in time, the agent asks there) or a machine runner (`runner`: it asks the hub again), so the page
 * says what happens when the time is up.
 */
export const migration023 = `
ALTER TABLE approvals ADD COLUMN asked_by TEXT NOT NULL DEFAULT 'hook';
`;
