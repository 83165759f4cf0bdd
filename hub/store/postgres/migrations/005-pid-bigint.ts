/**
 * runs.pid as BIGINT: the wire accepts any non-negative safe integer as a runner's pid, and SQLite's
 * INTEGER holds 64 bits; PostgreSQL's INTEGER stops at 2^31 - 1 and refused a larger pid.
 */
export const migration005 = `
ALTER TABLE runs ALTER COLUMN pid TYPE BIGINT;
`;
