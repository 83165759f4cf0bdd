/**
 * Machines (docs/machines.md): one row per machine runner that registered, keyed by its own id and
 * owned by the token that registered it first (`token_id`, a public id, never the token); and
 * `machine_actions`, who asked a machine to do what (start, continue, dirs, interrupt, stop), when,
 * and how it went. Whether a machine is online is not stored: it is whether its socket is connected.
 */
export const migration019 = `
CREATE TABLE machines (
  machine_id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  token_id TEXT NOT NULL,
  token_label TEXT,
  name TEXT NOT NULL,
  host TEXT NOT NULL,
  platform TEXT NOT NULL,
  roots TEXT NOT NULL,
  agents TEXT NOT NULL,
  allow_bypass INTEGER NOT NULL,
  registered_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX machines_by_namespace ON machines (namespace, name);

CREATE TABLE machine_actions (
  action_id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  machine_id TEXT,
  sid TEXT,
  action TEXT NOT NULL,
  path TEXT,
  by_token TEXT NOT NULL,
  by_label TEXT,
  at INTEGER NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX machine_actions_by_machine ON machine_actions (machine_id, at);
`;
