/**
 * Nothing to change: SQLite's INTEGER already holds 64 bits. PostgreSQL's migration 005 widens
 * runs.pid to BIGINT; the engines keep the same schema versions.
 */
export const migration005 = `
-- runs.pid holds 64-bit values already
`;
