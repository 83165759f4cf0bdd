/**
 * Machines and who asked them what (docs/machines.md). A machine is keyed by its own id across
 * namespaces; every read is scoped to one namespace.
 */
import type { MachineAgent } from '../../shared/protocol/machines.js';
import type { Sql } from './sql.js';

export interface StoredMachine {
  machineId: string;
  namespace: string;
  tokenId: string;
  tokenLabel: string | null;
  name: string;
  host: string;
  platform: string;
  roots: string[];
  agents: MachineAgent[];
  allowBypass: boolean;
  registeredAt: number;
  lastSeenAt: number;
}

interface MachineRow {
  machine_id: string;
  namespace: string;
  token_id: string;
  token_label: string | null;
  name: string;
  host: string;
  platform: string;
  roots: string;
  agents: string;
  allow_bypass: number;
  registered_at: number | string;
  last_seen_at: number | string;
}

const fromRow = (row: MachineRow): StoredMachine => ({
  machineId: row.machine_id,
  namespace: row.namespace,
  tokenId: row.token_id,
  tokenLabel: row.token_label,
  name: row.name,
  host: row.host,
  platform: row.platform,
  roots: JSON.parse(row.roots) as string[],
  agents: JSON.parse(row.agents) as MachineAgent[],
  allowBypass: Number(row.allow_bypass) === 1,
  registeredAt: Number(row.registered_at),
  lastSeenAt: Number(row.last_seen_at),
});

/**
 * The machine's holder, and whether that token still holds: a revoked or expired stored token lets
 * another take the machine over (a laptop given a new token keeps its id). Tokens given by
 * SESSION_HUB_TOKENS have no row and always hold.
 */
const SELECT_HOLDER = `
  SELECT m.namespace, m.token_id AS "tokenId",
    CASE WHEN t.id IS NULL OR (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > @now)) THEN 1 ELSE 0 END AS "holds"
  FROM machines m LEFT JOIN tokens t ON t.id = m.token_id
  WHERE m.machine_id = @machineId`;
const UPSERT = `
  INSERT INTO machines (machine_id, namespace, token_id, token_label, name, host, platform, roots, agents, allow_bypass, registered_at, last_seen_at)
  VALUES (@machineId, @namespace, @tokenId, @tokenLabel, @name, @host, @platform, @roots, @agents, @allowBypass, @now, @now)
  ON CONFLICT (machine_id) DO UPDATE SET namespace = @namespace, token_id = @tokenId, token_label = @tokenLabel, name = @name, host = @host,
    platform = @platform, roots = @roots, agents = @agents, allow_bypass = @allowBypass, registered_at = @now, last_seen_at = @now`;
const SELECT_ONE = `SELECT * FROM machines WHERE machine_id = @machineId AND namespace = @namespace`;
const SELECT_ALL = `SELECT * FROM machines WHERE namespace = @namespace ORDER BY name, machine_id`;
const SELECT_BY_HOST = `SELECT * FROM machines WHERE namespace = @namespace AND host = @host ORDER BY last_seen_at DESC`;
const TOUCH = `UPDATE machines SET last_seen_at = @now WHERE machine_id = @machineId AND last_seen_at < @now`;

const INSERT_ACTION = `
  INSERT INTO machine_actions (action_id, namespace, machine_id, sid, action, path, by_token, by_label, at, outcome)
  VALUES (@actionId, @namespace, @machineId, @sid, @action, @path, @byToken, @byLabel, @at, @outcome)`;
// every machine's at once: one statement for the list, whatever the number of machines
const SELECT_RECENT_PATHS = `
  SELECT machine_id AS "machineId", path FROM (
    SELECT machine_id, path, ROW_NUMBER() OVER (PARTITION BY machine_id ORDER BY MAX(at) DESC) AS n
    FROM machine_actions
    WHERE namespace = @namespace AND machine_id IS NOT NULL AND path IS NOT NULL AND outcome = 'ok' AND action IN ('start', 'continue')
    GROUP BY machine_id, path
  ) ranked
  WHERE n <= @limit ORDER BY machine_id, n`;
