/**
 * PostgreSQL's writer chain (issue 31; postgres/migrations/024): which transaction last wrote each
 * namespace, so a process may keep a namespace's rows between its transactions. SQLite has one
 * writer and never reads it; the table is here so both engines keep one schema.
 */
export const migration024 = `
CREATE TABLE write_claims (
  scope TEXT PRIMARY KEY,
  writer TEXT NOT NULL
);
`;
