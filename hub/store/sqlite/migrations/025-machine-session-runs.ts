/**
 * What runs on a machine (issue 45, docs/machines.md): `machine_session_origins`, per session, the
 * machine, directory and permission mode a person last started or continued it with, written by the
 * hub when the runner acknowledged the spawn (a Continue goes by this, never by metadata that
 * runners and hooks write); and `session_run_claims`, the one spawn in flight per session, inserted
 * only when none live exists (expired ones are taken over), so concurrent Continues start one agent.
 */
export const migration025 = `
CREATE TABLE machine_session_origins (
  namespace TEXT NOT NULL,
  sid TEXT NOT NULL,
  machine_id TEXT NOT NULL,
  path TEXT NOT NULL,
  permission_mode TEXT,
  by_token TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (namespace, sid)
);

CREATE TABLE session_run_claims (
  namespace TEXT NOT NULL,
  sid TEXT NOT NULL,
  request_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, sid)
);
`;