const COUNT_OF_TOKEN = `SELECT COUNT(*) AS "count" FROM machines WHERE namespace = @namespace AND token_id = @tokenId`;
const DELETE_ONE = `DELETE FROM machines WHERE machine_id = @machineId AND namespace = @namespace`;

export type MachineHolder = { namespace: string; tokenId: string; holds: boolean };

export async function getMachineHolder(sql: Sql, input: { machineId: string; now: number }): Promise<MachineHolder | undefined> {
  const row = await sql.get<{ namespace: string; tokenId: string; holds: number | string }>(SELECT_HOLDER, input);
  return row && { namespace: row.namespace, tokenId: row.tokenId, holds: Number(row.holds) === 1 };
}

export async function saveMachine(sql: Sql, machine: Omit<StoredMachine, 'registeredAt' | 'lastSeenAt'> & { now: number }): Promise<void> {
  await sql.run(UPSERT, {
    ...machine,
    roots: JSON.stringify(machine.roots),
    agents: JSON.stringify(machine.agents),
    allowBypass: machine.allowBypass ? 1 : 0,
  });
}

export async function getMachine(sql: Sql, key: { namespace: string; machineId: string }): Promise<StoredMachine | undefined> {
  const row = await sql.get<MachineRow>(SELECT_ONE, key);
  return row && fromRow(row);
}

export async function listMachines(sql: Sql, namespace: string): Promise<StoredMachine[]> {
  return (await sql.all<MachineRow>(SELECT_ALL, { namespace })).map(fromRow);
}

export async function listMachinesOnHost(sql: Sql, key: { namespace: string; host: string }): Promise<StoredMachine[]> {
  return (await sql.all<MachineRow>(SELECT_BY_HOST, key)).map(fromRow);
}

/** Its socket dropped: when it was last seen. */
export async function touchMachine(sql: Sql, input: { machineId: string; now: number }): Promise<void> {
  await sql.run(TOUCH, input);
}

export interface MachineAction {
  actionId: string;
  namespace: string;
  /** null: refused before a machine was chosen (no_machine). */
  machineId: string | null;
  sid: string | null;
  action: 'start' | 'continue' | 'dirs' | 'interrupt' | 'stop' | 'forget' | 'commit' | 'worktree-remove' | 'mkdir' | 'import' | 'take-back';
  path: string | null;
  byToken: string;
  byLabel: string | null;
  at: number;
  /** `ok`, or the error code it was refused with. */
  outcome: string;
}

export async function recordMachineAction(sql: Sql, action: MachineAction): Promise<void> {
  await sql.run(INSERT_ACTION, action);
}

/** Each machine's directories its agents were started or continued in, most recent first, at most `limit` each. */
export async function recentMachinePaths(sql: Sql, key: { namespace: string; limit: number }): Promise<Map<string, string[]>> {
  const byMachine = new Map<string, string[]>();
  for (const row of await sql.all<{ machineId: string; path: string }>(SELECT_RECENT_PATHS, key)) {
    byMachine.set(row.machineId, [...(byMachine.get(row.machineId) ?? []), row.path]);
  }
  return byMachine;
}

/** How many machines one token has registered in its namespace (the cap: docs/machines.md). */
export async function countMachinesOfToken(sql: Sql, key: { namespace: string; tokenId: string }): Promise<number> {
  return Number((await sql.get<{ count: number | string }>(COUNT_OF_TOKEN, key))?.count ?? 0);
}

/** A person forgot the machine: gone from the list; what it was asked stays on the record. True if there was one. */
export async function forgetMachine(sql: Sql, key: { namespace: string; machineId: string }): Promise<boolean> {
  return (await sql.run(DELETE_ONE, key)).changes > 0;
}
